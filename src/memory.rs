//! Process-wide allocator settings, applied by pitree's `main` before any thread starts.

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
