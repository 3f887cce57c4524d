"""Argument checks shared by every public entry point, so the same mistake gets the same
message wherever it is made: thread counts, special-token lists, vocabulary sizes, minimum
frequencies, iterables of documents, token ids, and text with lone surrogates (repaired as
tiktoken does).

It holds no policy of its own (which specials are allowed, what a default is): callers decide.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import cast

from .errors import InputError, SpecialTokenError, TrainingError

#: The tokenizer files `tokenmill.load` reads, as one phrase for help texts and error hints
#: (`tokenmill.formats.READABLE` is the long form its own error lists).
FILE_KINDS = ("tokenmill JSON, a tiktoken export, GPT-2 encoder.json/vocab.bpe, a Hugging Face tokenizer.json or .gz, "
              "a WordPiece vocab.txt, a SentencePiece .model")

__all__ = ["threads", "fix_surrogates", "has_surrogates", "original_index", "as_token_id", "text_type_error", "special_token_list", "vocab_size_arg", "min_frequency_arg", "iter_texts", "plural"]


def threads(num_threads: int | None) -> int:
    """The thread count of a call: `num_threads`, or every core for None.

    >>> threads(3)
    3
    >>> threads(0)
    Traceback (most recent call last):
    ...
    ValueError: num_threads must be a positive int or None, not 0
    """
    if num_threads is None:
        return os.cpu_count() or 1
    if not isinstance(num_threads, int) or isinstance(num_threads, bool) or num_threads < 1:
        raise ValueError(f"num_threads must be a positive int or None, not {num_threads!r}")
    return num_threads


def special_token_list(special_tokens: object) -> tuple[str, ...]:
    """The special tokens of a training call as a tuple, in order; None is ``()``.

    Rejects a single str, a mapping (ids are assigned by training), non-str items, empty and
    duplicate tokens, and lone surrogates.

    >>> special_token_list(["<|endoftext|>", "<|pad|>"])
    ('<|endoftext|>', '<|pad|>')
    >>> special_token_list(["<a>", "<a>"])
    Traceback (most recent call last):
    ...
    tokenmill.errors.SpecialTokenError: duplicate special token '<a>': given twice in special_tokens (positions 0 and 1); list each special token once
    """
    if special_tokens is None:
        return ()
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a list of str, not a string; write special_tokens=[{special_tokens!r}]")
    if isinstance(special_tokens, Mapping):
        raise TypeError("special_tokens of a training call must be a list of str (ids are assigned by training), not a mapping")
    if not isinstance(special_tokens, Iterable):
        raise TypeError(f"special_tokens must be a list of str, not {type(special_tokens).__name__}")
    first: dict[str, int] = {}
    for i, s in enumerate(cast("Iterable[object]", special_tokens)):
        if not isinstance(s, str):
            raise TypeError(f"special_tokens[{i}] is {type(s).__name__}, expected str")
        if not s:
            raise SpecialTokenError(f"special_tokens[{i}] is the empty string; a special token must be non-empty")
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            raise SpecialTokenError(f"special token {s!r} holds a lone surrogate, which is not valid Unicode; fix the string") from None
        if s in first:
            raise SpecialTokenError(
                f"duplicate special token {s!r}: given twice in special_tokens (positions {first[s]} and {i}); list each special token once"
            )
        first[s] = i
    return tuple(first)


def int_arg(name: str, value: object, minimum: int) -> int:
    """Checks an integer argument (anything `operator.index` takes) that must be >= `minimum`:
    TypeError for a non-integer, `InputError` (a ValueError) below the minimum.

    >>> int_arg("stride", 3, 1)
    3
    """
    try:
        v = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}") from None
    if v < minimum:
        raise InputError(f"{name} must be at least {minimum}, not {v}")
    return v


def vocab_size_arg(vocab_size: object, allow_none: bool) -> int | None:
    """Checks a `vocab_size` argument: an int >= 1 (or None when allowed).

    >>> vocab_size_arg(None, allow_none=True) is None
    True
    """
    if vocab_size is None and allow_none:
        return None
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int{' or None' if allow_none else ''}, not {type(vocab_size).__name__}")
    if vocab_size < 1:
        raise TrainingError(f"vocab_size={vocab_size} is too small; a vocabulary needs at least one token")
    return vocab_size


def min_frequency_arg(min_frequency: object) -> int:
    """Checks a `min_frequency` argument: an int in ``[0, 2**64)``.

    >>> min_frequency_arg(2)
    2
    """
    if isinstance(min_frequency, bool) or not isinstance(min_frequency, int):
        raise TypeError(f"min_frequency must be an int, not {type(min_frequency).__name__}")
    if not 0 <= min_frequency < 2**64:
        raise TrainingError(f"min_frequency={min_frequency} is out of range [0, 2**64); pass 1 (the default) to keep everything")
    return min_frequency


def iter_texts(texts: object, name: str = "corpus") -> Iterator[str]:
    """The items of `texts`, checked to be str.

    Problems with the container are raised now, not at the first ``next()``; an item of the
    wrong type when it is reached (its index is named).

    >>> list(iter_texts(["a", "b"]))
    ['a', 'b']
    """
    if isinstance(texts, str):
        raise TypeError(f"{name} must be an iterable of str documents, not a single str; wrap it in a list: [text]")
    if isinstance(texts, (bytes, bytearray, memoryview)):
        raise TypeError(f"{name} must be an iterable of str documents, not bytes; decode it and wrap it in a list: [data.decode()]")
    try:
        it = iter(texts)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{name} must be an iterable of str documents, got {type(texts).__name__}") from None

    def items() -> Iterator[str]:
        for i, doc in enumerate(it):
            if not isinstance(doc, str):
                raise TypeError(f"{name}[{i}] is {type(doc).__name__}, expected str (decode bytes first)")
            yield doc

    return items()


def plural(count: int, noun: str) -> str:
    """``"1 document"``, ``"3 documents"``.

    >>> plural(3, "document")
    '3 documents'
    """
    return f"{count} {noun}{'' if count == 1 else 's'}"


def fix_surrogates(text: str) -> str:
    """Joins surrogate pairs and replaces lone surrogates with U+FFFD (tiktoken's rule).

    >>> fix_surrogates("a\\ud83d\\ude00\\ud800")
    'a😀\ufffd'
    """
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def has_surrogates(text: str) -> bool:
    """True when `text` cannot be UTF-8 (it holds a surrogate)."""
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def original_index(original: str, n_repaired: int) -> int:
    """Index in `original` of character `n_repaired` of ``fix_surrogates(original)`` (a
    surrogate pair is two characters before and one after).

    >>> original_index("\\ud83d\\ude00x", 1)
    2
    """
    i = k = 0
    while k < n_repaired and i < len(original):
        c = ord(original[i])
        nxt = ord(original[i + 1]) if i + 1 < len(original) else 0
        i += 2 if 0xD800 <= c < 0xDC00 and 0xDC00 <= nxt < 0xE000 else 1
        k += 1
    return i


def as_token_id(t: object, position: int) -> int:
    """`t` as an int token id (numpy integers included); TypeError naming `position` otherwise."""
    if isinstance(t, (float, str, bytes)):
        raise TypeError(f"token id at position {position} is {t!r} ({type(t).__name__}); token ids must be ints")
    try:
        return operator.index(t)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"token id at position {position} is {t!r} ({type(t).__name__}); token ids must be ints") from None


def text_type_error(text: object) -> TypeError:
    """The TypeError for a non-str text (with a hint for bytes)."""
    hint = "; decode bytes first or use encode_bytes()" if isinstance(text, (bytes, bytearray)) else ""
    return TypeError(f"expected text as str, not {type(text).__name__}{hint}")
