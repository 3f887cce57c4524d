//! Seed pieces: the characters plus the best right-maximal substrings of the distinct words,
//! found by a suffix sort (see the parent module doc).

use super::*;

// ---------------------------------------------------------------------------------------------
// Seeds

/// Ends every word in the seeding text; compares above every character.
pub(super) const SEP: u32 = u32::MAX;

/// Runs `f(index, part)` on each of `parts` on up to `threads` scoped threads (largest parts
/// first) and returns the results in part order.
pub(super) fn for_each_mut<T: Send, R: Send>(
    parts: Vec<&mut [T]>,
    threads: usize,
    f: impl Fn(&mut [T]) -> R + Sync,
) -> Result<Vec<R>, CoreError> {
    let n = parts.len();
    let mut queue: Vec<(usize, &mut [T])> = parts.into_iter().enumerate().collect();
    queue.sort_by_key(|(_, p)| p.len());
    let queue = std::sync::Mutex::new(queue);
    let results = std::sync::Mutex::new((0..n).map(|_| None).collect::<Vec<Option<R>>>());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1).min(n.max(1)) {
            s.spawn(|| loop {
                let next = match queue.lock() {
                    Ok(mut q) => q.pop(),
                    Err(_) => None,
                };
                let Some((i, part)) = next else { break };
                let r = f(part);
                if let Ok(mut res) = results.lock() {
                    res[i] = Some(r);
                }
            });
        }
    });
    let results = results.into_inner().map_err(|_| CoreError::Internal("a worker thread panicked".into()))?;
    results.into_iter().map(|r| r.ok_or_else(|| CoreError::Internal("a worker thread failed".into()))).collect()
}

/// Seed pieces as `(dense chars, frequency score)`: substrings only, best first.
///
/// The suffixes of the distinct words (each word ended by `SEP`) are sorted on their first
/// `max_piece_length + 1` characters: bucketed by first character, buckets sorted on threads.
/// One scan then yields the LCP intervals bottom-up (a stack of open intervals with the
/// prefix sum of word counts at their left bound) and the leaves, with no LCP or weight
/// arrays; candidates are kept to the best `seed_size` as they come (memory stays bounded).
pub(super) fn seed_substrings(
    words: &Words,
    info: &CharInfo,
    opts: &UnigramOptions,
) -> Result<Vec<(Vec<u32>, u64)>, CoreError> {
    let max_len = opts.max_piece_length;
    let depth = max_len + 1;
    let mut text: Vec<u32> = Vec::with_capacity(words.chars.len() + words.len());
    // text_starts[w]: where word w starts in `text`.
    let mut text_starts: Vec<u32> = Vec::with_capacity(words.len());
    for w in 0..words.len() {
        text_starts.push(text.len() as u32);
        text.extend_from_slice(words.word(w));
        text.push(SEP);
    }
    let text = &text;
    // Counting sort on the first character, then each bucket on the rest.
    let alphabet = info.chars.len();
    let mut bucket_start = vec![0usize; alphabet + 1];
    for &c in text.iter().filter(|&&c| c != SEP) {
        bucket_start[c as usize + 1] += 1;
    }
    for c in 0..alphabet {
        bucket_start[c + 1] += bucket_start[c];
    }
    let n = bucket_start[alphabet];
    let mut sa = vec![0u32; n];
    let mut fill = bucket_start.clone();
    for (p, &c) in text.iter().enumerate() {
        if c != SEP {
            sa[fill[c as usize]] = p as u32;
            fill[c as usize] += 1;
        }
    }
    drop(fill);
    let cmp = |a: &u32, b: &u32| -> std::cmp::Ordering {
        let (a, b) = (*a as usize, *b as usize);
        for k in 1..depth {
            let (x, y) = (text[a + k], text[b + k]);
            if x != y {
                return x.cmp(&y);
            }
            if x == SEP {
                break;
            }
        }
        a.cmp(&b)
    };
    {
        let mut parts: Vec<&mut [u32]> = Vec::new();
        let mut rest: &mut [u32] = &mut sa;
        for c in 0..alphabet {
            let (head, tail) = rest.split_at_mut(bucket_start[c + 1] - bucket_start[c]);
            parts.push(head);
            rest = tail;
        }
        for_each_mut(parts, opts.num_threads, |part| part.sort_unstable_by(cmp))?;
    }
    let lcp = |a: u32, b: u32| -> u32 {
        let (a, b) = (a as usize, b as usize);
        let mut k = 0;
        while k < depth && text[a + k] == text[b + k] && text[a + k] != SEP {
            k += 1;
        }
        k as u32
    };
    let to_sep = |p: u32| -> usize { text[p as usize..].iter().take(depth).take_while(|&&c| c != SEP).count() };
    let weight = |p: u32| -> u64 { words.counts[text_starts.partition_point(|&s| s <= p) - 1] };

    let text_of = |&(_, p, len): &(u64, u32, u32)| &text[p as usize..(p + len) as usize];
    let order = |a: &(u64, u32, u32), b: &(u64, u32, u32)| b.0.cmp(&a.0).then_with(|| text_of(a).cmp(text_of(b)));
    let keep = opts.seed_size;
    let mut cands: Vec<(u64, u32, u32)> = Vec::new(); // (score, start, len)
    let mut push = |p: u32, len: usize, freq: u64| {
        if len >= 2 && len <= max_len && freq >= 2 && info.valid(&text[p as usize..p as usize + len], opts) {
            cands.push((freq.saturating_mul(len as u64), p, len as u32));
            if cands.len() >= 2 * keep + 1024 {
                cands.select_nth_unstable_by(keep, order);
                cands.truncate(keep);
            }
        }
    };
    let mut stack: Vec<(u32, usize, u64)> = vec![(0, 0, 0)]; // (depth, left bound, prefix weight there)
    let (mut w_before, mut prev_h) = (0u64, 0u32);
    for i in 0..n {
        let wi = weight(sa[i]);
        let w_after = w_before.saturating_add(wi);
        let h = if i + 1 < n { lcp(sa[i], sa[i + 1]) } else { 0 };
        // A word-final suffix no neighbour shares is a node of its own (the word end is a
        // context no other occurrence has).
        let len = to_sep(sa[i]);
        if len <= max_len && (prev_h.max(h) as usize) < len {
            push(sa[i], len, wi);
        }
        let (mut lb, mut wlb) = (i, w_before);
        while h < stack.last().map_or(0, |t| t.0) {
            let Some((d, left, wl)) = stack.pop() else { break };
            push(sa[left], d as usize, w_after - wl);
            lb = left;
            wlb = wl;
        }
        if h > stack.last().map_or(0, |t| t.0) {
            stack.push((h, lb, wlb));
        }
        prev_h = h;
        w_before = w_after;
    }
    drop(sa);
    if cands.len() > keep {
        cands.select_nth_unstable_by(keep, order);
        cands.truncate(keep);
    }
    cands.sort_unstable_by(order);
    Ok(cands.iter().map(|c| (text_of(c).to_vec(), c.0)).collect())
}
