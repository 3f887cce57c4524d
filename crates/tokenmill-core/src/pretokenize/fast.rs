//! Hand-written pre-tokenizers for the known OpenAI patterns, and for the split patterns of
//! common Hugging Face byte-level BPE files (Llama 3, Qwen2), which are cl100k's with a
//! different whitespace tail (and one digit per piece for Qwen2).
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
//! `L`, `N` and `S` are disjoint; `U ∪ W = L ∪ \p{M}`; `P ∩ (U ∪ W) = \p{M}`.
//!
//! What it does not do: follow Oniguruma (the engine Hugging Face `tokenizers` runs these
//! patterns with) where it differs from `fancy_regex`; the contract is `fancy_regex`'s pieces.

use super::patterns::{
    CL100K_HF_PAT, CL100K_PAT, GPT2_ORIGINAL_PAT, LLAMA3_PAT, O200K_PAT, QWEN2_PAT, R50K_HF_PAT, R50K_PAT,
};
use super::unicode::{tables, Tables, CL_L, CL_N, CL_NL, CL_S, CL_U, CL_W};

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

    /// Short name of the matcher: `"r50k"`, `"cl100k"`, `"o200k"`, `"llama3"` or `"qwen2"`.
    pub fn name(self) -> &'static str {
        match self {
            KnownPattern::R50k => "r50k",
            KnownPattern::Cl100k => "cl100k",
            KnownPattern::O200k => "o200k",
            KnownPattern::Llama3 => "llama3",
            KnownPattern::Qwen2 => "qwen2",
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

/// End of the run of chars starting at `i` whose flags intersect `mask` (`NEG=false`) or are
/// disjoint from it (`NEG=true`).
#[inline(always)]
fn run<const NEG: bool>(t: &Tables, b: &[u8], mut i: usize, mask: u8) -> usize {
    let n = b.len();
    while i < n {
        let c = b[i];
        let (k, l) = if c < 0x80 {
            (t.latin1[c as usize], 1)
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
        if c < 0x80 {
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

fn r50k(t: &Tables, b: &[u8], pos: usize) -> usize {
    let n = b.len();
    let c0 = b[pos];
    // Fast path: ASCII letters with an optional leading space (most of English prose).
    if c0 == b' ' {
        if let Some(&c1) = b.get(pos + 1) {
            if c1.is_ascii_alphabetic() {
                return run_in(t, b, pos + 2, CL_L);
            }
        }
    } else if c0.is_ascii_alphabetic() {
        return run_in(t, b, pos + 1, CL_L);
    }

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
            return run_in(t, b, pos + 1 + l1, CL_L);
        }
        if k1 & CL_N != 0 {
            return run_in(t, b, pos + 1 + l1, CL_N);
        }
        if k1 & SLN == 0 {
            return run_not(t, b, pos + 1 + l1, SLN);
        }
    }
    if k0 & CL_L != 0 {
        return run_in(t, b, pos + l0, CL_L);
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
fn cl100k_like<const HF_WS: bool, const ONE_DIGIT: bool>(t: &Tables, b: &[u8], pos: usize) -> usize {
    let n = b.len();
    let c0 = b[pos];
    // Fast path: ASCII letters, optionally after a space (alternative 2 either way: the space
    // is a P char and cannot start alternative 1).
    if c0.is_ascii_alphabetic() {
        return run_in(t, b, pos + 1, CL_L);
    }
    if c0 == b' ' && pos + 1 < n && b[pos + 1].is_ascii_alphabetic() {
        return run_in(t, b, pos + 2, CL_L);
    }

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
        return run_in(t, b, p1, CL_L);
    }
    if k0 & LNNL == 0 && k1 & CL_L != 0 {
        return run_in(t, b, p1 + l1, CL_L);
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

fn o200k(t: &Tables, b: &[u8], pos: usize) -> usize {
    let n = b.len();
    let c0 = b[pos];
    // Fast path: an ASCII lowercase run, optionally after one ASCII P char (space,
    // punctuation...), and followed by the end or an ASCII char (which is then not a
    // lowercase letter, so not in W). Then A1 matches with U* empty and W+ the lowercase run
    // (taking the P char, if any, is tried first and succeeds).
    {
        let s = if c0.is_ascii_lowercase() {
            pos
        } else if c0 < 0x80 && t.latin1[c0 as usize] & LNNL == 0 && pos + 1 < n && b[pos + 1].is_ascii_lowercase() {
            pos + 1
        } else {
            NONE
        };
        if s != NONE {
            let mut i = s + 1;
            while i < n && b[i].is_ascii_lowercase() {
                i += 1;
            }
            if i >= n || b[i] < 0x80 {
                return opt_contraction(b, i);
            }
        }
    }

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
