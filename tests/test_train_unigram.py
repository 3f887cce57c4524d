"""`tokenmill.train_unigram` and ``tokenmill train --model unigram``: the trained model is a
`SentencePiece` whose ``.model`` sentencepiece loads and encodes identically; its compression
is sentencepiece's (same corpus, identity normalization); the result does not depend on the
thread count; options, files, errors and the CLI.

The algorithm's own tests (against the Python reference) are in the Rust crate and in
tests/test_train_unigram_reference.py.
"""

from __future__ import annotations

import json

import pytest
import sentencepiece as spm

import tokenmill
from tokenmill.cli import main
from tokenmill.errors import TrainingError

from peers import shared_data
from spm_models import model_path


@pytest.fixture(scope="module")
def botchan() -> list[str]:
    lines = (shared_data() / "corpus" / "botchan.txt").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip()]


@pytest.fixture(scope="module")
def trained(botchan):
    return tokenmill.train_unigram(botchan, vocab_size=1000, progress=False)


def test_sentencepiece_loads_the_model_and_encodes_identically(trained, botchan, tmp_path):
    path = tmp_path / "u.model"
    assert trained.export("sentencepiece", path) == [path]
    sp = spm.SentencePieceProcessor(model_file=str(path))
    assert sp.get_piece_size() == trained.vocab_size == 1000
    texts = botchan + ["Ｆｕｌｌ width", "tabs\tand  spaces ", "漢字かな", "emoji 🙂 and \x00 NUL", ""]
    for text in texts:
        assert trained.encode(text) == sp.encode(text), text
        assert trained.decode(trained.encode(text)) == sp.decode(sp.encode(text))
    assert tokenmill.load(path).encode(botchan[3]) == trained.encode(botchan[3])


def test_compression_matches_sentencepiece_with_identity_normalization(trained, botchan, tmp_path):
    # Same corpus, same size, sentencepiece's trainer with identity normalization: the number of
    # tokens on held-out-like text (the last 10% of lines, also trained on by both) is within 1.5%.
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(botchan), model_prefix=str(tmp_path / "ref"), vocab_size=1000, model_type="unigram",
        normalization_rule_name="identity", num_threads=1, minloglevel=2)
    ref = spm.SentencePieceProcessor(model_file=str(tmp_path / "ref.model"))
    ours = sum(len(trained.encode(t)) for t in botchan)
    theirs = sum(len(ref.encode(t)) for t in botchan)
    assert abs(ours - theirs) / theirs < 0.015, (ours, theirs)


@pytest.fixture(scope="module")
def nmt_nfkc_model(botchan, tmp_path_factory) -> str:
    """A small model sentencepiece trained with its default normalizer, nmt_nfkc."""
    prefix = tmp_path_factory.mktemp("nmt") / "nmt"
    spm.SentencePieceTrainer.train(sentence_iterator=iter(botchan[:1000]), model_prefix=str(prefix), vocab_size=300,
                                   normalization_rule_name="nmt_nfkc", num_threads=1, minloglevel=2)
    return str(prefix) + ".model"


def test_normalization_from_a_model_trains_and_encodes_normalized_text(botchan, nmt_nfkc_model, tmp_path):
    # Full-width forms in the corpus: with nmt_nfkc they are the same words as their ASCII forms.
    full = str.maketrans({chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)})
    corpus = [line.translate(full) if i % 2 else line for i, line in enumerate(botchan)]
    tok = tokenmill.train_unigram(corpus, vocab_size=800, normalization=nmt_nfkc_model, progress=False)
    assert tok.normalizer_spec["name"] == "nmt_nfkc" and "nmt_nfkc normalization" in tok.training["rule"]
    assert not any("\uff01" <= ch <= "\uff5e" for p, _, _ in tok.pieces() for ch in p)  # no full-width piece
    assert tok.encode("Ｔｈｅ ｆｉｒｓｔ\tday") == tok.encode("The first day")
    # sentencepiece loads the result, charsmap included, and encodes identically.
    path = tmp_path / "n.model"
    tok.export("sentencepiece", path)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    for text in corpus[:400] + ["①②㍿ ｈｅｌｌｏ　ｗｏｒｌｄ", "e\u0301 tabs\tand  spaces "]:
        assert tok.encode(text) == sp.encode(text), text
    # Compression against sentencepiece's trainer with the same normalizer, same corpus and size.
    spm.SentencePieceTrainer.train(sentence_iterator=iter(corpus), model_prefix=str(tmp_path / "ref"), vocab_size=800,
                                   normalization_rule_name="nmt_nfkc", num_threads=1, minloglevel=2)
    ref = spm.SentencePieceProcessor(model_file=str(tmp_path / "ref.model"))
    ours, theirs = sum(len(tok.encode(t)) for t in corpus), sum(len(ref.encode(t)) for t in corpus)
    assert abs(ours - theirs) / theirs < 0.015, (ours, theirs)
    # A loaded model works the same as its path; identity stays the default.
    same = tokenmill.train_unigram(corpus, vocab_size=800, normalization=tokenmill.load(nmt_nfkc_model), progress=False)
    assert same.to_model_bytes() == tok.to_model_bytes()
    assert tokenmill.train_unigram(corpus, vocab_size=800, progress=False).normalizer_spec["name"] == "identity"


def test_normalization_that_is_not_a_model_says_what_to_give(botchan, tmp_path):
    with pytest.raises(TrainingError, match=r"normalization='nmt_nfkc': give 'identity' or the path of a sentencepiece \.model"):
        tokenmill.train_unigram(botchan[:300], vocab_size=100, normalization="nmt_nfkc", progress=False)
    for content in (b"\x0a\x05hello", b"", "plain text, not a model\n".encode()):
        bad = tmp_path / "not.model"
        bad.write_bytes(content)
        with pytest.raises(tokenmill.TokenmillError, match="not.model"):
            tokenmill.train_unigram(botchan[:300], vocab_size=100, normalization=bad, progress=False)


def test_the_result_does_not_depend_on_threads(botchan):
    one = tokenmill.train_unigram(botchan[:1500], vocab_size=600, num_threads=1, progress=False)
    two = tokenmill.train_unigram(botchan[:1500], vocab_size=600, num_threads=2, progress=False)
    assert one.to_model_bytes() == two.to_model_bytes()


def test_training_metadata_survives_save_and_pickle(trained, tmp_path):
    import pickle

    info = trained.training
    assert info["trainer"] == "tokenmill.train_unigram" and info["vocab_size"] == 1000 and info["distinct_words"] > 1000
    trained.save(tmp_path / "t.json")
    assert tokenmill.load(tmp_path / "t.json").training == info
    assert pickle.loads(pickle.dumps(trained)).training == info
    info["vocab_size"] = 1  # a copy
    assert trained.training["vocab_size"] == 1000


def test_options_meta_pieces_symbols_and_byte_fallback(botchan):
    tok = tokenmill.train_unigram(botchan[:2000], vocab_size=700, special_tokens=["<|endoftext|>"],
                                  user_defined_symbols=["<sep>"], byte_fallback=True, split_digits=True, progress=False)
    pieces = tok.pieces()
    assert [p for p, _, _ in pieces[:3]] == ["<unk>", "<s>", "</s>"]
    assert tok.piece_type(tok.token_to_id("<|endoftext|>")) == "control"
    assert tok.piece_type(tok.token_to_id("<sep>")) == "user_defined"
    assert sum(t == 6 for _, _, t in pieces) == 256
    # A user-defined symbol is one piece; an unseen script falls back to bytes, never <unk>.
    assert tok.token_to_id("<sep>") in tok.encode("a<sep>b")
    ids = tok.encode("漢字 2026")
    assert tok.unk_id not in ids and tok.decode(ids) == "漢字 2026"
    assert all(len(tok.id_to_token(i).strip("▁")) <= 1 for i in tok.encode("1234567") if tok.piece_type(i) == "normal")
    # Control text in the input is ordinary text, as in sentencepiece.
    assert tok.token_to_id("<|endoftext|>") not in tok.encode("<|endoftext|>")


def test_files_and_jsonl(botchan, tmp_path):
    botchan = botchan[1:]  # the first line starts with a BOM, which the file reader drops for training
    txt = tmp_path / "a.txt"
    txt.write_text("\n".join(botchan[:1500]) + "\n", encoding="utf-8")
    jsonl = tmp_path / "b.jsonl"
    jsonl.write_text("".join(json.dumps({"text": t}) + "\n" for t in botchan[:1500]), encoding="utf-8")
    a = tokenmill.train_unigram(str(txt), vocab_size=500, progress=False)
    b = tokenmill.train_unigram([str(jsonl)], vocab_size=500, progress=False)
    c = tokenmill.train_unigram(botchan[:1500], vocab_size=500, progress=False)
    assert a.to_model_bytes() == b.to_model_bytes() == c.to_model_bytes()
    assert a.training["documents"] == 1 and b.training["documents"] == 1500


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(vocab_size=5), "vocab_size"),
        (dict(vocab_size=500, character_coverage=0.5), "character_coverage"),
        (dict(vocab_size=500, max_piece_length=0), "max_piece_length"),
        (dict(vocab_size=500, special_tokens=["<s>"]), "given twice"),
        (dict(vocab_size=500, user_defined_symbols=["x"], special_tokens=["x"]), "given twice"),
    ],
)
def test_errors_name_the_option(botchan, kwargs, message):
    with pytest.raises(TrainingError, match=message):
        tokenmill.train_unigram(botchan[:300], progress=False, **kwargs)


def test_a_vocab_size_beyond_what_the_corpus_yields_says_how_many_it_does():
    with pytest.raises(TrainingError, match=r"too high for this corpus: it yields 17 pieces; pass vocab_size <= 17"):
        tokenmill.train_unigram(["low lower lowest newer newest"] * 20, vocab_size=10**9, progress=False)


def test_an_empty_corpus_is_an_error():
    with pytest.raises(TrainingError, match="no words"):
        tokenmill.train_unigram(["", "   "], vocab_size=100, progress=False)


def test_pathological_text_terminates_and_round_trips():
    texts = ["a" * 1_000_000, " " * 10_000, "1" * 100_000, "x\x00y " * 1000, "é" * 50_000]
    tok = tokenmill.train_unigram(texts, vocab_size=300, byte_fallback=True, progress=False)
    for t in ["a" * 10_000, "1" * 5000, "x\x00y", "é" * 1000]:
        assert tok.decode(tok.encode(t)) == t


def test_cli_trains_a_model_file_the_other_commands_read(tmp_path, capsys, botchan):
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(botchan[:2000]), encoding="utf-8")
    out = tmp_path / "u.model"
    assert main(["train", str(corpus), "--model", "unigram", "--vocab-size", "600", "--format", "sentencepiece",
                 "--user-defined", "<sep>", "--byte-fallback", "-o", str(out), "-q"]) == 0
    sp = spm.SentencePieceProcessor(model_file=str(out))
    assert sp.get_piece_size() == 600 and sp.piece_to_id("<sep>") > 2
    capsys.readouterr()
    assert main(["encode", "--tokenizer", str(out), "-t", "hello <sep> world"]) == 0
    ids = [int(x) for x in capsys.readouterr().out.split()]
    assert ids == sp.encode("hello <sep> world")
    assert main(["train", str(corpus), "--model", "unigram", "--vocab-size", "600", "--normalization",
                 model_path("botchan_en_unigram_1000.model"), "-o", str(tmp_path / "n.json"), "-q"]) == 0
    normalized = tokenmill.load(tmp_path / "n.json")
    assert normalized.encode("Ｈｅｌｌｏ") == normalized.encode("Hello")
    assert main(["train", str(corpus), "--model", "bpe", "--vocab-size", "300", "--byte-fallback", "-o",
                 str(tmp_path / "x.json")]) == 2
    assert "does not apply" in capsys.readouterr().err


def test_invalid_utf8_names_the_file_and_byte_or_is_replaced(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"good words here\nab\xffcd more words\n" * 50)
    with pytest.raises(tokenmill.CorpusError, match=r"bad\.txt.*byte 18: invalid UTF-8.*errors=\"replace\""):
        tokenmill.train_unigram(str(bad), vocab_size=40, progress=False)
    tok = tokenmill.train_unigram(str(bad), vocab_size=20, errors="replace", progress=False)
    assert "\ufffd" in tok.decode(tok.encode("ab\ufffdcd"))
    assert main(["train", str(bad), "--model", "unigram", "--vocab-size", "40", "-o", str(tmp_path / "u.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid UTF-8" in err


def test_cli_rejects_bad_unigram_options_in_one_line(tmp_path, capsys, botchan):
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(botchan[1:300]), encoding="utf-8")
    out = str(tmp_path / "u.json")
    for extra, message in [(["--character-coverage", "2"], "character_coverage"), (["--format", "hf"], "--format hf"),
                           (["--vocab-size", "3"], "vocab_size")]:
        argv = ["train", str(corpus), "--model", "unigram", "-o", out] + (["--vocab-size", "300"] if "--vocab-size" not in extra else []) + extra
        assert main(argv) == 2, extra
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
