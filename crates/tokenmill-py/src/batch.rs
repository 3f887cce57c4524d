//! The ordered batch scheduler behind every family's `encode_batch` (BPE, Hugging Face,
//! WordPiece, SentencePiece): documents are encoded on worker threads while the calling thread
//! turns finished results into Python objects, in input order.
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
//! its chunk is queued (into the chunk's buffer, by `text::utf8_of`), and the text is released
//! once its ids are converted. For a text that is not pure ASCII that means transcoding it,
//! which on a batch of 10 MB of multilingual lines was a serial tenth of the 2-thread time
//! when every text was converted before the first chunk started (with CPython's transcoder,
//! three times slower than ours). Every serial step at either end of a call (a pass over all
//! texts before the first chunk, the release of all texts after the last) cuts the 2-thread
//! speed-up: with them, a 2-thread BERT batch kept both cores busy 92% of its time, without
//! them 99%.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use tokenmill_core::{CoreError, Rank};

use crate::intlist::IntCache;
use crate::text::{utf8_of, Utf8};
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

/// Where the texts of a batch come from: a list or tuple is read in place, by index; any other
/// iterable is collected first.
///
/// Why in place: taking a reference to every text up front was a pass over every text object
/// (a likely cache miss each) before any thread could start: a serial 3-4% of a 2-thread BERT
/// batch of short lines. Now each text is touched once, when its chunk is extracted.
enum Source<'py> {
    List(Bound<'py, PyList>),
    Tuple(Bound<'py, PyTuple>),
    Items(Vec<Bound<'py, PyAny>>),
}

/// The texts of a batch call (a list or tuple of `str`, or any iterable of them). The calling
/// thread takes their UTF-8 forms, attached, a chunk at a time (`chunk`), and hands each chunk
/// to whichever thread encodes it; a text is checked (a `TypeError` naming the first that is
/// not a `str`) when its chunk is extracted.
pub(crate) struct Texts<'py> {
    source: Source<'py>,
    len: usize,
}

/// Consecutive texts, their UTF-8 forms taken: `start` is the index of the first. The texts
/// are released by the calling thread, attached (released elsewhere they would go through
/// pyo3's global pool of deferred reference counts).
pub(crate) struct Chunk {
    start: usize,
    texts: Vec<Utf8>,
    /// The UTF-8 forms that were transcoded here (`Utf8::Own`), one after another.
    buf: String,
}

impl Chunk {
    fn len(&self) -> usize {
        self.texts.len()
    }

    /// Releases the texts (attached: the caller holds the interpreter) and hands back the
    /// buffer for the next chunk.
    fn recycle(self, _py: Python<'_>) -> String {
        self.buf
    }

    fn text(&self, k: usize) -> &str {
        match &self.texts[k] {
            Utf8::Shared(s) => s,
            Utf8::Own(a, b) => self.buf.get(*a..*b).unwrap_or(""),
        }
    }
}

/// A chunk holds about this many bytes of text (16 more counted per document, for its fixed
/// costs), and at most `CHUNK_DOCS` documents, so that thousands of short lines do not each pay
/// for a hand-over and a release of the interpreter: per document those cost about as much as
/// encoding a line.
const CHUNK_BYTES: usize = 16 << 10;
const CHUNK_DOCS: usize = 256;

impl<'py> Texts<'py> {
    /// Refuses a single `str` (a `TypeError`) and collects an iterable that is not a list or a
    /// tuple; no text is read yet.
    pub(crate) fn new(texts: &Bound<'py, PyAny>) -> PyResult<Self> {
        if texts.is_instance_of::<PyString>() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "expected a list of str, not a single str; encode one text with encode()",
            ));
        }
        let source = if let Ok(list) = texts.cast::<PyList>() {
            Source::List(list.clone())
        } else if let Ok(tuple) = texts.cast::<PyTuple>() {
            Source::Tuple(tuple.clone())
        } else {
            Source::Items(texts.try_iter()?.collect::<PyResult<_>>()?)
        };
        let len = match &source {
            Source::List(l) => l.len(),
            Source::Tuple(t) => t.len(),
            Source::Items(v) => v.len(),
        };
        Ok(Texts { source, len })
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The UTF-8 form of text `i` (see `utf8_of`): a `TypeError` naming it if it is not a
    /// `str`, a `UnicodeEncodeError` for a lone surrogate (as `str.encode` gives).
    fn text(&self, i: usize, buf: &mut String) -> PyResult<Utf8> {
        let item = match &self.source {
            // Other Python threads run while a one-thread batch encodes: a list may shrink.
            Source::List(l) => l.get_item(i).map_err(|_| {
                pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "the list of texts changed size during the call (texts[{i}] is gone); \
                     pass a copy, list(texts), if another thread may change it"
                ))
            })?,
            Source::Tuple(t) => t.get_item(i)?,
            Source::Items(v) => v[i].clone(),
        };
        // One type check: the cast, then the UTF-8 form of a known `str`.
        let s = item.cast_into::<PyString>().map_err(|e| {
            let kind = e.into_inner().get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string());
            pyo3::exceptions::PyTypeError::new_err(format!("texts[{i}] is {kind}, expected str"))
        })?;
        utf8_of(s, buf)
    }

    /// The texts from `start` on: about `CHUNK_BYTES` of them, at least one unless the first
    /// cannot be extracted. `buf` (cleared first) takes their transcoded forms: pass a
    /// converted chunk's (`Chunk::recycle`), since fresh memory costs a page fault per 4 KB
    /// and is cold in the CPU's caches.
    ///
    /// A text that cannot be extracted ends the chunk before it and comes back as the error,
    /// which the caller raises only after the chunk is encoded: the call's error is then that
    /// of the first bad document in input order, whichever way it is bad.
    fn chunk(&self, start: usize, mut buf: String) -> (Chunk, Option<PyErr>) {
        buf.clear();
        buf.reserve(2 * CHUNK_BYTES);
        let (mut texts, mut size) = (Vec::new(), 0);
        let mut i = start;
        while i < self.len && texts.len() < CHUNK_DOCS && size < CHUNK_BYTES {
            let t = match self.text(i, &mut buf) {
                Ok(t) => t,
                Err(e) => return (Chunk { start, texts, buf }, Some(e)),
            };
            size += match &t {
                Utf8::Shared(s) => s.len(),
                Utf8::Own(a, b) => b - a,
            } + 16;
            texts.push(t);
            i += 1;
        }
        (Chunk { start, texts, buf }, None)
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
    let mut scratch = S::default();
    let mut ids = Ids::default();
    let mut out = Vec::with_capacity(texts.len());
    let (mut start, mut buf) = (0, String::new());
    while start < texts.len() {
        let (chunk, bad) = texts.chunk(start, buf);
        ids = run(py, || encode_chunk(&encode, &chunk, &mut scratch, ids))?;
        ids.convert(&mut convert, &mut out)?;
        if let Some(e) = bad {
            return Err(e);
        }
        start += chunk.len();
        buf = chunk.recycle(py);
    }
    Ok(out)
}

/// A chunk's ids, concatenated, and where each document's ends: one buffer per chunk (freeing
/// thousands of small vectors made on another thread is slow), recycled from chunk to chunk
/// (fresh memory costs a page fault per 4 KB).
#[derive(Default)]
struct Ids {
    flat: Vec<Rank>,
    ends: Vec<usize>,
}

impl Ids {
    /// Each document's ids through `convert`, onto `out`.
    fn convert<T>(&self, convert: &mut impl FnMut(&[Rank]) -> PyResult<T>, out: &mut Vec<T>) -> PyResult<()> {
        let mut start = 0;
        for &end in &self.ends {
            out.push(convert(self.flat.get(start..end).unwrap_or(&[]))?);
            start = end;
        }
        Ok(())
    }
}

/// Encodes a chunk into `ids` (cleared first), stopping at its first error (the later
/// documents are not needed).
fn encode_chunk<S>(
    encode: &impl Fn(usize, &str, &mut S, &mut Vec<Rank>) -> Result<(), CoreError>,
    chunk: &Chunk,
    scratch: &mut S,
    mut ids: Ids,
) -> Result<Ids, CoreError> {
    ids.flat.clear();
    ids.ends.clear();
    for k in 0..chunk.len() {
        encode(chunk.start + k, chunk.text(k), scratch, &mut ids.flat)?;
        ids.ends.push(ids.flat.len());
    }
    Ok(ids)
}

/// Chunks the calling thread keeps extracted and queued ahead of the encoders, per thread.
///
/// Why a bound: extracting every chunk first put the whole batch's transcoded text in fresh
/// memory before most of it was encoded, so each chunk was read back cold and each 4 KB of it
/// cost a page fault: a 2-thread BERT batch of 10 MB of multilingual lines used 10-20% more
/// CPU time than one thread did. A few chunks ahead keep every thread fed (a chunk is encoded
/// far slower than it is extracted) while the buffers are reused warm.
const AHEAD: usize = 4;

/// Encodes `texts` on `threads` threads, the calling thread being one of them. The calling
/// thread extracts the texts chunk by chunk, keeping `AHEAD` chunks per thread queued for the
/// workers (who wait on a condition variable when none is), converts the results in input
/// order with `convert` (attached to the interpreter) as they become ready, releasing each
/// chunk's texts and recycling its buffers, and encodes a queued chunk itself while the next
/// result in order is not ready, so no core idles. The first error in input order is returned,
/// a document that fails to encode or a text that cannot be extracted (no new chunks are
/// started once one fails); a panic becomes `InternalError`.
pub(crate) fn pipeline<'py, T, S: Default + Send>(
    py: Python<'py>,
    texts: &Texts<'py>,
    threads: usize,
    encode: impl Fn(usize, &str, &mut S, &mut Vec<Rank>) -> Result<(), CoreError> + Sync,
    mut convert: impl FnMut(&[Rank]) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    use std::collections::VecDeque;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{mpsc, Condvar, Mutex};

    /// Chunks extracted and not yet claimed; `closed` once no more will come; `waiting`: the
    /// workers asleep on `ready` (a wake-up is a system call, so it is made only for them).
    struct Queue {
        chunks: VecDeque<(usize, Chunk)>,
        closed: bool,
        waiting: usize,
    }
    /// A chunk back from its encoder, texts included (see `Chunk`): its ids, or `None` when it
    /// was not encoded because an earlier chunk had failed.
    type Item = (usize, Chunk, Option<std::thread::Result<Result<Ids, CoreError>>>);
    let queue = Mutex::new(Queue { chunks: VecDeque::new(), closed: false, waiting: 0 });
    let ready = Condvar::new();
    // Buffers the calling thread has converted, for the encoders to reuse.
    let spare: Mutex<Vec<Ids>> = Mutex::new(Vec::new());
    // The lowest chunk that failed so far: later chunks are not needed.
    let failed = AtomicUsize::new(usize::MAX);
    // A worker's next chunk, or `None` once the queue is closed and empty.
    let claim = || {
        let mut q = queue.lock().ok()?;
        loop {
            if let Some(job) = q.chunks.pop_front() {
                return Some(job);
            }
            if q.closed {
                return None;
            }
            q.waiting += 1;
            q = ready.wait(q).ok()?;
            q.waiting -= 1;
        }
    };
    // Queues a chunk (`None`: closes the queue); returns how many are queued.
    let push = |job: Option<(usize, Chunk)>| -> usize {
        let Ok(mut q) = queue.lock() else { return 0 };
        match job {
            Some(job) => q.chunks.push_back(job),
            None => q.closed = true,
        }
        if q.waiting > 0 {
            if q.closed {
                ready.notify_all();
            } else {
                ready.notify_one();
            }
        }
        q.chunks.len()
    };
    // A chunk before the first failing one is never skipped (it may be claimed first and
    // finish last), so the error reported is always that of the first failing document.
    let work = |(c, chunk): (usize, Chunk), scratch: &mut S| -> Item {
        if c > failed.load(Ordering::Relaxed) {
            return (c, chunk, None);
        }
        let ids = spare.lock().ok().and_then(|mut s| s.pop()).unwrap_or_default();
        let r = catch_unwind(AssertUnwindSafe(|| encode_chunk(&encode, &chunk, scratch, ids)));
        (c, chunk, Some(r))
    };
    let (tx, rx) = mpsc::channel::<Item>();
    // Only this thread receives; the mutex just makes the receiver shareable with `detach`.
    let rx = Mutex::new(rx);
    std::thread::scope(|s| {
        for _ in 1..threads {
            let tx = tx.clone();
            let (claim, work) = (&claim, &work);
            s.spawn(move || {
                let mut scratch = S::default();
                while let Some(job) = claim() {
                    // The receiver outlives this scope, so a send cannot fail.
                    if tx.send(work(job, &mut scratch)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let result = (|| {
            let (mut start, mut count, mut done) = (0, 0usize, 0usize);
            // A text that could not be extracted: raised once every chunk before it is
            // converted (see `Texts::chunk`).
            let mut bad: Option<PyErr> = None;
            let mut bufs: Vec<String> = Vec::new();
            let mut pending: Vec<Option<Item>> = Vec::new();
            let mut out = Vec::with_capacity(texts.len());
            let mut scratch = S::default();
            let store = |pending: &mut Vec<Option<Item>>, item: Item| {
                if matches!(item.2, Some(Ok(Err(_))) | Some(Err(_))) {
                    failed.fetch_min(item.0, Ordering::Relaxed);
                }
                let c = item.0;
                if pending.len() <= c {
                    pending.resize_with(c + 1, || None);
                }
                pending[c] = Some(item);
            };
            loop {
                // Keep the encoders fed.
                let mut queued = queue.lock().map_or(0, |q| q.chunks.len());
                while start < texts.len() && queued < AHEAD * threads {
                    let (chunk, err) = texts.chunk(start, bufs.pop().unwrap_or_default());
                    start += chunk.len();
                    if chunk.len() > 0 {
                        queued = push(Some((count, chunk)));
                        count += 1;
                    }
                    if let Some(e) = err {
                        bad = Some(e);
                        // Nothing after the bad text is needed.
                        start = texts.len();
                    }
                    if start == texts.len() {
                        push(None);
                    }
                }
                while let Some(item) = rx.lock().ok().and_then(|rx| rx.try_recv().ok()) {
                    store(&mut pending, item);
                }
                while let Some((_, chunk, r)) = pending.get_mut(done).and_then(Option::take) {
                    let ids = match r {
                        Some(Ok(Ok(ids))) => ids,
                        Some(Ok(Err(e))) => return Err(map_err(py, e)),
                        Some(Err(panic)) => return Err(py_error(py, "InternalError", (panic_message(panic),))),
                        None => {
                            return Err(py_error(
                                py,
                                "InternalError",
                                ("a chunk before the first failure was skipped",),
                            ))
                        }
                    };
                    ids.convert(&mut convert, &mut out)?;
                    if let Ok(mut s) = spare.lock() {
                        s.push(ids);
                    }
                    bufs.push(chunk.recycle(py));
                    done += 1;
                }
                if done == count && start == texts.len() {
                    match bad {
                        Some(e) => return Err(e),
                        None => break,
                    }
                }
                // The next result is not ready: encode a chunk here rather than wait (detached,
                // so that other Python threads run meanwhile); with none queued, wait for a
                // worker's result, or extract more if texts are left.
                let job = queue.lock().ok().and_then(|mut q| q.chunks.pop_front());
                let item = match job {
                    Some(job) => py.detach(|| work(job, &mut scratch)),
                    None if start < texts.len() => continue,
                    None => match py.detach(|| rx.lock().ok().and_then(|rx| rx.recv().ok())) {
                        Some(item) => item,
                        None => {
                            return Err(py_error(py, "InternalError", ("a worker thread stopped without a result",)))
                        }
                    },
                };
                store(&mut pending, item);
            }
            Ok(out)
        })();
        // Stops the workers (after their current chunk) on every exit path; the chunks left
        // are released here, attached.
        let left = queue.lock().map(|mut q| std::mem::take(&mut q.chunks)).unwrap_or_default();
        push(None);
        drop(left);
        result
    })
}
