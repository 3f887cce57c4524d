"""Corpus -> token shards on disk, from process start (issue 11): `tokenmill prepare` against
gigatoken's `encode_files` + `np.save` and the nanoGPT recipe (multiprocessing over tiktoken).

    PYTHONPATH=python python benchmarks/prepare.py [--mb 100] [--workers 2] [--repeat 1]
        [--rows text,gigatoken,...] [--doc-bytes 2000] [--workdir DIR] [--keep]

What one row measures: a **fresh process** that starts the interpreter, imports its libraries,
loads GPT-2 (r50k_base), reads one input file (already in the page cache: the script has just
written it), tokenizes every document and writes the ids to disk; nothing is shared between rows
and nothing is warmed up inside the process, so every row is a first pass (gigatoken's pre-token
cache starts empty). `s` is the wall time of that process as seen from outside: a small wrapper
process takes the time just before it forks the measured command and just after it reaps it
(`os.wait4`), so interpreter start-up, imports and exit are included. Files are written, not
fsync'ed (nobody syncs: "on disk" means in the page cache, as for any training-data job). One
untimed process first imports every library once so that no row pays for cold `.so` files.

Rows (`input:tool`; `--rows` selects by input, tool or both, comma-separated):

* `tokenmill`    -- `python -m tokenmill.cli prepare INPUT --tokenizer gpt2 --out DIR --num-workers W
  --eot append --quiet` (plus `--by-line` for text): the shard directory of `/tmp/spec/shards.md`
  (uint16 ids with `<|endoftext|>` after each document, plus per-shard document starts).
* `tokenmill-py` -- the same through `tokenmill.data.prepare([INPUT], DIR, tokenizer="gpt2",
  by_line=..., num_workers=W, quiet=True)`.
  Both print `not available` until `tokenmill.data.prepare` / the `prepare` command exist.
* `gigatoken`    -- gigatoken 0.10's own file pipeline, as issue 11 names it: `Tokenizer.from_tiktoken
  (r50k_base.tiktoken)` (faster to load than its tokenizer.json), `encode_files(source, parallel=True)`
  with `RAYON_NUM_THREADS=W`, then `np.save` of the result: `ak.flatten(result)` (uint32 ids, what
  it returns) and the row offsets (int64), two .npy files. Sources: `TextFileSource([f], separator
  ="\\n")` (one document per line; without a separator a file is ONE document), `JsonlFileSource
  ([f], "text")`, `ParquetFileSource([f], "text")`. gigatoken adds no end-of-text token (it has no
  such option); its offsets carry the same information, and the check inserts 50256 at each
  document end before comparing. It recognises special-token text inside documents (the corpus
  has none).
* `gigatoken+eot` -- the same, then builds the stream the other rows write (uint16, 50256 after
  each document: `np.insert`) and saves that one array: what it costs to get a training-ready file.
* `nanogpt`      -- the recipe of nanoGPT's `data/openwebtext/prepare.py`, without `datasets`:
  `multiprocessing.Pool(W)` (workers load `tiktoken.get_encoding("gpt2")`); the parent streams
  batches of 256 documents (text: lines; jsonl: `json.loads`; parquet: pyarrow `iter_batches`)
  to `pool.imap`; each worker runs `encode_ordinary_batch(batch, num_threads=1)` (1 thread per
  worker, so W cores in all), appends `eot_token` to each document and returns a uint16 array;
  then, as nanoGPT does, the total length is summed, a `np.memmap` uint16 `train.bin` of that
  length is created and the arrays are copied in. Note the parent process also works (reading,
  JSON parsing, unpickling), so W workers + 1 busy parent share the cores.

Columns: `MB/s` = UTF-8 bytes of document text (the same for every input form; separators and
JSON/parquet overhead not counted) / `s`, MB = 10^6 bytes. `cpu s` = user + system time of the
process and its waited-for children (cpu/s = cores used). `peak RSS` = `ru_maxrss` from
`wait4`: the peak of the largest single process of the row (for nanogpt: max of parent and
workers, not their sum). `tree PSS` = the peak of the summed PSS (`/proc/PID/smaps_rollup`) of
the process and all its descendants, sampled every 20 ms: what the row needed at once (the sum
that `peak RSS` misses for multiprocess rows; sampling can miss short spikes). `out MB` = bytes
written. `s/tm` and `RSS/tm` = this row over the `tokenmill` row of the same input (s/tm >= 1.3
for gigatoken and >= 3 for nanogpt, RSS/tm >= 1 for gigatoken are issue 11's goals).
`exact` = the sha256 of the row's full id stream (uint32, EOT after each document) equals the
reference: tiktoken 0.14 gpt2 `encode_ordinary` of every document, each followed by 50256, as
nanoGPT does. The exit status is 1 if a row is not exact.

The corpus (built in `--workdir`, reused if the parameters match; `--keep` keeps a temporary
one): `../shared/data/corpus`: the Debian Administrator's Handbook in en, fr, ja, zh, the King
James Bible, the Canterbury texts and botchan (~10.9 MB of distinct text, ~20% CJK). Their
non-blank lines are the material. The corpus is built in passes: in each pass every source's
lines are shuffled with a seeded RNG (a new seed per pass) and joined with spaces into
documents of random length (exponential, mean `--doc-bytes`, default 2000 bytes), and the
pass's documents are shuffled together. So documents never repeat, but every LINE occurs about
`--mb` / 10.9 times (9x at 100 MB), and the distinct words are those of 10.9 MB of text: more
repetitive than a real 100 MB web crawl, which favours pre-token caches (gigatoken's). Three
files hold the same documents in the same order: `corpus.txt` (one per line, "\\n" after each),
`corpus.jsonl` (`{"text": ...}`, `ensure_ascii=False`), `corpus.parquet` (one string column
`text`, snappy, row groups of ~8 MB). The lines hold no "\\r", no "\\n" and no special-token text.

`--corpus mixed` (all distinct text, for a measure without that advantage): the prose once (one
pass as above, ~10.9 MB), then GitHub's REST API description (`json/api.github.com.json.gz`,
~13 MB, cut at line ends into ~`--doc-bytes` pieces), then the `*.py` files of this Python's
standard library (~31 MB) and of site-packages (sorted by path, one document per file), until
`--mb` MB; line breaks inside a document become single spaces (lines stripped), and the
documents are shuffled. At 100 MB that is ~11% prose, ~13% JSON, ~76% Python code; the
site-packages part depends on what is installed. How much the repetition of `--corpus prose`
helps gigatoken, measured here (1 thread, CPU time of `encode_files` on 11 MB of the 100 MB
corpus): 0.17 s with a fresh Tokenizer, 0.05-0.065 s after the same instance has encoded
another 11 MB of it, ~3x; and a process's first `encode_files` call costs ~0.4 s more CPU
than later ones (one-off set-up inside gigatoken, part of its fresh-process time).

The 2-core ceiling line: how much faster two CPU-bound processes finish than one, here and now
(from formats.py); a W=2 row cannot beat its 1-worker time by more than that.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
HERE = Path(__file__).resolve().parent
RANKS = DATA / "tiktoken" / "r50k_base.tiktoken"
EOT = 50256
MB = 10**6
VERSION = 1  # bump when the corpus recipe changes: a cached corpus with another version is rebuilt
SOURCES = [
    "corpus/debian-handbook.en-US.txt.gz",
    "corpus/debian-handbook.fr-FR.txt.gz",
    "corpus/debian-handbook.ja-JP.txt.gz",
    "corpus/debian-handbook.zh-CN.txt.gz",
    "corpus/kjv.txt.gz",
    "corpus/botchan.txt",
    "corpus/canterbury/alice29.txt",
    "corpus/canterbury/asyoulik.txt",
    "corpus/canterbury/lcet10.txt",
    "corpus/canterbury/plrabn12.txt",
]
INPUTS = ["text", "jsonl", "parquet"]
FILES = {"text": "corpus.txt", "jsonl": "corpus.jsonl", "parquet": "corpus.parquet"}
TOOLS = ["tokenmill", "tokenmill-py", "gigatoken", "gigatoken+eot", "nanogpt"]
NANO_BATCH = 256  # documents per task sent to a nanogpt worker


# ------------------------------------------------------------------------------------ corpus
def _source_lines() -> list[list[str]]:
    import gzip

    out = []
    for rel in SOURCES:
        path = DATA / rel
        raw = gzip.open(path).read() if path.suffix == ".gz" else path.read_bytes()
        text = raw.decode("utf-8")
        # splitlines also cuts at \r, \x0b, \x0c, \x1c-\x1e, \x85, \u2028/9: no line-break
        # character that some by-line reader might treat differently survives.
        out.append([ln.strip() for ln in text.splitlines() if ln.strip()])
    return out


def build_docs(mb: float, doc_bytes: int, seed: int = 11, passes: int | None = None) -> list[str]:
    """Documents of shuffled prose lines, pass after pass over the material, until `mb` MB of
    text (or `passes` passes) are there."""
    import random

    sources = _source_lines()
    target = int(mb * MB)
    docs: list[str] = []
    got = 0
    npass = 0
    while got < target and npass != passes:
        rng = random.Random(seed * 1000 + npass)
        batch = []
        for lines in sources:
            lines = lines[:]
            rng.shuffle(lines)
            i = 0
            while i < len(lines):
                want = max(20, int(rng.expovariate(1 / doc_bytes)))
                j, size = i, 0
                while j < len(lines) and size < want:
                    size += len(lines[j].encode("utf-8")) + 1
                    j += 1
                batch.append(" ".join(lines[i:j]))
                i = j
        rng.shuffle(batch)
        for d in batch:
            docs.append(d)
            got += len(d.encode("utf-8"))
            if got >= target:
                break
        npass += 1
    return docs


def _py_docs(root: Path, exclude: list[Path]) -> list[str]:
    """The *.py files under `root` (sorted by path; none under `exclude`), one document each."""
    out = []
    for f in sorted(root.rglob("*.py")):
        if any(f == e or e in f.parents for e in exclude):
            continue
        try:
            raw = f.read_bytes()
        except OSError:
            continue
        if b"\x00" in raw:
            continue
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    return out


def build_mixed_docs(mb: float, doc_bytes: int, seed: int = 11) -> list[str]:
    """Distinct material: the prose once (as one pass of `build_docs`), GitHub's REST API JSON
    cut into ~`doc_bytes` pieces, then the *.py files of the standard library and of
    site-packages (one document each) until the size is reached; shuffled together."""
    import gzip
    import random
    import sysconfig

    target = int(mb * MB)
    prose = build_docs(mb, doc_bytes, seed, passes=1)
    api = gzip.open(DATA / "json" / "api.github.com.json.gz").read().decode("utf-8").splitlines()
    json_docs, cur, size = [], [], 0
    for ln in api:
        cur.append(ln)
        size += len(ln) + 1
        if size >= doc_bytes:
            json_docs.append("\n".join(cur))
            cur, size = [], 0
    json_docs.append("\n".join(cur))
    paths = sysconfig.get_paths()
    site = sorted({Path(paths["purelib"]), Path(paths["platlib"])})
    stdlib = Path(paths["stdlib"])
    docs, got = [], 0
    for d in prose + json_docs + _py_docs(stdlib, site + [stdlib / "dist-packages"]) + \
            [d for root in site for d in _py_docs(root, [])]:
        # One document per line in the text form: line breaks inside a document become spaces.
        d = " ".join(ln.strip() for ln in d.splitlines() if ln.strip())
        if not d or "<|endoftext|>" in d:
            continue
        docs.append(d)
        got += len(d.encode("utf-8"))
        if got >= target:
            break
    random.Random(seed).shuffle(docs)
    return docs


def write_inputs(docs: list[str], workdir: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    with open(workdir / FILES["text"], "w", encoding="utf-8", newline="\n") as f:
        for d in docs:
            f.write(d)
            f.write("\n")
    with open(workdir / FILES["jsonl"], "w", encoding="utf-8", newline="\n") as f:
        for d in docs:
            f.write(json.dumps({"text": d}, ensure_ascii=False))
            f.write("\n")
    avg = max(1, sum(len(d) for d in docs) // max(1, len(docs)))
    pq.write_table(pa.table({"text": pa.array(docs, pa.string())}), workdir / FILES["parquet"],
                   row_group_size=max(1, 8 * MB // avg), compression="snappy")


def reference_digest(docs: list[str], workers: int) -> tuple[str, int]:
    """sha256 of tiktoken's ids (uint32 LE), 50256 after each document; and the token count."""
    sys.path.insert(0, str(REPO / "tests"))
    import numpy as np
    import peers  # tests/peers.py: tiktoken's rank cache filled from ../shared/data

    enc = peers.tiktoken_encoding("gpt2")
    h = hashlib.sha256()
    n = 0
    step = 4096
    for k in range(0, len(docs), step):
        parts = []
        for ids in enc.encode_ordinary_batch(docs[k:k + step], num_threads=workers):
            parts.append(ids)
            parts.append([EOT])
        arr = np.fromiter((i for p in parts for i in p), dtype="<u4")
        h.update(arr.tobytes())
        n += len(arr)
    return h.hexdigest(), n


def corpus(args, workdir: Path) -> dict:
    """Builds (or reuses) the three input files; returns the manifest."""
    params = {"version": VERSION, "mb": args.mb, "doc_bytes": args.doc_bytes, "corpus": args.corpus}
    mpath = workdir / "manifest.json"
    if mpath.exists():
        m = json.loads(mpath.read_text())
        if m.get("params") == params and all((workdir / f).exists() for f in FILES.values()):
            return m
    t0 = time.perf_counter()
    docs = (build_mixed_docs if args.corpus == "mixed" else build_docs)(args.mb, args.doc_bytes)
    # gigatoken always honours special-token text; GPT-2's only special token must not occur.
    assert not any("<|endoftext|>" in d for d in docs), "special-token text in the corpus"
    write_inputs(docs, workdir)
    digest, ntok = reference_digest(docs, args.workers)
    m = {"params": params, "documents": len(docs), "text_bytes": sum(len(d.encode("utf-8")) for d in docs),
         "reference_sha256": digest, "tokens": ntok,
         "file_bytes": {k: (workdir / f).stat().st_size for k, f in FILES.items()}}
    mpath.write_text(json.dumps(m, indent=2))
    if not args.quiet:
        print(f"(corpus built in {time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    return m


# --------------------------------------------------------------------------- measured runs
def run_one(tool: str, form: str, path: str, out: str, workers: int) -> None:
    """The body of a measured process (everything here is timed)."""
    if tool == "tokenmill-py":
        from tokenmill.data import prepare

        prepare([path], out, tokenizer="gpt2", by_line=form == "text", num_workers=workers, quiet=True)
    elif tool in ("gigatoken", "gigatoken+eot"):
        import awkward as ak
        import gigatoken
        import numpy as np

        tok = gigatoken.Tokenizer.from_tiktoken(str(RANKS))
        source = {"text": lambda: gigatoken.TextFileSource([path], separator="\n"),
                  "jsonl": lambda: gigatoken.JsonlFileSource([path], field="text"),
                  "parquet": lambda: gigatoken.ParquetFileSource([path], column="text")}[form]()
        arr = tok.encode_files(source, parallel=True)
        ids = ak.to_numpy(ak.flatten(arr))
        offsets = np.asarray(arr.layout.offsets)
        os.makedirs(out)
        if tool == "gigatoken":
            np.save(os.path.join(out, "ids.npy"), ids)
            np.save(os.path.join(out, "offsets.npy"), offsets)
        else:
            stream = np.insert(ids.astype(np.uint16), offsets[1:], EOT)
            np.save(os.path.join(out, "ids.npy"), stream)
    elif tool == "nanogpt":
        run_nanogpt(form, path, out, workers)
    else:
        raise SystemExit(f"unknown tool {tool}")


_enc = None


def _nano_init() -> None:
    global _enc
    import tiktoken

    _enc = tiktoken.get_encoding("gpt2")


def _nano_batch(docs: list[str]):
    import numpy as np

    out: list[int] = []
    for ids in _enc.encode_ordinary_batch(docs, num_threads=1):
        out.extend(ids)
        out.append(_enc.eot_token)  # nanoGPT: ids.append(enc.eot_token)
    return np.array(out, dtype=np.uint16)


def _nano_batches(form: str, path: str):
    if form == "parquet":
        import pyarrow.parquet as pq

        for b in pq.ParquetFile(path).iter_batches(batch_size=NANO_BATCH, columns=["text"]):
            yield b.column(0).to_pylist()
        return
    batch: list[str] = []
    with open(path, encoding="utf-8", newline="\n") as f:
        for line in f:
            if form == "jsonl":
                batch.append(json.loads(line)["text"])
            else:
                line = line.rstrip("\n")
                if not line:
                    continue
                batch.append(line)
            if len(batch) == NANO_BATCH:
                yield batch
                batch = []
    if batch:
        yield batch


def run_nanogpt(form: str, path: str, out: str, workers: int) -> None:
    import multiprocessing

    import numpy as np

    # The pool forks before any text is read, so the workers share no corpus pages.
    with multiprocessing.Pool(workers, initializer=_nano_init) as pool:
        parts = list(pool.imap(_nano_batch, _nano_batches(form, path), chunksize=1))
    total = sum(len(p) for p in parts)
    os.makedirs(out)
    arr = np.memmap(os.path.join(out, "train.bin"), dtype=np.uint16, mode="w+", shape=(total,))
    idx = 0
    for p in parts:
        arr[idx:idx + len(p)] = p
        idx += len(p)
    arr.flush()


# ------------------------------------------------------------------------------ the wrapper
def _tree(root: int) -> list[int]:
    pids, i = [root], 0
    while i < len(pids):
        try:
            for tid in os.listdir(f"/proc/{pids[i]}/task"):
                with open(f"/proc/{pids[i]}/task/{tid}/children") as f:
                    pids.extend(int(x) for x in f.read().split())
        except OSError:
            pass
        i += 1
    return pids


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def wrap(log: str, cmd: list[str]) -> dict:
    """Runs `cmd` and reports its wall time, rusage and sampled tree PSS (the wrapper's own
    start-up is not timed: the clock starts just before the fork)."""
    peak = [0]
    done = threading.Event()
    with open(log, "wb") as logf:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT)

        def sample() -> None:
            while not done.wait(0.02):
                peak[0] = max(peak[0], sum(_pss_kb(q) for q in _tree(p.pid)))

        th = threading.Thread(target=sample, daemon=True)
        th.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    th.join()
    return {"s": wall, "rc": p.returncode, "cpu": ru.ru_utime + ru.ru_stime,
            "rss_mb": ru.ru_maxrss * 1024 / MB, "pss_mb": peak[0] * 1024 / MB}


# ------------------------------------------------------------------------------ the parent
def tokenmill_available() -> tuple[bool, bool]:
    """(Python API, CLI command) present in the tokenmill on the path?"""
    code = "import tokenmill.data as d; print(hasattr(d, 'prepare'))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    api = r.returncode == 0 and r.stdout.strip() == "True"
    r = subprocess.run([sys.executable, "-m", "tokenmill.cli", "prepare", "--help"], capture_output=True, text=True)
    return api, r.returncode == 0


def command(tool: str, form: str, path: Path, out: Path, workers: int) -> list[str]:
    if tool == "tokenmill":
        cmd = [sys.executable, "-m", "tokenmill.cli", "prepare", str(path), "--tokenizer", "gpt2", "--out", str(out),
               "--num-workers", str(workers), "--eot", "append", "--quiet"]
        return cmd + (["--by-line"] if form == "text" else [])
    return [sys.executable, str(Path(__file__).resolve()), "--one", json.dumps([tool, form, str(path), str(out), workers])]


def stream_digest(tool: str, out: Path, manifest: dict) -> tuple[str, int]:
    """sha256 of the row's full id stream as uint32 LE with 50256 after each document; bytes written."""
    import numpy as np

    written = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    if tool.startswith("tokenmill"):
        index = json.loads((out / "index.json").read_text())
        if index.get("documents") != manifest["documents"]:
            return f"documents {index.get('documents')} != {manifest['documents']}", written
        h = hashlib.sha256()
        for shard in index["shards"]:
            h.update(np.load(out / shard["files"][0]).astype("<u4").tobytes())
        return h.hexdigest(), written
    if tool == "gigatoken":
        ids = np.load(out / "ids.npy")
        offsets = np.load(out / "offsets.npy")
        if len(offsets) - 1 != manifest["documents"]:
            return f"documents {len(offsets) - 1} != {manifest['documents']}", written
        stream = np.insert(ids.astype("<u4"), offsets[1:], EOT)
    elif tool == "gigatoken+eot":
        stream = np.load(out / "ids.npy")
    else:
        stream = np.fromfile(out / "train.bin", dtype=np.uint16)
    return hashlib.sha256(stream.astype("<u4").tobytes()).hexdigest(), written


def selected(rows: str | None, form: str, tool: str) -> bool:
    if not rows:
        return True
    for pat in rows.split(","):
        if pat in (form, tool, f"{form}:{tool}"):
            return True
    return False


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=100.0, help="MB (10^6 bytes) of document text")
    ap.add_argument("--workers", type=int, default=2, help="workers / threads for every tool")
    ap.add_argument("--repeat", type=int, default=1, help="fresh processes per row (the fastest is shown)")
    ap.add_argument("--rows", help="comma-separated inputs (text,jsonl,parquet), tools (" + ",".join(TOOLS)
                    + ") or input:tool; default all")
    ap.add_argument("--doc-bytes", type=int, default=2000, help="mean document length in bytes")
    ap.add_argument("--corpus", choices=["prose", "mixed"], default="prose",
                    help="prose: repeated, shuffled prose lines; mixed: distinct prose + JSON + Python code")
    ap.add_argument("--workdir", help="where the corpus is built and kept (reused when it matches)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary work directory")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--wrap", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        run_one(*json.loads(args.one))
        return 0
    if args.wrap:
        print(json.dumps(wrap(args.wrap[0], args.wrap[1:])))
        return 0
    if not DATA.is_dir():
        print(f"shared data not found at {DATA}", file=sys.stderr)
        return 2

    sys.path.insert(0, str(REPO / "tests"))
    import peers  # noqa: F401  (tests/peers.py; sets TIKTOKEN_CACHE_DIR, inherited by the children)

    peers.prefill_tiktoken_cache()
    sys.path.insert(1, str(HERE))
    from formats import parallel_ceiling

    temp = args.workdir is None
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="tokenmill-prepare-"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        return report(args, workdir, parallel_ceiling)
    finally:
        if temp and not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        elif not args.quiet:
            print(f"(work directory kept: {workdir})", file=sys.stderr)


def report(args, workdir: Path, parallel_ceiling) -> int:
    import importlib.metadata as md

    def version(name: str) -> str:
        try:
            return md.version(name)
        except md.PackageNotFoundError:
            return "-"

    m = corpus(args, workdir)
    api, cli = tokenmill_available()
    have = {"tokenmill": cli, "tokenmill-py": api}
    cpu = next((ln.split(":", 1)[1].strip() for ln in subprocess.run(["lscpu"], capture_output=True, text=True)
                .stdout.splitlines() if ln.startswith("Model name")), "?")
    print(f"cpu: {cpu}; {os.cpu_count()} CPUs; python {sys.version.split()[0]}; gigatoken {version('gigatoken')}, "
          f"tiktoken {version('tiktoken')}, numpy {version('numpy')}, pyarrow {version('pyarrow')}")
    print(f"corpus: {m['text_bytes'] / MB:.1f} MB of text, {m['documents']} documents, {m['tokens'] - m['documents']} "
          f"GPT-2 tokens (+{m['documents']} EOT); files: "
          + ", ".join(f"{k} {v / MB:.1f} MB" for k, v in m["file_bytes"].items()))
    print(f"{args.workers} workers per row; each row the fastest of {args.repeat} fresh process(es), timed from process "
          "start to ids on disk")
    if args.workers == 2:
        print(f"machine ceiling for 2 threads: two CPU-bound processes run {parallel_ceiling():.2f}x as fast as one")

    rows = [(f, t) for f in INPUTS for t in TOOLS if selected(args.rows, f, t)]
    # One untimed process imports everything, so that no row pays for cold library files.
    warm = ("import numpy, pyarrow.parquet, tiktoken, gigatoken, awkward, multiprocessing\n"
            "try:\n import tokenmill.cli\nexcept Exception:\n pass")
    subprocess.run([sys.executable, "-c", warm], check=False)
    best: dict[tuple[str, str], dict] = {}
    for rep in range(args.repeat):
        for form, tool in rows:
            if tool in have and not have[tool]:
                best[(form, tool)] = {"na": True}
                continue
            out = workdir / f"out-{form}-{tool}"
            shutil.rmtree(out, ignore_errors=True)
            cmd = command(tool, form, workdir / FILES[form], out, args.workers)
            env = dict(os.environ)
            if tool.startswith("gigatoken"):
                env["RAYON_NUM_THREADS"] = str(args.workers)
            log = workdir / f"log-{form}-{tool}.txt"
            r = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--wrap", str(log), *cmd],
                               capture_output=True, text=True, env=env, check=True)
            got = json.loads(r.stdout.strip().splitlines()[-1])
            if got["rc"] != 0:
                tail = (log.read_text(errors="replace").strip().splitlines() or ["?"])[-1]
                got["error"] = f"exit {got['rc']}: {tail[:100]}"
            else:
                digest, got["out_mb"] = stream_digest(tool, out, m)
                got["out_mb"] /= MB
                got["exact"] = "yes" if digest == m["reference_sha256"] else f"NO ({digest[:40]})"
            shutil.rmtree(out, ignore_errors=True)
            if not args.quiet:
                what = got.get("error") or f"{got['s']:.2f} s, exact {got['exact']}"
                print(f"  [{rep + 1}/{args.repeat}] {form}:{tool}: {what}", file=sys.stderr)
            prev = best.get((form, tool))
            if prev is None or "error" in prev or ("error" not in got and got["s"] < prev["s"]):
                best[(form, tool)] = got

    mbs = m["text_bytes"] / MB
    print(f"{'input':8} {'tool':14} {'s':>7} {'MB/s':>7} {'cpu s':>7} {'peak RSS':>9} {'tree PSS':>9} {'out MB':>7} "
          f"{'s/tm':>6} {'RSS/tm':>7}  exact")
    bad = 0
    for form, tool in rows:
        r = best[(form, tool)]
        if r.get("na"):
            print(f"{form:8} {tool:14} not available (no tokenmill.data.prepare / `tokenmill prepare` yet)")
            continue
        if "error" in r:
            bad += 1
            print(f"{form:8} {tool:14} error: {r['error']}")
            continue
        tm = best.get((form, "tokenmill"))
        if not tm or "s" not in tm:
            tm = best.get((form, "tokenmill-py"))
        has_tm = bool(tm) and "s" in tm and "error" not in tm
        ratio = f"{r['s'] / tm['s']:5.2f}x" if has_tm else "-"
        rss = f"{r['rss_mb'] / tm['rss_mb']:6.2f}x" if has_tm else "-"
        bad += r["exact"] != "yes"
        print(f"{form:8} {tool:14} {r['s']:7.2f} {mbs / r['s']:7.1f} {r['cpu']:7.1f} {r['rss_mb']:9.0f} {r['pss_mb']:9.0f} "
              f"{r['out_mb']:7.1f} {ratio:>6} {rss:>7}  {r['exact']}")
    for form in INPUTS:  # issue 11's goals, where the rows exist
        tm, gt, ng = (best.get((form, t)) or {} for t in ("tokenmill", "gigatoken", "nanogpt"))
        if "s" in tm and "error" not in tm:
            goals = []
            if "s" in gt and "error" not in gt:
                goals.append(f"gigatoken/tokenmill time {gt['s'] / tm['s']:.2f}x (goal >= 1.3: "
                             f"{'met' if gt['s'] >= 1.3 * tm['s'] else 'NOT met'}), peak RSS tokenmill/gigatoken "
                             f"{tm['rss_mb'] / gt['rss_mb']:.2f} (goal <= 1: {'met' if tm['rss_mb'] <= gt['rss_mb'] else 'NOT met'})")
            if "s" in ng and "error" not in ng:
                goals.append(f"nanogpt/tokenmill time {ng['s'] / tm['s']:.2f}x (goal >= 3: "
                             f"{'met' if ng['s'] >= 3 * tm['s'] else 'NOT met'})")
            if goals:
                print(f"goals, {form}: " + "; ".join(goals))
    if args.workers == 2:  # the machine may have changed while the rows ran
        print(f"machine ceiling for 2 threads, after the rows: {parallel_ceiling():.2f}x")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
