"""`tokenmill.SentencePiece` (the Rust core through the binding) against the `sentencepiece`
library and against tokenmill's pure-Python reference (issue 13).

Ids AND decoded text must be identical to `SentencePieceProcessor`: for the three shared
`.model` files over a few thousand corpus lines each and over hypothesis text, and for models
trained here with each option on and off (tests/spm_models.py). Also: offsets against
sentencepiece's `begin`/`end`, n-best, a statistical test of sampling, saving (sentencepiece
loads the written file), malformed files (errors name the file and the field), a fuzz of
mutated model bytes and pathological text.
"""

from __future__ import annotations

import math
import pickle
import random
import subprocess
import sys
from collections import Counter
from functools import lru_cache

import pytest
import sentencepiece as spm
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenmill
from conftest import hyp_examples
from spm_models import (DATA, EDGE, MODELS, OPTIONS, TEXT, corpus_lines, model_path, need, same_as_sentencepiece,
                        small_model, train, write_training_corpus)
from tokenmill import SentencePiece, TokenmillError, UnsupportedError, VocabFormatError
from tokenmill._reference.sentencepiece import SentencePieceModel
from tokenmill.errors import InputError, InternalError, TokenIdError
from tokenmill.formats.sentencepiece import model_bytes


@lru_cache(maxsize=None)
def _pair(name: str) -> tuple[spm.SentencePieceProcessor, SentencePiece]:
    path = model_path(name)
    return spm.SentencePieceProcessor(model_file=path), SentencePiece.from_file(path)


@lru_cache(maxsize=None)
def _many_lines() -> tuple[str, ...]:
    """About 3,700 lines: all of botchan (~1,500 non-empty) and 550 lines of each handbook."""
    return corpus_lines(550, 10_000)


# --- the shared models --------------------------------------------------------------------------

@pytest.mark.parametrize("name", MODELS)
def test_shared_models_on_corpora(name):
    sp, tm = _pair(name)
    texts = list(_many_lines()) + EDGE
    want = sp.encode(texts)
    got = tm.encode_batch(texts, num_threads=2)
    bad = [t for t, a, b in zip(texts, got, want) if a != b]
    assert not bad, f"{len(bad)}/{len(texts)} lines differ, first: {bad[0]!r}"
    assert tm.decode_batch(want) == sp.decode(want)
    assert [tm.encode(t) for t in texts[:300]] == want[:300]


@pytest.mark.parametrize("name", MODELS)
def test_llama_cpp_tokenizer_test_inputs(name):
    # llama.cpp's tokenizer test inputs (the same strings for every vocabulary; its expected ids
    # for the llama-spm vocabulary are not in ../shared/data/vectors, so sentencepiece, which
    # defines the .model format, is the reference here).
    raw = (DATA / "vectors" / "ggml-vocab-gpt-2.gguf.inp").read_text(encoding="utf-8")
    inputs = raw.split("\n__ggml_vocab_test__\n")[:-1]
    assert len(inputs) == 46
    for text in inputs:
        same_as_sentencepiece(*_pair(name), text)


@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=hyp_examples(300), deadline=None)
@given(text=TEXT)
def test_shared_models_on_hypothesis_text(name, text):
    same_as_sentencepiece(*_pair(name), text)


@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=hyp_examples(100), deadline=None)
@given(ids=st.lists(st.integers(0, 999), max_size=20))
def test_decode_any_ids(name, ids):
    sp, tm = _pair(name)
    assert tm.decode(ids) == sp.decode(ids)


@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=hyp_examples(150), deadline=None)
@given(text=TEXT)
def test_rust_path_equals_the_python_reference(name, text):
    _, tm = _pair(name)
    ref = _reference(name)
    ids = tm.encode(text)
    assert ids == ref.encode(text)
    assert tm.decode(ids) == ref.decode(ids)
    assert tm.normalize(text) == ref.normalize(text).decode("utf-8")


@lru_cache(maxsize=None)
def _reference(name: str) -> SentencePieceModel:
    return SentencePieceModel.from_file(model_path(name))


def test_specs_and_pieces_read():
    sp, tm = _pair("mistral-7b-v0.1.tokenizer.model")
    assert tm.vocab_size == sp.get_piece_size() == 32000 and tm.model_kind == "bpe"
    assert [tm.id_to_token(i) for i in range(400)] == [sp.id_to_piece(i) for i in range(400)]
    assert [tm.piece_score(i) for i in range(400)] == [sp.get_score(i) for i in range(400)]
    assert (tm.unk_id, tm.bos_id, tm.eos_id, tm.pad_id) == (sp.unk_id(), sp.bos_id(), sp.eos_id(), sp.pad_id())
    assert tm.special_tokens == {"<unk>": 0, "<s>": 1, "</s>": 2}
    assert tm.piece_type(0) == "unknown" and tm.piece_type(1) == "control" and tm.piece_type(3) == "byte"
    assert tm.trainer_spec["byte_fallback"] is True and tm.normalizer_spec["add_dummy_prefix"] is True
    _, uni = _pair("botchan_en_unigram_1000.model")
    assert uni.model_kind == "unigram" and uni.normalizer_spec["name"] == "nfkc"
    assert len(uni.normalizer_spec["precompiled_charsmap"]) > 1000
    assert tm.token_to_id("▁the") == sp.piece_to_id("▁the") and tm.token_to_id(b" the") == sp.piece_to_id("▁the")
    assert tm.token_bytes(tm.token_to_id("<0x0A>")) == b"\n" and tm.token_to_id(b"\n") == tm.token_to_id("<0x0A>")
    with pytest.raises(tokenmill.UnknownTokenError):
        tm.token_to_id("no such piece")
    with pytest.raises(tokenmill.TokenIdError):
        tm.id_to_token(32000)


# --- models trained here, each option on and off -------------------------------------------------

@pytest.fixture(scope="module")
def training_corpus(tmp_path_factory):
    return write_training_corpus(tmp_path_factory.mktemp("spm"))


@pytest.mark.parametrize("model_type", ["unigram", "bpe"])
@pytest.mark.parametrize("option", list(OPTIONS))
def test_trained_models(training_corpus, model_type, option):
    path = train(training_corpus, model_type, option)
    sp, tm = spm.SentencePieceProcessor(model_file=path), tokenmill.load(path)
    texts = list(_many_lines()[::5]) + EDGE
    want = sp.encode(texts)
    assert tm.encode_batch(texts, num_threads=1) == want
    assert tm.decode_batch(want) == sp.decode(want)
    ref = SentencePieceModel.from_file(path)

    @settings(max_examples=hyp_examples(60), deadline=None, database=None)
    @given(text=TEXT)
    def prop(text):
        same_as_sentencepiece(sp, tm, text)
        assert tm.encode(text) == ref.encode(text)

    prop()


# --- offsets, n-best ----------------------------------------------------------------------------

def _char_spans(text: str, proto) -> list[tuple[int, int]]:
    """sentencepiece's byte `begin`/`end` as character offsets."""
    data = text.encode("utf-8")

    def chars(b: int) -> int:
        return len(data[:b].decode("utf-8", "ignore"))

    return [(chars(p.begin), chars(p.end)) for p in proto.pieces]


@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=hyp_examples(200), deadline=None)
@given(text=TEXT)
def test_offsets_are_sentencepieces_begin_and_end(name, text):
    sp, tm = _pair(name)
    proto = sp.encode(text, return_type="proto")
    ids, spans = tm.encode_with_spans(text)
    assert ids == [p.id for p in proto.pieces]
    assert spans == _char_spans(text, proto)
    assert tm.encode_with_offsets(text) == (ids, [a for a, _ in spans])


def test_offsets_on_corpus_lines():
    for name in MODELS:
        sp, tm = _pair(name)
        for text in _many_lines()[::7]:
            proto = sp.encode(text, return_type="proto")
            assert tm.encode_with_spans(text)[1] == _char_spans(text, proto), (name, text)


@settings(max_examples=hyp_examples(150), deadline=None)
@given(text=TEXT, k=st.integers(1, 12))
def test_nbest_equals_sentencepiece(text, k):
    sp, tm = _pair("botchan_en_unigram_1000.model")
    assert tm.encode(text, nbest=k) == sp.nbest_encode_as_ids(text, k)


def test_nbest_on_corpus_lines_and_bpe_refuses(training_corpus):
    sp, tm = _pair("botchan_en_unigram_1000.model")
    for text in _many_lines()[:2000:10]:
        assert tm.encode(text, nbest=5) == sp.nbest_encode_as_ids(text, 5), text
    for option in ("user_symbols", "byte_fallback", "keep_whitespace"):
        path = train(training_corpus, "unigram", option)
        sp2, tm2 = spm.SentencePieceProcessor(model_file=path), tokenmill.load(path)
        for text in EDGE + list(_many_lines()[:1000:25]):
            _same_nbest(tm2._core.nbest(text, 6), sp2.nbest_encode_as_proto(text, 6), text)
    _, bpe = _pair("botchan_en_bpe_1000.model")
    with pytest.raises(UnsupportedError, match="Unigram"):
        bpe.encode("hello", nbest=2)


def _same_nbest(got, proto, text: str) -> None:
    """The same n-best lists, except that segmentations with equal scores may come in another
    order (sentencepiece's order among ties is that of its heap) and, in the last group of
    ties, the list cut at k may keep other members of the group."""
    def runs(items):
        out: list[list] = []
        for i, (ids, score) in enumerate(items):
            if i and score == items[i - 1][1]:
                out[-1].append(ids)
            else:
                out.append([ids])
        return out

    mine = runs([(list(ids), score) for ids, score in got])
    theirs = runs([([p.id for p in nb.pieces], nb.score) for nb in proto.nbests])
    assert [len(r) for r in mine] == [len(r) for r in theirs], text
    assert [sorted(r) for r in mine[:-1]] == [sorted(r) for r in theirs[:-1]], text


# --- sampling -----------------------------------------------------------------------------------

def _draws(f, n: int) -> Counter:
    return Counter(tuple(f()) for _ in range(n))


@pytest.mark.parametrize("name,alpha,nbest_size", [
    ("botchan_en_unigram_1000.model", 0.1, -1),
    ("botchan_en_unigram_1000.model", 0.5, -1),
    ("botchan_en_unigram_1000.model", 0.5, 8),
    ("botchan_en_bpe_1000.model", 0.1, -1),
])
def test_sampling_has_sentencepieces_distribution(name, alpha, nbest_size):
    """The segmentations tokenmill samples follow the distribution sentencepiece samples from.

    A pilot of 2,000 draws from sentencepiece (seed 0, independent of the data tested) fixes
    K - 1 = 7 categories, its most frequent segmentations, plus one for "any other". Then
    N = 20,000 draws from sentencepiece (seed 1) and N from tokenmill (seed 2) give empirical
    distributions p and q over the K categories, and the test fails when the L1 distance
    ||p - q||_1 exceeds t.

    Under the hypothesis that both sample the same distribution P, the triangle inequality gives
    ||p - q||_1 <= ||p - P||_1 + ||q - P||_1, and for the empirical distribution of N draws
    over K categories P(||p - P||_1 >= e) <= (2^K - 2) exp(-N e^2 / 2) (Weissman et al., 2003).
    So P(||p - q||_1 > t) <= 2 (2^K - 2) exp(-N t^2 / 8); with K = 8 and N = 20,000,
    t = sqrt(8 ln(2 * 254 / 1e-6) / N) = 0.0896 makes a false failure less likely than 1e-6.
    A real difference of 0.1 in L1 (5% of the mass moved) is still detected.
    """
    sp, tm = _pair(name)
    text = "the house is surprisingly quiet"
    kw = dict(enable_sampling=True, alpha=alpha, nbest_size=nbest_size)
    spm.set_random_generator_seed(0)
    pilot = _draws(lambda: sp.encode(text, **kw), 2000)
    categories = [seg for seg, _ in pilot.most_common(7)]
    assert len(categories) >= 2, "the text must have several likely segmentations"

    def histogram(draws: Counter, n: int) -> list[float]:
        counts = [draws.get(c, 0) for c in categories]
        return [c / n for c in counts] + [(n - sum(counts)) / n]

    n, k = 20_000, len(categories) + 1
    spm.set_random_generator_seed(1)
    p = histogram(_draws(lambda: sp.encode(text, **kw), n), n)
    q = histogram(Counter(map(tuple, tm.sample_batch([text] * n, alpha=alpha, nbest_size=nbest_size, seed=2))), n)
    t = math.sqrt(8 * math.log(2 * (2**k - 2) / 1e-6) / n)
    l1 = sum(abs(a - b) for a, b in zip(p, q))
    assert l1 <= t, f"L1 distance {l1:.4f} > {t:.4f}: sentencepiece {p}, tokenmill {q}"


def test_sampling_is_reproducible_and_thread_independent():
    _, tm = _pair("botchan_en_unigram_1000.model")
    texts = list(_many_lines()[:400])
    a = tm.sample_batch(texts, seed=7, num_threads=1)
    assert a == tm.sample_batch(texts, seed=7, num_threads=2) == tm.sample_batch(texts, seed=7, num_threads=3)
    assert a != tm.sample_batch(texts, seed=8, num_threads=1)
    assert tm.sample(texts[3], seed=5) == tm.sample(texts[3], seed=5)
    assert tm.decode_batch(a) == [tm.decode(tm.encode(t)) for t in texts]  # sampling never changes the text
    assert tm.sample(texts[3], nbest_size=1) == tm.encode(texts[3])
    with pytest.raises(ValueError, match="alpha"):
        tm.sample("x", alpha=float("nan"))


# --- the Tokenizer interface, files -------------------------------------------------------------

def test_tokenizer_interface_and_files(tmp_path):
    path = model_path("mistral-7b-v0.1.tokenizer.model")
    sp, tm = _pair("mistral-7b-v0.1.tokenizer.model")
    assert isinstance(tm, tokenmill.Tokenizer) and type(tokenmill.load(path)) is SentencePiece
    text = "Hello <s> world</s> 😀"
    assert tm.encode(text) == sp.encode(text) == tm.encode_ordinary(text)  # "<s>" is text, as in sentencepiece
    assert tm.encode(text, add_bos=True, add_eos=True) == sp.encode(text, add_bos=True, add_eos=True)
    assert tm.encode(text, allowed_special="all").count(1) == 1
    with pytest.raises(tokenmill.DisallowedSpecialTokenError):
        tm.encode(text, disallowed_special="all")
    assert tm.count(text) == len(sp.encode(text)) and tm.encode_to_numpy(text).tolist() == sp.encode(text)
    assert tm.decode_bytes(sp.encode(text)) == sp.decode(sp.encode(text)).encode()
    again = [SentencePiece.from_dict(tm.to_dict()), tokenmill.Tokenizer.from_dict(tm.to_dict()), pickle.loads(pickle.dumps(tm))]
    tm.save(tmp_path / "t.json")
    again.append(tokenmill.load(tmp_path / "t.json"))
    out = tmp_path / "saved.bin"  # not named .model: recognised by content
    assert tm.export("sentencepiece", out) == [out]
    again.append(tokenmill.load(out))
    for other in again:
        assert type(other) is SentencePiece and other.encode(text) == sp.encode(text)
    with pytest.raises(ValueError, match="SentencePiece"):
        tokenmill.get_encoding("gpt2").export("sentencepiece", tmp_path / "x.model")


@pytest.mark.parametrize("name", MODELS)
def test_saved_model_loads_in_sentencepiece(name, tmp_path):
    _, tm = _pair(name)
    out = tmp_path / "copy.model"
    tm.export("sentencepiece", out)
    sp2, sp = spm.SentencePieceProcessor(model_file=str(out)), _pair(name)[0]
    texts = list(_many_lines()[::9]) + EDGE
    assert sp2.encode(texts) == sp.encode(texts) == tm.encode_batch(texts)
    assert SentencePiece.from_file(out).to_model_bytes() == out.read_bytes()


def test_cli_reads_a_model_file():
    path = model_path("botchan_en_unigram_1000.model")
    r = subprocess.run([sys.executable, "-m", "tokenmill.cli", "encode", "--tokenizer", path, "--text", "hello world"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert [int(x) for x in r.stdout.split()] == spm.SentencePieceProcessor(model_file=path).encode("hello world")


# --- bad input ----------------------------------------------------------------------------------

UNK = ("<unk>", 0.0, 2)


@pytest.mark.parametrize("what,data,match", [
    ("truncated", None, None),
    ("wire_type", model_bytes([UNK]) + b"\x10\x01", "wire type"),  # trainer_spec as a varint
    ("group", model_bytes([UNK]) + b"\x0b\x00", "wire type"),
    ("duplicate", model_bytes([UNK, ("a", 0.0, 1), ("a", -1.0, 1)]), "twice|duplicate"),
    ("nan", model_bytes([UNK, ("a", float("nan"), 1)]), "NaN"),
    ("inf", model_bytes([UNK, ("a", float("-inf"), 1)]), "-inf.*finite"),  # sentencepiece refuses it too
    ("nul", model_bytes([UNK, ("a\x00b", 0.0, 1)]), "NUL"),  # as sentencepiece 0.2.3 (see spm::model)
    ("empty_piece", model_bytes([UNK, ("", 0.0, 1)]), "empty"),
    ("two_unk", model_bytes([UNK, ("<u2>", 0.0, 2)]), "UNKNOWN|unk"),
    ("no_unk", model_bytes([("a", 0.0, 1)]), "UNKNOWN"),
    ("bad_type", model_bytes([UNK, ("a", 0.0, 9)]), "type"),
])
def test_bad_model_files_name_the_file_and_field(tmp_path, what, data, match):
    if data is None:
        data = need(DATA / "sentencepiece" / "botchan_en_unigram_1000.model").read_bytes()[:1000]
    path = tmp_path / f"{what}.model"
    path.write_bytes(data)
    for load in (tokenmill.load, SentencePiece.from_file):
        with pytest.raises(VocabFormatError, match=match) as info:
            load(path)
        assert str(path) in str(info.value) and not isinstance(info.value, InternalError)


def test_word_model_is_unsupported(tmp_path):
    path = tmp_path / "word.model"
    path.write_bytes(model_bytes([UNK, ("▁a", 0.0, 1)], model_type="word"))
    with pytest.raises(UnsupportedError, match="(?i)word") as info:
        tokenmill.load(path)
    assert str(path) in str(info.value)


def test_unknown_content_lists_model_files(tmp_path):
    path = tmp_path / "x.model"
    path.write_bytes(b"\x08\x01\x02 not a model")
    with pytest.raises(VocabFormatError, match="unknown file content.*sentencepiece .model"):
        tokenmill.load(path)
    with pytest.raises(VocabFormatError, match="wire type") as info:  # read as a .model when asked to
        SentencePiece.from_file(path)
    assert str(path) in str(info.value)


def test_fuzz_mutated_model_bytes():
    """Cut and corrupted `.model` bytes load or raise a TokenmillError (never a panic, never
    another exception); what loads encodes and decodes. Fixed seed, a few seconds."""
    good = small_model()
    rng = random.Random(20261125)
    loaded = 0
    for _ in range(1500):
        data = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(data))
            if rng.random() < 0.7:
                data[pos] ^= 1 << rng.randrange(8)
            else:
                data[pos] = rng.randrange(256)
        if rng.random() < 0.3:
            data = data[: rng.randrange(len(data))]
        try:
            tm = SentencePiece.from_bytes(bytes(data))
        except InternalError:
            raise
        except TokenmillError:
            continue
        loaded += 1
        ids = tm.encode("Hello wörld ｈｉ 123  x")
        tm.decode(ids)
        tm.decode([0, 1, 2])
    assert loaded > 50


# --- pathological text --------------------------------------------------------------------------

@pytest.mark.parametrize("name", MODELS)
def test_pathological_text(name):
    sp, tm = _pair(name)
    for text in ["x" * 1_000_000, " " * 200_000 + "a" + "\t " * 50_000, "\x00" * 10_000, "ab" * 200_000,
                 "９" * 100_000, "e" + "\u0301" * 50_000]:
        ids = tm.encode(text)
        assert ids == sp.encode(text), (name, text[:10], len(text))
        assert tm.decode(ids) == sp.decode(ids)
    # Empty texts, and texts that normalize to nothing, alone and between others in a batch.
    batch = ["", " ", "\t\n", "a", "", "x" * 5000, " \u3000 "]
    assert tm.encode_batch(batch, num_threads=1) == sp.encode(batch), name


def test_lone_surrogates_and_invalid_bytes():
    sp, tm = _pair("mistral-7b-v0.1.tokenizer.model")
    assert tm.encode("a\ud800b") == tm.encode("a\ufffdb") == sp.encode("a\ufffdb")
    assert tm.encode("\ud83d\ude00") == sp.encode("😀")
    assert tm.encode_batch(["x\udc00", "y"]) == [sp.encode("x\ufffd"), sp.encode("y")]
    byte = {b: tm.token_to_id(f"<0x{b:02X}>") for b in range(256)}
    for seq in ([0xFF], [0xE2, 0x82], [0xC3], [0x80, 0x41], [0xF0, 0x9F, 0x98], [0xE2, 0x82, 0xAC, 0xFF, 0x41]):
        ids = [byte[b] for b in seq]
        assert tm.decode(ids) == sp.decode(ids), seq
    with pytest.raises(tokenmill.TokenIdError):
        tm.decode([32000])
    with pytest.raises(tokenmill.TokenIdError):
        tm.decode([-1])


@pytest.mark.parametrize("call, exc, match", [
    (lambda sp: sp.sample("x", alpha=-1), InputError, "alpha"),
    (lambda sp: sp.sample("x", alpha=float("nan")), InputError, "alpha"),
    (lambda sp: sp.sample("x", nbest_size=10**6), InputError, "nbest_size"),
    (lambda sp: sp.sample("x", seed="a"), TypeError, "seed"),
    (lambda sp: sp.encode("x", nbest=0), InputError, "nbest"),
    (lambda sp: sp.decode([10**6]), TokenIdError, "out of range"),
    (lambda sp: sp.encode(b"x"), TypeError, "str"),
    (lambda sp: SentencePiece(b""), VocabFormatError, "empty"),
    (lambda sp: SentencePiece("x.model"), TypeError, "from_file"),
])
def test_bad_arguments_get_clear_errors(call, exc, match):
    sp = SentencePiece.from_file(model_path("botchan_en_unigram_1000.model"))
    with pytest.raises(exc, match=match):
        call(sp)
