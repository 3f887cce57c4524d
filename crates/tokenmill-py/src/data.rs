//! Binding for `tokenmill.data.prepare`: runs the core's `data::prepare` pipeline with a
//! compiled tokenizer (an `Encoding`'s `CoreBPE` or a `tokenizer.json`'s `HfTokenizer`).
//!
//! The pipeline runs detached from the interpreter; the progress callback re-attaches on the
//! calling thread about ten times a second, and a pending signal (Ctrl-C) stops the run.
//! What it does not do: policy (which tokenizer, end-of-text id, job identity, index.json).

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tokenmill_core::bpe::Scratch as BpeScratch;
use tokenmill_core::data::prepare::{prepare as core_prepare, DocEncoder, Eot, PrepareOptions, Progress};
use tokenmill_core::data::reader::{ExternalBatch, ExternalRows, Format, OpenExternal, ReadOptions, Source};
use tokenmill_core::data::shards::{Dtype, Layout};
use tokenmill_core::hf::tokenizer::Scratch as HfScratch;
use tokenmill_core::hf::HfTokenizer;
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

/// Runs `prepare`; returns the summary as JSON text.
#[pyfunction]
#[pyo3(signature = (tokenizer, sources, out, *, shard_tokens, workers, eot, eot_id, dtype, layout, by_line, text_field,
                    skip_bad, skip_ids, unit=0, block_bytes=1 << 20, progress=None, open_rows=None))]
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
) -> PyResult<String> {
    let err = |e| map_err(py, e);
    let sources = sources
        .into_iter()
        .map(|(path, f)| Ok(Source { path, format: Format::parse(&f)? }))
        .collect::<Result<Vec<_>, CoreError>>()
        .map_err(err)?;
    let bpe_obj = tokenizer.cast::<PyCoreBpe>().ok();
    let hf_obj = tokenizer.cast::<PyHfTokenizer>().ok();
    let bpe: Option<&CoreBpe> = bpe_obj.as_ref().map(|b| &b.get().inner);
    let hf: Option<&HfTokenizer> = hf_obj.as_ref().map(|h| h.get().core());
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
            cut,
            utf8_hint: "the corpus must be UTF-8".into(),
            record_hint: "(pass skip_bad=True or --skip-bad to count and skip such lines)".into(),
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
    let r = py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Some(b) = bpe {
                core_prepare(&Ordinary(b), sources, external(open_rows), &opts, &mut report)
            } else if let Some(tok) = hf {
                core_prepare(&Sequence { tok, skip: &skip_ids }, sources, external(open_rows), &opts, &mut report)
            } else {
                Err(CoreError::Input("prepare needs a compiled tokenizer (CoreBPE or HfTokenizer)".into()))
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
        Ok(Err(e)) => return Err(map_err(py, e)),
        Err(panic) => return Err(py_error(py, "InternalError", (panic_message(panic),))),
    };
    Ok(summary_json(&summary).to_string())
}

/// The reader's way to open a parquet source: `open_rows(path, start_row)` (Python) returns an
/// iterator of `(data, offsets, valid)` bytes per batch of rows (see `batch`).
pub(crate) fn external(open_rows: Option<Py<PyAny>>) -> Option<OpenExternal> {
    let open_rows = open_rows?;
    Some(Box::new(move |src: &Source, start: u64| -> Result<ExternalRows, CoreError> {
        let path = src.path.display().to_string();
        let it = Python::attach(|py| {
            open_rows
                .call1(py, (path.clone(), start))
                .and_then(|r| r.bind(py).try_iter().map(|i| i.unbind().into_any()))
        })
        .map_err(|e| CoreError::Corpus(format!("{path}: {e}")))?;
        Ok(Box::new(std::iter::from_fn(move || {
            Python::attach(|py| {
                let mut it = it.bind(py).clone().try_iter().ok()?;
                let item = match it.next()? {
                    Ok(item) => item,
                    Err(e) => return Some(Err(CoreError::Corpus(format!("{path}: {e}")))),
                };
                Some(batch(&item).map_err(|e| CoreError::Corpus(format!("{path}: {e}"))))
            })
        })))
    }))
}

/// `(data, offsets, valid)` as bytes objects (offsets: little-endian int64), copied once.
fn batch(item: &Bound<'_, PyAny>) -> PyResult<ExternalBatch> {
    let (data, offsets, valid): (Bound<'_, PyBytes>, Bound<'_, PyBytes>, Option<Bound<'_, PyBytes>>) =
        item.extract()?;
    let offsets =
        offsets.as_bytes().chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect();
    Ok(ExternalBatch { data: data.as_bytes().to_vec(), offsets, valid: valid.map(|v| v.as_bytes().to_vec()) })
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
