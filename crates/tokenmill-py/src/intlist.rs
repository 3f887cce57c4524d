//! Building `list[int]` results fast: one cached Python int per token id.
//!
//! Why: turning a `Vec<u32>` into a list creates a fresh int object for every token above
//! 256, which costs about as much as encoding the token did. An encoder has at most
//! `n_vocab` distinct ids, so each is created once (on first use, not at load time, so
//! memory grows only with the ids actually produced) and then shared: a list item costs one
//! reference-count increment. The cache is filled while attached to the interpreter, and a
//! slot is claimed with compare-and-swap, so a racing thread can never leak or double-free.
//!
//! The lists are untracked by the cyclic garbage collector (as CPython does itself for
//! tuples and dicts that hold only atomic values). Why: a list of ints cannot be part of a
//! reference cycle, yet every tracked list is traversed item by item at each collection of
//! its generation; a batch of thousands of results spent ~14% of its time in the collector,
//! and a corpus of results kept alive costs every later full collection. Reference counting
//! still frees them. The one consequence: a cycle that a user builds *through* a returned list
//! (appending to it an object that refers back to it) is not collected.

use std::sync::atomic::{AtomicPtr, Ordering};

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyList;

pub struct IntCache {
    slots: Box<[AtomicPtr<ffi::PyObject>]>,
}

impl IntCache {
    /// A cache for ids `0..n` (other ids still work; they are just not cached).
    pub fn new(n: usize) -> Self {
        IntCache { slots: (0..n).map(|_| AtomicPtr::new(std::ptr::null_mut())).collect() }
    }

    /// A new strong reference to the int `id`, made and cached if it is not yet (the slow
    /// path of `list`).
    #[cold]
    #[inline(never)]
    fn int(&self, py: Python<'_>, id: u32) -> PyResult<*mut ffi::PyObject> {
        // SAFETY (all calls below): the caller is attached to the interpreter (`py`), and every
        // pointer handled is either null-checked or owned by this cache.
        unsafe {
            let Some(slot) = self.slots.get(id as usize) else {
                return new_int(py, id);
            };
            let p = slot.load(Ordering::Acquire);
            if !p.is_null() {
                ffi::Py_INCREF(p);
                return Ok(p);
            }
            let fresh = new_int(py, id)?;
            match slot.compare_exchange(std::ptr::null_mut(), fresh, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    // One reference stays with the cache, one goes to the caller.
                    ffi::Py_IncRef(fresh);
                    Ok(fresh)
                }
                Err(existing) => {
                    ffi::Py_DecRef(fresh);
                    ffi::Py_IncRef(existing);
                    Ok(existing)
                }
            }
        }
    }

    /// `ids` as a Python list of ints.
    pub fn list<'py>(&self, py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
        // SAFETY: `PyList_New` returns a new reference (or null, checked) whose `ids.len()`
        // slots are all null; each slot `i < ids.len()` takes (steals) the new reference made
        // for it, once (so nothing is leaked; the list is complete before it is
        // returned, also on an error, where the slots left null are allowed by `list_dealloc`).
        unsafe {
            let raw = ffi::PyList_New(ids.len() as ffi::Py_ssize_t);
            if raw.is_null() {
                return Err(PyErr::fetch(py));
            }
            let list = Bound::from_owned_ptr(py, raw).cast_into_unchecked::<PyList>();
            // Untracked (see the module doc): it holds ints only.
            ffi::PyObject_GC_UnTrack(raw.cast());
            // The item array of a new list of `ids.len()` slots: written directly (what
            // `PyList_SET_ITEM` does, without reloading it per item), and the cached int taken
            // inline: this loop runs once per token of every result.
            let items = (*raw.cast::<ffi::PyListObject>()).ob_item;
            for (i, &id) in ids.iter().enumerate() {
                let cached = self.slots.get(id as usize).map_or(std::ptr::null_mut(), |s| s.load(Ordering::Acquire));
                let p = if cached.is_null() {
                    self.int(py, id)?
                } else {
                    ffi::Py_INCREF(cached);
                    cached
                };
                *items.add(i) = p;
            }
            Ok(list)
        }
    }
}

unsafe fn new_int(py: Python<'_>, id: u32) -> PyResult<*mut ffi::PyObject> {
    let p = ffi::PyLong_FromUnsignedLong(id as std::os::raw::c_ulong);
    if p.is_null() {
        Err(PyErr::fetch(py))
    } else {
        Ok(p)
    }
}

impl Drop for IntCache {
    fn drop(&mut self) {
        if self.slots.iter().all(|s| s.load(Ordering::Relaxed).is_null()) {
            return;
        }
        Python::attach(|_py| {
            for s in self.slots.iter() {
                let p = s.swap(std::ptr::null_mut(), Ordering::AcqRel);
                if !p.is_null() {
                    // SAFETY: attached; `p` is the reference this cache owns.
                    unsafe { ffi::Py_DecRef(p) };
                }
            }
        });
    }
}
