//! What the fixture comparisons share: the fixture files, pi's recorded view of each, pitree's
//! documented deviations from it, and the removal of pi's `<no-id@line N>` pseudo-entries.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::FIXTURES;

/// Fields of pi's recorded view that pitree deliberately answers differently, per file, and why
/// (docs/pi-compat.md lists the same cases).
pub const DEVIATIONS: &[(&str, &[&str], &str)] = &[
    (
        "two-cycle.jsonl",
        &["roots", "parentOf", "childrenOrder", "branchIds", "context"],
        "pi hangs on the cycle and hides both members; pitree breaks it at the first member in file order",
    ),
    (
        "two-cycle-offpath.jsonl",
        &["roots", "parentOf", "childrenOrder"],
        "pi hides the cycle members; pitree shows them, the first as a root",
    ),
    (
        "self-parent-leaf.jsonl",
        &["branchIds", "context"],
        "pi loops forever on a self-parented leaf; pitree treats it as a root",
    ),
    (
        "duplicate-id.jsonl",
        &["parentOf", "childrenOrder", "branchIds", "context"],
        "pi lets the later duplicate win and places it twice; pitree keeps the first and reports the second line",
    ),
    (
        "idless-trailing-entry.jsonl",
        &["leafId", "branchIds"],
        "pi's leaf becomes undefined; pitree never makes an id-less line the leaf",
    ),
    (
        "lone-surrogate.jsonl",
        &["contextMessageTexts"],
        "lone UTF-16 surrogates cannot exist in Rust strings; pitree shows U+FFFD",
    ),
    (
        "v1-legacy.jsonl",
        &["ids"],
        "pi draws random ids when migrating; pitree derives stable ones, so the structure is compared by position",
    ),
    ("bom.jsonl", &["open"], "pi cannot parse a header that starts with a BOM; pitree skips the BOM"),
    (
        "empty.jsonl",
        &["headerId", "cwd", "smCwd"],
        "both write a fresh header into the empty file: a new random id and the process cwd (/ when pi's view was recorded)",
    ),
];

/// Whether `field` of `file` is a documented deviation.
pub fn deviates(file: &str, field: &str) -> bool {
    DEVIATIONS.iter().any(|(f, fields, _)| *f == file && fields.contains(&field))
}

/// Every `.jsonl` file under `dir`, sorted.
pub fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// Every fixture session file.
pub fn fixture_files() -> Vec<PathBuf> {
    jsonl_files(Path::new(FIXTURES))
}

/// pi 1.6.0's recorded view of a fixture (`<name>.pi.json` next to it).
pub fn recorded_view(path: &Path) -> Value {
    let json = path.with_extension("pi.json");
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

fn is_no_id(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s.starts_with("<no-id@"))
}

/// A children list made only of pseudo-entries (it disappears once they are removed).
fn only_no_ids(v: &Value) -> bool {
    v.as_array().is_some_and(|a| !a.is_empty() && a.iter().all(is_no_id))
}

/// pi's value with the `<no-id@line N>` pseudo-entries removed (pitree skips those lines).
pub fn without_no_ids(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().filter(|x| !is_no_id(x)).map(without_no_ids).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, v)| !k.starts_with("<no-id@") && !only_no_ids(v))
                .map(|(k, v)| (k.clone(), without_no_ids(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}
