"""GPT-2's vocabulary files: ``encoder.json`` (byte symbols -> id) and ``vocab.bpe`` (merges).

* `load_gpt2_files`: ``(mergeable_ranks, special_tokens)`` of the two files, strict: the files
  must agree, and every error names the file and line. Ids equal tiktoken's r50k_base for
  GPT-2's own files; files of other trainers keep their ids when consistent.
* `export_gpt2`: a byte-level `Encoding` as the two files (one merge per multi-byte token,
  in rank order: the split BPE itself makes). Hugging Face loads them with
  ``models.BPE.from_file``.
* `byte_symbols`, `merges_for`, `canonical_split`: GPT-2's byte-to-character table and the
  merges that rebuild a rank table, shared with the Hugging Face writer (`formats.hf`).
* `load_gpt2_encoding`: the `Encoding` of a pair of files (`tokenmill.load` and
  `Encoding.from_gpt2_files` use it).

Files are local; nothing is downloaded. Writes are atomic, as a set.
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import _schema
from .._io import PathLike, atomic_write_many
from ..encoding import Encoding
from ..errors import VocabFormatError

__all__ = ["load_gpt2_files", "load_gpt2_encoding", "export_gpt2", "byte_symbols", "byte_decoder", "symbols", "merges_for", "canonical_split"]


def byte_decoder() -> dict[str, int]:
    """GPT-2's printable stand-in character for each byte, inverted: {char: byte}."""
    printable = [b for b in range(256) if chr(b).isprintable() and chr(b) != " "]
    table = {chr(b): b for b in printable}
    n = 0
    for b in range(256):
        if b not in table.values():
            table[chr(256 + n)] = b
            n += 1
    return table


def _ids_from_encoder(seen: dict[bytes, int], specials: dict[str, int], merged: list[tuple[bytes, int]], vpath: str):
    """`(ranks, specials)` taking ids from encoder.json, or None if the files do not fit that reading.

    It fits when every single byte has an id, every merge's token has an id larger than the
    previous merge's, and each remaining entry of the form ``<|...|>`` is a special token.
    """
    if any(bytes([b]) not in seen for b in range(256)):
        return None
    ranks = {bytes([b]): seen[bytes([b])] for b in range(256)}
    last = -1
    for tok, lineno in merged:
        tid = seen.get(tok)
        if tid is None or tid <= last:
            return None
        ranks[tok] = last = tid
    specials = dict(specials)
    for tok, tid in seen.items():
        if tok not in ranks:
            name = tok.decode("utf-8", "replace")
            if not (name.startswith("<|") and name.endswith("|>")):
                return None
            specials[name] = tid
    return ranks, specials


def load_gpt2_files(encoder_json: PathLike, vocab_bpe: PathLike) -> tuple[dict[bytes, int], dict[str, int]]:
    """Reads GPT-2's ``encoder.json`` + ``vocab.bpe``; returns ``(mergeable_ranks, special_tokens)``.

    The ranks equal tiktoken's r50k_base: the 256 bytes in GPT-2's byte order, then one token per
    merge line. The two files must agree; `<|endoftext|>`/`<|startoftext|>` in encoder.json
    become special tokens. A ``#version`` header (first line only), CRLF, blank lines and a
    missing final newline are accepted; every other line is a merge, even one starting with ``#``.

    >>> import tokenmill  # doctest: +SKIP
    >>> ranks, specials = tokenmill.load_gpt2_files("encoder.json", "vocab.bpe")  # doctest: +SKIP
    """
    byte_of = byte_decoder()
    order = [byte_of[c] for c in byte_of]  # insertion order = GPT-2's rank order of single bytes

    def decode_symbol(sym: str, where: str, line: int | None) -> bytes:
        try:
            return bytes(byte_of[c] for c in sym)
        except KeyError as e:
            ch = e.args[0]
            raise VocabFormatError(f"character U+{ord(ch):04X} in {sym!r} is not a GPT-2 byte symbol", where, line) from None

    vpath = str(vocab_bpe)
    raw = Path(vocab_bpe).read_bytes()
    if not raw.strip():
        raise VocabFormatError("empty merges file", vpath)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise VocabFormatError(f"not valid UTF-8 at byte {e.start}", vpath) from None
    ranks: dict[bytes, int] = {bytes([b]): i for i, b in enumerate(order)}
    merged_tokens: list[tuple[bytes, int]] = []  # (token, line) in merge order
    first = True
    # split("\n"), not splitlines(): U+2028, U+0085, \x0b... are not line breaks in vocab.bpe.
    for lineno, line in enumerate(text.split("\n"), start=1):
        line = line.strip("\r")
        if not line.strip(" \t"):  # ASCII blanks only: other whitespace is data
            continue
        # Only a leading "#version" line is a header: "# #" and "## ##" are real GPT-2 merges.
        if first and line.startswith("#version"):
            first = False
            continue
        first = False
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise VocabFormatError(f"expected two symbols separated by one space, got {line!r}", vpath, lineno)
        merged = decode_symbol(parts[0], vpath, lineno) + decode_symbol(parts[1], vpath, lineno)
        if merged in ranks:
            raise VocabFormatError(f"merge {line!r} produces {merged!r}, which already has rank {ranks[merged]}", vpath, lineno)
        ranks[merged] = len(ranks)
        merged_tokens.append((merged, lineno))

    epath = str(encoder_json)
    eraw = Path(encoder_json).read_bytes()
    if not eraw.strip():
        raise VocabFormatError("empty encoder file", epath)

    encoder = _schema.parse_json(eraw, epath, None)
    if not isinstance(encoder, dict):
        raise VocabFormatError(f"expected a JSON object of token -> id, got {type(encoder).__name__}", epath)
    specials: dict[str, int] = {}
    seen: dict[bytes, int] = {}
    for k, v in encoder.items():
        if not isinstance(v, int) or isinstance(v, bool):
            raise VocabFormatError(f"id of {k!r} is {v!r}, not an int", epath)
        if k in ("<|endoftext|>", "<|startoftext|>"):
            specials[k] = v
            continue
        seen[decode_symbol(k, epath, None)] = v
    if seen != ranks:
        # Files written by other trainers (tokenmill's export, HF) keep their own ids: single
        # bytes anywhere, merged tokens in increasing id order. Accept that when consistent.
        own = _ids_from_encoder(seen, specials, merged_tokens, vpath)
        if own is not None:
            return own
        for tok, r in ranks.items():
            if seen.get(tok) != r:
                sym = "".join(list(byte_of)[order.index(b)] for b in tok)
                other = seen.get(tok)
                detail = f"rank {other} vs {r}" if other is not None else f"missing from encoder.json (vocab.bpe gives rank {r})"
                raise VocabFormatError(f"encoder.json and vocab.bpe disagree at {sym!r}: {detail}", epath)
        extra = next(iter(set(seen) - set(ranks)))
        raise VocabFormatError(f"encoder.json has token {extra!r} (id {seen[extra]}) that vocab.bpe does not produce", epath)
    return ranks, specials


def byte_symbols() -> list[str]:
    """GPT-2's printable stand-in character for each byte value (index = byte).

    >>> byte_symbols()[32], byte_symbols()[ord("a")]
    ('Ġ', 'a')
    """
    table = [""] * 256
    for ch, b in byte_decoder().items():
        table[b] = ch
    return table


def symbols(b: bytes, table: list[str]) -> str:
    """`b` spelled in GPT-2's byte symbols (`table` is `byte_symbols()`)."""
    return "".join(table[x] for x in b)


def canonical_split(tok: bytes, rank: int, ranks: dict[bytes, int]) -> tuple[bytes, bytes] | None:
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
        split = canonical_split(tok, rank, ranks)
        if split is None:
            # An unreachable token: any two lower-ranked halves keep the file loadable.
            split = next(((tok[:k], tok[k:]) for k in range(1, len(tok)) if ranks.get(tok[:k], rank) < rank and ranks.get(tok[k:], rank) < rank), None)
            if split is None:
                raise VocabFormatError(f"token {tok!r} (rank {rank}) cannot be written as a merge of two lower-ranked tokens", format="gpt2")
        out.append(split)
    return out


def export_gpt2(enc, directory: PathLike) -> list[Path]:
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
    ranks = enc.mergeable_ranks()
    encoder = {symbols(b, table): r for b, r in sorted(ranks.items(), key=lambda kv: kv[1])}
    for s, i in sorted(enc.special_tokens.items(), key=lambda kv: kv[1]):
        if s in encoder:
            raise VocabFormatError(f"special token {s!r} is also a regular token's symbol string; GPT-2 files cannot hold both", format="gpt2")
        encoder[s] = i
    lines = ["#version: 0.2"] + [f"{symbols(a, table)} {symbols(b, table)}" for a, b in merges_for(ranks)]
    enc_path, bpe_path = directory / "encoder.json", directory / "vocab.bpe"
    atomic_write_many([(enc_path, json.dumps(encoder, ensure_ascii=False).encode("utf-8")), (bpe_path, ("\n".join(lines) + "\n").encode("utf-8"))])
    return [enc_path, bpe_path]


def load_gpt2_encoding(encoder_json: PathLike, vocab_bpe: PathLike, name: str = "gpt2", pat_str: str | None = None) -> Encoding:
    """The `Encoding` of GPT-2 files (pattern: GPT-2's unless `pat_str` is given).

    >>> import tokenmill, tempfile
    >>> d = tempfile.mkdtemp()
    >>> enc_path, bpe_path = export_gpt2(tokenmill.get_encoding("gpt2"), d)
    >>> load_gpt2_encoding(enc_path, bpe_path).encode("hello world")
    [31373, 995]
    """
    try:
        return Encoding.from_gpt2_files(encoder_json, vocab_bpe, name, pat_str)
    except VocabFormatError as e:  # the ids of encoder.json, checked when the vocabulary is built
        raise (e if e.path is not None else e.at(str(encoder_json), "gpt2")) from None
