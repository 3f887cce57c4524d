//! `HfTokenizer`, the Python class over `tokenmill_core::hf::HfTokenizer` (a whole
//! `tokenizer.json` pipeline): argument conversion, GIL release (through `run`) and results.
//!
//! Full encodings cross into Python as plain tuples (`ENCODING_FIELDS` order), which the
//! Python package wraps; truncation and padding settings cross as the JSON objects of the
//! file format, so the core's one reader checks them. What it does not do: policy (defaults,
//! file reading, the Python-facing classes): that is `tokenmill.formats.hf_json`'s.

use std::sync::Arc;

use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use tokenmill_core::hf::tokenizer::Scratch;
use tokenmill_core::hf::{Encoding, HfTokenizer, PaddingParams};
use tokenmill_core::CoreError;

use crate::batch::id_lists;
use crate::intlist::IntCache;
use crate::text::Text;
use crate::{map_err, run};

/// A padded id matrix as flat numpy arrays (ids, attention mask) and its row width.
type Matrix<'py> = (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u8>>, usize);

/// A `tokenizer.json` tokenizer. Immutable; `with_truncation` / `with_padding` return copies
/// that share everything else.
#[pyclass(frozen, module = "tokenmill._core", name = "HfTokenizer")]
pub(crate) struct PyHfTokenizer {
    inner: HfTokenizer,
    ints: Arc<IntCache>,
}

impl PyHfTokenizer {
    /// The core tokenizer (for `data::prepare`).
    pub(crate) fn core(&self) -> &HfTokenizer {
        &self.inner
    }
}

fn parse_json(text: Option<&str>, what: &str) -> Result<Option<serde_json::Value>, CoreError> {
    text.map(|t| serde_json::from_str(t).map_err(|e| CoreError::Input(format!("{what}: invalid JSON: {e}"))))
        .transpose()
}

impl PyHfTokenizer {
    fn encoding<'py>(&self, py: Python<'py>, e: &Encoding) -> PyResult<Bound<'py, PyTuple>> {
        let overflowing =
            e.overflowing.iter().map(|o| self.encoding(py, o)).collect::<PyResult<Vec<Bound<'py, PyTuple>>>>()?;
        let seq = e.sequence_ids();
        PyTuple::new(
            py,
            [
                self.ints.list(py, &e.ids)?.into_any(),
                e.type_ids.clone().into_pyobject(py)?.into_any(),
                e.tokens.clone().into_pyobject(py)?.into_any(),
                e.offsets.clone().into_pyobject(py)?.into_any(),
                e.words.clone().into_pyobject(py)?.into_any(),
                e.special_tokens_mask.clone().into_pyobject(py)?.into_any(),
                e.attention_mask.clone().into_pyobject(py)?.into_any(),
                seq.into_pyobject(py)?.into_any(),
                PyList::new(py, overflowing)?.into_any(),
            ],
        )
    }
}

#[pymethods]
impl PyHfTokenizer {
    /// Builds the tokenizer of the bytes of a `tokenizer.json`.
    #[new]
    fn new(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        let inner = run(py, || HfTokenizer::from_json_bytes(data))?;
        let ints = Arc::new(IntCache::new(inner.vocab_size(true)));
        Ok(PyHfTokenizer { inner, ints })
    }

    /// A copy with the truncation settings of `params` (the file format's JSON object, as a
    /// string; None: no truncation).
    #[pyo3(signature = (params=None))]
    fn with_truncation(&self, py: Python<'_>, params: Option<&str>) -> PyResult<Self> {
        let inner = parse_json(params, "truncation")
            .and_then(|v| self.inner.with_truncation(v.as_ref()))
            .map_err(|e| map_err(py, e))?;
        Ok(PyHfTokenizer { inner, ints: self.ints.clone() })
    }

    /// A copy with the padding settings of `params` (JSON string as in the file; None: off).
    #[pyo3(signature = (params=None))]
    fn with_padding(&self, py: Python<'_>, params: Option<&str>) -> PyResult<Self> {
        let inner = parse_json(params, "padding")
            .and_then(|v| self.inner.with_padding(v.as_ref()))
            .map_err(|e| map_err(py, e))?;
        Ok(PyHfTokenizer { inner, ints: self.ints.clone() })
    }

    /// HF's `num_special_tokens_to_add(is_pair)`: tokens the post-processor adds.
    #[pyo3(signature = (is_pair=false))]
    fn num_special_tokens_to_add(&self, is_pair: bool) -> usize {
        self.inner.pipeline.post_processor.as_ref().map_or(0, |p| p.added_tokens(is_pair))
    }

    /// `(truncation, padding)`: the JSON of the settings in force (None: off).
    fn settings(&self) -> (Option<String>, Option<String>) {
        (self.inner.truncation_json.clone(), self.inner.padding_json.clone())
    }

    #[getter]
    fn has_truncation(&self) -> bool {
        self.inner.truncation.is_some()
    }

    #[getter]
    fn has_padding(&self) -> bool {
        self.inner.padding.is_some()
    }

    /// The ids of `text` (HF's `encode(text, add_special_tokens).ids`); `skip`: ids of added
    /// tokens whose text is encoded as ordinary text.
    #[pyo3(signature = (text, add_special_tokens=true, skip=Vec::new()))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        text: Text,
        add_special_tokens: bool,
        skip: Vec<u32>,
    ) -> PyResult<Bound<'py, PyList>> {
        let ids = run(py, || self.inner.encode_ids(&text, add_special_tokens, &skip, &mut Scratch::default()))?;
        self.ints.list(py, &ids)
    }

    /// The full encoding of `text` (and `pair`) as a tuple in `ENCODING_FIELDS` order.
    #[pyo3(signature = (text, pair=None, add_special_tokens=true, skip=Vec::new()))]
    fn encode_full<'py>(
        &self,
        py: Python<'py>,
        text: Text,
        pair: Option<&str>,
        add_special_tokens: bool,
        skip: Vec<u32>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let e = run(py, || self.inner.encode_with(&text, pair, add_special_tokens, &skip, &mut Scratch::default()))?;
        self.encoding(py, &e)
    }

    /// The ids of every text, on `num_threads` threads (per call), in order.
    #[pyo3(signature = (texts, add_special_tokens=true, num_threads=1, skip=Vec::new()))]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Bound<'py, PyAny>,
        add_special_tokens: bool,
        num_threads: usize,
        skip: Vec<u32>,
    ) -> PyResult<Bound<'py, PyList>> {
        if self.inner.padding.is_some() {
            let texts: Vec<Text> = texts.extract()?;
            let strs: Vec<&str> = texts.iter().map(|s| &**s).collect();
            let all = run(py, || self.inner.encode_ids_batch(&strs, add_special_tokens, &skip, num_threads))?;
            let lists = all.iter().map(|ids| self.ints.list(py, ids)).collect::<PyResult<Vec<_>>>()?;
            return PyList::new(py, lists);
        }
        id_lists(py, &texts, num_threads, &self.ints, |_, t: &str, s: &mut Scratch, out: &mut Vec<u32>| {
            self.inner.encode_ids_into(t, add_special_tokens, &skip, s, out)
        })
    }

    /// The padded id matrix of every text and its attention mask, as flat numpy arrays (uint32
    /// and uint8, row-major, no copy) and the row width. The padding is the tokenizer's, or
    /// `padding` (the file format's object) when it has none.
    #[pyo3(signature = (texts, add_special_tokens=true, num_threads=1, skip=Vec::new(), padding=None))]
    fn encode_batch_matrix<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<Text>,
        add_special_tokens: bool,
        num_threads: usize,
        skip: Vec<u32>,
        padding: Option<&str>,
    ) -> PyResult<Matrix<'py>> {
        let strs: Vec<&str> = texts.iter().map(|s| &**s).collect();
        let given = parse_json(padding, "padding")
            .and_then(|v| PaddingParams::from_json(v.as_ref(), "padding"))
            .map_err(|e| map_err(py, e))?;
        let Some(pad) = given.as_ref().or(self.inner.padding.as_ref()) else {
            return Err(map_err(py, CoreError::Input("no padding settings: pass padding=".into())));
        };
        let (ids, mask, width) =
            run(py, || self.inner.encode_ids_matrix(&strs, add_special_tokens, &skip, num_threads, pad))?;
        Ok((ids.into_pyarray(py), mask.into_pyarray(py), width))
    }

    /// Full encodings of every text (with its pair), padded across the batch as HF does.
    #[pyo3(signature = (texts, pairs=None, add_special_tokens=true, num_threads=1, skip=Vec::new()))]
    fn encode_batch_full<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<Text>,
        pairs: Option<Vec<Text>>,
        add_special_tokens: bool,
        num_threads: usize,
        skip: Vec<u32>,
    ) -> PyResult<Bound<'py, PyList>> {
        let strs: Vec<&str> = texts.iter().map(|s| &**s).collect();
        let pstrs: Option<Vec<&str>> = pairs.as_ref().map(|p| p.iter().map(|s| &**s).collect());
        let encs =
            run(py, || self.inner.encode_batch(&strs, pstrs.as_deref(), add_special_tokens, &skip, num_threads))?;
        let items = encs.iter().map(|e| self.encoding(py, e)).collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// HF's `decode(ids, skip_special_tokens)`.
    #[pyo3(signature = (ids, skip_special_tokens=true))]
    fn decode(&self, py: Python<'_>, ids: Vec<u32>, skip_special_tokens: bool) -> PyResult<String> {
        run(py, || self.inner.decode(&ids, skip_special_tokens))
    }

    /// `decode` of each list of ids.
    #[pyo3(signature = (batch, skip_special_tokens=true))]
    fn decode_batch(&self, py: Python<'_>, batch: Vec<Vec<u32>>, skip_special_tokens: bool) -> PyResult<Vec<String>> {
        run(py, || batch.iter().map(|ids| self.inner.decode(ids, skip_special_tokens)).collect())
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }

    /// The exact bytes of a token (byte-level tokenizers: through GPT-2's byte table).
    fn token_bytes<'py>(&self, py: Python<'py>, id: u32) -> Option<Bound<'py, pyo3::types::PyBytes>> {
        self.inner.token_bytes(id).map(|b| pyo3::types::PyBytes::new(py, &b))
    }

    /// The id of the token with these exact bytes.
    fn bytes_to_id(&self, data: &[u8]) -> Option<u32> {
        self.inner.bytes_to_id(data)
    }

    /// Which pre-tokenizer splits text for ids (`"o200k"`...: the fast byte-level path; `"hf"`).
    #[getter]
    fn pretokenizer(&self) -> &'static str {
        self.inner.pretokenizer_name()
    }

    #[getter]
    fn is_byte_level(&self) -> bool {
        self.inner.is_byte_level()
    }

    fn id_to_token(&self, id: u32) -> Option<String> {
        self.inner.id_to_token(id).map(str::to_string)
    }

    /// HF's `get_vocab_size(with_added_tokens)`.
    #[pyo3(signature = (with_added_tokens=true))]
    fn vocab_size(&self, with_added_tokens: bool) -> usize {
        self.inner.vocab_size(with_added_tokens)
    }

    /// HF's `get_vocab(with_added_tokens)` as `[(token, id), ...]` in id order.
    #[pyo3(signature = (with_added_tokens=true))]
    fn vocab(&self, with_added_tokens: bool) -> Vec<(String, u32)> {
        self.inner.vocab(with_added_tokens)
    }

    /// The added tokens: `[(id, content, special, single_word, lstrip, rstrip, normalized)]`.
    #[allow(clippy::type_complexity)]
    fn added_tokens(&self) -> Vec<(u32, String, bool, bool, bool, bool, bool)> {
        self.inner
            .pipeline
            .added
            .tokens()
            .into_iter()
            .map(|(id, t)| (id, t.content.clone(), t.special, t.single_word, t.lstrip, t.rstrip, t.normalized))
            .collect()
    }

    /// Added tokens whose id in the file is not the one HF gives them: `(content, file id, id)`.
    fn id_mismatches(&self) -> Vec<(String, u32, u32)> {
        self.inner.pipeline.added.mismatches.clone()
    }
}
