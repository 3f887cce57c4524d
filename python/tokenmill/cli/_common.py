"""Shared pieces of the command line: errors, argument parsing, inputs, output.

Every user error is a `CliError`, printed as one line ``tokenmill: error: ...`` with exit
status 2. Inputs are files, stdin (``-``) or a ``--text`` string (`Source`). It runs no
command (see `cli.tokens` and `cli.train`).
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import IO, Sequence

__all__ = ["CliError", "ArgumentParser", "Source", "sources", "write", "write_bytes", "note", "hint_tty_stdin", "preview",
           "positive_int", "STDIN", "CHUNK_SIZE"]

#: Default read size for streaming (bytes).
CHUNK_SIZE = 1 << 20

STDIN = "-"


class CliError(Exception):
    """A user error: printed as ``tokenmill: error: <message>``, exit status 2."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but errors become one-line `CliError`s instead of usage dumps."""

    def error(self, message):  # type: ignore[override]
        raise CliError(f"{message} (see '{self.prog} --help')")


class Source:
    """One input: a file path, stdin (``-``) or a ``--text`` string."""

    def __init__(self, name: str, text: str | None = None):
        self.name = name
        self.text = text

    @property
    def label(self) -> str:
        if self.text is not None:
            return "<text>"
        return "<stdin>" if self.name == STDIN else self.name

    def open(self) -> IO[bytes]:
        if self.name == STDIN:
            stdin = sys.stdin
            buf = getattr(stdin, "buffer", None)
            if buf is not None:
                return buf
            return io.BytesIO(stdin.read().encode("utf-8", "surrogateescape"))
        return open(self.name, "rb")

    def close(self, f: IO[bytes]) -> None:
        if self.name != STDIN:
            f.close()


def sources(args) -> list[Source]:
    files = list(args.files or [])
    text = getattr(args, "text", None)
    if text is not None:
        if files:
            raise CliError("give input FILES or --text, not both")
        return [Source("<text>", text)]
    if not files:
        files = [STDIN]
    if getattr(args, "json", False) and len(files) > 1:
        seen = set()
        for f in files:
            if f in seen:
                raise CliError(f"{f!r} is given twice; with --json each input must be named once")
            seen.add(f)
    return [Source(f) for f in files]


def preview(items: Sequence[str], limit: int = 8) -> str:
    """``a, b, c`` or ``a, b, ... and N more`` for long lists (o200k_harmony has >1000 specials)."""
    if not items:
        return "none"
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f", ... and {len(items) - limit} more"


def _stdout():
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        raise CliError("stdout is closed: redirect the output to a file or a pipe")
    return sys.stdout


def write(s: str) -> None:
    """Writes text to stdout, escaping what its encoding cannot represent."""
    out = _stdout()
    try:
        out.write(s)
    except UnicodeEncodeError:
        enc = getattr(out, "encoding", None) or "utf-8"
        out.write(s.encode(enc, "backslashreplace").decode(enc))


def write_bytes(b: bytes) -> None:
    out = _stdout()
    buf = getattr(out, "buffer", None)
    if buf is None:
        out.write(b.decode("utf-8", "replace"))
        return
    out.flush()
    buf.write(b)
    buf.flush()


def note(args, message: str) -> None:
    """Non-essential message on stderr (suppressed by --quiet)."""
    if not args.quiet:
        print(f"tokenmill: {message}", file=sys.stderr)


def hint_tty_stdin(args, sources: Sequence[Source]) -> None:
    if any(s.name == STDIN and s.text is None for s in sources):
        try:
            tty = sys.stdin.isatty()
        except (AttributeError, ValueError, OSError):
            tty = False
        if tty:
            note(args, "reading from stdin (end with Ctrl-D)")


def positive_int(s: str) -> int:
    """An argparse type: an integer >= 1."""
    return _int_at_least(s, 1)


def non_negative_int(s: str) -> int:
    """An argparse type: an integer >= 0."""
    return _int_at_least(s, 0)


def _int_at_least(s: str, low: int) -> int:
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r} is not an integer") from None
    if v < low:
        raise argparse.ArgumentTypeError(f"must be >= {low}, not {v}")
    return v
