"""The standard encodings (tiktoken's names, patterns and special tokens), shipped offline.

The rank files live in ``tokenmill/encodings/`` inside the package and are verified against
OpenAI's published sha256 on every load. Nothing is ever downloaded. Encodings are built once
per process and shared (they are immutable).
"""

from __future__ import annotations

import threading
from importlib import resources

from . import _core
from .encoding import Encoding
from .errors import UnknownEncodingError
from .load import read_verified

__all__ = ["get_encoding", "list_encoding_names", "encoding_name_for_model", "encoding_for_model"]

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

R50K_PAT = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K_PAT = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

# file name -> OpenAI's published sha256 (tiktoken's expected_hash)
_FILES = {
    "r50k_base.tiktoken": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    "p50k_base.tiktoken": "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    "cl100k_base.tiktoken": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base.tiktoken": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}


# name -> (rank file, pattern, special tokens, explicit_n_vocab)
_SPECS: dict[str, tuple] = {
    "gpt2": ("r50k_base.tiktoken", R50K_PAT, {ENDOFTEXT: 50256}, 50257),
    "r50k_base": ("r50k_base.tiktoken", R50K_PAT, {ENDOFTEXT: 50256}, 50257),
    "p50k_base": ("p50k_base.tiktoken", R50K_PAT, {ENDOFTEXT: 50256}, 50281),
    "p50k_edit": ("p50k_base.tiktoken", R50K_PAT, {ENDOFTEXT: 50256, FIM_PREFIX: 50281, FIM_MIDDLE: 50282, FIM_SUFFIX: 50283}, None),
    "cl100k_base": (
        "cl100k_base.tiktoken",
        CL100K_PAT,
        {ENDOFTEXT: 100257, FIM_PREFIX: 100258, FIM_MIDDLE: 100259, FIM_SUFFIX: 100260, ENDOFPROMPT: 100276},
        None,
    ),
    "o200k_base": ("o200k_base.tiktoken", O200K_PAT, {ENDOFTEXT: 199999, ENDOFPROMPT: 200018}, None),
}

_MODEL_PREFIXES = {
    "gpt-4o": "o200k_base", "gpt-4.1": "o200k_base", "gpt-5": "o200k_base", "o1": "o200k_base", "o3": "o200k_base",
    "o4-mini": "o200k_base", "gpt-4": "cl100k_base", "gpt-3.5-turbo": "cl100k_base",
    "gpt-35-turbo": "cl100k_base", "text-embedding-3": "cl100k_base", "text-embedding-ada-002": "cl100k_base",
    "text-davinci-003": "p50k_base", "text-davinci-002": "p50k_base", "code-davinci-002": "p50k_base",
    "davinci": "r50k_base", "curie": "r50k_base", "babbage": "r50k_base", "ada": "r50k_base", "gpt2": "gpt2",
}

_lock = threading.Lock()
_cache: dict[str, Encoding] = {}


def list_encoding_names() -> list[str]:
    """Names accepted by `get_encoding`.

    >>> "cl100k_base" in list_encoding_names()
    True
    """
    return list(_SPECS)


def get_encoding(encoding_name: str) -> Encoding:
    """The standard encoding `encoding_name`, loaded from the files shipped in the package.

    Args:
        encoding_name: One of `list_encoding_names()`.

    Returns:
        The shared, immutable `Encoding`.

    >>> get_encoding("o200k_base").encode("hello world")
    [24912, 2375]
    """
    enc = _cache.get(encoding_name)
    if enc is not None:
        return enc
    if encoding_name not in _SPECS:
        raise UnknownEncodingError(
            f"Unknown encoding {encoding_name!r}. Known encodings: {', '.join(_SPECS)}. "
            "To use your own rank file, build it with tokenmill.Encoding(...) and tokenmill.load_tiktoken_bpe(path)."
        )
    with _lock:
        enc = _cache.get(encoding_name)
        if enc is None:
            enc = _build(encoding_name)
            _cache[encoding_name] = enc
    return enc


def _build(name: str) -> Encoding:
    fname, pattern, specials, n_vocab = _SPECS[name]
    path = resources.files("tokenmill") / "encodings" / fname
    with resources.as_file(path) as p:
        data = read_verified(p, _FILES[fname])
    # p50k_base's ranks skip 50256 (the id of <|endoftext|>), so gaps are allowed here.
    core = _core.CoreBPE.from_tiktoken_bytes(data, sorted(specials.items(), key=lambda kv: kv[1]), pattern, True)
    return Encoding(name, explicit_n_vocab=n_vocab, _core_bpe=core)


def _is_registered(enc: Encoding) -> bool:
    return _cache.get(enc.name) is enc


def encoding_name_for_model(model_name: str) -> str:
    """The encoding name of an OpenAI model, by exact name or prefix.

    >>> encoding_name_for_model("gpt-4o-mini")
    'o200k_base'
    """
    for prefix in sorted(_MODEL_PREFIXES, key=len, reverse=True):
        if model_name == prefix or model_name.startswith(prefix + "-") or model_name.startswith(prefix + "."):
            return _MODEL_PREFIXES[prefix]
    raise UnknownEncodingError(
        f"Could not map model {model_name!r} to an encoding. Use get_encoding() with one of: {', '.join(_SPECS)}."
    )


def encoding_for_model(model_name: str) -> Encoding:
    """The `Encoding` an OpenAI model uses.

    >>> encoding_for_model("gpt-4").name
    'cl100k_base'
    """
    return get_encoding(encoding_name_for_model(model_name))
