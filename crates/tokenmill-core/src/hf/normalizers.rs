//! HF normalizers (the `normalizer` field of `tokenizer.json`), with HF's exact text and
//! alignment semantics (`tokenizers/src/normalizers/`).
//!
//! Implemented: `NFC`, `NFD`, `NFKC`, `NFKD`, `Lowercase`, `StripAccents` (drops combining marks,
//! HF's `is_combining_mark`), `Nmt`, `ByteLevel`, `BertNormalizer`, `Replace` (literal or regex),
//! `Prepend`, `Strip`, `Sequence`, `Precompiled` (a SentencePiece charsmap applied HF's way, on
//! grapheme clusters: `precompiled`).
//!
//! Unicode tables: NFx and combining marks come from `unicode-normalization-alignments` and BERT's
//! categories from `unicode_categories`, the crates HF uses; lowercasing and `is_whitespace` are
//! std's, as in HF. What this module does not do: split text (`pretokenizers`) or added tokens.

mod precompiled;

pub use precompiled::Precompiled;

use serde_json::Value;
use unicode_normalization_alignments::char::is_combining_mark;

use super::bytes::byte_level_char;
use super::json::{index, join, unsupported, Obj, PatternSpec};
use super::normalized::{CompiledPattern, NormalizedString};
use crate::error::CoreError;
use crate::normalize::bert::BertNormalizer;

/// The normalizer types of `from_json`.
const SUPPORTED: &[&str] = &[
    "BertNormalizer",
    "ByteLevel",
    "Lowercase",
    "NFC",
    "NFD",
    "NFKC",
    "NFKD",
    "Nmt",
    "Precompiled",
    "Prepend",
    "Replace",
    "Sequence",
    "Strip",
    "StripAccents",
];

/// A HF normalizer.
#[derive(Debug, Clone)]
pub enum Normalizer {
    Nfc,
    Nfd,
    Nfkc,
    Nfkd,
    Lowercase,
    StripAccents,
    Nmt,
    ByteLevel,
    Bert(BertNormalizer),
    Replace { pattern: CompiledPattern, content: String },
    Prepend(String),
    Strip { left: bool, right: bool },
    Sequence(Vec<Normalizer>),
    Precompiled(Box<Precompiled>),
}

impl Normalizer {
    /// Builds the normalizer of `v` (the `normalizer` field, at `path`).
    pub fn from_json(v: &Value, path: &str) -> Result<Self, CoreError> {
        let o = Obj::new(v, path)?;
        let tag = o.type_tag()?;
        // Unit normalizers: HF's serde accepts (and ignores) other keys, which cannot change
        // anything; we still refuse them, as everywhere, rather than guess.
        let unit = |n: Normalizer| -> Result<Normalizer, CoreError> {
            o.only(&["type"])?;
            Ok(n)
        };
        match tag {
            "NFC" => unit(Normalizer::Nfc),
            "NFD" => unit(Normalizer::Nfd),
            "NFKC" => unit(Normalizer::Nfkc),
            "NFKD" => unit(Normalizer::Nfkd),
            "Lowercase" => unit(Normalizer::Lowercase),
            "StripAccents" => unit(Normalizer::StripAccents),
            "Nmt" => unit(Normalizer::Nmt),
            "ByteLevel" => unit(Normalizer::ByteLevel),
            "BertNormalizer" => {
                o.only(&["type", "clean_text", "handle_chinese_chars", "strip_accents", "lowercase"])?;
                Ok(Normalizer::Bert(BertNormalizer {
                    clean_text: o.bool("clean_text")?,
                    handle_chinese_chars: o.bool("handle_chinese_chars")?,
                    strip_accents: match o.opt("strip_accents") {
                        None => None,
                        Some(_) => Some(o.bool("strip_accents")?),
                    },
                    lowercase: o.bool("lowercase")?,
                }))
            }
            "Replace" => {
                o.only(&["type", "pattern", "content"])?;
                let ppath = join(path, "pattern");
                let spec = PatternSpec::from_json(o.req("pattern")?, &ppath)?;
                Ok(Normalizer::Replace {
                    pattern: CompiledPattern::new(&spec, &ppath)?,
                    content: o.str("content")?.to_string(),
                })
            }
            "Prepend" => {
                o.only(&["type", "prepend"])?;
                Ok(Normalizer::Prepend(o.str("prepend")?.to_string()))
            }
            "Strip" => {
                o.only(&["type", "strip_left", "strip_right"])?;
                Ok(Normalizer::Strip { left: o.bool("strip_left")?, right: o.bool("strip_right")? })
            }
            "Sequence" => {
                o.only(&["type", "normalizers"])?;
                let spath = join(path, "normalizers");
                let items = o.array("normalizers")?;
                let v = items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| Normalizer::from_json(x, &index(&spath, i)))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Normalizer::Sequence(v))
            }
            "Precompiled" => Ok(Normalizer::Precompiled(Box::new(Precompiled::from_json(o)?))),
            other => Err(unsupported(&join(path, "type"), &format!("{other:?}"), SUPPORTED)),
        }
    }

    /// Normalizes `n` in place.
    pub fn normalize(&self, n: &mut NormalizedString) -> Result<(), CoreError> {
        match self {
            Normalizer::Nfc => n.nfc(),
            Normalizer::Nfd => n.nfd(),
            Normalizer::Nfkc => n.nfkc(),
            Normalizer::Nfkd => n.nfkd(),
            Normalizer::Lowercase => n.lowercase(),
            Normalizer::StripAccents => {
                if !n.as_str().is_ascii() {
                    n.filter(|c| !is_combining_mark(c));
                }
            }
            Normalizer::Nmt => nmt(n),
            Normalizer::ByteLevel => n.map_chars(|c, out| {
                let mut buf = [0u8; 4];
                for &b in c.encode_utf8(&mut buf).as_bytes() {
                    out.push(byte_level_char(b));
                }
            }),
            Normalizer::Bert(b) => {
                let r = b.normalize(n.as_str());
                n.rewrite_chars(r.text, &r.align);
            }
            Normalizer::Replace { pattern, content } => n.replace(&pattern.as_pattern(), content)?,
            Normalizer::Prepend(s) => n.prepend(s),
            Normalizer::Strip { left, right } => n.strip_sides(*left, *right),
            Normalizer::Sequence(v) => {
                for x in v {
                    x.normalize(n)?;
                }
            }
            Normalizer::Precompiled(p) => p.normalize(n)?,
        }
        Ok(())
    }

    /// `s` normalized (for added tokens' contents).
    pub fn normalize_str(&self, s: &str) -> Result<String, CoreError> {
        let mut n = NormalizedString::new(s, 0, false);
        self.normalize(&mut n)?;
        Ok(n.into_string())
    }
}

/// HF's `Nmt`: drops some control characters, maps some spaces and separators to a space.
fn nmt(n: &mut NormalizedString) {
    let drop = |c: char| matches!(c as u32, 0x0001..=0x0008 | 0x000B | 0x000E..=0x001F | 0x007F | 0x008F | 0x009F);
    let space = |c: char| {
        matches!(
            c as u32,
            0x0009 | 0x000A | 0x000C | 0x000D | 0x1680 | 0x200B..=0x200F | 0x2028 | 0x2029 | 0x2581 | 0xFEFF | 0xFFFD
        )
    };
    if n.as_str().chars().any(|c| drop(c) || space(c)) {
        n.map_chars(|c, out| {
            if space(c) {
                out.push(' ')
            } else if !drop(c) {
                out.push(c)
            }
        });
    }
}

#[cfg(test)]
mod tests;
