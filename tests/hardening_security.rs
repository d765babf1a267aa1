//! Session text is data, never commands:
//!
//! - **No control sequence reaches the terminal.** A hostile session (CSI, OSC title and clipboard
//!   sequences, DCS, APC, 8-bit C1 controls, bidi overrides and isolates, NEL, line and paragraph
//!   separators, NUL, BEL, BS, DEL — in the name, messages, tool calls, labels, model ids, the cwd
//!   and the file name) is drawn clean by the picker (list, preview, search highlights, paths) on a
//!   `TestBackend`; the real binary in a tmux pane shows only pitree's own colour sequences and
//!   the pane title is untouched; `pitree list`, `show` and `context` print no control character
//!   in text mode and no raw C0 control (ESC included) in `--json` (C1, DEL and bidi characters
//!   are valid raw JSON and pass through there). (The tree view's panes are covered by
//!   `tests/tree_hostile.rs`.)
//! - **No shell.** Resuming (`pi --session FILE -- PROMPT`) and the summarizer run their command
//!   split into words without a shell; a prompt, session text, file name and cwd full of `$(…)`,
//!   backticks and `; rm` reach the program as literal argv / stdin and run nothing.
//! - **The sessions root is a boundary.** Delete, fork and migration refuse paths that resolve
//!   outside it (`..` components, symlinks pointing out) and handle names starting with `-`.
//! - **Permissions.** A migrated file and its backup keep the original's mode.

mod common;
mod hardening_support;
mod picker_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::Sandbox;
use hardening_support::{draw_clean, is_dangerous};
use pitree::catalog::{Catalog, Scope, SessionsRoot, locate::RootSource};
use pitree::session::Session;
use pitree::tui::resume::{self, HandOver, Resume};
use serde_json::{Value, json};

/// Everything a terminal might act on, with shell syntax around it.
const HOSTILE: &str = concat!(
    "A\u{1b}[2J\u{1b}[31mB\u{1b}]2;PWNED-TITLE\u{7}C\u{1b}]52;c;cHduZWQ=\u{1b}\\D",
    "\u{1b}P+q544e\u{1b}\\E\u{1b}_apc\u{1b}\\F\u{9b}31mG\u{9d}0;x\u{9c}H\u{90}q\u{9c}I",
    "\u{85}J\u{202e}K\u{2066}L\u{2069}M\u{200f}N\u{61c}O\u{2028}P\u{2029}Q\u{0}R\u{7}S\u{8}T\u{7f}U\rV",
    " $(touch MARK) `touch MARK` ; rm -rf MARK"
);

/// `HOSTILE` with MARK naming a file in `dir` (which must never appear).
fn hostile(dir: &Path) -> String {
    HOSTILE.replace("MARK", dir.join("pwned").to_str().unwrap())
}

/// A session whose every shown text is hostile, in `<root>/--hostile--/<hostile name>.jsonl`.
fn hostile_session(root: &Path, marker_dir: &Path) -> PathBuf {
    let h = hostile(marker_dir);
    let dir = root.join("--hostile--");
    std::fs::create_dir_all(&dir).unwrap();
    let lines = [
        json!({"type": "session", "version": 3, "id": "hostile-session", "timestamp": "2025-06-01T00:00:00.000Z", "cwd": h}),
        json!({"type": "model_change", "id": "m1", "parentId": null, "timestamp": "2025-06-01T00:00:01.000Z", "provider": h, "modelId": h}),
        json!({"type": "message", "id": "u1", "parentId": "m1", "timestamp": "2025-06-01T00:00:02.000Z",
               "message": {"role": "user", "content": h, "timestamp": 1_748_736_002_000u64}}),
        json!({"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2025-06-01T00:00:03.000Z",
               "message": {"role": "assistant", "stopReason": "toolUse", "provider": h, "model": h, "content": [
                   {"type": "text", "text": h}, {"type": "thinking", "thinking": h},
                   {"type": "toolCall", "id": "c1", "name": h, "arguments": {"path": h, "command": h}}]}}),
        json!({"type": "message", "id": "r1", "parentId": "a1", "timestamp": "2025-06-01T00:00:04.000Z",
               "message": {"role": "toolResult", "toolCallId": "c1", "toolName": h, "content": [{"type": "text", "text": h}]}}),
        json!({"type": "message", "id": "u2", "parentId": "r1", "timestamp": "2025-06-01T00:00:05.000Z",
               "message": {"role": "user", "content": [{"type": "text", "text": h}], "timestamp": 1_748_736_005_000u64}}),
        json!({"type": "message", "id": "a2", "parentId": "u2", "timestamp": "2025-06-01T00:00:06.000Z",
               "message": {"role": "assistant", "stopReason": "stop", "content": [{"type": "text", "text": h}]}}),
        json!({"type": "label", "id": "l1", "parentId": "a2", "timestamp": "2025-06-01T00:00:07.000Z", "targetId": "u1", "label": h}),
        json!({"type": "custom_message", "id": "cm", "parentId": "l1", "timestamp": "2025-06-01T00:00:08.000Z", "customType": h, "content": h, "display": true}),
        json!({"type": "session_info", "id": "s1", "parentId": "cm", "timestamp": "2025-06-01T00:00:09.000Z", "name": h}),
    ];
    let file = dir.join("2025-06-01T00-00-00-000Z_\u{1b}]2;PWNED-TITLE\u{7}\u{202e}x.jsonl");
    std::fs::write(&file, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    file
}

/// A character that must not be printed to a terminal (tab and newline are fine in text output).
fn unsafe_in_output(c: char) -> bool {
    is_dangerous(c) && c != '\n' && c != '\t'
}

// ----- the picker ----------------------------------------------------------------------------

#[test]
fn the_picker_draws_a_hostile_session_clean_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sessions");
    hostile_session(&root, dir.path());
    let sessions = Catalog::open(SessionsRoot::new(&root, RootSource::Flag), None)
        .scan(&Scope::All, &|_, _| {})
        .sessions;
    assert_eq!(sessions.len(), 1);
    let mut h = picker_support::Harness::new(true);
    h.load(pitree::tui::picker::state::ScopeKind::All, sessions);
    h.answer_previews();
    let sizes = [(200, 50), (120, 40), (80, 24), (60, 15), (30, 8)];
    let draw_all = |h: &mut picker_support::Harness| {
        for (w, hgt) in sizes {
            h.send(pitree::tui::app::Event::Resize(w, hgt));
            draw_clean(|f| pitree::tui::app::draw(f, &h.app), w, hgt);
        }
    };
    draw_all(&mut h);
    h.press(picker_support::ctrl('p'));
    draw_all(&mut h);
    h.type_text("PWNED");
    assert_eq!(h.app.picker.rows().len(), 1, "the search finds the hostile text");
    draw_all(&mut h);
    h.send(pitree::tui::app::Event::Paste(HOSTILE.to_string()));
    draw_all(&mut h);
    assert!(!dir.path().join("pwned").exists());
}

// ----- the real binary in a terminal ---------------------------------------------------------

/// A private tmux server (its socket in the sandbox) running one command in a 120×40 pane.
struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    fn start(name: &str, sb: &Sandbox, args: &[&str]) -> Option<Tmux> {
        if !Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success()) {
            eprintln!("skipped: tmux is not installed");
            return None;
        }
        let tmux = Tmux { socket: sb.dir.path().join(format!("tmux-{name}.sock")) };
        let cmd = sb.command(args);
        let mut line = String::from("exec env");
        for (k, v) in cmd.get_envs() {
            if let Some(v) = v {
                line.push_str(&format!(
                    " {}={}",
                    k.to_string_lossy(),
                    resume::shell_quote(&v.to_string_lossy())
                ));
            }
        }
        line.push_str(&format!(" {}", resume::shell_quote(env!("CARGO_BIN_EXE_pitree"))));
        for a in args {
            line.push_str(&format!(" {}", resume::shell_quote(a)));
        }
        tmux.run(&["new-session", "-d", "-s", "s", "-x", "120", "-y", "40", &line]);
        tmux.run(&["set-option", "-t", "s", "remain-on-exit", "on"]);
        Some(tmux)
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").arg("-S").arg(&self.socket).args(args).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pane with escapes (`capture-pane -e`), once `text` shows.
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.run(&["capture-pane", "-p", "-e", "-t", "s"]);
            if screen.contains(text) {
                return screen;
            }
            assert!(start.elapsed() < Duration::from_secs(20), "{text:?} never showed:\n{screen}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.run(&["send-keys", "-t", "s", k]);
        }
        std::thread::sleep(Duration::from_millis(400));
    }

    fn title(&self) -> String {
        self.run(&["display-message", "-p", "-t", "s", "#{pane_title}"])
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

/// The screen without SGR colour sequences must hold no escape and no dangerous character.
fn assert_screen_clean(screen: &str) {
    let sgr = regex::Regex::new(r"\x1b\[[0-9;:]*m").unwrap();
    let rest = sgr.replace_all(screen, "");
    let bad: Vec<char> = rest.chars().filter(|&c| unsafe_in_output(c)).collect();
    assert!(bad.is_empty(), "{bad:?} reached the terminal:\n{rest}");
}

#[test]
fn the_binary_in_a_terminal_shows_a_hostile_session_without_obeying_it() {
    let sb = Sandbox::new();
    let file = hostile_session(&sb.sessions(), sb.dir.path());
    let Some(tmux) = Tmux::start("picker", &sb, &["--all"]) else { return };
    let title = tmux.title();
    assert_screen_clean(&tmux.wait_for("PWNED-TITLE"));
    tmux.keys(&["C-p"]);
    assert_screen_clean(&tmux.wait_for("PWNED"));
    tmux.keys(&["Enter"]);
    let tree = tmux.wait_for("leaf");
    assert_screen_clean(&tree);
    for key in ["C-a", "Tab", "Up", "Up", "Up", "T", "Up"] {
        tmux.keys(&[key]);
        assert_screen_clean(&tmux.wait_for("PWNED"));
    }
    assert_eq!(tmux.title(), title, "the pane title was not changed");
    assert!(!sb.dir.path().join("pwned").exists());
    assert!(file.exists());
}

// ----- text output ---------------------------------------------------------------------------

#[test]
fn list_show_and_context_print_no_control_characters() {
    let sb = Sandbox::new();
    let file = hostile_session(&sb.sessions(), sb.dir.path());
    let f = file.to_str().unwrap();
    for args in
        [vec!["list", "--all"], vec!["show", f], vec!["show", f, "--filter", "all"], vec!["context", f]]
    {
        let text = common::ok(&sb.pitree(&args));
        assert!(text.contains("PWNED"), "{args:?} shows the text: {text}");
        let bad: Vec<char> = text.chars().filter(|&c| unsafe_in_output(c)).collect();
        assert!(bad.is_empty(), "{args:?} printed {bad:?}:\n{text}");
    }
    for args in [vec!["list", "--all", "--json"], vec!["show", f, "--json"], vec!["context", f, "--json"]] {
        let text = common::ok(&sb.pitree(&args));
        let whole = serde_json::from_str::<Value>(&text).is_ok();
        assert!(
            whole || text.lines().all(|l| serde_json::from_str::<Value>(l).is_ok()),
            "{args:?}: not JSON"
        );
        let raw_c0: Vec<char> = text.chars().filter(|&c| c < ' ' && c != '\n').collect();
        assert!(raw_c0.is_empty(), "{args:?} printed {raw_c0:?} raw in its JSON");
    }
    assert!(!sb.dir.path().join("pwned").exists());
}

// ----- no shell ------------------------------------------------------------------------------

/// A stand-in program that writes its argv (NUL-separated), its stdin and its cwd into `dir`.
fn recorder(dir: &Path) -> PathBuf {
    let script = dir.join("record");
    let out = dir.join("out");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > '{o}.argv'\ncat > '{o}.stdin'\npwd > '{o}.cwd'\necho the summary\n",
            o = out.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn recorded_argv(dir: &Path) -> Vec<String> {
    let bytes = std::fs::read(dir.join("out.argv")).unwrap();
    bytes
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8(a.to_vec()).unwrap())
        .collect()
}

#[test]
fn resuming_passes_a_hostile_prompt_path_and_cwd_as_plain_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let rec = recorder(dir.path());
    let h = hostile(dir.path()).replace('\0', "");
    let session = hostile_session(&dir.path().join("sessions"), dir.path());
    let resume = Resume { session: session.clone(), cwd: h.clone(), prompt: Some(h.clone()) };
    let command = format!("{} --flag", resume::shell_quote(rec.to_str().unwrap()));
    let status = resume::run(Some(&command), &resume, HandOver::Wait).unwrap();
    assert_eq!(status, 0);
    assert_eq!(
        recorded_argv(dir.path()),
        ["--flag", "--session", session.to_str().unwrap(), "--", h.as_str()]
    );
    assert!(!dir.path().join("pwned").exists(), "nothing in the text was run");
    let with_nul = Resume { prompt: Some(hostile(dir.path())), ..resume };
    let err = resume::run(Some(&command), &with_nul, HandOver::Wait).unwrap_err();
    assert!(format!("{err:#}").contains("nul byte"), "a NUL cannot be an argument: {err:#}");
}

#[test]
fn the_summarizer_gets_session_text_on_stdin_and_runs_no_shell() {
    let dir = tempfile::tempdir().unwrap();
    let rec = recorder(dir.path());
    let file = hostile_session(&dir.path().join("sessions"), dir.path());
    let view = pitree::tui::tree::TreeView::open(Session::open(&file).unwrap(), Default::default());
    let input = view.summarizer_input(Some(0));
    assert!(input.contains("$(touch"), "the abandoned text is in the input");
    let (tx, rx) = std::sync::mpsc::channel();
    let command = format!("{} -p --no-session", resume::shell_quote(rec.to_str().unwrap()));
    pitree::tui::summarizer::start(&command, input.clone(), move |r| tx.send(r).unwrap()).unwrap();
    let summary = rx.recv_timeout(Duration::from_secs(20)).unwrap().unwrap();
    assert_eq!(summary, "the summary");
    assert_eq!(recorded_argv(dir.path()), ["-p", "--no-session"]);
    assert_eq!(std::fs::read_to_string(dir.path().join("out.stdin")).unwrap(), input);
    assert!(!dir.path().join("pwned").exists(), "nothing in the text was run");
}

// ----- the sessions root is a boundary -------------------------------------------------------

fn copy_of_fixture(dir: &Path, name: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let to = dir.join(name);
    std::fs::copy(Path::new(common::FIXTURES).join("edge/orphan.jsonl"), &to).unwrap();
    to
}

#[test]
fn delete_fork_and_migration_refuse_paths_that_resolve_outside_the_root() {
    let sb = Sandbox::new();
    let root = sb.sessions();
    let outside_dir = sb.dir.path().join("outside");
    let outside = copy_of_fixture(&outside_dir, "victim.jsonl");
    let legacy = outside_dir.join("legacy.jsonl");
    std::fs::copy(Path::new(common::FIXTURES).join("edge/v1-legacy.jsonl"), &legacy).unwrap();
    let folder = root.join("--home-dev-edge--");
    std::fs::create_dir_all(&folder).unwrap();
    std::os::unix::fs::symlink(&outside, folder.join("link.jsonl")).unwrap();
    std::os::unix::fs::symlink(&legacy, folder.join("legacy-link.jsonl")).unwrap();
    let dotdot = folder.join("../../../outside/victim.jsonl");
    let before = std::fs::read(&outside).unwrap();
    let legacy_before = std::fs::read(&legacy).unwrap();
    for path in [folder.join("link.jsonl"), dotdot.clone()] {
        let p = path.to_str().unwrap();
        let err = String::from_utf8_lossy(&sb.pitree(&["fork", p, "a0000001"]).stderr).into_owned();
        assert!(err.contains("outside the sessions root"), "fork {p}: {err}");
    }
    let err = String::from_utf8_lossy(&sb.pitree(&["delete", "--yes", dotdot.to_str().unwrap()]).stderr)
        .into_owned();
    assert!(err.contains("outside the sessions root"), "delete {}: {err}", dotdot.display());
    let link = folder.join("legacy-link.jsonl");
    let id = Session::open(&link).unwrap().entries()[0].id.clone();
    let err =
        String::from_utf8_lossy(&sb.pitree(&["label", link.to_str().unwrap(), &id, "x"]).stderr).into_owned();
    assert!(err.contains("outside the sessions root"), "migrate: {err}");
    assert_eq!(std::fs::read(&outside).unwrap(), before);
    assert_eq!(std::fs::read(&legacy).unwrap(), legacy_before);
    assert_eq!(std::fs::read_dir(&outside_dir).unwrap().count(), 2, "no fork, backup or temp file outside");
    assert!(folder.join("link.jsonl").is_symlink() && folder.join("legacy-link.jsonl").is_symlink());
    assert!(trash_is_empty(&sb));
    // Deleting the link inside the root moves the link to the trash; the file outside stays.
    common::ok(&sb.pitree(&["delete", "--yes", folder.join("link.jsonl").to_str().unwrap()]));
    assert!(!folder.join("link.jsonl").is_symlink());
    assert_eq!(std::fs::read(&outside).unwrap(), before);
    let trashed = sb.dir.path().join("xdg/Trash/files/link.jsonl");
    assert!(std::fs::symlink_metadata(trashed).unwrap().file_type().is_symlink());
}

/// Nothing was moved to the sandbox's trash.
fn trash_is_empty(sb: &Sandbox) -> bool {
    let files = sb.dir.path().join("xdg/Trash/files");
    !files.exists() || std::fs::read_dir(files).unwrap().next().is_none()
}

#[test]
fn names_starting_with_a_dash_are_files_not_options() {
    let sb = Sandbox::new();
    let folder = sb.sessions().join("--home-dev-edge--");
    let file = copy_of_fixture(&folder, "-rf.jsonl");
    let other = copy_of_fixture(&folder, "--help.jsonl");
    let mut fork = sb.command(&["fork", "--", "-rf.jsonl", "a0000001"]);
    let out = fork.current_dir(&folder).output().unwrap();
    let forked = PathBuf::from(common::ok(&out).trim());
    assert_eq!(forked.parent().unwrap().canonicalize().unwrap(), folder.canonicalize().unwrap());
    let mut delete = sb.command(&["delete", "--yes", "--", "-rf.jsonl"]);
    common::ok(&delete.current_dir(&folder).output().unwrap());
    assert!(!file.exists() && other.exists() && forked.exists());
    assert!(!trash_is_empty(&sb));
}

// ----- permissions ---------------------------------------------------------------------------

#[test]
fn a_migrated_file_and_its_backup_keep_the_original_mode() {
    use std::os::unix::fs::PermissionsExt;
    for mode in [0o600, 0o640, 0o604] {
        let sb = Sandbox::new();
        let file = sb.add("edge/v2-legacy.jsonl", "--home-dev-legacy--");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        let id = Session::open(&file).unwrap().entries()[0].id.clone();
        common::ok(&sb.pitree(&["label", file.to_str().unwrap(), &id, "x"]));
        let backup = PathBuf::from(format!("{}.v2.bak", file.display()));
        for p in [&file, &backup] {
            assert_eq!(std::fs::metadata(p).unwrap().permissions().mode() & 0o777, mode, "{}", p.display());
        }
    }
}
