//! The command line as a script sees it: `--help` on every command, exit statuses (0 ok, 1 error,
//! 2 usage), one-line errors on stderr, unique id prefixes, `context --json`, delete to a temporary
//! trash, and the completions and man page generated from the same definitions.

mod common;

use common::{Sandbox, ok};
use serde_json::Value;

const BRANCHED: &str = "2025-06-03T14-02-40-500Z";
const COMMANDS: &[&str] =
    &["list", "show", "context", "leaf", "label", "rename", "fork", "delete", "completions", "man"];

#[test]
fn every_command_has_help() {
    let sb = Sandbox::new();
    let top = ok(&sb.pitree(&["--help"]));
    for command in COMMANDS {
        assert!(top.contains(command), "top-level help lists {command}");
        let help = ok(&sb.pitree(&[command, "--help"]));
        assert!(help.contains("Usage: pitree"), "{command} --help:\n{help}");
        // The picker's scope flag belongs to the picker (and `list` has its own).
        let offers_all = help.contains("--all");
        assert_eq!(offers_all, *command == "list", "{command} --help:\n{help}");
    }
    assert_eq!(sb.pitree(&["show", "--all", "/nonexistent.jsonl"]).status.code(), Some(2));
}

#[test]
fn usage_errors_exit_2_and_errors_exit_1_with_one_line() {
    let sb = Sandbox::with_fixtures();
    assert_eq!(sb.pitree(&["label"]).status.code(), Some(2));
    assert_eq!(sb.pitree(&["nonsense-command", "x", "y"]).status.code(), Some(2));
    let missing = sb.pitree(&["context", "/nonexistent/x.jsonl"]);
    assert_eq!(missing.status.code(), Some(1));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("pitree: "), "{err}");
    let f = sb.find(BRANCHED);
    let ambiguous = sb.pitree(&["label", f.to_str().unwrap(), "9", "x"]);
    assert_eq!(ambiguous.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&ambiguous.stderr).contains("more than one entry id"));
    let not_session = sb.add("edge/not-a-session.jsonl", "--x--");
    let before = std::fs::read(&not_session).unwrap();
    let out = sb.pitree(&["rename", not_session.to_str().unwrap(), "n"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a pi session"));
    assert_eq!(std::fs::read(&not_session).unwrap(), before, "bad input leaves the file as it was");
}

#[test]
fn a_folder_named_as_the_session_to_open_is_called_a_folder() {
    let sb = Sandbox::new();
    let folder = sb.dir.path().join("home");
    let by_path = sb.pitree(&[folder.to_str().unwrap()]);
    assert_eq!(by_path.status.code(), Some(1));
    let err = String::from_utf8_lossy(&by_path.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("is a folder, not a session file") && err.contains("--session-dir"), "{err}");
    let by_name = sb.command(&["home"]).current_dir(sb.dir.path()).output().unwrap();
    let err = String::from_utf8_lossy(&by_name.stderr);
    assert!(
        err.contains("home is a folder, not a session file"),
        "no session has an id starting with it: {err}"
    );
}

#[test]
fn a_unique_prefix_names_an_entry() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let out = ok(&sb.pitree(&["label", f.to_str().unwrap(), "04d1", "bp"]));
    assert!(out.contains("04d1262c"), "{out}");
}

#[test]
fn context_json_is_one_documented_object() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let v: Value =
        serde_json::from_str(&ok(&sb.pitree(&["context", f.to_str().unwrap(), "--json"]))).unwrap();
    assert_eq!(v["leafId"], "8b525268");
    assert_eq!(v["thinkingLevel"], "medium");
    assert_eq!(v["model"]["modelId"], "claude-sonnet-4-5");
    let roles: Vec<&str> =
        v["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles[..3], ["system", "user", "assistant"]);
    let at: Value = serde_json::from_str(&ok(&sb.pitree(&[
        "context",
        f.to_str().unwrap(),
        "--leaf",
        "04d1262c",
        "--json",
    ])))
    .unwrap();
    assert_eq!(at["messages"].as_array().unwrap().len(), 3);
    let text = ok(&sb.pitree(&["context", f.to_str().unwrap()]));
    assert!(text.lines().any(|l| l.starts_with("[user] The auth module")), "{text}");
}

#[test]
fn delete_moves_the_file_to_the_sandbox_trash_and_refuses_outside_the_root() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    ok(&sb.pitree(&["delete", f.to_str().unwrap(), "--yes"]));
    assert!(!f.exists());
    let trashed = sb.dir.path().join("xdg/Trash/files").join(f.file_name().unwrap());
    assert!(trashed.exists(), "in the temporary trash");
    let outside = tempfile::tempdir().unwrap();
    let stray = outside.path().join("stray.jsonl");
    std::fs::copy(&trashed, &stray).unwrap();
    let out = sb.pitree(&["delete", stray.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("outside the sessions root"));
    assert!(stray.exists());
}

#[test]
fn deleting_a_symlinked_session_trashes_the_link_and_keeps_the_file_it_points_to() {
    let sb = Sandbox::with_fixtures();
    let target = sb.find(BRANCHED);
    let elsewhere = tempfile::tempdir().unwrap();
    let kept = elsewhere.path().join("kept.jsonl");
    std::fs::rename(&target, &kept).unwrap();
    let link = target.with_file_name("linked.jsonl");
    std::os::unix::fs::symlink(&kept, &link).unwrap();
    let out = ok(&sb.pitree(&["delete", link.to_str().unwrap(), "--yes"]));
    assert!(out.contains("linked.jsonl"), "{out}");
    assert!(std::fs::symlink_metadata(&link).is_err(), "the link is gone");
    assert!(kept.exists(), "the file it pointed to stays");
    let trashed = sb.dir.path().join("xdg/Trash/files/linked.jsonl");
    assert!(
        std::fs::symlink_metadata(&trashed).unwrap().file_type().is_symlink(),
        "the link is in the trash"
    );
}

#[test]
fn completions_and_man_page_come_from_the_definitions() {
    let sb = Sandbox::new();
    for shell in ["bash", "zsh", "fish"] {
        let script = ok(&sb.pitree(&["completions", shell]));
        assert!(script.contains("rename") && script.contains("session-dir"), "{shell}");
    }
    let man = ok(&sb.pitree(&["man"]));
    assert!(man.starts_with(".ie") || man.contains(".TH pitree"), "{}", &man[..200.min(man.len())]);
}

/// A process that looks like pi holding `file` open (`tail -f` named `pi`), until it is killed.
fn fake_pi(file: &std::path::Path) -> std::process::Child {
    let child = std::process::Command::new("bash")
        .args(["-c", "exec -a pi tail -f \"$0\""])
        .arg(file)
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !pitree::store::live::scan().contains(file) {
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "the stand-in pi was not seen");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child
}

#[test]
fn delete_refuses_a_session_a_running_pi_has_open_unless_forced() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let mut pi = fake_pi(&f);
    let refused = sb.pitree(&["delete", f.to_str().unwrap(), "--yes"]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{err}");
    assert!(err.contains("a running pi (pid") && err.contains("--force"), "{err}");
    assert!(f.exists(), "not deleted");
    ok(&sb.pitree(&["delete", f.to_str().unwrap(), "--yes", "--force"]));
    assert!(!f.exists(), "deleted when forced");
    pi.kill().unwrap();
    pi.wait().unwrap();
}
