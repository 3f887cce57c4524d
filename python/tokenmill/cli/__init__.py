"""The ``tokenmill`` command line: `main` and the top-level parser.

Commands (``tokenmill COMMAND --help`` for all options): ``encode``, ``decode``, ``count``,
``encodings``, ``demo`` (`cli.tokens`), ``train`` (`cli.train`), ``verify`` (`cli.verify`) and
``prepare`` (`cli.prepare`); `cli._common` holds the
shared pieces. Each subcommand asks the tokenizer (or the trainer table) what it can do
instead of branching on its family. Every user error is one line ``tokenmill: error: ...`` on
stderr and exit status 2; never a traceback. Nothing is downloaded.

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
from . import compare, inspect, plot, prepare, serve, show, tokens, train, verify
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
    verify.add_parser(sub, common)
    prepare.add_parser(sub, common)
    for viewer in (show, serve, compare, plot, inspect):
        viewer.add_parser(sub, common)
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
            raise CliError("missing command: choose one of encode, decode, count, encodings, demo, train, verify, prepare, show, serve, compare, plot, inspect (see 'tokenmill --help')")
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
    except (OSError, ValueError, AttributeError):  # AttributeError: stdout closed at start (None)
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

