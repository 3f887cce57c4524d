"""Bad input for the ``tokenizer.json`` reader (and, in the fuzz, every other loader).

The contract: a file tokenmill cannot use is a `tokenmill.TokenmillError` (``VocabFormatError``
whose message names the file and the JSON field, ``UnsupportedError`` for a component tokenmill
lacks), never a panic (``InternalError``), a crash, a hang, or a bare ValueError / KeyError /
TypeError from inside the library. A file that loads must then encode and decode with the same
contract.

* Specific bad inputs, each checking the exception type and the message; where HF
  ``tokenizers`` accepts the file too, tokenmill must give HF's ids.
* A matrix of wrong JSON types for every option of several components of each kind (normalizer,
  pre-tokenizer, model, post-processor, decoder, truncation, padding, added token).
* A bounded-time fuzz (fixed seed; ``TOKENMILL_FUZZ_SECONDS`` per format, default 10) of
  `tokenmill.load` on a tokenizer.json (BPE / WordPiece / WordLevel built with HF's Python API,
  plain and gzipped), tokenmill's own exports (tiktoken pair, GPT-2 pair, hf, native) of a tiny
  trained BPE, and a WordPiece vocab.txt: byte mutations and JSON-structure mutations (a mutated
  tokenizer.json that HF reads too must give HF's ids). Each
  format runs in a child process, so a crash or a hang is reported with the input that caused
  it (saved under pytest's tmp_path) instead of killing the suite.

Problems found here were fixed in the library; a new one would be pinned by an ``xfail(strict=True)``
test (so it turns red when fixed) until it is.
"""

from __future__ import annotations

import copy
import functools
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tokenmill
from tokenmill import TokenmillError, UnsupportedError, VocabFormatError

tokenizers = pytest.importorskip("tokenizers")

TEXT = "hello world <|endoftext|> x"


# ---------------------------------------------------------------------------- building blocks
def hf_bpe_doc() -> dict:
    """A small but complete BPE tokenizer.json, written by HF ``tokenizers`` itself."""
    return copy.deepcopy(_hf_bpe_doc())


@functools.lru_cache(maxsize=None)
def _hf_bpe_doc() -> dict:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "h": 3, "e": 4, "l": 5, "o": 6, "w": 7, "r": 8, "d": 9,
             "he": 10, "ll": 11, "hell": 12, "hello": 13, "x": 14}
    merges = [("h", "e"), ("l", "l"), ("he", "ll"), ("hell", "o")]
    t = Tokenizer(models.BPE(vocab, merges, unk_token="[UNK]"))
    t.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    t.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace(), pre_tokenizers.Digits()])
    t.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
    t.decoder = decoders.BPEDecoder()
    t.add_special_tokens(["<|endoftext|>"])
    t.enable_truncation(16)
    t.enable_padding(length=20)
    return json.loads(t.to_str())


def hf_wordpiece_doc() -> dict:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "hello": 4, "world": 5, "wor": 6, "##ld": 7, "x": 8, "##s": 9}
    t = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    t.normalizer = normalizers.BertNormalizer(lowercase=True)
    t.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    t.post_processor = processors.BertProcessing(("[SEP]", 3), ("[CLS]", 2))
    t.decoder = decoders.WordPiece()
    t.add_special_tokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "<|endoftext|>"])
    return json.loads(t.to_str())


def hf_wordlevel_doc() -> dict:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "▁hello": 3, "▁world": 4, "▁x": 5}
    t = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    t.normalizer = normalizers.Sequence([normalizers.Strip(), normalizers.Replace(" ", " ")])
    t.pre_tokenizer = pre_tokenizers.Metaspace()
    t.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 1))
    t.decoder = decoders.Metaspace()
    t.add_special_tokens(["<|endoftext|>"])
    return json.loads(t.to_str())


def dump(path: Path, doc) -> Path:
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def expect_error(path: Path, *fields: str, exc: type = VocabFormatError, loader=tokenmill.load) -> str:
    """Loads `path`, expecting `exc` whose message names the file and every one of `fields`."""
    with pytest.raises(exc) as info:
        loader(path)
    msg = str(info.value)
    assert str(path) in msg, f"message does not name the file: {msg!r}"
    for f in fields:
        assert f in msg, f"message does not name {f!r}: {msg!r}"
    return msg


def hf_ids(doc_or_text, text: str = TEXT):
    """HF's ids for `text`, or None when HF refuses the file (or panics on the text)."""
    s = doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text)
    try:
        return tokenizers.Tokenizer.from_str(s).encode(text).ids
    except BaseException as e:  # noqa: BLE001 - HF raises Exception and pyo3's PanicException
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return None


def check_uses(tok) -> list[int] | None:
    """encode + decode of a loaded tokenizer: success or a TokenmillError, nothing else."""
    try:
        ids = tok.encode(TEXT)
    except TokenmillError:
        return None
    try:
        tok.decode(ids)
    except TokenmillError:
        pass
    return ids


def huge_padding(doc) -> bool:
    """True for a padding that asks for very many tokens (known crash, see test_huge_padding)."""
    pad = doc.get("padding") if isinstance(doc, dict) else None
    if not isinstance(pad, dict):
        return False
    strat = pad.get("strategy")
    nums = [pad.get("pad_to_multiple_of")] + (list(strat.values()) if isinstance(strat, dict) else [])
    return any(isinstance(n, (int, float)) and not isinstance(n, bool) and n > 100_000 for n in nums)


def tok_has_huge_padding(tok) -> bool:
    try:
        pad = getattr(tok, "padding", None)
    except Exception:  # noqa: BLE001 - only a guard
        return False
    return huge_padding({"padding": pad})


# ---------------------------------------------------------------------------- the base files load
@pytest.mark.parametrize("make", [hf_bpe_doc, hf_wordpiece_doc, hf_wordlevel_doc])
def test_base_documents_load_and_match_hf(tmp_path, make):
    doc = make()
    p = dump(tmp_path / "tokenizer.json", doc)
    tok = tokenmill.load(p)
    assert isinstance(tok, tokenmill.HFTokenizer)
    assert tok.encode(TEXT) == hf_ids(doc)


# ---------------------------------------------------------------------------- JSON itself
def test_malformed_json_names_line_and_column(tmp_path):
    p = tmp_path / "tokenizer.json"
    p.write_bytes(b'{"version": "1.0",\n "model": {"type": "BPE",, }}')
    msg = expect_error(p)
    assert "line 2" in msg and "column 26" in msg, msg


def test_malformed_json_deep_in_the_file(tmp_path):
    text = json.dumps(hf_bpe_doc(), indent=1)
    bad = text.replace('"hello": 13', '"hello": 13,,', 1)
    line = text[: text.index('"hello": 13')].count("\n") + 1
    p = tmp_path / "tokenizer.json"
    p.write_text(bad)
    msg = expect_error(p)
    assert f"line {line}" in msg and "column" in msg, msg


def test_trailing_garbage(tmp_path):
    p = tmp_path / "tokenizer.json"
    p.write_bytes(json.dumps(hf_bpe_doc()).encode() + b" 5")
    assert "column" in expect_error(p)


@pytest.mark.parametrize("top", ['["version", "model"]', '"version"', "5", "null", "true"])
def test_top_level_not_an_object(tmp_path, top):
    p = tmp_path / "tokenizer.json"
    p.write_text(top)
    expect_error(p)
    # the hf reader itself (no content sniffing) says what it expected
    msg = expect_error(p, loader=tokenmill.HFTokenizer.from_file)
    assert "object" in msg, msg


def test_top_level_object_without_a_model(tmp_path):
    msg = expect_error(dump(tmp_path / "tokenizer.json", {"version": "1.0", "normalizer": None}), "model")
    assert "missing" in msg, msg


def test_deep_nesting_is_an_error_not_a_crash(tmp_path):
    p = tmp_path / "tokenizer.json"
    p.write_bytes(b'{"version": "1.0", "x": ' + b"[" * 200_000 + b"]" * 200_000 + b"}")
    expect_error(p)


def test_bom_is_an_error_naming_the_file(tmp_path):
    # HF: "expected value at line 1 column 1" as well.
    p = tmp_path / "tokenizer.json"
    p.write_bytes(b"\xef\xbb\xbf" + json.dumps(hf_bpe_doc()).encode())
    expect_error(p)


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_non_json_numbers(tmp_path, token):
    p = tmp_path / "tokenizer.json"
    p.write_text(json.dumps(hf_bpe_doc()).replace('"stride": 0', f'"stride": {token}'))
    assert "column" in expect_error(p)


# ---------------------------------------------------------------------------- empty and gzip
@pytest.mark.parametrize("data", [b"", b"  \n\t", b"\n"])
def test_empty_file(tmp_path, data):
    p = tmp_path / "tokenizer.json"
    p.write_bytes(data)
    expect_error(p)
    expect_error(p, loader=tokenmill.HFTokenizer.from_file)


def test_truncated_gz(tmp_path):
    gz = gzip.compress(json.dumps(hf_bpe_doc()).encode())
    p = tmp_path / "tokenizer.json.gz"
    p.write_bytes(gz[: len(gz) // 2])
    assert "gzip" in expect_error(p)
    assert "gzip" in expect_error(p, loader=tokenmill.HFTokenizer.from_file)


@pytest.mark.parametrize("cut", [2, 10, 20, -8, -4, -1])
def test_gz_cut_anywhere(tmp_path, cut):
    gz = gzip.compress(json.dumps(hf_bpe_doc()).encode())
    p = tmp_path / "tokenizer.json.gz"
    p.write_bytes(gz[:cut])
    expect_error(p)


def test_gz_with_a_corrupt_body(tmp_path):
    gz = bytearray(gzip.compress(json.dumps(hf_bpe_doc()).encode()))
    for i in range(20, len(gz) - 8, 7):
        gz[i] ^= 0x55
    p = tmp_path / "tokenizer.json.gz"
    p.write_bytes(bytes(gz))
    expect_error(p)


@pytest.mark.parametrize("payload", [b"\x00\xffgarbage" * 10, b"", b'{"version": "1.0", "model": ', b"\xff\xfe{}"])
def test_gzip_of_garbage(tmp_path, payload):
    p = tmp_path / "tokenizer.json.gz"
    p.write_bytes(gzip.compress(payload))
    expect_error(p)
    expect_error(p, loader=tokenmill.HFTokenizer.from_file)


def test_gzip_of_a_json_error_names_line(tmp_path):
    p = tmp_path / "tokenizer.json.gz"
    p.write_bytes(gzip.compress(b'{"version": "1.0",\n "model": {"type": "BPE",, }}'))
    msg = expect_error(p)
    assert "line 2" in msg, msg


def test_plain_json_in_invalid_utf8(tmp_path):
    doc = hf_bpe_doc()
    raw = json.dumps(doc).encode().replace(b'"x": 14', b'"x\xff\xfe": 14')
    p = tmp_path / "tokenizer.json"
    p.write_bytes(raw)
    expect_error(p)


# ---------------------------------------------------------------------------- models
def test_a_unigram_model_in_a_bpe_file_gives_hf_ids(tmp_path):
    doc = hf_bpe_doc()
    doc["model"] = {"type": "Unigram", "unk_id": 0, "vocab": [["[UNK]", 0.0], ["a", -1.0]], "byte_fallback": False}
    tok = tokenmill.load(dump(tmp_path / "tokenizer.json", doc))
    assert tok.encode(TEXT) == hf_ids(doc)


@pytest.mark.parametrize("typ", ["Foo", "", "bpe"])
def test_unknown_model_type(tmp_path, typ):
    doc = hf_bpe_doc()
    doc["model"]["type"] = typ
    expect_error(dump(tmp_path / "tokenizer.json", doc), "model.type", "BPE", "WordPiece", "WordLevel")


def test_merges_naming_unknown_tokens(tmp_path):
    doc = hf_bpe_doc()
    doc["model"]["merges"].append(["q", "z"])
    expect_error(dump(tmp_path / "tokenizer.json", doc), "model.merges[4]", '"q"')


@pytest.mark.parametrize("merge", ["q z", "h q"])
def test_legacy_string_merges_naming_unknown_tokens(tmp_path, merge):
    doc = hf_bpe_doc()
    doc["model"]["merges"] = [" ".join(m) for m in doc["model"]["merges"]] + [merge]
    expect_error(dump(tmp_path / "tokenizer.json", doc), "model.merges[4]", '"q"')


@pytest.mark.parametrize("merge", ["hq", "h  e", "", "h e l"])
def test_legacy_string_merges_malformed(tmp_path, merge):
    doc = hf_bpe_doc()
    doc["model"]["merges"] = [" ".join(m) for m in doc["model"]["merges"]] + [merge]
    p = dump(tmp_path / "tokenizer.json", doc)
    want = hf_ids(doc)
    try:
        tok = tokenmill.load(p)
    except VocabFormatError as e:
        assert str(p) in str(e) and "model.merges[4]" in str(e), str(e)
        return
    assert tok.encode(TEXT) == want, "tokenmill reads a merge HF refuses, or reads it differently"


def test_merged_token_missing_from_vocab(tmp_path):
    doc = hf_bpe_doc()
    doc["model"]["merges"].append(["o", "w"])
    expect_error(dump(tmp_path / "tokenizer.json", doc), "model.merges[4]", '"ow"')


@pytest.mark.parametrize("make", [hf_bpe_doc, hf_wordpiece_doc, hf_wordlevel_doc])
def test_duplicate_ids_in_vocab(tmp_path, make):
    # HF accepts this (the later token wins id -> token); tokenmill refuses it, naming both tokens.
    doc = make()
    doc["model"]["vocab"]["zz"] = 3
    msg = expect_error(dump(tmp_path / "tokenizer.json", doc), "model.vocab", "3", '"zz"')
    assert "two tokens" in msg, msg


@pytest.mark.parametrize("make", [hf_bpe_doc, hf_wordpiece_doc, hf_wordlevel_doc])
@pytest.mark.parametrize("bad", [2**32, 2**40, 2**64, 10**30, -1, -(2**63), 1.5, 3.0, 1e300, "7", None, True, [], {}])
def test_bad_ids_in_vocab(tmp_path, make, bad):
    doc = make()
    doc["model"]["vocab"]["zz"] = bad
    expect_error(dump(tmp_path / "tokenizer.json", doc), "model.vocab", "zz")


def test_vocab_not_an_object(tmp_path):
    for bad in ([["a", 0]], "a", 5, None):
        doc = hf_bpe_doc()
        doc["model"]["vocab"] = bad
        expect_error(dump(tmp_path / "tokenizer.json", doc), "model.vocab")


def test_ids_with_gaps_match_hf(tmp_path):
    doc = hf_bpe_doc()
    doc["model"]["vocab"]["zz"] = 100
    p = dump(tmp_path / "tokenizer.json", doc)
    assert tokenmill.load(p).encode(TEXT) == hf_ids(doc)


@pytest.mark.parametrize("make", [hf_bpe_doc, hf_wordpiece_doc, hf_wordlevel_doc])
def test_empty_vocabulary(tmp_path, make):
    # HF accepts an empty vocabulary when no unk_token names a missing token; tokenmill refuses it.
    doc = make()
    doc["model"]["vocab"] = {}
    if "merges" in doc["model"]:
        doc["model"]["merges"] = []
        doc["model"]["unk_token"] = None
    expect_error(dump(tmp_path / "tokenizer.json", doc), "model.vocab", "empty")


@pytest.mark.parametrize("make", [hf_wordpiece_doc, hf_wordlevel_doc])
def test_unk_token_not_in_vocab(tmp_path, make):
    doc = make()
    doc["model"]["unk_token"] = "<<nope>>"
    p = dump(tmp_path / "tokenizer.json", doc)
    want = hf_ids(doc)
    try:
        tok = tokenmill.load(p)
    except VocabFormatError as e:
        assert str(p) in str(e) and "model.unk_token" in str(e), str(e)
        return
    assert check_uses(tok) == want


# ---------------------------------------------------------------------------- added tokens
def _added(**kw) -> dict:
    d = {"id": 20, "content": "hello", "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
         "special": True}
    d.update(kw)
    return d


ADDED_COLLISIONS = {
    # content already in model.vocab under another id
    "vocab_word_other_id": lambda d: d["added_tokens"].append(_added()),
    "vocab_word_other_id_not_special": lambda d: d["added_tokens"].append(_added(special=False)),
    "vocab_word_other_id_normalized": lambda d: d["added_tokens"].append(_added(special=False, normalized=True)),
    "vocab_word_lower_id": lambda d: d["added_tokens"].append(_added(id=3)),
    "special_renamed_to_vocab_word": lambda d: d["added_tokens"].__setitem__(0, dict(d["added_tokens"][0], content="hello")),
    # id already used by a vocab token, new content
    "new_content_vocab_id": lambda d: d["added_tokens"].append(_added(content="zzz", id=13)),
    # two added tokens, same id / same content
    "added_same_id": lambda d: d["added_tokens"].append(_added(content="zzz", id=15)),
    "added_same_content": lambda d: d["added_tokens"].append(_added(content="<|endoftext|>", id=16)),
    "added_far_id": lambda d: d["added_tokens"].append(_added(content="zzz", id=10**6)),
}


@pytest.mark.parametrize("case", sorted(ADDED_COLLISIONS))
def test_added_token_collisions_do_what_hf_does(tmp_path, case):
    """HF re-resolves added tokens on load: content already in the vocab takes the vocab's id, a
    new content takes the next free id (the file's "id" is not trusted). tokenmill does the same."""
    doc = hf_bpe_doc()
    ADDED_COLLISIONS[case](doc)
    p = dump(tmp_path / "tokenizer.json", doc)
    want = hf_ids(doc)
    assert want is not None
    tok = tokenmill.load(p)
    assert tok.encode(TEXT) == want
    for text in ("hello zzz", "zzz<|endoftext|>hello", "HELLO"):
        assert tok.encode(text) == hf_ids(doc, text), text


@pytest.mark.parametrize("field,value", [("id", -1), ("id", 2**32), ("id", "x"), ("id", 1.5), ("content", 5),
                                         ("content", None), ("special", "yes"), ("lstrip", 1), ("normalized", [])])
def test_added_token_bad_fields(tmp_path, field, value):
    doc = hf_bpe_doc()
    doc["added_tokens"][0][field] = value
    expect_error(dump(tmp_path / "tokenizer.json", doc), "added_tokens[0]", field)


def test_added_tokens_not_a_list(tmp_path):
    doc = hf_bpe_doc()
    doc["added_tokens"] = {"<|endoftext|>": 15}
    expect_error(dump(tmp_path / "tokenizer.json", doc), "added_tokens")


# ---------------------------------------------------------------------------- unknown keys
@pytest.mark.parametrize("where", ["top", "model", "normalizer", "normalizer.normalizers[0]", "pre_tokenizer",
                                   "pre_tokenizer.pretokenizers[1]", "post_processor", "decoder", "truncation",
                                   "padding", "added_tokens[0]"])
def test_unknown_keys(tmp_path, where):
    doc = hf_bpe_doc()
    obj = doc
    if where != "top":
        for part in where.replace("]", "").replace("[", ".").split("."):
            obj = obj[int(part)] if part.isdigit() else obj[part]
    obj["frobnicate"] = 1
    field = "frobnicate" if where == "top" else f"{where}.frobnicate"
    expect_error(dump(tmp_path / "tokenizer.json", doc), field, exc=UnsupportedError)


# ---------------------------------------------------------------------------- wrong types, every option
# One or more components of each kind, as HF serializes them (checked by test_components_load).
COMPONENTS: dict[str, list[dict]] = {
    "normalizer": [
        {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
        {"type": "Replace", "pattern": {"String": "l"}, "content": "L"},
        {"type": "Prepend", "prepend": "▁"},
        {"type": "Strip", "strip_left": True, "strip_right": True},
        {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Lowercase"}]},
    ],
    "pre_tokenizer": [
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        {"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "Isolated", "invert": False},
        {"type": "Digits", "individual_digits": True},
        {"type": "Punctuation", "behavior": "Isolated"},
        {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}]},
    ],
    "model": [
        "BASE",  # the base document's BPE model
        {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
         "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hello": 3, "##x": 4, "x": 5}},
        {"type": "WordLevel", "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hello": 3, "x": 4}, "unk_token": "[UNK]"},
    ],
    "post_processor": [
        "BASE",  # TemplateProcessing
        {"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]},
        {"type": "RobertaProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1], "trim_offsets": True, "add_prefix_space": True},
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
    ],
    "decoder": [
        {"type": "WordPiece", "prefix": "##", "cleanup": True},
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        {"type": "BPEDecoder", "suffix": "</w>"},
        {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True},
        {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0},
        {"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "ByteFallback"}]},
    ],
    "truncation": ["BASE"],
    "padding": ["BASE"],
}

WRONG_VALUES = [None, True, False, 0, -1, 1.5, 2**32, 2**64, -(2**64), "x", "", [], {}, [1, "a"], {"a": 1}]

# A wrong value for one option whose error is about another field (the option changed it).
CONSEQUENCES = {("model", "continuing_subword_prefix"): "model.merges"}


def _component_cases():
    base = hf_bpe_doc()
    cases = []
    for kind, comps in COMPONENTS.items():
        for comp in comps:
            comp = base[kind] if comp == "BASE" else comp
            tag = f"{kind}:{comp.get('type', kind)}"
            cases.append(pytest.param(kind, comp, None, None, id=f"{tag}:as-is"))
            for key in comp:
                for v in WRONG_VALUES + (["NoSuchType"] if key == "type" else []):
                    cases.append(pytest.param(kind, comp, key, v, id=f"{tag}.{key}={json.dumps(v)}"))
                cases.append(pytest.param(kind, comp, key, "<deleted>", id=f"{tag}.{key}=<deleted>"))
    return cases


def _with(kind, comp, key, value) -> dict:
    doc = hf_bpe_doc()
    comp = copy.deepcopy(comp)
    if key is not None:
        if value == "<deleted>":
            del comp[key]
        else:
            comp[key] = value
    doc[kind] = comp
    return doc


# Component cases with a known problem (each pinned by an xfail test); none today.
KNOWN_COMPONENT_PROBLEMS: set[str] = set()


@pytest.mark.parametrize("kind,comp,key,value", _component_cases())
def test_component_option_wrong_types(tmp_path, request, kind, comp, key, value):
    """Every option of each component replaced by every JSON type (or deleted): the file loads or
    is a VocabFormatError naming the file and ``kind.key``; a file both load gives HF's ids."""
    if request.node.callspec.id in KNOWN_COMPONENT_PROBLEMS:
        pytest.skip("known problem, pinned by an xfail test")
    doc = _with(kind, comp, key, value)
    p = dump(tmp_path / "tokenizer.json", doc)
    try:
        tok = tokenmill.load(p)
    except VocabFormatError as e:
        assert key is not None, f"the component as HF writes it does not load: {e}"
        msg = str(e)
        assert str(p) in msg, msg
        named = [f"{kind}.{key}", CONSEQUENCES.get((kind, key), f"{kind}.{key}")]
        assert any(f in msg for f in named), msg
        return
    if huge_padding(doc):
        return  # test_huge_padding
    ids = check_uses(tok)
    want = hf_ids(doc)
    if want is not None and ids is not None:
        assert ids == want, "both load the file but give different ids"


def test_template_special_token_missing(tmp_path):
    doc = hf_bpe_doc()
    doc["post_processor"]["special_tokens"] = {}
    p = dump(tmp_path / "tokenizer.json", doc)
    expect_error(p, "post_processor", "[CLS]")


def test_template_special_token_missing_is_still_a_tokenmill_error(tmp_path):
    doc = hf_bpe_doc()
    doc["post_processor"]["special_tokens"] = {}
    p = dump(tmp_path / "tokenizer.json", doc)
    try:
        tok = tokenmill.load(p)
    except VocabFormatError:
        return
    with pytest.raises(VocabFormatError, match=r"post_processor.*\[CLS\]"):
        tok.encode(TEXT)


# ---------------------------------------------------------------------------- huge padding (child process)
def _run_child(code: str, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, RUST_BACKTRACE="0"))


@pytest.mark.parametrize("padding", [{"strategy": {"Fixed": 2**31}}, {"strategy": {"Fixed": 2**40}},
                                     {"strategy": "BatchLongest", "pad_to_multiple_of": 2**32}])
def test_huge_padding(tmp_path, padding):
    doc = hf_bpe_doc()
    doc["padding"].update(padding)
    p = dump(tmp_path / "tokenizer.json", doc)
    code = (
        "import resource, tokenmill\n"
        "resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # fail fast, do not eat the machine\n"
        "try:\n"
        f"    tok = tokenmill.load({str(p)!r})\n"
        f"    tok.encode({TEXT!r})\n"
        "except tokenmill.TokenmillError as e:\n"
        "    print('TokenmillError', type(e).__name__)\n"
    )
    r = _run_child(code, 120)
    assert r.returncode == 0, f"child died with {r.returncode}: {r.stderr[-300:]}"


# ---------------------------------------------------------------------------- fuzz
SEED = 20240607
FUZZ_SECONDS = float(os.environ.get("TOKENMILL_FUZZ_SECONDS", "4"))
TRAIN_TEXT = ["hello world, this is a tiny corpus for the fuzz <|endoftext|> the quick brown fox jumps over "
              "the lazy dog " * 3, "naïve café 日本語 😀 1234 hello hello world"] * 20


def make_format(fmt: str, d: Path) -> tuple[Path, list[Path]]:
    """Writes the files of `fmt` under `d`; returns (what to load, the files to mutate)."""
    d.mkdir(parents=True, exist_ok=True)
    if fmt.startswith("hf-"):
        doc = {"hf-bpe": hf_bpe_doc, "hf-wordpiece": hf_wordpiece_doc, "hf-wordlevel": hf_wordlevel_doc,
               "hf-bpe-gz": hf_bpe_doc}[fmt]()
        if fmt.endswith("-gz"):
            p = d / "tokenizer.json.gz"
            p.write_bytes(gzip.compress(json.dumps(doc).encode()))
        else:
            p = dump(d / "tokenizer.json", doc)
        return p, [p]
    if fmt == "vocab.txt":
        p = d / "vocab.txt"
        p.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "wor", "##ld", "x",
                                "##s", "<", "|", ">", "end", "##of", "##text"]) + "\n")
        cfg = d / "tokenizer_config.json"
        cfg.write_text(json.dumps({"do_lower_case": True, "unk_token": "[UNK]", "cls_token": "[CLS]",
                                   "sep_token": "[SEP]", "pad_token": "[PAD]", "mask_token": "[MASK]"}))
        return p, [p, cfg]
    enc = tokenmill.train_bpe(TRAIN_TEXT, 300, progress=False)
    if fmt == "tiktoken":
        files = enc.export("tiktoken", d / "tm.tiktoken")
        return files[0], [Path(f) for f in files]
    if fmt == "gpt2":
        files = enc.export("gpt2", d)
        return d, [Path(f) for f in files]
    if fmt == "tm-hf":
        [p] = enc.export("hf", d / "tokenizer.json")
        return Path(p), [Path(p)]
    if fmt == "native":
        p = d / "tok.json"
        enc.save(p)
        return p, [p]
    raise AssertionError(fmt)


FUZZ_FORMATS = ["hf-bpe", "hf-wordpiece", "hf-wordlevel", "hf-bpe-gz", "tiktoken", "gpt2", "tm-hf", "native", "vocab.txt"]


# -- mutations
HUGE = [2**31, 2**32, 2**53 + 1, 2**63, 2**64, 10**30, 1e308, -1, -(2**31), -(2**63), 0, 1.5, -0.0]
OTHER_JSON = [None, True, False, 0, -1, 3.7, "", "x", "<|endoftext|>", [], {}, [1, 2], {"type": "BPE"}, ["a", "b"]]


def mutate_bytes(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    b = bytearray(data)
    n = len(b)
    op = rng.choice(["flip", "delete", "insert", "duplicate", "truncate", "set", "swap"])
    if n == 0:
        return "insert", bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    i = rng.randrange(n)
    k = rng.choice([1, 1, 2, 4, 16, 64, 1024])
    if op == "flip":
        for _ in range(rng.randint(1, 4)):
            j = rng.randrange(n)
            b[j] ^= 1 << rng.randrange(8)
    elif op == "delete":
        del b[i : i + k]
    elif op == "insert":
        b[i:i] = bytes(rng.choice([rng.randrange(256), ord(rng.choice('{}[]",: \n\\0-e.'))]) for _ in range(k))
    elif op == "duplicate":
        j = rng.randrange(n)
        b[j:j] = b[i : i + k] * rng.choice([1, 2, 50])
    elif op == "truncate":
        b = b[:i]
    elif op == "set":
        b[i] = rng.choice([0, 0x80, 0xFF, ord('"'), ord("\\"), ord("\n"), ord(" "), ord("{"), ord("9")])
    else:
        j = rng.randrange(n)
        b[i], b[j] = b[j], b[i]
    return op, bytes(b)


def _paths(obj, path=()):
    yield path, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, path + (i,))


def mutate_json(rng: random.Random, doc) -> tuple[str, object]:
    doc = copy.deepcopy(doc)
    nodes = list(_paths(doc))
    # bias towards small structural fields: sample a path, then maybe walk up
    path, node = rng.choice(nodes)
    if not path:
        return "replace-root", rng.choice(OTHER_JSON)
    parent = doc
    for p in path[:-1]:
        parent = parent[p]
    key = path[-1]
    op = rng.choice(["delete", "other-type", "huge", "negative", "deep", "string", "dup-list", "empty", "rename"])
    where = ".".join(map(str, path))
    if op == "delete":
        del parent[key]
    elif op == "other-type":
        parent[key] = copy.deepcopy(rng.choice(OTHER_JSON))
    elif op == "huge":
        parent[key] = rng.choice(HUGE)
    elif op == "negative":
        parent[key] = -rng.choice([1, 2, 1000, 2**31, 2**40])
    elif op == "deep":  # a placeholder string, expanded by _json_dumps (Python's json cannot nest that deep)
        parent[key] = f"{DEEP}{rng.choice([10, 100, 127, 128, 129, 1000, 100_000])}:{rng.choice('[{')}"
    elif op == "string":
        parent[key] = rng.choice(["", "\x00", "\ud800x", "a" * 10000, "(", "[", "\\", "<|endoftext|>", "##", "▁", "Ġ"])
    elif op == "dup-list" and isinstance(node, list) and node:
        parent[key] = node + node
    elif op == "empty":
        parent[key] = type(node)() if isinstance(node, (list, dict, str)) else None
    elif op == "rename" and isinstance(parent, dict):
        parent[key + "_x" if isinstance(key, str) else key] = parent.pop(key)
    else:
        parent[key] = None
    return f"{op}@{where}", doc


DEEP = "\u0001deep:"


def _json_dumps(doc) -> bytes:
    text = json.dumps(doc, ensure_ascii=False)
    mark = '"\\u0001deep:'  # how json.dumps writes DEEP
    while mark in text:
        i = text.index(mark)
        j = text.index('"', i + 1)
        depth, kind = text[i + len(mark) : j].split(":")
        nest = ("[" * int(depth) + "0" + "]" * int(depth)) if kind == "[" else ('{"a":' * int(depth) + "0" + "}" * int(depth))
        text = text[:i] + nest + text[j + 1 :]
    return text.encode("utf-8", "surrogatepass")


def fuzz_child(fmt: str, seconds: float, seed: int, workdir: str) -> None:
    """Runs in a child process: mutates `fmt`'s files until `seconds` are up; prints one JSON line
    per distinct problem and a final summary line. Before each load the case is saved to
    ``workdir/last/`` so that a crash or hang can be reported by the parent."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # a runaway allocation fails fast
    work = Path(workdir)
    src = work / "orig"
    target, files = make_format(fmt, src)
    originals = {f.name: f.read_bytes() for f in files}
    is_json = {f.name: f.suffix in (".json", ".gz") for f in files}
    rng = random.Random(seed)
    case_dir = work / "case"
    last = work / "last"
    problems: dict[str, dict] = {}
    n = ok = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        n += 1
        if case_dir.exists():
            shutil.rmtree(case_dir)
        shutil.copytree(src, case_dir)
        name = rng.choice(sorted(originals))
        data = originals[name]
        gz = data[:2] == b"\x1f\x8b"
        if gz and rng.random() < 0.3:  # the gzip container itself
            what, new = mutate_bytes(rng, data)
        else:
            plain = gzip.decompress(data) if gz else data
            if is_json[name] and rng.random() < 0.6:
                doc = json.loads(plain)
                what, doc = mutate_json(rng, doc)
                if rng.random() < 0.3:
                    w2, doc = mutate_json(rng, doc)
                    what += " + " + w2
                new = _json_dumps(doc)
            else:
                what, new = mutate_bytes(rng, plain)
            new = gzip.compress(new) if gz else new
        what = f"{name}: {what}"
        (case_dir / name).write_bytes(new)
        last.write_text(json.dumps({"file": name, "mutation": what, "data": new.hex()}))
        load_path = case_dir / target.relative_to(src) if target != src else case_dir
        stage = "load"
        try:
            tok = tokenmill.load(load_path)
            if fmt.startswith("hf-") or fmt == "tm-hf":
                if tok_has_huge_padding(tok):
                    continue  # known crash: test_huge_padding
            stage = "encode"
            try:
                ids = tok.encode(TEXT)
            except TokenmillError:
                ids = None
            if ids is not None:
                stage = "decode"
                tok.decode(ids)
            ok += 1
            if fmt.startswith("hf-") and not gz:  # a file both libraries read: HF's ids
                want = hf_ids(new.decode("utf-8", "replace"))
                if want is not None and ids is not None and want != ids:
                    key = "differs from HF"
                    problems.setdefault(key, {"key": key, "mutation": what, "message": f"tokenmill {ids} HF {want}",
                                              "file": name, "data": new.hex() if len(new) < 20000 else None})
        except TokenmillError as e:
            if stage == "load" and isinstance(e, VocabFormatError) and str(case_dir) not in str(e):
                key = f"{stage}: {type(e).__name__} without the file's name"
                problems.setdefault(key, {"key": key, "mutation": what, "message": str(e)[:300], "file": name,
                                          "data": new.hex() if len(new) < 20000 else None})
        except BaseException as e:  # noqa: BLE001 - anything else is a problem (pyo3 panics are BaseException)
            if isinstance(e, KeyboardInterrupt):
                raise
            key = f"{stage}: {type(e).__module__}.{type(e).__name__}"
            if isinstance(e, tokenmill.InternalError):
                key += ": " + str(e)[:80]
            problems.setdefault(key, {"key": key, "mutation": what, "message": str(e)[:300], "file": name,
                                      "data": new.hex() if len(new) < 20000 else None})
    for prob in problems.values():
        print("PROBLEM " + json.dumps(prob), flush=True)
    print("SUMMARY " + json.dumps({"cases": n, "loaded": ok}), flush=True)


# Known problems the fuzz finds, by format: problem-key prefixes (each pinned by an xfail test; none today).
KNOWN_FUZZ: dict[str, list[str]] = {}


@pytest.mark.parametrize("value", [{"a": 1}, "7", None, 1.5, -1, 2**32])
def test_tiktoken_json_bad_special_id(tmp_path, value):
    target, _ = make_format("tiktoken", tmp_path)
    side = tmp_path / "tm.json"
    j = json.loads(side.read_text())
    j["special_tokens"] = {"<|x|>": value}
    side.write_text(json.dumps(j))
    with pytest.raises(VocabFormatError) as info:  # the side file is the one at fault, and is named
        tokenmill.load(target)
    assert str(side) in str(info.value) and "special_tokens" in str(info.value), str(info.value)


@pytest.mark.parametrize("value", [2**31, -1, 299])
def test_gpt2_encoder_bad_id(tmp_path, value):
    make_format("gpt2", tmp_path)
    enc = tmp_path / "encoder.json"
    j = json.loads(enc.read_text())
    j["s"] = value  # 299 is the id of another token
    enc.write_text(json.dumps(j))
    expect_error(tmp_path, str(enc))


def test_vocab_txt_config_null_token(tmp_path):
    target, _ = make_format("vocab.txt", tmp_path)
    cfg = tmp_path / "tokenizer_config.json"
    c = json.loads(cfg.read_text())
    c["unk_token"] = None
    cfg.write_text(json.dumps(c))
    with pytest.raises(VocabFormatError) as info:  # the config is the file at fault, and is named
        tokenmill.load(target)
    assert str(cfg) in str(info.value) and "unk_token" in str(info.value), str(info.value)


@pytest.mark.parametrize("fmt", FUZZ_FORMATS)
def test_fuzz_loader(tmp_path, fmt):
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import test_hf_bad_input as t; "
            f"t.fuzz_child({fmt!r}, {FUZZ_SECONDS!r}, {SEED!r}, {str(tmp_path)!r})")
    try:
        r = _run_child(code, FUZZ_SECONDS + 120)
    except subprocess.TimeoutExpired:
        last = json.loads((tmp_path / "last").read_text())
        pytest.fail(f"{fmt}: hang on {last['mutation']} (case saved in {tmp_path / 'last'})")
    if r.returncode != 0:
        last = (tmp_path / "last")
        info = json.loads(last.read_text())["mutation"] if last.exists() else "?"
        pytest.fail(f"{fmt}: child died with {r.returncode} on {info} (case in {last}): {r.stderr[-1500:]}")
    problems = [json.loads(line[8:]) for line in r.stdout.splitlines() if line.startswith("PROBLEM ")]
    summary = [json.loads(line[8:]) for line in r.stdout.splitlines() if line.startswith("SUMMARY ")]
    assert summary and summary[0]["cases"] > 20, r.stdout[-500:] + r.stderr[-1500:]
    unknown = [p for p in problems if not any(p["key"].startswith(k) for k in KNOWN_FUZZ.get(fmt, ()))]
    report = "\n".join(f"- {p['key']}: {p['mutation']}: {p['message']}" for p in unknown)
    assert not unknown, f"{fmt}: {len(unknown)} kinds of bad outcome ({summary[0]}):\n{report}"
