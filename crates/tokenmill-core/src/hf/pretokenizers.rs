//! STUB (helper A): HF pre-tokenizers.

use serde_json::Value;

use super::normalized::NormalizedString;
use crate::error::CoreError;

#[derive(Debug, Clone)]
pub enum PreTokenizer {
    Sequence(Vec<PreTokenizer>),
}

impl PreTokenizer {
    pub fn from_json(v: &Value, path: &str) -> Result<Self, CoreError> {
        let _ = v;
        Err(CoreError::Unsupported(format!("{path}: pre-tokenizers are not implemented yet")))
    }

    /// Splits each piece of `pieces` further, in place and in order; empty pieces are dropped.
    pub fn pre_tokenize(&self, pieces: &mut Vec<NormalizedString>) -> Result<(), CoreError> {
        match self {
            PreTokenizer::Sequence(v) => v.iter().try_for_each(|x| x.pre_tokenize(pieces)),
        }
    }
}
