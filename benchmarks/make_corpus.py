"""Builds the offline "mixed" training corpus used by benchmarks/train.py.

Usage::

    python benchmarks/make_corpus.py                       # build (or reuse) in the default workdir
    python benchmarks/make_corpus.py --workdir /tmp/tm-train --sizes 10,50,100 --rebuild

Nothing is downloaded. The material, read as UTF-8 (files that do not decode, or hold NUL bytes,
are skipped), comes in streams, each in a fixed sorted order:

* one per file of ``../shared/data/corpus`` -- botchan, Canterbury texts, the Debian handbook in
  en/fr/ja/zh and the King James Bible (~10.8 MB in all), cut into documents of ~64k characters at line ends;
* ``../shared/data/json/api.github.com.json.gz`` (~13 MB), cut the same way;
* ``stdlib``: the ``*.py`` files of this Python's standard library (site-packages excluded),
  sorted by path, one document per file (~31 MB);
* ``site-packages``: the ``*.py`` files of site-packages, sorted by path, one document per file, only as
  many as are needed to reach the target size.

The documents are interleaved by a weighted round-robin (the next document comes from the stream
that has given the smallest share of its own total so far), so every prefix holds about the same
mixture. The first ``max(sizes)`` MB (cut at a line end) are the training text; the next ~2 MB
are the held-out text for bytes-per-token, never part of any training prefix. If there is not
enough distinct material, the held-out text is taken from the end of the material first, and the
rest is repeated until the training text is long enough; the manifest records how many distinct MB
each prefix holds. MB = 10^6 bytes.

The files, under ``--workdir``: ``train-{N}MB.txt`` for each size, ``heldout.txt`` and
``manifest.json``. A later call with the same version and held-out size, asking for sizes that are
already built, reuses them (``--rebuild`` forces a new build).
The site-packages part depends on what is installed on the machine (the manifest lists the
stream sizes and the sha256 of each built file), so compare results across machines with care.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

VERSION = 2  # bump when the recipe changes: cached corpora with another version are rebuilt
MB = 10**6
REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
DOC_CHARS = 64 * 1024  # prose/json documents: ~64k characters, cut at line ends
DEFAULT_WORKDIR = Path(tempfile.gettempdir()) / "tokenmill-train-bench"


def _decode(raw: bytes) -> str | None:
    if b"\x00" in raw:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def _read(path: Path) -> str | None:
    raw = gzip.open(path).read() if path.suffix == ".gz" else path.read_bytes()
    return _decode(raw)


def _split_docs(text: str, size: int = DOC_CHARS) -> list[str]:
    """`text` cut into pieces of about `size` characters, each ending at a line end."""
    docs = []
    start = 0
    while start < len(text):
        cut = text.find("\n", start + size)
        end = len(text) if cut < 0 else cut + 1
        docs.append(text[start:end])
        start = end
    return docs


def _with_newline(doc: str) -> str:
    return doc if doc.endswith("\n") else doc + "\n"


def _py_files(root: Path, exclude: list[Path]) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        dirnames[:] = sorted(n for n in dirnames if n != "__pycache__" and (d / n) not in exclude)
        out.extend(d / f for f in filenames if f.endswith(".py"))
    return sorted(out, key=lambda p: p.relative_to(root).as_posix())


def _streams(target_bytes: int) -> list[tuple[str, list[str], list[str]]]:
    """[(name, documents, source labels)] with the site-packages stream capped at what is needed."""
    prose_files = sorted(p for p in (DATA / "corpus").rglob("*") if p.is_file())
    prose = [(p, _split_docs(_with_newline(t))) for p in prose_files if (t := _read(p))]
    json_files = sorted((DATA / "json").glob("*.json.gz"))
    jsn = [(p, _split_docs(_with_newline(t))) for p in json_files if (t := _read(p))]

    paths = sysconfig.get_paths()
    stdlib = Path(paths["stdlib"])
    site_roots = sorted({Path(paths["purelib"]), Path(paths["platlib"])})
    std_docs = [_with_newline(t) for p in _py_files(stdlib, site_roots + [stdlib / "dist-packages"])
                if (t := _read(p))]

    have = sum(len(d.encode()) for _, docs in prose + jsn for d in docs) + sum(len(d.encode()) for d in std_docs)
    site_docs: list[str] = []
    site_bytes = 0
    for root in site_roots:
        if not root.is_dir():
            continue
        for p in _py_files(root, []):
            if have + site_bytes >= target_bytes:
                break
            t = _read(p)
            if t:
                site_docs.append(_with_newline(t))
                site_bytes += len(site_docs[-1].encode())
    # Each prose and JSON file is a stream of its own, so that every prefix (and the held-out
    # text) has a proportional part of each of them (Japanese and Chinese included).
    return [(str(p.relative_to(DATA)), docs, [str(p.relative_to(DATA))]) for p, docs in prose + jsn] + [
        ("stdlib", std_docs, [str(stdlib)]),
        ("site-packages", site_docs, [str(r) for r in site_roots]),
    ]


def _interleave(streams: list[tuple[str, list[str], list[str]]]) -> list[str]:
    sizes = [[len(d.encode()) for d in docs] for _, docs, _ in streams]
    totals = [max(1, sum(s)) for s in sizes]
    pos = [0] * len(streams)
    done = [0] * len(streams)
    out = []
    while True:
        live = [i for i in range(len(streams)) if pos[i] < len(streams[i][1])]
        if not live:
            return out
        i = min(live, key=lambda k: (done[k] / totals[k], k))
        out.append(streams[i][1][pos[i]])
        done[i] += sizes[i][pos[i]]
        pos[i] += 1


def _cut(data: bytes, size: int) -> bytes:
    """The longest prefix of `data` of at most `size` bytes that ends with a newline."""
    if len(data) <= size:
        return data
    end = data.rfind(b"\n", 0, size)
    return data[: end + 1] if end >= 0 else data[:size]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def build(workdir: Path, sizes: list[int], heldout_mb: float = 2.0, rebuild: bool = False,
          log=lambda msg: print(msg, file=sys.stderr)) -> dict:
    """Builds (or reuses) the corpora; returns the manifest (paths are absolute strings)."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    manifest_path = workdir / "manifest.json"
    want = {"version": VERSION, "sizes_mb": sorted(set(sizes)), "heldout_mb": heldout_mb}
    if manifest_path.exists() and not rebuild:
        try:
            m = json.loads(manifest_path.read_text())
            files = [m["heldout"]["path"]] + [c["path"] for c in m["train"].values()]
            same = m.get("version") == VERSION and m.get("heldout_mb") == heldout_mb
            if same and set(want["sizes_mb"]) <= set(m["sizes_mb"]) and all(Path(f).exists() for f in files):
                return m
        except (ValueError, KeyError, TypeError):
            pass

    t0 = time.perf_counter()
    max_bytes = max(sizes) * MB
    held_bytes = int(heldout_mb * MB)
    log(f"building the corpus in {workdir} (once; later runs reuse it) ...")
    streams = _streams(max_bytes + held_bytes + MB)  # + 1 MB slack for the cuts at line ends
    docs = _interleave(streams)
    data = "".join(docs).encode()
    distinct = len(data)
    if distinct >= max_bytes + held_bytes:
        train = _cut(data, max_bytes)
        heldout = _cut(data[len(train):], held_bytes)
        train_distinct = len(train)
    else:
        # Not enough material: the held-out text is the end of it, the rest is repeated.
        start = data.find(b"\n", max(0, distinct - held_bytes))
        if start < 0 or start + 1 >= distinct:
            raise SystemExit(f"only {distinct / MB:.1f} MB of material: too little for a held-out text")
        heldout = data[start + 1:]
        base = data[: start + 1]
        train_distinct = len(base)
        train = _cut(base * (max_bytes // len(base) + 1), max_bytes)
    del data

    m = dict(want)
    m["distinct_mb"] = round(distinct / MB, 3)
    m["streams"] = {name: {"mb": round(sum(len(d.encode()) for d in ds) / MB, 3), "documents": len(ds),
                           "sources": src} for name, ds, src in streams}
    m["train"] = {}
    for size in sorted(set(sizes)):
        part = _cut(train, size * MB)
        p = workdir / f"train-{size}MB.txt"
        p.write_bytes(part)
        m["train"][str(size)] = {"path": str(p), "bytes": len(part),
                                 "distinct_bytes": min(len(part), train_distinct), "sha256": _sha256(p)}
    p = workdir / "heldout.txt"
    p.write_bytes(heldout)
    m["heldout"] = {"path": str(p), "bytes": len(heldout), "sha256": _sha256(p)}
    manifest_path.write_text(json.dumps(m, indent=1))
    log(f"built in {time.perf_counter() - t0:.1f} s: {distinct / MB:.1f} MB of distinct material")
    return m


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    ap.add_argument("--sizes", default="10,50,100", help="training prefixes in MB (default 10,50,100)")
    ap.add_argument("--heldout-mb", type=float, default=2.0)
    ap.add_argument("--rebuild", action="store_true", help="build again even if cached")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",") if s.strip()]
    m = build(a.workdir, sizes, a.heldout_mb, a.rebuild)
    print(json.dumps({k: v for k, v in m.items() if k != "streams"}, indent=1))
    for name, s in m["streams"].items():
        print(f"{name:45s} {s['mb']:7.2f} MB  {s['documents']:5d} documents")


if __name__ == "__main__":
    main()
