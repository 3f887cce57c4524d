//! WordPiece training as Hugging Face `tokenizers` does it (`WordPieceTrainer`): BPE on words
//! whose non-initial characters carry the continuation prefix (`##`), the merged tokens
//! becoming the WordPiece vocabulary. Not the likelihood score of the WordPiece paper: the
//! point is the same vocabulary as HF's trainer (users compare with it), deterministically.
//!
//! * `count_bert`: BERT-normalized, BERT-pre-tokenized word counts of texts, in parallel.
//! * `train`: HF's `BpeTrainer::do_train` with a prefix, step for step: special tokens first
//!   (ids `0..`), then the alphabet (characters of the words, weighted by count; with
//!   `limit_alphabet`, the least frequent dropped) in code point order, then the prefixed
//!   symbols (`##c`) of the characters seen after a word's first character, then one token
//!   per merge. A merge joins the left token and the right token minus its prefix; the most
//!   frequent pair wins, ties to the smallest `(left id, right id)`; a joined string that is
//!   already a token reuses its id. HF's bookkeeping is kept where it can change a choice:
//!   a merged pair's own count is not decreased, a queue entry only merges the words it was
//!   pushed with, and the per-word count changes are HF's (`Word::merge`).
//!
//! Where HF is not deterministic (its hash maps are seeded per process, so two HF runs on
//! the same corpus can give different vocabularies): HF numbers the prefixed symbols in its
//! word map's order; here they are numbered in code point order (or in a given order, which
//! lets tests reproduce one HF run exactly). HF's `limit_alphabet` drops characters of equal
//! count in any order; here the higher code points go first.
//!
//! It does not read files or decide the Python API (see `tokenmill.train.wordpiece`).

use std::cmp::{Ordering as CmpOrdering, Reverse};
use std::collections::BinaryHeap;
use std::sync::atomic::Ordering;

use rustc_hash::FxHashMap;

use crate::error::CoreError;
use crate::normalize::{BertNormalizer, Normalized};
use crate::pretokenize::bert::for_each_word;
use crate::train::count::WordCounts;
use crate::train::merge::Control;

type Pair = (u32, u32);

/// Texts above this many bytes are cut (before ASCII whitespace) so one text uses every thread.
const PART: usize = 1 << 18;

/// Counts the words of `texts` after BERT normalization and pre-tokenization into `counts`,
/// on up to `threads` threads; returns the UTF-8 bytes of text read.
///
/// Large texts are cut just before an ASCII space, tab, CR or LF: that character is a word
/// boundary under every normalizer option, and it is a starter, so NFD reordering (accent
/// stripping) never crosses it.
pub fn count_bert(
    counts: &mut WordCounts,
    texts: &[&str],
    normalizer: &BertNormalizer,
    threads: usize,
    control: &Control,
) -> Result<u64, CoreError> {
    let mut items: Vec<&str> = Vec::with_capacity(texts.len());
    for &t in texts {
        cut_text(t, &mut items);
    }
    let bytes = texts.iter().map(|t| t.len() as u64).sum();
    counts.add_owned(&items, threads, control, |text, scratch: &mut (Normalized, Vec<(char, u32)>), emit| {
        let (norm, run) = scratch;
        normalizer.normalize_into(text, norm, run);
        let s = norm.text.as_bytes();
        for_each_word(&norm.text, |b0, b1, _| emit(&s[b0..b1]));
    })?;
    Ok(bytes)
}

/// Pushes `text` onto `items`, cut into parts of about `PART` bytes before ASCII whitespace.
fn cut_text<'t>(text: &'t str, items: &mut Vec<&'t str>) {
    let b = text.as_bytes();
    let mut start = 0;
    while b.len() - start > 2 * PART {
        let from = start + PART;
        match b[from..].iter().position(|c| matches!(c, b' ' | b'\n' | b'\t' | b'\r')) {
            Some(k) => {
                items.push(&text[start..from + k]);
                start = from + k;
            }
            None => break,
        }
    }
    if start < b.len() {
        items.push(&text[start..]);
    }
}

/// What `train` should do (HF's `BpeTrainer` options that WordPiece training uses).
#[derive(Debug, Clone, Default)]
pub struct WordPieceConfig {
    /// Stop when the vocabulary (special tokens included) has this many tokens.
    pub vocab_size: usize,
    /// A pair merges only if its count is at least this.
    pub min_frequency: u64,
    /// Special tokens, ids `0..` in this order (duplicates skipped).
    pub special_tokens: Vec<String>,
    /// Keep at most this many characters in the alphabet (the most frequent).
    pub limit_alphabet: Option<usize>,
    /// The continuation prefix (`##`).
    pub prefix: String,
    /// Prefixed symbols are numbered in this order of their characters first, then the others
    /// in code point order (to reproduce an HF run, whose order is its hash map's).
    pub symbol_order: Vec<char>,
}

/// The result of `train`.
#[derive(Debug, Clone, Default)]
pub struct WordPieceOutput {
    /// Every token, id order.
    pub vocab: Vec<String>,
    /// Characters in the alphabet.
    pub alphabet: usize,
    /// Prefixed single-character symbols.
    pub prefixed: usize,
    /// Merges made (a merge whose string already was a token makes none).
    pub merges: usize,
}

/// A queue entry: HF's `Merge` (count, pair and the words to merge in); ordered by count,
/// then by the smaller pair.
struct Entry {
    count: u64,
    pair: Pair,
    pos: Vec<u32>,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.count == o.count && self.pair == o.pair
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> CmpOrdering {
        (self.count, Reverse(self.pair)).cmp(&(o.count, Reverse(o.pair)))
    }
}

/// The vocabulary being built: strings by id and ids by string.
#[derive(Default)]
struct Vocab {
    by_id: Vec<String>,
    ids: FxHashMap<String, u32>,
}

impl Vocab {
    fn id_or_add(&mut self, s: &str) -> Result<u32, CoreError> {
        if let Some(&id) = self.ids.get(s) {
            return Ok(id);
        }
        let id = u32::try_from(self.by_id.len()).map_err(|_| CoreError::Input("more than 2**32 tokens".into()))?;
        self.by_id.push(s.to_owned());
        self.ids.insert(s.to_owned(), id);
        Ok(id)
    }
}

/// Trains on `words` (`(word, count)`, any order: they are sorted first). See the module
/// documentation for the rule.
pub fn train(
    mut words: Vec<(String, u64)>,
    config: &WordPieceConfig,
    control: &Control,
) -> Result<WordPieceOutput, CoreError> {
    words.sort_unstable();
    let mut vocab = Vocab::default();
    for s in &config.special_tokens {
        vocab.id_or_add(s)?;
    }
    // The alphabet: characters by total count; the least frequent dropped past the limit.
    let mut chars: FxHashMap<char, u64> = FxHashMap::default();
    for (w, n) in &words {
        for c in w.chars() {
            let e = chars.entry(c).or_insert(0);
            *e = e.saturating_add(*n);
        }
    }
    let mut kept: Vec<(char, u64)> = chars.into_iter().collect();
    if let Some(limit) = config.limit_alphabet {
        let drop = kept.len().saturating_sub(limit);
        kept.sort_unstable_by_key(|&(c, n)| (n, Reverse(c)));
        kept.drain(..drop);
    }
    kept.sort_unstable_by_key(|&(c, _)| c);
    let before = vocab.by_id.len();
    for (c, _) in &kept {
        vocab.id_or_add(c.encode_utf8(&mut [0; 4]))?;
    }
    let alphabet = vocab.by_id.len() - before;

    // Prefixed symbols: numbered in `symbol_order`, then in code point order.
    let in_alphabet = |c: char, v: &Vocab| v.ids.contains_key(c.encode_utf8(&mut [0; 4]) as &str);
    let mut later: Vec<char> = Vec::new();
    {
        let mut seen: FxHashMap<char, ()> = FxHashMap::default();
        for (w, _) in &words {
            for c in w.chars().skip(1) {
                if seen.insert(c, ()).is_none() && in_alphabet(c, &vocab) {
                    later.push(c);
                }
            }
        }
    }
    let rank: FxHashMap<char, usize> = config.symbol_order.iter().enumerate().map(|(i, &c)| (c, i)).collect();
    later.sort_unstable_by_key(|c| (rank.get(c).copied().unwrap_or(usize::MAX), *c));
    let before = vocab.by_id.len();
    let mut buf = String::new();
    for &c in &later {
        buf.clear();
        buf.push_str(&config.prefix);
        buf.push(c);
        vocab.id_or_add(&buf)?;
    }
    let prefixed = vocab.by_id.len() - before;

    // Words as symbol ids (characters outside the alphabet are left out, as in HF).
    let mut syms: Vec<Vec<u32>> = Vec::with_capacity(words.len());
    let mut counts: Vec<u64> = Vec::with_capacity(words.len());
    for (w, n) in words.drain(..) {
        let mut ids = Vec::with_capacity(w.len());
        for (i, c) in w.chars().enumerate() {
            if !in_alphabet(c, &vocab) {
                continue;
            }
            buf.clear();
            if i > 0 {
                buf.push_str(&config.prefix);
            }
            buf.push(c);
            ids.push(vocab.id_or_add(&buf)?);
        }
        syms.push(ids);
        counts.push(n);
    }
    let merges = merge_loop(&mut syms, &counts, &mut vocab, config, control)?;
    Ok(WordPieceOutput { vocab: vocab.by_id, alphabet, prefixed, merges })
}

/// HF's merge loop (see the module documentation); returns the number of merges made.
fn merge_loop(
    words: &mut [Vec<u32>],
    counts: &[u64],
    vocab: &mut Vocab,
    config: &WordPieceConfig,
    control: &Control,
) -> Result<usize, CoreError> {
    let mut pair_counts: FxHashMap<Pair, i128> = FxHashMap::default();
    let mut where_: FxHashMap<Pair, Vec<u32>> = FxHashMap::default();
    for (wi, w) in words.iter().enumerate() {
        for p in w.windows(2) {
            let pair = (p[0], p[1]);
            *pair_counts.entry(pair).or_insert(0) += counts[wi] as i128;
            let l = where_.entry(pair).or_default();
            if l.last() != Some(&(wi as u32)) {
                l.push(wi as u32);
            }
        }
    }
    let mut queue: BinaryHeap<Entry> = BinaryHeap::with_capacity(where_.len());
    push_entries(&mut queue, &mut where_, &pair_counts);
    let mut made = 0usize;
    let mut joined = String::new();
    while vocab.by_id.len() < config.vocab_size {
        control.check()?;
        let Some(mut top) = queue.pop() else { break };
        let current = pair_counts.get(&top.pair).copied().unwrap_or(0);
        if top.count as i128 != current {
            top.count = current.max(0) as u64;
            queue.push(top);
            continue;
        }
        if top.count < 1 || config.min_frequency > top.count {
            break;
        }
        let (a, b) = top.pair;
        let left = vocab.by_id.get(a as usize).map_or("", |s| s.as_str());
        let right = vocab.by_id.get(b as usize).map_or("", |s| s.as_str());
        joined.clear();
        joined.push_str(left);
        joined.push_str(right.strip_prefix(config.prefix.as_str()).unwrap_or(right));
        let n_before = vocab.by_id.len();
        let id = vocab.id_or_add(&joined)?;
        made += usize::from(vocab.by_id.len() > n_before);
        for &wi in &top.pos {
            let (Some(w), Some(&c)) = (words.get_mut(wi as usize), counts.get(wi as usize)) else { continue };
            merge_word(w, a, b, id, |pair, d| {
                *pair_counts.entry(pair).or_insert(0) += d as i128 * c as i128;
                if d > 0 {
                    let l = where_.entry(pair).or_default();
                    if l.last() != Some(&wi) {
                        l.push(wi);
                    }
                }
            });
        }
        push_entries(&mut queue, &mut where_, &pair_counts);
        control.merges_done.fetch_add(1, Ordering::Relaxed);
    }
    Ok(made)
}

/// Pushes an entry for every pair in `where_` (emptied) whose count is positive.
fn push_entries(queue: &mut BinaryHeap<Entry>, where_: &mut FxHashMap<Pair, Vec<u32>>, counts: &FxHashMap<Pair, i128>) {
    // Sorted so the heap's layout (and so the order of equal entries) is the same every run.
    let mut todo: Vec<(Pair, Vec<u32>)> = where_.drain().collect();
    todo.sort_unstable_by_key(|(p, _)| *p);
    for (pair, mut pos) in todo {
        let count = counts.get(&pair).copied().unwrap_or(0);
        if count > 0 {
            pos.sort_unstable();
            pos.dedup();
            queue.push(Entry { count: u64::try_from(count).unwrap_or(u64::MAX), pair, pos });
        }
    }
}

/// Replaces every `(a, b)` in `w` by `new`, left to right without overlaps, reporting HF's
/// count changes (`Word::merge`): for each occurrence, the pair with the symbol before it
/// (as merged so far) goes and `(before, new)` comes; the pair with the original symbol
/// after it goes and `(new, after)` comes. The merged pair itself is not reported.
fn merge_word(w: &mut Vec<u32>, a: u32, b: u32, new: u32, mut delta: impl FnMut(Pair, i64)) {
    let n = w.len();
    let (mut r, mut j) = (0usize, 0usize);
    while r < n {
        let cur = w[r];
        if cur == a && r + 1 < n && w[r + 1] == b {
            if j > 0 {
                let before = w[j - 1];
                delta((before, a), -1);
                delta((before, new), 1);
            }
            if r + 2 < n {
                let after = w[r + 2];
                delta((b, after), -1);
                delta((new, after), 1);
            }
            w[j] = new;
            r += 2;
        } else {
            w[j] = cur;
            r += 1;
        }
        j += 1;
    }
    w.truncate(j);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vocab_size: usize) -> WordPieceConfig {
        WordPieceConfig {
            vocab_size,
            min_frequency: 0,
            special_tokens: vec!["[UNK]".into()],
            prefix: "##".into(),
            ..Default::default()
        }
    }

    #[test]
    fn merge_word_reports_hf_changes() {
        // "a a a a" merging (a, a) -> X: HF reports (a,a)-1 (the middle pair), (X,a)+1-1, (X,X)+1.
        let mut w = vec![0, 0, 0, 0];
        let mut got = Vec::new();
        merge_word(&mut w, 0, 0, 9, |p, d| got.push((p, d)));
        assert_eq!(w, vec![9, 9]);
        assert_eq!(got, vec![((0, 0), -1), ((9, 0), 1), ((9, 0), -1), ((9, 9), 1)]);
    }

    #[test]
    fn small_corpus() {
        // tokenizers 0.23.3: WordPieceTrainer(vocab_size=13, special_tokens=["[UNK]"]) on
        // words {"hug": 10, "pug": 5, "hugs": 5} (train_from_iterator) gave, in one run:
        // [UNK] g h p s u ##u ##g ##s ##ug hug pug hugs (the ## symbols' order varies by run).
        let words = vec![("hug".to_string(), 10), ("pug".to_string(), 5), ("hugs".to_string(), 5)];
        let mut cfg = config(13);
        cfg.symbol_order = vec!['u', 'g', 's'];
        let out = train(words.clone(), &cfg, &Control::default()).unwrap();
        assert_eq!(out.vocab, ["[UNK]", "g", "h", "p", "s", "u", "##u", "##g", "##s", "##ug", "hug", "pug", "hugs"]);
        assert_eq!((out.alphabet, out.prefixed, out.merges), (5, 3, 4));
        // By default the ## symbols go in code point order.
        let out = train(words, &config(13), &Control::default()).unwrap();
        assert_eq!(&out.vocab[6..9], ["##g", "##s", "##u"]);
    }

    #[test]
    fn counts_do_not_depend_on_threads() {
        let text = "Héllo, WORLD! naïve 東京 x\u{0}y\n".repeat(100_000);
        let docs = [text.as_str(), "  ", "Ab ab"];
        let norm = BertNormalizer::default();
        let (mut one, mut two) = (WordCounts::default(), WordCounts::default());
        let bytes = count_bert(&mut one, &docs, &norm, 1, &Control::default()).unwrap();
        assert_eq!(bytes, count_bert(&mut two, &docs, &norm, 2, &Control::default()).unwrap());
        assert_eq!(one.sorted(), two.sorted());
        let got: Vec<(&[u8], u64)> = one.sorted();
        let want: Vec<(&[u8], u64)> = vec![
            (b"!", 100_000),
            (b",", 100_000),
            (b"ab", 2),
            ("hello".as_bytes(), 100_000),
            (b"naive", 100_000),
            (b"world", 100_000),
            (b"xy", 100_000),
            ("京".as_bytes(), 100_000),
            ("東".as_bytes(), 100_000),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn cuts_before_ascii_whitespace() {
        let text = "ab ".repeat(PART);
        let mut items = Vec::new();
        cut_text(&text, &mut items);
        assert!(items.len() > 1);
        assert_eq!(items.concat(), text);
        assert!(items[1..].iter().all(|s| s.starts_with(' ')));
    }
}
