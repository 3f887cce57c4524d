"""The ``tokenmill`` command line: encode, decode and count tokens, list encodings, show a demo.

Commands (run ``tokenmill COMMAND --help`` for all options)::

    tokenmill encode [FILES...] [--encoding NAME] [--text TEXT] [--json]
                     [--allowed-special all|TOKEN ...] [--ordinary] [--errors strict|replace]
    tokenmill decode [FILES...] [--encoding NAME] [--json]
    tokenmill count  [FILES...] [--encoding NAME] [--text TEXT] [--json] [...]
    tokenmill encodings [--json]
    tokenmill demo [--encoding NAME] [--text TEXT] [--color auto|always|never]
    tokenmill train [FILES...] --vocab-size N -o PATH [--model bpe|classic-bpe|word|char] [...]

What it does:

* Reads FILES (``-`` is stdin; no FILES and no ``--text`` means stdin) as UTF-8 and writes
  ids space-separated, one line per input, or JSON with ``--json``. ``decode`` accepts
  whitespace-separated ids or a JSON list and writes the decoded bytes unchanged, so
  ``encode`` then ``decode`` reproduces a file byte for byte.
* Streams large inputs in bounded memory: text is read in chunks (1 MiB by default) and cut
  only at points where cutting provably does not change the ids (see
  `tokenmill.data.chunks.safe_cut`), so the output is identical to encoding the whole input.
* Every user error (unknown encoding, bad id, invalid UTF-8, unreadable file, disallowed
  special token, bad arguments) is one line ``tokenmill: error: ...`` on stderr and exit
  status 2; never a traceback.

Layout: this module holds `main` and the top-level parser; `cli._common` the shared pieces;
`cli.tokens` the token commands; `cli.train` ``tokenmill train``. Each subcommand asks the
tokenizer (or the trainer table) what it can do instead of branching on its family.

What it does not do: download anything (the standard encodings ship with the package) or load
custom rank files. Memory stays bounded only when the input has safe cut
points at least every chunk (ordinary prose, code and CJK text with line breaks do); an input
with none, such as a megabyte of whitespace, is encoded in one piece.

>>> main(["count", "--text", "hello world"])
2
0
>>> main(["encode", "--encoding", "gpt2", "--text", "hello world"])
31373 995
0
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from typing import Sequence

from .._version import __version__
from ..errors import TokenmillError
from . import tokens, train
from ._common import ArgumentParser, CliError

__all__ = ["main", "CliError"]

_EXIT_USAGE = 2


def _build_parser() -> argparse.ArgumentParser:
    common = ArgumentParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                        help="suppress non-essential output (headers, notes, hints)")
    parser = ArgumentParser(prog="tokenmill", description="Exact, fast tiktoken-compatible tokenizers.")
    parser.add_argument("--version", action="version", version=f"tokenmill {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true", help="suppress non-essential output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    tokens.add_parsers(sub, common)
    train.add_parser(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line with `argv` (default ``sys.argv[1:]``); returns the exit status.

    0 on success, 2 on any user error (one line ``tokenmill: error: ...`` on stderr).
    """
    parser = _build_parser()
    try:
        try:
            args = parser.parse_args(None if argv is None else list(argv))
        except SystemExit as e:  # --help / --version
            return e.code if isinstance(e.code, int) else 0
        if not getattr(args, "command", None):
            raise CliError("missing command: choose one of encode, decode, count, encodings, demo, train (see 'tokenmill --help')")
        return args.func(args)
    except CliError as e:
        return _fail(str(e))
    except (TokenmillError, ValueError) as e:
        return _fail(str(e).strip().replace("\n", " "))
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except OSError as e:
        if e.filename is not None and e.strerror:
            return _fail(f"{e.filename}: {e.strerror}")
        return _fail(str(e))
    except KeyboardInterrupt:
        return 130


def _fail(message: str) -> int:
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    print(f"tokenmill: error: {message}", file=sys.stderr)
    return _EXIT_USAGE


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass

