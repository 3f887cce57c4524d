//! Where a text may be cut without changing its pre-tokens: the one copy of the cut rules.
//!
//! Used to split large texts for parallel encoding and counting (`safe_cuts`, byte offsets)
//! and by the Python corpus reader to cut its blocks (`cut_points`, `last_cut`, `next_cut`, in
//! character offsets through `CharText`, because Python indexes `str` by code point).
//! `last_cut` and `next_cut` read their text through `Windows`, a window at a time from where
//! the search starts (4096 characters, then doubling), so that the binding converts only the
//! part of a Python `str` it searches.
//!
//! Cutting at point `i` of text `t` (before `t[i]`) is safe when the pre-tokens of `t[..i]`
//! and `t[i..]` together are those of `t`, for the known patterns (r50k/p50k, cl100k, o200k).
//! Two kinds of points qualify:
//!
//! - **Rule B**: `t[i-1]` is an ASCII letter and `t[i]` is one of `' '`, `'\t'`, `'\r'`, `'\n'`.
//!   Every known pattern puts an ASCII letter only in a letter run (or an `'s`-style
//!   contraction) that stops at whitespace, so a pre-token ends at `i`; and the pre-tokens
//!   before `i` are unchanged when the text ends there, because the only constructs that look
//!   past a match (`\s++$`, `\s+(?!\S)`) apply to whitespace runs, and none ends at `i`.
//! - **Rule A**: `t[i-1] == '\n'`, `t[i-2]` is not whitespace and `t[i]` is a letter. No known
//!   pattern joins a newline with a following letter (o200k's `[\r\n/]*` stops at it), so a
//!   pre-token ends at `i`; the `'\n'` is a pre-token of its own or ends a punctuation
//!   pre-token, identically whether or not the text ends there. (Without the condition on
//!   `t[i-2]` this fails for r50k: `"a  \nb"` splits as `"  ", "\n"` but `"a  \n"` as `"  \n"`.)
//!
//! Whitespace and letter are deliberately the pre-tokenizer's own classes (`\s` = Unicode
//! `White_Space`, letter = `\p{L}`, from the tables in `unicode` that the hand-written matchers
//! use): a cut is safe relative to the classes the pre-tokenizer itself applies, so no other
//! definition may creep in (Python's `str.isspace`, for one, also counts U+001C..U+001F).
//!
//! The `Line` mode is for custom patterns, whose pieces may span anything but rarely a line
//! break: rule A points, else right after a line break (which can split a whitespace run that
//! holds one; the measurements are in a comment in `python/tokenmill/data/chunks.py`).
//!
//! What it does not do: decide whether a pattern is cuttable (the caller knows its pattern),
//! or look for special tokens (those of the standard encodings hold no whitespace, so none
//! spans a point).

use super::unicode::{tables, CL_L, CL_S};
use crate::error::CoreError;
use crate::offsets::{starts_char, CharText};
use crate::utf8::Units;

/// Cut points (starting with 0, ending with `text.len()`) that split `text` into about
/// `n_parts` parts whose pre-tokens, for the three known patterns, are exactly those of the
/// whole text: rule B points only (between an ASCII letter and a following space, tab, CR or
/// LF), which real text has near every target. Parts without such a point stay whole.
pub fn safe_cuts(text: &str, n_parts: usize) -> Vec<usize> {
    let b = text.as_bytes();
    cuts_where(b.len(), n_parts, |i| rule_b(b, i))
}

/// `safe_cuts` of a text given as code units (a Python `str`'s own storage): the cut points
/// are unit indices, at the same characters (rule B looks at ASCII characters only, one unit
/// and one byte each).
pub fn safe_cuts_units(units: Units<'_>, n_parts: usize) -> Vec<usize> {
    cuts_where(units.len(), n_parts, |p| rule_b_units(units, p))
}

/// The first cut point of `safe_cuts_units`' kind in units `from..from + len` of `units`, if
/// any. Why a bounded window: text with no such point (a run of random letters) was scanned
/// whole, a mispredicted branch every few units.
pub fn safe_cut_units_in(units: Units<'_>, from: usize, len: usize) -> Option<usize> {
    (from..from.saturating_add(len).min(units.len())).find(|&p| rule_b_units(units, p))
}

/// Rule B at unit `p` of `units`.
#[inline]
fn rule_b_units(units: Units<'_>, p: usize) -> bool {
    let ascii_letter = |u: u32| u < 0x80 && (u as u8).is_ascii_alphabetic();
    p > 0 && p < units.len() && ascii_letter(units.at(p - 1)) && matches!(units.at(p), 0x20 | 0x09 | 0x0d | 0x0a)
}

/// The first point where `rule` holds after each of `n_parts - 1` evenly spaced targets in
/// `0..len` (none for a part without one), between 0 and `len`.
fn cuts_where(len: usize, n_parts: usize, rule: impl Fn(usize) -> bool) -> Vec<usize> {
    let n_parts = n_parts.max(1);
    let mut cuts = vec![0usize];
    for k in 1..n_parts {
        let target = (k * len / n_parts).max(cuts[cuts.len() - 1] + 1);
        let limit = ((k + 1) * len / n_parts).min(len);
        if let Some(c) = (target.max(1)..limit).find(|&i| rule(i)) {
            cuts.push(c);
        }
    }
    cuts.push(len);
    cuts
}

/// Rule B at byte `p` of `b`.
#[inline]
fn rule_b(b: &[u8], p: usize) -> bool {
    p > 0 && p < b.len() && b[p - 1].is_ascii_alphabetic() && matches!(b[p], b' ' | b'\t' | b'\r' | b'\n')
}

/// Rule A at byte `p` of `text`.
#[inline]
fn rule_a(text: &str, p: usize) -> bool {
    let b = text.as_bytes();
    if p < 2 || p >= b.len() || b[p - 1] != b'\n' {
        return false;
    }
    // `p - 1` holds an ASCII byte, so both slices start or end on a character boundary.
    let before = text.get(..p - 1).and_then(|s| s.chars().next_back());
    let at = text.get(p..).and_then(|s| s.chars().next());
    match (before, at) {
        (Some(x), Some(y)) => {
            let t = tables();
            t.class(x as u32) & CL_S == 0 && t.class(y as u32) & CL_L != 0
        }
        _ => false,
    }
}

/// True when byte offset `p` of `text` is a rule A point (`CutMode::Line`'s first choice).
#[inline]
pub fn is_line_point(text: &str, p: usize) -> bool {
    rule_a(text, p)
}

/// True when byte offset `p` of `text` is a rule A or rule B point.
#[inline]
pub fn is_cut_point(text: &str, p: usize) -> bool {
    rule_b(text.as_bytes(), p) || rule_a(text, p)
}

/// Which points `last_cut` and `next_cut` look for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutMode {
    /// Rule A or B points: exact for the known patterns.
    Safe,
    /// For custom patterns: rule A points, else right after a line break (see the module doc).
    Line,
}

impl CutMode {
    /// `"safe"` or `"line"`; anything else is an `Input` error naming both.
    pub fn parse(mode: &str) -> Result<Self, CoreError> {
        match mode {
            "safe" => Ok(CutMode::Safe),
            "line" => Ok(CutMode::Line),
            _ => Err(CoreError::Input(format!("mode must be \"safe\" or \"line\", not {mode:?}"))),
        }
    }
}

/// Start of the character before byte `p` (`0 < p <= b.len()`).
#[inline]
fn prev_start(b: &[u8], mut p: usize) -> usize {
    p -= 1;
    while p > 0 && !starts_char(b[p]) {
        p -= 1;
    }
    p
}

/// Start of the character after the one at byte `p` (`p < b.len()`).
#[inline]
fn next_start(b: &[u8], mut p: usize) -> usize {
    p += 1;
    while p < b.len() && !starts_char(b[p]) {
        p += 1;
    }
    p
}

/// Every rule A or B point `i` with `start <= i < end` (character offsets, `end` clamped to
/// the text), ascending. Characters outside `start..end` are not looked at, except the two
/// before `start`.
pub fn cut_points(text: CharText<'_>, start: usize, end: usize) -> Vec<usize> {
    let (s, b) = (text.text(), text.text().as_bytes());
    let end = end.min(text.len());
    let mut out = Vec::new();
    if start >= end {
        return out;
    }
    let (mut i, mut p) = (start, text.byte_of(start));
    while i < end && p < b.len() {
        if is_cut_point(s, p) {
            out.push(i);
        }
        p = next_start(b, p);
        i += 1;
    }
    out
}

/// Which rules `last_point` accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rules {
    /// Rule A or rule B.
    AOrB,
    /// Rule A alone.
    A,
}

/// The largest point of `rules` in `lo..hi` (character offsets, `hi` clamped to the text), or
/// `None`. Scans backwards from `hi` and stops at the first hit (points are dense in real
/// text); only the scanned range is converted between bytes and characters.
fn last_point(text: CharText<'_>, lo: usize, hi: usize, rules: Rules) -> Option<usize> {
    let (s, b) = (text.text(), text.text().as_bytes());
    let hi = hi.min(text.len());
    let (mut i, mut p) = (hi, text.byte_of(hi));
    while i > lo && p > 0 {
        p = prev_start(b, p);
        i -= 1;
        let hit = match rules {
            Rules::AOrB => is_cut_point(s, p),
            Rules::A => rule_a(s, p),
        };
        if hit {
            return Some(i);
        }
    }
    None
}

/// The largest `i` in `max(lo, 1)..hi` with `t[i-1] == '\n'` (right after a line break), or
/// `None`; a backward scan like `last_point`.
fn last_after_line_break(text: CharText<'_>, lo: usize, hi: usize) -> Option<usize> {
    let b = text.text().as_bytes();
    let hi = hi.min(text.len());
    let (mut i, mut p) = (hi, text.byte_of(hi));
    while i > lo.max(1) && p > 0 {
        p = prev_start(b, p);
        i -= 1;
        if p > 0 && b[p - 1] == b'\n' {
            return Some(i);
        }
    }
    None
}

/// The smallest point `>= start` of one window (a character offset), or `None`: `next_cut`
/// without the windows.
fn first_cut(text: CharText<'_>, start: usize, mode: CutMode) -> Option<usize> {
    let (s, b) = (text.text(), text.text().as_bytes());
    match mode {
        CutMode::Safe => {
            let (mut i, mut p) = (start.min(text.len()), text.byte_of(start));
            while p < b.len() {
                if is_cut_point(s, p) {
                    return Some(i);
                }
                p = next_start(b, p);
                i += 1;
            }
            None
        }
        CutMode::Line => {
            let from = start.saturating_sub(1).min(text.len());
            let pf = text.byte_of(from);
            // `'\n'` is one byte, so "not the last character" is "before the last byte".
            let q = pf + b.get(pf..b.len().saturating_sub(1))?.iter().position(|&x| x == b'\n')?;
            Some(from + text.chars_between(pf, q) + 1)
        }
    }
}

/// Characters in the first window that `last_cut` and `next_cut` read; each further window is
/// twice as long.
pub const FIRST_WINDOW: usize = 4096;
/// Characters before a window that the rules look at (rule A reads `t[i-2]`).
pub const CONTEXT: usize = 2;

/// A text that `last_cut` and `next_cut` read in windows, so that a caller whose text is not
/// UTF-8 in memory (the binding, over a Python `str`) converts only the windows read: the work
/// is proportional to the distance to the answer, not to the text. A `CharText` is one.
pub trait Windows {
    /// What reading a window can fail with.
    type Error;

    /// Length of the text in characters.
    fn char_len(&self) -> usize;

    /// Calls `f` on characters `a..b` of the text (`a <= b <= char_len()`), given as a
    /// `CharText` of length `b - a`, and returns its result. `f` and its result are `Send`, so
    /// the implementation may run `f` elsewhere (the binding runs it without the GIL).
    fn with_window<R: Send>(
        &self,
        a: usize,
        b: usize,
        f: impl FnOnce(CharText<'_>) -> R + Send,
    ) -> Result<R, Self::Error>;
}

impl Windows for CharText<'_> {
    type Error = std::convert::Infallible;

    fn char_len(&self) -> usize {
        self.len()
    }

    fn with_window<R: Send>(
        &self,
        a: usize,
        b: usize,
        f: impl FnOnce(CharText<'_>) -> R + Send,
    ) -> Result<R, Self::Error> {
        // `min`: a `CharText` with a wrong length may give unordered offsets; never panic.
        let pb = self.byte_of(b);
        let pa = self.byte_of(a).min(pb);
        Ok(f(CharText::with_len(&self.text()[pa..pb], b - a)))
    }
}

/// Runs `find(window, lo, hi)` on windows covering `lo..hi` from `hi` backwards (`first`
/// characters, then doubling; window offsets), until one returns a point; the point as an
/// offset in the whole text. Each window starts `CONTEXT` characters early.
fn search_back<W: Windows + ?Sized>(
    text: &W,
    lo: usize,
    hi: usize,
    first: usize,
    find: impl Fn(CharText<'_>, usize, usize) -> Option<usize> + Sync,
) -> Result<Option<usize>, W::Error> {
    let (mut b, mut width) = (hi.min(text.char_len()), first);
    while b > lo {
        let a = b.saturating_sub(width).max(lo);
        let c = a.saturating_sub(CONTEXT);
        let find = &find;
        if let Some(i) = text.with_window(c, b, move |w| find(w, a - c, b - c))? {
            return Ok(Some(i + c));
        }
        (b, width) = (a, width.saturating_mul(2));
    }
    Ok(None)
}

/// Runs `find(window, start)` on windows covering `start..len` from `start` forwards (`first`
/// characters, then doubling), until one returns a point; the point as an offset in the whole
/// text. Each window starts `CONTEXT` characters early.
fn search_forward<W: Windows + ?Sized>(
    text: &W,
    start: usize,
    first: usize,
    find: impl Fn(CharText<'_>, usize) -> Option<usize> + Sync,
) -> Result<Option<usize>, W::Error> {
    let (len, mut a, mut width) = (text.char_len(), start, first);
    while a < len {
        let b = a.saturating_add(width).min(len);
        let c = a.saturating_sub(CONTEXT);
        let find = &find;
        if let Some(i) = text.with_window(c, b, move |w| find(w, a - c))? {
            return Ok(Some(i + c));
        }
        (a, width) = (b, width.saturating_mul(2));
    }
    Ok(None)
}

/// The largest cut point in `lo..hi` (character offsets, `hi` clamped to the text), or `None`.
///
/// `Safe`: a rule A or B point. `Line`: a rule A point; if there is none, `j + 1` for the
/// largest `j` with `max(lo - 1, 0) <= j < hi - 1` and `t[j] == '\n'`.
///
/// Reads `text` in windows from `hi` backwards (`FIRST_WINDOW` characters, then doubling) and
/// stops at the first window with an answer. In `Line` mode a range without rule A points is
/// read twice: once for them, then for the line breaks.
pub fn last_cut<W: Windows + ?Sized>(text: &W, lo: usize, hi: usize, mode: CutMode) -> Result<Option<usize>, W::Error> {
    last_cut_windows(text, lo, hi, mode, FIRST_WINDOW)
}

fn last_cut_windows<W: Windows + ?Sized>(
    text: &W,
    lo: usize,
    hi: usize,
    mode: CutMode,
    first: usize,
) -> Result<Option<usize>, W::Error> {
    match mode {
        CutMode::Safe => search_back(text, lo, hi, first, |w, a, b| last_point(w, a, b, Rules::AOrB)),
        // Rule A anywhere in the range beats any line break, so the fallback is a second pass.
        CutMode::Line => match search_back(text, lo, hi, first, |w, a, b| last_point(w, a, b, Rules::A))? {
            Some(i) => Ok(Some(i)),
            None => search_back(text, lo, hi, first, last_after_line_break),
        },
    }
}

/// The smallest point `>= start` (a character offset), or `None`.
///
/// `Safe`: a rule A or B point. `Line`: `j + 1` for the smallest `j` with
/// `max(start - 1, 0) <= j < len - 1` and `t[j] == '\n'` (any line break, rule A or not).
///
/// Reads `text` in windows from `start` forwards, like `last_cut`.
pub fn next_cut<W: Windows + ?Sized>(text: &W, start: usize, mode: CutMode) -> Result<Option<usize>, W::Error> {
    next_cut_windows(text, start, mode, FIRST_WINDOW)
}

fn next_cut_windows<W: Windows + ?Sized>(
    text: &W,
    start: usize,
    mode: CutMode,
    first: usize,
) -> Result<Option<usize>, W::Error> {
    // A window that ends before the text does has a last character that is not the text's,
    // so a line break there is not reported; but the next window starts one character before
    // that line break (`j >= start - 1`), so none is missed.
    search_forward(text, start, first, |w, a| first_cut(w, a, mode))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pretokenize::unicode::class_of;

    // The specification, on a vector of chars: a direct transcription of the doc comments.
    fn ws(c: char) -> bool {
        class_of(c) & CL_S != 0
    }
    fn letter(c: char) -> bool {
        class_of(c) & CL_L != 0
    }
    fn spec_a(t: &[char], i: usize) -> bool {
        i >= 2 && i < t.len() && t[i - 1] == '\n' && !ws(t[i - 2]) && letter(t[i])
    }
    fn spec_b(t: &[char], i: usize) -> bool {
        i > 0 && i < t.len() && t[i - 1].is_ascii_alphabetic() && matches!(t[i], ' ' | '\t' | '\r' | '\n')
    }
    fn spec_points(t: &[char], start: usize, end: usize) -> Vec<usize> {
        (start..end.min(t.len())).filter(|&i| spec_a(t, i) || spec_b(t, i)).collect()
    }
    fn spec_last(t: &[char], lo: usize, hi: usize, mode: CutMode) -> Option<usize> {
        let hi = hi.min(t.len());
        match mode {
            CutMode::Safe => spec_points(t, lo, hi).pop(),
            CutMode::Line => (lo..hi)
                .rev()
                .find(|&i| spec_a(t, i))
                .or_else(|| (lo.saturating_sub(1)..hi.saturating_sub(1)).rev().find(|&j| t[j] == '\n').map(|j| j + 1)),
        }
    }
    fn spec_next(t: &[char], start: usize, mode: CutMode) -> Option<usize> {
        match mode {
            CutMode::Safe => spec_points(t, start, t.len()).first().copied(),
            CutMode::Line => {
                (start.saturating_sub(1)..t.len().saturating_sub(1)).find(|&j| t[j] == '\n').map(|j| j + 1)
            }
        }
    }

    fn rng(state: &mut u64) -> usize {
        crate::testing::xorshift_step(state) as usize
    }

    #[test]
    fn matches_the_specification_on_random_text() {
        // ASCII-only texts exercise the fast path; the others every width of UTF-8, marks,
        // and the code points where Python's classes differ from the pre-tokenizer's.
        let ascii: Vec<char> = "aZq \t\r\n\n1.'-".chars().collect();
        let mixed: Vec<char> = "aZ \t\r\n\n1.éж中\u{301}😀\u{a0}\u{1c}\u{2028}\u{1c5}\u{85}".chars().collect();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..20_000 {
            let alphabet = if round % 2 == 0 { &ascii } else { &mixed };
            let len = rng(&mut state) % 24;
            let t: Vec<char> = (0..len).map(|_| alphabet[rng(&mut state) % alphabet.len()]).collect();
            let s: String = t.iter().collect();
            let ct = CharText::new(&s);
            assert_eq!(ct.len(), t.len());
            let r = |state: &mut u64| rng(state) % (len + 3);
            let (a, z) = (r(&mut state), r(&mut state));
            assert_eq!(cut_points(ct, a, z), spec_points(&t, a, z), "{s:?} {a}..{z}");
            assert_eq!(cut_points(ct, 0, usize::MAX), spec_points(&t, 0, len), "{s:?}");
            let zc = z.min(len);
            assert_eq!(last_point(ct, a, z, Rules::A), (a..zc).rev().find(|&i| spec_a(&t, i)), "{s:?} {a}..{z}");
            assert_eq!(
                last_after_line_break(ct, a, z),
                (a.max(1)..zc).rev().find(|&i| t[i - 1] == '\n'),
                "{s:?} {a}..{z}"
            );
            for mode in [CutMode::Safe, CutMode::Line] {
                assert_eq!(first_cut(ct, a, mode), spec_next(&t, a, mode), "{s:?} {a} {mode:?}");
                // One window (these texts are short), then windows small enough to put their
                // edges everywhere.
                for first in [FIRST_WINDOW, 1, 2, 3, 5] {
                    let Ok(last) = last_cut_windows(&ct, a, z, mode, first);
                    assert_eq!(last, spec_last(&t, a, z, mode), "{s:?} {a}..{z} {mode:?} {first}");
                    let Ok(next) = next_cut_windows(&ct, a, mode, first);
                    assert_eq!(next, spec_next(&t, a, mode), "{s:?} {a} {mode:?} {first}");
                }
            }
        }
    }

    fn last(text: &str, lo: usize, hi: usize, mode: CutMode) -> Option<usize> {
        let Ok(found) = last_cut(&CharText::new(text), lo, hi, mode);
        found
    }

    fn next(text: &str, start: usize, mode: CutMode) -> Option<usize> {
        let Ok(found) = next_cut(&CharText::new(text), start, mode);
        found
    }

    #[test]
    fn documented_examples() {
        let ct = CharText::new;
        assert_eq!(cut_points(ct("one two\nThree"), 0, usize::MAX), vec![3, 7, 8]);
        assert_eq!(last("hello world", 0, 11, CutMode::Safe), Some(5));
        assert_eq!(last("line one.\nLine two", 0, 18, CutMode::Safe), Some(14));
        assert_eq!(last("   \n\n  ", 0, 7, CutMode::Safe), None);
        // Rule A needs a non-space before the line break ...
        assert_eq!(cut_points(ct("a.\nb"), 0, 4), vec![3]);
        assert_eq!(cut_points(ct("a \nb"), 0, 4), vec![1]);
        // ... in the pre-tokenizer's sense: U+001C is not White_Space (Python says it is).
        assert_eq!(cut_points(ct("\u{1c}\nb"), 0, 3), vec![2]);
        assert_eq!(cut_points(ct("\u{a0}\nb"), 0, 3), Vec::<usize>::new());
        // Line mode: rule A first, else after the last line break; never at the very end.
        assert_eq!(last("x\n  y\nb  ", 0, 9, CutMode::Line), Some(6));
        assert_eq!(last("  \n  \n  ", 0, 8, CutMode::Line), Some(6));
        assert_eq!(last("ab\n", 0, 3, CutMode::Line), None);
        assert_eq!(next("ab\n\n", 0, CutMode::Line), Some(3));
        assert_eq!(next("ab\n", 0, CutMode::Line), None);
        // Character offsets, not bytes.
        assert_eq!(cut_points(ct("中é 😀x\ny"), 0, 9), vec![5, 6]);
        assert_eq!(next("中é\n\n", 0, CutMode::Line), Some(3));
        assert_eq!(CutMode::parse("safe"), Ok(CutMode::Safe));
        assert!(matches!(CutMode::parse("lines"), Err(CoreError::Input(m)) if m.contains("\"safe\" or \"line\"")));
    }

    /// A text that counts the characters of the windows read from it.
    struct Counting<'t> {
        text: CharText<'t>,
        read: std::cell::Cell<usize>,
    }

    impl Windows for Counting<'_> {
        type Error = std::convert::Infallible;

        fn char_len(&self) -> usize {
            self.text.len()
        }

        fn with_window<R: Send>(
            &self,
            a: usize,
            b: usize,
            f: impl FnOnce(CharText<'_>) -> R + Send,
        ) -> Result<R, Self::Error> {
            self.read.set(self.read.get() + (b - a));
            self.text.with_window(a, b, f)
        }
    }

    #[test]
    fn searches_read_in_proportion_to_the_distance() {
        for (far, near) in [(100_000, 5), (100_000, 10_000), (5, 100_000)] {
            // The only point, in either mode: rule A after the line break.
            let s = format!("{}.\nb{}", "1".repeat(far), "1".repeat(near));
            let text = Counting { text: CharText::new(&s), read: 0.into() };
            for mode in [CutMode::Safe, CutMode::Line] {
                // The windows read sum to less than twice the distance plus the first window,
                // and each brings the two characters before it.
                text.read.set(0);
                let Ok(found) = last_cut(&text, 0, s.len(), mode);
                assert_eq!(found, Some(far + 2));
                let read = text.read.get();
                assert!(read <= 2 * (near + 2) + FIRST_WINDOW + 32 * CONTEXT, "last {mode:?} {far} {near}: {read}");
                text.read.set(0);
                let Ok(found) = next_cut(&text, 0, mode);
                assert_eq!(found, Some(far + 2));
                let read = text.read.get();
                assert!(read <= 2 * (far + 2) + FIRST_WINDOW + 32 * CONTEXT, "next {mode:?} {far} {near}: {read}");
            }
        }
    }

    #[test]
    fn safe_cuts_are_rule_b_points() {
        let text = "Some words, then more words\nand lines. ".repeat(1000);
        for n in [1, 2, 7, 64] {
            let cuts = safe_cuts(&text, n);
            assert_eq!((cuts[0], *cuts.last().unwrap()), (0, text.len()));
            assert!(cuts.windows(2).all(|w| w[0] < w[1]));
            assert!(cuts[1..cuts.len() - 1].iter().all(|&c| rule_b(text.as_bytes(), c)));
        }
        assert_eq!(safe_cuts("", 4), vec![0, 0]);
    }

    #[test]
    fn cuts_of_units_are_rule_b_points_at_the_same_characters() {
        // Rule B on a str's code units picks characters where rule B holds on its UTF-8 bytes
        // (the rule reads ASCII only), in every storage width.
        let text = "Grüße, then more wörds\nand 日本語 lines. x\t😀y\r\nš bš\t".repeat(700);
        let u2: Vec<u16> = text.chars().filter(|&c| (c as u32) < 0x1_0000).map(|c| c as u16).collect();
        let narrow: String = char::decode_utf16(u2.iter().copied()).map(|c| c.unwrap()).collect();
        let u4: Vec<u32> = text.chars().map(|c| c as u32).collect();
        let starts = |s: &str| s.char_indices().map(|(i, _)| i).chain([s.len()]).collect::<Vec<_>>();
        for (units, s) in [(Units::Ucs2(&u2), &narrow), (Units::Ucs4(&u4), &text)] {
            let at = starts(s);
            for n in [1, 2, 7, 64] {
                let cuts = safe_cuts_units(units, n);
                assert_eq!((cuts[0], *cuts.last().unwrap()), (0, units.len()));
                assert!(cuts.windows(2).all(|w| w[0] < w[1]));
                assert!(cuts[1..cuts.len() - 1].iter().all(|&c| rule_b(s.as_bytes(), at[c])), "{n}");
            }
        }
        assert_eq!(safe_cuts_units(Units::Latin1(&[]), 4), vec![0, 0]);
    }
}
