//! Hand-written pre-tokenizers for the known OpenAI patterns, and for the split patterns of
//! common Hugging Face byte-level BPE files (Llama 3, Qwen2), which are cl100k's with a
//! different whitespace tail (and one digit per piece for Qwen2). One matcher is not a single
//! pattern: `DeepSeekV3` gives the pieces of DeepSeek V3's sequence of three `Isolated` splits
//! (see `deepseek_v3`).
//!
//! Each matcher returns the end of the leftmost-first match that `fancy_regex` finds at `pos`
//! (the patterns are total, so a match always starts at `pos` and is non-empty). Every
//! alternative is decided the way the backtracking engine decides it: alternatives in order,
//! greedy runs computed by one forward scan, and the backtracking of a greedy run reduced to
//! "where is the last position in the run that lets the rest match" (found during the same
//! scan). No matcher looks at text beyond the runs it scans, nothing allocates, and every run
//! a call scans is either part of the returned piece or is consumed by the next one or two
//! pieces, so splitting a whole text is linear in its length.
//!
//! Notation used below (sets of code points, built from `regex-syntax` in `unicode`):
//! `L`=`\p{L}`, `N`=`\p{N}`, `S`=`\s`, `NL`=`[\r\n]`, `P`=`[^\r\n\p{L}\p{N}]`,
//! `O`=`[^\s\p{L}\p{N}]`, `U`=`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, `W`=`[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
//! `L`, `N` and `S` are disjoint; `U ∪ W = L ∪ \p{M}`; `P ∩ (U ∪ W) = \p{M}`. DeepSeek V3 adds
//! `M`=`\p{M}` and `PS`=`[\p{P}\p{S}]`.
//!
//! What it does not do: follow Oniguruma (the engine Hugging Face `tokenizers` runs these
//! patterns with) where it differs from `fancy_regex`; the contract is `fancy_regex`'s pieces.

use super::patterns::{
    CL100K_HF_PAT, CL100K_PAT, GPT2_ORIGINAL_PAT, LLAMA3_PAT, O200K_PAT, QWEN2_PAT, R50K_HF_PAT, R50K_PAT,
};
use super::unicode::{tables, Tables, CL_L, CL_M, CL_N, CL_NL, CL_PS, CL_S, CL_U, CL_W};

/// The known patterns that have a hand-written matcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnownPattern {
    /// `R50K_PAT` (r50k / p50k / gpt2); `GPT2_ORIGINAL_PAT` and `R50K_HF_PAT` split
    /// identically.
    R50k,
    /// `CL100K_PAT` (and its Hugging Face spelling `CL100K_HF_PAT`).
    Cl100k,
    /// `O200K_PAT`.
    O200k,
    /// `LLAMA3_PAT` (Llama 3.x `tokenizer.json`).
    Llama3,
    /// `QWEN2_PAT` (Qwen2 / Qwen2.5 / Qwen3 `tokenizer.json`).
    Qwen2,
    /// DeepSeek V3 / R1 `tokenizer.json`: the pieces of the three `Isolated` splits
    /// `DEEPSEEK_V3_SPLITS` applied in sequence (each split runs inside each piece of the one
    /// before). No single pattern selects it (`from_pattern` never returns it): the Hugging Face
    /// loader recognizes the sequence.
    DeepSeekV3,
}

impl KnownPattern {
    /// The known pattern whose regex string is exactly `pattern`, if any.
    pub fn from_pattern(pattern: &str) -> Option<Self> {
        if pattern == R50K_PAT || pattern == GPT2_ORIGINAL_PAT || pattern == R50K_HF_PAT {
            Some(KnownPattern::R50k)
        } else if pattern == CL100K_PAT || pattern == CL100K_HF_PAT {
            Some(KnownPattern::Cl100k)
        } else if pattern == O200K_PAT {
            Some(KnownPattern::O200k)
        } else if pattern == LLAMA3_PAT {
            Some(KnownPattern::Llama3)
        } else if pattern == QWEN2_PAT {
            Some(KnownPattern::Qwen2)
        } else {
            None
        }
    }

    /// Every matcher, in declaration order.
    pub const ALL: [KnownPattern; 6] = [
        KnownPattern::R50k,
        KnownPattern::Cl100k,
        KnownPattern::O200k,
        KnownPattern::Llama3,
        KnownPattern::Qwen2,
        KnownPattern::DeepSeekV3,
    ];

    /// The matcher whose `name` is `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Short name of the matcher: `"r50k"`, `"cl100k"`, `"o200k"`, `"llama3"`, `"qwen2"` or
    /// `"deepseek_v3"`.
    pub fn name(self) -> &'static str {
        match self {
            KnownPattern::R50k => "r50k",
            KnownPattern::Cl100k => "cl100k",
            KnownPattern::O200k => "o200k",
            KnownPattern::Llama3 => "llama3",
            KnownPattern::Qwen2 => "qwen2",
            KnownPattern::DeepSeekV3 => "deepseek_v3",
        }
    }

    /// End of the pre-token starting at byte `pos` of `text` (`pos < text.len()`, on a char
    /// boundary).
    #[inline]
    pub fn next_end(self, text: &str, pos: usize) -> usize {
        debug_assert!(pos < text.len() && text.is_char_boundary(pos));
        let t = tables();
        let b = text.as_bytes();
        match self {
            KnownPattern::R50k => r50k(t, b, pos),
            KnownPattern::Cl100k => cl100k_like::<false, false>(t, b, pos),
            KnownPattern::O200k => o200k(t, b, pos),
            KnownPattern::Llama3 => cl100k_like::<true, false>(t, b, pos),
            KnownPattern::Qwen2 => cl100k_like::<true, true>(t, b, pos),
            KnownPattern::DeepSeekV3 => deepseek_v3(t, b, pos),
        }
    }
}

impl KnownPattern {
    /// Calls `f(start, end)` for each pre-token of `text`, in order: `next_end` in a loop, with
    /// the pattern's dispatch and the class tables fetched once per call, not once per piece
    /// (a tenth of the splitting time on English prose). A matcher bug cannot loop forever: an
    /// end that does not advance to a character boundary is replaced by the next character's.
    #[inline]
    pub fn for_each_piece<F: FnMut(usize, usize)>(self, text: &str, f: F) {
        self.for_each_piece_into(text, &mut FnSink(f))
    }

    /// `for_each_piece` into a `PieceSink`, whose `piece` is inlined into the matcher's loop.
    #[inline]
    // Why closures: passed as a function item, the matcher was called through a
    // `Fn::call` shim per piece, whatever the inline hints; a closure gets inlined.
    #[allow(clippy::redundant_closure)]
    pub fn for_each_piece_into<S: PieceSink>(self, text: &str, sink: &mut S) {
        let t = tables();
        match self {
            KnownPattern::DeepSeekV3 => pieces(t, text, sink, |t, b, p| deepseek_v3(t, b, p)),
            _ => {
                #[cfg(target_arch = "x86_64")]
                if has_avx512() {
                    if has_vbmi() {
                        // SAFETY: the CPU has the features `pieces_blocks_vbmi` is compiled for.
                        return unsafe { pieces_blocks_vbmi(self, t, text, sink) };
                    }
                    // SAFETY: the CPU has the features `pieces_blocks_avx512` is compiled for.
                    return unsafe { pieces_blocks_avx512(self, t, text, sink) };
                }
                pieces_with_blocks::<false, false, S>(self, t, text, sink)
            }
        }
    }
}

/// Whether the CPU has what `pieces_blocks_avx512` is compiled for (std caches the answer:
/// a few loads and predicted branches per call).
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt")
}

/// Whether the CPU also has what `pieces_blocks_vbmi` adds to `pieces_blocks_avx512`.
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_vbmi() -> bool {
    std::arch::is_x86_feature_detected!("avx512vbmi") && std::arch::is_x86_feature_detected!("avx512vbmi2")
}

/// Receives the pieces of a text, in order. Why a trait besides closures: a sink's `piece`
/// marked `#[inline(always)]` is inlined into each matcher's loop (six of them), where a
/// closure is inlined at the compiler's discretion, which it stops doing once the body grows
/// (the encoder's whole-token lookup, say).
pub trait PieceSink {
    fn piece(&mut self, start: usize, end: usize);

    /// The pieces of a block that starts at `pos` (where its first piece starts): one ends
    /// at `pos + i` for each set bit `i` of `ends` (bit 0 clear), and the next one starts
    /// there. Returns where the last one ends (`pos` if none). `VBMI2`: the caller is compiled
    /// for AVX-512 VBMI2 and the CPU has it (`BatchSink` stores the ends with it).
    #[inline(always)]
    fn pieces_ending<const VBMI2: bool>(&mut self, pos: usize, ends: u64) -> usize {
        pieces_one_by_one(self, pos, ends)
    }
}

/// `PieceSink::pieces_ending` as calls of `piece`, one per piece.
#[inline(always)]
pub fn pieces_one_by_one<S: PieceSink + ?Sized>(sink: &mut S, pos: usize, ends: u64) -> usize {
    let (mut m, mut start) = (ends, pos);
    while m != 0 {
        let s = pos + m.trailing_zeros() as usize;
        sink.piece(start, s);
        start = s;
        m &= m - 1;
    }
    start
}

/// A closure as a `PieceSink`.
pub struct FnSink<F>(pub F);

impl<F: FnMut(usize, usize)> PieceSink for FnSink<F> {
    #[inline(always)]
    fn piece(&mut self, start: usize, end: usize) {
        (self.0)(start, end)
    }
}

#[inline(always)]
fn pieces<S: PieceSink, N: Fn(&Tables, &[u8], usize) -> usize>(t: &Tables, text: &str, sink: &mut S, next: N) {
    let b = text.as_bytes();
    let mut pos = 0;
    while pos < b.len() {
        let mut end = next(t, b, pos);
        if end <= pos || end > b.len() || !text.is_char_boundary(end) {
            end = pos + text[pos..].chars().next().map_or(1, char::len_utf8);
        }
        sink.piece(pos, end);
        pos = end;
    }
}

/// `pieces_with_blocks`, the whole piece loop compiled for AVX-512BW and BMI: the block
/// classifier, the matchers and the sink's `piece` inlined, chosen once per call.
///
/// Why: a function compiled for features its caller lacks is not inlined into it, so
/// choosing the AVX-512 classifier per block cost a call per block, and the bit arithmetic of
/// the block path (`tzcnt`, `blsr`, shifts by a register) is shorter with BMI. Measured in one
/// process against the per-block choice (`ALT`, 40 rounds): see `benchmarks/README.md`,
/// session 27.
///
/// # Safety
/// The CPU must have the features (`has_avx512`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn pieces_blocks_avx512<S: PieceSink>(kind: KnownPattern, t: &Tables, text: &str, sink: &mut S) {
    pieces_with_blocks::<true, false, S>(kind, t, text, sink)
}

/// `pieces_blocks_avx512` with a block's two-byte letters found on AVX-512 VBMI
/// (`blocks::two_byte_letters_vbmi`) and its pieces handed to the sink with VBMI2
/// (`PieceSink::pieces_ending`), for the CPUs that have both (Ice Lake and later, Zen 4).
///
/// # Safety
/// The CPU must have the features (`has_avx512` and `has_vbmi`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vbmi,avx512vbmi2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn pieces_blocks_vbmi<S: PieceSink>(kind: KnownPattern, t: &Tables, text: &str, sink: &mut S) {
    pieces_with_blocks::<true, true, S>(kind, t, text, sink)
}

/// The piece loop of a pattern whose plain ASCII goes 64 bytes at a time through
/// `blocks::block` (cl100k, o200k, llama3, qwen2, r50k), with the block classifier on AVX-512BW or
/// SSE2.
#[inline(always)]
#[allow(clippy::redundant_closure)] // See `for_each_piece_into`.
fn pieces_with_blocks<const AVX512: bool, const VBMI: bool, S: PieceSink>(
    kind: KnownPattern,
    t: &Tables,
    text: &str,
    sink: &mut S,
) {
    match kind {
        KnownPattern::Cl100k => pieces_blocks::<false, false, false, AVX512, VBMI, _, _>(t, text, sink, |t, b, p| {
            cl100k_like::<false, false>(t, b, p)
        }),
        KnownPattern::O200k => {
            pieces_blocks::<false, true, false, AVX512, VBMI, _, _>(t, text, sink, |t, b, p| o200k(t, b, p))
        }
        KnownPattern::Llama3 => pieces_blocks::<false, false, false, AVX512, VBMI, _, _>(t, text, sink, |t, b, p| {
            cl100k_like::<true, false>(t, b, p)
        }),
        KnownPattern::Qwen2 => pieces_blocks::<true, false, false, AVX512, VBMI, _, _>(t, text, sink, |t, b, p| {
            cl100k_like::<true, true>(t, b, p)
        }),
        KnownPattern::R50k => {
            pieces_blocks::<false, false, true, AVX512, VBMI, _, _>(t, text, sink, |t, b, p| r50k(t, b, p))
        }
        KnownPattern::DeepSeekV3 => unreachable!("{kind:?} has no block path"),
    }
}

/// `pieces` for the cl100k-like patterns, o200k and r50k: runs of plain ASCII go 64 bytes at a time
/// through `blocks::block` (the same pieces, see there), the rest through `next`.
#[inline(always)]
fn pieces_blocks<
    const ONE_DIGIT: bool,
    const O200K: bool,
    const R50K: bool,
    const AVX512: bool,
    const VBMI: bool,
    S: PieceSink,
    N: Fn(&Tables, &[u8], usize) -> usize,
>(
    t: &Tables,
    text: &str,
    sink: &mut S,
    next: N,
) {
    #[cfg(not(target_arch = "x86_64"))]
    return pieces(t, text, sink, next);
    #[cfg(target_arch = "x86_64")]
    {
        let b = text.as_bytes();
        let (mut pos, mut resume) = (0, 0);
        while pos < b.len() {
            if pos >= resume {
                match super::blocks::block::<ONE_DIGIT, O200K, R50K, AVX512, VBMI>(t, b, pos, sink) {
                    Ok((next, r)) => {
                        (pos, resume) = (next, r);
                        continue;
                    }
                    Err(r) => resume = r,
                }
            }
            let mut end = next(t, b, pos);
            if end <= pos || end > b.len() || !text.is_char_boundary(end) {
                end = pos + text[pos..].chars().next().map_or(1, char::len_utf8);
            }
            sink.piece(pos, end);
            pos = end;
        }
    }
}

/// "No position" marker for optional positions.
const NONE: usize = usize::MAX;
/// `S | L | N`: a character is in `O` iff its flags have none of these.
const SLN: u8 = CL_S | CL_L | CL_N;
/// `L | N | NL`: a character is in `P` iff its flags have none of these.
const LNNL: u8 = CL_L | CL_N | CL_NL;

/// Decodes the (non-ASCII) char starting at `i` of valid UTF-8: (code point, byte length).
#[inline(always)]
fn decode(b: &[u8], i: usize) -> (u32, usize) {
    let b0 = b[i] as u32;
    if b0 < 0xE0 {
        (((b0 & 0x1F) << 6) | (b[i + 1] as u32 & 0x3F), 2)
    } else if b0 < 0xF0 {
        (((b0 & 0x0F) << 12) | ((b[i + 1] as u32 & 0x3F) << 6) | (b[i + 2] as u32 & 0x3F), 3)
    } else {
        (
            ((b0 & 0x07) << 18)
                | ((b[i + 1] as u32 & 0x3F) << 12)
                | ((b[i + 2] as u32 & 0x3F) << 6)
                | (b[i + 3] as u32 & 0x3F),
            4,
        )
    }
}

/// Class flags and byte length of the char starting at `i` (`i < b.len()`).
#[inline(always)]
fn cls(t: &Tables, b: &[u8], i: usize) -> (u8, usize) {
    let c = b[i];
    if c < 0x80 {
        (t.latin1[c as usize], 1)
    } else {
        let (cp, l) = decode(b, i);
        (t.class(cp), l)
    }
}

/// End of the run of three-byte chars starting at `i` whose bit is set in `bits` (a bitmap of
/// `ThreeByteLetters`; `i` itself if the char there is not one). `b` is UTF-8, so a lead byte
/// 0xE0..=0xEF starts a whole three-byte char.
#[inline(always)]
fn run3(bits: &[u64; 1024], b: &[u8], mut i: usize) -> usize {
    while let Some(&[b0, b1, b2]) = b.get(i..i + 3) {
        if b0 & 0xF0 != 0xE0 {
            break;
        }
        let cp = (b0 as usize & 0x0F) << 12 | (b1 as usize & 0x3F) << 6 | (b2 as usize & 0x3F);
        if bits[cp >> 6] >> (cp & 63) & 1 == 0 {
            break;
        }
        i += 3;
    }
    i
}

/// Characters of a letter run taken one at a time before `run` tries 64 bytes at once: words
/// are shorter, so ordinary text never pays for a try.
const LONG_RUN: u32 = 24;

/// End of the run of chars starting at `i` whose flags intersect `mask` (`NEG=false`) or are
/// disjoint from it (`NEG=true`).
#[inline(always)]
fn run<const NEG: bool>(t: &Tables, b: &[u8], mut i: usize, mask: u8) -> usize {
    let n = b.len();
    // Characters taken one at a time since the last try of 64 bytes at once.
    let mut one_by_one = 0u32;
    while i < n {
        #[cfg(target_arch = "x86_64")]
        if !NEG && (mask == CL_W || mask == CL_L) && one_by_one >= LONG_RUN && n - i > 64 {
            // A long run of letters (see `blocks::letter_run_vbmi`): 64 bytes at a time while
            // the block takes nearly all of them; a character it stops at is judged below.
            one_by_one = 0;
            if has_avx512() && has_vbmi() {
                loop {
                    // SAFETY: the CPU has AVX-512BW and VBMI (checked); 65 bytes from `i` exist.
                    let e = unsafe { super::blocks::letter_run_vbmi(t, &b[i..i + 65], mask == CL_L) };
                    i += e;
                    if e < 63 || n - i <= 64 {
                        break;
                    }
                }
                continue;
            }
        }
        one_by_one += 1;
        let c = b[i];
        if !NEG && mask == CL_L && c & 0xF0 == 0xE0 {
            // A run of three-byte letters (CJK) in one go; a char it stops at is judged below.
            let e = run3(&t.three_byte.letter, b, i);
            if e > i {
                i = e;
                continue;
            }
        }
        let (k, l) = if c < 0xE0 {
            // One byte or two (ASCII, Latin, Greek, Cyrillic, ...), with no branch on which: in
            // a run of random letters of those scripts it is a coin toss, and the branch cost a
            // misprediction about every other character (`letters`: pre-tokenizing 218 -> 490
            // MB/s, encoding 1.00-1.13x).
            let two = c >= 0x80;
            let c1 = b.get(i + 1).copied().unwrap_or(0) as u32;
            let cp = std::hint::select_unpredictable(two, (c as u32 & 0x1F) << 6 | (c1 & 0x3F), c as u32);
            (t.class(cp), 1 + two as usize)
        } else {
            let (cp, l) = decode(b, i);
            (t.class(cp), l)
        };
        if ((k & mask) != 0) == NEG {
            break;
        }
        i += l;
    }
    i
}

/// End of the run of `\p{L}` chars starting at `i`: `run_in(t, b, i, CL_L)`, eight ASCII bytes
/// at a time (`ascii_run_end`); a non-ASCII byte where that run stops hands over to `run_in`
/// (it may start a letter).
#[inline(always)]
fn letters_end(t: &Tables, b: &[u8], i: usize) -> usize {
    let j = ascii_run_end::<ASCII_LETTER>(b, i);
    if j < b.len() && b[j] >= 0x80 {
        run_in(t, b, j, CL_L)
    } else {
        j
    }
}

/// The first position from `i` whose byte is not a space (0x20), or the end; eight bytes at a
/// time.
#[inline(always)]
fn spaces_end(b: &[u8], i: usize) -> usize {
    byte_run_end(b, i, b' ')
}

/// The first position from `i` whose byte is not `c`, or the end; eight bytes at a time.
#[inline(always)]
fn byte_run_end(b: &[u8], mut i: usize, c: u8) -> usize {
    let all = u64::from_ne_bytes([c; 8]);
    while let Some(w) = b.get(i..i + 8) {
        let x = u64::from_le_bytes(w.try_into().unwrap_or_default()) ^ all;
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && b[i] == c {
        i += 1;
    }
    i
}

/// Indentation: a run of two or more spaces at `pos` followed by an ASCII char that is not
/// `\s`. Every GPT-style pattern (r50k, cl100k, o200k, llama3, qwen2) gives it the same
/// piece: no letter, digit or punctuation alternative can start on a space followed by a
/// space, no `[\r\n]` is in reach, so `\s+(?!\S)` takes the run but its last space (which
/// starts the next piece, as ` x`). Returns that end, or `None` for any other text (the run
/// reaching the end or another kind of character, which the full matcher handles).
#[inline(always)]
fn indent_end(t: &Tables, b: &[u8], pos: usize) -> Option<usize> {
    if b.get(pos + 1) != Some(&b' ') {
        return None;
    }
    let r = spaces_end(b, pos + 2);
    match b.get(r) {
        Some(&c) if c < 0x80 && t.latin1[c as usize] & CL_S == 0 => Some(r - 1),
        _ => None,
    }
}

/// Punctuation in code and prose (`,` `.` `):` `" =` `):\n`...): the alternative
/// ` ?[^\s\p{L}\p{N}]+[\r\n]*` of the o200k and cl100k-like patterns (`[\r\n/]*` in o200k's
/// tail, `SLASH`), on ASCII text, where it is the alternative that matches at `pos`: an optional
/// space, then a run of ASCII chars in none of `\s`, `\p{L}`, `\p{N}`, then the tail. Not when
/// that run is one char, right at `pos`, before a letter (the letter alternative takes both), nor
/// when the run or the char after it is not ASCII (a symbol may go on, a letter or mark may
/// follow): `None`, and the full matcher decides. The caller rules out cl100k's contractions
/// (`'` at `pos`).
#[inline(always)]
fn ascii_punct_end<const SLASH: bool>(t: &Tables, b: &[u8], pos: usize) -> Option<usize> {
    let is_o = |i: usize| b.get(i).is_some_and(|&c| c < 0x80 && t.latin1[c as usize] & SLN == 0);
    let s = pos + (b[pos] == b' ') as usize;
    if !is_o(s) {
        return None;
    }
    let mut e = s + 1;
    while is_o(e) {
        e += 1;
    }
    match b.get(e) {
        Some(&c) if c >= 0x80 => return None,
        Some(&c) if c.is_ascii_alphabetic() && e == pos + 1 => return None,
        _ => {}
    }
    while let Some(&c) = b.get(e) {
        if c == b'\n' || c == b'\r' || (SLASH && c == b'/') {
            e += 1;
        } else {
            break;
        }
    }
    Some(e)
}

/// Newlines, digits and a space before digits, as the o200k and cl100k-like patterns split them
/// on ASCII text (`ONE_DIGIT`: qwen2's `\p{N}` for `\p{N}{1,3}`; `end_ws`: cl100k's `\s++$`):
/// - `\n` or `\r` at `pos`: `\s*[\r\n]+` (cl100k: `\s*[\r\n]`) matches, as no earlier
///   alternative starts on it, and takes the run of whitespace up to its last `\r` or `\n`; with
///   `end_ws`, a run that reaches the end of the text is taken whole (`\s++$` comes first);
/// - an ASCII digit: `\p{N}{1,3}`, up to three ASCII digits;
/// - a space before an ASCII digit: only `\s+` matches, the space alone.
///
/// `None` for anything else, or when a non-ASCII char is in reach (it may be whitespace or a
/// digit that continues the piece): the full matcher decides.
#[inline(always)]
fn ascii_newline_digits_end<const ONE_DIGIT: bool>(t: &Tables, b: &[u8], pos: usize, end_ws: bool) -> Option<usize> {
    let c0 = b[pos];
    if c0 == b'\n' || c0 == b'\r' {
        let mut last = pos;
        let mut i = pos + 1;
        loop {
            match b.get(i) {
                Some(&c) if c >= 0x80 => return None,
                Some(&c) if t.latin1[c as usize] & CL_S != 0 => {
                    if c == b'\n' || c == b'\r' {
                        last = i;
                    }
                    i += 1;
                }
                None if end_ws => return Some(i),
                _ => return Some(last + 1),
            }
        }
    }
    if c0.is_ascii_digit() {
        let most = if ONE_DIGIT { 1 } else { 3 };
        let mut e = pos + 1;
        while e < pos + most && b.get(e).is_some_and(u8::is_ascii_digit) {
            e += 1;
        }
        if e < pos + most && b.get(e).is_some_and(|&c| c >= 0x80) {
            return None;
        }
        return Some(e);
    }
    if c0 == b' ' && b.get(pos + 1).is_some_and(u8::is_ascii_digit) {
        return Some(pos + 1);
    }
    None
}

/// Byte kinds for `ascii_run_end`.
const ASCII_LETTER: u8 = 0;
const ASCII_LOWER: u8 = 1;
const ASCII_UPPER: u8 = 2;

/// The first position from `i` whose byte is not of `KIND` (an ASCII letter, lowercase letter
/// or uppercase letter), or the end. Why eight bytes at a time: an English word is a handful of
/// letters, and a byte loop that stops after a data-dependent number of them costs a
/// mispredicted branch per word; one word-wide test finds the first other byte.
#[inline(always)]
fn ascii_run_end<const KIND: u8>(b: &[u8], mut i: usize) -> usize {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    // The range lo..=hi of y (below).
    let (lo, hi) = if KIND == ASCII_UPPER { (0x41u64, 0x5Au64) } else { (0x61, 0x7A) };
    while let Some(w) = b.get(i..i + 8) {
        let x = u64::from_le_bytes(w.try_into().unwrap_or_default());
        // Per byte, with no carry across bytes (every sum stays below 0x100): y = the low seven
        // bits (with bit 5 set for ASCII_LETTER: letters fold to 0x61..=0x7A); bit 7 of
        // `y + (0x80 - lo)` is y >= lo, of `y + (0x7F - hi)` is y > hi; a byte >= 0x80 is no
        // ASCII letter.
        let y = if KIND == ASCII_LETTER { (x & LOW7) | 0x2020_2020_2020_2020 } else { x & LOW7 };
        let inside = (y + (0x80 - lo) * ONES) & !(y + (0x7F - hi) * ONES) & !x & HIGH;
        let other = !inside & HIGH;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    let is = |c: u8| match KIND {
        ASCII_LETTER => c.is_ascii_alphabetic(),
        ASCII_LOWER => c.is_ascii_lowercase(),
        _ => c.is_ascii_uppercase(),
    };
    while i < b.len() && is(b[i]) {
        i += 1;
    }
    i
}

/// End of the run of chars in `mask`'s classes.
#[inline(always)]
fn run_in(t: &Tables, b: &[u8], i: usize, mask: u8) -> usize {
    run::<false>(t, b, i, mask)
}

/// End of the run of chars in none of `mask`'s classes.
#[inline(always)]
fn run_not(t: &Tables, b: &[u8], i: usize, mask: u8) -> usize {
    run::<true>(t, b, i, mask)
}

/// Scans the `\s` run starting at `pos` (the char at `pos` is in `S`). Returns
/// (end of the run, position of the last `\r`/`\n` in it or `NONE`, start of its last char).
#[inline(always)]
fn ws_run(t: &Tables, b: &[u8], pos: usize) -> (usize, usize, usize) {
    let n = b.len();
    let mut i = pos;
    let mut last_nl = NONE;
    let mut last = pos;
    while i < n {
        let c = b[i];
        if c == b' ' || c == b'\t' {
            // Runs of spaces or tabs (indentation) eight at a time.
            i = byte_run_end(b, i + 1, c);
            last = i - 1;
        } else if c < 0x80 {
            if t.latin1[c as usize] & CL_S == 0 {
                break;
            }
            if c == b'\n' || c == b'\r' {
                last_nl = i;
            }
            last = i;
            i += 1;
        } else {
            let (cp, l) = decode(b, i);
            if t.class(cp) & CL_S == 0 {
                break;
            }
            last = i;
            i += l;
        }
    }
    (i, last_nl, last)
}

/// Case-insensitive contraction letters after a `'` at `i - 1`: `(?i:[sdmt]|ll|ve|re)`, which
/// is also o200k's `(?i:'s|'t|'re|'ve|'m|'ll|'d)` minus the apostrophe. Returns the end.
///
/// Case folding as in `regex-syntax` (simple case folding): the only non-ASCII character any
/// of these letters folds to is U+017F LATIN SMALL LETTER LONG S (for `s`). The integration
/// tests check this against `regex-syntax` for every letter.
#[inline(always)]
fn contraction_ci(b: &[u8], i: usize) -> Option<usize> {
    let c1 = *b.get(i)?;
    // `x | 0x20` equals an ASCII lowercase letter only for that letter and its uppercase.
    match c1 | 0x20 {
        b's' | b'd' | b'm' | b't' => return Some(i + 1),
        b'l' if b.get(i + 1).map(|&c| c | 0x20) == Some(b'l') => return Some(i + 2),
        b'v' | b'r' if b.get(i + 1).map(|&c| c | 0x20) == Some(b'e') => return Some(i + 2),
        _ => {}
    }
    // U+017F is C5 BF.
    if c1 == 0xC5 && b.get(i + 1) == Some(&0xBF) {
        return Some(i + 2);
    }
    None
}

/// Optional o200k contraction suffix at `e`: `(?i:'s|'t|'re|'ve|'m|'ll|'d)?`.
#[inline(always)]
fn opt_contraction(b: &[u8], e: usize) -> usize {
    if b.get(e) == Some(&b'\'') {
        if let Some(end) = contraction_ci(b, e + 1) {
            return end;
        }
    }
    e
}

// ---------------------------------------------------------------------------------------------
// r50k: '(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s
// ---------------------------------------------------------------------------------------------

#[inline(always)]
fn r50k(t: &Tables, b: &[u8], pos: usize) -> usize {
    let c0 = b[pos];
    // Fast path, inlined into the piece loop: ASCII letters with an optional leading space
    // (most of English prose).
    if c0 == b' ' {
        if let Some(&c1) = b.get(pos + 1) {
            if c1.is_ascii_alphabetic() {
                return letters_end(t, b, pos + 2);
            }
        }
        if let Some(e) = indent_end(t, b, pos) {
            return e;
        }
    } else if c0.is_ascii_alphabetic() {
        return letters_end(t, b, pos + 1);
    }
    r50k_rest(t, b, pos)
}

/// `r50k` past its fast path.
#[inline(never)]
fn r50k_rest(t: &Tables, b: &[u8], pos: usize) -> usize {
    let n = b.len();
    let c0 = b[pos];

    // '(?:[sdmt]|ll|ve|re)  (case-sensitive)
    if c0 == b'\'' {
        match b.get(pos + 1) {
            Some(b's' | b'd' | b'm' | b't') => return pos + 2,
            Some(b'l') if b.get(pos + 2) == Some(&b'l') => return pos + 3,
            Some(b'v' | b'r') if b.get(pos + 2) == Some(&b'e') => return pos + 3,
            _ => {}
        }
    }
    let (k0, l0) = cls(t, b, pos);
    // ` ?X++` for X in L, N, O (in that order). With the space taken, X must start at pos+1;
    // without it the char at pos (a space, which is in S) is in none of them.
    if c0 == b' ' && pos + 1 < n {
        let (k1, l1) = cls(t, b, pos + 1);
        if k1 & CL_L != 0 {
            return letters_end(t, b, pos + 1 + l1);
        }
        if k1 & CL_N != 0 {
            return run_in(t, b, pos + 1 + l1, CL_N);
        }
        if k1 & SLN == 0 {
            return run_not(t, b, pos + 1 + l1, SLN);
        }
    }
    if k0 & CL_L != 0 {
        return letters_end(t, b, pos + l0);
    }
    if k0 & CL_N != 0 {
        return run_in(t, b, pos + l0, CL_N);
    }
    if k0 & SLN == 0 {
        return run_not(t, b, pos + l0, SLN);
    }
    // The char at pos is in S.
    debug_assert!(k0 & CL_S != 0);
    let (r, _, last) = ws_run(t, b, pos);
    if r == n {
        // \s++$
        return n;
    }
    if last > pos {
        // \s+(?!\S): the greedy run is followed by a non-space; giving back its last char
        // leaves a space after the match.
        return last;
    }
    // \s
    pos + l0
}

// ---------------------------------------------------------------------------------------------
// cl100k: '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
//         |\s++$|\s*[\r\n]|\s+(?!\S)|\s
// llama3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*
//         |\s*[\r\n]+|\s+(?!\S)|\s+
// qwen2:  llama3 with \p{N} for \p{N}{1,3}.
//
// Up to the whitespace alternatives, llama3 decides like cl100k although nothing is possessive:
// the contraction alternatives are the same set with no alternative a prefix of another; `P?`
// followed by `\p{L}+` cannot succeed without taking a P char it could take (a P char is not in
// L); and a greedy run at the end of an alternative is never given back (nothing after it can
// fail), nor is `O+` before `[\r\n]*` (which can match empty).
// ---------------------------------------------------------------------------------------------

/// cl100k (`HF_WS=false`, `ONE_DIGIT=false`), llama3 (`HF_WS=true`) and qwen2 (`HF_WS=true`,
/// `ONE_DIGIT=true`). `HF_WS` selects llama3's whitespace tail (o200k's, in fact) over
/// cl100k's; `ONE_DIGIT` selects `\p{N}` over `\p{N}{1,3}`.
#[inline(always)]
fn cl100k_like<const HF_WS: bool, const ONE_DIGIT: bool>(t: &Tables, b: &[u8], pos: usize) -> usize {
    let c0 = b[pos];
    // Fast path, inlined into the piece loop: ASCII letters, optionally after a space
    // (alternative 2 either way: the space is a P char and cannot start alternative 1).
    if c0.is_ascii_alphabetic() {
        return letters_end(t, b, pos + 1);
    }
    if c0 == b' ' {
        if pos + 1 < b.len() && b[pos + 1].is_ascii_alphabetic() {
            return letters_end(t, b, pos + 2);
        }
        if let Some(e) = indent_end(t, b, pos) {
            return e;
        }
    }
    if c0 != b'\'' {
        if let Some(e) = ascii_punct_end::<false>(t, b, pos) {
            return e;
        }
    }
    if let Some(e) = ascii_newline_digits_end::<ONE_DIGIT>(t, b, pos, !HF_WS) {
        return e;
    }
    cl100k_like_rest::<HF_WS, ONE_DIGIT>(t, b, pos)
}

/// `cl100k_like` past its fast path.
#[inline(never)]
fn cl100k_like_rest<const HF_WS: bool, const ONE_DIGIT: bool>(t: &Tables, b: &[u8], pos: usize) -> usize {
    let n = b.len();
    let c0 = b[pos];

    // '(?i:[sdmt]|ll|ve|re)
    if c0 == b'\'' {
        if let Some(e) = contraction_ci(b, pos + 1) {
            return e;
        }
    }
    let (k0, l0) = cls(t, b, pos);
    let p1 = pos + l0;
    // Flags of the next char (0 at the end of the text).
    let (k1, l1) = if p1 < n { cls(t, b, p1) } else { (0, 0) };

    // [^\r\n\p{L}\p{N}]?+\p{L}++ : the optional P char is possessive, but not taking it would
    // need the char at pos in L, which a P char is not.
    if k0 & CL_L != 0 {
        return letters_end(t, b, p1);
    }
    if k0 & LNNL == 0 && k1 & CL_L != 0 {
        return letters_end(t, b, p1 + l1);
    }
    // \p{N}{1,3}+ (or \p{N})
    if k0 & CL_N != 0 {
        return if ONE_DIGIT { p1 } else { digits_1_3(t, b, p1, k1, l1) };
    }
    //  ?[^\s\p{L}\p{N}]++[\r\n]*+
    if let Some(e) = punct_run(t, b, c0, p1, k0, k1, l1, false) {
        return e;
    }
    // The char at pos is in S.
    debug_assert!(k0 & CL_S != 0);
    if HF_WS {
        return ws_tail_hf(t, b, pos);
    }
    let (r, last_nl, last) = ws_run(t, b, pos);
    if r == n {
        // \s++$
        return n;
    }
    if last_nl != NONE {
        // \s*[\r\n]: the greedy \s* backs off to the last \r or \n of the run.
        return last_nl + 1;
    }
    if last > pos {
        // \s+(?!\S)
        return last;
    }
    // \s
    p1
}

/// End of `\p{N}{1,3}` whose first digit ends at `p1`; `(k1, l1)` is the class and length of
/// the char at `p1` (`(0, 0)` at the end of text). Shared by cl100k and o200k.
#[inline(always)]
fn digits_1_3(t: &Tables, b: &[u8], p1: usize, k1: u8, l1: usize) -> usize {
    let mut e = p1;
    if k1 & CL_N != 0 {
        e += l1;
        if e < b.len() {
            let (k2, l2) = cls(t, b, e);
            if k2 & CL_N != 0 {
                e += l2;
            }
        }
    }
    e
}

/// End of the `[\r\n]*` run at `i`.
#[inline(always)]
fn run_nl(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        if c != b'\n' && c != b'\r' {
            break;
        }
        i += 1;
    }
    i
}

/// ` ?[^\s\p{L}\p{N}]+` at the char `c0` (class `k0`, next char at `p1` of class `k1` and
/// length `l1`), then the run of `[\r\n]` (cl100k) or `[\r\n/]` (o200k, `slash`). `None` when
/// the alternative does not match here. Possessive and greedy forms agree: what follows a
/// punctuation run can never be punctuation, so nothing is given back.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn punct_run(t: &Tables, b: &[u8], c0: u8, p1: usize, k0: u8, k1: u8, l1: usize, slash: bool) -> Option<usize> {
    let start = if c0 == b' ' && p1 < b.len() && k1 & SLN == 0 {
        p1 + l1
    } else if k0 & SLN == 0 {
        p1
    } else {
        return None;
    };
    let e = run_not(t, b, start, SLN);
    Some(if slash { run_nl_slash(b, e) } else { run_nl(b, e) })
}

// ---------------------------------------------------------------------------------------------
// o200k:
//   A1 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|..)?
//   A2 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|..)?
//   A3 \p{N}{1,3}   A4  ?[^\s\p{L}\p{N}]+[\r\n/]*   A5 \s*[\r\n]+   A6 \s+(?!\S)   A7 \s+
// All greedy, none possessive: P? first tries taking the char, then not taking it.
// ---------------------------------------------------------------------------------------------

#[inline(always)]
fn o200k(t: &Tables, b: &[u8], pos: usize) -> usize {
    let n = b.len();
    let c0 = b[pos];
    // Fast path: an ASCII word (uppercase letters, then lowercase ones), optionally after one
    // ASCII P char (space, punctuation...), each run followed by the end or an ASCII char
    // (which then is in neither U nor W where it matters). ASCII uppercase letters are in U
    // only and lowercase ones in W only, so: with a lowercase letter, A1 matches (U* the
    // uppercase run, W+ the lowercase run; taking the P char, if any, is tried first and
    // succeeds); without one, A1 fails both with and without the P char (W+ has nothing to
    // match) and A2 matches the uppercase run (U+, then W* empty).
    {
        let c = |i: usize| b.get(i).copied().unwrap_or(0);
        let s = if c0.is_ascii_alphabetic() {
            pos
        } else if c0 < 0x80 && t.latin1[c0 as usize] & LNNL == 0 && c(pos + 1).is_ascii_alphabetic() {
            pos + 1
        } else {
            NONE
        };
        if s != NONE {
            // Most words start lowercase: no uppercase scan for them.
            let u = if b[s].is_ascii_uppercase() { ascii_run_end::<ASCII_UPPER>(b, s + 1) } else { s };
            if u >= n || b[u] < 0x80 {
                let l = ascii_run_end::<ASCII_LOWER>(b, u);
                if l >= n || b[l] < 0x80 {
                    return opt_contraction(b, if l > u { l } else { u });
                }
            }
        }
    }
    if c0 == b' ' {
        if let Some(e) = indent_end(t, b, pos) {
            return e;
        }
    }
    if let Some(e) = ascii_punct_end::<true>(t, b, pos) {
        return e;
    }
    if let Some(e) = ascii_newline_digits_end::<false>(t, b, pos, false) {
        return e;
    }
    o200k_rest(t, b, pos)
}

/// `o200k` past its fast path.
#[inline(never)]
fn o200k_rest(t: &Tables, b: &[u8], pos: usize) -> usize {
    let n = b.len();
    let c0 = b[pos];
    let (k0, l0) = cls(t, b, pos);
    let p1 = pos + l0;
    let k0_in_p = k0 & LNNL == 0;
    // A1: first with the P char taken, then (c0 in M) without it.
    if k0_in_p {
        if let Some(e) = a1_from(t, b, p1) {
            return e;
        }
    }
    if k0 & (CL_U | CL_W) != 0 {
        if let Some(e) = a1_from(t, b, pos) {
            return e;
        }
    }
    // A2, same order.
    let (k1, l1) = if p1 < n { cls(t, b, p1) } else { (0, 0) };
    if k0_in_p && k1 & CL_U != 0 {
        return a2_from(t, b, p1 + l1);
    }
    if k0 & CL_U != 0 {
        return a2_from(t, b, p1);
    }
    // A3: \p{N}{1,3}
    if k0 & CL_N != 0 {
        return digits_1_3(t, b, p1, k1, l1);
    }
    // A4:  ?[^\s\p{L}\p{N}]+[\r\n/]*
    if let Some(e) = punct_run(t, b, c0, p1, k0, k1, l1, true) {
        return e;
    }
    // The char at pos is in S.
    debug_assert!(k0 & CL_S != 0);
    ws_tail_hf(t, b, pos)
}

/// `\s*[\r\n]+|\s+(?!\S)|\s+` at `pos` (the char at `pos` is in `S`): the whitespace tail of
/// o200k, llama3 and qwen2.
#[inline(always)]
fn ws_tail_hf(t: &Tables, b: &[u8], pos: usize) -> usize {
    let (r, last_nl, last) = ws_run(t, b, pos);
    if last_nl != NONE {
        // \s*[\r\n]+: \s* backs off to the last \r/\n of the run, and [\r\n]+ then takes
        // just that char (what follows it in the run is not \r/\n).
        return last_nl + 1;
    }
    if r == b.len() {
        // \s+(?!\S) at the end of the text.
        return r;
    }
    if last > pos {
        // \s+(?!\S): give back the last char of the run.
        return last;
    }
    // \s+ (a single whitespace char followed by a non-space).
    r
}

/// A1 after the optional P char: `U* W+ C?` at `s`. The greedy `U*` is backed off until `W+`
/// can start: either right after the U run (the next char is in W), or at the last char of
/// the U run that is also in W (then `W+` takes exactly that char, since any later char of
/// the run is not in W, and neither is the char after the run).
#[inline(always)]
fn a1_from(t: &Tables, b: &[u8], s: usize) -> Option<usize> {
    let n = b.len();
    let mut i = s;
    let mut last_uw_end = NONE;
    while i < n {
        if b[i] & 0xF0 == 0xE0 {
            // Three-byte chars in both case classes (CJK, kana) in one go: each is a `U` char
            // that is also `W`, which the loop below would take one by one.
            let e = run3(&t.three_byte.both_cases, b, i);
            if e > i {
                (i, last_uw_end) = (e, e);
                continue;
            }
        }
        let (k, l) = cls(t, b, i);
        if k & CL_U == 0 {
            if k & CL_W != 0 {
                let e = run_in(t, b, i + l, CL_W);
                return Some(opt_contraction(b, e));
            }
            break;
        }
        i += l;
        if k & CL_W != 0 {
            last_uw_end = i;
        }
    }
    if last_uw_end != NONE {
        return Some(opt_contraction(b, last_uw_end));
    }
    None
}

/// A2 after the optional P char and the first U char: `U* W* C?` at `s` (all greedy, and
/// nothing after them can fail).
#[inline(always)]
fn a2_from(t: &Tables, b: &[u8], s: usize) -> usize {
    let u = run_in(t, b, s, CL_U);
    let e = run_in(t, b, u, CL_W);
    opt_contraction(b, e)
}

/// End of the `[\r\n/]*` run at `i`.
#[inline(always)]
fn run_nl_slash(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        if c != b'\n' && c != b'\r' && c != b'/' {
            break;
        }
        i += 1;
    }
    i
}

// ---------------------------------------------------------------------------------------------
// DeepSeek V3: three `Isolated` splits in sequence. Each split's pieces are the matches of its
// regex (`find_iter`) and the runs of text between them; each split runs inside each piece of
// the one before.
//   D  \p{N}{1,3}
//   K  [\u4E00-\u9FA5\u3040-\u309F\u30A0-\u30FF]+
//   M  A1 [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+   A2 [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
//      A3  ?[\p{P}\p{S}]+[\r\n]*   A4 \s*[\r\n]+   A5 \s+(?!\S)   A6 \s+
//
// After D and K the text is cut into segments: digit groups (a maximal N run cut in threes from
// its start), K runs (K chars are never N), and the text between them (no N, no K char). M
// matches nothing in a digit group (each alternative needs an L, M, P, S or `\s` char, and N
// is none of these), so a group is one piece. In the other segments M's pieces are its matches
// and the runs between them. M has no look-behind, so its match at `p` depends only on the text
// from `p` to the end of the segment, which is the first "wall" char (N or K for the text
// between, any non-K char for a K run) or the end of the text. The piece starting at `pos`
// (always a piece boundary, so the start of a digit group when the char is N) is thus found
// from `pos` alone, scanning no further than the segment's first wall.
// ---------------------------------------------------------------------------------------------

/// Flag of a char outside the current segment (`ds_cls`); no class flag is set with it.
const WALL: u16 = 1 << 8;
/// `[\p{L}\p{M}]`.
const DS_LM: u16 = (CL_L | CL_M) as u16;
/// `[\p{P}\p{S}]`.
const DS_PS: u16 = CL_PS as u16;
/// A char that starts an M match by itself: L, M, P, S or `\s`.
const DS_STARTS: u16 = (CL_L | CL_M | CL_PS | CL_S) as u16;
/// A char in these classes is not in A2's optional first class `[^\r\n\p{L}\p{P}\p{S}]`.
const DS_NOT_PREFIX: u16 = (CL_L | CL_PS | CL_NL) as u16;

/// True for the code points of K: U+4E00..=U+9FA5, U+3040..=U+309F and U+30A0..=U+30FF.
#[inline(always)]
fn is_ds_cjk(cp: u32) -> bool {
    (0x3040..=0x30FF).contains(&cp) || (0x4E00..=0x9FA5).contains(&cp)
}

/// Class flags and byte length of the char at `i`, seen from inside a K run (`IN_K`) or from
/// the text between: `WALL` alone for a char outside the segment, and `(WALL, 0)` at the end
/// of the text.
#[inline(always)]
fn ds_cls<const IN_K: bool>(t: &Tables, b: &[u8], i: usize) -> (u16, usize) {
    let Some(&c) = b.get(i) else { return (WALL, 0) };
    if c < 0x80 {
        if IN_K {
            return (WALL, 1);
        }
        let k = t.latin1[c as usize];
        return (if k & CL_N != 0 { WALL } else { k as u16 }, 1);
    }
    let (cp, l) = decode(b, i);
    let k = t.class(cp);
    let wall = if IN_K { !is_ds_cjk(cp) } else { k & CL_N != 0 || is_ds_cjk(cp) };
    (if wall { WALL } else { k as u16 }, l)
}

/// End of the run of chars from `i` that are in the segment and in one of `mask`'s classes.
#[inline(always)]
fn ds_run<const IN_K: bool>(t: &Tables, b: &[u8], mut i: usize, mask: u16) -> usize {
    loop {
        // ASCII letters are L and never walls outside K runs: the common case in one test.
        if !IN_K && mask & DS_LM != 0 {
            while i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1;
            }
        }
        let (k, l) = ds_cls::<IN_K>(t, b, i);
        if k & mask == 0 {
            return i;
        }
        i += l;
    }
}

fn deepseek_v3(t: &Tables, b: &[u8], pos: usize) -> usize {
    let c0 = b[pos];
    if c0 < 0x80 {
        // ASCII is never K. Fast paths of the text between: A1, and A2 on ASCII letters
        // (optionally after a space, A1 failing since a space is not in its first class).
        if c0.is_ascii_alphabetic() {
            return ds_run::<false>(t, b, pos + 1, DS_LM);
        }
        if b.get(pos + 1).is_some_and(u8::is_ascii_alphabetic) {
            if c0.is_ascii_punctuation() {
                return ascii_run_end::<ASCII_LETTER>(b, pos + 2);
            }
            if c0 == b' ' {
                return ds_run::<false>(t, b, pos + 2, DS_LM);
            }
        }
        if c0.is_ascii_digit() {
            return ds_digits(t, b, pos);
        }
        return ds_segment::<false>(t, b, pos);
    }
    let (cp, _) = decode(b, pos);
    if t.class(cp) & CL_N != 0 {
        ds_digits(t, b, pos)
    } else if is_ds_cjk(cp) {
        ds_segment::<true>(t, b, pos)
    } else {
        ds_segment::<false>(t, b, pos)
    }
}

/// D: end of the digit group (up to three N chars) starting at `pos`.
#[inline(always)]
fn ds_digits(t: &Tables, b: &[u8], pos: usize) -> usize {
    let mut e = pos;
    for _ in 0..3 {
        if e >= b.len() {
            break;
        }
        let (k, l) = cls(t, b, e);
        if k & CL_N == 0 {
            break;
        }
        e += l;
    }
    e
}

/// M's piece at `pos` inside a K run (`IN_K`) or the text between (the char at `pos` is in
/// the segment).
fn ds_segment<const IN_K: bool>(t: &Tables, b: &[u8], pos: usize) -> usize {
    let (k0, l0) = ds_cls::<IN_K>(t, b, pos);
    debug_assert!(k0 != WALL);
    let p1 = pos + l0;
    let (k1, l1) = ds_cls::<IN_K>(t, b, p1);
    // A1 (ASCII only, so never inside a K run).
    if !IN_K && b[pos].is_ascii_punctuation() && b.get(p1).is_some_and(u8::is_ascii_alphabetic) {
        return ascii_run_end::<ASCII_LETTER>(b, p1 + 1);
    }
    // A2: taking the optional char first. A char in L or M matches `[\p{L}\p{M}]+` itself
    // (an M char may also be the optional one: the same end either way).
    if k0 & DS_LM != 0 {
        return ds_run::<IN_K>(t, b, p1, DS_LM);
    }
    if k0 & DS_NOT_PREFIX == 0 && k1 & DS_LM != 0 {
        return ds_run::<IN_K>(t, b, p1 + l1, DS_LM);
    }
    // A3: nothing after the greedy runs can fail, so nothing is given back. A K run holds no
    // `\r`/`\n` (they end it).
    let ps = if b[pos] == b' ' && k1 & DS_PS != 0 {
        p1 + l1
    } else if k0 & DS_PS != 0 {
        p1
    } else {
        NONE
    };
    if ps != NONE {
        let e = ds_run::<IN_K>(t, b, ps, DS_PS);
        return if IN_K { e } else { run_nl(b, e) };
    }
    // A4-A6 (whitespace is never K, so only between K runs; nor N, so the run stays inside
    // the segment).
    if !IN_K && k0 & CL_S as u16 != 0 {
        let (r, last_nl, last) = ws_run(t, b, pos);
        if last_nl != NONE {
            // A4: `\s*` backs off to the last `\r`/`\n` of the run.
            return last_nl + 1;
        }
        if ds_cls::<IN_K>(t, b, r).0 == WALL {
            // A5 at the end of the segment: nothing follows, so `(?!\S)` holds.
            return r;
        }
        if last > pos {
            // A5: give back the last char of the run.
            return last;
        }
        // A6: a single whitespace char followed by a non-space.
        return r;
    }
    // No match starts at `pos` (a char in none of L, M, P, S, `\s`, not followed by L or M):
    // the piece runs to where the next match starts, or to the end of the segment.
    let (mut i, mut k, mut l) = (p1, k1, l1);
    loop {
        if k == WALL || k & DS_STARTS != 0 {
            return i;
        }
        let (kn, ln) = ds_cls::<IN_K>(t, b, i + l);
        if kn & DS_LM != 0 {
            // A2 with the char at `i` as its optional first char.
            return i;
        }
        (i, k, l) = (i + l, kn, ln);
    }
}

#[cfg(test)]
mod tests {
    use super::super::patterns::DEEPSEEK_V3_SPLITS;
    use super::super::Pretokenizer;
    use super::*;

    /// The specification of `DeepSeekV3`: the three `Isolated` splits run one after the other
    /// with `fancy_regex` (whose Unicode classes are the tables', and Oniguruma's, see the
    /// Python tests), each inside each piece of the one before.
    fn reference(text: &str) -> Vec<&str> {
        static RES: std::sync::OnceLock<Vec<fancy_regex::Regex>> = std::sync::OnceLock::new();
        let res = RES.get_or_init(|| DEEPSEEK_V3_SPLITS.iter().map(|p| fancy_regex::Regex::new(p).unwrap()).collect());
        let mut pieces = vec![(0, text.len())];
        for re in res {
            let mut next = Vec::new();
            for (s, e) in pieces {
                let mut prev = s;
                for m in re.find_iter(&text[s..e]) {
                    let m = m.unwrap();
                    let (ms, me) = (s + m.start(), s + m.end());
                    if ms > prev {
                        next.push((prev, ms));
                    }
                    if me > ms {
                        next.push((ms, me));
                    }
                    prev = me;
                }
                if e > prev {
                    next.push((prev, e));
                }
            }
            pieces = next;
        }
        pieces.into_iter().map(|(s, e)| &text[s..e]).collect()
    }

    fn pieces(text: &str) -> Vec<&str> {
        let p = Pretokenizer::Fast(KnownPattern::DeepSeekV3);
        p.split(text).unwrap().into_iter().map(|(s, e)| &text[s..e]).collect()
    }

    #[test]
    fn deepseek_v3_expected_pieces() {
        let cases: &[(&str, &[&str])] = &[
            ("", &[]),
            ("Hello world", &["Hello", " world"]),
            ("Hello  world ", &["Hello", " ", " world", " "]),
            ("I'm don't 'S", &["I", "'m", " don", "'t", " '", "S"]),
            ("$Hello (x) -Wörter a-Wörter", &["$Hello", " (", "x", ")", " -", "Wörter", " a", "-W", "örter"]),
            ("1234567 x12y", &["123", "456", "7", " x", "12", "y"]),
            ("３.１４１５", &["３", ".", "１４１", "５"]),
            ("²①Ⅳ٣𝟙x", &["²①Ⅳ", "٣𝟙", "x"]),
            ("日本語のテキストです。東京", &["日本語のテキストです", "。", "東京"]),
            ("ア・イ゛ー", &["ア", "・", "イ", "゛", "ー"]),
            ("中文abc中", &["中文", "abc", "中"]),
            ("abc 中", &["abc", " ", "中"]),
            ("한국어 텍스트", &["한국어", " 텍스트"]),
            ("龥龦", &["龥", "龦"]),
            ("\u{3040}\u{3041}\u{3097}", &["\u{3040}\u{3041}", "\u{3097}"]),
            ("e\u{301} \u{301}a", &["e\u{301}", " \u{301}a"]),
            ("\u{0}\u{0}nul\u{0}", &["\u{0}", "\u{0}nul", "\u{0}"]),
            ("a\u{200d}\u{200d}\u{e000}", &["a", "\u{200d}\u{200d}\u{e000}"]),
            ("line\r\n\r\n  next\n", &["line", "\r\n\r\n", " ", " next", "\n"]),
            ("x  \n\t y", &["x", "  \n", "\t", " y"]),
            ("...!\n\nok", &["...!\n\n", "ok"]),
            (" ?? \u{a0}word\u{3000}", &[" ??", " ", "\u{a0}word", "\u{3000}"]),
            ("😀👍🏽 hi", &["😀👍🏽", " hi"]),
            ("a 1", &["a", " ", "1"]),
            ("\u{2028}x\u{85}", &["\u{2028}x", "\u{85}"]),
        ];
        for (text, want) in cases {
            assert_eq!(reference(text), *want, "reference on {text:?}");
            assert_eq!(pieces(text), *want, "matcher on {text:?}");
        }
    }

    /// Characters from every class the splits look at, and their boundaries: letters (ASCII,
    /// Latin-1, Hangul, CJK in and just outside the ranges, kana, Lm), marks (Mn, Mc, Me, in
    /// and outside kana), numbers (Nd, Nl, No; ASCII, fullwidth, 4-byte), punctuation and
    /// symbols (ASCII, kana ones, emoji), whitespace (including NEL, NBSP, U+2028, ideographic
    /// space), controls, format chars, private use and unassigned code points.
    const POOL: &[char] = &[
        'a',
        'Z',
        'q',
        'é',
        'ß',
        'Ж',
        '한',
        'ǅ',
        'ʰ',
        '一',
        '龥',
        '\u{9FA6}',
        '\u{4DFF}',
        '〇',
        '々',
        'ぁ',
        'ア',
        'ー',
        'ゝ',
        'ヿ',
        'ゟ',
        '\u{3040}',
        '\u{3097}',
        '\u{3099}',
        '\u{309B}',
        '゠',
        '・',
        '\u{3100}',
        '\u{303F}',
        '\u{301}',
        '\u{93F}',
        '\u{20DD}',
        '0',
        '7',
        '９',
        '²',
        '①',
        'Ⅳ',
        '٣',
        '𝟙',
        '!',
        '\'',
        '-',
        '.',
        '$',
        '^',
        '`',
        '~',
        '\\',
        '[',
        ']',
        '。',
        '「',
        '！',
        '€',
        '😀',
        '\u{1F3FD}',
        ' ',
        ' ',
        ' ',
        '\t',
        '\r',
        '\n',
        '\u{b}',
        '\u{85}',
        '\u{a0}',
        '\u{2028}',
        '\u{2029}',
        '\u{3000}',
        '\u{0}',
        '\u{1c}',
        '\u{200b}',
        '\u{200d}',
        '\u{feff}',
        '\u{e000}',
        '\u{378}',
        '\u{10FFFF}',
    ];

    #[test]
    fn deepseek_v3_matches_the_three_splits_on_random_text() {
        let mut next = crate::testing::xorshift(0x9E37_79B9_7F4A_7C15);
        let n = if cfg!(debug_assertions) { 20_000 } else { 200_000 };
        for _ in 0..n {
            let len = (next() % 24) as usize;
            // Runs of one char now and then, so digit runs and whitespace runs get long.
            let mut text = String::new();
            while text.chars().count() < len {
                let c = POOL[(next() % POOL.len() as u64) as usize];
                for _ in 0..if next().is_multiple_of(5) { 1 + next() % 5 } else { 1 } {
                    text.push(c);
                }
            }
            let whole = pieces(&text);
            assert_eq!(whole, reference(&text), "{text:?}");
            // `cuts`' rule B (an ASCII letter, then a space, tab, CR or LF) holds here too: the
            // parallel encoder may cut there.
            let b = text.as_bytes();
            for i in 1..b.len() {
                if b[i - 1].is_ascii_alphabetic() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
                    let mut parts = pieces(&text[..i]);
                    parts.extend(pieces(&text[i..]));
                    assert_eq!(parts, whole, "{text:?} cut at {i}");
                }
            }
        }
    }

    #[test]
    fn deepseek_v3_is_no_single_pattern() {
        for p in DEEPSEEK_V3_SPLITS {
            assert_eq!(KnownPattern::from_pattern(p), None);
        }
        assert_eq!(KnownPattern::DeepSeekV3.name(), "deepseek_v3");
        for k in KnownPattern::ALL {
            assert_eq!(KnownPattern::from_name(k.name()), Some(k));
        }
        assert_eq!(KnownPattern::from_name("regex"), None);
    }

    /// The pieces of `text` by the block path compiled for SSE2 (what a CPU without AVX-512BW
    /// runs), whatever this CPU has.
    #[cfg(target_arch = "x86_64")]
    fn pieces_sse2(kind: KnownPattern, text: &str) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        pieces_with_blocks::<false, false, _>(kind, tables(), text, &mut FnSink(|s, e| v.push((s, e))));
        v
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_sse2_avx512_and_vbmi_piece_loops_give_the_same_pieces() {
        // Mostly plain ASCII (the block path's bytes), with now and then a byte that ends a
        // block early or a two-byte character (a letter of either case, or not a cased
        // letter); long enough for many blocks per text.
        const ALPHABET: &[&str] = &[
            "a", "b", "Z", "e", "T", " ", " ", "  ", "\n", "\r\n", ".", ",", "'", "'s", "'LL", "/", "0", "12345", "\t",
            "é", "中", "-", "(", "\u{a0}", "É", "ж", "Ω", "ſ", "ǅ", "ª", "«", "\u{301}", "の", "、", "中AB", "א",
            "\u{64b}", "\u{ff21}", "\t\t",
        ];
        let mut next = crate::testing::xorshift(0x2545_F491_4F6C_DD1D);
        let n = if cfg!(debug_assertions) { 300 } else { 3000 };
        let (avx512, vbmi) = (has_avx512(), has_avx512() && has_vbmi());
        for _ in 0..n {
            let len = (next() % 400) as usize;
            let text: String = (0..len).map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize]).collect();
            for kind in [
                KnownPattern::R50k,
                KnownPattern::Cl100k,
                KnownPattern::O200k,
                KnownPattern::Llama3,
                KnownPattern::Qwen2,
            ] {
                let want = pieces_sse2(kind, &text);
                let mut got = Vec::new();
                kind.for_each_piece(&text, |s, e| got.push((s, e)));
                assert_eq!(got, want, "{kind:?} on {text:?} (AVX-512: {avx512}, VBMI: {vbmi})");
                if vbmi {
                    // The AVX-512 loop without VBMI, which the dispatch above passed over.
                    got.clear();
                    // SAFETY: the CPU has AVX-512BW and the rest (`has_avx512`).
                    unsafe { pieces_blocks_avx512(kind, tables(), &text, &mut FnSink(|s, e| got.push((s, e)))) };
                    assert_eq!(got, want, "{kind:?} on {text:?} (AVX-512 without VBMI)");
                }
            }
        }
    }
}
