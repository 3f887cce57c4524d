//! BERT's normalizer, exactly as Hugging Face `tokenizers` (`BertNormalizer`) defines it, with
//! an alignment from each normalized character back to the original character it came from.
//!
//! The four steps, in HF's order, each optional: `clean_text` drops NUL, U+FFFD and control
//! characters (categories Cc, Cf, Co, except tab, newline and carriage return) and maps every
//! whitespace character to a space; `handle_chinese_chars` puts spaces around CJK ideographs
//! (HF's ranges, gaps included); `strip_accents` (None: follow `lowercase`) applies NFD and
//! drops nonspacing marks (Mn); `lowercase` maps with `char::to_lowercase`.
//!
//! Why HF's own Unicode crates (`unicode_categories`, `unicode-normalization-alignments`):
//! their tables are old, so for characters assigned since, std or a newer crate would answer
//! differently (a newer emoji is Cn there, not Cf/Co, and is kept; a newer mark is not Mn and
//! is kept). Same tables, same ids. Lowercasing is std's, as in HF.
//!
//! Alignment rule (HF's `NormalizedString::transform`): a character that replaces one takes
//! that one's alignment; a character added after it (the spaces around an ideograph, the extra
//! characters of a decomposition or of a lowercase mapping) takes the alignment of the last
//! replaced one. NFD's canonical reordering moves characters but not the "replaces/added"
//! flags with positions, so a reordered mark is aligned by position, as in HF.
//!
//! Speed: an ASCII character needs none of the Unicode work (it is a starter with no
//! decomposition), so ASCII goes straight to the output and only runs of non-ASCII
//! characters go through NFD. What this module does not do: split words (`pretokenize::bert`).

use unicode_categories::UnicodeCategories;
use unicode_normalization_alignments::UnicodeNormalization;

use super::Normalized;

/// HF's `BertNormalizer`. `strip_accents: None` means "strip when lowercasing".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BertNormalizer {
    pub clean_text: bool,
    pub handle_chinese_chars: bool,
    pub strip_accents: Option<bool>,
    pub lowercase: bool,
}

impl Default for BertNormalizer {
    /// HF's defaults (those of `bert-base-uncased`): everything on, accents follow lowercase.
    fn default() -> Self {
        BertNormalizer { clean_text: true, handle_chinese_chars: true, strip_accents: None, lowercase: true }
    }
}

/// HF's `is_control`: categories Cc, Cf and Co, but not tab, newline or carriage return.
fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

/// HF's CJK ranges (note the gap 0x2B820..0x2B91F, as in HF).
#[inline]
pub fn is_chinese_char(c: char) -> bool {
    matches!(
        c as u32,
        0x4E00..=0x9FFF
            | 0x3400..=0x4DBF
            | 0x20000..=0x2A6DF
            | 0x2A700..=0x2B73F
            | 0x2B740..=0x2B81F
            | 0x2B920..=0x2CEAF
            | 0xF900..=0xFAFF
            | 0x2F800..=0x2FA1F
    )
}

impl BertNormalizer {
    /// True when accents are stripped (`strip_accents`, or `lowercase` when it is None).
    pub fn strips_accents(&self) -> bool {
        self.strip_accents.unwrap_or(self.lowercase)
    }

    /// The normalized text and its alignment.
    pub fn normalize(&self, text: &str) -> Normalized {
        let mut out = Normalized::default();
        let mut run = Vec::new();
        self.normalize_into(text, &mut out, &mut run);
        out
    }

    /// `normalize` into reused buffers (`out` is cleared; `run` is working memory).
    pub fn normalize_into(&self, text: &str, out: &mut Normalized, run: &mut Vec<(char, u32)>) {
        out.text.clear();
        out.align.clear();
        run.clear();
        let strip = self.strips_accents();
        for (i, c) in text.chars().enumerate() {
            let i = i as u32;
            if c.is_ascii() {
                let mut b = c as u8;
                if self.clean_text {
                    if matches!(b, b'\t' | b'\n' | b'\r') {
                        b = b' ';
                    } else if b < 0x20 || b == 0x7f {
                        // Dropped before NFD: it must not end a run (marks on both sides of
                        // it meet, and may be reordered, in HF).
                        continue;
                    }
                }
                if !run.is_empty() {
                    self.flush(run, strip, out);
                }
                if self.lowercase {
                    b = b.to_ascii_lowercase();
                }
                out.text.push(b as char);
                out.align.push(i);
                continue;
            }
            let mut c = c;
            if self.clean_text {
                if c == '\u{fffd}' || is_control(c) {
                    continue;
                }
                if c.is_whitespace() {
                    c = ' ';
                }
            }
            if self.handle_chinese_chars && is_chinese_char(c) {
                run.extend([(' ', i), (c, i), (' ', i)]);
            } else {
                run.push((c, i));
            }
        }
        if !run.is_empty() {
            self.flush(run, strip, out);
        }
    }

    /// Accent stripping and lowercasing of a run of characters (the output of the first two
    /// steps for a run of non-ASCII input), appended to `out`; `run` is emptied.
    fn flush(&self, run: &mut Vec<(char, u32)>, strip: bool, out: &mut Normalized) {
        if strip {
            // HF's transform: a change-0 character replaces (and takes the alignment of) the next
            // input character; a change-1 character takes that of the last one replaced.
            let mut next = 0usize;
            let mut last = run[0].1;
            for (d, change) in run.iter().map(|&(c, _)| c).nfd() {
                if change == 0 {
                    last = run[next].1;
                    next += 1;
                }
                if !d.is_mark_nonspacing() {
                    self.push_lower(d, last, out);
                }
            }
        } else {
            for &(c, a) in run.iter() {
                self.push_lower(c, a, out);
            }
        }
        run.clear();
    }

    fn push_lower(&self, c: char, a: u32, out: &mut Normalized) {
        if self.lowercase {
            for l in c.to_lowercase() {
                out.text.push(l);
                out.align.push(a);
            }
        } else {
            out.text.push(c);
            out.align.push(a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(n: &BertNormalizer, s: &str) -> (String, Vec<u32>) {
        let r = n.normalize(s);
        (r.text, r.align)
    }

    #[test]
    fn defaults() {
        let n = BertNormalizer::default();
        assert_eq!(norm(&n, "Héllo\tW\u{0}"), ("hello w".into(), vec![0, 1, 2, 3, 4, 5, 6]));
        assert_eq!(norm(&n, "a中b"), ("a 中 b".into(), vec![0, 1, 1, 1, 2]));
        // İ lowercases to two characters, both aligned to it.
        assert_eq!(norm(&n, "İx"), ("ix".into(), vec![0, 1]));
        assert_eq!(norm(&n, "e\u{301}"), ("e".into(), vec![0]));
    }

    #[test]
    fn dropped_ascii_does_not_end_a_run() {
        let n = BertNormalizer { strip_accents: Some(true), lowercase: false, ..Default::default() };
        // \x01 is dropped before NFD; the marks around it are dropped as Mn.
        assert_eq!(norm(&n, "a\u{301}\u{1}\u{323}b"), ("ab".into(), vec![0, 4]));
        let k = BertNormalizer { strip_accents: Some(false), ..Default::default() };
        assert_eq!(norm(&k, "a\u{301}\u{1}\u{323}"), ("a\u{301}\u{323}".into(), vec![0, 1, 3]));
    }

    #[test]
    fn options_off() {
        let n =
            BertNormalizer { clean_text: false, handle_chinese_chars: false, strip_accents: None, lowercase: false };
        assert_eq!(norm(&n, "Ä\t中\u{0}"), ("Ä\t中\u{0}".into(), vec![0, 1, 2, 3]));
    }
}
