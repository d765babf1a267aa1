//! Hand-made session files on which pitree once read something other than the real pi 1.6.0 (found
//! by differential fuzzing): for each, `pitree show --json` and `pitree context --json` against pi's
//! own `SessionManager` (`tests/compat/pi-view.mjs`: leaf, name, labels, context roles and texts,
//! thinking level, model) and pi's own /tree navigator (`tests/compat/pi-tree.mjs`: the rows, their
//! order and their text). Skipped, with a note, when tests/compat/node_modules is missing
//! (`npm ci --prefix tests/compat`); CI installs it, and there its absence fails.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::{Map, Value, json};

const HEADER: &str = r#"{"type":"session","version":3,"id":"01980000-0000-7000-8000-0000000000c1","timestamp":"2025-07-01T12:00:00.000Z","cwd":"/home/dev/p"}"#;

/// An entry line; `rest` is the JSON after `parentId` and `timestamp`.
fn entry(ty: &str, id: &str, parent: Option<&str>, second: u32, rest: &str) -> String {
    let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
    let comma = if rest.is_empty() { "" } else { "," };
    format!(
        r#"{{"type":"{ty}","id":"{id}","parentId":{parent},"timestamp":"2025-07-01T12:00:{second:02}.000Z"{comma}{rest}}}"#
    )
}

fn user(id: &str, parent: Option<&str>, second: u32, text: &str) -> String {
    entry("message", id, parent, second, &format!(r#""message":{{"role":"user","content":"{text}"}}"#))
}

/// pi's `projectContextEntry` replaces the content of user, assistant, tool-result and custom
/// messages only; a bash execution, a system message and a compaction summary stay as they are.
#[test]
fn a_context_edit_replaces_only_the_messages_pi_lets_it_replace() {
    let bash = entry(
        "message",
        "b1",
        Some("a1"),
        2,
        r#""message":{"role":"bashExecution","command":"ls","output":"x","exitCode":0}"#,
    );
    let system = entry("message", "s1", Some("b1"), 3, r#""message":{"role":"system","content":"SYS"}"#);
    let edits = [("b1", 4, "e1", "s1"), ("s1", 5, "e2", "e1")]
        .map(|(target, second, id, parent)| {
            entry(
                "context_edit",
                id,
                Some(parent),
                second,
                &format!(r#""targetId":"{target}","replacement":{{"content":"new"}}"#),
            )
        })
        .join("\n");
    let compaction = entry(
        "compaction",
        "c1",
        Some("e2"),
        6,
        r#""firstKeptEntryId":"a1","summary":"SUM","tokensBefore":5000"#,
    );
    let edit_compaction =
        entry("context_edit", "e3", Some("c1"), 7, r#""targetId":"c1","replacement":{"content":"x"}"#);
    let after = user("a2", Some("e3"), 8, "after");
    let file =
        [HEADER, &user("a1", None, 1, "hi"), &bash, &system, &edits, &compaction, &edit_compaction, &after]
            .join("\n");
    agree("edits-of-non-editable-messages", &file, &["all"]);
}

/// pi shows `[context replace: ID]` and `[context omit: ID]`.
#[test]
fn context_edit_rows_read_as_pi_writes_them() {
    let file = [
        HEADER.to_string(),
        user("a1", None, 1, "hi"),
        entry("context_edit", "a2", Some("a1"), 2, r#""targetId":"a1","replacement":{"content":"HI"}"#),
        entry("context_edit", "a3", Some("a2"), 3, r#""targetId":"a1","replacement":null"#),
        user("a4", Some("a3"), 4, "after"),
    ]
    .join("\n");
    agree("context-edit-rows", &file, &["all", "default"]);
}

/// pi hides an assistant message without text unless its `stopReason` is truthy and neither
/// `stop` nor `toolUse`: an empty string hides it too.
#[test]
fn an_assistant_message_with_an_empty_stop_reason_is_hidden_as_pi_hides_it() {
    let calls = r#""content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"}}]"#;
    let assistant = |id, parent, second, stop: &str| {
        entry(
            "message",
            id,
            Some(parent),
            second,
            &format!(
                r#""message":{{"role":"assistant",{calls},"provider":"anthropic","model":"m","stopReason":{stop}}}"#
            ),
        )
    };
    let file = [
        HEADER.to_string(),
        user("a1", None, 1, "hi"),
        assistant("a2", "a1", 2, r#""""#),
        assistant("a3", "a2", 3, r#""error""#),
        user("a4", Some("a3"), 4, "after"),
    ]
    .join("\n");
    agree("empty-stop-reason", &file, &["default", "no-tools"]);
}

/// pi shows a label, a title, a model, a thinking level and a custom type in its rows as written:
/// inner runs of spaces kept, not trimmed; an empty label (`""`, which also clears) as `[label: ]`,
/// a missing one as `[label: (cleared)]`; a whitespace-only label is a label; a tool result with an
/// empty tool name and no call as `[]`.
#[test]
fn bracketed_rows_show_their_text_as_written() {
    let file = [
        HEADER.to_string(),
        user("a1", None, 1, "hi"),
        entry("label", "l1", Some("a1"), 2, r#""targetId":"a1","label":"two  words""#),
        entry("label", "l2", Some("l1"), 3, r#""targetId":"a1","label":"""#),
        entry("label", "l3", Some("l2"), 4, r#""targetId":"a1""#),
        entry("label", "l4", Some("l3"), 5, r#""targetId":"l1","label":"  ""#),
        entry("session_info", "n1", Some("l4"), 6, r#""name":"my   session""#),
        entry("model_change", "m1", Some("n1"), 7, r#""provider":"p","modelId":"m  1""#),
        entry("thinking_level_change", "t1", Some("m1"), 8, r#""thinkingLevel":" high ""#),
        entry("custom", "c1", Some("t1"), 9, r#""customType":"ext  state""#),
        entry(
            "message",
            "r1",
            Some("c1"),
            10,
            r#""message":{"role":"toolResult","toolCallId":"x","toolName":"","content":[]}"#,
        ),
        user("a2", Some("r1"), 11, "after"),
    ]
    .join("\n");
    agree("bracketed-rows", &file, &["all"]);
}

/// pi's `formatToolCall`: paths under `HOME` resolved before they become `~/…`, `path || file_path`
/// for files but `path || "."` for folders, every argument through `String()` (numbers as
/// JavaScript prints them, arrays joined), line ranges through `Number()`, the 50- and
/// 40-character cuts in UTF-16 units, and the arguments' JSON with array-index keys first.
#[test]
fn tool_call_rows_read_as_pi_formats_them() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let home = home.to_str().unwrap();
    let calls: Vec<(&str, Value)> = vec![
        ("ls", json!({"path": format!("{home}/")})),
        ("read", json!({"path": format!("{home}/./a/../b.rs")})),
        ("edit", json!({"path": format!("{home}//x")})),
        ("write", json!({"path": format!("{home}x/y")})),
        ("grep", json!({"pattern": 5, "path": ""})),
        ("find", json!({"pattern": true, "path": [1, [2, "a"], null]})),
        ("ls", json!({"file_path": "q"})),
        ("read", json!({"path": "", "file_path": "q", "offset": "0x10", "limit": " 4 "})),
        ("read", json!({"path": 5, "offset": 1e21})),
        ("read", json!({"path": {"a": 1}, "offset": 3, "limit": "x"})),
        ("read", json!({"path": "f", "offset": 0, "limit": 1})),
        ("read", json!({"path": "f", "offset": true, "limit": 2})),
        ("bash", json!({"command": "😀".repeat(30)})),
        ("bash", json!({"command": 123})),
        ("bash", json!({"command": "\u{a0}\u{feff} x \t"})),
        ("custom_tool", json!({"n": 1.0, "neg": -0.0, "big": 12345678901234567890u64})),
        ("custom_tool", json!({"emoji": "😀".repeat(17)})),
        ("custom_tool", serde_json::from_str(r#"{"b":1,"2":2,"1":{"10":1,"a":2,"9":3}}"#).unwrap()),
    ];
    let mut lines = vec![HEADER.to_string(), user("u0", None, 0, "go")];
    let mut parent = "u0".to_string();
    for (i, (name, args)) in calls.into_iter().enumerate() {
        let call = json!({"type": "toolCall", "id": format!("c{i}"), "name": name, "arguments": args});
        let (a, r) = (format!("a{i}"), format!("r{i}"));
        let time = |s: usize| format!("2025-07-01T12:{:02}:{:02}.000Z", s / 60, s % 60);
        lines.push(
            json!({"type": "message", "id": a, "parentId": parent, "timestamp": time(2 * i + 1),
                "message": {"role": "assistant", "content": [call], "provider": "p", "model": "m",
                    "stopReason": "toolUse"}})
            .to_string(),
        );
        lines.push(
            json!({"type": "message", "id": r, "parentId": a, "timestamp": time(2 * i + 2),
                "message": {"role": "toolResult", "toolCallId": format!("c{i}"), "toolName": name,
                    "content": [{"type": "text", "text": "ok"}]}})
            .to_string(),
        );
        parent = r;
    }
    agree_in(&dir, "tool-call-rows", &lines.join("\n"), &["all"]);
}

// ---------------------------------------------------------------------------------------------
// The comparison

/// Writes `text` as a session file and checks that pitree reads it as pi does, with the tree's rows
/// compared in each of `filters`.
fn agree(name: &str, text: &str, filters: &[&str]) {
    agree_in(&tempfile::tempdir().unwrap(), name, text, filters);
}

/// [`agree`] in `dir`, whose `home` folder is `HOME` for both.
fn agree_in(dir: &tempfile::TempDir, name: &str, text: &str, filters: &[&str]) {
    let file = dir.path().join(format!("{name}.jsonl"));
    std::fs::write(&file, format!("{text}\n")).unwrap();
    let home = dir.path().join("home");
    let Some(pi) = node("pi-view.mjs", &[file.to_str().unwrap()], &home) else {
        return;
    };
    let show = pitree(dir.path(), &["show", "--json", "--filter", "all", file.to_str().unwrap()]);
    let context = pitree(dir.path(), &["context", "--json", file.to_str().unwrap()]);
    assert_eq!(show["leafId"], pi["leafId"], "{name}: leaf");
    assert_eq!(show["name"], pi["sessionName"], "{name}: name");
    let labels: Map<String, Value> = show["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| !e["label"].is_null())
        .map(|e| (e["id"].as_str().unwrap().to_string(), e["label"].clone()))
        .collect();
    assert_eq!(Value::Object(labels), pi["treeLabels"], "{name}: labels");
    assert_eq!(context["thinkingLevel"], pi["thinkingLevel"], "{name}: thinking level");
    assert_eq!(context["model"], pi["model"], "{name}: model");
    let messages = context["messages"].as_array().unwrap();
    let roles: Vec<&Value> = messages.iter().map(|m| &m["role"]).collect();
    let texts: Vec<&Value> = messages.iter().map(|m| &m["text"]).collect();
    assert_eq!(json!(roles), pi["contextMessageRoles"], "{name}: context roles");
    assert_eq!(json!(texts), pi["contextMessageTexts"], "{name}: context texts");
    for filter in filters {
        let pi_rows = node("pi-tree.mjs", &[file.to_str().unwrap(), filter], &home).unwrap();
        let shown = pitree(dir.path(), &["show", "--json", "--filter", filter, file.to_str().unwrap()]);
        assert_eq!(rows(&shown), pi_rows["rows"], "{name}: rows with the {filter} filter");
    }
}

/// pitree's rows as pi-tree.mjs prints pi's: id and row text, without pitree's leaf marker.
fn rows(shown: &Value) -> Value {
    let rows = shown["entries"].as_array().unwrap().iter().map(|e| {
        let row = e["row"].as_str().unwrap();
        json!({"id": e["id"], "row": row.strip_suffix(" ← leaf").unwrap_or(row)})
    });
    Value::Array(rows.collect())
}

/// `pitree ARGS` in a sandbox under `dir`, parsed as the one JSON object it prints.
fn pitree(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(assert_cmd::cargo::cargo_bin("pitree"))
        .args(args)
        .env("HOME", dir.join("home"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("PI_CODING_AGENT_DIR", dir.join("agent"))
        .output()
        .unwrap();
    assert!(out.status.success(), "pitree {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `node tests/compat/SCRIPT ARGS` with pitree's `HOME`, parsed; `None` when pi is not installed,
/// which fails on CI.
fn node(script: &str, args: &[&str], home: &Path) -> Option<Value> {
    let out = common::pi_script_at_home(script, args, Some(home));
    assert!(
        out.is_some() || !common::pi_required(),
        "CI must install the real pi: npm ci --prefix tests/compat"
    );
    out
}
