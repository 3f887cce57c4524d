"""One large text encoded on several threads gives exactly the sequential ids."""

from __future__ import annotations

import pytest

import tokenmill
from peers import corpus_texts

NAMES = ["r50k_base", "cl100k_base", "o200k_base"]


@pytest.fixture(scope="module")
def big_text() -> str:
    texts = corpus_texts()
    # Mixed scripts, CRLF files and whitespace runs at the part boundaries' neighbourhood.
    return "".join(texts[k] for k in sorted(texts)) + "  \n\n\t x" * 1000


@pytest.mark.parametrize("name", NAMES)
def test_parallel_equals_sequential_on_corpus(name, big_text):
    enc = tokenmill.get_encoding(name)
    seq = enc.encode_ordinary(big_text)
    for threads in (2, 3, 8):
        assert enc.encode_ordinary(big_text, num_threads=threads) == seq
    assert enc.encode(big_text, disallowed_special=(), num_threads=2) == seq
    assert enc.encode_to_numpy(big_text, disallowed_special=(), num_threads=2).tolist() == seq
    assert enc.count(big_text, disallowed_special=(), num_threads=2) == len(seq)


@pytest.mark.parametrize("name", NAMES)
def test_parallel_cut_candidates_everywhere(name):
    # Letters followed by every whitespace kind, in long runs: many candidate cut points.
    enc = tokenmill.get_encoding(name)
    unit = "ab \tcd\r\nef\n\ngh  ij's \u3000k\u00a0l 12 x\n"
    text = unit * 40000
    assert enc.encode_ordinary(text, num_threads=4) == enc.encode_ordinary(text)


def test_parallel_without_cut_points_and_custom_pattern():
    enc = tokenmill.get_encoding("cl100k_base")
    no_cuts = "中文" * 300_000  # no ASCII letter before whitespace: encoded in one part
    assert enc.encode_ordinary(no_cuts, num_threads=2) == enc.encode_ordinary(no_cuts)
    custom = tokenmill.Encoding("custom", r"\S+|\s+", enc._mergeable_ranks, {})
    text = "hello world " * 100_000
    assert custom.encode_ordinary(text, num_threads=2) == custom.encode_ordinary(text)


def test_parallel_with_allowed_specials_and_surrogates():
    enc = tokenmill.get_encoding("cl100k_base")
    text = ("some words here <|endoftext|> more\n" * 30_000) + "\ud83d tail"
    assert enc.encode(text, allowed_special="all", num_threads=2) == enc.encode(text, allowed_special="all")
    assert enc.encode(text, disallowed_special=(), num_threads=2) == enc.encode(text, disallowed_special=())


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_num_threads_validated(bad):
    enc = tokenmill.get_encoding("gpt2")
    with pytest.raises(ValueError, match="num_threads"):
        enc.encode("hi", num_threads=bad)


def test_large_str_transcoded_part_by_part_on_its_threads(tk):
    # Encoding a large str that is not ASCII transcodes it part by part, straight from the
    # str's 1-, 2- or 4-byte storage: on several threads each part on the thread that encodes
    # it, on one thread in turn into one small buffer. tiktoken's ids either way, also for a
    # text with no cut point at all (one part); a disallowed special or a lone surrogate
    # anywhere gives what the UTF-8 path gives.
    enc, ref = tokenmill.get_encoding("o200k_base"), tk("o200k_base")
    latin = "Grüße aus Köln, un café crème à côté. " * 40_000
    ucs2 = latin + "日本語のテキスト。\n" * 20_000
    ucs4 = ucs2 + "😀 emoji line\n" * 2_000
    uncut = "日本語のテキスト。" * 30_000
    for text in (latin, ucs2, ucs4, uncut):
        want = ref.encode_ordinary(text)
        for n in (1, 2, 3):
            assert enc.encode_to_numpy(text, num_threads=n).tolist() == want
            assert enc.encode(text, num_threads=n) == want
            assert enc.encode_ordinary(text, num_threads=n) == want
            assert enc.count(text, num_threads=n) == len(want)
    bad = ucs2 + "x <|endoftext|> y" + ucs2
    with pytest.raises(tokenmill.DisallowedSpecialTokenError) as one:
        enc.encode_to_numpy(bad, num_threads=1)
    assert f"at byte {len(ucs2.encode()) + 2}." in str(one.value)
    with pytest.raises(tokenmill.DisallowedSpecialTokenError) as two:
        enc.encode_to_numpy(bad, num_threads=2)
    assert str(one.value) == str(two.value)
    with pytest.raises(tokenmill.DisallowedSpecialTokenError) as three:
        enc.encode(bad, num_threads=2)
    assert str(one.value) == str(three.value)
    with pytest.raises(tokenmill.DisallowedSpecialTokenError) as four:
        enc.count(bad, num_threads=2)
    assert str(one.value) == str(four.value)
    assert enc.encode_ordinary(bad, num_threads=2) == enc.encode_ordinary(bad) == ref.encode_ordinary(bad)
    lone = ucs2 + "\ud800" + ucs4
    want = ref.encode(lone)
    for n in (1, 2):
        assert enc.encode_to_numpy(lone, num_threads=n).tolist() == want
        assert enc.encode(lone, num_threads=n) == want
        assert enc.count(lone, num_threads=n) == len(want)
    # A disallowed special with a space in it could be cut in two between its letter and the
    # space (the only cut points of this text are inside it): such an encoding never takes the
    # part-by-part path, so the special is still found.
    spaced = tokenmill.Encoding("spaced", enc._pat_str, enc._mergeable_ranks, {"<|a b|>": enc.n_vocab})
    filler = "日本語のテキスト。\n"
    n = 210_000
    text = filler * (3 * n // 8 + 1) + "<|a b|>" + filler * (5 * n // 8)
    for n in (1, 2):
        with pytest.raises(tokenmill.DisallowedSpecialTokenError, match="a b"):
            spaced.encode_to_numpy(text, num_threads=n)
        with pytest.raises(tokenmill.DisallowedSpecialTokenError, match="a b"):
            spaced.count(text, num_threads=n)
