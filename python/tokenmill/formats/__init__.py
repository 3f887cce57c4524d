"""Saving and exporting tokenizers: tokenmill's own tagged format and the peers' formats.

* `native`: ``{"format": "tokenmill", "version": 1, "model": {"type": ...}}`` for every
  model (byte-level BPE `Encoding`, classic BPE, word-level, char-level); `load` reads any.
* `exports`: a byte-level BPE `Encoding` as a tiktoken rank file (+ a JSON of pattern and
  special tokens), a Hugging Face ``tokenizer.json``, or GPT-2's ``encoder.json`` +
  ``vocab.bpe``. Each is checked by tests that load it in the real library.

Reading tiktoken rank files and GPT-2 files is in `tokenmill.loaders`. Every write is atomic.
"""

from .exports import export_gpt2, export_hf, export_tiktoken, hf_tokenizer_dict, merges_for
from .native import load, save

__all__ = ["load", "save", "export_tiktoken", "export_hf", "export_gpt2", "hf_tokenizer_dict", "merges_for"]
