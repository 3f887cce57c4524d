"""Pure-Python reference implementations: the specification of each algorithm.

Small and readable on purpose (minbpe-sized); slow. The Rust core is tested against these.
Nothing in the fast path imports them.
"""

from .bpe import ReferenceEncoding, bpe_merge
from .sentencepiece import SentencePieceModel

__all__ = ["ReferenceEncoding", "bpe_merge", "SentencePieceModel"]
