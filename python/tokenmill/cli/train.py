"""`tokenmill train`: train a tokenizer from files (or the bundled sample) on the command line.

Reads the corpus as a stream (`tokenmill.data.corpus`), trains the family ``--model`` names
through `tokenmill.train.TRAINERS` (which says what options and formats each family takes),
writes the result atomically (so Ctrl-C leaves no half-written file) and prints a summary:
time, vocabulary size, bytes per token on the training text, ten sample merges and how a
sample sentence is tokenized. Progress bars go to stderr; ``--quiet`` silences them and the
summary. It asks the trained `Tokenizer` and the trainer table; it never branches on a family.

It does not implement training (see `tokenmill.train`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from .._progress import human_bytes, human_seconds
from ..encoding import Encoding
from ..formats import load
from ..registry import get_encoding
from ..samples import sample_path
from ..train import TRAINERS
from ..viz.render import escape_piece
from ._common import CliError, positive_int

__all__ = ["add_parser", "run"]

_SAMPLE_SENTENCE = "It had always been a surprise to me that he should have given up painting."


def add_parser(sub, common) -> None:
    """Adds the ``train`` subcommand to the CLI's subparsers."""
    p = sub.add_parser(
        "train", parents=[common], help="train a tokenizer on text files",
        description="Train a tokenizer on FILES (.txt, .txt.gz, .jsonl, .parquet) or on the bundled sample "
                    "text (--sample), write it to -o, and show a summary.",
    )
    p.add_argument("files", nargs="*", metavar="FILES", help="training files")
    p.add_argument("--sample", action="store_true", help="train on the bundled sample text (The Verdict, 20 KB)")
    p.add_argument("--vocab-size", type=positive_int, default=None, metavar="N",
                   help="vocabulary size, special tokens included (word and char: default every item seen)")
    p.add_argument("--model", choices=list(TRAINERS), default="bpe",
                   help="; ".join(f"{t.name}: {t.help}" for t in TRAINERS.values()))
    p.add_argument("--pattern", default=None, metavar="NAME|REGEX",
                   help="pre-tokenizer: gpt2/r50k, cl100k (default for bpe), o200k or a regex; for word and "
                        "classic-bpe, the regex that splits words")
    p.add_argument("--special", action="append", default=None, metavar="TOKEN",
                   help="add a special token (repeatable), e.g. --special '<|endoftext|>'")
    p.add_argument("--min-frequency", type=int, default=1, metavar="N", help="merge or keep only items seen N times (default 1)")
    p.add_argument("--base", default=None, metavar="ENCODING|FILE",
                   help="bpe: continue training from a standard encoding name or a tokenmill file")
    p.add_argument("--threads", type=positive_int, default=None, metavar="N", help="threads (default: all cores)")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="bpe: count pre-tokens here (local, default) or in a Ray task per work unit "
                        "(ray; pip install 'tokenmill[ray]'; RAY_ADDRESS joins a cluster)")
    p.add_argument("--unit-bytes", type=positive_int, default=None, metavar="N",
                   help="bpe with --engine ray: group input files into work units of at least N bytes (default 1 GB)")
    p.add_argument("--text-field", default="text", metavar="NAME", help="the text field of jsonl/parquet rows (default text)")
    p.add_argument("--errors", choices=("strict", "replace"), default="strict",
                   help="invalid UTF-8: fail naming file and byte (strict, default) or substitute U+FFFD")
    p.add_argument("-o", "--output", required=True, metavar="PATH", help="where to write the tokenizer")
    p.add_argument("--format", choices=("tokenmill", "tiktoken", "hf", "gpt2", "vocab.txt", "sentencepiece"), default="tokenmill",
                   help="output format: tokenmill JSON (default), tiktoken rank file (+ .json), HF tokenizer.json, "
                        "GPT-2 encoder.json + vocab.bpe (-o is then a directory), a WordPiece vocab.txt, or a "
                        "sentencepiece .model (unigram)")
    p.add_argument("--user-defined", action="append", default=None, metavar="SYMBOL",
                   help="unigram: a piece always kept whole (repeatable)")
    p.add_argument("--character-coverage", type=float, default=None, metavar="X",
                   help="unigram: share of character occurrences the alphabet covers (default 0.9995)")
    p.add_argument("--max-piece-length", type=positive_int, default=None, metavar="N",
                   help="unigram: the longest piece in characters (default 16)")
    p.add_argument("--byte-fallback", action="store_true", default=None,
                   help="unigram: add the 256 byte pieces so that no text is unknown")
    p.add_argument("--split-digits", action="store_true", default=None, help="unigram: every digit is a piece of its own")
    p.add_argument("--normalization", default=None, metavar="MODEL",
                   help="unigram: a sentencepiece .model whose normalizer (e.g. nmt_nfkc) the corpus and the "
                        "result use (default: identity)")
    p.add_argument("--verbose", action="store_true", help="bpe: print every merge")
    p.add_argument("--show", default=None, metavar="TEXT", help="sentence to tokenize in the summary")
    p.set_defaults(func=run)


def _corpus_arg(args):
    if args.sample and args.files:
        raise CliError("give FILES or --sample, not both")
    if args.sample:
        return [str(sample_path())]
    if not args.files:
        raise CliError("no training files: give FILES, or --sample to train on the bundled sample text")
    return list(args.files)


def _base(name: str | None) -> Encoding | None:
    if name is None:
        return None
    if Path(name).exists():
        base = load(name)
        if not isinstance(base, Encoding):
            raise CliError(f"--base {name}: a byte-level BPE file is needed, not a {type(base).__name__}")
        return base
    return get_encoding(name)


def _options(args, trainer) -> dict:
    """The trainer's keyword arguments from the command line; options it does not take are errors."""
    given = {
        "pattern": args.pattern,
        "base": args.base,
        "engine": None if args.engine == "local" else args.engine,
        "unit_bytes": args.unit_bytes,
        "user_defined_symbols": None if args.user_defined is None else tuple(args.user_defined),
        "character_coverage": args.character_coverage,
        "max_piece_length": args.max_piece_length,
        "byte_fallback": args.byte_fallback,
        "split_digits": args.split_digits,
        "normalization": args.normalization,
    }
    for opt, value in given.items():
        if value is not None and opt not in trainer.options:
            raise CliError(f"--{opt.replace('_', '-')} does not apply to --model {trainer.name}")
    kw: dict = {"min_frequency": args.min_frequency}
    if args.special is not None:
        kw["special_tokens"] = tuple(args.special)
    if args.pattern is not None:
        kw["pattern"] = args.pattern
    if args.base is not None:
        kw["base"] = _base(args.base)
    kw.update({k: v for k, v in given.items() if v is not None and k not in ("pattern", "base")})
    quiet = bool(getattr(args, "quiet", False))
    wanted = {"num_threads": args.threads, "progress": not quiet, "verbose": args.verbose, "text_field": args.text_field,
              "errors": args.errors, "name": Path(args.output).stem}
    kw.update({k: v for k, v in wanted.items() if k in trainer.options})
    return kw


def run(args) -> int:
    """Runs ``tokenmill train``; returns the exit status."""
    trainer = TRAINERS[args.model]
    if args.vocab_size is None and trainer.needs_vocab_size:
        raise CliError(f"--vocab-size N is required for --model {args.model}")
    corpus = _corpus_arg(args)
    out = Path(args.output)
    if args.format != "tokenmill" and args.format not in trainer.export_formats:
        raise CliError(f"--format {args.format} is for --model "
                       + " or ".join(t.name for t in TRAINERS.values() if args.format in t.export_formats)
                       + f"; {args.model} tokenizers are written in tokenmill's format")
    if not out.parent.exists():
        raise CliError(f"-o {out}: directory {out.parent} does not exist")
    # Checked before training, so that a long run never ends in an unwritable output.
    if args.format == "gpt2":
        if out.exists() and not out.is_dir():
            raise CliError(f"-o {out}: with --format gpt2, -o is a directory (for encoder.json and vocab.bpe), and this is a file")
    elif out.is_dir():
        raise CliError(f"-o {out} is a directory; give a file name")
    if args.format == "tiktoken" and out.suffix == ".json":
        raise CliError(f"-o {out}: with --format tiktoken, -o is the rank file; give it another suffix, e.g. "
                       f"{out.with_suffix('.tiktoken').name} (the pattern and special tokens go to {out.name})")
    options = _options(args, trainer)
    t0 = time.monotonic()
    tok = trainer.train(corpus, args.vocab_size, **options)
    seconds = time.monotonic() - t0

    # Written only now, atomically: an interrupted run leaves no file behind.
    written = tok.export(args.format, out)
    if getattr(args, "quiet", False):
        return 0

    w = sys.stdout.write
    w(f"Trained a {args.model} tokenizer in {human_seconds(seconds)}: {tok.vocab_size:,} tokens\n")
    info = tok.training
    if info.get("bytes_per_token"):
        w(f"Training text: {human_bytes(info['text_bytes'])} in {info['documents']:,} documents -> "
          f"{info['tokens']:,} tokens, {info['bytes_per_token']:.3f} bytes per token (compression ratio)\n")
    merges = trainer.merges(tok, 10)
    if merges:
        w("Ten sample merges (id  left + right -> token):\n"
          + "\n".join(f"  {i:>7}  {a} + {b} -> {t}" if a else f"  {i:>7}  {t}" for i, a, b, t in merges) + "\n")
    show = args.show
    if show is None and args.sample:
        show = _SAMPLE_SENTENCE
    if show:
        ids = tok.encode(show)
        pieces = "|" + "|".join(escape_piece(tok.token_bytes(i), plain=True) for i in ids) + "|"
        w(f"Sample: {show!r}\n  {pieces}\n  ids: {' '.join(map(str, ids))} ({len(ids)} tokens)\n")
    w("Wrote " + ", ".join(str(p) for p in written) + "\n")
    return 0
