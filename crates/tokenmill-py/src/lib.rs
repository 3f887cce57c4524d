//! Thin PyO3 layer over tokenmill-core: converts arguments, releases the GIL around real
//! work, maps `CoreError` to the `tokenmill.errors` classes, and turns any Rust panic into
//! `tokenmill.InternalError` so that `except Exception` is always enough.
//!
//! Layout: this file holds the module definition, the error mapping, `run` and the small
//! functions (rank files, pre-tokenizing, known patterns); `bpe` the `CoreBPE` and
//! `SpecialSet` classes; `wordpiece` the `WordPiece` class (the BERT-style pipeline); `hf` the `HfTokenizer` class
//! (a whole `tokenizer.json`); `spm` the `SentencePiece` class (a `.model` file); `batch`
//! the ordered batch scheduler; `cuts` the safe-cut functions for the corpus reader (character
//! offsets); `train` the training classes and merge loops; `intlist` the cached ints behind
//! `list[int]` results; `text` the UTF-8 form of `str` arguments. What it does not do: algorithms (the core's) or policy (the Python
//! package's).

mod batch;
mod bpe;
mod cuts;
mod data;
mod hf;
mod intlist;
mod spm;
mod text;
mod train;
mod wordpiece;

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use tokenmill_core::formats::tiktoken as tk;
use tokenmill_core::{CoreError, Rank};

/// Instantiates `tokenmill.errors.<name>(*args)` as a PyErr.
pub(crate) fn py_error<'py>(py: Python<'py>, name: &str, args: impl pyo3::call::PyCallArgs<'py>) -> PyErr {
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
        CoreError::Unsupported(msg) => py_error(py, "UnsupportedError", (msg,)),
        CoreError::Corpus(msg) => py_error(py, "CorpusError", (msg,)),
        CoreError::CorpusAt { reason, path, line, offset } => py_error(py, "CorpusError", (reason, path, line, offset)),
        CoreError::Io(msg) => py_error(py, "OutputError", (msg,)),
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

pub(crate) fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

pub(crate) fn parse_rank_file(py: Python<'_>, data: &[u8], allow_gaps: bool) -> PyResult<Vec<(Vec<u8>, Rank)>> {
    let r = py.detach(|| tk::parse(data, allow_gaps));
    r.map_err(|e| {
        py_error(
            py,
            "VocabFormatError",
            (e.reason, Option::<String>::None, if e.line == 0 { None } else { Some(e.line) }),
        )
    })
}

/// `parse_tiktoken`'s result: the tokens in file order, and the indices of unformable ones.
type ParsedRankFile = (Vec<(Py<PyBytes>, Rank)>, Vec<usize>);

/// Parses a tiktoken rank file: `([(token bytes, rank), ...] in file order, [indices of
/// tokens no merge can form])`.
#[pyfunction]
#[pyo3(signature = (data, allow_gaps=false))]
fn parse_tiktoken(py: Python<'_>, data: &[u8], allow_gaps: bool) -> PyResult<ParsedRankFile> {
    let v = parse_rank_file(py, data, allow_gaps)?;
    let bad = py.detach(|| tk::unformable(&v));
    Ok((v.into_iter().map(|(b, r)| (PyBytes::new(py, &b).unbind(), r)).collect(), bad))
}

/// The sha256 of `data` as lowercase hex. Why here and not `hashlib`: importing hashlib (and
/// OpenSSL with it) costs more than loading a standard encoding's ranks, which check theirs.
#[pyfunction]
fn sha256_hex(py: Python<'_>, data: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = py.detach(|| Sha256::digest(data));
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Serializes `[(token bytes, rank), ...]` as a rank file.
#[pyfunction]
fn dump_tiktoken<'py>(py: Python<'py>, ranks: Vec<(Vec<u8>, Rank)>) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &tk::dump(&ranks))
}

/// Pre-tokenizes `text` with `pattern`; `fast=False` forces the backtracking regex engine,
/// `dfa=True` the lazy DFA (a `ValueError` for a pattern it cannot run); for tests.
#[pyfunction]
#[pyo3(signature = (pattern, text, fast=true, dfa=false))]
fn pretokenize(py: Python<'_>, pattern: &str, text: &str, fast: bool, dfa: bool) -> PyResult<Vec<(usize, usize)>> {
    use tokenmill_core::pretokenize::Pretokenizer;
    let p = if dfa {
        Pretokenizer::dfa(pattern)
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err(format!("the DFA engine cannot run {pattern:?}")))?
    } else {
        Pretokenizer::with_engine(pattern, fast).map_err(|e| map_err(py, e))?
    };
    run(py, || p.split(text))
}

/// Pre-tokenizes `text` with the hand-written matcher named `name` (`"r50k"`, ..., and
/// `"deepseek_v3"`, which no single pattern selects); for tests against Hugging Face.
#[pyfunction]
fn pretokenize_named(py: Python<'_>, name: &str, text: &str) -> PyResult<Vec<(usize, usize)>> {
    let Some(kind) = tokenmill_core::pretokenize::KnownPattern::from_name(name) else {
        return Err(pyo3::exceptions::PyValueError::new_err(format!("no hand-written pre-tokenizer named {name:?}")));
    };
    let p = tokenmill_core::pretokenize::Pretokenizer::Fast(kind);
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
    m.add_class::<bpe::PyCoreBpe>()?;
    m.add_class::<bpe::SpecialSet>()?;
    m.add_class::<wordpiece::PyWordPiece>()?;
    m.add_class::<hf::PyHfTokenizer>()?;
    m.add_class::<spm::PySentencePiece>()?;
    m.add_function(wrap_pyfunction!(data::prepare, m)?)?;
    m.add_class::<data::CorpusReader>()?;
    m.add_function(wrap_pyfunction!(parse_tiktoken, m)?)?;
    m.add_function(wrap_pyfunction!(dump_tiktoken, m)?)?;
    m.add_function(wrap_pyfunction!(sha256_hex, m)?)?;
    m.add_function(wrap_pyfunction!(pretokenize, m)?)?;
    m.add_function(wrap_pyfunction!(known_patterns, m)?)?;
    m.add_function(wrap_pyfunction!(pretokenize_named, m)?)?;
    m.add_function(wrap_pyfunction!(cuts::cut_points, m)?)?;
    m.add_function(wrap_pyfunction!(cuts::last_cut, m)?)?;
    m.add_function(wrap_pyfunction!(cuts::next_cut, m)?)?;
    m.add_class::<train::TrainControl>()?;
    m.add_class::<train::WordCounter>()?;
    m.add_function(wrap_pyfunction!(train::train_bpe_merges, m)?)?;
    m.add_function(wrap_pyfunction!(train::train_merges, m)?)?;
    m.add_class::<train::BertWordCounter>()?;
    m.add_function(wrap_pyfunction!(train::train_wordpiece, m)?)?;
    m.add_class::<train::UnigramWordCounter>()?;
    m.add_function(wrap_pyfunction!(train::train_unigram, m)?)?;
    Ok(())
}
