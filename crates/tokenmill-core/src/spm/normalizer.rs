//! sentencepiece's normalizer: user-defined symbols kept whole, the precompiled charsmap, the
//! whitespace options (`remove_extra_whitespaces`, `add_dummy_prefix`,
//! `treat_whitespace_as_suffix`, `escape_whitespaces`), with an alignment back to the input.
//!
//! The text is cut into units, left to right: the longest user-defined symbol at the position
//! (kept as is), else the longest charsmap rule (its replacement), else one character. A unit
//! is then written with its spaces escaped to U+2581, minus its leading spaces when the text
//! written so far ends with a space (`remove_extra_whitespaces`), which also drops leading and
//! trailing spaces. Each written byte is aligned to the input offset of its unit's start, as
//! sentencepiece's `norm_to_orig`: the dummy prefix maps to the first kept unit (after the
//! removed leading spaces), the final entry to the input's end or to where the removed trailing
//! whitespace starts.
//!
//! Checked in sentencepiece's sources (normalizer.cc, sentencepiece_processor.cc): at encode
//! time only these four switches, the charsmap, the USER_DEFINED pieces and the trainer's
//! `treat_whitespace_as_suffix` change normalization; `split_digits`, `split_by_*` and
//! `normalization_rule_tsv` act in training or segmentation, not here.
//!
//! Decisions:
//! - A user-defined symbol containing NUL matches only up to the NUL (sentencepiece builds its
//!   matcher from C strings).
//! - A charsmap rule ending inside a character leaves the next unit starting on a continuation
//!   byte, which becomes U+FFFD consuming one byte (sentencepiece's malformed-UTF-8 rule), so
//!   the output stays valid UTF-8 whatever the charsmap.
//! - Speed: ASCII bytes that no rule or symbol can start (when followed by ASCII) skip the
//!   lookups, printable ones 8 at a time, and so do 2- and 3-byte characters that no rule or
//!   symbol starts with (a 64k-bit table built at load: most French and CJK text, where the
//!   lookups were a fifth of the encode time); nothing is allocated per character. Measured
//!   (release, nmt_nfkc, shared 2-core machine): English ~550 MB/s (~370 MB/s with
//!   alignment), Japanese ~280 MB/s (~200 MB/s before the character table).
//! - Alignment offsets are `u32`: callers split text above 4 GiB.
//!
//! Not here: segmentation (`unigram`, `bpe`), the denormalizer (decode side), HF's
//! `Precompiled` normalizer (it reuses `charsmap` with its own rules).

use aho_corasick::{AhoCorasick, Anchored, Input, MatchKind, StartKind};

use super::charsmap::Charsmap;
use super::proto::{NormalizerSpec, TrainerSpec};
use crate::error::CoreError;

/// U+2581 LOWER ONE EIGHTH BLOCK, the escaped space.
const SPACE: &[u8] = "\u{2581}".as_bytes();
/// U+FFFD, written for a unit starting on a continuation byte.
const REPLACEMENT: &[u8] = "\u{fffd}".as_bytes();

/// An immutable normalizer built from a model's specs.
#[derive(Debug, Clone)]
pub struct Normalizer {
    charsmap: Option<Charsmap>,
    /// Anchored leftmost-longest matcher of the user-defined symbols.
    user: Option<AhoCorasick>,
    /// Bytes a user-defined symbol starts with.
    user_first: [bool; 256],
    /// ASCII bytes that form a unit of their own, unchanged, when followed by ASCII or the end.
    plain: [bool; 128],
    /// `plain` without the space, indexed by any byte (false from 0x80).
    plain_nonspace: [bool; 256],
    /// Every byte 0x21..=0x7E is plain: enables the 8-bytes-at-a-time path.
    printable_plain: bool,
    /// Bit `cp` set when the 2- or 3-byte character U+`cp` is a unit of its own, unchanged,
    /// whatever follows (no user symbol or charsmap rule starts with it).
    plain_bmp: Box<[u64]>,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    escape_whitespaces: bool,
    treat_whitespace_as_suffix: bool,
}

/// How many leading bytes of `chunk` are in 0x21..=0x7E (printable ASCII, no space).
#[inline(always)]
fn printable_prefix(chunk: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0x80; 8]));
    // Flags bytes < 0x21, bytes == 0x7F and bytes >= 0x80. The subtraction tricks may also
    // flag bytes above a flagged one (borrows), never below: the lowest flag is exact.
    let below = w.wrapping_sub(ONES * 0x21) & !w & HIGH;
    let x = w ^ (ONES * 0x7f);
    let del = x.wrapping_sub(ONES) & !x & HIGH;
    let bad = below | del | (w & HIGH);
    (bad.trailing_zeros() / 8) as usize
}

impl Normalizer {
    /// `user_defined`: the model's USER_DEFINED pieces (matched longest-first, never changed).
    pub fn new(spec: &NormalizerSpec, trainer: &TrainerSpec, user_defined: &[&str]) -> Result<Self, CoreError> {
        let charsmap =
            if spec.precompiled_charsmap.is_empty() { None } else { Some(Charsmap::new(&spec.precompiled_charsmap)?) };
        let mut user_first = [false; 256];
        let mut symbols: Vec<&[u8]> = Vec::with_capacity(user_defined.len());
        for s in user_defined {
            let b = s.as_bytes();
            let b = &b[..memchr::memchr(0, b).unwrap_or(b.len())];
            if let Some(&first) = b.first() {
                user_first[first as usize] = true;
                symbols.push(b);
            }
        }
        let user = if symbols.is_empty() {
            None
        } else {
            let ac = AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .start_kind(StartKind::Anchored)
                .build(&symbols)
                .map_err(|e| {
                    CoreError::Vocab(format!(
                        "the {} USER_DEFINED pieces cannot be matched ({e}): use fewer or shorter user-defined symbols",
                        symbols.len()
                    ))
                })?;
            Some(ac)
        };
        let mut plain = [false; 128];
        for b in 0..128u8 {
            plain[b as usize] = !user_first[b as usize] && charsmap.as_ref().is_none_or(|c| c.plain_ascii(b));
        }
        // 64k characters walked once at load (well under a millisecond).
        let mut plain_bmp = vec![0u64; 0x1_0000 / 64].into_boxed_slice();
        let mut buf = [0u8; 4];
        for c in (0x80..0x1_0000).filter_map(char::from_u32) {
            let bytes = c.encode_utf8(&mut buf).as_bytes();
            if !user_first[bytes[0] as usize] && charsmap.as_ref().is_none_or(|m| m.plain_char(bytes)) {
                plain_bmp[c as usize / 64] |= 1 << (c as usize % 64);
            }
        }
        let mut plain_nonspace = [false; 256];
        plain_nonspace[..128].copy_from_slice(&plain);
        plain_nonspace[b' ' as usize] = false;
        Ok(Self {
            charsmap,
            plain_nonspace,
            printable_plain: (0x21..=0x7e).all(|b| plain[b]),
            plain_bmp,
            user,
            user_first,
            plain,
            add_dummy_prefix: spec.add_dummy_prefix,
            remove_extra_whitespaces: spec.remove_extra_whitespaces,
            escape_whitespaces: spec.escape_whitespaces,
            treat_whitespace_as_suffix: trainer.treat_whitespace_as_suffix,
        })
    }

    /// The end of the run of plain 2- and 3-byte characters from `pos` (each followed by at
    /// least two more bytes, and marked in `plain_bmp`: copied unchanged), or `pos`.
    #[inline(always)]
    fn plain_multibyte_end(&self, data: &[u8], pos: usize) -> usize {
        let mut p = pos;
        while let Some(&[b, c1, c2]) = data.get(p..p + 3) {
            if !(0xc2..0xf0).contains(&b) {
                break;
            }
            let cp = if b < 0xe0 {
                (b as usize & 0x1f) << 6 | (c1 as usize & 0x3f)
            } else {
                (b as usize & 0x0f) << 12 | (c1 as usize & 0x3f) << 6 | (c2 as usize & 0x3f)
            };
            if self.plain_bmp[cp / 64] >> (cp % 64) & 1 == 0 {
                break;
            }
            p += 2 + (b >= 0xe0) as usize;
        }
        p
    }

    /// Writes the 16 bytes at `data[pos..]` (or the 1-16 bytes left) if they are all
    /// printable ASCII or spaces (and an ASCII byte, if any, follows them): what the loop of
    /// `normalize` would write for them, a space escaped (or dropped after a space, with
    /// `remove_extra_whitespaces`), the rest copied. Returns how many bytes it took, 0 (having
    /// written nothing) for any other block. The caller checks that printable ASCII and the
    /// space are plain, and that no alignment is asked for.
    ///
    /// Why: English text went through the 8-byte path word by word and the space path byte
    /// by byte, about 20 instructions a byte (a sixth of a Unigram encode); here a block costs
    /// a few vector compares and one copy per word.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn ascii_block(&self, data: &[u8], pos: usize, out: &mut Vec<u8>, prev_space: &mut bool) -> usize {
        use std::arch::x86_64::*;
        // A block of 16, or the text's last 1-16 bytes (most lines end in one: a short tail
        // went byte by byte, a third of a line's bytes).
        let n = match data.len() - pos {
            0 => return 0,
            rest @ 1..=16 => rest,
            _ if data[pos + 16] >= 0x80 => return 0,
            _ => 16,
        };
        // The block, then 16 bytes of room: every copy below reads 16 bytes from inside it.
        let mut buf = [0u8; 32];
        buf[..n].copy_from_slice(&data[pos..pos + n]);
        let valid = (1u32 << n) - 1;
        // SAFETY: SSE2 is part of x86_64; the load reads 16 of `buf`'s 32 bytes.
        let (printable, spaces) = unsafe {
            let v = _mm_loadu_si128(buf.as_ptr().cast());
            // Signed compares: bytes from 0x80 are negative, so they fail the first one.
            let in_range =
                _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x1f)), _mm_cmplt_epi8(v, _mm_set1_epi8(0x7f)));
            (_mm_movemask_epi8(in_range) as u32, _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x20))) as u32)
        };
        // (The zeros after a short tail are neither printable nor spaces.)
        if printable & valid != valid {
            return 0;
        }
        // A space is dropped when the byte before it (or, for the first, the text written so
        // far) ends in a space.
        let dropped = if self.remove_extra_whitespaces { spaces & (spaces << 1 | *prev_space as u32) } else { 0 };
        let (ws, ws_len) =
            if self.escape_whitespaces { (u32::from_le_bytes([0xe2, 0x96, 0x81, 0]), 3) } else { (0x20, 1) };
        // At most 16 bytes of text and 16 escaped spaces (3 bytes, written as 4), and each copy
        // writes 16 bytes: 64 bytes of room cover every write.
        out.reserve(64);
        // SAFETY: every write lands within the 64 bytes reserved after `out.len()`, and every
        // read within `buf` (`i <= 16`); `set_len` covers only bytes written.
        unsafe {
            let start = out.as_mut_ptr().add(out.len());
            let (mut dst, mut i, mut m) = (start, 0usize, spaces);
            while m != 0 {
                let j = m.trailing_zeros() as usize;
                std::ptr::copy_nonoverlapping(buf.as_ptr().add(i), dst, 16);
                dst = dst.add(j - i);
                if dropped >> j & 1 == 0 {
                    dst.cast::<u32>().write_unaligned(ws);
                    dst = dst.add(ws_len);
                }
                i = j + 1;
                m &= m - 1;
            }
            std::ptr::copy_nonoverlapping(buf.as_ptr().add(i), dst, 16);
            dst = dst.add(n - i);
            out.set_len(out.len() + dst.offset_from(start) as usize);
        }
        *prev_space = self.remove_extra_whitespaces && spaces >> (n - 1) & 1 == 1;
        n
    }

    /// The next unit at `pos < data.len()`: (its normalized bytes, input bytes consumed).
    #[inline]
    fn unit<'a>(&'a self, data: &'a [u8], pos: usize) -> (&'a [u8], usize) {
        let b = data[pos];
        if b < 0x80 && self.plain[b as usize] && data.get(pos + 1).is_none_or(|&c| c < 0x80) {
            return (&data[pos..pos + 1], 1);
        }
        if self.user_first[b as usize] {
            if let Some(m) =
                self.user.as_ref().and_then(|ac| ac.find(Input::new(data).range(pos..).anchored(Anchored::Yes)))
            {
                return (&data[pos..m.end()], m.end() - pos);
            }
        }
        if let Some((n, rep)) = self.charsmap.as_ref().and_then(|c| c.longest(data, pos)) {
            return (rep, n);
        }
        let n = match b {
            0x00..=0x7f => 1,
            0x80..=0xbf => return (REPLACEMENT, 1),
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            _ => 4,
        };
        (&data[pos..(pos + n).min(data.len())], n.min(data.len() - pos))
    }

    /// Appends the normalized UTF-8 of `input` to `out`. With `align`, also appends for each
    /// byte written the byte offset in `input` it comes from (the start of the input unit that
    /// produced it, as sentencepiece's `norm_to_orig`; the dummy prefix maps to the first unit
    /// kept), plus one final entry: `input.len()`, or where the removed trailing whitespace
    /// starts (sentencepiece's rule). An input that normalizes to nothing gets the final entry
    /// only (sentencepiece leaves its alignment empty then).
    pub fn normalize(&self, input: &str, out: &mut Vec<u8>, mut align: Option<&mut Vec<u32>>) {
        let data = input.as_bytes();
        let mut pos = 0;
        if self.remove_extra_whitespaces {
            while pos < data.len() {
                let (piece, n) = self.unit(data, pos);
                if piece != b" " {
                    break;
                }
                pos += n;
            }
        }
        if pos >= data.len() {
            if let Some(a) = align {
                a.push(pos as u32);
            }
            return;
        }
        let out_start = out.len();
        let align_start = align.as_ref().map_or(0, |a| a.len());
        out.reserve(data.len() - pos + 8);
        if let Some(a) = align.as_deref_mut() {
            a.reserve(data.len() - pos + 9);
        }
        let ws: &[u8] = if self.escape_whitespaces { SPACE } else { b" " };
        let put_ws = |out: &mut Vec<u8>, align: &mut Option<&mut Vec<u32>>, at: usize| {
            out.extend_from_slice(ws);
            if let Some(a) = align.as_deref_mut() {
                a.extend(std::iter::repeat_n(at as u32, ws.len()));
            }
        };
        if self.add_dummy_prefix && !self.treat_whitespace_as_suffix {
            put_ws(out, &mut align, pos);
        }
        let mut prev_space = self.remove_extra_whitespaces;
        let blocks = self.printable_plain && self.plain[b' ' as usize] && align.is_none();
        while pos < data.len() {
            #[cfg(target_arch = "x86_64")]
            if blocks {
                let n = self.ascii_block(data, pos, out, &mut prev_space);
                if n > 0 {
                    pos += n;
                    continue;
                }
            }
            // Up to 8 plain printable ASCII bytes at once (SWAR), copied with a fixed-size
            // write then cut: a memcpy call per short word cost more than the whole scan.
            if self.printable_plain && pos + 8 <= data.len() {
                let mut count = printable_prefix(&data[pos..pos + 8]);
                // The last byte of the run is its own unit only if an ASCII byte follows it.
                if data.get(pos + count).is_some_and(|&c| c >= 0x80) {
                    count = count.saturating_sub(1);
                }
                if count > 0 {
                    let len = out.len();
                    out.extend_from_slice(&data[pos..pos + 8]);
                    out.truncate(len + count);
                    if let Some(a) = align.as_deref_mut() {
                        let (at, p) = (a.len(), pos as u32);
                        a.extend_from_slice(&std::array::from_fn::<u32, 8, _>(|i| p.wrapping_add(i as u32)));
                        a.truncate(at + count);
                    }
                    prev_space = false;
                    pos += count;
                    continue;
                }
            }
            // Plain ASCII bytes and spaces: the general path below without the lookups. Bytes
            // are pushed one by one: a memcpy call per short word cost more than the loop.
            let b = data[pos];
            let next_ascii = data.get(pos + 1).is_none_or(|&c| c < 0x80);
            if next_ascii && self.plain_nonspace[b as usize] {
                out.push(b);
                if let Some(a) = align.as_deref_mut() {
                    a.push(pos as u32);
                }
                prev_space = false;
                pos += 1;
                continue;
            }
            if next_ascii && b == b' ' && self.plain[b' ' as usize] {
                if !prev_space {
                    if self.escape_whitespaces {
                        out.extend_from_slice(SPACE);
                    } else {
                        out.push(b' ');
                    }
                    if let Some(a) = align.as_deref_mut() {
                        a.extend(std::iter::repeat_n(pos as u32, ws.len()));
                    }
                }
                prev_space = self.remove_extra_whitespaces;
                pos += 1;
                continue;
            }
            // A run of plain 2- and 3-byte characters (most non-ASCII text): copied without the
            // lookups, as one slice (CJK text) or, for one character (an accented letter in
            // Latin script), as three bytes written then cut: a memcpy call costs more.
            if (0xc2..0xf0).contains(&b) {
                let end = self.plain_multibyte_end(data, pos);
                if end > pos {
                    if end - pos <= 3 {
                        let len = out.len();
                        out.extend_from_slice(&data[pos..pos + 3]);
                        out.truncate(len + end - pos);
                    } else {
                        out.extend_from_slice(&data[pos..end]);
                    }
                    if let Some(a) = align.as_deref_mut() {
                        let mut q = pos;
                        while q < end {
                            let n = 2 + (data[q] >= 0xe0) as usize;
                            a.extend(std::iter::repeat_n(q as u32, n));
                            q += n;
                        }
                    }
                    prev_space = false;
                    pos = end;
                    continue;
                }
            }
            let (mut piece, n) = self.unit(data, pos);
            if prev_space {
                while let [b' ', rest @ ..] = piece {
                    piece = rest;
                }
            }
            if let Some(&last) = piece.last() {
                // Byte by byte: pieces are a few bytes, where a memcpy call costs more.
                let len = out.len();
                for &c in piece {
                    if c == b' ' && self.escape_whitespaces {
                        out.extend_from_slice(SPACE);
                    } else {
                        out.push(c);
                    }
                }
                if let Some(a) = align.as_deref_mut() {
                    a.extend(std::iter::repeat_n(pos as u32, out.len() - len));
                }
                prev_space = last == b' ';
            }
            pos += n;
            if !self.remove_extra_whitespaces {
                prev_space = false;
            }
        }
        let mut consumed = pos;
        if self.remove_extra_whitespaces {
            while out[out_start..].ends_with(ws) {
                let len = out.len() - ws.len();
                out.truncate(len);
                if let Some(a) = align.as_deref_mut() {
                    let at = align_start + (len - out_start);
                    consumed = a.get(at).map_or(consumed, |&c| c as usize);
                    a.truncate(at);
                }
            }
        }
        if self.add_dummy_prefix && self.treat_whitespace_as_suffix {
            put_ws(out, &mut align, consumed);
        }
        if let Some(a) = align {
            a.push(consumed as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spm::proto::tests::{shared_model, SHARED};
    use crate::spm::ModelProto;

    const USER: [&str; 13] =
        ["<mask>", "ab", "abc", "a b", "ＡＢ", "x\u{301}", "\u{2581}the", "  ", "\t", "th", "@@", "日本", "ﬁ"];

    fn model(i: usize) -> ModelProto {
        ModelProto::parse(&shared_model(SHARED[i])).unwrap()
    }

    fn run(norm: &Normalizer, text: &str) -> (String, Vec<u32>) {
        let (mut out, mut align) = (Vec::new(), Vec::new());
        norm.normalize(text, &mut out, Some(&mut align));
        let mut plain = Vec::new();
        norm.normalize(text, &mut plain, None);
        assert_eq!(plain, out, "alignment changes the text");
        assert_eq!(align.len(), out.len() + 1);
        (String::from_utf8(out).unwrap(), align)
    }

    // Expected values: sentencepiece 0.2.3, `normalize(text.encode(), with_offsets=True)`.
    #[test]
    fn nmt_nfkc_with_alignment() {
        let m = model(0);
        let norm = Normalizer::new(&m.normalizer_spec, &m.trainer_spec, &[]).unwrap();
        assert_eq!(
            run(&norm, "  Héllo  wörld "),
            ("▁Héllo▁wörld".into(), vec![2, 2, 2, 2, 3, 3, 5, 6, 7, 8, 8, 8, 10, 11, 11, 13, 14, 15, 16])
        );
        assert_eq!(
            run(&norm, "ＡＢＣ\u{3000}１２３ "),
            ("▁ABC▁123".into(), vec![0, 0, 0, 0, 3, 6, 9, 9, 9, 12, 15, 18, 21])
        );
        assert_eq!(run(&norm, "\t x\u{3000}\u{3000}y "), ("▁x▁y".into(), vec![2, 2, 2, 2, 3, 3, 3, 9, 10]));
        // Nothing left: sentencepiece gives no alignment; we give the one final entry.
        assert_eq!(run(&norm, "   "), (String::new(), vec![3]));
        assert_eq!(run(&norm, ""), (String::new(), vec![0]));
    }

    #[test]
    fn identity_without_whitespace_removal() {
        let m = model(2); // Mistral: no charsmap, remove_extra_whitespaces off.
        let norm = Normalizer::new(&m.normalizer_spec, &m.trainer_spec, &[]).unwrap();
        let (text, align) = run(&norm, "\t x\u{3000}\u{3000}y ");
        assert_eq!(text, "▁\t▁x\u{3000}\u{3000}y▁");
        assert_eq!(align, vec![0, 0, 0, 0, 1, 1, 1, 2, 3, 3, 3, 6, 6, 6, 9, 10, 10, 10, 11]);
        assert_eq!(run(&norm, "   ").0, "▁▁▁▁");
    }

    #[test]
    fn switches_and_user_symbols() {
        let m = model(0);
        let (n, t) = (&m.normalizer_spec, &m.trainer_spec);
        let suffix = TrainerSpec { treat_whitespace_as_suffix: true, ..t.clone() };
        let norm = Normalizer::new(n, &suffix, &USER[..0]).unwrap();
        assert_eq!(run(&norm, " a  b "), ("a▁b▁".into(), vec![1, 2, 2, 2, 4, 5, 5, 5, 5]));
        let no_escape = NormalizerSpec { escape_whitespaces: false, ..n.clone() };
        let norm = Normalizer::new(&no_escape, t, &[]).unwrap();
        assert_eq!(run(&norm, " a  b "), (" a b".into(), vec![1, 1, 2, 4, 5]));
        let keep = NormalizerSpec { remove_extra_whitespaces: false, ..n.clone() };
        let norm = Normalizer::new(&keep, t, &USER).unwrap();
        assert_eq!(run(&norm, "x<mask>abc ＡＢ  th").0, "▁x<mask>abc▁ＡＢ▁▁th");
        let norm = Normalizer::new(n, t, &USER).unwrap();
        assert_eq!(run(&norm, " a  b "), ("▁a▁▁b".into(), vec![1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 4, 5]));
        assert_eq!(
            run(&norm, "x<mask>abc ＡＢ  th"),
            (
                "▁x<mask>abc▁ＡＢ▁▁th".into(),
                vec![
                    0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 7, 7, 7, 10, 10, 10, 11, 11, 11, 11, 11, 11, 17, 17, 17, 17, 17, 17,
                    19, 19, 21
                ]
            )
        );
    }

    #[test]
    fn appends_and_no_charsmap_defaults() {
        let norm = Normalizer::new(&NormalizerSpec::default(), &TrainerSpec::default(), &[]).unwrap();
        let (mut out, mut align) = (b"xy".to_vec(), vec![7, 7]);
        norm.normalize("  a   b ", &mut out, Some(&mut align));
        assert_eq!(out, "xy▁a▁b".as_bytes());
        assert_eq!(align, vec![7, 7, 2, 2, 2, 2, 3, 3, 3, 6, 7]);
        // A user symbol with NUL matches up to the NUL, as sentencepiece's C-string matcher.
        let norm = Normalizer::new(&NormalizerSpec::default(), &TrainerSpec::default(), &["q\u{0}r", ""]).unwrap();
        assert_eq!(run(&norm, "qz").0, "▁qz");
    }

    #[test]
    fn ascii_blocks_write_what_the_byte_loop_writes() {
        // `run` checks that normalizing without alignment (16-byte ASCII blocks) writes what the
        // aligned path (byte by byte) does. Texts of runs of letters, spaces, punctuation, a
        // tab, a DEL and non-ASCII chars at every offset around block edges, under every
        // whitespace switch, with the charsmap and without, with user symbols and without.
        let pieces = ["a", "word", " ", "  ", ".", "~", "\t", "\u{7f}", "é", "日", "x\u{301}", "e\u{301}", "th", "\n"];
        let mut rng = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: usize| (rng() % n as u64) as usize;
        let m = model(1);
        let (n, t) = (&m.normalizer_spec, &m.trainer_spec);
        for mask in 0..16u32 {
            let spec = NormalizerSpec {
                remove_extra_whitespaces: mask & 1 != 0,
                escape_whitespaces: mask & 2 != 0,
                add_dummy_prefix: mask & 4 != 0,
                precompiled_charsmap: if mask & 8 != 0 { n.precompiled_charsmap.clone() } else { Vec::new() },
                ..n.clone()
            };
            for user in [&USER[..0], &USER[..]] {
                let norm = Normalizer::new(&spec, t, user).unwrap();
                for _ in 0..300 {
                    let mut text = String::new();
                    for _ in 0..next(40) {
                        // Mostly the plain ASCII that the blocks take.
                        let p = if next(4) == 0 { pieces[next(pieces.len())] } else { pieces[next(5)] };
                        text.push_str(p);
                    }
                    run(&norm, &text);
                }
            }
        }
    }

    #[test]
    fn long_and_odd_inputs() {
        let m = model(1);
        let norm = Normalizer::new(&m.normalizer_spec, &m.trainer_spec, &USER).unwrap();
        let long = "x".repeat(100_000) + &" ".repeat(100_000) + &"\u{301}".repeat(1000);
        let (text, align) = run(&norm, &long);
        assert!(text.starts_with("▁xxx"));
        assert_eq!(*align.last().unwrap() as usize, long.len());
        for t in ["\u{0}", "\u{301}a", "\u{feff}", "\u{10ffff}", "ab\u{301}", "\u{3000}"] {
            run(&norm, t);
        }
    }
}
