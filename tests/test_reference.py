"""The Rust core against the pure-Python reference (tokenmill._reference), with hypothesis."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import tokenmill
from tokenmill._reference import ReferenceEncoding, bpe_merge

GPT2 = tokenmill.get_encoding("gpt2")
RANKS = GPT2._mergeable_ranks


def _toy(seed: int, n_merges: int = 60) -> tuple[dict[bytes, int], tokenmill.Encoding]:
    """A random small vocabulary over a 4-letter alphabet, so long pieces merge a lot."""
    rng = random.Random(seed)
    ranks = {bytes([i]): i for i in range(256)}
    tokens = [b"a", b"b", b"c", b" "]
    while len(ranks) < 256 + n_merges:
        t = rng.choice(tokens) + rng.choice(tokens)
        if t not in ranks and len(t) <= 12:
            ranks[t] = len(ranks)
            tokens.append(t)
    return ranks, tokenmill.Encoding(f"toy{seed}", r"[^\n]+|\n", ranks, {"<|x|>": len(ranks)})


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_single_piece_matches_reference_gpt2(piece):
    assert GPT2._encode_single_piece(piece) == bpe_merge(RANKS, piece)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 30), st.text(alphabet="abc ", min_size=0, max_size=600))
def test_long_pieces_matches_reference(seed, text):
    # Pieces over 32 bytes take the min-tree merge in Rust; the reference has one algorithm.
    ranks, enc = _toy(seed)
    ref = ReferenceEncoding(r"[^\n]+|\n", ranks, {"<|x|>": len(ranks)})
    assert enc.encode_ordinary(text) == ref.encode_ordinary(text)


def test_a_piece_that_is_a_token_is_that_token():
    # tiktoken's shortcut: seed 26's toy vocabulary has "c c ", which merging from bytes never
    # forms (hypothesis found it); the whole piece is still that one token.
    ranks, enc = _toy(26)
    assert b"c c " in ranks and bpe_merge(ranks, b"c c ") != [ranks[b"c c "]]
    ref = ReferenceEncoding(r"[^\n]+|\n", ranks, {"<|x|>": len(ranks)})
    assert enc.encode_ordinary("c c ") == ref.encode_ordinary("c c ") == [ranks[b"c c "]]


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 30), st.lists(st.text(alphabet="abc ", min_size=1, max_size=16), min_size=1, max_size=12))
def test_repeated_short_pieces_match_reference(seed, words):
    # Many repeats of a few short pieces: the per-call cache of merged pieces is filled after
    # a warm-up and then serves most of them; every answer must still equal the reference.
    ranks, enc = _toy(seed)
    ref = ReferenceEncoding(r"[^\n]+|\n", ranks, {"<|x|>": len(ranks)})
    text = "\n".join(words * 40)
    assert enc.encode_ordinary(text) == ref.encode_ordinary(text)
    assert enc.encode(text + "<|x|>" + text, allowed_special="all") == ref.encode(text + "<|x|>" + text, {"<|x|>"})
    # A batch shares one cache per worker thread across its documents.
    docs = ["\n".join(words[i:] + words[:i]) for i in range(len(words))] * 8
    want = [ref.encode_ordinary(d) for d in docs]
    for n in (1, 2):
        assert enc.encode_ordinary_batch(docs, num_threads=n) == want
        toks, bounds = enc.encode_batch_to_numpy(docs, num_threads=n)
        assert [toks[bounds[i] : bounds[i + 1]].tolist() for i in range(len(docs))] == want


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 30), st.lists(st.text(alphabet="abc ", min_size=16, max_size=300), min_size=1, max_size=6))
def test_repeated_long_pieces_match_reference(seed, words):
    # Pieces of 16 to 300 bytes: those up to 256 bytes are cached in a second table once merged,
    # longer ones merged every time; every answer must equal the reference.
    ranks, enc = _toy(seed)
    ref = ReferenceEncoding(r"[^\n]+|\n", ranks, {"<|x|>": len(ranks)})
    text = "\n".join((words + ["abc " * 4 + str(i) for i in range(40)]) * 6)
    assert enc.encode_ordinary(text) == ref.encode_ordinary(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(list("ab c\n") + ["<|x|>", "<|", "|>"]), max_size=40))
def test_specials_match_reference(parts):
    text = "".join(parts)
    ranks, enc = _toy(7)
    ref = ReferenceEncoding(r"[^\n]+|\n", ranks, {"<|x|>": len(ranks)})
    assert enc.encode(text, allowed_special="all") == ref.encode(text, {"<|x|>"})
    assert enc.decode(enc.encode(text, allowed_special="all")) == text


def test_repeated_character_long_piece():
    for ch in "ab":
        text = ch * 5000
        ranks, enc = _toy(3)
        assert enc.encode_ordinary(text) == bpe_merge(ranks, text.encode())
