"""`train_bpe`: train a byte-level BPE `Encoding` (GPT-2/GPT-4 style) on a corpus.

Policy lives here: arguments, the vocabulary arithmetic, special-token ids, continuing from a
base encoding, progress and Ctrl-C. The work runs in the Rust core with the GIL released:
pre-tokens are counted chunk by chunk as the corpus streams in (memory grows with the number
of distinct pre-tokens, not with the corpus), then merges are learned on the distinct
pre-tokens with 64-bit counts.

The merge rule (the same as `tokenmill._reference.train_bpe`, which is its specification):
the most frequent adjacent pair wins; ties go to the smallest ``(left id, right id)``, so runs
are identical whatever the thread count. When a pair spells bytes that are already a token,
it merges into that token and no new id is spent.

Counting can run on a distributed engine (``engine="ray"`` or a ``concurrent.futures.Executor``):
the files are grouped into work units (`tokenmill.data.units`), each task counts its unit as
the local path would and returns the counts as bytes (``WordCounter.to_bytes``), and the
driver adds them up. Counting is a sum, so the tokenizer is identical for every engine; the
merges are learned in the driver.

It does not read files itself (see `tokenmill.data.corpus`) or write them (see `Encoding.save`).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, Iterable, Sequence

from .. import _core
from .._args import int_arg, min_frequency_arg, special_token_list
from .._args import threads as _default_threads
from .._progress import Progress
from ..data.chunks import cuttable
from ..data.corpus import Corpus
from ..data.units import UNIT_BYTES, gzipped, is_distributed, parquet_row_groups, pieces, run_tasks, units
from ..encoding import Encoding
from ..errors import InputError, PatternError, SpecialTokenError, TrainingError
from ..patterns import PATTERN_NAMES, resolve_pattern

__all__ = ["train_bpe"]

_CHUNK = 1 << 20


def _check_specials(special_tokens: Iterable[str] | None, base: Encoding | None) -> list[str]:
    specials = list(special_token_list(special_tokens))
    for s in specials:
        if base is not None and s in base.special_tokens_set:
            raise SpecialTokenError(f"special token {s!r} is already a special token of the base encoding {base.name!r}; drop it from special_tokens")
    return specials


def _source(corpus: Any, regex: str, cut_specials: list[str], text_field: str, errors: str) -> Corpus:
    # Chunks are cut only where no pre-token can span the cut: proven for the known patterns
    # when no special token holds whitespace (see `data.chunks.safe_cut`); otherwise at line breaks.
    # 1 MiB chunks: large enough to amortize a call, small enough that the reader's copies of
    # a chunk (bytes, str, UTF-8) stay a few MB (8 MiB chunks doubled peak RSS at 100 MB).
    return Corpus.from_arg(corpus, text_field=text_field, errors=errors, cuttable=cuttable(regex, cut_specials),
                           chunk_size=_CHUNK)


def _count(counter: Any, src: Corpus, threads: int, control: Any, progress: bool, ranges: list | None = None) -> None:
    """The one way a corpus is counted, in the driver and in every task alike (so that their
    counts agree). Files go through the core's reader (the one `tokenmill prepare` uses)."""
    src.count_into(counter, threads, control, progress=progress, what="distinct pre-tokens", chunk=_CHUNK, ranges=ranges)


def _count_unit(paths: list[str], ranges: list, regex: str, cut_specials: list[str], text_field: str, errors: str,
                num_threads: int | None) -> tuple[bytes, int]:
    """One work unit in a task (module-level: Ray and process pools pickle it): its files' (or
    byte ranges of JSON lines files') counts as ``WordCounter.to_bytes`` and its document
    count. Rerunnable (it only reads)."""
    counter = _core.WordCounter(regex, cut_specials)
    src = _source(paths, regex, cut_specials, text_field, errors)
    _count(counter, src, _default_threads(num_threads), _core.TrainControl(), False, ranges)
    return counter.to_bytes(), src.n_documents


def _count_distributed(engine: Any, counter: Any, src: Corpus, unit_bytes: int, task_args: tuple,
                       progress: bool) -> int:
    """Counts `src`'s files unit by unit on `engine`, adding each task's counts into
    `counter`; returns the documents read. The bar counts bytes on disk of finished units."""
    files = src.files or []
    sizes = [os.path.getsize(p) for p, _ in files]
    # A big JSON lines file (not gzipped) is cut into byte ranges, a big parquet file into row
    # groups (whole documents either way); a plain-text file into byte ranges whose ends the
    # reader moves to safe cut points (exact only for the patterns with such points, so only
    # then). Counts are the local run's in every case.
    splittable = [(f == "jsonl" or (f == "text" and src.cuttable and src.errors == "strict")) and not gzipped(p)
                  for p, f in files]
    groups = [parquet_row_groups(p) if f == "parquet" and n > unit_bytes else None for (p, f), n in zip(files, sizes)]
    plan = pieces(sizes, unit_bytes, splittable, groups)
    psize = [piece[3] for piece in plan]
    groups = units(psize, unit_bytes)
    bar = Progress("counting", total=sum(sizes), unit="bytes", enabled=progress)
    done = documents = 0
    args = [([files[plan[k][0]][0] for k in g], [None if plan[k][1] is None else plan[k][1:3] for k in g], *task_args)
            for g in groups]
    results = run_tasks(engine, _count_unit, args)
    try:
        for k, (group, (blob, docs)) in enumerate(zip(groups, results), 1):
            counter.merge_bytes(blob)
            documents += docs
            done += sum(psize[i] for i in group)
            bar.update(done, f"{k}/{len(groups)} units, {len(counter):,} distinct pre-tokens")
    finally:
        bar.close(f"{len(counter):,} distinct pre-tokens")
    return documents


def _run_cancellable(fn, control, progress: Progress | None, total: int, log=None):
    """Runs `fn()` on a worker thread; Ctrl-C in the main thread cancels it cleanly.
    `log(merges)`, if given, receives the merges learned since the last poll."""
    box: dict[str, Any] = {}

    def work():
        try:
            box["value"] = fn()
        except BaseException as e:  # re-raised in the caller's thread
            box["error"] = e

    t = threading.Thread(target=work, name="tokenmill-train", daemon=True)
    t.start()
    try:
        while t.is_alive():
            t.join(0.1)
            if log is not None:
                log(control.take_log())
            if progress is not None:
                progress.update(control.merges_done)
        if log is not None:
            log(control.take_log())
    except KeyboardInterrupt:
        control.cancel()
        t.join()
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


def train_bpe(
    corpus: Any,
    vocab_size: int,
    pattern: str | None = None,
    special_tokens: Sequence[str] = (),
    min_frequency: int = 1,
    num_threads: int | None = None,
    progress: bool = True,
    base: Encoding | None = None,
    *,
    verbose: bool = False,
    name: str | None = None,
    text_field: str = "text",
    errors: str = "strict",
    engine: Any = None,
    unit_bytes: int | None = None,
) -> Encoding:
    """Trains a byte-level BPE encoding (tiktoken-compatible) on a corpus.

    The vocabulary is the 256 single bytes, then the merges in the order learned, then the
    special tokens: ``vocab_size = 256 + merges + len(special_tokens)``. With `base`, the new
    encoding keeps every token and id of `base` (its special tokens included) and adds
    merges after them, then the new special tokens. Fewer merges are made when the corpus
    runs out of pairs occurring `min_frequency` times.

    Merge rule: the most frequent adjacent pair of tokens (over all pre-tokens, weighted by
    count) is merged next; ties go to the smallest ``(left id, right id)``. A pair whose bytes
    are already a token merges into that token without using a new id. The result is the same
    on every run and for every `num_threads`.

    Args:
        corpus: A path, a list of paths (``.txt``, ``.txt.gz``, ``.jsonl`` with `text_field`,
            ``.parquet``), or an iterable of str documents. Streamed in chunks of about 1 MiB,
            cut where no pre-token spans the cut (see `tokenmill.data.corpus`); one document, or a
            text with no such point (no line break, with a custom pattern), is read whole.
        vocab_size: Total number of ids, specials included.
        pattern: Pre-tokenizer: ``"gpt2"``/``"r50k"``, ``"cl100k"`` (the default), ``"o200k"``
            or a regex. With `base`, the base encoding's pattern is used; a `pattern` given
            too must name the same one.
        special_tokens: Special tokens to add (cut out of the training text, never merged).
        min_frequency: A pair is merged only if it occurs at least this often.
        num_threads: Threads for counting (default: all cores).
        progress: Show progress bars on stderr (only when it is a terminal).
        base: Continue training from this encoding.
        verbose: Print each merge to stderr as it is learned, as ``merging (101, 32) into a
            new token 256`` (``into the existing token N`` when the bytes were a token).
        name: The encoding's name (default ``"bpe-<vocab_size>"``).
        text_field: The field holding the text in jsonl and parquet files.
        errors: ``"strict"`` (invalid UTF-8 is an error naming file and byte offset) or
            ``"replace"`` (substitute U+FFFD).
        engine: Where pre-tokens are counted: ``"local"`` (the default, this process on
            `num_threads` threads), ``"ray"`` (a Ray task per work unit on the cluster
            ``ray.init()`` joins, retried if its worker dies; needs ``tokenmill[ray]``) or any
            ``concurrent.futures.Executor`` (a task per unit). A distributed engine needs
            `corpus` as paths; each task uses `num_threads` threads (default: its machine's
            cores). The merges are learned here; the result is the same for every engine.
        unit_bytes: With a distributed engine, the files are grouped, in order, into work
            units of at least this many bytes on disk (default 1 GB; smaller units spread a
            small corpus over more tasks); a bigger JSON lines file (not gzipped) is cut into
            byte ranges of this size first, each holding the lines that start in it, a plain
            text file (with a pattern that has safe cut points) into ranges that begin and end
            at such points, and a bigger parquet file into runs of whole row groups.

    Returns:
        The `Encoding`. ``enc.training_info`` holds the training metadata, including
        ``bytes_per_token``: the compression ratio on the training text.

    >>> import tokenmill
    >>> enc = tokenmill.train_bpe(["low lower lowest"] * 10, vocab_size=260, progress=False)
    >>> enc.n_vocab, enc.decode(enc.encode("lowest"))
    (260, 'lowest')
    """
    t0 = time.monotonic()
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, not {type(vocab_size).__name__}")
    min_frequency_arg(min_frequency)
    if base is not None and not isinstance(base, Encoding):
        raise TypeError(f"base must be a tokenmill.Encoding (e.g. tokenmill.get_encoding('cl100k_base')), not {type(base).__name__}")
    threads = _default_threads(num_threads)
    specials = _check_specials(special_tokens, base)
    distributed = is_distributed(engine)
    unit_bytes = UNIT_BYTES if unit_bytes is None else int_arg("unit_bytes", unit_bytes, 1)

    if base is None:
        regex = resolve_pattern("cl100k" if pattern is None else pattern)
        floor = 256 + len(specials)
        what = f"256 byte tokens + {len(specials)} special tokens"
        next_id = 256
    else:
        regex = base.pattern
        if pattern is not None and resolve_pattern(pattern) != regex:
            raise TrainingError(
                f"pattern {pattern!r} differs from the base encoding's pattern; continuing training keeps "
                f"{base.name!r}'s pre-tokenizer, so leave pattern out"
            )
        floor = base.n_vocab + len(specials)
        what = f"the base encoding's {base.n_vocab} ids + {len(specials)} new special tokens"
        next_id = base.n_vocab
    if vocab_size < floor:
        raise TrainingError(f"vocab_size={vocab_size} is smaller than {what} = {floor}; pass vocab_size >= {floor}")
    n_new = vocab_size - floor

    # Special tokens of the base are cut out of the text too: they are not ordinary text.
    cut_specials = specials + (sorted(base.special_tokens_set) if base is not None else [])
    src = _source(corpus, regex, cut_specials, text_field, errors)
    if distributed and src.paths is None:
        raise InputError("a distributed engine reads the corpus in its tasks: pass the corpus as file paths, not texts")
    try:
        counter = _core.WordCounter(regex, cut_specials)
    except PatternError as e:
        raise PatternError(f"pattern {pattern!r} is neither a known name ({', '.join(PATTERN_NAMES)}) nor a valid regex: {e}") from None
    control = _core.TrainControl(verbose=bool(verbose))
    if distributed:
        documents = _count_distributed(engine, counter, src, unit_bytes,
                                       (regex, cut_specials, src.text_field, src.errors, num_threads), progress)
    else:
        _count(counter, src, threads, control, progress)
        documents = src.n_documents
    t_count = time.monotonic() - t0
    text_bytes = counter.text_bytes
    if text_bytes == 0:
        raise TrainingError("the corpus is empty: no text to train on (check the paths, the jsonl text_field, or the iterable)")

    def log(learned) -> None:
        for a, b, tid, _count in learned:
            kind = "a new token" if tid >= next_id else "the existing token"
            print(f"merging ({a}, {b}) into {kind} {tid}", file=sys.stderr, flush=True)

    # Verbose lines and the progress bar share stderr: the bar is off while merges print.
    bar = Progress("merging", total=n_new, unit="merges", enabled=progress and not verbose)
    # The trainer continues the base encoding's own Rust engine (same package, on purpose).
    merges, new_tokens, tokens_after = _run_cancellable(
        lambda: _core.train_bpe_merges(counter, n_new, min_frequency, next_id, base._core if base is not None else None, control),
        control,
        bar,
        n_new,
        log if verbose else None,
    )
    bar.close()

    if base is None:
        ranks = {bytes([i]): i for i in range(256)}
        base_specials: dict[str, int] = {}
    else:
        ranks = base.mergeable_ranks()
        base_specials = base.special_tokens
    for tid, tb in new_tokens:
        ranks[tb] = tid
    first_special = next_id + len(new_tokens)
    special_ids = dict(base_specials)
    special_ids.update({s: first_special + i for i, s in enumerate(specials)})
    info = {
        "trainer": "tokenmill.train_bpe",
        "pattern": (pattern or "cl100k") if base is None else None,
        "base": base.name if base is not None else None,
        "vocab_size": vocab_size,
        "merges": len(merges),
        "new_tokens": len(new_tokens),
        "min_frequency": min_frequency,
        "documents": documents,
        "text_bytes": text_bytes,
        "tokens": int(tokens_after),
        "bytes_per_token": (text_bytes / tokens_after) if tokens_after else None,
        "seconds": round(time.monotonic() - t0, 3),
        "seconds_counting": round(t_count, 3),
    }
    enc = Encoding(name or f"bpe-{vocab_size}", regex, ranks, special_ids, _training=info)
    return enc
