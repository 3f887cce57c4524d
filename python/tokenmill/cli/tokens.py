"""The token commands: ``encode``, ``decode``, ``count``, ``encodings``, ``demo``.

Commands (run ``tokenmill COMMAND --help`` for all options)::

    tokenmill encode [FILES...] [--tokenizer NAME|PATH] [--text TEXT] [--json]
                     [--allowed-special all|TOKEN ...] [--ordinary] [--errors strict|replace]
    tokenmill decode [FILES...] [--tokenizer NAME|PATH] [--json]
    tokenmill count  [FILES...] [--tokenizer NAME|PATH] [--text TEXT] [--json] [...]
    tokenmill encodings [--json]
    tokenmill demo [--tokenizer NAME|PATH] [--text TEXT] [--color auto|always|never]

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

`--tokenizer` takes a standard encoding name or any file `tokenmill.load` reads (the string
models included: special-token text is an error on the command line for every family unless
``--allowed-special`` allows it). What it does not do: download anything. Memory stays bounded only when the input has safe cut
points at least every chunk (ordinary prose, code and CJK text with line breaks do); an input
with none, such as a megabyte of whitespace, is encoded in one piece.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Callable, Iterator

from .._args import FILE_KINDS
from ..data.chunks import InvalidUtf8, cuttable_by, read_text
from ..errors import DisallowedSpecialTokenError, TokenIdError
from ..formats import load
from ..registry import get_encoding, list_encoding_names
from ..tokenizer import Tokenizer
from ..viz.render import render_color, render_plain
from ._common import CHUNK_SIZE, STDIN, CliError, Source, hint_tty_stdin, positive_int, preview, sources, write, write_bytes

__all__ = ["add_parsers", "SAMPLE_TEXT"]

SAMPLE_TEXT = (
    "Tokenizers turn text into integers; \"hello world\" is 2 tokens.\n"
    "def add(a, b):\n"
    "    return a + b  # code keeps its indentation\n"
    "Emoji 👍🏽 and flags 🇫🇷, accents: naïve café.\n"
    "中文分词，日本語のテキスト、한국어 문장.\n"
)

# Encodings shown by `demo` by default: the distinct vocabularies (gpt2 is r50k_base, and
# p50k_edit only adds special tokens to p50k_base).
_DEMO_ENCODINGS = ("r50k_base", "p50k_base", "cl100k_base", "o200k_base")


def _text_chunks(src: Source, errors: str, chunk_size: int, cuttable: bool) -> Iterator[str]:
    """The text of `src` in pieces whose encodings concatenate to the whole text's encoding.

    Pieces are cut with `safe_cut` when `cuttable`; otherwise the whole input is one piece.
    Invalid UTF-8 raises `CliError` naming the input and the byte offset.
    """
    if src.text is not None:
        yield src.text
        return
    f = src.open()
    try:
        for piece, _ in read_text(f.read, errors, chunk_size, "safe" if cuttable else None):
            yield piece
    except InvalidUtf8 as e:
        raise CliError(
            f"{src.label}: invalid UTF-8 at byte {e.offset} ({e.reason}: {e.bad.hex(' ')}); "
            "pass --errors replace to substitute U+FFFD"
        ) from None
    finally:
        src.close(f)


def _special_args(tok: Tokenizer, label: str, args) -> dict:
    """Keyword arguments for `encode`/`count` from --allowed-special / --ordinary. They are
    always explicit: on the command line special-token text is an error unless allowed, for
    every family (the Python defaults differ by family)."""
    allowed = args.allowed_special
    if args.ordinary:
        if allowed:
            raise CliError("--ordinary and --allowed-special cannot be combined")
        return {"disallowed_special": ()}
    if not allowed:
        return {"allowed_special": frozenset(), "disallowed_special": "all"}
    if "all" in allowed:
        return {"allowed_special": "all", "disallowed_special": ()}
    specials = tok.special_tokens
    known = set(specials)
    for tok in allowed:
        if tok not in known:
            raise CliError(
                f"{tok!r} is not a special token of {label} (its special tokens: "
                f"{preview(sorted(known, key=specials.get))}). --allowed-special takes one or more values, "
                "so put input FILES before it or use '--' to end it"
            )
    return {"allowed_special": frozenset(allowed), "disallowed_special": "all"}


def _tokenizer(name_or_path: str) -> Tokenizer:
    """The tokenizer named by --tokenizer: a standard encoding or a file, read by content."""
    if name_or_path in list_encoding_names():
        return get_encoding(name_or_path)
    if not os.path.exists(name_or_path):
        raise CliError(
            f"{name_or_path!r} is neither a standard encoding ({', '.join(list_encoding_names())}) nor a file; "
            f"give a name or the path of a tokenizer file ({FILE_KINDS})"
        )
    return load(name_or_path)


def _disallowed_error(src: Source, e: DisallowedSpecialTokenError, byte_base: int) -> CliError:
    at = f" at byte {byte_base + e.position}" if e.position is not None else ""
    return CliError(
        f"{src.label}: text contains the special token {e.token!r}{at}, which is disallowed by default; "
        f"pass --allowed-special '{e.token}' (or all) to encode it as a special token, "
        "or --ordinary to encode it as plain text"
    )


def _iter_encoded(tok: Tokenizer, src: Source, args, fn: Callable[[str], object]) -> Iterator[object]:
    """Applies `fn` (encode or count) to each streamed piece of `src`."""
    byte_base = 0
    # A tokenizer that adds tokens around each text ([CLS] ... [SEP], a BOS) sees each input
    # whole: cutting it into chunks would add them per chunk.
    whole = getattr(tok, "num_special_tokens_to_add", lambda: 0)() > 0
    for chunk in _text_chunks(src, args.errors, args.chunk_size, not whole and cuttable_by(tok.pretokenizer, tok.special_tokens)):
        try:
            yield fn(chunk)
        except DisallowedSpecialTokenError as e:
            raise _disallowed_error(src, e, byte_base) from None
        byte_base += len(chunk.encode("utf-8", "surrogatepass"))


def _cmd_encode(args) -> int:
    tok = _tokenizer(args.tokenizer)
    special = _special_args(tok, args.tokenizer, args)
    srcs = sources(args)
    hint_tty_stdin(args, srcs)
    if args.ordinary:
        fn = tok.encode_ordinary
    else:
        def fn(t, _e=tok.encode, _kw=special):
            return _e(t, **_kw)

    multi_json = args.json and len(srcs) > 1
    if multi_json:
        write("{")
    for k, src in enumerate(srcs):
        if multi_json:
            write((", " if k else "") + json.dumps(src.name) + ": ")
        sep = ", " if args.json else " "
        if args.json:
            write("[")
        first = True
        for ids in _iter_encoded(tok, src, args, fn):
            if ids:
                write(("" if first else sep) + sep.join(map(str, ids)))
                first = False
        if args.json:
            write("]")
        if not multi_json:
            write("\n")
    if multi_json:
        write("}\n")
    return 0


_INT_RE = re.compile(rb"-?[0-9]+")


def _parse_ids(part: bytes, src: Source, position: int) -> list[int]:
    """Whitespace-separated integers; a clear error naming the first bad one."""
    tokens = part.split()
    if b"_" not in part and b"+" not in part:
        try:
            return [int(t) for t in tokens]
        except ValueError:
            pass
    for j, t in enumerate(tokens):
        if not _INT_RE.fullmatch(t):
            shown = t[:40].decode("utf-8", "replace")
            raise CliError(
                f"{src.label}: {shown!r} at position {position + j} is not a token id "
                "(expected whitespace-separated integers or a JSON list of integers)"
            )
    return [int(t) for t in tokens]  # pragma: no cover - every token matched


def _iter_ids(src: Source, chunk_size: int) -> Iterator[list[int]]:
    """Lists of ids read from `src`: whitespace-separated (streamed) or one JSON list."""
    f = src.open()
    try:
        data = f.read(chunk_size)
        head = data.lstrip()
        while not head and data:
            data = f.read(chunk_size)
            head = data.lstrip()
        if head[:1] in (b"[", b"{"):
            raw = head + f.read()
            try:
                value = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as e:
                raise CliError(f"{src.label}: not valid JSON: {e}") from None
            if not isinstance(value, list):
                raise CliError(f"{src.label}: expected a JSON list of token ids, got a JSON {type(value).__name__}")
            for j, v in enumerate(value):
                if not isinstance(v, int) or isinstance(v, bool):
                    raise CliError(f"{src.label}: element {j} of the JSON list is {json.dumps(v)[:40]}, not an integer token id")
            yield value
            return
        pending = b""
        position = 0
        while data:
            buf = pending + data
            # keep a possibly incomplete last number for the next read
            cut = len(buf)
            while cut > 0 and not buf[cut - 1 : cut].isspace():
                cut -= 1
            pending = buf[cut:]
            ids = _parse_ids(buf[:cut], src, position)
            position += len(ids)
            if ids:
                yield ids
            data = f.read(chunk_size)
        if pending:
            yield _parse_ids(pending, src, position)
    finally:
        src.close(f)


def _cmd_decode(args) -> int:
    tok = _tokenizer(args.tokenizer)
    srcs = sources(args)
    hint_tty_stdin(args, srcs)
    results = {}
    for src in srcs:
        pieces: list[bytes] = []
        position = 0
        for ids in _iter_ids(src, args.chunk_size):
            try:
                b = tok.decode_bytes(ids)
            except TokenIdError as e:
                pos = None if e.position is None else position + e.position
                raise CliError(f"{src.label}: {TokenIdError(e.id, pos, e.n_vocab)}") from None
            position += len(ids)
            if args.json:
                pieces.append(b)
            else:
                write_bytes(b)
        if args.json:
            results[src.name] = b"".join(pieces).decode("utf-8", "replace")
    if args.json:
        value = results[srcs[0].name] if len(srcs) == 1 else results
        write(json.dumps(value) + "\n")
    return 0


def _cmd_count(args) -> int:
    tok = _tokenizer(args.tokenizer)
    special = _special_args(tok, args.tokenizer, args)
    srcs = sources(args)
    hint_tty_stdin(args, srcs)

    def fn(t, _c=tok.count, _kw=special):
        return _c(t, **_kw)

    counts = {}
    total = 0
    for src in srcs:
        n = sum(_iter_encoded(tok, src, args, fn))  # type: ignore[arg-type]
        counts[src.name if src.text is None else "<text>"] = n
        total += n
        if not args.json:
            if len(srcs) == 1 and (src.text is not None or src.name == STDIN):
                write(f"{n}\n")
            else:
                write(f"{n}\t{src.label}\n")
    if args.json:
        write(json.dumps({"counts": counts, "total": total}) + "\n")
    elif len(srcs) > 1:
        write(f"{total}\ttotal\n")
    return 0


def _cmd_encodings(args) -> int:
    rows = []
    for name in list_encoding_names():
        enc = get_encoding(name)
        specials = dict(sorted(enc.special_tokens.items(), key=lambda kv: kv[1]))
        rows.append((name, enc.n_vocab, specials))
    if args.json:
        write(json.dumps([{"name": n, "n_vocab": v, "special_tokens": s} for n, v, s in rows], indent=2) + "\n")
        return 0
    width = max(len(n) for n, _, _ in rows)
    if not args.quiet:
        write(f"{'encoding':<{width}}  {'n_vocab':>7}  special tokens (id)\n")
    for n, v, s in rows:
        write(f"{n:<{width}}  {v:>7}  {preview([f'{t} ({i})' for t, i in s.items()])}\n")
    return 0


def _use_color(mode: str) -> bool:
    if mode == "always":
        return True
    if mode == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _cmd_demo(args) -> int:
    text = SAMPLE_TEXT if args.text is None else args.text
    names = [args.tokenizer] if args.tokenizer else list(_DEMO_ENCODINGS)
    toks = [(n, _tokenizer(n)) for n in names]  # resolve all names before printing anything
    color = _use_color(args.color)
    if not args.quiet:
        write("Text:\n" + "".join(f"  {line}\n" for line in text.splitlines()) if text else "Text: (empty)\n")
        how = "alternating background colours" if color else "'|' between tokens; \\n, \\t and partial UTF-8 bytes escaped"
        write(f"Token boundaries are shown with {how}.\n")
        others = [n for n in list_encoding_names() if n not in names]
        if not args.tokenizer and others:
            write(f"Also available: {', '.join(others)} (gpt2 is r50k_base; the others add special tokens "
                   "to an encoding shown); pick one with --tokenizer NAME|PATH.\n")
    summary = []
    for label, tok in toks:
        ids = tok.encode_ordinary(text)
        pieces = [tok.token_bytes(i) for i in ids]
        tokens_line = render_color(pieces) if color else render_plain(pieces)
        cpt = len(text) / len(ids) if ids else 0.0
        summary.append((label, len(ids), cpt))
        write(f"\n== {label} (n_vocab {tok.n_vocab}) ==\n")
        write(tokens_line + "\n")
        write(f"ids: {' '.join(map(str, ids))}\n")
        write(f"{len(ids)} tokens, {len(text)} characters, {cpt:.2f} characters/token\n")
    if len(summary) > 1 and not args.quiet:
        width = max(len(n) for n, _, _ in summary)
        write(f"\n{'encoding':<{width}}  tokens  chars/token\n")
        for n, k, c in summary:
            write(f"{n:<{width}}  {k:>6}  {c:>11.2f}\n")
    return 0


def add_parsers(sub, common) -> None:
    """Adds the token commands to the CLI's subparsers."""

    def enc_opt(p, default="cl100k_base"):
        p.add_argument("-e", "--tokenizer", "--encoding", dest="tokenizer", default=default, metavar="NAME|PATH",
                       help=f"a standard encoding ({', '.join(list_encoding_names())}) or any file tokenmill.load reads "
                            f"({FILE_KINDS})"
                            + (f"; default {default}" if default else ""))

    def input_opts(p, text=True):
        p.add_argument("files", nargs="*", metavar="FILES", help="input files ('-' is stdin; default: stdin)")
        if text:
            p.add_argument("-t", "--text", help="use TEXT as the input instead of files/stdin")
        p.add_argument("--json", action="store_true", help="write JSON")
        p.add_argument("--chunk-size", type=positive_int, default=CHUNK_SIZE, metavar="BYTES",
                       help=f"read size for streaming (default {CHUNK_SIZE})")

    def special_opts(p):
        p.add_argument("--allowed-special", nargs="+", action="extend", default=[], metavar="all|TOKEN",
                       help="encode these special tokens (or all) as special tokens; by default special-token "
                            "text is an error")
        p.add_argument("--ordinary", action="store_true", help="treat special-token text as ordinary text")
        p.add_argument("--errors", choices=("strict", "replace"), default="strict",
                       help="invalid UTF-8 input: fail (strict, default) or substitute U+FFFD (replace)")

    p = sub.add_parser("encode", parents=[common], help="text -> token ids",
                       description="Encode text to token ids: one line per input, or JSON.")
    input_opts(p)
    enc_opt(p)
    special_opts(p)
    p.set_defaults(func=_cmd_encode)

    p = sub.add_parser("decode", parents=[common], help="token ids -> text",
                       description="Decode token ids (whitespace-separated or a JSON list) to text.")
    input_opts(p, text=False)
    enc_opt(p)
    p.set_defaults(func=_cmd_decode)

    p = sub.add_parser("count", parents=[common], help="count tokens per input and in total",
                       description="Count tokens per input, plus a total for several inputs.")
    input_opts(p)
    enc_opt(p)
    special_opts(p)
    p.set_defaults(func=_cmd_count)

    p = sub.add_parser("encodings", parents=[common], help="list encodings",
                       description="List the encodings with n_vocab and special tokens.")
    p.add_argument("--json", action="store_true", help="write JSON")
    p.set_defaults(func=_cmd_encodings)

    p = sub.add_parser("demo", parents=[common], help="show how a sample text is tokenized",
                       description="Encode a built-in sample (English, code, emoji, CJK) with each standard "
                                   "encoding and show the tokens.")
    enc_opt(p, default=None)
    p.add_argument("-t", "--text", help="tokenize TEXT instead of the built-in sample")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour token boundaries (auto: when stdout is a terminal and NO_COLOR is unset)")
    p.set_defaults(func=_cmd_demo)
