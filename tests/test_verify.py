"""`tokenmill verify` / `tokenmill.verify.verify`: tokenmill against the defining library."""

from __future__ import annotations

import tokenmill
from tokenmill import verify as verify_mod
from tokenmill.cli import main

TEXTS = ["hello world", "Grüße, 世界! <|endoftext|>", "  spaces\n\nand lines  ", ""]


def test_every_family_with_a_reference_agrees(shared_data):
    for tok in (tokenmill.get_encoding("cl100k_base"), tokenmill.load(shared_data / "hf/mistral-7b-v0.1.tokenizer.json"),
                tokenmill.load(shared_data / "hf/bert-base-uncased/vocab.txt"), tokenmill.load(shared_data / "gpt2/tokenizer.json")):
        r = verify_mod.verify(tok, TEXTS, batch_size=2)
        assert (r.texts, r.equal, r.different, r.ok, r.first_difference) == (4, 4, 0, True, None), type(tok)


def test_the_first_difference_is_reported(monkeypatch):
    enc = tokenmill.get_encoding("gpt2")
    real = verify_mod.reference_encoder

    def off_by_one(tok):
        name, ref, ours = real(tok)
        return name, lambda texts: [[i + (k == 1) for k, i in enumerate(ids)] for ids in ref(texts)], ours

    monkeypatch.setattr(verify_mod, "reference_encoder", off_by_one)
    r = verify_mod.verify(enc, ["hello world", "a b c"])
    assert (r.equal, r.different) == (0, 2)
    assert r.first_difference["index"] == 0 and r.first_difference["position"] == 1


def test_families_without_a_reference_are_an_error():
    import pytest

    with pytest.raises(TypeError, match="no reference library"):
        verify_mod.verify(tokenmill.CharLevel.train(["ab"]), ["ab"])


def test_cli(tmp_path, shared_data, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(TEXTS * 3), encoding="utf-8")
    assert main(["verify", "gpt2", "--corpus", str(corpus)]) == 0
    out = capsys.readouterr().out
    assert "12 texts" in out and "12 equal, 0 different" in out  # one text per non-empty line
    assert main(["verify", str(shared_data / "hf/bert-base-uncased/tokenizer.json"), "--corpus", str(corpus), "--by-file"]) == 0
    assert "1 text (" in capsys.readouterr().out
    assert main(["verify", "gpt2", "--corpus", str(tmp_path / "missing.txt")]) == 2
    assert "no such file" in capsys.readouterr().err
