//! How pitree asks for memory: process-wide allocator settings, applied by pitree's `main` before
//! any thread starts, huge pages for the one big vector a session's read fills, and prefetches
//! of what a walk over a session's scattered entries will read next.

/// glibc gives each thread but the main one a heap of its own, which it makes writable a few pages
/// at a time as the heap grows, with one `mprotect` call each time: the threads that parse a
/// 300 MB session into entries made 25,000 such calls, about 7% of the time to open it. With a
/// pad of 64 MB, the most a thread heap can hold, each heap is made writable once. This reserves
/// address space only; memory counts once it is used (the parse's peak grew by ~5 MB, from what
/// freeing hands back less often).
pub fn pad_thread_heaps() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a malloc parameter; no other thread exists yet to race with it.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
    }
}

/// Hand the memory freed so far back to the system (glibc keeps it for reuse otherwise): after a
/// big session's outline is dropped, so that the whole parse that follows does not start from
/// its scattered free chunks and peak higher than it would alone.
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory to the system; it locks each arena it walks.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Ask the kernel to back the whole 2 MB stretches of `v`'s allocation with huge pages (it does
/// so on request when transparent huge pages are in `madvise` mode, as on most distributions; in
/// `always` mode they are anyway, in `never` mode this changes nothing). For a vector reserved
/// once and then filled to tens of MB by one thread: it takes one page fault per 2 MB instead of
/// 512, which was ~5% of a big session's read. At most the 2 MB page at the end of what is
/// filled counts as used beyond it.
pub fn prefer_huge_pages<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_mut_ptr() as usize;
        let end = start + v.capacity() * size_of::<T>();
        let (from, to) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if to > from {
            // SAFETY: the range lies inside `v`'s allocation, and MADV_HUGEPAGE only changes how
            // the kernel backs it, never what it holds.
            unsafe {
                libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// Ask the CPU to start bringing `value` into its cache, for a walk that will read it soon: a big
/// session's entries, messages and texts are separate allocations long out of the cache by the
/// time a walk reaches them, and waiting for each in turn can be most of the walk's time.
pub fn prefetch<T: ?Sized>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let at = (value as *const T).cast::<i8>();
        // From the start of the cache line `value` starts in, a line at a time.
        let skew = at as usize % 64;
        for line in (0..skew + size_of_val(value)).step_by(64) {
            // SAFETY: a prefetch reads nothing and faults on no address; SSE is part of x86_64.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(at.wrapping_sub(skew).wrapping_add(line)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole 2 MB stretches of a big vector are marked for huge pages (the `hg` flag of its
    /// mapping in `/proc/self/smaps`) on a kernel that has transparent huge pages, and what it
    /// holds is untouched; a small or empty vector is left alone.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_big_vector_is_marked_for_huge_pages_and_keeps_its_contents() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            return;
        }
        let mut v: Vec<u64> = Vec::with_capacity(1 << 20);
        v.extend(0..1000);
        prefer_huge_pages(&mut v);
        assert!(v.iter().copied().eq(0..1000));
        let inside = (v.as_ptr() as usize).next_multiple_of(2 << 20);
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut in_mapping = false;
        let mut flags = None;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((from, to)) = range.split_once('-')
                && let (Ok(from), Ok(to)) = (usize::from_str_radix(from, 16), usize::from_str_radix(to, 16))
            {
                in_mapping = (from..to).contains(&inside);
            } else if in_mapping && let Some(f) = line.strip_prefix("VmFlags:") {
                flags = Some(f.to_string());
            }
        }
        let flags = flags.expect("the vector's mapping is in smaps");
        assert!(flags.split_whitespace().any(|f| f == "hg"), "VmFlags:{flags}");
        for mut small in [Vec::<u64>::new(), Vec::with_capacity(10)] {
            prefer_huge_pages(&mut small);
            assert!(small.is_empty());
        }
    }
}
