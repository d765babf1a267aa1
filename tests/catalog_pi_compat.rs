//! pitree's listing equals the real pi 1.6.0 `SessionManager.listAll()` on a generated agent dir of
//! ~70 varied sessions (tests/compat/pi-list.mjs): every field of pi's `SessionInfo`, full texts
//! included, and pi's order. Skipped, with a note, when node or tests/compat/node_modules is
//! missing (`npm ci --prefix tests/compat`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use pitree::catalog::locate::{RootSource, SessionsRoot, encode_cwd};
use pitree::catalog::{Catalog, Scope, SessionSummary};
use pitree::session::date;
use serde_json::{Value, json};

const COMPAT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/compat");

fn node_ready() -> bool {
    let modules = Path::new(COMPAT).join("node_modules/@earendil-works/pi-coding-agent");
    let node = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !modules.exists() || !node {
        eprintln!(
            "note: skipping the pi compatibility listing: node or {} is missing (npm ci --prefix tests/compat)",
            modules.display()
        );
        return false;
    }
    true
}

fn iso(minute: u32, second: u32) -> String {
    format!(
        "2025-03-{:02}T{:02}:{:02}:{:02}.000Z",
        1 + minute / 1440,
        (minute / 60) % 24,
        minute % 60,
        second
    )
}

fn ms(iso: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(iso).unwrap().timestamp_millis()
}

fn line(v: Value) -> String {
    format!("{v}\n")
}

fn header(id: Value, cwd: &str, ts: Option<&str>, parent: Option<&Path>) -> Value {
    let mut h = json!({"type": "session", "version": 3, "id": id, "cwd": cwd});
    if let Some(ts) = ts {
        h["timestamp"] = json!(ts);
    }
    if let Some(p) = parent {
        h["parentSession"] = json!(p.display().to_string());
    }
    h
}

fn msg(id: &str, parent: Option<&str>, ts: &str, message: Value) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts, "message": message})
}

/// The generated sessions: (relative path, content, mtime).
fn corpus(root: &Path) -> Vec<(PathBuf, String, SystemTime)> {
    let cwds = ["/home/u/alpha", "/home/u/beta", "/srv/c:odd dir", "/home/u/项目 ✨", "/a-b", "/a/b"];
    let mut files = Vec::new();
    let mut parents: Vec<PathBuf> = Vec::new();
    for i in 0..72u32 {
        let cwd = cwds[i as usize % cwds.len()];
        let base = i * 37;
        let start = iso(base, 0);
        let rel =
            PathBuf::from(encode_cwd(cwd)).join(format!("{}_{i:04}.jsonl", start.replace([':', '.'], "-")));
        let parent = (i % 7 == 3).then(|| parents.last().cloned()).flatten();
        let mut text = String::new();
        match i % 12 {
            0 => text.push_str(&line(header(json!(format!("s{i}")), cwd, Some(&start), None))),
            1 => text.push_str(&format!(
                "garbage first line\n{}",
                line(header(json!(format!("s{i}")), cwd, Some(&start), None))
            )),
            2 => text.push_str(&format!(
                "null\n{}",
                line(header(json!(format!("s{i}")), cwd, Some(&start), None))
            )),
            3 => text.push_str(&line(header(
                json!(1000 + i),
                cwd,
                Some(&start),
                parent.as_deref().map(|p| root.join(p)).as_deref(),
            ))),
            4 => {
                // No timestamp, or one that is not text: `created` is what `new Date` makes of it
                // (an array is the text it joins to), `modified` never falls back on it.
                let mut h = header(json!(format!("s{i}")), cwd, None, None);
                match i / 12 {
                    0 => {}
                    1 => h["timestamp"] = Value::Null,
                    2 => h["timestamp"] = json!(1_751_371_200_123.7),
                    3 => h["timestamp"] = json!(true),
                    4 => h["timestamp"] = json!(["2025-07-01T00:00:00Z"]),
                    _ => h["timestamp"] = json!(9e15),
                }
                text.push_str(&line(h))
            }
            5 => {
                // Times JavaScript reads its own way: leap seconds are invalid, days roll over, the
                // short and extended forms, the end of a day, no offset as local time.
                let odd = [
                    "not a date",
                    "2016-12-31T23:59:60Z",
                    "2025-02-30T00:00:00Z",
                    "+002025-07-01T12:00:00.000Z",
                    "2025-07",
                    "2025-07-01T24:00:00Z",
                    "2025-07-01T12:00:00",
                    "2025-07-01 12:00:00.123456+0200",
                ];
                let ts = odd[(i as usize / 12 + i as usize) % odd.len()];
                text.push_str(&line(header(json!(format!("s{i}")), cwd, Some(ts), None)))
            }
            _ => text.push_str(&line(header(
                json!(format!("s{i}")),
                cwd,
                Some(&start),
                parent.as_deref().map(|p| root.join(p)).as_deref(),
            ))),
        }
        // Headers without a valid time and no messages fall back to the file mtime.
        let turns = if matches!(i % 24, 4 | 5) { 0 } else { (i * 5) % 9 };
        let mut prev: Option<String> = None;
        for t in 0..turns {
            let id = format!("{i:04}{t:04}");
            let ts = iso(base + 1 + t, t);
            let entry = match (i + t) % 10 {
                0 => msg(
                    &id,
                    prev.as_deref(),
                    &ts,
                    json!({"role": "user", "content": format!("question {t} of {i}: why \"quotes\"\nand lines?"), "timestamp": ms(&ts)}),
                ),
                1 => msg(
                    &id,
                    prev.as_deref(),
                    &ts,
                    json!({"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hmm", "thinkingSignature": "x"},
                    {"type": "text", "text": format!("answer {t}")},
                    {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}},
                    {"type": "text", "text": "second block ✅"}
                ], "usage": {"input": 10, "output": 5, "cost": {"total": 0.01}}, "stopReason": "toolUse", "timestamp": ms(&ts)}),
                ),
                2 => msg(
                    &id,
                    prev.as_deref(),
                    &ts,
                    json!({"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": [{"type": "text", "text": "out".repeat(50)}], "isError": false, "timestamp": ms(&ts)}),
                ),
                3 => msg(
                    &id,
                    prev.as_deref(),
                    &ts,
                    json!({"role": "user", "content": [
                        {"type": "text", "text": "look"},
                        {"type": "image", "data": "AAAA".repeat(500), "mimeType": "image/png"},
                        // Not strings: joined as JavaScript writes them.
                        {"type": "text", "text": 5}, {"type": "text", "text": [1, null, "b", 2.50]},
                        {"type": "text", "text": {"k": 1}}, {"type": "text", "text": true},
                        {"type": "text"}, {"type": "text", "text": null}
                    ]}),
                ),
                4 => {
                    json!({"type": "session_info", "id": id, "parentId": prev, "timestamp": ts, "name": if t % 3 == 0 { "  ".to_string() } else { format!("  Name {i}\u{1b}[1m  ") }})
                }
                5 => msg(
                    &id,
                    prev.as_deref(),
                    &ts,
                    json!({"role": "user", "content": "", "timestamp": ms(&ts)}),
                ),
                6 => {
                    json!({"type": "label", "id": id, "parentId": prev, "timestamp": ts, "targetId": "x", "label": "l"})
                }
                7 => msg(
                    &id,
                    prev.as_deref(),
                    &ts,
                    json!({"role": "bashExecution", "command": "make", "output": "ok", "exitCode": 0, "timestamp": ms(&ts)}),
                ),
                8 => msg(
                    &id,
                    prev.as_deref(),
                    &ts,
                    json!({"role": "assistant", "content": [{"type": "text", "text": "late 日本語 😀"}], "timestamp": ms(&ts) + 500}),
                ),
                _ => msg(
                    &id,
                    prev.as_deref(),
                    "bad time",
                    json!({"role": "assistant", "content": [{"type": "text", "text": "no number time"}]}),
                ),
            };
            text.push_str(&line(entry));
            prev = Some(id);
        }
        match i % 9 {
            4 => text.push_str("\n   \n"),
            5 => text.push_str(
                "{\"type\":\"message\",\"id\":\"cut\",\"message\":{\"role\":\"user\",\"content\":\"tor",
            ),
            6 => text = text.replace('\n', "\r\n"),
            // White space JSON does not allow around a line, a BOM after the first line: malformed
            // for JSON.parse, so these messages are not counted; a line trim() empties is blank.
            7 => {
                let user = msg("ws", None, &iso(base, 30), json!({"role": "user", "content": "hidden"}));
                text.push_str(&format!(
                    "\u{c}{user}\n\u{feff}{user}\n{user}\u{b}\n \u{a0}\u{3000}\n\t{user} \n"
                ));
            }
            _ => {}
        }
        // Nanoseconds that Node's `mtimeMs` (a double) reads as just past half a millisecond.
        let mtime = SystemTime::UNIX_EPOCH
            + Duration::from_secs(1_740_000_000 + u64::from(i) * 97)
            + Duration::from_nanos(678_499_999);
        parents.push(rel.clone());
        files.push((rel, text, mtime));
    }
    files.push((
        PathBuf::from("--x--/not-a-session.jsonl"),
        line(msg("a", None, &iso(1, 1), json!({"role": "user", "content": "hi"}))),
        SystemTime::now(),
    ));
    files.push((PathBuf::from("--x--/empty.jsonl"), String::new(), SystemTime::now()));
    files.push((
        PathBuf::from("--x--/ignored.json"),
        line(header(json!("j"), "/x", Some(&iso(1, 1)), None)),
        SystemTime::now(),
    ));
    files.push((
        PathBuf::from("flat-in-root.jsonl"),
        line(header(json!("f"), "/x", Some(&iso(1, 1)), None)),
        SystemTime::now(),
    ));
    files
}

fn pi_listing(agent: &Path, home: &Path) -> Vec<Value> {
    pi_listing_of(agent, None, home)
}

/// pi's `listAll()`, or with `cwd` its `list(cwd)`.
fn pi_listing_of(agent: &Path, cwd: Option<&str>, home: &Path) -> Vec<Value> {
    let out = Command::new("node")
        .arg(Path::new(COMPAT).join("pi-list.mjs"))
        .args(["--agent-dir".as_ref(), agent.as_os_str()])
        .args(cwd.map(|c| ["--cwd", c]).into_iter().flatten())
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .output()
        .unwrap();
    assert!(out.status.success(), "pi-list failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn compare(ours: &SessionSummary, pi: &Value) {
    let ctx = ours.path.display().to_string();
    assert_eq!(ours.path.to_string_lossy(), pi["path"].as_str().unwrap(), "path");
    let pi_id = match &pi["id"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    assert_eq!(ours.id, pi_id, "{ctx}: id");
    assert_eq!(ours.cwd, pi["cwd"].as_str().unwrap(), "{ctx}: cwd");
    assert_eq!(ours.name.as_deref(), pi["name"].as_str(), "{ctx}: name");
    assert_eq!(ours.parent_session_path.as_deref(), pi["parentSessionPath"].as_str(), "{ctx}: parent");
    assert_eq!(
        ours.created_ms.and_then(date::iso_string).as_deref(),
        pi["created"].as_str(),
        "{ctx}: created"
    );
    assert_eq!(date::iso_string(ours.modified_ms).as_deref(), pi["modified"].as_str(), "{ctx}: modified");
    assert_eq!(u64::from(ours.message_count), pi["messageCount"].as_u64().unwrap(), "{ctx}: messageCount");
    assert_eq!(ours.first_message, pi["firstMessage"].as_str().unwrap(), "{ctx}: firstMessage");
    assert_eq!(ours.all_messages_text, pi["allMessagesText"].as_str().unwrap(), "{ctx}: allMessagesText");
}

#[test]
fn listing_equals_pi_on_a_generated_corpus() {
    if !node_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let agent = tmp.path().join("agent");
    let root = agent.join("sessions");
    for (rel, text, mtime) in corpus(&root) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        fs::File::options().write(true).open(&path).unwrap().set_modified(mtime).unwrap();
    }
    let pi = pi_listing(&agent, tmp.path());
    let catalog =
        Catalog::open(SessionsRoot::new(&root, RootSource::AgentDir), Some(&tmp.path().join("cache")));
    for pass in ["cold", "warm"] {
        let ours = catalog.scan(&Scope::All, &|_, _| {}).sessions;
        let paths = |v: &[SessionSummary]| v.iter().map(|s| s.path.display().to_string()).collect::<Vec<_>>();
        assert_eq!(ours.len(), pi.len(), "{pass}: pitree lists {:#?}", paths(&ours));
        for (s, p) in ours.iter().zip(&pi) {
            compare(s, p);
        }
    }
}

/// Sessions of the same `modified` time (a fork copies its parent's messages, times included):
/// pi's folder listing (`list`, what /resume opens) orders them by file name, descending, whatever
/// their mtimes; its global listing (`listAll`) by mtime, then name. The mtimes here run against
/// the names, and two differ by less than a millisecond.
#[test]
fn sessions_of_the_same_time_are_in_pis_order_in_both_scopes() {
    if !node_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let agent = tmp.path().join("agent");
    let root = agent.join("sessions");
    let cwd = "/home/dev/tied";
    let folder = root.join(encode_cwd(cwd));
    fs::create_dir_all(&folder).unwrap();
    let base = SystemTime::UNIX_EPOCH + Duration::from_secs(1_750_000_000);
    // Newest file first by name ascending; tie1 and tie2 are 300 ns apart.
    let mtimes_ns = [3_000_000_000u64, 2_000_000_400, 2_000_000_100, 1_000_000_000, 0];
    for (i, mtime_ns) in mtimes_ns.into_iter().enumerate() {
        let path = folder.join(format!("2025-03-01T00-00-00-000Z_tie{i}.jsonl"));
        let user = json!({"role": "user", "content": "same", "timestamp": ms(&iso(1, 0))});
        let text = line(header(json!(format!("tie{i}")), cwd, Some(&iso(0, 0)), None))
            + &line(msg("u1", None, &iso(1, 0), user));
        fs::write(&path, text).unwrap();
        let file = fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(base + Duration::from_nanos(mtime_ns)).unwrap();
    }
    let catalog =
        Catalog::open(SessionsRoot::new(&root, RootSource::AgentDir), Some(&tmp.path().join("cache")));
    let paths = |v: &[SessionSummary]| v.iter().map(|s| s.path.display().to_string()).collect::<Vec<_>>();
    let pi_paths =
        |v: &[Value]| v.iter().map(|p| p["path"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let folder_order = pi_listing_of(&agent, Some(cwd), tmp.path());
    let global_order = pi_listing(&agent, tmp.path());
    assert_ne!(pi_paths(&folder_order), pi_paths(&global_order), "the case tells the two orders apart");
    for (scope, pi) in [(Scope::CurrentFolder(PathBuf::from(cwd)), folder_order), (Scope::All, global_order)]
    {
        for pass in ["cold", "warm"] {
            let ours = catalog.scan(&scope, &|_, _| {}).sessions;
            assert_eq!(paths(&ours), pi_paths(&pi), "{scope:?}, {pass}");
        }
    }
}
