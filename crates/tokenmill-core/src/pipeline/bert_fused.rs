//! BERT's normalizer, pre-tokenizer and WordPiece in one pass over the text, for ids only
//! (the "end-to-end" form of LinMaxMatch in Song et al., 2021): each input character is
//! classified once, its normalized bytes walk the WordPiece trie directly, and no normalized
//! string, alignment or word list is built.
//!
//! Why this is exactly the three-stage result: BERT's normalizer works character by character
//! (drop controls, map whitespace, space out CJK ideographs, NFD and drop nonspacing marks,
//! lowercase) except for one cross-character step, NFD's canonical reordering of adjacent
//! combining marks. Reordering among marks that are then dropped (Mn) changes nothing, so the
//! only character that could differ is a combining mark that is kept (a non-starter that is not
//! Mn, such as U+1D165): such a text is handed back to the exact path (`Class::Complex`).
//! Every other character's normalized text is computed by the exact normalizer itself
//! (`BertNormalizer::normalize` on that one character), so the two cannot drift apart.
//!
//! The classes: `Skip` (nothing: a dropped control or a stripped mark; the word goes on),
//! `Boundary` (whitespace: ends the word), `Word` (word characters: the word goes on with them),
//! `Isolated` (a word of its own: punctuation, or a CJK ideograph with spaces around it), and
//! `Complex` (anything else: the exact path). ASCII has a 128-entry table; other characters are
//! classified on first sight, 256 at a time, into blocks shared by all threads; the common CJK
//! ideographs need no table.
//!
//! What it does not do: offsets (`BertWordPiece::encode_into` gives them), added tokens.

use std::sync::OnceLock;

use unicode_categories::UnicodeCategories;
use unicode_normalization_alignments::char::{canonical_combining_class, decompose_canonical};

use crate::normalize::BertNormalizer;
use crate::pretokenize::bert::is_bert_punctuation;
use crate::wordpiece::{LinMax, WordPiece, NONE};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Kind {
    #[default]
    Complex,
    Skip,
    Boundary,
    Word,
    Isolated,
}

/// What BERT's normalizer and pre-tokenizer make of one character: its kind and, for `Word`
/// and `Isolated`, the normalized bytes (at most 12) and their character count.
#[derive(Clone, Copy, Debug, Default)]
struct Class {
    kind: Kind,
    len: u8,
    chars: u8,
    bytes: [u8; 12],
}

impl Class {
    fn of(normalizer: &BertNormalizer, c: char) -> Class {
        let mut buf = [0u8; 4];
        let s = normalizer.normalize(c.encode_utf8(&mut buf)).text;
        if s.is_empty() {
            return Class { kind: Kind::Skip, ..Class::default() };
        }
        if normalizer.strips_accents() {
            let mut kept_mark = false;
            decompose_canonical(c, |d| kept_mark |= canonical_combining_class(d) != 0 && !d.is_mark_nonspacing());
            if kept_mark {
                return Class::default();
            }
        }
        let space = |c: char| c.is_whitespace();
        if s.chars().all(space) {
            return Class { kind: Kind::Boundary, ..Class::default() };
        }
        let word_char = |c: char| !c.is_whitespace() && !is_bert_punctuation(c);
        let core = s.trim_matches(space);
        let (lead, trail) = (s.starts_with(space), s.ends_with(space));
        let mut it = core.chars();
        let single_punct = matches!((it.next(), it.next()), (Some(p), None) if is_bert_punctuation(p));
        let kind = if !lead && !trail && core.chars().all(word_char) {
            Kind::Word
        } else if single_punct || (lead && trail && core.chars().all(word_char)) {
            Kind::Isolated
        } else {
            return Class::default();
        };
        if core.len() > 12 {
            return Class::default();
        }
        let mut bytes = [0u8; 12];
        bytes[..core.len()].copy_from_slice(core.as_bytes());
        Class { kind, len: core.len() as u8, chars: core.chars().count() as u8, bytes }
    }
}

/// The per-character classes of one normalizer (ASCII eagerly, the rest on first sight).
#[derive(Debug)]
pub(crate) struct CharTable {
    normalizer: BertNormalizer,
    ascii: [Class; 128],
    /// Per byte: the normalized byte of an ASCII word character, else 0xFF (no ASCII
    /// character normalizes to it), for the hot loop.
    word_byte: [u8; 256],
    /// Whether a space ends a word and is nothing else (`Boundary`), as for every BERT
    /// normalizer: the hot loop then ends words at spaces itself.
    space_ends: bool,
    blocks: Box<[OnceLock<Box<[Class; 256]>>]>,
}

impl CharTable {
    pub(crate) fn new(normalizer: BertNormalizer) -> Self {
        let ascii: [Class; 128] = std::array::from_fn(|b| Class::of(&normalizer, b as u8 as char));
        let word_byte = std::array::from_fn(|b| match ascii.get(b) {
            Some(cl) if cl.kind == Kind::Word && cl.len == 1 => cl.bytes[0],
            _ => 0xFF,
        });
        let blocks = (0..=(char::MAX as usize >> 8)).map(|_| OnceLock::new()).collect();
        let space_ends = ascii[b' ' as usize].kind == Kind::Boundary;
        CharTable { normalizer, ascii, word_byte, space_ends, blocks }
    }

    #[inline]
    fn class(&self, c: char) -> Class {
        let u = c as u32;
        if u < 128 {
            return self.ascii[u as usize];
        }
        // The common CJK ideographs: no decomposition, not a control, space, mark or case; with
        // handle_chinese_chars each is a word of its own.
        if self.normalizer.handle_chinese_chars && matches!(u, 0x4E00..=0x9FFF | 0x3400..=0x4DBF) {
            let mut bytes = [0u8; 12];
            c.encode_utf8(&mut bytes);
            return Class { kind: Kind::Isolated, len: 3, chars: 1, bytes };
        }
        let Some(block) = self.blocks.get(u as usize >> 8) else { return Class::default() };
        let block = block.get_or_init(|| {
            let first = u & !0xFF;
            Box::new(std::array::from_fn(|i| {
                char::from_u32(first + i as u32).map_or(Class::default(), |c| Class::of(&self.normalizer, c))
            }))
        });
        block[u as usize & 0xFF]
    }
}

/// The word being walked through the trie.
struct Walk<'a> {
    lm: &'a LinMax,
    unk: u32,
    max_chars: usize,
    active: bool,
    failed: bool,
    p: u32,
    /// The base of `p` in the trie (`LinMax::step_from`).
    base: u32,
    mark: usize,
    chars: usize,
}

impl Walk<'_> {
    /// Starts a word unless one is in progress.
    #[inline(always)]
    fn begin(&mut self, ids: &[u32]) {
        if !self.active {
            self.active = true;
            self.failed = false;
            self.p = self.lm.root;
            self.base = self.lm.base(self.p);
            self.mark = ids.len();
            self.chars = 0;
        }
    }

    #[inline(always)]
    fn byte(&mut self, b: u8, ids: &mut Vec<u32>) {
        self.begin(ids);
        if self.failed {
            return;
        }
        loop {
            let (t, bt) = self.lm.step_from(self.p, self.base, b);
            if t != NONE {
                (self.p, self.base) = (t, bt);
                return;
            }
            self.p = self.lm.pop_ids(self.p, ids);
            if self.p == NONE {
                self.failed = true;
                return;
            }
            self.base = self.lm.base(self.p);
        }
    }

    #[inline(always)]
    fn end(&mut self, ids: &mut Vec<u32>) {
        if !self.active {
            return;
        }
        self.active = false;
        if !self.failed && self.chars <= self.max_chars {
            let mut p = self.p;
            while p != self.lm.cont {
                p = self.lm.pop_ids(p, ids);
                if p == NONE {
                    break;
                }
            }
            if p != NONE {
                return;
            }
        }
        ids.truncate(self.mark);
        ids.push(self.unk);
    }
}

/// Walks ASCII words from `i` (through `word_byte`, their normalized bytes) on from the walk
/// `w` (a word in progress): runs of word characters, each followed by one space that ends
/// the word here; stops at anything else (returning with the word in progress) or after a
/// space not followed by a word character (no word in progress). Returns where it stopped.
///
/// Why a function of its own that also ends words: its state stays in registers (inlined into
/// `encode`, the compiler kept it on the stack: a store and a load in the chain of every
/// trie step), and the commonest boundary, one space between words, costs no trip through
/// the character classes and their dispatch.
#[inline(never)]
fn ascii_words(
    w: &mut Walk<'_>,
    word_byte: &[u8; 256],
    space_ends: bool,
    bytes: &[u8],
    mut i: usize,
    ids: &mut Vec<u32>,
) -> usize {
    let lm = w.lm;
    let (mut p, mut base, mut failed, mut chars, mut mark) = (w.p, w.base, w.failed, w.chars, w.mark);
    loop {
        let run = i;
        while let Some(&b) = bytes.get(i) {
            let c = word_byte[b as usize];
            if c == 0xFF {
                break;
            }
            i += 1;
            if failed {
                continue;
            }
            loop {
                let (t, bt) = lm.step_from(p, base, c);
                if t != NONE {
                    (p, base) = (t, bt);
                    break;
                }
                p = lm.pop_ids(p, ids);
                if p == NONE {
                    failed = true;
                    break;
                }
                base = lm.base(p);
            }
        }
        chars += i - run;
        if !(space_ends && bytes.get(i) == Some(&b' ')) {
            break;
        }
        // The word ends at the space (`Walk::end`).
        let mut known = !failed && chars <= w.max_chars;
        while known && p != lm.cont {
            p = lm.pop_ids(p, ids);
            known = p != NONE;
        }
        if !known {
            ids.truncate(mark);
            ids.push(w.unk);
        }
        i += 1;
        if bytes.get(i).is_none_or(|&b| word_byte[b as usize] == 0xFF) {
            w.active = false;
            return i;
        }
        (p, base, failed, chars, mark) = (lm.root, lm.base(lm.root), false, 0, ids.len());
    }
    (w.p, w.base, w.failed, w.chars, w.mark) = (p, base, failed, chars, mark);
    i
}

/// Appends the ids of `text` and returns true; or returns false with `ids` unchanged when the
/// text needs the exact path (a `Complex` character).
pub(crate) fn encode(table: &CharTable, lm: &LinMax, model: &WordPiece, text: &str, ids: &mut Vec<u32>) -> bool {
    let start = ids.len();
    let mut w = Walk {
        lm,
        unk: model.unk_id(),
        max_chars: model.max_input_chars_per_word(),
        active: false,
        failed: false,
        p: NONE,
        base: NONE,
        mark: 0,
        chars: 0,
    };
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let cl = if b < 0x80 {
            let cl = &table.ascii[b as usize];
            if table.word_byte[b as usize] != 0xFF {
                // ASCII words: the hot loop.
                w.begin(ids);
                i = ascii_words(&mut w, &table.word_byte, table.space_ends, bytes, i, ids);
                continue;
            }
            i += 1;
            *cl
        } else {
            let Some(c) = text.get(i..).and_then(|t| t.chars().next()) else { break };
            i += c.len_utf8();
            table.class(c)
        };
        match cl.kind {
            Kind::Word => {
                for &b in &cl.bytes[..cl.len as usize] {
                    w.byte(b, ids);
                }
                w.chars += cl.chars as usize;
            }
            Kind::Skip => {}
            Kind::Boundary => w.end(ids),
            Kind::Isolated => {
                w.end(ids);
                for &b in &cl.bytes[..cl.len as usize] {
                    w.byte(b, ids);
                }
                w.chars += cl.chars as usize;
                w.end(ids);
            }
            Kind::Complex => {
                ids.truncate(start);
                return false;
            }
        }
    }
    w.end(ids);
    true
}

#[cfg(test)]
mod tests {
    use super::super::BertWordPiece;
    use crate::normalize::BertNormalizer;
    use crate::wordpiece::WordPiece;

    /// Characters from every class the one-pass path distinguishes: ASCII letters, digits,
    /// punctuation, controls and whitespace; accented letters precomposed and decomposed;
    /// marks (Mn, and U+1D165, a kept combining mark: the exact path); CJK ideographs common,
    /// compatibility (F900: decomposes) and supplementary; kana with voicing marks; Hangul;
    /// İ (lowercases to two characters); emoji; NUL, U+FFFD, Cf, Co, Unicode spaces; Σ.
    const ALPHABET: &[&str] = &[
        "a",
        "b",
        "Z",
        "1",
        " ",
        "  ",
        "\t",
        "\n",
        "\r",
        "\u{b}",
        "\u{1}",
        "\u{7f}",
        "!",
        "#",
        "?",
        ".",
        "'",
        "é",
        "e\u{301}",
        "\u{301}",
        "\u{323}",
        "Ä",
        "ñ",
        "\u{1d165}",
        "中",
        "\u{f900}",
        "\u{20001}",
        "が",
        "か\u{3099}",
        "ア",
        "한",
        "İ",
        "😀",
        "\u{0}",
        "\u{fffd}",
        "\u{200b}",
        "\u{e000}",
        "\u{3000}",
        "\u{a0}",
        "Σ",
        "«",
        "—",
        "ß",
        "ﬁ",
        "Ⅻ",
        "٣",
        "\u{85}",
    ];

    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            (crate::testing::xorshift_step(&mut self.0) % n as u64) as usize
        }
    }

    fn pipeline(n: BertNormalizer, rng: &mut Rng) -> BertWordPiece {
        // Tokens: normalized pieces of alphabet words, whole and as continuations.
        let mut vocab: Vec<String> = vec!["[UNK]".into()];
        for _ in 0..300 {
            let w: String = (0..1 + rng.below(3)).map(|_| ALPHABET[rng.below(ALPHABET.len())]).collect();
            let t = n.normalize(&w).text.split_whitespace().next().unwrap_or("x").to_string();
            for t in [t.clone(), format!("##{t}")] {
                if !t.is_empty() && !vocab.contains(&t) {
                    vocab.push(t);
                }
            }
        }
        let v = vocab.into_iter().enumerate().map(|(i, t)| (t, i as u32)).collect();
        BertWordPiece::new(n, WordPiece::new(v, "[UNK]", "##", 6).unwrap())
    }

    #[test]
    fn one_pass_equals_three_stages() {
        let mut rng = Rng(0x2545f4914f6cdd1d);
        for opts in 0..16u32 {
            let n = BertNormalizer {
                clean_text: opts & 1 != 0,
                handle_chinese_chars: opts & 2 != 0,
                strip_accents: [None, Some(true)][(opts >> 2 & 1) as usize],
                lowercase: opts & 8 != 0,
            };
            let p = pipeline(n, &mut rng);
            let mut scratch = Default::default();
            for _ in 0..400 {
                let text: String = (0..rng.below(25)).map(|_| ALPHABET[rng.below(ALPHABET.len())]).collect();
                let mut ids = vec![7];
                p.encode_ids_into(&text, &mut ids, &mut scratch);
                // The one-pass path takes every text but those with a kept combining mark.
                let lm = p.model.linmax().unwrap();
                let fused = super::encode(&p.table, lm, &p.model, &text, &mut Vec::new());
                assert_eq!(fused, !(n.strips_accents() && text.contains('\u{1d165}')), "{text:?}");
                let mut want = vec![7];
                want.extend(p.encode_staged(&text));
                assert_eq!(ids, want, "{n:?} {text:?}");
            }
        }
    }

    /// The hot loop's own word ends: ASCII words between single spaces, some unknown, some
    /// longer than `max_input_chars_per_word`, next to double spaces, punctuation and text ends.
    #[test]
    fn ascii_words_between_spaces() {
        let mut rng = Rng(0x9e3779b97f4a7c15);
        let n = BertNormalizer { clean_text: true, handle_chinese_chars: true, strip_accents: None, lowercase: true };
        let p = pipeline(n, &mut rng);
        let pieces = ["a", "b", "ab", "Z", "1", "aaaaaaa", "bab", " ", " ", " ", "  ", "!", "é", "\n"];
        let mut scratch = Default::default();
        for _ in 0..3000 {
            let text: String = (0..rng.below(30)).map(|_| pieces[rng.below(pieces.len())]).collect();
            let mut ids = Vec::new();
            p.encode_ids_into(&text, &mut ids, &mut scratch);
            assert_eq!(ids, p.encode_staged(&text), "{text:?}");
        }
    }
}
