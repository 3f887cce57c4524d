"""Deterministic, seeded input generators for ../shared/ADVERSARIAL.md (section A and B).

Every generator is a pure function of its arguments (``random.Random(seed)``), so a failing
case can be reproduced from its parameters alone.

>>> run("ab", 3)
'ababab'
>>> len(rand_letters(1000, seed=1)) == 1000
True
>>> rand_letters(50, seed=7) == rand_letters(50, seed=7)
True
"""

from __future__ import annotations

import random
import unicodedata

__all__ = [
    "run",
    "rand_letters",
    "single_piece_tokens",
    "rand_tokens_single_piece",
    "prose",
    "unicode_mix",
    "bytes_mix",
    "LOWER_LETTERS",
]

# Lowercase letters (general category Ll) only: any concatenation is a single pre-token under
# the r50k (` ?\p{L}+`), cl100k (`\p{L}+`) and o200k (`[\p{Ll}...]+`) patterns.
LOWER_LETTERS = "abcdefghijklmnopqrstuvwxyz" + "éèàüöäßçñøåæœ" + "абвгдежзийклмнопрстуфхцчшщыэюя" + "αβγδεζηθικλμνξοπρστυφχψω"
assert all(unicodedata.category(c) == "Ll" for c in LOWER_LETTERS)


def run(ch: str, n: int) -> str:
    """`ch` repeated `n` times."""
    return ch * n


def rand_letters(n: int, seed: int = 0, alphabet: str = LOWER_LETTERS) -> str:
    """`n` random lowercase letters: one ``\\p{L}`` pre-token under every standard pattern."""
    rng = random.Random(seed)
    return "".join(rng.choices(alphabet, k=n))


def single_piece_tokens(token_bytes) -> list[str]:
    """The tokens of a vocabulary (iterable of bytes) that are non-empty runs of Ll letters.

    Any concatenation of them stays one pre-token under all standard patterns, which is the
    rust-gems predicate ("concatenate random tokens, keep only strings the pre-tokenizer leaves
    as one piece") made cheap: the predicate holds by construction.
    """
    out = []
    for b in token_bytes:
        try:
            s = b.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if s and all(unicodedata.category(c) == "Ll" for c in s):
            out.append(s)
    out.sort()
    return out


def rand_tokens_single_piece(tokens: list[str], n: int, seed: int = 0) -> str:
    """At least `n` characters (cut to exactly `n`) made of random vocabulary tokens from
    `single_piece_tokens(...)`: BPE must undo many plausible merges (rust-gems worst case)."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < n:
        t = rng.choice(tokens)
        parts.append(t)
        size += len(t)
    return "".join(parts)[:n]


_WORDS = (
    "the of and to in a is that for it as was with be by on not he I this are or his from at which "
    "but have an they you were her she there one all we their been has would when if will more no "
    "time people could about into than them only other new some what can like just over also "
    "tokenizer Unicode naïve café résumé 東京 über straße don't it's we'll they've I'd"
).split()
_PUNCT = [".", ",", ";", ":", "!", "?", " -", "...", " (x)", '"']


def prose(n: int, seed: int = 0) -> str:
    """About `n` characters of English-like prose (words, punctuation, digits, newlines),
    cut to exactly `n` characters."""
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < n:
        sent = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 18)))
        if rng.random() < 0.2:
            sent += f" {rng.randint(0, 10**rng.randint(1, 7))}"
        sent = sent[0].upper() + sent[1:] + rng.choice(_PUNCT)
        sep = rng.choice([" ", " ", " ", "\n", "\n\n", "  ", "\r\n"])
        out.append(sent + sep)
        size += len(sent) + len(sep)
    return "".join(out)[:n]


def unicode_mix(n: int, seed: int = 0, surrogates: bool = True) -> str:
    """`n` random code points from every general category (including Cs when `surrogates`),
    biased towards ASCII, whitespace and common scripts so pre-token boundaries are frequent."""
    rng = random.Random(seed)
    pools = [
        (0x20, 0x7F),  # ASCII
        (0x09, 0x0D),  # \t \n \v \f \r
        (0x80, 0x24F),  # Latin-1 + Latin extended
        (0x300, 0x36F),  # combining marks
        (0x590, 0x6FF),  # Hebrew, Arabic
        (0x900, 0x97F),  # Devanagari
        (0x2000, 0x206F),  # general punctuation, bidi controls, ZWJ
        (0x3000, 0x30FF),  # CJK punctuation, kana
        (0x4E00, 0x9FFF),  # CJK ideographs
        (0xAC00, 0xD7A3),  # Hangul
        (0xE000, 0xF8FF),  # private use
        (0xFE00, 0xFFFF),  # variation selectors, specials, noncharacters
        (0x1F300, 0x1FAFF),  # emoji
        (0x10000, 0x10FFFF),  # anything astral (mostly unassigned)
    ]
    if surrogates:
        pools.append((0xD800, 0xDFFF))
    out = []
    for _ in range(n):
        lo, hi = rng.choice(pools)
        out.append(chr(rng.randint(lo, hi)))
    return "".join(out)


def bytes_mix(n: int, seed: int = 0) -> bytes:
    """`n` random bytes, mixing ASCII, valid multi-byte UTF-8 and invalid sequences."""
    rng = random.Random(seed)
    out = bytearray()
    while len(out) < n:
        r = rng.random()
        if r < 0.4:
            out += bytes(rng.randint(0x20, 0x7E) for _ in range(rng.randint(1, 8)))
        elif r < 0.7:
            out += chr(rng.choice([0xE9, 0x4E2D, 0x1F600, 0x05D0, rng.randint(0x80, 0x10FFFF)])).encode("utf-8", "surrogatepass")
        else:
            out += bytes(rng.randint(0x80, 0xFF) for _ in range(rng.randint(1, 4)))
    return bytes(out[:n])
