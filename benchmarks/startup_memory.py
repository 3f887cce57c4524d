"""Start-up time and memory of tokenmill vs tiktoken, each measured in a fresh subprocess.

Usage::

    python benchmarks/startup_memory.py            # 5 fresh processes per measurement (~1 minute)
    python benchmarks/startup_memory.py --quick    # 3 per measurement (< 30 s)
    python benchmarks/startup_memory.py --repeat 9 --encodings o200k_base

Every measurement runs in a new Python process (``python -c ...``) that imports one library,
loads one encoding and encodes "hello"; the child times itself with ``time.perf_counter`` and
reads its own memory from /proc/self/status, then prints one JSON line. Each (library,
encoding) pair gets one untimed warm-up process (to fill the OS page cache), then ``--repeat``
timed processes, run round-robin across the pairs so machine noise hits all of them alike;
the table shows the **median** of each column. tiktoken's rank files are pre-loaded into its
cache by tests/peers.py (TIKTOKEN_CACHE_DIR is passed to the children): nothing is downloaded.
See benchmarks/README.md for what each column means.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import peers  # noqa: E402

LIBRARIES = ["tokenmill", "tiktoken"]
ENCODINGS = ["o200k_base", "cl100k_base"]
IMPORT_RETRIES = 4  # tokenmill's extension may be mid-rebuild: wait 30 s and try again

# Runs in the child. argv: library, encoding. Prints one JSON object.
CHILD = r"""
import json, resource, sys, time

def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024  # kB -> bytes
    return -1

lib, name = sys.argv[1], sys.argv[2]
rss_start = status("VmRSS")
t0 = time.perf_counter()
mod = __import__(lib)
t1 = time.perf_counter()
rss_import = status("VmRSS")
hwm_import = status("VmHWM")
enc = mod.get_encoding(name)
t2 = time.perf_counter()
ids = enc.encode("hello")
t3 = time.perf_counter()
rss_loaded = status("VmRSS")
hwm_loaded = status("VmHWM")
maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: kB
print(json.dumps({
    "import": t1 - t0, "load": t2 - t0, "first": t3 - t0,
    "rss_start": rss_start, "rss_import": rss_import, "hwm_import": hwm_import,
    "rss_loaded": rss_loaded, "hwm_loaded": hwm_loaded, "maxrss": maxrss, "ids": ids,
}))
"""


def run_child(lib: str, name: str, env: dict, log) -> dict:
    """One fresh process; returns its measurements plus `process` (wall time seen by the parent)."""
    for attempt in range(IMPORT_RETRIES + 1):
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", CHILD, lib, name], env=env, cwd="/",
                              capture_output=True, text=True, timeout=300)
        wall = time.perf_counter() - t0
        if proc.returncode == 0:
            out = json.loads(proc.stdout.strip().splitlines()[-1])
            out["process"] = wall
            return out
        transient = "ImportError" in proc.stderr or "ModuleNotFoundError" in proc.stderr
        if not transient or attempt == IMPORT_RETRIES:
            raise RuntimeError(f"{lib} {name}: child failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
        log(f"  {lib}: import failed (extension being rebuilt?), retrying in 30 s")
        time.sleep(30)
    raise AssertionError("unreachable")


MB = 1e6


def measure(encodings, repeat, log) -> dict:
    """{(lib, encoding): [child result, ...]} with `repeat` results each (after 1 warm-up)."""
    peers.prefill_tiktoken_cache()  # sets TIKTOKEN_CACHE_DIR in os.environ
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the children see only the installed packages
    pairs = [(lib, name) for name in encodings for lib in LIBRARIES]
    results: dict = {p: [] for p in pairs}
    ids = {}
    for lib, name in pairs:  # warm-up: page cache, .pyc files
        ids[(lib, name)] = run_child(lib, name, env, log)["ids"]
    for name in encodings:
        if ids[("tokenmill", name)] != ids[("tiktoken", name)]:
            raise RuntimeError(f"{name}: encode('hello') differs: {ids[('tokenmill', name)]} vs {ids[('tiktoken', name)]}")
    for i in range(repeat):
        for lib, name in pairs:
            r = run_child(lib, name, env, log)
            results[(lib, name)].append(r)
            log(f"  run {i + 1}/{repeat} {lib:9} {name:11}  import+load {r['load'] * 1e3:7.1f} ms  "
                f"RSS +{(r['rss_loaded'] - r['rss_import']) / MB:6.1f} MB")
    return results


COLUMNS = [
    # (header, function of one child result, format)
    ("import ms", lambda r: r["import"] * 1e3, "{:.1f}"),
    ("import+get_encoding ms", lambda r: r["load"] * 1e3, "{:.1f}"),
    ("+encode('hello') ms", lambda r: r["first"] * 1e3, "{:.1f}"),
    ("process ms", lambda r: r["process"] * 1e3, "{:.1f}"),
    ("RSS after import MB", lambda r: r["rss_import"] / MB, "{:.1f}"),
    ("RSS growth MB", lambda r: (r["rss_loaded"] - r["rss_import"]) / MB, "{:.1f}"),
    ("peak growth MB", lambda r: (r["maxrss"] - r["rss_import"]) / MB, "{:.1f}"),
]


def table(results: dict, encodings) -> tuple[str, dict]:
    head = ["encoding", "library"] + [c[0] for c in COLUMNS]
    body, ratios = [], {}
    for name in encodings:
        med = {}
        for lib in LIBRARIES:
            rs = results[(lib, name)]
            med[lib] = [statistics.median(f(r) for r in rs) for _, f, _ in COLUMNS]
            body.append([name, lib] + [fmt.format(v) for v, (_, _, fmt) in zip(med[lib], COLUMNS)])
        ratio = [a / b if b > 0 else float("nan") for a, b in zip(med["tokenmill"], med["tiktoken"])]
        ratios[name] = dict(zip((c[0] for c in COLUMNS), ratio))
        body.append([name, "tokenmill/tiktoken"] + [f"{x:.2f}x" for x in ratio])
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    fmt = lambda cells: "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    lines = [fmt(head), fmt(["-" * w for w in widths])] + [fmt(b) for b in body]
    return "\n".join(lines), ratios


def versions() -> str:
    out = subprocess.run([sys.executable, "-c", "import tiktoken, tokenmill; print(tokenmill.__version__, tiktoken.__version__)"],
                         capture_output=True, text=True, cwd="/")
    tm, tk = (out.stdout.split() + ["?", "?"])[:2]
    return f"python {platform.python_version()}, tokenmill {tm}, tiktoken {tk}; {os.cpu_count()} CPUs"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="3 processes per measurement instead of 5")
    p.add_argument("--repeat", type=int, default=None, help="timed processes per (library, encoding) (default 5; 3 with --quick)")
    p.add_argument("--encodings", nargs="+", default=ENCODINGS, choices=ENCODINGS + ["r50k_base"], metavar="NAME")
    p.add_argument("--quiet", action="store_true", help="print only the final report")
    args = p.parse_args(argv)
    repeat = args.repeat if args.repeat is not None else (3 if args.quick else 5)
    if repeat < 1:
        p.error("--repeat must be >= 1")

    def log(msg):
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    results = measure(args.encodings, repeat, log)
    text, ratios = table(results, args.encodings)
    print(versions())
    print(f"median of {repeat} fresh processes per row (after 1 warm-up process); times measured inside the "
          "child with perf_counter from before the import; MB = 10^6 bytes; growth = after get_encoding + "
          "encode('hello') minus after import")
    print(text)
    goal = all(ratios[n]["RSS growth MB"] <= 0.5 for n in args.encodings)
    print("memory goal (RSS growth tokenmill/tiktoken <= 0.5): " + ("met" if goal else "NOT met") + " ("
          + ", ".join(f"{n} {ratios[n]['RSS growth MB']:.2f}" for n in args.encodings) + ")")
    print(f"total time {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
