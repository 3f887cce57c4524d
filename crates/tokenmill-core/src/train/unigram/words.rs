//! Counting words for Unigram training, and their characters: scripts, the required
//! alphabet (`character_coverage`) and words as dense character ids.

use super::*;

/// Word counts for training: `▁`-prefixed words, user-defined symbols cut out.
#[derive(Debug, Default)]
pub struct UnigramWords {
    counts: FxHashMap<String, u64>,
}

/// Texts above this many bytes are cut (at a space or newline) so one text uses every thread.
pub(super) const PART: usize = 1 << 18;

pub(super) fn cut_parts<'t>(texts: &[&'t str]) -> Vec<&'t str> {
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
pub(super) const SCRIPTS: &[&str] = &[
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
pub(super) fn script_ranges() -> &'static Vec<Vec<(u32, u32)>> {
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
pub(super) fn script_of(c: char) -> u32 {
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

pub(super) const INHERITED: u32 = 1;

/// What validity needs to know of each dense character id.
pub(super) struct CharInfo {
    pub(super) chars: Vec<char>,
    pub(super) script: Vec<u32>,
    pub(super) digit: Vec<bool>,
    pub(super) space: u32,
    pub(super) unk: u32,
}

impl CharInfo {
    /// sentencepiece's `IsValidSentencePiece` with whitespace splitting (see the reference).
    pub(super) fn valid(&self, piece: &[u32], opts: &UnigramOptions) -> bool {
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
pub(super) struct Words {
    pub(super) chars: Vec<u32>,
    /// `starts[w]..starts[w + 1]` is word `w`.
    pub(super) starts: Vec<u32>,
    pub(super) counts: Vec<u64>,
}

impl Words {
    pub(super) fn len(&self) -> usize {
        self.counts.len()
    }

    pub(super) fn word(&self, w: usize) -> &[u32] {
        &self.chars[self.starts[w] as usize..self.starts[w + 1] as usize]
    }
}

/// The required characters `(char, count)`, most frequent first (ties: smaller code point).
pub(super) fn required_chars(words: &[(String, u64)], coverage: f64) -> Vec<(char, u64)> {
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
