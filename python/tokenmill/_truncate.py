"""Cutting a text to a token budget: the longest prefix whose encoding fits.

Encoding a prefix can differ from a prefix of the encoding (the last pre-token may split
differently), so a cut read off the token offsets is only a candidate, checked by counting the
tokens of the prefix again. What this does not do: encode (the caller passes its offsets and a
count function) or validate arguments.
"""

from __future__ import annotations

from typing import Callable, Sequence

from ._args import fix_surrogates, has_surrogates, original_index


def longest_prefix(text: str, max_tokens: int, offsets: Sequence[int], count: Callable[[str], int]) -> str:
    """The longest prefix ``p`` of `text` with ``count(p) <= max_tokens``.

    Args:
        text: The text; it encodes to more than `max_tokens` >= 1 tokens.
        max_tokens: Token budget.
        offsets: Character offset where each token of `text` starts.
        count: Number of tokens of a text.

    Returns:
        The prefix (lone surrogates in `text` are counted as the encoder sees them, U+FFFD).

    >>> longest_prefix("aa bb cc", 2, [0, 3, 6], lambda t: len(t.split()))
    'aa bb '
    """
    original = text
    repaired = fix_surrogates(text) if has_surrogates(text) else text
    text = repaired

    def fits(n_chars: int) -> bool:
        return count(text[:n_chars]) <= max_tokens

    # Candidate: everything before the first token that does not fit. Then grow while a longer
    # prefix still fits (up to the next token boundary), else shrink until it fits.
    cut = offsets[max_tokens]
    hi = offsets[max_tokens + 1] if max_tokens + 1 < len(offsets) else len(text)
    best = None
    for c in range(hi, cut - 1, -1):
        if fits(c):
            best = c
            break
    if best is None:
        c = cut - 1
        while c > 0 and not fits(c):
            c -= 1
        best = max(c, 0)
    if repaired is original:
        return text[:best]
    return original[: original_index(original, best)]
