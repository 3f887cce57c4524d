"""The standard encodings (tiktoken's names, patterns and special tokens), shipped offline.

The rank files live in ``tokenmill/encodings/`` inside the package and are verified against
OpenAI's published sha256 on every load. Nothing is ever downloaded. Encodings are built once
per process and shared (they are immutable), and pickle by name: the registry hands each
encoding it builds `get_encoding` as its factory, so `tokenmill.encoding` never imports this
module.
"""

from __future__ import annotations

import threading
from importlib import resources

from . import _core
from .encoding import Encoding
from ._io import read_verified
from .errors import UnknownEncodingError, UnknownModelError
from .patterns import CL100K_PAT, O200K_PAT, R50K_PAT

__all__ = ["get_encoding", "list_encoding_names", "encoding_name_for_model", "encoding_for_model"]

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

# file name -> OpenAI's published sha256 (tiktoken's expected_hash)
_FILES = {
    "r50k_base.tiktoken": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    "p50k_base.tiktoken": "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    "cl100k_base.tiktoken": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base.tiktoken": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}


def _harmony_specials() -> dict[str, int]:
    # As in tiktoken, <|endofprompt|> and <|reserved_200018|> share id 200018; decoding it
    # gives <|endofprompt|>, the first listed.
    specials = {ENDOFTEXT: 199999, ENDOFPROMPT: 200018, "<|startoftext|>": 199998}
    named = {200002: "return", 200003: "constrain", 200005: "channel", 200006: "start", 200007: "end", 200008: "message", 200012: "call"}
    for i in range(200000, 201088):
        specials[f"<|{named[i]}|>" if i in named else f"<|reserved_{i}|>"] = i
    return specials


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
    "o200k_harmony": ("o200k_base.tiktoken", O200K_PAT, None, None),
}

# Which encoding each OpenAI model uses (the same facts tiktoken's model table records).
# Exact names first; then prefixes, tried in this order.
_MODELS_BY_ENCODING = {
    "o200k_base": "o1 o3 o4-mini gpt-5 gpt-4.1 gpt-4o",
    "cl100k_base": "gpt-4 gpt-3.5-turbo gpt-3.5 gpt-35-turbo davinci-002 babbage-002 text-embedding-ada-002 "
    "text-embedding-3-small text-embedding-3-large",
    "p50k_base": "text-davinci-003 text-davinci-002 code-davinci-002 code-davinci-001 code-cushman-002 "
    "code-cushman-001 davinci-codex cushman-codex",
    "p50k_edit": "text-davinci-edit-001 code-davinci-edit-001",
    "r50k_base": "text-davinci-001 text-curie-001 text-babbage-001 text-ada-001 davinci curie babbage ada "
    "text-similarity-davinci-001 text-similarity-curie-001 text-similarity-babbage-001 text-similarity-ada-001 "
    "text-search-davinci-doc-001 text-search-curie-doc-001 text-search-babbage-doc-001 text-search-ada-doc-001 "
    "code-search-babbage-code-001 code-search-ada-code-001",
    "gpt2": "gpt2 gpt-2",
}
_MODEL_TO_ENCODING = {m: enc for enc, models in _MODELS_BY_ENCODING.items() for m in models.split()}
_MODEL_PREFIX_TO_ENCODING = [
    ("o1-", "o200k_base"), ("o3-", "o200k_base"), ("o4-mini-", "o200k_base"), ("gpt-5", "o200k_base"),
    ("gpt-4.5-", "o200k_base"), ("gpt-4.1-", "o200k_base"), ("chatgpt-4o-", "o200k_base"), ("gpt-4o-", "o200k_base"),
    ("gpt-4-", "cl100k_base"), ("gpt-3.5-turbo-", "cl100k_base"), ("gpt-35-turbo-", "cl100k_base"),
    ("gpt-oss-", "o200k_harmony"), ("ft:gpt-4o", "o200k_base"), ("ft:gpt-4", "cl100k_base"),
    ("ft:gpt-3.5-turbo", "cl100k_base"), ("ft:davinci-002", "cl100k_base"), ("ft:babbage-002", "cl100k_base"),
]

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
    if specials is None:
        specials = _harmony_specials()
    path = resources.files("tokenmill") / "encodings" / fname
    with resources.as_file(path) as p:
        data = read_verified(p, _FILES[fname])
    # p50k_base's ranks skip 50256 (the id of <|endoftext|>), so gaps are allowed here.
    core = _core.CoreBPE.from_tiktoken_bytes(data, list(specials.items()), pattern, True)
    # The rank file is the one OpenAI published (checked above), which `rank_file_bytes` gives back.
    return Encoding(name, explicit_n_vocab=n_vocab, _core_bpe=core, _by_name=get_encoding, _ranks_sha256=_FILES[fname])


def encoding_name_for_model(model_name: str) -> str:
    """The encoding name of an OpenAI model: exact name first, then known prefixes.

    Raises `UnknownModelError` (a KeyError) for names it cannot map.

    >>> encoding_name_for_model("gpt-4o-mini")
    'o200k_base'
    """
    if model_name in _MODEL_TO_ENCODING:
        return _MODEL_TO_ENCODING[model_name]
    for prefix, name in _MODEL_PREFIX_TO_ENCODING:
        if model_name.startswith(prefix):
            return name
    raise UnknownModelError(
        f"Could not map model {model_name!r} to an encoding. Use get_encoding() with one of: {', '.join(_SPECS)}."
    )


def encoding_for_model(model_name: str) -> Encoding:
    """The `Encoding` an OpenAI model uses.

    >>> encoding_for_model("gpt-4").name
    'cl100k_base'
    """
    return get_encoding(encoding_name_for_model(model_name))
