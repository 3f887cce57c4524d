//! The `Unigram` model of a Hugging Face `tokenizer.json` (the form SentencePiece Unigram models
//! take there), with HF's exact segmentation, ids and offsets (`tokenizers/src/models/unigram`).
//!
//! Reading: `vocab` is a list of `[piece, score]` (the id is the position), `unk_id` an index in
//! it or absent/`null`, `byte_fallback` a boolean (absent: false). HF's load errors are kept (an
//! `unk_id` past the end); a piece given twice is accepted as HF accepts it (the later id wins
//! for piece -> id and in segmentation; id -> piece answers both ids).
//!
//! Segmentation is HF's "optimized" Viterbi (what HF runs for every file it loads): scores are
//! f64; at each character boundary the pieces starting there are tried shortest first, then, if
//! no piece covers exactly the next character, an unknown node of score `min_score - 10` (the
//! lowest score of the vocabulary minus 10); a node keeps the first best candidate (a tie does
//! not replace it). Runs of unknown nodes are fused into one token (HF's `fuse_unk`, always on);
//! a fused run whose text is a piece becomes that piece, else with `byte_fallback` it becomes
//! one `<0xNN>` token per byte when all of them are in the vocabulary (each with the whole run's
//! offsets), else the unknown token. This is not sentencepiece's own Viterbi (`crate::spm`),
//! which scores in f32 and so breaks ties differently.
//!
//! Where tokenmill is stricter than HF: an empty vocabulary is an error even without `unk_id`
//! (HF loads it and fails on every non-empty text), and so is an unknown key in the object.
//! What this module does not do: sampling (`alpha`, `nbest_size`: HF's JSON cannot set them),
//! a cache of words (ids do not depend on it), training.

use std::cell::RefCell;

use super::{Token, Vocab};
use crate::error::CoreError;
use crate::hf::json::{bad, index, join, show, Obj};
use crate::hf::normalized::utf8_len;

/// HF's penalty of an unknown character below the lowest piece score.
const UNK_PENALTY: f64 = 10.0;
/// No node / no id.
const NONE: u32 = u32::MAX;

/// A HF Unigram model.
#[derive(Clone)]
pub struct Unigram {
    pub(super) vocab: Vocab,
    /// Score of each id.
    scores: Vec<f64>,
    trie: Trie,
    unk_id: Option<u32>,
    unk_score: f64,
    byte_fallback: bool,
    /// Id of `<0xNN>` for each byte, `NONE` when it is not a piece.
    byte_ids: Box<[u32; 256]>,
}

impl std::fmt::Debug for Unigram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unigram")
            .field("vocab", &self.vocab.len())
            .field("unk_id", &self.unk_id)
            .field("byte_fallback", &self.byte_fallback)
            .finish()
    }
}

/// A byte trie of the pieces: the root's children in a table by byte, every other node's
/// children contiguous and sorted by label (built breadth first), so a step is a short scan.
#[derive(Clone)]
struct Trie {
    root: Box<[u32; 256]>,
    /// Per node: its label, the range of its children, the id of the piece ending there.
    labels: Vec<u8>,
    children: Vec<(u32, u32)>,
    values: Vec<u32>,
}

impl Trie {
    /// The trie of `pieces` (byte strings with their ids), which it sorts; of equal pieces the
    /// one with the largest id is kept (HF's later-wins map).
    fn new(mut pieces: Vec<(&[u8], u32)>) -> Trie {
        pieces.sort_unstable();
        // After sorting equal pieces are adjacent, by increasing id: keep the last.
        let mut unique: Vec<(&[u8], u32)> = Vec::with_capacity(pieces.len());
        for p in pieces {
            match unique.last_mut() {
                Some(last) if last.0 == p.0 => *last = p,
                _ => unique.push(p),
            }
        }
        let mut t = Trie { root: Box::new([NONE; 256]), labels: vec![0], children: vec![(0, 0)], values: vec![NONE] };
        // (node, pieces lo..hi sharing its prefix, depth); breadth first so that the children
        // of a node are created one after the other.
        let mut queue = std::collections::VecDeque::from([(0u32, 0usize, unique.len(), 0usize)]);
        while let Some((node, lo, hi, depth)) = queue.pop_front() {
            let mut i = lo;
            if i < hi && unique[i].0.len() == depth {
                t.values[node as usize] = unique[i].1;
                i += 1;
            }
            let first = t.labels.len() as u32;
            while i < hi {
                let b = unique[i].0[depth];
                let mut j = i + 1;
                while j < hi && unique[j].0[depth] == b {
                    j += 1;
                }
                let child = t.labels.len() as u32;
                t.labels.push(b);
                t.children.push((0, 0));
                t.values.push(NONE);
                if node == 0 {
                    t.root[b as usize] = child;
                }
                queue.push_back((child, i, j, depth + 1));
                i = j;
            }
            t.children[node as usize] = (first, t.labels.len() as u32);
        }
        t
    }

    #[inline]
    fn child(&self, node: u32, b: u8) -> u32 {
        if node == 0 {
            return self.root[b as usize];
        }
        let (s, e) = self.children[node as usize];
        let labels = &self.labels[s as usize..e as usize];
        let found = if labels.len() <= 8 { labels.iter().position(|&l| l == b) } else { labels.binary_search(&b).ok() };
        found.map_or(NONE, |k| s + k as u32)
    }

    /// The id of exactly `key`.
    fn get(&self, key: &[u8]) -> Option<u32> {
        let mut node = 0u32;
        for &b in key {
            node = self.child(node, b);
            if node == NONE {
                return None;
            }
        }
        Some(self.values[node as usize]).filter(|&v| v != NONE)
    }
}

/// One position of the Viterbi: the best path ending here (its score, where its last token
/// starts, that token's id).
#[derive(Clone, Copy)]
struct Best {
    score: f64,
    start: u32,
    id: u32,
}

const UNREACHED: Best = Best { score: 0.0, start: NONE, id: NONE };

/// Per-thread buffers of `tokenize` (not a cache: nothing in them outlives a call).
#[derive(Default)]
struct Scratch {
    best: Vec<Best>,
    /// The best path's tokens, last first: (start, end, id).
    path: Vec<(u32, u32, u32)>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl Unigram {
    /// Reads the `model` object `o` (its `type` already checked, or absent).
    pub(super) fn from_json(o: Obj) -> Result<Self, CoreError> {
        o.only(&["type", "vocab", "unk_id", "byte_fallback"])?;
        let vpath = join(o.path, "vocab");
        let list = o.array("vocab")?;
        let mut pairs: Vec<(&str, f64)> = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            let entry = || index(&vpath, i);
            let pair = item
                .as_array()
                .filter(|a| a.len() == 2)
                .ok_or_else(|| bad(&entry(), format!("expected a [piece, score] pair, got {}", show(item))))?;
            let piece = pair[0]
                .as_str()
                .ok_or_else(|| bad(&index(&entry(), 0), format!("expected a string, got {}", show(&pair[0]))))?;
            let score = pair[1]
                .as_f64()
                .ok_or_else(|| bad(&index(&entry(), 1), format!("expected a number, got {}", show(&pair[1]))))?;
            pairs.push((piece, score));
        }
        let unk_id = match o.opt("unk_id") {
            None => None,
            Some(v) => Some(v.as_u64().ok_or_else(|| {
                bad(&join(o.path, "unk_id"), format!("expected a non-negative integer or null, got {}", show(v)))
            })?),
        };
        let byte_fallback = match o.get("byte_fallback") {
            None => false,
            Some(v) => v.as_bool().ok_or_else(|| {
                bad(&join(o.path, "byte_fallback"), format!("expected true or false, got {}", show(v)))
            })?,
        };
        Self::from_pairs(&pairs, unk_id, byte_fallback, o.path)
    }

    /// Builds the model of `(piece, score)` pairs (the id is the position). Errors (naming
    /// `path`): no piece, a score that is NaN, `unk_id` past the end.
    pub fn from_pairs(
        pairs: &[(&str, f64)],
        unk_id: Option<u64>,
        byte_fallback: bool,
        path: &str,
    ) -> Result<Self, CoreError> {
        let vpath = join(path, "vocab");
        if pairs.is_empty() {
            return Err(bad(
                &vpath,
                "the vocabulary is empty (Hugging Face loads an empty Unigram without unk_id and fails on every \
                 text; tokenmill refuses it): give at least the unknown piece",
            ));
        }
        if u32::try_from(pairs.len()).is_err() {
            return Err(bad(&vpath, format!("{} pieces are too many (at most 2**32 - 1)", pairs.len())));
        }
        if let Some(i) = pairs.iter().position(|p| p.1.is_nan()) {
            return Err(bad(&index(&index(&vpath, i), 1), "the score is NaN; scores must be numbers"));
        }
        let unk_id = match unk_id {
            Some(u) if u >= pairs.len() as u64 => {
                return Err(bad(
                    &join(path, "unk_id"),
                    format!(
                        "{u} is not an id of the vocabulary of {} pieces (ids are 0..{})",
                        pairs.len(),
                        pairs.len()
                    ),
                ))
            }
            u => u.map(|u| u as u32),
        };
        let vocab = Vocab::from_pairs(pairs.iter().enumerate().map(|(i, p)| (p.0, i as u32)).collect(), &vpath, false)?;
        let scores: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        let min_score = scores.iter().copied().fold(f64::INFINITY, |m, s| if s < m { s } else { m });
        let trie = Trie::new(pairs.iter().enumerate().map(|(i, p)| (p.0.as_bytes(), i as u32)).collect());
        let mut byte_ids = Box::new([NONE; 256]);
        for (b, slot) in byte_ids.iter_mut().enumerate() {
            *slot = trie.get(format!("<0x{b:02X}>").as_bytes()).unwrap_or(NONE);
        }
        Ok(Unigram { vocab, scores, trie, unk_id, unk_score: min_score - UNK_PENALTY, byte_fallback, byte_ids })
    }

    /// The id of `piece` (of equal pieces, the last).
    pub fn token_to_id(&self, piece: &str) -> Option<u32> {
        self.trie.get(piece.as_bytes())
    }

    pub fn unk_id(&self) -> Option<u32> {
        self.unk_id
    }

    pub fn byte_fallback(&self) -> bool {
        self.byte_fallback
    }

    /// The text HF gives as the token of `t` (a token of `word`): the piece for a byte-fallback
    /// token, else the word's text it covers (HF's Unigram reports an unknown run as its text,
    /// not as the unknown piece).
    pub fn token_text<'a>(&'a self, word: &'a str, t: &Token) -> &'a str {
        let piece = self.vocab.token(t.id).unwrap_or_default();
        let is_byte = piece.len() == 6 && piece.starts_with("<0x") && piece.ends_with('>');
        if is_byte {
            return piece;
        }
        word.get(t.start as usize..t.end as usize).unwrap_or(piece)
    }

    /// Appends the tokens of `word` (non-empty) to `out`.
    pub fn tokenize(&self, word: &str, out: &mut Vec<Token>) -> Result<(), CoreError> {
        SCRATCH.with(|s| match s.try_borrow_mut() {
            Ok(mut s) => self.tokenize_with(word, out, &mut s),
            Err(_) => self.tokenize_with(word, out, &mut Scratch::default()),
        })
    }

    fn tokenize_with(&self, word: &str, out: &mut Vec<Token>, s: &mut Scratch) -> Result<(), CoreError> {
        let bytes = word.as_bytes();
        let n = bytes.len();
        if n == 0 {
            return Ok(());
        }
        let best = &mut s.best;
        best.clear();
        best.resize(n + 1, UNREACHED);
        let mut pos = 0usize;
        while pos < n {
            let base = best[pos].score;
            let char_end = pos + utf8_len(bytes[pos]);
            let mut single = false;
            let mut node = 0u32;
            let mut k = pos;
            while k < n {
                node = self.trie.child(node, bytes[k]);
                if node == NONE {
                    break;
                }
                k += 1;
                let id = self.trie.values[node as usize];
                if id != NONE {
                    let cand = self.scores[id as usize] + base;
                    let slot = &mut best[k];
                    if slot.start == NONE || cand > slot.score {
                        *slot = Best { score: cand, start: pos as u32, id };
                    }
                    single |= k == char_end;
                }
            }
            if !single {
                let cand = self.unk_score + base;
                let slot = &mut best[char_end.min(n)];
                if slot.start == NONE || cand > slot.score {
                    let id = self.unk_id.ok_or_else(|| missing_unk(word, pos))?;
                    *slot = Best { score: cand, start: pos as u32, id };
                }
            }
            pos = char_end;
        }
        // Back from the end: the path's tokens, last first.
        let path = &mut s.path;
        path.clear();
        let mut end = n;
        while end > 0 {
            let b = best[end];
            if b.start == NONE || b.start as usize >= end {
                // Unreachable for valid UTF-8; never loop.
                return Err(CoreError::Input(format!("Unigram: no segmentation of {word:?}")));
            }
            path.push((b.start, end as u32, b.id));
            end = b.start as usize;
        }
        out.reserve(path.len());
        let unk = self.unk_id.unwrap_or(NONE);
        let mut i = path.len();
        while i > 0 {
            i -= 1;
            let (start, mut end, id) = path[i];
            if id != unk {
                out.push(Token { id, start, end });
                continue;
            }
            // A run of unknown nodes is one token.
            while i > 0 && path[i - 1].2 == unk {
                i -= 1;
                end = path[i].1;
            }
            self.push_unknown(word, start, end, out);
        }
        Ok(())
    }

    /// The token(s) of a fused run of unknown nodes `start..end` of `word`.
    fn push_unknown(&self, word: &str, start: u32, end: u32, out: &mut Vec<Token>) {
        let text = &word.as_bytes()[start as usize..end as usize];
        if let Some(id) = self.trie.get(text) {
            out.push(Token { id, start, end });
            return;
        }
        if self.byte_fallback && text.iter().all(|&b| self.byte_ids[b as usize] != NONE) {
            out.extend(text.iter().map(|&b| Token { id: self.byte_ids[b as usize], start, end }));
            return;
        }
        out.push(Token { id: self.unk_id.unwrap_or(NONE), start, end });
    }
}

fn missing_unk(word: &str, pos: usize) -> CoreError {
    let c = word[pos..].chars().next().unwrap_or_default();
    CoreError::Input(format!(
        "Unigram model: {c:?} (in {word:?}) has no piece and the model has no unk_id (Hugging Face: \"Encountered \
         an unknown token but `unk_id` is missing\"); give the model an unk_id"
    ))
}

#[cfg(test)]
mod tests;
