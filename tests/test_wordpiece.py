"""The WordPiece family (`tokenmill.models.wordpiece`): the same ids, offsets and decoded text as
Hugging Face `tokenizers` on bert-base-uncased, with and without special tokens; vocab.txt read
by content and written back; every part of the Tokenizer interface."""

from __future__ import annotations

import gzip
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import peers
import tokenmill
from tokenmill.models import WordPiece

tokenizers = pytest.importorskip("tokenizers")


@pytest.fixture(scope="module")
def bert_dir():
    return peers.shared_data() / "hf" / "bert-base-uncased"


@pytest.fixture(scope="module")
def pair(bert_dir):
    hf = tokenizers.Tokenizer.from_file(str(bert_dir / "tokenizer.json"))
    hf.no_padding()  # the file pads and truncates at 128; compare the plain encodings
    hf.no_truncation()
    return tokenmill.load(bert_dir / "vocab.txt"), hf


def _texts():
    data = peers.shared_data() / "corpus"
    lines = (data / "botchan.txt").read_text(encoding="utf-8").splitlines()[:1500]
    for lang in ("en-US", "fr-FR", "ja-JP", "zh-CN"):
        with gzip.open(data / f"debian-handbook.{lang}.txt.gz", "rt", encoding="utf-8") as f:
            lines += [line for line, _ in zip(f, range(400)) if line.strip()]
    return lines + [
        "[CLS] hello [SEP]", "a[MASK]b", "[MASK][MASK]", "[mask] is not special", "Héllo, WORLD!! don't", "naïve café 東京 👍🏽",
        "", "   ", "\t\n", "x" * 150, "unaffable" * 20, "\x00\ufffd\u200b control", "I'm here; he's (not) there.",
    ]


def test_loaded_by_content_with_the_configs_options(pair):
    tok, _ = pair
    assert isinstance(tok, WordPiece) and isinstance(tok, tokenmill.Tokenizer)
    assert tok.vocab_size == 30522 and tok.special_tokens == {"[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103}
    assert tok.options["lowercase"] is True and tok.unk_token == "[UNK]"


@pytest.mark.parametrize("add_special_tokens", [True, False])
def test_same_ids_offsets_and_decode_as_hf(pair, add_special_tokens):
    tok, hf = pair
    bad = []
    for text in _texts():
        want = hf.encode(text, add_special_tokens=add_special_tokens)
        ids, starts = tok.encode_with_offsets(text, add_special_tokens=add_special_tokens)
        if ids != want.ids or starts != [s for s, _ in want.offsets] or tok.decode(ids) != hf.decode(want.ids):
            bad.append(text)
        assert tok.encode(text, add_special_tokens=add_special_tokens) == ids
    assert not bad, bad[:5]
    texts = _texts()
    assert tok.encode_batch(texts, num_threads=2, add_special_tokens=add_special_tokens) == [
        e.ids for e in hf.encode_batch(texts, add_special_tokens=add_special_tokens)
    ]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60) | st.text(alphabet="aéB.,'[]MASK#\u4e2d \t\n", max_size=60))
def test_hypothesis_text_matches_hf(pair, text):
    tok, hf = pair
    want = hf.encode(text)
    assert tok.encode(text) == want.ids
    assert tok.decode(want.ids, skip_special_tokens=False) == hf.decode(want.ids, skip_special_tokens=False)


def test_decoder_matches_hf_on_token_sequences(pair):
    tok, hf = pair
    for words in (["it", "'", "s"], ["##a", "b", "##c"], ["he", "'", "s", "."], ["don", "'", "t"], ["a", "?", "!", ","], ["[CLS]", "x", "[SEP]"]):
        ids = [tok.token_to_id(w) for w in words]
        assert tok.decode(ids, skip_special_tokens=False) == hf.decode(ids, skip_special_tokens=False)


def test_files_round_trip(pair, tmp_path):
    tok, _ = pair
    text = "Tokenizers split unaffable words, don't they?"
    assert [p.name for p in tok.export("vocab.txt", tmp_path / "vocab.txt")] == ["vocab.txt"]
    assert (tmp_path / "vocab.txt").read_bytes() == (peers.shared_data() / "hf" / "bert-base-uncased" / "vocab.txt").read_bytes()
    tok.save(tmp_path / "bert.json")
    for other in (tokenmill.load(tmp_path / "vocab.txt"), tokenmill.load(tmp_path / "bert.json"), pickle.loads(pickle.dumps(tok))):
        assert type(other) is WordPiece and other.encode(text) == tok.encode(text)


def test_bad_vocab_files_name_the_line(tmp_path):
    p = tmp_path / "vocab.txt"
    p.write_text("[UNK]\nhello\n##s\nhello\n", encoding="utf-8")
    with pytest.raises(tokenmill.VocabFormatError, match=r"vocab.txt:4: token 'hello' is listed twice"):
        tokenmill.load(p)
    p.write_text("[PAD]\nhello\n##s\n", encoding="utf-8")
    with pytest.raises(tokenmill.TokenmillError, match=r"\[UNK\]"):
        tokenmill.load(p)


def test_batches_with_special_text_nuls_and_split_specials_equal_single_encodes():
    tok = WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "[MASK]": 3, "a": 4, "b": 5})
    docs = ["a\0b", "a[MASK]", "b", "\0\0[MASK]", "", "[MA", "SK]", "a b"]
    for kw in ({}, {"add_special_tokens": False}, {"allowed_special": set(), "disallowed_special": ()}):
        assert tok.encode_batch(docs, num_threads=2, **kw) == [tok.encode(d, **kw) for d in docs]
    with pytest.raises(tokenmill.DisallowedSpecialTokenError):
        tok.encode_batch(docs, allowed_special=set(), disallowed_special="all")


def test_bad_input_gets_tokenmill_errors(tmp_path, pair):
    tok, _ = pair
    cases = {
        "utf8.txt": (b"[UNK]\n\xff\xfe\n##s\n", r"utf8.txt: not valid UTF-8 at byte 6"),
        "blank.txt": (b"[UNK]\n\n##s\n", r"blank.txt:2: empty line"),
        "empty.txt": (b"", r"empty.txt: the file is empty"),
    }
    for name, (data, match) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(tokenmill.VocabFormatError, match=match):
            tokenmill.load(tmp_path / name)
    with pytest.raises(tokenmill.TokenIdError):
        tok.decode([10**9])
    with pytest.raises(TypeError, match="str"):
        tok.encode(b"bytes")


def test_surrogates_nuls_and_huge_inputs(pair):
    tok, hf = pair
    # Lone surrogates are repaired as tiktoken does (U+FFFD), on every path.
    assert tok.encode("a\ud800b") == tok.encode("a\ufffdb") == hf.encode("a\ufffdb").ids
    assert tok.encode_batch(["x\udfff y", "ok"]) == [tok.encode("x\ufffd y"), tok.encode("ok")]
    assert tok.encode_with_offsets("a\ud800 b")[0] == tok.encode("a\ufffd b")
    for text in ("x" * 1_000_000, " " * 1_000_000, "a." * 500_000, "\0" * 100_000, "9" * 1_000_000,
                 # the one-pass path's non-ASCII classes: accents, CJK, kana + mark, kept marks
                 "é" * 300_000, "中" * 300_000, "か\u3099" * 100_000, "a\U0001d165" * 50_000, "\u3000" * 200_000):
        ids = tok.encode(text, add_special_tokens=False)
        assert ids == hf.encode(text, add_special_tokens=False).ids


# Characters from each class the one-pass BERT path tells apart (crates/tokenmill-core/src/pipeline/
# bert_fused.rs): controls and Unicode spaces, precomposed and decomposed accents, marks (U+1D165 is
# a kept combining mark: the staged path), CJK common/compatibility/supplementary, kana with voicing
# marks, Hangul, İ, Σ, ligatures, emoji, private use, zero-width.
_CLASSES = ("aZ1 \t\n\r\x0b\x01\x7f!#?.'é\u0301\u0323ÄñΣİß\ufb01Ⅻ٣\x85\u00a0\u3000\u200b\ue000\ufffd\x00"
            "\U0001d165中\uf900\U00020001がか\u3099ア한😀«—")


@pytest.fixture(scope="module")
def option_pairs(bert_dir):
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    vocab = str(bert_dir / "vocab.txt")
    out = []
    for clean, chinese, strip, lower in [(True, True, None, True), (True, True, None, False), (False, False, True, False),
                                         (True, False, False, True), (False, True, True, True)]:
        hf = Tokenizer(models.WordPiece.from_file(vocab, unk_token="[UNK]", max_input_chars_per_word=12))
        hf.normalizer = normalizers.BertNormalizer(clean_text=clean, handle_chinese_chars=chinese, strip_accents=strip,
                                                   lowercase=lower)
        hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok = tokenmill.models.HFTokenizer.from_str(hf.to_str())
        assert tok.pretokenizer == "bert"  # the one-pass path
        out.append((tok, hf))
    return out


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=_CLASSES, max_size=40) | st.text(max_size=40))
def test_one_pass_path_matches_hf_for_every_normalizer_option(option_pairs, text):
    for tok, hf in option_pairs:
        want = hf.encode(text, add_special_tokens=False)
        assert tok.encode(text, add_special_tokens=False) == want.ids, hf.normalizer.__getstate__()
        assert tok.encode_batch([text, text], add_special_tokens=False, num_threads=1) == [want.ids] * 2
        assert tok.encode_full(text, add_special_tokens=False).offsets == want.offsets
