//! The one copy of the known OpenAI pre-tokenizer patterns (tiktoken's strings, byte for
//! byte).
//!
//! Everything that needs these strings reads them from here: `KnownPattern::from_pattern`
//! (which selects a hand-written matcher by exact string equality, so a copy that drifted by
//! one character would silently fall back to the regex engine), and Python through
//! `_core.known_patterns()`.
//!
//! What it does not do: compile or match anything (`Pretokenizer`, `fast`), or name encodings
//! beyond the three standard families (the registry, in Python, maps encoding names to these).

/// GPT-2 / r50k / p50k pattern, as published in tiktoken.
pub const R50K_PAT: &str = r"'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s";
/// GPT-2's original pattern (as in `encoder.py`); equivalent to `R50K_PAT`.
pub const GPT2_ORIGINAL_PAT: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";
/// cl100k_base pattern.
pub const CL100K_PAT: &str = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s";
/// o200k_base pattern.
pub const O200K_PAT: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "|",
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "|",
    r"\p{N}{1,3}",
    "|",
    r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
    "|",
    r"\s*[\r\n]+",
    "|",
    r"\s+(?!\S)",
    "|",
    r"\s+"
);

/// The patterns Python names, as `(encoding family, pattern)`: what `_core.known_patterns()`
/// returns. `GPT2_ORIGINAL_PAT` is not listed: no standard encoding uses that spelling.
pub const KNOWN_PATTERNS: [(&str, &str); 3] =
    [("r50k_base", R50K_PAT), ("cl100k_base", CL100K_PAT), ("o200k_base", O200K_PAT)];
