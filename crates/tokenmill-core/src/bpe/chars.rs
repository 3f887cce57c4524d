//! Which characters BPE may treat as already merged: the "safe" two- and three-byte
//! characters of a vocabulary.
//!
//! Why: in CJK text nearly every character is a token of its own, and merging starts from
//! bytes, so two of every three merges of a Chinese or Japanese piece only rebuild characters
//! (two table lookups each). Starting such a piece from characters instead removes those
//! merges. That is exact only when the character always forms before any merge across its
//! edges, which this module proves per character from the vocabulary:
//!
//! Let character `c` be a token, and `M` the highest rank of the merges BPE makes on `c`'s
//! bytes alone (ending with `[c]`). While `c` is not formed, some merge inside it is a
//! candidate with rank at most `M`. Call `c` safe when every token of these kinds ranks
//! above `M`: (a) something plus a proper prefix of `c`, or a proper suffix of `c` plus
//! something (a part that crosses an edge of `c` first appears as such a token); (b) `c`
//! plus something, or something plus `c`. Then, in any text:
//! - by (a), no merge across an edge of `c` can be the lowest candidate while `c` is not
//!   formed, so `c`'s bytes merge exactly as they do alone and `c` forms;
//! - every other merge made before `c` forms ranks at most `M` (it was chosen over a merge
//!   inside `c`), so it is also chosen when `c` exists from the start, where the only new
//!   candidates are those of (b), ranked above `M`; the merges inside `c` touch nothing else,
//!   so doing them first changes nothing.
//!
//! So the merges from the character-level start are those from bytes, minus the ones that
//! built `c`: the same tokens.
//!
//! What it does not do: four-byte characters (emoji and rare CJK; they keep the byte start),
//! and anything about text: callers decode and validate the UTF-8 themselves.

use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap;

use crate::types::Rank;
use crate::zeroed::Zeroed;

/// For one character that is a token: its rank, and the neighbouring bytes next to which it
/// is safe (bit `x` of `left`: the byte before it may be `x`; of `right`: the byte after).
#[derive(Clone, Debug)]
pub struct CharInfo {
    pub rank: Rank,
    left: [u64; 4],
    right: [u64; 4],
}

impl CharInfo {
    /// True when the character is safe between bytes `prev` and `next` (`None`: the edge of
    /// the piece, where nothing can cross).
    #[inline]
    pub fn safe(&self, prev: Option<u8>, next: Option<u8>) -> bool {
        let bit = |set: &[u64; 4], b: u8| set[(b >> 6) as usize] >> (b & 63) & 1 == 1;
        prev.is_none_or(|x| bit(&self.left, x)) && next.is_none_or(|y| bit(&self.right, y))
    }
}

/// The safe characters of a vocabulary: `index[cp]` is a position in `infos` for code points
/// U+0080..U+FFFF that are tokens and safe next to at least one byte, else `u32::MAX`.
///
/// The conditions are checked per neighbouring byte, because the tokens that could cross an
/// edge of `c` in a text all contain the byte next to that edge: "something plus a prefix of
/// `c`" ends, before the prefix, with the byte before `c`. Indexing the lowest such rank by
/// that byte keeps characters usable wherever their actual neighbours allow it.
pub fn safe_chars<'a>(
    tokens: impl Iterator<Item = (&'a [u8], Rank)> + Clone,
    rank_of: impl Fn(&[u8]) -> Option<Rank>,
) -> (Vec<u32>, Vec<CharInfo>) {
    // For each key, the (neighbour byte, rank) of every token that has it: for the left edge,
    // keys are proper prefixes of characters (`X + P`, X ending in the byte) and whole
    // characters (`X + c`); for the right edge, proper suffixes (`S + Y`) and whole
    // characters (`c + Y`), Y starting with the byte. Lists, not 256-entry rows: most keys
    // meet few distinct bytes, and this runs at every load.
    let mut left: FxHashMap<u32, Vec<(u8, Rank)>> = FxHashMap::default();
    let mut right: FxHashMap<u32, Vec<(u8, Rank)>> = FxHashMap::default();
    for (t, r) in tokens.clone() {
        let n = t.len();
        for k in 1..n.min(4) {
            let (head, tail) = (&t[..k], &t[n - k..]);
            if is_proper_char_prefix(tail) || decode_one(tail).is_some() {
                left.entry(key(tail)).or_default().push((t[n - k - 1], r));
            }
            if (k <= 2 && head.iter().all(|&b| is_continuation(b))) || decode_one(head).is_some() {
                right.entry(key(head)).or_default().push((t[k], r));
            }
        }
    }
    let mut index = vec![u32::MAX; 0x10000];
    let mut infos = Vec::new();
    for (t, r) in tokens {
        let Some(cp) = decode_one(t) else { continue };
        // The merges of the character alone must end in this token (else it is unreachable).
        let Some(m) = merge_max(t, &rank_of).filter(|_| rank_of(t) == Some(r)) else { continue };
        // Left edge: X + (proper prefix or whole c); right edge: (proper suffix or whole c) + Y.
        let allowed = |map: &FxHashMap<u32, Vec<(u8, Rank)>>, keys: &mut dyn Iterator<Item = u32>| {
            let mut set = [u64::MAX; 4];
            for list in keys.filter_map(|k| map.get(&k)) {
                for &(b, rank) in list {
                    if rank <= m {
                        set[(b >> 6) as usize] &= !(1 << (b & 63));
                    }
                }
            }
            set
        };
        let l = allowed(&left, &mut (1..=t.len()).map(|k| key(&t[..k])));
        let rt = allowed(&right, &mut (0..t.len()).map(|k| key(&t[k..])));
        index[cp as usize] = infos.len() as u32;
        infos.push(CharInfo { rank: r, left: l, right: rt });
    }
    (index, infos)
}

/// A map key for 1 to 3 bytes (the length is part of it).
fn key(b: &[u8]) -> u32 {
    b.iter().fold(b.len() as u32, |k, &x| k << 8 | x as u32)
}

/// BPE on `bytes` alone (at most a few bytes): the highest rank merged, if the result is one
/// token.
fn merge_max(bytes: &[u8], rank_of: &impl Fn(&[u8]) -> Option<Rank>) -> Option<Rank> {
    // Part boundaries: at most 4 (three bytes), kept in a fixed array.
    let mut cuts = [0usize; 4];
    let mut len = bytes.len() + 1;
    for (i, c) in cuts.iter_mut().enumerate().take(len) {
        *c = i;
    }
    let mut max = 0;
    while len > 2 {
        let best = (0..len - 2).filter_map(|i| rank_of(&bytes[cuts[i]..cuts[i + 2]]).map(|r| (r, i))).min()?;
        max = max.max(best.0);
        cuts.copy_within(best.1 + 2..len, best.1 + 1);
        len -= 1;
    }
    Some(max)
}

#[inline]
pub fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// One or two bytes that begin a longer two- or three-byte character.
fn is_proper_char_prefix(p: &[u8]) -> bool {
    match p {
        [l] => (0xC2..=0xEF).contains(l),
        [l, c] => (0xE0..=0xEF).contains(l) && is_continuation(*c),
        _ => false,
    }
}

/// The code point if `b` is exactly one well-formed two- or three-byte character.
#[inline]
pub fn decode_one(b: &[u8]) -> Option<u32> {
    match *b {
        [l, c] if (0xC2..=0xDF).contains(&l) && is_continuation(c) => {
            Some(((l as u32 & 0x1F) << 6) | (c as u32 & 0x3F))
        }
        [l, c1, c2] if (0xE0..=0xEF).contains(&l) && is_continuation(c1) && is_continuation(c2) => {
            let cp = ((l as u32 & 0x0F) << 12) | ((c1 as u32 & 0x3F) << 6) | (c2 as u32 & 0x3F);
            // Overlong forms and surrogates are not characters.
            (cp >= 0x800 && !(0xD800..=0xDFFF).contains(&cp)).then_some(cp)
        }
        _ => None,
    }
}

/// Length of the well-formed two- or three-byte character at the start of `b`, with its code
/// point; `None` for ASCII, four-byte characters and malformed bytes.
#[inline]
pub fn char_at(b: &[u8]) -> Option<(usize, u32)> {
    let l = *b.first()?;
    let n = match l {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => return None,
    };
    let cp = decode_one(b.get(..n)?)?;
    Some((n, cp))
}

/// Which pairs of neighbouring characters some token spans: where none does, no merge can
/// join the two sides, so a piece falls apart there into parts that merge independently (see
/// `merge::split_points`). The byte-pair test (`Vocab::joinable`) is too coarse for CJK text,
/// where nearly every pair of neighbouring bytes occurs in some token; by characters, about
/// 60% of the boundaries inside o200k's CJK pieces are spanned by no token, so a run of dozens
/// of characters merges as words of one to three.
///
/// Why it is exact (it over-approximates "some token spans this boundary", which is all that
/// splitting needs). Let a boundary lie between characters `C1` and `C2` of a piece, both
/// well-formed and below U+10000 (any other boundary counts as spanned). A merge across it
/// makes a token `t` equal to the piece's bytes over a window around the boundary; at that
/// point `k` of `t`:
/// - left: `t[..k]` either holds a lead byte, and then the bytes from its last lead byte up to
///   `k` are exactly `C1`, or holds only continuation bytes (a suffix of `C1`: "open");
/// - right: `t[k..]` either reaches past a whole character, which is then exactly `C2`, or
///   ends inside it (a proper prefix of `C2`: "open").
///
/// So the builder records, for every non-ASCII token and every point inside it where a
/// character starts: both sides whole, the pair (`pairs`, a bit set indexed by a hash of the
/// two code points: a collision only makes a boundary count as spanned); a whole left side
/// before an open right one, the left character (`open_right`: spanned before anything); an
/// open left side before a whole right one, the right character (`open_left`); both open, the
/// byte pair (`open_both`). Boundaries between two ASCII characters are left to the byte-pair
/// test, which is exact there (and an ASCII-only token cannot span a boundary next to a
/// non-ASCII character, so those tokens are skipped).
#[derive(Clone, Debug)]
pub struct CharJoins {
    pairs: Box<[u64]>,
    open_right: Box<[u64]>,
    open_left: Box<[u64]>,
    open_both: Box<[u64]>,
}

/// `CharJoins::pairs` has `1 << PAIR_BITS` bits (128 KiB: it stays in the CPU's caches; about
/// 25,000 pairs for o200k, so 2-3% of the other pairs collide).
const PAIR_BITS: u32 = 20;

/// A code point no character below U+10000 has: "not a well-formed two- or three-byte or
/// ASCII character".
pub const NO_CHAR: u32 = u32::MAX;

impl Default for CharJoins {
    fn default() -> Self {
        CharJoins {
            pairs: vec![0; 1 << (PAIR_BITS - 6)].into(),
            open_right: vec![0; 1 << 10].into(),
            open_left: vec![0; 1 << 10].into(),
            open_both: vec![0; 1 << 10].into(),
        }
    }
}

#[inline(always)]
fn bit(set: &[u64], i: usize) -> bool {
    set[i >> 6] >> (i & 63) & 1 == 1
}

#[inline(always)]
fn set_bit(set: &mut [u64], i: usize) {
    set[i >> 6] |= 1 << (i & 63);
}

#[inline(always)]
fn pair_slot(a: u32, b: u32) -> usize {
    ((a << 16 | b).wrapping_mul(0x9E37_79B1) >> (32 - PAIR_BITS)) as usize
}

impl CharJoins {
    /// The joins of the mergeable `tokens`.
    pub fn new<'a>(tokens: impl Iterator<Item = &'a [u8]>) -> Self {
        let mut j = CharJoins::default();
        tokens.for_each(|t| j.add(t));
        j
    }

    /// Records the boundaries inside mergeable token `t`, in one pass over its characters.
    pub fn add(&mut self, t: &[u8]) {
        if t.is_ascii() {
            return;
        }
        let n = t.len();
        // End of the character (or run of continuation bytes) starting at `s`.
        let char_end = |s: usize| {
            let mut e = s + 1;
            while e < n && is_continuation(t[e]) {
                e += 1;
            }
            e
        };
        // The character before the boundary at `k`: `None` while it is the token's leading run
        // of continuation bytes (an open left side), else its code point (`NO_CHAR`: no
        // character the query tests, so no boundary next to it needs recording).
        let mut k = char_end(0);
        let mut left = if is_continuation(t[0]) { (k <= 3).then_some(None) } else { Some(Some(code_point(&t[..k]))) };
        while k < n {
            let end = char_end(k);
            let c = code_point(&t[k..end]);
            let right = match c {
                NO_CHAR if end == n && lead_len(t[k]).is_some_and(|l| end - k < l) => Some(None),
                NO_CHAR => None,
                c => Some(Some(c)),
            };
            // `None`: nothing to record at this boundary.
            if t[k] >= 0x80 || t[k - 1] >= 0x80 {
                match (left, right) {
                    (None, _) | (_, None) | (Some(Some(NO_CHAR)), _) => {}
                    (Some(Some(a)), Some(Some(b))) => set_bit(&mut self.pairs, pair_slot(a, b)),
                    (Some(Some(a)), Some(None)) => set_bit(&mut self.open_right, a as usize),
                    (Some(None), Some(Some(b))) => set_bit(&mut self.open_left, b as usize),
                    (Some(None), Some(None)) => set_bit(&mut self.open_both, (t[k - 1] as usize) << 8 | t[k] as usize),
                }
            }
            left = Some(Some(c));
            k = end;
        }
    }

    /// False when no token spans the boundary between characters `a` and `b` (code points
    /// below U+10000, not both ASCII) whose bytes there are `x` and `y`.
    #[inline]
    pub fn spanned(&self, a: u32, b: u32, x: u8, y: u8) -> bool {
        a == NO_CHAR
            || b == NO_CHAR
            || bit(&self.pairs, pair_slot(a, b))
            || bit(&self.open_right, a as usize)
            || bit(&self.open_left, b as usize)
            || bit(&self.open_both, (x as usize) << 8 | y as usize)
    }
}

/// The cut decisions of `merge::split_points` between two characters below U+0800 (ASCII
/// and the two-byte scripts: Latin, Greek, Cyrillic, Hebrew, Arabic...), one bit per pair,
/// worked out 64 pairs at a time on first use and kept for the encoder's life.
///
/// Why: the test itself (`Vocab::joinable`, then four bit sets of `CharJoins`, one behind a
/// hash) took about a third of the time of random letters of four scripts, where parts are
/// one or two characters long so nearly every boundary is tested. A pair's bit is one load
/// from a table whose used words (a few thousand for such text) stay in the CPU's caches.
///
/// The table (`2048 * 2048` bits, 512 KiB, allocated on first use) and its "worked out" bits
/// are atomics: threads that work out the same word at once store the same bits, and a word
/// is marked worked out (release) only after it is stored, so a reader that sees the mark
/// (acquire) sees the word. `Clone` starts empty: the decisions follow from the vocabulary.
#[derive(Default)]
pub struct PairCuts {
    table: std::sync::OnceLock<CutWords>,
}

/// Zero-filled on demand (`Zeroed`): only the pages of the words a text uses are touched.
struct CutWords {
    /// Bit `c % 64` of word `a * 32 + c / 64`: cut between `a` and `c`.
    cut: Zeroed<AtomicU64>,
    /// Bit `w % 64` of word `w / 64`: word `w` of `cut` is worked out.
    done: Zeroed<AtomicU64>,
}

/// Characters `PairCuts` covers: U+0000..U+07FF.
pub const PAIR_CUTS_BELOW: u32 = 0x800;

impl PairCuts {
    /// Whether `split_points` cuts between characters `a` and `c` (both below
    /// `PAIR_CUTS_BELOW`), `decide(a, c)` being its test, asked for 64 pairs on first use.
    #[inline(always)]
    pub fn cut(&self, a: u32, c: u32, decide: impl Fn(u32, u32) -> bool) -> bool {
        let t = self.table.get_or_init(|| CutWords { cut: Zeroed::new(1 << 16), done: Zeroed::new(1 << 10) });
        let w = (a as usize & 0x7ff) << 5 | (c as usize & 0x7ff) >> 6;
        if t.done[w >> 6].load(Ordering::Acquire) >> (w & 63) & 1 == 0 {
            Self::work_out(t, w, a, c, decide);
        }
        t.cut[w].load(Ordering::Relaxed) >> (c & 63) & 1 == 1
    }

    #[cold]
    #[inline(never)]
    fn work_out(t: &CutWords, w: usize, a: u32, c: u32, decide: impl Fn(u32, u32) -> bool) {
        let base = c & !63;
        let bits = (0..64).filter(|&k| decide(a, base + k)).fold(0u64, |m, k| m | 1 << k);
        t.cut[w].store(bits, Ordering::Relaxed);
        t.done[w >> 6].fetch_or(1 << (w & 63), Ordering::Release);
    }
}

impl Clone for PairCuts {
    fn clone(&self) -> Self {
        PairCuts::default()
    }
}

impl std::fmt::Debug for PairCuts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PairCuts({})", if self.table.get().is_some() { "in use" } else { "empty" })
    }
}

/// The UTF-8 bytes at the edges of character `c` below U+0800: its last byte and its first.
#[inline(always)]
pub fn edge_bytes(c: u32) -> (u8, u8) {
    if c < 0x80 {
        (c as u8, c as u8)
    } else {
        (0x80 | (c & 0x3f) as u8, 0xc0 | (c >> 6) as u8)
    }
}

/// Bytes a character with this lead byte has (`None`: not a lead byte).
#[inline]
fn lead_len(b: u8) -> Option<usize> {
    match b {
        0x00..=0x7F => Some(1),
        0xC0..=0xDF => Some(2),
        0xE0..=0xEF => Some(3),
        0xF0..=0xF7 => Some(4),
        _ => None,
    }
}

/// The code point of `c` if it is exactly one ASCII character or one well-formed two- or
/// three-byte character (`decode_one`), else `NO_CHAR`. Both sides of `CharJoins` use this
/// same rule, which is what its proof needs.
#[inline(always)]
pub fn code_point(c: &[u8]) -> u32 {
    match *c {
        [a] if a < 0x80 => a as u32,
        _ => decode_one(c).unwrap_or(NO_CHAR),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_joins_record_every_way_a_token_can_span_two_characters() {
        let cp = |c: char| c as u32;
        let spanned = |j: &CharJoins, x: char, y: char| {
            let (mut bx, mut by) = ([0; 4], [0; 4]);
            let (ex, ey) = (x.encode_utf8(&mut bx).as_bytes(), y.encode_utf8(&mut by).as_bytes());
            j.spanned(cp(x), cp(y), ex[ex.len() - 1], ey[0])
        };
        // No token: nothing is spanned (ASCII-only tokens are not looked at).
        let none = CharJoins::new(["ab".as_bytes()].into_iter());
        assert!(!spanned(&none, '日', '本') && !spanned(&none, 'b', '日'));
        assert!(none.spanned(NO_CHAR, cp('本'), 0xA5, 0xE6), "a character the test cannot read counts as spanned");
        // Both sides whole.
        let pair = CharJoins::new(["日本".as_bytes()].into_iter());
        assert!(spanned(&pair, '日', '本') && !spanned(&pair, '本', '日') && !spanned(&pair, '日', 'か'));
        // A token that ends inside the right character: the left one is spanned before anything.
        let open_right = CharJoins::new(["x日".as_bytes(), &b"b\xe3"[..]].into_iter());
        assert!(spanned(&open_right, 'b', 'か') && spanned(&open_right, 'b', '日'));
        assert!(!spanned(&open_right, '日', 'か') && !spanned(&open_right, 'x', '本'), "x日 spans x|日 only");
        assert!(spanned(&open_right, 'x', '日'));
        // A token that starts inside the left character.
        let open_left = CharJoins::new([&b"\xa5b"[..]].into_iter());
        assert!(spanned(&open_left, '日', 'b') && spanned(&open_left, 'か', 'b') && !spanned(&open_left, '日', 'a'));
        // Both open: the byte pair decides.
        let both = CharJoins::new([&b"\xa5\xe6"[..]].into_iter());
        assert!(spanned(&both, '日', '本') && !spanned(&both, '日', 'か'));
    }

    #[test]
    fn char_at_accepts_only_well_formed_two_and_three_byte_characters() {
        assert_eq!(char_at(b""), None);
        assert_eq!(char_at(b"a"), None);
        assert_eq!(char_at("é".as_bytes()), Some((2, 0xE9)));
        assert_eq!(char_at("日x".as_bytes()), Some((3, 0x65E5)));
        assert_eq!(char_at(b"\xe6\x97"), None, "truncated");
        assert_eq!(char_at(b"\xe0\x80\x80"), None, "overlong");
        assert_eq!(char_at(b"\xc0\xaf"), None, "overlong two-byte");
        assert_eq!(char_at(b"\xed\xa0\x80"), None, "surrogate");
        assert_eq!(char_at(b"\x97\xa5"), None, "continuation first");
        assert_eq!(char_at("😀".as_bytes()), None, "four bytes keep the byte start");
        assert_eq!(char_at(b"\xe6\x41\xa5"), None, "bad continuation");
    }
}
