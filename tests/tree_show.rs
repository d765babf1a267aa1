//! `pitree show`: the rows exactly as the tree view draws them (without the cursor), in each filter
//! mode, and the documented JSON object.

mod tree_support;

use assert_cmd::Command;
use pitree::tui::tree::FilterMode;
use tree_support::*;

fn show(args: &[&str]) -> String {
    let home = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("pitree")
        .unwrap()
        .arg("show")
        .args(args)
        .env("HOME", "/home/dev")
        .env("PI_CODING_AGENT_DIR", home.path())
        .env("XDG_CACHE_HOME", home.path())
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn text_output_is_the_views_rows_in_every_filter() {
    for name in ["branched", "multiroot", "unicode", "summary"] {
        let path = scenario(name);
        let mut view = open(&path);
        for mode in FilterMode::CYCLE {
            while view.filter() != mode {
                press(&mut view, ctrl('o'));
            }
            let printed = show(&[path.to_str().unwrap(), "--filter", mode.name()]);
            let expected: String = view.row_texts().iter().map(|r| format!("{r}\n")).collect();
            assert_eq!(printed, expected, "{name} {}", mode.name());
        }
    }
}

#[test]
fn pi_screens_rows_appear_verbatim() {
    let printed = show(&[scenario("branched").to_str().unwrap()]);
    for row in [
        "├⊟ • [approach-a] user: Let's try A: axum middleware.",
        "│     • [read: src/auth/mod.rs]",
        "│     ├⊟ user: Run the tests for B.",
        "│     │     [b-tests-green] assistant: All 6 auth tests pass with B.",
        "└⊟ user: What about option C: keep it as is but add tests?",
    ] {
        assert!(printed.lines().any(|l| l == row), "{row} in\n{printed}");
    }
    let users = show(&[scenario("branched").to_str().unwrap(), "--filter", "user-only"]);
    assert!(users.lines().any(|l| l == "│  ├─ user: Run the tests for B."));
}

#[test]
fn json_output_has_the_documented_fields() {
    let path = scenario("branched");
    let doc: serde_json::Value = serde_json::from_str(&show(&[path.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(doc["leafId"], scenario_id("branched", "leaf"));
    assert_eq!(doc["name"], "Auth refactor: middleware vs guard");
    assert_eq!(doc["filter"], "default");
    assert_eq!(doc["damagedLines"], serde_json::json!([]));
    let entries = doc["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 20);
    let u2a = entries.iter().find(|e| e["id"] == scenario_id("branched", "u2a")).unwrap();
    assert_eq!(u2a["prefix"], "├⊟ ");
    assert_eq!(u2a["label"], "approach-a");
    assert_eq!(u2a["text"], "user: Let's try A: axum middleware.");
    assert_eq!((u2a["type"].as_str(), u2a["role"].as_str()), (Some("message"), Some("user")));
    assert_eq!(
        (u2a["onActivePath"].as_bool(), u2a["isLeaf"].as_bool(), u2a["depth"].as_u64()),
        (Some(true), Some(false), Some(1))
    );
    let leaves: Vec<_> = entries.iter().filter(|e| e["isLeaf"] == true).collect();
    assert_eq!(leaves.len(), 1);
    assert_eq!(leaves[0]["id"], doc["leafId"]);
    let damaged: serde_json::Value = serde_json::from_str(&show(&[
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/edge/malformed-middle-line.jsonl"),
        "--json",
    ]))
    .unwrap();
    assert_eq!(damaged["damagedLines"][0]["line"], 4);
}

#[test]
fn an_unknown_filter_is_a_usage_error() {
    let mut cmd = Command::cargo_bin("pitree").unwrap();
    cmd.args(["show", scenario("branched").to_str().unwrap(), "--filter", "tools"]).env("HOME", "/home/dev");
    cmd.assert().code(2);
}
