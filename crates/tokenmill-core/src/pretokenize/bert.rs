//! BERT's pre-tokenizer, exactly as Hugging Face `tokenizers` (`BertPreTokenizer`) defines it:
//! split on whitespace (`char::is_whitespace`; removed), then isolate every punctuation
//! character (ASCII punctuation, or general category P* in HF's `unicode_categories` tables)
//! as a word of its own. Runs of punctuation give one word per character ("?!" is two words).
//!
//! It runs on normalized text and reports words as byte ranges plus the character index where
//! each starts (for offsets). What it does not do: normalize, or know about special tokens.

use unicode_categories::UnicodeCategories;

/// HF's `is_bert_punc`.
#[inline]
pub fn is_bert_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || (!c.is_ascii() && c.is_punctuation())
}

/// Calls `f(byte_start, byte_end, char_start)` for every word of `text`, in order.
pub fn for_each_word(text: &str, mut f: impl FnMut(usize, usize, usize)) {
    // The word being built: (byte start, char start).
    let mut word: Option<(usize, usize)> = None;
    for (ci, (bi, c)) in text.char_indices().enumerate() {
        let ws = c.is_whitespace();
        if ws || is_bert_punctuation(c) {
            if let Some((b0, c0)) = word.take() {
                f(b0, bi, c0);
            }
            if !ws {
                f(bi, bi + c.len_utf8(), ci);
            }
        } else if word.is_none() {
            word = Some((bi, ci));
        }
    }
    if let Some((b0, c0)) = word {
        f(b0, text.len(), c0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<(&str, usize)> {
        let mut v = Vec::new();
        for_each_word(s, |a, b, c| v.push((&s[a..b], c)));
        v
    }

    #[test]
    fn splits_like_hf() {
        assert_eq!(
            words("Hey friend!     How are you?!?"),
            vec![
                ("Hey", 0),
                ("friend", 4),
                ("!", 10),
                ("How", 16),
                ("are", 20),
                ("you", 24),
                ("?", 27),
                ("!", 28),
                ("?", 29)
            ]
        );
        assert_eq!(words("  a\u{3000}«b»\u{b}c "), vec![("a", 2), ("«", 4), ("b", 5), ("»", 6), ("c", 8)]);
        assert_eq!(words("$+^`"), vec![("$", 0), ("+", 1), ("^", 2), ("`", 3)]);
        assert!(words(" \t\n").is_empty());
    }
}
