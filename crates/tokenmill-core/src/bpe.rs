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
const HEAP_THRESHOLD: usize = 128;

/// Reusable working memory for `encode_piece` (one per encode call, not per piece).
pub type Scratch = Vec<(usize, Rank)>;

/// Appends the tokens of `piece` to `out`.
#[inline]
pub fn encode_piece(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>) {
    encode_piece_with(vocab, piece, out, &mut Vec::new())
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
        merge_heap(vocab, piece, out)
    }
}

/// Flat-array merge (tiktoken's algorithm shape): `parts[i] = (start, rank of parts i,i+1)`.
pub fn merge_small(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>, parts: &mut Scratch) {
    let n = piece.len();
    parts.clear();
    let pair_rank = |parts: &Scratch, i: usize| -> Rank {
        if i + 2 < parts.len() {
            vocab.rank(&piece[parts[i].0..parts[i + 2].0]).unwrap_or(Rank::MAX)
        } else {
            Rank::MAX
        }
    };
    for i in 0..n {
        let r = if i + 1 < n { vocab.pair_rank(piece[i], piece[i + 1]) } else { Rank::MAX };
        parts.push((i, r));
    }
    parts.push((n, Rank::MAX));
    loop {
        // Leftmost minimum.
        let mut best = (Rank::MAX, 0usize);
        for (i, &(_, r)) in parts[..parts.len() - 1].iter().enumerate() {
            if r < best.0 {
                best = (r, i);
            }
        }
        if best.0 == Rank::MAX {
            break;
        }
        let i = best.1;
        parts.remove(i + 1);
        parts[i].1 = pair_rank(parts, i);
        if i > 0 {
            parts[i - 1].1 = pair_rank(parts, i - 1);
        }
    }
    for w in parts.windows(2) {
        // Every remaining part is a token: single bytes always are, merged parts by construction.
        out.push(vocab.rank(&piece[w[0].0..w[1].0]).unwrap_or(Rank::MAX));
    }
}

const NONE: u32 = u32::MAX;

/// Heap merge for long pieces; same result as `merge_small`.
pub fn merge_heap(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>) {
    let n = piece.len();
    // Node i starts at byte i; `next[i]` is the start of the following node (or n).
    let mut next: Vec<u32> = (1..=n as u32).collect();
    let mut prev: Vec<u32> = (0..n as u32).map(|i| if i == 0 { NONE } else { i - 1 }).collect();
    let mut alive = vec![true; n];
    let mut heap: BinaryHeap<Reverse<(Rank, u32, u32)>> = BinaryHeap::with_capacity(n);
    let end_of = |next: &[u32], i: u32| -> u32 { next[i as usize] };
    // Pair (i, next(i)) spans piece[i .. end_of(next(i))].
    let push_pair = |heap: &mut BinaryHeap<Reverse<(Rank, u32, u32)>>, next: &[u32], i: u32| {
        let j = next[i as usize];
        if (j as usize) < n {
            let e = end_of(next, j);
            if let Some(r) = vocab.rank(&piece[i as usize..e as usize]) {
                heap.push(Reverse((r, i, e)));
            }
        }
    };
    for i in 0..n as u32 {
        push_pair(&mut heap, &next, i);
    }
    while let Some(Reverse((_, i, e))) = heap.pop() {
        let iu = i as usize;
        if !alive[iu] {
            continue;
        }
        let j = next[iu];
        if j as usize >= n || end_of(&next, j) != e {
            continue; // stale entry: a neighbour merged since it was pushed
        }
        // Merge node j into node i.
        alive[j as usize] = false;
        next[iu] = next[j as usize];
        if (next[iu] as usize) < n {
            prev[next[iu] as usize] = i;
        }
        push_pair(&mut heap, &next, i);
        let p = prev[iu];
        if p != NONE {
            push_pair(&mut heap, &next, p);
        }
    }
    let mut i = 0usize;
    while i < n {
        let e = next[i] as usize;
        out.push(vocab.rank(&piece[i..e]).unwrap_or(Rank::MAX));
        i = e;
    }
}
