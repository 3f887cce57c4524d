"""Conformance on the user's own data: encode texts with tokenmill and with the library that
defines the tokenizer's file, and report where they agree.

The reference library, by family (imported only here, only when asked for):

* an `Encoding` (standard name, tiktoken export, GPT-2 files, tokenmill JSON): ``tiktoken``,
  built from the same ranks, pattern and special tokens (no download);
* an `HFTokenizer` (``tokenizer.json``): Hugging Face ``tokenizers`` on the same file, with
  ``add_special_tokens=True`` on both sides, padding and truncation as in the file;
* a `WordPiece` (``vocab.txt``): ``tokenizers``' BERT pipeline with the same vocabulary and
  options, ``[CLS]``/``[SEP]`` added on both sides.

Other families have no reference library (an error says so). What this module does not do:
read files (the CLI's ``tokenmill verify`` does) or time anything (``benchmarks/``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .encoding import Encoding
from .models import HFTokenizer, WordPiece

__all__ = ["VerifyResult", "reference_encoder", "verify"]


class VerifyResult:
    """What `verify` found: counts, and the first text whose ids differ (None if none).

    A plain class, not a dataclass: importing `dataclasses` (with `inspect`) costs every
    command line run 7 ms, since the CLI loads this module.
    """

    __slots__ = ("reference", "texts", "equal", "tokens", "first_difference")

    def __init__(self, reference: str, texts: int = 0, equal: int = 0, tokens: int = 0,
                 first_difference: dict[str, Any] | None = None):
        self.reference = reference
        self.texts = texts
        self.equal = equal
        self.tokens = tokens
        self.first_difference = first_difference

    def _fields(self) -> tuple:
        return (self.reference, self.texts, self.equal, self.tokens, self.first_difference)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VerifyResult) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass was

    def __repr__(self) -> str:
        return (f"VerifyResult(reference={self.reference!r}, texts={self.texts}, equal={self.equal}, "
                f"tokens={self.tokens}, first_difference={self.first_difference!r})")

    @property
    def different(self) -> int:
        return self.texts - self.equal

    @property
    def ok(self) -> bool:
        return self.texts == self.equal


def reference_encoder(tok: Any) -> tuple[str, Callable[[list[str]], list[list[int]]], Callable[[list[str]], list[list[int]]]]:
    """``(library name, reference batch encoder, tokenmill batch encoder)`` for `tok`.

    Raises `ImportError` when the reference library is not installed and `TypeError` for a
    family with no reference library.
    """
    if isinstance(tok, Encoding):
        import tiktoken

        ref = tiktoken.Encoding(tok.name, pat_str=tok.pattern, mergeable_ranks=tok.mergeable_ranks(),
                                special_tokens=tok.special_tokens)
        return (f"tiktoken {tiktoken.__version__ if hasattr(tiktoken, '__version__') else ''}".strip(),
                lambda texts: ref.encode_batch(texts, allowed_special="all"),
                lambda texts: tok.encode_batch(texts, allowed_special="all"))
    if isinstance(tok, HFTokenizer):
        import tokenizers

        hf = tokenizers.Tokenizer.from_str(tok.to_json_str())
        return (f"tokenizers {tokenizers.__version__}", lambda texts: [e.ids for e in hf.encode_batch(texts)],
                lambda texts: tok.encode_batch(texts))
    if isinstance(tok, WordPiece):
        import tokenizers
        from tokenizers import decoders, models, normalizers, pre_tokenizers, processors

        o = tok.options
        hf = tokenizers.Tokenizer(models.WordPiece(tok.vocab, unk_token=tok.unk_token,
                                                   continuing_subword_prefix=o["continuing_subword_prefix"],
                                                   max_input_chars_per_word=o["max_input_chars_per_word"]))
        hf.normalizer = normalizers.BertNormalizer(clean_text=o["clean_text"], handle_chinese_chars=o["handle_chinese_chars"],
                                                   strip_accents=o["strip_accents"], lowercase=o["lowercase"])
        hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        cls, sep = o.get("cls_token"), o.get("sep_token")
        if cls and sep:
            hf.post_processor = processors.BertProcessing((sep, tok.token_to_id(sep)), (cls, tok.token_to_id(cls)))
        hf.decoder = decoders.WordPiece(prefix=o["continuing_subword_prefix"])
        hf.add_special_tokens(list(tok.special_tokens))
        return (f"tokenizers {tokenizers.__version__}", lambda texts: [e.ids for e in hf.encode_batch(texts)],
                lambda texts: tok.encode_batch(texts))
    raise TypeError(f"no reference library defines a {type(tok).__name__}; verify compares Encoding (tiktoken), "
                    "HFTokenizer and WordPiece (tokenizers)")


def verify(tok: Any, texts: Sequence[str], *, batch_size: int = 1000, progress: Callable[[int], None] | None = None) -> VerifyResult:
    """Encodes every text with tokenmill and with the reference library; counts agreements.

    Args:
        tok: A tokenmill tokenizer (see the module docstring for the families).
        texts: The texts (one comparison each).
        batch_size: Texts per batch call on each side.
        progress: Called with the number of texts done after each batch.

    Returns:
        A `VerifyResult`; ``first_difference`` holds the text's index, the text, the first
        differing position and both id lists around it.

    >>> import tokenmill
    >>> r = verify(tokenmill.get_encoding("gpt2"), ["hello world", "<|endoftext|> x"])
    >>> r.texts, r.equal, r.first_difference
    (2, 2, None)
    """
    name, ref, ours = reference_encoder(tok)
    out = VerifyResult(reference=name)
    for start in range(0, len(texts), batch_size):
        batch = list(texts[start : start + batch_size])
        want, got = ref(batch), ours(batch)
        for i, (a, b) in enumerate(zip(want, got)):
            out.texts += 1
            out.tokens += len(a)
            if a == b:
                out.equal += 1
            elif out.first_difference is None:
                at = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                out.first_difference = {"index": start + i, "text": batch[i], "position": at,
                                        "reference": a[max(0, at - 3) : at + 5], "tokenmill": b[max(0, at - 3) : at + 5]}
        if progress is not None:
            progress(min(start + batch_size, len(texts)))
    return out
