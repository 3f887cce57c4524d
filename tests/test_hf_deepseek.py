"""DeepSeek V3 / R1-style ``tokenizer.json`` on tokenmill's byte-level fast path, against HF.

DeepSeek V3's pre-tokenizer is a sequence of three ``Isolated`` regex splits (digit groups,
CJK/kana runs, then a cl100k-like regex with marks and ``\\p{P}``/``\\p{S}``) before a
``ByteLevel`` without regex. tokenmill recognizes that exact sequence and runs it on a
hand-written matcher (``pretokenizer == "deepseek_v3"``). The checks:

- the matcher's pieces against HF's own ``pre_tokenize_str`` on the same splits (hand-picked,
  random and hypothesis text, every shared corpus);
- the Unicode classes the matcher uses against Oniguruma's (HF's regex engine), code point by
  code point;
- whole files built with HF's Python API (o200k's and GPT-2's vocabularies with this
  pre-tokenizer, ``ignore_merges`` off and on): ids, tokens and offsets as HF's;
- files that differ from DeepSeek's in any part of the sequence keep the general pipeline.
"""

from __future__ import annotations

import gzip
import json
import random

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, normalizers, pre_tokenizers

import peers
import tokenmill
from conftest import hyp_examples
from test_hf_json import HARD, assert_same, corpus_lines
from tokenmill import _core

# The three split regexes as DeepSeek V3's tokenizer.json spells them (the JSON string values).
DS_DIGITS = "\\p{N}{1,3}"
DS_CJK = "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"
DS_MAIN = ("[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+|"
           " ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+")
DS_SPLITS = [DS_DIGITS, DS_CJK, DS_MAIN]

# DeepSeek V3's pre_tokenizer, as in its tokenizer.json.
DS_PRE_JSON = {"type": "Sequence", "pretokenizers": [
    *({"type": "Split", "pattern": {"Regex": r}, "behavior": "Isolated", "invert": False} for r in DS_SPLITS),
    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]}

DS_HARD = [
    "1234567 x12y 3.14159 1,000,000", "３.１４１５ ²①Ⅳ٣𝟙x 〇〇七", "日本語のテキストです。東京タワー・スカイツリー",
    "ア・イ゛ー゠ゝヽヾゟヿ\u3040\u3097\u3099\u309a", "中文abc中 abc 中 龥龦 \u4dff一", "한국어 텍스트", "I'm don't 'S",
    "$Hello (x) -Wörter a-Wörter _under __x", "e\u0301 \u0301a \u20dd\u093f", "\u0000\u0000nul\u0000",
    "a\u200d\u200d\ue000 \U0010ffff\u0378", "line\r\n\r\n  next\n", "x  \n\t y\r\r\n", "...!\n\nok", " ?? \u00a0word\u3000",
    "😀👍🏽 hi 🇫🇷", "a 1", "\u2028x\u0085 \u2029", "\x1c\x1d\x1e\x1f", "東京2024年3月15日", "価格は　１００円です。",
    "def f(x):\n    return x**2\n", "https://example.com/path?q=1&r=2#frag", "\t\t\tindent\n\n\n",
]

# Characters from every class the splits look at (see the Rust unit tests of the matcher).
POOL = list(
    "aZqéßЖ한ǅʰ一龥\u9fa6\u4dff〇々ぁアーゝヿゟ\u3040\u3097\u3099\u309b゠・\u3100\u303f\u0301\u093f\u20dd"
    "07９²①Ⅳ٣𝟙!'-.$^`~\\[]。「！€😀\U0001f3fd   \t\r\n\x0b\x85\xa0\u2028\u2029\u3000\x00\x1c\u200b\u200d"
    "\ufeff\ue000\u0378\U0010ffff"
)


def ds_text_strategy():
    """Text mixing every Unicode category, digit runs, CJK/kana runs, punctuation followed by
    letters, CR/LF runs and whitespace runs."""
    piece = st.one_of(
        st.characters(exclude_categories=("Cs",)),
        st.sampled_from(POOL),
        st.text(alphabet="0123456789٣²①９𝟙", min_size=1, max_size=8),
        st.text(alphabet="一中文龥\u9fa6ぁアー・゛゠ゝ\u3099", min_size=1, max_size=6),
        st.builds(lambda p, w: p + w, st.sampled_from(list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~。「€")),
                  st.text(alphabet="abcXYZéö", min_size=1, max_size=5)),
        st.text(alphabet="\r\n", min_size=1, max_size=5),
        st.text(alphabet=" \t\u00a0\u3000\r\n\x0b", min_size=1, max_size=6),
        st.text(alphabet="abcdefghij ", min_size=1, max_size=10),
    )
    return st.lists(piece, max_size=30).map("".join)


def hf_pieces(pre, text):
    return [p for p, _ in pre.pre_tokenize_str(text)]


def tm_pieces(text):
    data = text.encode("utf-8")
    return [data[s:e].decode("utf-8") for s, e in _core.pretokenize_named("deepseek_v3", text)]


@pytest.fixture(scope="module")
def hf_splits():
    return pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(r), "isolated") for r in DS_SPLITS])


# ---------------------------------------------------------------------------- the matcher alone
def test_unicode_classes_agree_with_oniguruma():
    """The classes the matcher uses (regex-syntax's tables, as fancy_regex's) are Oniguruma's,
    code point by code point; so are the two CJK split's ranges, read by HF's regex."""
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    data = text.encode("utf-8")
    for inner in (r"\p{L}", r"\p{M}", r"\p{N}", r"\p{P}", r"\p{S}", r"\s", r"\p{L}\p{M}", r"\p{P}\p{S}"):
        onig = normalizers.Replace(Regex(f"[^{inner}]"), "").normalize_str(text)
        ours = "".join(data[s:e].decode("utf-8") for s, e in _core.pretokenize(f"[{inner}]", text, False))
        assert ours == onig, inner
    onig = normalizers.Replace(Regex(f"[^{DS_CJK[1:-2]}]"), "").normalize_str(text)
    assert [ord(c) for c in onig] == [*range(0x3040, 0x3100), *range(0x4E00, 0x9FA6)]


def test_matcher_hand_picked(hf_splits):
    for text in HARD + DS_HARD:
        assert tm_pieces(text) == hf_pieces(hf_splits, text), repr(text)


def test_matcher_random_text(hf_splits):
    rng = random.Random(7)
    for _ in range(20000):
        text = "".join(rng.choice(POOL) * (rng.randint(1, 5) if rng.random() < 0.2 else 1)
                       for _ in range(rng.randint(0, 24)))
        assert tm_pieces(text) == hf_pieces(hf_splits, text), repr(text)


def test_matcher_corpora(hf_splits):
    for name, text in sorted(peers.corpus_texts().items()):
        for i in range(0, min(len(text), 400_000), 20_000):
            chunk = text[i : i + 20_000]
            assert tm_pieces(chunk) == hf_pieces(hf_splits, chunk), f"{name} at {i}"


@given(ds_text_strategy())
@settings(max_examples=hyp_examples(1000))
def test_matcher_hypothesis_text(hf_splits, text):
    assert tm_pieces(text) == hf_pieces(hf_splits, text)


@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=100))
@settings(max_examples=hyp_examples(1000))
def test_matcher_hypothesis_any_chars(hf_splits, text):
    assert tm_pieces(text) == hf_pieces(hf_splits, text)


# ---------------------------------------------------------------------------- whole files
def _with_vocab(shared_data, vocab: str, ignore_merges: bool) -> str:
    """A DeepSeek V3-style tokenizer.json made with HF's Python API: an existing byte-level BPE
    vocabulary with DeepSeek's pre-tokenizer."""
    if vocab == "o200k":
        hf = tokenizers.Tokenizer.from_str(gzip.open(shared_data / "hf/gpt-4o.o200k.tokenizer.json.gz", "rt").read())
    else:
        hf = tokenizers.Tokenizer.from_file(str(shared_data / "gpt2/tokenizer.json"))
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Split(Regex(r), "isolated") for r in DS_SPLITS]
        + [pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False)]
    )
    d = json.loads(hf.to_str())
    assert d["normalizer"] is None and d["decoder"]["type"] == "ByteLevel"
    # HF's API writes the pre-tokenizer exactly as DeepSeek V3's file has it.
    assert d["pre_tokenizer"] == DS_PRE_JSON
    d["model"]["ignore_merges"] = ignore_merges
    return json.dumps(d, ensure_ascii=False)


@pytest.fixture(scope="module", params=[("o200k", False), ("o200k", True), ("gpt2", False)],
                ids=["o200k", "o200k-ignore_merges", "gpt2"])
def ds_file(request, shared_data, tmp_path_factory):
    text = _with_vocab(shared_data, *request.param)
    path = tmp_path_factory.mktemp("deepseek") / "tokenizer.json"
    path.write_text(text, encoding="utf-8")
    return tokenmill.load(path), tokenizers.Tokenizer.from_file(str(path))


@pytest.fixture(scope="module")
def lines():
    return corpus_lines()


def test_deepseek_file_runs_on_hand_written_matcher(ds_file, lines):
    tm, hf = ds_file
    assert isinstance(tm, tokenmill.HFTokenizer)
    assert tm.pretokenizer == "deepseek_v3"
    for text in HARD + DS_HARD + lines:
        assert_same(tm, hf, text)


def test_deepseek_file_corpora_ids(ds_file):
    """Every line of the first 300 KB of each shared corpus (English, French, Japanese,
    Chinese handbooks...), in batches."""
    tm, hf = ds_file
    for name, text in sorted(peers.corpus_texts().items()):
        batch = text[:300_000].split("\n")
        assert tm.encode_batch(batch, add_special_tokens=False) == [
            e.ids for e in hf.encode_batch(batch, add_special_tokens=False)], name


@given(ds_text_strategy())
@settings(max_examples=hyp_examples(300))
def test_deepseek_file_hypothesis_text(ds_file, text):
    tm, hf = ds_file
    assert tm.encode(text) == hf.encode(text).ids
    got, want = tm.encode_full(text), hf.encode(text)
    assert (got.tokens, got.offsets) == (want.tokens, want.offsets)


def _variants():
    """Pre-tokenizers that differ from DeepSeek V3's in one part each."""
    def base():
        return json.loads(json.dumps(DS_PRE_JSON))

    out = []
    changed = [r"\p{N}{1,2}", DS_CJK.replace("\u9fa5", "\u9fff"), DS_MAIN.replace("|\\s+(?!\\S)", "")]
    for i, r in enumerate(changed):
        assert r != DS_SPLITS[i]
        d = base()
        d["pretokenizers"][i]["pattern"]["Regex"] = r
        out.append(("regex", d))
        d = base()
        d["pretokenizers"][i]["behavior"] = "Removed"
        out.append(("behavior", d))
        d = base()
        d["pretokenizers"][i]["invert"] = True
        out.append(("invert", d))
    d = base()
    d["pretokenizers"][0], d["pretokenizers"][1] = d["pretokenizers"][1], d["pretokenizers"][0]
    out.append(("order", d))
    d = base()
    del d["pretokenizers"][1]
    out.append(("two splits", d))
    d = base()
    d["pretokenizers"][3]["add_prefix_space"] = True
    out.append(("prefix space", d))
    d = base()
    d["pretokenizers"][3]["use_regex"] = True
    out.append(("byte-level regex", d))
    return out


@pytest.mark.parametrize("what,pre", _variants(), ids=[w for w, _ in _variants()])
def test_other_sequences_keep_the_general_pipeline(shared_data, what, pre):
    d = json.loads(_with_vocab(shared_data, "gpt2", False))
    d["pre_tokenizer"] = pre
    text = json.dumps(d)
    tm, hf = tokenmill.HFTokenizer.from_str(text), tokenizers.Tokenizer.from_str(text)
    assert tm.pretokenizer != "deepseek_v3"
    for s in DS_HARD:
        assert tm.encode(s) == hf.encode(s).ids, repr(s)


def test_deepseek_pathological_inputs_and_bad_arguments(ds_file):
    """Long runs of one class (digits cut in threes, CJK, kana, punctuation, whitespace, NUL), lone
    surrogates, and a hook call with a name that does not exist."""
    tok, hf = ds_file
    for text in ("7" * 300_000, "中" * 200_000, "が" * 100_000, "!" * 300_000, " \n" * 200_000, "\0" * 100_000,
                 "a1中" * 100_000):
        assert tok.encode(text, add_special_tokens=False) == hf.encode(text, add_special_tokens=False).ids
    assert tok.encode("x\ud800y", add_special_tokens=False) == tok.encode("x\ufffdy", add_special_tokens=False)
    with pytest.raises(ValueError, match="no hand-written pre-tokenizer named"):
        _core.pretokenize_named("deepseek_v4", "text")
