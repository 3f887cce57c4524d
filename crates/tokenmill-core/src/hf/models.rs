//! STUB (helper B): HF models (BPE, WordPiece, WordLevel).

use serde_json::Value;

use crate::error::CoreError;

/// One token of a word: its id and its byte range in the word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub id: u32,
    pub start: u32,
    pub end: u32,
}

#[derive(Debug, Clone)]
pub enum Model {
    WordLevel(std::collections::HashMap<String, u32>),
}

impl Model {
    pub fn from_json(v: &Value, path: &str) -> Result<Self, CoreError> {
        let _ = v;
        Err(CoreError::Unsupported(format!("{path}: models are not implemented yet")))
    }

    /// Appends the tokens of `word` (one pre-token, never empty) to `out`.
    pub fn tokenize(&self, word: &str, out: &mut Vec<Token>) -> Result<(), CoreError> {
        let _ = (word, out);
        Ok(())
    }

    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        let _ = token;
        None
    }

    pub fn id_to_token(&self, id: u32) -> Option<&str> {
        let _ = id;
        None
    }

    /// Number of tokens in the model's vocabulary (HF's `get_vocab_size` of the model).
    pub fn vocab_size(&self) -> usize {
        0
    }

    /// Every `(token, id)` of the model's vocabulary.
    pub fn vocab(&self) -> Vec<(String, u32)> {
        Vec::new()
    }
}
