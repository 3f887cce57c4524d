"""`train_wordpiece`: train a BERT-style `tokenmill.WordPiece` on a corpus.

The selection rule is Hugging Face's (``tokenizers.trainers.WordPieceTrainer``), not the
likelihood score of the original WordPiece paper: BPE on the words, with the continuation
prefix (``##``) on every character but a word's first, the merged tokens becoming the
WordPiece vocabulary. Why HF's rule: users compare with ``BertWordPieceTokenizer`` training,
and a vocabulary is only comparable if the rule is the same; it is also deterministic here.

The vocabulary, in id order: the special tokens; the alphabet (characters of the normalized
words, in code point order; with `limit_alphabet`, only the most frequent); the ``##c``
symbol of every alphabet character seen after a word's first character; then one token per
merge. The most frequent adjacent pair (counts weighted by word count) merges next, ties to
the smallest ``(left id, right id)``; the new token is the left one followed by the right one
without its prefix (``"hu" + "##g" -> "hug"``, ``"##u" + "##g" -> "##ug"``); a string that is
already a token reuses its id. HF's bookkeeping is followed where it can change a choice (see
``crates/tokenmill-core/src/train/wordpiece.rs``).

HF is not deterministic: it numbers the ``##c`` symbols in the order of a hash map seeded per
process, so ties between pairs can go either way and two HF runs on one corpus may differ
by a few tokens. Here the ``##c`` symbols are numbered in code point order (the same result
every run, for every `num_threads`); given the order of one HF run, the result is that run's
(the tests check this). Likewise, HF drops characters of equal count in any order at the
`limit_alphabet` cut; here the higher code points go first.

Normalizing, pre-tokenizing and counting words (in parallel, as the corpus streams in) and
the merge loop run in the Rust core with the GIL released; special tokens in the text are
not cut out (as in HF's training, they are ordinary text there).
"""

from __future__ import annotations

import time
from typing import Any, Sequence

from .. import _core
from .._args import min_frequency_arg, special_token_list
from .._args import threads as _default_threads
from .._progress import Progress
from ..data.corpus import Corpus
from ..errors import SpecialTokenError, TrainingError
from ..models.wordpiece import BERT_SPECIALS, WordPiece
from .bpe import _run_cancellable

__all__ = ["train_wordpiece"]

_CHUNK = 1 << 20


def _flag(name: str, value: Any, optional: bool = False) -> None:
    if not isinstance(value, bool) and not (optional and value is None):
        raise TypeError(f"{name} must be True or False{' or None' if optional else ''}, not {value!r}")


def train_wordpiece(
    corpus: Any,
    vocab_size: int,
    *,
    special_tokens: Sequence[str] = BERT_SPECIALS,
    min_frequency: int = 1,
    lowercase: bool = True,
    strip_accents: bool | None = None,
    clean_text: bool = True,
    handle_chinese_chars: bool = True,
    continuing_subword_prefix: str = "##",
    limit_alphabet: int | None = None,
    unk_token: str = "[UNK]",
    num_threads: int | None = None,
    progress: bool = True,
    text_field: str = "text",
    errors: str = "strict",
    _symbol_order: Sequence[str] | None = None,
) -> WordPiece:
    """Trains a BERT-style WordPiece tokenizer with Hugging Face's rule (see the module docstring).

    Args:
        corpus: A path, a list of paths (``.txt``, ``.txt.gz``, ``.jsonl`` with `text_field`,
            ``.parquet``), or an iterable of str documents; streamed in chunks of about 1 MiB.
        vocab_size: Total number of tokens, special tokens included. It must hold the special
            tokens, the alphabet and the ``##`` symbols (use `limit_alphabet` to shrink those).
        special_tokens: The special tokens, ids ``0..`` in this order; `unk_token` among them.
        min_frequency: A pair is merged only if it occurs at least this often.
        lowercase, strip_accents, clean_text, handle_chinese_chars: BertNormalizer's options
            (``strip_accents=None`` follows `lowercase`), used for training and kept by the result.
        continuing_subword_prefix: Marks a token that continues a word.
        limit_alphabet: Keep at most this many characters (the most frequent) as the alphabet.
        unk_token: The token for unknown words (must be one of `special_tokens`).
        num_threads: Threads for counting (default: all cores).
        progress: Show progress bars on stderr (only when it is a terminal).
        text_field: The field holding the text in jsonl and parquet files.
        errors: ``"strict"`` (invalid UTF-8 is an error naming file and byte offset) or
            ``"replace"`` (substitute U+FFFD).

    Returns:
        The `WordPiece` tokenizer; ``tok.training`` holds the training metadata.

    >>> import tokenmill
    >>> tok = tokenmill.train_wordpiece(["hug pug hugs"] * 10, vocab_size=20, progress=False)
    >>> tok.encode("hugs", add_special_tokens=False), tok.decode(tok.encode("Hugs pug"))
    ([16], 'hugs pug')
    """
    t0 = time.monotonic()
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, not {type(vocab_size).__name__}")
    min_frequency_arg(min_frequency)
    for name, value in (("lowercase", lowercase), ("clean_text", clean_text), ("handle_chinese_chars", handle_chinese_chars)):
        _flag(name, value)
    _flag("strip_accents", strip_accents, optional=True)
    if not isinstance(continuing_subword_prefix, str):
        raise TypeError(f"continuing_subword_prefix must be a str, not {type(continuing_subword_prefix).__name__}")
    if limit_alphabet is not None and (isinstance(limit_alphabet, bool) or not isinstance(limit_alphabet, int) or limit_alphabet < 0):
        raise TrainingError(f"limit_alphabet must be None or an int >= 0, not {limit_alphabet!r}")
    specials = list(dict.fromkeys(special_token_list(special_tokens)))
    if unk_token not in specials:
        raise SpecialTokenError(f"unk_token {unk_token!r} is not in special_tokens {specials!r}; add it (WordPiece needs it for unknown words)")
    if vocab_size <= len(specials):
        raise TrainingError(f"vocab_size={vocab_size} leaves no room beside the {len(specials)} special tokens; pass a larger vocab_size")
    threads = _default_threads(num_threads)

    # Safe cut points fall on whitespace (`safe_cut`), a word boundary for BERT under every option.
    src = Corpus.from_arg(corpus, text_field=text_field, errors=errors, cuttable=True, chunk_size=_CHUNK)
    counter = _core.BertWordCounter(clean_text, handle_chinese_chars, strip_accents, lowercase)
    control = _core.TrainControl()
    # Files go through the core's reader (the one `tokenmill prepare` uses).
    src.count_into(counter, threads, control, progress=progress, what="distinct words", chunk=_CHUNK)
    n_words = len(counter)
    text_bytes = counter.text_bytes
    if n_words == 0:
        raise TrainingError("the corpus has no words: no text to train on (check the paths, the jsonl text_field, or the iterable)")
    t_count = time.monotonic() - t0

    # At most this many merges (fewer: the alphabet and ## symbols take ids too).
    bar = Progress("merging", total=vocab_size - len(specials), unit="merges", enabled=progress)
    vocab, n_alphabet, n_prefixed, n_merges = _run_cancellable(
        lambda: _core.train_wordpiece(counter, vocab_size, min_frequency, specials, continuing_subword_prefix, limit_alphabet, control,
                                      None if _symbol_order is None else list(_symbol_order)),
        control,
        bar,
        vocab_size,
    )
    bar.close()
    floor = len(specials) + n_alphabet + n_prefixed
    if floor > vocab_size:
        raise TrainingError(
            f"vocab_size={vocab_size} is smaller than the {len(specials)} special tokens + {n_alphabet} characters + {n_prefixed} "
            f"{continuing_subword_prefix}-symbols the corpus needs = {floor}; pass vocab_size >= {floor} or a smaller limit_alphabet"
        )
    info = {
        "trainer": "tokenmill.train_wordpiece",
        "rule": "huggingface WordPieceTrainer (BPE with continuing_subword_prefix)",
        "vocab_size": vocab_size,
        "min_frequency": min_frequency,
        "limit_alphabet": limit_alphabet,
        "alphabet": n_alphabet,
        "prefixed_symbols": n_prefixed,
        "merges": n_merges,
        "documents": src.n_documents,
        "text_bytes": text_bytes,
        "distinct_words": n_words,
        "seconds": round(time.monotonic() - t0, 3),
        "seconds_counting": round(t_count, 3),
    }
    ids = {t: i for i, t in enumerate(vocab)}
    return WordPiece(
        ids,
        {s: ids[s] for s in specials},
        unk_token=unk_token,
        continuing_subword_prefix=continuing_subword_prefix,
        lowercase=lowercase,
        strip_accents=strip_accents,
        clean_text=clean_text,
        handle_chinese_chars=handle_chinese_chars,
        cls_token="[CLS]" if "[CLS]" in ids else None,
        sep_token="[SEP]" if "[SEP]" in ids else None,
        training=info,
    )
