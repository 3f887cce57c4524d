"""Tokens in a terminal: the text as coloured tokens under one or more tokenizers, with a
header of counts per tokenizer (``tokenmill show``), and the input checks every viewer shares.

* `render`: one tokenizer's block: a header (name, tokens, characters and bytes per token)
  and the tokens, on alternating ANSI background colours from a fixed palette, or between
  ``|`` separators in plain mode (a pipe, ``NO_COLOR``, ``--no-color``). Whitespace and
  control characters are always visible (``\\n``, ``\\t``, ``\\x1b``): no byte of the text
  reaches the terminal unescaped, so a text cannot move the cursor or change colours.
* `resolve_all`: tokenizer names, paths or objects (a comma-separated string too) to
  ``(label, tokenizer)`` pairs; an unknown name is an error listing the known ones.
* `read_text_file`: a file (gzip-compressed too) or stdin as text with a size limit and a
  clear error for binary data (a NUL byte or invalid UTF-8, with the byte offset).
* `open_input`: a file opened for reading bytes, decompressed when it is gzip (``compare``
  and ``inspect`` read their files through it too).

Tokens come from `tokenmill.viz.tokens.pieces`, so counts agree with ``tok.count``. What it
does not do: write to the terminal (the CLI does) or render HTML (`tokenmill.viz.notebook`).

>>> import tokenmill
>>> print(render(tokenmill.get_encoding("gpt2"), "hi there\\n", label="gpt2"))
== gpt2: 3 tokens, 3.00 chars/token, 3.00 bytes/token ==
|hi| there|\\n|
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from collections.abc import Iterable
from typing import IO, Any, Sequence

from .._progress import human_bytes
from ..errors import InputError
from ..tokenizer import Tokenizer
from .defaults import DEFAULT_TOKENIZER, MAX_BYTES
from .render import BACKGROUNDS
from .tokens import Piece, pieces, resolve, stats, visible

__all__ = ["render", "render_all", "render_tokens", "header", "resolve_all", "read_text_file", "open_input", "decode_text",
           "binary_error", "gzip_error", "use_color", "MAX_BYTES", "DEFAULT_TOKENIZER", "GZIP_ERRORS"]


#: What reading a truncated or corrupt gzip stream raises (zlib.error is no OSError).
GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)
_GZIP_MAGIC = b"\x1f\x8b"

_RESET = "\x1b[0m"
# Black text on the light backgrounds of `viz.render` (the same palette as ``tokenmill demo``);
# special tokens white on purple, bold; partial UTF-8 underlined.
_SPECIAL = "1;97;48;5;91"


def use_color(mode: str = "auto", stream: Any = None) -> bool:
    """Whether to colour output: ``"always"``, ``"never"``, or ``"auto"`` (when `stream`,
    default stdout, is a terminal and the ``NO_COLOR`` environment variable is unset or empty).

    >>> use_color("never"), use_color("always")
    (False, True)
    """
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR"):
        return False
    stream = sys.stdout if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def header(label: str, figures: dict[str, Any]) -> str:
    """The header line of one tokenizer's block.

    Args:
        label: the tokenizer's name.
        figures: `tokenmill.viz.tokens.stats` of the text.

    Returns:
        ``== label: N tokens, C chars/token, B bytes/token ==``; control characters in the
        label (a file name can hold an escape sequence) are shown escaped, like the tokens.

    >>> header("gpt2", {"tokens": 2, "chars": 5, "bytes": 6, "chars_per_token": 2.5, "bytes_per_token": 3.0})
    '== gpt2: 2 tokens, 2.50 chars/token, 3.00 bytes/token =='
    """
    if not label.isprintable():
        label = visible(label.encode("utf-8", "surrogateescape"))
    n = figures["tokens"]
    if not n:
        return f"== {label}: 0 tokens ({figures['chars']} chars) =="
    return (f"== {label}: {n:,} token{'s' if n != 1 else ''}, {figures['chars_per_token']:.2f} chars/token, "
            f"{figures['bytes_per_token']:.2f} bytes/token ==")


def _plain(p: Piece) -> str:
    # `visible` already escapes "\" as "\\", so "\|" can only mean a "|" inside a token.
    return p.shown.replace("|", "\\|")


def render_tokens(ps: Sequence[Piece], color: bool = False) -> str:
    """Tokens as one string: coloured, or between ``|`` separators; a token ending in a line
    break ends the output line (the break itself shows as ``\\n``).

    Args:
        ps: the tokens (`tokenmill.viz.tokens.pieces`).
        color: ANSI background colours instead of separators.

    Returns:
        The rendering, without a final newline; ``(no tokens)`` for none.

    >>> import tokenmill
    >>> from tokenmill.viz.tokens import pieces
    >>> render_tokens(pieces(tokenmill.get_encoding("gpt2"), "a|b"))
    '|a|\\\\||b|'
    """
    if not ps:
        return "(no tokens)"
    out: list[str] = []
    if color:
        for k, p in enumerate(ps):
            style = _SPECIAL if p.special else "30;" + BACKGROUNDS[k % len(BACKGROUNDS)] + (";4" if p.partial else "")
            out.append(f"\x1b[{style}m{p.shown}{_RESET}")
            if p.data.endswith(b"\n"):
                out.append("\n")
        return "".join(out).rstrip("\n")
    line_start = True
    for p in ps:
        out.append(("|" if line_start else "") + _plain(p) + "|")
        line_start = p.data.endswith(b"\n")
        if line_start:
            out.append("\n")
    return "".join(out).rstrip("\n")


def render(tok: Tokenizer, text: str, *, label: str | None = None, color: bool = False, ids: bool = False,
           parse_special: bool = False) -> str:
    """One tokenizer's block: `header`, the tokens (`render_tokens`) and, with `ids`, a line
    of the ids.

    Args:
        tok: the tokenizer.
        text: the text to show.
        label: the name in the header (default: from `tokenmill.viz.tokens.resolve`).
        color: ANSI colours instead of ``|`` separators.
        ids: add a line ``ids: 1 2 3``.
        parse_special: encode special-token text as special tokens.

    Returns:
        The block, without a final newline.

    >>> import tokenmill
    >>> print(render(tokenmill.get_encoding("gpt2"), "998 9988", ids=True))
    == gpt2: 3 tokens, 2.67 chars/token, 2.67 bytes/token ==
    |998| 99|88|
    ids: 34808 7388 3459
    """
    if label is None:
        label = resolve(tok)[0]
    ps = pieces(tok, text, parse_special=parse_special)
    lines = [header(label, stats(text, len(ps))), render_tokens(ps, color)]
    if ids:
        lines.append("ids: " + " ".join(str(p.id) for p in ps))
    return "\n".join(lines)


def _split_specs(specs: Any) -> list[Any]:
    if specs is None:
        return [DEFAULT_TOKENIZER]
    if isinstance(specs, (str, Tokenizer)):
        specs = [specs]
    out: list[Any] = []
    for s in specs:
        if isinstance(s, str) and "," in s and os.path.exists(s):
            out.append(s)  # a file whose name holds a comma
        elif isinstance(s, str):
            out.extend(part.strip() for part in s.split(",") if part.strip())
        else:
            out.append(s)
    if not out:
        raise InputError("no tokenizer given: name at least one (e.g. cl100k_base) or a tokenizer file")
    return out


def resolve_all(specs: Any = None) -> list[tuple[str, Tokenizer]]:
    """Tokenizers to show or compare, each with its display name.

    Args:
        specs: a standard encoding name, a tokenizer file or directory, a tokenizer object, a
            comma-separated string of names or paths, or a list of any of these (default:
            ``cl100k_base``).

    Returns:
        ``[(label, tokenizer), ...]`` in the order given. A name that is neither a standard
        encoding nor an existing path raises `InputError` listing the standard names. Padding
        and truncation set by a Hugging Face file are switched off.

    >>> [label for label, _ in resolve_all("gpt2, cl100k_base")]
    ['gpt2', 'cl100k_base']

    Two different specs never share a label: a file whose short label is already taken (the
    folder ``data/gpt2`` next to the encoding ``gpt2``) is labelled with its path as given.
    """
    specs = _split_specs(specs)
    out = [resolve(s) for s in specs]
    taken: dict[str, set[Any]] = {}
    for spec, (label, _) in zip(specs, out):
        taken.setdefault(label, set()).add(spec if isinstance(spec, str) else id(spec))
    return [(spec if isinstance(spec, str) and len(taken[label]) > 1 and spec != label else label, tok)
            for spec, (label, tok) in zip(specs, out)]


def binary_error(name: str, offset: int, what: str) -> InputError:
    """The error for input that is not text: `what` (``"a NUL byte"``) at byte `offset` of `name`."""
    return InputError(f"{name}: {what} at byte {offset}: this is not text (a binary file?); to read it anyway, "
                      "pass errors='replace' (--errors replace), which turns invalid UTF-8 into U+FFFD")


def decode_text(data: bytes, name: str = "<input>", errors: str = "strict", base: int = 0) -> str:
    """Bytes as text, refusing binary data clearly.

    Args:
        data: the bytes.
        name: the input's name for messages (a file name, ``<stdin>``).
        errors: ``"strict"``: a NUL byte or invalid UTF-8 raises `InputError` naming `name`
            and the byte offset; ``"replace"``: invalid UTF-8 becomes U+FFFD (NUL bytes are
            kept, and shown as ``\\x00``).
        base: the offset of ``data[0]`` in the input, for messages.

    Returns:
        The text.

    >>> decode_text(b"caf\\xc3\\xa9")
    'café'
    >>> decode_text(b"ab\\xff", "x.bin")
    Traceback (most recent call last):
    ...
    tokenmill.errors.InputError: x.bin: invalid UTF-8 (invalid start byte) at byte 2: this is not text (a binary file?); to read it anyway, pass errors='replace' (--errors replace), which turns invalid UTF-8 into U+FFFD
    """
    if errors not in ("strict", "replace"):
        raise InputError(f"errors must be 'strict' or 'replace', not {errors!r}")
    if errors == "strict":
        nul = data.find(b"\0")
        if nul >= 0:
            raise binary_error(name, base + nul, "a NUL byte")
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as e:
        raise binary_error(name, base + e.start, f"invalid UTF-8 ({e.reason})") from None


def _too_big(name: str, size: str, max_bytes: int) -> InputError:
    return InputError(f"{name} is {size}, more than the {human_bytes(max_bytes)} read into memory (max_bytes, --max-bytes); "
                      f"count its tokens with 'tokenmill count {name if name != '<stdin>' else '-'}' "
                      "(streamed, any size) or raise --max-bytes")


def open_input(path: str | os.PathLike[str]) -> io.BufferedIOBase:
    """`path` opened for reading bytes, decompressed when the file starts with gzip's magic
    bytes (whatever its name: a ``.gz`` that is plain text is read as it is).

    Args:
        path: the file.

    Returns:
        A binary file object (close it). Reading a corrupt gzip stream raises one of
        `GZIP_ERRORS` (`gzip_error` words it); opening raises what `open` raises.

    >>> import gzip, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.txt"); _ = open(p, "wb").write(gzip.compress(b"hi"))
    >>> with open_input(p) as f: f.read()
    b'hi'
    """
    f = open(path, "rb")
    try:
        magic = f.peek(2)[:2]  # peek, not read: a pipe cannot be opened again
    except OSError:
        magic = b""
    return _GzipInput(f) if magic == _GZIP_MAGIC else f


class _GzipInput(gzip.GzipFile):
    """A gzip stream over an open file that it closes too (GzipFile leaves a given one open)."""

    def __init__(self, raw: io.BufferedReader):
        super().__init__(fileobj=raw, mode="rb")
        self._raw = raw

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._raw.close()


def gzip_error(name: str, e: BaseException) -> InputError:
    """The error for a gzip file that cannot be decompressed.

    Args:
        name: the file.
        e: what reading it raised (one of `GZIP_ERRORS`).

    Returns:
        An `InputError` naming the file, the cause and how to check the file.

    >>> print(gzip_error("a.gz", EOFError("Compressed file ended before the end-of-stream marker was reached")))
    a.gz: not a readable gzip file (Compressed file ended before the end-of-stream marker was reached): it is truncated or corrupt; check it with 'gzip -t a.gz'
    """
    return InputError(f"{name}: not a readable gzip file ({e}): it is truncated or corrupt; check it with 'gzip -t {name}'")


def _read_bounded(name: str, max_bytes: int) -> bytes:
    try:
        with open_input(name) as f:
            return f.read(max_bytes + 1)  # a special file (a pipe, /dev/zero) reports size 0
    except GZIP_ERRORS as e:
        raise gzip_error(name, e) from None


def read_text_file(path: str | os.PathLike[str], *, errors: str = "strict", max_bytes: int = MAX_BYTES,
                   stdin: IO[bytes] | None = None) -> str:
    """A file (or stdin, as ``"-"``) as text, for viewing; a gzip file is decompressed.

    Args:
        path: the file, or ``"-"`` for stdin.
        errors: as in `decode_text`.
        max_bytes: a larger input raises `InputError` suggesting ``tokenmill count`` (nothing
            more than ``max_bytes + 1`` bytes of text is ever read, so a huge or endless input
            cannot hang the viewer or fill memory).
        stdin: the byte stream read for ``"-"`` (default: ``sys.stdin.buffer``).

    Returns:
        The text.

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.txt"); _ = open(p, "wb").write(b"hi\\n")
    >>> read_text_file(p)
    'hi\\n'
    """
    name = os.fspath(path)
    if name == "-":
        if stdin is None and sys.stdin is None:  # started with stdin closed (<&-)
            raise InputError("stdin is closed: give the text as TEXT or --file FILE")
        f = stdin if stdin is not None else getattr(sys.stdin, "buffer", None)
        if f is None:  # a text stream without a buffer (a test's StringIO)
            data = sys.stdin.read(max_bytes + 1).encode("utf-8", "surrogateescape")
        else:
            data = f.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise _too_big("<stdin>", f"more than {human_bytes(max_bytes)}", max_bytes)
        return decode_text(data, "<stdin>", errors)
    if os.path.isdir(name):
        raise InputError(f"{name} is a directory, not a text file")
    try:
        size = os.path.getsize(name)
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    if size > max_bytes:
        raise _too_big(name, human_bytes(size), max_bytes)
    data = _read_bounded(name, max_bytes)
    if len(data) > max_bytes:
        raise _too_big(name, f"more than {human_bytes(max_bytes)}", max_bytes)
    return decode_text(data, name, errors)


def render_all(tokenizers: Iterable[tuple[str, Tokenizer]], text: str, **options: Any) -> str:
    """`render` for each ``(label, tokenizer)``, blocks separated by a blank line.

    >>> import tokenmill
    >>> print(render_all(resolve_all("gpt2,cl100k_base"), "    x"))
    == gpt2: 4 tokens, 1.25 chars/token, 1.25 bytes/token ==
    | | | | x|
    <BLANKLINE>
    == cl100k_base: 2 tokens, 2.50 chars/token, 2.50 bytes/token ==
    |   | x|
    """
    return "\n\n".join(render(tok, text, label=label, **options) for label, tok in tokenizers)
