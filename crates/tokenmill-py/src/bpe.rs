//! `CoreBPE` and `SpecialSet`, the Python classes over `tokenmill_core::CoreBpe`: argument
//! conversion, GIL release (through `run`) and result lists; every algorithm is the core's.
//!
//! What it does not do: policy. Which special tokens are allowed or disallowed is decided in
//! Python (`tokenmill.encoding`), which hands the prepared sets in.

use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use tokenmill_core::bpe::Scratch;
use tokenmill_core::formats::tiktoken as tk;
use tokenmill_core::offsets::{self, PartOffsets};
use tokenmill_core::special::SpecialMatcher;
use tokenmill_core::{CoreBpe, CoreError, Rank};

use crate::batch::{encode_all, id_lists, Texts};
use crate::intlist::IntCache;
use crate::text::Text;
use crate::{map_err, parse_rank_file, run};

/// `encode_batch_to_numpy`'s result: every document's ids in one array, and the boundaries.
type FlatBatch<'py> = (Bound<'py, PyArray1<Rank>>, Bound<'py, PyArray1<u64>>);

/// A set of special tokens to allow or to reject, prepared once and reused.
#[pyclass(frozen, module = "tokenmill._core")]
pub(crate) struct SpecialSet {
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

    /// One document of a batch onto the end of `out` (the chunk's buffer): the disallowed
    /// check, then encoding with the worker's `scratch` (so the documents of one worker share
    /// a cache of merged pieces).
    fn encode_onto(
        &self,
        text: &str,
        allowed: Option<&SpecialMatcher>,
        disallowed: Option<&SpecialMatcher>,
        scratch: &mut Scratch,
        out: &mut Vec<Rank>,
    ) -> Result<(), CoreError> {
        if let Some(d) = disallowed {
            self.inner.check_disallowed(text, d)?;
        }
        self.inner.encode_onto(text, allowed.filter(|a| !a.is_empty()), scratch, out)
    }

    /// `encode_threads` of a Python `str`. A large text that needs transcoding is transcoded
    /// part by part by the threads that encode it, or the one thread (see `encode_units`),
    /// when that path applies.
    fn ids_of_str(
        &self,
        py: Python<'_>,
        text: Bound<'_, PyString>,
        allowed: Option<&SpecialMatcher>,
        disallowed: Option<&SpecialMatcher>,
        threads: usize,
    ) -> PyResult<Vec<Rank>> {
        if let Some(units) = split_units(&text, allowed) {
            if let Some(v) = run(py, || self.inner.encode_units(units, disallowed, threads))? {
                return Ok(v);
            }
        }
        let text = Text::of(text)?;
        run(py, || self.encode_threads(&text, allowed, disallowed, threads))
    }

    /// One text, checked for `disallowed` specials; a large text with no allowed specials may
    /// be split across `threads` threads.
    fn encode_threads(
        &self,
        text: &str,
        allowed: Option<&SpecialMatcher>,
        disallowed: Option<&SpecialMatcher>,
        threads: usize,
    ) -> Result<Vec<Rank>, CoreError> {
        if let Some(d) = disallowed {
            self.inner.check_disallowed(text, d)?;
        }
        match allowed {
            Some(a) if !a.is_empty() => self.inner.encode(text, a),
            _ => self.inner.encode_ordinary_parallel(text, threads),
        }
    }
}

/// The code units of `text` when it may be transcoded part by part (`CoreBpe::encode_units`):
/// no special token is encoded as such, and the text needs transcoding (`text::units_of`).
fn split_units<'a>(
    text: &'a Bound<'_, PyString>,
    allowed: Option<&SpecialMatcher>,
) -> Option<tokenmill_core::utf8::Units<'a>> {
    allowed.is_none_or(|a| a.is_empty()).then(|| crate::text::units_of(text)).flatten()
}

#[pymethods]
impl PyCoreBpe {
    #[new]
    fn new(
        py: Python<'_>,
        mergeable: Vec<(Vec<u8>, Rank)>,
        specials: Vec<(String, Rank)>,
        pattern: &str,
    ) -> PyResult<Self> {
        let pattern = pattern.to_string();
        run(py, move || CoreBpe::new(mergeable, specials, &pattern)).map(PyCoreBpe::wrap)
    }

    /// Builds directly from the bytes of a rank file (no Python dict on the way).
    #[staticmethod]
    #[pyo3(signature = (data, specials, pattern, allow_gaps=false))]
    fn from_tiktoken_bytes(
        py: Python<'_>,
        data: &[u8],
        specials: Vec<(String, Rank)>,
        pattern: &str,
        allow_gaps: bool,
    ) -> PyResult<Self> {
        let parsed = parse_rank_file(py, data, allow_gaps)?;
        let pattern = pattern.to_string();
        run(py, move || CoreBpe::new(parsed, specials, &pattern)).map(PyCoreBpe::wrap)
    }

    /// Entries of the encoder's cache of merged short pieces, kept across calls and threads (0:
    /// off); its cache of long pieces has half as many (and a thirty-second as many of 1 KiB).
    #[getter]
    fn cache_capacity(&self) -> usize {
        self.inner.vocab.shared_cache().slots()
    }

    /// A copy of this encoder whose cache holds `capacity` entries (rounded down to a power of
    /// two; 0 turns it off) and its cache of long pieces half as many (and a thirty-second as
    /// many of 1 KiB, for the longest). The copy starts
    /// with empty caches.
    fn with_cache_capacity(&self, py: Python<'_>, capacity: usize) -> PyResult<Self> {
        run(py, || {
            let mut inner = self.inner.clone();
            inner.vocab.set_cache_slots(capacity);
            Ok(PyCoreBpe::wrap(inner))
        })
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
    fn encode_ordinary<'py>(
        &self,
        py: Python<'py>,
        text: Bound<'py, PyString>,
        num_threads: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let ids = self.ids_of_str(py, text, None, None, num_threads)?;
        self.ints.list(py, &ids)
    }

    #[pyo3(signature = (text, allowed=None, disallowed=None, num_threads=1))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        text: Bound<'py, PyString>,
        allowed: Option<&Bound<'_, SpecialSet>>,
        disallowed: Option<&Bound<'_, SpecialSet>>,
        num_threads: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let a = allowed.map(|s| &s.get().inner);
        let d = disallowed.map(|s| &s.get().inner);
        let ids = self.ids_of_str(py, text, a, d, num_threads)?;
        self.ints.list(py, &ids)
    }

    #[pyo3(signature = (text, allowed=None, disallowed=None, num_threads=1))]
    fn encode_to_numpy<'py>(
        &self,
        py: Python<'py>,
        text: Bound<'py, PyString>,
        allowed: Option<&Bound<'_, SpecialSet>>,
        disallowed: Option<&Bound<'_, SpecialSet>>,
        num_threads: usize,
    ) -> PyResult<Bound<'py, PyArray1<Rank>>> {
        let a = allowed.map(|s| &s.get().inner);
        let d = disallowed.map(|s| &s.get().inner);
        Ok(self.ids_of_str(py, text, a, d, num_threads)?.into_pyarray(py))
    }

    #[pyo3(signature = (text, allowed=None, disallowed=None, num_threads=1))]
    fn count(
        &self,
        py: Python<'_>,
        text: Bound<'_, PyString>,
        allowed: Option<&Bound<'_, SpecialSet>>,
        disallowed: Option<&Bound<'_, SpecialSet>>,
        num_threads: usize,
    ) -> PyResult<usize> {
        let a = allowed.map(|s| &s.get().inner);
        let d = disallowed.map(|s| &s.get().inner);
        // As `ids_of_str`: a large text that needs transcoding is transcoded part by part.
        if let Some(units) = split_units(&text, a) {
            if let Some(n) = run(py, || self.inner.count_units(units, d, num_threads))? {
                return Ok(n);
            }
        }
        let text = Text::of(text)?;
        run(py, || {
            if let Some(d) = d {
                self.inner.check_disallowed(&text, d)?;
            }
            self.inner.count(&text, a, num_threads)
        })
    }

    /// Tokens and the character (code point) offset where each starts.
    #[pyo3(signature = (text, allowed=None, disallowed=None))]
    fn encode_with_offsets(
        &self,
        py: Python<'_>,
        text: Text,
        allowed: Option<&Bound<'_, SpecialSet>>,
        disallowed: Option<&Bound<'_, SpecialSet>>,
    ) -> PyResult<(Vec<Rank>, Vec<usize>)> {
        let a = allowed_or_empty(allowed).unwrap_or(SpecialMatcher::new(vec![]).map_err(|e| map_err(py, e))?);
        let d = disallowed.map(|s| &s.get().inner);
        run(py, || {
            if let Some(d) = d {
                self.inner.check_disallowed(&text, d)?;
            }
            let (ids, byte_offsets) = self.inner.encode_with_byte_offsets(&text, &a)?;
            Ok((ids, offsets::byte_to_char_offsets(text.as_bytes(), &byte_offsets)))
        })
    }

    /// Encodes many texts on `num_threads` threads (per call; no global pool).
    #[pyo3(signature = (texts, allowed=None, disallowed=None, num_threads=1))]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Bound<'py, PyAny>,
        allowed: Option<&Bound<'_, SpecialSet>>,
        disallowed: Option<&Bound<'_, SpecialSet>>,
        num_threads: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let a = allowed.map(|s| &s.get().inner);
        let d = disallowed.map(|s| &s.get().inner);
        // Why a pipeline for several threads (see `batch`): lists are built one at a time while
        // attached, so the calling thread builds them as documents finish.
        id_lists(py, &texts, num_threads, &self.ints, |_, t: &str, scratch: &mut Scratch, out: &mut Vec<u32>| {
            self.encode_onto(t, a, d, scratch, out)
        })
    }

    /// Encodes many texts into one flat uint32 array plus `len(texts)+1` boundaries.
    ///
    /// Why the batch pipeline (`batch::encode_all`), as `encode_batch`: the calling thread
    /// appends each document's ids to the array, in order, while the other threads encode.
    /// Before, every text was read and transcoded first and the ids were joined after the
    /// last document, two serial steps that held two threads to 1.64-1.80x one on 1.5-5 MB
    /// batches (`busy` 0.92-0.94, session 38).
    #[pyo3(signature = (texts, allowed=None, disallowed=None, num_threads=1))]
    fn encode_batch_to_numpy<'py>(
        &self,
        py: Python<'py>,
        texts: Bound<'py, PyAny>,
        allowed: Option<&Bound<'_, SpecialSet>>,
        disallowed: Option<&Bound<'_, SpecialSet>>,
        num_threads: usize,
    ) -> PyResult<FlatBatch<'py>> {
        let a = allowed.map(|s| &s.get().inner);
        let d = disallowed.map(|s| &s.get().inner);
        let texts = Texts::new(&texts)?;
        let mut flat: Vec<Rank> = Vec::new();
        let mut bounds: Vec<u64> = Vec::with_capacity(texts.len() + 1);
        bounds.push(0);
        encode_all(
            py,
            &texts,
            num_threads,
            |_, t: &str, scratch: &mut Scratch, out: &mut Vec<u32>| self.encode_onto(t, a, d, scratch, out),
            |ids| {
                flat.extend_from_slice(ids);
                bounds.push(flat.len() as u64);
                Ok(())
            },
        )?;
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
    fn split(&self, py: Python<'_>, text: Text) -> PyResult<Vec<(usize, usize)>> {
        run(py, || self.inner.pretokenizer.split(&text))
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
            let mut parts = PartOffsets::new();
            for (i, &id) in ids.iter().enumerate() {
                let tb =
                    self.inner.vocab.token_bytes(id as u64).ok_or_else(|| self.inner.vocab.id_error(id as u64, i))?;
                offsets.push(parts.start_of(tb));
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
