"""Encoding throughput: tokenmill vs tiktoken (and HF tokenizers, if installed), in one run.

Usage::

    python benchmarks/encode.py            # full run (a few minutes)
    python benchmarks/encode.py --quick    # smaller corpora, 3 repeats (< 1 minute)
    python benchmarks/encode.py --repeat 9 --encodings o200k_base --corpora code
    python benchmarks/encode.py --first-pass   # vs gigatoken and fastokens: one core, fresh process, new text (~6 minutes)
    python benchmarks/encode.py --first-pass --interleaved   # the same in one process, alternating pass by pass
    python benchmarks/encode.py --custom       # patterns no hand-written matcher covers, vs tiktoken (~2 minutes)
    python benchmarks/encode.py --memory       # peak RSS of encoding 100 MB of new text, vs gigatoken (~3 minutes)

Each measurement is the median of ``--repeat`` timed runs after one untimed warm-up; MB/s is
bytes of UTF-8 input (1 MB = 10**6 bytes) divided by that median. Every tokenmill (and HF)
result is also compared with tiktoken's ids for the same input ("exact" column). Nothing is
downloaded: tiktoken's rank files come from ../shared/data via tests/peers.py. See
benchmarks/README.md for what each column and mode means.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.util
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

# HF tokenizers sizes its thread pool once, at first use: pin it to the largest thread count
# measured here so its batch row is comparable with the others.
os.environ.setdefault("RAYON_NUM_THREADS", "2")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")

import numpy as np  # noqa: E402

import tokenmill  # noqa: E402

ENCODINGS = ["cl100k_base", "o200k_base", "r50k_base"]
CORPORA = ["english", "code", "multilingual"]
THREADS = [1, 2]
DOC_BYTES = 16_000  # prose is cut into documents of about this size (at line ends) for batches


# ----------------------------------------------------------------------------- corpora
def _read(path: Path) -> str:
    """Exact text of a (possibly gzipped) file: no newline translation."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8")


def _documents(text: str, size: int = DOC_BYTES) -> list[str]:
    """`text` cut at line ends into documents of about `size` bytes (joined they give `text`)."""
    docs, cur, n = [], [], 0
    for line in text.splitlines(keepends=True):
        cur.append(line)
        n += len(line.encode("utf-8"))
        if n >= size:
            docs.append("".join(cur))
            cur, n = [], 0
    if cur:
        docs.append("".join(cur))
    return docs


def _cap(docs: list[str], limit: int | None) -> list[str]:
    if limit is None:
        return docs
    out, n = [], 0
    for d in docs:
        if n >= limit:
            break
        out.append(d)
        n += len(d.encode("utf-8"))
    return out


def load_corpora(quick: bool, names: list[str]) -> dict[str, list[str]]:
    """{corpus name: documents}. The one-big-text modes encode ``"".join(documents)``."""
    data = peers.shared_data() / "corpus"
    limit = 400_000 if quick else None
    out = {}
    if "english" in names:
        files = sorted((data / "canterbury").glob("*.txt")) + [data / "botchan.txt"]
        docs = [d for f in files for d in _documents(_read(f))]
        out["english"] = _cap(docs, limit)
    if "code" in names:
        target = 500_000 if quick else 5_000_000
        docs, n = [], 0
        for _, src in peers.stdlib_sources():
            if n >= target:
                break
            docs.append(src)
            n += len(src.encode("utf-8"))
        out["code"] = docs
    if "multilingual" in names:
        per_lang = None if limit is None else limit // 3
        docs = []
        for lang in ("fr-FR", "ja-JP", "zh-CN"):
            docs += _cap(_documents(_read(data / f"debian-handbook.{lang}.txt.gz")), per_lang)
        out["multilingual"] = docs
    return out


# ----------------------------------------------------------------------------- timing
def timed(fn, repeat: int):
    """(median seconds over `repeat` runs after one warm-up, result of the warm-up)."""
    result = fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


class Row:
    __slots__ = ("encoder", "encoding", "corpus", "mode", "threads", "mbps", "ratio", "exact")

    def __init__(self, encoder, encoding, corpus, mode, threads, mbps, exact):
        self.encoder, self.encoding, self.corpus, self.mode = encoder, encoding, corpus, mode
        self.threads, self.mbps, self.exact, self.ratio = threads, mbps, exact, None


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
    return a == b


def _load_hf():
    """HF tokenizers' gpt-4o (o200k) tokenizer, or None when the library is not installed."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        return None
    path = peers.shared_data() / "hf" / "gpt-4o.o200k.tokenizer.json.gz"
    return Tokenizer.from_str(gzip.decompress(path.read_bytes()).decode("utf-8"))


def bench(encodings, corpora, repeat, with_hf, log, quick=False) -> list[Row]:
    rows: list[Row] = []
    hf = _load_hf() if with_hf else None
    for enc_name in encodings:
        tm = tokenmill.get_encoding(enc_name)
        tk = peers.tiktoken_encoding(enc_name)
        for corpus, docs in corpora.items():
            big = "".join(docs)
            nbytes = len(big.encode("utf-8"))
            mb = nbytes / 1e6
            log(f"{enc_name} {corpus}: {mb:.2f} MB, {len(docs)} documents")

            def add(encoder, mode, threads, fn, reference):
                secs, result = timed(fn, repeat)
                exact = "-" if reference is None else ("yes" if _same(result, reference) else "NO")
                rows.append(Row(encoder, enc_name, corpus, mode, threads, mb / secs, exact))
                log(f"  {encoder:10} {mode:8} {threads}  {mb / secs:8.2f} MB/s  exact={exact}")
                return result

            # tiktoken first: its results are the reference ids.
            ref_big = add("tiktoken", "single", 1, lambda: tk.encode_ordinary(big), None)
            ref_docs = add("tiktoken", "per-doc", 1, lambda: [tk.encode_ordinary(d) for d in docs], None)
            for n in THREADS:
                add("tiktoken", "batch", n, lambda n=n: tk.encode_ordinary_batch(docs, num_threads=n), None)
            add("tiktoken", "numpy", 1, lambda: tk.encode_to_numpy(big, disallowed_special=()), None)
            add("tiktoken", "count", 1, lambda: len(tk.encode(big, disallowed_special=())), None)

            add("tokenmill", "single", 1, lambda: tm.encode_ordinary(big), ref_big)
            add("tokenmill", "per-doc", 1, lambda: [tm.encode_ordinary(d) for d in docs], ref_docs)
            for n in THREADS:
                add("tokenmill", "batch", n, lambda n=n: tm.encode_ordinary_batch(docs, num_threads=n), ref_docs)
            add("tokenmill", "numpy", 1, lambda: tm.encode_to_numpy(big, disallowed_special=()), ref_big)
            add("tokenmill", "count", 1, lambda: tm.count(big, disallowed_special=()), len(ref_big))
            # Many documents straight into one uint32 array (no per-token Python object).
            flat_ref = [t for d in ref_docs for t in d]
            for n in THREADS:
                add("tokenmill", "batch-np", n,
                    lambda n=n: tm.encode_batch_to_numpy(docs, num_threads=n)[0], flat_ref)
            # One document split at safe points across threads (tiktoken cannot do this).
            for n in THREADS:
                add("tokenmill", "one-doc", n,
                    lambda n=n: tm.encode_to_numpy(big, disallowed_special=(), num_threads=n), ref_big)

            if hf is not None and enc_name == "o200k_base":
                add("hf", "single", 1, lambda: hf.encode(big, add_special_tokens=False).ids, ref_big)
                if not quick:  # HF is the slowest by far: --quick keeps its single and batch rows
                    add("hf", "per-doc", 1, lambda: [hf.encode(d, add_special_tokens=False).ids for d in docs], ref_docs)
                threads = int(os.environ["RAYON_NUM_THREADS"])
                add("hf", "batch", threads,
                    lambda: [e.ids for e in hf.encode_batch(docs, add_special_tokens=False)], ref_docs)
    # ratio: against tiktoken's row with the same encoding, corpus, mode and threads
    base = {(r.encoding, r.corpus, r.mode, r.threads): r.mbps for r in rows if r.encoder == "tiktoken"}
    # batch-np is compared with tiktoken's batch at the same thread count; one-doc with
    # tiktoken's single-threaded encode of the same text (it has no parallel path for one text).
    alias = {"batch-np": lambda r: ("batch", r.threads), "one-doc": lambda r: ("numpy", 1)}
    for r in rows:
        mode, threads = alias[r.mode](r) if r.mode in alias else (r.mode, r.threads)
        b = base.get((r.encoding, r.corpus, mode, threads))
        r.ratio = None if b is None else r.mbps / b
    return rows


# ----------------------------------------------------------------------------- first pass
FIRST_PASS_LIBS = ["tokenmill", "gigatoken", "fastokens"]


def first_pass_texts(mb: float) -> dict[str, str]:
    """Up to `mb` MB of distinct text per corpus, cut at a line end: English prose (Canterbury,
    botchan, the English Debian handbook and the King James Bible), Python (the standard
    library, file by file) and multilingual (the fr/ja/zh handbooks). Prose and multilingual
    sources are interleaved by ~16 KB document, so that any half holds the same mixture."""
    data = peers.shared_data() / "corpus"
    cap = int(mb * 1e6)

    def take(parts) -> str:
        out, n = [], 0
        for part in parts:
            size = len(part.encode("utf-8"))
            if n + size > cap:
                head = part.encode("utf-8")[: cap - n].decode("utf-8", "ignore")
                out.append(head[: head.rfind("\n") + 1])
                break
            out.append(part)
            n += size
        return "".join(out)

    def interleaved(paths) -> list[str]:
        streams = [_documents(_read(p)) for p in paths]
        return [d for i in range(max(map(len, streams))) for s in streams if i < len(s) for d in [s[i]]]

    prose = sorted((data / "canterbury").glob("*.txt")) + [data / "botchan.txt", data / "debian-handbook.en-US.txt.gz",
                                                           data / "kjv.txt.gz"]
    langs = [data / f"debian-handbook.{lang}.txt.gz" for lang in ("fr-FR", "ja-JP", "zh-CN")]
    return {
        "prose": take(interleaved(prose)),
        "code": take(src for _, src in peers.stdlib_sources()),
        "multilingual": take(interleaved(langs)),
    }


def first_pass_child(lib: str, enc_name: str, corpus: str, mb: float) -> dict:
    """In a fresh process: build the encoder, warm it up on 64 KB of *another* corpus (lazy
    set-up only), then time three passes: A (first half of the text: a first pass over new
    text), B (second half: new text of the same kind after A, where caches kept across calls
    may help) and B again (the same text: what a cache without bound flatters), with the same
    `str` object and as a new one ("copy": a `str` carries the UTF-8 form a library asked
    CPython for on the first call, which the same object then hands over for free)."""
    import resource

    texts = first_pass_texts(mb)
    text = texts[corpus]
    other = texts["code" if corpus != "code" else "prose"][:65536]
    cut = text.rfind("\n", 0, len(text) // 2) + 1 or len(text) // 2
    a, b = text[:cut], text[cut:]
    ranks = str(peers.shared_data() / "tiktoken" / f"{enc_name}.tiktoken")
    if lib == "tokenmill":
        enc = tokenmill.get_encoding(enc_name)
        fn = lambda t: enc.encode_to_numpy(t, disallowed_special=(), num_threads=1)  # noqa: E731
    elif lib == "gigatoken":
        import gigatoken

        tok = gigatoken.Tokenizer.from_tiktoken(ranks)
        fn = lambda t: np.asarray(tok.encode(t))  # noqa: E731
    else:
        import fastokens

        # Its fastest call for one text to a uint32 array (`encode_ordinary(t).ids` builds a list
        # and an Encoding object with offsets too).
        tok = fastokens.Tokenizer.from_tiktoken(ranks, encoding=enc_name)
        fn = lambda t: np.frombuffer(tok.encode_batch_flat([t])[0], np.uint32)  # noqa: E731
    fn(other)
    out = {}
    # B again as a new `str` object too: a library that reads a `str` through CPython's UTF-8
    # form (`PyUnicode_AsUTF8AndSize`, gigatoken) leaves that form cached inside it, and B
    # again with the same object then skips the transcoding (session 37).
    b_copy = "".join([b[:1], b[1:]])
    nb = len(b.encode("utf-8"))
    nbytes = {id(a): len(a.encode("utf-8")), id(b): nb, id(b_copy): nb}
    for name, t in (("first", a), ("second", b), ("same", b), ("same_copy", b_copy)):
        t0 = time.perf_counter()
        ids = fn(t)
        # (Until session 25 the text's length in UTF-8 was computed here, inside the timed
        # span: CPython's encoding of the text was timed with each call.)
        seconds = time.perf_counter() - t0
        out[name] = nbytes[id(t)] / 1e6 / seconds
        if name == "first":
            out["digest"] = hashlib.sha1(np.asarray(ids, dtype=np.uint32).tobytes()).hexdigest()
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["mb"] = len(text.encode("utf-8")) / 1e6
    return out


def first_pass(encodings, corpora, mb: float, rounds: int, log) -> int:
    """The first-pass table: per encoding and corpus, tokenmill and each installed peer of
    FIRST_PASS_LIBS (gigatoken, fastokens) in `rounds` fresh processes pinned to one core
    (`taskset -c 0` when available); the median MB/s of each pass, and on each peer's row
    tokenmill's speed over the peer's (above 1: tokenmill is faster)."""
    import json
    import shutil

    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    libs = ["tokenmill"]
    for peer in FIRST_PASS_LIBS[1:]:
        if importlib.util.find_spec(peer) is None:
            log(f"{peer} is not installed (pip install {peer}): no {peer} rows")
        else:
            libs.append(peer)
    results: dict = {}
    for enc_name in encodings:
        for corpus in corpora:
            # The libraries take turns, round by round: the host's speed drifts over tens of
            # seconds, and rows run one after the other would put the drift into the ratio.
            all_runs: dict = {lib: [] for lib in libs}
            for _ in range(rounds):
                for lib in libs:
                    cmd = pin + [sys.executable, __file__, "--first-pass-child", json.dumps([lib, enc_name, corpus, mb])]
                    r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "RAYON_NUM_THREADS": "1"})
                    if r.returncode != 0:
                        raise SystemExit(f"{lib} {enc_name} {corpus} failed:\n{r.stderr[-2000:]}")
                    all_runs[lib].append(json.loads(r.stdout.strip().splitlines()[-1]))
            for lib, runs in all_runs.items():
                med = {k: statistics.median(x[k] for x in runs) for k in ("first", "second", "same", "same_copy", "rss_mb")}
                med["digest"], med["mb"] = runs[0]["digest"], runs[0]["mb"]
                results[(enc_name, corpus, lib)] = med
                log(f"{enc_name} {corpus} {lib}: " + " ".join(f"{k} {med[k]:.1f}" for k in ("first", "second", "same")))
    print(cpu_model())
    print(f"{versions()}; one core ({'taskset -c 0' if pin else 'not pinned'}), a fresh process per run, the "
          f"libraries taking turns, median of {rounds}; A = first half of the text (first pass over new text), B = second half after A, B again "
          f"(same B: the same str object; copy: B again as a new str object); MB/s")
    head = (f"{'encoding':12} {'corpus':13} {'library':10} {'MB':>5} {'first A':>8} {'new B':>8} {'same B':>8} {'copy':>7} {'RSS MB':>7}  "
            f"tokenmill / this (first/new/same/copy)  same ids")
    print(head)
    print("-" * len(head))
    for (enc_name, corpus, lib), m in results.items():
        t = results[(enc_name, corpus, "tokenmill")]
        vs = "-" if lib == "tokenmill" else " / ".join(f"{t[k] / m[k]:.2f}x" for k in ("first", "second", "same", "same_copy"))
        same = "-" if lib == "tokenmill" else ("yes" if t["digest"] == m["digest"] else "NO")
        print(f"{enc_name:12} {corpus:13} {lib:10} {m['mb']:5.1f} {m['first']:8.1f} {m['second']:8.1f} {m['same']:8.1f} "
              f"{m['same_copy']:7.1f} {m['rss_mb']:7.0f}  {vs:38}  {same}")
    return 0


def first_pass_interleaved(encodings, corpora, mb: float, rounds: int, log) -> int:
    """`--first-pass --interleaved`: the same three passes as `first_pass`, in one process
    pinned to one core, the two libraries alternating pass by pass (who goes first alternates
    by round), each round with new encoders (tokenmill: `with_cache_capacity`, a copy with an
    empty cache; gigatoken: `from_tiktoken` again) and new `str` objects (none carries a UTF-8
    form from an earlier call). Why: this host's speed drifts by up to 2x between moments, and
    fresh processes run seconds apart land in different moments; passes a few milliseconds
    apart do not. Reported per column: the geometric mean of the rounds' ratios (gigatoken's
    time / tokenmill's), and how many rounds tokenmill was faster."""
    import math

    pair = ["tokenmill", "gigatoken"]  # this mode compares these two only

    try:
        import gigatoken
    except ImportError:
        log("--interleaved compares against gigatoken, which is not installed (pip install gigatoken)")
        return 2
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    texts = first_pass_texts(mb)
    print(cpu_model())
    print(f"{versions()}; one process on one core, passes alternating between the libraries, {rounds} rounds, "
          "new encoders and new str objects each round; A = first half of the text (first pass), B = second half "
          "after A, B again; MB/s medians, and tokenmill vs gigatoken as the geometric mean of the rounds' ratios")
    head = (f"{'encoding':12} {'corpus':13} {'MB':>5} {'tokenmill A / B / same':>24} {'gigatoken A / B / same':>24}  "
            f"vs gigatoken (first/new/same)  rounds faster")
    print(head)
    print("-" * len(head))
    for enc_name in encodings:
        base = tokenmill.get_encoding(enc_name)
        for corpus in corpora:
            text = texts[corpus]
            other = texts["code" if corpus != "code" else "prose"][:65536]
            cut = text.rfind("\n", 0, len(text) // 2) + 1 or len(text) // 2
            halves = {"first": text[:cut], "second": text[cut:]}
            nbytes = {k: len(v.encode("utf-8")) for k, v in halves.items()}
            speeds: dict = {(lib, k): [] for lib in pair for k in ("first", "second", "same")}
            for r in range(rounds):
                enc = base.with_cache_capacity(base.cache_capacity)
                tok = gigatoken.Tokenizer.from_tiktoken(str(peers.shared_data() / "tiktoken" / f"{enc_name}.tiktoken"))
                fns = {"tokenmill": lambda t: enc.encode_to_numpy(t, disallowed_special=(), num_threads=1),
                       "gigatoken": lambda t: tok.encode(t)}
                for f in fns.values():
                    f((other + " ")[:-1])
                order = pair if r % 2 == 0 else pair[::-1]
                # A new str per library and pass (B again: the same object as that library's B).
                objs = {lib: {k: (halves[k] + " ")[:-1] for k in halves} for lib in order}
                for k, half in (("first", "first"), ("second", "second"), ("same", "second")):
                    for lib in order:
                        t0 = time.perf_counter()
                        fns[lib](objs[lib][half])
                        speeds[(lib, k)].append(nbytes[half] / 1e6 / (time.perf_counter() - t0))
                del enc, tok, fns
            cols = ("first", "second", "same")
            ratio = {k: [a / b for a, b in zip(speeds[("tokenmill", k)], speeds[("gigatoken", k)])] for k in cols}
            geo = " / ".join(f"{math.exp(sum(map(math.log, ratio[k])) / rounds):.2f}x" for k in cols)
            wins = " / ".join(str(sum(x > 1 for x in ratio[k])) for k in cols)
            med = {lib: " / ".join(f"{statistics.median(speeds[(lib, k)]):.0f}" for k in cols) for lib in pair}
            mb_text = sum(nbytes.values()) / 1e6
            print(f"{enc_name:12} {corpus:13} {mb_text:5.1f} {med['tokenmill']:>24} {med['gigatoken']:>24}  {geo:28}  {wins} of {rounds}")
            log(f"{enc_name} {corpus} done")
    return 0


# ----------------------------------------------------------------------------- memory
def memory_child(lib: str, enc_name: str, path: str, chunk_mb: float) -> dict:
    """In a fresh process: read the text, build the encoder, then encode all of it, in one call
    (`chunk_mb` 0) or in calls of `chunk_mb` MB whose outputs are dropped (a stream of
    documents, where a cache kept across calls grows); the peak RSS before and after."""
    def status(field: str) -> float:
        """A `/proc/self/status` figure (kB) in MiB."""
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
        raise SystemExit(f"no {field} in /proc/self/status (Linux only)")

    text = Path(path).read_text(encoding="utf-8")
    if lib == "tokenmill":
        enc = tokenmill.get_encoding(enc_name)
        fn = lambda t: enc.encode_to_numpy(t, disallowed_special=(), num_threads=1)  # noqa: E731
    else:
        import gigatoken

        tok = gigatoken.Tokenizer.from_tiktoken(str(peers.shared_data() / "tiktoken" / f"{enc_name}.tiktoken"))
        fn = tok.encode
    fn("warm up")
    # Reading and decoding the text peaks far above what it keeps: start the peak afresh
    # (`clear_refs` 5 resets VmHWM, Linux 4.0+), so that the peak is the encoding's.
    Path("/proc/self/clear_refs").write_text("5")
    before = status("VmRSS")
    t0 = time.perf_counter()
    if chunk_mb <= 0:
        n = len(fn(text))
    else:
        n, step = 0, int(chunk_mb * 1e6)
        for start in range(0, len(text), step):
            n += len(fn(text[start:start + step]))
    seconds = time.perf_counter() - t0
    peak = status("VmHWM")
    return {"before": before, "peak": peak, "tokens": n, "seconds": seconds, "mb": len(text.encode("utf-8")) / 1e6}


def memory(encodings, mb: int, log) -> int:
    """Peak RSS of encoding `mb` MB of new text (make_corpus's mixed corpus: prose in four
    languages, JSON, Python), tokenmill against gigatoken, each in a fresh process on one core:
    one call on the whole text, and calls of 1 MB (caches kept across calls may grow)."""
    import json
    import shutil

    import make_corpus

    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    path = make_corpus.DEFAULT_WORKDIR / f"train-{mb}MB.txt"
    make_corpus.build(make_corpus.DEFAULT_WORKDIR, [mb], log=log)
    try:
        import gigatoken  # noqa: F401
        libs = ["tokenmill", "gigatoken"]
    except ImportError:
        log("gigatoken is not installed (pip install gigatoken): tokenmill rows only")
        libs = ["tokenmill"]
    rows = []
    for enc_name in encodings:
        for chunk in (0.0, 1.0):
            for lib in libs:
                cmd = pin + [sys.executable, __file__, "--memory-child", json.dumps([lib, enc_name, str(path), chunk])]
                r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "RAYON_NUM_THREADS": "1"})
                if r.returncode != 0:
                    raise SystemExit(f"{lib} {enc_name} failed:\n{r.stderr[-2000:]}")
                m = json.loads(r.stdout.strip().splitlines()[-1])
                rows.append((enc_name, "one call" if chunk <= 0 else f"{chunk:g} MB calls", lib, m))
                log(f"{enc_name} {rows[-1][1]} {lib}: peak {m['peak']:.0f} MB, {m['mb'] / m['seconds']:.1f} MB/s")
    print(cpu_model())
    print(f"{versions()}; one core, fresh process per row; {rows[0][3]['mb']:.0f} MB of new text "
          f"(make_corpus.py); RSS in MiB: before (VmRSS once the text is read and the encoder built) and "
          f"the peak while encoding (VmHWM, reset first); MB/s with MB = 10^6 bytes")
    head = f"{'encoding':12} {'calls':12} {'library':10} {'RSS before':>10} {'peak RSS':>9} {'growth':>7} {'MB/s':>7} {'tokens':>11}"
    print(head)
    print("-" * len(head))
    for enc_name, calls, lib, m in rows:
        print(f"{enc_name:12} {calls:12} {lib:10} {m['before']:10.0f} {m['peak']:9.0f} {m['peak'] - m['before']:7.0f} "
              f"{m['mb'] / m['seconds']:7.1f} {m['tokens']:11,}")
    return 0


# ----------------------------------------------------------------------------- custom patterns
LLAMA3_PAT = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
# Patterns that no hand-written matcher covers (each with a look-ahead, as GPT-style patterns
# have), with the rank file they run on here.
CUSTOM = {
    # (Llama 3's pattern with one digit per piece is Qwen2's, which has a hand-written matcher.)
    "llama3-2digit": (LLAMA3_PAT.replace(r"\p{N}{1,3}", r"\p{N}{1,2}"), "cl100k_base"),
    "o200k-1digit": (None, "o200k_base"),  # o200k's pattern with one digit per piece
    # tiktoken's cl100k spelling (possessive quantifiers, which the DFA runs as greedy ones
    # where that changes nothing) with runs of up to two digits.
    "cl100k-2digit": (None, "cl100k_base"),
}


def custom(corpora, mb: float, repeat: int, log) -> int:
    """Encoders with custom patterns: tokenmill (its lazy-DFA engine), tokenmill on the
    backtracking engine (the same pattern wrapped in a group, which the DFA does not take) and
    tiktoken (`fancy_regex`), same ranks. Each run is the first call of a new encoder object, so
    no cache kept across calls helps; the median of `repeat` runs."""
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    from tokenmill.patterns import CL100K_PAT, O200K_PAT

    texts = first_pass_texts(mb)
    rows, ok = [], True
    engines: dict[str, str] = {}  # tokenmill's pre-tokenizer per pattern (every row should say "dfa")
    for name, (pattern, ranks_name) in CUSTOM.items():
        if name == "o200k-1digit":
            pattern = O200K_PAT.replace(r"\p{N}{1,3}", r"\p{N}")
        elif name == "cl100k-2digit":
            pattern = CL100K_PAT.replace(r"\p{N}{1,3}+", r"\p{N}{1,2}+")
        ranks = load_tiktoken_bpe(str(peers.shared_data() / "tiktoken" / f"{ranks_name}.tiktoken"))
        makers = {
            "tokenmill": lambda p=pattern: tokenmill.Encoding("c", p, ranks),
            "tm backtrack": lambda p=pattern: tokenmill.Encoding("c", f"(?:{p})", ranks),
            "tiktoken": lambda p=pattern: tiktoken.Encoding("c", pat_str=p, mergeable_ranks=ranks, special_tokens={}),
        }
        for corpus in corpora:
            text = texts[corpus]
            size = len(text.encode("utf-8")) / 1e6
            speeds, ids = {}, {}
            for lib, make in makers.items():
                times = []
                for _ in range(repeat):
                    enc = make()
                    t0 = time.perf_counter()
                    got = enc.encode_ordinary(text)
                    times.append(time.perf_counter() - t0)
                ids[lib] = got
                speeds[lib] = size / statistics.median(times)
                engine = getattr(enc, "pretokenizer", "fancy_regex")
                engines.setdefault(name, engine)
                log(f"{name} {corpus} {lib} ({engine}): {speeds[lib]:.1f} MB/s")
            exact = all(ids[lib] == ids["tiktoken"] for lib in ids)
            ok &= exact
            rows.append((name, corpus, size, speeds, exact))
    print(f"{versions()}; one thread, first call of a new encoder, median of {repeat}; MB/s")
    head = (f"{'pattern':14} {'corpus':13} {'MB':>4} {'tokenmill':>9} {'tm backtrack':>12} {'tiktoken':>8}  "
            f"{'vs tiktoken':>11}  exact  engine")
    print(head)
    print("-" * len(head))
    for name, corpus, size, sp, exact in rows:
        print(f"{name:14} {corpus:13} {size:4.1f} {sp['tokenmill']:9.1f} {sp['tm backtrack']:12.1f} {sp['tiktoken']:8.1f}  "
              f"{sp['tokenmill'] / sp['tiktoken']:10.2f}x  {'yes' if exact else 'NO ':5}  {engines[name]}")
    return 0 if ok else 1


# ----------------------------------------------------------------------------- report
def cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        for line in out.splitlines():
            if line.lower().startswith("model name"):
                return line.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return "Model name: " + line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "Model name: " + (platform.processor() or "unknown")


def versions() -> str:
    import tiktoken

    parts = [f"python {platform.python_version()}", f"tokenmill {tokenmill.__version__}",
             f"tiktoken {tiktoken.__version__}", f"numpy {np.__version__}"]
    try:
        import tokenizers

        parts.append(f"tokenizers {tokenizers.__version__}")
    except ImportError:
        parts.append("tokenizers not installed")
    return ", ".join(parts)


def table(rows: list[Row]) -> str:
    head = ["encoder", "encoding", "corpus", "mode", "threads", "MB/s", "vs tiktoken", "exact"]
    body = [
        [r.encoder, r.encoding, r.corpus, r.mode, str(r.threads), f"{r.mbps:.2f}",
         "-" if r.ratio is None or r.encoder == "tiktoken" else f"{r.ratio:.2f}x", r.exact]
        for r in rows
    ]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    right = {4, 5, 6}
    fmt = lambda cells: "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    lines = [fmt(head), fmt(["-" * w for w in widths])] + [fmt(b) for b in body]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="smaller corpora (~0.4-0.5 MB each), 3 repeats by default, no HF per-doc rows")
    p.add_argument("--repeat", type=int, default=None, help="timed runs per measurement (default 5; 3 with --quick)")
    p.add_argument("--encodings", nargs="+", default=ENCODINGS, choices=ENCODINGS, metavar="NAME")
    p.add_argument("--corpora", nargs="+", default=CORPORA, choices=CORPORA, metavar="NAME")
    p.add_argument("--no-hf", action="store_true", help="skip HF tokenizers even if installed")
    p.add_argument("--quiet", action="store_true", help="print only the final report")
    p.add_argument("--first-pass", action="store_true",
                   help="tokenmill vs gigatoken and fastokens, one core, fresh process, new text (see first_pass)")
    p.add_argument("--interleaved", action="store_true",
                   help="--first-pass in one process, the libraries alternating pass by pass (see first_pass_interleaved)")
    p.add_argument("--custom", action="store_true", help="custom patterns (no hand-written matcher) vs tiktoken")
    p.add_argument("--mb", type=float, default=None, help="--first-pass / --custom: MB of text per corpus (default 20 / 4)")
    p.add_argument("--rounds", type=int, default=3, help="--first-pass: fresh processes per row (default 3)")
    p.add_argument("--memory", action="store_true",
                   help="peak RSS of encoding 100 MB of new text, tokenmill vs gigatoken (see memory)")
    p.add_argument("--first-pass-child", help=argparse.SUPPRESS)
    p.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.first_pass_child:
        import json

        print(json.dumps(first_pass_child(*json.loads(args.first_pass_child))))
        return 0
    if args.memory_child:
        import json

        print(json.dumps(memory_child(*json.loads(args.memory_child))))
        return 0
    repeat = args.repeat if args.repeat is not None else (3 if args.quick else 5)
    if repeat < 1:
        p.error("--repeat must be >= 1")

    def log(msg):
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    if args.first_pass:
        names = {"english": "prose"}
        encs = [e for e in args.encodings if e != "r50k_base"] if args.encodings == ENCODINGS else args.encodings
        corpora = [names.get(c, c) for c in args.corpora]
        if args.interleaved:
            return first_pass_interleaved(encs, corpora, args.mb or 20.0, args.rounds, log)
        return first_pass(encs, corpora, args.mb or 20.0, args.rounds, log)
    if args.memory:
        encs = [e for e in args.encodings if e != "r50k_base"] if args.encodings == ENCODINGS else args.encodings
        return memory(encs, int(args.mb or 100), log)
    if args.custom:
        return custom([{"english": "prose"}.get(c, c) for c in args.corpora], args.mb or 4.0, repeat, log)
    corpora = load_corpora(args.quick, args.corpora)
    rows = bench(args.encodings, corpora, repeat, not args.no_hf, log, args.quick)
    print(cpu_model())
    print(f"{versions()}; {os.cpu_count()} CPUs")
    print(f"median of {repeat} runs after 1 warm-up; MB = 10^6 bytes of UTF-8 input"
          + ("; --quick corpora" if args.quick else ""))
    print(table(rows))
    print(f"total time {time.perf_counter() - t0:.1f} s")
    return 0 if all(r.exact != "NO" for r in rows if r.encoder == "tokenmill") else 1


if __name__ == "__main__":
    raise SystemExit(main())
