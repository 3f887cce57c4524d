//! The BPE training merge loop: learn merges on weighted words of symbol ids.
//!
//! The rule is the one in `tokenmill/_reference/train_bpe.py` (the specification; tests check
//! that both give the same merges): take the adjacent pair with the highest count over all
//! words (overlapping pairs count separately), ties going to the smallest `(left, right)`;
//! its token is the concatenation of both symbols' bytes, reusing an existing id when those
//! bytes already are a token; replace it in every word left to right without overlaps.
//!
//! How: pair counts live in a hash map, a max-heap holds `(count, pair)` entries that may be
//! stale (a popped entry whose count no longer matches is pushed back with the current count),
//! and each pair knows the words it occurs in, so a merge only touches those words. A word's
//! pair counts are updated from the positions that change, not recounted; a very long word
//! also keeps where each pair occurs in it (`long_word`), so a merge costs what it changes.
//! Counts are `u64`; nothing here can overflow below 2^64 total pre-token occurrences.
//!
//! It does not count pre-tokens (see `count`) or decide ids for special tokens.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rustc_hash::FxHashMap;

use crate::error::CoreError;
use crate::train::long_word::LongWord;

type Pair = (u32, u32);

/// One learned merge: `left` and `right` became `id` (an existing id when the bytes were
/// already a token); `count` is the pair's count when it was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merge {
    pub left: u32,
    pub right: u32,
    pub id: u32,
    pub count: u64,
}

/// The symbols training may use: the bytes of every existing id, both ways.
#[derive(Debug, Default, Clone)]
pub struct TokenSet {
    bytes: FxHashMap<u32, Box<[u8]>>,
    ids: FxHashMap<Box<[u8]>, u32>,
}

impl TokenSet {
    /// Builds the set from `(id, bytes)` pairs; an id or a byte string given twice is an error.
    pub fn new(tokens: impl IntoIterator<Item = (u32, Vec<u8>)>) -> Result<Self, CoreError> {
        let mut set = TokenSet::default();
        for (id, b) in tokens {
            set.insert(id, b)?;
        }
        Ok(set)
    }

    /// Adds token `id` with `bytes`; either one already present is an error.
    pub fn insert(&mut self, id: u32, bytes: Vec<u8>) -> Result<(), CoreError> {
        let b: Box<[u8]> = bytes.into();
        if self.ids.contains_key(&b) {
            return Err(CoreError::Input(format!(
                "token bytes {:?} are given twice",
                crate::bpe::vocab::escape_bytes(&b)
            )));
        }
        if self.bytes.contains_key(&id) {
            return Err(CoreError::Input(format!("token id {id} is given twice")));
        }
        self.ids.insert(b.clone(), id);
        self.bytes.insert(id, b);
        Ok(())
    }

    /// The bytes of `id`.
    pub fn get(&self, id: u32) -> Option<&[u8]> {
        self.bytes.get(&id).map(|b| &b[..])
    }

    /// The id of `bytes`.
    pub fn id_of(&self, bytes: &[u8]) -> Option<u32> {
        self.ids.get(bytes).copied()
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True when there are no tokens.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// What training should do.
#[derive(Debug, Clone, Copy)]
pub struct MergeConfig {
    /// Number of new tokens to make.
    pub n_new: usize,
    /// A pair merges only if its count is at least this (0 and 1 mean the same).
    pub min_frequency: u64,
    /// The id of the first new token; the following ones count up from it.
    pub next_id: u32,
    /// Words longer than this many symbols are merged through a position index
    /// (`long_word`), so a merge costs what it changes, not the word's length.
    pub long_word: usize,
}

/// The default `MergeConfig::long_word`.
/// Why this high: the index costs ~80 bytes per symbol, so it pays only where rewriting the
/// word at every merge would be slow (at 256, 60 MB of CJK text took 1.2-6.9 GB).
pub const LONG_WORD: usize = 4096;

/// A word of the merge loop: a plain vector, or a linked list with a pair index when long.
enum Word {
    Short(Vec<u32>),
    Long(Box<LongWord>),
}

impl Word {
    fn len(&self) -> usize {
        match self {
            Word::Short(w) => w.len(),
            Word::Long(w) => w.len(),
        }
    }
}

/// Shared with the caller while training runs: progress to show and a flag to stop.
#[derive(Debug, Default)]
pub struct Control {
    /// Merges done so far.
    pub merges_done: AtomicU64,
    /// Set to stop training; the loop then returns `CoreError::Cancelled`.
    pub cancel: AtomicBool,
    /// When set, each merge is also appended to `log` as it is learned (for verbose output).
    pub verbose: AtomicBool,
    /// Merges learned and not yet taken by the caller (only when `verbose`).
    pub log: std::sync::Mutex<Vec<Merge>>,
}

impl Control {
    /// `Err(Cancelled)` once `cancel` is set.
    pub fn check(&self) -> Result<(), CoreError> {
        if self.cancel.load(Ordering::Relaxed) {
            Err(CoreError::Cancelled)
        } else {
            Ok(())
        }
    }
}

/// The result of `train`.
#[derive(Debug, Clone, Default)]
pub struct MergeOutput {
    /// The merges, in the order they were learned.
    pub merges: Vec<Merge>,
    /// The new tokens, `(id, bytes)`, in id order.
    pub new_tokens: Vec<(u32, Vec<u8>)>,
    /// Sum over words of count x symbols after the last merge: the training text's length
    /// in tokens (special tokens excluded).
    pub tokens_after: u64,
}

/// Learns merges on `words` (symbol ids) weighted by `counts`; `tokens` is extended with the
/// new tokens. See the module documentation for the rule.
pub fn train(
    words: Vec<Vec<u32>>,
    counts: &[u64],
    tokens: &mut TokenSet,
    config: MergeConfig,
    control: &Control,
) -> Result<MergeOutput, CoreError> {
    if words.len() != counts.len() {
        return Err(CoreError::Input(format!("{} words but {} counts", words.len(), counts.len())));
    }
    for (i, w) in words.iter().enumerate() {
        if let Some(&bad) = w.iter().find(|&&s| tokens.get(s).is_none()) {
            return Err(CoreError::Input(format!("word {i} uses symbol id {bad}, which is not a token")));
        }
    }
    let min_count = config.min_frequency.max(1);
    let mut pair_counts: FxHashMap<Pair, u64> = FxHashMap::default();
    let mut where_: FxHashMap<Pair, Vec<u32>> = FxHashMap::default();
    for (wi, w) in words.iter().enumerate() {
        let c = counts[wi];
        if c == 0 {
            continue;
        }
        for p in w.windows(2) {
            let pair = (p[0], p[1]);
            *pair_counts.entry(pair).or_insert(0) += c;
            let list = where_.entry(pair).or_default();
            // Consecutive duplicates only: a word is scanned once, in order.
            if list.last() != Some(&(wi as u32)) {
                list.push(wi as u32);
            }
        }
    }
    let mut heap: BinaryHeap<(u64, Reverse<Pair>)> = pair_counts.iter().map(|(&p, &c)| (c, Reverse(p))).collect();
    let mut words: Vec<Word> = words
        .into_iter()
        .map(|w| if w.len() > config.long_word { Word::Long(Box::new(LongWord::new(w))) } else { Word::Short(w) })
        .collect();

    let mut out = MergeOutput::default();
    let mut next_id = config.next_id;
    let mut made = 0usize;
    // Deltas of one merge, applied after all its words are rewritten.
    let mut deltas: FxHashMap<Pair, i128> = FxHashMap::default();
    let mut grown: FxHashMap<Pair, Vec<u32>> = FxHashMap::default();
    while made < config.n_new {
        control.check()?;
        let Some((count, Reverse(pair))) = heap.pop() else { break };
        let current = pair_counts.get(&pair).copied().unwrap_or(0);
        if current != count {
            if current > 0 {
                heap.push((current, Reverse(pair)));
            }
            continue;
        }
        if count < min_count {
            break;
        }
        let (a, b) = pair;
        let joined: Vec<u8> = [tokens.get(a).unwrap_or_default(), tokens.get(b).unwrap_or_default()].concat();
        let id = match tokens.id_of(&joined) {
            Some(id) => id,
            None => {
                if next_id == u32::MAX || tokens.get(next_id).is_some() {
                    return Err(CoreError::Input(format!("id {next_id} for a new token is already taken")));
                }
                let id = next_id;
                next_id += 1;
                made += 1;
                out.new_tokens.push((id, joined.clone()));
                tokens.insert(id, joined)?;
                id
            }
        };
        let merge = Merge { left: a, right: b, id, count };
        out.merges.push(merge);
        if control.verbose.load(Ordering::Relaxed) {
            if let Ok(mut log) = control.log.lock() {
                log.push(merge);
            }
        }

        let mut list = where_.remove(&pair).unwrap_or_default();
        list.sort_unstable();
        list.dedup();
        for &wi in &list {
            let c = counts[wi as usize] as i128;
            let record = |p: Pair, d: i64| {
                *deltas.entry(p).or_insert(0) += d as i128 * c;
                if d > 0 {
                    let l = grown.entry(p).or_default();
                    if l.last() != Some(&wi) {
                        l.push(wi);
                    }
                }
            };
            match &mut words[wi as usize] {
                Word::Short(w) => merge_word(w, a, b, id, record),
                Word::Long(w) => w.merge(a, b, id, record),
            }
        }
        for (p, d) in deltas.drain() {
            let e = pair_counts.entry(p).or_insert(0);
            let v = *e as i128 + d;
            debug_assert!(v >= 0);
            *e = v.max(0) as u64;
            if *e == 0 {
                pair_counts.remove(&p);
                where_.remove(&p);
            } else if d > 0 {
                heap.push((*e, Reverse(p)));
            }
        }
        for (p, ws) in grown.drain() {
            if pair_counts.contains_key(&p) {
                where_.entry(p).or_default().extend(ws);
            }
        }
        pair_counts.remove(&pair);
        // Stale entries pile up (one push per grown pair per merge); rebuilding from the live
        // counts when they dominate keeps the heap's memory proportional to the live pairs.
        if heap.len() > 2 * pair_counts.len() + 4096 {
            heap = pair_counts.iter().map(|(&p, &c)| (c, Reverse(p))).collect();
        }
        control.merges_done.fetch_add(1, Ordering::Relaxed);
    }
    out.tokens_after = words.iter().zip(counts).map(|(w, &c)| w.len() as u64 * c).sum();
    Ok(out)
}

/// Replaces every `(a, b)` in `ids` by `new`, left to right without overlaps, and reports
/// each change of the word's pair multiset as `delta(pair, +1 or -1)`.
///
/// Per merged occurrence at `i`: `(a, b)` goes; the left neighbour's pair `(ids[i-1], a)`
/// goes and `(left, new)` comes, where `left` is already `new` if the previous occurrence
/// ended at `i-1`; the right neighbour's pair `(b, ids[i+2])` goes and `(new, ids[i+2])`
/// comes, unless another occurrence starts at `i+2` (its own left side handles that pair).
pub fn merge_word(ids: &mut Vec<u32>, a: u32, b: u32, new: u32, mut delta: impl FnMut(Pair, i64)) {
    let n = ids.len();
    // In place: the write index `j` never passes the read index `i`, so everything read at
    // or after `i` is still the old word; `prev` keeps the old value at `i - 1`.
    let (mut i, mut j, mut prev) = (0, 0, 0u32);
    while i < n {
        let cur = ids[i];
        if i + 1 < n && cur == a && ids[i + 1] == b {
            delta((a, b), -1);
            if i > 0 {
                delta((prev, a), -1);
                delta((ids[j - 1], new), 1);
            }
            let next_occurs = i + 3 < n && ids[i + 2] == a && ids[i + 3] == b;
            if i + 2 < n && !next_occurs {
                delta((b, ids[i + 2]), -1);
                delta((new, ids[i + 2]), 1);
            }
            ids[j] = new;
            prev = b;
            i += 2;
        } else {
            ids[j] = cur;
            prev = cur;
            i += 1;
        }
        j += 1;
    }
    ids.truncate(j);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(w: &[u32]) -> FxHashMap<Pair, i64> {
        let mut m = FxHashMap::default();
        for p in w.windows(2) {
            *m.entry((p[0], p[1])).or_insert(0) += 1;
        }
        m
    }

    #[test]
    fn merge_word_deltas_equal_recount() {
        // Every word over a 3-letter alphabet up to length 8, every pair: the reported
        // deltas must equal recounting the pairs before and after.
        for len in 0..=8u32 {
            for code in 0..3u32.pow(len) {
                let w: Vec<u32> = (0..len).map(|k| (code / 3u32.pow(k)) % 3).collect();
                for a in 0..3 {
                    for b in 0..3 {
                        let mut got = pairs(&w);
                        let mut m = w.clone();
                        merge_word(&mut m, a, b, 9, |p, d| *got.entry(p).or_insert(0) += d);
                        got.retain(|_, v| *v != 0);
                        assert_eq!(got, pairs(&m), "word {w:?} pair ({a},{b})");
                    }
                }
            }
        }
    }

    #[test]
    fn reuses_existing_bytes_and_breaks_ties_by_smallest_pair() {
        let mut tokens = TokenSet::new((0..256u32).map(|i| (i, vec![i as u8]))).unwrap();
        let words = vec![b"abab".iter().map(|&x| x as u32).collect(), b"cd".iter().map(|&x| x as u32).collect()];
        let out = train(
            words,
            &[3, 6],
            &mut tokens,
            MergeConfig { n_new: 3, min_frequency: 1, next_id: 256, long_word: LONG_WORD },
            &Control::default(),
        )
        .unwrap();
        // (a,b)=6 and (c,d)=6 tie: (97,98) < (99,100).
        assert_eq!(out.merges[0], Merge { left: 97, right: 98, id: 256, count: 6 });
        assert_eq!(out.merges[1], Merge { left: 99, right: 100, id: 257, count: 6 });
        assert_eq!(out.merges[2], Merge { left: 256, right: 256, id: 258, count: 3 });
        assert_eq!(out.tokens_after, 3 + 6);
    }

    /// `LongWord` (the position index) merges exactly like `merge_word`.
    #[test]
    fn long_word_same_words_and_deltas_as_merge_word() {
        // Every word over 3 letters up to length 8, then a second merge on the result.
        for len in 0..=8u32 {
            for code in 0..3u32.pow(len) {
                let w: Vec<u32> = (0..len).map(|k| (code / 3u32.pow(k)) % 3).collect();
                for (a, b, c, d) in [(0, 1, 2, 9), (0, 0, 9, 9), (1, 0, 0, 1), (2, 2, 9, 2)] {
                    let (mut short, mut long) = (w.clone(), LongWord::new(w.clone()));
                    let (mut ds, mut dl) = (FxHashMap::default(), FxHashMap::default());
                    merge_word(&mut short, a, b, 9, |p, x| *ds.entry(p).or_insert(0i64) += x);
                    long.merge(a, b, 9, |p, x| *dl.entry(p).or_insert(0i64) += x);
                    merge_word(&mut short, c, d, 10, |p, x| *ds.entry(p).or_insert(0i64) += x);
                    long.merge(c, d, 10, |p, x| *dl.entry(p).or_insert(0i64) += x);
                    ds.retain(|_, v| *v != 0);
                    dl.retain(|_, v| *v != 0);
                    assert_eq!(long.symbols(), short, "word {w:?}");
                    assert_eq!(long.len(), short.len());
                    assert_eq!(dl, ds, "word {w:?}");
                }
            }
        }
    }
}
