"""The tiktoken-compatible API surface of `tokenmill.Encoding` and the registry: construction,
properties, immutability, pickling, names, offsets, truncate, type errors, thread safety."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
import tiktoken
import tiktoken.model
from hypothesis import given, settings
from hypothesis import strategies as st

import peers
import tokenmill
from conftest import ENCODING_NAMES, hyp_examples
from tokenmill import UnknownEncodingError, VocabFormatError

BYTES = {bytes([i]): i for i in range(256)}
PAT = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def _toy_ranks():
    return dict(BYTES) | {b"ab": 256, b"cd": 257, b"abcd": 258}


# --------------------------------------------------------------------------- construction


def test_constructor_positional_and_keyword():
    a = tokenmill.Encoding("toy", PAT, _toy_ranks(), {"<|end|>": 259}, 260)
    b = tokenmill.Encoding(name="toy", pat_str=PAT, mergeable_ranks=_toy_ranks(), special_tokens={"<|end|>": 259}, explicit_n_vocab=260)
    ref = tiktoken.Encoding("toy", pat_str=PAT, mergeable_ranks=_toy_ranks(), special_tokens={"<|end|>": 259}, explicit_n_vocab=260)
    text = "abcd ab cd<|end|> x"
    for enc in (a, b):
        assert enc.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
        assert enc.n_vocab == ref.n_vocab == 260
        assert enc.max_token_value == ref.max_token_value == 259
        assert enc.special_tokens_set == ref.special_tokens_set
        assert enc.token_byte_values() == ref.token_byte_values()
        assert enc.name == "toy"
    # special_tokens may be omitted
    c = tokenmill.Encoding("toy2", PAT, _toy_ranks())
    assert c.special_tokens_set == set() and c.n_vocab == 259


@pytest.mark.parametrize(
    "n,specials",
    [(258, {}), (260, {}), (259, {"<|end|>": 259}), (261, {"<|end|>": 300}), (260, {"<|end|>": 300})],
)
def test_explicit_n_vocab_mismatch(n, specials):
    with pytest.raises(VocabFormatError) as ei:
        tokenmill.Encoding("bad", PAT, _toy_ranks(), specials, explicit_n_vocab=n)
    assert str(n) in str(ei.value)
    assert isinstance(ei.value, ValueError)


def test_constructor_bad_arguments():
    with pytest.raises(TypeError):
        tokenmill.Encoding(5, PAT, _toy_ranks())
    with pytest.raises(TypeError):
        tokenmill.Encoding("x", None, _toy_ranks())
    for bad_ranks in ({}, None, [(b"a", 1)], {"a": 1}, {b"a": -1}, {b"a": 2**32}, {b"a": True}, {b"a": 1.0}):
        with pytest.raises(VocabFormatError):
            tokenmill.Encoding("x", PAT, bad_ranks)
    for bad_specials in ({"<|x|>": -1}, {"<|x|>": 2**32}, {b"<|x|>": 300}, {"<|x|>": "300"}, {"": 300}):
        with pytest.raises(VocabFormatError):
            tokenmill.Encoding("x", PAT, _toy_ranks(), bad_specials)
    with pytest.raises(ValueError):  # bad regex
        tokenmill.Encoding("x", "(", _toy_ranks())


SPARSE_SCRIPT = textwrap.dedent(
    """
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    import tokenmill
    ranks = {{bytes([i]): i for i in range(256)}}
    specials = {{}}
    if {which!r} == "rank":
        ranks[b"ab"] = 4_000_000_000
    else:
        specials["<|x|>"] = 4_000_000_000
    try:
        enc = tokenmill.Encoding("sparse", r"\\w+|\\s+|[^\\w\\s]+", ranks, specials)
        print("ok", enc.n_vocab)
    except tokenmill.VocabFormatError as e:
        print("error", e)
    """
)


@pytest.mark.parametrize("which", ["rank", "special"])
def test_sparse_huge_id_does_not_crash(which):
    """Regression (ADVERSARIAL F7): an id near 2**32 used to make Encoding() allocate a 32 GB
    id table and abort the process. Runs under a 2 GiB address-space limit in a subprocess."""
    proc = subprocess.run(
        [sys.executable, "-c", SPARSE_SCRIPT.format(which=which)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"RUST_BACKTRACE": "0", "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, f"process died ({proc.returncode}): {proc.stderr[-500:]}"
    assert proc.stdout.startswith(("ok", "error"))
    if proc.stdout.startswith("error"):
        assert "4000000000" in proc.stdout


# --------------------------------------------------------------------------- properties vs tiktoken


@pytest.mark.parametrize("enc_name", ENCODING_NAMES)
def test_properties_equal_tiktoken(tm, tk, enc_name):
    a, b = tm(enc_name), tk(enc_name)
    assert a.name == b.name == enc_name
    assert repr(a) == repr(b)
    assert a.n_vocab == b.n_vocab
    assert a.max_token_value == b.max_token_value
    assert a.eot_token == b.eot_token
    assert a.special_tokens_set == b.special_tokens_set
    assert a.token_byte_values() == b.token_byte_values()
    assert a._special_tokens == b._special_tokens
    assert a._pat_str == b._pat_str
    for sid in b._special_tokens.values():
        assert a.is_special_token(sid) and b.is_special_token(sid)
    assert not a.is_special_token(0)


def test_mergeable_ranks_equal_tiktoken(tm, tk):
    for name in ("r50k_base", "cl100k_base"):
        assert tm(name)._mergeable_ranks == tk(name)._mergeable_ranks


def test_eot_missing_is_keyerror():
    enc = tokenmill.Encoding("no_eot", PAT, _toy_ranks())
    with pytest.raises(KeyError):
        enc.eot_token


# --------------------------------------------------------------------------- immutability


def test_setting_attributes_raises(tm):
    enc = tm("cl100k_base")
    for attr in ("name", "n_vocab", "foo", "_core", "_name", "_specials", "_pat_str", "_mergeable_ranks", "eot_token"):
        with pytest.raises(AttributeError):
            setattr(enc, attr, 1)
    assert enc.encode("hello world") == [15339, 1917]
    assert enc.name == "cl100k_base"


def test_deleting_attributes_raises():
    # regression: `del enc._name` used to succeed (only __setattr__ was overridden)
    enc = tokenmill.Encoding("victim", PAT, _toy_ranks())
    for attr in ("_name", "_specials", "_core", "_special_cache"):
        with pytest.raises(AttributeError):
            delattr(enc, attr)
    with pytest.raises(AttributeError):
        enc._special_cache = {}


def test_returned_containers_are_copies(tm):
    enc = tokenmill.Encoding("copies", PAT, _toy_ranks(), {"<|end|>": 259})
    enc._mergeable_ranks[b"zz"] = 5
    enc._mergeable_ranks.clear()
    enc._special_tokens["<|evil|>"] = 1
    enc.special_tokens_set.add("<|evil|>")
    enc.token_byte_values().clear()
    assert enc.encode("abcd<|end|>", allowed_special="all") == [258, 259]
    assert enc.special_tokens_set == {"<|end|>"}
    assert len(enc._mergeable_ranks) == 259


# --------------------------------------------------------------------------- pickling


@pytest.mark.parametrize("enc_name", ENCODING_NAMES)
def test_pickle_registered_by_reference(tm, enc_name):
    enc = tm(enc_name)
    data = pickle.dumps(enc)
    assert len(data) < 200, "a registered encoding should pickle by name, not by value"
    assert pickle.loads(data) is enc


def test_pickle_custom_by_value():
    enc = tokenmill.Encoding("custom", PAT, _toy_ranks(), {"<|end|>": 259, "<|x y|>": 300})
    data = pickle.dumps(enc)
    enc2 = pickle.loads(data)
    assert enc2 is not enc
    text = "abcd<|end|> cd ab<|x y|>"
    assert enc2.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
    assert enc2.name == "custom" and enc2.n_vocab == enc.n_vocab == 301
    assert enc2._pat_str == PAT
    assert enc2._mergeable_ranks == enc._mergeable_ranks
    with pytest.raises(tokenmill.TokenIdError):
        enc2.decode([299])


def test_pickle_custom_with_registered_name(tm):
    # an encoding that merely shares a registered name must not unpickle as the registered one
    enc = tokenmill.Encoding("cl100k_base", PAT, _toy_ranks())
    enc2 = pickle.loads(pickle.dumps(enc))
    assert enc2 is not tm("cl100k_base")
    assert enc2.n_vocab == 259 and enc2.encode("abcd") == [258]


def test_pickle_in_subprocess(tm):
    enc = tokenmill.Encoding("sub", PAT, _toy_ranks(), {"<|end|>": 259})
    payload = pickle.dumps((enc, tm("o200k_base")))
    code = "import pickle, sys; a, b = pickle.loads(sys.stdin.buffer.read()); print(a.encode('abcd<|end|>', allowed_special='all'), b.encode('hello world'))"
    proc = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()[-1000:]
    assert proc.stdout.decode().strip() == f"[258, 259] {tm('o200k_base').encode('hello world')}"


# --------------------------------------------------------------------------- registry


def test_get_encoding_unknown():
    with pytest.raises(UnknownEncodingError) as ei:
        tokenmill.get_encoding("cl100k")
    msg = str(ei.value)
    assert isinstance(ei.value, ValueError)
    assert "'cl100k'" in msg
    for name in tokenmill.list_encoding_names():
        assert name in msg
    with pytest.raises(UnknownEncodingError):
        tokenmill.get_encoding("")


def test_list_encoding_names(tm):
    names = tokenmill.list_encoding_names()
    assert names == ENCODING_NAMES
    for n in names:
        assert tm(n).name == n
    assert tokenmill.get_encoding("cl100k_base") is tokenmill.get_encoding("cl100k_base")


def test_list_encoding_names_covers_tiktoken():
    assert set(tiktoken.list_encoding_names()) <= set(tokenmill.list_encoding_names())


def _tiktoken_model_table():
    peers.prefill_tiktoken_cache()
    names = list(tiktoken.model.MODEL_TO_ENCODING)
    names += [p + "2099-01-01" if p.endswith("-") else p + "x" for p in tiktoken.model.MODEL_PREFIX_TO_ENCODING]
    return [(m, tiktoken.encoding_name_for_model(m)) for m in names]


def test_encoding_for_model_never_wrong():
    """Regression: 'davinci-002'/'babbage-002' used to map to r50k_base, 'davinci-codex' to r50k_base
    and 'gpt-4.5-*' to cl100k_base."""
    wrong = []
    for model, expected in _tiktoken_model_table():
        try:
            got = tokenmill.encoding_name_for_model(model)
        except UnknownEncodingError:
            continue
        if got != expected:
            wrong.append((model, expected, got))
    assert not wrong, wrong


def test_encoding_for_model_covers_tiktoken():
    missing = []
    for model, expected in _tiktoken_model_table():
        try:
            tokenmill.encoding_name_for_model(model)
        except UnknownEncodingError:
            missing.append((model, expected))
    assert not missing, missing


@pytest.mark.parametrize(
    "model,expected",
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini", "o200k_base"),
        ("gpt-4o-2024-08-06", "o200k_base"),
        ("gpt-4.1", "o200k_base"),
        ("gpt-4.1-mini", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("o1", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4-0613", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("gpt-3.5-turbo-0125", "cl100k_base"),
        ("text-embedding-3-small", "cl100k_base"),
        ("text-embedding-ada-002", "cl100k_base"),
        ("text-davinci-003", "p50k_base"),
        ("code-davinci-002", "p50k_base"),
        ("davinci", "r50k_base"),
        ("gpt2", "gpt2"),
    ],
)
def test_encoding_for_model_common(model, expected):
    peers.prefill_tiktoken_cache()
    assert tiktoken.encoding_name_for_model(model) == expected
    assert tokenmill.encoding_name_for_model(model) == expected
    assert tokenmill.encoding_for_model(model) is tokenmill.get_encoding(expected)


def test_encoding_for_model_unknown():
    with pytest.raises(UnknownEncodingError) as ei:
        tokenmill.encoding_name_for_model("llama-3")
    assert "llama-3" in str(ei.value)


# --------------------------------------------------------------------------- offsets

OFFSET_TEXTS = [
    "hello world",
    "東京タワーは高い",
    "👍🏽 ok 👨\u200d👩\u200d👧 🇨🇿",
    "naïve café résumé",
    "mixed 東京 and 👍 and ascii",
    "",
    "a",
    "\U0010fffd\U0001d400x",
]


@pytest.mark.parametrize("enc_name", ["r50k_base", "cl100k_base", "o200k_base"])
@pytest.mark.parametrize("text", OFFSET_TEXTS)
def test_encode_with_offsets_examples(tm, tk, enc_name, text):
    a = tm(enc_name)
    ids, offsets = a.encode_with_offsets(text)
    assert ids == a.encode(text)
    assert (text, offsets) == tk(enc_name).decode_with_offsets(ids)
    assert (text, offsets) == a.decode_with_offsets(ids)


offset_text = st.text(alphabet=st.sampled_from(list("ab Z1\n'") + ["東", "京", "é", "👍", "🏽", "\u200d", "\u0301", "🇨", "한", "\U0010fffd"]), max_size=40)


@pytest.mark.parametrize("enc_name", ["cl100k_base", "o200k_base"])
@settings(max_examples=hyp_examples(150))
@given(text=offset_text)
def test_encode_with_offsets_hypothesis(tm, tk, enc_name, text):
    a = tm(enc_name)
    ids, offsets = a.encode_with_offsets(text)
    assert ids == tk(enc_name).encode(text)
    assert tk(enc_name).decode_with_offsets(ids) == (text, offsets)
    assert offsets == sorted(offsets)
    assert all(0 <= o < max(len(text), 1) for o in offsets)


def test_encode_with_offsets_specials(tm):
    enc = tm("cl100k_base")
    ids, offsets = enc.encode_with_offsets("é<|endoftext|>x", allowed_special="all")
    assert ids == enc.encode("é<|endoftext|>x", allowed_special="all")
    assert offsets == enc.decode_with_offsets(ids)[1] == [0, 1, 14]
    with pytest.raises(tokenmill.DisallowedSpecialTokenError):
        enc.encode_with_offsets("<|endoftext|>")


# --------------------------------------------------------------------------- truncate

trunc_text = st.lists(st.sampled_from(list("ab Z1\n.'") + ["東", "é", "👍", "\u0301", "  ", "123", "'s"]), max_size=30).map("".join)


@pytest.mark.parametrize("enc_name", ["r50k_base", "cl100k_base", "o200k_base"])
@settings(max_examples=hyp_examples(100))
@given(text=trunc_text, n=st.integers(0, 12))
def test_truncate_property(tm, enc_name, text, n):
    enc = tm(enc_name)
    r = enc.truncate(text, n)
    assert text.startswith(r)
    assert enc.count(r) <= n
    if r != text:
        assert enc.count(text[: len(r) + 1]) > n


def test_truncate_examples(tm):
    enc = tm("cl100k_base")
    assert enc.truncate("hello world, how are you?", 2) == "hello world"
    assert enc.truncate("hello world", 0) == ""
    assert enc.truncate("hello world", 100) == "hello world"
    with pytest.raises(tokenmill.DisallowedSpecialTokenError):
        enc.truncate("x <|endoftext|> y", 2)
    with pytest.raises(ValueError):
        enc.truncate("x", -1)
    with pytest.raises(ValueError):
        enc.truncate("x", 1.5)
    with pytest.raises(TypeError):
        enc.truncate(b"x", 1)


def test_truncate_with_specials(tm):
    enc = tm("cl100k_base")
    text = "x <|endoftext|> y z"
    for n in range(0, 6):
        r = enc.truncate(text, n, allowed_special="all")
        assert text.startswith(r)
        assert enc.count(r, allowed_special="all") <= n
        if r != text:
            assert enc.count(text[: len(r) + 1], allowed_special="all") > n


def test_truncate_surrogates_returns_prefix(tm):
    # regression: truncate('\ud83d'*10+'abc', 2) used to return '\ufffd'*8, not a prefix of the input
    enc = tm("cl100k_base")
    text = "\ud83d" * 10 + "abc"
    r = enc.truncate(text, 2)
    assert text.startswith(r)
    assert enc.count(r) <= 2


# --------------------------------------------------------------------------- type errors


@pytest.mark.parametrize("method", ["encode", "encode_ordinary", "count", "encode_to_numpy", "encode_with_offsets", "split"])
@pytest.mark.parametrize("bad", [b"text", bytearray(b"x"), None, 5, ["a"], 1.5])
def test_non_str_text_is_typeerror(tm, method, bad):
    with pytest.raises(TypeError) as ei:
        getattr(tm("cl100k_base"), method)(bad)
    msg = str(ei.value)
    assert "str" in msg and type(bad).__name__ in msg
    if isinstance(bad, (bytes, bytearray)):
        assert "encode_bytes" in msg


@pytest.mark.parametrize("method", ["encode_batch", "encode_ordinary_batch", "encode_batch_to_numpy"])
def test_batch_type_errors(tm, method):
    fn = getattr(tm("cl100k_base"), method)
    with pytest.raises(TypeError, match="single str"):
        fn("abc")
    with pytest.raises(TypeError, match=r"texts\[1\] is int"):
        fn(["a", 1])
    with pytest.raises(TypeError, match=r"texts\[2\] is bytes"):
        fn(["a", "b", b"c"])
    with pytest.raises(TypeError):
        fn(None)
    with pytest.raises(ValueError, match="num_threads"):
        fn(["a"], num_threads=0)


def test_other_type_errors(tm):
    enc = tm("cl100k_base")
    with pytest.raises(TypeError, match="bytes"):
        enc.encode_bytes("text")
    with pytest.raises(TypeError, match="str or bytes"):
        enc.encode_single_token(15339)
    with pytest.raises(KeyError):
        enc.encode_single_token("hello world")
    assert enc.encode_single_token("hello") == 15339
    assert enc.encode_single_token(b"hello") == 15339
    assert enc.encode_single_token(bytearray(b"hello")) == 15339


def test_batch_apis_equal_tiktoken(tm, tk):
    a, b = tm("cl100k_base"), tk("cl100k_base")
    texts = ["hello world", "", "東京 👍", "x <|endoftext|>", "  \n\n"]
    assert a.encode_ordinary_batch(texts) == b.encode_ordinary_batch(texts)
    assert a.encode_batch(texts, allowed_special="all") == b.encode_batch(texts, allowed_special="all")
    assert a.encode_batch(texts, disallowed_special=()) == b.encode_batch(texts, disallowed_special=())
    with pytest.raises(ValueError):
        a.encode_batch(texts)
    toks, bounds = a.encode_batch_to_numpy(texts, disallowed_special=())
    assert toks.dtype == np.uint32
    expected = b.encode_batch(texts, disallowed_special=())
    assert [toks[bounds[i] : bounds[i + 1]].tolist() for i in range(len(texts))] == expected
    for n in (1, 2, 7):
        assert a.encode_ordinary_batch(texts * 20, num_threads=n) == b.encode_ordinary_batch(texts * 20)


def test_batch_to_numpy_equals_batch_lists_on_threads(tm):
    # The flat array is built by the batch pipeline: lazy reading, chunks, in order.
    enc = tm("o200k_base")
    texts = [f"doc {i} 東京 {'x' * (i % 50)} 👍\n" * (i % 7) for i in range(700)] + ["lone \ud800 surrogate"]
    want = enc.encode_batch(texts, disallowed_special=())
    for n in (1, 2, 3):
        toks, bounds = enc.encode_batch_to_numpy(iter(texts), num_threads=n, disallowed_special=())
        assert bounds[0] == 0 and bounds[-1] == len(toks) and len(bounds) == len(texts) + 1
        assert [toks[bounds[i] : bounds[i + 1]].tolist() for i in range(len(texts))] == want
    bad = texts[:400] + ["x <|endoftext|> y"] + texts[400:]
    for n in (1, 2):
        with pytest.raises(ValueError, match="endoftext"):
            enc.encode_batch_to_numpy(bad, num_threads=n)


# --------------------------------------------------------------------------- threads


def test_count_equals_len_of_encode(tm):
    enc = tm("o200k_base")
    text = "Hello <|endoftext|> 世界, naïve café!\n\n  x" * 50
    assert enc.count(text, allowed_special="all") == len(enc.encode(text, allowed_special="all"))
    assert enc.count(text, disallowed_special=()) == len(enc.encode(text, disallowed_special=()))
    with pytest.raises(tokenmill.DisallowedSpecialTokenError):
        enc.count(text)
    big = "The quick brown fox jumps over the lazy dog. 日本語のテキスト。\n" * 20000
    for n in (1, 2, 3):
        assert enc.count(big, num_threads=n) == len(enc.encode_ordinary(big))


def test_threaded_batch_and_count_bad_input(tm, tk):
    # Lone surrogates, empty documents, more threads than documents, and one huge document
    # among small ones, through the threaded pipeline and count(), against tiktoken's encode.
    a, b = tm("cl100k_base"), tk("cl100k_base")
    docs = ["", "a\ud83db", "\udc4d" * 3, "x" * 300_000, "", "東京 \ud800 ok", "\x00\x00"]
    want = [b.encode(d) for d in docs]
    for n in (1, 2, 16):
        assert a.encode_batch(docs, num_threads=n) == want
        assert a.encode_ordinary_batch(docs, num_threads=n) == want
        assert [a.count(d, num_threads=n) for d in docs] == [len(w) for w in want]
    with pytest.raises(TypeError, match=r"texts\[1\] is bytes"):
        a.encode_batch(["ok", b"\xff"], num_threads=2)


def test_batch_texts_are_read_as_their_chunks_come_up(tm, shared_data):
    # The batch call takes each text's UTF-8 form only when its chunk is due (with several
    # threads, while the first chunks are already being encoded): a bad item far into a long
    # batch must still fail the call with the same error, and the ids must not change.
    import tokenmill

    enc = tm("cl100k_base")
    hf = tokenmill.load(shared_data / "gpt2" / "tokenizer.json")
    docs = [f"línea {i}: 日本語のテキスト {i * 7} done" for i in range(3000)]
    for tok in (enc, hf):
        expected = [tok.encode(d) for d in docs]
        for n in (1, 2, 3):
            assert tok.encode_batch(docs, num_threads=n) == expected
            assert tok.encode_batch(tuple(docs), num_threads=n) == expected
            assert tok.encode_batch(iter(docs), num_threads=n) == expected
            bad = docs[:2900] + ["lone \ud800 surrogate"] + docs[2900:]
            assert tok.encode_batch(bad, num_threads=n) == [tok.encode(d) for d in bad]
            with pytest.raises(TypeError, match=r"texts\[2500\] is int"):
                tok.encode_batch(docs[:2500] + [7] + docs[2500:], num_threads=n)
    with pytest.raises(TypeError, match=r"texts\[1\] is bytes, expected str"):
        enc._core.encode_batch(("ok", b"no"), None, None, 2)
    with pytest.raises(UnicodeEncodeError):
        enc._core.encode_batch(["ok"] * 2000 + ["\ud800"], None, None, 2)
    with pytest.raises(TypeError, match="not a single str"):
        enc._core.encode_batch("text", None, None, 2)


def test_every_kind_of_str_is_read_and_left_as_it_was(tm, tk, shared_data):
    # CPython keeps a str in 1, 2 or 4 bytes per char; tokenmill transcodes each kind to UTF-8
    # itself (runs of 8 or 16 units at a time, then the rest), uses the UTF-8 form a str
    # already carries, and must not leave a UTF-8 copy inside the caller's strings (which
    # PyUnicode_AsUTF8AndSize does: sys.getsizeof counts it).
    import random
    import sys

    import tokenmill

    enc = tm("o200k_base")
    hf = tokenmill.load(shared_data / "gpt2" / "tokenizer.json")
    pieces = ["a", "word ", "é", "ж", "日本語", "。", "😀", "\x00", "\u07ff", "\u0800", "\uffff", "\U0010ffff", "\u00ff"]

    def new_texts():
        rng = random.Random(5)
        texts = ["".join(rng.choice(pieces) * rng.randint(1, 12) for _ in range(rng.randint(0, 8))) for _ in range(800)]
        texts += ["", "x" * 17, "é" * 17, "日" * 17, "😀" * 9, "a" * 7 + "日" * 9 + "é" * 3]
        # A str subclass keeps its chars in another layout (read through Python's own UTF-8).
        sub = type("Sub", (str,), {})
        texts += [sub("日本語 and é"), sub("plain"), sub("\ud800x")]
        return texts + ["\ud800日本語" * 3, "日本語" * 5 + "\udfff", "😀\udc00", "é\udbff", "\udc00"]

    for tok in (enc, hf):
        texts = new_texts()
        sizes = [sys.getsizeof(t) for t in texts]
        got = tok.encode_batch(texts, num_threads=1)
        assert got == [tok.encode(t) for t in texts]
        assert [tok.count(t) for t in texts] == [len(ids) for ids in got]
        assert [sys.getsizeof(t) for t in texts] == sizes
        # tiktoken (pyo3's &str) leaves UTF-8 forms in the strings; they are read as they are.
        clean = [t for t in texts if not any("\ud800" <= c <= "\udfff" for c in t)]
        tk("o200k_base").encode_ordinary_batch(clean)
        assert any(sys.getsizeof(t) > sizes[texts.index(t)] for t in clean)
        assert tok.encode_batch(texts, num_threads=2) == got
        assert [tok.encode(t) for t in texts] == got


def test_long_ascii_runs_in_every_kind_of_str_match_tiktoken(tm, tk):
    # The transcoder takes ASCII 16 units (32 bytes for Latin-1) a step once a block is all
    # ASCII: runs of every length, ending in each wider kind of char, in str objects of each
    # width, against tiktoken (which reads Python's own UTF-8 form). tokenmill goes first, so
    # it meets the strings without a UTF-8 form attached.
    enc, ref = tm("o200k_base"), tk("o200k_base")
    texts = [
        "ab cd" * (run // 5) + "x" * (run % 5) + wide + " tail of words" * 5
        for wide in ["\x80", "é", "ж", "日", "\uffff", "😀", "\U0010ffff"]
        for run in range(0, 90, 3)
    ]
    got = [enc.encode(t) for t in texts]
    assert enc.encode_batch(texts, num_threads=2) == got
    assert got == [ref.encode_ordinary(t) for t in texts]


def test_batch_list_shrunk_by_another_thread_fails_cleanly(tm):
    # A list is read in place, chunk by chunk, and other Python threads run while a chunk is
    # encoded: a list emptied meanwhile gives either the full result (read before) or a clear
    # RuntimeError, never a crash or a result for a list that no longer exists. (A busy host
    # may run the other thread before the call starts: then the list is empty, and so is the
    # result.)
    enc = tm("cl100k_base")
    docs = [f"line {i} of a batch that another thread empties" for i in range(40000)]
    expected = enc.encode_ordinary_batch(list(docs))
    for n in (1, 2):
        texts = list(docs)
        t = threading.Thread(target=lambda: (time.sleep(0.001), texts.clear()))
        t.start()
        try:
            assert enc.encode_ordinary_batch(texts, num_threads=n) in (expected, [])
        except RuntimeError as e:
            assert "changed size during the call" in str(e)
        t.join()


def test_batch_threads_report_the_first_failing_document(tm):
    # With several threads, documents finish out of order; the error raised must still be the
    # one of the first failing document, and the lists must come back in input order.
    enc = tm("cl100k_base")
    docs = ["word " * 3000] * 40
    docs[25] = "late <|endoftext|>"
    docs[31] = "later <|fim_prefix|>"
    for n in (1, 2, 4):
        with pytest.raises(tokenmill.DisallowedSpecialTokenError, match="endoftext"):
            enc.encode_batch(docs, num_threads=n)
    ok = [f"document {i} " * (i % 7 + 1) * 500 for i in range(60)]
    expected = [enc.encode_ordinary(d) for d in ok]
    for n in (2, 3, 8):
        assert enc.encode_ordinary_batch(ok, num_threads=n) == expected
        assert enc.encode_batch(ok, num_threads=n) == expected


def test_batch_error_is_the_first_bad_document_whichever_way_it_is_bad(tm):
    # Texts are extracted a few chunks ahead of the encoders, so a text that is not a str may
    # be met before an earlier document has failed to encode: the error raised is still that
    # of the first bad document in input order, on every thread count, and a bad text right
    # after good ones in the same chunk does not hide their error.
    enc = tm("cl100k_base")
    docs = [f"document {i} with some words in it" for i in range(6000)]
    cases = [(5, 4000, tokenmill.DisallowedSpecialTokenError), (4000, 5, TypeError),
             (3, 5, tokenmill.DisallowedSpecialTokenError), (5, 3, TypeError), (5990, 5999, tokenmill.DisallowedSpecialTokenError)]
    for special_at, int_at, error in cases:
        bad = list(docs)
        bad[special_at] = "late <|endoftext|>"
        bad[int_at] = 7
        for n in (1, 2, 3):
            with pytest.raises(error):
                enc.encode_batch(bad, num_threads=n)
    for n in (1, 2, 3):
        with pytest.raises(TypeError, match=r"texts\[0\] is int"):
            enc.encode_batch([7] + docs, num_threads=n)
        assert enc.encode_batch(docs[:3] + [""] + docs[3:9], num_threads=n) == [enc.encode(d) for d in docs[:3] + [""] + docs[3:9]]


def test_threads_shared_encoding(tm, corpus):
    """16 Python threads x 200 encodes on one shared Encoding give the serial results (K1)."""
    enc = tm("cl100k_base")
    text = corpus["corpus/canterbury/alice29.txt"]
    inputs = [text[i * 397 : i * 397 + 50 + (i * 131) % 2000] for i in range(200)]
    inputs += ["a" * 5000, " " * 3000 + "x", "東京👍" * 300, "x <|endoftext|> y", "\ud83d\udc4d\ud83d"]
    serial = [enc.encode(t, allowed_special="all") for t in inputs]
    results: list = [None] * 16
    errors: list = []
    barrier = threading.Barrier(16)

    def worker(k):
        try:
            barrier.wait()
            out = []
            for j in range(200):
                i = (j * 7 + k) % len(inputs)
                if j % 3 == 0:
                    out.append((i, enc.encode(inputs[i], allowed_special="all")))
                elif j % 3 == 1:
                    out.append((i, enc.encode_to_numpy(inputs[i], allowed_special="all").tolist()))
                else:
                    out.append((i, enc.encode_batch([inputs[i]], allowed_special="all", num_threads=2)[0]))
            results[k] = out
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    for k in range(16):
        assert results[k] is not None and len(results[k]) == 200
        for i, ids in results[k]:
            assert ids == serial[i]


def test_batch_accepts_iterables_like_tiktoken(tm, tk):
    # regression: generators/iterators used to raise "'generator' object is not an instance of 'Sequence'"
    a, b = tm("cl100k_base"), tk("cl100k_base")
    texts = ["hello", "world"]
    assert a.encode_ordinary_batch(t for t in texts) == b.encode_ordinary_batch(t for t in texts)
    assert a.encode_batch(iter(texts)) == b.encode_batch(iter(texts))


def test_batch_accepts_tuples(tm, tk):
    a, b = tm("cl100k_base"), tk("cl100k_base")
    assert a.encode_ordinary_batch(("hello", "world")) == b.encode_ordinary_batch(("hello", "world"))


sur_text = st.lists(
    st.sampled_from(list("ab 1.") + ["\ud83d", "\udc4d", "\ud83d\udc4d", "\ud800\udc00", "東", "👍", "\ufffd"]), max_size=25
).map("".join)


@settings(max_examples=hyp_examples(150))
@given(text=sur_text, n=st.integers(1, 10))
def test_truncate_surrogates_property(tm, text, n):
    """truncate() on text with surrogates returns a prefix of the *input* that never splits a
    surrogate pair, fits in n tokens, and is maximal."""
    enc = tm("cl100k_base")
    r = enc.truncate(text, n)
    assert text.startswith(r)
    assert enc.count(r) <= n
    if r:
        last = ord(r[-1])
        nxt = ord(text[len(r)]) if len(r) < len(text) else 0
        assert not (0xD800 <= last < 0xDC00 and 0xDC00 <= nxt < 0xE000), "cut inside a surrogate pair"
    if r != text:
        step = 2 if 0xD800 <= ord(text[len(r)]) < 0xDC00 and len(r) + 1 < len(text) and 0xDC00 <= ord(text[len(r) + 1]) < 0xE000 else 1
        assert enc.count(text[: len(r) + step]) > n
