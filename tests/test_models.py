"""The text-level models in `tokenmill.models` (classic BPE, word level, char level): training
rules, round trips on the-verdict, the native file format and its errors, bad arguments."""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys

import pytest

import peers
from tokenmill.errors import (
    SpecialTokenError,
    TokenIdError,
    TokenmillError,
    TrainingError,
    UnknownTokenError,
    VocabFormatError,
)
from tokenmill.models import CharLevel, ClassicBPE, Tokenizer, WordLevel, load_tokenizer_dict
from tokenmill.models import classic_bpe as classic_bpe_module

SENNRICH = ["low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3]
BOOK_TEXT = "Hello, do you like tea? <|endoftext|> In the sunlit terraces of the palace."
MODELS = [ClassicBPE, WordLevel, CharLevel]


@pytest.fixture(scope="module")
def verdict() -> str:
    # Bytes, then decode: read_text would turn CRLF into LF.
    return (peers.shared_data() / "the-verdict.txt").read_bytes().decode("utf-8")


@pytest.fixture(scope="module")
def trained(verdict):
    """One tokenizer of each model trained on the-verdict (BPE kept small: the reference
    merge loop is pure Python)."""
    return {
        ClassicBPE: ClassicBPE.train([verdict], 300),
        WordLevel: WordLevel.train([verdict]),
        CharLevel: CharLevel.train([verdict]),
    }


# ------------------------------------------------------------------------------ round trips


def test_char_round_trip_is_exact(trained, verdict):
    tok = trained[CharLevel]
    ids = tok.encode(verdict)
    assert len(ids) == len(verdict)
    assert tok.decode(ids) == verdict
    assert tok.unk_token == "<|unk|>" and tok.vocab_size == len(set(verdict)) + 1


def test_word_round_trip_up_to_whitespace(trained, verdict):
    tok = trained[WordLevel]
    ids = tok.encode(verdict)
    assert tok.token_to_id("<|unk|>") not in ids
    text = tok.decode(ids)
    # Documented: the words and punctuation come back, the spacing does not.
    assert re.sub(r"\s+", "", text) == re.sub(r"\s+", "", verdict)
    assert tok.encode(text) == ids


def test_classic_bpe_round_trip_gives_the_words_back(trained, verdict):
    tok = trained[ClassicBPE]
    ids = tok.encode(verdict)
    assert tok.decode(ids) == " ".join(re.findall(classic_bpe_module.DEFAULT_PATTERN, verdict))
    assert len(ids) < len(verdict) // 2  # 300 tokens already compress the text


# ----------------------------------------------------------------------------- classic BPE


def test_sennrich_example_by_hand():
    # Ids: <|unk|> 0, then the symbols sorted by string: d e i l n o r</w> s t</w> w w</w> = 1..11.
    # Pair counts: (e,s) 9 and (s,t</w>) 9 tie -> smaller ids (2,8) wins: "es" (12).
    # Then (es,t</w>) 9 -> 13; (l,o) 7 -> 14; (n,e) (e,w) (w,est</w>) tie at 6 -> (2,10) "ew";
    # (n,ew) (ew,est</w>) tie at 6 -> (5,15) "new"; (new,est</w>) 6; (lo,w</w>) 5;
    # (w,i) (i,d) (d,est</w>) tie at 3 -> (1,13) "dest</w>".
    tok = ClassicBPE.train(SENNRICH, 20)
    assert tok.merges == [
        ("e", "s"),
        ("es", "t</w>"),
        ("l", "o"),
        ("e", "w"),
        ("n", "ew"),
        ("new", "est</w>"),
        ("lo", "w</w>"),
        ("d", "est</w>"),
    ]
    symbols = ["d", "e", "i", "l", "n", "o", "r</w>", "s", "t</w>", "w", "w</w>"]
    new = ["es", "est</w>", "lo", "ew", "new", "newest</w>", "low</w>", "dest</w>"]
    assert list(tok.vocab) == ["<|unk|>"] + symbols + new
    assert list(tok.vocab.values()) == list(range(20))
    assert [tok.id_to_token(i) for i in tok.encode("lowest")] == ["lo", "w", "est</w>"]
    assert [tok.id_to_token(i) for i in tok.encode("newest widest")] == ["newest</w>", "w", "i", "dest</w>"]
    assert tok.decode(tok.encode("lowest newer")) == "lowest newer"


def test_end_of_word_marker():
    tok = ClassicBPE.train(["aaa"])
    assert tok.merges == [("a", "a"), ("aa", "a</w>")]
    # "a" inside a word and "a" ending a word are different tokens.
    assert tok.encode("a aa") == [tok.token_to_id("a</w>"), tok.token_to_id("a"), tok.token_to_id("a</w>")]
    assert tok.decode(tok.encode("aaa aa a")) == "aaa aa a"
    # A sequence cut before the marker still decodes its last, unfinished word.
    assert tok.decode([tok.token_to_id("aa")]) == "aa"
    assert tok.decode([tok.token_to_id("a"), tok.token_to_id("<|unk|>")]) == "a <|unk|>"


def test_custom_end_of_word_and_pattern():
    tok = ClassicBPE.train(["foo.bar foo.bar"], end_of_word="@@", pattern=r"\S+")
    assert tok.end_of_word == "@@" and tok.pattern == r"\S+"
    assert tok.encode("foo.bar") == [tok.token_to_id("foo.bar@@")]
    assert tok.decode(tok.encode("foo.bar  foo.bar")) == "foo.bar foo.bar"


def test_merge_into_an_existing_token():
    # Marker "#" and a word "a#..." spell the pair ("a", "#") as "a#", which is already the
    # token of a word-final "a": the merge reuses that id, so merges outnumber new tokens.
    corpus = ["a#b a#c a#d a"]
    tok = ClassicBPE.train(corpus, 8, end_of_word="#", pattern=r"\S+")
    assert tok.merges[0] == ("a", "#")
    base = 1 + len({"#", "a", "a#", "b#", "c#", "d#"})
    assert tok.vocab_size == 8 == base + 1
    assert len(tok.merges) == 2
    assert tok.merges[1] == ("a#", "b#")
    assert tok.encode("a#c") == [tok.token_to_id("a#"), tok.token_to_id("c#")]
    assert ClassicBPE.from_dict(tok.to_dict()).encode("a#b a#c a") == tok.encode("a#b a#c a")


def test_unknown_characters():
    tok = ClassicBPE.train(["low lower"])
    unk = tok.token_to_id("<|unk|>")
    assert [tok.id_to_token(i) for i in tok.encode("lox")] == ["lo", "<|unk|>"]
    assert tok.encode("xlow") == [unk, tok.token_to_id("low</w>")]
    strict = ClassicBPE.train(["low lower"], special_tokens=[])
    assert strict.unk_token is None
    with pytest.raises(UnknownTokenError, match=r"character 'x' at the end of word 'lox'.*'<\|unk\|>'") as e:
        strict.encode("lox")
    assert isinstance(e.value, KeyError) and isinstance(e.value, TokenmillError)
    with pytest.raises(UnknownTokenError, match="character 'z' in word 'zlow'"):
        strict.encode("zlow")


def test_vocab_size_reached_exactly():
    base = ClassicBPE.train(SENNRICH, 12).vocab_size
    assert base == 12 and ClassicBPE.train(SENNRICH, 12).merges == []
    for n in (13, 17, 25):
        tok = ClassicBPE.train(SENNRICH, n)
        assert tok.vocab_size == n == len(tok.vocab)
    # Pairs run out: every word is one token, the vocabulary stops short.
    tok = ClassicBPE.train(SENNRICH, 1000)
    assert tok.vocab_size < 1000
    assert all(len(tok.encode(w)) == 1 for w in ("low", "lower", "newest", "widest"))
    assert ClassicBPE.train(SENNRICH).to_dict()["model"] == tok.to_dict()["model"]


def test_min_frequency():
    tok = ClassicBPE.train(SENNRICH, min_frequency=6)
    # Stops before (lo, w</w>), which occurs 5 times.
    assert tok.merges == [("e", "s"), ("es", "t</w>"), ("l", "o"), ("e", "w"), ("n", "ew"), ("new", "est</w>")]
    assert ClassicBPE.train(SENNRICH, min_frequency=10).merges == []
    assert ClassicBPE.train(SENNRICH, 15, min_frequency=6).merges == tok.merges[:3]


def test_training_is_deterministic_across_hash_seeds():
    corpus = ["the quick brown fox jumps over the lazy dog; the dog sleeps, the fox runs. " * 3, "ab ba abab baba"]
    here = ClassicBPE.train(corpus, 60).to_json_bytes()
    code = (
        "import sys, tokenmill.models as m; "
        f"sys.stdout.buffer.write(m.ClassicBPE.train({corpus!r}, 60).to_json_bytes())"
    )
    for seed in ("1", "12345"):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, check=True, env={**os.environ, "PYTHONHASHSEED": seed}
        ).stdout
        assert out == here


def test_learn_merges_is_the_one_call_into_the_trainer(monkeypatch):
    calls = []
    real = classic_bpe_module._learn_merges

    def spy(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(classic_bpe_module, "_learn_merges", spy)
    ClassicBPE.train(SENNRICH, 14)
    assert len(calls) == 1
    words, token_bytes, n_new, min_frequency, next_id = calls[0]
    assert (n_new, min_frequency, next_id) == (2, 1, 12)
    assert token_bytes[11] == b"w</w>"


def test_encode_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(classic_bpe_module, "_CACHE_SIZE", 3)
    tok = ClassicBPE.train(SENNRICH)
    want = [tok.encode(w) for w in ("low", "lower", "newest", "widest", "lowest")]
    assert [tok.encode(w) for w in ("low", "lower", "newest", "widest", "lowest")] == want
    assert len(tok._cache) <= 3


# ------------------------------------------------------------------------------ word level


def test_word_level_book_example(trained):
    tok = trained[WordLevel]
    assert tok.vocab_size == 1132  # 1130 words + <|endoftext|> + <|unk|>, as in the book
    assert list(tok.special_tokens.items()) == [("<|endoftext|>", 1130), ("<|unk|>", 1131)]
    ids = tok.encode(BOOK_TEXT)
    assert ids == [1131, 5, 355, 1126, 628, 975, 10, 1130, 55, 988, 956, 984, 722, 988, 1131, 7]
    assert tok.decode(ids) == "<|unk|>, do you like tea? <|endoftext|> In the sunlit terraces of the <|unk|>."


def test_word_level_documents(trained):
    tok = trained[WordLevel]
    a, b = "Hello, do you like tea?", "In the sunlit terraces of the palace."
    assert tok.encode_documents([a, b]) == tok.encode(" <|endoftext|> ".join([a, b]))
    assert tok.encode_documents(iter([a])) == tok.encode(a)
    with pytest.raises(SpecialTokenError, match="'<sep>' is not a special token"):
        tok.encode_documents([a, b], separator="<sep>")
    with pytest.raises(TypeError, match="not a single str"):
        tok.encode_documents(a)


def test_word_level_custom_pattern():
    tok = WordLevel.train(["a-b c-d, a-b"], pattern=r"(-|\s)")
    assert tok.split("a-b c-d,") == ["a", "-", "b", "c", "-", "d,"]
    assert list(tok.vocab)[:5] == ["-", "a", "b", "c", "d,"]
    assert tok.pattern == r"(-|\s)"
    assert tok.decode(tok.encode("a-b")) == "a - b"
    assert WordLevel.train(["a-b"]).split("a-b") == ["a-b"]


def test_word_level_vocab_size_and_min_frequency():
    corpus = ["b b b a a c c d"]
    assert list(WordLevel.train(corpus, 4).vocab) == ["a", "b", "<|endoftext|>", "<|unk|>"]  # tie a/c: a
    assert list(WordLevel.train(corpus, min_frequency=2).vocab) == ["a", "b", "c", "<|endoftext|>", "<|unk|>"]
    assert WordLevel.train(corpus, 100).vocab_size == 6
    with pytest.raises(TrainingError, match="no '<\\|unk\\|>' special token"):
        WordLevel.train(corpus, 3, special_tokens=["<|endoftext|>"])


def test_word_level_unknown_without_unk():
    tok = WordLevel.train(["a b"], special_tokens=["<|endoftext|>"])
    with pytest.raises(UnknownTokenError, match="word 'c' is not in the vocabulary.*'<\\|unk\\|>'"):
        tok.encode("a c")


# ------------------------------------------------------------------------------ char level


def test_char_level():
    tok = CharLevel.train(["hello", "world"])
    assert list(tok.vocab) == ["d", "e", "h", "l", "o", "r", "w", "<|unk|>"]
    assert tok.decode(tok.encode("hello world")) == "hello<|unk|>world"
    assert CharLevel.train(["aab"], 2, special_tokens=["<|unk|>"]).vocab == {"a": 0, "<|unk|>": 1}
    strict = CharLevel.train(["ab"], special_tokens=[])
    with pytest.raises(UnknownTokenError, match=r"character 'c' \(U\+0063"):
        strict.encode("abc")
    emoji = CharLevel.train(["héllo 👋\r\n"])
    assert emoji.decode(emoji.encode("👋 héllo\r\n")) == "👋 héllo\r\n"


def test_special_tokens_in_text():
    tok = CharLevel.train(["ab"], special_tokens=["<|endoftext|>", "<|unk|>"])
    eot = tok.token_to_id("<|endoftext|>")
    assert tok.encode("a<|endoftext|>b") == [0, eot, 1]
    assert eot not in tok.encode_ordinary("a<|endoftext|>b")
    # The corpus's literal special tokens are cut out, never counted as characters.
    assert CharLevel.train(["a<|unk|>"]).vocab == {"a": 0, "<|unk|>": 1}


# -------------------------------------------------------------------------- shared surface


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_save_load_round_trip(cls, trained, verdict, tmp_path):
    tok = trained[cls]
    p = tmp_path / "tok.json"
    tok.save(p)
    for loaded in (cls.load(p), Tokenizer.load(str(p)), load_tokenizer_dict(json.loads(p.read_text("utf-8")))):
        assert type(loaded) is cls
        assert loaded.to_dict() == tok.to_dict()
        assert loaded.encode(verdict[:2000]) == tok.encode(verdict[:2000])
    assert cls.load(p).to_json_bytes() == p.read_bytes()  # the same bytes every time
    assert pickle.loads(pickle.dumps(tok)).to_dict() == tok.to_dict()
    d = json.loads(p.read_text("utf-8"))
    assert d["format"] == "tokenmill" and d["version"] == 1 and d["model"]["type"] == cls.model_type
    assert set(d) == {"format", "version", "model", "special_tokens", "training"}


def test_merges_are_stored_as_pairs(trained):
    merges = trained[ClassicBPE].to_dict()["model"]["merges"]
    assert all(isinstance(m, list) and len(m) == 2 for m in merges)


def test_load_checks_the_model_type(trained, tmp_path):
    p = tmp_path / "word.json"
    trained[WordLevel].save(p)
    with pytest.raises(VocabFormatError, match="holds a 'word' model"):
        CharLevel.load(p)


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_token_to_id_and_id_to_token(cls, trained):
    tok = trained[cls]
    for t, i in list(tok.vocab.items())[:50] + list(tok.special_tokens.items()):
        assert tok.token_to_id(t) == i and tok.id_to_token(i) == t
    with pytest.raises(UnknownTokenError, match="'no such token' is not a token") as e:
        tok.token_to_id("no such token")
    assert isinstance(e.value, KeyError)
    for bad in (-1, tok.vocab_size, True):
        with pytest.raises(TokenIdError) as e:
            tok.id_to_token(bad)
        assert isinstance(e.value, IndexError) and isinstance(e.value, ValueError)
    with pytest.raises(TypeError, match="must be an int"):
        tok.id_to_token("3")
    with pytest.raises(TokenIdError, match="at position 1"):
        tok.decode([0, tok.vocab_size])
    with pytest.raises(TypeError, match="sequence of int"):
        tok.decode("01")


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_immutable(cls, trained):
    tok = trained[cls]
    with pytest.raises(AttributeError, match="immutable"):
        tok._vocab = {}
    with pytest.raises(AttributeError, match="immutable"):
        tok.vocab = {}
    v = tok.vocab
    v.clear()
    assert tok.vocab_size == len(tok.vocab) > 0
    assert tok.encode_batch(["a b", ""]) == [tok.encode("a b"), []]


def test_constructor_validation():
    with pytest.raises(VocabFormatError, match=r"vocab\['b'\]: id 5 is out of range"):
        CharLevel({"a": 0, "b": 5})
    with pytest.raises(VocabFormatError, match="id 0 is already used by 'a'"):
        CharLevel({"a": 0, "b": 0, "c": 1})
    with pytest.raises(VocabFormatError, match="one character"):
        CharLevel({"ab": 0})
    with pytest.raises(SpecialTokenError, match="unk_token '<unk>' is not a special token"):
        WordLevel({"a": 0}, unk_token="<unk>")
    with pytest.raises(VocabFormatError, match=r"merges\[0\]: the merged token 'ab' is not in vocab"):
        ClassicBPE({"a": 0, "b</w>": 1, "b": 2}, [("a", "b")])
    # A vocab that repeats the special tokens with the same ids is accepted (e.g. `tok.vocab`).
    tok = CharLevel.train(["ab"])
    again = CharLevel(tok.vocab, tok.special_tokens, unk_token="<|unk|>", training=tok.training)
    assert again.to_dict() == tok.to_dict()


# ---------------------------------------------------------------------------- file errors


def _write(tmp_path, d) -> str:
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(d) if not isinstance(d, str) else d, "utf-8")
    return str(p)


def _bpe_dict():
    return ClassicBPE.train(SENNRICH, 20).to_dict()


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda d: d.update(format="hf"), r"format: expected 'tokenmill', got 'hf'"),
        (lambda d: d.pop("format"), r"format: missing"),
        (lambda d: d.update(version=2), r"version: unsupported version 2.*newer tokenmill"),
        (lambda d: d.update(version="1"), r"version: expected an integer, got string"),
        (lambda d: d["model"].update(type="bpe2"), r"model.type: unknown model type 'bpe2'; known types: .*'char'"),
        (lambda d: d["model"].pop("merges"), r"model.merges: missing \(expected an array\) \(tokenmill 'classic_bpe' model\)"),
        (lambda d: d["model"]["merges"].__setitem__(3, "e w"), r"model.merges\[3\]: expected a pair of strings, got 'e w'.*'classic_bpe'"),
        (lambda d: d["model"]["merges"].__setitem__(0, ["e", "zz"]), r"model.merges\[0\]: right token 'zz' is not in model.vocab"),
        (lambda d: d["model"].update(pattern="("), r"model.pattern: '\(' does not compile"),
        (lambda d: d["model"].update(unk_token=3), r"model.unk_token: expected a string or null"),
        (lambda d: d["model"].update(merge=[]), r"model.merge: unknown field"),
        (lambda d: d["model"]["vocab"].update(x=99), r"model.vocab\['x'\]: id 99 is out of range"),
        (lambda d: d["special_tokens"].update({"<|unk|>": 5}), r"id 5 is already used|differs"),
        (lambda d: d.pop("special_tokens"), r"special_tokens: missing"),
        (lambda d: d.update(training=[]), r"training: expected an object"),
    ],
)
def test_bad_files(tmp_path, edit, match):
    d = _bpe_dict()
    edit(d)
    p = _write(tmp_path, d)
    with pytest.raises(VocabFormatError, match=match) as e:
        Tokenizer.load(p)
    assert e.value.path == p and str(e.value).startswith(p + ": ")
    with pytest.raises(VocabFormatError, match=match):
        load_tokenizer_dict(d)


def test_bad_json_files(tmp_path):
    with pytest.raises(VocabFormatError, match=r":3: invalid JSON") as e:
        Tokenizer.load(_write(tmp_path, '{\n "format": "tokenmill",\n "version": 1,,\n}'))
    assert e.value.line == 3
    with pytest.raises(VocabFormatError, match="duplicate key 'a'"):
        Tokenizer.load(_write(tmp_path, '{"format": "tokenmill", "version": 1, "model": {"type": "char", "vocab": {"a": 0, "a": 1}}}'))
    with pytest.raises(VocabFormatError, match="top level"):
        Tokenizer.load(_write(tmp_path, "[1, 2]"))
    with pytest.raises(VocabFormatError, match="Hugging Face"):
        Tokenizer.load(_write(tmp_path, {"version": "1.0", "model": {"type": "BPE"}, "added_tokens": []}))
    p = tmp_path / "latin1.json"
    p.write_bytes(b'{"format": "tokenmill\xff"}')
    with pytest.raises(VocabFormatError, match="not valid UTF-8"):
        Tokenizer.load(p)
    with pytest.raises(FileNotFoundError):
        Tokenizer.load(tmp_path / "missing.json")
    with pytest.raises(VocabFormatError, match="bad.json: model.vocab"):
        load_tokenizer_dict({"format": "tokenmill", "version": 1, "model": {"type": "char"}, "special_tokens": {}}, "bad.json")


# ------------------------------------------------------------------------ training errors


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_training_argument_errors(cls):
    for empty in ([], [""], iter([])):
        with pytest.raises(TrainingError, match="the corpus has no"):
            cls.train(empty)
    if cls is not CharLevel:
        with pytest.raises(TrainingError, match="the corpus has no words"):
            cls.train([" \n\t ", ""])
    with pytest.raises(TypeError, match=r"not a single str; wrap it in a list"):
        cls.train("some text")
    with pytest.raises(TypeError, match=r"corpus\[1\] is bytes"):
        cls.train(["ok", b"bytes"])
    with pytest.raises(TypeError, match="must be an iterable"):
        cls.train(42)
    with pytest.raises(SpecialTokenError, match="duplicate special token '<|unk|>'"):
        cls.train(["a"], special_tokens=["<|unk|>", "<|x|>", "<|unk|>"])
    with pytest.raises(SpecialTokenError, match="empty string"):
        cls.train(["a"], special_tokens=[""])
    with pytest.raises(TypeError, match=r"special_tokens=\['<\|unk\|>'\]"):
        cls.train(["a"], special_tokens="<|unk|>")
    for bad in (0, -5):
        with pytest.raises(TrainingError, match="too small"):
            cls.train(["a"], bad)
    with pytest.raises(TypeError, match="vocab_size must be an int"):
        cls.train(["a"], "100")
    with pytest.raises(TrainingError, match="min_frequency=-1"):
        cls.train(["a"], min_frequency=-1)
    with pytest.raises(TrainingError, match="too small") as e:
        cls.train(["abc"], 2, special_tokens=["<|endoftext|>", "<|unk|>"])
    assert isinstance(e.value, ValueError) and isinstance(e.value, TokenmillError)


def test_classic_bpe_vocab_size_too_small_says_the_minimum():
    with pytest.raises(TrainingError, match=r"vocab_size=11 is too small.*1 special token and 11 initial symbols.*vocab_size >= 12"):
        ClassicBPE.train(SENNRICH, 11)


def test_generator_corpus_and_training_metadata():
    tok = WordLevel.train(d for d in ["a b", "b c"])
    assert tok.training == {"vocab_size": None, "min_frequency": 1, "documents": 2, "words": 4, "unique_words": 3}
    assert ClassicBPE.train(iter(SENNRICH), 14).training["unique_words"] == 4


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_pathological_inputs_stay_fast(cls, trained):
    tok = trained[cls]
    for text in ("x" * 1_000_000, " " * 200_000 + "a", "1" * 100_000, "a, " * 100_000):
        ids = tok.encode(text)
        assert isinstance(ids, list) and len(ids) <= len(text)
    assert tok.encode("") == [] and tok.decode([]) == ""
