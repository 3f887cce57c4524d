"""BPE training speed and memory: tokenmill vs HF `tokenizers` vs `rustbpe`.

Usage::

    pip install rustbpe                  # optional peer (karpathy's nanochat trainer); HF tokenizers too
    python benchmarks/train.py           # 10/50/100 MB x 1/2 threads x 3 trainers (~5 minutes on 2 vCPUs)
    python benchmarks/train.py --quick   # 10 MB only, 1 and 2 threads (< 1 minute)
    python benchmarks/train.py --sizes 10,50 --threads 1 --trainers tokenmill,hf

Options: ``--sizes 10,50,100`` (MB of training text), ``--threads 1,2``,
``--trainers tokenmill,hf,rustbpe``, ``--vocab-size 32768``, ``--quick``, ``--repeat N``
(median of N runs per row, default 1), ``--workdir DIR`` (where the corpora are cached; default
``$TMPDIR/tokenmill-train-bench``), ``--json FILE`` (also write the raw results), ``--timeout S``
(per training run, default 7200).

Every training run is a **fresh subprocess** of this script (``--child``) so that its peak RSS
(``ru_maxrss``, the high-water mark of the whole process, Python included) is its own. The child
imports the library, starts the clock, trains on one corpus file with the cl100k pre-tokenizer
pattern and one special token ``<|endoftext|>``, stops the clock, reads ``ru_maxrss``, then encodes
a held-out text (not part of any training prefix) and reports the bytes per token it gets.
The corpora (``make_corpus.py``: prose in 4 languages, JSON and Python sources, all local) are
built once and cached. See benchmarks/README.md ("Training") for the method and the columns.
MB = 10^6 bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPECIALS = ("<|endoftext|>",)
TRAINERS = ("tokenmill", "hf", "rustbpe")

# tiktoken's cl100k_base pattern (possessive quantifiers). tokenmill takes it by name ("cl100k")
# and rustbpe (fancy-regex) takes it as is: fancy-regex treats `{1,3}+` as possessive, like
# tiktoken. HF tokenizers' Oniguruma (Ruby syntax) accepts `?+`, `++` and `*+` as possessive,
# but reads `\p{N}{1,3}+` as `(\p{N}{1,3})+`, i.e. *any* run of digits: "12345678901" stays one
# pre-token instead of 123|456|789|01. So HF gets the same pattern with `\p{N}{1,3}`: a
# possessive `{1,3}` at the end of an alternative never changes a match, and this form gave the
# same pieces as the `regex` module on 200,000 random strings and on real code, English and
# Japanese text. (The non-possessive form without `\s++$` is *not* equivalent: "x\n  " splits
# as x|\n|"  " instead of x|"\n  ".)
CL100K_PATTERN = (r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"
                  r" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s")
HF_PATTERN = CL100K_PATTERN.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")
assert HF_PATTERN != CL100K_PATTERN

# rustbpe's documents: ~8 kB pieces of the file, cut only after a "\n" that is followed by a
# printable ASCII non-space character. No cl100k pre-token spans such a point, so the pieces are
# exactly those of the whole text.
RUSTBPE_DOC_BYTES = 8192
_SAFE_CUT = re.compile(rb"\n(?=[!-~])")


# ============================================================================ child side
def _documents(path: str, size: int = RUSTBPE_DOC_BYTES):
    """Streams `path` as str documents of about `size` bytes, cut at pre-token-safe points."""
    rest = b""
    with open(path, "rb") as f:
        while True:
            block = f.read(1 << 20)
            buf = rest + block
            start = 0
            while True:
                m = _SAFE_CUT.search(buf, start + size)
                if m is None:
                    break
                yield buf[start:m.end()].decode("utf-8")
                start = m.end()
            rest = buf[start:]
            if not block:
                if rest:
                    yield rest.decode("utf-8")
                return


def _prepare_tokenmill(corpus: str, threads: int, vocab_size: int):
    import tokenmill

    def train():
        enc = tokenmill.train_bpe(corpus=[corpus], vocab_size=vocab_size, pattern="cl100k",
                                  special_tokens=SPECIALS, num_threads=threads, progress=False)
        n_vocab = getattr(enc, "n_vocab", None) or enc.max_token_value + 1
        return n_vocab, enc.encode_ordinary

    return tokenmill.__version__, train


def _prepare_hf(corpus: str, threads: int, vocab_size: int):
    import tokenizers
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(HF_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(SPECIALS),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)

    def train():
        tok.train([corpus], trainer)  # threads: RAYON_NUM_THREADS, set by the parent
        return tok.get_vocab_size(), lambda text: tok.encode(text, add_special_tokens=False).ids

    return tokenizers.__version__, train


def _prepare_rustbpe(corpus: str, threads: int, vocab_size: int):
    from importlib.metadata import version

    import rustbpe

    def train():
        tok = rustbpe.Tokenizer()
        # rustbpe has no special tokens: it learns vocab_size - 1 tokens (256 bytes + merges), the
        # same number as the others learn besides <|endoftext|>. Threads: RAYON_NUM_THREADS.
        tok.train_from_iterator(_documents(corpus), vocab_size - len(SPECIALS), pattern=CL100K_PATTERN)
        return tok.vocab_size, tok.encode

    return version("rustbpe"), train


def _cpu_seconds() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _rss_mb(field: str = "VmRSS") -> float | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024 / 1e6
    except (OSError, ValueError):
        pass
    return None


def child_main(a: argparse.Namespace) -> None:
    import resource

    out: dict = {"trainer": a.child, "threads": a.threads}
    try:
        version, train = {"tokenmill": _prepare_tokenmill, "hf": _prepare_hf,
                          "rustbpe": _prepare_rustbpe}[a.child](a.corpus, a.threads, a.vocab_size)
        out["version"] = version
        out["base_rss_mb"] = _rss_mb()
        c0, t0 = _cpu_seconds(), time.perf_counter()
        n_vocab, encode = train()
        t1, c1 = time.perf_counter(), _cpu_seconds()
        out["seconds"] = t1 - t0
        out["cpu_seconds"] = c1 - c0
        out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6
        out["vocab"] = int(n_vocab)
        text = Path(a.heldout).read_text(encoding="utf-8")
        try:
            out["heldout_bytes_per_token"] = len(text.encode("utf-8")) / len(encode(text))
        except BaseException as e:  # noqa: BLE001 - a failing encode must not hide the timing
            if isinstance(e, KeyboardInterrupt):
                raise
            out["heldout_error"] = f"{type(e).__name__}: {e}"[:200]
    except BaseException as e:  # noqa: BLE001 - pyo3's PanicException is a BaseException
        if isinstance(e, KeyboardInterrupt):
            raise
        out["error"] = f"{type(e).__name__}: {e}"[:300]
    print("RESULT " + json.dumps(out), flush=True)


# ============================================================================ parent side
def cpu_model() -> str:
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        for line in lscpu.splitlines():
            if line.lower().startswith("model name"):
                return line.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return "Model name: " + (platform.processor() or "unknown")


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    parts = [f"python {platform.python_version()}"]
    for pkg in ("tokenmill", "tokenizers", "rustbpe"):
        try:
            parts.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            parts.append(f"{pkg} not installed")
    return ", ".join(parts) + f"; {os.cpu_count()} CPUs"


def run_child(trainer: str, corpus: str, heldout: str, threads: int, vocab_size: int,
              timeout: float) -> dict:
    env = dict(os.environ)
    env["RAYON_NUM_THREADS"] = str(threads)  # HF tokenizers and rustbpe size their pools from it
    # HF with TOKENIZERS_PARALLELISM=false runs serially, without rayon; with a 1-thread rayon
    # pool it took twice as long (10 MB: 2.2 s vs 4.3 s), so 1 thread gets HF's serial mode.
    env["TOKENIZERS_PARALLELISM"] = "false" if threads == 1 else "true"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", trainer, "--corpus", corpus,
           "--heldout", heldout, "--child-threads", str(threads), "--vocab-size", str(vocab_size)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"trainer": trainer, "threads": threads, "error": f"timed out after {timeout:.0f} s"}
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("RESULT "):
            r = json.loads(line[len("RESULT "):])
            r["process_seconds"] = time.perf_counter() - t0
            return r
    err = [ln for ln in p.stderr.splitlines() if ln.strip()]
    why = err[-1].strip() if err else "no output"
    return {"trainer": trainer, "threads": threads,
            "error": f"child exited with status {p.returncode}: {why}"[:300]}


def median_result(runs: list[dict]) -> dict:
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[-1]
    r = dict(ok[0])
    for k in ("seconds", "cpu_seconds", "peak_rss_mb"):
        r[k] = statistics.median(x[k] for x in ok)
    r["runs"] = len(ok)
    return r


def secs(v: float) -> str:
    return f"{v:.2f}" if v < 10 else f"{v:.1f}"


def fmt(v, spec: str, suffix: str = "") -> str:
    return "-" if v is None else format(v, spec) + suffix


def report(results: list[dict], sizes: list[int], threads: list[int], trainers: list[str]) -> str:
    by = {(r["trainer"], r["size"], r["threads"]): r for r in results}

    def ok(t, s, n):
        r = by.get((t, s, n))
        return r if r is not None and "error" not in r else None

    head = ["trainer", "MB", "threads", "seconds", "cpu/wall", "peak RSS MB", "vocab",
            "held-out B/tok", "tokenmill speedup", "RSS vs HF"]
    rows = []
    flagged = 0
    for s in sizes:
        for n in threads:
            for t in trainers:
                r = by.get((t, s, n))
                if r is None:
                    continue
                if "error" in r:
                    rows.append([t, str(s), str(n), "error: " + r["error"]])
                    continue
                tm, hf = ok("tokenmill", s, n), ok("hf", s, n)
                speed = None if t == "tokenmill" or tm is None else r["seconds"] / tm["seconds"]
                rss = None if t == "hf" or hf is None else r["peak_rss_mb"] / hf["peak_rss_mb"]
                bpt = r.get("heldout_bytes_per_token")
                busy = r["cpu_seconds"] / r["seconds"]
                mark = "*" if n == 1 and busy < 0.9 else ""
                flagged += bool(mark)
                rows.append([
                    t, str(s), str(n), secs(r["seconds"]), f"{busy:.2f}{mark}",
                    f"{r['peak_rss_mb']:.0f}", str(r["vocab"]),
                    fmt(bpt, ".3f") if bpt is not None else "error: " + r.get("heldout_error", "?"),
                    fmt(speed, ".2f", "x"), fmt(rss, ".2f", "x"),
                ])
    widths = [len(h) for h in head]
    for row in rows:
        cells = row if len(row) == len(head) else row[:3]  # an error row: its message runs on
        widths = [max(w, len(c)) for w, c in zip(widths, cells)] + widths[len(cells):]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    for row in rows:
        if len(row) == len(head):
            lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")
        else:
            lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(row[:3], widths)) + " | " + row[3])

    if flagged:
        lines.append("* a 1-thread run that got less than 0.9 s of CPU per second: it waited (other load "
                     "on the machine?), so its time is probably too long")
    lines.append("")
    lines.append("Scaling (seconds at each size, then seconds per MB):")
    for t in trainers:
        for n in threads:
            pts = [(s, ok(t, s, n)) for s in sizes]
            pts = [(s, r["seconds"]) for s, r in pts if r is not None]
            if not pts:
                continue
            at = ", ".join(f"{s} MB {secs(sec)} s" for s, sec in pts)
            per = ", ".join(f"{sec / s:.3f}" for s, sec in pts)
            extra = ""
            if len(pts) > 1:
                (s0, t0), (s1, t1) = pts[0], pts[-1]
                extra = f"; x{t1 / t0:.1f} time for x{s1 / s0:.0f} text"
            lines.append(f"  {t} {n} thread{'s' if n > 1 else ''}: {at}; s/MB {per}{extra}")

    big = max(sizes)
    goals = []
    for n in threads:
        tm = ok("tokenmill", big, n)
        if tm is None:
            goals.append(f"  {n} thread(s): no tokenmill result at {big} MB")
            continue
        for peer in ("hf", "rustbpe"):
            # Against the peer's fastest run with at most n threads (HF's serial mode can beat
            # its 2-thread mode).
            cands = [(r["seconds"], m) for m in threads if m <= n and (r := ok(peer, big, m)) is not None]
            if cands:
                best, m = min(cands)
                x = best / tm["seconds"]
                goals.append(f"  {n} thread(s): >= 2x faster than {peer}: {'yes' if x >= 2 else 'NO'} "
                             f"({x:.2f}x, vs its {m}-thread run)")
        hf = ok("hf", big, n)
        if hf is not None:
            rr = tm["peak_rss_mb"] / hf["peak_rss_mb"]
            goals.append(f"  {n} thread(s): peak RSS <= HF's: {'yes' if rr <= 1 else 'NO'} ({rr:.2f}x)")
    lines.append("")
    lines.append(f"Goals at {big} MB (issue: >= 2x faster than HF and rustbpe, peak RSS <= HF's):")
    lines.extend(goals or ["  (no results to compare)"])
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10,50,100", help="MB of training text, comma-separated")
    ap.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    ap.add_argument("--trainers", default=",".join(TRAINERS), help="tokenmill,hf,rustbpe")
    ap.add_argument("--vocab-size", type=int, default=32768)
    ap.add_argument("--quick", action="store_true", help="sizes 10 only, threads 1,2")
    ap.add_argument("--repeat", type=int, default=1, help="runs per row; the table shows medians")
    ap.add_argument("--workdir", type=Path, default=None, help="corpus cache directory")
    ap.add_argument("--json", type=Path, default=None, help="also write the raw results here")
    ap.add_argument("--timeout", type=float, default=7200.0, help="seconds per training run")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    # Child mode (one training run), used by the parent.
    ap.add_argument("--child", choices=TRAINERS, help=argparse.SUPPRESS)
    ap.add_argument("--corpus", help=argparse.SUPPRESS)
    ap.add_argument("--heldout", help=argparse.SUPPRESS)
    ap.add_argument("--child-threads", dest="threads_n", type=int, default=1, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        a.threads = a.threads_n
        child_main(a)
        return

    sizes = [10] if a.quick else [int(x) for x in a.sizes.split(",") if x.strip()]
    threads = [1, 2] if a.quick else [int(x) for x in a.threads.split(",") if x.strip()]
    trainers = [t.strip() for t in a.trainers.split(",") if t.strip()]
    bad = [t for t in trainers if t not in TRAINERS]
    if bad:
        ap.error(f"unknown trainer(s) {bad}; choose from {','.join(TRAINERS)}")

    def log(msg: str) -> None:
        if not a.quiet:
            print(msg, file=sys.stderr, flush=True)

    sys.path.insert(0, str(HERE))
    import make_corpus

    workdir = a.workdir or make_corpus.DEFAULT_WORKDIR
    # Always build the standard 10/50/100 MB prefixes, so the held-out text is the same in every run.
    m = make_corpus.build(workdir, sorted(set(sizes) | {10, 50, 100}), log=log)

    print(cpu_model())
    print(versions())
    print(f"vocab size {a.vocab_size}, pattern cl100k, special tokens {list(SPECIALS)}; "
          f"{a.repeat} run(s) per row")
    streams = m["streams"]
    code = sum(v["mb"] for k, v in streams.items() if k in ("stdlib", "site-packages"))
    jsn = sum(v["mb"] for k, v in streams.items() if k.startswith("json/"))
    prose = sum(v["mb"] for k, v in streams.items() if k.startswith("corpus/"))
    print(f"corpus: {m['distinct_mb']:.1f} MB of distinct local material (prose en/fr/ja/zh {prose:.1f} MB, "
          f"JSON {jsn:.1f} MB, Python sources {code:.1f} MB), interleaved; held-out text "
          f"{m['heldout']['bytes'] / 1e6:.2f} MB, outside every training prefix; cache {workdir}")
    for s in sizes:
        c = m["train"][str(s)]
        note = "all distinct" if c["distinct_bytes"] >= c["bytes"] else \
            f"only {c['distinct_bytes'] / 1e6:.1f} MB distinct, the rest repeated"
        print(f"  {s} MB prefix: {c['bytes']:,} bytes ({note})")
    print()

    results = []
    total = len(sizes) * len(threads) * len(trainers) * a.repeat
    k = 0
    for s in sizes:
        for n in threads:
            for t in trainers:
                runs = []
                for _ in range(a.repeat):
                    k += 1
                    r = run_child(t, m["train"][str(s)]["path"], m["heldout"]["path"], n, a.vocab_size,
                                  a.timeout)
                    r["size"] = s
                    runs.append(r)
                    if "error" in r:
                        log(f"[{k}/{total}] {t} {s} MB {n} thread(s): {r['error']}")
                        k += a.repeat - len(runs)
                        break  # no point in repeating a failure
                    else:
                        log(f"[{k}/{total}] {t} {s} MB {n} thread(s): {secs(r['seconds'])} s, "
                            f"peak RSS {r['peak_rss_mb']:.0f} MB, vocab {r['vocab']}, "
                            f"held-out {r.get('heldout_bytes_per_token', float('nan')):.3f} B/tok")
                r = median_result(runs)
                r["size"] = s
                results.append(r)

    print(report(results, sizes, threads, trainers))
    if a.json:
        a.json.write_text(json.dumps({"cpu": cpu_model(), "versions": versions(), "vocab_size": a.vocab_size,
                                      "corpus": m, "results": results}, indent=1))


if __name__ == "__main__":
    main()
