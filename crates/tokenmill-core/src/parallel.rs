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
