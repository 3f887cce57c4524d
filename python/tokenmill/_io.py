"""File writing and verified reading shared by every format.

* `atomic_write_bytes` / `atomic_write_many`: a reader sees the old file(s) or the whole new
  one(s), never a partial write (temporary file in the same directory, fsync, rename, fsync
  the directory). A set of files that belong together is renamed only after every one of
  them is written.
* `read_verified`: a local file's bytes, checked against an expected sha256.

This module never touches the network and knows nothing about tokenizers.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Union

from . import _core
from .errors import VocabFormatError

__all__ = ["PathLike", "atomic_write_bytes", "atomic_write_many", "read_verified"]

PathLike = Union[str, "os.PathLike[str]"]


def read_verified(path: PathLike, expected_sha256: str | None = None) -> bytes:
    """Reads a file, checking its sha256 when `expected_sha256` is given.

    Args:
        path: Local file path.
        expected_sha256: Hex digest the content must have, or None.

    Returns:
        The file's bytes. A mismatch raises `VocabFormatError` (with a hint for CRLF files).

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x"); _ = open(p, "wb").write(b"hi")
    >>> read_verified(p, "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4")
    b'hi'
    """
    data = Path(path).read_bytes()
    if expected_sha256 is not None:
        got = _core.sha256_hex(data)  # not hashlib: importing it costs 3-4 ms
        if got != expected_sha256:
            hint = " (the file has CRLF line endings; convert them to LF)" if b"\r\n" in data else ""
            raise VocabFormatError(
                f"sha256 mismatch: expected {expected_sha256}, got {got}{hint}; the file is corrupted or not the expected one",
                path,
            )
    return data


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: PathLike, data: bytes) -> None:
    """Writes `data` to `path` so that readers see the old file or the whole new one.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a")
    >>> atomic_write_bytes(p, b"1"); open(p, "rb").read()
    b'1'
    """
    atomic_write_many([(path, data)])


def atomic_write_many(files: list[tuple[PathLike, bytes]]) -> None:
    """Writes several files that belong together: every temporary file is written and synced
    before the first rename, so an error or Ctrl-C while writing leaves all the old files.

    Args:
        files: ``[(path, bytes), ...]``; each path's directory must exist.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> atomic_write_many([(os.path.join(d, "a"), b"1"), (os.path.join(d, "b"), b"2")])
    >>> sorted(os.listdir(d))
    ['a', 'b']
    """
    temps: list[tuple[str, Path]] = []
    try:
        for path, data in files:
            path = Path(path)
            directory = path.parent if str(path.parent) else Path(".")
            if not directory.is_dir():
                raise FileNotFoundError(f"cannot write {str(path)!r}: directory {str(directory)!r} does not exist")
            import tempfile  # lazy: 7 ms of import time that only writing needs

            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
            temps.append((tmp, path))
            # mkstemp makes the file private (0600); give it the mode a plain open() would.
            os.fchmod(fd, 0o666 & ~_umask())
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        for tmp, path in temps:
            os.replace(tmp, path)
    except BaseException:
        for tmp, _ in temps:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        raise
    for directory in {path.parent if str(path.parent) else Path(".") for _, path in temps}:
        try:
            dfd = os.open(directory, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:  # some filesystems cannot fsync a directory; the rename is still atomic
            pass
