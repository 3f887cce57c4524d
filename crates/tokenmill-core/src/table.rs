//! `ShortKeyTable`: an open-addressing hash table from byte strings of at most 15 bytes to a
//! `u32`, with the key stored inline.
//!
//! Why not `HashMap<Vec<u8>, u32>`: every probe of such a map reads the bucket and then follows
//! the key's heap pointer to compare bytes, two cache misses on a vocabulary of 100k-200k
//! tokens, and BPE does one lookup per piece plus two per merge. Here a key is packed into two
//! `u64` words (the bytes, then the length in the top byte), so a probe reads one 32-byte slot
//! and compares two words: one cache line. A parallel array of one-byte tags (7 bits of the
//! hash, 0 for empty) is probed first, so that a miss, the common case when BPE tries pairs
//! that are not tokens, usually ends in the tag array, which is small enough to stay in
//! cache, without touching a slot at all. Longer strings are the caller's business (the
//! vocabulary keeps them in an ordinary map; they are rare).
//!
//! Probing is linear and does not wrap: 16 slots past the last home slot take the chains that
//! run off the end, so that `get_grouped` reads the 16 tags from a home slot in one load.
//!
//! What it does not do: deletion. It is built once, at a load factor of at most one half
//! (growing as it fills), and then only read, so it is shared freely across threads.

use crate::zeroed::{Zeroable, Zeroed};

/// Longest key the table holds, in bytes.
pub const MAX_KEY: usize = 15;

/// A packed key: bytes little-endian in `lo` and the low 7 bytes of `hi`, the length in the
/// top byte of `hi`. Never `(0, 0)`, because the length of a stored key is at least 1.
pub type Key = (u64, u64);

#[cfg(test)]
const EMPTY: Key = (0, 0);

#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
struct Slot {
    lo: u64,
    hi: u64,
    value: u32,
}

// SAFETY: integers only; all zero is an empty slot.
unsafe impl Zeroable for Slot {}

#[derive(Clone, Debug)]
pub struct ShortKeyTable {
    /// 0 for an empty slot, else `0x80 | 7 bits of the hash`.
    tags: Vec<u8>,
    /// On huge pages where the system gives them (see `zeroed`).
    slots: Zeroed<Slot>,
    /// `64 - log2(slots.len())`: the index is the top bits of the mixed hash.
    shift: u32,
    len: usize,
}

#[inline(always)]
fn read_u32(b: &[u8], at: usize) -> u64 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as u64
}

#[inline(always)]
fn read_u64(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

/// Packs `b` (1 to 15 bytes) into a key; `None` when it is empty or too long.
///
/// Why overlapping reads: a string of 4 to 8 bytes is the OR of its first and its last four
/// bytes shifted into place (the overlap holds the same bytes twice), which avoids a
/// byte-by-byte loop on the hottest path of encoding.
#[inline(always)]
pub fn pack(b: &[u8]) -> Option<Key> {
    let n = b.len();
    let (lo, hi) = match n {
        0 => return None,
        1..=3 => ((b[0] as u64) | (b[n / 2] as u64) << (8 * (n / 2)) | (b[n - 1] as u64) << (8 * (n - 1)), 0),
        4..=8 => (read_u32(b, 0) | read_u32(b, n - 4) << (8 * (n - 4)), 0),
        9..=MAX_KEY => (read_u64(b, 0), read_u64(b, n - 8) >> (8 * (16 - n))),
        _ => return None,
    };
    Some((lo, hi | (n as u64) << 56))
}

/// `pack(&text[start..end])`, without a branch on the length when 16 bytes of `text` follow
/// `start` (nearly always).
///
/// Why: piece lengths in text follow no pattern a CPU can predict, and `pack`'s three cases
/// cost a mispredicted branch on many pieces, each of which throws away the lookups of the
/// pieces after it that the CPU had started; here both words are loaded whole and masked.
/// (A warm pass over prose went from 122 to 208 MB/s.)
#[inline(always)]
pub fn pack_at(text: &[u8], start: usize, end: usize) -> Option<Key> {
    let n = end - start;
    if start + 16 > text.len() {
        return pack(&text[start..end]);
    }
    // 1 to MAX_KEY bytes, in one comparison.
    (n.wrapping_sub(1) < MAX_KEY).then(|| key_at(text, start, end))
}

/// `pack_at` for `end - start` of 0 to 15 bytes with 16 bytes of `text` from `start`, with no
/// branch at all: the empty range packs as `(0, 0)`, which no table holds (every stored key
/// has a length).
#[inline(always)]
pub fn key_at(text: &[u8], start: usize, end: usize) -> Key {
    // (`read_u64`, not a closure: the compiler called a closure here out of line from the
    // AVX-512 piece loop, a call and a `vzeroupper` per piece.)
    let n = (end - start) & 15;
    // The masks keep the first n bytes.
    let (ml, mh) = MASKS[n];
    (read_u64(text, start) & ml, (read_u64(text, start + 8) & mh) | (n as u64) << 56)
}

/// `MASKS[n]`: the masks of `pack_at` that keep the first `n` bytes of two words.
const MASKS: [(u64, u64); MAX_KEY + 1] = {
    let mut m = [(0u64, 0u64); MAX_KEY + 1];
    let mut n = 1;
    while n <= MAX_KEY {
        m[n].0 = if n >= 8 { u64::MAX } else { (1u64 << (8 * n)) - 1 };
        m[n].1 = if n <= 8 { 0 } else { (1u64 << (8 * (n - 8))) - 1 };
        n += 1;
    }
    m
};

/// The hash of a key (also `bpe::shared_cache`'s).
#[inline(always)]
pub(crate) fn mix(k: Key) -> u64 {
    let x = k.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ k.1.wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(31);
    (x ^ (x >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
}

/// Asks the CPU to start loading the cache line at `p` (a hint: no effect on what any load
/// returns, and any address is allowed).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing into the program.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Slots past the last home slot: a probe reads a group of this many tags at once, and a chain
/// of keys runs on into them instead of wrapping around.
const GROUP: usize = 16;

impl ShortKeyTable {
    /// An empty table that can take `capacity` keys at a load factor of at most one half.
    pub fn with_capacity(capacity: usize) -> Self {
        let n_slots = (capacity.max(8) * 2).next_power_of_two();
        ShortKeyTable {
            tags: vec![0; n_slots + GROUP],
            slots: Zeroed::new(n_slots + GROUP),
            shift: 64 - n_slots.trailing_zeros(),
            len: 0,
        }
    }

    /// Number of keys stored.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no key is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of home slots (a power of two).
    fn homes(&self) -> usize {
        self.slots.len() - GROUP
    }

    /// Home slot and tag of `k`.
    #[inline(always)]
    fn home(&self, k: Key) -> (usize, u8) {
        let h = mix(k);
        ((h >> self.shift) as usize, 0x80 | (h as u8 & 0x7F))
    }

    /// Inserts `key -> value`; returns the previous value if the key was present (and keeps
    /// it). Panics never: the caller sized the table, and a table that is half full, or whose
    /// chain of keys would run past its last slot, is grown here.
    pub fn insert(&mut self, key: Key, value: u32) -> Option<u32> {
        if (self.len + 1) * 2 > self.homes() {
            self.grow();
        }
        loop {
            let (mut i, tag) = self.home(key);
            while i < self.slots.len() {
                let s = &mut self.slots[i];
                if self.tags[i] == 0 {
                    *s = Slot { lo: key.0, hi: key.1, value };
                    self.tags[i] = tag;
                    self.len += 1;
                    return None;
                }
                if (s.lo, s.hi) == key {
                    return Some(s.value);
                }
                i += 1;
            }
            self.grow();
        }
    }

    fn grow(&mut self) {
        let old = std::mem::replace(self, ShortKeyTable::with_capacity(self.homes()));
        for (s, &t) in old.slots.iter().zip(&old.tags) {
            if t != 0 {
                self.insert((s.lo, s.hi), s.value);
            }
        }
    }

    /// The value stored for `key`.
    #[inline(always)]
    pub fn get(&self, key: Key) -> Option<u32> {
        let (i, tag) = self.home(key);
        self.get_from(key, tag, i)
    }

    /// `get` for lookups that miss about as often as they hit (merging's pairs).
    ///
    /// Why a group of tags at once: keys sit at their home slot or a few slots after it, and a
    /// probe slot by slot branches on each tag in an order a CPU cannot predict when hits and
    /// misses mix. Here the 16 tags from the home slot are compared at once; the candidates
    /// are the matching tags before the first empty slot (a chain of keys has no gap), nearly
    /// always none or one. (Lookups that nearly always hit, the whole-token lookup of each
    /// piece, are faster slot by slot: fewer instructions, and their branches are predicted.)
    #[inline(always)]
    pub fn get_grouped(&self, key: Key) -> Option<u32> {
        let (i, tag) = self.home(key);
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{
                __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8, _mm_setzero_si128,
            };
            // The home slot's line, asked for now: which slot to read depends on the tags, so
            // without this its miss would only start once theirs is over (merging's lookups
            // wait on both; a first pass went 2-8% faster).
            prefetch(self.slots.as_ptr().wrapping_add(i));
            let group = &self.tags[i..i + GROUP];
            // SAFETY: SSE2 is part of x86-64; the load reads the 16 bytes of `group`.
            let (hits, empty) = unsafe {
                let g = _mm_loadu_si128(group.as_ptr() as *const __m128i);
                (
                    _mm_movemask_epi8(_mm_cmpeq_epi8(g, _mm_set1_epi8(tag as i8))) as u32,
                    _mm_movemask_epi8(_mm_cmpeq_epi8(g, _mm_setzero_si128())) as u32,
                )
            };
            // Below the first empty slot (all 16 when none is empty).
            let mut c = hits & (empty & empty.wrapping_neg()).wrapping_sub(1);
            while c != 0 {
                let s = &self.slots[i + c.trailing_zeros() as usize];
                if s.lo == key.0 && s.hi == key.1 {
                    return Some(s.value);
                }
                c &= c - 1;
            }
            if empty != 0 {
                return None;
            }
            self.get_from(key, tag, i + GROUP)
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.get_from(key, tag, i)
    }

    /// `get`, probing slot by slot from slot `i` of `key`'s chain.
    #[inline]
    fn get_from(&self, key: Key, tag: u8, mut i: usize) -> Option<u32> {
        while i < self.slots.len() {
            let t = self.tags[i];
            if t == 0 {
                return None;
            }
            let s = &self.slots[i];
            if t == tag && s.lo == key.0 && s.hi == key.1 {
                return Some(s.value);
            }
            i += 1;
        }
        None
    }

    /// Bytes used by the slot array.
    pub fn memory_bytes(&self) -> usize {
        self.slots.len() * (std::mem::size_of::<Slot>() + 1)
    }
}

impl ShortKeyTable {
    /// Average probe length of the stored keys (diagnostics).
    pub fn mean_probe(&self) -> f64 {
        let mut total = 0usize;
        for (i, (s, &t)) in self.slots.iter().zip(&self.tags).enumerate() {
            if t != 0 {
                total += i - self.home((s.lo, s.hi)).0 + 1;
            }
        }
        total as f64 / self.len.max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_is_injective_on_short_strings() {
        let mut seen = std::collections::HashSet::new();
        let mut n = 0;
        for len in 1..=MAX_KEY {
            for seed in 0..200u64 {
                let b: Vec<u8> =
                    (0..len).map(|i| (seed.wrapping_mul(31).wrapping_add(i as u64 * 7) % 3) as u8).collect();
                let k = pack(&b).unwrap();
                assert_ne!(k, EMPTY);
                if seen.insert(b.clone()) {
                    n += 1;
                    assert!(seen.len() == n);
                }
                // Round trip of the byte content.
                let mut bytes = [0u8; 16];
                bytes[..8].copy_from_slice(&k.0.to_le_bytes());
                bytes[8..].copy_from_slice(&k.1.to_le_bytes());
                assert_eq!(&bytes[..len], &b[..]);
                assert_eq!(bytes[15] as usize, len);
                assert!(bytes[len..15].iter().all(|&c| c == 0));
            }
        }
        assert!(pack(&[]).is_none());
        assert!(pack(&[0u8; 16]).is_none());
    }

    #[test]
    fn pack_at_is_pack_of_the_piece() {
        // Every start and length over a text of all byte values (and NULs, whose packing
        // must not be confused with the zero padding).
        let text: Vec<u8> = (0..600u32).map(|i| if i % 7 == 0 { 0 } else { (i * 97 % 256) as u8 }).collect();
        for start in 0..text.len() {
            for end in start..=(start + 16).min(text.len()) {
                assert_eq!(pack_at(&text, start, end), pack(&text[start..end]), "{start}..{end}");
            }
        }
    }

    #[test]
    fn insert_get_and_grow() {
        let mut t = ShortKeyTable::with_capacity(4);
        for i in 0u32..5000 {
            let b = format!("k{i}");
            assert_eq!(t.insert(pack(b.as_bytes()).unwrap(), i), None);
        }
        assert_eq!(t.insert(pack(b"k7").unwrap(), 99), Some(7));
        for i in 0u32..5000 {
            let k = pack(format!("k{i}").as_bytes()).unwrap();
            assert_eq!((t.get(k), t.get_grouped(k)), (Some(i), Some(i)));
        }
        assert_eq!(t.get(pack(b"nope").unwrap()), None);
        assert_eq!(t.len(), 5000);
        // NUL bytes are data, not padding: "a" and "a\0" differ.
        t.insert(pack(b"a").unwrap(), 1);
        t.insert(pack(b"a\0").unwrap(), 2);
        assert_eq!(t.get(pack(b"a").unwrap()), Some(1));
        assert_eq!(t.get(pack(b"a\0").unwrap()), Some(2));
    }

    #[test]
    fn chains_longer_than_a_group_and_past_the_last_home() {
        // Every key homed at slot 0 or 1 of 128: chains of 60 keys, read past the first
        // group of tags, and misses that end at the chain's end.
        let mut t = ShortKeyTable::with_capacity(64);
        t.shift = 63;
        for i in 0u32..60 {
            assert_eq!(t.insert(pack(format!("c{i}").as_bytes()).unwrap(), i), None);
        }
        for i in 0u32..60 {
            let k = pack(format!("c{i}").as_bytes()).unwrap();
            assert_eq!((t.get(k), t.get_grouped(k)), (Some(i), Some(i)));
        }
        for i in 60u32..200 {
            let k = pack(format!("c{i}").as_bytes()).unwrap();
            assert_eq!((t.get(k), t.get_grouped(k)), (None, None));
        }
        // Homes at the last slots: chains run into the slots past them, then the table grows.
        let mut t = ShortKeyTable::with_capacity(64);
        let last = (0u32..100_000).map(|i| format!("z{i}")).filter(|k| t.home(pack(k.as_bytes()).unwrap()).0 == 127);
        let keys: Vec<String> = last.take(20).collect();
        assert_eq!(keys.len(), 20);
        for (i, k) in keys.iter().enumerate() {
            t.insert(pack(k.as_bytes()).unwrap(), i as u32);
        }
        assert!(t.homes() > 128, "a chain past the last slot grows the table");
        for (i, k) in keys.iter().enumerate() {
            let k = pack(k.as_bytes()).unwrap();
            assert_eq!((t.get(k), t.get_grouped(k)), (Some(i as u32), Some(i as u32)));
        }
    }
}
