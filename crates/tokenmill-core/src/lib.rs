//! tokenmill-core: the pure-Rust engine behind tokenmill (no Python here).
//!
//! What it does: pre-tokenization (`pretokenize`: the matchers, the known pattern strings, the
//! safe-cut rules and BERT's word splitter), byte-level BPE encoding and decoding (`bpe`),
//! special-token scanning (`special`), byte <-> character offsets (`offsets`), BPE training
//! (`train`), per-call threads (`parallel`), strict parsing of tiktoken rank files (`formats`),
//! pretraining data (`data`: a corpus to shards of ids, on all cores, resumable),
//! BERT-style WordPiece: BERT's normalizer with an alignment to the original text
//! (`normalize`), the WordPiece model (`wordpiece`) and the pipeline joining them (`pipeline`),
//! Hugging Face `tokenizer.json` pipelines (`hf`) and SentencePiece `.model` files (`spm`:
//! Unigram and BPE with byte fallback, sentencepiece's normalizer, n-best and sampling), and
//! UTF-8 from the fixed-width forms Python keeps strings in (`utf8`).
//! What it does not do: policy (which specials are allowed, registries, file locations) and
//! anything user-facing; that lives in the Python package. Every fallible entry point returns
//! `CoreError`; nothing here panics on user input.
//!
//! Module dependencies point one way, with no cycle: `error`, `zeroed`, `offsets`, `utf8` and
//! `types` (the `Rank` id type) use no other module, `table` only `zeroed`; `pretokenize`,
//! `normalize`, `parallel`, `special` and `wordpiece` use only those; `spm` uses only `error`;
//! `pipeline` uses `normalize`, `pretokenize` and `wordpiece`; `bpe` uses the modules above
//! it; `hf` uses those, `bpe` and `spm::charsmap`; `formats` and `train` use `bpe` and the
//! modules above it.

pub mod bpe;
pub mod data;
pub mod error;
pub mod formats;
pub mod hf;
pub mod normalize;
pub mod offsets;
pub mod parallel;
pub mod pipeline;
pub mod pretokenize;
pub mod special;
pub mod spm;
pub mod table;
#[cfg(test)]
mod testing;
pub mod train;
pub mod types;
pub mod utf8;
pub mod wordpiece;
pub mod zeroed;

pub use bpe::{CoreBpe, Vocab};
pub use error::CoreError;
pub use pipeline::BertWordPiece;
pub use types::Rank;
pub use wordpiece::WordPiece;

/// A switch for measuring two versions of a code path in one process: nothing reads it in a
/// release. During an experiment the new version runs when it is 1 (or `ALT_V`) and the old
/// one otherwise, and `examples/profile_encode` with `ALT=N` sets it from pass to pass (this
/// host's speed drifts between runs by more than most changes are worth, while two passes in
/// a row see the same machine).
#[doc(hidden)]
pub static EXPERIMENT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
