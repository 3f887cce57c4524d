//! Per-call parallelism on scoped threads: no global pool, no environment switch, nothing
//! left running after the call (so `fork` and per-call `num_threads` are always safe).

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::CoreError;

/// Applies `f` to every item on up to `num_threads` threads, keeping the input order.
/// Items are handed out one at a time, so uneven item sizes still balance.
pub fn parallel_map<I: Sync, T: Send, F>(items: &[I], num_threads: usize, f: F) -> Result<Vec<T>, CoreError>
where
    F: Fn(&I) -> Result<T, CoreError> + Sync,
{
    parallel_map_with(items, num_threads, |_: &mut (), item| f(item))
}

/// `parallel_map` where each thread also owns a state `S` (made with `Default`) that `f`
/// may use across the items it handles, such as reusable working memory.
pub fn parallel_map_with<I: Sync, T: Send, S: Default, F>(
    items: &[I],
    num_threads: usize,
    f: F,
) -> Result<Vec<T>, CoreError>
where
    F: Fn(&mut S, &I) -> Result<T, CoreError> + Sync,
{
    let threads = num_threads.max(1).min(items.len().max(1));
    if threads == 1 {
        let mut state = S::default();
        return items.iter().map(|item| f(&mut state, item)).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Vec<Vec<(usize, Result<T, CoreError>)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut state = S::default();
                    let mut local = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= items.len() {
                            break;
                        }
                        local.push((i, f(&mut state, &items[i])));
                    }
                    local
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    let mut slots: Vec<Option<Result<T, CoreError>>> = (0..items.len()).map(|_| None).collect();
    for local in results {
        for (i, r) in local {
            slots[i] = Some(r);
        }
    }
    slots
        .into_iter()
        .enumerate()
        .map(|(i, r)| r.unwrap_or_else(|| Err(CoreError::Internal(format!("a worker thread failed on item {i}")))))
        .collect()
}

/// Folds `items` into one state per thread (made with `init`; items handed out one at a time)
/// and returns the states: for work whose result is an accumulation, such as counts.
pub fn parallel_fold<I: Sync, S: Send, F>(
    items: &[I],
    num_threads: usize,
    init: impl Fn() -> S + Sync,
    f: F,
) -> Result<Vec<S>, CoreError>
where
    F: Fn(&mut S, &I) -> Result<(), CoreError> + Sync,
{
    let threads = num_threads.max(1).min(items.len().max(1));
    let next = AtomicUsize::new(0);
    let work = || -> Result<S, CoreError> {
        let mut state = init();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= items.len() {
                return Ok(state);
            }
            f(&mut state, &items[i])?;
        }
    };
    if threads == 1 {
        return Ok(vec![work()?]);
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(CoreError::Internal("a worker thread panicked".into()))))
            .collect()
    })
}

/// One copy of `concat`: the destination and the part that fills it.
type Filling<'a, T> = (&'a mut [std::mem::MaybeUninit<T>], &'a [T]);

/// `parts` joined into one vector, copied on up to `threads` threads (each takes a run of
/// consecutive parts of about the same total length).
///
/// Why: joining the parts of one large text's encoding was a serial step after the parallel
/// one: a copy of every id into fresh memory, whose pages are also mapped on first touch, which
/// costs most under virtualization. On 2 threads it kept one core idle a tenth of the call.
pub fn concat<T: Copy + Send + Sync>(parts: Vec<Vec<T>>, threads: usize) -> Vec<T> {
    /// Below this many elements one thread joins them (starting threads would cost more).
    const MIN_PARALLEL: usize = 1 << 18;
    let total: usize = parts.iter().map(Vec::len).sum();
    let threads = threads.min(parts.len());
    let mut out: Vec<T> = Vec::with_capacity(total);
    crate::zeroed::huge_pages_for(&mut out);
    if threads <= 1 || total < MIN_PARALLEL {
        parts.iter().for_each(|p| out.extend_from_slice(p));
        return out;
    }
    {
        // Each part's destination, in order: disjoint slices of the spare capacity.
        let mut rest = &mut out.spare_capacity_mut()[..total];
        let per = total.div_ceil(threads);
        let mut groups: Vec<Vec<Filling<'_, T>>> = vec![Vec::new()];
        let mut done = 0;
        for p in &parts {
            if done >= per * groups.len() {
                groups.push(Vec::new());
            }
            let (dst, tail) = rest.split_at_mut(p.len());
            rest = tail;
            done += p.len();
            if let Some(g) = groups.last_mut() {
                g.push((dst, p.as_slice()));
            }
        }
        std::thread::scope(|s| {
            for g in groups {
                s.spawn(move || {
                    for (dst, src) in g {
                        for (d, &x) in dst.iter_mut().zip(src) {
                            d.write(x);
                        }
                    }
                });
            }
        });
    }
    // SAFETY: the destinations tile `out[..total]` (consecutive slices of the parts' lengths,
    // which sum to `total`), and every thread wrote its slices in full before the scope ended.
    unsafe { out.set_len(total) };
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn concat_equals_the_serial_join() {
        for threads in [1, 2, 3, 8] {
            for sizes in [vec![], vec![0], vec![300_000], vec![5, 0, 200_000, 70_000, 1], vec![100_000; 9]] {
                let parts: Vec<Vec<u32>> = sizes
                    .iter()
                    .enumerate()
                    .map(|(k, &n)| (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) ^ k as u32).collect())
                    .collect();
                assert_eq!(super::concat(parts.clone(), threads), parts.concat());
            }
        }
    }
}
