"""Shard files of `tokenmill prepare` (issue 11).

* The Rust writer (``crates/tokenmill-core/src/data/shards.rs``) checks what it writes against byte
  constants in its tests; here those constants are read from its source and checked against
  ``np.save`` and, when megatron-core's wheel is in /tmp/mc (``pip download megatron-core --no-deps
  -d /tmp/mc``), against megatron-core's own index writer.
* The Python reader `tokenmill.data.shard_files.open_shard` reads files written here with
  numpy/struct per the spec (and the Rust constants), and refuses truncated or corrupted files
  with a `ShardFormatError` naming the file. megatron-core's own reader reads the same files.

megatron-core's module imports torch; its index classes do not use it, so they are taken from the
wheel's source by name (nothing of it is copied into the repo).
"""

from __future__ import annotations

import ast
import glob
import logging
import os
import re
import struct
import types
import typing
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tokenmill.data.shard_files import open_shard, shard_files
from tokenmill.errors import ShardFormatError, TokenmillError

RUST_SOURCE = Path(__file__).resolve().parent.parent / "crates" / "tokenmill-core" / "src" / "data" / "shards.rs"
MEGATRON_CODE = {"uint16": 8, "uint32": 4}


# ---------------------------------------------------------------------------------------------
# Writers per the spec (numpy / struct), and megatron-core's classes when its wheel is present.


def _ids(ids, dtype):
    return np.asarray(ids, dtype="<u2" if dtype == "uint16" else "<u4")


def write_shard(d: Path, index: int, layout: str, dtype: str, ids, starts) -> dict:
    """Writes shard `index` like the Rust writer and returns its index.json entry."""
    f0, f1 = shard_files(index, layout)
    a = _ids(ids, dtype)
    starts = np.asarray(starts, dtype="<i8")
    if layout == "npy":
        np.save(d / f0, a)
        np.save(d / f1, starts)
    elif layout == "llmc":
        header = np.zeros(256, dtype="<i4")
        header[:3] = (20240520, 1, len(a))
        (d / f0).write_bytes(header.tobytes() + a.astype("<u2").tobytes())
        np.save(d / f1, starts)
    else:
        (d / f0).write_bytes(a.tobytes())
        (d / f1).write_bytes(megatron_idx(dtype, len(a), starts))
    return {"files": [f0, f1], "tokens": len(a), "documents": len(starts), "first_document": 0, "first_token": 0}


def megatron_idx(dtype: str, n_tokens: int, starts) -> bytes:
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.diff(np.append(starts, n_tokens)).astype("<i4")
    n = len(starts)
    return (
        b"MMIDIDX\x00\x00"
        + struct.pack("<QBQQ", 1, MEGATRON_CODE[dtype], n, n + 1)
        + lengths.tobytes()
        + (starts * (2 if dtype == "uint16" else 4)).astype("<i8").tobytes()
        + np.arange(n + 1, dtype="<i8").tobytes()
    )


def _megatron_wheel() -> str | None:
    found = sorted(glob.glob(os.environ.get("TOKENMILL_MEGATRON_WHEEL", "/tmp/mc/megatron_core-*.whl")))
    return found[-1] if found else None


_MEGATRON: dict = {}


def megatron():
    """megatron-core's DType, _IndexWriter, _IndexReader and _MMapBinReader, from the wheel's source."""
    wheel = _megatron_wheel()
    if wheel is None:
        pytest.skip("megatron-core's wheel is not in /tmp/mc (pip download megatron-core --no-deps -d /tmp/mc)")
    if wheel not in _MEGATRON:
        from abc import ABC, abstractmethod
        from collections.abc import Iterable
        from enum import Enum
        from functools import lru_cache

        src = zipfile.ZipFile(wheel).read("megatron/core/datasets/indexed_dataset.py").decode()
        wanted = {"DType", "_IndexWriter", "_IndexReader", "_BinReader", "_MMapBinReader"}
        body = [
            n
            for n in ast.parse(src).body
            if (isinstance(n, ast.ClassDef) and n.name in wanted)
            or (isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "_INDEX_HEADER" for t in n.targets))
        ]
        assert len(body) == len(wanted) + 1, "megatron-core's indexed_dataset.py changed shape"
        ns = {
            "numpy": np, "struct": struct, "time": __import__("time"), "Enum": Enum, "lru_cache": lru_cache,
            "ABC": ABC, "abstractmethod": abstractmethod, "Iterable": Iterable,
            "TracebackType": types.TracebackType, "logging": logging, "logger": logging.getLogger("megatron"),
            "log_single_rank": lambda *a, **k: None,
            "MultiStorageClientFeature": types.SimpleNamespace(is_enabled=lambda: False),
        }  # fmt: skip
        ns.update({k: getattr(typing, k) for k in ("List", "Optional", "Tuple", "Type", "Union")})
        exec(compile(ast.Module(body, []), wheel + "!indexed_dataset.py", "exec"), ns)
        _MEGATRON[wheel] = types.SimpleNamespace(**{k: ns[k] for k in wanted})
    return _MEGATRON[wheel]


def rust_constants() -> dict[str, bytes]:
    """The byte constants of the Rust writer's tests (`const NAME: &[u8] = b"..."` or `&[1, 2, ...]`)."""
    src = RUST_SOURCE.read_text()
    out = {}
    for name, lit in re.findall(r'const (\w+): &\[u8\] =\s*(b"(?:[^"\\]|\\.)*"|&\[[^\]]*\]);', src):
        if lit.startswith("b"):
            out[name] = ast.literal_eval(lit)  # Rust's byte-string escapes used there are Python's too
        else:
            out[name] = bytes(int(x) for x in lit[2:-1].replace("\n", " ").split(",") if x.strip())
    return out


# ---------------------------------------------------------------------------------------------
# The Rust writer's expected bytes, checked against numpy and megatron-core.

NPY_CASES = {
    "NPY_U16_5": np.array([1, 2, 3, 4, 65535], dtype="<u2"),
    "NPY_U16_EMPTY": np.array([], dtype="<u2"),
    "NPY_U32_3": np.array([70000, 1, 2**32 - 1], dtype="<u4"),
    "NPY_U32_EMPTY": np.array([], dtype="<u4"),
    "NPY_I8_DOCS": np.array([0, 3, 3], dtype="<i8"),
    "NPY_I8_EMPTY": np.array([], dtype="<i8"),
}
IDX_CASES = {"IDX_U16": (np.uint16, [3, 0, 2]), "IDX_I32": (np.int32, [1, 2]), "IDX_EMPTY": (np.uint16, [])}


def _np_save(a) -> bytes:
    import io

    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def test_rust_npy_bytes_are_np_saves():
    consts = rust_constants()
    for name, a in NPY_CASES.items():
        assert consts[name] == _np_save(a), name
    import io

    for name, n in (("NPY_HDR_100M", 100_000_000), ("NPY_HDR_MAX", 2**64 - 1)):
        b = io.BytesIO()
        np.lib.format.write_array_header_1_0(b, {"descr": "<u2", "fortran_order": False, "shape": (n,)})
        assert consts[name] == b.getvalue(), name


def test_rust_idx_bytes_are_megatron_cores(tmp_path):
    consts = rust_constants()
    m = megatron()
    for name, (dt, lengths) in IDX_CASES.items():
        path = str(tmp_path / (name + ".idx"))
        with m._IndexWriter(path, dt) as w:
            w.write(lengths, None, list(range(len(lengths) + 1)))
        assert consts[name] == Path(path).read_bytes(), name


def test_rust_expected_files_read_back(tmp_path):
    c = rust_constants()
    (tmp_path / "shard_000000.npy").write_bytes(c["NPY_U16_5"])
    (tmp_path / "shard_000000.docs.npy").write_bytes(c["NPY_I8_DOCS"])
    entry = {"files": ["shard_000000.npy", "shard_000000.docs.npy"], "tokens": 5, "documents": 3}
    ids, starts = open_shard(tmp_path, entry, "npy", "uint16")
    assert ids.tolist() == [1, 2, 3, 4, 65535] and starts.tolist() == [0, 3, 3]
    (tmp_path / "shard_000001.bin").write_bytes(np.array([1, 2, 3, 4, 5], "<u2").tobytes())
    (tmp_path / "shard_000001.idx").write_bytes(c["IDX_U16"])
    entry = {"files": ["shard_000001.bin", "shard_000001.idx"], "tokens": 5, "documents": 3}
    ids, starts = open_shard(tmp_path, entry, "megatron", "uint16")
    assert ids.tolist() == [1, 2, 3, 4, 5] and starts.tolist() == [0, 3, 3]
    (tmp_path / "shard_000002.bin").write_bytes(np.array([70000, 1, 2], "<u4").tobytes())
    (tmp_path / "shard_000002.idx").write_bytes(c["IDX_I32"])
    entry = {"files": ["shard_000002.bin", "shard_000002.idx"], "tokens": 3, "documents": 2}
    ids, starts = open_shard(tmp_path, entry, "megatron", "uint32")
    assert ids.dtype == np.uint32 and ids.tolist() == [70000, 1, 2] and starts.tolist() == [0, 1]


# ---------------------------------------------------------------------------------------------
# The reader.

CASES = {
    "three docs": ([5, 6, 7, 8, 9, 10], [0, 2, 5]),
    "empty docs": ([5, 6], [0, 0, 2, 2]),
    "one doc": ([65535, 0], [0]),
    "empty shard": ([], []),
}
LAYOUT_DTYPES = [("npy", "uint16"), ("npy", "uint32"), ("megatron", "uint16"), ("megatron", "uint32"), ("llmc", "uint16")]


@pytest.mark.parametrize("layout,dtype", LAYOUT_DTYPES)
@pytest.mark.parametrize("case", list(CASES))
def test_round_trip(tmp_path, layout, dtype, case):
    ids, starts = CASES[case]
    if dtype == "uint32" and ids:
        ids = [i + 70000 for i in ids]
    entry = write_shard(tmp_path, 12, layout, dtype, ids, starts)
    got_ids, got_starts = open_shard(tmp_path, entry, layout, dtype)
    assert got_ids.dtype == np.dtype("<u2" if dtype == "uint16" else "<u4")
    assert got_starts.dtype == np.int64
    assert got_ids.tolist() == ids and got_starts.tolist() == starts
    assert not got_ids.flags.writeable
    open_shard(str(tmp_path), entry, layout, dtype)  # str or Path


def test_large_shard_is_mapped(tmp_path):
    ids = (np.arange(1_000_003, dtype=np.uint64) * 2654435761 % 65536).astype("<u2")
    entry = write_shard(tmp_path, 0, "npy", "uint16", ids, [0, 10, 999_999])
    got, starts = open_shard(tmp_path, entry, "npy", "uint16")
    assert isinstance(got, np.memmap) and np.array_equal(got, ids) and starts.tolist() == [0, 10, 999_999]


@pytest.mark.parametrize("dtype", ["uint16", "uint32"])
def test_megatron_core_reads_our_layout(tmp_path, dtype):
    m = megatron()
    ids, starts = [7, 8, 9, 10, 11, 12, 13], [0, 3, 3, 6]
    entry = write_shard(tmp_path, 0, "megatron", dtype, ids, starts)
    bin_path, idx_path = (str(tmp_path / f) for f in entry["files"])
    # Our layout is byte for byte what megatron-core's own writer makes.
    ref = str(tmp_path / "ref.idx")
    with m._IndexWriter(ref, np.uint16 if dtype == "uint16" else np.int32) as w:
        w.write([3, 0, 3, 1], None, [0, 1, 2, 3, 4])
    assert Path(ref).read_bytes() == Path(idx_path).read_bytes()
    r = m._IndexReader(idx_path, False)
    data = m._MMapBinReader(bin_path)
    docs = [data.read(r.dtype, int(r.sequence_lengths[i]), int(r.sequence_pointers[i])).tolist() for i in range(len(r))]
    assert docs == [[7, 8, 9], [], [10, 11, 12], [13]]
    assert r.document_indices.tolist() == [0, 1, 2, 3, 4]
    assert r.dtype == (np.uint16 if dtype == "uint16" else np.int32)


# ---------------------------------------------------------------------------------------------
# Refusals: each names the file.


def _corrupt(path: Path, fn):
    b = bytearray(path.read_bytes())
    path.write_bytes(bytes(fn(b)))


def _set(b: bytearray, at: int, fmt: str, value) -> bytearray:
    b[at : at + struct.calcsize(fmt)] = struct.pack(fmt, value)
    return b


BAD = {
    # (layout, dtype, file index, corruption, message fragment)
    "npy truncated": ("npy", "uint16", 0, lambda b: b[:-1], "truncated"),
    "npy trailing": ("npy", "uint16", 0, lambda b: b + b"\0\0", "trailing bytes"),
    "npy header cut": ("npy", "uint16", 0, lambda b: b[:20], "not a valid .npy file"),
    "npy not npy": ("npy", "uint16", 0, lambda b: b"hello" + b, "not a valid .npy file"),
    "npy wrong dtype": ("npy", "uint16", 0, lambda b: b.replace(b"'<u2'", b"'<u4'"), "expected a 1-D <u2"),
    "npy wrong count": ("npy", "uint16", 0, lambda b: b.replace(b"(6,)", b"(5,)"), "holds 5 elements"),
    "npy 2-D": ("npy", "uint16", 0, lambda b: b.replace(b"(6,), ", b"(2, 3)"), "shape (2, 3)"),
    "docs truncated": ("npy", "uint16", 1, lambda b: b[:-8], "truncated"),
    "docs not from 0": ("npy", "uint16", 1, lambda b: _set(b, 128, "<q", 1), "starts at 1, not 0"),
    "docs decrease": ("npy", "uint16", 1, lambda b: _set(b, 136, "<q", 9), "document 2 starts at 5, before"),
    "docs past end": ("npy", "uint16", 1, lambda b: _set(b, 144, "<q", 7), "past the 6 tokens"),
    "llmc magic": ("llmc", "uint16", 0, lambda b: _set(b, 0, "<i", 20240801), "magic 20240801"),
    "llmc version": ("llmc", "uint16", 0, lambda b: _set(b, 4, "<i", 2), "version 2"),
    "llmc count": ("llmc", "uint16", 0, lambda b: _set(b, 8, "<i", 5), "counts 5 tokens"),
    "llmc truncated": ("llmc", "uint16", 0, lambda b: b[:-2], "truncated"),
    "llmc header cut": ("llmc", "uint16", 0, lambda b: b[:100], "shorter than its 1024-byte header"),
    "megatron magic": ("megatron", "uint16", 1, lambda b: b"MMIDIDY" + b[7:], "not a megatron index"),
    "megatron version": ("megatron", "uint16", 1, lambda b: _set(b, 9, "<Q", 2), "version 2"),
    "megatron code": ("megatron", "uint16", 1, lambda b: _set(b, 17, "<B", 4), "dtype code 4"),
    "megatron counts": ("megatron", "uint16", 1, lambda b: _set(b, 26, "<Q", 3), "3 document indices"),
    "megatron idx cut": ("megatron", "uint16", 1, lambda b: b[:-8], "truncated"),
    "megatron idx trailing": ("megatron", "uint16", 1, lambda b: b + b"\0", "trailing bytes"),
    "megatron length": ("megatron", "uint16", 1, lambda b: _set(b, 34, "<i", 1), "pointers do not follow"),
    "megatron doc index": ("megatron", "uint16", 1, lambda b: _set(b, 34 + 36 + 8, "<q", 2), "document indices"),
    "megatron bin cut": ("megatron", "uint16", 0, lambda b: b[:-2], "truncated"),
    "megatron bin trailing": ("megatron", "uint32", 0, lambda b: b + b"\0" * 4, "trailing bytes"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_refuses_corrupted_files(tmp_path, case):
    layout, dtype, which, fn, fragment = BAD[case]
    entry = write_shard(tmp_path, 3, layout, dtype, [1, 2, 3, 4, 5, 6], [0, 2, 5])
    path = tmp_path / entry["files"][which]
    _corrupt(path, fn)
    with pytest.raises(ShardFormatError) as ei:
        open_shard(tmp_path, entry, layout, dtype)
    msg = str(ei.value)
    assert fragment in msg and str(path) in msg, msg
    assert isinstance(ei.value, (TokenmillError, ValueError))


@pytest.mark.parametrize("layout,dtype", LAYOUT_DTYPES)
def test_refuses_entry_mismatch_and_missing_files(tmp_path, layout, dtype):
    entry = write_shard(tmp_path, 0, layout, dtype, [1, 2, 3], [0, 1])
    for key, value, fragment in (("tokens", 4, "4"), ("documents", 3, "3"), ("tokens", -1, "'tokens'"),
                                 ("documents", True, "'documents'"), ("files", ["shard_000000.npy"], "'files'"),
                                 ("files", ["x.bin", "x.idx"], "does not name a shard")):  # fmt: skip
        with pytest.raises(ShardFormatError, match=re.escape(fragment)):
            open_shard(tmp_path, {**entry, key: value}, layout, dtype)
    for f in entry["files"]:
        (tmp_path / f).rename(tmp_path / "moved")
        with pytest.raises(ShardFormatError, match=re.escape(str(tmp_path / f)) + ": missing"):
            open_shard(tmp_path, entry, layout, dtype)
        (tmp_path / "moved").rename(tmp_path / f)
    open_shard(tmp_path, entry, layout, dtype)


def test_refuses_unknown_layout_dtype_and_uint32_llmc(tmp_path):
    entry = write_shard(tmp_path, 0, "llmc", "uint16", [1, 2], [0])
    with pytest.raises(ShardFormatError, match="uint16 tokens only"):
        open_shard(tmp_path, entry, "llmc", "uint32")
    with pytest.raises(ShardFormatError, match="unknown shard layout 'parquet'"):
        open_shard(tmp_path, entry, "parquet", "uint16")
    with pytest.raises(ShardFormatError, match="unknown shard dtype 'int64'"):
        open_shard(tmp_path, entry, "llmc", "int64")
    with pytest.raises(ShardFormatError, match="a shard entry must be a dict"):
        open_shard(tmp_path, [entry], "llmc", "uint16")


def test_shard_files_names():
    assert shard_files(0, "npy") == ["shard_000000.npy", "shard_000000.docs.npy"]
    assert shard_files(1_234_567, "llmc") == ["shard_1234567.bin", "shard_1234567.docs.npy"]
