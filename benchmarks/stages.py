"""Where encoding spends its instructions, per stage: pre-tokenization, lookup, merge, output.

Usage::

    python benchmarks/stages.py                      # cl100k_base and o200k_base, 2 MB per corpus (~3 minutes)
    python benchmarks/stages.py --mb 1 --encodings o200k_base

Why instructions and not seconds: on a shared 2-core machine identical timed runs move by 30%
or more, while cachegrind's counts are exact and repeatable, so a change to one stage shows as a
change of that stage's count. What it does not show: stalls (a cache miss costs no instruction;
the simulated misses of a 1 MiB second-level cache are printed beside as a hint).

How: `crates/tokenmill-core/examples/profile_encode` (built here with cargo) loads the encoding
and encodes the text once (``PROFILE_LOOP=1``) under ``valgrind --tool=cachegrind``; a second run
that only loads (``PROFILE_LOOP=0``) is subtracted, so the counts are those of one first-pass
encode of the text (the first half of ``encode.py --first-pass``'s texts, the same corpora).
Functions are grouped into stages by name (`STAGES`); the rest is ``other``. Needs valgrind
(``apt install valgrind``); nothing is downloaded.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

STAGES = [
    ("pretokenize", ("pretokenize::",)),
    ("lookup", ("encode_piece_with", "rank_of_key", "ShortKeyTable::get", "PieceCache")),
    ("merge", ("merge", "Vocab::rank", "char_rank", "chars::", "Linked", "MinTree", "split_points", "joinable")),
    ("output", ("memmove", "memcpy", "RawVec", "realloc", "malloc", "free", "reserve", "grow")),
]
NAMES = [s for s, _ in STAGES] + ["other"]


def per_function(path: Path) -> dict[str, list[int]]:
    """{function: [Ir, I1mr, ILmr, Dr, D1mr, DLmr, Dw, D1mw, DLmw]} from a cachegrind output file."""
    out = subprocess.run(["cg_annotate", "--threshold=0", "--show-percs=no", str(path)], capture_output=True, text=True,
                         check=True).stdout
    res: dict[str, list[int]] = {}
    for line in out.splitlines():
        fields = line.split()
        vals = []
        for f in fields:
            if re.fullmatch(r"[\d,]+|\.", f):
                vals.append(0 if f == "." else int(f.replace(",", "")))
            else:
                break
        if len(vals) == 9 and len(fields) > 9 and ":" in fields[9]:
            res[" ".join(fields[9:])] = vals
    return res


def stages(binary: Path, rank_file: Path, encoding: str, text: Path, work: Path) -> tuple[dict, dict]:
    """Instructions and simulated 1 MiB-L2 read misses per stage, of one encode of `text`."""
    runs = []
    for n in (0, 1):
        out = work / f"cg-{n}.out"
        subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--LL=1048576,8,64",
                        f"--cachegrind-out-file={out}", str(binary), str(rank_file), encoding.removesuffix("_base"), str(text)],
                       env={**os.environ, "PROFILE_LOOP": str(n)}, capture_output=True, check=True)
        runs.append(per_function(out))
    instr: collections.Counter = collections.Counter()
    misses: collections.Counter = collections.Counter()
    for name, v in runs[1].items():
        base = runs[0].get(name, [0] * 9)
        stage = next((s for s, keys in STAGES if any(k in name for k in keys)), "other")
        instr[stage] += v[0] - base[0]
        misses[stage] += v[5] - base[5]
    return instr, misses


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--encodings", nargs="+", default=["cl100k_base", "o200k_base"])
    p.add_argument("--corpora", nargs="+", default=["prose", "code", "multilingual"])
    p.add_argument("--mb", type=float, default=2.0, help="MB of text per corpus (default 2)")
    p.add_argument("--binary", type=Path, help="a profile_encode binary built elsewhere (an older commit, say), "
                   "instead of building this tree's")
    args = p.parse_args(argv)
    if not shutil.which("valgrind"):
        raise SystemExit("valgrind is not installed: apt install valgrind")
    import encode  # the first-pass texts

    binary = args.binary
    if binary is None:
        subprocess.run(["cargo", "build", "-q", "--release", "--example", "profile_encode"], cwd=REPO, check=True)
        binary = REPO / "target" / "release" / "examples" / "profile_encode"
    texts = encode.first_pass_texts(args.mb)
    data = encode.peers.shared_data() / "tiktoken"
    print(f"instructions per byte of one first-pass encode (cachegrind), by stage; {args.mb:g} MB per corpus")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for enc in args.encodings:
            for corpus in args.corpora:
                path = work / f"{corpus}.txt"
                path.write_text(texts[corpus], encoding="utf-8")
                n = path.stat().st_size
                instr, misses = stages(binary, data / f"{enc}.tiktoken", enc, path, work)
                total = sum(instr.values())
                parts = ", ".join(f"{s} {instr[s] / n:4.1f} ({100 * instr[s] / total:.0f}%)" for s in NAMES)
                print(f"{enc:12} {corpus:13} {total / n:5.1f}: {parts}; L2 read misses/KB {1000 * sum(misses.values()) / n:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
