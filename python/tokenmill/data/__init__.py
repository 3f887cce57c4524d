"""The data package: reading corpora for training, and turning them into token shards.

* `sources`: which files, in which format, opened how (text, JSON lines, parquet, gzip).
* `chunks`: where text may be cut without changing any pre-token (`safe_cut`), and streaming
  UTF-8 decoding cut at such points.
* `corpus`: `Corpus`, the streaming reader: whole `documents()` or cut `chunks()`.
* `prepare`: `prepare`, a corpus to shards of token ids (the Rust core reads, encodes and
  writes; resumable; ``tokenmill prepare``).

>>> from tokenmill.data import Corpus
>>> list(Corpus.from_arg(["one document", "another"]).documents())
['one document', 'another']
"""

from __future__ import annotations

from .chunks import iter_cut_points, safe_cut
from .corpus import Corpus
from .prepare import prepare

__all__ = ["Corpus", "safe_cut", "iter_cut_points", "prepare"]
