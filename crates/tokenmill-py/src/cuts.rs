//! The safe-cut functions for Python's corpus reader: `cut_points`, `last_cut`, `next_cut`
//! over `tokenmill_core::pretokenize::cuts`, in character offsets (Python `str` indices).
//!
//! Why windows: the rules are checked on UTF-8 bytes, and getting the bytes of a `str` costs
//! a pass over it (with the stable ABI this crate targets, an encoded copy on every call).
//! `last_cut` runs once per block of the corpus reader (chunk_size, 1-8 MiB) and its answer
//! is usually a few characters before `hi`, so it reads the text in windows, from `hi`
//! backwards, of 4096 characters and then doubling: the work is proportional to the distance
//! to the answer, not to the text. The same goes forwards for `next_cut`. Each window carries the two characters before it that
//! the rules look at, and knows its length in characters (the slice's), so ASCII text needs
//! no offset conversion at all. What it does not do: the rules themselves (the core's).

use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PySlice, PyString};

use tokenmill_core::offsets::CharText;
use tokenmill_core::pretokenize::cuts::{self, CutMode, Rules};

use crate::run;

/// Characters in the first window; each further window is twice as long.
const FIRST_WINDOW: usize = 4096;
/// Characters before a window that the rules look at (rule A reads `t[i-2]`).
const CONTEXT: usize = 2;

/// A Python index argument clamped to `0..=len` (`None`: `default`). Out-of-range values are
/// clamped as slicing clamps them, except that a negative index counts as 0 rather than from
/// the end (the rules are defined on `start <= i < end`); an int too large for the machine
/// counts as the end. Non-integers raise TypeError.
fn index_arg(arg: Option<&Bound<'_, PyAny>>, default: usize, len: usize) -> PyResult<usize> {
    let Some(arg) = arg else { return Ok(default) };
    match arg.extract::<isize>() {
        Ok(v) => Ok(usize::try_from(v).map_or(0, |v| v.min(len))),
        Err(e) if e.is_instance_of::<PyOverflowError>(arg.py()) => Ok(if arg.lt(0)? { 0 } else { len }),
        Err(e) => Err(e),
    }
}

/// A Python `str` read in windows.
struct Text<'a, 'py> {
    obj: &'a Bound<'py, PyString>,
    /// Length in characters (`code_point_len`: O(1), never calls `__len__`).
    len: usize,
}

impl<'a, 'py> Text<'a, 'py> {
    fn new(obj: &'a Bound<'py, PyString>) -> PyResult<Self> {
        Ok(Text { obj, len: obj.code_point_len()? })
    }

    /// The UTF-8 of characters `a..b` (`a <= b <= len`).
    fn utf8(&self, a: usize, b: usize) -> PyResult<PyBackedStr> {
        if a == 0 && b == self.len {
            return self.obj.extract();
        }
        // Both bounds are at most `len`, which a Python str never lets exceed `isize::MAX`.
        let slice = PySlice::new(self.obj.py(), a as isize, b as isize, 1);
        self.obj.get_item(slice)?.extract()
    }

    /// Runs `find(window, lo, hi)` on windows covering `lo..hi` from `hi` backwards (window
    /// offsets), until one returns a point; the point as an offset in the whole text.
    fn search_back(
        &self,
        lo: usize,
        hi: usize,
        find: impl Fn(CharText<'_>, usize, usize) -> Option<usize> + Sync,
    ) -> PyResult<Option<usize>> {
        let (mut b, mut width) = (hi.min(self.len), FIRST_WINDOW);
        while b > lo {
            let a = b.saturating_sub(width).max(lo);
            let c = a.saturating_sub(CONTEXT);
            let s = self.utf8(c, b)?;
            if let Some(i) = run(self.obj.py(), || Ok(find(CharText::with_len(&s, b - c), a - c, b - c)))? {
                return Ok(Some(i + c));
            }
            (b, width) = (a, width.saturating_mul(2));
        }
        Ok(None)
    }

    /// Runs `find(window, start)` on windows covering `start..len` from `start` forwards, until
    /// one returns a point; the point as an offset in the whole text.
    fn search_forward(
        &self,
        start: usize,
        find: impl Fn(CharText<'_>, usize) -> Option<usize> + Sync,
    ) -> PyResult<Option<usize>> {
        let (mut a, mut width) = (start, FIRST_WINDOW);
        while a < self.len {
            let b = a.saturating_add(width).min(self.len);
            let c = a.saturating_sub(CONTEXT);
            let s = self.utf8(c, b)?;
            if let Some(i) = run(self.obj.py(), || Ok(find(CharText::with_len(&s, b - c), a - c)))? {
                return Ok(Some(i + c));
            }
            (a, width) = (b, width.saturating_mul(2));
        }
        Ok(None)
    }
}

/// Every safe cut point `i` of `text` with `start <= i < end` (character offsets), ascending:
/// rule A or rule B of `tokenmill_core::pretokenize::cuts`. Characters outside
/// `[start, end)` are not looked at, except the two before `start`.
#[pyfunction]
#[pyo3(signature = (text, start=None, end=None), text_signature = "(text, start=0, end=None)")]
pub fn cut_points(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<usize>> {
    let t = Text::new(text)?;
    let end = index_arg(end, t.len, t.len)?;
    let start = index_arg(start, 0, t.len)?.min(end);
    let c = start.saturating_sub(CONTEXT);
    let s = t.utf8(c, end)?;
    let points = run(py, || Ok(cuts::cut_points(CharText::with_len(&s, end - c), start - c, end - c)))?;
    Ok(points.into_iter().map(|i| i + c).collect())
}

/// The largest cut point in `[lo, hi)`, or -1. `mode="safe"`: a rule A or B point;
/// `mode="line"`: a rule A point, else right after the last line break `j` with
/// `max(lo-1, 0) <= j < hi-1`. Reads backwards from `hi` and stops at the first hit.
#[pyfunction]
pub fn last_cut(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
    lo: &Bound<'_, PyAny>,
    hi: &Bound<'_, PyAny>,
    mode: &str,
) -> PyResult<isize> {
    let mode = CutMode::parse(mode).map_err(|e| crate::map_err(py, e))?;
    let t = Text::new(text)?;
    let (lo, hi) = (index_arg(Some(lo), 0, t.len)?, index_arg(Some(hi), 0, t.len)?);
    let found = match mode {
        CutMode::Safe => t.search_back(lo, hi, |w, a, b| cuts::last_point(w, a, b, Rules::AOrB))?,
        // Rule A anywhere in the range beats any line break, so the fallback is a second pass.
        CutMode::Line => match t.search_back(lo, hi, |w, a, b| cuts::last_point(w, a, b, Rules::A))? {
            Some(i) => Some(i),
            None => t.search_back(lo, hi, cuts::last_after_line_break)?,
        },
    };
    Ok(found.map_or(-1, |i| i as isize))
}

/// The smallest cut point `>= start`, or -1. `mode="safe"`: a rule A or B point;
/// `mode="line"`: right after the first line break `j` with `max(start-1, 0) <= j < len-1`.
#[pyfunction]
pub fn next_cut(py: Python<'_>, text: &Bound<'_, PyString>, start: &Bound<'_, PyAny>, mode: &str) -> PyResult<isize> {
    let mode = CutMode::parse(mode).map_err(|e| crate::map_err(py, e))?;
    let t = Text::new(text)?;
    let start = index_arg(Some(start), 0, t.len)?;
    // A window ends before the text does: its last character is then not the text's, but the
    // next window starts one line break earlier (`j >= start - 1`), so none is missed.
    let found = t.search_forward(start, |w, a| cuts::next_cut(w, a, mode))?;
    Ok(found.map_or(-1, |i| i as isize))
}
