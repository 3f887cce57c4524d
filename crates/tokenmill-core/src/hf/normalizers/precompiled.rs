//! HF's `Precompiled` normalizer: a SentencePiece charsmap (`precompiled_charsmap`, base64) applied
//! the way Hugging Face applies it (`spm_precompiled` and `tokenizers/src/normalizers/precompiled.rs`),
//! which is not the way sentencepiece does:
//! - the text is cut into extended grapheme clusters; a cluster shorter than 6 bytes is looked up
//!   whole, and if SOME prefix of it is a rule, the whole cluster becomes the replacement of the
//!   SHORTEST such prefix (so `Ａ` + a combining mark becomes `A`, the mark dropped);
//! - otherwise each character is looked up alone (a rule on a longer sequence never applies);
//! - a lookup stops at a NUL byte;
//! - alignments are HF's `transform` changes: per replaced part, the new characters replace the
//!   old ones one for one, extra new characters are insertions (`+1`, the last ones), and a part
//!   that shrinks adds the difference to the last change recorded so far, even when that change
//!   belongs to an earlier part (and nothing at all when nothing was recorded yet).
//!
//! The trie is `crate::spm::charsmap`. Grapheme clusters come from `unicode-segmentation` pinned
//! to the version inside HF's wheel, so the clusters (and their Unicode version) are HF's.
//!
//! Where tokenmill is stricter than HF (which fails on these at load or panics at the first text):
//! a charsmap that is empty, not base64, whose trie size is not a whole number of 4-byte units or
//! does not fit, whose replacements are not UTF-8; a replacement offset inside a character is an
//! error at normalization time. What this module does not do: sentencepiece's own normalization of
//! `.model` files (`crate::spm::normalizer`).

use base64::Engine as _;
use unicode_segmentation::UnicodeSegmentation;

use crate::error::CoreError;
use crate::hf::json::{bad, join, Obj};
use crate::hf::normalized::NormalizedString;
use crate::spm::charsmap::Charsmap;

/// A `Precompiled` normalizer.
#[derive(Debug, Clone)]
pub struct Precompiled {
    map: Charsmap,
}

impl Precompiled {
    /// Reads `{"type": "Precompiled", "precompiled_charsmap": "<base64>"}` (`o` at `path`).
    pub fn from_json(o: Obj) -> Result<Self, CoreError> {
        o.only(&["type", "precompiled_charsmap"])?;
        let field = join(o.path, "precompiled_charsmap");
        let b64 = o.str("precompiled_charsmap")?;
        let blob = base64::engine::general_purpose::STANDARD.decode(b64).map_err(|e| {
            bad(&field, format!("not base64 ({e}); it is the SentencePiece charsmap in standard base64"))
        })?;
        Self::new(&blob, &field)
    }

    /// The normalizer of a charsmap blob (`path` names it in errors).
    pub fn new(blob: &[u8], path: &str) -> Result<Self, CoreError> {
        if blob.len() < 4 {
            return Err(bad(
                path,
                format!("{} bytes, too short for a charsmap (a 4-byte trie size first)", blob.len()),
            ));
        }
        let size = u32::from_le_bytes([blob[0], blob[1], blob[2], blob[3]]) as usize;
        if !size.is_multiple_of(4) {
            return Err(bad(path, format!("the trie size {size} is not a multiple of 4: not a charsmap")));
        }
        // HF keeps the replacements as a `String`: not UTF-8 is a load error there too.
        if let Some(rest) = blob.get(4 + size..) {
            std::str::from_utf8(rest)
                .map_err(|e| bad(path, format!("the replacements after the trie are not UTF-8 ({e})")))?;
        }
        let map = Charsmap::new(blob).map_err(|e| bad(path, e))?;
        Ok(Precompiled { map })
    }

    /// The replacement of the shortest rule that is a prefix of `key` (HF's `transform`: the
    /// first result of its prefix search), `None` when none is.
    fn shortest(&self, key: &[u8]) -> Result<Option<&str>, CoreError> {
        for k in 1..=key.len() {
            if key[k - 1] == 0 {
                return Ok(None);
            }
            // The longest rule within `key[..k]` when none was within `key[..k - 1]`: length k.
            if let Some((_, rep)) = self.map.longest(&key[..k], 0) {
                return std::str::from_utf8(rep).map(Some).map_err(|_| {
                    CoreError::Vocab(
                        "normalizer: a Precompiled rule's replacement starts inside a character (a corrupted \
                         charsmap; Hugging Face panics on it)"
                            .to_string(),
                    )
                });
            }
        }
        Ok(None)
    }

    /// Normalizes `n` in place, with HF's alignments when `n` is tracked.
    pub fn normalize(&self, n: &mut NormalizedString) -> Result<(), CoreError> {
        let text = n.as_str();
        let bytes = text.as_bytes();
        let tracked = n.is_tracked();
        let mut changes: Vec<(char, isize)> = Vec::new();
        let mut out = String::new();
        let mut modified = false;
        // Bytes `copied..pos` are unchanged text not yet written to `out` / `changes`.
        let mut copied = 0usize;
        let mut pos = 0usize;
        while pos < bytes.len() {
            let b = bytes[pos];
            // Fast path: an ASCII character followed by ASCII (or the end) is a cluster of its
            // own (but CR LF), and `plain_ascii` says no rule starts with it.
            let next_ascii = bytes.get(pos + 1).is_none_or(|&c| c < 0x80);
            if b < 0x80 && next_ascii && !(b == b'\r' && bytes.get(pos + 1) == Some(&b'\n')) && self.map.plain_ascii(b)
            {
                pos += 1;
                continue;
            }
            let end = cluster_end(text, pos);
            let cluster = &text[pos..end];
            let whole = if cluster.len() < 6 { self.shortest(cluster.as_bytes())? } else { None };
            if let Some(rep) = whole {
                flush(text, &mut copied, pos, tracked, &mut out, &mut changes);
                modified = true;
                apply(cluster, rep, tracked, &mut out, &mut changes);
                copied = end;
            } else {
                for (i, c) in cluster.char_indices() {
                    let part = &cluster[i..i + c.len_utf8()];
                    if let Some(rep) = self.shortest(part.as_bytes())? {
                        flush(text, &mut copied, pos + i, tracked, &mut out, &mut changes);
                        modified = true;
                        apply(part, rep, tracked, &mut out, &mut changes);
                        copied = pos + i + part.len();
                    }
                }
            }
            pos = end;
        }
        if !modified {
            return Ok(());
        }
        flush(text, &mut copied, bytes.len(), tracked, &mut out, &mut changes);
        if tracked {
            n.transform(changes, 0);
        } else {
            *n = NormalizedString::from_string(out, n.orig_start());
        }
        Ok(())
    }
}

/// Writes the unchanged text `copied..to` (each character replacing itself).
fn flush(text: &str, copied: &mut usize, to: usize, tracked: bool, out: &mut String, changes: &mut Vec<(char, isize)>) {
    let s = &text[*copied..to];
    if tracked {
        changes.extend(s.chars().map(|c| (c, 0)));
    } else {
        out.push_str(s);
    }
    *copied = to;
}

/// HF's `replace` of `old` by `new` in the changes (or `new` appended to `out`).
fn apply(old: &str, new: &str, tracked: bool, out: &mut String, changes: &mut Vec<(char, isize)>) {
    if !tracked {
        out.push_str(new);
        return;
    }
    let old_n = old.chars().count() as isize;
    let before = changes.len();
    changes.extend(new.chars().map(|c| (c, 0)));
    let diff = (changes.len() - before) as isize - old_n;
    if diff > 0 {
        // The last `diff` new characters are insertions.
        let len = changes.len();
        for ch in &mut changes[len - diff as usize..] {
            ch.1 = 1;
        }
    } else if diff < 0 {
        // HF adds the removal to the last change recorded, whatever part it belongs to.
        if let Some(last) = changes.last_mut() {
            last.1 += diff;
        }
    }
}

// ---- grapheme clusters ------------------------------------------------------------------------

/// End of the extended grapheme cluster that starts at `start` (UAX #29, as HF cuts them).
fn cluster_end(text: &str, start: usize) -> usize {
    text[start..].graphemes(true).next().map_or(start, |g| start + g.len())
}

#[cfg(test)]
pub(crate) fn clusters(text: &str) -> Vec<&str> {
    text.graphemes(true).collect()
}
