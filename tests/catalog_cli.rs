//! `pitree list` as a process: the sessions root and cache from the environment (never the real
//! `~/.pi` or cache), JSON Lines and the table, queries, an invalid regex as a one-line error, and
//! two `pitree list` processes running at once on one cache, which must both print the right
//! listing and leave an index that the next run uses.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as StdCommand, Output, Stdio};

use assert_cmd::Command;
use serde_json::Value;

struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let env = Env { tmp: tempfile::tempdir().unwrap() };
        fs::create_dir_all(env.home()).unwrap();
        fs::create_dir_all(env.sessions().join("--p--")).unwrap();
        fs::create_dir_all(env.sessions().join("--q--")).unwrap();
        for i in 0..8 {
            let (dir, cwd) = if i % 2 == 0 { ("--p--", "/p") } else { ("--q--", "/q") };
            env.write(&format!("{dir}/s{i}.jsonl"), &session(i, cwd));
        }
        env
    }

    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }

    fn agent(&self) -> PathBuf {
        self.tmp.path().join("agent")
    }

    fn sessions(&self) -> PathBuf {
        self.agent().join("sessions")
    }

    fn xdg_cache(&self) -> PathBuf {
        self.tmp.path().join("xdg-cache")
    }

    fn write(&self, rel: &str, text: &str) {
        fs::write(self.sessions().join(rel), text).unwrap();
    }

    fn configure<'a>(&self, cmd: &'a mut StdCommand) -> &'a mut StdCommand {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("XDG_CACHE_HOME", self.xdg_cache())
            .env("PI_CODING_AGENT_DIR", self.agent())
            .current_dir(self.tmp.path())
    }

    fn list(&self, args: &[&str]) -> Output {
        let mut cmd = StdCommand::new(assert_cmd::cargo::cargo_bin("pitree"));
        self.configure(&mut cmd).arg("list").args(args).output().unwrap()
    }

    fn spawn(&self, args: &[&str]) -> Child {
        let mut cmd = StdCommand::new(assert_cmd::cargo::cargo_bin("pitree"));
        self.configure(&mut cmd)
            .arg("list")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    fn index_files(&self) -> Vec<PathBuf> {
        fs::read_dir(self.xdg_cache().join("pitree"))
            .map(|d| {
                d.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "bin")).collect()
            })
            .unwrap_or_default()
    }
}

/// A header `version` pi compares as NaN (a string of letters) once crashed the listing when its
/// first two bytes were not whole characters.
#[test]
fn a_header_version_of_any_text_is_listed() {
    let env = Env::new();
    let text = session(9, "/p").replacen("\"version\":3", "\"version\":\"漢字\"", 1);
    env.write("--p--/s9.jsonl", &text);
    let rows = json_lines(&env.list(&["--all", "--json"]));
    assert_eq!(ids(&rows)[0], "id-9");
}

fn session(i: u32, cwd: &str) -> String {
    let mut text = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"id-{i}\",\"timestamp\":\"2025-06-{:02}T10:00:00.000Z\",\"cwd\":\"{cwd}\"}}\n",
        i + 1
    );
    text.push_str(&format!(
        "{{\"type\":\"message\",\"id\":\"m{i}\",\"parentId\":null,\"timestamp\":\"2025-06-{:02}T10:01:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"question {i} about blueberry{i}\\u001b[31m\"}}}}\n",
        i + 1
    ));
    text
}

fn json_lines(out: &Output) -> Vec<Value> {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn ids(rows: &[Value]) -> Vec<String> {
    rows.iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn json_lines_with_pi_field_names_newest_first() {
    let env = Env::new();
    let rows = json_lines(&env.list(&["--all", "--json"]));
    assert_eq!(ids(&rows), ["id-7", "id-6", "id-5", "id-4", "id-3", "id-2", "id-1", "id-0"]);
    let r = &rows[0];
    for key in [
        "path",
        "id",
        "cwd",
        "name",
        "parentSessionPath",
        "created",
        "modified",
        "messageCount",
        "firstMessage",
        "tokens",
        "cost",
        "branches",
        "live",
        "unreadableLines",
        "sizeBytes",
        "depth",
    ] {
        assert!(r.get(key).is_some(), "missing {key}");
    }
    assert_eq!(r["created"], "2025-06-08T10:00:00.000Z");
    assert_eq!(r["modified"], "2025-06-08T10:01:00.000Z");
    assert_eq!(r["messageCount"], 1);
    assert_eq!(r["name"], Value::Null);
    assert!(Path::new(r["path"].as_str().unwrap()).starts_with(env.sessions()));
    assert_eq!(env.index_files().len(), 1, "the index goes to $XDG_CACHE_HOME/pitree");
    assert!(!env.home().join(".pi").exists());
}

#[test]
fn scope_query_and_table() {
    let env = Env::new();
    let current = json_lines(&env.list(&["--cwd", "/p", "--json"]));
    assert_eq!(ids(&current), ["id-6", "id-4", "id-2", "id-0"]);
    let found = json_lines(&env.list(&["--all", "--json", "--query", "blueberry3"]));
    assert_eq!(ids(&found), ["id-3"]);
    let table = env.list(&["--cwd", "/q"]);
    assert!(table.status.success());
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(text.lines().next().unwrap().starts_with("SESSION"));
    assert_eq!(text.lines().count(), 5);
    assert!(text.contains("question 7 about blueberry7 [31m"));
    assert!(!text.contains('\u{1b}'));
    let all = String::from_utf8(env.list(&["--all"]).stdout).unwrap();
    assert!(all.lines().any(|l| l.ends_with("/q")));
}

#[test]
fn an_invalid_regex_is_a_one_line_error() {
    let env = Env::new();
    let out = env.list(&["--all", "--query", "re:("]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("invalid regex"));
}

#[test]
fn pitree_cache_dir_overrides_the_cache() {
    let env = Env::new();
    let custom = env.tmp.path().join("custom-cache");
    let mut cmd = Command::cargo_bin("pitree").unwrap();
    cmd.env_clear()
        .env("HOME", env.home())
        .env("XDG_CACHE_HOME", env.xdg_cache())
        .env("PI_CODING_AGENT_DIR", env.agent())
        .env("PITREE_CACHE_DIR", &custom)
        .args(["list", "--all", "--json"])
        .assert()
        .success();
    assert!(
        fs::read_dir(&custom).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".bin"))
    );
    assert!(env.index_files().is_empty());
}

#[test]
fn two_processes_listing_at_once() {
    let env = Env::new();
    for round in 0..5u32 {
        let grow = env.sessions().join("--p--/s0.jsonl");
        let mut f = fs::OpenOptions::new().append(true).open(&grow).unwrap();
        writeln!(
            f,
            "{{\"type\":\"message\",\"id\":\"g{round}\",\"parentId\":\"m0\",\"timestamp\":\"2025-07-0{}T00:00:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"round {round}\"}}}}",
            round + 1
        )
        .unwrap();
        env.write(&format!("--q--/new{round}.jsonl"), &session(20 + round, "/q"));
        let children = [env.spawn(&["--all", "--json"]), env.spawn(&["--all", "--json"])];
        let outputs: Vec<Output> = children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
        let a = json_lines(&outputs[0]);
        let b = json_lines(&outputs[1]);
        assert_eq!(a, b, "round {round}");
        assert_eq!(a.len(), 9 + round as usize);
        assert_eq!(a[0]["id"], "id-0", "the grown session is the newest");
        assert_eq!(a[0]["messageCount"], 2 + round);
        let after = json_lines(&env.list(&["--all", "--json"]));
        assert_eq!(after, a);
        assert_eq!(env.index_files().len(), 1);
    }
}
