//! GPT-2's byte-level alphabet (`bytes_to_unicode`): the character that stands for each byte in
//! byte-level tokens, and back. One copy, used by the ByteLevel normalizer and pre-tokenizer
//! (bytes to characters), the ByteLevel decoder (characters to bytes) and the fast path.

/// GPT-2's `bytes_to_unicode`: the character standing for each byte in byte-level tokens.
/// Printable bytes (`!`..=`~`, `¡`..=`¬`, `®`..=`ÿ`) stand for themselves; the others, in byte
/// order, for U+0100, U+0101, ...
pub static BYTE_TO_CHAR: [char; 256] = byte_to_char_table();

/// The byte a byte-level character stands for (the inverse of `BYTE_TO_CHAR`).
pub fn char_to_byte(c: char) -> Option<u8> {
    let v = *CHAR_TO_BYTE.get(c as usize)?;
    u8::try_from(v).ok()
}

const fn is_printable_byte(b: usize) -> bool {
    (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
}

const fn byte_to_char_table() -> [char; 256] {
    let mut table = ['\0'; 256];
    let (mut b, mut n) = (0usize, 0u32);
    while b < 256 {
        let code = if is_printable_byte(b) {
            b as u32
        } else {
            n += 1;
            255 + n
        };
        table[b] = match char::from_u32(code) {
            Some(c) => c,
            None => '\0', // cannot happen: every code is below 0x200
        };
        b += 1;
    }
    table
}

/// Characters of `BYTE_TO_CHAR` are all below U+0144; 0xFFFF marks the others.
static CHAR_TO_BYTE: [u16; 0x144] = char_to_byte_table();

const fn char_to_byte_table() -> [u16; 0x144] {
    let mut table = [0xFFFFu16; 0x144];
    let mut b = 0usize;
    while b < 256 {
        table[BYTE_TO_CHAR[b] as usize] = b as u16;
        b += 1;
    }
    table
}

/// The character GPT-2's byte-level alphabet uses for byte `b` (HF's `bytes_char`).
#[inline]
pub fn byte_level_char(b: u8) -> char {
    BYTE_TO_CHAR[b as usize]
}

/// `s` with each byte replaced by its byte-level character, appended to `out`.
#[inline]
pub fn push_byte_level(s: &str, out: &mut String) {
    for &b in s.as_bytes() {
        out.push(BYTE_TO_CHAR[b as usize]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_table() {
        // tokenizers.pre_tokenizers.ByteLevel.alphabet() and GPT-2's bytes_to_unicode.
        assert_eq!((BYTE_TO_CHAR[b'!' as usize], BYTE_TO_CHAR[b' ' as usize], BYTE_TO_CHAR[0]), ('!', 'Ġ', 'Ā'));
        assert_eq!((BYTE_TO_CHAR[b'\n' as usize], BYTE_TO_CHAR[0xAD], BYTE_TO_CHAR[0xFF]), ('Ċ', 'Ń', 'ÿ'));
        for b in 0..=255u8 {
            assert_eq!(char_to_byte(BYTE_TO_CHAR[b as usize]), Some(b));
        }
        let distinct: std::collections::HashSet<char> = BYTE_TO_CHAR.iter().copied().collect();
        assert_eq!(distinct.len(), 256);
        assert_eq!((char_to_byte(' '), char_to_byte('中'), char_to_byte('\u{144}')), (None, None, None));
    }
}
