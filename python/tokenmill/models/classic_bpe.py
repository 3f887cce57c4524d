"""Classic BPE on characters with an end-of-word marker (Sennrich et al. 2016, subword-nmt).

Pre-split: the text is cut into words by a regex, by default ``\\w+|[^\\w\\s]+`` (runs of word
characters, and runs of other non-space characters), so whitespace only separates words and
is never a token. A word is a sequence of characters with the end-of-word marker attached to
the last one: ``"low"`` -> ``l o w</w>`` (as subword-nmt and HF's ``end_of_word_suffix`` do).

Training: count the words, give the special tokens the first ids and the initial symbols the
next ones in sorted order of their strings, then repeatedly merge the most frequent adjacent
pair (weighted by word count, overlapping pairs counted separately), ties broken by the
smallest ``(left id, right id)``; stop at `vocab_size` or when no pair occurs `min_frequency`
times. The merge loop is the Rust core's (`_core.train_merges`, the one byte-level training
uses; tests/test_train.py checks it against `tokenmill._reference.train_bpe`). A token's
"bytes" are the UTF-8 of its string (``w</w>`` is ``b"w</w>"``): when a pair spells an
existing token, it merges into that token, so there can be more merges than new tokens.

Encoding: per word, apply merges lowest rank first until none applies (subword-nmt's
``apply_bpe``); results are cached per tokenizer (at most 100,000 words). A character never
seen in training becomes ``<|unk|>`` if the tokenizer has an unknown token, else it is an
`UnknownTokenError`.

Decoding gives the words back, not the spacing: a token ending in the marker ends a word and
words are joined by single spaces, so ``decode(encode("Hi,  you!"))`` is ``"Hi , you !"``.
A special token is a word of its own. A word containing the marker text itself (possible
only with a custom pattern) does not decode exactly.

This module does not read files, lowercase or normalize text, or do byte-level BPE (that is
`tokenmill.Encoding`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from .. import _core
from ..errors import TrainingError, VocabFormatError
from .._args import plural
from .._schema import check_keys, field, show
from ._vocab import UNK, VocabTokenizer, _compile, _count_items, _training_record, train_args

__all__ = ["ClassicBPE", "DEFAULT_PATTERN", "END_OF_WORD"]

DEFAULT_PATTERN = r"\w+|[^\w\s]+"
END_OF_WORD = "</w>"

# Words whose ids are cached per tokenizer; the cache is emptied when full (cheap and bounded).
_CACHE_SIZE = 100_000


def _learn_merges(
    words: dict[tuple[int, ...], int], token_bytes: dict[int, bytes], n_new: int, min_frequency: int, next_id: int
) -> list[tuple[int, int, int]]:
    """The merge loop (Rust core): ``[(left, right, merged id), ...]`` in merge order.

    >>> tb = {1: b"a", 2: b"b</w>"}
    >>> _learn_merges({(1, 2): 3}, tb, 1, 1, 3)
    [(1, 2, 3)]
    """
    merges, _, _ = _core.train_merges([(list(w), c) for w, c in words.items()], list(token_bytes.items()), n_new, min_frequency, next_id)
    return [(a, b, new) for a, b, new, _ in merges]


def _symbols(word: str, end_of_word: str) -> list[str]:
    syms = list(word)
    syms[-1] += end_of_word
    return syms


class ClassicBPE(VocabTokenizer):
    """Character-level BPE with an end-of-word marker (see the module docstring for the rules).

    Args:
        vocab: ``{token: id}`` of the ordinary tokens (symbols such as ``"w</w>"`` and merge
            results); it may also list the special tokens with their ids.
        merges: ``[(left, right), ...]`` in rank order; ``left + right`` must be a token.
        special_tokens: ``{text: id}``.
        pattern: The pre-split regex (Python `re`); each match is a word.
        end_of_word: The marker attached to the last symbol of a word.
        unk_token: A special token to use for unknown characters, or None to raise.
        training: Metadata to keep (JSON-able).

    >>> tok = ClassicBPE({"l": 0, "o": 1, "w</w>": 2, "lo": 3}, [("l", "o")])
    >>> tok.encode("low  low")
    [3, 2, 3, 2]
    >>> tok.decode([3, 2, 0, 1])
    'low lo'
    """

    __slots__ = ("_merges", "_ranks", "_pattern", "_pattern_re", "_eow", "_cache")
    _merges: list[tuple[str, str]]
    _ranks: dict[tuple[int, int], tuple[int, int]]
    _pattern: str
    _pattern_re: re.Pattern
    _eow: str
    _cache: dict[str, tuple[int, ...]]

    model_type = "classic_bpe"

    def __init__(
        self,
        vocab: Mapping[str, int],
        merges: Iterable[tuple[str, str]],
        special_tokens: Mapping[str, int] | None = None,
        *,
        pattern: str = DEFAULT_PATTERN,
        end_of_word: str = END_OF_WORD,
        unk_token: str | None = None,
        training: Mapping[str, Any] | None = None,
    ):
        self._init(vocab, merges, special_tokens, pattern, end_of_word, unk_token, training, "")

    def _init(self, vocab, merges, special_tokens, pattern, end_of_word, unk_token, training, mp: str) -> None:
        ordinary = self._init_base(vocab, special_tokens, unk_token, training, mp)
        if not isinstance(end_of_word, str) or not end_of_word:
            raise VocabFormatError(f"{mp}end_of_word: expected a non-empty string, got {show(end_of_word)}")
        rx = _compile(pattern, f"{mp}pattern")
        if isinstance(merges, (str, bytes)) or not isinstance(merges, Iterable):
            raise VocabFormatError(f"{mp}merges: expected a list of pairs of strings, got {type(merges).__name__}")
        pairs: list[tuple[str, str]] = []
        # (left id, right id) -> (rank, merged id). A pair can recur in the trainer's output
        # (after a merge into an existing token); the first, lowest rank is the one that applies.
        ranks: dict[tuple[int, int], tuple[int, int]] = {}
        for k, m in enumerate(merges):
            if not isinstance(m, (list, tuple)) or len(m) != 2 or not all(isinstance(x, str) for x in m):
                raise VocabFormatError(f"{mp}merges[{k}]: expected a pair of strings, got {show(m)}")
            a, b = m
            for side, s in (("left", a), ("right", b)):
                if s not in ordinary:
                    raise VocabFormatError(f"{mp}merges[{k}]: {side} token {s!r} is not in {mp}vocab")
            joined = a + b
            if joined not in ordinary:
                raise VocabFormatError(f"{mp}merges[{k}]: the merged token {joined!r} is not in {mp}vocab")
            pairs.append((a, b))
            ranks.setdefault((ordinary[a], ordinary[b]), (k, ordinary[joined]))
        self._set(_merges=pairs, _ranks=ranks, _pattern=pattern, _pattern_re=rx, _eow=end_of_word, _cache={})

    # ---------------------------------------------------------------------------- training

    @classmethod
    def train(
        cls,
        corpus: Iterable[str],
        vocab_size: int | None = None,
        *,
        special_tokens: Iterable[str] = (UNK,),
        min_frequency: int = 1,
        pattern: str = DEFAULT_PATTERN,
        end_of_word: str = END_OF_WORD,
    ) -> ClassicBPE:
        """Learns merges from the words of `corpus` (see the module docstring for the rules).

        Args:
            corpus: An iterable of str documents (read once; a single str is rejected).
            vocab_size: Total tokens wanted, special tokens and initial symbols included;
                reached exactly unless pairs run out first. None: merge while pairs reach
                `min_frequency`.
            special_tokens: Special tokens, ids ``0 ..`` in this order; they are cut out of the
                corpus before counting. If ``"<|unk|>"`` is among them, it is the unknown token.
            min_frequency: A pair merges only if it occurs at least this often.
            pattern: The pre-split regex.
            end_of_word: The end-of-word marker.

        Returns:
            The trained tokenizer. Raises `TrainingError` if the corpus has no words or
            `vocab_size` is below the special tokens plus initial symbols.

        >>> tok = ClassicBPE.train(["low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3], 14)
        >>> tok.merges
        [('e', 's'), ('es', 't</w>')]
        >>> tok.encode("newest")
        [5, 2, 10, 13]
        """
        specials = train_args(special_tokens, vocab_size, min_frequency)
        if not isinstance(end_of_word, str) or not end_of_word:
            raise TypeError(f"end_of_word must be a non-empty str, got {show(end_of_word)}")
        rx = _compile(pattern)
        counts, n_docs = _count_items(corpus, specials, lambda seg: (m.group() for m in rx.finditer(seg) if m.group()))
        if not counts:
            raise TrainingError(
                f"the corpus has no words ({plural(n_docs, 'document')}; pattern {pattern!r} matched nothing outside special tokens); "
                "pass non-empty documents"
            )
        # Sorted, never set order: ids (and so tie-breaks) must not depend on hashing.
        symbols = sorted({s for w in counts for s in _symbols(w, end_of_word)})
        base = len(specials) + len(symbols)
        if vocab_size is not None and vocab_size < base:
            raise TrainingError(
                f"vocab_size={vocab_size} is too small: {plural(len(specials), 'special token')} and "
                f"{plural(len(symbols), 'initial symbol')} of the corpus (characters, with and without {end_of_word!r}) need {base}; "
                f"pass vocab_size >= {base}"
            )
        sym_id = {s: len(specials) + i for i, s in enumerate(symbols)}
        words = {tuple(sym_id[s] for s in _symbols(w, end_of_word)): c for w, c in counts.items()}
        # surrogatepass: a corpus read with surrogateescape must not crash the byte view.
        token_bytes = {i: s.encode("utf-8", "surrogatepass") for s, i in sym_id.items()}
        n_new = sys.maxsize if vocab_size is None else vocab_size - base
        merges = _learn_merges(words, token_bytes, n_new, min_frequency, base)
        strings = {i: s for s, i in sym_id.items()}
        for a, b, new in merges:
            strings.setdefault(new, strings[a] + strings[b])
        vocab = {s: i for i, s in enumerate(specials)}
        vocab.update((strings[i], i) for i in sorted(strings))
        training = _training_record(vocab_size, min_frequency, n_docs, words=sum(counts.values()), unique_words=len(counts))
        return cls(
            vocab,
            [(strings[a], strings[b]) for a, b, _ in merges],
            {s: i for i, s in enumerate(specials)},
            pattern=pattern,
            end_of_word=end_of_word,
            unk_token=UNK if UNK in specials else None,
            training=training,
        )

    # ---------------------------------------------------------------------------- encoding

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The merges in rank order, as pairs of token strings (a copy).

        >>> ClassicBPE.train(["aaa"]).merges
        [('a', 'a'), ('aa', 'a</w>')]
        """
        return list(self._merges)

    @property
    def pattern(self) -> str:
        """The pre-split regex.

        >>> ClassicBPE.train(["a"]).pattern
        '\\\\w+|[^\\\\w\\\\s]+'
        """
        return self._pattern

    @property
    def end_of_word(self) -> str:
        """The end-of-word marker.

        >>> ClassicBPE.train(["a"]).end_of_word
        '</w>'
        """
        return self._eow

    def split(self, text: str) -> list[str]:
        """The words of `text` by the pre-split pattern (special tokens are not cut out here).

        Args:
            text: The text.

        Returns:
            The words, in order.

        >>> ClassicBPE.train(["a"]).split("Hi,  you!")
        ['Hi', ',', 'you', '!']
        """
        return [m.group() for m in self._pattern_re.finditer(text) if m.group()]

    def _encode_segment(self, text: str, offsets: list[int] | None = None, base: int = 0) -> list[int]:
        out: list[int] = []
        cache = self._cache
        for m in self._pattern_re.finditer(text):
            word = m.group()
            if not word:
                continue
            ids = cache.get(word)
            if ids is None:
                ids = self._bpe(word)
                if len(cache) >= _CACHE_SIZE:
                    cache.clear()
                cache[word] = ids
            out.extend(ids)
            if offsets is not None:
                self._word_offsets(ids, base + m.start(), offsets)
        return out

    def _word_offsets(self, ids: tuple[int, ...], start: int, offsets: list[int]) -> None:
        """Appends where each token of a word starts: a token spans its text's characters
        (without the end-of-word marker); the unknown token stands for one character."""
        tokens, unk, eow = self._tokens, self._unk_id, self._eow
        pos = start
        for k, i in enumerate(ids):
            offsets.append(pos)
            t = tokens[i]
            pos += 1 if i == unk else len(t) - (len(eow) if k == len(ids) - 1 and t.endswith(eow) else 0)

    def _bpe(self, word: str) -> tuple[int, ...]:
        syms = _symbols(word, self._eow)

        def unknown(k: int, s: str) -> str:
            where = " at the end of" if k == len(syms) - 1 else " in"
            return (
                f"character {word[k]!r}{where} word {show(word)} (symbol {s!r}) is not in the vocabulary; "
                f"train with {UNK!r} among special_tokens to map unknown characters to it"
            )

        ids = self._token_ids(syms, unknown)
        ranks = self._ranks
        while len(ids) > 1:
            best = None
            for pair in zip(ids, ids[1:]):
                r = ranks.get(pair)
                if r is not None and (best is None or r[0] < best[0][0]):
                    best = (r, pair)
            if best is None:
                break
            (_, new), (a, b) = best
            merged: list[int] = []
            k = 0
            while k < len(ids):
                if k + 1 < len(ids) and ids[k] == a and ids[k + 1] == b:
                    merged.append(new)
                    k += 2
                else:
                    merged.append(ids[k])
                    k += 1
            ids = merged
        return tuple(ids)

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """The words of `ids`, joined by single spaces (the original spacing is not kept).

        Args:
            ids: Token ids.

        Returns:
            The text. A special token is a word of its own; a last word without the
            end-of-word marker (a cut sequence) is still emitted.

        >>> tok = ClassicBPE.train(["low lower, low"])
        >>> tok.decode(tok.encode("lower,low  low<|unk|>"))
        'lower , low low <|unk|>'
        """
        eow, n = self._eow, len(self._eow)
        specials = self._special_tokens
        words: list[str] = []
        current: list[str] = []
        for t in self._token_strings(ids):
            if t in specials:
                if current:
                    words.append("".join(current))
                    current = []
                words.append(t)
            elif t.endswith(eow):
                current.append(t[:-n])
                words.append("".join(current))
                current = []
            else:
                current.append(t)
        if current:
            words.append("".join(current))
        return " ".join(words)

    # ------------------------------------------------------------------------------- files

    def _model_fields(self) -> dict[str, Any]:
        return {
            "vocab": self._ordinary_vocab(),
            "merges": [list(p) for p in self._merges],
            "pattern": self._pattern,
            "end_of_word": self._eow,
            "unk_token": self.unk_token,
        }

    @classmethod
    def _from_model(cls, model: Mapping, special_tokens: Mapping, training: Mapping) -> ClassicBPE:
        w = "model."
        check_keys(model, ("type", "vocab", "merges", "pattern", "end_of_word", "unk_token"), w)
        vocab = field(model, "vocab", dict, w)
        merges = field(model, "merges", list, w)
        pattern = field(model, "pattern", str, w)
        eow = field(model, "end_of_word", str, w)
        unk = field(model, "unk_token", str, w, nullable=True)
        obj = cls.__new__(cls)
        obj._init(vocab, merges, special_tokens, pattern, eow, unk, training, w)
        return obj
