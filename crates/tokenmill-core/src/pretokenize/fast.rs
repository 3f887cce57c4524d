//! Hand-written pre-tokenizers for the known OpenAI patterns (placeholder: not yet enabled).

/// The known patterns that have a hand-written matcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnownPattern {
    R50k,
    Cl100k,
    O200k,
}

impl KnownPattern {
    /// The known pattern whose regex string is exactly `pattern`, if any.
    pub fn from_pattern(_pattern: &str) -> Option<Self> {
        None
    }

    /// End of the pre-token starting at byte `pos` of `text` (`pos < text.len()`).
    pub fn next_end(self, _text: &str, _pos: usize) -> usize {
        unreachable!("fast pre-tokenizer not enabled")
    }
}
