"""BERT's ``vocab.txt``: one WordPiece token per line, line i is id i; read, written, sniffed.

`load_vocab_txt` builds a `WordPiece` tokenizer. A ``vocab.txt`` holds no options, so
BERT's defaults apply (lowercase, accents stripped, CJK characters split, ``[UNK]``,
``[CLS] ... [SEP]``) unless a Hugging Face ``tokenizer_config.json`` beside it says otherwise
(``do_lower_case``, ``strip_accents``, ``tokenize_chinese_chars``, the special tokens).
`export_vocab_txt` writes the tokens of a `WordPiece` in id order, atomically.
"""

from __future__ import annotations

from pathlib import Path

from .. import _schema
from .._io import PathLike, atomic_write_bytes
from ..errors import VocabFormatError
from ..models.wordpiece import WordPiece

__all__ = ["load_vocab_txt", "export_vocab_txt", "looks_like_vocab_txt"]


def looks_like_vocab_txt(head: bytes) -> bool:
    """True when `head` (a file's first bytes) reads as WordPiece tokens, one per line.

    >>> looks_like_vocab_txt(b"[PAD]\\n[UNK]\\nthe\\n##s\\n"), looks_like_vocab_txt(b"IQ== 0\\n")
    (True, False)
    """
    # An empty line is malformed, but still a vocab.txt: the reader then names the line.
    lines = head.split(b"\n")[:-1] or head.split(b"\n")
    if len(lines) < 2 or any(b" " in line or b"\t" in line for line in lines):
        return False
    return any(line.rstrip(b"\r") == b"[UNK]" or line.startswith(b"##") for line in lines)


def load_vocab_txt(path: PathLike) -> WordPiece:
    """The `WordPiece` tokenizer of a ``vocab.txt`` (options from a ``tokenizer_config.json``
    beside it, else BERT's defaults).

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    >>> _ = open(p, "w").write("[PAD]\\n[UNK]\\n[CLS]\\n[SEP]\\nhello\\n##s\\n")
    >>> load_vocab_txt(p).encode("Hellos")
    [2, 4, 5, 3]
    """
    path = Path(path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise VocabFormatError(f"not valid UTF-8 at byte {e.start}; vocab.txt is UTF-8 text", str(path), format="vocab.txt") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    vocab: dict[str, int] = {}
    for i, line in enumerate(lines):
        token = line.rstrip("\r")
        if not token:
            raise VocabFormatError("empty line: every line of vocab.txt is one token", str(path), i + 1, "vocab.txt")
        if token in vocab:
            raise VocabFormatError(f"token {token!r} is listed twice (lines {vocab[token] + 1} and {i + 1})", str(path), i + 1, "vocab.txt")
        vocab[token] = i
    if not vocab:
        raise VocabFormatError("empty vocabulary", str(path), format="vocab.txt")
    options = _config_options(path.parent / "tokenizer_config.json")
    try:
        return WordPiece(vocab, **options)
    except VocabFormatError as e:
        raise e.at(str(path), "vocab.txt") from None


def _config_options(config: Path) -> dict:
    """WordPiece options from Hugging Face's ``tokenizer_config.json``, if there is one."""
    if not config.is_file():
        return {}
    d = _schema.read_json(config, format="tokenizer_config")
    if not isinstance(d, dict):
        raise VocabFormatError(f"expected a JSON object, got {_schema.json_type(d)}", str(config), format="tokenizer_config")
    out: dict = {}
    for key, option, kinds in (("do_lower_case", "lowercase", (bool,)), ("strip_accents", "strip_accents", (bool, type(None))),
                               ("tokenize_chinese_chars", "handle_chinese_chars", (bool,)), ("unk_token", "unk_token", (str,)),
                               ("cls_token", "cls_token", (str, type(None))), ("sep_token", "sep_token", (str, type(None)))):
        if key not in d:
            continue
        value = d[key]
        if isinstance(value, dict) and isinstance(value.get("content"), str):
            value = value["content"]  # transformers writes special tokens as AddedToken objects
        if not isinstance(value, kinds):
            want = " or ".join("null" if k is type(None) else {"bool": "true/false", "str": "a string"}[k.__name__] for k in kinds)
            raise VocabFormatError(f"{key}: expected {want}, got {_schema.json_type(value)}", str(config), format="tokenizer_config")
        out[option] = value
    return out


def export_vocab_txt(tok: WordPiece, path: PathLike) -> list[Path]:
    """Writes the tokens of `tok` in id order, one per line (HF's ``BertTokenizer`` reads it).

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    >>> [q.name for q in export_vocab_txt(WordPiece({"[UNK]": 0, "a": 1}), p)], open(p).read()
    (['vocab.txt'], '[UNK]\\na\\n')
    """
    tokens = [tok.id_to_token(i) for i in range(tok.vocab_size)]
    bad = next((t for t in tokens if "\n" in t or "\r" in t), None)
    if bad is not None:
        raise VocabFormatError(f"token {bad!r} holds a line break, which vocab.txt cannot hold", format="vocab.txt")
    atomic_write_bytes(path, ("\n".join(tokens) + "\n").encode("utf-8"))
    return [Path(path)]
