"""One large text on two threads against one (issue 14's ">= 1.85x one thread").

`encode_to_numpy` of 16.4 MB (the King James Bible and the fr/ja/zh Debian handbooks from
../shared/data/corpus, twice over: a non-ASCII `str`, so the parallel path also transcodes
it part by part on its threads), alternating a 1-thread and a 2-thread call in one process,
`--rounds` times. Reports each speed and the speed-up of the best calls and of the medians,
with `busy` (CPU time of the 2-thread call over twice its wall time: 1.0 when neither thread
waits) and `cpu+` (CPU time of the 2-thread call over the 1-thread call's: above 1.0 when the
same work costs more on two threads). numpy's BLAS threads are held to one
(`OPENBLAS_NUM_THREADS=1`) so that they do not spin on the second core.

`ceiling`: each round also times two one-thread calls at once, one per half of the text, on
two Python threads (the calls release the GIL): what two threads reach on this host at that
moment with no parallel path at all (the median over the rounds of the one-thread call's time
over theirs). `of ceiling`: the median of each round's speed-up over that round's ceiling;
1.0 means the parallel path loses nothing that independent calls do not.

`--batch`: the other half of the goal, a batch. `encode.py`'s three corpora as lists of
documents (English prose in 16 KB documents, the standard library's sources a file each,
the fr/ja/zh handbooks in 16 KB documents) through `encode_ordinary_batch` (`lists`: a
list of ids per document, built by the calling thread while the other encodes) and
`encode_batch_to_numpy` (`numpy`), alternating 1 and 2 threads as above. No ceiling here:
two batch calls on two Python threads share the interpreter while they build their results.

    python benchmarks/threads.py [--encodings o200k_base cl100k_base] [--rounds 6] [--batch]
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import time
from pathlib import Path

# Before numpy is imported (by tokenmill, in `measure`).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE)]


def text_of_corpus() -> str:
    import peers

    base = peers.shared_data() / "corpus"
    names = ["kjv.txt.gz"] + [f"debian-handbook.{lang}.txt.gz" for lang in ("fr-FR", "ja-JP", "zh-CN")]
    parts = [gzip.open(base / name, "rt", encoding="utf-8").read() for name in names]
    return "".join(parts) * 2


def two_calls_at_once(enc, halves: tuple[str, str]) -> float:
    """Wall time of two one-thread calls, one per half, on two Python threads started together."""
    import threading

    start = threading.Barrier(3)
    results = []  # freed after the clock stops, as in `alternate`

    def call(half: str) -> None:
        start.wait()
        results.append(enc.encode_to_numpy(half, num_threads=1))

    workers = [threading.Thread(target=call, args=(h,)) for h in halves]
    for w in workers:
        w.start()
    t0 = time.perf_counter()
    start.wait()
    for w in workers:
        w.join()
    return time.perf_counter() - t0


def alternate(call, rounds: int, after_round=None) -> dict[int, list[tuple[float, float]]]:
    """`rounds` alternations of `call(1)` and `call(2)` (the thread count): their (wall, CPU) times.

    The clocks stop before the result is freed: freeing a list of a million id lists takes
    Python 0.3-1.7 ms on one thread, which is the caller's cost whenever it drops them, not the call's.
    """
    runs: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
    for _ in range(rounds):
        for threads in (1, 2):
            c0, t0 = time.process_time(), time.perf_counter()
            result = call(threads)
            runs[threads].append((time.perf_counter() - t0, time.process_time() - c0))
            del result
        if after_round is not None:
            after_round(runs)
    return runs


def summary(mb: float, runs: dict[int, list[tuple[float, float]]]) -> str:
    """Speeds of the best calls, speed-ups of the best calls and of the medians, busy, cpu+."""
    (w1, c1), (w2, c2) = min(runs[1]), min(runs[2])
    m1, m2 = (statistics.median(w for w, _ in runs[t]) for t in (1, 2))
    return (
        f"1 thread {mb / w1:6.1f} MB/s  2 threads {mb / w2:6.1f} MB/s  "
        f"speed-up {w1 / w2:.2f}x (medians {m1 / m2:.2f}x)  busy {c2 / w2 / 2:.2f}  cpu+ {c2 / c1:.2f}"
    )


def measure(enc_name: str, text: str, rounds: int) -> str:
    import tokenmill

    enc = tokenmill.get_encoding(enc_name)
    enc.encode_to_numpy(text[:100_000], num_threads=2)  # lazy set-up
    halves = (text[: len(text) // 2], text[len(text) // 2 :])
    ceiling: list[float] = []
    runs = alternate(
        lambda n: enc.encode_to_numpy(text, num_threads=n),
        rounds,
        lambda runs: ceiling.append(runs[1][-1][0] / two_calls_at_once(enc, halves)),
    )
    mb = len(text.encode("utf-8")) / 1e6
    # The round's 2-thread speed-up over what two independent calls reached in that round.
    of_ceiling = statistics.median(w / runs[2][k][0] / ceiling[k] for k, (w, _) in enumerate(runs[1]))
    return (
        f"{enc_name:12s} {mb:5.1f} MB  {summary(mb, runs)}  "
        f"ceiling {statistics.median(ceiling):.2f}x  of ceiling {of_ceiling:.2f}"
    )


def measure_batches(enc_name: str, rounds: int) -> list[str]:
    """`--batch`: encode.py's corpora as lists of documents, through both batch calls."""
    import encode
    import tokenmill

    enc = tokenmill.get_encoding(enc_name)
    lines = []
    for corpus, docs in encode.load_corpora(False, encode.CORPORA).items():
        mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
        for mode, call in (("lists", enc.encode_ordinary_batch), ("numpy", enc.encode_batch_to_numpy)):
            call(docs, num_threads=2)  # warm-up
            runs = alternate(lambda n, call=call: call(docs, num_threads=n), rounds)
            lines.append(f"{enc_name:12s} {corpus:13s} {mode:6s} {len(docs):4d} docs {mb:5.1f} MB  {summary(mb, runs)}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--encodings", nargs="+", default=["o200k_base", "cl100k_base"])
    ap.add_argument("--rounds", type=int, default=6, help="alternations of a 1- and a 2-thread call (default 6)")
    ap.add_argument("--batch", action="store_true", help="batches of documents instead of one large text")
    args = ap.parse_args()
    if os.cpu_count() is not None and os.cpu_count() < 2:
        sys.exit("threads.py needs at least two cores")
    if args.batch:
        for enc_name in args.encodings:
            for line in measure_batches(enc_name, args.rounds):
                print(line, flush=True)
        return
    text = text_of_corpus()
    for enc_name in args.encodings:
        print(measure(enc_name, text, args.rounds), flush=True)


if __name__ == "__main__":
    main()
