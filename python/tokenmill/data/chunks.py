"""Where text may be cut into chunks that encode or pre-tokenize exactly like the whole.

* `safe_cut` / `iter_cut_points`: points where cutting provably changes no pre-token for the
  r50k/p50k, cl100k and o200k patterns (see `safe_cut` for the two rules and why they hold).
* `cuttable(pattern, specials)` / `cuttable_by(pretokenizer, specials)`: whether those points
  are safe for a pattern (or a tokenizer's pre-tokenizer) and its special tokens.
* ``line`` cuts for any other pattern: right after a line break (the comment under the imports).
* `read_text`: a byte stream decoded as UTF-8 and yielded in pieces cut only at such points
  (the CLI's streaming encoder and the corpus reader use it); invalid UTF-8 raises
  `InvalidUtf8` with the absolute byte offset.

It does not open files (see `tokenmill.data.sources`) or pre-tokenize (the Rust core does).
"""

from __future__ import annotations

import codecs
from typing import Callable, Iterable, Iterator

from .. import _core
from ..patterns import KNOWN_PATTERNS

__all__ = ["safe_cut", "iter_cut_points", "cuttable", "cuttable_by", "split_text", "read_text", "InvalidUtf8", "utf8_size"]

# The cut rules live in the Rust core (crates/tokenmill-core/src/pretokenize/cuts.rs), on the
# pre-tokenizer's own letter and whitespace classes; the parallel encoder uses the same code.
# ``line`` mode, for patterns `safe_cut` was not checked for: rule A alone, else right after
# the last "\n". The fallback can split a whitespace run with a line break ("\n\n", GPT-2's
# "\n  "), so it is used only in a block with no rule A point (indented text: code,
# verse-numbered text like kjv.txt). Measured with 3 kB chunks on the Debian handbooks, kjv
# and botchan (10 MB): 1,905 of 2.4M r50k pre-tokens changed, 3 for cl100k and o200k, about
# one per fallback cut; with 8 MB chunks that is one per 8 MB at most. Cutting after any
# "\n" first changed many more; preferring "X\n" before any non-space as a middle tier was
# tried and dropped (1,868 and 2-4: no real gain). The core reads the text in windows and
# treats a lone surrogate as U+FFFD (neither a letter nor whitespace), so any str is accepted.
def cuttable(pattern: str, specials: Iterable[str]) -> bool:
    r"""True when `safe_cut`'s points are safe for `pattern` with these special tokens: a
    known OpenAI pattern, and no special token holding whitespace (one could span a point).

    >>> from tokenmill.patterns import CL100K_PAT
    >>> cuttable(CL100K_PAT, ["<|endoftext|>"]), cuttable(CL100K_PAT, ["<| end |>"]), cuttable(r"\w+", [])
    (True, False, False)
    """
    return pattern in KNOWN_PATTERNS.values() and not any(any(c.isspace() for c in s) for s in specials)


def cuttable_by(pretokenizer: str, specials: Iterable[str]) -> bool:
    """`cuttable` for a tokenizer that reports its pre-tokenizer (``Tokenizer.pretokenizer``).

    >>> cuttable_by("o200k", ["<|endoftext|>"]), cuttable_by("regex", [])
    (True, False)
    """
    return pretokenizer in _HAND_WRITTEN and not any(any(c.isspace() for c in s) for s in specials)


_HAND_WRITTEN = frozenset({"r50k", "cl100k", "o200k"})


def safe_cut(text: str, start: int = 0) -> int:
    """The largest index ``i`` (``start <= i < len(text)``, ``i > 0``) where `text` may be cut.

    Cutting at ``i`` is safe when encoding ``text[:i]`` and ``text[i:]`` separately and
    concatenating gives exactly the ids of encoding `text`, for the r50k/p50k, cl100k and
    o200k patterns, with or without special tokens. Two kinds of points qualify:

    * **B**: ``text[i-1]`` is an ASCII letter and ``text[i]`` is one of ``" \\t\\r\\n"``.
      Every pattern puts an ASCII letter only in a letter run (or an ``'s``-style
      contraction) that stops at whitespace, so a pre-token ends at ``i``; and the pre-tokens
      before ``i`` are unchanged when the text ends there, because the only constructs that
      look past a match (``\\s++$`` and ``\\s+(?!\\S)``) apply to whitespace runs, and no
      whitespace run ends at ``i``.
    * **A**: ``text[i-1] == "\\n"``, ``text[i-2]`` is not whitespace and ``text[i]`` is a
      letter. No pattern joins a newline with a following letter (o200k's ``[\\r\\n/]*`` stops
      at it), so a pre-token ends at ``i``; the ``"\\n"`` is a pre-token of its own or ends a
      punctuation pre-token, identically whether or not the text ends there. (Without the
      condition on ``text[i-2]`` this fails for r50k: ``"a  \\nb"`` splits as
      ``"  ", "\\n"`` but ``"a  \\n"`` as ``"  \\n"``.)

    Special tokens of the standard encodings contain no whitespace, so no special token
    spans a cut point. The rule is checked by tests (cutting at every such point of every
    corpus file and of random whitespace-heavy text gives the same pre-tokens and ids as
    not cutting), against tokenmill's matchers and the ``regex`` module.

    Args:
        text: The text.
        start: Only points ``>= start`` are considered (characters before `start` are still
            looked at as context).

    Returns:
        The index, or -1 when there is none.

    >>> safe_cut("hello world")
    5
    >>> safe_cut("line one.\\nLine two")
    14
    >>> safe_cut("   \\n\\n  ")
    -1
    """
    return _core.last_cut(text, start, len(text), "safe")


def iter_cut_points(text: str, start: int = 0, end: int | None = None) -> Iterator[int]:
    """Every index ``i`` with ``start <= i < end`` where `safe_cut` may cut `text`, ascending.

    Characters outside ``[start, end)`` are not looked at, except the two before `start`.

    >>> list(iter_cut_points("one two\\nThree"))
    [3, 7, 8]
    """
    end = len(text) if end is None else min(end, len(text))
    # Lazily, in growing windows: the first points of a long text cost little. A point
    # depends only on the two characters before it and itself, so windows change nothing.
    window = 4096
    while start < end:
        hi = min(end, start + window)
        yield from _core.cut_points(text, start, hi)
        start, window = hi, min(window * 2, 1 << 22)


def split_text(text: str, size: int, cut: str) -> Iterator[str]:
    """`text` in pieces of at most `size` characters where cut points allow, else longer."""
    n = len(text)
    pos = 0
    while n - pos > size:
        i = _core.last_cut(text, pos + 1, pos + size + 1, cut)
        if i < 0:  # no point within `size`: the piece runs to the next point, if any
            i = _core.next_cut(text, pos + size + 1, cut)
            if i < 0:
                break
        yield text[pos:i]
        pos = i
    yield text[pos:] if pos else text


class InvalidUtf8(Exception):
    """Raised by `read_text`; each caller words the message for its users (API or CLI)."""

    def __init__(self, offset: int, reason: str, bad: bytes):
        super().__init__(offset, reason, bad)
        self.offset = offset
        self.reason = reason
        self.bad = bad


def utf8_size(s: str) -> int:
    """The UTF-8 length of `s`, which holds no lone surrogate (``isascii`` is O(1))."""
    return len(s) if s.isascii() else len(s.encode("utf-8"))


def read_text(read: Callable[[int], bytes], errors: str, block_size: int, cut: str | None) -> Iterator[tuple[str, int]]:
    """The UTF-8 text returned by `read` in pieces cut only at `cut` points (never if None).

    Reads `block_size` bytes at a time and yields at most one piece per block: everything up
    to the block's last cut point, with its UTF-8 length. Invalid UTF-8 raises `InvalidUtf8`
    with the absolute byte offset (``errors="strict"``) or becomes U+FFFD (``errors="replace"``).
    """
    base = 0  # absolute byte offset of `carry`
    # UTF-8 bytes of the text decoded and yielded so far. In strict mode the decoded text is
    # exactly the consumed bytes, so a piece's length costs no re-encoding (only of the short
    # rest after its cut point); U+FFFD substitutions change the length, so replace re-encodes.
    decoded = sent = 0
    carry = b""
    parts: list[str] = []  # decoded text not yet yielded (no cut point in it so far)
    tail = ""  # last 2 characters of `parts`, context for the cut rule
    data = read(block_size)
    while True:
        # Read one block ahead: an input that fits in one block is one piece, and `final`
        # is known while decoding the last block.
        nxt = read(block_size) if data else b""
        final = not nxt
        buf = carry + data if carry else data
        try:
            text, consumed = codecs.utf_8_decode(buf, errors, final)
        except UnicodeDecodeError as e:
            raise InvalidUtf8(base + e.start, e.reason, buf[e.start : e.end]) from None
        carry = buf[consumed:]
        base += consumed
        decoded += consumed if errors == "strict" else utf8_size(text)
        data = nxt
        if final:
            if parts or text:
                yield "".join(parts) + text, decoded - sent
            return
        if not text:
            continue
        if cut is None:
            parts.append(text)
            continue
        ctx = tail + text
        i = _core.last_cut(ctx, len(tail), len(ctx), cut)
        tail = ctx[-2:]
        if i < 0:
            parts.append(text)
            continue
        i -= len(ctx) - len(text)  # index into `text`
        parts.append(text[:i])
        rest = text[i:]
        n = decoded - sent - utf8_size(rest)
        yield "".join(parts), n
        sent += n
        parts = [rest]
