//! STUB (helper C): HF post-processors, and the post-processing step (truncate, process, pad).

use serde_json::Value;

use super::encoding::Encoding;
use crate::error::CoreError;

#[derive(Debug, Clone)]
pub enum PostProcessor {
    Sequence(Vec<PostProcessor>),
}

impl PostProcessor {
    pub fn from_json(v: &Value, path: &str) -> Result<Self, CoreError> {
        let _ = v;
        Err(CoreError::Unsupported(format!("{path}: post-processors are not implemented yet")))
    }

    /// How many tokens `process` adds to a single sequence (`is_pair=false`) or a pair.
    pub fn added_tokens(&self, is_pair: bool) -> usize {
        let _ = is_pair;
        0
    }

    /// HF's `process`: the encoding (and pair) with special tokens added when
    /// `add_special_tokens`, merged into one.
    pub fn process(
        &self,
        encoding: Encoding,
        pair: Option<Encoding>,
        add_special_tokens: bool,
    ) -> Result<Encoding, CoreError> {
        let _ = (pair, add_special_tokens);
        Ok(encoding)
    }
}

/// STUB
pub fn post_process(
    encoding: Encoding,
    pair: Option<Encoding>,
    add_special_tokens: bool,
    processor: Option<&PostProcessor>,
    _truncation: Option<&super::encoding::TruncationParams>,
    _padding: Option<&super::encoding::PaddingParams>,
) -> Result<Encoding, CoreError> {
    match processor {
        Some(p) => p.process(encoding, pair, add_special_tokens),
        None => Ok(encoding),
    }
}
