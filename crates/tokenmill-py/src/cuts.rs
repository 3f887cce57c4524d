//! The safe-cut functions for Python's corpus reader: `cut_points`, `last_cut`, `next_cut`
//! over `tokenmill_core::pretokenize::cuts`, in character offsets (Python `str` indices).
//!
//! Why windows: the rules are checked on UTF-8 bytes, and getting the bytes of a `str` costs
//! a pass over it (with the stable ABI this crate targets, an encoded copy on every call).
//! `last_cut` runs once per block of the corpus reader (chunk_size, 1-8 MiB) and its answer
//! is usually a few characters before `hi`, so the core's search reads the text in windows,
//! from `hi` backwards, of 4096 characters and then doubling: the work is proportional to the
//! distance to the answer, not to the text. The same goes forwards for `next_cut`.
//!
//! This file supplies the windows (`Text`, a `cuts::Windows`). Each knows its length in
//! characters (the slice's), so ASCII text needs no offset conversion at all. What it does not
//! do: the rules or the search (the core's).

use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PySlice, PyString};

use tokenmill_core::offsets::CharText;
use tokenmill_core::pretokenize::cuts::{self, CutMode, Windows, CONTEXT};

use crate::run;

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
}

impl Windows for Text<'_, '_> {
    type Error = PyErr;

    fn char_len(&self) -> usize {
        self.len
    }

    /// Reads the window with the GIL held, then runs `f` without it.
    fn with_window<R: Send>(&self, a: usize, b: usize, f: impl FnOnce(CharText<'_>) -> R + Send) -> PyResult<R> {
        let s = self.utf8(a, b)?;
        let s: &str = &s;
        run(self.obj.py(), || Ok(f(CharText::with_len(s, b - a))))
    }
}

/// Every safe cut point `i` of `text` with `start <= i < end` (character offsets), ascending:
/// rule A or rule B of `tokenmill_core::pretokenize::cuts`. Characters outside
/// `[start, end)` are not looked at, except the two before `start`.
#[pyfunction]
#[pyo3(signature = (text, start=None, end=None), text_signature = "(text, start=0, end=None)")]
pub fn cut_points(
    text: &Bound<'_, PyString>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<usize>> {
    let t = Text::new(text)?;
    let end = index_arg(end, t.len, t.len)?;
    let start = index_arg(start, 0, t.len)?.min(end);
    let c = start.saturating_sub(CONTEXT);
    let points = t.with_window(c, end, |w| cuts::cut_points(w, start - c, end - c))?;
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
    Ok(cuts::last_cut(&t, lo, hi, mode)?.map_or(-1, |i| i as isize))
}

/// The smallest cut point `>= start`, or -1. `mode="safe"`: a rule A or B point;
/// `mode="line"`: right after the first line break `j` with `max(start-1, 0) <= j < len-1`.
#[pyfunction]
pub fn next_cut(py: Python<'_>, text: &Bound<'_, PyString>, start: &Bound<'_, PyAny>, mode: &str) -> PyResult<isize> {
    let mode = CutMode::parse(mode).map_err(|e| crate::map_err(py, e))?;
    let t = Text::new(text)?;
    let start = index_arg(Some(start), 0, t.len)?;
    Ok(cuts::next_cut(&t, start, mode)?.map_or(-1, |i| i as isize))
}
