//! tokenmill-core: the pure-Rust engine behind tokenmill (no Python here).
//!
//! What it does: pre-tokenization (`pretokenize`: the matchers, the known pattern strings and
//! the safe-cut rules), byte-level BPE encoding and decoding (`bpe`), special-token scanning
//! (`special`), byte <-> character offsets (`offsets`), BPE training (`train`), per-call
//! threads (`parallel`), and strict parsing of tiktoken rank files (`formats`). What it does
//! not do: policy (which specials are allowed, registries, file locations) and anything
//! user-facing; that lives in the Python package. Every fallible entry point returns
//! `CoreError`; nothing here panics on user input.
//!
//! Module dependencies point one way, with no cycle: `error`, `table`, `offsets` and `types`
//! (the `Rank` id type) use no other module; `pretokenize`, `parallel` and `special` use only
//! those; `bpe` uses the modules above it; `formats` and `train` use `bpe` and the modules
//! above it.

pub mod bpe;
pub mod error;
pub mod formats;
pub mod offsets;
pub mod parallel;
pub mod pretokenize;
pub mod special;
pub mod table;
pub mod train;
pub mod types;

pub use bpe::{CoreBpe, Vocab};
pub use error::CoreError;
pub use types::Rank;
