"""The reference SentencePiece implementation against the `sentencepiece` library (issue 13).

`tokenmill._reference.sentencepiece` must give the same ids as
`SentencePieceProcessor(model_file=...).encode(text)` and the same text as `.decode(ids)`:
for every `.model` in ../shared/data/sentencepiece over lines of the shared corpora, over
hypothesis text, and for models trained here with each option switched on and off. Malformed
`.model` bytes must raise `VocabFormatError` naming the problem.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest
import sentencepiece as spm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenmill._reference.sentencepiece as ref_spm
from tokenmill._reference.sentencepiece import SentencePieceModel
from tokenmill._reference.sentencepiece_proto import parse_model
from tokenmill.errors import UnsupportedError, VocabFormatError
from tokenmill.formats.sentencepiece import model_bytes

from spm_models import (DATA, EDGE, MODELS, OPTIONS, TEXT, corpus_lines, model_path, need, same_as_sentencepiece,
                        small_model)



@lru_cache(maxsize=None)
def _pair(name: str):
    path = model_path(name)
    return spm.SentencePieceProcessor(model_file=path), SentencePieceModel.from_file(path)


def _lines() -> tuple[str, ...]:
    """2,800 lines: botchan and 550 non-empty lines of each Debian handbook (the BPE reference is slow)."""
    return corpus_lines()


@pytest.mark.parametrize("name", MODELS)
def test_shared_models_on_corpora(name):
    sp, ref = _pair(name)
    texts = _lines() + tuple(EDGE)
    mismatched = [t for t in texts if ref.encode(t) != sp.encode(t)]
    assert not mismatched, f"{len(mismatched)}/{len(texts)} lines differ, first: {mismatched[0]!r}"
    wrong = [t for t in texts if ref.decode(sp.encode(t)) != sp.decode(sp.encode(t))]
    assert not wrong, f"{len(wrong)}/{len(texts)} decodes differ, first: {wrong[0]!r}"


def test_spec_fields_read():
    _, bpe = _pair("botchan_en_bpe_1000.model")
    _, uni = _pair("botchan_en_unigram_1000.model")
    _, mis = _pair("mistral-7b-v0.1.tokenizer.model")
    assert (bpe.trainer.model_type, uni.trainer.model_type, mis.trainer.model_type) == (2, 1, 2)
    assert mis.trainer.byte_fallback and not uni.trainer.byte_fallback
    assert uni.norm.name == "nfkc" and uni.charsmap is not None
    assert mis.charsmap is None and not mis.norm.remove_extra_whitespaces
    sp, _ = _pair("mistral-7b-v0.1.tokenizer.model")
    assert [mis.pieces[i] for i in range(300)] == [sp.id_to_piece(i) for i in range(300)]
    assert len(mis.pieces) == sp.get_piece_size() and mis.unk_id == sp.unk_id()


# Text that exercises normalization: all categories but surrogates, plus the awkward cases.
@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT)
def test_shared_models_on_hypothesis_text(name, text):
    same_as_sentencepiece(*_pair(name), text)


@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=100, deadline=None)
@given(ids=st.lists(st.integers(0, 999), max_size=20))
def test_decode_any_ids(name, ids):
    sp, ref = _pair(name)
    assert ref.decode(ids) == sp.decode(ids)


# --- models trained here, options on and off -----------------------------------------------

@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    lines = list(_lines()[:250]) + list(_lines()[1700:1800]) + list(_lines()[2250:2350])
    lines += ["call 12345 or 2024-01-02, ok?", "  spaced   out  ", "ｆｕｌｌ　ｗｉｄｔｈ ＡＢＣ", "foo<sep>bar ab abab"]
    path = tmp_path_factory.mktemp("spm") / "corpus.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _train(corpus: Path, model_type: str, option: str):
    prefix = corpus.parent / f"{model_type}_{option}"
    if not Path(str(prefix) + ".model").exists():
        spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(prefix), vocab_size=1000,
                                       model_type=model_type, hard_vocab_limit=False, character_coverage=0.98,
                                       num_threads=1, minloglevel=2, **OPTIONS[option])
    path = str(prefix) + ".model"
    return spm.SentencePieceProcessor(model_file=path), SentencePieceModel.from_file(path)


@pytest.mark.parametrize("model_type", ["unigram", "bpe"])
@pytest.mark.parametrize("option", list(OPTIONS))
def test_trained_models(corpus, model_type, option):
    sp, ref = _train(corpus, model_type, option)
    texts = list(_lines()[::12]) + EDGE + ["x<sep>y foo foofoo 𝔘x ab  ab", " lead and trail  ", "９９ bottles 123",
                                          "two  spaces,   three ▁▁ and\u3000\u3000wide"]
    for text in texts:
        same_as_sentencepiece(sp, ref, text)

    @settings(max_examples=60, deadline=None, database=None)
    @given(text=TEXT)
    def prop(text):
        same_as_sentencepiece(sp, ref, text)

    prop()


# --- edited vocabularies: rules of sentencepiece 0.2.3 the trained models rarely reach ---------

def _write(path: Path, pieces, like: SentencePieceModel | None = None, **options):
    """`pieces` written as a `.model` (specs copied from `like`, then `options`), loaded by both."""
    if like is not None:
        t, n = like.trainer, like.norm
        options = {"model_type": "bpe" if t.model_type == 2 else "unigram", "byte_fallback": t.byte_fallback,
                   "treat_whitespace_as_suffix": t.treat_whitespace_as_suffix, "add_dummy_prefix": n.add_dummy_prefix,
                   "remove_extra_whitespaces": n.remove_extra_whitespaces, "escape_whitespaces": n.escape_whitespaces,
                   "precompiled_charsmap": n.precompiled_charsmap, **options}
    path.write_bytes(model_bytes(pieces, **options))
    return spm.SentencePieceProcessor(model_file=str(path)), SentencePieceModel.from_file(path)


@pytest.mark.parametrize("option", ["defaults", "byte_fallback"])
def test_bpe_unused_pieces(corpus, tmp_path, option):
    """A trained BPE model with every fifth normal piece (characters too) retyped UNUSED: merges
    through them are split back as last looked up, and a final one with no split is unknown."""
    _, trained = _train(corpus, "bpe", option)
    pieces = list(trained.proto.pieces)
    normal = [i for i, (_, _, kind) in enumerate(pieces) if kind == 1]
    for i in normal[::5]:
        pieces[i] = (pieces[i][0], pieces[i][1], 5)
    sp, ref = _write(tmp_path / "unused.model", pieces, like=trained)
    assert any(len(pieces[i][0]) == 1 for i in normal[::5])
    for text in list(_lines()[::25]) + EDGE:
        same_as_sentencepiece(sp, ref, text)

    @settings(max_examples=60, deadline=None, database=None)
    @given(text=TEXT)
    def prop(text):
        same_as_sentencepiece(sp, ref, text)

    prop()


BPE_RULES = [("<unk>", 0.0, 2), ("<s>", 0.0, 3), ("x", 0.0, 3), ("▁", -1.0, 1), ("a", -1.0, 1), ("b", -1.0, 1),
             ("c", -1.0, 1), ("<", -1.0, 1), ("s", -1.0, 1), (">", -1.0, 1), ("<s", -0.5, 1),
             ("bc", -0.0, 1), ("cd", 0.0, 1),  # equal scores: +0 above -0, so "cd" merges first
             ("d", -1.0, 5),  # UNUSED character: unknown unless merged
             ("▁a", -0.2, 5), ("▁ab", -0.1, 1), ("ab", -0.3, 5), ("abc", -0.05, 5),  # UNUSED merges, split back
             ("<unk", -0.4, 1), ("<u", -0.4, 1), ("u", -1.0, 1), ("n", -1.0, 1), ("k", -1.0, 1)]


@pytest.mark.parametrize("byte_fallback", [False, True])
def test_bpe_rules(tmp_path, byte_fallback):
    """Handmade BPE vocabulary: a pair whose text is a CONTROL, BYTE or UNKNOWN piece never merges
    ("<s" ">", "<0x4" "1>", "<unk" ">"); a reserved or UNUSED final symbol is unknown (then bytes);
    ties in IEEE total order."""
    pieces = list(BPE_RULES)
    if byte_fallback:
        pieces += [("<0", -0.5, 1), ("<0x", -0.5, 1), ("<0x4", -0.5, 1), ("0", -1.0, 1), ("4", -1.0, 1), ("1", -1.0, 1), ("1>", -0.5, 1)]
        pieces += [(f"<0x{b:02X}>", 0.0, 6) for b in range(256)]
    sp, ref = _write(tmp_path / "rules.model", pieces, model_type="bpe", byte_fallback=byte_fallback)
    texts = ["bcd", "abcd", "ab abc abcd", "<s> <s>x <unk> x", "d dd cd", "x", "<0x41> <0x4", "aabcbcd ▁a", ""]
    for text in texts:
        same_as_sentencepiece(sp, ref, text)
    assert ref.encode_pieces("bcd")[-2:] == [(b"b", 5), (b"cd", 12)]

    @settings(max_examples=150, deadline=None, database=None)
    @given(text=st.text(alphabet="abcdx<s>unk01 4", max_size=14))
    def prop(text):
        same_as_sentencepiece(sp, ref, text)

    prop()


def test_unigram_user_defined_score(tmp_path):
    """A user-defined piece scores 0.1 * (bytes - 1), whatever the normal scores."""
    pieces = [("<unk>", 0.0, 2), ("▁", -1.0, 1), ("a", -1.0, 1), ("b", -1.0, 1), ("ab", 5.0, 1), ("abab", -3.0, 1),
              ("ba", 0.0, 4), ("aba", 0.0, 4)]
    sp, ref = _write(tmp_path / "user.model", pieces)
    for text in ["ab", "aba", "abab", "bab", "ababab", "a ba ab"]:
        same_as_sentencepiece(sp, ref, text)


def test_unigram_rebases_far_sums(tmp_path, monkeypatch):
    """Viterbi sums beyond +-100000 are re-based to 0; the float32 rounding then differs."""
    pieces = [("<unk>", 0.0, 2), ("▁", -1.0, 1), ("b", -99999.7, 1), ("a", -0.7, 1), ("aa", -1.3, 1), ("aaa", -1.3, 1)]
    sp, ref = _write(tmp_path / "far.model", pieces)
    texts = ["bb" + "a" * n for n in range(1, 12)] + ["b" * k + "a" * 7 for k in range(1, 6)]
    for text in texts:
        same_as_sentencepiece(sp, ref, text)
    monkeypatch.setattr(ref_spm, "SCORE_RESET", float("inf"))
    assert any(ref.encode(text) != sp.encode(text) for text in texts), "the case no longer exercises re-basing"


def test_load_checks_match_sentencepiece(tmp_path):
    """What sentencepiece 0.2.3 refuses to load, the reference refuses with a VocabFormatError."""
    unk, byte_pieces = ("<unk>", 0.0, 2), [(f"<0x{b:02X}>", 0.0, 6) for b in range(256)]
    cases = {
        "second UNKNOWN": ([unk, ("<unk2>", 0.0, 2)], {}),
        "no BYTE piece <0x7F>": ([unk] + byte_pieces[:127] + byte_pieces[128:], {"byte_fallback": True}),
        "NUL": ([unk, ("a\0b", 0.0, 1)], {}),
        "8000": ([unk, ("a" * 8000, 0.0, 1)], {}),
        "finite": ([unk, ("a", float("-inf"), 1)], {}),
        "appears twice": ([unk, ("<s>", 0.0, 3), ("<s>", -1.0, 1)], {"model_type": "bpe"}),
    }
    for what, (pieces, options) in cases.items():
        path = tmp_path / "bad.model"
        path.write_bytes(model_bytes(pieces, **options))
        with pytest.raises(Exception):
            spm.SentencePieceProcessor(model_file=str(path))
        with pytest.raises(VocabFormatError, match=what):
            SentencePieceModel.from_file(path)
    # Unigram keeps reserved pieces apart: a normal "<s>" next to the control one is fine.
    sp, ref = _write(tmp_path / "ok.model", [unk, ("<s>", 0.0, 3), ("<s>", -1.0, 1), ("a" * 7999, 0.0, 1)])
    same_as_sentencepiece(sp, ref, "<s>a<s>")


# --- bad input -------------------------------------------------------------------------------

def test_bad_model_bytes(tmp_path):
    good = need(DATA / "sentencepiece" / "botchan_en_unigram_1000.model").read_bytes()
    empty = tmp_path / "empty.model"
    empty.write_bytes(b"")
    with pytest.raises(VocabFormatError, match="empty.model.*empty file"):
        SentencePieceModel.from_file(empty)
    cases = {
        "truncated": good[:1000],
        "varint": b"\x0a\xff\xff",
        "wire type": b"\x0b\x00",  # field 1 with wire type 3 (group)
        "piece string": b"\x0a\x02\x10\x01",  # a piece without its string
        "wire type 0, expected 2": b"\x08\x01",  # pieces as a varint
    }
    for what, data in cases.items():
        path = tmp_path / f"{what.replace(' ', '_')}.model"
        path.write_bytes(data)
        with pytest.raises(VocabFormatError) as info:
            SentencePieceModel.from_file(path)
        assert path.name in str(info.value), what
    with pytest.raises(VocabFormatError, match="truncated varint"):
        parse_model(b"\x0a\xff\xff")


def test_bad_model_semantics():
    unk = ("<unk>", 0.0, 2)
    with pytest.raises(VocabFormatError, match="appears twice"):
        SentencePieceModel.from_pieces([unk, ("a", 0.0, 1), ("a", -1.0, 1)])
    with pytest.raises(VocabFormatError, match="NaN"):
        SentencePieceModel.from_pieces([unk, ("a", float("nan"), 1)])
    with pytest.raises(VocabFormatError, match="UNKNOWN"):
        SentencePieceModel.from_pieces([("a", 0.0, 1)])
    with pytest.raises(UnsupportedError, match="WORD"):
        SentencePieceModel.from_pieces([unk, ("a", 0.0, 1)], model_type=3)


@settings(max_examples=150, deadline=None, database=None)
@given(cut=st.integers(0, 4000), flips=st.lists(st.tuples(st.integers(0, 3999), st.integers(1, 255)), max_size=4))
def test_fuzz_model_reader(cut, flips):
    """Cut and corrupted `.model` bytes load or raise VocabFormatError: nothing else, no hang."""
    data = bytearray(small_model())
    for pos, mask in flips:
        data[pos] ^= mask
    data = bytes(data[: len(data) - cut])
    try:
        model = SentencePieceModel(parse_model(data))
    except VocabFormatError:
        return
    model.decode(model.encode("Hello wörld ｈｉ 123"))


