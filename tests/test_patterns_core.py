"""The known pattern strings come from the Rust core (one copy), and each encoder says which
pre-tokenizer it runs on."""

from __future__ import annotations

import tokenmill
from tokenmill import _core


def test_known_patterns_are_the_standard_encodings_patterns():
    names = [name for name, _ in _core.known_patterns()]
    assert names == ["r50k_base", "cl100k_base", "o200k_base"]
    for name, pattern in _core.known_patterns():
        assert isinstance(pattern, str)
        assert tokenmill.get_encoding(name)._pat_str == pattern


def test_pretokenizer_names_the_engine():
    for family, _ in _core.known_patterns():
        core = tokenmill.get_encoding(family)._core
        assert core.pretokenizer == family.split("_")[0]
        assert core.fast_pretokenizer
    assert tokenmill.get_encoding("gpt2")._core.pretokenizer == "r50k"
    assert tokenmill.get_encoding("p50k_base")._core.pretokenizer == "r50k"
    custom = tokenmill.Encoding("custom", r"\w+|\s+|[^\w\s]+", {bytes([i]): i for i in range(256)}, {})
    assert custom._core.pretokenizer == "dfa"
    assert not custom._core.fast_pretokenizer
