"""Translating a pre-tokenizer regex into the syntax of Hugging Face's regex engine.

tiktoken and tokenmill run patterns on fancy-regex; Hugging Face ``tokenizers`` runs them on
Oniguruma (Ruby syntax), which reads some constructs differently. `hf_regex` rewrites a
pattern so that both engines find the same matches, and refuses what has no exact
equivalent. It does not run either engine (tests compare them on real and generated text).
"""

from __future__ import annotations

import re

from ..errors import VocabFormatError

__all__ = ["hf_regex"]


def _escape_end(p: str, i: int) -> int:
    """End of the escape starting at ``p[i] == "\\"``."""
    if p[i + 1 : i + 2] in ("p", "P", "x") and p[i + 2 : i + 3] == "{":
        end = p.find("}", i)
        if end < 0:
            raise VocabFormatError(f"unterminated escape at {i} in pattern {p!r}", format="hf")
        return end + 1
    if p[i + 1 : i + 2] in ("p", "P"):
        return min(i + 3, len(p))
    if p[i + 1 : i + 2] == "x":
        return min(i + 4, len(p))
    return i + 2


def _escape(e: str) -> str:
    # Oniguruma wants the braced form of one-letter property escapes: \pL -> \p{L}.
    if len(e) == 3 and e[1] in "pP" and e[2] != "{":
        return f"\\{e[1]}{{{e[2]}}}"
    return e


def _class_end(p: str, i: int) -> int:
    j = i + 1
    if p[j : j + 1] == "^":
        j += 1
    if p[j : j + 1] == "]":
        j += 1
    depth = 1
    while depth:
        if j >= len(p):
            raise VocabFormatError(f"unterminated character class at {i} in pattern {p!r}", format="hf")
        if p[j] == "\\":
            j = _escape_end(p, j)
            continue
        depth += {"[": 1, "]": -1}.get(p[j], 0)
        j += 1
    return j


def _group_end(p: str, i: int) -> int:
    j, depth = i + 1, 1
    while depth:
        if j >= len(p):
            raise VocabFormatError(f"unbalanced parenthesis at {i} in pattern {p!r}", format="hf")
        if p[j] == "\\":
            j = _escape_end(p, j)
        elif p[j] == "[":
            j = _class_end(p, j)
        else:
            depth += {"(": 1, ")": -1}.get(p[j], 0)
            j += 1
    return j


_FLAGS_OK = set("i-")


def _group_header(p: str, i: int) -> tuple[str, int]:
    """The Oniguruma spelling of the group header at `p[i]` and the index where its body starts."""
    for head in ("(?:", "(?=", "(?!", "(?>", "(?<=", "(?<!"):
        if p.startswith(head, i):
            return head, i + len(head)
    if p.startswith("(?P<", i) or p.startswith("(?<", i):
        start = i + (4 if p[i + 2] == "P" else 3)
        end = p.index(">", start)
        return f"(?<{p[start:end]}>", end + 1
    if p.startswith("(?", i):
        j = i + 2
        while j < len(p) and p[j] not in ":)":
            j += 1
        flags = p[i + 2 : j]
        bad = sorted(set(flags) - _FLAGS_OK)
        if bad:
            raise VocabFormatError(
                f"pattern flag {bad[0]!r} has no equivalent in Hugging Face's regex engine (Oniguruma, Ruby syntax); "
                "use a pattern without it (only 'i' is exported)",
                format="hf",
            )
        return p[i : j + 1], j + 1
    return "(", i + 1


def hf_regex(pattern: str) -> str:
    """`pattern` (fancy-regex syntax, as tiktoken and tokenmill run it) in the syntax of
    Hugging Face's regex engine (Oniguruma, Ruby syntax), with the same matches:

    * possessive quantifiers (``X++``, ``X?+``, ``X{1,3}+``) become atomic groups, because
      Oniguruma reads ``X{1,3}+`` as "one or more of X{1,3}";
    * ``^`` and ``$`` become ``\\A`` and ``\\z`` (in Ruby syntax they are line anchors);
    * ``(?P<name>`` becomes ``(?<name>`` and ``\\pL`` becomes ``\\p{L}``.

    Inline flags other than ``i`` raise `VocabFormatError`: they have no exact equivalent.

    >>> hf_regex("a++|b{1,3}+|[+]?+c$")
    '(?>a+)|(?>b{1,3})|(?>[+]?)c\\\\z'
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c in "|)":
            out.append(c)
            i += 1
            continue
        if c == "(":
            end = _group_end(pattern, i)
            head, body = _group_header(pattern, i)
            if body >= end:  # a flag group such as (?i): nothing to quantify
                out.append(head)
                i = end
                continue
            atom = head + hf_regex(pattern[body : end - 1]) + ")"
        elif c == "[":
            end = _class_end(pattern, i)
            atom = re.sub(r"\\(?:[pP][A-Za-z]|.)", lambda m: _escape(m.group(0)), pattern[i:end], flags=re.S)
        elif c == "\\":
            end = _escape_end(pattern, i)
            atom = _escape(pattern[i:end])
        else:
            end = i + 1
            atom = {"^": "\\A", "$": "\\z"}.get(c, c)
        j = end
        if j < len(pattern) and pattern[j] in "?*+{" and not (pattern[j] == "{" and not re.match(r"\{\d*(,\d*)?\}", pattern[j:])):
            q_end = pattern.index("}", j) + 1 if pattern[j] == "{" else j + 1
            quant = pattern[j:q_end]
            if q_end < len(pattern) and pattern[q_end] == "+":
                out.append(f"(?>{atom}{quant})")
                i = q_end + 1
                continue
            if q_end < len(pattern) and pattern[q_end] == "?":
                q_end += 1
                quant = pattern[j:q_end]
            out.append(atom + quant)
            i = q_end
            continue
        out.append(atom)
        i = end
    return "".join(out)
