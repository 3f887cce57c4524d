//! The general pre-tokenizer for patterns no hand-written matcher covers, on a lazy DFA
//! (regex-automata's) instead of `fancy_regex`'s backtracking VM.
//!
//! Why: `fancy_regex` runs a whole pattern on its backtracking VM as soon as it holds one
//! look-around, and every GPT-style pattern does: the alternative `\s+(?!\S)` (a whitespace
//! run gives its last character to the word after it). That look-ahead is handled here by
//! hand, so the rest runs on a DFA:
//!
//! * the pattern is cut into its top-level alternatives, compiled as one multi-pattern regex
//!   (leftmost-first: at a position, the first alternative that matches wins, exactly as in the
//!   alternation), with `\s+(?!\S)` replaced by `\s+`; each piece is one anchored search on a
//!   bare lazy DFA (`Lazy`), and the meta engine (`all`) serves unanchored searches and any
//!   search the lazy DFA gives up on;
//! * when that alternative wins with a run of `n` characters: at the end of the text the
//!   look-ahead holds and the run stays whole; before a non-space it keeps `n - 1` characters
//!   (what backtracking finds: the last space is then followed by a space); with `n == 1` the
//!   original alternative fails, so the alternatives after it are tried at the same position
//!   (`rest`), and when none matches there the search goes on from the next character, as the
//!   backtracking search does.
//!
//! Which patterns it takes (`DfaSplitter::new` returns `None` for the others, which stay on
//! `fancy_regex`): every top-level alternative compiles with `regex-syntax` once its possessive
//! quantifiers are made greedy where that changes nothing (`possessive`; so no other
//! look-around, backreference, atomic group or possessive quantifier that could give back),
//! none can match the empty string (`for_each_piece` drops empty matches, HF's splits keep
//! them), at most one is exactly `\s+(?!\S)`, and no inline flag group `(?i)` stands at the
//! top level (it would reach across alternatives, which are compiled apart here). The Unicode
//! classes are regex-syntax's, the tables `fancy_regex` delegates to, so the pieces are the same.

use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::Arc;

use super::possessive;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::meta::Regex;
use regex_automata::util::pool::Pool;
use regex_automata::{Anchored, Input};

/// The look-ahead alternative handled by hand.
const LOOKAHEAD_ALT: &str = r"\s+(?!\S)";

/// A pattern compiled for the lazy DFA; see the module comment.
#[derive(Debug)]
pub struct DfaSplitter {
    /// The pattern as given.
    pattern: String,
    /// Every alternative, `\s+(?!\S)` as `\s+`: the meta engine, for unanchored searches and
    /// wherever the lazy DFA below is missing or gives up.
    all: Regex,
    /// The same alternatives on a bare lazy DFA (`None` when it cannot be built, e.g. for a
    /// Unicode `\b`), for the anchored search at each piece: the meta engine's own set-up per
    /// search costs about as much as a short piece's scan.
    lazy: Option<Lazy>,
    /// The index of the `\s+(?!\S)` alternative, if any.
    lookahead: Option<usize>,
    /// The alternatives after it, tried where it fails (`None`: there are none).
    rest: Option<Regex>,
}

type CachePool = Pool<Cache, Box<dyn Fn() -> Cache + Send + Sync + UnwindSafe + RefUnwindSafe>>;

/// A lazy DFA and a pool of its caches (one per thread at a time).
#[derive(Debug)]
struct Lazy {
    dfa: Arc<DFA>,
    caches: CachePool,
}

impl Lazy {
    fn new(dfa: Arc<DFA>) -> Self {
        let d = dfa.clone();
        Lazy { dfa, caches: Pool::new(Box::new(move || d.create_cache())) }
    }

    /// The anchored leftmost-first match at `input`'s start: `Some(None)` for none, `None` when
    /// the DFA cannot tell. Why not `DFA::try_search_fwd`: in a greedy run (`\p{L}+`) every
    /// byte lands in a match state, which its unrolled loop treats as the rare case; here a
    /// match state only records where it is.
    fn longest_first(&self, cache: &mut Cache, input: &Input<'_>) -> Option<Option<(usize, usize)>> {
        let dfa = &*self.dfa;
        let text = input.haystack();
        let mut sid = dfa.start_state_forward(cache, input).ok()?;
        let clears = cache.clear_count();
        // Matches show one byte late: a match state reached on byte `at` ends a match at `at`.
        let mut last = None;
        let mut at = input.start();
        while at < text.len() {
            sid = dfa.next_state(cache, sid, text[at]).ok()?;
            if sid.is_tagged() {
                if sid.is_match() {
                    last = Some((at, sid));
                } else if sid.is_dead() {
                    break;
                } else if sid.is_quit() {
                    return None;
                }
            }
            at += 1;
        }
        if at == text.len() {
            sid = dfa.next_eoi_state(cache, sid).ok()?;
            if sid.is_match() {
                last = Some((at, sid));
            }
        }
        // A cleared cache may have renumbered the recorded state.
        if cache.clear_count() != clears {
            return None;
        }
        Some(last.map(|(end, sid)| (end, dfa.match_pattern(cache, sid, 0).as_usize())))
    }
}

impl Clone for DfaSplitter {
    fn clone(&self) -> Self {
        DfaSplitter {
            pattern: self.pattern.clone(),
            all: self.all.clone(),
            lazy: self.lazy.as_ref().map(|l| Lazy::new(l.dfa.clone())),
            lookahead: self.lookahead,
            rest: self.rest.clone(),
        }
    }
}

impl DfaSplitter {
    /// Compiles `pattern` for the DFA, or `None` when it needs the backtracking engine.
    pub fn new(pattern: &str) -> Option<Self> {
        let alts = top_level_alternatives(pattern)?;
        let lookahead: Vec<usize> =
            alts.iter().enumerate().filter(|(_, a)| **a == LOOKAHEAD_ALT).map(|(i, _)| i).collect();
        if lookahead.len() > 1 {
            return None;
        }
        let lookahead = lookahead.first().copied();
        let compiled: Vec<String> = alts
            .iter()
            .map(|a| if *a == LOOKAHEAD_ALT { Some(r"\s+".to_string()) } else { possessive::rewrite(a) })
            .collect::<Option<_>>()?;
        for alt in &compiled {
            let hir = regex_syntax::Parser::new().parse(alt).ok()?;
            if hir.properties().minimum_len().is_none_or(|n| n == 0) {
                return None;
            }
        }
        let all = Regex::new_many(&compiled).ok()?;
        let lazy = DFA::new_many(&compiled).ok().map(|d| Lazy::new(Arc::new(d)));
        let rest = match lookahead {
            Some(j) if j + 1 < compiled.len() => Some(Regex::new_many(&compiled[j + 1..]).ok()?),
            _ => None,
        };
        Some(DfaSplitter { pattern: pattern.to_string(), all, lazy, lookahead, rest })
    }

    /// The end and alternative of the match that starts at `pos`, if any.
    fn anchored(&self, cache: Option<&mut Cache>, text: &str, pos: usize) -> Option<(usize, usize)> {
        let input = Input::new(text).range(pos..).anchored(Anchored::Yes);
        if let (Some(lazy), Some(cache)) = (&self.lazy, cache) {
            if let Some(m) = lazy.longest_first(cache, &input) {
                return m;
            }
            // The lazy DFA gave up (a quit byte, e.g. non-ASCII near a Unicode `\b`, or its
            // cache was cleared mid-search): the meta engine picks another.
        }
        self.all.search_half(&input).map(|h| (h.offset(), h.pattern().as_usize()))
    }

    /// The pattern as given.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Calls `f(start, end)` for each piece `fancy_regex::Regex::find_iter` would give.
    pub fn for_each_piece<F: FnMut(usize, usize)>(&self, text: &str, mut f: F) {
        let bytes = text.as_bytes();
        let mut guard = self.lazy.as_ref().map(|l| l.caches.get());
        let mut pos = 0;
        while pos < text.len() {
            // Pieces are usually back to back: an anchored search needs only the forward DFA.
            let (start, end, pid) = match self.anchored(guard.as_deref_mut(), text, pos) {
                Some((end, pid)) => (pos, end, pid),
                None => match self.all.search(&Input::new(text).range(pos..)) {
                    Some(m) => (m.start(), m.end(), m.pattern().as_usize()),
                    None => return,
                },
            };
            if Some(pid) != self.lookahead || end == text.len() {
                f(start, end);
                pos = end;
                continue;
            }
            // The run [start, end) is followed by a non-space: keep all but its last character.
            let last = prev_char_start(bytes, end);
            if last > start {
                f(start, last);
                pos = last;
                continue;
            }
            // One space before a non-space: `\s+(?!\S)` fails here; the later alternatives?
            let later = self
                .rest
                .as_ref()
                .and_then(|r| r.search_half(&Input::new(text).range(start..).anchored(Anchored::Yes)));
            match later {
                Some(h) => {
                    f(start, h.offset());
                    pos = h.offset();
                }
                // Nothing matches at `start`: the search resumes at the next character.
                None => pos = end,
            }
        }
    }
}

/// The start of the character that ends at `end`.
fn prev_char_start(bytes: &[u8], end: usize) -> usize {
    let mut i = end - 1;
    while i > 0 && (bytes[i] & 0xC0) == 0x80 {
        i -= 1;
    }
    i
}

/// `pattern` cut at its top-level `|`, or `None` for a pattern with a top-level inline flag
/// group (`(?i)`: its flags would reach across the cut), a possessive quantifier inside a group
/// (`(?:a++)`, which `regex-syntax` would read as a repeated greedy one) or unbalanced brackets.
fn top_level_alternatives(pattern: &str) -> Option<Vec<&str>> {
    let b = pattern.as_bytes();
    let (mut depth, mut class, mut start, mut i) = (0usize, 0usize, 0usize, 0usize);
    // The item before is a quantifier: a `+` now would make it possessive.
    let mut after_quantifier = false;
    let mut out = Vec::new();
    while i < b.len() {
        let quantifier = class == 0 && matches!(b[i], b'+' | b'*' | b'?' | b'}');
        match b[i] {
            b'\\' => {
                // `\p{..}`, `\x{..}`, `\u{..}`: the braces belong to the escape.
                i += 1;
                if matches!(b.get(i), Some(b'p' | b'P' | b'x' | b'u')) && b.get(i + 1) == Some(&b'{') {
                    i += b[i..].iter().position(|&c| c == b'}')?;
                }
            }
            b'[' => {
                class += 1;
                // A `]` (after an optional `^`) right after the opening bracket is a literal.
                if b.get(i + 1) == Some(&b'^') {
                    i += 1;
                }
                if b.get(i + 1) == Some(&b']') {
                    i += 1;
                }
            }
            b']' if class > 0 => class -= 1,
            _ if class > 0 => {}
            // Inside a group (the top level is `possessive::rewrite`'s).
            b'+' if after_quantifier && depth > 0 => return None,
            b'(' => {
                if depth == 0 && is_flag_group(&b[i..]) {
                    return None;
                }
                depth += 1;
                // `(?`: the `?` is not a quantifier.
                if b.get(i + 1) == Some(&b'?') {
                    i += 1;
                }
            }
            b')' => depth = depth.checked_sub(1)?,
            b'|' if depth == 0 => {
                out.push(&pattern[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        after_quantifier = quantifier;
        i += 1;
    }
    if depth != 0 || class != 0 {
        return None;
    }
    out.push(&pattern[start..]);
    Some(out)
}

/// True for `(?flags)` (no colon): a flag setting that holds to the end of its group.
fn is_flag_group(s: &[u8]) -> bool {
    if !s.starts_with(b"(?") {
        return false;
    }
    for &c in &s[2..] {
        match c {
            b')' => return true,
            b'-' | b'a'..=b'z' | b'A'..=b'Z' => {}
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces_dfa(pattern: &str, text: &str) -> Vec<(usize, usize)> {
        let d = DfaSplitter::new(pattern).expect("compiles for the DFA");
        let mut out = Vec::new();
        d.for_each_piece(text, |s, e| out.push((s, e)));
        out
    }

    fn pieces_fancy(pattern: &str, text: &str) -> Vec<(usize, usize)> {
        let re = fancy_regex::Regex::new(pattern).unwrap();
        re.find_iter(text).map(|m| m.unwrap()).filter(|m| m.end() > m.start()).map(|m| (m.start(), m.end())).collect()
    }

    const LLAMA3: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

    #[test]
    fn same_pieces_as_fancy_regex() {
        let patterns = [
            LLAMA3,
            crate::pretokenize::O200K_PAT,
            crate::pretokenize::GPT2_ORIGINAL_PAT,
            crate::pretokenize::R50K_PAT,
            crate::pretokenize::CL100K_PAT,
            crate::pretokenize::patterns::QWEN2_PAT,
            crate::pretokenize::patterns::DEEPSEEK_V3_MAIN_PAT,
            // The look-ahead alternative last: nothing after it to fall back on.
            r"\p{L}+|\p{N}|[^\s\p{L}\p{N}]+|\s+(?!\S)",
            // Gaps: characters no alternative matches.
            r"[a-z]+|\s+(?!\S)|\d",
        ];
        let texts = [
            "Hello world  foo   bar\n\n  baz\t\tqux  ",
            "x  y",
            " a",
            "  ",
            "a \u{3000}\u{3000}b \u{a0}c  \u{2028}d",
            "it's 12345 dollars!!  \r\n  ok",
            "日本語 テキスト  です。",
            "A  ",
            "!! ?? ..",
            "Ab 9  9 ZZ  !",
            "end with spaces   ",
            "x\n\n\n  \t ",
            "1234567 !!!\n\r\n ,,,abc",
        ];
        for p in patterns {
            for t in texts {
                assert_eq!(pieces_dfa(p, t), pieces_fancy(p, t), "pattern {p:?} text {t:?}");
            }
        }
    }

    #[test]
    fn patterns_it_leaves_to_the_backtracking_engine() {
        // Possessive quantifiers that could give back, other look-arounds, an empty match, a
        // top-level flag group.
        for p in
            [r"\p{L}++\p{L}|\s", r"(?:ab)++|\s", r"(?<=a)b|\s", r"a*|b", r"(?i)a|b", r"\s+(?!\S)|x|\s+(?!\S)", r"(a|b"]
        {
            assert!(DfaSplitter::new(p).is_none(), "{p}");
        }
        // A scoped flag group is fine.
        assert!(DfaSplitter::new(r"(?i:ab)|\s+").is_some());
    }

    #[test]
    fn alternatives_are_cut_at_the_top_level_only() {
        assert_eq!(top_level_alternatives(r"a|(b|c)|[|]|\||d").unwrap(), ["a", "(b|c)", "[|]", r"\|", "d"]);
        assert_eq!(top_level_alternatives(r"[]|]|x").unwrap(), ["[]|]", "x"]);
        assert_eq!(top_level_alternatives(r"[^]|]|x").unwrap(), ["[^]|]", "x"]);
        assert_eq!(top_level_alternatives(r"[a[b|c]]|x").unwrap(), ["[a[b|c]]", "x"]);
        assert_eq!(top_level_alternatives(r"\p{L}+|\++|a+?|(?:b)+").unwrap(), [r"\p{L}+", r"\++", "a+?", "(?:b)+"]);
        for possessive in [r"(?:a++)", r"(a?+)", r"(?i:a*+)"] {
            assert!(top_level_alternatives(possessive).is_none(), "{possessive}");
        }
    }
}
