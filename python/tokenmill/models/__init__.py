"""Text-level tokenizer models with one `Tokenizer` interface: classic BPE, word level, char level.

* `ClassicBPE`: character BPE with an end-of-word marker ``</w>`` (Sennrich et al. 2016).
* `WordLevel`: one token per word or punctuation mark, ``<|unk|>`` for unknown words.
* `CharLevel`: one token per character.

All share ``encode`` / ``decode`` / ``vocab`` / ``token_to_id`` / ``id_to_token`` / ``save`` /
``load`` and a ``train(corpus, vocab_size=None, ...)`` classmethod taking an iterable of str
documents. Files use tokenmill's native JSON format (see `tokenmill.models.base`);
`load_tokenizer_dict` builds any model from it.

>>> from tokenmill.models import WordLevel
>>> tok = WordLevel.train(["Hello, world. Hello!"])
>>> tok.decode(tok.encode("Hello, world!"))
'Hello, world!'

Byte-level BPE (tiktoken-compatible) is `tokenmill.Encoding`, not here; reading corpus files
and other libraries' formats is done elsewhere.
"""

from __future__ import annotations

from .base import Tokenizer, load_tokenizer_dict
from .char import CharLevel
from .classic_bpe import ClassicBPE
from .wordlevel import WordLevel

__all__ = ["Tokenizer", "ClassicBPE", "WordLevel", "CharLevel", "load_tokenizer_dict"]
