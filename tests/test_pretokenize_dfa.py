"""The lazy-DFA pre-tokenizer (`tokenmill_core::pretokenize::dfa`, issue 14) against the
backtracking engine it stands in for (`fancy_regex`, tiktoken's): the same pieces for every
pattern it takes, and the same ids as tiktoken for an encoding with a custom pattern."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenmill
from tokenmill import _core
from tokenmill.patterns import CL100K_PAT, O200K_PAT, R50K_PAT

LLAMA3 = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
PATTERNS = {
    "llama3": LLAMA3,
    "qwen2": LLAMA3.replace(r"\p{N}{1,3}", r"\p{N}"),
    "o200k": O200K_PAT,
    # tiktoken's spellings, with possessive quantifiers the DFA runs as greedy ones.
    "cl100k": CL100K_PAT,
    "r50k": R50K_PAT,
    "gpt2": GPT2,
    # The look-ahead alternative last (nothing after it to fall back on), and one with gaps:
    # characters that no alternative matches.
    "lookahead-last": r"\p{L}+|\p{N}|[^\s\p{L}\p{N}]+|\s+(?!\S)",
    "gaps": r"[a-z]+|\s+(?!\S)|\d",
    "no-lookahead": r"\w+|[^\w\s]+|\s+",
    "word-boundary": r"\b\w+\b|\s+(?!\S)|\s+|.",
}

# Characters where the engines could part: every kind of space, line breaks, letters of several
# scripts and cases, digits, apostrophes, combining marks, symbols.
ALPHABET = list(" \t\n\r\x0b\x0c\xa0\u2028\u3000\u200b") + list("aZé日ßǅ1٣'!?.-_/\u0301😀")
texts = st.one_of(st.text(alphabet=st.sampled_from(ALPHABET), max_size=60), st.text(max_size=40))


@pytest.mark.parametrize("name", sorted(PATTERNS))
@given(text=texts)
@settings(max_examples=150, deadline=None)
def test_the_dfa_gives_the_backtracking_engines_pieces(name, text):
    pattern = PATTERNS[name]
    assert _core.pretokenize(pattern, text, dfa=True) == _core.pretokenize(pattern, text, fast=False)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_the_dfa_on_long_runs(name):
    pattern = PATTERNS[name]
    for text in [" " * 5000 + "x", "x" + " " * 5000, "\n \n" * 2000, " x" * 3000, "9" * 4000, "\u3000" * 3000 + "a"]:
        assert _core.pretokenize(pattern, text, dfa=True) == _core.pretokenize(pattern, text, fast=False)


def test_which_patterns_run_on_the_dfa():
    byte_vocab = {bytes([i]): i for i in range(256)}
    for pattern in (LLAMA3.replace(r"\p{N}{1,3}", r"\p{N}{1,2}"), r"\w+|\s+", CL100K_PAT + "|x"):
        assert tokenmill.Encoding("custom", pattern, byte_vocab).pretokenizer == "dfa"
    # A possessive quantifier that could give back, look-behind, a pattern that can match
    # nothing: the backtracking engine.
    for pattern in (r"\p{L}++\p{L}|\s", r"(?<=a)b|\s", r"a*|b"):
        assert tokenmill.Encoding("custom", pattern, byte_vocab).pretokenizer == "regex"
    with pytest.raises(ValueError, match="DFA engine cannot run"):
        _core.pretokenize(r"\p{L}++\p{L}|\s", "x", dfa=True)


def test_a_custom_pattern_gives_tiktokens_ids(shared_data):
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    ranks = load_tiktoken_bpe(str(shared_data / "tiktoken" / "cl100k_base.tiktoken"))
    pattern = PATTERNS["qwen2"].replace(r"\s*[\r\n]+", r"\s*[\r\n]")  # no hand-written matcher has this one
    ours = tokenmill.Encoding("custom", pattern, ranks)
    theirs = tiktoken.Encoding("custom", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    assert ours.pretokenizer == "dfa"
    text = (shared_data / "corpus" / "botchan.txt").read_text(encoding="utf-8")[:200_000]
    text += "  it's 12345  \n\n  x \u3000y\t\t\n" * 50
    assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)


def test_the_dfa_on_a_million_characters():
    # Linear on the worst cases of ../shared/ADVERSARIAL.md (tiktoken's fancy_regex overflows
    # its stack on the first); a run of spaces gives its last one to the word after it.
    pattern = PATTERNS["llama3"].replace(r"\p{N}{1,3}", r"\p{N}{1,2}")
    n = 1 << 20
    assert _core.pretokenize(pattern, " " * (n - 1) + "x", dfa=True) == [(0, n - 2), (n - 2, n)]
    assert len(_core.pretokenize(pattern, " x" * (n // 2), dfa=True)) == n // 2
    assert _core.pretokenize(pattern, "a" * n, dfa=True) == [(0, n)]
    assert len(_core.pretokenize(pattern, "0" * n, dfa=True)) == n // 2
