"""The data package: reading corpora for training, and turning them into token shards.

* `sources`: which files, in which format, opened how (text, JSON lines, parquet, gzip).
* `chunks`: where text may be cut without changing any pre-token (`safe_cut`), and streaming
  UTF-8 decoding cut at such points.
* `corpus`: `Corpus`, the streaming reader: whole `documents()` or cut `chunks()`.
* `dataset`: token shard directories (``tokenmill prepare``) read back: `read_tokens`,
  `TokenDataset` (input/target windows for GPT pretraining), `token_bytes` (bits per byte).
* `loader`: `TokenSampler` (seeded, rank-aware, resumable) and `create_dataloader`.
* `prepare`: `prepare`, a corpus to shards of token ids (the Rust core reads, encodes and
  writes; resumable; ``tokenmill prepare``).

>>> from tokenmill.data import Corpus
>>> list(Corpus.from_arg(["one document", "another"]).documents())
['one document', 'another']
"""

from __future__ import annotations

from .chunks import iter_cut_points, safe_cut
from .corpus import Corpus
from .dataset import TokenDataset, read_tokens, token_bytes
from .loader import TokenLoader, TokenSampler, create_dataloader
from .prepare import prepare
from ..errors import ShardFormatError

__all__ = ["Corpus", "safe_cut", "iter_cut_points", "prepare", "read_tokens", "TokenDataset", "token_bytes",
           "TokenSampler", "TokenLoader", "create_dataloader", "ShardFormatError"]
