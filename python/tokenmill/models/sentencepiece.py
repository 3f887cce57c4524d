"""SentencePiece models (``.model`` files, Unigram and BPE): the ids and text of Google's
``sentencepiece`` library, with subword regularization (sampling) and n-best.

The Rust core does the work (`tokenmill._core.SentencePiece`: the protobuf, the normalizer
with its precompiled charsmap, Viterbi / n-best / sampling, score-ordered BPE, byte fallback,
decode); this module holds sentencepiece's semantics around it and the `tokenmill.Tokenizer`
interface:

* ``encode(text)`` is ``SentencePieceProcessor.encode(text)``: no bos/eos unless
  ``add_bos=True`` / ``add_eos=True``. Control-symbol text such as ``"<s>"`` in the input is
  ordinary text, as in sentencepiece, so the defaults are ``allowed_special=()`` and
  ``disallowed_special=()`` (nothing is recognised, nothing raises). Passing
  ``allowed_special="all"`` (or a set) cuts those texts out first and gives their ids, each
  piece of text between them encoded on its own (with its own dummy prefix), as HF's slow
  Llama tokenizer does.
* ``encode(text, nbest=k)``: the k best segmentations (Unigram), as ``nbest_encode_as_ids``.
* ``sample(text, alpha=, nbest_size=, seed=)``: one segmentation drawn as sentencepiece's
  ``encode(..., enable_sampling=True)`` draws it (Unigram: from the lattice or the n-best;
  BPE: BPE-dropout with probability `alpha`). With a seed it is reproducible, and
  ``sample_batch`` gives text i a seed derived from ``(seed, i)``, so thread counts never
  change the result. n-best and sampling read the whole text as ordinary text.
* ``decode(ids)`` is ``SentencePieceProcessor.decode(ids)``: U+2581 back to spaces, the
  dummy-prefix space dropped, control pieces as nothing, unknown as `` ⁇ ``, byte pieces joined
  as UTF-8 (invalid bytes as U+FFFD).
* Tokens: ``id_to_token(i)`` is the piece (``"▁the"``); ``token_bytes(i)`` the bytes it
  stands for in text (``b" the"``; a byte piece ``<0x0A>``: ``b"\\n"``; control and unknown
  pieces: their piece text). ``special_tokens`` are the control and unknown pieces.
* Lone surrogates in a Python str are repaired as tiktoken does (pairs joined, lone halves
  U+FFFD); offsets then refer to the repaired text.

Files: the ``.model`` itself (``SentencePiece.from_file``, ``tokenmill.load``;
``export("sentencepiece", path)`` writes it back, every field kept), and tokenmill's native
JSON, which holds the ``.model`` bytes in base64 (``model.model_proto``). Reading and
writing files is `tokenmill.formats.sentencepiece`'s; this module imports no format.
"""

from __future__ import annotations

import base64
import copy
import binascii
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Callable

from .. import _core
from .._args import fix_surrogates, has_surrogates, iter_texts, threads
from .._schema import check_keys, field, json_copy
from ..errors import DisallowedSpecialTokenError, InputError, TokenIdError, UnknownTokenError, VocabFormatError
from ..specials import resolve
from ..tokenizer import Tokenizer, reader
from ._vocab import _special_splitter

__all__ = ["SentencePiece", "PIECE_TYPES"]

#: sentencepiece's piece type numbers and the names `piece_type` gives them.
PIECE_TYPES = {1: "normal", 2: "unknown", 3: "control", 4: "user_defined", 5: "unused", 6: "byte"}
_MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}


def _text(text: Any) -> str:
    if not isinstance(text, str):
        raise TypeError(f"expected text as str, not {type(text).__name__}")
    return fix_surrogates(text) if has_surrogates(text) else text


def _ids(ids: Iterable[int]) -> list[int]:
    out = ids if isinstance(ids, list) else list(ids)
    for k, i in enumerate(out):
        if isinstance(i, bool) or not isinstance(i, int):
            try:
                out[k] = i = int(i.__index__())  # numpy integers
            except (AttributeError, TypeError):
                raise TypeError(f"token id at position {k} is {i!r} ({type(i).__name__}); token ids must be ints") from None
        if not 0 <= i < 2**32:
            raise TokenIdError(i, k, None, "is negative or too large")
    return out


def _surface(piece: str, kind: int) -> bytes:
    """The bytes a piece stands for in text (see `SentencePiece.token_bytes`)."""
    if kind == 6 and len(piece) == 6:  # a byte piece, "<0xNN>" (checked by the core at load)
        return bytes([int(piece[3:5], 16)])
    if kind in (2, 3):
        return piece.encode("utf-8")
    return piece.replace("\u2581", " ").encode("utf-8")


class SentencePiece(Tokenizer):
    """A sentencepiece ``.model`` (see the module docstring).

    Build it with `from_file` or `from_bytes` (or ``tokenmill.load(path)``).

    >>> from tokenmill.formats.sentencepiece import model_bytes
    >>> sp = SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁a", -1.0, 1), ("b", -2.0, 1)]))
    >>> sp.encode("a b"), sp.decode([1, 0, 2])
    ([1, 0, 2], 'a ⁇ b')
    """

    __slots__ = ("_core", "_data", "_specials", "_split", "_trainer", "_bytes_index", "_training")

    _core: _core.SentencePiece
    _data: bytes
    _specials: dict[str, int]
    _split: Callable[[str], list[tuple[str, bool]]]
    _trainer: dict[str, Any]
    _bytes_index: dict[bytes, int] | None
    _training: dict[str, Any]

    model_type = "sentencepiece"

    def __init__(self, data: bytes, training: Mapping[str, Any] | None = None):
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"SentencePiece() takes the bytes of a .model file, not {type(data).__name__}; "
                            "use SentencePiece.from_file(path) or tokenmill.load(path)")
        data = bytes(data)
        core = _core.SentencePiece.from_bytes(data)
        set_ = object.__setattr__
        set_(self, "_core", core)
        set_(self, "_data", data)
        specials = dict(core.special_pieces())
        set_(self, "_specials", specials)
        set_(self, "_split", _special_splitter(specials))
        set_(self, "_trainer", core.trainer_spec())
        set_(self, "_bytes_index", None)  # built on the first token_to_id(bytes)
        set_(self, "_training", json_copy(dict(training or {})))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __repr__(self) -> str:
        return f"SentencePiece({self.model_kind}, vocab_size={self.vocab_size})"

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_bytes(cls, data: bytes) -> SentencePiece:
        """The model of the bytes of a ``.model`` file.

        Args:
            data: The whole file.

        Returns:
            The model. A malformed file raises `VocabFormatError` naming the field.

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁hi", -1.0, 1)])).encode("hi")
        [1]
        """
        return cls(data)

    @classmethod
    def from_file(cls, path: Any) -> SentencePiece:
        """Reads a ``.model`` file; errors name the file and the field.

        Args:
            path: Local file path.

        Returns:
            The model.

        >>> import os, tempfile
        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> p = os.path.join(tempfile.mkdtemp(), "m.model")
        >>> _ = open(p, "wb").write(model_bytes([("<unk>", 0.0, 2), ("▁hi", -1.0, 1)]))
        >>> SentencePiece.from_file(p).vocab_size
        2
        """
        return reader("sentencepiece")(path)

    def to_model_bytes(self) -> bytes:
        """The ``.model`` file of this model (every field of the file it was read from).

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> data = model_bytes([("<unk>", 0.0, 2), ("▁hi", -1.0, 1)])
        >>> SentencePiece.from_bytes(SentencePiece.from_bytes(data).to_model_bytes()).encode("hi hi")
        [1, 1]
        """
        return self._core.to_bytes()

    # ------------------------------------------------------------------ encoding
    def _policy(self, text: str, allowed_special: Any, disallowed_special: Any) -> frozenset:
        """The special texts to recognise in `text`, after checking the disallowed ones."""
        if not allowed_special and not disallowed_special:
            return frozenset()
        allowed, disallowed = resolve(frozenset(self._specials), allowed_special, disallowed_special)
        hits = [(text.find(s), -len(s), s) for s in disallowed if s in text]
        if hits:
            at, _, name = min(hits)
            raise DisallowedSpecialTokenError(name, at)
        return allowed

    def _wrap(self, ids: list[int], add_bos: bool, add_eos: bool) -> list[int]:
        if add_bos:
            ids.insert(0, self._control_id("bos"))
        if add_eos:
            ids.append(self._control_id("eos"))
        return ids

    def _control_id(self, which: str) -> int:
        i = self._trainer[f"{which}_id"]
        if not 0 <= i < self.vocab_size:
            raise InputError(f"add_{which}=True, but this model has no {which} piece (trainer_spec.{which}_id = {i})")
        return i

    def encode(self, text: str, *, add_bos: bool = False, add_eos: bool = False, nbest: int | None = None,
               allowed_special: Any = (), disallowed_special: Any = ()) -> Any:
        """Token ids of `text`, as ``SentencePieceProcessor.encode(text)``.

        Args:
            text: The text.
            add_bos, add_eos: Put the model's bos / eos id around the ids.
            nbest: If given, return the `nbest` best segmentations (a list of id lists, best
                first; Unigram only), as ``nbest_encode_as_ids``.
            allowed_special: Control / unknown piece texts to recognise in `text` (``"all"``
                or a set); default none, as sentencepiece.
            disallowed_special: Texts whose presence raises `DisallowedSpecialTokenError`.

        Returns:
            The ids (or, with `nbest`, a list of id lists).

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> sp = SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("<s>", 0.0, 3), ("</s>", 0.0, 3),
        ...                                            ("▁a", -1.0, 1), ("a", -2.0, 1)]))
        >>> sp.encode("a a", add_bos=True), sp.encode("aa", nbest=2)
        ([1, 3, 3], [[3, 4], [0, 4, 4]])
        """
        if nbest is None and not allowed_special and not disallowed_special:  # the common case, one core call
            try:
                ids = self._core.encode(text)
            except (UnicodeEncodeError, TypeError):  # lone surrogates (repaired), or not a str (named)
                ids = self._core.encode(_text(text))
            return self._wrap(ids, add_bos, add_eos) if add_bos or add_eos else ids
        text = _text(text)
        allowed = self._policy(text, allowed_special, disallowed_special)
        if nbest is not None:
            if isinstance(nbest, bool) or not isinstance(nbest, int) or nbest < 1:
                raise InputError(f"nbest must be a positive int, not {nbest!r}")
            return [self._wrap(ids, add_bos, add_eos) for ids, _ in self._core.nbest(text, nbest)]
        ids = self._encode(text, allowed, None)
        return self._wrap(ids, add_bos, add_eos) if add_bos or add_eos else ids

    def _encode(self, text: str, allowed: frozenset, offsets: list[tuple[int, int]] | None) -> list[int]:
        if not allowed:
            if offsets is None:
                return self._core.encode(text)
            ids, spans = self._core.encode_with_offsets(text)
            offsets.extend(spans)
            return ids
        out: list[int] = []
        pos = 0
        split = self._split if len(allowed) == len(self._specials) else _special_splitter(allowed)
        for seg, special in split(text):
            if special:
                out.append(self._specials[seg])
                if offsets is not None:
                    offsets.append((pos, pos + len(seg)))
            elif offsets is None:
                out.extend(self._core.encode(seg))
            else:
                ids, spans = self._core.encode_with_offsets(seg)
                out.extend(ids)
                offsets.extend((pos + a, pos + b) for a, b in spans)
            pos += len(seg)
        return out

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of `text` with every character ordinary text (sentencepiece's only mode).

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁a", -1.0, 1)])).encode_ordinary("a")
        [1]
        """
        try:
            return self._core.encode(text)
        except (UnicodeEncodeError, TypeError):
            return self._core.encode(_text(text))

    def encode_batch(self, texts: Iterable[str], *, num_threads: int | None = None, add_bos: bool = False,
                     add_eos: bool = False, **special: Any) -> list[list[int]]:
        """``[encode(t) for t in texts]`` on `num_threads` threads (every core for None).

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> sp = SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁a", -1.0, 1)]))
        >>> sp.encode_batch(["a", "a a"])
        [[1], [1, 1]]
        """
        n = threads(num_threads)
        # A list goes to the core as it is (it checks each item; a Python pass over the list
        # to check them first cost 4% of a batch of short lines).
        if not isinstance(texts, list) or special:
            texts = list(iter_texts(texts, "texts"))
        if special:  # an explicit special-token policy: per text
            return [self.encode(t, add_bos=add_bos, add_eos=add_eos, **special) for t in texts]
        try:
            out = self._core.encode_batch(texts, n)
        except TypeError:  # an item that is not a str: named by the checked path
            out = self._core.encode_batch(list(iter_texts(texts, "texts")), n)
        except UnicodeEncodeError:  # lone surrogates: repaired as in `encode`
            out = self._core.encode_batch([_text(t) for t in texts], n)
        if add_bos or add_eos:
            for ids in out:  # fresh lists from the core
                self._wrap(ids, add_bos, add_eos)
        return out

    def encode_with_offsets(self, text: str, *, allowed_special: Any = (), disallowed_special: Any = ()) -> tuple[list[int], list[int]]:
        """Ids and the character offset in `text` where each token starts (sentencepiece's
        ``begin``, in characters).

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> sp = SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁a", -1.0, 1), ("b", -2.0, 1)]))
        >>> sp.encode_with_offsets("  ab a")
        ([1, 2, 1], [2, 3, 4])
        """
        ids, spans = self.encode_with_spans(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        return ids, [a for a, _ in spans]

    def encode_with_spans(self, text: str, *, allowed_special: Any = (), disallowed_special: Any = ()) -> tuple[list[int], list[tuple[int, int]]]:
        """Ids and each token's ``(begin, end)`` in `text`, in characters (sentencepiece's
        ``begin``/``end``; a byte piece that is not a character's last has ``begin == end``).

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> sp = SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁a", -1.0, 1), ("b", -2.0, 1)]))
        >>> sp.encode_with_spans("ab")
        ([1, 2], [(0, 1), (1, 2)])
        """
        text = _text(text)
        allowed = self._policy(text, allowed_special, disallowed_special)
        spans: list[tuple[int, int]] = []
        return self._encode(text, allowed, spans), spans

    def sample(self, text: str, *, alpha: float = 0.1, nbest_size: int = -1, seed: int | None = None,
               add_bos: bool = False, add_eos: bool = False) -> list[int]:
        """One segmentation drawn for subword regularization, as sentencepiece's
        ``encode(text, enable_sampling=True, alpha=alpha, nbest_size=nbest_size)``.

        Args:
            text: The text (all of it ordinary text).
            alpha: Unigram: the smoothing exponent of the path probabilities; BPE: the
                dropout probability of each merge.
            nbest_size: Unigram: -1 samples from the whole lattice, 0 or 1 is `encode`,
                k > 1 samples among the k best. BPE ignores it.
            seed: Makes the draw reproducible (None: a fresh random seed).
            add_bos, add_eos: As for `encode`.

        Returns:
            The ids.

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> sp = SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁a", -1.0, 1), ("a", -1.0, 1)]))
        >>> sp.sample("aa", seed=1) == sp.sample("aa", seed=1), sp.sample("aa", nbest_size=1)
        (True, [1, 2])
        """
        ids = self._core.sample(_text(text), *self._sampling(alpha, nbest_size, seed))
        return self._wrap(ids, add_bos, add_eos) if add_bos or add_eos else ids

    def sample_batch(self, texts: Iterable[str], *, alpha: float = 0.1, nbest_size: int = -1, seed: int | None = None,
                     num_threads: int | None = None, add_bos: bool = False, add_eos: bool = False) -> list[list[int]]:
        """`sample` for each text on `num_threads` threads; text i draws with a seed derived
        from ``(seed, i)`` (output i + 1 of SplitMix64 seeded with `seed`), so the result does not depend on
        the number of threads.

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> sp = SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁a", -1.0, 1), ("a", -1.0, 1)]))
        >>> sp.sample_batch(["aa"] * 50, seed=3, num_threads=1) == sp.sample_batch(["aa"] * 50, seed=3, num_threads=2)
        True
        """
        n = threads(num_threads)
        texts = [_text(t) for t in iter_texts(texts, "texts")]
        out = self._core.sample_batch(texts, *self._sampling(alpha, nbest_size, seed), n)
        if add_bos or add_eos:
            for ids in out:
                self._wrap(ids, add_bos, add_eos)
        return out

    @staticmethod
    def _sampling(alpha: Any, nbest_size: Any, seed: Any) -> tuple[float, int, int]:
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not alpha >= 0.0 or alpha == float("inf"):
            raise InputError(f"alpha must be a finite number >= 0, not {alpha!r}")
        if isinstance(nbest_size, bool) or not isinstance(nbest_size, int) or not -(2**31) <= nbest_size < 2**31:
            raise InputError(f"nbest_size must be an int (-1: the whole lattice), not {nbest_size!r}")
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        elif isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int or None, not {type(seed).__name__}")
        return float(alpha), nbest_size, seed % 2**64

    def normalize(self, text: str) -> str:
        """The normalized text segmentation sees (spaces as U+2581 when the model escapes them).

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2)])).normalize("  a   b ")
        '▁a▁b'
        """
        return self._core.normalize(_text(text))

    # ------------------------------------------------------------------ decoding
    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        """The text of ids, as ``SentencePieceProcessor.decode(ids)`` (invalid bytes of byte
        pieces become U+FFFD whatever `errors` says: that is sentencepiece's rule).

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁a", -1.0, 1)])).decode([1, 1])
        'a a'
        """
        try:
            return self._core.decode(tokens if isinstance(tokens, list) else list(tokens))
        except (TypeError, OverflowError):
            return self._core.decode(_ids(tokens))

    def decode_batch(self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int | None = None) -> list[str]:
        """``[decode(ids) for ids in batch]``.

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁a", -1.0, 1)])).decode_batch([[1], [1, 1]])
        ['a', 'a a']
        """
        try:
            return self._core.decode_batch([ids if isinstance(ids, list) else list(ids) for ids in batch])
        except (TypeError, OverflowError):
            return self._core.decode_batch([_ids(ids) for ids in batch])

    # ------------------------------------------------------------------ vocabulary
    @property
    def vocab_size(self) -> int:
        """Number of pieces; ids are ``0 .. vocab_size - 1``."""
        return self._core.vocab_size

    @property
    def model_kind(self) -> str:
        """``"unigram"`` or ``"bpe"`` (``trainer_spec.model_type``)."""
        return _MODEL_TYPES.get(self._core.model_type, str(self._core.model_type))

    @property
    def unk_id(self) -> int:
        """The id of the unknown piece."""
        return self._core.unk_id

    @property
    def bos_id(self) -> int:
        """``trainer_spec.bos_id`` (-1: none)."""
        return self._trainer["bos_id"]

    @property
    def eos_id(self) -> int:
        """``trainer_spec.eos_id`` (-1: none)."""
        return self._trainer["eos_id"]

    @property
    def pad_id(self) -> int:
        """``trainer_spec.pad_id`` (-1: none)."""
        return self._trainer["pad_id"]

    @property
    def trainer_spec(self) -> dict[str, Any]:
        """The ``trainer_spec`` fields that change ids or decoding (a copy)."""
        d = dict(self._trainer)
        d["user_defined_symbols"] = list(d["user_defined_symbols"])
        d["control_symbols"] = list(d["control_symbols"])
        return d

    @property
    def normalizer_spec(self) -> dict[str, Any]:
        """The ``normalizer_spec`` (``precompiled_charsmap`` as bytes)."""
        return self._core.normalizer_spec()

    def pieces(self) -> list[tuple[str, float, int]]:
        """Every piece as ``(piece, score, type number)``, in id order (see `PIECE_TYPES`).

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁a", -1.5, 1)])).pieces()
        [('<unk>', 0.0, 2), ('▁a', -1.5, 1)]
        """
        return self._core.pieces()

    def piece_type(self, id: int) -> str:
        """The type of piece `id`: ``"normal"``, ``"unknown"``, ``"control"``,
        ``"user_defined"``, ``"unused"`` or ``"byte"``."""
        return PIECE_TYPES[self._piece(id, self._core.piece_type)]

    def piece_score(self, id: int) -> float:
        """The score of piece `id` (a float32 value)."""
        return self._piece(id, self._core.score)

    def _piece(self, id: Any, get: Any) -> Any:
        if isinstance(id, bool) or not isinstance(id, int):
            raise TypeError(f"token id must be an int, not {type(id).__name__}")
        v = get(id) if 0 <= id < 2**32 else None
        if v is None:
            raise TokenIdError(id, None, self.vocab_size)
        return v

    def token_to_id(self, token: str | bytes) -> int:
        """The id of a piece (``"▁the"``, found as sentencepiece's ``PieceToId``) or of the
        bytes a piece stands for (`token_bytes`).

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> sp = SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁a", -1.0, 1)]))
        >>> sp.token_to_id("▁a"), sp.token_to_id(b" a")
        (1, 1)
        """
        if isinstance(token, (bytes, bytearray)):
            i = self._bytes_to_id().get(bytes(token))
        elif isinstance(token, str):
            i = self._core.piece_to_id(token) if not has_surrogates(token) else None
        else:
            raise TypeError(f"token must be str or bytes, not {type(token).__name__}")
        if i is None:
            raise UnknownTokenError(f"{token!r} is not a piece of this model")
        return i

    def _bytes_to_id(self) -> dict[bytes, int]:
        index = self._bytes_index
        if index is None:
            index = {}
            pieces = self._core.pieces()
            # Ordinary pieces win over byte pieces with the same bytes (encode gives those).
            for i, (piece, _, kind) in enumerate(pieces):
                if kind != 6:
                    index.setdefault(_surface(piece, kind), i)
            for i, (piece, _, kind) in enumerate(pieces):
                if kind == 6:
                    index.setdefault(_surface(piece, kind), i)
            object.__setattr__(self, "_bytes_index", index)
        return index

    def id_to_token(self, id: int) -> str:
        """The piece of id `id` (``"▁the"``, ``"<0x0A>"``, ``"<s>"``)."""
        return self._piece(id, self._core.id_to_piece)

    def token_bytes(self, id: int) -> bytes:
        """The bytes piece `id` stands for in text: U+2581 as a space, a byte piece as its byte,
        control and unknown pieces as their piece text.

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2), ("▁a", -1.0, 1)])).token_bytes(1)
        b' a'
        """
        return _surface(self.id_to_token(id), self._piece(id, self._core.piece_type))

    @property
    def special_tokens(self) -> dict[str, int]:
        """The control and unknown pieces, ``{piece: id}`` (a copy)."""
        return dict(self._specials)

    @property
    def training(self) -> dict:
        """Metadata of `tokenmill.train_unigram`'s run, ``{}`` for a model read from a file (its
        training options are the file's `trainer_spec`)."""
        return copy.deepcopy(self._training)

    # ------------------------------------------------------------------ files
    def to_dict(self) -> dict[str, Any]:
        """The native document: the ``.model`` bytes in base64 as ``model.model_proto``.

        >>> from tokenmill.formats.sentencepiece import model_bytes
        >>> d = SentencePiece.from_bytes(model_bytes([("<unk>", 0.0, 2)])).to_dict()
        >>> d["model"]["type"], SentencePiece.from_dict(d).vocab_size
        ('sentencepiece', 1)
        """
        d: dict[str, Any] = {"format": "tokenmill", "version": 1,
                             "model": {"type": self.model_type, "model_proto": base64.b64encode(self._data).decode("ascii")}}
        if self._training:
            d["training"] = copy.deepcopy(self._training)
        return d

    @classmethod
    def _from_native(cls, d: Mapping[str, Any]) -> SentencePiece:
        model = d["model"]
        check_keys(model, ("type", "model_proto"), "model.")
        b64 = model.get("model_proto")
        if not isinstance(b64, str):
            raise VocabFormatError("model.model_proto: expected the .model file's bytes as a base64 string")
        try:
            data = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError) as e:
            raise VocabFormatError(f"model.model_proto: not valid base64 ({e})") from None
        return cls(data, training=field(d, "training", dict, "", required=False, default={}))

    def __reduce__(self):
        return (SentencePiece, (self._data, self._training or None))
