//! HF pre-tokenizers (the `pre_tokenizer` field of `tokenizer.json`), with HF's exact splits and
//! alignments (`tokenizers/src/pre_tokenizers/`).
//!
//! A pre-tokenizer splits each piece of a list further, in order, dropping empty pieces (HF's
//! `PreTokenizedString::split`). Implemented: `ByteLevel` (GPT-2 regex split on the crate's
//! hand-written r50k matcher, then each byte becomes its GPT-2 byte-to-unicode character),
//! `Split`, `Whitespace`, `WhitespaceSplit`, `BertPreTokenizer`, `Punctuation`, `Digits`,
//! `Metaspace`, `CharDelimiterSplit`, `FixedLength`, `Sequence`. Not implemented:
//! `UnicodeScripts` (it needs HF's own script tables) -> `CoreError::Unsupported`.
//!
//! Regexes: HF runs `Split` and `ByteLevel` on Oniguruma and `Whitespace` on the `regex` crate;
//! we run the crate's `Pretokenizer` (hand-written matchers for the known GPT-2/cl100k/o200k
//! patterns, `fancy_regex` otherwise), see `CompiledPattern`. What this module does not do:
//! normalize (`normalizers`), or know about added tokens (the caller splits them off first).

use serde_json::Value;
use unicode_categories::UnicodeCategories;

use super::bytes::push_byte_level;
use super::json::{bad, index, join, unsupported, Obj, PatternSpec};
use super::normalized::{CompiledPattern, NormalizedString, Pattern, SplitBehavior};
use crate::error::CoreError;
use crate::pretokenize::{bert::for_each_word, Pretokenizer, R50K_PAT};

/// The pre-tokenizer types of `from_json`.
const SUPPORTED: &[&str] = &[
    "BertPreTokenizer",
    "ByteLevel",
    "CharDelimiterSplit",
    "Digits",
    "FixedLength",
    "Metaspace",
    "Punctuation",
    "Sequence",
    "Split",
    "Whitespace",
    "WhitespaceSplit",
];

/// Metaspace's `prepend_scheme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrependScheme {
    Always,
    Never,
    /// Only for a piece whose original text starts at offset 0 of the whole text (HF:
    /// `offsets_original().0 == 0`).
    First,
}

/// A HF pre-tokenizer.
#[derive(Debug, Clone)]
pub enum PreTokenizer {
    /// `re` is the GPT-2 pattern (the r50k matcher); `trim_offsets` is the post-processor's
    /// business, not ours.
    ByteLevel {
        add_prefix_space: bool,
        use_regex: bool,
        re: Pretokenizer,
    },
    Split {
        pattern: CompiledPattern,
        behavior: SplitBehavior,
        invert: bool,
    },
    /// `\w+|[^\w\s]+` kept, the rest removed.
    Whitespace(Pretokenizer),
    WhitespaceSplit,
    Bert,
    Punctuation(SplitBehavior),
    Digits {
        individual: bool,
    },
    Metaspace {
        replacement: char,
        prepend: PrependScheme,
        split: bool,
    },
    CharDelimiterSplit(char),
    FixedLength(usize),
    Sequence(Vec<PreTokenizer>),
}

/// HF's `is_punc` / `is_bert_punc`.
fn is_punc(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

fn behavior(o: &Obj<'_>, key: &str) -> Result<SplitBehavior, CoreError> {
    Ok(match o.str(key)? {
        "Removed" => SplitBehavior::Removed,
        "Isolated" => SplitBehavior::Isolated,
        "MergedWithPrevious" => SplitBehavior::MergedWithPrevious,
        "MergedWithNext" => SplitBehavior::MergedWithNext,
        "Contiguous" => SplitBehavior::Contiguous,
        other => {
            return Err(bad(
                &join(o.path, key),
                format!(
                    "{other:?} is not a split behavior (Removed, Isolated, MergedWithPrevious, MergedWithNext, \
                     Contiguous)"
                ),
            ))
        }
    })
}

/// A string field that must hold exactly one character (serde's `char`).
fn one_char(o: &Obj<'_>, key: &str) -> Result<char, CoreError> {
    let s = o.str(key)?;
    let mut it = s.chars();
    match (it.next(), it.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(bad(&join(o.path, key), format!("expected a single character, got {s:?}"))),
    }
}

impl PreTokenizer {
    pub fn from_json(v: &Value, path: &str) -> Result<Self, CoreError> {
        let o = Obj::new(v, path)?;
        let tag = o.type_tag()?;
        let unit = |p: PreTokenizer| -> Result<PreTokenizer, CoreError> {
            o.only(&["type"])?;
            Ok(p)
        };
        match tag {
            "ByteLevel" => {
                o.only(&["type", "add_prefix_space", "trim_offsets", "use_regex"])?;
                let add_prefix_space = o.bool("add_prefix_space")?;
                // Required by HF's serde, though it does not change the split.
                o.bool("trim_offsets")?;
                Ok(PreTokenizer::ByteLevel {
                    add_prefix_space,
                    use_regex: o.bool_or("use_regex", true)?,
                    re: Pretokenizer::new(R50K_PAT)?,
                })
            }
            "Split" => {
                o.only(&["type", "pattern", "behavior", "invert"])?;
                let ppath = join(path, "pattern");
                let spec = PatternSpec::from_json(o.req("pattern")?, &ppath)?;
                Ok(PreTokenizer::Split {
                    pattern: CompiledPattern::new(&spec, &ppath)?,
                    behavior: behavior(&o, "behavior")?,
                    invert: o.bool("invert")?,
                })
            }
            "Whitespace" => unit(PreTokenizer::Whitespace(Pretokenizer::new(r"\w+|[^\w\s]+")?)),
            "WhitespaceSplit" => unit(PreTokenizer::WhitespaceSplit),
            "BertPreTokenizer" => unit(PreTokenizer::Bert),
            "Punctuation" => {
                o.only(&["type", "behavior"])?;
                let b = if o.opt("behavior").is_some() { behavior(&o, "behavior")? } else { SplitBehavior::Isolated };
                Ok(PreTokenizer::Punctuation(b))
            }
            "Digits" => {
                o.only(&["type", "individual_digits"])?;
                Ok(PreTokenizer::Digits { individual: o.bool("individual_digits")? })
            }
            "Metaspace" => {
                o.only(&["type", "replacement", "add_prefix_space", "prepend_scheme", "split", "str_rep"])?;
                let replacement = one_char(&o, "replacement")?;
                let mut prepend = match o.get("prepend_scheme") {
                    None => PrependScheme::Always,
                    Some(_) => match o.str("prepend_scheme")? {
                        "always" => PrependScheme::Always,
                        "never" => PrependScheme::Never,
                        "first" => PrependScheme::First,
                        other => {
                            return Err(bad(
                                &join(path, "prepend_scheme"),
                                format!("{other:?} is not a prepend scheme (always, never, first)"),
                            ))
                        }
                    },
                };
                // HF's legacy field: false means "never", and must not contradict prepend_scheme.
                if o.opt("add_prefix_space").is_some() && !o.bool("add_prefix_space")? {
                    if prepend != PrependScheme::Never {
                        return Err(bad(
                            &join(path, "add_prefix_space"),
                            "add_prefix_space does not match declared prepend_scheme",
                        ));
                    }
                    prepend = PrependScheme::Never;
                }
                if o.opt("str_rep").is_some() {
                    o.str("str_rep")?;
                }
                Ok(PreTokenizer::Metaspace { replacement, prepend, split: o.bool_or("split", true)? })
            }
            "CharDelimiterSplit" => {
                o.only(&["type", "delimiter"])?;
                Ok(PreTokenizer::CharDelimiterSplit(one_char(&o, "delimiter")?))
            }
            "FixedLength" => {
                o.only(&["type", "length"])?;
                let n = o.opt_u64("length")?.unwrap_or(5);
                // HF loads 0 and then panics on every input.
                if n == 0 {
                    return Err(bad(&join(path, "length"), "must be at least 1"));
                }
                Ok(PreTokenizer::FixedLength(usize::try_from(n).unwrap_or(usize::MAX)))
            }
            "Sequence" => {
                o.only(&["type", "pretokenizers"])?;
                let spath = join(path, "pretokenizers");
                let v = o
                    .array("pretokenizers")?
                    .iter()
                    .enumerate()
                    .map(|(i, x)| PreTokenizer::from_json(x, &index(&spath, i)))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(PreTokenizer::Sequence(v))
            }
            "UnicodeScripts" => Err(CoreError::Unsupported(format!(
                "{}: the \"UnicodeScripts\" pre-tokenizer is not supported by tokenmill (supported: {})",
                join(path, "type"),
                SUPPORTED.join(", ")
            ))),
            other => Err(unsupported(&join(path, "type"), &format!("{other:?}"), SUPPORTED)),
        }
    }

    /// True when the ids depend on alignments, so pieces must be tracked even for ids: a
    /// Metaspace with `prepend_scheme: "first"` after another pre-tokenizer (whether a split
    /// piece "starts at original offset 0" is then read from the alignment, as HF does).
    pub fn needs_alignments(&self) -> bool {
        fn walk(p: &PreTokenizer, seen: &mut bool) -> bool {
            match p {
                PreTokenizer::Sequence(v) => v.iter().any(|x| walk(x, seen)),
                PreTokenizer::Metaspace { prepend: PrependScheme::First, .. } if *seen => true,
                _ => {
                    *seen = true;
                    false
                }
            }
        }
        walk(self, &mut false)
    }

    /// Splits each piece of `pieces` further, in place and in order; empty pieces are dropped.
    pub fn pre_tokenize(&self, pieces: &mut Vec<NormalizedString>) -> Result<(), CoreError> {
        if let PreTokenizer::Sequence(v) = self {
            return v.iter().try_for_each(|x| x.pre_tokenize(pieces));
        }
        let input = std::mem::take(pieces);
        pieces.reserve(input.len());
        for p in input {
            self.split_piece(p, pieces)?;
        }
        Ok(())
    }

    /// The pieces of `p`, appended to `out`.
    fn split_piece(&self, p: NormalizedString, out: &mut Vec<NormalizedString>) -> Result<(), CoreError> {
        match self {
            PreTokenizer::ByteLevel { add_prefix_space, use_regex, re } => {
                byte_level(p, *add_prefix_space, *use_regex, re, out)?
            }
            PreTokenizer::Split { pattern, behavior, invert } => {
                p.split_into(&pattern.as_pattern(), *invert, *behavior, out)?
            }
            PreTokenizer::Whitespace(re) => p.split_into(&Pattern::Regex(re), true, SplitBehavior::Removed, out)?,
            PreTokenizer::WhitespaceSplit => {
                p.split_into(&Pattern::Char(&char::is_whitespace), false, SplitBehavior::Removed, out)?
            }
            PreTokenizer::Bert => {
                // HF's two passes (whitespace removed, then punctuation isolated) in one.
                let mut ranges = Vec::new();
                for_each_word(p.as_str(), |s, e, _| ranges.push((s, e)));
                p.push_ranges(&ranges, out);
            }
            PreTokenizer::Punctuation(b) => p.split_into(&Pattern::Char(&is_punc), false, *b, out)?,
            PreTokenizer::Digits { individual } => {
                let b = if *individual { SplitBehavior::Isolated } else { SplitBehavior::Contiguous };
                p.split_into(&Pattern::Char(&char::is_numeric), false, b, out)?
            }
            PreTokenizer::Metaspace { replacement, prepend, split } => {
                let mut p = p;
                let mut buf = [0u8; 4];
                let rep: &str = replacement.encode_utf8(&mut buf);
                if p.as_str().contains(' ') {
                    p.replace(&Pattern::Char(&|c| c == ' '), rep)?;
                }
                let add = match prepend {
                    PrependScheme::Always => true,
                    PrependScheme::First => p.orig_start() == 0,
                    PrependScheme::Never => false,
                };
                if add && !p.as_str().starts_with(*replacement) {
                    p.prepend(rep);
                }
                if *split {
                    let r = *replacement;
                    p.split_into(&Pattern::Char(&|c| c == r), false, SplitBehavior::MergedWithNext, out)?
                } else if !p.is_empty() {
                    out.push(p)
                }
            }
            PreTokenizer::CharDelimiterSplit(d) => {
                let d = *d;
                p.split_into(&Pattern::Char(&|c| c == d), false, SplitBehavior::Removed, out)?
            }
            PreTokenizer::FixedLength(n) => {
                let mut ranges = Vec::new();
                let mut start = 0;
                for (k, (i, _)) in p.as_str().char_indices().enumerate() {
                    if k > 0 && k % n == 0 {
                        ranges.push((start, i));
                        start = i;
                    }
                }
                ranges.push((start, p.len()));
                p.push_ranges(&ranges, out);
            }
            PreTokenizer::Sequence(v) => {
                // Not reached from `pre_tokenize`; kept correct for direct callers.
                let mut tmp = vec![p];
                for x in v {
                    x.pre_tokenize(&mut tmp)?;
                }
                out.append(&mut tmp);
            }
        }
        Ok(())
    }
}

/// HF's ByteLevel pre-tokenizer on one piece: a space before text that does not start with one
/// (`add_prefix_space`), the GPT-2 split (`use_regex`), then every byte as its byte-level
/// character, each aligned to the original character the byte belongs to.
fn byte_level(
    mut p: NormalizedString,
    add_prefix_space: bool,
    use_regex: bool,
    re: &Pretokenizer,
    out: &mut Vec<NormalizedString>,
) -> Result<(), CoreError> {
    let prefix = add_prefix_space && !p.is_empty() && !p.as_str().starts_with(' ');
    if p.is_tracked() {
        if prefix {
            p.prepend(" ");
        }
        let first = out.len();
        if use_regex {
            p.split_into(&Pattern::Regex(re), false, SplitBehavior::Isolated, out)?;
        } else if !p.is_empty() {
            out.push(p);
        }
        for q in out.iter_mut().skip(first) {
            q.map_chars(|c, s| {
                let mut buf = [0u8; 4];
                push_byte_level(c.encode_utf8(&mut buf), s);
            });
        }
        return Ok(());
    }
    // Untracked: no alignment to keep, so each piece is built mapped, straight from the text.
    let orig = p.orig_start();
    let owned;
    let text: &str = if prefix {
        owned = format!(" {}", p.as_str());
        &owned
    } else {
        p.as_str()
    };
    let shift = usize::from(prefix);
    let mut emit = |s: usize, e: usize| {
        if let Some(t) = text.get(s..e).filter(|t| !t.is_empty()) {
            let mut m = String::with_capacity(t.len() + t.len() / 2);
            push_byte_level(t, &mut m);
            out.push(NormalizedString::from_string(m, orig + s.saturating_sub(shift)));
        }
    };
    if use_regex {
        Pattern::Regex(re).segments(text, |s, e, _| emit(s, e))?;
    } else {
        emit(0, text.len());
    }
    Ok(())
}

#[cfg(test)]
mod tests;
