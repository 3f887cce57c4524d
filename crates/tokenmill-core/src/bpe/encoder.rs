//! `CoreBpe`: a complete byte-level BPE encoder/decoder (vocabulary + pre-tokenizer + specials).
//!
//! Immutable after construction, so one instance is shared freely across threads.
//! Text flows one way: special-token split (`special`) -> pre-tokenize each segment
//! (`pretokenize`) -> per-piece BPE (`merge`). Large special-free texts are cut at safe points
//! (`pretokenize::cuts`) and encoded on several threads with the same result.
//!
//! What it does not do: decide which special tokens are allowed or disallowed (policy, in
//! Python; this module only applies the sets it is given), or build Python objects.

use super::batch::BatchSink;
use super::merge::{encode_piece, encode_piece_keyed, Scratch};
use super::vocab::Vocab;
use crate::error::CoreError;
use crate::parallel::{parallel_map_join, parallel_map_with};
use crate::pretokenize::{safe_cut_units_in, safe_cuts, safe_cuts_units, PieceSink, Pretokenizer};
use crate::special::{for_each_segment, Segment, SpecialMatcher};
use crate::table::{pack_at, wide_cpu, LineTable};
use crate::types::Rank;
use crate::utf8::{push_utf8, Units};

/// Units per part when one thread encodes a text given as code units part by part
/// (`CoreBpe::encode_units`): 64K units, at most 256 KiB of UTF-8, plus up to the next cut
/// point.
const SEQUENTIAL_PART: usize = 1 << 16;

/// Units searched for a cut point past each `SEQUENTIAL_PART` (a sixteenth of a part).
const CUT_WINDOW: usize = SEQUENTIAL_PART / 16;

/// `f` of units `a..b` of `units` with `acc`, a part at a time: each part is turned into
/// UTF-8 in `buf` (reused) and checked there, then given to `f`; `None` for a lone surrogate
/// or a `disallowed` special token in one (the caller's UTF-8 path reports those).
///
/// A part ends at the first cut point in a window past `SEQUENTIAL_PART` units, else in the
/// next such window, else at `b`. Why parts that small, also within a thread's share of a
/// parallel call: one stays in the L2 cache from its transcoding to its pre-tokenizing (see
/// `CoreBpe::encode_units`).
fn in_l2_parts<T>(
    units: Units<'_>,
    (a, b): (usize, usize),
    disallowed: Option<&SpecialMatcher>,
    buf: &mut String,
    scratch: &mut Scratch,
    mut acc: T,
    mut f: impl FnMut(&str, &mut Scratch, &mut T) -> Result<(), CoreError>,
) -> Result<Option<T>, CoreError> {
    let mut start = a;
    while start < b {
        let end = (1..)
            .map(|k| start + k * SEQUENTIAL_PART)
            .take_while(|&target| target < b)
            .find_map(|target| safe_cut_units_in(units, target, CUT_WINDOW).filter(|&c| c < b))
            .unwrap_or(b);
        buf.clear();
        if push_utf8(units.slice(start, end), buf).is_err() || disallowed.is_some_and(|d| d.find_token(buf).is_some()) {
            return Ok(None);
        }
        f(buf, scratch, &mut acc)?;
        start = end;
    }
    Ok(Some(acc))
}

/// Whether a disallowed special token could span a cut of `safe_cuts_units` (it holds
/// whitespace), so that checking the parts one by one could miss it.
fn spans_cut(d: &SpecialMatcher) -> bool {
    d.tokens().iter().any(|t| t.bytes().any(|b| b.is_ascii_whitespace()))
}

#[derive(Debug, Clone)]
pub struct CoreBpe {
    pub vocab: Vocab,
    pub pretokenizer: Pretokenizer,
    pattern: String,
}

impl CoreBpe {
    /// Builds an encoder; see `Vocab::new` and `Pretokenizer::new` for the checks made.
    pub fn new(
        mergeable: Vec<(Vec<u8>, Rank)>,
        specials: Vec<(String, Rank)>,
        pattern: &str,
    ) -> Result<Self, CoreError> {
        let vocab = Vocab::new(mergeable, specials)?;
        let pretokenizer = Pretokenizer::new(pattern)?;
        Ok(CoreBpe { vocab, pretokenizer, pattern: pattern.to_string() })
    }

    /// Builds an encoder around an already compiled pre-tokenizer; `pattern` is what
    /// `pattern()` reports (a description when the pre-tokenizer came from elsewhere).
    pub fn from_parts(
        mergeable: Vec<(Vec<u8>, Rank)>,
        specials: Vec<(String, Rank)>,
        pretokenizer: Pretokenizer,
        pattern: String,
    ) -> Result<Self, CoreError> {
        let vocab = Vocab::new(mergeable, specials)?;
        Ok(CoreBpe { vocab, pretokenizer, pattern })
    }

    /// The pre-tokenizer pattern string.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// A matcher for the named special tokens; errors on a name the vocabulary lacks.
    pub fn special_matcher(&self, names: &[String]) -> Result<SpecialMatcher, CoreError> {
        let mut v = Vec::with_capacity(names.len());
        for name in names {
            match self.vocab.special_id(name) {
                Some(id) => v.push((name.clone(), id)),
                None => return Err(CoreError::Input(format!("{name:?} is not a special token of this encoding"))),
            }
        }
        SpecialMatcher::new(v)
    }

    /// Encodes `text` with no special-token handling at all.
    pub fn encode_ordinary(&self, text: &str) -> Result<Vec<Rank>, CoreError> {
        self.encode_with(text, None, &mut Scratch::default())
    }

    /// `encode` (or `encode_ordinary` when `allowed` is `None`) with caller-provided working
    /// memory: a batch that passes the same `scratch` for its documents shares one cache of
    /// merged pieces across them.
    pub fn encode_with(
        &self,
        text: &str,
        allowed: Option<&SpecialMatcher>,
        scratch: &mut Scratch,
    ) -> Result<Vec<Rank>, CoreError> {
        let mut out = crate::zeroed::output_vec(text.len() / 3 + 1);
        self.encode_onto(text, allowed, scratch, &mut out)?;
        Ok(out)
    }

    /// `encode_with` appending to `out`: for a batch whose documents' ids go into one
    /// buffer, with no vector of their own to copy from.
    pub fn encode_onto(
        &self,
        text: &str,
        allowed: Option<&SpecialMatcher>,
        scratch: &mut Scratch,
        out: &mut Vec<Rank>,
    ) -> Result<(), CoreError> {
        for_each_segment(text, allowed, |_, seg| match seg {
            Segment::Text(t) => self.encode_segment(t, out, scratch),
            Segment::Special(id) => {
                out.push(id);
                Ok(())
            }
        })
    }

    /// `encode_ordinary` of one large text on up to `threads` threads: the text is cut at
    /// points where cutting provably leaves the encoding unchanged, the parts are encoded in
    /// parallel and concatenated, so the result equals the sequential one.
    ///
    /// The cut rule, for the three known patterns only: between an ASCII letter and a
    /// following space, tab, CR or LF. No piece of those patterns spans it: a letter run never
    /// takes whitespace after it, and a whitespace run's pieces depend only on what follows
    /// it. (`\s++$` cannot fire at the end of the left part, which ends in a letter.) Custom
    /// patterns, small texts and texts without such points are encoded sequentially.
    pub fn encode_ordinary_parallel(&self, text: &str, threads: usize) -> Result<Vec<Rank>, CoreError> {
        match self.parallel_parts(text, threads) {
            Some(parts) => {
                // One working memory per thread, not per part: a part does not start with a
                // cold cache of merged pieces when its thread has already encoded another.
                let ids = parallel_map_join(&parts, threads, text.len() / 3 + 1, |scratch: &mut Scratch, p: &&str| {
                    self.encode_with(p, None, scratch).map(Some)
                })?;
                Ok(ids.unwrap_or_default())
            }
            None => self.encode_ordinary(text),
        }
    }

    /// `encode_ordinary_parallel` of a text given as code units (a Python `str`'s own
    /// storage), after checking it for `disallowed` specials: the text is cut at the points
    /// `safe_cuts_units` uses, and each part is turned into UTF-8 by the thread that encodes
    /// it, in a buffer that thread reuses; on one thread, the parts are encoded in turn. `Ok(None)`
    /// when this path does not apply or cannot say what is wrong: a small text, a custom
    /// pattern, a disallowed special that holds whitespace (it could span a cut), or a part
    /// with a lone surrogate or a disallowed special; the caller then takes the UTF-8 path,
    /// which gives the same ids or reports the problem with its offset.
    ///
    /// Why: the UTF-8 form of a whole large text was a serial step before any thread started,
    /// and its buffer (16 MB for 16 MB of text) was fresh memory faulted in page by page: with
    /// it two threads were 1.5x one on 16 MB of mixed text. On one thread, that buffer was
    /// faulted in again on every call (857 page faults for 3.5 MB of prose with one curly
    /// quote), and written out of the CPU's caches before the pre-tokenizer read it back; a
    /// part of `SEQUENTIAL_PART` units stays in the L2 cache.
    pub fn encode_units(
        &self,
        units: Units<'_>,
        disallowed: Option<&SpecialMatcher>,
        threads: usize,
    ) -> Result<Option<Vec<Rank>>, CoreError> {
        if threads <= 1 {
            // Room for a token per character (English takes about one per four, CJK about
            // one), up to 64M: pages reserved and never written cost nothing. Why not less:
            // grown by doubling, the output of 1M random letters (a token per character) was
            // faulted in anew on every call, 3,848 pages (1.3x the time); and a pass over the
            // units to count their UTF-8 bytes read 4 MB of UCS-4 text from memory again.
            let out = crate::zeroed::output_vec((units.len() + 1).min(1 << 26));
            return self
                .units_in_turn(units, disallowed, out, |part, scratch, out| self.encode_segment(part, out, scratch));
        }
        let Some(ranges) = self.unit_parts(units, disallowed, threads) else { return Ok(None) };
        // Room for a token per character, as above (a part's own room is ordinary memory: it
        // is copied into the joined vector and freed).
        parallel_map_join(&ranges, threads, (units.len() + 1).min(1 << 26), |(scratch, buf), &range| {
            let out = Vec::with_capacity(range.1 - range.0 + 1);
            in_l2_parts(units, range, disallowed, buf, scratch, out, |part, scratch, out| {
                self.encode_segment(part, out, scratch)
            })
        })
    }

    /// `count` (ordinary text) of a text given as code units, as `encode_units` encodes it
    /// (the same `None` cases).
    pub fn count_units(
        &self,
        units: Units<'_>,
        disallowed: Option<&SpecialMatcher>,
        threads: usize,
    ) -> Result<Option<usize>, CoreError> {
        if threads <= 1 {
            return self.units_in_turn(units, disallowed, 0, |part, scratch, n| {
                *n += self.count_segment(part, scratch)?;
                Ok(())
            });
        }
        let Some(ranges) = self.unit_parts(units, disallowed, threads) else { return Ok(None) };
        let parts = parallel_map_with(&ranges, threads, |(scratch, buf): &mut (Scratch, String), &range| {
            in_l2_parts(units, range, disallowed, buf, scratch, 0, |part, scratch, n| {
                *n += self.count_segment(part, scratch)?;
                Ok(())
            })
        })?;
        Ok(parts.into_iter().sum())
    }

    /// `f` of each part of `units`, in order, on this thread (`in_l2_parts` over all of
    /// them), with `acc`; or `None`.
    fn units_in_turn<T>(
        &self,
        units: Units<'_>,
        disallowed: Option<&SpecialMatcher>,
        acc: T,
        f: impl FnMut(&str, &mut Scratch, &mut T) -> Result<(), CoreError>,
    ) -> Result<Option<T>, CoreError> {
        if units.len() < 2 * SEQUENTIAL_PART || !self.pretokenizer.is_fast() || disallowed.is_some_and(spans_cut) {
            return Ok(None);
        }
        let (mut buf, mut scratch) = (String::new(), Scratch::default());
        in_l2_parts(units, (0, units.len()), disallowed, &mut buf, &mut scratch, acc, f)
    }

    /// The ranges of units that the parallel paths of `encode_units` and `count_units` cut a
    /// text into, or `None` (see `encode_units`).
    fn unit_parts(
        &self,
        units: Units<'_>,
        disallowed: Option<&SpecialMatcher>,
        threads: usize,
    ) -> Option<Vec<(usize, usize)>> {
        // Units, not bytes: the parts are a little smaller than for the same text in UTF-8.
        let n_parts = self.part_count(units.len(), threads).filter(|_| !disallowed.is_some_and(spans_cut))?;
        let cuts = safe_cuts_units(units, n_parts);
        Some(cuts.windows(2).map(|w| (w[0], w[1])).collect())
    }

    /// The parts `encode_ordinary_parallel` encodes separately, or `None` to encode `text`
    /// whole (one thread, a small text, a custom pattern).
    fn parallel_parts<'t>(&self, text: &'t str, threads: usize) -> Option<Vec<&'t str>> {
        let cuts = safe_cuts(text, self.part_count(text.len(), threads)?);
        Some(cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect())
    }

    /// How many parts a text of `len` bytes (or units) is cut into for `threads` threads, or
    /// `None` to encode it whole (one thread, a small text, a custom pattern).
    fn part_count(&self, len: usize, threads: usize) -> Option<usize> {
        // Below this a second thread gained nothing (150 KB: 0.90-1.18x on two threads).
        const PARALLEL_MIN: usize = 256 * 1024;
        const MIN_PART: usize = 64 * 1024;
        if threads <= 1 || len < PARALLEL_MIN || !self.pretokenizer.is_fast() {
            return None;
        }
        // More parts than threads, so that uneven parts still keep every thread busy: a
        // thread that takes the last part leaves the others idle until it is done, for half a
        // part on average. Why 32 a thread, not 16: 16 MB of English and fr/ja/zh on two
        // threads ran 1.03-1.04x faster (`par_encode ALT`, three runs of 20 rounds, faster in
        // 16-18 of 20); 64 a thread of half the size gained no more. Why parts as small as
        // 64 KB, and a multiple of the threads: with 256 KB parts a 1.5 MB text had five, three
        // for one thread and two for the other, and at most 1.67x (session 38: two threads on
        // 0.6-1.5 MB of English and code went from 1.51-1.55x to 1.60-1.71x, medians of five
        // processes each).
        let n = (threads * 32).min(len / MIN_PART);
        Some((n - n % threads).max(threads))
    }

    /// Number of tokens `encode(text, allowed)` would give (ordinary text if `allowed` is
    /// `None`), without keeping them: no output array, so it is never slower than encoding.
    pub fn count(&self, text: &str, allowed: Option<&SpecialMatcher>, threads: usize) -> Result<usize, CoreError> {
        match allowed {
            Some(a) if !a.is_empty() => {
                let (mut n, mut scratch) = (0, Scratch::default());
                for_each_segment(text, Some(a), |_, seg| {
                    n += match seg {
                        Segment::Text(t) => self.count_segment(t, &mut scratch)?,
                        Segment::Special(_) => 1,
                    };
                    Ok(())
                })?;
                Ok(n)
            }
            _ => match self.parallel_parts(text, threads) {
                Some(parts) => Ok(parallel_map_with(&parts, threads, |scratch: &mut Scratch, p: &&str| {
                    self.count_segment(p, scratch)
                })?
                .iter()
                .sum()),
                None => self.count_segment(text, &mut Scratch::default()),
            },
        }
    }

    /// Why through `encode_segment`'s piece loop (`CountSink`): with a closure per piece,
    /// which packed each piece with branches on its length and was not inlined into the
    /// matchers' loops, `count` ran at 0.76-0.83x encoding's speed on prose and code (cl100k
    /// and o200k, 1 MB, warm); now at 0.98-1.01x.
    fn count_segment(&self, text: &str, scratch: &mut Scratch) -> Result<usize, CoreError> {
        let (bytes, out) = (text.as_bytes(), &mut Vec::new());
        let n = if let Some(lines) = self.batch_table() {
            // SAFETY: `batch_table` checked the CPU.
            let mut sink =
                CountSink { inner: unsafe { BatchSink::new(&self.vocab, lines, bytes, out, scratch) }, n: 0 };
            self.pretokenizer.for_each_piece_into(text, &mut sink)?;
            sink.inner.finish();
            sink.n + sink.inner.out.len()
        } else {
            let mut sink = CountSink { inner: EncodeSink { vocab: &self.vocab, bytes, out, scratch }, n: 0 };
            self.pretokenizer.for_each_piece_into(text, &mut sink)?;
            sink.n + sink.inner.out.len()
        };
        scratch.finish(&self.vocab);
        Ok(n)
    }

    /// Appends the tokens of a special-free segment; `scratch` is the call's working memory,
    /// shared by its segments. On a CPU with AVX-512 the pieces are looked up a batch at a
    /// time (`batch`), else one by one as they come (`EncodeSink`); the tokens are the same.
    #[inline]
    pub fn encode_segment(&self, text: &str, out: &mut Vec<Rank>, scratch: &mut Scratch) -> Result<(), CoreError> {
        self.encode_segment_using(text, out, scratch, true)
    }

    /// The table of the batched piece loop (`batch`), if this CPU runs it and the vocabulary
    /// was built for it (a `LineTable`).
    #[inline]
    fn batch_table(&self) -> Option<&LineTable> {
        self.vocab.short_table().lines().filter(|_| wide_cpu())
    }

    /// `encode_segment`, batched (where `batch_table` allows) or not.
    #[inline]
    fn encode_segment_using(
        &self,
        text: &str,
        out: &mut Vec<Rank>,
        scratch: &mut Scratch,
        batched: bool,
    ) -> Result<(), CoreError> {
        if let Some(lines) = self.batch_table().filter(|_| batched) {
            // SAFETY: `batch_table` checked the CPU.
            let mut sink = unsafe { BatchSink::new(&self.vocab, lines, text.as_bytes(), out, scratch) };
            self.pretokenizer.for_each_piece_into(text, &mut sink)?;
            sink.finish();
        } else {
            let mut sink = EncodeSink { vocab: &self.vocab, bytes: text.as_bytes(), out, scratch };
            self.pretokenizer.for_each_piece_into(text, &mut sink)?;
        }
        scratch.finish(&self.vocab);
        Ok(())
    }

    /// Fails with `DisallowedSpecial` if `text` contains any token of `disallowed`.
    pub fn check_disallowed(&self, text: &str, disallowed: &SpecialMatcher) -> Result<(), CoreError> {
        match disallowed.find_token(text) {
            Some((start, token)) => Err(CoreError::DisallowedSpecial { token: token.to_string(), start }),
            None => Ok(()),
        }
    }

    /// Encodes `text`, turning occurrences of `allowed` specials into their ids and treating
    /// every other byte as ordinary text. The disallowed check, if any, is the caller's.
    pub fn encode(&self, text: &str, allowed: &SpecialMatcher) -> Result<Vec<Rank>, CoreError> {
        self.encode_with(text, Some(allowed), &mut Scratch::default())
    }

    /// Like `encode`, plus the byte offset in `text` where each token starts.
    pub fn encode_with_byte_offsets(
        &self,
        text: &str,
        allowed: &SpecialMatcher,
    ) -> Result<(Vec<Rank>, Vec<usize>), CoreError> {
        let (mut out, mut offsets, mut scratch) = (Vec::new(), Vec::new(), Scratch::default());
        for_each_segment(text, Some(allowed), |start, seg| {
            match seg {
                Segment::Text(t) => {
                    let before = out.len();
                    self.encode_segment(t, &mut out, &mut scratch)?;
                    let mut pos = start;
                    for &t in &out[before..] {
                        offsets.push(pos);
                        pos += self.vocab.token_bytes(t as u64).map_or(0, |b| b.len());
                    }
                }
                Segment::Special(id) => {
                    out.push(id);
                    offsets.push(start);
                }
            }
            Ok(())
        })?;
        Ok((out, offsets))
    }

    /// Tokens of `bytes`, which need not be valid UTF-8 (tiktoken's `_encode_bytes` semantics):
    /// the valid prefix is encoded as text, then its last pre-token (widened over trailing
    /// whitespace tokens, whose split may move) is re-merged together with the invalid tail
    /// as one byte-level piece. `decode_bytes` of the result gives `bytes` back.
    pub fn encode_bytes(&self, bytes: &[u8]) -> Result<Vec<Rank>, CoreError> {
        let valid = match std::str::from_utf8(bytes) {
            Ok(text) => return self.encode_ordinary(text),
            Err(e) => e.valid_up_to(),
        };
        // Cannot fail: `valid_up_to` is where the valid prefix ends.
        let text = std::str::from_utf8(&bytes[..valid])
            .map_err(|e| CoreError::Internal(format!("valid UTF-8 prefix failed to decode: {e}")))?;
        let mut tokens = Vec::new();
        let mut last_piece_len = 0usize;
        let b = text.as_bytes();
        self.pretokenizer.for_each_piece(text, |s, e| {
            let before = tokens.len();
            encode_piece(&self.vocab, &b[s..e], &mut tokens);
            last_piece_len = tokens.len() - before;
        })?;
        let all_space = |t: Rank| {
            self.vocab.token_bytes(t as u64).is_some_and(|tb| tb.iter().all(|c| matches!(c, b' ' | b'\n' | b'\t')))
        };
        if last_piece_len > 0 && all_space(tokens[tokens.len() - last_piece_len]) {
            while last_piece_len < tokens.len() && all_space(tokens[tokens.len() - last_piece_len - 1]) {
                last_piece_len += 1;
            }
        }
        let mut unstable = self.vocab.decode_bytes(&tokens[tokens.len() - last_piece_len..])?;
        unstable.extend_from_slice(&bytes[valid..]);
        tokens.truncate(tokens.len() - last_piece_len);
        encode_piece(&self.vocab, &unstable, &mut tokens);
        Ok(tokens)
    }

    /// Concatenated bytes of `ids`.
    pub fn decode_bytes(&self, ids: &[Rank]) -> Result<Vec<u8>, CoreError> {
        self.vocab.decode_bytes(ids)
    }
}

/// The piece loop's body for `encode_segment`, as a `PieceSink` so that it is inlined into
/// each matcher's loop.
struct EncodeSink<'a> {
    vocab: &'a Vocab,
    bytes: &'a [u8],
    out: &'a mut Vec<Rank>,
    scratch: &'a mut Scratch,
}

impl PieceSink for EncodeSink<'_> {
    #[inline(always)]
    fn piece(&mut self, start: usize, end: usize) {
        let piece = &self.bytes[start..end];
        encode_piece_keyed(self.vocab, piece, pack_at(self.bytes, start, end), self.out, self.scratch)
    }
}

/// A sink whose tokens go to a vector (`CountSink` counts and empties it).
trait TokenSink: PieceSink {
    fn tokens(&mut self) -> &mut Vec<Rank>;
}

impl TokenSink for EncodeSink<'_> {
    #[inline(always)]
    fn tokens(&mut self) -> &mut Vec<Rank> {
        self.out
    }
}

impl TokenSink for BatchSink<'_> {
    #[inline(always)]
    fn tokens(&mut self) -> &mut Vec<Rank> {
        self.out
    }
}

/// A `TokenSink` that keeps only the number of tokens: its tokens go to a small buffer that
/// is counted and emptied as it fills, so memory stays at 16 KiB plus one batch's tokens,
/// whatever the text's length.
struct CountSink<S> {
    inner: S,
    /// Tokens counted and dropped so far.
    n: usize,
}

impl<S> CountSink<S> {
    /// Tokens the buffer holds before it is counted and emptied (16 KiB).
    const FLUSH: usize = 4096;
}

impl<S: TokenSink> PieceSink for CountSink<S> {
    #[inline(always)]
    fn piece(&mut self, start: usize, end: usize) {
        self.inner.piece(start, end);
        self.count();
    }

    #[inline(always)]
    fn pieces_ending<const VBMI2: bool>(&mut self, pos: usize, ends: u64) -> usize {
        let last = self.inner.pieces_ending::<VBMI2>(pos, ends);
        self.count();
        last
    }
}

impl<S: TokenSink> CountSink<S> {
    /// Counts and empties the buffer once it holds `FLUSH` tokens.
    #[inline(always)]
    fn count(&mut self) {
        let out = self.inner.tokens();
        if out.len() >= Self::FLUSH {
            self.n += out.len();
            out.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{mix, pack};

    #[test]
    fn a_call_leaves_every_word_it_merged_in_the_encoders_cache() {
        // Words of a, b and c over a vocabulary of their pairs: each word merges, and the
        // encoder's cache is written in batches during the call and the rest at its end.
        let mut v: Vec<(Vec<u8>, Rank)> = (0..=255u8).map(|b| (vec![b], b as Rank)).collect();
        for (i, pair) in [b"ab", b"bc", b"ca", b"aa"].iter().enumerate() {
            v.push((pair.to_vec(), 256 + i as Rank));
        }
        let words: Vec<String> = (0..300u32)
            .map(|i| {
                (0..7).map(|j| ['a', 'b', 'c'][((i * 7 + j * j + i / 3 + j * i) % 3) as usize]).collect::<String>()
                    + &i.to_string()
            })
            .collect();
        for n in [3, 300] {
            for count in [false, true] {
                let core = CoreBpe::new(v.clone(), vec![], r"[a-c]+|[0-9]|\s+").unwrap();
                let text = words[..n].join(" ");
                if count {
                    core.count(&text, None, 1).unwrap();
                } else {
                    core.encode_ordinary(&text).unwrap();
                }
                let letters: Vec<&[u8]> =
                    words[..n].iter().map(|w| w.trim_end_matches(|c: char| c.is_ascii_digit()).as_bytes()).collect();
                // The cache is two-way: a word may lose its slot to two others of its set.
                let set = |w: &[u8]| ((mix(pack(w).unwrap()) >> 32) as usize % core.vocab.shared_cache().slots()) / 2;
                for &w in &letters {
                    let (key, mut got, mut want) = (pack(w).unwrap(), Vec::new(), Vec::new());
                    encode_piece(&core.vocab, w, &mut want);
                    if core.vocab.shared_cache().get(key, mix(key), &mut got) {
                        assert_eq!(got, want);
                    } else {
                        let mut rivals: Vec<&[u8]> =
                            letters.iter().copied().filter(|&o| o != w && set(o) == set(w)).collect();
                        rivals.sort();
                        rivals.dedup();
                        assert!(rivals.len() >= 2, "{w:?} not cached (n {n})");
                    }
                }
            }
        }
    }

    #[test]
    fn the_batched_piece_loop_gives_the_one_by_one_loops_tokens() {
        // Random words of 1 to 9 parts, up to 27 bytes (ASCII, two- and three-byte
        // characters), in texts of 0 to 2,100 words (batches of 256 pieces, the last ones
        // within 16 bytes of the end), over a vocabulary of the bytes and of words and halves
        // of words up to 20 bytes (some pieces whole-token hits, some not, some past the 15
        // bytes of a key), in the CPU's kind of table (twice: caches cold and warm) and in a
        // `ShortKeyTable`. On a CPU without AVX-512 every call takes the one-by-one loop over a
        // `ShortKeyTable`.
        let mut rng = crate::testing::xorshift(0x2545_F491_4F6C_DD1D);
        let mut next = move |m: u64| rng() % m;
        let parts = ["a", "b", "e", "th", "\u{e9}", "\u{65e5}", "0", "1", "'s", ".", ",", "\n", " ", "  "];
        let mut word = |len: u64| (0..len).map(|_| parts[next(parts.len() as u64) as usize]).collect::<String>();
        let mut v: Vec<(Vec<u8>, Rank)> = (0..=255u8).map(|b| (vec![b], b as Rank)).collect();
        let mut seen = std::collections::HashSet::new();
        for i in 0..3000 {
            let w = word(1 + i % 12);
            let t = w.trim_start().as_bytes();
            for t in [t, &t[..t.len() / 2]] {
                if t.len() > 1 && t.len() <= 20 && seen.insert(t.to_vec()) {
                    v.push((t.to_vec(), v.len() as Rank));
                }
            }
        }
        let core = CoreBpe::new(v.clone(), vec![], crate::pretokenize::CL100K_PAT).unwrap();
        // The same vocabulary in a `ShortKeyTable`, the table of CPUs without AVX-512.
        crate::table::tests::NARROW.store(true, std::sync::atomic::Ordering::Relaxed);
        let narrow = CoreBpe::new(v, vec![], crate::pretokenize::CL100K_PAT).unwrap();
        crate::table::tests::NARROW.store(false, std::sync::atomic::Ordering::Relaxed);
        assert!(narrow.vocab.short_table().lines().is_none());
        // Also texts whose blocks hold many pieces (`"1."`: 63 pieces of one byte to a block,
        // which the batch takes at once), at lengths around a batch's fill.
        let dense = ["1.", "a ", "1.a b", "12,"]
            .iter()
            .flat_map(|p| [1, 31, 32, 33, 100, 191, 192, 193, 300, 1000].map(|k| (p.repeat(k), k)));
        let texts = [0, 1, 7, 8, 9, 255, 256, 257, 600, 2100]
            .into_iter()
            .map(|n| ((0..n).map(|i| word(1 + (i as u64 * 7 + n as u64) % 9)).collect::<String>(), n))
            .chain(dense)
            .collect::<Vec<_>>();
        for (body, n) in texts {
            for tail in ["", "x", "abcdefghijklmnopq", " \u{e9}t\u{e9}"] {
                let text = body.clone() + tail;
                let (mut batched, mut one_by_one, mut slots) = (Vec::new(), Vec::new(), Vec::new());
                core.encode_segment_using(&text, &mut batched, &mut Scratch::default(), true).unwrap();
                core.encode_segment_using(&text, &mut one_by_one, &mut Scratch::default(), false).unwrap();
                narrow.encode_segment_using(&text, &mut slots, &mut Scratch::default(), true).unwrap();
                // Again, now that the encoder's caches hold this text's merged pieces, short
                // and long: the batched loop reads their lines ahead of its merges.
                let mut again = Vec::new();
                core.encode_segment_using(&text, &mut again, &mut Scratch::default(), true).unwrap();
                assert_eq!(batched, one_by_one, "{n} words, tail {tail:?}");
                assert_eq!(again, one_by_one, "{n} words, tail {tail:?}, caches warm");
                assert_eq!(slots, one_by_one, "{n} words, tail {tail:?}");
                assert_eq!(core.count(&text, None, 1).unwrap(), one_by_one.len());
                assert_eq!(narrow.count(&text, None, 1).unwrap(), one_by_one.len());
            }
        }
    }

    #[test]
    fn code_units_encode_part_by_part_as_utf8_does() {
        // Texts of each code unit width, long enough for several parts, on one thread (the
        // parts in turn) and two; then the cases the caller must take the UTF-8 path for.
        let mut v: Vec<(Vec<u8>, Rank)> = (0..=255u8).map(|b| (vec![b], b as Rank)).collect();
        for (i, t) in ["ab", " ab", "\u{e9}", "\u{65e5}", "\u{1f600}"].iter().enumerate() {
            v.push((t.as_bytes().to_vec(), 256 + i as Rank));
        }
        let core = CoreBpe::new(v, vec![("<|x y|>".into(), 1000)], crate::pretokenize::CL100K_PAT).unwrap();
        let text: String = (0..400_000)
            .map(|i| ["ab ", "caf\u{e9} ", "\u{65e5}\u{672c}", "\u{1f600}\n"][i % 4 % (1 + i / 100_000)])
            .collect();
        let latin1: Vec<u8> = text.chars().filter(|&c| (c as u32) < 256).map(|c| c as u8).collect();
        let ucs2: Vec<u16> = text.chars().filter(|&c| (c as u32) < 0x1_0000).map(|c| c as u16).collect();
        let ucs4: Vec<u32> = text.chars().map(|c| c as u32).collect();
        let utf8 = |u: Units| {
            let mut s = String::new();
            push_utf8(u, &mut s).unwrap();
            s
        };
        // No cut point, one outside the windows searched (one part either way), one inside
        // (two parts).
        let cjk: Vec<u16> = "\u{65e5}\u{672c}".encode_utf16().cycle().take(3 * SEQUENTIAL_PART).collect();
        for at in [None, Some(SEQUENTIAL_PART + 2 * CUT_WINDOW), Some(SEQUENTIAL_PART + 10)] {
            let mut u = cjk.clone();
            if let Some(at) = at {
                u.splice(at..at, "ab ".encode_utf16());
            }
            let want = core.encode_ordinary(&utf8(Units::Ucs2(&u))).unwrap();
            assert_eq!(core.encode_units(Units::Ucs2(&u), None, 1).unwrap(), Some(want), "cut point at {at:?}");
        }
        for units in [Units::Latin1(&latin1), Units::Ucs2(&ucs2), Units::Ucs4(&ucs4)] {
            assert!(units.len() >= 2 * 256 * 1024, "long enough for threads too");
            let want = core.encode_ordinary(&utf8(units)).unwrap();
            for threads in [1, 2] {
                assert_eq!(core.encode_units(units, None, threads).unwrap().as_ref(), Some(&want));
                assert_eq!(core.count_units(units, None, threads).unwrap(), Some(want.len()));
            }
        }
        let mut lone = ucs2.clone();
        lone[SEQUENTIAL_PART + 7] = 0xd800;
        let spaced = core.special_matcher(&["<|x y|>".into()]).unwrap();
        for threads in [1, 2] {
            assert_eq!(core.encode_units(Units::Ucs2(&lone), None, threads).unwrap(), None, "a lone surrogate");
            assert_eq!(core.encode_units(Units::Ucs2(&ucs2[..1000]), None, threads).unwrap(), None, "too small");
            assert_eq!(core.encode_units(Units::Ucs2(&ucs2), Some(&spaced), threads).unwrap(), None, "spans a cut");
        }
    }

    #[test]
    fn count_is_the_number_of_tokens_encoding_gives() {
        // Texts from empty to many times `CountSink::FLUSH` tokens, with words that merge, for a
        // known pattern (the matchers' loops) and a custom one (the regex engine).
        let mut v: Vec<(Vec<u8>, Rank)> = (0..=255u8).map(|b| (vec![b], b as Rank)).collect();
        for (i, t) in [&b"ab"[..], b"bc", b"abc", b" a", b" ab", b"\n\n"].iter().enumerate() {
            v.push((t.to_vec(), 256 + i as Rank));
        }
        let words = ["abcabc", "ab", "cab", "bca", "\n\n", "x\u{e9}y", "42", "\0"];
        for pat in [crate::pretokenize::CL100K_PAT, r"[a-c]+|[0-9]|\s+|."] {
            let core = CoreBpe::new(v.clone(), vec![], pat).unwrap();
            for n in [0, 1, 10, 5_000, 30_000] {
                let text: String = (0..n).map(|i| format!(" {}", words[i * 7 % words.len()])).collect();
                let want = core.encode_ordinary(&text).unwrap().len();
                assert!(n < 5_000 || want > 2 * CountSink::<EncodeSink>::FLUSH);
                assert_eq!(core.count(&text, None, 1).unwrap(), want, "{n} words, pattern {pat:?}");
            }
        }
    }
}
