//! sentencepiece BPE: score-ordered merges (not byte-level), UNUSED pieces re-split.
//!
//! As `bpe_model.cc`: the normalized text starts as characters (a user-defined symbol matched
//! longest-first is one frozen symbol); the adjacent pair whose concatenation is the piece
//! (NORMAL, USER_DEFINED or UNUSED) with the highest score merges first, the leftmost on equal
//! scores; a final symbol that is an UNUSED piece is split back into the two symbols it was
//! last pushed as a pair from, recursively. O(n log n): a binary heap of candidate pairs with
//! stale entries skipped and a doubly linked list of symbols. BPE-dropout (`sample`) skips each
//! popped merge with probability `alpha`, as sentencepiece's `SampleEncode`.
//!
//! Segments and the cache. A cut between two adjacent characters `a b` of the normalized text
//! is safe when no piece contains `a` immediately followed by `b`. Proof: every symbol other
//! than a single character is a user-defined piece or the result of a merge, i.e. a piece, so
//! no symbol ever spans a safe cut and no pair across it is ever pushed; the pairs on each side
//! change only through merges on that side, so the global order (highest score, then
//! leftmost) restricted to one side is exactly the order a run on that side alone would take.
//! Hence encoding each segment alone and concatenating is exact. Cuts are looked for only next
//! to U+2581 (once per word); the characters that precede or follow U+2581 inside some piece
//! are collected at load. Segments up to `CACHE_MAX_LEN` bytes are memoized in the caller's
//! `BpeScratch` (bounded, cleared when full): the model itself stays immutable and shared.
//! Measured on Mistral-7B over English: the cache turns ~9 MB/s into ~30 MB/s.
//!
//! Not here: normalization, byte fallback and unknown runs (`model`). Uses `unigram::Trie` for
//! piece lookups and `unigram::Rng` for dropout.

use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap, FxHashSet};

use super::proto::{ModelProto, PieceType};
use super::unigram::{one_char_len, Rng, Span, Trie};

const NONE: u32 = u32::MAX;
const SPACE: &[u8] = "\u{2581}".as_bytes();
/// Longest segment memoized, in bytes.
const CACHE_MAX_LEN: usize = 64;
/// Entries before the per-scratch cache is cleared.
const CACHE_MAX_ENTRIES: usize = 1 << 15;

fn pair_key(left: u32, right: u32) -> u64 {
    (left as u64) << 32 | right as u64
}

#[derive(Debug, Clone, Copy)]
struct Sym {
    start: u32,
    end: u32,
    prev: u32,
    next: u32,
    id: u32,
    freeze: bool,
}

#[derive(Debug, Clone, Copy)]
struct Pair {
    score: f32,
    left: u32,
    right: u32,
    size: u32,
    id: u32,
}

impl PartialEq for Pair {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for Pair {}
impl PartialOrd for Pair {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pair {
    /// Higher score first, then the leftmost. sentencepiece 0.2.3 compares the scores' bit
    /// patterns as sign-magnitude integers, which is IEEE total order (+0 above -0); NaN scores
    /// are refused at load.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.score.total_cmp(&other.score).then_with(|| other.left.cmp(&self.left))
    }
}

/// Reusable memory of BPE encoding, with the segment cache.
#[derive(Debug, Default)]
pub struct BpeScratch {
    syms: Vec<Sym>,
    heap: BinaryHeap<Pair>,
    /// (merged, left, right) byte ranges of UNUSED pairs, latest push wins.
    rev: Vec<(u32, u32, u32)>,
    spans: Vec<Span>,
    cache: FxHashMap<Box<[u8]>, (u32, u32)>,
    arena: Vec<Span>,
}

/// The BPE segmenter of one model (immutable).
#[derive(Debug, Clone)]
pub struct Bpe {
    /// Every piece, value = id (sentencepiece 0.2.3's BPE keeps one map; a pair or final symbol
    /// whose piece is UNKNOWN, CONTROL or BYTE counts as absent).
    trie: Trie,
    /// USER_DEFINED pieces: the frozen initial symbols.
    user: Option<Trie>,
    scores: Vec<f32>,
    unused: Vec<bool>,
    /// UNKNOWN, CONTROL and BYTE pieces.
    reserved: Vec<bool>,
    unk_id: u32,
    /// (left id << 32 | right id) -> id of the piece spelled by the two pieces side by side:
    /// every split of every piece into two pieces. A pair of symbols that are both pieces is
    /// looked up here (one hash probe) instead of walking the trie over their joined bytes;
    /// texts are unique in the one map, so the answer is the trie's.
    pairs: FxHashMap<u64, u32>,
    /// Characters (as u32) that some piece has right before / right after U+2581.
    before_space: FxHashSet<u32>,
    after_space: FxHashSet<u32>,
    ascii_before: [bool; 128],
    ascii_after: [bool; 128],
}

impl Bpe {
    /// The segmenter of a validated proto (`model` checks the pieces first).
    pub fn new(proto: &ModelProto, unk_id: u32) -> Bpe {
        let mut keys = Vec::new();
        let mut user = Vec::new();
        let mut before_space = FxHashSet::default();
        let mut after_space = FxHashSet::default();
        for (i, p) in proto.pieces.iter().enumerate() {
            keys.push((p.piece.as_bytes(), i as u32));
            match p.kind {
                PieceType::Normal | PieceType::UserDefined | PieceType::Unused => {
                    let chars: Vec<char> = p.piece.chars().collect();
                    for w in chars.windows(2) {
                        if w[1] == '\u{2581}' {
                            before_space.insert(w[0] as u32);
                        }
                        if w[0] == '\u{2581}' {
                            after_space.insert(w[1] as u32);
                        }
                    }
                }
                _ => {}
            }
            if p.kind == PieceType::UserDefined {
                user.push((p.piece.as_bytes(), i as u32));
            }
        }
        let ascii_before = std::array::from_fn(|c| before_space.contains(&(c as u32)));
        let ascii_after = std::array::from_fn(|c| after_space.contains(&(c as u32)));
        let trie = Trie::build(&keys);
        let mut pairs = FxHashMap::default();
        for &(piece, id) in &keys {
            // Splits at character boundaries only: symbols are whole characters.
            let text = std::str::from_utf8(piece).unwrap_or_default();
            for (k, _) in text.char_indices().skip(1) {
                if let (Some(a), Some(b)) = (trie.get(&piece[..k]), trie.get(&piece[k..])) {
                    pairs.insert(pair_key(a, b), id);
                }
            }
        }
        Bpe {
            trie,
            pairs,
            user: (!user.is_empty()).then(|| Trie::build(&user)),
            scores: proto.pieces.iter().map(|p| p.score).collect(),
            unused: proto.pieces.iter().map(|p| p.kind == PieceType::Unused).collect(),
            reserved: proto
                .pieces
                .iter()
                .map(|p| !matches!(p.kind, PieceType::Normal | PieceType::UserDefined | PieceType::Unused))
                .collect(),
            unk_id,
            before_space,
            after_space,
            ascii_before,
            ascii_after,
        }
    }

    /// Appends the segmentation of `s` (normalized bytes) to `out`, spans in `s`'s offsets.
    pub fn encode(&self, s: &[u8], scratch: &mut BpeScratch, out: &mut Vec<Span>) {
        let mut seg = 0;
        let mut cut_at = |cut: usize, scratch: &mut BpeScratch, out: &mut Vec<Span>| {
            if cut > seg {
                self.encode_segment(&s[seg..cut], seg as u32, scratch, out);
                seg = cut;
            }
        };
        for p in memchr::memmem::find_iter(s, SPACE) {
            if p > 0 && !prev_char(s, p).is_none_or(|c| self.pair_in_piece(c, true)) {
                cut_at(p, scratch, out);
            }
            let q = p + SPACE.len();
            if q < s.len() && !next_char(s, q).is_none_or(|c| self.pair_in_piece(c, false)) {
                cut_at(q, scratch, out);
            }
        }
        cut_at(s.len(), scratch, out);
    }

    /// Whether some piece has `c` right before (`before`) or right after U+2581.
    #[inline]
    fn pair_in_piece(&self, c: u32, before: bool) -> bool {
        match (c < 128, before) {
            (true, true) => self.ascii_before[c as usize],
            (true, false) => self.ascii_after[c as usize],
            (false, true) => self.before_space.contains(&c),
            (false, false) => self.after_space.contains(&c),
        }
    }

    fn encode_segment(&self, s: &[u8], offset: u32, scratch: &mut BpeScratch, out: &mut Vec<Span>) {
        if s.len() <= CACHE_MAX_LEN {
            if let Some(&(a, b)) = scratch.cache.get(s) {
                out.extend(scratch.arena[a as usize..b as usize].iter().map(|sp| shift(sp, offset)));
                return;
            }
        }
        let mut spans = std::mem::take(&mut scratch.spans);
        spans.clear();
        self.merge(s, None, scratch, &mut spans);
        out.extend(spans.iter().map(|sp| shift(sp, offset)));
        if s.len() <= CACHE_MAX_LEN {
            if scratch.cache.len() >= CACHE_MAX_ENTRIES {
                scratch.cache.clear();
                scratch.arena.clear();
            }
            let a = scratch.arena.len() as u32;
            scratch.arena.extend_from_slice(&spans);
            scratch.cache.insert(s.into(), (a, scratch.arena.len() as u32));
        }
        scratch.spans = spans;
    }

    /// BPE-dropout over all of `s`: each merge skipped with probability `alpha`.
    pub fn sample(&self, s: &[u8], alpha: f32, rng: &mut Rng, scratch: &mut BpeScratch, out: &mut Vec<Span>) {
        self.merge(s, Some((alpha, rng)), scratch, out);
    }

    /// The merge loop over `s`; appends spans relative to `s`.
    fn merge(&self, s: &[u8], mut dropout: Option<(f32, &mut Rng)>, scratch: &mut BpeScratch, out: &mut Vec<Span>) {
        let syms = &mut scratch.syms;
        let heap = &mut scratch.heap;
        let rev = &mut scratch.rev;
        syms.clear();
        heap.clear();
        rev.clear();
        let mut pos = 0;
        while pos < s.len() {
            let user = self.user.as_ref().and_then(|t| t.longest_prefix(&s[pos..]));
            let (len, id, freeze) = match user {
                Some((len, id)) => (len, id, true),
                None => {
                    let len = one_char_len(s[pos]).min(s.len() - pos);
                    (len, self.trie.get(&s[pos..pos + len]).unwrap_or(NONE), false)
                }
            };
            let i = syms.len() as u32;
            syms.push(Sym {
                start: pos as u32,
                end: (pos + len) as u32,
                prev: i.wrapping_sub(1),
                next: i + 1,
                id,
                freeze,
            });
            pos += len;
        }
        if let Some(last) = syms.last_mut() {
            last.next = NONE;
        }
        for i in 1..syms.len() {
            self.push_pair(s, syms, heap, rev, i as u32 - 1, i as u32);
        }
        if dropout.as_ref().is_some_and(|d| d.0 >= 1.0) {
            heap.clear(); // every merge dropped
        }
        while let Some(top) = heap.pop() {
            let (l, r) = (syms[top.left as usize], syms[top.right as usize]);
            if l.start == l.end || r.start == r.end || (l.end - l.start) + (r.end - r.start) != top.size {
                continue; // stale
            }
            if let Some((alpha, rng)) = dropout.as_mut() {
                if *alpha > 0.0 && rng.next_f64() < *alpha as f64 {
                    continue;
                }
            }
            let left = &mut syms[top.left as usize];
            left.end = r.end;
            left.next = r.next;
            left.id = top.id;
            if r.next != NONE {
                syms[r.next as usize].prev = top.left;
            }
            syms[top.right as usize].end = r.start; // emptied
            let prev = syms[top.left as usize].prev;
            let next = syms[top.left as usize].next;
            self.push_pair(s, syms, heap, rev, prev, top.left);
            self.push_pair(s, syms, heap, rev, top.left, next);
        }
        let mut i = if syms.is_empty() { NONE } else { 0 };
        while i != NONE {
            let sym = syms[i as usize];
            match sym.id {
                NONE => out.push(Span { start: sym.start, end: sym.end, id: self.unk_id }),
                id if self.reserved[id as usize] => out.push(Span { start: sym.start, end: sym.end, id: self.unk_id }),
                id if self.unused[id as usize] => self.resegment(s, rev, sym.start, sym.end, 0, out),
                id => out.push(Span { start: sym.start, end: sym.end, id }),
            }
            i = sym.next;
        }
    }

    fn push_pair(
        &self,
        s: &[u8],
        syms: &[Sym],
        heap: &mut BinaryHeap<Pair>,
        rev: &mut Vec<(u32, u32, u32)>,
        left: u32,
        right: u32,
    ) {
        if left == NONE || right == NONE {
            return;
        }
        let (l, r) = (syms[left as usize], syms[right as usize]);
        if l.freeze || r.freeze {
            return;
        }
        let found = if l.id != NONE && r.id != NONE {
            self.pairs.get(&pair_key(l.id, r.id)).copied()
        } else {
            self.trie.get(&s[l.start as usize..r.end as usize])
        };
        let Some(id) = found else { return };
        if self.reserved[id as usize] {
            return;
        }
        heap.push(Pair { score: self.scores[id as usize], left, right, size: r.end - l.start, id });
        if self.unused[id as usize] {
            let merged = &s[l.start as usize..r.end as usize];
            match rev.iter_mut().find(|e| &s[e.0 as usize..e.2 as usize] == merged) {
                Some(e) => *e = (l.start, l.end, r.end),
                None => rev.push((l.start, l.end, r.end)),
            }
        }
    }

    /// Emits `s[start..end]`, splitting UNUSED pieces back as they were last pushed; an absent,
    /// reserved or unsplittable UNUSED piece is unknown (sentencepiece 0.2.3's `resegment`,
    /// which also stops splitting below depth 100).
    fn resegment(&self, s: &[u8], rev: &[(u32, u32, u32)], start: u32, end: u32, depth: u32, out: &mut Vec<Span>) {
        let w = &s[start as usize..end as usize];
        let found = self.trie.get(w);
        let id = found.unwrap_or(self.unk_id);
        if depth > 100 {
            out.push(Span { start, end, id });
            return;
        }
        let id = match found {
            Some(id) if !self.reserved[id as usize] => id,
            _ => self.unk_id,
        };
        if !self.unused[id as usize] {
            out.push(Span { start, end, id });
            return;
        }
        match rev.iter().find(|e| &s[e.0 as usize..e.2 as usize] == w) {
            Some(&(a, m, _)) => {
                // Same bytes elsewhere in `s`: split at the same relative point.
                let mid = start + (m - a);
                self.resegment(s, rev, start, mid, depth + 1, out);
                self.resegment(s, rev, mid, end, depth + 1, out);
            }
            None => out.push(Span { start, end, id: self.unk_id }),
        }
    }
}

fn shift(sp: &Span, offset: u32) -> Span {
    Span { start: sp.start + offset, end: sp.end + offset, id: sp.id }
}

/// The character (as u32) ending at byte `p` of `s`; `None` if not valid UTF-8 (no cut then).
fn prev_char(s: &[u8], p: usize) -> Option<u32> {
    let mut a = p - 1;
    while a > 0 && p - a < 4 && s[a] & 0xC0 == 0x80 {
        a -= 1;
    }
    decode_char(&s[a..p])
}

/// The character (as u32) starting at byte `q` of `s`; `None` if not valid UTF-8.
fn next_char(s: &[u8], q: usize) -> Option<u32> {
    let n = one_char_len(s[q]).min(s.len() - q);
    decode_char(&s[q..q + n])
}

fn decode_char(b: &[u8]) -> Option<u32> {
    std::str::from_utf8(b).ok().and_then(|t| t.chars().next()).map(|c| c as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spm::proto::{ModelType, NormalizerSpec, Piece, TrainerSpec};
    use PieceType::{Control as C, Normal as N, Unknown as U, Unused as X, UserDefined as D};

    fn proto(pieces: &[(&str, f32, PieceType)]) -> ModelProto {
        ModelProto {
            pieces: pieces.iter().map(|&(p, s, k)| Piece { piece: p.into(), score: s, kind: k }).collect(),
            trainer_spec: TrainerSpec { model_type: ModelType::Bpe, ..Default::default() },
            normalizer_spec: NormalizerSpec::default(),
            denormalizer_spec: None,
            extra: Vec::new(),
        }
    }

    fn seg(pieces: &[(&str, f32, PieceType)], text: &str) -> Vec<(String, u32)> {
        let m = Bpe::new(&proto(pieces), 0);
        let mut out = Vec::new();
        m.encode(text.as_bytes(), &mut BpeScratch::default(), &mut out);
        out.iter().map(|s| (text[s.start as usize..s.end as usize].to_string(), s.id)).collect()
    }

    fn ids(pieces: &[(&str, f32, PieceType)], text: &str) -> Vec<u32> {
        seg(pieces, text).iter().map(|p| p.1).collect()
    }

    #[test]
    fn highest_score_merges_first_then_leftmost() {
        let base = [("<unk>", 0.0, U), ("a", -5.0, N), ("b", -5.0, N), ("c", -5.0, N)];
        let mut p = base.to_vec();
        p.extend([("ab", -2.0, N), ("bc", -1.0, N)]);
        assert_eq!(ids(&p, "abc"), [1, 5]); // bc first
        let mut p = base.to_vec();
        p.extend([("ab", -1.0, N), ("bc", -1.0, N)]);
        assert_eq!(ids(&p, "abc"), [4, 3]); // tie: leftmost
                                            // +0 ranks above -0 (IEEE total order, as sentencepiece 0.2.3).
        let mut p = base.to_vec();
        p.extend([("ab", -0.0, N), ("bc", 0.0, N)]);
        assert_eq!(ids(&p, "abc"), [1, 5]);
    }

    #[test]
    fn user_defined_symbols_are_frozen_and_unknown_chars_are_unk() {
        let p = [("<unk>", 0.0, U), ("a", -5.0, N), ("b", -5.0, N), ("ab", -1.0, N), ("ba", -0.5, D)];
        // "ba" is matched first as a frozen symbol: no "ab" across it.
        assert_eq!(seg(&p, "aba"), [("a".into(), 1), ("ba".into(), 4)]);
        assert_eq!(ids(&p, "axb"), [1, 0, 2]);
    }

    #[test]
    fn unused_pieces_are_split_back_and_reserved_ones_never_form() {
        let p = [("<unk>", 0.0, U), ("a", -5.0, N), ("b", -5.0, N), ("ab", -1.0, X)];
        assert_eq!(ids(&p, "ab"), [1, 2]);
        // Through an unused piece to a normal one.
        let p = [("<unk>", 0.0, U), ("a", -5.0, N), ("b", -5.0, N), ("c", -5.0, N), ("ab", -1.0, X), ("abc", -2.0, N)];
        assert_eq!(ids(&p, "abc"), [5]);
        // An unused single character has nothing to split into: unknown.
        let p = [("<unk>", 0.0, U), ("a", -5.0, X), ("b", -5.0, N)];
        assert_eq!(ids(&p, "ab"), [0, 2]);
        // A pair whose text is a CONTROL piece is not merged; the character is unknown.
        let p = [("<unk>", 0.0, U), ("a", -5.0, N), ("b", -5.0, N), ("ab", 0.0, C)];
        assert_eq!(ids(&p, "ab"), [1, 2]);
    }

    /// The segment cut is exact: encoding with cuts equals one merge loop over the whole text,
    /// on random vocabularies and texts over a small alphabet with U+2581.
    #[test]
    fn cutting_at_spaces_changes_nothing() {
        let alphabet = ["a", "b", "\u{2581}", "c"];
        let mut rng = Rng::new(11);
        for round in 0..300 {
            let mut pieces = vec![("<unk>".to_string(), 0.0f32, U)];
            for ch in alphabet {
                pieces.push((ch.to_string(), -10.0, N));
            }
            for _ in 0..12 {
                let len = 2 + (rng.next_u64() % 3) as usize;
                let s: String = (0..len).map(|_| alphabet[(rng.next_u64() % 4) as usize]).collect();
                if pieces.iter().all(|p| p.0 != s) {
                    let kind = if rng.next_u64().is_multiple_of(5) { X } else { N };
                    pieces.push((s, -((rng.next_u64() % 7) as f32), kind));
                }
            }
            let p: Vec<(&str, f32, PieceType)> = pieces.iter().map(|(s, f, k)| (s.as_str(), *f, *k)).collect();
            let m = Bpe::new(&proto(&p), 0);
            let mut scratch = BpeScratch::default();
            for _ in 0..5 {
                let len = (rng.next_u64() % 14) as usize;
                let text: String = (0..len).map(|_| alphabet[(rng.next_u64() % 4) as usize]).collect();
                let (mut cut, mut whole) = (Vec::new(), Vec::new());
                m.encode(text.as_bytes(), &mut scratch, &mut cut);
                m.encode(text.as_bytes(), &mut scratch, &mut cut); // again, from the cache
                m.merge(text.as_bytes(), None, &mut scratch, &mut whole);
                let n = whole.len();
                assert_eq!(&cut[..n], &whole[..], "round {round} text {text:?} pieces {pieces:?}");
                assert_eq!(&cut[n..], &whole[..]);
            }
        }
    }

    #[test]
    fn dropout_extremes() {
        let p = proto(&[("<unk>", 0.0, U), ("a", -5.0, N), ("b", -5.0, N), ("ab", -1.0, N)]);
        let m = Bpe::new(&p, 0);
        let mut scratch = BpeScratch::default();
        let run = |alpha: f32, scratch: &mut BpeScratch| {
            let mut out = Vec::new();
            m.sample(b"abab", alpha, &mut Rng::new(1), scratch, &mut out);
            out.iter().map(|s| s.id).collect::<Vec<_>>()
        };
        assert_eq!(run(0.0, &mut scratch), [3, 3]);
        assert_eq!(run(1.0, &mut scratch), [1, 2, 1, 2]);
        // alpha 0.5: each of the two merges kept with probability 1/2.
        let mut rng = Rng::new(3);
        let mut merged = 0;
        for _ in 0..4000 {
            let mut out = Vec::new();
            m.sample(b"ab", 0.5, &mut rng, &mut scratch, &mut out);
            merged += (out.len() == 1) as usize;
        }
        assert!((1800..2200).contains(&merged), "{merged}");
    }
}
