"""`tokenmill train`: every model and output format, the summary, bad input, and Ctrl-C."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

import tokenmill
from tokenmill.cli import main
from tokenmill.samples import sample_path

from peers import shared_data


def test_sample_is_bundled_and_equals_shared_copy():
    assert sample_path().read_bytes() == (shared_data() / "the-verdict.txt").read_bytes()


def test_train_bpe_sample(tmp_path, capsys):
    out = tmp_path / "verdict.json"
    assert main(["train", "--sample", "--vocab-size", "600", "--special", "<|endoftext|>", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "bytes per token" in text and "Ten sample merges" in text and "Sample:" in text
    assert len([ln for ln in text.splitlines() if ln.startswith("   ") and " + " in ln]) == 10
    enc = tokenmill.load(out)
    assert enc.n_vocab == 600 and enc._special_tokens == {"<|endoftext|>": 599}
    verdict = sample_path().read_text(encoding="utf-8")
    assert enc.decode(enc.encode(verdict)) == verdict


@pytest.mark.parametrize("model", ["classic-bpe", "word", "char"])
def test_train_other_models(model, tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["train", str(sample_path()), "--model", model, "--vocab-size", "400", "-o", str(out)]) == 0
    tok = tokenmill.load(out)
    assert isinstance(tok, tokenmill.Tokenizer)
    assert tok.decode(tok.encode("the picture")).replace(" ", "") == "thepicture"


@pytest.mark.parametrize("fmt", ["tiktoken", "hf", "gpt2"])
def test_train_export_formats(fmt, tmp_path, capsys):
    out = tmp_path / ("gpt2files" if fmt == "gpt2" else "tok.out")
    assert main(["train", "--sample", "--vocab-size", "400", "--format", fmt, "-o", str(out), "-q"]) == 0
    if fmt == "tiktoken":
        assert out.exists() and (tmp_path / "tok.json").exists()
    elif fmt == "hf":
        assert json.loads(out.read_text(encoding="utf-8"))["model"]["type"] == "BPE"
    else:
        assert (out / "encoder.json").exists() and (out / "vocab.bpe").exists()


def test_train_base_and_patterns(tmp_path, capsys):
    out = tmp_path / "more.json"
    assert main(["train", "--sample", "--vocab-size", str(50257 + 20), "--base", "gpt2", "-o", str(out), "-q"]) == 0
    enc = tokenmill.load(out)
    assert enc.n_vocab == 50277 and enc.encode("hello world") == tokenmill.get_encoding("gpt2").encode("hello world")
    assert main(["train", "--sample", "--vocab-size", "300", "--pattern", "o200k", "-o", str(out), "-q"]) == 0
    assert tokenmill.load(out)._pat_str == tokenmill.get_encoding("o200k_base")._pat_str


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--vocab-size", "300"], "no training files"),
        (["--sample", "--vocab-size", "100"], "smaller than 256"),
        (["--sample", "--vocab-size", "300", "--special", "<a>", "--special", "<a>"], "given twice"),
        (["--sample", "--vocab-size", "300", "--model", "word", "--format", "hf"], "--format hf is for --model bpe"),
        (["/nonexistent/file.txt", "--vocab-size", "300"], "file.txt"),
    ],
)
def test_train_errors(argv, message, tmp_path, capsys):
    assert main(["train", *argv, "-o", str(tmp_path / "o.json")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()


def test_train_bad_files(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"abc " * 100 + b"\xc3\x28")
    assert main(["train", str(bad), "--vocab-size", "300", "-o", str(tmp_path / "o.json")]) == 2
    err = capsys.readouterr().err
    assert "bad.txt" in err and "byte 400" in err and "replace" in err
    assert main(["train", str(bad), "--vocab-size", "300", "--errors", "replace", "-o", str(tmp_path / "o.json"), "-q"]) == 0
    lines = tmp_path / "d.jsonl"
    lines.write_text('{"text": "a b"}\n{"txt": "c"}\n', encoding="utf-8")
    assert main(["train", str(lines), "--vocab-size", "300", "-o", str(tmp_path / "p.json")]) == 2
    assert "d.jsonl:2" in capsys.readouterr().err


def test_ctrl_c_leaves_no_output(tmp_path):
    rng = random.Random(1)
    words = ("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(600_000))
    corpus = tmp_path / "rand.txt"
    corpus.write_text(" ".join(words), encoding="utf-8")
    out = tmp_path / "out" / "tok.json"
    out.parent.mkdir()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tokenmill.cli", "train", str(corpus), "--vocab-size", "120000", "-o", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        # A run started in the background by a shell inherits SIGINT ignored: undo that here.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(1.5)
    assert proc.poll() is None, "training finished before the interrupt; make the corpus larger"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert list(out.parent.iterdir()) == []  # no output, no temporary file


@pytest.mark.parametrize(
    "fmt, name, message",
    [("tiktoken", "tok.json", "another suffix"), ("gpt2", "file.txt", "is a directory"), ("tokenmill", "adir", "is a directory")],
)
def test_train_output_checked_before_training(fmt, name, message, tmp_path, capsys):
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    (tmp_path / "adir").mkdir()
    assert main(["train", "--sample", "--vocab-size", "300", "--format", fmt, "-o", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Trained" not in err
