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

mod em;
mod seeds;
mod words;

use em::*;
use seeds::*;
pub use words::UnigramWords;
use words::*;

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
