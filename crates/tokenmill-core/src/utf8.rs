//! UTF-8 from the fixed-width forms CPython keeps its strings in (one byte per char for
//! Latin-1 text, two for the Basic Multilingual Plane, four beyond it), for the binding's batch
//! calls.
//!
//! Why not CPython's own transcoder (`PyUnicode_AsUTF8AndSize`): it costs about 20
//! instructions per CJK char and 6 per Latin-1 char, a tenth of a whole multilingual batch
//! encode, and it keeps a UTF-8 copy inside every `str` it is asked for (the caller's texts
//! grow by their UTF-8 size for as long as they live). These loops cost about a third of that,
//! and write into a buffer the caller reuses. What this module does not do: read Python
//! objects (the binding hands it their code units) or report errors beyond the position of the
//! first unit that has no UTF-8 form (a surrogate; the binding then lets Python raise its
//! usual `UnicodeEncodeError`).

/// The code units of one string.
#[derive(Clone, Copy, Debug)]
pub enum Units<'a> {
    /// U+0000..=U+00FF, one byte each.
    Latin1(&'a [u8]),
    /// U+0000..=U+FFFF, one `u16` each.
    Ucs2(&'a [u16]),
    /// Any code point, one `u32` each.
    Ucs4(&'a [u32]),
}

impl<'a> Units<'a> {
    /// Number of units (characters).
    pub fn len(&self) -> usize {
        match self {
            Units::Latin1(u) => u.len(),
            Units::Ucs2(u) => u.len(),
            Units::Ucs4(u) => u.len(),
        }
    }

    /// True for no units.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Unit `i` (a code point, or a lone surrogate) as a number.
    #[inline]
    pub fn at(&self, i: usize) -> u32 {
        match self {
            Units::Latin1(u) => u[i] as u32,
            Units::Ucs2(u) => u[i] as u32,
            Units::Ucs4(u) => u[i],
        }
    }

    /// Units `a..b`.
    pub fn slice(&self, a: usize, b: usize) -> Units<'a> {
        match *self {
            Units::Latin1(u) => Units::Latin1(&u[a..b]),
            Units::Ucs2(u) => Units::Ucs2(&u[a..b]),
            Units::Ucs4(u) => Units::Ucs4(&u[a..b]),
        }
    }
}

/// Appends the UTF-8 form of `units` to `out`.
///
/// Returns the index of the first unit that is a surrogate (or, in UCS-4, above U+10FFFF):
/// those have no UTF-8 form, and `out` is left as it was.
///
/// ```
/// use tokenmill_core::utf8::{push_utf8, Units};
/// let mut out = String::new();
/// push_utf8(Units::Ucs2(&[0x48, 0xe9, 0x65e5]), &mut out).unwrap();
/// assert_eq!(out, "Hé日");
/// assert_eq!(push_utf8(Units::Ucs2(&[0x41, 0xd800]), &mut out), Err(1));
/// ```
pub fn push_utf8(units: Units<'_>, out: &mut String) -> Result<(), usize> {
    #[cfg(target_arch = "x86_64")]
    let wide = wide::available();
    #[cfg(not(target_arch = "x86_64"))]
    let wide = false;
    push_utf8_using(units, out, wide)
}

/// `push_utf8`, with the AVX-512 path (`wide`) or without it (the tests compare the two).
fn push_utf8_using(units: Units<'_>, out: &mut String, wide: bool) -> Result<(), usize> {
    // SAFETY: `out` gets UTF-8 only: on success, the first `n` bytes written, each char the
    // UTF-8 form of a scalar value (surrogates and values above U+10FFFF are refused before
    // they are written), the zeros and spare bytes past them cut off; on failure, nothing.
    let out = unsafe { out.as_mut_vec() };
    let start = out.len();
    // Block by block, each with room for its longest form plus 32 bytes, so that every char
    // can be written as one 4-byte store and every 8 UCS-2 units as one 24-byte store (the
    // bytes past their length are overwritten by the next or cut below). Why blocks: room for
    // a whole large text's longest form, zero-filled, was three times its UTF-8 size for CJK,
    // every page of it faulted in: 50 ms of serial time for 16 MB before a 2-thread encode.
    const BLOCK: usize = 1 << 14;
    let (n, width) = match units {
        Units::Latin1(u) => (u.len(), 2),
        Units::Ucs2(u) => (u.len(), 3),
        Units::Ucs4(u) => (u.len(), 4),
    };
    // Room for the longest form, reserved (not written, so no page of it is touched before
    // its block is): growing the string block by block copied it over and over, 2% of a first
    // pass over 3.5 MB of prose. Past 1 GiB, the shortest form, so that a huge text never asks
    // for four times its size.
    let most = width * n + 32;
    out.reserve(if most <= 1 << 30 { most } else { n + 32 });
    let mut done = 0;
    while done < n {
        let end = (done + BLOCK).min(n);
        let at = out.len();
        out.resize(at + width * (end - done) + 32, 0);
        let written = match units {
            #[cfg(target_arch = "x86_64")]
            _ if wide => {
                // SAFETY: the CPU has what `wide` names (checked once per call).
                unsafe { wide::convert(units.slice(done, end), &mut out[at..]) }
            }
            Units::Latin1(u) => Ok(latin1(&u[done..end], &mut out[at..])),
            Units::Ucs2(u) => ucs2(&u[done..end], &mut out[at..]),
            Units::Ucs4(u) => ucs4(&u[done..end], &mut out[at..]),
        };
        match written {
            Ok(w) => out.truncate(at + w),
            Err(i) => {
                out.truncate(start);
                return Err(done + i);
            }
        }
        done = end;
    }
    Ok(())
}

/// The UTF-8 bytes of `c` packed little-endian in a `u32`, and their count: `c` must be a
/// scalar value (not a surrogate, at most U+10FFFF).
#[inline(always)]
fn encode(c: u32) -> (u32, usize) {
    if c < 0x80 {
        (c, 1)
    } else if c < 0x800 {
        (0x80c0 | (c >> 6) | ((c & 0x3f) << 8), 2)
    } else if c < 0x1_0000 {
        (0x80_80e0 | (c >> 12) | (((c >> 6) & 0x3f) << 8) | ((c & 0x3f) << 16), 3)
    } else {
        (0x8080_80f0 | (c >> 18) | (((c >> 12) & 0x3f) << 8) | (((c >> 6) & 0x3f) << 16) | ((c & 0x3f) << 24), 4)
    }
}

/// Writes one char at `dst[o..]` (4 bytes stored, `len` kept) and returns the new end.
#[inline(always)]
fn put(dst: &mut [u8], o: usize, (bytes, len): (u32, usize)) -> usize {
    if let Some(d) = dst.get_mut(o..o + 4) {
        d.copy_from_slice(&bytes.to_le_bytes());
    }
    o + len
}

/// Latin-1 to UTF-8 in `dst` (at least `2 * src.len() + 16` long); returns the length
/// written.
fn latin1(src: &[u8], dst: &mut [u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of x86_64.
        unsafe { simd::latin1(src, dst) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut o = 0;
        for &b in src {
            o = put(dst, o, encode(b as u32));
        }
        o
    }
}

/// UCS-2 to UTF-8 in `dst` (at least `3 * src.len() + 32` long); returns the length written
/// or the index of the first surrogate.
fn ucs2(src: &[u16], dst: &mut [u8]) -> Result<usize, usize> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY: the CPU has SSSE3 (checked just above).
        return unsafe { simd::ucs2(src, dst) };
    }
    let mut o = 0;
    for (i, &c) in src.iter().enumerate() {
        if (0xd800..0xe000).contains(&c) {
            return Err(i);
        }
        o = put(dst, o, encode(c as u32));
    }
    Ok(o)
}

/// UCS-2 eight units at a time, for the two kinds of run that make up most text in the Basic
/// Multilingual Plane: ASCII, and three-byte chars (CJK, kana, Hangul and their punctuation).
/// Each step converts the run of one kind at the start of the next eight units; only a
/// two-byte char or a surrogate goes alone. About 1 instruction per unit in long runs, 5 in
/// Chinese text, where the scalar loop takes about 20.
#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    /// The 16 bytes of units `src[i..i + N]` (`N` units of `T` make 16 bytes), zero-padded
    /// past the end of `src`; `i < src.len()`.
    #[inline(always)]
    fn block<T: Copy + Default, const N: usize>(src: &[T], i: usize) -> __m128i {
        // SAFETY (both loads): `N` units of `T` are 16 bytes (an unaligned load).
        if let Some(full) = src.get(i..i + N) {
            unsafe { _mm_loadu_si128(full.as_ptr().cast()) }
        } else {
            let mut tail = [T::default(); N];
            let left = src.len().saturating_sub(i);
            tail[..left].copy_from_slice(&src[i..]);
            unsafe { _mm_loadu_si128(tail.as_ptr().cast()) }
        }
    }

    /// `super::latin1` 16 bytes at a time: each step copies the run of ASCII at the start of
    /// the next 16 bytes, or converts one byte that is not ASCII (2 bytes of UTF-8).
    ///
    /// # Safety
    /// The CPU must have SSE2 (every x86_64 has). `dst` must be at least `2 * src.len() + 16`
    /// long (else nothing is converted).
    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn latin1(src: &[u8], dst: &mut [u8]) -> usize {
        let (mut i, mut o) = (0, 0);
        let n = src.len();
        if dst.len() < 2 * n + 16 {
            return 0;
        }
        while i < n {
            let left = n - i;
            let c = block::<u8, 16>(src, i);
            // SAFETY (stores): 16 bytes at `o <= 2 * i < 2 * n`, within `dst`.
            let run = (_mm_movemask_epi8(c) as u32 | 0x1_0000).trailing_zeros() as usize;
            if run > 0 {
                _mm_storeu_si128(dst.as_mut_ptr().add(o).cast(), c);
                let k = run.min(left);
                i += k;
                o += k;
                if k == 16 {
                    // A long ASCII run, likely: 32 bytes a step while all are ASCII (see
                    // `ucs2`).
                    while i + 32 <= n {
                        let (a, b) = (src.as_ptr().add(i).cast(), src.as_ptr().add(i + 16).cast());
                        let (a, b) = (_mm_loadu_si128(a), _mm_loadu_si128(b));
                        if _mm_movemask_epi8(_mm_or_si128(a, b)) != 0 {
                            break;
                        }
                        // SAFETY: 32 bytes at `o <= 2 * i` with `i + 32 <= n`: within `dst`.
                        _mm_storeu_si128(dst.as_mut_ptr().add(o).cast(), a);
                        _mm_storeu_si128(dst.as_mut_ptr().add(o + 16).cast(), b);
                        i += 32;
                        o += 32;
                    }
                }
            } else {
                o = super::put(dst, o, super::encode(src[i] as u32));
                i += 1;
            }
        }
        o
    }

    /// Converts the ASCII units of `src` from `i` on, 16 at a time while a whole block of 16
    /// is ASCII, writing at `dst[o..]`; returns how many units it took and the new end.
    ///
    /// # Safety
    /// The CPU must have SSE2 (every x86_64 has). `dst` must be at least `4 * src.len() + 4`
    /// long and `o <= 4 * i` (else nothing is converted).
    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn ucs4_ascii(src: &[u32], dst: &mut [u8], i: usize, o: usize) -> (usize, usize) {
        let n = src.len();
        if dst.len() < 4 * n + 4 || o > 4 * i {
            return (0, o);
        }
        let (mut k, mut o) = (i, o);
        let (zero, high) = (_mm_setzero_si128(), _mm_set1_epi32(!0x7f));
        while k + 16 <= n {
            // SAFETY (loads): 16 units at `k`, `k + 16 <= n`.
            let p = src.as_ptr().add(k);
            let (a, b) = (_mm_loadu_si128(p.cast()), _mm_loadu_si128(p.add(4).cast()));
            let (c, d) = (_mm_loadu_si128(p.add(8).cast()), _mm_loadu_si128(p.add(12).cast()));
            let any = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));
            if _mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(any, high), zero)) != 0xffff {
                break;
            }
            // Values below 0x80 pass both packs unchanged.
            let bytes = _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
            // SAFETY (store): 16 bytes at `o <= 4 * k` with `k + 16 <= n`: within `dst`.
            _mm_storeu_si128(dst.as_mut_ptr().add(o).cast(), bytes);
            k += 16;
            o += 16;
        }
        (k - i, o)
    }

    /// `super::ucs2` with SSSE3: the same contract (`dst` at least `3 * src.len() + 32`
    /// long, else nothing is converted).
    ///
    /// # Safety
    /// The CPU must have SSSE3.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn ucs2(src: &[u16], dst: &mut [u8]) -> Result<usize, usize> {
        let (mut i, mut o) = (0, 0);
        if dst.len() < 3 * src.len() + 32 {
            return Ok(0);
        }
        // Byte `j` of the 24 bytes of eight 3-byte chars is byte `j % 3` of char `j / 3`.
        // From `lead_mid` (the eight lead bytes, then the eight middle bytes) and `last` (the
        // eight last bytes), -1 marking the bytes the other source gives.
        const LO_LM: [i8; 16] = [0, 8, -1, 1, 9, -1, 2, 10, -1, 3, 11, -1, 4, 12, -1, 5];
        const LO_L: [i8; 16] = [-1, -1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1];
        const HI_LM: [i8; 16] = [13, -1, 6, 14, -1, 7, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1];
        const HI_L: [i8; 16] = [-1, 5, -1, -1, 6, -1, -1, 7, -1, -1, -1, -1, -1, -1, -1, -1];
        let lo_lm = _mm_loadu_si128(LO_LM.as_ptr().cast());
        let lo_l = _mm_loadu_si128(LO_L.as_ptr().cast());
        let hi_lm = _mm_loadu_si128(HI_LM.as_ptr().cast());
        let hi_l = _mm_loadu_si128(HI_L.as_ptr().cast());
        let zero = _mm_setzero_si128();
        let low6 = _mm_set1_epi16(0x3f);
        let cont = _mm_set1_epi16(0x80);
        let n = src.len();
        while i < n {
            let left = n - i;
            let c = block::<u16, 8>(src, i);
            // SAFETY (stores): a step writes at most 24 bytes at `o <= 3 * i < 3 * n`, so
            // within `dst` (at least `3 * n + 32` long).
            let out = dst.as_mut_ptr().add(o);
            // Two mask bits per unit; the count of trailing ones, halved, is the run's length.
            let ascii = _mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(c, _mm_set1_epi16(0xff80u16 as i16)), zero));
            let run = (!ascii).trailing_zeros() as usize / 2;
            if run > 0 {
                _mm_storel_epi64(out.cast(), _mm_packus_epi16(c, c));
                let k = run.min(left);
                i += k;
                o += k;
                if k == 8 {
                    // A long ASCII run, likely: 16 units a step while all are ASCII, with no
                    // step waiting on the last one's count (English prose with a few curly
                    // quotes is such a str: 8.9% of a first pass went here before, 1.8% now).
                    while i + 16 <= n {
                        let (a, b) = (src.as_ptr().add(i).cast(), src.as_ptr().add(i + 8).cast());
                        let (a, b) = (_mm_loadu_si128(a), _mm_loadu_si128(b));
                        let high = _mm_and_si128(_mm_or_si128(a, b), _mm_set1_epi16(0xff80u16 as i16));
                        if _mm_movemask_epi8(_mm_cmpeq_epi16(high, zero)) != 0xffff {
                            break;
                        }
                        // SAFETY: 16 bytes at `o <= 3 * i` with `i + 16 <= n`: within `dst`.
                        _mm_storeu_si128(dst.as_mut_ptr().add(o).cast(), _mm_packus_epi16(a, b));
                        i += 16;
                        o += 16;
                    }
                }
                continue;
            }
            // Three bytes: at least U+0800 (the top five bits are not all zero) and not a
            // surrogate (they are not 11011).
            let top = _mm_and_si128(c, _mm_set1_epi16(0xf800u16 as i16));
            let other =
                _mm_or_si128(_mm_cmpeq_epi16(top, zero), _mm_cmpeq_epi16(top, _mm_set1_epi16(0xd800u16 as i16)));
            let run = (_mm_movemask_epi8(other) as u32 | 0x1_0000).trailing_zeros() as usize / 2;
            if run > 0 {
                let lead = _mm_or_si128(_mm_srli_epi16(c, 12), _mm_set1_epi16(0xe0));
                let mid = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(c, 6), low6), cont);
                let last = _mm_or_si128(_mm_and_si128(c, low6), cont);
                let lead_mid = _mm_packus_epi16(lead, mid);
                let last = _mm_packus_epi16(last, last);
                let lo = _mm_or_si128(_mm_shuffle_epi8(lead_mid, lo_lm), _mm_shuffle_epi8(last, lo_l));
                let hi = _mm_or_si128(_mm_shuffle_epi8(lead_mid, hi_lm), _mm_shuffle_epi8(last, hi_l));
                _mm_storeu_si128(out.cast(), lo);
                _mm_storel_epi64(out.add(16).cast(), hi);
                let k = run.min(left);
                i += k;
                o += 3 * k;
                continue;
            }
            // A two-byte char (Latin-1 letters, Greek, Cyrillic, Hebrew, Arabic) or a surrogate.
            let u = src[i];
            if (0xd800..0xe000).contains(&u) {
                return Err(i);
            }
            o = super::put(dst, o, super::encode(u as u32));
            i += 1;
        }
        Ok(o)
    }
}

/// Any mix of one- to four-byte chars, 16 units a step, on AVX-512 (VBMI2), for all three
/// forms.
///
/// Why: the SSE paths above convert a run of one kind a step (ASCII, or three-byte chars),
/// and every two-byte char alone, with a branch on what comes next. Text that mixes kinds
/// char by char (French, Russian or Greek, accented names in English) took a step and a
/// mispredicted branch per char: 11% of a call on random letters of four scripts, 9% on
/// fr/ja/zh text. Here every unit's UTF-8 form is made in its own 32-bit lane, whatever its
/// length, and one `vpcompressb` packs the lanes' bytes together.
#[cfg(target_arch = "x86_64")]
mod wide {
    use super::Units;
    use std::arch::x86_64::*;

    /// Whether the CPU has what `convert` is compiled for (std caches the answer).
    #[inline]
    pub(super) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi2")
            && std::arch::is_x86_feature_detected!("popcnt")
    }

    /// `super::push_utf8`'s conversion of one block: the UTF-8 form of `units` at the start of
    /// `dst` (at least `w * units.len() + 32` long, `w` the form's longest UTF-8 per unit:
    /// 2, 3 or 4); the length written, or the index of the first unit with no UTF-8 form.
    ///
    /// # Safety
    /// The CPU must have AVX-512BW, AVX-512VBMI2 and POPCNT (`available`).
    #[target_feature(enable = "avx512bw,avx512vbmi2,popcnt")]
    pub(super) unsafe fn convert(units: Units<'_>, dst: &mut [u8]) -> Result<usize, usize> {
        // Each arm: the steps of 16 units, then the rest (fewer than 16) by the path above,
        // into the rest of `dst` (which keeps the room that path needs: `o <= w * i`).
        match units {
            Units::Latin1(u) => {
                let (i, o) =
                    steps::<2>(u.len(), dst, |i| _mm512_cvtepu8_epi32(_mm_loadu_si128(u.as_ptr().add(i).cast())))?;
                Ok(o + super::latin1(&u[i..], &mut dst[o..]))
            }
            Units::Ucs2(u) => {
                let (i, o) =
                    steps::<3>(u.len(), dst, |i| _mm512_cvtepu16_epi32(_mm256_loadu_si256(u.as_ptr().add(i).cast())))?;
                super::ucs2(&u[i..], &mut dst[o..]).map(|w| o + w).map_err(|k| i + k)
            }
            Units::Ucs4(u) => {
                let (i, o) = steps::<4>(u.len(), dst, |i| _mm512_loadu_si512(u.as_ptr().add(i).cast()))?;
                super::ucs4(&u[i..], &mut dst[o..]).map(|w| o + w).map_err(|k| i + k)
            }
        }
    }

    /// Converts units 16 at a time while 16 are left, each step's units given as 32-bit
    /// lanes by `load(i)`; returns the units taken and the bytes written (or the index of the
    /// first unit with no UTF-8 form). `W` is the longest UTF-8 form of a unit (2, 3 or 4).
    ///
    /// # Safety
    /// As `convert`; `load(i)` must read only units `i..i + 16`, which exist.
    #[inline(always)]
    unsafe fn steps<const W: usize>(
        n: usize,
        dst: &mut [u8],
        load: impl Fn(usize) -> __m512i,
    ) -> Result<(usize, usize), usize> {
        let (mut i, mut o) = (0, 0);
        let set = _mm512_set1_epi32;
        // A step stores 64 bytes at `o`: it runs only while they fit.
        while i + 16 <= n && o + 64 <= dst.len() {
            let c = load(i);
            let out = dst.as_mut_ptr().add(o);
            let is2 = _mm512_cmpge_epu32_mask(c, set(0x80));
            if is2 == 0 {
                // All ASCII: one byte from each lane.
                _mm_storeu_si128(out.cast(), _mm512_cvtepi32_epi8(c));
                i += 16;
                o += 16;
                continue;
            }
            if W >= 3 {
                // Surrogates (and, in UCS-4, values past U+10FFFF) have no UTF-8 form.
                let mut bad = _mm512_cmpeq_epi32_mask(_mm512_and_si512(c, set(0xffff_f800u32 as i32)), set(0xd800));
                if W == 4 {
                    bad |= _mm512_cmpgt_epu32_mask(c, set(0x10_ffff));
                }
                if bad != 0 {
                    return Err(i + bad.trailing_zeros() as usize);
                }
            }
            // The continuation bytes each lane may need: bits 0-5, 6-11 and 12-17 of the unit.
            let low = |shift: u32| {
                _mm512_or_si512(_mm512_and_si512(_mm512_srlv_epi32(c, set(shift as i32)), set(0x3f)), set(0x80))
            };
            let (t0, t1) = (low(0), low(6));
            let sl = |v: __m512i, bits: u32| _mm512_sllv_epi32(v, set(bits as i32));
            let sr = |bits: u32| _mm512_srlv_epi32(c, set(bits as i32));
            // Lane forms, first byte lowest: 110xxxxx 10xxxxxx; 1110xxxx 10xxxxxx 10xxxxxx; ...
            let two = _mm512_or_si512(_mm512_or_si512(sr(6), set(0xc0)), sl(t0, 8));
            let mut v = _mm512_mask_mov_epi32(c, is2, two);
            let mut keep = _mm512_mask_mov_epi32(set(0xff), is2, set(0xffff));
            if W >= 3 {
                let is3 = _mm512_cmpge_epu32_mask(c, set(0x800));
                let three = _mm512_or_si512(_mm512_or_si512(sr(12), set(0xe0)), _mm512_or_si512(sl(t1, 8), sl(t0, 16)));
                v = _mm512_mask_mov_epi32(v, is3, three);
                keep = _mm512_mask_mov_epi32(keep, is3, set(0xff_ffff));
                if W == 4 {
                    let is4 = _mm512_cmpge_epu32_mask(c, set(0x1_0000));
                    let four = _mm512_or_si512(
                        _mm512_or_si512(_mm512_or_si512(sr(18), set(0xf0)), sl(low(12), 8)),
                        _mm512_or_si512(sl(t1, 16), sl(t0, 24)),
                    );
                    v = _mm512_mask_mov_epi32(v, is4, four);
                    keep = _mm512_mask_mov_epi32(keep, is4, set(-1));
                }
            }
            let bytes = _mm512_test_epi8_mask(keep, keep);
            // SAFETY: 64 bytes at `o`, checked against `dst.len()` above.
            _mm512_storeu_si512(out.cast(), _mm512_maskz_compress_epi8(bytes, v));
            i += 16;
            o += bytes.count_ones() as usize;
        }
        Ok((i, o))
    }
}

/// UCS-4 to UTF-8 in `dst` (at least `4 * src.len() + 4` long); returns the length written or
/// the index of the first unit that is a surrogate or above U+10FFFF.
///
/// Why a fast path: one char above U+FFFF (an emoji, a math letter) makes Python store a
/// whole text four bytes a char, so a large file of code or English is UCS-4 for the sake of a
/// dozen chars; its ASCII runs go 16 units a step.
fn ucs4(src: &[u32], dst: &mut [u8]) -> Result<usize, usize> {
    let (mut i, mut o) = (0, 0);
    let n = src.len();
    while i < n {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: SSE2 is part of x86_64.
            let (ascii, at) = unsafe { simd::ucs4_ascii(src, dst, i, o) };
            i += ascii;
            o = at;
        }
        // Then the next 16 units (or the rest) one at a time.
        for (k, &c) in src.iter().enumerate().skip(i).take(16) {
            if (0xd800..0xe000).contains(&c) || c > 0x10_ffff {
                return Err(k);
            }
            o = put(dst, o, encode(c));
            i += 1;
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paths this CPU can run: without the AVX-512 one, and with it when it has it.
    fn paths() -> Vec<bool> {
        #[cfg(target_arch = "x86_64")]
        if wide::available() {
            return vec![false, true];
        }
        vec![false]
    }

    /// `push_utf8` by every path: the same result from each.
    fn push_all(units: Units<'_>, out: &mut String) -> Result<(), usize> {
        let results: Vec<_> = paths()
            .into_iter()
            .map(|wide| {
                let mut o = out.clone();
                push_utf8_using(units, &mut o, wide).map(|()| o)
            })
            .collect();
        assert!(results.windows(2).all(|w| w[0] == w[1]), "{units:?}: {results:?}");
        results[0].clone().map(|o| *out = o)
    }

    /// The units of `s` in the narrowest of the three forms that holds it, as CPython picks.
    fn check(s: &str) {
        let max = s.chars().map(|c| c as u32).max().unwrap_or(0);
        let (l1, u2, u4): (Vec<u8>, Vec<u16>, Vec<u32>) = (
            s.chars().map(|c| c as u8).collect(),
            s.chars().map(|c| c as u16).collect(),
            s.chars().map(|c| c as u32).collect(),
        );
        let mut forms = Vec::new();
        if max < 0x100 {
            forms.push(Units::Latin1(&l1));
        }
        if max < 0x1_0000 {
            forms.push(Units::Ucs2(&u2));
        }
        forms.push(Units::Ucs4(&u4));
        for units in forms {
            for wide in paths() {
                let mut out = "x".to_string();
                push_utf8_using(units, &mut out, wide).unwrap();
                assert_eq!(&out[1..], s, "{s:?} {units:?} wide={wide}");
            }
        }
    }

    #[test]
    fn every_length_and_boundary() {
        let chars = [
            'a',
            '\0',
            '\x7f',
            '\u{80}',
            'é',
            '\u{ff}',
            '\u{100}',
            '\u{7ff}',
            '\u{800}',
            '日',
            '\u{d7ff}',
            '\u{e000}',
            '\u{ffff}',
            '\u{10000}',
            '😀',
            '\u{10ffff}',
        ];
        for &a in &chars {
            for &b in &chars {
                for n in 0..19 {
                    let s: String = (0..n).map(|k| if k % 3 == 1 { b } else { a }).collect();
                    check(&s);
                    check(&format!("{s}abcdefgh{b}"));
                }
            }
        }
    }

    #[test]
    fn mixed_text_of_every_width() {
        // Runs of each width in random order and length, so that the 8-unit blocks of the
        // UCS-2 path meet every mix.
        let classes: [&[char]; 5] = [
            &['a', ' ', '~', '\0'],
            &['é', '\u{ff}'],
            &['\u{100}', 'ж', '\u{7ff}'],
            &['日', '\u{800}', '\u{d7ff}', '\u{e000}', '\u{ffff}', '。'],
            &['😀', '\u{10000}'],
        ];
        let mut seed = 12345u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..3000 {
            let mut s = String::new();
            let width = 2 + next(4);
            for _ in 0..next(12) {
                let class = classes[next(width)];
                for _ in 0..next(20) {
                    s.push(class[next(class.len())]);
                }
            }
            check(&s);
        }
    }

    #[test]
    fn every_path_reports_the_same_first_bad_unit() {
        // Random units of every width with a surrogate (or, in UCS-4, a value past U+10FFFF)
        // here and there: each path gives the same text or the same index.
        let values = [0x41u32, 0xe9, 0x436, 0x65e5, 0x1f600, 0xd800, 0xdfff, 0x11_0000];
        let mut seed = 99u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..3000 {
            let n = next(80);
            let bad_every = 1 + next(200);
            let u4: Vec<u32> =
                (0..n).map(|_| values[if next(bad_every) == 0 { 5 + next(3) } else { next(5) }]).collect();
            let u2: Vec<u16> = u4.iter().map(|&c| if c > 0xffff { 0x3042 } else { c as u16 }).collect();
            let mut out = String::new();
            let _ = push_all(Units::Ucs2(&u2), &mut out);
            let _ = push_all(Units::Ucs4(&u4), &mut out);
        }
    }

    #[test]
    fn long_ascii_runs_end_anywhere() {
        // The Latin-1, UCS-2 and UCS-4 paths take ASCII 32 bytes or 16 units a step once a
        // block is all ASCII: a run of any length, then each wider kind of char or a surrogate, at
        // every offset.
        let mut out = "keep".to_string();
        for run in 0..90 {
            for c in ['\u{80}', 'é', 'ж', '日', '\u{ffff}', '😀', '\u{10ffff}'] {
                for tail in [0, 1, 9, 17, 40] {
                    check(&format!("{}{c}{}", "a".repeat(run), "b".repeat(tail)));
                }
            }
            let mut units = vec![0x61u16; run + 20];
            units[run] = 0xdc00;
            assert_eq!(push_all(Units::Ucs2(&units), &mut out), Err(run));
            for bad in [0xd800, 0xdfff, 0x11_0000, u32::MAX] {
                let mut units = vec![0x61u32; run + 20];
                units[run] = bad;
                assert_eq!(push_all(Units::Ucs4(&units), &mut out), Err(run));
            }
        }
        assert_eq!(out, "keep");
    }

    #[test]
    fn surrogates_and_out_of_range_give_their_index() {
        let mut out = "keep".to_string();
        for bad in [0xd800u32, 0xdbff, 0xdc00, 0xdfff] {
            assert_eq!(push_all(Units::Ucs2(&[0x41, 0x42, 0x43, 0x44, 0x45, bad as u16]), &mut out), Err(5));
            let mut long = vec![0x65e5u16; 40];
            for at in [0, 7, 8, 15, 16, 39] {
                long[at] = bad as u16;
                assert_eq!(push_all(Units::Ucs2(&long), &mut out), Err(at));
                long[at] = 0x41;
            }
            assert_eq!(push_all(Units::Ucs4(&[0x65e5, bad]), &mut out), Err(1));
        }
        assert_eq!(push_all(Units::Ucs4(&[0x11_0000]), &mut out), Err(0));
        assert_eq!(out, "keep");
    }

    #[test]
    fn texts_longer_than_a_block() {
        // Transcoding goes 16 Ki units at a time: text across block edges, and a surrogate in a
        // later block reported at its index in the whole text.
        let s: String = "ab é日本語 \u{10ffff}".chars().cycle().take(40_003).collect();
        check(&s);
        check(&"é".repeat(50_000));
        check(&"日".repeat(33_000));
        let mut long = vec![0x65e5u16; 40_000];
        let mut out = "keep".to_string();
        for at in [16_383, 16_384, 16_385, 39_999] {
            long[at] = 0xdc00;
            assert_eq!(push_all(Units::Ucs2(&long), &mut out), Err(at));
            long[at] = 0x41;
        }
        assert_eq!(out, "keep");
    }
}
