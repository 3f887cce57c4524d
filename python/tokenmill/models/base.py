"""The shared `Tokenizer` interface of the text-level models, and tokenmill's native file format.

`Tokenizer` is the abstract base of the models in `tokenmill.models` (classic BPE, word level,
char level). Every model has the same surface: ``encode`` / ``decode`` / ``encode_batch`` /
``encode_documents`` / ``vocab`` / ``vocab_size`` / ``token_to_id`` / ``id_to_token`` /
``save`` / ``load`` / ``to_dict`` / ``from_dict``. A tokenizer is immutable once built
(training makes a new one), so it can be shared between threads and pickled.

Vocabulary: tokens are strings; ordinary tokens and special tokens together use the ids
``0 .. vocab_size - 1``, each exactly once (no gaps, no shared ids). Special tokens are
recognised literally in the text by ``encode`` (longest first) before the model sees the text;
``encode_ordinary`` skips that step. One special token may be the unknown token, used by the
model for input it has no token for.

Native format (JSON, UTF-8), one file per tokenizer::

    {"format": "tokenmill", "version": 1,
     "model": {"type": "classic_bpe" | "word" | "char", ...fields of that model...},
     "special_tokens": {"<|unk|>": 0, ...},
     "training": {...metadata, or {}}}

Reading is strict inside ``model`` (a missing, unknown or wrongly typed field is a
`VocabFormatError` naming the field and the model type, e.g.
``model.merges[3]: expected a pair of strings``) and ignores unknown top-level keys, so tools
may add their own. JSON objects with duplicate keys are rejected. Writing is atomic.

This module does not train, pre-tokenize or read corpus files, and it does not read
Hugging Face / tiktoken / sentencepiece files or byte-level BPE (see `tokenmill.loaders` and
`tokenmill.formats`, whose `tokenmill.load` dispatches here for these model types).
"""

from __future__ import annotations

import abc
import copy
import json
import operator
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Callable, ClassVar, Sequence, Union, cast

from ..errors import PatternError, SpecialTokenError, TokenIdError, TrainingError, UnknownTokenError, VocabFormatError
from ..formats.native import FORMAT, VERSION
from ..loaders import atomic_write_bytes

PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["Tokenizer", "load_tokenizer_dict", "FORMAT", "VERSION", "UNK", "EOT"]

UNK = "<|unk|>"
EOT = "<|endoftext|>"

# model "type" -> class; filled by Tokenizer.__init_subclass__.
_MODEL_TYPES: dict[str, type[Tokenizer]] = {}


# ----------------------------------------------------------------------------- small helpers


def _is_int(v: object) -> bool:
    # bool is an int subclass, but True is never a sensible id or count.
    return isinstance(v, int) and not isinstance(v, bool)


def _json_type(v: object) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, (list, tuple)):
        return "array"
    if isinstance(v, Mapping):
        return "object"
    return type(v).__name__


def _n(count: int, noun: str) -> str:
    """``"1 document"``, ``"3 documents"``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _show(v: object, limit: int = 60) -> str:
    r = repr(v)
    return r if len(r) <= limit else r[: limit - 3] + "..."


_KINDS: dict[type, tuple[str, Any]] = {str: ("a string", str), int: ("an integer", int), dict: ("an object", Mapping), list: ("an array", (list, tuple))}


def _field(obj: Mapping, key: str, kind: type, where: str, *, required: bool = True, default: Any = None, nullable: bool = False) -> Any:
    """``obj[key]`` checked to be of JSON type `kind`; errors name the field as ``{where}{key}``."""
    name, types = _KINDS[kind]
    if key not in obj:
        if required:
            raise VocabFormatError(f"{where}{key}: missing (expected {name})")
        return default
    v = obj[key]
    if v is None and nullable:
        return None
    ok = _is_int(v) if kind is int else isinstance(v, types)
    if not ok:
        raise VocabFormatError(f"{where}{key}: expected {name}{' or null' if nullable else ''}, got {_json_type(v)} {_show(v)}")
    return v


def _check_keys(obj: Mapping, allowed: Sequence[str], where: str) -> None:
    """Rejects unknown keys: in a versioned format a misspelt field should not be ignored."""
    for key in obj:
        if key not in allowed:
            raise VocabFormatError(f"{where}{key}: unknown field; expected only {', '.join(map(repr, allowed))}")


def _compile(pattern: object, field: str = "pattern") -> re.Pattern:
    if not isinstance(pattern, str):
        raise TypeError(f"{field} must be a str regex, got {type(pattern).__name__}")
    try:
        return re.compile(pattern)
    except re.error as e:
        raise PatternError(f"{field}: {_show(pattern)} does not compile: {e}") from None


def _unknown_token(token: str, message: str) -> UnknownTokenError:
    """An `UnknownTokenError` for a text token, with `message` as its whole text.

    UnknownTokenError's own message template speaks of token *ids*; a word or a character
    needs its own sentence, so we keep the attributes and replace the text.
    """
    err = UnknownTokenError(token)
    err.args = (message,)
    return err


def _documents(corpus: object, name: str = "corpus") -> Iterator[str]:
    """The items of `corpus`, checked to be str. Type problems with the container are raised
    now, not at the first ``next()``; an item of the wrong type when it is reached."""
    if isinstance(corpus, str):
        raise TypeError(
            f"{name} must be an iterable of str documents, not a single str; wrap it in a list: [text]"
        )
    if isinstance(corpus, (bytes, bytearray, memoryview)):
        raise TypeError(f"{name} must be an iterable of str documents, not bytes; decode it and wrap it in a list: [data.decode()]")
    try:
        it = iter(corpus)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{name} must be an iterable of str documents, got {type(corpus).__name__}") from None

    def items() -> Iterator[str]:
        for i, doc in enumerate(it):
            if not isinstance(doc, str):
                raise TypeError(f"{name}[{i}] is {type(doc).__name__}, expected str (decode bytes first)")
            yield doc

    return items()


def _special_list(special_tokens: object) -> tuple[str, ...]:
    """`special_tokens` of a ``train`` call as a tuple, rejecting empty and duplicate tokens."""
    if special_tokens is None:
        return ()
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a list of str, not a single str; write special_tokens=[{special_tokens!r}]")
    if isinstance(special_tokens, Mapping):
        raise TypeError("special_tokens of train() must be a list of str (ids are assigned by training), not a mapping")
    first: dict[str, int] = {}
    for i, s in enumerate(cast("Iterable[object]", special_tokens)):
        if not isinstance(s, str):
            raise TypeError(f"special_tokens[{i}] is {type(s).__name__}, expected str")
        if not s:
            raise SpecialTokenError(f"special_tokens[{i}] is the empty string; a special token needs at least one character")
        if s in first:
            raise SpecialTokenError(
                f"duplicate special token {s!r} in special_tokens (positions {first[s]} and {i}); list each special token once"
            )
        first[s] = i
    return tuple(first)


def _train_args(special_tokens: object, vocab_size: object, min_frequency: object) -> tuple[str, ...]:
    """Checks the arguments every ``train`` takes; returns `special_tokens` as a tuple."""
    specials = _special_list(special_tokens)
    if vocab_size is not None:
        if not _is_int(vocab_size):
            raise TypeError(f"vocab_size must be an int or None, got {type(vocab_size).__name__}")
        if vocab_size < 1:  # type: ignore[operator]
            raise TrainingError(f"vocab_size={vocab_size} is too small; a vocabulary needs at least one token")
    if not _is_int(min_frequency):
        raise TypeError(f"min_frequency must be an int, got {type(min_frequency).__name__}")
    if min_frequency < 0:  # type: ignore[operator]
        raise TrainingError(f"min_frequency={min_frequency} is negative; pass 1 (the default) to keep everything")
    return specials


def _special_splitter(specials: Iterable[str]) -> Callable[[str], list[tuple[str, bool]]]:
    """A function ``text -> [(segment, is_special)]`` cutting the literal special tokens out."""
    # Longest first, so "<|end|>x" with specials "<|end|>" and "<|end|>x" takes the longer one.
    ordered = sorted(specials, key=lambda s: (-len(s), s))
    rx = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    def split(text: str) -> list[tuple[str, bool]]:
        if rx is None:
            return [(text, False)] if text else []
        out: list[tuple[str, bool]] = []
        pos = 0
        for m in rx.finditer(text):
            if m.start() > pos:
                out.append((text[pos : m.start()], False))
            out.append((m.group(), True))
            pos = m.end()
        if pos < len(text):
            out.append((text[pos:], False))
        return out

    return split


def _count_items(
    corpus: object, specials: Sequence[str], items_of: Callable[[str], Iterable[str]]
) -> tuple[Counter[str], int]:
    """Counts ``items_of(segment)`` over the text of `corpus` between the special tokens.

    Returns ``(counts, number of documents)``. The special tokens are cut out before
    `items_of` sees the text, so no item is ever the text of a special token.
    """
    split = _special_splitter(specials)
    counts: Counter[str] = Counter()
    n_docs = 0
    for doc in _documents(corpus):
        n_docs += 1
        for seg, special in split(doc):
            if not special:
                counts.update(items_of(seg))
    return counts, n_docs


def _select_vocab(
    counts: Mapping[str, int], specials: Sequence[str], vocab_size: int | None, min_frequency: int, noun: str
) -> tuple[dict[str, int], dict[str, int]]:
    """The vocabulary of a char- or word-level ``train``: ``(vocab, special_tokens)``.

    Keeps the items of `counts` seen `min_frequency` times and, if `vocab_size` leaves less
    room, only the most frequent (ties by text); ids go to them in sorted order, then to the
    special tokens. `noun` (``"character"``, ``"word"``) names an item in the errors.
    """
    kept = [t for t, c in counts.items() if c >= min_frequency]
    if not kept:
        raise TrainingError(f"no {noun} occurs at least min_frequency={min_frequency} times; lower min_frequency")
    if vocab_size is not None:
        room = vocab_size - len(specials)
        if room < 1:
            raise TrainingError(
                f"vocab_size={vocab_size} is too small: {_n(len(specials), 'special token')} fill it, leaving no room for a {noun}; "
                f"pass vocab_size >= {len(specials) + 1}"
            )
        if len(kept) > room:
            kept = sorted(kept, key=lambda t: (-counts[t], t))[:room]
    if len(kept) < len(counts) and UNK not in specials:
        raise TrainingError(
            f"{len(counts) - len(kept)} {noun}s of the corpus are left out (vocab_size / min_frequency) and there is "
            f"no {UNK!r} special token to encode them; add {UNK!r} to special_tokens"
        )
    tokens = sorted(kept)
    return {t: i for i, t in enumerate(tokens)}, {s: len(tokens) + i for i, s in enumerate(specials)}


def _training_record(vocab_size: int | None, min_frequency: int, n_docs: int, **counts: int) -> dict[str, Any]:
    """The ``training`` metadata of a ``train`` call: its arguments, then corpus counts."""
    return {"vocab_size": vocab_size, "min_frequency": min_frequency, "documents": n_docs, **counts}


def _dumps(obj: Any, ensure_ascii: bool, level: int = 0) -> str:
    """JSON with one vocabulary entry / one merge pair per line: readable and diff-friendly."""
    pad, end = "  " * (level + 1), "  " * level
    if isinstance(obj, Mapping) and obj:
        items = [f"{pad}{json.dumps(k, ensure_ascii=ensure_ascii)}: {_dumps(v, ensure_ascii, level + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + end + "}"
    if isinstance(obj, (list, tuple)) and any(isinstance(x, (Mapping, list, tuple)) for x in obj):
        return "[\n" + ",\n".join(pad + _dumps(x, ensure_ascii, level + 1) for x in obj) + "\n" + end + "]"
    return json.dumps(obj, ensure_ascii=ensure_ascii)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict:
    d: dict = {}
    for k, v in pairs:
        if k in d:
            raise VocabFormatError(f"duplicate key {k!r} in a JSON object")
        d[k] = v
    return d


def _json_copy(training: object, field: str = "training") -> dict:
    """A deep copy of JSON-able metadata (so the tokenizer never shares a mutable dict)."""
    if not isinstance(training, Mapping):
        raise VocabFormatError(f"{field}: expected an object, got {_json_type(training)}")
    try:
        return json.loads(json.dumps(dict(training)))
    except (TypeError, ValueError) as e:
        raise VocabFormatError(f"{field}: not JSON-serializable: {e}") from None


# ------------------------------------------------------------------------------- Tokenizer


class Tokenizer(abc.ABC):
    """Abstract base of the text-level models: one interface for encode, decode, vocab and files.

    Subclasses set ``model_type`` (the native format's ``model.type``) and implement
    ``_encode_segment``, ``decode``, ``_model_fields`` and ``_from_model``. Instances are
    immutable; attributes cannot be set or deleted.

    >>> from tokenmill.models import CharLevel
    >>> tok = CharLevel.train(["hello"])
    >>> tok.encode("hole")
    [1, 3, 2, 0]
    >>> tok.vocab_size
    5
    >>> tok.foo = 1
    Traceback (most recent call last):
    ...
    AttributeError: CharLevel is immutable; build a new tokenizer instead of setting 'foo'
    """

    __slots__ = ("_vocab", "_tokens", "_special_tokens", "_special_ids", "_split_special", "_unk_id", "_training")

    model_type: ClassVar[str] = ""

    _vocab: dict[str, int]
    _tokens: list[str]
    _special_tokens: dict[str, int]
    _special_ids: frozenset
    _split_special: Callable[[str], list[tuple[str, bool]]]
    _unk_id: int | None
    _training: dict

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        t = cls.__dict__.get("model_type")
        if t:
            old = _MODEL_TYPES.get(t)
            # The same class seen again (a module reload) replaces itself; a different one is a bug.
            if old is not None and (old.__module__, old.__qualname__) != (cls.__module__, cls.__qualname__):
                raise TypeError(f"model type {t!r} is already used by {old.__module__}.{old.__qualname__}")
            _MODEL_TYPES[t] = cls

    # -------------------------------------------------------------- construction (internal)

    def _set(self, **attrs: Any) -> None:
        for k, v in attrs.items():
            object.__setattr__(self, k, v)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; build a new tokenizer instead of setting {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; cannot delete {name!r}")

    def __reduce__(self):
        # Pickle through the native dict: the slots cannot be set the usual way.
        return (load_tokenizer_dict, (self.to_dict(),))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(vocab_size={len(self._tokens)}, special_tokens={list(self._special_tokens)!r})"

    def _init_base(
        self, vocab: object, special_tokens: object, unk_token: object, training: object, mp: str
    ) -> dict[str, int]:
        """Validates and stores the shared state; returns the ordinary (non-special) tokens.

        `mp` prefixes model fields in error messages: "" for constructor arguments,
        "model." when reading the native format.
        """
        if not isinstance(vocab, Mapping):
            raise VocabFormatError(f"{mp}vocab: expected an object mapping token text to id, got {_json_type(vocab)}")
        specials_in = {} if special_tokens is None else special_tokens
        if not isinstance(specials_in, Mapping):
            raise VocabFormatError(f"special_tokens: expected an object mapping token text to id, got {_json_type(specials_in)}")
        specials = self._token_map(specials_in, "special_tokens")
        ordinary = self._token_map(vocab, f"{mp}vocab")
        for s, i in specials.items():
            # A vocab that already lists the special tokens (e.g. `tok.vocab`) is fine if the ids agree.
            if s in ordinary:
                if ordinary[s] != i:
                    raise VocabFormatError(f"{mp}vocab[{s!r}]: id {ordinary[s]} differs from special_tokens[{s!r}] = {i}")
                del ordinary[s]
        n = len(ordinary) + len(specials)
        if n == 0:
            raise VocabFormatError(f"{mp}vocab: the vocabulary is empty")
        tokens: list[str | None] = [None] * n
        for field, m in ((f"{mp}vocab", ordinary), ("special_tokens", specials)):
            for t, i in m.items():
                if i >= n:
                    raise VocabFormatError(
                        f"{field}[{t!r}]: id {i} is out of range; the {n} tokens must use the ids 0..{n - 1}, each once"
                    )
                if tokens[i] is not None:
                    raise VocabFormatError(f"{field}[{t!r}]: id {i} is already used by {tokens[i]!r}")
                tokens[i] = t
        if unk_token is not None:
            if not isinstance(unk_token, str):
                raise VocabFormatError(f"{mp}unk_token: expected a string or null, got {_json_type(unk_token)}")
            if unk_token not in specials:
                raise SpecialTokenError(f"{mp}unk_token {unk_token!r} is not a special token; add it to special_tokens")
        ordered_specials = dict(sorted(specials.items(), key=lambda kv: kv[1]))
        all_tokens: list[str] = tokens  # type: ignore[assignment]  # no None left: ids are 0..n-1
        self._set(
            _vocab={t: i for i, t in enumerate(all_tokens)},
            _tokens=all_tokens,
            _special_tokens=ordered_specials,
            _special_ids=frozenset(ordered_specials.values()),
            _split_special=_special_splitter(ordered_specials),
            _unk_id=None if unk_token is None else specials[unk_token],
            _training=_json_copy({} if training is None else training),
        )
        return ordinary

    @staticmethod
    def _token_map(m: Mapping, field: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for t, i in m.items():
            if not isinstance(t, str) or not t:
                raise VocabFormatError(f"{field}: token {_show(t)} is not a non-empty string")
            if not _is_int(i) or i < 0:
                raise VocabFormatError(f"{field}[{t!r}]: expected a non-negative integer id, got {_json_type(i)} {_show(i)}")
            out[t] = i
        return out

    # ---------------------------------------------------------------- the model's own parts

    @abc.abstractmethod
    def _encode_segment(self, text: str) -> list[int]:
        """Ids of `text`, which holds no special token to recognise."""

    @abc.abstractmethod
    def decode(self, ids: Iterable[int]) -> str:
        """The text of token ids (each model documents how exact it is).

        Args:
            ids: Token ids.

        Returns:
            The decoded text.

        >>> from tokenmill.models import CharLevel
        >>> tok = CharLevel.train(["hello"])
        >>> tok.decode([1, 3, 2, 0])
        'hole'
        """

    @abc.abstractmethod
    def _model_fields(self) -> dict[str, Any]:
        """The ``model`` object of the native format, without ``type``."""

    @classmethod
    @abc.abstractmethod
    def _from_model(cls, model: Mapping, special_tokens: Mapping, training: Mapping) -> Tokenizer:
        """Builds the tokenizer from a native ``model`` object (already known to be of this type)."""

    # ----------------------------------------------------------------------- public surface

    @property
    def vocab(self) -> dict[str, int]:
        """``{token: id}`` of every token, special tokens included, in id order (a copy).

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["ab"]).vocab
        {'a': 0, 'b': 1, '<|unk|>': 2}
        """
        return dict(self._vocab)

    @property
    def vocab_size(self) -> int:
        """Number of tokens, special tokens included; ids are ``0 .. vocab_size - 1``.

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["ab"]).vocab_size
        3
        """
        return len(self._tokens)

    @property
    def special_tokens(self) -> dict[str, int]:
        """``{special token: id}`` in id order (a copy).

        >>> from tokenmill.models import WordLevel
        >>> WordLevel.train(["a b"]).special_tokens
        {'<|endoftext|>': 2, '<|unk|>': 3}
        """
        return dict(self._special_tokens)

    @property
    def unk_token(self) -> str | None:
        """The special token that stands for unknown input, or None (unknown input is an error).

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["ab"]).unk_token, CharLevel.train(["ab"], special_tokens=[]).unk_token
        ('<|unk|>', None)
        """
        return None if self._unk_id is None else self._tokens[self._unk_id]

    @property
    def training(self) -> dict:
        """Metadata recorded by ``train`` (arguments, corpus counts), or ``{}`` (a copy).

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["ab"]).training["documents"]
        1
        """
        return copy.deepcopy(self._training)

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`; special tokens written literally in it become their ids.

        Args:
            text: The text.

        Returns:
            Token ids.

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["ab"]).encode("ba<|unk|>")
        [1, 0, 2]
        """
        if not isinstance(text, str):
            raise TypeError(f"encode expects a str, got {type(text).__name__}")
        out: list[int] = []
        for seg, special in self._split_special(text):
            if special:
                out.append(self._special_tokens[seg])
            else:
                out.extend(self._encode_segment(seg))
        return out

    def encode_ordinary(self, text: str) -> list[int]:
        """Token ids of `text`, treating special-token text as ordinary text.

        Args:
            text: The text.

        Returns:
            Token ids; special-token text is encoded like any other text.

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["<|>"]).encode_ordinary("<|unk|>")
        [0, 2, 3, 3, 3, 2, 1]
        """
        if not isinstance(text, str):
            raise TypeError(f"encode_ordinary expects a str, got {type(text).__name__}")
        return self._encode_segment(text) if text else []

    def encode_batch(self, texts: Iterable[str]) -> list[list[int]]:
        """``[encode(t) for t in texts]``.

        Args:
            texts: An iterable of str (not a single str).

        Returns:
            One list of ids per text.

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["ab"]).encode_batch(["a", "ba"])
        [[0], [1, 0]]
        """
        return [self.encode(t) for t in _documents(texts, "texts")]

    def encode_documents(self, documents: Iterable[str], separator: str = EOT) -> list[int]:
        """One id sequence for several documents, with the `separator` special token between them.

        Args:
            documents: An iterable of str (not a single str).
            separator: A special token of this tokenizer.

        Returns:
            ``encode(d0) + [sep] + encode(d1) + ...`` (no separator after the last one).

        >>> from tokenmill.models import WordLevel
        >>> tok = WordLevel.train(["a b"])
        >>> tok.encode_documents(["a", "b a"])
        [0, 2, 1, 0]
        """
        sep = self._special_tokens.get(separator) if isinstance(separator, str) else None
        if sep is None:
            raise SpecialTokenError(
                f"separator {separator!r} is not a special token of this tokenizer (its special tokens: "
                f"{list(self._special_tokens)}); train with it in special_tokens or pass another separator="
            )
        out: list[int] = []
        for i, doc in enumerate(_documents(documents, "documents")):
            if i:
                out.append(sep)
            out.extend(self.encode(doc))
        return out

    def token_to_id(self, token: str) -> int:
        """The id of one token (ordinary or special).

        Args:
            token: The token's text, exactly as in ``vocab``.

        Returns:
            Its id. Raises `UnknownTokenError` (a KeyError) if it is not a token.

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["ab"]).token_to_id("b")
        1
        """
        i = self._vocab.get(token) if isinstance(token, str) else None
        if i is None:
            raise _unknown_token(token, f"{_show(token)} is not a token of this {type(self).__name__} vocabulary")
        return i

    def id_to_token(self, id: int) -> str:
        """The text of one token id.

        Args:
            id: A token id in ``0 .. vocab_size - 1``.

        Returns:
            The token, exactly as in ``vocab``. Raises `TokenIdError` if out of range.

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["ab"]).id_to_token(2)
        '<|unk|>'
        """
        return self._tokens[self._index(id, None)]

    def _index(self, id: object, position: int | None) -> int:
        try:
            i = operator.index(id)  # type: ignore[arg-type]
        except TypeError:
            at = "" if position is None else f" at position {position}"
            raise TypeError(f"token id{at} must be an int, got {type(id).__name__}") from None
        if not 0 <= i < len(self._tokens) or isinstance(id, bool):
            raise TokenIdError(id, position, len(self._tokens))
        return i

    def _token_ids(self, items: Iterable[str], unknown: Callable[[int, str], str]) -> list[int]:
        """The ids of `items` as ordinary tokens; one that is not becomes the unknown token, or
        without one raises `UnknownTokenError` with the message ``unknown(index, item)``."""
        vocab, specials, unk = self._vocab, self._special_ids, self._unk_id
        out: list[int] = []
        for k, t in enumerate(items):
            i = vocab.get(t)
            if i is None or i in specials:
                if unk is None:
                    raise _unknown_token(t, unknown(k, t))
                i = unk
            out.append(i)
        return out

    def _token_strings(self, ids: Iterable[int]) -> list[str]:
        """The token text of every id, with errors that give the position of a bad id."""
        if isinstance(ids, (str, bytes)):
            raise TypeError(f"decode expects a sequence of int token ids, got {type(ids).__name__}")
        tokens = self._tokens
        return [tokens[self._index(t, k)] for k, t in enumerate(ids)]

    # ------------------------------------------------------------------------------ files

    def to_dict(self) -> dict[str, Any]:
        """The native-format object of this tokenizer (a fresh dict; see the module docstring).

        Returns:
            ``{"format": "tokenmill", "version": 1, "model": {...}, "special_tokens": {...},
            "training": {...}}``.

        >>> from tokenmill.models import CharLevel
        >>> d = CharLevel.train(["ab"]).to_dict()
        >>> d["model"], d["special_tokens"]
        ({'type': 'char', 'vocab': {'a': 0, 'b': 1}, 'unk_token': '<|unk|>'}, {'<|unk|>': 2})
        """
        return {
            "format": FORMAT,
            "version": VERSION,
            "model": {"type": self.model_type, **self._model_fields()},
            "special_tokens": dict(self._special_tokens),
            "training": copy.deepcopy(self._training),
        }

    def _ordinary_vocab(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self._tokens) if i not in self._special_ids}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Tokenizer:
        """Builds a tokenizer from a native-format object, validating every field.

        Called on `Tokenizer`, any model type is accepted; called on a model class, the
        object must hold that model type.

        Args:
            d: The parsed JSON object.

        Returns:
            The tokenizer. Raises `VocabFormatError` naming the bad field and the model type.

        >>> from tokenmill.models import CharLevel, Tokenizer
        >>> d = CharLevel.train(["ab"]).to_dict()
        >>> Tokenizer.from_dict(d).encode("ba")
        [1, 0]
        >>> d["model"]["vocab"]["c"] = "2"
        >>> Tokenizer.from_dict(d)
        Traceback (most recent call last):
        ...
        tokenmill.errors.VocabFormatError: model.vocab['c']: expected a non-negative integer id, got string '2' (tokenmill 'char' model)
        """
        if not isinstance(d, Mapping):
            raise VocabFormatError(f"expected a JSON object at the top level, got {_json_type(d)}")
        if "format" not in d and "model" in d and "version" in d:
            raise VocabFormatError(
                "format: missing; this looks like a Hugging Face tokenizer.json, not a tokenmill native file"
            )
        fmt = _field(d, "format", str, "")
        if fmt != FORMAT:
            raise VocabFormatError(f"format: expected {FORMAT!r}, got {fmt!r}; this is not a tokenmill native file")
        version = _field(d, "version", int, "")
        if version != VERSION:
            raise VocabFormatError(
                f"version: unsupported version {version}; this tokenmill reads version {VERSION} files"
                + (" (the file was written by a newer tokenmill; upgrade)" if version > VERSION else "")
            )
        model = _field(d, "model", dict, "")
        mtype = _field(model, "type", str, "model.")
        sub = _model_class(mtype)
        if cls is not Tokenizer and not issubclass(sub, cls):
            raise VocabFormatError(
                f"model.type: this holds a {mtype!r} model ({sub.__name__}), not a {cls.model_type!r} model; "
                f"load it with {sub.__name__} or Tokenizer"
            )
        try:
            specials = _field(d, "special_tokens", dict, "")
            training = _field(d, "training", dict, "", required=False, default={})
            return sub._from_model(model, specials, training)
        except VocabFormatError as e:
            raise VocabFormatError(f"{e.reason} (tokenmill {mtype!r} model)") from None
        except (SpecialTokenError, PatternError) as e:
            raise VocabFormatError(f"{e} (tokenmill {mtype!r} model)") from None

    def to_json_bytes(self) -> bytes:
        """The native file's bytes: UTF-8 JSON, one vocabulary entry or merge per line.

        Returns:
            The bytes that ``save`` writes; equal tokenizers give equal bytes.

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["ab"]).to_json_bytes().decode().splitlines()[:3]
        ['{', '  "format": "tokenmill",', '  "version": 1,']
        """
        d = self.to_dict()
        try:
            return (_dumps(d, ensure_ascii=False) + "\n").encode("utf-8")
        except UnicodeEncodeError:
            # Lone surrogates (from a corpus read with surrogateescape) cannot be UTF-8;
            # JSON's \\uXXXX escapes carry them and json.loads reads them back.
            return (_dumps(d, ensure_ascii=True) + "\n").encode("ascii")

    def save(self, path: PathLike) -> None:
        """Writes the tokenizer to `path` in the native format, atomically.

        Args:
            path: Destination file (its directory must exist).

        >>> import os, tempfile
        >>> from tokenmill.models import CharLevel, Tokenizer
        >>> p = os.path.join(tempfile.mkdtemp(), "char.json")
        >>> CharLevel.train(["ab"]).save(p)
        >>> Tokenizer.load(p).decode([1, 0])
        'ba'
        """
        atomic_write_bytes(path, self.to_json_bytes())

    @classmethod
    def load(cls, path: PathLike) -> Tokenizer:
        """Reads a native-format file written by ``save``.

        Args:
            path: Local file path.

        Returns:
            The tokenizer (any model type when called on `Tokenizer`). Raises
            `VocabFormatError` with the path and the bad field.

        >>> import os, tempfile
        >>> from tokenmill.models import CharLevel
        >>> p = os.path.join(tempfile.mkdtemp(), "char.json")
        >>> CharLevel.train(["ab"]).save(p)
        >>> CharLevel.load(p).vocab
        {'a': 0, 'b': 1, '<|unk|>': 2}
        """
        data = Path(path).read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise VocabFormatError(f"not UTF-8 text (bad byte at offset {e.start}); a tokenmill file is UTF-8 JSON", str(path), format=FORMAT) from None
        if text.startswith("\ufeff"):  # a BOM added by an editor is harmless
            text = text[1:]
        try:
            d = json.loads(text, object_pairs_hook=_no_duplicate_keys)
        except json.JSONDecodeError as e:
            raise VocabFormatError(f"not valid JSON: {e.msg} (column {e.colno})", str(path), e.lineno, FORMAT) from None
        except VocabFormatError as e:
            raise e.at(str(path), FORMAT) from None
        try:
            return cls.from_dict(d)
        except VocabFormatError as e:
            raise e.at(str(path), FORMAT) from None


def _model_class(mtype: str) -> type[Tokenizer]:
    from . import classic_bpe, char, wordlevel  # noqa: F401  (registers the built-in types)

    sub = _MODEL_TYPES.get(mtype)
    if sub is None:
        raise VocabFormatError(f"model.type: unknown model type {mtype!r}; known types: {', '.join(map(repr, sorted(_MODEL_TYPES)))}")
    return sub


def load_tokenizer_dict(d: Mapping[str, Any], path: PathLike | None = None) -> Tokenizer:
    """The tokenizer of a native-format object, whatever its model type (``Tokenizer.from_dict``).

    Args:
        d: The parsed JSON object (``{"format": "tokenmill", "version": 1, "model": ...}``).
        path: The file it was read from, named in errors (optional).

    Returns:
        An instance of the class registered for ``d["model"]["type"]``. Raises
        `VocabFormatError` naming the bad field, the model type and `path`.

    >>> from tokenmill.models import WordLevel, load_tokenizer_dict
    >>> tok = load_tokenizer_dict(WordLevel.train(["a b"]).to_dict())
    >>> type(tok).__name__, tok.encode("b a c")
    ('WordLevel', [1, 0, 3])
    """
    try:
        return Tokenizer.from_dict(d)
    except VocabFormatError as e:
        if path is None:
            raise
        raise e.at(str(path), FORMAT) from None
