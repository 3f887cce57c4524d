"""Two plots of tokenizers as numbers and as PNG files (``tokenmill plot``):

* `compression_points` / `plot_compression`: how bytes per token grow with the vocabulary
  size of a byte-level BPE tokenizer trained on a corpus (measured on the corpus, or on
  held-out files).
* `token_lengths` / `plot_lengths`: the histogram of a vocabulary's token lengths in bytes.

Training once is enough for every size: BPE learns its merges in order and a merge never
depends on the target size, so the tokenizer trained to N tokens is exactly the first N ids
of one trained to a larger size (a test checks this against `tokenmill.train_bpe` at each
size). `compression_points` therefore trains once, at the largest size, and measures each
size on that tokenizer's first ids.

The numbers need nothing beyond tokenmill. Drawing needs matplotlib, an optional extra
(``pip install "tokenmill[plot]"``): it is imported only to draw, with the Agg canvas (no
window, no change to the process's pyplot backend), and the PNG is written atomically.

>>> pts = compression_points(["low lower lowest newer newest"] * 20, [256, 260])
>>> [(p["vocab_size"], round(p["bytes_per_token"], 2)) for p in pts]
[(256, 1.0), (260, 1.61)]
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Sequence
from typing import Any

from .._io import atomic_write_bytes
from ..data.chunks import cuttable, utf8_size
from ..data.corpus import Corpus
from ..encoding import Encoding
from ..errors import InputError, TokenmillError
from ..train import train_bpe
from .tokens import figures, ordinary_tokens, resolve

__all__ = ["compression_points", "check_vocab_sizes", "token_lengths", "plot_compression", "plot_lengths", "MissingDependencyError",
           "INSTALL_HINT"]

INSTALL_HINT = 'pip install "tokenmill[plot]"'


class MissingDependencyError(TokenmillError, ImportError):
    """An optional dependency (matplotlib, for plots) is not installed; the message says how
    to install it."""


#: The largest vocabulary size: token ids are 32-bit.
MAX_VOCAB_SIZE = 1 << 32


def check_vocab_sizes(vocab_sizes: Sequence[int], floor: int = 256) -> list[int]:
    """The sizes sorted without repeats; a size below `floor` or above `MAX_VOCAB_SIZE`
    raises `InputError`.

    >>> check_vocab_sizes([512, 256, 512])
    [256, 512]
    """
    sizes = sorted(set(int(v) for v in vocab_sizes))
    if not sizes:
        raise InputError("no vocabulary sizes given: pass sizes such as 256,512,1024")
    if sizes[0] < floor:
        raise InputError(f"vocabulary size {sizes[0]} is below {floor} (the 256 byte tokens"
                         f"{' and the special tokens' if floor > 256 else ''}); give sizes >= {floor}")
    if sizes[-1] > MAX_VOCAB_SIZE:
        raise InputError(f"vocabulary size {sizes[-1]} is above {MAX_VOCAB_SIZE:,} (token ids are 32-bit); give smaller sizes")
    return sizes


def _truncated(enc: Encoding, size: int) -> Encoding:
    """The encoding made of `enc`'s first `size` ids (see the module docstring for why this is
    what training to `size` gives)."""
    if size >= enc.n_vocab:
        return enc
    ranks = {b: i for b, i in enc.mergeable_ranks().items() if i < size}
    return Encoding(f"bpe-{size}", enc.pattern, ranks, {})


def _measure(enc: Encoding, corpus: Any, errors: str) -> tuple[int, int, int]:
    """(tokens, characters, UTF-8 bytes) of `corpus` read as `train_bpe` reads it (the same
    rules for paths and texts, jsonl and parquet), in chunks cut where cutting changes no token."""
    src = Corpus.from_arg(corpus, cuttable=cuttable(enc.pattern, []), chunk_size=1 << 20, errors=errors)
    tokens = chars = n_bytes = 0
    for chunk in src.chunks():
        tokens += enc.count(chunk, disallowed_special=())
        chars += len(chunk)
        n_bytes += utf8_size(chunk)
    return tokens, chars, n_bytes


def _reusable(corpus: Any) -> Any:
    return corpus if isinstance(corpus, (str, os.PathLike)) else list(corpus)


def compression_points(corpus: Any, vocab_sizes: Sequence[int], *, held_out: Any = None, pattern: str | None = None,
                       progress: bool = False, num_threads: int | None = None, errors: str = "strict") -> list[dict[str, Any]]:
    """Bytes per token of byte-level BPE at each vocabulary size.

    Args:
        corpus: what `tokenmill.train_bpe` trains on: file paths (``.txt``, ``.gz``,
            ``.jsonl``, ``.parquet``) or an iterable of texts.
        vocab_sizes: the sizes to measure, each >= 256.
        held_out: measure on these files (or texts) instead of the training corpus.
        pattern: the pre-tokenizer (`train_bpe`'s; default cl100k).
        progress: show `train_bpe`'s progress bars on stderr.
        num_threads: threads for training.
        errors: invalid UTF-8 in the files: ``"strict"`` (an error naming the file and byte)
            or ``"replace"`` (U+FFFD), for training and measuring alike.

    Returns:
        One dict per size, ascending: ``vocab_size`` (asked), ``n_vocab`` (reached: smaller
        when the corpus runs out of pairs to merge), ``tokens``, ``chars``, ``bytes``,
        ``bytes_per_token``, ``chars_per_token``, and ``measured_on`` (``"corpus"`` or
        ``"held-out"``).

    >>> [p["n_vocab"] for p in compression_points(["ab ab ab"], [256, 300])]
    [256, 258]
    """
    sizes = check_vocab_sizes(vocab_sizes)
    # A path stays a path (a list of one str that names no file would be a text to train on);
    # other iterables are listed, as they are read twice (training, measuring).
    corpus = _reusable(corpus)
    enc = train_bpe(corpus, sizes[-1], pattern=pattern, progress=progress, num_threads=num_threads, errors=errors)
    texts = _reusable(held_out) if held_out is not None else corpus
    if held_out is not None and not isinstance(texts, (str, os.PathLike)) and not texts:
        raise InputError("held_out is empty: give the files (or texts) to measure on, or None for the corpus")
    points = []
    for size in sizes:
        tok = _truncated(enc, size)
        tokens, chars, n_bytes = _measure(tok, texts, errors)
        points.append({"vocab_size": size, "n_vocab": tok.n_vocab, **figures(tokens, chars, n_bytes),
                       "measured_on": "held-out" if held_out is not None else "corpus"})
    return points


def token_lengths(tokenizer: Any) -> dict[str, Any]:
    """The lengths in bytes of a vocabulary's ordinary tokens (special tokens apart).

    Args:
        tokenizer: a name, a tokenizer file or a tokenizer object.

    Returns:
        ``{"tokenizer", "n_vocab", "tokens" (ordinary tokens counted), "special_tokens",
        "mean_bytes", "max_bytes", "lengths": {bytes: number of tokens}}`` with lengths
        ascending.

    >>> r = token_lengths("gpt2")
    >>> r["lengths"][1], r["max_bytes"], r["special_tokens"]
    (256, 128, 1)
    """
    label, tok = resolve(tokenizer)
    data, _ = ordinary_tokens(tok)
    counts: dict[int, int] = {}
    for b in data.values():
        counts[len(b)] = counts.get(len(b), 0) + 1
    total = sum(n * k for n, k in counts.items())
    n_tokens = len(data)
    return {"tokenizer": label, "n_vocab": tok.n_vocab, "tokens": n_tokens, "special_tokens": len(set(tok.special_tokens.values())),
            "mean_bytes": total / n_tokens if n_tokens else None, "max_bytes": max(counts, default=0),
            "lengths": dict(sorted(counts.items()))}


def _figure():
    # Lazy: matplotlib is optional, and the Agg canvas draws without a display or pyplot.
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingDependencyError(f"plotting needs matplotlib: {INSTALL_HINT} (or pip install matplotlib); "
                                     "--json prints the numbers without it") from None
    fig = Figure(figsize=(7.5, 4.6), dpi=110)
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Any, path: str | os.PathLike[str]) -> None:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    atomic_write_bytes(path, buf.getvalue())


def _tick_labels(xs: Sequence[int], log: bool) -> list[str]:
    """A label per size, left blank where it would overlap the previous label (260 next to 256)."""
    pos = [math.log2(x) if log else float(x) for x in xs]
    span = (pos[-1] - pos[0]) or 1.0
    labels, last = [], None
    for x, p in zip(xs, pos):
        if last is None or p - last >= 0.07 * span:
            labels.append(f"{x:,}")
            last = p
        else:
            labels.append("")
    return labels


def plot_compression(points: Sequence[dict[str, Any]], path: str | os.PathLike[str], *, title: str | None = None) -> None:
    """Draws bytes per token against vocabulary size and writes it as a PNG (atomically).

    Args:
        points: `compression_points`.
        path: the PNG file.
        title: a line under the main title (e.g. the corpus).
    """
    fig = _figure()
    ax = fig.add_subplot()
    pts = [p for p in points if p["bytes_per_token"] is not None]
    xs = [p["vocab_size"] for p in pts]
    ys = [p["bytes_per_token"] for p in pts]
    ax.plot(xs, ys, marker="o", color="#3b6fb6")
    if xs and max(xs) / min(xs) >= 3:
        ax.set_xscale("log", base=2)
    labels = _tick_labels(xs, log=ax.get_xscale() == "log") if xs else []
    for x, y, label in zip(xs, ys, labels):
        if label:  # values only where the size is labelled, so that they never overlap
            ax.annotate(f"{y:.2f}", (x, y), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.set_xticks(xs, labels, rotation=45 if len(xs) > 8 else 0, fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel("vocabulary size (tokens)")
    where = pts[0]["measured_on"] if pts else "corpus"
    ax.set_ylabel(f"bytes per token ({where})")
    ax.set_title("Byte-level BPE: compression against vocabulary size" + (f"\n{title}" if title else ""), fontsize=10)
    ax.grid(True, alpha=0.3)
    if ys:
        ax.set_ylim(0, max(ys) * 1.15)
    _save(fig, path)


def plot_lengths(lengths: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Draws the histogram of `token_lengths` and writes it as a PNG (atomically).

    Args:
        lengths: `token_lengths`.
        path: the PNG file.
    """
    fig = _figure()
    ax = fig.add_subplot()
    xs = list(lengths["lengths"])
    ax.bar(xs, [lengths["lengths"][x] for x in xs], width=0.85, color="#3b6fb6")
    ax.set_xlabel("token length (bytes)")
    ax.set_ylabel("tokens")
    mean = lengths["mean_bytes"]
    ax.set_title(f"Token lengths of {lengths['tokenizer']}\n{lengths['tokens']:,} ordinary tokens, "
                 f"mean {mean:.2f} bytes, longest {lengths['max_bytes']} bytes" if mean is not None
                 else f"Token lengths of {lengths['tokenizer']}", fontsize=10)
    if len(xs) > 40:  # a few very long tokens (GPT-2's 128-byte runs) would squash the rest
        ax.set_yscale("log")
        ax.set_ylabel("tokens (log scale)")
    ax.grid(True, axis="y", alpha=0.3)
    _save(fig, path)
