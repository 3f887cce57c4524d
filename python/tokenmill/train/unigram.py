"""`train_unigram`: a SentencePiece-style Unigram tokenizer trained in the Rust core.

The algorithm is sentencepiece's (`unigram_model_trainer`): words are the space-separated
tokens of each line with a ``▁`` in front; the required characters cover
`character_coverage` of character occurrences; seed pieces are frequent substrings (a suffix
sort of the distinct words); then rounds of EM (a Bayesian M-step) and pruning of the pieces
whose removal costs the least likelihood, down to `vocab_size`. The readable specification,
with every rule, is `tokenmill._reference.train_unigram`; `tokenmill-core`'s `train::unigram`
says how the Rust version is fast and bounded.

Normalization: ``identity`` by default (sentencepiece's default is ``nmt_nfkc``). tokenmill
ships no normalization tables of its own; ``normalization=`` takes a ``.model`` file (or a
`SentencePiece`) whose precompiled charsmap to use, e.g. one sentencepiece trained with
``nmt_nfkc``: the corpus is normalized by it (with sentencepiece's default whitespace rules)
before words are counted, and the trained model keeps it, so what was trained is what is
encoded. Where it differs from sentencepiece otherwise: scores are computed in float64 and
ties broken by string, lines longer than 4,192 bytes are used (sentencepiece skips them), and
sentences are never sampled (every line is used). The result is a `tokenmill.SentencePiece`
whose ``.model`` file sentencepiece loads and encodes identically
(``tok.export("sentencepiece", path)``).

Reading the corpus (files through the core's reader, cut at line ends) and counting words run
with the GIL released and on `num_threads` threads; the result is the same for every
`num_threads`.
"""

from __future__ import annotations

import os
import time
from typing import Any, Sequence

from .. import _core
from .._args import min_frequency_arg, special_token_list
from .._args import threads as _default_threads
from .._progress import Progress
from ..data.corpus import Corpus
from ..errors import TrainingError
from ..models.sentencepiece import SentencePiece
from .bpe import _run_cancellable

__all__ = ["train_unigram"]

_CHUNK = 1 << 20


def _normalizer_model(normalization: Any) -> tuple[bytes | None, str]:
    """The ``.model`` bytes whose charsmap normalizes the corpus (None: identity) and its name."""
    if isinstance(normalization, str) and normalization == "identity":
        return None, "identity"
    if isinstance(normalization, (str, os.PathLike)) and os.path.isfile(normalization):
        normalization = SentencePiece.from_file(normalization)
    if isinstance(normalization, SentencePiece):
        return normalization.to_model_bytes(), normalization.normalizer_spec.get("name") or "precompiled charsmap"
    raise TrainingError(
        f"normalization={normalization!r}: give 'identity' or the path of a sentencepiece .model file whose "
        "normalizer to use (tokenmill ships no normalization tables; a model sentencepiece trained with nmt_nfkc "
        "carries that one)")


def _number(name: str, value: Any, low: float, high: float, integer: bool = False) -> None:
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or not low <= value <= high:
        what = "an int" if integer else "a number"
        raise TrainingError(f"{name} must be {what} in [{low}, {high}], not {value!r}")


def train_unigram(
    corpus: Any,
    vocab_size: int,
    *,
    special_tokens: Sequence[str] = (),
    user_defined_symbols: Sequence[str] = (),
    min_frequency: int = 1,
    character_coverage: float = 0.9995,
    max_piece_length: int = 16,
    byte_fallback: bool = False,
    split_digits: bool = False,
    split_by_unicode_script: bool = True,
    split_by_number: bool = True,
    unk_piece: str = "<unk>",
    bos_piece: str | None = "<s>",
    eos_piece: str | None = "</s>",
    seed_size: int = 1_000_000,
    shrinking_factor: float = 0.75,
    num_sub_iterations: int = 2,
    num_threads: int | None = None,
    progress: bool = True,
    text_field: str = "text",
    errors: str = "strict",
    normalization: Any = "identity",
) -> SentencePiece:
    """Trains a Unigram (SentencePiece-style) tokenizer; see the module docstring.

    Args:
        corpus: A path, a list of paths (``.txt``, ``.txt.gz``, ``.jsonl`` with `text_field`,
            ``.parquet``), or an iterable of str documents; streamed, cut at line ends.
        vocab_size: Total number of pieces, the unknown, bos/eos, special, user-defined and
            byte pieces included. More than the corpus yields is an error that says how many it does.
        special_tokens: Control symbols (ids after ``<unk>``, ``<s>``, ``</s>``; never produced
            by encoding text, as in sentencepiece).
        user_defined_symbols: Pieces always kept whole, in training and in encoding.
        min_frequency: Words seen fewer times are left out of training.
        character_coverage: Share of character occurrences the alphabet must cover (in
            [0.98, 1]); rarer characters become ``<unk>`` (or bytes with `byte_fallback`).
        max_piece_length: The longest piece, in characters.
        byte_fallback: Add the 256 pieces ``<0x00>``..``<0xFF>`` so that no text is unknown.
        split_digits: Every digit is a piece of its own.
        split_by_unicode_script, split_by_number: No piece mixes scripts / digits and letters.
        unk_piece, bos_piece, eos_piece: The meta pieces (ids 0, 1, 2; None leaves bos/eos out).
        seed_size, shrinking_factor, num_sub_iterations: sentencepiece's EM settings.
        num_threads: Threads (default: all cores); the result does not depend on it.
        progress: Show progress bars on stderr (only when it is a terminal).
        text_field: The field holding the text in jsonl and parquet files.
        errors: ``"strict"`` (invalid UTF-8 is an error naming file and byte offset) or
            ``"replace"`` (substitute U+FFFD).
        normalization: ``"identity"``, or the path of a ``.model`` file (or a `SentencePiece`)
            whose charsmap normalizes the corpus and the trained model (see the module docstring).

    Returns:
        The `SentencePiece` tokenizer; ``tok.training`` holds the training metadata.

    >>> import tokenmill
    >>> tok = tokenmill.train_unigram(["low lower lowest newer newest"] * 20, vocab_size=17, progress=False)
    >>> [tok.id_to_token(i) for i in tok.encode("lowest newer")], tok.decode(tok.encode("lowest newer"))
    (['▁lowest', '▁newer'], 'lowest newer')
    """
    t0 = time.monotonic()
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, not {type(vocab_size).__name__}")
    min_frequency_arg(min_frequency)
    _number("character_coverage", character_coverage, 0.98, 1.0)
    _number("max_piece_length", max_piece_length, 1, 512, integer=True)
    _number("shrinking_factor", shrinking_factor, 0.01, 0.99)
    _number("num_sub_iterations", num_sub_iterations, 1, 100, integer=True)
    _number("seed_size", seed_size, 1, 1 << 40, integer=True)
    for name, flag in (("byte_fallback", byte_fallback), ("split_digits", split_digits),
                       ("split_by_unicode_script", split_by_unicode_script), ("split_by_number", split_by_number)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be a bool, not {type(flag).__name__}")
    controls = list(dict.fromkeys(special_token_list(special_tokens)))
    users = list(dict.fromkeys(special_token_list(user_defined_symbols)))
    meta = [p for p in (unk_piece, bos_piece, eos_piece) if p is not None]
    clash = sorted((set(controls) & set(users)) | ((set(controls) | set(users)) & set(meta)))
    if clash:
        raise TrainingError(f"{clash!r} given twice (as special tokens, user-defined symbols or unk/bos/eos pieces); give each once")
    threads = _default_threads(num_threads)

    src = Corpus.from_arg(corpus, text_field=text_field, errors=errors, cuttable=False, chunk_size=_CHUNK)
    normalizer, norm_name = _normalizer_model(normalization)
    try:
        counter = _core.UnigramWordCounter(users, normalizer)
    except ValueError as e:
        raise TrainingError(f"normalization={normalization!r} is not a usable sentencepiece model: {e}") from None
    control = _core.TrainControl()
    src.count_into(counter, threads, control, progress=progress, what="distinct words", chunk=_CHUNK)
    n_words, text_bytes = len(counter), counter.text_bytes
    if n_words == 0:
        raise TrainingError("the corpus has no words: no text to train on (check the paths, the jsonl text_field, or the iterable)")
    t_count = time.monotonic() - t0

    bar = Progress("training", total=None, unit="EM and pruning steps", enabled=progress)
    stages = {"n": 0}

    def report(stage: str, pieces: int, objective: float, tokens: int) -> None:
        stages["n"] += 1
        bar.update(stages["n"], f"{stage}: {pieces:,} pieces")

    try:
        data = _run_cancellable(
            lambda: _core.train_unigram(counter, vocab_size, float(character_coverage), max_piece_length, seed_size,
                                        float(shrinking_factor), num_sub_iterations, unk_piece, bos_piece, eos_piece,
                                        controls, users, byte_fallback, split_by_unicode_script, split_by_number,
                                        split_digits, threads, min_frequency, control, report),
            control, None, 0)
    except ValueError as e:  # the core's option and size checks (InputError)
        raise TrainingError(str(e)) from None
    tok = SentencePiece(data)
    bar.close(f"{tok.vocab_size:,} pieces")
    if tok.vocab_size < vocab_size:  # every candidate piece is in: the corpus has no more (as sentencepiece says)
        raise TrainingError(f"vocab_size={vocab_size} is too high for this corpus: it yields {tok.vocab_size} pieces; "
                            f"pass vocab_size <= {tok.vocab_size} or train on more text")
    info = {
        "trainer": "tokenmill.train_unigram",
        "rule": f"sentencepiece unigram (EM + pruning), {norm_name} normalization",
        "vocab_size": vocab_size,
        "min_frequency": min_frequency,
        "character_coverage": character_coverage,
        "max_piece_length": max_piece_length,
        "byte_fallback": byte_fallback,
        "split_digits": split_digits,
        "documents": src.n_documents,
        "text_bytes": text_bytes,
        "distinct_words": n_words,
        "seconds": round(time.monotonic() - t0, 3),
        "seconds_counting": round(t_count, 3),
    }
    return SentencePiece(data, training=info)
