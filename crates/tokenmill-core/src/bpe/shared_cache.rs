//! `SharedCache`: the tokens of merged short pieces, kept across the calls and threads of one
//! encoder, in a table of fixed size.
//!
//! Why: a word that is not a single token costs dozens of merge steps every time it is met.
//! This cache serves the call that merged a word, its later calls (a server, a pass over a
//! corpus in many calls) and the other threads of a batch. It is the first place encoding
//! looks; a call's own cache (`merge::Scratch`) holds only what this one does not take.
//!
//! The shape: a two-way set-associative table of 64-byte slots, one cache line each, holding a
//! piece of at most 15 bytes (packed as in `table`) and its tokens (at most `MAX_TOKENS`). A
//! piece goes to one of the two slots of the set its hash names (adjacent lines), into an
//! empty one or else replacing the one written longer ago, so the memory is fixed
//! (`slots * 65` bytes, allocated on the first insert) whatever the input. Why two ways: the
//! 19,292 distinct short words that need merges in 3.5 MB of English prose lost 2,607 of their
//! slots to later words when each had one slot of 65,536, and each of those was merged again
//! on every later pass; with two ways 809 are lost.
//! Beside the slots, a byte per slot holds 8 bits of its key's hash: a lookup reads the set's
//! two bytes (the tags of 65,536 slots are 64 KiB, which stay in the CPU's caches) and reads a
//! slot's line only when its byte matches, so the misses of a first pass over new text cost
//! no trip to memory. Longer pieces go to `long_cache::LongCache`; pieces with more tokens
//! than a slot holds are left to the per-call cache.
//!
//! Writes come in batches: a call queues what it merged (`Pending`, in its scratch memory)
//! and writes 64 pieces at a time and the rest when it ends, first asking the CPU for all
//! their slots' lines, so that their misses overlap. Until then the call finds them in its
//! queue.
//!
//! Thread safety without a lock: every slot is a sequence lock. A writer claims the slot by
//! moving its counter from even to odd (a compare-and-swap: a writer that loses simply does
//! not cache), writes, and makes it even again; a reader copies the slot and keeps the copy
//! only if the counter was even and unchanged around the copy. All fields are atomics read
//! and written with relaxed ordering (plain moves on x86), so a torn read is detected, never
//! undefined. A reader never waits, and a cache can only miss: a hit returns what merging
//! gave for exactly that key.
//!
//! What it does not do: decide what to cache (`merge`) or persist anything.

use std::sync::atomic::{fence, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::OnceLock;

use crate::table::{prefetch, Key};
use crate::types::Rank;
use crate::zeroed::{Zeroable, Zeroed};

/// Most tokens a slot holds.
pub const MAX_TOKENS: usize = 10;

/// Bytes per slot.
pub const SLOT_BYTES: usize = 64;

/// Default size of an encoder's cache in slots: 4 MiB, about 60,000 distinct words (English
/// prose meets about one new word needing merges per 60 KB after the first megabyte).
pub const DEFAULT_SLOTS: usize = 1 << 16;

#[repr(C, align(64))]
#[derive(Default)]
struct Slot {
    /// Even: stable; odd: being written.
    seq: AtomicU32,
    /// Number of tokens.
    n: AtomicU32,
    key: [AtomicU64; 2],
    tokens: [AtomicU32; MAX_TOKENS],
}

// SAFETY: atomic integers only; all zero is an empty, stable slot.
unsafe impl Zeroable for Slot {}

/// See the module documentation. `Clone` gives an empty cache of the same size: a cache is
/// not part of an encoder's meaning.
pub struct SharedCache {
    mem: OnceLock<Memory>,
    /// A power of two, or 0 when caching is off.
    n_slots: usize,
    /// This cache's number, unique in the process: `Pending` entries name the cache they are
    /// for, so that a call's scratch memory never writes them into another encoder's cache.
    id: u64,
}

/// Numbers for `SharedCache::id` (0 names no cache).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl SharedCache {
    /// A cache of `slots` slots, rounded down to a power of two (0: no cache).
    pub fn new(slots: usize) -> Self {
        let n_slots = if slots == 0 { 0 } else { 1 << slots.ilog2() };
        SharedCache { mem: OnceLock::new(), n_slots, id: NEXT_ID.fetch_add(1, Ordering::Relaxed) }
    }

    /// Number of slots (0: caching is off).
    pub fn slots(&self) -> usize {
        self.n_slots
    }

    /// The two slots of the set of a key whose `table::mix` is `hash`: adjacent lines, 128
    /// bytes in all (the same slot twice in a cache of one slot).
    #[inline(always)]
    fn set(&self, hash: u64) -> (usize, usize) {
        // The high bits: they are the best mixed.
        let i0 = (hash >> 32) as usize & (self.n_slots - 1) & !1;
        (i0, i0 | (self.n_slots > 1) as usize)
    }

    /// The tag of a key whose `table::mix` is `hash`: never 0 (an empty slot's), and from bits
    /// that `set` uses only in caches of over 2^24 slots.
    #[inline(always)]
    fn tag(hash: u64) -> u8 {
        (hash >> 56) as u8 | 1
    }

    /// Appends the cached tokens of `key` (whose `table::mix` is `hash`) to `out`; false on a
    /// miss (never caches, empty, or neither slot of its set holds it, or one is being
    /// written).
    #[inline]
    pub fn get(&self, key: Key, hash: u64, out: &mut Vec<Rank>) -> bool {
        let Some(mem) = self.mem.get() else { return false };
        let (i0, i1) = self.set(hash);
        let tag = Self::tag(hash);
        // Most lookups of a first pass miss: the tags, in a table small enough to stay in the
        // CPU's caches, turn nearly all of them away without reading a slot's line.
        (mem.tags[i0].load(Ordering::Relaxed) == tag && Self::read(&mem.slots[i0], key, out))
            || (mem.tags[i1].load(Ordering::Relaxed) == tag && Self::read(&mem.slots[i1], key, out))
    }

    /// Asks the CPU for the line of each slot whose tag says it may hold the key whose
    /// `table::mix` is `hash`, so that a `get` soon after finds it loaded; returns whether
    /// any did. Reads only the tags, which stay in the CPU's caches: a key that was never
    /// cached costs no trip to memory.
    #[inline(always)]
    pub fn prefetch_held(&self, hash: u64) -> bool {
        let Some(mem) = self.mem.get() else { return false };
        let (i0, i1) = self.set(hash);
        let tag = Self::tag(hash);
        let mut held = false;
        if mem.tags[i0].load(Ordering::Relaxed) == tag {
            prefetch(&mem.slots[i0]);
            held = true;
        }
        if mem.tags[i1].load(Ordering::Relaxed) == tag {
            prefetch(&mem.slots[i1]);
            held = true;
        }
        held
    }

    /// Appends the tokens of slot `s` to `out` if it holds `key` and is not being written.
    #[inline(always)]
    fn read(s: &Slot, key: Key, out: &mut Vec<Rank>) -> bool {
        let seq = s.seq.load(Ordering::Acquire);
        if seq & 1 != 0 || s.key[0].load(Ordering::Relaxed) != key.0 || s.key[1].load(Ordering::Relaxed) != key.1 {
            return false;
        }
        let n = s.n.load(Ordering::Relaxed) as usize;
        // Every token word of the slot straight into `out`'s spare room, which the length
        // covers only once the counter says the copy is whole. Why not a copy on the stack
        // and `extend_from_slice`: that is a call to `memcpy` per hit (and a `vzeroupper`
        // before it in the AVX-512 piece loop); without it a warm pass ran 1.06-1.14x faster.
        out.reserve(MAX_TOKENS);
        for (d, t) in out.spare_capacity_mut().iter_mut().zip(&s.tokens) {
            d.write(t.load(Ordering::Relaxed));
        }
        // Orders the copy before the second read of the counter.
        fence(Ordering::Acquire);
        if s.seq.load(Ordering::Relaxed) != seq || n == 0 || n > MAX_TOKENS {
            return false;
        }
        // SAFETY: the first `n <= MAX_TOKENS` values past the length were written above.
        unsafe { out.set_len(out.len() + n) };
        true
    }

    /// Whether this cache takes `tokens`: it is on, and they fit a slot.
    #[inline(always)]
    fn takes(&self, tokens: &[Rank]) -> bool {
        self.n_slots != 0 && !tokens.is_empty() && tokens.len() <= MAX_TOKENS
    }

    /// Caches `tokens` for `key` (whose `table::mix` is `hash`) at once, replacing what its
    /// slot held; does nothing when the cache does not take them or another thread is writing
    /// the slot. (Encoding goes through `Pending`; this is the tests' way in.)
    #[cfg(test)]
    fn insert(&self, key: Key, hash: u64, tokens: &[Rank]) {
        if self.takes(tokens) {
            self.write(self.memory(), hash, key, tokens);
        }
    }

    /// Writes the entries of `pending` that are for this cache (see `Pending`), then empties
    /// it.
    ///
    /// Why in batches: the slots are scattered over megabytes, so on a first pass over new
    /// text each write misses the CPU's caches, and the claim of a slot (an atomic
    /// compare-and-swap) waits for its line. Here the lines of a whole batch are requested
    /// first, and their misses overlap. (With the tags, this took a first pass over 3.5 MB of
    /// prose from 112 to 119 MB/s; the cache off reads 127.)
    pub fn insert_pending(&self, pending: &mut Pending) {
        if pending.entries.is_empty() {
            // Nothing queued, so nothing indexed either: most short calls end here.
            return;
        }
        if pending.cache == self.id && self.n_slots != 0 {
            let mem = self.memory();
            for &(_, hash, ..) in &pending.entries {
                let (i0, i1) = self.set(hash);
                prefetch(&mem.slots[i0]);
                prefetch(&mem.slots[i1]);
            }
            for &(key, hash, start, len) in &pending.entries {
                self.write(mem, hash, key, &pending.tokens[start as usize..(start + len) as usize]);
            }
        }
        pending.clear();
    }

    /// The slots and tags, allocated on first use.
    #[inline]
    fn memory(&self) -> &Memory {
        self.mem.get_or_init(|| Memory {
            slots: Zeroed::new(self.n_slots),
            tags: (0..self.n_slots).map(|_| AtomicU8::new(0)).collect(),
        })
    }

    /// Writes `key` (whose `table::mix` is `hash`) and its tokens (at most `MAX_TOKENS`, not
    /// empty) into a slot of its set, unless another thread is writing that slot: the slot
    /// that holds the key already, else an empty one, else the one written longer ago.
    #[inline]
    fn write(&self, mem: &Memory, hash: u64, key: Key, tokens: &[Rank]) {
        let (i0, i1) = self.set(hash);
        let (s0, s1) = (&mem.slots[i0], &mem.slots[i1]);
        let tag = Self::tag(hash);
        let holds = |i: usize, s: &Slot| {
            mem.tags[i].load(Ordering::Relaxed) == tag
                && s.key[0].load(Ordering::Relaxed) == key.0
                && s.key[1].load(Ordering::Relaxed) == key.1
        };
        let (t0, t1) = (mem.tags[i0].load(Ordering::Relaxed), mem.tags[i1].load(Ordering::Relaxed));
        // Every write adds 2 to its slot's counter, so half the sum of the two counts the
        // set's writes, and its parity takes turns: the slot written longer ago (first in,
        // first out; only a heuristic while other threads write the set too).
        let older = |s0: &Slot, s1: &Slot| {
            let n = (s0.seq.load(Ordering::Relaxed) >> 1).wrapping_add(s1.seq.load(Ordering::Relaxed) >> 1);
            if n & 1 == 0 {
                i0
            } else {
                i1
            }
        };
        let i = if holds(i0, s0) {
            i0
        } else if holds(i1, s1) {
            i1
        } else if t0 == 0 {
            i0
        } else if t1 == 0 {
            i1
        } else {
            older(s0, s1)
        };
        let s = &mem.slots[i];
        let seq = s.seq.load(Ordering::Relaxed);
        if seq & 1 != 0
            || s.seq.compare_exchange(seq, seq.wrapping_add(1), Ordering::Acquire, Ordering::Relaxed).is_err()
        {
            return;
        }
        // The odd counter becomes visible before any of the writes below.
        fence(Ordering::Release);
        s.key[0].store(key.0, Ordering::Relaxed);
        s.key[1].store(key.1, Ordering::Relaxed);
        s.n.store(tokens.len() as u32, Ordering::Relaxed);
        for (t, &v) in s.tokens.iter().zip(tokens) {
            t.store(v, Ordering::Relaxed);
        }
        // Only a hint for `get`: a stale tag makes a lookup miss or read the slot for nothing.
        mem.tags[i].store(tag, Ordering::Relaxed);
        s.seq.store(seq.wrapping_add(2), Ordering::Release);
    }
}

/// A cache's memory: the slots, and a tag per slot (`SharedCache::tag` of the key it holds; 0
/// while empty), 1 byte per 64 of slot.
struct Memory {
    /// On huge pages where the system gives them: a first pass over new text writes slots all
    /// over the table, and with 4 KiB pages nearly every page of the 4 MiB was faulted in, one
    /// trap each (1,024 of the 3,540 page faults of a 2 MB first pass of o200k over fr/ja/zh
    /// lines, and about 10% of its time); two 2 MiB pages take two.
    slots: Zeroed<Slot>,
    tags: Box<[AtomicU8]>,
}

/// Merged short pieces of one call, on their way to the encoder's `SharedCache`: kept here
/// and written `BATCH` at a time (`SharedCache::insert_pending`), the rest when the call
/// ends. Entries name the cache they are for; flushed into any other, they are dropped, so a
/// scratch reused with another encoder can only lose them.
#[derive(Default, Debug, Clone)]
pub struct Pending {
    /// `SharedCache::id` of the entries' cache (0: none yet).
    cache: u64,
    /// Key, its `table::mix`, and where its tokens are in `tokens`.
    entries: Vec<(Key, u64, u32, u32)>,
    tokens: Vec<Rank>,
    /// By 8 bits of a key's hash: 1 + the position of the last entry with those bits, or 0.
    recent: Recent,
}

/// `Pending::recent` (a newtype for its `Default`).
#[derive(Debug, Clone)]
struct Recent([u8; 256]);

// Positions in a batch fit `Recent`'s bytes.
const _: () = assert!(Pending::BATCH < 256);

impl Default for Recent {
    fn default() -> Self {
        Recent([0; 256])
    }
}

impl Pending {
    /// Entries per batch: enough that their misses overlap, few enough that their lines are
    /// still in the L1 cache when written (64 lines are 4 KiB).
    pub const BATCH: usize = 64;

    /// Queues `key`'s tokens for `cache` and writes the batch once it is full; false (nothing
    /// queued) if the cache is off or they do not fit a slot.
    #[inline]
    pub fn push(&mut self, cache: &SharedCache, key: Key, hash: u64, tokens: &[Rank]) -> bool {
        if !cache.takes(tokens) {
            return false;
        }
        if self.cache != cache.id {
            // Entries for another cache are dropped, not written.
            self.clear();
            self.cache = cache.id;
        }
        self.entries.push((key, hash, self.tokens.len() as u32, tokens.len() as u32));
        self.tokens.extend_from_slice(tokens);
        self.recent.0[(hash >> 8) as u8 as usize] = self.entries.len() as u8;
        if self.entries.len() >= Self::BATCH {
            cache.insert_pending(self);
        }
        true
    }

    /// Drops every queued entry and its index.
    fn clear(&mut self) {
        self.entries.clear();
        self.tokens.clear();
        self.recent = Recent::default();
    }

    /// Appends the queued tokens of `key` (whose `table::mix` is `hash`) for `cache` to `out`;
    /// false if none are queued.
    ///
    /// Why: a word often comes back within the next few dozen merged pieces (a name, a term),
    /// before its batch is written.
    #[inline]
    pub fn get(&self, cache: &SharedCache, key: Key, hash: u64, out: &mut Vec<Rank>) -> bool {
        let at = self.recent.0[(hash >> 8) as u8 as usize] as usize;
        if at == 0 || self.cache != cache.id {
            return false;
        }
        match self.entries.get(at - 1) {
            Some(&(k, _, start, len)) if k == key => {
                out.extend_from_slice(&self.tokens[start as usize..(start + len) as usize]);
                true
            }
            _ => false,
        }
    }
}

impl Default for SharedCache {
    fn default() -> Self {
        SharedCache::new(DEFAULT_SLOTS)
    }
}

impl Clone for SharedCache {
    fn clone(&self) -> Self {
        SharedCache::new(self.n_slots)
    }
}

impl std::fmt::Debug for SharedCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedCache({} slots, {})", self.n_slots, if self.mem.get().is_some() { "in use" } else { "unused" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{mix, pack};

    #[test]
    fn holds_what_was_inserted_and_misses_otherwise() {
        let c = SharedCache::new(1000);
        assert_eq!(c.slots(), 512);
        let (k, out) = (pack(b"hello").unwrap(), &mut Vec::new());
        assert!(!c.get(k, mix(k), out));
        c.insert(k, mix(k), &[1, 2, 3]);
        assert!(c.get(k, mix(k), out));
        assert_eq!(out, &[1, 2, 3]);
        let other = pack(b"world").unwrap();
        assert!(!c.get(other, mix(other), out));
        c.insert(other, mix(other), &[9; MAX_TOKENS + 1]);
        assert!(!c.get(other, mix(other), out));
        let off = SharedCache::new(0);
        off.insert(k, mix(k), &[1]);
        assert!(!off.get(k, mix(k), out));
    }

    #[test]
    fn pending_pieces_are_written_in_batches_and_only_to_their_own_cache() {
        let (c, other) = (SharedCache::new(1 << 12), SharedCache::new(1 << 12));
        let keys: Vec<_> = (0..Pending::BATCH as u32 + 5).map(|i| pack(format!("p{i}").as_bytes()).unwrap()).collect();
        let mut pending = Pending::default();
        let cached = |c: &SharedCache, k: Key| {
            let mut out = Vec::new();
            c.get(k, mix(k), &mut out).then_some(out)
        };
        for (i, &k) in keys[..Pending::BATCH - 1].iter().enumerate() {
            pending.push(&c, k, mix(k), &[i as u32, 7]);
        }
        assert_eq!(cached(&c, keys[0]), None, "a batch is written only when full");
        pending.push(&c, keys[Pending::BATCH - 1], mix(keys[Pending::BATCH - 1]), &[1]);
        assert_eq!(cached(&c, keys[0]), Some(vec![0, 7]));
        assert_eq!(cached(&c, keys[Pending::BATCH - 1]), Some(vec![1]));
        // The rest waits for the call's end; flushed into another cache, it is dropped.
        let tail = keys[Pending::BATCH];
        pending.push(&c, tail, mix(tail), &[5, 6, 7]);
        other.insert_pending(&mut pending);
        assert_eq!(cached(&other, tail), None);
        c.insert_pending(&mut pending);
        assert_eq!(cached(&c, tail), None, "dropped, not kept for later");
        // Pushed for one cache after another, the earlier cache's entries are dropped.
        pending.push(&other, tail, mix(tail), &[9]);
        pending.push(&c, keys[1], mix(keys[1]), &[4]);
        c.insert_pending(&mut pending);
        other.insert_pending(&mut pending);
        assert_eq!((cached(&c, keys[1]), cached(&other, tail)), (Some(vec![4]), None));
        // A clone is another cache, and a cache that is off takes nothing.
        let clone = c.clone();
        pending.push(&c, tail, mix(tail), &[3]);
        clone.insert_pending(&mut pending);
        assert_eq!(cached(&clone, tail), None);
        let off = SharedCache::new(0);
        pending.push(&off, tail, mix(tail), &[3]);
        off.insert_pending(&mut pending);
        assert_eq!(cached(&off, tail), None);
    }

    #[test]
    fn queued_pieces_are_found_until_written_and_only_for_their_cache() {
        let (c, other) = (SharedCache::new(1 << 12), SharedCache::new(1 << 12));
        let mut pending = Pending::default();
        let queued = |p: &Pending, c: &SharedCache, k: Key| {
            let mut out = vec![99];
            p.get(c, k, mix(k), &mut out).then_some(out)
        };
        // More keys than the index has entries: some share one, and only the last queued of
        // those is found (the others miss, which only costs a merge).
        let keys: Vec<_> = (0..Pending::BATCH as u32 - 1).map(|i| pack(format!("q{i}").as_bytes()).unwrap()).collect();
        let mut found = 0;
        for (i, &k) in keys.iter().enumerate() {
            assert!(pending.push(&c, k, mix(k), &[i as u32, 1]));
            assert_eq!(queued(&pending, &c, k), Some(vec![99, i as u32, 1]), "the last one queued is found");
        }
        for (i, &k) in keys.iter().enumerate() {
            if let Some(out) = queued(&pending, &c, k) {
                assert_eq!(out, [99, i as u32, 1]);
                found += 1;
            }
            assert_eq!(queued(&pending, &other, k), None, "not for another cache");
        }
        assert!(found > keys.len() / 2);
        let absent = pack(b"absent").unwrap();
        assert_eq!(queued(&pending, &c, absent), None);
        // Too many tokens for a slot, or a cache that is off: not queued.
        assert!(!pending.push(&c, absent, mix(absent), &[1; MAX_TOKENS + 1]));
        assert!(!pending.push(&SharedCache::new(0), absent, mix(absent), &[1]));
        assert_eq!(queued(&pending, &c, absent), None);
        // Once written (the batch is full, or the call ends), the cache holds them instead.
        pending.push(&c, absent, mix(absent), &[2]);
        assert_eq!(queued(&pending, &c, keys[0]), None);
        let mut out = vec![];
        assert!(c.get(keys[0], mix(keys[0]), &mut out) && out == [0, 1]);
        let tail = pack(b"tail").unwrap();
        pending.push(&c, tail, mix(tail), &[3]);
        assert_eq!(queued(&pending, &c, tail), Some(vec![99, 3]));
        c.insert_pending(&mut pending);
        assert_eq!(queued(&pending, &c, tail), None);
    }

    #[test]
    fn a_slot_taken_by_another_key_misses_for_the_first() {
        // One slot: the tag turns the evicted key away, and the slot's key check backs it up
        // when the tags are equal.
        let c = SharedCache::new(1);
        let keys: Vec<_> = (0..600u32).map(|i| pack(format!("k{i}").as_bytes()).unwrap()).collect();
        for (i, &k) in keys.iter().enumerate() {
            c.insert(k, mix(k), &[i as u32]);
            let mut out = Vec::new();
            assert!(c.get(k, mix(k), &mut out) && out == [i as u32]);
            if i > 0 {
                assert!(!c.get(keys[i - 1], mix(keys[i - 1]), &mut out));
            }
        }
        // 600 keys over 128 tags: some pairs share a tag, so both paths were taken.
        let same_tag = keys.windows(2).filter(|w| SharedCache::tag(mix(w[0])) == SharedCache::tag(mix(w[1]))).count();
        assert!(same_tag > 0);
    }

    #[test]
    fn a_set_holds_two_pieces_and_replaces_the_one_written_longer_ago() {
        // Two slots are one set: every key goes to it.
        let c = SharedCache::new(2);
        let keys: Vec<_> = (0..6u32).map(|i| pack(format!("s{i}").as_bytes()).unwrap()).collect();
        let held = |k: Key| {
            let mut out = Vec::new();
            c.get(k, mix(k), &mut out).then_some(out)
        };
        c.insert(keys[0], mix(keys[0]), &[0]);
        c.insert(keys[1], mix(keys[1]), &[1]);
        assert_eq!((held(keys[0]), held(keys[1])), (Some(vec![0]), Some(vec![1])));
        // Writing a key again rewrites its own slot, which makes the other the older one.
        c.insert(keys[0], mix(keys[0]), &[0, 0]);
        assert_eq!((held(keys[0]), held(keys[1])), (Some(vec![0, 0]), Some(vec![1])));
        // Then each new key replaces the one written longer ago.
        c.insert(keys[2], mix(keys[2]), &[2]);
        assert_eq!((held(keys[0]), held(keys[1]), held(keys[2])), (Some(vec![0, 0]), None, Some(vec![2])));
        c.insert(keys[3], mix(keys[3]), &[3]);
        assert_eq!((held(keys[0]), held(keys[2]), held(keys[3])), (None, Some(vec![2]), Some(vec![3])));
        c.insert(keys[4], mix(keys[4]), &[4]);
        assert_eq!((held(keys[2]), held(keys[3]), held(keys[4])), (None, Some(vec![3]), Some(vec![4])));
    }

    #[test]
    fn a_full_size_cache_holds_its_pieces_and_frees_its_memory() {
        // The default size takes the mapped (huge-page) memory on Linux: made, used and
        // unmapped a few times over.
        for round in 0..3u32 {
            let c = SharedCache::default();
            let keys: Vec<_> = (0..10_000u32).map(|i| pack(format!("w{i}").as_bytes()).unwrap()).collect();
            for (i, &k) in keys.iter().enumerate() {
                c.insert(k, mix(k), &[i as u32, round]);
            }
            let mut hits = 0;
            for (i, &k) in keys.iter().enumerate() {
                let mut out = Vec::new();
                if c.get(k, mix(k), &mut out) {
                    assert_eq!(out, [i as u32, round]);
                    hits += 1;
                }
            }
            // A key whose set two later keys took is a miss, never a wrong answer. (About 140
            // of 10,000 keys lose their set to two others; one slot per key lost about 700.)
            assert!(hits > 9_750, "{hits} of 10,000 pieces kept");
        }
    }

    #[test]
    fn threads_never_read_a_torn_slot() {
        // Two keys that share one slot, written over and over by two threads while two others
        // read: every hit must be exactly one key's tokens.
        let c = SharedCache::new(1);
        let (a, b) = (pack(b"aaaa").unwrap(), pack(b"bbbbbbbb").unwrap());
        let (ta, tb): (Vec<Rank>, Vec<Rank>) = ((1..=10).collect(), (100..=103).collect());
        std::thread::scope(|s| {
            for (k, t) in [(a, &ta), (b, &tb)] {
                let c = &c;
                s.spawn(move || {
                    for _ in 0..200_000 {
                        c.insert(k, mix(k), t);
                    }
                });
            }
            for (k, t) in [(a, &ta), (b, &tb)] {
                let c = &c;
                s.spawn(move || {
                    let mut out = Vec::new();
                    for _ in 0..200_000 {
                        out.clear();
                        if c.get(k, mix(k), &mut out) {
                            assert_eq!(&out, t);
                        }
                    }
                });
            }
        });
    }
}
