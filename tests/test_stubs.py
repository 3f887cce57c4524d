"""The `_core.pyi` stubs match the compiled module (mypy.stubtest), when mypy is installed."""

from __future__ import annotations

import subprocess
import sys


def test_stubtest_core():
    try:
        import mypy.stubtest  # noqa: F401
    except ImportError:
        import pytest

        pytest.fail("mypy is a test dependency (pip install '.[test]') and is needed for stub checks")
    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", "tokenmill._core"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
