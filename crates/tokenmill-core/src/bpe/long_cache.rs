//! `LongCache`: the tokens of merged long pieces (more than 15 bytes), kept across the calls
//! and threads of one encoder, in a table of fixed size. `SharedCache` is its counterpart for
//! short pieces.
//!
//! Why: a CJK run is one pre-token of 10-40 characters that merging takes apart into words,
//! and every call meets it new, so re-encoding the same text (the history of a chat, a
//! system prompt, a corpus read twice) merged each run again: on a warm pass over fr/ja/zh
//! text its merges were 40% of the time. Within a call, a run is rarely met twice, so this
//! cache pays off across calls only; on a first pass it costs one write per long piece.
//!
//! The shape: two four-way set-associative tables of slots, each slot holding one piece's
//! bytes and its tokens. The first has 256-byte slots (four cache lines), at most 240 bytes
//! of both (96% of the long pieces of fr/ja/zh text for cl100k, 98.5% for o200k); the
//! second, a sixteenth as many slots of 1 KiB (1,008 bytes of both), takes the pieces that do
//! not fit the first: the longest runs, whose merges are the costliest (4% of the long
//! pieces of that text, 15% of their bytes). The bytes are compared on every hit, so a
//! collision of the 64-bit hash can only miss. A byte per slot holds 8 bits of its piece's
//! hash, so a miss reads no slot line. A new piece replaces the slot of its set written
//! longer ago: memory is fixed (`slots * 257 + slots / 16 * 1025` bytes, each table
//! allocated on its first insert) whatever the input. Thread safety is `SharedCache`'s
//! sequence lock per slot: readers never wait and never keep a torn copy.
//!
//! What it does not do: decide what to cache (`merge`), or hold pieces that fit neither
//! table (the per-call cache in `merge::Scratch` takes those up to its own limit).

use std::hash::Hasher;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::OnceLock;

use crate::table::prefetch;
use crate::types::Rank;
use crate::zeroed::{Zeroable, Zeroed};

/// Bytes per slot of the first table.
pub const SLOT_BYTES: usize = 256;

/// Slots of the first table per slot of the second.
const BIG_SHARE: usize = 16;

/// Slots per set. Why four, not `SharedCache`'s two: after a pass over 1.9 MB of fr/ja/zh
/// text (12,000 distinct long pieces), 16,384 slots hold the pieces of 72% of its long
/// pieces' bytes with two ways, 78% with four (cl100k; simulated).
const WAYS: usize = 4;

/// 8-byte words of a slot that hold a piece and its tokens, in each table.
const WORDS: usize = 30;
const BIG_WORDS: usize = 126;

#[repr(C, align(64))]
struct Slot<const W: usize> {
    /// Even: stable; odd: being written.
    seq: AtomicU32,
    /// The piece's length in bytes (low 16 bits) and its number of tokens (high 16 bits).
    shape: AtomicU32,
    hash: AtomicU64,
    /// The piece's bytes, padded to whole words, then its tokens, two to a word.
    data: [AtomicU64; W],
}

const _: () = assert!(std::mem::size_of::<Slot<WORDS>>() == SLOT_BYTES);
const _: () = assert!(std::mem::size_of::<Slot<BIG_WORDS>>() == 1024);

// SAFETY: atomic integers only; all zero is an empty, stable slot.
unsafe impl<const W: usize> Zeroable for Slot<W> {}

/// Words a piece of `len` bytes with `n` tokens takes in a slot.
#[inline(always)]
fn words(len: usize, n: usize) -> usize {
    len.div_ceil(8) + n.div_ceil(2)
}

/// Up to 8 bytes as a little-endian word, zero-padded: how a slot holds a piece.
#[inline(always)]
fn word(b: &[u8]) -> u64 {
    match b.try_into() {
        Ok(w) => u64::from_le_bytes(w),
        Err(_) => {
            let mut w = [0u8; 8];
            w[..b.len()].copy_from_slice(b);
            u64::from_le_bytes(w)
        }
    }
}

/// The hash `LongCache` files a piece under.
#[inline]
pub fn hash(piece: &[u8]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    h.write(piece);
    // Spread into the high bits, which pick the set and the tag.
    (h.finish() ^ piece.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// See the module documentation. `Clone` gives an empty cache of the same size.
pub struct LongCache {
    small: Table<WORDS>,
    /// The pieces that do not fit `small`.
    big: Table<BIG_WORDS>,
}

impl LongCache {
    /// A cache of `slots` slots of 256 bytes and a sixteenth as many of 1 KiB, each rounded
    /// down to a power of two (0: no cache).
    pub fn new(slots: usize) -> Self {
        // Huge pages for the first table, which a warm pass reads all over; the second is
        // read rarely, and its first write should not clear 2 MiB.
        LongCache { small: Table::new(slots, true), big: Table::new(slots / BIG_SHARE, false) }
    }

    /// Number of 256-byte slots (0: caching is off).
    pub fn slots(&self) -> usize {
        self.small.n_slots
    }

    /// Whether this cache is on and a piece of `len` bytes may fit a slot (with one token).
    /// Why the caller asks first: a megabyte-long piece (a run of random letters) was hashed
    /// whole for a cache that can never hold it.
    #[inline(always)]
    pub fn may_hold(&self, len: usize) -> bool {
        self.small.may_hold(len) || self.big.may_hold(len)
    }

    /// Appends the cached tokens of `piece` (whose `hash` is `hash`) to `out`; false on a miss.
    /// On a miss, asks the CPU for the lines `insert` will read, so that their misses overlap
    /// the piece's merge.
    #[inline]
    pub fn get(&self, piece: &[u8], hash: u64, out: &mut Vec<Rank>) -> bool {
        let len = piece.len();
        // Only the first table's lines are asked for on a miss: most new pieces go there.
        (self.small.may_hold(len) && self.small.get::<true>(piece, hash, out))
            || (self.big.may_hold(len) && self.big.get::<false>(piece, hash, out))
    }

    /// Asks the CPU for the lines of each slot whose tag says it may hold the piece of `len`
    /// bytes whose hash is `hash`: the slot's header, the piece's bytes and a line of its
    /// tokens, so that a `get` soon after finds them loaded. Why all of them: with only the
    /// first two, a warm pass over fr/ja/zh text waited on the later ones in `get`'s byte
    /// comparison (its one load was 40% of `encode_long_piece`); with all, 1.01-1.03x in 15-17
    /// of 20 rounds. Reads only tags: a piece never cached costs no trip to memory.
    #[inline(always)]
    pub fn prefetch_held(&self, hash: u64, len: usize) {
        if self.small.may_hold(len) {
            self.small.prefetch_held(hash, len);
        }
        if self.big.may_hold(len) {
            self.big.prefetch_held(hash, len);
        }
    }

    /// Caches `tokens` for `piece` (whose hash is `hash`) in a slot of its set in the first
    /// table they fit, unless another thread is writing that slot. Returns false, caching
    /// nothing, when the cache is off or they fit neither table (the caller may keep them
    /// elsewhere).
    pub fn insert(&self, piece: &[u8], hash: u64, tokens: &[Rank]) -> bool {
        self.small.insert(piece, hash, tokens) || self.big.insert(piece, hash, tokens)
    }
}

/// One table of `LongCache`: slots of `W` words for a piece and its tokens.
struct Table<const W: usize> {
    mem: OnceLock<Memory<W>>,
    /// A power of two, or 0 when this table is off.
    n_slots: usize,
    /// Whether its slots go on huge pages (`Zeroed::new`) or ordinary ones.
    huge_pages: bool,
}

struct Memory<const W: usize> {
    /// On huge pages where the system gives them (see `zeroed`).
    slots: Zeroed<Slot<W>>,
    /// `Table::tag` of each slot's piece; 0 while empty.
    tags: Box<[AtomicU8]>,
}

impl<const W: usize> Table<W> {
    /// A table of `slots` slots, rounded down to a power of two (0: none).
    fn new(slots: usize, huge_pages: bool) -> Self {
        let n_slots = if slots == 0 { 0 } else { 1 << slots.ilog2() };
        Table { mem: OnceLock::new(), n_slots, huge_pages }
    }

    /// Whether this table is on and a piece of `len` bytes may fit a slot (with one token).
    #[inline(always)]
    fn may_hold(&self, len: usize) -> bool {
        self.n_slots != 0 && Self::fits(len, 1)
    }

    /// Whether a piece of `len` bytes with `n` tokens fits a slot.
    #[inline(always)]
    fn fits(len: usize, n: usize) -> bool {
        n > 0 && words(len, n) <= W
    }

    /// The slots of the set of a piece whose hash is `hash`: `WAYS` adjacent ones (all of
    /// them in a smaller cache).
    #[inline(always)]
    fn set(&self, hash: u64) -> std::ops::Range<usize> {
        let ways = self.n_slots.min(WAYS);
        let i0 = (hash >> 32) as usize & (self.n_slots - 1) & !(ways - 1);
        i0..i0 + ways
    }

    #[inline(always)]
    fn tag(hash: u64) -> u8 {
        (hash >> 56) as u8 | 1
    }

    /// `LongCache::get` in this table (with `PREFETCH`, asking for the set's lines on a miss).
    #[inline]
    fn get<const PREFETCH: bool>(&self, piece: &[u8], hash: u64, out: &mut Vec<Rank>) -> bool {
        let Some(mem) = self.mem.get() else { return false };
        let tag = Self::tag(hash);
        let hit = self
            .set(hash)
            .any(|i| mem.tags[i].load(Ordering::Relaxed) == tag && Self::read(&mem.slots[i], piece, hash, out));
        if PREFETCH && !hit {
            self.set(hash).for_each(|i| prefetch(&mem.slots[i]));
        }
        hit
    }

    /// `LongCache::prefetch_held` in this table.
    #[inline(always)]
    fn prefetch_held(&self, hash: u64, len: usize) {
        let Some(mem) = self.mem.get() else { return };
        let tag = Self::tag(hash);
        // The lines of the slot's header and the piece's bytes, and one of tokens.
        let lines = ((16 + len).div_ceil(64) + 1).min(std::mem::size_of::<Slot<W>>() / 64);
        for i in self.set(hash) {
            if mem.tags[i].load(Ordering::Relaxed) == tag {
                let slot: *const Slot<W> = &mem.slots[i];
                for k in 0..lines {
                    prefetch(slot.wrapping_byte_add(64 * k));
                }
            }
        }
    }

    /// Appends the tokens of slot `s` to `out` if it holds `piece` and is not being written.
    #[inline]
    fn read(s: &Slot<W>, piece: &[u8], hash: u64, out: &mut Vec<Rank>) -> bool {
        let seq = s.seq.load(Ordering::Acquire);
        let shape = s.shape.load(Ordering::Relaxed);
        let (len, n) = ((shape & 0xFFFF) as usize, (shape >> 16) as usize);
        if seq & 1 != 0 || len != piece.len() || s.hash.load(Ordering::Relaxed) != hash || !Self::fits(len, n) {
            return false;
        }
        // Straight from the slot, no copy: a torn read fails the second look at the counter.
        if !piece.chunks(8).zip(&s.data).all(|(c, w)| word(c) == w.load(Ordering::Relaxed)) {
            return false;
        }
        let before = out.len();
        out.reserve(n + 1);
        for w in &s.data[len.div_ceil(8)..words(len, n)] {
            let w = w.load(Ordering::Relaxed);
            out.extend_from_slice(&[w as Rank, (w >> 32) as Rank]);
        }
        out.truncate(before + n);
        // Orders the reads above before the second read of the counter.
        fence(Ordering::Acquire);
        if s.seq.load(Ordering::Relaxed) != seq {
            out.truncate(before);
            return false;
        }
        true
    }

    /// `LongCache::insert` in this table: false when it is off or they do not fit.
    fn insert(&self, piece: &[u8], hash: u64, tokens: &[Rank]) -> bool {
        if self.n_slots == 0 || !Self::fits(piece.len(), tokens.len()) {
            return false;
        }
        let mem = self.mem.get_or_init(|| Memory {
            slots: if self.huge_pages { Zeroed::new(self.n_slots) } else { Zeroed::on_small_pages(self.n_slots) },
            tags: (0..self.n_slots).map(|_| AtomicU8::new(0)).collect(),
        });
        let set = self.set(hash);
        let tag = Self::tag(hash);
        // An empty slot, else the one written longest ago (first in, first out): every write
        // adds 2 to its slot's counter, so the set's writes, counted modulo its size, name the
        // next slot to replace (only a heuristic while other threads write the set too).
        let i = set.clone().find(|&i| mem.tags[i].load(Ordering::Relaxed) == 0).unwrap_or_else(|| {
            let writes = set.clone().fold(0u32, |n, i| n.wrapping_add(mem.slots[i].seq.load(Ordering::Relaxed) >> 1));
            set.start + writes as usize % set.len()
        });
        let s = &mem.slots[i];
        let seq = s.seq.load(Ordering::Relaxed);
        if seq & 1 != 0
            || s.seq.compare_exchange(seq, seq.wrapping_add(1), Ordering::Acquire, Ordering::Relaxed).is_err()
        {
            return true;
        }
        // The odd counter becomes visible before any of the writes below.
        fence(Ordering::Release);
        s.hash.store(hash, Ordering::Relaxed);
        s.shape.store(piece.len() as u32 | (tokens.len() as u32) << 16, Ordering::Relaxed);
        let at = piece.len().div_ceil(8);
        for (d, c) in s.data.iter().zip(piece.chunks(8)) {
            d.store(word(c), Ordering::Relaxed);
        }
        for (d, t) in s.data[at..].iter().zip(tokens.chunks(2)) {
            d.store(t[0] as u64 | (t.get(1).copied().unwrap_or(0) as u64) << 32, Ordering::Relaxed);
        }
        // Only a hint for `get`: a stale tag makes a lookup miss or read the slot for nothing.
        mem.tags[i].store(tag, Ordering::Relaxed);
        s.seq.store(seq.wrapping_add(2), Ordering::Release);
        true
    }
}

impl Clone for LongCache {
    fn clone(&self) -> Self {
        LongCache::new(self.small.n_slots)
    }
}

impl std::fmt::Debug for LongCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = |in_use: bool| if in_use { "in use" } else { "unused" };
        write!(
            f,
            "LongCache({} slots, {}; {} of 1 KiB, {})",
            self.small.n_slots,
            state(self.small.mem.get().is_some()),
            self.big.n_slots,
            state(self.big.mem.get().is_some())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_fits_compares_bytes_and_misses_otherwise() {
        let c = LongCache::new(100);
        assert_eq!(c.slots(), 64);
        let out = &mut Vec::new();
        let p = "東京は日本の首都であり、最大の都市".as_bytes();
        assert!(!c.get(p, hash(p), out), "empty");
        assert!(c.insert(p, hash(p), &[1, 2, 3, 70_000]));
        assert!(c.get(p, hash(p), out));
        assert_eq!(out, &[1, 2, 3, 70_000]);
        // Same hash and length, other bytes: a miss, never the other piece's tokens.
        let mut q = p.to_vec();
        q[3] ^= 1;
        assert!(!c.get(&q, hash(p), out));
        // Every length and token count up to a full slot round-trips, in the first table or,
        // one token more, in the second; a piece that fills a slot of the second and one
        // token more fits neither. (A piece's tokens never change, so it is only ever in the
        // table they fit: each count here has a piece of its own.)
        let tokens = |n: usize| -> Vec<Rank> { (0..n as u32).map(|i| i * 1_000_003).collect() };
        for len in 16..=200usize {
            for n in [(WORDS - len.div_ceil(8)) * 2, (WORDS - len.div_ceil(8)) * 2 + 1] {
                let piece: Vec<u8> = (0..len).map(|i| (i * 7 + len + n) as u8).collect();
                assert!(c.insert(&piece, hash(&piece), &tokens(n)));
                out.clear();
                assert!(c.get(&piece, hash(&piece), out), "{len} bytes, {n} tokens");
                assert_eq!(*out, tokens(n));
            }
            let piece = vec![b'y'; len];
            assert!(!c.insert(&piece, hash(&piece), &tokens((BIG_WORDS - len.div_ceil(8)) * 2 + 1)));
        }
        let piece = vec![b'x'; 1000];
        assert!(c.insert(&piece, hash(&piece), &[7]));
        assert!(c.get(&piece, hash(&piece), out));
        assert!(!c.insert(p, hash(p), &[]), "no tokens");
        assert!(c.may_hold(1000) && !c.may_hold(1001), "125 words of bytes and one of tokens at most");
        // Below 16 slots the second table is off.
        let small = LongCache::new(8);
        assert!(small.may_hold(232) && !small.may_hold(233), "29 words of bytes and one of tokens at most");
        assert!(!small.insert(&piece, hash(&piece), &[7]));
        let off = LongCache::new(0);
        assert!(!off.insert(p, hash(p), &[1]));
        assert!(!off.get(p, hash(p), out));
        assert_eq!(c.clone().slots(), 64);
        assert!(!c.clone().get(p, hash(p), out), "a clone starts empty");
    }

    #[test]
    fn a_new_piece_replaces_the_older_of_its_set() {
        // One set of `ways` slots: each new piece past the first `ways` evicts the oldest.
        for ways in [1, 2, 4] {
            let c = LongCache::new(ways);
            let pieces: Vec<Vec<u8>> = (0..ways as u8 + 2).map(|i| vec![b'a' + i; 20]).collect();
            for (i, p) in pieces.iter().enumerate() {
                c.insert(p, hash(p), &[i as Rank]);
            }
            let held: Vec<bool> = pieces.iter().map(|p| c.get(p, hash(p), &mut Vec::new())).collect();
            assert_eq!(held, [[false; 2].as_slice(), &vec![true; ways]].concat(), "{ways} ways");
        }
    }

    #[test]
    fn readers_on_other_threads_see_whole_entries_only() {
        // Two slots of 256 bytes; then 32 of them and two of 1 KiB, with pieces only the
        // second table takes.
        for (slots, len) in [(2, 40), (32, 300)] {
            let c = LongCache::new(slots);
            let pieces: Vec<Vec<u8>> = (0..3u8).map(|i| vec![b'x' + i; len]).collect();
            let tokens = |i: usize| -> Vec<Rank> { (0..20).map(|j| (i * 100 + j) as Rank).collect() };
            std::thread::scope(|s| {
                s.spawn(|| {
                    for k in 0..20_000 {
                        let i = k % 3;
                        assert!(c.insert(&pieces[i], hash(&pieces[i]), &tokens(i)));
                    }
                });
                for k in 0..20_000 {
                    let (i, mut out) = (k % 3, Vec::new());
                    if c.get(&pieces[i], hash(&pieces[i]), &mut out) {
                        assert_eq!(out, tokens(i));
                    }
                }
            });
        }
    }
}
