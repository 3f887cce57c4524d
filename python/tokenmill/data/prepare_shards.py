"""`prepare`: a corpus in, shards of token ids out (``tokenmill prepare``).

The Rust core does the work (``tokenmill._core.prepare``): one thread reads and decodes the
files, the workers encode, the calling thread writes the shards in input order; no Python
string is made per document. This module is the policy around it:

* which tokenizer (anything `tokenmill.load` reads, or a tokenizer object) and which
  end-of-text id (``eot="append"``, the default, puts it after each document; ``"prepend"``
  before; ``"none"`` never);
* the shard dtype: uint16 when every id fits, else uint32;
* the job's identity (tokenizer hash, source files and sizes, options), kept in ``job.json``:
  a directory that holds another job's shards is refused unless ``overwrite=True``; the same
  job resumes where it stopped (after ``kill -9`` at any moment: finished shards are kept,
  the one in flight is redone) and ends byte-identical to an uninterrupted run;
* work units: the input files are grouped, in order, into units of at least ``unit_bytes``
  on disk, a JSON lines or ``by_line`` text file (not gzipped) bigger than that being cut into
  byte ranges of ``unit_bytes`` first (each range holds the lines that start in it), a parquet
  file into runs of whole row groups, so one big file spreads over ranks and tasks too; each
  unit's shards are numbered within it (``shard_<unit>_<k>``) and a unit ends
  with ``unit_<unit>.done.json``. Only the file sizes decide the units, so the units can be
  written by one process (``engine="local"``), by Ray tasks (``engine="ray"``), by the tasks
  of any ``concurrent.futures.Executor`` (``engine=...``), or by separate jobs
  (``rank``/``world_size``, e.g. a Slurm array), and the directory ends byte-identical in
  every case: tokenmill, not the engine, names the shards and decides when a unit is done;
* ``index.json``, written last and atomically (by whichever run finds every unit done),
  which `read_tokens` and `TokenDataset` read;
* the summary and the progress bar.

The directory format is described in `tokenmill.data.shard_files` (and version-tagged in
``index.json``). Inputs: plain text (a document per file, or per line with ``by_line=True``),
JSON lines (``.jsonl``, ``.ndjson``: the string in ``text_field``), each optionally gzipped,
and parquet (``.parquet``: the ``text_field`` column, read with pyarrow a batch of rows at a
time and handed to the core as one buffer per batch; a null row is a malformed record, like a
JSON line without its text).

Tokenizers: a byte-level BPE `Encoding` runs on the core's encoder; a ``tokenizer.json`` on
the core's pipeline for it; a WordPiece tokenizer through its ``tokenizer.json`` export, which
gives the same ids (the export is tested for that); word, char and classic BPE models (no
``tokenizer.json`` form) through their own ``encode_ordinary``, called by the core's workers
one at a time (exact, resumable and byte-identical like the rest, but encoding at Python speed).

What it does not do: deduplication or filtering.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from .. import _core
from .._args import int_arg
from .._progress import Progress, human_bytes
from ..encoding import Encoding
from ..errors import CorpusError, CorpusFileNotFoundError, InputError, OutputError, UnsupportedError
from ..formats import load
from ..models.huggingface import HFTokenizer
from .sources import parquet_rows
from .units import UNIT_BYTES, gzipped, is_distributed, parquet_row_groups, pieces, run_tasks, units as _units

__all__ = ["prepare", "FORMAT", "VERSION"]

FORMAT = "tokenmill-shards"
VERSION = 1
_DEFAULT_SHARD_TOKENS = 100_000_000
# End-of-text tokens of tokenizer.json files, most specific first.
_EOT_NAMES = ("<|endoftext|>", "<|end_of_text|>", "</s>", "<eos>", "<|eot_id|>", "[SEP]")


def _sources(inputs: Any) -> list[tuple[str, str, int]]:
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    out = []
    for p in inputs:
        path = os.fspath(p)
        if not os.path.isfile(path):
            if os.path.isdir(path):
                raise InputError(f"{path}: is a directory; pass the corpus files themselves")
            raise CorpusFileNotFoundError("no such corpus file", path)
        name = path.lower().removesuffix(".gz")
        fmt = "parquet" if name.endswith(".parquet") else "jsonl" if name.endswith((".jsonl", ".ndjson")) else "text"
        out.append((path, fmt, os.path.getsize(path)))
    if not out:
        raise InputError("no input files given")
    return out


def _tokenizer(tokenizer: Any) -> tuple[Any, str, str]:
    """(tokenizer object, name, sha256 of its defining bytes)."""
    import hashlib

    name = os.fspath(tokenizer) if isinstance(tokenizer, (str, os.PathLike)) else None
    tok = load(name) if name is not None else tokenizer
    if isinstance(tok, Encoding):
        body = json.dumps({"pattern": tok.pattern, "specials": sorted(tok.special_tokens.items())}).encode()
        # A standard encoding knows its rank file's (published, load-checked) hash: no dump needed.
        ranks = tok._ranks_sha256 or hashlib.sha256(tok.rank_file_bytes()).hexdigest()
        digest = hashlib.sha256(ranks.encode() + b"\0" + body).hexdigest()
        return tok, name or tok.name, digest
    if isinstance(tok, HFTokenizer):
        return tok, name or "tokenizer.json", hashlib.sha256(tok._json).hexdigest()
    # WordPiece runs through its exact tokenizer.json export, which the core compiles like any
    # other file; families without one (word, char, classic BPE) through their own
    # `encode_ordinary`, called from the core's workers (exact by construction, not parallel).
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        try:
            tok.export("hf", os.path.join(d, "tokenizer.json"))
        except (ValueError, NotImplementedError):
            tok.save(os.path.join(d, "tokenizer.json"))
            data = Path(d, "tokenizer.json").read_bytes()
            return tok, name or type(tok).__name__, hashlib.sha256(data).hexdigest()
        data = Path(d, "tokenizer.json").read_bytes()
    return HFTokenizer(data), name or type(tok).__name__, hashlib.sha256(data).hexdigest()


def _eot_id(tok: Any, eot: str, eot_token: str | None) -> int | None:
    if eot == "none":
        return None
    specials = tok.special_tokens
    names = (eot_token,) if eot_token is not None else _EOT_NAMES
    for n in names:
        if n in specials:
            return int(specials[n])
    if eot_token is not None:
        raise InputError(f"eot_token {eot_token!r} is not a special token of this tokenizer; "
                         f"its special tokens: {sorted(specials)[:12]}")
    raise InputError("this tokenizer has no end-of-text token (looked for "
                     f"{', '.join(_EOT_NAMES)}); pass eot_token=... (--eot-token) to name one of its special "
                     "tokens, or eot=\"none\" (--eot none)")


def _unit_marker(u: int) -> str:
    return f"unit_{u:06d}.done.json"


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _run_unit(tok: Any, sources: list[tuple[str, str, int]], unit: list[list], out: str, u: int, cfg: dict,
              report: Callable[[int, int, int], None] | None) -> tuple[int, int]:
    """Writes unit `u` (resuming it) and its marker; returns (shards kept from before, input bytes read)."""
    skip = sorted(int(i) for i in tok.special_tokens.values()) if isinstance(tok, HFTokenizer) else []
    core = tok._core if isinstance(tok, (Encoding, HFTokenizer)) else tok.encode_ordinary
    ranges = [None if a is None else (a, b) for _, a, b, _ in unit]
    raw = _core.prepare(core, [(sources[i][0], sources[i][1]) for i, *_ in unit], out, unit=u, skip_ids=skip, ranges=ranges,
                        progress=report, open_rows=parquet_rows(cfg["text_field"]), **cfg)
    s = json.loads(raw)
    rec = {"unit": u, "sources": [i for i, *_ in unit], **{k: s[k] for k in ("documents", "tokens", "text_bytes", "skipped", "empty",
                                                              "source_documents")},
           "shards": [{k: sh[k] for k in ("files", "tokens", "documents")} for sh in s["shards"]]}
    _write_json(Path(out) / _unit_marker(u), rec)
    return s["resumed"], s["input_bytes"]


def _unit_task(spec: str, sources: list[tuple[str, str, int]], unit: list[list], out: str, u: int,
               cfg: dict) -> tuple[int, int]:
    """One unit in an executor's worker process (the tokenizer is loaded there)."""
    tok, _, _ = _tokenizer(spec)
    return _run_unit(tok, sources, unit, out, u, cfg, None)


def _write_json(path: Path, obj: Any) -> None:
    """Atomically: a temporary file (named per process: ranks may write the same file at
    once, with the same bytes), synced, renamed."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(obj, indent=2, sort_keys=True) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _clear(out: Path) -> None:
    for p in out.iterdir():
        n = p.name
        if n in ("index.json", "job.json") or n.startswith(("shard_", ".shard_", "unit_", ".unit_", ".index.json",
                                                           ".job.json")):
            p.unlink()


def prepare(inputs: str | os.PathLike | Sequence[str | os.PathLike], out: str | os.PathLike, *,
            tokenizer: Any = "gpt2", text_field: str = "text", by_line: bool = False,
            shard_tokens: int | None = None, num_workers: int | None = None, eot: str = "append",
            eot_token: str | None = None, format: str = "npy", skip_bad: bool = False, overwrite: bool = False,
            quiet: bool = False, progress: Callable[[int, int, int], None] | None = None, rank: int = 0,
            world_size: int = 1, engine: Any = None, unit_bytes: int | None = None) -> dict:
    """Tokenizes `inputs` into shards of ids in directory `out` (resumable; see the module docstring).

    Args:
        inputs: corpus files (.txt, .jsonl, .ndjson, each optionally .gz; .parquet).
        out: the shard directory (created if missing).
        tokenizer: a standard encoding name, a tokenizer file, or a tokenizer object.
        text_field: JSON lines: the field holding the document.
        by_line: plain text: one document per line instead of per file.
        shard_tokens: a shard ends at the first document end at or after this many tokens
            (default 100,000,000).
        num_workers: encoding threads (default: all cores).
        eot: end-of-text placement: "append" (after each document), "prepend" or "none".
        eot_token: the end-of-text token (default: the tokenizer's <|endoftext|>, </s>, ...).
        format: the shard layout: "npy" (numpy, default), "megatron" (Megatron-LM's indexed
            dataset, .bin + .idx) or "llmc" (llm.c's .bin shards; uint16 vocabularies only).
        skip_bad: count and skip malformed JSON lines instead of failing.
        overwrite: replace a directory holding another job's shards.
        quiet: no progress bar and no summary line.
        progress: called with (input bytes read, tokens, documents) about ten times a second.
        rank, world_size: process only the work units ``u`` with ``u % world_size == rank``
            (Slurm-style array jobs writing one directory); the last rank to finish writes
            ``index.json``. The output is byte-identical to a single run.
        engine: ``"local"`` (default: the units one after the other, on `num_workers` threads),
            ``"ray"`` (a Ray task per unit on the cluster ``ray.init()`` joins; needs
            ``tokenmill[ray]``) or any ``concurrent.futures.Executor`` (a task per unit). The
            tokenizer, then given by name or path, is loaded in each task; a failed task can
            be rerun: units resume.
        unit_bytes: input files are grouped into work units of at least this many bytes on
            disk (default 1 GB); shards never span units. Part of the job's identity.

    Returns:
        The summary: documents, tokens, text_bytes, skipped, empty, shards, seconds, complete
        (False while other ranks still have units to write), ...

    >>> import tempfile, os, numpy as np
    >>> d = tempfile.mkdtemp(); src = os.path.join(d, "c.txt")
    >>> _ = open(src, "w").write("hello world\\nsecond line\\n")
    >>> s = prepare([src], os.path.join(d, "out"), by_line=True, quiet=True)
    >>> s["documents"], s["tokens"]
    (2, 6)
    >>> np.load(os.path.join(d, "out", "shard_000000_000000.npy")).tolist()
    [31373, 995, 50256, 12227, 1627, 50256]
    """
    if eot not in ("append", "prepend", "none"):
        raise InputError(f"eot must be 'append', 'prepend' or 'none', not {eot!r}")
    if format not in ("npy", "megatron", "llmc"):
        raise UnsupportedError(f"shard format {format!r} is not supported; supported: 'npy', 'megatron', 'llmc'")
    if shard_tokens is not None:
        int_arg("shard_tokens", shard_tokens, 1)
    if num_workers is not None:
        int_arg("num_workers", num_workers, 1)
    t0 = time.perf_counter()
    sources = _sources(inputs)
    tok, tok_name, tok_hash = _tokenizer(tokenizer)
    eot_id = _eot_id(tok, eot, eot_token)
    vocab_size = tok.vocab_size
    dtype = "uint16" if vocab_size <= 1 << 16 else "uint32"
    if format == "llmc" and dtype == "uint32":
        raise UnsupportedError(f"llm.c shards hold uint16 ids only, and this tokenizer has {vocab_size:,} ids; "
                               "use format='npy' or 'megatron'")
    workers = num_workers or os.cpu_count() or 1
    if not (isinstance(world_size, int) and world_size >= 1 and isinstance(rank, int) and 0 <= rank < world_size):
        raise InputError(f"need 0 <= rank < world_size, got rank={rank!r}, world_size={world_size!r}")
    unit_bytes = UNIT_BYTES if unit_bytes is None else int_arg("unit_bytes", unit_bytes, 1)
    options = {"by_line": by_line, "text_field": text_field, "shard_tokens": shard_tokens or _DEFAULT_SHARD_TOKENS,
               "skip_bad": skip_bad, "unit_bytes": unit_bytes}
    # The plan (pieces of files in units) is part of the job: a run that would plan otherwise
    # must not resume this one.
    splittable = [(f == "jsonl" or (f == "text" and by_line)) and not gzipped(p) for p, f, _ in sources]
    groups = [parquet_row_groups(p) if f == "parquet" and n > unit_bytes else None for p, f, n in sources]
    plan = pieces([n for _, _, n in sources], unit_bytes, splittable, groups)
    units = [[list(plan[k]) for k in group] for group in _units([piece[3] for piece in plan], unit_bytes)]
    job = {"format": FORMAT, "version": VERSION, "layout": format, "dtype": dtype, "eot": eot, "eot_id": eot_id,
           "tokenizer": {"name": tok_name, "vocab_size": vocab_size, "sha256": tok_hash},
           "sources": [{"path": p, "format": f, "bytes": n} for p, f, n in sources], "options": options, "units": units}
    outp = Path(out)
    outp.mkdir(parents=True, exist_ok=True)
    job_file = outp / "job.json"
    if job_file.exists():
        try:
            old = json.loads(job_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = None
        # A directory without a finished shard has nothing to lose: it is simply reused.
        if old != job and any(p.name.endswith(".done.json") for p in outp.iterdir()):
            if not overwrite:
                diff = sorted(k for k in job if not isinstance(old, dict) or old.get(k) != job[k])
                raise OutputError(f"{outp} holds the shards of another job (differs in: {', '.join(diff) or 'job.json'}); "
                                  "pass overwrite=True (--overwrite) to replace them, or choose another directory")
            _clear(outp)
        elif old != job:
            _clear(outp)
    elif overwrite:
        _clear(outp)
    elif any(p.name.startswith("shard_") for p in outp.iterdir()):
        raise OutputError(f"{outp} holds shard files but no job.json; pass overwrite=True (--overwrite) to replace them")
    if not job_file.exists():
        _write_json(job_file, job)

    mine = [u for u in range(len(units)) if u % world_size == rank]
    cfg = {"shard_tokens": options["shard_tokens"], "workers": workers, "eot": eot, "eot_id": eot_id, "dtype": dtype,
           "layout": format, "by_line": by_line, "text_field": text_field, "skip_bad": skip_bad}
    todo = [u for u in mine if not (outp / _unit_marker(u)).exists()]
    # The core counts uncompressed text: a total in file sizes only holds for plain files.
    plain = all(f != "parquet" and not p.lower().endswith(".gz") for p, f, _ in sources)
    total = sum(piece[3] for u in todo for piece in units[u]) if plain else None
    bar = Progress("prepare", total=total, enabled=not quiet)
    done_bytes = [0]
    resumed = input_bytes = 0
    try:
        if not is_distributed(engine):
            def report(nbytes: int, tokens: int, docs: int) -> None:
                bar.update(done_bytes[0] + nbytes, f"{tokens:,} tokens, {docs:,} docs")
                if progress is not None:
                    progress(done_bytes[0] + nbytes, tokens, docs)

            for u in todo:
                r, got = _run_unit(tok, sources, units[u], str(outp), u, cfg, report)
                resumed += r
                input_bytes += got
                done_bytes[0] += got
        else:
            if not isinstance(tokenizer, (str, os.PathLike)):
                raise InputError("a distributed engine loads the tokenizer in each task: pass tokenizer as a name or path")
            spec = os.fspath(tokenizer)
            args = [(spec, sources, units[u], str(outp), u, cfg) for u in todo]
            for r, got in run_tasks(engine, _unit_task, args):
                resumed += r
                input_bytes += got
                bar.update(input_bytes)
    finally:
        bar.close()
    resumed += sum(len(_read_json(outp / _unit_marker(u))["shards"]) for u in mine if u not in todo)
    recs = [_read_json(outp / _unit_marker(u)) if (outp / _unit_marker(u)).exists() else None for u in range(len(units))]
    complete = all(r is not None for r in recs)
    have = [r for r in recs if r is not None]
    totals = {k: sum(r[k] for r in have) for k in ("documents", "tokens", "text_bytes", "skipped", "empty")}
    if complete:
        if totals["documents"] == 0:
            raise CorpusError("the corpus is empty: no document has any text (check the files, text_field and by_line)")
        shards, tokens, docs = [], 0, 0
        per_source = [0] * len(sources)
        for r in recs:
            for sh in r["shards"]:
                shards.append({"files": sh["files"], "tokens": sh["tokens"], "documents": sh["documents"],
                               "first_token": tokens, "first_document": docs})
                tokens += sh["tokens"]
                docs += sh["documents"]
            for i, n in zip(r["sources"], r["source_documents"] + [0] * len(r["sources"])):
                per_source[i] += n  # a file cut into ranges is counted in several units
        index = dict(job)
        index["sources"] = [dict(src, documents=n) for src, n in zip(job["sources"], per_source)]
        index.update(totals, shards=shards)
        _write_json(outp / "index.json", index)
    seconds = time.perf_counter() - t0
    summary = dict(totals, resumed=resumed, input_bytes=input_bytes, complete=complete,
                   shards=sum(len(r["shards"]) for r in have), seconds=seconds, dtype=dtype, out=str(outp))
    if not quiet:
        bpt = totals["text_bytes"] / totals["tokens"] if totals["tokens"] else 0.0
        print(f"prepared {totals['documents']:,} documents, {totals['tokens']:,} tokens ({bpt:.2f} bytes/token) in "
              f"{summary['shards']} shard(s), {dtype}, {human_bytes(input_bytes / max(seconds, 1e-9))}/s"
              + (f"; {resumed} shard(s) kept from an earlier run" if resumed else "")
              + (f"; skipped {totals['skipped']:,} malformed record(s)" if totals["skipped"] else "")
              + (f"; {totals['empty']:,} empty document(s) (no tokens)" if totals["empty"] else "")
              + ("" if complete else f"; rank {rank} of {world_size} done, {sum(r is None for r in recs)} unit(s) "
                 "left to other ranks (the last rank to finish writes index.json)"))
    return summary
