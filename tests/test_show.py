"""``tokenmill show`` and `tokenmill.viz.show`: headers and counts, colour and plain modes,
visible whitespace, stdin, and bad input (binary files, huge files, unknown tokenizers)."""

from __future__ import annotations

import gzip
import io
import re
import sys
from pathlib import Path

import pytest

import tokenmill
from tokenmill.cli import main
from tokenmill.errors import InputError
from tokenmill.viz.show import (MAX_BYTES, decode_text, read_text_file, render, render_all, render_tokens, resolve_all,
                                use_color)
from tokenmill.viz.tokens import encode_options, pieces

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SGR = re.compile(r"\x1b\[[0-9;]*m")


def shared(*parts: str) -> Path:
    p = DATA.joinpath(*parts)
    assert p.exists(), f"missing shared test data {p} (see ../shared/data/README.md)"
    return p


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def fake_stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


# ------------------------------------------------------------------------- rendering
def test_header_counts_agree_with_count():
    enc = tokenmill.get_encoding("cl100k_base")
    text = "Tokenizers\tturn text into integers.\n  Indented line.\n"
    n = enc.count(text, **encode_options(False))
    first = render(enc, text, label="cl100k_base").splitlines()[0]
    assert first.startswith(f"== cl100k_base: {n} tokens, ")
    assert f"{len(text) / n:.2f} chars/token" in first
    assert f"{len(text.encode()) / n:.2f} bytes/token" in first


def test_plain_mode_shows_boundaries_and_whitespace():
    out = render(tokenmill.get_encoding("gpt2"), "a|b\\c\td\n  e", label="gpt2")
    body = out.split("\n", 1)[1]
    assert "\x1b" not in out
    assert "\t" not in body and "\\t" in body
    assert "\\|" in body and "\\\\" in body  # a '|' and a '\' inside tokens are escaped
    lines = body.split("\n")
    assert len(lines) == 2 and all(line.startswith("|") and line.endswith("|") for line in lines)
    assert lines[0].endswith("\\n|")  # the newline token is shown, then the line breaks


def test_color_mode_uses_the_palette_and_escapes_the_text():
    enc = tokenmill.get_encoding("cl100k_base")
    text = "red \x1b[31mtext\x1b[0m and a bell\x07"
    out = render_tokens(pieces(enc, text), color=True)
    assert "\x1b[30;48;5;153m" in out and "\x1b[30;48;5;223m" in out  # alternating backgrounds
    # Only our own colour codes reach the terminal: the text's escape sequences are shown escaped.
    visible = SGR.sub("", out)
    assert "\x1b" not in visible and "\x07" not in visible
    assert "\\x1b[31m" in visible and "\\x07" in visible


def test_special_and_partial_tokens_are_marked_in_colour():
    enc = tokenmill.get_encoding("cl100k_base")
    out = render_tokens(pieces(enc, "<|endoftext|> 👍🏽", parse_special=True), color=True)
    assert "\x1b[1;97;48;5;91m<|endoftext|>" in out
    assert ";4m" in out  # the split emoji's partial bytes are underlined


def test_ids_line():
    out = render(tokenmill.get_encoding("gpt2"), "998 9988", ids=True)
    assert out.splitlines()[-1] == "ids: 34808 7388 3459"


def test_empty_text():
    out = render(tokenmill.get_encoding("gpt2"), "", label="gpt2")
    assert out == "== gpt2: 0 tokens (0 chars) ==\n(no tokens)"


def test_use_color(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color("auto", Tty()) is True
    assert use_color("auto", io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color("auto", Tty()) is False
    assert use_color("always", io.StringIO()) is True
    assert use_color("never", Tty()) is False


def test_resolve_all_names_and_errors(tmp_path):
    assert [n for n, _ in resolve_all(["gpt2", "cl100k_base , o200k_base"])] == ["gpt2", "cl100k_base", "o200k_base"]
    enc = tokenmill.get_encoding("gpt2")
    assert resolve_all(enc)[0][1] is enc
    with pytest.raises(InputError, match="cl100k_base.*o200k_base"):
        resolve_all("cl100k")
    with pytest.raises(InputError, match="no tokenizer"):
        resolve_all(" , ")


def test_hf_padding_and_truncation_are_off_for_viewing():
    path = shared("hf", "bert-base-uncased", "tokenizer.json")
    (label, tok), = resolve_all(str(path))
    assert label == "bert-base-uncased/tokenizer.json"
    ps = pieces(tok, "hello world")
    assert [p.shown for p in ps] == ["[CLS]", "hello", "world", "[SEP]"]  # no [PAD] up to 128
    assert len(pieces(tok, "word " * 300)) == 302  # not truncated at 128


# ------------------------------------------------------------------------- reading input
def test_decode_text_binary_and_replace():
    with pytest.raises(InputError, match=r"f\.bin: a NUL byte at byte 3.*--errors replace"):
        decode_text(b"abc\0def", "f.bin")
    with pytest.raises(InputError, match=r"f\.bin: invalid UTF-8 .* at byte 2"):
        decode_text(b"ab\xff\xfe", "f.bin")
    assert decode_text(b"ab\xffc", "f.bin", "replace") == "ab\ufffdc"
    assert decode_text(b"a\0b", "f.bin", "replace") == "a\0b"


def test_read_text_file_limits(tmp_path):
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(MAX_BYTES + 1)  # sparse: no data written, only the size is looked at
    with pytest.raises(InputError, match=r"big\.txt is 10\.0 MB.*tokenmill count"):
        read_text_file(big)
    small = tmp_path / "s.txt"
    small.write_bytes(b"x" * 100)
    with pytest.raises(InputError, match="more than the 50 B"):
        read_text_file(small, max_bytes=50)
    # stdin is read at most max_bytes + 1: an endless stream cannot hang the viewer
    with pytest.raises(InputError, match="<stdin> is more than"):
        read_text_file("-", max_bytes=10, stdin=io.BytesIO(b"y" * 1000))
    with pytest.raises(InputError, match="no such file"):
        read_text_file(tmp_path / "missing.txt")
    with pytest.raises(InputError, match="is a directory"):
        read_text_file(tmp_path)


# ------------------------------------------------------------------------- the command
def test_cli_default_is_cl100k_plain_when_piped(capsys):
    rc, out, err = run_cli(capsys, "show", "hello world")
    assert rc == 0 and err == ""
    assert out == "== cl100k_base: 2 tokens, 5.50 chars/token, 5.50 bytes/token ==\n|hello| world|\n"


def test_cli_several_tokenizers_ids_and_colour(capsys):
    rc, out, _ = run_cli(capsys, "show", "def f():\n        return 1\n", "--tokenizer", "gpt2,cl100k_base", "--ids")
    assert rc == 0
    heads = [line for line in out.splitlines() if line.startswith("== ")]
    assert [h.split(":")[0] for h in heads] == ["== gpt2", "== cl100k_base"]
    assert out.count("ids: ") == 2
    gpt2_tokens = int(heads[0].split()[2])
    cl100k_tokens = int(heads[1].split()[2])
    assert cl100k_tokens < gpt2_tokens  # GPT-2 spends a token per space of indentation
    rc, out, _ = run_cli(capsys, "show", "hello", "--color", "always")
    assert "\x1b[30;48;5;153mhello\x1b[0m" in out
    rc, out, _ = run_cli(capsys, "show", "hello", "--color", "always", "--no-color")
    assert "\x1b" not in out


def test_cli_no_color_env_wins_over_a_terminal(capsys, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    rc, out, _ = run_cli(capsys, "show", "hello")
    assert rc == 0 and "\x1b" not in out and "|hello|" in out


def test_cli_special_tokens(capsys):
    rc, out, _ = run_cli(capsys, "show", "a<|endoftext|>", "-e", "gpt2", "--ids")
    assert "50256" not in out.splitlines()[-1]
    rc, out, _ = run_cli(capsys, "show", "a<|endoftext|>", "-e", "gpt2", "--ids", "--special")
    assert out.splitlines()[-1] == "ids: 64 50256"


def test_cli_stdin_and_dash(capsys, monkeypatch):
    fake_stdin(monkeypatch, "from stdin\n".encode())
    rc, out, _ = run_cli(capsys, "show", "-e", "gpt2")
    assert rc == 0 and "|from| std|in|\\n|" in out
    fake_stdin(monkeypatch, b"dash")
    rc, out, _ = run_cli(capsys, "show", "-", "-e", "gpt2")
    assert out.splitlines()[1] == "|dash|"
    fake_stdin(monkeypatch, b"file dash")
    rc, out, _ = run_cli(capsys, "show", "--file", "-", "-e", "gpt2")
    assert "file" in out


def test_cli_file_and_errors(capsys, tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("naïve\n", encoding="utf-8")
    rc, out, _ = run_cli(capsys, "show", "--file", str(f), "-e", "gpt2")
    assert rc == 0 and "|na|ïve|\\n|" in out
    rc, _, err = run_cli(capsys, "show", "text", "--file", str(f))
    assert rc == 2 and "TEXT or --file, not both" in err

    binary = tmp_path / "b.bin"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00")
    rc, out, err = run_cli(capsys, "show", "--file", str(binary))
    assert rc == 2 and out == ""
    assert err.startswith("tokenmill: error: ") and f"{binary}: a NUL byte at byte 7" in err and err.count("\n") == 1
    latin1 = tmp_path / "l.txt"
    latin1.write_bytes(b"caf\xe9 au lait")
    rc, _, err = run_cli(capsys, "show", "--file", str(latin1))
    assert rc == 2 and "invalid UTF-8" in err and "at byte 3" in err
    rc, out, _ = run_cli(capsys, "show", "--file", str(latin1), "--errors", "replace", "-e", "gpt2")
    assert rc == 0 and "\ufffd" in out


def test_cli_huge_file_is_refused_quickly(capsys, tmp_path):
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(50_000_000)
    rc, out, err = run_cli(capsys, "show", "--file", str(big))
    assert rc == 2 and out == "" and "tokenmill count" in err and "--max-bytes" in err
    rc, _, err = run_cli(capsys, "show", "--file", str(big), "--max-bytes", "100")
    assert rc == 2 and "more than the 100 B" in err


def test_cli_unknown_tokenizer_lists_known_names(capsys):
    rc, out, err = run_cli(capsys, "show", "hi", "--tokenizer", "gpt2,gpt5")
    assert rc == 2 and out == ""
    assert "unknown tokenizer 'gpt5'" in err and "cl100k_base" in err and "o200k_base" in err


def test_cli_tokenizer_file(capsys):
    path = shared("gpt2", "tokenizer.json")
    rc, out, _ = run_cli(capsys, "show", "hello world", "-e", f"gpt2,{path}")
    assert rc == 0
    blocks = out.strip().split("\n\n")
    assert blocks[0].splitlines()[1] == blocks[1].splitlines()[1] == "|hello| world|"


def test_cli_text_argument_that_is_not_utf8(capsys):
    # argv bytes that are not UTF-8 reach Python as lone surrogates (surrogateescape); TEXT
    # obeys --errors like a file: an error naming the byte, or U+FFFD counted as its 3 bytes.
    rc, out, err = run_cli(capsys, "show", "caf\udce9 x", "-e", "gpt2")
    assert rc == 2 and out == "" and "TEXT: invalid UTF-8" in err and "at byte 3" in err and err.count("\n") == 1
    rc, out, _ = run_cli(capsys, "show", "caf\udce9 x", "-e", "gpt2", "--errors", "replace")
    enc = tokenmill.get_encoding("gpt2")
    n = enc.count("caf\ufffd x", **encode_options(False))
    assert rc == 0 and out.splitlines()[0] == f"== gpt2: {n} tokens, {6 / n:.2f} chars/token, {8 / n:.2f} bytes/token =="


def test_cli_gzip_file_closed_stdin_and_comma_in_a_path(capsys, monkeypatch, tmp_path):
    gz = tmp_path / "t.txt.gz"
    gz.write_bytes(gzip.compress("hello world\n".encode()))
    rc, out, _ = run_cli(capsys, "show", "--file", str(gz), "-e", "gpt2")
    assert rc == 0 and out.splitlines()[1] == "|hello| world|\\n|"
    broken = tmp_path / "broken.gz"
    broken.write_bytes(gzip.compress(b"hello world\n" * 100)[:30])
    rc, out, err = run_cli(capsys, "show", "--file", str(broken))
    assert rc == 2 and "not a readable gzip file" in err and err.count("\n") == 1
    monkeypatch.setattr(sys, "stdin", None)  # started with stdin closed (tokenmill show <&-)
    rc, _, err = run_cli(capsys, "show")
    assert rc == 2 and "stdin is closed" in err
    odd = tmp_path / "a,b.json"  # a tokenizer file whose name holds a comma
    odd.write_bytes(shared("gpt2", "tokenizer.json").read_bytes())
    assert [label for label, _ in resolve_all(str(odd))] == ["a,b.json"]


def test_labels_of_different_tokenizers_differ():
    # The folder of GPT-2's encoder.json + vocab.bpe is labelled "gpt2" like the encoding;
    # side by side (compare's JSON rows) the two must be told apart.
    folder = str(shared("gpt2"))
    assert [label for label, _ in resolve_all(["gpt2", folder])] == ["gpt2", folder]
    assert [label for label, _ in resolve_all([folder])] == ["gpt2"]
    assert [label for label, _ in resolve_all("gpt2,gpt2")] == ["gpt2", "gpt2"]  # the same one twice


def test_header_escapes_control_characters_in_the_label(tmp_path):
    # A tokenizer file's name reaches the terminal in the header: it must not colour it.
    path = tmp_path / "\x1b[31mred.json"
    tokenmill.WordLevel({"a": 0, "<unk>": 1}, {"<unk>": 1}, unk_token="<unk>").save(path)
    out = render_all(resolve_all([str(path)]), "a", color=True)
    first = out.splitlines()[0]
    assert "\x1b" not in first and "\\x1b[31mred.json" in first
