"""The counting phase of `train_bpe` on distributed engines (ThreadPoolExecutor,
ProcessPoolExecutor, Ray): the same tokenizer as the local engine; the counter's bytes
format (round trip, corrupt and truncated blobs); bad engine arguments; the CLI's --engine."""

from __future__ import annotations

import gzip
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

import tokenmill
from tokenmill import _core
from tokenmill.cli import main
from tokenmill.data.units import units
from tokenmill.errors import InputError, TokenmillError
from tokenmill.patterns import resolve_pattern

EOT = "<|endoftext|>"
KW = dict(vocab_size=600, special_tokens=(EOT,), progress=False, unit_bytes=40_000)


@pytest.fixture(scope="module")
def paths(tmp_path_factory, shared_data) -> list[str]:
    """About 300 KB in seven files (plain, gzip, JSON lines): several units of 40 KB."""
    d = tmp_path_factory.mktemp("engines")
    canterbury = shared_data / "corpus" / "canterbury"
    text = (canterbury / "alice29.txt").read_text(encoding="latin-1") + EOT
    text += (canterbury / "asyoulik.txt").read_text(encoding="latin-1")
    part = len(text) // 6
    out = []
    for i in range(5):
        p = d / f"part{i}.txt"
        p.write_text(text[i * part:(i + 1) * part], encoding="utf-8")
        out.append(str(p))
    with gzip.open(d / "part5.txt.gz", "wt", encoding="utf-8") as f:
        f.write(text[5 * part:])
    with open(d / "lines.jsonl", "w", encoding="utf-8") as f:
        for line in (shared_data / "the-verdict.txt").read_text(encoding="utf-8").splitlines():
            f.write(json.dumps({"text": line}) + "\n")
    out.append(str(d / "lines.jsonl"))
    assert len(units([os.path.getsize(p) for p in out], KW["unit_bytes"])) >= 5
    return out


@pytest.fixture(scope="module")
def local(paths) -> tokenmill.Encoding:
    return tokenmill.train_bpe(paths, **KW)


def same(a: tokenmill.Encoding, b: tokenmill.Encoding) -> None:
    assert a.mergeable_ranks() == b.mergeable_ranks()
    assert a.special_tokens == b.special_tokens and a.pattern == b.pattern
    keys = ("merges", "text_bytes", "tokens", "documents")
    assert {k: a.training_info[k] for k in keys} == {k: b.training_info[k] for k in keys}


def test_local_is_the_default(paths, local):
    assert local.n_vocab == 600 and local.training_info["merges"] == 600 - 257
    same(local, tokenmill.train_bpe(paths, engine="local", **KW))


def test_thread_and_process_pools_give_the_local_tokenizer(paths, local):
    with ThreadPoolExecutor(3) as ex:
        same(local, tokenmill.train_bpe(paths, engine=ex, **KW))
    with ProcessPoolExecutor(2) as ex:
        same(local, tokenmill.train_bpe(paths, engine=ex, num_threads=1, **KW))
    # One unit holding everything, and one unit per file (the JSON lines file cut into byte
    # ranges of 5 kB: each holds the lines that start in it).
    with ThreadPoolExecutor(2) as ex:
        same(local, tokenmill.train_bpe(paths, engine=ex, **dict(KW, unit_bytes=1 << 30)))
        same(local, tokenmill.train_bpe(paths, engine=ex, **dict(KW, unit_bytes=5000)))


def test_a_big_parquet_file_is_cut_into_row_groups(tmp_path, paths):
    import pyarrow as pa
    import pyarrow.parquet as pq

    lines = [json.loads(line)["text"] for p in paths if p.endswith(".jsonl") for line in open(p, encoding="utf-8")]
    pq.write_table(pa.table({"text": lines}), tmp_path / "l.parquet", row_group_size=100)
    kw = dict(KW, vocab_size=400)
    want = tokenmill.train_bpe([str(tmp_path / "l.parquet")], **kw)
    with ThreadPoolExecutor(2) as ex:
        same(want, tokenmill.train_bpe([str(tmp_path / "l.parquet")], engine=ex, **dict(kw, unit_bytes=2000)))


def test_a_big_text_file_is_cut_at_safe_points(tmp_path, shared_data):
    """A plain-text file in byte ranges whose ends move to safe cut points: the counts, and so
    the tokenizer, equal one local read, for range sizes that fall anywhere (also inside
    multi-byte characters and whitespace runs); a custom pattern keeps the file whole."""
    import gzip as gz

    with gz.open(shared_data / "corpus" / "debian-handbook.ja-JP.txt.gz", "rt", encoding="utf-8") as f:
        text = f.read(60_000)
    with gz.open(shared_data / "corpus" / "debian-handbook.fr-FR.txt.gz", "rt", encoding="utf-8") as f:
        text += "\n\n   \n" + f.read(120_000)
    p = tmp_path / "big.txt"
    p.write_text(text, encoding="utf-8")
    kw = dict(KW, vocab_size=500)
    want = tokenmill.train_bpe([str(p)], **kw)
    with ThreadPoolExecutor(2) as ex:
        for unit_bytes in (4099, 10_000, 33_333):
            same(want, tokenmill.train_bpe([str(p)], engine=ex, **dict(kw, unit_bytes=unit_bytes)))
        custom = dict(kw, pattern=r"\s?\w+|\s?[^\w\s]+|\s+")
        same(tokenmill.train_bpe([str(p)], **custom), tokenmill.train_bpe([str(p)], engine=ex, **dict(custom, unit_bytes=4099)))


def test_a_big_json_lines_file_is_cut_into_byte_ranges(paths):
    """Ranges of every size around the lines' ends: the counts are the whole file's."""
    jsonl = [p for p in paths if p.endswith(".jsonl")]
    kw = dict(KW, vocab_size=400)
    want = tokenmill.train_bpe(jsonl, **kw)
    with ThreadPoolExecutor(2) as ex:
        for unit_bytes in (997, 4096, 7001):
            same(want, tokenmill.train_bpe(jsonl, engine=ex, **dict(kw, unit_bytes=unit_bytes)))


def test_python_reader_path_too(paths):
    """A custom pattern and errors="replace" are read by Python's reader, in tasks as locally."""
    kw = dict(KW, pattern=r"\s?\w+|\s?[^\w\s]+|\s+", errors="replace")
    with ThreadPoolExecutor(2) as ex:
        same(tokenmill.train_bpe(paths, **kw), tokenmill.train_bpe(paths, engine=ex, **kw))


def test_ray_engine_gives_the_local_tokenizer(paths, local):
    """Ray runs locally here (started by the test, a few seconds): a task per unit, the same tokenizer."""
    import ray  # a test dependency (pyproject's test extra)

    env = {"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=env)
    try:
        same(local, tokenmill.train_bpe(paths, engine="ray", num_threads=1, **KW))
        # A task's error reaches the caller as itself (file:line), not as Ray's wrapper.
        bad = os.path.join(os.path.dirname(paths[0]), "bad.jsonl")
        with open(bad, "w", encoding="utf-8") as f:
            f.write('{"text": "ok"}\n{"text": "cut\n')
        with pytest.raises(tokenmill.CorpusError, match=r"bad\.jsonl:2: line is not valid JSON"):
            tokenmill.train_bpe([bad], engine="ray", num_threads=1, **KW)
    finally:
        ray.shutdown()


def test_bad_engine_arguments(paths):
    with ThreadPoolExecutor(1) as ex, pytest.raises(InputError, match="file paths, not texts"):
        tokenmill.train_bpe(["some text", "more text"], 300, progress=False, engine=ex)
    with pytest.raises(InputError, match=r"'local', 'ray' or a concurrent.futures.Executor, not 'spark'"):
        tokenmill.train_bpe(paths, 300, progress=False, engine="spark")
    with pytest.raises(InputError, match="unit_bytes"):
        tokenmill.train_bpe(paths, 300, progress=False, engine="local", unit_bytes=0)


def test_progress_false_is_silent(paths, capfd):
    with ThreadPoolExecutor(2) as ex:
        tokenmill.train_bpe(paths, engine=ex, **KW)
    assert capfd.readouterr().err == ""


def counter(*texts: str) -> _core.WordCounter:
    c = _core.WordCounter(resolve_pattern("cl100k"), [EOT])
    c.add_texts(list(texts))
    return c


def test_bytes_round_trip_is_a_sum():
    a, b = f"Hello world, hello again.{EOT} x = 12345;", "héllo wörld 🙂\n\n  tabs\tand more"
    whole = counter(a, b)
    merged = counter()
    merged.merge_bytes(counter(a).to_bytes())
    merged.merge_bytes(counter(b).to_bytes())
    assert merged.items() == whole.items() and merged.to_bytes() == whole.to_bytes()
    assert (merged.text_bytes, merged.specials_seen) == (whole.text_bytes, whole.specials_seen) and whole.specials_seen == 1
    blob = whole.to_bytes()
    assert blob[:4] == b"TMWC" and int.from_bytes(blob[4:8], "little") == 1
    big = counter()
    big.add(b"x", 2**63)
    again = counter()
    again.merge_bytes(big.to_bytes())
    assert again.items() == [(b"x", 2**63)]


def test_corrupt_and_truncated_blobs_are_clear_errors():
    good = counter("Hello world, hello again.").to_bytes()
    target = counter("kept")
    before = target.to_bytes()
    for n in range(len(good)):
        with pytest.raises(InputError, match="word-count blob"):
            target.merge_bytes(good[:n])
    for i in range(len(good)):  # any single corrupt byte: an error or a valid blob, never a crash
        bad = bytearray(good)
        bad[i] ^= 0xFF
        try:
            counter().merge_bytes(bytes(bad))
        except TokenmillError:
            pass
    with pytest.raises(InputError, match="no TMWC magic"):
        target.merge_bytes(b"PK\x03\x04" + good[4:])
    with pytest.raises(InputError, match="version 7 is not supported"):
        target.merge_bytes(good[:4] + (7).to_bytes(4, "little") + good[8:])
    with pytest.raises(InputError, match="cannot fit"):
        target.merge_bytes(good[:24] + (2**64 - 1).to_bytes(8, "little"))
    with pytest.raises(InputError, match="trailing"):
        target.merge_bytes(good + b"\0")
    assert target.to_bytes() == before
    assert issubclass(InputError, TokenmillError)


def test_cli_engine(paths, tmp_path):
    out = tmp_path / "t.json"
    assert main(["train", *paths, "--vocab-size", "300", "--engine", "local", "--unit-bytes", "40000", "-q", "-o",
                 str(out)]) == 0
    assert tokenmill.load(out).n_vocab == 300
    assert main(["train", *paths, "--model", "char", "--engine", "ray", "-o", str(tmp_path / "c.json")]) == 2
    assert main(["train", *paths, "--model", "wordpiece", "--vocab-size", "300", "--unit-bytes", "9",
                 "-o", str(tmp_path / "w.json")]) == 2
