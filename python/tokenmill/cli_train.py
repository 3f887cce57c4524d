"""`tokenmill train`: train a tokenizer from files (or the bundled sample) on the command line.

Reads the corpus as a stream (`tokenmill.corpus`), trains one of the model families
(byte-level BPE, classic BPE with ``</w>``, word-level, char-level), writes the result
atomically (so Ctrl-C leaves no half-written file) and prints a summary: time, vocabulary
size, bytes per token on the training text, ten sample merges and how a sample sentence is
tokenized. Progress bars go to stderr; ``--quiet`` silences them and the summary.

It does not implement training (see `tokenmill.train` and `tokenmill.models`).
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib import resources
from pathlib import Path

from ._progress import human_bytes, human_seconds

__all__ = ["add_parser", "sample_path"]

MODELS = ("bpe", "classic-bpe", "word", "char")


def sample_path() -> Path:
    """Path of the bundled sample text (Edith Wharton's "The Verdict", public domain).

    >>> sample_path().name
    'the-verdict.txt'
    """
    return Path(str(resources.files("tokenmill") / "data" / "the-verdict.txt"))


def add_parser(sub, common, positive_int) -> None:
    """Adds the ``train`` subcommand to the CLI's subparsers."""
    p = sub.add_parser(
        "train", parents=[common], help="train a tokenizer on text files",
        description="Train a tokenizer on FILES (.txt, .txt.gz, .jsonl, .parquet) or on the bundled sample "
                    "text (--sample), write it to -o, and show a summary.",
    )
    p.add_argument("files", nargs="*", metavar="FILES", help="training files")
    p.add_argument("--sample", action="store_true", help="train on the bundled sample text (The Verdict, 20 KB)")
    p.add_argument("--vocab-size", type=positive_int, required=True, metavar="N", help="vocabulary size, special tokens included")
    p.add_argument("--model", choices=MODELS, default="bpe",
                   help="bpe: byte-level BPE as in GPT-2/GPT-4 (default); classic-bpe: BPE with an end-of-word "
                        "marker; word: word-level; char: character-level")
    p.add_argument("--pattern", default=None, metavar="NAME|REGEX",
                   help="pre-tokenizer: gpt2/r50k, cl100k (default for bpe), o200k or a regex; for word and "
                        "classic-bpe, the regex that splits words")
    p.add_argument("--special", action="append", default=None, metavar="TOKEN",
                   help="add a special token (repeatable), e.g. --special '<|endoftext|>'")
    p.add_argument("--min-frequency", type=int, default=1, metavar="N", help="merge or keep only items seen N times (default 1)")
    p.add_argument("--base", default=None, metavar="ENCODING|FILE",
                   help="bpe: continue training from a standard encoding name or a tokenmill file")
    p.add_argument("--threads", type=positive_int, default=None, metavar="N", help="threads (default: all cores)")
    p.add_argument("--text-field", default="text", metavar="NAME", help="the text field of jsonl/parquet rows (default text)")
    p.add_argument("--errors", choices=("strict", "replace"), default="strict",
                   help="invalid UTF-8: fail naming file and byte (strict, default) or substitute U+FFFD")
    p.add_argument("-o", "--output", required=True, metavar="PATH", help="where to write the tokenizer")
    p.add_argument("--format", choices=("tokenmill", "tiktoken", "hf", "gpt2"), default="tokenmill",
                   help="bpe output format: tokenmill JSON (default), tiktoken rank file (+ .json), HF tokenizer.json, "
                        "or GPT-2 encoder.json + vocab.bpe (-o is then a directory)")
    p.add_argument("--verbose", action="store_true", help="bpe: print every merge")
    p.add_argument("--show", default=None, metavar="TEXT", help="sentence to tokenize in the summary")
    p.set_defaults(func=run)


def _corpus_arg(args):
    from .cli import CliError

    if args.sample and args.files:
        raise CliError("give FILES or --sample, not both")
    if args.sample:
        return [str(sample_path())]
    if not args.files:
        raise CliError("no training files: give FILES, or --sample to train on the bundled sample text")
    return list(args.files)


def _base(name: str | None):
    if name is None:
        return None
    import tokenmill

    if Path(name).exists():
        base = tokenmill.load(name)
        if not isinstance(base, tokenmill.Encoding):
            from .cli import CliError

            raise CliError(f"--base {name}: a byte-level BPE file is needed, not a {type(base).__name__}")
        return base
    return tokenmill.get_encoding(name)


def _token_text(b: bytes) -> str:
    return repr(b.decode("utf-8", "backslashreplace"))


def _sample_merges(enc, n: int = 10) -> list[str]:
    """`n` merges spread over the vocabulary, as ``'a' + 'b' -> 'ab'``."""
    from .formats.exports import _canonical_split

    ranks = enc._mergeable_ranks
    multi = sorted((r, t) for t, r in ranks.items() if len(t) > 1)
    if not multi:
        return []
    picks = sorted({multi[(len(multi) - 1) * k // max(n - 1, 1)] for k in range(min(n, len(multi)))})
    out = []
    for r, t in picks:
        split = _canonical_split(t, r, ranks)
        left = f"{_token_text(split[0])} + {_token_text(split[1])} -> " if split else ""
        out.append(f"  {r:>7}  {left}{_token_text(t)}")
    return out


def run(args) -> int:
    """Runs ``tokenmill train``; returns the exit status."""
    import tokenmill
    from .cli import CliError, _escape_piece
    from .corpus import Corpus

    corpus = _corpus_arg(args)
    out = Path(args.output)
    if args.format != "tokenmill" and args.model != "bpe":
        raise CliError(f"--format {args.format} is for --model bpe; {args.model} tokenizers are written in tokenmill's format")
    if args.base and args.model != "bpe":
        raise CliError("--base is for --model bpe")
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
    quiet = bool(getattr(args, "quiet", False))
    t0 = time.monotonic()
    if args.model == "bpe":
        kw = {} if args.pattern is None else {"pattern": args.pattern}
        tok = tokenmill.train_bpe(
            corpus, args.vocab_size, special_tokens=tuple(args.special or ()), min_frequency=args.min_frequency,
            num_threads=args.threads, progress=not quiet, base=_base(args.base), verbose=args.verbose,
            text_field=args.text_field, errors=args.errors, name=out.stem, **kw,
        )
    else:
        cls = {"classic-bpe": tokenmill.ClassicBPE, "word": tokenmill.WordLevel, "char": tokenmill.CharLevel}[args.model]
        kw = {}
        if args.special is not None:
            kw["special_tokens"] = tuple(args.special)
        if args.pattern is not None:
            if args.model == "char":
                raise CliError("--pattern does not apply to --model char")
            kw["pattern"] = args.pattern
        src = Corpus.from_arg(corpus, text_field=args.text_field, errors=args.errors, cuttable=False)
        tok = cls.train(src.documents(), args.vocab_size, min_frequency=args.min_frequency, **kw)
    seconds = time.monotonic() - t0

    # Written only now, atomically: an interrupted run leaves no file behind.
    written = [out]
    if args.format == "tokenmill":
        tok.save(out)
    else:
        written = tok.export(args.format, out)
    if quiet:
        return 0

    w = sys.stdout.write
    size = tok.n_vocab if args.model == "bpe" else tok.vocab_size
    w(f"Trained a {args.model} tokenizer in {human_seconds(seconds)}: {size:,} tokens\n")
    show = args.show
    if args.model == "bpe":
        info = tok.training_info or {}
        if info.get("bytes_per_token"):
            w(f"Training text: {human_bytes(info['text_bytes'])} in {info['documents']:,} documents -> "
              f"{info['tokens']:,} tokens, {info['bytes_per_token']:.3f} bytes per token (compression ratio)\n")
        merges = _sample_merges(tok)
        if merges:
            w("Ten sample merges (id  left + right -> token):\n" + "\n".join(merges) + "\n")
    elif args.model == "classic-bpe" and tok.merges:
        m = tok.merges
        picks = sorted({(len(m) - 1) * k // 9 for k in range(min(10, len(m)))})
        w("Ten sample merges (rank  left + right):\n" + "\n".join(f"  {i:>7}  {m[i][0]!r} + {m[i][1]!r}" for i in picks) + "\n")
    if show is None:
        show = "It had always been a surprise to me that he should have given up painting." if args.sample else None
    if show:
        ids = tok.encode(show)
        if args.model == "bpe":
            pieces = "|" + "|".join(_escape_piece(p, plain=True) for p in tok.decode_tokens_bytes(ids)) + "|"
        else:
            pieces = "|" + "|".join(tok.id_to_token(i) for i in ids) + "|"
        w(f"Sample: {show!r}\n  {pieces}\n  ids: {' '.join(map(str, ids))} ({len(ids)} tokens)\n")
    w("Wrote " + ", ".join(str(p) for p in written) + "\n")
    return 0
