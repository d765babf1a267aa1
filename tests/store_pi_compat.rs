//! Every write action, done with the `pitree` binary on a copy of a pi-written session, then read by
//! the real pi 1.6.0: pi sees the new leaf and its context, the branch summary, the label, the name,
//! the forked file, and the migrated legacy file.

mod common;

use common::{Sandbox, ok, pi_view};
use pitree::session::Session;
use serde_json::Value;

const BRANCHED: &str = "2025-06-03T14-02-40-500Z";

fn view(file: &std::path::Path) -> Option<Value> {
    let v = pi_view(file);
    if v.is_none() && common::pi_required() {
        panic!("CI must install the real pi: npm ci --prefix tests/compat");
    }
    v
}

fn id_of(file: &std::path::Path, text: &str) -> String {
    let s = Session::open(file).unwrap();
    s.entries()
        .iter()
        .find(|e| e.message().is_some_and(|m| m.text.head.starts_with(text)))
        .unwrap()
        .id
        .to_string()
}

fn path_ids(v: &Value) -> Vec<String> {
    v["branchIds"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect()
}

#[test]
fn leaf_move_without_summary_is_where_pi_resumes() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let target = id_of(&f, "Run the tests for B.");
    ok(&sb.pitree(&["leaf", f.to_str().unwrap(), &target[..6]]));
    let Some(v) = view(&f) else { return };
    assert_eq!(v["leafParentId"], target.as_str());
    let ids = path_ids(&v);
    assert_eq!(ids[ids.len() - 2], target);
    let ours = Session::open(&f).unwrap();
    let leaf = ours.graph.leaf().unwrap();
    let our_context: Vec<String> =
        ours.context_entries(Some(leaf)).iter().map(|&i| ours.entry(i).id.to_string()).collect();
    let pi_context: Vec<String> =
        v["contextEntryIds"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect();
    assert_eq!(our_context, pi_context);
    let last = v["entries"].as_array().unwrap().last().unwrap();
    assert_eq!(last["type"], "custom");
    assert_eq!(last["customType"], "pitree.leaf");
}

#[test]
fn leaf_move_to_root_gives_pi_an_empty_conversation() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    ok(&sb.pitree(&["leaf", f.to_str().unwrap(), "root"]));
    let Some(v) = view(&f) else { return };
    assert_eq!(v["contextMessageRoles"].as_array().unwrap().len(), 0);
    assert_eq!(v["leafParentId"], Value::Null);
}

#[test]
fn leaf_move_with_summary_writes_a_branch_summary_pi_puts_in_context() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let target = id_of(&f, "What about option C");
    let old_leaf = Session::open(&f).unwrap();
    let old_leaf_id = old_leaf.entry(old_leaf.graph.leaf().unwrap()).id.to_string();
    ok(&sb.pitree(&["leaf", f.to_str().unwrap(), &target, "--summary", "Tried A; it worked."]));
    let Some(v) = view(&f) else { return };
    assert_eq!(v["leafParentId"], target.as_str());
    let roles = v["contextMessageRoles"].as_array().unwrap();
    assert_eq!(roles.last().unwrap(), "branchSummary");
    let texts = v["contextMessageTexts"].as_array().unwrap();
    assert_eq!(texts.last().unwrap(), "Tried A; it worked.");
    let last = v["entries"].as_array().unwrap().last().unwrap();
    assert_eq!(last["type"], "branch_summary");
    assert_eq!(last["fromId"], old_leaf_id.as_str());
}

#[test]
fn draft_summary_lists_files_in_pi_layout() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let target = id_of(&f, "What about option C");
    ok(&sb.pitree(&["leaf", f.to_str().unwrap(), &target, "--draft"]));
    let Some(v) = view(&f) else { return };
    let text = v["contextMessageTexts"].as_array().unwrap().last().unwrap().as_str().unwrap().to_string();
    assert!(
        text.starts_with("The user explored a different conversation branch before returning here."),
        "{text}"
    );
    assert!(text.contains("<modified-files>\nsrc/auth/middleware.rs\n</modified-files>"), "{text}");
}

#[test]
fn label_set_and_clear_are_what_pi_reads() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let target = id_of(&f, "Two options");
    ok(&sb.pitree(&["label", f.to_str().unwrap(), &target, "  decision point "]));
    let Some(v) = view(&f) else { return };
    assert_eq!(v["labels"][&target], "decision point");
    ok(&sb.pitree(&["label", f.to_str().unwrap(), &target]));
    let v = view(&f).unwrap();
    assert!(v["labels"].get(&target).is_none(), "{}", v["labels"]);
    assert_eq!(v["labels"]["3a8910ae"], "approach-a", "other labels stay");
}

#[test]
fn rename_and_clear_are_what_pi_reads() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    ok(&sb.pitree(&["rename", f.to_str().unwrap(), "  Auth\r\nsplit  "]));
    let Some(v) = view(&f) else { return };
    assert_eq!(v["sessionName"], "Auth split");
    ok(&sb.pitree(&["rename", f.to_str().unwrap()]));
    assert_eq!(view(&f).unwrap()["sessionName"], Value::Null);
}

#[test]
fn fork_makes_a_file_pi_reads_as_its_own() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let target = id_of(&f, "All 6 auth tests pass with B.");
    let out = ok(&sb.pitree(&["fork", f.to_str().unwrap(), &target]));
    let forked = std::path::PathBuf::from(out.trim());
    assert_eq!(forked.parent(), f.parent());
    let Some(v) = view(&forked) else { return };
    assert_eq!(v["version"], 3);
    assert_eq!(v["parentSession"], f.canonicalize().unwrap().to_str().unwrap());
    assert_eq!(v["cwd"], "/home/dev/alpha");
    let source = view(&f).unwrap();
    let source_path: Vec<&Value> = source["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| path_ids(&source).contains(&e["id"].as_str().unwrap().to_string()))
        .collect();
    assert!(!source_path.is_empty());
    assert_eq!(v["labels"]["4b7ab3a2"], "b-tests-green", "labels on the path are re-created");
    assert_eq!(v["labels"]["3a8910ae"], Value::Null, "labels off the path are dropped");
    let kinds: Vec<&str> =
        v["entries"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "label").count(), 1);
    assert_eq!(v["roots"].as_array().unwrap().len(), 1, "the chain is re-linked");
    assert_eq!(path_ids(&v).last().unwrap(), v["leafId"].as_str().unwrap());
}

#[test]
fn a_legacy_file_is_migrated_with_a_backup_before_the_first_write() {
    let sb = Sandbox::new();
    let f = sb.add("edge/v2-legacy.jsonl", "--home-dev-legacy--");
    let original = std::fs::read(&f).unwrap();
    let before = Session::open(&f).unwrap();
    let target = before.entry(0).id.to_string();
    ok(&sb.pitree(&["label", f.to_str().unwrap(), &target, "first"]));
    let backup = f.with_file_name(format!("{}.v2.bak", f.file_name().unwrap().to_string_lossy()));
    assert_eq!(std::fs::read(&backup).unwrap(), original, "the original is kept byte for byte");
    let text = std::fs::read_to_string(&f).unwrap();
    let malformed = String::from_utf8_lossy(&original).lines().nth(4).unwrap().to_string();
    assert!(text.contains(&malformed), "unreadable lines are kept verbatim");
    let Some(v) = view(&f) else { return };
    assert_eq!(v["copyChange"], "unchanged", "pi sees a v3 file it does not need to rewrite");
    assert_eq!(v["labels"][&target], "first");
    let after = Session::open(&f).unwrap();
    let ids: Vec<&str> = after.entries().iter().map(|e| e.id.as_str()).collect();
    let before_ids: Vec<&str> = before.entries().iter().map(|e| e.id.as_str()).collect();
    assert_eq!(&ids[..before_ids.len()], &before_ids[..]);
}

/// A legacy fixture whose header `version` is written as the JSON value `version`.
fn with_version(sb: &Sandbox, version: &str) -> std::path::PathBuf {
    let f = sb.add("edge/v2-legacy.jsonl", "--home-dev-legacy--");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, text.replacen(r#""version":2"#, &format!(r#""version":{version}"#), 1)).unwrap();
    f
}

#[test]
fn a_header_version_written_as_the_string_3_is_current_as_pi_compares_it() {
    let sb = Sandbox::new();
    let f = with_version(&sb, r#""3""#);
    let original = std::fs::read(&f).unwrap();
    let pi_before = view(&f);
    ok(&sb.pitree(&["rename", f.to_str().unwrap(), "r"]));
    let after = std::fs::read(&f).unwrap();
    assert!(after.starts_with(&original), "appended to, not migrated");
    let backups = std::fs::read_dir(f.parent().unwrap()).unwrap().flatten();
    assert!(!backups.into_iter().any(|e| e.file_name().to_string_lossy().ends_with(".bak")));
    let (Some(before), Some(v)) = (pi_before, view(&f)) else { return };
    assert_eq!(v["sessionName"], "r");
    assert_eq!(v["labels"], before["labels"], "the labels still name their entries");
    assert_eq!(context_before_the_name(&v), before["contextEntryIds"], "the abandoned branch stays out");
    assert_eq!(path_ids(&v)[..path_ids(&before).len()], path_ids(&before)[..]);
}

#[test]
fn a_header_version_written_as_the_string_2_is_migrated_from_v2_keeping_every_id() {
    let sb = Sandbox::new();
    let f = with_version(&sb, r#""2""#);
    let before = Session::open(&f).unwrap();
    let pi_before = view(&f);
    ok(&sb.pitree(&["rename", f.to_str().unwrap(), "r"]));
    assert!(f.with_file_name(format!("{}.v2.bak", f.file_name().unwrap().to_string_lossy())).exists());
    let after = Session::open(&f).unwrap();
    let ids = |s: &Session| s.entries().iter().map(|e| e.id.to_string()).collect::<Vec<_>>();
    assert_eq!(ids(&after)[..before.entries().len()], ids(&before)[..]);
    let (Some(before), Some(v)) = (pi_before, view(&f)) else { return };
    assert_eq!(v["copyChange"], "unchanged", "pi sees a v3 file it does not need to rewrite");
    assert_eq!(v["labels"], before["labels"]);
    assert_eq!(context_before_the_name(&v), before["contextEntryIds"]);
}

/// pi's context entries without the last one, the `session_info` the rename appended.
fn context_before_the_name(v: &Value) -> Value {
    let ids = v["contextEntryIds"].as_array().unwrap();
    assert_eq!(ids.last(), v["leafId"].as_str().map(Value::from).as_ref(), "the name is the leaf");
    Value::from(ids[..ids.len() - 1].to_vec())
}

#[test]
fn a_rename_keeps_pi_s_leaf_when_the_last_line_repeats_an_earlier_id() {
    let sb = Sandbox::new();
    let f = sb.add("edge/duplicate-id.jsonl", "--home-dev-edge--");
    let text = std::fs::read_to_string(&f).unwrap();
    let repeated = text.lines().nth(2).unwrap().to_string();
    std::fs::write(&f, format!("{text}{repeated}\n")).unwrap();
    let pi_before = view(&f);
    let ours = Session::open(&f).unwrap();
    assert_eq!(ours.entry(ours.graph.leaf().unwrap()).id.as_str(), "a0000002");
    ok(&sb.pitree(&["rename", f.to_str().unwrap(), "just a name"]));
    let (Some(before), Some(v)) = (pi_before, view(&f)) else { return };
    assert_eq!(before["leafId"], "a0000002");
    assert_eq!(v["sessionName"], "just a name");
    assert_eq!(context_before_the_name(&v), before["contextEntryIds"], "pi continues where it did");
}

#[test]
fn migration_keeps_the_lines_it_does_not_change_byte_for_byte() {
    let sb = Sandbox::new();
    let f = sb.add("edge/v2-legacy.jsonl", "--home-dev-legacy--");
    let odd = r#"{"type":"message","id":"0a0a0a08","parentId":"0a0a0a07", "timestamp":"2025-01-15T08:01:30.000Z","message":{"role":"user","content":[{"type":"text","text":"lone \ud800 half"}],"timestamp":1736928090000},"big":1e400,"zero":-0}"#;
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, format!("{text}{odd}\n")).unwrap();
    ok(&sb.pitree(&["rename", f.to_str().unwrap(), "kept"]));
    let migrated = std::fs::read_to_string(&f).unwrap();
    assert!(migrated.starts_with(r#"{"type":"session","version":3"#), "migrated: {migrated}");
    assert!(migrated.lines().any(|l| l == odd), "the unchanged entry is as it was:\n{migrated}");
    let Some(v) = view(&f) else { return };
    assert_eq!(v["copyChange"], "unchanged", "pi sees a v3 file it does not need to rewrite");
    assert_eq!(v["sessionName"], "kept");
}

#[test]
fn a_v1_file_keeps_the_ids_pitree_showed() {
    let sb = Sandbox::new();
    let f = sb.add("edge/v1-legacy.jsonl", "--home-dev-legacy--");
    let before = Session::open(&f).unwrap();
    let shown = before.entry(2).id.to_string();
    ok(&sb.pitree(&["leaf", f.to_str().unwrap(), &shown]));
    let Some(v) = view(&f) else { return };
    assert_eq!(v["leafParentId"], shown.as_str());
    assert_eq!(v["copyChange"], "unchanged");
}

#[test]
fn a_torn_tail_is_repaired_before_appending() {
    let sb = Sandbox::new();
    let f = sb.add("edge/truncated-last-line.jsonl", "--home-dev-edge--");
    ok(&sb.pitree(&["rename", f.to_str().unwrap(), "repaired"]));
    let Some(v) = view(&f) else { return };
    assert_eq!(v["sessionName"], "repaired");
}

#[test]
fn context_after_a_compaction_that_keeps_a_system_message_matches_pi() {
    let sb = Sandbox::new();
    let dir = sb.sessions().join("--p--");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("s.jsonl");
    let lines = [
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#,
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"q","timestamp":1}}"#,
        r#"{"type":"message","id":"sy","parentId":"u1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"system","content":"prompt","timestamp":2}}"#,
        r#"{"type":"message","id":"a1","parentId":"sy","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"a"}],"timestamp":3}}"#,
        r#"{"type":"compaction","id":"c1","parentId":"a1","timestamp":"2025-01-01T00:00:04.000Z","summary":"sum","firstKeptEntryId":"u1","tokensBefore":10}"#,
        r#"{"type":"message","id":"u2","parentId":"c1","timestamp":"2025-01-01T00:00:05.000Z","message":{"role":"user","content":"next","timestamp":5}}"#,
    ];
    std::fs::write(&f, lines.join("\n") + "\n").unwrap();
    let Some(v) = view(&f) else { return };
    let s = Session::open(&f).unwrap();
    let ours: Vec<String> =
        s.context_entries(s.graph.leaf()).iter().map(|&i| s.entry(i).id.to_string()).collect();
    let theirs: Vec<String> =
        v["contextEntryIds"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect();
    assert_eq!(ours, theirs);
    let roles: Vec<String> = s.context_messages(s.graph.leaf()).iter().map(|m| m.role.clone()).collect();
    assert_eq!(serde_json::json!(roles), v["contextMessageRoles"]);
}
