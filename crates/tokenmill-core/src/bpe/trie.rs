//! What `backtrack` needs to know about the tokens a piece may hold (those made only of the
//! piece's bytes: `Vocab::trie_within`): which tokens are reachable (BPE of a token's bytes gives the
//! token itself; no other token can appear in any encoding), a byte trie of those for the
//! longest token that starts a text and the next shorter one, and each reachable token's
//! merge history (the ranks of the merges that build it, in order, and which of them change
//! its first or its last part), from which `backtrack` decides whether two tokens may stand
//! side by side without merging a single byte sequence.
//!
//! What it does not do: the search itself, or any encoding. The rank lookup is passed in, so
//! that this sits below `vocab`.

use std::sync::atomic::AtomicU8;
use std::sync::atomic::Ordering::Relaxed;

use rustc_hash::FxHashMap;

use crate::types::Rank;

/// No token.
const NONE: Rank = Rank::MAX;

/// An event of a merge history changes the token's first part.
pub const FIRST: u8 = 1;
/// An event of a merge history changes the token's last part.
pub const LAST: u8 = 2;

/// Tokens are named by their index here (`Local`), in the order given to `new`: the tables
/// stay as small as the token set (a run of a few distinct bytes has a few hundred tokens in
/// a vocabulary of 200,000).
pub type Local = u32;

#[derive(Debug)]
pub struct TokenTrie {
    /// Node reached by each first byte (`u32::MAX` for bytes of no token here).
    root: [u32; 256],
    /// `node << 8 | byte` -> child node.
    edges: FxHashMap<u64, u32>,
    /// Token ending at each node, or `NONE`.
    token: Vec<Local>,
    /// Per token: `(rank, length in bytes, next shorter token that is a prefix or NONE,
    /// where its merge history starts in `events`)`; one more entry ends the last history.
    info: Vec<(Rank, u32, Local, u32)>,
    /// Every merge history: the merged token (= the merge's rank) and `FIRST`/`LAST` flags.
    events: Vec<(Rank, u8)>,
    /// Per token, filled in by `backtrack` as it learns them: whether some token here may
    /// follow it (`CONTINUES`), or none (`ENDS`), or not known yet (0). Atomic because the
    /// trie is shared between threads; every thread computes the same value.
    follow: Vec<AtomicU8>,
    /// When every token here is a run of one byte (the tries of long runs of one character:
    /// spaces, tabs, `a`): entry `k` is the longest token of at most `k` bytes (`NONE` if
    /// there is none), up to the longest token. `longest` then reads it instead of walking the
    /// trie: a text searched here is a run of that byte. Empty otherwise.
    run: Vec<Local>,
    /// When the tokens here use at most `DENSE_BYTES` distinct bytes (the tries of long runs
    /// of a few bytes: ` \n`, `\t `, `ab`): each byte's column (`NO_COLUMN` for bytes of no
    /// token), and `node * columns + column` -> child node (`u32::MAX`: none), so that
    /// `longest` reads an array instead of hashing at every step. Empty otherwise.
    column: Vec<u8>,
    columns: usize,
    dense: Vec<u32>,
    /// With `dense` and at most `FOLLOW_BY_TOKENS` tokens: entry `t * columns + column` is what
    /// is known of the tokens that start with that column's byte and may follow `t` (as
    /// `follow`, per first byte), and `first` each token's first byte. Empty otherwise.
    follow_by: Vec<AtomicU8>,
    first: Vec<u8>,
}

/// Tries whose tokens use at most this many distinct bytes get `TokenTrie::dense`.
const DENSE_BYTES: usize = 16;
/// Tries of at most this many tokens get `TokenTrie::follow_by`. Learning an entry that says
/// "none" reads every token with that first byte: cheap for the tokens of a run of two or
/// three bytes in turn (a few dozen), not for those of random text over eight letters
/// (thousands), whose first passes ran at half speed with it.
const FOLLOW_BY_TOKENS: usize = 256;
/// `TokenTrie::column` of a byte that no token here holds.
const NO_COLUMN: u8 = u8::MAX;

/// `TokenTrie::follow`: some token may follow this one.
pub const CONTINUES: u8 = 1;
/// `TokenTrie::follow`: no token may follow this one (it can only end a text).
pub const ENDS: u8 = 2;

impl Clone for TokenTrie {
    fn clone(&self) -> Self {
        TokenTrie {
            root: self.root,
            edges: self.edges.clone(),
            token: self.token.clone(),
            info: self.info.clone(),
            events: self.events.clone(),
            follow: self.follow.iter().map(|f| AtomicU8::new(f.load(Relaxed))).collect(),
            run: self.run.clone(),
            column: self.column.clone(),
            columns: self.columns,
            dense: self.dense.clone(),
            follow_by: self.follow_by.iter().map(|f| AtomicU8::new(f.load(Relaxed))).collect(),
            first: self.first.clone(),
        }
    }
}

impl TokenTrie {
    /// The tables for the reachable ones among `tokens` (`(rank, bytes)`), given the rank of
    /// any byte string. Texts searched must hold only bytes that are among the tokens.
    pub fn new(tokens: &[(Rank, &[u8])], rank: impl Fn(&[u8]) -> Option<Rank>) -> Self {
        let mut trie = TokenTrie {
            root: [u32::MAX; 256],
            edges: FxHashMap::default(),
            token: Vec::new(),
            info: Vec::new(),
            events: Vec::new(),
            follow: Vec::new(),
            run: Vec::new(),
            column: Vec::new(),
            columns: 0,
            dense: Vec::new(),
            follow_by: Vec::new(),
            first: Vec::new(),
        };
        let mut reachable = Vec::with_capacity(tokens.len());
        for &(r, bytes) in tokens {
            let start = trie.events.len();
            if history(bytes, &rank, &mut trie.events) == Some(r) {
                reachable.push(bytes);
                trie.info.push((r, bytes.len() as u32, NONE, start as u32));
            } else {
                trie.events.truncate(start);
            }
        }
        trie.info.push((NONE, 0, NONE, trie.events.len() as u32));
        trie.follow = (0..reachable.len()).map(|_| AtomicU8::new(0)).collect();
        for (t, bytes) in reachable.iter().enumerate() {
            let mut node = trie.child_or_insert(None, bytes[0]);
            for &b in &bytes[1..] {
                node = trie.child_or_insert(Some(node), b);
            }
            trie.token[node as usize] = t as Local;
        }
        // Only the tries of a set of one byte are runs of one byte: every byte of a set is a
        // token here (`Vocab::new` requires all 256), and a single byte is always reachable.
        let one_byte = reachable.first().map(|b| b[0]);
        if one_byte.is_some() && reachable.iter().all(|b| b.iter().all(|&x| Some(x) == one_byte)) {
            let longest = reachable.iter().map(|b| b.len()).max().unwrap_or(0);
            trie.run = vec![NONE; longest + 1];
            for (t, bytes) in reachable.iter().enumerate() {
                trie.run[bytes.len()] = t as Local;
            }
            for k in 1..trie.run.len() {
                if trie.run[k] == NONE {
                    trie.run[k] = trie.run[k - 1];
                }
            }
        }
        let mut column = vec![NO_COLUMN; 256];
        let mut columns = 0;
        for &b in reachable.iter().flat_map(|b| b.iter()) {
            if column[b as usize] == NO_COLUMN {
                column[b as usize] = columns as u8;
                columns += 1;
                if columns > DENSE_BYTES {
                    break;
                }
            }
        }
        if (1..=DENSE_BYTES).contains(&columns) {
            trie.dense = vec![u32::MAX; trie.token.len() * columns];
            for (&edge, &child) in &trie.edges {
                let (node, b) = ((edge >> 8) as usize, edge as u8);
                trie.dense[node * columns + column[b as usize] as usize] = child;
            }
            trie.column = column;
            trie.columns = columns;
            if reachable.len() <= FOLLOW_BY_TOKENS {
                trie.follow_by = (0..reachable.len() * columns).map(|_| AtomicU8::new(0)).collect();
                trie.first = reachable.iter().map(|b| b[0]).collect();
            }
        }
        for (t, bytes) in reachable.iter().enumerate() {
            let mut node = trie.root[bytes[0] as usize];
            for &b in &bytes[1..] {
                if trie.token[node as usize] != NONE {
                    trie.info[t].2 = trie.token[node as usize];
                }
                node = trie.edges[&((node as u64) << 8 | b as u64)];
            }
        }
        trie
    }

    fn child_or_insert(&mut self, node: Option<u32>, b: u8) -> u32 {
        let next = self.token.len() as u32;
        let slot = match node {
            None => &mut self.root[b as usize],
            Some(node) => self.edges.entry((node as u64) << 8 | b as u64).or_insert(u32::MAX),
        };
        if *slot == u32::MAX {
            *slot = next;
            self.token.push(NONE);
        }
        *slot
    }

    /// The longest token that `text` (non-empty) starts with.
    #[inline]
    pub fn longest(&self, text: &[u8]) -> Local {
        if !self.run.is_empty() {
            return self.run[text.len().min(self.run.len() - 1)];
        }
        let mut node = self.root[text[0] as usize];
        let mut best = self.token[node as usize];
        if !self.dense.is_empty() {
            let columns = self.columns;
            for &b in &text[1..] {
                let c = self.column[b as usize];
                if c == NO_COLUMN {
                    break;
                }
                match self.dense[node as usize * columns + c as usize] {
                    u32::MAX => break,
                    child => node = child,
                }
                let t = self.token[node as usize];
                if t != NONE {
                    best = t;
                }
            }
            return best;
        }
        for &b in &text[1..] {
            match self.edges.get(&((node as u64) << 8 | b as u64)) {
                Some(&child) => node = child,
                None => break,
            }
            let t = self.token[node as usize];
            if t != NONE {
                best = t;
            }
        }
        best
    }

    /// Rank of token `t`.
    #[inline]
    pub fn rank(&self, t: Local) -> Rank {
        self.info[t as usize].0
    }

    /// Length in bytes of token `t`.
    #[inline]
    pub fn len(&self, t: Local) -> usize {
        self.info[t as usize].1 as usize
    }

    /// The longest token shorter than `t` that is a prefix of it, or `Local::MAX`.
    #[inline]
    pub fn shorter(&self, t: Local) -> Local {
        self.info[t as usize].2
    }

    /// Number of tokens.
    pub fn n_tokens(&self) -> usize {
        self.follow.len()
    }

    /// What is known of the tokens starting with byte `b` that may follow `t` (`CONTINUES`,
    /// `ENDS` or 0), if this trie keeps that (see `follow_by`).
    #[inline]
    pub fn follow_by(&self, t: Local, b: u8) -> Option<&AtomicU8> {
        let c = *self.column.get(b as usize)?;
        if c == NO_COLUMN {
            return None;
        }
        self.follow_by.get(t as usize * self.columns + c as usize)
    }

    /// The first byte of token `t`, if this trie keeps it (see `follow_by`).
    #[inline]
    pub fn first(&self, t: Local) -> Option<u8> {
        self.first.get(t as usize).copied()
    }

    /// What is known of the tokens that may follow `t` (`CONTINUES`, `ENDS` or 0).
    #[inline]
    pub fn follow(&self, t: Local) -> &AtomicU8 {
        &self.follow[t as usize]
    }

    /// The merge history of token `t` (empty for a single byte).
    #[inline]
    pub fn history(&self, t: Local) -> &[(Rank, u8)] {
        &self.events[self.info[t as usize].3 as usize..self.info[t as usize + 1].3 as usize]
    }
}

/// Runs the merge rule on `bytes` from single bytes (the plain O(n^2) form: tokens are
/// short), appending each merge to `events` as `(merged token, FIRST | LAST flags)`; returns
/// the single token it ends with, if it ends with one.
fn history(bytes: &[u8], rank: &impl Fn(&[u8]) -> Option<Rank>, events: &mut Vec<(Rank, u8)>) -> Option<Rank> {
    // Part k is bytes[starts[k]..starts[k + 1]]; pairs[k] ranks parts k and k + 1 joined.
    let mut starts: Vec<usize> = (0..=bytes.len()).collect();
    let pair = |starts: &[usize], k: usize| rank(&bytes[starts[k]..starts[k + 2]]).unwrap_or(NONE);
    let mut pairs: Vec<Rank> = (0..bytes.len().saturating_sub(1)).map(|k| pair(&starts, k)).collect();
    while let Some((k, &r)) = pairs.iter().enumerate().min_by_key(|&(k, &r)| (r, k)).filter(|(_, &r)| r != NONE) {
        let flags = if k == 0 { FIRST } else { 0 } | if k + 1 == pairs.len() { LAST } else { 0 };
        events.push((r, flags));
        starts.remove(k + 1);
        pairs.remove(k);
        if k < pairs.len() {
            pairs[k] = pair(&starts, k);
        }
        if k > 0 {
            pairs[k - 1] = pair(&starts, k - 1);
        }
    }
    (starts.len() == 2).then(|| rank(bytes)).flatten()
}
