"""`Encoding`: a byte-level BPE tokenizer with tiktoken's interface and exact ids.

This module is the policy layer: it resolves `allowed_special`/`disallowed_special`, repairs
lone surrogates the way tiktoken does, validates ids, and picks thread counts. All real work
(pre-tokenization, BPE, special-token scans) runs in the Rust core with the GIL released.
It does not load files (see `tokenmill.loaders`) or know the standard encodings (see
`tokenmill.registry`).

Surrogates: Python strings may hold lone surrogates, which UTF-8 cannot represent. On every
encode path, a text that fails UTF-8 encoding is re-read as UTF-16 with surrogate pairs joined
and lone surrogates replaced by U+FFFD, exactly as tiktoken's `encode` does. So
``encode("\\ud83d") == encode("\\ufffd")`` everywhere, with no exception.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, AbstractSet, Collection, Literal, Sequence

from . import _core
from .errors import SpecialTokenError, TokenIdError, UnknownTokenError, VocabFormatError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import numpy.typing as npt

__all__ = ["Encoding"]

AllowedSpecial = "Literal['all'] | AbstractSet[str]"
_EMPTY: frozenset = frozenset()


def _fix_surrogates(text: str) -> str:
    """Joins surrogate pairs and replaces lone surrogates with U+FFFD (tiktoken's rule)."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _default_threads(num_threads: int | None) -> int:
    if num_threads is None:
        return os.cpu_count() or 1
    if not isinstance(num_threads, int) or isinstance(num_threads, bool) or num_threads < 1:
        raise ValueError(f"num_threads must be a positive int or None, not {num_threads!r}")
    return num_threads


class Encoding:
    """A byte-level BPE encoding (GPT-2/GPT-4 style), compatible with `tiktoken.Encoding`.

    Args:
        name: Name of the encoding; encodings with different special tokens should have
            different names.
        pat_str: The pre-tokenizer regex. The standard OpenAI patterns run on hand-written
            matchers; any other pattern runs on a backtracking regex engine (tiktoken's).
        mergeable_ranks: ``{token bytes: rank}``; ranks are merge priorities and token ids.
            All 256 single bytes must be present.
        special_tokens: ``{special token text: id}``; ids must not collide with ranks.
        explicit_n_vocab: If given, checked against the number of tokens and the largest id.

    >>> enc = Encoding("toy", pat_str=r"\\w+|\\s+|[^\\w\\s]+",
    ...                mergeable_ranks={bytes([i]): i for i in range(256)} | {b"ab": 256},
    ...                special_tokens={"<|end|>": 257})
    >>> enc.encode("abc<|end|>", allowed_special="all")
    [256, 99, 257]
    """

    __slots__ = ("_name", "_core", "_special_cache", "_specials", "_explicit_n_vocab", "_training", "__weakref__")

    def __init__(
        self,
        name: str,
        pat_str: str | None = None,
        mergeable_ranks: dict[bytes, int] | None = None,
        special_tokens: dict[str, int] | None = None,
        explicit_n_vocab: int | None = None,
        *,
        _core_bpe: "_core.CoreBPE | None" = None,
        _training: dict | None = None,
    ):
        if not isinstance(name, str):
            raise TypeError(f"Encoding name must be a str, not {type(name).__name__}")
        special_tokens = dict(special_tokens or {})
        if _core_bpe is None:
            if not isinstance(pat_str, str):
                raise TypeError("pat_str must be a regex pattern string")
            if not isinstance(mergeable_ranks, dict) or not mergeable_ranks:
                raise VocabFormatError("mergeable_ranks must be a non-empty dict {bytes: int}")
            items = []
            for tok, rank in mergeable_ranks.items():
                if not isinstance(tok, bytes) or not isinstance(rank, int) or isinstance(rank, bool):
                    raise VocabFormatError(f"mergeable_ranks entry {tok!r}: {rank!r} is not bytes -> int")
                if not 0 <= rank < 2**32 - 1:
                    raise VocabFormatError(f"rank {rank} of token {tok!r} is out of range [0, 2**32 - 1)")
                items.append((tok, rank))
            _core_bpe = _core.CoreBPE(items, _check_specials(special_tokens), pat_str)
        self._name = name
        self._specials = {t: i for t, i in _core_bpe.specials()}
        self._special_cache: dict = {}
        self._explicit_n_vocab = explicit_n_vocab
        self._training = dict(_training) if _training else None
        if explicit_n_vocab is not None:
            n_tokens = _core_bpe.n_mergeable + len(self._specials)
            if n_tokens != explicit_n_vocab or _core_bpe.n_vocab != explicit_n_vocab:
                raise VocabFormatError(
                    f"explicit_n_vocab={explicit_n_vocab}, but the encoding has {n_tokens} tokens "
                    f"and its largest id is {_core_bpe.n_vocab - 1}"
                )
        self._core = _core_bpe  # set last: from here on the object is frozen

    # ----------------------------------------------------------------- properties
    @property
    def name(self) -> str:
        """The encoding's name."""
        return self._name

    @property
    def training_info(self) -> dict | None:
        """Metadata of the training run that made this encoding (a copy), or None.

        Keys include ``vocab_size``, ``merges``, ``text_bytes``, ``tokens`` and
        ``bytes_per_token`` (the compression ratio on the training text).
        """
        return dict(self._training) if self._training else None

    @property
    def _pat_str(self) -> str:
        return self._core.pattern

    @property
    def _mergeable_ranks(self) -> dict[bytes, int]:
        """``{bytes: rank}``, built on demand (the core keeps the only resident copy)."""
        return self._core.mergeable_ranks()

    @property
    def _special_tokens(self) -> dict[str, int]:
        return dict(self._specials)

    @property
    def max_token_value(self) -> int:
        """The largest token id, mergeable or special."""
        return self._core.n_vocab - 1

    @property
    def n_vocab(self) -> int:
        """One more than the largest token id (tiktoken's definition)."""
        return self._core.n_vocab

    @property
    def eot_token(self) -> int:
        """Id of ``<|endoftext|>``; KeyError if this encoding has none."""
        try:
            return self._specials["<|endoftext|>"]
        except KeyError:
            raise UnknownTokenError("<|endoftext|>", reason="is not a special token of this encoding") from None

    @property
    def special_tokens_set(self) -> set[str]:
        """The special tokens' texts."""
        return set(self._specials)

    def is_special_token(self, token: int) -> bool:
        """True when `token` is the id of a special token."""
        return token in self._specials.values()

    def token_byte_values(self) -> list[bytes]:
        """Every mergeable token's bytes, sorted."""
        return self._core.token_byte_values()

    def __repr__(self) -> str:
        return f"<Encoding {self._name!r}>"

    def __setattr__(self, key, value):
        if hasattr(self, "_core"):
            raise AttributeError("Encoding objects are immutable; build a new one instead")
        object.__setattr__(self, key, value)

    def __delattr__(self, key):
        raise AttributeError("Encoding objects are immutable; build a new one instead")

    # ----------------------------------------------------------------- specials
    def _special_sets(self, allowed_special, disallowed_special):
        """Resolves the two arguments to core SpecialSets (or None), cached per combination."""
        key = (
            allowed_special if isinstance(allowed_special, (str, frozenset)) else _freeze(allowed_special, "allowed_special"),
            disallowed_special if isinstance(disallowed_special, (str, frozenset)) else _freeze(disallowed_special, "disallowed_special"),
        )
        hit = self._special_cache.get(key)
        if hit is not None:
            return hit
        allowed_k, disallowed_k = key
        names = frozenset(self._specials)
        if isinstance(allowed_k, str):
            if allowed_k != "all":
                raise SpecialTokenError(f"allowed_special must be 'all' or a set of strings, not the string {allowed_k!r}")
            allowed = names
        else:
            allowed = allowed_k & names  # tiktoken ignores names that are not special tokens
        if isinstance(disallowed_k, str):
            if disallowed_k != "all":
                raise SpecialTokenError(f"disallowed_special must be 'all' or a collection of strings, not the string {disallowed_k!r}")
            disallowed = names - allowed
        else:
            disallowed = disallowed_k
        for s in disallowed:
            if not isinstance(s, str) or not s:
                raise SpecialTokenError(f"disallowed_special must hold non-empty strings, got {s!r}")
        a = self._core.special_set(sorted(allowed)) if allowed else None
        d = self._core.literal_set(sorted(disallowed)) if disallowed else None
        self._special_cache[key] = (a, d)
        return a, d

    # ----------------------------------------------------------------- encoding
    def encode_ordinary(self, text: str, *, num_threads: int = 1) -> list[int]:
        """Encodes `text`, treating special-token text as ordinary text.

        Args:
            text: The text to encode.
            num_threads: Threads for this call. A large text (over 512 KiB) is cut at points
                where cutting provably does not change the result and encoded in parallel.

        Returns:
            The token ids.

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").encode_ordinary("hello world")
        [31373, 995]
        """
        n = _default_threads(num_threads)
        try:
            return self._core.encode_ordinary(text, n)
        except UnicodeEncodeError:
            return self._core.encode_ordinary(_fix_surrogates(text), n)
        except TypeError:
            raise _text_type_error(text) from None

    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = _EMPTY,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        num_threads: int = 1,
    ) -> list[int]:
        """Encodes `text` into token ids (tiktoken semantics).

        Special tokens: text matching an allowed special token becomes its id; text matching a
        disallowed one raises `DisallowedSpecialTokenError` (by default every special token is
        disallowed, guarding against prompt injection); anything else is ordinary text.
        Overlapping specials resolve leftmost-longest.

        Args:
            text: The text to encode.
            allowed_special: ``"all"`` or a set of special-token texts to encode as specials.
            disallowed_special: ``"all"`` (every special not allowed) or a collection of texts
                whose presence raises; ``()`` disables the check.
            num_threads: Threads for this call; with no allowed specials, a large text is
                split at provably safe points and encoded in parallel (same ids).

        Returns:
            The token ids.

        >>> from tokenmill import get_encoding
        >>> enc = get_encoding("cl100k_base")
        >>> enc.encode("hello <|endoftext|>", allowed_special="all")
        [15339, 220, 100257]
        """
        a, d = self._special_sets(allowed_special, disallowed_special)
        n = _default_threads(num_threads)
        try:
            return self._core.encode(text, a, d, n)
        except UnicodeEncodeError:
            return self._core.encode(_fix_surrogates(text), a, d, n)
        except TypeError:
            raise _text_type_error(text) from None

    def encode_to_numpy(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = _EMPTY,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        num_threads: int = 1,
    ) -> "npt.NDArray[np.uint32]":
        """Like `encode`, returning a numpy uint32 array (no Python int per token).

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").encode_to_numpy("hello world").tolist()
        [31373, 995]
        """
        a, d = self._special_sets(allowed_special, disallowed_special)
        n = _default_threads(num_threads)
        try:
            return self._core.encode_to_numpy(text, a, d, n)
        except UnicodeEncodeError:
            return self._core.encode_to_numpy(_fix_surrogates(text), a, d, n)
        except TypeError:
            raise _text_type_error(text) from None

    def count(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = _EMPTY,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        num_threads: int = 1,
    ) -> int:
        """Number of tokens `encode` would return, without building the list.

        >>> from tokenmill import get_encoding
        >>> get_encoding("cl100k_base").count("hello world")
        2
        """
        a, d = self._special_sets(allowed_special, disallowed_special)
        n = _default_threads(num_threads)
        try:
            return self._core.count(text, a, d, n)
        except UnicodeEncodeError:
            return self._core.count(_fix_surrogates(text), a, d, n)
        except TypeError:
            raise _text_type_error(text) from None

    def encode_with_offsets(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = _EMPTY,
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> tuple[list[int], list[int]]:
        """Token ids and the character offset in `text` where each token starts.

        A token that starts inside a character (one byte of a multi-byte character) gets that
        character's offset. If `text` held surrogates, offsets refer to the repaired text.

        >>> from tokenmill import get_encoding
        >>> get_encoding("cl100k_base").encode_with_offsets("hello world")
        ([15339, 1917], [0, 5])
        """
        a, d = self._special_sets(allowed_special, disallowed_special)
        try:
            return self._core.encode_with_offsets(text, a, d)
        except UnicodeEncodeError:
            return self._core.encode_with_offsets(_fix_surrogates(text), a, d)
        except TypeError:
            raise _text_type_error(text) from None

    def encode_ordinary_batch(self, text: Sequence[str], *, num_threads: int | None = None) -> list[list[int]]:
        """Encodes many texts in parallel, ignoring special tokens.

        Args:
            text: The texts.
            num_threads: Threads for this call (default: all cores).

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").encode_ordinary_batch(["hello", "world"])
        [[31373], [6894]]
        """
        return self._batch(text, None, None, num_threads, numpy=False)

    def encode_batch(
        self,
        text: Sequence[str],
        *,
        num_threads: int | None = None,
        allowed_special: Literal["all"] | AbstractSet[str] = _EMPTY,
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[list[int]]:
        """Encodes many texts in parallel (per-call `num_threads`, default all cores).

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").encode_batch(["hello", "world"], num_threads=2)
        [[31373], [6894]]
        """
        a, d = self._special_sets(allowed_special, disallowed_special)
        return self._batch(text, a, d, num_threads, numpy=False)

    def encode_batch_to_numpy(
        self,
        text: Sequence[str],
        *,
        num_threads: int | None = None,
        allowed_special: Literal["all"] | AbstractSet[str] = _EMPTY,
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> "tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint64]]":
        """Encodes many texts into one flat uint32 array plus ``len(text) + 1`` boundaries.

        Document i is ``tokens[bounds[i]:bounds[i + 1]]``.

        >>> from tokenmill import get_encoding
        >>> toks, bounds = get_encoding("gpt2").encode_batch_to_numpy(["hello", "world"])
        >>> toks.tolist(), bounds.tolist()
        ([31373, 6894], [0, 1, 2])
        """
        a, d = self._special_sets(allowed_special, disallowed_special)
        return self._batch(text, a, d, num_threads, numpy=True)

    def _batch(self, texts, a, d, num_threads, numpy):
        n = _default_threads(num_threads)
        if isinstance(texts, str):
            raise TypeError("encode_batch expects a list of str, not a single str; use encode() for one text")
        fn = self._core.encode_batch_to_numpy if numpy else self._core.encode_batch
        if not isinstance(texts, (list, tuple)):
            texts = list(texts)  # any iterable, as tiktoken accepts
        try:
            return fn(texts, a, d, n)
        except UnicodeEncodeError:
            return fn([_fix_surrogates(t) for t in texts], a, d, n)
        except TypeError:
            for i, t in enumerate(texts):
                if not isinstance(t, str):
                    raise TypeError(f"texts[{i}] is {type(t).__name__}, expected str") from None
            raise

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of a single token given as bytes or text (mergeable or special).

        Raises `UnknownTokenError` (a KeyError) if it is not a single token.

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").encode_single_token("hello")
        31373
        """
        if isinstance(text_or_bytes, str):
            special = self._specials.get(text_or_bytes)
            if special is not None:
                return special
            try:
                data = text_or_bytes.encode("utf-8")
            except UnicodeEncodeError:
                data = _fix_surrogates(text_or_bytes).encode("utf-8")
        elif isinstance(text_or_bytes, (bytes, bytearray, memoryview)):
            data = bytes(text_or_bytes)
        else:
            raise TypeError(f"encode_single_token expects str or bytes, not {type(text_or_bytes).__name__}")
        rank = self._core.rank(data)
        if rank is None:
            try:
                special = self._specials.get(data.decode("utf-8"))
            except UnicodeDecodeError:
                special = None
            if special is not None:
                return special
            raise UnknownTokenError(text_or_bytes, reason="is not a single token of this encoding")
        return rank

    def _encode_single_piece(self, text_or_bytes: str | bytes) -> list[int]:
        if isinstance(text_or_bytes, str):
            text_or_bytes = text_or_bytes.encode("utf-8", "surrogatepass")
        return self._core.encode_single_piece(text_or_bytes)

    def _encode_bytes(self, text: bytes) -> list[int]:
        return self.encode_bytes(text)

    def encode_bytes(self, data: bytes) -> list[int]:
        """Encodes raw bytes, which need not be valid UTF-8; `decode_bytes` gives them back.

        >>> from tokenmill import get_encoding
        >>> enc = get_encoding("cl100k_base")
        >>> enc.decode_bytes(enc.encode_bytes(b"caf\\xe9"))
        b'caf\\xe9'
        """
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"encode_bytes expects bytes, not {type(data).__name__}")
        return self._core.encode_bytes(bytes(data))

    def split(self, text: str) -> list[str]:
        """The pre-tokens of `text` (the pieces BPE merges within), ignoring special tokens.

        >>> from tokenmill import get_encoding
        >>> get_encoding("cl100k_base").split("Hello world!!")
        ['Hello', ' world', '!!']
        """
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            text = _fix_surrogates(text)
            data = text.encode("utf-8")
        except AttributeError:
            raise _text_type_error(text) from None
        return [data[s:e].decode("utf-8") for s, e in self._core.split(text)]

    def truncate(self, text: str, max_tokens: int, **special) -> str:
        """The longest prefix of `text` that encodes to at most `max_tokens` tokens.

        Encoding a prefix can differ from a prefix of the encoding (the last pre-token may
        split differently), so the cut is checked by re-encoding, not read off the offsets.

        Args:
            text: The text to cut.
            max_tokens: Token budget (>= 0).
            **special: `allowed_special` / `disallowed_special`, as for `encode`.

        Returns:
            A prefix ``p`` of ``text`` with ``len(encode(p)) <= max_tokens``, as long as possible.

        >>> from tokenmill import get_encoding
        >>> get_encoding("cl100k_base").truncate("hello world, how are you?", 2)
        'hello world'
        """
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 0:
            raise ValueError(f"max_tokens must be an int >= 0, not {max_tokens!r}")
        ids, offsets = self.encode_with_offsets(text, **special)
        if len(ids) <= max_tokens:
            return text
        if max_tokens == 0:
            return ""
        original = text
        repaired = _fix_surrogates(text) if _has_surrogates(text) else text
        text = repaired

        def fits(n_chars: int) -> bool:
            return self.count(text[:n_chars], **special) <= max_tokens

        # Candidate: everything before the first token that does not fit. Then grow while a
        # longer prefix still fits (up to the next token boundary), else shrink until it fits.
        cut = offsets[max_tokens]
        hi = offsets[max_tokens + 1] if max_tokens + 1 < len(offsets) else len(text)
        best = None
        for c in range(hi, cut - 1, -1):
            if fits(c):
                best = c
                break
        if best is None:
            c = cut - 1
            while c > 0 and not fits(c):
                c -= 1
            best = max(c, 0)
        if repaired is original:
            return text[:best]
        return original[: _original_index(original, best)]

    # ----------------------------------------------------------------- decoding
    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        """Concatenated bytes of `tokens`.

        Raises `TokenIdError` naming the first bad id and its position.

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").decode_bytes([31373, 995])
        b'hello world'
        """
        if isinstance(tokens, (str, bytes, bytearray, memoryview)):
            raise TypeError(f"expected a sequence of token ids (ints), not {type(tokens).__name__}")
        try:
            return self._core.decode_bytes(tokens)
        except (TypeError, OverflowError):
            return self._core.decode_bytes(self._ids(tokens))

    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        """Decodes `tokens` to text; `errors` is as for `bytes.decode` (default ``"replace"``,
        as in tiktoken: a token sequence cut inside a character yields U+FFFD).

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").decode([31373, 995])
        'hello world'
        """
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token: int) -> bytes:
        """Bytes of one token; `UnknownTokenError` (a KeyError) if the id is not assigned.

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").decode_single_token_bytes(31373)
        b'hello'
        """
        if not isinstance(token, int):
            token = _as_int(token, 0)
        b = self._core.token_bytes(token) if 0 <= token < 2**64 else None
        if b is None:
            raise UnknownTokenError(token, n_vocab=self.n_vocab)
        return b

    def decode_tokens_bytes(self, tokens: Sequence[int]) -> list[bytes]:
        """The bytes of each token.

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").decode_tokens_bytes([31373, 995])
        [b'hello', b' world']
        """
        return self._core.decode_tokens_bytes(self._ids(tokens))

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """Decoded text and the character offset where each token starts (tiktoken's rule).

        Raises UnicodeDecodeError if the tokens do not form valid UTF-8.

        >>> from tokenmill import get_encoding
        >>> get_encoding("cl100k_base").decode_with_offsets([15339, 1917])
        ('hello world', [0, 5])
        """
        data, offsets = self._core.decode_with_offsets(self._ids(tokens))
        return data.decode("utf-8", errors="strict"), offsets

    def decode_batch(self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int | None = None) -> list[str]:
        """Decodes many token lists.

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").decode_batch([[31373], [995]])
        ['hello', ' world']
        """
        return [self.decode(t, errors=errors) for t in batch]

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *, num_threads: int | None = None) -> list[bytes]:
        """Decodes many token lists to bytes."""
        return [self.decode_bytes(t) for t in batch]

    def stream_decoder(self, errors: str = "replace") -> "StreamDecoder":  # noqa: F821
        """A `StreamDecoder` for this encoding.

        >>> from tokenmill import get_encoding
        >>> enc = get_encoding("cl100k_base")
        >>> d = enc.stream_decoder()
        >>> [d.push(t) for t in enc.encode("é")] + [d.flush()]
        ['é', '']
        """
        from .stream import StreamDecoder

        return StreamDecoder(self, errors=errors)

    def _ids(self, tokens) -> list[int]:
        """`tokens` as a list of ints the core accepts, or a clear error naming the position."""
        if isinstance(tokens, list):
            ok = True
        elif type(tokens).__module__ == "numpy":
            if tokens.dtype.kind not in "iu":
                raise TypeError(f"token ids must be integers, got a numpy array of dtype {tokens.dtype}")
            tokens = tokens.ravel().tolist()
            ok = True
        elif isinstance(tokens, (str, bytes, bytearray, memoryview)):
            raise TypeError(f"expected a sequence of token ids (ints), not {type(tokens).__name__}")
        else:
            tokens = list(tokens)
        n = self.n_vocab
        for i, t in enumerate(tokens):
            # Cheap pre-check so the core's conversion can only fail for ids it then reports.
            if type(t) is not int:
                tokens[i] = t = _as_int(t, i)
            if t < 0 or t >= n:
                raise TokenIdError(t, i, n)
        return tokens

    # ----------------------------------------------------------------- pickling
    def save(self, path) -> None:
        """Writes this encoding in tokenmill's tagged JSON format, atomically; read it back
        with `tokenmill.load`.

        >>> import tokenmill, tempfile, os
        >>> p = os.path.join(tempfile.mkdtemp(), "gpt2.json")
        >>> tokenmill.get_encoding("gpt2").save(p)
        >>> tokenmill.load(p).encode("hi")
        [5303]
        """
        from .formats import save

        save(self, path)

    def export(self, format: str, path) -> list:
        """Writes this encoding in a peer's format.

        Args:
            format: ``"tiktoken"`` (rank file at `path`, plus ``<stem>.json`` with pattern
                and special tokens), ``"hf"`` (``tokenizer.json`` at `path`) or ``"gpt2"``
                (``encoder.json`` and ``vocab.bpe`` in the directory `path`).
            path: Where to write.

        Returns:
            The paths written.

        >>> import tokenmill, tempfile, os
        >>> paths = tokenmill.get_encoding("gpt2").export("hf", os.path.join(tempfile.mkdtemp(), "tokenizer.json"))
        >>> [p.name for p in paths]
        ['tokenizer.json']
        """
        from . import formats

        if format == "tiktoken":
            return list(formats.export_tiktoken(self, path))
        if format in ("hf", "huggingface"):
            return [formats.export_hf(self, path)]
        if format == "gpt2":
            return list(formats.export_gpt2(self, path))
        raise ValueError(f"unknown export format {format!r}; use 'tiktoken', 'hf' or 'gpt2'")

    def __reduce__(self):
        from . import registry

        if registry._is_registered(self):
            return (registry.get_encoding, (self._name,))
        return (
            _rebuild,
            (self._name, self._core.pattern, self._core.dump_tiktoken(), self._specials, self._explicit_n_vocab, self._training),
        )

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def _original_index(original: str, n_repaired: int) -> int:
    """Index in `original` of repaired character `n_repaired` (a surrogate pair is 2 -> 1)."""
    i = k = 0
    while k < n_repaired and i < len(original):
        c = ord(original[i])
        nxt = ord(original[i + 1]) if i + 1 < len(original) else 0
        i += 2 if 0xD800 <= c < 0xDC00 and 0xDC00 <= nxt < 0xE000 else 1
        k += 1
    return i


def _rebuild(name, pattern, rank_file, specials, explicit_n_vocab, training=None):
    core = _core.CoreBPE.from_tiktoken_bytes(rank_file, sorted(specials.items(), key=lambda kv: kv[1]), pattern, True)
    return Encoding(name, explicit_n_vocab=explicit_n_vocab, _core_bpe=core, _training=training)


def _check_specials(special_tokens: dict) -> list[tuple[str, int]]:
    out = []
    for tok, i in special_tokens.items():
        if not isinstance(tok, str) or not isinstance(i, int) or isinstance(i, bool):
            raise VocabFormatError(f"special_tokens entry {tok!r}: {i!r} is not str -> int")
        if not 0 <= i < 2**32 - 1:
            raise VocabFormatError(f"special token {tok!r} has id {i}, out of range [0, 2**32 - 1)")
        out.append((tok, i))
    return out


def _freeze(value, what: str) -> frozenset:
    try:
        return frozenset(value)
    except TypeError:
        raise SpecialTokenError(f"{what} must be 'all' or a collection of strings, not {type(value).__name__}") from None


def _as_int(t, position: int) -> int:
    import operator

    if isinstance(t, (float, str, bytes)):
        raise TypeError(f"token id at position {position} is {t!r} ({type(t).__name__}); token ids must be ints")
    try:
        return operator.index(t)
    except TypeError:
        raise TypeError(f"token id at position {position} is {t!r} ({type(t).__name__}); token ids must be ints") from None


def _text_type_error(text) -> TypeError:
    return TypeError(f"expected text as str, not {type(text).__name__}" + ("; decode bytes first or use encode_bytes()" if isinstance(text, (bytes, bytearray)) else ""))


def _from_gpt2_files(cls, encoder_json, vocab_bpe, name: str = "gpt2", pat_str: str | None = None) -> Encoding:
    """Builds an `Encoding` from GPT-2's ``encoder.json`` + ``vocab.bpe`` (same ids as r50k_base).

    Args:
        encoder_json: Path of ``encoder.json``.
        vocab_bpe: Path of ``vocab.bpe``.
        name: Name for the encoding.
        pat_str: Pre-tokenizer pattern (default: GPT-2's).

    >>> enc = Encoding.from_gpt2_files("encoder.json", "vocab.bpe")  # doctest: +SKIP
    """
    from .loaders import load_gpt2_files
    from .registry import R50K_PAT

    ranks, specials = load_gpt2_files(encoder_json, vocab_bpe)
    return cls(name, pat_str or R50K_PAT, ranks, specials)


Encoding.from_gpt2_files = classmethod(_from_gpt2_files)  # type: ignore[attr-defined]
