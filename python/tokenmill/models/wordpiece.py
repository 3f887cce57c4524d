"""WordPiece as in BERT: BERT normalization and pre-tokenization, then greedy longest-match-first
subwords with a ``##`` continuation prefix; the same ids as Hugging Face ``tokenizers``.

The Rust core does the work (`tokenmill._core.WordPiece`: normalizer, pre-tokenizer, model,
offsets into the original text); this module holds the options, the special tokens and HF's
semantics around the model:

* ``encode(text, add_special_tokens=True)`` as HF: ``[CLS] ... [SEP]`` around the ids (when
  the vocabulary has them). Special-token text written in the input (``[MASK]``) becomes its
  id, as HF's added tokens do; ``allowed_special`` / ``disallowed_special`` keep the meaning
  they have for every tokenmill family.
* ``decode(ids, skip_special_tokens=True)`` as HF's WordPiece decoder with ``cleanup``:
  tokens joined by spaces, ``" ##"`` removed, spaces before punctuation and English
  contractions tidied.
* Lone surrogates in a Python str are repaired as tiktoken does (pairs joined, lone halves
  U+FFFD); offsets then refer to the repaired text.
* A word longer than ``max_input_chars_per_word`` characters, or with a part that no token
  matches, is one unknown token (HF's rule).

Files: ``vocab.txt`` (one token per line, line i is id i; `tokenmill.formats.wordpiece_vocab`),
tokenmill's native JSON, and an HF ``tokenizer.json`` written by ``export("hf", path)``
(`tokenmill.formats.hf.wordpiece_tokenizer_dict`). Training: `tokenmill.train_wordpiece`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping
from itertools import accumulate
from typing import Any

from .. import _core
from .._args import fix_surrogates, has_surrogates, iter_texts, threads
from .._schema import check_keys, field
from ..errors import VocabFormatError
from ._vocab import VocabTokenizer

__all__ = ["WordPiece", "BERT_SPECIALS"]

#: BERT's special tokens, as in ``bert-base-uncased``.
BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

# HF's WordPiece decoder cleanup, applied to each token (with its leading space) on its own,
# in this order; checked against `tokenizers.decoders.WordPiece` in tests/test_wordpiece.py.
_CLEANUP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
            (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


class WordPiece(VocabTokenizer):
    """BERT-style WordPiece (see the module docstring).

    Args:
        vocab: ``{token: id}`` of every token (ids ``0 .. n - 1``), special tokens included.
        special_tokens: ``{text: id}`` of the special tokens (default: those of
            `BERT_SPECIALS` present in `vocab`).
        unk_token: The token for unknown words.
        continuing_subword_prefix: Marks a token that continues a word.
        max_input_chars_per_word: Longer words are one unknown token.
        lowercase, strip_accents, clean_text, handle_chinese_chars: BertNormalizer's options
            (``strip_accents=None`` follows `lowercase`).
        cls_token, sep_token: Put around the ids by ``add_special_tokens=True`` (None: nothing).
        training: Metadata to keep (JSON-able).

    >>> tok = WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "un": 3, "##aff": 4, "##able": 5, ",": 6})
    >>> tok.encode("Unaffable, x")
    [1, 3, 4, 5, 6, 0, 2]
    >>> tok.decode(tok.encode("Unaffable,"))
    'unaffable,'
    """

    __slots__ = ("_core_wp", "_options", "_cls_id", "_sep_id")

    model_type = "wordpiece"

    def __init__(
        self,
        vocab: Mapping[str, int],
        special_tokens: Mapping[str, int] | None = None,
        *,
        unk_token: str = "[UNK]",
        continuing_subword_prefix: str = "##",
        max_input_chars_per_word: int = 100,
        lowercase: bool = True,
        strip_accents: bool | None = None,
        clean_text: bool = True,
        handle_chinese_chars: bool = True,
        cls_token: str | None = "[CLS]",
        sep_token: str | None = "[SEP]",
        training: Mapping[str, Any] | None = None,
    ):
        options = dict(continuing_subword_prefix=continuing_subword_prefix, max_input_chars_per_word=max_input_chars_per_word,
                       lowercase=lowercase, strip_accents=strip_accents, clean_text=clean_text,
                       handle_chinese_chars=handle_chinese_chars, cls_token=cls_token, sep_token=sep_token)
        self._init(vocab, special_tokens, unk_token, options, training, "")

    def _init(self, vocab, special_tokens, unk_token, options: dict, training, mp: str) -> None:
        if special_tokens is None and isinstance(vocab, Mapping):
            special_tokens = {s: vocab[s] for s in BERT_SPECIALS if s in vocab}
        self._init_base(vocab, special_tokens, unk_token, training, mp)
        for key in ("cls_token", "sep_token"):
            tok = options[key]
            if tok is not None and tok not in self._vocab:
                options[key] = None  # a vocabulary without [CLS]/[SEP]: nothing to add
        prefix, max_chars = options["continuing_subword_prefix"], options["max_input_chars_per_word"]
        if not isinstance(prefix, str):
            raise VocabFormatError(f"{mp}continuing_subword_prefix: expected a string, got {type(prefix).__name__}")
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1:
            raise VocabFormatError(f"{mp}max_input_chars_per_word: expected a positive integer, got {max_chars!r}")
        for key in ("lowercase", "clean_text", "handle_chinese_chars"):
            if not isinstance(options[key], bool):
                raise VocabFormatError(f"{mp}{key}: expected true or false, got {options[key]!r}")
        if options["strip_accents"] is not None and not isinstance(options["strip_accents"], bool):
            raise VocabFormatError(f"{mp}strip_accents: expected true, false or null, got {options['strip_accents']!r}")
        core = _core.WordPiece(
            list(self._vocab.items()), unk_token, prefix, max_chars, options["clean_text"], options["handle_chinese_chars"],
            options["strip_accents"], options["lowercase"],
        )
        self._set(
            _core_wp=core,
            _options=options,
            _cls_id=None if options["cls_token"] is None else self._vocab[options["cls_token"]],
            _sep_id=None if options["sep_token"] is None else self._vocab[options["sep_token"]],
        )

    # ------------------------------------------------------------------------- encoding
    def encode(self, text: str, *, add_special_tokens: bool = True, allowed_special: Any = "all", disallowed_special: Any = ()) -> list[int]:
        """Token ids of `text`, as HF: ``[CLS] ... [SEP]`` when `add_special_tokens`.

        >>> tok = WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hi": 3})
        >>> tok.encode("Hi hi", add_special_tokens=False)
        [3, 3]
        """
        ids = self._encode(text, allowed_special, disallowed_special, None)
        return self._wrap(ids) if add_special_tokens else ids

    def encode_with_offsets(self, text: str, *, add_special_tokens: bool = True, allowed_special: Any = "all",
                            disallowed_special: Any = ()) -> tuple[list[int], list[int]]:
        """Ids and the character offset in `text` where each token starts ([CLS]/[SEP]: 0).

        >>> tok = WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hi": 3, "##s": 4})
        >>> tok.encode_with_offsets("  his hi", add_special_tokens=False)
        ([3, 4, 3], [2, 4, 6])
        """
        offsets: list[int] = []
        ids = self._encode(text, allowed_special, disallowed_special, offsets)
        if add_special_tokens:
            wrapped = self._wrap(ids)
            if len(wrapped) != len(ids):
                offsets = ([0] if self._cls_id is not None else []) + offsets + ([0] if self._sep_id is not None else [])
            ids = wrapped
        return ids, offsets

    def encode_batch(self, texts: Iterable[str], *, num_threads: int | None = None, add_special_tokens: bool = True, **special: Any) -> list[list[int]]:
        """``[encode(t) for t in texts]``; threads per call in the core for plain text.

        >>> tok = WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hi": 3})
        >>> tok.encode_batch(["hi", "hi hi"], add_special_tokens=False)
        [[3], [3, 3]]
        """
        n = threads(num_threads)
        texts = list(iter_texts(texts, "texts"))
        if special:  # explicit special-token policy (it may disallow any literal): per text
            return [self.encode(t, add_special_tokens=add_special_tokens, **special) for t in texts]
        # Texts without special-token text (nearly all) go to the core's parallel batch in one
        # call; the others take the per-text path that splits the special tokens out first.
        # One scan of the joined texts finds those (25k `in` tests per special cost more).
        joined = "\0".join(texts)
        special_docs: set[int] = set()
        starts: list[int] | None = None
        for s in self._special_tokens:
            at = joined.find(s)
            while at >= 0:
                if starts is None:
                    starts = list(accumulate((len(t) + 1 for t in texts[:-1]), initial=0))
                special_docs.add(bisect_right(starts, at) - 1)
                at = joined.find(s, at + 1)
        plain = [i for i in range(len(texts)) if i not in special_docs] if special_docs else range(len(texts))
        todo = [texts[i] for i in plain] if special_docs else texts
        try:
            found = self._core_wp.encode_batch(todo, n)
        except UnicodeEncodeError:  # lone surrogates: repaired as in `_encode_segment`
            found = self._core_wp.encode_batch([fix_surrogates(t) for t in todo], n)
        cls, sep = self._cls_id, self._sep_id
        if add_special_tokens and (cls is not None or sep is not None):
            for ids in found:  # fresh lists from the core: extend them in place
                if cls is not None:
                    ids.insert(0, cls)
                if sep is not None:
                    ids.append(sep)
        if not special_docs:
            return found
        out: list[list[int]] = [[] for _ in texts]
        for i, ids in zip(plain, found):
            out[i] = ids
        for i in sorted(special_docs):
            out[i] = self.encode(texts[i], add_special_tokens=add_special_tokens)
        return out

    def _wrap(self, ids: list[int]) -> list[int]:
        head = [] if self._cls_id is None else [self._cls_id]
        tail = [] if self._sep_id is None else [self._sep_id]
        return head + ids + tail

    def _encode_segment(self, text: str, offsets: list[int] | None = None, base: int = 0) -> list[int]:
        if has_surrogates(text):  # as tiktoken repairs them: pairs joined, lone halves U+FFFD
            text = fix_surrogates(text)
        if offsets is None:
            return self._core_wp.encode(text)
        ids, spans = self._core_wp.encode_with_offsets(text)
        offsets.extend(base + s for s, _ in spans)
        return ids

    # ------------------------------------------------------------------------- decoding
    def decode(self, ids: Iterable[int], errors: str = "replace", *, skip_special_tokens: bool = True) -> str:
        """HF's WordPiece decoding (``##`` joined, cleanup); special tokens skipped by default.

        >>> tok = WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "it": 3, "##s": 4, "'": 5, ".": 6, "s": 7})
        >>> tok.decode(tok.encode("Its it's."))
        "its it ' s."
        """
        tokens = self._token_strings(ids)
        if skip_special_tokens:
            tokens = [t for t in tokens if t not in self._special_tokens]
        prefix = self._options["continuing_subword_prefix"]
        parts = []
        for i, t in enumerate(tokens):
            if i:  # a continuation joins its word; any other token starts a new one
                t = t[len(prefix):] if prefix and t.startswith(prefix) else " " + t
            for a, b in _CLEANUP:
                t = t.replace(a, b)
            parts.append(t)
        return "".join(parts)

    # ------------------------------------------------------------------------- files
    @property
    def options(self) -> dict[str, Any]:
        """The model's options (a copy).

        >>> WordPiece({"[UNK]": 0})._options["continuing_subword_prefix"]
        '##'
        """
        return dict(self._options)

    def _model_fields(self) -> dict[str, Any]:
        return {"vocab": self._ordinary_vocab(), "unk_token": self.unk_token, **self._options}

    @classmethod
    def _from_model(cls, model: Mapping, special_tokens: Mapping, training: Mapping) -> WordPiece:
        w = "model."
        keys = ("type", "vocab", "unk_token", "continuing_subword_prefix", "max_input_chars_per_word", "lowercase", "strip_accents",
                "clean_text", "handle_chinese_chars", "cls_token", "sep_token")
        check_keys(model, keys, w)
        vocab = field(model, "vocab", dict, w)
        unk = field(model, "unk_token", str, w)
        options = {k: model.get(k) for k in keys[3:]}
        obj = cls.__new__(cls)
        obj._init(vocab, special_tokens, unk, options, training, w)
        return obj

