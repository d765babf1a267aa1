//! The public `SessionManager` API and pi 1.6.0's own `SessionManager` see the same sessions.
//!
//! 1. Every fixture (tests/fixtures) as the manager opens it equals pi's recorded view
//!    (`<name>.pi.json`): which files open, header id, cwd, leaf, name, labels and their timestamps
//!    (as `getTree` shows them and as `getLabel` answers), roots, tree parents, children order, the
//!    branch, the context entries, the context messages' roles and texts, the thinking level and the
//!    model. Where pi hangs, hides entries or loses data, the deviation is listed in `DEVIATIONS`
//!    with the reason (the same list as the reader's test, tests/pi_fixtures.rs). Each file is
//!    opened from a temporary copy, because opening a 0-byte file writes a header (as pi does).
//! 2. With the real pi installed (`npm ci --prefix tests/compat`; skipped with a note otherwise):
//!    (a) a session written entirely through the Rust API is read by pi with the same view;
//!    (b) a session pi writes through its API is read by the manager with the same view, and its
//!    lines round-trip byte for byte through the typed entries; (c) `create_branched_session` and
//!    `fork_from` write the files pi's own `createBranchedSession` and `forkFrom` write (header,
//!    `parentSession`, entries), including when the write is deferred.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;

use common::FIXTURES;
use common::fixtures::{deviates, fixture_files, without_no_ids};
use pitree::manager::{
    AgentMessage, ContentBlock, Error, NewSessionOptions, SessionEntry, SessionManager, SessionTree, Usage,
    to_json_string,
};
use serde_json::{Map, Value, json};

/// The manager's answers, in pi-view's field names.
fn view(sm: &SessionManager) -> Map<String, Value> {
    let tree = sm.tree();
    let id = |i: usize| json!(tree.nodes()[i].entry.id());
    let mut parent_of = Map::new();
    let mut children_order = Map::new();
    let mut labels = Map::new();
    let mut label_times = Map::new();
    for root in tree.roots() {
        parent_of.insert(root.entry.id().to_string(), Value::Null);
    }
    for node in tree.nodes() {
        let name = node.entry.id().to_string();
        for &c in &node.children {
            parent_of.insert(tree.nodes()[c].entry.id().to_string(), json!(name));
        }
        if !node.children.is_empty() {
            children_order.insert(name.clone(), node.children.iter().map(|&c| id(c)).collect());
        }
        if let (Some(l), Some(t)) = (node.label, node.label_timestamp) {
            labels.insert(name.clone(), json!(l));
            label_times.insert(name, json!(t));
        }
    }
    let context = sm.build_session_context();
    let ids = |entries: Vec<&pitree::manager::SessionEntry>| -> Value {
        entries.iter().map(|e| json!(e.id())).collect()
    };
    let fields = [
        ("headerId", json!(sm.session_id())),
        ("cwd", json!(sm.header().cwd)),
        ("smCwd", json!(sm.cwd().to_string_lossy())),
        ("leafId", json!(sm.leaf_id())),
        ("sessionName", json!(sm.session_name())),
        ("treeLabels", Value::Object(labels)),
        ("treeLabelTimestamps", Value::Object(label_times)),
        ("roots", tree.roots().map(|r| json!(r.entry.id())).collect()),
        ("parentOf", Value::Object(parent_of)),
        ("childrenOrder", Value::Object(children_order)),
        ("branchIds", ids(sm.branch_path(None))),
        ("contextEntryIds", ids(sm.build_context_entries())),
        ("contextMessageRoles", context.messages.iter().map(|m| json!(m.role())).collect()),
        ("contextMessageTexts", context.messages.iter().map(|m| json!(m.text())).collect()),
        ("thinkingLevel", json!(context.thinking_level)),
        (
            "model",
            context.model.map_or(Value::Null, |m| json!({"provider": m.provider, "modelId": m.model_id})),
        ),
    ];
    fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

fn open_copy(path: &Path) -> (tempfile::TempDir, Result<SessionManager, Error>) {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join(path.file_name().unwrap());
    std::fs::copy(path, &copy).unwrap();
    let sm = SessionManager::open(&copy, None, None);
    (dir, sm)
}

fn check_file(path: &Path, failures: &mut Vec<String>) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let pi: Value =
        serde_json::from_str(&std::fs::read_to_string(path.with_extension("pi.json")).unwrap()).unwrap();
    let (_dir, opened) = open_copy(path);
    let sm = match (opened, pi["loadError"].is_null()) {
        (Err(Error::NotASession(_)), false) => return,
        (Ok(_), false) if deviates(&name, "open") => return,
        (Ok(_), false) => return failures.push(format!("{name}: pi cannot open it but the manager did")),
        (Err(e), true) => return failures.push(format!("{name}: the manager cannot open it: {e}")),
        (Err(e), false) => return failures.push(format!("{name}: unexpected error {e}")),
        (Ok(sm), true) => sm,
    };
    if deviates(&name, "ids") {
        return compare_by_position(&name, &sm, &pi, failures);
    }
    failures.extend(differences(&name, &sm, &pi, &|field| deviates(&name, field)));
}

/// The fields where the manager's view of `sm` differs from pi's view, except the `skipped` ones
/// (a field, or `context` for all the context fields).
fn differences(name: &str, sm: &SessionManager, pi: &Value, skipped: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    for (field, ours) in view(sm) {
        let group = if field.starts_with("context") || field == "thinkingLevel" || field == "model" {
            "context"
        } else {
            field.as_str()
        };
        if skipped(&field) || skipped(group) || pi[&field].is_null() && field == "contextMessageTexts" {
            continue;
        }
        let theirs = without_no_ids(&pi[&field]);
        if ours != theirs {
            out.push(format!("{name}: {field}\n  manager: {ours}\n  pi:      {theirs}"));
        }
    }
    for (target, text) in pi["labels"].as_object().into_iter().flatten() {
        if sm.label(target) != text.as_str() {
            out.push(format!("{name}: label({target}) = {:?}, pi {text}", sm.label(target)));
        }
    }
    out
}

/// For migrated legacy files pi's ids are random: compare parents, leaf and context by the
/// entries' positions in file order.
fn compare_by_position(name: &str, sm: &SessionManager, pi: &Value, failures: &mut Vec<String>) {
    let ours: Vec<&str> = sm.entries().iter().map(|e| e.id()).collect();
    let theirs: Vec<&str> =
        pi["entries"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
    let position = |ids: &[&str], id: Option<&str>| id.and_then(|id| ids.iter().position(|x| *x == id));
    let parents = |ids: &[&str], parent_of: &dyn Fn(usize) -> Option<String>| -> Vec<Option<usize>> {
        (0..ids.len()).map(|i| position(ids, parent_of(i).as_deref())).collect()
    };
    let our_parents = parents(&ours, &|i| sm.entries()[i].parent_id().map(str::to_string));
    let pi_entries = pi["entries"].as_array().unwrap();
    let their_parents = parents(&theirs, &|i| pi_entries[i]["parentId"].as_str().map(str::to_string));
    let our_context: Vec<_> =
        sm.build_context_entries().iter().map(|e| position(&ours, Some(e.id()))).collect();
    let their_context: Vec<_> =
        pi["contextEntryIds"].as_array().unwrap().iter().map(|id| position(&theirs, id.as_str())).collect();
    let checks = [
        ("parents", json!(our_parents), json!(their_parents)),
        ("leaf", json!(position(&ours, sm.leaf_id())), json!(position(&theirs, pi["leafId"].as_str()))),
        ("context", json!(our_context), json!(their_context)),
        (
            "roles",
            json!(sm.build_session_context().messages.iter().map(|m| m.role()).collect::<Vec<_>>()),
            pi["contextMessageRoles"].clone(),
        ),
    ];
    for (what, a, b) in checks {
        if a != b {
            failures.push(format!("{name}: {what} by position\n  manager: {a}\n  pi:      {b}"));
        }
    }
}

#[test]
fn every_fixture_opened_through_the_manager_matches_pi() {
    let mut failures = Vec::new();
    let files = fixture_files();
    assert!(files.len() >= 40, "fixtures missing: {}", files.len());
    for f in &files {
        check_file(f, &mut failures);
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_deep_chain_needs_no_recursion() {
    let deep = fixture_files()
        .into_iter()
        .find(|f| f.to_string_lossy().contains("2025-06-12T00-00-00-000Z"))
        .unwrap();
    let sm = SessionManager::open(&deep, None, None).unwrap();
    let tree: SessionTree = sm.tree();
    assert_eq!(tree.nodes().len(), 20_000);
    assert_eq!(sm.branch_path(None).len(), 20_000);
    drop(tree);
}

// --- Round trips with the real pi 1.6.0 ---

const COMPAT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/compat");

/// pi's view of `file`, or `None`, with a note, when the compat package is not installed (CI,
/// which sets `CI`, must install it).
fn pi_view(file: &Path) -> Option<Value> {
    let view = common::pi_view(file);
    assert!(
        view.is_some() || !common::pi_required(),
        "CI must install the real pi: npm ci --prefix tests/compat"
    );
    view
}

/// Run a pi-write.mjs script (pi's own API writes the session).
fn pi_write(script: &Value) -> Value {
    let mut child = Command::new("node")
        .arg(Path::new(COMPAT).join("pi-write.mjs"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node");
    child.stdin.take().unwrap().write_all(script.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "pi-write failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn pi_installed() -> bool {
    pi_view(Path::new(FIXTURES).join("edge/header-only.jsonl").as_path()).is_some()
}

fn tool_call(id: &str, command: &str) -> AgentMessage {
    serde_json::from_value(json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "run it", "thinkingSignature": "sig"},
            {"type": "toolCall", "id": id, "name": "bash", "arguments": {"command": command}}],
        "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
        "usage": usage_json(), "stopReason": "toolUse", "timestamp": 1_750_000_000_000_i64}))
    .unwrap()
}

fn tool_result(id: &str, text: &str) -> AgentMessage {
    serde_json::from_value(json!({"role": "toolResult", "toolCallId": id, "toolName": "bash",
        "content": [{"type": "text", "text": text}], "isError": false, "timestamp": 1_750_000_000_001_i64}))
    .unwrap()
}

fn usage_json() -> Value {
    json!({"input": 1200, "output": 80, "cacheRead": 0, "cacheWrite": 300, "totalTokens": 1580,
           "cost": {"input": 0.0036, "output": 0.0012, "cacheRead": 0, "cacheWrite": 0.001125, "total": 0.005925}})
}

fn usage() -> Usage {
    serde_json::from_value(usage_json()).unwrap()
}

fn assistant(text: &str) -> AgentMessage {
    AgentMessage::assistant("anthropic-messages", "anthropic", "claude-sonnet-4-5", text)
}

/// A session with every kind of entry, several branches, labels (set, re-set, cleared), a
/// compaction with a system prompt snapshot, a branch summary, custom entries and messages, usage
/// entries, context edits and a rename, written through the Rust API only.
fn write_rich_session(dir: &Path) -> SessionManager {
    let mut sm = SessionManager::create("/home/dev/compat", Some(dir), NewSessionOptions::default()).unwrap();
    sm.append_model_change("anthropic", "claude-sonnet-4-5").unwrap();
    sm.append_thinking_level_change("medium").unwrap();
    let system: AgentMessage = serde_json::from_value(json!({"role": "system", "content": "You are pi.",
        "sections": {"env": "<env>linux</env>"}, "toolsAdded": [{"name": "bash", "description": "run", "parameters": {}}],
        "timestamp": 0}))
    .unwrap();
    sm.append_message(system).unwrap();
    let u1 = sm.append_message(AgentMessage::user("Plan the refactor")).unwrap();
    sm.append_message(tool_call("call_1", "ls src")).unwrap();
    let t1 = sm.append_message(tool_result("call_1", "main.rs lib.rs")).unwrap();
    let a2 = sm.append_message(assistant("Plan: split lib.rs")).unwrap();
    sm.append_label_change(&u1, Some("start")).unwrap();
    sm.append_message(AgentMessage::user("Try approach A")).unwrap();
    let a3a = sm.append_message(assistant("A works")).unwrap();
    sm.branch(&a2).unwrap();
    sm.append_message(AgentMessage::user("Try approach B")).unwrap();
    sm.append_message(assistant("B is slower")).unwrap();
    let details = json!({"readFiles": ["src/lib.rs"], "modifiedFiles": []});
    sm.branch_with_summary(Some(&a2), "Tried B: slower.", Some(details.clone()), Some(false), Some(usage()))
        .unwrap();
    let u3 = sm.append_message(AgentMessage::user("Continue with A")).unwrap();
    sm.append_message(assistant("Continuing")).unwrap();
    sm.append_compaction("## Goal\nSplit lib.rs", Some(&u3), 48_213, Some(details), None, Some(usage()))
        .unwrap();
    sm.append_custom_entry("ext.state", Some(json!({"step": 2}))).unwrap();
    sm.append_custom_entry("ext.bare", None).unwrap();
    sm.append_custom_message_entry(
        "ext.note",
        "Remember the tests",
        true,
        Some(json!({"source": "AGENTS.md"})),
    )
    .unwrap();
    let hidden = sm
        .append_custom_message_entry("ext.hidden", vec![ContentBlock::text("hidden note")], false, None)
        .unwrap();
    sm.append_usage("cache_warm", "anthropic", "claude-sonnet-4-5", usage(), Some("warm-up")).unwrap();
    sm.append_usage("cache_warm", "anthropic", "claude-sonnet-4-5", usage(), None).unwrap();
    sm.append_context_edit(&u3, Some("Continue with A, carefully".into())).unwrap();
    sm.append_context_edit(&hidden, None).unwrap();
    sm.append_context_edit(&t1, Some("[ls output elided]".into())).unwrap();
    sm.append_label_change(&a3a, Some("approach-a")).unwrap();
    sm.append_session_info("Compat: refactor\r\nplan").unwrap();
    sm.append_label_change(&u1, None).unwrap();
    sm.append_label_change(&u1, Some("start-again")).unwrap();
    sm.append_message(AgentMessage::user("Next step?")).unwrap();
    sm.append_message(assistant("Write the tests.")).unwrap();
    sm
}

#[test]
fn a_session_written_through_the_rust_api_reads_the_same_in_pi() {
    if !pi_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sm = write_rich_session(dir.path());
    let file = sm.session_file().unwrap();
    let pi = pi_view(file).unwrap();
    assert_eq!(pi["loadError"], Value::Null);
    assert_eq!(pi["copyChange"], "unchanged", "pi needed no repair or migration");
    assert_eq!(pi["entryCount"], sm.entries().len());
    let failures = differences("rust-written", &sm, &pi, &|_| false);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(pi["sessionName"], "Compat: refactor plan");
    assert_eq!(pi["contextMessageRoles"][0], "system", "the compaction's system snapshot leads the context");
    let reopened = SessionManager::open(file, None, None).unwrap();
    assert!(differences("reopened", &reopened, &pi, &|_| false).is_empty());
}

/// The same kinds of operations, done by pi's own API.
fn pi_script(dir: &Path) -> Value {
    let msg = |role: &str, text: &str| match role {
        "user" => {
            json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1_750_000_000_000_i64})
        }
        _ => serde_json::to_value(assistant(text)).unwrap(),
    };
    json!({"clock": {"start": "2025-06-20T10:00:00.000Z", "stepMs": 1000}, "ops": [
        {"op": "create", "cwd": "/home/dev/pi-side", "sessionDir": dir},
        {"op": "appendModelChange", "provider": "anthropic", "modelId": "claude-sonnet-4-5"},
        {"op": "appendThinkingLevelChange", "level": "high"},
        {"op": "appendMessage", "message": msg("user", "Find the bug"), "as": "u1"},
        {"op": "appendMessage", "message": serde_json::to_value(tool_call("call_9", "rg panic")).unwrap()},
        {"op": "appendMessage", "message": serde_json::to_value(tool_result("call_9", "src/a.rs:3")).unwrap(), "as": "t1"},
        {"op": "appendMessage", "message": msg("assistant", "Found it in a.rs"), "as": "a1"},
        {"op": "appendLabelChange", "target": "u1", "label": "bug"},
        {"op": "appendMessage", "message": msg("user", "Fix it one way"), "as": "u2a"},
        {"op": "appendMessage", "message": msg("assistant", "Fixed (way 1)")},
        {"op": "branch", "target": "a1"},
        {"op": "appendMessage", "message": msg("user", "Fix it another way")},
        {"op": "appendMessage", "message": msg("assistant", "Fixed (way 2)")},
        {"op": "branchWithSummary", "target": "a1", "summary": "Tried way 2.",
         "details": {"readFiles": ["src/a.rs"], "modifiedFiles": ["src/a.rs"]}, "fromHook": true},
        {"op": "appendMessage", "message": msg("user", "Go with way 1"), "as": "u3"},
        {"op": "appendCompaction", "summary": "Bug found in a.rs", "firstKeptEntry": "u3", "tokensBefore": 9000},
        {"op": "appendCustomEntry", "customType": "ext.state", "data": {"n": 1}},
        {"op": "appendCustomMessageEntry", "customType": "ext.note", "content": "note", "display": true},
        {"op": "appendUsage", "kind": "cache_warm", "provider": "anthropic", "model": "claude-sonnet-4-5",
         "usage": usage_json(), "note": "warm"},
        {"op": "appendContextEdit", "target": "t1", "replacement": {"content": "[elided]"}},
        {"op": "appendSessionInfo", "name": "  pi\r\nside  "},
        {"op": "appendLabelChange", "target": "u2a", "label": "way-1"},
        {"op": "appendMessage", "message": msg("assistant", "Done")}
    ]})
}

#[test]
fn a_session_pi_writes_reads_the_same_through_the_rust_api() {
    if !pi_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = pi_write(&pi_script(dir.path()));
    let file = PathBuf::from(out["file"].as_str().unwrap());
    let pi = pi_view(&file).unwrap();
    let sm = SessionManager::open(&file, None, None).unwrap();
    let failures = differences("pi-written", &sm, &pi, &|_| false);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(sm.leaf_id(), out["leafId"].as_str());
    assert_eq!(sm.session_name(), Some("pi side"));
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines = text.lines();
    assert_eq!(to_json_string(sm.header()), lines.next().unwrap());
    for (entry, line) in sm.entries().iter().zip(lines) {
        assert!(!matches!(entry, SessionEntry::Other(_)), "{line}");
        assert_eq!(to_json_string(entry), line);
    }
}

/// An entry line without the fields a re-run cannot reproduce (ids of new label entries are
/// random), as `[type, id or "<label>", parent position, the rest]`.
fn shape(lines: &[Value]) -> Vec<Value> {
    let ids: Vec<&str> = lines.iter().map(|l| l["id"].as_str().unwrap_or("")).collect();
    lines
        .iter()
        .map(|l| {
            let mut rest = l.as_object().unwrap().clone();
            let id = rest.shift_remove("id").unwrap();
            let parent = rest.shift_remove("parentId").unwrap();
            let parent_at = ids.iter().position(|i| Some(*i) == parent.as_str());
            let id = if l["type"] == "label" { json!("<label>") } else { id };
            if l["type"] != "label" {
                rest.shift_remove("timestamp");
            }
            json!([id, parent_at, rest])
        })
        .collect()
}

fn read_lines(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The header without its new id and time, and the entries' shapes.
fn fork_result(file: &Path) -> (Value, Vec<Value>) {
    let lines = read_lines(file);
    let mut header = lines[0].as_object().unwrap().clone();
    for k in ["id", "timestamp"] {
        header.shift_remove(k);
    }
    let keys: Vec<&String> = lines[0].as_object().unwrap().keys().collect();
    (json!({"keys": keys, "fields": header}), shape(&lines[1..]))
}

#[test]
fn branched_sessions_and_forks_are_the_files_pi_writes() {
    if !pi_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = pi_write(&json!({"clock": {"start": "2025-06-21T09:00:00.000Z"}, "ops": [
        {"op": "create", "cwd": "/home/dev/src", "sessionDir": dir.path()},
        {"op": "appendModelChange", "provider": "anthropic", "modelId": "claude-sonnet-4-5", "as": "m"},
        {"op": "appendMessage", "message": {"role": "user", "content": "one", "timestamp": 1}, "as": "u1"},
        {"op": "appendLabelChange", "target": "u1", "label": "first", "as": "l1"},
        {"op": "appendMessage", "message": serde_json::to_value(assistant("two")).unwrap(), "as": "a1"},
        {"op": "appendCompaction", "summary": "s", "firstKeptEntry": "l1", "tokensBefore": 10, "as": "c"},
        {"op": "appendLabelChange", "target": "a1", "label": "answer"},
        {"op": "appendMessage", "message": {"role": "user", "content": "three", "timestamp": 2}, "as": "u2"},
        {"op": "appendLabelChange", "target": "u2", "label": "off-path"},
        {"op": "branch", "target": "a1"},
        {"op": "appendMessage", "message": {"role": "user", "content": "other", "timestamp": 3}}
    ]}));
    let source_file = PathBuf::from(source["file"].as_str().unwrap());
    for target in ["c", "u2", "m"] {
        let target_id = source["ids"][target].as_str().unwrap();
        let theirs = tempfile::tempdir().unwrap();
        let copy = theirs.path().join(source_file.file_name().unwrap());
        std::fs::copy(&source_file, &copy).unwrap();
        let pi = pi_write(
            &json!([{"op": "open", "path": copy}, {"op": "createBranchedSession", "target": target_id}]),
        );
        let pi_file = PathBuf::from(pi["file"].as_str().unwrap());
        let ours_dir = tempfile::tempdir().unwrap();
        let our_copy = ours_dir.path().join(source_file.file_name().unwrap());
        std::fs::copy(&source_file, &our_copy).unwrap();
        let mut sm = SessionManager::open(&our_copy, None, None).unwrap();
        let our_file = sm.create_branched_session(target_id).unwrap().unwrap();
        assert_eq!(our_file.exists(), pi_file.exists(), "target {target}: written at once or deferred");
        if !pi_file.exists() {
            continue;
        }
        let (our_header, our_entries) = fork_result(&our_file);
        let (pi_header, pi_entries) = fork_result(&pi_file);
        let their_parent = json!(copy.to_string_lossy());
        assert_eq!(pi_header["fields"]["parentSession"], their_parent);
        assert_eq!(our_header["fields"]["parentSession"], json!(our_copy.to_string_lossy()));
        assert_eq!(our_header["keys"], pi_header["keys"], "target {target}");
        assert_eq!(our_entries, pi_entries, "target {target}");
        let view = pi_view(&our_file).unwrap();
        assert!(differences("branched", &sm, &view, &|_| false).is_empty(), "target {target}");
    }
    let to = tempfile::tempdir().unwrap();
    let pi = pi_write(
        &json!([{"op": "forkFrom", "source": source_file, "cwd": "/home/dev/dst", "sessionDir": to.path()}]),
    );
    let pi_file = PathBuf::from(pi["file"].as_str().unwrap());
    let ours_to = tempfile::tempdir().unwrap();
    let fork = SessionManager::fork_from(
        &source_file,
        "/home/dev/dst",
        Some(ours_to.path()),
        NewSessionOptions::default(),
    )
    .unwrap();
    let our_file = fork.session_file().unwrap();
    assert_eq!(fork_result(our_file).0, fork_result(&pi_file).0);
    let text = |f: &Path| std::fs::read_to_string(f).unwrap().split_once('\n').unwrap().1.to_string();
    assert_eq!(text(our_file), text(&pi_file), "every entry copied byte for byte");
    let view = pi_view(our_file).unwrap();
    assert!(differences("forked", &fork, &view, &|_| false).is_empty());
}
