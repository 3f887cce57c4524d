//! Byte offsets in UTF-8 text <-> character (code point) offsets, the indices Python's `str`
//! uses.
//!
//! The core works on bytes; the binding reports positions to Python in characters. Every
//! conversion here walks the bytes, counting the ones that start a character (those that are
//! not `0b10xx_xxxx`), and only over the range it needs.
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
        out.push(chars - inside as usize);
    }
    out
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
}
