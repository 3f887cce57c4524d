//! The `model` of a Hugging Face `tokenizer.json`: BPE, WordPiece, WordLevel and Unigram, each
//! turning one pre-token (a word) into tokens with HF's exact ids and offsets.
//!
//! `Model::from_json` reads the `model` object with HF's serde rules (required fields, which
//! may be `null`, the untyped legacy form whose type HF guesses from the fields) and errors that
//! name the field. `Model::tokenize` appends the tokens of one word: ids and BYTE ranges within
//! the word, as HF's model gives them (see `bpe` for the BPE quirks that make some ranges odd).
//!
//! What this module does not do: BPE dropout other than 0 and 1 (random, so `Unsupported`),
//! Unigram sampling, a cache of words (the model is immutable and shared between threads; every
//! call has its own scratch).
//!
//! Where tokenmill is stricter than HF, on files HF loads: a vocabulary that is empty or gives
//! one id to two tokens (HF's id -> token is then arbitrary), and a WordPiece `unk_token` that
//! is not in the vocabulary (HF fails only on the first word it cannot split) are load errors.

pub mod bpe;
pub mod unigram;

pub use bpe::BpeCache;
pub use unigram::Unigram;

use std::hash::BuildHasher;
use std::sync::OnceLock;

use hashbrown::hash_table::{Entry, HashTable};
use rustc_hash::{FxBuildHasher, FxHashMap};
use serde_json::Value;

use super::json::{bad, join, show, unsupported, Obj, TypedModel};
use crate::error::CoreError;
use crate::wordpiece::WordPiece;

pub use bpe::Bpe;

/// One token of a word: its id and its byte range in the word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub id: u32,
    pub start: u32,
    pub end: u32,
}

/// A model's vocabulary both ways: token -> id and id -> token.
///
/// Every token is in one string (`text`, file order) and both directions hold spans of it: one
/// allocation instead of one per token makes loading faster, and a lookup reads the token
/// bytes straight from the span in the table's slot, as a map of boxed strings would.
///
/// The token -> id table is built at load for BPE and WordLevel, which look tokens up as they
/// encode, and left for the first lookup otherwise: a WordPiece model answers token -> id from
/// its trie and never needs it (building it was a fifth of a BERT load).
#[derive(Clone)]
pub(crate) struct Vocab {
    text: String,
    /// token -> id: (start, end, id), hashed on `text[start..end]`.
    map: OnceLock<HashTable<(usize, usize, u32)>>,
    rev: Rev,
    len: usize,
}

/// id -> span of `text`: by id when the ids are dense enough (they nearly always are),
/// `NO_SPAN` for an unused id; else a map.
#[derive(Clone)]
enum Rev {
    Dense(Vec<(usize, usize)>),
    Sparse(FxHashMap<u32, (usize, usize)>),
}

const NO_SPAN: (usize, usize) = (usize::MAX, 0);

fn hash_token(token: &str) -> u64 {
    FxBuildHasher.hash_one(token)
}

impl Vocab {
    /// Reads a `{token: id}` object. Errors: not an object, an id that is not a u32, an empty
    /// vocabulary, an id given to two tokens.
    pub(crate) fn from_json(v: &Value, path: &str, index: bool) -> Result<Self, CoreError> {
        let obj =
            v.as_object().ok_or_else(|| bad(path, format!("expected a {{token: id}} object, got {}", show(v))))?;
        if obj.is_empty() {
            return Err(bad(path, "the vocabulary is empty"));
        }
        let mut pairs: Vec<(&str, u32)> = Vec::with_capacity(obj.len());
        for (token, id) in obj {
            let id = id
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| bad(&join(path, token), format!("expected an id in [0, 2**32), got {}", show(id))))?;
            pairs.push((token.as_str(), id));
        }
        Self::from_pairs(pairs, path, index)
    }

    /// `model.vocab` of the object `o`: the typed list when there is one, else its `Value`.
    /// `index`: build the token -> id table now, which also finds a token given twice in the
    /// typed list (without it, the caller must reject those itself).
    fn read(o: Obj, typed: Option<&TypedModel>, index: bool) -> Result<Self, CoreError> {
        let path = join(o.path, "vocab");
        match typed.and_then(|t| t.vocab.as_ref()) {
            Some(pairs) => Self::from_pairs(pairs.iter().map(|(t, id)| (&**t, *id)).collect(), &path, index),
            None => Self::from_json(o.req("vocab")?, &path, index),
        }
    }

    /// Builds the vocabulary of `(token, id)` pairs in file order. Errors: no pair, an id
    /// given to two tokens, and with `index` a token given twice.
    fn from_pairs(pairs: Vec<(&str, u32)>, path: &str, index: bool) -> Result<Self, CoreError> {
        if pairs.is_empty() {
            return Err(bad(path, "the vocabulary is empty"));
        }
        let (mut max_id, mut text_len) = (0u32, 0usize);
        for &(token, id) in &pairs {
            max_id = max_id.max(id);
            text_len += token.len();
        }
        let mut text = String::with_capacity(text_len);
        let mut entries = Vec::with_capacity(pairs.len());
        for &(token, id) in &pairs {
            entries.push((text.len(), text.len() + token.len(), id));
            text.push_str(token);
        }
        let dup = |id: u32, a: (usize, usize), b: (usize, usize)| {
            let (a, b) = (&text[a.0..a.1], &text[b.0..b.1]);
            bad(path, format!("id {id} is given to two tokens, {a:?} and {b:?}; each id must name one token"))
        };
        // Why dense up to 2x: the span table is then small next to the map.
        let rev = if (max_id as usize) < 2 * pairs.len() + 1024 {
            let mut spans = vec![NO_SPAN; max_id as usize + 1];
            for &(start, end, id) in &entries {
                let slot = &mut spans[id as usize];
                if *slot != NO_SPAN {
                    return Err(dup(id, *slot, (start, end)));
                }
                *slot = (start, end);
            }
            Rev::Dense(spans)
        } else {
            let mut map = FxHashMap::default();
            map.reserve(pairs.len());
            for &(start, end, id) in &entries {
                if let Some(other) = map.insert(id, (start, end)) {
                    return Err(dup(id, other, (start, end)));
                }
            }
            Rev::Sparse(map)
        };
        let map = OnceLock::new();
        if index {
            let table = Self::index(&text, &entries)
                // Only from a typed list (a JSON object read as a `Value` has each key once).
                .map_err(|token| bad(path, format!("the token {token:?} appears twice")))?;
            let _ = map.set(table);
        }
        Ok(Vocab { text, map, rev, len: entries.len() })
    }

    /// The token -> id table of `entries` (spans of `text`); Err(token) for a token given twice.
    fn index<'t>(text: &'t str, entries: &[(usize, usize, u32)]) -> Result<HashTable<(usize, usize, u32)>, &'t str> {
        let mut map = HashTable::with_capacity(entries.len());
        for &(start, end, id) in entries {
            let token = &text[start..end];
            let rehash = |&(s, e, _): &(usize, usize, u32)| hash_token(&text[s..e]);
            match map.entry(hash_token(token), |&(s, e, _)| &text[s..e] == token, rehash) {
                Entry::Occupied(_) => return Err(token),
                Entry::Vacant(slot) => {
                    slot.insert((start, end, id));
                }
            }
        }
        Ok(map)
    }

    fn table(&self) -> &HashTable<(usize, usize, u32)> {
        self.map.get_or_init(|| {
            let entries: Vec<(usize, usize, u32)> = self.spans().map(|(id, (s, e))| (s, e, id)).collect();
            // Tokens are unique here: a vocabulary built without its table was checked by its model.
            Self::index(&self.text, &entries).unwrap_or_default()
        })
    }

    /// (id, span) of every token, by id when the ids are dense.
    fn spans(&self) -> Box<dyn Iterator<Item = (u32, (usize, usize))> + '_> {
        match &self.rev {
            Rev::Dense(spans) => {
                Box::new(spans.iter().enumerate().filter(|(_, &s)| s != NO_SPAN).map(|(id, &s)| (id as u32, s)))
            }
            Rev::Sparse(m) => Box::new(m.iter().map(|(&id, &s)| (id, s))),
        }
    }

    pub(crate) fn get(&self, token: &str) -> Option<u32> {
        let text = &self.text;
        self.table().find(hash_token(token), |&(s, e, _)| &text[s..e] == token).map(|&(_, _, id)| id)
    }

    pub(crate) fn token(&self, id: u32) -> Option<&str> {
        let (start, end) = match &self.rev {
            Rev::Dense(spans) => *spans.get(id as usize).filter(|&&span| span != NO_SPAN)?,
            Rev::Sparse(m) => *m.get(&id)?,
        };
        self.text.get(start..end)
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, u32)> {
        self.spans().map(|(id, (s, e))| (&self.text[s..e], id))
    }
}

impl std::fmt::Debug for Vocab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Vocab({} tokens)", self.len)
    }
}

/// A model of `tokenizer.json`.
#[derive(Debug, Clone)]
pub enum Model {
    Bpe(Box<Bpe>),
    WordPiece(Box<WordPieceModel>),
    WordLevel(WordLevel),
    Unigram(Box<Unigram>),
}

/// WordPiece: `crate::wordpiece::WordPiece` (HF's greedy longest-match-first) and its vocabulary
/// both ways.
#[derive(Debug, Clone)]
pub struct WordPieceModel {
    wp: WordPiece,
    vocab: Vocab,
}

impl WordPieceModel {
    /// The core WordPiece model (for the BERT fast path).
    pub fn inner(&self) -> &WordPiece {
        &self.wp
    }
}

/// WordLevel: a word is its token, or the unknown token.
#[derive(Debug, Clone)]
pub struct WordLevel {
    vocab: Vocab,
    unk_token: String,
    unk_id: Option<u32>,
}

const SUPPORTED: &[&str] = &["BPE", "WordPiece", "WordLevel", "Unigram"];

impl Model {
    /// Builds the model of `v` (the `model` field, at `path`).
    pub fn from_json(v: &Value, path: &str) -> Result<Self, CoreError> {
        Self::from_json_typed(v, path, None)
    }

    /// `from_json` where `typed` (from `json::parse_typed`), when given, holds `vocab` and
    /// `merges` and `v` only placeholders for them.
    pub(crate) fn from_json_typed(v: &Value, path: &str, typed: Option<&TypedModel>) -> Result<Self, CoreError> {
        let o = Obj::new(v, path)?;
        match o.get("type") {
            Some(Value::String(t)) => match t.as_str() {
                "BPE" => Ok(Model::Bpe(Box::new(Bpe::from_json(o, typed)?))),
                "WordPiece" => Ok(Model::WordPiece(Box::new(WordPieceModel::from_json(o, typed)?))),
                "WordLevel" => Ok(Model::WordLevel(WordLevel::from_json(o, typed)?)),
                "Unigram" => Ok(Model::Unigram(Box::new(Unigram::from_json(o)?))),
                other => Err(unsupported(&join(path, "type"), &format!("{other:?}"), SUPPORTED)),
            },
            Some(other) => Err(bad(&join(path, "type"), format!("expected a string, got {}", show(other)))),
            None => Self::from_untyped(o, typed),
        }
    }

    /// Old files have no `"type"`: HF then tries BPE, WordPiece, WordLevel, Unigram in this order
    /// and keeps the first that builds. Here the fields decide (a BPE has `merges`, a WordPiece
    /// `continuing_subword_prefix` and `max_input_chars_per_word`, a WordLevel `unk_token`, a
    /// Unigram a list as `vocab`) and the errors are those of that model: HF's fall-through from
    /// a BPE that fails to build to a WordLevel that ignores `merges` is not kept.
    fn from_untyped(o: Obj, typed: Option<&TypedModel>) -> Result<Self, CoreError> {
        let has = |key: &str| o.get(key).is_some();
        if has("merges") {
            Ok(Model::Bpe(Box::new(Bpe::from_json(o, typed)?)))
        } else if has("continuing_subword_prefix") && has("max_input_chars_per_word") {
            Ok(Model::WordPiece(Box::new(WordPieceModel::from_json(o, typed)?)))
        } else if has("unk_token") && o.get("vocab").is_some_and(Value::is_object) {
            Ok(Model::WordLevel(WordLevel::from_json(o, typed)?))
        } else if o.get("vocab").is_some_and(Value::is_array) {
            Ok(Model::Unigram(Box::new(Unigram::from_json(o)?)))
        } else {
            Err(bad(
                o.path,
                "no \"type\" and the fields of none of the models (BPE: vocab, merges; WordPiece: vocab, unk_token, \
                 continuing_subword_prefix, max_input_chars_per_word; WordLevel: vocab, unk_token; Unigram: vocab as \
                 a list of [piece, score])",
            ))
        }
    }

    /// Appends the tokens of `word` (one pre-token, never empty) to `out`.
    pub fn tokenize(&self, word: &str, out: &mut Vec<Token>) -> Result<(), CoreError> {
        if u32::try_from(word.len()).is_err() {
            return Err(CoreError::Input(format!("a word of {} bytes is too long (at most 2**32 - 1)", word.len())));
        }
        match self {
            Model::Bpe(m) => m.tokenize(word, out),
            Model::WordPiece(m) => {
                m.tokenize(word, out);
                Ok(())
            }
            Model::WordLevel(m) => m.tokenize(word, out),
            Model::Unigram(m) => m.tokenize(word, out),
        }
    }

    /// `tokenize` with per-call memory of merged parts (BPE; the other models need none).
    pub fn tokenize_cached(&self, word: &str, out: &mut Vec<Token>, cache: &mut BpeCache) -> Result<(), CoreError> {
        match self {
            Model::Bpe(m) if u32::try_from(word.len()).is_ok() => m.tokenize_cached(word, out, cache),
            _ => self.tokenize(word, out),
        }
    }

    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        match self {
            Model::WordPiece(m) => m.wp.token_to_id(token),
            // Its own trie: a Unigram may give one piece twice (HF: the later id).
            Model::Unigram(m) => m.token_to_id(token),
            _ => self.vocab_ref().get(token),
        }
    }

    pub fn id_to_token(&self, id: u32) -> Option<&str> {
        self.vocab_ref().token(id)
    }

    /// The token text HF reports (`Encoding.tokens`) for `t`, a token of `word`: the piece of
    /// its id, except for a Unigram, whose unknown runs HF reports as their text.
    pub fn token_text<'a>(&'a self, word: &'a str, t: &Token) -> &'a str {
        match self {
            Model::Unigram(m) => m.token_text(word, t),
            _ => self.id_to_token(t.id).unwrap_or_default(),
        }
    }

    /// Number of tokens in the model's vocabulary (HF's `get_vocab_size` of the model).
    pub fn vocab_size(&self) -> usize {
        self.vocab_ref().len()
    }

    /// Every `(token, id)` of the model's vocabulary.
    pub fn vocab(&self) -> Vec<(String, u32)> {
        self.vocab_ref().iter().map(|(t, id)| (t.to_string(), id)).collect()
    }

    fn vocab_ref(&self) -> &Vocab {
        match self {
            Model::Bpe(m) => m.vocab(),
            Model::WordPiece(m) => &m.vocab,
            Model::WordLevel(m) => &m.vocab,
            Model::Unigram(m) => &m.vocab,
        }
    }
}

/// A string field that HF requires (no default, not nullable).
fn req_string(o: Obj, key: &str) -> Result<String, CoreError> {
    Ok(o.str(key)?.to_string())
}

impl WordPieceModel {
    fn from_json(o: Obj, typed: Option<&TypedModel>) -> Result<Self, CoreError> {
        o.only(&["type", "unk_token", "continuing_subword_prefix", "max_input_chars_per_word", "vocab"])?;
        let unk = req_string(o, "unk_token")?;
        let prefix = req_string(o, "continuing_subword_prefix")?;
        let max_chars = o.u64("max_input_chars_per_word")?;
        let vocab_path = join(o.path, "vocab");
        o.req("vocab")?;
        // No token -> id table (see `Vocab`): the model checks tokens given twice.
        let vocab = Vocab::read(o, typed, false)?;
        if !vocab.iter().any(|(t, _)| t == unk) {
            return Err(bad(
                &join(o.path, "unk_token"),
                format!(
                    "{unk:?} is not in {vocab_path} (Hugging Face loads such a file but fails on every word it \
                     cannot split; tokenmill refuses it)"
                ),
            ));
        }
        let pairs: Vec<(&str, u32)> = vocab.iter().collect();
        let wp = WordPiece::from_pairs(&pairs, &unk, &prefix, usize::try_from(max_chars).unwrap_or(usize::MAX))
            .map_err(|e| bad(o.path, e))?;
        Ok(WordPieceModel { wp, vocab })
    }

    fn tokenize(&self, word: &str, out: &mut Vec<Token>) {
        let mut ids = Vec::new();
        let mut spans = Vec::new();
        self.wp.tokenize_word(word, &mut ids, &mut spans);
        out.reserve(ids.len());
        if word.is_ascii() {
            out.extend(ids.iter().zip(&spans).map(|(&id, &(start, end))| Token { id, start, end }));
            return;
        }
        // Character spans -> byte spans: the spans are contiguous and in order, so one walk
        // over the word's characters converts them all.
        let mut chars = word.char_indices().map(|(i, _)| i as u32).chain(std::iter::once(word.len() as u32));
        let (mut char_pos, mut byte_pos) = (0u32, chars.next().unwrap_or(0));
        let mut advance = |to: u32| {
            while char_pos < to {
                byte_pos = chars.next().unwrap_or(word.len() as u32);
                char_pos += 1;
            }
            byte_pos
        };
        for (&id, &(start, end)) in ids.iter().zip(&spans) {
            let start = advance(start);
            let end = advance(end);
            out.push(Token { id, start, end });
        }
    }
}

impl WordLevel {
    fn from_json(o: Obj, typed: Option<&TypedModel>) -> Result<Self, CoreError> {
        o.only(&["type", "vocab", "unk_token"])?;
        let unk_token = req_string(o, "unk_token")?;
        o.req("vocab")?;
        let vocab = Vocab::read(o, typed, true)?;
        let unk_id = vocab.get(&unk_token);
        Ok(WordLevel { vocab, unk_token, unk_id })
    }

    fn tokenize(&self, word: &str, out: &mut Vec<Token>) -> Result<(), CoreError> {
        let id = match self.vocab.get(word) {
            Some(id) => id,
            None => self.unk_id.ok_or_else(|| {
                CoreError::Input(format!(
                    "WordLevel model: {word:?} is not in the vocabulary and neither is the unknown token {:?} \
                     (Hugging Face: \"Missing [UNK] token from the vocabulary\")",
                    self.unk_token
                ))
            })?,
        };
        out.push(Token { id, start: 0, end: word.len() as u32 });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    pub(super) fn load(v: Value) -> Result<Model, CoreError> {
        Model::from_json(&v, "model")
    }

    pub(super) fn toks(m: &Model, word: &str) -> Vec<(u32, (u32, u32))> {
        let mut out = Vec::new();
        m.tokenize(word, &mut out).unwrap();
        out.into_iter().map(|t| (t.id, (t.start, t.end))).collect()
    }

    #[test]
    fn word_level() {
        // Tokenizer.from_str(json with this "model").model.tokenize(w) in HF Python:
        // (token.id, token.offsets), offsets in bytes.
        let m =
            load(json!({"type": "WordLevel", "vocab": {"a": 0, "bc": 1, "<unk>": 2, "é": 3}, "unk_token": "<unk>"}))
                .unwrap();
        assert_eq!(toks(&m, "bc"), vec![(1, (0, 2))]);
        assert_eq!(toks(&m, "abc"), vec![(2, (0, 3))]);
        assert_eq!(toks(&m, "é"), vec![(3, (0, 2))]);
        assert_eq!(m.vocab_size(), 4);
        assert_eq!(m.token_to_id("bc"), Some(1));
        assert_eq!(m.id_to_token(2), Some("<unk>"));
        assert_eq!(m.id_to_token(9), None);
        let mut v = m.vocab();
        v.sort();
        assert_eq!(v[0], ("<unk>".to_string(), 2));
        // HF loads a WordLevel whose unk is not in the vocabulary and fails at encode time:
        // "WordLevel error: Missing [UNK] token from the vocabulary".
        let m = load(json!({"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "<unk>"})).unwrap();
        assert_eq!(toks(&m, "a"), vec![(0, (0, 1))]);
        assert!(matches!(m.tokenize("b", &mut Vec::new()), Err(CoreError::Input(_))));
        // unk_token is required (HF: missing field `unk_token`).
        let e = load(json!({"type": "WordLevel", "vocab": {"a": 0}})).unwrap_err().to_string();
        assert_eq!(e, "model.unk_token: missing");
        let e = load(json!({"type": "WordLevel", "vocab": {"a": 0}, "unk_token": null})).unwrap_err();
        assert!(e.to_string().starts_with("model.unk_token"), "{e}");
    }

    #[test]
    fn word_piece() {
        // Tokenizer.from_str(json with this "model").model.tokenize(w) in HF Python:
        // (token.id, token.offsets), offsets in bytes.
        let m = load(json!({"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 5,
            "vocab": {"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, "é": 4, "##é": 5, "##x": 6}}))
        .unwrap();
        assert_eq!(toks(&m, "unaff"), vec![(1, (0, 2)), (2, (2, 5))]);
        assert_eq!(toks(&m, "unable"), vec![(0, (0, 6))]); // 6 chars > 5
        assert_eq!(toks(&m, "éxé"), vec![(4, (0, 2)), (6, (2, 3)), (5, (3, 5))]);
        assert_eq!(toks(&m, "éé"), vec![(4, (0, 2)), (5, (2, 4))]);
        assert_eq!(toks(&m, "éy"), vec![(0, (0, 3))]);
        assert_eq!(toks(&m, "ééééé"), vec![(4, (0, 2)), (5, (2, 4)), (5, (4, 6)), (5, (6, 8)), (5, (8, 10))]);
        assert_eq!(toks(&m, "éééééé"), vec![(0, (0, 12))]);
        assert_eq!(m.vocab_size(), 7);
        assert_eq!(m.id_to_token(5), Some("##é"));
        // All four fields are required (HF: missing field `...`).
        let e =
            load(json!({"type": "WordPiece", "unk_token": "[UNK]", "max_input_chars_per_word": 5, "vocab": {"a": 0}}))
                .unwrap_err();
        assert_eq!(e.to_string(), "model.continuing_subword_prefix: missing");
        let e = load(json!({"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 5, "vocab": {"a": 0}}))
        .unwrap_err();
        assert!(e.to_string().starts_with("model.unk_token: \"[UNK]\" is not in model.vocab"), "{e}");
    }

    #[test]
    fn untyped_models_are_guessed_as_hf_does() {
        // Tokenizer.from_str(json with a "model" without "type"): HF tries BPE, WordPiece,
        // WordLevel in this order.
        let m = load(json!({"vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]})).unwrap();
        assert!(matches!(m, Model::Bpe(_)));
        assert_eq!(toks(&m, "ab"), vec![(2, (0, 2))]);
        let m = load(json!({"vocab": {"a": 0, "b": 1, "ab": 2}, "unk_token": "a"})).unwrap();
        assert!(matches!(m, Model::WordLevel(_)));
        assert_eq!(toks(&m, "ab"), vec![(2, (0, 2))]);
        let m = load(json!({"vocab": {"a": 0, "b": 1, "ab": 2}, "unk_token": "a", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 5}))
        .unwrap();
        assert!(matches!(m, Model::WordPiece(_)));
        // HF: "data did not match any variant of untagged enum ModelUntagged".
        assert!(load(json!({"vocab": {"a": 0, "b": 1, "ab": 2}})).is_err());
        // HF makes this a WordLevel (its BPE fails to build): an error here.
        let e = load(json!({"vocab": {"a": 0, "b": 1}, "merges": ["a x"], "unk_token": "a"})).unwrap_err();
        assert!(e.to_string().starts_with("model.merges[0]"), "{e}");
        // HF's last try: Unigram.
        let m = load(json!({"vocab": [["a", 0.0]], "unk_id": 0})).unwrap();
        assert!(matches!(m, Model::Unigram(_)));
    }

    #[test]
    fn types() {
        assert!(matches!(load(json!({"type": "Unigram", "vocab": [["a", 0.0]], "unk_id": 0})), Ok(Model::Unigram(_))));
        let e = load(json!({"type": "Foo"})).unwrap_err();
        assert!(matches!(&e, CoreError::Unsupported(m) if m.contains("BPE, WordPiece, WordLevel, Unigram")), "{e}");
        assert!(matches!(load(json!({"type": 3})), Err(CoreError::Vocab(_))));
        assert!(matches!(load(json!([])), Err(CoreError::Vocab(_))));
        let e = load(json!({"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a", "extra": 1})).unwrap_err();
        assert!(matches!(e, CoreError::Unsupported(_)));
    }

    /// `model` read by the typed path (`json::parse_typed` of `{"model": ...}`).
    fn load_typed(text: &str) -> Option<Result<Model, CoreError>> {
        let file = format!("{{\"model\": {text}}}");
        let (v, typed) = crate::hf::json::parse_typed(file.as_bytes())?;
        Some(Model::from_json_typed(&v["model"], "model", Some(&typed)))
    }

    /// What a model holds: its vocabulary (sorted), id -> token and its merges.
    fn contents(m: &Model) -> String {
        let mut v = m.vocab();
        v.sort();
        let rev: Vec<Option<String>> =
            (0..v.len() as u32 + 4).map(|id| m.id_to_token(id).map(str::to_string)).collect();
        let merges = match m {
            Model::Bpe(b) => b.merges_in_rank_order(),
            _ => Vec::new(),
        };
        format!("{v:?} {rev:?} {merges:?}")
    }

    #[test]
    fn typed_path_builds_what_the_value_path_builds_or_gives_up() {
        let cases = [
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "\u00e9": 3}, "merges": ["a b"]}"#,
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}"#,
            r##"{"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["#version: 0.2", "a b"]}"##,
            r#"{"merges": ["a b"], "vocab": {"a": 0, "b": 1, "ab": 2}}"#,
            r#"{"type": "BPE", "vocab": {"a\"": 0, "b": 1, "a\"b": 2}, "merges": [["a\"", "b"]], "dropout": null}"#,
            r#"{"type": "WordLevel", "vocab": {"a": 0, "b": 4000000000}, "unk_token": "a"}"#,
            r###"{"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1, "##b": 2}, "unk_token": "[UNK]",
                "continuing_subword_prefix": "##", "max_input_chars_per_word": 100}"###,
            // The typed path gives up on these; the Value path decides.
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 1, "a": 2}, "merges": []}"#,
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 0, "a": 1}, "merges": []}"#,
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": [], "merges": []}"#,
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b", ["a", "b"]]}"#,
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b", "c"]]}"#,
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a"]]}"#,
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 1.0}, "merges": []}"#,
            r#"{"type": "BPE", "vocab": {"a": 0, "b": -1}, "merges": []}"#,
            r#"{"type": "BPE", "vocab": {"a": 0, "b": -0}, "merges": []}"#,
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 4294967296}, "merges": []}"#,
            r#"{"type": "BPE", "vocab": {}, "merges": []}"#,
            r#"{"type": "BPE", "vocab": [["a", 0.0]], "merges": []}"#,
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a c"]}"#,
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": "a b"}"#,
            r#"{"type": "BPE", "vocab": {"a": 0, "b": 1}}"#,
            r#"{"type": "Unigram", "vocab": [["a", 0.0]], "unk_id": 0}"#,
            r#"{"vocab": [["a", 0.0]], "unk_id": 0}"#,
        ];
        for text in cases {
            let reference = load(serde_json::from_str(text).unwrap());
            // An error or None sends a file to the full path.
            if let Some(Ok(m)) = load_typed(text) {
                let r = reference.unwrap_or_else(|e| panic!("{text}: typed loads, the Value path: {e}"));
                assert_eq!(contents(&m), contents(&r), "{text}");
            }
        }
        // The typed path must not give up on the common shapes.
        for text in &cases[..7] {
            assert!(matches!(load_typed(text), Some(Ok(_))), "{text}");
        }
    }

    #[test]
    fn vocab_errors() {
        let wl = |v: Value| load(json!({"type": "WordLevel", "vocab": v, "unk_token": "a"}));
        assert_eq!(wl(json!({})).unwrap_err().to_string(), "model.vocab: the vocabulary is empty");
        let e = wl(json!({"a": 0, "b": 0})).unwrap_err().to_string();
        assert_eq!(e, "model.vocab: id 0 is given to two tokens, \"a\" and \"b\"; each id must name one token");
        let e = wl(json!({"a": 0, "b": 4000000000u32, "c": 4000000000u32})).unwrap_err().to_string();
        assert!(e.contains("id 4000000000 is given to two tokens"), "{e}");
        assert!(wl(json!({"a": 0, "b": 4294967296u64}))
            .unwrap_err()
            .to_string()
            .starts_with("model.vocab.b: expected"));
        assert!(wl(json!({"a": 1.0})).is_err());
        assert!(wl(json!({"a": -1})).is_err());
        assert!(wl(json!(["a"])).is_err());
        // Sparse ids: the id -> token map.
        let m = wl(json!({"a": 0, "b": 4000000000u32})).unwrap();
        assert_eq!(m.id_to_token(4000000000), Some("b"));
        assert_eq!(m.id_to_token(1), None);
    }
}
