"""A byte-level BPE `Encoding` in the peers' formats: tiktoken, Hugging Face, GPT-2 files.

* tiktoken: the rank file (``<base64> <rank>`` lines) plus ``<stem>.json`` holding ``name``,
  ``pat_str`` and ``special_tokens``, the three other arguments of ``tiktoken.Encoding``.
* Hugging Face: a ``tokenizer.json`` with a BPE model, the pattern as a ``Split`` pre-tokenizer
  (matches kept, gaps dropped: tiktoken's ``findall``), ``ByteLevel`` without its own regex,
  ``ignore_merges`` (a piece that is a token is that token, as in tiktoken) and the specials
  as added tokens. HF applies merges by pair priority, tiktoken by the rank of the merged
  token; listing, for each token in rank order, every split of it into two tokens makes the
  two agree (a pair merges exactly when its concatenation is a token, at that token's rank).
* GPT-2: ``encoder.json`` (GPT-2's byte-to-character symbols -> id, specials included) and
  ``vocab.bpe`` (one merge per multi-byte token, in rank order: the split BPE itself makes).

It does not read these formats back (see `tokenmill.loaders` and `tokenmill.load`).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Union

from ..errors import VocabFormatError
from .. import _core
from ..loaders import _gpt2_byte_decoder, atomic_write_bytes, atomic_write_many

__all__ = ["export_tiktoken", "export_hf", "export_gpt2", "hf_tokenizer_dict", "hf_regex", "merges_for", "byte_symbols"]

PathLike = Union[str, "os.PathLike[str]"]


def byte_symbols() -> list[str]:
    """GPT-2's printable stand-in character for each byte value (index = byte).

    >>> byte_symbols()[32], byte_symbols()[ord("a")]
    ('Ġ', 'a')
    """
    table = [""] * 256
    for ch, b in _gpt2_byte_decoder().items():
        table[b] = ch
    return table


def _sym(b: bytes, table: list[str]) -> str:
    return "".join(table[x] for x in b)


def _canonical_split(tok: bytes, rank: int, ranks: dict[bytes, int]) -> tuple[bytes, bytes] | None:
    """The two parts BPE makes of `tok` using only tokens ranked below `rank`, or None."""
    parts = [tok[i : i + 1] for i in range(len(tok))]
    while len(parts) > 2:
        best, best_i = None, -1
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and r < rank and (best is None or r < best):
                best, best_i = r, i
        if best is None:
            return None
        parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]
    return (parts[0], parts[1]) if len(parts) == 2 else None


def merges_for(ranks: dict[bytes, int], all_splits: bool = False) -> list[tuple[bytes, bytes]]:
    """Merges that rebuild `ranks`, in rank order.

    Args:
        ranks: ``{token bytes: rank}``.
        all_splits: Every split of each token into two tokens (Hugging Face's pair-priority
            BPE then agrees with tiktoken); otherwise one split per token, the one BPE makes
            (GPT-2's ``vocab.bpe``).

    Returns:
        ``[(left bytes, right bytes), ...]``.

    >>> merges_for({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5}, all_splits=True)
    [(b'a', b'b'), (b'b', b'c'), (b'a', b'bc'), (b'ab', b'c')]
    """
    out: list[tuple[bytes, bytes]] = []
    for tok, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(tok) < 2:
            continue
        if all_splits:
            out.extend((tok[:k], tok[k:]) for k in range(1, len(tok)) if tok[:k] in ranks and tok[k:] in ranks)
            continue
        split = _canonical_split(tok, rank, ranks)
        if split is None:
            # An unreachable token: any two lower-ranked halves keep the file loadable.
            split = next(((tok[:k], tok[k:]) for k in range(1, len(tok)) if ranks.get(tok[:k], rank) < rank and ranks.get(tok[k:], rank) < rank), None)
            if split is None:
                raise VocabFormatError(f"token {tok!r} (rank {rank}) cannot be written as a merge of two lower-ranked tokens", format="gpt2")
        out.append(split)
    return out


def export_tiktoken(enc, path: PathLike) -> tuple[Path, Path]:
    """Writes the rank file to `path` and ``name``/``pat_str``/``special_tokens`` next to it.

    Args:
        enc: The encoding.
        path: The rank file, e.g. ``"mytok.tiktoken"``; the JSON goes to ``"mytok.json"``.

    Returns:
        ``(rank file, JSON file)``. Load in tiktoken with ``tiktoken.Encoding(**meta,
        mergeable_ranks=tiktoken.load.load_tiktoken_bpe(rank_file))``.

    >>> import tokenmill, tempfile, os, json
    >>> d = tempfile.mkdtemp()
    >>> ranks_path, meta_path = export_tiktoken(tokenmill.get_encoding("gpt2"), os.path.join(d, "gpt2.tiktoken"))
    >>> sorted(json.load(open(meta_path)))
    ['name', 'pat_str', 'special_tokens']
    """
    path = Path(path)
    meta = path.with_suffix(".json")
    if meta == path:
        raise ValueError(f"{path}: give the rank file a suffix other than .json, e.g. .tiktoken")
    doc = {"name": enc.name, "pat_str": enc._pat_str, "special_tokens": enc._special_tokens}
    atomic_write_many([(path, enc._core.dump_tiktoken()), (meta, json.dumps(doc, ensure_ascii=False, indent=1).encode("utf-8"))])
    return path, meta


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


def hf_tokenizer_dict(enc) -> dict:
    """The Hugging Face ``tokenizer.json`` document of `enc` (see the module docstring).

    >>> import tokenmill
    >>> d = hf_tokenizer_dict(tokenmill.get_encoding("gpt2"))
    >>> d["model"]["type"], d["added_tokens"][0]["content"]
    ('BPE', '<|endoftext|>')
    """
    table = byte_symbols()
    ranks = enc._mergeable_ranks
    vocab = {_sym(b, table): r for b, r in sorted(ranks.items(), key=lambda kv: kv[1])}
    # Specials go in the model's vocab too (as GPT-2's tokenizer.json does): otherwise HF
    # renumbers added tokens that sit between ordinary ids. That is safe unless the special's
    # text, read as byte symbols, spells some other text: the model would then map that text
    # to the special's id (HF splits out the special's own text before the model sees it).
    byte_of = _gpt2_byte_decoder()
    for s, i in enc._special_tokens.items():
        if all(c in byte_of for c in s) and bytes(byte_of[c] for c in s) != s.encode("utf-8"):
            other = bytes(byte_of[c] for c in s).decode("utf-8", "backslashreplace")
            raise VocabFormatError(
                f"special token {s!r} is spelled in GPT-2's byte symbols, where it reads as the text {other!r}; "
                "a tokenizer.json would give that text the special's id: rename the special token",
                format="hf",
            )
        if vocab.setdefault(s, i) != i:
            raise VocabFormatError(f"special token {s!r} is also an ordinary token's symbol string; tokenizer.json cannot hold both", format="hf")
    merges = [[_sym(a, table), _sym(b, table)] for a, b in merges_for(ranks, all_splits=True)]
    added = [
        {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
        for s, i in sorted(enc._special_tokens.items(), key=lambda kv: kv[1])
    ]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": hf_regex(enc._pat_str)}, "behavior": "Removed", "invert": True},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        },
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": True,
            "vocab": vocab,
            "merges": merges,
        },
    }


def export_hf(enc, path: PathLike) -> Path:
    """Writes `enc` as a Hugging Face ``tokenizer.json`` (load with ``Tokenizer.from_file``).

    >>> import tokenmill, tempfile, os
    >>> p = export_hf(tokenmill.get_encoding("gpt2"), os.path.join(tempfile.mkdtemp(), "tokenizer.json"))
    >>> p.name
    'tokenizer.json'
    """
    path = Path(path)
    atomic_write_bytes(path, json.dumps(hf_tokenizer_dict(enc), ensure_ascii=False).encode("utf-8"))
    return path


def export_gpt2(enc, directory: PathLike) -> tuple[Path, Path]:
    """Writes GPT-2's ``encoder.json`` and ``vocab.bpe`` into `directory` (created if needed).

    The files keep `enc`'s ids. Hugging Face loads them with ``models.BPE.from_file``;
    ``tokenmill.load_gpt2_files`` reads them back. (tiktoken's own GPT-2 reader requires
    GPT-2's byte order for the first 256 ids, which a trained vocabulary does not have.)

    >>> import tokenmill, tempfile
    >>> enc_path, bpe_path = export_gpt2(tokenmill.get_encoding("gpt2"), tempfile.mkdtemp())
    >>> open(bpe_path, encoding="utf-8").readline()
    '#version: 0.2\\n'
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    table = byte_symbols()
    ranks = enc._mergeable_ranks
    encoder = {_sym(b, table): r for b, r in sorted(ranks.items(), key=lambda kv: kv[1])}
    for s, i in sorted(enc._special_tokens.items(), key=lambda kv: kv[1]):
        if s in encoder:
            raise VocabFormatError(f"special token {s!r} is also a regular token's symbol string; GPT-2 files cannot hold both", format="gpt2")
        encoder[s] = i
    lines = ["#version: 0.2"] + [f"{_sym(a, table)} {_sym(b, table)}" for a, b in merges_for(ranks)]
    enc_path, bpe_path = directory / "encoder.json", directory / "vocab.bpe"
    atomic_write_many([(enc_path, json.dumps(encoder, ensure_ascii=False).encode("utf-8")), (bpe_path, ("\n".join(lines) + "\n").encode("utf-8"))])
    return enc_path, bpe_path
