//! The pieces of plain ASCII text 64 bytes at a time, for the cl100k-like patterns (cl100k,
//! llama3, qwen2), o200k and r50k (GPT-2's, also p50k's): a block's piece starts are
//! computed at once from bit masks of its byte classes, with no branch per piece on what
//! kind of piece it is.
//!
//! Why: the hand-written matchers (`fast`) decide each piece's alternative with a few
//! data-dependent branches, and on prose the kind of the next piece (a word, a word after a
//! space, punctuation) is close to random, so the CPU mispredicts about one branch a piece.
//!
//! Scope: only "plain" bytes, where the patterns reduce to a few local rules: ASCII letters
//! (`L`), the space (`SP`), `\n` and `\r` (`NL`), ASCII digits and ASCII punctuation and
//! symbols (`O`, the apostrophe included). On such text only these alternatives can match:
//! the contractions, `[^\r\n\p{L}\p{N}]?\p{L}+`, `\p{N}{1,3}`, ` ?[^\s\p{L}\p{N}]+[\r\n]*`,
//! `\s*[\r\n]`, `\s+(?!\S)` and `\s`; and a piece starts exactly at (`prev` and `next` are the
//! bytes before and after):
//! - a contraction (`'` then `s`, `d`, `m`, `t`, `ll`, `ve` or `re`, in any case) where an `O`
//!   piece may start (after neither `O` nor a space), and the byte after it;
//! - `A`: an `O` byte alone between a non-`O` and a letter, not after a space: it starts the
//!   word after it (`.b` in `a.b`);
//! - a letter after a non-letter, unless after a space, an `A` or a contraction's `'`;
//! - the first byte of a run of `O`, unless it is an `A` or follows a space;
//! - the first digit of a run, and every third one after it (qwen2: every digit);
//! - in a run of whitespace (`SP` and `NL`): its first byte, except the newlines right after
//!   an `O` (they end that piece, and the run starts after them); the first space after the
//!   run's last newline (or the run's first, if it has none); and its last space, if the run
//!   ends in one (it starts the word or punctuation after it).
//!
//! A start at position `s` depends only on the bytes `s - 4 ..= s + 2`, or in a run of
//! whitespace on the whole run, so a block's starts are trusted up to three bytes before its
//! first byte that is not plain (a tab or other whitespace, a control or non-ASCII byte; also
//! the tenth digit of a run), and not past the start of a run of whitespace that reaches
//! there: the pieces up to there are emitted and the caller's matcher goes on from the last
//! start. The first byte of a block is a piece start by the caller's word (the rules above
//! read no byte before it).
//!
//! o200k differs in three rules (see `block`): a run of letters also splits where a
//! lowercase letter is followed by an uppercase one (a word is `U*L+` or `U+L*`); a
//! contraction is not a piece of its own but the optional end of the word before it (the
//! byte after it starts a piece; a second one right after it is left to the matcher); and
//! punctuation's piece takes `[\r\n/]*` after it.
//!
//! r50k has simpler rules (see `block`): the space before a word, a number or punctuation
//! goes with it (` ?`), contractions are lower case only, a number is any run of digits,
//! punctuation takes no newline after it, and a run of whitespace is `\s+(?!\S)|\s+`.
//!
//! Two-byte cased letters (`é`, `Ä`, `ж`, `Ω`: lower or upper case only, see
//! `two_byte_letters`) are plain too: each is two letter bytes of its case. So are, on CPUs
//! with AVX-512 VBMI, the no-break space (U+00A0: whitespace that is the space to every rule
//! but one, see `rules`; r50k: whitespace that no ` ?` takes), two-byte punctuation and
//! symbols (`«`, `»`, `¿`, `°`, `×`: two `O` bytes; see `two_byte_letters_vbmi`) and the
//! three-byte punctuation of U+2010-U+2027 and U+2190-U+21BF (curly quotes, dashes, `…`,
//! arrows: three `O` bytes; see `specials_avx512`), and the three-byte letters and
//! punctuation of Chinese, Japanese and Korean (ideographs, kana, Hangul: three letter bytes;
//! CJK and fullwidth punctuation: three `O` bytes; see `three_byte_vbmi`). For o200k these
//! letters, and the two-byte letters of neither case (Hebrew, Arabic), are in both its case
//! classes, which two more rules take (see `rules`); for the cl100k-like patterns and r50k,
//! whose letters know no case, every two-byte letter is plain and so is every two-byte mark
//! (`O` to them). A tab is
//! whitespace to every pattern's rules (as a no-break space of one byte).
//!
//! What it does not do: DeepSeek V3, or any byte that is not plain;
//! off x86-64 it is not compiled (the matchers do all the work).

use super::fast::PieceSink;
use super::unicode::{Tables, TwoByteClasses};

/// The pieces of `b` from `pos` (a piece start) found in one block (`t`: the class tables,
/// for the block's two-byte letters): `piece` receives every piece that ends at or before
/// the block's last trusted start. Returns `Ok((next, resume))` after at least one piece,
/// where `next` is the start of the first piece not emitted and the block path should not be
/// tried again before `resume` (past the first byte that is not plain); `Err(resume)` when
/// no piece could be emitted. `ONE_DIGIT`: qwen2's `\p{N}` (a piece per digit) for
/// `\p{N}{1,3}`. `O200K`, `R50K`: those patterns' rules. `AVX512`: the byte classes on
/// AVX-512BW, for callers compiled for it that checked that the CPU has it
/// (`fast::pieces_blocks_avx512`); SSE2 otherwise. `VBMI`: the block's two-byte letters on
/// AVX-512 VBMI likewise (`fast::pieces_blocks_vbmi`); a loop over them otherwise.
#[inline(always)]
pub(super) fn block<
    const ONE_DIGIT: bool,
    const O200K: bool,
    const R50K: bool,
    const AVX512: bool,
    const VBMI: bool,
>(
    t: &Tables,
    b: &[u8],
    pos: usize,
    sink: &mut impl PieceSink,
) -> Result<(usize, usize), usize> {
    // 64 bytes and the two after them.
    if b.len() < pos + 66 {
        return Err(b.len());
    }
    let mut c = if AVX512 {
        // SAFETY: only callers that checked that the CPU has AVX-512BW set `AVX512`.
        unsafe { classes64_avx512(&b[pos..pos + 64]) }
    } else {
        classes64_sse2(&b[pos..pos + 64])
    };
    if c.hi != 0 {
        if VBMI {
            // SAFETY: only callers that checked that the CPU has AVX-512 VBMI set `VBMI`.
            let gl =
                unsafe { two_byte_letters_vbmi(t, &b[pos..pos + 65], &mut c.l, &mut c.up, &mut c.both, true, O200K) };
            // SAFETY: as above (VBMI implies AVX-512BW here).
            let (nbl, mut tl) = unsafe { specials_avx512(&b[pos..pos + 66]) };
            // SAFETY: as above.
            let (l3, o3) = unsafe { three_byte_vbmi(t, &b[pos..pos + 66], O200K) };
            let l3 = l3 | l3 << 1 | l3 << 2;
            c.l |= l3;
            if O200K {
                c.both |= l3;
            }
            tl |= o3;
            if nbl | gl | tl | c.tab | c.both != 0 {
                return rules::<ONE_DIGIT, O200K, R50K, VBMI, true>(b, pos, sink, c, nbl, gl, tl);
            }
        } else {
            two_byte_letters(t, &b[pos..pos + 65], c.hi, &mut c.l, &mut c.up);
        }
    }
    if c.tab != 0 {
        return rules::<ONE_DIGIT, O200K, R50K, VBMI, true>(b, pos, sink, c, 0, 0, 0);
    }
    rules::<ONE_DIGIT, O200K, R50K, VBMI, false>(b, pos, sink, c, 0, 0, 0)
}

/// The rest of `block`, from the block's classes `c`: its piece starts and how far they are
/// trusted. `nbl`, `gl`, `tl`: the lead bytes of its no-break spaces, two-byte punctuation
/// (`two_byte_letters_vbmi`) and three-byte punctuation (`specials_avx512`), which `SPECIAL`
/// says it has, or tabs (`c.tab`) (a version without them for the blocks that have none,
/// which are most: their masks fold away).
#[inline(always)]
fn rules<const ONE_DIGIT: bool, const O200K: bool, const R50K: bool, const VBMI: bool, const SPECIAL: bool>(
    b: &[u8],
    pos: usize,
    sink: &mut impl PieceSink,
    c: Classes,
    nbl: u64,
    gl: u64,
    tl: u64,
) -> Result<(usize, usize), usize> {
    let (nbl, gl, tl, tb, both) = if SPECIAL { (nbl, gl, tl, c.tab, c.both) } else { (0, 0, 0, 0, 0) };
    let Classes { l, sp, o, d, ap, nl, up, slash, tab: _, both: _, hi: _ } = c;
    // A no-break space's two bytes; two-byte punctuation (a guillemet, `¿`, `°`, `×`) is two
    // bytes of `O`, and three-byte punctuation three.
    let (nb, o) = (nbl | nbl << 1, o | gl | gl << 1 | tl | tl << 1 | tl << 2);
    // Contractions: an apostrophe before `[sdmt]` (c1) or `ll|ve|re` (c2), in any case (r50k:
    // lower case only). Rare enough (a few per block of code, fewer in prose) to look at byte
    // by byte.
    let (mut c1, mut c2, mut m) = (0u64, 0u64, ap);
    let fold = if R50K { 0 } else { 0x20 };
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        // Lowercased; `| 0x20` maps no other byte onto these letters.
        let (n1, n2) = (b[pos + i + 1] | fold, b[pos + i + 2] | fold);
        if matches!(n1, b's' | b'd' | b'm' | b't') {
            c1 |= 1 << i;
        } else if matches!((n1, n2), (b'l', b'l') | (b'v', b'e') | (b'r', b'e')) {
            c2 |= 1 << i;
        }
    }
    let next = |m: u64, x: bool| (m >> 1) | ((x as u64) << 63);
    let prev = |m: u64| m << 1;
    let (lx, spx, ox) = class1(b[pos + 64]);
    // Digits: a piece at the start of a run, then every third digit (or every digit); the
    // fourth piece of a run (ten digits or more) is left to the matcher.
    let ds = d & !prev(d);
    let (mut digit_starts, mut group) = (ds, ds);
    for _ in 0..3 {
        group = (group & next(d, false) & next(next(d, false), false) & next(next(next(d, false), false), false)) << 3;
        digit_starts |= group;
    }
    let (digit_starts, long_digits) = if R50K {
        // ` ?\p{N}+`: a run of any length, with the space before it.
        (ds & !prev(sp), 0)
    } else if ONE_DIGIT {
        (d, 0)
    } else {
        (digit_starts & !group, group)
    };
    // o200k: a contraction right after another one's letters (`'t's`) is not that word's
    // (a word has one), but the end of a word starting at its `'`: left to the matcher.
    let chained = if O200K {
        let cand = (c1 | c2) & prev(l);
        cand & prev(prev(cand) | prev(prev(cand & c2)))
    } else {
        0
    };
    // First byte that is not plain (or starts a run's fourth group of digits, or an o200k
    // chained contraction), counting the two bytes after the block (64 and 65), 66 if none.
    let k = (!(l | sp | o | d | nl | nb | tb) | long_digits | chained).trailing_zeros() as usize;
    let k = match k {
        64 if !plain(b[pos + 64]) => 64,
        64 if !plain(b[pos + 65]) => 65,
        64 => 66,
        k => k,
    };
    // Past the first byte that is not plain; past 32 more when it is not ASCII, a tenth digit
    // or an o200k chained contraction, where more of its kind tend to follow (a failed try
    // costs about as much as a piece's branches; `"'s" * n` in o200k, a chained contraction
    // every four bytes, tried the block at every piece).
    let far = k < 64 && (b[pos + k] >= 0x80 || (long_digits | chained) >> k & 1 == 1);
    let resume = pos + k + 1 + if far { 31 } else { 0 };
    if k < 4 {
        return Err(resume);
    }
    // Whitespace: runs of spaces, tabs and newlines (`w`). Per pattern: where runs of
    // whitespace start pieces (`runs`), the contractions that count (`ct`), and where words and
    // runs of `O` start. A tab is a no-break space of one byte to every rule: whitespace that
    // is not the space of ` ?` (r50k: a piece of its own when it ends a run).
    let w = sp | nl | nb | tb;
    let (ct, words, puncts, runs) = if R50K {
        // r50k: ` ?\p{L}+`, ` ?\p{N}+` and ` ?[^\s\p{L}\p{N}]+` take one space before them,
        // punctuation takes no newline after it, and whitespace is `\s+(?!\S)|\s+`: a run
        // starts a piece, and so does its last character (a space goes with what follows it;
        // a newline or a no-break space is a piece of its own, which no ` ?` takes); a run of
        // one character is one piece.
        let ct = (c1 | c2) & !prev(o) & !prev(sp);
        // (A run that reaches the block's end is not trusted past its start: nothing after
        // the block is read.)
        let runs = (w & !prev(w)) | (w & !nb & !next(w, false)) | (nbl & !(w >> 2));
        (ct, l & !prev(l) & !prev(sp) & !prev(ct), o & !prev(o) & !prev(sp), runs)
    } else {
        // The newlines right after punctuation belong to its piece (`[\r\n]*`; o200k:
        // `[\r\n/]*`); a run starts a piece after them or after anything else; in it, a piece
        // ends at its last newline (`\s*[\r\n]`), and of the spaces after that, the first and
        // the last start pieces (`\s+(?!\S)`, then the one that goes with what follows).
        //
        // A no-break space is whitespace of two bytes that the rules treat as the space, but
        // for one: it is not the optional space of ` ?[^\s\p{L}\p{N}]+` (only as the single
        // non-letter before a word); its first byte stands for it. Two-byte punctuation is two
        // bytes of `O`, three-byte punctuation three. Rules that look at the character after
        // one of them read two or three bytes on (`next2`, `next3`; the bits above are lead
        // bytes whose character ends past the block, never trusted).
        //
        // Why the `A` rule's look three bytes on keeps a start's bytes within `s - 4 ..= s + 2`:
        // it decides only whether the letter after the punctuation starts a piece (at `s + 3`,
        // which reads back to `s`); the punctuation's own start is the same either way.
        let absorbed = if O200K { fill(nl | slash, nl & prev(o)) } else { fill(nl, nl & prev(o)) };
        let run_start = w & !absorbed & (!prev(w) | prev(absorbed));
        let nl_ahead = fill(w.reverse_bits(), nl.reverse_bits()).reverse_bits();
        let tail_start = (sp | nbl | tb) & (prev(nl) | run_start) & !nl_ahead;
        let wx = spx || matches!(b[pos + 64], b'\n' | b'\r');
        let next2 = |m: u64, x: bool| (m >> 2) | ((x as u64) << 62);
        let next3 = |m: u64, x: bool| (m >> 3) | ((x as u64) << 61);
        let last_space = ((sp | tb) & !next(w, wx)) | (nbl & !next2(w, wx));
        // What the space before a word is to its rule: the space, a no-break space or a tab.
        let spn = sp | nb | tb;
        // An `A` starts the word after it.
        let (ct, words, puncts) = if O200K {
            // o200k: a word is `U*L+` or `U+L*` (ASCII: upper then lower case letters), so a
            // run of letters splits where a lowercase letter is followed by an uppercase one;
            // a contraction is the optional end of the word it follows, and the byte after it
            // starts a piece; `/` after punctuation's newlines belongs to its piece.
            let ct = (c1 | c2) & prev(l);
            let in_ct = prev(ct) | prev(prev(ct & c2));
            let o_eff = o & !absorbed & !ct;
            let a = (o_eff & !prev(o_eff) & next(l, lx) & !prev(sp))
                | (gl & !prev(o_eff) & next2(l, lx) & !prev(sp))
                | (tl & !prev(o_eff) & next3(l, lx) & !prev(sp));
            // `a` on the last byte of two- or three-byte punctuation, for the letter after it.
            let a2 = a | (a & gl) << 1 | (a & tl) << 2;
            // Letters in both case classes (CJK, kana: `both`) take the case of the piece
            // they are in: an upper case letter starts a piece if the last letter before it
            // that is not such a letter is a lower case one; and a run of upper case letters
            // that ends a run of letters starts one after such a letter (`中AB ` is `中`, `AB`:
            // `[\p{Lu}..\p{Lo}]*` backs off to leave `[\p{Ll}..\p{Lo}]+` its last `Lo`).
            // Without them, the first rule is ASCII's: a capital after a lower case letter. A
            // contraction's letters end their piece, so none is looked through.
            let lower = l & !up & !both;
            let after_lower = lower | fill(both, both & prev(lower & !in_ct));
            let ends = up & !next(l, lx);
            let ending = fill(up.reverse_bits(), ends.reverse_bits()).reverse_bits();
            let words = (l & !prev(l) & !prev(spn) & !prev(a2) & !in_ct)
                | (up & prev(after_lower) & !in_ct)
                | (up & prev(both) & ending & !in_ct);
            (ct, words, a | (o_eff & !prev(o_eff) & !a & !prev(sp)))
        } else {
            // A contraction where an `O` piece may start (not inside a run of `O`, not after a
            // space).
            let ct = (c1 | c2) & !prev(o) & !prev(sp);
            let a = (o & !prev(o) & !next(o, ox) & next(l, lx) & !prev(sp))
                | (gl & !prev(o) & !next2(o, ox) & next2(l, lx) & !prev(sp))
                | (tl & !prev(o) & !next3(o, ox) & next3(l, lx) & !prev(sp));
            let a2 = a | (a & gl) << 1 | (a & tl) << 2;
            (ct, l & !prev(l) & !prev(spn) & !prev(a2) & !prev(ct), a | (o & !prev(o) & !a & !prev(sp)))
        };
        (ct, words, puncts, run_start | tail_start | last_space)
    };
    let starts = 1 | words | puncts | runs | ((c1 & ct) << 2) | ((c2 & ct) << 3) | digit_starts;
    // A start at s depends on the bytes s - 4 ..= s + 2, and one in a run of whitespace on the
    // whole run: trusted up to k - 3 (bit 63 at most), and not past the start of a run of
    // whitespace that reaches the block's last trusted byte.
    let edge = k.min(64);
    let mut trust = (k - 2).min(64);
    if w >> (edge - 1) & 1 == 1 {
        let before = !w & (u64::MAX >> (65 - edge));
        // Bits up to the run's start (the bit after the last one outside it).
        trust = trust.min(65 - before.leading_zeros() as usize);
    }
    if O200K && both != 0 && up >> (edge - 1) & 1 == 1 {
        // o200k: whether a run of upper case letters after a letter of both cases starts a
        // piece depends on where the run ends: not past its start (which is not trusted).
        let before = !up & (u64::MAX >> (65 - edge));
        trust = trust.min(64 - before.leading_zeros() as usize).max(1);
    }
    let trusted = starts & (u64::MAX >> (64 - trust));
    if trusted == 1 {
        // One piece longer than the trusted part: the matcher takes it (and, if the block
        // ends in a byte that is not plain, what follows up to it).
        return Err(if k == 66 { pos + 1 } else { resume });
    }
    let start = sink.pieces_ending::<VBMI>(pos, trusted & !1);
    Ok((start, if k == 66 { start } else { resume }))
}

/// The positions of `m` that a position of `seeds` (all in `m`) reaches through `m` upwards:
/// the rest of each run of `m` from its first seed on. Why an addition: its carry runs up
/// through a run of ones from the seed and stops where the run does.
#[inline(always)]
fn fill(m: u64, seeds: u64) -> u64 {
    ((m.wrapping_add(seeds) ^ m) & m) | seeds
}

/// Adds to a block's letters `l` (and upper case letters `up`) its two-byte characters that
/// are cased letters (`Tables::two_byte`), from its first byte that is not ASCII (`hi`: those
/// bytes) up to the first one that does not start such a character. `b` is the block and the
/// byte after it.
///
/// Why: in French, German or Spanish prose nearly every block has an accented letter, and
/// before this each one sent the block's next 32 bytes or so to the matchers, a piece at a
/// time (French pre-tokenized at a third of English's speed).
///
/// Why exact: the patterns treat a letter by its class alone. A lower case letter (`Ll`: in
/// `L` and o200k's lower class, not its upper one) is to every rule what an ASCII lower case
/// letter is, and an upper case one (`Lu`, `Lt`: `L` and the upper class only) what an ASCII
/// capital is; so its two bytes are two letters of the same case to the block's rules, and
/// no rule starts a piece between two letters of the same case. Any other character (a
/// letter in both case classes or in neither, a mark, a space, punctuation, three or four
/// bytes, and U+017F, which a contraction's `s` matches) stays not plain, and the block is
/// trusted only up to three bytes before it, as before.
#[inline(always)]
fn two_byte_letters(t: &Tables, b: &[u8], hi: u64, l: &mut u64, up: &mut u64) {
    let mut m = hi;
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        // The text is UTF-8 and the block starts a character, so `b[i]` starts one.
        let (c0, c1) = (b[i], b[i + 1]);
        if !(0xC2..=0xDF).contains(&c0) {
            return;
        }
        let bits = 3u64 << i;
        let (byte, bit) = TwoByteClasses::at(c0, c1);
        if t.two_byte.lower[byte] >> bit & 1 == 1 {
            *l |= bits;
        } else if t.two_byte.upper[byte] >> bit & 1 == 1 {
            *l |= bits;
            *up |= bits;
        } else {
            return;
        }
        m &= !bits;
    }
}

/// `two_byte_letters` for the whole block at once, with no loop and no branch: each byte's
/// bit of `Tables::two_byte` by byte permutations (AVX-512 VBMI) over its value and the next
/// byte's. It marks the cased letters after a character that is not plain too, which changes
/// nothing: the block is trusted only up to three bytes before that one. With `punct`,
/// returns the lead bytes of the block's two-byte punctuation, symbols and controls
/// (`Tables::two_byte`'s `punct`: `O` to every pattern), else 0.
///
/// Without `cased` (the cl100k-like patterns and r50k, whose letters know no case), it marks
/// every two-byte letter, the Hebrew and Arabic ones too (`letter`: to these patterns a
/// letter is a letter whatever its case, as a three-byte one is, see `three_byte_vbmi`), with
/// no upper case ones, and `punct` returns the marks too (`other`: to these patterns a mark is
/// `O`); two lookups instead of three. Why: Hebrew- or Arabic-like text (English prose with
/// its letters made Hebrew or Arabic) pre-tokenized at 204-268 MB/s, French at 1,000-1,100.
///
/// Why: in Cyrillic or Greek text a block holds 20-30 two-byte letters, and the loop took
/// one round for each: on 1.8 MB of Russian-like text (English prose with its letters made
/// Cyrillic) pre-tokenizing went 517-566 -> 862-930 MB/s and a warm encode 192 -> 219-227
/// (cl100k, old and new binaries in turn, three rounds); French 1.03-1.05x, English the same.
///
/// # Safety
/// The CPU must have AVX-512BW and AVX-512 VBMI.
#[target_feature(enable = "avx512bw,avx512vbmi")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn two_byte_letters_vbmi(
    t: &Tables,
    b: &[u8],
    l: &mut u64,
    up: &mut u64,
    both: &mut u64,
    punct: bool,
    cased: bool,
) -> u64 {
    use std::arch::x86_64::*;
    assert!(b.len() >= 65, "a block and the byte after it");
    let k = |x: u8| _mm512_set1_epi8(x as i8);
    // SAFETY: the loads read bytes 0..64 and 1..65 of `b` (asserted), and the tables' 256
    // bytes each, 64-byte aligned (`TwoByteClasses` is).
    let tab = |p: &[u8; 256]| [0, 1, 2, 3].map(|i| unsafe { _mm512_load_si512(p.as_ptr().add(64 * i) as *const _) });
    let (v, next) =
        unsafe { (_mm512_loadu_si512(b.as_ptr() as *const _), _mm512_loadu_si512(b.as_ptr().add(1) as *const _)) };
    // Lead bytes of two-byte characters, 0xC2..=0xDF.
    let lead = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(v, k(0xC2)), k(30));
    // `TwoByteClasses::at`: the byte (the 16-bit shifts move no set bit across bytes: the
    // masks keep five and three bits) and the bit.
    let idx = _mm512_or_si512(
        _mm512_slli_epi16::<3>(_mm512_and_si512(v, k(0x1F))),
        _mm512_and_si512(_mm512_srli_epi16::<3>(next), k(7)),
    );
    let bit = bit_of(next);
    // 256 bytes: two permutations of 128 each, chosen by the index's top bit.
    let upper_half = _mm512_movepi8_mask(idx);
    let look = |t: [__m512i; 4]| {
        _mm512_mask_blend_epi8(
            upper_half,
            _mm512_permutex2var_epi8(t[0], idx, t[1]),
            _mm512_permutex2var_epi8(t[2], idx, t[3]),
        )
    };
    let is = |table: &[u8; 256]| lead & _mm512_test_epi8_mask(look(tab(table)), bit);
    if !cased {
        let any = is(&t.two_byte.letter);
        *l |= any | any << 1;
        return if punct { is(&t.two_byte.other) } else { 0 };
    }
    let (low, cap) = (is(&t.two_byte.lower), is(&t.two_byte.upper));
    *l |= low | cap | (low | cap) << 1;
    *up |= cap | cap << 1;
    let punct = if punct { is(&t.two_byte.punct) } else { 0 };
    // U+0080-U+00BF: the no-break space (French has 3,000 a MB), and no letter of both cases
    // but `ª` and `º`, which are left not plain.
    let latin1 = _mm512_cmpeq_epi8_mask(v, k(0xC2));
    if lead & !(low | cap | punct | latin1) != 0 {
        // Letters of both cases (Hebrew, Arabic): looked up only when a two-byte character is
        // neither a cased letter nor punctuation (never in French, German or Russian prose).
        let two = is(&t.two_byte.both) & !latin1;
        *l |= two | two << 1;
        *both |= two | two << 1;
    }
    punct
}

/// The lead bytes of a block's no-break spaces (U+00A0) and three-byte punctuation
/// (U+2010-U+2027: dashes, curly quotes, `…`, `•`; the arrows U+2190-U+21BF): bit `i` when the
/// character at byte `i` of `b` (the block and the two bytes after it) is one of them, as two
/// masks. (Two-byte punctuation, the guillemets `«` `»` included: `two_byte_letters_vbmi`.)
///
/// Why: French prose has about 3,000 no-break spaces and 700 guillemets a megabyte (before
/// `:`, `;`, `?`, `!`, inside `« »`, in numbers), and English prose about 1,000 of these
/// (curly quotes, dashes, no-break spaces) a megabyte, more on the web; each ended the block
/// path, and the 32 bytes after it went through the scalar matcher, a piece at a time. All
/// of these are one class to every pattern (whitespace, or neither letter, digit nor
/// whitespace), which the blocks' rules can take as they take ASCII.
///
/// # Safety
/// The CPU must have AVX-512BW.
#[target_feature(enable = "avx512bw")]
#[inline]
unsafe fn specials_avx512(b: &[u8]) -> (u64, u64) {
    use std::arch::x86_64::*;
    assert!(b.len() >= 66, "a block and the two bytes after it");
    // SAFETY: the loads read bytes 0..64, 1..65 and 2..66 of `b` (asserted).
    let [v, n1, n2] = [0, 1, 2].map(|i| unsafe { _mm512_loadu_si512(b.as_ptr().add(i) as *const _) });
    let is = |v: __m512i, x: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(x as i8));
    let e2 = is(v, 0xE2);
    let three = (e2 & is(n1, 0x80) & within(n2, 0x90, 0x18)) | (e2 & is(n1, 0x86) & within(n2, 0x90, 0x30));
    (is(v, 0xC2) & is(n1, 0xA0), three)
}

/// The lead bytes of a block's three-byte letters and three-byte punctuation from U+3000 on
/// (CJK ideographs, kana, Hangul; CJK and fullwidth punctuation), as two masks: bit `i` when
/// the character at byte `i` of `b` (the block and the two bytes after it) is one. Reads
/// `Tables::three_byte_blocks`: a page of 64 code points all letters, or a character of one
/// of its `DETAIL_PAGES`; any other three-byte character stays not plain. With `o200k`, the
/// letters are those in both its case classes (`Lo`, `Lm`), and marks and the letters of
/// one case stay not plain (`rules` says how the letters of both cases split a word).
///
/// Why: Chinese and Japanese text is a run of three-byte letters between punctuation, every
/// few characters; each character ended the block path, and the 32 bytes after it went
/// through the scalar matcher (Chinese and Japanese handbooks pre-tokenized at 650-860 MB/s,
/// against 1,390-1,580 with their letters and punctuation made ASCII). To these patterns a
/// letter is a letter whatever its script, so its three bytes are three letter bytes to the
/// rules, as a two-byte letter's two; and punctuation is three `O` bytes, as the curly quotes'.
///
/// # Safety
/// The CPU must have AVX-512BW and AVX-512 VBMI.
#[target_feature(enable = "avx512bw,avx512vbmi")]
#[inline]
unsafe fn three_byte_vbmi(t: &Tables, b: &[u8], o200k: bool) -> (u64, u64) {
    use std::arch::x86_64::*;
    assert!(b.len() >= 66, "a block and the two bytes after it");
    let k = |x: u8| _mm512_set1_epi8(x as i8);
    // SAFETY: the loads read bytes 0..64, 1..65 and 2..66 of `b` (asserted).
    let [v, n1, n2] = [0, 1, 2].map(|i| unsafe { _mm512_loadu_si512(b.as_ptr().add(i) as *const _) });
    // Lead bytes of U+3000..=U+FFFF.
    let lead = within(v, 0xE3, 13);
    if lead == 0 {
        return (0, 0);
    }
    let t3 = &*t.three_byte_blocks;
    // SAFETY: the tables are 64-byte aligned (`ThreeByteClasses` is) and 128, 64 and 64 bytes.
    let tab = |p: &[u8], i: usize| unsafe { _mm512_load_si512(p.as_ptr().add(64 * i) as *const _) };
    // The page's byte, `(lead & 0x0F) << 3 | (next & 0x3F) >> 3` (the 16-bit shifts move no
    // set bit across bytes: the masks keep four and three bits), then its bit, `next & 7`.
    let page = _mm512_or_si512(
        _mm512_slli_epi16::<3>(_mm512_and_si512(v, k(0x0F))),
        _mm512_and_si512(_mm512_srli_epi16::<3>(n1), k(7)),
    );
    let (pages, details, others) = if o200k {
        (&t3.both_pages, &t3.detail_both, &t3.detail_punct)
    } else {
        (&t3.letter_pages, &t3.detail_letter, &t3.detail_other)
    };
    let pages = _mm512_permutex2var_epi8(tab(pages, 0), page, tab(pages, 1));
    let whole = _mm512_test_epi8_mask(pages, bit_of(n1));
    // `DETAIL_PAGES`: E3 80..=83 are the first four, EF BC..=BD the two after them.
    let ef = _mm512_cmpeq_epi8_mask(v, k(0xEF));
    let detail = (_mm512_cmpeq_epi8_mask(v, k(0xE3)) & within(n1, 0x80, 4)) | (ef & within(n1, 0xBC, 2));
    let at = _mm512_or_si512(
        _mm512_slli_epi16::<3>(_mm512_and_si512(n1, k(3))),
        _mm512_and_si512(_mm512_srli_epi16::<3>(n2), k(7)),
    );
    let at = _mm512_mask_add_epi8(at, ef, at, k(0x20));
    let look = |p: &[u8]| _mm512_test_epi8_mask(_mm512_permutexvar_epi8(at, tab(p, 0)), bit_of(n2));
    let letters = lead & (whole | (detail & look(details)));
    (letters, lead & detail & look(others))
}

/// The bytes of `v` in `lo..lo + n` (`n` > 0), as a mask.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
#[inline]
fn within(v: std::arch::x86_64::__m512i, lo: u8, n: u8) -> u64 {
    use std::arch::x86_64::*;
    _mm512_cmplt_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8(lo as i8)), _mm512_set1_epi8(n as i8))
}

/// Each byte of `x` made the bit `x & 7` of a byte, for `_mm512_test_epi8_mask` against a
/// table's byte.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
#[inline]
fn bit_of(x: std::arch::x86_64::__m512i) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    _mm512_shuffle_epi8(
        _mm512_broadcast_i32x4(_mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128)),
        _mm512_and_si512(x, _mm512_set1_epi8(7)),
    )
}

/// How many bytes from the start of `b` (64 and the byte after them) are letters of one
/// class, whole characters only: ASCII `a-z` and the two-byte `lower` letters (o200k's `W`
/// class, `upper_too` false), or also `A-Z` and the two-byte `upper` letters (`L`,
/// `upper_too` true). Stops at the first other character (which may still be in the class:
/// a modifier letter, a mark, three bytes; the caller judges it), and before a two-byte
/// letter that the block would cut.
///
/// Why: a long run of letters (one piece of a megabyte of random letters) went a character
/// at a time through `fast::run`, a loop whose every step waits on the load of the next
/// character's first byte.
///
/// # Safety
/// The CPU must have AVX-512BW and AVX-512 VBMI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vbmi")]
pub(crate) unsafe fn letter_run_vbmi(t: &Tables, b: &[u8], upper_too: bool) -> usize {
    use std::arch::x86_64::*;
    let (mut two, mut up, mut both) = (0u64, 0u64, 0u64);
    // SAFETY: the caller's CPU has the features; `two_byte_letters_vbmi` asserts the length.
    // (Letters of both cases are in `L` and in `W` alike.)
    unsafe { two_byte_letters_vbmi(t, b, &mut two, &mut up, &mut both, false, true) };
    // SAFETY: bytes 0..64 of `b` (asserted above, in `two_byte_letters_vbmi`).
    let v = unsafe { _mm512_loadu_si512(b.as_ptr() as *const _) };
    let lower = within(v, b'a', 26);
    let ok = if upper_too { two | lower | within(v, b'A', 26) } else { (two & !up) | lower };
    let end = (!ok).trailing_zeros() as usize;
    // All 64 taken: the last byte may lead a two-byte letter that ends past the block.
    if end == 64 && (0xC2..=0xDF).contains(&b[63]) {
        63
    } else {
        end
    }
}

/// Bit masks of a block's byte classes; bit `i` is byte `i`.
struct Classes {
    /// ASCII letters.
    l: u64,
    /// Spaces (0x20).
    sp: u64,
    /// `O`: ASCII punctuation and symbols (graphic, not alphanumeric), the apostrophe included.
    o: u64,
    /// ASCII digits.
    d: u64,
    /// Apostrophes.
    ap: u64,
    /// `\n` and `\r`.
    nl: u64,
    /// ASCII uppercase letters.
    up: u64,
    /// `/`.
    slash: u64,
    /// Tabs (0x09).
    tab: u64,
    /// o200k: the bytes of letters in both its case classes (`three_byte_vbmi`; not from the
    /// classifiers, which see ASCII only).
    both: u64,
    /// Bytes that are not ASCII (0x80 and above).
    hi: u64,
}

/// The `Classes` of a block of 64 bytes on AVX-512BW: one load, the masks straight from the
/// comparisons.
///
/// Why: a 64-byte block is one AVX-512 register, and its comparisons give the masks
/// directly, about a fifth of SSE2's instructions (four 16-byte loads, 32 mask extractions and
/// their shifts). Measured in one process against the SSE2 version (`ALT`, 30 rounds),
/// called per block: pre-tokenizing prose alone 595 -> 686 MB/s, encoding it 1.02x (warm and
/// first pass), o200k code 1.13x. It is inlined only into code compiled for AVX-512BW: the
/// whole piece loop is (`fast::pieces_blocks_avx512`), chosen once per call.
///
/// # Safety
/// The CPU must have AVX-512BW.
#[target_feature(enable = "avx512bw")]
#[inline]
unsafe fn classes64_avx512(block: &[u8]) -> Classes {
    use std::arch::x86_64::*;
    assert!(block.len() >= 64, "a block is 64 bytes");
    // SAFETY: the load reads the 64 bytes of `block` (asserted), unaligned.
    let v = unsafe { _mm512_loadu_si512(block.as_ptr() as *const _) };
    let k = |x: i8| _mm512_set1_epi8(x);
    // The same byte rules as `classes64_sse2`, one comparison per rule.
    let l = _mm512_cmplt_epi8_mask(_mm512_add_epi8(_mm512_or_si512(v, k(0x20)), k(0x1F)), k(-102));
    let d = _mm512_cmpgt_epi8_mask(v, k(0x2F)) & _mm512_cmplt_epi8_mask(v, k(0x3A));
    let graphic = _mm512_cmpgt_epi8_mask(v, k(0x20)) & _mm512_cmplt_epi8_mask(v, k(0x7F));
    Classes {
        l,
        sp: _mm512_cmpeq_epi8_mask(v, k(0x20)),
        o: graphic & !(l | d),
        d,
        ap: _mm512_cmpeq_epi8_mask(v, k(0x27)),
        nl: _mm512_cmpeq_epi8_mask(v, k(0x0A)) | _mm512_cmpeq_epi8_mask(v, k(0x0D)),
        up: _mm512_cmplt_epi8_mask(_mm512_add_epi8(v, k(0x3F)), k(-102)),
        slash: _mm512_cmpeq_epi8_mask(v, k(0x2F)),
        tab: _mm512_cmpeq_epi8_mask(v, k(0x09)),
        both: 0,
        hi: _mm512_movepi8_mask(v),
    }
}

/// The `Classes` of a block of 64 bytes on SSE2 (every x86-64 CPU).
#[inline(always)]
fn classes64_sse2(block: &[u8]) -> Classes {
    use std::arch::x86_64::*;
    let mut c = Classes { l: 0, sp: 0, o: 0, d: 0, ap: 0, nl: 0, up: 0, slash: 0, tab: 0, both: 0, hi: 0 };
    for (i, chunk) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of x86-64; the load reads the 16 bytes of `chunk`, unaligned.
        let masks = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr() as *const __m128i);
            // Letters: lowercased, 'a'..='z' move to -128..=-103 (bytes >= 0x80 land elsewhere).
            let y = _mm_add_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8(0x1F));
            let letter = _mm_cmplt_epi8(y, _mm_set1_epi8(-102));
            let space = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x20));
            // Graphic ASCII (0x21..=0x7E; bytes >= 0x80 are negative), less letters and digits.
            let graphic = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmplt_epi8(v, _mm_set1_epi8(0x7F)));
            let digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x2F)), _mm_cmplt_epi8(v, _mm_set1_epi8(0x3A)));
            let punct = _mm_andnot_si128(_mm_or_si128(letter, digit), graphic);
            let apostrophe = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x27));
            let newline = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x0A)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x0D)));
            // Uppercase: 'A'..='Z' move to -128..=-103.
            let upper = _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8(0x3F)), _mm_set1_epi8(-102));
            let slash = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x2F));
            let tab = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x09));
            [letter, space, punct, digit, apostrophe, newline, upper, slash, tab, v]
                .map(|m| _mm_movemask_epi8(m) as u16 as u64)
        };
        let at = 16 * i;
        c.l |= masks[0] << at;
        c.sp |= masks[1] << at;
        c.o |= masks[2] << at;
        c.d |= masks[3] << at;
        c.ap |= masks[4] << at;
        c.nl |= masks[5] << at;
        c.up |= masks[6] << at;
        c.slash |= masks[7] << at;
        c.tab |= masks[8] << at;
        c.hi |= masks[9] << at;
    }
    c
}

/// Whether byte `c` is plain: in one of the block's classes (letters, the space, `O`, digits,
/// `\n` and `\r`), which together are the graphic ASCII bytes, the space and the two newlines.
/// (A closure with the same test was called, not inlined: a call or two per block.)
#[inline(always)]
fn plain(c: u8) -> bool {
    matches!(c, b'\n' | b'\r' | b' '..=b'~')
}

/// (letter, space, `O`) of one byte, as `classes64_sse2` classes it.
#[inline(always)]
fn class1(c: u8) -> (bool, bool, bool) {
    (c.is_ascii_alphabetic(), c == b' ', c.is_ascii_punctuation())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version of the block classifier, by name.
    type Version = (&'static str, fn(&[u8]) -> Classes);

    /// Every version of the block classifier this CPU runs.
    fn versions() -> Vec<Version> {
        let mut v: Vec<Version> = vec![("sse2", classes64_sse2)];
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU has AVX-512BW (checked above).
            v.push(("avx512bw", |b| unsafe { classes64_avx512(b) }));
        }
        v
    }

    #[test]
    fn every_version_of_classes_gives_the_same_masks() {
        // Blocks of every byte value in every position, and random ones.
        let mut blocks: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b; 64]).collect();
        let mut next = crate::testing::xorshift(0x9E37_79B9_7F4A_7C15);
        for _ in 0..2000 {
            blocks.push((0..64).map(|_| next() as u8).collect());
        }
        let masks = |c: Classes| [c.l, c.sp, c.o, c.d, c.ap, c.nl, c.up, c.slash, c.tab, c.hi];
        for block in &blocks {
            let want = masks(classes64_sse2(block));
            for (name, f) in versions() {
                assert_eq!(masks(f(block)), want, "{name} on {block:?}");
            }
        }
    }

    #[test]
    fn two_byte_letters_on_vbmi_mark_what_the_loop_marks() {
        if !(std::arch::is_x86_feature_detected!("avx512bw") && std::arch::is_x86_feature_detected!("avx512vbmi")) {
            return;
        }
        let t = super::super::unicode::tables();
        let marks = |b: &[u8]| {
            let hi = (0..64).filter(|&i| b[i] >= 0x80).fold(0u64, |m, i| m | 1 << i);
            let (mut l, mut up, mut l2, mut up2) = (0, 0, 0, 0);
            two_byte_letters(t, b, hi, &mut l, &mut up);
            let mut both = 0;
            // SAFETY: the CPU has the features (checked above).
            unsafe { two_byte_letters_vbmi(t, b, &mut l2, &mut up2, &mut both, false, true) };
            // The loop leaves out the letters of both cases, which the masks mark in `both`.
            assert_eq!(l2 & both, both);
            ((l, up), (l2 & !both, up2))
        };
        // Every two-byte character at every offset of an ASCII block, the last one included
        // (its second byte is the byte after the block).
        for c in (0x80..0x800).filter_map(char::from_u32) {
            for at in 0..64 {
                let mut b = vec![b'x'; 66];
                c.encode_utf8(&mut b[at..at + 2]);
                let (want, got) = marks(&b);
                assert_eq!(got, want, "{c:?} at {at}");
            }
        }
        // Blocks of random cased two-byte letters (the loop marks all of them too).
        let letters: Vec<char> = (0x80..0x800u32)
            .filter_map(char::from_u32)
            .filter(|&c| {
                let mut b = [b'x'; 66];
                c.encode_utf8(&mut b[..2]);
                marks(&b).0 .0 == 3
            })
            .collect();
        assert!(letters.len() > 600, "{} two-byte cased letters", letters.len());
        let mut next = crate::testing::xorshift(0x5DEE_CE66_D1CE_4E5B);
        for _ in 0..2000 {
            let mut s = String::new();
            while s.len() < 66 {
                s.push(if next().is_multiple_of(4) { 'q' } else { letters[(next() % letters.len() as u64) as usize] });
            }
            let (want, got) = marks(s.as_bytes());
            assert_eq!(got, want, "{s:?}");
        }
    }

    /// `two_byte_letters_vbmi` without `cased` against the class of each character, and with it
    /// its letters of both cases: every two-byte character at every offset of an ASCII block,
    /// the last one included.
    #[test]
    fn two_byte_letters_on_vbmi_without_case_are_the_characters_classes() {
        use super::super::unicode::{CL_L, CL_N, CL_S, CL_U, CL_W};
        if !(std::arch::is_x86_feature_detected!("avx512bw") && std::arch::is_x86_feature_detected!("avx512vbmi")) {
            return;
        }
        let t = super::super::unicode::tables();
        let (mut letters, mut others) = (0, 0);
        for c in (0x80..0x800).filter_map(char::from_u32) {
            let f = t.class(c as u32);
            let (letter, other) = (f & CL_L != 0 && c != '\u{17f}', f & (CL_L | CL_N | CL_S) == 0);
            letters += letter as usize;
            others += other as usize;
            for at in 0..64 {
                let mut b = vec![b'x'; 66];
                c.encode_utf8(&mut b[at..at + 2]);
                let (mut l, mut up, mut both) = (0, 0, 0);
                // SAFETY: the CPU has the features (checked above).
                let o = unsafe { two_byte_letters_vbmi(t, &b, &mut l, &mut up, &mut both, true, false) };
                assert_eq!((l, up, o, both), ((letter as u64 * 3) << at, 0, (other as u64) << at, 0), "{c:?} at {at}");
                // With case (o200k): the letters of both cases, and only they, in `both`.
                let (mut l, mut up, mut both) = (0, 0, 0);
                // SAFETY: as above.
                unsafe { two_byte_letters_vbmi(t, &b, &mut l, &mut up, &mut both, true, true) };
                // (Below U+00C0, `ª` and `º` are left out.)
                let two = f & (CL_L | CL_U | CL_W) == CL_L | CL_U | CL_W && c >= '\u{c0}';
                assert_eq!(both, (two as u64 * 3) << at, "{c:?} at {at}, with case");
                assert_eq!(l & both, both, "{c:?} at {at}, with case");
            }
        }
        assert!(letters > 1000 && others > 300, "{letters} letters, {others} others");
    }

    /// `three_byte_vbmi` against the class of each character, for the cl100k-like patterns and
    /// r50k and for o200k: every three-byte character at offsets of an ASCII block (the last
    /// ones' bytes run past the block), and blocks of random characters of the pages around
    /// those it reads.
    #[test]
    fn three_byte_classes_on_vbmi_are_the_characters_classes() {
        if std::arch::is_x86_feature_detected!("avx512bw") && std::arch::is_x86_feature_detected!("avx512vbmi") {
            three_byte_classes_are(false);
            three_byte_classes_are(true);
        }
    }

    fn three_byte_classes_are(o200k: bool) {
        use super::super::unicode::{ThreeByteClasses, CL_L, CL_M, CL_N, CL_S, CL_U, CL_W};
        let t = super::super::unicode::tables();
        let detail = |cp: u32| ThreeByteClasses::DETAIL_PAGES.iter().any(|&p| (p..p + 64).contains(&cp));
        // A letter to the pattern, and `O` to it.
        let (letter, other) = if o200k {
            (CL_L | CL_U | CL_W, CL_L | CL_N | CL_S | CL_M | CL_U | CL_W)
        } else {
            (CL_L, CL_L | CL_N | CL_S)
        };
        let is_letter = |cp: u32| t.class(cp) & letter == letter;
        // What the masks must say of the character `c`: (letter, other) at its lead byte.
        let want = |c: char| {
            let cp = c as u32;
            let page = (cp & !63..(cp | 63) + 1).all(is_letter);
            (
                cp >= 0x3000 && is_letter(cp) && (page || detail(cp)),
                cp >= 0x3000 && detail(cp) && t.class(cp) & other == 0,
            )
        };
        // SAFETY: the caller checked that the CPU has the features.
        let masks = |b: &[u8]| unsafe { three_byte_vbmi(t, b, o200k) };
        let mut checked = 0;
        for c in (0x800..0x1_0000).filter_map(char::from_u32) {
            for at in [0, 1, 31, 61, 62, 63] {
                let mut b = vec![b'x'; 66];
                c.encode_utf8(&mut b[at..at + 3]);
                let (l, o) = want(c);
                assert_eq!(masks(&b), ((l as u64) << at, (o as u64) << at), "{c:?} at {at}");
                checked += l as usize;
            }
        }
        assert!(checked > 6 * 40_000, "{checked} letters checked");
        let chars: Vec<char> = [0x3000..0x3100, 0x4DB0..0x4E40, 0x9FC0..0xA040, 0xD780..0xD7C0, 0xFF00..0xFF80]
            .into_iter()
            .flatten()
            .filter_map(char::from_u32)
            .collect();
        let mut next = crate::testing::xorshift(0x7A11_C0DE_3B17_E500);
        for _ in 0..2000 {
            let mut s = String::new();
            let (mut l, mut o) = (0u64, 0u64);
            while s.len() < 64 {
                let c = if next().is_multiple_of(5) { 'q' } else { chars[(next() % chars.len() as u64) as usize] };
                let (cl, co) = want(c);
                l |= (cl as u64) << s.len();
                o |= (co as u64) << s.len();
                s.push(c);
            }
            s.push_str("qq");
            assert_eq!(masks(s.as_bytes()), (l, o), "{s:?}");
        }
    }

    #[test]
    fn plain_bytes_are_the_classes_bytes() {
        for c in 0..=255u8 {
            let in_a_class = class1(c) != (false, false, false) || c.is_ascii_digit() || c == b'\n' || c == b'\r';
            assert_eq!(plain(c), in_a_class, "byte {c:#04x}");
        }
    }

    #[test]
    fn classes_agree_with_the_byte_rules() {
        let block: Vec<u8> = (0..=255u8).collect();
        for (name, classes) in versions() {
            classes_agree(&block, classes, name);
        }
    }

    fn classes_agree(block: &[u8], classes: fn(&[u8]) -> Classes, name: &str) {
        for chunk in block.chunks_exact(64) {
            let c = classes(chunk);
            for (i, &byte) in chunk.iter().enumerate() {
                let bit = |m: u64| m >> i & 1 == 1;
                assert_eq!((bit(c.l), bit(c.sp), bit(c.o)), class1(byte), "{name}: byte {byte:#04x}");
                assert_eq!((bit(c.d), bit(c.ap)), (byte.is_ascii_digit(), byte == b'\''), "{name}: byte {byte:#04x}");
                assert_eq!(bit(c.nl), byte == b'\n' || byte == b'\r', "{name}: byte {byte:#04x}");
                assert_eq!(
                    (bit(c.up), bit(c.slash), bit(c.tab), bit(c.hi)),
                    (byte.is_ascii_uppercase(), byte == b'/', byte == b'\t', byte >= 0x80),
                    "{name}: byte {byte:#04x}"
                );
            }
        }
    }
}
