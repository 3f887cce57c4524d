"""``tokenmill show``: a text as coloured tokens under one or more tokenizers.

    tokenmill show TEXT | --file F [--tokenizer a,b] [--ids] [--special] [--no-color]
                   [--errors strict|replace] [--max-bytes N]

For each tokenizer (default cl100k_base), a header with the counts (tokens, characters and
bytes per token), then the tokens: alternating background colours on a terminal, ``|``
separators otherwise (a pipe, ``--no-color``, the ``NO_COLOR`` variable). The text comes
from TEXT, ``--file`` or stdin (no TEXT and no file, or ``-``). The work is
`tokenmill.viz.show`; this module parses arguments and prints.
"""

from __future__ import annotations

import os

from ..viz.defaults import DEFAULT_TOKENIZER, MAX_BYTES
from ._common import STDIN, CliError, Source, hint_tty_stdin, positive_int, write

__all__ = ["add_parser", "run"]


def add_parser(sub, common) -> None:
    """Adds the ``show`` subcommand to the CLI's subparsers."""
    p = sub.add_parser(
        "show", parents=[common], help="show a text's tokens, coloured, under one or more tokenizers",
        description="Show how tokenizers cut a text: per tokenizer, the counts and the text as coloured tokens "
                    "(whitespace and control characters visible; '|' between tokens when not on a terminal).",
    )
    p.add_argument("text", nargs="?", metavar="TEXT", help="the text ('-' or nothing: read stdin)")
    p.add_argument("-f", "--file", metavar="FILE", help="read the text from FILE ('-' is stdin)")
    p.add_argument("-e", "--tokenizer", "--encoding", dest="tokenizer", default=DEFAULT_TOKENIZER, metavar="NAMES",
                   help="comma-separated standard encoding names or tokenizer files (default cl100k_base)")
    p.add_argument("--ids", action="store_true", help="print the token ids too")
    p.add_argument("--special", action="store_true",
                   help="encode special-token text (<|endoftext|>) as special tokens; by default it is ordinary text")
    p.add_argument("--no-color", dest="color", action="store_const", const="never", default="auto",
                   help="no colours: '|' between tokens (also when NO_COLOR is set or stdout is not a terminal)")
    p.add_argument("--color", dest="color", choices=("auto", "always", "never"), default="auto",
                   help="colour tokens: auto (default: on a terminal without NO_COLOR), always, never")
    p.add_argument("--errors", choices=("strict", "replace"), default="strict",
                   help="input that is not UTF-8 text: fail naming the byte (strict, default) or substitute U+FFFD")
    p.add_argument("--max-bytes", type=positive_int, default=MAX_BYTES, metavar="N",
                   help=f"refuse inputs larger than N bytes (default {MAX_BYTES:,}); use 'tokenmill count' for big files")
    p.set_defaults(func=run)


def _text(args) -> str:
    from ..viz.show import decode_text, read_text_file

    if args.text is not None and args.file is not None:
        raise CliError("give TEXT or --file, not both")
    if args.file is None and args.text not in (None, STDIN):
        # Python decodes argv with surrogateescape: bytes that are not UTF-8 come back as
        # lone surrogates. Back to the bytes, so TEXT obeys --errors like a file does.
        return decode_text(os.fsencode(args.text), "TEXT", args.errors)
    path = args.file if args.file is not None else STDIN
    if path == STDIN:
        hint_tty_stdin(args, [Source(STDIN)])
    return read_text_file(path, errors=args.errors, max_bytes=args.max_bytes)


def run(args) -> int:
    # The viewer loads when the command runs: `tokenmill` starts without it.
    from ..viz.show import render_all, resolve_all, use_color

    toks = resolve_all(args.tokenizer)  # every name checked before reading stdin
    text = _text(args)
    out = render_all(toks, text, color=use_color(args.color), ids=args.ids, parse_special=args.special)
    write(out + "\n")
    return 0
