//! A background scan (the picker's) runs on a thread pool of its own: with every thread of rayon's
//! global pool busy, as when the screen builds a search index for a keystroke, the scan still
//! finishes. On the global pool its files would wait behind that work, and the screen's work
//! behind the files. In a test binary of its own, so that no other test shares the busy pool.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use pitree::catalog::locate::{RootSource, SessionsRoot};
use pitree::catalog::{Catalog, ScanEvent, Scope};

fn session(n: usize) -> String {
    format!(
        "{}\n{}\n",
        format_args!(
            r#"{{"type":"session","version":3,"id":"s{n}","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}}"#
        ),
        format_args!(
            r#"{{"type":"message","id":"a{n}","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"user","content":"hello {n}","timestamp":1735689601000}}}}"#
        )
    )
}

#[test]
fn a_background_scan_finishes_while_the_global_pool_is_busy() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("sessions/--p--");
    std::fs::create_dir_all(&folder).unwrap();
    for n in 0..40 {
        std::fs::write(folder.join(format!("2025-01-01T00-00-{n:02}-000Z_s{n}.jsonl")), session(n)).unwrap();
    }
    let root = SessionsRoot::new(tmp.path().join("sessions"), RootSource::Flag);
    let catalog = Arc::new(Catalog::open(root, None));

    let busy = Arc::new(AtomicBool::new(true));
    let started = Arc::new(AtomicUsize::new(0));
    let threads = rayon::current_num_threads();
    for _ in 0..threads {
        let (busy, started) = (Arc::clone(&busy), Arc::clone(&started));
        rayon::spawn(move || {
            started.fetch_add(1, Ordering::SeqCst);
            while busy.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
    }
    while started.load(Ordering::SeqCst) < threads {
        std::thread::sleep(Duration::from_millis(1));
    }

    let (tx, rx) = mpsc::channel();
    let scan = catalog.scan_in_background(Scope::All, tx);
    let mut found = 0;
    let finished = loop {
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(ScanEvent::Found(sessions)) => found += sessions.len(),
            Ok(ScanEvent::Done { .. }) => break true,
            Ok(ScanEvent::Progress { .. }) => {}
            Err(_) => break false,
        }
    };
    busy.store(false, Ordering::SeqCst);
    scan.join().unwrap();
    assert!(finished, "the scan waited for the busy global pool");
    assert_eq!(found, 40);
}
