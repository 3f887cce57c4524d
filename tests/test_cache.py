"""The cache of merged words that an `Encoding` keeps across calls and threads.

It may only change speed: every test compares ids with tiktoken or with the same encoding
without a cache, with tables small enough that words keep evicting each other.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenmill
from tokenmill.errors import InputError


def test_default_capacity_and_copies(tm):
    enc = tm("cl100k_base")
    assert enc.cache_capacity == 65536
    small = enc.with_cache_capacity(1000)
    assert small.cache_capacity == 512
    assert enc.cache_capacity == 65536  # the original is unchanged
    assert small.with_cache_capacity(0).cache_capacity == 0
    assert small.name == enc.name and small.n_vocab == enc.n_vocab
    assert small.encode("hello <|endoftext|>", allowed_special="all") == enc.encode("hello <|endoftext|>", allowed_special="all")


@pytest.mark.parametrize("bad", [-1, 2**24 + 1, 1.5, "64", True, None])
def test_bad_capacity_is_refused(tm, bad):
    with pytest.raises(InputError, match="cache capacity must be an int from 0 to 2"):
        tm("gpt2").with_cache_capacity(bad)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
@pytest.mark.parametrize("capacity", [0, 1, 8, 65536])
def test_line_by_line_matches_tiktoken(tm, tk, corpus, name, capacity):
    # Many short calls: the case the cache is for. A capacity of 1 or 8 makes every word
    # evict the last one, so stale or torn entries would show.
    enc, ref = tm(name).with_cache_capacity(capacity), tk(name)
    lines = [ln for text in corpus.values() for ln in text.splitlines()[:400]]
    for _ in range(2):  # the second round reads what the first one cached
        assert [enc.encode_ordinary(ln) for ln in lines] == [ref.encode_ordinary(ln) for ln in lines]


@pytest.mark.parametrize("capacity", [1, 64])
def test_threads_sharing_a_tiny_cache_stay_exact(tm, tk, corpus, capacity):
    # The threads of a batch read and write the same few entries at once.
    enc, ref = tm("cl100k_base").with_cache_capacity(capacity), tk("cl100k_base")
    lines = [ln for text in corpus.values() for ln in text.splitlines()[:3000]]
    expected = ref.encode_ordinary_batch(lines, num_threads=1)
    for n in (2, 4):
        assert enc.encode_ordinary_batch(lines, num_threads=n) == expected
        assert enc.encode_batch(lines, num_threads=n) == expected


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("capacity", [0, 4, 8, 64, 65536])
def test_long_pieces_again_match_tiktoken(tm, tk, corpus, name, capacity):
    # CJK runs and whitespace runs are pieces of more than 15 bytes, which the encoder's cache
    # of long pieces keeps (half as many slots as `capacity`; 4 gives two, 8 one set):
    # the same paragraphs twice, counted, then in batches, with caches so small that runs keep
    # evicting each other. Pieces that are tokens of over 15 bytes are never cached; runs of
    # over 240 bytes with their tokens go to a table of 1 KiB slots (a thirty-second of
    # `capacity`: two from 64 on), and over 1,008 bytes fit neither.
    enc, ref = tm(name).with_cache_capacity(capacity), tk(name)
    paras = [p for lang in ("ja-JP", "zh-CN", "fr-FR")
             for p in corpus[f"corpus/debian-handbook.{lang}.txt.gz"].split("\n\n")[:150]]
    long_tokens = [t.decode() for t in ref._mergeable_ranks if len(t) > 15 and t.isascii()][:200]
    paras += long_tokens + ["日本語" * n for n in (5, 6, 26, 27, 80, 81, 300)] + [" " * n + "x" for n in (16, 200, 300)]
    expected = [ref.encode_ordinary(p) for p in paras]
    for _ in range(2):  # the second round reads what the first one cached
        assert [enc.encode_ordinary(p) for p in paras] == expected
    assert [enc.count(p) for p in paras] == [len(e) for e in expected]
    for n in (2, 4):
        assert enc.encode_ordinary_batch(paras, num_threads=n) == expected


words = st.lists(st.text(alphabet=st.sampled_from("abcdeéxyz 日本\n'"), min_size=1, max_size=14), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(words)
def test_cached_equals_uncached(tm, texts):
    enc = tm("o200k_base")
    small, off = enc.with_cache_capacity(4), enc.with_cache_capacity(0)
    for _ in range(2):
        assert [small.encode_ordinary(t) for t in texts] == [off.encode_ordinary(t) for t in texts]


def test_loaded_files_keep_their_cache_per_encoder(shared_data):
    tok = tokenmill.load(shared_data / "gpt2" / "tokenizer.json")
    text = "Tokenization of unusualwords repeated: unusualwords, unusualwords."
    assert tok.encode(text) == tok.encode(text)
