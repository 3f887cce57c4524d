"""``tokenmill compare``: tokens, characters per token and bytes per token of files (or the
bundled samples) under several tokenizers.

    tokenmill compare FILES... [--encodings a,b,c] [--json | --csv] [--errors replace] [--max-bytes N]
    tokenmill compare --samples [--encodings a,b,c]

A table by default; ``--json`` writes a list of rows (`tokenmill.analysis.compare.compare`),
``--csv`` the same rows as CSV. Files are streamed (any size, bounded memory); binary files
are an error naming the byte. ``-`` reads stdin once, into memory (every tokenizer counts
the same text; at most ``--max-bytes``), as for a pipe given as a file (``<(cmd)``).
``--list-samples`` lists the bundled samples with their sources and licences. The work is
`tokenmill.analysis.compare`; this module parses and prints.
"""

from __future__ import annotations

import json
import os

from ..viz.defaults import DEFAULT_ENCODINGS, MAX_BYTES
from ._common import STDIN, CliError, Source, hint_tty_stdin, positive_int, write

__all__ = ["add_parser", "run"]


def add_parser(sub, common) -> None:
    """Adds the ``compare`` subcommand to the CLI's subparsers."""
    p = sub.add_parser(
        "compare", parents=[common], help="compare token counts of files or bundled samples across tokenizers",
        description="Count tokens, characters per token and bytes per token of each file under each tokenizer. "
                    "--samples adds the bundled samples: one passage in ten languages, Python code with and "
                    "without deep indentation, numbers, the same data as JSON and YAML, a text with <|endoftext|>.",
    )
    p.add_argument("files", nargs="*", metavar="FILES", help="UTF-8 text files (gzip is read decompressed; '-' is stdin)")
    p.add_argument("-e", "--encodings", "--tokenizer", "--encoding", dest="encodings", default=",".join(DEFAULT_ENCODINGS),
                   metavar="NAMES", help=f"comma-separated standard encoding names or tokenizer files "
                                         f"(default {','.join(DEFAULT_ENCODINGS)})")
    p.add_argument("--samples", action="store_true", help="compare the bundled samples (after any FILES)")
    p.add_argument("--list-samples", action="store_true", help="list the bundled samples with source and licence, and exit")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="write the rows as JSON")
    fmt.add_argument("--csv", action="store_true", help="write the rows as CSV")
    p.add_argument("--errors", choices=("strict", "replace"), default="strict",
                   help="files that are not UTF-8 text: fail naming the byte (strict, default) or substitute U+FFFD")
    p.add_argument("--max-bytes", type=positive_int, default=MAX_BYTES, metavar="N",
                   help=f"stdin and pipes are read into memory (every tokenizer counts the same text): refuse more "
                        f"than N bytes (default {MAX_BYTES:,}); files are streamed, any size")
    p.set_defaults(func=run)


def _list_samples(args) -> int:
    from ..analysis.samples import samples

    rows = samples()
    if args.json:
        write(json.dumps([s._asdict() for s in rows], indent=2, ensure_ascii=False) + "\n")
        return 0
    width = max(len(s.name) for s in rows)
    for s in rows:
        write(f"{s.name:<{width}}  {s.description}\n{'':<{width}}  source: {s.source}\n{'':<{width}}  licence: {s.license}\n")
    return 0


def _stdin(args) -> tuple[str, str]:
    from ..viz.show import read_text_file

    hint_tty_stdin(args, [Source(STDIN)])
    return "<stdin>", read_text_file(STDIN, errors=args.errors, max_bytes=args.max_bytes)


def run(args) -> int:
    # The analysis loads when the command runs: `tokenmill` starts without it.
    from ..analysis.compare import compare, table, to_csv
    from ..analysis.samples import samples

    if args.list_samples:
        return _list_samples(args)
    if args.files.count(STDIN) > 1:
        raise CliError("'-' (stdin) is given twice: stdin can be read once")
    for f in args.files:  # every missing input named before any counting
        if f != STDIN and (os.path.isdir(f) or not os.path.exists(f)):
            raise CliError(f"{f}: {'is a directory, not a text file' if os.path.isdir(f) else 'no such file'}")
    inputs: list = [_stdin(args) if f == STDIN else f for f in args.files]
    if args.samples:
        inputs.extend(samples())
    if not inputs:
        raise CliError("nothing to compare: give FILES, or --samples for the bundled samples (see --list-samples)")
    rows = compare(inputs, args.encodings, errors=args.errors, max_bytes=args.max_bytes)
    if args.json:
        write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    elif args.csv:
        write(to_csv(rows))
    else:
        write(table(rows) + "\n")
    return 0
