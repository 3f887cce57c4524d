"""Is a change faster? Two builds of tokenmill, in fresh processes taking turns.

The installed tokenmill (the new build) against a commit built into a directory of its own
(the old one): each round runs one fresh process per build, pinned to one core (`taskset -c
0` when available), the order swapped every round (the second process of a pair can find the
host in another mood than the first: always running the new build first once made a change
look 10% slower). Each process times the three passes of `encode.py --first-pass` (A: a first
pass over new text, B: new text of the same kind after A, B again), on that script's texts.
Prints, per encoding and corpus, each build's median MB/s, the geometric mean of the rounds'
new/old ratios, how many rounds the new build won, and whether both gave the same ids.

Use it for changes whose effect is a few percent: this host's speed drifts by more than that
from minute to minute, which only alternation averages out. (Inside the core,
`examples/profile_encode ALT=N` compares two versions of a code path in one process.)

    python benchmarks/ab.py --old 29868a1 [--encodings cl100k_base] [--corpora prose code]
                            [--rounds 8] [--mb 20] [--cache-dir /tmp/tokenmill-ab]

Building the old commit takes a few minutes the first time (a git worktree and `pip install
--target`, with its own cargo target directory); the build is kept in `--cache-dir` by
commit for later runs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PASSES = ("first", "second", "same")


def build_old(rev: str, cache_dir: Path, log) -> Path:
    """The directory holding commit `rev`'s tokenmill package, built there if not yet."""
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                            capture_output=True, text=True)
    if commit.returncode != 0:
        raise SystemExit(f"--old {rev!r} is not a commit of {REPO}: {commit.stderr.strip()}")
    sha = commit.stdout.strip()
    target = cache_dir / sha[:12]
    if (target / "tokenmill").is_dir():
        return target
    tree = cache_dir / f"tree-{sha[:12]}"
    log(f"building {sha[:12]} into {target} (a few minutes)")
    if tree.exists():
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], capture_output=True)
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--force", str(tree), sha],
                   check=True, capture_output=True)
    try:
        env = {**os.environ, "CARGO_TARGET_DIR": str(cache_dir / "target")}
        r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--quiet",
                            "--target", str(target), str(tree)], env=env, capture_output=True, text=True)
        if r.returncode != 0:
            shutil.rmtree(target, ignore_errors=True)
            raise SystemExit(f"building {sha[:12]} failed:\n{r.stderr[-3000:]}")
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], capture_output=True)
    return target


def run_child(old_dir: Path | None, enc_name: str, corpus: str, mb: float, pin: list[str]) -> dict:
    """`encode.py --first-pass-child` in a fresh process: the old build when `old_dir` is
    given (first on the import path), else the installed one."""
    env = {**os.environ, "RAYON_NUM_THREADS": "1"}
    env.pop("PYTHONPATH", None)
    if old_dir is not None:
        env["PYTHONPATH"] = str(old_dir)
    cmd = pin + [sys.executable, str(HERE / "encode.py"), "--first-pass-child",
                 json.dumps(["tokenmill", enc_name, corpus, mb])]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(HERE))
    if r.returncode != 0:
        who = "old" if old_dir else "new"
        raise SystemExit(f"the {who} build failed on {enc_name} {corpus}:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def compare(old_dir: Path, enc_name: str, corpus: str, mb: float, rounds: int, pin: list[str]) -> str:
    """One row: both builds `rounds` times each, in turn, the order swapped each round."""
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    for r in range(rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for who in order:
            runs[who].append(run_child(old_dir if who == "old" else None, enc_name, corpus, mb, pin))
    cells = []
    for k in PASSES:
        ratios = [n[k] / o[k] for o, n in zip(runs["old"], runs["new"])]
        geo = math.exp(sum(map(math.log, ratios)) / rounds)
        wins = sum(x > 1 for x in ratios)
        med = [statistics.median(x[k] for x in runs[who]) for who in ("old", "new")]
        cells.append(f"{med[0]:6.1f} -> {med[1]:6.1f} {geo:.3f}x ({wins}/{rounds})")
    same = "yes" if runs["old"][0]["digest"] == runs["new"][0]["digest"] else "NO"
    return f"{enc_name:12} {corpus:13} " + "  ".join(f"{c:30}" for c in cells) + f"  {same}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--old", required=True, help="the commit to compare the installed build with")
    p.add_argument("--encodings", nargs="+", default=["cl100k_base", "o200k_base"], metavar="NAME")
    p.add_argument("--corpora", nargs="+", default=["prose", "code", "multilingual"],
                   choices=["prose", "code", "multilingual"])
    p.add_argument("--rounds", type=int, default=8, help="processes per build and row (default 8)")
    p.add_argument("--mb", type=float, default=20.0,
                   help="MB of text per corpus, as encode.py --first-pass (default 20)")
    p.add_argument("--cache-dir", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "tokenmill-ab",
                   help="where old builds are kept, by commit (default $TMPDIR/tokenmill-ab)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error("--rounds must be >= 1")

    def log(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    args.cache_dir.mkdir(parents=True, exist_ok=True)
    old_dir = build_old(args.old, args.cache_dir, log)
    # The old build's processes must import it, not the installed one.
    env = {**os.environ, "PYTHONPATH": str(old_dir)}
    where = subprocess.run([sys.executable, "-c", "import tokenmill; print(tokenmill.__file__)"],
                           capture_output=True, text=True, env=env, cwd=str(HERE)).stdout.strip()
    if not where.startswith(str(old_dir)):
        raise SystemExit(f"the old build in {old_dir} is not what its processes import ({where or 'nothing'})")
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    print(f"old: {args.old} ({old_dir}); new: the installed tokenmill; one core "
          f"({'taskset -c 0' if pin else 'not pinned'}), fresh processes in turn, {args.rounds} rounds; "
          "MB/s medians old -> new, the geometric mean of the rounds' new/old ratios (rounds new won)")
    passes = "  ".join(f"{n:30}" for n in ("first A", "new B", "B again"))
    head = f"{'encoding':12} {'corpus':13} {passes}  same ids"
    print(head)
    print("-" * len(head))
    for enc_name in args.encodings:
        for corpus in args.corpora:
            print(compare(old_dir, enc_name, corpus, args.mb, args.rounds, pin), flush=True)
            log(f"{enc_name} {corpus} done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
