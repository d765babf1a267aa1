//! End-to-end: the real `pitree` binary (the debug build cargo makes for tests,
//! `CARGO_BIN_EXE_pitree`) in a real terminal — a tmux pane, 120×40, on a private tmux server —
//! against a temporary copy of `tests/fixtures/agent`. Every run has its own HOME, agent folder,
//! XDG data (so the trash is a temporary one on the same filesystem) and cache; nothing touches the
//! real `~/.pi`, the real trash or the network. Skipped, with a message, when tmux is missing.
//!
//! What each test proves:
//! - a search finds a session by a phrase from deep inside its text (line ~9000 of 20,000);
//! - a rename writes a `session_info` line that pi 1.6.0 itself then reads as the session's name;
//! - Ctrl+D, Enter moves the file to the (temporary) trash, and the undo key brings it back;
//! - resuming runs the `--pi` command with `--session <file>` in the session's folder, and pitree
//!   exits with its status; `--print` prints only the path (the screen goes to /dev/tty);
//! - after SIGTERM the terminal is back: the alternate screen is left and the shell prompt shows;
//! - in the tree view of a branched session: moving the leaf to an entry on another branch without
//!   and with a (draft) summary, labelling an entry and forking — after each, pi 1.6.0 reading the
//!   file sees the new leaf and its context, the branch summary, the label, and the forked file;
//! - Enter on a user message moves the leaf to its parent and resumes pi with the message, edited,
//!   after `--`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pitree");
const PROMPT: &str = "E2E-PROMPT$ ";

fn tmux_available() -> bool {
    Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success())
}

macro_rules! require_tmux {
    () => {
        if !tmux_available() {
            eprintln!("skipped: tmux is not installed");
            return;
        }
    };
}

/// A temporary agent folder, home, trash and cache, and a tmux server with one shell pane.
struct Sandbox {
    dir: tempfile::TempDir,
    socket: String,
}

impl Sandbox {
    fn new(name: &str) -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["home", "xdg", "cache", "work"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agent/sessions");
        copy_sessions(&fixtures, &dir.path().join("agent/sessions"));
        pitree::tui::demo::relink_parents(&dir.path().join("agent/sessions")).unwrap();
        let socket = format!("pitree-e2e-{}-{name}", std::process::id());
        let sandbox = Sandbox { dir, socket };
        sandbox.tmux(&[
            "new-session",
            "-d",
            "-s",
            "e2e",
            "-x",
            "120",
            "-y",
            "40",
            "bash",
            "--norc",
            "--noprofile",
        ]);
        sandbox.tmux(&["set-option", "-t", "e2e", "status", "off"]);
        sandbox.shell(&format!("export PS1='{PROMPT}'; cd {}", quote(&sandbox.path("work"))));
        sandbox.shell("clear");
        sandbox
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    fn sessions(&self) -> PathBuf {
        self.path("agent/sessions")
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().unwrap();
        assert!(out.status.success(), "tmux {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Type a command line into the shell.
    fn shell(&self, line: &str) {
        self.tmux(&["send-keys", "-t", "e2e", "-l", line]);
        self.tmux(&["send-keys", "-t", "e2e", "Enter"]);
    }

    /// Run pitree with the sandbox's environment and `args`, then print its exit status.
    fn start(&self, args: &str) {
        let env = format!(
            "HOME={} XDG_DATA_HOME={} XDG_CACHE_HOME={} PI_CODING_AGENT_DIR={} PITREE_PI= NO_COLOR=1",
            quote(&self.path("home")),
            quote(&self.path("xdg")),
            quote(&self.path("cache")),
            quote(&self.path("agent")),
        );
        self.shell(&format!("env {env} {} {args}; echo EXIT=$?", quote(Path::new(BIN))));
    }

    fn keys(&self, keys: &[&str]) {
        for key in keys {
            self.tmux(&["send-keys", "-t", "e2e", key]);
            std::thread::sleep(Duration::from_millis(80));
        }
    }

    fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "e2e", "-l", text]);
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "e2e"])
    }

    /// Wait until the screen satisfies `ok` (10 s at most).
    fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn wait_text(&self, text: &str) -> String {
        self.wait_for(text, |s| s.contains(text))
    }

    /// Wait for pitree to end and return its exit status.
    fn wait_exit(&self) -> i32 {
        // `EXIT=<digits>`, also where the shell's redrawn command line runs into it (the typed
        // `echo EXIT=$?` itself has no digit after the `=`).
        let status = |screen: &str| {
            screen.split("EXIT=").skip(1).find_map(|rest| {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse::<i32>().ok()
            })
        };
        let screen = self.wait_for("the exit status", |s| status(s).is_some());
        status(&screen).unwrap()
    }

    /// The session file whose name contains `part`.
    fn file(&self, part: &str) -> PathBuf {
        walk(&self.sessions()).into_iter().find(|p| p.to_string_lossy().contains(part)).unwrap()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-L").arg(&self.socket).arg("kill-server").status();
    }
}

fn quote(path: &Path) -> String {
    format!("'{}'", path.to_string_lossy().replace('\'', r"'\''"))
}

fn copy_sessions(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_sessions(&path, &to.join(entry.file_name()));
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

const AUTH: &str = "01973619-f5f4-737b-b839-e64d93b6cda6";
const MIGRATION: &str = "0197616f-b400-737b-b839-e661a419b45e";

#[test]
fn search_finds_a_session_by_a_phrase_deep_in_its_text() {
    require_tmux!();
    let s = Sandbox::new("search");
    s.start("--all");
    s.wait_text("Resume Session (All)");
    s.wait_text("14 sessions");
    s.type_text("\"batch 4321.\"");
    let screen = s.wait_text("1 session");
    assert!(screen.contains("› Step 1: run migration batch 1."), "{screen}");
    assert!(!screen.contains("Give me a name"), "{screen}");
    s.keys(&["Escape"]);
    assert_eq!(s.wait_exit(), 0);
}

#[test]
fn rename_writes_a_session_info_that_pi_reads() {
    require_tmux!();
    let s = Sandbox::new("rename");
    let file = s.file(AUTH);
    s.start("--all");
    s.wait_text("14 sessions");
    s.type_text("Auth refactor");
    s.wait_text("› Auth refactor: middleware vs guard");
    s.keys(&["C-r"]);
    s.wait_text("Rename Session");
    s.type_text(" (done)");
    s.keys(&["Enter"]);
    s.wait_text("Session renamed");
    let text = std::fs::read_to_string(&file).unwrap();
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "session_info");
    assert_eq!(last["name"], "Auth refactor: middleware vs guard (done)");
    s.wait_text("Auth refactor: middleware vs guard (done)");
    s.keys(&["Escape"]);
    s.wait_exit();

    let compat = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat");
    if !compat.join("node_modules").is_dir() {
        eprintln!("note: tests/compat/node_modules is missing; skipped the check with pi's own reader");
        return;
    }
    let out = Command::new("node").arg(compat.join("pi-view.mjs")).arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let view: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        view["sessionName"], "Auth refactor: middleware vs guard (done)",
        "pi 1.6.0 sees the new name"
    );
}

#[test]
fn delete_moves_the_file_to_the_trash_and_undo_brings_it_back() {
    require_tmux!();
    let s = Sandbox::new("delete");
    let file = s.file(MIGRATION);
    s.start("--all");
    s.wait_text("14 sessions");
    s.type_text("migration");
    s.wait_text("› Step 1: run migration batch 1.");
    s.keys(&["C-d"]);
    s.wait_text("Delete session? [Enter] confirm");
    s.keys(&["Enter"]);
    s.wait_text("Session moved to trash");
    assert!(!file.exists());
    let trashed = s.path("xdg/Trash/files").join(file.file_name().unwrap());
    assert!(trashed.is_file(), "in the sandbox's trash");
    s.keys(&["M-u"]);
    s.wait_text("Session restored from the trash");
    assert!(file.is_file());
    assert!(!trashed.exists());
    s.keys(&["Escape"]);
    s.wait_exit();
}

/// A stand-in for pi that records its arguments and folder, and exits with 7.
fn fake_pi(s: &Sandbox) -> PathBuf {
    let script = s.path("fake-pi");
    let record = s.path("pi-call.txt");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n{{ pwd; for a in \"$@\"; do echo \"$a\"; done; }} > {}\nexit 7\n",
            quote(&record)
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// A session started in `cwd`, so resuming has a folder to go to.
fn session_in(s: &Sandbox, cwd: &Path) -> PathBuf {
    let folder = s.sessions().join("--e2e--");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("2025-06-20T10-00-00-000Z_01978e25-0000-7000-8000-000000000001.jsonl");
    let cwd = cwd.to_string_lossy();
    let lines = [
        format!(r#"{{"type":"session","version":3,"id":"01978e25-0000-7000-8000-000000000001","timestamp":"2025-06-20T10:00:00.000Z","cwd":"{cwd}"}}"#),
        r#"{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2025-06-20T10:00:01.000Z","message":{"role":"user","content":"Resume me in my own folder, zebrafish","timestamp":1750413601000}}"#.to_string(),
        r#"{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2025-06-20T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Sure."}],"timestamp":1750413602000}}"#.to_string(),
    ];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    file
}

#[test]
fn alt_enter_resumes_pi_in_the_sessions_folder_and_exits_with_its_status() {
    require_tmux!();
    let s = Sandbox::new("resume");
    let project = s.path("project dir");
    std::fs::create_dir_all(&project).unwrap();
    let file = session_in(&s, &project);
    let pi = fake_pi(&s);
    s.start(&format!("--all --pi {}", quote(&pi)));
    s.wait_text("15 sessions");
    s.type_text("zebrafish");
    s.wait_text("› Resume me in my own folder");
    s.keys(&["M-Enter"]);
    assert_eq!(s.wait_exit(), 7, "pitree exits with pi's status");
    let call = std::fs::read_to_string(s.path("pi-call.txt")).unwrap();
    let lines: Vec<&str> = call.lines().collect();
    assert_eq!(lines[0], project.canonicalize().unwrap().to_string_lossy(), "run in the session's cwd");
    assert_eq!(&lines[1..], ["--session", &*file.to_string_lossy()]);
}

#[test]
fn enter_on_the_leaf_in_the_tree_view_resumes_too() {
    require_tmux!();
    let s = Sandbox::new("tree");
    let project = s.path("proj");
    std::fs::create_dir_all(&project).unwrap();
    let file = session_in(&s, &project);
    let pi = fake_pi(&s);
    s.start(&format!("--all --pi {}", quote(&pi)));
    s.wait_text("15 sessions");
    s.type_text("zebrafish");
    s.wait_text("› Resume me in my own folder");
    s.keys(&["Enter"]);
    s.wait_text("Session Tree");
    s.keys(&["Enter"]);
    assert_eq!(s.wait_exit(), 7);
    let call = std::fs::read_to_string(s.path("pi-call.txt")).unwrap();
    assert!(call.contains(&*file.to_string_lossy()), "{call}");
}

#[test]
fn enter_on_a_user_message_moves_to_its_parent_and_resumes_pi_with_the_message_re_sent() {
    require_tmux!();
    let s = Sandbox::new("resend");
    let project = s.path("proj");
    std::fs::create_dir_all(&project).unwrap();
    let file = session_in(&s, &project);
    let pi = fake_pi(&s);
    s.start(&format!("--pi {} {}", quote(&pi), quote(&file)));
    s.wait_text("Session Tree");
    s.keys(&["Up"]);
    s.wait_for("the user message selected", |screen| {
        screen.lines().any(|l| l.starts_with('›') && l.contains("user: Resume me"))
    });
    s.keys(&["Enter"]);
    s.wait_text("1. No summary");
    s.keys(&["1"]);
    s.wait_text("Message to re-send");
    s.type_text(" (again)");
    s.keys(&["Enter"]);
    assert_eq!(s.wait_exit(), 7);
    let call = std::fs::read_to_string(s.path("pi-call.txt")).unwrap();
    let lines: Vec<&str> = call.lines().collect();
    assert_eq!(lines[0], project.canonicalize().unwrap().to_string_lossy());
    assert_eq!(
        &lines[1..],
        ["--session", &*file.to_string_lossy(), "--", "Resume me in my own folder, zebrafish (again)"],
        "the edited message goes to pi after --"
    );
    if let Some(v) = pi_view(&file) {
        assert!(
            v["leafParentId"].is_null(),
            "the leaf moved before the first message: {}",
            v["leafParentId"]
        );
        assert_eq!(v["contextMessageRoles"], serde_json::json!([]), "pi starts from an empty conversation");
    }
}

#[test]
fn print_writes_only_the_path_to_stdout() {
    require_tmux!();
    let s = Sandbox::new("print");
    let out = s.path("chosen.txt");
    s.start(&format!("--all --print > {}", quote(&out)));
    s.wait_text("14 sessions");
    s.type_text("Auth refactor");
    s.wait_text("› Auth refactor");
    s.keys(&["M-Enter"]);
    assert_eq!(s.wait_exit(), 0);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), format!("{}\n", s.file(AUTH).display()));
}

#[test]
fn the_terminal_is_usable_after_sigterm() {
    require_tmux!();
    let s = Sandbox::new("sigterm");
    s.start("--all");
    s.wait_text("14 sessions");
    assert_eq!(s.tmux(&["display-message", "-p", "-t", "e2e", "#{alternate_on}"]).trim(), "1");
    let shell = s.tmux(&["display-message", "-p", "-t", "e2e", "#{pane_pid}"]);
    let env = Command::new("pgrep").args(["-P", shell.trim()]).output().unwrap();
    let pid = String::from_utf8_lossy(&env.stdout).lines().next().expect("pitree's pid").to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert_eq!(s.wait_exit(), 143);
    let screen = s.wait_text(PROMPT.trim());
    assert_eq!(s.tmux(&["display-message", "-p", "-t", "e2e", "#{alternate_on}"]).trim(), "0", "{screen}");
    s.shell("echo still-typing");
    s.wait_for("the shell to echo", |screen| screen.lines().any(|l| l.trim() == "still-typing"));
}

/// How the real pi 1.6.0 reads `file` (`tests/compat/pi-view.mjs`); `None`, with a note, when it is
/// not installed (CI installs it, and there its absence fails the test).
fn pi_view(file: &Path) -> Option<serde_json::Value> {
    let compat = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat");
    if !compat.join("node_modules").is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install the real pi: npm ci --prefix tests/compat"
        );
        eprintln!("note: tests/compat/node_modules is missing; skipped the check with pi's own reader");
        return None;
    }
    let out = Command::new("node").arg(compat.join("pi-view.mjs")).arg(file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// The id of the entry of `file` whose message text starts with `text`.
fn entry_id(file: &Path, text: &str) -> String {
    let session = pitree::session::Session::open(file).unwrap();
    let entry = session.entries().iter().find(|e| e.message().is_some_and(|m| m.text.head.starts_with(text)));
    entry.unwrap().id.to_string()
}

fn ids(v: &serde_json::Value, key: &str) -> Vec<String> {
    v[key].as_array().unwrap().iter().map(|x| x.as_str().unwrap_or_default().to_string()).collect()
}

/// Search the tree view for `text` and wait until an entry showing it is selected.
fn find_entry(s: &Sandbox, text: &str) {
    s.type_text(text);
    s.wait_for(&format!("the entry \"{text}\""), |screen| {
        screen.lines().any(|l| l.starts_with('›') && l.contains(text))
    });
}

#[test]
fn the_tree_view_moves_the_leaf_labels_and_forks_and_pi_sees_each_result() {
    require_tmux!();
    let s = Sandbox::new("tree-actions");
    let file = s.file(AUTH);
    s.start(&quote(&file));
    s.wait_text("Session Tree · Auth refactor");

    // The leaf moves to an entry on another branch, without a summary.
    let tests_pass = entry_id(&file, "All 6 auth tests pass");
    find_entry(&s, "All 6 auth tests pass");
    s.keys(&["Enter"]);
    s.wait_text("1. No summary");
    s.keys(&["1"]);
    s.wait_text("Leaf moved: pi continues from here");
    if let Some(v) = pi_view(&file) {
        assert_eq!(v["leafParentId"], tests_pass.as_str(), "pi continues after the chosen entry");
        let context = ids(&v, "contextEntryIds");
        assert!(context.contains(&tests_pass) && !context.contains(&entry_id(&file, "Let's try A")));
    }

    // Then to the third branch, with the draft summary of what it leaves.
    let option_c = entry_id(&file, "C is the least risky");
    s.keys(&["Escape"]);
    find_entry(&s, "C is the least risky");
    s.keys(&["Enter"]);
    let dialog = s.wait_text("2. Write a summary");
    assert!(
        dialog.contains("3. Summarize with `pi -p --no-session`"),
        "an empty PITREE_PI is the default:\n{dialog}"
    );
    s.keys(&["2"]);
    s.wait_text("Branch summary");
    s.keys(&["C-s"]);
    s.wait_text("Leaf moved: pi continues from here");
    if let Some(v) = pi_view(&file) {
        let last = v["entries"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["type"], "branch_summary");
        assert_eq!(last["parentId"], option_c.as_str());
        assert_eq!(v["leafId"], last["id"]);
        let roles = ids(&v, "contextMessageRoles");
        assert!(roles.contains(&"branchSummary".to_string()), "pi gives the model the summary: {roles:?}");
    }

    // A label on an entry.
    let run_tests = entry_id(&file, "Run the tests for B.");
    s.keys(&["Escape"]);
    find_entry(&s, "Run the tests for B.");
    s.keys(&["L"]);
    s.wait_text("Label (empty to remove)");
    s.type_text("checked");
    s.keys(&["Enter"]);
    s.wait_text("Label saved");
    if let Some(v) = pi_view(&file) {
        assert_eq!(v["labels"][&run_tests], "checked");
    }

    // A fork of the path to an entry: a new file in the same folder, opened at once.
    let folder = file.parent().unwrap().to_path_buf();
    let before: Vec<PathBuf> = walk(&folder);
    s.keys(&["Escape"]);
    find_entry(&s, "perms::require");
    s.keys(&["M-f"]);
    s.wait_text("This session stays as it is.");
    s.keys(&["y"]);
    s.wait_text("Forked: this is the new session");
    let forked: Vec<PathBuf> = walk(&folder).into_iter().filter(|p| !before.contains(p)).collect();
    assert_eq!(forked.len(), 1, "{forked:?}");
    if let Some(v) = pi_view(&forked[0]) {
        assert!(v["loadError"].is_null(), "{}", v["loadError"]);
        let texts = v["contextMessageTexts"].to_string();
        assert!(texts.contains("docs/auth.md describes"), "the fork ends at the chosen entry: {texts}");
        assert!(!texts.contains("All 6 auth tests pass"), "and holds only its path: {texts}");
    }
    s.keys(&["Escape"]);
    s.wait_text("Resume Session");
    s.keys(&["Escape"]);
    assert_eq!(s.wait_exit(), 0);
}
