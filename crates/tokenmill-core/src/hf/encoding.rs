//! STUB (helper C): HF's `Encoding` and its truncation, merging and padding.

/// The result of encoding one sequence (or a pair, after post-processing), as HF's `Encoding`.
/// Offsets are byte offsets in the original text of the sequence each token came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Encoding {
    pub ids: Vec<u32>,
    pub type_ids: Vec<u32>,
    pub tokens: Vec<String>,
    /// The word (pre-token) index of each token; None for special tokens added by processing.
    pub words: Vec<Option<u32>>,
    pub offsets: Vec<(usize, usize)>,
    pub special_tokens_mask: Vec<u32>,
    pub attention_mask: Vec<u32>,
    pub overflowing: Vec<Encoding>,
    /// Which sequence (0 or 1) each token belongs to, as ranges: `(sequence id, token range)`.
    pub sequence_ranges: Vec<(usize, std::ops::Range<usize>)>,
}

/// STUB
#[derive(Debug, Clone)]
pub struct TruncationParams;
/// STUB
#[derive(Debug, Clone)]
pub struct PaddingParams;

impl TruncationParams {
    pub fn from_json(_v: &serde_json::Value, path: &str) -> Result<Self, crate::error::CoreError> {
        Err(crate::error::CoreError::Unsupported(format!("{path}: not yet")))
    }
}
impl PaddingParams {
    pub fn from_json(_v: &serde_json::Value, path: &str) -> Result<Self, crate::error::CoreError> {
        Err(crate::error::CoreError::Unsupported(format!("{path}: not yet")))
    }
}
pub fn pad_encodings(_e: &mut [Encoding], _p: &PaddingParams) -> Result<(), crate::error::CoreError> {
    Ok(())
}
