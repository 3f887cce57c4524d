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

use crate::table::{self, Key, ShortKeyTable};
use crate::vocab::{Rank, Vocab};

/// Pieces longer than this (bytes) use the heap merge.
const HEAP_THRESHOLD: usize = 32;


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
    /// `merge_heap`'s candidates: `rank << 32 | start`.
    heap: BinaryHeap<Reverse<u64>>,
    /// Tokens of short pieces already merged in this call (see `PieceCache`).
    cache: PieceCache,
}

/// Merged pieces of one encode call, so that a word that is not a single token is merged once
/// per call, not once per occurrence (in English prose and code about one piece in twelve
/// needs merging, and those few pieces cost as much as all the others together).
///
/// Keys are pieces of at most 15 bytes (longer ones are rarely repeated); a value packs the
/// offset of the piece's tokens in `tokens` and their count. The table is created only after
/// `WARMUP` merged pieces, so short texts pay nothing. Per call rather than per encoder: an
/// encoder stays immutable and needs no locking, and a large text or a batch on one thread
/// still gets the benefit.
#[derive(Default, Debug, Clone)]
struct PieceCache {
    table: Option<ShortKeyTable>,
    tokens: Vec<Rank>,
    merged: usize,
}

impl PieceCache {
    const WARMUP: usize = 32;
    /// Caps memory for a huge call: past this many cached tokens, nothing new is cached.
    const MAX_TOKENS: usize = 1 << 24;

    #[inline]
    fn get(&self, key: Key) -> Option<&[Rank]> {
        let v = self.table.as_ref()?.get(key)? as usize;
        Some(&self.tokens[v >> 4..(v >> 4) + (v & 15)])
    }

    #[inline]
    fn insert(&mut self, key: Key, tokens: &[Rank]) {
        match &mut self.table {
            Some(table) if self.tokens.len() + tokens.len() <= Self::MAX_TOKENS => {
                // A piece of at most 15 bytes has at most 15 tokens: the count fits in 4 bits.
                table.insert(key, (self.tokens.len() << 4 | tokens.len()) as u32);
                self.tokens.extend_from_slice(tokens);
            }
            Some(_) => {}
            None => {
                self.merged += 1;
                if self.merged >= Self::WARMUP {
                    self.table = Some(ShortKeyTable::with_capacity(1024));
                }
            }
        }
    }
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
    if let Some(key) = table::pack(piece) {
        if let Some(tokens) = scratch.cache.get(key) {
            out.extend_from_slice(tokens);
            return;
        }
        let before = out.len();
        merge_small(vocab, piece, out, scratch);
        scratch.cache.insert(key, &out[before..]);
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
/// A min-heap of candidate pairs keyed by `rank << 32 | start` replaces the linear scan: the
/// pair popped is the lowest rank, leftmost on ties, exactly the pair the scan would pick.
/// Entries are never removed when a neighbour merges; a popped entry is used only if it is
/// still the current pair of its part (`ranks[start] == rank`). That test is exact: a rank
/// names one token, so with the start fixed it fixes the pair's end too.
pub fn merge_heap(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>, scratch: &mut Scratch) {
    let n = piece.len();
    let Scratch { ranks, ids, next, prev, heap, .. } = scratch;
    ranks.clear();
    ids.clear();
    next.clear();
    prev.clear();
    ranks.extend(piece.windows(2).map(|w| vocab.pair_rank(w[0], w[1])));
    ranks.push(Rank::MAX);
    ids.extend(piece.iter().map(|&b| vocab.byte_rank(b)));
    next.extend(1..=n as u32);
    prev.extend((0..n as u32).map(|i| i.wrapping_sub(1)));
    let key = |rank: Rank, start: usize| Reverse((rank as u64) << 32 | start as u64);
    // Built in one O(n) pass rather than n pushes.
    let mut entries = std::mem::take(heap).into_vec();
    entries.clear();
    entries.extend(ranks.iter().enumerate().filter(|(_, &r)| r != Rank::MAX).map(|(i, &r)| key(r, i)));
    *heap = BinaryHeap::from(entries);
    while let Some(Reverse(k)) = heap.pop() {
        let (rank, i) = ((k >> 32) as Rank, (k & 0xFFFF_FFFF) as usize);
        if ranks[i] != rank {
            continue; // stale: a neighbour merged since this entry was pushed
        }
        // Part j (after i) joins part i; e is the part after both.
        let j = next[i] as usize;
        let e = next[j] as usize;
        ids[i] = rank;
        ranks[j] = DEAD;
        next[i] = e as u32;
        ranks[i] = if e < n {
            prev[e] = i as u32;
            vocab.rank(&piece[i..next[e] as usize]).unwrap_or(Rank::MAX)
        } else {
            Rank::MAX
        };
        if ranks[i] != Rank::MAX {
            heap.push(key(ranks[i], i));
        }
        if i > 0 {
            let p = prev[i] as usize;
            ranks[p] = vocab.rank(&piece[p..e]).unwrap_or(Rank::MAX);
            if ranks[p] != Rank::MAX {
                heap.push(key(ranks[p], p));
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
