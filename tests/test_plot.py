"""`tokenmill.viz.plot` and ``tokenmill plot``: the numbers (compression against vocabulary
size, token lengths), the PNGs (matplotlib), and the clear error without matplotlib."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import tokenmill
from tokenmill.cli import main
from tokenmill.errors import InputError
from tokenmill.viz.plot import (MissingDependencyError, _truncated, compression_points, plot_compression, plot_lengths,
                                token_lengths)

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
PNG = b"\x89PNG\r\n\x1a\n"


def verdict() -> str:
    p = DATA / "the-verdict.txt"
    assert p.exists(), f"missing shared test data {p} (see ../shared/data/README.md)"
    return str(p)


@pytest.fixture()
def no_matplotlib(monkeypatch):
    # A None entry in sys.modules makes the import fail as if the package were not installed.
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


# ------------------------------------------------------------------------- numbers
def test_bytes_per_token_grows_with_vocab_size():
    pts = compression_points([verdict()], [400, 260, 300])
    assert [p["vocab_size"] for p in pts] == [260, 300, 400]
    assert [p["n_vocab"] for p in pts] == [260, 300, 400]
    bpt = [p["bytes_per_token"] for p in pts]
    assert 1.0 < bpt[0] < bpt[1] < bpt[2]
    assert all(p["bytes"] == 20_479 and p["measured_on"] == "corpus" for p in pts)
    at_256 = compression_points([verdict()], [256])[0]
    assert at_256["bytes_per_token"] == 1.0  # only the byte tokens


def test_each_size_is_what_training_to_that_size_gives():
    big = tokenmill.train_bpe([verdict()], 400, progress=False)
    text = Path(verdict()).read_text(encoding="utf-8")
    for size in (260, 300, 399):
        alone = tokenmill.train_bpe([verdict()], size, progress=False)
        cut = _truncated(big, size)
        assert cut.mergeable_ranks() == alone.mergeable_ranks()
        assert cut.encode(text) == alone.encode(text)
        point = compression_points([verdict()], [size])[0]
        assert point["tokens"] == len(alone.encode(text)) == alone.training["tokens"]


def test_held_out_and_texts():
    pts = compression_points(["low lower lowest " * 50], [256, 300], held_out=["lowest low"])
    assert [p["measured_on"] for p in pts] == ["held-out", "held-out"]
    assert pts[0]["bytes"] == len("lowest low") and pts[1]["tokens"] < pts[0]["tokens"]
    with pytest.raises(InputError, match="held_out is empty"):
        compression_points(["abc"], [256], held_out=[])


def test_sizes_are_checked():
    with pytest.raises(InputError, match="below 256"):
        compression_points(["abc"], [200, 300])
    with pytest.raises(InputError, match="no vocabulary sizes"):
        compression_points(["abc"], [])


def test_small_corpus_stops_early():
    pts = compression_points(["ab ab ab"], [256, 1000])
    assert pts[-1]["vocab_size"] == 1000 and pts[-1]["n_vocab"] < 1000


def test_token_lengths():
    r = token_lengths("gpt2")
    assert r["tokenizer"] == "gpt2" and r["n_vocab"] == 50257 and r["special_tokens"] == 1
    assert r["lengths"][1] == 256 and sum(r["lengths"].values()) == r["tokens"] == 50256
    assert list(r["lengths"]) == sorted(r["lengths"]) and r["max_bytes"] == max(r["lengths"])
    enc = tokenmill.get_encoding("gpt2")
    assert r["mean_bytes"] == pytest.approx(sum(len(enc.token_bytes(i)) for i in range(50256)) / 50256)
    # cl100k_base has ids without a token (100256, and 100261-100275 between its special tokens)
    r = token_lengths("cl100k_base")
    assert (r["n_vocab"], r["tokens"], r["special_tokens"]) == (100277, 100256, 5)


# ------------------------------------------------------------------------- pictures
def test_pngs_are_written(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib (the plot extra, in the test extra) draws the PNGs")
    out = tmp_path / "c.png"
    plot_compression(compression_points([verdict()], [260, 300, 400]), out, title="the verdict")
    assert out.read_bytes().startswith(PNG)
    out2 = tmp_path / "l.png"
    plot_lengths(token_lengths("cl100k_base"), out2)
    assert out2.read_bytes().startswith(PNG)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.png", "l.png"]  # no temporary files left


def test_without_matplotlib_the_error_says_what_to_install(tmp_path, no_matplotlib):
    with pytest.raises(MissingDependencyError, match=r'pip install "tokenmill\[plot\]"'):
        plot_lengths(token_lengths("gpt2"), tmp_path / "x.png")
    assert isinstance(MissingDependencyError("x"), ImportError)
    assert not (tmp_path / "x.png").exists()


# ------------------------------------------------------------------------- the command
def test_cli_compression_png_and_progress(capsys, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib (the plot extra, in the test extra) draws the PNGs")
    out = tmp_path / "c.png"
    rc, stdout, err = run_cli(capsys, "plot", "compression", "--corpus", verdict(), "--vocab-sizes", "260,300,400",
                              "-o", str(out))
    assert rc == 0 and stdout == ""
    assert out.read_bytes().startswith(PNG)
    assert "training byte-level BPE up to 400 tokens" in err and "wrote" in err
    rc, stdout, err = run_cli(capsys, "-q", "plot", "compression", "--corpus", verdict(), "--vocab-sizes", "260,300",
                              "-o", str(out))
    assert rc == 0 and err == ""
    rc, stdout, err = run_cli(capsys, "plot", "compression", "--corpus", verdict(), "--vocab-sizes", "260,300", "-q",
                              "-o", str(out))
    assert rc == 0 and err == ""


def test_cli_lengths_png(capsys, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib (the plot extra, in the test extra) draws the PNGs")
    out = tmp_path / "l.png"
    rc, stdout, err = run_cli(capsys, "plot", "lengths", "gpt2", "-o", str(out))
    assert rc == 0 and out.read_bytes().startswith(PNG)


def test_cli_json_works_without_matplotlib(capsys, tmp_path, no_matplotlib, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = run_cli(capsys, "plot", "compression", "--corpus", verdict(), "--vocab-sizes", "260,300", "--json")
    assert rc == 0
    pts = json.loads(out)
    assert [p["vocab_size"] for p in pts] == [260, 300] and pts[0]["bytes_per_token"] < pts[1]["bytes_per_token"]
    rc, out, err = run_cli(capsys, "plot", "lengths", "cl100k_base", "--json")
    assert rc == 0 and json.loads(out)["lengths"]["1"] == 256
    assert list(tmp_path.iterdir()) == []  # --json alone draws nothing
    rc, out, err = run_cli(capsys, "plot", "lengths", "gpt2")
    assert rc == 2 and err.count("\n") == 1 and 'pip install "tokenmill[plot]"' in err


def test_cli_errors(capsys, tmp_path):
    rc, _, err = run_cli(capsys, "plot")
    assert rc == 2 and "choose a plot" in err
    rc, _, err = run_cli(capsys, "plot", "compression", "--corpus", verdict(), "--vocab-sizes", "100,300")
    assert rc == 2 and "below 256" in err and "training" not in err
    rc, _, err = run_cli(capsys, "plot", "compression", "--corpus", verdict(), "--vocab-sizes", "2k")
    assert rc == 2 and "comma-separated list of integers" in err
    rc, _, err = run_cli(capsys, "plot", "compression", "--corpus", str(tmp_path / "none.txt"), "--vocab-sizes", "300")
    assert rc == 2 and "none.txt" in err
    rc, _, err = run_cli(capsys, "plot", "lengths", "nope")
    assert rc == 2 and "unknown tokenizer 'nope'" in err
    rc, _, err = run_cli(capsys, "plot", "lengths", "gpt2", "-o", str(tmp_path / "no" / "dir" / "x.png"))
    assert rc == 2 and "does not exist" in err


def test_cli_inputs_are_checked_before_training(capsys, tmp_path):
    # A name without a corpus extension used to be trained on as a text (and measured: 1.0).
    rc, out, err = run_cli(capsys, "plot", "compression", "--corpus", str(tmp_path / "nonexist"), "--vocab-sizes", "256,300")
    assert rc == 2 and "--corpus" in err and "no such file" in err and "training" not in err
    rc, _, err = run_cli(capsys, "plot", "compression", "--corpus", verdict(), "--vocab-sizes", "256,300",
                         "--held-out", str(tmp_path / "nonexist"))
    assert rc == 2 and "--held-out" in err and "no such file" in err and "training" not in err
    rc, _, err = run_cli(capsys, "plot", "compression", "--corpus", verdict(), "--vocab-sizes", "256,300", "-o", str(tmp_path))
    assert rc == 2 and "is a directory" in err and "training" not in err
    rc, _, err = run_cli(capsys, "plot", "compression", "--corpus", verdict(), "--vocab-sizes", "256," + "9" * 20)
    assert rc == 2 and "32-bit" in err and err.count("\n") == 1
    rc, _, err = run_cli(capsys, "plot", "lengths", "gpt2,cl100k_base", "--json")
    assert rc == 2 and "unknown tokenizer 'gpt2,cl100k_base'" in err
    with pytest.raises(tokenmill.errors.CorpusFileNotFoundError, match="no such file"):
        compression_points(str(tmp_path / "nonexist"), [256])


def test_cli_errors_replace(capsys, tmp_path):
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes(b"caf\xe9 au lait\n" * 20)
    rc, _, err = run_cli(capsys, "plot", "compression", "--corpus", str(latin1), "--vocab-sizes", "256,300", "--json", "-q")
    assert rc == 2 and "byte 3" in err and err.count("\n") == 1
    rc, out, _ = run_cli(capsys, "plot", "compression", "--corpus", str(latin1), "--vocab-sizes", "256,300", "--json",
                         "-q", "--errors", "replace")
    points = json.loads(out)  # at 256 ids a token is a byte: U+FFFD is 1 character, 3 bytes
    assert rc == 0 and points[0]["chars"] == len("caf\ufffd au lait\n") * 20 == points[0]["tokens"] - 2 * 20
