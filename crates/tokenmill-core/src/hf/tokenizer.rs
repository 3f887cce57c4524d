//! `HfTokenizer`: a whole `tokenizer.json` pipeline, HF's `TokenizerImpl` semantics.
//!
//! Encoding one sequence: added tokens are split out (`added`), each other piece is normalized
//! and pre-tokenized into words, each word is tokenized by the model; then the encoding (and
//! the pair's) is truncated, post-processed and padded (`processors::post_process`). Offsets
//! are character offsets in the sequence's text, as HF's Python binding gives them.
//!
//! Two paths, one meaning: `encode` builds the full `Encoding` (tokens, offsets, words,
//! masks); `encode_ids` only the ids (no alignment bookkeeping, no token strings), for the
//! common case. Both run the same stages. The heavy parts are shared behind an `Arc`, so a
//! copy with other truncation or padding settings (`with_truncation`, `with_padding`) costs
//! nothing. What this module does not do: read files (the caller passes the JSON bytes) or
//! implement any stage itself.

use std::sync::Arc;

use serde_json::Value;

use super::added::{AddedVocabulary, Piece};
use super::decoders::{lossy_text, push_byte_level_token, Decoder};
use super::encoding::{pad_encodings, Direction, Encoding, PaddingParams, TruncationParams};
use super::fast::{Fast, FastScratch};
use super::json::{bad, parse_typed, Obj, TypedModel};
use super::models::{BpeCache, Model, Token};
use super::normalized::NormalizedString;
use super::normalizers::Normalizer;
use super::pretokenizers::PreTokenizer;
use super::processors::{post_process, PostProcessor};
use crate::error::CoreError;
use crate::parallel::parallel_map_with;

/// The stages of a tokenizer (immutable, shared by copies).
#[derive(Debug)]
pub struct Pipeline {
    pub normalizer: Option<Normalizer>,
    pub pre_tokenizer: Option<PreTokenizer>,
    pub model: Model,
    pub added: AddedVocabulary,
    pub post_processor: Option<PostProcessor>,
    pub decoder: Option<Decoder>,
    /// The byte-level engine, when it gives the same ids as the pre-tokenizer and model.
    pub fast: Option<Fast>,
    /// What the ids-only path does for `add_special_tokens` (decided once, at load).
    ids_post: IdsPost,
}

/// How `encode_ids` post-processes ids, from the post-processor's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IdsPost {
    /// Nothing to do: no post-processor, or one that leaves ids alone.
    None,
    /// `PostProcessor::process_ids`.
    Ids,
    /// Only the full `process` gives the exact result (or error).
    Full,
}

/// A Hugging Face tokenizer: its pipeline and its truncation and padding settings.
#[derive(Debug, Clone)]
pub struct HfTokenizer {
    pub pipeline: Arc<Pipeline>,
    pub truncation: Option<TruncationParams>,
    pub padding: Option<PaddingParams>,
    /// The JSON the truncation and padding settings were read from (None: off), so that a
    /// caller can show or save them as they were given.
    pub truncation_json: Option<String>,
    pub padding_json: Option<String>,
}

/// Per-thread working memory.
#[derive(Debug, Default)]
pub struct Scratch {
    fast: FastScratch,
    cache: BpeCache,
    pieces: Vec<Piece>,
    words: Vec<NormalizedString>,
    tokens: Vec<Token>,
}

const TOP_KEYS: &[&str] = &[
    "version",
    "truncation",
    "padding",
    "added_tokens",
    "normalizer",
    "pre_tokenizer",
    "model",
    "post_processor",
    "decoder",
];

impl HfTokenizer {
    /// Parses the bytes of a `tokenizer.json`. Malformed JSON: an error with line and column.
    pub fn from_json_bytes(data: &[u8]) -> Result<Self, CoreError> {
        // The fast path: vocab and merges read typed. On any error, the full path below decides
        // (its errors are the reference; a file that fails loads slower, never differently).
        if let Some((v, typed)) = parse_typed(data) {
            if let Ok(t) = Self::build(&v, Some(&typed)) {
                return Ok(t);
            }
        }
        let v: Value = serde_json::from_slice(data)
            .map_err(|e| CoreError::Vocab(format!("line {}, column {}: invalid JSON: {e}", e.line(), e.column())))?;
        Self::from_value(&v)
    }

    /// Builds the tokenizer of a parsed `tokenizer.json`.
    pub fn from_value(v: &Value) -> Result<Self, CoreError> {
        Self::build(v, None)
    }

    /// `from_value`, with `model.vocab` and `model.merges` in `typed` when given.
    fn build(v: &Value, typed: Option<&TypedModel>) -> Result<Self, CoreError> {
        let top = Obj::new(v, "tokenizer.json")?;
        let top = Obj { map: top.map, path: "" };
        for key in top.map.keys() {
            if !TOP_KEYS.contains(&key.as_str()) {
                return Err(CoreError::Unsupported(format!(
                    "{key}: unknown top-level field of a tokenizer.json (known: {})",
                    TOP_KEYS.join(", ")
                )));
            }
        }
        if let Some(ver) = top.opt("version") {
            if ver.as_str() != Some("1.0") {
                return Err(bad("version", format!("{ver} is not a tokenizer.json version tokenmill reads (\"1.0\")")));
            }
        }
        let model = Model::from_json_typed(top.req("model")?, "model", typed)?;
        let normalizer = top.opt("normalizer").map(|n| Normalizer::from_json(n, "normalizer")).transpose()?;
        let pre_tokenizer =
            top.opt("pre_tokenizer").map(|p| PreTokenizer::from_json(p, "pre_tokenizer")).transpose()?;
        let post_processor =
            top.opt("post_processor").map(|p| PostProcessor::from_json(p, "post_processor")).transpose()?;
        let decoder = top.opt("decoder").map(|d| Decoder::from_json(d, "decoder")).transpose()?;
        let truncation = TruncationParams::from_json(top.get("truncation"), "truncation")?;
        let padding = PaddingParams::from_json(top.get("padding"), "padding")?;
        let added = AddedVocabulary::from_json(top.get("added_tokens"), "added_tokens", &model, normalizer.as_ref())?;
        let fast = Fast::new(normalizer.as_ref(), pre_tokenizer.as_ref(), &model, &added)?;
        let ids_post = match &post_processor {
            None => IdsPost::None,
            Some(pp) if pp.leaves_ids_alone() => IdsPost::None,
            Some(pp) if pp.can_process_ids() => IdsPost::Ids,
            Some(_) => IdsPost::Full,
        };
        let pipeline = Pipeline { normalizer, pre_tokenizer, model, added, post_processor, decoder, fast, ids_post };
        let source = |key: &str| top.opt(key).map(Value::to_string);
        Ok(HfTokenizer {
            pipeline: Arc::new(pipeline),
            truncation_json: truncation.as_ref().and(source("truncation")),
            padding_json: padding.as_ref().and(source("padding")),
            truncation,
            padding,
        })
    }

    /// A copy with the truncation settings of `json` (the file format's object; None: off).
    pub fn with_truncation(&self, json: Option<&Value>) -> Result<Self, CoreError> {
        let truncation = TruncationParams::from_json(json, "truncation")?;
        let truncation_json = truncation.as_ref().and(json.map(Value::to_string));
        Ok(HfTokenizer { truncation, truncation_json, ..self.clone() })
    }

    /// A copy with the padding settings of `json` (the file format's object; None: off).
    pub fn with_padding(&self, json: Option<&Value>) -> Result<Self, CoreError> {
        let padding = PaddingParams::from_json(json, "padding")?;
        let padding_json = padding.as_ref().and(json.map(Value::to_string));
        Ok(HfTokenizer { padding, padding_json, ..self.clone() })
    }

    // ------------------------------------------------------------------ one sequence

    /// Splits `text` into the pipeline's words: added tokens and pre-tokens, in order.
    fn words(&self, text: &str, track: bool, skip: &[u32], s: &mut Scratch) -> Result<Vec<Piece>, CoreError> {
        let p = &*self.pipeline;
        // A Metaspace "first" after another split decides "first" from alignments (HF's rule).
        let track = track || p.pre_tokenizer.as_ref().is_some_and(PreTokenizer::needs_alignments);
        s.pieces.clear();
        p.added.split(text, 0, p.normalizer.as_ref(), track, skip, &mut s.pieces)?;
        let mut out = Vec::with_capacity(s.pieces.len());
        for piece in s.pieces.drain(..) {
            if piece.added.is_some() {
                out.push(piece);
                continue;
            }
            match &p.pre_tokenizer {
                None => out.push(piece),
                Some(pt) => {
                    s.words.clear();
                    s.words.push(piece.text);
                    pt.pre_tokenize(&mut s.words)?;
                    out.extend(s.words.drain(..).filter(|w| !w.is_empty()).map(|w| Piece { text: w, added: None }));
                }
            }
        }
        Ok(out)
    }

    /// Appends the ids of `text` (one sequence, no post-processing) to `ids`. `skip`: ids of
    /// added tokens whose text is encoded as text (see `AddedVocabulary::split`).
    pub fn sequence_ids(&self, text: &str, ids: &mut Vec<u32>, skip: &[u32], s: &mut Scratch) -> Result<(), CoreError> {
        let p = &*self.pipeline;
        if let Some(fast) = p.fast.as_ref().filter(|f| !f.needs_full_path(skip)) {
            // No normalizer here: the pieces are the original text between added tokens.
            let fs = &mut s.fast;
            return p.added.for_each_raw(text, skip, |seg, id| match id {
                Some(id) => {
                    ids.push(id);
                    Ok(())
                }
                None => fast.encode_segment(seg, ids, fs),
            });
        }
        let words = self.words(text, false, skip, s)?;
        for w in &words {
            match w.added {
                Some(id) => ids.push(id),
                None => {
                    s.tokens.clear();
                    self.pipeline.model.tokenize_cached(w.text.as_str(), &mut s.tokens, &mut s.cache)?;
                    ids.extend(s.tokens.iter().map(|t| t.id));
                }
            }
        }
        Ok(())
    }

    /// The full encoding of one sequence before post-processing, with character offsets in
    /// `text`, HF's `encode_single_sequence`.
    pub fn sequence_encoding(
        &self,
        text: &str,
        type_id: u32,
        skip: &[u32],
        s: &mut Scratch,
    ) -> Result<Encoding, CoreError> {
        let p = &*self.pipeline;
        let words = self.words(text, true, skip, s)?;
        let mut e = Encoding::default();
        for (wi, w) in words.iter().enumerate() {
            let word = Some(wi as u32);
            match w.added {
                Some(id) => {
                    e.ids.push(id);
                    e.tokens.push(w.text.as_str().to_string());
                    e.offsets.push(w.text.original_range(0, w.text.len()));
                    e.words.push(word);
                }
                None => {
                    s.tokens.clear();
                    p.model.tokenize_cached(w.text.as_str(), &mut s.tokens, &mut s.cache)?;
                    for t in &s.tokens {
                        e.ids.push(t.id);
                        e.tokens.push(p.model.token_text(w.text.as_str(), t).to_string());
                        e.offsets.push(w.text.original_range(t.start as usize, t.end as usize));
                        e.words.push(word);
                    }
                }
            }
        }
        to_char_offsets(text, &mut e.offsets);
        let n = e.ids.len();
        e.type_ids = vec![type_id; n];
        e.special_tokens_mask = vec![0; n];
        e.attention_mask = vec![1; n];
        Ok(e)
    }

    // ------------------------------------------------------------------ public encoding

    /// HF's `encode(text, pair, add_special_tokens)`: truncated, post-processed, padded.
    pub fn encode(&self, text: &str, pair: Option<&str>, add_special_tokens: bool) -> Result<Encoding, CoreError> {
        self.encode_with(text, pair, add_special_tokens, &[], &mut Scratch::default())
    }

    /// `encode` with `skip` (ids of added tokens not to match) and working memory.
    pub fn encode_with(
        &self,
        text: &str,
        pair: Option<&str>,
        add_special_tokens: bool,
        skip: &[u32],
        s: &mut Scratch,
    ) -> Result<Encoding, CoreError> {
        let e = self.sequence_encoding(text, 0, skip, s)?;
        let pe = pair.map(|t| self.sequence_encoding(t, 1, skip, s)).transpose()?;
        post_process(
            e,
            pe,
            add_special_tokens,
            self.pipeline.post_processor.as_ref(),
            self.truncation.as_ref(),
            self.padding.as_ref(),
        )
    }

    /// The ids of `encode(text, None, add_special_tokens)`, without building what only the full
    /// encoding needs when no truncation or padding is set.
    pub fn encode_ids(
        &self,
        text: &str,
        add_special_tokens: bool,
        skip: &[u32],
        s: &mut Scratch,
    ) -> Result<Vec<u32>, CoreError> {
        if self.truncation.is_some() || self.padding.is_some() {
            return Ok(self.encode_with(text, None, add_special_tokens, skip, s)?.ids);
        }
        let mut ids = Vec::with_capacity(text.len() / 3 + 2);
        self.sequence_ids(text, &mut ids, skip, s)?;
        let p = &*self.pipeline;
        let post = if add_special_tokens { p.ids_post } else { IdsPost::None };
        match (post, &p.post_processor) {
            (IdsPost::None, _) | (_, None) => Ok(ids),
            (IdsPost::Ids, Some(pp)) => {
                let mut ids = ids;
                pp.process_ids(&mut ids);
                Ok(ids)
            }
            (IdsPost::Full, Some(pp)) => {
                // The full path, for its exact error (or result).
                let n = ids.len();
                let e = Encoding {
                    ids,
                    type_ids: vec![0; n],
                    tokens: vec![String::new(); n],
                    words: vec![None; n],
                    offsets: vec![(0, 0); n],
                    special_tokens_mask: vec![0; n],
                    attention_mask: vec![1; n],
                    ..Encoding::default()
                };
                Ok(pp.process(e, None, true)?.ids)
            }
        }
    }

    /// `encode_ids` appended to `out` (on an error, `out` is as it was). Why: a batch gathers
    /// its ids in one buffer, and the sequence's ids then go there directly, with the special
    /// tokens around them, instead of through a vector per text and a second one for the
    /// post-processor (two allocations and two copies per line).
    pub fn encode_ids_into(
        &self,
        text: &str,
        add_special_tokens: bool,
        skip: &[u32],
        s: &mut Scratch,
        out: &mut Vec<u32>,
    ) -> Result<(), CoreError> {
        let start = out.len();
        let p = &*self.pipeline;
        let direct = self.truncation.is_none() && self.padding.is_none();
        let done = match (direct, add_special_tokens, p.ids_post, &p.post_processor) {
            (false, ..) => Ok(false),
            (true, false, ..) | (true, true, IdsPost::None, _) | (true, true, _, None) => {
                self.sequence_ids(text, out, skip, s).map(|()| true)
            }
            (true, true, IdsPost::Ids, Some(pp)) => pp.emit_ids(out, |o| self.sequence_ids(text, o, skip, s)),
            (true, true, IdsPost::Full, Some(_)) => Ok(false),
        };
        match done {
            Ok(true) => Ok(()),
            Ok(false) => {
                out.extend_from_slice(&self.encode_ids(text, add_special_tokens, skip, s)?);
                Ok(())
            }
            Err(e) => {
                out.truncate(start);
                Err(e)
            }
        }
    }

    /// `encode_ids` of every text, on up to `threads` threads, in order.
    pub fn encode_ids_batch(
        &self,
        texts: &[&str],
        add_special_tokens: bool,
        skip: &[u32],
        threads: usize,
    ) -> Result<Vec<Vec<u32>>, CoreError> {
        if self.padding.is_some() {
            let encs = self.encode_batch(texts, None, add_special_tokens, skip, threads)?;
            return Ok(encs.into_iter().map(|e| e.ids).collect());
        }
        parallel_map_with(texts, threads, |s: &mut Scratch, t| self.encode_ids(t, add_special_tokens, skip, s))
    }

    /// The ids of every text padded by `pad` into one row-major matrix, with its attention
    /// mask: `(ids, mask, width)`. Each row is what `encode_batch` with these padding settings
    /// gives, built from ids alone (no tokens, offsets or words). A row longer than a `Fixed`
    /// length (no truncation) stays whole, as in HF, and the other rows are padded to it so that
    /// the matrix is rectangular.
    pub fn encode_ids_matrix(
        &self,
        texts: &[&str],
        add_special_tokens: bool,
        skip: &[u32],
        threads: usize,
        pad: &PaddingParams,
    ) -> Result<(Vec<u32>, Vec<u8>, usize), CoreError> {
        let unpadded;
        let plain = if self.padding.is_some() {
            unpadded = HfTokenizer { padding: None, padding_json: None, ..self.clone() };
            &unpadded
        } else {
            self
        };
        let rows = plain.encode_ids_batch(texts, add_special_tokens, skip, threads)?;
        let longest = rows.iter().map(Vec::len).max().unwrap_or(0);
        let width = pad.target_length_of(longest).max(longest);
        let cells = rows.len().checked_mul(width).filter(|&n| n <= isize::MAX as usize / 4).ok_or_else(|| {
            CoreError::Input(format!("{} rows of {width} tokens do not fit in memory: pass fewer texts", rows.len()))
        })?;
        let (mut ids, mut mask) = (vec![pad.pad_id; cells], vec![0u8; cells]);
        for (r, row) in rows.iter().enumerate() {
            let at = r * width + if pad.direction == Direction::Left { width - row.len() } else { 0 };
            ids[at..at + row.len()].copy_from_slice(row);
            mask[at..at + row.len()].fill(1);
        }
        Ok((ids, mask, width))
    }

    /// HF's `encode_batch`: each text (with its pair) encoded, then padded across the batch.
    pub fn encode_batch(
        &self,
        texts: &[&str],
        pairs: Option<&[&str]>,
        add_special_tokens: bool,
        skip: &[u32],
        threads: usize,
    ) -> Result<Vec<Encoding>, CoreError> {
        if let Some(p) = pairs {
            if p.len() != texts.len() {
                return Err(CoreError::Input(format!(
                    "{} texts but {} pairs: give one pair per text",
                    texts.len(),
                    p.len()
                )));
            }
        }
        let idx: Vec<usize> = (0..texts.len()).collect();
        let mut encs = parallel_map_with(&idx, threads, |s: &mut Scratch, &i| {
            self.encode_with(texts[i], pairs.map(|p| p[i]), add_special_tokens, skip, s)
        })?;
        if let Some(params) = &self.padding {
            pad_encodings(&mut encs, params);
        }
        Ok(encs)
    }

    // ------------------------------------------------------------------ decoding, vocabulary

    /// HF's `decode`: the token strings (special tokens left out when `skip_special_tokens`)
    /// through the decoder, or joined by spaces without one. Unknown ids are left out, as HF.
    pub fn decode(&self, ids: &[u32], skip_special_tokens: bool) -> Result<String, CoreError> {
        let p = &*self.pipeline;
        if let (Some(Fast::Bpe { bpe, .. }), Some(Decoder::ByteLevel)) = (&p.fast, &p.decoder) {
            // Byte-level: the engine's token bytes, joined, then lossy UTF-8 (the decoder's rule)
            // without a string per token.
            let mut bytes = Vec::with_capacity(ids.len() * 4);
            for &id in ids {
                if let Some(t) = p.added.id_to_token(id) {
                    if !(skip_special_tokens && p.added.is_special(t)) {
                        push_byte_level_token(t, &mut bytes);
                    }
                } else if let Some(b) = bpe.vocab.token_bytes(u64::from(id)) {
                    bytes.extend_from_slice(b);
                } else if let Some(t) = p.model.id_to_token(id) {
                    push_byte_level_token(t, &mut bytes);
                }
            }
            return Ok(lossy_text(bytes));
        }
        let mut tokens: Vec<String> = Vec::with_capacity(ids.len());
        for &id in ids {
            let t = match p.added.id_to_token(id) {
                Some(t) => t,
                None => match p.model.id_to_token(id) {
                    Some(t) => t,
                    None => continue,
                },
            };
            if skip_special_tokens && p.added.is_special(t) {
                continue;
            }
            tokens.push(t.to_string());
        }
        match &p.decoder {
            Some(d) => d.decode(tokens),
            None => Ok(tokens.join(" ")),
        }
    }

    /// The id of a token (added tokens first, as HF).
    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.pipeline.added.token_to_id(token).or_else(|| self.pipeline.model.token_to_id(token))
    }

    /// The string of an id (added tokens first, as HF).
    pub fn id_to_token(&self, id: u32) -> Option<&str> {
        self.pipeline.added.id_to_token(id).or_else(|| self.pipeline.model.id_to_token(id))
    }

    /// Which pre-tokenizer splits text on the ids path: the byte-level engine's matcher
    /// (`"r50k"`, `"o200k"`, ..., `"regex"`), or `"hf"` for the general pipeline.
    pub fn pretokenizer_name(&self) -> &'static str {
        self.pipeline.fast.as_ref().map_or("hf", Fast::pretokenizer_name)
    }

    /// True when the decoder maps tokens back through GPT-2's byte table (a byte-level BPE).
    pub fn is_byte_level(&self) -> bool {
        self.pipeline.decoder.as_ref().is_some_and(Decoder::is_byte_level)
    }

    /// The exact bytes of a token: for a byte-level tokenizer, its characters through the byte
    /// table (a character outside the table, as in added tokens, stands for its UTF-8); else
    /// the token string's UTF-8.
    pub fn token_bytes(&self, id: u32) -> Option<Vec<u8>> {
        let t = self.id_to_token(id)?;
        if !self.is_byte_level() || self.pipeline.added.get(id).is_some() {
            return Some(t.as_bytes().to_vec());
        }
        let mut out = Vec::with_capacity(t.len());
        for c in t.chars() {
            match super::bytes::char_to_byte(c) {
                Some(b) => out.push(b),
                None => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
        }
        Some(out)
    }

    /// The id of a token given by its exact bytes (the inverse of `token_bytes`).
    pub fn bytes_to_id(&self, bytes: &[u8]) -> Option<u32> {
        if let Ok(s) = std::str::from_utf8(bytes) {
            if let Some(id) = self.pipeline.added.token_to_id(s) {
                return Some(id);
            }
            if !self.is_byte_level() {
                return self.pipeline.model.token_to_id(s);
            }
        }
        if !self.is_byte_level() {
            return None;
        }
        let s: String = bytes.iter().map(|&b| super::bytes::BYTE_TO_CHAR[b as usize]).collect();
        self.pipeline.model.token_to_id(&s)
    }

    /// HF's `get_vocab_size(with_added_tokens)`.
    pub fn vocab_size(&self, with_added_tokens: bool) -> usize {
        let p = &*self.pipeline;
        let base = p.model.vocab_size();
        if !with_added_tokens {
            return base;
        }
        let vocab = p.added.vocab();
        base + vocab.iter().filter(|(t, _)| p.model.token_to_id(t).is_none()).count()
    }

    /// HF's `get_vocab(with_added_tokens)` as `(token, id)` pairs sorted by id.
    pub fn vocab(&self, with_added_tokens: bool) -> Vec<(String, u32)> {
        let p = &*self.pipeline;
        let mut map: rustc_hash::FxHashMap<String, u32> = p.model.vocab().into_iter().collect();
        if with_added_tokens {
            map.extend(p.added.vocab());
        }
        let mut v: Vec<(String, u32)> = map.into_iter().collect();
        v.sort_unstable_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        v
    }
}

/// Converts byte offsets in `text` to character offsets, in place, by HF's rule: a byte
/// maps to the index of the character it is in; an end at or past the text's end maps to one
/// past the character of the byte before it; an offset starting past the end is left as is.
fn to_char_offsets(text: &str, offsets: &mut [(usize, usize)]) {
    if text.is_ascii() {
        return;
    }
    let bytes = text.as_bytes();
    let len = bytes.len();
    // idx[b]: the index of the character that byte b is in.
    let mut idx = Vec::with_capacity(len);
    let mut n = 0usize;
    for &b in bytes {
        if crate::offsets::starts_char(b) {
            n += 1;
        }
        idx.push(n.saturating_sub(1));
    }
    for o in offsets.iter_mut() {
        let (Some(&s), e) = (idx.get(o.0), o.1) else { continue };
        let end = match idx.get(e) {
            Some(&c) => c,
            None => e.checked_sub(1).and_then(|b| idx.get(b)).map_or(s + 1, |&c| c) + 1,
        };
        *o = (s, end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_offsets() {
        let mut o = vec![(0, 1), (1, 3), (3, 7), (7, 8)];
        to_char_offsets("aé🤗b", &mut o);
        assert_eq!(o, vec![(0, 1), (1, 2), (2, 3), (3, 4)]);
        // A range ending inside a character ends at that character (HF's converter).
        let mut o = vec![(1, 2), (2, 3), (3, 3)];
        to_char_offsets("aé", &mut o);
        assert_eq!(o, vec![(1, 1), (1, 2), (3, 3)]);
    }

    /// `encode_ids_into` appends exactly `encode_ids` after what the buffer holds, for every
    /// kind of post-processor (and none), with and without special tokens and truncation.
    #[test]
    fn ids_into_one_buffer_equal_ids() {
        let cls = r#"{"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}"#;
        let sep = r#"{"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}"#;
        let template = format!(
            r#"{{"type": "TemplateProcessing", "single": [{{"SpecialToken": {{"id": "[CLS]", "type_id": 0}}}}, {{"Sequence": {{"id": "A", "type_id": 0}}}}, {{"SpecialToken": {{"id": "[SEP]", "type_id": 0}}}}], "pair": [{{"Sequence": {{"id": "A", "type_id": 0}}}}, {{"Sequence": {{"id": "B", "type_id": 1}}}}], "special_tokens": {{"[CLS]": {cls}, "[SEP]": {sep}}}}}"#
        );
        let bert = r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#.to_string();
        let roberta = r#"{"type": "RobertaProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1], "trim_offsets": true, "add_prefix_space": false}"#.to_string();
        let sequence = format!(r#"{{"type": "Sequence", "processors": [{bert}, {template}]}}"#);
        let truncation = r#"{"direction": "Right", "max_length": 4, "strategy": "LongestFirst", "stride": 0}"#;
        let words = ["a", "b", "c", "[CLS]", "[SEP]"];
        for post in ["null".to_string(), bert, roberta, template, sequence] {
            for trunc in ["null", truncation] {
                let json = format!(
                    r#"{{"added_tokens": [{{"id": 1, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}}, {{"id": 2, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}}], "pre_tokenizer": {{"type": "Whitespace"}}, "post_processor": {post}, "truncation": {trunc}, "model": {{"type": "WordLevel", "vocab": {{"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3, "b": 4}}, "unk_token": "[UNK]"}}}}"#
                );
                let tok = HfTokenizer::from_json_bytes(json.as_bytes()).expect("load");
                let mut s = Scratch::default();
                for n in 0..64usize {
                    let text: Vec<&str> = (0..n % 7).map(|k| words[(n * 7 + k * 3) % words.len()]).collect();
                    let text = text.join(" ");
                    for add in [true, false] {
                        let want = tok.encode_ids(&text, add, &[], &mut s).expect("ids");
                        let mut out = vec![9, 9];
                        tok.encode_ids_into(&text, add, &[], &mut s, &mut out).expect("into");
                        assert_eq!(out[2..], want[..], "{post} {trunc} {text:?} {add}");
                        assert_eq!(out[..2], [9, 9]);
                    }
                }
            }
        }
    }
}
