//! The one copy of the known OpenAI pre-tokenizer patterns (tiktoken's strings, byte for
//! byte).
//!
//! Everything that needs these strings reads them from here: `KnownPattern::from_pattern`
//! (which selects a hand-written matcher by exact string equality, so a copy that drifted by
//! one character would silently fall back to the regex engine), and Python through
//! `_core.known_patterns()`.
//!
//! It also holds the split patterns of common Hugging Face `tokenizer.json` files (Llama 3,
//! Qwen2, and DeepSeek V3's sequence of three splits) and the Hugging Face spellings of the tiktoken patterns that our exporter writes, so
//! that those files run on the hand-written matchers too.
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

/// Llama 3 / 3.1 / 3.2 / 3.3 split pattern (their `tokenizer.json`, `pre_tokenizer.pretokenizers[0]`).
/// Not equivalent to `CL100K_PAT`: no `\s++$`, so a trailing whitespace run that contains a
/// newline splits after its last newline.
pub const LLAMA3_PAT: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Qwen2 / Qwen2.5 / Qwen3 split pattern: `LLAMA3_PAT` with one digit per piece.
pub const QWEN2_PAT: &str =
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// DeepSeek V3 / R1 `tokenizer.json`: the first of the three `Isolated` splits of its
/// pre-tokenizer (`pre_tokenizer.pretokenizers[0..3]`): runs of up to three digits.
pub const DEEPSEEK_V3_DIGITS_PAT: &str = "\\p{N}{1,3}";
/// DeepSeek V3's second split: runs of CJK ideographs (U+4E00..U+9FA5 only), hiragana and
/// katakana (U+3040..U+30FF), spelled with the characters themselves as in the file.
pub const DEEPSEEK_V3_CJK_PAT: &str = "[\u{4E00}-\u{9FA5}\u{3040}-\u{309F}\u{30A0}-\u{30FF}]+";
/// DeepSeek V3's third split. Written exactly as the JSON string literal of the file (the
/// `\r\n` in its classes are the control characters themselves, not escapes).
pub const DEEPSEEK_V3_MAIN_PAT: &str = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";
/// DeepSeek V3's three splits, in order (all `Isolated`, not inverted).
pub const DEEPSEEK_V3_SPLITS: [&str; 3] = [DEEPSEEK_V3_DIGITS_PAT, DEEPSEEK_V3_CJK_PAT, DEEPSEEK_V3_MAIN_PAT];
/// `R50K_PAT` as our Hugging Face exporter writes it (`python/tokenmill/formats/hf_regex.py`:
/// possessive quantifiers as atomic groups, `$` as `\z`); the same regex, token for token.
pub const R50K_HF_PAT: &str =
    r"'(?:[sdmt]|ll|ve|re)| ?(?>\p{L}+)| ?(?>\p{N}+)| ?(?>[^\s\p{L}\p{N}]+)|(?>\s+)\z|\s+(?!\S)|\s";
/// `CL100K_PAT` as our Hugging Face exporter writes it (see `R50K_HF_PAT`). The exporter
/// leaves `O200K_PAT` unchanged (it has no possessive quantifier or anchor).
pub const CL100K_HF_PAT: &str = concat!(
    r"'(?i:[sdmt]|ll|ve|re)|(?>[^\r\n\p{L}\p{N}]?)(?>\p{L}+)|(?>\p{N}{1,3})| ?(?>[^\s\p{L}\p{N}]+)(?>[\r\n]*)",
    r"|(?>\s+)\z|\s*[\r\n]|\s+(?!\S)|\s"
);

/// The patterns Python names, as `(encoding family, pattern)`: what `_core.known_patterns()`
/// returns. `GPT2_ORIGINAL_PAT` is not listed: no standard encoding uses that spelling.
pub const KNOWN_PATTERNS: [(&str, &str); 3] =
    [("r50k_base", R50K_PAT), ("cl100k_base", CL100K_PAT), ("o200k_base", O200K_PAT)];
