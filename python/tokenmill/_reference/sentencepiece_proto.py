"""Reader of sentencepiece `.model` files (the protobuf `ModelProto`), decoded by hand.

Only the protobuf wire format is needed: varints (wire type 0), 64-bit fixed (1, skipped),
length-delimited bytes (2: strings and nested messages) and 32-bit fixed (5: float scores).
Field numbers follow sentencepiece's `sentencepiece_model.proto`; unknown fields are skipped,
as protobuf does. Fields absent from the file take the proto's defaults.

It does not read `self_test_data` or `denormalizer_spec`, and does not write `.model` files.
Malformed input raises `VocabFormatError` naming the field; semantic checks (duplicates, a
missing unknown piece) are left to `sentencepiece.SentencePieceModel`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ..errors import VocabFormatError

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
UNIGRAM, BPE, WORD, CHAR = 1, 2, 3, 4


@dataclass
class TrainerSpec:
    """The `TrainerSpec` fields that change ids or decoding (the rest only steer training)."""

    model_type: int = UNIGRAM
    vocab_size: int = 8000
    byte_fallback: bool = False
    split_digits: bool = False
    treat_whitespace_as_suffix: bool = False
    allow_whitespace_only_pieces: bool = False
    unk_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    pad_id: int = -1
    unk_piece: str = "<unk>"
    bos_piece: str = "<s>"
    eos_piece: str = "</s>"
    pad_piece: str = "<pad>"
    unk_surface: str = " \u2047 "
    user_defined_symbols: list[str] = field(default_factory=list)
    control_symbols: list[str] = field(default_factory=list)


@dataclass
class NormalizerSpec:
    """`NormalizerSpec`: the precompiled charsmap and the three whitespace switches."""

    name: str = ""
    precompiled_charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True


@dataclass
class ModelProto:
    """The parsed file: `pieces` as (piece, score, type) triples, scores exact float32 values."""

    pieces: list[tuple[str, float, int]]
    trainer_spec: TrainerSpec
    normalizer_spec: NormalizerSpec


def _varint(data: bytes, pos: int, what: str) -> tuple[int, int]:
    """Decode one base-128 varint at `pos`; returns (value, next position)."""
    value = shift = 0
    while True:
        if pos >= len(data):
            raise VocabFormatError(f"truncated varint in {what}: the file is cut short or corrupted")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            raise VocabFormatError(f"varint longer than 10 bytes in {what}: the file is corrupted")


def _fields(data: bytes, what: str):
    """Yield (field number, wire type, value) of one message; bytes for type 2, int otherwise."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos, what)
        num, wire = key >> 3, key & 7
        if num == 0:
            raise VocabFormatError(f"field number 0 in {what}: not a sentencepiece .model file")
        if wire == 0:
            value, pos = _varint(data, pos, f"{what}.{num}")
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            if pos + size > len(data):
                raise VocabFormatError(f"truncated fixed{size * 8} field {what}.{num}")
            value, pos = data[pos : pos + size], pos + size
        elif wire == 2:
            size, pos = _varint(data, pos, f"{what}.{num} length")
            if pos + size > len(data):
                raise VocabFormatError(f"field {what}.{num} claims {size} bytes but only {len(data) - pos} remain")
            value, pos = data[pos : pos + size], pos + size
        else:
            raise VocabFormatError(f"unsupported wire type {wire} in {what}.{num}: not a sentencepiece .model file")
        yield num, wire, value


def _expect(wire: int, want: int, what: str) -> None:
    if wire != want:
        raise VocabFormatError(f"{what} has wire type {wire}, expected {want}: the file is corrupted")


def _int32(v: int) -> int:
    """Reinterpret a varint as int32 (negative ids such as pad_id=-1 are 10-byte varints)."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def _text(b: bytes, what: str) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VocabFormatError(f"{what} is not valid UTF-8 ({exc.reason} at byte {exc.start})") from None


def _piece(data: bytes, index: int) -> tuple[str, float, int]:
    what = f"pieces[{index}]"
    piece, score, kind = None, 0.0, NORMAL
    for num, wire, value in _fields(data, what):
        if num == 1:
            _expect(wire, 2, what + ".piece")
            piece = _text(value, what + ".piece")
        elif num == 2:
            _expect(wire, 5, what + ".score")
            score = struct.unpack("<f", value)[0]
        elif num == 3:
            _expect(wire, 0, what + ".type")
            kind = value
    if piece is None:
        raise VocabFormatError(f"{what} has no piece string")
    return piece, score, kind


# TrainerSpec field number -> (attribute, kind); kinds: b=bool, i=int32, s=string, l=repeated string.
_TRAINER = {3: ("model_type", "i"), 4: ("vocab_size", "i"), 35: ("byte_fallback", "b"), 25: ("split_digits", "b"),
            24: ("treat_whitespace_as_suffix", "b"), 26: ("allow_whitespace_only_pieces", "b"),
            40: ("unk_id", "i"), 41: ("bos_id", "i"), 42: ("eos_id", "i"), 43: ("pad_id", "i"),
            45: ("unk_piece", "s"), 46: ("bos_piece", "s"), 47: ("eos_piece", "s"), 48: ("pad_piece", "s"),
            44: ("unk_surface", "s"), 31: ("user_defined_symbols", "l"), 30: ("control_symbols", "l")}
_NORMALIZER = {1: ("name", "s"), 2: ("precompiled_charsmap", "y"), 3: ("add_dummy_prefix", "b"),
               4: ("remove_extra_whitespaces", "b"), 5: ("escape_whitespaces", "b")}


def _message(obj, data: bytes, table: dict, what: str):
    for num, wire, value in _fields(data, what):
        if num not in table:
            continue  # fields that only steer training
        name, kind = table[num]
        where = f"{what}.{name}"
        _expect(wire, 0 if kind in "bi" else 2, where)
        if kind == "b":
            setattr(obj, name, bool(value))
        elif kind == "i":
            setattr(obj, name, _int32(value))
        elif kind == "y":
            setattr(obj, name, bytes(value))
        elif kind == "s":
            setattr(obj, name, _text(value, where))
        else:
            getattr(obj, name).append(_text(value, where))
    return obj


def parse_model(data: bytes) -> ModelProto:
    """Parse the bytes of a `.model` file.

    Args:
        data: the whole file.

    Returns:
        A `ModelProto` with the pieces, trainer spec and normalizer spec.

    >>> p = parse_model(b"\\x0a\\x0e\\x0a\\x05<unk>\\x15\\x00\\x00\\x00\\x00\\x18\\x02")
    >>> p.pieces, p.normalizer_spec.add_dummy_prefix
    ([('<unk>', 0.0, 2)], True)
    """
    if not data:
        raise VocabFormatError("empty file (0 bytes): not a sentencepiece .model file")
    pieces: list[tuple[str, float, int]] = []
    trainer, normalizer = TrainerSpec(), NormalizerSpec()
    for num, wire, value in _fields(data, "ModelProto"):
        if num == 1:
            _expect(wire, 2, "ModelProto.pieces")
            pieces.append(_piece(value, len(pieces)))
        elif num == 2:
            _expect(wire, 2, "ModelProto.trainer_spec")
            _message(trainer, value, _TRAINER, "trainer_spec")
        elif num == 3:
            _expect(wire, 2, "ModelProto.normalizer_spec")
            _message(normalizer, value, _NORMALIZER, "normalizer_spec")
    if not pieces:
        raise VocabFormatError("no pieces: not a sentencepiece .model file")
    return ModelProto(pieces, trainer, normalizer)
