"""Streaming corpus reader for tokenizer training: files or texts in, text chunks out.

`Corpus.from_arg` takes what ``train(corpus, ...)`` takes: a path, a list of paths, or any
iterable of ``str`` documents. `Corpus.documents` yields the text in chunks and
`Corpus.batches` in lists of chunks, for the trainer to pre-tokenize and count.

What it does:

* Reads plain text (any file name), JSON lines (``.jsonl``, ``.ndjson``: one document per
  line, the string in `text_field`), parquet (``.parquet``: one document per row of the
  `text_field` column, via pyarrow), each optionally gzipped (``.gz``, or gzip magic bytes).
  ``format=`` overrides the guess from the name for every file.
* Streams: files are read in blocks, so memory is O(`chunk_size`) plus one document, never
  O(corpus). Counting pre-tokens is the trainer's job; memory then grows with the number of
  distinct pre-tokens only.
* Cuts big texts (plain-text files, and documents longer than `chunk_size`) into chunks for
  the trainer to pre-tokenize one by one. With ``cuttable=True`` (the r50k/p50k, cl100k and
  o200k patterns) only at `safe_cut`'s points, so the pre-tokens are exactly the whole text's.
  With ``cuttable=False`` (a custom pattern) only right after a line break: one that follows
  a non-space character and precedes a letter (rule A of `safe_cut`) when the block has one,
  else the block's last line break. So a pre-token is split at a chunk boundary only if it
  spans a line break (GPT-2-style patterns make such pre-tokens of whitespace runs like
  ``"\\n\\n  "``, o200k-style ones also of punctuation before line breaks), and only the
  fallback cut can split those: about one pre-token per chunk, in text without rule A points
  (measurements in a comment below). A text without line breaks
  stays one chunk, however big, as does a text without `safe_cut` points (only whitespace,
  say) with ``cuttable=True``.
* Reports progress: `Corpus.total_bytes` (known when every input is a file) and
  `Corpus.bytes_read` in bytes on disk (compressed bytes for gzip files), plus
  `Corpus.text_bytes` (UTF-8 bytes of text yielded) and `Corpus.n_documents`.
* Raises `CorpusError` naming the file and byte offset of invalid UTF-8 (``errors="replace"``
  substitutes U+FFFD instead), ``file:line`` of a bad JSON line, and the file of a corrupt gzip
  stream. A missing file is a `CorpusFileNotFoundError`, which is both a `CorpusError` and a
  `FileNotFoundError`. All paths are checked by `Corpus.from_arg`, before any reading.

What it does not do: pre-tokenize, count, shuffle, deduplicate, normalize or filter text;
read directories or glob patterns (pass the files); read ``.json`` (one JSON document), CSV or
nested JSON fields; raise on an empty corpus (the trainer checks `Corpus.text_bytes`).

Decisions:

* A list or tuple is a list of paths when its first item is an ``os.PathLike``, or a ``str``
  that names an existing file or directory or looks like a corpus file name (one line, ending in
  ``.txt``, ``.gz``, ``.jsonl``, ``.ndjson`` or ``.parquet``); every item must then be an existing
  file. Otherwise it is a list of documents. Texts that look like file names can be passed as an
  iterator, ``iter(texts)``: any iterable that is not a list or tuple holds documents.
* Empty documents are counted in `Corpus.n_documents` but not yielded; a document is never
  joined with another one (batches hold several, as separate strings).
* Documents from iterables and JSON may hold lone surrogates (``"\\ud800"``); they are an error
  like invalid UTF-8 (``errors="replace"`` substitutes U+FFFD), so the trainer only sees text
  that is valid UTF-8.

>>> corpus = Corpus.from_arg(["one document", "another"])
>>> list(corpus.documents())
['one document', 'another']
>>> corpus.n_documents, corpus.text_bytes
(2, 19)
"""

from __future__ import annotations

import codecs
import errno
import gzip
import json
import os
import re
import stat
import zlib
from typing import Any, Callable, Iterable, Iterator

from .errors import CorpusError

__all__ = ["Corpus", "CorpusFileNotFoundError", "safe_cut", "iter_cut_points"]

# Rule B: an ASCII letter followed by " ", "\t", "\r" or "\n" (cut before the whitespace).
# Rule A: a non-whitespace character, then "\n", then a letter (cut before the letter).
_CUT_RE = re.compile(r"(?<=[A-Za-z])[ \t\r\n]|(?<=\S\n)(?=[^\W\d_])")
# Line-break points for patterns `safe_cut` was not checked for: rule A alone, else right
# after the last "\n". The fallback can split a whitespace run with a line break ("\n\n",
# GPT-2's "\n  "), so it is used only in a block with no rule A point (indented text: code,
# verse-numbered text like kjv.txt). Measured with 3 kB chunks on the Debian handbooks, kjv
# and botchan (10 MB): 1,905 of 2.4M r50k pre-tokens changed, 3 for cl100k and o200k, about
# one per fallback cut; with 8 MB chunks that is one per 8 MB at most. Cutting after any
# "\n" first changed many more; preferring "X\n" before any non-space as a middle tier was
# tried and dropped (1,868 and 2-4: no real gain).
_LINE_CUT_RE = re.compile(r"(?<=\S\n)(?=[^\W\d_])")

_FORMATS = ("text", "jsonl", "parquet")
_GZIP_MAGIC = b"\x1f\x8b"
_PATH_SUFFIXES = (".txt", ".gz", ".jsonl", ".ndjson", ".parquet")
_MAX_PATH = 4096
_LINE_BLOCK = 1 << 20  # read size for JSON lines (documents are cut to chunk_size after parsing)
_PARQUET_ROWS = 4096  # rows per record batch
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_REPLACE_HINT = 'pass errors="replace" to substitute U+FFFD'


class CorpusFileNotFoundError(CorpusError, FileNotFoundError):
    """A corpus file does not exist: a `CorpusError` that is also a `FileNotFoundError`.

    Attributes: those of `CorpusError`, plus ``filename`` and ``errno`` (ENOENT).
    """

    def __init__(self, reason: str, path: str | None = None, line: int | None = None, offset: int | None = None):
        super().__init__(reason, path, line, offset)
        self.errno = errno.ENOENT
        self.strerror = reason
        self.filename = self.path

    def __str__(self) -> str:  # OSError would print "[Errno 2] ..."
        return Exception.__str__(self)


# ----------------------------------------------------------------------------- cutting
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
    return _last_point(iter_cut_points, text, start, len(text))


def iter_cut_points(text: str, start: int = 0, end: int | None = None) -> Iterator[int]:
    """Every index ``i`` with ``start <= i < end`` where `safe_cut` may cut `text`, ascending.

    Characters outside ``[start, end)`` are not looked at, except the two before `start`.

    >>> list(iter_cut_points("one two\\nThree"))
    [3, 7, 8]
    """
    end = len(text) if end is None else end
    for m in _CUT_RE.finditer(text, start, end):
        i = m.start()
        if i > 0 and (text[i - 1] != "\n" or text[i].isalpha()):
            yield i


def _rule_a_points(text: str, start: int, end: int) -> Iterator[int]:
    for m in _LINE_CUT_RE.finditer(text, start, end):
        i = m.start()
        if text[i].isalpha():
            yield i


def _last_point(points: Callable[[str, int, int], Iterator[int]], text: str, lo: int, hi: int) -> int:
    """The largest of `points` in ``[lo, hi)``, or -1; scans backwards in growing windows."""
    window = 4096
    while hi > lo:
        a = max(lo, hi - window)
        best = -1
        for best in points(text, a, hi):
            pass
        if best >= 0:
            return best
        hi = a
        window *= 2
    return -1


def _last_cut(text: str, lo: int, hi: int, cut: str) -> int:
    """The largest cut point in ``[lo, hi)``, or -1.

    ``cut="safe"``: `safe_cut`'s points. ``cut="line"``: rule A points, else the point right
    after the last line break (see `_LINE_CUT_RE`).
    """
    if cut == "safe":
        return _last_point(iter_cut_points, text, lo, hi)
    i = _last_point(_rule_a_points, text, lo, hi)
    if i >= 0:
        return i
    j = text.rfind("\n", max(lo - 1, 0), hi - 1)
    return j + 1 if j >= 0 else -1


def _next_cut(text: str, start: int, cut: str) -> int:
    """The smallest cut point ``>= start`` (any line break for ``cut="line"``), or -1."""
    if cut == "safe":
        return next(iter_cut_points(text, start), -1)
    j = text.find("\n", max(start - 1, 0), len(text) - 1)
    return j + 1 if j >= 0 else -1


def _split_text(text: str, size: int, cut: str) -> Iterator[str]:
    """`text` in pieces of at most `size` characters where cut points allow, else longer."""
    n = len(text)
    pos = 0
    while n - pos > size:
        i = _last_cut(text, pos + 1, pos + size + 1, cut)
        if i < 0:  # no point within `size`: the piece runs to the next point, if any
            i = _next_cut(text, pos + size + 1, cut)
            if i < 0:
                break
        yield text[pos:i]
        pos = i
    yield text[pos:] if pos else text


class _InvalidUtf8(Exception):
    """Raised by `_read_text`; each caller words the message for its users (API or CLI)."""

    def __init__(self, offset: int, reason: str, bad: bytes):
        super().__init__(offset, reason, bad)
        self.offset = offset
        self.reason = reason
        self.bad = bad


def _utf8_size(s: str) -> int:
    """The UTF-8 length of `s`, which holds no lone surrogate (``isascii`` is O(1))."""
    return len(s) if s.isascii() else len(s.encode("utf-8"))


def _read_text(read: Callable[[int], bytes], errors: str, block_size: int, cut: str | None) -> Iterator[tuple[str, int]]:
    """The UTF-8 text returned by `read` in pieces cut only at `cut` points (never if None).

    Reads `block_size` bytes at a time and yields at most one piece per block: everything up
    to the block's last cut point, with its UTF-8 length. Invalid UTF-8 raises `_InvalidUtf8`
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
            raise _InvalidUtf8(base + e.start, e.reason, buf[e.start : e.end]) from None
        carry = buf[consumed:]
        base += consumed
        decoded += consumed if errors == "strict" else _utf8_size(text)
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
        i = _last_cut(ctx, len(tail), len(ctx), cut)
        tail = ctx[-2:]
        if i < 0:
            parts.append(text)
            continue
        i -= len(ctx) - len(text)  # index into `text`
        parts.append(text[:i])
        rest = text[i:]
        n = decoded - sent - _utf8_size(rest)
        yield "".join(parts), n
        sent += n
        parts = [rest]


# ----------------------------------------------------------------------------- inputs
class _File:
    """One input file: path, format (text, jsonl, parquet), gzip by name, size on disk."""

    __slots__ = ("path", "format", "gz", "size")

    def __init__(self, path: str, format: str, gz: bool, size: int):
        self.path = path
        self.format = format
        self.gz = gz
        self.size = size


class _Input:
    """An open file's `read` and `tell` (compressed position for gzip) and `close`."""

    def __init__(self, file: _File):
        self.raw = open(file.path, "rb")
        self.tell = self.raw.tell
        self.read: Callable[[int], bytes] = self.raw.read
        self.gz = None
        try:
            magic = self.raw.peek(2)[:2] == _GZIP_MAGIC
        except BaseException:
            self.raw.close()
            raise
        if file.gz or magic:
            self.gz = gzip.GzipFile(fileobj=self.raw, mode="rb")
            gz_read = self.gz.read
            path = file.path

            def read(n: int) -> bytes:
                try:
                    return gz_read(n)
                except (gzip.BadGzipFile, EOFError, zlib.error) as e:
                    raise CorpusError(f"corrupt or truncated gzip data ({e}); check it with 'gzip -t'", path) from None

            self.read = read

    def __enter__(self) -> "_Input":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.gz is not None:
            self.gz.close()
        self.raw.close()


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


def _probe(p: object, index: int | None, override: str | None) -> _File:
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
        _parquet_module(path)
    return _File(path, fmt, gz, st.st_size)


def _plausible_path(s: str) -> bool:
    return 0 < len(s) <= _MAX_PATH and "\n" not in s and "\0" not in s


def _looks_like_path(s: str) -> bool:
    """True for a str that names a file or directory, or ends like a corpus file name."""
    return _plausible_path(s) and (s.lower().endswith(_PATH_SUFFIXES) or os.path.exists(s))


def _parquet_module(path: str) -> Any:
    try:
        import pyarrow.parquet as pq  # type: ignore
    except ImportError:
        raise CorpusError("reading parquet needs pyarrow: pip install pyarrow", path) from None
    return pq


def _utf8_len(s: str, errors: str) -> tuple[str, int]:
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


def _surrogate_reason(s: str, e: UnicodeEncodeError) -> str:
    return f"text has a lone surrogate U+{ord(s[e.start]):04X} at character {e.start}, which is not valid Unicode; {_REPLACE_HINT}"


def _json_kind(v: object) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    kinds: dict[type, str] = {dict: "object", list: "array", str: "string"}
    return kinds.get(type(v), type(v).__name__)


def _preview(names: list[str], limit: int = 10) -> str:
    shown = ", ".join(map(str, names[:limit]))
    return (shown + f", ... and {len(names) - limit} more" if len(names) > limit else shown) or "none"


# ----------------------------------------------------------------------------- Corpus
class Corpus:
    """A training corpus read as a stream of text chunks; build it with `Corpus.from_arg`.

    Attributes:
        paths: The input files, or None for an iterable of documents.
        total_bytes: Sum of the files' sizes on disk; for a list or tuple of texts, the sum of
            their lengths; None for other iterables.
        bytes_read: Bytes of the files on disk consumed so far (compressed bytes for gzip,
            a row-count estimate within a parquet file; characters for texts), so that
            ``bytes_read / total_bytes`` is the fraction done. Equals `total_bytes` at the end.
        text_bytes: UTF-8 bytes of text yielded so far (0 at the end: an empty corpus).
        n_documents: Documents read so far: files for plain text, non-blank lines for JSON
            lines, rows for parquet, items for iterables (empty ones included).

    Counters restart with each call of `documents` or `batches`.
    """

    def __init__(
        self,
        files: list[_File] | None = None,
        texts: Iterable[str] | None = None,
        *,
        text_field: str = "text",
        errors: str = "strict",
        chunk_size: int = 8 << 20,
        cuttable: bool = True,
    ):
        self._files = files
        self._texts = texts
        self._one_shot = texts is not None and iter(texts) is texts
        self._consumed = False
        self.text_field = text_field
        self.errors = errors
        self.chunk_size = chunk_size
        self.cuttable = cuttable
        self._cut = "safe" if cuttable else "line"
        self.paths: list[str] | None = None if files is None else [f.path for f in files]
        self.total_bytes: int | None = None
        if files is not None:
            self.total_bytes = sum(f.size for f in files)
        elif isinstance(texts, (list, tuple)):
            try:
                self.total_bytes = sum(map(len, texts))
            except TypeError:  # a non-str item: documents() names it
                pass
        self.bytes_read = 0
        self.text_bytes = 0
        self.n_documents = 0

    @classmethod
    def from_arg(
        cls,
        corpus: Any,
        *,
        text_field: str = "text",
        errors: str = "strict",
        chunk_size: int = 8 << 20,
        cuttable: bool = True,
        format: str | None = None,
    ) -> "Corpus":
        """A `Corpus` from what ``train`` accepts; every path is checked now, before reading.

        Args:
            corpus: A path (``str`` or ``os.PathLike``), a list or tuple of paths, or any other
                iterable of ``str`` documents (a generator is read once). A `Corpus` is returned
                as is. See the module docstring for how a list of ``str`` is told apart.
            text_field: The JSON field or parquet column holding the text.
            errors: ``"strict"`` (invalid UTF-8 or a lone surrogate raises `CorpusError`) or
                ``"replace"`` (substitutes U+FFFD).
            chunk_size: About the largest chunk `documents` yields, in characters (files are
                read in blocks of this many bytes); bigger texts are cut at safe points.
            cuttable: True when `safe_cut`'s points are safe for the pre-tokenizer (the
                r50k/p50k, cl100k and o200k patterns, special tokens without whitespace);
                False (custom patterns) cuts only right after line breaks (see the module
                docstring).
            format: ``"text"``, ``"jsonl"`` or ``"parquet"`` for every file, instead of
                guessing from the file name.

        Returns:
            The corpus, not yet read.

        Raises:
            CorpusError: No input files, a directory, a gzipped parquet file, parquet without
                pyarrow; `CorpusFileNotFoundError` for a missing file.
            TypeError: `corpus` is not a path or iterable, or a list of paths holds something else.
            ValueError: A bad `errors`, `format` or `chunk_size`.

        >>> Corpus.from_arg(["a text", "another"]).total_bytes
        13
        >>> Corpus.from_arg("no/such/file.txt")
        Traceback (most recent call last):
        ...
        tokenmill.corpus.CorpusFileNotFoundError: no/such/file.txt: no such file; to train on a text, pass it in a list: [text]
        """
        if isinstance(corpus, Corpus):
            return corpus
        if errors not in ("strict", "replace"):
            raise ValueError(f"errors must be 'strict' or 'replace', not {errors!r}")
        if format is not None and format not in _FORMATS:
            raise ValueError(f"format must be one of {', '.join(map(repr, _FORMATS))} or None, not {format!r}")
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
            raise ValueError(f"chunk_size must be a positive int, not {chunk_size!r}")
        if not isinstance(text_field, str) or not text_field:
            raise ValueError(f"text_field must be a non-empty str, not {text_field!r}")
        opts: dict[str, Any] = dict(text_field=text_field, errors=errors, chunk_size=chunk_size, cuttable=cuttable)
        if isinstance(corpus, str) and not _plausible_path(corpus):
            shown = corpus[:40] + ("..." if len(corpus) > 40 else "")
            raise CorpusError(f"the corpus is a str that is not a file ({shown!r}); to train on a text, pass it in a list: [text]")
        if isinstance(corpus, (str, os.PathLike)):
            try:
                return cls([_probe(corpus, None, format)], **opts)
            except CorpusFileNotFoundError as e:
                if isinstance(corpus, str):
                    raise CorpusFileNotFoundError(e.reason + "; to train on a text, pass it in a list: [text]", e.path) from None
                raise
        if isinstance(corpus, (bytes, bytearray, memoryview)):
            raise TypeError(f"corpus is {type(corpus).__name__}: pass a path as str, or texts as str (decode bytes first)")
        if isinstance(corpus, (list, tuple)):
            if not corpus:
                raise CorpusError("no input files: the corpus is an empty list")
            first = corpus[0]
            if isinstance(first, os.PathLike) or (isinstance(first, str) and _looks_like_path(first)):
                return cls([_probe(p, i, format) for i, p in enumerate(corpus)], **opts)
            return cls(texts=corpus, **opts)
        if not isinstance(corpus, Iterable):
            raise TypeError(f"corpus must be a path, a list of paths or an iterable of str, not {type(corpus).__name__}")
        return cls(texts=corpus, **opts)

    def __repr__(self) -> str:
        if self.paths is not None:
            return f"Corpus({len(self.paths)} file(s), total_bytes={self.total_bytes})"
        return f"Corpus(<{type(self._texts).__name__} of str>)"

    def __iter__(self) -> Iterator[str]:
        return self.documents()

    def documents(self) -> Iterator[str]:
        """The corpus text as chunks of at most about `chunk_size` characters.

        A plain-text file yields chunks cut at safe points; a JSON line, parquet row or
        iterable item yields one document (in several chunks if it is longer than
        `chunk_size`). Empty documents are skipped; documents are never joined.

        Raises:
            CorpusError: Invalid UTF-8 (file and byte offset), a bad JSON line (file:line),
                corrupt gzip or parquet data, a one-shot iterator read a second time.
            TypeError: An iterable's item is not a str (names its index).

        >>> text = "First line.\\nSecond line.\\n" * 2
        >>> list(Corpus.from_arg([text], chunk_size=30).documents())
        ['First line.\\nSecond line.\\nFirst', ' line.\\nSecond line.\\n']
        """
        self.bytes_read = self.text_bytes = self.n_documents = 0
        if self._files is None:
            yield from self._iterable_docs()
            return
        done = 0
        for file in self._files:
            if file.format == "jsonl":
                yield from self._jsonl_docs(file, done)
            elif file.format == "parquet":
                yield from self._parquet_docs(file, done)
            else:
                yield from self._text_docs(file, done)
            done += file.size
            self.bytes_read = done

    def batches(self, max_chars: int = 8 << 20) -> Iterator[list[str]]:
        """`documents` in lists of about `max_chars` characters (at least one chunk each).

        Many small documents share a list (one Python call per batch instead of per
        document); a big text file gives about one chunk per list.

        >>> docs = ["ab", "cd", "ef", "gh"]
        >>> list(Corpus.from_arg(docs).batches(max_chars=4))
        [['ab', 'cd'], ['ef', 'gh']]
        """
        batch: list[str] = []
        n = 0
        for doc in self.documents():
            batch.append(doc)
            n += len(doc)
            if n >= max_chars:
                yield batch
                batch = []
                n = 0
        if batch:
            yield batch

    # ------------------------------------------------------------------------- readers
    def _text_docs(self, file: _File, done: int) -> Iterator[str]:
        self.n_documents += 1
        with _Input(file) as src:
            first = True
            try:
                for piece, n in _read_text(src.read, self.errors, self.chunk_size, self._cut):
                    if first and piece.startswith("\ufeff"):  # a byte-order mark is not text
                        piece = piece[1:]
                        n -= 3
                    first = False
                    self.bytes_read = done + src.tell()
                    self.text_bytes += n
                    if piece:
                        yield piece
            except _InvalidUtf8 as e:
                where = " (offset in the uncompressed data)" if src.gz is not None else ""
                raise CorpusError(
                    f"invalid UTF-8{where} ({e.reason}: {e.bad.hex(' ')}); {_REPLACE_HINT}", file.path, offset=e.offset
                ) from None

    def _jsonl_docs(self, file: _File, done: int) -> Iterator[str]:
        errors, path = self.errors, file.path
        with _Input(file) as src:
            base = 0  # absolute byte offset of `carry`
            carry = b""
            pending = ""  # start of the line being read (no "\n" in it)
            lineno = 0  # lines before `pending`
            while True:
                data = src.read(_LINE_BLOCK)
                final = not data
                buf = carry + data if carry else data
                try:
                    text, consumed = codecs.utf_8_decode(buf, errors, final)
                except UnicodeDecodeError as e:
                    bad_line = lineno + 1 + buf.count(b"\n", 0, e.start)
                    raise CorpusError(
                        f"invalid UTF-8 ({e.reason}: {buf[e.start:e.end].hex(' ')}); {_REPLACE_HINT}",
                        path, line=bad_line, offset=base + e.start,
                    ) from None
                carry = buf[consumed:]
                base += consumed
                self.bytes_read = done + src.tell()
                lines = (pending + text if pending else text).split("\n")
                pending = "" if final else lines.pop()
                for line in lines:
                    lineno += 1
                    if not line or line.isspace():
                        continue
                    if lineno == 1 and line[0] == "\ufeff":
                        line = line[1:]
                    doc = self._json_text(line, path, lineno)
                    self.n_documents += 1
                    if not doc:
                        continue
                    try:
                        doc, n = _utf8_len(doc, errors)
                    except UnicodeEncodeError as e:
                        raise CorpusError(_surrogate_reason(doc, e), path, line=lineno) from None
                    self.text_bytes += n
                    if len(doc) > self.chunk_size:
                        yield from _split_text(doc, self.chunk_size, self._cut)
                    else:
                        yield doc
                if final:
                    return

    def _json_text(self, line: str, path: str, lineno: int) -> str:
        field = self.text_field
        try:
            obj = json.loads(line)
        except ValueError as e:
            msg = f"{e.msg} at column {e.colno}" if isinstance(e, json.JSONDecodeError) else str(e)
            raise CorpusError(f"line is not valid JSON ({msg})", path, line=lineno) from None
        except RecursionError:
            raise CorpusError("line is not valid JSON (nested too deeply)", path, line=lineno) from None
        if type(obj) is not dict:
            raise CorpusError(f"line is a JSON {_json_kind(obj)}, not an object with a {field!r} field", path, line=lineno)
        try:
            value = obj[field]
        except KeyError:
            raise CorpusError(
                f"line has no field {field!r} (fields: {_preview(list(obj))}); pass text_field=... to read another field",
                path, line=lineno,
            ) from None
        if not isinstance(value, str):
            raise CorpusError(f"field {field!r} is a JSON {_json_kind(value)}, not a string", path, line=lineno)
        return value

    def _parquet_docs(self, file: _File, done: int) -> Iterator[str]:
        import pyarrow as pa  # type: ignore

        pq = _parquet_module(file.path)
        field, path = self.text_field, file.path
        try:
            pf = pq.ParquetFile(path)
        except (pa.ArrowException, OSError) as e:
            raise CorpusError(f"not a readable parquet file ({e})", path) from None
        try:
            schema = pf.schema_arrow
            if field not in schema.names:
                raise CorpusError(
                    f"has no column {field!r} (columns: {_preview(schema.names)}); pass text_field=... to read another column",
                    path,
                )
            typ = schema.field(field).type
            string_view = getattr(pa.types, "is_string_view", lambda t: False)
            if not (pa.types.is_string(typ) or pa.types.is_large_string(typ) or string_view(typ)):
                raise CorpusError(f"column {field!r} has type {typ}, not string", path)
            n_rows = max(pf.metadata.num_rows, 1)
            row = 0
            record_batches = pf.iter_batches(batch_size=_PARQUET_ROWS, columns=[field])
            while True:
                try:
                    batch = next(record_batches, None)
                except (pa.ArrowException, OSError) as e:
                    raise CorpusError(f"cannot read parquet data near row {row} ({e})", path) from None
                if batch is None:
                    return
                col = batch.column(0)
                if col.null_count:
                    first = col.is_null().index(True).as_py()
                    raise CorpusError(f"row {row + first}: column {field!r} is null, not a string", path)
                for doc in col.to_pylist():
                    self.n_documents += 1
                    if doc:
                        self.text_bytes += _utf8_size(doc)  # Arrow strings are valid UTF-8
                        if len(doc) > self.chunk_size:
                            yield from _split_text(doc, self.chunk_size, self._cut)
                        else:
                            yield doc
                row += len(col)
                self.bytes_read = done + file.size * row // n_rows
        finally:
            close = getattr(pf, "close", None)
            if close is not None:
                close()

    def _iterable_docs(self) -> Iterator[str]:
        if self._one_shot:
            if self._consumed:
                raise CorpusError("the corpus is an iterator that has already been read; pass a list to read it again")
            self._consumed = True
        errors = self.errors
        for i, doc in enumerate(self._texts):  # type: ignore[arg-type]
            if not isinstance(doc, str):
                hint = " (decode bytes first)" if isinstance(doc, (bytes, bytearray)) else ""
                raise TypeError(f"corpus item {i} is a {type(doc).__name__}, not a str{hint}")
            self.n_documents += 1
            self.bytes_read += len(doc)
            if not doc:
                continue
            try:
                doc, n = _utf8_len(doc, errors)
            except UnicodeEncodeError as e:
                raise CorpusError(f"corpus item {i}: {_surrogate_reason(doc, e)}") from None
            self.text_bytes += n
            if len(doc) > self.chunk_size:
                yield from _split_text(doc, self.chunk_size, self._cut)
            else:
                yield doc
