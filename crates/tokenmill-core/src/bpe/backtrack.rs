//! Linear-time BPE of one long piece, by backtracking over token boundaries (the idea of
//! rust-gems' `bpe` crate), with the same result as the merge rule of `merge`.
//!
//! Why it is exact. Call a token sequence *valid* when BPE of its concatenated bytes gives
//! back that very sequence, and a pair `(a, b)` *compatible* when `[a, b]` is valid. Two facts
//! about the merge rule (lowest rank first, leftmost on ties; proven in the comment below):
//! 1. any contiguous part of a valid sequence is valid;
//! 2. if `t0..ti` and `ti..tn` are valid (sharing `ti`), so is `t0..tn`.
//!
//! So a sequence is valid exactly when each token is valid alone (BPE of its bytes gives the
//! token itself: "reachable") and every adjacent pair is compatible; and since BPE is a
//! function, the valid sequence covering a piece is unique. The search below finds it: take
//! the longest reachable token at the current position; if it is not compatible with the
//! previous token (or ends where no valid sequence can continue), try the next shorter
//! reachable token that is a prefix of it; when none is left, drop the previous token and try
//! shorter ones in its place. The valid sequence of a prefix is unique too, so a position
//! from which no continuation worked is dead whatever came before it: marking it (one bit per
//! byte) keeps the search linear. A token after which no token of the part is compatible can
//! only end the part, and one after which no token starting with the next byte is cannot stand
//! there; that is learnt once per token (and first byte) and skips such dead ends without
//! trying.
//!
//! Proof sketch of 2 (1 is the same argument). Run BPE on the whole text; call each `tk`'s
//! bytes a region. As long as no merge joins parts of two regions, each region evolves
//! exactly as it would alone (the rule picks the globally lowest pair, so the next merge
//! inside a region is always that region's own lowest, leftmost pair), and the order of the
//! merges of any two regions is the same as with only those two present. Suppose the first
//! merge across a boundary joins `x` (the rightmost part of `tk-1`) and `y` (the leftmost of
//! `tk`) while those regions are in states S and S'. Both regions lie in one of the two valid
//! halves; running BPE on that half alone, the two regions reach S and S' together as well,
//! and from then on the pair `(x, y)` outranks their next merges (ties: a region to the left
//! of the boundary merges before the pair in both runs), so it is merged there too, which
//! contradicts that half's validity.
//!
//! Compatibility of `(a, b)` is decided from the two tokens' merge histories (`trie`), by the
//! same argument: BPE of `a`'s bytes then `b`'s runs each side as alone, interleaved by rank
//! (`a`'s merge first on a tie, being further left), until the pair of `a`'s current last part
//! and `b`'s current first part is a token that outranks both sides' next merges (it beats
//! `b`'s on a tie): then a merge crosses the boundary and the pair is not compatible. If both
//! histories run out first, it is. That is a few dozen comparisons instead of a merge.
//!
//! What this module does not do: run on short pieces, where the plain merge loops of `merge`
//! are faster.

use std::sync::atomic::Ordering::Relaxed;

use super::trie::{Local, TokenTrie, CONTINUES, ENDS, FIRST, LAST};
use super::vocab::{ByteSet, Vocab};
use crate::types::Rank;

/// Slots of the memo of compatible pairs (direct-mapped: a collision just recomputes).
const MEMO: usize = 1 << 12;

/// Working memory of the search, reused across pieces.
#[derive(Default, Debug, Clone)]
pub struct Search {
    /// The tokens chosen so far (`trie` indices).
    stack: Vec<Local>,
    /// Bit `i`: no valid sequence continues from byte position `i`.
    dead: Vec<u64>,
    /// `(a << 32 | b) + 1` and whether `(a, b)` is compatible (0: empty slot).
    memo: Vec<(u64, bool)>,
    /// The bytes of a pair of parts, for their rank.
    bytes: Vec<u8>,
}

impl Search {
    /// Whether `[a, b]` is the BPE of `a`'s bytes then `b`'s (memoized `compatible`).
    #[inline]
    fn compatible(&mut self, vocab: &Vocab, trie: &TokenTrie, a: Local, b: Local) -> bool {
        // Keyed by rank: the memo outlives the trie.
        let key = ((trie.rank(a) as u64) << 32 | trie.rank(b) as u64) + 1;
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize % MEMO;
        if self.memo[slot].0 == key {
            return self.memo[slot].1;
        }
        let v = compatible(vocab, trie, a, b, &mut self.bytes);
        self.memo[slot] = (key, v);
        v
    }

    /// Whether some token of `trie` that starts with byte `b` is compatible after `t`: the
    /// token after `t` starts with the byte after it, so when none is, `t` cannot stand there.
    /// Where the trie keeps no such table, whether any token is (`continues`). In a run of
    /// `"ab"` in cl100k, `"aba"` is the longest token at every `a` and nothing starting with
    /// `b` can follow it; without this test the search took it, failed at every token after
    /// it and backed out, at every token (24 -> 12 ns a byte).
    fn continues_with(&mut self, vocab: &Vocab, trie: &TokenTrie, t: Local, b: u8) -> bool {
        let Some(known) = trie.follow_by(t, b) else { return self.continues(vocab, trie, t) };
        match known.load(Relaxed) {
            0 => {
                let continues = (0..trie.n_tokens() as Local)
                    .filter(|&u| trie.first(u) == Some(b))
                    .any(|u| self.compatible(vocab, trie, t, u));
                known.store(if continues { CONTINUES } else { ENDS }, Relaxed);
                continues
            }
            k => k == CONTINUES,
        }
    }

    /// Whether some token of `trie` is compatible after `t`. When none is, `t` can only end
    /// the part: without this test, a run of tabs in cl100k (tokens of up to 20 tabs, BPE
    /// emits 16) would back out of four dead ends (17-20 tabs after 16) at every token.
    fn continues(&mut self, vocab: &Vocab, trie: &TokenTrie, t: Local) -> bool {
        let known = trie.follow(t).load(Relaxed);
        if known != 0 {
            return known == CONTINUES;
        }
        let continues = (0..trie.n_tokens() as Local).any(|u| self.compatible(vocab, trie, t, u));
        trie.follow(t).store(if continues { CONTINUES } else { ENDS }, Relaxed);
        continues
    }
}

/// Whether BPE of the bytes of `a` then `b` gives `[a, b]` (see the module comment).
pub fn compatible(vocab: &Vocab, trie: &TokenTrie, a: Local, b: Local, bytes: &mut Vec<u8>) -> bool {
    let (ha, hb) = (trie.history(a), trie.history(b));
    let ba = vocab.token_bytes(trie.rank(a) as u64).unwrap_or_default();
    let bb = vocab.token_bytes(trie.rank(b) as u64).unwrap_or_default();
    let (Some(&last), Some(&first)) = (ba.last(), bb.first()) else { return true };
    // x: `a`'s last part, y: `b`'s first part, and the rank of the two joined.
    let (mut x, mut y) = (vocab.byte_rank(last), vocab.byte_rank(first));
    let mut cross = vocab.pair_rank(last, first);
    let (mut i, mut j) = (0, 0);
    loop {
        let next_a = ha.get(i).map_or(Rank::MAX, |e| e.0);
        let next_b = hb.get(j).map_or(Rank::MAX, |e| e.0);
        if cross < next_a && cross <= next_b {
            return false;
        }
        if next_a.min(next_b) == Rank::MAX {
            return true;
        }
        // The next merge: `a`'s (it is further left) unless `b`'s ranks lower. It moves the
        // boundary's part on its side when it merges into `a`'s last or `b`'s first part.
        let (history, k, part, side, rank) =
            if next_a <= next_b { (ha, &mut i, &mut x, LAST, next_a) } else { (hb, &mut j, &mut y, FIRST, next_b) };
        let changed = history[*k].1 & side != 0;
        *k += 1;
        if changed {
            *part = rank;
        }
        if changed {
            bytes.clear();
            bytes.extend_from_slice(vocab.token_bytes(x as u64).unwrap_or_default());
            bytes.extend_from_slice(vocab.token_bytes(y as u64).unwrap_or_default());
            cross = vocab.rank(bytes).unwrap_or(Rank::MAX);
        }
    }
}

/// Appends the BPE tokens of `piece` to `out`; `set` holds every byte of `piece`. Returns
/// false (appending nothing) only if no valid sequence was found, which the proof above rules
/// out; the caller then merges.
pub fn encode(vocab: &Vocab, piece: &[u8], set: &ByteSet, out: &mut Vec<Rank>, search: &mut Search) -> bool {
    let n = piece.len();
    if n == 0 {
        return true;
    }
    let trie = &*vocab.trie_within(set);
    let mut stack = std::mem::take(&mut search.stack);
    let mut dead = std::mem::take(&mut search.dead);
    search.memo.resize(MEMO, (0, false));
    stack.clear();
    dead.clear();
    dead.resize(n / 64 + 1, 0);
    let is_dead = |dead: &[u64], i: usize| dead[i / 64] >> (i % 64) & 1 == 1;
    let mut pos = 0;
    let mut cand = trie.longest(&piece[pos..]);
    loop {
        let end = pos + trie.len(cand);
        let ok = !is_dead(&dead, end)
            && (end == n || search.continues_with(vocab, trie, cand, piece[end]))
            && stack.last().is_none_or(|&prev| search.compatible(vocab, trie, prev, cand));
        if ok {
            stack.push(cand);
            pos = end;
            if pos == n {
                break;
            }
            cand = trie.longest(&piece[pos..]);
            continue;
        }
        cand = trie.shorter(cand);
        while cand == Local::MAX {
            // Nothing starting here fits: this position is no token boundary.
            dead[pos / 64] |= 1 << (pos % 64);
            let Some(prev) = stack.pop() else {
                (search.stack, search.dead) = (stack, dead);
                return false;
            };
            pos -= trie.len(prev);
            cand = trie.shorter(prev);
        }
    }
    out.extend(stack.iter().map(|&t| trie.rank(t)));
    (search.stack, search.dead) = (stack, dead);
    true
}
