//! Which files a scope lists: the default layout (subfolders only, as pi's `listAll()`), a flat
//! root given by flag or env (its own files too), `*.jsonl` only, symlinked folders followed once
//! (a loop ends), unreadable entries reported as warnings, and the current-folder scope deciding by
//! the header `cwd` (so `/a-b` and `/a/b`, which share `--a-b--`, stay apart).

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use pitree::catalog::locate::{RootSource, SessionsRoot, encode_cwd, list_files};
use pitree::catalog::{Catalog, Scope};

fn session(id: &str, cwd: &str) -> String {
    format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2025-06-01T10:00:00.000Z\",\"cwd\":\"{cwd}\"}}\n"
    )
}

fn names(root: &SessionsRoot, scope: &Scope) -> Vec<String> {
    let mut v: Vec<String> = list_files(root, scope)
        .files
        .iter()
        .map(|c| c.path.strip_prefix(&root.path).unwrap().display().to_string())
        .collect();
    v.sort();
    v
}

fn layout(root: &Path) {
    fs::create_dir_all(root.join("--p--")).unwrap();
    fs::write(root.join("--p--/a.jsonl"), session("a", "/p")).unwrap();
    fs::write(root.join("--p--/a.pi.json"), "{}").unwrap();
    fs::write(root.join("--p--/notes.txt"), "x").unwrap();
    fs::create_dir_all(root.join("--p--/nested")).unwrap();
    fs::write(root.join("--p--/nested/deep.jsonl"), session("deep", "/p")).unwrap();
    fs::write(root.join("flat.jsonl"), session("flat", "/p")).unwrap();
}

#[test]
fn the_default_layout_ignores_files_in_the_root() {
    let tmp = tempfile::tempdir().unwrap();
    layout(tmp.path());
    let agent = SessionsRoot::new(tmp.path(), RootSource::AgentDir);
    assert_eq!(names(&agent, &Scope::All), ["--p--/a.jsonl"]);
    let flag = SessionsRoot::new(tmp.path(), RootSource::Flag);
    assert_eq!(names(&flag, &Scope::All), ["--p--/a.jsonl", "flat.jsonl"]);
    let env = SessionsRoot::new(tmp.path(), RootSource::Env);
    assert_eq!(names(&env, &Scope::All), ["--p--/a.jsonl", "flat.jsonl"]);
}

#[test]
fn symlinked_folders_are_followed_once_and_loops_end() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("sessions");
    layout(&root);
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::write(elsewhere.join("e.jsonl"), session("e", "/e")).unwrap();
    symlink(&elsewhere, root.join("--linked--")).unwrap();
    symlink(&root, root.join("--loop--")).unwrap();
    symlink(root.join("--p--"), root.join("--p-again--")).unwrap();
    symlink(root.join("--p--/a.jsonl"), root.join("--linked--/same-as-a.jsonl")).unwrap();
    let listing = list_files(&SessionsRoot::new(&root, RootSource::AgentDir), &Scope::All);
    assert!(listing.warnings.is_empty(), "{:?}", listing.warnings);
    let mut paths: Vec<_> =
        listing.files.iter().map(|c| c.path.strip_prefix(&root).unwrap().display().to_string()).collect();
    paths.sort();
    assert_eq!(paths, ["--linked--/e.jsonl", "--p--/a.jsonl"], "the real path wins over links to it");
}

#[test]
fn unreadable_entries_are_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("sessions");
    layout(&root);
    symlink(tmp.path().join("missing"), root.join("--broken--")).unwrap();
    symlink(tmp.path().join("missing.jsonl"), root.join("--p--/broken.jsonl")).unwrap();
    let report =
        Catalog::open(SessionsRoot::new(&root, RootSource::AgentDir), None).scan(&Scope::All, &|_, _| {});
    assert_eq!(report.sessions.len(), 1);
    let warned: Vec<String> =
        report.warnings.iter().map(|w| w.path.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(warned, ["--broken--", "broken.jsonl"]);
    assert!(report.warnings[0].to_string().contains("cannot read"));
}

#[test]
fn a_missing_root_lists_nothing_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let listing = list_files(&SessionsRoot::new(tmp.path().join("nope"), RootSource::AgentDir), &Scope::All);
    assert!(listing.files.is_empty() && listing.warnings.is_empty());
}

#[test]
fn current_folder_is_decided_by_the_header_cwd() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("sessions");
    let shared = root.join(encode_cwd("/a-b"));
    assert_eq!(shared, root.join(encode_cwd("/a/b")));
    fs::create_dir_all(&shared).unwrap();
    fs::write(shared.join("dash.jsonl"), session("dash", "/a-b")).unwrap();
    fs::write(shared.join("slash.jsonl"), session("slash", "/a/b")).unwrap();
    fs::write(shared.join("slash-dot.jsonl"), session("slash-dot", "/a/./b/")).unwrap();
    fs::write(shared.join("empty.jsonl"), session("nocwd", "")).unwrap();
    let catalog = Catalog::open(SessionsRoot::new(&root, RootSource::AgentDir), None);
    let ids = |cwd: &str| {
        let mut v: Vec<String> = catalog
            .scan(&Scope::CurrentFolder(cwd.into()), &|_, _| {})
            .sessions
            .into_iter()
            .map(|s| s.id)
            .collect();
        v.sort();
        v
    };
    assert_eq!(ids("/a-b"), ["dash"]);
    assert_eq!(ids("/a/b"), ["slash", "slash-dot"]);
    assert_eq!(catalog.scan(&Scope::All, &|_, _| {}).sessions.len(), 4);
}

#[test]
fn current_folder_follows_a_symlinked_cwd() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real");
    fs::create_dir_all(&real).unwrap();
    let link = tmp.path().join("link");
    symlink(&real, &link).unwrap();
    let root = tmp.path().join("sessions");
    let real_dir = root.join(encode_cwd(&real.to_string_lossy()));
    fs::create_dir_all(&real_dir).unwrap();
    fs::write(real_dir.join("s.jsonl"), session("s", &real.to_string_lossy())).unwrap();
    let flat = SessionsRoot::new(&root, RootSource::Flag);
    fs::write(root.join("top.jsonl"), session("top", &link.to_string_lossy())).unwrap();
    let report = Catalog::open(flat, None).scan(&Scope::CurrentFolder(link.clone()), &|_, _| {});
    let mut ids: Vec<String> = report.sessions.into_iter().map(|s| s.id).collect();
    ids.sort();
    assert_eq!(ids, ["s", "top"]);
}
