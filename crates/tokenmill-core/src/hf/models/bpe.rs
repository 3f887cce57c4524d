//! The BPE model of `tokenizer.json`, with Hugging Face's exact semantics
//! (`tokenizers/src/models/bpe/{model,word,serialization}.rs`).
//!
//! A word starts as one symbol per character: the character's token, looked up with the
//! `continuing_subword_prefix` when it is not the first character and the
//! `end_of_word_suffix` when it is the last; a character without a token becomes its bytes'
//! `<0xXX>` tokens (`byte_fallback`, when all of them exist), else the unknown token (several
//! in a row fused into one with `fuse_unk`), else it is dropped. Then the merges apply in HF's
//! order: a min-heap of (merge rank, position), where a popped entry is applied if its
//! position's current pair still merges into the same new token. `ignore_merges`: a word that is
//! itself a token is that token.
//!
//! Offsets are HF's: each symbol's range is the sum of the byte lengths of the symbols before
//! it. So HF's quirks are kept, and a caller must not assume a range lies on character
//! boundaries or within the word: a byte-fallback token is one byte wide (the bytes of `é` get
//! (0, 1) and (1, 2)), a dropped character does not advance the next ranges, the fallback
//! bytes of the prefix or suffix count too, and an unknown token pending when byte-fallback
//! tokens come is placed after them.
//!
//! What this module does not do: dropout strictly between 0 and 1 (random: `Unsupported`;
//! 1 means no merge at all, which is deterministic and supported), a word cache.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::{Token, Vocab};
use crate::error::CoreError;
use crate::hf::json::{bad, index, join, show, MergeText, Obj, TypedModel};

/// No token: a slot of the character and byte tables.
const NONE: u32 = u32::MAX;

/// The four spellings of a character's token: index bit 0 set = with the prefix (not the
/// first character), bit 1 set = with the suffix (the last character).
type Spellings = [u32; 4];

/// (left id, right id) -> (rank, merged id).
type MergeMap = FxHashMap<(u32, u32), (u32, u32)>;

/// A BPE model. Immutable once built.
#[derive(Clone)]
pub struct Bpe {
    vocab: Vocab,
    merges: MergeMap,
    ascii: Box<[Spellings; 128]>,
    chars: FxHashMap<char, Spellings>,
    /// `<0xXX>` ids when `byte_fallback`.
    bytes: Option<Box<[u32; 256]>>,
    /// The unknown token and its id (None: not in the vocabulary, an error when needed).
    unk: Option<(String, Option<u32>)>,
    prefix: String,
    suffix: String,
    fuse_unk: bool,
    ignore_merges: bool,
    /// dropout = 1: HF skips every merge (and `ignore_merges`, which its dropout path lacks).
    no_merges: bool,
    /// A character no merge joins to a different character before it (every merge whose right
    /// token starts with it has a left token ending with it; it is a token itself; no prefix,
    /// suffix or whole-word lookup): a word can then be cut before each occurrence that follows
    /// another character, and the parts merged alone give the same tokens (a symbol left of
    /// the cut ends with that other character, so no merge joins the two sides).
    /// SentencePiece-style files (Llama 2, Mistral) have `▁` here.
    boundary: Option<char>,
}

/// Per-call memory of `Bpe::tokenize_cached`: the tokens of the parts already merged (offsets
/// relative to the part). Bounded; it lives as long as the caller's working memory.
#[derive(Debug, Default)]
pub struct BpeCache {
    parts: FxHashMap<Box<str>, Vec<Token>>,
}

/// Parts longer than this are not remembered (rarely repeated, and costly to hash).
const CACHE_PART_BYTES: usize = 64;
/// Entries a cache holds at most; a full cache starts again empty.
const CACHE_ENTRIES: usize = 1 << 16;

impl std::fmt::Debug for Bpe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bpe")
            .field("vocab", &self.vocab.len())
            .field("merges", &self.merges.len())
            .field("unk", &self.unk)
            .field("prefix", &self.prefix)
            .field("suffix", &self.suffix)
            .field("byte_fallback", &self.bytes.is_some())
            .field("fuse_unk", &self.fuse_unk)
            .field("ignore_merges", &self.ignore_merges)
            .field("no_merges", &self.no_merges)
            .finish()
    }
}

/// Min-heap on (merge rank, position); the merged id rides along (a rank names one merge).
type Heap = BinaryHeap<Reverse<(u32, u32, u32)>>;

thread_local! {
    /// Per-thread buffers of `tokenize`, reused between calls to save two allocations per word.
    /// Not a cache: nothing in them outlives a call.
    static SCRATCH: std::cell::RefCell<(Vec<Sym>, Heap)> = const { std::cell::RefCell::new((Vec::new(), BinaryHeap::new())) };
}

/// One symbol of a word being merged (HF's `Symbol`): `len` 0 marks a symbol merged away.
#[derive(Clone, Copy)]
struct Sym {
    id: u32,
    prev: i32,
    next: i32,
    len: u32,
}

impl Bpe {
    /// Every merge as `(left id, right id, merged id)`, lowest rank first.
    pub fn merges_in_rank_order(&self) -> Vec<(u32, u32, u32)> {
        let mut v: Vec<(u32, u32, u32, u32)> = self.merges.iter().map(|(&(a, b), &(r, id))| (r, a, b, id)).collect();
        v.sort_unstable();
        v.into_iter().map(|(_, a, b, id)| (a, b, id)).collect()
    }

    /// The merge of the pair `(a, b)`: `(rank, merged id)`.
    #[inline]
    pub fn merge_of(&self, a: u32, b: u32) -> Option<(u32, u32)> {
        self.merges.get(&(a, b)).copied()
    }

    /// True when words are merged from their plain characters with no marks: no continuing
    /// prefix, no end-of-word suffix, and merges on (what the byte-level fast path needs).
    pub fn is_plain(&self) -> bool {
        self.prefix.is_empty() && self.suffix.is_empty() && !self.no_merges
    }

    /// HF's `ignore_merges`.
    pub fn ignores_merges(&self) -> bool {
        self.ignore_merges
    }

    #[cfg(test)]
    pub(crate) fn set_ignore_merges_for_test(&mut self, on: bool) {
        self.ignore_merges = on;
    }

    pub(super) fn from_json(o: Obj, typed: Option<&TypedModel>) -> Result<Self, CoreError> {
        o.only(&[
            "type",
            "dropout",
            "unk_token",
            "continuing_subword_prefix",
            "end_of_word_suffix",
            "fuse_unk",
            "byte_fallback",
            "ignore_merges",
            "vocab",
            "merges",
        ])?;
        let no_merges = match o.opt("dropout") {
            None => false,
            Some(v) => {
                // HF reads an f32.
                let p = v
                    .as_f64()
                    .ok_or_else(|| bad(&join(o.path, "dropout"), format!("expected a number, got {}", show(v))))?
                    as f32;
                if !(0.0..=1.0).contains(&p) {
                    return Err(bad(&join(o.path, "dropout"), format!("{p} is not between 0 and 1, inclusive")));
                }
                if p != 0.0 && p != 1.0 {
                    return Err(CoreError::Unsupported(format!(
                        "{}: BPE dropout {p} makes encoding random; tokenmill supports only 0 (or null) and 1",
                        join(o.path, "dropout")
                    )));
                }
                p == 1.0
            }
        };
        let unk_token = o.opt_str("unk_token")?;
        let prefix = o.opt_str("continuing_subword_prefix")?.unwrap_or("").to_string();
        let suffix = o.opt_str("end_of_word_suffix")?.unwrap_or("").to_string();
        let fuse_unk = o.bool_or("fuse_unk", false)?;
        let byte_fallback = o.bool_or("byte_fallback", false)?;
        let ignore_merges = o.bool_or("ignore_merges", false)?;
        // HF: "Missing vocab/merges", before anything is read from them.
        o.req("vocab")?;
        o.req("merges")?;
        let vocab_path = join(o.path, "vocab");
        let vocab = Vocab::read(o, typed, true)?;
        let merges_path = join(o.path, "merges");
        let merges = match typed.and_then(|t| t.merges.as_deref()) {
            Some(list) => build_typed_merges(list, &merges_path, &vocab, &vocab_path, prefix.len())?,
            None => build_merges(o.req("merges")?, &merges_path, &vocab, &vocab_path, prefix.len())?,
        };

        let mut ascii = Box::new([[NONE; 4]; 128]);
        let mut chars: FxHashMap<char, Spellings> = FxHashMap::default();
        // Only a short token can spell one character (the length is in the map entry: the
        // long ones cost no memory access).
        let longest = 4 + prefix.len() + suffix.len();
        for (token, id) in vocab.iter() {
            if token.len() > longest {
                continue;
            }
            let spellings = [
                Some(token),
                token.strip_prefix(prefix.as_str()),
                token.strip_suffix(suffix.as_str()),
                token.strip_prefix(prefix.as_str()).and_then(|t| t.strip_suffix(suffix.as_str())),
            ];
            for (k, s) in spellings.into_iter().enumerate() {
                let Some(c) = s.and_then(single_char) else { continue };
                if c.is_ascii() {
                    ascii[c as usize][k] = id;
                } else {
                    chars.entry(c).or_insert([NONE; 4])[k] = id;
                }
            }
        }
        let bytes = byte_fallback.then(|| {
            let mut table = Box::new([NONE; 256]);
            let mut name = String::with_capacity(6);
            for (b, slot) in table.iter_mut().enumerate() {
                use std::fmt::Write;
                name.clear();
                let _ = write!(name, "<0x{b:02X}>");
                *slot = vocab.get(&name).unwrap_or(NONE);
            }
            table
        });
        let unk = unk_token.map(|u| (u.to_string(), vocab.get(u)));
        let mut bpe = Bpe {
            vocab,
            merges,
            ascii,
            chars,
            bytes,
            unk,
            prefix,
            suffix,
            fuse_unk,
            ignore_merges,
            no_merges,
            boundary: None,
        };
        bpe.boundary = bpe.find_boundary('\u{2581}');
        Ok(bpe)
    }

    /// `c` if cutting words before it cannot change their tokens (see `boundary`).
    fn find_boundary(&self, c: char) -> Option<char> {
        let plain = self.prefix.is_empty() && self.suffix.is_empty() && !self.ignore_merges;
        let known = self.char_id(c, 0) != NONE;
        // The walk over every merge only when it can matter (byte-level files lack `c`).
        let joined = || {
            self.merges.keys().any(|&(a, b)| {
                self.vocab.token(b).is_some_and(|t| t.starts_with(c))
                    && !self.vocab.token(a).is_some_and(|t| t.ends_with(c))
            })
        };
        (plain && known && !joined()).then_some(c)
    }

    /// `tokenize`, cutting the word at `boundary` and remembering the parts' tokens in `cache`
    /// (words of SentencePiece-style files are whole lines: their parts repeat).
    pub(super) fn tokenize_cached(
        &self,
        word: &str,
        out: &mut Vec<Token>,
        cache: &mut BpeCache,
    ) -> Result<(), CoreError> {
        let Some(b) = self.boundary else {
            return self.part(word, 0, out, cache);
        };
        let mut start = 0;
        let mut prev: Option<char> = None;
        for (i, c) in word.char_indices() {
            if c == b && prev.is_some_and(|p| p != b) {
                self.part(&word[start..i], start, out, cache)?;
                start = i;
            }
            prev = Some(c);
        }
        self.part(&word[start..], start, out, cache)
    }

    fn part(&self, part: &str, base: usize, out: &mut Vec<Token>, cache: &mut BpeCache) -> Result<(), CoreError> {
        let shift = |t: &Token| Token { id: t.id, start: t.start + base as u32, end: t.end + base as u32 };
        if let Some(toks) = cache.parts.get(part) {
            out.extend(toks.iter().map(shift));
            return Ok(());
        }
        let n = out.len();
        self.tokenize(part, out)?;
        if part.len() <= CACHE_PART_BYTES {
            if cache.parts.len() >= CACHE_ENTRIES {
                cache.parts.clear();
            }
            cache.parts.insert(part.into(), out[n..].to_vec());
        }
        if base > 0 {
            for t in &mut out[n..] {
                *t = shift(t);
            }
        }
        Ok(())
    }

    pub(super) fn vocab(&self) -> &Vocab {
        &self.vocab
    }

    fn char_id(&self, c: char, spelling: usize) -> u32 {
        if c.is_ascii() {
            self.ascii[c as usize][spelling]
        } else {
            self.chars.get(&c).map_or(NONE, |s| s[spelling])
        }
    }

    fn unk_id(&self, unk: &str, id: Option<u32>) -> Result<u32, CoreError> {
        id.ok_or_else(|| {
            CoreError::Input(format!(
                "BPE model: the unknown token {unk:?} is not in the vocabulary, and this text needs it \
                 (Hugging Face: \"Unk token `{unk}` not found in the vocabulary\")"
            ))
        })
    }

    /// Appends the tokens of `word` to `out` (HF's `BPE::tokenize`).
    pub(super) fn tokenize(&self, word: &str, out: &mut Vec<Token>) -> Result<(), CoreError> {
        if word.is_empty() {
            return Ok(());
        }
        // Symbols are linked by i32 indices: at most one per byte of the word, prefix and suffix.
        if word.len().saturating_mul(1 + self.prefix.len() + self.suffix.len()) >= i32::MAX as usize {
            return Err(CoreError::Input(format!("BPE model: a word of {} bytes is too long", word.len())));
        }
        if self.ignore_merges && !self.no_merges {
            if let Some(id) = self.vocab.get(word) {
                out.push(Token { id, start: 0, end: word.len() as u32 });
                return Ok(());
            }
        }
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => {
                let (syms, heap) = &mut *scratch;
                syms.clear();
                heap.clear();
                self.tokenize_with(word, out, syms, heap)
            }
            // Cannot happen (nothing here calls back into a model); fresh buffers then.
            Err(_) => self.tokenize_with(word, out, &mut Vec::new(), &mut BinaryHeap::new()),
        })
    }

    fn tokenize_with(
        &self,
        word: &str,
        out: &mut Vec<Token>,
        syms: &mut Vec<Sym>,
        heap: &mut Heap,
    ) -> Result<(), CoreError> {
        let add = |syms: &mut Vec<Sym>, id: u32, len: u32| {
            let n = syms.len() as i32;
            if let Some(last) = syms.last_mut() {
                last.next = n;
            }
            syms.push(Sym { id, prev: n - 1, next: -1, len });
        };
        // A pending unknown token (id, byte length): HF adds it before the next known
        // character, so that `fuse_unk` can extend it, but not before byte-fallback tokens.
        let mut unk: Option<(u32, u32)> = None;
        for (i, c) in word.char_indices() {
            let len = c.len_utf8();
            let (first, last) = (i == 0, i + len == word.len());
            let spelling = usize::from(!first) | usize::from(last) << 1;
            let id = self.char_id(c, spelling);
            if id != NONE {
                if let Some((u, ulen)) = unk.take() {
                    add(syms, u, ulen);
                }
                add(syms, id, len as u32);
                continue;
            }
            if let Some(table) = &self.bytes {
                // The bytes of the whole looked-up string: prefix, character, suffix.
                let pre = if first { "" } else { self.prefix.as_str() };
                let suf = if last { self.suffix.as_str() } else { "" };
                let mut buf = [0u8; 4];
                let ch: &str = c.encode_utf8(&mut buf);
                let spelled = || pre.bytes().chain(ch.bytes()).chain(suf.bytes());
                if spelled().all(|b| table[b as usize] != NONE) {
                    for b in spelled() {
                        add(syms, table[b as usize], 1);
                    }
                    continue;
                }
            }
            if let Some((unk_token, unk_id)) = &self.unk {
                unk = match unk {
                    Some((u, ulen)) if self.fuse_unk => Some((u, ulen + len as u32)),
                    Some((u, ulen)) => {
                        add(syms, u, ulen);
                        Some((self.unk_id(unk_token, *unk_id)?, len as u32))
                    }
                    None => Some((self.unk_id(unk_token, *unk_id)?, len as u32)),
                };
            }
        }
        if let Some((u, ulen)) = unk {
            add(syms, u, ulen);
        }
        if !self.no_merges && syms.len() > 1 {
            self.merge_all(syms, heap);
        }
        out.reserve(syms.len());
        let mut pos = 0u32;
        for s in syms.iter().filter(|s| s.len != 0) {
            let end = pos.saturating_add(s.len);
            out.push(Token { id: s.id, start: pos, end });
            pos = end;
        }
        Ok(())
    }

    /// HF's `Word::merge_all` without dropout.
    fn merge_all(&self, syms: &mut [Sym], heap: &mut Heap) {
        for (i, w) in syms.windows(2).enumerate() {
            if let Some(&(rank, new_id)) = self.merges.get(&(w[0].id, w[1].id)) {
                heap.push(Reverse((rank, i as u32, new_id)));
            }
        }
        let n = syms.len();
        while let Some(Reverse((_, pos, new_id))) = heap.pop() {
            let pos = pos as usize;
            let cur = syms[pos];
            if cur.len == 0 || cur.next < 0 {
                continue;
            }
            let next_pos = cur.next as usize;
            let right = syms[next_pos];
            // A stale entry: its position's pair no longer merges into the same token. (HF
            // compares the merged id only, not the rank: kept as is.)
            match self.merges.get(&(cur.id, right.id)) {
                Some(&(_, id)) if id == new_id => {}
                _ => continue,
            }
            syms[pos].id = new_id;
            syms[pos].len += right.len;
            syms[pos].next = right.next;
            syms[next_pos].len = 0;
            if right.next >= 0 && (right.next as usize) < n {
                syms[right.next as usize].prev = pos as i32;
            }
            let cur = syms[pos];
            if cur.prev >= 0 {
                let prev = cur.prev as usize;
                if let Some(&(rank, id)) = self.merges.get(&(syms[prev].id, cur.id)) {
                    heap.push(Reverse((rank, prev as u32, id)));
                }
            }
            if cur.next >= 0 && (cur.next as usize) < n {
                if let Some(&(rank, id)) = self.merges.get(&(cur.id, syms[cur.next as usize].id)) {
                    heap.push(Reverse((rank, pos as u32, id)));
                }
            }
        }
    }
}

fn single_char(s: &str) -> Option<char> {
    let mut it = s.chars();
    let c = it.next()?;
    it.next().is_none().then_some(c)
}

/// The `merges` list: `["a b", ...]` (HF's legacy form: split on the one space; lines starting
/// with `#version` skipped) or `[["a", "b"], ...]`. A merge's rank is its index (after the
/// skipped lines); a pair given twice keeps its last rank, as HF's map does. The merged token is
/// `a` followed by `b` without its first `prefix_len` bytes (HF strips the length of the
/// continuing-subword prefix whether or not `b` starts with it).
fn build_merges(
    v: &Value,
    path: &str,
    vocab: &Vocab,
    vocab_path: &str,
    prefix_len: usize,
) -> Result<MergeMap, CoreError> {
    let list = v.as_array().ok_or_else(|| bad(path, format!("expected a list, got {}", show(v))))?;
    let legacy = list.first().is_some_and(Value::is_string);
    let mut b = MergeBuilder::new(list.len(), path, vocab, vocab_path, prefix_len);
    for (i, item) in list.iter().enumerate() {
        if legacy {
            let Some(line) = item.as_str() else {
                return Err(bad(
                    &index(path, i),
                    format!("expected a string like the first merge, got {}", show(item)),
                ));
            };
            b.add_line(i, line)?;
        } else {
            match item.as_array().map(Vec::as_slice) {
                Some([Value::String(l), Value::String(r)]) => b.add(i, l, r)?,
                _ => {
                    return Err(bad(
                        &index(path, i),
                        format!("expected a pair of strings [\"a\", \"b\"], got {}", show(item)),
                    ))
                }
            }
        }
    }
    Ok(b.merges)
}

/// `build_merges` of the list read by `json::parse_typed`. A list that mixes lines and pairs
/// is an error (the full path words it).
fn build_typed_merges(
    list: &[MergeText],
    path: &str,
    vocab: &Vocab,
    vocab_path: &str,
    prefix_len: usize,
) -> Result<MergeMap, CoreError> {
    let legacy = matches!(list.first(), Some(MergeText::Line(_)));
    let mut b = MergeBuilder::new(list.len(), path, vocab, vocab_path, prefix_len);
    for (i, item) in list.iter().enumerate() {
        match (item, legacy) {
            (MergeText::Line(line), true) => b.add_line(i, line)?,
            (MergeText::Pair(l, r), false) => b.add(i, l, r)?,
            _ => return Err(bad(&index(path, i), "lines and pairs mixed")),
        }
    }
    Ok(b.merges)
}

/// The merge map being built, one merge at a time in file order (the rank is the order).
struct MergeBuilder<'a> {
    merges: MergeMap,
    path: &'a str,
    vocab: &'a Vocab,
    vocab_path: &'a str,
    prefix_len: usize,
    merged: String,
    rank: u32,
}

impl<'a> MergeBuilder<'a> {
    fn new(len: usize, path: &'a str, vocab: &'a Vocab, vocab_path: &'a str, prefix_len: usize) -> Self {
        let mut merges = MergeMap::default();
        merges.reserve(len);
        MergeBuilder { merges, path, vocab, vocab_path, prefix_len, merged: String::new(), rank: 0 }
    }

    /// Entry `i`, a legacy `"a b"` line (a `#version` line is skipped).
    fn add_line(&mut self, i: usize, line: &str) -> Result<(), CoreError> {
        if line.starts_with("#version") {
            return Ok(());
        }
        let mut parts = line.split(' ');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(a), Some(b), None) => self.add(i, a, b),
            _ => Err(bad(
                &index(self.path, i),
                format!(
                    "{line:?} is not two tokens separated by one space (Hugging Face: \"Merges text file invalid at \
                     line {}\")",
                    self.rank + 1
                ),
            )),
        }
    }

    /// Entry `i`, the merge of `a` and `b`.
    fn add(&mut self, i: usize, a: &str, b: &str) -> Result<(), CoreError> {
        let (path, vocab, vocab_path) = (self.path, self.vocab, self.vocab_path);
        let id = |t: &str| {
            vocab.get(t).ok_or_else(|| {
                bad(&index(path, i), format!("token {t:?} of the merge ({a:?}, {b:?}) is not in {vocab_path}"))
            })
        };
        let (a_id, b_id) = (id(a)?, id(b)?);
        let Some(rest) = b.get(self.prefix_len..) else {
            return Err(bad(
                &index(path, i),
                format!(
                    "the merge ({a:?}, {b:?}): {b:?} is shorter than the continuing_subword_prefix, or cut inside \
                     a character by it (Hugging Face panics here)"
                ),
            ));
        };
        self.merged.clear();
        self.merged.push_str(a);
        self.merged.push_str(rest);
        let merged = &self.merged;
        let new_id = vocab.get(merged).ok_or_else(|| {
            bad(&index(path, i), format!("the merge ({a:?}, {b:?}) makes {merged:?}, which is not in {vocab_path}"))
        })?;
        self.merges.insert((a_id, b_id), (self.rank, new_id));
        self.rank += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
