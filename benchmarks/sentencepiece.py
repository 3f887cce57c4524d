"""SentencePiece encoding: tokenmill vs sentencepiece (and other libraries), single thread.

Usage::

    python benchmarks/sentencepiece.py            # ~1 MB per corpus, 3 rounds (about 3 minutes)
    python benchmarks/sentencepiece.py --quick    # ~0.25 MB per corpus, 1 round (< 30 s)
    python benchmarks/sentencepiece.py --models mistral --corpora multilingual --peers tokenmill sentencepiece

Models (from ../shared/data/sentencepiece): ``botchan`` (botchan_en_unigram_1000.model, Unigram)
and ``mistral`` (mistral-7b-v0.1.tokenizer.model, BPE with byte fallback). Corpora: ``english``
(corpus/botchan.txt and corpus/canterbury/*.txt) and ``multilingual``
(corpus/debian-handbook.{fr-FR,ja-JP,zh-CN}.txt.gz), as non-empty lines (``\\r`` dropped).

Peers (each only if installed; this script installs nothing):

* ``sentencepiece``: ``SentencePieceProcessor.encode(lines, num_threads=1)``, the reference;
* ``tokenmill``: ``tokenmill.SentencePiece`` from the ``.model``, ``encode_batch(lines, num_threads=1)``;
* ``tokenmill-hf`` / ``hf``: Mistral's ``tokenizer.json`` (../shared/data/hf) through tokenmill's
  own HF pipeline and through HF ``tokenizers`` (``add_special_tokens=False``);
* ``kitoken`` (``Kitoken.from_sentencepiece_file``, ``encode_all``), ``gigatoken``
  (``Tokenizer.from_sentencepiece``, BPE only, ``encode_batch_list(parallel=False)``) and
  ``tokie`` (Mistral's ``tokenizer.json``, ``encode_batch``).

Every row runs in ``--rounds`` **fresh processes** (default 3, 1 with ``--quick``; the median is
reported; RAYON_NUM_THREADS=1). Each builds the encoder, warms it up
on other lines of the same corpus (disjoint from the measured ones, which it has never seen),
then times **one first pass** over the measured lines (1 MB = 10^6 bytes of UTF-8). After
timing, the same process encodes the lines with sentencepiece and reports ``exact``: the
percentage of lines whose ids are identical. The rounds run every peer in turn (round 1: each
peer once, then round 2, ...), and ``vs spm`` is the median over rounds of the row's MB/s divided
by sentencepiece's in the same round, for the same model and corpus (on a shared host, speed
drifts between minutes). Exit status 1 if a tokenmill row is not 100% exact.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

# This file is named like the library it measures: drop its own directory from the import path
# (Python puts it first), so that `import sentencepiece` finds the library.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

REPO = HERE.parent
DATA = REPO.parent / "shared" / "data"
MODELS = {"botchan": "botchan_en_unigram_1000.model", "mistral": "mistral-7b-v0.1.tokenizer.model"}
HF_JSON = {"mistral": DATA / "hf" / "mistral-7b-v0.1.tokenizer.json"}
PEERS = ["sentencepiece", "tokenmill", "tokenmill-hf", "hf", "kitoken", "gigatoken", "tokie"]
# Which import each peer needs (a row is skipped when it is missing).
NEEDS = {"sentencepiece": "sentencepiece", "tokenmill": "tokenmill", "tokenmill-hf": "tokenmill", "hf": "tokenizers",
         "kitoken": "kitoken", "gigatoken": "gigatoken", "tokie": "tokie"}
WARMUP_LINES = 200


def corpus_lines(name: str, budget: int) -> tuple[list[str], list[str]]:
    """(measured lines, warm-up lines): about `budget` UTF-8 bytes of non-empty lines taken
    evenly from the corpus files, and the next `WARMUP_LINES` lines of each (disjoint)."""
    if name == "english":
        files = [DATA / "corpus" / "botchan.txt", *sorted((DATA / "corpus" / "canterbury").glob("*.txt"))]
    else:
        files = [DATA / "corpus" / f"debian-handbook.{lang}.txt.gz" for lang in ("fr-FR", "ja-JP", "zh-CN")]
    measured: list[str] = []
    warm: list[str] = []
    for path in files:
        if not path.exists():
            sys.exit(f"missing {path}: the benchmark needs ../shared/data (see its README.md)")
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        lines = [x for x in raw.decode("utf-8").replace("\r", "").split("\n") if x.strip()]
        take, size = 0, 0
        while take < len(lines) and size < budget // len(files):
            size += len(lines[take].encode("utf-8"))
            take += 1
        measured += lines[:take]
        warm += lines[take : take + WARMUP_LINES // len(files) + 1]
    return measured, warm


def build(peer: str, model: str):
    """A function `lines -> list of id lists` for `peer` on `model`, or a reason string."""
    path = str(DATA / "sentencepiece" / MODELS[model])
    if peer == "sentencepiece":
        import sentencepiece as spm

        sp = spm.SentencePieceProcessor(model_file=path)
        return lambda lines: sp.encode(lines, num_threads=1)
    if peer == "tokenmill":
        import tokenmill

        tm = tokenmill.SentencePiece.from_file(path)
        return lambda lines: tm.encode_batch(lines, num_threads=1)
    if peer == "kitoken":
        import kitoken

        k = kitoken.Kitoken.from_sentencepiece_file(path)
        return lambda lines: k.encode_all(lines, False)
    if peer == "gigatoken":
        import gigatoken

        if model != "mistral":
            return "BPE .model files only"
        g = gigatoken.Tokenizer.from_sentencepiece(path)
        return lambda lines: g.encode_batch_list(lines, parallel=False)
    if model not in HF_JSON:
        return "no tokenizer.json for this model"
    hf_path = str(HF_JSON[model])
    if peer == "tokenmill-hf":
        import tokenmill

        tm = tokenmill.load(hf_path)
        return lambda lines: tm.encode_batch(lines, add_special_tokens=False, num_threads=1)
    if peer == "hf":
        from tokenizers import Tokenizer

        hf = Tokenizer.from_file(hf_path)
        return lambda lines: [e.ids for e in hf.encode_batch(lines, add_special_tokens=False)]
    if peer == "tokie":
        import tokie

        tk = tokie.Tokenizer.from_json(hf_path)
        return lambda lines: [list(e.ids) for e in tk.encode_batch(lines, add_special_tokens=False)]
    raise ValueError(peer)


def child(peer: str, model: str, corpus: str, budget: int) -> None:
    """One row, in this (fresh) process: prints a JSON object."""
    lines, warm = corpus_lines(corpus, budget)
    t0 = time.perf_counter()
    enc = build(peer, model)
    load = time.perf_counter() - t0
    if isinstance(enc, str):
        print(json.dumps({"skip": enc}))
        return
    enc(warm)
    t0 = time.perf_counter()
    got = enc(lines)
    seconds = time.perf_counter() - t0
    got = [list(map(int, ids)) for ids in got]
    import sentencepiece as spm

    want = spm.SentencePieceProcessor(model_file=str(DATA / "sentencepiece" / MODELS[model])).encode(lines, num_threads=1)
    same = sum(a == b for a, b in zip(got, want))
    nbytes = sum(len(x.encode("utf-8")) for x in lines)
    print(json.dumps({"mbps": nbytes / seconds / 1e6, "exact": 100.0 * same / len(lines), "lines": len(lines),
                      "mb": nbytes / 1e6, "load_ms": load * 1e3}))


def version(dist: str) -> str:
    try:
        import importlib.metadata

        return importlib.metadata.version(dist)
    except Exception:
        return "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="~0.25 MB per corpus instead of ~1 MB")
    ap.add_argument("--rounds", type=int, default=None, help="fresh processes per row, median taken (default 3, 1 with --quick)")
    ap.add_argument("--models", nargs="+", choices=list(MODELS), default=list(MODELS))
    ap.add_argument("--corpora", nargs="+", choices=["english", "multilingual"], default=["english", "multilingual"])
    ap.add_argument("--peers", nargs="+", choices=PEERS, default=PEERS)
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        peer, model, corpus, budget = args.child
        child(peer, model, corpus, int(budget))
        return 0
    budget = 250_000 if args.quick else 1_000_000
    rounds = args.rounds or (1 if args.quick else 3)
    env = dict(os.environ, RAYON_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    cpu = next((x.split(":", 1)[1].strip() for x in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
                if x.startswith("Model name")), platform.processor())
    print(f"CPU: {cpu}; Python {platform.python_version()}; "
          + ", ".join(f"{d} {version(d)}" for d in ("tokenmill", "sentencepiece", "tokenizers", "kitoken", "gigatoken", "tokie")))
    print()
    header = f"| {'model':<8} | {'corpus':<12} | {'encoder':<13} | {'MB/s':>7} | {'vs spm':>6} | {'exact':>7} | {'load ms':>7} |"
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    bad = False
    for model in args.models:
        for corpus in args.corpora:
            peers = [p for p in ["sentencepiece"] + [p for p in args.peers if p != "sentencepiece"]
                     if importlib.util.find_spec(NEEDS[p]) is not None]
            # Rounds outside, peers inside: each round measures every peer within seconds, and
            # `vs spm` is the median of the per-round ratios (a shared host's speed drifts).
            runs: dict[str, list[dict]] = {p: [] for p in peers}
            dead: set[str] = set()
            for _ in range(rounds):
                for peer in peers:
                    if peer in dead:
                        continue
                    r = subprocess.run([sys.executable, __file__, "--child", peer, model, corpus, str(budget)],
                                       capture_output=True, text=True, env=env)
                    if r.returncode != 0:
                        print(f"| {model:<8} | {corpus:<12} | {peer:<13} | failed: {r.stderr.strip().splitlines()[-1:]}", flush=True)
                        dead.add(peer)
                        continue
                    runs[peer].append(json.loads(r.stdout.strip().splitlines()[-1]))
                    if "skip" in runs[peer][-1]:
                        dead.add(peer)
            base = runs.get("sentencepiece", [])
            for peer in peers:
                got = runs[peer]
                if peer in dead or len(got) < rounds:
                    continue
                row = dict(got[0], mbps=statistics.median(x["mbps"] for x in got),
                           load_ms=statistics.median(x["load_ms"] for x in got), exact=min(x["exact"] for x in got))
                paired = len(base) == rounds and "sentencepiece" not in dead
                ratio = "-" if peer == "sentencepiece" or not paired else \
                    f"{statistics.median(a['mbps'] / b['mbps'] for a, b in zip(got, base)):.2f}x"
                if peer == "tokenmill" and row["exact"] < 100.0:
                    bad = True
                print(f"| {model:<8} | {corpus:<12} | {peer:<13} | {row['mbps']:>7.2f} | {ratio:>6} | {row['exact']:>6.2f}% | "
                      f"{row['load_ms']:>7.1f} |", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
