"""Shared fixtures for the tokenmill test suite.

* ``tm(name)`` / ``tk(name)``: tokenmill / tiktoken encodings by name (tiktoken is loaded
  offline through ``peers.tiktoken_encoding``; it never touches the network).
* ``hyp_examples(n)``: hypothesis ``max_examples`` scaled by ``TOKENMILL_HYPOTHESIS_EXAMPLES``.
  By default each property test uses its own moderate count; setting the variable to an integer
  N runs every property test with ``max(default, N)`` examples (nightly runs use 1,000-10,000).
* ``TOKENMILL_ADVERSARIAL_BIG=1`` enables the 4,000,000-character adversarial cases.

Missing ``../shared/data`` is a hard failure (``peers.shared_data()`` raises), never a skip.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import peers  # noqa: E402

try:  # hypothesis is a test dependency; configure a profile without an on-disk database
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "tokenmill",
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
        print_blob=True,
    )
    settings.load_profile("tokenmill")
except ImportError:  # pragma: no cover - hypothesis is required, tests importing it will fail
    pass

ENCODING_NAMES = ["gpt2", "r50k_base", "p50k_base", "p50k_edit", "cl100k_base", "o200k_base", "o200k_harmony"]
# One encoding per distinct pre-tokenizer pattern (the r50k family shares one pattern).
PATTERN_ENCODINGS = ["r50k_base", "cl100k_base", "o200k_base"]

BIG = os.environ.get("TOKENMILL_ADVERSARIAL_BIG", "") not in ("", "0")


def hyp_examples(default: int) -> int:
    """``max_examples`` for a property test: `default`, or more via TOKENMILL_HYPOTHESIS_EXAMPLES."""
    env = os.environ.get("TOKENMILL_HYPOTHESIS_EXAMPLES")
    if env:
        try:
            return max(default, int(env))
        except ValueError:
            raise RuntimeError(f"TOKENMILL_HYPOTHESIS_EXAMPLES must be an integer, got {env!r}") from None
    return default


@functools.lru_cache(maxsize=None)
def tm_encoding(name: str):
    import tokenmill

    return tokenmill.get_encoding(name)


@functools.lru_cache(maxsize=None)
def tk_encoding(name: str):
    return peers.tiktoken_encoding(name)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data (fails, never skips, when missing)."""
    return peers.shared_data()


@pytest.fixture(scope="session")
def tm():
    """Factory: ``tm("cl100k_base")`` -> the shared tokenmill Encoding."""
    return tm_encoding


@pytest.fixture(scope="session")
def tk():
    """Factory: ``tk("cl100k_base")`` -> tiktoken's Encoding, loaded offline."""
    return tk_encoding


@pytest.fixture(scope="session")
def corpus() -> dict:
    """{relative name: text} of the shared corpus (the-verdict + corpus/)."""
    return peers.corpus_texts()


@pytest.fixture(scope="session", autouse=True)
def _tiktoken_offline():
    """Every test runs with tiktoken's cache pre-filled from ../shared/data, so no tiktoken call
    (get_encoding, load_tiktoken_bpe, data_gym_to_mergeable_bpe_ranks) can reach the network."""
    peers.prefill_tiktoken_cache()
    yield
