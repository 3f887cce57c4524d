"""`tokenmill.data.prepare` / ``tokenmill prepare``: exact ids, shard layout, determinism for any
worker count, resuming after ``kill -9``, bad input."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tokenmill
from tokenmill.cli import main
from tokenmill.data import prepare
from tokenmill.errors import CorpusError, CorpusFileNotFoundError, InputError, OutputError, UnsupportedError



def read_all(out: Path) -> tuple[np.ndarray, list[int]]:
    """All ids in shard order, and every document's start in that stream."""
    index = json.loads((out / "index.json").read_text())
    ids, starts = [], []
    for s in index["shards"]:
        a = np.load(out / s["files"][0])
        d = np.load(out / s["files"][1])
        assert a.dtype == np.dtype(index["dtype"]) and len(a) == s["tokens"] and len(d) == s["documents"]
        starts += [int(x) + s["first_token"] for x in d]
        ids.append(a)
    return np.concatenate(ids), starts


def files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def write_parts(tmp_path: Path, texts: list[str], n: int) -> list[Path]:
    """`n` text files of 100 lines each (the work units of the engine tests)."""
    paths = []
    for i in range(n):
        p = tmp_path / f"part{i}.txt"
        p.write_text("\n".join(texts[i * 100:(i + 1) * 100]) + "\n", encoding="utf-8")
        paths.append(p)
    return paths


def interrupted_copy(done: Path, out: Path, unit: int) -> Path:
    """A copy of the finished directory `done` as a run killed inside its `unit`-th unit would
    leave it: that unit's marker, its shards after the first, and index.json gone."""
    for name, data in files(done).items():
        (out.mkdir(exist_ok=True), (out / name).write_bytes(data))
    middle = sorted(out.glob("unit_*.done.json"))[unit]
    u = middle.name.split("_")[1].split(".")[0]
    dropped = sorted(out.glob(f"shard_{u}_*.done.json"))[1:]
    assert dropped, "the unit has one shard: nothing to resume"
    for p in dropped:
        p.unlink()
    middle.unlink()
    (out / "index.json").unlink()
    return out


@pytest.fixture(scope="module")
def texts(corpus) -> list[str]:
    docs = []
    for name, text in sorted(corpus.items()):
        docs += [line for line in text.splitlines() if line.strip()][:400]
    return docs + ["  leading spaces", "trailing\t", "emoji 🙂 and CJK 中文", "<|endoftext|> inside text", "x" * 5000]


def test_lines_jsonl_gzip_exact(tmp_path, texts, tm):
    enc = tm("gpt2")
    (tmp_path / "a.txt").write_text("\n".join(texts[:700]) + "\n", encoding="utf-8")
    with gzip.open(tmp_path / "b.jsonl.gz", "wt", encoding="utf-8") as f:
        for t in texts[700:]:
            f.write(json.dumps({"id": 1, "text": t, "meta": {"text": 0}}) + "\n")
    s = prepare([tmp_path / "a.txt", tmp_path / "b.jsonl.gz"], tmp_path / "out", by_line=True, quiet=True,
                shard_tokens=5000, num_workers=2)
    ids, starts = read_all(tmp_path / "out")
    want, want_starts = [], []
    for t in texts:
        want_starts.append(len(want))
        want += enc.encode_ordinary(t) + [enc.eot_token]
    assert ids.dtype == np.uint16 and ids.tolist() == want and starts == want_starts
    assert (s["documents"], s["tokens"], s["shards"]) == (len(texts), len(want), len(json.loads(
        (tmp_path / "out" / "index.json").read_text())["shards"]))
    assert s["shards"] > 3


def test_whole_files_cut_in_parallel_exact(tmp_path, corpus, tm):
    enc = tm("cl100k_base")
    names = sorted(n for n in corpus if n.endswith(".txt"))[:4]
    paths = []
    for i, n in enumerate(names):
        p = tmp_path / f"{i}.txt"
        p.write_text(corpus[n] * 3, encoding="utf-8")
        paths.append(p)
    for eot in ("append", "prepend", "none"):
        out = tmp_path / f"out-{eot}"
        prepare(paths, out, tokenizer="cl100k_base", eot=eot, quiet=True, num_workers=2)
        ids, starts = read_all(out)
        want = []
        for p in paths:
            body = enc.encode_ordinary(p.read_bytes().decode("utf-8"))
            want += {"append": body + [enc.eot_token], "prepend": [enc.eot_token] + body, "none": body}[eot]
        assert ids.tolist() == want, eot
        assert len(starts) == len(paths)


def test_uint32_for_large_vocabularies(tmp_path, tm):
    (tmp_path / "a.txt").write_text("hello world\n", encoding="utf-8")
    prepare([tmp_path / "a.txt"], tmp_path / "out", tokenizer="o200k_base", quiet=True)
    ids, _ = read_all(tmp_path / "out")
    assert ids.dtype == np.uint32
    assert ids.tolist() == tm("o200k_base").encode_ordinary("hello world\n") + [199999]


@pytest.mark.parametrize("file", ["gpt2/tokenizer.json", "hf/bert-base-uncased/tokenizer.json"])
def test_tokenizer_json_exact(tmp_path, shared_data, texts, file):
    import tokenizers

    hf = tokenizers.Tokenizer.from_file(str(shared_data / file))
    hf.no_padding()  # prepare encodes whole documents: no padding, no truncation
    hf.no_truncation()
    (tmp_path / "a.txt").write_text("\n".join(texts[:300]) + "\n", encoding="utf-8")
    prepare([tmp_path / "a.txt"], tmp_path / "out", tokenizer=shared_data / file, by_line=True, quiet=True)
    index = json.loads((tmp_path / "out" / "index.json").read_text())
    eot = index["eot_id"]
    want = []
    for t in texts[:300]:
        want += hf.encode(t, add_special_tokens=False).ids + [eot]
    ids, _ = read_all(tmp_path / "out")
    assert ids.tolist() == want
    assert index["tokenizer"]["name"].endswith("tokenizer.json")


def test_parquet_exact_and_resumable(tmp_path, texts, tm):
    import pyarrow as pa
    import pyarrow.parquet as pq

    enc = tm("gpt2")
    rows = texts[:500] + [None, ""] + texts[500:]
    pq.write_table(pa.table({"id": list(range(len(rows))), "body": pa.array(rows, type=pa.string())}),
                   tmp_path / "a.parquet", row_group_size=97)
    pq.write_table(pa.table({"body": pa.array(texts[:50], type=pa.large_string())}), tmp_path / "b.parquet")
    paths = [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    ref = tmp_path / "ref"
    with pytest.raises(CorpusError, match=r"a\.parquet: row 500: column 'body' is null, not a string \(pass skip_bad"):
        prepare(paths, tmp_path / "strict", text_field="body", quiet=True)
    s = prepare(paths, ref, text_field="body", shard_tokens=3000, quiet=True, num_workers=2, skip_bad=True)
    want = []
    for t in texts + texts[:50]:
        want += enc.encode_ordinary(t) + [enc.eot_token]
    assert read_all(ref)[0].tolist() == want
    assert (s["documents"], s["skipped"], s["empty"]) == (len(texts) + 50, 1, 1)
    # Resume in the middle of a parquet file: the rows before are skipped, not re-read.
    out = tmp_path / "out"
    for name, data in files(ref).items():
        (out.mkdir(exist_ok=True), (out / name).write_bytes(data))
    for p in sorted(out.glob("shard_*.done.json"))[2:]:
        p.unlink()
    (out / "index.json").unlink()
    (out / "unit_000000.done.json").unlink()
    assert prepare(paths, out, text_field="body", shard_tokens=3000, quiet=True, skip_bad=True)["resumed"] == 2
    assert files(out) == files(ref)
    with pytest.raises(CorpusError, match="no column 'text'"):
        prepare(paths, tmp_path / "o2", quiet=True)


def test_same_bytes_for_any_workers(tmp_path, texts):
    (tmp_path / "a.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    outs = []
    for w in (1, 2, 3):
        out = tmp_path / f"w{w}"
        prepare([tmp_path / "a.txt"], out, by_line=True, shard_tokens=3000, num_workers=w, quiet=True)
        outs.append(files(out))
    assert outs[0] == outs[1] == outs[2]
    assert b"time" not in outs[0]["index.json"]


KILLER = """
import os, sys
from tokenmill.data import prepare
def progress(nbytes, tokens, docs):
    if tokens > int(sys.argv[3]):
        os.kill(os.getpid(), 9)
prepare([sys.argv[1]], sys.argv[2], by_line=True, shard_tokens=2000, num_workers=2, quiet=True, progress=progress)
"""


def test_resume_after_kill_9_is_byte_identical(tmp_path, texts):
    src = tmp_path / "a.txt"
    src.write_text("\n".join(texts * 8) + "\n", encoding="utf-8")
    ref = tmp_path / "ref"
    full = prepare([src], ref, by_line=True, shard_tokens=2000, num_workers=2, quiet=True)
    out = tmp_path / "out"
    # The child imports the tokenmill this test runs (installed, or a source tree on PYTHONPATH).
    here = str(Path(tokenmill.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""))
    killed_at = []
    for stop in (full["tokens"] // 4, full["tokens"] // 2):
        r = subprocess.run([sys.executable, "-c", KILLER, str(src), str(out), str(stop)], env=env)
        killed_at.append(r.returncode)
    assert all(code == -9 for code in killed_at), killed_at
    assert not (out / "index.json").exists()
    s = prepare([src], out, by_line=True, shard_tokens=2000, num_workers=2, quiet=True)
    assert 0 < s["resumed"] < s["shards"]
    assert files(out) == files(ref)
    again = prepare([src], out, by_line=True, shard_tokens=2000, num_workers=1, quiet=True)
    assert again["resumed"] == again["shards"] and files(out) == files(ref)


def test_bad_input(tmp_path):
    ok = tmp_path / "ok.txt"
    ok.write_text("hello\n", encoding="utf-8")
    out = tmp_path / "out"
    with pytest.raises(CorpusFileNotFoundError, match="nope.txt"):
        prepare([tmp_path / "nope.txt"], out, quiet=True)
    with pytest.raises(InputError, match="is a directory"):
        prepare([tmp_path], out, quiet=True)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nnot \xff utf-8\n")
    with pytest.raises(CorpusError, match=r"bad\.txt:2: byte 9: invalid UTF-8 \(invalid start byte: ff\)") as ei:
        prepare([bad], out, by_line=True, quiet=True)
    assert (ei.value.line, ei.value.offset) == (2, 9)
    js = tmp_path / "bad.jsonl"
    js.write_text('{"text": "a"}\n{"text": null}\nnot json\n{"body": "x"}\n{"text": "b"}\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"bad\.jsonl:2: field 'text' is a JSON null, not a string \(pass skip_bad"):
        prepare([js], out, quiet=True)
    s = prepare([js], out, quiet=True, skip_bad=True)
    assert (s["documents"], s["skipped"]) == (2, 3)
    with pytest.raises(OutputError, match="holds the shards of another job"):
        prepare([ok], out, quiet=True)
    assert prepare([ok], out, quiet=True, overwrite=True)["documents"] == 1
    gz = tmp_path / "t.txt.gz"
    gz.write_bytes(gzip.compress(os.urandom(1000).hex().encode())[:200])
    with pytest.raises(CorpusError, match="t.txt.gz.*gzip"):
        prepare([gz], tmp_path / "o2", quiet=True)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="corpus is empty"):
        prepare([empty], tmp_path / "o3", by_line=True, quiet=True)
    (tmp_path / "x.parquet").write_bytes(b"not parquet")
    with pytest.raises(CorpusError, match="x.parquet: not a readable parquet file"):
        prepare([tmp_path / "x.parquet"], tmp_path / "o4", quiet=True)
    with pytest.raises(InputError, match="eot"):
        prepare([ok], tmp_path / "o5", eot="end")
    with pytest.raises(InputError, match="not a special token"):
        prepare([ok], tmp_path / "o6", eot_token="<|nope|>")
    with pytest.raises(InputError, match="shard_tokens"):
        prepare([ok], tmp_path / "o7", shard_tokens=0)
    # A file that shrank since the interrupted run: a clear error, not wrong output.
    big = tmp_path / "big.txt"
    big.write_text("line of text\n" * 3000, encoding="utf-8")
    o8 = tmp_path / "o8"
    prepare([big], o8, by_line=True, shard_tokens=500, quiet=True)
    (o8 / "index.json").unlink()
    (o8 / "shard_000000_000003.done.json").unlink()
    (o8 / "unit_000000.done.json").unlink()
    job = json.loads((o8 / "job.json").read_text())
    big.write_text("line of text\n" * 10, encoding="utf-8")
    job["sources"][0]["bytes"] = big.stat().st_size
    job["units"] = [[[0, None, None, big.stat().st_size]]]
    (o8 / "job.json").write_text(json.dumps(job))
    with pytest.raises(CorpusError, match="shorter"):
        prepare([big], o8, by_line=True, shard_tokens=500, quiet=True)


def test_cli(tmp_path, capsys):
    src = tmp_path / "a.txt"
    src.write_text("hello world\nsecond line\n", encoding="utf-8")
    assert main(["prepare", str(src), "--by-line", "--out", str(tmp_path / "out")]) == 0
    assert "prepared 2 documents, 6 tokens" in capsys.readouterr().out
    assert np.load(tmp_path / "out" / "shard_000000_000000.npy").tolist() == [31373, 995, 50256, 12227, 1627, 50256]
    assert main(["prepare", str(src), "--out", str(tmp_path / "out")]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main(["prepare", str(tmp_path / "nope.txt"), "--out", str(tmp_path / "o")]) == 2
    assert main(["-q", "prepare", str(src), "--out", str(tmp_path / "r"), "--rank", "3", "--world-size", "2"]) == 2
    assert "rank" in capsys.readouterr().err
    assert main(["-q", "prepare", str(src), "--out", str(tmp_path / "o"), "--tokenizer", "cl100k_base", "--eot", "none"]) == 0
    assert np.load(tmp_path / "o" / "shard_000000_000000.npy").tolist() == tokenmill.get_encoding("cl100k_base").encode("hello world\nsecond line\n")


@pytest.mark.parametrize("layout", ["npy", "megatron", "llmc"])
def test_layouts_read_back(tmp_path, texts, tm, layout):
    from tokenmill.data import TokenDataset, read_tokens

    enc = tm("gpt2")
    (tmp_path / "a.txt").write_text("\n".join(texts[:400]) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    s = prepare([tmp_path / "a.txt"], out, by_line=True, format=layout, shard_tokens=2000, quiet=True)
    want = []
    for t in texts[:400]:
        want += enc.encode_ordinary(t) + [enc.eot_token]
    assert s["shards"] > 2
    assert read_tokens(out).tolist() == want
    ds = TokenDataset(out, max_length=16, stride=16)
    x, y = ds[len(ds) - 1]
    start = (len(ds) - 1) * 16
    assert x.tolist() == want[start:start + 16] and y.tolist() == want[start + 1:start + 17]
    with pytest.raises(UnsupportedError, match="uint16"):
        if layout == "llmc":
            prepare([tmp_path / "a.txt"], tmp_path / "o200k", tokenizer="o200k_base", format="llmc", quiet=True)
        else:
            raise UnsupportedError("uint16 (only llmc refuses)")


def test_other_families_through_their_tokenizer_json(tmp_path, shared_data, texts):
    """WordPiece (vocab.txt) runs through its tokenizer.json export: the same ids as its encode.
    Families without a tokenizer.json form (word, char, classic BPE) run through their own
    encode_ordinary: the same ids, from an object or from their saved file, resumable."""
    from tokenmill.models.char import CharLevel
    from tokenmill.models.classic_bpe import ClassicBPE
    from tokenmill.models.wordlevel import WordLevel

    lines = texts[:150]
    (tmp_path / "a.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    wp = tokenmill.load(shared_data / "hf" / "bert-base-uncased" / "vocab.txt")
    prepare([tmp_path / "a.txt"], tmp_path / "wp", tokenizer=wp, by_line=True, quiet=True)
    want = [i for t in lines for i in wp.encode(t, add_special_tokens=False) + [wp.token_to_id("[SEP]")]]
    assert read_all(tmp_path / "wp")[0].tolist() == want
    for tok, eot in [(CharLevel.train(lines), "none"), (WordLevel.train(lines), "append"), (ClassicBPE.train(lines, 300), "none")]:
        name = type(tok).__name__
        s = prepare([tmp_path / "a.txt"], tmp_path / name, tokenizer=tok, by_line=True, eot=eot, quiet=True,
                    shard_tokens=500, num_workers=2)
        tail = [tok.special_tokens["<|endoftext|>"]] if eot == "append" else []
        want = [i for t in lines for i in tok.encode_ordinary(t) + tail]
        assert read_all(tmp_path / name)[0].tolist() == want, name
        assert s["tokens"] == len(want) and s["shards"] > 1
        tok.save(tmp_path / f"{name}.json")
        prepare([tmp_path / "a.txt"], tmp_path / f"{name}-file", tokenizer=tmp_path / f"{name}.json", by_line=True,
                eot=eot, quiet=True, shard_tokens=500)
        assert files(tmp_path / f"{name}-file").keys() == files(tmp_path / name).keys()
        assert read_all(tmp_path / f"{name}-file")[0].tolist() == want


def test_one_big_file_is_cut_into_byte_range_units(tmp_path, texts, tm):
    """A JSON lines (or by-line text) file bigger than unit_bytes is cut into byte ranges,
    one unit each, which ranks and executors share; every line is read once (the ranges' ends
    fall inside lines), the ids are exact, and the index counts the file's documents once."""
    from concurrent.futures import ThreadPoolExecutor

    enc = tm("gpt2")
    big = tmp_path / "big.jsonl"
    big.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    small = tmp_path / "small.txt"
    small.write_text("\n".join(texts[:30]) + "\n", encoding="utf-8")
    kw = dict(shard_tokens=500, quiet=True, unit_bytes=7001)
    local = tmp_path / "local"
    s = prepare([big, small], local, **kw)
    index = json.loads((local / "index.json").read_text())
    assert len(index["units"]) > 10 and s["documents"] == len(texts) + 1
    assert [src["documents"] for src in index["sources"]] == [len(texts), 1]
    want = [i for t in texts + ["\n".join(texts[:30]) + "\n"] for i in enc.encode_ordinary(t) + [enc.eot_token]]
    assert read_all(local)[0].tolist() == want
    ranked = tmp_path / "ranked"
    for r in (1, 0):
        prepare([big, small], ranked, rank=r, world_size=2, **kw)
    assert files(ranked) == files(local)
    with ThreadPoolExecutor(2) as ex:
        prepare([big, small], tmp_path / "pooled", engine=ex, **kw)
    assert files(tmp_path / "pooled") == files(local)
    # Resuming inside a range: drop the last shards of a middle unit.
    out = interrupted_copy(local, tmp_path / "resumed", 5)
    assert prepare([big, small], out, **kw)["complete"]
    assert files(out) == files(local)
    # A gzipped file of lines stays whole (it cannot be read from the middle).
    import gzip as gz

    zipped = tmp_path / "big.jsonl.gz"
    zipped.write_bytes(gz.compress(big.read_bytes()))
    prepare([zipped], tmp_path / "gz", **kw)
    assert len(json.loads((tmp_path / "gz" / "index.json").read_text())["units"]) == 1
    assert read_all(tmp_path / "gz")[0].tolist() == want[:len(want) - len(enc.encode_ordinary("\n".join(texts[:30]) + "\n")) - 1]


def test_a_big_parquet_file_is_cut_into_row_group_units(tmp_path, texts, tm):
    """A parquet file bigger than unit_bytes is cut into ranges of whole row groups, one unit
    each: the same ids as one unit, ranks share them, and a unit resumes mid-range."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    enc = tm("gpt2")
    rows = texts + [None] + texts[:40]
    pq.write_table(pa.table({"text": pa.array(rows, type=pa.string())}), tmp_path / "p.parquet", row_group_size=50)
    kw = dict(shard_tokens=700, quiet=True, skip_bad=True)
    whole = tmp_path / "whole"
    prepare([tmp_path / "p.parquet"], whole, **kw)
    want = [i for t in texts + texts[:40] for i in enc.encode_ordinary(t) + [enc.eot_token]]
    assert read_all(whole)[0].tolist() == want
    local = tmp_path / "local"
    s = prepare([tmp_path / "p.parquet"], local, unit_bytes=20_000, **kw)
    index = json.loads((local / "index.json").read_text())
    assert len(index["units"]) > 3 and all(u[0][1] is not None for u in index["units"])
    assert read_all(local)[0].tolist() == want and s["skipped"] == 1
    assert index["sources"][0]["documents"] == len(texts) + 40
    ranked = tmp_path / "ranked"
    for r in (1, 0):
        prepare([tmp_path / "p.parquet"], ranked, unit_bytes=20_000, rank=r, world_size=2, **kw)
    assert files(ranked) == files(local)
    out = interrupted_copy(local, tmp_path / "resumed", 2)
    prepare([tmp_path / "p.parquet"], out, unit_bytes=20_000, **kw)
    assert files(out) == files(local)


def test_ranks_and_executor_give_the_local_bytes(tmp_path, texts):
    """Work units (groups of input files) written by separate ranks, or as executor tasks, end
    in the same directory bytes as one local run."""
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

    paths = write_parts(tmp_path, texts, 5)
    kw = dict(by_line=True, shard_tokens=1500, quiet=True, unit_bytes=5000)
    local = tmp_path / "local"
    s = prepare(paths, local, **kw)
    assert s["complete"] and len({f.name.split("_")[1] for f in local.glob("shard_*.npy")}) > 2
    ranked = tmp_path / "ranked"
    for r in (2, 0):
        part = prepare(paths, ranked, rank=r, world_size=3, **kw)
        assert not part["complete"] and not (ranked / "index.json").exists()
    assert prepare(paths, ranked, rank=1, world_size=3, **kw)["complete"]
    assert files(ranked) == files(local)
    pooled = tmp_path / "pooled"
    with ThreadPoolExecutor(2) as ex:
        assert prepare(paths, pooled, engine=ex, **kw)["complete"]
    assert files(pooled) == files(local)
    procs = tmp_path / "procs"
    with ProcessPoolExecutor(2) as ex:
        assert prepare(paths, procs, engine=ex, **kw)["complete"]
    assert files(procs) == files(local)
    with pytest.raises(InputError, match="rank"):
        prepare(paths, tmp_path / "bad", rank=3, world_size=3, **kw)
    with pytest.raises(InputError, match="engine"):
        prepare(paths, tmp_path / "bad2", engine="spark", **kw)


def test_ray_engine_gives_the_local_bytes(tmp_path, texts):
    """Ray runs locally here (started by the test, about 5 s): each unit a task, the same bytes."""
    import ray  # a test dependency (pyproject's test extra)

    paths = write_parts(tmp_path, texts, 3)
    kw = dict(by_line=True, shard_tokens=1500, quiet=True, unit_bytes=5000)
    prepare(paths, tmp_path / "local", **kw)
    env = {"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=env)
    try:
        assert prepare(paths, tmp_path / "ray", engine="ray", **kw)["complete"]
    finally:
        ray.shutdown()
    assert files(tmp_path / "ray") == files(tmp_path / "local")


def test_lazy_exports_and_light_import():
    """`import tokenmill` does not load the shard writer or the datasets (start-up time), and
    `tokenmill.data.prepare` is the function whatever was imported first."""
    code = ("import sys, tokenmill, tokenmill.cli\n"
            "assert 'tokenmill.data.prepare_shards' not in sys.modules or 'tokenmill.cli' in sys.modules\n"
            "assert 'tokenmill.data.dataset' not in sys.modules and 'numpy' not in sys.modules\n"
            "from tokenmill.data import prepare, read_tokens\n"
            "assert callable(prepare) and callable(read_tokens)\n")
    here = str(Path(tokenmill.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([sys.executable, "-c", code], env=env, check=True)


def test_pathological_documents(tmp_path, tm):
    """A million repeats of one character, long whitespace and digit runs, NUL bytes and lone CRs,
    as whole files (cut into blocks) and as lines: the ids of encode_ordinary. A lone surrogate
    escape in JSON is a clear error naming file:line."""
    enc = tm("cl100k_base")
    # "ab,cd;" * 400_000: 2.4 MB without a safe cut point, more than a block (1 MiB) of the reader.
    docs = ["a" * 1_000_000, " " * 300_000 + "x", "1" * 300_000, "nul\x00\x00byte" * 1000, "cr\rlone\r" * 1000,
            "ab,cd;" * 400_000 + " end"]
    paths = []
    for i, d in enumerate(docs):
        p = tmp_path / f"d{i}.txt"
        p.write_bytes(d.encode("utf-8"))
        paths.append(p)
    prepare(paths, tmp_path / "out", tokenizer="cl100k_base", eot="none", num_workers=2, quiet=True)
    assert read_all(tmp_path / "out")[0].tolist() == [i for d in docs for i in enc.encode_ordinary(d)]
    js = tmp_path / "s.jsonl"
    js.write_text('{"text": "ok"}\n{"text": "lone \\ud800 half"}\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"s\.jsonl:2: text has a lone surrogate U\+D800"):
        prepare([js], tmp_path / "o2", quiet=True)
