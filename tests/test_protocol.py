"""The one `tokenmill.Tokenizer` interface, checked the same way on every family.

Each family is built small (a standard encoding, a trained byte-level BPE, and the three
string-vocabulary models) and run through the same checks: names and keyword meanings, the
relations between the methods (count == len(encode), offsets, batches, numpy), vocabulary
lookups both ways, special-token policy, the native document, files and pickling.
"""

from __future__ import annotations

import inspect
import pickle

import numpy as np
import pytest

import peers
import tokenmill
from tokenmill import DisallowedSpecialTokenError, Tokenizer, UnknownTokenError
from tokenmill.samples import sample_path

TEXT = sample_path().read_text(encoding="utf-8")[:3000]
WORDS = ["hello", "world", ",", "new", "line", "ok", "a", "it", "had", "always", "been", "surprise", "to", "me", ".", "gisburn", "'", "s", "-", "?", "x"]
SAMPLES = ["It had always been a surprise to me.", "hello  world,\nnew line", "", "a", "Gisburn's  --  ok?"]


def _hf_wordpiece():
    """A BERT-style tokenizer.json built with HF's own API, with <|endoftext|> as a special token."""
    from tokenizers import Tokenizer as HF, decoders, models, normalizers, pre_tokenizers, processors

    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "<|endoftext|>", *sorted(set(TEXT.lower().split()) | set(WORDS))])}
    hf = HF(models.WordPiece(vocab, unk_token="[UNK]"))
    hf.normalizer = normalizers.BertNormalizer()
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    hf.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                                      special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    hf.decoder = decoders.WordPiece()
    hf.add_special_tokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "<|endoftext|>"])
    return tokenmill.HFTokenizer.from_str(hf.to_str())


def _sentencepiece():
    """A Unigram model trained by sentencepiece itself, with <|endoftext|> as a control symbol."""
    import io

    import sentencepiece as spm

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(TEXT.splitlines() + [" ".join(WORDS)] * 3), model_writer=out,
                                   vocab_size=300, hard_vocab_limit=False, control_symbols=["<|endoftext|>"], minloglevel=2,
                                   num_threads=1)
    return tokenmill.SentencePiece.from_bytes(out.getvalue())


def _families():
    def trained_bpe():
        return tokenmill.train_bpe([TEXT], 400, special_tokens=("<|endoftext|>",), progress=False)

    def models(cls):
        return lambda: cls.train([TEXT + " hello world new line ok a"], special_tokens=("<|endoftext|>", "<|unk|>"))

    return {
        "gpt2": lambda: tokenmill.get_encoding("gpt2"),
        "trained_bpe": trained_bpe,
        "classic_bpe": models(tokenmill.ClassicBPE),
        "word": models(tokenmill.WordLevel),
        "char": models(tokenmill.CharLevel),
        "hf_gpt2": lambda: tokenmill.load(peers.shared_data() / "gpt2" / "tokenizer.json"),
        "hf_wordpiece": _hf_wordpiece,
        "sentencepiece": _sentencepiece,
        "wordpiece": lambda: tokenmill.WordPiece(
            {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "<|endoftext|>", *sorted(set(TEXT.lower().split()) | set(WORDS))])},
            {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "<|endoftext|>": 4},
        ),
    }


FAMILIES = _families()


@pytest.fixture(scope="module", params=list(FAMILIES))
def tok(request) -> Tokenizer:
    return FAMILIES[request.param]()


def test_is_a_tokenizer_with_the_same_keyword_names(tok):
    assert isinstance(tok, Tokenizer)
    for method, keywords in {
        "encode": ("allowed_special", "disallowed_special"),
        "encode_with_offsets": ("allowed_special", "disallowed_special"),
        "encode_batch": ("num_threads",),
        "decode": ("errors",),
        "decode_batch": ("errors", "num_threads"),
    }.items():
        params = inspect.signature(getattr(tok, method)).parameters
        for k in keywords:
            assert k in params or any(p.kind is p.VAR_KEYWORD for p in params.values()), (method, k)


def _plain(tok) -> dict:
    """Keywords that leave out post-processing ([CLS]/[SEP] of HF-style families), if any."""
    return {"add_special_tokens": False} if "add_special_tokens" in inspect.signature(tok.encode).parameters else {}


def test_encode_relations(tok):
    kw = _plain(tok)
    for text in SAMPLES:
        ids = tok.encode(text, **kw)
        assert tok.count(text, **kw) == len(ids)
        assert tok.encode_to_numpy(text, **kw).dtype == np.uint32 and tok.encode_to_numpy(text, **kw).tolist() == ids
        assert tok.encode_ordinary(text) == ids  # no special-token text in SAMPLES
        got, offsets = tok.encode_with_offsets(text, **kw)
        assert got == ids and len(offsets) == len(ids)
        assert offsets == sorted(offsets) and all(0 <= o <= max(len(text) - 1, 0) for o in offsets)
        assert all(0 <= i < tok.vocab_size for i in ids)
    assert tok.encode_batch(SAMPLES, num_threads=2) == [tok.encode(t) for t in SAMPLES]
    assert tok.encode_batch(SAMPLES, num_threads=2, **kw) == [tok.encode(t, **kw) for t in SAMPLES]
    assert tok.decode_batch([tok.encode(t) for t in SAMPLES]) == [tok.decode(tok.encode(t)) for t in SAMPLES]


def test_id_lists_are_plain_lists_and_the_collector_stays_on(tok):
    # Native batches pause the cyclic GC while they build lists and leave the lists untracked
    # (`intlist.rs`): what a user sees is an ordinary, mutable list and the GC back on.
    import gc

    kw = _plain(tok)
    batch = tok.encode_batch(SAMPLES * 100, **kw)
    assert gc.isenabled()
    ids = batch[0]
    ids.append(7)
    assert type(ids) is list and ids == [*tok.encode(SAMPLES[0], **kw), 7]


def test_native_id_lists_are_outside_the_cycle_collector():
    import gc

    enc = tokenmill.get_encoding("gpt2")
    for ids in [enc.encode(TEXT), *enc.encode_batch(SAMPLES * 100)[:3], *_hf_wordpiece().encode_batch(SAMPLES * 100)[:3]]:
        assert not gc.is_tracked(ids)


def test_decode_gives_the_words_back(tok):
    text = "It had always been a surprise to me."
    words = tok.decode(tok.encode(text)).replace(" ", "")
    assert words.lower() == text.replace(" ", "").lower()  # WordPiece lowercases


def test_vocabulary_lookups(tok):
    assert tok.vocab_size == tok.n_vocab
    ids = sorted(set(tok.encode(TEXT[:500], **_plain(tok))))
    for i in ids:
        assert tok.token_to_id(tok.token_bytes(i)) == i
        text = tok.id_to_token(i)
        assert isinstance(text, str)
        if "\ufffd" not in text:
            assert tok.token_to_id(text) == i
    with pytest.raises(UnknownTokenError):
        tok.token_to_id("no such token \u2603\u2603\u2603 at all")
    assert isinstance(tok.training, dict)


def test_special_token_policy(tok):
    specials = tok.special_tokens
    assert isinstance(specials, dict) and "<|endoftext|>" in specials
    eot = specials["<|endoftext|>"]
    text = "a<|endoftext|>"
    kw = _plain(tok)
    assert tok.encode(text, allowed_special="all", **kw)[-1] == eot
    assert tok.encode(text, allowed_special={"<|endoftext|>"}, **kw)[-1] == eot
    with pytest.raises(DisallowedSpecialTokenError):
        tok.encode(text, allowed_special=set(), disallowed_special="all")
    assert eot not in tok.encode(text, allowed_special=set(), disallowed_special=())
    assert eot not in tok.encode_ordinary(text)
    assert tok.token_to_id("<|endoftext|>") == eot


def test_native_document_files_and_pickling(tok, tmp_path):
    d = tok.to_dict()
    assert d["format"] == "tokenmill" and d["version"] == 1 and d["model"]["type"] == tok.model_type
    again = [
        Tokenizer.from_dict(d),
        type(tok).from_dict(d),
        pickle.loads(pickle.dumps(tok)),
    ]
    tok.save(tmp_path / "t.json")
    again.append(tokenmill.load(tmp_path / "t.json"))
    again.append(Tokenizer.load(tmp_path / "t.json"))
    assert tok.export("tokenmill", tmp_path / "u.json") == [tmp_path / "u.json"]
    again.append(tokenmill.load(tmp_path / "u.json"))
    for other in again:
        assert type(other) is type(tok)
        assert [other.encode(t, allowed_special="all") for t in SAMPLES + ["x<|endoftext|>"]] == [
            tok.encode(t, allowed_special="all") for t in SAMPLES + ["x<|endoftext|>"]
        ]
        assert other.special_tokens == tok.special_tokens and other.vocab_size == tok.vocab_size


def test_export_formats_say_which_families_they_hold(tok, tmp_path):
    if isinstance(tok, (tokenmill.Encoding, tokenmill.HFTokenizer, tokenmill.WordPiece)):
        assert [p.name for p in tok.export("hf", tmp_path / "tokenizer.json")] == ["tokenizer.json"]
    else:
        with pytest.raises(ValueError, match="byte-level BPE"):
            tok.export("hf", tmp_path / "tokenizer.json")
    with pytest.raises(ValueError, match="unknown export format"):
        tok.export("nope", tmp_path / "x")


def test_model_types_are_registered():
    assert sorted(tokenmill.tokenizer.model_types()) == ["byte_bpe", "char", "classic_bpe", "huggingface", "sentencepiece", "word", "wordpiece"]
