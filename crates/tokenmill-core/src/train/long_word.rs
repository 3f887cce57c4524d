//! Long words in the training merge loop: merging touches only where the pair occurs.
//!
//! A short word is rewritten whole at each merge that involves it, which costs its length.
//! For a word of a million symbols (a pre-token of random letters, say) that is a million
//! steps per merge and billions for a vocabulary. A `LongWord` is a linked list of symbols
//! with, for each pair, the positions where it may start (stale positions are checked and
//! skipped), so a merge costs the number of occurrences it rewrites.
//!
//! The result is exactly `merge::merge_word`'s: candidates are visited left to right and a
//! symbol consumed by one occurrence cannot start the next, which is the same left-to-right,
//! non-overlapping rule; the pair-count deltas are the same formulas. (The test that checks this
//! sits in `merge`'s tests, so this module does not depend on `merge`.)

use rustc_hash::FxHashMap;

type Pair = (u32, u32);
const NONE: u32 = u32::MAX;
/// The id of a symbol that was merged into its left neighbour.
const DEAD: u32 = u32::MAX;

/// A word as a linked list of symbol ids plus an index of pair positions.
#[derive(Debug, Clone)]
pub struct LongWord {
    ids: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    len: usize,
    at: FxHashMap<Pair, Vec<u32>>,
}

impl LongWord {
    /// Builds the list and the pair index of `ids`.
    pub fn new(ids: Vec<u32>) -> Self {
        let n = ids.len();
        let next = (1..=n as u32).map(|i| if i as usize == n { NONE } else { i }).collect();
        let prev = (0..n as u32).map(|i| if i == 0 { NONE } else { i - 1 }).collect();
        let mut at: FxHashMap<Pair, Vec<u32>> = FxHashMap::default();
        for (i, p) in ids.windows(2).enumerate() {
            at.entry((p[0], p[1])).or_default().push(i as u32);
        }
        LongWord { ids, next, prev, len: n, at }
    }

    /// Number of symbols.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the word has no symbols.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The symbols, in order.
    pub fn symbols(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len);
        let mut i = if self.ids.is_empty() { NONE } else { 0 };
        while i != NONE {
            out.push(self.ids[i as usize]);
            i = self.next[i as usize];
        }
        out
    }

    /// Replaces every `(a, b)` by `new` as `merge::merge_word` does, reporting the same deltas.
    pub fn merge(&mut self, a: u32, b: u32, new: u32, mut delta: impl FnMut(Pair, i64)) {
        let Some(mut cands) = self.at.remove(&(a, b)) else { return };
        cands.sort_unstable();
        cands.dedup();
        let mut last_merged = NONE;
        for p in cands {
            let pu = p as usize;
            if self.ids[pu] != a {
                continue;
            }
            let q = self.next[pu];
            if q == NONE || self.ids[q as usize] != b {
                continue;
            }
            delta((a, b), -1);
            let l = self.prev[pu];
            if l != NONE {
                // The old left symbol was `b` if the previous occurrence just ended there.
                let old_left = if l == last_merged { b } else { self.ids[l as usize] };
                let cur_left = self.ids[l as usize];
                delta((old_left, a), -1);
                delta((cur_left, new), 1);
                self.at.entry((cur_left, new)).or_default().push(l);
            }
            let r = self.next[q as usize];
            if r != NONE {
                let rn = self.next[r as usize];
                let next_occurs = self.ids[r as usize] == a && rn != NONE && self.ids[rn as usize] == b;
                if !next_occurs {
                    let right = self.ids[r as usize];
                    delta((b, right), -1);
                    delta((new, right), 1);
                    self.at.entry((new, right)).or_default().push(p);
                }
                self.prev[r as usize] = p;
            }
            self.ids[pu] = new;
            self.ids[q as usize] = DEAD;
            self.next[pu] = r;
            self.len -= 1;
            last_merged = p;
        }
    }
}
