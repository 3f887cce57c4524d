//! Finding special tokens in text: a literal, leftmost-longest scan (Aho-Corasick), and the
//! one loop that cuts a text into ordinary segments and special tokens (`for_each_segment`),
//! shared by encoding, counting and training.
//!
//! Why leftmost-longest: tiktoken joins specials into one regex alternation in hash-map order,
//! so for overlapping specials (one a prefix of another) its choice is unspecified; we pick
//! the longest match at the leftmost position, which is deterministic and documented.
//! Tokens are matched literally: regex metacharacters, spaces and newlines mean themselves.
//!
//! What it does not do: decide which specials are allowed (policy, in Python) or encode the
//! segments (`bpe::encoder` does).

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::error::CoreError;
use crate::types::Rank;

/// A set of special tokens to look for, with the id of each.
#[derive(Debug, Clone)]
pub struct SpecialMatcher {
    ac: Option<AhoCorasick>,
    tokens: Vec<String>,
    ids: Vec<Rank>,
}

impl SpecialMatcher {
    /// Builds a matcher over `(text, id)` pairs. An empty set never matches.
    pub fn new(tokens: Vec<(String, Rank)>) -> Result<Self, CoreError> {
        let (tokens, ids): (Vec<String>, Vec<Rank>) = tokens.into_iter().unzip();
        let ac = if tokens.is_empty() {
            None
        } else {
            Some(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&tokens)
                    .map_err(|e| CoreError::Input(format!("cannot build a matcher for these special tokens: {e}")))?,
            )
        };
        Ok(SpecialMatcher { ac, tokens, ids })
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.ac.is_none()
    }

    /// The special tokens matched, in their order.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// The first match at or after byte `from`: `(start, end, id)`.
    #[inline]
    pub fn find(&self, text: &str, from: usize) -> Option<(usize, usize, Rank)> {
        let ac = self.ac.as_ref()?;
        let m = ac.find(aho_corasick::Input::new(text).span(from..text.len()))?;
        Some((m.start(), m.end(), self.ids[m.pattern().as_usize()]))
    }

    /// The text of the first match in `text`, with its byte offset.
    pub fn find_token(&self, text: &str) -> Option<(usize, &str)> {
        let ac = self.ac.as_ref()?;
        let m = ac.find(text)?;
        Some((m.start(), self.tokens[m.pattern().as_usize()].as_str()))
    }
}

/// A run of ordinary text, or one allowed special token, in text order.
pub(crate) enum Segment<'t> {
    Text(&'t str),
    Special(Rank),
}

/// Calls `f(start, segment)` for each segment of `text`, where `start` is the byte offset in
/// `text` where the segment begins: ordinary text between occurrences of `allowed` specials
/// (leftmost-longest), and each occurrence. With no specials, one text segment.
pub(crate) fn for_each_segment<'t>(
    text: &'t str,
    allowed: Option<&SpecialMatcher>,
    mut f: impl FnMut(usize, Segment<'t>) -> Result<(), CoreError>,
) -> Result<(), CoreError> {
    let mut start = 0;
    if let Some(allowed) = allowed {
        while let Some((s, e, id)) = allowed.find(text, start) {
            f(start, Segment::Text(&text[start..s]))?;
            f(s, Segment::Special(id))?;
            start = e;
        }
    }
    f(start, Segment::Text(&text[start..]))
}
