"""Tests of the ``tokenmill`` command line (`tokenmill.cli`).

Most tests call ``cli.main([...])`` in-process with pytest's capture fixtures; one test runs
``python -m tokenmill.cli`` in subprocesses (encode piped into decode). The streaming tests check
the claim behind `chunks.safe_cut`: cutting text at every safe point gives exactly the pre-tokens
and ids of the whole text, on every corpus file in ../shared/data and on random
whitespace-heavy text, for each distinct pre-tokenizer pattern (r50k, cl100k, o200k).
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys

import pytest

import peers
import tokenmill
from tokenmill import cli
from tokenmill.cli.tokens import SAMPLE_TEXT
from tokenmill.data import chunks

PATTERN_ENCODINGS = ["r50k_base", "cl100k_base", "o200k_base"]


def enc(name="cl100k_base"):
    return tokenmill.get_encoding(name)


def run(capsys, *argv):
    """main(argv) -> (exit status, stdout, stderr)."""
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def set_stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def assert_one_line_error(code, err, *fragments):
    assert code == 2
    assert err.startswith("tokenmill: error: "), err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for f in fragments:
        assert f in err, (f, err)


def all_cut_points(text: str) -> list[int]:
    """Every index where `chunks.safe_cut` may cut."""
    return list(chunks.iter_cut_points(text))


def pieces_cut_everywhere(e, text: str, cuts=None) -> tuple[list[str], list[int]]:
    """Pre-tokens and ids of `text` encoded separately between all safe cut points."""
    bounds = [0] + (all_cut_points(text) if cuts is None else cuts) + [len(text)]
    pieces, ids = [], []
    for a, b in zip(bounds, bounds[1:]):
        if b > a:
            pieces += e.split(text[a:b])
            ids += e.encode(text[a:b], allowed_special="all")
    return pieces, ids


def raw_text(path) -> str:
    """A file's exact text (gunzipped if .gz), without newline translation (some corpus files use
    CRLF, which ``Path.read_text`` and ``peers.corpus_texts`` turn into LF)."""
    import gzip

    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8")


@pytest.fixture(scope="module")
def corpus():
    """{name relative to ../shared/data: exact text} for the-verdict.txt and every corpus file."""
    data = peers.shared_data()
    paths = [data / "the-verdict.txt"] + sorted(p for p in (data / "corpus").rglob("*") if p.is_file())
    return {str(p.relative_to(data)): raw_text(p) for p in paths}


@pytest.fixture(scope="module")
def alice(corpus):
    path = peers.shared_data() / "corpus" / "canterbury" / "alice29.txt"
    text = corpus["corpus/canterbury/alice29.txt"]
    assert "\r\n" in text  # a CRLF file: exercises the cut rule on "\r\n"
    return path, text


# ----------------------------------------------------------------------------- safe_cut
def test_safe_cut_examples():
    assert chunks.safe_cut("hello world") == 5
    assert chunks.safe_cut("hello") == -1
    assert chunks.safe_cut("") == -1
    assert chunks.safe_cut("end.\nNext") == 5
    assert chunks.safe_cut("end.\n1") == -1  # rule A needs a letter after the newline
    assert chunks.safe_cut("end. \nNext") == -1  # ... and no whitespace before it
    assert chunks.safe_cut("a b c", start=3) == 3
    assert chunks.safe_cut("ab c", start=3) == -1
    rnd = random.Random(0)
    for _ in range(300):  # safe_cut is the last of iter_cut_points (its windows join up)
        text = "".join(rnd.choice(["ab", " ", "\n", ".", "x\n", "中"]) for _ in range(rnd.randint(0, 3000)))
        cuts = all_cut_points(text)
        assert chunks.safe_cut(text) == (cuts[-1] if cuts else -1)
        start = rnd.randint(0, len(text))
        later = [c for c in cuts if c >= start]
        assert chunks.safe_cut(text, start) == (later[-1] if later else -1)


def test_weaker_newline_rule_is_wrong_for_r50k():
    """Why rule A requires a non-space before the newline (documented in `safe_cut`)."""
    e = enc("r50k_base")
    text = "a  \nb"
    assert e.split(text) == ["a", "  ", "\n", "b"]
    assert e.split(text[:4]) + e.split(text[4:]) != e.split(text)
    assert 4 not in all_cut_points(text)


@pytest.mark.parametrize("name", PATTERN_ENCODINGS)
def test_cut_everywhere_on_corpus(corpus, name):
    """Every corpus file, cut at *every* safe point at once, encodes to the whole file's ids."""
    import numpy as np

    e = enc(name)
    for fname, text in corpus.items():
        cuts = all_cut_points(text)
        assert len(cuts) > len(text) // 200, fname  # the rule finds plenty of points
        bounds = [0] + cuts + [len(text)]
        segments = [text[a:b] for a, b in zip(bounds, bounds[1:])]
        ids, _ = e.encode_batch_to_numpy(segments, allowed_special="all")
        assert np.array_equal(ids, e.encode_to_numpy(text, allowed_special="all")), (name, fname)


TRICKY = list(
    "aZbYxqé中ﾃ\u0301'sSlLdDtTmMvVrReE019٣²Ⅻ/!?.,-_<|>😀"
    + "      \t\t\r\r\n\n\n\n\n\x0b\x0c\x85\xa0\u2028\u3000\u200b\x1c\x1f"
) + ["\r\n", "<|endoftext|>", "'ll", " \n", "\n "]


@pytest.mark.parametrize("name", PATTERN_ENCODINGS)
def test_cut_everywhere_on_random_whitespace_heavy_text(name):
    regex = pytest.importorskip("regex")  # a test dependency; the check against the pattern itself
    e = enc(name)
    rx = regex.compile(e._pat_str)
    rnd = random.Random(f"cut-{name}")
    for _ in range(3000):
        text = "".join(rnd.choice(TRICKY) for _ in range(rnd.randint(1, 40)))
        cuts = all_cut_points(text)
        pieces, ids = pieces_cut_everywhere(e, text, cuts)
        assert pieces == e.split(text), repr(text)
        assert ids == e.encode(text, allowed_special="all"), repr(text)
        bounds = [0] + cuts + [len(text)]
        rx_pieces = [p for a, b in zip(bounds, bounds[1:]) for p in rx.findall(text[a:b])]
        assert rx_pieces == rx.findall(text), repr(text)


# ----------------------------------------------------------------------------- encode
def test_encode_text(capsys):
    assert run(capsys, "encode", "--text", "hello world") == (0, "15339 1917\n", "")
    code, out, _ = run(capsys, "encode", "-e", "o200k_base", "--text", "hello world", "--json")
    assert json.loads(out) == [24912, 2375]


def test_encode_file_and_stdin_dash(capsys, monkeypatch, alice):
    path, text = alice
    set_stdin(monkeypatch, "hello world".encode())
    code, out, err = run(capsys, "encode", str(path), "-")
    assert code == 0 and err == ""
    lines = out.split("\n")
    assert lines[2:] == [""]
    assert [int(x) for x in lines[0].split()] == enc().encode(text)
    assert lines[1] == "15339 1917"


def test_encode_json_several_files(capsys, tmp_path, alice):
    path, text = alice
    other = tmp_path / "b.txt"
    other.write_text("naïve café 👍", encoding="utf-8")
    code, out, _ = run(capsys, "encode", "--json", str(path), str(other), "--encoding", "o200k_base")
    assert code == 0
    value = json.loads(out)
    assert value == {str(path): enc("o200k_base").encode(text), str(other): enc("o200k_base").encode("naïve café 👍")}


@pytest.mark.parametrize("name", PATTERN_ENCODINGS)
def test_streamed_encode_equals_whole(capsys, tmp_path, corpus, name):
    """Small reads force many cuts, multi-byte characters split across reads, and CRLF."""
    for fname in ["corpus/debian-handbook.ja-JP.txt.gz", "corpus/botchan.txt", "the-verdict.txt"]:
        text = corpus[fname]
        path = tmp_path / "input.txt"
        path.write_bytes(text.encode("utf-8"))
        code, out, _ = run(capsys, "encode", "-e", name, "--chunk-size", "997", str(path))
        assert code == 0
        assert [int(x) for x in out.split()] == enc(name).encode(text), fname


def test_million_spaces_then_x(capsys, tmp_path):
    text = " " * 1_000_000 + "x"
    p = tmp_path / "spaces.txt"
    p.write_text(text)
    expected = enc().encode(text)
    # many reads without a safe cut point: the text accumulates and is encoded in one piece
    code, out, err = run(capsys, "encode", "--chunk-size", "65536", str(p))
    assert (code, err) == (0, "")
    assert [int(x) for x in out.split()] == expected


def test_empty_stdin(capsys, monkeypatch):
    for argv, expected in [(["encode"], "\n"), (["encode", "--json"], "[]\n"), (["decode"], ""), (["count"], "0\n")]:
        set_stdin(monkeypatch, b"")
        assert run(capsys, *argv) == (0, expected, ""), argv


def test_invalid_utf8(capsys, tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"hello \xff world")
    code, out, err = run(capsys, "encode", str(p))
    assert_one_line_error(code, err, str(p), "byte 6", "--errors replace")
    code, out, err = run(capsys, "encode", "--errors", "replace", str(p))
    assert code == 0 and [int(x) for x in out.split()] == enc().encode("hello \ufffd world")
    # offset counted across reads, and a character cut off at the end of the file
    big = tmp_path / "big.txt"
    big.write_bytes(b"word " * 1000 + b"\xe2\x82" + b" more")
    code, _, err = run(capsys, "count", "--chunk-size", "64", str(big))
    assert_one_line_error(code, err, "byte 5000")
    trunc = tmp_path / "trunc.txt"
    trunc.write_bytes("price: 5€".encode()[:-1])
    code, _, err = run(capsys, "encode", str(trunc))
    assert_one_line_error(code, err, "byte 8", "unexpected end of data")


def test_special_tokens(capsys, monkeypatch):
    text = "hi <|endoftext|>"
    code, _, err = run(capsys, "encode", "--text", text)
    assert_one_line_error(code, err, "<|endoftext|>", "at byte 3", "--allowed-special", "--ordinary")
    assert run(capsys, "encode", "--text", text, "--allowed-special", "all")[1] == "6151 220 100257\n"
    assert run(capsys, "encode", "--text", text, "--allowed-special", "<|endoftext|>")[1] == "6151 220 100257\n"
    ordinary = enc().encode_ordinary(text)
    assert run(capsys, "encode", "--text", text, "--ordinary")[1] == " ".join(map(str, ordinary)) + "\n"
    assert run(capsys, "count", "--text", text, "--ordinary")[1] == f"{len(ordinary)}\n"
    code, _, err = run(capsys, "encode", "--text", text, "--allowed-special", "<|nope|>")
    assert_one_line_error(code, err, "<|nope|>", "not a special token")
    code, _, err = run(capsys, "encode", "--text", text, "--allowed-special", "all", "--ordinary")
    assert_one_line_error(code, err, "cannot be combined")


def test_disallowed_special_offset_in_later_chunk(capsys, tmp_path):
    p = tmp_path / "s.txt"
    p.write_text("word " * 100 + "<|endofprompt|>")
    code, _, err = run(capsys, "encode", "--chunk-size", "64", str(p))
    assert_one_line_error(code, err, "at byte 500")


# ----------------------------------------------------------------------------- decode
def test_round_trip_corpus_file(capsysbinary, tmp_path, alice):
    path, text = alice
    assert cli.main(["encode", "-e", "o200k_base", str(path)]) == 0
    ids_file = tmp_path / "ids.txt"
    ids_file.write_bytes(capsysbinary.readouterr().out)
    assert cli.main(["decode", "-e", "o200k_base", "--chunk-size", "1000", str(ids_file)]) == 0
    assert capsysbinary.readouterr().out == path.read_bytes()


def test_decode_json_and_bytes(capsysbinary, monkeypatch):
    set_stdin(monkeypatch, b" [15339, 1917]\n")
    assert cli.main(["decode"]) == 0
    assert capsysbinary.readouterr().out == b"hello world"
    ids = enc().encode_bytes(b"caf\xe9")  # not UTF-8: decode writes the bytes unchanged
    set_stdin(monkeypatch, " ".join(map(str, ids)).encode())
    assert cli.main(["decode"]) == 0
    assert capsysbinary.readouterr().out == b"caf\xe9"
    set_stdin(monkeypatch, b"15339 1917")
    assert cli.main(["decode", "--json"]) == 0
    assert json.loads(capsysbinary.readouterr().out) == "hello world"


def test_bad_ids(capsys, tmp_path, monkeypatch):
    p = tmp_path / "ids.txt"
    p.write_text("15339 1917\n" * 300 + "100261 5")
    code, _, err = run(capsys, "decode", "--chunk-size", "50", str(p))
    expected = str(tokenmill.TokenIdError(100261, 600, 100277))
    assert_one_line_error(code, err, expected, str(p))
    for data, fragment in [
        (b"1 2 x3", "'x3' at position 2 is not a token id"),
        (b"1 -5", "token id -5 at position 1"),
        (b"1 99999999999999999999999", "token id 99999999999999999999999 at position 1"),
        (b"[1, 2.5]", "element 1"),
        (b"[1, 2", "not valid JSON"),
        (b'{"a": [1]}', "expected a JSON list"),
        (b"1 +2", "'+2'"),
    ]:
        set_stdin(monkeypatch, data)
        code, _, err = run(capsys, "decode")
        assert_one_line_error(code, err, fragment)


# ----------------------------------------------------------------------------- count
def test_count_equals_len_encode(capsys, corpus):
    data = peers.shared_data()
    paths = sorted((data / "corpus" / "canterbury").glob("*.txt")) + [data / "corpus" / "botchan.txt"]
    code, out, _ = run(capsys, "count", "--json", *map(str, paths))
    assert code == 0
    value = json.loads(out)
    expected = {str(p): len(enc().encode(corpus[str(p.relative_to(data))])) for p in paths}
    assert value == {"counts": expected, "total": sum(expected.values())}
    code, out, _ = run(capsys, "count", *map(str, paths[:2]))
    lines = out.splitlines()
    assert lines == [f"{expected[str(paths[0])]}\t{paths[0]}", f"{expected[str(paths[1])]}\t{paths[1]}",
                     f"{expected[str(paths[0])] + expected[str(paths[1])]}\ttotal"]


def test_count_stdin(capsys, monkeypatch):
    set_stdin(monkeypatch, "hello world\n".encode())
    assert run(capsys, "count", "-e", "o200k_base") == (0, "3\n", "")


# ----------------------------------------------------------------------------- other commands
def test_encodings(capsys):
    code, out, _ = run(capsys, "encodings")
    assert code == 0
    for name in tokenmill.list_encoding_names():
        assert name in out
    assert "100277" in out and "<|endofprompt|> (100276)" in out
    code, out, _ = run(capsys, "encodings", "--json")
    rows = {r["name"]: r for r in json.loads(out)}
    assert rows["o200k_base"]["n_vocab"] == 200019
    assert rows["o200k_base"]["special_tokens"] == {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}


def test_demo_no_arguments(capsys):
    code, out, err = run(capsys, "demo")
    assert (code, err) == (0, "")
    for name in ("r50k_base", "p50k_base", "cl100k_base", "o200k_base"):
        assert f"== {name}" in out
    assert "|Token|izers| turn|" in out and "\\n" in out and "\x1b[" not in out
    o200k = enc("o200k_base").encode_ordinary(SAMPLE_TEXT)
    assert f"ids: {' '.join(map(str, o200k))}\n" in out
    assert f"{len(o200k)} tokens" in out and "characters/token" in out


def test_demo_options(capsys):
    code, out, _ = run(capsys, "demo", "-e", "gpt2", "--text", "a|b\\c\n\x00", "--color", "never", "-q")
    assert code == 0
    assert "|a|\\||b|\\\\|c|\\n|\\x00|" in out and "== gpt2" in out and "chars/token" not in out
    code, out, _ = run(capsys, "demo", "--encoding", "o200k_base", "--color", "always")
    assert "\x1b[" in out and out.count("== ") == 1
    code, _, err = run(capsys, "demo", "--encoding", "nope")
    assert_one_line_error(code, err, "nope")


def test_usage_errors(capsys):
    code, out, err = run(capsys, "encode", "-e", "nope", "--text", "x")
    assert_one_line_error(code, err, "'nope'", *tokenmill.list_encoding_names())
    assert out == ""
    for argv in (["frobnicate"], [], ["encode", "--bogus"], ["count", "--chunk-size", "0"], ["encode", "a", "--text", "x"]):
        code, _, err = run(capsys, *argv)
        assert_one_line_error(code, err)
    code, _, err = run(capsys, "encode", "/nonexistent/file.txt")
    assert_one_line_error(code, err, "/nonexistent/file.txt", "No such file")


def test_version_and_help(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out == f"tokenmill {tokenmill.__version__}\n"
    code, out, _ = run(capsys, "encode", "--help")
    assert code == 0 and "--allowed-special" in out


def test_quiet_flag_both_positions(capsys):
    for argv in (["-q", "encodings"], ["encodings", "--quiet"]):
        code, out, _ = run(capsys, *argv)
        assert code == 0 and not out.startswith("encoding ")
    assert run(capsys, "encodings")[1].startswith("encoding ")


def test_subprocess_encode_pipe_decode(alice):
    path, _ = alice
    enc_run = subprocess.run([sys.executable, "-m", "tokenmill.cli", "encode", "-e", "r50k_base", str(path)],
                             capture_output=True, check=True)
    dec_run = subprocess.run([sys.executable, "-m", "tokenmill.cli", "decode", "-e", "r50k_base"],
                             input=enc_run.stdout, capture_output=True, check=True)
    assert dec_run.stdout == path.read_bytes()
    bad = subprocess.run([sys.executable, "-m", "tokenmill.cli", "decode"], input=b"1 2 999999",
                         capture_output=True)
    assert bad.returncode == 2 and bad.stderr.decode().startswith("tokenmill: error: ") and b"Traceback" not in bad.stderr


# ----------------------------------------------------------------------------- --tokenizer files
def test_tokenizer_files_work_in_every_token_command(capsys, tmp_path):
    # Right after `tokenmill train` wrote it, the file encodes, decodes, counts and demos.
    bpe, word = tmp_path / "verdict.json", tmp_path / "words.json"
    assert cli.main(["train", "--sample", "--vocab-size", "400", "-o", str(bpe), "-q"]) == 0
    assert cli.main(["train", "--sample", "--model", "word", "-o", str(word), "-q"]) == 0  # no --vocab-size needed
    capsys.readouterr()
    text = "It had always been a surprise to me."
    for path, tok in ((bpe, tokenmill.load(bpe)), (word, tokenmill.load(word))):
        code, out, _ = run(capsys, "encode", "--tokenizer", str(path), "--text", text)
        assert code == 0 and list(map(int, out.split())) == tok.encode(text)
        ids_file = tmp_path / "ids.txt"
        ids_file.write_text(out, encoding="utf-8")
        code, out, _ = run(capsys, "decode", "--tokenizer", str(path), str(ids_file))
        assert code == 0 and out == tok.decode(tok.encode(text))
        code, out, _ = run(capsys, "count", "-e", str(path), "--text", text)
        assert code == 0 and int(out) == len(tok.encode(text))
        code, out, _ = run(capsys, "demo", "--tokenizer", str(path), "--text", text, "--color", "never")
        assert code == 0 and f"== {path} (n_vocab {tok.n_vocab}) ==" in out
    # Special-token text is an error on the command line for every family, unless allowed.
    code, _, err = run(capsys, "encode", "--tokenizer", str(word), "--text", "a <|endoftext|>")
    assert_one_line_error(code, err, "<|endoftext|>", "--allowed-special")
    code, out, _ = run(capsys, "encode", "--tokenizer", str(word), "--text", "a <|endoftext|>", "--allowed-special", "all")
    assert code == 0 and int(out.split()[-1]) == tokenmill.load(word).special_tokens["<|endoftext|>"]


def test_unknown_tokenizer_names_what_is_accepted(capsys, tmp_path):
    code, _, err = run(capsys, "count", "--tokenizer", str(tmp_path / "missing.json"), "--text", "x")
    assert_one_line_error(code, err, "missing.json", "neither a standard encoding", "cl100k_base")
    (tmp_path / "junk.bin").write_bytes(b"\x00\x01")
    code, _, err = run(capsys, "count", "--tokenizer", str(tmp_path / "junk.bin"), "--text", "x")
    assert_one_line_error(code, err, "junk.bin", "unknown file content")


def test_vocab_size_still_required_where_it_has_no_default(capsys):
    code, _, err = run(capsys, "train", "--sample", "-o", "x.json")
    assert_one_line_error(code, err, "--vocab-size N is required for --model bpe")


def test_closed_stdout_is_one_clear_error():
    # `tokenmill ... >&-`: no traceback, one line naming the fix.
    r = subprocess.run([sys.executable, "-c", "import sys; sys.stdout = None; from tokenmill.cli import main; "
                        "raise SystemExit(main(['count', '--text', 'hi']))"], capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == "tokenmill: error: stdout is closed: redirect the output to a file or a pipe"
