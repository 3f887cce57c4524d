"""Pre-tokenizer patterns by name: the OpenAI split regexes, read from the Rust core.

The pattern strings exist once, in ``crates/tokenmill-core/src/pretokenize/patterns.rs``; the
core selects its hand-written matchers by them, so reading them from there (never writing a
second copy here) keeps every standard encoding on the fast path. `resolve_pattern` maps the
names users type (``"cl100k"``, ``"gpt2"``...) to them; any other string is a regex.

It does not compile or run patterns (the core does) or decide where text may be cut (see
`tokenmill.data.chunks`).
"""

from __future__ import annotations

from . import _core

__all__ = ["R50K_PAT", "CL100K_PAT", "O200K_PAT", "KNOWN_PATTERNS", "PATTERN_NAMES", "resolve_pattern"]

#: ``{encoding name: pattern}`` of the patterns with hand-written matchers.
KNOWN_PATTERNS: dict[str, str] = dict(_core.known_patterns())

R50K_PAT = KNOWN_PATTERNS["r50k_base"]
CL100K_PAT = KNOWN_PATTERNS["cl100k_base"]
O200K_PAT = KNOWN_PATTERNS["o200k_base"]

_BY_NAME = {
    "gpt2": R50K_PAT, "r50k": R50K_PAT, "r50k_base": R50K_PAT, "p50k_base": R50K_PAT,
    "cl100k": CL100K_PAT, "cl100k_base": CL100K_PAT,
    "o200k": O200K_PAT, "o200k_base": O200K_PAT,
}

#: Names accepted for a pattern, besides any regex.
PATTERN_NAMES = tuple(_BY_NAME)


def resolve_pattern(pattern: str) -> str:
    """The regex for a pattern name (gpt2/r50k, cl100k, o200k); any other string is a regex.

    Args:
        pattern: A name from `PATTERN_NAMES` (any case) or a regex.

    Returns:
        The regex.

    >>> resolve_pattern("cl100k") == resolve_pattern("CL100K_BASE") == CL100K_PAT
    True
    """
    if not isinstance(pattern, str) or not pattern:
        raise TypeError(f"pattern must be a pattern name ({', '.join(PATTERN_NAMES)}) or a regex string, not {pattern!r}")
    return _BY_NAME.get(pattern.lower(), pattern)
