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
mod tests {
    use super::*;
    use crate::hf::normalized::tests::{check, Case};

    // Expected values from HF tokenizers 0.23.3 (Python): the piece texts and, for each character,
    // its original offsets (characters), from
    //   Tokenizer.from_str(json with this "normalizer"/"pre_tokenizer" and model
    //     BPE(vocab = every character of the pieces, merges = [])).encode(input, add_special_tokens=False)
    // grouped by word_ids (one token per character; texts cross-checked against
    //   normalizer.normalize_str(input) and pre_tokenizer.pre_tokenize_str(...)).
    const PRETOKENIZER_CASES: &[Case] = &[
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}"#),
            "h\u{e9}llo \u{1f917}",
            &[
                ("h\u{c3}\u{a9}llo", &[(0, 1), (1, 2), (1, 2), (2, 3), (3, 4), (4, 5)]),
                ("\u{120}\u{f0}\u{141}\u{a4}\u{139}", &[(5, 6), (6, 7), (6, 7), (6, 7), (6, 7)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}"#),
            "Hello world!  How's it going?\u{a}\u{a}",
            &[
                ("Hello", &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
                ("\u{120}world", &[(5, 6), (6, 7), (7, 8), (8, 9), (9, 10), (10, 11)]),
                ("!", &[(11, 12)]),
                ("\u{120}", &[(12, 13)]),
                ("\u{120}How", &[(13, 14), (14, 15), (15, 16), (16, 17)]),
                ("'s", &[(17, 18), (18, 19)]),
                ("\u{120}it", &[(19, 20), (20, 21), (21, 22)]),
                ("\u{120}going", &[(22, 23), (23, 24), (24, 25), (25, 26), (26, 27), (27, 28)]),
                ("?", &[(28, 29)]),
                ("\u{10a}\u{10a}", &[(29, 30), (30, 31)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}"#),
            " a",
            &[("\u{120}a", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}"#),
            "   ",
            &[("\u{120}\u{120}\u{120}", &[(0, 1), (1, 2), (2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}"#),
            "a\u{1c}b\u{85}c\u{a0}d  \u{200b}e",
            &[
                ("a", &[(0, 1)]),
                ("\u{11c}", &[(1, 2)]),
                ("b", &[(2, 3)]),
                ("\u{c2}\u{127}", &[(3, 4), (3, 4)]),
                ("c", &[(4, 5)]),
                ("\u{c2}\u{142}", &[(5, 6), (5, 6)]),
                ("d", &[(6, 7)]),
                ("\u{120}", &[(7, 8)]),
                ("\u{120}\u{e2}\u{122}\u{12d}", &[(8, 9), (9, 10), (9, 10), (9, 10)]),
                ("e", &[(10, 11)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}"#),
            "I'm 'll 've 123 4567 'S",
            &[
                ("I", &[(0, 1)]),
                ("'m", &[(1, 2), (2, 3)]),
                ("\u{120}'", &[(3, 4), (4, 5)]),
                ("ll", &[(5, 6), (6, 7)]),
                ("\u{120}'", &[(7, 8), (8, 9)]),
                ("ve", &[(9, 10), (10, 11)]),
                ("\u{120}123", &[(11, 12), (12, 13), (13, 14), (14, 15)]),
                ("\u{120}4567", &[(15, 16), (16, 17), (17, 18), (18, 19), (19, 20)]),
                ("\u{120}'", &[(20, 21), (21, 22)]),
                ("S", &[(22, 23)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}"#),
            "h\u{e9}llo \u{1f917}",
            &[(
                "h\u{c3}\u{a9}llo\u{120}\u{f0}\u{141}\u{a4}\u{139}",
                &[(0, 1), (1, 2), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (6, 7), (6, 7), (6, 7)],
            )],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}"#),
            "Hello world!  How's it going?\u{a}\u{a}",
            &[(
                "Hello\u{120}world!\u{120}\u{120}How's\u{120}it\u{120}going?\u{10a}\u{10a}",
                &[
                    (0, 1),
                    (1, 2),
                    (2, 3),
                    (3, 4),
                    (4, 5),
                    (5, 6),
                    (6, 7),
                    (7, 8),
                    (8, 9),
                    (9, 10),
                    (10, 11),
                    (11, 12),
                    (12, 13),
                    (13, 14),
                    (14, 15),
                    (15, 16),
                    (16, 17),
                    (17, 18),
                    (18, 19),
                    (19, 20),
                    (20, 21),
                    (21, 22),
                    (22, 23),
                    (23, 24),
                    (24, 25),
                    (25, 26),
                    (26, 27),
                    (27, 28),
                    (28, 29),
                    (29, 30),
                    (30, 31),
                ],
            )],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}"#),
            " a",
            &[("\u{120}a", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}"#),
            "   ",
            &[("\u{120}\u{120}\u{120}", &[(0, 1), (1, 2), (2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}"#),
            "a\u{1c}b\u{85}c\u{a0}d  \u{200b}e",
            &[(
                "a\u{11c}b\u{c2}\u{127}c\u{c2}\u{142}d\u{120}\u{120}\u{e2}\u{122}\u{12d}e",
                &[
                    (0, 1),
                    (1, 2),
                    (2, 3),
                    (3, 4),
                    (3, 4),
                    (4, 5),
                    (5, 6),
                    (5, 6),
                    (6, 7),
                    (7, 8),
                    (8, 9),
                    (9, 10),
                    (9, 10),
                    (9, 10),
                    (10, 11),
                ],
            )],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}"#),
            "I'm 'll 've 123 4567 'S",
            &[(
                "I'm\u{120}'ll\u{120}'ve\u{120}123\u{120}4567\u{120}'S",
                &[
                    (0, 1),
                    (1, 2),
                    (2, 3),
                    (3, 4),
                    (4, 5),
                    (5, 6),
                    (6, 7),
                    (7, 8),
                    (8, 9),
                    (9, 10),
                    (10, 11),
                    (11, 12),
                    (12, 13),
                    (13, 14),
                    (14, 15),
                    (15, 16),
                    (16, 17),
                    (17, 18),
                    (18, 19),
                    (19, 20),
                    (20, 21),
                    (21, 22),
                    (22, 23),
                ],
            )],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#),
            "h\u{e9}llo \u{1f917}",
            &[
                ("\u{120}h\u{c3}\u{a9}llo", &[(0, 1), (0, 1), (1, 2), (1, 2), (2, 3), (3, 4), (4, 5)]),
                ("\u{120}\u{f0}\u{141}\u{a4}\u{139}", &[(5, 6), (6, 7), (6, 7), (6, 7), (6, 7)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#),
            "Hello world!  How's it going?\u{a}\u{a}",
            &[
                ("\u{120}Hello", &[(0, 1), (0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
                ("\u{120}world", &[(5, 6), (6, 7), (7, 8), (8, 9), (9, 10), (10, 11)]),
                ("!", &[(11, 12)]),
                ("\u{120}", &[(12, 13)]),
                ("\u{120}How", &[(13, 14), (14, 15), (15, 16), (16, 17)]),
                ("'s", &[(17, 18), (18, 19)]),
                ("\u{120}it", &[(19, 20), (20, 21), (21, 22)]),
                ("\u{120}going", &[(22, 23), (23, 24), (24, 25), (25, 26), (26, 27), (27, 28)]),
                ("?", &[(28, 29)]),
                ("\u{10a}\u{10a}", &[(29, 30), (30, 31)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#),
            " a",
            &[("\u{120}a", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#),
            "   ",
            &[("\u{120}\u{120}\u{120}", &[(0, 1), (1, 2), (2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#),
            "a\u{1c}b\u{85}c\u{a0}d  \u{200b}e",
            &[
                ("\u{120}a", &[(0, 1), (0, 1)]),
                ("\u{11c}", &[(1, 2)]),
                ("b", &[(2, 3)]),
                ("\u{c2}\u{127}", &[(3, 4), (3, 4)]),
                ("c", &[(4, 5)]),
                ("\u{c2}\u{142}", &[(5, 6), (5, 6)]),
                ("d", &[(6, 7)]),
                ("\u{120}", &[(7, 8)]),
                ("\u{120}\u{e2}\u{122}\u{12d}", &[(8, 9), (9, 10), (9, 10), (9, 10)]),
                ("e", &[(10, 11)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#),
            "I'm 'll 've 123 4567 'S",
            &[
                ("\u{120}I", &[(0, 1), (0, 1)]),
                ("'m", &[(1, 2), (2, 3)]),
                ("\u{120}'", &[(3, 4), (4, 5)]),
                ("ll", &[(5, 6), (6, 7)]),
                ("\u{120}'", &[(7, 8), (8, 9)]),
                ("ve", &[(9, 10), (10, 11)]),
                ("\u{120}123", &[(11, 12), (12, 13), (13, 14), (14, 15)]),
                ("\u{120}4567", &[(15, 16), (16, 17), (17, 18), (18, 19), (19, 20)]),
                ("\u{120}'", &[(20, 21), (21, 22)]),
                ("S", &[(22, 23)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": false}"#),
            "h\u{e9}llo \u{1f917}",
            &[(
                "\u{120}h\u{c3}\u{a9}llo\u{120}\u{f0}\u{141}\u{a4}\u{139}",
                &[(0, 1), (0, 1), (1, 2), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (6, 7), (6, 7), (6, 7)],
            )],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": false}"#),
            "Hello world!  How's it going?\u{a}\u{a}",
            &[(
                "\u{120}Hello\u{120}world!\u{120}\u{120}How's\u{120}it\u{120}going?\u{10a}\u{10a}",
                &[
                    (0, 1),
                    (0, 1),
                    (1, 2),
                    (2, 3),
                    (3, 4),
                    (4, 5),
                    (5, 6),
                    (6, 7),
                    (7, 8),
                    (8, 9),
                    (9, 10),
                    (10, 11),
                    (11, 12),
                    (12, 13),
                    (13, 14),
                    (14, 15),
                    (15, 16),
                    (16, 17),
                    (17, 18),
                    (18, 19),
                    (19, 20),
                    (20, 21),
                    (21, 22),
                    (22, 23),
                    (23, 24),
                    (24, 25),
                    (25, 26),
                    (26, 27),
                    (27, 28),
                    (28, 29),
                    (29, 30),
                    (30, 31),
                ],
            )],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": false}"#),
            " a",
            &[("\u{120}a", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": false}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": false}"#),
            "   ",
            &[("\u{120}\u{120}\u{120}", &[(0, 1), (1, 2), (2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": false}"#),
            "a\u{1c}b\u{85}c\u{a0}d  \u{200b}e",
            &[(
                "\u{120}a\u{11c}b\u{c2}\u{127}c\u{c2}\u{142}d\u{120}\u{120}\u{e2}\u{122}\u{12d}e",
                &[
                    (0, 1),
                    (0, 1),
                    (1, 2),
                    (2, 3),
                    (3, 4),
                    (3, 4),
                    (4, 5),
                    (5, 6),
                    (5, 6),
                    (6, 7),
                    (7, 8),
                    (8, 9),
                    (9, 10),
                    (9, 10),
                    (9, 10),
                    (10, 11),
                ],
            )],
        ),
        (
            None,
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": false}"#),
            "I'm 'll 've 123 4567 'S",
            &[(
                "\u{120}I'm\u{120}'ll\u{120}'ve\u{120}123\u{120}4567\u{120}'S",
                &[
                    (0, 1),
                    (0, 1),
                    (1, 2),
                    (2, 3),
                    (3, 4),
                    (4, 5),
                    (5, 6),
                    (6, 7),
                    (7, 8),
                    (8, 9),
                    (9, 10),
                    (10, 11),
                    (11, 12),
                    (12, 13),
                    (13, 14),
                    (14, 15),
                    (15, 16),
                    (16, 17),
                    (17, 18),
                    (18, 19),
                    (19, 20),
                    (20, 21),
                    (21, 22),
                    (22, 23),
                ],
            )],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed", "invert": false}"#),
            "the-final--countdown",
            &[
                ("the", &[(0, 1), (1, 2), (2, 3)]),
                ("final", &[(4, 5), (5, 6), (6, 7), (7, 8), (8, 9)]),
                (
                    "countdown",
                    &[(11, 12), (12, 13), (13, 14), (14, 15), (15, 16), (16, 17), (17, 18), (18, 19), (19, 20)],
                ),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed", "invert": false}"#),
            "-a-",
            &[("a", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed", "invert": false}"#),
            "--",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed", "invert": false}"#),
            "a",
            &[("a", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed", "invert": false}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Removed", "invert": false}"#),
            "a12b3",
            &[("a", &[(0, 1)]), ("b", &[(3, 4)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Removed", "invert": false}"#),
            "12",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Removed", "invert": false}"#),
            "x",
            &[("x", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed", "invert": true}"#),
            "the-final--countdown",
            &[("-", &[(3, 4)]), ("-", &[(9, 10)]), ("-", &[(10, 11)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed", "invert": true}"#),
            "-a-",
            &[("-", &[(0, 1)]), ("-", &[(2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed", "invert": true}"#),
            "--",
            &[("-", &[(0, 1)]), ("-", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed", "invert": true}"#),
            "a",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed", "invert": true}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Removed", "invert": true}"#),
            "a12b3",
            &[("1", &[(1, 2)]), ("2", &[(2, 3)]), ("3", &[(4, 5)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Removed", "invert": true}"#),
            "12",
            &[("1", &[(0, 1)]), ("2", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Removed", "invert": true}"#),
            "x",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Punctuation", "behavior": "Removed"}"#),
            "Hey, you!! (x)",
            &[
                ("Hey", &[(0, 1), (1, 2), (2, 3)]),
                (" you", &[(4, 5), (5, 6), (6, 7), (7, 8)]),
                (" ", &[(10, 11)]),
                ("x", &[(12, 13)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Punctuation", "behavior": "Removed"}"#),
            "\u{bf}qu\u{e9}?",
            &[("qu\u{e9}", &[(1, 2), (2, 3), (3, 4)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Isolated", "invert": false}"#),
            "the-final--countdown",
            &[
                ("the", &[(0, 1), (1, 2), (2, 3)]),
                ("-", &[(3, 4)]),
                ("final", &[(4, 5), (5, 6), (6, 7), (7, 8), (8, 9)]),
                ("-", &[(9, 10)]),
                ("-", &[(10, 11)]),
                (
                    "countdown",
                    &[(11, 12), (12, 13), (13, 14), (14, 15), (15, 16), (16, 17), (17, 18), (18, 19), (19, 20)],
                ),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Isolated", "invert": false}"#),
            "-a-",
            &[("-", &[(0, 1)]), ("a", &[(1, 2)]), ("-", &[(2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Isolated", "invert": false}"#),
            "--",
            &[("-", &[(0, 1)]), ("-", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Isolated", "invert": false}"#),
            "a",
            &[("a", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Isolated", "invert": false}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Isolated", "invert": false}"#),
            "a12b3",
            &[("a", &[(0, 1)]), ("1", &[(1, 2)]), ("2", &[(2, 3)]), ("b", &[(3, 4)]), ("3", &[(4, 5)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Isolated", "invert": false}"#),
            "12",
            &[("1", &[(0, 1)]), ("2", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Isolated", "invert": false}"#),
            "x",
            &[("x", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Isolated", "invert": true}"#),
            "the-final--countdown",
            &[
                ("the", &[(0, 1), (1, 2), (2, 3)]),
                ("-", &[(3, 4)]),
                ("final", &[(4, 5), (5, 6), (6, 7), (7, 8), (8, 9)]),
                ("-", &[(9, 10)]),
                ("-", &[(10, 11)]),
                (
                    "countdown",
                    &[(11, 12), (12, 13), (13, 14), (14, 15), (15, 16), (16, 17), (17, 18), (18, 19), (19, 20)],
                ),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Isolated", "invert": true}"#),
            "-a-",
            &[("-", &[(0, 1)]), ("a", &[(1, 2)]), ("-", &[(2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Isolated", "invert": true}"#),
            "--",
            &[("-", &[(0, 1)]), ("-", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Isolated", "invert": true}"#),
            "a",
            &[("a", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Isolated", "invert": true}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Isolated", "invert": true}"#),
            "a12b3",
            &[("a", &[(0, 1)]), ("1", &[(1, 2)]), ("2", &[(2, 3)]), ("b", &[(3, 4)]), ("3", &[(4, 5)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Isolated", "invert": true}"#),
            "12",
            &[("1", &[(0, 1)]), ("2", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Isolated", "invert": true}"#),
            "x",
            &[("x", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Punctuation", "behavior": "Isolated"}"#),
            "Hey, you!! (x)",
            &[
                ("Hey", &[(0, 1), (1, 2), (2, 3)]),
                (",", &[(3, 4)]),
                (" you", &[(4, 5), (5, 6), (6, 7), (7, 8)]),
                ("!", &[(8, 9)]),
                ("!", &[(9, 10)]),
                (" ", &[(10, 11)]),
                ("(", &[(11, 12)]),
                ("x", &[(12, 13)]),
                (")", &[(13, 14)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Punctuation", "behavior": "Isolated"}"#),
            "\u{bf}qu\u{e9}?",
            &[("\u{bf}", &[(0, 1)]), ("qu\u{e9}", &[(1, 2), (2, 3), (3, 4)]), ("?", &[(4, 5)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": false}"#),
            "the-final--countdown",
            &[
                ("the-", &[(0, 1), (1, 2), (2, 3), (3, 4)]),
                ("final-", &[(4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)]),
                ("-", &[(10, 11)]),
                (
                    "countdown",
                    &[(11, 12), (12, 13), (13, 14), (14, 15), (15, 16), (16, 17), (17, 18), (18, 19), (19, 20)],
                ),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": false}"#),
            "-a-",
            &[("-", &[(0, 1)]), ("a-", &[(1, 2), (2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": false}"#),
            "--",
            &[("-", &[(0, 1)]), ("-", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": false}"#),
            "a",
            &[("a", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": false}"#),
            "",
            &[],
        ),
        (
            None,
            Some(
                r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "MergedWithPrevious", "invert": false}"#,
            ),
            "a12b3",
            &[("a1", &[(0, 1), (1, 2)]), ("2", &[(2, 3)]), ("b3", &[(3, 4), (4, 5)])],
        ),
        (
            None,
            Some(
                r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "MergedWithPrevious", "invert": false}"#,
            ),
            "12",
            &[("1", &[(0, 1)]), ("2", &[(1, 2)])],
        ),
        (
            None,
            Some(
                r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "MergedWithPrevious", "invert": false}"#,
            ),
            "x",
            &[("x", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": true}"#),
            "the-final--countdown",
            &[
                ("the", &[(0, 1), (1, 2), (2, 3)]),
                ("-final", &[(3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9)]),
                ("-", &[(9, 10)]),
                (
                    "-countdown",
                    &[
                        (10, 11),
                        (11, 12),
                        (12, 13),
                        (13, 14),
                        (14, 15),
                        (15, 16),
                        (16, 17),
                        (17, 18),
                        (18, 19),
                        (19, 20),
                    ],
                ),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": true}"#),
            "-a-",
            &[("-a", &[(0, 1), (1, 2)]), ("-", &[(2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": true}"#),
            "--",
            &[("-", &[(0, 1)]), ("-", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": true}"#),
            "a",
            &[("a", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": true}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "MergedWithPrevious", "invert": true}"#),
            "a12b3",
            &[("a", &[(0, 1)]), ("1", &[(1, 2)]), ("2b", &[(2, 3), (3, 4)]), ("3", &[(4, 5)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "MergedWithPrevious", "invert": true}"#),
            "12",
            &[("1", &[(0, 1)]), ("2", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "MergedWithPrevious", "invert": true}"#),
            "x",
            &[("x", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Punctuation", "behavior": "MergedWithPrevious"}"#),
            "Hey, you!! (x)",
            &[
                ("Hey,", &[(0, 1), (1, 2), (2, 3), (3, 4)]),
                (" you!", &[(4, 5), (5, 6), (6, 7), (7, 8), (8, 9)]),
                ("!", &[(9, 10)]),
                (" (", &[(10, 11), (11, 12)]),
                ("x)", &[(12, 13), (13, 14)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Punctuation", "behavior": "MergedWithPrevious"}"#),
            "\u{bf}qu\u{e9}?",
            &[("\u{bf}", &[(0, 1)]), ("qu\u{e9}?", &[(1, 2), (2, 3), (3, 4), (4, 5)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": false}"#),
            "the-final--countdown",
            &[
                ("the", &[(0, 1), (1, 2), (2, 3)]),
                ("-final", &[(3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9)]),
                ("-", &[(9, 10)]),
                (
                    "-countdown",
                    &[
                        (10, 11),
                        (11, 12),
                        (12, 13),
                        (13, 14),
                        (14, 15),
                        (15, 16),
                        (16, 17),
                        (17, 18),
                        (18, 19),
                        (19, 20),
                    ],
                ),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": false}"#),
            "-a-",
            &[("-a", &[(0, 1), (1, 2)]), ("-", &[(2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": false}"#),
            "--",
            &[("-", &[(0, 1)]), ("-", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": false}"#),
            "a",
            &[("a", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": false}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "MergedWithNext", "invert": false}"#),
            "a12b3",
            &[("a", &[(0, 1)]), ("1", &[(1, 2)]), ("2b", &[(2, 3), (3, 4)]), ("3", &[(4, 5)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "MergedWithNext", "invert": false}"#),
            "12",
            &[("1", &[(0, 1)]), ("2", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "MergedWithNext", "invert": false}"#),
            "x",
            &[("x", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": true}"#),
            "the-final--countdown",
            &[
                ("the-", &[(0, 1), (1, 2), (2, 3), (3, 4)]),
                ("final-", &[(4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)]),
                ("-", &[(10, 11)]),
                (
                    "countdown",
                    &[(11, 12), (12, 13), (13, 14), (14, 15), (15, 16), (16, 17), (17, 18), (18, 19), (19, 20)],
                ),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": true}"#),
            "-a-",
            &[("-", &[(0, 1)]), ("a-", &[(1, 2), (2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": true}"#),
            "--",
            &[("-", &[(0, 1)]), ("-", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": true}"#),
            "a",
            &[("a", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": true}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "MergedWithNext", "invert": true}"#),
            "a12b3",
            &[("a1", &[(0, 1), (1, 2)]), ("2", &[(2, 3)]), ("b3", &[(3, 4), (4, 5)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "MergedWithNext", "invert": true}"#),
            "12",
            &[("1", &[(0, 1)]), ("2", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "MergedWithNext", "invert": true}"#),
            "x",
            &[("x", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Punctuation", "behavior": "MergedWithNext"}"#),
            "Hey, you!! (x)",
            &[
                ("Hey", &[(0, 1), (1, 2), (2, 3)]),
                (", you", &[(3, 4), (4, 5), (5, 6), (6, 7), (7, 8)]),
                ("!", &[(8, 9)]),
                ("! ", &[(9, 10), (10, 11)]),
                ("(x", &[(11, 12), (12, 13)]),
                (")", &[(13, 14)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Punctuation", "behavior": "MergedWithNext"}"#),
            "\u{bf}qu\u{e9}?",
            &[("\u{bf}qu\u{e9}", &[(0, 1), (1, 2), (2, 3), (3, 4)]), ("?", &[(4, 5)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": false}"#),
            "the-final--countdown",
            &[
                ("the", &[(0, 1), (1, 2), (2, 3)]),
                ("-", &[(3, 4)]),
                ("final", &[(4, 5), (5, 6), (6, 7), (7, 8), (8, 9)]),
                ("--", &[(9, 10), (10, 11)]),
                (
                    "countdown",
                    &[(11, 12), (12, 13), (13, 14), (14, 15), (15, 16), (16, 17), (17, 18), (18, 19), (19, 20)],
                ),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": false}"#),
            "-a-",
            &[("-", &[(0, 1)]), ("a", &[(1, 2)]), ("-", &[(2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": false}"#),
            "--",
            &[("--", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": false}"#),
            "a",
            &[("a", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": false}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Contiguous", "invert": false}"#),
            "a12b3",
            &[("a", &[(0, 1)]), ("12", &[(1, 2), (2, 3)]), ("b", &[(3, 4)]), ("3", &[(4, 5)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Contiguous", "invert": false}"#),
            "12",
            &[("12", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Contiguous", "invert": false}"#),
            "x",
            &[("x", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": true}"#),
            "the-final--countdown",
            &[
                ("the", &[(0, 1), (1, 2), (2, 3)]),
                ("-", &[(3, 4)]),
                ("final", &[(4, 5), (5, 6), (6, 7), (7, 8), (8, 9)]),
                ("--", &[(9, 10), (10, 11)]),
                (
                    "countdown",
                    &[(11, 12), (12, 13), (13, 14), (14, 15), (15, 16), (16, 17), (17, 18), (18, 19), (19, 20)],
                ),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": true}"#),
            "-a-",
            &[("-", &[(0, 1)]), ("a", &[(1, 2)]), ("-", &[(2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": true}"#),
            "--",
            &[("--", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": true}"#),
            "a",
            &[("a", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": "-"}, "behavior": "Contiguous", "invert": true}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Contiguous", "invert": true}"#),
            "a12b3",
            &[("a", &[(0, 1)]), ("12", &[(1, 2), (2, 3)]), ("b", &[(3, 4)]), ("3", &[(4, 5)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Contiguous", "invert": true}"#),
            "12",
            &[("12", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Contiguous", "invert": true}"#),
            "x",
            &[("x", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Punctuation", "behavior": "Contiguous"}"#),
            "Hey, you!! (x)",
            &[
                ("Hey", &[(0, 1), (1, 2), (2, 3)]),
                (",", &[(3, 4)]),
                (" you", &[(4, 5), (5, 6), (6, 7), (7, 8)]),
                ("!!", &[(8, 9), (9, 10)]),
                (" ", &[(10, 11)]),
                ("(", &[(11, 12)]),
                ("x", &[(12, 13)]),
                (")", &[(13, 14)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Punctuation", "behavior": "Contiguous"}"#),
            "\u{bf}qu\u{e9}?",
            &[("\u{bf}", &[(0, 1)]), ("qu\u{e9}", &[(1, 2), (2, 3), (3, 4)]), ("?", &[(4, 5)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "Removed", "invert": false}"#),
            "  a  b c ",
            &[("a", &[(2, 3)]), ("b", &[(5, 6)]), ("c", &[(7, 8)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "Removed", "invert": false}"#),
            "\u{e9}\u{3000}\u{e9}",
            &[("\u{e9}", &[(0, 1)]), ("\u{e9}", &[(2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"Regex": ""}, "behavior": "Isolated", "invert": false}"#),
            "a\u{e9}",
            &[("a", &[(0, 1)]), ("\u{e9}", &[(1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Split", "pattern": {"String": ""}, "behavior": "Removed", "invert": false}"#),
            "a\u{e9}",
            &[("a", &[(0, 1)]), ("\u{e9}", &[(1, 2)])],
        ),
        (
            None,
            Some(
                r#"{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}"#,
            ),
            "h\u{e9}llo \u{1f917}",
            &[("h\u{e9}llo", &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]), (" \u{1f917}", &[(5, 6), (6, 7)])],
        ),
        (
            None,
            Some(
                r#"{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}"#,
            ),
            "Hello world!  How's it going?\u{a}\u{a}",
            &[
                ("Hello", &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
                (" world", &[(5, 6), (6, 7), (7, 8), (8, 9), (9, 10), (10, 11)]),
                ("!", &[(11, 12)]),
                (" ", &[(12, 13)]),
                (" How", &[(13, 14), (14, 15), (15, 16), (16, 17)]),
                ("'s", &[(17, 18), (18, 19)]),
                (" it", &[(19, 20), (20, 21), (21, 22)]),
                (" going", &[(22, 23), (23, 24), (24, 25), (25, 26), (26, 27), (27, 28)]),
                ("?\u{a}\u{a}", &[(28, 29), (29, 30), (30, 31)]),
            ],
        ),
        (
            None,
            Some(
                r#"{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}"#,
            ),
            " a",
            &[(" a", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(
                r#"{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}"#,
            ),
            "",
            &[],
        ),
        (
            None,
            Some(
                r#"{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}"#,
            ),
            "   ",
            &[("   ", &[(0, 1), (1, 2), (2, 3)])],
        ),
        (
            None,
            Some(
                r#"{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}"#,
            ),
            "a\u{1c}b\u{85}c\u{a0}d  \u{200b}e",
            &[
                ("a", &[(0, 1)]),
                ("\u{1c}b", &[(1, 2), (2, 3)]),
                ("\u{85}c", &[(3, 4), (4, 5)]),
                ("\u{a0}d", &[(5, 6), (6, 7)]),
                (" ", &[(7, 8)]),
                (" \u{200b}", &[(8, 9), (9, 10)]),
                ("e", &[(10, 11)]),
            ],
        ),
        (
            None,
            Some(
                r#"{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}"#,
            ),
            "I'm 'll 've 123 4567 'S",
            &[
                ("I", &[(0, 1)]),
                ("'m", &[(1, 2), (2, 3)]),
                (" '", &[(3, 4), (4, 5)]),
                ("ll", &[(5, 6), (6, 7)]),
                (" '", &[(7, 8), (8, 9)]),
                ("ve", &[(9, 10), (10, 11)]),
                (" ", &[(11, 12)]),
                ("123", &[(12, 13), (13, 14), (14, 15)]),
                (" ", &[(15, 16)]),
                ("456", &[(16, 17), (17, 18), (18, 19)]),
                ("7", &[(19, 20)]),
                (" '", &[(20, 21), (21, 22)]),
                ("S", &[(22, 23)]),
            ],
        ),
        (
            None,
            Some(
                r#"{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}"#,
            ),
            "\u{c9}COLE's 12345 \u{d}\u{a}\u{d}\u{a} x",
            &[
                ("\u{c9}COLE", &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
                ("'s", &[(5, 6), (6, 7)]),
                (" ", &[(7, 8)]),
                ("123", &[(8, 9), (9, 10), (10, 11)]),
                ("45", &[(11, 12), (12, 13)]),
                (" \u{d}\u{a}\u{d}\u{a}", &[(13, 14), (14, 15), (15, 16), (16, 17), (17, 18)]),
                (" x", &[(18, 19), (19, 20)]),
            ],
        ),
        (
            None,
            Some(
                r#"{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Removed", "invert": true}"#,
            ),
            "ab  12",
            &[("ab", &[(0, 1), (1, 2)]), (" ", &[(2, 3)]), (" ", &[(3, 4)]), ("12", &[(4, 5), (5, 6)])],
        ),
        (
            None,
            Some(r#"{"type": "Whitespace"}"#),
            "Hey friend!     How are you?!?",
            &[
                ("Hey", &[(0, 1), (1, 2), (2, 3)]),
                ("friend", &[(4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)]),
                ("!", &[(10, 11)]),
                ("How", &[(16, 17), (17, 18), (18, 19)]),
                ("are", &[(20, 21), (21, 22), (22, 23)]),
                ("you", &[(24, 25), (25, 26), (26, 27)]),
                ("?!?", &[(27, 28), (28, 29), (29, 30)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Whitespace"}"#),
            "a\u{1c}b\u{85}c\u{a0}d  \u{200b}e x\u{661}\u{662}\u{e9}_.,!",
            &[
                ("a", &[(0, 1)]),
                ("\u{1c}", &[(1, 2)]),
                ("b", &[(2, 3)]),
                ("c", &[(4, 5)]),
                ("d", &[(6, 7)]),
                ("\u{200b}", &[(9, 10)]),
                ("e", &[(10, 11)]),
                ("x\u{661}\u{662}\u{e9}_", &[(12, 13), (13, 14), (14, 15), (15, 16), (16, 17)]),
                (".,!", &[(17, 18), (18, 19), (19, 20)]),
            ],
        ),
        (None, Some(r#"{"type": "Whitespace"}"#), "  ", &[]),
        (None, Some(r#"{"type": "Whitespace"}"#), "", &[]),
        (
            None,
            Some(r#"{"type": "WhitespaceSplit"}"#),
            "Hey friend!     How are you?!?",
            &[
                ("Hey", &[(0, 1), (1, 2), (2, 3)]),
                ("friend!", &[(4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10), (10, 11)]),
                ("How", &[(16, 17), (17, 18), (18, 19)]),
                ("are", &[(20, 21), (21, 22), (22, 23)]),
                ("you?!?", &[(24, 25), (25, 26), (26, 27), (27, 28), (28, 29), (29, 30)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "WhitespaceSplit"}"#),
            "a\u{1c}b\u{85}c\u{a0}d  \u{200b}e x\u{661}\u{662}\u{e9}_.,!",
            &[
                ("a\u{1c}b", &[(0, 1), (1, 2), (2, 3)]),
                ("c", &[(4, 5)]),
                ("d", &[(6, 7)]),
                ("\u{200b}e", &[(9, 10), (10, 11)]),
                (
                    "x\u{661}\u{662}\u{e9}_.,!",
                    &[(12, 13), (13, 14), (14, 15), (15, 16), (16, 17), (17, 18), (18, 19), (19, 20)],
                ),
            ],
        ),
        (None, Some(r#"{"type": "WhitespaceSplit"}"#), "  ", &[]),
        (None, Some(r#"{"type": "WhitespaceSplit"}"#), "", &[]),
        (
            None,
            Some(r#"{"type": "BertPreTokenizer"}"#),
            "Hey friend!     How are you?!?",
            &[
                ("Hey", &[(0, 1), (1, 2), (2, 3)]),
                ("friend", &[(4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)]),
                ("!", &[(10, 11)]),
                ("How", &[(16, 17), (17, 18), (18, 19)]),
                ("are", &[(20, 21), (21, 22), (22, 23)]),
                ("you", &[(24, 25), (25, 26), (26, 27)]),
                ("?", &[(27, 28)]),
                ("!", &[(28, 29)]),
                ("?", &[(29, 30)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "BertPreTokenizer"}"#),
            "a\u{1c}b\u{85}c\u{a0}d  \u{200b}e x\u{661}\u{662}\u{e9}_.,!",
            &[
                ("a\u{1c}b", &[(0, 1), (1, 2), (2, 3)]),
                ("c", &[(4, 5)]),
                ("d", &[(6, 7)]),
                ("\u{200b}e", &[(9, 10), (10, 11)]),
                ("x\u{661}\u{662}\u{e9}", &[(12, 13), (13, 14), (14, 15), (15, 16)]),
                ("_", &[(16, 17)]),
                (".", &[(17, 18)]),
                (",", &[(18, 19)]),
                ("!", &[(19, 20)]),
            ],
        ),
        (None, Some(r#"{"type": "BertPreTokenizer"}"#), "  ", &[]),
        (None, Some(r#"{"type": "BertPreTokenizer"}"#), "", &[]),
        (None, Some(r#"{"type": "Punctuation"}"#), "a.b", &[("a", &[(0, 1)]), (".", &[(1, 2)]), ("b", &[(2, 3)])]),
        (
            None,
            Some(r#"{"type": "Digits", "individual_digits": false}"#),
            "a123b45 \u{661}\u{662}",
            &[
                ("a", &[(0, 1)]),
                ("123", &[(1, 2), (2, 3), (3, 4)]),
                ("b", &[(4, 5)]),
                ("45", &[(5, 6), (6, 7)]),
                (" ", &[(7, 8)]),
                ("\u{661}\u{662}", &[(8, 9), (9, 10)]),
            ],
        ),
        (None, Some(r#"{"type": "Digits", "individual_digits": false}"#), "", &[]),
        (
            None,
            Some(r#"{"type": "Digits", "individual_digits": true}"#),
            "a123b45 \u{661}\u{662}",
            &[
                ("a", &[(0, 1)]),
                ("1", &[(1, 2)]),
                ("2", &[(2, 3)]),
                ("3", &[(3, 4)]),
                ("b", &[(4, 5)]),
                ("4", &[(5, 6)]),
                ("5", &[(6, 7)]),
                (" ", &[(7, 8)]),
                ("\u{661}", &[(8, 9)]),
                ("\u{662}", &[(9, 10)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}"#),
            "Hey friend  now",
            &[
                ("\u{2581}Hey", &[(0, 1), (0, 1), (1, 2), (2, 3)]),
                ("\u{2581}friend", &[(3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)]),
                ("\u{2581}", &[(10, 11)]),
                ("\u{2581}now", &[(11, 12), (12, 13), (13, 14), (14, 15)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}"#),
            " a",
            &[("\u{2581}a", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}"#),
            "\u{2581}a",
            &[("\u{2581}a", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}"#),
            "",
            &[],
        ),
        (
            None,
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}"#),
            " ",
            &[("\u{2581}", &[(0, 1)])],
        ),
        (
            None,
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": true}"#),
            "Hey friend  now",
            &[
                ("Hey", &[(0, 1), (1, 2), (2, 3)]),
                ("\u{2581}friend", &[(3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)]),
                ("\u{2581}", &[(10, 11)]),
                ("\u{2581}now", &[(11, 12), (12, 13), (13, 14), (14, 15)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": true}"#),
            " a",
            &[("\u{2581}a", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": false}"#),
            "Hey friend  now",
            &[(
                "\u{2581}Hey\u{2581}friend\u{2581}\u{2581}now",
                &[
                    (0, 1),
                    (0, 1),
                    (1, 2),
                    (2, 3),
                    (3, 4),
                    (4, 5),
                    (5, 6),
                    (6, 7),
                    (7, 8),
                    (8, 9),
                    (9, 10),
                    (10, 11),
                    (11, 12),
                    (12, 13),
                    (13, 14),
                    (14, 15),
                ],
            )],
        ),
        (
            None,
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": false}"#),
            " a",
            &[("\u{2581}a", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(r#"{"type": "Metaspace", "replacement": "_", "add_prefix_space": true, "split": true}"#),
            "a b_c",
            &[("_a", &[(0, 1), (0, 1)]), ("_b", &[(1, 2), (2, 3)]), ("_c", &[(3, 4), (4, 5)])],
        ),
        (
            None,
            Some(
                r#"{"type": "Metaspace", "replacement": "▁", "add_prefix_space": false, "prepend_scheme": "never", "str_rep": "▁"}"#,
            ),
            "a b",
            &[("a", &[(0, 1)]), ("\u{2581}b", &[(1, 2), (2, 3)])],
        ),
        (
            None,
            Some(r#"{"type": "CharDelimiterSplit", "delimiter": "x"}"#),
            "axbxxc",
            &[("a", &[(0, 1)]), ("b", &[(2, 3)]), ("c", &[(5, 6)])],
        ),
        (None, Some(r#"{"type": "CharDelimiterSplit", "delimiter": "x"}"#), "x", &[]),
        (
            None,
            Some(r#"{"type": "FixedLength"}"#),
            "abcdefghijkl",
            &[
                ("abcde", &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
                ("fghij", &[(5, 6), (6, 7), (7, 8), (8, 9), (9, 10)]),
                ("kl", &[(10, 11), (11, 12)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "FixedLength"}"#),
            "h\u{e9}llo w\u{f6}rld",
            &[
                ("h\u{e9}llo", &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
                (" w\u{f6}rl", &[(5, 6), (6, 7), (7, 8), (8, 9), (9, 10)]),
                ("d", &[(10, 11)]),
            ],
        ),
        (
            None,
            Some(r#"{"type": "FixedLength", "length": 3}"#),
            "abcdefg",
            &[("abc", &[(0, 1), (1, 2), (2, 3)]), ("def", &[(3, 4), (4, 5), (5, 6)]), ("g", &[(6, 7)])],
        ),
        (None, Some(r#"{"type": "FixedLength", "length": 3}"#), "", &[]),
        (
            None,
            Some(
                r#"{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}]}"#,
            ),
            "h\u{e9}llo \u{1f917}",
            &[
                ("h\u{c3}\u{a9}llo", &[(0, 1), (1, 2), (1, 2), (2, 3), (3, 4), (4, 5)]),
                ("\u{120}\u{f0}\u{141}\u{a4}\u{139}", &[(5, 6), (6, 7), (6, 7), (6, 7), (6, 7)]),
            ],
        ),
        (
            None,
            Some(
                r#"{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}]}"#,
            ),
            "Hello world!  How's it going?\u{a}\u{a}",
            &[
                ("Hello", &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
                ("\u{120}world", &[(5, 6), (6, 7), (7, 8), (8, 9), (9, 10), (10, 11)]),
                ("!", &[(11, 12)]),
                ("\u{120}", &[(12, 13)]),
                ("\u{120}How", &[(13, 14), (14, 15), (15, 16), (16, 17)]),
                ("'s", &[(17, 18), (18, 19)]),
                ("\u{120}it", &[(19, 20), (20, 21), (21, 22)]),
                ("\u{120}going", &[(22, 23), (23, 24), (24, 25), (25, 26), (26, 27), (27, 28)]),
                ("?\u{10a}\u{10a}", &[(28, 29), (29, 30), (30, 31)]),
            ],
        ),
        (
            None,
            Some(
                r#"{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}]}"#,
            ),
            " a",
            &[("\u{120}a", &[(0, 1), (1, 2)])],
        ),
        (
            None,
            Some(
                r#"{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}]}"#,
            ),
            "",
            &[],
        ),
        (
            None,
            Some(
                r#"{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}]}"#,
            ),
            "   ",
            &[("\u{120}\u{120}\u{120}", &[(0, 1), (1, 2), (2, 3)])],
        ),
        (
            None,
            Some(
                r#"{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}]}"#,
            ),
            "a\u{1c}b\u{85}c\u{a0}d  \u{200b}e",
            &[
                ("a", &[(0, 1)]),
                ("\u{11c}b", &[(1, 2), (2, 3)]),
                ("\u{c2}\u{127}c", &[(3, 4), (3, 4), (4, 5)]),
                ("\u{c2}\u{142}d", &[(5, 6), (5, 6), (6, 7)]),
                ("\u{120}", &[(7, 8)]),
                ("\u{120}\u{e2}\u{122}\u{12d}", &[(8, 9), (9, 10), (9, 10), (9, 10)]),
                ("e", &[(10, 11)]),
            ],
        ),
        (
            None,
            Some(
                r#"{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}]}"#,
            ),
            "I'm 'll 've 123 4567 'S",
            &[
                ("I", &[(0, 1)]),
                ("'m", &[(1, 2), (2, 3)]),
                ("\u{120}'", &[(3, 4), (4, 5)]),
                ("ll", &[(5, 6), (6, 7)]),
                ("\u{120}'", &[(7, 8), (8, 9)]),
                ("ve", &[(9, 10), (10, 11)]),
                ("\u{120}", &[(11, 12)]),
                ("123", &[(12, 13), (13, 14), (14, 15)]),
                ("\u{120}", &[(15, 16)]),
                ("456", &[(16, 17), (17, 18), (18, 19)]),
                ("7", &[(19, 20)]),
                ("\u{120}'", &[(20, 21), (21, 22)]),
                ("S", &[(22, 23)]),
            ],
        ),
        (
            None,
            Some(
                r#"{"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Punctuation", "behavior": "Isolated"}, {"type": "Digits", "individual_digits": true}]}"#,
            ),
            "ab, 12!",
            &[("ab", &[(0, 1), (1, 2)]), (",", &[(2, 3)]), ("1", &[(4, 5)]), ("2", &[(5, 6)]), ("!", &[(6, 7)])],
        ),
        (
            Some(
                r#"{"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}"#,
            ),
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}"#),
            "Hey  you",
            &[
                ("\u{2581}Hey", &[(0, 1), (0, 1), (1, 2), (2, 3)]),
                ("\u{2581}", &[(3, 4)]),
                ("\u{2581}you", &[(4, 5), (5, 6), (6, 7), (7, 8)]),
            ],
        ),
        (
            Some(
                r#"{"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}"#,
            ),
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}"#),
            " x",
            &[("\u{2581}", &[(0, 1)]), ("\u{2581}x", &[(0, 1), (1, 2)])],
        ),
        (
            Some(
                r#"{"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}"#,
            ),
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}"#),
            "",
            &[],
        ),
        (
            Some(r#"{"type": "Replace", "pattern": {"String": " "}, "content": "▁"}"#),
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}"#),
            "Hey  you",
            &[
                ("\u{2581}Hey", &[(0, 1), (0, 1), (1, 2), (2, 3)]),
                ("\u{2581}", &[(3, 4)]),
                ("\u{2581}you", &[(4, 5), (5, 6), (6, 7), (7, 8)]),
            ],
        ),
        (
            Some(r#"{"type": "Replace", "pattern": {"String": " "}, "content": "▁"}"#),
            Some(r#"{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}"#),
            " x",
            &[("\u{2581}x", &[(0, 1), (1, 2)])],
        ),
        (
            Some(r#"{"type": "NFKC"}"#),
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#),
            "\u{fb01} \u{e9} \u{130}",
            &[
                ("\u{120}fi", &[(0, 1), (0, 1), (0, 1)]),
                ("\u{120}\u{c3}\u{a9}", &[(1, 2), (2, 3), (2, 3)]),
                ("\u{120}\u{c4}\u{b0}", &[(3, 4), (4, 5), (4, 5)]),
            ],
        ),
        (
            Some(r#"{"type": "NFKC"}"#),
            Some(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#),
            "x \u{2460}",
            &[("\u{120}x", &[(0, 1), (0, 1)]), ("\u{120}1", &[(1, 2), (2, 3)])],
        ),
        (
            Some(
                r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}"#,
            ),
            Some(r#"{"type": "BertPreTokenizer"}"#),
            "H\u{e9}llo, \u{4e2d}\u{6587} w\u{f6}rld!",
            &[
                ("hello", &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
                (",", &[(5, 6)]),
                ("\u{4e2d}", &[(7, 8)]),
                ("\u{6587}", &[(8, 9)]),
                ("world", &[(10, 11), (11, 12), (12, 13), (13, 14), (14, 15)]),
                ("!", &[(15, 16)]),
            ],
        ),
        (
            Some(
                r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}"#,
            ),
            Some(r#"{"type": "BertPreTokenizer"}"#),
            "\u{130} \u{fb01}",
            &[("i", &[(0, 1)]), ("\u{fb01}", &[(2, 3)])],
        ),
    ];

    // Same source; HF reads whether a piece "starts at offset 0" from the alignment, so these
    // need tracked pieces (needs_alignments).
    const ALIGNMENT_CASES: &[Case] = &[
        (
            None,
            Some(
                r#"{"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}]}"#,
            ),
            "a b",
            &[("\u{2581}a", &[(0, 1), (0, 1)]), ("b", &[(2, 3)])],
        ),
        (
            None,
            Some(
                r#"{"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}]}"#,
            ),
            " c d",
            &[("c", &[(1, 2)]), ("d", &[(3, 4)])],
        ),
        (
            Some(r#"{"type": "NFKC"}"#),
            Some(
                r#"{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"String": "f"}, "behavior": "Isolated", "invert": false}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}]}"#,
            ),
            "\u{fb01}",
            &[("\u{2581}f", &[(0, 1), (0, 1)]), ("\u{2581}i", &[(0, 1), (0, 1)])],
        ),
        (
            Some(r#"{"type": "NFKC"}"#),
            Some(
                r#"{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"String": "f"}, "behavior": "Isolated", "invert": false}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}]}"#,
            ),
            "x\u{fb01}",
            &[("\u{2581}x", &[(0, 1), (0, 1)]), ("f", &[(1, 2)]), ("i", &[(1, 2)])],
        ),
        (
            Some(r#"{"type": "Prepend", "prepend": "▁"}"#),
            Some(
                r#"{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"String": "▁"}, "behavior": "Isolated", "invert": false}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true}]}"#,
            ),
            "ab c",
            &[("\u{2581}", &[(0, 1)]), ("\u{2581}ab", &[(0, 1), (0, 1), (1, 2)]), ("\u{2581}c", &[(2, 3), (3, 4)])],
        ),
    ];

    #[test]
    fn pretokenizers_match_hf() {
        check(PRETOKENIZER_CASES, false);
    }

    #[test]
    fn metaspace_first_after_a_split_reads_alignments() {
        check(ALIGNMENT_CASES, true);
        for (_, pre, _, _) in ALIGNMENT_CASES {
            assert!(load(pre.unwrap()).unwrap().needs_alignments());
        }
        for (_, pre, _, _) in PRETOKENIZER_CASES {
            assert!(!load(pre.unwrap()).unwrap().needs_alignments(), "{pre:?}");
        }
    }

    fn load(j: &str) -> Result<PreTokenizer, CoreError> {
        PreTokenizer::from_json(&serde_json::from_str(j).unwrap(), "pre_tokenizer")
    }

    #[test]
    fn from_json_errors_name_the_field() {
        let e = load(r#"{"type": "UnicodeScripts"}"#).unwrap_err();
        assert!(matches!(&e, CoreError::Unsupported(m) if m.contains("pre_tokenizer.type")));
        let e = load(r#"{"type": "Foo"}"#).unwrap_err();
        assert!(matches!(&e, CoreError::Unsupported(m) if m.contains("Metaspace")));
        // HF: missing field `add_prefix_space` / `trim_offsets` / `invert`.
        assert_eq!(
            load(r#"{"type": "ByteLevel"}"#).unwrap_err().to_string(),
            "pre_tokenizer.add_prefix_space: missing"
        );
        let e = load(r#"{"type": "ByteLevel", "add_prefix_space": true}"#).unwrap_err();
        assert_eq!(e.to_string(), "pre_tokenizer.trim_offsets: missing");
        let e = load(r#"{"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"String": "a"}, "behavior": "Isolated"}]}"#)
            .unwrap_err();
        assert_eq!(e.to_string(), "pre_tokenizer.pretokenizers[0].invert: missing");
        let e =
            load(r#"{"type": "Split", "pattern": {"String": "a"}, "behavior": "Other", "invert": false}"#).unwrap_err();
        assert!(e.to_string().starts_with("pre_tokenizer.behavior: \"Other\""));
        // HF: "add_prefix_space does not match declared prepend_scheme"; "expected a character".
        let e = load(r#"{"type": "Metaspace", "replacement": "▁", "add_prefix_space": false}"#).unwrap_err();
        assert!(e.to_string().contains("add_prefix_space does not match"));
        let e = load(r#"{"type": "Metaspace", "replacement": "ab"}"#).unwrap_err();
        assert_eq!(e.to_string(), "pre_tokenizer.replacement: expected a single character, got \"ab\"");
        assert!(load(r#"{"type": "FixedLength", "length": 0}"#).is_err());
        assert!(matches!(load(r#"{"type": "Whitespace", "x": 1}"#), Err(CoreError::Unsupported(_))));
        assert!(load(r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "x": 1}"#).is_err());
    }
}
