"""Many short calls: what the encoder's cache of merged words (`Encoding.cache_capacity`) buys.

A server or a loop over lines calls `encode` once per short text, and a per-call cache
never warms up there. Each row runs in a fresh process, pinned to one core (`taskset -c 0`
when available), and encodes line by line (`encode_ordinary`, one call per line) the first
half of a corpus (A: a first pass), then the second half (new B: new text of the same kind)
and the second half again (same B). Libraries: tokenmill with its default cache, tokenmill
with the cache off (`with_cache_capacity(0)`), tiktoken (no cache across calls), and
gigatoken when installed (it keeps an unbounded pre-token cache across calls). The texts are
`encode.py --first-pass`'s (prose, code, multilingual).

    python benchmarks/cache.py [--mb 4] [--encodings cl100k_base,o200k_base] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

LIBS = ["tokenmill", "tokenmill (no cache)", "tiktoken", "gigatoken"]


def child(lib: str, enc_name: str, corpus: str, mb: float) -> dict:
    import encode

    text = encode.first_pass_texts(mb)[corpus]
    lines = text.splitlines()
    half = len(lines) // 2
    a, b = lines[:half], lines[half:]
    if lib.startswith("tokenmill"):
        import tokenmill

        enc = tokenmill.get_encoding(enc_name)
        if lib == "tokenmill (no cache)":
            enc = enc.with_cache_capacity(0)
        f = enc.encode_ordinary
    elif lib == "tiktoken":
        import peers

        f = peers.tiktoken_encoding(enc_name).encode_ordinary
    else:
        import gigatoken
        import peers

        tok = gigatoken.Tokenizer.from_tiktoken(str(peers.shared_data() / "tiktoken" / f"{enc_name}.tiktoken"))
        f = tok.encode
    f("warm up: lazy set-up only")
    out = {}
    for label, part in (("A", a), ("new B", b), ("same B", b)):
        size = sum(len(x.encode("utf-8")) for x in part) / 1e6
        t0 = time.perf_counter()
        for x in part:
            f(x)
        out[label] = size / (time.perf_counter() - t0)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=4.0, help="MB of text per corpus (A and B are halves)")
    ap.add_argument("--encodings", default="cl100k_base,o200k_base")
    ap.add_argument("--corpora", default="prose,code,multilingual")
    ap.add_argument("--libs", default=",".join(LIBS))
    ap.add_argument("--rounds", type=int, default=3, help="fresh processes per row (median reported)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(*json.loads(args.child))))
        return 0
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    print(f"one call per line; {args.mb} MB per corpus (A = first half, B = second half); "
          f"MB/s, median of {args.rounds} fresh processes, the libraries taking turns{', pinned to core 0' if pin else ''}")
    print(f"{'encoding':12} {'corpus':13} {'library':22} {'A':>7} {'new B':>7} {'same B':>7}")
    libs = args.libs.split(",")
    for enc_name in args.encodings.split(","):
        for corpus in args.corpora.split(","):
            # The libraries take turns, round by round, so that the host's drift over tens of
            # seconds lands on all of them (run one after the other, a row could read "no
            # cache" faster than the cache).
            runs: dict = {lib: [] for lib in libs}
            for _ in range(args.rounds):
                for lib in libs:
                    if runs[lib] and "error" in runs[lib][0]:
                        continue
                    p = subprocess.run([*pin, sys.executable, __file__, "--child", json.dumps([lib, enc_name, corpus, args.mb])],
                                       capture_output=True, text=True)
                    if p.returncode != 0:
                        runs[lib] = [{"error": (p.stderr.strip().splitlines() or ["failed"])[-1]}]
                        continue
                    runs[lib].append(json.loads(p.stdout))
            for lib in libs:
                if "error" in runs[lib][0]:
                    print(f"{enc_name:12} {corpus:13} {lib:22} skipped: {runs[lib][0]['error']}")
                    continue
                med = {k: statistics.median(r[k] for r in runs[lib]) for k in ("A", "new B", "same B")}
                print(f"{enc_name:12} {corpus:13} {lib:22} {med['A']:7.1f} {med['new B']:7.1f} {med['same B']:7.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
