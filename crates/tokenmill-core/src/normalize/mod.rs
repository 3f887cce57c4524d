//! Normalizers: text -> normalized text plus an alignment back to the original characters.
//!
//! Every normalizer returns a `Normalized`: the new text and, for each of its characters, the
//! index of the original character it came from, so that token offsets can be given in the
//! original text. Only BERT's normalizer exists so far (`bert`); NFC/NFKC, Replace/Prepend/Strip
//! and precompiled charsmaps are to come. What this module does not do: splitting into words
//! (`pretokenize`) or special tokens (split off by the caller before normalizing).

pub mod bert;

pub use bert::BertNormalizer;

/// A normalized text and its alignment: `align[k]` is the index (in characters) of the
/// original character that the `k`-th character of `text` came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Normalized {
    pub text: String,
    pub align: Vec<u32>,
}
