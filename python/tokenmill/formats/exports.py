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
from pathlib import Path
from typing import Union

from ..errors import VocabFormatError
from ..loaders import _gpt2_byte_decoder, atomic_write_bytes, dump_tiktoken_bpe

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
    dump_tiktoken_bpe(enc._mergeable_ranks, path)
    doc = {"name": enc.name, "pat_str": enc._pat_str, "special_tokens": enc._special_tokens}
    atomic_write_bytes(meta, json.dumps(doc, ensure_ascii=False, indent=1).encode("utf-8"))
    return path, meta


def _atom_end(p: str, i: int) -> int:
    """End index of the regex atom starting at `p[i]` (escape, class, group or one character)."""
    c = p[i]
    if c == "\\":
        if i + 2 < len(p) + 1 and p[i + 1 : i + 2] in ("p", "P", "x") and p[i + 2 : i + 3] == "{":
            return p.index("}", i) + 1
        return i + 2
    if c == "[":
        j = i + 1
        if p[j : j + 1] == "^":
            j += 1
        if p[j : j + 1] == "]":
            j += 1
        depth = 1
        while depth:
            if p[j] == "\\":
                j += 2
                continue
            if p[j] == "[":
                depth += 1
            elif p[j] == "]":
                depth -= 1
            j += 1
        return j
    if c == "(":
        j, depth = i + 1, 1
        while depth:
            if p[j] == "\\":
                j += 2
                continue
            if p[j] == "[":
                j = _atom_end(p, j)
                continue
            depth += {"(": 1, ")": -1}.get(p[j], 0)
            j += 1
        return j
    return i + 1


def hf_regex(pattern: str) -> str:
    """`pattern` with possessive quantifiers (``X++``, ``X?+``, ``X{1,3}+``) rewritten as
    atomic groups: Hugging Face's regex engine (Oniguruma, Ruby syntax) reads ``X{1,3}+`` as
    "one or more of X{1,3}", not as possessive. Everything else is kept.

    >>> hf_regex("a++|b{1,3}+|[+]?+c")
    '(?>a+)|(?>b{1,3})|(?>[+]?)c'
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern[i] in "|)":
            out.append(pattern[i])
            i += 1
            continue
        if pattern[i] == "(":
            # Recurse into the group's body so nested possessives are rewritten too.
            end = _atom_end(pattern, i)
            head = 1
            if pattern[i + 1 : i + 2] == "?":
                while pattern[i + head] not in ":)" and not (pattern[i + head] in "=!" and head <= 3):
                    head += 1
                head += 1
            atom = pattern[i : i + head] + hf_regex(pattern[i + head : end - 1]) + ")"
        else:
            end = _atom_end(pattern, i)
            atom = pattern[i:end]
        j = end
        if j < len(pattern) and pattern[j] in "?*+{":
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
    # renumbers added tokens that sit between ordinary ids.
    for s, i in enc._special_tokens.items():
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
    atomic_write_bytes(enc_path, json.dumps(encoder, ensure_ascii=False).encode("utf-8"))
    atomic_write_bytes(bpe_path, ("\n".join(lines) + "\n").encode("utf-8"))
    return enc_path, bpe_path
