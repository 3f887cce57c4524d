"""The Rust core's error kinds map one-to-one to `tokenmill.errors` classes."""

from __future__ import annotations

import re

import pytest

import tokenmill
from tokenmill import _core
from tokenmill.errors import InputError, InternalError, TokenmillError, VocabFormatError


def test_input_error_is_a_value_error_and_not_a_vocab_error():
    assert issubclass(InputError, TokenmillError) and issubclass(InputError, ValueError)
    assert not issubclass(InputError, VocabFormatError)
    assert issubclass(InternalError, TokenmillError)


def test_unknown_special_name_is_an_input_error():
    core = tokenmill.get_encoding("cl100k_base")._core
    with pytest.raises(InputError, match=re.escape('"<|nope|>" is not a special token')):
        core.special_set(["<|nope|>"])


def test_merge_loop_input_errors():
    tokens = [(i, bytes([i])) for i in range(256)]
    with pytest.raises(InputError, match="already taken"):
        _core.train_merges([([97, 98], 3)], tokens, 1, 1, 97)


def test_malformed_vocabulary_is_still_a_vocab_error():
    with pytest.raises(VocabFormatError, match="single-byte tokens missing"):
        _core.CoreBPE([(b"a", 0)], [], "x")
