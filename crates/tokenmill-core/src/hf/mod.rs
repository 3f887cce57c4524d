//! Hugging Face `tokenizer.json`: the whole pipeline of the file, with HF's exact semantics.
//!
//! The stages, one module each, in the order text flows through them:
//! - `added`: added tokens (special or not; `single_word`, `lstrip`, `rstrip`, `normalized`)
//!   are split out first;
//! - `normalized` + `normalizers`: the text of each other segment is normalized, keeping
//!   (optionally) each normalized byte's range in the original text;
//! - `pretokenizers`: the normalized text is split into words;
//! - `models`: each word becomes tokens (BPE, WordPiece, WordLevel);
//! - `encoding` + `processors`: the tokens become an `Encoding` (ids, offsets, type ids,
//!   masks), truncated, post-processed (special tokens added) and padded;
//! - `decoders`: ids back to text.
//!
//! `bytes` holds GPT-2's byte-level alphabet. `json` reads the file's fields with errors that name them; a component or option that is
//! not implemented is a `CoreError::Unsupported`, never a silently different answer.
//! `tokenizer` ties the stages together (`HfTokenizer`); `fast` runs byte-level BPE files on
//! tokenmill's own byte-level engine when that gives the same ids. What this module does not do:
//! SentencePiece `.model` files (`crate::spm`) or anything Python-facing.

pub mod added;
pub mod bytes;
pub mod decoders;
pub mod encoding;
pub mod fast;
pub mod json;
pub mod models;
pub mod normalized;
pub mod normalizers;
pub mod pretokenizers;
pub mod processors;
pub mod tokenizer;

pub use encoding::{Encoding, PaddingParams};
pub use tokenizer::HfTokenizer;
