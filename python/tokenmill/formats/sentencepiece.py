"""sentencepiece ``.model`` files: recognising one by its content, reading it into a
`tokenmill.SentencePiece`, writing one back (``export("sentencepiece", path)``), and
`model_bytes`, a small writer of new ``.model`` files from pieces (for examples and tests).

A ``.model`` is a protobuf ``ModelProto``; the Rust core parses and writes it (every field it
does not interpret is kept, so a load -> export round trip loses nothing). Errors name the file
and the field (``pieces[7]: ...``). Recognition reads the first bytes: a ``pieces`` record
(field 1, length-delimited) whose own first field is the piece string, with lengths that fit;
the extension is never looked at.

It does not train models (sentencepiece's trainer does) or read WORD and CHAR models.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path

from .._io import PathLike, atomic_write_bytes
from ..errors import VocabFormatError
from ..models.sentencepiece import SentencePiece

__all__ = ["looks_like_sentencepiece", "load_sentencepiece", "export_sentencepiece", "model_bytes"]


def _varint(data: bytes, pos: int) -> tuple[int, int] | None:
    value = shift = 0
    while pos < len(data) and shift < 64:
        b = data[pos]
        value |= (b & 0x7F) << shift
        pos += 1
        if not b & 0x80:
            return value, pos
        shift += 7
    return None


def looks_like_sentencepiece(head: bytes) -> bool:
    """True when `head` (a file's first bytes) starts like a sentencepiece ``.model``.

    >>> looks_like_sentencepiece(model_bytes([("<unk>", 0.0, 2)])), looks_like_sentencepiece(b"\\n\\n\\nhello")
    (True, False)
    """
    if head[:1] != b"\x0a":
        return False
    outer = _varint(head, 1)
    if outer is None or outer[0] < 2 or head[outer[1] : outer[1] + 1] != b"\x0a":
        return False
    inner = _varint(head, outer[1] + 1)
    if inner is None:
        return False
    # The piece string must fit inside its record, and the record must go on with a score
    # (field 2, fixed32), a type (field 3, varint) or end right there.
    end_of_piece = inner[1] + inner[0]
    end_of_record = outer[1] + outer[0]
    if end_of_piece > end_of_record:
        return False
    nxt = head[end_of_piece : end_of_piece + 1]
    return end_of_piece == end_of_record or nxt in (b"\x15", b"\x18")


def load_sentencepiece(path: PathLike, data: bytes | None = None) -> SentencePiece:
    """The `tokenmill.SentencePiece` of a ``.model`` file.

    Args:
        path: Local file path (named in errors).
        data: Its content when already read; None: read `path`.

    Returns:
        The model; ids as sentencepiece gives them.

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "tiny.model")
    >>> _ = open(p, "wb").write(model_bytes([("<unk>", 0.0, 2), ("▁hi", -1.0, 1)]))
    >>> load_sentencepiece(p).encode("hi hi")
    [1, 1]
    """
    if data is None:
        data = Path(path).read_bytes()
    try:
        return SentencePiece(data)
    except VocabFormatError as e:
        raise e.at(str(path), "sentencepiece") from None


def export_sentencepiece(tok: SentencePiece, path: PathLike) -> list[Path]:
    """Writes `tok` as a ``.model`` file (atomically); sentencepiece loads it.

    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "out.model")
    >>> tok = SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁hi", -1.0, 1)]))
    >>> [x.name for x in export_sentencepiece(tok, p)], load_sentencepiece(p).encode("hi")
    (['out.model'], [1])
    """
    atomic_write_bytes(path, tok.to_model_bytes())
    return [Path(path)]


# --- a small .model writer ------------------------------------------------------------------

_MODEL_TYPES = {"unigram": 1, "bpe": 2, "word": 3, "char": 4}


def _key(field: int, wire: int) -> bytes:
    return _uvarint(field << 3 | wire)


def _uvarint(v: int) -> bytes:
    v &= (1 << 64) - 1  # negative int32 values are 10-byte varints, as protobuf writes them
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _bytes_field(field: int, data: bytes) -> bytes:
    return _key(field, 2) + _uvarint(len(data)) + data


def model_bytes(pieces: Sequence[tuple[str, float, int]], *, model_type: str = "unigram", byte_fallback: bool = False,
                add_dummy_prefix: bool = True, remove_extra_whitespaces: bool = True, escape_whitespaces: bool = True,
                treat_whitespace_as_suffix: bool = False, precompiled_charsmap: bytes = b"") -> bytes:
    """The bytes of a ``.model`` file holding `pieces` and these options (others default).

    Args:
        pieces: ``(piece, score, type)`` per id; types as `tokenmill.models.sentencepiece.PIECE_TYPES`
            (1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte).
        model_type: ``"unigram"`` or ``"bpe"`` (``"word"`` and ``"char"`` are written too,
            for tests: tokenmill does not read them).
        byte_fallback, treat_whitespace_as_suffix: `TrainerSpec` fields.
        add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces, precompiled_charsmap:
            `NormalizerSpec` fields (no charsmap: no normalization).

    Returns:
        The file's bytes.

    >>> model_bytes([("<unk>", 0.0, 2)])[:10]
    b'\\n\\x0e\\n\\x05<unk>\\x15'
    """
    out = bytearray()
    for piece, score, kind in pieces:
        rec = _bytes_field(1, piece.encode("utf-8")) + _key(2, 5) + struct.pack("<f", score) + _key(3, 0) + _uvarint(kind)
        out += _bytes_field(1, rec)
    trainer = _key(3, 0) + _uvarint(_MODEL_TYPES[model_type])
    if treat_whitespace_as_suffix:
        trainer += _key(24, 0) + _uvarint(1)
    if byte_fallback:
        trainer += _key(35, 0) + _uvarint(1)
    out += _bytes_field(2, trainer)
    norm = b""
    if precompiled_charsmap:
        norm += _bytes_field(2, precompiled_charsmap)
    norm += _key(3, 0) + _uvarint(add_dummy_prefix) + _key(4, 0) + _uvarint(remove_extra_whitespaces)
    norm += _key(5, 0) + _uvarint(escape_whitespaces)
    out += _bytes_field(3, norm)
    return bytes(out)
