"""Exports load in the real libraries and give identical ids: tiktoken, HF tokenizers, GPT-2 files;
and tokenmill's own format round-trips and rejects bad files with the field named."""

from __future__ import annotations

import functools
import os
import gzip
import json

import pytest
import tiktoken
import tiktoken.load
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, Tokenizer, pre_tokenizers
from tokenizers.models import BPE

import tokenmill
from tokenmill.formats.hf_regex import hf_regex

from conftest import hyp_examples
from peers import shared_data

SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")


@functools.lru_cache(maxsize=None)
def _texts() -> tuple[str, ...]:
    data = shared_data()
    out = [(data / "corpus" / "canterbury" / "alice29.txt").read_text(encoding="utf-8")[:60_000]]
    for lang in ("fr-FR", "ja-JP", "zh-CN"):
        with gzip.open(data / "corpus" / f"debian-handbook.{lang}.txt.gz", "rt", encoding="utf-8") as f:
            out.append(f.read(40_000))
    out.append((tokenmill.__file__.rsplit("/", 1)[0] + "/encoding.py") and open(tokenmill.encoding.__file__, encoding="utf-8").read())
    out.append("<|im_start|>user\nHi  there!\r\n\n  <|im_end|><|endoftext|>  \t1234567 don't WE'LL\u00a0x\u3000y")
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _trained(pattern: str) -> tokenmill.Encoding:
    data = shared_data()
    train = [(data / "corpus" / "botchan.txt").read_text(encoding="utf-8")]
    for lang in ("fr-FR", "ja-JP", "zh-CN"):
        with gzip.open(data / "corpus" / f"debian-handbook.{lang}.txt.gz", "rt", encoding="utf-8") as f:
            f.read(40_000)  # held out: _texts() uses the first 40k characters
            train.append(f.read(150_000))
    return tokenmill.train_bpe(train, 3000, pattern=pattern, special_tokens=SPECIALS, progress=False, name=f"t-{pattern}")


@functools.lru_cache(maxsize=None)
def _continued() -> tokenmill.Encoding:
    base = _trained("cl100k")
    return tokenmill.train_bpe([(shared_data() / "the-verdict.txt").read_text(encoding="utf-8")], base.n_vocab + 200, base=base, special_tokens=("<|sep|>",), progress=False)


ENCODINGS = {"cl100k": lambda: _trained("cl100k"), "gpt2": lambda: _trained("gpt2"), "o200k": lambda: _trained("o200k"), "continued": _continued}


def _hf(enc, tmp_path) -> Tokenizer:
    [path] = enc.export("hf", tmp_path / "tokenizer.json")
    return Tokenizer.from_file(str(path))


def _tiktoken(enc, tmp_path) -> tiktoken.Encoding:
    rank_file, meta_file = enc.export("tiktoken", tmp_path / "tok.tiktoken")
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    return tiktoken.Encoding(mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(rank_file)), **meta)


@pytest.mark.parametrize("which", sorted(ENCODINGS))
def test_tiktoken_export(which, tmp_path):
    enc = ENCODINGS[which]()
    tk = _tiktoken(enc, tmp_path)
    assert tk.n_vocab == enc.n_vocab
    for text in _texts():
        assert tk.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")


@pytest.mark.parametrize("which", sorted(ENCODINGS))
def test_hf_export(which, tmp_path):
    enc = ENCODINGS[which]()
    hf = _hf(enc, tmp_path)
    assert hf.get_vocab_size() == enc.n_vocab
    for text in _texts():
        ids = enc.encode(text, allowed_special="all")
        assert hf.encode(text, add_special_tokens=False).ids == ids
        assert hf.decode(ids, skip_special_tokens=False) == text


def test_hf_export_of_a_standard_encoding(tmp_path):
    # r50k's 50k tokens through the export: HF must give tiktoken's ids.
    enc = tokenmill.get_encoding("r50k_base")
    hf = _hf(enc, tmp_path)
    for text in _texts():
        assert hf.encode(text, add_special_tokens=False).ids == enc.encode(text, allowed_special="all")


@settings(max_examples=hyp_examples(150), deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80) | st.text(alphabet="ab \n\t'1é漢<|>", max_size=80))
def test_hf_export_random_text(text):
    for which in ("cl100k", "o200k"):
        enc = ENCODINGS[which]()
        hf = _hf_cached(which)
        assert hf.encode(text, add_special_tokens=False).ids == enc.encode(text, allowed_special="all"), which


@functools.lru_cache(maxsize=None)
def _hf_cached(which: str) -> Tokenizer:
    return Tokenizer.from_str(json.dumps(tokenmill.formats.hf_tokenizer_dict(ENCODINGS[which]())))


@pytest.mark.parametrize("which", ["gpt2", "continued"])
def test_gpt2_files_export(which, tmp_path):
    enc = ENCODINGS[which]()
    enc_path, bpe_path = enc.export("gpt2", tmp_path / "gpt2files")
    ranks, specials = tokenmill.load_gpt2_files(enc_path, bpe_path)
    assert ranks == enc._mergeable_ranks and specials == enc._special_tokens
    # Hugging Face reads GPT-2 files with BPE.from_file; the pre-tokenizer is the pattern.
    hf = Tokenizer(BPE.from_file(str(enc_path), str(bpe_path)))
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Split(Regex(hf_regex(enc._pat_str)), behavior="removed", invert=True), pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    )
    for text in _texts():
        plain = text.replace("<|", "< |")
        assert hf.encode(plain, add_special_tokens=False).ids == enc.encode_ordinary(plain)


def test_gpt2_export_of_gpt2_matches_the_original_files(tmp_path):
    enc_path, bpe_path = tokenmill.get_encoding("gpt2").export("gpt2", tmp_path)
    orig = shared_data() / "gpt2"
    assert json.loads(enc_path.read_text(encoding="utf-8")) == json.loads((orig / "encoder.json").read_text(encoding="utf-8"))
    mine = [ln for ln in bpe_path.read_text(encoding="utf-8").split("\n")[1:] if ln]
    theirs = [ln for ln in (orig / "vocab.bpe").read_text(encoding="utf-8").split("\n")[1:] if ln]
    assert mine == theirs


# ------------------------------------------------------------------ native format
@pytest.mark.parametrize("which", sorted(ENCODINGS))
def test_native_round_trip(which, tmp_path):
    enc = ENCODINGS[which]()
    enc.save(tmp_path / "tok.json")
    back = tokenmill.load(tmp_path / "tok.json")
    assert back._mergeable_ranks == enc._mergeable_ranks
    assert back._special_tokens == enc._special_tokens
    assert back._pat_str == enc._pat_str and back.name == enc.name
    assert back.training_info == enc.training_info
    doc = json.loads((tmp_path / "tok.json").read_text(encoding="utf-8"))
    assert doc["format"] == "tokenmill" and doc["version"] == 1 and doc["model"]["type"] == "byte_bpe"


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda d: d.update(format="other"), "not a tokenmill file"),
        (lambda d: d.update(version=99), "unsupported version 99"),
        (lambda d: d["model"].update(type="nope"), "nope"),
        (lambda d: d["model"].pop("pattern"), r"model\.pattern: missing"),
        (lambda d: d["model"].update(vocab=7), r"model\.vocab: expected an array"),
        (lambda d: d["model"]["vocab"].__setitem__(3, ["x"]), r"model\.vocab\[3\]"),
        (lambda d: d["model"]["vocab"].__setitem__(3, [3, "!!"]), r"model\.vocab\[3\].*base64"),
        (lambda d: d.update(special_tokens=[1]), "special_tokens"),
    ],
)
def test_native_bad_files(mutate, match, tmp_path):
    enc = tokenmill.train_bpe(["hello world"], 260, progress=False)
    enc.save(tmp_path / "t.json")
    d = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    mutate(d)
    (tmp_path / "t.json").write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(tokenmill.TokenmillError, match=match) as e:
        tokenmill.load(tmp_path / "t.json")
    assert "t.json" in str(e.value)


def test_native_not_json(tmp_path):
    (tmp_path / "t.json").write_text("{oops", encoding="utf-8")
    with pytest.raises(tokenmill.VocabFormatError, match="invalid JSON"):
        tokenmill.load(tmp_path / "t.json")
    with pytest.raises(FileNotFoundError):
        tokenmill.load(tmp_path / "missing.json")


def test_export_unknown_format(tmp_path):
    with pytest.raises(ValueError, match="unknown export format"):
        tokenmill.get_encoding("gpt2").export("nope", tmp_path / "x")


def test_saved_files_get_the_usual_permissions(tmp_path):
    # The atomic write goes through a private temporary file; the result must not stay 0600.
    enc = tokenmill.get_encoding("gpt2")
    enc.save(tmp_path / "t.json")
    mask = os.umask(0o022)
    os.umask(mask)
    assert (tmp_path / "t.json").stat().st_mode & 0o777 == 0o666 & ~mask


CUSTOM_PATTERNS = [
    r"\w+|\s+|[^\w\s]+",
    r"(?i:'s|'t)|[a-z]++|\d{1,2}+|\s+|.",
    r"\s+$|\s+|\S+",
    r"(?P<word>\pL+)|\pN|\s|[^\pL\pN\s]+",
    r"^\s+|\w++| ?\W",
]


@functools.lru_cache(maxsize=None)
def _custom(pattern: str):
    enc = tokenmill.train_bpe([_texts()[0][:20_000], _texts()[1][:5_000]], 600, pattern=pattern, special_tokens=("<|e|>",), progress=False)
    return enc, Tokenizer.from_str(json.dumps(tokenmill.formats.hf_tokenizer_dict(enc)))


@settings(max_examples=hyp_examples(100), deadline=None)
@given(st.sampled_from(CUSTOM_PATTERNS), st.text(alphabet="aB1 \n\t'é漢-.", max_size=60) | st.text(max_size=30))
def test_hf_export_custom_patterns(pattern, text):
    # Custom patterns go through hf_regex (possessives, anchors, named groups, \pL): HF's
    # Oniguruma must split like tokenmill's fancy-regex, so the ids agree.
    text = text.encode("utf-8", "replace").decode("utf-8")
    enc, hf = _custom(pattern)
    assert hf.encode(text, add_special_tokens=False).ids == enc.encode(text, allowed_special="all")


@pytest.mark.parametrize("pattern", [r"(?m)^\w+|\s+|.", r"(?s).+", r"(?x) \w+ | \s+"])
def test_hf_export_rejects_flags_it_cannot_express(pattern):
    enc = tokenmill.train_bpe(["ab ab"], 257, pattern=pattern, progress=False)
    with pytest.raises(tokenmill.VocabFormatError, match="flag"):
        tokenmill.formats.hf_tokenizer_dict(enc)


def test_hf_export_rejects_a_special_spelled_in_byte_symbols():
    # "ĠĠĠ" reads as three spaces in GPT-2's byte symbols: HF would map "   " to the special.
    enc = tokenmill.train_bpe(["a   b"], 260, special_tokens=("ĠĠĠ",), progress=False)
    with pytest.raises(tokenmill.VocabFormatError, match="rename the special"):
        tokenmill.formats.hf_tokenizer_dict(enc)


def test_bad_inputs_to_load_and_export(tmp_path):
    p = tmp_path / "t.json"
    tokenmill.get_encoding("gpt2").save(p)
    raw = p.read_bytes()
    p.write_bytes(raw[: len(raw) // 2])  # truncated
    with pytest.raises(tokenmill.VocabFormatError, match="t.json.*invalid JSON"):
        tokenmill.load(p)
    p.write_bytes(b"\xff\xfe{}")
    with pytest.raises(tokenmill.VocabFormatError, match="not valid UTF-8 at byte 0"):
        tokenmill.load(p)
    with pytest.raises(FileNotFoundError, match="directory .* does not exist"):
        tokenmill.get_encoding("gpt2").export("hf", tmp_path / "missing" / "tokenizer.json")
    assert list(tmp_path.iterdir()) == [p]
