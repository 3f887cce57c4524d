//! The ordered batch scheduler behind `CoreBPE.encode_batch`: documents are encoded on worker
//! threads while the calling thread turns finished results into Python objects, in input
//! order.
//!
//! Why a pipeline: Python lists can only be built while attached to the interpreter, one
//! thread at a time. Building them after all encoding is done would leave that serial part
//! outside the parallel speed-up; here the calling thread converts each finished document
//! (in order) while the workers go on encoding, and encodes documents itself whenever the
//! next one in order is not ready. What it does not do: pick thread counts (per call, the
//! caller's) or know what is being encoded (`encode` is any function of one text and of a
//! per-thread working memory `S`).
//!
//! The texts are read lazily too (`Texts`): a text's UTF-8 form is taken, attached, just before
//! its chunk is encoded. For a text that is not pure ASCII that means transcoding it (about
//! 3-4 ms per MB), which on a batch of 10 MB of multilingual lines was a serial tenth of the
//! 2-thread time when every text was converted before the first chunk started.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyList, PyString, PyTuple};
use std::sync::OnceLock;

use tokenmill_core::{CoreError, Rank};

use crate::intlist::IntCache;
use crate::{map_err, panic_message, py_error, run};

/// Batches from this many texts on build their lists with the cyclic garbage collector paused.
const GC_PAUSE_MIN: usize = 256;

/// Pauses Python's cyclic garbage collector (if it is on) until dropped.
///
/// Why: every new list counts as a GC allocation, so a batch of thousands of result lists
/// sets off many collections that traverse the young lists again and again (older generations
/// included), for nothing: lists of ints hold no cycles. Paused, they are traversed once after
/// the call. The state is restored on every exit path, errors included.
struct GcPause<'py> {
    gc: Option<Bound<'py, PyModule>>,
}

impl<'py> GcPause<'py> {
    fn new(py: Python<'py>) -> Self {
        let gc = py.import("gc").ok().filter(|gc| {
            gc.call_method0("isenabled").and_then(|r| r.extract::<bool>()).unwrap_or(false)
                && gc.call_method0("disable").is_ok()
        });
        GcPause { gc }
    }
}

impl Drop for GcPause<'_> {
    fn drop(&mut self) {
        if let Some(gc) = &self.gc {
            let _ = gc.call_method0("enable");
        }
    }
}

/// The texts of a batch call (a list or tuple of `str`, or any iterable of them), held as
/// Python objects until their chunk is due. Each one's UTF-8 form is taken by the calling
/// thread, attached, chunk by chunk (`extract`), and read by the workers (`get`) once its
/// chunk is published; chunks are cut by length in characters (its UTF-8 length is not known
/// before the transcoding that this defers).
pub(crate) struct Texts<'py> {
    items: Vec<Bound<'py, PyAny>>,
    shared: Shared,
}

/// The part of `Texts` that worker threads read.
struct Shared {
    slots: Vec<OnceLock<PyBackedStr>>,
    parts: Vec<(usize, usize)>,
}

impl Shared {
    /// The text at `i`, once its chunk has been extracted.
    fn get(&self, i: usize) -> Result<&str, CoreError> {
        match self.slots.get(i).and_then(OnceLock::get) {
            Some(s) => Ok(s),
            None => Err(CoreError::Internal(format!("text {i} was read before it was extracted"))),
        }
    }
}

impl<'py> Texts<'py> {
    /// Checks that `texts` holds only `str` (a `TypeError` naming the first that is not) and
    /// cuts it into chunks; no text is converted yet.
    pub(crate) fn new(texts: &Bound<'py, PyAny>) -> PyResult<Self> {
        if texts.is_instance_of::<PyString>() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "expected a list of str, not a single str; encode one text with encode()",
            ));
        }
        let items: Vec<Bound<'py, PyAny>> = if let Ok(list) = texts.cast::<PyList>() {
            list.iter().collect()
        } else if let Ok(tuple) = texts.cast::<PyTuple>() {
            tuple.iter().collect()
        } else {
            texts.try_iter()?.collect::<PyResult<_>>()?
        };
        let mut lens = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let s = item.cast::<PyString>().map_err(|_| {
                let kind = item.get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string());
                pyo3::exceptions::PyTypeError::new_err(format!("texts[{i}] is {kind}, expected str"))
            })?;
            lens.push(s.len()?);
        }
        let slots = (0..items.len()).map(|_| OnceLock::new()).collect();
        Ok(Texts { items, shared: Shared { slots, parts: chunks(&lens) } })
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Takes the UTF-8 form of every text of chunk `c` (a `UnicodeEncodeError` for a lone
    /// surrogate, as `str.encode` gives).
    fn extract(&self, c: usize) -> PyResult<()> {
        let (a, b) = self.shared.parts[c];
        for i in a..b {
            let s: PyBackedStr = self.items[i].extract()?;
            // A chunk is extracted once; a second `set` could only store the same text.
            let _ = self.shared.slots[i].set(s);
        }
        Ok(())
    }
}

/// `encode_all` for the common result: one `list[int]` per text (`ints` builds them), in a
/// list. `encode` gets each text's index in `texts` (for per-text seeds) and the text.
pub(crate) fn id_lists<'py, S: Default + Send>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    num_threads: usize,
    ints: &IntCache,
    encode: impl Fn(usize, &str, &mut S, &mut Vec<Rank>) -> Result<(), CoreError> + Sync,
) -> PyResult<Bound<'py, PyList>> {
    let texts = Texts::new(texts)?;
    let lists = encode_all(py, &texts, num_threads, encode, |ids| ints.list(py, ids))?;
    PyList::new(py, lists)
}

/// Encodes every text and converts each result, in input order: for one thread, chunk by
/// chunk (`chunks`: the chunk extracted, encoded without the interpreter into one reused
/// buffer, then converted); else `pipeline`.
///
/// Why chunks on one thread too: converting ids while they are still in cache, from a buffer
/// that is reused (fresh memory costs a page fault per 4 KB on a first pass), is faster than
/// encoding everything first; a release of the interpreter per chunk costs nothing beside.
pub(crate) fn encode_all<'py, T, S: Default + Send>(
    py: Python<'py>,
    texts: &Texts<'py>,
    num_threads: usize,
    encode: impl Fn(usize, &str, &mut S, &mut Vec<Rank>) -> Result<(), CoreError> + Sync,
    mut convert: impl FnMut(&[Rank]) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    let threads = num_threads.max(1).min(texts.len());
    let _gc = (texts.len() >= GC_PAUSE_MIN).then(|| GcPause::new(py));
    if threads > 1 {
        return pipeline(py, texts, threads, encode, convert);
    }
    let shared = &texts.shared;
    let mut scratch = S::default();
    let (mut flat, mut ends) = (Vec::new(), Vec::new());
    let mut out = Vec::with_capacity(texts.len());
    for (c, &(a, b)) in shared.parts.iter().enumerate() {
        texts.extract(c)?;
        (flat, ends) = run(py, || {
            flat.clear();
            ends.clear();
            for i in a..b {
                encode(i, shared.get(i)?, &mut scratch, &mut flat)?;
                ends.push(flat.len());
            }
            Ok((flat, ends))
        })?;
        let mut start = 0;
        for &end in &ends {
            out.push(convert(flat.get(start..end).unwrap_or(&[]))?);
            start = end;
        }
    }
    Ok(out)
}

/// Documents are handed out in chunks of about this many characters (and at most
/// `CHUNK_DOCS` documents), so that thousands of short lines do not each pay for a channel
/// message and a release of the interpreter: per document those cost about as much as
/// encoding a line.
const CHUNK_CHARS: usize = 16 << 10;
const CHUNK_DOCS: usize = 256;

/// Consecutive runs of documents `(start, end)`, each about `CHUNK_CHARS` long, from the
/// documents' lengths.
fn chunks(lens: &[usize]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, len) in lens.iter().enumerate() {
        size += len + 16;
        if size >= CHUNK_CHARS || i + 1 - start >= CHUNK_DOCS {
            out.push((start, i + 1));
            (start, size) = (i + 1, 0);
        }
    }
    if start < lens.len() {
        out.push((start, lens.len()));
    }
    out
}

/// Encodes `texts` on `threads` threads, the calling thread being one of them: it first
/// extracts the texts chunk by chunk (publishing each chunk to the workers as it is done, so
/// they start at once), then converts the results in input order with `convert` (attached to
/// the interpreter) as they become ready, and encodes chunks itself while the next one in
/// order is not ready yet, so no core idles. Work is handed out by chunk (`chunks`). The
/// first error in input order is returned (no new chunks are started once one fails; a text
/// that cannot be extracted fails the call first); a panic becomes `InternalError`.
pub(crate) fn pipeline<'py, T, S: Default + Send>(
    py: Python<'py>,
    texts: &Texts<'py>,
    threads: usize,
    encode: impl Fn(usize, &str, &mut S, &mut Vec<Rank>) -> Result<(), CoreError> + Sync,
    mut convert: impl FnMut(&[Rank]) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::mpsc;

    // A chunk's ids, concatenated, and where each document's end: one allocation per chunk
    // crosses threads (freeing thousands of small vectors made on another thread is slow).
    type Done = Result<(Vec<Rank>, Vec<usize>), CoreError>;
    type Item = (usize, std::thread::Result<Done>);
    type Slot = Option<PyResult<(Vec<Rank>, Vec<usize>)>>;
    let shared = &texts.shared;
    let parts = &shared.parts;
    let next = AtomicUsize::new(0);
    // Chunks whose texts are extracted: `ready` > c publishes chunk c's texts.
    let ready = AtomicUsize::new(0);
    // The lowest chunk that failed so far: later chunks are not needed.
    let failed = AtomicUsize::new(usize::MAX);
    // Set when the calling thread needs no more results (done, or an extraction failed).
    let done_all = AtomicBool::new(false);
    // Hands out the next chunk once its texts are extracted, or `None` when all are taken or
    // the chunk is not needed. A chunk before the first failing one is never dropped (it may
    // be claimed first and finish last).
    let claim = || {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= parts.len() || i > failed.load(Ordering::Relaxed) {
            return None;
        }
        // Only workers wait here: the calling thread claims after extracting everything.
        while ready.load(Ordering::Acquire) <= i {
            if done_all.load(Ordering::Relaxed) {
                return None;
            }
            std::thread::yield_now();
        }
        (!done_all.load(Ordering::Relaxed)).then_some(i)
    };
    // A chunk's ids, stopping at its first error (later documents are not needed).
    let encode_chunk = |c: usize, scratch: &mut S| -> Done {
        let (a, b) = parts[c];
        let (mut flat, mut ends) = (Vec::new(), Vec::with_capacity(b - a));
        for i in a..b {
            encode(i, shared.get(i)?, scratch, &mut flat)?;
            ends.push(flat.len());
        }
        Ok((flat, ends))
    };
    let (tx, rx) = mpsc::channel::<Item>();
    // Only this thread receives; the mutex just makes the receiver shareable with `detach`.
    let rx = std::sync::Mutex::new(rx);
    std::thread::scope(|s| {
        for _ in 1..threads {
            let tx = tx.clone();
            let (claim, encode_chunk) = (&claim, &encode_chunk);
            s.spawn(move || {
                let mut scratch = S::default();
                while let Some(c) = claim() {
                    let r = catch_unwind(AssertUnwindSafe(|| encode_chunk(c, &mut scratch)));
                    if tx.send((c, r)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let result = (|| {
            for c in 0..parts.len() {
                texts.extract(c)?;
                ready.store(c + 1, Ordering::Release);
            }
            // From here on no worker waits for `ready`.
            let mut pending: Vec<Slot> = (0..parts.len()).map(|_| None).collect();
            let mut out = Vec::with_capacity(texts.len());
            let mut done = 0usize;
            let mut scratch = S::default();
            let store = |pending: &mut Vec<Slot>, (c, r): Item| {
                let r = match r {
                    Ok(r) => r.map_err(|e| map_err(py, e)),
                    Err(panic) => Err(py_error(py, "InternalError", (panic_message(panic),))),
                };
                if r.is_err() {
                    // Every chunk before c was handed out before c and is never dropped (see
                    // `claim`), so it still arrives: the error reported is that of the first
                    // failing document, as in order.
                    failed.fetch_min(c, Ordering::Relaxed);
                }
                pending[c] = Some(r);
            };
            while done < parts.len() {
                while let Some(item) = rx.lock().ok().and_then(|rx| rx.try_recv().ok()) {
                    store(&mut pending, item);
                }
                while let Some(item) = pending.get_mut(done).and_then(Option::take) {
                    let (flat, ends) = item?;
                    let mut start = 0;
                    for end in ends {
                        out.push(convert(flat.get(start..end).unwrap_or(&[]))?);
                        start = end;
                    }
                    done += 1;
                }
                if done == parts.len() {
                    break;
                }
                if pending[done].is_none() {
                    // The next result is not ready: encode a chunk here rather than wait.
                    // Detached, so that other Python threads run meanwhile.
                    let item = match claim() {
                        Some(c) => (c, py.detach(|| catch_unwind(AssertUnwindSafe(|| encode_chunk(c, &mut scratch))))),
                        None => match py.detach(|| rx.lock().ok().and_then(|rx| rx.recv().ok())) {
                            Some(item) => item,
                            None => {
                                return Err(py_error(
                                    py,
                                    "InternalError",
                                    ("a worker thread stopped without a result",),
                                ))
                            }
                        },
                    };
                    store(&mut pending, item);
                }
            }
            Ok(out)
        })();
        done_all.store(true, Ordering::Relaxed);
        result
    })
}
