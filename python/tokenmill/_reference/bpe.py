"""Reference byte-level BPE encoder (tiktoken semantics), in plain Python.

The rule: pre-tokenize with the pattern; a piece that is itself a token is that token
(tiktoken's shortcut, which matters for tokens that merging could never form); otherwise start
from single bytes and repeatedly merge the adjacent pair whose concatenation has the lowest rank
(the leftmost such pair on ties) until no adjacent pair is a token. Special tokens are found leftmost-longest
and only where allowed. This file is the specification; `tokenmill.Encoding` must agree with it
on every input (tests/test_reference.py checks that with hypothesis).

It does not check disallowed specials, repair surrogates or validate anything: it assumes a
well-formed vocabulary and valid input.
"""

from __future__ import annotations

import regex


def bpe_merge(ranks: dict[bytes, int], piece: bytes) -> list[int]:
    """Token ids of one pre-token by repeated lowest-rank merging.

    >>> bpe_merge({b"a": 0, b"b": 1, b"ab": 2}, b"abab")
    [2, 2]
    """
    parts = [bytes([b]) for b in piece]
    while len(parts) > 1:
        best_rank, best_i = None, None
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best_rank is None or rank < best_rank):
                best_rank, best_i = rank, i
        if best_i is None:
            break
        parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]
    return [ranks[p] for p in parts]


class ReferenceEncoding:
    """A slow, obviously-correct byte-level BPE encoder.

    >>> enc = ReferenceEncoding(r"\\w+|\\s+", {bytes([i]): i for i in range(256)} | {b"hi": 256}, {"<s>": 257})
    >>> enc.encode("hi<s>", allowed_special={"<s>"})
    [256, 257]
    """

    def __init__(self, pat_str: str, mergeable_ranks: dict[bytes, int], special_tokens: dict[str, int] | None = None):
        self.pat = regex.compile(pat_str)
        self.ranks = dict(mergeable_ranks)
        self.special = dict(special_tokens or {})
        self.decoder = {r: b for b, r in self.ranks.items()}
        self.decoder.update({i: s.encode("utf-8") for s, i in self.special.items()})

    def encode_ordinary(self, text: str) -> list[int]:
        """Pre-tokenize, then each piece: its own token if it is one, else merged from bytes."""
        ids: list[int] = []
        for piece in self.pat.findall(text):
            if piece:
                data = piece.encode("utf-8")
                whole = self.ranks.get(data)
                ids.extend([whole] if whole is not None else bpe_merge(self.ranks, data))
        return ids

    def encode(self, text: str, allowed_special: set[str] | frozenset[str] = frozenset()) -> list[int]:
        """Encode, turning allowed special tokens (leftmost-longest) into their ids."""
        allowed = sorted(allowed_special, key=len, reverse=True)
        ids: list[int] = []
        start = seg = 0
        while start < len(text) and allowed:
            hit = next((s for s in allowed if text.startswith(s, start)), None)
            if hit is None:
                start += 1
                continue
            ids.extend(self.encode_ordinary(text[seg:start]))
            ids.append(self.special[hit])
            start = seg = start + len(hit)
        ids.extend(self.encode_ordinary(text[seg:]))
        return ids

    def decode_bytes(self, ids: list[int]) -> bytes:
        """Concatenated bytes of the tokens."""
        return b"".join(self.decoder[i] for i in ids)
