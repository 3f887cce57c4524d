"""tokenmill's native JSON: one strict reader, the versioned envelope, and field checks.

Every native load path (``tokenmill.load``, ``Tokenizer.load``, ``Encoding.from_dict``, each
model's ``from_dict``) goes through here, so they accept and reject the same files:

* `read_json`: UTF-8 JSON (a leading BOM is accepted), duplicate object keys rejected; errors
  name the file, line and column.
* `check_envelope`: ``{"format": "tokenmill", "version": 1, "model": {"type": ...}, ...}``;
  returns the model type. Unknown top-level keys are ignored, so tools may add their own.
* `field` / `check_keys`: typed access to one field, with errors that name it
  (``model.merges[3]: expected a pair of strings``), never "did not match any variant".
* `byte_vocab`: a vocabulary of ``[id, base64 bytes]`` pairs, decoded and checked.
* `dumps_native`: the bytes written for a document (one vocabulary entry per line, or compact).

It does not know any model type: the model-type registry is in `tokenmill.tokenizer`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any, Sequence

from ._io import PathLike
from .errors import VocabFormatError

__all__ = ["FORMAT", "VERSION", "read_json", "parse_json", "check_envelope", "field", "check_keys", "json_type", "show",
           "json_copy", "dumps_native", "is_int"]

FORMAT = "tokenmill"
VERSION = 1


def is_int(v: object) -> bool:
    """True for an int that is not a bool (True is never a sensible id or count)."""
    return isinstance(v, int) and not isinstance(v, bool)


def json_type(v: object) -> str:
    """The JSON name of a value's type, for error messages.

    >>> json_type(None), json_type(True), json_type([1]), json_type({})
    ('null', 'boolean', 'array', 'object')
    """
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, (list, tuple)):
        return "array"
    if isinstance(v, Mapping):
        return "object"
    return type(v).__name__


def show(v: object, limit: int = 60) -> str:
    """``repr(v)``, shortened to `limit` characters."""
    r = repr(v)
    return r if len(r) <= limit else r[: limit - 3] + "..."


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict:
    d: dict = {}
    for k, v in pairs:
        if k in d:
            raise VocabFormatError(f"duplicate key {k!r} in a JSON object")
        d[k] = v
    return d


def parse_json(raw: bytes, path: str | None = None, format: str | None = FORMAT) -> Any:
    """Parses UTF-8 JSON bytes strictly (BOM accepted, duplicate keys rejected).

    Args:
        raw: The file's bytes.
        path: Named in errors.
        format: The format named in errors.

    Returns:
        The parsed value. Errors are `VocabFormatError` with the path, line and column.

    >>> parse_json(b'\\xef\\xbb\\xbf{"a": 1}')
    {'a': 1}
    >>> parse_json(b'{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    tokenmill.errors.VocabFormatError: duplicate key 'a' in a JSON object
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise VocabFormatError(f"not valid UTF-8 at byte {e.start}; the file must be UTF-8 JSON", path, format=format) from None
    if text.startswith("\ufeff"):  # a BOM added by an editor is harmless
        text = text[1:]
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as e:
        raise VocabFormatError(f"invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})", path, e.lineno, format) from None
    except RecursionError:
        raise VocabFormatError("invalid JSON: nested too deeply", path, format=format) from None
    except VocabFormatError as e:
        raise e.at(path, format) if path is not None else e from None


def read_json(path: PathLike, format: str | None = FORMAT) -> Any:
    """Reads and parses a local JSON file with `parse_json`.

    A missing file is a `FileNotFoundError` naming it.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "t.json"); _ = open(p, "w").write('[1]')
    >>> read_json(p)
    [1]
    """
    p = str(path)
    try:
        with open(p, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise FileNotFoundError(2, f"no such file: {p!r}", p) from None
    return parse_json(raw, p, format)


def field(obj: Mapping, key: str, kind: type, where: str, *, required: bool = True, default: Any = None, nullable: bool = False) -> Any:
    """``obj[key]`` checked to be of JSON type `kind` (str, int, dict or list).

    Errors name the field as ``{where}{key}``.

    >>> field({"a": 1}, "a", int, "model.")
    1
    >>> field({"a": "1"}, "a", int, "model.")
    Traceback (most recent call last):
    ...
    tokenmill.errors.VocabFormatError: model.a: expected an integer, got string '1'
    """
    name, types = _KINDS[kind]
    if key not in obj:
        if required:
            raise VocabFormatError(f"{where}{key}: missing (expected {name})")
        return default
    v = obj[key]
    if v is None and nullable:
        return None
    ok = is_int(v) if kind is int else isinstance(v, types)
    if not ok:
        raise VocabFormatError(f"{where}{key}: expected {name}{' or null' if nullable else ''}, got {json_type(v)} {show(v)}")
    return v


_KINDS: dict[type, tuple[str, Any]] = {str: ("a string", str), int: ("an integer", int), dict: ("an object", Mapping), list: ("an array", (list, tuple))}


def byte_vocab(vocab: list, where: str) -> dict[bytes, int]:
    """``{token bytes: id}`` from ``[[id, base64 bytes], ...]``; errors name the entry.

    >>> byte_vocab([[0, "YQ=="], [1, "Yg=="]], "model.vocab")
    {b'a': 0, b'b': 1}
    """
    out: dict[bytes, int] = {}
    for i, item in enumerate(vocab):
        if not (isinstance(item, list) and len(item) == 2 and is_int(item[0]) and isinstance(item[1], str)):
            raise VocabFormatError(f"{where}[{i}]: expected [id, base64 string], got {show(item)}")
        try:
            tok = base64.b64decode(item[1], validate=True)
        except (binascii.Error, ValueError):
            raise VocabFormatError(f"{where}[{i}]: {item[1]!r} is not valid base64") from None
        if tok in out:
            raise VocabFormatError(f"{where}[{i}]: token {tok!r} appears twice")
        out[tok] = item[0]
    return out


def check_keys(obj: Mapping, allowed: Sequence[str], where: str) -> None:
    """Rejects unknown keys: in a versioned format a misspelt field should not be ignored."""
    for key in obj:
        if key not in allowed:
            raise VocabFormatError(f"{where}{key}: unknown field; expected only {', '.join(map(repr, allowed))}")


def check_envelope(d: object) -> str:
    """Checks the native envelope (format, version, model object); returns the model type.

    >>> check_envelope({"format": "tokenmill", "version": 1, "model": {"type": "char"}})
    'char'
    >>> check_envelope({"format": "tokenmill", "version": 2, "model": {"type": "char"}})
    Traceback (most recent call last):
    ...
    tokenmill.errors.VocabFormatError: version: unsupported version 2; this tokenmill reads version 1 files (the file was written by a newer tokenmill; upgrade)
    """
    if not isinstance(d, Mapping):
        raise VocabFormatError(f"expected a JSON object at the top level, got {json_type(d)}")
    if "format" not in d and "model" in d and ("added_tokens" in d or "version" in d):
        raise VocabFormatError("format: missing; this looks like a Hugging Face tokenizer.json, not a tokenmill native file")
    fmt = field(d, "format", str, "")
    if fmt != FORMAT:
        raise VocabFormatError(f"format: expected {FORMAT!r}, got {fmt!r}; this is not a tokenmill file")
    version = field(d, "version", int, "")
    if version != VERSION:
        raise VocabFormatError(
            f"version: unsupported version {version}; this tokenmill reads version {VERSION} files"
            + (" (the file was written by a newer tokenmill; upgrade)" if version > VERSION else "")
        )
    model = field(d, "model", dict, "")
    return field(model, "type", str, "model.")


def json_copy(value: object, where: str = "training") -> dict:
    """A deep copy of JSON-able metadata (so a tokenizer never shares a mutable dict)."""
    if not isinstance(value, Mapping):
        raise VocabFormatError(f"{where}: expected an object, got {json_type(value)}")
    try:
        return json.loads(json.dumps(dict(value)))
    except (TypeError, ValueError) as e:
        raise VocabFormatError(f"{where}: not JSON-serializable: {e}") from None


def _pretty(obj: Any, ensure_ascii: bool, level: int = 0) -> str:
    """JSON with one vocabulary entry / one merge pair per line: readable and diff-friendly."""
    pad, end = "  " * (level + 1), "  " * level
    if isinstance(obj, Mapping) and obj:
        items = [f"{pad}{json.dumps(k, ensure_ascii=ensure_ascii)}: {_pretty(v, ensure_ascii, level + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + end + "}"
    if isinstance(obj, (list, tuple)) and any(isinstance(x, (Mapping, list, tuple)) for x in obj):
        return "[\n" + ",\n".join(pad + _pretty(x, ensure_ascii, level + 1) for x in obj) + "\n" + end + "]"
    return json.dumps(obj, ensure_ascii=ensure_ascii)


def dumps_native(d: Mapping, pretty: bool) -> bytes:
    """The bytes of a native document: UTF-8 JSON, compact or one entry per line.

    Lone surrogates (from a corpus read with surrogateescape) cannot be UTF-8; JSON's
    ``\\uXXXX`` escapes carry them and `read_json` reads them back.

    >>> dumps_native({"a": [1, 2]}, pretty=False)
    b'{"a":[1,2]}'
    """
    def text(ensure_ascii: bool) -> str:
        if pretty:
            return _pretty(d, ensure_ascii) + "\n"
        return json.dumps(d, ensure_ascii=ensure_ascii, separators=(",", ":"))

    try:
        return text(False).encode("utf-8")
    except UnicodeEncodeError:
        return text(True).encode("ascii")
