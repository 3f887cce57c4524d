"""Files: tokenmill's native format and the peers' formats, one module per format, each
holding its reader and its writer; `load` recognises a file by its content.

* `native`: ``{"format": "tokenmill", "version": 1, "model": {"type": ...}}`` for every family.
* `tiktoken`: rank files (``load_tiktoken_bpe``, ``dump_tiktoken_bpe``), and the rank file +
  ``<stem>.json`` pair that ``export("tiktoken", ...)`` writes.
* `gpt2`: ``encoder.json`` + ``vocab.bpe``.
* `hf`, `hf_regex`: Hugging Face ``tokenizer.json`` (read, plain or gzipped; written).
* `wordpiece_vocab`: BERT's ``vocab.txt`` (read and written).
* `sentencepiece`: sentencepiece ``.model`` files (read and written).

Importing this package registers the exporters (``tok.export("tiktoken" | "hf" | "gpt2" | "sentencepiece", path)``)
and the GPT-2 reader (``Encoding.from_gpt2_files``) with `tokenmill.tokenizer`, so the
tokenizer classes never import a format module. Every write is atomic.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .. import _schema
from .._io import PathLike
from ..encoding import Encoding
from ..models import HFTokenizer, SentencePiece, WordPiece
from ..errors import VocabFormatError
from ..registry import get_encoding, list_encoding_names
from ..tokenizer import Tokenizer, register_exporter, register_reader
from .gpt2 import export_gpt2, load_gpt2_encoding, load_gpt2_files
from .hf import export_hf, hf_tokenizer_dict, load_hf_tokenizer, wordpiece_tokenizer_dict, looks_like_hf_json, read_maybe_gzip, write_hf_tokenizer
from .hf_regex import hf_regex
from .native import load_native, looks_native, save
from .sentencepiece import export_sentencepiece, load_sentencepiece, looks_like_sentencepiece
from .wordpiece_vocab import export_vocab_txt, load_vocab_txt, looks_like_vocab_txt
from .tiktoken import dump_tiktoken_bpe, export_tiktoken, load_tiktoken_bpe, load_tiktoken_files, looks_like_rank_file

__all__ = ["load", "save", "export_tiktoken", "export_hf", "export_gpt2", "hf_tokenizer_dict", "wordpiece_tokenizer_dict", "hf_regex",
           "load_tiktoken_bpe", "dump_tiktoken_bpe", "load_gpt2_files", "READABLE"]

#: What `load` recognises, for its error message.
READABLE = (
    "a standard encoding name (" + ", ".join(list_encoding_names()) + ")",
    "tokenmill's JSON (tok.save)",
    "a tiktoken rank file with the <stem>.json that export('tiktoken') writes beside it",
    "GPT-2's encoder.json + vocab.bpe (either file, or their directory)",
    "a Hugging Face tokenizer.json (plain or .gz)",
    "a WordPiece vocab.txt (options from a tokenizer_config.json beside it)",
    "a sentencepiece .model file",
)


def _only(cls: type, what: str, writer):
    """`writer`, refusing tokenizers of other families with a message that says what to do."""

    def export(tok: Tokenizer, path: PathLike) -> list[Path]:
        if not isinstance(tok, cls):
            raise ValueError(
                f"this format holds {what}; a {type(tok).__name__} is written in tokenmill's format: "
                "tok.save(path) or tok.export('tokenmill', path)"
            )
        return writer(tok, path)

    return export


register_exporter(["tiktoken"], _only(Encoding, "byte-level BPE encodings", export_tiktoken))


def _export_hf(tok: Tokenizer, path: PathLike) -> list[Path]:
    if isinstance(tok, HFTokenizer):
        return write_hf_tokenizer(tok, path)
    if isinstance(tok, WordPiece):
        return export_hf(tok, path)
    return _only(Encoding, "byte-level BPE encodings, WordPiece tokenizers and tokenizers read from a tokenizer.json", export_hf)(tok, path)


register_exporter(["hf", "huggingface"], _export_hf)
register_exporter(["gpt2"], _only(Encoding, "byte-level BPE encodings", export_gpt2))
register_exporter(["vocab.txt"], _only(WordPiece, "WordPiece tokenizers", export_vocab_txt))
register_reader("gpt2", load_gpt2_files)
register_reader("hf", load_hf_tokenizer)
register_exporter(["sentencepiece"], _only(SentencePiece, "SentencePiece models", export_sentencepiece))
register_reader("sentencepiece", load_sentencepiece)


def load(path_or_name: PathLike) -> Any:
    """A tokenizer from a file, recognised by its content, or a standard encoding by name.

    Args:
        path_or_name: A file path (see `READABLE`) or a name from ``list_encoding_names()``.

    Returns:
        An `Encoding` (byte-level BPE) or another `tokenmill.Tokenizer`.

    >>> import tokenmill, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "t.json")
    >>> tokenmill.get_encoding("gpt2").save(p)
    >>> tokenmill.load(p).name, tokenmill.load("cl100k_base").name
    ('gpt2', 'cl100k_base')
    """
    if isinstance(path_or_name, str) and path_or_name in list_encoding_names() and not os.path.exists(path_or_name):
        return get_encoding(path_or_name)
    path = Path(path_or_name)
    if path.is_dir():
        if (path / "encoder.json").is_file() and (path / "vocab.bpe").is_file():
            return load_gpt2_encoding(path / "encoder.json", path / "vocab.bpe")
        raise VocabFormatError(f"is a directory without encoder.json + vocab.bpe; tokenmill.load reads {_readable()}", str(path))
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except FileNotFoundError:
        raise FileNotFoundError(2, f"no such file: {str(path)!r}", str(path)) from None
    if not head.strip():
        raise VocabFormatError(f"the file is empty; tokenmill.load reads {_readable()}", str(path))
    if head[:2] == b"\x1f\x8b":  # gzip: only a tokenizer.json is read gzipped
        data = read_maybe_gzip(path)
        if looks_like_hf_json(data[:4096]):
            return load_hf_tokenizer(path, data)
        raise VocabFormatError(f"a gzip file whose content is not a tokenizer.json; tokenmill.load reads {_readable()}", str(path))
    if looks_like_hf_json(head):
        return load_hf_tokenizer(path)
    if looks_like_sentencepiece(head):
        return load_sentencepiece(path)
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if start == b"{" or path.suffix.lower() == ".json":
        d = _schema.read_json(path)
        if looks_native(d):
            return load_native(path, d)
        if isinstance(d, dict) and d and (path.parent / "vocab.bpe").is_file():
            # An encoder.json (its values are checked, naming the file, by the GPT-2 reader).
            return load_gpt2_encoding(path, path.parent / "vocab.bpe")
        # A JSON object that says nothing about its format: report it as a native file,
        # whose errors name the missing field.
        return load_native(path, d)
    if head.startswith(b"#version") and (path.parent / "encoder.json").is_file():
        return load_gpt2_encoding(path.parent / "encoder.json", path)
    if looks_like_rank_file(head):
        return load_tiktoken_files(path)
    if looks_like_vocab_txt(head):
        return load_vocab_txt(path)
    raise VocabFormatError(f"unknown file content; tokenmill.load reads {_readable()}", str(path))


def _readable() -> str:
    return "; ".join(READABLE)
