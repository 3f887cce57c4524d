//! Possessive quantifiers (`X++`, `X?+`, `X*+`, `X{1,3}+`) rewritten as greedy ones where that
//! provably changes no match, so that patterns such as tiktoken's cl100k spelling can run on the
//! lazy DFA (`dfa`), which has no possessive quantifiers.
//!
//! The rule. In one alternative `P X^q S` (at its top level, not inside a group), with `X` one
//! character per repetition (a class, an escape class or a literal character): greedy `X^q`
//! first takes the longest run, as the possessive one does, and only gives characters back when
//! the rest `S` fails after it. Giving back never helps, so the two are equal, when either
//!
//! * `S` can match the empty string with no assertion in it (then `S` succeeds after the
//!   longest run, and nothing after `S` remains: it is the end of the alternative), or
//! * `S` starts with `$` or `\z` (after a shorter run the next character is in `X`, so the text
//!   does not end there), or
//! * the first item of `S` that cannot match empty is a class disjoint from `X`, and so are the
//!   optional items before it (after a shorter run, the next character is in `X`, so `S`
//!   cannot start there).
//!
//! Anything else keeps the pattern on the backtracking engine (`rewrite` returns `None`).

use regex_syntax::hir::{Class, ClassUnicode, HirKind};

/// One item of an alternative's top level: its atom's text, and its quantifier's bounds.
struct Item<'a> {
    atom: &'a str,
    kind: Atom,
    /// The quantifier may repeat zero times (`?`, `*`, `{0,..}`).
    nullable: bool,
    /// The quantifier is possessive: the text up to its last `+`, which is dropped.
    possessive: bool,
    /// The item's whole text (atom and quantifier), possessive `+` excluded.
    text: &'a str,
}

#[derive(Clone, Copy, PartialEq)]
enum Atom {
    /// One character per repetition: a class, an escape, a literal, `.`.
    Char,
    /// `$` or `\z`.
    End,
    /// A group or another assertion: not looked into.
    Other,
}

/// `alt` with its possessive quantifiers made greedy, or `None` when one of them cannot be.
/// An alternative without any is returned as it is.
pub fn rewrite(alt: &str) -> Option<String> {
    let items = items(alt)?;
    if !items.iter().any(|i| i.possessive) {
        return Some(alt.to_string());
    }
    for (k, item) in items.iter().enumerate() {
        if item.possessive && !(item.kind == Atom::Char && gives_nothing_back(item.atom, &items[k + 1..])?) {
            return None;
        }
    }
    Some(items.iter().map(|i| i.text).collect())
}

/// True when a run of `atom` never needs to give a character back to `rest` (the module rule).
fn gives_nothing_back(atom: &str, rest: &[Item]) -> Option<bool> {
    let x = class(atom)?;
    for item in rest {
        match item.kind {
            Atom::End => return Some(true),
            Atom::Other => return Some(false),
            Atom::Char => {
                let mut both = class(item.atom)?;
                both.intersect(&x);
                if !both.ranges().is_empty() {
                    return Some(false);
                }
                if !item.nullable {
                    return Some(true);
                }
            }
        }
    }
    // Every item of the rest can match empty (and none is an assertion).
    Some(true)
}

/// The characters `atom` matches, when it is one character class.
fn class(atom: &str) -> Option<ClassUnicode> {
    let hir = regex_syntax::Parser::new().parse(atom).ok()?;
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => Some(c.clone()),
        HirKind::Literal(lit) => {
            let s = std::str::from_utf8(&lit.0).ok()?;
            let mut chars = s.chars();
            let c = chars.next()?;
            chars.next().is_none().then(|| ClassUnicode::new([regex_syntax::hir::ClassUnicodeRange::new(c, c)]))
        }
        _ => None,
    }
}

/// The top-level items of `alt`, or `None` for syntax this scan does not follow.
fn items(alt: &str) -> Option<Vec<Item<'_>>> {
    let b = alt.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let kind = match b[i] {
            b'\\' => {
                i += 1;
                let c = *b.get(i)?;
                if matches!(c, b'p' | b'P' | b'x' | b'u') && b.get(i + 1) == Some(&b'{') {
                    i += b[i..].iter().position(|&c| c == b'}')?;
                } else if matches!(c, b'p' | b'P') {
                    i += 1; // `\pL`
                } else if matches!(c, b'x' | b'u' | b'U') {
                    i += match c {
                        b'x' => 2,
                        b'u' => 4,
                        _ => 8,
                    }; // `\x41`, `\u0041`, `\U00000041`
                }
                i += 1;
                match c {
                    b'z' => Atom::End,
                    b'b' | b'B' | b'A' | b'<' | b'>' => Atom::Other,
                    _ => Atom::Char,
                }
            }
            b'[' => {
                i = class_end(b, i)?;
                Atom::Char
            }
            b'(' => {
                let mut depth = 0usize;
                loop {
                    match *b.get(i)? {
                        b'\\' => i += 1,
                        b'[' => i = class_end(b, i)? - 1,
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                i += 1;
                Atom::Other
            }
            b'$' => {
                i += 1;
                Atom::End
            }
            b'^' | b')' | b'|' | b'*' | b'+' | b'?' | b'{' => return None,
            _ => {
                // One literal character (UTF-8).
                i += alt[i..].chars().next()?.len_utf8();
                Atom::Char
            }
        };
        let atom = &alt[start..i];
        let mut nullable = false;
        let mut quantified = true;
        match b.get(i) {
            Some(b'?') | Some(b'*') => {
                nullable = true;
                i += 1;
            }
            Some(b'+') => i += 1,
            Some(b'{') => {
                let close = i + b[i..].iter().position(|&c| c == b'}')?;
                nullable = alt[i + 1..close].split(',').next()?.trim().parse::<u32>().ok()? == 0;
                i = close + 1;
            }
            _ => quantified = false,
        }
        let mut possessive = false;
        let text_end;
        match b.get(i) {
            Some(b'+') if quantified => {
                possessive = true;
                text_end = i;
                i += 1;
            }
            Some(b'?') if quantified => {
                i += 1; // lazy
                text_end = i;
            }
            _ => text_end = i,
        }
        out.push(Item { atom, kind, nullable, possessive, text: &alt[start..text_end] });
    }
    Some(out)
}

/// The index just past the `]` that closes the class opening at `open`.
fn class_end(b: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if b.get(i) == Some(&b'^') {
        i += 1;
    }
    if b.get(i) == Some(&b']') {
        i += 1;
    }
    let mut depth = 1usize;
    while depth > 0 {
        match *b.get(i)? {
            b'\\' => i += 1,
            b'[' => depth += 1,
            b']' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn possessives_that_give_nothing_back_become_greedy() {
        let cases = [
            (r"[^\r\n\p{L}\p{N}]?+\p{L}++", r"[^\r\n\p{L}\p{N}]?\p{L}+"),
            (r"\p{N}{1,3}+", r"\p{N}{1,3}"),
            (r" ?[^\s\p{L}\p{N}]++[\r\n]*+", r" ?[^\s\p{L}\p{N}]+[\r\n]*"),
            (r"\s++$", r"\s+$"),
            (r" ?\p{L}++", r" ?\p{L}+"),
            (r"'(?i:[sdmt]|ll|ve|re)", r"'(?i:[sdmt]|ll|ve|re)"),
            (r"a++b", "a+b"),
            (r"\pL++", r"\pL+"),
            (r"\x41++\x42", r"\x41+\x42"),
        ];
        for (given, want) in cases {
            assert_eq!(rewrite(given).as_deref(), Some(want), "{given}");
        }
    }

    #[test]
    fn possessives_that_could_give_back_stay() {
        for p in [r"\p{L}++[a-z]", r"a++a", r"\s++\S?\s", r"a++(?:b)", r"(?:a)++", r"\w++\b", r"a?+a", r"\x41++\x41"] {
            assert_eq!(rewrite(p), None, "{p}");
        }
    }
}
