"""Shared helpers of the SentencePiece tests: the shared `.model` files and corpora, hypothesis
text that exercises sentencepiece's normalizer, and models trained with
`sentencepiece.SentencePieceTrainer` with each option switched on and off.

Used by tests/test_sentencepiece.py (the Rust path); it holds the same data and options as
tests/test_sentencepiece_reference.py (the pure-Python reference), which can import it too.
Missing ../shared/data is a failure with a message, never a skip.
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import strategies as st

from tokenmill._reference.sentencepiece_proto import _varint

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
MODELS = ["botchan_en_bpe_1000.model", "botchan_en_unigram_1000.model", "mistral-7b-v0.1.tokenizer.model"]
LANGS = ["en-US", "fr-FR", "ja-JP", "zh-CN"]


def need(path: Path) -> Path:
    """`path`, or a test failure naming it when the shared data is missing."""
    if not path.exists():
        pytest.fail(f"shared test data missing: {path} (see ../shared/data/README.md)")
    return path


def model_path(name: str) -> str:
    return str(need(DATA / "sentencepiece" / name))


@lru_cache(maxsize=None)
def corpus_lines(per_language: int = 550, botchan: int = 600) -> tuple[str, ...]:
    """Lines of botchan and of each Debian handbook (non-empty lines only for those)."""
    lines = need(DATA / "corpus" / "botchan.txt").read_text(encoding="utf-8").splitlines()[:botchan]
    for lang in LANGS:
        with gzip.open(need(DATA / "corpus" / f"debian-handbook.{lang}.txt.gz"), "rt", encoding="utf-8") as f:
            lines += [line for line in f.read().splitlines() if line.strip()][:per_language]
    return tuple(lines)


EDGE = ["", " ", "  ", "   a  b  ", "\t\ttab\t", "ｈｅｌｌｏ　ｗｏｒｌｄ１２３", "e\u0301 n\u0303", "①②㍿", "\x00x\x00",
        "ﬁ ﬂ", "€𝔘😀 ok", "Ⅻ ㌀ ｶﾞ", "a\u3000\u3000b", "\u200b\u200d", "１２３４５６７８９０", "<0x41> <unk> <s>",
        "x<sep>y foo foofoo 𝔘x ab  ab", " lead and trail  ", "９９ bottles 123", "a" + " " * 50 + "b"]

# Text that exercises normalization: all categories but surrogates, plus the awkward cases
# (full-width forms, combining marks, whitespace runs, NFKC-sensitive text, user symbols).
_awkward = st.sampled_from([" ", "  ", "   ", "\t", "\u3000", "\u00a0", "ｶﾞ", "Ａ", "１", "\u0301", "\u0308", "ﬁ", "①", "㍿",
                            "Ⅻ", "ß", "İ", "\u200b", "▁", "<unk>", "<0x41>", "\n", "<sep>", "foo", "𝔘x", "ab", "<s>"])
TEXT = st.lists(st.one_of(st.characters(blacklist_categories=("Cs",)), _awkward,
                          st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8)),
                max_size=30).map("".join)

OPTIONS = {
    "defaults": {},
    "split_digits": {"split_digits": True},
    "byte_fallback": {"byte_fallback": True},
    "no_dummy_prefix": {"add_dummy_prefix": False},
    "keep_whitespace": {"remove_extra_whitespaces": False},
    "no_dummy_keep_ws": {"add_dummy_prefix": False, "remove_extra_whitespaces": False},
    "user_symbols": {"user_defined_symbols": ["<sep>", "foo", "𝔘x", "ab"]},
    "ws_suffix": {"treat_whitespace_as_suffix": True},
    "ws_only_pieces": {"allow_whitespace_only_pieces": True, "remove_extra_whitespaces": False},
    "identity": {"normalization_rule_name": "identity"},
    "nfkc_cf": {"normalization_rule_name": "nfkc_cf"},
    # Unigram scores user-defined pieces 0.1 * (bytes - 1) (0.2.3): "▁▁" beats "▁" "▁".
    "user_double_space": {"user_defined_symbols": ["▁▁"], "remove_extra_whitespaces": False},
}


def write_training_corpus(directory: Path) -> Path:
    """A small training corpus (450 corpus lines and a few awkward ones) in `directory`."""
    lines = list(corpus_lines()[:250]) + list(corpus_lines()[1700:1800]) + list(corpus_lines()[2250:2350])
    lines += ["call 12345 or 2024-01-02, ok?", "  spaced   out  ", "ｆｕｌｌ　ｗｉｄｔｈ ＡＢＣ", "foo<sep>bar ab abab"]
    path = directory / "corpus.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def train(corpus: Path, model_type: str, option: str, vocab_size: int = 1000) -> str:
    """The path of a model trained on `corpus` with `OPTIONS[option]` (trained once, kept beside it)."""
    import sentencepiece as spm

    prefix = corpus.parent / f"{model_type}_{option}_{vocab_size}"
    path = str(prefix) + ".model"
    if not Path(path).exists():
        spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(prefix), vocab_size=vocab_size,
                                       model_type=model_type, hard_vocab_limit=False, character_coverage=0.98,
                                       num_threads=1, minloglevel=2, **OPTIONS[option])
    return path


@lru_cache(maxsize=None)
def small_model() -> bytes:
    """botchan Unigram cut to its first 150 pieces (specs and charsmap kept), re-serialized by
    hand: a small valid model for the fuzz tests."""
    data = need(DATA / "sentencepiece" / "botchan_en_unigram_1000.model").read_bytes()
    pos, out, n = 0, bytearray(), 0
    while pos < len(data):  # keep the first 150 piece records (field 1) and every other field
        key, start = data[pos], pos
        size, pos = _varint(data, pos + 1, "the botchan model")
        if key != 0x0A or n < 150:
            out += data[start : pos + size]
        n += key == 0x0A
        pos += size
    return bytes(out)


def same_as_sentencepiece(sp, tok, text: str) -> None:
    """`tok` (tokenmill's model or the reference) gives sentencepiece's ids and decoded text."""
    ids = sp.encode(text)
    assert tok.encode(text) == ids, f"ids differ for {text!r}"
    assert tok.decode(ids) == sp.decode(ids), f"decode differs for {text!r}"
