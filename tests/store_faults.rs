//! The persistence layer under faults: another writer appending at the same time, a file that grew
//! or was replaced between read and write, a file without a final newline, a read-only file and a
//! full disk (simulated with a file-size limit). The user's data stays as it was in every failure.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Command;

use common::Sandbox;
use pitree::session::Session;
use pitree::store::{self, Action};

const BRANCHED: &str = "2025-06-03T14-02-40-500Z";

fn pi_style_line(i: usize, parent: &str) -> String {
    format!(
        r#"{{"type":"message","id":"c{i:07x}","parentId":"{parent}","timestamp":"2025-06-03T15:00:00.000Z","message":{{"role":"user","content":[{{"type":"text","text":"line {i} {pad}"}}],"timestamp":1748962800000}}}}"#,
        pad = "x".repeat(i % 3000)
    )
}

fn every_line_parses(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'));
    for (n, line) in text.lines().enumerate() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("line {} is damaged: {e}", n + 1));
    }
    text.lines().count()
}

#[test]
fn a_concurrent_appender_loses_nothing() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let before = every_line_parses(&f);
    let appender = {
        let f = f.clone();
        std::thread::spawn(move || {
            for i in 0..400 {
                let mut file = std::fs::OpenOptions::new().append(true).open(&f).unwrap();
                file.write_all(format!("{}\n", pi_style_line(i, "8b525268")).as_bytes()).unwrap();
            }
        })
    };
    let mut ours = 0;
    for i in 0..60 {
        let action = Action::Label { target: "04d1262c".into(), label: Some(format!("l{i}")) };
        store::write_action(&f, None, Some(&sb.sessions()), &action).unwrap();
        ours += 1;
    }
    appender.join().unwrap();
    assert_eq!(every_line_parses(&f), before + 400 + ours);
    let s = Session::open(&f).unwrap();
    assert!(s.file.damage.is_empty());
    assert_eq!(s.graph.label_of("04d1262c").unwrap().text, "l59");
}

#[test]
fn a_file_that_grew_since_it_was_read_is_re_read_and_the_line_rebuilt() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let stale = Session::open(&f).unwrap();
    let mut file = std::fs::OpenOptions::new().append(true).open(&f).unwrap();
    file.write_all(format!("{}\n", pi_style_line(1, "8b525268")).as_bytes()).unwrap();
    let written =
        store::write_action(&f, Some(&stale), None, &Action::Rename { name: Some("n".into()) }).unwrap();
    assert_eq!(written.line["parentId"], "c0000001", "parented to pi's new leaf, not the stale one");
}

#[test]
fn a_replaced_or_shrunk_file_is_refused_and_left_alone() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let stale = Session::open(&f).unwrap();
    let text = std::fs::read_to_string(&f).unwrap();
    let shorter: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
    std::fs::write(&f, &shorter).unwrap();
    let err =
        store::write_action(&f, Some(&stale), None, &Action::Rename { name: Some("n".into()) }).unwrap_err();
    assert!(format!("{err:#}").contains("shorter"), "{err:#}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), shorter);
    let replaced = text.replacen("01973619", "01973610", 1);
    std::fs::write(&f, &replaced).unwrap();
    let err =
        store::write_action(&f, Some(&stale), None, &Action::Rename { name: Some("n".into()) }).unwrap_err();
    assert!(format!("{err:#}").contains("replaced"), "{err:#}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), replaced);
}

#[test]
fn a_missing_final_newline_is_added_before_the_new_line() {
    let sb = Sandbox::new();
    let f = sb.add("edge/no-trailing-newline.jsonl", "--x--");
    let before = std::fs::read(&f).unwrap();
    assert!(!before.ends_with(b"\n"));
    store::write_action(&f, None, None, &Action::Rename { name: Some("n".into()) }).unwrap();
    let after = std::fs::read(&f).unwrap();
    assert_eq!(&after[..before.len()], &before[..]);
    assert_eq!(after[before.len()], b'\n');
    assert_eq!(Session::open(&f).unwrap().graph.name(), Some("n"));
}

#[test]
fn a_read_only_file_is_a_clear_error_and_stays_unchanged() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let before = std::fs::read(&f).unwrap();
    let mut perms = std::fs::metadata(&f).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&f, perms).unwrap();
    if std::fs::OpenOptions::new().append(true).open(&f).is_ok() {
        eprintln!("note: running as root, read-only files are writable; checking the binary's message only");
        return;
    }
    let out = sb.pitree(&["rename", f.to_str().unwrap(), "x"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("ermission denied"), "{err}");
    assert_eq!(std::fs::read(&f).unwrap(), before);
}

#[test]
fn a_legacy_file_pitree_may_not_write_is_not_migrated() {
    let sb = Sandbox::new();
    let f = sb.add("edge/v2-legacy.jsonl", "--home-dev-legacy--");
    let before = std::fs::read(&f).unwrap();
    let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
    let was = inode(&f);
    let mut perms = std::fs::metadata(&f).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&f, perms).unwrap();
    if common::running_as_root() {
        // nobody's own read-only file, in a folder nobody may write to
        use std::os::unix::fs::PermissionsExt;
        std::os::unix::fs::chown(&f, Some(65534), Some(65534)).unwrap();
        let folder = std::fs::Permissions::from_mode(0o777);
        std::fs::set_permissions(f.parent().unwrap(), folder).unwrap();
    }
    let out = sb.unprivileged(&["rename", f.to_str().unwrap(), "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("it was not migrated") && err.contains("ermission denied"), "{err}");
    assert_eq!(std::fs::read(&f).unwrap(), before);
    assert_eq!(inode(&f), was, "the file was not replaced");
    let names: Vec<String> = std::fs::read_dir(f.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, [f.file_name().unwrap().to_string_lossy().into_owned()], "no backup, no temp file");
}

#[test]
fn a_migration_keeps_the_owner_of_the_file() {
    use std::os::unix::fs::MetadataExt;
    if !common::running_as_root() {
        eprintln!("note: not root; a file of another user cannot be set up");
        return;
    }
    let sb = Sandbox::new();
    let f = sb.add("edge/v2-legacy.jsonl", "--home-dev-legacy--");
    std::os::unix::fs::chown(&f, Some(65534), Some(65534)).unwrap();
    let out = sb.pitree(&["rename", f.to_str().unwrap(), "x"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta = std::fs::metadata(&f).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (65534, 65534), "still nobody's file");
    assert_eq!(Session::open(&f).unwrap().header().version, 3, "migrated");
}

#[test]
fn a_full_disk_is_a_clear_error_and_the_file_stays_readable() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let before = std::fs::read(&f).unwrap();
    let blocks = before.len() / 512 + 1;
    let script = format!("trap '' XFSZ; ulimit -f {blocks}; exec \"$0\" \"$@\"");
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(script).arg(env!("CARGO_BIN_EXE_pitree"));
    cmd.args(["rename", f.to_str().unwrap(), &"long name ".repeat(60)]);
    cmd.env("PI_CODING_AGENT_DIR", sb.dir.path().join("agent")).env("HOME", sb.dir.path().join("home"));
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    let after = std::fs::read(&f).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "nothing before the new line changed");
    let s = Session::open(&f).unwrap();
    let old = pitree::session::parse::parse_bytes(&before, f.clone()).unwrap();
    assert_eq!(s.entries().len(), old.entries.len(), "a partial line, if any, is only counted as damage");
}
