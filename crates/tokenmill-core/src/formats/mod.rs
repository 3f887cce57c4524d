//! Strict parsers for vocabulary files whose size makes Python parsing slow.

pub mod tiktoken;
