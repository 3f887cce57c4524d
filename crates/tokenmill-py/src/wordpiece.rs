//! `WordPiece`, the Python class over `tokenmill_core::BertWordPiece` (BERT's normalizer and
//! pre-tokenizer, then WordPiece): argument conversion, GIL release (through `run`) and result
//! lists; every algorithm is the core's.
//!
//! What it does not do: added/special tokens and post-processing (`[CLS]`/`[SEP]`); those are
//! the Python package's.

use pyo3::prelude::*;
use pyo3::types::PyList;

use tokenmill_core::normalize::BertNormalizer;
use tokenmill_core::pipeline::BertScratch;
use tokenmill_core::{BertWordPiece, WordPiece};

use crate::batch::id_lists;
use crate::intlist::IntCache;
use crate::run;
use crate::text::Text;

/// `encode_with_offsets`'s result: the ids and each token's character offsets.
type IdsAndOffsets<'py> = (Bound<'py, PyList>, Vec<(usize, usize)>);

/// A BERT-style WordPiece encoder: vocabulary, model options and normalizer options. Immutable.
#[pyclass(frozen, module = "tokenmill._core", name = "WordPiece")]
pub(crate) struct PyWordPiece {
    inner: BertWordPiece,
    ints: IntCache,
}

#[pymethods]
impl PyWordPiece {
    #[new]
    #[pyo3(signature = (
        vocab,
        unk_token,
        continuing_subword_prefix="##",
        max_input_chars_per_word=100,
        clean_text=true,
        handle_chinese_chars=true,
        strip_accents=None,
        lowercase=true,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        vocab: Vec<(String, u32)>,
        unk_token: &str,
        continuing_subword_prefix: &str,
        max_input_chars_per_word: usize,
        clean_text: bool,
        handle_chinese_chars: bool,
        strip_accents: Option<bool>,
        lowercase: bool,
    ) -> PyResult<Self> {
        let normalizer = BertNormalizer { clean_text, handle_chinese_chars, strip_accents, lowercase };
        let model =
            run(py, move || WordPiece::new(vocab, unk_token, continuing_subword_prefix, max_input_chars_per_word))?;
        let ints = IntCache::new(model.vocab_size());
        Ok(PyWordPiece { inner: BertWordPiece::new(normalizer, model), ints })
    }

    #[getter]
    fn vocab_size(&self) -> usize {
        self.inner.model.vocab_size()
    }

    fn encode<'py>(&self, py: Python<'py>, text: Text) -> PyResult<Bound<'py, PyList>> {
        let ids = run(py, || self.inner.encode(&text, &mut BertScratch::default()))?;
        self.ints.list(py, &ids)
    }

    /// The ids and each token's `(start, end)` character offsets in `text`.
    fn encode_with_offsets<'py>(&self, py: Python<'py>, text: Text) -> PyResult<IdsAndOffsets<'py>> {
        let (ids, offsets) = run(py, || self.inner.encode_with_offsets(&text))?;
        Ok((self.ints.list(py, &ids)?, offsets))
    }

    /// Encodes many texts on `num_threads` threads (per call; no global pool).
    #[pyo3(signature = (texts, num_threads=1))]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Bound<'py, PyAny>,
        num_threads: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        id_lists(py, &texts, num_threads, &self.ints, |_, t: &str, scratch: &mut BertScratch, out: &mut Vec<u32>| {
            out.extend_from_slice(&self.inner.encode(t, scratch)?);
            Ok(())
        })
    }
}
