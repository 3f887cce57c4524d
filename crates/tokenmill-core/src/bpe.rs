//! Byte-pair merging of one pre-token, with tiktoken's exact semantics.
//!
//! Rule (the specification, as in tiktoken): start from single bytes; repeatedly merge the
//! adjacent pair whose concatenation has the lowest rank, the leftmost one on ties; stop when
//! no adjacent pair is a token. Two implementations of the same rule:
//! - `merge_small`: a flat array scan, O(n*m), fastest for the short pieces of real text;
//! - `merge_heap`: a min-heap of (rank, position) over a linked list, O(n log n), used for
//!   long pieces so that a megabyte of one repeated character stays near-linear.
//!   Leftmost-on-ties holds because the heap orders equal ranks by start position.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::vocab::{Rank, Vocab};

/// Pieces longer than this (bytes) use the heap merge.
const HEAP_THRESHOLD: usize = 20;


/// Reusable working memory for `merge_small` (one per encode call, not per piece).
///
/// Indexed by byte position; a part is named by the position where it starts. Nothing is
/// removed while merging (a merged-away part just gets rank `Rank::MAX`), so the scan for the
/// lowest rank runs over a dense `u32` slice that the compiler vectorizes and no memory moves.
#[derive(Default, Debug, Clone)]
pub struct Scratch {
    /// Rank of the part starting here joined with the next part (`Rank::MAX`: none or dead).
    ranks: Vec<Rank>,
    /// Token id of the part starting here (a merged part's id is the rank that merged it).
    ids: Vec<Rank>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// `merge_heap`'s candidates: `(rank << 32 | start, end)`.
    heap: BinaryHeap<Reverse<(u64, u32)>>,
}

/// Appends the tokens of `piece` to `out`.
#[inline]
pub fn encode_piece(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>) {
    encode_piece_with(vocab, piece, out, &mut Scratch::default())
}

/// `encode_piece` with caller-provided scratch memory.
#[inline]
pub fn encode_piece_with(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>, scratch: &mut Scratch) {
    if piece.is_empty() {
        return;
    }
    // Most pieces of real text are whole tokens: one lookup, no merging.
    if let Some(r) = vocab.rank(piece) {
        out.push(r);
        return;
    }
    if piece.len() <= HEAP_THRESHOLD {
        merge_small(vocab, piece, out, scratch)
    } else {
        merge_heap(vocab, piece, out, scratch)
    }
}

/// Flat-array merge for short pieces (tiktoken's algorithm shape): repeatedly find the
/// leftmost lowest-ranked pair of adjacent parts and join them.
pub fn merge_small(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>, scratch: &mut Scratch) {
    let n = piece.len();
    let Scratch { ranks, ids, next, prev, .. } = scratch;
    ranks.clear();
    ids.clear();
    next.clear();
    prev.clear();
    ranks.extend(piece.windows(2).map(|w| vocab.pair_rank(w[0], w[1])));
    ranks.push(Rank::MAX);
    ids.extend(piece.iter().map(|&b| vocab.byte_rank(b)));
    next.extend(1..=n as u32);
    prev.extend((0..n as u32).map(|i| i.wrapping_sub(1)));
    loop {
        // Leftmost minimum, in two dense passes (both vectorize better than one fused loop).
        let best = ranks.iter().fold(Rank::MAX, |m, &r| m.min(r));
        if best == Rank::MAX {
            break;
        }
        let i = ranks.iter().position(|&r| r == best).unwrap_or(0);
        // Part j (after i) joins part i; k is the part after both.
        let j = next[i] as usize;
        let k = next[j] as usize;
        ids[i] = best;
        ranks[j] = Rank::MAX;
        next[i] = k as u32;
        ranks[i] = if k < n {
            prev[k] = i as u32;
            vocab.rank(&piece[i..next[k] as usize]).unwrap_or(Rank::MAX)
        } else {
            Rank::MAX
        };
        if i > 0 {
            let p = prev[i] as usize;
            ranks[p] = vocab.rank(&piece[p..k]).unwrap_or(Rank::MAX);
        }
    }
    let mut i = 0;
    while i < n {
        out.push(ids[i]);
        i = next[i] as usize;
    }
}

/// Heap merge for longer pieces; same result as `merge_small`.
///
/// A min-heap of candidate pairs keyed by (rank, start) replaces the linear scan: the pair
/// popped is the lowest rank, leftmost on ties, exactly the pair the scan would pick.
/// Entries are never removed when a neighbour merges; a popped entry is used only if its pair
/// still exists, which `(start, end)` decides: parts only ever grow by absorbing a whole
/// neighbour, so a pair with the same start and end is the same pair with the same rank.
pub fn merge_heap(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>, scratch: &mut Scratch) {
    let n = piece.len();
    let Scratch { ids, next, prev, heap, .. } = scratch;
    ids.clear();
    next.clear();
    prev.clear();
    heap.clear();
    ids.extend(piece.iter().map(|&b| vocab.byte_rank(b)));
    next.extend(1..=n as u32);
    prev.extend((0..n as u32).map(|i| i.wrapping_sub(1)));
    let key = |rank: Rank, start: usize| (rank as u64) << 32 | start as u64;
    for (i, w) in piece.windows(2).enumerate() {
        let r = vocab.pair_rank(w[0], w[1]);
        if r != Rank::MAX {
            heap.push(Reverse((key(r, i), i as u32 + 2)));
        }
    }
    while let Some(Reverse((k, e))) = heap.pop() {
        let i = (k & 0xFFFF_FFFF) as usize;
        let j = next[i] as usize;
        if ids[i] == DEAD || j >= n || next[j] != e {
            continue; // stale: a neighbour merged since this entry was pushed
        }
        let e = e as usize;
        ids[i] = (k >> 32) as Rank;
        ids[j] = DEAD;
        next[i] = e as u32;
        if e < n {
            prev[e] = i as u32;
            let ee = next[e] as usize;
            if let Some(r) = vocab.rank(&piece[i..ee]) {
                heap.push(Reverse((key(r, i), ee as u32)));
            }
        }
        if i > 0 {
            let p = prev[i] as usize;
            if let Some(r) = vocab.rank(&piece[p..e]) {
                heap.push(Reverse((key(r, p), e as u32)));
            }
        }
    }
    let mut i = 0;
    while i < n {
        out.push(ids[i]);
        i = next[i] as usize;
    }
}

/// Marks a part that was merged into its left neighbour.
const DEAD: Rank = Rank::MAX;
