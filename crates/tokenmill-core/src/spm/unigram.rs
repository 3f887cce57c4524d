//! Unigram segmentation: Viterbi with sentencepiece's float32 scores and ties, n-best, sampling.
//!
//! Three searches over the pieces that start at each character of the normalized text:
//! - `viterbi`: sentencepiece's optimized encoder (`EncodeOptimized`): best path per byte
//!   position, float32 sums, the first candidate kept on equal scores (so the piece starting
//!   earliest wins), an unknown node of score `min_score - 10` where no piece covers exactly one
//!   character, user-defined pieces scored `0.1 * (byte_length - 1)` (`user_score`), sums
//!   re-based when they leave +-100000 (both as sentencepiece 0.2.3, the installed oracle).
//!   Two implementations of that one search: by end position over an Aho-Corasick automaton of
//!   the pieces (`forward_pull`, when its table fits a budget and no re-base can happen), else
//!   by start position, walking the trie from each character (`forward`).
//! - `nbest`: sentencepiece's lattice (character positions, user-defined pieces scored by their
//!   length in characters) and its A* search, whose agenda is a binary heap that pops equal
//!   priorities in the order of libstdc++'s `std::priority_queue`; emulated here so that ties and
//!   duplicate paths come out in the library's order.
//! - `sample`: forward filtering (float32 log-sum-exp, scores scaled by `inv_theta`) and
//!   backward sampling over the whole lattice.
//!
//! Also here, shared with `bpe`: the double-array trie over piece bytes (`Trie`) and the small
//! seeded generator (`Rng`, splitmix64) used for sampling and BPE-dropout. Not here: the
//! normalizer, byte fallback and merging of unknown runs (`model`), Gumbel top-k sampling
//! (`SampleEncodeAndScore`), entropy.

use super::proto::{ModelProto, PieceType};

/// A trie value slot with no piece.
const NO_VALUE: u32 = u32::MAX;
/// Unit `check` of a free slot.
const FREE: u32 = u32::MAX;
/// Set in a Viterbi trie value when the piece is USER_DEFINED.
const USER_BIT: u32 = 1 << 31;
/// Set in a `Val` id when the piece is one character (it covers its position).
const SINGLE_BIT: u32 = 1 << 31;
/// Set in a `Best` id for the unknown piece, with the character's length in bytes (1-4) in
/// the low bits (ids stay far below: a `.model` file, a protobuf, is under 2 GB).
const UNK_TAG: u32 = 1 << 30;
/// Where a `Val` id holds its piece's length in bytes (bits 20-29), when every piece id is
/// below 2^20 and every piece shorter than 1024 bytes (`Unigram::packed`): the backtrace then
/// reads a piece's length with its id, one dependent load a token instead of two.
const LEN_SHIFT: u32 = 20;
const ID_BITS: u32 = (1 << LEN_SHIFT) - 1;
/// Set in a `pairs` entry's second slot where no walk goes on after two bytes.
const STOP_BIT: u32 = 1 << 31;
/// "No node" in the Viterbi table and in hypothesis links.
const NONE: u32 = u32::MAX;
/// Viterbi sums beyond +-RESET are re-based to 0 (sentencepiece 0.2.3's `kScoreResetThreshold`).
const RESET: f32 = 100_000.0;

/// Score of a USER_DEFINED piece of `len` units (bytes in Viterbi, characters in the lattice):
/// sentencepiece 0.2.3's `GetUserDefinedScore`, 0.1 per unit beyond the first (computed in
/// double, returned as float), so longer user pieces win and normal log-probabilities (<= 0)
/// lose to them. (0.2.0 used `len * max_score - 0.1`; the installed 0.2.3 is the oracle.)
#[inline]
fn user_score(len: usize) -> f32 {
    (0.1 * (len as f64 - 1.0)) as f32
}

/// Length of a UTF-8 character from its lead byte, as sentencepiece's `OneCharLen` (no checks:
/// a continuation byte counts as one character).
#[inline]
pub(crate) fn one_char_len(lead: u8) -> usize {
    const LEN: [u8; 16] = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4];
    LEN[(lead >> 4) as usize] as usize
}

#[derive(Debug, Clone, Copy)]
struct Unit {
    base: u32,
    check: u32,
    value: u32,
}

/// A double-array trie over byte strings: `next = base[s] + byte`, valid when
/// `check[next] == s`. One array access per input byte, which is what makes the prefix search
/// of Viterbi cheap (a hash probe per candidate length was 3x slower on botchan).
#[derive(Debug, Clone)]
pub(crate) struct Trie {
    units: Vec<Unit>,
}

impl Trie {
    /// Builds the trie of `keys` (byte string, value < u32::MAX); a later duplicate key wins.
    pub(crate) fn build(keys: &[(&[u8], u32)]) -> Trie {
        // A plain pointer trie first, children sorted by label.
        let mut kids: Vec<Vec<(u8, u32)>> = vec![Vec::new()];
        let mut vals: Vec<u32> = vec![NO_VALUE];
        for &(key, value) in keys {
            let mut node = 0usize;
            for &b in key {
                node = match kids[node].binary_search_by_key(&b, |&(l, _)| l) {
                    Ok(i) => kids[node][i].1 as usize,
                    Err(i) => {
                        let new = kids.len() as u32;
                        kids[node].insert(i, (b, new));
                        kids.push(Vec::new());
                        vals.push(NO_VALUE);
                        new as usize
                    }
                };
            }
            vals[node] = value;
        }
        // Then place each node's children at the first base where all their slots are free.
        // `skip[i]` leads to the first free slot at or after `i` (union-find with path
        // halving), so occupied stretches are jumped over: a linear scan made Mistral's
        // 32k-piece trie take 1.6 s.
        let mut units = vec![Unit { base: 0, check: FREE, value: NO_VALUE }; 512];
        let mut skip: Vec<u32> = (0..512).collect();
        units[0].check = 0; // the root: never free, never a child (children sit at >= 1)
        units[0].value = vals[0];
        skip[0] = 1;
        fn find(skip: &mut [u32], mut i: usize) -> usize {
            while skip[i] as usize != i {
                let next = skip[skip[i] as usize];
                skip[i] = next;
                i = next as usize;
            }
            i
        }
        let mut queue = std::collections::VecDeque::from([(0usize, 0usize)]);
        while let Some((tnode, da)) = queue.pop_front() {
            let ch = &kids[tnode];
            if ch.is_empty() {
                continue;
            }
            let first = ch[0].0 as usize;
            let last = ch[ch.len() - 1].0 as usize;
            let mut pos = first + 1;
            let base = loop {
                if pos + 512 >= units.len() {
                    let old = units.len();
                    units.resize(old * 2 + 512, Unit { base: 0, check: FREE, value: NO_VALUE });
                    skip.extend(old as u32..units.len() as u32);
                }
                pos = find(&mut skip, pos);
                if pos - first + last + 1 >= units.len() {
                    continue; // grow first
                }
                let b = pos - first;
                if ch.iter().all(|&(l, _)| units[b + l as usize].check == FREE) {
                    break b;
                }
                pos += 1;
            };
            units[da].base = base as u32;
            for &(l, child) in ch {
                let slot = base + l as usize;
                units[slot].check = da as u32;
                units[slot].value = vals[child as usize];
                skip[slot] = slot as u32 + 1;
                queue.push_back((child as usize, slot));
            }
        }
        // Trim, keeping 256 spare slots so `base + byte` never leaves the array.
        let last = units.iter().rposition(|u| u.check != FREE).unwrap_or(0);
        units.truncate(last + 1);
        units.resize(last + 1 + 256, Unit { base: 0, check: FREE, value: NO_VALUE });
        Trie { units }
    }

    /// The node after reading `byte` at `node` (the root is 0).
    #[inline(always)]
    pub(crate) fn step(&self, node: u32, byte: u8) -> Option<u32> {
        let next = self.units[node as usize].base as usize + byte as usize;
        match self.units.get(next) {
            Some(u) if u.check == node => Some(next as u32),
            _ => None,
        }
    }

    /// The value stored at `node`, if a key ends there.
    #[inline(always)]
    pub(crate) fn value(&self, node: u32) -> Option<u32> {
        let v = self.units[node as usize].value;
        (v != NO_VALUE).then_some(v)
    }

    /// The value of exactly `key`.
    pub(crate) fn get(&self, key: &[u8]) -> Option<u32> {
        let mut node = 0;
        for &b in key {
            node = self.step(node, b)?;
        }
        self.value(node)
    }

    /// The length and value of the longest key that is a prefix of `data`.
    pub(crate) fn longest_prefix(&self, data: &[u8]) -> Option<(usize, u32)> {
        let mut node = 0;
        let mut best = None;
        for (k, &b) in data.iter().enumerate() {
            match self.step(node, b) {
                Some(n) => node = n,
                None => break,
            }
            if let Some(v) = self.value(node) {
                best = Some((k + 1, v));
            }
        }
        best
    }
}

/// A small seeded generator (splitmix64): reproducible samples without a crate.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub(crate) fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// An index drawn with probability proportional to `weights` (non-negative, finite);
    /// the last positive one when rounding runs past the total.
    pub(crate) fn pick(&mut self, weights: &[f64]) -> usize {
        // As sentencepiece's `SanitizeDiscreteProbs`: non-finite or non-positive weights count as
        // 0, and all-zero weights pick the first.
        let total: f64 = weights.iter().filter(|w| w.is_finite() && **w > 0.0).sum();
        let mut x = self.next_f64() * total;
        let mut last = 0;
        for (i, &w) in weights.iter().enumerate() {
            if w.is_finite() && w > 0.0 {
                if x < w {
                    return i;
                }
                x -= w;
                last = i;
            }
        }
        last
    }
}

/// One segment of the normalized text: bytes `start..end`, piece id (the unknown id for an
/// unknown character).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub end: u32,
    pub id: u32,
}

/// The walking half of a `Trie` unit, for Viterbi: kept apart from the values so that the
/// walk, a chain of dependent loads, touches half the memory (5% faster on botchan).
#[derive(Debug, Clone, Copy)]
struct Link {
    base: u32,
    check: u32,
}

/// The value half, for Viterbi: the piece's score (user-defined ones included) and id, so that
/// a match needs no second, dependent load. `score` is `-inf` where no piece ends (such a
/// candidate never wins: the walk has no branch on it); `id` has `SINGLE_BIT` set when the
/// piece is one character.
#[derive(Debug, Clone, Copy)]
struct Val {
    score: f32,
    id: u32,
}

/// Best path ending at a byte position: its score (`-inf` while unreached) and last piece
/// (a `Val::id`, or `UNK_TAG` with the length). No start: the backtrace knows each piece's
/// length, and the walk then writes two fields a step, not three, into 8-byte entries.
#[derive(Debug, Clone, Copy)]
struct Best {
    score: f32,
    id: u32,
}

/// Reusable memory of the Unigram searches.
#[derive(Debug, Default)]
pub struct UnigramScratch {
    best: Vec<Best>,
    /// The text and a 0xFF byte (see `forward_all`).
    text: Vec<u8>,
}

/// The Unigram segmenter of one model (immutable).
#[derive(Debug, Clone)]
pub struct Unigram {
    /// NORMAL and USER_DEFINED pieces (UNUSED ones are never candidates), value = id, with
    /// `USER_BIT` set for USER_DEFINED.
    trie: Trie,
    /// `trie`'s units split for `viterbi` (same indices).
    links: Vec<Link>,
    vals: Vec<Val>,
    /// Viterbi's first two steps from the root by the text's first two bytes (see
    /// `walk_paired`): 65536 entries, 512 KiB. The last slot of `links` and `vals` is the dead
    /// one (no piece, no children) that entries name where no node is.
    pairs: Vec<[u32; 2]>,
    /// Length in bytes of the longest piece (at least 4, a character): how far a re-base
    /// reaches.
    max_len: usize,
    /// Length in bytes of each piece, by id (for the backtrace, unless `packed`).
    lens: Vec<u32>,
    /// Whether `vals` ids hold their piece's length (see `LEN_SHIFT`).
    packed: bool,
    scores: Vec<f32>,
    unk_id: u32,
    unk_score: f32,
    /// The largest magnitude of a Viterbi candidate score (pieces, user pieces, unknown): how
    /// fast a path's sum can move.
    max_abs: f64,
    /// The pieces as an automaton, for Viterbi by end position (`forward_pull`), when its
    /// table fits `PULL_BUDGET`.
    pull: Option<Box<Pull>>,
}

/// One lattice node (sentencepiece's `Lattice::Node`); positions in characters.
#[derive(Debug, Clone, Copy)]
struct Node {
    id: u32,
    pos: u32,
    len: u32,
    start: u32,
    end: u32,
    score: f32,
    backtrace: f32,
}

/// sentencepiece's lattice: nodes 0 (BOS) and 1 (EOS), then the pieces in insertion order.
struct Lattice {
    nodes: Vec<Node>,
    begin: Vec<Vec<u32>>,
    end: Vec<Vec<u32>>,
    chars: usize,
}

#[derive(Debug, Clone, Copy)]
struct Hyp {
    node: u32,
    next: u32,
    fx: f32,
    gx: f32,
}

/// Viterbi's step at one position: walks the trie along `text` from `node` (its `base`,
/// `k` bytes in) and offers each piece found to the best path ending after it (`ends[k]`:
/// the one ending `k + 1` bytes on), from a path scoring `here` that ends where `text`
/// starts. Returns the OR of the pieces' `Val::id`s (`SINGLE_BIT`: a one-character piece
/// starts here).
///
/// # Safety
/// `text` is readable and `ends` writable for as many bytes (entries) as the walk can take:
/// `steps` when `BOUNDED`; else up to a byte no piece holds (the 0xFF after the text: the
/// walk reads it and stops), `ends` for the bytes before it.
#[inline(always)]
unsafe fn walk<const BOUNDED: bool>(
    units: &[Link],
    vals: &[Val],
    text: *const u8,
    ends: *mut Best,
    steps: usize,
    here: f32,
    (mut node, mut base, mut k): (u32, usize, usize),
) -> u32 {
    let mut covered = 0;
    // One link load per byte gives the check and the next base (`base + byte` stays in
    // bounds: 256 spare slots), then the value at that index. Raw pointers: a `zip` of the
    // two slices cost 7 instructions a step in bookkeeping, more than the walk itself.
    loop {
        if BOUNDED && k == steps {
            break;
        }
        let b = *text.add(k);
        let next = base + b as usize;
        debug_assert!(next < units.len() && units.len() == vals.len());
        // Unchecked because the bounds checks kept a length live in the walk, the hottest
        // loop of Unigram encoding, which then spilled registers to the stack. In bounds:
        // every unit's `base` is at most the last occupied slot, and `Trie::build` keeps 256
        // slots after it, so `base + byte < units.len() == vals.len()`.
        let u = *units.get_unchecked(next);
        if u.check != node {
            break;
        }
        node = next as u32;
        base = u.base as usize;
        let v = *vals.get_unchecked(next);
        covered |= v.id;
        offer(ends.add(k), v, here);
        k += 1;
    }
    covered
}

/// Offers the piece `v` to the best path ending where `t` is, from a path scoring `here`.
///
/// # Safety
/// `t` is valid for reads and writes.
#[inline(always)]
unsafe fn offer(t: *mut Best, v: Val, here: f32) -> f32 {
    let t = &mut *t;
    keep_better(t, v.score + here, v.id);
    t.score
}

/// `t` becomes the candidate scoring `cand` with id `id` if it scores strictly more (the first
/// of equals stays: sentencepiece's tie rule).
#[inline(always)]
fn keep_better(t: &mut Best, cand: f32, id: u32) {
    // Branch-free: whether a candidate wins is data-dependent, a coin flip for the branch
    // predictor (10% faster than `if` on English).
    let win = cand > t.score;
    t.score = std::hint::select_unpredictable(win, cand, t.score);
    t.id = std::hint::select_unpredictable(win, id, t.id);
}

/// `walk` unbounded (more than 4 bytes left), its first two steps in one load from
/// `pairs` (the entry of the text's first two bytes: the slots after one and after two bytes,
/// `dead` where there is none, the second with `STOP_BIT` where no walk goes on). Why: a walk
/// is a chain of dependent loads ended by a mispredicted exit, and most end within two bytes
/// (43% after one on English with botchan's model, 30% after two); the exit is now known after
/// one load instead of two or three.
///
/// # Safety
/// As `walk` unbounded, and `text` holds at least two bytes before the 0xFF (`ends` two
/// entries); `pairs` has 65536 entries, every slot in them is within `units` and `vals`.
#[inline(always)]
unsafe fn walk_paired(
    units: &[Link],
    vals: &[Val],
    pairs: &[[u32; 2]],
    text: *const u8,
    ends: *mut Best,
    here: f32,
) -> (u32, f32) {
    let [s1, s2] = *pairs.get_unchecked((*text as usize) << 8 | *text.add(1) as usize);
    let two = (s2 & !STOP_BIT) as usize;
    let (v1, v2) = (*vals.get_unchecked(s1 as usize), *vals.get_unchecked(two));
    let first = offer(ends, v1, here);
    offer(ends.add(1), v2, here);
    let covered = v1.id | v2.id;
    if s2 & STOP_BIT != 0 {
        return (covered, first);
    }
    (
        covered
            | walk::<false>(units, vals, text, ends, 0, here, (two as u32, units.get_unchecked(two).base as usize, 2)),
        first,
    )
}

/// Most entries (4 bytes each) of a model's `Pull` table: 1 MiB, a core's L2 cache on this
/// machine (AMD Zen 4; 1-2 MiB on current x86 cores). Why: each byte's transition depends on
/// the one before, so a table beyond the L2 cache puts a memory wait on every byte, and the
/// walks are faster then (measured: a model of 8000 pieces over English and CJK text, a 10 MB
/// table: 39 MB/s by the automaton, 65 by the walks; botchan's 1000 pieces, 0.9 MB: 99 against
/// 79). In practice: vocabularies of a few thousand pieces at most.
const PULL_BUDGET: usize = 1 << 18;

/// One piece ending at an automaton state: its length in bytes, score and `Val::id`.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct Out {
    len: u32,
    score: f32,
    id: u32,
}

/// The pieces as an Aho-Corasick automaton, for Viterbi by end position (`forward_pull`).
///
/// Why: the walk of `forward` starts at every character and ends at an unpredictable depth,
/// a chain of dependent loads closed by a mispredicted exit per position. Here the text is read
/// once, one transition per byte, and each state lists every piece that ends there (the pieces
/// that are suffixes of the text read so far), longest first: the candidates of an end
/// position in the order `forward` offers them (by start), so the same first-of-equals rule
/// gives the same path.
///
/// States are the trie's nodes, numbered breadth first (the shallow ones, where most steps land,
/// share cache lines); bytes that no piece holds share class 0. A state's row starts on a cache
/// line with what ends there (`PullState`: no second dependent load for it), then holds the
/// next state's row offset by class. A state's piece of one byte, if any, is kept apart: it is
/// the last candidate, from the position just before, whose score the search keeps in a
/// register. Its first `PULL_K` longer pieces are inline, padded with pieces that never win
/// (every position then takes the same branch-free steps); the others, rare, in `outs`.
///
/// Measured on botchan's model (1000 pieces, 72 classes, 2588 states, a 994 KB table): 79 ->
/// 100 MB/s on English lines, 96 -> 106 on multilingual ones (`spm_encode`).
#[derive(Debug, Clone)]
struct Pull {
    class: [u32; 256],
    /// Rows of `u32`s, each starting on a cache line: the state (`PullState`, one line), then
    /// the next row's offset by class.
    table: Vec<Line>,
    outs: Vec<Out>,
}

/// A cache line of `Pull::table`.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct Line([u32; 16]);

/// `u32`s of a `PullState` in a row.
const STATE_U32S: usize = std::mem::size_of::<PullState>() / 4;

/// `u32`s of a `Pull` row with `classes` classes: its state, then a transition per class, in
/// whole cache lines.
fn row_width(classes: usize) -> usize {
    (STATE_U32S + classes).div_ceil(16) * 16
}

/// What ends at a `Pull` state (see there). Stored at the start of the state's row of
/// `Pull::table`, as `u32`s (every field is 4 bytes; 56 bytes, within the row's first line).
#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct PullState {
    /// The byte length of its one-character piece (at most one: no UTF-8 character ends
    /// another), 0 if none: whether an unknown node is needed.
    single: u32,
    /// Its one-byte piece's score (`-inf` if none) and id.
    one: (f32, u32),
    /// Its first `PULL_K` longer pieces, longest first, padded with `NO_OUT`.
    first: [Out; PULL_K],
    /// The others (start and count in `outs`; rare).
    over: (u32, u32),
}

/// Pieces of two bytes or more per state kept inline (99% of positions of English text with
/// botchan's model end no more than 3 pieces).
const PULL_K: usize = 3;
/// A padding piece: empty, scoring `-inf` (from the entry being computed, still unreached),
/// no one-character piece.
const NO_OUT: Out = Out { len: 0, score: f32::NEG_INFINITY, id: 0 };

/// How many byte classes `Pull::build` makes of these keys (their distinct bytes, plus one).
fn byte_classes<'a>(keys: impl Iterator<Item = &'a [u8]>) -> usize {
    let mut seen = [false; 256];
    for k in keys {
        for &b in k {
            seen[b as usize] = true;
        }
    }
    1 + seen.iter().filter(|&&x| x).count()
}

impl Pull {
    /// The automaton of `keys` (piece bytes and `Val`), or `None` when its table would pass
    /// `budget` entries.
    fn build(keys: &[(&[u8], Val)], budget: usize) -> Option<Pull> {
        let mut class = [0u32; 256];
        let mut c = 1usize;
        for (k, _) in keys {
            for &b in *k {
                if class[b as usize] == 0 {
                    class[b as usize] = c as u32;
                    c += 1;
                }
            }
        }
        let width = row_width(c);
        // The trie, rows of `c` children.
        let mut go: Vec<u32> = vec![NONE; c];
        let mut own: Vec<Option<Val>> = vec![None];
        let mut depth: Vec<u32> = vec![0];
        for (k, v) in keys {
            let mut node = 0usize;
            for &b in *k {
                let at = node * c + class[b as usize] as usize;
                if go[at] == NONE {
                    go[at] = own.len() as u32;
                    go.extend(std::iter::repeat_n(NONE, c));
                    own.push(None);
                    depth.push(depth[node] + 1);
                }
                node = go[at] as usize;
            }
            own[node] = Some(*v);
            if own.len() * width > budget {
                return None;
            }
        }
        let states = own.len();
        // Failure links and the completed transitions, breadth first (a state's failure is
        // shallower, so complete before it is read).
        let mut fail = vec![0u32; states];
        let mut order = vec![0u32];
        let mut k = 0;
        while k < order.len() {
            let u = order[k] as usize;
            k += 1;
            for cl in 0..c {
                let v = go[u * c + cl];
                if v != NONE {
                    fail[v as usize] = if u == 0 { 0 } else { go[fail[u] as usize * c + cl] };
                    order.push(v);
                } else {
                    go[u * c + cl] = if u == 0 { 0 } else { go[fail[u] as usize * c + cl] };
                }
            }
        }
        // Outputs: the state's own piece, then its failure's outputs (shorter, so later starts).
        let mut lists: Vec<Vec<Out>> = vec![Vec::new(); states];
        for &v in &order {
            let v = v as usize;
            let mut list: Vec<Out> =
                own[v].map(|x| Out { len: depth[v], score: x.score, id: x.id }).into_iter().collect();
            if v != 0 {
                list.extend_from_slice(&lists[fail[v] as usize]);
            }
            lists[v] = list;
        }
        // States renumbered breadth first: the shallow ones, where most steps land, share
        // cache lines.
        let mut renum = vec![0u32; states];
        for (i, &v) in order.iter().enumerate() {
            renum[v as usize] = i as u32;
        }
        let mut outs = Vec::new();
        let mut lines = vec![Line([0; 16]); states * width / 16];
        // SAFETY: `Line` is 16 `u32`s with no padding (`repr(C)`, 64 bytes), so the lines are
        // `16 * lines.len()` initialized `u32`s, borrowed mutably once here.
        let table = unsafe { std::slice::from_raw_parts_mut(lines.as_mut_ptr().cast::<u32>(), lines.len() * 16) };
        for (i, &v) in order.iter().enumerate() {
            let v = v as usize;
            for cl in 0..c {
                table[i * width + STATE_U32S + cl] = renum[go[v * c + cl] as usize] * width as u32;
            }
            let mut list = &lists[v][..];
            let single = list.iter().find(|o| o.id & SINGLE_BIT != 0).map_or(0, |o| o.len);
            let mut one = (f32::NEG_INFINITY, 0);
            // Longest first, so a one-byte piece is the last.
            if let Some((o, rest)) = list.split_last().filter(|(o, _)| o.len == 1) {
                one = (o.score, o.id);
                list = rest;
            }
            let mut over = (0, 0);
            if list.len() > PULL_K {
                over = (outs.len() as u32, (list.len() - PULL_K) as u32);
                outs.extend_from_slice(&list[PULL_K..]);
            }
            let first = std::array::from_fn(|k| list.get(k).copied().unwrap_or(NO_OUT));
            let st = PullState { single, one, first, over };
            // SAFETY: `PullState` is `repr(C)` of 4-byte fields (no padding), written as
            // `STATE_U32S` u32s at the row's start, within `table`.
            let words: [u32; STATE_U32S] = unsafe { std::mem::transmute(st) };
            table[i * width..i * width + STATE_U32S].copy_from_slice(&words);
        }
        Some(Pull { class, table: lines, outs })
    }
}

impl Unigram {
    /// The segmenter of a validated proto (`model` checks the pieces first).
    pub fn new(proto: &ModelProto, unk_id: u32) -> Unigram {
        let mut keys = Vec::new();
        let mut min_score = f32::MAX;
        for (i, p) in proto.pieces.iter().enumerate() {
            match p.kind {
                PieceType::Normal => {
                    min_score = min_score.min(p.score);
                    keys.push((p.piece.as_bytes(), i as u32));
                }
                PieceType::UserDefined => keys.push((p.piece.as_bytes(), i as u32 | USER_BIT)),
                _ => {}
            }
        }
        let trie = Trie::build(&keys);
        let packed = proto.pieces.len() <= ID_BITS as usize + 1 && keys.iter().all(|k| k.0.len() < 1024);
        let mut links: Vec<Link> = trie.units.iter().map(|u| Link { base: u.base, check: u.check }).collect();
        // A trie value as Viterbi's.
        let val_of = |value: u32| {
            if value == NO_VALUE {
                return Val { score: f32::NEG_INFINITY, id: 0 };
            }
            let id = value & !USER_BIT;
            let p = &proto.pieces[id as usize];
            let score = if value & USER_BIT == 0 { p.score } else { user_score(p.piece.len()) };
            let single = if p.piece.chars().count() == 1 { SINGLE_BIT } else { 0 };
            let len = if packed { (p.piece.len() as u32) << LEN_SHIFT } else { 0 };
            Val { score, id: id | len | single }
        };
        let mut vals = trie.units.iter().map(|u| val_of(u.value)).collect::<Vec<Val>>();
        // Each key once, with the value the trie kept for it (when the automaton may fit: each
        // key ends at a state of its own).
        let pull_keys: Vec<(&[u8], Val)> = match keys.len() * row_width(byte_classes(keys.iter().map(|k| k.0))) {
            n if n <= PULL_BUDGET => keys
                .iter()
                .filter(|k| !k.0.is_empty())
                .filter_map(|&(k, _)| trie.get(k).map(|v| (k, val_of(v))))
                .collect(),
            _ => Vec::new(),
        };
        // The dead slot: no piece, and no walk steps into it (`check` is no node's).
        let dead = links.len() as u32;
        assert!(dead < STOP_BIT, "a trie of 2^31 slots");
        links.push(Link { base: 0, check: FREE });
        vals.push(Val { score: f32::NEG_INFINITY, id: 0 });
        let mut has_kids = vec![false; links.len()];
        for u in &trie.units[1..] {
            if u.check != FREE {
                has_kids[u.check as usize] = true;
            }
        }
        let mut pairs = vec![[dead, dead | STOP_BIT]; 1 << 16];
        for b0 in 0..=255u8 {
            let Some(one) = trie.step(0, b0) else { continue };
            for b1 in 0..=255u8 {
                let two = match trie.step(one, b1) {
                    Some(t) if has_kids[t as usize] => t,
                    Some(t) => t | STOP_BIT,
                    None => dead | STOP_BIT,
                };
                pairs[(b0 as usize) << 8 | b1 as usize] = [one, two];
            }
        }
        let unk_score = min_score - 10.0;
        let max_abs = vals
            .iter()
            .filter(|v| v.score != f32::NEG_INFINITY)
            .map(|v| v.score.abs() as f64)
            .fold(unk_score.abs() as f64, f64::max);
        let pull = (!pull_keys.is_empty()).then(|| Pull::build(&pull_keys, PULL_BUDGET)).flatten().map(Box::new);
        Unigram {
            pull,
            trie,
            links,
            vals,
            pairs,
            max_abs,
            max_len: keys.iter().map(|k| k.0.len()).max().unwrap_or(0).max(4),
            lens: proto.pieces.iter().map(|p| p.piece.len() as u32).collect(),
            packed,
            scores: proto.pieces.iter().map(|p| p.score).collect(),
            unk_id,
            unk_score,
        }
    }

    /// Appends the best segmentation of `s` (normalized bytes) to `out`.
    pub fn viterbi(&self, s: &[u8], scratch: &mut UnigramScratch, out: &mut Vec<Span>) {
        self.viterbi_with(s, self.may_rebase(s.len()), scratch, out)
    }

    /// Whether a path's sum over a text of `n` bytes could need sentencepiece's re-base. A
    /// path to any position sums at most `n` scores (a piece is at least a byte), so where
    /// `n * max_abs` stays below RESET no sum can leave it: no check at every position (most
    /// texts: 4000 bytes with scores down to -25). The 1% covers float rounding: `max_abs >= 5`
    /// (the unknown piece scores `min - 10`), so `n < 20000` and the sums' relative error stays
    /// under `n * 2^-24 < 0.2%`.
    fn may_rebase(&self, n: usize) -> bool {
        n as f64 * self.max_abs * 1.01 >= RESET as f64
    }

    /// `viterbi`, checking for a re-base at every position or not (`rebase`).
    fn viterbi_with(&self, s: &[u8], rebase: bool, scratch: &mut UnigramScratch, out: &mut Vec<Span>) {
        let n = s.len();
        if n == 0 {
            return;
        }
        scratch.text.clear();
        scratch.text.extend_from_slice(s);
        scratch.text.push(0xFF);
        self.forward_all(&scratch.text, rebase, &mut scratch.best);
        let best = &scratch.best;
        let first = out.len();
        let mut end = n;
        while end > 0 {
            let b = best[end];
            let (id, len) = match b.id & UNK_TAG {
                0 => self.id_len(b.id),
                _ => (self.unk_id, (b.id & !UNK_TAG) as usize),
            };
            let start = end - len;
            out.push(Span { start: start as u32, end: end as u32, id });
            end = start;
        }
        out[first..].reverse();
    }

    /// The ids of the best segmentation of the normalized bytes `padded[..n]`, where `padded`
    /// ends in one 0xFF byte after them (see `forward_all`; the caller's buffer holds it, so
    /// the text is not copied), appended to `out` as `SentencePiece` emits spans: an unknown
    /// character as the ids of its bytes (`bytes`: the byte fallback's ids) or, without byte
    /// fallback, a run of them as one unknown id. The same search as `viterbi`, without the
    /// spans (the backtrace writes ids; most callers want only those).
    pub fn viterbi_ids(
        &self,
        padded: &[u8],
        bytes: Option<&[u32; 256]>,
        scratch: &mut UnigramScratch,
        out: &mut Vec<u32>,
    ) {
        assert!(padded.last() == Some(&0xFF), "viterbi_ids: the text must end in a 0xFF byte");
        let n = padded.len() - 1;
        if n == 0 {
            return;
        }
        let s = &padded[..n];
        self.forward_all(padded, self.may_rebase(n), &mut scratch.best);
        let best = &scratch.best;
        let first = out.len();
        let (mut end, mut prev_unk) = (n, false);
        // Backwards, so a run of unknowns keeps its last one (the same id) and a fallen-back
        // character its bytes reversed: the whole is reversed at the end.
        while end > 0 {
            let w = best[end].id;
            if w & UNK_TAG == 0 {
                let (id, len) = self.id_len(w);
                out.push(id);
                end -= len;
                prev_unk = false;
                continue;
            }
            let start = end - (w & !UNK_TAG) as usize;
            match bytes {
                Some(b) => out.extend(s[start..end].iter().rev().map(|&x| b[x as usize])),
                None if !prev_unk => out.push(self.unk_id),
                None => {}
            }
            prev_unk = true;
            end = start;
        }
        out[first..].reverse();
    }

    /// The piece id and length in bytes of a `Best` id that is not `UNK_TAG`.
    #[inline(always)]
    fn id_len(&self, w: u32) -> (u32, usize) {
        if self.packed {
            (w & ID_BITS, (w >> LEN_SHIFT & (UNK_TAG - 1) >> LEN_SHIFT) as usize)
        } else {
            let id = w & !SINGLE_BIT;
            (id, self.lens[id as usize] as usize)
        }
    }

    /// Viterbi's forward pass over the text `padded[..n]` (not empty; `padded[n]` is 0xFF)
    /// into `best`.
    fn forward_all(&self, padded: &[u8], rebase: bool, best: &mut Vec<Best>) {
        let n = padded.len() - 1;
        best.clear();
        // Unreached positions score -inf: every candidate sum is finite (a score is finite and
        // `here` is within +-RESET), so "first candidate, else a strictly better one" is one
        // comparison.
        // (Their id is an unknown byte: were one ever read back, the backtrace still ends.)
        best.resize(n + 1, Best { score: f32::NEG_INFINITY, id: UNK_TAG | 1 });
        best[0].score = 0.0;
        if let (Some(p), false) = (&self.pull, rebase) {
            return self.forward_pull(p, &padded[..n], best);
        }
        // The text ends in a byte no piece holds (pieces are UTF-8 strings), so a walk stops
        // there by itself: no bound is needed where a character's length cannot reach past
        // the end, all but the last 4 bytes (the longest piece's length was the margin before,
        // so a line's last 16 bytes or so took the bounded walk).
        let free = n.saturating_sub(4);
        let pos = match rebase {
            true => self.forward::<true, false>(padded, best, 0, free),
            false => self.forward::<false, false>(padded, best, 0, free),
        };
        match rebase {
            true => self.forward::<true, true>(padded, best, pos, n),
            false => self.forward::<false, true>(padded, best, pos, n),
        };
    }

    /// Viterbi's forward pass over `s` (not empty) by end position, with the automaton `p`
    /// (see `Pull`): `best[j]` takes the best of the pieces ending at `j`, longest first, then
    /// the unknown node of the character ending at `j` (where no one-character piece covers
    /// it), each from the best path to its start. `best` is `s.len() + 1` entries, unreached
    /// (`-inf`) but `best[0]`. No re-base: the caller has checked none can happen.
    ///
    /// The same candidates in the same order as `forward`: a piece ending at `j` that starts
    /// where no character starts starts at an unreached position (pieces are UTF-8, so from a
    /// character start they step from character to character), scoring `-inf`.
    fn forward_pull(&self, p: &Pull, s: &[u8], best: &mut [Best]) {
        let n = s.len();
        assert!(n > 0 && best.len() == n + 1);
        let table = p.table.as_ptr().cast::<u32>();
        let (mut row, mut cs, mut ce) = (0usize, 0usize, one_char_len(s[0]).min(n));
        // `best[j - 1].score`, kept from the step before (not read back from memory: the
        // one-byte candidate is on the loop's critical path).
        let mut prev = best[0].score;
        // `best[cs].score`, likewise (the unknown node's start).
        let mut at_cs = prev;
        for j in 1..=n {
            // SAFETY: a row offset is a state's number times the row's width, and a row holds
            // `STATE_U32S` words then one entry per class.
            row = unsafe { *table.add(row + STATE_U32S + p.class[s[j - 1] as usize] as usize) } as usize;
            // Pieces end only where characters do: a piece is UTF-8, so from a character start
            // it steps from character to character; one ending elsewhere starts where none
            // starts, at an unreached position (`-inf`). Those positions stay unreached.
            if j != ce {
                prev = f32::NEG_INFINITY;
                continue;
            }
            // SAFETY: every row starts with its state, on a cache line.
            let st = unsafe { &*table.add(row).cast::<PullState>() };
            let mut t = best[j];
            let mut offer = |o: &Out| {
                // SAFETY: a piece ending at a state is at most as long as the state's string,
                // a suffix of the `j` bytes read.
                debug_assert!(o.len as usize <= j);
                keep_better(&mut t, o.score + unsafe { best.get_unchecked(j - o.len as usize).score }, o.id);
            };
            for o in &st.first {
                offer(o);
            }
            if st.over.1 != 0 {
                let (start, count) = st.over;
                for o in &p.outs[start as usize..(start + count) as usize] {
                    offer(o);
                }
            }
            let (score, id) = st.one;
            keep_better(&mut t, score + prev, id);
            if st.single as usize != j - cs {
                let cand = self.unk_score + at_cs;
                if cand > t.score {
                    t = Best { score: cand, id: UNK_TAG | (ce - cs) as u32 };
                }
            }
            cs = ce;
            if cs < n {
                ce = cs + one_char_len(s[cs]).min(n - cs);
            }
            best[j] = t;
            prev = t.score;
            at_cs = t.score;
        }
    }

    /// Viterbi's forward pass from the character at `pos` (reached) over those starting before
    /// `end`; returns where the next character starts. `padded` is the text and a 0xFF byte.
    /// `REBASE`: re-base far-off sums as sentencepiece; `BOUNDED`: walks stop at the text's
    /// end (else more than 4 bytes are left at every position before `end`).
    #[inline(always)]
    fn forward<const REBASE: bool, const BOUNDED: bool>(
        &self,
        padded: &[u8],
        best: &mut [Best],
        mut pos: usize,
        end: usize,
    ) -> usize {
        let (n, s) = (padded.len() - 1, padded);
        assert!(best.len() == n + 1 && end <= n && padded[n] == 0xFF);
        let units = &self.links[..];
        // The same length as `units`, so that a unit's bounds check covers its value.
        let vals = &self.vals[..units.len()];
        let root = units[0].base as usize;
        let mut carried: Option<f32> = None;
        while pos < end {
            // SAFETY: `pos < end <= n < best.len()`.
            let mut here = match carried {
                Some(h) => h,
                None => unsafe { best.get_unchecked(pos).score },
            };
            if REBASE && here.abs() > RESET {
                // sentencepiece 0.2.3 re-bases far-off sums (float precision on long texts):
                // every reached position from here on drops the same offset. Nothing beyond
                // `max_len` is reached yet, and unreached ones stay -inf.
                for b in &mut best[pos..=(pos + self.max_len).min(n)] {
                    b.score -= here;
                }
                here = 0.0;
            }
            // SAFETY: `pos < n == s.len()`.
            let lead = unsafe { *s.get_unchecked(pos) };
            // Unbounded, `n - pos > 4`: the character fits.
            let mblen = if BOUNDED { one_char_len(lead).min(n - pos) } else { one_char_len(lead) };
            // SAFETY: `pos < n`, `s.len() == n + 1` and `best.len() == n + 1`. A walk cannot
            // step onto the 0xFF at `n` (no piece holds that byte), so it reads at most up to
            // it and writes at most `best[n]`, and the two first steps of an unbounded walk
            // write `best[pos + 2] < best[n]`: no bound (one compare a step fewer in the
            // hottest loop). Near the end (the character's length) it stops after `n - pos`.
            let (covered, first) = unsafe {
                let (text, ends) = (s.as_ptr().add(pos), best.as_mut_ptr().add(pos + 1));
                if BOUNDED {
                    (walk::<true>(units, vals, text, ends, n - pos, here, (0, root, 0)), 0.0)
                } else {
                    walk_paired(units, vals, &self.pairs, text, ends, here)
                }
            };
            // The next position's path score, where it is the entry the walk's first step just
            // wrote (an ASCII character): from the register, not read back from memory.
            carried = (!BOUNDED && !REBASE && mblen == 1).then_some(first);
            if covered & SINGLE_BIT == 0 {
                let cand = self.unk_score + here;
                let t = &mut best[pos + mblen];
                if cand > t.score {
                    *t = Best { score: cand, id: UNK_TAG | mblen as u32 };
                    carried = None;
                }
            }
            pos += mblen;
        }
        pos
    }

    /// sentencepiece's `PopulateNodes` over `s`.
    fn lattice(&self, s: &[u8]) -> Lattice {
        // Byte offset of each character, plus the end.
        let mut surface = Vec::with_capacity(s.len() + 1);
        let mut p = 0;
        while p < s.len() {
            surface.push(p);
            p += one_char_len(s[p]).min(s.len() - p);
        }
        surface.push(s.len());
        let chars = surface.len() - 1;
        // Characters from a start to a byte end (rounded up, as `get_chars_length`).
        let mut char_end = vec![0u32; s.len() + 1];
        let mut c = 0;
        for (b, slot) in char_end.iter_mut().enumerate() {
            while surface[c] < b {
                c += 1;
            }
            *slot = c as u32;
        }
        let blank = Node { id: NONE, pos: 0, len: 0, start: 0, end: 0, score: 0.0, backtrace: 0.0 };
        let mut lat = Lattice {
            nodes: vec![blank, Node { pos: chars as u32, start: s.len() as u32, end: s.len() as u32, ..blank }],
            begin: vec![Vec::new(); chars + 1],
            end: vec![Vec::new(); chars + 1],
            chars,
        };
        lat.end[0].push(0);
        lat.begin[chars].push(1);
        for begin in 0..chars {
            let start = surface[begin];
            let mut has_single = false;
            let mut node = 0u32;
            for (k, &b) in s[start..].iter().enumerate() {
                node = match self.trie.step(node, b) {
                    Some(t) => t,
                    None => break,
                };
                let Some(v) = self.trie.value(node) else { continue };
                let bend = start + k + 1;
                let len = char_end[bend] - begin as u32;
                let (id, score) = if v & USER_BIT == 0 {
                    (v, self.scores[v as usize])
                } else {
                    (v & !USER_BIT, user_score(len as usize))
                };
                has_single |= len == 1;
                lat.insert(Node {
                    id,
                    pos: begin as u32,
                    len,
                    start: start as u32,
                    end: surface[begin + len as usize] as u32,
                    score,
                    backtrace: 0.0,
                });
            }
            if !has_single {
                let end = surface[begin + 1] as u32;
                lat.insert(Node {
                    id: self.unk_id,
                    pos: begin as u32,
                    len: 1,
                    start: start as u32,
                    end,
                    score: self.unk_score,
                    backtrace: 0.0,
                });
            }
        }
        lat
    }

    /// The `k` best segmentations of `s` with their scores, best first (sentencepiece's
    /// `NBestEncode`: `k` is clamped to 1..=1024 and 1 is the optimized Viterbi with score 0).
    pub fn nbest(&self, s: &[u8], k: usize, scratch: &mut UnigramScratch) -> Vec<(Vec<Span>, f32)> {
        let k = k.clamp(1, 1024);
        if s.is_empty() {
            return vec![(Vec::new(), 0.0)];
        }
        if k == 1 {
            let mut out = Vec::new();
            self.viterbi(s, scratch, &mut out);
            return vec![(out, 0.0)];
        }
        let mut lat = self.lattice(s);
        lat.viterbi();
        lat.nbest(k).unwrap_or_else(|| vec![lat.best_path()])
    }

    /// One segmentation of `s` drawn from the whole lattice with path weights
    /// `exp(inv_theta * score)` (sentencepiece's `SampleEncode` for Unigram).
    pub fn sample(&self, s: &[u8], inv_theta: f32, rng: &mut Rng, out: &mut Vec<Span>) {
        if s.is_empty() {
            return;
        }
        let lat = self.lattice(s);
        let alpha = lat.forward(inv_theta);
        let first = out.len();
        let mut probs: Vec<f64> = Vec::new();
        let mut z = alpha[1];
        let mut node = 1usize;
        loop {
            let ends = &lat.end[lat.nodes[node].pos as usize];
            probs.clear();
            probs.extend(
                ends.iter().map(|&l| ((alpha[l as usize] + inv_theta * lat.nodes[l as usize].score - z) as f64).exp()),
            );
            node = ends[rng.pick(&probs)] as usize;
            if node == 0 {
                break;
            }
            z = alpha[node];
            let n = lat.nodes[node];
            out.push(Span { start: n.start, end: n.end, id: n.id });
        }
        out[first..].reverse();
    }
}

/// log(exp(x) + exp(y)) in sentencepiece's float precision (`LogSumExp`).
fn log_sum_exp(x: f32, y: f32, init: bool) -> f32 {
    if init {
        return y;
    }
    let (lo, hi) = if x < y { (x, y) } else { (y, x) };
    if hi > lo + 50.0 {
        hi
    } else {
        (hi as f64 + ((lo - hi) as f64).exp().ln_1p()) as f32
    }
}

impl Lattice {
    fn insert(&mut self, node: Node) {
        let i = self.nodes.len() as u32;
        self.begin[node.pos as usize].push(i);
        self.end[(node.pos + node.len) as usize].push(i);
        self.nodes.push(node);
    }

    /// Fills each node's `backtrace` (best score of a path from BOS through it).
    fn viterbi(&mut self) {
        for pos in 0..=self.chars {
            for &r in &self.begin[pos] {
                let rscore = self.nodes[r as usize].score;
                let mut best: Option<f32> = None;
                for &l in &self.end[pos] {
                    let score = self.nodes[l as usize].backtrace + rscore;
                    if best.is_none_or(|b| score > b) {
                        best = Some(score);
                    }
                }
                // Every end list is non-empty: each character starts a node of length one.
                self.nodes[r as usize].backtrace = best.unwrap_or(0.0);
            }
        }
    }

    /// Forward log-marginals per node (`ForwardAlgorithm`).
    fn forward(&self, inv_theta: f32) -> Vec<f32> {
        let mut alpha = vec![0.0f32; self.nodes.len()];
        for pos in 0..=self.chars {
            for &r in &self.begin[pos] {
                for (j, &l) in self.end[pos].iter().enumerate() {
                    let v = inv_theta * self.nodes[l as usize].score + alpha[l as usize];
                    alpha[r as usize] = log_sum_exp(alpha[r as usize], v, j == 0);
                }
            }
        }
        alpha
    }

    /// The Viterbi path (after `viterbi`) with its score: what sentencepiece returns when the
    /// n-best search gives up.
    fn best_path(&self) -> (Vec<Span>, f32) {
        // Backtrack by recomputing each node's best predecessor (first maximum, as `Viterbi`).
        let mut path = Vec::new();
        let mut node = 1usize;
        loop {
            let n = self.nodes[node];
            let mut best: Option<(f32, u32)> = None;
            for &l in &self.end[n.pos as usize] {
                let score = self.nodes[l as usize].backtrace + n.score;
                if best.is_none_or(|(b, _)| score > b) {
                    best = Some((score, l));
                }
            }
            let Some((_, prev)) = best else { break };
            if prev == 0 {
                break;
            }
            let p = self.nodes[prev as usize];
            path.push(Span { start: p.start, end: p.end, id: p.id });
            node = prev as usize;
        }
        path.reverse();
        (path, self.nodes[1].backtrace)
    }

    /// A* from EOS with exact heuristic (Viterbi scores), as sentencepiece's `NBest`; `None`
    /// where sentencepiece 0.2.3 falls back to the Viterbi path (more than 500000 hypotheses,
    /// or more than 10 agenda shrinks). Its 30 s wall-clock timeout is not reproduced.
    fn nbest(&self, k: usize) -> Option<Vec<(Vec<Span>, f32)>> {
        let mut hyps: Vec<Hyp> = vec![Hyp { node: 1, next: NONE, fx: self.nodes[1].backtrace, gx: 0.0 }];
        let mut agenda = Agenda::default();
        agenda.push(0, &hyps);
        let mut results = Vec::new();
        let min_agenda = 512.min(k * 10);
        let mut max_hyps = 100_000usize;
        let mut total = 1usize;
        let mut shrinks = 0;
        while let Some(top) = agenda.pop(&hyps) {
            let h = hyps[top as usize];
            if h.node == 0 {
                let mut path = Vec::new();
                let mut n = h.next;
                while hyps[n as usize].next != NONE {
                    let node = self.nodes[hyps[n as usize].node as usize];
                    path.push(Span { start: node.start, end: node.end, id: node.id });
                    n = hyps[n as usize].next;
                }
                results.push((path, h.fx));
                if results.len() == k {
                    break;
                }
                continue;
            }
            let ends = &self.end[self.nodes[h.node as usize].pos as usize];
            for &l in ends {
                let ln = &self.nodes[l as usize];
                hyps.push(Hyp { node: l, next: top, fx: ln.backtrace + h.gx, gx: ln.score + h.gx });
                agenda.push(hyps.len() as u32 - 1, &hyps);
            }
            total += ends.len();
            if total >= 500_000 || hyps.len() >= 500_000 {
                return None;
            }
            // Long or repetitive inputs grow the agenda without bound: keep the best ones, as
            // sentencepiece does (same sizes, same pop order), and drop unreachable hypotheses.
            if agenda.heap.len() >= 10_000 || (agenda.heap.len() > min_agenda && hyps.len() >= max_hyps) {
                if shrinks >= 10 {
                    return None;
                }
                shrinks += 1;
                let keep = agenda.heap.len().min(min_agenda);
                let mut fresh = Agenda::default();
                let mut new_hyps: Vec<Hyp> = Vec::new();
                let mut moved: rustc_hash::FxHashMap<u32, u32> = Default::default();
                for _ in 0..keep {
                    let Some(old) = agenda.pop(&hyps) else { break };
                    let new = clone_chain(old, &hyps, &mut new_hyps, &mut moved);
                    fresh.push(new, &new_hyps);
                }
                agenda = fresh;
                hyps = new_hyps;
                max_hyps = hyps.len() + 100_000;
            }
        }
        Some(results)
    }
}

/// Copies hypothesis `old` and its `next` chain into `new`, sharing already copied links.
fn clone_chain(old: u32, hyps: &[Hyp], new: &mut Vec<Hyp>, moved: &mut rustc_hash::FxHashMap<u32, u32>) -> u32 {
    let mut chain = Vec::new();
    let mut cur = old;
    let mut tail = NONE;
    while cur != NONE {
        if let Some(&m) = moved.get(&cur) {
            tail = m;
            break;
        }
        chain.push(cur);
        cur = hyps[cur as usize].next;
    }
    for &c in chain.iter().rev() {
        new.push(Hyp { next: tail, ..hyps[c as usize] });
        tail = new.len() as u32 - 1;
        moved.insert(c, tail);
    }
    tail
}

/// A max-heap on `fx` with libstdc++'s `push_heap`/`pop_heap` steps, so that equal priorities
/// pop in the same order as sentencepiece's `std::priority_queue` (n-best ties and duplicate
/// paths depend on it).
#[derive(Default)]
struct Agenda {
    heap: Vec<u32>,
}

impl Agenda {
    fn less(hyps: &[Hyp], a: u32, b: u32) -> bool {
        hyps[a as usize].fx < hyps[b as usize].fx
    }

    fn sift_up(&mut self, mut hole: usize, top: usize, value: u32, hyps: &[Hyp]) {
        while hole > top {
            let parent = (hole - 1) / 2;
            if !Self::less(hyps, self.heap[parent], value) {
                break;
            }
            self.heap[hole] = self.heap[parent];
            hole = parent;
        }
        self.heap[hole] = value;
    }

    fn push(&mut self, h: u32, hyps: &[Hyp]) {
        self.heap.push(h);
        let hole = self.heap.len() - 1;
        self.sift_up(hole, 0, h, hyps);
    }

    fn pop(&mut self, hyps: &[Hyp]) -> Option<u32> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        let top = self.heap[0];
        if n > 1 {
            // libstdc++ `__pop_heap` + `__adjust_heap` over the first n - 1 slots.
            let value = self.heap[n - 1];
            self.heap[n - 1] = top;
            let len = n - 1;
            let mut hole = 0usize;
            let mut child = 0usize;
            while child < (len - 1) / 2 {
                child = 2 * (child + 1);
                if Self::less(hyps, self.heap[child], self.heap[child - 1]) {
                    child -= 1;
                }
                self.heap[hole] = self.heap[child];
                hole = child;
            }
            if len & 1 == 0 && child == (len - 2) / 2 {
                child = 2 * (child + 1);
                self.heap[hole] = self.heap[child - 1];
                hole = child - 1;
            }
            self.sift_up(hole, 0, value, hyps);
        }
        self.heap.pop();
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spm::proto::{ModelType, NormalizerSpec, Piece, TrainerSpec};

    pub(crate) fn proto(pieces: &[(&str, f32, PieceType)]) -> ModelProto {
        ModelProto {
            pieces: pieces.iter().map(|&(p, s, k)| Piece { piece: p.into(), score: s, kind: k }).collect(),
            trainer_spec: TrainerSpec { model_type: ModelType::Unigram, ..Default::default() },
            normalizer_spec: NormalizerSpec::default(),
            denormalizer_spec: None,
            extra: Vec::new(),
        }
    }

    use PieceType::{Normal as N, Unknown as U, Unused as X, UserDefined as D};

    fn seg(pieces: &[(&str, f32, PieceType)], text: &str) -> Vec<(String, u32)> {
        let m = Unigram::new(&proto(pieces), 0);
        let mut out = Vec::new();
        m.viterbi(text.as_bytes(), &mut UnigramScratch::default(), &mut out);
        out.iter().map(|s| (text[s.start as usize..s.end as usize].to_string(), s.id)).collect()
    }

    fn ids(v: &[(String, u32)]) -> Vec<u32> {
        v.iter().map(|p| p.1).collect()
    }

    #[test]
    fn trie_finds_every_key_and_nothing_else() {
        let words = ["a", "ab", "abc", "b", "\u{2581}x", "\u{2581}", "zz", "\u{ff}"];
        let keys: Vec<(&[u8], u32)> = words.iter().enumerate().map(|(i, w)| (w.as_bytes(), i as u32)).collect();
        let t = Trie::build(&keys);
        for (i, w) in words.iter().enumerate() {
            assert_eq!(t.get(w.as_bytes()), Some(i as u32), "{w}");
        }
        for w in ["", "abcd", "c", "z", "ba"] {
            assert_eq!(t.get(w.as_bytes()), None, "{w}");
        }
        assert_eq!(t.longest_prefix(b"abd"), Some((2, 1)));
    }

    #[test]
    fn equal_scores_keep_the_piece_starting_earliest() {
        // [ab] and [a, b] both score -2: "ab" reaches position 2 first and is kept.
        let p = [("<unk>", 0.0, U), ("a", -1.0, N), ("b", -1.0, N), ("ab", -2.0, N)];
        assert_eq!(ids(&seg(&p, "ab")), [3]);
        // A better path replaces it.
        let p = [("<unk>", 0.0, U), ("a", -1.0, N), ("b", -0.5, N), ("ab", -2.0, N)];
        assert_eq!(ids(&seg(&p, "ab")), [1, 2]);
    }

    #[test]
    fn uncovered_characters_get_unknown_nodes() {
        // "é" (2 bytes) has no piece of its own: an unknown node of min_score - 10.
        let p = [("<unk>", 0.0, U), ("a", -1.0, N), ("b", -30.0, N)];
        assert_eq!(seg(&p, "éa"), [("é".to_string(), 0), ("a".to_string(), 1)]);
        // A longer piece starting there does not cover it, yet always beats the unknown route
        // (every normal score >= min_score > min_score - 10 + anything).
        let p = [("<unk>", 0.0, U), ("a", -1.0, N), ("b", -30.0, N), ("éa", -35.0, N)];
        assert_eq!(ids(&seg(&p, "éa")), [3]);
    }

    #[test]
    fn unused_pieces_are_skipped_and_user_defined_win() {
        let p = [("<unk>", 0.0, U), ("a", -1.0, N), ("b", -1.0, N), ("ab", -0.1, X)];
        assert_eq!(ids(&seg(&p, "ab")), [1, 2]);
        let p = [("<unk>", 0.0, U), ("a", -1.0, N), ("b", -1.0, N), ("ab", -0.1, N), ("abab", -100.0, D)];
        // "abab" scores 0.3, "ab" -0.1: the user piece wins.
        assert_eq!(ids(&seg(&p, "abab")), [4]);
        assert_eq!(ids(&seg(&p, "ababa")), [4, 1]);
    }

    fn tiny() -> Unigram {
        Unigram::new(
            &proto(&[
                ("<unk>", 0.0, U),
                ("a", -1.0, N),
                ("b", -1.5, N),
                ("ab", -2.0, N),
                ("c", -1.0, N),
                ("bc", -2.2, N),
            ]),
            0,
        )
    }

    #[test]
    fn nbest_lists_all_paths_best_first() {
        // "abc": [ab,c] -3.0, [a,bc] -3.2, [a,b,c] -3.5.
        let m = tiny();
        let got = m.nbest(b"abc", 10, &mut UnigramScratch::default());
        let paths: Vec<(Vec<u32>, f32)> = got.iter().map(|(s, sc)| (s.iter().map(|x| x.id).collect(), *sc)).collect();
        assert_eq!(paths, [(vec![3, 4], -3.0), (vec![1, 5], -3.2), (vec![1, 2, 4], -3.5)]);
        // k = 1 is the Viterbi path with score 0, as sentencepiece.
        let one = m.nbest(b"abc", 1, &mut UnigramScratch::default());
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].1, 0.0);
        assert_eq!(one[0].0.iter().map(|s| s.id).collect::<Vec<_>>(), [3, 4]);
    }

    #[test]
    fn agenda_pops_like_libstdcxx_priority_queue() {
        // Interleaved pushes and pops with many equal priorities; the expected order is what
        // g++ 12's std::priority_queue<H*, vector<H*>, less-on-fx> printed for the same calls.
        let f = [1., 1., 1., 1., 1., 1., 1., 2., 2., 1., 3., 3., 2., 1., 1., 2., 3., 3., 2., 2.];
        let hyps: Vec<Hyp> =
            f.iter().enumerate().map(|(i, &fx)| Hyp { node: i as u32, next: NONE, fx, gx: 0.0 }).collect();
        let mut a = Agenda::default();
        let mut order = Vec::new();
        for i in 0..20u32 {
            a.push(i, &hyps);
            if i % 3 == 2 {
                order.extend(a.pop(&hyps));
            }
        }
        order.extend(std::iter::from_fn(|| a.pop(&hyps)));
        assert_eq!(order, [0, 1, 7, 10, 11, 16, 17, 8, 19, 18, 12, 15, 9, 3, 14, 5, 2, 6, 13, 4]);
    }

    /// Sampled path frequencies against the exact distribution exp(theta * score) / Z.
    #[test]
    fn lattice_sampling_matches_the_path_distribution() {
        let m = tiny();
        let theta = 1.0f32;
        let exact = [(-3.0f64), -3.2, -3.5].map(|s: f64| (theta as f64 * s).exp());
        let z: f64 = exact.iter().sum();
        let mut counts = [0usize; 3];
        let mut rng = Rng::new(7);
        let n = 20_000;
        for _ in 0..n {
            let mut out = Vec::new();
            m.sample(b"abc", theta, &mut rng, &mut out);
            let ids: Vec<u32> = out.iter().map(|s| s.id).collect();
            let k = match ids.as_slice() {
                [3, 4] => 0,
                [1, 5] => 1,
                [1, 2, 4] => 2,
                other => panic!("unexpected path {other:?}"),
            };
            counts[k] += 1;
        }
        let chi2: f64 = (0..3)
            .map(|k| {
                let e = exact[k] / z * n as f64;
                (counts[k] as f64 - e).powi(2) / e
            })
            .sum();
        assert!(chi2 < 13.8, "chi2 {chi2} counts {counts:?}"); // p = 0.001 with 2 dof
    }

    /// 3000 texts of up to `max - 1` atoms drawn from `atoms` (seeded).
    fn random_texts(seed: u64, atoms: &[&str], max: u64) -> Vec<String> {
        let mut rng = Rng::new(seed);
        (0..3000)
            .map(|_| {
                let len = rng.next_u64() % max;
                (0..len).map(|_| atoms[(rng.next_u64() % atoms.len() as u64) as usize]).collect()
            })
            .collect()
    }

    /// The forward pass without re-base checks (texts whose sums cannot reach them) gives the
    /// checking pass's segmentation: random texts over pieces with ties, user pieces, unknown
    /// characters and multi-byte characters, near the end and away from it.
    #[test]
    fn viterbi_without_rebase_checks_is_the_checking_one() {
        // (Without re-base checks: by the automaton, and by the walks.)
        let pieces: &[(&str, f32, PieceType)] = &[
            ("<unk>", 0.0, U),
            ("a", -1.0, N),
            ("b", -1.5, N),
            ("ab", -2.5, N),
            ("ba", -2.5, N),
            ("abab", -4.0, N),
            ("\u{2581}", -2.0, N),
            ("\u{2581}a", -2.0, N),
            ("\u{e9}", -3.0, N),
            ("a\u{e9}", -3.5, N),
            ("<u>", 0.0, D),
            ("\u{4e2d}\u{6587}", -6.0, N),
        ];
        let m = Unigram::new(&proto(pieces), 0);
        let walks = walks_only(&m);
        let atoms = ["a", "b", "\u{2581}", "\u{e9}", "<u>", "\u{4e2d}", "\u{6587}", "z", "\u{1f600}"];
        let mut scratch = UnigramScratch::default();
        for text in random_texts(11, &atoms, 40) {
            let (mut fast, mut walked, mut checked) = (Vec::new(), Vec::new(), Vec::new());
            m.viterbi_with(text.as_bytes(), false, &mut scratch, &mut fast);
            walks.viterbi_with(text.as_bytes(), false, &mut scratch, &mut walked);
            m.viterbi_with(text.as_bytes(), true, &mut scratch, &mut checked);
            assert_eq!(fast, checked, "{text:?}");
            assert_eq!(walked, checked, "{text:?}");
        }
    }

    /// The fast Viterbi (first two bytes from `pairs`, raw walks) against a plain one over the
    /// generic trie: random texts with pieces of one to four characters, leaves and inner
    /// nodes after two bytes, bytes no piece starts with, and characters of one to four bytes.
    #[test]
    fn viterbi_matches_a_plain_trie_walk() {
        let pieces: &[(&str, f32, PieceType)] = &[
            ("<unk>", 0.0, U),
            ("a", -1.0, N),
            ("b", -1.5, N),
            ("ab", -2.2, N),
            ("abc", -2.9, N),
            ("abca", -3.1, N),
            ("bc", -2.0, N),
            ("c", -2.5, N),
            ("\u{e9}", -3.0, N),
            ("\u{e9}a", -3.2, N),
            ("\u{4e2d}", -4.0, N),
            ("\u{4e2d}\u{6587}", -5.0, N),
            ("<u>", 0.0, D),
        ];
        // Also with a piece of 1100 bytes, too long to have its length packed with its id.
        let long = "z".repeat(1100);
        for extra in [None, Some((long.as_str(), -9.0, N))] {
            let pieces: Vec<_> = pieces.iter().copied().chain(extra).collect();
            let m = Unigram::new(&proto(&pieces), 0);
            assert_eq!(m.packed, extra.is_none());
            check_against_plain_walks(&m);
        }
    }

    /// `m` searching with the walks of `forward` only (as a model whose automaton is over
    /// budget does).
    fn walks_only(m: &Unigram) -> Unigram {
        Unigram { pull: None, ..m.clone() }
    }

    /// A model whose automaton would pass its budget gets none, and searches with the walks.
    #[test]
    fn an_automaton_over_budget_is_not_built() {
        let pieces: &[(&str, f32, PieceType)] = &[("<unk>", 0.0, U), ("a", -1.0, N), ("ab", -1.5, N), ("b", -2.0, N)];
        let m = Unigram::new(&proto(pieces), 0);
        let keys: Vec<(&[u8], Val)> =
            [(&b"a"[..], Val { score: -1.0, id: SINGLE_BIT | 1 }), (b"ab", Val { score: -1.5, id: 2 })].into();
        assert!(Pull::build(&keys, 1 << 20).is_some());
        assert!(Pull::build(&keys, 8).is_none());
        assert!(m.pull.is_some());
    }

    fn check_against_plain_walks(m: &Unigram) {
        assert!(m.pull.is_some());
        check_one(m);
        check_one(&walks_only(m));
    }

    fn check_one(m: &Unigram) {
        let plain = |s: &[u8]| -> Vec<Span> {
            let mut best: Vec<(f32, u32, usize)> = vec![(f32::NEG_INFINITY, 0, 0); s.len() + 1];
            best[0].0 = 0.0;
            let mut pos = 0;
            while pos < s.len() {
                let here = best[pos].0;
                let mblen = one_char_len(s[pos]).min(s.len() - pos);
                let (mut node, mut single) = (0u32, false);
                for (k, &b) in s[pos..].iter().enumerate() {
                    let Some(next) = m.trie.step(node, b) else { break };
                    node = next;
                    let Some(v) = m.trie.value(node) else { continue };
                    let (id, user) = (v & !USER_BIT, v & USER_BIT != 0);
                    let score = if user { user_score(k + 1) } else { m.scores[id as usize] };
                    single |= k + 1 == mblen;
                    if score + here > best[pos + k + 1].0 {
                        best[pos + k + 1] = (score + here, id, pos);
                    }
                }
                if !single && m.unk_score + here > best[pos + mblen].0 {
                    best[pos + mblen] = (m.unk_score + here, m.unk_id, pos);
                }
                pos += mblen;
            }
            let (mut out, mut end) = (Vec::new(), s.len());
            while end > 0 {
                let (_, id, start) = best[end];
                out.push(Span { start: start as u32, end: end as u32, id });
                end = start;
            }
            out.reverse();
            out
        };
        let atoms = ["a", "b", "c", "ab", "abc", "\u{e9}", "\u{4e2d}", "\u{6587}", "<u>", "z", "\u{1f600}", "\u{2581}"];
        // Bytes a normalizer's table could in principle write (it comes from the model): 0xFF,
        // the byte the walks stop at, and broken UTF-8, also at the text's end.
        let raw: [&[u8]; 7] = [b"a", b"ab", b"\xff", b"\xc3", b"\xe4\xb8", b"\x80", b"\xf0"];
        let mut rng = Rng::new(9);
        for _ in 0..3000 {
            let len = rng.next_u64() % 30;
            let text: Vec<u8> =
                (0..len).flat_map(|_| raw[(rng.next_u64() % raw.len() as u64) as usize].iter().copied()).collect();
            let mut fast = Vec::new();
            m.viterbi(&text, &mut UnigramScratch::default(), &mut fast);
            assert_eq!(fast, plain(&text), "{text:?}");
        }
        let mut scratch = UnigramScratch::default();
        for text in random_texts(5, &atoms, 60) {
            let mut fast = Vec::new();
            m.viterbi(text.as_bytes(), &mut scratch, &mut fast);
            assert_eq!(fast, plain(text.as_bytes()), "{text:?}");
            // The ids straight from the backtrace, as `SentencePiece::emit` makes them of spans.
            let fallback: [u32; 256] = std::array::from_fn(|b| 1000 + b as u32);
            for bytes in [None, Some(&fallback)] {
                let mut want = vec![7];
                let mut prev_unk = false;
                for sp in &fast {
                    let unk = sp.id == m.unk_id;
                    match bytes {
                        Some(b) if unk => want
                            .extend(text.as_bytes()[sp.start as usize..sp.end as usize].iter().map(|&x| b[x as usize])),
                        None if unk && prev_unk => {}
                        _ => want.push(sp.id),
                    }
                    prev_unk = unk;
                }
                let mut got = vec![7];
                let padded: Vec<u8> = text.bytes().chain([0xFF]).collect();
                m.viterbi_ids(&padded, bytes, &mut scratch, &mut got);
                assert_eq!(got, want, "{text:?} {}", bytes.is_some());
            }
        }
    }
}
