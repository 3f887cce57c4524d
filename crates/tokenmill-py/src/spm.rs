//! `SentencePiece`, the Python class over `tokenmill_core::spm::SentencePiece` (a `.model`
//! file: normalizer, Unigram or BPE, byte fallback): argument conversion, GIL release (through
//! `run`), byte spans turned into character offsets, per-text seeds for batch sampling.
//!
//! What it does not do: bos/eos, special-token policy, file reading and writing, the
//! `Tokenizer` interface; those are `tokenmill.models.sentencepiece`'s. Every algorithm is the
//! core's.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use tokenmill_core::spm::model::Scratch;
use tokenmill_core::spm::{NormalizerSpec, PieceType, SentencePiece};

use crate::batch::id_lists;
use crate::intlist::IntCache;
use crate::run;
use crate::text::Text;

/// `encode_with_offsets`'s result: the ids and each token's `(start, end)` in characters.
type IdsAndSpans<'py> = (Bound<'py, PyList>, Vec<(usize, usize)>);

/// A sentencepiece model. Immutable; share it between threads.
#[pyclass(frozen, module = "tokenmill._core", name = "SentencePiece")]
pub(crate) struct PySentencePiece {
    inner: SentencePiece,
    ints: IntCache,
    /// Scratches of finished single-text calls, reused by the next ones: a fresh one per call
    /// would allocate its buffers again and start its (bounded) BPE segment cache empty, which
    /// made one-text calls 2.5x slower per byte than a batch. At most `POOL` are kept.
    pool: Mutex<Vec<Scratch>>,
}

/// Scratches kept per model (one per thread that calls at the same time, about).
const POOL: usize = 8;

impl PySentencePiece {
    /// Runs `f` with a scratch from the pool (or a new one), and puts it back.
    fn with_scratch<T>(&self, f: impl FnOnce(&mut Scratch) -> T) -> T {
        let taken = self.pool.lock().ok().and_then(|mut p| p.pop());
        let mut scratch = taken.unwrap_or_default();
        let out = f(&mut scratch);
        if let Ok(mut p) = self.pool.lock() {
            if p.len() < POOL {
                p.push(scratch);
            }
        }
        out
    }
}

/// The `i`-th output (from 1) of SplitMix64 seeded with `seed`: the seed of text `i` of a
/// sampling batch. Why per text and not one generator for the batch: each text's draw then
/// depends only on `(seed, i)`, never on which thread took it or in what order.
fn text_seed(seed: u64, i: usize) -> u64 {
    let mut z = seed.wrapping_add((i as u64).wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Byte spans of `text` as character spans (a begin inside a character maps to that
/// character, an end inside one to the character after it); spans need not be sorted.
fn char_spans(text: &str, spans: &[(u32, u32)]) -> Vec<(usize, usize)> {
    let n = text.len();
    if text.is_ascii() {
        return spans.iter().map(|&(a, b)| ((a as usize).min(n), (b as usize).min(n))).collect();
    }
    // before[k]: characters that start in bytes 0..k.
    let bytes = text.as_bytes();
    let mut before = Vec::with_capacity(n + 1);
    let mut count = 0u32;
    before.push(0);
    for &b in bytes {
        count += tokenmill_core::offsets::starts_char(b) as u32;
        before.push(count);
    }
    let begin = |k: usize| {
        let k = k.min(n);
        let inside = k < n && !tokenmill_core::offsets::starts_char(bytes[k]);
        (before[k] - inside as u32) as usize
    };
    spans.iter().map(|&(a, b)| (begin(a as usize), before[(b as usize).min(n)] as usize)).collect()
}

fn normalizer_dict<'py>(py: Python<'py>, s: &NormalizerSpec) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &s.name)?;
    d.set_item("precompiled_charsmap", PyBytes::new(py, &s.precompiled_charsmap))?;
    d.set_item("add_dummy_prefix", s.add_dummy_prefix)?;
    d.set_item("remove_extra_whitespaces", s.remove_extra_whitespaces)?;
    d.set_item("escape_whitespaces", s.escape_whitespaces)?;
    d.set_item("normalization_rule_tsv", &s.normalization_rule_tsv)?;
    Ok(d)
}

impl PySentencePiece {
    fn piece(&self, id: u32) -> Option<&tokenmill_core::spm::Piece> {
        self.inner.proto().pieces.get(id as usize)
    }
}

#[pymethods]
impl PySentencePiece {
    /// Parses and builds the bytes of a `.model` file (without the GIL).
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        let inner = run(py, || SentencePiece::from_bytes(data))?;
        let ints = IntCache::new(inner.vocab_size());
        Ok(PySentencePiece { inner, ints, pool: Mutex::new(Vec::new()) })
    }

    /// The `.model` bytes of this model (a load -> save round trip keeps every field).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let data = run(py, || Ok(self.inner.proto().write()))?;
        Ok(PyBytes::new(py, &data))
    }

    #[getter]
    fn vocab_size(&self) -> usize {
        self.inner.vocab_size()
    }

    #[getter]
    fn unk_id(&self) -> u32 {
        self.inner.unk_id()
    }

    /// `trainer_spec.model_type`: 1 Unigram, 2 BPE.
    #[getter]
    fn model_type(&self) -> u8 {
        self.inner.proto().trainer_spec.model_type as u8
    }

    fn encode<'py>(&self, py: Python<'py>, text: Text) -> PyResult<Bound<'py, PyList>> {
        let ids = run(py, || {
            let mut out = Vec::new();
            self.with_scratch(|scratch| self.inner.encode_into(&text, scratch, &mut out));
            Ok(out)
        })?;
        self.ints.list(py, &ids)
    }

    /// Encodes many texts on `num_threads` threads (per call; no global pool).
    #[pyo3(signature = (texts, num_threads=1))]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Bound<'py, PyAny>,
        num_threads: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        id_lists(py, &texts, num_threads, &self.ints, |_, t: &str, scratch: &mut Scratch, out: &mut Vec<u32>| {
            self.inner.encode_into(t, scratch, out);
            Ok(())
        })
    }

    /// The ids and each token's `(start, end)` character offsets in `text` (sentencepiece's
    /// `begin`/`end`, converted from bytes).
    fn encode_with_offsets<'py>(&self, py: Python<'py>, text: Text) -> PyResult<IdsAndSpans<'py>> {
        let (ids, spans) = run(py, || {
            let (ids, spans) = self.inner.encode_with_offsets(&text);
            Ok((ids, char_spans(&text, &spans)))
        })?;
        Ok((self.ints.list(py, &ids)?, spans))
    }

    /// The `k` best segmentations, best first: `[(ids, score), ...]` (Unigram only).
    fn nbest<'py>(&self, py: Python<'py>, text: Text, k: usize) -> PyResult<Vec<(Bound<'py, PyList>, f32)>> {
        let found = run(py, || self.inner.nbest(&text, k))?;
        found.into_iter().map(|(ids, score)| Ok((self.ints.list(py, &ids)?, score))).collect()
    }

    /// One sampled segmentation, reproducible from `seed`.
    fn sample<'py>(
        &self,
        py: Python<'py>,
        text: Text,
        alpha: f32,
        nbest_size: i32,
        seed: u64,
    ) -> PyResult<Bound<'py, PyList>> {
        let ids = run(py, || {
            let mut out = Vec::new();
            self.with_scratch(|scratch| self.inner.sample_into(&text, alpha, nbest_size, seed, scratch, &mut out))?;
            Ok(out)
        })?;
        self.ints.list(py, &ids)
    }

    /// One sampled segmentation per text; text `i` uses `text_seed(seed, i)`, so the result
    /// does not depend on `num_threads`.
    #[pyo3(signature = (texts, alpha, nbest_size, seed, num_threads=1))]
    fn sample_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Bound<'py, PyAny>,
        alpha: f32,
        nbest_size: i32,
        seed: u64,
        num_threads: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        id_lists(py, &texts, num_threads, &self.ints, |i, t: &str, scratch: &mut Scratch, out: &mut Vec<u32>| {
            self.inner.sample_into(t, alpha, nbest_size, text_seed(seed, i), scratch, out)
        })
    }

    /// The text of `ids` (sentencepiece's decode).
    fn decode(&self, py: Python<'_>, ids: Vec<u32>) -> PyResult<String> {
        run(py, || self.inner.decode(&ids))
    }

    /// `[decode(ids) for ids in batch]` without the GIL.
    fn decode_batch(&self, py: Python<'_>, batch: Vec<Vec<u32>>) -> PyResult<Vec<String>> {
        run(py, || batch.iter().map(|ids| self.inner.decode(ids)).collect())
    }

    /// The normalized text segmentation sees (spaces as U+2581 when escaping is on).
    fn normalize(&self, py: Python<'_>, text: Text) -> PyResult<String> {
        run(py, || Ok(self.inner.normalize(&text)))
    }

    /// The id of a piece as sentencepiece's `PieceToId` finds it, None when absent.
    fn piece_to_id(&self, piece: &str) -> Option<u32> {
        self.inner.piece_to_id(piece)
    }

    fn id_to_piece(&self, id: u32) -> Option<String> {
        self.piece(id).map(|p| p.piece.clone())
    }

    fn score(&self, id: u32) -> Option<f32> {
        self.piece(id).map(|p| p.score)
    }

    /// The piece's type number (1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused,
    /// 6 byte).
    fn piece_type(&self, id: u32) -> Option<u8> {
        self.piece(id).map(|p| p.kind as u8)
    }

    /// Every piece as `(piece, score, type)`, in id order.
    fn pieces(&self) -> Vec<(String, f32, u8)> {
        self.inner.proto().pieces.iter().map(|p| (p.piece.clone(), p.score, p.kind as u8)).collect()
    }

    /// The control and unknown pieces as `(piece, id)` (what the Python class calls its
    /// special tokens), without building every piece's tuple.
    fn special_pieces(&self) -> Vec<(String, u32)> {
        let pieces = self.inner.proto().pieces.iter().enumerate();
        pieces
            .filter(|(_, p)| matches!(p.kind, PieceType::Control | PieceType::Unknown))
            .map(|(i, p)| (p.piece.clone(), i as u32))
            .collect()
    }

    /// The `TrainerSpec` fields that change ids or decoding, as a dict.
    fn trainer_spec<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = &self.inner.proto().trainer_spec;
        let d = PyDict::new(py);
        d.set_item("model_type", t.model_type as u8)?;
        d.set_item("vocab_size", t.vocab_size)?;
        d.set_item("byte_fallback", t.byte_fallback)?;
        d.set_item("split_digits", t.split_digits)?;
        d.set_item("split_by_whitespace", t.split_by_whitespace)?;
        d.set_item("treat_whitespace_as_suffix", t.treat_whitespace_as_suffix)?;
        d.set_item("allow_whitespace_only_pieces", t.allow_whitespace_only_pieces)?;
        d.set_item("max_sentencepiece_length", t.max_sentencepiece_length)?;
        d.set_item("unk_id", t.unk_id)?;
        d.set_item("bos_id", t.bos_id)?;
        d.set_item("eos_id", t.eos_id)?;
        d.set_item("pad_id", t.pad_id)?;
        d.set_item("unk_piece", &t.unk_piece)?;
        d.set_item("bos_piece", &t.bos_piece)?;
        d.set_item("eos_piece", &t.eos_piece)?;
        d.set_item("pad_piece", &t.pad_piece)?;
        d.set_item("unk_surface", &t.unk_surface)?;
        d.set_item("user_defined_symbols", t.user_defined_symbols.clone())?;
        d.set_item("control_symbols", t.control_symbols.clone())?;
        Ok(d)
    }

    /// The `NormalizerSpec` as a dict (`precompiled_charsmap` as bytes).
    fn normalizer_spec<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        normalizer_dict(py, &self.inner.proto().normalizer_spec)
    }

    /// The `denormalizer_spec` as a dict, or None when the file has none.
    fn denormalizer_spec<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.inner.proto().denormalizer_spec.as_ref().map(|s| normalizer_dict(py, s)).transpose()
    }
}
