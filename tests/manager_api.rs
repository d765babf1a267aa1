//! pi-reference §5 behaviors 1–61 and 113–118, as they apply to a `SessionManager`, checked on
//! files in temporary folders: opening (empty, corrupt, missing, legacy files), deferred and
//! exclusive file creation, appends and their safety, ids and names, the leaf, labels, names,
//! tree and context, listing and `continue_recent`, and the fork operations.
//!
//! Where pi 1.6.0 changed a behavior the reference describes for older pi, 1.6.0's is checked:
//! header discovery skips unreadable lines and reads up to 1 MiB (8, 9), and a user message (not
//! only an assistant one) starts the file (6, 114).

use std::path::{Path, PathBuf};

use pitree::manager::{
    AgentMessage, ContentBlock, Error, MessageContent, NewSessionOptions, SessionEntry, SessionManager,
    to_json_string,
};
use pitree::session::DamageKind;
use serde_json::{Value, json};

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s-1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#;

fn user(text: &str) -> AgentMessage {
    AgentMessage::user(text)
}

fn assistant(text: &str) -> AgentMessage {
    AgentMessage::assistant("anthropic-messages", "anthropic", "claude-test", text)
}

fn create(dir: &Path) -> SessionManager {
    SessionManager::create("/p", Some(dir), NewSessionOptions::default()).unwrap()
}

fn memory() -> SessionManager {
    SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new()).unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn file_of(sm: &SessionManager) -> PathBuf {
    sm.session_file().unwrap().to_path_buf()
}

fn ids(entries: &[&SessionEntry]) -> Vec<String> {
    entries.iter().map(|e| e.id().to_string()).collect()
}

fn roles(sm: &SessionManager) -> Vec<String> {
    sm.build_session_context().messages.iter().map(|m| m.role().to_string()).collect()
}

/// A raw entry line.
fn entry(id: &str, parent: Option<&str>, ts: &str, text: &str) -> String {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts,
           "message": {"role": "user", "content": text, "timestamp": 1}})
    .to_string()
}

fn write_file(dir: &Path, name: &str, lines: &[&str]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path
}

// --- Parsing and files (1–14) ---

#[test]
fn b01_an_empty_file_gets_one_header_and_keeps_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.jsonl");
    std::fs::write(&path, "").unwrap();
    let sm = SessionManager::open(&path, None, None).unwrap();
    assert_eq!(sm.session_file(), Some(path.as_path()));
    let written = lines(&path);
    assert_eq!(written.len(), 1);
    assert_eq!((written[0]["type"].as_str(), written[0]["version"].as_u64()), (Some("session"), Some(3)));
    let again = SessionManager::open(&path, None, None).unwrap();
    assert_eq!(again.session_id(), sm.session_id());
}

#[test]
fn b02_b03_files_that_are_not_sessions_are_refused_and_untouched() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("g.jsonl", "garbage\n"), ("m.jsonl", "{\"type\":\"message\",\"id\":\"1\"}\n")] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let err = SessionManager::open(&path, None, None).unwrap_err();
        assert!(matches!(err, Error::NotASession(_)), "{err}");
        assert!(err.to_string().starts_with("Session file is not a valid pi session: "));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
}

#[test]
fn b04_b12_unreadable_lines_are_skipped_counted_and_never_the_leaf() {
    let dir = tempfile::tempdir().unwrap();
    let a = entry("a0000001", None, "2025-01-01T00:00:01.000Z", "hi");
    let path = write_file(
        dir.path(),
        "s.jsonl",
        &[HEADER, "not valid json", &a, "null", "42", r#"{"type":"custom"}"#],
    );
    let sm = SessionManager::open(&path, None, None).unwrap();
    assert_eq!(sm.entries().len(), 1);
    assert_eq!(sm.leaf_id(), Some("a0000001"));
    let kinds: Vec<DamageKind> = sm.damage().iter().map(|d| d.kind).collect();
    assert_eq!(
        kinds,
        [DamageKind::Malformed, DamageKind::NotAnObject, DamageKind::NotAnObject, DamageKind::MissingId]
    );
}

#[test]
fn b06_a_missing_path_is_written_exactly_there_once_the_conversation_starts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.jsonl");
    let mut sm = SessionManager::open(&path, None, None).unwrap();
    sm.append_model_change("anthropic", "claude-test").unwrap();
    assert!(!path.exists());
    sm.append_message(user("hi")).unwrap();
    let written = lines(&path);
    assert_eq!(written.len(), 3);
    assert_eq!(written[0]["id"], sm.session_id());
}

#[test]
fn b08_b09_headers_after_garbage_or_longer_than_512_bytes_are_found_by_continue_recent() {
    let dir = tempfile::tempdir().unwrap();
    let long_cwd = format!("/p{}", "/x".repeat(400));
    let header = json!({"type":"session","version":3,"id":"long","timestamp":"2025-01-01T00:00:00.000Z","cwd":long_cwd});
    write_file(
        dir.path(),
        "a.jsonl",
        &["garbage", &header.to_string(), &entry("a1", None, "2025-01-01T00:00:01.000Z", "x")],
    );
    let sm = SessionManager::continue_recent(&long_cwd, Some(dir.path())).unwrap();
    assert_eq!(sm.session_id(), "long");
    assert_eq!(sm.leaf_id(), Some("a1"));
}

#[test]
fn b10_a_numeric_header_id_is_refused_by_open_but_listed() {
    let dir = tempfile::tempdir().unwrap();
    let header =
        r#"{"type":"session","version":3,"id":12345,"timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#;
    let path =
        write_file(dir.path(), "n.jsonl", &[header, &entry("a1", None, "2025-01-01T00:00:01.000Z", "x")]);
    assert!(matches!(SessionManager::open(&path, None, None), Err(Error::NotASession(_))));
    let listed = SessionManager::list("/p", Some(dir.path()), |_, _| {}).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, "12345");
}

#[test]
fn b11_a_header_only_file_has_no_leaf_and_no_context() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "h.jsonl", &[HEADER]);
    let sm = SessionManager::open(&path, None, None).unwrap();
    assert_eq!(sm.leaf_id(), None);
    assert!(sm.build_session_context().messages.is_empty());
    assert_eq!(sm.tree().nodes().len(), 0);
    let listed = SessionManager::list("/p", Some(dir.path()), |_, _| {}).unwrap();
    assert_eq!((listed[0].message_count, listed[0].first_message.as_str()), (0, "(no messages)"));
}

#[test]
fn b13_other_file_names_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.txt", "b.json"] {
        write_file(dir.path(), name, &[HEADER, &entry("a1", None, "2025-01-01T00:00:01.000Z", "x")]);
    }
    assert!(SessionManager::list("/p", Some(dir.path()), |_, _| {}).unwrap().is_empty());
    assert_ne!(SessionManager::continue_recent("/p", Some(dir.path())).unwrap().session_id(), "s-1");
}

// --- Migration (15–21) ---

fn legacy_copy(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/edge").join(name), &path)
        .unwrap();
    path
}

#[test]
fn b15_b18_v1_files_are_migrated_in_memory_and_on_disk_with_a_backup_before_the_first_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = legacy_copy(dir.path(), "v1-legacy.jsonl");
    let original = std::fs::read(&path).unwrap();
    let mut sm = SessionManager::open(&path, None, None).unwrap();
    assert_eq!(sm.header().version, Some(3));
    let entries = sm.entries();
    assert!(entries.iter().all(|e| e.id().len() == 8 && e.id().bytes().all(|b| b.is_ascii_hexdigit())));
    assert_eq!(entries[0].parent_id(), None);
    assert!(entries.windows(2).all(|w| w[1].parent_id() == Some(w[0].id())));
    let Some(SessionEntry::Compaction(c)) = entries.iter().find(|e| e.entry_type() == "compaction") else {
        panic!("no compaction")
    };
    assert_eq!(
        c.first_kept_entry_id,
        entries[3].id(),
        "firstKeptEntryIndex 4 = the 4th entry after the header"
    );
    assert!(!c.extra.contains_key("firstKeptEntryIndex"));
    assert_eq!(std::fs::read(&path).unwrap(), original, "opening does not write");
    let before: Vec<String> = sm.entries().iter().map(|e| e.id().to_string()).collect();
    let id = sm.append_message(user("after migration")).unwrap();
    let backup = sm.migration_backup().unwrap().to_path_buf();
    assert_eq!(std::fs::read(&backup).unwrap(), original);
    let again = SessionManager::open(&path, None, None).unwrap();
    assert_eq!(again.header().version, Some(3));
    let after: Vec<String> = again.entries().iter().map(|e| e.id().to_string()).collect();
    assert_eq!(after[..before.len()], before[..]);
    assert_eq!(again.leaf_id(), Some(id.as_str()));
}

#[test]
fn b16_b17_b20_v2_keeps_ids_renames_hook_messages_and_keeps_unreadable_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = legacy_copy(dir.path(), "v2-legacy.jsonl");
    let mut sm = SessionManager::open(&path, None, None).unwrap();
    assert_eq!(sm.entries()[0].id(), "0a0a0a01");
    assert_eq!(sm.entry("0a0a0a02").unwrap().message().unwrap().role(), "custom");
    sm.append_session_info("migrated").unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(r#""parentId":"0a0a0a03" MALFORMED"#), "the unreadable line is kept");
    assert!(text.lines().next().unwrap().contains(r#""version":3"#));
    assert!(!text.contains("hookMessage"));
}

#[test]
fn b19_b21_v3_and_future_versions_are_read_without_any_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = legacy_copy(dir.path(), "future-version.jsonl");
    let before = std::fs::read(&path).unwrap();
    let sm = SessionManager::open(&path, None, None).unwrap();
    assert_eq!(sm.header().version, Some(7));
    assert!(!sm.entries().is_empty());
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_header_version_written_as_a_string_is_read_as_pi_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let header = |v: &str| {
        format!(
            r#"{{"type":"session","version":{v},"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}}"#
        )
    };
    let entry = r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#;
    for (written, read_as, migrates) in
        [(r#""3""#, 3, false), (r#""2""#, 3, true), (r#""abc""#, 3, false), (r#""漢字""#, 3, false)]
    {
        let path = dir.path().join(format!("v{}.jsonl", written.trim_matches('"')));
        std::fs::write(&path, format!("{}\n{entry}\n", header(written))).unwrap();
        let mut sm = SessionManager::open(&path, None, None).unwrap();
        assert_eq!(sm.header().version, Some(read_as), "{written}");
        assert_eq!(sm.leaf_id(), Some("a1"), "{written}: the v2/v3 id is kept");
        sm.append_session_info("named").unwrap();
        assert_eq!(sm.migration_backup().is_some(), migrates, "{written}");
    }
}

// --- IDs and naming (22–26) ---

#[test]
fn b22_b23_ids_and_file_names_are_pis() {
    let dir = tempfile::tempdir().unwrap();
    let mut sm = create(dir.path());
    let mut seen = std::collections::HashSet::new();
    for i in 0..100 {
        let id = sm.append_message(if i % 2 == 0 { user("u") } else { assistant("a") }).unwrap();
        assert!(
            id.len() == 8 && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
            "{id}"
        );
        assert!(seen.insert(id));
    }
    let name = file_of(&sm).file_name().unwrap().to_string_lossy().into_owned();
    let (ts, rest) = name.split_once('_').unwrap();
    assert_eq!(rest, format!("{}.jsonl", sm.session_id()));
    assert_eq!(ts, sm.header().timestamp.replace([':', '.'], "-"));
    assert_eq!(uuid_version(sm.session_id()), Some(7));
}

fn uuid_version(id: &str) -> Option<u32> {
    id.split('-').nth(2)?.chars().next()?.to_digit(16)
}

#[test]
fn b24_the_default_folder_encodes_the_cwd() {
    let dir = pitree::manager::default_session_dir(Path::new("/home/u/my.proj")).unwrap();
    assert_eq!(dir.file_name().unwrap(), "--home-u-my.proj--");
}

#[test]
fn b25_custom_session_ids_are_validated() {
    let dir = tempfile::tempdir().unwrap();
    let with = |id: &str| NewSessionOptions { id: Some(id.to_string()), ..Default::default() };
    assert_eq!(
        SessionManager::create("/p", Some(dir.path()), with("a.b-c_1")).unwrap().session_id(),
        "a.b-c_1"
    );
    for bad in ["-bad", "bad-", "a b", "a/b", ""] {
        assert!(matches!(
            SessionManager::create("/p", Some(dir.path()), with(bad)),
            Err(Error::InvalidSessionId(_))
        ));
        assert!(matches!(
            SessionManager::in_memory("/p", with(bad), Vec::new()),
            Err(Error::InvalidSessionId(_))
        ));
    }
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
}

#[test]
fn b26_the_same_custom_id_twice_finds_the_first_run_once_it_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let with = || NewSessionOptions { id: Some("fixed".into()), ..Default::default() };
    let first = SessionManager::create("/p", Some(dir.path()), with()).unwrap();
    assert_eq!(SessionManager::find_by_id("/p", "fixed", Some(dir.path())), None);
    drop(first);
    let mut second = SessionManager::create("/p", Some(dir.path()), with()).unwrap();
    second.append_message(user("hi")).unwrap();
    assert_eq!(SessionManager::find_by_id("/p", "fixed", Some(dir.path())).as_deref(), second.session_file());
}

// --- Deferred creation and write safety ---

#[test]
fn nothing_is_written_before_the_conversation_then_everything_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut sm = create(dir.path());
    sm.append_model_change("anthropic", "claude-test").unwrap();
    sm.append_thinking_level_change("high").unwrap();
    sm.append_custom_entry("ext.state", None).unwrap();
    let path = file_of(&sm);
    assert!(!path.exists());
    sm.append_message(user("hi")).unwrap();
    let types: Vec<String> = lines(&path).iter().map(|l| l["type"].as_str().unwrap().to_string()).collect();
    assert_eq!(types, ["session", "model_change", "thinking_level_change", "custom", "message"]);
    sm.append_message(assistant("hello")).unwrap();
    assert_eq!(lines(&path).len(), 6);
    let text = std::fs::read_to_string(&path).unwrap();
    let expected: String = std::iter::once(to_json_string(sm.header()))
        .chain(sm.entries().iter().map(to_json_string))
        .map(|l| l + "\n")
        .collect();
    assert_eq!(text, expected, "the file is exactly the typed entries as pi writes them");
}

#[test]
fn the_first_write_refuses_an_existing_file_and_takes_the_entry_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut sm = create(dir.path());
    let path = file_of(&sm);
    std::fs::write(&path, "someone else's\n").unwrap();
    let err = sm.append_message(user("hi")).unwrap_err();
    assert!(matches!(err, Error::Storage(_)), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "someone else's\n");
    assert!(sm.entries().is_empty());
    assert_eq!(sm.leaf_id(), None);
}

#[test]
fn a_file_that_changed_on_disk_is_not_written_and_memory_stays_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let mut sm = create(dir.path());
    let a = sm.append_message(user("hi")).unwrap();
    let path = file_of(&sm);
    let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    std::io::Write::write_all(
        &mut file,
        entry("pi000001", Some(&a), "2025-01-01T00:00:09.000Z", "pi").as_bytes(),
    )
    .unwrap();
    std::io::Write::write_all(&mut file, b"\n").unwrap();
    let before = std::fs::read(&path).unwrap();
    let err = sm.append_message(assistant("late")).unwrap_err();
    assert!(matches!(err, Error::FileChanged { .. }), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(sm.entries().len(), 1);
    assert_eq!(sm.leaf_id(), Some(a.as_str()));
    let reopened = SessionManager::open(&path, None, None).unwrap();
    assert_eq!(reopened.leaf_id(), Some("pi000001"));
}

#[test]
fn b34_an_unterminated_last_line_is_repaired_before_appending() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, format!("{HEADER}\n{}", entry("a1", None, "2025-01-01T00:00:01.000Z", "x")))
        .unwrap();
    let mut sm = SessionManager::open(&path, None, None).unwrap();
    let b = sm.append_message(assistant("y")).unwrap();
    let reopened = SessionManager::open(&path, None, None).unwrap();
    assert_eq!(reopened.entries().len(), 2);
    assert_eq!(reopened.leaf_id(), Some(b.as_str()));
    assert!(reopened.damage().is_empty());
}

// --- Leaf (27–35) ---

fn abc(dir: &Path) -> (SessionManager, [String; 3]) {
    let mut sm = create(dir);
    let a = sm.append_message(user("a")).unwrap();
    let b = sm.append_message(assistant("b")).unwrap();
    let c = sm.append_message(user("c")).unwrap();
    (sm, [a, b, c])
}

#[test]
fn b27_b28_branch_is_not_persisted_until_something_is_appended() {
    let dir = tempfile::tempdir().unwrap();
    let (mut sm, [a, _, c]) = abc(dir.path());
    sm.branch(&a).unwrap();
    let path = file_of(&sm);
    assert_eq!(SessionManager::open(&path, None, None).unwrap().leaf_id(), Some(c.as_str()));
    let d = sm.append_message(user("d")).unwrap();
    let reopened = SessionManager::open(&path, None, None).unwrap();
    assert_eq!(reopened.leaf_id(), Some(d.as_str()));
    assert_eq!(reopened.entry(&d).unwrap().parent_id(), Some(a.as_str()));
    assert_eq!(ids(&reopened.build_context_entries()), [a, d]);
}

#[test]
fn b29_reset_leaf_starts_a_second_root() {
    let dir = tempfile::tempdir().unwrap();
    let (mut sm, _) = abc(dir.path());
    sm.reset_leaf();
    let e = sm.append_message(user("e")).unwrap();
    let reopened = SessionManager::open(file_of(&sm), None, None).unwrap();
    assert_eq!(reopened.tree().roots().count(), 2);
    assert_eq!(reopened.leaf_id(), Some(e.as_str()));
    assert_eq!(ids(&reopened.build_context_entries()), [e]);
}

#[test]
fn b30_b31_a_label_after_a_move_makes_the_move_durable() {
    let dir = tempfile::tempdir().unwrap();
    let (mut sm, [a, b, _]) = abc(dir.path());
    sm.branch(&b).unwrap();
    let label = sm.append_label_change(&a, Some("start")).unwrap();
    let reopened = SessionManager::open(file_of(&sm), None, None).unwrap();
    assert_eq!(reopened.leaf_id(), Some(label.as_str()));
    assert_eq!(reopened.entry(&label).unwrap().parent_id(), Some(b.as_str()));
    assert_eq!(ids(&reopened.branch_path(None)), [a.clone(), b, label]);
    assert_eq!(roles(&reopened), ["user", "assistant"]);
}

#[test]
fn b32_b107_branch_with_summary_is_written_with_the_abandoned_leaf_as_from_id() {
    let dir = tempfile::tempdir().unwrap();
    let (mut sm, [a, _, c]) = abc(dir.path());
    let details = json!({"readFiles": ["a.rs"], "modifiedFiles": []});
    let s = sm.branch_with_summary(Some(&a), "explored c", Some(details.clone()), Some(true), None).unwrap();
    let last = lines(&file_of(&sm)).pop().unwrap();
    assert_eq!(
        last,
        json!({"type":"branch_summary","id":s,"parentId":a,"timestamp":last["timestamp"],"fromId":c,
               "summary":"explored c","details":details,"fromHook":true})
    );
    assert_eq!(roles(&sm), ["user", "branchSummary"]);
    sm.reset_leaf();
    let root = sm.branch_with_summary(None, "", None, None, None).unwrap();
    let Some(SessionEntry::BranchSummary(e)) = sm.entry(&root) else { panic!() };
    assert_eq!((e.from_id.as_str(), e.parent_id.as_deref()), ("root", None));
    assert!(sm.build_session_context().messages.is_empty(), "an empty summary adds no message");
    assert!(matches!(
        sm.branch_with_summary(Some("nope"), "x", None, None, None),
        Err(Error::EntryNotFound(_))
    ));
}

// --- Labels and names (36–43) ---

#[test]
fn b36_b40_labels() {
    let mut sm = memory();
    let a = sm.append_message(user("a")).unwrap();
    for l in ["first", "second", "third"] {
        sm.append_label_change(&a, Some(l)).unwrap();
    }
    assert_eq!(sm.label(&a), Some("third"));
    sm.append_label_change(&a, None).unwrap();
    assert_eq!(sm.label(&a), None);
    sm.append_label_change(&a, Some("again")).unwrap();
    sm.append_label_change(&a, Some("")).unwrap();
    assert_eq!(sm.label(&a), None);
    let err = sm.append_label_change("non-existent", Some("x")).unwrap_err();
    assert_eq!(err.to_string(), "Entry non-existent not found");
    assert_eq!(roles(&sm), ["user"]);
    let cleared = sm.entries().iter().rev().nth(2).unwrap();
    let SessionEntry::Label(l) = cleared else { panic!() };
    assert_eq!(l.label, None);
    assert!(!to_json_string(cleared).contains("\"label\":"), "clearing with None writes no label key");
}

#[test]
fn b39_a_label_on_a_missing_target_labels_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let label = r#"{"type":"label","id":"l1","parentId":"a1","timestamp":"2025-01-01T00:00:02.000Z","targetId":"gone","label":"x"}"#;
    let path = write_file(
        dir.path(),
        "l.jsonl",
        &[HEADER, &entry("a1", None, "2025-01-01T00:00:01.000Z", "x"), label],
    );
    let sm = SessionManager::open(&path, None, None).unwrap();
    assert!(sm.tree().nodes().iter().all(|n| n.label.is_none()));
}

#[test]
fn b41_b42_names_clear_and_fold_line_breaks() {
    let mut sm = memory();
    sm.append_session_info("A").unwrap();
    sm.append_session_info("").unwrap();
    assert_eq!(sm.session_name(), None);
    let id = sm.append_session_info("  two\r\nlines  ").unwrap();
    let Some(SessionEntry::SessionInfo(e)) = sm.entry(&id) else { panic!() };
    assert_eq!(e.name.as_deref(), Some("two lines"));
}

// --- Tree and context (44–56) ---

fn at(id: &str, parent: Option<&str>, ts: &str) -> SessionEntry {
    serde_json::from_str(&entry(id, parent, ts, id)).unwrap()
}

#[test]
fn b44_b48_orphans_are_roots_and_children_sort_by_time_roots_by_file_order() {
    let entries = vec![
        at("r1", None, "2025-01-01T00:00:00.000Z"),
        at("c3", Some("r1"), "2025-01-01T00:00:03.000Z"),
        at("c1", Some("r1"), "2025-01-01T00:00:01.000Z"),
        at("c2", Some("r1"), "2025-01-01T00:00:02.000Z"),
        at("o1", Some("missing"), "2025-01-01T00:00:00.000Z"),
    ];
    let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), entries).unwrap();
    let tree = sm.tree();
    let roots: Vec<&str> = tree.roots().map(|n| n.entry.id()).collect();
    assert_eq!(roots, ["r1", "o1"]);
    let r1 = tree.roots().next().unwrap();
    let kids: Vec<&str> = tree.children(r1).map(|n| n.entry.id()).collect();
    assert_eq!(kids, ["c1", "c2", "c3"]);
    assert_eq!(ids(&sm.children("r1")), ["c3", "c1", "c2"], "pi's getChildren keeps file order");
    assert_eq!(ids(&sm.build_context_entries()), ["o1"]);
    sm.branch("c2").unwrap();
    assert_eq!(ids(&sm.build_context_entries()), ["r1", "c2"]);
}

#[test]
fn b45_b46_cycles_and_self_parents_terminate() {
    let entries = vec![
        at("a", Some("b"), "2025-01-01T00:00:00.000Z"),
        at("b", Some("a"), "2025-01-01T00:00:01.000Z"),
        at("s", Some("s"), "2025-01-01T00:00:02.000Z"),
    ];
    let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), entries).unwrap();
    assert_eq!(ids(&sm.branch_path(None)), ["s"]);
    sm.branch("b").unwrap();
    assert_eq!(ids(&sm.branch_path(None)), ["a", "b"]);
    let roots: Vec<&str> = sm.tree().roots().map(|n| n.entry.id()).collect();
    assert_eq!(roots, ["a", "s"]);
}

#[test]
fn b49_b52_compaction_keeps_its_range() {
    let mut sm = memory();
    let _u1 = sm.append_message(user("1")).unwrap();
    sm.append_message(assistant("2")).unwrap();
    let u3 = sm.append_message(user("3")).unwrap();
    sm.append_message(assistant("4")).unwrap();
    assert_eq!(roles(&sm), ["user", "assistant", "user", "assistant"]);
    sm.append_compaction("first", Some(&u3), 100, None, None, None).unwrap();
    sm.append_message(user("6")).unwrap();
    sm.append_message(assistant("7")).unwrap();
    let texts: Vec<String> = sm.build_session_context().messages.iter().map(|m| m.text().unwrap()).collect();
    assert_eq!(texts, ["first", "3", "4", "6", "7"]);
    sm.append_compaction("second", Some("not-on-path"), 200, None, None, None).unwrap();
    sm.append_message(user("9")).unwrap();
    let texts: Vec<String> = sm.build_session_context().messages.iter().map(|m| m.text().unwrap()).collect();
    assert_eq!(texts, ["second", "9"]);
    let own = sm.append_compaction("third", None, 300, None, None, None).unwrap();
    let Some(SessionEntry::Compaction(c)) = sm.entry(&own) else { panic!() };
    assert_eq!(c.first_kept_entry_id, own, "without a kept entry pi points at the compaction itself");
}

#[test]
fn compaction_snapshots_the_system_prompt_and_tools() {
    let mut sm = memory();
    let system: AgentMessage = serde_json::from_value(json!({
        "role": "system", "content": "base", "sections": {"a": "A", "b": "B"},
        "toolsAdded": [{"name": "read"}, {"name": "bash"}], "timestamp": 5
    }))
    .unwrap();
    sm.append_message(system).unwrap();
    let change: AgentMessage = serde_json::from_value(json!({
        "role": "system", "content": "more", "sections": {"a": null},
        "toolsRemoved": [{"name": "read"}], "timestamp": 9
    }))
    .unwrap();
    sm.append_message(change).unwrap();
    sm.append_message(user("hi")).unwrap();
    let id = sm.append_compaction("s", None, 1, None, None, None).unwrap();
    let Some(SessionEntry::Compaction(c)) = sm.entry(&id) else { panic!() };
    let snapshot =
        serde_json::to_value(c.system_message.as_ref().map(|m| AgentMessage::System(Box::new(m.clone()))))
            .unwrap();
    assert_eq!(snapshot["content"], "base\n\nmore");
    assert_eq!(snapshot["sections"], json!({"b": "B"}));
    assert_eq!(snapshot["toolsAdded"], json!([{"name": "bash"}]));
    assert_eq!(roles(&sm), ["system", "compactionSummary"]);
}

#[test]
fn b53_b56_summaries_custom_entries_and_custom_messages_in_context() {
    let mut sm = memory();
    sm.append_thinking_level_change("high").unwrap();
    sm.append_model_change("openai", "gpt-4").unwrap();
    let u = sm.append_message(user("q")).unwrap();
    sm.append_message(assistant("a")).unwrap();
    sm.append_custom_entry("ext", Some(json!({"x": 1}))).unwrap();
    sm.append_custom_message_entry("ext.note", vec![ContentBlock::text("note")], false, None).unwrap();
    sm.branch_with_summary(Some(&u), "tried it", None, None, None).unwrap();
    assert_eq!(roles(&sm), ["user", "branchSummary"]);
    let custom_message = sm.entries().iter().rev().nth(1).unwrap().id().to_string();
    sm.branch(&custom_message).unwrap();
    let ctx = sm.build_session_context();
    assert_eq!(roles(&sm), ["user", "assistant", "custom"]);
    assert_eq!(ctx.thinking_level, "high");
    let model = ctx.model.unwrap();
    assert_eq!((model.provider.as_str(), model.model_id.as_str()), ("anthropic", "claude-test"));
}

#[test]
fn context_edits_replace_or_drop_content_on_their_branch() {
    let mut sm = memory();
    let u = sm.append_message(user("long question")).unwrap();
    let a = sm.append_message(assistant("long answer")).unwrap();
    let note = sm.append_custom_message_entry("ext", "hidden", false, None).unwrap();
    sm.append_context_edit(&u, Some("short".into())).unwrap();
    sm.append_context_edit(&a, Some("brief".into())).unwrap();
    sm.append_context_edit(&note, None).unwrap();
    let ctx = sm.build_session_context();
    assert_eq!(ctx.messages.len(), 2);
    let AgentMessage::Assistant(m) = &ctx.messages[1] else { panic!() };
    assert_eq!(m.content, vec![ContentBlock::text("brief")], "text for an assistant becomes a text block");
    assert_eq!(ctx.messages[0].text().as_deref(), Some("short"));
    let label = sm.append_label_change(&u, Some("x")).unwrap();
    assert!(matches!(sm.append_context_edit(&label, None), Err(Error::NotEditable(_))));
    assert!(matches!(sm.append_context_edit("nope", None), Err(Error::EntryNotFound(_))));
    sm.reset_leaf();
    sm.append_message(user("other root")).unwrap();
    assert!(matches!(sm.append_context_edit(&u, None), Err(Error::NotOnActiveBranch(_))));
    let replaced = sm.entries().iter().find(|e| e.entry_type() == "context_edit").unwrap();
    let SessionEntry::ContextEdit(e) = replaced else { panic!() };
    assert_eq!(e.replacement.as_ref().unwrap().content, MessageContent::Text("short".into()));
}

// --- Listing and sorting (57–61) ---

#[test]
fn b57_b59_listing_fields() {
    let dir = tempfile::tempdir().unwrap();
    let mut sm = create(dir.path());
    sm.append_message(assistant("assistant first")).unwrap();
    let tool: AgentMessage =
        serde_json::from_value(json!({"role":"toolResult","toolCallId":"t","toolName":"bash",
        "content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":2}))
        .unwrap();
    sm.append_message(tool).unwrap();
    sm.append_message(user("the question")).unwrap();
    sm.append_custom_entry("ext", None).unwrap();
    sm.append_session_info("Named").unwrap();
    let listed = SessionManager::list("/p", Some(dir.path()), |_, _| {}).unwrap();
    assert_eq!(listed.len(), 1);
    let s = &listed[0];
    assert_eq!(
        (s.first_message.as_str(), s.message_count, s.name.as_deref()),
        ("the question", 3, Some("Named"))
    );
    assert_eq!(s.path, file_of(&sm));
}

#[test]
fn b60_b61_continue_recent_uses_mtime_and_custom_folders_filter_by_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let mut a_old = SessionManager::create("/a", Some(dir.path()), NewSessionOptions::default()).unwrap();
    a_old.append_message(user("old")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let mut a_new = SessionManager::create("/a", Some(dir.path()), NewSessionOptions::default()).unwrap();
    a_new.append_message(user("new")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let mut b = SessionManager::create("/b", Some(dir.path()), NewSessionOptions::default()).unwrap();
    b.append_message(user("b")).unwrap();
    assert_eq!(
        SessionManager::continue_recent("/a", Some(dir.path())).unwrap().session_id(),
        a_new.session_id()
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    a_old.append_session_info("renamed").unwrap();
    assert_eq!(
        SessionManager::continue_recent("/a", Some(dir.path())).unwrap().session_id(),
        a_old.session_id()
    );
    assert_eq!(SessionManager::list("/a", Some(dir.path()), |_, _| {}).unwrap().len(), 2);
    assert_eq!(SessionManager::list_all(Some(dir.path()), |_, _| {}).unwrap().len(), 3);
    let progress = std::sync::atomic::AtomicUsize::new(0);
    SessionManager::list_all(Some(dir.path()), |done, total| {
        assert!(done <= total);
        progress.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    assert!(progress.into_inner() >= 3);
}

// --- Fork (113–118) ---

#[test]
fn b113_branching_at_an_assistant_writes_the_new_file_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut sm = create(dir.path());
    let a = sm.append_message(user("a")).unwrap();
    let b = sm.append_message(assistant("b")).unwrap();
    sm.append_message(user("c")).unwrap();
    sm.append_message(assistant("d")).unwrap();
    let old = file_of(&sm);
    let new = sm.create_branched_session(&b).unwrap().unwrap();
    assert_eq!(new.parent(), old.parent());
    let written = lines(&new);
    assert_eq!(written.len(), 3);
    assert_eq!(written[0]["parentSession"], old.to_string_lossy().as_ref());
    assert_eq!(written[0]["cwd"], "/p");
    assert_eq!([&written[1]["id"], &written[2]["id"]], [&json!(a), &json!(b)]);
    assert_eq!(sm.session_file(), Some(new.as_path()));
    assert_eq!(sm.leaf_id(), Some(b.as_str()));
}

#[test]
fn b114_branching_without_conversation_defers_then_writes_one_header() {
    let dir = tempfile::tempdir().unwrap();
    let mut sm = create(dir.path());
    let m = sm.append_model_change("anthropic", "claude-test").unwrap();
    sm.append_message(user("u")).unwrap();
    let new = sm.create_branched_session(&m).unwrap().unwrap();
    assert!(!new.exists(), "a model change alone is no conversation");
    sm.append_custom_entry("ext", None).unwrap();
    sm.append_message(assistant("reply")).unwrap();
    let written = lines(&new);
    assert_eq!(written.iter().filter(|l| l["type"] == "session").count(), 1);
    let ids: std::collections::HashSet<&str> =
        written[1..].iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 3);
}

#[test]
fn branching_at_a_user_message_writes_at_once_as_pi_1_6_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut sm = create(dir.path());
    let a = sm.append_message(user("a")).unwrap();
    sm.append_message(assistant("b")).unwrap();
    let new = sm.create_branched_session(&a).unwrap().unwrap();
    assert_eq!(lines(&new).len(), 2);
}

#[test]
fn b115_labels_on_the_path_are_recreated_with_their_timestamps_and_the_chain_relinked() {
    let mut sm = memory();
    let a = sm.append_message(user("a")).unwrap();
    let la = sm.append_label_change(&a, Some("on-a")).unwrap();
    let b = sm.append_message(assistant("b")).unwrap();
    sm.append_label_change(&b, Some("on-b")).unwrap();
    let c = sm.append_message(user("c")).unwrap();
    sm.append_label_change(&c, Some("on-c")).unwrap();
    let label_time = sm.entry(&la).unwrap().timestamp().to_string();
    sm.branch(&b).unwrap();
    assert_eq!(sm.create_branched_session(&b).unwrap(), None);
    assert_eq!(
        sm.entries()[1].parent_id(),
        Some(a.as_str()),
        "b's parent was a label; it is re-chained to a"
    );
    let labels: Vec<(&str, &str, Option<&str>)> = sm
        .entries()
        .iter()
        .filter_map(|e| match e {
            SessionEntry::Label(l) => Some((l.target_id.as_str(), l.timestamp.as_str(), l.label.as_deref())),
            _ => None,
        })
        .collect();
    assert_eq!(labels.len(), 2);
    assert_eq!(labels[0], (a.as_str(), label_time.as_str(), Some("on-a")));
    assert_eq!(sm.label(&c), None);
    assert_eq!(sm.leaf_id(), Some(sm.entries()[3].id()));
    assert!(matches!(sm.create_branched_session("nope"), Err(Error::EntryNotFound(_))));
}

#[test]
fn b116_in_memory_branching_keeps_exactly_the_path() {
    let mut sm = memory();
    let a = sm.append_message(user("a")).unwrap();
    let b = sm.append_message(assistant("b")).unwrap();
    let c = sm.append_message(user("c")).unwrap();
    sm.append_message(assistant("d")).unwrap();
    sm.branch(&c).unwrap();
    sm.append_message(assistant("e")).unwrap();
    let old_id = sm.session_id().to_string();
    sm.create_branched_session(&b).unwrap();
    assert_eq!(sm.entries().iter().map(|e| e.id()).collect::<Vec<_>>(), [a.as_str(), b.as_str()]);
    assert_ne!(sm.session_id(), old_id);
    assert_eq!(sm.header().parent_session, None);
}

#[test]
fn b117_forking_at_the_first_message_is_a_new_empty_session_with_a_parent() {
    let dir = tempfile::tempdir().unwrap();
    let (mut sm, _) = abc(dir.path());
    let old = file_of(&sm).to_string_lossy().into_owned();
    let options = NewSessionOptions { parent_session: Some(old.clone()), ..Default::default() };
    let file = sm.new_session(options).unwrap().unwrap();
    assert!(!file.exists());
    assert_eq!(sm.header().parent_session.as_deref(), Some(old.as_str()));
    sm.append_message(user("again")).unwrap();
    assert_eq!(lines(&file)[0]["parentSession"], old.as_str());
}

#[test]
fn b118_fork_from_copies_every_branch_into_the_target_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let (mut src, [a, _, _]) = abc(dir.path());
    src.branch(&a).unwrap();
    src.append_message(assistant("other branch")).unwrap();
    let source = file_of(&src);
    let source_bytes = std::fs::read(&source).unwrap();
    let target = tempfile::tempdir().unwrap();
    let fork =
        SessionManager::fork_from(&source, "/b", Some(target.path()), NewSessionOptions::default()).unwrap();
    let written = lines(&file_of(&fork));
    assert_eq!(written[0]["cwd"], "/b");
    assert_eq!(written[0]["parentSession"], source.to_string_lossy().as_ref());
    let copied: Vec<Value> = written[1..].to_vec();
    assert_eq!(copied, lines(&source)[1..].to_vec(), "entries are copied verbatim");
    assert_eq!(fork.leaf_id(), src.leaf_id());
    assert_eq!(fork.cwd(), Path::new("/b"));
    assert_eq!(std::fs::read(&source).unwrap(), source_bytes);
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "garbage\n").unwrap();
    let err =
        SessionManager::fork_from(&bad, "/b", Some(target.path()), NewSessionOptions::default()).unwrap_err();
    assert!(err.to_string().starts_with("Cannot fork: source session file is empty or invalid"), "{err}");
}

#[test]
fn fork_from_migrates_a_legacy_source_first_and_leaves_it_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let source = legacy_copy(dir.path(), "v1-legacy.jsonl");
    let before = std::fs::read(&source).unwrap();
    let fork =
        SessionManager::fork_from(&source, "/b", Some(dir.path()), NewSessionOptions::default()).unwrap();
    assert_eq!(std::fs::read(&source).unwrap(), before);
    let migrated = SessionManager::open(&source, None, None).unwrap();
    assert_eq!(
        ids(&fork.entries().iter().collect::<Vec<_>>()),
        ids(&migrated.entries().iter().collect::<Vec<_>>())
    );
    assert_eq!(fork.header().version, Some(3));
    assert_eq!(fork.entries().len(), 10);
    assert!(fork.entries().windows(2).all(|w| w[1].parent_id() == Some(w[0].id())));
}
