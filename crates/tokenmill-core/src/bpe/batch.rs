//! `BatchSink`: the encoder's piece loop on AVX-512, a batch of pieces at a time. The
//! pre-tokenizer hands it piece ends, which it only stores (a block's at once); once it holds
//! 192 pieces or more it builds their keys and hashes eight at a time, asks for their
//! token-table lines, looks each piece up (asking for the lines that the few that are not
//! whole tokens will read: the encoder's cache's, or the token table's for their merge), and
//! then emits the ids in order, merging or reading from the caches the pieces that missed.
//!
//! Why: a piece's whole-token lookup (pack the key, hash it, probe the table) was inlined
//! into the pre-tokenizer's loop, a loop with too many live values, where its key and hash
//! took about 25 instructions per piece and its probe waited on the table's line. Here the
//! keys and hashes of eight pieces are a few vector instructions (two gathers of the pieces'
//! bytes, masks by length, `table::mix` on eight lanes), every line of the batch is on its
//! way before the first probe, and the probe (`LineTable::get_avx512`) compares a line's
//! three keys at once, with one branch: hit or miss.
//!
//! What it does not do: pre-tokenize, merge (`merge::encode_piece_rest`), or run on a CPU
//! without AVX-512F and AVX-512DQ (`table::wide_cpu`: there the vocabulary's table is a
//! `ShortKeyTable` and the encoder looks pieces up one by one, `encoder::EncodeSink`).

use super::long_cache;
use super::merge::{encode_long_piece, encode_piece_rest, Scratch};
use super::vocab::Vocab;
use crate::pretokenize::PieceSink;
use crate::table::{self, LineTable, MAX_KEY};
use crate::types::Rank;

/// Pieces a batch holds at most: the batch's arrays (10 KiB) stay in the L1 cache.
const BATCH: usize = 256;
/// A batch is looked up once it holds this many pieces (`pieces_ending` adds up to 63 at once).
const FILL: usize = BATCH - 64;
const _: () = assert!(BATCH <= 256, "`BatchSink::miss` holds piece numbers as bytes");

/// The key of a piece that no table holds (longer than `MAX_KEY`): its length byte is 0xFF.
const NO_KEY: table::Key = (0, u64::MAX);

/// A `PieceSink` that encodes pieces a batch at a time (see the module). Call `finish` after
/// the last piece.
pub(crate) struct BatchSink<'a> {
    vocab: &'a Vocab,
    lines: &'a LineTable,
    bytes: &'a [u8],
    pub(crate) out: &'a mut Vec<Rank>,
    scratch: &'a mut Scratch,
    /// `pos[0]`: where the batch's first piece starts; `pos[i + 1]`: where its piece `i` ends
    /// (7 more: `pieces_ending` stores 8 at a time).
    pos: [usize; BATCH + 8],
    n: usize,
    lo: [u64; BATCH],
    hi: [u64; BATCH],
    hash: [u64; BATCH],
    /// The id of each piece that is a whole token (16 more: `append` reads 16 at a time).
    rank: [Rank; BATCH + 16],
    /// The pieces that are not, in order.
    miss: [u8; BATCH],
}

impl<'a> BatchSink<'a> {
    /// A sink that appends the tokens of the pieces of `bytes` to `out`, looking up whole
    /// tokens in `lines` (`vocab`'s table).
    ///
    /// # Safety
    /// `table::wide_cpu()` must be true.
    #[inline]
    pub(crate) unsafe fn new(
        vocab: &'a Vocab,
        lines: &'a LineTable,
        bytes: &'a [u8],
        out: &'a mut Vec<Rank>,
        scratch: &'a mut Scratch,
    ) -> Self {
        BatchSink {
            vocab,
            lines,
            bytes,
            out,
            scratch,
            pos: [0; BATCH + 8],
            n: 0,
            lo: [0; BATCH],
            hi: [0; BATCH],
            hash: [0; BATCH],
            rank: [0; BATCH + 16],
            miss: [0; BATCH],
        }
    }

    /// Encodes the pieces still in the batch.
    #[inline]
    pub(crate) fn finish(&mut self) {
        if self.n > 0 {
            self.flush();
        }
    }

    #[inline(never)]
    fn flush(&mut self) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `new`'s caller checked that the CPU has the features (`table::wide_cpu`).
        unsafe {
            self.flush_avx512()
        }
    }

    /// The batch's keys and hashes; their lines asked for; each piece looked up; then the
    /// tokens appended, those of the pieces that are not whole tokens from the encoder's
    /// caches or by merging.
    ///
    /// # Safety
    /// The CPU must have the features (`table::wide_cpu`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,bmi1,bmi2,lzcnt,popcnt")]
    unsafe fn flush_avx512(&mut self) {
        // SAFETY: the same features.
        unsafe { self.keys_avx512() };
        let (n, b) = (self.n, self.bytes);
        let whole = self.lines;
        for &h in &self.hash[..n] {
            whole.prefetch(h);
        }
        // First every lookup, so that the pieces that are not whole tokens have their lines
        // on the way before the first of them is merged or read: their slots in the
        // encoder's caches when a tag says a cache may hold them, else, for a short ASCII
        // word, the token table's lines its merge reads first (`prefetch_joins`). One after
        // another, those reads missed the CPU's caches in turn.
        let (shared, long) = (self.vocab.shared_cache(), self.vocab.long_cache());
        let mut m = 0;
        for j in 0..n {
            let key = (self.lo[j], self.hi[j]);
            // SAFETY: the CPU has AVX-512F (`new`).
            match unsafe { whole.get_avx512(key, self.hash[j]) } {
                Some(r) => self.rank[j] = r,
                None => {
                    self.miss[m] = j as u8;
                    m += 1;
                    if key != NO_KEY {
                        if !shared.prefetch_held(self.hash[j]) && table::key_is_ascii(key) {
                            prefetch_joins(whole, key);
                        }
                    } else if long.may_hold(self.pos[j + 1] - self.pos[j]) {
                        // From here on `hash[j]` is the piece's `long_cache::hash`.
                        let piece = &b[self.pos[j]..self.pos[j + 1]];
                        self.hash[j] = long_cache::hash(piece);
                        long.prefetch_held(self.hash[j], piece.len());
                    }
                }
            }
        }
        // Then the ids in order: each run of whole tokens, then the piece after it.
        let mut at = 0;
        for &j in &self.miss[..m] {
            let j = j as usize;
            // SAFETY: `at <= j < n`; the CPU has AVX-512F.
            unsafe { append(self.out, &self.rank, at, j) };
            let (key, piece) = ((self.lo[j], self.hi[j]), &b[self.pos[j]..self.pos[j + 1]]);
            if key != NO_KEY {
                encode_piece_rest(self.vocab, piece, Some(key), self.out, self.scratch);
            } else {
                let hash = long.may_hold(piece.len()).then_some(self.hash[j]);
                encode_long_piece(self.vocab, piece, hash, self.out, self.scratch);
            }
            at = j + 1;
        }
        // SAFETY: `at <= n`; the CPU has AVX-512F.
        unsafe { append(self.out, &self.rank, at, n) };
        self.pos[0] = self.pos[n];
        self.n = 0;
    }

    /// The keys (`table::pack`, or `NO_KEY`) and hashes (`table::mix`) of the batch's pieces,
    /// eight at a time.
    ///
    /// # Safety
    /// The CPU must have the features (`table::wide_cpu`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,bmi1,bmi2,lzcnt,popcnt")]
    unsafe fn keys_avx512(&mut self) {
        use std::arch::x86_64::*;
        let (n, b) = (self.n, self.bytes);
        let set = |x: u64| _mm512_set1_epi64(x as i64);
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: `pos[i..i + 9]` and the outputs' `[i..i + 8]` are in bounds (i + 8 <= n).
            let (start, end) = unsafe {
                (
                    _mm512_loadu_si512(self.pos.as_ptr().add(i) as *const _),
                    _mm512_loadu_si512(self.pos.as_ptr().add(i + 1) as *const _),
                )
            };
            let len = _mm512_sub_epi64(end, start);
            // 1 to 15 bytes, with 16 bytes of the text from the start: read whole, as
            // `table::key_at` does. (Pieces are never empty; the test costs nothing.)
            let short = _mm512_cmplt_epu64_mask(_mm512_sub_epi64(len, set(1)), set(MAX_KEY as u64));
            let whole = short & _mm512_cmple_epu64_mask(_mm512_add_epi64(start, set(16)), set(b.len() as u64));
            // SAFETY: the lanes of `whole` read 16 bytes from a start within `b`; the others
            // read nothing.
            let (lo, hi) = unsafe {
                (
                    _mm512_mask_i64gather_epi64::<1>(set(0), whole, start, b.as_ptr() as *const i64),
                    _mm512_mask_i64gather_epi64::<1>(
                        set(0),
                        whole,
                        _mm512_add_epi64(start, set(8)),
                        b.as_ptr() as *const i64,
                    ),
                )
            };
            // Keep the first `len` bytes: shifts of 64 or more give 0.
            let bits = _mm512_slli_epi64::<3>(len);
            let lo = _mm512_and_si512(
                lo,
                _mm512_srlv_epi64(set(u64::MAX), _mm512_sub_epi64(set(64), _mm512_min_epu64(bits, set(64)))),
            );
            let hi = _mm512_and_si512(hi, _mm512_srlv_epi64(set(u64::MAX), _mm512_sub_epi64(set(128), bits)));
            let hi = _mm512_or_si512(hi, _mm512_slli_epi64::<56>(len));
            // Long pieces: `NO_KEY`.
            let lo = _mm512_maskz_mov_epi64(short, lo);
            let hi = _mm512_mask_mov_epi64(set(NO_KEY.1), short, hi);
            // `table::mix` on eight lanes.
            let x = _mm512_xor_si512(
                _mm512_mullo_epi64(lo, set(0x9E37_79B9_7F4A_7C15)),
                _mm512_rol_epi64::<31>(_mm512_mullo_epi64(hi, set(0xC2B2_AE3D_27D4_EB4F))),
            );
            let h = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64::<29>(x)), set(0xBF58_476D_1CE4_E5B9));
            // SAFETY: as above.
            unsafe {
                _mm512_storeu_si512(self.lo.as_mut_ptr().add(i) as *mut _, lo);
                _mm512_storeu_si512(self.hi.as_mut_ptr().add(i) as *mut _, hi);
                _mm512_storeu_si512(self.hash.as_mut_ptr().add(i) as *mut _, h);
            }
            // Short pieces near the text's end: packed one by one.
            let mut near_end = short & !whole;
            while near_end != 0 {
                self.key_one(i + near_end.trailing_zeros() as usize);
                near_end &= near_end - 1;
            }
            i += 8;
        }
        for j in i..n {
            self.key_one(j);
        }
    }

    /// The key and hash of piece `j`, one piece at a time.
    #[inline(always)]
    fn key_one(&mut self, j: usize) {
        let key = table::pack(&self.bytes[self.pos[j]..self.pos[j + 1]]).unwrap_or(NO_KEY);
        (self.lo[j], self.hi[j], self.hash[j]) = (key.0, key.1, table::mix(key));
    }
}

/// The longest joins `prefetch_joins` asks for.
const JOIN_AHEAD: usize = 5;

/// Asks the CPU for the tag words and lines of `lines` that merging the piece packed as `key`
/// reads first: the lookups of its substrings of 3 to `JOIN_AHEAD` bytes (the joins of two
/// bytes come from `Vocab::pair_rank`'s small table).
///
/// Why: a short word that is not a token (one piece in twelve in English) is merged by a
/// chain of lookups in the token table, each waiting for the one before, and on a first pass
/// their lines are rarely in the CPU's caches. Asked for here, the lines of all the batch's
/// new words are on their way together before the first merge (first pass over prose
/// 1.07x cl100k, 1.18x o200k; lengths up to 4, 6 and 8 gained less).
#[inline(always)]
fn prefetch_joins(lines: &LineTable, key: table::Key) {
    for sub in join_keys(key) {
        lines.prefetch_tagged(table::mix(sub));
    }
}

/// The keys (`table::pack`) of the substrings of 3 to `JOIN_AHEAD` bytes of the piece packed
/// as `key`.
#[inline(always)]
fn join_keys(key: table::Key) -> impl Iterator<Item = table::Key> {
    let (n, bytes) = (table::key_len(key), table::key_bytes(key));
    (3..=JOIN_AHEAD.min(n)).flat_map(move |len| {
        (0..=n - len).map(move |at| ((bytes >> (8 * at)) as u64 & (u64::MAX >> (64 - 8 * len)), (len as u64) << 56))
    })
}

/// Appends `rank[from..to]` to `out`, 16 ids to a store. Why not `extend_from_slice`: a call
/// to `memcpy` per run of whole tokens between two pieces that are not.
///
/// # Safety
/// `from <= to <= BATCH`, and the CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn append(out: &mut Vec<Rank>, rank: &[Rank; BATCH + 16], from: usize, to: usize) {
    use std::arch::x86_64::*;
    let n = to - from;
    out.reserve(n + 16);
    let len = out.len();
    let mut i = 0;
    while i < n {
        // SAFETY: reads `rank[from + i..from + i + 16]`, within its `BATCH + 16` (from + i <
        // to <= BATCH); writes 16 ids from `out`'s length + i < length + n, within the room
        // reserved above.
        unsafe {
            let v = _mm512_loadu_si512(rank.as_ptr().add(from + i) as *const _);
            _mm512_storeu_si512(out.as_mut_ptr().add(len + i) as *mut _, v);
        }
        i += 16;
    }
    // SAFETY: the first `n` of those ids were copied from `rank`.
    unsafe { out.set_len(len + n) };
}

impl PieceSink for BatchSink<'_> {
    #[inline(always)]
    fn piece(&mut self, start: usize, end: usize) {
        debug_assert_eq!(start, self.pos[self.n], "pieces come in order, with no gap");
        self.pos[self.n + 1] = end;
        self.n += 1;
        if self.n >= FILL {
            self.flush();
        }
    }

    /// With VBMI2, a block's pieces in one go: `vpcompressb` packs the positions of the set
    /// bits of `ends`, and they are stored 8 at a time. Why: the loop over the bits called
    /// `piece` per piece, which reads and writes the batch's count through memory each time,
    /// and its exit (after 10-16 pieces of a block of prose, a different number each time)
    /// is a mispredicted branch per block. A batch is looked up once it holds `FILL` pieces
    /// or more, so a block's pieces always fit.
    #[inline(always)]
    fn pieces_ending<const VBMI2: bool>(&mut self, pos: usize, ends: u64) -> usize {
        #[cfg(target_arch = "x86_64")]
        if VBMI2 && ends != 0 {
            use std::arch::x86_64::*;
            let (n, count) = (self.n, ends.count_ones() as usize);
            let mut at = [0u8; 64];
            // SAFETY: `VBMI2` only from code compiled for VBMI2 on a CPU that has it
            // (`pieces_blocks_vbmi`). `n < FILL` (`piece` and this flush at `FILL`) and
            // `count <= 63`, so the stores, 8 entries from `pos[n + 1 + k]` for `k` a multiple
            // of 8 below `count`, end at `pos[FILL + 63]` at most (`pos` has `BATCH + 8`), the
            // batch then holds at most `FILL + 62 < BATCH` pieces, and the loads stay in `at`.
            unsafe {
                let iota = _mm512_set_epi8(
                    63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39,
                    38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14,
                    13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
                );
                _mm512_storeu_si512(at.as_mut_ptr() as *mut _, _mm512_maskz_compress_epi8(ends, iota));
                let (base, to) = (_mm512_set1_epi64(pos as i64), self.pos.as_mut_ptr().add(n + 1));
                let mut k = 0;
                while k < count {
                    let v = _mm512_cvtepu8_epi64(_mm_loadl_epi64(at.as_ptr().add(k) as *const _));
                    _mm512_storeu_si512(to.add(k) as *mut _, _mm512_add_epi64(v, base));
                    k += 8;
                }
            }
            self.n = n + count;
            if self.n >= FILL {
                self.flush();
            }
            // From the mask, not from `at`: the next block starts here, and reading it back
            // from the compressed bytes put the compress and a store on that chain.
            return pos + 63 - ends.leading_zeros() as usize;
        }
        crate::pretokenize::fast::pieces_one_by_one(self, pos, ends)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_joins_asked_for_are_the_keys_of_a_words_substrings_of_3_to_5_bytes() {
        let word = b"abcdefghijklmno";
        for n in 1..=word.len() {
            let key = table::pack(&word[..n]).unwrap();
            let want: Vec<_> = (3..=JOIN_AHEAD.min(n))
                .flat_map(|len| (0..=n - len).map(move |at| table::pack(&word[at..at + len]).unwrap()))
                .collect();
            assert_eq!(join_keys(key).collect::<Vec<_>>(), want, "{n} bytes");
        }
    }

    #[test]
    fn a_batchs_keys_and_hashes_are_pack_and_mix_of_its_pieces() {
        // Pieces of 1 to 20 bytes (NULs included), the last ones within 16 bytes of the end, in
        // batches of every length from 1 to 64.
        let vocab = Vocab::new((0..=255u8).map(|b| (vec![b], b as Rank)).collect(), vec![]).unwrap();
        let Some(lines) = vocab.short_table().lines() else {
            return;
        };
        let text: Vec<u8> = (0..3000u32).map(|i| if i % 11 == 0 { 0 } else { (i * 37 % 251) as u8 }).collect();
        let (mut out, mut scratch) = (Vec::new(), Scratch::default());
        for batch in 1..=64usize {
            // SAFETY: supported (checked).
            let mut sink = unsafe { BatchSink::new(&vocab, lines, &text, &mut out, &mut scratch) };
            let mut at = text.len() - (batch * 10).min(text.len());
            sink.pos[0] = at;
            for j in 0..batch {
                at = (at + 1 + (j * 7 + batch) % 20).min(text.len() - (batch - 1 - j));
                sink.pos[j + 1] = at;
            }
            sink.n = batch;
            // SAFETY: supported (checked).
            unsafe { sink.keys_avx512() };
            for j in 0..batch {
                let key = table::pack(&text[sink.pos[j]..sink.pos[j + 1]]).unwrap_or(NO_KEY);
                assert_eq!(
                    (sink.lo[j], sink.hi[j], sink.hash[j]),
                    (key.0, key.1, table::mix(key)),
                    "batch {batch}, piece {j}"
                );
            }
        }
    }
}
