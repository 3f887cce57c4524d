"""The tokenmill exception hierarchy.

Every error tokenmill raises from user data is a `TokenmillError` that also subclasses the
built-in a caller would naturally catch (ValueError, KeyError, IndexError, OSError), so code
written for tiktoken, HF tokenizers or sentencepiece keeps working. Each message says what
went wrong, where, and what to do about it. A Rust panic never reaches Python: it becomes
`InternalError`.
"""

from __future__ import annotations

import errno

__all__ = [
    "TokenmillError",
    "VocabFormatError",
    "VocabWarning",
    "UnsupportedError",
    "PatternError",
    "SpecialTokenError",
    "DisallowedSpecialTokenError",
    "TokenIdError",
    "UnknownTokenError",
    "UnknownEncodingError",
    "UnknownModelError",
    "InternalError",
    "InputError",
    "TrainingError",
    "CorpusError",
    "CorpusFileNotFoundError",
    "ShardError",
]


class TokenmillError(Exception):
    """Base class of every tokenmill error."""


class VocabFormatError(TokenmillError, ValueError):
    """A vocabulary file or vocabulary object is malformed.

    Attributes: `path` (or None), `line` (1-based, or None), `reason`, `format`.
    The message reads ``"{path}:{line}: {reason}"`` with the parts that are known.
    """

    def __init__(self, reason: str, path: str | None = None, line: int | None = None, format: str | None = None):
        self.reason = reason
        self.path = None if path is None else str(path)
        self.line = line
        self.format = format
        where = ""
        if self.path is not None:
            where = self.path + (f":{line}" if line is not None else "") + ": "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(where + reason)

    def __reduce__(self):
        return (type(self), (self.reason, self.path, self.line, self.format))

    def at(self, path: str, format: str | None = None) -> "VocabFormatError":
        """The same error, attributed to `path`."""
        return type(self)(self.reason, path, self.line, format or self.format)


class UnsupportedError(VocabFormatError, NotImplementedError):
    """A peer's file uses a component or option tokenmill does not implement (yet).

    The message names the component with its place in the file (``model.type: Unigram``) and
    lists what is supported; nothing is ever encoded with a silently different meaning.

    >>> isinstance(UnsupportedError("x"), (ValueError, NotImplementedError))
    True
    """


class VocabWarning(UserWarning):
    """A vocabulary loads but looks suspect (e.g. a token BPE can never produce)."""


class PatternError(TokenmillError, ValueError):
    """A pre-tokenizer regex pattern does not compile or failed on the input."""


class SpecialTokenError(TokenmillError, ValueError):
    """A problem with special tokens (unknown name, bad allow/disallow argument)."""


class DisallowedSpecialTokenError(SpecialTokenError):
    """The text contains a special token that this call does not allow.

    Attributes: `token` (the special token text), `position` (byte offset in the UTF-8 text).
    """

    def __init__(self, token: str, position: int | None = None):
        self.token = token
        self.position = position
        at = f" at byte {position}" if position is not None else ""
        super().__init__(
            f"Encountered text corresponding to disallowed special token {token!r}{at}.\n"
            "If you want this text to be encoded as a special token, "
            f"pass it to `allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
            "If you want this text to be encoded as normal text, disable the check for this token "
            f"by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
            "To disable this check for all special tokens, pass `disallowed_special=()`.\n"
        )

    def __reduce__(self):
        return (type(self), (self.token, self.position))


class TokenIdError(TokenmillError, ValueError, IndexError):
    """A token id that the vocabulary does not have (out of range, unassigned, negative)."""

    def __init__(self, id: object, position: int | None = None, n_vocab: int | None = None, reason: str | None = None):
        self.id = id
        self.position = position
        self.n_vocab = n_vocab
        at = f" at position {position}" if position is not None else ""
        if reason is None:
            reason = f"is out of range [0, {n_vocab}) or unassigned" if n_vocab is not None else "is not a token of this vocabulary"
        super().__init__(f"token id {id!r}{at} {reason}")

    def __reduce__(self):
        return (type(self), (self.id, self.position, self.n_vocab))


class UnknownTokenError(TokenIdError, KeyError):
    """A single token (id, bytes or text) looked up and not found; also a KeyError, as in tiktoken."""

    def __str__(self) -> str:  # KeyError would repr-quote the message
        return Exception.__str__(self)


class UnknownEncodingError(TokenmillError, ValueError):
    """`get_encoding` was given a name it does not know."""


class UnknownModelError(UnknownEncodingError, KeyError):
    """`encoding_for_model` was given a model name it cannot map (a KeyError, as in tiktoken)."""

    def __str__(self) -> str:  # KeyError would repr-quote the message
        return Exception.__str__(self)


class InternalError(TokenmillError, RuntimeError):
    """A bug in tokenmill (a caught Rust panic). Please report it with the input that caused it."""

    def __init__(self, message: str):
        super().__init__(f"internal error in tokenmill's Rust core: {message}. Please report this, with the input.")


class InputError(TokenmillError, ValueError):
    """An argument that the core cannot use; the message says which and why.

    Raised by the Rust core for arguments that are not a vocabulary problem: a name that is not
    a special token, malformed merge-loop input (a token given twice, a word using an unknown
    symbol), a count overflowing 2**64, an unknown mode.

    >>> from tokenmill import _core
    >>> _core.train_merges([([1, 2], 3)], [(1, b"a"), (2, b"a")], 5)
    Traceback (most recent call last):
    ...
    tokenmill.errors.InputError: token bytes "a" are given twice
    """


class TrainingError(TokenmillError, ValueError):
    """Training cannot run with these arguments or this corpus."""


class CorpusError(TokenmillError, ValueError):
    """A training corpus cannot be read: bad encoding, bad JSON line, missing field, unknown format.

    Attributes: `path` (or None), `line` (1-based, or None), `offset` (byte offset, or None),
    `reason`. The message reads ``"{path}:{line}: {reason}"`` or ``"{path}: byte {offset}: {reason}"``.
    """

    def __init__(self, reason: str, path: str | None = None, line: int | None = None, offset: int | None = None):
        self.reason = reason
        self.path = None if path is None else str(path)
        self.line = line
        self.offset = offset
        where = ""
        if self.path is not None:
            where = self.path + (f":{line}" if line is not None else "") + ": "
            if offset is not None:
                where += f"byte {offset}: "
        super().__init__(where + reason)

    def __reduce__(self):
        return (type(self), (self.reason, self.path, self.line, self.offset))


class CorpusFileNotFoundError(CorpusError, FileNotFoundError):
    """A corpus file does not exist: a `CorpusError` that is also a `FileNotFoundError`.

    Attributes: those of `CorpusError`, plus ``filename`` and ``errno`` (ENOENT).
    """

    def __init__(self, reason: str, path: str | None = None, line: int | None = None, offset: int | None = None):
        super().__init__(reason, path, line, offset)
        self.errno = errno.ENOENT
        self.strerror = reason
        self.filename = self.path

    def __str__(self) -> str:  # OSError would print "[Errno 2] ..."
        return Exception.__str__(self)


class ShardError(TokenmillError, ValueError):
    """A token shard file is missing, truncated or corrupted, or does not match its ``index.json``
    entry; the message names the file."""
