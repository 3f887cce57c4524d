"""`tokenmill.train_wordpiece` against Hugging Face's ``WordPieceTrainer``.

HF numbers the ``##c`` symbols in the order of a hash map seeded per process, so two HF runs
on one corpus can differ (ties between pairs go either way). Each parity test therefore reads
that order from the HF run's vocabulary and passes it to our trainer (``_symbol_order``):
given it, the whole vocabulary, ids included, must be HF's. Our default order (code points)
is checked for determinism separately.
"""

from __future__ import annotations

import json

import pytest

import tokenmill
from tokenmill.errors import SpecialTokenError, TokenmillError, TrainingError
from tokenmill.cli import main

from peers import corpus_texts, shared_data

tokenizers = pytest.importorskip("tokenizers")

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def _hf_train(corpus, vocab_size, *, min_frequency=0, limit_alphabet=None, normalizer=None):
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizer or normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    kw = {} if limit_alphabet is None else {"limit_alphabet": limit_alphabet}
    tr = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=SPECIALS, min_frequency=min_frequency, show_progress=False, **kw)
    if isinstance(corpus, str):
        tok.train([corpus], tr)
    else:
        tok.train_from_iterator(corpus, tr)
    return tok


def _symbol_order(vocab: dict[str, int]) -> list[str]:
    """The characters of HF's ``##c`` symbols, in the order HF numbered them."""
    return [t[2:] for t, _ in sorted(vocab.items(), key=lambda kv: kv[1]) if t.startswith("##") and len(t) == 3]


def _ours(corpus, vocab_size, hf_vocab, **kw):
    return tokenmill.train_wordpiece(corpus, vocab_size, progress=False, _symbol_order=_symbol_order(hf_vocab), **kw)


@pytest.fixture(scope="module")
def botchan() -> str:
    return str(shared_data() / "corpus" / "botchan.txt")


@pytest.fixture(scope="module")
def debian() -> list[str]:
    """A multilingual slice: 150 000 characters of each Debian handbook (en, fr, ja, zh)."""
    texts = corpus_texts()
    return [texts[k][:150_000] for k in sorted(texts) if "debian-handbook" in k]


@pytest.mark.parametrize("vocab_size", [1000, 5000])
def test_botchan_vocab_equals_hf(botchan, vocab_size):
    hf = _hf_train(botchan, vocab_size)
    ours = _ours(botchan, vocab_size, hf.get_vocab())
    assert ours.vocab == dict(sorted(hf.get_vocab().items(), key=lambda kv: kv[1]))
    text = open(botchan, encoding="utf-8").read()[:20_000]
    assert ours.encode(text, add_special_tokens=False) == hf.encode(text).ids


@pytest.mark.parametrize("vocab_size", [3000, 8000])
def test_debian_multilingual_vocab_equals_hf(debian, vocab_size):
    hf = _hf_train(debian, vocab_size)
    ours = _ours(debian, vocab_size, hf.get_vocab(), num_threads=2)
    assert ours.vocab == dict(sorted(hf.get_vocab().items(), key=lambda kv: kv[1]))
    for doc in debian:
        sample = doc[50_000:60_000]
        assert ours.encode(sample, add_special_tokens=False) == hf.encode(sample).ids


def test_min_frequency_and_limit_alphabet_equal_hf(debian):
    # limit_alphabet=150 falls between distinct character counts here (HF breaks ties at the
    # cut in hash order).
    from tokenizers import normalizers

    hf = _hf_train(debian, 3000, min_frequency=40, limit_alphabet=150)
    ours = _ours(debian, 3000, hf.get_vocab(), min_frequency=40, limit_alphabet=150)
    assert ours.vocab == dict(sorted(hf.get_vocab().items(), key=lambda kv: kv[1]))
    # min_frequency stops merging early: fewer tokens than asked for.
    hf = _hf_train(debian[:1], 50_000, min_frequency=40)
    ours = _ours(debian[:1], 50_000, hf.get_vocab(), min_frequency=40)
    assert ours.vocab_size < 50_000
    assert ours.vocab == dict(sorted(hf.get_vocab().items(), key=lambda kv: kv[1]))
    # Normalizer options: cased, accents kept, no CJK spacing.
    norm = normalizers.BertNormalizer(lowercase=False, strip_accents=False, handle_chinese_chars=False)
    hf = _hf_train(debian, 4000, normalizer=norm)
    ours = _ours(debian, 4000, hf.get_vocab(), lowercase=False, strip_accents=False, handle_chinese_chars=False)
    assert ours.vocab == dict(sorted(hf.get_vocab().items(), key=lambda kv: kv[1]))


def test_hf_export_loads_with_equal_ids(botchan, debian, tmp_path):
    from tokenizers import Tokenizer

    tok = tokenmill.train_wordpiece(debian + [open(botchan, encoding="utf-8").read()], 3000, progress=False)
    [p] = tok.export("hf", tmp_path / "tokenizer.json")
    hf = Tokenizer.from_file(str(p))
    texts = [d[60_000:63_000] for d in debian] + ["", "  ", "Hello [MASK] world!", "naïve café 東京 [CLS]x", "a\x00b\ufffdc"]
    for t in texts:
        for add in (True, False):
            assert tok.encode(t, add_special_tokens=add) == hf.encode(t, add_special_tokens=add).ids, (t[:40], add)
    assert hf.encode("a b", "c", add_special_tokens=True).ids[0] == tok.vocab["[CLS]"]
    ids = tok.encode(texts[0])
    assert tok.decode(ids) == hf.decode(ids)
    d = json.loads(p.read_text(encoding="utf-8"))
    assert d["normalizer"]["type"] == "BertNormalizer" and d["decoder"]["type"] == "WordPiece"
    # Options travel to the file.
    cased = tokenmill.train_wordpiece(debian[:2], 2500, lowercase=False, strip_accents=True, progress=False)
    [p] = cased.export("hf", tmp_path / "cased.json")
    hf = Tokenizer.from_file(str(p))
    for t in ("Émile ÉCOLE écrit", debian[0][:3000]):
        assert cased.encode(t) == hf.encode(t).ids


def test_deterministic_across_threads(debian):
    one = tokenmill.train_wordpiece(debian, 2500, num_threads=1, progress=False)
    two = tokenmill.train_wordpiece(debian, 2500, num_threads=2, progress=False)
    assert one.vocab == two.vocab
    assert one.training["distinct_words"] == two.training["distinct_words"]
    # One large text (cut into parts in the core) counts like many small ones.
    joined = tokenmill.train_wordpiece(["\n".join(debian)], 2500, num_threads=2, progress=False)
    assert joined.vocab == one.vocab


def test_defaults_and_result(botchan, tmp_path):
    tok = tokenmill.train_wordpiece(botchan, 800, progress=False)
    assert isinstance(tok, tokenmill.WordPiece)
    assert list(tok.vocab)[:5] == SPECIALS and tok.vocab_size == 800
    assert tok.special_tokens == {s: i for i, s in enumerate(SPECIALS)}
    ids = tok.encode("Hello there")
    assert ids[0] == tok.vocab["[CLS]"] and ids[-1] == tok.vocab["[SEP]"]
    assert tok.training["trainer"] == "tokenmill.train_wordpiece"
    # ## symbols in code point order by default.
    syms = [t for t in tok.vocab if t.startswith("##") and len(t) == 3]
    assert syms == sorted(syms)
    # Round trip through tokenmill's format and vocab.txt.
    tok.save(tmp_path / "wp.json")
    tok.export("vocab.txt", tmp_path / "vocab.txt")
    for p in ("wp.json", "vocab.txt"):
        again = tokenmill.load(tmp_path / p)
        assert again.vocab == tok.vocab and again.encode("Hello there") == ids


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(vocab_size=30), TrainingError, r"vocab_size=30 is smaller than .* pass vocab_size >= "),
        (dict(vocab_size=5), TrainingError, "no room"),
        (dict(vocab_size=100, special_tokens=["[PAD]"]), SpecialTokenError, "unk_token"),
        (dict(vocab_size=100, min_frequency=-1), TokenmillError, "min_frequency"),
        (dict(vocab_size=100, limit_alphabet=-2), TrainingError, "limit_alphabet"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        tokenmill.train_wordpiece(["the quick brown fox jumps over the lazy dog"], progress=False, **kwargs)


def test_bad_types():
    with pytest.raises(TypeError):
        tokenmill.train_wordpiece(["a"], 100.0, progress=False)
    with pytest.raises(TypeError):
        tokenmill.train_wordpiece(["a"], 100, lowercase="yes", progress=False)
    with pytest.raises(TrainingError, match="no words"):
        tokenmill.train_wordpiece(["   ", ""], 100, progress=False)


def test_limit_alphabet_shrinks_floor():
    text = ["the quick brown fox jumps over the lazy dog ÅÉÎ"]
    with pytest.raises(TrainingError):
        tokenmill.train_wordpiece(text, 40, lowercase=False, progress=False)
    tok = tokenmill.train_wordpiece(text, 40, lowercase=False, limit_alphabet=10, progress=False)
    assert tok.training["alphabet"] == 10


def test_cli(botchan, tmp_path, capsys):
    from tokenizers import Tokenizer

    def run(*args):
        return main(["train", botchan, "--model", "wordpiece", "--vocab-size", "1200", *args])

    assert run("-o", str(tmp_path / "wp.json")) == 0
    assert "Trained a wordpiece tokenizer" in capsys.readouterr().out
    tok = tokenmill.load(tmp_path / "wp.json")
    assert isinstance(tok, tokenmill.WordPiece) and tok.vocab_size == 1200
    assert run("--format", "vocab.txt", "-o", str(tmp_path / "vocab.txt")) == 0
    assert (tmp_path / "vocab.txt").read_text(encoding="utf-8").splitlines() == list(tok.vocab)
    assert run("--format", "hf", "-o", str(tmp_path / "tokenizer.json")) == 0
    hf = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    assert hf.encode("It was a fine day.").ids == tok.encode("It was a fine day.")
    capsys.readouterr()
    assert run("--format", "gpt2", "-o", str(tmp_path / "g")) == 2
    assert "--format gpt2 is for --model" in capsys.readouterr().err
    assert run("--pattern", "gpt2", "-o", str(tmp_path / "p.json")) == 2
    assert "does not apply to --model wordpiece" in capsys.readouterr().err
    assert main(["train", botchan, "--model", "wordpiece", "--vocab-size", "50", "-o", str(tmp_path / "s.json")]) == 2
    assert "pass vocab_size >=" in capsys.readouterr().err


def test_files_read_by_the_core_equal_the_texts(debian, tmp_path):
    """A big file (read by the Rust reader in ~1 MB blocks cut at whitespace) and a gzipped
    JSON lines file give the vocabulary of the same texts passed as strings."""
    import gzip

    big = "\n".join(debian) * 2
    (tmp_path / "big.txt").write_bytes(big.encode("utf-8"))
    with gzip.open(tmp_path / "d.jsonl.gz", "wt", encoding="utf-8") as f:
        for t in debian[:50]:
            f.write(json.dumps({"text": t}) + "\n")
    want = tokenmill.train_wordpiece([big] + debian[:50], 2000, progress=False).vocab
    got = tokenmill.train_wordpiece([tmp_path / "big.txt", tmp_path / "d.jsonl.gz"], 2000, progress=False).vocab
    assert got == want
