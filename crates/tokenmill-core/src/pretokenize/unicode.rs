//! Unicode property tables for the hand-written pre-tokenizers (`fast`).
//!
//! Exactness first: the tables are not hand-maintained. They are built once, at first use, from
//! `regex-syntax` itself (the parser behind `fancy_regex` and `regex`), by parsing exactly the
//! classes the known patterns use (`\p{L}`, `\p{N}`, `\s`, o200k's two letter-case classes,
//! and DeepSeek V3's `\p{M}` and `[\p{P}\p{S}]`) and reading back their code-point ranges. So
//! the hand-written matchers and the regex engine agree on every code point by construction,
//! whatever Unicode version `regex-syntax` ships. (Hugging Face runs its regexes on Oniguruma,
//! whose tables are its own; the Python tests check that both give the same sets for these
//! classes, `tests/test_hf_deepseek.py`.)
//!
//! Layout: one `u8` bitmask of `CL_*` flags per code point, stored as a two-level table (256
//! code points per block, identical blocks shared; under 50 KB in all). Code points below 256
//! and those below U+0800 (every one- or two-byte character, 2 KiB) are in flat arrays, so
//! they cost a single load. Two bitmaps over the three-byte characters (16 KiB,
//! `ThreeByteLetters`) serve the matchers' runs of CJK letters, and 256 bytes of pages and
//! characters (`ThreeByteClasses`) the block path's. Building takes about a
//! millisecond in release mode.

use std::sync::OnceLock;

use regex_syntax::hir::{Class, HirKind};

/// `\p{L}`: a letter (any of Lu, Ll, Lt, Lm, Lo).
pub const CL_L: u8 = 1 << 0;
/// `\p{N}`: a number (Nd, Nl, No).
pub const CL_N: u8 = 1 << 1;
/// `\s`: Unicode `White_Space`, as `regex-syntax` defines `\s`.
pub const CL_S: u8 = 1 << 2;
/// o200k's "upper" class `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.
pub const CL_U: u8 = 1 << 3;
/// o200k's "lower" class `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
pub const CL_W: u8 = 1 << 4;
/// `[\r\n]` (only U+000D and U+000A).
pub const CL_NL: u8 = 1 << 5;
/// `\p{M}`: a mark (Mn, Mc, Me).
pub const CL_M: u8 = 1 << 6;
/// `[\p{P}\p{S}]`: punctuation or symbol (DeepSeek V3 only uses the two together).
pub const CL_PS: u8 = 1 << 7;

/// The class expressions the tables are built from, with the flag each one sets.
/// (Public so tests can check the tables against `regex-syntax` independently.)
pub const CLASS_SOURCES: [(&str, u8); 8] = [
    (r"\p{L}", CL_L),
    (r"\p{N}", CL_N),
    (r"\s", CL_S),
    (r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", CL_U),
    (r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", CL_W),
    (r"[\r\n]", CL_NL),
    (r"\p{M}", CL_M),
    (r"[\p{P}\p{S}]", CL_PS),
];

const BLOCK_BITS: u32 = 8;
const BLOCK: usize = 1 << BLOCK_BITS;
const N_BLOCKS: usize = 0x11_0000 >> BLOCK_BITS;

/// Per-code-point class flags.
pub struct Tables {
    /// Flags of U+0000..=U+00FF (the fast path for ASCII and Latin-1).
    pub latin1: [u8; 256],
    /// Flags of U+0000..=U+07FF (every one- and two-byte character), flat: `class` reads
    /// them with one load.
    upto_7ff: Box<[u8; 0x800]>,
    /// Block index (in units of `BLOCK` entries of `blocks`) for each block of 256 code points.
    index: Box<[u16; N_BLOCKS]>,
    /// Shared blocks, concatenated.
    blocks: Box<[u8]>,
    /// The two-byte characters that the block path takes as letters (`blocks`).
    pub two_byte: Box<TwoByteClasses>,
    /// The three-byte characters that the matchers' letter runs take in one step (`fast`).
    pub three_byte: Box<ThreeByteLetters>,
    /// The three-byte letters and punctuation that the block path takes (`blocks`).
    pub three_byte_blocks: Box<ThreeByteClasses>,
}

/// Which three-byte characters (U+0800..=U+FFFF) continue a run of letters, as bitmaps over
/// the code point: bit `cp & 63` of word `cp >> 6`.
///
/// Why: in Chinese or Japanese text a piece is a run of three-byte letters, and the matchers
/// read each with a decoding that branches on its length and a two-level table lookup; a
/// third of pre-tokenizing such text went there. With the lead byte known (three bytes), a
/// character's test is one bit of these 8 KiB.
#[repr(C, align(64))]
pub struct ThreeByteLetters {
    /// `\p{L}` (the cl100k-like patterns' letter runs).
    pub letter: [u64; 1024],
    /// In both of o200k's case classes, `U` and `W` (`Lm`, `Lo` and marks: CJK, kana, Hangul).
    pub both_cases: [u64; 1024],
}

impl ThreeByteLetters {
    fn build(flags: &[u8]) -> Box<ThreeByteLetters> {
        let mut t = Box::new(ThreeByteLetters { letter: [0; 1024], both_cases: [0; 1024] });
        for (cp, &f) in flags.iter().enumerate().take(0x1_0000).skip(0x800) {
            let bit = 1 << (cp & 63);
            if f & CL_L != 0 {
                t.letter[cp >> 6] |= bit;
            }
            if f & (CL_U | CL_W) == CL_U | CL_W {
                t.both_cases[cp >> 6] |= bit;
            }
        }
        t
    }
}

/// A letter in both of o200k's case classes (`Lo`, `Lm`; a mark is in both classes, but no
/// `\p{L}`), from its flags.
fn in_both_cases(f: u8) -> bool {
    f & (CL_L | CL_U | CL_W) == CL_L | CL_U | CL_W
}

/// `O` to every pattern, o200k's included: neither letter, mark, digit nor whitespace.
fn other_to_all(f: u8) -> bool {
    f & (CL_L | CL_N | CL_S | CL_M | CL_U | CL_W) == 0
}

/// `O` to the cl100k-like patterns and r50k: neither letter, digit nor whitespace.
fn other_without_case(f: u8) -> bool {
    f & (CL_L | CL_N | CL_S) == 0
}

/// Which three-byte characters the block path (`blocks`) takes as plain for the cl100k-like
/// patterns and r50k, in a layout for byte permutations (AVX-512 VBMI): whole pages of 64
/// code points that are letters (CJK ideographs, Hangul), and a few pages of mixed classes,
/// character by character (CJK punctuation, kana, fullwidth forms).
///
/// A page is the code point's bits above the lowest six: for a character `lead next last`,
/// `(lead & 0x0F) << 6 | (next & 0x3F)`.
#[repr(C, align(64))]
pub struct ThreeByteClasses {
    /// Bit `page & 7` of byte `page >> 3`: every code point of the page is in `\p{L}`.
    pub letter_pages: [u8; 128],
    /// For the pages of `DETAIL_PAGES` (the `i`-th one's code point `cp`): bit `cp & 7` of byte
    /// `i << 3 | (cp & 0x3F) >> 3`, set if `cp` is in `\p{L}`.
    pub detail_letter: [u8; 64],
    /// As `detail_letter`, for the code points in neither `\p{L}`, `\p{N}` nor `\s` (`O` to
    /// the cl100k-like patterns and r50k: punctuation, symbols, marks, unassigned).
    pub detail_other: [u8; 64],
    /// As `letter_pages`, for o200k: every code point of the page is a letter in both of its
    /// case classes (`Lo`, `Lm`; not a mark, which is no `\p{L}`).
    pub both_pages: [u8; 128],
    /// As `detail_letter`, for o200k: letters in both case classes.
    pub detail_both: [u8; 64],
    /// As `detail_other`, for o200k: neither letter, mark, digit nor whitespace.
    pub detail_punct: [u8; 64],
}

impl ThreeByteClasses {
    /// The pages read character by character, in order: U+3000-U+30FF (CJK punctuation,
    /// hiragana, katakana) and U+FF00-U+FF7F (fullwidth forms). `blocks::three_byte_vbmi`
    /// computes a page's place in this list from its bytes.
    pub const DETAIL_PAGES: [u32; 6] = [0x3000, 0x3040, 0x3080, 0x30C0, 0xFF00, 0xFF40];

    fn build(flags: &[u8]) -> Box<ThreeByteClasses> {
        let mut t = Box::new(ThreeByteClasses {
            letter_pages: [0; 128],
            detail_letter: [0; 64],
            detail_other: [0; 64],
            both_pages: [0; 128],
            detail_both: [0; 64],
            detail_punct: [0; 64],
        });
        // Pages below U+0800 have no three-byte form.
        for page in 0x800 >> 6..0x1_0000 >> 6 {
            let page_flags = &flags[page << 6..(page + 1) << 6];
            if page_flags.iter().all(|&f| f & CL_L != 0) {
                t.letter_pages[page >> 3] |= 1 << (page & 7);
            }
            if page_flags.iter().all(|&f| in_both_cases(f)) {
                t.both_pages[page >> 3] |= 1 << (page & 7);
            }
        }
        for (i, &first) in Self::DETAIL_PAGES.iter().enumerate() {
            for (cp, &f) in flags.iter().enumerate().skip(first as usize).take(64) {
                let (byte, bit) = (i << 3 | (cp & 0x3F) >> 3, 1 << (cp & 7));
                if f & CL_L != 0 {
                    t.detail_letter[byte] |= bit;
                } else if other_without_case(f) {
                    t.detail_other[byte] |= bit;
                }
                if in_both_cases(f) {
                    t.detail_both[byte] |= bit;
                } else if other_to_all(f) {
                    t.detail_punct[byte] |= bit;
                }
            }
        }
        t
    }
}

/// Which two-byte characters (a lead byte 0xC2..=0xDF, then one more) are cased letters, as
/// bitmaps: for the character `lead next`, bit `next & 7` of byte
/// `(lead & 0x1F) << 3 | (next >> 3 & 7)`. Read by the block path (`blocks`), a byte at a
/// time or 64 characters at once (the layout suits a byte permutation over 256 bytes).
#[repr(C, align(64))]
pub struct TwoByteClasses {
    /// Lower case letters: in `L` and o200k's lower class `W` only (`Ll`), except U+017F,
    /// which the contractions' `(?i:s)` matches (an apostrophe before it starts a contraction,
    /// which the block path does not look for).
    pub lower: [u8; 256],
    /// Upper case letters: in `L` and o200k's upper class `U` only (`Lu`, `Lt`).
    pub upper: [u8; 256],
    /// Neither letter, mark, digit nor whitespace (punctuation, symbols, controls, `«`, `¿`,
    /// `°`, `×`): `O` to every pattern, o200k's included (where a mark is a letter).
    pub punct: [u8; 256],
    /// Letters of any kind (`\p{L}`: cased, and the Hebrew, Arabic and modifier letters that
    /// are neither), except U+017F: the letters of the cl100k-like patterns and r50k, which
    /// know no case.
    pub letter: [u8; 256],
    /// Neither letter, digit nor whitespace (`punct` and the marks): `O` to the cl100k-like
    /// patterns and r50k.
    pub other: [u8; 256],
    /// Letters in both of o200k's case classes (`Lo`, `Lm`: Hebrew, Arabic, modifier letters;
    /// not the marks, which are no `\p{L}`).
    pub both: [u8; 256],
}

impl TwoByteClasses {
    /// The byte and bit of the character `lead next` (see the type).
    #[inline(always)]
    pub fn at(lead: u8, next: u8) -> (usize, u8) {
        (((lead as usize & 0x1F) << 3) | (next as usize >> 3 & 7), next & 7)
    }

    fn build(flags: &[u8]) -> Box<TwoByteClasses> {
        let mut t = Box::new(TwoByteClasses {
            lower: [0; 256],
            upper: [0; 256],
            punct: [0; 256],
            letter: [0; 256],
            other: [0; 256],
            both: [0; 256],
        });
        for lead in 0xC2..=0xDFu8 {
            for next in 0x80..=0xBFu8 {
                let cp = (lead as usize & 0x1F) << 6 | (next as usize & 0x3F);
                let (byte, bit) = Self::at(lead, next);
                if flags[cp] == CL_L | CL_W && cp != 0x17F {
                    t.lower[byte] |= 1 << bit;
                } else if flags[cp] == CL_L | CL_U {
                    t.upper[byte] |= 1 << bit;
                } else if other_to_all(flags[cp]) {
                    t.punct[byte] |= 1 << bit;
                }
                if in_both_cases(flags[cp]) {
                    t.both[byte] |= 1 << bit;
                }
                if flags[cp] & CL_L != 0 && cp != 0x17F {
                    t.letter[byte] |= 1 << bit;
                } else if other_without_case(flags[cp]) {
                    t.other[byte] |= 1 << bit;
                }
            }
        }
        t
    }
}

impl Tables {
    /// The `CL_*` flags of code point `cp` (0 for anything above U+10FFFF).
    #[inline(always)]
    pub fn class(&self, cp: u32) -> u8 {
        if cp < 0x800 {
            return self.upto_7ff[cp as usize];
        }
        match self.index.get((cp >> BLOCK_BITS) as usize) {
            Some(&b) => {
                let i = ((b as usize) << BLOCK_BITS) | (cp as usize & (BLOCK - 1));
                // `blocks.len()` is a multiple of BLOCK and `b` a valid block, so `i` is in range.
                self.blocks.get(i).copied().unwrap_or(0)
            }
            None => 0,
        }
    }

    fn build() -> Tables {
        let mut flat = vec![0u8; 0x11_0000];
        for (pattern, flag) in CLASS_SOURCES {
            for (lo, hi) in class_ranges(pattern) {
                for v in &mut flat[lo as usize..=hi as usize] {
                    *v |= flag;
                }
            }
        }
        let mut latin1 = [0u8; 256];
        latin1.copy_from_slice(&flat[..256]);
        let mut index = Box::new([0u16; N_BLOCKS]);
        let mut blocks: Vec<u8> = Vec::with_capacity(64 * BLOCK);
        // Fx, not SipHash: the 4,352 blocks are 1.1 MB to hash, on the first call's clock.
        let mut seen: rustc_hash::FxHashMap<&[u8], u16> = Default::default();
        for (bi, chunk) in flat.chunks_exact(BLOCK).enumerate() {
            let id = *seen.entry(chunk).or_insert_with(|| {
                let id = (blocks.len() / BLOCK) as u16;
                blocks.extend_from_slice(chunk);
                id
            });
            index[bi] = id;
        }
        let upto_7ff = Box::new(flat[..0x800].try_into().expect("0x800 entries"));
        let two_byte = TwoByteClasses::build(&flat);
        let three_byte = ThreeByteLetters::build(&flat);
        let three_byte_blocks = ThreeByteClasses::build(&flat);
        Tables { latin1, upto_7ff, index, blocks: blocks.into_boxed_slice(), two_byte, three_byte, three_byte_blocks }
    }
}

/// The code-point ranges of a single-class pattern, as `regex-syntax` parses it (inclusive).
///
/// Panics if `pattern` is not a Unicode class; only called on the fixed `CLASS_SOURCES`.
pub fn class_ranges(pattern: &str) -> Vec<(u32, u32)> {
    let hir =
        regex_syntax::Parser::new().parse(pattern).unwrap_or_else(|e| panic!("regex-syntax rejected {pattern:?}: {e}"));
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => c.ranges().iter().map(|r| (r.start() as u32, r.end() as u32)).collect(),
        other => panic!("{pattern:?} did not parse to a Unicode class: {other:?}"),
    }
}

static TABLES: OnceLock<Tables> = OnceLock::new();

/// The tables, built on first use.
#[inline]
pub fn tables() -> &'static Tables {
    TABLES.get_or_init(Tables::build)
}

/// The `CL_*` flags of `c` (convenience for tests and tools; the matchers use `Tables::class`).
pub fn class_of(c: char) -> u8 {
    tables().class(c as u32)
}
