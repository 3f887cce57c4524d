"""Runs the `>>>` examples in the installed package's docstrings."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import tokenmill

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(tokenmill.__path__, "tokenmill.") if not m.name.endswith("._core")
)


@pytest.mark.parametrize("name", ["tokenmill"] + MODULES)
def test_doctests(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
