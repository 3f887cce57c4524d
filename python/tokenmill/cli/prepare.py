"""``tokenmill prepare INPUTS... --out DIR``: a corpus to shards of token ids (`tokenmill.data.prepare`).

Runs the same command again after an interruption to resume it; the output is byte-identical
to an uninterrupted run. Prints a summary line (documents, tokens, bytes per token, speed,
skipped and empty records) unless ``--quiet``; the progress bar goes to stderr.
"""

from __future__ import annotations

from ..data.prepare_shards import prepare
from ._common import positive_int

__all__ = ["add_parser"]


def add_parser(sub, common) -> None:
    """Adds the ``prepare`` subcommand to the CLI's subparsers."""
    p = sub.add_parser(
        "prepare", parents=[common], help="tokenize a corpus into shards of ids for pretraining",
        description="Tokenize INPUTS (.txt, .jsonl, .ndjson, each optionally .gz; .parquet) into shards of token ids in "
                    "--out (numpy .npy, uint16 when the vocabulary fits, else uint32), with an index.json. "
                    "Rerun the same command to resume an interrupted run.",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUTS", help="corpus files")
    p.add_argument("--tokenizer", default="gpt2", metavar="NAME|PATH",
                   help="a standard encoding name or any file tokenmill.load reads (default gpt2)")
    p.add_argument("--out", required=True, metavar="DIR", help="the shard directory")
    p.add_argument("--text-field", default="text", metavar="NAME", help="the text field of JSON lines or column of parquet files (default text)")
    p.add_argument("--by-line", action="store_true", help="plain text: one document per line (default: per file)")
    p.add_argument("--shard-tokens", type=positive_int, default=None, metavar="N",
                   help="end a shard at the first document end after N tokens (default 100,000,000)")
    p.add_argument("--num-workers", type=positive_int, default=None, metavar="N", help="encoding threads (default: all cores)")
    p.add_argument("--eot", choices=("append", "prepend", "none"), default="append",
                   help="end-of-text token after each document (append, default), before it, or none")
    p.add_argument("--eot-token", default=None, metavar="TOKEN", help="the end-of-text token (default: the tokenizer's)")
    p.add_argument("--format", choices=("npy", "megatron", "llmc"), default="npy",
                   help="shard layout: numpy .npy (default), Megatron-LM .bin + .idx, or llm.c .bin (uint16 only)")
    p.add_argument("--skip-bad", action="store_true", help="count and skip malformed records (bad JSON lines, missing or non-string text, null parquet rows) instead of failing")
    p.add_argument("--rank", type=int, default=0, metavar="R",
                   help="with --world-size: write only the work units u with u %% W == R (Slurm array jobs)")
    p.add_argument("--world-size", type=positive_int, default=1, metavar="W", help="number of ranks (default 1)")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="local (default) or ray: a Ray task per work unit (pip install 'tokenmill[ray]')")
    p.add_argument("--unit-bytes", type=positive_int, default=None, metavar="N",
                   help="group input files into work units of at least N bytes (default 1 GB)")
    p.add_argument("--overwrite", action="store_true", help="replace a directory holding another job's shards")
    p.set_defaults(func=run)


def run(args) -> int:
    prepare(args.inputs, args.out, tokenizer=args.tokenizer, text_field=args.text_field, by_line=args.by_line,
            shard_tokens=args.shard_tokens, num_workers=args.num_workers, eot=args.eot, eot_token=args.eot_token,
            format=args.format, skip_bad=args.skip_bad, overwrite=args.overwrite, rank=args.rank,
            world_size=args.world_size, engine=args.engine, unit_bytes=args.unit_bytes,
            quiet=getattr(args, "quiet", False))
    return 0
