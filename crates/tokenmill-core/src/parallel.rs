//! Per-call parallelism on scoped threads: no global pool, no environment switch, nothing
//! left running after the call (so `fork` and per-call `num_threads` are always safe).

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::CoreError;

/// The item numbers `0..n` that threads sharing one counter claim, one at a time, so that
/// uneven items still balance: each thread iterates its own `Claims` over the same counter.
struct Claims<'a> {
    next: &'a AtomicUsize,
    n: usize,
}

impl Iterator for Claims<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        (i < self.n).then_some(i)
    }
}

/// Runs `work` on `threads` threads, this one and `threads - 1` scoped ones, that claim the
/// item numbers `0..n` between them; returns what each returned, `None` for a thread that
/// panicked.
///
/// Why this thread works too: it is already running, while a new thread may start late (2-3
/// ms after the call began in some calls of 35 ms on this two-core machine, session 38).
fn on_threads<R: Send>(threads: usize, n: usize, work: impl Fn(Claims) -> R + Sync) -> Vec<Option<R>> {
    let next = AtomicUsize::new(0);
    let claims = || Claims { next: &next, n };
    if threads <= 1 {
        return vec![Some(work(claims()))];
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..threads).map(|_| s.spawn(|| work(claims()))).collect();
        let here = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(claims()))).ok();
        std::iter::once(here).chain(handles.into_iter().map(|h| h.join().ok())).collect()
    })
}

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
    let results = on_threads(threads, items.len(), |claims| {
        let mut state = S::default();
        claims.map(|i| (i, f(&mut state, &items[i]))).collect::<Vec<_>>()
    });
    let mut slots: Vec<Option<Result<T, CoreError>>> = (0..items.len()).map(|_| None).collect();
    // (A thread that panicked leaves its items empty: reported below.)
    for local in results.into_iter().flatten() {
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
    on_threads(threads, items.len(), |claims| -> Result<S, CoreError> {
        let mut state = init();
        for i in claims {
            f(&mut state, &items[i])?;
        }
        Ok(state)
    })
    .into_iter()
    .map(|r| r.unwrap_or_else(|| Err(CoreError::Internal("a worker thread panicked".into()))))
    .collect()
}

/// `parallel_map_with` for items whose results are runs of one vector, joined in item order
/// as they finish: the thread that finishes the next item in order appends it, and the items
/// after it that are done, while the other threads go on with theirs. Returns the first error
/// in item order, else `None` if any item gave `None`, else the joined vector (`capacity`: a
/// guess at its length).
///
/// Why: joining the parts of one large text's encoding after they were all done was a
/// serial step, a copy of every id into fresh memory (on two threads, 1.3 ms of a 34 ms call
/// on 16 MB, and far more on the first calls, whose pages were faulted in then). Here the
/// copies happen while the other threads encode, and only the parts after the last one to
/// finish are left for the end: two threads on 16 MB of English and fr/ja/zh 1.04-1.075x
/// (cl100k, `par_encode ALT`, three runs of 20 rounds, faster in 13-17), o200k medians
/// 1.01x (faster in 15-16 of 20).
///
/// A thread takes the lock only to park its item and to claim the room for the run it
/// appends; it copies the run after letting go. Why: the copy writes fresh pages, and when
/// the system is slow to clear them (finding 3 of session 37) a copy held under the lock
/// took 14 ms of a 47 ms call, all of it spent waiting by the other thread.
pub fn parallel_map_join<I: Sync, T: Copy + Send, S: Default, F>(
    items: &[I],
    num_threads: usize,
    capacity: usize,
    f: F,
) -> Result<Option<Vec<T>>, CoreError>
where
    F: Fn(&mut S, &I) -> Result<Option<Vec<T>>, CoreError> + Sync,
{
    let mut out: Vec<T> = crate::zeroed::output_vec(capacity);
    let threads = num_threads.max(1).min(items.len().max(1));
    if threads == 1 {
        let mut state = S::default();
        let mut none = false;
        for item in items {
            match f(&mut state, item)? {
                Some(part) => out.extend_from_slice(&part),
                None => none = true,
            }
        }
        return Ok((!none).then_some(out));
    }
    /// The items done but not yet appended, the first not appended, and the joined vector:
    /// its first `len` values are placed or being copied (its own length stays below, at
    /// values known to be written, until the end).
    struct Join<T> {
        parked: Vec<Option<Vec<T>>>,
        next: usize,
        out: Vec<T>,
        len: usize,
    }
    let join = std::sync::Mutex::new(Join { parked: (0..items.len()).map(|_| None).collect(), next: 0, out, len: 0 });
    // Copies into `out` under way outside the lock: `out` may move (grow) only when none is.
    let copying = AtomicUsize::new(0);
    // An item's error or `None`, by item number.
    let mut failed: Vec<(usize, Option<CoreError>)> = on_threads(threads, items.len(), |claims| {
        let mut state = S::default();
        let mut failed = Vec::new();
        for i in claims {
            let part = match f(&mut state, &items[i]) {
                Ok(Some(part)) => part,
                Ok(None) => {
                    failed.push((i, None));
                    Vec::new()
                }
                Err(e) => {
                    failed.push((i, Some(e)));
                    Vec::new()
                }
            };
            // (A thread that panicked while holding the lock leaves the join incomplete; the
            // check after the threads reports it.)
            let Ok(mut guard) = join.lock() else { return failed };
            let j = &mut *guard;
            j.parked[i] = Some(part);
            let mut run = Vec::new();
            while let Some(part) = j.parked.get_mut(j.next).and_then(Option::take) {
                run.push(part);
                j.next += 1;
            }
            let n: usize = run.iter().map(Vec::len).sum();
            if n == 0 {
                continue;
            }
            if j.out.capacity() - j.len < n {
                // A copy still under way writes into the old buffer, which growing frees.
                while copying.load(Ordering::Acquire) != 0 {
                    std::thread::yield_now();
                }
                // SAFETY: with no copy under way, the first `len` values are written.
                unsafe { j.out.set_len(j.len) };
                j.out.reserve(n);
            }
            let mut dst = j.out.as_mut_ptr().wrapping_add(j.len);
            j.len += n;
            copying.fetch_add(1, Ordering::Relaxed);
            drop(guard);
            for part in &run {
                // SAFETY: `dst..dst + n` is room in `out` that this thread alone claimed, and
                // `out` does not move while `copying` counts this copy. (`as_mut_ptr` makes
                // no reference, so other threads' pointers into their own room stay valid.)
                unsafe { std::ptr::copy_nonoverlapping(part.as_ptr(), dst, part.len()) };
                dst = dst.wrapping_add(part.len());
            }
            copying.fetch_sub(1, Ordering::Release);
            // Freed outside the lock.
            drop(run);
        }
        failed
    })
    .into_iter()
    .flat_map(|r| r.unwrap_or_else(|| vec![(0, Some(CoreError::Internal("a worker thread panicked".into())))]))
    .collect();
    failed.sort_by_key(|(i, _)| *i);
    if let Some(e) = failed.iter_mut().find_map(|(_, e)| e.take()) {
        return Err(e);
    }
    if !failed.is_empty() {
        return Ok(None);
    }
    let mut j = join.into_inner().map_err(|_| CoreError::Internal("a worker thread panicked".into()))?;
    if j.next != items.len() {
        return Err(CoreError::Internal(format!("a worker thread failed on item {}", j.next)));
    }
    // SAFETY: every item was appended, and every copy ended before its thread did.
    unsafe { j.out.set_len(j.len) };
    Ok(Some(j.out))
}

#[cfg(test)]
mod tests {
    use crate::error::CoreError;

    #[test]
    fn parallel_map_join_equals_the_serial_join() {
        for threads in [1, 2, 3, 8] {
            for sizes in
                [vec![], vec![0], vec![300_000], vec![5, 0, 200_000, 70_000, 1], vec![100_000; 9], vec![7; 200]]
            {
                let parts: Vec<Vec<u32>> = sizes
                    .iter()
                    .enumerate()
                    .map(|(k, &n)| (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) ^ k as u32).collect())
                    .collect();
                let items: Vec<usize> = (0..parts.len()).collect();
                let joined = super::parallel_map_join(&items, threads, 10, |_: &mut (), &i| Ok(Some(parts[i].clone())));
                assert_eq!(joined, Ok(Some(parts.concat())), "{threads} threads, sizes {sizes:?}");
            }
        }
    }

    #[test]
    fn parallel_map_join_grows_while_other_threads_copy() {
        // Room for one value: nearly every run grows the vector, often while another
        // thread copies its run outside the lock.
        let sizes: Vec<usize> = (0..600).map(|k| (k * 7919) % 5000).collect();
        let parts: Vec<Vec<u32>> = sizes.iter().enumerate().map(|(k, &n)| vec![k as u32; n]).collect();
        let items: Vec<usize> = (0..parts.len()).collect();
        for threads in [2, 3, 8] {
            for _ in 0..10 {
                let joined = super::parallel_map_join(&items, threads, 1, |_: &mut (), &i| Ok(Some(parts[i].clone())));
                assert_eq!(joined, Ok(Some(parts.concat())), "{threads} threads");
            }
        }
    }

    #[test]
    fn parallel_map_join_reports_the_first_error_then_none() {
        let items: Vec<usize> = (0..40).collect();
        let run = |threads, bad: &[usize], none: &[usize]| {
            super::parallel_map_join(&items, threads, 0, |_: &mut (), &i| {
                if bad.contains(&i) {
                    Err(CoreError::Internal(format!("item {i}")))
                } else if none.contains(&i) {
                    Ok(None)
                } else {
                    Ok(Some(vec![i as u32; i]))
                }
            })
        };
        for threads in [1, 2, 3] {
            assert_eq!(run(threads, &[31, 5], &[2]), Err(CoreError::Internal("item 5".into())), "{threads} threads");
            assert_eq!(run(threads, &[], &[39, 0]), Ok(None), "{threads} threads");
        }
    }
}
