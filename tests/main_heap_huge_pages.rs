//! The main thread's heap is marked for huge pages at start, as pitree's `main` does it: a test
//! binary of its own without libtest's harness, because only the process's main thread
//! allocates from that heap (libtest runs each test on a thread of its own).

fn main() {
    if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
        println!("skipped: this kernel has no transparent huge pages");
        return;
    }
    pitree::memory::pad_thread_heaps();
    pitree::memory::prefer_huge_pages_for_main_heap();
    // Small blocks after the first ones come from the grown heap, whose 2 MB stretches are marked.
    let blocks: Vec<Vec<u8>> = (0..64).map(|_| vec![7u8; 60 << 10]).collect();
    let last = blocks.last().map(|b| b.as_ptr() as usize).unwrap();
    assert_eq!(pitree::memory::marked_for_huge_pages(last), Some(true), "the block at {last:#x}");
    assert!(blocks.iter().all(|b| b.iter().all(|&x| x == 7)));
    println!("ok: the main heap is marked for huge pages");
}
