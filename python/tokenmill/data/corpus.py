"""Streaming corpus reader: files or texts in, whole documents or text chunks out.

Files are read, decoded, parsed and cut by the Rust core's reader (``tokenmill_core::data::
reader``, the one `tokenmill prepare` uses, through ``_core.CorpusReader``): every trainer reads
its files there. `train_bpe` and `train_wordpiece` go further and count inside the core
(`Corpus.count_into`: no Python string per document at all); the word, char and classic-BPE
trainers get the documents as ``str``. Texts given as ``str`` are handled here.

`Corpus.from_arg` takes what ``train(corpus, ...)`` takes: a path, a list of paths, or any
iterable of ``str`` documents. `Corpus.documents` yields whole documents (a
text file, a JSON line, a parquet row, an item), `Corpus.chunks` the text in chunks cut at safe
points, and `Corpus.batches` lists of chunks, for the trainer to pre-tokenize and count.

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
  (measurements in a comment in `tokenmill.data.chunks`). A text without line breaks
  stays one chunk, however big, as does a text without `safe_cut` points (only whitespace,
  say) with ``cuttable=True``.
* Reports progress: `Corpus.total_bytes` (known when every input is a file) and
  `Corpus.bytes_read` in bytes on disk (compressed bytes for gzip files), plus
  `Corpus.text_bytes` (UTF-8 bytes of text yielded) and `Corpus.n_documents`.
* Drops a byte-order mark at the start of a file (it marks the encoding; it is not text).
* Raises `CorpusError` naming the file and byte offset of invalid UTF-8 (``errors="replace"``
  substitutes U+FFFD instead, one per invalid sequence as Python's decoder does), ``file:line``
  of a bad JSON line, ``row N`` of a null parquet value, and the file of a corrupt gzip stream
  (or of a ``.gz`` file that is not gzip). A missing file is a `CorpusFileNotFoundError`, which is both a `CorpusError` and a
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

import os
from typing import Any, Iterable, Iterator

from .. import _core
from ..errors import CorpusError, CorpusFileNotFoundError
from .chunks import split_text
from .._progress import Progress
from .sources import FORMATS, File, looks_like_path, parquet_rows, plausible_path, probe, surrogate_reason, utf8_len

__all__ = ["Corpus"]


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

    Counters restart with each call of `documents`, `chunks` or `batches`.
    """

    def __init__(
        self,
        files: list[File] | None = None,
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
            except TypeError:  # a non-str item: reading names it
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
            chunk_size: About the largest chunk `chunks` yields, in characters (files are
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
        tokenmill.errors.CorpusFileNotFoundError: no/such/file.txt: no such file; to train on a text, pass it in a list: [text]
        """
        if isinstance(corpus, Corpus):
            return corpus
        if errors not in ("strict", "replace"):
            raise ValueError(f"errors must be 'strict' or 'replace', not {errors!r}")
        if format is not None and format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(map(repr, FORMATS))} or None, not {format!r}")
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
            raise ValueError(f"chunk_size must be a positive int, not {chunk_size!r}")
        if not isinstance(text_field, str) or not text_field:
            raise ValueError(f"text_field must be a non-empty str, not {text_field!r}")
        opts: dict[str, Any] = dict(text_field=text_field, errors=errors, chunk_size=chunk_size, cuttable=cuttable)
        if isinstance(corpus, str) and not plausible_path(corpus):
            shown = corpus[:40] + ("..." if len(corpus) > 40 else "")
            raise CorpusError(f"the corpus is a str that is not a file ({shown!r}); to train on a text, pass it in a list: [text]")
        if isinstance(corpus, (str, os.PathLike)):
            try:
                return cls([probe(corpus, None, format)], **opts)
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
            if isinstance(first, os.PathLike) or (isinstance(first, str) and looks_like_path(first)):
                return cls([probe(p, i, format) for i, p in enumerate(corpus)], **opts)
            return cls(texts=corpus, **opts)
        if not isinstance(corpus, Iterable):
            raise TypeError(f"corpus must be a path, a list of paths or an iterable of str, not {type(corpus).__name__}")
        return cls(texts=corpus, **opts)

    @property
    def files(self) -> list[tuple[str, str]] | None:
        """``(path, format)`` of each input file in order, or None for a corpus of texts."""
        return None if self._files is None else [(f.path, f.format) for f in self._files]

    def count_into(self, counter: Any, threads: int, control: Any, *, progress: bool, what: str, chunk: int,
                   ranges: list | None = None) -> None:
        """Feeds the corpus to a core counter (``_core.WordCounter`` or ``BertWordCounter``) under
        a "reading" progress bar: files through the core's reader (``add_files``, cut at this
        corpus's cut points; `ranges`: per file, ``(start, end)`` to read the JSON lines that
        start in that byte range, or a plain text's part between the safe cut points at or after
        `start` and `end`, or parquet rows ``start..end``; or None), texts in chunks of about `chunk` characters
        (``add_texts``). `what` names the counted items."""
        bar = Progress("reading", total=self.total_bytes, unit="bytes", enabled=progress)
        files = self.files
        if files is not None:
            self.bytes_read, self.n_documents = counter.add_files(
                files, self.text_field, self._cut, threads, control,
                progress=lambda n: bar.update(min(n, self.total_bytes or 0), f"{len(counter):,} {what}"),
                open_rows=parquet_rows(self.text_field), errors=self.errors, **({"ranges": ranges} if ranges else {}))
            self.bytes_read = min(self.bytes_read, self.total_bytes or 0)
        else:
            for batch in self.batches(max_chars=chunk):
                counter.add_texts(batch, threads, control)
                bar.update(self.bytes_read, f"{len(counter):,} {what}")
        bar.close(f"{len(counter):,} {what}")

    def __repr__(self) -> str:
        if self.paths is not None:
            return f"Corpus({len(self.paths)} file(s), total_bytes={self.total_bytes})"
        return f"Corpus(<{type(self._texts).__name__} of str>)"

    def __iter__(self) -> Iterator[str]:
        return self.documents()

    def documents(self) -> Iterator[str]:
        """The corpus's documents, each whole: a plain-text file, a JSON line, a parquet row,
        an item of an iterable. Empty documents are skipped (and counted in `n_documents`).

        Raises: as `chunks`.

        >>> list(Corpus.from_arg(["First line.\\nSecond line.\\n", "", "Two"], chunk_size=5).documents())
        ['First line.\\nSecond line.\\n', 'Two']
        """
        return self._read(whole=True)

    def chunks(self) -> Iterator[str]:
        """The corpus text as chunks of at most about `chunk_size` characters.

        A plain-text file yields chunks cut at safe points; a JSON line, parquet row or
        iterable item yields one document (in several chunks if it is longer than
        `chunk_size`). Empty documents are skipped; documents are never joined.

        Raises:
            CorpusError: Invalid UTF-8 (file and byte offset), a bad JSON line (file:line),
                corrupt gzip or parquet data, a one-shot iterator read a second time.
            TypeError: An iterable's item is not a str (names its index).

        >>> text = "First line.\\nSecond line.\\n" * 2
        >>> list(Corpus.from_arg([text], chunk_size=30).chunks())
        ['First line.\\nSecond line.\\nFirst', ' line.\\nSecond line.\\n']
        """
        return self._read(whole=False)

    def _read(self, whole: bool) -> Iterator[str]:
        self.bytes_read = self.text_bytes = self.n_documents = 0
        if self._files is None:
            yield from self._iterable_docs(whole)
        else:
            yield from self._file_docs(whole)

    def batches(self, max_chars: int = 8 << 20) -> Iterator[list[str]]:
        """`chunks` in lists of about `max_chars` characters (at least one chunk each).

        Many small documents share a list (one Python call per batch instead of per
        document); a big text file gives about one chunk per list.

        >>> docs = ["ab", "cd", "ef", "gh"]
        >>> list(Corpus.from_arg(docs).batches(max_chars=4))
        [['ab', 'cd'], ['ef', 'gh']]
        """
        batch: list[str] = []
        n = 0
        for doc in self.chunks():
            batch.append(doc)
            n += len(doc)
            if n >= max_chars:
                yield batch
                batch = []
                n = 0
        if batch:
            yield batch

    # ------------------------------------------------------------------------- readers
    def _file_docs(self, whole: bool) -> Iterator[str]:
        # The core's reader decodes, parses and cuts (without the GIL); this loop only counts.
        files = self._files or []
        reader = _core.CorpusReader([(f.path, f.format) for f in files], self.text_field, None if whole else self._cut,
                                    self.errors, block_bytes=self.chunk_size, open_rows=parquet_rows(self.text_field))
        total = self.total_bytes or 0
        while (got := reader.next_texts()) is not None:
            parts, texts = got
            self.bytes_read = min(reader.disk_bytes, total)  # the reader reads a little ahead
            self.n_documents = reader.documents
            self.text_bytes = reader.text_bytes
            for text in texts:
                # A JSON line or parquet row is never cut by the reader: long ones are cut here.
                if not (whole or parts) and len(text) > self.chunk_size:
                    yield from split_text(text, self.chunk_size, self._cut)
                else:
                    yield text
        self.n_documents = reader.documents
        self.bytes_read = total

    def _iterable_docs(self, whole: bool) -> Iterator[str]:
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
                doc, n = utf8_len(doc, errors)
            except UnicodeEncodeError as e:
                raise CorpusError(f"corpus item {i}: {surrogate_reason(doc, e)}") from None
            self.text_bytes += n
            if not whole and len(doc) > self.chunk_size:
                yield from split_text(doc, self.chunk_size, self._cut)
            else:
                yield doc
