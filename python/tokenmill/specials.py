"""Special-token policy shared by every family: what ``allowed_special`` and
``disallowed_special`` mean (tiktoken's rules), and the checks on a ``{text: id}`` table.

* ``allowed_special``: ``"all"`` or a set of texts; names that are not special tokens of the
  tokenizer are ignored (as tiktoken does). Allowed text becomes the special token's id.
* ``disallowed_special``: ``"all"`` (every special token not allowed) or a collection of
  texts whose presence in the text is an error; ``()`` checks nothing.

Each family only picks its defaults (see `tokenmill.tokenizer`). Scanning text for special
tokens is done by the Rust core for `Encoding` and by the string-vocabulary models for theirs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import SpecialTokenError, VocabFormatError

__all__ = ["freeze", "resolve", "check_ids"]


def freeze(value: Any, what: str) -> frozenset | str:
    """`value` as a hashable key: the string itself (``"all"``) or a frozenset of its items.

    >>> freeze({"<|a|>"}, "allowed_special")
    frozenset({'<|a|>'})
    """
    if isinstance(value, (str, frozenset)):
        return value
    try:
        return frozenset(value)
    except TypeError:
        raise SpecialTokenError(f"{what} must be 'all' or a collection of strings, not {type(value).__name__}") from None


def resolve(names: frozenset, allowed_special: Any, disallowed_special: Any) -> tuple[frozenset, frozenset]:
    """``(allowed, disallowed)`` special-token texts for a tokenizer whose specials are `names`.

    >>> resolve(frozenset({"<a>", "<b>"}), {"<a>", "<zz>"}, "all")
    (frozenset({'<a>'}), frozenset({'<b>'}))
    >>> resolve(frozenset({"<a>"}), "none", ())
    Traceback (most recent call last):
    ...
    tokenmill.errors.SpecialTokenError: allowed_special must be 'all' or a set of strings, not the string 'none'
    """
    allowed_k = freeze(allowed_special, "allowed_special")
    disallowed_k = freeze(disallowed_special, "disallowed_special")
    if isinstance(allowed_k, str):
        if allowed_k != "all":
            raise SpecialTokenError(f"allowed_special must be 'all' or a set of strings, not the string {allowed_k!r}")
        allowed = names
    else:
        allowed = allowed_k & names  # tiktoken ignores names that are not special tokens
    if isinstance(disallowed_k, str):
        if disallowed_k != "all":
            raise SpecialTokenError(f"disallowed_special must be 'all' or a collection of strings, not the string {disallowed_k!r}")
        disallowed = names - allowed
    else:
        disallowed = disallowed_k
    for s in disallowed:
        if not isinstance(s, str) or not s:
            raise SpecialTokenError(f"disallowed_special must hold non-empty strings, got {s!r}")
    return allowed, disallowed


def check_ids(special_tokens: Mapping) -> list[tuple[str, int]]:
    """``[(text, id), ...]`` of a special-token table, each entry checked (str -> id < 2**32 - 1).

    >>> check_ids({"<|endoftext|>": 50256})
    [('<|endoftext|>', 50256)]
    """
    out = []
    for tok, i in special_tokens.items():
        if not isinstance(tok, str) or not isinstance(i, int) or isinstance(i, bool):
            raise VocabFormatError(f"special_tokens entry {tok!r}: {i!r} is not str -> int")
        if not 0 <= i < 2**32 - 1:
            raise VocabFormatError(f"special token {tok!r} has id {i}, out of range [0, 2**32 - 1)")
        out.append((tok, i))
    return out
