//! Binding for `tokenmill.data.prepare`: runs the core's `data::prepare` pipeline with a
//! compiled tokenizer (an `Encoding`'s `CoreBPE` or a `tokenizer.json`'s `HfTokenizer`).
//!
//! The pipeline runs detached from the interpreter; the progress callback re-attaches on the
//! calling thread about ten times a second, and a pending signal (Ctrl-C) stops the run.
//! What it does not do: policy (which tokenizer, end-of-text id, job identity, index.json).

use std::path::PathBuf;

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::sync::{Arc, Mutex};
use tokenmill_core::bpe::Scratch as BpeScratch;
use tokenmill_core::data::prepare::{prepare as core_prepare, DocEncoder, Eot, PrepareOptions, Progress};

use tokenmill_core::data::reader::{ExternalBatch, ExternalRows, Format, OpenExternal, ReadOptions, Reader, Source};
use tokenmill_core::data::shards::{Dtype, Layout};
use tokenmill_core::hf::tokenizer::Scratch as HfScratch;
use tokenmill_core::hf::HfTokenizer;
use tokenmill_core::pretokenize::cuts::CutMode;
use tokenmill_core::{CoreBpe, CoreError};

use crate::bpe::PyCoreBpe;
use crate::hf::PyHfTokenizer;
use crate::{map_err, panic_message, py_error};

/// Ordinary text (special tokens' text is text), as `encode_ordinary`.
struct Ordinary<'a>(&'a CoreBpe);

impl DocEncoder for Ordinary<'_> {
    type Scratch = BpeScratch;
    fn encode_doc(&self, text: &str, out: &mut Vec<u32>, scratch: &mut BpeScratch) -> Result<(), CoreError> {
        self.0.encode_segment(text, out, scratch)
    }
}

/// One sequence without post-processing (`add_special_tokens=False`); `skip`: added tokens
/// whose text is encoded as text.
struct Sequence<'a> {
    tok: &'a HfTokenizer,
    skip: &'a [u32],
}

impl DocEncoder for Sequence<'_> {
    type Scratch = HfScratch;
    fn encode_doc(&self, text: &str, out: &mut Vec<u32>, scratch: &mut HfScratch) -> Result<(), CoreError> {
        self.tok.sequence_ids(text, out, self.skip, scratch)
    }
}

/// A tokenizer with no compiled form (word, char, classic BPE): its `encode_ordinary(text)`,
/// called on the interpreter (the workers take turns; reading and writing stay parallel). The
/// Python exception it raises is kept in `slot`.
struct PyEncode<'a> {
    encode: &'a Py<PyAny>,
    slot: &'a ErrSlot,
}

impl DocEncoder for PyEncode<'_> {
    type Scratch = ();
    fn encode_doc(&self, text: &str, out: &mut Vec<u32>, _: &mut ()) -> Result<(), CoreError> {
        Python::attach(|py| {
            let ids = self.encode.call1(py, (text,)).and_then(|r| r.extract::<Vec<u32>>(py));
            out.extend(ids.map_err(|e| self.slot.keep("encode_ordinary", e))?);
            Ok(())
        })
    }
}

/// Runs `prepare`; returns the summary as JSON text. `tokenizer`: a `CoreBPE`, an
/// `HfTokenizer`, or a Python callable `encode_ordinary(text) -> list[int]`. `ranges`: per
/// source, `(start, end)` to read only the lines starting in that byte range, or None.
#[pyfunction]
#[pyo3(signature = (tokenizer, sources, out, *, shard_tokens, workers, eot, eot_id, dtype, layout, by_line, text_field,
                    skip_bad, skip_ids, unit=0, block_bytes=1 << 20, progress=None, open_rows=None, ranges=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn prepare(
    py: Python<'_>,
    tokenizer: &Bound<'_, PyAny>,
    sources: Vec<(PathBuf, String)>,
    out: PathBuf,
    shard_tokens: u64,
    workers: usize,
    eot: &str,
    eot_id: Option<u32>,
    dtype: &str,
    layout: &str,
    by_line: bool,
    text_field: String,
    skip_bad: bool,
    skip_ids: Vec<u32>,
    unit: usize,
    block_bytes: usize,
    progress: Option<Py<PyAny>>,
    open_rows: Option<Py<PyAny>>,
    ranges: Option<Vec<Option<(u64, u64)>>>,
) -> PyResult<String> {
    let err = |e| map_err(py, e);
    let sources = self::sources(sources, &ranges.unwrap_or_default()).map_err(err)?;
    let bpe_obj = tokenizer.cast::<PyCoreBpe>().ok();
    let hf_obj = tokenizer.cast::<PyHfTokenizer>().ok();
    let bpe: Option<&CoreBpe> = bpe_obj.as_ref().map(|b| &b.get().inner);
    let hf: Option<&HfTokenizer> = hf_obj.as_ref().map(|h| h.get().core());
    let callable = (bpe.is_none() && hf.is_none() && tokenizer.is_callable()).then(|| tokenizer.clone().unbind());
    // Only the hand-matched patterns have proven safe cut points (`pretokenize::cuts`).
    let cut = bpe.is_some_and(|b| b.pretokenizer.is_fast());
    let opts = PrepareOptions {
        out,
        unit,
        shard_tokens: shard_tokens.max(1),
        workers: workers.max(1),
        eot: Eot::parse(eot).map_err(err)?,
        eot_id,
        dtype: Dtype::parse(dtype).map_err(err)?,
        layout: Layout::parse(layout).map_err(err)?,
        read: ReadOptions {
            by_line,
            text_field,
            skip_bad,
            block_bytes: block_bytes.max(64),
            cut: cut.then_some(CutMode::Safe),
            lossy: false,
            strip_bom: false,
            utf8_hint: "the corpus must be UTF-8".into(),
            record_hint: "(pass skip_bad=True or --skip-bad to count and skip such records)".into(),
        },
    };
    // Progress and interrupts: back on the interpreter for a moment.
    let mut report = |p: Progress| -> Result<(), CoreError> {
        Python::attach(|py| {
            py.check_signals().map_err(|_| CoreError::Cancelled)?;
            if let Some(cb) = &progress {
                cb.call1(py, (p.input_bytes, p.tokens, p.documents))
                    .map_err(|e| CoreError::Input(format!("progress callback failed: {e}")))?;
            }
            Ok(())
        })
    };
    let slot = ErrSlot::default();
    let r = py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let rows = external(open_rows, &slot);
            if let Some(b) = bpe {
                core_prepare(&Ordinary(b), sources, rows, &opts, &mut report)
            } else if let Some(tok) = hf {
                core_prepare(&Sequence { tok, skip: &skip_ids }, sources, rows, &opts, &mut report)
            } else if let Some(encode) = &callable {
                core_prepare(&PyEncode { encode, slot: &slot }, sources, rows, &opts, &mut report)
            } else {
                Err(CoreError::Input("prepare needs a CoreBPE, an HfTokenizer or an encode_ordinary callable".into()))
            }
        }))
    });
    let summary = match r {
        Ok(Ok(s)) => s,
        Ok(Err(CoreError::Cancelled)) => {
            return Err(PyErr::new::<pyo3::exceptions::PyKeyboardInterrupt, _>(
                "prepare was interrupted; run the same command again to resume",
            ))
        }
        Ok(Err(e)) => return Err(slot.raise(py, e)),
        Err(panic) => return Err(py_error(py, "InternalError", (panic_message(panic),))),
    };
    Ok(summary_json(&summary).to_string())
}

/// Where the parquet opener keeps the Python exception that stopped it, so that the caller
/// raises that exception (a `CorpusError` with its attributes, a missing-pyarrow hint) rather
/// than a `CorpusError` with its text.
#[derive(Clone, Default)]
pub(crate) struct ErrSlot(Arc<Mutex<Option<PyErr>>>);

impl ErrSlot {
    fn keep(&self, path: &str, e: PyErr) -> CoreError {
        let msg = format!("{path}: {e}");
        if let Ok(mut slot) = self.0.lock() {
            slot.get_or_insert(e);
        }
        CoreError::Corpus(msg)
    }

    /// The kept exception, else `e` as a Python exception.
    pub(crate) fn raise(&self, py: Python<'_>, e: CoreError) -> PyErr {
        match self.0.lock().ok().and_then(|mut s| s.take()) {
            Some(kept) => kept,
            None => map_err(py, e),
        }
    }
}

/// The reader's way to open a parquet source: `open_rows(path, start_row)` (Python) returns an
/// iterator of `(data, offsets, valid)` bytes per batch of rows (see `batch`). A Python
/// exception it raises is kept in `slot`.
pub(crate) fn external(open_rows: Option<Py<PyAny>>, slot: &ErrSlot) -> Option<OpenExternal> {
    let open_rows = open_rows?;
    let slot = slot.clone();
    Some(Box::new(move |src: &Source, start: u64| -> Result<ExternalRows, CoreError> {
        let path = src.path.display().to_string();
        let it = Python::attach(|py| {
            open_rows
                .call1(py, (path.clone(), start))
                .and_then(|r| r.bind(py).try_iter().map(|i| i.unbind().into_any()))
        })
        .map_err(|e| slot.keep(&path, e))?;
        let slot = slot.clone();
        let mut ready = std::collections::VecDeque::new();
        Ok(Box::new(std::iter::from_fn(move || loop {
            if let Some(b) = ready.pop_front() {
                return Some(Ok(b));
            }
            let got = Python::attach(|py| {
                let mut it = it.bind(py).clone().try_iter().ok()?;
                Some(it.next()?.and_then(|item| batches(&item)))
            })?;
            match got {
                Ok(pieces) => ready.extend(pieces),
                Err(e) => return Some(Err(slot.keep(&path, e))),
            }
        })))
    }))
}

/// The core's corpus reader for Python (`tokenmill.data.corpus.Corpus` reads files with it):
/// `next_texts()` returns the documents (or parts of documents, when `cut`) of the next block
/// as `str`, reading without the GIL, until `None`: `(parts, texts)`, `parts` true when the
/// texts are a plain-text file's, already cut at `cut` points. Counters: `documents` (completed, empty
/// ones included), `skipped`, `text_bytes` (UTF-8 bytes returned), `disk_bytes` (bytes read
/// from the files on disk).
#[pyclass(frozen, module = "tokenmill._core")]
pub struct CorpusReader {
    reader: Mutex<Reader>,
    slot: ErrSlot,
    counts: Mutex<[u64; 3]>,
    /// Per source: a plain-text file read as one document (in parts when cut).
    text_docs: Vec<bool>,
}

#[pymethods]
impl CorpusReader {
    #[new]
    #[pyo3(signature = (sources, text_field="text".to_string(), cut=None, errors="strict", *, by_line=false,
                        skip_bad=false, block_bytes=1 << 20, open_rows=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        sources: Vec<(PathBuf, String)>,
        text_field: String,
        cut: Option<&str>,
        errors: &str,
        by_line: bool,
        skip_bad: bool,
        block_bytes: usize,
        open_rows: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        let mut opts = read_options(cut, errors).map_err(|e| map_err(py, e))?;
        opts.text_field = text_field;
        opts.by_line = by_line;
        opts.skip_bad = skip_bad;
        opts.block_bytes = block_bytes.max(64);
        let text_docs = sources.iter().map(|(_, f)| f == "text" && !by_line).collect();
        let slot = ErrSlot::default();
        let reader = reader(sources, &[], opts, external(open_rows, &slot)).map_err(|e| slot.raise(py, e))?;
        Ok(CorpusReader { reader: Mutex::new(reader), slot, counts: Mutex::new([0; 3]), text_docs })
    }

    /// The next block's texts, or `None` after the last source.
    fn next_texts(&self, py: Python<'_>) -> PyResult<Option<(bool, Vec<Py<PyString>>)>> {
        let poisoned = || CoreError::Internal("the corpus reader was poisoned by an earlier panic".into());
        let got = py
            .detach(|| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let mut r = self.reader.lock().map_err(|_| poisoned())?;
                    let before = r.position();
                    Ok(r.next_block()?.map(|b| (b, before)))
                }))
            })
            .map_err(|panic| py_error(py, "InternalError", (panic_message(panic),)))?
            .map_err(|e| self.slot.raise(py, e))?;
        let Some((block, before)) = got else { return Ok(None) };
        // Parts of a plain-text document are already cut; documents of other formats are whole.
        let parts = self.text_docs.get(block.end.source) == Some(&true);
        let mut counts = self.counts.lock().map_err(|_| map_err(py, poisoned()))?;
        let done = block.spans.iter().filter(|s| s.last).count() as u64;
        counts[0] += done + (block.end.empty - before.empty);
        counts[1] += block.end.skipped - before.skipped;
        counts[2] += block.spans.iter().map(|s| (s.end - s.start) as u64).sum::<u64>();
        let texts = block.spans.iter().map(|s| PyString::new(py, &block.text[s.start..s.end]).unbind()).collect();
        Ok(Some((parts, texts)))
    }

    #[getter]
    fn documents(&self) -> u64 {
        self.counts.lock().map_or(0, |c| c[0])
    }

    #[getter]
    fn skipped(&self) -> u64 {
        self.counts.lock().map_or(0, |c| c[1])
    }

    #[getter]
    fn text_bytes(&self) -> u64 {
        self.counts.lock().map_or(0, |c| c[2])
    }

    #[getter]
    fn disk_bytes(&self) -> u64 {
        self.reader.lock().map_or(0, |r| r.disk_bytes())
    }
}

/// Read options from the Python words: `cut` None, `"safe"` or `"line"`; `errors` `"strict"`
/// or `"replace"`. The hints name the training API's options.
pub(crate) fn read_options(cut: Option<&str>, errors: &str) -> Result<ReadOptions, CoreError> {
    let lossy = match errors {
        "strict" => false,
        "replace" => true,
        _ => return Err(CoreError::Input(format!("errors must be \"strict\" or \"replace\", not {errors:?}"))),
    };
    Ok(ReadOptions {
        cut: cut.map(CutMode::parse).transpose()?,
        lossy,
        strip_bom: true,
        utf8_hint: "pass errors=\"replace\" to substitute U+FFFD".into(),
        ..ReadOptions::default()
    })
}

/// A reader from the start of `sources` (see `sources`).
pub(crate) fn reader(
    sources: Vec<(PathBuf, String)>,
    ranges: &[Option<(u64, u64)>],
    opts: ReadOptions,
    external: Option<OpenExternal>,
) -> Result<Reader, CoreError> {
    Reader::with_external(self::sources(sources, ranges)?, opts, Default::default(), external)
}

/// Sources from `(path, format)` pairs and, per source, an optional byte range (`ranges` may
/// be shorter than `sources`: the rest are whole files).
pub(crate) fn sources(
    sources: Vec<(PathBuf, String)>,
    ranges: &[Option<(u64, u64)>],
) -> Result<Vec<Source>, CoreError> {
    sources
        .into_iter()
        .enumerate()
        .map(|(i, (path, f))| {
            Ok(Source { range: ranges.get(i).copied().flatten(), ..Source::new(path, Format::parse(&f)?) })
        })
        .collect()
}

/// `obj`'s bytes, held open: any C-contiguous buffer of unsigned bytes (`bytes`, or Arrow's
/// buffers through `memoryview(...).cast("B")`: Arrow exports them as signed bytes).
fn byte_buffer(obj: &Bound<'_, PyAny>) -> PyResult<PyBuffer<u8>> {
    let kind = || obj.get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string());
    let buf = PyBuffer::<u8>::get(obj)
        .map_err(|_| PyValueError::new_err(format!("parquet batch: expected a buffer of bytes, not {}", kind())))?;
    if !buf.is_c_contiguous() {
        return Err(PyValueError::new_err("parquet batch: a buffer is not contiguous"));
    }
    Ok(buf)
}

/// The bytes of a buffer checked by `byte_buffer`.
fn buffer_slice(buf: &PyBuffer<u8>) -> &[u8] {
    // SAFETY: a C-contiguous buffer of `len_bytes` bytes (`byte_buffer` checked both), kept
    // alive while `buf` is borrowed; only read while attached, when no Python code can change it.
    unsafe { std::slice::from_raw_parts(buf.buf_ptr() as *const u8, buf.len_bytes()) }
}

/// One batch of Arrow rows from `open_rows` (see `tokenmill.data.sources.parquet_rows`):
/// `(data, offsets, width, offset, rows, validity)`, Arrow's buffers (any object with the
/// buffer protocol: read in place, not copied into `bytes` first, which cost a copy and fresh
/// pages for every byte of text). Cut here into batches of about `PIECE` bytes of text (a block
/// of the pipeline, whatever the row sizes): no per-row or per-piece work in Python.
fn batches(item: &Bound<'_, PyAny>) -> PyResult<Vec<ExternalBatch>> {
    type Item<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>, usize, usize, usize, Option<Bound<'py, PyAny>>);
    let (data, offsets, width, first, rows, valid): Item<'_> = item.extract()?;
    let bad = |what: &str| PyValueError::new_err(format!("parquet batch: {what}"));
    let (data, offsets, valid) =
        (byte_buffer(&data)?, byte_buffer(&offsets)?, valid.as_ref().map(byte_buffer).transpose()?);
    let (data, offsets, valid) = (buffer_slice(&data), buffer_slice(&offsets), valid.as_ref().map(buffer_slice));
    if !(width == 4 || width == 8) || offsets.len() < (first + rows + 1) * width {
        return Err(bad("offsets shorter than the rows"));
    }
    let at = |i: usize| -> i64 {
        let k = (first + i) * width;
        let mut w = [0u8; 8];
        w[..width].copy_from_slice(&offsets[k..k + width]);
        if width == 4 {
            i32::from_le_bytes([w[0], w[1], w[2], w[3]]) as i64
        } else {
            i64::from_le_bytes(w)
        }
    };
    let is_valid = |i: usize| {
        valid.as_ref().is_none_or(|v| v.get((first + i) / 8).is_some_and(|b| b >> ((first + i) % 8) & 1 == 1))
    };
    const PIECE: i64 = 1 << 20;
    let mut out = Vec::new();
    let mut a = 0;
    while a < rows {
        let mut z = a + 1;
        while z < rows && at(z) - at(a) < PIECE {
            z += 1;
        }
        let (lo, hi) = (at(a), at(z));
        let text = usize::try_from(lo).ok().zip(usize::try_from(hi).ok()).and_then(|(l, h)| data.get(l..h));
        let text = text.ok_or_else(|| bad("offsets outside the data"))?;
        let offsets = (a..=z).map(|i| at(i) - lo).collect();
        let valid = valid.is_some().then(|| {
            let mut bits = vec![0u8; (z - a).div_ceil(8)];
            for i in a..z {
                if is_valid(i) {
                    bits[(i - a) / 8] |= 1 << ((i - a) % 8);
                }
            }
            bits
        });
        out.push(ExternalBatch { data: text.to_vec(), offsets, valid });
        a = z;
    }
    Ok(out)
}

fn summary_json(s: &tokenmill_core::data::prepare::Summary) -> serde_json::Value {
    serde_json::json!({
        "resumed": s.resumed,
        "documents": s.totals.documents,
        "tokens": s.totals.tokens,
        "text_bytes": s.totals.text_bytes,
        "skipped": s.skipped,
        "empty": s.empty,
        "source_documents": s.source_documents,
        "input_bytes": s.input_bytes,
        "shards": s.shards.iter().map(|i| serde_json::json!({
            "files": i.files, "tokens": i.tokens, "documents": i.documents,
            "first_token": i.first_token, "first_document": i.first_document,
        })).collect::<Vec<_>>(),
    })
}
