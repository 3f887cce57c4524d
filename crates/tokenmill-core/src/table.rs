//! Hash tables from byte strings of at most 15 bytes to a `u32`, with the key stored inline:
//! `LineTable` (built once, then only read) and `ShortKeyTable`, which also grows (the per-call
//! cache of merged pieces, `LineTable`'s few spilled keys, and the vocabulary's tokens on CPUs
//! without AVX-512).
//!
//! Why not `HashMap<Vec<u8>, u32>`: every probe of such a map reads the bucket and then follows
//! the key's heap pointer to compare bytes, two cache misses on a vocabulary of 100k-200k
//! tokens, and BPE does one lookup per piece plus two per merge. Here a key is packed into two
//! `u64` words (the bytes, then the length in the top byte), so a probe compares two words in
//! one cache line.
//!
//! `ShortKeyTable` is open addressing with linear probing, which does not wrap (16 slots past
//! the last home slot take the chains that run off the end, so that `get_grouped` reads the
//! 16 tags from a home slot in one load), and a parallel array of one-byte tags (7 bits of the
//! hash, 0 for empty) probed first, so that most misses end in the tags. `LineTable` gives
//! every key one home line of three places, compared at once; its tags are a word per line.
//! `TokenTable` is the vocabulary's choice between them, made for the CPU (`wide_cpu`).
//!
//! What they do not do: deletion. Longer strings are the caller's business (the vocabulary
//! keeps them in an ordinary map; they are rare).

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

/// The length byte of a key (`pack`'s top byte): the piece's length in bytes.
#[inline(always)]
pub fn key_len(k: Key) -> usize {
    (k.1 >> 56) as usize
}

/// The bytes of a key's piece as one little-endian number (its first byte lowest), without
/// the length byte.
#[inline(always)]
pub fn key_bytes(k: Key) -> u128 {
    k.0 as u128 | ((k.1 & 0x00FF_FFFF_FFFF_FFFF) as u128) << 64
}

/// Whether the piece packed as `k` has at most `n` bytes of 0x80 or more, and none of 0xE0
/// or more: ASCII with at most `n / 2` characters of two bytes (Latin letters with accents).
#[inline(always)]
pub fn key_is_nearly_ascii(k: Key, n: u32) -> bool {
    if key_is_ascii(k) {
        // Nearly every piece: one test.
        return true;
    }
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let hi = k.1 & 0x00FF_FFFF_FFFF_FFFF;
    let three = |x: u64| x & x << 1 & x << 2 & HIGH;
    (k.0 & HIGH).count_ones() + (hi & HIGH).count_ones() <= n && (three(k.0) | three(hi)) == 0
}

/// Whether the piece packed as `k` is ASCII.
#[inline(always)]
pub fn key_is_ascii(k: Key) -> bool {
    (k.0 | k.1 & 0x00FF_FFFF_FFFF_FFFF) & 0x8080_8080_8080_8080 == 0
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
pub fn mix(k: Key) -> u64 {
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

    /// The value stored for `key` (a key of `pack` or `key_at`, or any other key whose
    /// length byte is not 0xFF).
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

/// One home line of `LineTable`: a cache line with up to three keys and their values.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Line {
    /// `EMPTY_PLACE` for an empty place.
    keys: [Key; 3],
    values: [u32; 3],
    /// Nonzero when a key whose home is this line is in `LineTable::spill` (the line was full).
    spilled: u32,
}

// SAFETY: integers only (a zeroed line is filled with `EMPTY_PLACE`s before use).
unsafe impl Zeroable for Line {}

/// An empty place's key: its length byte (0xFF) is no key's, so that no lookup matches it,
/// not even of `(0, 0)` (`key_at` of an empty range) or of a long piece's stand-in key.
const EMPTY_PLACE: Key = (u64::MAX, u64::MAX);

/// A table from packed keys to `u32` values (never `u32::MAX`) where a lookup reads one cache
/// line: each key has one home line of three places, and the few keys whose home line is
/// full go to a `ShortKeyTable` beside it, which a lookup reads only when their line says so.
///
/// Why: every piece of a text is looked up here (is it a whole token?). A `ShortKeyTable`
/// probe reads a tag, then a slot, and walks the chain, with a branch per slot that the CPU
/// cannot predict when a third of the keys sit past their home. Here the three places are
/// compared at once (one AVX-512 comparison, `get_avx512`), and the only branch is hit or
/// miss. With a line per key (rounded up to a power of two) a line holds 0.74-0.76 keys on
/// average and about 1% of the keys spill. A key spills only when three keys inserted
/// before it share its line, so the vocabulary's low ranks (its most frequent tokens,
/// inserted first) rarely do.
///
/// Built once, then only read: shared freely across threads.
#[derive(Clone, Debug)]
pub struct LineTable {
    /// On huge pages where the system gives them (see `zeroed`).
    lines: Zeroed<Line>,
    /// Per line: a byte per place (0 if empty, else `0x80 |` 7 bits of its key's hash), then
    /// 1 if the line has spilled keys. A lookup that mostly misses reads this first (`get_tagged`).
    tags: Vec<u32>,
    /// `64 - log2(lines.len())`: the line is the top bits of the key's `mix`.
    shift: u32,
    spill: ShortKeyTable,
    len: usize,
}

impl LineTable {
    /// An empty table with a line per key of `capacity`, rounded up to a power of two.
    pub fn with_capacity(capacity: usize) -> Self {
        let n = capacity.max(8).next_power_of_two();
        let mut lines = Zeroed::<Line>::new(n);
        for line in lines.iter_mut() {
            line.keys = [EMPTY_PLACE; 3];
        }
        LineTable {
            lines,
            tags: vec![0; n],
            shift: 64 - n.trailing_zeros(),
            spill: ShortKeyTable::with_capacity(8),
            len: 0,
        }
    }

    /// The line of a key whose `mix` is `hash`.
    #[inline(always)]
    fn line(&self, hash: u64) -> &Line {
        &self.lines[(hash >> self.shift) as usize]
    }

    /// Inserts `key -> value` unless `key` is present; returns its value then. Keys inserted
    /// first take the lines' places: insert the most looked-up ones first. Panics if `value`
    /// is `u32::MAX` (a lookup's "none").
    pub fn insert(&mut self, key: Key, value: u32) -> Option<u32> {
        assert!(value != u32::MAX, "u32::MAX is no value of a LineTable");
        assert!(key.1 >> 56 <= MAX_KEY as u64, "a key's length byte is at most MAX_KEY");
        if let Some(v) = self.get(key) {
            return Some(v);
        }
        let hash = mix(key);
        let i = (hash >> self.shift) as usize;
        let line = &mut self.lines[i];
        match line.keys.iter().position(|&k| k == EMPTY_PLACE) {
            Some(j) => {
                (line.keys[j], line.values[j]) = (key, value);
                self.tags[i] |= (Self::tag(hash) as u32) << (8 * j);
            }
            None => {
                line.spilled = 1;
                self.tags[i] |= 1 << 24;
                self.spill.insert(key, value);
            }
        }
        self.len += 1;
        None
    }

    /// Number of keys stored.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no key is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keys that did not fit in their home line.
    pub fn spilled(&self) -> usize {
        self.spill.len()
    }

    /// The value stored for `key` (a key of `pack` or `key_at`, or any other key whose
    /// length byte is not 0xFF).
    #[inline(always)]
    pub fn get(&self, key: Key) -> Option<u32> {
        self.get_hashed(key, mix(key))
    }

    /// `get` of a key whose `mix` is `hash`.
    #[inline(always)]
    pub fn get_hashed(&self, key: Key, hash: u64) -> Option<u32> {
        let line = self.line(hash);
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            // The three places compared at once (SSE2, every x86-64 CPU): one branch, hit or miss.
            // SAFETY: SSE2 is part of x86-64; the loads read the 48 key bytes of the line,
            // whose places are 16-byte aligned.
            let hit = unsafe {
                let k = _mm_set_epi64x(key.1 as i64, key.0 as i64);
                let p = line.keys.as_ptr() as *const __m128i;
                let eq = |i: usize| (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_load_si128(p.add(i)), k)) == 0xFFFF) as u32;
                eq(0) | eq(1) << 1 | eq(2) << 2
            };
            if hit != 0 {
                return Some(line.values[hit.trailing_zeros() as usize]);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            // No branch per place: at most one place holds the key.
            let mut found = u32::MAX;
            for j in 0..3 {
                if line.keys[j] == key {
                    found = line.values[j];
                }
            }
            if found != u32::MAX {
                return Some(found);
            }
        }
        self.get_spilled(line, key)
    }

    /// `get_hashed` with the three places compared in one AVX-512 comparison. Always inlined:
    /// it was a call per piece in the batched loop (a warm pass over prose 1.12-1.14x
    /// without it), which `#[target_feature]` functions cannot be; its caller enables the
    /// features, so the intrinsics are inlined there too.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub unsafe fn get_avx512(&self, key: Key, hash: u64) -> Option<u32> {
        use std::arch::x86_64::*;
        let line = self.line(hash);
        // SAFETY: a `Line` is 64 bytes, aligned to 64; the CPU has AVX-512F (the caller).
        let m = unsafe {
            let v = _mm512_load_si512(line as *const Line as *const _);
            let k = _mm512_broadcast_i32x4(_mm_set_epi64x(key.1 as i64, key.0 as i64));
            // Words 0-5 are the three keys (lo, hi); 6 and 7 the values.
            _mm512_mask_cmpeq_epi64_mask(0x3F, v, k) as u32
        };
        let both = m & (m >> 1) & 0b01_0101;
        if both != 0 {
            return Some(line.values[(both.trailing_zeros() / 2) as usize]);
        }
        self.get_spilled(line, key)
    }

    /// The tag of a key whose `mix` is `hash`: never 0 (an empty place's).
    #[inline(always)]
    fn tag(hash: u64) -> u8 {
        0x80 | (hash as u8 & 0x7F)
    }

    /// `get` for lookups that miss about as often as they hit (merging's joins): the line's
    /// tags first, and its keys only when a tag matches, so that most misses end in the tags
    /// (4 bytes a line, a sixteenth of the lines' size, which the CPU's caches keep).
    #[inline(always)]
    pub fn get_tagged(&self, key: Key) -> Option<u32> {
        let hash = mix(key);
        let i = (hash >> self.shift) as usize;
        let t = self.tags[i];
        // A zero byte of `x` among the three places' bytes: a tag that matches (with at most
        // a false candidate after it, which the comparison of keys rules out).
        let x = t ^ (Self::tag(hash) as u32 * 0x01_0101);
        if x.wrapping_sub(0x01_0101) & !x & 0x80_8080 != 0 {
            return self.get_hashed(key, hash);
        }
        if t >> 24 != 0 {
            return self.spill.get(key);
        }
        None
    }

    /// Asks the CPU for the line of a key whose `mix` is `hash`.
    #[inline(always)]
    pub fn prefetch(&self, hash: u64) {
        prefetch(self.lines.as_ptr().wrapping_add((hash >> self.shift) as usize));
    }

    /// Asks the CPU for what `get_tagged` of a key whose `mix` is `hash` reads: its line's tag
    /// word and the line.
    #[inline(always)]
    pub fn prefetch_tagged(&self, hash: u64) {
        let i = (hash >> self.shift) as usize;
        prefetch(self.tags.as_ptr().wrapping_add(i));
        prefetch(self.lines.as_ptr().wrapping_add(i));
    }

    /// Out of line: a lookup that misses its line nearly always ends here at `spilled == 0`.
    #[inline(never)]
    fn get_spilled(&self, line: &Line, key: Key) -> Option<u32> {
        if line.spilled == 0 {
            return None;
        }
        self.spill.get(key)
    }

    /// Bytes used by the lines, their tags and the spill table.
    pub fn memory_bytes(&self) -> usize {
        self.lines.len() * (std::mem::size_of::<Line>() + 4) + self.spill.memory_bytes()
    }
}

/// Whether this CPU looks up pieces' whole tokens a batch at a time, in a `LineTable`:
/// AVX-512F and DQ (the batch's keys and hashes, the line's comparison), BMI1 and 2, LZCNT
/// and POPCNT. The standard library caches the checks.
#[inline]
pub fn wide_cpu() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The vocabulary's table of short tokens, chosen for the CPU when it is built: a `LineTable`
/// where the encoder looks pieces up a batch at a time with AVX-512 (`wide_cpu`), a
/// `ShortKeyTable` elsewhere.
///
/// Why not one table everywhere: looked up one piece at a time (without AVX-512), a line's
/// three places compared with SSE2 made a warm pass 0.85x as fast as `ShortKeyTable`'s
/// probe, whose first slot holds the key two times in three; the batch's AVX-512 loop is
/// 1.17x faster with lines. Both take the same memory, and a vocabulary holds only one.
#[derive(Clone, Debug)]
pub enum TokenTable {
    Lines(LineTable),
    Slots(ShortKeyTable),
}

impl TokenTable {
    /// An empty table for `capacity` keys, of the kind this CPU reads best.
    pub fn for_this_cpu(capacity: usize) -> Self {
        #[cfg(test)]
        let wide = wide_cpu() && !tests::NARROW.load(std::sync::atomic::Ordering::Relaxed);
        #[cfg(not(test))]
        let wide = wide_cpu();
        if wide {
            TokenTable::Lines(LineTable::with_capacity(capacity))
        } else {
            TokenTable::Slots(ShortKeyTable::with_capacity(capacity))
        }
    }

    /// Inserts `key -> value` unless `key` is present; returns its value then.
    pub fn insert(&mut self, key: Key, value: u32) -> Option<u32> {
        match self {
            TokenTable::Lines(t) => t.insert(key, value),
            TokenTable::Slots(t) => t.insert(key, value),
        }
    }

    /// The value stored for `key`, for lookups that mostly hit.
    #[inline(always)]
    pub fn get(&self, key: Key) -> Option<u32> {
        match self {
            TokenTable::Lines(t) => t.get(key),
            TokenTable::Slots(t) => t.get(key),
        }
    }

    /// The value stored for `key`, for lookups that often miss (merging's joins).
    #[inline(always)]
    pub fn get_often_missing(&self, key: Key) -> Option<u32> {
        match self {
            TokenTable::Lines(t) => t.get_tagged(key),
            TokenTable::Slots(t) => t.get_grouped(key),
        }
    }

    /// The `LineTable`, if this is one.
    #[inline(always)]
    pub fn lines(&self) -> Option<&LineTable> {
        match self {
            TokenTable::Lines(t) => Some(t),
            TokenTable::Slots(_) => None,
        }
    }

    /// Number of keys stored.
    pub fn len(&self) -> usize {
        match self {
            TokenTable::Lines(t) => t.len(),
            TokenTable::Slots(t) => t.len(),
        }
    }

    /// True when no key is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes used.
    pub fn memory_bytes(&self) -> usize {
        match self {
            TokenTable::Lines(t) => t.memory_bytes(),
            TokenTable::Slots(t) => t.memory_bytes(),
        }
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
pub(crate) mod tests {
    use super::*;

    /// Tests set this to build vocabularies with a `ShortKeyTable` on any CPU (a vocabulary
    /// built meanwhile by another test may get one too: either kind gives the same tokens).
    pub(crate) static NARROW: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

    #[test]
    fn nearly_ascii_counts_the_bytes_above_ascii() {
        let mut next = crate::testing::xorshift(9);
        for _ in 0..20_000 {
            let len = 1 + (next() % MAX_KEY as u64) as usize;
            // Bytes from a few classes: ASCII, NUL, continuation, two-byte lead, 0xE0 and up.
            let b: Vec<u8> =
                (0..len).map(|_| [b'a', 0, 0x80, 0xBF, 0xC3, 0xDF, 0xE0, 0xFF][(next() % 8) as usize]).collect();
            let high = b.iter().filter(|&&x| x >= 0x80).count() as u32;
            let key = pack(&b).unwrap();
            for n in 0..4 {
                let want = high <= n && b.iter().all(|&x| x < 0xE0);
                assert_eq!(key_is_nearly_ascii(key, n), want, "{b:02x?}, at most {n}");
            }
        }
    }

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

    /// Every way a `LineTable` lookup can go: a key in its line's first, second or third place,
    /// spilled keys, misses on lines with and without spilled keys, and NUL bytes.
    #[test]
    fn line_table_finds_every_key_and_no_other() {
        // Eight lines for 200 keys: nearly every line spills.
        let mut t = LineTable::with_capacity(8);
        let keys: Vec<Key> = (0u32..200).map(|i| pack(format!("w{i}\0").as_bytes()).unwrap()).collect();
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(t.insert(k, i as u32), None);
        }
        assert_eq!(t.insert(keys[3], 7), Some(3));
        assert_eq!((t.len(), t.spilled()), (200, 200 - 24));
        let absent: Vec<Key> = (0u32..200).map(|i| pack(format!("w{i}").as_bytes()).unwrap()).collect();
        let mut big = LineTable::with_capacity(1 << 12);
        for (i, &k) in keys.iter().enumerate() {
            big.insert(k, i as u32);
        }
        for table in [&t, &big] {
            for (i, &k) in keys.iter().enumerate() {
                assert_eq!(table.get(k), Some(i as u32));
                assert_eq!(table.get_tagged(k), Some(i as u32));
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU has AVX-512F (checked).
                    assert_eq!(unsafe { table.get_avx512(k, mix(k)) }, Some(i as u32));
                }
            }
            for &k in absent.iter().chain([(0, 0), (0, u64::MAX)].iter()) {
                assert_eq!(table.get(k), None);
                assert_eq!(table.get_tagged(k), None);
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: as above.
                    assert_eq!(unsafe { table.get_avx512(k, mix(k)) }, None);
                }
            }
        }
    }
}
