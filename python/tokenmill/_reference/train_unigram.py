"""Reference Unigram trainer (SentencePiece-style), in plain Python: the specification of
`train_unigram` and of the Rust trainer (`tokenmill_core::train::unigram`).

The algorithm is sentencepiece's `unigram_model_trainer` with identity normalization,
written over distinct words instead of sentences (sentencepiece splits sentences into
words before EM too, so EM is the same; only seeding is reformulated):

1. Words. Each line is split at spaces (runs of spaces count once) and every word gets the
   visible-space prefix ``▁`` (``"a b"`` -> ``▁a``, ``▁b``); user-defined symbols are cut out
   of the words (they are never part of a learned piece). Words are counted.
2. Required characters: characters by count (descending, then code point), taken while the
   share of character occurrences covered so far is below `character_coverage`. Other
   characters become ``▅`` (U+2585, never part of a piece).
3. Seeds: every character, plus the substrings of 2..`max_piece_length` characters that are
   valid pieces (rule below), occur at least twice (word counts weighted) and are
   right-maximal in the distinct words: some occurrence ends a word, or two occurrences go on
   with different characters (the nodes of sentencepiece's suffix tree, where word ends
   play the part of the text around a word). A substring scores ``frequency * length``, a
   character its frequency; the best `seed_size` substrings (ties: smaller string) are kept
   and the scores become log-probabilities.
4. EM, `num_sub_iterations` times per round. E-step: forward-backward over each word's
   lattice of pieces, expected piece counts weighted by the word count (a character with
   no piece gets an unknown node scored ``min_score - 10``, not counted). M-step: pieces
   with an expected count below 0.5 go; the others score ``digamma(count) -
   digamma(total)`` (Bayesian EM, a sparse prior).
5. Stop when at most ``1.1 * vocab_size`` pieces are left; else prune and go to 4. Pruning:
   a piece whose own best segmentation is not itself goes; a piece with no other
   segmentation stays; for the others, the loss of likelihood if every Viterbi use of the
   piece were replaced by its second-best segmentation is ``F * (log p(piece) - sum log
   p'(alternative))`` with ``F`` = its Viterbi count / total word count; pieces never used
   by Viterbi go; the highest losses are kept up to ``max(1.1 * vocab_size, shrinking_factor
   * size)``.
6. Final: the required characters (their score, or ``min_score + 0.0001 * k`` for the k-th
   missing one), then the best-scoring pieces up to ``vocab_size`` minus the meta pieces,
   sorted by score (descending, then string). Meta pieces come first: ``<unk>`` (0),
   ``<s>`` (1), ``</s>`` (2), the control symbols, the user-defined symbols, with
   `byte_fallback` the 256 byte pieces ``<0x00>``..``<0xFF>``.

Valid piece: 1..`max_piece_length` characters, no ``▅``, NUL, tab or space; ``▁`` only
first; not two Unicode scripts (Hiragana and Katakana count as Han; combining marks take the
script before them; digits are their own script "Common" like punctuation, unless
`split_by_number` is off, when they join any script; with `split_digits`, a digit is a piece
alone). The script is found with the `regex` module (``\\p{Script=...}``) over a list of
scripts; characters of a script not listed are told apart by their 128-code-point block.

What differs from sentencepiece (on purpose): scores are float64 not float32; ties are
broken by strings, not by suffix-tree node numbers; sentences longer than 4192 bytes are
not skipped. Not here: sentence sampling, TSV input, `treat_whitespace_as_suffix`,
`split_by_whitespace=False`, n-best sampling. Slow on purpose (corpora up to about 1 MB).
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from typing import Iterable

import regex

from ..errors import InputError

__all__ = ["count_words", "required_chars", "is_valid_piece", "seed_pieces", "train_unigram_reference", "digamma",
           "NORMAL", "UNKNOWN", "CONTROL", "USER_DEFINED", "BYTE"]

SPACE = "\u2581"  # ▁
UNK_CHAR = "\u2585"  # ▅: a character outside the required ones
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, BYTE = 1, 2, 3, 4, 6  # sentencepiece's piece types
UNK_PENALTY = 10.0

_SCRIPTS = ("Common", "Inherited", "Latin", "Greek", "Cyrillic", "Armenian", "Hebrew", "Arabic", "Devanagari",
            "Bengali", "Thai", "Georgian", "Hangul", "Hiragana", "Katakana", "Han", "Ethiopic", "Tamil", "Telugu",
            "Kannada", "Malayalam", "Gujarati", "Gurmukhi", "Lao", "Tibetan", "Khmer", "Myanmar", "Sinhala")
_SCRIPT_RE = [(name, regex.compile(rf"\p{{Script={name}}}")) for name in _SCRIPTS]


@lru_cache(maxsize=None)
def script(c: str) -> str:
    """The Unicode script of a character, Hiragana and Katakana (and ``ー``) merged into Han.

    >>> script("a"), script("1"), script("ひ"), script("\\u0301")
    ('Latin', 'Common', 'Han', 'Inherited')
    """
    if c == "\u30fc":
        return "Han"
    for name, pattern in _SCRIPT_RE:
        if pattern.match(c):
            return "Han" if name in ("Hiragana", "Katakana") else name
    return f"Other:{ord(c) >> 7}"  # a script not listed: told apart by 128-character block


def is_valid_piece(piece: str, max_piece_length: int = 16, split_by_unicode_script: bool = True,
                   split_by_number: bool = True, split_digits: bool = False) -> bool:
    """Whether `piece` may be a piece (sentencepiece's `IsValidSentencePiece`, whitespace split).

    Args:
        piece: the candidate.
        max_piece_length: the longest piece, in characters.
        split_by_unicode_script: forbid pieces mixing scripts.
        split_by_number: digits are a script of their own (else they join any script).
        split_digits: a digit is always a piece alone.

    Returns:
        True when valid.

    >>> is_valid_piece("▁the"), is_valid_piece("a▁"), is_valid_piece("a,"), is_valid_piece("12")
    (True, False, False, True)
    """
    if not piece or len(piece) > max_piece_length:
        return False
    prev = None  # None: any script
    for pos, c in enumerate(piece):
        if c in (UNK_CHAR, "\0", "\t", " "):
            return False
        if c == SPACE:
            if pos > 0:
                return False
            continue
        s = script(c)
        if s == "Inherited":
            s = prev
        if c.isdecimal():
            if split_digits and len(piece) > 1:
                return False
            if not split_by_number:
                s = None
        if split_by_unicode_script and s is not None and prev is not None and s != prev:
            return False
        prev = s
    return True


def count_words(lines: Iterable[str], user_defined_symbols: Iterable[str] = ()) -> Counter:
    """Counts the ``▁``-prefixed words of `lines`, user-defined symbols cut out.

    Args:
        lines: the corpus, one sentence per line.
        user_defined_symbols: strings that are never part of a learned piece.

    Returns:
        ``Counter({word: count})``.

    >>> sorted(count_words(["a b  a", "<x>ab"], ["<x>"]).items())
    [('ab', 1), ('▁', 1), ('▁a', 2), ('▁b', 1)]
    """
    symbols = sorted(set(user_defined_symbols), key=len, reverse=True)
    cut = regex.compile("|".join(map(regex.escape, symbols))) if symbols else None
    counts: Counter = Counter()
    for line in lines:
        for token in line.split(" "):
            if not token:
                continue
            for part in cut.split(SPACE + token) if cut else [SPACE + token]:
                if part:
                    counts[part] += 1
    return counts


def required_chars(words: dict[str, int], character_coverage: float = 0.9995) -> dict[str, int]:
    """The characters to keep: most frequent first, while coverage is below the target.

    Args:
        words: ``{word: count}``.
        character_coverage: share of character occurrences to cover (0.98..1).

    Returns:
        ``{char: count}`` of the required characters.

    >>> required_chars({"▁aab": 10, "▁z": 1}, 0.9)
    {'a': 20, '▁': 11, 'b': 10}
    """
    chars: Counter = Counter()
    for w, n in words.items():
        for c in w:
            if c not in ("\0", " "):
                chars[c] += n
    total, covered, out = sum(chars.values()), 0, {}
    for c, n in sorted(chars.items(), key=lambda cn: (-cn[1], cn[0])):
        if covered / total >= character_coverage:
            break
        covered += n
        if c != "\t":
            out[c] = n
    return out


def seed_pieces(words: dict[str, int], chars: dict[str, int], seed_size: int = 1_000_000, **valid) -> list[tuple[str, float]]:
    """Seed pieces with log-probability scores (step 3 of the module docstring).

    Args:
        words: ``{word: count}`` with rare characters already ``▅``.
        chars: the required characters with their counts.
        seed_size: how many substrings (beyond the characters) to keep.
        valid: options of `is_valid_piece`.

    Returns:
        ``[(piece, log-probability)]``: characters first, then substrings, best first.

    >>> [p for p, _ in seed_pieces({"▁ab": 3, "▁ac": 2}, {"▁": 5, "a": 5, "b": 3, "c": 2})]
    ['a', '▁', 'b', 'c', '▁a', '▁ab', 'ab', '▁ac', 'ac']
    """
    max_len = valid.get("max_piece_length", 16)
    freq: Counter = Counter()
    nexts: dict[str, set] = {}
    for w, n in words.items():
        for i in range(len(w)):
            for j in range(i + 2, min(len(w), i + max_len) + 1):
                s = w[i:j]
                freq[s] += n
                # A word end is a context of its own, different from every other one.
                nexts.setdefault(s, set()).add(w[j] if j < len(w) else ("end", w, i))
    right_maximal = [s for s, f in freq.items()
                     if f >= 2 and (len(nexts[s]) >= 2 or any(isinstance(x, tuple) for x in nexts[s]))]
    subs = [(s, freq[s] * len(s)) for s in right_maximal if is_valid_piece(s, **valid)]
    subs.sort(key=lambda x: (-x[1], x[0]))
    seeds = [(c, float(n)) for c, n in sorted(chars.items(), key=lambda x: (-x[1], x[0]))]
    seeds += [(s, float(sc)) for s, sc in subs[:seed_size]]
    logsum = math.log(sum(sc for _, sc in seeds))
    return [(s, math.log(sc) - logsum) for s, sc in seeds]


def digamma(x: float) -> float:
    """The digamma function (asymptotic series after shifting x above 7).

    >>> round(digamma(1.0), 6)
    -0.577216
    """
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 0.5
    xx = 1 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    return result + math.log(x) + xx2 / 24 - 7 * xx4 / 960 + 31 * xx4 * xx2 / 8064 - 127 * xx4 * xx4 / 30720


def _edges(word: str, vocab: dict[str, int], max_len: int) -> list[list[tuple[int, int]]]:
    """``ends[i]`` = ``[(start, piece id)]`` of the pieces ending at character ``i`` (id -1: unknown)."""
    ends: list[list[tuple[int, int]]] = [[] for _ in range(len(word) + 1)]
    for i in range(len(word)):
        single = False
        for j in range(i + 1, min(len(word), i + max_len) + 1):
            pid = vocab.get(word[i:j])
            if pid is not None:
                ends[j].append((i, pid))
                single = single or j == i + 1
        if not single:
            ends[i + 1].append((i, -1))
    return ends


def _logsumexp(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    hi, lo = max(a, b), min(a, b)
    return hi + math.log1p(math.exp(lo - hi))


def _e_step(words, pieces, max_len) -> list[float]:
    vocab = {p: i for i, (p, _) in enumerate(pieces)}
    scores = [s for _, s in pieces]
    unk = min(scores) - UNK_PENALTY
    expected = [0.0] * len(pieces)
    for w, n in words.items():
        ends = _edges(w, vocab, max_len)
        alpha = [-math.inf] * (len(w) + 1)
        alpha[0] = 0.0
        for j in range(1, len(w) + 1):
            for i, pid in ends[j]:
                alpha[j] = _logsumexp(alpha[j], alpha[i] + (scores[pid] if pid >= 0 else unk))
        beta = [-math.inf] * (len(w) + 1)
        beta[len(w)] = 0.0
        for j in range(len(w), 0, -1):
            for i, pid in ends[j]:
                beta[i] = _logsumexp(beta[i], beta[j] + (scores[pid] if pid >= 0 else unk))
        z = alpha[len(w)]
        for j in range(1, len(w) + 1):
            for i, pid in ends[j]:
                if pid >= 0:
                    expected[pid] += n * math.exp(alpha[i] + scores[pid] + beta[j] - z)
    return expected


def _m_step(pieces, expected) -> list[tuple[str, float]]:
    kept = [(p, f) for (p, _), f in zip(pieces, expected) if f >= 0.5]
    logsum = digamma(sum(f for _, f in kept))
    return [(p, digamma(f) - logsum) for p, f in kept]


def _nbest2(word: str, vocab: dict[str, int], scores: list[float], unk: float, max_len: int) -> list[list[int]]:
    """The best two segmentations of `word` as piece-id lists (ties: the earlier found wins)."""
    ends = _edges(word, vocab, max_len)
    best: list[list[tuple[float, list[int]]]] = [[] for _ in range(len(word) + 1)]
    best[0] = [(0.0, [])]
    for j in range(1, len(word) + 1):
        cands = []
        for i, pid in ends[j]:
            for sc, path in best[i]:
                cands.append((sc + (scores[pid] if pid >= 0 else unk), path + [pid]))
        cands.sort(key=lambda c: -c[0])
        best[j] = cands[:2]
    return [path for _, path in best[len(word)]]


def _viterbi(word, vocab, scores, unk, max_len) -> list[int]:
    return _nbest2(word, vocab, scores, unk, max_len)[0]


def _prune(words, pieces, desired: int, shrinking_factor: float, max_len: int) -> list[tuple[str, float]]:
    vocab = {p: i for i, (p, _) in enumerate(pieces)}
    scores = [s for _, s in pieces]
    unk = min(scores) - UNK_PENALTY
    keep = [True] * len(pieces)
    alternatives: list[list[int]] = [[] for _ in pieces]
    for i, (p, _) in enumerate(pieces):
        nbest = _nbest2(p, vocab, scores, unk, max_len)
        if len(nbest) == 1:
            continue
        if len(nbest[0]) >= 2:
            keep[i] = False  # its own best segmentation does not use it
        else:
            alternatives[i] = nbest[1]
    freq = [0.0] * len(pieces)
    total_words = 0
    for w, n in words.items():
        total_words += n
        for pid in _viterbi(w, vocab, scores, unk, max_len):
            if pid >= 0:
                freq[pid] += n
    total = sum(freq)
    logsum = math.log(total)
    kept, candidates = [], []
    for i, (p, s) in enumerate(pieces):
        if freq[i] == 0 or not keep[i]:
            continue
        if not alternatives[i]:
            kept.append(i)
            continue
        logprob = math.log(freq[i]) - logsum
        logsum_alt = math.log(total + freq[i] * (len(alternatives[i]) - 1))
        logprob_alt = sum(math.log(freq[a] + freq[i]) - logsum_alt for a in alternatives[i])
        candidates.append((freq[i] / total_words * (logprob - logprob_alt), i))
    size = max(desired, int(shrinking_factor * len(pieces)))
    chosen = set(kept)
    for _, i in sorted(candidates, key=lambda c: (-c[0], c[1])):
        if len(chosen) >= size:
            break
        chosen.add(i)
    return [p for i, p in enumerate(pieces) if i in chosen]  # the survivors keep their order


def train_unigram_reference(lines: Iterable[str], vocab_size: int, *, character_coverage: float = 0.9995,
                            max_piece_length: int = 16, seed_size: int = 1_000_000, shrinking_factor: float = 0.75,
                            num_sub_iterations: int = 2, user_defined_symbols: Iterable[str] = (),
                            control_symbols: Iterable[str] = (), byte_fallback: bool = False,
                            split_by_unicode_script: bool = True, split_by_number: bool = True,
                            split_digits: bool = False) -> list[tuple[str, float, int]]:
    """Trains a Unigram vocabulary the sentencepiece way (see the module docstring).

    Args:
        lines: the corpus, one sentence per line (identity normalization: only spaces split).
        vocab_size: the size of the result, meta pieces included.
        character_coverage: share of character occurrences the required characters cover.
        max_piece_length: the longest piece, in characters.
        seed_size: how many substrings seed EM.
        shrinking_factor: share of pieces a pruning round keeps.
        num_sub_iterations: EM iterations per round.
        user_defined_symbols: pieces kept whole (cut out of the training words).
        control_symbols: pieces that only get ids.
        byte_fallback: add the 256 byte pieces.
        split_by_unicode_script, split_by_number, split_digits: see `is_valid_piece`.

    Returns:
        ``[(piece, score, type)]``, id = position; types as in sentencepiece (1 normal,
        2 unknown, 3 control, 4 user-defined, 6 byte). The vocabulary may be smaller than
        `vocab_size` when the corpus has fewer pieces.

    >>> v = train_unigram_reference(["ab ab abc", "ab b"] * 5, 12)
    >>> [p for p, _, _ in v[:5]], len(v) <= 12
    (['<unk>', '<s>', '</s>', '▁ab', '▁abc'], True)
    """
    user = list(dict.fromkeys(user_defined_symbols))
    meta = [("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("</s>", 0.0, CONTROL)]
    meta += [(s, 0.0, CONTROL) for s in dict.fromkeys(control_symbols)] + [(s, 0.0, USER_DEFINED) for s in user]
    if byte_fallback:
        meta += [(f"<0x{b:02X}>", 0.0, BYTE) for b in range(256)]
    if len({p for p, _, _ in meta}) != len(meta):
        raise InputError("control_symbols and user_defined_symbols must not repeat each other or <unk>, <s>, </s>")
    if not 0.98 <= character_coverage <= 1.0:
        raise InputError(f"character_coverage must be in [0.98, 1], got {character_coverage}")
    valid = dict(max_piece_length=max_piece_length, split_by_unicode_script=split_by_unicode_script,
                 split_by_number=split_by_number, split_digits=split_digits)
    words = count_words(lines, user)
    if not words:
        raise InputError("the corpus has no words: give at least one non-empty line")
    chars = required_chars(words, character_coverage)
    if len(chars) + len(meta) > vocab_size:
        raise InputError(f"vocab_size {vocab_size} is smaller than the {len(chars)} required characters plus "
                         f"{len(meta)} meta pieces: raise vocab_size or lower character_coverage")
    unked: Counter = Counter()
    for w, n in words.items():
        unked["".join(c if c in chars else UNK_CHAR for c in w)] += n
    words = unked
    pieces = seed_pieces(words, chars, seed_size, **valid)
    desired = int(vocab_size * 1.1)
    while True:
        for _ in range(num_sub_iterations):
            pieces = _m_step(pieces, _e_step(words, pieces, max_piece_length))
        if len(pieces) <= desired:
            break
        pieces = _prune(words, pieces, desired, shrinking_factor, max_piece_length)
    # Final: required characters first, then the best pieces.
    scores = dict(pieces)
    min_score = min(scores.values())
    final: dict[str, float] = {}
    penalty = 0.0
    for c, _ in sorted(chars.items(), key=lambda x: (-x[1], x[0])):
        if c in scores:
            final[c] = scores[c]
        else:
            final[c] = min_score + penalty
            penalty += 0.0001
    room = vocab_size - len(meta)
    for p, s in sorted(pieces, key=lambda x: (-x[1], x[0])):
        if len(final) >= room:
            break
        final.setdefault(p, s)
    return meta + [(p, s, NORMAL) for p, s in sorted(final.items(), key=lambda x: (-x[1], x[0]))]
