//! STUB (helper A): HF normalizers.

use serde_json::Value;

use super::normalized::NormalizedString;
use crate::error::CoreError;

#[derive(Debug, Clone)]
pub enum Normalizer {
    Sequence(Vec<Normalizer>),
}

impl Normalizer {
    /// Builds the normalizer of `v` (the `normalizer` field, at `path`).
    pub fn from_json(v: &Value, path: &str) -> Result<Self, CoreError> {
        let _ = v;
        Err(CoreError::Unsupported(format!("{path}: normalizers are not implemented yet")))
    }

    pub fn normalize_str(&self, s: &str) -> Result<String, CoreError> {
        let mut n = NormalizedString::new(s, 0, false);
        self.normalize(&mut n)?;
        Ok(n.as_str().to_string())
    }

    pub fn normalize(&self, n: &mut NormalizedString) -> Result<(), CoreError> {
        match self {
            Normalizer::Sequence(v) => v.iter().try_for_each(|x| x.normalize(n)),
        }
    }
}
