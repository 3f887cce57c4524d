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

/// Reusable working memory for `encode_piece`: `(token id, rank of merging with the next part)`.
pub type Scratch = Vec<(Rank, Rank)>;

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
    merge_any(vocab, piece, out, scratch)
}

/// Merges a piece known not to be a single token, picking the algorithm by length.
#[inline]
pub fn merge_any(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>, scratch: &mut Scratch) {
    if piece.len() <= HEAP_THRESHOLD {
        merge_small(vocab, piece, out, scratch)
    } else {
        merge_heap(vocab, piece, out)
    }
}

/// Flat-array merge: `parts[i] = (token id, rank of merging part i with part i+1)`.
/// Each step takes the leftmost lowest rank, replaces the two parts by the merged token and
/// re-ranks its two neighbours: two integer-keyed lookups per merge.
pub fn merge_small(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>, parts: &mut Scratch) {
    let n = piece.len();
    parts.clear();
    for i in 0..n {
        let r = if i + 1 < n { vocab.pair_rank(piece[i], piece[i + 1]) } else { Rank::MAX };
        parts.push((vocab.byte_rank(piece[i]), r));
    }
    loop {
        // Leftmost minimum.
        let mut best = (Rank::MAX, 0usize);
        for (i, &(_, r)) in parts.iter().enumerate() {
            if r < best.0 {
                best = (r, i);
            }
        }
        if best.0 == Rank::MAX {
            break;
        }
        let (r, i) = best;
        parts[i].0 = r; // the merged token's id is the rank of the pair
        parts.remove(i + 1);
        parts[i].1 = if i + 1 < parts.len() { vocab.merge(r, parts[i + 1].0) } else { Rank::MAX };
        if i > 0 {
            parts[i - 1].1 = vocab.merge(parts[i - 1].0, r);
        }
    }
    out.extend(parts.iter().map(|&(t, _)| t));
}

const NONE: u32 = u32::MAX;

/// Heap merge for long pieces; same result as `merge_small`.
pub fn merge_heap(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>) {
    let n = piece.len();
    // Node i starts at byte i and holds token `tok[i]`; `next[i]` is the following node (or n).
    let mut tok: Vec<Rank> = piece.iter().map(|&b| vocab.byte_rank(b)).collect();
    let mut next: Vec<u32> = (1..=n as u32).collect();
    let mut prev: Vec<u32> = (0..n as u32).map(|i| if i == 0 { NONE } else { i - 1 }).collect();
    let mut alive = vec![true; n];
    // Entries are (rank, left node, right node's token): stale once either side changed.
    let mut heap: BinaryHeap<Reverse<(Rank, u32, Rank)>> = BinaryHeap::with_capacity(n);
    let push_pair = |heap: &mut BinaryHeap<Reverse<(Rank, u32, Rank)>>, tok: &[Rank], next: &[u32], i: u32| {
        let j = next[i as usize];
        if (j as usize) < n {
            let r = vocab.merge(tok[i as usize], tok[j as usize]);
            if r != Rank::MAX {
                heap.push(Reverse((r, i, tok[j as usize])));
            }
        }
    };
    for i in 0..n as u32 {
        push_pair(&mut heap, &tok, &next, i);
    }
    while let Some(Reverse((r, i, right_tok))) = heap.pop() {
        let iu = i as usize;
        if !alive[iu] {
            continue;
        }
        let j = next[iu];
        // Stale unless both sides are unchanged: the left side is unchanged iff merging its
        // current token with the current right token still gives `r`.
        if j as usize >= n || tok[j as usize] != right_tok || vocab.merge(tok[iu], right_tok) != r {
            continue;
        }
        alive[j as usize] = false;
        tok[iu] = r;
        next[iu] = next[j as usize];
        if (next[iu] as usize) < n {
            prev[next[iu] as usize] = i;
        }
        push_pair(&mut heap, &tok, &next, i);
        let p = prev[iu];
        if p != NONE {
            push_pair(&mut heap, &tok, &next, p);
        }
    }
    let mut i = 0usize;
    while i < n {
        out.push(tok[i]);
        i = next[i] as usize;
    }
}
