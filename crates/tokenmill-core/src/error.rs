//! Errors of the core crate; the binding crate maps each variant to one Python exception.
//!
//! Which variant: `Vocab` only for a malformed vocabulary or rank file; `Input` for any other
//! argument the core cannot use; `Internal` for what should not happen (a bug, never the
//! caller's fault).

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
    /// An argument the core cannot use (a name that is not a special token, malformed
    /// merge-loop input, a count overflowing 2**64, an unknown mode...); the message says
    /// which argument and why.
    #[error("{0}")]
    Input(String),
    /// A component or option of a peer's file that tokenmill does not implement; the message
    /// names it (with its JSON path) and lists what is supported.
    #[error("{0}")]
    Unsupported(String),
    /// A corpus file cannot be read as the corpus it should be (missing, invalid UTF-8, a
    /// malformed record, corrupt gzip); the message names the file and the place.
    #[error("{0}")]
    Corpus(String),
    /// `Corpus` with the place apart, for callers that report it as data: the file, the
    /// 1-based line and the byte offset (in the uncompressed stream) when known.
    #[error("{path}{}: {}{reason}", line.map(|l| format!(":{l}")).unwrap_or_default(), offset.map(|o| format!("byte {o}: ")).unwrap_or_default())]
    CorpusAt { reason: String, path: String, line: Option<u64>, offset: Option<u64> },
    /// Writing output failed; the message names the file and what was being done.
    #[error("{0}")]
    Io(String),
    /// A state that should not happen: a worker thread that panicked, a poisoned lock, a
    /// "cannot happen" branch. A bug in tokenmill, not in the caller's input.
    #[error("{0}")]
    Internal(String),
}
