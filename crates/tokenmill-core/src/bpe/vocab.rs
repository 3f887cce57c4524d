//! The vocabulary of a byte-level BPE: token bytes <-> rank (= token id).
//!
//! One arena holds every token's bytes; the id table indexes into it, and two hash tables go
//! the other way: a `table::TokenTable` with inline keys for tokens of up to 15 bytes (nearly
//! all of them, and every lookup on the hot path) and an ordinary map for the few longer ones.
//! Special tokens share the id table (so decoding is one lookup) but are kept out of the
//! mergeable map (BPE never produces them). Building it also precomputes what the merge loop
//! reads: byte and byte-pair ranks, which byte pairs can ever join, and the safe characters
//! (`chars`).
//!
//! What it does not do: merging (`merge`) or reading files (`formats`).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::chars;
use super::long_cache::LongCache;
use super::shared_cache::{self, SharedCache};
use super::trie::TokenTrie;
use crate::error::CoreError;
use crate::table::{self, TokenTable};

pub use crate::types::Rank;

/// Slots of the long-piece cache that go with `slots` of the short one: half as many, so that
/// it takes twice the memory (256-byte slots against 64), 8 MiB by default, and 2 MiB more
/// for its 1 KiB slots (`long_cache`). Why twice: a warm pass over 1.9 MB of fr/ja/zh text
/// (12,000 distinct long pieces) ran 157-162 MB/s with 16,384 slots, 178-187 with 32,768 and
/// 176-195 with 65,536 (cl100k, `profile_encode`).
fn long_slots(slots: usize) -> usize {
    slots / 2
}

/// How many unassigned ids (holes) a vocabulary may have in all.
pub const MAX_ID_GAP: usize = 1 << 20;

/// Marks an id with no token (a hole in a sparse vocabulary).
const HOLE: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct Vocab {
    /// The mergeable tokens of at most `table::MAX_KEY` bytes, inserted in rank order.
    short: TokenTable,
    long: FxHashMap<Box<[u8]>, Rank>,
    arena: Vec<u8>,
    /// `(offset, len)` into `arena` for each id; `len == HOLE` for unassigned ids.
    spans: Vec<(u32, u32)>,
    special: FxHashMap<String, Rank>,
    n_mergeable: usize,
    /// Rank of every two-byte token, indexed by `b0 << 8 | b1` (`Rank::MAX` if none): the
    /// first round of every merge looks up byte pairs, and a flat table beats hashing there.
    pair_ranks: Vec<Rank>,
    /// Bit `b0 << 8 | b1` is set when the bytes `b0 b1` occur next to each other inside some
    /// mergeable token: where they do not, no merge can ever join them (see `merge::split_points`).
    joinable: Vec<u64>,
    /// The same test by characters, next to a non-ASCII character (see `chars::CharJoins`).
    char_joins: chars::CharJoins,
    /// Both tests' result for pairs of characters below U+0800, worked out on first use.
    pair_cuts: chars::PairCuts,
    /// Rank of every single-byte token.
    byte_ranks: [Rank; 256],
    /// Per code point below U+10000: where its entry is in `char_infos`, if merging may start
    /// from the whole character in some context (see `chars`); else `u32::MAX`.
    char_index: Vec<u32>,
    char_infos: Vec<chars::CharInfo>,
    /// Tries for `backtrack`, one per byte set met (see `trie_within`).
    tries: TrieCache,
    /// Merged short pieces, across calls and threads (see `shared_cache`).
    shared: SharedCache,
    /// Merged long pieces, across calls and threads (see `long_cache`).
    long_shared: LongCache,
}

/// The last few tries `trie_within` built, by byte set. Cloning a vocabulary starts empty.
#[derive(Debug, Default)]
struct TrieCache(std::sync::Mutex<Vec<(ByteSet, Arc<TokenTrie>)>>);

impl Clone for TrieCache {
    fn clone(&self) -> Self {
        TrieCache::default()
    }
}

impl TrieCache {
    /// Byte sets kept (the oldest is dropped first).
    const MAX: usize = 16;
}

/// A set of byte values, one bit each.
pub type ByteSet = [u64; 4];

impl Vocab {
    /// Builds a vocabulary from mergeable `(bytes, rank)` pairs and `(text, id)` specials.
    ///
    /// Errors name the offending token: empty or duplicate tokens, duplicate ranks, a missing
    /// single-byte token (byte-level BPE must be able to encode any byte), a special token id
    /// that collides with a mergeable rank.
    pub fn new(mergeable: Vec<(Vec<u8>, Rank)>, specials: Vec<(String, Rank)>) -> Result<Self, CoreError> {
        if mergeable.is_empty() {
            return Err(CoreError::Vocab("empty vocabulary: no mergeable tokens".into()));
        }
        let max_rank = mergeable.iter().map(|(_, r)| *r).max().unwrap_or(0);
        let max_special = specials.iter().map(|(_, r)| *r).max().unwrap_or(0);
        let n = max_rank.max(max_special) as usize + 1;
        if max_rank == HOLE || max_special == HOLE {
            return Err(CoreError::Vocab(format!("token id {HOLE} is reserved; use ids below it")));
        }
        // Why a cap: the id table is dense, so one stray id near 2**32 would allocate gigabytes.
        let n_tokens = mergeable.len() + specials.len();
        if n > n_tokens + MAX_ID_GAP {
            return Err(CoreError::Vocab(format!(
                "largest token id is {} but there are only {n_tokens} tokens; ids must be dense \
                 (at most {MAX_ID_GAP} unassigned ids in all)",
                n - 1
            )));
        }
        let mut spans = vec![(0u32, HOLE); n];
        let mut arena = Vec::with_capacity(mergeable.iter().map(|(b, _)| b.len()).sum());
        // In rank order: the low ranks (the most frequent tokens) never spill from a line.
        let mut mergeable = mergeable;
        mergeable.sort_unstable_by_key(|&(_, rank)| rank);
        let mut short = TokenTable::for_this_cpu(mergeable.len());
        let mut long: FxHashMap<Box<[u8]>, Rank> = FxHashMap::default();
        let n_mergeable = mergeable.len();
        for (bytes, rank) in mergeable {
            if bytes.is_empty() {
                return Err(CoreError::Vocab(format!("mergeable token with rank {rank} is empty")));
            }
            if spans[rank as usize].1 != HOLE {
                return Err(CoreError::Vocab(format!(
                    "rank {rank} is assigned to two tokens: {:?} and {:?}",
                    escape_bytes(&arena[spans[rank as usize].0 as usize..][..spans[rank as usize].1 as usize]),
                    escape_bytes(&bytes)
                )));
            }
            spans[rank as usize] = (arena.len() as u32, bytes.len() as u32);
            arena.extend_from_slice(&bytes);
            let previous = match table::pack(&bytes) {
                Some(key) => short.insert(key, rank),
                None => long.insert(bytes.into_boxed_slice(), rank),
            };
            if let Some(prev) = previous {
                let b = &arena[spans[rank as usize].0 as usize..];
                return Err(CoreError::Vocab(format!(
                    "token {:?} appears twice, with ranks {prev} and {rank}",
                    escape_bytes(&b[..spans[rank as usize].1 as usize])
                )));
            }
        }
        let missing: Vec<String> = (0u8..=255)
            .filter(|b| table::pack(&[*b]).and_then(|k| short.get(k)).is_none())
            .map(|b| format!("0x{b:02x}"))
            .collect();
        if !missing.is_empty() {
            let shown = if missing.len() > 16 {
                format!("{} ... ({} in all)", missing[..16].join(", "), missing.len())
            } else {
                missing.join(", ")
            };
            return Err(CoreError::Vocab(format!(
                "single-byte tokens missing: {shown}; a byte-level BPE needs all 256 bytes as tokens"
            )));
        }
        let mut special = FxHashMap::default();
        for (text, id) in specials {
            if text.is_empty() {
                return Err(CoreError::Vocab(format!("special token with id {id} is empty")));
            }
            if special.contains_key(&text) {
                return Err(CoreError::Vocab(format!("special token {text:?} is listed twice")));
            }
            let is_alias = special.values().any(|v| *v == id);
            if spans[id as usize].1 != HOLE && !is_alias {
                let (o, l) = spans[id as usize];
                return Err(CoreError::Vocab(format!(
                    "special token {text:?} has id {id}, which is already the rank of ordinary token {:?}",
                    escape_bytes(&arena[o as usize..][..l as usize])
                )));
            }
            // Two special texts may share an id (tiktoken's o200k_harmony does): both encode to
            // it, and decoding gives the first one listed.
            if !is_alias {
                spans[id as usize] = (arena.len() as u32, text.len() as u32);
                arena.extend_from_slice(text.as_bytes());
            }
            special.insert(text, id);
        }
        let mut pair_ranks = vec![Rank::MAX; 1 << 16];
        for (pair, slot) in pair_ranks.iter_mut().enumerate() {
            if let Some(r) = short.get(table::pack(&[(pair >> 8) as u8, pair as u8]).unwrap_or_default()) {
                *slot = r;
            }
        }
        let mut byte_ranks = [0; 256];
        for (b, r) in byte_ranks.iter_mut().enumerate() {
            *r = short.get(table::pack(&[b as u8]).unwrap_or_default()).unwrap_or(Rank::MAX);
        }
        let mut vocab = Vocab {
            short,
            long,
            arena,
            spans,
            special,
            n_mergeable,
            pair_ranks,
            joinable: vec![0; 1 << 10],
            char_joins: Default::default(),
            pair_cuts: Default::default(),
            byte_ranks,
            char_index: Vec::new(),
            char_infos: Vec::new(),
            tries: TrieCache::default(),
            shared: SharedCache::default(),
            long_shared: LongCache::new(long_slots(shared_cache::DEFAULT_SLOTS)),
        };
        let mut joinable = vec![0u64; 1 << 10];
        let mut char_joins = chars::CharJoins::default();
        for t in (0..vocab.spans.len() as Rank).filter_map(|r| vocab.mergeable_bytes(r)) {
            for p in t.windows(2) {
                let k = (p[0] as usize) << 8 | p[1] as usize;
                joinable[k >> 6] |= 1 << (k & 63);
            }
            char_joins.add(t);
        }
        vocab.joinable = joinable;
        vocab.char_joins = char_joins;
        let tokens = (0..vocab.spans.len() as Rank).filter_map(|r| Some((vocab.mergeable_bytes(r)?, r)));
        (vocab.char_index, vocab.char_infos) = chars::safe_chars(tokens, |b| vocab.rank(b));
        Ok(vocab)
    }

    /// Rank of a mergeable token, if `bytes` is one.
    #[inline]
    pub fn rank(&self, bytes: &[u8]) -> Option<Rank> {
        match table::pack(bytes) {
            Some(key) => self.short.get_often_missing(key),
            None if bytes.len() > table::MAX_KEY => self.long.get(bytes).copied(),
            None => None,
        }
    }

    /// `rank(&bytes[start..end])`, without a branch on the length when 16 bytes of `bytes`
    /// follow `start` (see `table::pack_at`).
    #[inline]
    pub fn rank_at(&self, bytes: &[u8], start: usize, end: usize) -> Option<Rank> {
        match table::pack_at(bytes, start, end) {
            Some(key) => self.short.get_often_missing(key),
            None if end - start > table::MAX_KEY => self.long.get(&bytes[start..end]).copied(),
            None => None,
        }
    }

    /// The cache of merged short pieces this vocabulary's encoders share (see `shared_cache`).
    #[inline(always)]
    pub fn shared_cache(&self) -> &SharedCache {
        &self.shared
    }

    /// The cache of merged long pieces this vocabulary's encoders share (see `long_cache`).
    #[inline(always)]
    pub fn long_cache(&self) -> &LongCache {
        &self.long_shared
    }

    /// Replaces the shared caches with empty ones: `slots` slots for short pieces (0: no
    /// cache), and half as many for long ones (see `long_slots`).
    pub fn set_cache_slots(&mut self, slots: usize) {
        self.shared = SharedCache::new(slots);
        self.long_shared = LongCache::new(long_slots(slots));
    }

    /// Rank of the token whose packed key (`table::pack`) is `key`.
    #[inline]
    pub fn rank_of_key(&self, key: table::Key) -> Option<Rank> {
        self.short.get(key)
    }

    /// Bytes of mergeable token `r` (not a special token, not a hole).
    fn mergeable_bytes(&self, r: Rank) -> Option<&[u8]> {
        let b = self.token_bytes(r as u64)?;
        (self.rank(b) == Some(r)).then_some(b)
    }

    /// The token that merging may start from for the character at `piece[i..]`, with the
    /// character's length in bytes, if that is exact next to its neighbours (see `chars`).
    #[inline]
    pub fn char_rank(&self, piece: &[u8], i: usize) -> Option<(usize, Rank)> {
        let (n, cp) = chars::char_at(&piece[i..])?;
        let info = self.char_infos.get(*self.char_index.get(cp as usize)? as usize)?;
        let prev = i.checked_sub(1).map(|p| piece[p]);
        info.safe(prev, piece.get(i + n).copied()).then_some((n, info.rank))
    }

    /// The trie and merge histories (`trie`) of the tokens made only of bytes in `set`, for
    /// `backtrack` on a piece made of those bytes. Why per byte set rather than one trie of
    /// the whole vocabulary: that one costs 0.2-0.6 s to build (every token's merge history),
    /// while the tokens of a run of a few distinct bytes are a few hundred at most, found by
    /// one pass over the token bytes (under a millisecond); the last few sets are kept.
    pub fn trie_within(&self, set: &ByteSet) -> Arc<TokenTrie> {
        let mut cache = self.tries.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, trie)) = cache.iter().find(|(s, _)| s == set) {
            return trie.clone();
        }
        let within = |b: &u8| set[(b >> 6) as usize] >> (b & 63) & 1 == 1;
        // The byte test first: it rejects nearly every token at its first byte, before the
        // hash lookup that tells mergeable tokens from special ones.
        let tokens: Vec<(Rank, &[u8])> = (0..self.spans.len() as Rank)
            .filter(|&r| self.token_bytes(r as u64).is_some_and(|b| b.iter().all(within)))
            .filter_map(|r| Some((r, self.mergeable_bytes(r)?)))
            .collect();
        let trie = Arc::new(TokenTrie::new(&tokens, |b| self.rank(b)));
        if cache.len() == TrieCache::MAX {
            cache.remove(0);
        }
        cache.push((*set, trie.clone()));
        trie
    }

    /// Rank of the single-byte token `[b]` (every byte-level vocabulary has all 256).
    #[inline]
    pub fn byte_rank(&self, b: u8) -> Rank {
        self.byte_ranks[b as usize]
    }

    /// Rank of the two-byte token `[a, b]`, or `Rank::MAX`.
    #[inline]
    pub fn pair_rank(&self, a: u8, b: u8) -> Rank {
        self.pair_ranks[(a as usize) << 8 | b as usize]
    }

    /// True when the bytes `a b` occur next to each other inside some mergeable token.
    #[inline]
    pub fn joinable(&self, a: u8, b: u8) -> bool {
        let k = (a as usize) << 8 | b as usize;
        self.joinable[k >> 6] >> (k & 63) & 1 == 1
    }

    /// `merge::split_points`' rule: true when no token can span the boundary between
    /// characters `a` and `c` (code points, or `chars::NO_CHAR`) whose bytes there are `x`
    /// and `y`: no token holds the two bytes side by side, or (next to a non-ASCII
    /// character) none spans the two characters.
    #[inline(always)]
    pub fn unspanned(&self, a: u32, c: u32, x: u8, y: u8) -> bool {
        !self.joinable(x, y) || (x >= 0x80 || y >= 0x80) && !self.char_joins.spanned(a, c, x, y)
    }

    /// `unspanned` for characters `a` and `c` both below `chars::PAIR_CUTS_BELOW`, from the
    /// table of decisions (`chars::PairCuts`).
    #[inline(always)]
    pub fn cuts_between(&self, a: u32, c: u32) -> bool {
        self.pair_cuts.cut(a, c, |a, c| {
            let ((x, _), (_, y)) = (chars::edge_bytes(a), chars::edge_bytes(c));
            self.unspanned(a, c, x, y)
        })
    }

    /// The character-level test of `chars::CharJoins`.
    #[inline(always)]
    pub fn char_joins(&self) -> &chars::CharJoins {
        &self.char_joins
    }

    /// Bytes of token `id` (mergeable or special), or `None` for unknown ids.
    #[inline]
    pub fn token_bytes(&self, id: u64) -> Option<&[u8]> {
        let (o, l) = *self.spans.get(usize::try_from(id).ok()?)?;
        if l == HOLE {
            return None;
        }
        Some(&self.arena[o as usize..o as usize + l as usize])
    }

    /// Id of special token `text`.
    pub fn special_id(&self, text: &str) -> Option<Rank> {
        self.special.get(text).copied()
    }

    /// All special tokens, as `(text, id)`, sorted by id.
    pub fn specials(&self) -> Vec<(String, Rank)> {
        let mut v: Vec<_> = self.special.iter().map(|(k, v)| (k.clone(), *v)).collect();
        v.sort_by_key(|(_, id)| *id);
        v
    }

    /// True when `id` is a special token.
    pub fn is_special(&self, id: Rank) -> bool {
        !self.special.is_empty() && self.special.values().any(|v| *v == id)
    }

    /// Mergeable tokens as `(bytes, rank)`, sorted by rank.
    pub fn mergeable(&self) -> Vec<(Vec<u8>, Rank)> {
        let special: rustc_hash::FxHashSet<Rank> = self.special.values().copied().collect();
        (0..self.spans.len() as Rank)
            .filter(|r| !special.contains(r))
            .filter_map(|r| self.token_bytes(r as u64).map(|b| (b.to_vec(), r)))
            .collect()
    }

    /// Number of mergeable tokens.
    pub fn n_mergeable(&self) -> usize {
        self.n_mergeable
    }

    /// The table of short tokens.
    #[inline(always)]
    pub fn short_table(&self) -> &TokenTable {
        &self.short
    }

    /// One past the largest id (mergeable or special).
    pub fn n_vocab(&self) -> usize {
        self.spans.len()
    }

    /// Concatenated bytes of `ids`; the error names the first bad id and its position.
    pub fn decode_bytes(&self, ids: &[u32]) -> Result<Vec<u8>, CoreError> {
        let mut out = Vec::with_capacity(ids.len() * 4);
        for (position, &id) in ids.iter().enumerate() {
            match self.token_bytes(id as u64) {
                Some(b) => out.extend_from_slice(b),
                None => return Err(self.id_error(id as u64, position)),
            }
        }
        Ok(out)
    }

    /// The error for an unknown id at `position`.
    pub fn id_error(&self, id: u64, position: usize) -> CoreError {
        CoreError::TokenId { id, position, n_vocab: self.n_vocab() as u64 }
    }
}

/// Printable form of token bytes for error messages.
pub fn escape_bytes(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_string(),
        Err(_) => b
            .iter()
            .map(|c| if c.is_ascii_graphic() || *c == b' ' { (*c as char).to_string() } else { format!("\\x{c:02x}") })
            .collect(),
    }
}
