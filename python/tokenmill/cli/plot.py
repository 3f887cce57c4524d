"""``tokenmill plot``: PNG plots of tokenizers (matplotlib, the ``tokenmill[plot]`` extra).

    tokenmill plot compression --corpus FILES --vocab-sizes 256,512,1024 [--held-out FILES]
                               [--pattern P] [-o compression.png] [--json] [--errors replace]
    tokenmill plot lengths TOKENIZER [-o token-lengths.png] [--json]

``compression`` trains byte-level BPE on the corpus (once, at the largest size) and plots
bytes per token against vocabulary size, measured on the corpus or on ``--held-out`` files;
training progress goes to stderr (``--quiet`` hides it). ``lengths`` plots the histogram of
a vocabulary's token lengths in bytes. ``--json`` prints the numbers (without matplotlib);
with ``-o`` too it also plots. Every file and the output are checked before training. The
work is `tokenmill.viz.plot`; this module parses and prints.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ._common import CliError, note, write

__all__ = ["add_parser", "run"]


def _sizes(s: str) -> list[int]:
    try:
        sizes = [int(x) for x in s.replace(" ", "").split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r} is not a comma-separated list of integers (e.g. 256,512,1024)") from None
    if not sizes:
        raise argparse.ArgumentTypeError("give at least one size (e.g. 256,512,1024)")
    return sizes


def add_parser(sub, common) -> None:
    """Adds the ``plot`` subcommand (``compression``, ``lengths``) to the CLI's subparsers."""
    p = sub.add_parser("plot", parents=[common], help="plot compression against vocabulary size, or token lengths (PNG)",
                       description="PNG plots of tokenizers; they need matplotlib: pip install \"tokenmill[plot]\". "
                                   "--json prints the numbers without it.")
    p.set_defaults(func=run, plot=None)
    kinds = p.add_subparsers(dest="plot", metavar="PLOT")

    c = kinds.add_parser("compression", parents=[common], help="bytes per token against vocabulary size",
                         description="Train byte-level BPE on the corpus and plot bytes per token against vocabulary size.")
    c.add_argument("--corpus", nargs="+", required=True, metavar="FILE",
                   help="training files (.txt, .gz, .jsonl, .parquet)")
    c.add_argument("--vocab-sizes", type=_sizes, required=True, metavar="N,N,...",
                   help="vocabulary sizes, each >= 256 (e.g. 256,512,1024,4096)")
    c.add_argument("--held-out", nargs="+", metavar="FILE", help="measure on these files instead of the corpus")
    c.add_argument("--pattern", default=None, help="pre-tokenizer: gpt2, cl100k (default), o200k or a regex")
    c.add_argument("-o", "--output", metavar="PNG", help="the PNG to write (default compression.png; with --json, only if given)")
    c.add_argument("--json", action="store_true", help="print the numbers as JSON")
    c.add_argument("--errors", choices=("strict", "replace"), default="strict",
                   help="invalid UTF-8 in the files: fail naming the byte (strict, default) or substitute U+FFFD")
    c.set_defaults(func=run)

    length = kinds.add_parser("lengths", parents=[common], help="histogram of token lengths in bytes",
                              description="Plot how many tokens of a vocabulary have each length in bytes.")
    length.add_argument("tokenizer", metavar="NAME|PATH", help="a standard encoding name or a tokenizer file")
    length.add_argument("-o", "--output", metavar="PNG",
                        help="the PNG to write (default token-lengths.png; with --json, only if given)")
    length.add_argument("--json", action="store_true", help="print the numbers as JSON")
    length.set_defaults(func=run)


def _output(args, default: str) -> str | None:
    """The PNG to write, checked before any work (training can take minutes)."""
    out = args.output or (None if args.json else default)
    if out is None:
        return None
    if os.path.isdir(out):
        raise CliError(f"-o {out}: is a directory; give the PNG file to write, e.g. {os.path.join(out, default)}")
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise CliError(f"-o {out}: the directory {parent} does not exist; create it or write elsewhere")
    return out


def _files(option: str, files: list[str]) -> list[Path]:
    """The files as paths (a list of str that name no file would be texts to train on)."""
    for f in files:
        if not os.path.exists(f) or os.path.isdir(f):
            raise CliError(f"{option} {f}: {'is a directory; give the files in it' if os.path.isdir(f) else 'no such file'}")
    return [Path(f) for f in files]


def _compression(args) -> int:
    from ..viz.plot import check_vocab_sizes, compression_points, plot_compression

    out = _output(args, "compression.png")
    quiet = bool(getattr(args, "quiet", False))
    check_vocab_sizes(args.vocab_sizes)  # before the note and the training
    corpus = _files("--corpus", args.corpus)
    held_out = None if args.held_out is None else _files("--held-out", args.held_out)
    note(args, f"training byte-level BPE up to {max(args.vocab_sizes):,} tokens on {len(args.corpus)} file(s)")
    points = compression_points(corpus, args.vocab_sizes, held_out=held_out, pattern=args.pattern,
                                progress=not quiet and sys.stderr.isatty(), errors=args.errors)
    reached = points[-1]["n_vocab"]
    if reached < points[-1]["vocab_size"]:
        note(args, f"the corpus has pairs for only {reached:,} tokens: larger sizes measure that vocabulary")
    if not quiet:
        for p in points:
            note(args, f"vocab {p['vocab_size']:>7,}: {p['bytes_per_token']:.3f} bytes/token" if p["bytes_per_token"]
                 else f"vocab {p['vocab_size']:>7,}: no tokens")
    if args.json:
        write(json.dumps(points, indent=2) + "\n")
    if out:
        names = ", ".join(args.corpus[:3]) + (f" and {len(args.corpus) - 3} more" if len(args.corpus) > 3 else "")
        held = f"; measured on {', '.join(args.held_out[:3])}" if args.held_out else ""
        plot_compression(points, out, title=f"trained on {names}{held}")
        note(args, f"wrote {out}")
    return 0


def _lengths(args) -> int:
    from ..viz.plot import plot_lengths, token_lengths

    out = _output(args, "token-lengths.png")
    data = token_lengths(args.tokenizer)
    if args.json:
        write(json.dumps(data, indent=2) + "\n")
    if out:
        plot_lengths(data, out)
        note(args, f"wrote {out}")
    return 0


def run(args) -> int:
    if args.plot == "compression":
        return _compression(args)
    if args.plot == "lengths":
        return _lengths(args)
    raise CliError("choose a plot: 'tokenmill plot compression --corpus FILES --vocab-sizes 256,512,...' "
                   "or 'tokenmill plot lengths TOKENIZER'")
