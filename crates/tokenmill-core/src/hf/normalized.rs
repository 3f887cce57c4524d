//! A piece of text being normalized (HF's `NormalizedString`): the normalized text and, when
//! asked for, each normalized byte's range in the original text.
//!
//! Every edit follows HF's alignment rules (`tokenizers/src/tokenizer/normalizer.rs`), so that
//! offsets computed from a tracked piece equal HF's:
//! - `transform` takes the new characters with HF's change values: `0` replaces the next old
//!   character and takes its alignment, `+1` is inserted and takes the alignment of the old byte
//!   before the current position (`(start, start)` of the piece at position 0), `-n` replaces
//!   and then removes the `n` old characters after it; `initial_offset` old characters are
//!   removed first.
//! - most edits map each old character to zero or more new ones that all take its alignment
//!   (`map_chars`: map, filter, lowercase, byte-level, BERT's steps), which is what `transform`
//!   gives for them, computed directly;
//! - `replace` gives the inserted content the alignment of the last matched byte (of the byte
//!   before an empty match), `prepend` gives the new text the first character's alignment,
//!   strips keep the alignments of what remains.
//!
//! Alignments are stored as ABSOLUTE byte offsets in the whole original text (HF stores them
//! relative to the piece and keeps a shift), so `slice` copies them unchanged.
//!
//! Untracked pieces (`track == false`, the ids-only path) keep no alignment at all: every edit
//! is a plain text edit, and `original_range`/`slice` assume normalized byte `i` came from
//! original byte `orig_start + i`, which is exact only while no edit changed the text (see
//! `original_range`). Ids never depend on alignments except through HF's Metaspace
//! `prepend_scheme: "first"` after another pre-tokenizer (`PreTokenizer::needs_alignments`).
//!
//! Known HF differences (HF panics or duplicates text there; we do the sane thing): HF's
//! whole-string transforms skip leading bytes aligned to an empty original range, which only a
//! `Replace` whose regex matches empty at position 0 (e.g. `^`) creates; HF then panics on the
//! next transform, we transform the whole text. What this module does not do: know any
//! normalizer or pre-tokenizer (they are in `normalizers` and `pretokenizers`).

use unicode_normalization_alignments::UnicodeNormalization;

use super::json::PatternSpec;
use crate::error::CoreError;
use crate::pretokenize::Pretokenizer;

/// A piece of text being normalized. `orig_start` is always known (the byte offset in the whole
/// original text where this piece's original text starts); the per-byte alignment is kept only
/// when `track` was set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NormalizedString {
    text: String,
    orig_start: usize,
    track: bool,
    /// For each byte of `text`, its (start, end) byte range in the whole original text; empty
    /// when untracked.
    align: Vec<(usize, usize)>,
}

/// How `split` treats the delimiters (HF's `SplitDelimiterBehavior`), with input
/// `the-final--countdown` split on `-`:
/// Removed `the final countdown`; Isolated `the - final - - countdown`; MergedWithPrevious
/// `the- final- - countdown`; MergedWithNext `the -final - -countdown`; Contiguous
/// `the - final -- countdown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitBehavior {
    Removed,
    Isolated,
    MergedWithPrevious,
    MergedWithNext,
    Contiguous,
}

/// What `split` and `replace` look for (HF's `Pattern` implementations).
pub enum Pattern<'a> {
    /// Each character for which the function is true is a match of its own.
    Char(&'a dyn Fn(char) -> bool),
    /// Leftmost non-overlapping occurrences of a literal (HF escapes it into a regex, so an
    /// empty literal matches empty at every character boundary).
    Literal(&'a str),
    /// A regex (the pre-tokenizer engines: hand-written matchers or `fancy_regex`).
    Regex(&'a Pretokenizer),
}

impl Pattern<'_> {
    /// Calls `f(start, end, is_match)` for consecutive segments covering `text` (HF's
    /// `find_matches`: gaps between matches are non-matches; empty matches are reported; an
    /// empty text is one empty non-match).
    pub fn segments(&self, text: &str, mut f: impl FnMut(usize, usize, bool)) -> Result<(), CoreError> {
        if text.is_empty() {
            f(0, 0, false);
            return Ok(());
        }
        let mut prev = 0;
        let mut on_match = |s: usize, e: usize| {
            if s != prev {
                f(prev, s, false);
            }
            f(s, e, true);
            prev = e;
        };
        match self {
            Pattern::Char(pred) => {
                for (i, c) in text.char_indices() {
                    if pred(c) {
                        on_match(i, i + c.len_utf8());
                    }
                }
            }
            Pattern::Literal(lit) => {
                if lit.is_empty() {
                    // The empty regex: an empty match at every character boundary, end included.
                    for (i, _) in text.char_indices() {
                        on_match(i, i);
                    }
                    on_match(text.len(), text.len());
                } else {
                    for (i, m) in text.match_indices(lit) {
                        on_match(i, i + m.len());
                    }
                }
            }
            Pattern::Regex(re) => match re {
                Pretokenizer::Regex(r) => {
                    // Not `for_each_piece`: it drops empty matches, which HF keeps.
                    for m in r.find_iter(text) {
                        let m = m.map_err(|e| CoreError::Pattern(format!("regex failed while splitting text: {e}")))?;
                        on_match(m.start(), m.end());
                    }
                }
                fast => fast.for_each_piece(text, &mut on_match)?,
            },
        }
        if prev != text.len() {
            f(prev, text.len(), false);
        }
        Ok(())
    }
}

/// A compiled `{"String": ...}` / `{"Regex": ...}` pattern (HF's `SplitPattern` and
/// `ReplacePattern`).
#[derive(Debug, Clone)]
pub enum CompiledPattern {
    Literal(String),
    Regex(Pretokenizer),
}

impl CompiledPattern {
    /// Compiles the pattern at `path`. HF compiles regexes with Oniguruma, we with
    /// `fancy_regex` (or a hand-written matcher for a known pattern): the syntax HF's files use
    /// (`\p{L}`, `\s`, `\d`, `\h`, possessive quantifiers, look-arounds, `\uXXXX`) means the same
    /// in both (onig's `\d`, `\s`, `\w` are Unicode-aware too); a regex `fancy_regex` rejects
    /// is `Unsupported`.
    pub fn new(spec: &PatternSpec, path: &str) -> Result<Self, CoreError> {
        match spec {
            PatternSpec::Literal(s) => Ok(CompiledPattern::Literal(s.clone())),
            PatternSpec::Regex(r) => Pretokenizer::new(r).map(CompiledPattern::Regex).map_err(|e| {
                CoreError::Unsupported(format!(
                    "{path}: the regex {r:?} does not compile with tokenmill's regex engine (fancy_regex): {e}"
                ))
            }),
        }
    }

    pub fn as_pattern(&self) -> Pattern<'_> {
        match self {
            CompiledPattern::Literal(s) => Pattern::Literal(s),
            CompiledPattern::Regex(r) => Pattern::Regex(r),
        }
    }
}

/// Byte length of the UTF-8 character starting with byte `b`.
#[inline]
pub(crate) fn utf8_len(b: u8) -> usize {
    match b {
        0..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

impl NormalizedString {
    /// A piece whose original text is `original`, starting at byte `orig_start` of the whole
    /// original text; `track`: keep per-byte alignments (needed for offsets only).
    pub fn new(original: &str, orig_start: usize, track: bool) -> Self {
        let align = if track {
            let mut a = Vec::with_capacity(original.len());
            for (i, c) in original.char_indices() {
                let r = (orig_start + i, orig_start + i + c.len_utf8());
                a.extend(std::iter::repeat_n(r, c.len_utf8()));
            }
            a
        } else {
            Vec::new()
        };
        NormalizedString { text: original.to_string(), orig_start, track, align }
    }

    /// An untracked piece that owns `text` (no copy).
    pub fn from_string(text: String, orig_start: usize) -> Self {
        NormalizedString { text, orig_start, track: false, align: Vec::new() }
    }

    /// The normalized text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The normalized text, by value.
    pub fn into_string(self) -> String {
        self.text
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// True when per-byte alignments are kept.
    pub fn is_tracked(&self) -> bool {
        self.track
    }

    /// For each normalized byte, its absolute (start, end) range in the original text (empty
    /// when untracked).
    pub fn alignments(&self) -> &[(usize, usize)] {
        &self.align
    }

    /// Byte offset of this piece's original text in the whole original text (HF's
    /// `offsets_original().0`).
    pub fn orig_start(&self) -> usize {
        self.orig_start
    }

    /// The sub-piece for normalized bytes `start..end` (clamped to the text and to character
    /// boundaries), with its alignment; its `orig_start` is the original offset its first byte
    /// came from (HF's `original_shift`). Untracked: `orig_start + start`.
    pub fn slice(&self, start: usize, end: usize) -> NormalizedString {
        let (start, end) = self.clamp(start, end);
        let text = self.text.get(start..end).unwrap_or_default().to_string();
        if !self.track {
            return NormalizedString { text, orig_start: self.orig_start + start, track: false, align: Vec::new() };
        }
        let align = self.align.get(start..end).map(<[_]>::to_vec).unwrap_or_default();
        // HF: an empty slice's shift is its normalized position (it is dropped anyway).
        let orig_start = align.first().map_or(self.orig_start + start, |a| a.0);
        NormalizedString { text, orig_start, track: true, align }
    }

    /// `start..end` clamped to the text, on character boundaries (never panics).
    fn clamp(&self, start: usize, end: usize) -> (usize, usize) {
        let mut end = end.min(self.text.len());
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let mut start = start.min(end);
        while !self.text.is_char_boundary(start) {
            start -= 1;
        }
        (start, end)
    }

    /// The range in the whole original text (absolute byte offsets) that normalized bytes
    /// `start..end` came from: HF's `convert_offsets` (Normalized -> Original) plus the shift,
    /// i.e. the start of the first byte's range to the end of the last byte's.
    ///
    /// Not HF (which answers with normalized positions there): an empty range gives the empty
    /// original range where normalized byte `start` came from (the end of the previous byte's
    /// range at the end of the text; `(orig_start, orig_start)` for an empty piece). Untracked:
    /// `(orig_start + start, orig_start + end)`, exact only while no edit changed the text.
    pub fn original_range(&self, start: usize, end: usize) -> (usize, usize) {
        if !self.track {
            return (self.orig_start + start, self.orig_start + end.max(start));
        }
        if start < end {
            if let (Some(a), Some(b)) = (self.align.get(start), self.align.get(end - 1)) {
                return (a.0, b.1);
            }
        }
        let p = match self.align.get(start) {
            Some(a) => a.0,
            None => self.align.last().map_or(self.orig_start, |a| a.1),
        };
        (p, p)
    }

    // ---- edits ------------------------------------------------------------------------------

    /// HF's `transform` over the whole text: `dest` yields the new characters with their change
    /// (`+1` inserted, `0` replaces the next old character, `-n` replaces it and removes the `n`
    /// after it); `initial_offset` old characters are removed first.
    pub fn transform<I: IntoIterator<Item = (char, isize)>>(&mut self, dest: I, initial_offset: usize) {
        let old = std::mem::take(&mut self.text);
        self.transform_from(&old, 0, old.len(), dest, initial_offset);
    }

    /// Replaces old bytes `start..end` of `old` (which was `self.text`, now taken) by `dest`,
    /// keeping `old[..start]`; the caller appends `old[end..]`. HF's `transform_range`.
    fn transform_from<I: IntoIterator<Item = (char, isize)>>(
        &mut self,
        old: &str,
        start: usize,
        end: usize,
        dest: I,
        initial_offset: usize,
    ) {
        let bytes = old.as_bytes();
        let mut text = String::with_capacity(old.len());
        text.push_str(old.get(..start).unwrap_or_default());
        if !self.track {
            text.extend(dest.into_iter().map(|(c, _)| c));
            // The caller appends `old[end..]`.
            self.text = text;
            return;
        }
        let old_align = std::mem::take(&mut self.align);
        let mut align = Vec::with_capacity(old_align.len());
        align.extend_from_slice(old_align.get(..start).unwrap_or_default());
        // Skips one old character at `offset` (within the range), returning the new offset.
        let skip = |offset: usize| -> usize {
            if offset < end {
                bytes.get(offset).map_or(offset, |&b| (offset + utf8_len(b)).min(end))
            } else {
                offset
            }
        };
        let mut offset = start;
        for _ in 0..initial_offset {
            offset = skip(offset);
        }
        let fallback = old_align.last().map_or((self.orig_start, self.orig_start), |a| (a.1, a.1));
        for (c, change) in dest {
            let a = if change > 0 {
                if offset < 1 {
                    (self.orig_start, self.orig_start)
                } else {
                    old_align.get(offset - 1).copied().unwrap_or(fallback)
                }
            } else {
                old_align.get(offset).copied().unwrap_or(fallback)
            };
            if change <= 0 {
                offset = skip(offset);
            }
            for _ in 0..(-change).max(0) {
                offset = skip(offset);
            }
            text.push(c);
            align.extend(std::iter::repeat_n(a, c.len_utf8()));
        }
        align.extend_from_slice(old_align.get(end..).unwrap_or_default());
        self.text = text;
        self.align = align;
    }

    /// Maps each character to zero or more characters (`f` appends them to the string it is
    /// given), all taking that character's alignment; what HF's `transform` gives for
    /// changes `0, +1, +1...` per character (or a removal).
    pub fn map_chars(&mut self, mut f: impl FnMut(char, &mut String)) {
        let old = std::mem::take(&mut self.text);
        let mut text = String::with_capacity(old.len() + old.len() / 4);
        if self.track {
            let old_align = std::mem::take(&mut self.align);
            let mut align = Vec::with_capacity(old_align.len());
            for (i, c) in old.char_indices() {
                let before = text.len();
                f(c, &mut text);
                let a = old_align.get(i).copied().unwrap_or((self.orig_start, self.orig_start));
                align.extend(std::iter::repeat_n(a, text.len() - before));
            }
            self.align = align;
        } else {
            for c in old.chars() {
                f(c, &mut text);
            }
        }
        self.text = text;
    }

    /// Replaces the text by `text`, whose `k`-th character came from old character `src[k]`
    /// (character indices; for normalizers computed elsewhere with a per-character alignment,
    /// e.g. `crate::normalize::bert`).
    pub fn rewrite_chars(&mut self, text: String, src: &[u32]) {
        if self.track {
            let old_starts: Vec<usize> = self.text.char_indices().map(|(i, _)| i).collect();
            let old_align = std::mem::take(&mut self.align);
            let mut align = Vec::with_capacity(text.len());
            let fallback = (self.orig_start, self.orig_start);
            for (c, &k) in text.chars().zip(src) {
                let a = old_starts.get(k as usize).and_then(|&b| old_align.get(b)).copied().unwrap_or(fallback);
                align.extend(std::iter::repeat_n(a, c.len_utf8()));
            }
            align.resize(text.len(), fallback);
            self.align = align;
        }
        self.text = text;
    }

    /// HF's `map`: each character replaced by `f(c)`.
    pub fn map(&mut self, f: impl Fn(char) -> char) {
        self.map_chars(|c, out| out.push(f(c)));
    }

    /// HF's `filter`: keeps the characters for which `keep` is true (with their alignments).
    pub fn filter(&mut self, keep: impl Fn(char) -> bool) {
        if !self.text.chars().all(&keep) {
            self.map_chars(|c, out| {
                if keep(c) {
                    out.push(c)
                }
            });
        }
    }

    /// HF's `lowercase` (`char::to_lowercase`; extra characters take the first's alignment).
    pub fn lowercase(&mut self) {
        if self.text.is_ascii() {
            // Same lengths, same alignments.
            self.text.make_ascii_lowercase();
        } else {
            self.map_chars(|c, out| out.extend(c.to_lowercase()));
        }
    }

    /// HF's `uppercase`.
    pub fn uppercase(&mut self) {
        if self.text.is_ascii() {
            self.text.make_ascii_uppercase();
        } else {
            self.map_chars(|c, out| out.extend(c.to_uppercase()));
        }
    }

    // Unicode normal forms, with the iterator's own change values (ASCII is invariant under
    // every normal form, so it is left alone).

    /// NFD (HF's `nfd`).
    pub fn nfd(&mut self) {
        if !self.text.is_ascii() {
            let old = std::mem::take(&mut self.text);
            self.transform_from(&old, 0, old.len(), old.nfd(), 0);
        }
    }

    /// NFKD (HF's `nfkd`).
    pub fn nfkd(&mut self) {
        if !self.text.is_ascii() {
            let old = std::mem::take(&mut self.text);
            self.transform_from(&old, 0, old.len(), old.nfkd(), 0);
        }
    }

    /// NFC (HF's `nfc`).
    pub fn nfc(&mut self) {
        if !self.text.is_ascii() {
            let old = std::mem::take(&mut self.text);
            self.transform_from(&old, 0, old.len(), old.nfc(), 0);
        }
    }

    /// NFKC (HF's `nfkc`).
    pub fn nfkc(&mut self) {
        if !self.text.is_ascii() {
            let old = std::mem::take(&mut self.text);
            self.transform_from(&old, 0, old.len(), old.nfkc(), 0);
        }
    }

    /// HF's `replace`: every match of `pattern` becomes `content`, whose characters take the
    /// alignment of the last matched byte (of the byte before an empty match; of the piece's
    /// start at position 0).
    pub fn replace(&mut self, pattern: &Pattern<'_>, content: &str) -> Result<(), CoreError> {
        let mut matches: Vec<(usize, usize)> = Vec::new();
        pattern.segments(&self.text, |s, e, m| {
            if m {
                matches.push((s, e))
            }
        })?;
        if matches.is_empty() {
            return Ok(());
        }
        let old = std::mem::take(&mut self.text);
        let mut text = String::with_capacity(old.len() + matches.len() * content.len());
        let mut last = 0;
        if self.track {
            let old_align = std::mem::take(&mut self.align);
            let mut align = Vec::with_capacity(old_align.len());
            for &(s, e) in &matches {
                text.push_str(old.get(last..s).unwrap_or_default());
                align.extend_from_slice(old_align.get(last..s).unwrap_or_default());
                let a = if e == 0 {
                    (self.orig_start, self.orig_start)
                } else {
                    old_align.get(e - 1).copied().unwrap_or((self.orig_start, self.orig_start))
                };
                text.push_str(content);
                align.extend(std::iter::repeat_n(a, content.len()));
                last = e;
            }
            align.extend_from_slice(old_align.get(last..).unwrap_or_default());
            self.align = align;
        } else {
            for &(s, e) in &matches {
                text.push_str(old.get(last..s).unwrap_or_default());
                text.push_str(content);
                last = e;
            }
        }
        text.push_str(old.get(last..).unwrap_or_default());
        self.text = text;
        Ok(())
    }

    /// HF's `prepend`: `s` is put before a non-empty text; it and the first character take the
    /// first character's alignment (HF replaces the first character by `s`'s first character;
    /// an empty `s` leaves the first character aligned to `(start, start)` of the piece, as HF).
    pub fn prepend(&mut self, s: &str) {
        let Some(first) = self.text.chars().next() else { return };
        if !self.track {
            self.text.insert_str(0, s);
            return;
        }
        let old = std::mem::take(&mut self.text);
        let dest = s.chars().enumerate().map(|(i, c)| (c, isize::from(i != 0))).chain(std::iter::once((first, 1)));
        let n = first.len_utf8();
        self.transform_from(&old, 0, n, dest, 0);
        self.text.push_str(old.get(n..).unwrap_or_default());
    }

    /// HF's `append`: `s` after the text, aligned to the last character.
    pub fn append(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        let a = self.align.last().copied().unwrap_or((self.orig_start, self.orig_start));
        self.text.push_str(s);
        if self.track {
            self.align.extend(std::iter::repeat_n(a, s.len()));
        }
    }

    /// Removes leading (`left`) and trailing (`right`) whitespace (`char::is_whitespace`); what
    /// remains keeps its alignments (HF's `lstrip`/`rstrip`/`strip`).
    pub fn strip_sides(&mut self, left: bool, right: bool) {
        let t = &self.text;
        let start = if left { t.len() - t.trim_start_matches(char::is_whitespace).len() } else { 0 };
        let end = if right { start + t[start..].trim_end_matches(char::is_whitespace).len() } else { t.len() };
        if start == 0 && end == t.len() {
            return;
        }
        self.text.truncate(end);
        self.text.drain(..start);
        if self.track {
            self.align.truncate(end);
            self.align.drain(..start);
        }
    }

    pub fn lstrip(&mut self) {
        self.strip_sides(true, false)
    }

    pub fn rstrip(&mut self) {
        self.strip_sides(false, true)
    }

    pub fn strip(&mut self) {
        self.strip_sides(true, true)
    }

    // ---- splitting --------------------------------------------------------------------------

    /// HF's `split`: the pieces of this one around the matches of `pattern` (`invert`: the
    /// non-matches are the delimiters), per `behavior`, appended to `out`. Empty pieces are
    /// not appended (HF's `PreTokenizedString::split` drops them). Takes `self` by value so that
    /// a piece that is not split is moved, not copied.
    pub fn split_into(
        self,
        pattern: &Pattern<'_>,
        invert: bool,
        behavior: SplitBehavior,
        out: &mut Vec<NormalizedString>,
    ) -> Result<(), CoreError> {
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        {
            let mut merger = Merger::new(behavior, |s, e| ranges.push((s, e)));
            pattern.segments(&self.text, |s, e, m| merger.push(s, e, m != invert))?;
            merger.finish();
        }
        self.push_ranges(&ranges, out);
        Ok(())
    }

    /// Appends the non-empty slices for `ranges` to `out` (the piece itself when it is one
    /// range covering it all).
    pub fn push_ranges(self, ranges: &[(usize, usize)], out: &mut Vec<NormalizedString>) {
        if let [(0, e)] = ranges {
            if *e == self.text.len() {
                if !self.text.is_empty() {
                    out.push(self);
                }
                return;
            }
        }
        for &(s, e) in ranges {
            if e > s {
                out.push(self.slice(s, e));
            }
        }
    }
}

/// HF's folding of `(segment, is_match)` into split ranges for each behavior, streamed: `push`
/// the segments in order, then `finish`; `emit(start, end)` gets the ranges kept.
pub struct Merger<F: FnMut(usize, usize)> {
    behavior: SplitBehavior,
    emit: F,
    /// The range being built (Contiguous, MergedWithPrevious) or the match waiting for its
    /// next segment (MergedWithNext), with its flag.
    pending: Option<(usize, usize, bool)>,
}

impl<F: FnMut(usize, usize)> Merger<F> {
    pub fn new(behavior: SplitBehavior, emit: F) -> Self {
        Merger { behavior, emit, pending: None }
    }

    #[inline]
    pub fn push(&mut self, s: usize, e: usize, is_match: bool) {
        match self.behavior {
            SplitBehavior::Isolated => (self.emit)(s, e),
            SplitBehavior::Removed => {
                if !is_match {
                    (self.emit)(s, e)
                }
            }
            SplitBehavior::Contiguous => match self.pending {
                // Runs of segments with the same flag are one range.
                Some((ps, _, pm)) if pm == is_match => self.pending = Some((ps, e, pm)),
                _ => self.replace_pending(s, e, is_match),
            },
            SplitBehavior::MergedWithPrevious => match self.pending {
                // A match directly after a non-match joins it.
                Some((ps, _, pm)) if is_match && !pm => self.pending = Some((ps, e, is_match)),
                _ => self.replace_pending(s, e, is_match),
            },
            SplitBehavior::MergedWithNext => match self.pending.take() {
                // A match directly before a non-match joins it.
                Some((ps, _, _)) if !is_match => (self.emit)(ps, e),
                Some((ps, pe, _)) => {
                    (self.emit)(ps, pe);
                    self.pending = Some((s, e, true));
                }
                None if is_match => self.pending = Some((s, e, true)),
                None => (self.emit)(s, e),
            },
        }
    }

    fn replace_pending(&mut self, s: usize, e: usize, is_match: bool) {
        if let Some((ps, pe, _)) = self.pending.replace((s, e, is_match)) {
            (self.emit)(ps, pe);
        }
    }

    pub fn finish(&mut self) {
        if let Some((ps, pe, _)) = self.pending.take() {
            (self.emit)(ps, pe);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::hf::normalizers::Normalizer;
    use crate::hf::pretokenizers::PreTokenizer;

    /// (normalizer JSON, pre-tokenizer JSON, input, HF's pieces: text and, for each character,
    /// its original offsets in characters of the input).
    pub(crate) type Case = (
        Option<&'static str>,
        Option<&'static str>,
        &'static str,
        &'static [(&'static str, &'static [(usize, usize)])],
    );

    /// The pieces of `input` (tracked or not) with their characters' original offsets (in
    /// characters of the input).
    pub(crate) fn run(
        norm: Option<&str>,
        pre: Option<&str>,
        input: &str,
        orig_start: usize,
        track: bool,
    ) -> Vec<(String, Vec<(usize, usize)>)> {
        let mut s = NormalizedString::new(input, orig_start, track);
        if let Some(j) = norm {
            let n = Normalizer::from_json(&serde_json::from_str(j).unwrap(), "normalizer").unwrap();
            n.normalize(&mut s).unwrap();
            assert_eq!(n.normalize_str(input).unwrap(), s.as_str());
        }
        let mut pieces = vec![s];
        if let Some(j) = pre {
            let p = PreTokenizer::from_json(&serde_json::from_str(j).unwrap(), "pre_tokenizer").unwrap();
            p.pre_tokenize(&mut pieces).unwrap();
            assert!(pieces.iter().all(|x| !x.is_empty()));
        }
        pieces.retain(|x| !x.is_empty());
        let to_char = |b: usize| input.get(..b.wrapping_sub(orig_start)).map_or(usize::MAX, |t| t.chars().count());
        pieces
            .iter()
            .map(|x| {
                let offs = x
                    .as_str()
                    .char_indices()
                    .map(|(i, c)| {
                        let (a, b) = x.original_range(i, i + c.len_utf8());
                        (to_char(a), to_char(b))
                    })
                    .collect();
                (x.as_str().to_string(), offs)
            })
            .collect()
    }

    /// Checks every case: tracked (texts and offsets, at two `orig_start`s) and, unless
    /// `tracked_only`, untracked (texts).
    pub(crate) fn check(cases: &[Case], tracked_only: bool) {
        for &(norm, pre, input, want) in cases {
            let want: Vec<(String, Vec<(usize, usize)>)> =
                want.iter().map(|(t, o)| (t.to_string(), o.to_vec())).collect();
            let ctx = format!("normalizer {norm:?}, pre-tokenizer {pre:?}, input {input:?}");
            assert_eq!(run(norm, pre, input, 0, true), want, "{ctx}");
            // Metaspace "first" depends on the piece starting at 0.
            if !pre.is_some_and(|p| p.contains("\"first\"")) {
                assert_eq!(run(norm, pre, input, 5, true), want, "{ctx} (orig_start 5)");
            }
            if !tracked_only {
                let texts: Vec<String> = run(norm, pre, input, 0, false).into_iter().map(|x| x.0).collect();
                let want_texts: Vec<String> = want.iter().map(|x| x.0.clone()).collect();
                assert_eq!(texts, want_texts, "{ctx} (untracked)");
            }
        }
    }

    #[test]
    fn new_slice_and_original_range() {
        // "héllo 🤗" at byte 10 of a whole text.
        let n = NormalizedString::new("héllo 🤗", 10, true);
        assert_eq!(n.orig_start(), 10);
        assert_eq!(n.original_range(0, n.len()), (10, 21));
        assert_eq!(n.original_range(1, 3), (11, 13));
        assert_eq!(n.original_range(7, 11), (17, 21));
        // Empty ranges: where that byte came from; the end of the text at the end.
        assert_eq!(n.original_range(2, 2), (11, 11));
        assert_eq!(n.original_range(11, 11), (21, 21));
        let s = n.slice(7, 11);
        assert_eq!((s.as_str(), s.orig_start(), s.original_range(0, 4)), ("🤗", 17, (17, 21)));
        // Out-of-range and non-boundary slices are clamped, never a panic.
        assert_eq!(n.slice(2, 99).as_str(), "éllo 🤗");
        let u = NormalizedString::new("héllo", 10, false);
        assert_eq!((u.original_range(1, 3), u.slice(1, 3).orig_start()), ((11, 13), 11));
        let e = NormalizedString::new("", 4, true);
        assert_eq!(e.original_range(0, 0), (4, 4));
    }

    #[test]
    fn byte_level_sub_byte_ranges() {
        // HF: ByteLevel(add_prefix_space=False).pre_tokenize_str("héllo 🤗") ==
        // [('hÃ©llo', (0, 5)), ('ĠðŁ¤Ĺ', (5, 7))]; each byte-level character is aligned to the
        // whole original character its byte belongs to.
        let pre = r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true}"#;
        let p = PreTokenizer::from_json(&serde_json::from_str(pre).unwrap(), "p").unwrap();
        let mut pieces = vec![NormalizedString::new("héllo 🤗", 0, true)];
        p.pre_tokenize(&mut pieces).unwrap();
        let texts: Vec<&str> = pieces.iter().map(|x| x.as_str()).collect();
        assert_eq!(texts, ["h\u{c3}\u{a9}llo", "\u{120}\u{f0}\u{141}\u{a4}\u{139}"]);
        let w = &pieces[1];
        assert_eq!(w.orig_start(), 6);
        assert_eq!(w.original_range(0, 2), (6, 7)); // Ġ: the space
        assert_eq!(w.original_range(2, 4), (7, 11)); // ð: first byte of 🤗
        assert_eq!(w.original_range(4, 6), (7, 11)); // Ł
        assert_eq!(w.original_range(2, w.len()), (7, 11));
        assert_eq!(pieces[0].original_range(1, 3), (1, 3)); // Ã: first byte of é
        assert_eq!(pieces[0].original_range(3, 5), (1, 3));
    }

    #[test]
    fn transform_change_values() {
        // HF's transform: "abc" -> [('x', 0), ('y', 1), ('z', -1)]: x replaces a, y is added
        // after it (a's alignment), z replaces b and removes c.
        let mut n = NormalizedString::new("abc", 0, true);
        n.transform([('x', 0), ('y', 1), ('z', -1)], 0);
        assert_eq!(n.as_str(), "xyz");
        assert_eq!(n.alignments(), [(0, 1), (0, 1), (1, 2)]);
        // initial_offset: "a" removed first, "B" replaces "b"; "C" added at the end.
        let mut n = NormalizedString::new("abc", 0, true);
        n.transform([('B', 0), ('c', 0), ('C', 1)], 1);
        assert_eq!((n.as_str(), n.alignments()), ("BcC", &[(1, 2), (2, 3), (2, 3)][..]));
        // Inserted at position 0: the piece's start, empty.
        let mut n = NormalizedString::new("ab", 3, true);
        n.transform([('_', 1), ('a', 0), ('b', 0)], 0);
        assert_eq!(n.alignments(), [(3, 3), (3, 4), (4, 5)]);
        // Untracked: the same text, no alignment.
        let mut u = NormalizedString::new("abc", 0, false);
        u.transform([('x', 0), ('y', 1), ('z', -1)], 0);
        assert_eq!((u.as_str(), u.alignments()), ("xyz", &[][..]));
    }

    #[test]
    fn split_behaviors() {
        // HF's docstring example, "the-final--countdown" split on '-'.
        let run = |b: SplitBehavior| {
            let mut out = Vec::new();
            NormalizedString::new("the-final--countdown", 0, false)
                .split_into(&Pattern::Literal("-"), false, b, &mut out)
                .unwrap();
            out.iter().map(|x| x.as_str().to_string()).collect::<Vec<_>>()
        };
        assert_eq!(run(SplitBehavior::Removed), ["the", "final", "countdown"]);
        assert_eq!(run(SplitBehavior::Isolated), ["the", "-", "final", "-", "-", "countdown"]);
        assert_eq!(run(SplitBehavior::MergedWithPrevious), ["the-", "final-", "-", "countdown"]);
        assert_eq!(run(SplitBehavior::MergedWithNext), ["the", "-final", "-", "-countdown"]);
        assert_eq!(run(SplitBehavior::Contiguous), ["the", "-", "final", "--", "countdown"]);
    }
}
