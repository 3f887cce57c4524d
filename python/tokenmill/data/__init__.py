"""The data package: reading corpora for training, and turning them into token shards.

* `sources`: which files, in which format, opened how (text, JSON lines, parquet, gzip).
* `chunks`: where text may be cut without changing any pre-token (`safe_cut`), and streaming
  UTF-8 decoding cut at such points.
* `corpus`: `Corpus`, the streaming reader: whole `documents()` or cut `chunks()`.
* `dataset`: token shard directories (``tokenmill prepare``) read back: `read_tokens`,
  `TokenDataset` (input/target windows for GPT pretraining), `token_bytes` (bits per byte).
* `loader`: `TokenSampler` (seeded, rank-aware, resumable) and `create_dataloader`.
* `prepare_shards`: `prepare`, a corpus to shards of token ids (the Rust core reads, encodes and
  writes; resumable; ``tokenmill prepare``).

>>> from tokenmill.data import Corpus
>>> list(Corpus.from_arg(["one document", "another"]).documents())
['one document', 'another']
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..errors import ShardFormatError
from .chunks import iter_cut_points, safe_cut
from .corpus import Corpus

if TYPE_CHECKING:
    from .dataset import TokenDataset, read_tokens, token_bytes
    from .loader import TokenLoader, TokenSampler, create_dataloader
    from .prepare_shards import prepare

__all__ = ["Corpus", "safe_cut", "iter_cut_points", "prepare", "read_tokens", "TokenDataset", "token_bytes",
           "TokenSampler", "TokenLoader", "create_dataloader", "ShardFormatError"]

# Why lazy: `import tokenmill` reads corpora through `corpus` (training), and importing the
# shard writer, the datasets and their imports as well added ~25 ms to every start-up.
_LAZY = {"prepare": "prepare_shards", "read_tokens": "dataset", "TokenDataset": "dataset", "token_bytes": "dataset",
         "TokenSampler": "loader", "TokenLoader": "loader", "create_dataloader": "loader"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
