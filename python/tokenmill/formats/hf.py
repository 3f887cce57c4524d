"""Hugging Face ``tokenizer.json``: reading any of them (`load_hf_tokenizer`), and writing a
byte-level BPE `Encoding` as one (`export_hf`).

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
from .gpt2 import byte_decoder, byte_symbols, merges_for, symbols
from .hf_regex import hf_regex

__all__ = ["hf_tokenizer_dict", "export_hf", "load_hf_tokenizer", "looks_like_hf_json"]

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


def load_hf_tokenizer(path: PathLike):
    """The `tokenmill.HFTokenizer` of a ``tokenizer.json`` (plain or ``.gz``).

    Args:
        path: Local file path.

    Returns:
        The tokenizer; ids as Hugging Face ``tokenizers`` gives them.

    >>> import os, tempfile, tokenmill
    >>> p = os.path.join(tempfile.mkdtemp(), "tokenizer.json")
    >>> _ = tokenmill.get_encoding("gpt2").export("hf", p)
    >>> load_hf_tokenizer(p).encode("hello world")
    [31373, 995]
    """
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
    added = [
        {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
        for s, i in sorted(enc.special_tokens.items(), key=lambda kv: kv[1])
    ]
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


def export_hf(enc, path: PathLike) -> list[Path]:
    """Writes `enc` as a Hugging Face ``tokenizer.json`` (load with ``Tokenizer.from_file``).

    >>> import tokenmill, tempfile, os
    >>> [p] = export_hf(tokenmill.get_encoding("gpt2"), os.path.join(tempfile.mkdtemp(), "tokenizer.json"))
    >>> p.name
    'tokenizer.json'
    """
    path = Path(path)
    atomic_write_bytes(path, json.dumps(hf_tokenizer_dict(enc), ensure_ascii=False).encode("utf-8"))
    return [path]
