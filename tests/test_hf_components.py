"""Every Hugging Face ``tokenizer.json`` component and option, built with HF ``tokenizers``' own
Python API, serialized with ``to_str()`` and read by `tokenmill.HFTokenizer.from_str`.

Each configuration (one component alone, or several combined) is compared with HF on the whole
result (ids, tokens, offsets, type ids, word ids, masks, sequence ids, overflowing, decoding) on
a fixed list of hard strings, a few pairs, decoding of arbitrary id lists, and hypothesis text.
The models are trained with HF's trainers on a few KB of ../shared/data/corpus/botchan.txt.
`test_option_changes_ids[<option>]` checks, per HF option that changes ids, that it does change
them (on HF's side) and that tokenmill follows both with and without it; truncation and padding
are set both in the file (HF's ``enable_truncation`` / ``enable_padding``) and through
tokenmill's ``with_truncation`` / ``with_padding``. A component tokenmill does not implement must
be a `tokenmill.UnsupportedError`. A difference from HF goes into `XFAIL` / `OPTION_XFAIL`
(``xfail(strict=True)``, the minimal case in the reason); none is known today.
"""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import peers
import tokenmill
from conftest import hyp_examples
from test_hf_json import HARD, assert_same

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

N, P, D, M = normalizers, pre_tokenizers, decoders, models

SPECIALS = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]", "<s>", "</s>"]

EXTRA = [
    "<a>", "<ab>", "<a><ab><a>", "x<a>y<ab>z", "<a<ab>>", "<ab<a>", " <a> <ab> ", "<a><a><a>", "word<a>word",
    "[MASK][MASK]", "a[MASK]b", " [MASK] ", "hello[CLS]world", "<s><s></s>", "Hello   World  ", "don't STOP",
    "ÀÉÎÕÜ àéîõü", "x²³ ½ ㎏ ℃", "a1b22c333 4444", "a,b.c!d?e", "...!!!???", "tab\t\tx", "a\u0300\u0301\u0302",
    "\u00e9\u0065\u0301", "Ǆ ǅ ǆ", "AbcDef GHI jkl", "    leading", "trailing    ", "a_b-c_d", "▁x ▁▁y",
    "new\nline\n", "\u2028\u2029\u0085", "ab" * 40, "BOTCHAN chapter I.", "The bozu", "hello <ab>world</s>",
]
TEXTS = HARD + EXTRA
PAIRS = [("Hello world", "How are you?"), ("", "x"), ("a b c d e f g", "h i"), ("<a> x", "y <ab>"), ("日本語", "Café")]


# ---------------------------------------------------------------------------- trained models
@functools.lru_cache(maxsize=None)
def corpus() -> str:
    text = (peers.shared_data() / "corpus/botchan.txt").read_text(encoding="utf-8")
    return text[20000:26000]


def _train(model, trainer, pre=None, norm=None) -> dict:
    tok = Tokenizer(model)
    if pre is not None:
        tok.pre_tokenizer = pre
    if norm is not None:
        tok.normalizer = norm
    tok.train_from_iterator(corpus().split("\n"), trainer=trainer)
    return json.loads(tok.to_str())["model"]


@functools.lru_cache(maxsize=None)
def trained(kind: str) -> dict:
    """The model object (as in tokenizer.json) of a small model trained on the corpus."""
    if kind == "bpe":
        return _train(M.BPE(unk_token="[UNK]"), trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS), P.Whitespace())
    if kind == "bpe_bytelevel":
        return _train(M.BPE(), trainers.BpeTrainer(vocab_size=500, special_tokens=SPECIALS,
                                                   initial_alphabet=P.ByteLevel.alphabet()), P.ByteLevel())
    if kind == "bpe_affix":
        return _train(M.BPE(unk_token="[UNK]", continuing_subword_prefix="##", end_of_word_suffix="</w>"),
                      trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS, continuing_subword_prefix="##",
                                          end_of_word_suffix="</w>"), P.Whitespace())
    if kind == "bpe_metaspace":
        return _train(M.BPE(unk_token="[UNK]"), trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS), P.Metaspace())
    if kind == "wordpiece":
        return _train(M.WordPiece(unk_token="[UNK]"), trainers.WordPieceTrainer(vocab_size=400, special_tokens=SPECIALS),
                      P.BertPreTokenizer(), N.BertNormalizer())
    if kind == "wordlevel":
        return _train(M.WordLevel(unk_token="[UNK]"), trainers.WordLevelTrainer(vocab_size=300, special_tokens=SPECIALS),
                      P.Whitespace())
    raise KeyError(kind)


def bpe(kind: str = "bpe", extra_vocab=(), **opts):
    m = trained(kind)
    vocab = dict(m["vocab"])
    for t in extra_vocab:
        vocab.setdefault(t, len(vocab))
    merges = [tuple(x.split(" ")) if isinstance(x, str) else tuple(x) for x in m["merges"]]
    base = {"unk_token": m.get("unk_token"), "continuing_subword_prefix": m.get("continuing_subword_prefix"),
            "end_of_word_suffix": m.get("end_of_word_suffix")}
    base.update(opts)  # an option given as None is left out (HF's default)
    return M.BPE(vocab, merges, **{k: v for k, v in base.items() if v is not None})


BYTES = [f"<0x{b:02X}>" for b in range(256)]


def wordpiece(**opts):
    m = trained("wordpiece")
    base = {"unk_token": "[UNK]"}
    base.update(opts)
    return M.WordPiece(m["vocab"], **base)


def wordlevel(**opts):
    m = trained("wordlevel")
    base = {"unk_token": "[UNK]"}
    base.update(opts)
    return M.WordLevel(m["vocab"], **base)


def make(model, norm=None, pre=None, post=None, dec=None, added=(), special=()):
    tok = Tokenizer(model)
    if norm is not None:
        tok.normalizer = norm
    if pre is not None:
        tok.pre_tokenizer = pre
    if post is not None:
        tok.post_processor = post
    if dec is not None:
        tok.decoder = dec
    if special:
        tok.add_special_tokens(list(special))
    if added:
        tok.add_tokens(list(added))
    return tok


def ids_of(tok, *names):
    return [(n, tok.token_to_id(n)) for n in names]


def template(tok, single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1"):
    return processors.TemplateProcessing(single=single, pair=pair, special_tokens=ids_of(tok, "[CLS]", "[SEP]"))


# ---------------------------------------------------------------------------- configurations
WS = P.Whitespace()


def _with_post(build_post, model_fn=lambda: bpe(), pre=WS, dec=None, special=("[CLS]", "[SEP]", "<s>", "</s>")):
    tok = make(model_fn(), pre=pre, dec=dec, special=special)
    tok.post_processor = build_post(tok)
    return tok


def _bl(**kw):
    return dict(model_fn=lambda: bpe("bpe_bytelevel"), pre=P.ByteLevel(**kw), dec=D.ByteLevel())


CONFIGS = {
    # normalizers
    "norm_NFC": lambda: make(bpe(), N.NFC(), WS),
    "norm_NFD": lambda: make(bpe(), N.NFD(), WS),
    "norm_NFKC": lambda: make(bpe(), N.NFKC(), WS),
    "norm_NFKD": lambda: make(bpe(), N.NFKD(), WS),
    "norm_Lowercase": lambda: make(bpe(), N.Lowercase(), WS),
    "norm_StripAccents_NFD": lambda: make(bpe(), N.Sequence([N.NFD(), N.StripAccents()]), WS),
    "norm_StripAccents_alone": lambda: make(bpe(), N.StripAccents(), WS),
    "norm_Bert_default": lambda: make(wordpiece(), N.BertNormalizer(), P.BertPreTokenizer()),
    "norm_Bert_no_clean_text": lambda: make(wordpiece(), N.BertNormalizer(clean_text=False), P.BertPreTokenizer()),
    "norm_Bert_no_chinese_chars": lambda: make(wordpiece(), N.BertNormalizer(handle_chinese_chars=False), P.BertPreTokenizer()),
    "norm_Bert_strip_accents_false": lambda: make(wordpiece(), N.BertNormalizer(strip_accents=False), P.BertPreTokenizer()),
    "norm_Bert_strip_accents_true_no_lower": lambda: make(wordpiece(), N.BertNormalizer(strip_accents=True, lowercase=False),
                                                          P.BertPreTokenizer()),
    "norm_Bert_no_lowercase": lambda: make(wordpiece(), N.BertNormalizer(lowercase=False), P.BertPreTokenizer()),
    "norm_Replace_string": lambda: make(bpe(), N.Replace("e", "EE"), WS),
    "norm_Replace_string_delete": lambda: make(bpe(), N.Replace(" ", ""), WS),
    "norm_Replace_regex": lambda: make(bpe(), N.Replace(Regex(r"\s+"), " "), WS),
    "norm_Replace_regex_groups": lambda: make(bpe(), N.Replace(Regex(r"[aeiou]{1,2}"), "_"), WS),
    "norm_Prepend": lambda: make(bpe("bpe_metaspace"), N.Prepend("▁"), None),
    "norm_Strip_both": lambda: make(bpe(), N.Strip(), WS),
    "norm_Strip_left": lambda: make(bpe(), N.Strip(left=True, right=False), P.WhitespaceSplit()),
    "norm_Strip_right": lambda: make(bpe(), N.Strip(left=False, right=True), P.WhitespaceSplit()),
    "norm_Sequence": lambda: make(bpe(), N.Sequence([N.NFKD(), N.StripAccents(), N.Lowercase(), N.Replace(Regex(r"\d"), "#"),
                                                    N.Strip()]), WS),
    "norm_Sequence_empty": lambda: make(bpe(), N.Sequence([]), WS),
    "norm_Nmt": lambda: make(bpe(), N.Nmt(), WS),
    "norm_ByteLevel": lambda: make(bpe("bpe_bytelevel"), N.ByteLevel(), None, dec=D.ByteLevel()),
    # pre-tokenizers
    "pre_ByteLevel_default": lambda: make(bpe("bpe_bytelevel"), None, P.ByteLevel(), dec=D.ByteLevel()),
    "pre_ByteLevel_no_prefix": lambda: make(bpe("bpe_bytelevel"), None, P.ByteLevel(add_prefix_space=False), dec=D.ByteLevel()),
    "pre_ByteLevel_no_regex": lambda: make(bpe("bpe_bytelevel"), None, P.ByteLevel(use_regex=False), dec=D.ByteLevel()),
    "pre_ByteLevel_no_regex_no_prefix": lambda: make(bpe("bpe_bytelevel"), None,
                                                     P.ByteLevel(add_prefix_space=False, use_regex=False), dec=D.ByteLevel()),
    **{f"pre_Split_string_{b}": (lambda b=b: make(bpe(), None, P.Split(" ", b))) for b in
       ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")},
    **{f"pre_Split_regex_{b}": (lambda b=b: make(bpe(), None, P.Split(Regex(r"\s+|[0-9]"), b))) for b in
       ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")},
    **{f"pre_Split_invert_{b}": (lambda b=b: make(bpe(), None, P.Split(Regex(r"[A-Za-z]+"), b, invert=True))) for b in
       ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")},
    "pre_Split_string_invert": lambda: make(bpe(), None, P.Split("a", "removed", invert=True)),
    "pre_Whitespace": lambda: make(bpe(), None, P.Whitespace()),
    "pre_WhitespaceSplit": lambda: make(bpe(), None, P.WhitespaceSplit()),
    "pre_BertPreTokenizer": lambda: make(bpe(), None, P.BertPreTokenizer()),
    **{f"pre_Punctuation_{b}": (lambda b=b: make(bpe(), None, P.Punctuation(b))) for b in
       ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")},
    "pre_Digits": lambda: make(bpe(), None, P.Digits()),
    "pre_Digits_individual": lambda: make(bpe(), None, P.Digits(individual_digits=True)),
    "pre_Metaspace_always": lambda: make(bpe("bpe_metaspace"), None, P.Metaspace(), dec=D.Metaspace()),
    "pre_Metaspace_never": lambda: make(bpe("bpe_metaspace"), None, P.Metaspace(prepend_scheme="never"),
                                        dec=D.Metaspace(prepend_scheme="never")),
    "pre_Metaspace_first": lambda: make(bpe("bpe_metaspace"), None, P.Metaspace(prepend_scheme="first"),
                                        dec=D.Metaspace(prepend_scheme="first")),
    "pre_Metaspace_no_split": lambda: make(bpe("bpe_metaspace"), None, P.Metaspace(split=False), dec=D.Metaspace(split=False)),
    "pre_Metaspace_replacement": lambda: make(bpe(), None, P.Metaspace(replacement="_"), dec=D.Metaspace(replacement="_")),
    "pre_CharDelimiterSplit": lambda: make(bpe(), None, P.CharDelimiterSplit("e")),
    "pre_CharDelimiterSplit_space": lambda: make(bpe(), None, P.CharDelimiterSplit(" ")),
    "pre_Sequence": lambda: make(bpe(), None, P.Sequence([P.WhitespaceSplit(), P.Punctuation(), P.Digits(True)])),
    "pre_Sequence_bytelevel": lambda: make(bpe("bpe_bytelevel"), None,
                                           P.Sequence([P.Split(Regex(r"\d{1,3}"), "isolated"), P.ByteLevel(use_regex=False)]),
                                           dec=D.ByteLevel()),
    "pre_none": lambda: make(bpe(), None, None),
    "pre_FixedLength": lambda: make(bpe(), None, P.FixedLength(length=3)),
    "pre_FixedLength_default": lambda: make(bpe(), None, P.Sequence([P.WhitespaceSplit(), P.FixedLength()])),
    # models
    "model_BPE": lambda: make(bpe(), None, WS),
    "model_BPE_no_unk": lambda: make(bpe(unk_token=None), None, WS),
    "model_BPE_fuse_unk": lambda: make(bpe(fuse_unk=True), None, WS),
    "model_BPE_byte_fallback": lambda: make(bpe(extra_vocab=BYTES, byte_fallback=True), None, WS,
                                            dec=D.Sequence([D.ByteFallback(), D.Fuse()])),
    "model_BPE_byte_fallback_fuse_unk": lambda: make(bpe(extra_vocab=BYTES, byte_fallback=True, fuse_unk=True), None, WS,
                                                     dec=D.Sequence([D.ByteFallback(), D.Fuse()])),
    "model_BPE_ignore_merges": lambda: make(bpe(ignore_merges=True), None, WS),
    "model_BPE_dropout_1": lambda: make(bpe(dropout=1.0), None, WS),
    "model_BPE_affixes": lambda: make(bpe("bpe_affix"), None, WS, dec=D.BPEDecoder(suffix="</w>")),
    "model_BPE_affixes_ignore_merges": lambda: make(bpe("bpe_affix", ignore_merges=True), None, WS, dec=D.BPEDecoder(suffix="</w>")),
    "model_BPE_bytelevel_ignore_merges": lambda: make(bpe("bpe_bytelevel", ignore_merges=True), None, P.ByteLevel(),
                                                      dec=D.ByteLevel()),
    "model_WordPiece": lambda: make(wordpiece(), N.BertNormalizer(), P.BertPreTokenizer(), dec=D.WordPiece()),
    "model_WordPiece_max_chars": lambda: make(wordpiece(max_input_chars_per_word=5), N.BertNormalizer(), P.BertPreTokenizer(),
                                              dec=D.WordPiece()),
    "model_WordPiece_prefix": lambda: make(M.WordPiece({k.replace("##", "@@"): v for k, v in trained("wordpiece")["vocab"].items()},
                                                       unk_token="[UNK]", continuing_subword_prefix="@@"),
                                           N.BertNormalizer(), P.BertPreTokenizer(), dec=D.WordPiece(prefix="@@")),
    "model_WordLevel": lambda: make(wordlevel(), None, WS),
    "model_WordLevel_ws_split": lambda: make(wordlevel(), None, P.WhitespaceSplit()),
    # added tokens
    "added_plain": lambda: make(bpe(), None, WS, added=["<a>", "<ab>", "hello"], special=["[MASK]"]),
    "added_special": lambda: make(bpe(), None, WS, special=["<a>", "<ab>", "[MASK]", "</s>", "<s>"]),
    "added_single_word": lambda: make(bpe(), None, WS, added=[AddedToken("<a>", single_word=True), AddedToken("ab", single_word=True)],
                                      special=[AddedToken("[MASK]", single_word=True)]),
    "added_lstrip": lambda: make(bpe(), None, WS, added=[AddedToken("<a>", lstrip=True)], special=[AddedToken("[MASK]", lstrip=True)]),
    "added_rstrip": lambda: make(bpe(), None, WS, added=[AddedToken("<a>", rstrip=True)], special=[AddedToken("[MASK]", rstrip=True)]),
    "added_lstrip_rstrip": lambda: make(bpe(), None, WS, added=[AddedToken("<ab>", lstrip=True, rstrip=True)],
                                        special=[AddedToken("[MASK]", lstrip=True, rstrip=True, single_word=True)]),
    "added_normalized_true": lambda: make(bpe(), N.Lowercase(), WS, added=[AddedToken("<AB>", normalized=True), AddedToken("world")],
                                          special=[AddedToken("[MASK]", normalized=True)]),
    "added_normalized_false": lambda: make(bpe(), N.Lowercase(), WS, added=[AddedToken("<AB>", normalized=False),
                                                                            AddedToken("World", normalized=False)],
                                           special=[AddedToken("[MASK]", normalized=False)]),
    "added_normalized_nfkc": lambda: make(bpe(), N.NFKC(), WS, added=[AddedToken("ABC", normalized=True), AddedToken("①", normalized=True)]),
    "added_overlapping": lambda: make(bpe(), None, WS, added=["<a>", "<ab>", "<abc>", "a", "ab"]),
    "added_bytelevel": lambda: make(bpe("bpe_bytelevel"), None, P.ByteLevel(), dec=D.ByteLevel(), added=["<a>", " world", "ü"],
                                    special=["<s>", AddedToken("[MASK]", lstrip=True)]),
    "added_metaspace": lambda: make(bpe("bpe_metaspace"), None, P.Metaspace(), dec=D.Metaspace(), added=["<a>", "▁hello"],
                                    special=["<s>", "</s>"]),
    "added_wordpiece": lambda: make(wordpiece(), N.BertNormalizer(), P.BertPreTokenizer(), dec=D.WordPiece(),
                                    added=["<a>", "newword"], special=[AddedToken("[MASK]", lstrip=True)]),
    # post-processors
    "post_Template_single_pair": lambda: _with_post(template),
    "post_Template_ids_types": lambda: _with_post(lambda t: processors.TemplateProcessing(
        single="[CLS]:1 $A:2 [SEP]:3", pair="[CLS] $A [SEP] [SEP]:1 $B:1 [SEP]:1",
        special_tokens=ids_of(t, "[CLS]", "[SEP]"))),
    "post_Template_pair_first": lambda: _with_post(lambda t: processors.TemplateProcessing(
        single="$A [SEP]", pair="$B:1 [SEP] $A [CLS]:1", special_tokens=ids_of(t, "[CLS]", "[SEP]"))),
    "post_Template_multi_id": lambda: _with_post(lambda t: processors.TemplateProcessing(
        single="[X] $A [SEP]", pair="[X] $A [SEP] $B:1 [X]:1",
        special_tokens=[("[SEP]", t.token_to_id("[SEP]")),
                        {"id": "[X]", "ids": [t.token_to_id("<s>"), t.token_to_id("</s>")], "tokens": ["<s>", "</s>"]}])),
    "post_Bert": lambda: _with_post(lambda t: processors.BertProcessing(("[SEP]", t.token_to_id("[SEP]")),
                                                                        ("[CLS]", t.token_to_id("[CLS]")))),
    "post_Roberta_default": lambda: _with_post(lambda t: processors.RobertaProcessing(("</s>", t.token_to_id("</s>")),
                                                                                      ("<s>", t.token_to_id("<s>"))), **_bl()),
    "post_Roberta_no_trim": lambda: _with_post(lambda t: processors.RobertaProcessing(("</s>", t.token_to_id("</s>")),
                                                                                      ("<s>", t.token_to_id("<s>")), trim_offsets=False),
                                               **_bl()),
    "post_Roberta_no_prefix": lambda: _with_post(lambda t: processors.RobertaProcessing(
        ("</s>", t.token_to_id("</s>")), ("<s>", t.token_to_id("<s>")), add_prefix_space=False), **_bl(add_prefix_space=False)),
    "post_Roberta_trim_prefix_mismatch": lambda: _with_post(lambda t: processors.RobertaProcessing(
        ("</s>", t.token_to_id("</s>")), ("<s>", t.token_to_id("<s>")), add_prefix_space=True), **_bl(add_prefix_space=False)),
    "post_ByteLevel_trim": lambda: _with_post(lambda t: processors.ByteLevel(trim_offsets=True), **_bl()),
    "post_ByteLevel_no_trim": lambda: _with_post(lambda t: processors.ByteLevel(trim_offsets=False), **_bl()),
    "post_ByteLevel_trim_no_prefix": lambda: _with_post(lambda t: processors.ByteLevel(trim_offsets=True, add_prefix_space=False),
                                                        **_bl(add_prefix_space=False)),
    "post_Sequence": lambda: _with_post(lambda t: processors.Sequence([
        processors.ByteLevel(trim_offsets=True),
        processors.TemplateProcessing(single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
                                      special_tokens=ids_of(t, "<s>", "</s>"))]), **_bl()),
    # decoders
    "dec_ByteLevel": lambda: make(bpe("bpe_bytelevel"), None, P.ByteLevel(), dec=D.ByteLevel()),
    "dec_WordPiece_cleanup": lambda: make(wordpiece(), N.BertNormalizer(), P.BertPreTokenizer(), dec=D.WordPiece()),
    "dec_WordPiece_no_cleanup": lambda: make(wordpiece(), N.BertNormalizer(), P.BertPreTokenizer(), dec=D.WordPiece(cleanup=False)),
    "dec_Metaspace": lambda: make(bpe("bpe_metaspace"), None, P.Metaspace(), dec=D.Metaspace()),
    "dec_ByteFallback_alone": lambda: make(bpe(extra_vocab=BYTES, byte_fallback=True), None, WS, dec=D.ByteFallback()),
    "dec_Fuse": lambda: make(bpe(), None, WS, dec=D.Fuse()),
    "dec_Strip": lambda: make(bpe(), None, WS, dec=D.Strip(" ", 1, 1)),
    "dec_Strip_char": lambda: make(bpe("bpe_metaspace"), None, P.Metaspace(), dec=D.Sequence([D.Replace("▁", " "), D.Strip(" ", 1, 0)])),
    "dec_Replace_string": lambda: make(bpe("bpe_metaspace"), None, P.Metaspace(), dec=D.Replace("▁", " ")),
    "dec_Replace_regex": lambda: make(bpe(), None, WS, dec=D.Replace(Regex("[aeiou]+"), "*")),
    "dec_BPEDecoder": lambda: make(bpe("bpe_affix"), None, WS, dec=D.BPEDecoder(suffix="</w>")),
    "dec_BPEDecoder_default": lambda: make(bpe(), None, WS, dec=D.BPEDecoder()),
    "dec_CTC": lambda: make(wordlevel(), None, WS, dec=D.CTC(pad_token="[PAD]", word_delimiter_token="|")),
    "dec_CTC_no_cleanup": lambda: make(wordlevel(), None, WS, dec=D.CTC(cleanup=False)),
    "dec_CTC_chars": lambda: make(bpe(), None, WS, dec=D.CTC(pad_token="e", word_delimiter_token="t")),
    "dec_Sequence_llama": lambda: make(bpe("bpe_metaspace", extra_vocab=BYTES, byte_fallback=True), N.Sequence(
        [N.Prepend("▁"), N.Replace(" ", "▁")]), None, dec=D.Sequence([D.Replace("▁", " "), D.ByteFallback(), D.Fuse(),
                                                                       D.Strip(" ", 1, 0)])),
    "dec_none": lambda: make(bpe(), None, WS),
    # combined pipelines
    "combo_bert": lambda: _with_post(lambda t: template(t), model_fn=wordpiece, pre=P.BertPreTokenizer(), dec=D.WordPiece()),
    "combo_everything": lambda: _combo_everything(),
}


def _combo_everything():
    tok = make(bpe("bpe_bytelevel"), N.Sequence([N.NFKC(), N.Replace(Regex(r"\s{2,}"), " ")]),
               P.Sequence([P.Digits(True), P.ByteLevel(add_prefix_space=True)]),
               dec=D.ByteLevel(), added=["<a>", AddedToken("<ab>", single_word=True)],
               special=["<s>", "</s>", AddedToken("[MASK]", lstrip=True, rstrip=True)])
    tok.post_processor = processors.Sequence([processors.ByteLevel(trim_offsets=True),
                                              processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")),
                                                                           ("<s>", tok.token_to_id("<s>")))])
    return tok


# Known differences from HF (config name -> minimal JSON + text, HF's result and ours): none today.
XFAIL: dict[str, str] = {}


@functools.lru_cache(maxsize=None)
def built(name: str):
    hf = CONFIGS[name]()
    return tokenmill.HFTokenizer.from_str(hf.to_str()), hf


def _params(names, xfail=XFAIL):
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=xfail[n])) if n in xfail else n for n in names]


def check_decode_ids(tm, hf):
    size = hf.get_vocab_size(True)
    for ids in ([], list(range(0, size, 7))[:60], list(range(size - 40, size)), [0, 0, 1, 1, 2, 3] * 3):
        for skip in (True, False):
            assert tm.decode(ids, skip_special_tokens=skip) == hf.decode(ids, skip_special_tokens=skip), f"decode {ids[:8]}"


@pytest.mark.parametrize("name", _params(list(CONFIGS)))
def test_component(name):
    tm, hf = built(name)
    assert tm.get_vocab(True) == hf.get_vocab(True)
    for text in TEXTS:
        assert_same(tm, hf, text)
    for a, b in PAIRS:
        assert_same(tm, hf, a, b)
    check_decode_ids(tm, hf)


@given(st.text(max_size=60), st.text(max_size=20))
@settings(max_examples=hyp_examples(40))
def test_components_hypothesis_text(text, pair):
    text, pair = text.replace("\ud800", ""), pair.replace("\ud800", "")
    for name in CONFIGS:
        if name in XFAIL:
            continue
        tm, hf = built(name)
        assert_same(tm, hf, text)
    for name in ("post_Template_single_pair", "post_Roberta_default", "post_Sequence", "combo_everything"):
        tm, hf = built(name)
        assert_same(tm, hf, text, pair)


# Pieces that hit the components' corners more often than uniform text does.
PIECES = ["<a>", "<ab>", "<abc>", "[MASK]", "[CLS]", "<s>", "</s>", "hello", "world", "World", " ", "  ", "\t", "\n", "\r\n",
          "\u00a0", "\u3000", "\u200b", "é", "e\u0301", "\u0301", "Ä", "ß", "İ", "ﬁ", "①", "½", "1", "23", "456", "the", "The",
          "THE", "!", ",", ".", "'", "'s", "-", "_", "▁", "日", "本", "中", "😀", "👍🏽", "\u0000", "\x7f", "a", "b", "c", "ab",
          "A", "x", "|", "#", "##", "</w>", "e", "t"]
fragments = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


@given(fragments, fragments)
@settings(max_examples=hyp_examples(40))
def test_components_hypothesis_fragments(text, pair):
    for name in CONFIGS:
        if name in XFAIL:
            continue
        tm, hf = built(name)
        assert_same(tm, hf, text)
        assert_same(tm, hf, text, pair)


# ---------------------------------------------------------------------------- truncation and padding
def _fields(e):
    return (e.ids, e.tokens, e.offsets, e.type_ids, e.word_ids, e.special_tokens_mask, e.attention_mask, e.sequence_ids,
            [(o.ids, o.tokens, o.offsets, o.type_ids, o.attention_mask) for o in e.overflowing])


# HF's Rust panics (e.g. a stride not smaller than the room truncation leaves) are BaseExceptions.
def _hf_refuses(e: BaseException) -> bool:
    """HF's error, or a Rust panic (pyo3's PanicException is a BaseException that cannot be
    imported by name: HF panics on a stride not smaller than the room truncation leaves)."""
    return not isinstance(e, (KeyboardInterrupt, SystemExit, GeneratorExit))


def same_or_both_raise(tm, hf, text, pair=None):
    for add in (True, False):
        try:
            want = hf.encode(text, pair, add_special_tokens=add) if pair is not None else hf.encode(text, add_special_tokens=add)
        except BaseException as e:  # noqa: BLE001 - HF refuses (see _hf_refuses): so must we
            if not _hf_refuses(e):
                raise
            with pytest.raises(Exception):
                tm.encode_full(text, pair, add_special_tokens=add)
            continue
        got = tm.encode_full(text, pair, add_special_tokens=add)
        assert _fields(got) == _fields(want), f"text={text!r} pair={pair!r} add={add}"


def assert_batch(tm, hf, texts, pairs=None):
    for add in (True, False):
        inputs = list(zip(texts, pairs)) if pairs is not None else list(texts)
        try:
            want = hf.encode_batch(inputs, add_special_tokens=add)
        except BaseException as e:  # noqa: BLE001 - HF refuses (see _hf_refuses): so must we
            if not _hf_refuses(e):
                raise
            with pytest.raises(Exception):
                tm.encode_batch_full(texts, pairs, add_special_tokens=add)
            continue
        got = tm.encode_batch_full(texts, pairs, add_special_tokens=add)
        assert [_fields(e) for e in got] == [_fields(e) for e in want], f"batch add={add}"
        assert tm.encode_batch(texts, pairs=pairs, add_special_tokens=add) == [e.ids for e in want]
        if pairs is None and tm.padding is not None and len({len(e.ids) for e in want}) < 2:
            # the padded matrix, built from ids alone, is HF's padded batch
            ids, mask = tm.encode_batch_to_numpy(texts, add_special_tokens=add)
            assert ids.tolist() == [e.ids for e in want] and mask.tolist() == [e.attention_mask for e in want]


TP_BASES = ["combo_bert", "post_Roberta_default", "model_BPE"]
TP_TEXTS = ["", "a", "Hello world, how are you doing today?", "one two three four five six seven eight nine ten eleven",
            "日本語 😀 Café"]
TP_PAIRS = [("Hello world, how are you", "fine thanks and you"), ("a", "b c d e f g h i j k l"),
            ("one two three four five six seven eight", "x"), ("", ""), ("short", "")]

TRUNCATIONS = [
    dict(max_length=m, stride=s, strategy=st_, direction=d)
    for m in (1, 4, 7, 12)
    for s in (0, 2)
    for st_ in ("longest_first", "only_first", "only_second")
    for d in ("right", "left")
    if s < m
]
PADDINGS = [
    dict(length=None), dict(length=16), dict(length=3), dict(length=None, direction="left"),
    dict(length=10, direction="left", pad_id=5, pad_type_id=2, pad_token="[MASK]"),
    dict(length=None, pad_to_multiple_of=8), dict(length=5, pad_to_multiple_of=4, direction="left"),
]


def _tid(d):
    return "-".join(f"{k}={v}" for k, v in d.items())


def _hf_with(base, trunc=None, pad=None):
    hf = CONFIGS[base]()
    if trunc is not None:
        hf.enable_truncation(**trunc)
    if pad is not None:
        pad = dict(pad)
        if "pad_token" in pad or "pad_id" not in pad:
            pad.setdefault("pad_token", "[PAD]")
            pad.setdefault("pad_id", hf.token_to_id(pad["pad_token"]))
        hf.enable_padding(**pad)
    return hf, pad


def _tm_with(base, trunc=None, pad=None):
    tm, _ = built(base)
    if trunc is not None:
        tm = tm.with_truncation(**trunc)
    if pad is not None:
        pad = dict(pad)
        if pad.get("length", "longest") is None:  # HF's enable_padding(length=None): the batch's longest
            pad["length"] = "longest"
        tm = tm.with_padding(**pad)
    return tm


@pytest.mark.parametrize("base", TP_BASES)
@pytest.mark.parametrize("trunc", TRUNCATIONS, ids=_tid)
def test_truncation(base, trunc):
    hf, _ = _hf_with(base, trunc)
    for tm in (tokenmill.HFTokenizer.from_str(hf.to_str()), _tm_with(base, trunc)):
        for t in TP_TEXTS:
            same_or_both_raise(tm, hf, t)
        for a, b in TP_PAIRS:
            same_or_both_raise(tm, hf, a, b)


@pytest.mark.parametrize("base", TP_BASES)
@pytest.mark.parametrize("pad", PADDINGS, ids=_tid)
def test_padding(base, pad):
    hf, pad = _hf_with(base, None, pad)
    for tm in (tokenmill.HFTokenizer.from_str(hf.to_str()), _tm_with(base, None, pad)):
        for t in TP_TEXTS:
            same_or_both_raise(tm, hf, t)
        for a, b in TP_PAIRS:
            same_or_both_raise(tm, hf, a, b)
        assert_batch(tm, hf, TP_TEXTS)
        assert_batch(tm, hf, [a for a, _ in TP_PAIRS], [b for _, b in TP_PAIRS])
        assert_batch(tm, hf, [])


@pytest.mark.parametrize("base", TP_BASES)
@pytest.mark.parametrize("trunc", [TRUNCATIONS[i] for i in range(0, len(TRUNCATIONS), 5)], ids=_tid)
@pytest.mark.parametrize("pad", PADDINGS[::2], ids=_tid)
def test_truncation_and_padding(base, trunc, pad):
    hf, pad = _hf_with(base, trunc, pad)
    for tm in (tokenmill.HFTokenizer.from_str(hf.to_str()), _tm_with(base, trunc, pad)):
        for a, b in TP_PAIRS[:3]:
            same_or_both_raise(tm, hf, a)
            same_or_both_raise(tm, hf, a, b)
        assert_batch(tm, hf, TP_TEXTS)
        assert_batch(tm, hf, [a for a, _ in TP_PAIRS], [b for _, b in TP_PAIRS])


# ---------------------------------------------------------------------------- one test per option that changes ids
def _tiny_bpe(**opts):
    return M.BPE({"a": 0, "b": 1, "c": 2, "bc": 3, "abc": 4, "[UNK]": 5}, [("b", "c")], unk_token="[UNK]", **opts)


def _tiny_prefix(**opts):
    # The merge's result is a + b without b's prefix when the prefix is set ("ab"), else "a##b".
    return M.BPE({"a": 0, "b": 1, "##b": 2, "ab": 3, "[UNK]": 4, "a##b": 5}, [("a", "##b")], unk_token="[UNK]", **opts)


def _trunc(base, **kw):
    def build():
        hf = CONFIGS[base]()
        hf.enable_truncation(**kw)
        return hf
    return build


def _pad(base, **kw):
    def build():
        hf = CONFIGS[base]()
        hf.enable_padding(pad_id=hf.token_to_id("[PAD]"), **kw)
        return hf
    return build


def _meta(added=(), **kw):
    return lambda: make(bpe("bpe_metaspace"), None, P.Metaspace(**kw), dec=D.Metaspace(**kw), added=added)


def _ctc(**kw):
    # CTC's cleanup works inside each token: tokens with spaces come from a Split on ",".
    vocab = {"[UNK]": 0, "[PAD]": 1, "|": 2, "a .": 3, "do n't": 4, "b": 5}
    return make(M.WordLevel(vocab, unk_token="[UNK]"), None, P.Split(",", "removed"), dec=D.CTC(**kw))


def _bytelevel(**kw):
    return lambda: make(bpe("bpe_bytelevel"), None, P.ByteLevel(**kw), dec=D.ByteLevel())


def _wp_norm(**kw):
    return lambda: make(wordpiece(), N.BertNormalizer(**kw), P.BertPreTokenizer(), dec=D.WordPiece())


def _added(*tokens, norm=None):
    return lambda: make(bpe(), norm, WS, added=list(tokens))


def _split(pattern, behavior, invert=False):
    return lambda: make(bpe(), None, P.Split(pattern, behavior, invert=invert))


def _punct(behavior):
    return lambda: make(bpe(), None, P.Punctuation(behavior))


def _post(fn):
    return lambda: _with_post(fn)


def _roberta(**kw):
    return lambda: _with_post(lambda t: processors.RobertaProcessing(("</s>", t.token_to_id("</s>")), ("<s>", t.token_to_id("<s>")),
                                                                     **kw), **_bl())


# option -> (builder without it, builder with it, text, pair)
OPTIONS = {
    "normalizer_NFC": (lambda: make(bpe(), None, WS), lambda: make(bpe(), N.NFC(), WS), "cafe\u0301", None),
    "normalizer_NFD": (lambda: make(bpe(), None, WS), lambda: make(bpe(), N.NFD(), WS), "café", None),
    "normalizer_NFKC": (lambda: make(bpe(), None, WS), lambda: make(bpe(), N.NFKC(), WS), "ﬁne ①", None),
    "normalizer_NFKD": (lambda: make(bpe(), None, WS), lambda: make(bpe(), N.NFKD(), WS), "ﬁne é", None),
    "normalizer_Lowercase": (lambda: make(bpe(), None, WS), lambda: make(bpe(), N.Lowercase(), WS), "THE Boy", None),
    "normalizer_StripAccents": (lambda: make(bpe(), N.NFD(), WS), lambda: make(bpe(), N.Sequence([N.NFD(), N.StripAccents()]), WS),
                                "thé", None),
    "bert_normalizer_clean_text": (_wp_norm(clean_text=False), _wp_norm(clean_text=True), "the\x00boy\x7f", None),
    "bert_normalizer_handle_chinese_chars": (_wp_norm(handle_chinese_chars=False), _wp_norm(), "the中boy", None),
    "bert_normalizer_strip_accents": (_wp_norm(strip_accents=False), _wp_norm(strip_accents=True), "thé", None),
    "bert_normalizer_lowercase": (_wp_norm(lowercase=False), _wp_norm(), "THE Boy", None),
    "normalizer_Replace_string": (lambda: make(bpe(), None, WS), lambda: make(bpe(), N.Replace("th", "X"), WS), "the", None),
    "normalizer_Replace_regex": (lambda: make(bpe(), None, WS), lambda: make(bpe(), N.Replace(Regex("[aeiou]"), ""), WS), "house",
                                 None),
    "normalizer_Prepend": (lambda: make(bpe(), None, None), lambda: make(bpe(), N.Prepend("t"), None), "he", None),
    "normalizer_Strip_left": (lambda: make(bpe(), None, None), lambda: make(bpe(), N.Strip(True, False), None), "  the", None),
    "normalizer_Strip_right": (lambda: make(bpe(), None, None), lambda: make(bpe(), N.Strip(False, True), None), "the  ", None),
    "normalizer_Nmt": (lambda: make(bpe(), None, WS), lambda: make(bpe(), N.Nmt(), WS), "the\u200bboy", None),
    "pre_tokenizer_ByteLevel_add_prefix_space": (_bytelevel(add_prefix_space=False), _bytelevel(add_prefix_space=True), "the", None),
    "pre_tokenizer_ByteLevel_use_regex": (_bytelevel(use_regex=False), _bytelevel(use_regex=True), "the boy's", None),
    **{f"pre_tokenizer_Split_behavior_{b}": (_split(Regex(r"\s"), "removed"), _split(Regex(r"\s"), b), "the boy", None)
       for b in ("isolated", "merged_with_previous", "merged_with_next", "contiguous")},
    "pre_tokenizer_Split_contiguous_runs": (_split(" ", "isolated"), _split(" ", "contiguous"), "a  b", None),
    "pre_tokenizer_Split_invert": (_split(Regex("[a-z]+"), "removed"), _split(Regex("[a-z]+"), "removed", invert=True),
                                   "the boy", None),
    "pre_tokenizer_Split_string_vs_regex": (_split(".", "removed"), _split(Regex("."), "removed"), "a.b", None),
    **{f"pre_tokenizer_Punctuation_{b}": (_punct("isolated"), _punct(b), "a,.b", None)
       for b in ("removed", "merged_with_previous", "merged_with_next", "contiguous")},
    "pre_tokenizer_Digits_individual_digits": (lambda: make(bpe(), None, P.Digits(False)), lambda: make(bpe(), None, P.Digits(True)),
                                               "123", None),
    "pre_tokenizer_Whitespace_vs_WhitespaceSplit": (lambda: make(bpe(), None, P.WhitespaceSplit()), lambda: make(bpe(), None, WS),
                                                    "boy's.", None),
    "pre_tokenizer_BertPreTokenizer": (lambda: make(bpe(), None, P.WhitespaceSplit()), lambda: make(bpe(), None, P.BertPreTokenizer()),
                                       "boy's", None),
    "pre_tokenizer_Metaspace_prepend_scheme_never": (_meta(), _meta(prepend_scheme="never"), "the", None),
    "pre_tokenizer_Metaspace_prepend_scheme_first": (_meta(added=["<a>"]), _meta(prepend_scheme="first", added=["<a>"]),
                                                     "the<a>the", None),
    "pre_tokenizer_Metaspace_split": (_meta(split=True), _meta(split=False), "the boy the boy", None),
    "pre_tokenizer_Metaspace_replacement": (_meta(), _meta(replacement="e"), "the boy", None),
    "pre_tokenizer_CharDelimiterSplit": (lambda: make(bpe(), None, None), lambda: make(bpe(), None, P.CharDelimiterSplit("h")),
                                         "the", None),
    "pre_tokenizer_FixedLength": (lambda: make(bpe(), None, None), lambda: make(bpe(), None, P.FixedLength(2)), "the", None),
    "model_BPE_byte_fallback": (lambda: make(bpe(extra_vocab=BYTES), None, WS),
                                lambda: make(bpe(extra_vocab=BYTES, byte_fallback=True), None, WS), "日", None),
    "model_BPE_ignore_merges": (lambda: make(_tiny_bpe(), None, None), lambda: make(_tiny_bpe(ignore_merges=True), None, None),
                                "abc", None),
    "model_BPE_fuse_unk": (lambda: make(bpe(), None, WS), lambda: make(bpe(fuse_unk=True), None, WS), "日本", None),
    "model_BPE_unk_token": (lambda: make(bpe(unk_token=None), None, WS), lambda: make(bpe(), None, WS), "a日b", None),
    "model_BPE_dropout": (lambda: make(bpe(), None, WS), lambda: make(bpe(dropout=1.0), None, WS), "the", None),
    "model_BPE_continuing_subword_prefix": (lambda: make(_tiny_prefix(), None, WS),
                                            lambda: make(_tiny_prefix(continuing_subword_prefix="##"), None, WS), "ab", None),
    "model_BPE_end_of_word_suffix": (lambda: make(bpe("bpe_affix", end_of_word_suffix=None), None, WS),
                                     lambda: make(bpe("bpe_affix"), None, WS), "the", None),
    "model_WordPiece_max_input_chars_per_word": (lambda: make(wordpiece(), None, WS),
                                                 lambda: make(wordpiece(max_input_chars_per_word=3), None, WS), "house", None),
    "model_WordPiece_continuing_subword_prefix": (lambda: make(wordpiece(), None, WS),
                                                  lambda: make(wordpiece(continuing_subword_prefix="@@"), None, WS), "boyish", None),
    "model_WordPiece_unk_token": (lambda: make(wordpiece(), None, WS), lambda: make(wordpiece(unk_token="[MASK]"), None, WS),
                                  "日", None),
    "model_WordLevel_unk_token": (lambda: make(wordlevel(), None, WS), lambda: make(wordlevel(unk_token="[MASK]"), None, WS),
                                  "zzzq", None),
    "added_token": (_added(), _added("he"), "the", None),
    "added_token_special": (lambda: make(bpe(), N.Lowercase(), WS, added=["THE"]), lambda: make(bpe(), N.Lowercase(), WS, special=["THE"]),
                            "THE", None),
    "added_token_single_word": (_added("he"), _added(AddedToken("he", single_word=True)), "the he", None),
    "added_token_lstrip": (_added("<a>"), _added(AddedToken("<a>", lstrip=True)), "x  <a>", None),
    "added_token_rstrip": (_added("<a>"), _added(AddedToken("<a>", rstrip=True)), "<a>  x", None),
    "added_token_normalized": (_added(AddedToken("HE", normalized=False), norm=N.Lowercase()),
                               _added(AddedToken("HE", normalized=True), norm=N.Lowercase()), "tHE", None),
    "added_token_longest_match": (_added("<a>"), _added("<a>", "<ab>"), "<ab>", None),
    "post_processor_TemplateProcessing_single": (lambda: make(bpe(), None, WS), _post(template), "the", None),
    "post_processor_TemplateProcessing_pair": (_post(lambda t: template(t, pair="[CLS] $A [SEP] $B:1 [SEP]:1")),
                                               _post(lambda t: template(t, pair="[CLS] $B:1 [SEP] $A [SEP]:1")), "the", "boy"),
    "post_processor_TemplateProcessing_type_ids": (_post(lambda t: template(t, pair="[CLS] $A [SEP] $B:1 [SEP]:1")),
                                                   _post(lambda t: template(t, pair="[CLS] $A [SEP] $B:3 [SEP]:2")), "the", "boy"),
    "post_processor_BertProcessing": (lambda: make(bpe(), None, WS), _post(lambda t: processors.BertProcessing(
        ("[SEP]", t.token_to_id("[SEP]")), ("[CLS]", t.token_to_id("[CLS]")))), "the", "boy"),
    "post_processor_RobertaProcessing": (lambda: make(bpe("bpe_bytelevel"), None, P.ByteLevel()), _roberta(), "the", "boy"),
    "post_processor_RobertaProcessing_trim_offsets": (_roberta(trim_offsets=False), _roberta(trim_offsets=True), " the  boy", None),
    "post_processor_RobertaProcessing_add_prefix_space": (_roberta(add_prefix_space=False), _roberta(add_prefix_space=True),
                                                          "the  boy", None),
    "post_processor_ByteLevel_trim_offsets": (lambda: _with_post(lambda t: processors.ByteLevel(trim_offsets=False), **_bl()),
                                              lambda: _with_post(lambda t: processors.ByteLevel(trim_offsets=True), **_bl()),
                                              "the  boy ", None),
    "decoder_ByteLevel": (lambda: make(bpe("bpe_bytelevel"), None, P.ByteLevel()),
                          lambda: make(bpe("bpe_bytelevel"), None, P.ByteLevel(), dec=D.ByteLevel()), "the é", None),
    "decoder_WordPiece_cleanup": (lambda: make(wordpiece(), None, WS, dec=D.WordPiece(cleanup=False)),
                                  lambda: make(wordpiece(), None, WS, dec=D.WordPiece()), "the boy .", None),
    "decoder_WordPiece_prefix": (lambda: make(wordpiece(), None, WS, dec=D.WordPiece()),
                                 lambda: make(wordpiece(), None, WS, dec=D.WordPiece(prefix="b")), "the boy", None),
    "decoder_Metaspace_prepend_scheme": (lambda: make(bpe("bpe_metaspace"), None, P.Metaspace(), dec=D.Metaspace()),
                                         lambda: make(bpe("bpe_metaspace"), None, P.Metaspace(), dec=D.Metaspace(prepend_scheme="never")),
                                         "the boy", None),
    "decoder_ByteFallback": (lambda: make(bpe(extra_vocab=BYTES, byte_fallback=True), None, WS),
                             lambda: make(bpe(extra_vocab=BYTES, byte_fallback=True), None, WS, dec=D.ByteFallback()), "日", None),
    "decoder_Fuse": (lambda: make(bpe(), None, WS), lambda: make(bpe(), None, WS, dec=D.Fuse()), "the boy", None),
    "decoder_Strip": (lambda: make(bpe(), None, WS, dec=D.Fuse()), lambda: make(bpe(), None, WS, dec=D.Sequence([D.Strip("t", 1, 0),
                                                                                                             D.Fuse()])),
                      "the boy", None),
    "decoder_Replace": (lambda: make(bpe(), None, WS), lambda: make(bpe(), None, WS, dec=D.Replace("e", "E")), "the", None),
    "decoder_BPEDecoder_suffix": (lambda: make(bpe("bpe_affix"), None, WS, dec=D.BPEDecoder(suffix="y</w>")),
                                  lambda: make(bpe("bpe_affix"), None, WS, dec=D.BPEDecoder(suffix="</w>")), "the boy", None),
    "decoder_CTC": (lambda: make(wordlevel(), None, WS), lambda: make(wordlevel(), None, WS, dec=D.CTC(pad_token="the")),
                    "the the boy boy", None),
    "decoder_CTC_cleanup": (lambda: _ctc(cleanup=False), lambda: _ctc(cleanup=True), "a .,do n't,b", None),
    "truncation_max_length": (lambda: CONFIGS["combo_bert"](), _trunc("combo_bert", max_length=4), "the boy the boy", None),
    "truncation_stride": (_trunc("combo_bert", max_length=4), _trunc("combo_bert", max_length=4, stride=1), "the boy the boy", None),
    "truncation_strategy_only_first": (_trunc("combo_bert", max_length=10),
                                       _trunc("combo_bert", max_length=10, strategy="only_first"), "the boy the", "the boy the boy"),
    "truncation_strategy_only_second": (_trunc("combo_bert", max_length=10),
                                        _trunc("combo_bert", max_length=10, strategy="only_second"), "the boy the boy", "the boy the"),
    "truncation_direction_left": (_trunc("combo_bert", max_length=4), _trunc("combo_bert", max_length=4, direction="left"),
                                  "the boy is", None),
    "padding_length": (lambda: CONFIGS["combo_bert"](), _pad("combo_bert", length=8), "the", None),
    "padding_direction_left": (_pad("combo_bert", length=8), _pad("combo_bert", length=8, direction="left"), "the", None),
    "padding_pad_to_multiple_of": (_pad("combo_bert", length=5), _pad("combo_bert", length=5, pad_to_multiple_of=4), "the", None),
    "padding_pad_id": (_pad("combo_bert", length=8), lambda: _pad_id_7(), "the", None),
}


def _pad_id_7():
    hf = CONFIGS["combo_bert"]()
    hf.enable_padding(length=8, pad_id=7, pad_type_id=1, pad_token="[MASK]")
    return hf


OPTION_XFAIL: dict[str, str] = {}


def _summary(hf, text, pair):
    e = hf.encode(text, pair) if pair is not None else hf.encode(text)
    return (e.ids, e.offsets, e.type_ids, e.word_ids, [o.ids for o in e.overflowing], hf.decode(e.ids), hf.decode(e.ids, skip_special_tokens=False))


@pytest.mark.parametrize("option", _params(list(OPTIONS), OPTION_XFAIL))
def test_option_changes_ids(option):
    off, on, text, pair = OPTIONS[option]
    hf_off, hf_on = off(), on()
    assert _summary(hf_off, text, pair) != _summary(hf_on, text, pair), "the option changes nothing on HF's side"
    for hf in (hf_off, hf_on):
        tm = tokenmill.HFTokenizer.from_str(hf.to_str())
        assert_same(tm, hf, text, pair)
        for t in TEXTS[::3]:
            try:
                hf.encode(t)
            except Exception:  # e.g. only_second truncation of a single text: HF refuses, so must we
                with pytest.raises(Exception):
                    tm.encode(t)
                continue
            assert_same(tm, hf, t)


# ---------------------------------------------------------------------------- unsupported components
def _replace(doc: str, path: tuple, value) -> str:
    d = json.loads(doc)
    node = d
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return json.dumps(d)


UNSUPPORTED = {
    "model_BPE_dropout_0.5": lambda: make(bpe(dropout=0.5), None, WS).to_str(),
    "pre_tokenizer_UnicodeScripts": lambda: make(bpe(), None, P.UnicodeScripts()).to_str(),
    "pre_tokenizer_UnicodeScripts_in_Sequence": lambda: make(bpe(), None, P.Sequence([WS, P.UnicodeScripts()])).to_str(),
    "model_unknown_type": lambda: _replace(make(bpe(), None, WS).to_str(), ("model", "type"), "Mystery"),
    "decoder_unknown_type": lambda: _replace(make(bpe(), None, WS, dec=D.Fuse()).to_str(), ("decoder", "type"), "Mystery"),
    "post_processor_unknown_type": lambda: _replace(_with_post(template).to_str(), ("post_processor", "type"), "Mystery"),
    "bpe_unknown_option": lambda: _replace(make(bpe(), None, WS).to_str(), ("model", "new_option"), True),
}


@pytest.mark.parametrize("name", list(UNSUPPORTED))
def test_unsupported_component(name):
    doc = UNSUPPORTED[name]()
    with pytest.raises(tokenmill.UnsupportedError):
        tokenmill.HFTokenizer.from_str(doc)


@given(st.lists(st.tuples(fragments, fragments), min_size=1, max_size=4), st.sampled_from(TRUNCATIONS),
       st.sampled_from(PADDINGS), st.sampled_from(TP_BASES))
@settings(max_examples=hyp_examples(30))
def test_truncation_padding_hypothesis(batch, trunc, pad, base):
    hf, pad = _hf_with(base, trunc, pad)
    tm = _tm_with(base, trunc, pad)
    for a, b in batch:
        same_or_both_raise(tm, hf, a)
        same_or_both_raise(tm, hf, a, b)
    assert_batch(tm, hf, [a for a, _ in batch])
    assert_batch(tm, hf, [a for a, _ in batch], [b for _, b in batch])
