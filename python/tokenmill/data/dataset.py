"""Token datasets for GPT pretraining: shard directories (``tokenmill prepare``), arrays or a text,
cut into (input, target) windows.

What it does:

* `read_tokens` reads a shard directory (``/tmp/spec/shards.md``, version 1: layouts ``npy``,
  ``megatron`` and ``llmc``) as one 1-D array, memory-mapped when the directory has one shard.
  ``index.json``'s own fields are checked here (format, version, layout, dtype, running token
  sums); each shard is opened and checked against its entry by
  `tokenmill.data.shard_files.open_shard` (headers, dtypes, exact byte sizes, document starts).
  Every problem is a `ShardFormatError` naming the file.
* `TokenDataset` cuts the ids into windows of ``max_length`` inputs and the same ids shifted by
  one as targets, at ``range(0, n_tokens - max_length, stride)``: exactly the semantics of
  ``GPTDatasetV1`` in "Build a Large Language Model (From Scratch)". Shards stay memory-mapped,
  one per shard, with their global offsets; a window may span a shard boundary. Memory is
  constant in the corpus size (the ids of a *text* source are of course in memory).
  ``align="document"`` starts every window at a document start instead (see `TokenDataset`).
* `token_bytes` gives the UTF-8 byte length of every token id, for bits-per-byte evaluation.

What it does not do: write shards (``tokenmill prepare``, in Rust), shuffle or batch (see
`tokenmill.data.loader`), verify checksums (the format has none; sizes and headers are checked),
or import torch: items are numpy arrays, which ``torch.utils.data.DataLoader``'s default collate
turns into tensors.

Decisions:

* Too few tokens for one window (``n_tokens <= max_length``) gives an empty dataset, as
  ``GPTDatasetV1`` does, not an error; `tokenmill.data.create_dataloader` says so when asked to
  load from such a dataset.
* A ``str`` source is a shard directory when it names an existing directory and no tokenizer is
  given; otherwise it is a text. Pass a ``pathlib.Path`` to mean a directory unambiguously.
* Items are int64 (torch's ``long``, what embedding layers and ``cross_entropy`` take).

>>> import numpy as np
>>> ds = TokenDataset(np.arange(10), max_length=4, stride=4)
>>> len(ds), ds[1][0].tolist(), ds[1][1].tolist()
(2, [4, 5, 6, 7], [5, 6, 7, 8])
"""

from __future__ import annotations

import bisect
import json
import operator
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from .._io import PathLike
from .._args import int_arg
from ..errors import ShardFormatError, TokenIdError, UnknownTokenError
from ..formats import load as _load_tokenizer
from .shard_files import DTYPES, LAYOUTS, open_shard, shard_files

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import numpy.typing as npt

__all__ = ["read_tokens", "TokenDataset", "token_bytes"]

FORMAT = "tokenmill-shards"
VERSION = 1
# get_batch copies windows at least this long by slices (see there), shorter ones by fancy indexing.
_ROW_COPY_MIN_LENGTH = 64
_DESCR = {"uint16": "<u2", "uint32": "<u4"}


# ---------------------------------------------------------------------------------------- reading
def _fail(reason: str, path: PathLike, expected: object = None, actual: object = None) -> ShardFormatError:
    return ShardFormatError(reason, str(path), expected, actual)


def _read_index(root: Path) -> dict[str, Any]:
    """``index.json``'s directory-level fields, checked; the shard entries are `open_shard`'s to check."""
    if not root.is_dir():
        raise _fail("no such shard directory" if not root.exists() else "is not a directory", root)
    path = root / "index.json"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise _fail(
            "is not a complete shard directory: it has no index.json (`tokenmill prepare` writes index.json last, "
            "once every shard is written; run or resume `tokenmill prepare` to finish it)", root) from None
    try:
        index = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise _fail(f"is not valid JSON: {e}", path) from None
    if not isinstance(index, dict) or index.get("format") != FORMAT:
        got = index.get("format") if isinstance(index, dict) else type(index).__name__
        raise _fail(f'"format" is {got!r}, not {FORMAT!r}: this is not a tokenmill shard index', path, FORMAT, got)
    if index.get("version") != VERSION:
        raise _fail(f'"version" is {index.get("version")!r}; this tokenmill reads version {VERSION} '
                    "(a newer tokenmill may read it)", path, VERSION, index.get("version"))
    if index.get("layout", "npy") not in LAYOUTS:
        raise _fail(f'"layout" is {index.get("layout")!r}; expected one of {", ".join(LAYOUTS)}', path)
    if index.get("dtype") not in DTYPES:
        raise _fail(f'"dtype" is {index.get("dtype")!r}; expected "uint16" or "uint32"', path)
    if not isinstance(index.get("shards"), list):
        raise _fail('"shards" is missing or not a list', path)
    return index


class _Shards:
    """The shards of a directory, each opened (tokens and document starts memory-mapped or read, and
    checked) by `open_shard`, with ``index.json``'s running token sums checked."""

    def __init__(self, root: PathLike):
        self.root = Path(root)
        self.index = _read_index(self.root)
        self.layout: str = self.index.get("layout", "npy")
        self.dtype: str = self.index["dtype"]
        path = self.root / "index.json"
        self.arrays: list = []
        self._local_starts: list = []
        total = 0
        for k, s in enumerate(self.index["shards"]):
            try:
                ids, starts = open_shard(self.root, s, self.layout, self.dtype)
            except ShardFormatError as e:
                if e.path is not None:  # a shard file's fault: the error names it
                    raise
                raise _fail(f"shards[{k}]: {e.reason}", path, e.expected, e.actual) from None
            if s.get("first_token", total) != total:
                raise _fail(f'shards[{k}]: "first_token" is {s.get("first_token")!r}, but the shards before it hold {total} tokens',
                            path, total, s.get("first_token"))
            self.arrays.append(ids)
            self._local_starts.append(starts)
            total += len(ids)
        if self.index.get("tokens", total) != total:
            raise _fail(f'"tokens" is {self.index.get("tokens")!r}, but the shards hold {total}', path, total, self.index.get("tokens"))

    def doc_starts(self) -> "np.ndarray":
        """Global start offsets of every non-empty document, strictly ascending (int64)."""
        import numpy as np

        if not self.arrays:
            return np.empty(0, np.int64)
        firsts = np.cumsum([0] + [len(a) for a in self.arrays[:-1]])
        starts = np.concatenate([s + f for s, f in zip(self._local_starts, firsts.tolist())]).astype(np.int64, copy=False)
        # An empty document starts where the next one does: one window start for both.
        return starts[np.r_[True, np.diff(starts) > 0]] if len(starts) else starts


def read_tokens(directory: PathLike) -> "np.ndarray":
    """All token ids of a shard directory, in input order, as one 1-D array.

    Args:
        directory: A directory written by ``tokenmill prepare`` (any layout).

    Returns:
        A uint16 or uint32 array (the index's dtype): a read-only memory map when there is one
        shard, else the shards concatenated in memory (use `TokenDataset` to keep large corpora
        on disk). Raises `ShardFormatError` for a missing ``index.json``, a wrong ``format`` or
        ``version``, or a shard file that is missing, truncated or disagrees with the index.

    >>> import tempfile
    >>> from tokenmill.data.dataset import write_npy_shards
    >>> d = write_npy_shards(tempfile.mkdtemp(), [[1, 2, 3], [4, 5]])
    >>> read_tokens(d).tolist()
    [1, 2, 3, 4, 5]
    """
    import numpy as np

    shards = _Shards(directory)
    if len(shards.arrays) == 1:
        return shards.arrays[0]
    if not shards.arrays:
        return np.empty(0, _DESCR[shards.dtype])
    return np.concatenate(shards.arrays)


def write_npy_shards(directory: PathLike, shards: Sequence[Sequence[int]], *, dtype: str = "uint16",
                     doc_starts: Sequence[Sequence[int]] | None = None, layout: str = "npy") -> Path:
    """Writes ids as a shard directory in the ``npy`` (or ``llmc``) layout, for tests and examples
    (not exported from `tokenmill.data`).

    This is not ``tokenmill prepare``: no tokenizer, sources or resume data; the index carries
    only what readers need. Each shard's documents default to one document per shard.

    Args:
        directory: Created if missing.
        shards: The ids of each shard.
        dtype: ``"uint16"`` or ``"uint32"`` (``"uint16"`` only for ``llmc``, as llm.c reads).
        doc_starts: Per shard, the start offsets of its documents (first 0).
        layout: ``"npy"`` or ``"llmc"``.

    Returns:
        The directory, as a Path.

    >>> import tempfile
    >>> write_npy_shards(tempfile.mkdtemp(), [[1, 2]]).joinpath("index.json").is_file()
    True
    """
    import numpy as np

    if layout == "llmc" and dtype != "uint16":
        raise ValueError(f"the llm.c layout holds uint16 tokens only, not {dtype}")
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    entries, first, first_doc = [], 0, 0
    for k, ids in enumerate(shards):
        arr = np.asarray(ids, _DESCR[dtype])
        docs = np.asarray(doc_starts[k] if doc_starts is not None else [0], "<i8")
        files = shard_files(k, layout)
        if layout == "llmc":
            header = np.zeros(256, "<i4")
            header[:3] = [20240520, 1, len(arr)]  # llm.c's magic, version 1 (uint16), token count
            (root / files[0]).write_bytes(header.tobytes() + arr.tobytes())
        else:
            np.save(root / files[0], arr)
        np.save(root / files[1], docs)
        entries.append({"files": files, "tokens": len(arr), "documents": len(docs), "first_document": first_doc, "first_token": first})
        first += len(arr)
        first_doc += len(docs)
    index = {"format": FORMAT, "version": VERSION, "layout": layout, "dtype": dtype, "eot": "none", "eot_id": None,
             "shards": entries, "documents": first_doc, "tokens": first}
    (root / "index.json").write_text(json.dumps(index, indent=2, sort_keys=True), encoding="utf-8")
    return root


# ---------------------------------------------------------------------------------------- tokenizers
def _resolve_tokenizer(tokenizer: Any) -> Any:
    """A tokenizer object, or one loaded by name / path with `tokenmill.load`."""
    if isinstance(tokenizer, (str, os.PathLike)):
        return _load_tokenizer(tokenizer)
    if not hasattr(tokenizer, "encode"):
        raise TypeError(f"tokenizer must be a tokenizer, an encoding name or a file, not {type(tokenizer).__name__}")
    return tokenizer


def _encode_text(text: str, tokenizer: Any) -> "np.ndarray":
    import numpy as np

    tok = _resolve_tokenizer(tokenizer)
    specials = getattr(tok, "special_tokens", None) or {}
    # As the book's GPTDatasetV1: the end-of-text marker in the text is the special token;
    # other special-token text follows the tokenizer's own default (tiktoken's: an error).
    kwargs = {"allowed_special": {"<|endoftext|>"}} if "<|endoftext|>" in specials else {}
    if hasattr(tok, "encode_to_numpy"):
        return np.asarray(tok.encode_to_numpy(text, **kwargs))
    return np.asarray(tok.encode(text, **kwargs), np.int64)


def token_bytes(tokenizer: Any) -> "npt.NDArray[np.int32]":
    """The UTF-8 byte length of every token id, for bits-per-byte evaluation (as nanochat's
    ``token_bytes``): ``bpb = sum(loss_nats) / (ln 2 * sum(token_bytes[targets]))``.

    Special tokens and unassigned ids count 0 bytes (they stand for no text). The length is that
    of ``tokenizer.token_bytes(id)``: exact for byte-level BPE; for WordPiece it includes the
    ``##`` prefix, so bits per byte of such models is only approximate.

    Args:
        tokenizer: A tokenizer, an encoding name or a file `tokenmill.load` reads.

    Returns:
        An int32 array of length ``tokenizer.vocab_size``.

    >>> tb = token_bytes("gpt2")
    >>> int(tb[995]), int(tb[50256]), len(tb)   # b" world", <|endoftext|>
    (6, 0, 50257)
    """
    import numpy as np

    tok = _resolve_tokenizer(tokenizer)
    n = tok.vocab_size
    out = np.zeros(n, np.int32)
    ranks = getattr(tok, "mergeable_ranks", None)
    if callable(ranks):  # byte-level Encoding: one call for the whole table instead of n lookups
        table = ranks()
        ids = np.fromiter(table.values(), np.int64, len(table))
        out[ids[ids < n]] = np.fromiter(map(len, table.keys()), np.int32, len(table))[ids < n]
        return out
    special = set(tok.special_tokens.values())
    for i in range(n):
        if i in special:
            continue
        try:
            out[i] = len(tok.token_bytes(i))
        except (TokenIdError, UnknownTokenError, KeyError, IndexError):
            pass  # an unassigned id: no text
    return out


# ---------------------------------------------------------------------------------------- dataset
class TokenDataset:
    """(input ids, target ids) windows over a token stream, as ``GPTDatasetV1`` in "Build a Large
    Language Model (From Scratch)"; map-style, so ``torch.utils.data.DataLoader`` takes it as is.

    Window ``i`` holds the ids at ``start(i) .. start(i) + max_length`` as inputs and the same
    shifted by one as targets. With ``align="token"`` (default) ``start(i) = i * stride`` for
    ``i`` in ``range(len(range(0, n_tokens - max_length, stride)))``. With ``align="document"``
    every window starts at a document start (nanochat's BOS-aligned rows): the first document,
    then greedily the first document start at least `stride` tokens after the previous window's
    start, as long as a whole window fits. Tokens past a long document's first window up to the
    next chosen start are never used; `discarded_fraction` reports their share (in both modes).

    Args:
        source: A shard directory (``tokenmill prepare``; `pathlib.Path` or ``str``), a 1-D
            integer array of ids, or a text (``str``) to encode with `tokenizer`.
        max_length: Ids per window (>= 1).
        stride: Distance between window starts (>= 1); ``stride == max_length`` gives windows
            that do not overlap (their targets share one id).
        tokenizer: For a text: a tokenizer, an encoding name or a file (default ``"gpt2"``).
        align: ``"token"`` or ``"document"``.
        doc_starts: With ``align="document"`` and an array or text source, the document start
            offsets (a shard directory has its own).

    ``ds[i]`` is a pair of int64 arrays of length `max_length` (negative `i` counts from the end;
    out of range is an IndexError); `get_batch` gathers many windows at once. Attributes:
    `n_tokens`, `max_length`, `stride`, `align`, `dtype` (of the stored ids), `index` (the
    shard directory's ``index.json``, or None), `discarded_fraction`.

    >>> ds = TokenDataset("Hello world, hello tokens", max_length=2, stride=2)
    >>> x, y = ds[0]
    >>> len(ds), x.tolist(), y.tolist(), x.dtype
    (2, [15496, 995], [995, 11], dtype('int64'))
    """

    def __init__(self, source: Any, max_length: int, stride: int, *, tokenizer: Any = None, align: str = "token",
                 doc_starts: Any = None):
        import numpy as np

        self.max_length = int_arg("max_length", max_length, 1)
        self.stride = int_arg("stride", stride, 1)
        if align not in ("token", "document"):
            raise ValueError(f"align must be 'token' or 'document', not {align!r}")
        self.align = align
        self.index: dict[str, Any] | None = None
        self._dir: Path | None = None
        self._tokenizer = tokenizer
        shards: _Shards | None = None
        if isinstance(source, os.PathLike) or (isinstance(source, str) and tokenizer is None and "\n" not in source
                                               and len(source) < 4096 and os.path.isdir(source)):
            shards = _Shards(source)
            self._dir, self.index = shards.root, shards.index
            parts = shards.arrays
        elif isinstance(source, str):
            parts = [_encode_text(source, "gpt2" if tokenizer is None else tokenizer)]
        else:
            arr = np.asarray(source)
            if arr.ndim != 1 or arr.dtype.kind not in "iu":
                raise ValueError(f"an id array must be 1-D and of an integer dtype, not {arr.dtype} with shape {arr.shape}")
            if arr.dtype.kind == "i" and arr.size and int(arr.min()) < 0:
                raise TokenIdError(int(arr.min()), int(np.argmin(arr)), reason="is negative")
            parts = [arr]
        self._setup(parts)
        if align == "document":
            if shards is not None:
                if doc_starts is not None:
                    raise ValueError("doc_starts= is for array and text sources; a shard directory has its own")
                starts = shards.doc_starts()
            elif doc_starts is None:
                raise ValueError('align="document" needs doc_starts= (the start offset of each document) for an array or text')
            else:
                starts = np.asarray(doc_starts, np.int64)
                if starts.ndim != 1 or (starts.size and (starts[0] < 0 or starts[-1] >= max(self.n_tokens, 1)
                                                         or (np.diff(starts) <= 0).any())):
                    raise ValueError("doc_starts must be 1-D, ascending, within [0, n_tokens)")
            self._starts: Any = _greedy_starts(starts, self.stride, self.n_tokens - self.max_length)
            self._len = len(self._starts)
        else:
            self._starts = None
            self._len = len(range(0, self.n_tokens - self.max_length, self.stride))
        self.discarded_fraction = self._discarded()

    def _setup(self, parts: list) -> None:
        import numpy as np

        self.dtype = parts[0].dtype if parts else np.dtype(np.uint16)
        # Plain ndarray views of the memory maps: slicing an np.memmap runs its Python-level
        # __array_finalize__ on every slice, a third of the time of a small window.
        self._parts = [np.asarray(p) for p in parts if len(p)]
        bounds = [0]
        for p in self._parts:
            bounds.append(bounds[-1] + len(p))
        self._bounds = bounds
        self._bounds_np = np.asarray(bounds, np.int64)
        self.n_tokens = bounds[-1]
        self._offsets = np.arange(self.max_length + 1, dtype=np.int64)

    def _discarded(self) -> float:
        """Share of ids that no window covers (inputs or targets)."""
        import numpy as np

        if self.n_tokens == 0:
            return 0.0
        if self._len == 0:
            return 1.0
        w = self.max_length + 1
        if self._starts is None:
            covered = (self._len - 1) * min(w, self.stride) + w
        else:  # windows are sorted by start and equally long: the union is the sum of the gaps, capped
            covered = int(np.minimum(np.diff(self._starts), w).sum()) + w
        return 1.0 - covered / self.n_tokens

    def __len__(self) -> int:
        return self._len

    def start(self, i: int) -> int:
        """The offset of window `i`'s first input id in the token stream.

        >>> TokenDataset(list(range(10)), max_length=2, stride=3).start(-1)
        6
        """
        i = operator.index(i)
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError(f"window index {i} is out of range for a dataset of {self._len} windows")
        return i * self.stride if self._starts is None else int(self._starts[i])

    def _window(self, s: int) -> "np.ndarray":
        """The ids at ``s .. s + max_length`` (inclusive), in the stored dtype."""
        import numpy as np

        e = s + self.max_length + 1
        k = bisect.bisect_right(self._bounds, s) - 1
        lo = self._bounds[k]
        if e <= self._bounds[k + 1]:
            return self._parts[k][s - lo:e - lo]
        pieces = []  # the window spans one or more shard boundaries
        while s < e:
            hi = min(e, self._bounds[k + 1])
            pieces.append(self._parts[k][s - self._bounds[k]:hi - self._bounds[k]])
            s, k = hi, k + 1
        return np.concatenate(pieces)

    def __getitem__(self, i: int) -> tuple["np.ndarray", "np.ndarray"]:
        import numpy as np

        chunk = self._window(self.start(i))
        return chunk[:-1].astype(np.int64), chunk[1:].astype(np.int64)

    def get_batch(self, indices: Any) -> tuple["np.ndarray", "np.ndarray"]:
        """Windows `indices`, stacked: windows of 64 ids or more are copied by slices, one per
        window; shorter ones gathered by one fancy index per shard touched.

        Args:
            indices: Window indices (a sequence or an integer array; negative counts from the end).

        Returns:
            ``(inputs, targets)``, int64 arrays of shape ``(len(indices), max_length)``.

        >>> ds = TokenDataset(list(range(10)), max_length=3, stride=1)
        >>> ds.get_batch([0, -1])[1].tolist()
        [[1, 2, 3], [7, 8, 9]]
        """
        import numpy as np

        idx = np.asarray(indices)
        if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
            raise TypeError(f"indices must be a 1-D sequence of integers, not {idx.dtype} with shape {idx.shape}")
        idx = idx.astype(np.int64, copy=False)
        if idx.size and (int(idx.min()) < -self._len or int(idx.max()) >= self._len):
            bad = int(idx[(idx < -self._len) | (idx >= self._len)][0])
            raise IndexError(f"window index {bad} is out of range for a dataset of {self._len} windows")
        idx = np.where(idx < 0, idx + self._len, idx)
        starts = idx * self.stride if self._starts is None else self._starts[idx]
        if self.max_length >= _ROW_COPY_MIN_LENGTH:
            # Long windows: one slice copy per window, converted while copied, straight into
            # contiguous outputs. Measured on (8, 1024) batches from 2 shards: ~20k batches/s,
            # against ~8k for one fancy index per shard (the index array, the per-shard grouping
            # and the int64 casts of the strided halves cost more than 8 Python iterations).
            x = np.empty((len(starts), self.max_length), np.int64)
            y = np.empty((len(starts), self.max_length), np.int64)
            for r, s in enumerate(starts.tolist()):
                w = self._window(s)
                x[r] = w[:-1]
                y[r] = w[1:]
            return x, y
        # Short windows (many per batch): one fancy index per shard, no loop per window.
        pos = starts[:, None] + self._offsets
        if len(self._parts) == 1:
            tok = self._parts[0][pos]
        else:
            first = np.searchsorted(self._bounds_np, starts, "right") - 1
            last = np.searchsorted(self._bounds_np, starts + self.max_length, "right") - 1
            same = first == last
            if same.all() and len(first) and first.min() == first.max():
                tok = self._parts[int(first[0])][pos - self._bounds[int(first[0])]]
            else:
                tok = np.empty(pos.shape, self.dtype)
                for k in np.unique(first[same]).tolist():  # one fancy index per shard
                    rows = np.nonzero(same & (first == k))[0]
                    tok[rows] = self._parts[k][pos[rows] - self._bounds[k]]
                for r in np.nonzero(~same)[0].tolist():  # the few windows across a boundary
                    tok[r] = self._window(int(starts[r]))
        return tok[:, :-1].astype(np.int64), tok[:, 1:].astype(np.int64)

    def __repr__(self) -> str:
        src = str(self._dir) if self._dir is not None else "array"
        return f"TokenDataset({src!r}, max_length={self.max_length}, stride={self.stride}, align={self.align!r}, windows={self._len})"

    # A shard dataset pickles as its directory and options (worker processes re-map the files)
    # instead of copying the corpus into the pickle.
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        if self._dir is not None:
            state.pop("_parts")
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_parts" not in state:
            self._setup(_Shards(self._dir).arrays)  # type: ignore[arg-type]


def _greedy_starts(doc_starts: "np.ndarray", stride: int, limit: int) -> "np.ndarray":
    """Document starts chosen greedily at least `stride` apart, each below `limit` (so a window fits)."""
    import numpy as np

    starts = doc_starts[doc_starts < limit]
    if stride == 1 or not len(starts):
        return np.asarray(starts, np.int64)
    chosen = [int(starts[0])]
    j = 0
    # One binary search per window (not per document): the next start is the first at or past s + stride.
    while True:
        j = int(np.searchsorted(starts, chosen[-1] + stride, "left"))
        if j >= len(starts):
            break
        chosen.append(int(starts[j]))
    return np.asarray(chosen, np.int64)
