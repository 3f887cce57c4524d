"""Reading one shard of a token shard directory (what `tokenmill prepare` writes; issue 11).

`open_shard(dir, entry, layout, dtype)` maps a shard's tokens (read-only, no copy) and returns
them with its document starts, for the three layouts the Rust writer
(``tokenmill_core::data::shards``) produces:

* ``"npy"``: ``shard_NNNNNN.npy`` (1-D ``<u2``/``<u4``, as ``np.save`` writes it) and
  ``shard_NNNNNN.docs.npy`` (1-D ``<i8`` document starts).
* ``"megatron"``: ``shard_NNNNNN.bin`` (raw tokens) and ``shard_NNNNNN.idx``, megatron-core's
  ``MMIDIDX`` index, version 1, one sequence per document. megatron-core has no uint32 dtype:
  a ``"uint32"`` shard is stored with its int32 code (4); its ids are returned as ``uint32``.
* ``"llmc"``: ``shard_NNNNNN.bin``, llm.c's 256 x int32 header (magic 20240520, version 1, token
  count) then uint16 tokens, and ``shard_NNNNNN.docs.npy``. llm.c has uint16 shards only.

``tokenmill prepare`` names its shards ``shard_UUUUUU_KKKKKK`` (shard K of work unit U); the
single-number names above are accepted too. The directory as a whole (``index.json``, listing
every shard in order with its files and counts, written last; ``job.json``; per-shard and
per-unit ``.done.json`` markers) is described in `tokenmill.data.prepare`.

Everything checkable without reading the tokens is checked against the ``index.json`` entry:
magic numbers, headers, dtypes, exact file sizes, token and document counts, and that the document
starts begin at 0, never decrease and stay within the shard. A failure is a `ShardFormatError` naming
the file (its ``path``; ``expected``/``actual`` for a count, size or header mismatch); a malformed
entry's error has no ``path`` (the caller knows where the entry came from). It does not read ``index.json`` itself, walk a directory, or check the token values.

>>> shard_files(3, "megatron")
['shard_000003.bin', 'shard_000003.idx']
"""

from __future__ import annotations

import os
import struct
from typing import Any

from ..errors import ShardFormatError

__all__ = ["LAYOUTS", "DTYPES", "shard_files", "open_shard"]

LAYOUTS = ("npy", "megatron", "llmc")
DTYPES = ("uint16", "uint32")

_ITEMSIZE = {"uint16": 2, "uint32": 4}
_NPY_DESCR = {"uint16": "<u2", "uint32": "<u4"}
# megatron-core's DType codes (megatron/core/datasets/indexed_dataset.py): uint16 = 8, int32 = 4.
_MEGATRON_CODE = {"uint16": 8, "uint32": 4}
_MEGATRON_MAGIC = b"MMIDIDX\x00\x00"
_MEGATRON_HEADER = len(_MEGATRON_MAGIC) + 8 + 1 + 8 + 8  # magic, version, dtype code, 2 counts
_LLMC_MAGIC = 20240520
_LLMC_HEADER = 256 * 4


def shard_files(index: int | str, layout: str) -> list[str]:
    """The file names of shard `index` (or of the shard named `index`, e.g. ``"shard_000001_000002"``,
    as ``tokenmill prepare`` names the shards of its work units) in `layout`, in the order of
    ``index.json``'s ``"files"``."""
    stem = index if isinstance(index, str) else f"shard_{index:06d}"
    if layout == "npy":
        return [stem + ".npy", stem + ".docs.npy"]
    if layout == "megatron":
        return [stem + ".bin", stem + ".idx"]
    if layout == "llmc":
        return [stem + ".bin", stem + ".docs.npy"]
    raise ShardFormatError(f"unknown shard layout {layout!r}: expected one of {', '.join(map(repr, LAYOUTS))}")


def open_shard(dir: str | os.PathLike, shard_entry: dict[str, Any], layout: str, dtype: str):
    """The tokens (a read-only ``numpy.memmap``, or an empty array) and the document starts
    (``int64``) of the shard described by `shard_entry` (one item of ``index.json``'s ``"shards"``),
    whose directory's ``"layout"`` and ``"dtype"`` are `layout` and `dtype`.

    Raises `ShardFormatError` (naming the file) for a missing, truncated or corrupted file or one that
    disagrees with the entry.
    """
    if dtype not in DTYPES:
        raise ShardFormatError(f"unknown shard dtype {dtype!r}: expected 'uint16' or 'uint32'")
    files, tokens, documents = _entry(shard_entry, layout)
    p0, p1 = (os.path.join(os.fspath(dir), f) for f in files)
    if layout == "npy":
        ids = _read_npy(p0, _NPY_DESCR[dtype], tokens)
        starts = _read_npy(p1, "<i8", documents)
    elif layout == "llmc":
        if dtype != "uint16":
            raise ShardFormatError(f"llm.c shards hold uint16 tokens only, but the index says {dtype}", p0, "uint16", dtype)
        ids = _read_llmc(p0, tokens)
        starts = _read_npy(p1, "<i8", documents)
    else:
        ids, starts = _read_megatron(p0, p1, dtype, tokens, documents)
    _check_starts(p1, starts, tokens)
    return ids, starts


def _entry(entry: Any, layout: str) -> tuple[list[str], int, int]:
    """The entry's file names (as the layout names them) and counts, checked."""
    if not isinstance(entry, dict):
        raise ShardFormatError(f"a shard entry must be a dict, not {type(entry).__name__}")
    counts = []
    for key in ("tokens", "documents"):
        v = entry.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ShardFormatError(f"shard entry {entry.get('files')!r}: {key!r} must be an integer >= 0, not {v!r}")
        counts.append(v)
    files = entry.get("files")
    if layout not in LAYOUTS:
        shard_files(0, layout)  # raises the unknown-layout error
    stem = files[0].rsplit(".", 1)[0] if isinstance(files, list) and files and isinstance(files[0], str) else ""
    parts = stem[len("shard_"):].split("_")
    if not (stem.startswith("shard_") and len(parts) <= 2
            and all(p.isdigit() and p.isascii() and len(p) >= 6 for p in parts)):
        raise ShardFormatError(f"shard entry: 'files' {files!r} does not name a shard")
    expected = shard_files(stem, layout)
    if files != expected:
        raise ShardFormatError(f"shard entry: 'files' is {files!r}, but a {layout!r} shard has {expected!r}")
    return files, counts[0], counts[1]


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        raise ShardFormatError("missing (the shard directory is incomplete)", path) from None
    except OSError as e:
        raise ShardFormatError(f"cannot read: {e.strerror or e}", path) from None


def _map(path: str, dtype: str, offset: int, count: int):
    import numpy as np

    if count == 0:  # numpy cannot map zero bytes; read-only like a map
        a = np.empty(0, dtype=dtype)
        a.flags.writeable = False
        return a
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=(count,))


def _exact_size(path: str, header: int, count: int, itemsize: int, what: str) -> None:
    size = _size(path)
    want = header + count * itemsize
    if size != want:
        state = "truncated" if size < want else "has trailing bytes"
        raise ShardFormatError(f"{state}: {size} bytes, but {count} {what} need {want}", path, want, size)


def _read_npy(path: str, descr: str, count: int):
    """A 1-D C-order ``.npy`` array of `count` elements of `descr`, mapped."""
    import numpy as np

    npy = np.lib.format
    _size(path)
    try:
        with open(path, "rb") as f:
            version = npy.read_magic(f)
            if version == (1, 0):
                shape, _, dt = npy.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, _, dt = npy.read_array_header_2_0(f)
            else:
                raise ValueError(f"unsupported .npy format version {version[0]}.{version[1]}")
            offset = f.tell()
    except (ValueError, EOFError, SyntaxError) as e:
        raise ShardFormatError(f"not a valid .npy file: {e}", path) from None
    except OSError as e:
        raise ShardFormatError(f"cannot read: {e.strerror or e}", path) from None
    if dt != np.dtype(descr) or len(shape) != 1:
        raise ShardFormatError(f"holds a {dt.str} array of shape {shape}, expected a 1-D {descr} array ({np.dtype(descr).name})",
                               path, (descr, (count,)), (dt.str, shape))
    if shape[0] != count:
        raise ShardFormatError(f"holds {shape[0]} elements, but the index says {count}", path, count, shape[0])
    _exact_size(path, offset, count, dt.itemsize, "elements")
    return _map(path, descr, offset, count)


def _read_header(path: str, n: int) -> bytes:
    try:
        with open(path, "rb") as f:
            head = f.read(n)
    except FileNotFoundError:
        raise ShardFormatError("missing (the shard directory is incomplete)", path) from None
    except OSError as e:
        raise ShardFormatError(f"cannot read: {e.strerror or e}", path) from None
    if len(head) < n:
        raise ShardFormatError(f"truncated: {len(head)} bytes, shorter than its {n}-byte header", path, n, len(head))
    return head


def _read_llmc(path: str, count: int):
    magic, version, ntok = struct.unpack("<3i", _read_header(path, _LLMC_HEADER)[:12])
    if magic != _LLMC_MAGIC:
        raise ShardFormatError(f"not an llm.c token shard (magic {magic}, expected {_LLMC_MAGIC})", path, _LLMC_MAGIC, magic)
    if version != 1:
        raise ShardFormatError(f"llm.c shard version {version}; only version 1 (uint16 tokens) exists", path, 1, version)
    if ntok != count:
        raise ShardFormatError(f"its header counts {ntok} tokens, but the index says {count}", path, count, ntok)
    _exact_size(path, _LLMC_HEADER, count, 2, "uint16 tokens")
    return _map(path, "<u2", _LLMC_HEADER, count)


def _read_megatron(bin_path: str, idx_path: str, dtype: str, tokens: int, documents: int):
    import numpy as np

    head = _read_header(idx_path, _MEGATRON_HEADER)
    if head[:9] != _MEGATRON_MAGIC:
        raise ShardFormatError(f"not a megatron index (magic {head[:9]!r}, expected {_MEGATRON_MAGIC!r})", idx_path,
                               _MEGATRON_MAGIC, head[:9])
    version, code, n_seq, n_doc = struct.unpack("<QBQQ", head[9:])
    if version != 1:
        raise ShardFormatError(f"megatron index version {version}, expected 1", idx_path, 1, version)
    if code != _MEGATRON_CODE[dtype]:
        raise ShardFormatError(f"megatron dtype code {code}, but a {dtype} shard has {_MEGATRON_CODE[dtype]}", idx_path,
                               _MEGATRON_CODE[dtype], code)
    if n_seq != documents or n_doc != documents + 1:
        raise ShardFormatError(
            f"{n_seq} sequences and {n_doc} document indices, but the index says {documents} "
            f"documents (one sequence each, {documents + 1} indices)",
            idx_path, (documents, documents + 1), (n_seq, n_doc),
        )
    size, want = _size(idx_path), _MEGATRON_HEADER + 12 * n_seq + 8 * n_doc  # int32 + int64 per sequence, int64s
    if size != want:
        state = "truncated" if size < want else "has trailing bytes"
        raise ShardFormatError(f"{state}: {size} bytes, but {n_seq} sequences and {n_doc} indices need {want}", idx_path,
                               want, size)
    with open(idx_path, "rb") as f:
        f.seek(_MEGATRON_HEADER)
        lengths = np.fromfile(f, dtype="<i4", count=n_seq).astype(np.int64)
        pointers = np.fromfile(f, dtype="<i8", count=n_seq)
        doc_index = np.fromfile(f, dtype="<i8", count=n_doc)
    if not np.array_equal(doc_index, np.arange(n_doc, dtype=np.int64)):
        raise ShardFormatError(f"document indices are not 0, 1, ..., {documents} (one sequence per document)", idx_path)
    if lengths.size and lengths.min() < 0:
        raise ShardFormatError("a negative sequence length", idx_path)
    starts = np.zeros(n_seq, dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    itemsize = _ITEMSIZE[dtype]
    if not np.array_equal(pointers, starts * itemsize):
        raise ShardFormatError("sequence pointers do not follow the sequence lengths", idx_path)
    total = int(lengths.sum())
    if total != tokens:
        raise ShardFormatError(f"its sequences hold {total} tokens, but the index says {tokens}", idx_path, tokens, total)
    _exact_size(bin_path, 0, tokens, itemsize, f"{dtype} tokens")
    # An int32 file of ids < 2**31 has the bytes of its uint32 ids: read it with the index's dtype.
    return _map(bin_path, _NPY_DESCR[dtype], 0, tokens), starts


def _check_starts(path: str, starts, tokens: int) -> None:
    import numpy as np

    if len(starts) == 0:
        if tokens:
            raise ShardFormatError(f"no document, but {tokens} tokens", path)
        return
    if starts[0] != 0:
        raise ShardFormatError(f"the first document starts at {int(starts[0])}, not 0", path, 0, int(starts[0]))
    if len(starts) > 1:
        bad = np.flatnonzero(np.diff(starts) < 0)
        if bad.size:
            i = int(bad[0]) + 1
            raise ShardFormatError(f"document {i} starts at {int(starts[i])}, before document {i - 1}", path)
    if starts[-1] > tokens:
        raise ShardFormatError(f"the last document starts at {int(starts[-1])}, past the {tokens} tokens", path)
