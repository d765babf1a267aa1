//! pitree's view of every fixture equals pi 1.6.0's own view recorded next to it (`<name>.pi.json`):
//! leaf, labels, name, roots, parents, children order, path, context entries, context messages and
//! their texts, thinking level and model. Where pi hangs, hides entries or loses data, the
//! deviations are listed in `DEVIATIONS` (and in docs/pi-compat.md) and pitree's own answer is asserted.

use std::collections::BTreeMap;
use std::path::Path;

mod common;

use common::FIXTURES;
use common::fixtures::{deviates, fixture_files, recorded_view, without_no_ids};
use pitree::session::{Session, context};
use serde_json::{Value, json};

struct View<'a> {
    s: &'a Session,
}

impl View<'_> {
    fn id(&self, ix: u32) -> Value {
        json!(self.s.entry(ix).id)
    }

    fn ids(&self, ixs: impl IntoIterator<Item = u32>) -> Value {
        Value::Array(ixs.into_iter().map(|i| self.id(i)).collect())
    }

    fn leaf(&self) -> Value {
        self.s.graph.leaf().map_or(Value::Null, |l| self.id(l))
    }

    fn parent_of(&self) -> Value {
        let m: serde_json::Map<String, Value> = (0..self.s.entries().len() as u32)
            .map(|i| {
                (self.s.entry(i).id.to_string(), self.s.graph.parent(i).map_or(Value::Null, |p| self.id(p)))
            })
            .collect();
        Value::Object(m)
    }

    fn children_order(&self) -> Value {
        let m: serde_json::Map<String, Value> = (0..self.s.entries().len() as u32)
            .filter(|&i| !self.s.graph.children(i).is_empty())
            .map(|i| (self.s.entry(i).id.to_string(), self.ids(self.s.graph.children(i).iter().copied())))
            .collect();
        Value::Object(m)
    }

    fn labels(&self) -> (Value, Value) {
        let labels = self.s.graph.labels();
        let texts = labels.iter().map(|(k, l)| (k.clone(), json!(l.text))).collect();
        let times = labels.iter().map(|(k, l)| (k.clone(), json!(l.timestamp))).collect();
        (Value::Object(texts), Value::Object(times))
    }

    fn context_roles(&self) -> Value {
        let msgs = self.s.context_messages(self.s.graph.leaf());
        Value::Array(msgs.iter().map(|m| json!(m.role)).collect())
    }

    fn context_texts(&self) -> Value {
        let msgs = self.s.context_messages(self.s.graph.leaf());
        Value::Array(msgs.iter().map(|m| self.message_text(m)).collect())
    }

    fn message_text(&self, m: &context::ContextMessage) -> Value {
        self.s.context_text(m).unwrap().map_or(Value::Null, Value::String)
    }

    fn settings(&self) -> (Value, Value) {
        let s = context::settings(&self.s.graph, self.s.entries(), self.s.graph.leaf());
        let model = s.model.map_or(Value::Null, |(p, m)| json!({"provider": p, "modelId": m}));
        (json!(s.thinking_level), model)
    }
}

fn compare(file: &str, field: &str, ours: Value, pi: &Value, failures: &mut Vec<String>) {
    if deviates(file, field) || pi.is_null() && field == "contextMessageTexts" {
        return;
    }
    let pi = without_no_ids(pi);
    if ours != pi {
        failures.push(format!("{file}: {field}\n  pitree: {ours}\n  pi:     {pi}"));
    }
}

fn check_file(path: &Path, failures: &mut Vec<String>) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let pi = recorded_view(path);
    let opened = Session::open(path);
    let pi_error = !pi["loadError"].is_null();
    let s = match (opened, pi_error) {
        (Err(_), true) => return,
        (Err(e), false) if name == "empty.jsonl" => {
            assert!(e.to_string().contains("empty"), "{e}");
            return;
        }
        (Ok(_), true) if ["bom.jsonl", "header-id-number.jsonl"].contains(&name.as_str()) => return,
        (Ok(_), true) => {
            failures.push(format!("{name}: pi cannot open it ({}) but pitree did", pi["loadError"]));
            return;
        }
        (Err(e), false) => {
            failures.push(format!("{name}: pitree cannot open it: {e}"));
            return;
        }
        (Ok(s), false) => s,
    };
    let v = View { s: &s };
    if deviates(&name, "ids") {
        compare_structure_by_line(&name, &s, &pi, failures);
        return;
    }
    compare(&name, "leafId", v.leaf(), &pi["leafId"], failures);
    compare(
        &name,
        "sessionName",
        s.graph.name().map_or(Value::Null, |n| json!(n)),
        &pi["sessionName"],
        failures,
    );
    let (labels, times) = v.labels();
    compare(&name, "labels", labels, &pi["labels"], failures);
    compare(&name, "labelTimestamps", times, &pi["labelTimestamps"], failures);
    compare(&name, "roots", v.ids(s.graph.roots()), &pi["roots"], failures);
    compare(&name, "parentOf", v.parent_of(), &pi["parentOf"], failures);
    compare(&name, "childrenOrder", v.children_order(), &pi["childrenOrder"], failures);
    let leaf = s.graph.leaf();
    compare(
        &name,
        "branchIds",
        v.ids(leaf.map(|l| s.graph.path_to(l)).unwrap_or_default()),
        &pi["branchIds"],
        failures,
    );
    if deviates(&name, "context") {
        return;
    }
    compare(&name, "contextEntryIds", v.ids(s.context_entries(leaf)), &pi["contextEntryIds"], failures);
    compare(&name, "contextMessageRoles", v.context_roles(), &pi["contextMessageRoles"], failures);
    compare(&name, "contextMessageTexts", v.context_texts(), &pi["contextMessageTexts"], failures);
    let (thinking, model) = v.settings();
    compare(&name, "thinkingLevel", thinking, &pi["thinkingLevel"], failures);
    compare(&name, "model", model, &pi["model"], failures);
}

/// For migrated legacy files pi's ids are random: compare each entry's line and parent line.
fn compare_structure_by_line(name: &str, s: &Session, pi: &Value, failures: &mut Vec<String>) {
    let ours: Vec<Value> = (0..s.entries().len() as u32)
        .map(|i| json!([s.entry(i).line, s.graph.parent(i).map(|p| s.entry(p).line)]))
        .collect();
    let theirs: Vec<Value> =
        pi["entries"].as_array().unwrap().iter().map(|e| json!([e["line"], e["parentLine"]])).collect();
    if ours != theirs {
        failures.push(format!("{name}: entry structure by line\n  pitree: {ours:?}\n  pi:     {theirs:?}"));
    }
    let leaf_line = s.graph.leaf().map(|l| s.entry(l).line);
    if json!(leaf_line) != pi["leafLine"] {
        failures.push(format!("{name}: leaf line {leaf_line:?} vs pi {}", pi["leafLine"]));
    }
    let context_lines: Vec<u32> =
        s.context_entries(s.graph.leaf()).iter().map(|&i| s.entry(i).line).collect();
    if json!(context_lines) != pi["contextEntryLines"] {
        failures.push(format!("{name}: context lines {context_lines:?} vs pi {}", pi["contextEntryLines"]));
    }
}

#[test]
fn every_fixture_matches_pi_except_documented_deviations() {
    let mut failures = Vec::new();
    let files = fixture_files();
    assert!(files.len() >= 40, "fixtures missing: {}", files.len());
    for f in &files {
        check_file(f, &mut failures);
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

fn edge(name: &str) -> Session {
    Session::open(&Path::new(FIXTURES).join("edge").join(name)).unwrap()
}

fn ids_of(s: &Session, ixs: Vec<u32>) -> Vec<String> {
    ixs.into_iter().map(|i| s.entry(i).id.to_string()).collect()
}

#[test]
fn two_cycle_is_broken_at_its_first_member() {
    let s = edge("two-cycle.jsonl");
    let roots = ids_of(&s, s.graph.roots().collect());
    assert_eq!(roots, ["a0000001", "d0000001"]);
    let d1 = s.graph.find("d0000001").unwrap();
    assert_eq!(ids_of(&s, s.graph.children(d1).to_vec()), ["d0000002"]);
    assert_eq!(ids_of(&s, s.graph.path_to(s.graph.leaf().unwrap())), ["d0000001", "d0000002"]);
    assert_eq!(s.graph.broken_cycles().count(), 1);
}

#[test]
fn self_parent_leaf_is_a_root_and_its_context_is_itself() {
    let s = edge("self-parent-leaf.jsonl");
    let leaf = s.graph.leaf().unwrap();
    assert_eq!(s.graph.path_to(leaf), vec![leaf]);
}

#[test]
fn duplicate_id_keeps_the_first_line_and_reports_the_second() {
    let s = edge("duplicate-id.jsonl");
    let dup = s.graph.find("e0000001").unwrap();
    assert_eq!(s.entry(dup).parent_id.as_deref(), Some("a0000001"));
    assert!(s.file.damage.iter().any(|d| d.kind == pitree::session::DamageKind::DuplicateId));
    for (ix, e) in s.entries().iter().enumerate() {
        assert_eq!(s.graph.find(&e.id), Some(ix as u32), "the id index matches the entries left");
    }
}

#[test]
fn bom_and_numeric_header_id_open() {
    assert_eq!(edge("bom.jsonl").entries().len(), 4);
    let s = edge("header-id-number.jsonl");
    assert_eq!(s.header().id, "12345");
}

#[test]
fn damaged_lines_are_counted_with_reasons() {
    let counts: BTreeMap<&str, usize> = [
        ("junk-values.jsonl", 7),
        ("null-line.jsonl", 1),
        ("number-line.jsonl", 1),
        ("malformed-middle-line.jsonl", 1),
        ("truncated-last-line.jsonl", 1),
        ("garbage-first-line.jsonl", 1),
        ("duplicate-header.jsonl", 1),
        ("idless-trailing-entry.jsonl", 1),
        ("blank-lines.jsonl", 0),
        ("crlf.jsonl", 0),
    ]
    .into_iter()
    .collect();
    for (file, n) in counts {
        assert_eq!(edge(file).file.damage.len(), n, "{file}");
    }
}

#[test]
fn huge_line_is_read_without_keeping_its_text() {
    let s = edge("huge-line.jsonl");
    let big = s.entries().iter().find(|e| e.span.end - e.span.start > 20_000_000).unwrap();
    let m = big.message().unwrap();
    assert_eq!(m.text.head.chars().count(), pitree::session::entry::TEXT_HEAD_CHARS);
    assert!(!m.text.is_complete());
}
