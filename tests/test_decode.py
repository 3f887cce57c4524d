"""Decoding and token ids (ADVERSARIAL D1-D8): id validation with clear errors, numpy input,
strict vs replace decoding, offsets equal to tiktoken's, and the streaming decoder."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import tokenmill
from conftest import hyp_examples
from tokenmill import TokenIdError, UnknownTokenError

DECODERS = ["decode", "decode_bytes", "decode_tokens_bytes", "decode_with_offsets"]


# --------------------------------------------------------------------------- D1 / D2 bad ids


@pytest.mark.parametrize("method", DECODERS)
@pytest.mark.parametrize("enc_name", ["r50k_base", "cl100k_base"])
def test_d1_out_of_range(tm, method, enc_name):
    enc = tm(enc_name)
    fn = getattr(enc, method)
    n = enc.n_vocab
    for ids, pos, bad in [([15, n], 1, n), ([10**6], 0, 10**6), ([1, 2, 3, n + 5], 3, n + 5)]:
        with pytest.raises(TokenIdError) as ei:
            fn(ids)
        e = ei.value
        assert isinstance(e, ValueError) and isinstance(e, IndexError) and isinstance(e, tokenmill.TokenmillError)
        assert e.position == pos and e.id == bad
        msg = str(e)
        assert str(bad) in msg and f"position {pos}" in msg and str(n) in msg


@pytest.mark.parametrize("method", DECODERS)
@pytest.mark.parametrize("bad", [-1, 2**32, 2**32 - 1, 2**63, 2**64, 2**100, -(2**63)])
def test_d2_huge_and_negative_ids(tm, method, bad):
    fn = getattr(tm("cl100k_base"), method)
    with pytest.raises(TokenIdError) as ei:
        fn([15339, bad])
    assert ei.value.position == 1
    assert "position 1" in str(ei.value) and str(bad) in str(ei.value)


@pytest.mark.parametrize("method", DECODERS)
@pytest.mark.parametrize("bad", [1.5, "1", None, b"1", 15339.0, [1], object()])
def test_d2_non_int_ids(tm, method, bad):
    fn = getattr(tm("cl100k_base"), method)
    with pytest.raises(TypeError) as ei:
        fn([15339, bad])
    msg = str(ei.value)
    assert "position 1" in msg


@pytest.mark.parametrize("method", DECODERS)
def test_d2_bool_ids_consistent(tm, tk, method):
    """bool is an int subclass; every decoder treats True as id 1, as tiktoken does (an earlier
    version accepted it in decode() but rejected it in decode_tokens_bytes())."""
    enc = tm("cl100k_base")
    fn = getattr(enc, method)
    assert fn([15339, True]) == fn([15339, 1])
    assert tk("cl100k_base").decode([15339, True]) == enc.decode([15339, True])


@pytest.mark.parametrize("method", DECODERS)
def test_d2_bytes_and_str_are_not_id_sequences(tm, method):
    # regression: decode(b"ab") used to decode the byte values 97, 98 as ids
    fn = getattr(tm("cl100k_base"), method)
    for bad in ("15339", b"ab", bytearray(b"ab"), memoryview(b"ab")):
        with pytest.raises(TypeError):
            fn(bad)


@pytest.mark.parametrize("dtype", [np.int64, np.uint32, np.int32, np.uint64, np.uint16, np.int16])
def test_d2_numpy_arrays_accepted(tm, dtype):
    enc = tm("r50k_base")
    ids = enc.encode("hello world, this is numpy")
    arr = np.array(ids, dtype=dtype)
    assert enc.decode(arr) == "hello world, this is numpy"
    assert enc.decode_bytes(arr) == b"hello world, this is numpy"
    assert enc.decode_tokens_bytes(arr) == enc.decode_tokens_bytes(ids)
    assert enc.decode_with_offsets(arr) == enc.decode_with_offsets(ids)
    # the encoder's own numpy output decodes directly
    assert enc.decode(enc.encode_to_numpy("hello world")) == "hello world"
    assert enc.decode([np.int64(i) for i in ids]) == "hello world, this is numpy"


def test_d2_numpy_bad_arrays(tm):
    enc = tm("cl100k_base")
    with pytest.raises(TypeError, match="float64"):
        enc.decode(np.array([15339.0]))
    with pytest.raises(TokenIdError) as ei:
        enc.decode(np.array([15339, -1], dtype=np.int64))
    assert ei.value.position == 1
    with pytest.raises(TokenIdError):
        enc.decode(np.array([15339, 2**40], dtype=np.int64))
    assert enc.decode(np.array([], dtype=np.int64)) == ""


def test_d2_other_sequences(tm):
    enc = tm("cl100k_base")
    ids = enc.encode("hello world")
    assert enc.decode(tuple(ids)) == "hello world"
    assert enc.decode(iter(ids)) == "hello world"
    assert enc.decode(range(15339, 15340)) == "hello"
    assert enc.decode([]) == ""
    assert enc.decode_bytes([]) == b""
    assert enc.decode_tokens_bytes([]) == []
    assert enc.decode_with_offsets([]) == ("", [])


def test_d3_unassigned_ids(tm, tk):
    # cl100k_base has no token for 100261..100275 (between the FIM and endofprompt specials)
    enc = tm("cl100k_base")
    for i in (100256, 100261, 100275):
        with pytest.raises(KeyError):
            tk("cl100k_base").decode_single_token_bytes(i)
        with pytest.raises(TokenIdError) as ei:
            enc.decode([5, i])
        assert ei.value.position == 1
        with pytest.raises(UnknownTokenError):
            enc.decode_single_token_bytes(i)
    # r50k: the p50k ranks end at 50280, and 50256 is <|endoftext|>; p50k_base has all ids up to 50280
    with pytest.raises(TokenIdError):
        tm("r50k_base").decode([50257])


# --------------------------------------------------------------------------- single tokens


@pytest.mark.parametrize("bad", [-1, 10**6, 100261, 2**32, 2**63])
def test_decode_single_token_bytes_unknown(tm, bad):
    with pytest.raises(KeyError) as ei:
        tm("cl100k_base").decode_single_token_bytes(bad)
    assert isinstance(ei.value, UnknownTokenError)
    assert str(bad) in str(ei.value)


@pytest.mark.parametrize("bad", [2**64, 2**100])
def test_decode_single_token_bytes_beyond_u64(tm, bad):
    # regression: 2**64 used to raise OverflowError('int too big to convert')
    with pytest.raises(KeyError):
        tm("cl100k_base").decode_single_token_bytes(bad)


def test_decode_single_token_bytes_types(tm):
    enc = tm("cl100k_base")
    assert enc.decode_single_token_bytes(15339) == b"hello"
    assert enc.decode_single_token_bytes(np.int64(15339)) == b"hello"
    assert enc.decode_single_token_bytes(100257) == b"<|endoftext|>"
    for bad in (1.5, "1", None):
        with pytest.raises(TypeError):
            enc.decode_single_token_bytes(bad)


def test_decode_tokens_bytes_vs_tiktoken(tm, tk):
    for name in ("r50k_base", "cl100k_base", "o200k_base"):
        a, b = tm(name), tk(name)
        ids = b.encode("naïve 👍 東京 <|endoftext|> 🇨🇿", allowed_special="all")
        assert a.decode_tokens_bytes(ids) == b.decode_tokens_bytes(ids)
        assert a.decode_tokens_bytes(np.array(ids)) == b.decode_tokens_bytes(ids)


# --------------------------------------------------------------------------- D4 strict vs replace


def test_d4_split_character(tm, tk):
    enc = tm("cl100k_base")
    ids = enc.encode("👍")
    assert len(ids) > 1
    part = ids[:1]
    assert enc.decode_bytes(part) == b"\xf0\x9f"
    with pytest.raises(UnicodeDecodeError):
        enc.decode(part, errors="strict")
    assert enc.decode(part) == tk("cl100k_base").decode(part) == "\ufffd"
    assert enc.decode(part, errors="ignore") == ""
    assert enc.decode(part, errors="backslashreplace") == "\\xf0\\x9f"
    cont = enc.encode_bytes(b"\x80")
    assert enc.decode_bytes(cont) == b"\x80"
    with pytest.raises(UnicodeDecodeError):
        enc.decode(cont, errors="strict")
    with pytest.raises(UnicodeDecodeError):
        enc.decode_with_offsets(cont)


# --------------------------------------------------------------------------- D8 offsets


def _ids_strategy(n_vocab: int):
    texts = st.text(alphabet=st.sampled_from(list("ab c1\n") + ["é", "東", "京", "👍", "🇨", "\u0301", "\u200d", "한"]), max_size=20)
    sliced = st.tuples(texts, st.integers(0, 30), st.integers(0, 30))
    randoms = st.lists(st.integers(0, n_vocab - 1), max_size=8)
    return st.one_of(sliced.map(lambda t: ("slice", t)), randoms.map(lambda r: ("random", r)))


@pytest.mark.parametrize("enc_name", ["r50k_base", "cl100k_base", "o200k_base"])
@settings(max_examples=hyp_examples(300))
@given(data=st.data())
def test_d8_decode_with_offsets_vs_tiktoken(tm, tk, enc_name, data):
    a, b = tm(enc_name), tk(enc_name)
    kind, payload = data.draw(_ids_strategy(a.n_vocab))
    if kind == "slice":
        text, i, j = payload
        ids = b.encode_ordinary(text)[i:j]
    else:
        ids = [t for t in payload if t in b._special_token_values or t < len(b._mergeable_ranks)]
        ids = [t for t in ids if _assigned(b, t)]
    try:
        expected = b.decode_with_offsets(ids)
    except UnicodeDecodeError:
        with pytest.raises(UnicodeDecodeError):
            a.decode_with_offsets(ids)
        return
    assert a.decode_with_offsets(ids) == expected
    assert a.decode_with_offsets(np.array(ids, dtype=np.int64)) == expected


def _assigned(enc, t):
    try:
        enc.decode_single_token_bytes(t)
        return True
    except KeyError:
        return False


def test_d8_offsets_examples(tm, tk):
    for name in ("cl100k_base", "o200k_base"):
        a, b = tm(name), tk(name)
        for text in ["東京 hello 👍", "a👍b", "🇨🇿🇨🇿", "naïve café", "<|endoftext|>x", "", "\x00"]:
            ids = b.encode(text, allowed_special="all")
            assert a.decode_with_offsets(ids) == b.decode_with_offsets(ids)


# --------------------------------------------------------------------------- D5 streaming

STREAM_ALPHABET = ["a", "b", " ", "\n", "é", "ï", "東", "京", "한", "👍", "👍🏽", "👨\u200d👩\u200d👧", "🇨🇿", "1\ufe0f\u20e3", "\u0301", "𝔘", "\U0010fffd"]
stream_text = st.lists(st.sampled_from(STREAM_ALPHABET), max_size=30).map("".join)


def _stream(enc, ids, cuts, use_many):
    dec = enc.stream_decoder() if use_many % 2 else tokenmill.StreamDecoder(enc)
    pieces = []
    prev = 0
    for c in sorted(set(cuts)) + [len(ids)]:
        chunk = ids[prev:c]
        prev = c
        if use_many:
            pieces.append(dec.push_many(chunk))
        else:
            pieces.extend(dec.push(t) for t in chunk)
    pieces.append(dec.flush())
    return pieces


@pytest.mark.parametrize("enc_name", ["r50k_base", "cl100k_base", "o200k_base"])
@settings(max_examples=hyp_examples(300))
@given(text=stream_text, cuts=st.lists(st.integers(0, 60), max_size=6), use_many=st.integers(0, 2))
def test_d5_stream_decoder_valid_text(tm, enc_name, text, cuts, use_many):
    enc = tm(enc_name)
    ids = enc.encode(text)
    cuts = [c for c in cuts if c <= len(ids)]
    pieces = _stream(enc, ids, cuts, use_many)
    assert "".join(pieces) == text == enc.decode(ids)
    for p in pieces:
        assert "\ufffd" not in p


def test_d5_stream_decoder_random_chunkings(tm):
    """1,000 seeded random chunkings of emoji/CJK text (ADVERSARIAL D5 figure)."""
    rng = random.Random(5)
    enc = tm("cl100k_base")
    for _ in range(1000):
        text = "".join(rng.choices(STREAM_ALPHABET, k=rng.randint(0, 25)))
        ids = enc.encode(text)
        cuts = [rng.randint(0, len(ids)) for _ in range(rng.randint(0, 5))]
        pieces = _stream(enc, ids, cuts, rng.randint(0, 2))
        assert "".join(pieces) == text
        assert all("\ufffd" not in p for p in pieces)


def test_d5_stream_decoder_holds_back_and_flushes(tm):
    enc = tm("cl100k_base")
    ids = enc.encode("👍")
    dec = enc.stream_decoder()
    assert dec.push(ids[0]) == ""
    assert dec.pending == b"\xf0\x9f"
    # ending the stream inside a character: replaced (default errors="replace"), then reset
    assert dec.flush() == "\ufffd"
    assert dec.pending == b""
    assert dec.push_many(ids) == "👍"
    assert dec.flush() == ""


def test_d5_stream_decoder_invalid_bytes(tm):
    enc = tm("cl100k_base")
    data = b"\x80abc\xe6\x97"
    ids = enc.encode_bytes(data)
    dec = enc.stream_decoder()
    out = "".join(dec.push(t) for t in ids) + dec.flush()
    assert out == enc.decode(ids) == data.decode("utf-8", "replace")
    strict = enc.stream_decoder(errors="strict")
    with pytest.raises(UnicodeDecodeError):
        for t in enc.encode_bytes(b"\xff"):
            strict.push(t)
    with pytest.raises(KeyError):
        enc.stream_decoder().push(10**7)
    with pytest.raises(TokenIdError):
        enc.stream_decoder().push_many([1, 10**7])


def test_d5_stream_decoder_specials(tm):
    enc = tm("cl100k_base")
    ids = enc.encode("a<|endoftext|>👍", allowed_special="all")
    dec = enc.stream_decoder()
    assert "".join(dec.push(t) for t in ids) + dec.flush() == "a<|endoftext|>👍"


# --------------------------------------------------------------------------- decode batch / roundtrip


def test_decode_batch(tm, tk):
    a, b = tm("cl100k_base"), tk("cl100k_base")
    texts = ["hello", "東京", "", "👍 x"]
    batch = b.encode_batch(texts)
    assert a.decode_batch(batch) == b.decode_batch(batch) == texts
    assert a.decode_bytes_batch(batch) == b.decode_bytes_batch(batch)
    with pytest.raises(UnicodeDecodeError):
        a.decode_batch([[15339], a.encode("👍")[:1]], errors="strict")


@pytest.mark.parametrize("enc_name", ["r50k_base", "cl100k_base", "o200k_base"])
@settings(max_examples=hyp_examples(100))
@given(ids=st.lists(st.integers(0, 50_000), max_size=30))
@example(ids=[])
def test_decode_bytes_equals_tiktoken(tm, tk, enc_name, ids):
    a, b = tm(enc_name), tk(enc_name)
    ids = [i for i in ids if _assigned(b, i)]
    assert a.decode_bytes(ids) == b.decode_bytes(ids)
    assert a.decode(ids) == b.decode(ids)
