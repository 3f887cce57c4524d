"""``tokenmill inspect``: a vocabulary's report, and its likely glitch tokens.

    tokenmill inspect TOKENIZER [--corpus FILES] [--embeddings FILE.npy] [--unused IDS]
                      [--json] [--top N] [--max-count N] [--threads N]

TOKENIZER is a standard encoding name or any file `tokenmill.load` reads. The report:
vocabulary size and special tokens, a histogram of token lengths, the longest tokens, the
round-trip categories of Land and Bartolo's "Fishing for Magikarp" (unreachable tokens,
partial and never-valid UTF-8), the tokens a reference corpus never produces ranked as
glitch-token candidates (the bundled corpus, or ``--corpus FILES``), and with
``--embeddings`` the paper's embedding indicator. ``--json`` prints
`tokenmill.analysis.inspect.inspect`'s dict instead; ``--top`` sets the length of every list.
Progress notes go to stderr (``--quiet`` silences them). The work is
`tokenmill.analysis.inspect`; this module parses arguments and prints.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from ._common import CliError, non_negative_int, note, positive_int, write

__all__ = ["add_parser", "run"]

_BAR = 40


def add_parser(sub, common) -> None:
    """Adds the ``inspect`` subcommand to the CLI's subparsers."""
    p = sub.add_parser(
        "inspect", parents=[common], help="report a vocabulary: lengths, unreachable tokens, glitch-token candidates",
        description="Report a tokenizer's vocabulary: size, special tokens, token lengths, the longest tokens, "
                    "tokens that encoding their own text does not give back (Land & Bartolo 2024), partial and "
                    "never-valid UTF-8 tokens, and glitch-token candidates: reachable tokens a reference corpus "
                    "never produces, ranked by how verbatim-repeated their merge chain looks. With --embeddings, "
                    "also the embedding indicator (cosine distance to the mean embedding of unused tokens).",
    )
    p.add_argument("tokenizer", metavar="TOKENIZER", help="a standard encoding name or any file tokenmill.load reads")
    p.add_argument("--corpus", nargs="+", metavar="FILE",
                   help="reference texts for the glitch candidates (UTF-8, plain or .gz; default: the bundled corpus)")
    p.add_argument("--embeddings", metavar="FILE.npy",
                   help="the model's (vocab, dim) input or output embedding matrix, saved with numpy.save")
    p.add_argument("--unused", metavar="IDS", type=_id_list,
                   help="ids of tokens known to be unused, the embedding indicator's reference (e.g. 177-187,50256)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--top", type=positive_int, default=20, metavar="N", help="tokens per list (default 20)")
    p.add_argument("--max-count", type=non_negative_int, default=0, metavar="N",
                   help="a token the corpus produces at most N times is a candidate (default 0)")
    p.add_argument("--threads", type=positive_int, default=None, metavar="N", help="threads for encoding (default: all cores)")
    p.set_defaults(func=run)


def _id_list(s: str) -> list[int]:
    """``"1,5-7"`` -> ``[1, 5, 6, 7]``."""
    out: list[int] = []
    for part in s.split(","):
        lo, _, hi = part.strip().partition("-")
        try:
            a = int(lo)
            b = int(hi) if hi else a
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes ids and ranges like 177-187,50256, not {s!r}") from None
        if a < 0 or b < a:
            raise argparse.ArgumentTypeError(f"{part.strip()!r} is not an id or an increasing range of ids")
        out.extend(range(a, b + 1))
    return out


def _check_paths(args) -> None:
    """Names every missing input before any work starts."""
    from ..viz.tokens import check_spec

    check_spec(args.tokenizer)
    for f in args.corpus or ():
        if os.path.isdir(f) or not os.path.exists(f):
            raise CliError(f"--corpus {f}: {'is a directory; give the text files in it' if os.path.isdir(f) else 'no such file'}")
    if args.embeddings is not None and not os.path.isfile(args.embeddings):
        what = "is a directory; give the .npy file" if os.path.isdir(args.embeddings) else "no such file"
        raise CliError(f"--embeddings {args.embeddings}: {what}")


def run(args) -> int:
    # The analysis loads when the command runs: `tokenmill` starts without it.
    from ..analysis.inspect import inspect

    _check_paths(args)
    report = inspect(args.tokenizer, args.corpus, args.embeddings, top=args.top, max_count=args.max_count,
                     unused_ids=args.unused, num_threads=args.threads, progress=lambda m: note(args, m))
    if args.json:
        write(json.dumps(report, ensure_ascii=False, indent=1) + "\n")
    else:
        write(render(report))
    return 0


# ------------------------------------------------------------------------ the readable report
def _q(token: str) -> str:
    return "'" + token + "'"


def _table(rows: list[dict[str, Any]], cols: list[tuple[str, str]]) -> list[str]:
    """Rows as right-aligned columns; the token column last, quoted, left-aligned."""
    if not rows:
        return []
    cells = [[format(r[k], f) if f else str(r[k]) for k, f in cols] for r in rows]
    heads = [k for k, _ in cols]
    widths = [max(len(h), *(len(c[j]) for c in cells)) for j, h in enumerate(heads)]
    out = ["  " + "  ".join(h.rjust(w) for h, w in zip(heads, widths)) + "  token"]
    for r, c in zip(rows, cells):
        out.append("  " + "  ".join(v.rjust(w) for v, w in zip(c, widths)) + "  " + _q(r["token"]) + r.get("_note", ""))
    return out


def _histogram(hist: dict[int, int]) -> list[str]:
    """The header line and one bar per length (lengths above 16 bytes in one row)."""
    rows: list[tuple[str, int]] = [(str(k), v) for k, v in hist.items() if k <= 16]
    rest = sum(v for k, v in hist.items() if k > 16)
    if rest:
        rows.append((f"17-{max(hist)}", rest))
    peak = max((v for _, v in rows), default=1)
    width = max([len("bytes")] + [len(k) for k, _ in rows])
    return [f"  {'bytes':>{width}}  {'tokens':>7}"] + [
        f"  {k:>{width}}  {v:>7,}  {'#' * max(1, round(_BAR * v / peak)) if v else ''}" for k, v in rows]


def render(r: dict[str, Any]) -> str:
    """The readable report of an `inspect` dict.

    >>> from tokenmill.analysis.inspect import inspect
    >>> text = render(inspect("gpt2", top=2))
    >>> text.splitlines()[0]
    'gpt2: byte-level byte_bpe, 50,257 ids: 50,256 ordinary tokens, 1 special, 0 unassigned'
    """
    lines = []
    specials = r["special_tokens"]
    ordinary = r["assigned"] - len(specials)
    level = "byte-level" if r["byte_level"] else "string vocabulary,"
    lines.append(f"{r['name']}: {level} {r['family']}, {r['vocab_size']:,} ids: {ordinary:,} ordinary tokens, "
                 f"{len(specials):,} special, {r['unassigned']['count']:,} unassigned")
    if specials:
        shown = ", ".join(f"{s['token']} ({s['id']})" for s in specials[:8])
        more = f", ... and {len(specials) - 8:,} more" if len(specials) > 8 else ""
        lines.append(f"special tokens: {shown}{more}")
    if r["unassigned"]["count"]:
        lines.append(f"unassigned ids: {', '.join(map(str, r['unassigned']['ids'][:12]))}"
                     f"{' ...' if r['unassigned']['count'] > 12 else ''}")

    lines += ["", f"token length in bytes (mean {r['mean_length']:.2f}):"]
    lines += _histogram({int(k): v for k, v in r["length_histogram"].items()})
    lines += ["", f"longest tokens (top {len(r['longest'])}):"]
    lines += _table(r["longest"], [("id", ""), ("bytes", "")])

    rt = r["round_trip"]
    how = "the token's bytes as text" if rt["method"] == "bytes" else "the token's text (alone, or after an anchor letter)"
    lines += ["", f"round trip: does encoding {how} give the token back? (Land & Bartolo 2024)",
              f"  reachable          {rt['reachable']:>8,}",
              f"  unreachable        {r['unreachable']['count']:>8,}  no text produces them: never trained",
              f"  partial UTF-8      {r['partial_utf8']['count']:>8,}  pieces of characters: only context produces them",
              f"  never-valid UTF-8  {r['invalid_utf8']['count']:>8,}  bytes no UTF-8 text holds (0xC0, 0xC1, 0xF5-0xFF...)"]
    for key, title in (("unreachable", "unreachable"), ("invalid_utf8", "never-valid UTF-8"), ("partial_utf8", "partial UTF-8")):
        sec = r[key]
        if sec["tokens"]:
            lines += ["", f"{title} tokens (first {len(sec['tokens'])} of {sec['count']:,}):"]
            rows = [dict(t, _note=f"  -> {t['reencoded']} ({t['kind']})" if "reencoded" in t else "") for t in sec["tokens"]]
            lines += _table(rows, [("id", "")])

    c, g = r["reference_corpus"], r["glitch_candidates"]
    files = c["files"]
    what = (", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else ""))
    never = "never produced" if g["max_count"] == 0 else f"produced at most {g['max_count']} times"
    lines += ["", f"glitch-token candidates: {g['count']:,} reachable tokens {never} by the reference corpus",
              f"  corpus: {what} ({c['bytes']:,} bytes, {c['tokens']:,} tokens; {c['coverage']:.1%} of the vocabulary seen)"]
    if g["ranking"] == "merge-chain":
        lines.append("  ranked by merge chain: score = share of the younger parent's uses outside the token, per byte "
                     "(lower = more verbatim-repeated = more suspicious)")
    else:
        lines.append("  ranked by length (the ids are not a merge order; a weak order)")
    if g["tokens"]:
        rows = [dict(t, rank=k + 1, _note=f"  <- {_q(t['parent']['token'])}" if t["parent"] else "") for k, t in enumerate(g["tokens"])]
        lines += _table(rows, [("rank", ""), ("id", ""), ("count", ""), ("score", ".3g")])
    lines.append("  candidates to test in the model, not proof: a small corpus leaves every rare token unseen")

    e = r["embeddings"]
    if e is not None:
        ref = e["reference"]
        lines += ["", f"embedding indicator ({e['shape'][0]:,} x {e['shape'][1]:,} {e['dtype']}; first principal component removed)",
                  f"  reference: {ref['count']:,} {ref['source']}",
                  f"  cosine distance to their mean: 1st percentile {e['distance_quantiles']['p1']:.4f}, "
                  f"median {e['distance_quantiles']['p50']:.4f} (closest = most like unused tokens)"]
        lines += _table([dict(t, rank=k + 1) for k, t in enumerate(e["candidates"])],
                        [("rank", ""), ("id", ""), ("distance", ".4f"), ("norm", ".3f"), ("count", "")])
    return "\n".join(lines) + "\n"
