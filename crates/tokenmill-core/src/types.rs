//! Types shared across the crate, in a module that uses no other, so that every module can
//! import them without creating a module cycle.

/// A token id. BPE merge priority equals the id ("rank"), as in tiktoken.
pub type Rank = u32;
