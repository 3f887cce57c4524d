"""tokenmill's own file format: one JSON document, tagged and versioned.

    {"format": "tokenmill", "version": 1,
     "model": {"type": "byte_bpe", "name": ..., "pattern": ..., "vocab": [[id, base64 bytes], ...]},
     "special_tokens": {"<|endoftext|>": 260},
     "training": {...}}

Other model types (``classic_bpe``, ``word``, ``char``) keep the same envelope and are read by
`tokenmill.models`. A reading error names the file and the field that is wrong
(``model.vocab[3]: ...``), never "did not match any variant". Writes are atomic.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from typing import Any, Union

from ..errors import VocabFormatError
from ..loaders import atomic_write_bytes

__all__ = ["save", "load", "encoding_to_dict", "encoding_from_dict", "FORMAT", "VERSION"]

FORMAT = "tokenmill"
VERSION = 1
PathLike = Union[str, "os.PathLike[str]"]


def encoding_to_dict(enc) -> dict:
    """The native document of a byte-level BPE `Encoding`.

    >>> import tokenmill
    >>> d = encoding_to_dict(tokenmill.get_encoding("gpt2"))
    >>> d["model"]["type"], len(d["model"]["vocab"]), d["special_tokens"]
    ('byte_bpe', 50256, {'<|endoftext|>': 50256})
    """
    ranks = enc._mergeable_ranks
    vocab = [[r, base64.b64encode(b).decode("ascii")] for b, r in sorted(ranks.items(), key=lambda kv: kv[1])]
    return {
        "format": FORMAT,
        "version": VERSION,
        "model": {"type": "byte_bpe", "name": enc.name, "pattern": enc._pat_str, "vocab": vocab},
        "special_tokens": enc._special_tokens,
        "training": enc.training_info or {},
    }


def _field(d: dict, key: str, kind, where: str, path):
    if key not in d:
        raise VocabFormatError(f"{where}: missing field {key!r}", path, format=FORMAT)
    v = d[key]
    if not isinstance(v, kind) or isinstance(v, bool):
        name = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise VocabFormatError(f"{where}.{key}: expected {name}, got {type(v).__name__}", path, format=FORMAT)
    return v


def encoding_from_dict(d: dict, path: str | None = None):
    """The `Encoding` of a native ``byte_bpe`` document (see `encoding_to_dict`)."""
    from ..encoding import Encoding

    model = d["model"]
    name = _field(model, "name", str, "model", path)
    pattern = _field(model, "pattern", str, "model", path)
    vocab = _field(model, "vocab", list, "model", path)
    ranks: dict[bytes, int] = {}
    for i, item in enumerate(vocab):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], int) and isinstance(item[1], str)):
            raise VocabFormatError(f"model.vocab[{i}]: expected [id, base64 string], got {item!r}", path, format=FORMAT)
        try:
            tok = base64.b64decode(item[1], validate=True)
        except (binascii.Error, ValueError):
            raise VocabFormatError(f"model.vocab[{i}]: {item[1]!r} is not valid base64", path, format=FORMAT) from None
        if tok in ranks:
            raise VocabFormatError(f"model.vocab[{i}]: token {tok!r} appears twice", path, format=FORMAT)
        ranks[tok] = item[0]
    specials = d.get("special_tokens", {})
    if not isinstance(specials, dict) or not all(isinstance(k, str) and isinstance(v, int) for k, v in specials.items()):
        raise VocabFormatError("special_tokens: expected an object of token text -> id", path, format=FORMAT)
    training = d.get("training") or None
    if training is not None and not isinstance(training, dict):
        raise VocabFormatError(f"training: expected an object of training metadata, got {type(training).__name__}", path, format=FORMAT)
    try:
        return Encoding(name, pattern, ranks, specials, _training=training)
    except VocabFormatError as e:
        raise VocabFormatError(f"model: {e.reason}", path, format=FORMAT) from None


def save(obj, path: PathLike) -> None:
    """Writes `obj` (an `Encoding` or a `tokenmill.models` tokenizer) to `path`, atomically.

    >>> import tokenmill, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "gpt2.json")
    >>> save(tokenmill.get_encoding("gpt2"), p)
    >>> load(p).encode("hello world")
    [31373, 995]
    """
    from ..encoding import Encoding

    if not isinstance(obj, Encoding):
        obj.save(path)  # a `tokenmill.models` tokenizer writes its own document
        return
    atomic_write_bytes(path, json.dumps(encoding_to_dict(obj), ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def load(path: PathLike) -> Any:
    """Reads a file written by `save` (any model type) and returns the tokenizer.

    Args:
        path: A ``.json`` file in tokenmill's format.

    Returns:
        An `Encoding` for ``byte_bpe``, else a `tokenmill.models` tokenizer.

    >>> import tokenmill, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "t.json")
    >>> tokenmill.get_encoding("gpt2").save(p)
    >>> tokenmill.load(p).name
    'gpt2'
    """
    p = str(path)
    try:
        with open(p, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"no such file: {p!r}") from None
    try:
        d = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise VocabFormatError(f"not valid UTF-8 at byte {e.start}", p, format=FORMAT) from None
    except json.JSONDecodeError as e:
        raise VocabFormatError(f"invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})", p, e.lineno, format=FORMAT) from None
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        got = d.get("format") if isinstance(d, dict) else type(d).__name__
        hint = ""
        if isinstance(d, dict) and "model" in d and "added_tokens" in d:
            hint = "; this looks like a Hugging Face tokenizer.json"
        raise VocabFormatError(f"not a tokenmill file: \"format\" is {got!r}, expected {FORMAT!r}{hint}", p, format=FORMAT)
    version = d.get("version")
    if version != VERSION:
        raise VocabFormatError(f"unsupported version {version!r}: this tokenmill reads version {VERSION}; upgrade tokenmill", p, format=FORMAT)
    model = d.get("model")
    if not isinstance(model, dict) or not isinstance(model.get("type"), str):
        raise VocabFormatError("model: expected an object with a string \"type\"", p, format=FORMAT)
    if model["type"] == "byte_bpe":
        return encoding_from_dict(d, p)
    from ..models.base import load_tokenizer_dict

    return load_tokenizer_dict(d, p)
