"""tokenmill: exact, fast tokenizers (byte-level BPE compatible with tiktoken) with a Rust core,
and trainers for byte-level BPE, classic BPE, word-level and char-level tokenizers.

>>> import tokenmill
>>> enc = tokenmill.get_encoding("cl100k_base")
>>> enc.decode(enc.encode("hello world"))
'hello world'
"""

from __future__ import annotations

from .encoding import Encoding
from .errors import (
    DisallowedSpecialTokenError,
    CorpusError,
    InternalError,
    PatternError,
    SpecialTokenError,
    TokenIdError,
    TokenmillError,
    TrainingError,
    UnknownEncodingError,
    UnknownModelError,
    UnknownTokenError,
    VocabFormatError,
    VocabWarning,
)
from .formats import load
from .models import CharLevel, ClassicBPE, Tokenizer, WordLevel
from .loaders import dump_tiktoken_bpe, load_gpt2_files, load_tiktoken_bpe
from .stream import StreamDecoder
from .registry import encoding_for_model, encoding_name_for_model, get_encoding, list_encoding_names
from .train import train_bpe

__version__ = "0.1.0"

__all__ = [
    "Encoding",
    "StreamDecoder",
    "get_encoding",
    "list_encoding_names",
    "encoding_for_model",
    "encoding_name_for_model",
    "load_tiktoken_bpe",
    "dump_tiktoken_bpe",
    "load_gpt2_files",
    "TokenmillError",
    "VocabFormatError",
    "VocabWarning",
    "PatternError",
    "SpecialTokenError",
    "DisallowedSpecialTokenError",
    "TokenIdError",
    "UnknownTokenError",
    "UnknownEncodingError",
    "UnknownModelError",
    "InternalError",
    "TrainingError",
    "CorpusError",
    "train_bpe",
    "load",
    "Tokenizer",
    "ClassicBPE",
    "WordLevel",
    "CharLevel",
]
