"""Worst-case (adversarial) encoding times: tokenmill vs tiktoken, per ../shared/ADVERSARIAL.md section A.

Usage::

    python benchmarks/worst_case.py             # cl100k_base + o200k_base, 100 KiB and 1 MiB (~2-3 minutes)
    python benchmarks/worst_case.py --quick     # o200k_base only, 3 runs, smaller time budget (< 1 minute)
    python benchmarks/worst_case.py --all       # also r50k_base
    python benchmarks/worst_case.py --slope     # also a log-log slope over 128 KiB .. 2 MiB (slow: minutes)
    python benchmarks/worst_case.py --inputs a letters --libs tokenmill --slope
    python benchmarks/worst_case.py --libs tokenmill --new-text   # also R10 on texts met for the first time
    python benchmarks/worst_case.py --libs tokenmill --no-cache   # no merged words kept across calls

Timing protocol (ADVERSARIAL.md "Timing protocol"): a pre-built encoding, single thread,
``encode_ordinary``, one untimed warm-up, then the **minimum** of ``--repeat`` (default 5)
``time.perf_counter`` runs. To keep the run short, a measurement whose warm-up took long gets
fewer timed runs (at most ``--budget`` seconds of timed runs, at least 1); such times are marked
``*``. R10 = t(1 MiB) / t(100 KiB) (sizes in characters: 102,400 and 1,048,576). Flags:
``R10>11`` (not linear), ``R10>15`` (worse than the single-piece gate), ``>1s`` (t(1 MiB) above
the 1 s sanity bound). tiktoken fails on huge whitespace runs; that is shown as
``error: <exception type>``. Every tokenmill result is checked against tiktoken's ids where
tiktoken succeeds ("yes"), and always for roundtrip (decode == input; "roundtrip" = only that
could be checked because tiktoken failed). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import peers  # noqa: E402
from adversarial import gen  # noqa: E402


import tokenmill  # noqa: E402

KIB = 1024
MIB = 1024 * KIB
HEADLINE = (100 * KIB, 1 * MIB)
SLOPE_SIZES = (128 * KIB, 256 * KIB, 512 * KIB, 1 * MIB, 2 * MIB)
ENCODINGS = ["cl100k_base", "o200k_base"]
ALL_ENCODINGS = ENCODINGS + ["r50k_base"]
LIBS = ["tokenmill", "tiktoken"]

# id -> (description, maker(n, single_piece_tokens, seed) -> str of n characters); the makers
# that use `seed` are in SEEDED (the protocol's text is seed 1).
INPUTS = {
    "a": ('"a"*n', lambda n, toks, seed: "a" * n),
    "letters": ("rand_letters(n, seed=1): one \\p{L} piece", lambda n, toks, seed: gen.rand_letters(n, seed=seed)),
    "digits": ('"0"*n (split into 3-digit pieces)', lambda n, toks, seed: "0" * n),
    "spaces": ('" "*(n-1) + "x"', lambda n, toks, seed: " " * (n - 1) + "x"),
    "tabs": ('"\\t"*(n-1) + "x"', lambda n, toks, seed: "\t" * (n - 1) + "x"),
    "space_nl": ('" \\n"*((n-1)//2) + "x"', lambda n, toks, seed: " \n" * ((n - 1) // 2) + "x"),
    "caret": ('"^"*n', lambda n, toks, seed: "^" * n),
    "'s": ('"\'s"*(n//2)', lambda n, toks, seed: "'s" * (n // 2)),
    "newlines": ('"\\n"*n', lambda n, toks, seed: "\n" * n),
    "nul": ('"\\x00"*n', lambda n, toks, seed: "\x00" * n),
    "rand_tokens": ("rand_tokens_single_piece(vocab, n, seed=1)",
                    lambda n, toks, seed: gen.rand_tokens_single_piece(toks, n, seed=seed)),
    "prose": ("prose(n, seed=1): segmented text", lambda n, toks, seed: gen.prose(n, seed=seed)),
}
SEEDED = {"letters", "rand_tokens", "prose"}


@contextlib.contextmanager
def quiet_fd2(enabled: bool = True):
    """Silence file descriptor 2: tiktoken's Rust panics print a backtrace there before they
    become a Python exception."""
    if not enabled:
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


class Result:
    __slots__ = ("secs", "runs", "error", "ids")

    def __init__(self, secs=None, runs=0, error=None, ids=None):
        self.secs, self.runs, self.error, self.ids = secs, runs, error, ids

    def cell(self, repeat: int) -> str:
        if self.error:
            return f"error: {self.error}"
        return f"{self.secs * 1e3:.1f}" + ("*" if self.runs < repeat else "")


def timed(fn, repeat: int, budget: float, quiet: bool = False) -> Result:
    """Min of up to `repeat` runs after one untimed warm-up; fewer runs if the warm-up shows
    that `repeat` runs would take more than `budget` seconds."""
    try:
        with quiet_fd2(quiet):
            t0 = time.perf_counter()
            ids = fn()
            warm = time.perf_counter() - t0
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # tiktoken's PanicException is a BaseException
        return Result(error=type(e).__name__)
    runs = repeat if warm * repeat <= budget else max(1, int(budget // max(warm, 1e-9)))
    times = []
    with quiet_fd2(quiet):
        for _ in range(runs):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    return Result(min(times), runs, None, ids)


def timed_new(fns, budget: float, quiet: bool = False) -> Result:
    """Min over runs that each encode a text met for the first time (`fns`: one call each, on
    texts of other seeds), after the protocol's runs have warmed the encoder; fewer runs once
    `budget` seconds are spent. Why: the protocol repeats one text, which then sits in the
    CPU's caches and trains its branch predictor, so a 100K text repeated runs faster per byte
    than a 1M one (which fits neither) and R10 reads above 10 for a linear encoder."""
    times, spent = [], 0.0
    try:
        with quiet_fd2(quiet):
            for fn in fns:
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
                spent += times[-1]
                if spent > budget:
                    break
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # tiktoken's PanicException is a BaseException
        return Result(error=type(e).__name__)
    return Result(min(times), len(times))


def ratio(small: Result, big: Result):
    if small.error or big.error or not small.secs:
        return None
    return big.secs / small.secs


def flags(r10, big: Result) -> str:
    out = []
    if r10 is not None and r10 > 15:
        out.append("R10>15")
    elif r10 is not None and r10 > 11:
        out.append("R10>11")
    if not big.error and big.secs > 1.0:
        out.append(">1s")
    return ",".join(out) or "-"


def slope(points) -> float | None:
    """Least-squares slope of log(t) against log(n)."""
    pts = [(math.log(n), math.log(t)) for n, t in points if t]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den


def bench(encodings, inputs, libs, sizes, repeat, budget, log, new_text=False, no_cache=False):
    """{(encoding, input, lib, size): Result} (and `(..., size, "new")`: `timed_new` on texts
    of other seeds, with `new_text`, for the inputs in SEEDED), {(encoding, input, size):
    exact-check string} and {(encoding, input, size): UTF-8 bytes}. With `no_cache`, tokenmill
    keeps no merged words across calls (`with_cache_capacity(0)`), as tiktoken keeps none."""
    results, exact, nbytes = {}, {}, {}
    for enc_name in encodings:
        tm = tokenmill.get_encoding(enc_name)
        if no_cache:
            tm = tm.with_cache_capacity(0)
        tk = peers.tiktoken_encoding(enc_name) if "tiktoken" in libs else None
        toks = gen.single_piece_tokens(tm.token_byte_values())
        for inp in inputs:
            _, maker = INPUTS[inp]
            for n in sizes:
                text = maker(n, toks, 1)
                nbytes[(enc_name, inp, n)] = len(text.encode("utf-8", "surrogatepass"))
                row = {}
                if "tokenmill" in libs:
                    row["tokenmill"] = timed(lambda: tm.encode_ordinary(text), repeat, budget)
                if tk is not None:
                    row["tiktoken"] = timed(lambda: tk.encode_ordinary(text), repeat, budget, quiet=True)
                for lib, r in row.items():
                    results[(enc_name, inp, lib, n)] = r
                # correctness: tokenmill vs tiktoken where tiktoken succeeded; roundtrip always
                tmr, tkr = row.get("tokenmill"), row.get("tiktoken")
                if tmr is None:
                    check = "-"
                elif tmr.error:
                    check = f"NO (tokenmill {tmr.error})"
                elif tm.decode_bytes(tmr.ids) != text.encode("utf-8"):
                    check = "NO (roundtrip)"
                elif tkr is not None and not tkr.error:
                    check = "yes" if list(tmr.ids) == list(tkr.ids) else "NO"
                else:
                    check = "roundtrip"
                exact[(enc_name, inp, n)] = check
                for r in row.values():
                    r.ids = None
                if new_text and inp in SEEDED:
                    others = [maker(n, toks, seed) for seed in range(2, 2 + repeat)]
                    for lib, fn in (("tokenmill", tm.encode_ordinary), ("tiktoken", tk and tk.encode_ordinary)):
                        if lib in row:
                            results[(enc_name, inp, lib, n, "new")] = timed_new(
                                [lambda t=t, fn=fn: fn(t) for t in others], budget, quiet=lib == "tiktoken")
                log(f"{enc_name} {inp:11} {n:>8} chars  " + "  ".join(
                    f"{lib} {r.cell(repeat):>16} ms" for lib, r in row.items()) + f"  exact={check}")
    return results, exact, nbytes


def _table(head, body, left):
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    fmt = lambda cells: "  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([fmt(head), fmt(["-" * w for w in widths])] + [fmt(b) for b in body])


def r10_table(results, exact, nbytes, encodings, inputs, libs, repeat, new_text=False):
    small, big = HEADLINE
    head = ["encoding", "input"]
    for lib in libs:
        head += [f"{lib} t(100K) ms", "t(1M) ms", "R10", "flags"]
        if new_text:
            head += ["new t(100K)", "new t(1M)", "R10 new"]
        if "prose" in inputs:
            head.append("x prose")
    head.append("exact")
    body = []
    counts = {lib: {"R10>11": 0, "R10>15": 0, ">1s": 0, "error": 0, "new R10>11": 0, "new R10>15": 0, "x prose>4": 0}
              for lib in libs}
    for enc_name in encodings:
        for inp in inputs:
            cells = [enc_name, inp]
            for lib in libs:
                s, b = results[(enc_name, inp, lib, small)], results[(enc_name, inp, lib, big)]
                r = ratio(s, b)
                f = flags(r, b)
                for k in ("R10>15", ">1s"):
                    counts[lib][k] += k in f
                counts[lib]["R10>11"] += r is not None and r > 11
                counts[lib]["error"] += bool(s.error or b.error)
                cells += [s.cell(repeat), b.cell(repeat), "-" if r is None else f"{r:.1f}", f]
                if new_text:
                    ns, nb = results.get((enc_name, inp, lib, small, "new")), results.get((enc_name, inp, lib, big, "new"))
                    if ns is None or nb is None:
                        cells += ["-", "-", "-"]
                    else:
                        rn = ratio(ns, nb)
                        counts[lib]["new R10>11"] += rn is not None and rn > 11
                        counts[lib]["new R10>15"] += rn is not None and rn > 15
                        cells += [ns.cell(repeat), nb.cell(repeat), "-" if rn is None else f"{rn:.1f}"]
                if "prose" in inputs:
                    # Per byte at 1M against prose's per byte at 1M (the goal: at most 4x).
                    p = results[(enc_name, "prose", lib, big)]
                    if b.error or p.error:
                        cells.append("-")
                    else:
                        x = (b.secs / nbytes[(enc_name, inp, big)]) / (p.secs / nbytes[(enc_name, "prose", big)])
                        counts[lib]["x prose>4"] += x > 4
                        cells.append(f"{x:.1f}")
            a, b = exact[(enc_name, inp, small)], exact[(enc_name, inp, big)]
            cells.append(a if a == b else f"100K {a}; 1M {b}")
            body.append(cells)
    return _table(head, body, 2), counts


def slope_table(results, encodings, inputs, libs):
    head = ["encoding", "input"] + [f"{lib} slope" for lib in libs]
    body = []
    for enc_name in encodings:
        for inp in inputs:
            cells = [enc_name, inp]
            for lib in libs:
                pts = [(n, results[(enc_name, inp, lib, n)].secs) for n in SLOPE_SIZES
                       if not results[(enc_name, inp, lib, n)].error]
                s = slope(pts)
                cells.append("-" if s is None else f"{s:.2f}" + ("" if len(pts) == len(SLOPE_SIZES) else f" ({len(pts)} sizes)"))
            body.append(cells)
    return _table(head, body, 2)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="o200k_base only, 3 runs, 2 s budget per measurement (< 1 minute)")
    p.add_argument("--all", action="store_true", help="also r50k_base")
    p.add_argument("--slope", action="store_true", help="also fit a log-log slope over 128 KiB, 256 KiB, 512 KiB, 1 MiB, 2 MiB")
    p.add_argument("--encodings", nargs="+", choices=ALL_ENCODINGS, metavar="NAME", help="overrides --quick/--all")
    p.add_argument("--inputs", nargs="+", choices=list(INPUTS), default=list(INPUTS), metavar="NAME")
    p.add_argument("--libs", nargs="+", choices=LIBS, default=LIBS, metavar="NAME")
    p.add_argument("--repeat", type=int, default=None, help="timed runs (min is reported; default 5, 3 with --quick)")
    p.add_argument("--budget", type=float, default=None, help="max seconds of timed runs per measurement (default 4, 2 with --quick)")
    p.add_argument("--new-text", action="store_true",
                   help="also time the seeded inputs (letters, rand_tokens, prose) on texts met for the first time: "
                        "R10 without the protocol's repeats of one text")
    p.add_argument("--no-cache", action="store_true",
                   help="tokenmill without its cache of merged words across calls: the protocol's repeats of a "
                        "100K text then find nothing kept from the runs before (o200k letters: R10 15 with it, 10.5 without)")
    p.add_argument("--gate", type=float, default=None, metavar="R10", help="exit 1 if any tokenmill R10 exceeds this")
    p.add_argument("--quiet", action="store_true", help="print only the final report")
    args = p.parse_args(argv)
    repeat = args.repeat if args.repeat is not None else (3 if args.quick else 5)
    budget = args.budget if args.budget is not None else (2.0 if args.quick else 4.0)
    if repeat < 1:
        p.error("--repeat must be >= 1")
    encodings = args.encodings or (["o200k_base"] if args.quick else ALL_ENCODINGS if args.all else ENCODINGS)
    libs = [lib for lib in LIBS if lib in args.libs]
    sizes = sorted(set(HEADLINE) | (set(SLOPE_SIZES) if args.slope else set()))

    def log(msg):
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    results, exact, nbytes = bench(encodings, args.inputs, libs, sizes, repeat, budget, log, args.new_text, args.no_cache)
    import tiktoken

    print(f"python {platform.python_version()}, tokenmill {tokenmill.__version__}, tiktoken {tiktoken.__version__}; "
          f"{os.cpu_count()} CPUs")
    print(f"encode_ordinary, single thread, min of {repeat} runs after 1 warm-up (* = fewer runs: "
          f"{budget:g} s budget); sizes in characters: 100K = 102,400, 1M = 1,048,576; R10 = t(1M)/t(100K)"
          + ("; tokenmill with no cache across calls (--no-cache)" if args.no_cache else ""))
    if args.new_text:
        print(f"new t: min of up to {repeat} runs, each on a text of another seed (the inputs that have seeds); "
              "R10 new = new t(1M) / new t(100K)")
    if "prose" in args.inputs:
        print("x prose: time per UTF-8 byte at 1M against prose's (the goal: at most 4)")
    text, counts = r10_table(results, exact, nbytes, encodings, args.inputs, libs, repeat, args.new_text)
    print(text)
    for lib in libs:
        c = counts[lib]
        print(f"{lib}: {c['R10>11']} inputs with R10 > 11, {c['R10>15']} with R10 > 15, "
              f"{c['>1s']} with t(1M) > 1 s, {c['error']} errors"
              + (f"; new text: {c['new R10>11']} with R10 > 11, {c['new R10>15']} with R10 > 15" if args.new_text else "")
              + (f"; {c['x prose>4']} above 4x prose per byte" if "prose" in args.inputs else ""))
    if args.slope:
        print()
        print("log-log slope of t(n) over n = 128K, 256K, 512K, 1M, 2M characters (1.0 = linear, 2.0 = quadratic)")
        print(slope_table(results, encodings, args.inputs, libs))
    print(f"total time {time.perf_counter() - t0:.1f} s")
    bad = any(v.startswith("NO") for v in exact.values())
    if args.gate is not None and "tokenmill" in libs:
        small, big = HEADLINE
        bad |= any((r := ratio(results[(e, i, "tokenmill", small)], results[(e, i, "tokenmill", big)])) is not None
                   and r > args.gate for e in encodings for i in args.inputs)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
