"""Hugging Face ``tokenizer.json``: reading any of them (`load_hf_tokenizer`), and writing a
byte-level BPE `Encoding` (`export_hf`) or a BERT-style `WordPiece` (`wordpiece_tokenizer_dict`)
as one.

Reading: the file (plain, or gzipped: recognised by its magic bytes) goes to the Rust core
whole, which parses it and builds its pipeline (`tokenmill.HFTokenizer`); every error names
the file and the field. An `HFTokenizer` exports as the file it was read from.

Writing an `Encoding`:

The document holds a BPE model, the pattern as a ``Split`` pre-tokenizer (matches kept, gaps
dropped: tiktoken's ``findall``; the regex rewritten by `formats.hf_regex`), ``ByteLevel``
without its own regex, ``ignore_merges`` (a piece that is a token is that token, as in
tiktoken) and the specials as added tokens. HF applies merges by pair priority, tiktoken by
the rank of the merged token; listing, for each token in rank order, every split of it into
two tokens makes the two agree (a pair merges exactly when its concatenation is a token, at
that token's rank). Tests load the file in ``tokenizers`` and compare ids.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from pathlib import Path

from .._io import PathLike, atomic_write_bytes
from ..errors import VocabFormatError
from ..models.huggingface import HFTokenizer
from ..models.wordpiece import WordPiece
from .gpt2 import byte_decoder, byte_symbols, merges_for, symbols
from .hf_regex import hf_regex

__all__ = ["hf_tokenizer_dict", "wordpiece_tokenizer_dict", "export_hf", "load_hf_tokenizer", "looks_like_hf_json"]

# The top-level keys of a tokenizer.json; HF writes "version" first, but any of them may lead.
_HF_HEAD = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"(?:version|truncation|padding|added_tokens|normalizer|pre_tokenizer|model|post_processor|decoder)"')


def looks_like_hf_json(head: bytes) -> bool:
    """True when `head` (a file's first bytes, gunzipped) starts like a ``tokenizer.json``."""
    return bool(_HF_HEAD.match(head))


def read_maybe_gzip(path: PathLike) -> bytes:
    """The bytes of `path`, gunzipped when the file is gzip; a truncated or corrupt gzip is a
    `VocabFormatError` naming the file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (EOFError, OSError, zlib.error) as e:
            raise VocabFormatError(f"the gzip data is truncated or corrupt ({e}); download the file again", str(path), format="hf") from None
    return data


def load_hf_tokenizer(path: PathLike, data: bytes | None = None):
    """The `tokenmill.HFTokenizer` of a ``tokenizer.json`` (plain or ``.gz``).

    Args:
        path: Local file path (named in errors).
        data: Its content, already read and gunzipped (`tokenmill.load` has it when it
            recognised a gzipped file: not read and decompressed twice); None: read `path`.

    Returns:
        The tokenizer; ids as Hugging Face ``tokenizers`` gives them.

    >>> import os, tempfile, tokenmill
    >>> p = os.path.join(tempfile.mkdtemp(), "tokenizer.json")
    >>> _ = tokenmill.get_encoding("gpt2").export("hf", p)
    >>> load_hf_tokenizer(p).encode("hello world")
    [31373, 995]
    """
    if data is None:
        data = read_maybe_gzip(path)
    try:
        return HFTokenizer(data)
    except VocabFormatError as e:
        raise e.at(str(path), "hf") from None


def write_hf_tokenizer(tok, path: PathLike) -> list[Path]:
    """Writes an `HFTokenizer` as the ``tokenizer.json`` it was read from (atomically)."""
    atomic_write_bytes(path, tok.to_json_str().encode("utf-8"))
    return [Path(path)]


def hf_tokenizer_dict(enc) -> dict:
    """The Hugging Face ``tokenizer.json`` document of `enc` (see the module docstring).

    >>> import tokenmill
    >>> d = hf_tokenizer_dict(tokenmill.get_encoding("gpt2"))
    >>> d["model"]["type"], d["added_tokens"][0]["content"]
    ('BPE', '<|endoftext|>')
    """
    table = byte_symbols()
    ranks = enc.mergeable_ranks()
    vocab = {symbols(b, table): r for b, r in sorted(ranks.items(), key=lambda kv: kv[1])}
    # Specials go in the model's vocab too (as GPT-2's tokenizer.json does): otherwise HF
    # renumbers added tokens that sit between ordinary ids. That is safe unless the special's
    # text, read as byte symbols, spells some other text: the model would then map that text
    # to the special's id (HF splits out the special's own text before the model sees it).
    byte_of = byte_decoder()
    for s, i in enc.special_tokens.items():
        if all(c in byte_of for c in s) and bytes(byte_of[c] for c in s) != s.encode("utf-8"):
            other = bytes(byte_of[c] for c in s).decode("utf-8", "backslashreplace")
            raise VocabFormatError(
                f"special token {s!r} is spelled in GPT-2's byte symbols, where it reads as the text {other!r}; "
                "a tokenizer.json would give that text the special's id: rename the special token",
                format="hf",
            )
        if vocab.setdefault(s, i) != i:
            raise VocabFormatError(f"special token {s!r} is also an ordinary token's symbol string; tokenizer.json cannot hold both", format="hf")
    merges = [[symbols(a, table), symbols(b, table)] for a, b in merges_for(ranks, all_splits=True)]
    added = _added(enc.special_tokens)
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": hf_regex(enc.pattern)}, "behavior": "Removed", "invert": True},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        },
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": True,
            "vocab": vocab,
            "merges": merges,
        },
    }


def _added(specials: dict) -> list[dict]:
    return [
        {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
        for s, i in sorted(specials.items(), key=lambda kv: kv[1])
    ]


def wordpiece_tokenizer_dict(tok) -> dict:
    """The Hugging Face ``tokenizer.json`` document of a `tokenmill.WordPiece`: BertNormalizer
    with its options, BertPreTokenizer, the WordPiece model, ``[CLS] $A [SEP]`` (pair:
    ``[CLS] $A [SEP] $B:1 [SEP]:1``) as a TemplateProcessing (only the ends the tokenizer
    has; none: no post-processor), the WordPiece decoder and the special tokens as added
    tokens. HF gives the same ids as ``tok.encode`` (tests check it).

    Args:
        tok: The `WordPiece` tokenizer.

    Returns:
        The document, a dict ready for ``json.dumps``.

    >>> from tokenmill import WordPiece
    >>> d = wordpiece_tokenizer_dict(WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hi": 3}))
    >>> d["model"]["type"], d["pre_tokenizer"], [t["content"] for t in d["added_tokens"]]
    ('WordPiece', {'type': 'BertPreTokenizer'}, ['[UNK]', '[CLS]', '[SEP]'])
    """
    o = tok.options
    specials = tok.special_tokens
    vocab = tok.vocab
    cls, sep = o["cls_token"], o["sep_token"]

    def special(t: str, type_id: int) -> dict:
        return {"SpecialToken": {"id": t, "type_id": type_id}}

    def seq(name: str, type_id: int) -> dict:
        return {"Sequence": {"id": name, "type_id": type_id}}

    post = None
    if cls is not None or sep is not None:
        single = ([special(cls, 0)] if cls else []) + [seq("A", 0)] + ([special(sep, 0)] if sep else [])
        pair = single + [seq("B", 1)] + ([special(sep, 1)] if sep else [])
        post = {
            "type": "TemplateProcessing",
            "single": single,
            "pair": pair,
            "special_tokens": {t: {"id": t, "ids": [vocab[t]], "tokens": [t]} for t in (cls, sep) if t is not None},
        }
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": _added(specials),
        "normalizer": {
            "type": "BertNormalizer",
            "clean_text": o["clean_text"],
            "handle_chinese_chars": o["handle_chinese_chars"],
            "strip_accents": o["strip_accents"],
            "lowercase": o["lowercase"],
        },
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": post,
        "decoder": {"type": "WordPiece", "prefix": o["continuing_subword_prefix"], "cleanup": True},
        "model": {
            "type": "WordPiece",
            "unk_token": tok.unk_token,
            "continuing_subword_prefix": o["continuing_subword_prefix"],
            "max_input_chars_per_word": o["max_input_chars_per_word"],
            "vocab": vocab,
        },
    }


def export_hf(enc, path: PathLike) -> list[Path]:
    """Writes `enc` (an `Encoding` or a `WordPiece`) as a Hugging Face ``tokenizer.json``
    (load with ``Tokenizer.from_file``).

    >>> import tokenmill, tempfile, os
    >>> [p] = export_hf(tokenmill.get_encoding("gpt2"), os.path.join(tempfile.mkdtemp(), "tokenizer.json"))
    >>> p.name
    'tokenizer.json'
    """
    path = Path(path)
    d = wordpiece_tokenizer_dict(enc) if isinstance(enc, WordPiece) else hf_tokenizer_dict(enc)
    atomic_write_bytes(path, json.dumps(d, ensure_ascii=False).encode("utf-8"))
    return [path]
