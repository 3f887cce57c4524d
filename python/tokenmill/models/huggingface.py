"""Tokenizers read from a Hugging Face ``tokenizer.json``, with HF's semantics and ids.

`HFTokenizer` runs the file's whole pipeline in the Rust core (`tokenmill._core.HfTokenizer`):
added tokens, normalizer, pre-tokenizer, model (BPE, WordPiece, WordLevel, Unigram), post-processor
(``[CLS] ... [SEP]``, ``<s>``...), truncation, padding and decoder. This module holds the
Python face: HF's keyword names and defaults (``add_special_tokens=True``,
``skip_special_tokens=True``), the `Encoded` result (ids, type ids, tokens, offsets, word ids,
masks, overflowing) and the `Tokenizer` interface every tokenmill family has.

Immutable, like every tokenmill tokenizer: ``with_truncation(...)`` and ``with_padding(...)``
return adjusted copies (``None`` switches one off, as HF's ``no_truncation()`` /
``no_padding()`` do). ``save`` keeps the file itself inside tokenmill's envelope and
``export("hf", path)`` writes it back byte for byte. A component this build does not
implement is a `tokenmill.UnsupportedError` naming it, never a different answer.

Reading the file (plain or gzipped) and recognising it is `tokenmill.formats.hf`'s job.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .. import _core
from .._args import fix_surrogates, has_surrogates, iter_texts, threads
from ..errors import DisallowedSpecialTokenError, TokenIdError, UnknownTokenError, VocabFormatError
from ..specials import resolve
from ..tokenizer import Tokenizer, reader

__all__ = ["HFTokenizer", "Encoded"]

_FIELDS = ("ids", "type_ids", "tokens", "offsets", "word_ids", "special_tokens_mask", "attention_mask", "sequence_ids", "overflowing")


class Encoded:
    """One encoded text (or pair), as HF's ``Encoding``: ``ids``, ``type_ids``, ``tokens``,
    ``offsets`` (``(start, end)`` characters in the text the token came from), ``word_ids``,
    ``special_tokens_mask``, ``attention_mask``, ``sequence_ids`` and ``overflowing`` (the
    windows truncation cut off, each an `Encoded`)."""

    __slots__ = _FIELDS

    def __init__(self, fields: Sequence[Any]):
        for name, value in zip(_FIELDS[:-1], fields):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "overflowing", [Encoded(o) for o in fields[-1]])

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Encoded is immutable")

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return f"Encoded(num_tokens={len(self.ids)}, ids={self.ids[:8]}{'...' if len(self.ids) > 8 else ''})"


def _text(text: Any, what: str = "text") -> str:
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str, not {type(text).__name__}")
    # Lone surrogates cannot cross into Rust; repaired as everywhere in tokenmill.
    return fix_surrogates(text) if has_surrogates(text) else text


class HFTokenizer(Tokenizer):
    """A Hugging Face ``tokenizer.json`` tokenizer (see the module docstring).

    Build it with `from_file`, `from_str` or `from_bytes` (or ``tokenmill.load(path)``).

    >>> import tokenmill
    >>> tok = HFTokenizer.from_str('{"version": "1.0", "model": {"type": "WordLevel", '
    ...     '"vocab": {"[UNK]": 0, "hello": 1, "world": 2}, "unk_token": "[UNK]"}, '
    ...     '"pre_tokenizer": {"type": "WhitespaceSplit"}}')
    >>> tok.encode("hello big world")
    [1, 0, 2]
    """

    __slots__ = ("_core", "_json", "_truncation", "_padding", "_specials", "_all_special_ids", "_changed")

    model_type = "huggingface"

    def __init__(self, data: bytes, *, _core_tok: Any = None, _truncation: Any = None, _padding: Any = None):
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"HFTokenizer() takes the bytes of a tokenizer.json, not {type(data).__name__}; "
                            "use HFTokenizer.from_file(path) or tokenmill.load(path)")
        core = _core_tok if _core_tok is not None else _core.HfTokenizer(bytes(data))
        set_ = object.__setattr__
        set_(self, "_core", core)
        set_(self, "_json", bytes(data))
        if _core_tok is None:  # the file's own settings
            _truncation, _padding = (None if s is None else json.loads(s) for s in core.settings())
        set_(self, "_changed", _core_tok is not None)  # settings changed by with_truncation / with_padding
        set_(self, "_truncation", _truncation)
        set_(self, "_padding", _padding)
        set_(self, "_specials", {c: i for i, c, special, *_ in core.added_tokens() if special})
        set_(self, "_all_special_ids", sorted(self._specials.values()))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; use with_truncation(...) / with_padding(...) for a changed copy")

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_str(cls, json_text: str) -> HFTokenizer:
        """The tokenizer of a ``tokenizer.json`` given as text."""
        return cls(json_text.encode("utf-8"))

    @classmethod
    def from_bytes(cls, data: bytes) -> HFTokenizer:
        """The tokenizer of the bytes of a ``tokenizer.json``."""
        return cls(data)

    @classmethod
    def from_file(cls, path: Any) -> HFTokenizer:
        """Reads a ``tokenizer.json`` (plain or gzipped); errors name the file.

        >>> import os, tempfile, tokenmill
        >>> p = os.path.join(tempfile.mkdtemp(), "tokenizer.json")
        >>> _ = tokenmill.get_encoding("gpt2").export("hf", p)
        >>> HFTokenizer.from_file(p).encode("hello world")
        [31373, 995]
        """
        return reader("hf")(path)

    def _copy(self, core: Any, truncation: Any, padding: Any) -> HFTokenizer:
        obj = HFTokenizer.__new__(HFTokenizer)
        HFTokenizer.__init__(obj, self._json, _core_tok=core, _truncation=truncation, _padding=padding)
        return obj

    def with_truncation(self, max_length: int | None, *, stride: int = 0, strategy: str = "longest_first",
                        direction: str = "right") -> HFTokenizer:
        """A copy that truncates to `max_length` tokens (None: no truncation), as HF's
        ``enable_truncation`` (strategies ``longest_first``, ``only_first``, ``only_second``;
        `direction` ``right`` or ``left``; `stride` tokens of overlap in the overflowing windows).

        >>> tok = HFTokenizer.from_str('{"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}, '
        ...     '"pre_tokenizer": {"type": "WhitespaceSplit"}}')
        >>> tok.with_truncation(2).encode("a a a")
        [0, 0]
        """
        if max_length is None:
            return self._copy(self._core.with_truncation(None), None, self._padding)
        params = {"max_length": max_length, "stride": stride, "strategy": _camel(strategy), "direction": direction.capitalize()}
        return self._copy(self._core.with_truncation(json.dumps(params)), params, self._padding)

    def with_padding(self, length: int | str | None = "longest", *, enabled: bool = True, pad_id: int = 0,
                     pad_type_id: int = 0, pad_token: str = "[PAD]", direction: str = "right",
                     pad_to_multiple_of: int | None = None) -> HFTokenizer:
        """A copy that pads, as HF's ``enable_padding``: to `length` tokens, or (``"longest"``,
        the default) to the longest text of each batch. ``None`` (or ``enabled=False``) switches
        padding off, as HF's ``no_padding()``.

        >>> tok = HFTokenizer.from_str('{"model": {"type": "WordLevel", "vocab": {"a": 0, "[PAD]": 1}, "unk_token": "a"}, '
        ...     '"pre_tokenizer": {"type": "WhitespaceSplit"}}')
        >>> tok.with_padding(pad_id=1).encode_batch(["a", "a a a"])
        [[0, 1, 1], [0, 0, 0]]
        >>> tok.with_padding(pad_id=1).with_padding(None).encode_batch(["a", "a a a"])
        [[0], [0, 0, 0]]
        """
        if not enabled or length is None:
            return self._copy(self._core.with_padding(None), self._truncation, None)
        if isinstance(length, str):
            if length != "longest":
                raise ValueError(f"padding length {length!r}: pass a number of tokens, 'longest' (the longest text "
                                 "of each batch) or None (no padding)")
            strategy: Any = "BatchLongest"
        else:
            strategy = {"Fixed": length}
        params = {"strategy": strategy, "direction": direction.capitalize(), "pad_to_multiple_of": pad_to_multiple_of,
                  "pad_id": pad_id, "pad_type_id": pad_type_id, "pad_token": pad_token}
        return self._copy(self._core.with_padding(json.dumps(params)), self._truncation, params)

    def num_special_tokens_to_add(self, is_pair: bool = False) -> int:
        """How many tokens post-processing adds to one text (or a pair), as HF's method.

        >>> HFTokenizer.from_str('{"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}}').num_special_tokens_to_add()
        0
        """
        return self._core.num_special_tokens_to_add(is_pair)

    @property
    def truncation(self) -> dict | None:
        """The truncation settings (as in the file), or None."""
        return None if self._truncation is None else dict(self._truncation)

    @property
    def padding(self) -> dict | None:
        """The padding settings (as in the file), or None."""
        return None if self._padding is None else dict(self._padding)

    # ------------------------------------------------------------------ encoding
    def encode(self, text: str, pair: str | None = None, *, add_special_tokens: bool = True,
               allowed_special: Any = "all", disallowed_special: Any = ()) -> list[int]:
        """Token ids of `text` (and `pair`), HF's ``encode(...).ids``.

        Added tokens written in the text become their ids, as in HF. `allowed_special` and
        `disallowed_special` mean what they mean for every tokenmill family: special tokens
        not allowed are encoded as ordinary text (HF's ``encode_special_tokens``), and
        disallowed ones found in the text raise `DisallowedSpecialTokenError`.

        >>> tok = HFTokenizer.from_str('{"model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hi": 1}, '
        ...     '"unk_token": "[UNK]"}, "pre_tokenizer": {"type": "Whitespace"}}')
        >>> tok.encode("hi there")
        [1, 0]
        """
        skip = self._skip(text, allowed_special, disallowed_special)
        text = _text(text)
        if pair is not None:
            return self._core.encode_full(text, _text(pair, "pair"), add_special_tokens, skip)[0]
        return self._core.encode(text, add_special_tokens, skip)

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids with special-token text encoded as text and no post-processing.

        >>> tok = HFTokenizer.from_str('{"model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hi": 1, "[X]": 2}, '
        ...     '"unk_token": "[UNK]"}, "pre_tokenizer": {"type": "Whitespace"}, "added_tokens": [{"id": 2, '
        ...     '"content": "[X]", "special": true}]}')
        >>> tok.encode("hi[X]"), tok.encode_ordinary("hi[X]")
        ([1, 2], [1, 0, 0, 0])
        """
        return self._core.encode(_text(text), False, self._all_special_ids)

    def encode_full(self, text: str, pair: str | None = None, *, add_special_tokens: bool = True,
                    allowed_special: Any = "all", disallowed_special: Any = ()) -> Encoded:
        """Everything HF's ``encode`` returns, as an `Encoded`.

        >>> tok = HFTokenizer.from_str('{"model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hi": 1}, '
        ...     '"unk_token": "[UNK]"}, "pre_tokenizer": {"type": "Whitespace"}}')
        >>> tok.encode_full("hi  yo").offsets
        [(0, 2), (4, 6)]
        """
        skip = self._skip(text, allowed_special, disallowed_special)
        return Encoded(self._core.encode_full(_text(text), None if pair is None else _text(pair, "pair"), add_special_tokens, skip))

    def encode_with_offsets(self, text: str, *, add_special_tokens: bool = True, allowed_special: Any = "all",
                            disallowed_special: Any = ()) -> tuple[list[int], list[int]]:
        """Ids and the character offset in `text` where each token starts (HF's offsets)."""
        e = self.encode_full(text, add_special_tokens=add_special_tokens, allowed_special=allowed_special,
                             disallowed_special=disallowed_special)
        return e.ids, [s for s, _ in e.offsets]

    def encode_batch(self, texts: Iterable[str], *, num_threads: int | None = None, add_special_tokens: bool = True,
                     pairs: Sequence[str] | None = None, **special: Any) -> list[list[int]]:
        """``[encode(t) for t in texts]`` (padded across the batch when padding is on).

        >>> tok = HFTokenizer.from_str('{"model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hi": 1}, '
        ...     '"unk_token": "[UNK]"}, "pre_tokenizer": {"type": "Whitespace"}}')
        >>> tok.encode_batch(["hi", "hi yo"])
        [[1], [1, 0]]
        """
        n = threads(num_threads)
        if not isinstance(texts, list):
            texts = _text_list(texts)
        skip: list[int] = []
        for t in texts if special else ():  # the same ids for every text; each text is checked
            skip = self._skip(t, special.get("allowed_special", "all"), special.get("disallowed_special", ()))
        if pairs is not None:
            return [e.ids for e in self.encode_batch_full(texts, pairs, add_special_tokens=add_special_tokens, num_threads=n)]
        try:  # the common case in one call; texts with lone surrogates are repaired only when met
            return self._core.encode_batch(texts, add_special_tokens, n, skip)
        except TypeError:  # an item that is not a str: named by the checked path
            texts = _text_list(texts)
            return self._core.encode_batch(texts, add_special_tokens, n, skip)
        except UnicodeEncodeError:
            return self._core.encode_batch([_text(t) for t in texts], add_special_tokens, n, skip)

    def encode_batch_full(self, texts: Iterable[str], pairs: Sequence[str] | None = None, *, add_special_tokens: bool = True,
                          num_threads: int | None = None) -> list[Encoded]:
        """HF's ``encode_batch``: an `Encoded` per text (and pair), padded across the batch."""
        n = threads(num_threads)
        texts = [_text(t) for t in _text_list(texts)]
        ps = None if pairs is None else [_text(p, "pair") for p in _text_list(pairs, "pairs")]
        return [Encoded(e) for e in self._core.encode_batch_full(texts, ps, add_special_tokens, n)]

    def encode_batch_to_numpy(self, texts: Iterable[str], *, num_threads: int | None = None, add_special_tokens: bool = True,
                              pad_id: int | None = None) -> tuple[Any, Any]:
        """``(ids, attention_mask)``: two ``(len(texts), length)`` numpy arrays, each row padded
        (to the file's padding settings, or to the longest row with `pad_id`, default the
        padding's id or 0).

        >>> tok = HFTokenizer.from_str('{"model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hi": 1}, '
        ...     '"unk_token": "[UNK]"}, "pre_tokenizer": {"type": "Whitespace"}}')
        >>> ids, mask = tok.encode_batch_to_numpy(["hi", "hi yo"])
        >>> ids.tolist(), mask.tolist()
        ([[1, 0], [1, 0]], [[1, 0], [1, 1]])
        """
        n = threads(num_threads)
        texts = [_text(t) for t in _text_list(texts)]
        padding = None if self._padding is not None else json.dumps(
            {"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": None,
             "pad_id": 0 if pad_id is None else pad_id, "pad_type_id": 0, "pad_token": "[PAD]"})
        ids, mask, width = self._core.encode_batch_matrix(texts, add_special_tokens, n, [], padding)
        return ids.reshape(len(texts), width), mask.reshape(len(texts), width)

    def count(self, text: str, **kwargs: Any) -> int:
        return len(self.encode(text, **kwargs))

    def _skip(self, text: Any, allowed_special: Any, disallowed_special: Any) -> list[int]:
        """The special-token ids to encode as text for this policy, after checking the
        disallowed ones against `text` (`tokenmill.specials` defines the policy)."""
        if not self._specials or (isinstance(allowed_special, str) and allowed_special == "all" and not disallowed_special):
            return []
        allowed, disallowed = resolve(frozenset(self._specials), allowed_special, disallowed_special)
        if disallowed and isinstance(text, str):
            hits = [(text.find(s), -len(s), s) for s in disallowed if s in text]
            if hits:
                at, _, name = min(hits)
                raise DisallowedSpecialTokenError(name, at)
        return sorted(i for s, i in self._specials.items() if s not in allowed)

    # ------------------------------------------------------------------ decoding
    def decode(self, tokens: Sequence[int], errors: str = "replace", *, skip_special_tokens: bool = True) -> str:
        """HF's ``decode``: the decoder of the file over the tokens' strings.

        >>> tok = HFTokenizer.from_str('{"model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hi": 1}, '
        ...     '"unk_token": "[UNK]"}, "pre_tokenizer": {"type": "Whitespace"}}')
        >>> tok.decode([1, 1])
        'hi hi'
        """
        try:  # ids are checked by the core's conversion; the Python check names the bad one
            return self._core.decode(tokens if isinstance(tokens, list) else list(tokens), skip_special_tokens)
        except (TypeError, OverflowError):
            return self._core.decode(_ids(tokens), skip_special_tokens)

    def decode_batch(self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int | None = None,
                     skip_special_tokens: bool = True) -> list[str]:
        try:
            return self._core.decode_batch([ids if isinstance(ids, list) else list(ids) for ids in batch], skip_special_tokens)
        except (TypeError, OverflowError):
            return self._core.decode_batch([_ids(ids) for ids in batch], skip_special_tokens)

    # ------------------------------------------------------------------ vocabulary
    @property
    def vocab_size(self) -> int:
        """One more than the largest id (added tokens included)."""
        v = self._core.vocab(True)
        return v[-1][1] + 1 if v else 0

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        """HF's count of tokens (model vocabulary, plus added tokens not in it)."""
        return self._core.vocab_size(with_added_tokens)

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        """HF's ``{token: id}``."""
        return dict(self._core.vocab(with_added_tokens))

    def token_to_id(self, token: str | bytes) -> int:
        """The id of a token given as its string (as in the vocabulary) or its exact bytes."""
        i = self._core.bytes_to_id(bytes(token)) if isinstance(token, (bytes, bytearray)) else self._core.token_to_id(token)
        if i is None:
            raise UnknownTokenError(f"{token!r} is not a token of this tokenizer")
        return i

    def id_to_token(self, id: int) -> str:
        t = self._core.id_to_token(_id(id))
        if t is None:
            raise TokenIdError(id, 0, self.vocab_size)
        return t

    def token_bytes(self, id: int) -> bytes:
        """The exact bytes of a token: byte-level tokenizers map its characters back through
        GPT-2's byte table; others give the token string's UTF-8."""
        b = self._core.token_bytes(_id(id))
        if b is None:
            raise TokenIdError(id, 0, self.vocab_size)
        return b

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._specials)

    @property
    def added_tokens(self) -> list[dict[str, Any]]:
        """The added tokens with their options, in id order."""
        keys = ("id", "content", "special", "single_word", "lstrip", "rstrip", "normalized")
        return [dict(zip(keys, t)) for t in self._core.added_tokens()]

    @property
    def pretokenizer(self) -> str:
        """``"r50k"``, ``"o200k"``...: a byte-level file running on tokenmill's own engine and
        hand-written matcher (same ids); ``"dfa"`` / ``"regex"``: that engine with a general
        regex engine (the lazy DFA, or the backtracking one for look-arounds);
        ``"hf"``: the file's general pipeline."""
        return self._core.pretokenizer

    @property
    def is_byte_level(self) -> bool:
        """Whether the file is byte-level (GPT-2's byte alphabet): its tokens' bytes joined are
        the text's UTF-8, so a token may hold part of a character."""
        return bool(self._core.is_byte_level)

    @property
    def training(self) -> dict:
        return {}

    # ------------------------------------------------------------------ files
    def to_json_str(self) -> str:
        """The ``tokenizer.json`` this tokenizer was read from (with the current truncation and
        padding settings)."""
        if not self._changed:
            return self._json.decode("utf-8")
        d = json.loads(self._json)
        d["truncation"], d["padding"] = self._truncation, self._padding
        return json.dumps(d, ensure_ascii=False, indent=2)

    def to_dict(self) -> dict[str, Any]:
        return {"format": "tokenmill", "version": 1, "model": {"type": self.model_type, "tokenizer_json": json.loads(self.to_json_str())}}

    @classmethod
    def _from_native(cls, d: Mapping[str, Any]) -> HFTokenizer:
        m = d["model"]
        tj = m.get("tokenizer_json")
        if not isinstance(tj, dict):
            raise VocabFormatError("model.tokenizer_json: expected the tokenizer.json object")
        return cls(json.dumps(tj, ensure_ascii=False).encode("utf-8"))

    def __reduce__(self):
        return (HFTokenizer.from_bytes, (self.to_json_str().encode("utf-8"),))


def _text_list(texts: Any, name: str = "texts") -> list[str]:
    """`texts` as a list of str (one type check per item, in C for a list of str)."""
    if isinstance(texts, list) and all(type(t) is str for t in texts):
        return texts
    return list(iter_texts(texts, name))


def _camel(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_")) if "_" in name else name


def _id(i: Any, position: int = 0) -> int:
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"token ids must be ints, not {type(i).__name__} (at position {position})")
    if i < 0 or i >= 2**32:
        raise TokenIdError(i, position, 2**32)
    return i


def _ids(ids: Iterable[int]) -> list[int]:
    return [_id(i, k) for k, i in enumerate(ids)]
