"""The reference Unigram trainer (`tokenmill._reference.train_unigram`) against sentencepiece.

On the same small English corpus and settings (identity normalization), the reference must
compress held-out text within a few percent of a sentencepiece model of the same size, keep
exactly sentencepiece's required characters, lay out the meta pieces as sentencepiece does,
and give the same vocabulary on every run. The seed rule and the piece-validity rule have
their own small cases. Each test takes a few seconds at most.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest
import sentencepiece as spm

from tokenmill._reference.sentencepiece import SentencePieceModel
from tokenmill._reference.train_unigram import (BYTE, CONTROL, NORMAL, UNKNOWN, USER_DEFINED, count_words,
                                                is_valid_piece, required_chars, seed_pieces,
                                                train_unigram_reference)
from tokenmill.errors import InputError

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@lru_cache(maxsize=None)
def _botchan() -> tuple[list[str], list[str]]:
    path = DATA / "corpus" / "botchan.txt"
    if not path.exists():
        pytest.fail(f"shared test data missing: {path} (see ../shared/data/README.md)")
    lines = [line.rstrip("\n") for line in path.open(encoding="utf-8") if line.strip()]
    return lines[:1000], lines[-300:]  # training text, held-out text


@lru_cache(maxsize=None)
def _spm(vocab_size: int, tmp: str) -> spm.SentencePieceProcessor:
    train, _ = _botchan()
    path = Path(tmp) / "train.txt"
    path.write_text("\n".join(train) + "\n", encoding="utf-8")
    prefix = str(Path(tmp) / f"spm{vocab_size}")
    spm.SentencePieceTrainer.train(input=str(path), model_prefix=prefix, vocab_size=vocab_size, model_type="unigram",
                                   normalization_rule_name="identity", num_threads=1, minloglevel=2)
    return spm.SentencePieceProcessor(model_file=prefix + ".model")


@lru_cache(maxsize=None)
def _reference(vocab_size: int) -> tuple:
    train, _ = _botchan()
    return tuple(train_unigram_reference(train, vocab_size))


def test_compression_close_to_sentencepiece(tmp_path_factory):
    sp = _spm(500, str(tmp_path_factory.mktemp("spm")))
    ours = SentencePieceModel.from_pieces(list(_reference(500)))
    _, held = _botchan()
    spm_tokens = sum(len(sp.encode(line)) for line in held)
    our_tokens = sum(len(ours.encode(line)) for line in held)
    # Fewer tokens is better; within 3% of sentencepiece either way (measured: 0.9% fewer).
    assert our_tokens <= spm_tokens * 1.03, (our_tokens, spm_tokens)
    assert len(_reference(500)) == sp.get_piece_size() == 500


def test_same_required_characters_and_meta_layout(tmp_path_factory):
    sp = _spm(500, str(tmp_path_factory.mktemp("spm")))
    ref = _reference(500)
    spm_pieces = [(sp.id_to_piece(i), sp.is_unknown(i), sp.is_control(i)) for i in range(sp.get_piece_size())]
    assert {p for p, _, _ in spm_pieces if len(p) == 1} == {p for p, _, k in ref if len(p) == 1 and k == NORMAL}
    assert [p for p, _, _ in ref[:3]] == [p for p, _, _ in spm_pieces[:3]] == ["<unk>", "<s>", "</s>"]
    assert [k for _, _, k in ref[:3]] == [UNKNOWN, CONTROL, CONTROL]
    scores = [s for _, s, k in ref if k == NORMAL]
    assert scores == sorted(scores, reverse=True)


def test_deterministic():
    train, _ = _botchan()
    assert train_unigram_reference(train[:300], 300) == train_unigram_reference(train[:300], 300)


def test_symbols_and_byte_fallback():
    lines = ["<sep> hello world <sep>", "hello there, world"] * 20
    v = train_unigram_reference(lines, 300, user_defined_symbols=["<sep>"], control_symbols=["<cls>"],
                                byte_fallback=True)
    kinds = [k for _, _, k in v]
    assert [p for p, _, _ in v[:5]] == ["<unk>", "<s>", "</s>", "<cls>", "<sep>"]
    assert kinds[:5] == [UNKNOWN, CONTROL, CONTROL, CONTROL, USER_DEFINED]
    assert [p for p, _, _ in v[5:261]] == [f"<0x{b:02X}>" for b in range(256)] and set(kinds[5:261]) == {BYTE}
    assert not any("<sep>" in p or "sep>" in p for p, _, k in v if k == NORMAL)


def test_errors():
    with pytest.raises(InputError, match="vocab_size"):
        train_unigram_reference(["abcdefgh ijk"], 8)
    with pytest.raises(InputError, match="character_coverage"):
        train_unigram_reference(["ab"], 100, character_coverage=0.5)
    with pytest.raises(InputError, match="no words"):
        train_unigram_reference(["  ", ""], 100)
    with pytest.raises(ValueError):  # InputError is a ValueError too
        train_unigram_reference(["a"], 100, control_symbols=["<s>"])


@pytest.mark.parametrize("piece,valid", [
    ("▁the", True), ("the", True), ("▁", True), ("a▁b", False), ("ab▁", False), ("a,", False), (",.", True),
    ("12", True), ("a1", False), ("ab\u0301c", True), ("▅a", False), ("a b", False), ("ひらがなカタカナ漢字", True),
    ("abcdefghijklmnopq", False), ("abcdefghijklmnop", True), ("Ωa", False),
])
def test_valid_piece(piece, valid):
    assert is_valid_piece(piece) is valid


def test_valid_piece_options():
    assert is_valid_piece("a1", split_by_number=False)
    assert not is_valid_piece("12", split_digits=True) and is_valid_piece("1", split_digits=True)
    assert is_valid_piece("aΩ", split_by_unicode_script=False)
    assert not is_valid_piece("abcd", max_piece_length=3)


def test_seeds_are_right_maximal_frequent_substrings():
    words = {"▁abc": 3, "▁abd": 2, "▁xyz": 1}
    pieces = [p for p, _ in seed_pieces(words, required_chars(words, 1.0))]
    # "▁ab" goes on with c and d; "▁abc" ends a word; "bc" ends one (count 3); "▁a" always goes
    # on with b (not right-maximal); "▁xyz" is seen once.
    assert {"▁ab", "▁abc", "▁abd", "bc", "abc"} <= set(pieces)
    assert "▁a" not in pieces and "▁xyz" not in pieces and "▁x" not in pieces


def test_count_words():
    assert count_words(["  a  b ", "a"]) == {"▁a": 2, "▁b": 1}
