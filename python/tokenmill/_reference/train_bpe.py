"""Reference BPE trainer (minbpe-style), in plain Python: the specification of `train_bpe`.

The rule, one merge at a time:

1. Count every adjacent pair of symbols over all words, each word weighted by its count
   (overlapping pairs count separately: ``a a a`` holds ``(a, a)`` twice).
2. Take the pair with the highest count; on a tie, the smallest ``(left id, right id)``.
   Stop when no pair is left or the best count is below `min_frequency`.
3. Its token is the concatenation of the two symbols' bytes. If those bytes are already a
   token (two different pairs can spell the same bytes: ``a+bc`` and ``ab+c``), the pair
   merges into that existing id and no new token is made; otherwise the token gets the next
   free id.
4. Replace the pair in every word, left to right, without overlaps (``a a a`` becomes
   ``aa a``).

Training stops when `n_new` new tokens have been made. The Rust trainer must give exactly
the same merges on every input (tests/test_train.py checks it with hypothesis). This module
does not read files, split special tokens or report progress.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

import regex

__all__ = ["train_merges", "merge_word", "train_bpe_reference", "count_words"]


def merge_word(ids: tuple[int, ...], a: int, b: int, new: int) -> tuple[int, ...]:
    """`ids` with every ``(a, b)`` replaced by `new`, left to right, without overlaps.

    >>> merge_word((1, 1, 1), 1, 1, 9)
    (9, 1)
    """
    out: list[int] = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == a and ids[i + 1] == b:
            out.append(new)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return tuple(out)


def train_merges(
    words: dict[tuple[int, ...], int],
    token_bytes: dict[int, bytes],
    n_new: int,
    min_frequency: int = 1,
    next_id: int | None = None,
) -> tuple[list[tuple[int, int, int]], dict[tuple[int, ...], int]]:
    """Learns merges on weighted words of symbol ids.

    Args:
        words: ``{symbol ids: count}``.
        token_bytes: Bytes of every existing token id (grown in place with new tokens).
        n_new: How many new tokens to make.
        min_frequency: A pair merges only if it occurs at least this often.
        next_id: First id for new tokens (default: one past the largest existing id).

    Returns:
        ``([(left, right, id), ...] in merge order, the words after the last merge)``.

    >>> tb = {i: bytes([i]) for i in range(256)}
    >>> train_merges({(97, 98, 97, 98): 3, (97, 98): 1}, tb, 2)[0]
    [(97, 98, 256), (256, 256, 257)]
    """
    by_bytes = {b: i for i, b in token_bytes.items()}
    next_id = max(token_bytes) + 1 if next_id is None else next_id
    merges: list[tuple[int, int, int]] = []
    made = 0
    while made < n_new:
        stats: Counter = Counter()
        for w, c in words.items():
            for pair in zip(w, w[1:]):
                stats[pair] += c
        if not stats:
            break
        (a, b), count = max(stats.items(), key=lambda kv: (kv[1], -kv[0][0], -kv[0][1]))
        if count < max(min_frequency, 1):
            break
        joined = token_bytes[a] + token_bytes[b]
        new = by_bytes.get(joined)
        if new is None:
            new, next_id, made = next_id, next_id + 1, made + 1
            token_bytes[new] = joined
            by_bytes[joined] = new
        merges.append((a, b, new))
        merged: Counter = Counter()
        for w, c in words.items():
            merged[merge_word(w, a, b, new)] += c
        words = dict(merged)
    return merges, words


def count_words(texts: Iterable[str], pattern: str, special_tokens: Iterable[str] = ()) -> Counter:
    """``{pre-token bytes: count}`` over `texts`, with special tokens cut out first.

    >>> count_words(["hi hi"], r" ?\\w+")
    Counter({b'hi': 1, b' hi': 1})
    """
    pat = regex.compile(pattern)
    specials = sorted(special_tokens, key=len, reverse=True)
    split = regex.compile("|".join(regex.escape(s) for s in specials)) if specials else None
    counts: Counter = Counter()
    for text in texts:
        for seg in split.split(text) if split else [text]:
            for m in pat.finditer(seg):  # not findall: with groups it returns the groups
                if m.group(0):
                    counts[m.group(0).encode("utf-8")] += 1
    return counts


def train_bpe_reference(
    texts: Iterable[str], n_merges_tokens: int, pattern: str, special_tokens: Iterable[str] = (), min_frequency: int = 1
) -> dict[bytes, int]:
    """Mergeable ranks of a byte-level BPE trained from scratch with `n_merges_tokens` new tokens.

    >>> ranks = train_bpe_reference(["ab ab ab"], 1, r" ?\\w+")
    >>> ranks[b"ab"]
    256
    """
    counts = count_words(texts, pattern, special_tokens)
    token_bytes = {i: bytes([i]) for i in range(256)}
    words = {tuple(w): c for w, c in counts.items()}
    train_merges(words, token_bytes, n_merges_tokens, min_frequency)
    return {b: i for i, b in token_bytes.items()}
