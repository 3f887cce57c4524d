//! Thin PyO3 layer over tokenmill-core: converts arguments, releases the GIL around real
//! work, maps `CoreError` to the `tokenmill.errors` classes, and turns any Rust panic into
//! `tokenmill.InternalError` so that `except Exception` is always enough.

mod intlist;
mod train;

use std::panic::{catch_unwind, AssertUnwindSafe};

use intlist::IntCache;

use numpy::{PyArray1, IntoPyArray};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyBytes, PyDict, PyList};

use tokenmill_core::formats::tiktoken as tk;
use tokenmill_core::offsets;
use tokenmill_core::bpe::Scratch;
use tokenmill_core::parallel::parallel_map_with;
use tokenmill_core::special::SpecialMatcher;
use tokenmill_core::{CoreBpe, CoreError, Rank};

/// Instantiates `tokenmill.errors.<name>(*args)` as a PyErr.
fn py_error<'py>(py: Python<'py>, name: &str, args: impl pyo3::call::PyCallArgs<'py>) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let cls = py.import("tokenmill.errors")?.getattr(name)?;
        let obj = cls.call1(args)?;
        Ok(PyErr::from_value(obj))
    })();
    match made {
        Ok(e) => e,
        Err(e) => e,
    }
}

pub(crate) fn map_err(py: Python<'_>, e: CoreError) -> PyErr {
    match e {
        CoreError::Pattern(msg) => py_error(py, "PatternError", (msg,)),
        CoreError::Vocab(msg) => py_error(py, "VocabFormatError", (msg,)),
        CoreError::TokenId { id, position, n_vocab } => py_error(py, "TokenIdError", (id, position, n_vocab)),
        CoreError::DisallowedSpecial { token, start } => py_error(py, "DisallowedSpecialTokenError", (token, start)),
        CoreError::Cancelled => PyErr::new::<pyo3::exceptions::PyKeyboardInterrupt, _>("training was cancelled"),
        CoreError::Input(msg) => py_error(py, "InputError", (msg,)),
        CoreError::Internal(msg) => py_error(py, "InternalError", (msg,)),
    }
}

/// Runs `f` without the GIL and without letting a panic escape.
pub(crate) fn run<T: Send>(py: Python<'_>, f: impl FnOnce() -> Result<T, CoreError> + Send) -> PyResult<T> {
    let r = py.detach(|| catch_unwind(AssertUnwindSafe(f)));
    match r {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(map_err(py, e)),
        Err(panic) => Err(py_error(py, "InternalError", (panic_message(panic),))),
    }
}

fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

/// Encodes `texts` on `threads` threads, the calling thread being one of them: it converts
/// the results in input order with `convert` (attached to the interpreter) as they become
/// ready, and encodes documents itself while the next one in order is not ready yet, so no
/// core idles. The first error in input order is returned (no new documents are started
/// once one fails); a panic becomes `InternalError`.
fn pipeline<'py, T>(
    py: Python<'py>,
    texts: &[&str],
    threads: usize,
    encode: impl Fn(&str, &mut Scratch) -> Result<Vec<Rank>, CoreError> + Sync,
    mut convert: impl FnMut(&[Rank]) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::mpsc;

    type Item = (usize, std::thread::Result<Result<Vec<Rank>, CoreError>>);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // Hands out the next document, or `None` when all are taken or one has failed.
    let claim = || {
        let i = next.fetch_add(1, Ordering::Relaxed);
        (i < texts.len() && !stop.load(Ordering::Relaxed)).then_some(i)
    };
    let (tx, rx) = mpsc::channel::<Item>();
    // Only this thread receives; the mutex just makes the receiver shareable with `detach`.
    let rx = std::sync::Mutex::new(rx);
    std::thread::scope(|s| {
        for _ in 1..threads {
            let tx = tx.clone();
            let (claim, encode) = (&claim, &encode);
            s.spawn(move || {
                let mut scratch = Scratch::default();
                while let Some(i) = claim() {
                    let r = catch_unwind(AssertUnwindSafe(|| encode(texts[i], &mut scratch)));
                    if tx.send((i, r)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let result = (|| {
            let mut pending: Vec<Option<PyResult<Vec<Rank>>>> = (0..texts.len()).map(|_| None).collect();
            let mut out = Vec::with_capacity(texts.len());
            let mut scratch = Scratch::default();
            let store = |pending: &mut Vec<Option<PyResult<Vec<Rank>>>>, (i, r): Item| {
                let r = match r {
                    Ok(r) => r.map_err(|e| map_err(py, e)),
                    Err(panic) => Err(py_error(py, "InternalError", (panic_message(panic),))),
                };
                if r.is_err() {
                    // Every document before i was already handed out, so it still arrives:
                    // the error reported is that of the first failing document, as in order.
                    stop.store(true, Ordering::Relaxed);
                }
                pending[i] = Some(r);
            };
            while out.len() < texts.len() {
                while let Some(item) = rx.lock().ok().and_then(|rx| rx.try_recv().ok()) {
                    store(&mut pending, item);
                }
                while let Some(item) = pending.get_mut(out.len()).and_then(Option::take) {
                    out.push(convert(&item?)?);
                }
                if out.len() == texts.len() {
                    break;
                }
                if pending[out.len()].is_none() {
                    // The next result is not ready: encode a document here rather than wait.
                    // Detached, so that other Python threads run meanwhile.
                    let item = match claim() {
                        Some(i) => (i, py.detach(|| catch_unwind(AssertUnwindSafe(|| encode(texts[i], &mut scratch))))),
                        None => match py.detach(|| rx.lock().ok().and_then(|rx| rx.recv().ok())) {
                            Some(item) => item,
                            None => return Err(py_error(py, "InternalError", ("a worker thread stopped without a result",))),
                        },
                    };
                    store(&mut pending, item);
                }
            }
            Ok(out)
        })();
        stop.store(true, Ordering::Relaxed);
        result
    })
}

/// A set of special tokens to allow or to reject, prepared once and reused.
#[pyclass(frozen, module = "tokenmill._core")]
struct SpecialSet {
    inner: SpecialMatcher,
}

/// The compiled encoder: vocabulary, pre-tokenizer and special tokens. Immutable.
#[pyclass(frozen, module = "tokenmill._core", name = "CoreBPE")]
pub(crate) struct PyCoreBpe {
    pub(crate) inner: CoreBpe,
    ints: IntCache,
}

fn allowed_or_empty(a: Option<&Bound<'_, SpecialSet>>) -> Option<SpecialMatcher> {
    a.map(|s| s.get().inner.clone())
}

impl PyCoreBpe {
    fn wrap(inner: CoreBpe) -> Self {
        let ints = IntCache::new(inner.vocab.n_vocab());
        PyCoreBpe { inner, ints }
    }

    /// One document of a batch: the disallowed check, then encoding with the worker's
    /// `scratch` (so the documents of one worker share a cache of merged pieces).
    fn encode_impl(&self, text: &str, allowed: Option<&SpecialMatcher>, disallowed: Option<&SpecialMatcher>, scratch: &mut Scratch) -> Result<Vec<Rank>, CoreError> {
        if let Some(d) = disallowed {
            self.inner.check_disallowed(text, d)?;
        }
        self.inner.encode_with(text, allowed.filter(|a| !a.is_empty()), scratch)
    }

    /// `encode_impl` that may split one large special-free text across `threads` threads.
    fn encode_threads(&self, text: &str, allowed: Option<&SpecialMatcher>, disallowed: Option<&SpecialMatcher>, threads: usize) -> Result<Vec<Rank>, CoreError> {
        if let Some(d) = disallowed {
            self.inner.check_disallowed(text, d)?;
        }
        match allowed {
            Some(a) if !a.is_empty() => self.inner.encode(text, a),
            _ => self.inner.encode_ordinary_parallel(text, threads),
        }
    }
}

#[pymethods]
impl PyCoreBpe {
    #[new]
    fn new(py: Python<'_>, mergeable: Vec<(Vec<u8>, Rank)>, specials: Vec<(String, Rank)>, pattern: &str) -> PyResult<Self> {
        let pattern = pattern.to_string();
        run(py, move || CoreBpe::new(mergeable, specials, &pattern)).map(PyCoreBpe::wrap)
    }

    /// Builds directly from the bytes of a rank file (no Python dict on the way).
    #[staticmethod]
    #[pyo3(signature = (data, specials, pattern, allow_gaps=false))]
    fn from_tiktoken_bytes(py: Python<'_>, data: &[u8], specials: Vec<(String, Rank)>, pattern: &str, allow_gaps: bool) -> PyResult<Self> {
        let parsed = parse_rank_file(py, data, allow_gaps)?;
        let pattern = pattern.to_string();
        run(py, move || CoreBpe::new(parsed, specials, &pattern)).map(PyCoreBpe::wrap)
    }

    #[getter]
    fn n_vocab(&self) -> usize {
        self.inner.vocab.n_vocab()
    }

    #[getter]
    fn n_mergeable(&self) -> usize {
        self.inner.vocab.n_mergeable()
    }

    #[getter]
    fn pattern(&self) -> &str {
        self.inner.pattern()
    }

    /// True when the hand-written pre-tokenizer is in use for this pattern.
    #[getter]
    fn fast_pretokenizer(&self) -> bool {
        self.inner.pretokenizer.is_fast()
    }

    /// The pre-tokenizer in use: `"r50k"`, `"cl100k"`, `"o200k"` (hand-written matchers) or
    /// `"regex"` (the generic engine).
    #[getter]
    fn pretokenizer(&self) -> &'static str {
        self.inner.pretokenizer.name()
    }

    fn special_set(&self, py: Python<'_>, names: Vec<String>) -> PyResult<SpecialSet> {
        let inner = self.inner.special_matcher(&names).map_err(|e| map_err(py, e))?;
        Ok(SpecialSet { inner })
    }

    /// A set of arbitrary literal strings (for `disallowed_special`, which tiktoken lets name
    /// strings that are not special tokens).
    fn literal_set(&self, py: Python<'_>, names: Vec<String>) -> PyResult<SpecialSet> {
        let inner = SpecialMatcher::new(names.into_iter().map(|n| (n, 0)).collect()).map_err(|e| map_err(py, e))?;
        Ok(SpecialSet { inner })
    }

    #[pyo3(signature = (text, num_threads=1))]
    fn encode_ordinary<'py>(&self, py: Python<'py>, text: &str, num_threads: usize) -> PyResult<Bound<'py, PyList>> {
        let ids = run(py, || self.inner.encode_ordinary_parallel(text, num_threads))?;
        self.ints.list(py, &ids)
    }

    #[pyo3(signature = (text, allowed=None, disallowed=None, num_threads=1))]
    fn encode<'py>(&self, py: Python<'py>, text: &str, allowed: Option<&Bound<'_, SpecialSet>>, disallowed: Option<&Bound<'_, SpecialSet>>, num_threads: usize) -> PyResult<Bound<'py, PyList>> {
        let a = allowed.map(|s| &s.get().inner);
        let d = disallowed.map(|s| &s.get().inner);
        let ids = run(py, || self.encode_threads(text, a, d, num_threads))?;
        self.ints.list(py, &ids)
    }

    #[pyo3(signature = (text, allowed=None, disallowed=None, num_threads=1))]
    fn encode_to_numpy<'py>(&self, py: Python<'py>, text: &str, allowed: Option<&Bound<'_, SpecialSet>>, disallowed: Option<&Bound<'_, SpecialSet>>, num_threads: usize) -> PyResult<Bound<'py, PyArray1<Rank>>> {
        let a = allowed.map(|s| &s.get().inner);
        let d = disallowed.map(|s| &s.get().inner);
        let v = run(py, || self.encode_threads(text, a, d, num_threads))?;
        Ok(v.into_pyarray(py))
    }

    #[pyo3(signature = (text, allowed=None, disallowed=None, num_threads=1))]
    fn count(&self, py: Python<'_>, text: &str, allowed: Option<&Bound<'_, SpecialSet>>, disallowed: Option<&Bound<'_, SpecialSet>>, num_threads: usize) -> PyResult<usize> {
        let a = allowed.map(|s| &s.get().inner);
        let d = disallowed.map(|s| &s.get().inner);
        run(py, || {
            if let Some(d) = d {
                self.inner.check_disallowed(text, d)?;
            }
            self.inner.count(text, a, num_threads)
        })
    }

    /// Tokens and the character (code point) offset where each starts.
    #[pyo3(signature = (text, allowed=None, disallowed=None))]
    fn encode_with_offsets(&self, py: Python<'_>, text: &str, allowed: Option<&Bound<'_, SpecialSet>>, disallowed: Option<&Bound<'_, SpecialSet>>) -> PyResult<(Vec<Rank>, Vec<usize>)> {
        let a = allowed_or_empty(allowed).unwrap_or(SpecialMatcher::new(vec![]).map_err(|e| map_err(py, e))?);
        let d = disallowed.map(|s| &s.get().inner);
        run(py, || {
            if let Some(d) = d {
                self.inner.check_disallowed(text, d)?;
            }
            let (ids, byte_offsets) = self.inner.encode_with_byte_offsets(text, &a)?;
            Ok((ids, offsets::byte_to_char_offsets(text.as_bytes(), &byte_offsets)))
        })
    }

    /// Encodes many texts on `num_threads` threads (per call; no global pool).
    #[pyo3(signature = (texts, allowed=None, disallowed=None, num_threads=1))]
    fn encode_batch<'py>(&self, py: Python<'py>, texts: Vec<PyBackedStr>, allowed: Option<&Bound<'_, SpecialSet>>, disallowed: Option<&Bound<'_, SpecialSet>>, num_threads: usize) -> PyResult<Bound<'py, PyList>> {
        let a = allowed.map(|s| &s.get().inner);
        let d = disallowed.map(|s| &s.get().inner);
        let strs: Vec<&str> = texts.iter().map(|s| &**s).collect();
        let threads = num_threads.max(1).min(strs.len());
        if threads <= 1 {
            let mut scratch = Scratch::default();
            let all = run(py, || strs.iter().map(|t| self.encode_impl(t, a, d, &mut scratch)).collect::<Result<Vec<_>, _>>())?;
            let lists = all.iter().map(|ids| self.ints.list(py, ids)).collect::<PyResult<Vec<_>>>()?;
            return PyList::new(py, lists);
        }
        // Why a pipeline: Python lists can only be built while attached to the interpreter,
        // one thread at a time. Building them after all encoding is done would leave that
        // serial part outside the parallel speed-up; here the calling thread turns each
        // finished document into a list (in order) while the workers go on encoding.
        let lists = pipeline(py, &strs, threads, |t: &str, scratch: &mut Scratch| self.encode_impl(t, a, d, scratch), |ids| self.ints.list(py, ids))?;
        PyList::new(py, lists)
    }

    /// Encodes many texts into one flat uint32 array plus `len(texts)+1` boundaries.
    #[pyo3(signature = (texts, allowed=None, disallowed=None, num_threads=1))]
    fn encode_batch_to_numpy<'py>(&self, py: Python<'py>, texts: Vec<PyBackedStr>, allowed: Option<&Bound<'_, SpecialSet>>, disallowed: Option<&Bound<'_, SpecialSet>>, num_threads: usize) -> PyResult<(Bound<'py, PyArray1<Rank>>, Bound<'py, PyArray1<u64>>)> {
        let a = allowed.map(|s| &s.get().inner);
        let d = disallowed.map(|s| &s.get().inner);
        let strs: Vec<&str> = texts.iter().map(|s| &**s).collect();
        let (flat, bounds) = run(py, || {
            let parts = parallel_map_with(&strs, num_threads, |scratch: &mut Scratch, t: &&str| self.encode_impl(t, a, d, scratch))?;
            let total: usize = parts.iter().map(Vec::len).sum();
            let mut flat = Vec::with_capacity(total);
            let mut bounds = Vec::with_capacity(parts.len() + 1);
            bounds.push(0u64);
            for p in parts {
                flat.extend_from_slice(&p);
                bounds.push(flat.len() as u64);
            }
            Ok((flat, bounds))
        })?;
        Ok((flat.into_pyarray(py), bounds.into_pyarray(py)))
    }

    fn encode_single_piece(&self, py: Python<'_>, piece: &[u8]) -> PyResult<Vec<Rank>> {
        run(py, || {
            let mut out = Vec::new();
            tokenmill_core::bpe::encode_piece(&self.inner.vocab, piece, &mut out);
            Ok(out)
        })
    }

    fn encode_bytes(&self, py: Python<'_>, data: &[u8]) -> PyResult<Vec<Rank>> {
        run(py, || self.inner.encode_bytes(data))
    }

    /// Pre-tokens of `text` as (start, end) byte ranges.
    fn split(&self, py: Python<'_>, text: &str) -> PyResult<Vec<(usize, usize)>> {
        run(py, || self.inner.pretokenizer.split(text))
    }

    fn decode_bytes<'py>(&self, py: Python<'py>, ids: Vec<Rank>) -> PyResult<Bound<'py, PyBytes>> {
        let v = run(py, || self.inner.decode_bytes(&ids))?;
        Ok(PyBytes::new(py, &v))
    }

    fn decode_tokens_bytes<'py>(&self, py: Python<'py>, ids: Vec<Rank>) -> PyResult<Bound<'py, PyList>> {
        let mut out = Vec::with_capacity(ids.len());
        for (i, &id) in ids.iter().enumerate() {
            match self.inner.vocab.token_bytes(id as u64) {
                Some(b) => out.push(PyBytes::new(py, b)),
                None => return Err(map_err(py, self.inner.vocab.id_error(id as u64, i))),
            }
        }
        PyList::new(py, out)
    }

    /// Decoded bytes and, per token, the character offset where it starts (tiktoken's rule:
    /// a token that begins inside a character is assigned that character's offset).
    fn decode_with_offsets<'py>(&self, py: Python<'py>, ids: Vec<Rank>) -> PyResult<(Bound<'py, PyBytes>, Vec<usize>)> {
        let (bytes, offsets) = run(py, || {
            let mut out = Vec::new();
            let mut offsets = Vec::with_capacity(ids.len());
            let mut chars = 0usize;
            for (i, &id) in ids.iter().enumerate() {
                let tb = self.inner.vocab.token_bytes(id as u64).ok_or_else(|| self.inner.vocab.id_error(id as u64, i))?;
                let starts_inside = (0x80..0xC0).contains(&tb[0]) as usize;
                offsets.push(chars.saturating_sub(starts_inside));
                chars += tb.iter().filter(|&&c| !(0x80..0xC0).contains(&c)).count();
                out.extend_from_slice(tb);
            }
            Ok((out, offsets))
        })?;
        Ok((PyBytes::new(py, &bytes), offsets))
    }

    fn token_bytes<'py>(&self, py: Python<'py>, id: u64) -> Option<Bound<'py, PyBytes>> {
        self.inner.vocab.token_bytes(id).map(|b| PyBytes::new(py, b))
    }

    fn rank(&self, token: &[u8]) -> Option<Rank> {
        self.inner.vocab.rank(token)
    }

    fn special_id(&self, text: &str) -> Option<Rank> {
        self.inner.vocab.special_id(text)
    }

    fn specials(&self) -> Vec<(String, Rank)> {
        self.inner.vocab.specials()
    }

    /// `{token bytes: rank}` for every mergeable token.
    fn mergeable_ranks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (b, r) in self.inner.vocab.mergeable() {
            d.set_item(PyBytes::new(py, &b), r)?;
        }
        Ok(d)
    }

    /// Every mergeable token's bytes, sorted bytewise.
    fn token_byte_values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut v: Vec<Vec<u8>> = self.inner.vocab.mergeable().into_iter().map(|(b, _)| b).collect();
        v.sort();
        PyList::new(py, v.iter().map(|b| PyBytes::new(py, b)))
    }

    /// The rank file text of the mergeable tokens.
    fn dump_tiktoken<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &tk::dump(&self.inner.vocab.mergeable()))
    }
}

fn parse_rank_file(py: Python<'_>, data: &[u8], allow_gaps: bool) -> PyResult<Vec<(Vec<u8>, Rank)>> {
    let r = py.detach(|| tk::parse(data, allow_gaps));
    r.map_err(|e| py_error(py, "VocabFormatError", (e.reason, Option::<String>::None, if e.line == 0 { None } else { Some(e.line) })))
}

/// Parses a tiktoken rank file: `([(token bytes, rank), ...] in file order, [indices of
/// tokens no merge can form])`.
#[pyfunction]
#[pyo3(signature = (data, allow_gaps=false))]
fn parse_tiktoken(py: Python<'_>, data: &[u8], allow_gaps: bool) -> PyResult<(Vec<(Py<PyBytes>, Rank)>, Vec<usize>)> {
    let v = parse_rank_file(py, data, allow_gaps)?;
    let bad = py.detach(|| tk::unformable(&v));
    Ok((v.into_iter().map(|(b, r)| (PyBytes::new(py, &b).unbind(), r)).collect(), bad))
}

/// Serializes `[(token bytes, rank), ...]` as a rank file.
#[pyfunction]
fn dump_tiktoken<'py>(py: Python<'py>, ranks: Vec<(Vec<u8>, Rank)>) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &tk::dump(&ranks))
}

/// Pre-tokenizes `text` with `pattern`; `fast=False` forces the generic regex engine.
#[pyfunction]
#[pyo3(signature = (pattern, text, fast=true))]
fn pretokenize(py: Python<'_>, pattern: &str, text: &str, fast: bool) -> PyResult<Vec<(usize, usize)>> {
    let p = tokenmill_core::pretokenize::Pretokenizer::with_engine(pattern, fast).map_err(|e| map_err(py, e))?;
    run(py, || p.split(text))
}

/// The known pre-tokenizer patterns as `[(encoding family, pattern), ...]`: r50k_base (also
/// gpt2 and p50k), cl100k_base, o200k_base. The one copy of these strings is in the core.
#[pyfunction]
fn known_patterns() -> Vec<(&'static str, &'static str)> {
    tokenmill_core::pretokenize::patterns::KNOWN_PATTERNS.to_vec()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCoreBpe>()?;
    m.add_class::<SpecialSet>()?;
    m.add_function(wrap_pyfunction!(parse_tiktoken, m)?)?;
    m.add_function(wrap_pyfunction!(dump_tiktoken, m)?)?;
    m.add_function(wrap_pyfunction!(pretokenize, m)?)?;
    m.add_function(wrap_pyfunction!(known_patterns, m)?)?;
    m.add_class::<train::TrainControl>()?;
    m.add_class::<train::WordCounter>()?;
    m.add_function(wrap_pyfunction!(train::train_bpe_merges, m)?)?;
    m.add_function(wrap_pyfunction!(train::train_merges, m)?)?;
    Ok(())
}
