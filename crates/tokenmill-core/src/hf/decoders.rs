//! STUB (helper B): HF decoders.

use serde_json::Value;

use crate::error::CoreError;

#[derive(Debug, Clone)]
pub enum Decoder {
    Sequence(Vec<Decoder>),
}

impl Decoder {
    pub fn from_json(v: &Value, path: &str) -> Result<Self, CoreError> {
        let _ = v;
        Err(CoreError::Unsupported(format!("{path}: decoders are not implemented yet")))
    }

    /// HF's `decode_chain`: the token strings after this decoder.
    pub fn decode_chain(&self, tokens: Vec<String>) -> Result<Vec<String>, CoreError> {
        Ok(tokens)
    }

    /// HF's `decode`: `decode_chain` joined.
    pub fn decode(&self, tokens: Vec<String>) -> Result<String, CoreError> {
        Ok(self.decode_chain(tokens)?.concat())
    }
}
