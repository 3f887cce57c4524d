//! Pre-tokenization: splitting text into the pieces that BPE merges within.
//!
//! Three engines, one contract: `Pretokenizer::for_each_piece` reports exactly the pieces
//! `fancy_regex::Regex::find_iter` would. The known OpenAI patterns (r50k/gpt2, cl100k,
//! o200k; their strings are in `patterns`, the one copy) and common Hugging Face split regexes
//! (Llama 3, Qwen2) get hand-written matchers (`fast`, on the Unicode tables of `unicode`),
//! because a general backtracking regex is where peers spend most of their time; on x86-64 the
//! cl100k-like ones, o200k and r50k split runs of plain ASCII 64 bytes at a time (`blocks`).
//! Any other pattern runs on a lazy DFA (`dfa`) when it can: no look-around but the usual
//! `\s+(?!\S)` alternative, which it handles by hand. The rest runs on `fancy_regex`, the engine tiktoken
//! uses, so custom patterns keep tiktoken's semantics. One matcher stands for no single regex:
//! `KnownPattern::DeepSeekV3` gives the pieces of DeepSeek V3's sequence of three `Isolated`
//! splits (each split running inside the pieces of the one before), which `hf::fast` selects
//! from the file's pre-tokenizer. `cuts` holds the rules for where a text may be cut without
//! changing its pieces.
//!
//! This module does not know about special tokens: callers split those off first and
//! pre-tokenize each segment on its own (so `$` means "end of segment", as in tiktoken).

pub mod bert;
#[cfg(target_arch = "x86_64")]
mod blocks;
pub mod cuts;
pub mod dfa;
pub mod fast;
pub mod patterns;
pub mod possessive;
pub mod unicode;

use crate::error::CoreError;
pub use cuts::{safe_cut_units_in, safe_cuts, safe_cuts_units};
pub use dfa::DfaSplitter;
pub use fast::{FnSink, KnownPattern, PieceSink};
pub use patterns::{CL100K_PAT, GPT2_ORIGINAL_PAT, O200K_PAT, R50K_PAT};

/// A compiled pre-tokenizer.
#[derive(Debug, Clone)]
pub enum Pretokenizer {
    /// Hand-written matcher for a known pattern.
    Fast(KnownPattern),
    /// Any other pattern the lazy DFA can run (`dfa`: no look-around but `\s+(?!\S)`).
    Dfa(Box<DfaSplitter>),
    /// Generic backtracking regex (tiktoken's engine) for the rest.
    Regex(Box<fancy_regex::Regex>),
}

impl Pretokenizer {
    /// Compiles `pattern`: the hand-written matcher when the pattern is a known one, else the
    /// lazy DFA when the pattern allows it, else the backtracking regex.
    pub fn new(pattern: &str) -> Result<Self, CoreError> {
        Self::with_engine(pattern, true)
    }

    /// Like `new`, but `allow_fast=false` forces the backtracking regex engine (used by tests
    /// to check the other engines against it).
    pub fn with_engine(pattern: &str, allow_fast: bool) -> Result<Self, CoreError> {
        if allow_fast {
            if let Some(kind) = KnownPattern::from_pattern(pattern) {
                // The matchers' Unicode tables are built here, with the encoder, not on the
                // clock of its first call (about a millisecond and 300 fresh pages).
                unicode::tables();
                return Ok(Pretokenizer::Fast(kind));
            }
            if let Some(d) = DfaSplitter::new(pattern) {
                return Ok(Pretokenizer::Dfa(Box::new(d)));
            }
        }
        Self::backtracking(pattern)
    }

    /// The lazy DFA engine for `pattern` even when a hand-written matcher exists (for tests),
    /// or `None` when the pattern needs the backtracking engine.
    pub fn dfa(pattern: &str) -> Option<Self> {
        DfaSplitter::new(pattern).map(|d| Pretokenizer::Dfa(Box::new(d)))
    }

    fn backtracking(pattern: &str) -> Result<Self, CoreError> {
        // Why the large backtrack limit: the default (1e6) makes tiktoken fail on ~1M spaces
        // followed by a letter; a failure here would be an error on valid text.
        let re = fancy_regex::RegexBuilder::new(pattern)
            .backtrack_limit(usize::MAX)
            .build()
            .map_err(|e| CoreError::Pattern(format!("{e}")))?;
        Ok(Pretokenizer::Regex(Box::new(re)))
    }

    /// The pattern string of a general engine (`None` for a hand-written matcher).
    pub fn source(&self) -> Option<&str> {
        match self {
            Pretokenizer::Fast(_) => None,
            Pretokenizer::Dfa(d) => Some(d.as_str()),
            Pretokenizer::Regex(re) => Some(re.as_str()),
        }
    }

    /// True when the hand-written matcher is used.
    pub fn is_fast(&self) -> bool {
        matches!(self, Pretokenizer::Fast(_))
    }

    /// Which engine runs: the hand-written matcher's name (`KnownPattern::name`: `"r50k"`,
    /// `"cl100k"`, `"o200k"`), `"dfa"` for the lazy DFA, or `"regex"` for the `fancy_regex`
    /// fallback.
    pub fn name(&self) -> &'static str {
        match self {
            Pretokenizer::Fast(kind) => kind.name(),
            Pretokenizer::Dfa(_) => "dfa",
            Pretokenizer::Regex(_) => "regex",
        }
    }

    /// Calls `f(start, end)` for each pre-token of `text`, in order.
    #[inline]
    pub fn for_each_piece<F: FnMut(usize, usize)>(&self, text: &str, f: F) -> Result<(), CoreError> {
        self.for_each_piece_into(text, &mut fast::FnSink(f))
    }

    /// `for_each_piece` into a `PieceSink`, inlined into the hand-written matchers' loops.
    ///
    /// Why the other engines take the sink as `dyn`: each engine's loop would get its own
    /// inlined copy of it, which only bloats the code; they lose nothing to a call per piece.
    #[inline]
    pub fn for_each_piece_into<S: PieceSink>(&self, text: &str, sink: &mut S) -> Result<(), CoreError> {
        match self {
            Pretokenizer::Fast(kind) => {
                kind.for_each_piece_into(text, sink);
                Ok(())
            }
            _ => self.for_each_piece_dyn(text, &mut |s, e| sink.piece(s, e)),
        }
    }

    fn for_each_piece_dyn(&self, text: &str, f: &mut dyn FnMut(usize, usize)) -> Result<(), CoreError> {
        match self {
            Pretokenizer::Fast(kind) => {
                kind.for_each_piece(text, f);
                Ok(())
            }
            Pretokenizer::Dfa(d) => {
                d.for_each_piece(text, f);
                Ok(())
            }
            Pretokenizer::Regex(re) => {
                for m in re.find_iter(text) {
                    let m = m.map_err(|e| CoreError::Pattern(format!("regex failed while splitting text: {e}")))?;
                    if m.end() > m.start() {
                        f(m.start(), m.end());
                    }
                }
                Ok(())
            }
        }
    }

    /// The pieces of `text` as byte ranges (a convenience for tests and Python).
    pub fn split(&self, text: &str) -> Result<Vec<(usize, usize)>, CoreError> {
        let mut out = Vec::new();
        self.for_each_piece(text, |s, e| out.push((s, e)))?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::patterns::KNOWN_PATTERNS;
    use super::*;

    /// Each constant of `patterns` selects its hand-written matcher (an edit to one string that
    /// `KnownPattern::from_pattern` did not follow would fall back to the regex silently).
    #[test]
    fn every_known_pattern_selects_its_matcher() {
        for (pattern, name) in
            [(R50K_PAT, "r50k"), (GPT2_ORIGINAL_PAT, "r50k"), (CL100K_PAT, "cl100k"), (O200K_PAT, "o200k")]
        {
            let p = Pretokenizer::new(pattern).unwrap();
            assert!(p.is_fast(), "{name}");
            assert_eq!(p.name(), name);
        }
        let names: Vec<&str> = KNOWN_PATTERNS.iter().map(|(_, p)| Pretokenizer::new(p).unwrap().name()).collect();
        assert_eq!(names, ["r50k", "cl100k", "o200k"]);
        let families: Vec<&str> = KNOWN_PATTERNS.iter().map(|(f, _)| *f).collect();
        assert_eq!(families, ["r50k_base", "cl100k_base", "o200k_base"]);
        // Anything else, even a pattern that splits the same way, runs on a general engine.
        for p in [GPT2_ORIGINAL_PAT, R50K_PAT, CL100K_PAT, O200K_PAT] {
            assert_eq!(Pretokenizer::new(&format!("{p}|x")).unwrap().name(), "dfa");
        }
        assert_eq!(Pretokenizer::new(&format!("{CL100K_PAT}|(?<=x)y")).unwrap().name(), "regex");
        assert_eq!(Pretokenizer::with_engine(CL100K_PAT, false).unwrap().name(), "regex");
    }
}
