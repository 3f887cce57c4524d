//! Byte-level BPE, specialised and fast: the vocabulary, the merge engine and the encoder that
//! ties them to a pre-tokenizer and special tokens.
//!
//! - `vocab`: token bytes <-> rank, with the lookup tables the merge loop reads;
//! - `chars`: which two- and three-byte characters merging may start from whole (an exact
//!   shortcut for CJK text);
//! - `merge`: byte-pair merging of one pre-token, with tiktoken's exact semantics;
//! - `backtrack` and `trie`: the same result for long pieces in linear time, by a search over
//!   token boundaries (`merge` calls it);
//! - `encoder`: `CoreBpe`, text in, token ids out (special-token split, pre-tokenizer, merges),
//!   and back; `batch`: its piece loop on AVX-512, a batch of pieces at a time.
//!
//! Dependencies run one way: `encoder` -> `batch` -> `merge` -> `backtrack`, `vocab` -> `trie`, `chars`
//! (plus `table`, `types` and `error`); `encoder` also uses `special`, `pretokenize` and
//! `parallel`. What this module does not do: other model types (WordPiece, Unigram,
//! SentencePiece-style BPE), training (`train`), or file formats (`formats`).

pub mod backtrack;
mod batch;
pub mod chars;
pub mod encoder;
pub mod long_cache;
pub mod merge;
pub mod shared_cache;
pub mod trie;
pub mod vocab;

pub use encoder::CoreBpe;
pub use merge::{encode_piece, encode_piece_with, Scratch};
pub use vocab::{Rank, Vocab};
