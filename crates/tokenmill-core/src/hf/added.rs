//! Added tokens of a `tokenizer.json` (its `added_tokens` list), with HF's exact semantics:
//! which id each one gets, and how a text is split on them before the rest of the pipeline.
//!
//! Ids: HF re-adds the listed tokens one by one when it loads a file. A token whose content is
//! already known (an earlier added token, or a token of the model's vocabulary) takes that
//! id; any other takes the next free id, counting up from the model's vocabulary size. So the
//! `id` written in the file is not what decides; it only agrees in well-formed files (HF
//! only warns when it does not, and so do we: `mismatches` lists them).
//!
//! Splitting (`split`): first the tokens with `normalized: false` are found in the original
//! text; each remaining piece is normalized on its own and the tokens with `normalized: true`
//! are found in it (by their normalized content). Matching is leftmost-longest; a
//! `single_word` token only counts with no word character on either side; `lstrip` /
//! `rstrip` take the whitespace before / after the token into it (so its offsets include
//! that whitespace, as HF's do). What this module does not do: pre-tokenize or encode the
//! pieces between added tokens (`tokenizer`).

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use super::json::{index, Obj};
use super::models::Model;
use super::normalized::NormalizedString;
use super::normalizers::Normalizer;
use crate::error::CoreError;

/// One entry of `added_tokens`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddedToken {
    pub content: String,
    pub single_word: bool,
    pub lstrip: bool,
    pub rstrip: bool,
    pub normalized: bool,
    pub special: bool,
}

/// A piece of the text after splitting on added tokens: either an added token (its id) or
/// normalized text still to be pre-tokenized and encoded.
#[derive(Debug, Clone)]
pub struct Piece {
    pub text: NormalizedString,
    pub added: Option<u32>,
}

/// The added tokens of a tokenizer and the matchers that find them. Immutable.
#[derive(Debug, Clone, Default)]
pub struct AddedVocabulary {
    /// content -> id
    ids: FxHashMap<String, u32>,
    /// id -> token (the last one given for that id, as HF's map)
    tokens: FxHashMap<u32, AddedToken>,
    /// id -> normalized content, for `normalized` tokens whose content the normalizer changes
    normalized_content: FxHashMap<u32, String>,
    special: FxHashSet<String>,
    /// Matchers over the original text (`normalized: false`) and the normalized text.
    raw: Option<Matcher>,
    norm: Option<Matcher>,
    /// Tokens whose id in the file differs from the one HF gives them: `(content, file id, id)`.
    pub mismatches: Vec<(String, u32, u32)>,
}

impl AddedVocabulary {
    /// Reads `added_tokens` (at `path`) and gives each token its id as HF does (see the module
    /// docstring); `normalizer` is the file's, applied to `normalized` tokens' content.
    pub fn from_json(
        v: Option<&Value>,
        path: &str,
        model: &Model,
        normalizer: Option<&Normalizer>,
    ) -> Result<Self, CoreError> {
        let mut out = AddedVocabulary::default();
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return Ok(out);
        };
        let list = v.as_array().ok_or_else(|| super::json::bad(path, "expected a list of added tokens"))?;
        let mut next_id = u32::try_from(model.vocab_size())
            .map_err(|_| super::json::bad(path, "the model's vocabulary is too large"))?;
        for (i, item) in list.iter().enumerate() {
            let p = index(path, i);
            let o = Obj::new(item, &p)?;
            o.only(&["id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"])?;
            let file_id = o.u32("id")?;
            let special = o.bool_or("special", false)?;
            let token = AddedToken {
                content: o.str("content")?.to_string(),
                single_word: o.bool_or("single_word", false)?,
                lstrip: o.bool_or("lstrip", false)?,
                rstrip: o.bool_or("rstrip", false)?,
                // HF's default: special tokens are matched in the original text.
                normalized: o.bool_or("normalized", !special)?,
                special,
            };
            if token.content.is_empty() {
                continue; // HF ignores empty tokens
            }
            if out.ids.get(&token.content).and_then(|id| out.tokens.get(id)) == Some(&token) {
                continue;
            }
            let id = match out.ids.get(&token.content).copied().or_else(|| model.token_to_id(&token.content)) {
                Some(id) => id,
                None => {
                    let id = next_id;
                    next_id = next_id.checked_add(1).ok_or_else(|| super::json::bad(&p, "too many tokens"))?;
                    id
                }
            };
            if id != file_id {
                out.mismatches.push((token.content.clone(), file_id, id));
            }
            if token.normalized {
                if let Some(n) = normalizer {
                    let normed = n.normalize_str(&token.content)?;
                    if normed != token.content {
                        out.normalized_content.insert(id, normed);
                    }
                }
            }
            out.ids.insert(token.content.clone(), id);
            if token.special {
                out.special.insert(token.content.clone());
            }
            out.tokens.insert(id, token);
        }
        out.build_matchers()?;
        Ok(out)
    }

    fn build_matchers(&mut self) -> Result<(), CoreError> {
        let mut raw: Vec<(&str, u32)> = Vec::new();
        let mut norm: Vec<(&str, u32)> = Vec::new();
        for (&id, t) in &self.tokens {
            if t.normalized {
                let p = self.normalized_content.get(&id).map_or(t.content.as_str(), String::as_str);
                if !p.is_empty() {
                    norm.push((p, id));
                }
            } else {
                raw.push((t.content.as_str(), id));
            }
        }
        // Sorted so that the matcher (and so any tie between equal patterns) is the same on
        // every run; HF's order here is a hash map's.
        raw.sort_unstable();
        norm.sort_unstable();
        self.raw = matcher(&raw)?;
        self.norm = matcher(&norm)?;
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The id of an added token's content.
    pub fn token_to_id(&self, content: &str) -> Option<u32> {
        self.ids.get(content).copied()
    }

    /// The string of an added token's id as decoding sees it: its normalized content when the
    /// normalizer changes it (so that the decoder can undo that), else its content.
    pub fn id_to_token(&self, id: u32) -> Option<&str> {
        let t = self.tokens.get(&id)?;
        Some(self.normalized_content.get(&id).map_or(t.content.as_str(), String::as_str))
    }

    /// The added token of an id.
    pub fn get(&self, id: u32) -> Option<&AddedToken> {
        self.tokens.get(&id)
    }

    /// True for the content of a `special` added token.
    pub fn is_special(&self, content: &str) -> bool {
        self.special.contains(content)
    }

    /// Every `(content, id)`.
    pub fn vocab(&self) -> Vec<(String, u32)> {
        let mut v: Vec<(String, u32)> = self.ids.iter().map(|(c, &id)| (c.clone(), id)).collect();
        v.sort_unstable_by_key(|&(_, id)| id);
        v
    }

    /// Every added token with its id, in id order.
    pub fn tokens(&self) -> Vec<(u32, &AddedToken)> {
        let mut v: Vec<(u32, &AddedToken)> = self.tokens.iter().map(|(&id, t)| (id, t)).collect();
        v.sort_unstable_by_key(|&(id, _)| id);
        v
    }

    /// Splits `text` (which starts at byte `base` of the whole original) on added tokens,
    /// normalizing the pieces between them; see the module docstring. Empty pieces are
    /// dropped. `skip`: ids of added tokens not to match (their text stays text; HF's
    /// `encode_special_tokens` skips every special token). `track`: keep alignments (for offsets).
    pub fn split(
        &self,
        text: &str,
        base: usize,
        normalizer: Option<&Normalizer>,
        track: bool,
        skip: &[u32],
        out: &mut Vec<Piece>,
    ) -> Result<(), CoreError> {
        let whole = NormalizedString::new(text, base, track);
        let mut first: Vec<Piece> = Vec::new();
        self.split_one(whole, self.raw.as_ref(), skip, &mut first);
        for piece in first {
            if piece.added.is_some() {
                out.push(piece);
                continue;
            }
            let mut n = piece.text;
            if let Some(norm) = normalizer {
                norm.normalize(&mut n)?;
            }
            if n.is_empty() {
                continue;
            }
            self.split_one(n, self.norm.as_ref(), skip, out);
        }
        Ok(())
    }

    fn split_one(&self, n: NormalizedString, matcher: Option<&Matcher>, skip: &[u32], out: &mut Vec<Piece>) {
        let mut found = Vec::new();
        self.find(n.as_str(), matcher, skip, &mut found);
        if found.is_empty() {
            if !n.is_empty() {
                out.push(Piece { text: n, added: None });
            }
            return;
        }
        let len = n.len();
        let mut pos = 0;
        for (start, stop, id) in found {
            if pos < start {
                out.push(Piece { text: n.slice(pos, start), added: None });
            }
            out.push(Piece { text: n.slice(start, stop), added: Some(id) });
            pos = stop;
        }
        if pos < len {
            out.push(Piece { text: n.slice(pos, len), added: None });
        }
    }

    /// The added tokens `matcher` finds in `s`, as `(start, stop, id)` with HF's rules
    /// (`single_word`, `lstrip`, `rstrip`; a skipped id is not a match).
    fn find(&self, s: &str, matcher: Option<&Matcher>, skip: &[u32], found: &mut Vec<(usize, usize, u32)>) {
        let Some(Matcher { ac, ids, .. }) = matcher.filter(|m| m.may_match(s)) else { return };
        let mut pos = 0;
        for m in ac.find_iter(s) {
            let (mut start, mut stop) = (m.start(), m.end());
            let Some(&id) = ids.get(m.pattern().as_usize()) else { continue };
            let Some(tok) = self.tokens.get(&id) else { continue };
            if skip.contains(&id) {
                continue;
            }
            if tok.single_word {
                let before_ok = start == 0 || !s[..start].chars().next_back().is_some_and(is_word_char);
                let after_ok = stop == s.len() || !s[stop..].chars().next().is_some_and(is_word_char);
                if !before_ok || !after_ok {
                    continue;
                }
            }
            if tok.lstrip {
                // The whitespace before it, but not what an earlier token already took.
                let ws = s[..start].chars().rev().take_while(|c| c.is_whitespace()).map(char::len_utf8).sum::<usize>();
                start = (start - ws).max(pos);
            }
            if tok.rstrip {
                stop += s[stop..].chars().take_while(|c| c.is_whitespace()).map(char::len_utf8).sum::<usize>();
            }
            found.push((start, stop, id));
            pos = stop;
        }
    }

    /// `split` for a pipeline without a normalizer, without building pieces: calls
    /// `f(text, None)` for each stretch of text and `f(token text, Some(id))` for each added
    /// token, in order (the fast paths' entry).
    pub fn for_each_raw(
        &self,
        text: &str,
        skip: &[u32],
        mut f: impl FnMut(&str, Option<u32>) -> Result<(), CoreError>,
    ) -> Result<(), CoreError> {
        // The common case, a text with no added token in it, without building anything. (What
        // cannot match the whole text cannot match a part of it either.)
        let raw = self.raw.as_ref().filter(|m| m.may_match(text));
        if raw.is_none() && !self.norm.as_ref().is_some_and(|m| m.may_match(text)) {
            return if text.is_empty() { Ok(()) } else { f(text, None) };
        }
        let mut first = Vec::new();
        self.find(text, raw, skip, &mut first);
        let gap = |g: &str, f: &mut SegmentFn<'_>| {
            // What the first pass left is matched against the `normalized` tokens (with no
            // normalizer, their content as written).
            let mut second = Vec::new();
            self.find(g, self.norm.as_ref(), skip, &mut second);
            let mut pos = 0;
            for (start, stop, id) in second {
                if pos < start {
                    f(&g[pos..start], None)?;
                }
                f(&g[start..stop], Some(id))?;
                pos = stop;
            }
            if pos < g.len() {
                f(&g[pos..], None)?;
            }
            Ok(())
        };
        let mut pos = 0;
        for (start, stop, id) in first {
            if pos < start {
                gap(&text[pos..start], &mut f)?;
            }
            f(&text[start..stop], Some(id))?;
            pos = stop;
        }
        if pos < text.len() {
            gap(&text[pos..], &mut f)?;
        }
        Ok(())
    }

    /// True when some added token is matched in normalized text (`normalized: true`).
    pub fn has_normalized(&self) -> bool {
        self.norm.is_some()
    }
}

/// What `for_each_raw` calls for each stretch of text or added token.
type SegmentFn<'f> = dyn FnMut(&str, Option<u32>) -> Result<(), CoreError> + 'f;

/// `\w` as the `regex` crate (and so HF) defines it.
fn is_word_char(c: char) -> bool {
    regex_syntax::is_word_character(c)
}

/// A leftmost-longest matcher of some added tokens, with the id of each pattern.
#[derive(Debug, Clone)]
struct Matcher {
    ac: AhoCorasick,
    ids: Vec<u32>,
    /// The first bytes of the patterns (repeated to fill), when there are at most three
    /// distinct ones. Why: most texts contain no added token, and a vectorized byte scan says
    /// so in a fraction of what the automaton's setup alone costs on every call (`<` for
    /// GPT-2's `<|endoftext|>`, o200k's or Llama 3's 256 `<|...|>` tokens).
    first: Option<FirstBytes>,
}

/// Up to three bytes to look for (repeated to fill).
#[derive(Debug, Clone, Copy)]
struct FirstBytes {
    set: [u8; 3],
}

impl FirstBytes {
    /// The set of the first bytes of `patterns`, if all are non-empty and there are at most three.
    fn new(patterns: &[(&str, u32)]) -> Option<Self> {
        let mut first: Vec<u8> = Vec::with_capacity(patterns.len());
        for (p, _) in patterns {
            first.push(*p.as_bytes().first()?); // an empty pattern matches anywhere: no filter
        }
        first.sort_unstable();
        first.dedup();
        let (&a, rest) = first.split_first()?;
        if rest.len() > 2 {
            return None;
        }
        let set = [a, rest.first().copied().unwrap_or(a), rest.get(1).copied().unwrap_or(a)];
        Some(FirstBytes { set })
    }

    /// True when `hay` contains one of the bytes (memchr's vectorized search).
    #[inline]
    fn found_in(&self, hay: &[u8]) -> bool {
        let [a, b, c] = self.set;
        memchr::memchr3(a, b, c, hay).is_some()
    }
}

impl Matcher {
    /// False when no pattern can occur in `s` (a pattern never starts with a byte not in it).
    #[inline]
    fn may_match(&self, s: &str) -> bool {
        self.first.is_none_or(|f| f.found_in(s.as_bytes()))
    }
}

fn matcher(patterns: &[(&str, u32)]) -> Result<Option<Matcher>, CoreError> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let ac = AhoCorasickBuilder::new()
        .match_kind(MatchKind::LeftmostLongest)
        .build(patterns.iter().map(|(p, _)| p))
        .map_err(|e| CoreError::Vocab(format!("added_tokens: cannot build the matcher: {e}")))?;
    let first = FirstBytes::new(patterns);
    Ok(Some(Matcher { ac, ids: patterns.iter().map(|&(_, id)| id).collect(), first }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bytes_set() {
        let f = FirstBytes::new(&[("<|a|>", 0), ("<s>", 1)]).map(|f| f.set);
        assert_eq!(f, Some([b'<'; 3]));
        let f = FirstBytes::new(&[("[CLS]", 0), ("<s>", 1), ("x", 2)]).map(|f| f.set);
        assert_eq!(f, Some([b'<', b'[', b'x']));
        assert!(FirstBytes::new(&[("a", 0), ("b", 1), ("c", 2), ("d", 3)]).is_none());
        assert!(FirstBytes::new(&[("a", 0), ("", 1)]).is_none());
    }

    #[test]
    fn found_in_is_contains() {
        // Every length around the block sizes, the byte at every position (or nowhere).
        for set in [[b'<'; 3], [b'<', b'[', 0xE2]] {
            let f = FirstBytes { set };
            for len in 0..100 {
                let clean = vec![b'a'; len];
                assert!(!f.found_in(&clean), "len {len}");
                for pos in 0..len {
                    for &b in &set {
                        let mut t = clean.clone();
                        t[pos] = b;
                        assert!(f.found_in(&t), "len {len} pos {pos}");
                    }
                }
            }
        }
    }

    #[test]
    fn for_each_raw_segments() {
        let mut v = AddedVocabulary::default();
        let tok = |c: &str| AddedToken {
            content: c.into(),
            single_word: false,
            lstrip: false,
            rstrip: false,
            normalized: false,
            special: true,
        };
        v.tokens.insert(7, tok("<|e|>"));
        v.ids.insert("<|e|>".into(), 7);
        v.build_matchers().unwrap();
        let segs = |text: &str, skip: &[u32]| {
            let mut out = Vec::new();
            v.for_each_raw(text, skip, |s, id| {
                out.push((s.to_string(), id));
                Ok(())
            })
            .unwrap();
            out
        };
        let long = "x".repeat(40);
        assert_eq!(segs("", &[]), vec![]);
        assert_eq!(segs(&long, &[]), vec![(long.clone(), None)]);
        assert_eq!(segs("a < b", &[]), vec![("a < b".to_string(), None)]);
        let t = format!("{long}<|e|>{long}");
        assert_eq!(segs(&t, &[]), vec![(long.clone(), None), ("<|e|>".into(), Some(7)), (long.clone(), None)]);
        assert_eq!(segs(&t, &[7]), vec![(t.clone(), None)]);
        assert_eq!(segs("<|e|>", &[]), vec![("<|e|>".to_string(), Some(7))]);
    }
}
