//! STUB (helper A): a string being normalized, with (optionally) each byte's range in the
//! original text.

/// A piece of text being normalized. `orig_start` is always known (the byte offset in the whole
/// original text where this piece's original text starts); the per-byte alignment is kept only
/// when `track` was set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NormalizedString {
    text: String,
    orig_start: usize,
}

impl NormalizedString {
    /// A piece whose original text is `original`, starting at byte `orig_start` of the whole
    /// original text; `track`: keep per-byte alignments (needed for offsets only).
    pub fn new(original: &str, orig_start: usize, track: bool) -> Self {
        let _ = track;
        NormalizedString { text: original.to_string(), orig_start }
    }

    /// The normalized text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// Byte offset of this piece's original text in the whole original text.
    pub fn orig_start(&self) -> usize {
        self.orig_start
    }

    /// The sub-piece for normalized bytes `start..end` (char boundaries), with its alignment.
    pub fn slice(&self, start: usize, end: usize) -> NormalizedString {
        NormalizedString { text: self.text[start..end].to_string(), orig_start: self.orig_start + start }
    }

    /// The range in the whole original text (absolute byte offsets) that normalized bytes
    /// `start..end` came from; HF's `convert_offsets` rule. Untracked: `(0, 0)`.
    pub fn original_range(&self, start: usize, end: usize) -> (usize, usize) {
        (self.orig_start + start, self.orig_start + end)
    }
}
