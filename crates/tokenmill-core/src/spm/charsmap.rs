//! sentencepiece's precompiled charsmap: a darts-clone double-array trie over UTF-8 byte
//! strings plus a blob of NUL-terminated replacements (`nmt_nfkc`, `nfkc_cf`, ...). Shared by
//! the `.model` normalizer and Hugging Face's `Precompiled` normalizer.
//!
//! Layout of the blob: a 4-byte little-endian trie size in bytes, the trie's 32-bit
//! little-endian units, then the replacement strings. A darts-clone unit packs: bit 8 "has a
//! leaf", bits 10.. an offset (shifted left by 8 more when bit 9 is set), the low byte plus bit
//! 31 a label; a leaf unit's low 31 bits are its value, here the start of a replacement.
//!
//! Decisions:
//! - Lookups mirror darts-clone's `commonPrefixSearch` as sentencepiece calls it, including its
//!   cap of 32 recorded matches (the longest recorded match wins), so corrupted or exotic tries
//!   answer as sentencepiece does wherever sentencepiece itself reads in bounds.
//! - Safety on any blob: every unit index is bounds-checked in `longest` (one compare per byte,
//!   cheaper than proving a trie sound at load) and a replacement offset past the blob gives an
//!   empty replacement; a replacement without its NUL runs to the blob's end.
//! - `plain_ascii` is precomputed at load: an ASCII byte no rule can match when the next byte is
//!   ASCII too (or the text ends). The normalizer copies runs of such bytes without lookups.
//!
//! Not here: the normalizer's whitespace handling and user-defined symbols (`spm::normalizer`),
//! building a charsmap from rules.

use crate::error::CoreError;

/// darts-clone keeps at most this many prefix matches per lookup in sentencepiece's normalizer
/// (`Normalizer::kMaxTrieResultsSize`).
const MAX_RESULTS: usize = 32;

/// A parsed charsmap (validated at load: no lookup can read out of bounds).
#[derive(Debug, Clone)]
pub struct Charsmap {
    units: Vec<u32>,
    /// The replacement strings, NUL-terminated, addressed by leaf values.
    normalized: Vec<u8>,
    /// The trie node of the root (its offset), computed once.
    root: u32,
    /// `plain_ascii[b]`: no rule matches at a byte `b` followed by an ASCII byte or the end.
    plain_ascii: [bool; 128],
}

#[inline(always)]
fn offset(unit: u32) -> u32 {
    (unit >> 10) << ((unit & (1 << 9)) >> 6)
}

#[inline(always)]
fn has_leaf(unit: u32) -> bool {
    unit & (1 << 8) != 0
}

#[inline(always)]
fn label(unit: u32) -> u32 {
    unit & 0x8000_00ff
}

impl Charsmap {
    /// Parses the blob (4-byte little-endian trie size, the trie units, the replacements).
    pub fn new(blob: &[u8]) -> Result<Self, CoreError> {
        let bad = |why: String| {
            CoreError::Vocab(format!(
                "normalizer_spec.precompiled_charsmap: {why}: the blob is corrupted (rebuild the model or use a charsmap from sentencepiece)"
            ))
        };
        if blob.len() < 4 {
            return Err(bad(format!("{} bytes, shorter than its 4-byte header", blob.len())));
        }
        let size = u32::from_le_bytes([blob[0], blob[1], blob[2], blob[3]]) as usize;
        if size > blob.len() - 4 {
            return Err(bad(format!("trie size {size} does not fit the {} bytes after the header", blob.len() - 4)));
        }
        // sentencepiece takes size / 4 units and starts the replacements right after `size` bytes.
        let units: Vec<u32> =
            blob[4..4 + size / 4 * 4].chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        if units.is_empty() {
            return Err(bad(format!("trie size {size} holds no unit")));
        }
        let root = offset(units[0]);
        let mut map = Self { units, normalized: blob[4 + size..].to_vec(), root, plain_ascii: [false; 128] };
        for b in 0..128u8 {
            map.plain_ascii[b as usize] = map.is_plain(b);
        }
        Ok(map)
    }

    /// True when no rule is `b` alone and no rule starts with `b` then an ASCII byte.
    fn is_plain(&self, b: u8) -> bool {
        let Some(node) = self.child(self.root, b) else { return true };
        let unit = self.units[node as usize];
        if has_leaf(unit) {
            return false;
        }
        let base = node ^ offset(unit);
        (0..128u8).all(|c| self.child(base, c).is_none())
    }

    /// True when no rule can match at a character whose UTF-8 is `c`, whatever follows: no
    /// rule is a prefix of `c` and no rule starts with it. (False also for a rule whose leaf
    /// `longest` could not read: callers then take the exact, slow path.)
    pub fn plain_char(&self, c: &[u8]) -> bool {
        let mut base = self.root;
        for &b in c {
            let Some(node) = self.child(base, b) else { return true };
            let unit = self.units[node as usize];
            if has_leaf(unit) {
                return false;
            }
            base = node ^ offset(unit);
        }
        false
    }

    /// The unit index reached from the node whose child base is `base` by byte `b`, if that
    /// transition exists.
    #[inline(always)]
    fn child(&self, base: u32, b: u8) -> Option<u32> {
        let node = base ^ u32::from(b);
        match self.units.get(node as usize) {
            Some(&u) if label(u) == u32::from(b) => Some(node),
            _ => None,
        }
    }

    /// Whether an ASCII byte `b` followed by an ASCII byte (or nothing) matches no rule.
    #[inline(always)]
    pub fn plain_ascii(&self, b: u8) -> bool {
        b < 0x80 && self.plain_ascii[b as usize]
    }

    /// The longest rule matching `data[pos..]`: (bytes consumed, replacement bytes).
    #[inline]
    pub fn longest(&self, data: &[u8], pos: usize) -> Option<(usize, &[u8])> {
        let units = &self.units[..];
        let mut base = self.root;
        let mut found = 0usize;
        let mut best: Option<(usize, u32)> = None;
        for (i, &b) in data.get(pos..)?.iter().enumerate() {
            let node = base ^ u32::from(b);
            let Some(&unit) = units.get(node as usize) else { break };
            if label(unit) != u32::from(b) {
                break;
            }
            base = node ^ offset(unit);
            if has_leaf(unit) {
                if found < MAX_RESULTS {
                    let Some(&leaf) = units.get(base as usize) else { break };
                    best = Some((i + 1, leaf & 0x7fff_ffff));
                }
                found += 1;
            }
        }
        let (len, value) = best?;
        Some((len, self.replacement(value)))
    }

    /// The NUL-terminated replacement at `value` (empty past the end, cut at the blob's end).
    #[inline]
    fn replacement(&self, value: u32) -> &[u8] {
        let rest = self.normalized.get(value as usize..).unwrap_or(&[]);
        match memchr::memchr(0, rest) {
            Some(end) => &rest[..end],
            None => rest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spm::proto::tests::{shared_model, SHARED};
    use crate::spm::ModelProto;

    fn nmt_nfkc() -> Charsmap {
        let m = ModelProto::parse(&shared_model(SHARED[0])).unwrap();
        Charsmap::new(&m.normalizer_spec.precompiled_charsmap).unwrap()
    }

    fn rule(map: &Charsmap, s: &str) -> Option<(usize, String)> {
        map.longest(s.as_bytes(), 0).map(|(n, r)| (n, String::from_utf8(r.to_vec()).unwrap()))
    }

    #[test]
    fn known_rules_of_nmt_nfkc() {
        let map = nmt_nfkc();
        assert_eq!(rule(&map, "Ａx"), Some((3, "A".into())));
        assert_eq!(rule(&map, "①"), Some((3, "1".into())));
        assert_eq!(rule(&map, "ﬁ"), Some((3, "fi".into())));
        assert_eq!(rule(&map, "㍻"), Some((3, "平成".into())));
        // Composition: the longest rule covers the combining mark.
        assert_eq!(rule(&map, "e\u{301}!"), Some((3, "\u{e9}".into())));
        assert_eq!(rule(&map, "a"), None);
        assert_eq!(rule(&map, "abc"), None);
        assert_eq!(rule(&map, "日"), None);
        assert_eq!(map.longest(b"xx", 2), None);
        assert_eq!(map.longest(b"xx", 9), None);
        // From a position.
        assert_eq!(map.longest("xＢ".as_bytes(), 1).map(|(n, r)| (n, r.to_vec())), Some((3, b"B".to_vec())));
    }

    #[test]
    fn plain_ascii_is_exact() {
        let map = nmt_nfkc();
        let mut plain = 0;
        for b in 0..128u8 {
            if map.plain_ascii(b) {
                plain += 1;
                assert_eq!(map.longest(&[b], 0), None, "{b:#x}");
                for c in 0..128u8 {
                    assert_eq!(map.longest(&[b, c], 0), None, "{b:#x} {c:#x}");
                }
            }
        }
        // Printable ASCII is plain in nmt_nfkc (controls are not).
        assert!((0x20..0x7f).all(|b| map.plain_ascii(b)), "{plain}");
        assert!(!map.plain_ascii(0x80));
    }

    #[test]
    fn plain_char_is_exact() {
        let map = nmt_nfkc();
        for cp in (0x80..0x3_0000u32).step_by(7) {
            let Some(c) = char::from_u32(cp) else { continue };
            let mut text = String::from(c);
            if map.plain_char(text.as_bytes()) {
                assert_eq!(map.longest(text.as_bytes(), 0), None, "{cp:#x}");
                text.push('\u{301}');
                assert_eq!(map.longest(text.as_bytes(), 0), None, "{cp:#x}");
            }
        }
        assert!(!map.plain_char("Ａ".as_bytes()));
        assert!(!map.plain_char("e".as_bytes()), "e + U+0301 composes");
        assert!(map.plain_char("日".as_bytes()));
    }

    #[test]
    fn bad_blobs_are_errors() {
        for blob in [
            &b""[..],
            b"\x04\x00\x00",
            b"\x08\x00\x00\x00\x00\x00\x00\x00\x00",
            b"\x00\x00\x00\x00abc",
            b"\x03\x00\x00\x00abc",
        ] {
            match Charsmap::new(blob) {
                Err(CoreError::Vocab(m)) => assert!(m.starts_with("normalizer_spec.precompiled_charsmap: "), "{m}"),
                other => panic!("{blob:?}: {other:?}"),
            }
        }
        // A trie size that is not a multiple of 4: sentencepiece floors the unit count.
        assert!(Charsmap::new(b"\x05\x00\x00\x00\x00\x00\x00\x00\x00x\x00").is_ok());
    }

    #[test]
    fn corrupted_tries_never_read_out_of_bounds() {
        let mut next = crate::testing::xorshift(0x1234_5678_9abc_def1);
        let text = "Ａ① ﬁ e\u{301} 日本 abc \u{0} \u{10ffff}".as_bytes();
        for round in 0..300 {
            let n = 1 + (next() % 64) as usize;
            let mut blob = ((n * 4) as u32).to_le_bytes().to_vec();
            for _ in 0..n {
                // Units with small offsets and random flags, so walks go somewhere.
                let u = (next() as u32) & if round % 2 == 0 { 0x8000_3fff } else { u32::MAX };
                blob.extend_from_slice(&u.to_le_bytes());
            }
            blob.extend((0..(next() % 16)).map(|_| next() as u8));
            let map = Charsmap::new(&blob).unwrap();
            for pos in 0..=text.len() {
                if let Some((len, _)) = map.longest(text, pos) {
                    assert!(len >= 1 && pos + len <= text.len());
                }
            }
        }
    }
}
