"""tokenmill: exact, fast tokenizers (byte-level BPE compatible with tiktoken) with a Rust core,
and trainers for byte-level BPE, classic BPE, word-level and char-level tokenizers.

Every tokenizer is a `tokenmill.Tokenizer` (see `tokenmill.tokenizer` for the interface and
the defaults of each family); `tokenmill.load` reads any file tokenmill knows by its content.

>>> import tokenmill
>>> enc = tokenmill.get_encoding("cl100k_base")
>>> enc.decode(enc.encode("hello world"))
'hello world'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .encoding import Encoding
from .errors import (
    CorpusError,
    DisallowedSpecialTokenError,
    InputError,
    InternalError,
    PatternError,
    SpecialTokenError,
    TokenIdError,
    TokenmillError,
    TrainingError,
    UnknownEncodingError,
    UnknownModelError,
    UnsupportedError,
    UnknownTokenError,
    VocabFormatError,
    VocabWarning,
)
from .formats import load
from .formats.gpt2 import load_gpt2_files
from .formats.tiktoken import dump_tiktoken_bpe, load_tiktoken_bpe
from .models import CharLevel, ClassicBPE, Encoded, HFTokenizer, SentencePiece, WordLevel, WordPiece
from .registry import encoding_for_model, encoding_name_for_model, get_encoding, list_encoding_names
from .stream import StreamDecoder
from .tokenizer import Tokenizer

if TYPE_CHECKING:
    from .analysis.compare import compare
    from .analysis.inspect import inspect
    from .train import train_bpe, train_unigram, train_wordpiece

__all__ = [
    "__version__",
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
    "UnsupportedError",
    "InputError",
    "InternalError",
    "TrainingError",
    "CorpusError",
    "train_bpe",
    "train_unigram",
    "train_wordpiece",
    "compare",
    "inspect",
    "load",
    "Tokenizer",
    "ClassicBPE",
    "WordLevel",
    "CharLevel",
    "WordPiece",
    "HFTokenizer",
    "SentencePiece",
    "Encoded",
]


def __getattr__(name: str) -> Any:
    # The trainers (and the corpus reader and engines they bring) load on first use, so that
    # `import tokenmill` stays light for programs that only encode (a third of its time).
    if name in ("train_bpe", "train_unigram", "train_wordpiece"):
        value = getattr(importlib.import_module(f"{__name__}.train"), name)
        globals()[name] = value
        return value
    # The analyses (issue 12) load on first use too: only people measuring tokenizers need them.
    if name in ("compare", "inspect"):
        value = getattr(importlib.import_module(f"{__name__}.analysis.{name}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
