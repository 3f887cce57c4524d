//! Errors of the core crate; the binding crate maps each variant to one Python exception.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CoreError {
    /// The pre-tokenizer pattern does not compile or failed at run time.
    #[error("invalid pre-tokenizer pattern: {0}")]
    Pattern(String),
    /// A vocabulary is malformed (bad rank file, duplicate token, missing byte...).
    #[error("{0}")]
    Vocab(String),
    /// A token id that the vocabulary does not have.
    #[error("token id {id} at position {position} is out of range [0, {n_vocab}) or unassigned")]
    TokenId { id: u64, position: usize, n_vocab: u64 },
    /// Text contains a special token that the caller disallowed.
    #[error("disallowed special token {token:?} at byte {start}")]
    DisallowedSpecial { token: String, start: usize },
    /// The caller asked a long-running job (training) to stop.
    #[error("cancelled")]
    Cancelled,
}
