"""Reference SentencePiece encoder and decoder (Unigram and BPE `.model` files), in plain Python.

The specification of tokenmill's SentencePiece path; `sentencepiece` itself is the oracle
(tests/test_sentencepiece_reference.py checks ids and decoded text against it). Encoding is
three steps, all on UTF-8 bytes as in the C++ library:

1. Normalize: at each position take the longest user-defined symbol (left untouched), else
   the longest rule of the precompiled charsmap (a Darts double-array trie plus a blob of
   NUL-terminated replacements), else one character. Then drop leading, trailing and repeated
   spaces (`remove_extra_whitespaces`), add one space in front (`add_dummy_prefix`; behind with
   `treat_whitespace_as_suffix`) and write spaces as U+2581 (`escape_whitespaces`).
2. Segment. Unigram: Viterbi over the pieces that start at each character; the best path score
   is float32 like sentencepiece's, and on equal scores the piece starting earliest wins (the
   first candidate is kept). A character no piece of its own length covers gets an unknown node
   scored `min_score - 10`. User-defined pieces score `0.1 * (byte_length - 1)` (0.2.3's
   `GetUserDefinedScore`; 0.2.0 had `byte_length * max_score - 0.1`), so they beat the normal
   log-probabilities. Path sums beyond +-100000 are re-based to 0 (`kScoreResetThreshold`),
   which can move float32 roundings on long texts. BPE: start from characters (user-defined
   symbols frozen whole), repeatedly merge the adjacent pair whose concatenation is a NORMAL,
   USER_DEFINED or UNUSED piece (never CONTROL, BYTE or UNKNOWN) with the highest score, scores
   in IEEE total order (+0 above -0), leftmost on ties. Each final symbol that is an UNUSED
   piece is split back into the pair it was last looked up from, recursively; a symbol that is
   absent, reserved or an UNUSED piece with no such pair is unknown.
3. Unknown pieces become `<0xNN>` byte pieces when `byte_fallback` is on; otherwise a run of
   consecutive unknown pieces becomes a single unknown id.

Loading refuses what sentencepiece 0.2.3 refuses, with a `VocabFormatError`: empty, duplicate
or NUL-containing pieces, pieces of 8000 bytes or more, NaN or infinite scores, no or a second
UNKNOWN piece, and under `byte_fallback` anything but all 256 `<0xNN>` byte pieces. Unigram
looks up reserved pieces (UNKNOWN, CONTROL, BYTE) in a table of their own; BPE keeps one table,
so there a normal piece may not repeat a reserved piece's text.

Decoding maps U+2581 back to spaces, drops the dummy-prefix space of the first piece, writes
control pieces as nothing and unknown ids as `unk_surface`, and joins runs of byte pieces as
UTF-8 (each invalid byte becomes U+FFFD).

Not here: subword sampling and n-best, WORD and CHAR models, `denormalizer_spec`, bos/eos
insertion. Slow on purpose; the Rust core is the fast path.
"""

from __future__ import annotations

import struct
from pathlib import Path

from ..errors import UnsupportedError, VocabFormatError
from .sentencepiece_proto import (BPE, BYTE, CONTROL, NORMAL, UNIGRAM, UNKNOWN, UNUSED, USER_DEFINED, ModelProto,
                                  NormalizerSpec, TrainerSpec, parse_model)

SPACE = "\u2581".encode()  # sentencepiece's visible space, "▁"
FLT_MAX = 3.4028234663852886e38
FLT_MIN = 1.1754943508222875e-38  # smallest positive normal float: sentencepiece's initial max_score
UNK_PENALTY = 10.0
SCORE_RESET = 100000.0  # Unigram Viterbi re-bases path sums beyond +-this (sentencepiece 0.2.3)


def f32(x: float) -> float:
    """Round a double to float32, so sums match sentencepiece's float arithmetic.

    >>> f32(0.1) == 0.1
    False
    """
    return struct.unpack("<f", struct.pack("<f", x))[0]


def total_order(x: float) -> int:
    """An integer that orders float32 scores as sentencepiece's BPE does: IEEE total order.

    >>> total_order(0.0) > total_order(-0.0), total_order(-1.0) < total_order(-0.5)
    (True, True)
    """
    bits = struct.unpack("<i", struct.pack("<f", x))[0]
    return bits ^ 0x7FFFFFFF if bits < 0 else bits


def one_char_len(lead: int) -> int:
    """Length of a UTF-8 character from its lead byte, as sentencepiece's `OneCharLen` (no checks)."""
    return (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4)[lead >> 4]


class Charsmap:
    """A precompiled charsmap: a Darts double-array trie over byte strings plus replacement blob.

    Unit layout (darts-clone): bit 8 = has a leaf; low 31 bits = value of a leaf unit; label =
    low byte plus bit 31; offset = bits 10.. shifted left by 8 when bit 9 is set.
    """

    def __init__(self, blob: bytes):
        if len(blob) < 4:
            raise VocabFormatError("normalizer_spec.precompiled_charsmap is shorter than its 4-byte header")
        size = int.from_bytes(blob[:4], "little")
        if not 4 <= size <= len(blob) - 4 or size % 4:
            raise VocabFormatError(f"normalizer_spec.precompiled_charsmap: trie size {size} does not fit the blob")
        self.units = struct.unpack(f"<{size // 4}I", blob[4 : 4 + size])
        self.blob = blob[4 + size :]

    def longest(self, data: bytes, pos: int) -> tuple[int, bytes] | None:
        """(length, replacement) of the longest rule matching `data` at `pos`, or None."""
        units, best = self.units, None
        node = (units[0] >> 10) << ((units[0] & 0x200) >> 6)
        for i in range(pos, len(data)):
            node ^= data[i]
            if node >= len(units):
                break
            unit = units[node]
            if unit & 0x800000FF != data[i]:
                break
            node ^= (unit >> 10) << ((unit & 0x200) >> 6)
            if unit & 0x100:
                best = (i + 1 - pos, units[node] & 0x7FFFFFFF)
        if best is None:
            return None
        start = best[1]
        end = self.blob.find(b"\0", start)
        return best[0], self.blob[start : end if end >= 0 else len(self.blob)]


class SentencePieceModel:
    """A sentencepiece `.model` (Unigram or BPE) with the library's encode and decode.

    >>> import tokenmill._reference.sentencepiece as spm
    >>> m = spm.SentencePieceModel.from_pieces([("<unk>", 0.0, 2), ("▁a", -1.0, 1), ("b", -2.0, 1)])
    >>> m.encode("a b"), m.decode([1, 0, 2])
    ([1, 0, 2], 'a ⁇ b')
    """

    def __init__(self, proto: ModelProto, path: str | None = None):
        self.proto, self.trainer, self.norm = proto, proto.trainer_spec, proto.normalizer_spec
        try:
            self._setup(proto)
        except VocabFormatError as exc:
            raise exc.at(path) if path else exc from None

    @classmethod
    def from_file(cls, path: str | Path) -> "SentencePieceModel":
        """Load a `.model` file.

        Args:
            path: the file.

        Returns:
            The model.

        >>> SentencePieceModel.from_file("/nonexistent.model")  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        FileNotFoundError: ...
        """
        data = Path(path).read_bytes()
        try:
            proto = parse_model(data)
        except VocabFormatError as exc:
            raise exc.at(str(path), "sentencepiece") from None
        return cls(proto, str(path))

    @classmethod
    def from_pieces(cls, pieces: list[tuple[str, float, int]], model_type: int = UNIGRAM, **normalizer) -> "SentencePieceModel":
        """A model from (piece, score, type) triples with default specs (for tests and examples).

        Args:
            pieces: the vocabulary, id = position.
            model_type: UNIGRAM (1) or BPE (2).
            normalizer: NormalizerSpec fields to override.

        Returns:
            The model.

        >>> SentencePieceModel.from_pieces([("<unk>", 0.0, 2), ("a", 0.0, 1)], model_type=2).encode("aa")
        [0, 1, 1]
        """
        proto = ModelProto([(p, s, t) for p, s, t in pieces], TrainerSpec(model_type=model_type), NormalizerSpec(**normalizer))
        return cls(proto)

    def _setup(self, proto: ModelProto) -> None:
        if self.trainer.model_type not in (UNIGRAM, BPE):
            names = {3: "WORD", 4: "CHAR"}
            raise UnsupportedError(f"trainer_spec.model_type: {names.get(self.trainer.model_type, self.trainer.model_type)}"
                                   " is not supported (supported: UNIGRAM=1, BPE=2)")
        self.pieces = [p for p, _, _ in proto.pieces]
        self.scores = [s for _, s, _ in proto.pieces]
        self.types = [t for _, _, t in proto.pieces]
        # Lookup order of sentencepiece's PieceToId: reserved pieces first, then the others.
        self.reserved: dict[bytes, int] = {}
        self.vocab: dict[bytes, int] = {}
        unk_id: int | None = None
        bytes_seen: set[int] = set()
        for i, (piece, score, kind) in enumerate(proto.pieces):
            if not piece:
                raise VocabFormatError(f"pieces[{i}] is empty")
            key = piece.encode()
            if "\0" in piece:
                raise VocabFormatError(f"pieces[{i}] ({piece!r}) contains a NUL character")
            if len(key) >= 8000:
                raise VocabFormatError(f"pieces[{i}] is {len(key)} bytes long: sentencepiece refuses 8000 or more")
            if score != score:
                raise VocabFormatError(f"pieces[{i}] ({piece!r}) has score NaN")
            if abs(score) == float("inf"):  # sentencepiece's Unigram refuses these; the Rust core, any model
                raise VocabFormatError(f"pieces[{i}] ({piece!r}) has score {score}: scores must be finite numbers")
            if kind not in (NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE):
                raise VocabFormatError(f"pieces[{i}] ({piece!r}) has unknown type {kind}")
            # BPE (0.2.3) keeps every piece in one table; Unigram keeps reserved ones apart.
            in_vocab = kind in (NORMAL, USER_DEFINED, UNUSED) or self.trainer.model_type == BPE
            table = self.vocab if in_vocab else self.reserved
            if key in table:
                raise VocabFormatError(f"pieces[{i}]: {piece!r} appears twice (first at id {table[key]})")
            table[key] = i
            if kind == UNKNOWN:
                if unk_id is not None:
                    raise VocabFormatError(f"pieces[{i}] ({piece!r}) is a second UNKNOWN piece (first at id "
                                           f"{unk_id}): sentencepiece allows one")
                unk_id = i
            if kind == BYTE and not self.trainer.byte_fallback:
                raise VocabFormatError(f"pieces[{i}] ({piece!r}) is a byte piece but trainer_spec.byte_fallback is off")
            if kind == BYTE and not (len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">")
                                     and all(c in "0123456789ABCDEF" for c in piece[3:5])):
                raise VocabFormatError(f"pieces[{i}] ({piece!r}) is a byte piece but not of the form <0xNN>")
            if kind == BYTE:
                bytes_seen.add(int(piece[3:5], 16))
        if unk_id is None:
            raise VocabFormatError("no piece of type UNKNOWN: sentencepiece requires an unknown piece")
        self.unk_id: int = unk_id
        if self.trainer.byte_fallback and len(bytes_seen) < 256:
            missing = min(set(range(256)) - bytes_seen)
            raise VocabFormatError(f"trainer_spec.byte_fallback is on but there is no BYTE piece <0x{missing:02X}>:"
                                   " sentencepiece requires all 256")
        normal = [s for s, t in zip(self.scores, self.types) if t == NORMAL]
        self.min_score = min(normal, default=FLT_MAX)
        self.max_score = max(normal + [FLT_MIN])
        self.user = {p.encode() for p, t in zip(self.pieces, self.types) if t == USER_DEFINED}
        self.user_max = max(map(len, self.user), default=0)
        self.max_len = max(map(len, self.vocab), default=0)
        blob = self.norm.precompiled_charsmap
        self.charsmap = Charsmap(blob) if blob else None

    # --- normalization -------------------------------------------------------------------

    def _user_match(self, data: bytes, pos: int) -> int:
        """Byte length of the longest user-defined symbol at `pos`, 0 if none."""
        best = 0
        for end in range(pos + 1, min(len(data), pos + self.user_max) + 1):
            if data[pos:end] in self.user:
                best = end - pos
        return best

    def _normalize_prefix(self, data: bytes, pos: int) -> tuple[bytes, int]:
        """(normalized bytes, input bytes consumed) of the next unit at `pos`."""
        n = self._user_match(data, pos) if self.user else 0
        if n:
            return data[pos : pos + n], n
        hit = self.charsmap.longest(data, pos) if self.charsmap else None
        if hit:
            return hit[1], hit[0]
        n = min(one_char_len(data[pos]), len(data) - pos)
        return data[pos : pos + n], n

    def normalize(self, text: str) -> bytes:
        """The normalized UTF-8 bytes that segmentation sees.

        Args:
            text: the input.

        Returns:
            The normalized bytes (spaces as U+2581 when escaping is on).

        >>> SentencePieceModel.from_pieces([("<unk>", 0.0, 2)]).normalize("  a   b ").decode()
        '▁a▁b'
        """
        data, pos, norm = text.encode("utf-8"), 0, self.norm
        suffix = self.trainer.treat_whitespace_as_suffix
        if norm.remove_extra_whitespaces:  # leading spaces (after normalization) go
            while pos < len(data):
                piece, n = self._normalize_prefix(data, pos)
                if piece != b" ":
                    break
                pos += n
        if pos >= len(data):
            return b""
        ws = SPACE if norm.escape_whitespaces else b" "
        out = bytearray(ws if norm.add_dummy_prefix and not suffix else b"")
        prev_space = norm.remove_extra_whitespaces
        while pos < len(data):
            piece, n = self._normalize_prefix(data, pos)
            if prev_space:
                piece = piece.lstrip(b" ")
            if piece:
                out += piece.replace(b" ", ws)
                prev_space = piece.endswith(b" ")
            pos += n
            if not norm.remove_extra_whitespaces:
                prev_space = False
        if norm.remove_extra_whitespaces:
            while out.endswith(ws):
                del out[-len(ws) :]
        if norm.add_dummy_prefix and suffix:
            out += ws
        return bytes(out)

    # --- segmentation --------------------------------------------------------------------

    def piece_to_id(self, piece: bytes) -> int:
        """Id of a piece, reserved pieces first; the unknown id if absent (PieceToId)."""
        hit = self.reserved.get(piece)
        return hit if hit is not None else self.vocab.get(piece, self.unk_id)

    def _unigram(self, s: bytes) -> list[tuple[bytes, int]]:
        """Viterbi segmentation of normalized bytes into (piece bytes, id)."""
        size = len(s)
        score, start, best_id = [0.0] * (size + 1), [-1] * (size + 1), [-1] * (size + 1)
        unk_score = f32(self.min_score - UNK_PENALTY)
        pos = frontier = 0
        while pos < size:
            here, covered = score[pos], False
            if abs(here) > SCORE_RESET:  # re-base far-off sums: every reached position up to the frontier
                for k in range(pos, frontier + 1):
                    if k == pos or start[k] != -1:
                        score[k] = f32(score[k] - here)
                here = 0.0
            mblen = min(one_char_len(s[pos]), size - pos)
            for end in range(pos + 1, min(size, pos + self.max_len) + 1):
                i = self.vocab.get(s[pos:end])
                if i is None or self.types[i] == UNUSED:
                    continue
                length = end - pos
                piece_score = f32(0.1 * (length - 1)) if self.types[i] == USER_DEFINED else self.scores[i]
                cand = f32(piece_score + here)
                if start[end] == -1 or cand > score[end]:
                    score[end], start[end], best_id[end] = cand, pos, i
                frontier = max(frontier, end)
                covered = covered or length == mblen
            if not covered:
                end, cand = pos + mblen, f32(unk_score + here)
                if start[end] == -1 or cand > score[end]:
                    score[end], start[end], best_id[end] = cand, pos, self.unk_id
                frontier = max(frontier, end)
            pos += mblen
        out, end = [], size
        while end > 0:
            out.append((s[start[end] : end], best_id[end]))
            end = start[end]
        return out[::-1]

    def _bpe(self, s: bytes) -> list[tuple[bytes, int]]:
        """Score-ordered BPE over normalized bytes into (piece bytes, id)."""
        syms: list[bytes] = []
        frozen: list[bool] = []
        pos = 0
        while pos < len(s):
            n = self._user_match(s, pos) if self.user else 0
            frozen.append(n > 0)
            n = n or min(one_char_len(s[pos]), len(s) - pos)
            syms.append(s[pos : pos + n])
            pos += n
        # An UNUSED piece -> the pair it was last looked up from (sentencepiece's `rev_merge`).
        rev: dict[bytes, tuple[bytes, bytes]] = {}

        def look_up(i: int) -> int | None:
            """Id of the piece syms[i] + syms[i + 1] if that pair may merge, else None."""
            if frozen[i] or frozen[i + 1]:
                return None
            merged = syms[i] + syms[i + 1]
            j = self.vocab.get(merged)
            if j is None or self.types[j] in (UNKNOWN, CONTROL, BYTE):
                return None
            if self.types[j] == UNUSED:
                rev[merged] = (syms[i], syms[i + 1])
            return j

        pairs = [look_up(i) for i in range(len(syms) - 1)]  # pairs[i]: syms[i] with syms[i + 1]
        while True:
            live = [(total_order(self.scores[j]), -i) for i, j in enumerate(pairs) if j is not None]
            if not live:
                break
            i = -max(live)[1]  # the highest score, then the leftmost
            syms[i : i + 2] = [syms[i] + syms[i + 1]]
            frozen[i : i + 2] = [False]
            del pairs[i]
            if i > 0:
                pairs[i - 1] = look_up(i - 1)
            if i < len(syms) - 1:
                pairs[i] = look_up(i)
        out: list[tuple[bytes, int]] = []

        def emit(w: bytes, depth: int) -> None:  # sentencepiece's `resegment`
            i = self.vocab.get(w, self.unk_id)
            if depth > 100:  # sentencepiece's recursion limit: emitted as is
                out.append((w, i))
            elif self.types[i] in (UNKNOWN, CONTROL, BYTE):
                out.append((w, self.unk_id))
            elif self.types[i] != UNUSED:
                out.append((w, i))
            elif w in rev:
                emit(rev[w][0], depth + 1)
                emit(rev[w][1], depth + 1)
            else:
                out.append((w, self.unk_id))

        for w in syms:
            emit(w, 0)
        return out

    def encode_pieces(self, text: str) -> list[tuple[bytes, int]]:
        """Segment `text` into (piece bytes, id) pairs, byte fallback applied.

        Args:
            text: the input.

        Returns:
            The pieces with their ids.

        >>> SentencePieceModel.from_pieces([("<unk>", 0.0, 2), ("▁", -1.0, 1)]).encode_pieces("x")
        [(b'\\xe2\\x96\\x81', 1), (b'x', 0)]
        """
        s = self.normalize(text)
        if not s:
            return []
        raw = self._unigram(s) if self.trainer.model_type == UNIGRAM else self._bpe(s)
        out: list[tuple[bytes, int]] = []
        for w, i in raw:
            if i == self.unk_id and self.trainer.byte_fallback:
                out.extend((bytes([b]), self.piece_to_id(f"<0x{b:02X}>".encode())) for b in w)
            elif i == self.unk_id and out and out[-1][1] == self.unk_id:
                out[-1] = (out[-1][0] + w, i)  # a run of unknowns is one unknown piece
            else:
                out.append((w, i))
        return out

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`, as `SentencePieceProcessor.encode(text)`.

        Args:
            text: the input.

        Returns:
            The ids (no bos/eos).

        >>> SentencePieceModel.from_pieces([("<unk>", 0.0, 2), ("▁ab", -1.0, 1)]).encode("ab")
        [1]
        """
        return [i for _, i in self.encode_pieces(text)]

    # --- decoding ------------------------------------------------------------------------

    @staticmethod
    def _bytes_text(data: bytes) -> str:
        """UTF-8 bytes to text, each byte of an invalid sequence becoming one U+FFFD."""
        out, pos = [], 0
        while pos < len(data):
            n = one_char_len(data[pos])
            try:
                out.append(data[pos : pos + n].decode("utf-8"))
                pos += n
            except UnicodeDecodeError:
                out.append("\ufffd")
                pos += 1
        return "".join(out)

    def decode(self, ids: list[int]) -> str:
        """Text of `ids`, as `SentencePieceProcessor.decode(ids)`.

        Args:
            ids: token ids.

        Returns:
            The text.

        >>> SentencePieceModel.from_pieces([("<unk>", 0.0, 2), ("▁a", -1.0, 1)]).decode([1, 1])
        'a a'
        """
        parts: list[str] = []
        pending = bytearray()
        bos_ws, bos_ws_seen = True, False
        strip = self.norm.add_dummy_prefix or self.norm.remove_extra_whitespaces
        for i in ids:
            if not 0 <= i < len(self.pieces):
                raise VocabFormatError(f"id {i} is out of range (vocabulary of {len(self.pieces)})")
            kind, piece = self.types[i], self.pieces[i]
            if kind == BYTE:
                pending.append(int(piece[3:5], 16))
                continue
            if pending:
                parts.append(self._bytes_text(bytes(pending)))
                pending.clear()
            if bos_ws_seen or any(parts):  # only a leading space is the dummy prefix
                bos_ws = False
            bos_ws_seen = False
            if kind == CONTROL:
                surface = ""
            elif kind == UNKNOWN:
                surface = self.trainer.unk_surface
            else:
                if bos_ws and strip and piece.startswith("\u2581"):
                    piece = piece[1:]
                    bos_ws_seen = not self.norm.remove_extra_whitespaces
                surface = piece.replace("\u2581", " ")
            parts.append(surface)
        if pending:
            parts.append(self._bytes_text(bytes(pending)))
        return "".join(parts)
