"""The string-vocabulary families, each a `tokenmill.Tokenizer`: classic BPE, word level, char
level, WordPiece.

* `ClassicBPE`: character BPE with an end-of-word marker ``</w>`` (Sennrich et al. 2016).
* `WordLevel`: one token per word or punctuation mark, ``<|unk|>`` for unknown words.
* `CharLevel`: one token per character.
* `WordPiece`: BERT's WordPiece (normalizer, pre-tokenizer and model in the Rust core).
* `HFTokenizer`: any Hugging Face ``tokenizer.json`` (its whole pipeline in the Rust core).
* `SentencePiece`: a sentencepiece ``.model`` (Unigram or BPE, in the Rust core).

They share `tokenmill.models._vocab.VocabTokenizer` (vocabulary, special tokens, the
interface) and a ``train(corpus, vocab_size=None, ...)`` classmethod taking an iterable of str
documents. Importing this package registers their model types for ``Tokenizer.from_dict``;
`load_tokenizer_dict` builds any of them from a native document.

>>> from tokenmill.models import WordLevel
>>> tok = WordLevel.train(["Hello, world. Hello!"])
>>> tok.decode(tok.encode("Hello, world!"))
'Hello, world!'

Byte-level BPE (tiktoken-compatible) is `tokenmill.Encoding`, not here; reading corpus files
and other libraries' formats is done elsewhere.
"""

from __future__ import annotations

from ..tokenizer import Tokenizer
from ._vocab import VocabTokenizer, load_tokenizer_dict
from .char import CharLevel
from .classic_bpe import ClassicBPE
from .huggingface import Encoded, HFTokenizer
from .sentencepiece import SentencePiece
from .wordlevel import WordLevel
from .wordpiece import WordPiece

__all__ = ["Tokenizer", "VocabTokenizer", "ClassicBPE", "WordLevel", "CharLevel", "WordPiece", "HFTokenizer", "SentencePiece", "Encoded",
           "load_tokenizer_dict"]
