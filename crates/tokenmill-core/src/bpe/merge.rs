//! Byte-pair merging of one pre-token, with tiktoken's exact semantics.
//!
//! Rule (the specification, as in tiktoken): start from single bytes; repeatedly merge the
//! adjacent pair whose concatenation has the lowest rank, the leftmost one on ties; stop when
//! no adjacent pair is a token. Two implementations of the same rule:
//! - `merge_small`: a flat array scan, O(n*m), fastest for the short pieces of real text;
//! - `merge_long`: the same scan answered by a shallow tree of block minimums, used for pieces
//!   of more than a few dozen characters (CJK runs are often 10-50) and for pathological ones, so
//!   that a megabyte of one repeated character stays near-linear (parts form a linked list,
//!   or above 64 KiB are found by scanning, which halves the memory per byte).
//!
//! Both start from single bytes, except that a two- or three-byte character starts whole
//! where `chars` proves the result unchanged (nearly every CJK character in real text), which
//! removes the merges that would only rebuild characters. `merge_bytewise` keeps the plain
//! byte start, as the specification the fast paths are tested against.

use super::backtrack;
use super::chars;
use super::long_cache;
use super::shared_cache::Pending;
use super::vocab::{ByteSet, Vocab};
use crate::table::{self, Key, ShortKeyTable};
use crate::types::Rank;

/// Pieces longer than this (bytes, or characters where they start whole) use `merge_long`.
const LONG_THRESHOLD: usize = 32;

/// Reusable working memory of one encode call (not one per piece): the merge arrays and the
/// call's cache of merged pieces.
///
/// Indexed by unit: the parts merging starts from (bytes, or whole characters where `chars`
/// allows), so a run of CJK text needs a third of the entries its bytes would; a part is named
/// by the unit where it starts. Nothing is removed while merging (a merged-away part just gets
/// rank `Rank::MAX`), so the scan for the lowest rank runs over a dense `u32` slice that the
/// compiler vectorizes and no memory moves.
#[derive(Default, Debug, Clone)]
pub struct Scratch {
    /// Rank of the part starting here joined with the next part (`Rank::MAX`: none or dead).
    ranks: Vec<Rank>,
    /// Token id of the part starting here (a merged part's id is the rank that merged it), or
    /// `INSIDE`.
    ids: Vec<Rank>,
    /// Byte offset of each unit, and the piece length last, when units are not bytes.
    starts: Vec<u32>,
    /// The linked list of part starts (unused above `SCAN_THRESHOLD`).
    next: Vec<u32>,
    prev: Vec<u32>,
    /// `merge_long`'s summary of `ranks`.
    tree: MinTree,
    /// Tokens of pieces already merged in this call that the encoder's cache does not take (see
    /// `PieceCache`).
    cache: PieceCache,
    /// Whether parts of split pieces go through the caches (see `CacheWindows`).
    parts: PartCaching,
    /// Whether merged whole pieces are written to the caches (see `CacheWindows`).
    writes: PieceWrites,
    /// State of `merge_backtrack`.
    search: backtrack::Search,
    /// Merged pieces on their way to the encoder's cache (see `Pending`).
    pending: Pending,
    /// The piece being merged and 16 zero bytes, for `Vocab::rank_at`.
    padded: Vec<u8>,
}

impl Scratch {
    /// Ends a call's use of this scratch memory with `vocab`: writes what it merged to the
    /// encoder's cache. (A call that skips this only leaves those pieces uncached.)
    pub fn finish(&mut self, vocab: &Vocab) {
        vocab.shared_cache().insert_pending(&mut self.pending);
    }
}

/// Whether merged pieces go through the caches, judged on windows of `WINDOW` lookups by how
/// many of them the caches held: a window with fewer than `MIN_HITS` hits turns caching off
/// for the next `SKIP` pieces, then a new window is tried. Either way the tokens are the same.
///
/// - Parts of long pieces (`Scratch::parts`, `MIN_HITS` half the window): caching pays where
///   parts come back (the words of CJK runs); where nearly every part is new (random letters:
///   about one in five comes back), each costs probes that miss memory and an insert, more than
///   merging a part of a few characters. Off means neither lookup nor insert.
/// - Whole short pieces that are not tokens (`Scratch::writes`, `MIN_HITS` a quarter, off for
///   8 windows): off means the caches are still read but no longer written. Where nearly
///   every such piece is new (base64, random identifiers) a write costs a line of memory and
///   serves little: a first pass over 1 MB of base64 runs 1.2x faster without most of them.
///   Real text keeps writing: in the first window of a first pass over new text the caches
///   hold 37% of these pieces (English prose), 61-70% (code, French, fr/ja/zh), then more;
///   base64 2-13%, random identifiers none. The shorter pause bounds what a blob of random
///   text costs the text after it: 32,768 such pieces merged without caching.
#[derive(Default, Debug, Clone)]
struct CacheWindows<const MIN_HITS: u32, const SKIP: u32> {
    /// Pieces looked up in this window, and how many of them the caches held.
    tried: u32,
    hits: u32,
    /// Pieces still to go without caching before the next window.
    skip: u32,
}

/// `CacheWindows` of the parts of long pieces.
type PartCaching = CacheWindows<{ WINDOW / 2 }, { 16 * WINDOW }>;
/// `CacheWindows` of the writes of whole short pieces.
type PieceWrites = CacheWindows<{ WINDOW / 4 }, { 8 * WINDOW }>;

/// Lookups in a window of `CacheWindows`.
const WINDOW: u32 = 4096;

impl<const MIN_HITS: u32, const SKIP: u32> CacheWindows<MIN_HITS, SKIP> {
    #[inline]
    fn on(&mut self) -> bool {
        if self.skip == 0 {
            return true;
        }
        self.skip -= 1;
        false
    }

    #[inline]
    fn record(&mut self, hit: bool) {
        self.tried += 1;
        self.hits += hit as u32;
        if self.tried == WINDOW {
            if self.hits < MIN_HITS {
                self.skip = SKIP;
            }
            (self.tried, self.hits) = (0, 0);
        }
    }
}

/// Long piece -> (offset, count) of its tokens in `PieceCache::tokens`.
type LongPieces = rustc_hash::FxHashMap<Box<[u8]>, (u32, u32)>;

/// Merged pieces of one encode call that the encoder's caches (`SharedCache`, `LongCache`) do
/// not take, so that a word that is not a single token is merged once per call, not once per
/// occurrence (in English prose and code about one piece in twelve needs merging, and those
/// few pieces cost as much as all the others together).
///
/// Short pieces (at most 15 bytes) go to the encoder's cache, which serves the call, its later
/// calls and the other threads of a batch; they come here only when it does not take them
/// (caching off, or more tokens than a slot holds). Here they are keys of a `ShortKeyTable` (a
/// value packs the offset of the piece's tokens in `tokens` and their count). Longer pieces
/// go to the encoder's `LongCache` likewise; those it does not take, up to `LONG_MAX` bytes,
/// are keys of a hash map here (CJK runs and whitespace runs of code: on a
/// mixed 100 MB corpus one piece in 80 is long, they repeat about twice on average, and each
/// costs dozens of merge steps). The tables are created only after `WARMUP` merged pieces, so
/// short texts pay nothing here.
#[derive(Default, Debug, Clone)]
struct PieceCache {
    table: Option<ShortKeyTable>,
    long: Option<LongPieces>,
    tokens: Vec<Rank>,
    merged: usize,
}

impl PieceCache {
    const WARMUP: usize = 32;
    /// Caps memory for a huge call (tens of MB at most): past this many short pieces, or long
    /// pieces, or cached tokens, nothing new is cached.
    const MAX_PIECES: usize = 1 << 18;
    const MAX_LONG: usize = 1 << 16;
    const MAX_TOKENS: usize = 1 << 22;

    #[inline(always)]
    fn get(&self, key: Key) -> Option<&[Rank]> {
        let v = self.table.as_ref()?.get(key)? as usize;
        Some(&self.tokens[v >> 4..(v >> 4) + (v & 15)])
    }

    /// Longest piece the long-piece map keeps (longer ones are rarely repeated).
    const LONG_MAX: usize = 256;

    #[inline]
    fn insert(&mut self, key: Key, tokens: &[Rank]) {
        match &mut self.table {
            Some(table) if self.tokens.len() < Self::MAX_TOKENS && table.len() < Self::MAX_PIECES => {
                // A piece of at most 15 bytes has at most 15 tokens: the count fits in 4 bits.
                table.insert(key, (self.tokens.len() << 4 | tokens.len()) as u32);
                self.tokens.extend_from_slice(tokens);
            }
            Some(_) => {}
            None => self.warm_up(),
        }
    }

    fn warm_up(&mut self) {
        self.merged += 1;
        if self.merged >= Self::WARMUP {
            self.table = Some(ShortKeyTable::with_capacity(1024));
            self.long = Some(Default::default());
        }
    }

    #[inline]
    fn get_long(&self, piece: &[u8]) -> Option<&[Rank]> {
        let &(at, n) = self.long.as_ref()?.get(piece)?;
        Some(&self.tokens[at as usize..(at + n) as usize])
    }

    fn insert_long(&mut self, piece: &[u8], tokens: &[Rank]) {
        match &mut self.long {
            Some(long) if self.tokens.len() < Self::MAX_TOKENS && long.len() < Self::MAX_LONG => {
                long.insert(piece.into(), (self.tokens.len() as u32, tokens.len() as u32));
                self.tokens.extend_from_slice(tokens);
            }
            Some(_) => {}
            None => self.warm_up(),
        }
    }
}

/// Appends the tokens of `piece` to `out`.
#[inline]
pub fn encode_piece(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>) {
    encode_piece_with(vocab, piece, out, &mut Scratch::default())
}

/// `encode_piece` with caller-provided scratch memory.
///
/// Why two halves: most pieces of real text are short whole tokens (one lookup, no
/// merging), and that half is inlined into the piece loop; the rest (the caches, merging,
/// long pieces) stays out of line, so the common piece pays no call.
#[inline(always)]
pub fn encode_piece_with(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>, scratch: &mut Scratch) {
    encode_piece_keyed(vocab, piece, table::pack(piece), out, scratch)
}

/// `encode_piece_with` of `piece` packed as `key` (`table::pack` or `table::pack_at`).
#[inline(always)]
pub fn encode_piece_keyed(vocab: &Vocab, piece: &[u8], key: Option<Key>, out: &mut Vec<Rank>, scratch: &mut Scratch) {
    if let Some(r) = key.and_then(|k| vocab.rank_of_key(k)) {
        out.push(r);
        return;
    }
    encode_piece_rest(vocab, piece, key, out, scratch)
}

/// `encode_piece_with` of a piece that is not a short whole token (`key`: its packed bytes,
/// if short).
#[inline(never)]
pub(crate) fn encode_piece_rest(
    vocab: &Vocab,
    piece: &[u8],
    key: Option<Key>,
    out: &mut Vec<Rank>,
    scratch: &mut Scratch,
) {
    if piece.is_empty() {
        return;
    }
    if let Some(key) = key {
        let write = scratch.writes.on();
        let hit = through_caches(vocab, key, out, scratch, write, |out, scratch| {
            if merges_from_bytes(key) {
                merge_short_bytes(vocab, key, out);
            } else {
                merge_piece(vocab, piece, out, scratch);
            }
        });
        if write {
            scratch.writes.record(hit);
        }
        return;
    }
    let hash = vocab.long_cache().may_hold(piece.len()).then(|| long_cache::hash(piece));
    encode_long_piece(vocab, piece, hash, out, scratch)
}

/// `encode_piece_rest` of a piece longer than a key, given its `long_cache::hash` when the
/// encoder's `LongCache` may hold it (`LongCache::may_hold`), else `None`.
pub(crate) fn encode_long_piece(
    vocab: &Vocab,
    piece: &[u8],
    hash: Option<u64>,
    out: &mut Vec<Rank>,
    scratch: &mut Scratch,
) {
    // The encoder's cache first: a long piece (a CJK run) is rarely met twice in one call, but
    // is met again when the same text comes back in a later call. Before the whole-token
    // lookup, which a hit makes needless: a piece that is a token is never cached.
    let shared = vocab.long_cache();
    if hash.is_some_and(|h| shared.get(piece, h, out)) {
        return;
    }
    if let Some(r) = vocab.rank(piece) {
        out.push(r);
        return;
    }
    let cached = piece.len() <= PieceCache::LONG_MAX;
    if cached {
        if let Some(tokens) = scratch.cache.get_long(piece) {
            out.extend_from_slice(tokens);
            return;
        }
    }
    let before = out.len();
    let fell_apart = merge_piece(vocab, piece, out, scratch);
    if hash.is_some_and(|h| shared.insert(piece, h, &out[before..])) {
        return;
    }
    // A piece that fell apart has its parts cached already; within a call it is rarely seen
    // again whole (a CJK run), so keeping it in the call's cache too costs more than it saves.
    if !fell_apart && cached {
        scratch.cache.insert_long(piece, &out[before..]);
    }
}

/// Merges a whole piece that is not a token: a short ASCII one at once, any other one part
/// by part (see `split_points`). Returns true if it fell apart into parts.
#[inline]
fn merge_piece(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>, scratch: &mut Scratch) -> bool {
    if piece.len() <= LONG_THRESHOLD && piece.iter().all(|&b| b < 0xC2) {
        // No character here can start whole: merge from bytes (`merge_small` would scan the
        // piece for one again).
        merge_with(vocab, piece, out, scratch, &mut Scan::<true>, false, false);
        return false;
    }
    if let Some(set) = one_byte_run(vocab, piece) {
        merge_backtrack(vocab, piece, &set, out, scratch);
        return false;
    }
    let mut start = 0;
    for cut in split_points(vocab, piece) {
        // Parts of one and two bytes (four in five parts of random letters) merge here, not
        // through `merge_part`'s call and dispatch (`letters`: 1.04-1.06x).
        match piece[start..cut] {
            [a] => out.push(vocab.byte_rank(a)),
            [a, b] => merge_two(vocab, a, b, out),
            ref part => merge_part(vocab, part, out, scratch, true),
        }
        start = cut;
    }
    // A piece that does not fall apart is cached whole by the caller.
    merge_part(vocab, &piece[start..], out, scratch, start > 0);
    start > 0
}

/// Merges one part of a piece, from its units (never a whole-token lookup: that rule is for
/// whole pieces only, and a part that is a token may still merge differently).
///
/// With `cache`, a part of at most 15 bytes goes through the caches of merged pieces
/// (`through_caches`).
fn merge_part(vocab: &Vocab, part: &[u8], out: &mut Vec<Rank>, scratch: &mut Scratch, cache: bool) {
    match part.len() {
        0 => {}
        1 => out.push(vocab.byte_rank(part[0])),
        // Why no caches for these: their merge is a few table loads, cheaper than the
        // probe of the encoder's cache, which misses memory when parts are new (random letters
        // fall apart into a part per character or two).
        2 => merge_two(vocab, part[0], part[1], out),
        3..=TINY if part[0] < 0xC2 => merge_tiny(vocab, part, out),
        n if n <= LONG_THRESHOLD => {
            if part[0] < 0xC2 || !few_chars(vocab, part, out) {
                // Why the caches: a CJK run is a new piece almost every time, but its words
                // (its parts) come back. Exact: a part's tokens depend on its bytes alone, and
                // are those of a piece with the same bytes that is not a token (it falls apart
                // into the same merges); a piece that is a token never reads the caches (its
                // whole-token lookup comes first).
                match (cache && scratch.parts.on()).then(|| table::pack(part)).flatten() {
                    Some(key) => {
                        let hit = through_caches(vocab, key, out, scratch, true, |out, scratch| {
                            merge_small(vocab, part, out, scratch)
                        });
                        scratch.parts.record(hit);
                    }
                    None => merge_small(vocab, part, out, scratch),
                }
            }
        }
        // Merging counts characters, not bytes, where they start whole: a CJK run of up to
        // `LONG_THRESHOLD` characters is short.
        n if n <= 4 * LONG_THRESHOLD && chars(part) <= LONG_THRESHOLD => merge_small(vocab, part, out, scratch),
        n if n < BACKTRACK_THRESHOLD => merge_long(vocab, part, out, scratch),
        _ => match few_bytes(part) {
            Some(set) => merge_backtrack(vocab, part, &set, out, scratch),
            None => merge_long(vocab, part, out, scratch),
        },
    }
}

/// Appends the tokens of the short piece or part packed as `key`: from the encoder's cache
/// across calls and threads, else from the pieces this call merged and has not written there
/// yet, else from the call's own cache (what the encoder's cache does not take), else from
/// `merge`, and caches them if `write`. Returns whether a cache held them.
///
/// Why the encoder's cache first: the call's cache used to come first and keep a copy of
/// every hit, and on a first pass over 3.5 MB of prose its inserts (a table growing to 2 MB)
/// cost more than its hits saved: with the encoder's cache alone, 95 -> 116 MB/s (median of
/// 15), and 121 -> 146 MB/s for a second pass.
#[inline(always)]
fn through_caches(
    vocab: &Vocab,
    key: Key,
    out: &mut Vec<Rank>,
    scratch: &mut Scratch,
    write: bool,
    merge: impl FnOnce(&mut Vec<Rank>, &mut Scratch),
) -> bool {
    let (before, hash) = (out.len(), table::mix(key));
    let shared = vocab.shared_cache();
    if shared.get(key, hash, out) || scratch.pending.get(shared, key, hash, out) {
        return true;
    }
    if let Some(tokens) = scratch.cache.get(key) {
        out.extend_from_slice(tokens);
        return true;
    }
    merge(out, scratch);
    if !write {
        return false;
    }
    if !scratch.pending.push(shared, key, hash, &out[before..]) {
        scratch.cache.insert(key, &out[before..]);
    }
    false
}

/// The merge rule on two bytes: their token, else each byte's.
#[inline]
fn merge_two(vocab: &Vocab, a: u8, b: u8, out: &mut Vec<Rank>) {
    match vocab.pair_rank(a, b) {
        Rank::MAX => out.extend_from_slice(&[vocab.byte_rank(a), vocab.byte_rank(b)]),
        r => out.push(r),
    }
}

/// Parts of up to this many bytes that start with a byte that cannot start a character of
/// two or more bytes merge by `merge_tiny` (no caches, no set-up).
const TINY: usize = 4;

/// The merge rule on a part of 3..=`TINY` bytes, on the stack: join the lowest-ranked pair
/// of neighbouring parts (the leftmost on ties) until none is a token.
#[inline]
fn merge_tiny(vocab: &Vocab, part: &[u8], out: &mut Vec<Rank>) {
    let n = part.len();
    // Part k is part[start[k]..start[k + 1]] with token id[k]; rank[k] joins parts k, k + 1.
    let mut start = [0u8; TINY + 1];
    let mut id = [0; TINY];
    let mut rank = [Rank::MAX; TINY];
    for k in 0..n {
        start[k] = k as u8;
        id[k] = vocab.byte_rank(part[k]);
    }
    start[n] = n as u8;
    for k in 0..n - 1 {
        rank[k] = vocab.pair_rank(part[k], part[k + 1]);
    }
    let mut m = n;
    let joined =
        |start: &[u8], k: usize| vocab.rank(&part[start[k] as usize..start[k + 2] as usize]).unwrap_or(Rank::MAX);
    loop {
        let (mut k, mut r) = (0, rank[0]);
        for (j, &x) in rank.iter().enumerate().take(m - 1).skip(1) {
            if x < r {
                (k, r) = (j, x);
            }
        }
        if r == Rank::MAX {
            break;
        }
        // Part k takes in part k + 1; the parts after it move down one place.
        id[k] = r;
        id.copy_within(k + 2..m, k + 1);
        rank.copy_within(k + 2..m, k + 1);
        start.copy_within(k + 2..=m, k + 1);
        m -= 1;
        rank[k] = if k + 1 < m { joined(&start, k) } else { Rank::MAX };
        if k > 0 {
            rank[k - 1] = joined(&start, k - 1);
        }
    }
    out.extend_from_slice(&id[..m]);
}

/// A part of one or two characters that merging may start whole (most parts of a CJK run):
/// appends what the merge loop would give from those units (the character's token; the
/// pair's token if there is one, else both) and returns true; false (nothing appended) for
/// any other part.
#[inline]
fn few_chars(vocab: &Vocab, part: &[u8], out: &mut Vec<Rank>) -> bool {
    let Some((n1, id1)) = vocab.char_rank(part, 0) else { return false };
    if n1 == part.len() {
        out.push(id1);
        return true;
    }
    match vocab.char_rank(part, n1) {
        Some((n2, id2)) if n1 + n2 == part.len() => {
            match vocab.rank(part) {
                Some(r) => out.push(r),
                None => out.extend_from_slice(&[id1, id2]),
            }
            true
        }
        _ => false,
    }
}

/// Number of UTF-8 characters (bytes that do not continue a character) in `part`.
#[inline]
fn chars(part: &[u8]) -> usize {
    part.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// Parts at least this long (bytes) may use `merge_backtrack`: `merge_long` takes 1-2 ms
/// there, about as long as finding the tokens of a byte set met for the first time.
const BACKTRACK_THRESHOLD: usize = 8192;

/// The set of bytes of `part`, if it has at most 8 distinct ones: runs of one character, of
/// a short pattern, of indentation. There `merge_backtrack` is 5-10x faster than
/// `merge_long`; on varied bytes (random letters, token salad) its trie walks miss the cache
/// at every level and it is slower, so those keep `merge_long`. Both are exact: this only
/// picks the faster.
pub fn few_bytes(part: &[u8]) -> Option<ByteSet> {
    let mut set: ByteSet = [0; 4];
    let mut distinct = 0;
    for &b in part {
        let (w, bit) = ((b >> 6) as usize, 1u64 << (b & 63));
        if set[w] & bit == 0 {
            set[w] |= bit;
            distinct += 1;
            if distinct > 8 {
                return None;
            }
        }
    }
    Some(set)
}

/// The set of the one byte of `piece`, when it is a long run of one ASCII byte that some
/// token repeats (`joinable`): then it has no `split_points` (between two ASCII characters
/// they go by the byte pair alone) and is `merge_backtrack`'s. Found without their per-byte
/// loops: a run of 1 MiB of tabs spent 16% of its time in them.
fn one_byte_run(vocab: &Vocab, piece: &[u8]) -> Option<ByteSet> {
    let b = *piece.first()?;
    if piece.len() < BACKTRACK_THRESHOLD || b >= 0x80 || !vocab.joinable(b, b) {
        return None;
    }
    // Blocks of 64 without an early exit inside one, so that the compare vectorizes.
    let (blocks, tail) = piece.as_chunks::<64>();
    let same = |s: &[u8]| s.iter().fold(true, |all, &x| all & (x == b));
    if !(blocks.iter().all(|c| same(c)) && same(tail)) {
        return None;
    }
    let mut set: ByteSet = [0; 4];
    set[(b >> 6) as usize] |= 1 << (b & 63);
    Some(set)
}

/// The same result as `merge_long` in linear time, by a search over token boundaries (see
/// `backtrack`), for a part whose bytes all lie in `set`: the merge loop costs about 150 ns a
/// merge on a long run of one character, where this costs a trie walk and a pair test per
/// token tried.
pub fn merge_backtrack(vocab: &Vocab, part: &[u8], set: &ByteSet, out: &mut Vec<Rank>, scratch: &mut Scratch) {
    if !backtrack::encode(vocab, part, set, out, &mut scratch.search) {
        // Unreachable by the proof in `backtrack`: a search that finds nothing merges instead.
        merge_long(vocab, part, out, scratch);
    }
}

/// Offsets where a long piece falls apart into parts that merge independently: character
/// boundaries that no token spans, judged by the two bytes there (a pair that occurs next to
/// each other in no token) and, next to a non-ASCII character, by the two characters
/// (`chars::CharJoins`). Why this is exact: a merge makes a token holding both joined parts'
/// bytes, so a merge across such a point would make a token that spans it; none does, so no
/// merge ever crosses it, and merging each side alone (leftmost lowest rank within the side)
/// makes the same merges. It keeps long pieces of varied text (random letters, say) fast, and
/// cuts runs of CJK text into words: parts are short and cache-resident.
pub fn split_points<'a>(vocab: &'a Vocab, piece: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    let next_start =
        move |s: usize| piece[s + 1..].iter().position(|&b| b & 0xC0 != 0x80).map_or(piece.len(), |x| s + 1 + x);
    // The character before the boundary: its code point (`NO_CHAR` if malformed or longer).
    let first = next_start(0);
    let mut prev = chars::code_point(&piece[..first]);
    let mut s = first;
    std::iter::from_fn(move || {
        while s < piece.len() {
            // A one- or two-byte character, read without `next_start`'s loop when it is whole
            // and no stray continuation byte follows; else the general reading.
            let b0 = piece[s];
            let e2 = s + 1 + (b0 >= 0x80) as usize;
            let whole = (b0 < 0x80
                || (0xC2..=0xDF).contains(&b0) && piece.get(s + 1).is_some_and(|&b| chars::is_continuation(b)))
                && piece.get(e2).is_none_or(|&b| !chars::is_continuation(b));
            let (e, c) = if whole {
                let c = if b0 < 0x80 { b0 as u32 } else { (b0 as u32 & 0x1f) << 6 | (piece[s + 1] as u32 & 0x3f) };
                (e2, c)
            } else {
                let e = next_start(s);
                (e, chars::code_point(&piece[s..e]))
            };
            let (a, at) = (std::mem::replace(&mut prev, c), std::mem::replace(&mut s, e));
            // Both below U+0800: the decision is worked out once per pair (`chars::PairCuts`).
            let cut = if (a | c) < chars::PAIR_CUTS_BELOW {
                vocab.cuts_between(a, c)
            } else {
                vocab.unspanned(a, c, piece[at - 1], piece[at])
            };
            if cut {
                return Some(at);
            }
        }
        None
    })
}

/// Flat-array merge for short pieces (tiktoken's algorithm shape): repeatedly find the
/// leftmost lowest-ranked pair of adjacent parts by a scan, and join them.
pub fn merge_small(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>, scratch: &mut Scratch) {
    merge_with(vocab, piece, out, scratch, &mut Scan::<true>, true, false)
}

/// Merge for longer pieces; same result as `merge_small`.
///
/// The scan for the lowest rank is replaced by a `MinTree` over the same `ranks` array, so a
/// step costs a few short block scans instead of a pass over the whole piece. Why not a binary
/// heap (tried): on a megabyte piece its sift-downs jump across a heap of megabytes and miss
/// the cache at every level, which made time grow 15-25x for 10x the input. Here one step
/// touches the neighbourhood of the merged pair, one leaf block and small summary levels.
pub fn merge_long(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>, scratch: &mut Scratch) {
    // Taken out for the call because the merge loop borrows the rest of `scratch`.
    let mut tree = std::mem::take(&mut scratch.tree);
    merge_with(vocab, piece, out, scratch, &mut tree, true, piece.len() > SCAN_THRESHOLD);
    scratch.tree = tree;
}

/// The plain rule, from single bytes only, by a scan: the specification the fast paths are
/// tested against (slow on long pieces).
pub fn merge_bytewise(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>) {
    merge_with(vocab, piece, out, &mut Scratch::default(), &mut Scan::<false>, false, false)
}

/// How the merge loop finds the leftmost lowest rank: a plain scan or a `MinTree`.
trait MinIndex {
    /// Whether `dispatch` may take `merge_loop_short`.
    const SHORT: bool = false;
    fn build(&mut self, base: &[u32]);
    fn set(&mut self, base: &mut [u32], i: usize, v: u32);
    fn min(&self, base: &[u32]) -> Option<(u32, usize)>;
}

/// The scan: no summary at all. `SHORT`: pieces of at most 15 bytes merge in
/// `merge_loop_short`.
struct Scan<const SHORT: bool>;

impl<const S: bool> MinIndex for Scan<S> {
    const SHORT: bool = S;
    fn build(&mut self, _: &[u32]) {}
    #[inline]
    fn set(&mut self, base: &mut [u32], i: usize, v: u32) {
        base[i] = v;
    }
    #[inline]
    fn min(&self, base: &[u32]) -> Option<(u32, usize)> {
        if base.len() <= 64 {
            // A short piece (nearly all): one pass over (rank, position) pairs, whose minimum is
            // the leftmost lowest rank, with no branch on the data. Why: the position where
            // `first_equal` stops is new at every step, and its mispredicted exit was a third of
            // a first pass's mispredicted branches.
            let best = base.iter().enumerate().fold(u64::MAX, |m, (i, &x)| m.min((x as u64) << 32 | i as u64));
            let m = (best >> 32) as u32;
            return (m != u32::MAX).then_some((m, best as u32 as usize));
        }
        // Two dense passes: both vectorize better than one fused loop.
        let m = block_min(base);
        (m != u32::MAX).then(|| (m, first_equal(base, m)))
    }
}

/// The merge loop shared by `merge_small` and `merge_long`.
fn merge_with<M: MinIndex>(
    vocab: &Vocab,
    piece: &[u8],
    out: &mut Vec<Rank>,
    scratch: &mut Scratch,
    index: &mut M,
    from_chars: bool,
    scan: bool,
) {
    let Scratch { ranks, ids, starts, next, prev, padded, .. } = scratch;
    ranks.clear();
    ids.clear();
    padded.clear();
    padded.extend_from_slice(piece);
    padded.extend_from_slice(&[0; 16]);
    if from_chars && piece.iter().any(|&b| b >= 0xC2) {
        // Units are whole characters where the vocabulary allows it (see `chars`), else bytes.
        starts.clear();
        let n = piece.len();
        let mut i = 0;
        while i < n {
            let (len, id) = vocab.char_rank(piece, i).unwrap_or((1, vocab.byte_rank(piece[i])));
            starts.push(i as u32);
            ids.push(id);
            i += len;
        }
        starts.push(n as u32);
        ranks.extend(starts.windows(3).map(|w| {
            let (a, e) = (w[0] as usize, w[2] as usize);
            if e == a + 2 {
                vocab.pair_rank(piece[a], piece[a + 1])
            } else {
                vocab.rank(&piece[a..e]).unwrap_or(Rank::MAX)
            }
        }));
        ranks.push(Rank::MAX);
        dispatch(vocab, padded, out, ranks, ids, index, Starts(starts), next, prev, scan)
    } else {
        ranks.extend(piece.windows(2).map(|w| vocab.pair_rank(w[0], w[1])));
        ranks.push(Rank::MAX);
        ids.extend(piece.iter().map(|&b| vocab.byte_rank(b)));
        dispatch(vocab, padded, out, ranks, ids, index, Bytes(piece.len()), next, prev, scan)
    }
}

/// Runs the merge loop with the chosen way to find neighbouring parts. Why two: a linked list
/// is fastest while the piece's arrays stay in cache; on huge pieces the merge order jumps
/// across the piece and memory is the cost, so there the list is dropped and parts are found
/// by scanning `ids`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn dispatch<M: MinIndex, U: Units>(
    vocab: &Vocab,
    padded: &[u8],
    out: &mut Vec<Rank>,
    ranks: &mut [Rank],
    ids: &mut [Rank],
    index: &mut M,
    units: U,
    next: &mut Vec<u32>,
    prev: &mut Vec<u32>,
    scan: bool,
) {
    if M::SHORT && ids.len() < SHORT_UNITS && padded.len() <= table::MAX_KEY + 16 {
        merge_loop_short(vocab, padded, out, ranks, ids, units)
    } else if !scan {
        merge_loop(vocab, padded, out, ranks, ids, index, &mut Linked { next, prev }, units)
    } else {
        merge_loop(vocab, padded, out, ranks, ids, index, &mut Scanned, units)
    }
}

/// Pieces longer than this (bytes) find neighbouring parts by scanning (see `dispatch`).
const SCAN_THRESHOLD: usize = 1 << 16;

/// `merge_long` with the scanning variant forced at any length (for tests, which cannot
/// afford the reference merge on 64 KiB pieces).
pub fn merge_long_scanning(vocab: &Vocab, piece: &[u8], out: &mut Vec<Rank>) {
    let mut scratch = Scratch::default();
    let mut tree = MinTree::default();
    merge_with(vocab, piece, out, &mut scratch, &mut tree, true, true);
}

/// `ids` value of a unit inside a part (not where a part starts).
const INSIDE: Rank = Rank::MAX;

/// Where the units of a piece start: `at(k)` is the byte offset of unit `k`, and `at(m)` (one
/// past the last unit) the piece length.
trait Units {
    fn at(&self, k: usize) -> usize;
}

/// Units are the piece's bytes (`.0` is its length).
struct Bytes(usize);

impl Units for Bytes {
    #[inline(always)]
    fn at(&self, k: usize) -> usize {
        debug_assert!(k <= self.0);
        k
    }
}

/// Units start at the listed offsets (the piece length last).
struct Starts<'a>(&'a [u32]);

impl Units for Starts<'_> {
    #[inline(always)]
    fn at(&self, k: usize) -> usize {
        self.0[k] as usize
    }
}

/// How the merge loop finds the parts next to a part (named by its first unit).
trait Parts {
    /// Sets up for `m` units, each its own part.
    fn init(&mut self, m: usize);
    /// First unit of the part after the part at `i` (or `ids.len()`).
    fn next(&self, ids: &[Rank], i: usize) -> usize;
    /// First unit of the part before the part at `i > 0`.
    fn prev(&self, ids: &[Rank], i: usize) -> usize;
    /// The part at `j` joined the part at `i`; `e` starts the part after them.
    fn join(&mut self, i: usize, e: usize);
}

/// A doubly linked list of part starts.
struct Linked<'a> {
    next: &'a mut Vec<u32>,
    prev: &'a mut Vec<u32>,
}

impl Parts for Linked<'_> {
    fn init(&mut self, m: usize) {
        self.next.clear();
        self.prev.clear();
        self.next.extend(1..=m as u32);
        // `prev[0]` is never read.
        self.prev.extend((0..m as u32).map(|k| k.saturating_sub(1)));
    }
    #[inline]
    fn next(&self, _: &[Rank], i: usize) -> usize {
        self.next[i] as usize
    }
    #[inline]
    fn prev(&self, _: &[Rank], i: usize) -> usize {
        self.prev[i] as usize
    }
    #[inline]
    fn join(&mut self, i: usize, e: usize) {
        self.next[i] = e as u32;
        if e < self.prev.len() {
            self.prev[e] = i as u32;
        }
    }
}

/// No list: scan `ids` to the next or previous start (at most a token's length away), so
/// that a megabyte piece keeps half the state per byte.
struct Scanned;

impl Parts for Scanned {
    fn init(&mut self, _: usize) {}
    #[inline]
    fn next(&self, ids: &[Rank], i: usize) -> usize {
        let mut k = i + 1;
        while k < ids.len() && ids[k] == INSIDE {
            k += 1;
        }
        k
    }
    #[inline]
    fn prev(&self, ids: &[Rank], i: usize) -> usize {
        let mut k = i - 1;
        while ids[k] == INSIDE {
            k -= 1;
        }
        k
    }
    #[inline]
    fn join(&mut self, _: usize, _: usize) {}
}

/// Merges the units of `piece` (ids and adjacent-pair ranks already set) and appends the
/// resulting tokens to `out`.
#[allow(clippy::too_many_arguments)]
fn merge_loop<M: MinIndex, P: Parts, U: Units>(
    vocab: &Vocab,
    padded: &[u8],
    out: &mut Vec<Rank>,
    ranks: &mut [Rank],
    ids: &mut [Rank],
    index: &mut M,
    parts: &mut P,
    units: U,
) {
    let m = ids.len();
    let rank_of = |a: usize, e: usize| vocab.rank_at(padded, units.at(a), units.at(e)).unwrap_or(Rank::MAX);
    parts.init(m);
    index.build(ranks);
    while let Some((rank, i)) = index.min(ranks) {
        // Part j (after i) joins part i; e is the part after both.
        let j = parts.next(ids, i);
        let e = parts.next(ids, j);
        ids[i] = rank;
        ids[j] = INSIDE;
        parts.join(i, e);
        index.set(ranks, j, Rank::MAX);
        let joined = if e < m { rank_of(i, parts.next(ids, e)) } else { Rank::MAX };
        index.set(ranks, i, joined);
        if i > 0 {
            let p = parts.prev(ids, i);
            index.set(ranks, p, rank_of(p, e));
        }
    }
    let mut i = 0;
    while i < m {
        out.push(ids[i]);
        i = parts.next(ids, i);
    }
}

/// Entries of `merge_loop_short`'s arrays: a piece of at most 15 bytes has at most 15 units,
/// and entry `m` (at most 15) is the spare.
const SHORT_UNITS: usize = 16;

/// `merge_loop` for a piece of at most 15 bytes, with `Scan`: the same joins in the same
/// order, with no branch on the piece's data but the loop's end.
///
/// Why: the generic loop branches on whether a joined part has a neighbour on each side, and
/// those branches followed no pattern (a tenth of a first pass's mispredicted branches). Here
/// a missing neighbour is looked up as the empty range, which no table holds, and its
/// result is written to a spare entry past the piece's. The lowest rank is taken over all 16
/// entries (those past the piece's are `Rank::MAX`) as a tree of minimums: a scan over the
/// piece's own entries ended at a place that changes from word to word, about one
/// mispredicted branch per join (a first pass went 8-11% faster without it).
fn merge_loop_short<U: Units>(
    vocab: &Vocab,
    padded: &[u8],
    out: &mut Vec<Rank>,
    ranks: &mut [Rank],
    ids: &mut [Rank],
    units: U,
) {
    const W: usize = SHORT_UNITS;
    let m = ids.len();
    let mut r = [Rank::MAX; W];
    r[..m].copy_from_slice(&ranks[..m]);
    merge_loop_w(vocab, padded, out, r, ids, units)
}

/// `merge_loop_short` from its ranks `r` (`Rank::MAX` from the piece's last unit on).
#[inline(always)]
fn merge_loop_w<U: Units>(
    vocab: &Vocab,
    padded: &[u8],
    out: &mut Vec<Rank>,
    mut r: [Rank; SHORT_UNITS],
    ids: &mut [Rank],
    units: U,
) {
    const W: usize = SHORT_UNITS;
    let m = ids.len();
    let mut next: [u8; W] = std::array::from_fn(|k| (k + 1).min(m) as u8);
    let mut prev: [u8; W] = std::array::from_fn(|k| k.saturating_sub(1) as u8);
    // A function, not a closure: the compiler called the closure out of line, twice a join.
    #[inline(always)]
    fn rank_of<U: Units>(vocab: &Vocab, padded: &[u8], units: &U, a: usize, e: usize) -> Rank {
        vocab.short_table().get_often_missing(table::key_at(padded, units.at(a), units.at(e))).unwrap_or(Rank::MAX)
    }
    loop {
        // The leftmost lowest rank: the minimum of `rank << 32 | position`.
        let mut v: [u64; W] = std::array::from_fn(|k| (r[k] as u64) << 32 | k as u64);
        for w in [8, 4, 2, 1] {
            for k in 0..w {
                v[k] = v[k].min(v[k + w]);
            }
        }
        let rank = (v[0] >> 32) as Rank;
        if rank == Rank::MAX {
            break;
        }
        // (The masks only spare bounds checks: every index is below W.)
        let i = v[0] as usize & (W - 1);
        let j = next[i] as usize & (W - 1);
        let e = next[j] as usize & (W - 1);
        ids[i] = rank;
        ids[j] = INSIDE;
        next[i] = e as u8;
        prev[e] = i as u8;
        r[j] = Rank::MAX;
        // Without a part after e (e == m), the range m..m (`next[m]` is m): empty.
        r[i] = rank_of(vocab, padded, &units, std::hint::select_unpredictable(e < m, i, e), next[e] as usize);
        // Without a part before i (i == 0), the empty range, into the spare entry.
        let p = prev[i] as usize;
        let has_prev = i > 0;
        let v = rank_of(vocab, padded, &units, std::hint::select_unpredictable(has_prev, p, e), e);
        r[std::hint::select_unpredictable(has_prev, p, m) & (W - 1)] = v;
    }
    let mut i = 0;
    while i < m {
        out.push(ids[i]);
        i = next[i] as usize;
    }
}

/// Whether a short piece that is not a token, packed as `key`, is merged from its bytes by
/// `merge_short_bytes` rather than by `merge_piece`: ASCII, or ASCII with one character of
/// two bytes (`é` in ` données`).
///
/// Why one character: merging from bytes is the rule itself, so exact for any piece, and its
/// loop on the stack beats `merge_piece`'s set-up (split points, scratch vectors, a start
/// from whole characters) where the piece has few characters that could start whole: 1 MB
/// of French after 0.3 MB of French ran 1.04-1.06x (cl100k, o200k). With more such
/// characters, starting from them saves more joins than that set-up costs: words of two to
/// six Greek or Cyrillic letters, all merged from bytes, ran at 0.51-0.75x.
#[inline(always)]
fn merges_from_bytes(key: Key) -> bool {
    table::key_is_nearly_ascii(key, 2)
}

/// Merges a piece of 1 to 15 bytes packed as `key` from its bytes, on the stack: the same
/// joins as `merge_with`, without its set-up in scratch vectors (copies and loops of the
/// piece's length, whose ends a CPU mispredicts; a first pass over prose ran 3-5% faster
/// without them, with 13% fewer mispredicted branches).
#[inline]
fn merge_short_bytes(vocab: &Vocab, key: Key, out: &mut Vec<Rank>) {
    const W: usize = SHORT_UNITS;
    let n = table::key_len(key) & (W - 1);
    let mut padded = [0u8; 2 * W];
    padded[..16].copy_from_slice(&table::key_bytes(key).to_le_bytes());
    let mut ids: [Rank; W] = std::array::from_fn(|k| vocab.byte_rank(padded[k]));
    let r: [Rank; W] =
        std::array::from_fn(|k| if k + 1 < n { vocab.pair_rank(padded[k], padded[k + 1]) } else { Rank::MAX });
    merge_loop_w(vocab, &padded, out, r, &mut ids[..n], Bytes(n))
}

/// Block size of `MinTree`: a block is scanned whole (the compiler vectorizes the scan).
const FAN: usize = 16;

/// Leftmost-minimum queries over a `u32` array that changes one entry at a time.
///
/// Level 0 is the caller's array; level k+1 holds the minimum of each block of `FAN` entries
/// of level k, up to a level of at most `FAN` entries. `set` rescans one block per level and
/// stops as soon as a block's minimum is unchanged; `min` walks down from the top, taking at
/// each level the first entry equal to the minimum, which yields the leftmost position.
#[derive(Default, Debug, Clone)]
pub struct MinTree {
    levels: Vec<Vec<u32>>,
}

#[inline]
fn block_min(block: &[u32]) -> u32 {
    block.iter().fold(u32::MAX, |m, &x| m.min(x))
}

#[inline]
fn first_equal(block: &[u32], v: u32) -> usize {
    block.iter().position(|&x| x == v).unwrap_or(0)
}

impl MinIndex for MinTree {
    fn build(&mut self, base: &[u32]) {
        MinTree::build(self, base)
    }
    #[inline]
    fn set(&mut self, base: &mut [u32], i: usize, v: u32) {
        MinTree::set(self, base, i, v)
    }
    #[inline]
    fn min(&self, base: &[u32]) -> Option<(u32, usize)> {
        MinTree::min(self, base)
    }
}

impl MinTree {
    /// Rebuilds the summary levels for `base` (reusing their memory).
    pub fn build(&mut self, base: &[u32]) {
        let mut depth = 0;
        let mut len = base.len();
        while len > FAN {
            len = len.div_ceil(FAN);
            if self.levels.len() <= depth {
                self.levels.push(Vec::new());
            }
            let (below, rest) = self.levels.split_at_mut(depth);
            let src: &[u32] = if depth == 0 { base } else { &below[depth - 1] };
            let dst = &mut rest[0];
            dst.clear();
            dst.extend(src.chunks(FAN).map(block_min));
            depth += 1;
        }
        self.levels.truncate(depth);
    }

    /// Sets `base[i] = v` and updates the summaries.
    #[inline]
    pub fn set(&mut self, base: &mut [u32], i: usize, v: u32) {
        if base[i] == v {
            return;
        }
        base[i] = v;
        let mut idx = i;
        for k in 0..self.levels.len() {
            let block = idx / FAN;
            let src: &[u32] = if k == 0 { base } else { &self.levels[k - 1] };
            let m = block_min(&src[block * FAN..((block + 1) * FAN).min(src.len())]);
            if self.levels[k][block] == m {
                return;
            }
            self.levels[k][block] = m;
            idx = block;
        }
    }

    /// The smallest value below `u32::MAX` and its leftmost position, if any.
    #[inline]
    pub fn min(&self, base: &[u32]) -> Option<(u32, usize)> {
        let top: &[u32] = self.levels.last().map_or(base, |v| v.as_slice());
        let m = block_min(top);
        if m == u32::MAX {
            return None;
        }
        let mut idx = first_equal(top, m);
        for k in (0..self.levels.len()).rev() {
            let src: &[u32] = if k == 0 { base } else { &self.levels[k - 1] };
            let lo = idx * FAN;
            idx = lo + first_equal(&src[lo..(lo + FAN).min(src.len())], m);
        }
        Some((m, idx))
    }
}

#[cfg(test)]
mod tests {
    use super::{CacheWindows, PartCaching, PieceWrites, WINDOW};

    /// A window with enough hits keeps caching on; one hit short turns it off for `SKIP`
    /// pieces, then a new window is tried.
    fn check<const MIN_HITS: u32, const SKIP: u32>(fresh: CacheWindows<MIN_HITS, SKIP>) {
        let mut p = fresh.clone();
        for i in 0..WINDOW {
            assert!(p.on());
            p.record(i < MIN_HITS);
        }
        assert!(p.on());
        let mut p = fresh;
        for i in 0..WINDOW {
            assert!(p.on());
            p.record(i + 1 < MIN_HITS);
        }
        for _ in 0..SKIP {
            assert!(!p.on());
        }
        assert!(p.on());
    }

    #[test]
    fn caching_stops_after_a_window_of_few_hits_then_tries_again() {
        // The parts of long pieces, and the writes of merged whole pieces.
        check(PartCaching::default());
        check(PieceWrites::default());
    }
}
