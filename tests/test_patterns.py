"""Every standard encoding runs on a hand-written matcher (issue 9): the pattern strings exist
once, in the Rust core, and `tokenmill.patterns` reads them from there, so an edit to a copy
cannot silently send a standard encoding to the slow regex engine."""

from __future__ import annotations

import pytest

import tokenmill
from tokenmill import patterns

EXPECTED = {"gpt2": "r50k", "r50k_base": "r50k", "p50k_base": "r50k", "p50k_edit": "r50k",
            "cl100k_base": "cl100k", "o200k_base": "o200k", "o200k_harmony": "o200k"}


def test_every_standard_encoding_is_listed_here():
    assert sorted(tokenmill.list_encoding_names()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_standard_encodings_run_on_hand_written_matchers(name):
    assert tokenmill.get_encoding(name).pretokenizer == EXPECTED[name]


def test_pattern_names_resolve_to_the_core_strings():
    assert patterns.resolve_pattern("gpt2") == patterns.R50K_PAT == tokenmill.get_encoding("gpt2").pattern
    assert patterns.resolve_pattern("cl100k") == patterns.CL100K_PAT
    assert patterns.resolve_pattern("O200K_BASE") == patterns.O200K_PAT
    assert patterns.resolve_pattern(r"\w+") == r"\w+"
    for name in patterns.PATTERN_NAMES:
        enc = tokenmill.train_bpe(["ab ab"], 257, pattern=name, progress=False)
        assert enc.pretokenizer != "regex", name


def test_a_custom_pattern_runs_on_a_general_engine():
    enc = tokenmill.Encoding("custom", r"\w+|\s+", {bytes([i]): i for i in range(256)})
    assert enc.pretokenizer == "dfa"
    enc = tokenmill.Encoding("custom", r"(?<=x)\w+|\s+", {bytes([i]): i for i in range(256)})
    assert enc.pretokenizer == "regex"
