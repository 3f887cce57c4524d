"""`tokenmill.load` recognises what it reads by content, not by file name (issue 9, step 2).

Standard names, tokenmill's JSON for every family, a tiktoken rank file with the JSON that
``export("tiktoken")`` writes beside it, GPT-2's encoder.json + vocab.bpe (either file or
their directory); anything else gets an error that lists what it can read.
"""

from __future__ import annotations

import shutil

import pytest

import peers
import tokenmill
from tokenmill import VocabFormatError

SAMPLE = "Hello world! It's 2026, naïve café 👍🏽\n  indented\tcode()"


def test_standard_names():
    assert tokenmill.load("cl100k_base") is tokenmill.get_encoding("cl100k_base")


@pytest.mark.parametrize("make", [lambda: tokenmill.get_encoding("gpt2"), lambda: tokenmill.CharLevel.train(["ab"])], ids=["byte_bpe", "char"])
def test_native_files_whatever_their_name(tmp_path, make):
    tok = make()
    tok.save(tmp_path / "no-suffix")
    back = tokenmill.load(tmp_path / "no-suffix")
    assert type(back) is type(tok) and back.encode("ab") == tok.encode("ab")


def test_tiktoken_export_pair(tmp_path):
    enc = tokenmill.get_encoding("cl100k_base")
    rank_file, _ = enc.export("tiktoken", tmp_path / "mine.tiktoken")
    back = tokenmill.load(rank_file)
    assert back.name == "cl100k_base" and back.encode(SAMPLE, allowed_special="all") == enc.encode(SAMPLE, allowed_special="all")
    assert back.pretokenizer == "cl100k"


def test_rank_file_alone_says_what_is_missing(tmp_path, shared_data):
    shutil.copy(shared_data / "tiktoken" / "r50k_base.tiktoken", tmp_path / "r50k.bin")
    with pytest.raises(VocabFormatError, match=r"r50k.json.*missing.*load_tiktoken_bpe"):
        tokenmill.load(tmp_path / "r50k.bin")


def test_gpt2_files_by_either_file_or_directory(tmp_path, shared_data):
    for name in ("encoder.json", "vocab.bpe"):
        shutil.copy(shared_data / "gpt2" / name, tmp_path / name)
    r50k = tokenmill.get_encoding("r50k_base")
    for arg in (tmp_path, tmp_path / "encoder.json", tmp_path / "vocab.bpe"):
        enc = tokenmill.load(arg)
        assert enc.encode_ordinary(SAMPLE) == r50k.encode_ordinary(SAMPLE)
        assert enc.special_tokens == {"<|endoftext|>": 50256}


def test_hugging_face_files_load_as_hf_tokenizers(shared_data):
    for name in ("gpt2/tokenizer.json", "hf/gpt-4o.o200k.tokenizer.json.gz", "hf/bert-base-uncased/tokenizer.json"):
        assert isinstance(tokenmill.load(shared_data / name), tokenmill.HFTokenizer)


def test_unknown_content_lists_what_load_reads(tmp_path):
    (tmp_path / "x.bin").write_bytes(b"\x00\x01binary")
    with pytest.raises(VocabFormatError, match="unknown file content; tokenmill.load reads a standard encoding name .*GPT-2"):
        tokenmill.load(tmp_path / "x.bin")
    (tmp_path / "d").mkdir()
    with pytest.raises(VocabFormatError, match="directory without encoder.json"):
        tokenmill.load(tmp_path / "d")
    with pytest.raises(FileNotFoundError):
        tokenmill.load(tmp_path / "missing.json")
    with pytest.raises(FileNotFoundError):
        tokenmill.load("not_an_encoding_name")


def test_shared_data_is_required():
    assert peers.shared_data().is_dir()


def test_corrupted_tiktoken_pair_names_the_file_and_line(tmp_path):
    rank_file, meta = tokenmill.get_encoding("gpt2").export("tiktoken", tmp_path / "g.tiktoken")
    data = rank_file.read_bytes()
    rank_file.write_bytes(data[:5000] + b"!!!notbase64 9\n")
    with pytest.raises(VocabFormatError, match=r"g.tiktoken:\d+: invalid base64"):
        tokenmill.load(rank_file)
    rank_file.write_bytes(data)
    meta.write_text("{oops", encoding="utf-8")
    with pytest.raises(VocabFormatError, match=r"g.json:1: invalid JSON"):
        tokenmill.load(rank_file)
    (tmp_path / "empty").write_bytes(b"")
    with pytest.raises(VocabFormatError, match="the file is empty"):
        tokenmill.load(tmp_path / "empty")
