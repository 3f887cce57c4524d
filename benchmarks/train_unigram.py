"""Unigram training: tokenmill's Rust trainer against sentencepiece, same corpus and settings.

Usage::

    cargo build --release -p tokenmill-core --example train_unigram
    python benchmarks/train_unigram.py --train TRAIN.txt --heldout HELDOUT.txt --vocab 8000 --threads 2

Both train with identity normalization (sentencepiece: ``normalization_rule_name="identity"``,
every other option at its default; tokenmill: `UnigramOptions::default()`), each in its own
process under ``/usr/bin/time -v`` (wall time, peak RSS). Quality is held-out bytes per token,
each held-out line encoded on its own: sentencepiece's model with sentencepiece; tokenmill's
pieces with the pure-Python reference encoder
(``tokenmill._reference.sentencepiece.SentencePieceModel.from_pieces``, identity normalization,
``add_dummy_prefix`` as sentencepiece). A ratio above 1 means tokenmill needs fewer tokens.
A scratch measurement script: it prints a table and writes nothing else but its work files.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# benchmarks/sentencepiece.py would shadow the `sentencepiece` package: drop this folder from the path.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.join(ROOT, "benchmarks")]
EXAMPLE = os.path.join(ROOT, "target", "release", "examples", "train_unigram")


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Runs `cmd` under /usr/bin/time -v: (wall seconds, peak RSS in MB, stderr)."""
    t = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        sys.exit(f"{cmd[0]} failed:\n{proc.stderr[-3000:]}")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    return wall, (int(rss.group(1)) / 1024 if rss else float("nan")), proc.stderr


def heldout_lines(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", required=True)
    ap.add_argument("--heldout", required=True)
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workdir", default=tempfile.gettempdir())
    ap.add_argument("--skip-spm", action="store_true")
    args = ap.parse_args()
    # The installed package (the source tree's `python/` has no built `_core` to import).
    from tokenmill._reference.sentencepiece import SentencePieceModel

    held = heldout_lines(args.heldout)
    nbytes = sum(len(line.encode()) for line in held)
    tag = f"{os.path.basename(args.train)}-{args.vocab}"
    tsv = os.path.join(args.workdir, f"tm-unigram-{tag}.tsv")
    wall, rss, _ = timed([EXAMPLE, args.train, str(args.vocab), str(args.threads), tsv])
    pieces = []
    with open(tsv, encoding="utf-8") as f:
        for line in f:
            p, s, k = line.rstrip("\n").split("\t")
            pieces.append((p, float(s), int(k)))
    model = SentencePieceModel.from_pieces(pieces)
    tm_tokens = sum(len(model.encode(line)) for line in held)
    rows = [("tokenmill", wall, rss, nbytes / tm_tokens, len(pieces))]
    if not args.skip_spm:
        prefix = os.path.join(args.workdir, f"spm-unigram-{tag}")
        code = ("import sentencepiece as s, sys; s.SentencePieceTrainer.train(input=sys.argv[1], model_prefix=sys.argv[2],"
                " vocab_size=int(sys.argv[3]), num_threads=int(sys.argv[4]), model_type='unigram',"
                " normalization_rule_name='identity', minloglevel=1)")
        wall, rss, _ = timed([sys.executable, "-c", code, args.train, prefix, str(args.vocab), str(args.threads)])
        import sentencepiece as spm

        sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
        spm_tokens = sum(len(sp.encode(line)) for line in held)
        rows.append(("sentencepiece", wall, rss, nbytes / spm_tokens, sp.get_piece_size()))
    print(f"train={args.train} vocab={args.vocab} threads={args.threads} heldout={nbytes} bytes")
    print(f"{'trainer':<14} {'wall s':>8} {'RSS MB':>8} {'bytes/tok':>10} {'pieces':>7}")
    for name, w, r, b, n in rows:
        print(f"{name:<14} {w:8.2f} {r:8.1f} {b:10.4f} {n:7d}")
    if len(rows) == 2:
        print(f"quality ratio (tokenmill / sentencepiece bytes per token): {rows[0][3] / rows[1][3]:.4f}; "
              f"speed-up {rows[1][1] / rows[0][1]:.2f}x; RSS ratio {rows[0][2] / rows[1][2]:.3f}")


if __name__ == "__main__":
    main()
