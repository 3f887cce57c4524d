//! Unigram training the SentencePiece way (`unigram_model_trainer`), over distinct words.
//!
//! The algorithm and its rules are specified by the Python reference
//! `tokenmill._reference.train_unigram` (read its module docstring first); in short: words are
//! the space-separated tokens of each line with a `▁` prefix; the required characters cover
//! `character_coverage` of character occurrences (others become `▅`); seed pieces are the
//! characters plus the best `seed_size` right-maximal substrings by `frequency * length`;
//! then rounds of EM (Bayesian M-step, `digamma`) and likelihood-loss pruning down to
//! `1.1 * vocab_size`; then the final vocabulary, required characters always in.
//!
//! How this is fast and bounded:
//! * Seeds come from a suffix sort of the distinct words, not of the corpus: each suffix is
//!   compared on at most `max_piece_length + 1` characters (longer pieces are not valid), with
//!   word ends acting as unique sentinels; the LCP intervals of that order are the suffix-tree
//!   nodes, their word-count-weighted sizes the frequencies. Memory is linear in the distinct
//!   words' characters, not the corpus.
//! * Each word's lattice (the pieces starting at each character) is found once with a trie
//!   over the seeds and then only filtered as pieces go (pieces never come back), so later EM
//!   rounds do no dictionary lookups.
//! * E-step and Viterbi run over words on scoped threads (`parallel`). Expected counts are
//!   summed in fixed point (units of 2^-24, in `u64`), so their sum does not depend on the
//!   order of additions: the result is the same for every thread count.
//!
//! Characters are renumbered densely in code point order (so sorting by ids is sorting by
//! strings); `▅` gets the last id and is never part of a piece.
//!
//! Normalization: identity by default; or any sentencepiece normalizer (`spm::normalizer`, e.g.
//! the `nmt_nfkc` charsmap taken from an existing model) applied to each line before words are
//! split, as sentencepiece's trainer does.
//!
//! Not here: reading files (the caller feeds text blocks to `UnigramWords`), the `.model`
//! writer, sentence sampling, `treat_whitespace_as_suffix`.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};
use rustc_hash::FxHashMap;
use unicode_categories::UnicodeCategories;

use crate::error::CoreError;
use crate::parallel::{parallel_fold, parallel_map};
use crate::spm::normalizer::Normalizer;
use crate::train::merge::Control;

/// The visible space that starts every word.
pub const SPACE: char = '\u{2581}';
/// Stands for a character outside the required ones; never part of a piece.
const UNK_CHAR: char = '\u{2585}';
const UNK_PENALTY: f64 = 10.0;
/// Fixed-point unit of expected counts: 2^24 steps per count.
const FIXED: f64 = (1u64 << 24) as f64;
/// Edge id of an unknown-character node (fits `ID_MASK`).
const UNK_EDGE: u32 = (1 << 31) - 1;
/// Words per work item: large enough to amortise scheduling, small enough to balance.
const WORDS_PER_ITEM: usize = 2048;

/// The kind of a vocabulary entry, as sentencepiece's `ModelProto.SentencePiece.Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceKind {
    Normal,
    Unknown,
    Control,
    UserDefined,
    Byte,
}

impl PieceKind {
    /// The number sentencepiece's `.model` files use for this kind.
    pub fn sentencepiece_type(self) -> i32 {
        match self {
            PieceKind::Normal => 1,
            PieceKind::Unknown => 2,
            PieceKind::Control => 3,
            PieceKind::UserDefined => 4,
            PieceKind::Byte => 6,
        }
    }
}

/// Training options; the defaults are sentencepiece's.
#[derive(Debug, Clone)]
pub struct UnigramOptions {
    /// Size of the result, meta pieces (unknown, control, user-defined, bytes) included.
    pub vocab_size: usize,
    /// Share of character occurrences the required characters cover, in [0.98, 1].
    pub character_coverage: f64,
    /// The longest piece, in characters.
    pub max_piece_length: usize,
    /// How many substrings seed EM.
    pub seed_size: usize,
    /// Share of pieces one pruning round keeps, in (0, 1).
    pub shrinking_factor: f64,
    /// EM iterations per round.
    pub num_sub_iterations: usize,
    /// The unknown piece (id 0).
    pub unk_piece: String,
    /// Begin- and end-of-sentence pieces (ids 1 and 2 when present).
    pub bos_piece: Option<String>,
    pub eos_piece: Option<String>,
    /// Pieces that only get ids (after bos/eos).
    pub control_symbols: Vec<String>,
    /// Pieces kept whole; `UnigramWords` cuts them out of the training words.
    pub user_defined_symbols: Vec<String>,
    /// Add the 256 byte pieces `<0x00>`..`<0xFF>` after the user-defined symbols.
    pub byte_fallback: bool,
    /// No piece mixes Unicode scripts.
    pub split_by_unicode_script: bool,
    /// Digits are a script of their own (else they join any script).
    pub split_by_number: bool,
    /// A digit is always a piece alone.
    pub split_digits: bool,
    /// Threads for the E-step, Viterbi and pruning (the result does not depend on it).
    pub num_threads: usize,
}

impl Default for UnigramOptions {
    fn default() -> Self {
        UnigramOptions {
            vocab_size: 8000,
            character_coverage: 0.9995,
            max_piece_length: 16,
            seed_size: 1_000_000,
            shrinking_factor: 0.75,
            num_sub_iterations: 2,
            unk_piece: "<unk>".into(),
            bos_piece: Some("<s>".into()),
            eos_piece: Some("</s>".into()),
            control_symbols: Vec::new(),
            user_defined_symbols: Vec::new(),
            byte_fallback: false,
            split_by_unicode_script: true,
            split_by_number: true,
            split_digits: false,
            num_threads: 1,
        }
    }
}

/// Where training is, for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Seed pieces made.
    Seeded,
    /// One EM iteration done (`objective` is set).
    Em,
    /// One pruning round done (`tokens` is set).
    Pruned,
    /// The final vocabulary is made.
    Done,
}

/// A progress report: the stage, the pieces now, for `Em` the negative log-likelihood per
/// word, for `Pruned` the Viterbi token count (word counts weighted) before pruning.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub stage: Stage,
    pub pieces: usize,
    pub objective: f64,
    pub tokens: u64,
}

/// Word counts for training: `▁`-prefixed space-separated tokens, user-defined symbols cut out.
#[derive(Debug, Default)]
pub struct UnigramWords {
    counts: FxHashMap<String, u64>,
}

/// Texts above this many bytes are cut (at a space or newline) so one text uses every thread.
const PART: usize = 1 << 18;

fn cut_parts<'t>(texts: &[&'t str]) -> Vec<&'t str> {
    let mut parts = Vec::new();
    for &t in texts {
        let mut rest = t;
        while rest.len() > PART {
            let mut cut = PART;
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            let at = match rest[cut..].find([' ', '\n']) {
                Some(i) => cut + i,
                None => rest.len(),
            };
            parts.push(&rest[..at]);
            rest = &rest[at..];
        }
        parts.push(rest);
    }
    parts
}

impl UnigramWords {
    pub fn new() -> Self {
        Self::default()
    }

    /// Distinct words so far.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Adds `count` occurrences of one word (taken as is).
    pub fn add(&mut self, word: &str, count: u64) -> Result<(), CoreError> {
        let slot = match self.counts.get_mut(word) {
            Some(slot) => slot,
            None => self.counts.entry(word.to_string()).or_insert(0),
        };
        *slot = slot
            .checked_add(count)
            .ok_or_else(|| CoreError::Input(format!("the count of word {word:?} overflows 2**64")))?;
        Ok(())
    }

    /// Counts the words of `texts` (lines split at '\n' or '\r') on up to `num_threads`
    /// threads. `user_defined_symbols` are cut out of words. Without `normalizer` (identity
    /// normalization) words are the space-separated tokens with a `▁` prefix; with one, each
    /// line is normalized by it (charsmap, whitespace rules, spaces escaped to `▁`) and a word
    /// starts at every `▁`, as sentencepiece's trainer splits normalized sentences.
    pub fn add_texts(
        &mut self,
        texts: &[&str],
        user_defined_symbols: &[String],
        normalizer: Option<&Normalizer>,
        num_threads: usize,
    ) -> Result<(), CoreError> {
        let symbols: Vec<&str> = user_defined_symbols.iter().map(|s| s.as_str()).filter(|s| !s.is_empty()).collect();
        let matcher = if symbols.is_empty() {
            None
        } else {
            Some(
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&symbols)
                    .map_err(|e| CoreError::Input(format!("user_defined_symbols: {e}")))?,
            )
        };
        let parts = cut_parts(texts);
        let states = parallel_fold(
            &parts,
            num_threads,
            || (FxHashMap::<String, u64>::default(), String::new(), Vec::new()),
            |(map, buf, norm), text| {
                let mut add_word = |word: &str| {
                    let mut add = |w: &str| {
                        if w.is_empty() {
                            return;
                        }
                        match map.get_mut(w) {
                            Some(n) => *n += 1,
                            None => {
                                map.insert(w.to_string(), 1);
                            }
                        }
                    };
                    match &matcher {
                        None => add(word),
                        Some(m) => {
                            let mut last = 0;
                            for hit in m.find_iter(word) {
                                add(&word[last..hit.start()]);
                                last = hit.end();
                            }
                            add(&word[last..]);
                        }
                    }
                };
                match normalizer {
                    None => {
                        for token in text.split([' ', '\n', '\r']).filter(|t| !t.is_empty()) {
                            buf.clear();
                            buf.push(SPACE);
                            buf.push_str(token);
                            add_word(buf);
                        }
                    }
                    Some(nz) => {
                        for line in text.split(['\n', '\r']) {
                            norm.clear();
                            nz.normalize(line, norm, None);
                            // The normalizer writes valid UTF-8 (its module doc).
                            let line = std::str::from_utf8(norm)
                                .map_err(|_| CoreError::Internal("normalized text is not UTF-8".into()))?;
                            let mut start = 0;
                            for (i, _) in line.match_indices(SPACE) {
                                add_word(&line[start..i]);
                                start = i;
                            }
                            add_word(&line[start..]);
                        }
                    }
                }
                Ok(())
            },
        )?;
        for (map, _, _) in states {
            for (w, n) in map {
                self.add(&w, n)?;
            }
        }
        Ok(())
    }

    /// The counts, sorted by word.
    pub fn into_sorted(self) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = self.counts.into_iter().collect();
        v.sort_unstable();
        v
    }
}

// ---------------------------------------------------------------------------------------------
// Characters and valid pieces

/// The scripts told apart (the same list as the Python reference); others go by 128-code-point
/// block. Hiragana and Katakana count as Han.
const SCRIPTS: &[&str] = &[
    "Common",
    "Inherited",
    "Latin",
    "Greek",
    "Cyrillic",
    "Armenian",
    "Hebrew",
    "Arabic",
    "Devanagari",
    "Bengali",
    "Thai",
    "Georgian",
    "Hangul",
    "Hiragana",
    "Katakana",
    "Han",
    "Ethiopic",
    "Tamil",
    "Telugu",
    "Kannada",
    "Malayalam",
    "Gujarati",
    "Gurmukhi",
    "Lao",
    "Tibetan",
    "Khmer",
    "Myanmar",
    "Sinhala",
];

/// Code point ranges of each script of `SCRIPTS`, from regex-syntax's Unicode tables.
fn script_ranges() -> &'static Vec<Vec<(u32, u32)>> {
    static RANGES: OnceLock<Vec<Vec<(u32, u32)>>> = OnceLock::new();
    RANGES.get_or_init(|| {
        SCRIPTS
            .iter()
            .map(|name| {
                let hir = regex_syntax::ParserBuilder::new().build().parse(&format!("\\p{{Script={name}}}"));
                match hir.as_ref().map(|h| h.kind()) {
                    Ok(regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(cls))) => {
                        cls.ranges().iter().map(|r| (r.start() as u32, r.end() as u32)).collect()
                    }
                    _ => Vec::new(),
                }
            })
            .collect()
    })
}

/// Script class of a character: 0 Common, 1 Inherited, Han for kana, else an index or block.
fn script_of(c: char) -> u32 {
    if c == '\u{30FC}' {
        return 15; // "Han"
    }
    let cp = c as u32;
    for (i, ranges) in script_ranges().iter().enumerate() {
        let hit = ranges.binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        });
        if hit.is_ok() {
            return if i == 13 || i == 14 { 15 } else { i as u32 };
        }
    }
    1000 + (cp >> 7)
}

const INHERITED: u32 = 1;

/// What validity needs to know of each dense character id.
struct CharInfo {
    chars: Vec<char>,
    script: Vec<u32>,
    digit: Vec<bool>,
    space: u32,
    unk: u32,
}

impl CharInfo {
    /// sentencepiece's `IsValidSentencePiece` with whitespace splitting (see the reference).
    fn valid(&self, piece: &[u32], opts: &UnigramOptions) -> bool {
        if piece.is_empty() || piece.len() > opts.max_piece_length {
            return false;
        }
        let mut prev: Option<u32> = None;
        for (pos, &c) in piece.iter().enumerate() {
            if c == self.unk {
                return false;
            }
            if c == self.space {
                if pos > 0 {
                    return false;
                }
                continue;
            }
            let mut s = Some(self.script[c as usize]);
            if s == Some(INHERITED) {
                s = prev;
            }
            if self.digit[c as usize] {
                if opts.split_digits && piece.len() > 1 {
                    return false;
                }
                if !opts.split_by_number {
                    s = None;
                }
            }
            if opts.split_by_unicode_script {
                if let (Some(a), Some(b)) = (s, prev) {
                    if a != b {
                        return false;
                    }
                }
            }
            prev = s;
        }
        true
    }
}

// ---------------------------------------------------------------------------------------------
// Words as dense character ids

/// Distinct words as one array of dense character ids.
struct Words {
    chars: Vec<u32>,
    /// `starts[w]..starts[w + 1]` is word `w`.
    starts: Vec<u32>,
    counts: Vec<u64>,
}

impl Words {
    fn len(&self) -> usize {
        self.counts.len()
    }

    fn word(&self, w: usize) -> &[u32] {
        &self.chars[self.starts[w] as usize..self.starts[w + 1] as usize]
    }
}

/// The required characters `(char, count)`, most frequent first (ties: smaller code point).
fn required_chars(words: &[(String, u64)], coverage: f64) -> Vec<(char, u64)> {
    let mut counts: FxHashMap<char, u64> = FxHashMap::default();
    for (w, n) in words {
        for c in w.chars() {
            if c != '\0' && c != ' ' {
                let e = counts.entry(c).or_insert(0);
                *e = e.saturating_add(*n);
            }
        }
    }
    let mut all: Vec<(char, u64)> = counts.into_iter().collect();
    all.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let total: f64 = all.iter().map(|&(_, n)| n as f64).sum();
    let mut covered = 0f64;
    let mut out = Vec::new();
    for (c, n) in all {
        if covered / total >= coverage {
            break;
        }
        covered += n as f64;
        if c != '\t' {
            out.push((c, n));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Seeds

/// Ends every word in the seeding text; compares above every character.
const SEP: u32 = u32::MAX;

/// Runs `f(index, part)` on each of `parts` on up to `threads` scoped threads (largest parts
/// first) and returns the results in part order.
fn for_each_mut<T: Send, R: Send>(
    parts: Vec<&mut [T]>,
    threads: usize,
    f: impl Fn(&mut [T]) -> R + Sync,
) -> Result<Vec<R>, CoreError> {
    let n = parts.len();
    let mut queue: Vec<(usize, &mut [T])> = parts.into_iter().enumerate().collect();
    queue.sort_by_key(|(_, p)| p.len());
    let queue = std::sync::Mutex::new(queue);
    let results = std::sync::Mutex::new((0..n).map(|_| None).collect::<Vec<Option<R>>>());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1).min(n.max(1)) {
            s.spawn(|| loop {
                let next = match queue.lock() {
                    Ok(mut q) => q.pop(),
                    Err(_) => None,
                };
                let Some((i, part)) = next else { break };
                let r = f(part);
                if let Ok(mut res) = results.lock() {
                    res[i] = Some(r);
                }
            });
        }
    });
    let results = results.into_inner().map_err(|_| CoreError::Internal("a worker thread panicked".into()))?;
    results.into_iter().map(|r| r.ok_or_else(|| CoreError::Internal("a worker thread failed".into()))).collect()
}

/// Seed pieces as `(dense chars, frequency score)`: substrings only, best first.
///
/// The suffixes of the distinct words (each word ended by `SEP`) are sorted on their first
/// `max_piece_length + 1` characters: bucketed by first character, buckets sorted on threads.
/// One scan then yields the LCP intervals bottom-up (a stack of open intervals with the
/// prefix sum of word counts at their left bound) and the leaves, with no LCP or weight
/// arrays; candidates are kept to the best `seed_size` as they come (memory stays bounded).
fn seed_substrings(words: &Words, info: &CharInfo, opts: &UnigramOptions) -> Result<Vec<(Vec<u32>, u64)>, CoreError> {
    let max_len = opts.max_piece_length;
    let depth = max_len + 1;
    let mut text: Vec<u32> = Vec::with_capacity(words.chars.len() + words.len());
    // text_starts[w]: where word w starts in `text`.
    let mut text_starts: Vec<u32> = Vec::with_capacity(words.len());
    for w in 0..words.len() {
        text_starts.push(text.len() as u32);
        text.extend_from_slice(words.word(w));
        text.push(SEP);
    }
    let text = &text;
    // Counting sort on the first character, then each bucket on the rest.
    let alphabet = info.chars.len();
    let mut bucket_start = vec![0usize; alphabet + 1];
    for &c in text.iter().filter(|&&c| c != SEP) {
        bucket_start[c as usize + 1] += 1;
    }
    for c in 0..alphabet {
        bucket_start[c + 1] += bucket_start[c];
    }
    let n = bucket_start[alphabet];
    let mut sa = vec![0u32; n];
    let mut fill = bucket_start.clone();
    for (p, &c) in text.iter().enumerate() {
        if c != SEP {
            sa[fill[c as usize]] = p as u32;
            fill[c as usize] += 1;
        }
    }
    drop(fill);
    let cmp = |a: &u32, b: &u32| -> std::cmp::Ordering {
        let (a, b) = (*a as usize, *b as usize);
        for k in 1..depth {
            let (x, y) = (text[a + k], text[b + k]);
            if x != y {
                return x.cmp(&y);
            }
            if x == SEP {
                break;
            }
        }
        a.cmp(&b)
    };
    {
        let mut parts: Vec<&mut [u32]> = Vec::new();
        let mut rest: &mut [u32] = &mut sa;
        for c in 0..alphabet {
            let (head, tail) = rest.split_at_mut(bucket_start[c + 1] - bucket_start[c]);
            parts.push(head);
            rest = tail;
        }
        for_each_mut(parts, opts.num_threads, |part| part.sort_unstable_by(cmp))?;
    }
    let lcp = |a: u32, b: u32| -> u32 {
        let (a, b) = (a as usize, b as usize);
        let mut k = 0;
        while k < depth && text[a + k] == text[b + k] && text[a + k] != SEP {
            k += 1;
        }
        k as u32
    };
    let to_sep = |p: u32| -> usize { text[p as usize..].iter().take(depth).take_while(|&&c| c != SEP).count() };
    let weight = |p: u32| -> u64 { words.counts[text_starts.partition_point(|&s| s <= p) - 1] };

    let text_of = |&(_, p, len): &(u64, u32, u32)| &text[p as usize..(p + len) as usize];
    let order = |a: &(u64, u32, u32), b: &(u64, u32, u32)| b.0.cmp(&a.0).then_with(|| text_of(a).cmp(text_of(b)));
    let keep = opts.seed_size;
    let mut cands: Vec<(u64, u32, u32)> = Vec::new(); // (score, start, len)
    let mut push = |p: u32, len: usize, freq: u64| {
        if len >= 2 && len <= max_len && freq >= 2 && info.valid(&text[p as usize..p as usize + len], opts) {
            cands.push((freq.saturating_mul(len as u64), p, len as u32));
            if cands.len() >= 2 * keep + 1024 {
                cands.select_nth_unstable_by(keep, order);
                cands.truncate(keep);
            }
        }
    };
    let mut stack: Vec<(u32, usize, u64)> = vec![(0, 0, 0)]; // (depth, left bound, prefix weight there)
    let (mut w_before, mut prev_h) = (0u64, 0u32);
    for i in 0..n {
        let wi = weight(sa[i]);
        let w_after = w_before.saturating_add(wi);
        let h = if i + 1 < n { lcp(sa[i], sa[i + 1]) } else { 0 };
        // A word-final suffix no neighbour shares is a node of its own (the word end is a
        // context no other occurrence has).
        let len = to_sep(sa[i]);
        if len <= max_len && (prev_h.max(h) as usize) < len {
            push(sa[i], len, wi);
        }
        let (mut lb, mut wlb) = (i, w_before);
        while h < stack.last().map_or(0, |t| t.0) {
            let Some((d, left, wl)) = stack.pop() else { break };
            push(sa[left], d as usize, w_after - wl);
            lb = left;
            wlb = wl;
        }
        if h > stack.last().map_or(0, |t| t.0) {
            stack.push((h, lb, wlb));
        }
        prev_h = h;
        w_before = w_after;
    }
    drop(sa);
    if cands.len() > keep {
        cands.select_nth_unstable_by(keep, order);
        cands.truncate(keep);
    }
    cands.sort_unstable_by(order);
    Ok(cands.iter().map(|c| (text_of(c).to_vec(), c.0)).collect())
}

// ---------------------------------------------------------------------------------------------
// Trie and lattices

/// A trie over pieces: dense first level, a hash map below.
struct Trie {
    root: Vec<u32>,
    next: FxHashMap<u64, u32>,
    /// Piece id ending at each node, or `UNK_EDGE`.
    piece: Vec<u32>,
}

impl Trie {
    fn build(pieces: &[Vec<u32>], alphabet: usize) -> Trie {
        let mut t = Trie { root: vec![u32::MAX; alphabet], next: FxHashMap::default(), piece: Vec::new() };
        for (id, p) in pieces.iter().enumerate() {
            let mut node = u32::MAX;
            for (k, &c) in p.iter().enumerate() {
                let slot = if k == 0 {
                    &mut t.root[c as usize]
                } else {
                    t.next.entry(((node as u64) << 32) | c as u64).or_insert(u32::MAX)
                };
                if *slot == u32::MAX {
                    *slot = t.piece.len() as u32;
                    t.piece.push(UNK_EDGE);
                }
                node = *slot;
            }
            t.piece[node as usize] = id as u32;
        }
        t
    }

    /// Calls `f(length, piece id)` for each piece that starts `s`, shortest first.
    fn prefixes(&self, s: &[u32], mut f: impl FnMut(usize, u32)) {
        let Some(&first) = s.first() else { return };
        let mut node = self.root[first as usize];
        let mut len = 1;
        while node != u32::MAX {
            let id = self.piece[node as usize];
            if id != UNK_EDGE {
                f(len, id);
            }
            if len == s.len() {
                break;
            }
            node = *self.next.get(&(((node as u64) << 32) | s[len] as u64)).unwrap_or(&u32::MAX);
            len += 1;
        }
    }
}

/// Top bit of an edge: the first edge of its start (every start has one, its shortest: a
/// one-character piece or an unknown edge), so starts are counted, not stored.
const NEW_START: u32 = 1 << 31;
/// Low bits of an edge: the piece id, or `UNK_EDGE`.
const ID_MASK: u32 = NEW_START - 1;

/// The lattices of `WORDS_PER_ITEM` consecutive words: each word's edges, by start then
/// length, one `u32` each (see `NEW_START`).
struct Part {
    edges: Vec<u32>,
    /// `offsets[k]..offsets[k + 1]` are the edges of the part's word `k`.
    offsets: Vec<usize>,
}

/// Every word's lattice, in parts that threads take whole (never joined: no second copy).
struct Lattices {
    parts: Vec<Part>,
}

fn edges_of(word: &[u32], trie: &Trie, out: &mut Vec<u32>) {
    for i in 0..word.len() {
        let at = out.len();
        let mut single = false;
        trie.prefixes(&word[i..], |len, id| {
            single |= len == 1;
            out.push(id);
        });
        if !single {
            out.insert(at, UNK_EDGE);
        }
        out[at] |= NEW_START;
    }
}

fn items(n: usize) -> Vec<std::ops::Range<usize>> {
    (0..n).step_by(WORDS_PER_ITEM).map(|s| s..(s + WORDS_PER_ITEM).min(n)).collect()
}

impl Part {
    fn word(&self, k: usize) -> &[u32] {
        &self.edges[self.offsets[k]..self.offsets[k + 1]]
    }
}

impl Lattices {
    fn build(words: &Words, trie: &Trie, threads: usize) -> Result<Lattices, CoreError> {
        let parts = parallel_map(&items(words.len()), threads, |r| {
            let mut edges = Vec::new();
            let mut offsets = Vec::with_capacity(r.len() + 1);
            offsets.push(0);
            for w in r.clone() {
                edges_of(words.word(w), trie, &mut edges);
                offsets.push(edges.len());
            }
            edges.shrink_to_fit();
            Ok(Part { edges, offsets })
        })?;
        Ok(Lattices { parts })
    }

    /// Renumbers edges in place with `remap` (old id -> new id, or `UNK_EDGE` when the piece
    /// is gone): gone pieces are dropped, a gone one-character piece becomes an unknown edge.
    fn filter(&mut self, remap: &[u32], lens: &[u32], threads: usize) -> Result<(), CoreError> {
        let parts: Vec<&mut [Part]> = self.parts.iter_mut().map(std::slice::from_mut).collect();
        for_each_mut(parts, threads, |part| {
            let part = &mut part[0];
            let mut write = 0;
            let mut read_from = 0;
            for k in 0..part.offsets.len() - 1 {
                let read_to = part.offsets[k + 1];
                for r in read_from..read_to {
                    let e = part.edges[r];
                    let (flag, id) = (e & NEW_START, e & ID_MASK);
                    let new = if id == UNK_EDGE {
                        UNK_EDGE
                    } else if remap[id as usize] != UNK_EDGE {
                        remap[id as usize]
                    } else if lens[id as usize] == 1 {
                        UNK_EDGE
                    } else {
                        continue;
                    };
                    part.edges[write] = new | flag;
                    write += 1;
                }
                read_from = read_to;
                part.offsets[k + 1] = write;
            }
            part.edges.truncate(write);
            part.edges.shrink_to_fit();
        })?;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// EM

/// The digamma function: shift above 7, then the asymptotic series.
fn digamma(mut x: f64) -> f64 {
    let mut result = 0.0;
    while x < 7.0 {
        result -= 1.0 / x;
        x += 1.0;
    }
    x -= 0.5;
    let xx = 1.0 / x;
    let xx2 = xx * xx;
    let xx4 = xx2 * xx2;
    result + x.ln() + xx2 / 24.0 - 7.0 / 960.0 * xx4 + 31.0 / 8064.0 * xx4 * xx2 - 127.0 / 30720.0 * xx4 * xx4
}

/// The current pieces.
struct Model {
    pieces: Vec<Vec<u32>>,
    scores: Vec<f64>,
}

impl Model {
    fn score(&self, id: u32, unk: f64) -> f64 {
        if id == UNK_EDGE {
            unk
        } else {
            self.scores[id as usize]
        }
    }

    fn unk_score(&self) -> f64 {
        self.scores.iter().copied().fold(f64::INFINITY, f64::min) - UNK_PENALTY
    }

    /// Length of each piece in characters, and 1 for `UNK_EDGE` (the last entry is not
    /// used by ids; lookups of UNK_EDGE go through `len_of`).
    fn lens(&self) -> Vec<u32> {
        self.pieces.iter().map(|p| p.len() as u32).collect()
    }
}

#[inline]
fn len_of(id: u32, lens: &[u32]) -> usize {
    if id == UNK_EDGE {
        1
    } else {
        lens[id as usize] as usize
    }
}

#[derive(Default)]
struct Scratch {
    alpha: Vec<f64>,
    beta: Vec<f64>,
    scale: Vec<i32>,
    back: Vec<u32>,
}

/// Rescaling step of the linear-domain forward-backward: values below 2^-256 are multiplied
/// by 2^256 (exact in binary floating point) and a per-word counter remembers it.
const TINY: f64 = 8.636168555094445e-78; // 2^-256
const BIG: f64 = 1.157920892373162e77; // 2^256

/// 2^(256 k), for the few small k a posterior needs (0 when it underflows).
fn scale_pow(k: i32) -> f64 {
    match k {
        0 => 1.0,
        k if k < -3 => 0.0,
        k => BIG.powi(k),
    }
}

/// Expected piece counts (fixed point) and the objective (negative log-likelihood per word).
///
/// Forward-backward runs in the linear domain on probabilities (`exp(score)`), rescaled by
/// powers of two when small, so an edge costs a multiply-add instead of an `exp` and a `log`
/// (log-domain sums were 3-4x slower overall). The forward pass keeps one scale counter `g`:
/// a rescale at start `i` multiplies every position that can hold a value (`i..=i +
/// max_len`), so all live positions share `g`, and each position records `g` when it is
/// final. The backward pass does the same and computes posteriors as it goes, while the ends
/// it reads share its current counter.
fn e_step(
    words: &Words,
    lat: &Lattices,
    model: &Model,
    max_len: usize,
    threads: usize,
) -> Result<(Vec<u64>, f64), CoreError> {
    let unk = model.unk_score();
    let lens = model.lens();
    let probs: Vec<f64> = model.scores.iter().map(|s| s.exp()).collect();
    let unk_p = unk.exp();
    let prob = |id: u32| if id == UNK_EDGE { unk_p } else { probs[id as usize] };
    let n = model.pieces.len();
    let total_count: f64 = words.counts.iter().map(|&c| c as f64).sum();
    let ln_big = BIG.ln();
    let part_ids: Vec<usize> = (0..lat.parts.len()).collect();
    // Per thread: expected counts; per part: its objective, summed in part order.
    let states = parallel_fold(
        &part_ids,
        threads,
        || (vec![0u64; n], Vec::<(usize, f64)>::new(), Scratch::default()),
        |(expected, per_part, sc), &pi| {
            let part = &lat.parts[pi];
            let mut obj = 0.0;
            for k in 0..part.offsets.len() - 1 {
                let w = pi * WORDS_PER_ITEM + k;
                let edges = part.word(k);
                let m = words.starts[w + 1] as usize - words.starts[w] as usize;
                let count = words.counts[w] as f64;
                let (alpha, beta, ga) = (&mut sc.alpha, &mut sc.beta, &mut sc.scale);
                alpha.clear();
                alpha.resize(m + 1, 0.0);
                alpha[0] = 1.0;
                ga.clear();
                ga.resize(m + 1, 0);
                let mut g = 0i32;
                let mut i = usize::MAX;
                for &e in edges {
                    if e & NEW_START != 0 {
                        i = i.wrapping_add(1);
                        if alpha[i] < TINY {
                            for v in &mut alpha[i..=(i + max_len).min(m)] {
                                *v *= BIG;
                            }
                            g += 1;
                        }
                        ga[i] = g;
                    }
                    let id = e & ID_MASK;
                    alpha[i + len_of(id, &lens)] += alpha[i] * prob(id);
                }
                ga[m] = g;
                let z = alpha[m];
                if !(z > 0.0 && z.is_finite()) {
                    return Err(CoreError::Internal(format!("word {w}: likelihood {z} is not a positive number")));
                }
                let gz = ga[m];
                obj -= (z.ln() - gz as f64 * ln_big) * count / total_count;
                beta.clear();
                beta.resize(m + 1, 0.0);
                beta[m] = 1.0;
                let mut gb = 0i32;
                let mut i = m - 1;
                let weight = count * FIXED / z;
                for &e in edges.iter().rev() {
                    let id = e & ID_MASK;
                    let v = prob(id) * beta[i + len_of(id, &lens)];
                    beta[i] += v;
                    if id != UNK_EDGE {
                        let post = alpha[i] * v * weight * scale_pow(gz - ga[i] - gb);
                        expected[id as usize] += post.round() as u64;
                    }
                    if e & NEW_START != 0 {
                        // Start `i` is complete: rescale its window if it got small.
                        if beta[i] < TINY {
                            for v in &mut beta[i..=(i + max_len).min(m)] {
                                *v *= BIG;
                            }
                            gb += 1;
                        }
                        i = i.wrapping_sub(1);
                    }
                }
            }
            per_part.push((pi, obj));
            Ok(())
        },
    )?;
    let mut expected = vec![0u64; n];
    let mut per_part = Vec::new();
    for (e, p, _) in states {
        for (a, b) in expected.iter_mut().zip(e) {
            *a = a.saturating_add(b);
        }
        per_part.extend(p);
    }
    per_part.sort_unstable_by_key(|p| p.0);
    let objective = per_part.iter().map(|p| p.1).sum();
    Ok((expected, objective))
}

/// Viterbi over one word's edges: calls `f(piece id)` for each piece of the best path (last
/// first). Ties: the edge met first wins.
fn viterbi(edges: &[u32], m: usize, model: &Model, unk: f64, lens: &[u32], sc: &mut Scratch, mut f: impl FnMut(u32)) {
    sc.alpha.clear();
    sc.alpha.resize(m + 1, f64::NEG_INFINITY);
    sc.alpha[0] = 0.0;
    sc.back.clear();
    sc.back.resize(m + 1, UNK_EDGE);
    let mut i = usize::MAX;
    for &e in edges {
        if e & NEW_START != 0 {
            i = i.wrapping_add(1);
        }
        let id = e & ID_MASK;
        let end = i + len_of(id, lens);
        let v = sc.alpha[i] + model.score(id, unk);
        if v > sc.alpha[end] {
            sc.alpha[end] = v;
            sc.back[end] = id;
        }
    }
    let mut pos = m;
    while pos > 0 {
        let id = sc.back[pos];
        f(id);
        pos -= len_of(id, lens);
    }
}

/// M-step: which pieces stay (expected count >= 0.5) and their new scores.
fn m_step(model: &Model, expected: &[u64]) -> (Vec<bool>, Vec<f64>) {
    let freq: Vec<f64> = expected.iter().map(|&e| e as f64 / FIXED).collect();
    let keep: Vec<bool> = freq.iter().map(|&f| f >= 0.5).collect();
    let total: f64 = freq.iter().zip(&keep).filter(|(_, &k)| k).map(|(f, _)| f).sum();
    let logsum = digamma(total);
    let scores = freq.iter().zip(&model.scores).map(|(&f, _)| digamma(f.max(0.5)) - logsum).collect();
    (keep, scores)
}

/// The best two segmentations of a piece (as piece-id lists) over `trie` (k-best Viterbi,
/// k = 2; ties: the candidate met first wins).
fn nbest2(piece: &[u32], trie: &Trie, model: &Model, unk: f64) -> Vec<Vec<u32>> {
    let m = piece.len();
    // best[j]: up to two (score, previous position, rank there, piece id).
    let mut best: Vec<Vec<(f64, usize, usize, u32)>> = vec![Vec::new(); m + 1];
    best[0].push((0.0, 0, 0, UNK_EDGE));
    let mut ends: Vec<Vec<(usize, u32)>> = vec![Vec::new(); m + 1];
    for i in 0..m {
        let mut single = false;
        trie.prefixes(&piece[i..], |len, id| {
            single |= len == 1;
            ends[i + len].push((i, id));
        });
        if !single {
            ends[i + 1].push((i, UNK_EDGE));
        }
    }
    for j in 1..=m {
        let mut cands: Vec<(f64, usize, usize, u32)> = Vec::new();
        for &(i, id) in &ends[j] {
            for (rank, b) in best[i].iter().enumerate() {
                cands.push((b.0 + model.score(id, unk), i, rank, id));
            }
        }
        // Stable sort: equal scores keep the order met.
        cands.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        cands.truncate(2);
        best[j] = cands;
    }
    let mut out = Vec::new();
    for rank in 0..best[m].len() {
        let mut path = Vec::new();
        let (mut j, mut r) = (m, rank);
        while j > 0 {
            let (_, i, pr, id) = best[j][r];
            path.push(id);
            j = i;
            r = pr;
        }
        path.reverse();
        out.push(path);
    }
    out
}

/// One pruning round: which pieces stay.
fn prune(
    words: &Words,
    lat: &Lattices,
    model: &Model,
    desired: usize,
    opts: &UnigramOptions,
    alphabet: usize,
) -> Result<(Vec<bool>, u64), CoreError> {
    let threads = opts.num_threads;
    let unk = model.unk_score();
    let lens = model.lens();
    let n = model.pieces.len();
    let trie = Trie::build(&model.pieces, alphabet);
    // Per piece: removable (its best segmentation is not itself), or its alternative.
    let ids: Vec<std::ops::Range<usize>> = (0..n).step_by(4096).map(|s| s..(s + 4096).min(n)).collect();
    let alts: Vec<Vec<(bool, Vec<u32>)>> = parallel_map(&ids, threads, |r| {
        Ok(r.clone()
            .map(|i| {
                let nb = nbest2(&model.pieces[i], &trie, model, unk);
                match nb.len() {
                    0 | 1 => (true, Vec::new()),
                    _ if nb[0].len() >= 2 => (false, Vec::new()),
                    _ => (true, nb[1].clone()),
                }
            })
            .collect())
    })?;
    drop(trie);
    let alts: Vec<(bool, Vec<u32>)> = alts.into_iter().flatten().collect();
    // Viterbi frequencies over the words.
    let part_ids: Vec<usize> = (0..lat.parts.len()).collect();
    let states = parallel_fold(
        &part_ids,
        threads,
        || (vec![0u64; n], Scratch::default()),
        |(freq, sc), &pi| {
            let part = &lat.parts[pi];
            for k in 0..part.offsets.len() - 1 {
                let w = pi * WORDS_PER_ITEM + k;
                let m = words.starts[w + 1] as usize - words.starts[w] as usize;
                let c = words.counts[w];
                viterbi(part.word(k), m, model, unk, &lens, sc, |id| {
                    if id != UNK_EDGE {
                        freq[id as usize] += c;
                    }
                });
            }
            Ok(())
        },
    )?;
    let mut freq = vec![0u64; n];
    for (f, _) in states {
        for (a, b) in freq.iter_mut().zip(f) {
            *a = a.saturating_add(b);
        }
    }
    let total_words: f64 = words.counts.iter().map(|&c| c as f64).sum();
    let sum: f64 = freq.iter().map(|&f| f as f64).sum();
    let logsum = sum.ln();
    let mut keep = vec![false; n];
    let mut kept = 0usize;
    let mut cands: Vec<(f64, usize)> = Vec::new();
    for i in 0..n {
        let (always, alt) = &alts[i];
        if freq[i] == 0 || !always {
            continue;
        }
        if alt.is_empty() {
            keep[i] = true;
            kept += 1;
            continue;
        }
        let f = freq[i] as f64;
        let logprob = f.ln() - logsum;
        let logsum_alt = (sum + f * (alt.len() as f64 - 1.0)).ln();
        let logprob_alt: f64 = alt
            .iter()
            .map(|&a| {
                let fa = if a == UNK_EDGE { 0.0 } else { freq[a as usize] as f64 };
                (fa + f).ln() - logsum_alt
            })
            .sum();
        cands.push((f / total_words * (logprob - logprob_alt), i));
    }
    cands.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal).then(a.1.cmp(&b.1)));
    let size = desired.max((opts.shrinking_factor * n as f64) as usize);
    for (_, i) in cands {
        if kept >= size {
            break;
        }
        keep[i] = true;
        kept += 1;
    }
    Ok((keep, freq.iter().sum()))
}

/// Keeps the pieces marked in `keep` (with `scores`), in their order; renumbers the lattices.
fn apply(
    model: &mut Model,
    lat: &mut Lattices,
    keep: &[bool],
    scores: Option<Vec<f64>>,
    threads: usize,
) -> Result<(), CoreError> {
    let lens = model.lens();
    let mut remap = vec![UNK_EDGE; keep.len()];
    let mut next = 0u32;
    for (i, &k) in keep.iter().enumerate() {
        if k {
            remap[i] = next;
            next += 1;
        }
    }
    let new_scores = scores.unwrap_or_else(|| model.scores.clone());
    let old = std::mem::take(&mut model.pieces);
    model.pieces = old.into_iter().zip(keep).filter(|(_, &k)| k).map(|(p, _)| p).collect();
    model.scores = new_scores.into_iter().zip(keep).filter(|(_, &k)| k).map(|(s, _)| s).collect();
    lat.filter(&remap, &lens, threads)
}

// ---------------------------------------------------------------------------------------------
// Entry point

fn meta_pieces(opts: &UnigramOptions) -> Result<Vec<(String, f32, PieceKind)>, CoreError> {
    let mut meta = vec![(opts.unk_piece.clone(), 0.0, PieceKind::Unknown)];
    for p in [&opts.bos_piece, &opts.eos_piece].into_iter().flatten() {
        meta.push((p.clone(), 0.0, PieceKind::Control));
    }
    for p in &opts.control_symbols {
        meta.push((p.clone(), 0.0, PieceKind::Control));
    }
    for p in &opts.user_defined_symbols {
        meta.push((p.clone(), 0.0, PieceKind::UserDefined));
    }
    if opts.byte_fallback {
        for b in 0..=255u8 {
            meta.push((format!("<0x{b:02X}>"), 0.0, PieceKind::Byte));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for (p, _, _) in &meta {
        if p.is_empty() {
            return Err(CoreError::Input(
                "a special piece (unk, bos, eos, control or user-defined symbol) is empty: give it text".into(),
            ));
        }
        if !seen.insert(p.as_str()) {
            return Err(CoreError::Input(format!(
                "the piece {p:?} is given twice among unk_piece, bos/eos, control_symbols and user_defined_symbols: keep one"
            )));
        }
    }
    Ok(meta)
}

fn check_options(opts: &UnigramOptions) -> Result<(), CoreError> {
    if !(0.98..=1.0).contains(&opts.character_coverage) {
        return Err(CoreError::Input(format!(
            "character_coverage must be in [0.98, 1], got {}",
            opts.character_coverage
        )));
    }
    if !(opts.shrinking_factor > 0.0 && opts.shrinking_factor < 1.0) {
        return Err(CoreError::Input(format!("shrinking_factor must be in (0, 1), got {}", opts.shrinking_factor)));
    }
    if opts.max_piece_length == 0 {
        return Err(CoreError::Input("max_piece_length must be at least 1".into()));
    }
    if opts.seed_size > 1 << 30 {
        return Err(CoreError::Input(format!("seed_size must be at most 2**30, got {}", opts.seed_size)));
    }
    if opts.num_sub_iterations == 0 {
        return Err(CoreError::Input("num_sub_iterations must be at least 1".into()));
    }
    Ok(())
}

/// Trains a Unigram vocabulary on word counts (from `UnigramWords`, any order).
///
/// Returns `(piece, score, kind)` with id = position: the meta pieces, then the learned
/// pieces by score (descending, then string). `progress` is called on the calling thread
/// after each stage; `control.cancel` stops the job with `CoreError::Cancelled`.
pub fn train(
    mut words: Vec<(String, u64)>,
    opts: &UnigramOptions,
    progress: &dyn Fn(&Progress),
    control: &Control,
) -> Result<Vec<(String, f32, PieceKind)>, CoreError> {
    check_options(opts)?;
    let meta = meta_pieces(opts)?;
    words.retain(|(w, n)| !w.is_empty() && *n > 0);
    if words.is_empty() {
        return Err(CoreError::Input("the corpus has no words: give at least one non-empty line".into()));
    }
    let required = required_chars(&words, opts.character_coverage);
    if required.len() + meta.len() > opts.vocab_size {
        return Err(CoreError::Input(format!(
            "vocab_size {} is smaller than the {} required characters plus {} meta pieces: raise vocab_size or lower character_coverage",
            opts.vocab_size,
            required.len(),
            meta.len()
        )));
    }
    // Dense character ids in code point order; UNK last.
    let mut by_cp: Vec<char> = required.iter().map(|&(c, _)| c).collect();
    by_cp.sort_unstable();
    let dense: FxHashMap<char, u32> = by_cp.iter().enumerate().map(|(i, &c)| (c, i as u32)).collect();
    let unk = by_cp.len() as u32;
    let alphabet = by_cp.len() + 1;
    let mut chars_of = by_cp.clone();
    chars_of.push(UNK_CHAR);
    let info = CharInfo {
        script: chars_of.iter().map(|&c| if c == UNK_CHAR { u32::MAX } else { script_of(c) }).collect(),
        digit: chars_of.iter().map(|&c| c.is_number_decimal_digit()).collect(),
        space: dense.get(&SPACE).copied().unwrap_or(u32::MAX - 1),
        unk,
        chars: chars_of,
    };
    // Words in dense ids, merged where rare characters made them equal, sorted.
    let mut merged: FxHashMap<Vec<u32>, u64> = FxHashMap::default();
    for (w, n) in words {
        let ids: Vec<u32> = w.chars().map(|c| dense.get(&c).copied().unwrap_or(unk)).collect();
        let e = merged.entry(ids).or_insert(0);
        *e = e.saturating_add(n);
    }
    let mut merged: Vec<(Vec<u32>, u64)> = merged.into_iter().collect();
    merged.sort_unstable();
    let total_chars: usize = merged.iter().map(|(w, _)| w.len()).sum();
    if total_chars >= u32::MAX as usize {
        return Err(CoreError::Input("the distinct words hold more than 2**32 characters: train on less text".into()));
    }
    let mut corpus =
        Words { chars: Vec::with_capacity(total_chars), starts: vec![0], counts: Vec::with_capacity(merged.len()) };
    for (w, n) in merged {
        corpus.chars.extend_from_slice(&w);
        corpus.starts.push(corpus.chars.len() as u32);
        corpus.counts.push(n);
    }
    control.check()?;

    // Seeds: characters (by count), then substrings (by frequency * length); log-probabilities.
    let mut seeds: Vec<(Vec<u32>, f64)> = required.iter().map(|&(c, n)| (vec![dense[&c]], n as f64)).collect();
    seeds.extend(seed_substrings(&corpus, &info, opts)?.into_iter().map(|(p, s)| (p, s as f64)));
    let logsum = seeds.iter().map(|s| s.1).sum::<f64>().ln();
    let mut model = Model {
        scores: seeds.iter().map(|s| s.1.ln() - logsum).collect(),
        pieces: seeds.into_iter().map(|s| s.0).collect(),
    };
    progress(&Progress { stage: Stage::Seeded, pieces: model.pieces.len(), objective: 0.0, tokens: 0 });
    control.check()?;

    let threads = opts.num_threads.max(1);
    let mut lat = {
        let trie = Trie::build(&model.pieces, alphabet);
        Lattices::build(&corpus, &trie, threads)?
    };
    let desired = (opts.vocab_size as f64 * 1.1) as usize;
    loop {
        for _ in 0..opts.num_sub_iterations {
            let (expected, objective) = e_step(&corpus, &lat, &model, opts.max_piece_length, threads)?;
            let (keep, scores) = m_step(&model, &expected);
            apply(&mut model, &mut lat, &keep, Some(scores), threads)?;
            if model.pieces.is_empty() {
                return Err(CoreError::Internal("EM left no pieces".into()));
            }
            progress(&Progress { stage: Stage::Em, pieces: model.pieces.len(), objective, tokens: 0 });
            control.check()?;
        }
        if model.pieces.len() <= desired {
            break;
        }
        let (keep, tokens) = prune(&corpus, &lat, &model, desired, opts, alphabet)?;
        apply(&mut model, &mut lat, &keep, None, threads)?;
        progress(&Progress { stage: Stage::Pruned, pieces: model.pieces.len(), objective: 0.0, tokens });
        control.check()?;
    }
    drop(lat);

    // Final: required characters first, then the best pieces.
    let to_string = |p: &[u32]| -> String { p.iter().map(|&c| info.chars[c as usize]).collect() };
    let min_score = model.scores.iter().copied().fold(f64::INFINITY, f64::min);
    let index: FxHashMap<&[u32], f64> =
        model.pieces.iter().map(|p| p.as_slice()).zip(model.scores.iter().copied()).collect();
    let mut fin: Vec<(String, f64)> = Vec::new();
    let mut in_final: FxHashMap<Vec<u32>, ()> = FxHashMap::default();
    let mut penalty = 0.0;
    for &(c, _) in &required {
        let p = vec![dense[&c]];
        let s = match index.get(p.as_slice()) {
            Some(&s) => s,
            None => {
                // Missing required characters score just above the minimum, rarer ones lower.
                let s = min_score + penalty;
                penalty += 0.0001;
                s
            }
        };
        fin.push((c.to_string(), s));
        in_final.insert(p, ());
    }
    let room = opts.vocab_size - meta.len();
    let mut order: Vec<usize> = (0..model.pieces.len()).collect();
    order.sort_by(|&a, &b| {
        model.scores[b]
            .partial_cmp(&model.scores[a])
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| model.pieces[a].cmp(&model.pieces[b]))
    });
    for i in order {
        if fin.len() >= room {
            break;
        }
        if in_final.insert(model.pieces[i].clone(), ()).is_none() {
            fin.push((to_string(&model.pieces[i]), model.scores[i]));
        }
    }
    fin.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal).then_with(|| a.0.cmp(&b.0)));
    progress(&Progress { stage: Stage::Done, pieces: fin.len(), objective: 0.0, tokens: 0 });
    let mut out = meta;
    out.extend(fin.into_iter().map(|(p, s)| (p, s as f32, PieceKind::Normal)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn train_lines(lines: &[&str], vocab: usize, threads: usize) -> Vec<(String, f32, PieceKind)> {
        let mut w = UnigramWords::new();
        w.add_texts(lines, &[], None, threads).unwrap();
        let opts = UnigramOptions { vocab_size: vocab, num_threads: threads, ..Default::default() };
        train(w.into_sorted(), &opts, &|_| {}, &Control::default()).unwrap()
    }

    #[test]
    fn small_corpus_trains() {
        let lines: Vec<&str> = ["ab ab abc", "ab b"].repeat(5);
        let v = train_lines(&lines, 12, 1);
        let names: Vec<&str> = v.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(&names[..4], &["<unk>", "<s>", "</s>", "▁ab"]);
        assert!(v.len() <= 12);
    }

    #[test]
    fn same_for_any_thread_count() {
        let text =
            std::iter::repeat_n("the quick brown fox jumps over the lazy dog, then the dog sleeps; foxes run", 50)
                .collect::<Vec<_>>();
        let a = train_lines(&text, 40, 1);
        let b = train_lines(&text, 40, 3);
        assert_eq!(a, b);
    }

    #[test]
    fn validity_rules() {
        assert_eq!(script_of('a'), 2);
        assert_eq!(script_of('1'), 0); // Common
        assert_eq!(script_of('ひ'), 15);
        assert!((digamma(1.0) + 0.5772156649).abs() < 1e-6);
    }

    #[test]
    fn errors_name_the_option() {
        let opts = UnigramOptions { vocab_size: 3, ..Default::default() };
        let e = train(vec![("▁abc".into(), 3)], &opts, &|_| {}, &Control::default()).unwrap_err();
        assert!(e.to_string().contains("vocab_size"));
        let opts = UnigramOptions { character_coverage: 0.5, ..Default::default() };
        let e = train(vec![("▁abc".into(), 3)], &opts, &|_| {}, &Control::default()).unwrap_err();
        assert!(e.to_string().contains("character_coverage"));
    }
    #[test]
    fn seeds_follow_the_reference_rule() {
        // The Python reference gives, for these words, after the characters:
        // ▁ab ▁abc ab abc ▁abd abd bc bd (frequency * length, then string).
        let words = vec![("▁abc".to_string(), 3u64), ("▁abd".to_string(), 2), ("▁xyz".to_string(), 1)];
        let required = required_chars(&words, 1.0);
        let mut by_cp: Vec<char> = required.iter().map(|&(c, _)| c).collect();
        by_cp.sort_unstable();
        let dense: FxHashMap<char, u32> = by_cp.iter().enumerate().map(|(i, &c)| (c, i as u32)).collect();
        let mut chars = by_cp.clone();
        chars.push(UNK_CHAR);
        let info = CharInfo {
            script: chars.iter().map(|&c| script_of(c)).collect(),
            digit: chars.iter().map(|_| false).collect(),
            space: dense[&SPACE],
            unk: by_cp.len() as u32,
            chars: chars.clone(),
        };
        let mut corpus = Words { chars: Vec::new(), starts: vec![0], counts: Vec::new() };
        for (w, n) in &words {
            corpus.chars.extend(w.chars().map(|c| dense[&c]));
            corpus.starts.push(corpus.chars.len() as u32);
            corpus.counts.push(*n);
        }
        let seeds = seed_substrings(&corpus, &info, &UnigramOptions::default()).unwrap();
        let got: Vec<String> = seeds.iter().map(|(p, _)| p.iter().map(|&c| chars[c as usize]).collect()).collect();
        assert_eq!(got, ["▁ab", "▁abc", "ab", "abc", "▁abd", "abd", "bc", "bd"]);
    }

    #[test]
    fn meta_layout_and_user_symbols() {
        let lines = ["<sep> hello world<sep>", "hello there, world"].repeat(10);
        let mut w = UnigramWords::new();
        w.add_texts(&lines, &["<sep>".to_string()], None, 2).unwrap();
        let opts = UnigramOptions {
            vocab_size: 300,
            byte_fallback: true,
            control_symbols: vec!["<cls>".into()],
            user_defined_symbols: vec!["<sep>".into()],
            ..Default::default()
        };
        let v = train(w.into_sorted(), &opts, &|_| {}, &Control::default()).unwrap();
        let names: Vec<&str> = v.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(&names[..5], &["<unk>", "<s>", "</s>", "<cls>", "<sep>"]);
        assert_eq!((names[5], names[260]), ("<0x00>", "<0xFF>"));
        assert!(v[5..261].iter().all(|p| p.2 == PieceKind::Byte));
        assert!(!v.iter().any(|p| p.2 == PieceKind::Normal && p.0.contains("sep")));
    }

    #[test]
    fn cancel_stops_training() {
        let control = Control::default();
        control.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        let opts = UnigramOptions { vocab_size: 20, ..Default::default() };
        let e = train(vec![("▁abc".into(), 3)], &opts, &|_| {}, &control).unwrap_err();
        assert_eq!(e, CoreError::Cancelled);
    }
}
