//! The WordPiece model: greedy longest-match-first within one word, exactly as Hugging Face
//! `tokenizers` (`models::WordPiece::tokenize`) does it.
//!
//! The rule: from the start of the word, take the longest vocabulary token that matches there
//! (after the first, a piece is looked up as `continuing_subword_prefix + piece`), and go on
//! after it; if at some position nothing matches, the whole word is one unknown token. A word
//! of more than `max_input_chars_per_word` characters is one unknown token too.
//!
//! How: the linear-time LinMaxMatch trie (`linmax`: failure links and failure pops, no
//! backtracking on a miss). A vocabulary whose failure pops would be too large (contrived ones)
//! keeps the hash-map search: two maps, one for word-initial tokens and one for continuation
//! tokens stored without their prefix, each search starting at the longest token length of its
//! map (quadratic in that length per word, at worst). Both give HF's answer; the tests compare
//! them. What this module does not do: normalize or split words (`normalize`, `pretokenize`),
//! special tokens, or training.

mod linmax;

use rustc_hash::FxHashMap;

use crate::error::CoreError;
pub(crate) use linmax::{LinMax, NONE};

/// A WordPiece vocabulary and its options. Immutable once built.
#[derive(Debug, Clone)]
pub struct WordPiece {
    initial: FxHashMap<Box<str>, u32>,
    continuing: FxHashMap<Box<str>, u32>,
    /// Longest key (in bytes) of `initial` and of `continuing`.
    max_initial: usize,
    max_continuing: usize,
    unk_id: u32,
    unk_token: String,
    prefix: String,
    max_input_chars_per_word: usize,
    /// The LinMaxMatch trie (None: over its size budget; the maps above are used).
    linmax: Option<std::sync::Arc<LinMax>>,
}

impl WordPiece {
    /// Builds the model from `(token, id)` pairs. Errors (`CoreError::Vocab`): an empty
    /// vocabulary, a token or an id given twice, an unknown token that is not in it.
    pub fn new(
        vocab: Vec<(String, u32)>,
        unk_token: &str,
        continuing_subword_prefix: &str,
        max_input_chars_per_word: usize,
    ) -> Result<Self, CoreError> {
        if vocab.is_empty() {
            return Err(CoreError::Vocab("the WordPiece vocabulary is empty".into()));
        }
        // The trie is built on another thread while this one builds the token map (loading
        // a 30k-token vocabulary takes about half the time).
        let (initial, linmax) = std::thread::scope(|s| {
            let trie = s.spawn(|| LinMax::new(vocab.iter().map(|(t, id)| (t.as_str(), *id)), continuing_subword_prefix));
            let initial = Self::token_map(&vocab);
            let linmax = trie.join().unwrap_or(None);
            (initial, linmax)
        });
        let initial = initial?;
        let unk_id = *initial.get(unk_token).ok_or_else(|| {
            CoreError::Vocab(format!(
                "WordPiece vocabulary: the unknown token {unk_token:?} is not in it; add it or pass the right unk_token"
            ))
        })?;
        let max_initial = initial.keys().map(|k| k.len()).max().unwrap_or(0);
        // The continuation map serves only the hash-map search (no trie).
        let continuing = if linmax.is_some() {
            FxHashMap::default()
        } else {
            Self::continuing_map(&initial, continuing_subword_prefix)
        };
        let max_continuing = continuing.keys().map(|k| k.len()).max().unwrap_or(0);
        let linmax = linmax.map(std::sync::Arc::new);
        Ok(WordPiece {
            initial,
            continuing,
            max_initial,
            max_continuing,
            unk_id,
            unk_token: unk_token.to_string(),
            prefix: continuing_subword_prefix.to_string(),
            max_input_chars_per_word,
            linmax,
        })
    }

    /// Token -> id, refusing a token or an id given twice.
    fn token_map(vocab: &[(String, u32)]) -> Result<FxHashMap<Box<str>, u32>, CoreError> {
        let mut initial: FxHashMap<Box<str>, u32> = FxHashMap::default();
        initial.reserve(vocab.len());
        let mut ids = rustc_hash::FxHashSet::default();
        ids.reserve(vocab.len());
        for (token, id) in vocab {
            if !ids.insert(*id) {
                return Err(CoreError::Vocab(format!(
                    "WordPiece vocabulary: id {id} is given twice (second time for token {token:?}); each id must name one token"
                )));
            }
            if initial.insert(token.as_str().into(), *id).is_some() {
                return Err(CoreError::Vocab(format!(
                    "WordPiece vocabulary: token {token:?} is given twice (second time with id {id}); each token must appear once"
                )));
            }
        }
        Ok(initial)
    }

    /// The continuation tokens without their prefix -> id.
    fn continuing_map(initial: &FxHashMap<Box<str>, u32>, prefix: &str) -> FxHashMap<Box<str>, u32> {
        initial.iter().filter_map(|(t, &id)| t.strip_prefix(prefix).map(|rest| (rest.into(), id))).collect()
    }

    /// The LinMaxMatch trie, if this vocabulary has one.
    pub(crate) fn linmax(&self) -> Option<&LinMax> {
        self.linmax.as_deref()
    }

    /// This model with the hash-map search only (for tests comparing the two).
    #[cfg(test)]
    pub(crate) fn without_linmax(mut self) -> Self {
        self.linmax = None;
        self.continuing = Self::continuing_map(&self.initial, &self.prefix);
        self.max_continuing = self.continuing.keys().map(|k| k.len()).max().unwrap_or(0);
        self
    }

    pub fn vocab_size(&self) -> usize {
        self.initial.len()
    }

    pub fn unk_id(&self) -> u32 {
        self.unk_id
    }

    pub fn unk_token(&self) -> &str {
        &self.unk_token
    }

    pub fn continuing_subword_prefix(&self) -> &str {
        &self.prefix
    }

    pub fn max_input_chars_per_word(&self) -> usize {
        self.max_input_chars_per_word
    }

    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.initial.get(token).copied()
    }

    /// Appends the ids of one (non-empty) word to `ids` and, per token, its character span
    /// `(start, end)` within the word to `spans`.
    pub fn tokenize_word(&self, word: &str, ids: &mut Vec<u32>, spans: &mut Vec<(u32, u32)>) {
        let n_chars = if word.is_ascii() { word.len() } else { word.chars().count() };
        if n_chars > self.max_input_chars_per_word {
            ids.push(self.unk_id);
            spans.push((0, n_chars as u32));
            return;
        }
        let (mark, span_mark) = (ids.len(), spans.len());
        if let Some(lm) = &self.linmax {
            if !lm.tokenize(word.as_bytes(), ids, Some(spans)) {
                ids.truncate(mark);
                spans.truncate(span_mark);
                ids.push(self.unk_id);
                spans.push((0, n_chars as u32));
            }
            return;
        }
        let (mut start, mut char_start) = (0usize, 0u32);
        while start < word.len() {
            let (map, longest) =
                if start == 0 { (&self.initial, self.max_initial) } else { (&self.continuing, self.max_continuing) };
            let mut end = word.len().min(start + longest);
            while !word.is_char_boundary(end) {
                end -= 1;
            }
            let mut found = None;
            while end > start {
                if let Some(&id) = map.get(&word[start..end]) {
                    found = Some(id);
                    break;
                }
                end -= 1;
                while !word.is_char_boundary(end) {
                    end -= 1;
                }
            }
            let Some(id) = found else {
                ids.truncate(mark);
                spans.truncate(span_mark);
                ids.push(self.unk_id);
                spans.push((0, n_chars as u32));
                return;
            };
            // Characters in the piece: its bytes that are not UTF-8 continuation bytes.
            let len = word.as_bytes()[start..end].iter().filter(|&&b| (b as i8) >= -0x40).count() as u32;
            ids.push(id);
            spans.push((char_start, char_start + len));
            char_start += len;
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(tokens: &[&str], max: usize) -> WordPiece {
        let v = tokens.iter().enumerate().map(|(i, t)| (t.to_string(), i as u32)).collect();
        WordPiece::new(v, "[UNK]", "##", max).unwrap()
    }

    fn tok(m: &WordPiece, w: &str) -> (Vec<u32>, Vec<(u32, u32)>) {
        let (mut ids, mut spans) = (Vec::new(), Vec::new());
        m.tokenize_word(w, &mut ids, &mut spans);
        (ids, spans)
    }

    #[test]
    fn greedy_longest_first() {
        let m = model(&["[UNK]", "un", "##aff", "##able", "una", "##ffable", "é", "##é"], 100);
        assert_eq!(tok(&m, "unaffable"), (vec![4, 5], vec![(0, 3), (3, 9)]));
        assert_eq!(tok(&m, "unaffablex"), (vec![0], vec![(0, 10)]));
        // Appending to non-empty buffers: only this word's partial tokens are taken back.
        let (mut ids, mut spans) = (vec![7], vec![(0, 1), (1, 2)]);
        m.tokenize_word("unx", &mut ids, &mut spans);
        assert_eq!((ids, spans), (vec![7, 0], vec![(0, 1), (1, 2), (0, 3)]));
        assert_eq!(tok(&m, "éé"), (vec![6, 7], vec![(0, 1), (1, 2)]));
        let short = model(&["[UNK]", "a", "##a"], 3);
        assert_eq!(tok(&short, "aaa"), (vec![1, 2, 2], vec![(0, 1), (1, 2), (2, 3)]));
        assert_eq!(tok(&short, "aaaa"), (vec![0], vec![(0, 4)]));
    }

    #[test]
    fn bad_vocabularies() {
        let e = |v: Vec<(&str, u32)>, unk: &str| {
            let v = v.into_iter().map(|(t, i)| (t.to_string(), i)).collect();
            WordPiece::new(v, unk, "##", 100).unwrap_err().to_string()
        };
        assert!(e(vec![], "[UNK]").contains("empty"));
        assert!(e(vec![("a", 0), ("a", 1)], "a").contains("\"a\" is given twice"));
        assert!(e(vec![("a", 0), ("b", 0)], "a").contains("id 0 is given twice"));
        assert!(e(vec![("a", 0)], "[UNK]").contains("unknown token \"[UNK]\""));
    }
}
