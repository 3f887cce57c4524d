"""Other fast BPE libraries (PyPI peers) vs tokenmill: exactness and single-thread speed.

Usage::

    python benchmarks/peers.py            # ~1 MB per corpus, cl100k_base + o200k_base, 5 runs (~2-3 minutes)
    python benchmarks/peers.py --quick    # ~0.3 MB per corpus, o200k_base only, 3 runs (< 1 minute)
    python benchmarks/peers.py --peers riptoken gigatoken --corpora code

Peers: tokendagger, bpe-openai, riptoken, gigatoken, wordchipper (each used only if it is
installed: this script never installs anything; see benchmarks/README.md for how they were
installed) and HF tokenizers with the GPT-4o tokenizer.json from ../shared/data/hf (o200k
only). Each is built offline from ../shared/data (see ``build_*`` below and the README).
Every row encodes one big text per corpus in one call on one thread (RAYON_NUM_THREADS=1 is
set before any import). Some peers cache pre-token encodings per instance (gigatoken), so
re-encoding the *same* text is not a fair measure. The run is therefore made of ``--rounds``
rounds; each round builds every encoder afresh (tokenmill and tiktoken too, from the same
ranks), and for each corpus warms it up on a different text of the same corpus (disjoint;
primes lazy initialisation and caches with realistic text), then times one encode of the
measured text, which that instance has never seen:

* ``MB/s first pass``: median over the rounds of that one encode; the ratio columns use it;
* ``MB/s same text``: in the last round, the median of ``--repeat`` more encodes of the same
  text (what benchmarks/encode.py measures; inflated for caching peers).

1 MB = 10^6 bytes of UTF-8. ``exact`` compares the first-pass ids with tiktoken's
``encode_ordinary`` for the same text. The exit status is 1 if a tokenmill row is not exact.
"""

from __future__ import annotations

import os

# Single thread for every rayon-based peer (riptoken, gigatoken, wordchipper, HF): must be set
# before any of them is imported.
os.environ["RAYON_NUM_THREADS"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"

import argparse  # noqa: E402
import gzip  # noqa: E402
import importlib.metadata  # noqa: E402
import importlib.util  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
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
PEERS = ["tokendagger", "bpe-openai", "riptoken", "gigatoken", "wordchipper", "hf"]


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


def _wordchipper_cache() -> str:
    """A WORDCHIPPER_CACHE_DIR pre-filled from ../shared/data/tiktoken in wordchipper's cache
    layout (<dir>/openai/<name>/<name>.tiktoken), so that from_pretrained never downloads."""
    existing = os.environ.get("WORDCHIPPER_CACHE_DIR")
    if existing and Path(existing, "tokenmill-prefilled").exists():
        return existing
    cache = Path(tempfile.mkdtemp(prefix="wordchipper-cache-"))
    for name in ("r50k_base", "p50k_base", "cl100k_base", "o200k_base"):
        (cache / "openai" / name).mkdir(parents=True)
        shutil.copyfile(rank_file(name), cache / "openai" / name / f"{name}.tiktoken")
    (cache / "tokenmill-prefilled").touch()
    os.environ["WORDCHIPPER_CACHE_DIR"] = str(cache)
    return str(cache)


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
    _wordchipper_cache()
    import wordchipper

    opts = wordchipper.TokenizerOptions.default()
    opts.set_parallel(False)
    tok = wordchipper.Tokenizer.from_pretrained(name, opts)
    return [Impl("wordchipper", _version("wordchipper"), "encode", tok.encode, "list")]


def build_hf(name, tk):
    if name != "o200k_base":
        return []
    from tokenizers import Tokenizer

    path = testpeers.shared_data() / "hf" / "gpt-4o.o200k.tokenizer.json.gz"
    hf = Tokenizer.from_str(gzip.decompress(path.read_bytes()).decode("utf-8"))
    return [Impl("hf", _version("tokenizers"), "encode(...).ids",
                 lambda t: hf.encode(t, add_special_tokens=False).ids, "list",
                 "../shared/data/hf/gpt-4o.o200k.tokenizer.json.gz")]


BUILDERS = {
    "tokendagger": build_tokendagger,
    "bpe-openai": build_bpe_openai,
    "riptoken": build_riptoken,
    "gigatoken": build_gigatoken,
    "wordchipper": build_wordchipper,
    "hf": build_hf,
}


def build_all(name, ref, peers, log):
    """([Impl], {peer: reason it is missing}), every encoder a new instance. `ref` is the
    tiktoken Encoding whose ranks, pattern and special tokens the fresh instances share."""
    import tiktoken

    spec = dict(pat_str=ref._pat_str, mergeable_ranks=ref._mergeable_ranks, special_tokens=ref._special_tokens)
    tk = tiktoken.Encoding(name, **spec)
    # One instance per row, as for gigatoken: should tokenmill ever cache per encoder, two
    # rows sharing an instance would let the second see the first one's pieces.
    tm_list, tm_numpy = tokenmill.Encoding(name, **spec), tokenmill.Encoding(name, **spec)
    impls = [
        Impl("tiktoken", _version("tiktoken"), "encode_ordinary", tk.encode_ordinary, "list", "the reference ids"),
        Impl("tokenmill", tokenmill.__version__, "encode_ordinary", tm_list.encode_ordinary, "list"),
        Impl("tokenmill", tokenmill.__version__, "encode_to_numpy",
             lambda t: tm_numpy.encode_to_numpy(t, disallowed_special=()), "numpy"),
    ]
    missing = {}
    for peer in peers:
        t0 = time.perf_counter()
        try:
            built = BUILDERS[peer](name, tk)
        except ImportError as e:
            missing[peer] = f"not importable: {e}"
            log(f"{name}: {peer}: {missing[peer]}")
            continue
        except Exception as e:  # a peer that cannot build this encoding offline
            missing[peer] = f"build failed: {type(e).__name__}: {str(e)[:80]}"
            log(f"{name}: {peer}: {missing[peer]}")
            continue
        log(f"{name}: built {peer} in {time.perf_counter() - t0:.1f} s", verbose=True)
        impls += built
    return impls, missing


# ----------------------------------------------------------------------------- timing
def _timed(fn, text):
    """(wall seconds, cpu seconds, result)."""
    c0, t0 = time.process_time(), time.perf_counter()
    result = fn(text)
    return time.perf_counter() - t0, time.process_time() - c0, result


def _first_diff(a, b) -> str:
    a, b = list(map(int, a)), list(map(int, b))
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"first difference at id {i} ({len(a)} vs {len(b)} ids)"
    return f"{len(a)} vs {len(b)} ids"


class Row:
    __slots__ = ("peer", "version", "encoding", "corpus", "call", "returns", "mbps", "mbps_same", "cpu", "exact", "note")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))


def bench(encodings, corpora, peers, rounds, repeat, log):
    rows = []
    for name in encodings:
        ref_enc = testpeers.tiktoken_encoding(name)
        refs = {}
        for corpus, (text, _) in corpora.items():
            refs[corpus] = np.asarray(ref_enc.encode_ordinary(text), dtype=np.int64)
            log(f"{name} {corpus}: {len(text.encode()) / 1e6:.2f} MB, {len(refs[corpus])} tokens")
        firsts, same, cpu, wall, exact, meta, missing = {}, {}, {}, {}, {}, {}, {}
        for rnd in range(rounds):
            impls, missing = build_all(name, ref_enc, peers, log)
            for corpus, (text, warm_text) in corpora.items():
                mb = len(text.encode("utf-8")) / 1e6
                for im in impls:
                    key = (im.peer, im.call, corpus)
                    meta[key] = im
                    if str(exact.get(key, "")).startswith("error"):
                        continue
                    try:
                        im.fn(warm_text)
                        w, c, ids = _timed(im.fn, text)
                        firsts.setdefault(key, []).append(w)
                        cpu[key], wall[key] = cpu.get(key, 0.0) + c, wall.get(key, 0.0) + w
                        if rnd == 0:
                            if im.peer == "tiktoken":
                                exact[key] = "-"
                            elif np.array_equal(np.asarray(ids, dtype=np.int64), refs[corpus]):
                                exact[key] = "yes"
                            else:
                                exact[key] = "NO"
                                log(f"    {im.peer} {im.call} {corpus}: not exact: {_first_diff(ids, refs[corpus])}")
                        del ids
                        if rnd == rounds - 1:
                            times = []
                            for _ in range(repeat):
                                w, c, _ids = _timed(im.fn, text)
                                times.append(w)
                                cpu[key] += c
                                wall[key] += w
                            same[key] = statistics.median(times)
                    except (KeyboardInterrupt, SystemExit):
                        raise
                    except BaseException as e:  # a Rust panic is a BaseException
                        exact[key] = f"error: {type(e).__name__}: {str(e)[:60]}"
                        log(f"  {im.peer:11} {im.call:28} {corpus}: error {type(e).__name__}: {e}")
                        continue
                    log(f"  round {rnd + 1}/{rounds} {corpus:12} {im.peer:11} {im.call:28} first pass "
                        f"{mb / firsts[key][-1]:8.2f} MB/s" + (f"  same text {mb / same[key]:8.2f} MB/s"
                                                              if rnd == rounds - 1 else "")
                        + f"  exact={exact[key]}", verbose=rnd < rounds - 1)
            del impls
        for key, im in meta.items():
            peer, call, corpus = key
            mb = len(corpora[corpus][0].encode("utf-8")) / 1e6
            base = dict(peer=peer, version=im.version, encoding=name, corpus=corpus, call=call,
                        returns=im.returns, note=im.note, exact=exact.get(key, "-"))
            if key in same:
                rows.append(Row(**base, mbps=mb / statistics.median(firsts[key]), mbps_same=mb / same[key],
                                cpu=cpu[key] / wall[key] if wall[key] else 1.0))
            else:
                rows.append(Row(**base))
        for peer, why in missing.items():
            for corpus in corpora:
                rows.append(Row(peer=peer, version=_version({"hf": "tokenizers"}.get(peer, peer)), encoding=name,
                                corpus=corpus, call="-", returns="-", exact=f"not measured ({why})"))
    order = {c: i for i, c in enumerate(corpora)}
    rows.sort(key=lambda r: (encodings.index(r.encoding), order[r.corpus]))  # stable: build order within
    return rows


def table(rows) -> str:
    tm = {}
    for r in rows:
        if r.peer == "tokenmill" and r.mbps:
            tm[(r.encoding, r.corpus, r.returns)] = r.mbps
    head = ["peer", "version", "encoding", "corpus", "call", "returns", "MB/s first pass", "MB/s same text",
            "tokenmill list/peer", "tokenmill numpy/peer", "exact"]
    body = []
    for r in rows:
        if r.mbps:
            lst = tm.get((r.encoding, r.corpus, "list"))
            npy = tm.get((r.encoding, r.corpus, "numpy"))
            cells = [f"{r.mbps:.2f}", f"{r.mbps_same:.2f}", f"{lst / r.mbps:.2f}x" if lst else "-",
                     f"{npy / r.mbps:.2f}x" if npy else "-"]
        else:
            cells = ["-", "-", "-", "-"]
        body.append([r.peer, r.version, r.encoding, r.corpus, r.call, r.returns] + cells + [r.exact])
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    right = {6, 7, 8, 9}
    fmt = lambda cells: "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([fmt(head), fmt(["-" * w for w in widths])] + [fmt(b) for b in body])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="~0.3 MB per corpus, o200k_base only, 3 runs")
    p.add_argument("--size", type=int, default=None, help="bytes per corpus (default 1,000,000; 300,000 with --quick)")
    p.add_argument("--rounds", type=int, default=None, help="fresh-instance rounds for the first-pass figure (default 3; 2 with --quick)")
    p.add_argument("--repeat", type=int, default=None, help="same-text runs in the last round (default 5; 3 with --quick)")
    p.add_argument("--verbose", action="store_true", help="also log every round, not only the last")
    p.add_argument("--encodings", nargs="+", choices=ENCODINGS, metavar="NAME", help="default both (o200k_base with --quick)")
    p.add_argument("--corpora", nargs="+", default=CORPORA, choices=CORPORA, metavar="NAME")
    p.add_argument("--peers", nargs="+", default=PEERS, choices=PEERS, metavar="NAME")
    p.add_argument("--quiet", action="store_true", help="print only the final report")
    args = p.parse_args(argv)
    repeat = args.repeat if args.repeat is not None else (3 if args.quick else 5)
    rounds = args.rounds if args.rounds is not None else (2 if args.quick else 3)
    size = args.size if args.size is not None else (300_000 if args.quick else 1_000_000)
    encodings = args.encodings or (["o200k_base"] if args.quick else ENCODINGS)
    if repeat < 1 or rounds < 1:
        p.error("--repeat and --rounds must be >= 1")

    def log(msg, verbose=False):
        if not args.quiet and (args.verbose or not verbose):
            print(msg, file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    corpora = load_corpora(size, args.corpora)
    rows = bench(encodings, corpora, args.peers, rounds, repeat, log)
    print(f"python {platform.python_version()}, numpy {np.__version__}; {os.cpu_count()} CPUs; RAYON_NUM_THREADS=1")
    print(f"one big text per corpus ({', '.join(f'{c} {len(t[0].encode()) / 1e6:.2f} MB' for c, t in corpora.items())}), "
          f"single thread; {rounds} rounds of fresh instances, each warmed up on a disjoint text of the same corpus; "
          "'first pass' = median over rounds of one encode of the unseen text, 'same text' = median of "
          f"{repeat} more encodes in the last round; MB = 10^6 bytes; ratio = tokenmill's first-pass "
          "MB/s (encode_ordinary -> list, encode_to_numpy -> numpy) / the row's; exact = same ids as tiktoken")
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
