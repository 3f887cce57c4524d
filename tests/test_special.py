"""Special tokens with tiktoken's semantics (ADVERSARIAL C1-C8).

Every case where tiktoken is deterministic is compared with tiktoken 0.14.0: the same ids, or a
ValueError in both. (tiktoken resolves overlapping special tokens through a HashMap-ordered regex
alternation, so for overlapping specials only tokenmill's documented leftmost-longest rule is
checked.)"""

from __future__ import annotations

import itertools
import pickle
import re

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenmill
from conftest import hyp_examples
from tokenmill import DisallowedSpecialTokenError, SpecialTokenError

CL100K_SPECIALS = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>"]


def _outcome(fn, *args, **kwargs):
    """("ok", result) or ("ValueError", token-or-None) for a comparable summary of a call."""
    try:
        r = fn(*args, **kwargs)
    except ValueError as e:
        m = re.search(r"disallowed special token '((?:[^'\\]|\\.)*)'", str(e))
        return ("ValueError", m.group(1) if m else None)
    return ("ok", r.tolist() if hasattr(r, "tolist") else r)


# --------------------------------------------------------------------------- C1


@pytest.mark.parametrize("enc_name", ["gpt2", "r50k_base", "p50k_base", "p50k_edit", "cl100k_base", "o200k_base"])
def test_c1_disallowed_by_default(tm, tk, enc_name):
    a, b = tm(enc_name), tk(enc_name)
    for special in sorted(a.special_tokens_set):
        text = f"hi {special} there"
        with pytest.raises(ValueError):
            b.encode(text)
        with pytest.raises(DisallowedSpecialTokenError) as ei:
            a.encode(text)
        e = ei.value
        assert isinstance(e, ValueError) and isinstance(e, SpecialTokenError) and isinstance(e, tokenmill.TokenmillError)
        msg = str(e)
        assert special in msg
        assert "allowed_special" in msg and "disallowed_special" in msg
        assert e.token == special
        # the same check on every path that takes the special-token switches
        for fn in (a.encode_to_numpy, a.count, a.encode_with_offsets):
            with pytest.raises(DisallowedSpecialTokenError):
                fn(text)
        with pytest.raises(DisallowedSpecialTokenError):
            a.encode_batch(["fine", text])


def test_c1_error_position_and_pickle(tm):
    enc = tm("cl100k_base")
    with pytest.raises(DisallowedSpecialTokenError) as ei:
        enc.encode("\u00e9t\u00e9 <|endofprompt|>")
    e = ei.value
    assert e.token == "<|endofprompt|>"
    assert e.position == len("\u00e9t\u00e9 ".encode("utf-8"))
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is DisallowedSpecialTokenError and str(e2) == str(e)


def test_c1_first_disallowed_token_reported(tm, tk):
    a, b = tm("cl100k_base"), tk("cl100k_base")
    text = "x <|fim_middle|> y <|endoftext|>"
    assert _outcome(a.encode, text) == _outcome(b.encode, text) == ("ValueError", "<|fim_middle|>")


# --------------------------------------------------------------------------- C2


@pytest.mark.parametrize("enc_name", ["gpt2", "cl100k_base", "o200k_base", "p50k_edit"])
def test_c2_disallowed_empty_is_text(tm, tk, enc_name):
    a, b = tm(enc_name), tk(enc_name)
    for special in sorted(a.special_tokens_set):
        text = f"hi {special}{special}x"
        expected = b.encode(text, disallowed_special=())
        assert a.encode(text, disallowed_special=()) == expected
        assert a.encode(text, disallowed_special=frozenset()) == expected
        assert a.encode(text, disallowed_special=set()) == expected
        assert a.encode(text, disallowed_special=[]) == expected
        assert a.encode_ordinary(text) == expected
        assert a.count(text, disallowed_special=()) == len(expected)
        assert a.decode(expected) == text
        for sid in (a._special_tokens[s] for s in a.special_tokens_set):
            assert sid not in expected


def test_c2_tiktoken_docstring_example(tm):
    assert tm("gpt2").encode("<|endoftext|>", disallowed_special=()) == [27, 91, 437, 1659, 5239, 91, 29]
    assert tm("gpt2").encode("<|endoftext|>", allowed_special="all") == [50256]
    assert tm("gpt2").encode_ordinary("<|endoftext|>") == [27, 91, 437, 1659, 5239, 91, 29]


_special_fragments = st.sampled_from(CL100K_SPECIALS + ["<|", "|>", "<|endoftext", "endoftext|>", "<", "|", ">", "<|endoftext|", "<<|endoftext|>>"])
_special_text = st.lists(st.one_of(_special_fragments, st.text(max_size=6)), max_size=12).map("".join)


@settings(max_examples=hyp_examples(200))
@given(t=_special_text)
def test_c2_encode_ordinary_equals_disallowed_empty(tm, tk, t):
    for name in ("cl100k_base", "o200k_base"):
        a = tm(name)
        got = a.encode_ordinary(t)
        assert got == a.encode(t, disallowed_special=())
        assert got == tk(name).encode_ordinary(t)


@settings(max_examples=hyp_examples(200))
@given(t=_special_text)
def test_specials_hypothesis_vs_tiktoken(tm, tk, t):
    a, b = tm("cl100k_base"), tk("cl100k_base")
    for kwargs in (
        {},
        {"allowed_special": "all"},
        {"allowed_special": {"<|endoftext|>"}},
        {"allowed_special": {"<|fim_prefix|>", "<|endofprompt|>"}, "disallowed_special": ()},
        {"disallowed_special": {"<|fim_middle|>"}},
    ):
        expected = _outcome(b.encode, t, **kwargs)
        assert _outcome(a.encode, t, **kwargs) == expected, kwargs
        assert _outcome(a.encode_to_numpy, t, **kwargs) == expected, kwargs
        if expected[0] == "ok":
            assert a.count(t, **kwargs) == len(expected[1])
            assert a.encode_batch([t], **kwargs) == [expected[1]]
            assert a.encode_with_offsets(t, **kwargs)[0] == expected[1]
            assert a.decode(expected[1]) == t.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


# --------------------------------------------------------------------------- C3: tiktoken's test_special_token


def test_tiktoken_test_special_token(tm):
    """tiktoken's own `test_special_token`, verbatim against tokenmill."""
    enc = tm("cl100k_base")
    eot = enc.encode_single_token("<|endoftext|>")
    assert eot == enc.eot_token
    fip = enc.encode_single_token("<|fim_prefix|>")
    fim = enc.encode_single_token("<|fim_middle|>")

    text = "<|endoftext|> hello <|fim_prefix|>"
    assert eot not in enc.encode(text, disallowed_special=())
    with pytest.raises(ValueError):
        enc.encode(text)
    with pytest.raises(ValueError):
        enc.encode(text, disallowed_special="all")
    with pytest.raises(ValueError):
        enc.encode(text, disallowed_special={"<|endoftext|>"})
    with pytest.raises(ValueError):
        enc.encode(text, disallowed_special={"<|fim_prefix|>"})

    text = "<|endoftext|> hello <|fim_prefix|> there <|fim_middle|>"
    tokens = enc.encode(text, disallowed_special=())
    assert eot not in tokens and fip not in tokens and fim not in tokens

    tokens = enc.encode(text, allowed_special="all", disallowed_special=())
    assert eot in tokens and fip in tokens and fim in tokens

    tokens = enc.encode(text, allowed_special="all", disallowed_special="all")
    assert eot in tokens and fip in tokens and fim in tokens

    tokens = enc.encode(text, allowed_special={"<|fim_prefix|>"}, disallowed_special=())
    assert eot not in tokens and fip in tokens and fim not in tokens

    tokens = enc.encode(text, allowed_special={"<|endoftext|>"}, disallowed_special=())
    assert eot in tokens and fip not in tokens and fim not in tokens

    tokens = enc.encode(text, allowed_special={"<|fim_middle|>"}, disallowed_special=())
    assert eot not in tokens and fip not in tokens and fim in tokens


_SUBSETS = [frozenset(c) for r in range(0, 3) for c in itertools.combinations(["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>"], r)]
_ALLOWED = ["all", *_SUBSETS, frozenset({"<|endoftext|>", "not a special token"})]
_DISALLOWED = ["all", (), *_SUBSETS[1:], ["<|fim_middle|>"], ("hello",)]
_MATRIX_TEXTS = [
    "<|endoftext|> hello <|fim_prefix|>",
    "<|endoftext|> hello <|fim_prefix|> there <|fim_middle|>",
    "<|endoftext|><|fim_prefix|>",
    "plain hello text",
    "<|endofprompt|>",
    "",
]


@pytest.mark.parametrize("text", _MATRIX_TEXTS)
def test_c3_full_matrix_vs_tiktoken(tm, tk, text):
    a, b = tm("cl100k_base"), tk("cl100k_base")
    diffs = []
    for allowed in _ALLOWED:
        for disallowed in _DISALLOWED:
            kwargs = {"allowed_special": allowed, "disallowed_special": disallowed}
            expected = _outcome(b.encode, text, **kwargs)
            for fn in (a.encode, a.encode_to_numpy):
                got = _outcome(fn, text, **kwargs)
                if got != expected:
                    diffs.append((fn.__name__, allowed, disallowed, got, expected))
    assert not diffs, diffs


def test_c3_disallow_arbitrary_string(tm, tk):
    # tiktoken raises for any listed string found in the text, special token or not.
    a, b = tm("cl100k_base"), tk("cl100k_base")
    kwargs = {"disallowed_special": {"hello"}}
    assert _outcome(a.encode, "say hello", **kwargs) == _outcome(b.encode, "say hello", **kwargs)
    assert _outcome(a.encode, "say goodbye", **kwargs) == _outcome(b.encode, "say goodbye", **kwargs)


def test_bad_special_arguments(tm):
    enc = tm("cl100k_base")
    with pytest.raises(ValueError, match="allowed_special"):
        enc.encode("x", allowed_special="none")
    with pytest.raises(ValueError, match="disallowed_special"):
        enc.encode("x", disallowed_special="none")
    with pytest.raises(ValueError):
        enc.encode("x", allowed_special=5)
    with pytest.raises(ValueError):
        enc.encode("x", disallowed_special={""})


# --------------------------------------------------------------------------- C4 overlapping specials


@pytest.mark.parametrize(
    "text",
    ["<|endoftext|>>", "<|<|endoftext|>|>", "<<|endoftext|>", "<|endoftext|<|endoftext|>", "<|endoftext|><|endoftext|>"],
)
def test_c4_nested_in_text(tm, tk, text):
    a, b = tm("cl100k_base"), tk("cl100k_base")
    expected = b.encode(text, allowed_special="all")
    assert a.encode(text, allowed_special="all") == expected
    assert a.decode(expected) == text


BYTE_RANKS = {bytes([i]): i for i in range(256)}
SIMPLE_PAT = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def _toy(specials, name="toy_specials"):
    return tokenmill.Encoding(name, pat_str=SIMPLE_PAT, mergeable_ranks=dict(BYTE_RANKS), special_tokens=specials)


def test_c4_prefix_specials_leftmost_longest():
    enc = _toy({"<|a|>": 300, "<|a|>b": 301, "b<|": 302, "<|a": 303})
    # leftmost match wins; among matches starting at the same place, the longest.
    assert enc.encode("<|a|>b", allowed_special="all") == [301]
    assert enc.encode("<|a|>c", allowed_special="all") == [300, ord("c")]
    assert enc.encode("<|a|c", allowed_special="all") == [303, ord("|"), ord("c")]
    assert enc.encode("xb<|a|>", allowed_special="all") == [ord("x"), 302, ord("a"), ord("|"), ord(">")]
    # only some allowed: a disallowed longer match must not hide an allowed shorter one
    assert enc.encode("<|a|>c", allowed_special={"<|a|>"}, disallowed_special=()) == [300, ord("c")]
    for text in ["<|a|>b", "<|a|>c", "<|a|c", "xb<|a|>", "<|a|>b<|a|>"]:
        assert enc.decode(enc.encode(text, allowed_special="all")) == text
        assert enc.decode(enc.encode(text, disallowed_special=())) == text


def test_c4_disallowed_longer_special_is_detected():
    enc = _toy({"<|a|>": 300, "<|a|>b": 301})
    with pytest.raises(DisallowedSpecialTokenError) as ei:
        enc.encode("<|a|>b", allowed_special={"<|a|>"})
    assert ei.value.token == "<|a|>b"


# --------------------------------------------------------------------------- C5 metacharacters


META_SPECIALS = {
    "[.*+?]": 256,
    "(a|b)": 257,
    "\\d+": 258,
    "$^": 259,
    "two words": 260,
    "line\nbreak": 261,
    "\u00f1\u4e2d\U0001f600": 262,
    '"<q>"': 263,
    "{1,3}": 264,
    "\\E\\Q|": 265,
}


@pytest.fixture(scope="module")
def meta_pair():
    a = tokenmill.Encoding("meta", pat_str=SIMPLE_PAT, mergeable_ranks=dict(BYTE_RANKS), special_tokens=dict(META_SPECIALS))
    b = tiktoken.Encoding("meta", pat_str=SIMPLE_PAT, mergeable_ranks=dict(BYTE_RANKS), special_tokens=dict(META_SPECIALS))
    return a, b


@pytest.mark.parametrize("special", sorted(META_SPECIALS))
def test_c5_specials_with_metacharacters(meta_pair, special):
    a, b = meta_pair
    for text in [special, f"x{special}y", f"{special} {special}", f"aa{special}", "ab 12 ." + special[:-1]]:
        for kwargs in ({"allowed_special": "all"}, {"disallowed_special": ()}, {}, {"allowed_special": {special}}):
            assert _outcome(a.encode, text, **kwargs) == _outcome(b.encode, text, **kwargs), (text, kwargs)
        ids = a.encode(text, allowed_special="all")
        assert a.decode(ids) == text
    assert a.encode_single_token(special) == META_SPECIALS[special]
    assert a.decode_single_token_bytes(META_SPECIALS[special]) == special.encode("utf-8")


def test_c5_metacharacters_not_interpreted(meta_pair):
    a, _ = meta_pair
    # regex meaning of the special texts must not leak: "a" matches (a|b) as a regex, "7" matches \d+
    for text in ["a", "b", "7", "77", "", "x", "ab"]:
        assert a.encode(text, allowed_special="all") == list(text.encode())


def test_c5_c6_pickle_roundtrip_keeps_specials(meta_pair):
    a, _ = meta_pair
    a2 = pickle.loads(pickle.dumps(a))
    text = "x(a|b)y two words\\E\\Q|"
    assert a2.encode(text, allowed_special="all") == a.encode(text, allowed_special="all")
    assert a2.special_tokens_set == a.special_tokens_set
    # C6: "treat specials as text" is a per-call switch; the default is still "disallowed" after a roundtrip
    with pytest.raises(DisallowedSpecialTokenError):
        a2.encode(text)
    assert a2.encode(text, disallowed_special=()) == list(text.encode())


# --------------------------------------------------------------------------- C7 decode of specials


@pytest.mark.parametrize("enc_name", ["gpt2", "p50k_edit", "cl100k_base", "o200k_base"])
def test_c7_decode_special_ids(tm, tk, enc_name):
    a, b = tm(enc_name), tk(enc_name)
    for special in sorted(a.special_tokens_set):
        sid = b.encode_single_token(special)
        assert a.encode_single_token(special) == sid
        assert a.encode_single_token(special.encode()) == sid
        assert a.is_special_token(sid)
        assert a.decode([sid]) == special
        assert a.decode_single_token_bytes(sid) == special.encode()
        ids = b.encode(f"a{special}b", allowed_special="all")
        assert sid in ids
        assert a.decode(ids) == f"a{special}b"
        assert a.decode_tokens_bytes(ids) == b.decode_tokens_bytes(ids)
    assert not a.is_special_token(0)


def test_p50k_edit_fim(tm, tk):
    a, b = tm("p50k_edit"), tk("p50k_edit")
    assert a._special_tokens == b._special_tokens == {
        "<|endoftext|>": 50256,
        "<|fim_prefix|>": 50281,
        "<|fim_middle|>": 50282,
        "<|fim_suffix|>": 50283,
    }
    text = "<|fim_prefix|>def f(x):<|fim_suffix|>    return x<|fim_middle|>"
    ids = a.encode(text, allowed_special="all")
    assert ids == b.encode(text, allowed_special="all")
    assert ids[0] == 50281 and 50283 in ids and ids[-1] == 50282
    assert a.decode(ids) == text
    with pytest.raises(ValueError):
        a.encode(text)
    assert a.encode(text, disallowed_special=()) == b.encode(text, disallowed_special=())
    # p50k_base has no FIM tokens: the text is disallowed nowhere and ordinary
    assert tm("p50k_base").encode(text) == tk("p50k_base").encode(text)


def test_specials_with_surrogates(tm, tk):
    a, b = tm("cl100k_base"), tk("cl100k_base")
    text = "\ud83d<|endoftext|>\udc4d x"
    assert a.encode(text, allowed_special="all") == b.encode(text, allowed_special="all")
    assert _outcome(a.encode, text) == _outcome(b.encode, text)
