"""Loader throughput: shuffled batches of (8, 1024) windows per second from a shard directory.

Builds ~50M random uint16 tokens in 2 npy shards in a temporary directory (100 MB; written once,
deleted at the end), then times, after one warm-up pass over the same batches:

* ``create_dataloader``: `TokenSampler` order, one `TokenDataset.get_batch` gather per batch;
* the same with ``num_workers=1`` (a prefetching thread);
* a naive loop: the same indices, per-sample slicing of the concatenated memmaps + ``np.stack``
  (what a hand-written ``GPTDatasetV1`` + collate does).

Goal: >= 10,000 batches/s on one core. Usage: ``python benchmarks/loader.py [--batches N]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

from tokenmill.data import TokenDataset, create_dataloader, read_tokens
from tokenmill.data.dataset import write_npy_shards


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=50_000_000)
    ap.add_argument("--batches", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    B, L = 8, 1024
    with tempfile.TemporaryDirectory() as tmp:
        rng = np.random.default_rng(0)
        half = args.tokens // 2
        write_npy_shards(tmp, [rng.integers(0, 50257, half, dtype=np.uint16),
                               rng.integers(0, 50257, args.tokens - half, dtype=np.uint16)])
        ds = TokenDataset(tmp, L, L)
        n = min(args.batches, len(ds) // B)

        def run_loader(workers: int) -> None:
            loader = create_dataloader(ds, batch_size=B, seed=0, num_workers=workers)
            for k, _ in enumerate(loader):
                if k + 1 == n:
                    break

        order = np.random.default_rng((0, 0)).permutation(len(ds))
        tokens = [np.asarray(read_tokens(tmp))]  # naive: one flat array (concatenated in memory)

        def run_naive() -> None:
            flat = tokens[0]
            for k in range(n):
                xs, ys = [], []
                for i in order[k * B:(k + 1) * B]:
                    s = int(i) * L
                    xs.append(flat[s:s + L].astype(np.int64))
                    ys.append(flat[s + 1:s + L + 1].astype(np.int64))
                np.stack(xs), np.stack(ys)

        rows = []
        for name, fn in [("create_dataloader", lambda: run_loader(0)), ("create_dataloader, num_workers=1", lambda: run_loader(1)),
                         ("naive loop (slice + np.stack)", run_naive)]:
            fn()  # warm-up: pages in, permutation built
            t = best_of(fn, args.repeat)
            rows.append((name, n / t, t / n * 1e6))
    print(f"{args.tokens:,} uint16 tokens in 2 shards; {n:,} shuffled batches of ({B}, {L}); best of {args.repeat}")
    print(f"| {'loader':<34} | {'batches/s':>10} | {'us/batch':>9} |")
    print(f"|{'-' * 36}|{'-' * 12}|{'-' * 11}|")
    for name, rate, us in rows:
        print(f"| {name:<34} | {rate:>10,.0f} | {us:>9.1f} |")


if __name__ == "__main__":
    main()
