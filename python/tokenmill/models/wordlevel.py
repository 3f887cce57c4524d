"""Word-level tokenizer: one token per word or punctuation mark (LLMs-from-scratch, ch. 2).

Splitting is ``SimpleTokenizerV2``'s: ``re.split`` on the pattern
``([,.:;?_!"()']|--|\\s)`` (configurable), items stripped, empty items dropped. Special tokens
written in the text (``<|endoftext|>``) are cut out first and become their ids.

Vocabulary: the sorted set of all words seen, optionally only those occurring `min_frequency`
times and only the `vocab_size` most frequent (ties alphabetical); then the special tokens,
by default ``<|endoftext|>`` and ``<|unk|>``, after the words. Unknown words encode as
``<|unk|>`` (or raise `UnknownTokenError` without it); `encode_documents` puts
``<|endoftext|>`` between documents.

Decoding joins tokens with spaces and removes the space before ``, . ? ! " ( ) '`` (the book's
rule). It does not restore the original spacing: ``decode(encode(t))`` equals `t` only up to
whitespace, though ``encode(decode(encode(t))) == encode(t)`` for the default pattern.

This module does not lowercase, normalize Unicode, or read files.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import TrainingError
from .._args import plural
from .._schema import check_keys, field, show
from ._vocab import EOT, UNK, VocabTokenizer, _compile, _count_items, _select_vocab, _training_record, train_args

__all__ = ["WordLevel", "DEFAULT_PATTERN"]

DEFAULT_PATTERN = r'([,.:;?_!"()\']|--|\s)'

# The book's detokenizer: no space before these punctuation marks.
_NO_SPACE_BEFORE = re.compile(r'\s+([,.?!"()\'])')


class WordLevel(VocabTokenizer):
    """Word-level tokenizer (see the module docstring for splitting and decoding).

    Args:
        vocab: ``{word: id}`` of the ordinary tokens; it may also list the special tokens.
        special_tokens: ``{text: id}``.
        pattern: The split regex for `re.split` (groups are kept as tokens).
        unk_token: A special token to use for unknown words, or None to raise.
        training: Metadata to keep (JSON-able).

    >>> tok = WordLevel({"Hi": 0, "!": 1, "<|unk|>": 2}, {"<|unk|>": 2}, unk_token="<|unk|>")
    >>> tok.encode("Hi there!")
    [0, 2, 1]
    >>> tok.decode([0, 2, 1])
    'Hi <|unk|>!'
    """

    __slots__ = ("_pattern", "_pattern_re")
    _pattern: str
    _pattern_re: re.Pattern

    model_type = "word"

    def __init__(
        self,
        vocab: Mapping[str, int],
        special_tokens: Mapping[str, int] | None = None,
        *,
        pattern: str = DEFAULT_PATTERN,
        unk_token: str | None = None,
        training: Mapping[str, Any] | None = None,
    ):
        self._init(vocab, special_tokens, pattern, unk_token, training, "")

    def _init(self, vocab, special_tokens, pattern, unk_token, training, mp: str) -> None:
        self._init_base(vocab, special_tokens, unk_token, training, mp)
        self._set(_pattern=pattern, _pattern_re=_compile(pattern, f"{mp}pattern"))

    @classmethod
    def train(
        cls,
        corpus: Iterable[str],
        vocab_size: int | None = None,
        *,
        special_tokens: Iterable[str] = (EOT, UNK),
        min_frequency: int = 1,
        pattern: str = DEFAULT_PATTERN,
    ) -> WordLevel:
        """Builds the vocabulary from the words of `corpus`.

        Args:
            corpus: An iterable of str documents (read once; a single str is rejected).
            vocab_size: At most this many tokens, special tokens included (the most frequent
                words are kept, ties alphabetical); None keeps every word.
            special_tokens: Special tokens, ids after the words in this order; cut out of the
                corpus before counting. If ``"<|unk|>"`` is among them, it is the unknown token.
            min_frequency: Keep only words seen at least this often.
            pattern: The split regex.

        Returns:
            The tokenizer. Raises `TrainingError` for an empty corpus, a `vocab_size` with no
            room for a word, or a vocabulary that drops words with no unknown token to map them to.

        >>> tok = WordLevel.train(["the cat, the hat."])
        >>> tok.vocab
        {',': 0, '.': 1, 'cat': 2, 'hat': 3, 'the': 4, '<|endoftext|>': 5, '<|unk|>': 6}
        >>> WordLevel.train(["the cat, the hat."], 3, special_tokens=["<|unk|>"]).vocab
        {',': 0, 'the': 1, '<|unk|>': 2}
        """
        specials = train_args(special_tokens, vocab_size, min_frequency)
        rx = _compile(pattern)
        counts, n_docs = _count_items(corpus, specials, lambda seg: _split(rx, seg))
        if not counts:
            raise TrainingError(f"the corpus has no words ({plural(n_docs, 'document')}, all empty or whitespace); pass non-empty documents")
        vocab, special_ids = _select_vocab(counts, specials, vocab_size, min_frequency, "word")
        training = _training_record(vocab_size, min_frequency, n_docs, words=sum(counts.values()), unique_words=len(counts))
        return cls(vocab, special_ids, pattern=pattern, unk_token=UNK if UNK in specials else None, training=training)

    @property
    def pattern(self) -> str:
        """The split regex.

        >>> WordLevel.train(["a"]).pattern
        '([,.:;?_!"()\\\\\\']|--|\\\\s)'
        """
        return self._pattern

    def split(self, text: str) -> list[str]:
        """The words of `text` by the split pattern (special tokens are not cut out here).

        Args:
            text: The text.

        Returns:
            The stripped, non-empty items of ``re.split(pattern, text)``.

        >>> WordLevel.train(["a"]).split("Hello, world. Is this-- a test?")
        ['Hello', ',', 'world', '.', 'Is', 'this', '--', 'a', 'test', '?']
        """
        return _split(self._pattern_re, text)

    def _encode_segment(self, text: str, offsets: list[int] | None = None, base: int = 0) -> list[int]:
        if offsets is None:
            return self._token_ids(_split(self._pattern_re, text), _unknown_word)
        words: list[str] = []
        pos = 0
        # re.split loses positions: find each item from where the previous one ended.
        for item in self._pattern_re.split(text):
            if not item:
                continue
            at = text.find(item, pos)
            pos = at + len(item)
            word = item.strip()
            if word:
                words.append(word)
                offsets.append(base + at + item.index(word))
        return self._token_ids(words, _unknown_word)

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Tokens joined by spaces, without a space before ``, . ? ! " ( ) '``.

        Args:
            ids: Token ids.

        Returns:
            The text (whitespace normalized; see the module docstring).

        >>> tok = WordLevel.train(["Hello, world!"])
        >>> tok.decode(tok.encode("Hello,   world! Bye"))
        'Hello, world! <|unk|>'
        """
        return _NO_SPACE_BEFORE.sub(r"\1", " ".join(self._token_strings(ids)))

    def _model_fields(self) -> dict[str, Any]:
        return {"vocab": self._ordinary_vocab(), "pattern": self._pattern, "unk_token": self.unk_token}

    @classmethod
    def _from_model(cls, model: Mapping, special_tokens: Mapping, training: Mapping) -> WordLevel:
        w = "model."
        check_keys(model, ("type", "vocab", "pattern", "unk_token"), w)
        vocab = field(model, "vocab", dict, w)
        pattern = field(model, "pattern", str, w)
        unk = field(model, "unk_token", str, w, nullable=True)
        obj = cls.__new__(cls)
        obj._init(vocab, special_tokens, pattern, unk, training, w)
        return obj


def _split(rx: re.Pattern, text: str) -> list[str]:
    # re.split keeps the captured separators; whitespace items strip to "" and are dropped.
    return [s for s in (item.strip() for item in rx.split(text) if item) if s]


def _unknown_word(k: int, w: str) -> str:
    return f"word {show(w)} is not in the vocabulary; train with {UNK!r} among special_tokens to map unknown words to it"
