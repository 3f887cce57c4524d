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
//! This file supplies the windows (`Text`, a `cuts::Windows`). A window is read with C-level
//! calls only, so a `str` subclass's overrides never run; each lone surrogate in it becomes
//! U+FFFD (one character for one, so callers need not scan the text first); and it knows its
//! length in characters (the slice's), so ASCII text needs no offset conversion at all. What
//! it does not do: the rules or the search (the core's).

use pyo3::exceptions::{PyOverflowError, PyUnicodeEncodeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use tokenmill_core::offsets::CharText;
use tokenmill_core::pretokenize::cuts::{self, CutMode, Windows, CONTEXT};
use tokenmill_core::CoreError;

use crate::text;
use crate::{map_err, run};

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

    /// The UTF-8 of characters `a..b` (`a <= b <= len`), each lone surrogate replaced by
    /// U+FFFD (one character for one, so offsets are unchanged). Only C-level functions touch
    /// the str, so a subclass's `__getitem__` or `encode` is never called.
    fn utf8(&self, a: usize, b: usize) -> PyResult<text::Text> {
        let py = self.obj.py();
        let window = if a == 0 && b == self.len {
            self.obj.clone()
        } else {
            // SAFETY: `obj` is a str and both bounds are at most its length, which a Python str
            // never lets exceed `isize::MAX`; the result is a new reference (or NULL and an
            // exception).
            let sub = unsafe {
                let p = ffi::PyUnicode_Substring(self.obj.as_ptr(), a as ffi::Py_ssize_t, b as ffi::Py_ssize_t);
                Bound::from_owned_ptr_or_err(py, p)?
            };
            sub.cast_into::<PyString>()?
        };
        match text::Text::of(window.clone()) {
            Err(e) if e.is_instance_of::<PyUnicodeEncodeError>(py) => {
                Ok(text::Text::Own(utf8_replacing_surrogates(&window)?))
            }
            other => other,
        }
    }
}

/// The UTF-8 of `s` with each lone surrogate replaced by U+FFFD. `surrogatepass` encodes a
/// surrogate as three bytes `ED A0..BF xx`, which UTF-8 itself never holds, and U+FFFD is three
/// bytes too, so they are swapped in place.
fn utf8_replacing_surrogates(s: &Bound<'_, PyString>) -> PyResult<String> {
    let py = s.py();
    // SAFETY: `s` is a str and both names are NUL-terminated; the result is a new reference
    // (or NULL and an exception).
    let bytes = unsafe {
        let p = ffi::PyUnicode_AsEncodedString(s.as_ptr(), c"utf-8".as_ptr(), c"surrogatepass".as_ptr());
        Bound::from_owned_ptr_or_err(py, p)?
    };
    let mut v = bytes.cast_into::<PyBytes>()?.as_bytes().to_vec();
    let mut i = 0;
    while i + 2 < v.len() {
        if v[i] == 0xED && v[i + 1] >= 0xA0 {
            v[i..i + 3].copy_from_slice("\u{FFFD}".as_bytes());
            i += 3;
        } else {
            i += 1;
        }
    }
    String::from_utf8(v).map_err(|e| map_err(py, CoreError::Internal(format!("surrogates left in a window: {e}"))))
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
