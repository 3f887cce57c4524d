//! SentencePiece (`.model` files): the protobuf `ModelProto` read and written by hand (`proto`),
//! the normalizer with its precompiled charsmap (`charsmap`, `normalizer`), Unigram segmentation
//! (Viterbi with sentencepiece's float32 ties, n-best, sampling: `unigram`), score-ordered BPE
//! with byte fallback (`bpe`) and the model that joins them with encode and decode (`model`).
//!
//! The specification is `python/tokenmill/_reference/sentencepiece.py`; the oracle is the
//! `sentencepiece` library (ids and decoded text identical). What this module does not do:
//! WORD and CHAR models, `denormalizer_spec`, training (`train::unigram`), policy (bos/eos,
//! which file) and anything Python.
//!
//! Dependencies point one way: `proto` uses nothing here; `charsmap` nothing; `normalizer` uses
//! `proto` and `charsmap`; `unigram` uses `proto`; `bpe` uses `proto` and `unigram`'s trie,
//! generator and spans; `model` uses them all. The HF pipeline reuses `charsmap` (its
//! `Precompiled` normalizer).

pub mod bpe;
pub mod charsmap;
pub mod model;
pub mod normalizer;
pub mod proto;
pub mod unigram;

pub use model::SentencePiece;
pub use proto::{ModelProto, ModelType, NormalizerSpec, Piece, PieceType, TrainerSpec};
