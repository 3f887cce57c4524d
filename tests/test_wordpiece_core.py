"""`_core.WordPiece` (BERT normalizer -> BERT pre-tokenizer -> WordPiece) gives exactly the ids
AND character offsets of Hugging Face `tokenizers` for bert-base-uncased, special tokens not
added (`add_special_tokens=False`): on botchan.txt (every line), the first 2000 non-empty lines of
each debian-handbook (en, fr, ja, zh), llama.cpp's bert-bge vectors, every code point, and
hypothesis text (all Unicode categories but surrogates, whitespace runs, accents, CJK, control
characters, very long words), under every combination of the normalizer's options.

Texts holding one of HF's added tokens ("[CLS]"...) are outside this step: HF splits those off
before normalizing, which the Python layer is to do.
"""

from __future__ import annotations

import functools
import gzip
import itertools
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import peers
import tokenmill
from conftest import hyp_examples
from tokenmill import _core

ADDED = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
HANDBOOKS = ["en-US", "fr-FR", "ja-JP", "zh-CN"]


@functools.lru_cache(maxsize=None)
def _vocab() -> tuple[tuple[str, int], ...]:
    raw = (peers.shared_data() / "hf" / "bert-base-uncased" / "vocab.txt").read_bytes().decode("utf-8")
    lines = raw.split("\n")
    if lines[-1] == "":
        lines.pop()
    return tuple((t, i) for i, t in enumerate(lines))


@functools.lru_cache(maxsize=None)
def _ours(**options) -> _core.WordPiece:
    return _core.WordPiece(list(_vocab()), "[UNK]", **options)


@functools.lru_cache(maxsize=None)
def _hf_bert():
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(peers.shared_data() / "hf" / "bert-base-uncased" / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    return tok


@functools.lru_cache(maxsize=None)
def _hf_with(**options):
    """HF's pipeline built from parts, for the normalizer options bert-base-uncased does not use."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    kw = dict(options)
    max_chars = kw.pop("max_input_chars_per_word", 100)
    tok = Tokenizer(models.WordPiece(dict(_vocab()), unk_token="[UNK]", max_input_chars_per_word=max_chars))
    tok.normalizer = normalizers.BertNormalizer(**kw)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return tok


def _assert_same(texts: list[str], ours=None, hf=None) -> None:
    ours = ours or _ours()
    hf = hf or _hf_bert()
    expected = hf.encode_batch(texts, add_special_tokens=False)
    for i, (text, e) in enumerate(zip(texts, expected)):
        assert not any(a in text for a in ADDED), f"text {i} holds an added token: {text[:80]!r}"
        got = ours.encode_with_offsets(text)
        assert got == (e.ids, e.offsets), f"text {i} {text[:120]!r}: ours {got} vs HF {(e.ids, e.offsets)}"
    assert ours.encode_batch(texts) == [e.ids for e in expected]


def _handbook_lines(lang: str) -> list[str]:
    path = peers.shared_data() / "corpus" / f"debian-handbook.{lang}.txt.gz"
    with gzip.open(path, "rb") as f:
        lines = f.read().decode("utf-8").split("\n")
    return [line for line in lines if line.strip()][:2000]


# --------------------------------------------------------------------------- real text


def test_vocab_file_is_the_tokenizer_json_vocab():
    import json

    data = json.loads((peers.shared_data() / "hf" / "bert-base-uncased" / "tokenizer.json").read_text("utf-8"))
    assert dict(_vocab()) == data["model"]["vocab"]
    assert _ours().vocab_size == len(_vocab()) == 30522


def test_botchan_every_line():
    raw = (peers.shared_data() / "corpus" / "botchan.txt").read_bytes().decode("utf-8")
    _assert_same(raw.split("\n"))


@pytest.mark.parametrize("lang", HANDBOOKS)
def test_debian_handbook_first_2000_lines(lang):
    lines = _handbook_lines(lang)
    assert len(lines) == 2000
    _assert_same(lines)


def test_llama_cpp_bert_bge_vectors():
    vec = peers.shared_data() / "vectors"
    inputs = (vec / "ggml-vocab-bert-bge.gguf.inp").read_bytes().decode("utf-8").split("\n__ggml_vocab_test__\n")
    assert inputs[-1] == ""
    inputs.pop()
    outputs = (vec / "ggml-vocab-bert-bge.gguf.out").read_bytes().decode("utf-8").split("\n")
    assert len(outputs) >= len(inputs) == 46
    _assert_same(inputs)
    # llama.cpp agrees with HF on every vector (HF is the reference if they ever differ).
    for text, line in zip(inputs, outputs):
        assert _ours().encode(text) == [int(x) for x in line.split()], repr(text)


def test_every_code_point():
    # Separated by spaces, so each is a word (or a few, once normalized) of its own.
    chars = [chr(c) for c in range(1, 0x110000) if not 0xD800 <= c < 0xE000]
    _assert_same([" ".join(chars[i : i + 50_000]) for i in range(0, len(chars), 50_000)])


def test_empty_whitespace_and_long_words():
    texts = ["", " ", "\t\n\r ", "\x00\ufffd", "a" * 100, "a" * 101, "é" * 101 + " x", "ab" * 5000, " x" * 3000]
    _assert_same(texts)


@pytest.mark.parametrize(
    "clean_text,handle_chinese_chars,strip_accents,lowercase",
    list(itertools.product([True, False], [True, False], [None, True, False], [True, False])),
)
def test_every_normalizer_option(clean_text, handle_chinese_chars, strip_accents, lowercase):
    options = dict(clean_text=clean_text, handle_chinese_chars=handle_chinese_chars, strip_accents=strip_accents,
                   lowercase=lowercase, max_input_chars_per_word=7)
    texts = ["Héllo\tWÖRLD\x00 中文字 a\u0301\u0323b naïve İstanbul ﬁ\u200b!?", "unaffable aaaaaaa aaaaaaaa",
             "ŉ ǰ ΐ \u0344x \u0f73 \U0001d15e ᾈ \u1e9e \u2126", "\x01\u0301\x7f\u0323 \u00a0\u3000\u2028x"]
    _assert_same(texts, _ours(**options), _hf_with(**options))


# --------------------------------------------------------------------------- hypothesis

# Every category but surrogates (a str holding one cannot reach Rust or HF), plus the pieces that
# matter here, weighted up.
_char = st.characters(codec="utf-8", exclude_categories=["Cs"])
_piece = st.one_of(
    st.text(_char, max_size=8),
    st.sampled_from([" ", "  ", "\t", "\n", "\r\n", "\u3000", "\x00", "\x7f", "\ufffd", "\u200b", "\u0301",
                     "\u0323", "é", "É", "Å", "ı", "İ", "ß", "中", "文", "字", "の", "한", "!", "...", "##", "[", "]"]),
    st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz"), min_size=1, max_size=12),
    st.integers(95, 130).map(lambda n: "x" * n),
)
_text = st.lists(_piece, max_size=12).map("".join)


@settings(max_examples=hyp_examples(2000))
@given(_text)
@example("a\u0301\x01\u0323b")
@example("x" * 101)
def test_hypothesis_text(text):
    if any(a in text for a in ADDED):
        return
    _assert_same([text])


@settings(max_examples=hyp_examples(300))
@given(_text, st.booleans(), st.booleans(), st.sampled_from([None, True, False]), st.booleans())
def test_hypothesis_options(text, clean_text, handle_chinese_chars, strip_accents, lowercase):
    if any(a in text for a in ADDED):
        return
    options = dict(clean_text=clean_text, handle_chinese_chars=handle_chinese_chars, strip_accents=strip_accents,
                   lowercase=lowercase)
    _assert_same([text], _ours(**options), _hf_with(**options))


# --------------------------------------------------------------------------- the binding


def test_encode_batch_threads_and_encode_agree():
    texts = _handbook_lines("en-US")[:300]
    ours = _ours()
    one = ours.encode_batch(texts)
    assert ours.encode_batch(texts, num_threads=2) == one
    assert ours.encode_batch(texts, num_threads=8) == one
    assert [ours.encode(t) for t in texts] == one
    assert ours.encode_batch([]) == []


@pytest.mark.parametrize(
    "vocab,unk,message",
    [
        ([], "[UNK]", "empty"),
        ([("a", 0), ("a", 1)], "a", 'token "a" is given twice'),
        ([("a", 0), ("b", 0)], "a", "id 0 is given twice"),
        ([("a", 0)], "[UNK]", 'unknown token "[UNK]" is not in it'),
    ],
)
def test_bad_vocab_raises_vocab_format_error(vocab, unk, message):
    with pytest.raises(tokenmill.errors.VocabFormatError, match=re.escape(message)):
        _core.WordPiece(vocab, unk)


def test_frozen():
    with pytest.raises(AttributeError):
        _ours().vocab_size = 3  # type: ignore[misc]
