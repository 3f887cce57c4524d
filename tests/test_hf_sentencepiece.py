"""SentencePiece models in Hugging Face's ``tokenizer.json`` form: the ``Unigram`` model and the
``Precompiled`` normalizer, against HF ``tokenizers`` (the oracle).

The files:

- HF's own converter (``SentencePieceUnigramTokenizer.from_spm``) applied to the shared botchan
  Unigram ``.model`` (its ``sentencepiece_model_pb2`` comes from the installed ``sentencepiece``);
- the same model built by hand from the ``.model`` (pieces through tokenmill's reference parser),
  with byte fallback, ``Precompiled`` alone and Metaspace ``first``;
- Unigram models trained by HF's ``UnigramTrainer`` on small corpora, with NFKC or the botchan
  charsmap as normalizer, byte fallback on and off;
- a character-level BPE behind a ``Precompiled`` normalizer: each normalized character is a token,
  so ids and offsets show the normalizer's text and alignments (HF's grapheme-cluster rules).

Checked: ids, tokens, offsets and decoded text of ``tokenmill.load(file)`` equal HF's, over every
shared corpus and hypothesis text (full-width forms, combining marks, emoji with ZWJ and skin
tones, flags, Hangul, Indic conjuncts, whitespace runs, NUL), and the load errors.
"""

from __future__ import annotations

import base64
import json
import sys

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

import peers
import tokenmill
from conftest import hyp_examples
from tokenmill._reference.sentencepiece_proto import parse_model

SPM = "sentencepiece/botchan_en_unigram_1000.model"

HARD = [
    "Hello world", "ＡＢＣ  ｘｙｚ　１２３", "Ａ\u0301b", "e\u0301 a\u0308 o\u0302\u0323", "ﬁ ﬂ ① ㍿ ½ ™",
    "👍🏽 hi 🇫🇷🇩🇪🇺", "👨\u200d👩\u200d👧 a\u200d b\u200d\u200d", "\u0000nul\u0000", "한국어 텍스트 \u1100\u1161\u11a8",
    "x  \t y\n\n\nz", "a\r\nb\rc\n", "   leading and trailing   ", "क्षि क्\u200dष ক্ষ", "\u00a0\u2003\u3000x",
    "Ｈｅｌｌｏ，ｗｏｒｌｄ！", "ｶﾀｶﾅ ﾊﾞ", "Café naïve résumé", "日本語のテキスト", "Привет мир", "\u200b\ufeffx",
    "\u0301start", "end\u0301", "Ａ\u0308\u0301", "ᄀᄀᄀ각ᆨ", "☝🏿✌️", "\U0001F3F4\U000E0067\U000E0062\U000E007F",
    "", " ", "<unk> <s> </s>", "\x1e\x1f™", "™\x1eg",
]


def _data(rel: str):
    return peers.shared_data() / rel


def _lines(n_per_file: int) -> list[str]:
    """The first lines (non-empty) of every shared corpus."""
    out = []
    for _, text in sorted(peers.corpus_texts().items()):
        out.extend([ln for ln in text.split("\n") if ln.strip()][:n_per_file])
    return out


def _charsmap() -> bytes:
    return parse_model(_data(SPM).read_bytes()).normalizer_spec.precompiled_charsmap


def _hf_converted() -> str:
    """HF's converter on the botchan Unigram model."""
    import sentencepiece.sentencepiece_model_pb2 as pb2
    from tokenizers.implementations import SentencePieceUnigramTokenizer

    sys.modules.setdefault("sentencepiece_model_pb2", pb2)
    return SentencePieceUnigramTokenizer.from_spm(str(_data(SPM)))._tokenizer.to_str()


def _by_hand(byte_fallback: bool) -> str:
    """The botchan model as a tokenizer.json built by hand (Precompiled alone, Metaspace "first")."""
    m = parse_model(_data(SPM).read_bytes())
    vocab = [(p, s) for p, s, _ in m.pieces]
    if byte_fallback:
        vocab += [(f"<0x{b:02X}>", -20.0) for b in range(256)]
    tok = tokenizers.Tokenizer(models.Unigram(vocab, m.trainer_spec.unk_id, byte_fallback=byte_fallback))
    tok.normalizer = normalizers.Precompiled(m.normalizer_spec.precompiled_charsmap)
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    tok.decoder = decoders.Sequence([decoders.Metaspace(replacement="▁", prepend_scheme="first"), decoders.ByteFallback()])
    return tok.to_str()


_TRAINED: dict = {}


def _trained(norm: str, byte_fallback: bool) -> str:
    """A Unigram model trained by HF on botchan and Japanese text."""
    key = (norm, byte_fallback)
    if key not in _TRAINED:
        texts = peers.corpus_texts()
        corpus = [ln for ln in texts["corpus/botchan.txt"].split("\n") if ln.strip()][:1500]
        corpus += [ln for ln in texts["corpus/debian-handbook.ja-JP.txt.gz"].split("\n") if ln.strip()][:80]
        tok = tokenizers.Tokenizer(models.Unigram())
        tok.normalizer = normalizers.NFKC() if norm == "nfkc" else normalizers.Precompiled(_charsmap())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=1200, special_tokens=["<unk>", "<s>", "</s>"], unk_token="<unk>",
                                          show_progress=False)
        tok.train_from_iterator(corpus, trainer)
        doc = json.loads(tok.to_str())
        if byte_fallback:
            doc["model"]["vocab"] += [[f"<0x{b:02X}>", -30.0] for b in range(256)]
            doc["model"]["byte_fallback"] = True
            doc["decoder"] = {"type": "Sequence", "decoders": [doc["decoder"], {"type": "ByteFallback"}]}
        _TRAINED[key] = json.dumps(doc)
    return _TRAINED[key]


def _char_bpe(texts: list[str]) -> str:
    """A BPE whose tokens are single characters (those HF's normalizer gives for `texts`) behind
    the botchan Precompiled normalizer: ids and offsets then show normalization per character."""
    norm = normalizers.Precompiled(_charsmap())
    chars = sorted({c for t in texts for c in norm.normalize_str(t)})
    vocab = {"<unk>": 0, **{c: i + 1 for i, c in enumerate(chars)}}
    tok = tokenizers.Tokenizer(models.BPE(vocab, [], unk_token="<unk>", fuse_unk=False))
    tok.normalizer = norm
    return tok.to_str()


FILES = {
    "hf_converter": _hf_converted,
    "by_hand": lambda: _by_hand(False),
    "by_hand_byte_fallback": lambda: _by_hand(True),
    "trained_nfkc": lambda: _trained("nfkc", False),
    "trained_precompiled": lambda: _trained("precompiled", False),
    "trained_nfkc_byte_fallback": lambda: _trained("nfkc", True),
}


def _pair(name: str):
    doc = FILES[name]()
    return tokenmill.HFTokenizer.from_str(doc), tokenizers.Tokenizer.from_str(doc)


def _unk_as_piece(hf, want) -> list[str]:
    """HF's tokens with each unknown token shown as the unknown piece (HF shows its text)."""
    unk = hf.token_to_id("<unk>")
    return [hf.id_to_token(i) if i == unk else t for i, t in zip(want.ids, want.tokens)]


def _check(tm, hf, text: str, decode: bool = True) -> None:
    want = hf.encode(text)
    got = tm.encode_full(text)
    ctx = f"text={text[:80]!r}"
    assert got.ids == want.ids, ctx
    assert got.offsets == want.offsets, ctx
    # Unknown runs: checked exactly by test_unknown_tokens_are_reported_as_their_text.
    assert got.tokens in (want.tokens, _unk_as_piece(hf, want)), ctx
    assert tm.encode(text) == want.ids, ctx
    if decode:
        assert tm.decode(want.ids) == hf.decode(want.ids), f"decode {ctx}"


# ---------------------------------------------------------------------------- whole files
def test_unknown_tokens_are_reported_as_their_text():
    # HF's Unigram gives an unknown run its own text as token (not "<unk>"); byte-fallback tokens
    # are their "<0xNN>" pieces. tokenmill's core answers this in `Model::token_text`, which the
    # pipeline must use for `Encoding.tokens` (crates/tokenmill-core/src/hf/tokenizer.rs).
    for name in ("hf_converter", "by_hand_byte_fallback"):
        tm, hf = _cached(name)
        for text in ["한국어 \t x", "\u0000nul 👍🏽", "ＡＢＣ 𝟙"]:
            want = hf.encode(text)
            assert tm.encode_full(text).tokens == want.tokens, (name, text)



def test_load_through_tokenmill_load(tmp_path):
    p = tmp_path / "tokenizer.json"
    p.write_text(_hf_converted(), encoding="utf-8")
    tm, hf = tokenmill.load(p), tokenizers.Tokenizer.from_file(str(p))
    assert tm.get_vocab_size() == hf.get_vocab_size()
    assert tm.get_vocab() == hf.get_vocab()
    for t in HARD:
        _check(tm, hf, t)


@pytest.mark.parametrize("name", list(FILES))
def test_hard_texts(name):
    tm, hf = _pair(name)
    for t in HARD:
        _check(tm, hf, t)


@pytest.mark.parametrize("name", list(FILES))
def test_corpora(name):
    tm, hf = _pair(name)
    lines = _lines(2000 if name == "hf_converter" else 300)
    want = hf.encode_batch(lines)
    got = tm.encode_batch(lines)
    for line, w, g in zip(lines, want, got):
        assert g == w.ids, line[:80]
    for line in lines[::7]:
        _check(tm, hf, line, decode=False)
    # Whole paragraphs too (long words, many pieces).
    for text in list(peers.corpus_texts().values())[:4]:
        _check(tm, hf, text[:20000], decode=False)


# Characters that exercise the charsmap, grapheme clusters and the Unigram's unknown handling.
POOL = list(
    "aZ09 éüßЖ한각ㄱ각日本ｱｶﾞＡＺｚ０９！＂，．\u3000\u00a0\u2003\t\n\r\x00\x1e\x7f"
    "\u0301\u0308\u0323\u20dd\u093f\u094d\u0915\u0937\u09cd\u0995\u200d\u200c\ufe0f\u2066"
    "👍🏽🏿👨👩👧❤☝✌\U0001F1EB\U0001F1F7\U0001F3F4\U000E0067\U000E007Fﬁ①½™㍿ⅷ\u2028\ufeff\u00ad"
)

texts = st.one_of(
    st.text(st.sampled_from(POOL), max_size=40),
    st.text(st.characters(blacklist_categories=("Cs", "Cn", "Co")), max_size=30),
    st.lists(st.sampled_from(HARD), max_size=4).map("".join),
)


@given(st.lists(texts, min_size=1, max_size=8))
@settings(max_examples=hyp_examples(150))
def test_hypothesis_converted(batch):
    tm, hf = _cached("hf_converter")
    for t in batch:
        _check(tm, hf, t)


@given(st.lists(texts, min_size=1, max_size=8))
@settings(max_examples=hyp_examples(100))
def test_hypothesis_byte_fallback_and_trained(batch):
    for name in ("by_hand_byte_fallback", "trained_precompiled", "trained_nfkc_byte_fallback"):
        tm, hf = _cached(name)
        for t in batch:
            _check(tm, hf, t)


_CACHE: dict = {}


def _cached(name):
    if name not in _CACHE:
        _CACHE[name] = _pair(name)
    return _CACHE[name]


# ---------------------------------------------------------------------------- the normalizer alone
@given(st.lists(texts, min_size=1, max_size=10))
@settings(max_examples=hyp_examples(150))
def test_precompiled_characters_and_offsets(batch):
    doc = _char_bpe(batch + HARD)
    tm, hf = tokenmill.HFTokenizer.from_str(doc), tokenizers.Tokenizer.from_str(doc)
    for t in batch + HARD:
        _check(tm, hf, t, decode=False)


def test_precompiled_in_a_sequence_with_offsets():
    doc = json.loads(_char_bpe(HARD))
    doc["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "NFD"}, doc["normalizer"], {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "▁"},
        {"type": "Prepend", "prepend": "▁"}]}
    norm = tokenizers.Tokenizer.from_str(json.dumps(doc)).normalizer
    chars = sorted({c for t in HARD for c in norm.normalize_str(t)})
    doc["model"]["vocab"] = {"<unk>": 0, **{c: i + 1 for i, c in enumerate(chars)}}
    s = json.dumps(doc)
    tm, hf = tokenmill.HFTokenizer.from_str(s), tokenizers.Tokenizer.from_str(s)
    for t in HARD:
        _check(tm, hf, t, decode=False)


# ---------------------------------------------------------------------------- errors
def _doc(normalizer=None, model=None) -> dict:
    doc = json.loads(_by_hand(False))
    if normalizer is not None:
        doc["normalizer"] = normalizer
    if model is not None:
        doc["model"] = model
    return doc


@pytest.mark.parametrize("charsmap, what", [
    ("", "too short"), ("!!", "base64"), (None, "string"), (base64.b64encode(b"\x00\x00\x00\x00").decode(), "no unit"),
    (base64.b64encode(b"\x05\x00\x00\x00abcde").decode(), "multiple of 4"),
    (base64.b64encode(b"\x04\x00\x00\x00abcd\xff").decode(), "UTF-8"),
])
def test_bad_charsmaps(charsmap, what):
    doc = _doc(normalizer={"type": "Precompiled", "precompiled_charsmap": charsmap})
    with pytest.raises(tokenmill.TokenmillError) as e:
        tokenmill.HFTokenizer.from_str(json.dumps(doc))
    assert "normalizer.precompiled_charsmap" in str(e.value) and what in str(e.value), str(e.value)
    # HF panics on these (at load or at the first text): never a silent answer.
    with pytest.raises(BaseException):
        tokenizers.Tokenizer.from_str(json.dumps(doc)).encode("abc")


@pytest.mark.parametrize("model, path, what", [
    ({"type": "Unigram", "vocab": [["a", 0.0]], "unk_id": 1}, "model.unk_id", "not an id"),
    ({"type": "Unigram", "vocab": [], "unk_id": None}, "model.vocab", "empty"),
    ({"type": "Unigram", "vocab": [["a", "x"]], "unk_id": None}, "model.vocab[0][1]", "number"),
    ({"type": "Unigram", "vocab": [["a", 0.0, 1]], "unk_id": None}, "model.vocab[0]", "pair"),
    ({"type": "Unigram", "vocab": [["a", 0.0]], "byte_fallback": None}, "model.byte_fallback", "true or false"),
    ({"type": "Unigram", "vocab": [["a", 0.0]], "unk_id": -1}, "model.unk_id", "integer"),
])
def test_bad_unigram_models(model, path, what):
    with pytest.raises(tokenmill.TokenmillError) as e:
        tokenmill.HFTokenizer.from_str(json.dumps(_doc(model=model)))
    assert str(e.value).startswith(path) and what in str(e.value), str(e.value)


def test_unigram_hf_semantics():
    # No unk_id: HF fails on a character without a piece, and so do we; an unknown key is refused.
    doc = _doc(model={"type": "Unigram", "vocab": [["▁", -1.0], ["a", -1.0]], "unk_id": None})
    tm, hf = tokenmill.HFTokenizer.from_str(json.dumps(doc)), tokenizers.Tokenizer.from_str(json.dumps(doc))
    assert tm.encode("a a") == hf.encode("a a").ids
    with pytest.raises(Exception, match="unk_id"):
        hf.encode("b")
    with pytest.raises(tokenmill.TokenmillError, match="unk_id"):
        tm.encode("b")
    with pytest.raises(tokenmill.UnsupportedError):
        tokenmill.HFTokenizer.from_str(json.dumps(_doc(model={"type": "Unigram", "vocab": [["a", 0.0]], "x": 1})))
    # A piece given twice: HF keeps both ids, the later one encodes; untyped (legacy) models too.
    model = {"vocab": [["<unk>", 0.0], ["▁", -1.0], ["a", -1.0], ["b", -2.0], ["a", -0.5]], "unk_id": 0}
    doc = _doc(model=model)
    tm, hf = tokenmill.HFTokenizer.from_str(json.dumps(doc)), tokenizers.Tokenizer.from_str(json.dumps(doc))
    for t in ["ab a", "xa", "aé"]:
        _check(tm, hf, t)
    assert tm.get_vocab_size() == hf.get_vocab_size() and tm.get_vocab() == hf.get_vocab()
    assert tm.token_to_id("a") == hf.token_to_id("a") == 4
    assert tm.id_to_token(2) == hf.id_to_token(2) == "a"
