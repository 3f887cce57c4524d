"""tokenmill's own file format: one JSON document, tagged and versioned, for every family.

    {"format": "tokenmill", "version": 1,
     "model": {"type": "byte_bpe" | "classic_bpe" | "word" | "char", ...fields of that type...},
     "special_tokens": {"<|endoftext|>": 260},
     "training": {...}}

Each family writes its own ``model`` fields (``to_dict``) and reads them back
(``from_dict``); the envelope, the strict JSON reader and the field checks are shared
(`tokenmill._schema`), so every native load path accepts and rejects the same files. A
reading error names the file and the field that is wrong (``model.vocab[3]: ...``), never
"did not match any variant". Writes are atomic.
"""

from __future__ import annotations

from typing import Any

from .. import _schema, models  # noqa: F401  (models: registers the text families' model types)
from .._io import PathLike
from ..errors import VocabFormatError
from ..tokenizer import Tokenizer

__all__ = ["save", "load_native", "looks_native", "FORMAT", "VERSION"]

FORMAT = _schema.FORMAT
VERSION = _schema.VERSION


def save(obj: Tokenizer, path: PathLike) -> None:
    """Writes any tokenizer to `path` in the native format, atomically (``obj.save(path)``).

    >>> import tokenmill, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "gpt2.json")
    >>> save(tokenmill.get_encoding("gpt2"), p)
    >>> load_native(p).encode("hello world")
    [31373, 995]
    """
    if not isinstance(obj, Tokenizer):
        raise TypeError(f"expected a tokenmill tokenizer, not {type(obj).__name__}")
    obj.save(path)


def load_native(path: PathLike, d: Any = None) -> Tokenizer:
    """Reads a native file (any model type); `d` is its parsed JSON when already read.

    >>> import tokenmill, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "t.json")
    >>> tokenmill.CharLevel.train(["ab"]).save(p)
    >>> type(load_native(p)).__name__
    'CharLevel'
    """
    if d is None:
        return Tokenizer.load(path)
    try:
        return Tokenizer.from_dict(d)
    except VocabFormatError as e:
        raise e.at(str(path), FORMAT) from None


def looks_native(d: Any) -> bool:
    """True for a parsed JSON document that says it is tokenmill's format."""
    return isinstance(d, dict) and d.get("format") == FORMAT
