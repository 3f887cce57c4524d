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
}
