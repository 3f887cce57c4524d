"""Incremental decoding: token ids in one at a time, whole characters out.

Holds back the bytes of a character that is split across tokens, so a streaming UI never shows
U+FFFD in the middle of an emoji. It does not buffer words or lines: text is emitted as soon
as its characters are complete.
"""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from .encoding import Encoding

__all__ = ["StreamDecoder"]


class StreamDecoder:
    """Decodes token ids one at a time, emitting text only when whole characters are complete.

    A character split across tokens (an emoji over 2-4 byte tokens) is held back until its
    last byte arrives, so the stream never shows U+FFFD in the middle of a character.
    Bytes that can never become valid UTF-8 are replaced per `errors` (default ``"replace"``).

    Args:
        encoding: The `Encoding` the ids come from.
        errors: As for `bytes.decode`.

    >>> from tokenmill import get_encoding, StreamDecoder
    >>> enc = get_encoding("cl100k_base")
    >>> d = StreamDecoder(enc)
    >>> "".join(d.push(t) for t in enc.encode("naïve 👍")) + d.flush()
    'naïve 👍'
    """

    __slots__ = ("_enc", "_dec")

    def __init__(self, encoding: "Encoding", errors: str = "replace"):
        self._enc = encoding
        self._dec = codecs.getincrementaldecoder("utf-8")(errors=errors)

    def push(self, token: int) -> str:
        """Adds one id; returns the text completed by it (possibly empty)."""
        return self._dec.decode(self._enc.decode_single_token_bytes(token))

    def push_many(self, tokens: Sequence[int]) -> str:
        """Adds several ids; returns the text they complete."""
        return self._dec.decode(self._enc.decode_bytes(tokens))

    def flush(self) -> str:
        """Ends the stream: returns what is held back (replaced if incomplete) and resets."""
        out = self._dec.decode(b"", final=True)
        self._dec.reset()
        return out

    @property
    def pending(self) -> bytes:
        """Bytes held back because they do not yet form a whole character."""
        return self._dec.getstate()[0]
