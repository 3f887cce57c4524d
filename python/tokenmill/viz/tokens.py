"""What a text becomes under a tokenizer, as data for people: one `Piece` per token (id,
exact bytes, visible text, whether it is partial UTF-8 or a special token) and the counts
behind the compression figures (tokens, characters and bytes per token).

Every viewer (terminal `show`, the notebook `html`, the web page) and every analysis
(`compare`, `inspect`) takes its tokens from here, so they agree with each other and with
``tok.count(text, **encode_options(parse_special))``: a test compares the two.

What it does not do: colour, escape for HTML, or load files (`resolve` calls `tokenmill.load`).

>>> import tokenmill
>>> enc = tokenmill.get_encoding("gpt2")
>>> [p.shown for p in pieces(enc, "hi there\\n")]
['hi', ' there', '\\\\n']
>>> stats("hi there\\n", 3)["bytes_per_token"]
3.0
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from .._args import FILE_KINDS
from ..errors import InputError, TokenIdError
from ..formats import load
from ..registry import list_encoding_names
from ..tokenizer import Tokenizer

__all__ = ["Piece", "pieces", "pieces_of_ids", "stats", "figures", "encode_options", "resolve", "check_spec", "for_viewing",
           "ordinary_tokens", "visible", "is_byte_level"]


class Piece(NamedTuple):
    """One token of a text."""

    id: int
    #: The token's exact bytes (`Tokenizer.token_bytes`).
    data: bytes
    #: The bytes as visible text (`visible`): whitespace, controls and stray bytes escaped.
    shown: str
    #: The bytes are not whole UTF-8 characters (one part of a character split across tokens).
    partial: bool
    #: A special token (``<|endoftext|>``, ``[CLS]``).
    special: bool


def encode_options(parse_special: bool = False) -> dict[str, Any]:
    """The keyword arguments every viewer passes to ``encode`` and ``count``.

    By default special-token text is ordinary text, as it must be for text from users (a
    typed ``<|endoftext|>`` must not end the document); ``parse_special=True`` encodes it as
    the special token. Tokenizers loaded from HF files add their template tokens (``[CLS]``)
    as HF does.

    >>> encode_options()
    {'allowed_special': set(), 'disallowed_special': ()}
    """
    return {"allowed_special": "all" if parse_special else set(), "disallowed_special": ()}


def is_byte_level(tok: Tokenizer) -> bool:
    """Whether joining the tokens' bytes gives back the text's UTF-8 (byte-level BPE), so
    that partial characters can occur; other families' tokens are vocabulary strings
    (``##ing``, ``[UNK]``)."""
    flag = getattr(tok, "is_byte_level", None)
    if flag is not None:
        return bool(flag)
    return tok.model_type == "byte_bpe"


def visible(data: bytes) -> str:
    """Bytes as text a person can read: ``\\n``, ``\\t``, ``\\r`` and other control and
    format characters escaped (``\\x1b``, ``\\u200b``), bytes that are not whole UTF-8
    characters as ``\\xf0``, and a backslash as ``\\\\``.

    >>> visible(b"a\\tb\\x1b[31m\\xf0\\x9f")
    'a\\\\tb\\\\x1b[31m\\\\xf0\\\\x9f'
    """
    out = []
    for ch in data.decode("utf-8", "surrogateescape"):
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:
            out.append(f"\\x{o - 0xDC00:02x}")
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[ch])
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn") and ch != "\u200d":
            out.append(f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}")
        else:
            out.append(ch)
    return "".join(out)


def _is_partial(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def pieces(tok: Tokenizer, text: str, *, parse_special: bool = False) -> list[Piece]:
    """The tokens of `text` under `tok`, in order.

    Args:
        tok: any tokenmill tokenizer.
        text: the text to show.
        parse_special: encode special-token text as the special token (`encode_options`).

    Returns:
        One `Piece` per id of ``tok.encode(text, **encode_options(parse_special))``.

    >>> import tokenmill
    >>> [(p.id, p.data) for p in pieces(tokenmill.get_encoding("gpt2"), "<|endoftext|>", parse_special=True)]
    [(50256, b'<|endoftext|>')]
    """
    if not isinstance(text, str):
        raise InputError(f"text must be str, not {type(text).__name__}")
    ids = tok.encode(text, **encode_options(parse_special))
    return pieces_of_ids(tok, ids)


def pieces_of_ids(tok: Tokenizer, ids: Sequence[int]) -> list[Piece]:
    """`Piece` of each id (the token's bytes looked up once per distinct id)."""
    specials = set(tok.special_tokens.values())
    cache: dict[int, Piece] = {}
    out = []
    for i in ids:
        p = cache.get(i)
        if p is None:
            data = tok.token_bytes(i)
            p = cache[i] = Piece(i, data, visible(data), _is_partial(data), i in specials)
        out.append(p)
    return out


def stats(text: str, n_tokens: int) -> dict[str, Any]:
    """The compression figures of `text` encoded as `n_tokens` tokens (`figures` of its
    characters and UTF-8 bytes).

    Returns:
        ``{"tokens", "chars", "bytes", "chars_per_token", "bytes_per_token"}`` (the ratios are
        ``None`` for zero tokens).

    >>> stats("héllo", 2)
    {'tokens': 2, 'chars': 5, 'bytes': 6, 'chars_per_token': 2.5, 'bytes_per_token': 3.0}
    """
    return figures(n_tokens, len(text), len(text.encode("utf-8", "surrogatepass")))


def figures(n_tokens: int, n_chars: int, n_bytes: int) -> dict[str, Any]:
    """The compression figures of a text of `n_chars` characters and `n_bytes` UTF-8 bytes
    encoded as `n_tokens` tokens: the one place the ratios are computed, for texts counted
    piece by piece (a streamed file, a training corpus) as for `stats`.

    Args:
        n_tokens: the token count.
        n_chars: the text's length in characters (code points).
        n_bytes: its length in UTF-8 bytes.

    Returns:
        ``{"tokens", "chars", "bytes", "chars_per_token", "bytes_per_token"}`` (the ratios are
        ``None`` for zero tokens).

    >>> figures(4, 10, 12)["bytes_per_token"], figures(0, 3, 3)["chars_per_token"]
    (3.0, None)
    """
    return {"tokens": n_tokens, "chars": n_chars, "bytes": n_bytes,
            "chars_per_token": n_chars / n_tokens if n_tokens else None,
            "bytes_per_token": n_bytes / n_tokens if n_tokens else None}


def resolve(spec: str | Tokenizer, *, cache: Mapping[str, Tokenizer] | None = None) -> tuple[str, Tokenizer]:
    """A tokenizer ready for viewing and its display name, from a standard encoding name, a
    file or directory `tokenmill.load` reads, or a tokenizer object.

    Padding and truncation set by a Hugging Face file are switched off: a viewer shows the
    text's own tokens, never ``[PAD]`` fillers or a cut-off text (BERT's file pads to 128).

    Args:
        spec: the name, path or object.
        cache: already loaded tokenizers by spec (used as they are).

    Returns:
        ``(name, tokenizer)``: the name is the encoding name, the file's name (with its folder
        for generic names such as ``tokenizer.json``), or the object's ``name`` attribute. A
        name that is neither a standard encoding nor an existing path raises `InputError`
        listing the standard names.

    >>> resolve("gpt2")[0]
    'gpt2'
    """
    if isinstance(spec, Tokenizer):
        return str(getattr(spec, "name", None) or type(spec).__name__), for_viewing(spec)
    if not isinstance(spec, str) or not spec:
        raise InputError(f"a tokenizer is a standard encoding name or a file path, not {spec!r}")
    if cache is not None and spec in cache:
        return _label(spec), cache[spec]
    check_spec(spec)
    return _label(spec), for_viewing(load(spec))


def check_spec(spec: str) -> None:
    """Raises `InputError` listing the standard names unless `spec` is a standard encoding
    name or an existing path: the cheap check a command makes before any slow work.

    Args:
        spec: a tokenizer name or path, as the user gave it.

    Returns:
        None; `resolve` does the same check before loading.

    >>> check_spec("gpt2")
    >>> check_spec("gtp2")
    Traceback (most recent call last):
    ...
    tokenmill.errors.InputError: unknown tokenizer 'gtp2': give a standard encoding (gpt2, r50k_base, p50k_base, p50k_edit, cl100k_base, o200k_base, o200k_harmony) or the path of a tokenizer file (tokenmill JSON, a tiktoken export, GPT-2 encoder.json/vocab.bpe, a Hugging Face tokenizer.json or .gz, a WordPiece vocab.txt, a SentencePiece .model)
    """
    names = list_encoding_names()
    if spec not in names and not os.path.exists(spec):
        raise InputError(f"unknown tokenizer {spec!r}: give a standard encoding ({', '.join(names)}) or the path of a "
                         f"tokenizer file ({FILE_KINDS})")


def for_viewing(tok: Tokenizer) -> Tokenizer:
    """`tok` without the padding and truncation a Hugging Face file may switch on (they would
    pad or cut every text that is shown or counted).

    >>> import tokenmill
    >>> for_viewing(tokenmill.get_encoding("gpt2")).name
    'gpt2'
    """
    if getattr(tok, "padding", None) is not None:
        tok = tok.with_padding(None)  # type: ignore[attr-defined]
    if getattr(tok, "truncation", None) is not None:
        tok = tok.with_truncation(None)  # type: ignore[attr-defined]
    return tok


def ordinary_tokens(tok: Tokenizer) -> tuple[dict[int, bytes], list[int]]:
    """The exact bytes of every ordinary (non-special) token, and the unassigned ids.

    Args:
        tok: the tokenizer.

    Returns:
        ``({id: token_bytes}, [unassigned ids])`` over ``range(tok.vocab_size)``, special ids
        left out of both (o200k_base leaves 19 ids unassigned).

    >>> import tokenmill
    >>> data, unassigned = ordinary_tokens(tokenmill.get_encoding("gpt2"))
    >>> len(data), data[262], unassigned
    (50256, b' the', [])
    """
    special_ids = set(tok.special_tokens.values())
    data: dict[int, bytes] = {}
    unassigned: list[int] = []
    for i in range(tok.vocab_size):
        if i in special_ids:
            continue
        try:
            data[i] = tok.token_bytes(i)
        except (TokenIdError, KeyError, IndexError, ValueError):  # a hole in the ids
            unassigned.append(i)
    return data, unassigned


def _label(spec: str) -> str:
    # A path shows as its last part (its folder when the file is the generic tokenizer.json).
    parts = [p for p in spec.replace("\\", "/").split("/") if p]
    if len(parts) <= 1:
        return spec
    last = parts[-1]
    if last in ("tokenizer.json", "tokenizer.json.gz", "vocab.txt", "encoder.json", "vocab.bpe") and len(parts) > 1:
        return f"{parts[-2]}/{last}"
    return last
