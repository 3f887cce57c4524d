//! LinMaxMatch (Song et al., "Fast WordPiece Tokenization", EMNLP 2021): WordPiece's greedy
//! longest-match-first in time linear in the word, with no backtracking on a miss.
//!
//! The vocabulary is a byte trie with two roots: `root` holds every token (a word's first
//! piece is looked up in the whole vocabulary, as Hugging Face does), `cont` holds the tokens
//! that start with the continuing prefix, without it (the pieces after the first). Each node
//! `v` has a failure link `fail(v)` and failure pops `pops(v)`: when the walk cannot go on
//! from `v`, the greedy answer for the text consumed so far is to emit `pops(v)` (the longest
//! tokens, in order) and continue from `fail(v)`, which stands for the rest of that text under
//! `cont`. `fail(v)` is NONE when no token starts there: the word is unknown. Computed once,
//! breadth first (both roots at depth 0), with the paper's recurrence:
//! - if `v` spells a token t: `pops(v) = [t]`, `fail(v) = cont`;
//! - else, for `v` = child of `u` by byte c: start from `z = fail(u)` with `pops(v) = pops(u)`;
//!   while `z` has no child by c, append `pops(z)` and go to `fail(z)`; `fail(v)` is that child
//!   (NONE if `z` ran out).
//!
//! Bytes, not characters: a token is valid UTF-8, so no node inside a character spells a
//! token, and every pop ends on a character boundary; each pop carries its length in characters
//! for offsets. The trie is a double array: one step reads one (base, check) pair, and a pop
//! of a single token (the common case) reads one node record, so each is one cache line.
//!
//! Why a budget: `pops` lists can add up to (nodes x depth) in contrived vocabularies (a long
//! token whose every prefix is not one, over single-character tokens); past `POP_BUDGET` the
//! model keeps its hash-map search instead (`WordPiece` decides). What this module does not do:
//! unknown-word handling, `max_input_chars_per_word` (the caller's), normalization.

pub(crate) const NONE: u32 = u32::MAX;

/// Failure pops allowed per trie node on average, plus a floor; beyond, no LinMax trie.
const POP_BUDGET_PER_NODE: usize = 8;
const POP_BUDGET_FLOOR: usize = 1 << 20;

/// The trie with failure links and pops, in double-array form. Immutable.
#[derive(Debug, Clone)]
pub(crate) struct LinMax {
    /// Per position (base, check): the child of position p by byte b is `base(p) + b`, if
    /// `check` there is p.
    units: Vec<[u32; 2]>,
    /// Per position [failure link, start of its pops in `items`, number of pops, first pop's id].
    info: Vec<[u32; 4]>,
    /// (token id, length in characters of the piece it covers).
    items: Vec<(u32, u32)>,
    pub(crate) root: u32,
    pub(crate) cont: u32,
}

/// The pointer trie the double array is built from: first-child / next-sibling lists, built
/// from sorted keys so that children come in byte order without sorting or hashing.
struct Build {
    first_child: Vec<u32>,
    last_child: Vec<u32>,
    next_sibling: Vec<u32>,
    label: Vec<u8>,
    token: Vec<(u32, u32)>,
}

impl Build {
    fn new(cap: usize) -> Self {
        let mut t = Build {
            first_child: Vec::with_capacity(cap),
            last_child: Vec::with_capacity(cap),
            next_sibling: Vec::with_capacity(cap),
            label: Vec::with_capacity(cap),
            token: Vec::with_capacity(cap),
        };
        t.node(0);
        t.node(0);
        t
    }

    fn node(&mut self, label: u8) -> u32 {
        let n = self.label.len() as u32;
        self.first_child.push(NONE);
        self.last_child.push(NONE);
        self.next_sibling.push(NONE);
        self.label.push(label);
        self.token.push((NONE, 0));
        n
    }

    /// Inserts keys sorted by bytes (each with its id and length in characters) under `root`.
    fn insert_sorted(&mut self, root: u32, keys: &[(&[u8], u32, u32)]) {
        let mut path: Vec<u32> = vec![root];
        let mut prev: &[u8] = &[];
        for &(key, id, chars) in keys {
            let lcp = prev.iter().zip(key).take_while(|(a, b)| a == b).count();
            path.truncate(lcp + 1);
            for &b in &key[lcp..] {
                let parent = *path.last().unwrap_or(&root);
                let c = self.node(b);
                match self.last_child[parent as usize] {
                    NONE => self.first_child[parent as usize] = c,
                    l => self.next_sibling[l as usize] = c,
                }
                self.last_child[parent as usize] = c;
                path.push(c);
            }
            let end = *path.last().unwrap_or(&root);
            self.token[end as usize] = (id, chars);
            prev = key;
        }
    }

    fn children(&self, n: u32) -> impl Iterator<Item = (u8, u32)> + '_ {
        let mut c = self.first_child[n as usize];
        std::iter::from_fn(move || {
            if c == NONE {
                return None;
            }
            let r = (self.label[c as usize], c);
            c = self.next_sibling[c as usize];
            Some(r)
        })
    }
}

/// The free positions of the double array: "the first free position at or after i" in
/// near-constant time (a union-find over taken runs), so placing 100k nodes takes milliseconds.
struct FreeSlots {
    /// `next[i]`: i when free, else a position at or before the next free one.
    next: Vec<u32>,
    high: usize,
}

impl FreeSlots {
    fn new(cap: usize) -> Self {
        FreeSlots { next: (0..cap as u32).collect(), high: 0 }
    }

    fn grow(&mut self, i: usize) {
        if self.next.len() <= i + 1 {
            let from = self.next.len() as u32;
            let to = (i + 2).max(2 * self.next.len()) as u32;
            self.next.extend(from..to);
        }
    }

    fn is_free(&self, i: usize) -> bool {
        self.next.get(i).is_none_or(|&x| x as usize == i)
    }

    fn next(&mut self, i: usize) -> usize {
        self.grow(i);
        let mut r = i;
        while self.next[r] as usize != r {
            r = self.next[r] as usize;
            if r + 1 >= self.next.len() {
                self.grow(r);
            }
        }
        // Path compression.
        let mut j = i;
        while self.next[j] as usize != j {
            let k = self.next[j] as usize;
            self.next[j] = r as u32;
            j = k;
        }
        r
    }

    fn take(&mut self, i: usize) {
        self.grow(i);
        self.next[i] = i as u32 + 1;
        self.high = self.high.max(i + 1);
    }

    fn high_water(&self) -> usize {
        self.high
    }
}

impl LinMax {
    /// Builds the trie of `sorted`, (token, id) pairs sorted by bytes with no token twice, with
    /// continuing prefix `prefix`; None when the failure pops would exceed the budget.
    pub(crate) fn from_sorted(sorted: &[(&str, u32)], prefix: &str) -> Option<Self> {
        let (root, cont) = (0u32, 1u32);
        let initial: Vec<(&[u8], u32, u32)> =
            sorted.iter().map(|&(t, id)| (t.as_bytes(), id, t.chars().count() as u32)).collect();
        // Stripping a common prefix keeps the order: these are sorted too.
        let continuing: Vec<(&[u8], u32, u32)> = sorted
            .iter()
            .filter_map(|&(t, id)| t.strip_prefix(prefix).filter(|r| !r.is_empty()).map(|r| (r, id)))
            .map(|(r, id)| (r.as_bytes(), id, r.chars().count() as u32))
            .collect();
        // At most one node per key byte, plus the two roots.
        let cap = initial.iter().chain(&continuing).map(|k| k.0.len()).sum::<usize>() + 2;
        let mut t = Build::new(cap);
        t.insert_sorted(root, &initial);
        t.insert_sorted(cont, &continuing);
        let n = t.label.len();
        // Breadth-first order from both roots (depth 0 each): failure links point to shallower
        // nodes, so they are known before they are needed. From here on a node is named by its
        // breadth-first rank k: the children of k are then the ranks `kid[k]..kid[k + 1]`, a
        // range (no list walking), and every per-node array is read front to back.
        let mut order: Vec<u32> = Vec::with_capacity(n);
        let mut kid: Vec<u32> = Vec::with_capacity(n + 1);
        order.extend([root, cont]);
        let mut i = 0;
        while i < order.len() {
            kid.push(order.len() as u32);
            let u = order[i];
            order.extend(t.children(u).map(|(_, v)| v));
            i += 1;
        }
        kid.push(order.len() as u32);
        let label: Vec<u8> = order.iter().map(|&u| t.label[u as usize]).collect();
        let token: Vec<(u32, u32)> = order.iter().map(|&u| t.token[u as usize]).collect();
        drop(t);
        let kids = |k: usize| kid[k] as usize..kid[k + 1] as usize;
        // Placement order: parents by the smallest token id below them (then breadth first).
        // Why: vocabularies number their frequent tokens first (BERT's whole words, BPE merge
        // order), so the nodes most text walks through land together at the front of the
        // array, nearer in cache than breadth-first order leaves them. A parent's smallest id
        // is at most its children's, so parents still come before their children.
        let mut min_id = vec![NONE; n];
        for k in (0..n).rev() {
            min_id[k] = kids(k).map(|c| min_id[c]).fold(token[k].0, u32::min);
        }
        // One integer key per parent (smallest id, then breadth-first rank): a plain sort.
        let mut place: Vec<u64> =
            (0..n).filter(|&k| !kids(k).is_empty()).map(|k| (u64::from(min_id[k]) << 32) | k as u64).collect();
        super::radix_sort(&mut place, |&k| k);
        // Double-array placement: each node's children go where all of their slots are free;
        // roots at 0 and 1, every base >= 2 so no step lands on them.
        let mut pos = vec![NONE; n];
        pos[0] = 0;
        pos[1] = 1;
        // Why 2n: the array ends up a little longer than the node count (no growing it slot by slot).
        let mut free = FreeSlots::new(2 * n + 512);
        free.take(0);
        free.take(1);
        let mut base_of = vec![0u32; n];
        for &key in &place {
            let k = key as u32 as usize;
            let labels = &label[kids(k)];
            let c0 = labels[0] as usize;
            let mut q = free.next(2 + c0);
            let mut tries = 0;
            let b = loop {
                let b = q - c0;
                if labels.iter().all(|&c| free.is_free(b + c as usize)) {
                    break b;
                }
                // Why the cap: a node with many children rarely fits the sparse holes near the
                // front; past the high-water mark every slot is free, so that always fits.
                tries += 1;
                q = if tries > 8 { free.next(free.high_water().max(q + 1)) } else { free.next(q + 1) };
            };
            base_of[k] = b as u32;
            for c in kids(k) {
                let p = b + label[c] as usize;
                free.take(p);
                pos[c] = p as u32;
            }
        }
        let len = free.high_water() + 256;
        let mut lm = LinMax {
            units: vec![[0, NONE]; len],
            info: vec![[NONE, 0, 0, NONE]; len],
            items: Vec::with_capacity(2 * n),
            root: 0,
            cont: 1,
        };
        for k in 0..n {
            let p = pos[k] as usize;
            lm.units[p][0] = base_of[k];
            for c in kids(k) {
                lm.units[pos[c] as usize][1] = p as u32;
            }
        }
        // Failure links and pops (module docstring), on the double array.
        let budget = POP_BUDGET_FLOOR + POP_BUDGET_PER_NODE * n;
        for k in 0..n {
            let pu = pos[k];
            for v in kids(k) {
                let c = label[v];
                let pv = pos[v] as usize;
                let (id, chars) = token[v];
                if id != NONE {
                    lm.info[pv] = [lm.cont, lm.items.len() as u32, 1, id];
                    lm.items.push((id, chars));
                    continue;
                }
                let start = lm.items.len();
                let [mut z, s, l, _] = lm.info[pu as usize];
                lm.items.extend_from_within(s as usize..(s + l) as usize);
                while z != NONE && lm.step(z, c) == NONE {
                    let [f, s, l, _] = lm.info[z as usize];
                    lm.items.extend_from_within(s as usize..(s + l) as usize);
                    z = f;
                }
                if z == NONE {
                    lm.items.truncate(start); // an unknown word: no pops needed
                } else {
                    let first = lm.items.get(start).map_or(NONE, |&(id, _)| id);
                    lm.info[pv] = [lm.step(z, c), start as u32, (lm.items.len() - start) as u32, first];
                }
                if lm.items.len() > budget {
                    return None;
                }
            }
        }
        Some(lm)
    }

    /// The child of position `p` by byte `b`, or NONE.
    #[inline(always)]
    pub(crate) fn step(&self, p: u32, b: u8) -> u32 {
        let t = self.base(p).wrapping_add(b as u32);
        match self.units.get(t as usize) {
            Some(u) if u[1] == p => t,
            _ => NONE,
        }
    }

    /// The base of position `p` (for `step_from`).
    #[inline(always)]
    pub(crate) fn base(&self, p: u32) -> u32 {
        self.units.get(p as usize).map_or(NONE, |u| u[0])
    }

    /// `step` when the base of `p` is at hand: the child `t` of `p` by `b` and the base of
    /// `t`, or (NONE, NONE). Why: the base of the child comes in the same read as its check,
    /// so a walk that keeps it needs one memory read per byte instead of two in a chain.
    #[inline(always)]
    pub(crate) fn step_from(&self, p: u32, base: u32, b: u8) -> (u32, u32) {
        let t = base.wrapping_add(b as u32);
        match self.units.get(t as usize) {
            Some(&[bt, check]) if check == p => (t, bt),
            _ => (NONE, NONE),
        }
    }

    /// Emits the failure pops of `p` (ids, and character spans from `*chars` on) and returns
    /// its failure link; NONE (nothing emitted) when the word is unknown.
    #[inline(always)]
    pub(crate) fn pop(
        &self,
        p: u32,
        ids: &mut Vec<u32>,
        mut spans: Option<&mut Vec<(u32, u32)>>,
        chars: &mut u32,
    ) -> u32 {
        let Some(&[f, s, l, _]) = self.info.get(p as usize) else { return NONE };
        if f == NONE {
            return NONE;
        }
        for &(id, n) in self.items.get(s as usize..(s + l) as usize).unwrap_or(&[]) {
            ids.push(id);
            if let Some(sp) = spans.as_deref_mut() {
                sp.push((*chars, *chars + n));
            }
            *chars += n;
        }
        f
    }

    /// The id of the token spelled by `key`: its node's pops are that one token and leave
    /// nothing (a node that is not a token needs two or more pops to be consumed whole).
    pub(crate) fn token_id(&self, key: &[u8]) -> Option<u32> {
        let mut p = self.root;
        for &b in key {
            p = self.step(p, b);
            if p == NONE {
                return None;
            }
        }
        let [f, _, l, id] = *self.info.get(p as usize)?;
        (p != self.root && f == self.cont && l == 1).then_some(id)
    }

    /// `pop` for the ids-only path: no spans, no character count.
    #[inline(always)]
    pub(crate) fn pop_ids(&self, p: u32, ids: &mut Vec<u32>) -> u32 {
        let Some(&[f, s, l, first]) = self.info.get(p as usize) else { return NONE };
        if l == 1 {
            ids.push(first);
        } else if f != NONE {
            ids.extend(self.items.get(s as usize..(s + l) as usize).unwrap_or(&[]).iter().map(|&(id, _)| id));
        }
        f
    }

    /// Greedy longest-match-first of a whole word: appends its ids (and spans); false when
    /// the word is unknown (the caller takes back what was appended).
    pub(crate) fn tokenize(&self, word: &[u8], ids: &mut Vec<u32>, mut spans: Option<&mut Vec<(u32, u32)>>) -> bool {
        let mut p = self.root;
        let mut base = self.base(p);
        let mut chars = 0u32;
        for &b in word {
            loop {
                let (t, bt) = self.step_from(p, base, b);
                if t != NONE {
                    (p, base) = (t, bt);
                    break;
                }
                p = self.pop(p, ids, spans.as_deref_mut(), &mut chars);
                if p == NONE {
                    return false;
                }
                base = self.base(p);
            }
        }
        self.finish(p, ids, spans, &mut chars)
    }

    /// The pops at the end of a word walked to `p`; false when the word is unknown.
    #[inline]
    pub(crate) fn finish(
        &self,
        mut p: u32,
        ids: &mut Vec<u32>,
        mut spans: Option<&mut Vec<(u32, u32)>>,
        chars: &mut u32,
    ) -> bool {
        while p != self.cont {
            p = self.pop(p, ids, spans.as_deref_mut(), chars);
            if p == NONE {
                return false;
            }
        }
        true
    }

    /// Positions in the double array (for tests and sizing).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.units.len()
    }
}

#[cfg(test)]
mod tests {
    use super::super::WordPiece;

    /// A tiny deterministic generator (xorshift), so failures reproduce.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            crate::testing::xorshift_step(&mut self.0)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn word(&mut self, alphabet: &[&str], max: usize) -> String {
            (0..1 + self.below(max)).map(|_| alphabet[self.below(alphabet.len())]).collect()
        }
    }

    type IdsSpans = (Vec<u32>, Vec<(u32, u32)>);

    fn both(m: &WordPiece, maps: &WordPiece, w: &str) -> [IdsSpans; 2] {
        let run = |m: &WordPiece| {
            let (mut ids, mut spans) = (vec![99], vec![(7, 7)]);
            m.tokenize_word(w, &mut ids, &mut spans);
            (ids, spans)
        };
        [run(m), run(maps)]
    }

    /// The trie gives exactly the hash-map search's ids and spans (HF's rule, tested against
    /// HF in the Python suite) on random vocabularies over small alphabets, where long
    /// partial matches, failure chains and unknown words are common. Prefixes "##", "" and "é".
    #[test]
    fn trie_equals_hash_search() {
        let alphabet = ["a", "b", "c", "#", "é", "中"];
        let mut rng = Rng(0x9e3779b97f4a7c15);
        for round in 0..300 {
            let prefix = ["##", "", "é"][round % 3];
            let mut vocab: Vec<String> = vec!["[UNK]".into()];
            for _ in 0..1 + rng.below(40) {
                let t = rng.word(&alphabet, 5);
                let t = if rng.below(2) == 0 { format!("{prefix}{t}") } else { t };
                if !vocab.contains(&t) {
                    vocab.push(t);
                }
            }
            let pairs: Vec<(String, u32)> = vocab.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
            let m = WordPiece::new(pairs.clone(), "[UNK]", prefix, 100).unwrap();
            let maps = WordPiece::with_maps_only(&pairs, "[UNK]", prefix, 100);
            assert!(m.linmax().is_some() && maps.linmax().is_none());
            for (t, id) in &pairs {
                assert_eq!(m.token_to_id(t), Some(*id));
            }
            for _ in 0..200 {
                let w = rng.word(&alphabet, 12);
                assert_eq!(m.token_to_id(&w), maps.token_to_id(&w), "{w:?}");
                let [a, b] = both(&m, &maps, &w);
                assert_eq!(a, b, "vocab {vocab:?} prefix {prefix:?} word {w:?}");
            }
        }
    }

    #[test]
    fn failure_chains() {
        // "abcd" is not a token: stuck after "abc" + "x", the pops are "a", "##bc" (longest at
        // each step), then "##x".
        let v = ["[UNK]", "a", "abc", "abcde", "##b", "##bc", "##c", "##x", "##d"];
        let v: Vec<(String, u32)> = v.iter().enumerate().map(|(i, t)| (t.to_string(), i as u32)).collect();
        let m = WordPiece::new(v.clone(), "[UNK]", "##", 100).unwrap();
        let maps = WordPiece::with_maps_only(&v, "[UNK]", "##", 100);
        let [a, b] = both(&m, &maps, "abcdx");
        assert_eq!(a, b);
        assert_eq!(a.0, vec![99, 2, 8, 7]);
        assert_eq!(both(&m, &maps, "abcdq")[0].0, vec![99, 0]);
        assert_eq!(both(&m, &maps, "abcde")[0].0, vec![99, 3]);
        assert_eq!(both(&m, &maps, "abcd")[0], (vec![99, 2, 8], vec![(7, 7), (0, 3), (3, 4)]));
        assert_eq!((m.token_to_id("abcd"), m.token_to_id("ab"), m.token_to_id("##bc")), (None, None, Some(5)));
    }

    /// A contrived vocabulary whose failure pops grow with the square of the token length
    /// still loads (the trie stays within its budget or falls back) and gives the same answer.
    #[test]
    fn long_chains_stay_bounded() {
        let mut v: Vec<String> = vec!["[UNK]".into(), "a".into(), "##a".into()];
        v.push("a".repeat(300) + "b");
        let v: Vec<(String, u32)> = v.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
        let m = WordPiece::new(v.clone(), "[UNK]", "##", 1000).unwrap();
        let maps = WordPiece::with_maps_only(&v, "[UNK]", "##", 1000);
        let w = "a".repeat(299);
        let [a, b] = both(&m, &maps, &w);
        assert_eq!(a, b);
        assert_eq!(a.0.len(), 300);
    }

    #[test]
    #[ignore]
    fn time_bert() {
        let data = std::fs::read_to_string("/work/shared/data/hf/bert-base-uncased/vocab.txt").unwrap();
        let mut v: Vec<(&str, u32)> = data.lines().enumerate().map(|(i, t)| (t, i as u32)).collect();
        let t = std::time::Instant::now();
        v.sort_unstable();
        let lm = super::LinMax::from_sorted(&v, "##").unwrap();
        eprintln!("{:?} len {} items {}", t.elapsed(), lm.len(), lm.items.len());
    }
}
