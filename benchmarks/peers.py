"""Other fast BPE libraries (PyPI peers) vs tokenmill: exactness and single-core speed.

Usage::

    python benchmarks/peers.py            # ~1 MB per corpus, cl100k_base + o200k_base, 3 rounds (~2-4 minutes)
    python benchmarks/peers.py --quick    # ~0.3 MB per corpus, o200k_base only, 2 rounds (< 1 minute)
    python benchmarks/peers.py --peers fastokens gigatoken --corpora code
    python benchmarks/peers.py --docs 16000   # the same text as documents of ~16 KB, a call each

Peers: tokendagger, bpe-openai, riptoken, gigatoken, wordchipper, fastokens, tokie, kitoken,
toktok (counts only) and HF tokenizers, each used only if it is installed (this script never
installs anything; see benchmarks/README.md for how they were installed). Each is built
offline from ../shared/data (see ``build_*`` below and the README); the tokenizer.json peers
(HF, tokie) read the GPT-4o file for o200k_base and tokenmill's export for cl100k_base.

Every library runs in ``--rounds`` fresh processes of its own, pinned to one core
(``taskset -c 0``: fastokens and tokie split one text across threads whatever
RAYON_NUM_THREADS says), the libraries taking turns. In each process every row gets its own
encoder instance (some peers, gigatoken and fastokens, keep pre-token encodings per instance,
and a row sharing one would meet its text a second time); for each corpus it encodes a
disjoint warm-up text of the same corpus (lazy set-up, and caches primed with realistic text),
then times one encode of the measured text, which neither that process nor that instance has
seen:

* ``MB/s first pass``: median over the processes of that one encode; the ratio column uses it;
* ``MB/s same text``: in the last process, the median of ``--repeat`` more encodes of the same
  text (inflated for peers that keep pre-tokens across calls).

``--docs BYTES`` cuts the measured text into documents of about that many bytes (whole lines)
and times one call per document instead of one call for the whole text: a long-running
process encoding a stream of documents, where the call's size decides what a cache within a
call can save and what each call's set-up costs. Exactness is then against tiktoken's ids of
each document.

1 MB = 10^6 bytes of UTF-8. ``tokenmill/peer`` is tokenmill's first-pass MB/s over the row's,
for the same kind of result (a list, a numpy array, a count). ``exact`` compares the ids (a
digest of them) with tiktoken's ``encode_ordinary``, or the count with the number of tiktoken's
ids. The exit status is 1 if a tokenmill row is not exact.
"""

from __future__ import annotations

import os

# Single thread for every rayon-based peer (riptoken, gigatoken, wordchipper, HF): must be set
# before any of them is imported.
os.environ["RAYON_NUM_THREADS"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"

import argparse  # noqa: E402
import gzip  # noqa: E402
import hashlib  # noqa: E402
import importlib.metadata  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


def _load_test_peers():
    """tests/peers.py (offline tiktoken and ../shared/data), loaded under its own name: this
    file is also called peers.py."""
    spec = importlib.util.spec_from_file_location("tokenmill_test_peers", REPO / "tests" / "peers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


testpeers = _load_test_peers()


import tokenmill  # noqa: E402

ENCODINGS = ["cl100k_base", "o200k_base"]
CORPORA = ["english", "code", "multilingual"]
PEERS = ["tokendagger", "bpe-openai", "riptoken", "gigatoken", "wordchipper", "fastokens", "tokie", "kitoken", "toktok", "hf"]


def rank_file(name: str) -> Path:
    return testpeers.shared_data() / "tiktoken" / f"{name}.tiktoken"


# ----------------------------------------------------------------------------- corpora
def _read(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8")


def _head(text: str, limit: int) -> str:
    """The first whole lines of `text` adding up to about `limit` UTF-8 bytes."""
    out, n = [], 0
    for line in text.splitlines(keepends=True):
        if n >= limit:
            break
        out.append(line)
        n += len(line.encode("utf-8"))
    return "".join(out)


def _split(text: str, size: int) -> tuple[str, str]:
    """(the first whole lines of `text` adding up to about `size` bytes, up to `size` bytes of the
    lines after them)."""
    first = _head(text, size)
    return first, _head(text[len(first):], size)


def documents(text: str, size: int) -> list[str]:
    """`text` cut into documents of whole lines adding up to about `size` bytes each; all of
    `text` when `size` is 0."""
    if not size:
        return [text]
    docs = []
    while text:
        docs.append(_head(text, size) or text)
        text = text[len(docs[-1]):]
    return docs


def load_corpora(size: int, names) -> dict[str, tuple[str, str]]:
    """{corpus: (measured text of about `size` bytes, a disjoint warm-up text from the same
    source)}; exact file bytes, no newline translation."""
    data = testpeers.shared_data() / "corpus"
    out = {}
    if "english" in names:  # 1.46 MB in all: the warm-up text is what is left (>= 0.46 MB)
        files = sorted((data / "canterbury").glob("*.txt")) + [data / "botchan.txt"]
        out["english"] = _split("".join(_read(f) for f in files), size)
    if "code" in names:
        parts, n = [[], []], 0
        for _, src in testpeers.stdlib_sources():
            if n >= 2 * size:
                break
            parts[n >= size].append(src)
            n += len(src.encode("utf-8"))
        out["code"] = ("".join(parts[0]), "".join(parts[1]))
    if "multilingual" in names:
        halves = [_split(_read(data / f"debian-handbook.{lang}.txt.gz"), size // 3) for lang in ("fr-FR", "ja-JP", "zh-CN")]
        out["multilingual"] = ("".join(h[0] for h in halves), "".join(h[1] for h in halves))
    return out


# ----------------------------------------------------------------------------- peers
class Impl:
    """One way of encoding a text: `fn(text) -> ids` (a list or a numpy array)."""

    def __init__(self, peer, version, call, fn, returns, note=""):
        self.peer, self.version, self.call, self.fn, self.returns, self.note = peer, version, call, fn, returns, note


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def _wordchipper_cache(cache: Path) -> None:
    """WORDCHIPPER_CACHE_DIR pre-filled from ../shared/data/tiktoken in wordchipper's cache
    layout (<dir>/openai/<name>/<name>.tiktoken), so that from_pretrained never downloads."""
    for name in ("r50k_base", "p50k_base", "cl100k_base", "o200k_base"):
        (cache / "openai" / name).mkdir(parents=True)
        shutil.copyfile(rank_file(name), cache / "openai" / name / f"{name}.tiktoken")
    os.environ["WORDCHIPPER_CACHE_DIR"] = str(cache)


def build_tokendagger(name, tk):
    import tiktoken.load
    import tokendagger

    # tiktoken-style constructor: ranks read from the shared .tiktoken file by tiktoken's own
    # loader, pattern and special tokens from the tiktoken Encoding.
    ranks = tiktoken.load.load_tiktoken_bpe(str(rank_file(name)))
    enc = tokendagger.Tokenizer(name, pat_str=tk._pat_str, mergeable_ranks=ranks, special_tokens=tk._special_tokens)
    return [Impl("tokendagger", _version("tokendagger"), "encode_ordinary", enc.encode_ordinary, "list")]


def build_bpe_openai(name, tk):
    from bpe_openai import _bindings

    # The Rust backend ships its own cl100k/o200k vocabularies (no file, no network). The
    # Python wrapper (bpe_openai.get_encoding(...).encode_ordinary) refuses texts of >= 10^6
    # characters and re-encodes every text once to check it, so the backend is called directly.
    backend = _bindings.tokenizer_for_encoding(name)
    return [Impl("bpe-openai", _version("bpe-openai"), "_bindings encode", backend.encode, "list",
                 "vocabulary bundled in the wheel; the backend is called directly (the wrapper refuses >= 10^6 chars)")]


def build_riptoken(name, tk):
    import riptoken

    core = riptoken.CoreBPE(riptoken.load_tiktoken_bpe(rank_file(name)), tk._special_tokens, tk._pat_str)
    return [Impl("riptoken", _version("riptoken"), "encode_ordinary", core.encode_ordinary, "list")]


def build_gigatoken(name, tk):
    import gigatoken

    # The file name tells gigatoken the pretokenizer and special tokens (cl100k_base, o200k_base).
    tok = gigatoken.Tokenizer.from_tiktoken(rank_file(name))
    # its own Tokenizer: gigatoken's encode cache is per instance, and the two rows must not share it
    compat = gigatoken.Tokenizer.from_tiktoken(rank_file(name)).as_tiktoken()
    note = "caches pre-token encodings per instance: speed depends on the hit rate"
    return [
        Impl("gigatoken", _version("gigatoken"), "encode", tok.encode, "numpy", note),
        Impl("gigatoken", _version("gigatoken"), "as_tiktoken encode_ordinary", compat.encode_ordinary, "list", note),
    ]


def build_wordchipper(name, tk):
    import wordchipper

    opts = wordchipper.TokenizerOptions.default()
    opts.set_parallel(False)
    tok = wordchipper.Tokenizer.from_pretrained(name, opts)
    return [Impl("wordchipper", _version("wordchipper"), "encode", tok.encode, "list")]


# The GPT-4o tokenizer.json in ../shared/data/hf: o200k's vocabulary as Hugging Face spells it.
GPT4O_JSON = "gpt-4o.o200k.tokenizer.json.gz"


def _hf_json(name: str) -> Path:
    """A tokenizer.json of `name`, written once per run by the parent (`prepare_files`): the
    GPT-4o file from ../shared/data/hf for o200k_base (gunzipped: tokie reads a path), and
    tokenmill's export for cl100k_base (no HF file of it ships in ../shared/data; the `exact`
    column checks a peer's ids on it against tiktoken like any other)."""
    return Path(os.environ["PEERS_FILES"]) / f"{name}.tokenizer.json"


def prepare_files(peers) -> Path:
    """The files the children read, made once (see `_hf_json`, `_wordchipper_cache`); the
    caller removes the directory."""
    files = Path(tempfile.mkdtemp(prefix="peers-"))
    os.environ["PEERS_FILES"] = str(files)
    if {"hf", "tokie"} & set(peers):
        for name in ENCODINGS:
            out = _hf_json(name)
            if name == "o200k_base":
                out.write_bytes(gzip.decompress((testpeers.shared_data() / "hf" / GPT4O_JSON).read_bytes()))
            else:
                tokenmill.get_encoding(name).export("hf", out)
    if "wordchipper" in peers:
        _wordchipper_cache(files / "wordchipper")
    return files


def _json_note(name: str) -> str:
    return (f"../shared/data/hf/{GPT4O_JSON}" if name == "o200k_base"
            else "tokenizer.json exported by tokenmill (no HF file of cl100k in ../shared/data)")


def build_hf(name, tk):
    from tokenizers import Tokenizer

    hf = Tokenizer.from_file(str(_hf_json(name)))
    return [Impl("hf", _version("tokenizers"), "encode(...).ids",
                 lambda t: hf.encode(t, add_special_tokens=False).ids, "list", _json_note(name))]


def build_fastokens(name, tk):
    import fastokens

    # An instance per row: fastokens keeps pre-token encodings per instance, and a row that
    # shared one would meet its text for the second time.
    new = lambda: fastokens.Tokenizer.from_tiktoken(str(rank_file(name)), encoding=name)  # noqa: E731
    tok, flat = new(), new()
    note = ("keeps pre-token encodings per instance across calls; splits one text across threads "
            "(held to one core here)")
    return [
        Impl("fastokens", _version("fastokens"), "encode_ordinary(...).ids", lambda t: tok.encode_ordinary(t).ids,
             "list", note),
        Impl("fastokens", _version("fastokens"), "encode_batch_flat([text])",
             lambda t: np.frombuffer(flat.encode_batch_flat([t])[0], np.uint32), "numpy", note),
    ]


def build_tokie(name, tk):
    import tokie

    tok, flat = (tokie.Tokenizer.from_json(str(_hf_json(name))) for _ in range(2))  # an instance per row
    note = _json_note(name) + "; splits one text across threads (held to one core here)"
    return [
        Impl("tokie", _version("tokie"), "encode(...).ids", lambda t: tok.encode(t, add_special_tokens=False).ids,
             "list", note),
        Impl("tokie", _version("tokie"), "encode_batch_flat([text])",
             lambda t: flat.encode_batch_flat([t], add_special_tokens=False)[0], "numpy", note),
    ]


def build_kitoken(name, tk):
    import kitoken

    tok = kitoken.Kitoken.from_tiktoken_file(str(rank_file(name)))
    return [Impl("kitoken", _version("kitoken"), "encode", tok.encode, "list")]


def build_toktok(name, tk):
    import toktok

    # toktok (PyPI toktok-rs) only counts: its vocabularies are bundled and loaded once per process.
    return [Impl("toktok", _version("toktok-rs"), "batch_count([text])", lambda t: toktok.batch_count([t], name)[0],
                 "count", "counts only (no ids); vocabulary bundled in the wheel")]


BUILDERS = {
    "tokendagger": build_tokendagger,
    "bpe-openai": build_bpe_openai,
    "riptoken": build_riptoken,
    "gigatoken": build_gigatoken,
    "wordchipper": build_wordchipper,
    "fastokens": build_fastokens,
    "tokie": build_tokie,
    "kitoken": build_kitoken,
    "toktok": build_toktok,
    "hf": build_hf,
}


def build_reference(name, tk):
    """tiktoken (the reference ids) and tokenmill's three calls, each a new instance, built like
    the peers from tiktoken's ranks, pattern and special tokens."""
    spec = dict(pat_str=tk._pat_str, mergeable_ranks=tk._mergeable_ranks, special_tokens=tk._special_tokens)
    # One instance per row, as for gigatoken: rows sharing an encoder would let the second
    # find the first one's pieces in its cache.
    tm_list, tm_numpy, tm_count = (tokenmill.Encoding(name, **spec) for _ in range(3))
    return [
        Impl("tiktoken", _version("tiktoken"), "encode_ordinary", tk.encode_ordinary, "list", "the reference ids"),
        Impl("tokenmill", tokenmill.__version__, "encode_ordinary", tm_list.encode_ordinary, "list"),
        Impl("tokenmill", tokenmill.__version__, "encode_to_numpy",
             lambda t: tm_numpy.encode_to_numpy(t, disallowed_special=()), "numpy"),
        Impl("tokenmill", tokenmill.__version__, "count", lambda t: tm_count.count(t, disallowed_special=()), "count"),
    ]


# ----------------------------------------------------------------------------- one process
def _digest(ids) -> str:
    return hashlib.sha1(np.asarray(ids, dtype=np.int64).tobytes()).hexdigest()


def child(job: dict) -> dict:
    """One round of one library in this (fresh) process: build its encoders, and for each
    corpus encode the warm-up text, then time one encode of the measured text, or one per
    document with `docs` (and `repeat` more of the same text). The ids go back as a digest
    and a count, checked by the parent."""
    name, peer = job["encoding"], job["peer"]
    corpora = load_corpora(job["size"], job["corpora"])
    tk = testpeers.tiktoken_encoding(name)  # this process's own: a fresh instance
    try:
        impls = build_reference(name, tk) if peer == "reference" else BUILDERS[peer](name, tk)
    except ImportError as e:
        return {"missing": f"not importable: {e}"}
    except Exception as e:  # a peer that cannot build this encoding offline
        return {"missing": f"build failed: {type(e).__name__}: {str(e)[:80]}"}
    out = []
    for im in impls:
        res = {}
        for corpus, (text, warm_text) in corpora.items():
            docs = documents(text, job["docs"])
            try:
                im.fn(warm_text)
                c0, t0 = time.process_time(), time.perf_counter()
                ids = [im.fn(d) for d in docs]
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                r = {"first": wall, "cpu": cpu}
                if im.returns == "count":
                    r["n"] = int(sum(ids))
                else:
                    joined = np.concatenate([np.asarray(x, dtype=np.int64) for x in ids])
                    r["n"], r["digest"] = len(joined), _digest(joined)
                    del joined
                del ids
                same = []
                for _ in range(job["repeat"]):
                    t0 = time.perf_counter()
                    result = [im.fn(d) for d in docs]
                    same.append(time.perf_counter() - t0)
                    del result
                r["same"] = same
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as e:  # a Rust panic is a BaseException
                r = {"error": f"error: {type(e).__name__}: {str(e)[:60]}"}
            res[corpus] = r
        out.append({"peer": im.peer, "version": im.version, "call": im.call, "returns": im.returns, "note": im.note,
                    "results": res})
    return {"impls": out}


def run_child(job: dict, pin: list[str]) -> dict:
    cmd = pin + [sys.executable, __file__, "--child", json.dumps(job)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return {"missing": f"process failed ({r.returncode}): {(r.stderr.strip().splitlines() or ['?'])[-1][:80]}"}
    return json.loads(r.stdout.strip().splitlines()[-1])


class Row:
    __slots__ = ("peer", "version", "encoding", "corpus", "call", "returns", "mbps", "mbps_same", "cpu", "exact", "note")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))


def bench(encodings, corpora, peers, rounds, repeat, size, docs, pin, log):
    """Rows of the report: every library, `rounds` fresh processes each, taking turns."""
    rows = []
    for name in encodings:
        ref_enc = testpeers.tiktoken_encoding(name)
        refs = {}
        for corpus, (text, _) in corpora.items():
            ids = [i for d in documents(text, docs) for i in ref_enc.encode_ordinary(d)]
            refs[corpus] = (len(ids), _digest(ids))
            log(f"{name} {corpus}: {len(text.encode()) / 1e6:.2f} MB, {len(ids)} tokens")
        firsts, same, cpu, wall, exact, meta, missing = {}, {}, {}, {}, {}, {}, {}
        for rnd in range(rounds):
            for peer in ["reference"] + list(peers):
                if peer in missing:
                    continue
                job = {"encoding": name, "peer": peer, "size": size, "corpora": list(corpora), "docs": docs,
                       "repeat": repeat if rnd == rounds - 1 else 0}
                got = run_child(job, pin)
                if "missing" in got:
                    missing[peer] = got["missing"]
                    log(f"{name}: {peer}: {missing[peer]}")
                    continue
                for im in got["impls"]:
                    for corpus, r in im["results"].items():
                        key = (im["peer"], im["call"], corpus)
                        meta[key] = im
                        if "error" in r:
                            exact[key] = r["error"]
                            log(f"  {im['peer']:11} {im['call']:28} {corpus}: {r['error']}")
                            continue
                        firsts.setdefault(key, []).append(r["first"])
                        cpu[key], wall[key] = cpu.get(key, 0.0) + r["cpu"], wall.get(key, 0.0) + r["first"]
                        n, digest = refs[corpus]
                        ok = r["n"] == n if im["returns"] == "count" else r.get("digest") == digest
                        if im["peer"] == "tiktoken":
                            ok_text = "-"
                        else:
                            ok_text = "yes" if ok else f"NO ({r['n']} ids, tiktoken {n})"
                        if exact.get(key, "yes") in ("yes", "-"):
                            exact[key] = ok_text
                        if r["same"]:
                            same[key] = statistics.median(r["same"])
                        mb = len(corpora[corpus][0].encode("utf-8")) / 1e6
                        log(f"  round {rnd + 1}/{rounds} {corpus:12} {im['peer']:11} {im['call']:28} first pass "
                            f"{mb / r['first']:8.2f} MB/s" + (f"  same text {mb / same[key]:8.2f} MB/s" if r["same"] else "")
                            + f"  exact={exact[key]}", verbose=rnd < rounds - 1)
        for key, im in meta.items():
            peer, call, corpus = key
            mb = len(corpora[corpus][0].encode("utf-8")) / 1e6
            base = dict(peer=peer, version=im["version"], encoding=name, corpus=corpus, call=call,
                        returns=im["returns"], note=im["note"], exact=exact.get(key, "-"))
            if key in same and key in firsts:
                rows.append(Row(**base, mbps=mb / statistics.median(firsts[key]), mbps_same=mb / same[key],
                                cpu=cpu[key] / wall[key] if wall[key] else 1.0))
            else:
                rows.append(Row(**base))
        for peer, why in missing.items():
            dist = {"hf": "tokenizers", "toktok": "toktok-rs"}.get(peer, peer)
            for corpus in corpora:
                rows.append(Row(peer=peer, version=_version(dist), encoding=name,
                                corpus=corpus, call="-", returns="-", exact=f"not measured ({why})"))
    order = {c: i for i, c in enumerate(corpora)}
    rows.sort(key=lambda r: (encodings.index(r.encoding), order[r.corpus]))  # stable: run order within
    return rows


def table(rows) -> str:
    tm = {}
    for r in rows:
        if r.peer == "tokenmill" and r.mbps:
            tm[(r.encoding, r.corpus, r.returns)] = r.mbps
    head = ["peer", "version", "encoding", "corpus", "call", "returns", "MB/s first pass", "MB/s same text",
            "tokenmill/peer", "exact"]
    body = []
    for r in rows:
        if r.mbps:
            ours = tm.get((r.encoding, r.corpus, r.returns))
            cells = [f"{r.mbps:.2f}", f"{r.mbps_same:.2f}", f"{ours / r.mbps:.2f}x" if ours else "-"]
        else:
            cells = ["-", "-", "-"]
        body.append([r.peer, r.version, r.encoding, r.corpus, r.call, r.returns] + cells + [r.exact])
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    right = {6, 7, 8}
    fmt = lambda cells: "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([fmt(head), fmt(["-" * w for w in widths])] + [fmt(b) for b in body])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="~0.3 MB per corpus, o200k_base only, 2 rounds, 3 repeats")
    p.add_argument("--size", type=int, default=None, help="bytes per corpus (default 1,000,000; 300,000 with --quick)")
    p.add_argument("--rounds", type=int, default=None,
                   help="fresh processes per library for the first-pass figure (default 3; 2 with --quick)")
    p.add_argument("--repeat", type=int, default=None, help="same-text runs in the last round (default 5; 3 with --quick)")
    p.add_argument("--verbose", action="store_true", help="also log every round, not only the last")
    p.add_argument("--encodings", nargs="+", choices=ENCODINGS, metavar="NAME", help="default both (o200k_base with --quick)")
    p.add_argument("--corpora", nargs="+", default=CORPORA, choices=CORPORA, metavar="NAME")
    p.add_argument("--peers", nargs="+", default=PEERS, choices=PEERS, metavar="NAME")
    p.add_argument("--docs", type=int, default=0, metavar="BYTES",
                   help="time the measured text as documents of about BYTES bytes, one call each (default: one call)")
    p.add_argument("--quiet", action="store_true", help="print only the final report")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return 0
    repeat = args.repeat if args.repeat is not None else (3 if args.quick else 5)
    rounds = args.rounds if args.rounds is not None else (2 if args.quick else 3)
    size = args.size if args.size is not None else (300_000 if args.quick else 1_000_000)
    encodings = args.encodings or (["o200k_base"] if args.quick else ENCODINGS)
    if repeat < 1 or rounds < 1:
        p.error("--repeat and --rounds must be >= 1")
    if args.docs < 0:
        p.error("--docs must be >= 0")
    # One core for every library: fastokens and tokie split one text across threads whatever
    # RAYON_NUM_THREADS says.
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []

    def log(msg, verbose=False):
        if not args.quiet and (args.verbose or not verbose):
            print(msg, file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    corpora = load_corpora(size, args.corpora)
    files = prepare_files(args.peers)
    try:
        rows = bench(encodings, corpora, args.peers, rounds, repeat, size, args.docs, pin, log)
    finally:
        shutil.rmtree(files, ignore_errors=True)
    print(f"python {platform.python_version()}, numpy {np.__version__}; {os.cpu_count()} CPUs; "
          f"{'one core (taskset -c 0)' if pin else 'not pinned (no taskset)'}, RAYON_NUM_THREADS=1")
    calls = (f"documents of about {args.docs:,} bytes, one call each" if args.docs else "one call") + " per text"
    print(f"one big text per corpus ({', '.join(f'{c} {len(t[0].encode()) / 1e6:.2f} MB' for c, t in corpora.items())}), "
          f"{calls}; "
          f"{rounds} fresh processes per library, the libraries taking turns, each warming up on a disjoint text of the "
          "same corpus; 'first pass' = median over the processes of one encode of the unseen text, 'same text' = "
          f"median of {repeat} more encodes of it in the last process; MB = 10^6 bytes; tokenmill/peer = tokenmill's "
          "first-pass MB/s over the row's, for the same kind of result (list: encode_ordinary, numpy: "
          "encode_to_numpy, count: count); exact = same ids (or count) as tiktoken")
    print(table(rows))
    notes = {}
    for r in rows:
        if r.note:
            notes.setdefault(r.peer, r.note)
    for peer, note in notes.items():
        print(f"note: {peer}: {note}")
    busy = [r for r in rows if r.cpu and r.cpu > 1.3]
    if busy:
        print("note: cpu/wall > 1.3 (used more than one thread): " + ", ".join(
            sorted({f"{r.peer} {r.call}" for r in busy})))
    print(f"total time {time.perf_counter() - t0:.1f} s")
    return 0 if all(r.exact == "yes" for r in rows if r.peer == "tokenmill") else 1


if __name__ == "__main__":
    raise SystemExit(main())
