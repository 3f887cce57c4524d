//! tokenmill-core: the pure-Rust engine behind tokenmill (no Python here).
//!
//! What it does: pre-tokenization (`pretokenize`), byte-level BPE encoding and decoding
//! (`bpe`, `vocab`, `core_bpe`), special-token scanning (`special`), BPE training (`train`), and strict
//! parsing of tiktoken rank files (`formats`). What it does not do: policy (which specials are allowed,
//! registries, file locations) and anything user-facing; that lives in the Python package.
//! Every fallible entry point returns `CoreError`; nothing here panics on user input.

pub mod bpe;
pub mod chars;
pub mod core_bpe;
pub mod error;
pub mod formats;
pub mod parallel;
pub mod pretokenize;
pub mod special;
pub mod table;
pub mod train;
pub mod vocab;

pub use core_bpe::CoreBpe;
pub use error::CoreError;
pub use vocab::{Rank, Vocab};
