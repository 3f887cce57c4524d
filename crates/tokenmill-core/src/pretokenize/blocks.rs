//! The pieces of plain ASCII text 64 bytes at a time, for the cl100k-like patterns (cl100k,
//! llama3, qwen2): a block's piece starts are computed at once from bit masks of its byte
//! classes, with no branch per piece on what kind of piece it is.
//!
//! Why: the hand-written matchers (`fast`) decide each piece's alternative with a few
//! data-dependent branches, and on prose the kind of the next piece (a word, a word after a
//! space, punctuation) is close to random, so the CPU mispredicts about one branch a piece.
//!
//! Scope: only "plain" bytes, where the patterns reduce to a few local rules: ASCII letters
//! (`L`), the space (`SP`) and ASCII punctuation other than the apostrophe (`O`). On such text
//! only four alternatives can match, `[^\r\n\p{L}\p{N}]?\p{L}+`, ` ?[^\s\p{L}\p{N}]+`,
//! `\s+(?!\S)` and `\s`, and a piece starts exactly at (positions are bytes; `prev` and `next`
//! are the bytes before and after):
//! - `A`: an `O` byte alone between a non-`O` and a letter, not after a space: it starts the
//!   word after it (`.b` in `a.b`);
//! - a letter after a non-letter, unless after a space or an `A` (which start its piece);
//! - the last space of a run of spaces: it starts the word or the punctuation after it;
//! - the first space of a run of two or more (`\s+(?!\S)` takes all but the last);
//! - the first byte of a run of `O`, unless it is an `A` or follows a space.
//!
//! A start at position `s` depends only on the bytes `s - 2 ..= s + 1`, so a block's starts
//! are trusted up to two bytes before its first byte that is not plain (a digit, a newline,
//! a tab, an apostrophe, a control or non-ASCII byte): the pieces up to there are emitted and
//! the caller's matcher goes on from the last start. The first byte of a block is a piece
//! start by the caller's word (the rules above read no byte before it).
//!
//! What it does not do: anything but the cl100k-like patterns, or any byte that is not plain;
//! off x86-64 it is not used at all (the matchers do all the work).

/// The pieces of `b` from `pos` (a piece start) found in one block: `sink` receives every
/// piece that ends before the block's last trusted start. Returns `Ok((next, resume))` after
/// at least one piece, where `next` is the start of the first piece not emitted and the block
/// path should not be tried again before `resume` (past the first byte that is not plain);
/// `Err(resume)` when no piece could be emitted.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn cl100k_block(b: &[u8], pos: usize, mut piece: impl FnMut(usize, usize)) -> Result<(usize, usize), usize> {
    // 64 bytes and the one after them.
    if b.len() < pos + 65 {
        return Err(b.len());
    }
    let (l, sp, o) = classes64(&b[pos..pos + 64]);
    let (lx, spx, ox) = class1(b[pos + 64]);
    // First byte that is not plain, 64 if none of the block's, 65 if the next byte is plain too.
    let k = (!(l | sp | o)).trailing_zeros() as usize;
    let k = if k == 64 && !(lx || spx || ox) {
        64
    } else if k == 64 {
        65
    } else {
        k
    };
    // Past the first byte that is not plain; past 32 more when it is not ASCII, where more of
    // its kind tend to follow (a failed try costs about as much as a piece's branches).
    let resume = pos + k + 1 + if k < 64 && b[pos + k] >= 0x80 { 31 } else { 0 };
    if k < 3 {
        return Err(resume);
    }
    let next = |m: u64, x: bool| (m >> 1) | ((x as u64) << 63);
    let prev = |m: u64| m << 1;
    let a = o & !prev(o) & !next(o, ox) & next(l, lx) & !prev(sp);
    let starts = 1
        | (l & !prev(l) & !prev(sp) & !prev(a))
        | a
        | (sp & !next(sp, spx))
        | (sp & !prev(sp) & next(sp, spx))
        | (o & !prev(o) & !a & !prev(sp));
    // Trusted: positions up to k - 2 (bit 63 at most).
    let trusted = starts & (u64::MAX >> (64 - (k - 1).min(64)));
    if trusted == 1 {
        // One piece longer than the trusted part: the matcher takes it (and, if the block
        // ends in a byte that is not plain, what follows up to it).
        return Err(if k == 65 { pos + 1 } else { resume });
    }
    let mut m = trusted & !1;
    let mut start = pos;
    while m != 0 {
        let s = pos + m.trailing_zeros() as usize;
        piece(start, s);
        start = s;
        m &= m - 1;
    }
    Ok((start, if k == 65 { start } else { resume }))
}

/// Masks of the letters, spaces and `O` bytes (ASCII punctuation other than `'`) of a block
/// of 64 bytes; bit `i` is byte `i`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn classes64(block: &[u8]) -> (u64, u64, u64) {
    use std::arch::x86_64::*;
    let (mut l, mut sp, mut o) = (0u64, 0u64, 0u64);
    for (i, chunk) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of x86-64; the load reads the 16 bytes of `chunk`, unaligned.
        let (lm, spm, om) = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr() as *const __m128i);
            // Letters: lowercased, 'a'..='z' move to -128..=-103 (bytes >= 0x80 land elsewhere).
            let y = _mm_add_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8(0x1F));
            let letter = _mm_cmplt_epi8(y, _mm_set1_epi8(-102));
            let space = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x20));
            // Graphic ASCII (0x21..=0x7E; bytes >= 0x80 are negative), less letters, digits, `'`.
            let graphic = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmplt_epi8(v, _mm_set1_epi8(0x7F)));
            let digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x2F)), _mm_cmplt_epi8(v, _mm_set1_epi8(0x3A)));
            let not_o = _mm_or_si128(_mm_or_si128(letter, digit), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x27)));
            let punct = _mm_andnot_si128(not_o, graphic);
            (_mm_movemask_epi8(letter), _mm_movemask_epi8(space), _mm_movemask_epi8(punct))
        };
        l |= (lm as u16 as u64) << (16 * i);
        sp |= (spm as u16 as u64) << (16 * i);
        o |= (om as u16 as u64) << (16 * i);
    }
    (l, sp, o)
}

/// `classes64` of one byte: (letter, space, `O`).
#[inline(always)]
fn class1(c: u8) -> (bool, bool, bool) {
    (c.is_ascii_alphabetic(), c == b' ', c.is_ascii_punctuation() && c != b'\'')
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn classes_agree_with_the_byte_rules() {
        let block: Vec<u8> = (0..=255u8).collect();
        for chunk in block.chunks_exact(64) {
            let (l, sp, o) = classes64(chunk);
            for (i, &c) in chunk.iter().enumerate() {
                let bit = |m: u64| m >> i & 1 == 1;
                assert_eq!((bit(l), bit(sp), bit(o)), class1(c), "byte {c:#04x}");
            }
        }
    }
}
