//! Counting pre-tokens for training: text in, `{pre-token bytes: count}` out.
//!
//! Texts are split on special tokens first (a special token is never part of a pre-token),
//! then pre-tokenized with the pattern's matcher. Work is spread over threads: each thread
//! counts whole texts or, for the known patterns, parts of one large text cut where cutting
//! provably changes no pre-token (`pretokenize::cuts::safe_cuts`). Counts are merged into a table
//! of 64 shards, merged in parallel too, so the result does not depend on the thread count
//! or on the order of texts.
//!
//! Memory grows with the number of distinct pre-tokens, never with the text: callers feed
//! a corpus in chunks and drop each chunk after `add_texts`.
//!
//! Counts can be written to bytes (`WordCounts::to_bytes`) and added into another counter
//! (`WordCounts::merge_bytes`), so that parts of a corpus counted elsewhere (another process,
//! a cluster task) sum to the counts of the whole. It does not move the bytes anywhere.

use std::hash::BuildHasher;
use std::sync::Mutex;

use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::error::CoreError;
use crate::parallel::{parallel_fold, parallel_map};
use crate::pretokenize::{safe_cuts, Pretokenizer};
use crate::special::{for_each_segment, Segment, SpecialMatcher};
use crate::train::merge::Control;

const SHARDS: usize = 64;
/// One shard of the total and the per-thread maps (keys borrowed or owned) to add into it.
type ShardMerge<'a, K> = (&'a mut FxHashMap<Box<[u8]>, u64>, Vec<FxHashMap<K, u64>>);
/// A thread's counts, one map per shard.
type Local<K> = Vec<FxHashMap<K, u64>>;
/// Texts above this size are cut into parts so that one large text still uses every thread.
const PART: usize = 1 << 20;

fn shard_of(word: &[u8]) -> usize {
    // The top bits: the map itself uses the low ones.
    (FxBuildHasher.hash_one(word) >> 58) as usize % SHARDS
}

/// Pre-token counts of everything added so far.
#[derive(Debug)]
pub struct WordCounts {
    shards: Vec<FxHashMap<Box<[u8]>, u64>>,
    /// UTF-8 bytes of text counted (special tokens excluded).
    pub text_bytes: u64,
    /// Number of special tokens seen (and cut out).
    pub specials_seen: u64,
}

impl Default for WordCounts {
    fn default() -> Self {
        WordCounts { shards: (0..SHARDS).map(|_| FxHashMap::default()).collect(), text_bytes: 0, specials_seen: 0 }
    }
}

impl WordCounts {
    /// Adds `count` occurrences of `word` (used for tests and for counts made elsewhere).
    pub fn add(&mut self, word: &[u8], count: u64) -> Result<(), CoreError> {
        add_count(&mut self.shards[shard_of(word)], word, count)
    }

    /// Number of distinct pre-tokens.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.len()).sum()
    }

    /// True when nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Consumes the counts, calling `f(pre-token, count)` for each; each shard's memory is
    /// freed as soon as it has been visited, so a caller building another structure from
    /// the counts never holds both in full. The order is unspecified.
    pub fn drain_each(self, mut f: impl FnMut(&[u8], u64)) {
        for shard in self.shards {
            for (w, c) in shard {
                f(&w, c);
            }
        }
    }

    /// All `(pre-token, count)` pairs, sorted by bytes (a deterministic order).
    pub fn sorted(&self) -> Vec<(&[u8], u64)> {
        let mut v: Vec<(&[u8], u64)> = self.shards.iter().flat_map(|s| s.iter().map(|(k, &c)| (&k[..], c))).collect();
        v.sort_unstable();
        v
    }

    /// The counts as bytes, in this little-endian format (version `BLOB_VERSION`):
    /// `b"TMWC"`, u32 version, u64 text bytes, u64 specials seen, u64 entry count, then per
    /// entry, sorted by word bytes: u32 word length, the word, u64 count. Sorted, so equal
    /// counts give equal bytes.
    ///
    /// Errors: `CoreError::Input` for a pre-token of 4 GiB or more (its length has 32 bits).
    pub fn to_bytes(&self) -> Result<Vec<u8>, CoreError> {
        let entries = self.sorted();
        let size = HEADER + entries.iter().map(|(w, _)| 12 + w.len()).sum::<usize>();
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(BLOB_MAGIC);
        out.extend_from_slice(&BLOB_VERSION.to_le_bytes());
        out.extend_from_slice(&self.text_bytes.to_le_bytes());
        out.extend_from_slice(&self.specials_seen.to_le_bytes());
        out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for (w, c) in entries {
            let len = u32::try_from(w.len())
                .map_err(|_| CoreError::Input(format!("a pre-token of {} bytes is too long to write", w.len())))?;
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(w);
            out.extend_from_slice(&c.to_le_bytes());
        }
        Ok(out)
    }

    /// Adds counts written by `to_bytes` into these. The whole blob is checked before
    /// anything is added, so a bad blob leaves the counts as they were (only a count
    /// overflowing 2**64, which no real corpus reaches, can stop a merge halfway).
    ///
    /// Errors: `CoreError::Input` naming what is wrong (not a word-count blob, another
    /// version, truncated, unsorted entries, trailing bytes) or a count overflowing 2**64.
    pub fn merge_bytes(&mut self, data: &[u8]) -> Result<(), CoreError> {
        let mut r = BlobReader { data, at: 0 };
        if r.take(4, "the magic")? != BLOB_MAGIC {
            return Err(CoreError::Input("not a tokenmill word-count blob (no TMWC magic)".into()));
        }
        let version = r.u32("the version")?;
        if version != BLOB_VERSION {
            return Err(CoreError::Input(format!(
                "word-count blob version {version} is not supported (this tokenmill reads version {BLOB_VERSION})"
            )));
        }
        let text_bytes = r.u64("the text byte count")?;
        let specials_seen = r.u64("the special token count")?;
        let n = r.u64("the entry count")?;
        // Every entry takes at least 12 bytes: a count beyond that is corrupt, and checking
        // it first keeps a bad count from reserving memory.
        if n > (r.remaining() / 12) as u64 {
            return Err(CoreError::Input(format!(
                "corrupt word-count blob: {n} entries cannot fit in the {} bytes left",
                r.remaining()
            )));
        }
        let mut entries: Vec<(&[u8], u64)> = Vec::with_capacity(n as usize);
        for i in 0..n {
            let len = r.u32("an entry's length")? as usize;
            let word = r.take(len, "an entry's bytes")?;
            let count = r.u64("an entry's count")?;
            if entries.last().is_some_and(|(prev, _)| *prev >= word) {
                return Err(CoreError::Input(format!("corrupt word-count blob: entry {i} is out of order")));
            }
            entries.push((word, count));
        }
        if r.remaining() != 0 {
            return Err(CoreError::Input(format!("corrupt word-count blob: {} trailing bytes", r.remaining())));
        }
        let overflow = || CoreError::Input("a count overflowed 2**64 while merging word counts".into());
        self.text_bytes = self.text_bytes.checked_add(text_bytes).ok_or_else(overflow)?;
        self.specials_seen = self.specials_seen.checked_add(specials_seen).ok_or_else(overflow)?;
        for (w, c) in entries {
            self.add(w, c)?;
        }
        Ok(())
    }

    /// Counts the pre-tokens of `texts` (each pre-tokenized on its own) on up to `threads`
    /// threads. `specials` are cut out first. Checks `control.cancel` between parts.
    pub fn add_texts<'t>(
        &mut self,
        texts: &[&'t str],
        pre: &Pretokenizer,
        specials: Option<&SpecialMatcher>,
        threads: usize,
        control: &Control,
    ) -> Result<(), CoreError> {
        // Work items: special-free segments, large ones cut into parts.
        let cut = threads > 1 && pre.is_fast();
        let mut items: Vec<&'t str> = Vec::new();
        for &text in texts {
            for_each_segment(text, specials, |_, seg| {
                match seg {
                    Segment::Text(t) => push_segment(t, &mut items, cut),
                    Segment::Special(_) => self.specials_seen += 1,
                }
                Ok(())
            })?;
        }
        self.text_bytes += items.iter().map(|s| s.len() as u64).sum::<u64>();

        let locals = parallel_fold(
            &items,
            threads,
            || -> Local<&[u8]> { (0..SHARDS).map(|_| FxHashMap::default()).collect() },
            |map, seg| {
                control.check()?;
                count_into(pre, map, seg)
            },
        )?;
        self.absorb(locals, threads)
    }

    /// Counts the words `words_of(item, scratch, emit)` emits for each of `items`, on up to
    /// `threads` threads, each with its own `scratch` (`S::default()`). For pre-tokenizers
    /// whose words are not slices of the input (BERT's normalizes first), so the per-thread
    /// maps own their keys. Checks `control.cancel` between items.
    pub fn add_owned<T: Sync, S: Default + Send>(
        &mut self,
        items: &[T],
        threads: usize,
        control: &Control,
        words_of: impl Fn(&T, &mut S, &mut dyn FnMut(&[u8])) + Sync,
    ) -> Result<(), CoreError> {
        let locals = parallel_fold(
            items,
            threads,
            || -> (Local<Box<[u8]>>, S) { ((0..SHARDS).map(|_| FxHashMap::default()).collect(), S::default()) },
            |(map, scratch), item| {
                control.check()?;
                words_of(item, scratch, &mut |w: &[u8]| {
                    let shard = &mut map[shard_of(w)];
                    match shard.get_mut(w) {
                        Some(c) => *c += 1,
                        None => {
                            shard.insert(w.into(), 1);
                        }
                    }
                });
                Ok(())
            },
        )?;
        self.absorb(locals.into_iter().map(|(m, _)| m).collect(), threads)
    }

    /// Adds per-thread counts into the total, shard by shard in parallel (shards are
    /// disjoint, so threads never share a map).
    fn absorb<K: AsRef<[u8]> + Send>(&mut self, locals: Vec<Local<K>>, threads: usize) -> Result<(), CoreError> {
        let mut per_shard: Vec<Vec<FxHashMap<K, u64>>> = (0..SHARDS).map(|_| Vec::new()).collect();
        for local in locals {
            for (k, m) in local.into_iter().enumerate() {
                per_shard[k].push(m);
            }
        }
        let work: Vec<Mutex<ShardMerge<K>>> = self.shards.iter_mut().zip(per_shard).map(Mutex::new).collect();
        parallel_map(&work, threads, |cell| {
            let mut guard =
                cell.lock().map_err(|_| CoreError::Internal("a count shard lock was poisoned by a panic".into()))?;
            let (dst, srcs) = &mut *guard;
            for src in srcs.drain(..) {
                for (w, c) in src {
                    add_count(dst, w.as_ref(), c)?;
                }
            }
            Ok(())
        })?;
        Ok(())
    }
}

/// The tag and version of `WordCounts::to_bytes`'s format.
const BLOB_MAGIC: &[u8; 4] = b"TMWC";
const BLOB_VERSION: u32 = 1;
/// Magic, version, text bytes, specials seen, entry count.
const HEADER: usize = 4 + 4 + 8 + 8 + 8;

/// Reads a word-count blob front to back; every read checks the length left first.
struct BlobReader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> BlobReader<'a> {
    fn remaining(&self) -> usize {
        self.data.len() - self.at
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], CoreError> {
        if n > self.remaining() {
            return Err(CoreError::Input(format!(
                "truncated word-count blob: {what} needs {n} bytes at offset {}, {} left",
                self.at,
                self.remaining()
            )));
        }
        let s = &self.data[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    fn u32(&mut self, what: &str) -> Result<u32, CoreError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self, what: &str) -> Result<u64, CoreError> {
        let b = self.take(8, what)?;
        Ok(u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }
}

/// `dst[word] += count`, checking for overflow.
fn add_count(dst: &mut FxHashMap<Box<[u8]>, u64>, word: &[u8], count: u64) -> Result<(), CoreError> {
    match dst.get_mut(word) {
        Some(c) => {
            *c = c.checked_add(count).ok_or_else(|| CoreError::Input("a pre-token count overflowed 2**64".into()))?
        }
        None => {
            dst.insert(word.into(), count);
        }
    }
    Ok(())
}

/// Adds `seg` to the work items, cut into parts of about `PART` bytes when `cut` allows.
fn push_segment<'t>(seg: &'t str, items: &mut Vec<&'t str>, cut: bool) {
    if cut && seg.len() > 2 * PART {
        let cuts = safe_cuts(seg, seg.len() / PART);
        items.extend(cuts.windows(2).map(|w| &seg[w[0]..w[1]]));
    } else if !seg.is_empty() {
        items.push(seg);
    }
}

/// Counts the pre-tokens of `seg` into `map` (one map per shard).
fn count_into<'t>(pre: &Pretokenizer, map: &mut [FxHashMap<&'t [u8], u64>], seg: &'t str) -> Result<(), CoreError> {
    let b = seg.as_bytes();
    pre.for_each_piece(seg, |s, e| {
        let w = &b[s..e];
        *map[shard_of(w)].entry(w).or_insert(0) += 1;
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pretokenize::CL100K_PAT;

    #[test]
    fn counts_do_not_depend_on_threads() {
        let pre = Pretokenizer::new(CL100K_PAT).unwrap();
        let text = "Hello world, hello again.\n  x = 1234567;\n".repeat(200_000);
        let specials = SpecialMatcher::new(vec![("<|endoftext|>".into(), 0)]).unwrap();
        let docs = [text.as_str(), "a<|endoftext|>b <|endoftext|>"];
        let mut one = WordCounts::default();
        one.add_texts(&docs, &pre, Some(&specials), 1, &Control::default()).unwrap();
        let mut two = WordCounts::default();
        two.add_texts(&docs, &pre, Some(&specials), 2, &Control::default()).unwrap();
        assert_eq!(one.sorted(), two.sorted());
        assert_eq!(one.specials_seen, 2);
        assert_eq!(one.text_bytes, two.text_bytes);
        assert!(one.sorted().iter().all(|(w, _)| !w.windows(2).any(|p| p == b"<|")));
    }

    fn counts_of(texts: &[&str]) -> WordCounts {
        let pre = Pretokenizer::new(CL100K_PAT).unwrap();
        let specials = SpecialMatcher::new(vec![("<|endoftext|>".into(), 0)]).unwrap();
        let mut c = WordCounts::default();
        c.add_texts(texts, &pre, Some(&specials), 1, &Control::default()).unwrap();
        c
    }

    #[test]
    fn bytes_round_trip_and_merged_parts_equal_the_whole() {
        let (a, b) = ("Hello world, hello again.<|endoftext|>", "x = 1234567; héllo wörld\n");
        let whole = counts_of(&[a, b]);
        let mut merged = WordCounts::default();
        merged.merge_bytes(&counts_of(&[a]).to_bytes().unwrap()).unwrap();
        merged.merge_bytes(&counts_of(&[b]).to_bytes().unwrap()).unwrap();
        assert_eq!(merged.sorted(), whole.sorted());
        assert_eq!((merged.text_bytes, merged.specials_seen), (whole.text_bytes, whole.specials_seen));
        assert_eq!(merged.to_bytes().unwrap(), whole.to_bytes().unwrap());
        let empty = WordCounts::default().to_bytes().unwrap();
        assert_eq!(empty.len(), HEADER);
        let mut e = WordCounts::default();
        e.merge_bytes(&empty).unwrap();
        assert!(e.is_empty());
    }

    #[test]
    fn bad_blobs_are_errors_and_change_nothing() {
        let good = counts_of(&["Hello world, hello again."]).to_bytes().unwrap();
        let err = |blob: &[u8]| {
            let mut c = counts_of(&["kept"]);
            let before = c.to_bytes().unwrap();
            let e = c.merge_bytes(blob).unwrap_err().to_string();
            assert_eq!(c.to_bytes().unwrap(), before, "{e}");
            e
        };
        // Every truncation, and every single-byte corruption, is an error or a valid blob: never a panic.
        for n in 0..good.len() {
            assert!(err(&good[..n]).contains("word-count blob"), "{n}");
        }
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0xff;
            let _ = WordCounts::default().merge_bytes(&bad);
        }
        assert!(err(b"XXXX").contains("no TMWC magic"));
        let mut v2 = good.clone();
        v2[4] = 2;
        assert!(err(&v2).contains("version 2 is not supported"));
        let mut huge = good[..HEADER].to_vec();
        huge[HEADER - 8..].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(err(&huge).contains("cannot fit"));
        let mut long = good.clone();
        long.push(0);
        assert!(err(&long).contains("trailing"));
        let mut unsorted = WordCounts::default().to_bytes().unwrap();
        unsorted[HEADER - 8..].copy_from_slice(&2u64.to_le_bytes());
        for w in [b"b", b"a"] {
            unsorted.extend_from_slice(&1u32.to_le_bytes());
            unsorted.extend_from_slice(w);
            unsorted.extend_from_slice(&1u64.to_le_bytes());
        }
        assert!(err(&unsorted).contains("out of order"));
        let mut over = counts_of(&["a"]);
        let mut one = WordCounts::default();
        one.add(b"a", u64::MAX).unwrap();
        assert!(over.merge_bytes(&one.to_bytes().unwrap()).unwrap_err().to_string().contains("overflowed"));
    }
}
