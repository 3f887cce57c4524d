"""Loaded-file tokenizers against the library that defines the file, in the same run.

Today: BERT WordPiece (``bert-base-uncased``: tokenmill's `WordPiece` from ``vocab.txt`` vs
Hugging Face `tokenizers` from ``tokenizer.json``, padding and truncation off), single-thread
and 2-thread batches, on English and multilingual lines of the Debian handbooks (../shared/data).
Each row is a first pass over the text in this process (neither library caches WordPiece
results across calls). Exactness: ids compared on every line.

    python benchmarks/formats.py [--mb 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"


def lines(langs: list[str], mb: float) -> list[str]:
    out, size = [], 0
    per = mb * 1e6 / len(langs)
    for lang in langs:
        got = 0
        with gzip.open(DATA / "corpus" / f"debian-handbook.{lang}.txt.gz", "rt", encoding="utf-8") as f:
            text = f.read()
        while got < per:  # the English handbook is ~1.2 MB: wrap around for larger sizes
            for line in text.splitlines():
                if line.strip():
                    out.append(line)
                    got += len(line.encode("utf-8"))
                    if got >= per:
                        break
        size += got
    return out


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=2.0, help="MB of text per corpus")
    ap.add_argument("--repeat", type=int, default=3, help="runs per row (median shown)")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"shared data not found at {DATA}", file=sys.stderr)
        return 2
    import tokenizers

    import tokenmill

    bert = DATA / "hf" / "bert-base-uncased"
    t0 = time.perf_counter()
    tm = tokenmill.load(bert / "vocab.txt")
    t_tm = time.perf_counter() - t0
    t0 = time.perf_counter()
    hf = tokenizers.Tokenizer.from_file(str(bert / "tokenizer.json"))
    t_hf = time.perf_counter() - t0
    hf.no_padding()
    hf.no_truncation()
    print(f"load: tokenmill {t_tm * 1e3:.1f} ms (vocab.txt), HF {t_hf * 1e3:.1f} ms (tokenizer.json)")
    print(f"{'corpus':13} {'library':10} {'threads':>7} {'MB/s':>8} {'vs HF':>7}  exact")
    for name, langs in (("english", ["en-US"]), ("multilingual", ["fr-FR", "ja-JP", "zh-CN"])):
        docs = lines(langs, args.mb)
        mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
        want = [e.ids for e in hf.encode_batch(docs, add_special_tokens=True)]
        exact = "yes" if tm.encode_batch(docs, num_threads=1) == want else "NO"
        rates = {}
        for threads in (1, 2):
            os.environ["RAYON_NUM_THREADS"] = str(threads)
            t_h = best(lambda: hf.encode_batch(docs, add_special_tokens=True) if threads > 1 else [hf.encode(d) for d in docs], args.repeat)
            t_t = best(lambda: tm.encode_batch(docs, num_threads=threads), args.repeat)
            rates[threads] = (mb / t_h, mb / t_t)
            print(f"{name:13} {'HF':10} {threads:>7} {mb / t_h:8.2f} {'-':>7}  -")
            print(f"{name:13} {'tokenmill':10} {threads:>7} {mb / t_t:8.2f} {t_h / t_t:6.1f}x  {exact}")
        print(f"{name:13} tokenmill 2-thread / 1-thread: {rates[2][1] / rates[1][1]:.2f}x")
    print("HF at 1 thread is one encode() per line (its batch call always uses its thread pool, set up once per process).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
