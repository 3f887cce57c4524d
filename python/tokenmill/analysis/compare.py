"""How many tokens texts cost under several tokenizers: `compare` gives one plain row per
(text, tokenizer) with tokens, characters, bytes and the two compression ratios; `table` and
`to_csv` format the rows (``tokenmill compare``).

Texts are files (gzip files decompressed; streamed: read in 1 MiB blocks and counted block
by block, so memory stays bounded whatever the file's size, as long as the text has a cut
point now and then: a word before a space or a line break; a file with none, such as minified
JSON on one line, is read whole), named strings, or the bundled samples
(`tokenmill.analysis.samples`). Counts are those of `tokenmill.viz.tokens` (special-token
text is ordinary text), so they agree with what ``tokenmill show`` draws.

Exactness of streamed counts: blocks are cut only where cutting provably changes no token
for the OpenAI patterns (r50k/p50k, cl100k, o200k: `tokenmill.data.chunks.safe_cut`), so
those counts are exact. Other tokenizers (WordPiece, SentencePiece-style, custom patterns)
see a file larger than one block cut after line breaks; such a row says ``"exact": False``
(its count may differ from encoding the whole file by a few tokens per block). A tokenizer
that adds template tokens to each text (``[CLS] ... [SEP]``) counts them once per file.

What it does not do: print, plot, or load anything from the network.

>>> rows = compare({"greeting": "hello world"}, ["gpt2", "cl100k_base"])
>>> [(r["sample"], r["encoding"], r["tokens"]) for r in rows]
[('greeting', 'gpt2', 2), ('greeting', 'cl100k_base', 2)]
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..data.chunks import InvalidUtf8, cuttable_by, read_text, utf8_size
from ..errors import InputError
from ..tokenizer import Tokenizer
from ..viz.defaults import DEFAULT_ENCODINGS
from ..viz.show import GZIP_ERRORS, MAX_BYTES, binary_error, gzip_error, open_input, read_text_file, resolve_all
from ..viz.tokens import encode_options, figures, stats
from .samples import Sample

__all__ = ["compare", "count_file", "count_text", "table", "to_csv", "COLUMNS", "DEFAULT_ENCODINGS", "CHUNK_SIZE"]


#: Bytes read per block when a file is streamed.
CHUNK_SIZE = 1 << 20

#: The keys of every row, in order (the CSV header).
COLUMNS = ("sample", "encoding", "tokens", "chars", "bytes", "chars_per_token", "bytes_per_token", "exact")


def _added(tok: Tokenizer) -> int:
    """Tokens the tokenizer adds around every text (BERT's [CLS] and [SEP]: 2)."""
    fn = getattr(tok, "num_special_tokens_to_add", None)
    return int(fn()) if fn is not None else 0


def count_text(tok: Tokenizer, text: str) -> dict[str, Any]:
    """The figures of one in-memory text.

    Args:
        tok: the tokenizer.
        text: the text.

    Returns:
        ``{"tokens", "chars", "bytes", "chars_per_token", "bytes_per_token", "exact": True}``.

    >>> import tokenmill
    >>> count_text(tokenmill.get_encoding("gpt2"), "998 + 9988")["tokens"]
    4
    """
    if not isinstance(text, str):
        raise InputError(f"a text to compare must be str, not {type(text).__name__}")
    return {**stats(text, tok.count(text, **encode_options(False))), "exact": True}


def _open(path: str) -> io.BufferedIOBase:
    if os.path.isdir(path):
        raise InputError(f"{path} is a directory, not a text file")
    try:
        return open_input(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None


def count_file(tok: Tokenizer, path: str | os.PathLike[str], *, errors: str = "strict",
               chunk_size: int = CHUNK_SIZE) -> dict[str, Any]:
    """The figures of a UTF-8 text file (gzip is decompressed), read block by block.

    Args:
        tok: the tokenizer.
        path: the file.
        errors: ``"strict"``: a NUL byte or invalid UTF-8 raises `InputError` naming the file
            and the byte offset; ``"replace"``: invalid UTF-8 counts as U+FFFD (its 3 bytes
            in ``bytes``, as `tokenmill.viz.show` counts the text it shows).
        chunk_size: bytes read per block.

    Returns:
        As `count_text`; ``"exact"`` is False when the file was cut at line breaks for a
        tokenizer without proven cut points (see the module docstring).

    >>> import tokenmill, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.txt"); _ = open(p, "w").write("hello world\\n")
    >>> count_file(tokenmill.get_encoding("cl100k_base"), p)["tokens"]
    3
    """
    if errors not in ("strict", "replace"):
        raise InputError(f"errors must be 'strict' or 'replace', not {errors!r}")
    name = os.fspath(path)
    added = _added(tok)
    safe = added == 0 and cuttable_by(getattr(tok, "pretokenizer", ""), tok.special_tokens)
    opts = encode_options(False)
    tokens = chars = n_bytes = blocks = 0
    f = _open(name)
    try:
        for text, size in read_text(f.read, errors, chunk_size, "safe" if safe else "line"):
            if errors == "strict":
                nul = text.find("\0")
                if nul >= 0:
                    raise binary_error(name, n_bytes + utf8_size(text[:nul]), "a NUL byte")
            tokens += tok.count(text, **opts)
            chars += len(text)
            n_bytes += size
            blocks += 1
    except InvalidUtf8 as e:
        raise binary_error(name, e.offset, f"invalid UTF-8 ({e.reason})") from None
    except GZIP_ERRORS as e:
        raise gzip_error(name, e) from None
    except OSError as e:
        raise InputError(f"{name}: cannot be read: {e.strerror or e}") from None
    finally:
        f.close()
    # Template tokens were added to every block; the file is one text.
    tokens -= added * max(blocks - 1, 0)
    if blocks == 0:
        tokens = tok.count("", **opts)
    return {**figures(tokens, chars, n_bytes), "exact": safe or blocks <= 1}


def _inputs(items: Any) -> Iterator[tuple[str, str, Any]]:
    """``(name, kind, value)`` with kind ``text`` (value: the text) or ``file`` (value: the path)."""
    if isinstance(items, Mapping):
        for name, text in items.items():
            yield str(name), "text", text
        return
    if isinstance(items, (str, os.PathLike, Sample)):
        items = [items]
    if not isinstance(items, Iterable):
        raise InputError(f"texts to compare: a list of files, a {{name: text}} dict or samples, not {type(items).__name__}")
    for item in items:
        if isinstance(item, Sample):
            yield item.name, "text", item.text()
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], str):
            yield str(item[0]), "text", item[1]
        elif isinstance(item, (str, os.PathLike)):
            path = os.fspath(item)
            if not os.path.exists(path):
                raise InputError(f"{path}: no such file (a str is a file path; to compare texts, pass {{name: text}} "
                                 "or (name, text) pairs)")
            yield path, "file", path
        else:
            raise InputError(f"cannot compare {type(item).__name__} {item!r}: give a file path, a (name, text) pair or a Sample")


def compare(texts_or_files: Any, tokenizers: Any = DEFAULT_ENCODINGS, *, errors: str = "strict",
            chunk_size: int = CHUNK_SIZE, max_bytes: int = MAX_BYTES) -> list[dict[str, Any]]:
    """Tokens, characters and bytes per token of each text under each tokenizer.

    Args:
        texts_or_files: file paths (str or `os.PathLike`; gzip is read decompressed),
            ``{name: text}``, ``(name, text)`` pairs, `tokenmill.analysis.samples.Sample`
            records (``samples()``), or a list mixing them. A str is always a path: texts
            need a name.
        tokenizers: names, paths or tokenizer objects, or a comma-separated string
            (`tokenmill.viz.show.resolve_all`); default gpt2, cl100k_base and o200k_base.
        errors: for files: ``"strict"`` (binary data is an error naming the file and the
            byte offset) or ``"replace"`` (invalid UTF-8 counts as U+FFFD).
        chunk_size: bytes read per block when streaming a file.
        max_bytes: a file that can be read only once (a pipe, ``/dev/stdin``) is read whole
            into memory when several tokenizers count it; a larger one raises `InputError`.

    Returns:
        One dict per (text, tokenizer), texts in order and tokenizers within each text:
        ``sample`` (the file or sample name), ``encoding`` (the tokenizer's label),
        ``tokens``, ``chars``, ``bytes``, ``chars_per_token``, ``bytes_per_token`` (None for
        zero tokens) and ``exact`` (see the module docstring).

    >>> from tokenmill.analysis.samples import samples
    >>> rows = compare(samples("data"), "cl100k_base")
    >>> [(r["sample"], r["tokens"]) for r in rows]
    [('data as JSON', 734), ('data as YAML', 532)]
    """
    toks = resolve_all(tokenizers)  # every name checked before any counting
    rows = []
    for name, kind, value in _inputs(texts_or_files):
        if kind == "file" and len(toks) > 1 and not os.path.isfile(value):
            # A pipe gives its bytes once: every tokenizer counts the same text, from memory.
            kind, value = "text", read_text_file(value, errors=errors, max_bytes=max_bytes)
        for label, tok in toks:
            figures = count_text(tok, value) if kind == "text" else count_file(tok, value, errors=errors, chunk_size=chunk_size)
            rows.append({"sample": name, "encoding": label, **figures})
    return rows


def _ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as an aligned text table, the sample name written once per group.

    >>> print(table(compare({"hi": "hello world"}, "gpt2,cl100k_base")))
    sample  encoding     tokens  chars/token  bytes/token
    hi      gpt2              2         5.50         5.50
            cl100k_base       2         5.50         5.50
    """
    if not rows:
        return "(nothing to compare)"
    sw = max(6, *(len(str(r["sample"])) for r in rows))
    ew = max(8, *(len(str(r["encoding"])) for r in rows))
    tw = max(6, *(len(f"{r['tokens']:,}") for r in rows))
    lines = [f"{'sample':<{sw}}  {'encoding':<{ew}}  {'tokens':>{tw}}  chars/token  bytes/token"]
    previous = None
    for r in rows:
        name = "" if r["sample"] == previous else str(r["sample"])
        previous = r["sample"]
        mark = "" if r.get("exact", True) else "  (approximate)"
        lines.append(f"{name:<{sw}}  {r['encoding']:<{ew}}  {r['tokens']:>{tw},}  {_ratio(r['chars_per_token']):>11}  "
                     f"{_ratio(r['bytes_per_token']):>11}{mark}")
    return "\n".join(line.rstrip() for line in lines)


def to_csv(rows: list[dict[str, Any]]) -> str:
    """The rows as CSV with a header of `COLUMNS`.

    >>> print(to_csv(compare({"hi": "hello world"}, "gpt2")), end="")
    sample,encoding,tokens,chars,bytes,chars_per_token,bytes_per_token,exact
    hi,gpt2,2,11,11,5.5,5.5,True
    """
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in rows:
        w.writerow(["" if r.get(c) is None else r.get(c) for c in COLUMNS])
    return out.getvalue()
