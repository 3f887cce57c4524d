"""Vocabulary inspection: what a tokenizer's vocabulary holds, which of its tokens can never
be produced, and which are likely under-trained ("glitch") tokens in a model that uses it.

`inspect` returns plain data (a dict of numbers, strings and lists, ready for ``json.dumps``);
``tokenmill inspect`` prints it. Tokens are shown escaped by `tokenmill.viz.tokens.visible`.

Sections of the result:

* **Vocabulary**: ``vocab_size`` (one more than the largest id), assigned and unassigned ids
  (o200k_base leaves 19 ids unassigned), the special tokens, a histogram of token lengths in
  bytes (a token's exact bytes for byte-level tokenizers; for string vocabularies the UTF-8
  of the vocabulary entry, markers such as ``##`` and ``▁`` included) and the longest tokens.
* **Round trip** (Land and Bartolo, "Fishing for Magikarp: Automatically Detecting
  Under-trained Tokens in Large Language Models", EMNLP 2024, arXiv:2405.05417, section 3.1),
  for ordinary (non-special) tokens:

  - ``unreachable``: encoding the token's own text does not give the token, so no input text
    ever produces it and a model never trains it. ``kind`` says what the text gives instead:
    ``other-token`` (one different id), ``split`` (several ids), ``empty``, or
    ``placeholder`` (text like ``[unused12]`` or ``<extra_id_1>``, split as ordinary text).
  - ``partial_utf8``: bytes that are not whole UTF-8 characters but occur inside valid UTF-8
    text (``b"\\xe2\\x80"``, the first two bytes of ``"—"``): only context produces them, so
    the round trip cannot test them; they are reported, not judged.
  - ``invalid_utf8``: bytes that occur in no valid UTF-8 text: a byte 0xC0, 0xC1 or
    0xF5-0xFF anywhere, or an impossible sequence (a lead byte followed by a non-continuation
    byte, more than three continuation bytes in a row, a surrogate or an overlong prefix).
    Text never produces them; `utf8_fragment` decides.

  Byte-level tokenizers (`tokenmill.viz.tokens.is_byte_level`) are tested on bytes, exactly
  as the paper does: a token is reachable when ``encode_ordinary(token_bytes.decode())``
  is ``[id]``. String vocabularies (WordPiece, SentencePiece-style BPE, tokenizers read from a
  ``tokenizer.json`` that `is_byte_level` does not flag) are tested on text: the token's text
  is its single-token decoding, encoded without template tokens; a token whose text alone
  does not give it counts as reachable when the text right after an anchor letter does
  (``encode(a + text) == encode(a) + [id]``; two anchors per token, letters or digits that
  no vocabulary entry joins with the text's first letter) or right before one (for models
  that mark word ends, like ``</w>``, whose word-inner pieces need more word after them). A
  continuation piece (``##ing`` with the model's ``continuing_subword_prefix``) is tested
  only that way, on its text without the prefix: WordPiece gives ``##ing`` only inside a
  word. Byte-fallback tokens ``<0xNN>`` are the byte 0xNN: ASCII ones are round-tripped,
  the others are partial or never-valid UTF-8. Limit: a token that only arises before or
  between other tokens (SentencePiece's lone ``▁``) shows as unreachable.
* **Glitch-token candidates**: reachable, non-special tokens that a reference corpus (the
  bundled one by default) produces at most ``max_count`` times, ranked by the merge-chain
  score of `tokenmill.analysis.glitch` (its docstring explains the indicator and its
  limits). GPT-2's ``" SolidGoldMagikarp"`` (43453) is in the default top 100. They are
  candidates to test in the model (the paper prompts the model to repeat each one), not proof:
  a small corpus leaves every rare token unseen.
* **Embeddings** (with ``embeddings=``): the paper's indicator, cosine distance to the mean
  embedding of known-unused tokens after removing the first principal component
  (`tokenmill.analysis.glitch.embedding_distances`); the reference tokens are
  ``unused_ids`` if given, else the matrix's rows past the vocabulary, else the tokens that
  can never be input (unreachable or never-valid UTF-8), else the tokens the corpus never
  produced.

What it does not do: run or download a model, or print (``tokenmill inspect`` does).

>>> utf8_fragment("—".encode()[:2]), utf8_fragment(b"\\xf5")
('partial', 'invalid')
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._args import threads
from ..errors import InputError
from ..tokenizer import Tokenizer
from ..viz.tokens import is_byte_level, ordinary_tokens, resolve, visible
from .glitch import accepts, count_tokens, embedding_distances, load_embeddings, rank_candidates

__all__ = ["inspect", "utf8_fragment"]

# Bytes that occur nowhere in UTF-8 (RFC 3629): overlong leads and leads past U+10FFFF.
_NEVER = frozenset([0xC0, 0xC1, *range(0xF5, 0x100)])
# Allowed range of the byte after these lead bytes (the others allow 0x80-0xBF).
_SECOND = {0xE0: (0xA0, 0xBF), 0xED: (0x80, 0x9F), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}
_BYTE_FALLBACK = re.compile(r"<0x([0-9A-Fa-f]{2})>")
_PLACEHOLDER = re.compile(r"[\[<][^\s]*[A-Za-z][^\s]*[\]>]")
# Anchor letters tried before a token's text (string vocabularies), and how many per token.
_ANCHORS = "abcdefghijklmnopqrstuvwxyz0123456789"
_TRIES = 2


def utf8_fragment(data: bytes) -> str:
    """Whether `data` is whole UTF-8 (``"whole"``), a piece that can occur inside valid UTF-8
    text (``"partial"``), or bytes that occur in no valid UTF-8 text (``"invalid"``).

    >>> [utf8_fragment(b) for b in (b"caf\\xc3\\xa9", b"\\xe2\\x80", b"\\x94abc", b"\\xff", b"\\xe2a", b"\\xed\\xa0")]
    ['whole', 'partial', 'partial', 'invalid', 'invalid', 'invalid']
    """
    try:
        data.decode("utf-8")
        return "whole"
    except UnicodeDecodeError:
        pass
    if any(b in _NEVER for b in data):
        return "invalid"
    i = 0
    # Up to three continuation bytes may end a character that began before the token.
    while i < len(data) and 0x80 <= data[i] <= 0xBF:
        i += 1
    if i > 3:
        return "invalid"
    while i < len(data):
        b = data[i]
        i += 1
        if b < 0x80:
            continue
        if b <= 0xBF:  # a continuation byte where a character must start
            return "invalid"
        need = 1 if b <= 0xDF else 2 if b <= 0xEF else 3
        lo, hi = _SECOND.get(b, (0x80, 0xBF))
        for k in range(need):
            if i >= len(data):
                return "partial"  # the character goes on after the token
            c = data[i]
            if not (lo <= c <= hi if k == 0 else 0x80 <= c <= 0xBF):
                return "invalid"
            i += 1
    return "partial"


# ------------------------------------------------------------------------ the vocabulary
class _Vocab:
    """The assigned ids of a tokenizer: exact bytes, vocabulary strings (string vocabularies),
    special ids."""

    def __init__(self, tok: Tokenizer):
        self.tok = tok
        self.size = tok.vocab_size
        self.byte_level = is_byte_level(tok)
        self.specials = dict(sorted(tok.special_tokens.items(), key=lambda kv: kv[1]))
        self.data, self.unassigned = ordinary_tokens(tok)  # ordinary tokens' bytes
        self.strings: dict[int, str] = {} if self.byte_level else {i: tok.id_to_token(i) for i in self.data}


def _encode_many(tok: Tokenizer, texts: list[str], n_threads: int) -> list[list[int]]:
    """Ids of each text as ordinary text, no template tokens, in one parallel batch."""
    if not texts:
        return []
    batch = getattr(tok, "encode_ordinary_batch", None)
    if batch is not None:
        return batch(texts, num_threads=n_threads)
    if accepts(tok.encode_batch, "add_special_tokens"):
        return tok.encode_batch(texts, num_threads=n_threads, add_special_tokens=False)  # type: ignore[call-arg]
    return tok.encode_batch(texts, num_threads=n_threads)


def _continuation_prefix(tok: Tokenizer) -> str | None:
    """The model's ``continuing_subword_prefix`` (WordPiece's ``##``), if it has one."""
    options = getattr(tok, "options", None)
    if isinstance(options, Mapping) and options.get("continuing_subword_prefix"):
        return str(options["continuing_subword_prefix"])
    try:
        model = tok.to_dict().get("model", {})
    except Exception:  # a family without a native document: no prefix known
        return None
    doc = model.get("tokenizer_json") if isinstance(model, Mapping) else None
    inner = doc.get("model") if isinstance(doc, Mapping) else None
    prefix = inner.get("continuing_subword_prefix") if isinstance(inner, Mapping) else None
    return prefix if isinstance(prefix, str) and prefix else None


def _anchor_plan(v: _Vocab, prefix: str | None, n_threads: int) -> tuple[list[tuple[str, list[int]]], set[str]]:
    """Anchor letters (those that begin the fewest word-initial entries first) with their ids,
    and the first two letters of every word-initial entry: an anchor is good for a text when
    no entry starts with the anchor and the text's first letter, so the anchor stays a token
    of its own."""
    starts: Counter[str] = Counter()
    pairs: set[str] = set()
    for s in v.strings.values():
        if prefix and s.startswith(prefix):
            continue
        s = s.lstrip("▁Ġ ").lower()
        if len(s) > 1:
            starts[s[0]] += 1
            pairs.add(s[:2])
    letters = sorted(_ANCHORS, key=lambda a: (starts[a], _ANCHORS.index(a)))
    return [(a, ids) for a, ids in zip(letters, _encode_many(v.tok, letters, n_threads)) if ids], pairs


def _anchored(v: _Vocab, texts: dict[int, str], prefix: str | None, n_threads: int) -> dict[int, list[int]]:
    """The ids in `texts` that no anchor makes reachable, with the ids of the first try.

    Each text is tried after two anchors and, for continuation-free texts, before two
    (``encode(text + a) == [id] + encode(a)``: models that mark word ends, like ``</w>``,
    give a word-inner piece only when more of the word follows)."""
    anchors, pairs = _anchor_plan(v, prefix, n_threads)
    if not anchors:
        return {i: [] for i in texts}
    plan: list[tuple[int, int, bool]] = []  # (id, anchor, anchor first)
    for i, t in texts.items():
        for first in (True, False) if not (prefix and v.strings[i].startswith(prefix)) else (True,):
            join = (lambda a: a + t[:1]) if first else (lambda a: t[-1:] + a)
            good = [k for k, (a, _) in enumerate(anchors) if join(a).lower() not in pairs][:_TRIES]
            good += [k for k in range(len(anchors)) if k not in good][: _TRIES - len(good)]
            plan.extend((i, k, first) for k in good)
    outs = _encode_many(v.tok, [anchors[k][0] + texts[i] if first else texts[i] + anchors[k][0] for i, k, first in plan], n_threads)
    failed: dict[int, list[int]] = {}
    reached = set()
    for (i, k, first), out in zip(plan, outs):
        ids = anchors[k][1]
        if out == (ids + [i] if first else [i] + ids):
            reached.add(i)
        elif i not in failed:
            failed[i] = list(out[len(ids):]) if out[: len(ids)] == ids else list(out)
    return {i: out for i, out in failed.items() if i not in reached}


def _round_trip(v: _Vocab, n_threads: int) -> dict[str, Any]:
    """``{"method", "checked", "unreachable": {id: ids of its text}, "partial": [ids], "invalid": [ids]}``."""
    partial: list[int] = []
    invalid: list[int] = []
    unreachable: dict[int, list[int]] = {}

    def fragment(i: int, data: bytes) -> None:
        (invalid if utf8_fragment(data) == "invalid" else partial).append(i)

    if v.byte_level:
        ids, texts = [], []
        for i, data in v.data.items():
            try:
                texts.append(data.decode("utf-8"))
                ids.append(i)
            except UnicodeDecodeError:
                fragment(i, data)
        for i, out in zip(ids, _encode_many(v.tok, texts, n_threads)):
            if out != [i]:
                unreachable[i] = list(out)
        return {"method": "bytes", "checked": len(ids), "unreachable": unreachable, "partial": partial, "invalid": invalid}

    prefix = _continuation_prefix(v.tok)
    order = list(v.data)
    decoded = v.tok.decode_batch([[i] for i in order])
    plain: dict[int, str] = {}
    anchored: dict[int, str] = {}
    for i, text in zip(order, decoded):
        s = v.strings[i]
        m = _BYTE_FALLBACK.fullmatch(s)
        if m and int(m.group(1), 16) >= 0x80:
            fragment(i, bytes([int(m.group(1), 16)]))
        elif "\ufffd" in text and "\ufffd" not in s and "\ufffd".encode() not in v.data[i]:
            data = v.data[i]
            if utf8_fragment(data) == "whole":  # a vocabulary string standing for unknown bytes
                partial.append(i)
            else:
                fragment(i, data)
        elif prefix and s.startswith(prefix) and len(s) > len(prefix):
            anchored[i] = s[len(prefix):]
        else:
            plain[i] = text
    for i, out in zip(plain, _encode_many(v.tok, list(plain.values()), n_threads)):
        if out != [i]:
            unreachable[i] = list(out)
            anchored[i] = plain[i]
    failed = _anchored(v, anchored, prefix, n_threads) if anchored else {}
    for i in anchored:
        if i in failed:
            unreachable.setdefault(i, failed[i])  # a plain failure keeps what the text alone gave
        else:
            unreachable.pop(i, None)
    return {"method": "text", "checked": len(plain) + sum(1 for i in anchored if i not in plain),
            "unreachable": unreachable, "partial": partial, "invalid": invalid}


# ------------------------------------------------------------------------ the report
def _entry(v: _Vocab, i: int, **extra: Any) -> dict[str, Any]:
    return {"id": i, "token": visible(v.data[i]), **extra}


def _kind(v: _Vocab, i: int, out: Sequence[int]) -> str:
    text = v.strings.get(i) if not v.byte_level else v.data[i].decode("utf-8", "replace")
    if text is not None and _PLACEHOLDER.fullmatch(text) and not _BYTE_FALLBACK.fullmatch(text):
        return "placeholder"
    return "empty" if not out else "other-token" if len(out) == 1 else "split"


def _listed(ids: Sequence[int], top: int, make: Callable[[int], dict[str, Any]]) -> dict[str, Any]:
    return {"count": len(ids), "tokens": [make(i) for i in ids[:top]]}


def _given_ids(rows: int, unused_ids: Iterable[int]) -> list[int]:
    """The caller's known-unused ids, checked against the matrix's rows."""
    ids = sorted({int(i) for i in unused_ids})
    bad = [i for i in ids if not 0 <= i < rows]
    if bad or not ids:
        raise InputError(f"unused ids must be rows of the embedding matrix (0..{rows - 1}); got {bad[:5] or 'none'}")
    return ids


def _reference_ids(v: _Vocab, rows: int, rt: dict[str, Any], counts: Any, unused_ids: Iterable[int] | None) -> tuple[list[int], str]:
    """The rows taken as known-unused for the embedding indicator, and where they come from."""
    if unused_ids is not None:
        return _given_ids(rows, unused_ids), "given ids (unused_ids, --unused)"
    if rows > v.size:
        return list(range(v.size, rows)), "rows past the tokenizer's vocabulary (padding, never trained)"
    never = sorted(set(rt["unreachable"]) | set(rt["invalid"]))
    if never:
        return never, "tokens no text produces (unreachable or never-valid UTF-8)"
    unseen = [i for i in v.data if counts[i] == 0]
    if unseen:
        return unseen, "tokens the reference corpus never produced"
    raise InputError("no token is known to be unused (all reachable and all seen in the corpus); pass unused_ids")


def _embeddings(v: _Vocab, m: Any, rt: dict[str, Any], counts: Any, unused_ids: Iterable[int] | None, top: int,
                progress: Callable[[str], None] | None) -> dict[str, Any]:
    import numpy as np  # heavy; only the embedding indicator needs it here

    ref, where = _reference_ids(v, m.shape[0], rt, counts, unused_ids)
    if progress is not None:
        progress(f"embeddings {m.shape[0]:,} x {m.shape[1]:,}: removing the first principal component, distances to {len(ref):,} unused tokens")
    distances, norms = embedding_distances(m, ref)
    excluded = set(ref) | set(rt["unreachable"]) | set(rt["invalid"])
    ids = np.array([i for i in v.data if i not in excluded], dtype=np.int64)
    ids = ids[np.argsort(distances[ids], kind="stable")] if len(ids) else ids
    qs = np.quantile(distances[ids], [0.01, 0.05, 0.5]) if len(ids) else [float("nan")] * 3
    return {
        "shape": [int(m.shape[0]), int(m.shape[1])], "dtype": str(m.dtype),
        "reference": {"source": where, "count": len(ref), "ids": ref[:top]},
        "removed_components": 1,
        "distance_quantiles": {"p1": float(qs[0]), "p5": float(qs[1]), "p50": float(qs[2])},
        "candidates": [_entry(v, int(i), distance=float(distances[i]), norm=float(norms[i]), count=int(counts[i]))
                       for i in ids[:top]],
    }


def inspect(tokenizer: str | Tokenizer, corpus: str | Path | Sequence[str | Path] | None = None,
            embeddings: str | Path | Any | None = None, *, top: int = 100, max_count: int = 0,
            unused_ids: Iterable[int] | None = None, num_threads: int | None = None,
            progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Everything `tokenmill.analysis.inspect` reports about a vocabulary (module docstring).

    Args:
        tokenizer: a standard encoding name, a file `tokenmill.load` reads, or a tokenizer.
        corpus: reference text files (plain or gzip UTF-8) for the glitch candidates; None
            uses the bundled reference corpus.
        embeddings: a (vocab, dim) float matrix (numpy array or ``.npy`` path) of the model's
            input or output embeddings, for the embedding indicator; None skips it.
        top: how many tokens each list holds (counts are always complete).
        max_count: the largest reference count that still makes a glitch candidate.
        unused_ids: ids of tokens known to be unused, the embedding indicator's reference.
        num_threads: threads for the batch encodes (default: every core).
        progress: called with a short note before each long step (the CLI prints them).

    Returns:
        A dict: ``name``, ``family``, ``byte_level``, ``vocab_size``, ``assigned``,
        ``unassigned``, ``special_tokens``, ``length_histogram`` ({bytes: tokens}),
        ``mean_length``, ``longest``, ``round_trip``, ``unreachable``, ``partial_utf8``,
        ``invalid_utf8``, ``reference_corpus``, ``glitch_candidates`` and ``embeddings``
        (None without a matrix). Lists of tokens hold ``{"id", "token", ...}`` dicts.

    >>> r = inspect("gpt2", top=1)
    >>> r["vocab_size"], r["special_tokens"], r["unreachable"]["count"], r["invalid_utf8"]["count"]
    (50257, [{'id': 50256, 'token': '<|endoftext|>'}], 0, 13)
    >>> r["glitch_candidates"]["tokens"][0]["token"]
    'rawdownloadcloneembedreportprint'
    """
    if not isinstance(top, int) or isinstance(top, bool) or top < 1:
        raise InputError(f"top must be a positive int, not {top!r}")
    if not isinstance(max_count, int) or isinstance(max_count, bool) or max_count < 0:
        raise InputError(f"max_count must be an int >= 0, not {max_count!r}")
    n_threads = threads(num_threads)
    files = [corpus] if isinstance(corpus, (str, Path)) else None if corpus is None else list(corpus)
    label, tok = resolve(tokenizer)  # padding and truncation off
    # The matrix (memory-mapped) and the given ids are checked before any long step.
    matrix = None if embeddings is None else load_embeddings(embeddings, tok.vocab_size)
    if unused_ids is not None:
        unused_ids = list(unused_ids)
        if matrix is not None:
            _given_ids(matrix.shape[0], unused_ids)
    if progress is not None:
        progress(f"{label}: reading {tok.vocab_size:,} ids")
    v = _Vocab(tok)
    if progress is not None:
        progress(f"round trip of {len(v.data):,} tokens (encoding each token's text)")
    rt = _round_trip(v, n_threads)
    lengths = {i: len(b) for i, b in v.data.items()}
    hist = Counter(lengths.values())
    longest = sorted(v.data, key=lambda i: (-lengths[i], i))

    counts, info = count_tokens(tok, files, progress=progress)
    never = set(rt["unreachable"]) | set(rt["invalid"])
    eligible = [i for i in v.data if i not in never]
    if progress is not None:
        progress(f"ranking the tokens the corpus produced at most {max_count} times")
    cands, ranking = rank_candidates(v.data if v.byte_level else v.strings, lengths, counts, eligible, max_count=max_count)
    counted = counts.tolist()
    seen = sum(1 for i in v.data if counted[i] > 0)

    def glitch_entry(c: dict[str, Any]) -> dict[str, Any]:
        p = c["parent"]
        return _entry(v, c["id"], count=c["count"], score=float(f"{c['score']:.6g}"),
                      parent=None if p is None else {"id": p, "token": visible(v.data[p])})

    unreachable = sorted(rt["unreachable"])
    return {
        "name": label,
        "family": tok.model_type,
        "byte_level": v.byte_level,
        "vocab_size": v.size,
        "assigned": len(v.data) + len(v.specials),
        "unassigned": {"count": len(v.unassigned), "ids": v.unassigned[:top]},
        "special_tokens": [{"id": i, "token": visible(s.encode("utf-8", "surrogatepass"))} for s, i in v.specials.items()],
        "length_histogram": dict(sorted(hist.items())),
        "mean_length": round(sum(lengths.values()) / len(lengths), 3) if lengths else 0.0,
        "longest": [_entry(v, i, bytes=lengths[i]) for i in longest[:top]],
        "round_trip": {"method": rt["method"], "checked": rt["checked"], "reachable": len(eligible) - len(rt["partial"])},
        "unreachable": _listed(unreachable, top, lambda i: _entry(v, i, reencoded=rt["unreachable"][i],
                                                                  kind=_kind(v, i, rt["unreachable"][i]))),
        "partial_utf8": _listed(sorted(rt["partial"]), top, lambda i: _entry(v, i)),
        "invalid_utf8": _listed(sorted(rt["invalid"]), top, lambda i: _entry(v, i)),
        "reference_corpus": {**info, "distinct_tokens": seen, "coverage": round(seen / len(v.data), 4) if v.data else 0.0},
        "glitch_candidates": {"count": len(cands), "max_count": max_count, "ranking": ranking,
                              "tokens": [glitch_entry(c) for c in cands[:top]]},
        "embeddings": None if matrix is None else _embeddings(v, matrix, rt, counts, unused_ids, top, progress),
    }
