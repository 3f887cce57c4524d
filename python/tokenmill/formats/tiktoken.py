"""tiktoken's rank files (``<base64 token> <rank>`` per line): read, write, export, load.

* `load_tiktoken_bpe` / `dump_tiktoken_bpe`: ``{bytes: rank}`` from and to a rank file. The
  reader is strict where tiktoken is lenient (bad base64, duplicate tokens or ranks, missing
  single bytes are errors naming ``file:line``); parsing runs in the Rust core.
* `export_tiktoken`: a byte-level `Encoding` as the rank file plus ``<stem>.json`` holding
  ``name``, ``pat_str`` and ``special_tokens``, the other arguments of ``tiktoken.Encoding``.
* `load_tiktoken_files`: reads such a pair back as an `Encoding` (`tokenmill.load` uses it).

A rank file alone holds no pattern or special tokens; it never touches the network.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from .. import _core, _schema
from .._io import PathLike, atomic_write_bytes, atomic_write_many, read_verified
from ..encoding import Encoding
from ..errors import PatternError, SpecialTokenError, VocabFormatError, VocabWarning

__all__ = ["load_tiktoken_bpe", "dump_tiktoken_bpe", "export_tiktoken", "load_tiktoken_files", "looks_like_rank_file"]


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


def export_tiktoken(enc, path: PathLike) -> list[Path]:
    """Writes the rank file to `path` and ``name``/``pat_str``/``special_tokens`` next to it.

    Args:
        enc: The encoding.
        path: The rank file, e.g. ``"mytok.tiktoken"``; the JSON goes to ``"mytok.json"``.

    Returns:
        ``[rank file, JSON file]``. Load in tiktoken with ``tiktoken.Encoding(**meta,
        mergeable_ranks=tiktoken.load.load_tiktoken_bpe(rank_file))``.

    >>> import tokenmill, tempfile, os, json
    >>> d = tempfile.mkdtemp()
    >>> ranks_path, meta_path = export_tiktoken(tokenmill.get_encoding("gpt2"), os.path.join(d, "gpt2.tiktoken"))
    >>> sorted(json.load(open(meta_path)))
    ['name', 'pat_str', 'special_tokens']
    """
    path = Path(path)
    meta = path.with_suffix(".json")
    if meta == path:
        raise ValueError(f"{path}: give the rank file a suffix other than .json, e.g. .tiktoken")
    doc = {"name": enc.name, "pat_str": enc.pattern, "special_tokens": enc.special_tokens}
    atomic_write_many([(path, enc.rank_file_bytes()), (meta, json.dumps(doc, ensure_ascii=False, indent=1).encode("utf-8"))])
    return [path, meta]


def looks_like_rank_file(head: bytes) -> bool:
    """True when the first line of `head` reads ``<base64> <int>``.

    >>> looks_like_rank_file(b"IQ== 0\\n"), looks_like_rank_file(b'{"a": 1}')
    (True, False)
    """
    first = head.split(b"\n", 1)[0].strip()
    parts = first.split(b" ")
    return len(parts) == 2 and parts[1].isdigit() and bool(parts[0]) and all(c in _B64 for c in parts[0])


_B64 = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def load_tiktoken_files(path: PathLike) -> Encoding:
    """The `Encoding` of a rank file written by `export_tiktoken` (with ``<stem>.json`` beside it).

    Args:
        path: The rank file.

    Returns:
        The encoding. Without the JSON beside it there is no pattern or special-token list:
        a `VocabFormatError` says how to build the encoding by hand.

    >>> import tokenmill, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "gpt2.tiktoken")
    >>> _ = tokenmill.get_encoding("gpt2").export("tiktoken", p)
    >>> load_tiktoken_files(p).encode("hello world")
    [31373, 995]
    """
    path = Path(path)
    meta_path = path.with_suffix(".json")
    if not meta_path.is_file():
        raise VocabFormatError(
            f"a tiktoken rank file holds no pattern or special tokens, and {meta_path.name} (written beside it by "
            "export('tiktoken')) is missing; build the encoding with tokenmill.Encoding(name, pat_str, "
            "tokenmill.load_tiktoken_bpe(path), special_tokens)",
            str(path), format="tiktoken",
        )
    meta = _schema.read_json(meta_path, format="tiktoken")
    where = str(meta_path)
    try:
        if not isinstance(meta, dict):
            raise VocabFormatError(f"expected a JSON object with name, pat_str and special_tokens, got {_schema.json_type(meta)}")
        name = _schema.field(meta, "name", str, "")
        pattern = _schema.field(meta, "pat_str", str, "")
        specials = _schema.field(meta, "special_tokens", dict, "", required=False, default={})
    except VocabFormatError as e:
        raise e.at(where, "tiktoken") from None
    ranks = load_tiktoken_bpe(path, allow_gaps=True)
    try:
        return Encoding(name, pattern, ranks, specials)
    except (VocabFormatError, SpecialTokenError, PatternError) as e:  # the side file's fields
        reason = e.reason if isinstance(e, VocabFormatError) else str(e)
        raise VocabFormatError(f"special_tokens / pat_str: {reason}", where, format="tiktoken") from None
