//! The hand-written pre-tokenizers (`pretokenize::fast`) against the regex engine tiktoken uses
//! (`fancy_regex`, via `Pretokenizer::with_engine(pattern, false)`).
//!
//! Exactness is the contract: for every input, the fast matcher must produce exactly the
//! pieces `fancy_regex::Regex::find_iter` produces. Tests: the Unicode tables against
//! `regex-syntax`; case folding of the contraction letters; random strings over a targeted
//! alphabet; every string of length <= 3 over class representatives; every code point in
//! several contexts; real text (the shared corpus and Python sources); pathological inputs
//! (linear time, and equal to the regex up to 100k). `cargo test --release` runs the large
//! sizes; debug builds run smaller ones. Throughput: `cargo test --release --test pretokenize
//! -- --ignored --nocapture throughput`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokenmill_core::pretokenize::cuts::is_cut_point;
use tokenmill_core::pretokenize::patterns::{CL100K_HF_PAT, KNOWN_PATTERNS, LLAMA3_PAT, QWEN2_PAT, R50K_HF_PAT};
use tokenmill_core::pretokenize::unicode::{
    class_of, class_ranges, tables, CLASS_SOURCES, CL_L, CL_M, CL_N, CL_NL, CL_PS, CL_S, CL_U, CL_W,
};
use tokenmill_core::pretokenize::{KnownPattern, Pretokenizer, CL100K_PAT, GPT2_ORIGINAL_PAT, O200K_PAT, R50K_PAT};

const RELEASE: bool = !cfg!(debug_assertions);

// ----------------------------------------------------------------------------------------------
// Helpers
// ----------------------------------------------------------------------------------------------

struct Engine {
    name: &'static str,
    kind: KnownPattern,
    fast: Pretokenizer,
    slow: Pretokenizer,
}

/// The hand-written matchers, each against the regex engine on its own pattern.
fn engines() -> Vec<Engine> {
    engines_for(&[
        ("r50k", R50K_PAT),
        ("cl100k", CL100K_PAT),
        ("o200k", O200K_PAT),
        ("llama3", LLAMA3_PAT),
        ("qwen2", QWEN2_PAT),
    ])
}

/// The Hugging Face spellings of the tiktoken patterns, each run by the matcher of the pattern
/// it spells, against the regex engine on the spelling itself.
fn hf_spelling_engines() -> Vec<Engine> {
    engines_for(&[("r50k_hf", R50K_HF_PAT), ("cl100k_hf", CL100K_HF_PAT)])
}

fn engines_for(list: &[(&'static str, &'static str)]) -> Vec<Engine> {
    list.iter()
        .copied()
        .map(|(name, pat)| {
            let kind = KnownPattern::from_pattern(pat).unwrap();
            let fast = Pretokenizer::with_engine(pat, true).unwrap();
            assert!(fast.is_fast(), "{name} should use the hand-written matcher");
            let slow = Pretokenizer::with_engine(pat, false).unwrap();
            assert!(!slow.is_fast());
            Engine { name, kind, fast, slow }
        })
        .collect()
}

/// Unambiguous, printable rendering of a string.
fn esc(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            ' '..='~' => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            _ => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    out
}

fn pieces(text: &str, split: &[(usize, usize)]) -> String {
    let v: Vec<String> = split.iter().map(|&(s, e)| format!("\"{}\"", esc(&text[s..e]))).collect();
    format!("[{}]", v.join(", "))
}

/// Splits with the hand-written matcher (calling `next_end` directly, so that a matcher that
/// made no progress fails instead of looping), checking the contract's invariants, and checks
/// that `Pretokenizer::split` agrees.
fn fast_split(e: &Engine, text: &str) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let end = e.kind.next_end(text, pos);
        assert!(
            end > pos && end <= text.len() && text.is_char_boundary(end),
            "{}: bad piece {pos}..{end} in \"{}\"",
            e.name,
            esc(&text[..text.len().min(400)])
        );
        v.push((pos, end));
        pos = end;
    }
    let got = e.fast.split(text).unwrap();
    if got != v {
        let i = got.iter().zip(&v).take_while(|(a, b)| a == b).count();
        let show = |x: &[(usize, usize)]| {
            x.iter()
                .skip(i.saturating_sub(2))
                .take(5)
                .map(|&(s, e)| format!("{:?}", &text[s..e]))
                .collect::<Vec<_>>()
                .join(" ")
        };
        panic!("{}: blocks {} / matcher {}", e.name, show(&got), show(&v));
    }
    v
}

/// Compares both engines on `text`; on mismatch returns a description (with a window around the
/// first differing piece for long texts).
fn compare(e: &Engine, text: &str) -> Result<(), String> {
    let fast = fast_split(e, text);
    let slow = e.slow.split(text).unwrap();
    if fast == slow {
        return Ok(());
    }
    let i = fast.iter().zip(&slow).take_while(|(a, b)| a == b).count();
    if text.len() <= 400 {
        return Err(format!(
            "{}: mismatch on \"{}\"\n  fast:  {}\n  regex: {}",
            e.name,
            esc(text),
            pieces(text, &fast),
            pieces(text, &slow)
        ));
    }
    let lo = i.saturating_sub(5);
    let fw = &fast[lo..(i + 6).min(fast.len())];
    let sw = &slow[lo..(i + 6).min(slow.len())];
    let start = fw.first().map_or(0, |p| p.0).min(sw.first().map_or(0, |p| p.0));
    let end = fw.last().map_or(0, |p| p.1).max(sw.last().map_or(0, |p| p.1));
    Err(format!(
        "{}: mismatch at piece {i} (byte {start}) of a {}-byte text; window \"{}\"\n  fast:  {}\n  regex: {}",
        e.name,
        text.len(),
        esc(&text[start..end]),
        pieces(text, fw),
        pieces(text, sw)
    ))
}

/// `check_all` of `inputs` with every engine, the Hugging Face spellings' included.
fn check_all_engines(inputs: &[String]) {
    for e in engines().iter().chain(hf_spelling_engines().iter()) {
        check_all(e, inputs.iter().map(String::as_str));
    }
}

/// Runs `compare` on all inputs and fails with (up to 10) mismatches.
fn check_all<'a>(e: &Engine, inputs: impl IntoIterator<Item = &'a str>) -> usize {
    let mut errors = Vec::new();
    let mut n = 0;
    for text in inputs {
        n += 1;
        if let Err(m) = compare(e, text) {
            errors.push(m);
            if errors.len() >= 10 {
                break;
            }
        }
    }
    assert!(errors.is_empty(), "{} mismatches:\n{}", errors.len(), errors.join("\n"));
    n
}

mod common;
use common::{read_text_file, repo_root, Rng};

/// Targeted fragments for random strings: every class the patterns distinguish, the contraction
/// letters in all cases (and what they fold with), whitespace of all kinds, and some multi-char
/// fragments so that contractions and CRLF occur often.
const FRAGMENTS: &[&str] = &[
    // ASCII letters, with the contraction letters in both cases
    "a",
    "b",
    "x",
    "z",
    "s",
    "d",
    "m",
    "t",
    "l",
    "v",
    "e",
    "r",
    "k",
    "A",
    "B",
    "X",
    "Z",
    "S",
    "D",
    "M",
    "T",
    "L",
    "V",
    "E",
    "R",
    "K",
    // digits
    "0",
    "1",
    "7",
    "9",
    // whitespace
    " ",
    " ",
    " ",
    "  ",
    "\t",
    "\n",
    "\n",
    "\r",
    "\r\n",
    "\x0b",
    "\x0c",
    "\u{a0}",
    "\u{2028}",
    "\u{2029}",
    "\u{3000}",
    "\u{85}",
    "\u{1680}",
    "\u{2000}",
    "\u{202f}",
    // not whitespace although control or space-like
    "\0",
    "\x1c",
    "\x1f",
    "\u{200b}",
    "\u{180e}",
    "\u{feff}",
    // apostrophes and contractions
    "'",
    "'",
    "'",
    "'s",
    "'S",
    "'t",
    "'T",
    "'re",
    "'RE",
    "'rE",
    "'Re",
    "'ve",
    "'VE",
    "'m",
    "'M",
    "'ll",
    "'LL",
    "'lL",
    "'d",
    "'D",
    "'\u{17f}",
    "\u{17f}",
    "\u{212a}",
    "'e",
    "'l",
    "'r",
    "'v",
    "\u{2019}",
    "\u{2019}s",
    // punctuation and symbols
    ".",
    ",",
    "!",
    "?",
    "/",
    "//",
    "-",
    "_",
    "(",
    ")",
    "\"",
    "#",
    "$",
    "+",
    "=",
    "@",
    "\\",
    // Lu, Ll, Lt, Lm, Lo
    "\u{c9}",
    "\u{e9}",
    "\u{df}",
    "\u{3a3}",
    "\u{3c3}",
    "\u{416}",
    "\u{436}",
    "\u{1c5}",
    "\u{1f88}",
    "\u{2b0}",
    "\u{2c6}",
    "\u{3005}",
    "\u{5d0}",
    "\u{627}",
    "\u{4e00}",
    "\u{3042}",
    "\u{ac00}",
    // M (Mn, Mc, Me)
    "\u{301}",
    "\u{308}",
    "\u{903}",
    "\u{93f}",
    "\u{20dd}",
    "\u{fe0f}",
    // N (Nd, Nl, No)
    "\u{661}",
    "\u{966}",
    "\u{ff11}",
    "\u{2460}",
    "\u{216b}",
    "\u{b2}",
    "\u{bd}",
    // emoji, ZWJ, replacement char, private use, supplementary letters
    "\u{1f600}",
    "\u{1f469}\u{200d}\u{1f4bb}",
    "\u{200d}",
    "\u{2764}\u{fe0f}",
    "\u{fffd}",
    "\u{e000}",
    "\u{10400}",
    "\u{10428}",
    "\u{1d400}",
    "\u{20000}",
];

fn random_char(rng: &mut Rng) -> char {
    loop {
        // Bias towards the BMP, but cover the whole range.
        let cp = if rng.below(4) == 0 { rng.below(0x11_0000) } else { rng.below(0x1_0000) };
        if let Some(c) = char::from_u32(cp as u32) {
            return c;
        }
    }
}

fn random_string(rng: &mut Rng, max_len: usize) -> String {
    let len = rng.below(max_len + 1);
    let mut s = String::new();
    for _ in 0..len {
        if rng.below(12) == 0 {
            s.push(random_char(rng));
        } else {
            s.push_str(FRAGMENTS[rng.below(FRAGMENTS.len())]);
        }
    }
    s
}

/// Flags of `c` computed straight from `regex-syntax`'s ranges (independent of the tables).
fn flags_from_ranges(ranges: &[(u8, Vec<(u32, u32)>)], cp: u32) -> u8 {
    let mut f = 0;
    for (flag, rs) in ranges {
        let i = rs.partition_point(|&(_, hi)| hi < cp);
        if i < rs.len() && rs[i].0 <= cp {
            f |= flag;
        }
    }
    f
}

fn all_chars() -> impl Iterator<Item = char> {
    (0u32..0x11_0000).filter_map(char::from_u32)
}

// ----------------------------------------------------------------------------------------------
// Pattern recognition, tables, case folding
// ----------------------------------------------------------------------------------------------

#[test]
fn known_patterns_are_recognised_exactly() {
    assert_eq!(KnownPattern::from_pattern(R50K_PAT), Some(KnownPattern::R50k));
    assert_eq!(KnownPattern::from_pattern(GPT2_ORIGINAL_PAT), Some(KnownPattern::R50k));
    assert_eq!(KnownPattern::from_pattern(CL100K_PAT), Some(KnownPattern::Cl100k));
    assert_eq!(KnownPattern::from_pattern(O200K_PAT), Some(KnownPattern::O200k));
    for p in [R50K_PAT, GPT2_ORIGINAL_PAT, CL100K_PAT, O200K_PAT] {
        assert_eq!(KnownPattern::from_pattern(&format!("{p} ")), None);
        assert_eq!(KnownPattern::from_pattern(&p[1..]), None);
        assert_eq!(KnownPattern::from_pattern(&format!("(?:{p})")), None);
        assert!(Pretokenizer::new(p).unwrap().is_fast());
    }
    assert_eq!(KnownPattern::from_pattern(""), None);
    assert_eq!(KnownPattern::from_pattern(r"\w+|\s+"), None);
    assert!(!Pretokenizer::new(r"\w+|\s+").unwrap().is_fast());
}

#[test]
fn tables_match_regex_syntax_for_every_code_point() {
    let t0 = Instant::now();
    let _ = class_of('a');
    let build = t0.elapsed();
    eprintln!("unicode tables built in {build:?}");
    if RELEASE {
        assert!(build < Duration::from_millis(50), "table build took {build:?}");
    }
    let ranges: Vec<(u8, Vec<(u32, u32)>)> = CLASS_SOURCES.iter().map(|&(p, f)| (f, class_ranges(p))).collect();
    let m = class_ranges(r"\p{M}");
    let mut counts = [0usize; 8];
    for c in all_chars() {
        let cp = c as u32;
        let want = flags_from_ranges(&ranges, cp);
        let got = class_of(c);
        assert_eq!(got, want, "flags of U+{cp:04X}");
        // Facts the matchers rely on.
        let l = got & CL_L != 0;
        let n = got & CL_N != 0;
        let s = got & CL_S != 0;
        assert!(u8::from(l) + u8::from(n) + u8::from(s) <= 1, "L/N/S overlap at U+{cp:04X}");
        let is_m = flags_from_ranges(&[(1, m.clone())], cp) != 0;
        assert_eq!(got & (CL_U | CL_W) != 0, l || is_m, "U|W != L|M at U+{cp:04X}");
        assert_eq!(got & CL_NL != 0, c == '\r' || c == '\n');
        assert_eq!(got & CL_M != 0, is_m);
        if is_m {
            assert!(!l && !n && !s && got & CL_U != 0 && got & CL_W != 0);
        }
        for (i, count) in counts.iter_mut().enumerate() {
            if got & (1 << i) != 0 {
                *count += 1;
            }
        }
    }
    // The matchers' bitmaps of three-byte letters (`ThreeByteLetters`) against the flags.
    let three = &tables().three_byte;
    for cp in 0x800..0x1_0000u32 {
        let (w, bit) = (cp as usize >> 6, 1u64 << (cp & 63));
        let f = char::from_u32(cp).map_or(0, class_of);
        assert_eq!(three.letter[w] & bit != 0, f & CL_L != 0, "letter bit of U+{cp:04X}");
        assert_eq!(three.both_cases[w] & bit != 0, f & (CL_U | CL_W) == CL_U | CL_W, "U and W bit of U+{cp:04X}");
    }
    // Sanity: a few well-known members.
    assert_eq!(class_of('a'), CL_L | CL_W);
    assert_eq!(class_of('A'), CL_L | CL_U);
    assert_eq!(class_of('\u{1c5}'), CL_L | CL_U); // Lt
    assert_eq!(class_of('\u{2b0}'), CL_L | CL_U | CL_W); // Lm
    assert_eq!(class_of('\u{4e00}'), CL_L | CL_U | CL_W); // Lo
    assert_eq!(class_of('\u{301}'), CL_U | CL_W | CL_M); // M
    assert_eq!(class_of('!'), CL_PS);
    assert_eq!(class_of('\u{20ac}'), CL_PS); // Sc
    assert_eq!(class_of('\u{2460}'), CL_N);
    assert_eq!(class_of('\u{3000}'), CL_S);
    assert_eq!(class_of('\u{85}'), CL_S);
    assert_eq!(class_of('\u{200b}'), 0);
    eprintln!("class sizes (L, N, S, U, W, NL): {:?}", &counts[..6]);
}

/// The contraction matchers hard-code the case folding of s, d, m, t, l, v, e, r: ASCII
/// upper/lower case plus U+017F for s. Check that against regex-syntax's folding, and run every
/// contraction shape built from the fold sets (and some near misses) through both engines.
#[test]
fn contraction_case_folding_matches_regex_syntax() {
    let mut folds: Vec<char> = Vec::new();
    for l in ['s', 'd', 'm', 't', 'l', 'v', 'e', 'r'] {
        let mut got: Vec<char> = Vec::new();
        for (lo, hi) in class_ranges(&format!("(?i:{l})")) {
            got.extend((lo..=hi).filter_map(char::from_u32));
        }
        got.sort();
        let mut want = vec![l.to_ascii_uppercase(), l];
        if l == 's' {
            want.push('\u{17f}');
        }
        want.sort();
        assert_eq!(got, want, "case folding of {l:?}");
        folds.extend(got);
    }
    // The apostrophe folds to nothing else.
    let hir = regex_syntax::Parser::new().parse("(?i:')").unwrap();
    assert_eq!(format!("{hir:?}"), format!("{:?}", regex_syntax::Parser::new().parse("'").unwrap()));

    let mut chars = folds.clone();
    chars.extend(['k', 'K', '\u{212a}', 'x', '\u{e9}', '\u{df}', '\'', ' ', '1', '\u{301}', '\n']);
    let prefixes = ["", "a", "A", "\u{301}", " ", "1", "!", "\u{4e00}", "A\u{301}"];
    let mut inputs = Vec::new();
    for p in prefixes {
        for &a in &chars {
            for &b in &chars {
                inputs.push(format!("{p}'{a}{b}"));
                inputs.push(format!("{p}'{a}{b}x"));
            }
        }
    }
    for e in engines() {
        check_all(&e, inputs.iter().map(|s| s.as_str()));
    }
}

/// GPT2_ORIGINAL_PAT is mapped to the r50k matcher: check that the regex engine itself splits
/// it exactly like R50K_PAT.
#[test]
fn gpt2_original_pattern_splits_like_r50k() {
    let a = Pretokenizer::with_engine(R50K_PAT, false).unwrap();
    let b = Pretokenizer::with_engine(GPT2_ORIGINAL_PAT, false).unwrap();
    let mut rng = Rng(0x5eed_0f9b_7200);
    let n = if RELEASE { 100_000 } else { 10_000 };
    for _ in 0..n {
        let s = random_string(&mut rng, 40);
        assert_eq!(a.split(&s).unwrap(), b.split(&s).unwrap(), "on \"{}\"", esc(&s));
    }
    for s in ["", " ", "  ", " \n", "a  ", "'s'S 'll", "\u{3000}\u{3000}x", "x\n\n  \n"] {
        assert_eq!(a.split(s).unwrap(), b.split(s).unwrap(), "on \"{}\"", esc(s));
    }
    for (name, text) in corpus_texts(!RELEASE) {
        assert_eq!(a.split(&text).unwrap(), b.split(&text).unwrap(), "on corpus file {name}");
    }
}

// ----------------------------------------------------------------------------------------------
// Hugging Face tokenizer.json patterns (Llama 3, Qwen2, our exporter's spellings)
// ----------------------------------------------------------------------------------------------

#[test]
fn hf_patterns_are_recognised_exactly() {
    let cases = [
        (LLAMA3_PAT, KnownPattern::Llama3, "llama3"),
        (QWEN2_PAT, KnownPattern::Qwen2, "qwen2"),
        (R50K_HF_PAT, KnownPattern::R50k, "r50k"),
        (CL100K_HF_PAT, KnownPattern::Cl100k, "cl100k"),
    ];
    for (p, kind, name) in cases {
        assert_eq!(KnownPattern::from_pattern(p), Some(kind));
        assert_eq!(kind.name(), name);
        let pt = Pretokenizer::new(p).unwrap();
        assert!(pt.is_fast() && pt.name() == name);
        assert_eq!(KnownPattern::from_pattern(&format!("{p} ")), None);
        assert_eq!(KnownPattern::from_pattern(&p[1..]), None);
        assert_eq!(KnownPattern::from_pattern(&format!("(?:{p})")), None);
        // The regex engine compiles the spelling (so the differential tests compare something).
        assert!(!Pretokenizer::with_engine(p, false).unwrap().is_fast());
        // KNOWN_PATTERNS is tiktoken's encodings only.
        assert!(KNOWN_PATTERNS.iter().all(|&(_, k)| k != p));
    }
    // Near misses: Llama 3 with possessive digits, Qwen2 with {1,3}, cl100k's tail.
    assert_eq!(KnownPattern::from_pattern(&LLAMA3_PAT.replace(r"\p{N}{1,3}", r"\p{N}{1,3}+")), None);
    assert_eq!(KnownPattern::from_pattern(&QWEN2_PAT.replace(r"\p{N}|", r"\p{N}{1,2}|")), None);
    assert_eq!(KnownPattern::from_pattern(&LLAMA3_PAT.replace(r"|\s*[\r\n]+", r"|\s++$|\s*[\r\n]+")), None);
}

/// The HF spellings are what `python/tokenmill/formats/hf_regex.py` writes (checked through
/// the system python3 when it has tokenmill; skipped otherwise).
#[test]
fn hf_spellings_match_the_exporter() {
    let script = "from tokenmill.formats.hf_regex import hf_regex\n\
                  from tokenmill.patterns import R50K_PAT, CL100K_PAT, O200K_PAT\n\
                  import sys\n\
                  for p in (R50K_PAT, CL100K_PAT, O200K_PAT): sys.stdout.write(hf_regex(p) + '\\0')";
    let out = match std::process::Command::new("python3").args(["-c", script]).output() {
        Ok(o) if o.status.success() => o,
        _ => {
            eprintln!("python3 with tokenmill not available: skipping the exporter check");
            return;
        }
    };
    let got = String::from_utf8(out.stdout).unwrap();
    let got: Vec<&str> = got.split('\0').filter(|s| !s.is_empty()).collect();
    assert_eq!(got, [R50K_HF_PAT, CL100K_HF_PAT, O200K_PAT]);
}

/// Expected pieces from Hugging Face `tokenizers` 0.23.3:
/// `pre_tokenizers.Split(Regex(PAT), behavior="isolated").pre_tokenize_str(s)`; cl100k's from
/// tiktoken's cl100k_base regex (`tokenmill._core.pretokenize(CL100K_PAT, s)`, equal to
/// tiktoken). The first cases are where Llama 3 and cl100k differ (trailing whitespace with a
/// newline).
#[test]
fn llama3_and_qwen2_known_splits() {
    // (text, llama3 pieces, qwen2 pieces, cl100k pieces)
    type Case = (&'static str, &'static [&'static str], &'static [&'static str], &'static [&'static str]);
    let cases: &[Case] = &[
        (
            "\n\u{a0}\u{a0}\u{a0}",
            &["\n", "\u{a0}\u{a0}\u{a0}"],
            &["\n", "\u{a0}\u{a0}\u{a0}"],
            &["\n\u{a0}\u{a0}\u{a0}"],
        ),
        ("x \n  ", &["x", " \n", "  "], &["x", " \n", "  "], &["x", " \n  "]),
        ("a\n\n", &["a", "\n\n"], &["a", "\n\n"], &["a", "\n\n"]),
        ("  \n", &["  \n"], &["  \n"], &["  \n"]),
        ("x  ", &["x", "  "], &["x", "  "], &["x", "  "]),
        ("12345 67", &["123", "45", " ", "67"], &["1", "2", "3", "4", "5", " ", "6", "7"], &["123", "45", " ", "67"]),
        (
            "\u{661}\u{662}\u{663}\u{664}",
            &["\u{661}\u{662}\u{663}", "\u{664}"],
            &["\u{661}", "\u{662}", "\u{663}", "\u{664}"],
            &["\u{661}\u{662}\u{663}", "\u{664}"],
        ),
        ("I'M here'S", &["I", "'M", " here", "'S"], &["I", "'M", " here", "'S"], &["I", "'M", " here", "'S"]),
        (" \u{a0}x", &[" ", "\u{a0}x"], &[" ", "\u{a0}x"], &[" ", "\u{a0}x"]),
        ("\t\tx", &["\t", "\tx"], &["\t", "\tx"], &["\t", "\tx"]),
        ("a!!\n\n/b", &["a", "!!\n\n", "/b"], &["a", "!!\n\n", "/b"], &["a", "!!\n\n", "/b"]),
    ];
    let split = |pat: &str, text: &str| -> Vec<String> {
        let p = Pretokenizer::new(pat).unwrap();
        assert!(p.is_fast());
        p.split(text).unwrap().into_iter().map(|(s, e)| text[s..e].to_string()).collect()
    };
    for &(text, llama3, qwen2, cl100k) in cases {
        assert_eq!(split(LLAMA3_PAT, text), llama3, "llama3 on \"{}\"", esc(text));
        assert_eq!(split(QWEN2_PAT, text), qwen2, "qwen2 on \"{}\"", esc(text));
        assert_eq!(split(CL100K_PAT, text), cl100k, "cl100k on \"{}\"", esc(text));
        assert_eq!(split(CL100K_HF_PAT, text), cl100k, "cl100k_hf on \"{}\"", esc(text));
    }
}

/// Fragments for the HF-pattern random loop: whitespace of every kind the tails distinguish,
/// letters of several scripts and cases, ASCII and non-ASCII digits, contractions in both cases,
/// punctuation, marks and emoji.
const HF_FRAGMENTS: &[&str] = &[
    "\n",
    "\n",
    "\r",
    "\r\n",
    "\t",
    " ",
    " ",
    "  ",
    "\u{a0}",
    "\u{3000}",
    "\u{85}",
    "\u{2028}",
    "\x0b",
    "a",
    "z",
    "s",
    "t",
    "e",
    "A",
    "Z",
    "S",
    "T",
    "D",
    "\u{e9}",
    "\u{c9}",
    "\u{3c3}",
    "\u{3a3}",
    "\u{436}",
    "\u{416}",
    "\u{1c5}",
    "\u{2b0}",
    "\u{5d0}",
    "\u{627}",
    "\u{4e00}",
    "\u{3042}",
    "\u{ac00}",
    "0",
    "1",
    "9",
    "\u{663}",
    "\u{966}",
    "\u{ff11}",
    "\u{2460}",
    "\u{b2}",
    "'",
    "'s",
    "'S",
    "'t",
    "'T",
    "'re",
    "'RE",
    "'Re",
    "'ve",
    "'VE",
    "'m",
    "'M",
    "'ll",
    "'LL",
    "'d",
    "'D",
    "'\u{17f}",
    "'e",
    "'l",
    "\u{2019}s",
    ".",
    ",",
    "!",
    "?",
    "/",
    "-",
    "(",
    "\"",
    "#",
    "\\",
    "\0",
    "\u{200b}",
    "\u{301}",
    "\u{903}",
    "\u{20dd}",
    "\u{fe0f}",
    "\u{1f600}",
    "\u{1f469}\u{200d}\u{1f4bb}",
    "\u{fffd}",
    "\u{10400}",
];

/// A deterministic random loop (200k strings per pattern in release, 20k in debug) for the
/// Hugging Face patterns, plus pathological inputs against the regex.
#[test]
fn hf_patterns_random_strings_match_regex() {
    let n = if cfg!(debug_assertions) { 20_000 } else { 200_000 };
    let mut all = engines_for(&[("llama3", LLAMA3_PAT), ("qwen2", QWEN2_PAT)]);
    all.extend(hf_spelling_engines());
    for (i, e) in all.iter().enumerate() {
        let mut rng = Rng(0x0a11_a3a3_0e11_5eed ^ ((i as u64 + 3) << 36));
        let mut errors = Vec::new();
        for _ in 0..n {
            let len = rng.below(24);
            let mut s = String::new();
            for _ in 0..len {
                if rng.below(16) == 0 {
                    s.push(random_char(&mut rng));
                } else {
                    s.push_str(HF_FRAGMENTS[rng.below(HF_FRAGMENTS.len())]);
                }
            }
            if let Err(m) = compare(e, &s) {
                errors.push(m);
                if errors.len() >= 10 {
                    break;
                }
            }
        }
        assert!(errors.is_empty(), "{} mismatches:\n{}", errors.len(), errors.join("\n"));
    }
}

/// The encoder cuts large texts at `cuts::is_cut_point` points whenever the matcher is a
/// hand-written one: check that the rules hold for llama3 and qwen2 too (the pieces of a text
/// are those of its two sides at every cut point).
#[test]
fn hf_patterns_respect_the_cut_rules() {
    let n = if cfg!(debug_assertions) { 20_000 } else { 200_000 };
    for (i, pat) in [LLAMA3_PAT, QWEN2_PAT].into_iter().enumerate() {
        let p = Pretokenizer::new(pat).unwrap();
        let mut rng = Rng(0x00c0_ffee_1234_0001 ^ ((i as u64 + 5) << 37));
        let mut points = 0;
        for _ in 0..n {
            let len = rng.below(16);
            let s: String = (0..len).map(|_| HF_FRAGMENTS[rng.below(HF_FRAGMENTS.len())]).collect();
            let whole = p.split(&s).unwrap();
            for (c, _) in s.char_indices().skip(1) {
                if !is_cut_point(&s, c) {
                    continue;
                }
                points += 1;
                let mut parts = p.split(&s[..c]).unwrap();
                parts.extend(p.split(&s[c..]).unwrap().into_iter().map(|(a, b)| (a + c, b + c)));
                assert_eq!(parts, whole, "{pat}: cut at byte {c} of \"{}\"", esc(&s));
            }
        }
        assert!(points > n / 10, "too few cut points tested ({points})");
    }
}

/// The HF spellings of r50k/cl100k split like the matchers on the other differential inputs too
/// (the main tests cover the tiktoken spellings).
#[test]
fn hf_spellings_match_regex_on_short_and_pathological_inputs() {
    const REPS: &[char] =
        &['a', 'A', 's', '\u{17f}', 'l', '\'', ' ', '\t', '\n', '\r', '1', '\u{661}', '!', '/', '\u{301}', '\u{a0}'];
    let mut inputs = vec![String::new()];
    let mut layer = vec![String::new()];
    for _ in 0..3 {
        let next: Vec<String> = layer.iter().flat_map(|s| REPS.iter().map(move |&c| format!("{s}{c}"))).collect();
        inputs.extend(next.iter().cloned());
        layer = next;
    }
    let sizes: &[usize] = if RELEASE { &[1, 2, 3, 10, 1000, 100_000] } else { &[1, 2, 3, 10, 1000] };
    for e in hf_spelling_engines() {
        check_all(&e, inputs.iter().map(|s| s.as_str()));
        for &n in sizes {
            for (name, text) in pathological(n) {
                if let Err(m) = compare(&e, &text) {
                    panic!("{name} (n={n}): {m}");
                }
            }
        }
    }
}

// ----------------------------------------------------------------------------------------------
// Differential tests
// ----------------------------------------------------------------------------------------------

#[test]
fn runs_of_spaces_before_every_ascii_char_and_others() {
    // Indentation takes a shortcut in the matchers (`indent_end`): a run of two or more spaces
    // followed by an ASCII char that is not whitespace. Every ASCII char after runs of 1 to 20
    // spaces, at the start, after a word and after a newline, plus the cases the shortcut
    // must leave alone (the end of the text, tabs, newlines, U+00A0, U+3000, letters).
    let mut texts = Vec::new();
    for n in 1..=20 {
        let run = " ".repeat(n);
        for c in (0u8..0x80).map(char::from).chain(['\u{a0}', '\u{3000}', 'é', '日', '\u{85}']) {
            for before in ["", "x", "\n", "x.", "\t"] {
                texts.push(format!("{before}{run}{c}y"));
                texts.push(format!("{before}{run}{c}"));
            }
        }
        texts.push(run.clone());
        texts.push(format!("a{run}"));
    }
    for e in engines().iter().chain(hf_spelling_engines().iter()) {
        for t in &texts {
            compare(e, t).unwrap_or_else(|m| panic!("{m}"));
        }
    }
}

/// Every string of one to four chars over `alphabet`.
fn every_string_up_to_4(alphabet: &[char]) -> Vec<String> {
    let mut texts = vec![String::new()];
    let mut all = Vec::new();
    for _ in 0..4 {
        texts = texts.iter().flat_map(|t| alphabet.iter().map(move |&c| format!("{t}{c}"))).collect();
        all.extend(texts.iter().cloned());
    }
    all
}

/// Each text alone and inside `x...s`, on every engine and HF spelling, against the regex engine.
fn compare_alone_and_inside(texts: &[String]) {
    for e in engines().iter().chain(hf_spelling_engines().iter()) {
        for t in texts {
            compare(e, t).unwrap_or_else(|m| panic!("{m}"));
            compare(e, &format!("x{t}s")).unwrap_or_else(|m| panic!("{m}"));
        }
    }
}

#[test]
fn every_short_mix_of_punctuation_and_what_follows_it() {
    // Runs of ASCII punctuation take a shortcut in the o200k and cl100k-like matchers
    // (`ascii_punct_end`): every string of up to four chars over punctuation, space, the letters
    // and digits that end a run, the tail chars (\r \n /), cl100k's apostrophe, and non-ASCII
    // symbols and letters that must send the run back to the full matcher.
    let alphabet = [',', '(', ')', ':', '"', '\'', '/', ' ', 'a', 'B', '1', '\n', '\r', '\t', 'é', '—', '\u{301}'];
    let all = every_string_up_to_4(&alphabet);
    compare_alone_and_inside(&all);
}

#[test]
fn every_short_mix_of_newlines_digits_and_whitespace() {
    // Newlines, digits and a space before digits take a shortcut in the o200k and cl100k-like
    // matchers (`ascii_newline_digits_end`): every string of up to four chars over ASCII
    // whitespace, digits, a letter, punctuation, and the non-ASCII whitespace and digits that
    // must send them back to the full matcher (U+0085, U+00A0, U+3000, U+0663), plus digit runs
    // of every length.
    let alphabet =
        [' ', '\n', '\r', '\t', '\x0b', '\x1c', '\u{85}', '\u{a0}', '\u{3000}', '1', '2', '\u{663}', 'a', ',', '/'];
    let mut all = every_string_up_to_4(&alphabet);
    for n in 1..=10 {
        let digits: String = "1234567890".chars().take(n).collect();
        for after in ["", "x", " ", "\n", "\u{663}", "\u{663}1", ","] {
            all.push(format!("{digits}{after}"));
            all.push(format!(" {digits}{after}"));
            all.push(format!("x\n \n{digits}{after}"));
        }
    }
    compare_alone_and_inside(&all);
}

#[test]
fn hand_picked_cases() {
    let cases = [
        "",
        "a",
        " ",
        "  ",
        "   x",
        "x   ",
        "hello world",
        "Hello World's",
        "I'm",
        "they'RE",
        "'s",
        "''s",
        "don't",
        "DON'T",
        "we'll",
        "it'\u{17f}",
        "\u{212a}elvin",
        "123456789",
        " 12",
        "1 2",
        "a1b2",
        "\n",
        "\n\n",
        "\r\n",
        " \r\n ",
        "a\n\n b",
        "  \n  x",
        "x  \n",
        "\t\tx",
        "\t x",
        " !x",
        "!!\n\n/",
        "a/b//c",
        "..\r\n/",
        "\u{301}A",
        "\u{301}",
        "A\u{301}",
        "\u{301}a",
        " \u{301}A",
        "AB\u{2b0}CD",
        "A\u{4e00}B",
        "\u{1c5}a",
        "ABCdef'S",
        "\u{a0}x",
        "\u{3000}\u{3000}x",
        "\u{85}\u{85}",
        "x\u{2028}",
        "\u{1f469}\u{200d}\u{1f4bb} ok",
        "caf\u{e9}s",
        "\u{661}\u{662}\u{663}\u{664}",
        "\u{216b}\u{2460}",
        "\0\0 \0",
        "'",
        "' ",
        "'\n",
        "'1",
        "a'",
        "A'S'T",
        "x'sy",
        "'ll've're",
        "\u{fffd}",
        "\u{10ffff}",
    ];
    for e in engines() {
        check_all(&e, cases);
    }
}

/// The word-wide scans (eight bytes at a time) of letters, spaces and tabs: every ASCII byte and a few non-ASCII
/// characters at every offset of the first two words of an ASCII word of either case, and words
/// of mixed case, run against the regex engine.
#[test]
fn word_wide_letter_scans_stop_at_every_byte() {
    let mut inputs = Vec::new();
    let others: Vec<String> = (0u8..128)
        .map(|c| (c as char).to_string())
        .chain(["\u{e9}", "\u{c9}", "\u{4e00}", "\u{301}", "\u{a0}"].map(String::from))
        .collect();
    for word in ["abcdefghijklmnopqrstuvwx", "ABCDEFGHIJKLMNOPQRSTUVWX", "ABCDefghIJKLmnopQRSTuvwx"] {
        for k in 0..18 {
            for c in &others {
                for lead in ["", " ", "!", "'"] {
                    inputs.push(format!("{lead}{}{c}{}'s", &word[..k], &word[k..]));
                    inputs.push(format!("{lead}{}{c}", &word[..k]));
                }
            }
        }
    }
    // Space and tab runs (scanned eight at a time) of every length up to 20, around what ends
    // them, and runs of the two mixed.
    for k in 0..20 {
        for unit in [" ", "\t", " \t", "\t\t "] {
            let run = unit.repeat(k);
            for end in ["", "x", "\n", "\n  x", "\t", " ", "\u{a0}", "\u{3000}x", "!", "1", "\r\n"] {
                for lead in ["", "\n", "x", "\t", " "] {
                    inputs.push(format!("{lead}{run}{end}"));
                    inputs.push(format!("{lead}{run}{end}{run}y"));
                }
            }
        }
    }
    check_all_engines(&inputs);
}

#[test]
fn random_strings_match_regex() {
    let n = if RELEASE { 250_000 } else { 15_000 };
    for (i, e) in engines().into_iter().enumerate() {
        let mut rng = Rng(0x1234_5678_9abc_def1 ^ ((i as u64 + 1) << 40));
        let inputs: Vec<String> = (0..n).map(|_| random_string(&mut rng, 40)).collect();
        let count = check_all(&e, inputs.iter().map(|s| s.as_str()));
        eprintln!("{}: {count} random strings ok", e.name);
    }
}

/// The block path's two-byte letters (`blocks::two_byte_letters`): texts long enough for many
/// 64-byte blocks, mostly ASCII with two-byte characters of every class the rules tell apart
/// (lower and upper case letters, titlecase, modifier and other letters, marks, digits, NBSP,
/// NEL, punctuation and symbols) and some of three bytes, so that each lands at every offset of
/// a block, the last ones and the bytes after the block included.
#[test]
fn blocks_with_two_byte_letters_match_regex() {
    // The first 22 are ASCII; '|' separates them.
    const MIX: &str = "a|e|Z|T|word| | |  |\n|\r\n|.|,|'|'s|'LL|'t|/|0|123|-|(|\t|\u{e9}|\u{e9}|\u{c9}|\u{df}|\u{436}|\
                       \u{416}|\u{3c9}|\u{3a9}|\u{17f}|\u{b5}|\u{1c5}|\u{2b0}|\u{5d0}|\u{aa}|\u{301}|\u{663}|\u{a0}|\
                       \u{85}|\u{ab}|\u{d7}|\u{4e2d}|\u{2019}|caf\u{e9}| \u{c9}t\u{e9}|\u{416}\u{436}\u{436}|l'\u{e9}t\u{e9}";
    let mix: Vec<&str> = MIX.split('|').collect();
    let n = if RELEASE { 40_000 } else { 2_000 };
    let mut rng = Rng(0x0dd_ba11_5eed_f00d);
    let mut inputs: Vec<String> = (0..n)
        .map(|_| {
            let len = 20 + rng.below(200);
            // Mostly one two-byte letter now and then, as in European prose; sometimes dense.
            let dense = rng.below(4) == 0;
            (0..len)
                .map(|_| {
                    let k = if dense || rng.below(3) == 0 { rng.below(mix.len()) } else { rng.below(22) };
                    mix[k]
                })
                .collect()
        })
        .collect();
    // Each two-byte character at every offset of the first blocks, after ASCII of either case.
    for c in ["\u{e9}", "\u{c9}", "\u{1c5}", "\u{2b0}", "\u{a0}", "\u{ab}", "\u{bb}", "\u{301}", "\u{2019}", "\u{2192}"]
    {
        for k in 0..140 {
            for fill in ["abcdefgh ", "ABcdEF ij", "x, y. 'z "] {
                let head: String = fill.chars().cycle().take(k).collect();
                inputs.push(format!("{head}{c}{head}{c}xyz tail of the text, long enough"));
                inputs.push(format!("{head}{c}{c}{c}s'll {head}"));
            }
        }
    }
    check_all_engines(&inputs);
}

/// The block path's no-break spaces, two-byte punctuation (`TwoByteClasses::punct`: `«`, `»`,
/// `¿`, `°`, a soft hyphen, a C1 control) and three-byte punctuation (`blocks::specials_avx512`):
/// French-like text, where U+00A0 stands before `:`, `;`, `?`, `!` and `»`, after `«`, inside
/// numbers and sometimes beside spaces and newlines, and English-like text with curly quotes,
/// dashes, `…` and arrows, with the punctuation, digits, letters (two-byte ones too) and
/// contractions around them, dense enough that each rule meets them at every offset of a
/// block; and the characters the blocks leave out: two-byte letters that are not cased (`ª`),
/// numbers (`²`, `¼`), marks, NEL, and those just outside the three-byte ranges (U+200F,
/// U+2028, U+202F, U+2030, U+2189, a number, U+21C0).
#[test]
fn blocks_with_no_break_spaces_guillemets_and_curly_quotes_match_regex() {
    const MIX: &[&str] = &[
        "\u{a0}",
        "\u{a0}",
        "\u{a0}\u{a0}",
        "\u{ab}",
        "\u{bb}",
        "\u{ab}\u{a0}",
        "\u{a0}\u{bb}",
        "\u{a0}:",
        "\u{a0};",
        "\u{a0}?",
        "\u{a0}!",
        " ",
        " ",
        "  ",
        "\n",
        "\r\n",
        "\n\n",
        ":",
        ";",
        ".",
        ",",
        "'",
        "'s",
        "l'",
        "d'",
        "'T",
        "/",
        "-",
        "(",
        ")",
        "1",
        "000",
        "2026",
        "mot",
        "mot",
        "Mot",
        "MOT",
        "donn\u{e9}es",
        "\u{c9}t\u{e9}",
        "\u{e9}",
        "\t",
        "\u{2019}",
        "\u{85}",
        "\u{d7}",
        "\u{bf}",
        "\u{a1}",
        "\u{b0}",
        "\u{a7}",
        "\u{b7}",
        "\u{a9}",
        "\u{b1}",
        "\u{ad}",
        "\u{80}",
        "\u{aa}",
        "\u{ba}",
        "\u{b2}",
        "\u{b5}",
        "\u{bc}",
        "\u{300}",
        "\u{5be}",
        "\u{60c}",
        "\u{2019}s",
        "\u{2018}",
        "\u{201c}",
        "\u{201d}",
        "\u{201c}mot",
        "mot\u{201d}",
        "\u{2014}",
        " \u{2013} ",
        "\u{2026}",
        "\u{2022} ",
        "\u{2010}",
        "\u{2027}",
        "\u{2192}",
        "\u{2190}",
        "\u{21bf}",
        "\u{200f}",
        "\u{2028}",
        "\u{202f}",
        "\u{2030}",
        "\u{2189}",
        "\u{21c0}",
        "\u{e9}\u{2019}",
    ];
    check_all_engines(&random_mixes(MIX, &["mot", " ", "mot ", "le ", " de"], 0x5eed_f4e5_c4a1_0a0b));
}

/// `n` random texts of 30-150 fragments: in two texts of three, every other fragment from
/// `common` (the text's usual words and spaces), the rest from `mix` (what is tested, dense
/// enough that each rule meets it at every offset of a block); in the third, all from `mix`.
fn random_mixes(mix: &[&str], common: &[&str], seed: u64) -> Vec<String> {
    let n = if RELEASE { 30_000 } else { 1_500 };
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let len = 30 + rng.below(120);
            let dense = rng.below(3) == 0;
            (0..len)
                .map(|_| {
                    if !dense && rng.below(2) == 0 {
                        common[rng.below(common.len())]
                    } else {
                        mix[rng.below(mix.len())]
                    }
                })
                .collect()
        })
        .collect()
}

/// Hebrew and Arabic letters (neither upper nor lower case: letters to the cl100k-like
/// patterns and r50k, in both case classes to o200k) with their marks (`O` to the first,
/// letters to o200k), Arabic-Indic digits and punctuation, beside ASCII and cased two-byte
/// letters, in the block path.
#[test]
fn blocks_with_hebrew_and_arabic_letters_and_marks_match_regex() {
    const MIX: &[&str] = &[
        "\u{5d0}\u{5d1}",
        "\u{5e9}",
        "\u{5b0}",
        "\u{5bc}",
        "\u{5be}",
        "\u{5f3}",
        "\u{627}\u{644}",
        "\u{628}",
        "\u{64b}",
        "\u{651}",
        "\u{640}",
        "\u{60c}",
        "\u{61f}",
        "\u{660}\u{661}",
        "\u{6f0}",
        "\u{2bc}",
        "\u{2c6}",
        "\u{e9}",
        "\u{c9}",
        "\u{17f}",
        "\u{301}",
        "\u{a0}",
        "\u{ab}",
        " ",
        "\n",
        "\t",
        ".",
        "'",
        "'s",
        "1",
        "word",
        "Word",
    ];
    check_all_engines(&random_mixes(
        MIX,
        &["\u{5e9}\u{5dc}\u{5d5}\u{5dd}", " ", "\u{643}\u{62a}\u{627}\u{628} ", "word ", " \u{627}\u{644}"],
        0xa1ef_be75_0000_0005,
    ));
}

/// o200k's letters of both case classes (ideographs, kana, `々`, `ー`) in the block path, next
/// to ASCII and two-byte letters of either case: runs of capitals after them of every length
/// (which start a piece only if nothing but capitals follows to the run's end, so some cross
/// a block's end), lower case letters before them, and contractions after them.
#[test]
fn blocks_with_letters_of_both_cases_match_regex() {
    const MIX: &[&str] = &[
        "\u{4e2d}",
        "\u{6587}\u{5b57}",
        "\u{306e}",
        "\u{30a2}\u{30fc}",
        "\u{3005}",
        "A",
        "AB",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "\u{c9}",
        "a",
        "ab",
        "Ab",
        "aB",
        "\u{e9}",
        "'s",
        "'S",
        "'ll",
        "'RE",
        " ",
        " ",
        ".",
        "\n",
        "1",
        ",",
        "\u{3001}",
        "\u{3002}",
        "\u{ff08}",
        "\u{3099}",
        "\u{ff21}",
        "\u{ff41}",
        "\u{2019}",
        "\t",
    ];
    check_all_engines(&random_mixes(
        MIX,
        &["\u{4e2d}\u{6587}", "\u{4e2d}A", "A\u{4e2d}", "a\u{4e2d}A", "\u{306e}ABC"],
        0xb07c_a5e5_0000_0006,
    ));
}

/// Tabs in the block path (to every rule a no-break space of one byte): runs of tabs, spaces,
/// no-break spaces and newlines in every order, before words, punctuation, digits and
/// contractions, as in indented code and in the Debian handbooks (`\n\n\t\t\t\t` before a
/// paragraph), dense enough that each rule meets them at every offset of a block.
#[test]
fn blocks_with_tabs_match_regex() {
    const MIX: &[&str] = &[
        "\t",
        "\t",
        "\t\t",
        "\t\t\t\t\t\t\t\t",
        "\n\n\t\t\t\t",
        "\t\n",
        "\t\r\n",
        " \t",
        "\t ",
        "\t\u{a0}",
        "\u{a0}\t",
        " ",
        "  ",
        "\n",
        "\n\n",
        "\r\n",
        ".",
        ",",
        "(",
        ")",
        ":",
        "/",
        "'",
        "'s",
        "'ll",
        "1",
        "2026",
        "x",
        "word",
        "Word",
        "WORD",
        "\u{e9}t\u{e9}",
        "\u{ab}",
        "\u{2019}",
        "\u{4e2d}\u{6587}",
        "\u{3002}",
        "\u{b}",
        "\u{c}",
        "\u{3000}",
    ];
    check_all_engines(&random_mixes(MIX, &["word", " ", "\t", "if x ", "\n\t\t"], 0x7ab5_0fc0_de00_0004));
}

/// Chinese, Japanese and Korean text in the block path (cl100k-like patterns and r50k):
/// ideographs, kana (with the marks U+3099-U+309A, U+30FB `・` and the modifier letter U+30FC),
/// Hangul, CJK punctuation and brackets, fullwidth letters, digits and punctuation, the
/// ideographic space U+3000 and number U+3007, and characters just outside the pages the
/// blocks take whole (U+4DC0, U+A000, U+D7A4, U+F900, U+FF80), between ASCII words, digits,
/// tabs, newlines, contractions and curly quotes, dense enough that each rule meets them at
/// every offset of a block.
#[test]
fn blocks_with_cjk_letters_and_punctuation_match_regex() {
    const MIX: &[&str] = &[
        "\u{4e2d}\u{6587}",
        "\u{5b57}",
        "\u{9fa5}",
        "\u{9fff}",
        "\u{4e00}",
        "\u{3400}",
        "\u{4dbf}",
        "\u{4dc0}",
        "\u{a000}",
        "\u{f900}",
        "\u{3042}\u{3044}",
        "\u{3093}",
        "\u{3041}",
        "\u{3096}",
        "\u{3099}",
        "\u{309b}",
        "\u{309d}",
        "\u{30a0}",
        "\u{30a2}\u{30a4}",
        "\u{30fb}",
        "\u{30fc}",
        "\u{30ff}",
        "\u{3001}",
        "\u{3002}",
        "\u{3002}\n",
        "\u{300c}",
        "\u{300d}",
        "\u{300a}",
        "\u{3005}",
        "\u{3007}",
        "\u{3000}",
        "\u{3000}\u{3000}",
        "\u{3012}",
        "\u{302a}",
        "\u{3021}",
        "\u{303c}",
        "\u{ff0c}",
        "\u{ff08}",
        "\u{ff09}",
        "\u{ff1a}",
        "\u{ff01}",
        "\u{ff1f}",
        "\u{ff10}",
        "\u{ff19}\u{ff10}",
        "\u{ff21}",
        "\u{ff41}\u{ff5a}",
        "\u{ff5e}",
        "\u{ff65}",
        "\u{ff66}",
        "\u{ff80}",
        "\u{ff00}",
        "\u{d55c}\u{ad6d}",
        "\u{d7a3}",
        "\u{d7a4}",
        "\u{ac00}",
        "\u{2019}",
        "\u{201c}",
        "\u{2014}",
        "\u{2026}",
        "\u{a0}",
        "\u{e9}",
        "\u{b7}",
        " ",
        " ",
        "\n",
        "\n\n",
        "\t\t",
        "\r\n",
        ".",
        ",",
        "(",
        "'",
        "'s",
        "'T",
        "/",
        "1",
        "2026",
        "RAID",
        "word",
        "Word",
    ];
    check_all_engines(&random_mixes(
        MIX,
        &["\u{4e2d}", "\u{6587}\u{5b57}", "\u{306e}", "\u{3067}\u{3059}", "\u{ff0c}"],
        0xc1c0_7e57_b10c_0003,
    ));
}

/// Every three-byte character from U+3000 on (the block path takes whole pages of letters and
/// the characters of a few mixed pages, and must stop at the others), between ASCII of each
/// kind and after a run of its own kind, at offsets near a block's end (each character at a
/// few of them, the offsets cycling with the code point).
#[test]
fn every_three_byte_character_from_u3000_in_blocks_matches_regex() {
    const OFFSETS: [usize; 9] = [0, 1, 2, 30, 60, 61, 62, 63, 64];
    let step = if RELEASE { 1 } else { 97 };
    let mut inputs = Vec::new();
    for (i, c) in (0x3000..=0xFFFF).step_by(step).filter_map(char::from_u32).enumerate() {
        for j in 0..2 {
            let k = OFFSETS[(i + 4 * j) % OFFSETS.len()];
            let head: String = "ab, cd. ".chars().cycle().take(k).collect();
            let around =
                [("x", "y"), (" ", "z"), ("", "\n"), (".", " "), ("", "1"), ("\u{4e2d}", "\u{3001}")][(i + j) % 6];
            inputs.push(format!(
                "{head}{}{c}{}{c}{c}s {c}\u{4e2d}{c}. tail of the text, long enough to fill a block",
                around.0, around.1
            ));
        }
    }
    check_all_engines(&inputs);
}

/// Every two-byte character (the block path takes those that are `O` to every pattern, and
/// must stop at the others) between ASCII of each kind, at every offset near a block's end.
#[test]
fn every_two_byte_character_in_blocks_matches_regex() {
    let mut inputs = Vec::new();
    for c in (0x80..0x800).filter_map(char::from_u32) {
        for k in [0, 1, 2, 30, 61, 62, 63, 64] {
            let head: String = "ab, cd. ".chars().cycle().take(k).collect();
            for around in [("x", "y"), (" ", "z"), ("", "\n"), (".", " "), ("", "1")] {
                inputs.push(format!(
                    "{head}{}{c}{}{c}{c}s tail of the text, long enough to fill a block",
                    around.0, around.1
                ));
            }
        }
    }
    check_all_engines(&inputs);
}

/// Runs of three-byte characters (`fast::run3`): CJK ideographs, kana (with U+30FC, a
/// modifier letter, and U+30FB, punctuation), Hangul, Devanagari and Thai letters with their
/// marks, fullwidth capitals and digits, CJK punctuation and spaces, and a curly quote, mixed
/// with ASCII, two-byte letters and marks, in runs of every length, so that a run stops at
/// each kind of character and at the end of the text.
#[test]
fn three_byte_letter_runs_match_regex() {
    const MIX: &[&str] = &[
        "\u{4e2d}",
        "\u{6587}",
        "\u{5b57}",
        "\u{3042}",
        "\u{30a2}",
        "\u{30fc}",
        "\u{30fb}",
        "\u{d55c}",
        "\u{ae00}",
        "\u{915}",
        "\u{93f}",
        "\u{94d}",
        "\u{e01}",
        "\u{e31}",
        "\u{ff21}",
        "\u{ff41}",
        "\u{ff10}",
        "\u{3001}",
        "\u{3002}",
        "\u{300c}",
        "\u{3000}",
        "\u{2019}",
        "\u{20ac}",
        "\u{1e9e}",
        "a",
        "B",
        " ",
        "1",
        "'s",
        "\n",
        ".",
        "\u{e9}",
        "\u{416}",
        "\u{301}",
        "\u{1f600}",
    ];
    let n = if RELEASE { 30_000 } else { 1_500 };
    let mut rng = Rng(0x3b7e_1e77_e125_0001);
    let mut inputs: Vec<String> = (0..n)
        .map(|_| {
            let mut s = String::new();
            for _ in 0..1 + rng.below(12) {
                // A run of one character repeated, or of the first nine (letters), then anything.
                let run = rng.below(30);
                let same = rng.below(2) == 0;
                let first = MIX[rng.below(9)];
                for _ in 0..run {
                    s.push_str(if same { first } else { MIX[rng.below(9)] });
                }
                s.push_str(MIX[rng.below(MIX.len())]);
            }
            s
        })
        .collect();
    // Each character after runs of ideographs of every length, at the end of the text and not.
    for c in MIX {
        for k in 0..25 {
            let run = "\u{4e2d}".repeat(k);
            inputs.push(format!("{run}{c}"));
            inputs.push(format!("{run}{c}{run}x"));
            inputs.push(format!("A{run}{c}b"));
        }
    }
    check_all_engines(&inputs);
}

/// Long runs of letters (`blocks::letter_run_vbmi`, 64 bytes at a time after 24 letters):
/// lower and upper case ASCII and two-byte letters, with now and then a letter or mark that
/// the 64-byte step does not take (U+017F, a title case, modifier and other letter, a
/// combining mark, a three-byte letter), from every offset, ending at every kind of character
/// and at the end of the text.
#[test]
fn long_letter_runs_match_regex() {
    const PLAIN: &[&str] = &["a", "z", "Q", "\u{e9}", "\u{3b1}", "\u{436}", "\u{c9}", "\u{3a3}", "\u{416}", "\u{101}"];
    const RARE: &[&str] = &["\u{17f}", "\u{1c5}", "\u{2b0}", "\u{1bb}", "\u{301}", "\u{4e2d}", "\u{df}", "\u{149}"];
    const AFTER: &[&str] = &[" ", "1", ".", "'s", "'T", "\n", "\u{a0}", "\u{1f600}", "\u{3001}", "_", ""];
    let n = if RELEASE { 6_000 } else { 400 };
    let mut rng = Rng(0x10e7_7e25_0000_0038);
    let mut inputs: Vec<String> = (0..n)
        .map(|_| {
            let mut s: String = "x ".repeat(rng.below(40));
            for _ in 0..1 + rng.below(3) {
                let lower_only = rng.below(2) == 0;
                for _ in 0..20 + rng.below(300) {
                    let c =
                        if rng.below(60) == 0 { RARE[rng.below(RARE.len())] } else { PLAIN[rng.below(PLAIN.len())] };
                    // Half the runs lower case only (o200k's `W` run), half mixed.
                    s.push_str(if lower_only && c.chars().all(char::is_uppercase) { "\u{e9}" } else { c });
                }
                s.push_str(AFTER[rng.below(AFTER.len())]);
            }
            s
        })
        .collect();
    // A run of 100 two-byte lower case letters at every offset, then each ending.
    for k in 0..70 {
        for end in AFTER.iter().chain(RARE) {
            inputs.push(format!("{}{}{end}", "a".repeat(k), "\u{e9}\u{436}".repeat(50)));
            inputs.push(format!("{} {}{end}tail", "b".repeat(k), "\u{3b1}q".repeat(40)));
        }
    }
    check_all_engines(&inputs);
}

/// Random strings of a few fragments, where the o200k letter classes (Lu/Lt vs Ll vs Lm/Lo/M)
/// and whitespace runs interleave densely.
#[test]
fn random_dense_class_strings_match_regex() {
    const DENSE: &[&str] = &[
        "A", "a", "\u{1c5}", "\u{2b0}", "\u{5d0}", "\u{301}", "\u{903}", "'", "'s", "'T", " ", "\t", "\n", "\r",
        "\u{a0}", "1", "\u{661}", "!", "/", "\u{17f}",
    ];
    let n = if RELEASE { 200_000 } else { 15_000 };
    for (i, e) in engines().into_iter().enumerate() {
        let mut rng = Rng(0xdead_beef_cafe_f00d ^ ((i as u64 + 7) << 33));
        let inputs: Vec<String> = (0..n)
            .map(|_| {
                let len = rng.below(16);
                (0..len).map(|_| DENSE[rng.below(DENSE.len())]).collect()
            })
            .collect();
        check_all(&e, inputs.iter().map(|s| s.as_str()));
    }
}

/// Every string of length <= 3 over representatives of every class the patterns distinguish
/// (length 4 over a smaller set in release builds).
#[test]
fn exhaustive_short_strings_match_regex() {
    const REPS: &[char] = &[
        'a',
        'A',
        's',
        'S',
        '\u{17f}',
        'l',
        'v',
        'e',
        '\'',
        ' ',
        '\t',
        '\n',
        '\r',
        '\x0b',
        '1',
        '\u{661}',
        '\u{2460}',
        '!',
        '/',
        '\0',
        '\u{301}',
        '\u{903}',
        '\u{2b0}',
        '\u{5d0}',
        '\u{1c5}',
        '\u{e9}',
        '\u{c9}',
        '\u{a0}',
        '\u{3000}',
        '\u{85}',
        '\u{212a}',
        '\u{1f600}',
        '\u{200d}',
    ];
    const REPS4: &[char] =
        &['a', 'A', 's', '\'', ' ', '\t', '\n', '\r', '1', '!', '/', '\u{301}', '\u{2b0}', '\u{1c5}', '\u{a0}'];
    fn all_strings(reps: &[char], max_len: usize) -> Vec<String> {
        let mut out = vec![String::new()];
        let mut layer = vec![String::new()];
        for _ in 0..max_len {
            let mut next = Vec::new();
            for s in &layer {
                for &c in reps {
                    let mut t = s.clone();
                    t.push(c);
                    next.push(t);
                }
            }
            out.extend(next.iter().cloned());
            layer = next;
        }
        out
    }
    let mut inputs = all_strings(REPS, 3);
    if RELEASE {
        inputs.extend(all_strings(REPS4, 4).into_iter().filter(|s| s.chars().count() == 4));
    }
    for e in engines() {
        let n = check_all(&e, inputs.iter().map(|s| s.as_str()));
        eprintln!("{}: {n} exhaustive strings ok", e.name);
    }
}

/// Every code point (every 89th in debug builds), alone and in contexts that exercise each
/// alternative: after a space, a letter, an M char, a digit, an apostrophe, and before
/// letters of each case and contractions.
#[test]
fn every_code_point_in_context_matches_regex() {
    let step = if RELEASE { 1 } else { 89 };
    let chars: Vec<char> = all_chars().step_by(step).collect();
    let contexts: &[(&str, &str)] = &[
        ("", ""),
        (" ", "a"),
        ("a", "A"),
        ("A", "a's"),
        ("\u{301}", "A"),
        ("1", "1"),
        ("'", "'s"),
        ("\t", "\u{2b0}"),
        ("  ", " x"),
        ("!", "\n/"),
    ];
    let engines = engines();
    for &(pre, post) in contexts {
        // Many code points per text (separated by a newline so texts stay realistic in size).
        for chunk in chars.chunks(4096) {
            let mut text = String::new();
            for &c in chunk {
                text.push_str(pre);
                text.push(c);
                text.push_str(post);
                text.push(c);
                text.push('\n');
            }
            for e in &engines {
                if let Err(m) = compare(e, &text) {
                    panic!("context ({:?}, {:?}): {m}", esc(pre), esc(post));
                }
            }
        }
    }
}

// ----------------------------------------------------------------------------------------------
// Real text
// ----------------------------------------------------------------------------------------------

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Truncates to at most `max` bytes on a char boundary.
fn truncate(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut i = max;
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        s.truncate(i);
    }
    s
}

/// The shared corpus (../shared/data/corpus from the repo root), all files (gz through the
/// system gzip); `small` keeps only the first 48 KB of each.
fn corpus_texts(small: bool) -> Vec<(String, String)> {
    let dir = repo_root().join("../shared/data/corpus");
    let mut files = Vec::new();
    collect_files(&dir, &mut files);
    let mut out = Vec::new();
    for f in files {
        match read_text_file(&f) {
            Some(t) => {
                let t = if small { truncate(t, 48 * 1024) } else { t };
                out.push((f.file_name().unwrap().to_string_lossy().into_owned(), t));
            }
            None => eprintln!("skipping unreadable corpus file {}", f.display()),
        }
    }
    if out.is_empty() {
        eprintln!("warning: no corpus found under {}", dir.display());
    }
    out
}

/// About `count` Python sources from the stdlib of the system's python3 (spread over the tree,
/// deterministic), if python3 is there.
fn python_sources(count: usize) -> Vec<(String, String)> {
    let Ok(out) = std::process::Command::new("python3")
        .args(["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"])
        .output()
    else {
        eprintln!("python3 not found: skipping Python sources");
        return Vec::new();
    };
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim().to_string());
    let mut files = Vec::new();
    collect_files(&dir, &mut files);
    files.retain(|p| p.extension().is_some_and(|e| e == "py") && !p.to_string_lossy().contains("site-packages"));
    if files.is_empty() {
        return Vec::new();
    }
    let step = (files.len() / count).max(1);
    files
        .iter()
        .step_by(step)
        .take(count)
        .filter_map(|p| read_text_file(p).map(|t| (p.to_string_lossy().into_owned(), t)))
        .collect()
}

#[test]
fn corpus_matches_regex() {
    let texts = corpus_texts(!RELEASE);
    let engines = engines();
    let mut total = 0;
    for (name, text) in &texts {
        for e in &engines {
            if let Err(m) = compare(e, text) {
                panic!("corpus file {name}: {m}");
            }
        }
        total += text.len();
    }
    eprintln!("corpus: {} files, {total} bytes ok", texts.len());
}

#[test]
fn python_sources_match_regex() {
    let texts = python_sources(if RELEASE { 250 } else { 30 });
    let engines = engines();
    let mut total = 0;
    for (name, text) in &texts {
        for e in &engines {
            if let Err(m) = compare(e, text) {
                panic!("python source {name}: {m}");
            }
        }
        total += text.len();
    }
    eprintln!("python sources: {} files, {total} bytes ok", texts.len());
}

// ----------------------------------------------------------------------------------------------
// Pathological inputs
// ----------------------------------------------------------------------------------------------

fn pathological(n: usize) -> Vec<(&'static str, String)> {
    vec![
        ("spaces then x", " ".repeat(n) + "x"),
        ("spaces", " ".repeat(n)),
        ("spaces then newline then x", " ".repeat(n) + "\nx"),
        ("newline then spaces then x", "\n".to_string() + &" ".repeat(n) + "x"),
        ("nbsp then x", "\u{a0}".repeat(n) + "x"),
        ("tabs then a", "\t".repeat(n) + "a"),
        ("space-tab", " \t".repeat(n / 2) + "!"),
        ("a", "a".repeat(n)),
        ("A", "A".repeat(n)),
        ("Aa", "Aa".repeat(n / 2)),
        ("digits", "7".repeat(n)),
        ("arabic digits", "\u{661}".repeat(n)),
        ("'s", "'s".repeat(n)),
        ("'", "'".repeat(n)),
        ("'S'", "'S'".repeat(n / 2)),
        ("newlines", "\n".repeat(n)),
        ("newlines then x", "\n".repeat(n) + "x"),
        ("crlf", "\r\n".repeat(n / 2)),
        (" \\n", " \n".repeat(n / 2) + "x"),
        ("nuls", "\0".repeat(n)),
        ("!/", "!/".repeat(n / 2)),
        ("\\n/", "\n/".repeat(n / 2)),
        ("marks", "\u{301}".repeat(n)),
        ("mark then A", "\u{301}".to_string() + &"A".repeat(n)),
        ("space mark then A", " \u{301}".to_string() + &"A".repeat(n)),
        ("A then mark", "A".repeat(n) + "\u{301}"),
        ("A mark", "A\u{301}".repeat(n / 2)),
        ("!A", "!A".repeat(n / 2)),
        ("Lt", "\u{1c5}".repeat(n)),
        ("Lm", "\u{2b0}".repeat(n)),
        ("cjk", "\u{4e00}".repeat(n)),
        ("emoji zwj", "\u{1f469}\u{200d}".repeat(n / 2)),
        ("space word", " a".repeat(n / 2)),
        ("1a", "1a".repeat(n / 2)),
    ]
}

#[test]
fn pathological_inputs_are_linear() {
    let engines = engines();
    // Large sizes: the hand-written matchers only (and they must be fast).
    for (name, text) in pathological(1_000_000) {
        for e in &engines {
            let t0 = Instant::now();
            let pieces = fast_split(e, &text).len();
            let dt = t0.elapsed();
            let limit = Duration::from_secs(if RELEASE { 1 } else { 5 });
            assert!(dt < limit, "{}: {name} (1e6) took {dt:?} ({pieces} pieces)", e.name);
        }
    }
    // Smaller sizes: against the regex as well.
    let sizes: &[usize] = if RELEASE { &[1, 2, 3, 10, 1000, 100_000] } else { &[1, 2, 3, 10, 1000, 20_000] };
    for &n in sizes {
        for (name, text) in pathological(n) {
            for e in &engines {
                if let Err(m) = compare(e, &text) {
                    panic!("{name} (n={n}): {m}");
                }
            }
        }
    }
}

// ----------------------------------------------------------------------------------------------
// Throughput (run: cargo test -p tokenmill-core --release --test pretokenize -- --ignored
// --nocapture throughput)
// ----------------------------------------------------------------------------------------------

fn mb_per_s(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e6
}

#[test]
#[ignore]
fn throughput() {
    let corpus = corpus_texts(false);
    let english: Vec<&str> = corpus
        .iter()
        .filter(|(n, _)| n.ends_with(".txt") || n.contains("kjv") || n.contains("en-US"))
        .map(|(_, t)| t.as_str())
        .collect();
    let all: Vec<&str> = corpus.iter().map(|(_, t)| t.as_str()).collect();
    let python = python_sources(250);
    let python: Vec<&str> = python.iter().map(|(_, t)| t.as_str()).collect();
    let sets: [(&str, &[&str]); 3] = [("english", &english), ("all corpus", &all), ("python", &python)];
    for e in engines() {
        for (set, texts) in sets {
            let bytes: usize = texts.iter().map(|t| t.len()).sum();
            if bytes == 0 {
                continue;
            }
            let mut fast_best = Duration::MAX;
            let mut count = 0;
            for _ in 0..5 {
                let t0 = Instant::now();
                count = 0;
                for t in texts {
                    e.fast.for_each_piece(t, |_, _| count += 1).unwrap();
                }
                fast_best = fast_best.min(t0.elapsed());
            }
            let t0 = Instant::now();
            let mut slow_count = 0;
            for t in texts {
                e.slow.for_each_piece(t, |_, _| slow_count += 1).unwrap();
            }
            let slow = t0.elapsed();
            assert_eq!(count, slow_count);
            let (f, s) = (mb_per_s(bytes, fast_best), mb_per_s(bytes, slow));
            println!(
                "{:7} {:11} {:6.1} MB, {:9} pieces: fast {:7.1} MB/s, fancy_regex {:6.1} MB/s ({:.1}x)",
                e.name,
                set,
                bytes as f64 / 1e6,
                count,
                f,
                s,
                f / s
            );
        }
    }
}

/// Long random strings of mostly plain ASCII (letters, spaces, newlines, punctuation, digits,
/// apostrophes and contractions), where the cl100k-like patterns split 64 bytes at a time,
/// with the bytes that end a block's fast path (tabs and other whitespace, controls, non-ASCII
/// letters and symbols) here and there: every piece must be the regex's and the per-piece matcher's.
#[test]
fn long_plain_ascii_strings_match_regex() {
    #[rustfmt::skip]
    const PLAIN: &[&str] = &[
        "a", "Z", "the", "Word", "of", "s", "ll", "re", "e", " ", " ", " ", "  ", "   ", ".", ",", "(", ")", "\"", "-",
        "--", ".)", "!?", "/", "_", "{", "}", "@", "#", "~", "`", "^", "[", "]", ";", ":", "=", "+", "*", "<", ">", "|",
        "\\", "$", "%", "&", "'", "'", "'s", "'S", "'LL", "'lL", "'ve", "'Re", "'t", "'d", "'M", "'l", "'v", "'r", "'x",
        "''", "1", "12", "123", "1234", "12345678", "1234567890123", "0", "\n", "\n", "\r\n", "\r", " \n", "\n\n",
        ".\n", ":\n    ", "\n  ", " \n ", "\n\r\n",
    ];
    #[rustfmt::skip]
    const REST: &[&str] = &[
        "\t", "\x0b", "\x0c", "\x00", "\u{e9}", "\u{3b1}", "\u{2014}", "\u{4e2d}", "\u{a0}", "\u{17f}", "\u{1f600}",
        "\u{661}",
    ];
    let n = if RELEASE { 40_000 } else { 3_000 };
    let engines: Vec<Engine> =
        engines().into_iter().filter(|e| ["cl100k", "o200k", "llama3", "qwen2"].contains(&e.name)).collect();
    for (i, e) in engines.iter().enumerate() {
        let mut rng = Rng(0x0bad_5eed_1234_0001 ^ ((i as u64 + 3) << 36));
        let inputs: Vec<String> =
            (0..n)
                .map(|_| {
                    let (len, rest) = (rng.below(160), rng.below(40));
                    (0..len)
                        .map(|_| {
                            if rng.below(41) < rest {
                                REST[rng.below(REST.len())]
                            } else {
                                PLAIN[rng.below(PLAIN.len())]
                            }
                        })
                        .collect()
                })
                .collect();
        check_all(e, inputs.iter().map(String::as_str));
    }
}
