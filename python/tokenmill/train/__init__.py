"""Training: one shape for every family.

Every trainer takes ``(corpus, vocab_size, *, special_tokens, min_frequency, ...)`` and
returns a `tokenmill.Tokenizer`. `TRAINERS` maps the family names the CLI offers (``bpe``,
``wordpiece``, ``unigram``, ``classic-bpe``, ``word``, ``char``) to a `Trainer`: the training function (reading paths or
texts through `tokenmill.data.corpus`), the options it accepts, the formats its result can be
exported to, and how to show its merges. Callers ask the table; they never branch on a family.

* ``bpe``: `train_bpe` (`tokenmill.train.bpe`), byte-level BPE in the Rust core.
* ``wordpiece``: `train_wordpiece` (`tokenmill.train.wordpiece`), BERT-style WordPiece with
  Hugging Face's trainer rule, in the Rust core.
* ``unigram``: `train_unigram` (`tokenmill.train.unigram`), SentencePiece-style Unigram in the
  Rust core; the result exports to a sentencepiece ``.model``.
* ``classic-bpe``, ``word``, ``char``: the ``train`` classmethods of `tokenmill.models`,
  which stay on their classes (``ClassicBPE.train(...)`` is public API, and a trainer here
  that builds the class while the class calls the trainer would be an import circle).

It does not write files (see ``Tokenizer.save`` / ``export``).
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from ..data.corpus import Corpus
from ..encoding import Encoding
from ..formats.gpt2 import canonical_split
from ..models import CharLevel, ClassicBPE, WordLevel
from ..tokenizer import Tokenizer
from .bpe import train_bpe
from .unigram import train_unigram
from .wordpiece import train_wordpiece

__all__ = ["train_bpe", "train_unigram", "train_wordpiece", "Trainer", "TRAINERS"]


def _no_merges(tok: Any, n: int) -> list[tuple[int, str, str, str]]:
    return []


class Trainer(NamedTuple):
    """One family's trainer, as the CLI and other front ends see it (a NamedTuple, not a
    dataclass: importing dataclasses doubled `import tokenmill`'s time).

    Attributes:
        name: The family's name (``tokenmill train --model NAME``).
        help: One line for ``--help``.
        train: ``train(corpus, vocab_size, **options) -> Tokenizer``; `corpus` is a path, a
            list of paths or an iterable of str.
        options: Option names `train` accepts besides `corpus`, `vocab_size`,
            `special_tokens` and `min_frequency`.
        export_formats: Formats of ``export`` besides ``"tokenmill"``.
        needs_vocab_size: False when None means "every item seen".
        merges: ``merges(tok, n)``: about `n` merges spread over the vocabulary, as
            ``(id or rank, left text, right text, result text)``; empty for families without merges.
    """

    name: str
    help: str
    train: Callable[..., Tokenizer]
    options: frozenset = frozenset()
    export_formats: tuple[str, ...] = ()
    needs_vocab_size: bool = True
    merges: Callable[[Any, int], list[tuple[int, str, str, str]]] = _no_merges


def _spread(items: list, n: int) -> list:
    """About `n` items spread evenly over `items`, first and last included."""
    if not items:
        return []
    return [items[i] for i in sorted({(len(items) - 1) * k // max(n - 1, 1) for k in range(min(n, len(items)))})]


def _text(b: bytes) -> str:
    return repr(b.decode("utf-8", "backslashreplace"))


def _byte_bpe_merges(enc: Encoding, n: int) -> list[tuple[int, str, str, str]]:
    ranks = enc.mergeable_ranks()
    out = []
    for r, t in _spread(sorted((r, t) for t, r in ranks.items() if len(t) > 1), n):
        split = canonical_split(t, r, ranks)
        out.append((r, _text(split[0]) if split else "", _text(split[1]) if split else "", _text(t)))
    return out


def _classic_merges(tok: ClassicBPE, n: int) -> list[tuple[int, str, str, str]]:
    m = tok.merges
    return [(i, repr(m[i][0]), repr(m[i][1]), repr(m[i][0] + m[i][1])) for i in _spread(list(range(len(m))), n)]


def _text_family(cls: Any) -> Callable[..., Tokenizer]:
    def train(corpus: Any, vocab_size: int | None, *, text_field: str = "text", errors: str = "strict", **options: Any) -> Tokenizer:
        src = Corpus.from_arg(corpus, text_field=text_field, errors=errors, cuttable=False)
        return cls.train(src.documents(), vocab_size, **options)

    train.__doc__ = f"`{cls.__name__}.train` on a corpus of paths or texts."
    return train


_TEXT_OPTIONS = frozenset({"text_field", "errors"})

#: Family name -> `Trainer`.
TRAINERS: dict[str, Trainer] = {
    t.name: t
    for t in (
        Trainer("bpe", "byte-level BPE as in GPT-2/GPT-4 (default)", train_bpe,
                frozenset({"pattern", "num_threads", "progress", "base", "verbose", "name", "text_field", "errors",
                           "engine", "unit_bytes"}),
                ("tiktoken", "hf", "gpt2"), True, _byte_bpe_merges),
        Trainer("wordpiece", "BERT-style WordPiece (Hugging Face's trainer rule)", train_wordpiece,
                frozenset({"num_threads", "progress", "text_field", "errors"}), ("vocab.txt", "hf"), True),
        Trainer("unigram", "SentencePiece-style Unigram (EM + pruning; a .model sentencepiece loads)", train_unigram,
                frozenset({"num_threads", "progress", "text_field", "errors", "user_defined_symbols", "character_coverage",
                           "max_piece_length", "byte_fallback", "split_digits", "normalization"}), ("sentencepiece",), True),
        Trainer("classic-bpe", "BPE with an end-of-word marker", _text_family(ClassicBPE),
                _TEXT_OPTIONS | {"pattern"}, (), True, _classic_merges),
        Trainer("word", "word-level", _text_family(WordLevel), _TEXT_OPTIONS | {"pattern"}, (), False),
        Trainer("char", "character-level", _text_family(CharLevel), _TEXT_OPTIONS, (), False),
    )
}
