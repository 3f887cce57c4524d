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

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::error::CoreError;
pub(crate) use linmax::{LinMax, NONE};

/// A WordPiece vocabulary and its options. Immutable once built.
#[derive(Debug, Clone)]
pub struct WordPiece {
    search: Search,
    n_tokens: usize,
    /// The id of the empty token, if the vocabulary has one (no trie node spells it).
    empty_id: Option<u32>,
    unk_id: u32,
    unk_token: String,
    prefix: String,
    max_input_chars_per_word: usize,
}

/// How the longest match is found.
#[derive(Debug, Clone)]
enum Search {
    /// The LinMaxMatch trie (it also answers `token_to_id`).
    Trie(Arc<LinMax>),
    /// Vocabularies over the trie's budget: hash maps.
    Maps(Arc<Maps>),
}

#[derive(Debug)]
struct Maps {
    initial: FxHashMap<Box<str>, u32>,
    continuing: FxHashMap<Box<str>, u32>,
    /// Longest key (in bytes) of `initial` and of `continuing`.
    max_initial: usize,
    max_continuing: usize,
}

impl Maps {
    fn new(sorted: &[(&str, u32)], prefix: &str) -> Self {
        let initial: FxHashMap<Box<str>, u32> = sorted.iter().map(|&(t, id)| (t.into(), id)).collect();
        let continuing: FxHashMap<Box<str>, u32> =
            sorted.iter().filter_map(|&(t, id)| t.strip_prefix(prefix).map(|rest| (rest.into(), id))).collect();
        let max_initial = initial.keys().map(|k| k.len()).max().unwrap_or(0);
        let max_continuing = continuing.keys().map(|k| k.len()).max().unwrap_or(0);
        Maps { initial, continuing, max_initial, max_continuing }
    }
}

/// The first `(token, id)` whose id an earlier pair already has.
fn first_repeated_id<S: AsRef<str>>(vocab: &[(S, u32)]) -> Option<(&str, u32)> {
    let max = vocab.iter().map(|&(_, id)| id as usize).max().unwrap_or(0);
    // Why a bitmap when the ids are dense (they nearly always are): no hashing.
    if max < 4 * vocab.len() + 1024 {
        let mut seen = vec![false; max + 1];
        vocab.iter().find(|&&(_, id)| std::mem::replace(&mut seen[id as usize], true)).map(|(t, id)| (t.as_ref(), *id))
    } else {
        let mut seen = rustc_hash::FxHashSet::default();
        seen.reserve(vocab.len());
        vocab.iter().find(|&&(_, id)| !seen.insert(id)).map(|(t, id)| (t.as_ref(), *id))
    }
}

/// The indices `0..n` ordered by `key(i)` (bytes), ties by index.
///
/// Why not one comparison sort on the strings: most comparisons are settled by the first
/// eight bytes, so those are sorted as one big-endian integer first (no `memcmp` call per
/// comparison), and only runs that share them are compared in full.
fn sorted_order<'a>(n: usize, key: impl Fn(u32) -> &'a [u8]) -> Vec<u32> {
    let head = |k: &[u8]| {
        let mut b = [0u8; 8];
        let m = k.len().min(8);
        b[..m].copy_from_slice(&k[..m]);
        u64::from_be_bytes(b)
    };
    let mut keyed: Vec<(u64, u32)> = (0..n as u32).map(|i| (head(key(i)), i)).collect();
    radix_sort(&mut keyed, |&(k, _)| k);
    let mut order: Vec<u32> = keyed.iter().map(|&(_, i)| i).collect();
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && keyed[end].0 == keyed[start].0 {
            end += 1;
        }
        if end - start > 1 {
            order[start..end].sort_unstable_by(|&a, &b| key(a).cmp(key(b)).then(a.cmp(&b)));
        }
        start = end;
    }
    order
}

/// Sorts `items` by `key`, stably (least significant byte first, 8 bits a pass; a pass where
/// every key has the same byte is skipped). Why not a comparison sort: the vocabulary build
/// sorts tens of thousands of integer keys, and this takes a fraction of the time.
pub(crate) fn radix_sort<T: Copy>(items: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    let mut other: Vec<T> = Vec::with_capacity(items.len());
    for shift in (0..64).step_by(8) {
        let mut count = [0usize; 256];
        for x in items.iter() {
            count[(key(x) >> shift) as usize & 255] += 1;
        }
        if count.contains(&items.len()) {
            continue;
        }
        let mut at = [0usize; 256];
        let mut sum = 0;
        for (a, c) in at.iter_mut().zip(count) {
            *a = sum;
            sum += c;
        }
        other.clear();
        other.resize(items.len(), items[0]);
        for x in items.iter() {
            let d = (key(x) >> shift) as usize & 255;
            other[at[d]] = *x;
            at[d] += 1;
        }
        std::mem::swap(items, &mut other);
    }
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
        Self::build(&vocab, unk_token, continuing_subword_prefix, max_input_chars_per_word, true)
    }

    /// `new` from borrowed pairs (no copy of the tokens is made; the trie holds its own bytes).
    pub fn from_pairs<S: AsRef<str>>(
        vocab: &[(S, u32)],
        unk_token: &str,
        continuing_subword_prefix: &str,
        max_input_chars_per_word: usize,
    ) -> Result<Self, CoreError> {
        Self::build(vocab, unk_token, continuing_subword_prefix, max_input_chars_per_word, true)
    }

    fn build<S: AsRef<str>>(
        vocab: &[(S, u32)],
        unk_token: &str,
        prefix: &str,
        max_input_chars_per_word: usize,
        allow_trie: bool,
    ) -> Result<Self, CoreError> {
        if vocab.is_empty() {
            return Err(CoreError::Vocab("the WordPiece vocabulary is empty".into()));
        }
        if let Some((token, id)) = first_repeated_id(vocab) {
            return Err(CoreError::Vocab(format!(
                "WordPiece vocabulary: id {id} is given twice (second time for token {token:?}); each id must name one token"
            )));
        }
        // Sorted by bytes (then input order): duplicates are neighbours, and the trie is built
        // from sorted keys (one sort serves both).
        let tok = |i: u32| vocab[i as usize].0.as_ref();
        let order = sorted_order(vocab.len(), |i| tok(i).as_bytes());
        if let Some(w) = order.windows(2).find(|w| tok(w[0]) == tok(w[1])) {
            let (token, id) = (tok(w[1]), vocab[w[1] as usize].1);
            return Err(CoreError::Vocab(format!(
                "WordPiece vocabulary: token {token:?} is given twice (second time with id {id}); each token must appear once"
            )));
        }
        let sorted: Vec<(&str, u32)> = order.iter().map(|&i| (tok(i), vocab[i as usize].1)).collect();
        let find = |t: &str| sorted.binary_search_by(|(k, _)| (*k).cmp(t)).ok().map(|i| sorted[i].1);
        let unk_id = find(unk_token).ok_or_else(|| {
            CoreError::Vocab(format!(
                "WordPiece vocabulary: the unknown token {unk_token:?} is not in it; add it or pass the right unk_token"
            ))
        })?;
        let empty_id = find("");
        let trie = if allow_trie { LinMax::from_sorted(&sorted, prefix) } else { None };
        let search = match trie {
            Some(lm) => Search::Trie(Arc::new(lm)),
            None => Search::Maps(Arc::new(Maps::new(&sorted, prefix))),
        };
        Ok(WordPiece {
            search,
            n_tokens: vocab.len(),
            empty_id,
            unk_id,
            unk_token: unk_token.to_string(),
            prefix: prefix.to_string(),
            max_input_chars_per_word,
        })
    }

    /// The LinMaxMatch trie, if this vocabulary has one.
    pub(crate) fn linmax(&self) -> Option<&LinMax> {
        match &self.search {
            Search::Trie(lm) => Some(lm),
            Search::Maps(_) => None,
        }
    }

    /// The model of `vocab` with the hash-map search only (for tests comparing the two).
    #[cfg(test)]
    pub(crate) fn with_maps_only(vocab: &[(String, u32)], unk: &str, prefix: &str, max: usize) -> Self {
        Self::build(vocab, unk, prefix, max, false).unwrap()
    }

    pub fn vocab_size(&self) -> usize {
        self.n_tokens
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
        if token.is_empty() {
            return self.empty_id;
        }
        match &self.search {
            Search::Trie(lm) => lm.token_id(token.as_bytes()),
            Search::Maps(m) => m.initial.get(token).copied(),
        }
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
        let m = match &self.search {
            Search::Maps(m) => m,
            Search::Trie(lm) => {
                if !lm.tokenize(word.as_bytes(), ids, Some(spans)) {
                    ids.truncate(mark);
                    spans.truncate(span_mark);
                    ids.push(self.unk_id);
                    spans.push((0, n_chars as u32));
                }
                return;
            }
        };
        let (mut start, mut char_start) = (0usize, 0u32);
        while start < word.len() {
            let (map, longest) =
                if start == 0 { (&m.initial, m.max_initial) } else { (&m.continuing, m.max_continuing) };
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
        // Sparse ids take the hash-set check.
        assert!(e(vec![("a", 7), ("b", u32::MAX), ("c", u32::MAX)], "a").contains("id 4294967295 is given twice"));
        assert!(e(vec![("a", 7), ("b", u32::MAX), ("a", 9)], "a").contains("\"a\" is given twice"));
    }

    #[test]
    fn sorted_order_is_byte_order_then_index() {
        // Shared 8-byte heads, NUL bytes (a short key padded with zeros must still sort first),
        // non-ASCII and repeats.
        let keys: Vec<&[u8]> = vec![
            b"abcdefgh\x00",
            b"abcdefgh",
            b"abcdefghz",
            b"ab",
            b"ab\x00",
            b"",
            b"\xff",
            b"abcdefgh",
            b"\x00",
            b"b",
            "\u{e9}t\u{e9}".as_bytes(),
            b"abcdefga\xff",
        ];
        let got = sorted_order(keys.len(), |i| keys[i as usize]);
        let mut want: Vec<u32> = (0..keys.len() as u32).collect();
        want.sort_by(|&a, &b| keys[a as usize].cmp(keys[b as usize]).then(a.cmp(&b)));
        assert_eq!(got, want);
        let mut xs: Vec<(u64, u32)> =
            (0..5000u32).map(|i| ((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (i % 64), i)).collect();
        let mut want = xs.clone();
        want.sort_by_key(|&(k, _)| k); // stable, like the radix sort
        radix_sort(&mut xs, |&(k, _)| k);
        assert_eq!(xs, want);
    }
}
