//! Byte offsets in UTF-8 text <-> character (code point) offsets, the indices Python's `str`
//! uses.
//!
//! The core works on bytes; the binding reports positions to Python in characters. Every
//! conversion here walks the bytes, counting the ones that start a character (those that are
//! not `0b10xx_xxxx`), and only over the range it needs.
//!
//! `CharText` pairs a text with its length in characters, which Python knows for free: with
//! it, ASCII text (as many characters as bytes) converts for nothing, and other text walks
//! from whichever end of the text is nearer.
//!
//! What it does not do: validate UTF-8 (callers pass `str` bytes) or know about grapheme
//! clusters (a combining mark is a character of its own, as in Python).

/// True when byte `b` starts a character (it is not a UTF-8 continuation byte).
#[inline(always)]
pub fn starts_char(b: u8) -> bool {
    (b & 0xC0) != 0x80
}

/// Converts sorted byte offsets into character offsets (a byte inside a multi-byte character
/// maps to that character).
pub fn byte_to_char_offsets(text: &[u8], byte_offsets: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(byte_offsets.len());
    let mut chars = 0usize;
    let mut pos = 0usize;
    for &b in byte_offsets {
        while pos < b && pos < text.len() {
            if starts_char(text[pos]) {
                chars += 1;
            }
            pos += 1;
        }
        let inside = b < text.len() && !starts_char(text[b]);
        // In valid UTF-8 a continuation byte follows the byte that starts its character, which
        // was counted, so this cannot underflow.
        debug_assert!(chars >= inside as usize, "byte {b} continues a character that never started");
        out.push(chars - inside as usize);
    }
    out
}

/// Character offsets of consecutive parts of one text, such as the tokens of a decode, in one
/// pass over their bytes: `start_of` each part in order.
#[derive(Clone, Copy, Debug, Default)]
pub struct PartOffsets {
    /// Characters started in the parts given so far.
    chars: usize,
}

impl PartOffsets {
    /// A count at the start of the text.
    pub fn new() -> Self {
        Self::default()
    }

    /// The character offset where `part`, which follows the parts already given, starts, and
    /// counts its characters. A part that begins inside a character (with a continuation
    /// byte) is assigned that character's offset, as tiktoken does; one at the very start,
    /// which only invalid UTF-8 has, gets 0.
    #[inline]
    pub fn start_of(&mut self, part: &[u8]) -> usize {
        let inside = part.first().is_some_and(|&b| !starts_char(b));
        let at = self.chars.saturating_sub(inside as usize);
        self.chars += part.iter().filter(|&&b| starts_char(b)).count();
        at
    }
}

/// A text and its length in characters, for moving between byte and character offsets.
#[derive(Clone, Copy, Debug)]
pub struct CharText<'t> {
    text: &'t str,
    n_chars: usize,
}

impl<'t> CharText<'t> {
    /// Counts the characters of `text` (one pass over its bytes).
    pub fn new(text: &'t str) -> Self {
        let n_chars = if text.is_ascii() { text.len() } else { text.bytes().filter(|&b| starts_char(b)).count() };
        CharText { text, n_chars }
    }

    /// `text` whose length in characters is known to be `n_chars` (Python's `len`, O(1)). A
    /// wrong `n_chars` gives wrong offsets, never a panic.
    pub fn with_len(text: &'t str, n_chars: usize) -> Self {
        CharText { text, n_chars }
    }

    /// The text.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// Length in characters.
    pub fn len(&self) -> usize {
        self.n_chars
    }

    /// True for the empty text.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// True when every character is one byte (character and byte offsets coincide).
    pub fn is_ascii(&self) -> bool {
        self.n_chars == self.text.len()
    }

    /// Byte offset where character `i` starts (`text.len()` for `i >= len()`): walks from the
    /// nearer end, so offsets near either end are cheap.
    pub fn byte_of(&self, i: usize) -> usize {
        let b = self.text.as_bytes();
        if self.is_ascii() {
            return i.min(b.len());
        }
        if i >= self.n_chars {
            return b.len();
        }
        if i <= self.n_chars - i {
            let mut seen = 0;
            for (p, &x) in b.iter().enumerate() {
                if starts_char(x) {
                    if seen == i {
                        return p;
                    }
                    seen += 1;
                }
            }
            b.len()
        } else {
            let mut left = self.n_chars - i;
            for (p, &x) in b.iter().enumerate().rev() {
                if starts_char(x) {
                    left -= 1;
                    if left == 0 {
                        return p;
                    }
                }
            }
            0
        }
    }

    /// Number of characters that start in bytes `a..b` (both clamped to the text).
    pub fn chars_between(&self, a: usize, b: usize) -> usize {
        let bytes = self.text.as_bytes();
        let (a, b) = (a.min(bytes.len()), b.min(bytes.len()));
        if a >= b {
            return 0;
        }
        if self.is_ascii() {
            return b - a;
        }
        bytes[a..b].iter().filter(|&&x| starts_char(x)).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_offsets_become_char_offsets() {
        let t = "aé中😀b".as_bytes(); // 1 + 2 + 3 + 4 + 1 bytes
        assert_eq!(byte_to_char_offsets(t, &[0, 1, 3, 6, 10, 11]), vec![0, 1, 2, 3, 4, 5]);
        // Inside a character: that character's offset.
        assert_eq!(byte_to_char_offsets(t, &[2, 4, 5, 7, 9]), vec![1, 2, 2, 3, 3]);
        assert_eq!(byte_to_char_offsets(b"", &[0]), vec![0]);
    }

    #[test]
    fn parts_start_where_their_first_character_does() {
        // "aé中" split as a | é's first byte | é's second byte + 中 | a token of 中 alone.
        let parts: [&[u8]; 4] = [b"a", b"\xc3", b"\xa9\xe4\xb8\xad", "中".as_bytes()];
        let mut po = PartOffsets::new();
        assert_eq!(parts.iter().map(|p| po.start_of(p)).collect::<Vec<_>>(), vec![0, 1, 1, 3]);
        // A continuation byte at the very start (not UTF-8) counts as offset 0.
        assert_eq!(PartOffsets::new().start_of(b"\x80a"), 0);
    }

    #[test]
    fn char_text_converts_both_ways() {
        for text in ["", "abc", "aé中😀b", "éé", "中", "x\u{301}y😀😀\n"] {
            let ct = CharText::new(text);
            let starts: Vec<usize> = text.char_indices().map(|(p, _)| p).chain([text.len()]).collect();
            assert_eq!(ct.len(), starts.len() - 1, "{text:?}");
            assert_eq!(ct.is_ascii(), text.is_ascii());
            for (i, &p) in starts.iter().enumerate() {
                assert_eq!(ct.byte_of(i), p, "{text:?} char {i}");
                assert_eq!(ct.chars_between(0, p), i);
                assert_eq!(ct.chars_between(p, text.len()), ct.len() - i);
            }
            assert_eq!(ct.byte_of(ct.len() + 5), text.len());
            // A wrong length never panics.
            for n in [0, ct.len() + 3, text.len()] {
                let wrong = CharText::with_len(text, n);
                for i in 0..ct.len() + 5 {
                    assert!(wrong.byte_of(i) <= text.len());
                    assert!(wrong.chars_between(i, text.len() + 1) <= text.len());
                }
            }
        }
    }
}
