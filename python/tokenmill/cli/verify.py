"""``tokenmill verify TOKENIZER --corpus FILES``: tokenmill's ids against the library that
defines the tokenizer's file (tiktoken or Hugging Face tokenizers), on the user's own texts.

Each non-empty line of the corpus files is one text (``--by-file``: each file is one). The
report: texts compared, equal, different, and the first difference (which text, at which
token, both id lists there). Exit status 0 when every text agrees, 1 when some differ, 2 on
a usage error. The comparison itself is `tokenmill.verify`; this module reads files and
prints.
"""

from __future__ import annotations

import gzip
import sys
import time

from .._args import plural
from .._progress import human_bytes
from ..formats import load
from ..verify import verify
from ._common import CliError, positive_int, write

__all__ = ["add_parser"]


def add_parser(sub, common) -> None:
    """Adds the ``verify`` subcommand to the CLI's subparsers."""
    p = sub.add_parser(
        "verify", parents=[common], help="check tokenmill's ids against tiktoken / HF tokenizers on your corpus",
        description="Encode the corpus with tokenmill and with the library that defines the tokenizer "
                    "(tiktoken for encodings, Hugging Face tokenizers for tokenizer.json and vocab.txt) and "
                    "report equal and different texts and the first difference.",
    )
    p.add_argument("tokenizer", metavar="NAME|PATH", help="a standard encoding name or any file tokenmill.load reads")
    p.add_argument("--corpus", nargs="+", required=True, metavar="FILE", help="UTF-8 text files (.txt or .gz)")
    p.add_argument("--by-file", action="store_true", help="each file is one text (default: each non-empty line)")
    p.add_argument("--limit", type=positive_int, default=None, metavar="N", help="compare at most N texts")
    p.set_defaults(func=run)


def _texts(paths: list[str], by_file: bool, limit: int | None) -> tuple[list[str], int]:
    texts: list[str] = []
    for path in paths:
        try:
            with (gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")) as f:
                data = f.read()
        except FileNotFoundError:
            raise CliError(f"{path}: no such file") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise CliError(f"{path}: not UTF-8 text (byte {e.start})") from None
        texts.extend([text] if by_file else [ln for ln in text.splitlines() if ln.strip()])
        if limit is not None and len(texts) >= limit:
            texts = texts[:limit]
            break
    return texts, sum(len(t.encode("utf-8", "surrogatepass")) for t in texts)


def run(args) -> int:
    quiet = getattr(args, "quiet", False)
    tok = load(args.tokenizer)
    texts, size = _texts(args.corpus, args.by_file, args.limit)
    t0 = time.perf_counter()

    def progress(done: int) -> None:
        if not quiet and sys.stderr.isatty():
            print(f"\r{done:,}/{len(texts):,} texts", end="", file=sys.stderr, flush=True)

    try:
        r = verify(tok, texts, progress=progress)
    except ImportError as e:
        raise CliError(f"the reference library is not installed ({e.name}): pip install tiktoken tokenizers") from None
    except TypeError as e:
        raise CliError(str(e)) from None
    if not quiet and sys.stderr.isatty():
        print(file=sys.stderr)
    write(f"{type(tok).__name__} vs {r.reference}: {plural(r.texts, 'text')} ({human_bytes(size)}, {r.tokens:,} tokens) in "
          f"{time.perf_counter() - t0:.1f} s: {r.equal:,} equal, {r.different:,} different\n")
    d = r.first_difference
    if d is not None:
        write(f"first difference: text {d['index']} at token {d['position']}: {d['text'][:200]!r}\n"
              f"  reference: ...{d['reference']}\n  tokenmill: ...{d['tokenmill']}\n")
    return 0 if r.ok else 1
