"""Character-level tokenizer: one token per Unicode code point.

Vocabulary: the sorted set of characters (code points) of the corpus, optionally only those
occurring `min_frequency` times and only the `vocab_size` most frequent (ties by code point);
then the special tokens, by default just ``<|unk|>``, after the characters. Special tokens
written in the text are cut out first and become their ids; an unknown character encodes as
``<|unk|>`` (or raises `UnknownTokenError` without it). Decoding concatenates the tokens, so
``decode(encode(t)) == t`` whenever every character of `t` is known.

This module does not combine grapheme clusters (``"e\\u0301"`` is two tokens), normalize
Unicode or read files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import TrainingError, VocabFormatError
from .._args import plural
from .._schema import check_keys, field
from ._vocab import UNK, VocabTokenizer, _count_items, _select_vocab, _training_record, train_args

__all__ = ["CharLevel"]


class CharLevel(VocabTokenizer):
    """Character-level tokenizer (see the module docstring).

    Args:
        vocab: ``{character: id}`` of the ordinary tokens (each one code point); it may also
            list the special tokens.
        special_tokens: ``{text: id}``.
        unk_token: A special token to use for unknown characters, or None to raise.
        training: Metadata to keep (JSON-able).

    >>> tok = CharLevel({"a": 0, "b": 1})
    >>> tok.encode("abba"), tok.decode([1, 0])
    ([0, 1, 1, 0], 'ba')
    """

    __slots__ = ()

    model_type = "char"

    def __init__(
        self,
        vocab: Mapping[str, int],
        special_tokens: Mapping[str, int] | None = None,
        *,
        unk_token: str | None = None,
        training: Mapping[str, Any] | None = None,
    ):
        self._init(vocab, special_tokens, unk_token, training, "")

    def _init(self, vocab, special_tokens, unk_token, training, mp: str) -> None:
        ordinary = self._init_base(vocab, special_tokens, unk_token, training, mp)
        for t in ordinary:
            if len(t) != 1:
                raise VocabFormatError(f"{mp}vocab[{t!r}]: a char-level token is one character, this one has {len(t)}")

    @classmethod
    def train(
        cls, corpus: Iterable[str], vocab_size: int | None = None, *, special_tokens: Iterable[str] = (UNK,), min_frequency: int = 1
    ) -> CharLevel:
        """Builds the vocabulary from the characters of `corpus`.

        Args:
            corpus: An iterable of str documents (read once; a single str is rejected).
            vocab_size: At most this many tokens, special tokens included (the most frequent
                characters are kept); None keeps every character.
            special_tokens: Special tokens, ids after the characters in this order; cut out of
                the corpus before counting. If ``"<|unk|>"`` is among them, it is the unknown token.
            min_frequency: Keep only characters seen at least this often.

        Returns:
            The tokenizer. Raises `TrainingError` for an empty corpus, a `vocab_size` with no
            room for a character, or characters dropped with no unknown token to map them to.

        >>> CharLevel.train(["hello"]).vocab
        {'e': 0, 'h': 1, 'l': 2, 'o': 3, '<|unk|>': 4}
        >>> CharLevel.train(["hello"], 3).vocab
        {'e': 0, 'l': 1, '<|unk|>': 2}
        """
        specials = train_args(special_tokens, vocab_size, min_frequency)
        counts, n_docs = _count_items(corpus, specials, iter)  # the items of a text are its characters
        if not counts:
            raise TrainingError(f"the corpus has no characters ({plural(n_docs, 'document')}, all empty); pass non-empty documents")
        vocab, special_ids = _select_vocab(counts, specials, vocab_size, min_frequency, "character")
        training = _training_record(vocab_size, min_frequency, n_docs, characters=sum(counts.values()))
        return cls(vocab, special_ids, unk_token=UNK if UNK in specials else None, training=training)

    def _encode_segment(self, text: str, offsets: list[int] | None = None, base: int = 0) -> list[int]:
        if offsets is not None:
            offsets.extend(range(base, base + len(text)))
        return self._token_ids(text, _unknown_character)

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """The concatenation of the tokens (special tokens as their text).

        Args:
            ids: Token ids.

        Returns:
            The text; exact for text whose characters are all known.

        >>> tok = CharLevel.train(["hello"])
        >>> tok.decode(tok.encode("hello, hole"))
        'hello<|unk|><|unk|>hole'
        """
        return "".join(self._token_strings(ids))

    def _model_fields(self) -> dict[str, Any]:
        return {"vocab": self._ordinary_vocab(), "unk_token": self.unk_token}

    @classmethod
    def _from_model(cls, model: Mapping, special_tokens: Mapping, training: Mapping) -> CharLevel:
        w = "model."
        check_keys(model, ("type", "vocab", "unk_token"), w)
        vocab = field(model, "vocab", dict, w)
        unk = field(model, "unk_token", str, w, nullable=True)
        obj = cls.__new__(cls)
        obj._init(vocab, special_tokens, unk, training, w)
        return obj


def _unknown_character(k: int, ch: str) -> str:
    return (
        f"character {ch!r} (U+{ord(ch):04X}, at index {k} of the text segment) is not in the vocabulary; "
        f"train with {UNK!r} among special_tokens to map unknown characters to it"
    )
