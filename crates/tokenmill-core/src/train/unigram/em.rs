//! The EM rounds: piece tries and per-word lattices, the E-step (forward-backward in fixed
//! point), Viterbi, the Bayesian M-step and likelihood-loss pruning.

use super::*;

// ---------------------------------------------------------------------------------------------
// Trie and lattices

/// A trie over pieces: dense first level, a hash map below.
pub(super) struct Trie {
    pub(super) root: Vec<u32>,
    pub(super) next: FxHashMap<u64, u32>,
    /// Piece id ending at each node, or `UNK_EDGE`.
    pub(super) piece: Vec<u32>,
}

impl Trie {
    pub(super) fn build(pieces: &[Vec<u32>], alphabet: usize) -> Trie {
        let mut t = Trie { root: vec![u32::MAX; alphabet], next: FxHashMap::default(), piece: Vec::new() };
        for (id, p) in pieces.iter().enumerate() {
            let mut node = u32::MAX;
            for (k, &c) in p.iter().enumerate() {
                let slot = if k == 0 {
                    &mut t.root[c as usize]
                } else {
                    t.next.entry(((node as u64) << 32) | c as u64).or_insert(u32::MAX)
                };
                if *slot == u32::MAX {
                    *slot = t.piece.len() as u32;
                    t.piece.push(UNK_EDGE);
                }
                node = *slot;
            }
            t.piece[node as usize] = id as u32;
        }
        t
    }

    /// Calls `f(length, piece id)` for each piece that starts `s`, shortest first.
    pub(super) fn prefixes(&self, s: &[u32], mut f: impl FnMut(usize, u32)) {
        let Some(&first) = s.first() else { return };
        let mut node = self.root[first as usize];
        let mut len = 1;
        while node != u32::MAX {
            let id = self.piece[node as usize];
            if id != UNK_EDGE {
                f(len, id);
            }
            if len == s.len() {
                break;
            }
            node = *self.next.get(&(((node as u64) << 32) | s[len] as u64)).unwrap_or(&u32::MAX);
            len += 1;
        }
    }
}

/// Top bit of an edge: the first edge of its start (every start has one, its shortest: a
/// one-character piece or an unknown edge), so starts are counted, not stored.
pub(super) const NEW_START: u32 = 1 << 31;
/// Low bits of an edge: the piece id, or `UNK_EDGE`.
pub(super) const ID_MASK: u32 = NEW_START - 1;

/// The lattices of `WORDS_PER_ITEM` consecutive words: each word's edges, by start then
/// length, one `u32` each (see `NEW_START`).
pub(super) struct Part {
    pub(super) edges: Vec<u32>,
    /// `offsets[k]..offsets[k + 1]` are the edges of the part's word `k`.
    pub(super) offsets: Vec<usize>,
}

/// Every word's lattice, in parts that threads take whole (never joined: no second copy).
pub(super) struct Lattices {
    pub(super) parts: Vec<Part>,
}

pub(super) fn edges_of(word: &[u32], trie: &Trie, out: &mut Vec<u32>) {
    for i in 0..word.len() {
        let at = out.len();
        let mut single = false;
        trie.prefixes(&word[i..], |len, id| {
            single |= len == 1;
            out.push(id);
        });
        if !single {
            out.insert(at, UNK_EDGE);
        }
        out[at] |= NEW_START;
    }
}

pub(super) fn items(n: usize) -> Vec<std::ops::Range<usize>> {
    (0..n).step_by(WORDS_PER_ITEM).map(|s| s..(s + WORDS_PER_ITEM).min(n)).collect()
}

impl Part {
    pub(super) fn word(&self, k: usize) -> &[u32] {
        &self.edges[self.offsets[k]..self.offsets[k + 1]]
    }
}

impl Lattices {
    pub(super) fn build(words: &Words, trie: &Trie, threads: usize) -> Result<Lattices, CoreError> {
        let parts = parallel_map(&items(words.len()), threads, |r| {
            let mut edges = Vec::new();
            let mut offsets = Vec::with_capacity(r.len() + 1);
            offsets.push(0);
            for w in r.clone() {
                edges_of(words.word(w), trie, &mut edges);
                offsets.push(edges.len());
            }
            edges.shrink_to_fit();
            Ok(Part { edges, offsets })
        })?;
        Ok(Lattices { parts })
    }

    /// Renumbers edges in place with `remap` (old id -> new id, or `UNK_EDGE` when the piece
    /// is gone): gone pieces are dropped, a gone one-character piece becomes an unknown edge.
    pub(super) fn filter(&mut self, remap: &[u32], lens: &[u32], threads: usize) -> Result<(), CoreError> {
        let parts: Vec<&mut [Part]> = self.parts.iter_mut().map(std::slice::from_mut).collect();
        for_each_mut(parts, threads, |part| {
            let part = &mut part[0];
            let mut write = 0;
            let mut read_from = 0;
            for k in 0..part.offsets.len() - 1 {
                let read_to = part.offsets[k + 1];
                for r in read_from..read_to {
                    let e = part.edges[r];
                    let (flag, id) = (e & NEW_START, e & ID_MASK);
                    let new = if id == UNK_EDGE {
                        UNK_EDGE
                    } else if remap[id as usize] != UNK_EDGE {
                        remap[id as usize]
                    } else if lens[id as usize] == 1 {
                        UNK_EDGE
                    } else {
                        continue;
                    };
                    part.edges[write] = new | flag;
                    write += 1;
                }
                read_from = read_to;
                part.offsets[k + 1] = write;
            }
            part.edges.truncate(write);
            part.edges.shrink_to_fit();
        })?;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// EM

/// The digamma function: shift above 7, then the asymptotic series.
pub(super) fn digamma(mut x: f64) -> f64 {
    let mut result = 0.0;
    while x < 7.0 {
        result -= 1.0 / x;
        x += 1.0;
    }
    x -= 0.5;
    let xx = 1.0 / x;
    let xx2 = xx * xx;
    let xx4 = xx2 * xx2;
    result + x.ln() + xx2 / 24.0 - 7.0 / 960.0 * xx4 + 31.0 / 8064.0 * xx4 * xx2 - 127.0 / 30720.0 * xx4 * xx4
}

/// The current pieces.
pub(super) struct Model {
    pub(super) pieces: Vec<Vec<u32>>,
    pub(super) scores: Vec<f64>,
}

impl Model {
    pub(super) fn score(&self, id: u32, unk: f64) -> f64 {
        if id == UNK_EDGE {
            unk
        } else {
            self.scores[id as usize]
        }
    }

    pub(super) fn unk_score(&self) -> f64 {
        self.scores.iter().copied().fold(f64::INFINITY, f64::min) - UNK_PENALTY
    }

    /// Length of each piece in characters, and 1 for `UNK_EDGE` (the last entry is not
    /// used by ids; lookups of UNK_EDGE go through `len_of`).
    pub(super) fn lens(&self) -> Vec<u32> {
        self.pieces.iter().map(|p| p.len() as u32).collect()
    }
}

#[inline]
pub(super) fn len_of(id: u32, lens: &[u32]) -> usize {
    if id == UNK_EDGE {
        1
    } else {
        lens[id as usize] as usize
    }
}

#[derive(Default)]
pub(super) struct Scratch {
    pub(super) alpha: Vec<f64>,
    pub(super) beta: Vec<f64>,
    pub(super) scale: Vec<i32>,
    pub(super) back: Vec<u32>,
}

/// Rescaling step of the linear-domain forward-backward: values below 2^-256 are multiplied
/// by 2^256 (exact in binary floating point) and a per-word counter remembers it.
pub(super) const TINY: f64 = 8.636168555094445e-78; // 2^-256
pub(super) const BIG: f64 = 1.157920892373162e77; // 2^256

/// 2^(256 k), for the few small k a posterior needs (0 when it underflows).
pub(super) fn scale_pow(k: i32) -> f64 {
    match k {
        0 => 1.0,
        k if k < -3 => 0.0,
        k => BIG.powi(k),
    }
}

/// Expected piece counts (fixed point) and the objective (negative log-likelihood per word).
///
/// Forward-backward runs in the linear domain on probabilities (`exp(score)`), rescaled by
/// powers of two when small, so an edge costs a multiply-add instead of an `exp` and a `log`
/// (log-domain sums were 3-4x slower overall). The forward pass keeps one scale counter `g`:
/// a rescale at start `i` multiplies every position that can hold a value (`i..=i +
/// max_len`), so all live positions share `g`, and each position records `g` when it is
/// final. The backward pass does the same and computes posteriors as it goes, while the ends
/// it reads share its current counter.
pub(super) fn e_step(
    words: &Words,
    lat: &Lattices,
    model: &Model,
    max_len: usize,
    threads: usize,
) -> Result<(Vec<u64>, f64), CoreError> {
    let unk = model.unk_score();
    let lens = model.lens();
    let probs: Vec<f64> = model.scores.iter().map(|s| s.exp()).collect();
    let unk_p = unk.exp();
    let prob = |id: u32| if id == UNK_EDGE { unk_p } else { probs[id as usize] };
    let n = model.pieces.len();
    let total_count: f64 = words.counts.iter().map(|&c| c as f64).sum();
    let ln_big = BIG.ln();
    let part_ids: Vec<usize> = (0..lat.parts.len()).collect();
    // Per thread: expected counts; per part: its objective, summed in part order.
    let states = parallel_fold(
        &part_ids,
        threads,
        || (vec![0u64; n], Vec::<(usize, f64)>::new(), Scratch::default()),
        |(expected, per_part, sc), &pi| {
            let part = &lat.parts[pi];
            let mut obj = 0.0;
            for k in 0..part.offsets.len() - 1 {
                let w = pi * WORDS_PER_ITEM + k;
                let edges = part.word(k);
                let m = words.starts[w + 1] as usize - words.starts[w] as usize;
                let count = words.counts[w] as f64;
                let (alpha, beta, ga) = (&mut sc.alpha, &mut sc.beta, &mut sc.scale);
                alpha.clear();
                alpha.resize(m + 1, 0.0);
                alpha[0] = 1.0;
                ga.clear();
                ga.resize(m + 1, 0);
                let mut g = 0i32;
                let mut i = usize::MAX;
                for &e in edges {
                    if e & NEW_START != 0 {
                        i = i.wrapping_add(1);
                        if alpha[i] < TINY {
                            for v in &mut alpha[i..=(i + max_len).min(m)] {
                                *v *= BIG;
                            }
                            g += 1;
                        }
                        ga[i] = g;
                    }
                    let id = e & ID_MASK;
                    alpha[i + len_of(id, &lens)] += alpha[i] * prob(id);
                }
                ga[m] = g;
                let z = alpha[m];
                if !(z > 0.0 && z.is_finite()) {
                    return Err(CoreError::Internal(format!("word {w}: likelihood {z} is not a positive number")));
                }
                let gz = ga[m];
                obj -= (z.ln() - gz as f64 * ln_big) * count / total_count;
                beta.clear();
                beta.resize(m + 1, 0.0);
                beta[m] = 1.0;
                let mut gb = 0i32;
                let mut i = m - 1;
                let weight = count * FIXED / z;
                for &e in edges.iter().rev() {
                    let id = e & ID_MASK;
                    let v = prob(id) * beta[i + len_of(id, &lens)];
                    beta[i] += v;
                    if id != UNK_EDGE {
                        let post = alpha[i] * v * weight * scale_pow(gz - ga[i] - gb);
                        expected[id as usize] += post.round() as u64;
                    }
                    if e & NEW_START != 0 {
                        // Start `i` is complete: rescale its window if it got small.
                        if beta[i] < TINY {
                            for v in &mut beta[i..=(i + max_len).min(m)] {
                                *v *= BIG;
                            }
                            gb += 1;
                        }
                        i = i.wrapping_sub(1);
                    }
                }
            }
            per_part.push((pi, obj));
            Ok(())
        },
    )?;
    let mut expected = vec![0u64; n];
    let mut per_part = Vec::new();
    for (e, p, _) in states {
        for (a, b) in expected.iter_mut().zip(e) {
            *a = a.saturating_add(b);
        }
        per_part.extend(p);
    }
    per_part.sort_unstable_by_key(|p| p.0);
    let objective = per_part.iter().map(|p| p.1).sum();
    Ok((expected, objective))
}

/// Viterbi over one word's edges: calls `f(piece id)` for each piece of the best path (last
/// first). Ties: the edge met first wins.
pub(super) fn viterbi(
    edges: &[u32],
    m: usize,
    model: &Model,
    unk: f64,
    lens: &[u32],
    sc: &mut Scratch,
    mut f: impl FnMut(u32),
) {
    sc.alpha.clear();
    sc.alpha.resize(m + 1, f64::NEG_INFINITY);
    sc.alpha[0] = 0.0;
    sc.back.clear();
    sc.back.resize(m + 1, UNK_EDGE);
    let mut i = usize::MAX;
    for &e in edges {
        if e & NEW_START != 0 {
            i = i.wrapping_add(1);
        }
        let id = e & ID_MASK;
        let end = i + len_of(id, lens);
        let v = sc.alpha[i] + model.score(id, unk);
        if v > sc.alpha[end] {
            sc.alpha[end] = v;
            sc.back[end] = id;
        }
    }
    let mut pos = m;
    while pos > 0 {
        let id = sc.back[pos];
        f(id);
        pos -= len_of(id, lens);
    }
}

/// M-step: which pieces stay (expected count >= 0.5) and their new scores.
pub(super) fn m_step(model: &Model, expected: &[u64]) -> (Vec<bool>, Vec<f64>) {
    let freq: Vec<f64> = expected.iter().map(|&e| e as f64 / FIXED).collect();
    let keep: Vec<bool> = freq.iter().map(|&f| f >= 0.5).collect();
    let total: f64 = freq.iter().zip(&keep).filter(|(_, &k)| k).map(|(f, _)| f).sum();
    let logsum = digamma(total);
    let scores = freq.iter().zip(&model.scores).map(|(&f, _)| digamma(f.max(0.5)) - logsum).collect();
    (keep, scores)
}

/// The best two segmentations of a piece (as piece-id lists) over `trie` (k-best Viterbi,
/// k = 2; ties: the candidate met first wins).
pub(super) fn nbest2(piece: &[u32], trie: &Trie, model: &Model, unk: f64) -> Vec<Vec<u32>> {
    let m = piece.len();
    // best[j]: up to two (score, previous position, rank there, piece id).
    let mut best: Vec<Vec<(f64, usize, usize, u32)>> = vec![Vec::new(); m + 1];
    best[0].push((0.0, 0, 0, UNK_EDGE));
    let mut ends: Vec<Vec<(usize, u32)>> = vec![Vec::new(); m + 1];
    for i in 0..m {
        let mut single = false;
        trie.prefixes(&piece[i..], |len, id| {
            single |= len == 1;
            ends[i + len].push((i, id));
        });
        if !single {
            ends[i + 1].push((i, UNK_EDGE));
        }
    }
    for j in 1..=m {
        let mut cands: Vec<(f64, usize, usize, u32)> = Vec::new();
        for &(i, id) in &ends[j] {
            for (rank, b) in best[i].iter().enumerate() {
                cands.push((b.0 + model.score(id, unk), i, rank, id));
            }
        }
        // Stable sort: equal scores keep the order met.
        cands.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        cands.truncate(2);
        best[j] = cands;
    }
    let mut out = Vec::new();
    for rank in 0..best[m].len() {
        let mut path = Vec::new();
        let (mut j, mut r) = (m, rank);
        while j > 0 {
            let (_, i, pr, id) = best[j][r];
            path.push(id);
            j = i;
            r = pr;
        }
        path.reverse();
        out.push(path);
    }
    out
}

/// One pruning round: which pieces stay.
pub(super) fn prune(
    words: &Words,
    lat: &Lattices,
    model: &Model,
    desired: usize,
    opts: &UnigramOptions,
    alphabet: usize,
) -> Result<(Vec<bool>, u64), CoreError> {
    let threads = opts.num_threads;
    let unk = model.unk_score();
    let lens = model.lens();
    let n = model.pieces.len();
    let trie = Trie::build(&model.pieces, alphabet);
    // Per piece: removable (its best segmentation is not itself), or its alternative.
    let ids: Vec<std::ops::Range<usize>> = (0..n).step_by(4096).map(|s| s..(s + 4096).min(n)).collect();
    let alts: Vec<Vec<(bool, Vec<u32>)>> = parallel_map(&ids, threads, |r| {
        Ok(r.clone()
            .map(|i| {
                let nb = nbest2(&model.pieces[i], &trie, model, unk);
                match nb.len() {
                    0 | 1 => (true, Vec::new()),
                    _ if nb[0].len() >= 2 => (false, Vec::new()),
                    _ => (true, nb[1].clone()),
                }
            })
            .collect())
    })?;
    drop(trie);
    let alts: Vec<(bool, Vec<u32>)> = alts.into_iter().flatten().collect();
    // Viterbi frequencies over the words.
    let part_ids: Vec<usize> = (0..lat.parts.len()).collect();
    let states = parallel_fold(
        &part_ids,
        threads,
        || (vec![0u64; n], Scratch::default()),
        |(freq, sc), &pi| {
            let part = &lat.parts[pi];
            for k in 0..part.offsets.len() - 1 {
                let w = pi * WORDS_PER_ITEM + k;
                let m = words.starts[w + 1] as usize - words.starts[w] as usize;
                let c = words.counts[w];
                viterbi(part.word(k), m, model, unk, &lens, sc, |id| {
                    if id != UNK_EDGE {
                        freq[id as usize] += c;
                    }
                });
            }
            Ok(())
        },
    )?;
    let mut freq = vec![0u64; n];
    for (f, _) in states {
        for (a, b) in freq.iter_mut().zip(f) {
            *a = a.saturating_add(b);
        }
    }
    let total_words: f64 = words.counts.iter().map(|&c| c as f64).sum();
    let sum: f64 = freq.iter().map(|&f| f as f64).sum();
    let logsum = sum.ln();
    let mut keep = vec![false; n];
    let mut kept = 0usize;
    let mut cands: Vec<(f64, usize)> = Vec::new();
    for i in 0..n {
        let (always, alt) = &alts[i];
        if freq[i] == 0 || !always {
            continue;
        }
        if alt.is_empty() {
            keep[i] = true;
            kept += 1;
            continue;
        }
        let f = freq[i] as f64;
        let logprob = f.ln() - logsum;
        let logsum_alt = (sum + f * (alt.len() as f64 - 1.0)).ln();
        let logprob_alt: f64 = alt
            .iter()
            .map(|&a| {
                let fa = if a == UNK_EDGE { 0.0 } else { freq[a as usize] as f64 };
                (fa + f).ln() - logsum_alt
            })
            .sum();
        cands.push((f / total_words * (logprob - logprob_alt), i));
    }
    cands.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal).then(a.1.cmp(&b.1)));
    let size = desired.max((opts.shrinking_factor * n as f64) as usize);
    for (_, i) in cands {
        if kept >= size {
            break;
        }
        keep[i] = true;
        kept += 1;
    }
    Ok((keep, freq.iter().sum()))
}

/// Keeps the pieces marked in `keep` (with `scores`), in their order; renumbers the lattices.
pub(super) fn apply(
    model: &mut Model,
    lat: &mut Lattices,
    keep: &[bool],
    scores: Option<Vec<f64>>,
    threads: usize,
) -> Result<(), CoreError> {
    let lens = model.lens();
    let mut remap = vec![UNK_EDGE; keep.len()];
    let mut next = 0u32;
    for (i, &k) in keep.iter().enumerate() {
        if k {
            remap[i] = next;
            next += 1;
        }
    }
    let new_scores = scores.unwrap_or_else(|| model.scores.clone());
    let old = std::mem::take(&mut model.pieces);
    model.pieces = old.into_iter().zip(keep).filter(|(_, &k)| k).map(|(p, _)| p).collect();
    model.scores = new_scores.into_iter().zip(keep).filter(|(_, &k)| k).map(|(s, _)| s).collect();
    lat.filter(&remap, &lens, threads)
}
