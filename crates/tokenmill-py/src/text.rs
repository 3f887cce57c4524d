//! Python `str` arguments in UTF-8, the form the core reads.
//!
//! A `str` is kept by CPython in one of three fixed-width forms (1, 2 or 4 bytes per char);
//! ASCII text in the 1-byte form is its own UTF-8, and any other `str` is transcoded here by
//! `tokenmill_core::utf8` unless it already carries a UTF-8 form.
//!
//! Why not `PyUnicode_AsUTF8AndSize` (what `&str` arguments use): on CJK text it costs about
//! three times as many instructions (a tenth of a whole multilingual batch encode), and it
//! keeps the UTF-8 copy inside the `str` for as long as the `str` lives: a Chinese text of 100
//! million chars (200 MB as a `str`) passed once would hold 300 MB more from then on. Here the
//! copy lives for the call only. What
//! this module does not do: anything with the text but take its UTF-8 form.

use std::ops::Deref;

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyString;

/// A text's UTF-8 form: Python's own (`Shared`: ASCII text, or a `str` that carries its UTF-8
/// form), or transcoded into a buffer of the caller's (`Own`: its span there).
pub(crate) enum Utf8 {
    Shared(PyBackedStr),
    Own(usize, usize),
}

/// The code units of `s` when tokenmill transcodes it itself: a ready `str` that is not ASCII
/// and carries no UTF-8 form. They are borrowed from the string, which cannot change while `s`
/// lives, so they may be read with the interpreter released.
pub(crate) fn units_of<'a>(s: &'a Bound<'_, PyString>) -> Option<tokenmill_core::utf8::Units<'a>> {
    use pyo3::ffi;
    use tokenmill_core::utf8::Units;
    let p = s.as_ptr();
    // SAFETY: `p` is a live `str` (held by `s`). A ready string (every compact one, and a
    // subclass's once made) has a kind that says what its data is: `len` code units of 1, 2 or
    // 4 bytes, aligned, that stay valid and unchanged while `s` holds it (a `str` is
    // immutable). Every `str` starts with the compact header, whose `utf8` field is its cached
    // UTF-8 form or null when it is not ASCII.
    unsafe {
        if ffi::PyUnicode_IS_READY(p) == 0
            || ffi::PyUnicode_IS_ASCII(p) != 0
            || !(*(p as *mut ffi::PyCompactUnicodeObject)).utf8.is_null()
        {
            return None;
        }
        let n = ffi::PyUnicode_GET_LENGTH(p) as usize;
        let data = ffi::PyUnicode_DATA(p);
        match ffi::PyUnicode_KIND(p) {
            ffi::PyUnicode_1BYTE_KIND => Some(Units::Latin1(std::slice::from_raw_parts(data as *const u8, n))),
            ffi::PyUnicode_2BYTE_KIND => Some(Units::Ucs2(std::slice::from_raw_parts(data as *const u16, n))),
            ffi::PyUnicode_4BYTE_KIND => Some(Units::Ucs4(std::slice::from_raw_parts(data as *const u32, n))),
            _ => None,
        }
    }
}

/// The UTF-8 form of `s`, transcoded onto the end of `buf` unless Python has one at hand; a
/// lone surrogate raises `UnicodeEncodeError`, as `str.encode` does.
pub(crate) fn utf8_of(s: Bound<'_, PyString>, buf: &mut String) -> PyResult<Utf8> {
    use tokenmill_core::utf8::push_utf8;
    let units = units_of(&s);
    if let Some(units) = units {
        let a = buf.len();
        if push_utf8(units, buf).is_ok() {
            return Ok(Utf8::Own(a, buf.len()));
        }
    }
    // ASCII, a cached form, or a surrogate (Python raises the error).
    PyBackedStr::try_from(s).map(Utf8::Shared)
}

/// A `str` argument as UTF-8 (see the module doc): derefs to `&str`. A lone surrogate raises
/// `UnicodeEncodeError`, anything but a `str` a `TypeError`.
pub(crate) enum Text {
    Shared(PyBackedStr),
    Own(String),
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Text::Shared(s) => s,
            Text::Own(s) => s,
        }
    }
}

impl Text {
    /// The UTF-8 form of `s` (see `utf8_of`).
    pub(crate) fn of(s: Bound<'_, PyString>) -> PyResult<Self> {
        let mut buf = String::new();
        Ok(match utf8_of(s, &mut buf)? {
            Utf8::Shared(s) => Text::Shared(s),
            Utf8::Own(..) => {
                // The transcoder reserved the longest form (3 bytes per unit of a 2-byte
                // string, 2 of a 1-byte one): give back what mostly-ASCII text did not use, as
                // a list of many texts (training) holds them all for the call.
                if buf.capacity() > buf.len() + buf.len() / 2 + 64 {
                    buf.shrink_to_fit();
                }
                Text::Own(buf)
            }
        })
    }
}

impl FromPyObject<'_, '_> for Text {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        Text::of(obj.cast::<PyString>()?.to_owned())
    }
}
