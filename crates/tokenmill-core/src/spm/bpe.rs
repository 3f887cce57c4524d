//! sentencepiece BPE: score-ordered merges (not byte-level), UNUSED pieces re-split.
//!
//! As `bpe_model.cc`: the normalized text starts as characters (a user-defined symbol matched
//! longest-first is one frozen symbol); the adjacent pair whose concatenation is the piece
//! (NORMAL, USER_DEFINED or UNUSED) with the highest score merges first, the leftmost on equal
//! scores; a final symbol that is an UNUSED piece is split back into the two symbols it was
//! last pushed as a pair from, recursively. Scores compare in IEEE total order (as ranks: the
//! bit pattern mapped to an `i32` that sorts the same way).
//!
//! Two merge loops, one order. Up to `SMALL` symbols (nearly every word): arrays of the
//! symbols and of the rank of each adjacent pair, the best pair found by a scan, the merged
//! pair's right symbol shifted out, its two new neighbour pairs looked up; no heap, no stale
//! entries. Longer runs: a binary heap of candidate pairs with stale entries skipped and a
//! doubly linked list of symbols, O(n log n). Both look pairs up in the same order, so the
//! UNUSED bookkeeping (latest push wins) is the same. BPE-dropout (`sample`) always takes the
//! heap: it skips each popped merge with probability `alpha`, as sentencepiece's `SampleEncode`.
//!
//! Pair lookups dominate. A pair of symbols that are both pieces is looked up in `PairTable`,
//! an open-addressing table of (left id, right id) -> (id, rank) built from every split of
//! every piece into two pieces: one probe that usually touches one cache line (a general hash
//! map touched two and was 28% of the time on Mistral-7B). A symbol that is no piece (an
//! unknown character) is looked up in the trie by the pair's bytes.
//!
//! Segments and the cache. A cut between two adjacent characters `a b` of the normalized text
//! is safe when no piece contains `a` immediately followed by `b`. Proof: every symbol other
//! than a single character is a user-defined piece or the result of a merge, i.e. a piece, so
//! no symbol ever spans a safe cut and no pair across it is ever pushed; the pairs on each side
//! change only through merges on that side, so the global order (highest score, then
//! leftmost) restricted to one side is exactly the order a run on that side alone would take.
//! Hence encoding each segment alone and concatenating is exact, except for the final split of
//! UNUSED pieces (sentencepiece splits one back as it was last pushed anywhere in the text): a
//! model with any UNUSED piece is encoded whole, without cuts or cache. Cuts are looked for next to
//! U+2581 (once per word), then inside a run only next to a non-ASCII character (CJK text has
//! few U+2581 and few pieces spanning two of its characters: its runs become a character or
//! two) or anywhere in a run too long for the cache; the pairs of characters side by side in
//! some piece are collected at load. Segments up to `CACHE_MAX_LEN` bytes are memoized in the
//! caller's `BpeScratch` (bounded, cleared when full; one record of bytes and packed tokens per
//! segment, so a hit reads one place): the model itself stays immutable and shared. Measured
//! on Mistral-7B, first pass over 1 MB (CPU time): English 18 -> 27 MB/s, multilingual 30 -> 40.
//!
//! Not here: normalization, byte fallback and unknown runs (`model`). Uses `unigram::Trie` for
//! piece lookups and `unigram::Rng` for dropout.

use std::collections::BinaryHeap;
use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashSet};

use super::proto::{ModelProto, PieceType};
use super::unigram::{one_char_len, Rng, Span, Trie};

const NONE: u32 = u32::MAX;
const SPACE: &[u8] = "\u{2581}".as_bytes();
const SPACE_CHAR: u32 = '\u{2581}' as u32;
/// Longest segment memoized, in bytes.
const CACHE_MAX_LEN: usize = 64;
/// Entries before the per-scratch cache is cleared.
const CACHE_MAX_ENTRIES: usize = 1 << 15;
/// Most symbols merged by the array scan instead of the heap.
const SMALL: usize = 32;
/// No pair (below every rank: the lowest rank, that of a NaN, is refused at load).
const NO_RANK: i32 = i32::MIN;

/// A score as an `i32` ordered as IEEE total order orders the score (sentencepiece 0.2.3
/// compares the bit patterns as sign-magnitude integers: +0 above -0).
fn rank(score: f32) -> i32 {
    let b = score.to_bits() as i32;
    b ^ (((b >> 31) as u32) >> 1) as i32
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
    rank: i32,
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
    /// Higher rank first, then the leftmost.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank.cmp(&other.rank).then_with(|| other.left.cmp(&self.left))
    }
}

/// (left id, right id) -> (id, rank) of the piece spelled by two pieces side by side, for every
/// split of every piece whose id is not reserved. Linear probing at load <= 1/2; key and answer
/// share a 16-byte slot so a probe reads one cache line.
#[derive(Debug, Clone)]
struct PairTable {
    slots: Vec<PairSlot>,
    shift: u32,
}

#[derive(Debug, Clone, Copy)]
struct PairSlot {
    /// left << 32 | right; `EMPTY` for a free slot (no id is `NONE`).
    key: u64,
    id: u32,
    rank: i32,
}

const EMPTY: u64 = u64::MAX;

impl PairTable {
    fn build(entries: &[(u64, u32, i32)]) -> PairTable {
        let bits = (entries.len() * 2).max(2).next_power_of_two().trailing_zeros();
        let mut table = PairTable { slots: vec![PairSlot { key: EMPTY, id: 0, rank: 0 }; 1 << bits], shift: 64 - bits };
        let mask = table.slots.len() - 1;
        for &(key, id, rank) in entries {
            let mut i = table.slot(key);
            while table.slots[i].key != EMPTY && table.slots[i].key != key {
                i = (i + 1) & mask;
            }
            table.slots[i] = PairSlot { key, id, rank };
        }
        table
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline]
    fn get(&self, left: u32, right: u32) -> Option<(u32, i32)> {
        let key = (left as u64) << 32 | right as u64;
        let mask = self.slots.len() - 1;
        let mut i = self.slot(key);
        loop {
            let e = self.slots[i];
            if e.key == key {
                return Some((e.id, e.rank));
            }
            if e.key == EMPTY {
                return None;
            }
            i = (i + 1) & mask;
        }
    }
}

/// A memoized segment. Its tokens are four bytes each (little-endian `id << 8 | end`: the spans
/// are contiguous from 0). A segment of up to `INLINE_LEN` bytes is compared by `key`
/// (`short_key`), and if it is one token, `record` is that token: such a hit (most words of
/// prose) reads the entry alone. Otherwise `record` is where its tokens are in
/// `BpeScratch::records`, after its `len` bytes when it is longer than `INLINE_LEN`, so a hit
/// reads one more place.
#[derive(Debug, Clone, Copy)]
struct CacheEntry {
    hash: u64,
    key: u64,
    record: u32,
    len: u8,
    tokens: u8,
}

/// Longest segment compared by its entry's `key`, in bytes.
const INLINE_LEN: usize = 8;

/// The bytes of a segment of at most 8 bytes as one word, unique among segments of its length
/// (`table::pack`'s low word: overlapping loads, no copy of a tail), and a hash of it with the
/// length.
#[inline]
fn short_key(s: &[u8]) -> (u64, u64) {
    let n = s.len();
    let key = crate::table::pack(s).map_or(0, |k| k.0);
    // hashbrown takes the bucket from the low bits and a tag from the top 7: a multiply alone
    // leaves the low bits weak, so the high half is folded in.
    let h = (key ^ (n as u64) << 58).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (key, h ^ h >> 32)
}

/// Reusable memory of BPE encoding, with the segment cache.
#[derive(Debug, Default)]
pub struct BpeScratch {
    syms: Vec<Sym>,
    heap: BinaryHeap<Pair>,
    /// (merged, left, right) byte ranges of UNUSED pairs, latest push wins.
    rev: Vec<(u32, u32, u32)>,
    spans: Vec<Span>,
    cache: HashTable<CacheEntry>,
    records: Vec<u8>,
}

/// The BPE segmenter of one model (immutable).
#[derive(Debug, Clone)]
pub struct Bpe {
    /// Every piece, value = id (sentencepiece 0.2.3's BPE keeps one map; a pair or final symbol
    /// whose piece is UNKNOWN, CONTROL or BYTE counts as absent).
    trie: Trie,
    /// USER_DEFINED pieces: the frozen initial symbols.
    user: Option<Trie>,
    ranks: Vec<i32>,
    unused: Vec<bool>,
    /// Some piece is UNUSED: no segment cuts and no cache (see `encode`).
    has_unused: bool,
    /// UNKNOWN, CONTROL and BYTE pieces.
    reserved: Vec<bool>,
    unk_id: u32,
    /// Pairs of pieces: texts are unique in the one map, so its answer is the trie's.
    pairs: PairTable,
    /// The id of each ASCII character (`NONE` if it is no piece): initial symbols without the trie.
    ascii: [u32; 128],
    /// `a << 32 | b` for characters `a`, `b` (as u32) that some piece has side by side, not
    /// both ASCII; `ascii_joined[a] >> b & 1` for two ASCII characters.
    joined: FxHashSet<u64>,
    ascii_joined: [u128; 128],
    /// ASCII characters that some piece has right before / right after U+2581.
    ascii_before: [bool; 128],
    ascii_after: [bool; 128],
}

impl Bpe {
    /// The segmenter of a validated proto (`model` checks the pieces first).
    pub fn new(proto: &ModelProto, unk_id: u32) -> Bpe {
        let mut keys = Vec::new();
        let mut user = Vec::new();
        let mut joined = FxHashSet::default();
        let mut ascii_joined = [0u128; 128];
        for (i, p) in proto.pieces.iter().enumerate() {
            keys.push((p.piece.as_bytes(), i as u32));
            match p.kind {
                PieceType::Normal | PieceType::UserDefined | PieceType::Unused => {
                    let chars: Vec<char> = p.piece.chars().collect();
                    for w in chars.windows(2) {
                        let (a, b) = (w[0] as u32, w[1] as u32);
                        if a < 128 && b < 128 {
                            ascii_joined[a as usize] |= 1 << b;
                        } else {
                            joined.insert((a as u64) << 32 | b as u64);
                        }
                    }
                }
                _ => {}
            }
            if p.kind == PieceType::UserDefined {
                user.push((p.piece.as_bytes(), i as u32));
            }
        }
        let space = '\u{2581}' as u64;
        let ascii_before = std::array::from_fn(|c| joined.contains(&((c as u64) << 32 | space)));
        let ascii_after = std::array::from_fn(|c| joined.contains(&(space << 32 | c as u64)));
        let trie = Trie::build(&keys);
        let ranks: Vec<i32> = proto.pieces.iter().map(|p| rank(p.score)).collect();
        let reserved: Vec<bool> = proto
            .pieces
            .iter()
            .map(|p| !matches!(p.kind, PieceType::Normal | PieceType::UserDefined | PieceType::Unused))
            .collect();
        let mut entries = Vec::new();
        for &(piece, id) in &keys {
            if trie.get(piece) != Some(id) || reserved[id as usize] {
                continue; // a duplicate text (the later one answers) or never merged into
            }
            // Splits at character boundaries only: symbols are whole characters.
            let text = std::str::from_utf8(piece).unwrap_or_default();
            for (k, _) in text.char_indices().skip(1) {
                if let (Some(a), Some(b)) = (trie.get(&piece[..k]), trie.get(&piece[k..])) {
                    entries.push(((a as u64) << 32 | b as u64, id, ranks[id as usize]));
                }
            }
        }
        Bpe {
            ascii: std::array::from_fn(|c| trie.get(&[c as u8]).unwrap_or(NONE)),
            trie,
            pairs: PairTable::build(&entries),
            user: (!user.is_empty()).then(|| Trie::build(&user)),
            ranks,
            unused: proto.pieces.iter().map(|p| p.kind == PieceType::Unused).collect(),
            has_unused: proto.pieces.iter().any(|p| p.kind == PieceType::Unused),
            reserved,
            unk_id,
            joined,
            ascii_joined,
            ascii_before,
            ascii_after,
        }
    }

    /// Appends the segmentation of `s` (normalized bytes) to `out`, spans in `s`'s offsets.
    pub fn encode(&self, s: &[u8], scratch: &mut BpeScratch, out: &mut Vec<Span>) {
        if self.has_unused {
            // sentencepiece splits an UNUSED piece back as it was last pushed anywhere in the
            // text, in the global merge order, which segments encoded alone cannot know.
            return self.merge(s, None, scratch, out);
        }
        let mut seg = 0;
        let mut cut_at = |cut: usize, scratch: &mut BpeScratch, out: &mut Vec<Span>| {
            if cut > seg {
                self.encode_part(&s[seg..cut], seg as u32, scratch, out);
                seg = cut;
            }
        };
        // U+2581 is E2 96 81. A plain scan: on English text a hit comes every few bytes, where
        // `memmem::find_iter` (set-up per call and per hit: a tenth of the encode) and even
        // `memchr_iter` (a call per hit) cost more than the few instructions a byte costs here.
        for p in 0..s.len().saturating_sub(SPACE.len() - 1) {
            if s[p] != SPACE[0] || s[p + 1] != SPACE[1] || s[p + 2] != SPACE[2] {
                continue;
            }
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
            (false, true) => self.joined(c, SPACE_CHAR),
            (false, false) => self.joined(SPACE_CHAR, c),
        }
    }

    /// Whether some piece has character `a` right before character `b`.
    #[inline]
    fn joined(&self, a: u32, b: u32) -> bool {
        if a < 128 && b < 128 {
            self.ascii_joined[a as usize] >> b & 1 != 0
        } else {
            self.joined.contains(&((a as u64) << 32 | b as u64))
        }
    }

    /// Encodes `s`, a run between cuts at U+2581, cut further between any two characters that no
    /// piece joins. Looked for only next to a non-ASCII character (CJK text has few U+2581 and
    /// few pieces across characters, so its runs become short and cacheable), or anywhere in a
    /// run too long for the cache; an ASCII word would pay a lookup per letter for nothing.
    fn encode_part(&self, s: &[u8], offset: u32, scratch: &mut BpeScratch, out: &mut Vec<Span>) {
        let long = s.len() > CACHE_MAX_LEN;
        // Bytes of U+2581 (E2 96 81) alone do not count: every word starts with it.
        if !long && s.iter().all(|&b| b < 0x80 || matches!(b, 0xE2 | 0x96 | 0x81)) {
            return self.encode_segment(s, offset, scratch, out);
        }
        let Ok(text) = std::str::from_utf8(s) else {
            return self.encode_segment(s, offset, scratch, out);
        };
        let mut seg = 0;
        let mut prev = SPACE_CHAR;
        for (k, c) in text.char_indices() {
            let c = c as u32;
            // Cuts next to U+2581 were decided by the caller.
            if prev != SPACE_CHAR && c != SPACE_CHAR && (long || prev >= 128 || c >= 128) && !self.joined(prev, c) {
                self.encode_segment(&s[seg..k], offset + seg as u32, scratch, out);
                seg = k;
            }
            prev = c;
        }
        self.encode_segment(&s[seg..], offset + seg as u32, scratch, out);
    }

    fn encode_segment(&self, s: &[u8], offset: u32, scratch: &mut BpeScratch, out: &mut Vec<Span>) {
        // Cached tokens pack the id in 24 bits.
        if s.len() > CACHE_MAX_LEN || self.ranks.len() > 1 << 24 {
            let mut spans = std::mem::take(&mut scratch.spans);
            spans.clear();
            self.merge(s, None, scratch, &mut spans);
            out.extend(spans.iter().map(|sp| shift(sp, offset)));
            scratch.spans = spans;
            return;
        }
        let n = s.len();
        // The bytes are hashed once, for the probe and the insertion.
        let (key, hash) = if n <= INLINE_LEN { short_key(s) } else { (0, FxBuildHasher.hash_one(s)) };
        let records = &scratch.records;
        let hit = scratch.cache.find(hash, |e| {
            e.hash == hash
                && e.len as usize == n
                && if n <= INLINE_LEN { e.key == key } else { same_bytes(&records[e.record as usize..][..n], s) }
        });
        if let Some(e) = hit {
            if n <= INLINE_LEN && e.tokens == 1 {
                out.push(Span { start: offset, end: offset + n as u32, id: e.record >> 8 });
                return;
            }
            let at = e.record as usize + if n <= INLINE_LEN { 0 } else { n };
            let tokens = &records[at..][..4 * e.tokens as usize];
            let mut start = offset;
            out.extend(tokens.chunks_exact(4).map(|t| {
                let t = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
                let end = offset + (t & 0xFF);
                let sp = Span { start, end, id: t >> 8 };
                start = end;
                sp
            }));
            return;
        }
        if scratch.cache.len() >= CACHE_MAX_ENTRIES {
            scratch.cache.clear();
            scratch.records.clear();
        }
        let mut spans = std::mem::take(&mut scratch.spans);
        spans.clear();
        self.merge(s, None, scratch, &mut spans);
        out.extend(spans.iter().map(|sp| shift(sp, offset)));
        let record = if n <= INLINE_LEN && spans.len() == 1 {
            spans[0].id << 8 | spans[0].end
        } else {
            let record = scratch.records.len() as u32;
            if n > INLINE_LEN {
                scratch.records.extend_from_slice(s);
            }
            for sp in &spans {
                scratch.records.extend_from_slice(&(sp.id << 8 | sp.end).to_le_bytes());
            }
            record
        };
        let e = CacheEntry { hash, key, record, len: n as u8, tokens: spans.len() as u8 };
        scratch.cache.insert_unique(hash, e, |e| e.hash);
        scratch.spans = spans;
    }

    /// BPE-dropout over all of `s`: each merge skipped with probability `alpha`.
    pub fn sample(&self, s: &[u8], alpha: f32, rng: &mut Rng, scratch: &mut BpeScratch, out: &mut Vec<Span>) {
        self.merge(s, Some((alpha, rng)), scratch, out);
    }

    /// The merge loop over `s`; appends spans relative to `s`.
    fn merge(&self, s: &[u8], dropout: Option<(f32, &mut Rng)>, scratch: &mut BpeScratch, out: &mut Vec<Span>) {
        let syms = &mut scratch.syms;
        syms.clear();
        scratch.rev.clear();
        let mut pos = 0;
        while pos < s.len() {
            let user = self.user.as_ref().and_then(|t| t.longest_prefix(&s[pos..]));
            let (len, id, freeze) = match user {
                Some((len, id)) => (len, id, true),
                None if s[pos] < 128 => (1, self.ascii[s[pos] as usize], false),
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
        if dropout.is_none() && syms.len() <= SMALL {
            self.merge_small(s, scratch, out);
        } else {
            self.merge_heap(s, dropout, scratch, out);
        }
    }

    /// The merge loop over at most `SMALL` initial symbols, without dropout: the rank of the pair
    /// each symbol starts (`NO_RANK` for none or a merged-away symbol), scanned for the best.
    fn merge_small(&self, s: &[u8], scratch: &mut BpeScratch, out: &mut Vec<Span>) {
        let syms = &mut scratch.syms;
        let rev = &mut scratch.rev;
        let n = syms.len();
        if n == 0 {
            return;
        }
        let mut pair_rank = [NO_RANK; SMALL];
        let mut pair_id = [0u32; SMALL];
        let pair = |syms: &[Sym], left: u32, rev: &mut Vec<(u32, u32, u32)>| {
            let l = syms[left as usize];
            if l.next == NONE {
                return None;
            }
            let r = syms[l.next as usize];
            if l.freeze || r.freeze {
                return None;
            }
            self.pair(s, l.start, l.end, r.end, l.id, r.id, rev)
        };
        for i in 0..n - 1 {
            if let Some((p, r)) = pair(syms, i as u32, rev) {
                (pair_id[i], pair_rank[i]) = (p, r);
            }
        }
        loop {
            let mut best = 0;
            for i in 1..n - 1 {
                // Strictly higher: the leftmost wins a tie.
                if pair_rank[i] > pair_rank[best] {
                    best = i;
                }
            }
            if pair_rank[best] == NO_RANK {
                break;
            }
            let right = syms[best].next as usize;
            let r = syms[right];
            let left = &mut syms[best];
            (left.end, left.next, left.id) = (r.end, r.next, pair_id[best]);
            if r.next != NONE {
                syms[r.next as usize].prev = best as u32;
            }
            pair_rank[right] = NO_RANK;
            // Left neighbour pair first, as the heap loop pushes them.
            let prev = syms[best].prev;
            if prev != NONE {
                (pair_id[prev as usize], pair_rank[prev as usize]) = pair(syms, prev, rev).unwrap_or((0, NO_RANK));
            }
            (pair_id[best], pair_rank[best]) = pair(syms, best as u32, rev).unwrap_or((0, NO_RANK));
        }
        let mut i = 0;
        while i != NONE {
            let sym = syms[i as usize];
            self.emit(s, rev, sym.start, sym.end, sym.id, out);
            i = sym.next;
        }
    }

    /// The merge loop with a heap, for long runs and dropout.
    fn merge_heap(
        &self,
        s: &[u8],
        mut dropout: Option<(f32, &mut Rng)>,
        scratch: &mut BpeScratch,
        out: &mut Vec<Span>,
    ) {
        let syms = &mut scratch.syms;
        let heap = &mut scratch.heap;
        let rev = &mut scratch.rev;
        heap.clear();
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
            self.emit(s, rev, sym.start, sym.end, sym.id, out);
            i = sym.next;
        }
    }

    /// Appends a final symbol: unknown, its piece, or an UNUSED piece split back.
    #[inline]
    fn emit(&self, s: &[u8], rev: &[(u32, u32, u32)], start: u32, end: u32, id: u32, out: &mut Vec<Span>) {
        match id {
            NONE => out.push(Span { start, end, id: self.unk_id }),
            id if self.reserved[id as usize] => out.push(Span { start, end, id: self.unk_id }),
            id if self.unused[id as usize] => self.resegment(s, rev, start, end, 0, out),
            id => out.push(Span { start, end, id }),
        }
    }

    /// The piece and rank of two adjacent symbols `s[ls..mid]` and `s[mid..re]` side by side, if
    /// they may merge; records an UNUSED one in `rev` (latest push wins).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn pair(
        &self,
        s: &[u8],
        ls: u32,
        mid: u32,
        re: u32,
        left: u32,
        right: u32,
        rev: &mut Vec<(u32, u32, u32)>,
    ) -> Option<(u32, i32)> {
        let (id, rank) = if left != NONE && right != NONE {
            self.pairs.get(left, right)?
        } else {
            let id = self.trie.get(&s[ls as usize..re as usize])?;
            if self.reserved[id as usize] {
                return None;
            }
            (id, self.ranks[id as usize])
        };
        if self.unused[id as usize] {
            let merged = &s[ls as usize..re as usize];
            match rev.iter_mut().find(|e| &s[e.0 as usize..e.2 as usize] == merged) {
                Some(e) => *e = (ls, mid, re),
                None => rev.push((ls, mid, re)),
            }
        }
        Some((id, rank))
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
        if let Some((id, rank)) = self.pair(s, l.start, l.end, r.end, l.id, r.id, rev) {
            heap.push(Pair { rank, left, right, size: r.end - l.start, id });
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

/// `a == b` for two slices of one length, eight bytes at a time (short keys: no call to `memcmp`).
#[inline]
/// `a == b` for slices of equal length, by overlapping word loads (short keys: a call to
/// `memcmp`, or copying a tail into a buffer, costs more than the comparison).
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    debug_assert_eq!(n, b.len());
    if n != b.len() {
        return false;
    }
    let r8 = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().unwrap_or_default());
    let r4 = |s: &[u8], i: usize| u32::from_le_bytes(s[i..i + 4].try_into().unwrap_or_default());
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => r4(a, 0) == r4(b, 0) && r4(a, n - 4) == r4(b, n - 4),
        _ => (0..n - 8).step_by(8).all(|i| r8(a, i) == r8(b, i)) && r8(a, n - 8) == r8(b, n - 8),
    }
}

fn shift(sp: &Span, offset: u32) -> Span {
    Span { start: sp.start + offset, end: sp.end + offset, id: sp.id }
}

/// The character (as u32) ending at byte `p` of `s`; `None` if not valid UTF-8 (no cut then).
#[inline]
fn prev_char(s: &[u8], p: usize) -> Option<u32> {
    if s[p - 1] < 0x80 {
        return Some(s[p - 1] as u32);
    }
    let mut a = p - 1;
    while a > 0 && p - a < 4 && s[a] & 0xC0 == 0x80 {
        a -= 1;
    }
    decode_char(&s[a..p])
}

/// The character (as u32) starting at byte `q` of `s`; `None` if not valid UTF-8.
#[inline]
fn next_char(s: &[u8], q: usize) -> Option<u32> {
    if s[q] < 0x80 {
        return Some(s[q] as u32);
    }
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

    /// The segment cuts are exact and both merge loops agree: encoding with cuts equals one
    /// merge loop over the whole text (the scan up to `SMALL` symbols, the heap above) and the
    /// heap loop alone (dropout 0), on random vocabularies and texts over a small alphabet with
    /// U+2581 and a non-ASCII letter.
    #[test]
    fn cutting_at_spaces_changes_nothing() {
        let alphabet = ["a", "b", "\u{2581}", "c", "\u{65e5}"];
        let pick = |rng: &mut Rng| alphabet[(rng.next_u64() % alphabet.len() as u64) as usize];
        let mut rng = Rng::new(11);
        for round in 0..600 {
            let mut pieces = vec![("<unk>".to_string(), 0.0f32, U)];
            for ch in alphabet {
                pieces.push((ch.to_string(), -10.0, N));
            }
            for _ in 0..12 {
                let len = 2 + (rng.next_u64() % 3) as usize;
                let s: String = (0..len).map(|_| pick(&mut rng)).collect();
                if pieces.iter().all(|p| p.0 != s) {
                    // UNUSED pieces in odd rounds only: a model with one is encoded whole (see
                    // `encode`), so even rounds test the cuts and odd ones the UNUSED splits.
                    let kind = if round % 2 == 1 && rng.next_u64().is_multiple_of(5) { X } else { N };
                    pieces.push((s, -((rng.next_u64() % 7) as f32), kind));
                }
            }
            let p: Vec<(&str, f32, PieceType)> = pieces.iter().map(|(s, f, k)| (s.as_str(), *f, *k)).collect();
            let m = Bpe::new(&proto(&p), 0);
            let mut scratch = BpeScratch::default();
            for _ in 0..5 {
                let len = (rng.next_u64() % if round % 3 == 0 { 60 } else { 14 }) as usize;
                let text: String = (0..len).map(|_| pick(&mut rng)).collect();
                let (mut cut, mut whole, mut heap) = (Vec::new(), Vec::new(), Vec::new());
                m.encode(text.as_bytes(), &mut scratch, &mut cut);
                m.encode(text.as_bytes(), &mut scratch, &mut cut); // again, from the cache
                m.merge(text.as_bytes(), None, &mut scratch, &mut whole);
                m.sample(text.as_bytes(), 0.0, &mut Rng::new(0), &mut scratch, &mut heap);
                let n = whole.len();
                assert_eq!(&cut[..n], &whole[..], "round {round} text {text:?} pieces {pieces:?}");
                assert_eq!(&cut[n..], &whole[..]);
                assert_eq!(heap, whole, "round {round} text {text:?} pieces {pieces:?}");
            }
        }
    }

    #[test]
    fn same_bytes_sees_every_byte() {
        for n in 0..40usize {
            let a: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37)).collect();
            assert!(same_bytes(&a, &a.clone()));
            for i in 0..n {
                let mut b = a.clone();
                b[i] ^= 0x40;
                assert!(!same_bytes(&a, &b), "length {n}, byte {i}");
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
