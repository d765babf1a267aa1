//! pitree's listing of the fixtures equals pi 1.6.0's own (`listing.pi.json`) field by field and in
//! pi's order: `listAll()` over a copy of `fixtures/agent` (the default layout) and `listAll(dir)`
//! over a copy of the flat `fixtures/edge`. The copies get each listed file's mtime set to pi's
//! `modified` (git does not keep mtimes, and pi orders ties by mtime). A second listing from the
//! index must give the same rows without reading a session file.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use pitree::catalog::locate::{RootSource, SessionsRoot};
use pitree::catalog::{Catalog, ScanReport, Scope, SessionSummary};
use pitree::session::date;
use pitree::session::entry::{Kind, Usage};
use pitree::session::parse::ParsedFile;
use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
/// The agent dir the fixtures' `parentSession` paths were written under.
const RECORDED_AGENT_DIR: &str = "/home/dev/.pi/agent/";

/// Where pitree deliberately lists more than pi: `bom.jsonl` (pi's JSON.parse fails on the BOM, so
/// its first parsed line is not a header; pitree's session reader strips the BOM and opens it).
const EXTRA_IN_PITREE: &[&str] = &["bom.jsonl"];

fn listing(dir: &str) -> Vec<Value> {
    let text = fs::read_to_string(Path::new(FIXTURES).join(dir).join("listing.pi.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["sessions"].as_array().unwrap().clone()
}

/// Copy the `.jsonl` files of `from` into `to`, keeping the folder layout.
fn copy_sessions(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_sessions(&entry.path(), &target);
        } else if entry.path().extension().is_some_and(|e| e == "jsonl") {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn iso_to_time(iso: &str) -> SystemTime {
    let ms = chrono::DateTime::parse_from_rfc3339(iso).unwrap().timestamp_millis();
    SystemTime::UNIX_EPOCH + Duration::from_millis(ms as u64)
}

fn set_mtime(path: &Path, t: SystemTime) {
    fs::File::options().write(true).open(path).unwrap().set_modified(t).unwrap();
}

/// A copy of a fixture folder whose files carry pi's `modified` as their mtime.
fn prepared_copy(dir: &str, tmp: &Path, rows: &[Value]) -> PathBuf {
    let root = tmp.join(dir);
    copy_sessions(&Path::new(FIXTURES).join(dir), &root);
    let fallback = iso_to_time("2025-07-01T12:00:04.000Z");
    for path in walk(&root) {
        set_mtime(&path, fallback);
    }
    for row in rows {
        let rel = row["path"].as_str().unwrap();
        set_mtime(&root.join(rel), iso_to_time(row["modified"].as_str().unwrap()));
    }
    root
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn utf16_head(s: &str, units: usize) -> String {
    let u: Vec<u16> = s.encode_utf16().take(units).collect();
    String::from_utf16_lossy(&u)
}

/// pi's head with its escaped lone surrogates (`\udXXX` written as text) read as U+FFFD, which is
/// what a Rust string holds in their place.
fn pi_text(s: &str) -> String {
    let re = regex::Regex::new(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}").unwrap();
    re.replace_all(s, "\u{fffd}").into_owned()
}

fn pi_id(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn check_row(ours: &SessionSummary, pi: &Value, root: &Path, agent_layout: bool) {
    let path = ours.path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
    let ctx = format!("row {path}");
    assert_eq!(path, pi["path"].as_str().unwrap().trim_start_matches("sessions/"), "{ctx}: path");
    assert_eq!(ours.id, pi_id(&pi["id"]), "{ctx}: id");
    assert_eq!(ours.cwd, pi["cwd"].as_str().unwrap(), "{ctx}: cwd");
    assert_eq!(ours.name.as_deref(), pi["name"].as_str(), "{ctx}: name");
    let parent = ours.parent_session_path.as_deref().map(|p| {
        if agent_layout && pi["parentSessionInsideRoot"] == Value::Bool(true) {
            p.strip_prefix(RECORDED_AGENT_DIR).unwrap_or(p).to_string()
        } else {
            p.to_string()
        }
    });
    assert_eq!(parent.as_deref(), pi["parentSessionPath"].as_str(), "{ctx}: parentSessionPath");
    assert_eq!(
        ours.created_ms.and_then(date::iso_string).as_deref(),
        pi["created"].as_str(),
        "{ctx}: created"
    );
    assert_eq!(date::iso_string(ours.modified_ms).as_deref(), pi["modified"].as_str(), "{ctx}: modified");
    assert_eq!(u64::from(ours.message_count), pi["messageCount"].as_u64().unwrap(), "{ctx}: messageCount");
    assert_eq!(ours.first_message, pi_text(pi["firstMessage"].as_str().unwrap()), "{ctx}: firstMessage");
    let len16 = |s: &str| s.encode_utf16().count() as u64;
    assert_eq!(
        len16(&ours.first_message),
        pi["firstMessageLength"].as_u64().unwrap(),
        "{ctx}: firstMessageLength"
    );
    assert_eq!(
        len16(&ours.all_messages_text),
        pi["allMessagesTextLength"].as_u64().unwrap(),
        "{ctx}: allMessagesTextLength"
    );
    assert_eq!(
        utf16_head(&ours.all_messages_text, 200),
        pi_text(pi["allMessagesTextHead"].as_str().unwrap()),
        "{ctx}: allMessagesTextHead"
    );
}

fn scan(root: &SessionsRoot, cache: &Path) -> ScanReport {
    Catalog::open(root.clone(), Some(cache)).scan(&Scope::All, &|_, _| {})
}

fn assert_listing(report: &ScanReport, pi_rows: &[Value], root: &Path, agent_layout: bool) {
    let ours: Vec<&SessionSummary> =
        report.sessions.iter().filter(|s| !EXTRA_IN_PITREE.iter().any(|x| s.path.ends_with(x))).collect();
    let names = |v: &[&SessionSummary]| v.iter().map(|s| s.path.display().to_string()).collect::<Vec<_>>();
    assert_eq!(ours.len(), pi_rows.len(), "pitree lists {:#?}", names(&ours));
    for (s, pi) in ours.iter().zip(pi_rows) {
        check_row(s, pi, root, agent_layout);
    }
}

#[test]
fn agent_listing_equals_pi() {
    let tmp = tempfile::tempdir().unwrap();
    let rows = listing("agent");
    let agent = prepared_copy("agent", tmp.path(), &rows);
    let root = SessionsRoot::new(agent.join("sessions"), RootSource::AgentDir);
    let cache = tmp.path().join("cache");

    let cold = scan(&root, &cache);
    assert!(cold.warnings.is_empty(), "{:?}", cold.warnings);
    assert_listing(&cold, &rows, &root.path, true);
    assert_eq!(cold.stats.rescanned, 14);
    assert!(cold.stats.index_written);

    let warm = scan(&root, &cache);
    assert_eq!(warm.stats.unchanged, 14);
    assert_eq!(warm.stats.bytes_read, 0);
    assert_eq!(warm.stats.check_bytes, 0);
    assert!(!warm.stats.index_written);
    assert_eq!(warm.sessions, cold.sessions);
}

#[test]
fn edge_listing_equals_pi() {
    let tmp = tempfile::tempdir().unwrap();
    let rows = listing("edge");
    let edge = prepared_copy("edge", tmp.path(), &rows);
    let root = SessionsRoot::new(&edge, RootSource::Flag);
    let cache = tmp.path().join("cache");

    let cold = scan(&root, &cache);
    assert_listing(&cold, &rows, &root.path, false);
    let bom = cold.sessions.iter().find(|s| s.path.ends_with("bom.jsonl")).unwrap();
    assert_eq!((bom.message_count, bom.first_message.as_str()), (4, "first question"));

    let warm = scan(&root, &cache);
    assert_eq!(warm.stats.bytes_read, 0);
    assert_eq!(warm.sessions, cold.sessions);
}

#[test]
fn current_folder_scope_uses_header_cwd() {
    let tmp = tempfile::tempdir().unwrap();
    let rows = listing("agent");
    let agent = prepared_copy("agent", tmp.path(), &rows);
    let root = SessionsRoot::new(agent.join("sessions"), RootSource::AgentDir);
    let catalog = Catalog::open(root, None);
    let beta = catalog.scan(&Scope::CurrentFolder("/home/dev/beta".into()), &|_, _| {});
    assert_eq!(beta.sessions.len(), 4);
    assert!(beta.sessions.iter().all(|s| s.cwd == "/home/dev/beta"));
    let odd = catalog.scan(&Scope::CurrentFolder("/srv/c:odd dir/".into()), &|_, _| {});
    assert_eq!(odd.sessions.len(), 3);
}

/// Branch tips as the session reader's entries give them: entries no other entry names as parent.
fn reference_tips(parsed: &ParsedFile) -> u32 {
    let parents: HashSet<&str> =
        parsed.entries.iter().filter_map(|e| e.parent_id.as_deref().filter(|p| *p != e.id)).collect();
    parsed.entries.iter().filter(|e| !parents.contains(e.id.as_str())).count() as u32
}

fn reference_usage(parsed: &ParsedFile) -> Usage {
    let mut total = Usage::default();
    for e in &parsed.entries {
        let counted = match &e.kind {
            Kind::Message(m) if m.role == "assistant" => m.usage,
            Kind::Usage { usage, .. } => *usage,
            _ => None,
        };
        if let Some(u) = counted {
            total.add(&u);
        }
    }
    total
}

fn find<'a>(report: &'a ScanReport, prefix: &str) -> &'a SessionSummary {
    report
        .sessions
        .iter()
        .find(|s| s.path.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .unwrap()
}

/// Tokens, cost, branches and unreadable lines agree with pitree's session reader on every
/// fixture it opens.
#[test]
fn additions_agree_with_the_session_reader() {
    let tmp = tempfile::tempdir().unwrap();
    let agent = prepared_copy("agent", tmp.path(), &listing("agent"));
    let edge = prepared_copy("edge", tmp.path(), &listing("edge"));
    let roots = [
        SessionsRoot::new(agent.join("sessions"), RootSource::AgentDir),
        SessionsRoot::new(&edge, RootSource::Flag),
    ];
    let mut checked = 0;
    for root in roots {
        let report = Catalog::open(root, None).scan(&Scope::All, &|_, _| {});
        for s in &report.sessions {
            let ctx = s.path.display();
            let Ok(parsed) = pitree::session::parse::parse_file(&s.path) else {
                panic!("{ctx}: listed but the session reader cannot open it");
            };
            assert_eq!(s.unreadable_lines, parsed.damage.len() as u32, "{ctx}: unreadable");
            assert_eq!(s.branches, reference_tips(&parsed), "{ctx}: branches");
            let (a, b) = (s.usage, reference_usage(&parsed));
            let tokens = |u: Usage| (u.input, u.output, u.cache_read, u.cache_write);
            assert_eq!(tokens(a), tokens(b), "{ctx}: tokens");
            assert!((a.cost - b.cost).abs() < 1e-9, "{ctx}: cost");
            checked += 1;
        }
        if root_is_agent(&report) {
            assert_eq!(find(&report, "2025-06-14T12-00-00-000Z").branches, 50);
            let linear = find(&report, "2025-06-02T09-14-03-120Z");
            assert_eq!(linear.branches, 1);
            assert!(linear.usage.total_tokens() > 0.0 && linear.usage.cost > 0.0);
        }
    }
    assert_eq!(checked, 14 + 27);
}

fn root_is_agent(report: &ScanReport) -> bool {
    report.sessions.len() == 14
}
