//! The persistent index: an unchanged file is not read, a grown file is read from its stored
//! offset only, a rewritten, shrunk, deleted or renamed file is handled, and a damaged, truncated,
//! foreign or newer-version index is ignored and rebuilt. Two catalogs listing at once both get
//! the right answer and leave a valid index. Every result is compared with a scan without index.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use pitree::catalog::hash::hash64;
use pitree::catalog::index::{FORMAT_VERSION, Index};
use pitree::catalog::locate::{RootSource, SessionsRoot};
use pitree::catalog::{Catalog, ScanEvent, ScanReport, Scope, SessionSummary};

fn header(id: &str, cwd: &str) -> String {
    format!(
        r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2025-06-01T10:00:00.000Z","cwd":"{cwd}"}}"#
    )
}

fn message(id: &str, parent: Option<&str>, role: &str, text: &str, minute: u32) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    let ts = format!("2025-06-01T10:{minute:02}:00.000Z");
    let ms = chrono::DateTime::parse_from_rfc3339(&ts).unwrap().timestamp_millis();
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"{role}","content":[{{"type":"text","text":"{text}"}}],"timestamp":{ms}}}}}"#
    )
}

fn lines(ls: &[String]) -> String {
    ls.iter().map(|l| format!("{l}\n")).collect()
}

fn session(id: &str, cwd: &str, n: u32) -> String {
    let mut ls = vec![header(id, cwd)];
    for i in 0..n {
        let parent = (i > 0).then(|| format!("{id}-{}", i - 1));
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        ls.push(message(&format!("{id}-{i}"), parent.as_deref(), role, &format!("text {i} of {id}"), i));
    }
    lines(&ls)
}

struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    cache: PathBuf,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("sessions");
        fs::create_dir_all(root.join("--p--")).unwrap();
        let cache = tmp.path().join("cache");
        let w = World { root, cache, _tmp: tmp };
        for (name, id) in [("a", "aaaa"), ("b", "bbbb"), ("c", "cccc")] {
            w.write(&format!("--p--/{name}.jsonl"), &session(id, "/p", 6));
        }
        w.write("flat.jsonl", &session("ffff", "/q", 3));
        w
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Write a file and date it in the past, as a session pi wrote a while ago (a file modified
    /// in the last second gets a racy record, which is checked instead of trusted).
    fn write(&self, rel: &str, text: &str) {
        fs::write(self.path(rel), text).unwrap();
        age(&self.path(rel));
    }

    /// Append `text` and date the file back, so that a listing trusts its change key.
    fn append(&self, rel: &str, text: &str) {
        self.append_now(rel, text);
        age(&self.path(rel));
    }

    /// Append `text`, leaving the file as recent as a write by pi would.
    fn append_now(&self, rel: &str, text: &str) {
        fs::OpenOptions::new().append(true).open(self.path(rel)).unwrap().write_all(text.as_bytes()).unwrap();
    }

    fn sessions_root(&self) -> SessionsRoot {
        SessionsRoot::new(&self.root, RootSource::Flag)
    }

    fn catalog(&self) -> Catalog {
        Catalog::open(self.sessions_root(), Some(&self.cache))
    }

    fn scan(&self) -> ScanReport {
        self.catalog().scan(&Scope::All, &|_, _| {})
    }

    /// What a scan without any index finds: the reference for every indexed result.
    fn truth(&self) -> Vec<SessionSummary> {
        Catalog::open(self.sessions_root(), None).scan(&Scope::All, &|_, _| {}).sessions
    }

    fn index_file(&self) -> PathBuf {
        self.catalog().index_file().unwrap().to_path_buf()
    }
}

/// Give a file a modification time in the past, a new one at every call.
fn age(path: &Path) {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let step = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let when = std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + 10 * step);
    fs::File::options().write(true).open(path).unwrap().set_modified(when).unwrap();
}

/// Give a file a new mtime (some filesystems keep the old one within a tick).
fn bump_mtime(path: &Path) {
    let old = fs::metadata(path).unwrap().modified().unwrap();
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(old + Duration::from_secs(7)).unwrap();
}

#[test]
fn unchanged_files_are_not_read() {
    let w = World::new();
    let cold = w.scan();
    assert_eq!(cold.stats.rescanned, 4);
    assert!(cold.stats.bytes_read > 0);
    assert!(cold.stats.index_written);
    let warm = w.scan();
    assert!(warm.stats.index_loaded);
    assert_eq!((warm.stats.unchanged, warm.stats.bytes_read, warm.stats.check_bytes), (4, 0, 0));
    assert!(!warm.stats.index_written);
    assert_eq!(warm.sessions, cold.sessions);
    assert_eq!(warm.sessions, w.truth());
}

#[test]
fn listing_without_texts_reads_no_text_and_keeps_them_in_the_index() {
    let w = World::new();
    w.scan();
    let lean = w.catalog().with_texts(false).scan(&Scope::All, &|_, _| {});
    assert_eq!(lean.stats.bytes_read, 0);
    assert!(lean.sessions.iter().all(|s| s.all_messages_text.is_empty()));
    w.append("--p--/a.jsonl", &lines(&[message("aaaa-9", Some("aaaa-5"), "user", "later", 30)]));
    let lean = w.catalog().with_texts(false).scan(&Scope::All, &|_, _| {});
    assert_eq!(lean.stats.continued, 1);
    let full = w.scan();
    assert_eq!(full.stats.unchanged, 4);
    assert_eq!(full.sessions, w.truth());
}

#[test]
fn a_grown_file_is_read_from_its_offset_only() {
    let w = World::new();
    w.scan();
    let more = lines(&[
        message("aaaa-6", Some("aaaa-5"), "user", "grown", 40),
        message("aaaa-7", Some("aaaa-6"), "assistant", "indeed", 41),
        r#"{"type":"session_info","id":"aaaa-8","parentId":"aaaa-7","timestamp":"2025-06-01T10:42:00.000Z","name":"Grown"}"#.to_string(),
    ]);
    w.append("--p--/a.jsonl", &more);
    let report = w.scan();
    assert_eq!((report.stats.continued, report.stats.unchanged, report.stats.rescanned), (1, 3, 0));
    assert_eq!(report.stats.bytes_read, more.len() as u64);
    assert_eq!(report.sessions, w.truth());
    let a = report.sessions.iter().find(|s| s.id == "aaaa").unwrap();
    assert_eq!(a.name.as_deref(), Some("Grown"));
    assert_eq!(a.message_count, 8);
    assert!(a.all_messages_text.ends_with("grown indeed"));
    assert_eq!(a.branches, 1);
}

/// `pitree list` without a query continues a grown file without reading its stored text: the
/// new text is added as a piece after the old one, and a later listing with texts sees it whole.
#[test]
fn a_grown_file_listed_without_texts_keeps_its_text_whole() {
    let w = World::new();
    w.scan();
    let plain = || w.catalog().with_texts(false).scan(&Scope::All, &|_, _| {});
    let texts = |sessions: &[SessionSummary]| -> Vec<(String, String)> {
        let mut all: Vec<_> = sessions.iter().map(|s| (s.id.clone(), s.all_messages_text.clone())).collect();
        all.sort();
        all
    };
    for round in 0..20u32 {
        let id = format!("aaaa-{}", 6 + round);
        let parent = format!("aaaa-{}", 5 + round);
        let role = if round % 2 == 0 { "user" } else { "assistant" };
        let more = lines(&[message(&id, Some(&parent), role, &format!("round {round}"), 10 + round)]);
        w.append("--p--/a.jsonl", &more);
        let report = plain();
        assert_eq!(
            (report.stats.continued, report.stats.bytes_read),
            (1, more.len() as u64),
            "round {round}"
        );
        if round % 5 == 4 {
            let full = w.scan();
            assert_eq!(texts(&full.sessions), texts(&w.truth()), "round {round}");
            assert_eq!(full.sessions, w.truth());
        }
    }
    // A torn tail and an empty text (a message without text) join the pieces as a scan does.
    w.append("--p--/a.jsonl", &lines(&[message("aaaa-26", Some("aaaa-25"), "user", "", 40)]));
    plain();
    w.append("--p--/a.jsonl", &message("aaaa-27", Some("aaaa-26"), "user", "torn", 41)[..30]);
    plain();
    assert_eq!(texts(&w.scan().sessions), texts(&w.truth()));
}

/// The picker reads the texts of a warm listing later, from the index: a text stored in pieces
/// (by `pitree list` continuing a grown file) comes back whole.
#[test]
fn deferred_texts_of_a_text_in_pieces_come_back_whole() {
    let w = World::new();
    w.scan();
    for round in 0..3u32 {
        let (id, parent) = (format!("aaaa-{}", 6 + round), format!("aaaa-{}", 5 + round));
        w.append(
            "--p--/a.jsonl",
            &lines(&[message(&id, Some(&parent), "user", &format!("piece {round}"), 20 + round)]),
        );
        w.catalog().with_texts(false).scan(&Scope::All, &|_, _| {});
    }
    let (tx, rx) = mpsc::channel();
    let deferred = Arc::new(w.catalog()).scan_in_background_deferring_texts(Scope::All, tx).join().unwrap();
    while rx.try_recv().is_ok() {}
    let texts = deferred.expect("a warm scan defers the texts").load();
    let truth = w.truth();
    let a = truth.iter().find(|s| s.id == "aaaa").unwrap();
    assert!(a.all_messages_text.ends_with("piece 0 piece 1 piece 2"));
    assert_eq!(texts.get(&a.path), Some(a.all_messages_text.as_str()));
}

#[test]
fn a_torn_last_line_is_read_again_once_complete() {
    let w = World::new();
    let line = message("bbbb-6", Some("bbbb-5"), "user", "torn", 50);
    let (first, rest) = line.split_at(40);
    w.append("--p--/b.jsonl", first);
    let torn = w.scan();
    let b = |r: &ScanReport| r.sessions.iter().find(|s| s.id == "bbbb").unwrap().clone();
    assert_eq!((b(&torn).message_count, b(&torn).unreadable_lines), (6, 1));
    assert_eq!(torn.sessions, w.truth());
    w.append("--p--/b.jsonl", &format!("{rest}\n"));
    let healed = w.scan();
    assert_eq!(healed.stats.continued, 1);
    assert_eq!(healed.stats.bytes_read, (line.len() + 1) as u64);
    assert_eq!((b(&healed).message_count, b(&healed).unreadable_lines), (7, 0));
    assert_eq!(healed.sessions, w.truth());
}

#[test]
fn a_rewritten_file_of_the_same_size_is_scanned_again() {
    let w = World::new();
    w.scan();
    let path = w.path("--p--/c.jsonl");
    let text = fs::read_to_string(&path).unwrap().replace("text 1 of cccc", "TEXT 1 OF CCCC");
    fs::write(&path, &text).unwrap();
    bump_mtime(&path);
    let report = w.scan();
    assert_eq!((report.stats.rescanned, report.stats.continued), (1, 0));
    assert_eq!(report.sessions, w.truth());
    assert!(report.sessions.iter().any(|s| s.all_messages_text.contains("TEXT 1 OF CCCC")));
}

#[test]
fn a_replaced_or_shrunk_file_is_scanned_again() {
    let w = World::new();
    w.scan();
    let replacement = w.path("new.tmp");
    fs::write(&replacement, session("cccc", "/p", 9)).unwrap();
    fs::rename(&replacement, w.path("--p--/c.jsonl")).unwrap();
    let shrunk = session("aaaa", "/p", 2);
    w.write("--p--/a.jsonl", &shrunk);
    let report = w.scan();
    assert_eq!((report.stats.rescanned, report.stats.continued, report.stats.unchanged), (2, 0, 2));
    assert_eq!(report.sessions, w.truth());
}

#[test]
fn a_file_grown_after_an_earlier_rewrite_of_its_start_is_scanned_again() {
    let w = World::new();
    w.scan();
    let path = w.path("--p--/b.jsonl");
    let mut text = fs::read_to_string(&path).unwrap().replace("bbbb", "BBBB");
    text.push_str(&lines(&[message("BBBB-6", Some("BBBB-5"), "user", "x", 55)]));
    fs::write(&path, text).unwrap();
    let report = w.scan();
    assert_eq!(report.stats.rescanned, 1);
    assert_eq!(report.sessions, w.truth());
}

#[test]
fn deleted_and_renamed_files_leave_the_index() {
    let w = World::new();
    w.scan();
    fs::remove_file(w.path("--p--/b.jsonl")).unwrap();
    fs::rename(w.path("--p--/c.jsonl"), w.path("--p--/c2.jsonl")).unwrap();
    let report = w.scan();
    assert_eq!(report.sessions.len(), 3);
    assert!(report.sessions.iter().any(|s| s.path.ends_with("c2.jsonl")));
    assert_eq!(report.sessions, w.truth());
    let index = Index::load(&w.index_file(), false).unwrap();
    let mut paths: Vec<String> = index
        .records
        .keys()
        .map(|p| Path::new(p).strip_prefix(&w.root).unwrap().display().to_string())
        .collect();
    paths.sort();
    assert_eq!(paths, ["--p--/a.jsonl", "--p--/c2.jsonl", "flat.jsonl"]);
}

#[test]
fn a_current_folder_scan_keeps_the_other_folders_in_the_index() {
    let w = World::new();
    fs::create_dir_all(w.path("--other--")).unwrap();
    w.write("--other--/o.jsonl", &session("oooo", "/other", 2));
    w.scan();
    let current = w.catalog().scan(&Scope::CurrentFolder("/other".into()), &|_, _| {});
    assert_eq!(current.sessions.len(), 1);
    fs::remove_file(w.path("--other--/o.jsonl")).unwrap();
    let after_delete = w.catalog().scan(&Scope::CurrentFolder("/p".into()), &|_, _| {});
    assert_eq!(after_delete.sessions.len(), 3);
    let all = w.scan();
    assert_eq!(all.stats.unchanged, 4);
    assert_eq!(all.sessions, w.truth());
}

/// Write `bytes` as the index file, then check the scan ignores it, answers right and rebuilds.
fn assert_bad_index_is_rebuilt(w: &World, bytes: &[u8]) {
    fs::write(w.index_file(), bytes).unwrap();
    let report = w.scan();
    assert!(report.stats.index_error.is_some(), "the bad index was used");
    assert_eq!(report.stats.rescanned, 4);
    assert_eq!(report.sessions, w.truth());
    assert!(report.stats.index_written);
    let again = w.scan();
    assert_eq!((again.stats.unchanged, again.stats.bytes_read), (4, 0));
}

#[test]
fn damaged_foreign_truncated_or_newer_indexes_are_rebuilt() {
    let w = World::new();
    w.scan();
    let good = fs::read(w.index_file()).unwrap();
    let mut flipped = good.clone();
    let mid = good.len() / 2;
    flipped[mid] ^= 0xff;
    assert_bad_index_is_rebuilt(&w, &flipped);
    assert_bad_index_is_rebuilt(&w, &good[..good.len() - 10]);
    assert_bad_index_is_rebuilt(&w, &good[..20]);
    assert_bad_index_is_rebuilt(&w, b"");
    assert_bad_index_is_rebuilt(&w, b"{\"not\": \"an index\"}\n");
    assert_bad_index_is_rebuilt(&w, &vec![0xA5; good.len()]);
    let mut newer = good.clone();
    newer[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let header_hash = hash64(&newer[..56], 4);
    newer[56..64].copy_from_slice(&header_hash.to_le_bytes());
    assert_bad_index_is_rebuilt(&w, &newer);
    let mut text_damage = good;
    let last = text_damage.len() - 1;
    text_damage[last] ^= 1;
    assert_bad_index_is_rebuilt(&w, &text_damage);
}

/// Texts a warm scan left in the index, found damaged when the picker reads them, are read again
/// from the session files instead.
#[test]
fn deferred_texts_from_a_damaged_texts_file_are_read_from_the_sessions() {
    let w = World::new();
    w.scan();
    let (tx, rx) = mpsc::channel();
    let deferred = Arc::new(w.catalog()).scan_in_background_deferring_texts(Scope::All, tx).join().unwrap();
    while rx.try_recv().is_ok() {}
    let texts = pitree::catalog::index::texts_path(&w.index_file());
    let mut bytes = fs::read(&texts).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(&texts, &bytes).unwrap();
    let loaded = deferred.expect("a warm scan defers the texts").load();
    let truth = w.truth();
    assert_eq!(loaded.len(), truth.len());
    for s in &truth {
        assert_eq!(loaded.get(&s.path), Some(s.all_messages_text.as_str()), "{}", s.path.display());
    }
}

#[test]
fn a_damaged_texts_file_is_noticed_when_its_texts_are_read() {
    let w = World::new();
    w.scan();
    let texts = pitree::catalog::index::texts_path(&w.index_file());
    let mut bytes = fs::read(&texts).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(&texts, &bytes).unwrap();
    w.append("--p--/a.jsonl", &lines(&[message("aaaa-6", Some("aaaa-5"), "user", "z", 44)]));
    // A listing without texts reads none: it continues the grown file and trusts the rest.
    let plain = w.catalog().with_texts(false).scan(&Scope::All, &|_, _| {});
    assert!(plain.stats.index_error.is_none());
    assert_eq!((plain.stats.continued, plain.stats.unchanged), (1, 3));
    // The first listing that reads texts finds the damage and rebuilds.
    let full = w.scan();
    assert!(full.stats.index_error.is_some());
    assert_eq!(full.stats.rescanned, 4);
    assert_eq!(full.sessions, w.truth());
    assert_eq!(w.scan().stats.index_error, None);
}

#[cfg(unix)]
#[test]
fn the_index_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let w = World::new();
    w.scan();
    let mode = fs::metadata(w.index_file()).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let dir_mode = fs::metadata(&w.cache).unwrap().permissions().mode();
    assert_eq!(dir_mode & 0o077, 0);
    let leftovers: Vec<_> = fs::read_dir(&w.cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn two_catalogs_listing_at_once_agree_and_leave_a_valid_index() {
    let w = World::new();
    for round in 0..6 {
        w.append(
            "--p--/a.jsonl",
            &lines(&[message(&format!("aaaa-x{round}"), Some("aaaa-5"), "user", "again", 50)]),
        );
        let truth = w.truth();
        let results: Vec<ScanReport> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2).map(|_| s.spawn(|| w.scan())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for r in &results {
            assert_eq!(r.sessions, truth, "round {round}");
        }
        let index = Index::load(&w.index_file(), true).unwrap();
        assert_eq!(index.records.len(), 4);
        let warm = w.scan();
        assert_eq!((warm.stats.unchanged, warm.stats.bytes_read), (4, 0));
    }
}

#[test]
fn background_scan_reports_progress_rows_and_done() {
    let w = World::new();
    let catalog = Arc::new(w.catalog().with_live(|p: &Path| p.ends_with("a.jsonl")));
    for warm in [false, true] {
        let (tx, rx) = mpsc::channel();
        let handle = catalog.scan_in_background(Scope::All, tx);
        let mut found: Vec<SessionSummary> = Vec::new();
        let mut last_progress = (0, 0);
        let mut done = None;
        for event in rx {
            match event {
                ScanEvent::Progress { done, total } => last_progress = (done, total),
                ScanEvent::Found(batch) => found.extend(batch),
                ScanEvent::Done { warnings, stats } => done = Some((warnings, stats)),
            }
        }
        handle.join().unwrap();
        let (warnings, stats) = done.expect("a Done event");
        assert!(warnings.is_empty());
        assert_eq!(last_progress, (4, 4));
        assert_eq!(stats.unchanged, if warm { 4 } else { 0 });
        pitree::catalog::sort_recent(&mut found, pitree::catalog::TieBreak::Mtime);
        let mut truth = w.truth();
        for s in &mut truth {
            s.live = s.path.ends_with("a.jsonl");
        }
        assert_eq!(found, truth);
    }
}

/// A background scan of hundreds of files sends what it finds in a few batches, not a Found and
/// a Progress per file, and still every session, the full count, and the end last; the texts of
/// the files it read come after it, one per session.
#[test]
fn a_background_scan_sends_its_files_in_batches() {
    let w = World::new();
    for i in 0..400 {
        w.write(&format!("--p--/many{i}.jsonl"), &session(&format!("m{i}"), "/p", 4));
    }
    let (tx, rx) = mpsc::channel();
    let deferred = Arc::new(w.catalog()).scan_in_background_deferring_texts(Scope::All, tx).join().unwrap();
    let events: Vec<ScanEvent> = rx.try_iter().collect();
    let found: usize = events.iter().map(|e| if let ScanEvent::Found(b) = e { b.len() } else { 0 }).sum();
    let sends = events.iter().filter(|e| matches!(e, ScanEvent::Found(_))).count();
    let last_progress = events.iter().rev().find_map(|e| match e {
        ScanEvent::Progress { done, total } => Some((*done, *total)),
        _ => None,
    });
    assert_eq!(found, w.truth().len());
    assert!(sends < 100, "{sends} batches for 404 files");
    assert_eq!(last_progress, Some((404, 404)));
    assert!(matches!(events.last(), Some(ScanEvent::Done { .. })));
    assert_eq!(deferred.expect("the texts come after the scan").load().len(), found);
}

#[test]
fn dropping_the_receiver_stops_a_background_scan() {
    let w = World::new();
    for i in 0..40 {
        w.write(&format!("--p--/many{i}.jsonl"), &session(&format!("m{i}"), "/p", 4));
    }
    let catalog = Arc::new(w.catalog());
    let (tx, rx) = mpsc::channel();
    drop(rx);
    catalog.scan_in_background(Scope::All, tx).join().unwrap();
}

#[test]
fn progress_counts_every_file() {
    let w = World::new();
    let seen = std::sync::Mutex::new(Vec::new());
    let report = w.catalog().scan(&Scope::All, &|done, total| seen.lock().unwrap().push((done, total)));
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.first(), Some(&(0, 4)));
    assert_eq!(seen.iter().map(|p| p.0).max(), Some(4));
    assert_eq!(report.stats.files, 4);
}

#[test]
fn mtime_only_changes_are_checked_not_rescanned() {
    let w = World::new();
    w.scan();
    bump_mtime(&w.path("flat.jsonl"));
    let report = w.scan();
    assert_eq!((report.stats.continued, report.stats.bytes_read), (1, 0));
    assert_eq!(report.sessions, w.truth());
}

#[test]
fn a_file_modified_just_before_its_scan_is_checked_not_trusted() {
    let w = World::new();
    let path = w.path("--p--/a.jsonl");
    let text = session("aaaa", "/p", 6);
    fs::write(&path, &text).unwrap();
    // "Just now", whatever the load: a time after the scan is as recent as it gets.
    let mtime = std::time::SystemTime::now() + Duration::from_secs(5);
    fs::File::options().write(true).open(&path).unwrap().set_modified(mtime).unwrap();
    let first = w.scan();
    assert_eq!(first.sessions, w.truth());
    // Rewritten in the same timestamp tick with the same size: the change key is equal.
    let rewritten = text.replace("text 3 of aaaa", "TEXT 3 OF AAAA");
    assert_eq!(rewritten.len(), text.len());
    fs::write(&path, &rewritten).unwrap();
    fs::File::options().write(true).open(&path).unwrap().set_modified(mtime).unwrap();
    let second = w.scan();
    assert_eq!((second.stats.unchanged, second.stats.rescanned), (3, 1), "the racy record is not trusted");
    assert_eq!(second.sessions, w.truth());
    assert!(second.sessions.iter().any(|s| s.all_messages_text.contains("TEXT 3 OF AAAA")));
}

/// What a random history of changes and listings does to one of the nested sessions.
#[derive(Debug, Clone)]
enum Op {
    /// Append `n` messages (completing a torn line first).
    Append { file: usize, n: u8 },
    /// Append the first half of a message, without its newline.
    Torn { file: usize },
    /// Rewrite the file shorter, with new text (pi never does; another tool might).
    Rewrite { file: usize, keep: u8 },
    /// Date the file in the past (a listing right after a write sees it as recent).
    Age { file: usize },
    /// List: without texts (`pitree list`), with texts (a query), or as the picker (texts
    /// deferred and read afterwards).
    List(u8),
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        3 => (0..3usize, 1..4u8).prop_map(|(file, n)| Op::Append { file, n }),
        1 => (0..3usize).prop_map(|file| Op::Torn { file }),
        1 => (0..3usize, 0..6u8).prop_map(|(file, keep)| Op::Rewrite { file, keep }),
        1 => (0..3usize).prop_map(|file| Op::Age { file }),
        3 => (0..3u8).prop_map(Op::List),
    ]
}

/// The three nested sessions of [`World`] as the operations change them.
struct Files {
    /// Per file: how many messages it has, and the rest of a torn line.
    state: [(u32, Option<String>); 3],
    generation: u32,
}

impl Files {
    const NAMES: [(&'static str, &'static str); 3] = [("a", "aaaa"), ("b", "bbbb"), ("c", "cccc")];

    fn rel(file: usize) -> String {
        format!("--p--/{}.jsonl", Files::NAMES[file].0)
    }

    fn apply(&mut self, w: &World, op: &Op) {
        match *op {
            Op::Append { file, n } => {
                let id = Files::NAMES[file].1;
                let (count, torn) = &mut self.state[file];
                let mut text = torn.take().map(|rest| format!("{rest}\n")).unwrap_or_default();
                for _ in 0..n {
                    let role = if *count % 2 == 0 { "user" } else { "assistant" };
                    let parent = format!("{id}-{}", *count - 1);
                    let words =
                        format!("g{} m{count} {}", self.generation, "é\\n\\\"".repeat(*count as usize % 3));
                    text.push_str(&message(
                        &format!("{id}-{count}"),
                        Some(&parent),
                        role,
                        &words,
                        *count % 60,
                    ));
                    text.push('\n');
                    *count += 1;
                }
                w.append_now(&Files::rel(file), &text);
            }
            Op::Torn { file } => {
                let id = Files::NAMES[file].1;
                let (count, torn) = &mut self.state[file];
                if torn.is_none() {
                    let line = message(
                        &format!("{id}-{count}"),
                        Some(&format!("{id}-{}", *count - 1)),
                        "user",
                        "torn",
                        1,
                    );
                    let (first, rest) = line.split_at(line.len() / 2);
                    w.append_now(&Files::rel(file), first);
                    *torn = Some(rest.to_string());
                    *count += 1;
                }
            }
            Op::Rewrite { file, keep } => {
                self.generation += 1;
                let id = Files::NAMES[file].1;
                let keep = u32::from(keep) + 1;
                let text = session(id, "/p", keep).replace("text ", &format!("gen{} ", self.generation));
                fs::write(w.path(&Files::rel(file)), text).unwrap();
                self.state[file] = (keep, None);
            }
            Op::Age { file } => age(&w.path(&Files::rel(file))),
            Op::List(_) => {}
        }
    }
}

/// The summaries without their texts, and the texts by path.
fn split_texts(mut sessions: Vec<SessionSummary>) -> (Vec<SessionSummary>, Vec<(PathBuf, String)>) {
    sessions.sort_by(|a, b| a.path.cmp(&b.path));
    let texts =
        sessions.iter_mut().map(|s| (s.path.clone(), std::mem::take(&mut s.all_messages_text))).collect();
    (sessions, texts)
}

/// Every listing in a random history of appends, torn lines, rewrites and listings of every kind
/// equals a scan without index, texts included wherever the listing gives them.
#[test]
fn any_history_of_changes_and_listings_lists_what_a_fresh_scan_finds() {
    use proptest::prelude::*;
    let config = ProptestConfig { cases: 48, ..ProptestConfig::default() };
    proptest!(config, |(ops in proptest::collection::vec(op(), 1..24))| {
        let w = World::new();
        let mut files = Files { state: [(6, None), (6, None), (6, None)], generation: 0 };
        for op in &ops {
            files.apply(&w, op);
            let Op::List(kind) = op else { continue };
            let (truth, truth_texts) = split_texts(w.truth());
            match kind {
                0 => {
                    let report = w.catalog().with_texts(false).scan(&Scope::All, &|_, _| {});
                    prop_assert_eq!(split_texts(report.sessions).0, truth, "plain list after {:?}", ops);
                }
                1 => {
                    let report = w.scan();
                    let (sessions, texts) = split_texts(report.sessions);
                    prop_assert_eq!(sessions, truth, "list with texts after {:?}", ops);
                    prop_assert_eq!(texts, truth_texts, "texts after {:?}", ops);
                }
                _ => {
                    let (tx, rx) = mpsc::channel();
                    let handle = Arc::new(w.catalog()).scan_in_background_deferring_texts(Scope::All, tx);
                    let deferred = handle.join().unwrap();
                    let mut found = Vec::new();
                    while let Ok(event) = rx.try_recv() {
                        if let ScanEvent::Found(batch) = event {
                            found.extend(batch);
                        }
                    }
                    prop_assert!(found.iter().all(|s| s.all_messages_text.is_empty()), "sent with texts");
                    let later = deferred.map(|d| d.load());
                    for s in &mut found {
                        if let Some(text) = later.as_ref().and_then(|t| t.get(&s.path)) {
                            s.all_messages_text = text.to_string();
                        }
                    }
                    let (sessions, texts) = split_texts(found);
                    prop_assert_eq!(sessions, truth, "picker listing after {:?}", ops);
                    prop_assert_eq!(texts, truth_texts, "picker texts after {:?}", ops);
                }
            }
        }
    });
}
