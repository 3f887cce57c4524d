//! Bindings for training: a pre-token counter, a progress/cancel handle and the merge loop;
//! for WordPiece, a BERT word counter and HF's WordPiece trainer; for Unigram, a word counter
//! and the trainer, which returns a sentencepiece `.model`.
//! Every call that does real work releases the GIL; `TrainControl` is how Python sees
//! progress and asks a running job to stop (Ctrl-C), from another thread.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use tokenmill_core::bpe::encode_piece;
use tokenmill_core::data::reader::ReadOptions;
use tokenmill_core::normalize::BertNormalizer;
use tokenmill_core::pretokenize::Pretokenizer;
use tokenmill_core::special::SpecialMatcher;
use tokenmill_core::spm::normalizer::Normalizer;
use tokenmill_core::spm::{ModelProto, ModelType, NormalizerSpec, Piece, PieceType, SentencePiece, TrainerSpec};
use tokenmill_core::train::count::WordCounts;
use tokenmill_core::train::merge::{self, Control, MergeConfig, TokenSet};
use tokenmill_core::train::{unigram, wordpiece};
use tokenmill_core::CoreError;

use crate::bpe::PyCoreBpe;
use crate::text::Text;
use crate::{map_err, run};

/// Progress of a running training job, and the switch to stop it. Thread-safe.
#[pyclass(frozen, module = "tokenmill._core")]
pub struct TrainControl {
    inner: Arc<Control>,
}

#[pymethods]
impl TrainControl {
    #[new]
    #[pyo3(signature = (verbose=false))]
    fn new(verbose: bool) -> Self {
        let inner = Control::default();
        inner.verbose.store(verbose, std::sync::atomic::Ordering::Relaxed);
        TrainControl { inner: Arc::new(inner) }
    }

    /// Merges learned since the last call, as `(left, right, id, count)` (only with `verbose`).
    fn take_log(&self) -> Vec<(u32, u32, u32, u64)> {
        match self.inner.log.lock() {
            Ok(mut log) => log.drain(..).map(|m| (m.left, m.right, m.id, m.count)).collect(),
            Err(_) => Vec::new(),
        }
    }

    /// Asks the job to stop; it then raises KeyboardInterrupt.
    fn cancel(&self) {
        self.inner.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Merges learned so far.
    #[getter]
    fn merges_done(&self) -> u64 {
        self.inner.merges_done.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// Corpus files as `(path, format)` pairs, and per file an optional byte range (see
/// `data::sources`).
type Files = (Vec<(std::path::PathBuf, String)>, Vec<Option<(u64, u64)>>);

/// Reads corpus files with the core's reader (`data::reader`: plain text, JSON lines, gzip;
/// parquet through `open_rows`) and hands each block's texts to `count`: each file's text, or
/// each JSON line's `text_field`, in blocks of about a megabyte cut at `cut` points (`"safe"`
/// or `"line"`, see `pretokenize::cuts`), with invalid UTF-8 an error or, with
/// `errors="replace"`, U+FFFD. `progress(bytes read from disk)` is called after each block,
/// and a pending interrupt (Ctrl-C) stops the reading. Returns the bytes read from disk and
/// the documents read (empty ones included).
#[allow(clippy::too_many_arguments)]
fn read_files(
    py: Python<'_>,
    sources: Files,
    text_field: String,
    cut: Option<&str>,
    errors: &str,
    progress: Option<Py<PyAny>>,
    open_rows: Option<Py<PyAny>>,
    mut count: impl FnMut(&[&str]) -> Result<(), CoreError> + Send,
) -> PyResult<(u64, u64)> {
    let (sources, ranges) = sources;
    let opts = crate::data::read_options(cut, errors).map(|o| ReadOptions { text_field, ..o });
    let slot = crate::data::ErrSlot::default();
    let rows = crate::data::external(open_rows, &slot);
    let r = py.detach(|| {
        std::panic::catch_unwind(AssertUnwindSafe(|| {
            let mut reader = crate::data::reader(sources, &ranges, opts?, rows)?;
            // Documents: each source's count at its end (a range of a plain text is part of a
            // document that only its first range counts).
            let (mut documents, mut current) = (0, (usize::MAX, 0));
            while let Some(block) = reader.next_block()? {
                if block.end.source != current.0 {
                    documents += current.1;
                }
                current = (block.end.source, block.end.source_documents);
                let texts: Vec<&str> = block.spans.iter().map(|s| &block.text[s.start..s.end]).collect();
                count(&texts)?;
                let read = reader.disk_bytes();
                Python::attach(|py| -> Result<(), CoreError> {
                    py.check_signals().map_err(|_| CoreError::Cancelled)?;
                    if let Some(cb) = &progress {
                        cb.call1(py, (read,))
                            .map_err(|e| CoreError::Input(format!("progress callback failed: {e}")))?;
                    }
                    Ok(())
                })?;
            }
            Ok((reader.disk_bytes(), documents + current.1))
        }))
    });
    match r {
        Ok(Ok(n)) => Ok(n),
        Ok(Err(e)) => Err(slot.raise(py, e)),
        Err(panic) => Err(crate::py_error(py, "InternalError", (crate::panic_message(panic),))),
    }
}

/// Runs `f` on the counts behind `m`; a lock poisoned by an earlier panic is an internal error.
fn locked<C, T>(m: &Mutex<C>, f: impl FnOnce(&mut C) -> Result<T, CoreError>) -> Result<T, CoreError> {
    let mut guard =
        m.lock().map_err(|_| CoreError::Internal("the word counter was poisoned by an earlier panic".into()))?;
    f(&mut guard)
}

/// `{pre-token bytes: count}` of the texts added so far, for one pattern and set of specials.
#[pyclass(frozen, module = "tokenmill._core")]
pub struct WordCounter {
    pre: Pretokenizer,
    specials: Option<SpecialMatcher>,
    counts: Mutex<WordCounts>,
}

impl WordCounter {
    fn with<T>(&self, f: impl FnOnce(&mut WordCounts) -> Result<T, CoreError>) -> Result<T, CoreError> {
        locked(&self.counts, f)
    }
}

#[pymethods]
impl WordCounter {
    #[new]
    fn new(py: Python<'_>, pattern: &str, specials: Vec<String>) -> PyResult<Self> {
        let pre = Pretokenizer::new(pattern).map_err(|e| map_err(py, e))?;
        let specials = if specials.is_empty() {
            None
        } else {
            Some(SpecialMatcher::new(specials.into_iter().map(|s| (s, 0)).collect()).map_err(|e| map_err(py, e))?)
        };
        Ok(WordCounter { pre, specials, counts: Mutex::new(WordCounts::default()) })
    }

    /// Counts the pre-tokens of each text (special tokens cut out) on `num_threads` threads.
    #[pyo3(signature = (texts, num_threads=1, control=None))]
    fn add_texts(
        &self,
        py: Python<'_>,
        texts: Vec<Text>,
        num_threads: usize,
        control: Option<&Bound<'_, TrainControl>>,
    ) -> PyResult<()> {
        let control = control.map(|c| c.get().inner.clone()).unwrap_or_default();
        let refs: Vec<&str> = texts.iter().map(|t| &**t).collect();
        run(py, || self.with(|c| c.add_texts(&refs, &self.pre, self.specials.as_ref(), num_threads, &control)))
    }

    /// Counts the pre-tokens of corpus files read by the core's reader (see `read_files`;
    /// `ranges`: per source, the byte range of lines to read, or None). Returns the bytes read
    /// from disk and the documents read.
    #[pyo3(signature = (sources, text_field, cut, num_threads=1, control=None, progress=None, open_rows=None,
                        errors="strict", ranges=None))]
    #[allow(clippy::too_many_arguments)]
    fn add_files(
        &self,
        py: Python<'_>,
        sources: Vec<(std::path::PathBuf, String)>,
        text_field: String,
        cut: Option<&str>,
        num_threads: usize,
        control: Option<&Bound<'_, TrainControl>>,
        progress: Option<Py<PyAny>>,
        open_rows: Option<Py<PyAny>>,
        errors: &str,
        ranges: Option<Vec<Option<(u64, u64)>>>,
    ) -> PyResult<(u64, u64)> {
        let control = control.map(|c| c.get().inner.clone()).unwrap_or_default();
        let sources = (sources, ranges.unwrap_or_default());
        read_files(py, sources, text_field, cut, errors, progress, open_rows, |texts| {
            self.with(|c| c.add_texts(texts, &self.pre, self.specials.as_ref(), num_threads, &control))
        })
    }

    /// Adds `count` occurrences of one pre-token.
    fn add(&self, py: Python<'_>, word: &[u8], count: u64) -> PyResult<()> {
        run(py, || self.with(|c| c.add(word, count)))
    }

    /// The counts as bytes (a tagged, versioned format; see `WordCounts::to_bytes`), for
    /// counts made in another process to be added with `merge_bytes`.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let v = run(py, || self.with(|c| c.to_bytes()))?;
        Ok(PyBytes::new(py, &v))
    }

    /// Adds counts written by `to_bytes` (InputError for a blob that is not one).
    fn merge_bytes(&self, py: Python<'_>, data: &[u8]) -> PyResult<()> {
        run(py, || self.with(|c| c.merge_bytes(data)))
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        run(py, || self.with(|c| Ok(c.len())))
    }

    /// UTF-8 bytes of text counted (special tokens excluded).
    #[getter]
    fn text_bytes(&self, py: Python<'_>) -> PyResult<u64> {
        run(py, || self.with(|c| Ok(c.text_bytes)))
    }

    /// Special tokens found and cut out of the texts.
    #[getter]
    fn specials_seen(&self, py: Python<'_>) -> PyResult<u64> {
        run(py, || self.with(|c| Ok(c.specials_seen)))
    }

    /// All `(pre-token, count)` pairs, sorted by bytes.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Vec<(Bound<'py, PyBytes>, u64)>> {
        let v =
            run(py, || self.with(|c| Ok(c.sorted().into_iter().map(|(w, n)| (w.to_vec(), n)).collect::<Vec<_>>())))?;
        Ok(v.into_iter().map(|(w, n)| (PyBytes::new(py, &w), n)).collect())
    }
}

type Learned<'py> = (Vec<(u32, u32, u32, u64)>, Vec<(u32, Bound<'py, PyBytes>)>, u64);

fn learned<'py>(py: Python<'py>, out: merge::MergeOutput) -> Learned<'py> {
    let merges = out.merges.iter().map(|m| (m.left, m.right, m.id, m.count)).collect();
    let new = out.new_tokens.iter().map(|(id, b)| (*id, PyBytes::new(py, b))).collect();
    (merges, new, out.tokens_after)
}

/// Learns byte-level BPE merges on the counted pre-tokens, which are moved out of `counter`
/// (it is empty afterwards, so its memory is free for the merge loop). Words start as
/// single bytes, or, with `base`, as `base` encodes them (its tokens are the starting symbols).
///
/// Returns `(merges as (left, right, id, count), new tokens as (id, bytes), tokens after)`.
#[pyfunction]
#[pyo3(signature = (counter, n_new, min_frequency, next_id, base=None, control=None))]
pub fn train_bpe_merges<'py>(
    py: Python<'py>,
    counter: &Bound<'py, WordCounter>,
    n_new: usize,
    min_frequency: u64,
    next_id: u32,
    base: Option<&Bound<'py, PyCoreBpe>>,
    control: Option<&Bound<'py, TrainControl>>,
) -> PyResult<Learned<'py>> {
    let control = control.map(|c| c.get().inner.clone()).unwrap_or_default();
    let counter = counter.get();
    let base = base.map(|b| b.get());
    let out = run(py, || {
        // Words start as single bytes, or as the base encodes them.
        let base_vocab = base.map(|b| &b.inner.vocab);
        let mut tokens = match base_vocab {
            None => TokenSet::new((0..256u32).map(|b| (b, vec![b as u8])))?,
            Some(vocab) => TokenSet::new(vocab.mergeable().into_iter().map(|(bytes, r)| (r, bytes)))?,
        };
        // The counts are moved out of the counter (which is left empty) and freed shard by
        // shard while the words are built, so the two never coexist in full.
        let counts_taken = counter.with(|c| {
            let taken = std::mem::take(c);
            (c.text_bytes, c.specials_seen) = (taken.text_bytes, taken.specials_seen);
            Ok(taken)
        })?;
        let (mut words, mut counts) = (Vec::with_capacity(counts_taken.len()), Vec::with_capacity(counts_taken.len()));
        counts_taken.drain_each(|w, n| {
            let mut ids = Vec::with_capacity(w.len());
            match base_vocab {
                None => ids.extend(w.iter().map(|&b| b as u32)),
                Some(vocab) => {
                    encode_piece(vocab, w, &mut ids);
                    ids.shrink_to_fit();
                }
            }
            words.push(ids);
            counts.push(n);
        });
        merge::train(
            words,
            &counts,
            &mut tokens,
            MergeConfig { n_new, min_frequency, next_id, long_word: merge::LONG_WORD },
            &control,
        )
    })?;
    Ok(learned(py, out))
}

/// The merge loop on explicit words: `words` as `(symbol ids, count)`, `tokens` as
/// `(id, bytes)` for every symbol. The same rule as `train_bpe_merges` (used by classic BPE
/// and by the tests against the reference). `long_word` sets the length above which words
/// use the position index (tests set it low to check that path against the reference).
///
/// Returns `(merges, new tokens, tokens after)` like `train_bpe_merges`.
#[pyfunction]
#[pyo3(signature = (words, tokens, n_new, min_frequency=1, next_id=None, control=None, long_word=None))]
// Why allowed: the arguments are the Python signature's (keywords with defaults); a struct would change it.
#[allow(clippy::too_many_arguments)]
pub fn train_merges<'py>(
    py: Python<'py>,
    words: Vec<(Vec<u32>, u64)>,
    tokens: Vec<(u32, Vec<u8>)>,
    n_new: usize,
    min_frequency: u64,
    next_id: Option<u32>,
    control: Option<&Bound<'py, TrainControl>>,
    long_word: Option<usize>,
) -> PyResult<Learned<'py>> {
    let control = control.map(|c| c.get().inner.clone()).unwrap_or_default();
    let long_word = long_word.unwrap_or(merge::LONG_WORD);
    let next_id = match next_id {
        Some(n) => n,
        None => tokens.iter().map(|(id, _)| *id).max().map_or(0, |m| m.saturating_add(1)),
    };
    let out = run(py, || {
        let mut set = TokenSet::new(tokens)?;
        let (w, c): (Vec<Vec<u32>>, Vec<u64>) = words.into_iter().unzip();
        merge::train(w, &c, &mut set, MergeConfig { n_new, min_frequency, next_id, long_word }, &control)
    })?;
    Ok(learned(py, out))
}

/// `{word: count}` of texts after BERT normalization and pre-tokenization (WordPiece training).
#[pyclass(frozen, module = "tokenmill._core")]
pub struct BertWordCounter {
    normalizer: BertNormalizer,
    counts: Mutex<(WordCounts, u64)>,
}

impl BertWordCounter {
    fn with<T>(&self, f: impl FnOnce(&mut (WordCounts, u64)) -> Result<T, CoreError>) -> Result<T, CoreError> {
        locked(&self.counts, f)
    }
}

#[pymethods]
impl BertWordCounter {
    #[new]
    #[pyo3(signature = (clean_text=true, handle_chinese_chars=true, strip_accents=None, lowercase=true))]
    fn new(clean_text: bool, handle_chinese_chars: bool, strip_accents: Option<bool>, lowercase: bool) -> Self {
        let normalizer = BertNormalizer { clean_text, handle_chinese_chars, strip_accents, lowercase };
        BertWordCounter { normalizer, counts: Mutex::new((WordCounts::default(), 0)) }
    }

    /// Counts the words of each text on `num_threads` threads.
    #[pyo3(signature = (texts, num_threads=1, control=None))]
    fn add_texts(
        &self,
        py: Python<'_>,
        texts: Vec<Text>,
        num_threads: usize,
        control: Option<&Bound<'_, TrainControl>>,
    ) -> PyResult<()> {
        let control = control.map(|c| c.get().inner.clone()).unwrap_or_default();
        let refs: Vec<&str> = texts.iter().map(|t| &**t).collect();
        run(py, || {
            self.with(|(c, bytes)| {
                *bytes += wordpiece::count_bert(c, &refs, &self.normalizer, num_threads, &control)?;
                Ok(())
            })
        })
    }

    /// Counts the words of corpus files read by the core's reader (see `read_files`; a cut at
    /// a safe point falls on whitespace, where BERT splits words anyway). Returns the bytes read
    /// from disk and the documents read.
    #[pyo3(signature = (sources, text_field, cut, num_threads=1, control=None, progress=None, open_rows=None,
                        errors="strict"))]
    #[allow(clippy::too_many_arguments)]
    fn add_files(
        &self,
        py: Python<'_>,
        sources: Vec<(std::path::PathBuf, String)>,
        text_field: String,
        cut: Option<&str>,
        num_threads: usize,
        control: Option<&Bound<'_, TrainControl>>,
        progress: Option<Py<PyAny>>,
        open_rows: Option<Py<PyAny>>,
        errors: &str,
    ) -> PyResult<(u64, u64)> {
        let control = control.map(|c| c.get().inner.clone()).unwrap_or_default();
        read_files(py, (sources, Vec::new()), text_field, cut, errors, progress, open_rows, |texts| {
            self.with(|(c, bytes)| {
                *bytes += wordpiece::count_bert(c, texts, &self.normalizer, num_threads, &control)?;
                Ok(())
            })
        })
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        run(py, || self.with(|(c, _)| Ok(c.len())))
    }

    /// UTF-8 bytes of text counted.
    #[getter]
    fn text_bytes(&self, py: Python<'_>) -> PyResult<u64> {
        run(py, || self.with(|(_, b)| Ok(*b)))
    }

    /// All `(word, count)` pairs, sorted.
    fn items(&self, py: Python<'_>) -> PyResult<Vec<(String, u64)>> {
        run(py, || {
            self.with(|(c, _)| {
                Ok(c.sorted().into_iter().map(|(w, n)| (String::from_utf8_lossy(w).into_owned(), n)).collect())
            })
        })
    }
}

/// WordPiece training as HF's `WordPieceTrainer` on the counted words (moved out of
/// `counter`, which is empty afterwards). `symbol_order`: characters whose `##` symbols are
/// numbered first, in this order (to reproduce one HF run; see `train::wordpiece`).
///
/// Returns `(vocabulary in id order, alphabet size, ## symbols, merges made)`.
#[pyfunction]
#[pyo3(signature = (counter, vocab_size, min_frequency, special_tokens, prefix, limit_alphabet=None, control=None, symbol_order=None))]
// Why allowed: the arguments are the Python signature's (keywords with defaults).
#[allow(clippy::too_many_arguments)]
pub fn train_wordpiece(
    py: Python<'_>,
    counter: &Bound<'_, BertWordCounter>,
    vocab_size: usize,
    min_frequency: u64,
    special_tokens: Vec<String>,
    prefix: String,
    limit_alphabet: Option<usize>,
    control: Option<&Bound<'_, TrainControl>>,
    symbol_order: Option<Vec<char>>,
) -> PyResult<(Vec<String>, usize, usize, usize)> {
    let control = control.map(|c| c.get().inner.clone()).unwrap_or_default();
    let counter = counter.get();
    let config = wordpiece::WordPieceConfig {
        vocab_size,
        min_frequency,
        special_tokens,
        limit_alphabet,
        prefix,
        symbol_order: symbol_order.unwrap_or_default(),
    };
    let out = run(py, || {
        let taken = counter.with(|(c, _)| Ok(std::mem::take(c)))?;
        let mut words = Vec::with_capacity(taken.len());
        let mut bad = false;
        taken.drain_each(|w, n| match std::str::from_utf8(w) {
            Ok(s) => words.push((s.to_owned(), n)),
            Err(_) => bad = true,
        });
        if bad {
            return Err(CoreError::Internal("a counted word is not UTF-8".into()));
        }
        wordpiece::train(words, &config, &control)
    })?;
    Ok((out.vocab, out.alphabet, out.prefixed, out.merges))
}

/// Word counts for Unigram training: the `▁`-prefixed space-separated words of each line, with
/// the user-defined symbols cut out (`train::unigram::UnigramWords`).
#[pyclass(frozen, module = "tokenmill._core")]
pub struct UnigramWordCounter {
    user_defined: Vec<String>,
    /// The normalizer words are counted through (None: identity) and its spec, which the
    /// trained model keeps so that it encodes text as it was trained.
    normalizer: Option<(Normalizer, NormalizerSpec)>,
    counts: Mutex<(unigram::UnigramWords, u64)>,
}

impl UnigramWordCounter {
    fn with<T>(
        &self,
        f: impl FnOnce(&mut (unigram::UnigramWords, u64)) -> Result<T, CoreError>,
    ) -> Result<T, CoreError> {
        locked(&self.counts, f)
    }

    fn count(&self, texts: &[&str], num_threads: usize, control: &Control) -> Result<(), CoreError> {
        if control.cancel.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(CoreError::Cancelled);
        }
        self.with(|(c, bytes)| {
            c.add_texts(texts, &self.user_defined, self.normalizer.as_ref().map(|(n, _)| n), num_threads)?;
            *bytes += texts.iter().map(|t| t.len() as u64).sum::<u64>();
            Ok(())
        })
    }
}

#[pymethods]
impl UnigramWordCounter {
    /// `normalizer_model`: the bytes of a `.model` file whose precompiled charsmap (with
    /// sentencepiece's default whitespace rules) normalizes the corpus; None: identity.
    #[new]
    #[pyo3(signature = (user_defined_symbols=Vec::new(), normalizer_model=None))]
    fn new(py: Python<'_>, user_defined_symbols: Vec<String>, normalizer_model: Option<&[u8]>) -> PyResult<Self> {
        let normalizer = match normalizer_model {
            None => None,
            Some(bytes) => {
                let source = ModelProto::parse(bytes).map_err(|e| map_err(py, e))?;
                let spec = NormalizerSpec {
                    name: source.normalizer_spec.name.clone(),
                    precompiled_charsmap: source.normalizer_spec.precompiled_charsmap.clone(),
                    ..NormalizerSpec::default()
                };
                let symbols: Vec<&str> = user_defined_symbols.iter().map(|s| s.as_str()).collect();
                Some((Normalizer::new(&spec, &TrainerSpec::default(), &symbols).map_err(|e| map_err(py, e))?, spec))
            }
        };
        Ok(UnigramWordCounter {
            user_defined: user_defined_symbols,
            normalizer,
            counts: Mutex::new((unigram::UnigramWords::new(), 0)),
        })
    }

    /// Counts the words of each text on `num_threads` threads.
    #[pyo3(signature = (texts, num_threads=1, control=None))]
    fn add_texts(
        &self,
        py: Python<'_>,
        texts: Vec<Text>,
        num_threads: usize,
        control: Option<&Bound<'_, TrainControl>>,
    ) -> PyResult<()> {
        let control = control.map(|c| c.get().inner.clone()).unwrap_or_default();
        let refs: Vec<&str> = texts.iter().map(|t| &**t).collect();
        run(py, || self.count(&refs, num_threads, &control))
    }

    /// Counts the words of corpus files read by the core's reader (see `read_files`; blocks
    /// are cut at line ends, so no word is split). Returns the bytes read from disk and the
    /// documents read.
    #[pyo3(signature = (sources, text_field, cut, num_threads=1, control=None, progress=None, open_rows=None,
                        errors="strict"))]
    #[allow(clippy::too_many_arguments)]
    fn add_files(
        &self,
        py: Python<'_>,
        sources: Vec<(std::path::PathBuf, String)>,
        text_field: String,
        cut: Option<&str>,
        num_threads: usize,
        control: Option<&Bound<'_, TrainControl>>,
        progress: Option<Py<PyAny>>,
        open_rows: Option<Py<PyAny>>,
        errors: &str,
    ) -> PyResult<(u64, u64)> {
        let control = control.map(|c| c.get().inner.clone()).unwrap_or_default();
        read_files(py, (sources, Vec::new()), text_field, cut, errors, progress, open_rows, |texts| {
            self.count(texts, num_threads, &control)
        })
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        run(py, || self.with(|(c, _)| Ok(c.len())))
    }

    /// UTF-8 bytes of text counted.
    #[getter]
    fn text_bytes(&self, py: Python<'_>) -> PyResult<u64> {
        run(py, || self.with(|(_, b)| Ok(*b)))
    }
}

/// Unigram training (`train::unigram::train`) on the counted words (moved out of `counter`),
/// returning the bytes of a sentencepiece `.model` file: the learned pieces, a `TrainerSpec`
/// with the options and the `NormalizerSpec` the words were counted with (identity or the
/// counter's charsmap),
/// checked by building the model before it is returned. `progress(stage, pieces, objective,
/// tokens)` is called after each stage.
#[pyfunction]
#[pyo3(signature = (counter, vocab_size, character_coverage, max_piece_length, seed_size, shrinking_factor,
                    num_sub_iterations, unk_piece, bos_piece, eos_piece, control_symbols, user_defined_symbols,
                    byte_fallback, split_by_unicode_script, split_by_number, split_digits, num_threads,
                    min_frequency=1, control=None, progress=None))]
// Why allowed: the arguments are the Python signature's (keywords with defaults).
#[allow(clippy::too_many_arguments)]
pub fn train_unigram<'py>(
    py: Python<'py>,
    counter: &Bound<'_, UnigramWordCounter>,
    vocab_size: usize,
    character_coverage: f64,
    max_piece_length: usize,
    seed_size: usize,
    shrinking_factor: f64,
    num_sub_iterations: usize,
    unk_piece: String,
    bos_piece: Option<String>,
    eos_piece: Option<String>,
    control_symbols: Vec<String>,
    user_defined_symbols: Vec<String>,
    byte_fallback: bool,
    split_by_unicode_script: bool,
    split_by_number: bool,
    split_digits: bool,
    num_threads: usize,
    min_frequency: u64,
    control: Option<&Bound<'_, TrainControl>>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let control = control.map(|c| c.get().inner.clone()).unwrap_or_default();
    let counter = counter.get();
    let opts = unigram::UnigramOptions {
        vocab_size,
        character_coverage,
        max_piece_length,
        seed_size,
        shrinking_factor,
        num_sub_iterations,
        unk_piece,
        bos_piece,
        eos_piece,
        control_symbols,
        user_defined_symbols,
        byte_fallback,
        split_by_unicode_script,
        split_by_number,
        split_digits,
        num_threads,
    };
    let report = |p: &unigram::Progress| {
        if let Some(cb) = &progress {
            let stage = match p.stage {
                unigram::Stage::Seeded => "seeded",
                unigram::Stage::Em => "em",
                unigram::Stage::Pruned => "pruned",
                unigram::Stage::Done => "done",
            };
            // A failing callback only loses a progress line; training goes on.
            Python::attach(|py| {
                let _ = cb.call1(py, (stage, p.pieces, p.objective, p.tokens));
            });
        }
    };
    let data = run(py, || {
        let (words, _) = counter.with(|(c, _)| Ok((std::mem::take(c), 0)))?;
        let mut words = words.into_sorted();
        words.retain(|&(_, n)| n >= min_frequency);
        let pieces = unigram::train(words, &opts, &report, &control)?;
        let normalizer = counter.normalizer.as_ref().map(|(_, spec)| spec.clone());
        let proto = unigram_proto(pieces, &opts, normalizer)?;
        SentencePiece::new(proto.clone())?;
        Ok(proto.write())
    })?;
    Ok(PyBytes::new(py, &data))
}

/// The `ModelProto` of a trained Unigram vocabulary (ids: position in `pieces`).
fn unigram_proto(
    pieces: Vec<(String, f32, unigram::PieceKind)>,
    opts: &unigram::UnigramOptions,
    normalizer: Option<NormalizerSpec>,
) -> Result<ModelProto, CoreError> {
    let id_of = |piece: &Option<String>| -> i32 {
        piece.as_ref().and_then(|p| pieces.iter().position(|(s, _, _)| s == p)).map_or(-1, |i| i as i32)
    };
    let unk_id = pieces.iter().position(|(_, _, k)| *k == unigram::PieceKind::Unknown).unwrap_or(0) as i32;
    let (bos_id, eos_id) = (id_of(&opts.bos_piece), id_of(&opts.eos_piece));
    let mut trainer = TrainerSpec {
        model_type: ModelType::Unigram,
        vocab_size: i32::try_from(pieces.len()).map_err(|_| CoreError::Input("vocab_size exceeds 2**31".into()))?,
        byte_fallback: opts.byte_fallback,
        split_digits: opts.split_digits,
        max_sentencepiece_length: opts.max_piece_length.min(i32::MAX as usize) as i32,
        unk_id,
        bos_id,
        eos_id,
        pad_id: -1,
        unk_piece: opts.unk_piece.clone(),
        user_defined_symbols: opts.user_defined_symbols.clone(),
        control_symbols: opts.control_symbols.clone(),
        ..TrainerSpec::default()
    };
    if let Some(b) = &opts.bos_piece {
        trainer.bos_piece = b.clone();
    }
    if let Some(e) = &opts.eos_piece {
        trainer.eos_piece = e.clone();
    }
    // TrainerSpec.character_coverage (field 10, float): recorded for readers of the file.
    trainer.extra.push((10, 5, (opts.character_coverage as f32).to_le_bytes().to_vec()));
    let normalizer =
        normalizer.unwrap_or_else(|| NormalizerSpec { name: "identity".into(), ..NormalizerSpec::default() });
    let pieces = pieces
        .into_iter()
        .map(|(piece, score, kind)| {
            let kind = PieceType::from_number(kind.sentencepiece_type() as i64)
                .ok_or_else(|| CoreError::Internal(format!("piece kind {kind:?} has no .model type")))?;
            Ok(Piece { piece, score, kind })
        })
        .collect::<Result<Vec<_>, CoreError>>()?;
    Ok(ModelProto {
        pieces,
        trainer_spec: trainer,
        normalizer_spec: normalizer,
        denormalizer_spec: None,
        extra: Vec::new(),
    })
}
