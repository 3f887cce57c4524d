"""Shared code of the string-vocabulary families (classic BPE, word level, char level).

`VocabTokenizer` is their base: a vocabulary of strings with ids ``0 .. vocab_size - 1``,
ordinary and special tokens together, each id used once (no gaps, no shared ids), and the
`tokenmill.Tokenizer` interface built on two model methods: ``_encode_segment`` (ids of text
without special tokens, with the character offset of each token) and ``decode``. Special
tokens written in the text are recognised literally (longest first) before the model sees the
text, as ``allowed_special="all"`` by default (see `tokenmill.tokenizer` for the defaults of
each family); ``encode_ordinary`` skips that step. One special token may be the unknown token,
used for input the model has no token for. Instances are immutable and pickle by value.

Also here: the counting and vocabulary selection the families' ``train`` share. Reading files,
the native envelope and the model-type registry are elsewhere (`tokenmill._schema`,
`tokenmill.tokenizer`); each family's module documents its own ``model`` fields.
"""

from __future__ import annotations

import abc
import copy
import operator
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Callable, Sequence

from .._args import iter_texts, threads, min_frequency_arg, plural, special_token_list, vocab_size_arg
from .._schema import FORMAT, VERSION, field, is_int, json_copy, json_type, show
from ..errors import DisallowedSpecialTokenError, PatternError, SpecialTokenError, TokenIdError, TrainingError, UnknownTokenError, VocabFormatError
from .._io import PathLike
from ..specials import resolve
from ..tokenizer import Tokenizer

__all__ = ["VocabTokenizer", "load_tokenizer_dict", "UNK", "EOT"]

UNK = "<|unk|>"
EOT = "<|endoftext|>"


def train_args(special_tokens: object, vocab_size: object, min_frequency: object) -> tuple[str, ...]:
    """Checks the arguments every ``train`` takes; returns `special_tokens` as a tuple."""
    specials = special_token_list(special_tokens)
    vocab_size_arg(vocab_size, allow_none=True)
    min_frequency_arg(min_frequency)
    return specials


def _compile(pattern: object, field: str = "pattern") -> re.Pattern:
    if not isinstance(pattern, str):
        raise TypeError(f"{field} must be a str regex, got {type(pattern).__name__}")
    try:
        return re.compile(pattern)
    except re.error as e:
        raise PatternError(f"{field}: {show(pattern)} does not compile: {e}") from None


def _unknown_token(token: str, message: str) -> UnknownTokenError:
    """An `UnknownTokenError` for a text token, with `message` as its whole text.

    UnknownTokenError's own message template speaks of token *ids*; a word or a character
    needs its own sentence, so we keep the attributes and replace the text.
    """
    err = UnknownTokenError(token)
    err.args = (message,)
    return err


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
    for doc in iter_texts(corpus):
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
                f"vocab_size={vocab_size} is too small: {plural(len(specials), 'special token')} fill it, leaving no room for a {noun}; "
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


# ------------------------------------------------------------------------------- the base


class VocabTokenizer(Tokenizer):
    """Base of the string-vocabulary families: the `tokenmill.Tokenizer` interface over a
    ``{token: id}`` vocabulary (see the module docstring).

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

    _vocab: dict[str, int]
    _tokens: list[str]
    _special_tokens: dict[str, int]
    _special_ids: frozenset
    _split_special: Callable[[str], list[tuple[str, bool]]]
    _unk_id: int | None
    _training: dict

    # -------------------------------------------------------------- construction (internal)

    def _set(self, **attrs: Any) -> None:
        for k, v in attrs.items():
            object.__setattr__(self, k, v)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; build a new tokenizer instead of setting {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; cannot delete {name!r}")

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
            raise VocabFormatError(f"{mp}vocab: expected an object mapping token text to id, got {json_type(vocab)}")
        specials_in = {} if special_tokens is None else special_tokens
        if not isinstance(specials_in, Mapping):
            raise VocabFormatError(f"special_tokens: expected an object mapping token text to id, got {json_type(specials_in)}")
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
        for where, m in ((f"{mp}vocab", ordinary), ("special_tokens", specials)):
            for t, i in m.items():
                if i >= n:
                    raise VocabFormatError(
                        f"{where}[{t!r}]: id {i} is out of range; the {n} tokens must use the ids 0..{n - 1}, each once"
                    )
                if tokens[i] is not None:
                    raise VocabFormatError(f"{where}[{t!r}]: id {i} is already used by {tokens[i]!r}")
                tokens[i] = t
        if unk_token is not None:
            if not isinstance(unk_token, str):
                raise VocabFormatError(f"{mp}unk_token: expected a string or null, got {json_type(unk_token)}")
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
            _training=json_copy({} if training is None else training),
        )
        return ordinary

    @staticmethod
    def _token_map(m: Mapping, field: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for t, i in m.items():
            if not isinstance(t, str) or not t:
                raise VocabFormatError(f"{field}: token {show(t)} is not a non-empty string")
            if not is_int(i) or i < 0:
                raise VocabFormatError(f"{field}[{t!r}]: expected a non-negative integer id, got {json_type(i)} {show(i)}")
            out[t] = i
        return out

    # ---------------------------------------------------------------- the model's own parts

    @abc.abstractmethod
    def _encode_segment(self, text: str, offsets: list[int] | None = None, base: int = 0) -> list[int]:
        """Ids of `text`, which holds no special token to recognise; when `offsets` is a list,
        appends the character offset (plus `base`) where each token starts."""

    @abc.abstractmethod
    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """The text of token ids (each model documents how exact it is).

        Args:
            ids: Token ids.
            errors: Accepted for the common interface; a string vocabulary decodes exactly.

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
    def _from_model(cls, model: Mapping, special_tokens: Mapping, training: Mapping) -> VocabTokenizer:
        """Builds the tokenizer from a native ``model`` object (already known to be of this type)."""

    @classmethod
    def _from_native(cls, d: Mapping[str, Any]) -> VocabTokenizer:
        specials = field(d, "special_tokens", dict, "")
        training = field(d, "training", dict, "", required=False, default={})
        return cls._from_model(d["model"], specials, training)

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

    def encode(self, text: str, *, allowed_special: Any = "all", disallowed_special: Any = ()) -> list[int]:
        """Token ids of `text`; special tokens written literally in it become their ids.

        Args:
            text: The text.
            allowed_special: ``"all"`` (the default for string vocabularies) or a set of
                special-token texts to recognise; others are ordinary text.
            disallowed_special: ``"all"`` (every special not allowed) or a collection of
                texts whose presence raises `DisallowedSpecialTokenError`; ``()`` (default)
                checks nothing. Same meanings as `tokenmill.Encoding.encode`.

        Returns:
            Token ids.

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["ab"]).encode("ba<|unk|>")
        [1, 0, 2]
        """
        return self._encode(text, allowed_special, disallowed_special, None)

    def encode_with_offsets(self, text: str, *, allowed_special: Any = "all", disallowed_special: Any = ()) -> tuple[list[int], list[int]]:
        """Token ids and the character offset in `text` where each token starts.

        >>> from tokenmill.models import WordLevel
        >>> WordLevel.train(["Hi, you"]).encode_with_offsets("you,  Hi")
        ([2, 0, 1], [0, 3, 6])
        """
        offsets: list[int] = []
        return self._encode(text, allowed_special, disallowed_special, offsets), offsets

    def _encode(self, text: str, allowed_special: Any, disallowed_special: Any, offsets: list[int] | None) -> list[int]:
        if not isinstance(text, str):
            raise TypeError(f"encode expects a str, got {type(text).__name__}")
        if isinstance(allowed_special, str) and allowed_special == "all" and not disallowed_special:
            split = self._split_special  # the common case: precompiled
        else:
            split = self._splitter_for(allowed_special, disallowed_special, text)
        out: list[int] = []
        pos = 0
        for seg, special in split(text):
            if special:
                out.append(self._special_tokens[seg])
                if offsets is not None:
                    offsets.append(pos)
            else:
                out.extend(self._encode_segment(seg, offsets, pos))
            pos += len(seg)
        return out

    def _splitter_for(self, allowed_special: Any, disallowed_special: Any, text: str) -> Callable[[str], list[tuple[str, bool]]]:
        """The special-token splitter for these arguments, after checking the disallowed ones."""
        allowed, disallowed = resolve(frozenset(self._special_tokens), allowed_special, disallowed_special)
        hits = [(text.find(s), -len(s), s) for s in disallowed if s in text]
        if hits:
            raise DisallowedSpecialTokenError(min(hits)[2])
        return _special_splitter(sorted(allowed))

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

    def encode_batch(self, texts: Iterable[str], *, num_threads: int | None = None, **special: Any) -> list[list[int]]:
        """``[encode(t) for t in texts]``.

        Args:
            texts: An iterable of str (not a single str).
            num_threads: Accepted for the common interface; string-vocabulary models encode
                in Python, on the calling thread.
            **special: `allowed_special` / `disallowed_special`, as for `encode`.

        Returns:
            One list of ids per text.

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["ab"]).encode_batch(["a", "ba"])
        [[0], [1, 0]]
        """
        threads(num_threads)
        return [self.encode(t, **special) for t in iter_texts(texts, "texts")]

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
        for i, doc in enumerate(iter_texts(documents, "documents")):
            if i:
                out.append(sep)
            out.extend(self.encode(doc))
        return out

    def token_bytes(self, id: int) -> bytes:
        """The UTF-8 bytes of token `id`.

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["é"]).token_bytes(0)
        b'\\xc3\\xa9'
        """
        return self._tokens[self._index(id, None)].encode("utf-8", "surrogatepass")

    def token_to_id(self, token: str | bytes) -> int:
        """The id of one token (ordinary or special).

        Args:
            token: The token's text, exactly as in ``vocab`` (or its UTF-8 bytes).

        Returns:
            Its id. Raises `UnknownTokenError` (a KeyError) if it is not a token.

        >>> from tokenmill.models import CharLevel
        >>> CharLevel.train(["ab"]).token_to_id("b")
        1
        """
        if isinstance(token, (bytes, bytearray)):
            try:
                token = bytes(token).decode("utf-8")
            except UnicodeDecodeError:
                pass
        i = self._vocab.get(token) if isinstance(token, str) else None
        if i is None:
            raise _unknown_token(token, f"{show(token)} is not a token of this {type(self).__name__} vocabulary")
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

