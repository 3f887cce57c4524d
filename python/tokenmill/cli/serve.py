"""``tokenmill serve [--port N] [--tokenizer PATH ...] [--no-browser]``: the token viewer
as a local web page (`tokenmill.viz.server`).

Prints ``http://127.0.0.1:PORT/`` on stdout, opens it in the default browser unless
``--no-browser`` (no browser is not an error), and serves until Ctrl-C (exit status 0). The
page offers the standard encodings plus every ``--tokenizer`` file; a file that does not
exist, or a port in use, is a one-line error with exit status 2. What it does not do: listen
on anything but 127.0.0.1, or let the page read other files.
"""

from __future__ import annotations

import argparse

from ..viz.defaults import DEFAULT_PORT, MAX_BODY
from ._common import positive_int

__all__ = ["add_parser", "run"]


def _port(s: str) -> int:
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r} is not a port number") from None
    if not 0 <= v <= 65535:
        raise argparse.ArgumentTypeError(f"must be from 0 to 65535 (0: a free port), not {v}")
    return v


def add_parser(sub, common) -> None:
    """Adds the ``serve`` subcommand to the CLI's subparsers."""
    p = sub.add_parser(
        "serve", parents=[common], help="see tokens in a local web page (type text, compare tokenizers)",
        description="Serve the token viewer on http://127.0.0.1:PORT/ (this machine only): type or paste text and "
                    "see its tokens, ids, counts and compression under several tokenizers side by side. "
                    "Stop with Ctrl-C.",
    )
    p.add_argument("--port", type=_port, default=DEFAULT_PORT, metavar="N",
                   help=f"port to listen on (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--tokenizer", action="extend", nargs="+", default=[], metavar="PATH",
                   help="a tokenizer file to offer beside the standard encodings (any file tokenmill.load reads; "
                        "repeat for more); given ones are preselected")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser, only print the URL")
    p.add_argument("--max-body", type=positive_int, default=MAX_BODY, metavar="BYTES",
                   help=f"largest request (text) the page may send, in bytes (default {MAX_BODY:,})")
    p.add_argument("--verbose", action="store_true", help="log every request on stderr")
    p.set_defaults(func=run)


def run(args) -> int:
    """Serves until Ctrl-C; returns 0."""
    # The web server loads when the command runs: `tokenmill` starts without http.server.
    from ..viz.server import serve

    serve(args.tokenizer, port=args.port, open_browser=not args.no_browser, max_body=args.max_body,
          verbose=args.verbose, quiet=args.quiet)
    return 0
