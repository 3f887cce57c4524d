"""Hugging Face ``tokenizer.json``: tokenmill's `HFTokenizer` against HF ``tokenizers`` itself.

Every check compares the whole result (ids, tokens, offsets, type ids, word ids, masks) with
``add_special_tokens`` True and False, and decoding, on: every tokenizer.json in
../shared/data (GPT-2, o200k, Mistral, BERT), text from the shared corpora in several
languages, hand-picked hard strings and hypothesis text.
"""

from __future__ import annotations

import gzip
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import peers
import tokenmill
from conftest import hyp_examples

tokenizers = pytest.importorskip("tokenizers") if False else __import__("tokenizers")

HARD = [
    "", " ", "  ", "\n", "\n\n\n", "\t \n ", "a", "Hello world", " Hello  world ", "hello\n\nworld",
    "I'm can't we'll they've", "HELLO WoRLD", "1234567890 3.14159 1,000,000", "a" * 300, " " * 100 + "x",
    "Café naïve résumé", "über straße ÄÖÜ", "日本語のテキスト", "中文文本测试", "한국어 텍스트", "Привет мир",
    "مرحبا بالعالم", "שלום עולם", "😀🤗👍🏽 emoji 🇫🇷", "e\u0301 a\u0308", "\u0000nul\u0000", "tab\tsep\tvalues",
    "\r\nwindows\r\nlines", "x\u200by\u00a0z\u3000w", "ﬁ ﬂ ＡＢＣ ①②③", "<|endoftext|>", "a<|endoftext|>b",
    "<s> hello </s>", "[CLS] x [SEP] [MASK] y", "  [MASK]  ", "def f(x):\n    return x**2\n",
    '{"key": [1, 2, {"nested": null}]}', "https://example.com/path?q=1&r=2#frag", "İstanbul ǅ ß ẞ",
    "\U0001F600" * 20, "a\ufffdb", "--- *** ...", "n't 's 'S 'LL",
]


def corpus_lines(n_per_file: int = 60, seed: int = 0) -> list[str]:
    """Lines and short paragraphs from every shared corpus (English, French, Japanese, Chinese...)."""
    rng = random.Random(seed)
    out = []
    for name, text in sorted(peers.corpus_texts().items()):
        lines = [ln for ln in text.split("\n") if ln.strip()]
        for _ in range(n_per_file):
            i = rng.randrange(len(lines))
            out.append("\n".join(lines[i : i + rng.choice([1, 1, 2, 4])]))
    return out


def load_hf(path):
    if str(path).endswith(".gz"):
        return tokenizers.Tokenizer.from_str(gzip.open(path, "rt", encoding="utf-8").read())
    return tokenizers.Tokenizer.from_file(str(path))


def assert_same(tm, hf, text, pair=None, fields=True):
    for add in (True, False):
        want = hf.encode(text, pair, add_special_tokens=add) if pair is not None else hf.encode(text, add_special_tokens=add)
        got = tm.encode_full(text, pair, add_special_tokens=add)
        ctx = f"text={text[:80]!r} pair={pair!r} add_special_tokens={add}"
        assert got.ids == want.ids, ctx
        assert tm.encode(text, pair, add_special_tokens=add) == want.ids, ctx
        if fields:
            assert got.tokens == want.tokens, ctx
            assert got.offsets == want.offsets, ctx
            assert got.type_ids == want.type_ids, ctx
            assert got.word_ids == want.word_ids, ctx
            assert got.special_tokens_mask == want.special_tokens_mask, ctx
            assert got.attention_mask == want.attention_mask, ctx
            assert got.sequence_ids == want.sequence_ids, ctx
            assert len(got.overflowing) == len(want.overflowing), ctx
            for a, b in zip(got.overflowing, want.overflowing):
                assert (a.ids, a.offsets, a.type_ids) == (b.ids, b.offsets, b.type_ids), ctx
    ids = hf.encode(text).ids
    for skip in (True, False):
        assert tm.decode(ids, skip_special_tokens=skip) == hf.decode(ids, skip_special_tokens=skip), f"decode {text[:80]!r}"


# ---------------------------------------------------------------------------- the shared files
SHARED_FILES = ["gpt2/tokenizer.json", "hf/gpt-4o.o200k.tokenizer.json.gz", "hf/mistral-7b-v0.1.tokenizer.json",
                "hf/bert-base-uncased/tokenizer.json"]


@pytest.fixture(scope="module", params=SHARED_FILES)
def pair(request, shared_data):
    path = shared_data / request.param
    return tokenmill.load(path), load_hf(path)


@pytest.fixture(scope="module")
def lines():
    return corpus_lines()


def test_shared_files_load_as_hf(pair):
    tm, hf = pair
    assert isinstance(tm, tokenmill.HFTokenizer)
    assert tm.get_vocab_size(True) == hf.get_vocab_size(True)
    assert tm.get_vocab_size(False) == hf.get_vocab_size(False)
    assert tm.get_vocab(True) == hf.get_vocab(True)


def test_shared_files_hard_strings(pair):
    tm, hf = pair
    for text in HARD:
        assert_same(tm, hf, text)


def test_shared_files_corpus(pair, lines):
    tm, hf = pair
    for text in lines:
        assert_same(tm, hf, text)


def test_shared_files_pairs(pair, lines):
    tm, hf = pair
    for a, b in zip(lines[:40], lines[40:80]):
        assert_same(tm, hf, a, b)


def test_shared_files_batch(pair, lines):
    tm, hf = pair
    want = [e.ids for e in hf.encode_batch(lines)]
    assert tm.encode_batch(lines) == want
    assert tm.encode_batch(lines, num_threads=2) == want
    want = [e.ids for e in hf.encode_batch(lines, add_special_tokens=False)]
    assert tm.encode_batch(lines, add_special_tokens=False, num_threads=2) == want


@given(st.text(max_size=200))
@settings(max_examples=hyp_examples(150))
def test_shared_files_hypothesis_text(shared_data, text):
    # One pass over all four files per example (fixtures with params do not mix with @given).
    for name in SHARED_FILES:
        tm, hf = _cached(shared_data / name)
        assert_same(tm, hf, text.replace("\ud800", ""))


_CACHE: dict = {}


def _cached(path):
    if path not in _CACHE:
        _CACHE[path] = (tokenmill.load(path), load_hf(path))
    return _CACHE[path]


def test_bert_without_padding_and_truncation(shared_data, lines):
    path = shared_data / "hf/bert-base-uncased/tokenizer.json"
    tm = tokenmill.load(path).with_padding(enabled=False).with_truncation(None)
    hf = load_hf(path)
    hf.no_padding()
    hf.no_truncation()
    for text in HARD + lines[:100]:
        assert_same(tm, hf, text)
    # The same ids as the vocab.txt WordPiece (the BERT pipeline of the WordPiece issue).
    wp = tokenmill.load(shared_data / "hf/bert-base-uncased/vocab.txt")
    for text in lines[:100]:
        assert tm.encode(text) == wp.encode(text)


def test_bert_vectors(shared_data):
    """llama.cpp's bert-bge test vectors (ids without special tokens)."""
    tm = tokenmill.load(shared_data / "hf/bert-base-uncased/tokenizer.json").with_padding(enabled=False).with_truncation(None)
    inp = (shared_data / "vectors/ggml-vocab-bert-bge.gguf.inp").read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")
    out = (shared_data / "vectors/ggml-vocab-bert-bge.gguf.out").read_text(encoding="utf-8").split("\n")
    for text, ids in zip(inp, out):
        assert tm.encode(text, add_special_tokens=False) == [int(i) for i in ids.split()], repr(text)


def test_gz_and_plain_are_the_same(shared_data, tmp_path):
    data = gzip.open(shared_data / "hf/gpt-4o.o200k.tokenizer.json.gz").read()
    (tmp_path / "tokenizer.json").write_bytes(data)
    a = tokenmill.load(tmp_path / "tokenizer.json")
    b = tokenmill.load(shared_data / "hf/gpt-4o.o200k.tokenizer.json.gz")
    assert a.encode("hello world <|endoftext|>") == b.encode("hello world <|endoftext|>")


def test_gpt2_hf_file_matches_tiktoken(shared_data, lines):
    tm = tokenmill.load(shared_data / "gpt2/tokenizer.json")
    enc = tokenmill.get_encoding("gpt2")
    for text in lines:
        assert tm.encode(text) == enc.encode_ordinary(text)


def test_o200k_hf_file_matches_tiktoken(shared_data, lines):
    tm = tokenmill.load(shared_data / "hf/gpt-4o.o200k.tokenizer.json.gz")
    enc = tokenmill.get_encoding("o200k_base")
    for text in lines:
        assert tm.encode(text) == enc.encode_ordinary(text)


# ---------------------------------------------------------------------------- round trips
def test_save_load_and_export_round_trip(shared_data, tmp_path):
    tm = tokenmill.load(shared_data / "hf/mistral-7b-v0.1.tokenizer.json")
    tm.save(tmp_path / "native.json")
    back = tokenmill.load(tmp_path / "native.json")
    assert isinstance(back, tokenmill.HFTokenizer)
    assert back.encode("Hello world") == tm.encode("Hello world")
    paths = tm.export("hf", tmp_path / "tokenizer.json")
    assert paths[0].read_bytes() == (shared_data / "hf/mistral-7b-v0.1.tokenizer.json").read_bytes()
    import pickle

    assert pickle.loads(pickle.dumps(tm)).encode("Hello") == tm.encode("Hello")


def test_immutable_copies(shared_data):
    tm = tokenmill.load(shared_data / "hf/bert-base-uncased/tokenizer.json")
    assert tm.padding is not None and tm.truncation is not None
    off = tm.with_padding(enabled=False)
    assert off.padding is None and tm.padding is not None
    assert len(tm.encode("hello")) == 128 and len(off.encode("hello")) == 3
    # None switches padding off, as it does truncation (HF's no_padding()); "longest" pads each batch
    assert tm.with_padding(None).padding is None and tm.with_truncation(None).truncation is None
    longest = off.with_padding()
    assert longest.padding["strategy"] == "BatchLongest" and len(longest.encode("hello")) == 3
    assert [len(x) for x in longest.encode_batch(["hello", "hello world"])] == [4, 4]
    with pytest.raises(ValueError, match="'longest'"):
        tm.with_padding("max")
    with pytest.raises(AttributeError):
        tm._core = None  # type: ignore[misc]


def test_encode_batch_to_numpy(shared_data):
    tm = tokenmill.load(shared_data / "hf/bert-base-uncased/tokenizer.json").with_padding(enabled=False).with_truncation(None)
    ids, mask = tm.encode_batch_to_numpy(["hello", "hello world again"])
    assert ids.shape == mask.shape == (2, 5)
    assert ids[0].tolist() == tm.encode("hello") + [0, 0]
    assert mask.tolist() == [[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]
    ids, mask = tm.encode_batch_to_numpy(["hello"], pad_id=7, add_special_tokens=False)
    assert ids.tolist() == [tm.encode("hello", add_special_tokens=False)] and ids.dtype.name == "uint32"
    # a Fixed length shorter than a row (no truncation): HF leaves that row whole; the matrix pads the rest to it
    left = tm.with_padding(4, direction="left", pad_id=9)
    ids, mask = left.encode_batch_to_numpy(["hello", "hello world again and again"])
    long = tm.encode("hello world again and again")
    assert ids.tolist() == [[9] * (len(long) - 3) + tm.encode("hello"), long]
    assert mask.sum(axis=1).tolist() == [3, len(long)]
    empty_ids, empty_mask = tm.encode_batch_to_numpy([])
    assert empty_ids.shape == empty_mask.shape == (0, 0)


# ---------------------------------------------------------------------------- Llama 3 / Qwen2-style files
LLAMA3_PAT = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
QWEN2_PAT = LLAMA3_PAT.replace(r"\p{N}{1,3}", r"\p{N}")


@pytest.fixture(scope="module", params=[("llama3", LLAMA3_PAT), ("qwen2", QWEN2_PAT)], ids=["llama3", "qwen2"])
def split_style(request, shared_data):
    """o200k's vocabulary with Llama 3's (or Qwen2's) split regex and ignore_merges, as those files have."""
    d = json.loads(gzip.open(shared_data / "hf/gpt-4o.o200k.tokenizer.json.gz").read())
    d["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": request.param[1]}, "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]}
    d["model"]["ignore_merges"] = True
    text = json.dumps(d)
    return request.param[0], tokenmill.HFTokenizer.from_str(text), tokenizers.Tokenizer.from_str(text)


def test_llama3_and_qwen2_style_files_run_on_hand_written_matchers(split_style, lines):
    name, tm, hf = split_style
    assert tm.pretokenizer == name
    for text in HARD + lines[:150]:
        assert_same(tm, hf, text)
    # Special-token text encoded as text: HF's encode_special_tokens; the fast path steps aside
    # for such calls (with ignore_merges, the model alone would return the token).
    hf.encode_special_tokens = True
    try:
        for text in ("<|endoftext|>", "a<|endoftext|>b <|endofprompt|>", "x"):
            assert tm.encode(text, allowed_special=set()) == hf.encode(text).ids
    finally:
        hf.encode_special_tokens = False


@given(st.text(max_size=200))
@settings(max_examples=hyp_examples(100))
def test_llama3_style_hypothesis_text(split_style, text):
    _, tm, hf = split_style
    assert tm.encode(text) == hf.encode(text).ids


# ---------------------------------------------------------------------------- bad input at the new entry points
def test_hf_tokenizer_entry_points_reject_bad_input(shared_data):
    from tokenmill.errors import TokenmillError, VocabFormatError

    for data in (b"", b"{", b"\xff\xfe garbage", b"[1, 2]", b'{"model": 5}'):
        with pytest.raises(VocabFormatError):
            tokenmill.HFTokenizer.from_bytes(data)
    with pytest.raises(VocabFormatError, match="line 1, column"):
        tokenmill.HFTokenizer.from_str('{"model": ')
    with pytest.raises(TypeError):
        tokenmill.HFTokenizer("not bytes")  # type: ignore[arg-type]
    tok = tokenmill.load(shared_data / "hf/mistral-7b-v0.1.tokenizer.json")
    with pytest.raises(TypeError):
        tok.encode(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        tok.encode_batch(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        tok.encode_batch("a single str")  # type: ignore[arg-type]
    with pytest.raises(TokenmillError):
        tok.with_padding(2**30)  # capped: no allocation of billions of pad tokens
    with pytest.raises(TokenmillError):
        tok.with_truncation(-1)
    with pytest.raises(TokenmillError):
        tok.decode([-1])
    # Huge, NUL, lone surrogates and invalid-UTF-8-born text: answers, never a crash.
    hf = load_hf(shared_data / "hf/mistral-7b-v0.1.tokenizer.json")
    for text in ("a" * 1_000_000, "\x00" * 1000, " " * 100_000 + "x", "9" * 100_000, b"\xff\xfeab".decode("utf-8", "replace")):
        assert tok.encode(text) == hf.encode(text).ids
    assert tok.encode("a\ud800b") == hf.encode("a\ufffdb").ids


def test_verify_rejects_bad_corpus_files(tmp_path, capsys):
    from tokenmill.cli import main

    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xff\xfe not utf-8\n")
    assert main(["verify", "gpt2", "--corpus", str(bad)]) == 2
    assert "not UTF-8" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert main(["verify", "gpt2", "--corpus", str(empty)]) == 0
    assert "0 texts" in capsys.readouterr().out
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(gzip.compress(b'{"model": {}}')[:10])
    assert main(["verify", str(broken), "--corpus", str(empty)]) == 2
    assert "gzip" in capsys.readouterr().err
