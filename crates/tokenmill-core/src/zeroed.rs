//! `Zeroed<T>`: a fixed number of values that start as all-zero bytes, kept on transparent
//! huge pages when the array is large and the system gives them (Linux), else in an ordinary
//! zeroed allocation.
//!
//! Why huge pages: the tables that encoding reads once per piece (the token table, 8 MB for
//! cl100k and 17 MB for o200k; the encoder's cache of merged words, 4 MiB) are read at
//! places their hashes pick, so with 4 KiB pages nearly every lookup needs a page
//! translation that the CPU's translation cache (about 1,500 entries) does not hold. On 2 MiB
//! pages a table takes a handful of entries. Measured in one process, passes alternating
//! between two copies of the encoder (`benchmarks/README.md`, session 25), with huge pages
//! a warm pass over prose is 4-5% faster for cl100k and 7% for o200k, a first pass 4%. A
//! first pass writes all over a cache as well: one page fault per 2 MiB instead of per 4 KiB.
//!
//! Where the system gives no huge pages, or the array is under 2 MiB, this is the same
//! zero-on-first-touch memory as `alloc_zeroed`, so an array pays only for the pages it uses.
//!
//! What it does not do: grow, or hold anything that all-zero bytes are not a valid value of
//! (`Zeroable`).

use std::ops::{Deref, DerefMut};

/// Types for which all-zero bytes are a valid value (integers, atomics, and structs of them).
///
/// # Safety
/// An implementer must be valid when all its bytes are zero, and need no `Drop`.
pub unsafe trait Zeroable: Sized {}

// SAFETY: integers are valid at zero.
unsafe impl Zeroable for u8 {}
// SAFETY: an atomic integer is an integer, valid at zero, with no `Drop`.
unsafe impl Zeroable for std::sync::atomic::AtomicU64 {}

const HUGE: usize = 2 << 20;

/// See the module documentation.
pub struct Zeroed<T: Zeroable> {
    ptr: *mut T,
    n: usize,
    /// The whole mapping when the values live in one (Linux, at least `HUGE` bytes).
    #[cfg(target_os = "linux")]
    map: Option<(*mut libc::c_void, usize)>,
}

// SAFETY: `Zeroed<T>` owns its values like a `Box<[T]>` (freed once, in `drop`).
unsafe impl<T: Zeroable + Send> Send for Zeroed<T> {}
// SAFETY: as above; shared references give only `&[T]`.
unsafe impl<T: Zeroable + Sync> Sync for Zeroed<T> {}

impl<T: Zeroable> Zeroed<T> {
    /// `n` values of all-zero bytes.
    pub fn new(n: usize) -> Self {
        Self::with_pages(n, true)
    }

    /// `n` values of all-zero bytes on ordinary pages, never huge ones: for an array whose
    /// few places in use are read rarely, where a first write should clear 4 KiB, not 2 MiB.
    pub fn on_small_pages(n: usize) -> Self {
        Self::with_pages(n, false)
    }

    fn with_pages(n: usize, huge: bool) -> Self {
        let Some(bytes) = n.checked_mul(std::mem::size_of::<T>()) else {
            // No such allocation exists; fail as `Vec` would.
            panic!("capacity overflow: {n} values");
        };
        #[cfg(target_os = "linux")]
        if huge && (HUGE..=usize::MAX - 2 * HUGE).contains(&bytes) && std::mem::align_of::<T>() <= HUGE {
            let map_len = bytes + HUGE;
            // SAFETY: a fresh private anonymous mapping (zero-filled by the system); the
            // aligned start and its `bytes` stay inside it (`HUGE` bytes of slack), and
            // `madvise` only advises (its failure leaves ordinary pages).
            unsafe {
                let map = libc::mmap(
                    std::ptr::null_mut(),
                    map_len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                );
                if map != libc::MAP_FAILED {
                    let start = (map as usize).next_multiple_of(HUGE);
                    libc::madvise(start as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE);
                    return Zeroed { ptr: start as *mut T, n, map: Some((map, map_len)) };
                }
            }
        }
        let ptr = if bytes == 0 {
            std::ptr::NonNull::dangling().as_ptr()
        } else {
            let layout = std::alloc::Layout::array::<T>(n).unwrap_or_else(|_| panic!("capacity overflow: {n} values"));
            // SAFETY: the layout is not zero-sized.
            let p = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
            if p.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            p
        };
        Zeroed {
            ptr,
            n,
            #[cfg(target_os = "linux")]
            map: None,
        }
    }
}

/// Asks the system to back the spare room of `v` (what `reserve` gave it beyond its length)
/// with transparent huge pages where whole 2 MiB pages fit in it; does nothing elsewhere (why:
/// `output_vec`). Only advice: the memory, its contents and who frees it are unchanged, and a
/// system without huge pages ignores it.
fn huge_pages_for<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        let spare = v.spare_capacity_mut();
        let (from, to) = (spare.as_ptr() as usize, spare.as_ptr() as usize + std::mem::size_of_val(spare));
        let (start, end) = (from.next_multiple_of(HUGE), to & !(HUGE - 1));
        if end > start {
            // SAFETY: advice on whole pages inside memory `v` owns (no value lives there yet);
            // it never changes what the memory holds, and its failure leaves ordinary pages.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// An empty vector with room for at least `capacity` values, for an encoder's output.
///
/// Why: the output is new memory on every call (it goes to the caller, a NumPy array say),
/// and on this kind of machine (a virtual one) a first write to a 4 KiB page costs about
/// 3 us: a warm pass over 3.5 MB of prose, whose 3.3 MB of ids took 800 such faults, spent
/// a fifth of its time on them (`benchmarks/README.md`, session 36). So from 1 MiB on:
/// - 2 MiB more room, so that the room holds whole 2 MiB pages wherever the allocation
///   starts, and those go on transparent huge pages (`huge_pages_for`): one fault for 512
///   pages;
/// - the pages before the first of them (up to 2 MiB, written first) are faulted in by one
///   call to the system (`MADV_POPULATE_WRITE`, Linux 5.14 and later; elsewhere the advice
///   fails and they fault as before).
///
/// Only room: what is never written costs no memory, and the vector is an ordinary one.
pub fn output_vec<T>(capacity: usize) -> Vec<T> {
    let size = std::mem::size_of::<T>().max(1);
    if capacity.saturating_mul(size) < HUGE / 2 {
        return Vec::with_capacity(capacity);
    }
    let mut v = Vec::with_capacity(capacity + HUGE / size);
    huge_pages_for(&mut v);
    #[cfg(target_os = "linux")]
    {
        let spare = v.spare_capacity_mut();
        let at = spare.as_ptr() as usize;
        let (from, to) = (at & !4095, at.next_multiple_of(HUGE).min(at + capacity * size));
        if to > from {
            // SAFETY: advice on pages of memory `v` owns (and the start of the page its room
            // starts in): populating a page never changes what it holds, and failure changes
            // nothing.
            unsafe { libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_POPULATE_WRITE) };
        }
    }
    v
}

impl<T: Zeroable> Deref for Zeroed<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` holds `n` values, zero-initialized (valid by `Zeroable`) or written
        // since through `deref_mut`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.n) }
    }
}

impl<T: Zeroable> DerefMut for Zeroed<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` is the only way in.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.n) }
    }
}

impl<T: Zeroable> Drop for Zeroed<T> {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some((map, map_len)) = self.map {
            // SAFETY: the mapping `new` made, unmapped once.
            unsafe { libc::munmap(map, map_len) };
            return;
        }
        if let Ok(layout) = std::alloc::Layout::array::<T>(self.n) {
            if layout.size() != 0 {
                // SAFETY: allocated in `new` with this same layout.
                unsafe { std::alloc::dealloc(self.ptr as *mut u8, layout) };
            }
        }
    }
}

impl<T: Zeroable + Copy> Clone for Zeroed<T> {
    fn clone(&self) -> Self {
        let mut copy = Zeroed::new(self.n);
        copy.copy_from_slice(self);
        copy
    }
}

impl<T: Zeroable> std::fmt::Debug for Zeroed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Zeroed({} values)", self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_small_and_large_and_their_clones() {
        for n in [0, 1, 1000, (3 << 20) + 5] {
            let mut z = Zeroed::<u8>::new(n);
            assert_eq!(z.len(), n);
            assert!(z.iter().all(|&b| b == 0));
            if n > 0 {
                z[n - 1] = 7;
                z[0] = 3;
            }
            let c = z.clone();
            assert_eq!(&c[..], &z[..]);
            drop(z);
            let want = match n {
                0 => 0,
                1 => 3,
                _ => 10,
            };
            assert_eq!(c.iter().map(|&b| b as usize).sum::<usize>(), want);
        }
    }

    #[test]
    fn advice_on_a_vectors_room_leaves_its_values_and_growth_alone() {
        for (len, room) in [(0, 0), (3, 10), (1000, 5 << 20), (12_345, 9 << 20)] {
            let mut v: Vec<u32> = (0..len).collect();
            v.reserve(room);
            huge_pages_for(&mut v);
            assert!(v.iter().copied().eq(0..len));
            v.extend(len..len + room as u32 + 7);
            assert!(v.iter().copied().eq(0..len + room as u32 + 7));
        }
    }

    #[test]
    fn an_output_vector_is_empty_with_the_room_asked_for_and_grows_as_any() {
        for cap in [0, 1, 1000, (1 << 18) - 1, 1 << 18, 3 << 20, 5_000_017] {
            let mut v: Vec<u32> = output_vec(cap);
            assert!(v.is_empty() && v.capacity() >= cap, "{cap}");
            let n = cap as u32 + 1000;
            v.extend(0..n);
            assert!(v.iter().copied().eq(0..n), "{cap}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn large_arrays_are_mapped_on_huge_page_boundaries() {
        let z = Zeroed::<u8>::new(5 << 20);
        assert!(z.map.is_some());
        assert_eq!(z.as_ptr() as usize % HUGE, 0);
        assert!(Zeroed::<u8>::new(HUGE - 1).map.is_none());
        let small = Zeroed::<u8>::on_small_pages(5 << 20);
        assert!(small.map.is_none() && small.len() == 5 << 20 && small.iter().all(|&b| b == 0));
    }
}
