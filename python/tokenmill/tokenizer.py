"""THE `Tokenizer` interface that every tokenizer in tokenmill implements, and its registries.

Every tokenizer (the byte-level `Encoding`, the text models `ClassicBPE`, `WordLevel`,
`CharLevel`, and the families still to come) is a `Tokenizer`, with the same method names and
keyword meanings:

=======================  ==================================================================
``encode(text, ...)``     ids of `text`; ``allowed_special`` / ``disallowed_special`` as in
                          tiktoken (see the defaults below)
``encode_ordinary``       ids, special-token text treated as ordinary text
``encode_batch``          ``[encode(t) for t in texts]``, ``num_threads=`` per call
``encode_to_numpy``       `encode` as a numpy uint32 array
``count``                 ``len(encode(text))`` without building the list where possible
``encode_with_offsets``   ``(ids, character offset where each token starts)``
``decode(ids, errors=)``  text of ids; `errors` as for `bytes.decode` (byte-level only)
``decode_batch``          ``[decode(ids) for ids in batch]``
``decode_bytes``          the decoded text's bytes (byte-level: exact token bytes joined)
``vocab_size``            one more than the largest id; ``n_vocab`` is the same number
``token_to_id(tok)``      id of one token given as str or bytes (`UnknownTokenError`)
``id_to_token(id)``       the token as text (byte-level: its UTF-8, U+FFFD for partial bytes)
``token_bytes(id)``       the token's exact bytes
``special_tokens``        ``{text: id}`` (a copy)
``pretokenizer``          which pre-tokenizer runs (``"cl100k"``..., ``"dfa"``, ``"regex"``, ``"python"``)
``training``              metadata of the training run, ``{}`` if none (a copy)
``to_dict`` / ``from_dict``  tokenmill's native document (tagged, versioned)
``save(path)``            the native document, written atomically; ``Tokenizer.load`` reads it
``export(format, path)``  a peer's format (``"tokenmill"`` is `save`); returns paths written
pickling                  by value (standard encodings: by name)
=======================  ==================================================================

Defaults that differ by family (names and meanings do not):

===================  ==========================  ==========================================
family               ``allowed_special``         ``disallowed_special``
===================  ==========================  ==========================================
`Encoding`           none (tiktoken)             ``"all"``: special text raises
text models          ``"all"``: special text     ``()``
                     becomes its id
===================  ==========================  ==========================================

The registries: a class with a ``model_type`` registers itself for ``from_dict`` when it is
defined (``__init_subclass__``); `tokenmill.formats` registers the exporters (``"tiktoken"``,
``"hf"``, ``"gpt2"``) and readers (``"gpt2"``) that tokenizers use without importing formats.

This module implements no model; it does not read peer formats (see `tokenmill.formats`).

>>> import tokenmill
>>> enc = tokenmill.get_encoding("gpt2")
>>> isinstance(enc, Tokenizer), enc.vocab_size == enc.n_vocab
(True, True)
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from . import _schema
from ._io import PathLike, atomic_write_bytes
from .errors import PatternError, SpecialTokenError, VocabFormatError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import numpy.typing as npt

__all__ = ["Tokenizer", "register_exporter", "register_reader", "reader", "model_types"]

# model "type" -> class; filled by Tokenizer.__init_subclass__.
_MODEL_TYPES: dict[str, type[Tokenizer]] = {}
# export format name -> writer(tokenizer, path) -> [paths]; filled by tokenmill.formats.
_EXPORTERS: dict[str, Callable[[Any, PathLike], list[Path]]] = {}
# reader name -> function building a tokenizer from files; filled by tokenmill.formats.
_READERS: dict[str, Callable[..., Any]] = {}


def register_exporter(names: Sequence[str], writer: Callable[[Any, PathLike], list[Path]]) -> None:
    """Makes ``tok.export(name, path)`` call ``writer(tok, path)`` for each of `names`."""
    for name in names:
        _EXPORTERS[name] = writer


def register_reader(name: str, fn: Callable[..., Any]) -> None:
    """Registers a file reader that tokenizer classes use without importing `tokenmill.formats`."""
    _READERS[name] = fn


def reader(name: str) -> Callable[..., Any]:
    """The reader registered as `name` (``tokenmill`` registers every built-in one on import)."""
    try:
        return _READERS[name]
    except KeyError:
        raise LookupError(f"no reader {name!r} is registered; import tokenmill (not only tokenmill.encoding)") from None


def model_types() -> list[str]:
    """The native ``model.type`` values that `Tokenizer.from_dict` accepts.

    >>> import tokenmill
    >>> sorted(model_types())
    ['byte_bpe', 'char', 'classic_bpe', 'huggingface', 'sentencepiece', 'word', 'wordpiece']
    """
    return list(_MODEL_TYPES)


class Tokenizer(abc.ABC):
    """The interface of every tokenmill tokenizer (see the module docstring for the table).

    Subclasses set ``model_type`` (the native format's ``model.type``) and implement the
    abstract methods; `count`, `encode_to_numpy`, `decode_batch`, `n_vocab`, `save`,
    `export`, `load` and pickling have generic versions here that a family may replace with
    faster ones. Instances are immutable.
    """

    __slots__ = ()

    model_type: ClassVar[str] = ""
    #: Whether `to_json_bytes` writes one vocabulary entry per line (diff-friendly) or compact JSON.
    _pretty_json: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        t = cls.__dict__.get("model_type")
        if t:
            old = _MODEL_TYPES.get(t)
            # The same class seen again (a module reload) replaces itself; a different one is a bug.
            if old is not None and (old.__module__, old.__qualname__) != (cls.__module__, cls.__qualname__):
                raise TypeError(f"model type {t!r} is already used by {old.__module__}.{old.__qualname__}")
            _MODEL_TYPES[t] = cls

    # ------------------------------------------------------------------ encoding
    @abc.abstractmethod
    def encode(self, text: str, *, allowed_special: Any = ..., disallowed_special: Any = ...) -> list[int]:
        """Token ids of `text` (see the family's docstring for its special-token defaults)."""

    @abc.abstractmethod
    def encode_ordinary(self, text: str) -> list[int]:
        """Token ids of `text`, special-token text encoded as ordinary text."""

    @abc.abstractmethod
    def encode_batch(self, texts: Sequence[str], *, num_threads: int | None = None) -> list[list[int]]:
        """``[encode(t) for t in texts]``; `num_threads` threads for this call."""

    @abc.abstractmethod
    def encode_with_offsets(self, text: str) -> tuple[list[int], list[int]]:
        """Token ids and the character offset in `text` where each token starts."""

    def encode_to_numpy(self, text: str, **kwargs: Any) -> "npt.NDArray[np.uint32]":
        """`encode` as a numpy uint32 array (keywords as for `encode`).

        >>> import tokenmill
        >>> tokenmill.CharLevel.train(["ab"]).encode_to_numpy("ba").tolist()
        [1, 0]
        """
        import numpy as np  # numpy is a dependency; imported here to keep `import tokenmill` light

        return np.asarray(self.encode(text, **kwargs), dtype=np.uint32)

    def count(self, text: str, **kwargs: Any) -> int:
        """Number of tokens `encode` returns (keywords as for `encode`).

        >>> import tokenmill
        >>> tokenmill.CharLevel.train(["ab"]).count("abba")
        4
        """
        return len(self.encode(text, **kwargs))

    # ------------------------------------------------------------------ decoding
    @abc.abstractmethod
    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        """The text of token ids."""

    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        """The bytes of the decoded text (byte-level families: the tokens' bytes joined).

        >>> import tokenmill
        >>> tokenmill.CharLevel.train(["é"]).decode_bytes([0])
        b'\\xc3\\xa9'
        """
        return self.decode(tokens).encode("utf-8", "surrogatepass")

    def decode_batch(self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int | None = None) -> list[str]:
        """``[decode(ids) for ids in batch]``.

        >>> import tokenmill
        >>> tokenmill.CharLevel.train(["ab"]).decode_batch([[0], [1, 0]])
        ['a', 'ba']
        """
        return [self.decode(ids, errors=errors) for ids in batch]

    # ------------------------------------------------------------------ vocabulary
    @property
    @abc.abstractmethod
    def vocab_size(self) -> int:
        """One more than the largest token id (ordinary and special tokens)."""

    @property
    def pretokenizer(self) -> str:
        """Which pre-tokenizer runs: a hand-written matcher of the core (``"r50k"``,
        ``"cl100k"``, ``"o200k"``), the core's lazy-DFA engine (``"dfa"``) or backtracking regex
        engine (``"regex"``) for any other pattern, or Python's
        ``re`` (``"python"``, the string-vocabulary families)."""
        return "python"

    @property
    def n_vocab(self) -> int:
        """The same number as `vocab_size` (tiktoken's name)."""
        return self.vocab_size

    @abc.abstractmethod
    def token_to_id(self, token: str | bytes) -> int:
        """The id of one token; `UnknownTokenError` (a KeyError) if it is not one."""

    @abc.abstractmethod
    def id_to_token(self, id: int) -> str:
        """The token with id `id`, as text."""

    @abc.abstractmethod
    def token_bytes(self, id: int) -> bytes:
        """The exact bytes of token `id`."""

    @property
    @abc.abstractmethod
    def special_tokens(self) -> dict[str, int]:
        """``{special token text: id}`` (a copy)."""

    @property
    @abc.abstractmethod
    def training(self) -> dict:
        """Metadata of the training run that made this tokenizer, or ``{}`` (a copy)."""

    @property
    def training_info(self) -> dict | None:
        """`training`, or None when there is none (the name `train_bpe` introduced first).

        >>> import tokenmill
        >>> tokenmill.get_encoding("gpt2").training_info is None
        True
        """
        return self.training or None

    # ------------------------------------------------------------------ files
    @abc.abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The native document ``{"format": "tokenmill", "version": 1, "model": {...}, ...}``."""

    @classmethod
    @abc.abstractmethod
    def _from_native(cls, d: Mapping[str, Any]) -> Tokenizer:
        """Builds the tokenizer from a native document already known to hold this model type."""

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Tokenizer:
        """Builds a tokenizer from a native document, validating every field.

        Called on `Tokenizer`, any model type is accepted; called on a family's class, the
        document must hold that family.

        Args:
            d: The parsed JSON object.

        Returns:
            The tokenizer. Raises `VocabFormatError` naming the bad field and the model type.

        >>> import tokenmill
        >>> d = tokenmill.CharLevel.train(["ab"]).to_dict()
        >>> Tokenizer.from_dict(d).encode("ba")
        [1, 0]
        """
        mtype = _schema.check_envelope(d)
        sub = _MODEL_TYPES.get(mtype)
        if sub is None:
            raise VocabFormatError(f"model.type: unknown model type {mtype!r}; known types: {', '.join(map(repr, sorted(_MODEL_TYPES)))}")
        if cls is not Tokenizer and not issubclass(sub, cls):
            raise VocabFormatError(
                f"model.type: this holds a {mtype!r} model ({sub.__name__}), not a {cls.model_type!r} model; "
                f"load it with {sub.__name__} or tokenmill.load"
            )
        try:
            return sub._from_native(d)
        except VocabFormatError as e:
            raise VocabFormatError(f"{e.reason} (tokenmill {mtype!r} model)") from None
        except (SpecialTokenError, PatternError) as e:
            raise VocabFormatError(f"{e} (tokenmill {mtype!r} model)") from None

    @classmethod
    def load(cls, path: PathLike) -> Tokenizer:
        """Reads a native file written by `save` (`tokenmill.load` also reads peer formats).

        Args:
            path: Local file path.

        Returns:
            The tokenizer. Raises `VocabFormatError` naming the path and the bad field.

        >>> import os, tempfile, tokenmill
        >>> p = os.path.join(tempfile.mkdtemp(), "char.json")
        >>> tokenmill.CharLevel.train(["ab"]).save(p)
        >>> tokenmill.CharLevel.load(p).decode([1, 0])
        'ba'
        """
        p = str(path)
        d = _schema.read_json(p)
        try:
            return cls.from_dict(d)
        except VocabFormatError as e:
            raise e.at(p, _schema.FORMAT) from None

    def to_json_bytes(self) -> bytes:
        """The bytes `save` writes (UTF-8 JSON); equal tokenizers give equal bytes.

        >>> import tokenmill
        >>> tokenmill.CharLevel.train(["ab"]).to_json_bytes().decode().splitlines()[:2]
        ['{', '  "format": "tokenmill",']
        """
        return _schema.dumps_native(self.to_dict(), pretty=self._pretty_json)

    def save(self, path: PathLike) -> None:
        """Writes the native document to `path`, atomically; `tokenmill.load` reads it back.

        >>> import os, tempfile, tokenmill
        >>> p = os.path.join(tempfile.mkdtemp(), "gpt2.json")
        >>> tokenmill.get_encoding("gpt2").save(p)
        >>> tokenmill.load(p).encode("hi")
        [5303]
        """
        atomic_write_bytes(path, self.to_json_bytes())

    def export(self, format: str, path: PathLike) -> list[Path]:
        """Writes this tokenizer in a peer's format (or ``"tokenmill"``: `save`).

        Args:
            format: ``"tokenmill"``, or a format registered by `tokenmill.formats`:
                ``"tiktoken"`` (rank file at `path` plus ``<stem>.json``), ``"hf"``
                (``tokenizer.json``) or ``"gpt2"`` (``encoder.json`` + ``vocab.bpe`` in the
                directory `path`); each says which families it can hold.
            path: Where to write.

        Returns:
            The paths written.

        >>> import os, tempfile, tokenmill
        >>> paths = tokenmill.get_encoding("gpt2").export("hf", os.path.join(tempfile.mkdtemp(), "tokenizer.json"))
        >>> [p.name for p in paths]
        ['tokenizer.json']
        """
        if format == "tokenmill":
            self.save(path)
            return [Path(path)]
        writer = _EXPORTERS.get(format)
        if writer is None:
            known = ", ".join(repr(f) for f in ["tokenmill", *_EXPORTERS] if f != "huggingface")
            raise ValueError(f"unknown export format {format!r}; use one of {known}")
        return writer(self, path)

    def __reduce__(self):
        # Pickle through the native document: immutable objects cannot be set the usual way.
        return (_from_dict, (self.to_dict(),))


def _from_dict(d: Mapping[str, Any]) -> Tokenizer:
    """Unpickling hook (module-level so that pickles name a stable function)."""
    return Tokenizer.from_dict(d)

