//! The command line as a script sees it: `--help` on every command, exit statuses (0 ok, 1 error,
//! 2 usage), one-line errors on stderr, unique id prefixes, `context --json`, delete to a temporary
//! trash, the completions and man page generated from the same definitions, the shared options
//! before or after the subcommand, and a default sessions root that does not exist.

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

/// `list --json` marks the session a running pi holds as live, and no other (the look through
/// `/proc` runs beside the listing).
#[test]
fn list_marks_the_session_a_running_pi_holds_as_live() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let mut pi = fake_pi(&f);
    let listed = ok(&sb.pitree(&["list", "--all", "--json"]));
    pi.kill().unwrap();
    pi.wait().unwrap();
    let rows: Vec<serde_json::Value> = listed.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(rows.len() > 1, "{listed}");
    assert_eq!(rows.iter().filter(|r| r["live"] == true).count(), 1, "{listed}");
    for row in &rows {
        let held = std::path::Path::new(row["path"].as_str().unwrap()) == f;
        assert_eq!(row["live"], held, "{row}");
    }
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

// ----- where the global options go (src/cli/options.rs) ----------------------------------------

/// A sandbox whose sessions live in `other/` instead of the default root, with a legacy (v1) file
/// there: every command that writes it, forks it or deletes it needs `--session-dir other`.
struct OtherRoot {
    sb: Sandbox,
    file: std::path::PathBuf,
    id: String,
}

impl OtherRoot {
    fn new() -> OtherRoot {
        let sb = Sandbox::new();
        let dir = sb.dir.path().join("other/--home-dev-legacy--");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("legacy.jsonl");
        std::fs::copy(std::path::Path::new(common::FIXTURES).join("edge/v1-legacy.jsonl"), &file).unwrap();
        let id = pitree::session::Session::open(&file).unwrap().entries()[0].id.to_string();
        OtherRoot { sb, file, id }
    }

    fn root(&self) -> String {
        self.sb.dir.path().join("other").to_str().unwrap().to_string()
    }

    /// `pitree SUBCOMMAND ARGS` with `--session-dir` before the subcommand, after it, or not at all.
    fn run(&self, subcommand: &str, args: &[&str], place: Place) -> std::process::Output {
        let root = self.root();
        let option = ["--session-dir", root.as_str()];
        let mut argv: Vec<&str> = Vec::new();
        if place == Place::Before {
            argv.extend(option);
        }
        argv.push(subcommand);
        if place == Place::After {
            argv.extend(option);
        }
        argv.extend(args);
        self.sb.pitree(&argv)
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Place {
    Before,
    After,
    Nowhere,
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn session_dir_goes_before_or_after_every_subcommand_that_uses_it() {
    for place in [Place::Before, Place::After, Place::Nowhere] {
        let r = OtherRoot::new();
        let file = r.file.to_str().unwrap();
        let id = r.id.as_str();
        let runs: [(&str, Vec<&str>, &str); 6] = [
            ("rename", vec![file, "n"], "renamed to \"n\""),
            ("label", vec![file, id, "l"], "labeled"),
            ("leaf", vec![file, id], "leaf moved to"),
            ("fork", vec![file, id], "other/--home-dev-legacy--/"),
            ("list", vec!["--all"], "v1: explain the build script"),
            ("delete", vec![file, "--yes"], "moved"),
        ];
        for (subcommand, args, says) in runs {
            let out = r.run(subcommand, &args, place);
            if place == Place::Nowhere {
                let expected = if subcommand == "list" { Some(0) } else { Some(1) };
                assert_eq!(out.status.code(), expected, "{subcommand} without the root: {}", stderr(&out));
                assert!(
                    !String::from_utf8_lossy(&out.stdout).contains(says),
                    "{subcommand} used the default root"
                );
            } else {
                let stdout = ok(&out);
                assert!(stdout.contains(says), "{subcommand} --session-dir {place:?}: {stdout}");
            }
        }
        assert_eq!(r.file.exists(), place == Place::Nowhere, "deleted only with the root ({place:?})");
    }
}

#[test]
fn all_before_list_is_list_all() {
    let sb = Sandbox::with_fixtures();
    let list = |args: &[&str]| ok(&sb.command(args).current_dir(sb.dir.path()).output().unwrap());
    let after = list(&["list", "--all", "--json"]);
    assert!(after.lines().count() > 1, "every session:\n{after}");
    assert_eq!(list(&["--all", "list", "--json"]), after);
    assert_eq!(list(&["list", "--json"]), "", "none was started in the sandbox");
    let table = list(&["--all", "list"]);
    assert!(table.lines().next().unwrap().ends_with("CWD"), "the table of every folder:\n{table}");
    let conflict = sb.pitree(&["--all", "list", "--cwd", "/x"]);
    assert_eq!(conflict.status.code(), Some(2));
    assert_eq!(stderr(&conflict), "error: the argument '--all' cannot be used with '--cwd <DIR>'\n");
}

/// Each subcommand with the arguments it needs to be parsed (the file need not exist: a usage
/// error comes first).
const PARSED: &[(&str, &[&str])] = &[
    ("list", &[]),
    ("show", &["/no/x.jsonl"]),
    ("context", &["/no/x.jsonl"]),
    ("leaf", &["/no/x.jsonl", "abc"]),
    ("label", &["/no/x.jsonl", "abc"]),
    ("rename", &["/no/x.jsonl"]),
    ("fork", &["/no/x.jsonl", "abc"]),
    ("delete", &["/no/x.jsonl"]),
    ("completions", &["bash"]),
    ("man", &[]),
];

#[test]
fn a_mode_flag_given_to_a_subcommand_without_that_mode_is_a_one_line_usage_error() {
    let sb = Sandbox::new();
    for (subcommand, args) in PARSED {
        for (flag, applies) in
            [("--all", "the picker and list"), ("--print", "the picker"), ("--demo", "the picker")]
        {
            if flag == "--all" && *subcommand == "list" {
                continue;
            }
            let before = [&[flag, *subcommand][..], args].concat();
            let after = [&[*subcommand][..], args, &[flag]].concat();
            // --demo is the picker's own: after a subcommand it is an unknown argument.
            let placements = if flag == "--demo" { vec![before] } else { vec![before, after] };
            for argv in placements {
                let out = sb.pitree(&argv);
                assert_eq!(out.status.code(), Some(2), "{argv:?}: {}", stderr(&out));
                assert_eq!(
                    stderr(&out),
                    format!("error: {flag} is for {applies}, not {subcommand}\n"),
                    "{argv:?}"
                );
                assert!(out.stdout.is_empty(), "{argv:?}");
            }
        }
    }
}

#[test]
fn a_setting_given_to_a_subcommand_that_does_not_use_it_is_accepted_and_changes_nothing() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    let f = f.to_str().unwrap();
    let elsewhere = sb.dir.path().join("elsewhere");
    let dir = elsewhere.to_str().unwrap();
    for (subcommand, args) in
        [("show", vec![f]), ("context", vec![f]), ("completions", vec!["zsh"]), ("man", vec![])]
    {
        let plain = ok(&sb.pitree(&[&[subcommand][..], &args].concat()));
        for setting in [["--pi", "my-pi"], ["--session-dir", dir]] {
            let before = [&setting[..], &[subcommand], &args].concat();
            let after = [&[subcommand][..], &args, &setting].concat();
            for argv in [before, after] {
                assert_eq!(ok(&sb.pitree(&argv)), plain, "{argv:?}");
            }
        }
    }
    let listed = ok(&sb.pitree(&["list", "--all", "--json"]));
    assert_eq!(ok(&sb.pitree(&["--pi", "my-pi", "list", "--all", "--json"])), listed);
    assert_eq!(ok(&sb.pitree(&["list", "--all", "--json", "--pi", "my-pi"])), listed);
}

#[test]
fn a_subcommand_help_lists_the_global_options_that_change_it() {
    let sb = Sandbox::new();
    for command in COMMANDS {
        let help = ok(&sb.pitree(&[command, "--help"]));
        let uses_root = ["list", "leaf", "label", "rename", "fork", "delete"].contains(command);
        assert_eq!(help.contains("--session-dir"), uses_root, "{command} --help:\n{help}");
        assert!(!help.contains("--pi ") && !help.contains("--print"), "{command} --help:\n{help}");
    }
    let top = ok(&sb.pitree(&["--help"]));
    for option in ["--session-dir", "--all", "--pi", "--print", "--demo"] {
        assert!(top.contains(option), "pitree --help lists {option}");
    }
    assert!(top.contains("Usage: pitree [OPTIONS] [FILE|ID]\n       pitree [OPTIONS] <COMMAND>"), "{top}");
}

#[test]
fn the_interactive_forms_take_their_options_before_or_after_the_session() {
    use pitree::cli::options::parse_from;
    for argv in [
        &["pitree", "--pi", "my-pi", "--all", "--session-dir", "/r", "--print", "abc"][..],
        &["pitree", "abc", "--pi", "my-pi", "--all", "--session-dir", "/r", "--print"],
    ] {
        let cli = parse_from(argv).unwrap();
        assert!(cli.command.is_none(), "{argv:?}");
        assert_eq!(cli.target.as_deref(), Some("abc"));
        assert_eq!(cli.global.pi.as_deref(), Some("my-pi"));
        assert_eq!(cli.global.session_dir.as_deref(), Some(std::path::Path::new("/r")));
        assert!(cli.global.all && cli.global.print, "{argv:?}");
    }
    let demo = parse_from(["pitree", "--session-dir", "/r", "--demo"]).unwrap();
    assert!(demo.demo && demo.command.is_none());
}

#[test]
fn a_session_to_open_before_a_subcommand_is_a_one_line_usage_error() {
    let sb = Sandbox::with_fixtures();
    let f = sb.find(BRANCHED);
    for (subcommand, args) in [("show", &[][..]), ("list", &["--all"]), ("rename", &["--force"])] {
        let argv = [&["--session-dir", "/r", f.to_str().unwrap(), subcommand][..], args].concat();
        let out = sb.pitree(&argv);
        assert_eq!(out.status.code(), Some(2), "{argv:?}");
        let expected = format!(
            "error: unexpected argument '{}' before the subcommand {subcommand}; its arguments go after it\n",
            f.display()
        );
        assert_eq!(stderr(&out), expected, "{argv:?}");
    }
}

#[test]
fn session_dir_given_on_both_sides_is_the_one_after_the_subcommand() {
    let cli =
        pitree::cli::options::parse_from(["pitree", "--session-dir", "/a", "list", "--session-dir", "/b"]);
    assert_eq!(cli.unwrap().global.session_dir.as_deref(), Some(std::path::Path::new("/b")));
}

// ----- a default sessions root that does not exist ---------------------------------------------

/// `pitree ARGS` with HOME an empty folder and no PI_CODING_AGENT_DIR: the default root,
/// `~/.pi/agent/sessions`, does not exist.
fn without_a_root(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    sb.command(args).env_remove("PI_CODING_AGENT_DIR").current_dir(sb.dir.path()).output().unwrap()
}

#[test]
fn a_missing_default_root_is_one_line_naming_the_fix_when_a_command_needs_it() {
    let r = OtherRoot::new();
    let file = r.file.to_str().unwrap();
    let root = r.sb.dir.path().join("home/.pi/agent/sessions");
    let expected = format!(
        "pitree: the sessions root {} does not exist, and pitree deletes, forks and migrates only files \
         inside it: pass --session-dir with the folder that holds {}\n",
        root.display(),
        r.file.canonicalize().unwrap().display()
    );
    for args in [
        vec!["rename", file, "n"],
        vec!["label", file, &r.id, "l"],
        vec!["fork", file, &r.id],
        vec!["delete", file, "--yes"],
    ] {
        let out = without_a_root(&r.sb, &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&out), expected, "{args:?}");
    }
    assert_eq!(std::fs::read_dir(r.file.parent().unwrap()).unwrap().count(), 1, "nothing written");
    ok(&r.run("rename", &[file, "n"], Place::Before));
}

#[test]
fn commands_that_do_not_need_the_root_work_without_it() {
    let sb = Sandbox::new();
    let dir = sb.dir.path().join("loose");
    std::fs::create_dir_all(&dir).unwrap();
    let v3 = dir.join("branched.jsonl");
    std::fs::copy(walk_fixtures().into_iter().find(|p| p.to_string_lossy().contains(BRANCHED)).unwrap(), &v3)
        .unwrap();
    let f = v3.to_str().unwrap();
    let legacy = dir.join("legacy.jsonl");
    std::fs::copy(std::path::Path::new(common::FIXTURES).join("edge/v1-legacy.jsonl"), &legacy).unwrap();
    for args in [
        vec!["show", f],
        vec!["context", f],
        vec!["show", legacy.to_str().unwrap()],
        vec!["rename", f, "n"],
        vec!["label", f, "04d1", "l"],
        vec!["leaf", f, "04d1"],
    ] {
        ok(&without_a_root(&sb, &args));
    }
    let listed = without_a_root(&sb, &["list", "--all"]);
    assert_eq!(ok(&listed), "");
    assert_eq!(stderr(&listed), "No sessions found.\n");
}

fn walk_fixtures() -> Vec<std::path::PathBuf> {
    common::walk(&std::path::Path::new(common::FIXTURES).join("agent/sessions"))
}
