"""The data behind the web page (`tokenmill serve`): which tokenizers the page may use
(`Catalog`), and the JSON answers of its two requests, the tokens of a text under each chosen
tokenizer (`encode_response`) and the token counts of the bundled sample texts
(`samples_response`).

The page can use only the tokenizers offered at launch (the standard encodings and the files
or objects given to `Catalog`): a request names a tokenizer by its label and never by a path,
so requests cannot make the server read files (ADVERSARIAL.md L10). Tokenizers load on first
use and stay loaded; a file that fails to load gives an error message for that tokenizer, and
the failure is remembered (a bad file is not read again on every keystroke).

Counts are exact (`tokenmill.viz.tokens`); the token list sent for display stops at
``max_tokens`` with ``truncated`` set. Tokenizers from Hugging Face files are measured with
the file's padding and truncation switched off, because a file that pads to 128 tokens (BERT
does) would report 128 tokens for "hi" and cut long texts short; the answer says so in ``note``.

What it does not do: HTTP, HTML or escaping for HTML (the page builds its DOM from this JSON
with ``textContent``; see `tokenmill.viz.server`).
"""

from __future__ import annotations

import os
import threading
import unicodedata
from typing import Any, Iterable

from ..analysis.samples import Sample
from ..analysis.samples import samples as bundled_samples
from ..errors import InputError
from ..formats import load
from ..registry import get_encoding, list_encoding_names
from ..tokenizer import Tokenizer
from .tokens import _label, encode_options, for_viewing, pieces_of_ids, stats, visible

__all__ = ["Catalog", "BadRequest", "encode_response", "samples_response", "display", "sample_texts",
           "MAX_TOKENS"]

#: Tokens sent for display per tokenizer; the count stays exact beyond it.
MAX_TOKENS = 20_000

# Whitespace the page shows as a mark (a newline mark is followed by a real line break).
_MARKS = {" ": "\u00b7", "\n": "\u21b5", "\t": "\u2192", "\r": "\u240d"}
# Sample texts larger than this are cut (at a character boundary) before counting.
_SAMPLE_CHARS = 200_000


class BadRequest(InputError):
    """A request the API cannot answer (wrong JSON shape, unknown field type); HTTP 400."""


class Catalog:
    """The tokenizers the page offers, by label, loaded lazily and cached.

    Args:
        extra: tokenizers offered beside the standard encodings: file paths (any file
            `tokenmill.load` reads; they must exist), standard encoding names, or tokenizer
            objects. Labels are the file's name (its folder too for a generic name such as
            ``tokenizer.json``) or the object's ``name``; repeated labels get `` (2)``.
        default: labels selected when the page opens without ``?encodings=``; by default the
            `extra` ones and ``o200k_base``, or ``gpt2``, ``cl100k_base``, ``o200k_base``.

    >>> cat = Catalog()
    >>> cat.labels()[:3]
    ['gpt2', 'r50k_base', 'p50k_base']
    >>> cat.get("gpt2").encode("hi")
    [5303]
    """

    def __init__(self, extra: Iterable[str | os.PathLike | Tokenizer] = (), *, default: Iterable[str] | None = None):
        self._specs: dict[str, Any] = {name: name for name in list_encoding_names()}
        self._kinds: dict[str, str] = {name: "standard" for name in self._specs}
        chosen: list[str] = []
        for spec in extra:
            label, kind, value = self._describe(spec)
            if kind == "standard":
                chosen.append(label)
                continue
            base, n = label, 2
            while label in self._specs:
                label, n = f"{base} ({n})", n + 1
            self._specs[label], self._kinds[label] = value, kind
            chosen.append(label)
        self.default = list(dict.fromkeys(default if default is not None else
                                          (chosen + ["o200k_base"] if chosen else ["gpt2", "cl100k_base", "o200k_base"])))
        for label in self.default:
            if label not in self._specs:
                raise InputError(f"default tokenizer {label!r} is not offered; choose from {', '.join(self._specs)}")
        self._loaded: dict[str, tuple[Tokenizer | None, str | None, str | None]] = {}
        self._locks: dict[str, threading.Lock] = {label: threading.Lock() for label in self._specs}

    @staticmethod
    def _describe(spec: Any) -> tuple[str, str, Any]:
        if isinstance(spec, Tokenizer):
            return str(getattr(spec, "name", None) or type(spec).__name__), "object", spec
        if isinstance(spec, os.PathLike):
            spec = os.fspath(spec)
        if not isinstance(spec, str) or not spec:
            raise InputError(f"a tokenizer is a standard encoding name, a file path or a tokenizer object, not {spec!r}")
        if spec in list_encoding_names():
            return spec, "standard", spec
        if not os.path.exists(spec):
            raise InputError(f"{spec!r} is neither a standard encoding ({', '.join(list_encoding_names())}) nor an "
                             "existing file; give the path of a tokenizer file tokenmill.load reads")
        # Resolved now: the server must read the file the user named, whatever its cwd later.
        return _label(spec), "file", os.path.abspath(spec)

    def labels(self) -> list[str]:
        """The labels of every offered tokenizer, standard encodings first."""
        return list(self._specs)

    def info(self) -> list[dict[str, str]]:
        """``[{"name", "kind"}]`` for every offered tokenizer (kind: standard, file or object)."""
        return [{"name": label, "kind": self._kinds[label]} for label in self._specs]

    def get(self, label: str) -> Tokenizer:
        """The tokenizer offered as `label`, loaded on first use.

        Raises:
            KeyError: `label` is not offered.
            InputError: the tokenizer failed to load (now or on an earlier call); the message
                says why.
        """
        return self.lookup(label)[0]

    def lookup(self, label: str) -> tuple[Tokenizer, str | None]:
        """``(tokenizer, note)``: `get` plus a note on what was changed for measuring (None
        when nothing was)."""
        if label not in self._specs:
            raise KeyError(label)
        with self._locks[label]:
            if label not in self._loaded:
                self._loaded[label] = self._load(label)
        tok, note, error = self._loaded[label]
        if tok is None:
            raise InputError(error or "could not load")
        return tok, note

    def _load(self, label: str) -> tuple[Tokenizer | None, str | None, str | None]:
        spec, kind = self._specs[label], self._kinds[label]
        try:
            tok = spec if kind == "object" else get_encoding(spec) if kind == "standard" else load(spec)
            return (*_unpadded(tok), None)
        except Exception as e:  # noqa: BLE001 - any failure is reported for this tokenizer; the server lives on
            message = " ".join(str(e).split()) or type(e).__name__
            where = f"{os.path.basename(spec)}: " if kind == "file" and os.path.basename(spec) not in message else ""
            return None, None, f"could not load {label}: {where}{message}"


def _unpadded(tok: Tokenizer) -> tuple[Tokenizer, str | None]:
    # HF files may pad and truncate (BERT: both at 128): the page shows the text's own tokens
    # (`for_viewing`) and says what it switched off.
    changed = [k for k in ("padding", "truncation") if getattr(tok, k, None) is not None]
    if not changed:
        return tok, None
    return for_viewing(tok), f"the file's {' and '.join(changed)} {'are' if len(changed) > 1 else 'is'} switched off here"


def display(data: bytes) -> list[str]:
    """A token's bytes as the page shows them: alternately plain text and marks (even
    positions text, odd positions marks). Marks stand for what would be invisible: ``·`` a
    space, ``↵`` a newline (the page adds a line break after it), ``→`` a tab, ``␍`` a carriage
    return, ``<0xF0>`` a byte that is not a whole UTF-8 character, ``\\u200b``-style escapes
    for other control, format and space characters (`visible`).

    >>> display(b" hi\\n")
    ['', '·', 'hi', '↵', '']
    >>> display(b"\\xf0\\x9f")
    ['', '<0xF0>', '', '<0x9F>', '']
    """
    out = [""]
    for ch in data.decode("utf-8", "surrogateescape"):
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:
            mark = f"<0x{o - 0xDC00:02X}>"
        elif ch in _MARKS:
            mark = _MARKS[ch]
        elif ch != "\\" and (visible(ch.encode("utf-8", "surrogatepass")) != ch or unicodedata.category(ch) == "Zs"):
            mark = visible(ch.encode("utf-8", "surrogatepass"))
            if mark == ch:  # a space character visible() keeps (no-break space, ideographic space)
                mark = f"\\u{o:04x}"
        else:
            out[-1] += ch
            continue
        out += [mark, ""]
    return out


def _request(payload: Any, names: Iterable[str]) -> tuple[list[str], bool]:
    if not isinstance(payload, dict):
        raise BadRequest("the request body must be a JSON object")
    chosen = payload.get("tokenizers")
    if not isinstance(chosen, list) or not all(isinstance(n, str) for n in chosen):
        raise BadRequest('"tokenizers" must be a list of tokenizer names (see GET /api/tokenizers)')
    # Bounded work: as many names as are offered, plus a few unknown ones answered with errors.
    chosen = list(dict.fromkeys(chosen))[: len(list(names)) + 8]
    parse_special = payload.get("parse_special", False)
    if not isinstance(parse_special, bool):
        raise BadRequest('"parse_special" must be true or false')
    return chosen, parse_special


def _text(payload: dict) -> str:
    text = payload.get("text")
    if not isinstance(text, str):
        raise BadRequest('"text" must be a string')
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise BadRequest(f"the text has a lone surrogate (U+{ord(text[e.start]):04X}) at character {e.start}; "
                         "it is not valid Unicode text") from None
    return text


def encode_response(catalog: Catalog, payload: Any, *, max_tokens: int = MAX_TOKENS) -> dict[str, Any]:
    """The answer to ``POST /api/encode``: the tokens of ``payload["text"]`` under each tokenizer
    of ``payload["tokenizers"]`` (labels from `Catalog.labels`), with special-token text
    parsed as special tokens only when ``payload["parse_special"]`` is true.

    Args:
        catalog: the offered tokenizers.
        payload: the decoded JSON request ``{"text", "tokenizers", "parse_special"}``.
        max_tokens: ids sent for display per tokenizer (the count is always exact).

    Returns:
        ``{"chars", "bytes", "results": [...]}``; each result is ``{"name", "count",
        "chars_per_token", "bytes_per_token", "ids", "pieces", "truncated", "note", "lossless"}``
        or ``{"name", "error"}`` (``lossless``: the tokens' bytes join to the text exactly, as
        with byte-level BPE; WordPiece drops spaces and adds ``##``, so the page spaces its
        tokens apart). ``ids`` are the first `max_tokens` ids; ``pieces`` maps each
        distinct id among them (as a string) to ``{"shown", "hex", "partial", "special",
        "display"}`` (`Piece` fields and `display`), so a token repeated a thousand times is
        described once.

    Raises:
        BadRequest: the payload does not have that shape.

    >>> r = encode_response(Catalog(), {"text": "hi hi", "tokenizers": ["gpt2", "nope"]})
    >>> r["results"][0]["count"], r["results"][0]["ids"], r["results"][0]["pieces"]["23105"]["display"]
    (2, [5303, 23105], ['', '·', 'hi'])
    >>> r["results"][1]["error"]
    'nope is not offered by this server (it offers only the tokenizers given at launch)'
    """
    chosen, parse_special = _request(payload, catalog.labels())
    text = _text(payload)
    base = stats(text, 0)
    results = []
    for label in chosen:
        try:
            tok, note = catalog.lookup(label)
            ids = tok.encode(text, **encode_options(parse_special))
        except KeyError:
            results.append({"name": label, "error": f"{label} is not offered by this server (it offers only the "
                                                    "tokenizers given at launch)"})
            continue
        except Exception as e:  # noqa: BLE001 - one tokenizer failing must not fail the others
            results.append({"name": label, "error": " ".join(str(e).split()) or type(e).__name__})
            continue
        shown_ids = ids[:max_tokens]
        distinct = pieces_of_ids(tok, sorted(set(shown_ids)))
        described = {str(p.id): {"shown": p.shown, "hex": p.data.hex(" "), "partial": p.partial,
                                 "special": p.special, "display": display(p.data)} for p in distinct}
        data = {p.id: p.data for p in distinct}
        joined = b"".join(data[i] for i in shown_ids)
        whole = text.encode("utf-8")
        s = stats(text, len(ids))
        results.append({"name": label, "count": len(ids), "chars_per_token": s["chars_per_token"],
                        "bytes_per_token": s["bytes_per_token"], "ids": list(shown_ids), "pieces": described,
                        "truncated": len(ids) > len(shown_ids), "note": note,
                        "lossless": joined == whole if len(ids) == len(shown_ids) else whole.startswith(joined)})
    return {"chars": base["chars"], "bytes": base["bytes"], "results": results}


def sample_texts() -> list[Sample]:
    """The bundled sample texts (`tokenmill.analysis.samples`: the same passage in ten
    languages, code, numbers, data, prose), or none when the package has no manifest.

    >>> "English" in [s.name for s in sample_texts()]
    True
    """
    try:
        return bundled_samples()
    except (OSError, ValueError, KeyError):  # a build without the samples: the page hides the table
        return []


def samples_response(catalog: Catalog, payload: Any, texts: Iterable[Sample] | None = None) -> dict[str, Any]:
    """The answer to ``POST /api/samples``: token counts of each bundled sample text under
    each chosen tokenizer (special-token text is ordinary text; texts are cut at 200,000
    characters).

    Args:
        catalog: the offered tokenizers.
        payload: ``{"tokenizers": [labels]}``.
        texts: the samples (default `sample_texts`); anything with ``name``, ``group`` and
            ``text()``.

    Returns:
        ``{"samples": [{"name", "group", "chars", "bytes"}], "results": [{"name", "counts":
        [n per sample]}`` or ``{"name", "error"}]}``.

    >>> from types import SimpleNamespace as S
    >>> r = samples_response(Catalog(), {"tokenizers": ["gpt2"]}, [S(name="hi", group="x", text=lambda: "hi there")])
    >>> r["samples"], r["results"]
    ([{'name': 'hi', 'group': 'x', 'chars': 8, 'bytes': 8}], [{'name': 'gpt2', 'counts': [2]}])
    """
    chosen, _ = _request(payload, catalog.labels())
    items = sample_texts() if texts is None else list(texts)
    bodies = [t.text()[:_SAMPLE_CHARS] for t in items]
    samples = [{"name": t.name, "group": t.group, "chars": len(b), "bytes": len(b.encode("utf-8", "surrogatepass"))}
               for t, b in zip(items, bodies)]
    results: list[dict[str, Any]] = []
    for label in chosen:
        try:
            tok = catalog.get(label)
            counts = [tok.count(b, **encode_options(False)) for b in bodies]
        except KeyError:
            results.append({"name": label, "error": f"{label} is not offered by this server"})
            continue
        except Exception as e:  # noqa: BLE001 - one tokenizer failing must not fail the others
            results.append({"name": label, "error": " ".join(str(e).split()) or type(e).__name__})
            continue
        results.append({"name": label, "counts": counts})
    return {"samples": samples, "results": results}
