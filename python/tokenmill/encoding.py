"""`Encoding`: a byte-level BPE tokenizer with tiktoken's interface and exact ids.

This module is the policy layer: it resolves `allowed_special`/`disallowed_special`, repairs
lone surrogates the way tiktoken does, validates ids, and picks thread counts. All real work
(pre-tokenization, BPE, special-token scans) runs in the Rust core with the GIL released.
It also converts an encoding to and from tokenmill's native document (`Encoding.to_dict`,
`Encoding.from_dict`). It does not read or write peer formats (see `tokenmill.formats`, which
registers the exporters and readers `export` and `from_gpt2_files` use) or know the standard
encodings (see `tokenmill.registry`, which hands the encodings it builds their pickle-by-name
factory).

Surrogates: Python strings may hold lone surrogates, which UTF-8 cannot represent. On every
encode path, a text that fails UTF-8 encoding is re-read as UTF-16 with surrogate pairs joined
and lone surrogates replaced by U+FFFD, exactly as tiktoken's `encode` does. So
``encode("\\ud83d") == encode("\\ufffd")`` everywhere, with no exception.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING, AbstractSet, Any, Callable, Collection, Literal, Sequence

from . import _core, _schema
from ._args import as_token_id, fix_surrogates, text_type_error
from ._args import threads as _default_threads
from ._io import PathLike
from ._truncate import longest_prefix
from .errors import InputError, TokenIdError, UnknownTokenError, VocabFormatError
from .patterns import R50K_PAT
from .specials import check_ids, freeze, resolve
from .stream import StreamDecoder
from .tokenizer import Tokenizer, reader

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import numpy.typing as npt

__all__ = ["Encoding"]

AllowedSpecial = "Literal['all'] | AbstractSet[str]"
_EMPTY: frozenset = frozenset()


class Encoding(Tokenizer):
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

    __slots__ = ("_name", "_core", "_special_cache", "_specials", "_explicit_n_vocab", "_training", "_by_name", "_ranks_sha256",
                 "__weakref__")

    model_type = "byte_bpe"
    _pretty_json = False  # a 200k-token vocabulary one entry per line is not worth reading

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
        _by_name: "Callable[[str], Encoding] | None" = None,
        _ranks_sha256: str | None = None,
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
            _core_bpe = _core.CoreBPE(items, check_ids(special_tokens), pat_str)
        self._name = name
        self._specials = {t: i for t, i in _core_bpe.specials()}
        self._special_cache: dict = {}
        self._explicit_n_vocab = explicit_n_vocab
        self._training = dict(_training) if _training else None
        # Set by tokenmill.registry for the standard encodings: pickles hold just the name; and
        # the sha256 of `rank_file_bytes()`, known there (the file's published hash), so that
        # identifying an encoding (`tokenmill.data.prepare`) costs no dump and no hashing.
        self._by_name = _by_name
        self._ranks_sha256 = _ranks_sha256
        if explicit_n_vocab is not None:
            n_tokens = _core_bpe.n_mergeable + len(self._specials)
            if n_tokens != explicit_n_vocab or _core_bpe.n_vocab != explicit_n_vocab:
                raise VocabFormatError(
                    f"explicit_n_vocab={explicit_n_vocab}, but the encoding has {n_tokens} tokens "
                    f"and its largest id is {_core_bpe.n_vocab - 1}"
                )
        self._core = _core_bpe  # set last: from here on the object is frozen

    @classmethod
    def from_gpt2_files(cls, encoder_json: PathLike, vocab_bpe: PathLike, name: str = "gpt2", pat_str: str | None = None) -> Encoding:
        """Builds an `Encoding` from GPT-2's ``encoder.json`` + ``vocab.bpe`` (same ids as r50k_base).

        Args:
            encoder_json: Path of ``encoder.json``.
            vocab_bpe: Path of ``vocab.bpe``.
            name: Name for the encoding.
            pat_str: Pre-tokenizer pattern (default: GPT-2's).

        >>> enc = Encoding.from_gpt2_files("encoder.json", "vocab.bpe")  # doctest: +SKIP
        """
        ranks, specials = reader("gpt2")(encoder_json, vocab_bpe)
        return cls(name, pat_str or R50K_PAT, ranks, specials)

    # ----------------------------------------------------------------- properties
    @property
    def name(self) -> str:
        """The encoding's name."""
        return self._name

    @property
    def training(self) -> dict:
        """Metadata of the training run that made this encoding, or ``{}`` (a copy).

        Keys include ``vocab_size``, ``merges``, ``text_bytes``, ``tokens`` and
        ``bytes_per_token`` (the compression ratio on the training text).

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").training
        {}
        """
        return dict(self._training) if self._training else {}

    @property
    def pattern(self) -> str:
        """The pre-tokenizer regex (tiktoken's ``_pat_str``, kept as an alias).

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").pattern == get_encoding("r50k_base")._pat_str
        True
        """
        return self._core.pattern

    def mergeable_ranks(self) -> dict[bytes, int]:
        """``{token bytes: rank}`` of the mergeable tokens, built on demand (a copy; the core
        keeps the only resident one). tiktoken's ``_mergeable_ranks`` is an alias.

        >>> from tokenmill import get_encoding
        >>> len(get_encoding("gpt2").mergeable_ranks())
        50256
        """
        return self._core.mergeable_ranks()

    def rank_file_bytes(self) -> bytes:
        """The mergeable tokens as a tiktoken rank file (``<base64> <rank>`` lines, by rank).

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").rank_file_bytes()[:8]
        b'IQ== 0\\nI'
        """
        return self._core.dump_tiktoken()

    # tiktoken's private names, which users touch: kept as aliases.
    _pat_str = pattern

    @property
    def _mergeable_ranks(self) -> dict[bytes, int]:
        return self._core.mergeable_ranks()

    @property
    def _special_tokens(self) -> dict[str, int]:
        return dict(self._specials)

    @property
    def max_token_value(self) -> int:
        """The largest token id, mergeable or special."""
        return self._core.n_vocab - 1

    @property
    def cache_capacity(self) -> int:
        """Entries in this encoding's cache of merged words (0: none); see `with_cache_capacity`.

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").cache_capacity
        65536
        """
        return self._core.cache_capacity

    def with_cache_capacity(self, capacity: int) -> Encoding:
        """A copy of this encoding whose cache of merged words holds `capacity` entries.

        Words that are not one token are merged once and kept, across calls and threads, in
        a table of fixed size (65 bytes an entry, 65,536 by default, allocated on first use),
        pieces of over 15 bytes (CJK runs) in half as many 257-byte entries (the longest in a
        sixteenth as many again, of 1 KiB); a new word replaces an older one: memory never grows.
        It serves the call that merged a word, later calls (short calls, text that comes back)
        and the threads of a batch; with 0, each call keeps its own. Ids never depend on it.

        Args:
            capacity: Entries, rounded down to a power of two (0: no cache; at most 2**24).

        Returns:
            A new `Encoding`, same tokens, empty cache (a pickled copy gets the default).

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").with_cache_capacity(1000).cache_capacity
        512
        """
        if isinstance(capacity, bool) or not isinstance(capacity, int) or not 0 <= capacity <= 2**24:
            raise InputError(f"cache capacity must be an int from 0 to 2**24, not {capacity!r}")
        return Encoding(self._name, explicit_n_vocab=self._explicit_n_vocab, _core_bpe=self._core.with_cache_capacity(capacity),
                        _training=self._training, _by_name=self._by_name, _ranks_sha256=self._ranks_sha256)

    @property
    def n_vocab(self) -> int:
        """One more than the largest token id (tiktoken's definition)."""
        return self._core.n_vocab

    @property
    def vocab_size(self) -> int:
        """The same number as `n_vocab`: one more than the largest token id.

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").vocab_size
        50257
        """
        return self._core.n_vocab

    @property
    def special_tokens(self) -> dict[str, int]:
        """``{special token text: id}`` (a copy).

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").special_tokens
        {'<|endoftext|>': 50256}
        """
        return dict(self._specials)

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

    @property
    def pretokenizer(self) -> str:
        """The pre-tokenizer this encoding runs: ``"r50k"``, ``"cl100k"`` or ``"o200k"`` (the
        hand-written matchers of the standard patterns), ``"dfa"`` (any other pattern the lazy DFA
        runs: no look-around but ``\\s+(?!\\S)``, possessive quantifiers only where they give
        nothing back) or ``"regex"`` (the
        backtracking engine, for the rest).

        >>> from tokenmill import get_encoding
        >>> get_encoding("cl100k_base").pretokenizer
        'cl100k'
        """
        return self._core.pretokenizer

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
        # The isinstance tests inline: this runs on every encode call, usually with the defaults.
        key = (
            allowed_special if isinstance(allowed_special, (str, frozenset)) else freeze(allowed_special, "allowed_special"),
            disallowed_special if isinstance(disallowed_special, (str, frozenset)) else freeze(disallowed_special, "disallowed_special"),
        )
        hit = self._special_cache.get(key)
        if hit is not None:
            return hit
        allowed, disallowed = resolve(frozenset(self._specials), *key)
        a = self._core.special_set(sorted(allowed)) if allowed else None
        d = self._core.literal_set(sorted(disallowed)) if disallowed else None
        self._special_cache[key] = (a, d)
        return a, d

    # ----------------------------------------------------------------- encoding
    def encode_ordinary(self, text: str, *, num_threads: int = 1) -> list[int]:
        """Encodes `text`, treating special-token text as ordinary text.

        Args:
            text: The text to encode.
            num_threads: Threads for this call. A large text (256 KiB or more) is cut at points
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
            return self._core.encode_ordinary(fix_surrogates(text), n)
        except TypeError:
            raise text_type_error(text) from None

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
            return self._core.encode(fix_surrogates(text), a, d, n)
        except TypeError:
            raise text_type_error(text) from None

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
            return self._core.encode_to_numpy(fix_surrogates(text), a, d, n)
        except TypeError:
            raise text_type_error(text) from None

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
            return self._core.count(fix_surrogates(text), a, d, n)
        except TypeError:
            raise text_type_error(text) from None

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
            return self._core.encode_with_offsets(fix_surrogates(text), a, d)
        except TypeError:
            raise text_type_error(text) from None

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
            return fn([fix_surrogates(t) for t in texts], a, d, n)
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
                data = fix_surrogates(text_or_bytes).encode("utf-8")
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

    def token_to_id(self, token: str | bytes) -> int:
        """`encode_single_token` under the protocol's name.

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").token_to_id(b" world")
        995
        """
        return self.encode_single_token(token)

    def token_bytes(self, id: int) -> bytes:
        """`decode_single_token_bytes` under the protocol's name.

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").token_bytes(995)
        b' world'
        """
        return self.decode_single_token_bytes(id)

    def id_to_token(self, id: int) -> str:
        """The token's text: its bytes as UTF-8, U+FFFD for bytes that are part of a character
        (use `token_bytes` for the exact bytes).

        >>> from tokenmill import get_encoding
        >>> get_encoding("gpt2").id_to_token(995)
        ' world'
        """
        return self.decode_single_token_bytes(id).decode("utf-8", "replace")

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
            text = fix_surrogates(text)
            data = text.encode("utf-8")
        except AttributeError:
            raise text_type_error(text) from None
        return [data[s:e].decode("utf-8") for s, e in self._core.split(text)]

    def truncate(self, text: str, max_tokens: int, **special) -> str:
        """The longest prefix of `text` that encodes to at most `max_tokens` tokens.

        The cut is checked by counting again, not read off the offsets (see `_truncate`).

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
        return longest_prefix(text, max_tokens, offsets, lambda t: self.count(t, **special))

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
            token = as_token_id(token, 0)
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

    def stream_decoder(self, errors: str = "replace") -> StreamDecoder:
        """A `StreamDecoder` for this encoding.

        >>> from tokenmill import get_encoding
        >>> enc = get_encoding("cl100k_base")
        >>> d = enc.stream_decoder()
        >>> [d.push(t) for t in enc.encode("é")] + [d.flush()]
        ['é', '']
        """
        return StreamDecoder(self, errors=errors)

    def _ids(self, tokens) -> list[int]:
        """`tokens` as a list of ints the core accepts, or a clear error naming the position."""
        own = False  # whether `tokens` is a list made here (the caller's list is never modified)
        if type(tokens).__module__ == "numpy":
            if tokens.dtype.kind not in "iu":
                raise TypeError(f"token ids must be integers, got a numpy array of dtype {tokens.dtype}")
            tokens, own = tokens.ravel().tolist(), True
        elif isinstance(tokens, (str, bytes, bytearray, memoryview)):
            raise TypeError(f"expected a sequence of token ids (ints), not {type(tokens).__name__}")
        elif not isinstance(tokens, list):
            tokens, own = list(tokens), True
        n = self.n_vocab
        for i, t in enumerate(tokens):
            # Cheap pre-check so the core's conversion can only fail for ids it then reports.
            if type(t) is not int:
                if not own:
                    tokens, own = list(tokens), True
                tokens[i] = t = as_token_id(t, i)
            if t < 0 or t >= n:
                raise TokenIdError(t, i, n)
        return tokens

    # ----------------------------------------------------------------- native document
    def to_dict(self) -> dict[str, Any]:
        """The native document of this encoding (vocabulary as ``[id, base64 bytes]`` pairs).

        >>> from tokenmill import get_encoding
        >>> d = get_encoding("gpt2").to_dict()
        >>> d["model"]["type"], len(d["model"]["vocab"]), d["special_tokens"]
        ('byte_bpe', 50256, {'<|endoftext|>': 50256})
        """
        ranks = self._core.mergeable_ranks()
        vocab = [[r, base64.b64encode(b).decode("ascii")] for b, r in sorted(ranks.items(), key=lambda kv: kv[1])]
        return {
            "format": _schema.FORMAT,
            "version": _schema.VERSION,
            "model": {"type": self.model_type, "name": self._name, "pattern": self._core.pattern, "vocab": vocab},
            "special_tokens": dict(self._specials),
            "training": dict(self._training) if self._training else {},
        }

    @classmethod
    def _from_native(cls, d: Mapping[str, Any]) -> Encoding:
        model = d["model"]
        w = "model."
        name = _schema.field(model, "name", str, w)
        pattern = _schema.field(model, "pattern", str, w)
        ranks = _schema.byte_vocab(_schema.field(model, "vocab", list, w), "model.vocab")
        specials = _schema.field(d, "special_tokens", dict, "", required=False, default={})
        if not all(isinstance(k, str) and _schema.is_int(v) for k, v in specials.items()):
            raise VocabFormatError("special_tokens: expected an object of token text -> id")
        training = _schema.field(d, "training", dict, "", required=False, default={}, nullable=True)
        return cls(name, pattern, ranks, specials, _training=training or None)

    def __reduce__(self):
        if self._by_name is not None:
            return (self._by_name, (self._name,))
        return (
            _rebuild,
            (self._name, self._core.pattern, self._core.dump_tiktoken(), self._specials, self._explicit_n_vocab, self._training),
        )

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


def _rebuild(name, pattern, rank_file, specials, explicit_n_vocab, training=None):
    core = _core.CoreBPE.from_tiktoken_bytes(rank_file, sorted(specials.items(), key=lambda kv: kv[1]), pattern, True)
    return Encoding(name, explicit_n_vocab=explicit_n_vocab, _core_bpe=core, _training=training)
