"""Loading and saving vocabulary files: tiktoken rank files and GPT-2's encoder.json + vocab.bpe.

Loaders are strict where tiktoken is lenient (bad base64, duplicate tokens or ranks, missing
single bytes, a merges file that disagrees with its encoder) and every error is a
`VocabFormatError` naming the file and line. Files are read from local paths only: this
module never touches the network. Writing is atomic (temporary file, fsync, rename).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Union

from . import _core
from .errors import VocabFormatError, VocabWarning

PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["load_tiktoken_bpe", "dump_tiktoken_bpe", "load_gpt2_files", "read_verified", "atomic_write_bytes", "atomic_write_many"]


def read_verified(path: PathLike, expected_sha256: str | None = None) -> bytes:
    """Reads a file, checking its sha256 when `expected_sha256` is given.

    >>> import tokenmill.loaders as L, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x"); _ = open(p, "wb").write(b"hi")
    >>> L.read_verified(p, "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4")
    b'hi'
    """
    data = Path(path).read_bytes()
    if expected_sha256 is not None:
        got = hashlib.sha256(data).hexdigest()
        if got != expected_sha256:
            hint = " (the file has CRLF line endings; convert them to LF)" if b"\r\n" in data else ""
            raise VocabFormatError(
                f"sha256 mismatch: expected {expected_sha256}, got {got}{hint}; the file is corrupted or not the expected one",
                path,
            )
    return data


def load_tiktoken_bpe(
    path: PathLike, expected_hash: str | None = None, *, allow_gaps: bool = False, strict: bool = False
) -> dict[bytes, int]:
    """Loads a tiktoken rank file (``<base64 token> <rank>`` per line) as ``{bytes: rank}``.

    A multi-byte token that no merge of two lower-ranked tokens can form is never produced by
    BPE; such a token draws a `VocabWarning`, or a `VocabFormatError` when `strict`.

    Args:
        path: Local path of the file (URLs are not fetched).
        expected_hash: Optional sha256 hex digest to verify.
        allow_gaps: Accept increasing but non-contiguous ranks.
        strict: Make unformable tokens an error instead of a warning.

    Returns:
        ``{token bytes: rank}``.

    >>> import tokenmill, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "v.tiktoken")
    >>> tokenmill.dump_tiktoken_bpe({bytes([i]): i for i in range(256)}, p)
    >>> len(tokenmill.load_tiktoken_bpe(p))
    256
    """
    data = read_verified(path, expected_hash)
    try:
        pairs, unformable = _core.parse_tiktoken(data, allow_gaps)
    except VocabFormatError as e:
        raise e.at(str(path), "tiktoken") from None
    ranks = dict(pairs)
    if unformable:
        tok, rank = pairs[unformable[0]]
        more = f" ({len(unformable)} such tokens in all)" if len(unformable) > 1 else ""
        reason = f"token {tok!r} (rank {rank}) cannot be formed by merging two lower-ranked tokens{more}; BPE will never produce it"
        if strict:
            raise VocabFormatError(reason, str(path), unformable[0] + 1, "tiktoken")
        warnings.warn(f"{path}: {reason}", VocabWarning, stacklevel=2)
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        shown = ", ".join(f"0x{b:02x}" for b in missing[:16]) + (f" ... ({len(missing)} in all)" if len(missing) > 16 else "")
        raise VocabFormatError(
            f"single-byte tokens missing: {shown}; a byte-level BPE needs all 256 bytes as tokens", str(path), None, "tiktoken"
        )
    return ranks


def dump_tiktoken_bpe(bpe_ranks: dict[bytes, int], path: PathLike) -> None:
    """Writes ``{bytes: rank}`` as a tiktoken rank file, sorted by rank, atomically.

    >>> import tokenmill, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "v.tiktoken")
    >>> tokenmill.dump_tiktoken_bpe({bytes([i]): i for i in range(256)}, p)
    >>> open(p).readline()
    'AA== 0\\n'
    """
    items = []
    for tok, rank in bpe_ranks.items():
        if not isinstance(tok, bytes) or not isinstance(rank, int) or not 0 <= rank < 2**32 - 1:
            raise VocabFormatError(f"entry {tok!r}: {rank!r} is not bytes -> rank in [0, 2**32 - 1)")
        items.append((tok, rank))
    atomic_write_bytes(path, _core.dump_tiktoken(items))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: PathLike, data: bytes) -> None:
    """Writes `data` to `path` so that readers see the old file or the whole new one, never a
    partial one: temporary file in the same directory, fsync, rename, fsync the directory."""
    atomic_write_many([(path, data)])


def atomic_write_many(files: list[tuple[PathLike, bytes]]) -> None:
    """Writes several files that belong together: every temporary file is written and synced
    before the first rename, so an error or Ctrl-C while writing leaves all the old files.

    >>> import tokenmill.loaders as L, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> L.atomic_write_many([(os.path.join(d, "a"), b"1"), (os.path.join(d, "b"), b"2")])
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


# ---------------------------------------------------------------------------- GPT-2 files


def _gpt2_byte_decoder() -> dict[str, int]:
    """GPT-2's printable stand-in character for each byte, inverted: {char: byte}."""
    printable = [b for b in range(256) if chr(b).isprintable() and chr(b) != " "]
    table = {chr(b): b for b in printable}
    n = 0
    for b in range(256):
        if b not in table.values():
            table[chr(256 + n)] = b
            n += 1
    return table


def _ids_from_encoder(seen: dict[bytes, int], specials: dict[str, int], merged: list[tuple[bytes, int]], vpath: str):
    """`(ranks, specials)` taking ids from encoder.json, or None if the files do not fit that reading.

    It fits when every single byte has an id, every merge's token has an id larger than the
    previous merge's, and each remaining entry of the form ``<|...|>`` is a special token.
    """
    if any(bytes([b]) not in seen for b in range(256)):
        return None
    ranks = {bytes([b]): seen[bytes([b])] for b in range(256)}
    last = -1
    for tok, lineno in merged:
        tid = seen.get(tok)
        if tid is None or tid <= last:
            return None
        ranks[tok] = last = tid
    specials = dict(specials)
    for tok, tid in seen.items():
        if tok not in ranks:
            name = tok.decode("utf-8", "replace")
            if not (name.startswith("<|") and name.endswith("|>")):
                return None
            specials[name] = tid
    return ranks, specials


def load_gpt2_files(encoder_json: PathLike, vocab_bpe: PathLike) -> tuple[dict[bytes, int], dict[str, int]]:
    """Reads GPT-2's ``encoder.json`` + ``vocab.bpe``; returns ``(mergeable_ranks, special_tokens)``.

    The ranks equal tiktoken's r50k_base: the 256 bytes in GPT-2's byte order, then one token per
    merge line. The two files must agree; `<|endoftext|>`/`<|startoftext|>` in encoder.json
    become special tokens. A ``#version`` header (first line only), CRLF, blank lines and a
    missing final newline are accepted; every other line is a merge, even one starting with ``#``.

    >>> import tokenmill  # doctest: +SKIP
    >>> ranks, specials = tokenmill.load_gpt2_files("encoder.json", "vocab.bpe")  # doctest: +SKIP
    """
    byte_of = _gpt2_byte_decoder()
    order = [byte_of[c] for c in byte_of]  # insertion order = GPT-2's rank order of single bytes

    def decode_symbol(sym: str, where: str, line: int | None) -> bytes:
        try:
            return bytes(byte_of[c] for c in sym)
        except KeyError as e:
            ch = e.args[0]
            raise VocabFormatError(f"character U+{ord(ch):04X} in {sym!r} is not a GPT-2 byte symbol", where, line) from None

    vpath = str(vocab_bpe)
    raw = Path(vocab_bpe).read_bytes()
    if not raw.strip():
        raise VocabFormatError("empty merges file", vpath)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise VocabFormatError(f"not valid UTF-8 at byte {e.start}", vpath) from None
    ranks: dict[bytes, int] = {bytes([b]): i for i, b in enumerate(order)}
    merged_tokens: list[tuple[bytes, int]] = []  # (token, line) in merge order
    first = True
    # split("\n"), not splitlines(): U+2028, U+0085, \x0b... are not line breaks in vocab.bpe.
    for lineno, line in enumerate(text.split("\n"), start=1):
        line = line.strip("\r")
        if not line.strip(" \t"):  # ASCII blanks only: other whitespace is data
            continue
        # Only a leading "#version" line is a header: "# #" and "## ##" are real GPT-2 merges.
        if first and line.startswith("#version"):
            first = False
            continue
        first = False
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise VocabFormatError(f"expected two symbols separated by one space, got {line!r}", vpath, lineno)
        merged = decode_symbol(parts[0], vpath, lineno) + decode_symbol(parts[1], vpath, lineno)
        if merged in ranks:
            raise VocabFormatError(f"merge {line!r} produces {merged!r}, which already has rank {ranks[merged]}", vpath, lineno)
        ranks[merged] = len(ranks)
        merged_tokens.append((merged, lineno))

    epath = str(encoder_json)
    eraw = Path(encoder_json).read_bytes()
    if not eraw.strip():
        raise VocabFormatError("empty encoder file", epath)

    def no_dupes(pairs):
        seen = {}
        for k, v in pairs:
            if k in seen:
                raise VocabFormatError(f"duplicate key {k!r} in JSON object", epath)
            seen[k] = v
        return seen

    try:
        encoder = json.loads(eraw.decode("utf-8"), object_pairs_hook=no_dupes)
    except UnicodeDecodeError as e:
        raise VocabFormatError(f"not valid UTF-8 at byte {e.start}", epath) from None
    except json.JSONDecodeError as e:
        raise VocabFormatError(f"invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})", epath, e.lineno) from None
    if not isinstance(encoder, dict):
        raise VocabFormatError(f"expected a JSON object of token -> id, got {type(encoder).__name__}", epath)
    specials: dict[str, int] = {}
    seen: dict[bytes, int] = {}
    for k, v in encoder.items():
        if not isinstance(v, int) or isinstance(v, bool):
            raise VocabFormatError(f"id of {k!r} is {v!r}, not an int", epath)
        if k in ("<|endoftext|>", "<|startoftext|>"):
            specials[k] = v
            continue
        seen[decode_symbol(k, epath, None)] = v
    if seen != ranks:
        # Files written by other trainers (tokenmill's export, HF) keep their own ids: single
        # bytes anywhere, merged tokens in increasing id order. Accept that when consistent.
        own = _ids_from_encoder(seen, specials, merged_tokens, vpath)
        if own is not None:
            return own
        for tok, r in ranks.items():
            if seen.get(tok) != r:
                sym = "".join(list(byte_of)[order.index(b)] for b in tok)
                other = seen.get(tok)
                detail = f"rank {other} vs {r}" if other is not None else f"missing from encoder.json (vocab.bpe gives rank {r})"
                raise VocabFormatError(f"encoder.json and vocab.bpe disagree at {sym!r}: {detail}", epath)
        extra = next(iter(set(seen) - set(ranks)))
        raise VocabFormatError(f"encoder.json has token {extra!r} (id {seen[extra]}) that vocab.bpe does not produce", epath)
    return ranks, specials
