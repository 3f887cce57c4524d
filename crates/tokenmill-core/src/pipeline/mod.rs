//! Encoding pipelines: normalizer -> pre-tokenizer -> model, with offsets into the original
//! text. So far one, `BertWordPiece` (BERT's normalizer and pre-tokenizer, WordPiece), which
//! gives exactly the ids and offsets of Hugging Face `tokenizers` for BERT tokenizers when no
//! special token is added (`add_special_tokens=False`) and the text holds no added token.
//!
//! Ids without offsets take the one-pass path (`bert_fused`); offsets take the three stages.
//!
//! What it does not do (yet): added/special tokens (split off by the caller) and
//! post-processing (`[CLS]`/`[SEP]`, done in Python), truncation and padding.

mod bert_fused;

use std::sync::Arc;

use crate::error::CoreError;
use crate::normalize::{BertNormalizer, Normalized};
use crate::pretokenize::bert::for_each_word;
use crate::wordpiece::WordPiece;

/// Token ids and, per token, its `(start, end)` character offsets in the original text.
pub type IdsAndOffsets = (Vec<u32>, Vec<(usize, usize)>);

/// Reusable working memory for `BertWordPiece` (one per thread).
#[derive(Debug, Default)]
pub struct BertScratch {
    normalized: Normalized,
    run: Vec<(char, u32)>,
    spans: Vec<(u32, u32)>,
}

/// BERT's normalizer, BERT's pre-tokenizer and a WordPiece model. Immutable.
#[derive(Debug, Clone)]
pub struct BertWordPiece {
    pub normalizer: BertNormalizer,
    pub model: WordPiece,
    /// The one-pass path's character classes (shared by clones and threads).
    table: Arc<bert_fused::CharTable>,
}

impl BertWordPiece {
    pub fn new(normalizer: BertNormalizer, model: WordPiece) -> Self {
        BertWordPiece { normalizer, model, table: Arc::new(bert_fused::CharTable::new(normalizer)) }
    }

    /// Appends the ids of `text` to `ids`: `encode_into` without offsets, in one pass when the
    /// model has its LinMaxMatch trie and the text no `Complex` character.
    pub fn encode_ids_into(&self, text: &str, ids: &mut Vec<u32>, scratch: &mut BertScratch) {
        if let Some(lm) = self.model.linmax() {
            if bert_fused::encode(&self.table, lm, &self.model, text, ids) {
                return;
            }
        }
        self.encode_into(text, ids, None, scratch);
    }

    /// The ids of `text` by the three stages (the one-pass path's specification; for tests).
    pub fn encode_staged(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        self.encode_into(text, &mut ids, None, &mut BertScratch::default());
        ids
    }

    /// Appends the ids of `text` to `ids` and, when `offsets` is given, each token's
    /// `(start, end)` character offsets in `text` (HF's rule: the start of the original
    /// character the token's first character came from, the end of that of its last).
    pub fn encode_into(
        &self,
        text: &str,
        ids: &mut Vec<u32>,
        mut offsets: Option<&mut Vec<(usize, usize)>>,
        scratch: &mut BertScratch,
    ) {
        let BertScratch { normalized, run, spans } = scratch;
        self.normalizer.normalize_into(text, normalized, run);
        let norm = &normalized.text;
        let align = &normalized.align;
        for_each_word(norm, |b0, b1, c0| {
            spans.clear();
            self.model.tokenize_word(&norm[b0..b1], ids, spans);
            if let Some(o) = offsets.as_deref_mut() {
                o.extend(
                    spans
                        .iter()
                        .map(|&(s, e)| (align[c0 + s as usize] as usize, align[c0 + e as usize - 1] as usize + 1)),
                );
            }
        });
    }

    /// The ids of `text`.
    pub fn encode(&self, text: &str, scratch: &mut BertScratch) -> Result<Vec<u32>, CoreError> {
        let mut ids = Vec::new();
        self.encode_ids_into(text, &mut ids, scratch);
        Ok(ids)
    }

    /// The ids of `text` and each token's character offsets in `text`.
    pub fn encode_with_offsets(&self, text: &str) -> Result<IdsAndOffsets, CoreError> {
        let (mut ids, mut offsets) = (Vec::new(), Vec::new());
        self.encode_into(text, &mut ids, Some(&mut offsets), &mut BertScratch::default());
        Ok((ids, offsets))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_point_into_the_original() {
        let vocab = ["[UNK]", "hello", "world", "!", "##s", "中", "e"];
        let v = vocab.iter().enumerate().map(|(i, t)| (t.to_string(), i as u32)).collect();
        let p = BertWordPiece::new(BertNormalizer::default(), WordPiece::new(v, "[UNK]", "##", 100).unwrap());
        let (ids, off) = p.encode_with_offsets("  HÉLLO\u{0} Worlds!中x É").unwrap();
        assert_eq!(ids, vec![1, 2, 4, 3, 5, 0, 6]);
        assert_eq!(off, vec![(2, 7), (9, 14), (14, 15), (15, 16), (16, 17), (17, 18), (19, 20)]);
    }
}
