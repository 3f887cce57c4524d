"""`tokenmill.analysis.compare`, ``tokenmill compare`` and the bundled samples: rows and
formats, streaming that gives the whole file's counts, binary files, and the classic lessons
the samples exist to show (with the real encodings)."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
from pathlib import Path

import pytest

import tokenmill
from tokenmill.analysis.compare import COLUMNS, compare, count_file, count_text, table, to_csv
from tokenmill.analysis.samples import Sample, groups, sample, sample_names, samples
from tokenmill.cli import main
from tokenmill.errors import InputError
from tokenmill.viz.show import resolve_all
from tokenmill.viz.tokens import pieces

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
LANGUAGES = ["English", "French", "German", "Spanish", "Russian", "Arabic", "Hindi", "Chinese", "Japanese", "Korean"]


def shared(*parts: str) -> Path:
    p = DATA.joinpath(*parts)
    assert p.exists(), f"missing shared test data {p} (see ../shared/data/README.md)"
    return p


def tokens(encoding: str, name: str) -> int:
    return tokenmill.get_encoding(encoding).count(sample(name).text(), disallowed_special=())


# ------------------------------------------------------------------------- the samples
def test_manifest_lists_every_sample_with_source_and_licence():
    names = sample_names()
    for required in LANGUAGES + ["Python code", "Python code (deep indentation)", "numbers and arithmetic",
                                 "data as JSON", "data as YAML", "text with <|endoftext|>"]:
        assert required in names
    assert len(set(names)) == len(names)
    folder = Path(samples()[0].path).parent
    total = 0
    for s in samples():
        assert s.source.strip() and s.license.strip() and s.description.strip(), s.name
        size = Path(s.path).stat().st_size
        total += size
        if s.file != "the-verdict.txt":
            assert size < 8_000, f"{s.name} is {size} bytes: samples stay small"
        s.text()  # valid UTF-8
    assert total < 100_000
    listed = {s.file for s in samples()} | {"manifest.json", "__init__.py"}
    on_disk = {p.name for p in folder.iterdir() if p.is_file() and p.suffix != ".pyc"}
    assert on_disk <= listed, f"files in samples/ not in the manifest: {on_disk - listed}"
    assert groups() == ["languages", "code", "numbers", "data", "special", "prose"]


def test_sample_lookup():
    assert sample("FRENCH").name == "French"
    with pytest.raises(InputError, match="English, French"):
        sample("Klingon")
    with pytest.raises(InputError, match="languages, code"):
        samples("poetry")


def test_languages_are_the_same_passage():
    texts = [sample(n).text() for n in LANGUAGES]
    # UDHR articles 1-3: article 2 has two paragraphs, so four paragraphs each
    assert all(t.count("\n\n") == 3 and t.endswith("\n") for t in texts)
    assert texts[0].startswith("All human beings are born free and equal in dignity and rights.")


def test_lesson_other_languages_cost_more_gpt2_tokens_than_english():
    english = tokens("gpt2", "English")
    for name in LANGUAGES[1:]:
        assert tokens("gpt2", name) > english, name
    # the scripts GPT-2 saw least cost several times more
    for name in ("Russian", "Hindi", "Korean"):
        assert tokens("gpt2", name) > 4 * english, name
    # newer vocabularies narrow the gap
    for name in ("Hindi", "Russian", "Arabic"):
        assert tokens("o200k_base", name) < tokens("cl100k_base", name) < tokens("gpt2", name), name


def test_lesson_cl100k_handles_indentation():
    deep_gpt2, deep_cl100k = tokens("gpt2", "Python code (deep indentation)"), tokens("cl100k_base", "Python code (deep indentation)")
    flat_gpt2, flat_cl100k = tokens("gpt2", "Python code"), tokens("cl100k_base", "Python code")
    assert deep_cl100k < deep_gpt2
    assert deep_gpt2 / deep_cl100k > 2.5 > flat_gpt2 / flat_cl100k  # the gap comes from the spaces


def test_lesson_yaml_is_cheaper_than_json():
    assert tokens("cl100k_base", "data as YAML") < tokens("cl100k_base", "data as JSON")
    assert tokens("o200k_base", "data as YAML") < tokens("o200k_base", "data as JSON")


def test_json_and_yaml_hold_the_same_data():
    yaml = pytest.importorskip("yaml", reason="PyYAML (test extra) checks the YAML sample")
    assert yaml.safe_load(sample("data as YAML").text()) == json.loads(sample("data as JSON").text())


def test_lesson_numbers():
    gpt2 = tokenmill.get_encoding("gpt2")
    text = sample("numbers and arithmetic").text()
    assert "998 + 9988 = 10986" in text
    assert len(gpt2.encode("998")) == 1 and len(gpt2.encode("9988")) == 2
    # cl100k cuts digits into groups of at most three
    cl100k = tokenmill.get_encoding("cl100k_base")
    assert [cl100k.decode([i]) for i in cl100k.encode("10986")] == ["109", "86"]


def test_lesson_endoftext_is_ordinary_text_by_default():
    text = sample("text with <|endoftext|>").text()
    assert text.count("<|endoftext|>") == 3
    for name in ("gpt2", "cl100k_base", "o200k_base"):
        (_, enc), = resolve_all(name)
        assert not any(p.special for p in pieces(enc, text))
        special = [p for p in pieces(enc, text, parse_special=True) if p.special]
        assert len(special) == 3 and special[0].data == b"<|endoftext|>"
    assert 50256 not in tokenmill.get_encoding("gpt2").encode(text, disallowed_special=())


# ------------------------------------------------------------------------- compare()
def test_rows_have_the_documented_keys():
    rows = compare(samples("data"), ["gpt2", "cl100k_base"])
    assert [(r["sample"], r["encoding"]) for r in rows] == [
        ("data as JSON", "gpt2"), ("data as JSON", "cl100k_base"), ("data as YAML", "gpt2"), ("data as YAML", "cl100k_base")]
    for r in rows:
        assert tuple(r) == COLUMNS
        assert r["chars_per_token"] == r["chars"] / r["tokens"] and r["bytes_per_token"] == r["bytes"] / r["tokens"]
        assert r["exact"] is True


def test_inputs_files_texts_pairs_and_samples(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("hello world", encoding="utf-8")
    rows = compare([f, str(f), ("pair", "hello world"), sample("English")], "gpt2")
    assert [r["sample"] for r in rows] == [str(f), str(f), "pair", "English"]
    assert rows[0]["tokens"] == rows[1]["tokens"] == rows[2]["tokens"] == 2
    assert compare({"t": "hello world"}, "gpt2")[0]["tokens"] == 2
    assert compare(f, "gpt2")[0]["tokens"] == 2
    with pytest.raises(InputError, match="no such file.*name"):
        compare(["hello world"], "gpt2")
    with pytest.raises(InputError, match="unknown tokenizer"):
        compare({"t": "x"}, "gpt-2")
    empty = compare({"e": ""}, "gpt2")[0]
    assert empty["tokens"] == 0 and empty["chars_per_token"] is None


def test_streaming_gives_the_whole_files_counts(tmp_path):
    text = shared("corpus", "botchan.txt").read_text(encoding="utf-8")
    path = tmp_path / "b.txt"
    path.write_text(text, encoding="utf-8")
    for name in ("gpt2", "cl100k_base", "o200k_base"):
        (_, enc), = resolve_all(name)
        whole = count_text(enc, text)
        streamed = count_file(enc, path, chunk_size=4096)  # about 70 blocks
        assert streamed == whole, name
    gz = tmp_path / "b.txt.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    (_, enc), = resolve_all("cl100k_base")
    assert count_file(enc, gz, chunk_size=10_000) == count_text(enc, text)


def test_template_tokens_are_counted_once_per_file(tmp_path):
    text = shared("corpus", "botchan.txt").read_text(encoding="utf-8")[:50_000]
    path = tmp_path / "b.txt"
    path.write_text(text, encoding="utf-8")
    (_, bert), = resolve_all(str(shared("hf", "bert-base-uncased", "tokenizer.json")))
    streamed = count_file(bert, path, chunk_size=4096)
    assert streamed["tokens"] == bert.count(text, disallowed_special=())  # [CLS] and [SEP] once
    assert streamed["exact"] is False  # cut at line breaks: exact for BERT here, not proven in general
    assert count_file(bert, path)["exact"] is True  # one block


def test_binary_files_are_errors_with_offsets(tmp_path):
    (_, enc), = resolve_all("gpt2")
    b = tmp_path / "x.bin"
    b.write_bytes(b"text first " * 1000 + b"\0\1\2")
    with pytest.raises(InputError, match=r"x\.bin: a NUL byte at byte 11000"):
        count_file(enc, b, chunk_size=4096)
    bad = tmp_path / "y.txt"
    bad.write_bytes("é".encode() * 5000 + b"\xff tail")
    with pytest.raises(InputError, match=r"y\.txt: invalid UTF-8 .* at byte 10000"):
        count_file(enc, bad, chunk_size=4096)
    r = count_file(enc, bad, errors="replace")
    assert r["chars"] == 5000 + 1 + 5
    with pytest.raises(InputError, match="no such file"):
        count_file(enc, tmp_path / "none.txt")
    with pytest.raises(InputError, match="directory"):
        count_file(enc, tmp_path)


def test_table_and_csv():
    rows = compare({"hi": "hello world", "longer name": "x"}, "gpt2,cl100k_base")
    lines = table(rows).splitlines()
    assert lines[0].split() == ["sample", "encoding", "tokens", "chars/token", "bytes/token"]
    assert lines[1].startswith("hi ") and lines[2].startswith("  ") and lines[3].startswith("longer name")
    parsed = list(csv.DictReader(io.StringIO(to_csv(rows))))
    assert [r["encoding"] for r in parsed] == ["gpt2", "cl100k_base"] * 2
    assert parsed[0]["tokens"] == "2" and float(parsed[0]["bytes_per_token"]) == 5.5


# ------------------------------------------------------------------------- the command
def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_json(capsys, tmp_path):
    a = tmp_path / "a.txt"
    a.write_text("hello world\n", encoding="utf-8")
    b = tmp_path / "b.txt"
    b.write_text("    indented\n", encoding="utf-8")
    rc, out, err = run_cli(capsys, "compare", str(a), str(b), "--encodings", "gpt2,cl100k_base", "--json")
    assert rc == 0 and err == ""
    rows = json.loads(out)
    assert [(r["sample"], r["encoding"]) for r in rows] == [
        (str(a), "gpt2"), (str(a), "cl100k_base"), (str(b), "gpt2"), (str(b), "cl100k_base")]
    for r in rows:
        assert {"sample", "encoding", "tokens", "chars", "bytes", "chars_per_token", "bytes_per_token"} <= set(r)
    # --tokenizer is an alias
    rc, out2, _ = run_cli(capsys, "compare", str(a), str(b), "--tokenizer", "gpt2,cl100k_base", "--json")
    assert json.loads(out2) == rows


def test_cli_samples_table_and_csv(capsys):
    rc, out, _ = run_cli(capsys, "compare", "--samples", "-e", "gpt2")
    assert rc == 0
    assert out.splitlines()[0].split()[:2] == ["sample", "encoding"]
    for name in ("English", "Python code (deep indentation)", "text with <|endoftext|>"):
        assert name in out
    rc, out, _ = run_cli(capsys, "compare", "--samples", "-e", "cl100k_base", "--csv")
    rows = {r["sample"]: int(r["tokens"]) for r in csv.DictReader(io.StringIO(out))}
    assert rows["data as YAML"] < rows["data as JSON"]


def test_cli_list_samples(capsys):
    rc, out, _ = run_cli(capsys, "compare", "--list-samples")
    assert rc == 0 and "licence:" in out and "Universal Declaration of Human Rights" in out
    rc, out, _ = run_cli(capsys, "compare", "--list-samples", "--json")
    listed = json.loads(out)
    assert [s["name"] for s in listed] == sample_names() and {"source", "license", "file"} <= set(listed[0])


def test_cli_errors(capsys, tmp_path):
    rc, out, err = run_cli(capsys, "compare")
    assert rc == 2 and "nothing to compare" in err
    rc, _, err = run_cli(capsys, "compare", str(tmp_path / "missing.txt"))
    assert rc == 2 and "missing.txt" in err
    b = tmp_path / "b.bin"
    b.write_bytes(b"ab\0")
    rc, out, err = run_cli(capsys, "compare", str(b))
    assert rc == 2 and out == "" and "a NUL byte at byte 2" in err and err.count("\n") == 1
    rc, _, err = run_cli(capsys, "compare", "--samples", "-e", "cl100k")
    assert rc == 2 and "unknown tokenizer 'cl100k'" in err and "cl100k_base" in err
    rc, _, err = run_cli(capsys, "compare", "--samples", "--json", "--csv")
    assert rc == 2


def test_sample_objects_are_named_tuples():
    s = sample("English")
    assert isinstance(s, Sample) and s._asdict()["name"] == "English"


def test_gzip_is_found_by_its_magic_and_corrupt_gzip_is_one_line(capsys, tmp_path):
    (_, enc), = resolve_all("gpt2")
    named = tmp_path / "plain-name.txt"  # gzip content whatever the name
    named.write_bytes(gzip.compress(b"hello world\n"))
    assert count_file(enc, named)["tokens"] == enc.count("hello world\n")
    corrupt = bytearray(gzip.compress(b"hello world\n" * 1000))
    for i in range(12, 40):  # a broken deflate stream: zlib.error, which is no OSError
        corrupt[i] ^= 0x55
    bad = tmp_path / "bad.gz"
    bad.write_bytes(bytes(corrupt))
    with pytest.raises(InputError, match="not a readable gzip file"):
        count_file(enc, bad)
    rc, out, err = run_cli(capsys, "compare", str(bad))
    assert rc == 2 and out == "" and err.startswith("tokenmill: error: ") and err.count("\n") == 1


def test_cli_stdin_and_missing_files(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"hello world\n"), encoding="utf-8"))
    rc, out, _ = run_cli(capsys, "compare", "-", "-e", "gpt2", "--json")
    assert rc == 0 and json.loads(out)[0]["sample"] == "<stdin>" and json.loads(out)[0]["tokens"] == 3
    rc, _, err = run_cli(capsys, "compare", "-", "-")
    assert rc == 2 and "stdin can be read once" in err
    a = tmp_path / "a.txt"
    a.write_text("x", encoding="utf-8")
    rc, out, err = run_cli(capsys, "compare", str(a), str(tmp_path / "missing"))
    assert rc == 2 and out == "" and err == f"tokenmill: error: {tmp_path / 'missing'}: no such file\n"
    rc, _, err = run_cli(capsys, "compare", str(a), str(tmp_path))
    assert rc == 2 and "is a directory" in err


def test_a_pipe_is_read_once_for_every_tokenizer(capsys):
    # A pipe given as a file (<(cmd)) used to be streamed per tokenizer: the second one read
    # an empty pipe and reported 0 tokens.
    r, w = os.pipe()
    os.write(w, b"hello world\n" * 100)
    os.close(w)
    try:
        rows = compare([f"/dev/fd/{r}"], "gpt2,cl100k_base")
    finally:
        os.close(r)
    assert [row["tokens"] for row in rows] == [300, 300]
    r, w = os.pipe()
    os.write(w, b"hello world\n" * 100)
    os.close(w)
    try:
        rc, _, err = run_cli(capsys, "compare", f"/dev/fd/{r}", "-e", "gpt2,cl100k_base", "--max-bytes", "100")
    finally:
        os.close(r)
    assert rc == 2 and "--max-bytes" in err and err.count("\n") == 1
