"""Corpus inputs: which files, in which format, opened how.

* `probe`: checks a path (exists, not a directory) and guesses its format from the name:
  plain text, JSON lines (``.jsonl``, ``.ndjson``), parquet (``.parquet``), each optionally
  gzipped (``.gz``, or gzip magic bytes); ``format=`` overrides the guess.
* `parquet_rows`: the opener the Rust reader (``tokenmill_core::data::reader``) calls for a
  parquet file: its text column in batches of rows, as buffers (no Python string per row).
* Small helpers: telling a path from a text, UTF-8 lengths with lone surrogates handled (for
  texts given as ``str``), names listed in messages.

It does not open, decode or cut files (the Rust reader does, for `tokenmill.data.corpus` and
`tokenmill.data.prepare`) or iterate documents (see `tokenmill.data.corpus`).
"""

from __future__ import annotations

import os
import re
import stat
from typing import Any, Callable

from ..errors import CorpusError, CorpusFileNotFoundError

__all__ = ["File", "probe", "FORMATS", "REPLACE_HINT", "plausible_path", "looks_like_path", "parquet_module",
           "parquet_rows", "utf8_len",
           "surrogate_reason", "preview"]

FORMATS = ("text", "jsonl", "parquet")
_PATH_SUFFIXES = (".txt", ".gz", ".jsonl", ".ndjson", ".parquet")
_MAX_PATH = 4096
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
REPLACE_HINT = 'pass errors="replace" to substitute U+FFFD'


class File:
    """One input file: path, format (text, jsonl, parquet), gzip by name, size on disk."""

    __slots__ = ("path", "format", "gz", "size")

    def __init__(self, path: str, format: str, gz: bool, size: int):
        self.path = path
        self.format = format
        self.gz = gz
        self.size = size


def _format_of(path: str, override: str | None) -> tuple[str, bool]:
    """(format, gzip) from the file name, or `override`."""
    name = path.lower()
    gz = name.endswith(".gz")
    stem = name[:-3] if gz else name
    if override is not None:
        fmt = override
    elif stem.endswith((".jsonl", ".ndjson")):
        fmt = "jsonl"
    elif stem.endswith(".parquet"):
        fmt = "parquet"
    else:
        fmt = "text"
    if fmt == "parquet" and gz:
        raise CorpusError("a gzipped parquet file cannot be read; parquet compresses internally, pass the .parquet file", path)
    return fmt, gz


def probe(p: object, index: int | None, override: str | None) -> File:
    """Checks one path (exists, not a directory) and reads its size and format."""
    if not isinstance(p, (str, os.PathLike)):
        raise TypeError(
            f"corpus item {index} is a {type(p).__name__}, not a path: a list whose first item is a path "
            "is a list of paths (to train on texts, pass an iterator of str: iter(texts))"
        )
    path = os.fsdecode(os.fspath(p))
    try:
        st = os.stat(path)
    except FileNotFoundError:
        hint = "" if index is None else " (a list whose first item is a path or a file name is a list of paths; to train on texts, pass an iterator of str: iter(texts))"
        raise CorpusFileNotFoundError("no such file" + hint, path) from None
    if stat.S_ISDIR(st.st_mode):
        raise CorpusError(
            "is a directory; pass the files in it, e.g. "
            f"sorted(glob.glob(os.path.join({path!r}, '**', '*.txt'), recursive=True))",
            path,
        )
    fmt, gz = _format_of(path, override)
    if fmt == "parquet":
        parquet_module(path)
    return File(path, fmt, gz, st.st_size)


def plausible_path(s: str) -> bool:
    return 0 < len(s) <= _MAX_PATH and "\n" not in s and "\0" not in s


def looks_like_path(s: str) -> bool:
    """True for a str that names a file or directory, or ends like a corpus file name."""
    return plausible_path(s) and (s.lower().endswith(_PATH_SUFFIXES) or os.path.exists(s))


def parquet_module(path: str) -> Any:
    try:
        import pyarrow.parquet as pq  # type: ignore
    except ImportError:
        raise CorpusError("reading parquet needs pyarrow: pip install pyarrow", path) from None
    return pq


def utf8_len(s: str, errors: str) -> tuple[str, int]:
    """(s, its UTF-8 length); lone surrogates raise UnicodeEncodeError or become U+FFFD."""
    if s.isascii():
        return s, len(s)
    try:
        return s, len(s.encode("utf-8"))
    except UnicodeEncodeError:
        if errors != "replace":
            raise
        s = _SURROGATE_RE.sub("\ufffd", s)
        return s, len(s.encode("utf-8"))


def surrogate_reason(s: str, e: UnicodeEncodeError) -> str:
    return f"text has a lone surrogate U+{ord(s[e.start]):04X} at character {e.start}, which is not valid Unicode; {REPLACE_HINT}"


def preview(names: list[str], limit: int = 10) -> str:
    shown = ", ".join(map(str, names[:limit]))
    return (shown + f", ... and {len(names) - limit} more" if len(names) > limit else shown) or "none"


def parquet_rows(text_field: str) -> Callable[[str, int], Any]:
    """The reader's opener for parquet files: `open_rows(path, start_row)` yields, per batch of
    rows of the `text_field` column, Arrow's buffers ``(data, offsets, width, offset, rows,
    validity)`` (objects with the buffer protocol, read in place by the core): the strings'
    bytes, their offsets (`width` 4 or 8 bytes each, from element `offset`), and the validity
    bitmap (from bit `offset`) or None without nulls."""

    def open_rows(path: str, start: int) -> Any:
        import pyarrow as pa  # type: ignore

        pq = parquet_module(path)
        try:
            # Streamed: no pre-buffering of whole column chunks, one reader thread.
            f = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)
        except Exception as e:  # pyarrow's errors are not one class
            raise CorpusError(f"not a readable parquet file ({e})", path) from None
        schema = f.schema_arrow
        if text_field not in schema.names:
            raise CorpusError(
                f"has no column {text_field!r} (columns: {preview(schema.names)}); pass text_field=... to read another column", path
            )
        typ = schema.field(text_field).type
        string_view = getattr(pa.types, "is_string_view", lambda t: False)
        if not (pa.types.is_string(typ) or pa.types.is_large_string(typ) or string_view(typ)):
            raise CorpusError(f"column {text_field!r} has type {typ}, not string", path)
        return _batches(pa, f, path, text_field, start)

    return open_rows


def _batches(pa: Any, f: Any, path: str, field: str, skip: int) -> Any:
    # Arrow's buffers, read in place by the core, which cuts them into blocks.
    # Start at the row group that holds row `skip` (a resumed run, or a work unit's range of
    # row groups): the groups before it are not decoded.
    md, first, row = f.metadata, 0, skip
    while first < md.num_row_groups and md.row_group(first).num_rows <= skip:
        skip -= md.row_group(first).num_rows
        first += 1
    if first >= md.num_row_groups:
        return
    batches = f.iter_batches(batch_size=8192, row_groups=list(range(first, md.num_row_groups)), columns=[field],
                             use_threads=False)
    while True:
        try:
            b = next(batches, None)
        except Exception as e:  # pyarrow's errors are not one class
            raise CorpusError(f"cannot read parquet data near row {row} ({e})", path) from None
        if b is None:
            return
        col = b.column(0)
        if skip:
            if skip >= len(col):
                skip -= len(col)
                continue
            col, skip = col.slice(skip), 0
        row += len(col)
        if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
            col = col.cast(pa.large_string())  # string views: offsets are what the reader takes
        valid, offsets, data = col.buffers()
        width = 4 if pa.types.is_string(col.type) else 8
        yield (b"" if data is None else _unsigned(data), _unsigned(offsets), width, col.offset, len(col),
               _unsigned(valid) if col.null_count else None)


def _unsigned(buf: Any) -> memoryview:
    # Arrow's buffer itself, read in place by the core: Arrow exports signed bytes ("b"), the
    # view says unsigned ("B"), which is what the core takes.
    return memoryview(buf).cast("B")
