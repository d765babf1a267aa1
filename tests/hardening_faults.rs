//! pitree under faults, beyond `tests/store_faults.rs` and `tests/catalog_index.rs`:
//!
//! - **SIGKILL in the middle of every write action** (label, rename, leaf, leaf with a summary,
//!   fork, the migration of a legacy file), ~35 kills each at random delays over the command's run:
//!   the file is always one pi opens without a load error and holds all or none of the new line; a
//!   fork leaves no file or a complete one; a migration leaves the original, or the migrated file
//!   plus a backup equal to the original. The survivor then takes a normal write.
//! - **Failing writes**: a fork into a read-only folder, a write denied by permissions (as an
//!   unprivileged user, since root ignores them), a file deleted or replaced by a FIFO while open.
//! - **Hostile sessions roots**: unreadable, symlink loops, FIFOs and devices named `.jsonl`,
//!   50,000 small files (`pitree list --all --json` is complete and correct), files changing while
//!   being scanned.
//! - **Hostile index files**: a FIFO, a folder, a symlink to `/dev/zero`, a header claiming 2^40
//!   records; a cache folder that is a file.
//! - **Tiny terminals**: the picker drawn at 1×1, 2×2, 10×3 … and back to 120×40.
//!
//! Every scenario runs the debug binary or the library against a temp sandbox.

mod common;
mod picker_support;
mod tree_support;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{Sandbox, pi_required, pi_view};
use pitree::catalog::{Catalog, Scope, SessionsRoot, locate::RootSource};
use pitree::session::Session;
use pitree::store::{self, Action};
use serde_json::Value;

const BRANCHED: &str = "2025-06-03T14-02-40-500Z";
const TARGET: &str = "04d1262c";

/// A small deterministic PRNG (xorshift64*), so a failing delay sequence can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }
}

fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

// ----- SIGKILL in the middle of a write --------------------------------------------------------

/// What a killed append left in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Unchanged,
    /// One complete line was added.
    Appended,
    /// Part of the line was written: the kill landed inside a long `write`.
    Torn,
}

/// Compare the file with its original: unchanged, the original plus one complete JSON line of
/// type `ty`, or the original plus the start of one. Anything else fails the test.
fn append_outcome(original: &[u8], now: &[u8], ty: &str) -> Outcome {
    if now == original {
        return Outcome::Unchanged;
    }
    let added = now.strip_prefix(original).expect("the original bytes were changed");
    let Some(line) = added.strip_suffix(b"\n") else {
        assert!(!added.contains(&b'\n'), "a torn write spans lines");
        return Outcome::Torn;
    };
    assert!(!line.contains(&b'\n'), "more than one line was added");
    let v: Value = serde_json::from_slice(line).expect("the added line is complete JSON");
    assert_eq!(v["type"], ty);
    Outcome::Appended
}

/// Run `args` to completion three times, to learn how long the command takes at most.
fn duration_of(sb: &Sandbox, args: &[&str]) -> Duration {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            let out = sb.pitree(args);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            start.elapsed()
        })
        .max()
        .unwrap()
}

/// Start `args` and SIGKILL it after `delay` (if it is still running).
fn kill_after(sb: &Sandbox, args: &[&str], delay: Duration) {
    let mut child = sb
        .command(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let _ = child.kill();
    child.wait().unwrap();
}

/// Kill `args` `kills` times, restoring the files with `reset` after each; `inspect` classifies
/// what each kill left. Half the delays are spread over 1.5× the command's longest run time, half
/// within ±2 ms of the moment the file changes (found by bisection), so kills land on the write
/// itself. Returns how often each outcome happened, with the file's content for the first of each.
fn kill_campaign<K: Ord + Copy + std::fmt::Debug>(
    sb: &Sandbox,
    args: &[&str],
    file: &Path,
    kills: usize,
    seed: u64,
    mut inspect: impl FnMut() -> K,
    mut reset: impl FnMut(),
) -> BTreeMap<K, (usize, Vec<u8>)> {
    let span = duration_of(sb, args).as_micros() as u64 * 3 / 2;
    reset();
    let mut kill = |delay: u64| {
        kill_after(sb, args, Duration::from_micros(delay));
        let outcome = inspect();
        let bytes = std::fs::read(file).unwrap_or_default();
        reset();
        (outcome, bytes)
    };
    let untouched = kill(0).0;
    let (mut before, mut after) = (0, span);
    for _ in 0..8 {
        let mid = (before + after) / 2;
        if kill(mid).0 == untouched { before = mid } else { after = mid }
    }
    let mut rng = Rng(seed);
    let mut seen: BTreeMap<K, (usize, Vec<u8>)> = BTreeMap::new();
    for i in 0..kills {
        let delay =
            if i % 2 == 0 { rng.below(span) } else { (before + rng.below(4000)).saturating_sub(2000) };
        let (outcome, bytes) = kill(delay);
        seen.entry(outcome).or_insert((0, bytes)).0 += 1;
    }
    let counts: Vec<_> = seen.iter().map(|(k, v)| (k, v.0)).collect();
    eprintln!(
        "{}: {kills} kills, run {} ms, change at ~{} ms: {counts:?}",
        args[0],
        span / 1000,
        before / 1000
    );
    seen
}

/// pi opens each content without a load error.
fn pi_opens_each(contents: impl IntoIterator<Item = Vec<u8>>, name: &str) {
    let dir = tempfile::tempdir().unwrap();
    for (i, bytes) in contents.into_iter().enumerate() {
        let f = dir.path().join(format!("{i}-{name}"));
        std::fs::write(&f, &bytes).unwrap();
        let Some(view) = pi_view(&f) else {
            assert!(!pi_required(), "the real pi is required under CI");
            return;
        };
        assert!(view["loadError"].is_null(), "pi cannot open what a kill left: {view}");
        assert_eq!(view["hang"], false);
    }
}

/// Kill `pitree <args[0]> FILE <args[1..]>` on the branched fixture; returns the outcomes.
fn append_kills(args: &[&str], ty: &str, kills: usize, seed: u64) -> BTreeMap<Outcome, (usize, Vec<u8>)> {
    let sb = Sandbox::with_fixtures();
    let file = sb.find(BRANCHED);
    let original = std::fs::read(&file).unwrap();
    let mut full_args = vec![args[0], arg(&file)];
    full_args.extend_from_slice(&args[1..]);
    let seen = kill_campaign(
        &sb,
        &full_args,
        &file,
        kills,
        seed,
        || append_outcome(&original, &std::fs::read(&file).unwrap(), ty),
        || std::fs::write(&file, &original).unwrap(),
    );
    pi_opens_each(seen.values().map(|(_, bytes)| bytes.clone()), "s.jsonl");
    for (_, bytes) in seen.values() {
        std::fs::write(&file, bytes).unwrap();
        let out = sb.pitree(&["rename", arg(&file), "after the kill"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(Session::open(&file).unwrap().graph.name(), Some("after the kill"));
    }
    seen
}

/// Linux can stop a `write` at a page boundary when SIGKILL arrives during it, so even a short
/// line may (rarely) be left torn; what must hold is what `append_kills` checks: pi opens every
/// outcome (it skips a torn line, so it sees all or none of the new line) and pitree's next write
/// repairs the tail. Most kills must still leave the file untouched or the line complete.
fn small_line_kills(args: &[&str], ty: &str, seed: u64) {
    let seen = append_kills(args, ty, 35, seed);
    let torn = seen.get(&Outcome::Torn).map_or(0, |(n, _)| *n);
    assert!(torn * 4 < 35, "{torn} of 35 kills tore the line");
}

#[test]
fn a_label_killed_at_any_moment_leaves_all_or_nothing() {
    small_line_kills(&["label", TARGET, "killed?"], "label", 1);
}

#[test]
fn a_rename_killed_at_any_moment_leaves_all_or_nothing() {
    small_line_kills(&["rename", "killed?"], "session_info", 2);
}

#[test]
fn a_leaf_move_killed_at_any_moment_leaves_all_or_nothing() {
    small_line_kills(&["leaf", TARGET], "custom", 3);
}

#[test]
fn a_leaf_move_with_a_summary_killed_at_any_moment_leaves_all_or_nothing() {
    small_line_kills(
        &["leaf", TARGET, "--summary", &"what was tried on the abandoned branch\n".repeat(200)],
        "branch_summary",
        4,
    );
}

/// An 8 MB summary is one `write` the kernel may cut short when SIGKILL arrives during it: the
/// file then ends in a partial line. pi still opens it (it skips the damaged line), and pitree's
/// next write puts a `\n` after it first, so only the killed line is lost.
#[test]
fn a_huge_summary_killed_mid_write_may_leave_a_torn_line_that_pi_skips_and_the_next_write_repairs() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.txt");
    std::fs::write(&summary, "a long summary line ".repeat(400_000)).unwrap();
    append_kills(&["leaf", TARGET, "--summary-file", arg(&summary)], "branch_summary", 16, 8);
}

/// The `.jsonl` files of `dir`.
fn sessions_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    v
}

/// What a killed fork left: nothing, or one complete new session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum ForkOutcome {
    Nothing,
    Complete,
}

#[test]
fn a_fork_killed_at_any_moment_leaves_no_file_or_a_complete_one() {
    let sb = Sandbox::with_fixtures();
    let file = sb.find(BRANCHED);
    let dir = file.parent().unwrap().to_path_buf();
    let original = std::fs::read(&file).unwrap();
    let before = sessions_in(&dir);
    let expected_lines = Session::open(&file).unwrap().graph.path_to(9).len() + 1;
    let new_file = || sessions_in(&dir).into_iter().find(|p| !before.contains(p));
    let copy = sb.dir.path().join("fork-copy.jsonl");
    let seen = kill_campaign(
        &sb,
        &["fork", arg(&file), "f72ef315"],
        &copy,
        35,
        5,
        || {
            assert_eq!(std::fs::read(&file).unwrap(), original, "the source is never changed");
            let Some(f) = new_file() else { return ForkOutcome::Nothing };
            let text = std::fs::read_to_string(&f).unwrap();
            assert!(
                text.ends_with('\n') && text.lines().count() >= expected_lines,
                "a partial fork: {text:?}"
            );
            assert!(Session::open(&f).unwrap().file.damage.is_empty());
            std::fs::copy(&f, &copy).unwrap();
            ForkOutcome::Complete
        },
        || {
            if let Some(f) = new_file() {
                std::fs::remove_file(f).unwrap();
            }
            let _ = std::fs::remove_file(&copy);
        },
    );
    let (_, complete) = seen.get(&ForkOutcome::Complete).expect("some forks finished");
    pi_opens_each([complete.clone()], "fork.jsonl");
}

/// What a killed migration left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum MigrationOutcome {
    Original,
    OriginalAndBackup,
    Migrated,
    MigratedAndLabeled,
}

#[test]
fn a_migration_killed_at_any_moment_leaves_the_original_or_the_migrated_file_and_its_backup() {
    for (legacy, seed) in [("edge/v1-legacy.jsonl", 6), ("edge/v2-legacy.jsonl", 7)] {
        let sb = Sandbox::new();
        let file = sb.add(legacy, "--home-dev-legacy--");
        let dir = file.parent().unwrap().to_path_buf();
        let original = std::fs::read(&file).unwrap();
        let id = Session::open(&file).unwrap().entries()[0].id.clone();
        let seen = kill_campaign(
            &sb,
            &["label", arg(&file), &id, "killed?"],
            &file,
            18,
            seed,
            || migration_outcome(&file, &original),
            || reset_dir(&dir, &file, &original),
        );
        assert!(!seen.is_empty());
        pi_opens_each(seen.into_values().map(|(_, bytes)| bytes), "legacy.jsonl");
    }
}

fn migration_outcome(file: &Path, original: &[u8]) -> MigrationOutcome {
    let dir = file.parent().unwrap();
    let backups: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".bak"))
        .collect();
    assert!(backups.len() <= 1, "{backups:?}");
    let temp_prefix = format!(".{}.migrating-", file.file_name().unwrap().to_string_lossy());
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        let known = Path::new(&name) == file.file_name().unwrap() || name.contains(".bak");
        assert!(known || name.starts_with(&temp_prefix), "a stray file after a killed migration: {name}");
    }
    for b in &backups {
        assert_eq!(std::fs::read(b).unwrap(), original, "the backup is the original");
    }
    let now = std::fs::read(file).unwrap();
    if now == original {
        return if backups.is_empty() {
            MigrationOutcome::Original
        } else {
            MigrationOutcome::OriginalAndBackup
        };
    }
    assert_eq!(backups.len(), 1, "a migrated file always has its backup");
    let s = Session::open(file).unwrap();
    assert_eq!(s.header().version, 3);
    let labeled = s.entries().iter().any(|e| matches!(e.kind, pitree::session::Kind::Label { .. }));
    if labeled { MigrationOutcome::MigratedAndLabeled } else { MigrationOutcome::Migrated }
}

/// A temp file a killed migration left (`.<file>.migrating-*`) is removed by the next migration of
/// that file once it is a minute old; a fresh one (another pitree migrating now) is left alone.
#[test]
fn the_next_migration_removes_what_a_killed_one_left() {
    let sb = Sandbox::new();
    let file = sb.add("edge/v1-legacy.jsonl", "--home-dev-legacy--");
    let dir = file.parent().unwrap().to_path_buf();
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    let stale = dir.join(format!(".{name}.migrating-old123"));
    let fresh = dir.join(format!(".{name}.migrating-new456"));
    for p in [&stale, &fresh] {
        std::fs::write(p, "half a migration").unwrap();
    }
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options().write(true).open(&stale).unwrap().set_modified(old).unwrap();
    let id = Session::open(&file).unwrap().entries()[0].id.clone();
    common::ok(&sb.pitree(&["label", arg(&file), &id, "x"]));
    assert!(!stale.exists(), "the leftover of a killed migration is removed");
    assert!(fresh.exists(), "a temp file that may belong to a running migration is kept");
}

/// Put the original back and remove backups and any temp file a killed migration left.
fn reset_dir(dir: &Path, file: &Path, original: &[u8]) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p != file {
            std::fs::remove_file(&p).unwrap();
        }
    }
    std::fs::write(file, original).unwrap();
}

// ----- writes that fail ----------------------------------------------------------------------

fn one_line_error(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn chmod(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_fork_into_a_read_only_folder_is_a_clear_error_and_creates_nothing() {
    let sb = Sandbox::with_fixtures();
    let file = sb.find(BRANCHED);
    let dir = file.parent().unwrap().to_path_buf();
    let before = sessions_in(&dir);
    let original = std::fs::read(&file).unwrap();
    chmod(&dir, 0o555);
    let out = sb.unprivileged(&["fork", arg(&file), TARGET]).output().unwrap();
    chmod(&dir, 0o755);
    let err = one_line_error(&out);
    assert!(err.contains("ermission denied"), "{err}");
    assert_eq!(sessions_in(&dir), before);
    assert_eq!(std::fs::read(&file).unwrap(), original);
}

#[test]
fn a_write_denied_by_permissions_is_a_clear_error_and_changes_nothing() {
    let sb = Sandbox::with_fixtures();
    let file = sb.find(BRANCHED);
    let original = std::fs::read(&file).unwrap();
    chmod(&file, 0o444);
    for args in [
        vec!["rename", arg(&file), "x"],
        vec!["label", arg(&file), TARGET, "x"],
        vec!["leaf", arg(&file), TARGET],
    ] {
        let err = one_line_error(&sb.unprivileged(&args).output().unwrap());
        assert!(err.contains("ermission denied"), "{err}");
    }
    assert_eq!(std::fs::read(&file).unwrap(), original);
}

#[test]
fn a_legacy_file_in_a_read_only_folder_is_not_migrated_and_stays_as_it_was() {
    let sb = Sandbox::new();
    let file = sb.add("edge/v1-legacy.jsonl", "--home-dev-legacy--");
    let dir = file.parent().unwrap().to_path_buf();
    let original = std::fs::read(&file).unwrap();
    let id = Session::open(&file).unwrap().entries()[0].id.clone();
    chmod(&dir, 0o555);
    let out = sb.unprivileged(&["label", arg(&file), &id, "x"]).output().unwrap();
    chmod(&dir, 0o755);
    let err = one_line_error(&out);
    assert!(err.contains("ermission denied"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), original);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no backup, no temp file");
}

#[test]
fn a_file_deleted_while_open_is_not_recreated() {
    let sb = Sandbox::with_fixtures();
    let file = sb.find(BRANCHED);
    let session = Session::open(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    let action = Action::Label { target: TARGET.into(), label: Some("x".into()) };
    let err = store::write_action(&file, Some(&session), Some(&sb.sessions()), &action).unwrap_err();
    assert!(format!("{err:#}").contains("No such file"), "{err:#}");
    assert!(!file.exists(), "the write must not create the file again");
    assert!(store::actions::fork(&session, 5, &sb.sessions()).is_err(), "nothing to fork from");
}

#[test]
fn a_file_replaced_by_a_fifo_or_a_folder_while_open_is_refused_without_hanging() {
    let sb = Sandbox::with_fixtures();
    let file = sb.find(BRANCHED);
    let session = Session::open(&file).unwrap();
    let action = Action::Rename { name: Some("x".into()) };
    std::fs::remove_file(&file).unwrap();
    mkfifo(&file);
    let fifo = std::thread::spawn({
        let (file, root) = (file.clone(), sb.sessions());
        move || store::write_action(&file, Some(&session), Some(&root), &action).map(|_| ())
    });
    assert!(finishes_within(fifo, Duration::from_secs(10)).is_err(), "a FIFO is not written to");
    assert!(session_reader_refuses(&file));
    std::fs::remove_file(&file).unwrap();
    std::fs::create_dir(&file).unwrap();
    assert!(session_reader_refuses(&file));
}

fn mkfifo(p: &Path) {
    let status = Command::new("mkfifo").arg(p).status().unwrap();
    assert!(status.success());
}

/// Join `handle`, failing the test if it takes longer than `limit`.
fn finishes_within<T: Send + 'static>(handle: std::thread::JoinHandle<T>, limit: Duration) -> T {
    let start = Instant::now();
    while !handle.is_finished() {
        assert!(start.elapsed() < limit, "hung for {limit:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
    handle.join().unwrap()
}

/// Opening `path` for the tree view, `show` or a write fails promptly instead of blocking.
fn session_reader_refuses(path: &Path) -> bool {
    let p = path.to_path_buf();
    finishes_within(std::thread::spawn(move || Session::open(&p).is_err()), Duration::from_secs(10))
}

// ----- hostile sessions roots ----------------------------------------------------------------

/// `pitree list --all --json` (one JSON object per line), within `limit`.
fn list_all(mut cmd: Command, limit: Duration) -> (Vec<Value>, String) {
    let start = Instant::now();
    let out = cmd.output().unwrap();
    assert!(start.elapsed() < limit, "listing took {:?}", start.elapsed());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success() && !stderr.contains("panicked"), "{stderr}");
    let rows =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (rows, stderr)
}

fn ids(rows: &[Value]) -> HashSet<String> {
    rows.iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn an_unreadable_sessions_root_or_folder_is_a_warning_not_a_failure() {
    let sb = Sandbox::with_fixtures();
    let (all, _) = list_all(sb.command(&["list", "--all", "--json"]), Duration::from_secs(30));
    let alpha = sb.sessions().join("--home-dev-alpha--");
    let alpha_ids: HashSet<String> =
        sessions_in(&alpha).iter().map(|p| Session::open(p).unwrap().header().id.clone()).collect();
    chmod(&alpha, 0o000);
    let (rows, stderr) = list_all(sb.unprivileged(&["list", "--all", "--json"]), Duration::from_secs(30));
    chmod(&alpha, 0o755);
    assert!(stderr.contains("--home-dev-alpha--"), "the folder is named in a warning: {stderr}");
    assert_eq!(ids(&rows), &ids(&all) - &alpha_ids);
    chmod(&sb.sessions(), 0o000);
    let (rows, stderr) = list_all(sb.unprivileged(&["list", "--all", "--json"]), Duration::from_secs(30));
    chmod(&sb.sessions(), 0o755);
    assert!(rows.is_empty() && stderr.contains("sessions"), "{stderr}");
}

#[test]
fn symlink_loops_fifos_and_devices_in_the_sessions_root_do_not_hang_the_listing() {
    let sb = Sandbox::with_fixtures();
    let (all, _) = list_all(sb.command(&["list", "--all", "--json"]), Duration::from_secs(30));
    let root = sb.sessions();
    let odd = root.join("--odd--");
    std::fs::create_dir(&odd).unwrap();
    std::os::unix::fs::symlink(&root, root.join("--loop--")).unwrap();
    std::os::unix::fs::symlink(&odd, odd.join("--inner-loop--")).unwrap();
    std::os::unix::fs::symlink(odd.join("self.jsonl"), odd.join("self.jsonl")).unwrap();
    std::os::unix::fs::symlink(odd.join("b.jsonl"), odd.join("a.jsonl")).unwrap();
    std::os::unix::fs::symlink(odd.join("a.jsonl"), odd.join("b.jsonl")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", odd.join("zero.jsonl")).unwrap();
    std::os::unix::fs::symlink("/dev/urandom", odd.join("random.jsonl")).unwrap();
    mkfifo(&odd.join("fifo.jsonl"));
    std::os::unix::fs::symlink(sb.find(BRANCHED), odd.join("twice.jsonl")).unwrap();
    let (rows, _) = list_all(sb.command(&["list", "--all", "--json"]), Duration::from_secs(30));
    assert_eq!(ids(&rows), ids(&all));
    assert_eq!(rows.len(), all.len(), "a session reached twice is listed once");
    for special in ["fifo.jsonl", "zero.jsonl", "random.jsonl", "self.jsonl"] {
        let p = odd.join(special);
        assert!(session_reader_refuses(&p), "{special}");
        let err = one_line_error(&sb.pitree(&["show", arg(&p)]));
        assert!(!err.is_empty());
    }
}

/// `count` small sessions in folders of 500, with their ids.
fn many_sessions(root: &Path, count: usize) -> HashSet<String> {
    let mut ids = HashSet::new();
    for i in 0..count {
        let dir = root.join(format!("--home-dev-p{:03}--", i / 500));
        if i % 500 == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        let id = format!("0198{i:04x}-0000-7000-8000-{i:012x}");
        let header = format!(
            r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2025-06-01T00:00:00.000Z","cwd":"/home/dev/p{}"}}"#,
            i / 500
        );
        let user = format!(
            r#"{{"type":"message","id":"a{i:07x}","parentId":null,"timestamp":"2025-06-01T00:00:01.000Z","message":{{"role":"user","content":"question {i}","timestamp":{}}}}}"#,
            1_748_736_001_000u64 + i as u64
        );
        std::fs::write(
            dir.join(format!("2025-06-01T00-00-00-000Z_{id}.jsonl")),
            format!("{header}\n{user}\n"),
        )
        .unwrap();
        ids.insert(id);
    }
    ids
}

#[test]
fn fifty_thousand_sessions_are_all_listed_correctly() {
    let sb = Sandbox::new();
    let expected = many_sessions(&sb.sessions(), 50_000);
    for pass in ["cold", "indexed"] {
        let start = Instant::now();
        let (rows, stderr) = list_all(sb.command(&["list", "--all", "--json"]), Duration::from_secs(240));
        eprintln!("50,000 sessions, {pass}: {:?}", start.elapsed());
        assert!(stderr.is_empty(), "{stderr}");
        assert_eq!(rows.len(), 50_000);
        assert_eq!(ids(&rows), expected);
        let newest = &rows[0];
        assert_eq!(newest["firstMessage"], "question 49999", "newest first");
        assert_eq!(newest["messageCount"], 1);
    }
}

#[test]
fn files_changing_while_they_are_scanned_never_break_a_listing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sessions");
    let known = many_sessions(&root, 300);
    let cache = dir.path().join("cache");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let churn = std::thread::spawn({
        let (root, stop) = (root.clone(), stop.clone());
        move || churn_files(&root, &stop)
    });
    let start = Instant::now();
    let mut scans = 0;
    while start.elapsed() < Duration::from_secs(3) {
        let catalog = Catalog::open(SessionsRoot::new(&root, RootSource::Flag), Some(&cache));
        let report = catalog.scan(&Scope::All, &|_, _| {});
        let paths: HashSet<&PathBuf> = report.sessions.iter().map(|s| &s.path).collect();
        assert_eq!(paths.len(), report.sessions.len(), "a file listed twice");
        assert!(report.sessions.iter().all(|s| known.contains(&s.id)), "only real sessions are listed");
        scans += 1;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let changes = churn.join().unwrap();
    eprintln!("{scans} scans during {changes} file changes");
    let indexed =
        Catalog::open(SessionsRoot::new(&root, RootSource::Flag), Some(&cache)).scan(&Scope::All, &|_, _| {});
    let fresh = Catalog::open(SessionsRoot::new(&root, RootSource::Flag), None).scan(&Scope::All, &|_, _| {});
    let (indexed, fresh) = (sorted(indexed.sessions), sorted(fresh.sessions));
    let stale: Vec<_> = indexed.iter().zip(&fresh).filter(|(a, b)| a != b).collect();
    assert!(
        stale.is_empty() && indexed.len() == fresh.len(),
        "{} stale rows once the files settle: {:#?}",
        stale.len(),
        stale.first()
    );
}

/// Summaries in path order, to compare two listings.
fn sorted(mut v: Vec<pitree::catalog::SessionSummary>) -> Vec<pitree::catalog::SessionSummary> {
    v.sort_by(|a, b| a.path.cmp(&b.path));
    v
}

/// Append to (lines with new ids: an id repeated across a continuation point is the scanner's one
/// documented approximation), truncate, rewrite, rename and delete-and-restore the sessions of
/// `root` until told to stop; returns how many changes were made.
fn churn_files(root: &Path, stop: &std::sync::atomic::AtomicBool) -> usize {
    let files = common::walk(root);
    let mut rng = Rng(99);
    let mut changes = 0;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let f = &files[rng.below(files.len() as u64) as usize];
        let Ok(text) = std::fs::read(f) else { continue };
        let _ = match rng.below(5) {
            0 => std::fs::OpenOptions::new().append(true).open(f).and_then(|mut h| {
                use std::io::Write;
                writeln!(h, r#"{{"type":"message","id":"g{changes}","parentId":null,"timestamp":"2025-06-02T00:00:00.000Z","message":{{"role":"user","content":"grown"}}}}"#)
            }),
            1 => std::fs::write(f, &text[..text.len() / 2]),
            2 => std::fs::write(f, &text),
            3 => std::fs::rename(f, f.with_extension("moved")).and_then(|()| std::fs::rename(f.with_extension("moved"), f)),
            _ => std::fs::remove_file(f).and_then(|()| std::fs::write(f, &text)),
        };
        changes += 1;
    }
    for f in &files {
        let _ = std::fs::remove_file(f.with_extension("moved"));
    }
    changes
}

// ----- hostile index files -------------------------------------------------------------------

/// A catalog of the fixtures with its index at `index`'s place; listing must finish and be right.
fn listing_survives_index(prepare: impl FnOnce(&Path)) {
    let sb = Sandbox::with_fixtures();
    let truth =
        Catalog::open(SessionsRoot::new(sb.sessions(), RootSource::Flag), None).scan(&Scope::All, &|_, _| {});
    let cache = sb.dir.path().join("cache/pitree");
    let catalog = Catalog::open(SessionsRoot::new(sb.sessions(), RootSource::Flag), Some(&cache));
    let index = catalog.index_file().unwrap().to_path_buf();
    std::fs::create_dir_all(&cache).unwrap();
    prepare(&index);
    let handle = std::thread::spawn(move || catalog.scan(&Scope::All, &|_, _| {}));
    let report = finishes_within(handle, Duration::from_secs(20));
    assert_eq!(sorted(report.sessions), sorted(truth.sessions));
}

#[test]
fn a_fifo_in_place_of_the_index_is_ignored_without_hanging() {
    listing_survives_index(mkfifo);
}

#[test]
fn a_folder_or_a_symlink_to_dev_zero_in_place_of_the_index_is_ignored() {
    listing_survives_index(|p| std::fs::create_dir(p).unwrap());
    listing_survives_index(|p| std::os::unix::fs::symlink("/dev/zero", p).unwrap());
}

/// A valid-looking index header (right magic, version and hashes) claiming 2^40 records over 4 KB.
fn lying_index(p: &Path) {
    use pitree::catalog::hash::hash64;
    let records = vec![7u8; 4096];
    let mut h = Vec::new();
    h.extend_from_slice(b"PITREEIX");
    h.extend_from_slice(&pitree::catalog::index::FORMAT_VERSION.to_le_bytes());
    h.extend_from_slice(&[0; 4]);
    for word in [1u64 << 40, records.len() as u64, hash64(&records, 3), 0, hash64(&[], 7)] {
        h.extend_from_slice(&word.to_le_bytes());
    }
    let check = hash64(&h, 4);
    h.extend_from_slice(&check.to_le_bytes());
    h.extend_from_slice(&records);
    std::fs::write(p, h).unwrap();
}

/// The count used to size the records map before decoding: it made a 4 KB index reserve 738 MB,
/// and `pitree list` abort ("memory allocation of 738197504 bytes failed") under `ulimit -v`,
/// until the reservation was bounded by the section's size (`index::decode_records`).
#[test]
fn an_index_header_claiming_two_to_the_forty_records_is_rejected_without_reserving_for_them() {
    listing_survives_index(lying_index);
    let sb = Sandbox::with_fixtures();
    common::ok(&sb.pitree(&["list", "--all", "--json"]));
    let index = std::fs::read_dir(sb.dir.path().join("cache/pitree"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "bin"))
        .unwrap();
    lying_index(&index);
    let mut limited = Command::new("sh");
    limited
        .arg("-c")
        .arg("ulimit -v 400000; exec \"$0\" list --all --json")
        .arg(env!("CARGO_BIN_EXE_pitree"));
    for (key, value) in sb.command(&[]).get_envs() {
        if let Some(v) = value {
            limited.env(key, v);
        }
    }
    let (_, rss) = common::peak_rss_kb(limited);
    assert!(rss < 300 * 1024, "peak RSS {rss} KB (a reservation for the claimed count would be 738 MB)");
}

#[test]
fn a_cache_folder_that_is_a_file_leaves_the_listing_working() {
    let sb = Sandbox::with_fixtures();
    let (all, _) = list_all(sb.command(&["list", "--all", "--json"]), Duration::from_secs(30));
    let cache = sb.dir.path().join("cache/pitree");
    std::fs::remove_dir_all(&cache).ok();
    std::fs::write(&cache, "not a folder").unwrap();
    let (rows, stderr) = list_all(sb.command(&["list", "--all", "--json"]), Duration::from_secs(30));
    assert_eq!(ids(&rows), ids(&all));
    assert!(stderr.lines().count() <= 1, "at most one warning: {stderr}");
}

// ----- tiny terminals ------------------------------------------------------------------------

const TINY: [(u16, u16); 8] = [(1, 1), (2, 2), (10, 3), (1, 40), (120, 1), (3, 10), (60, 15), (120, 40)];

#[test]
fn the_picker_draws_at_every_tiny_size_and_back() {
    let fixtures = picker_support::Fixtures::copy();
    let mut h = picker_support::Harness::new(true);
    h.load(pitree::tui::picker::state::ScopeKind::All, fixtures.sessions.clone());
    for (w, hgt) in TINY.iter().chain(TINY.iter().rev()) {
        h.buffer(*w, *hgt);
        h.code(ratatui::crossterm::event::KeyCode::Down);
        h.buffer(*w, *hgt);
    }
    h.type_text("rate");
    for (w, hgt) in TINY {
        h.buffer(w, hgt);
    }
}

/// Regression: at heights 1–4 the list got a 0-row window and `pan` in `src/tui/tree/draw.rs`
/// indexed an empty slice ("index out of bounds: the len is 0 but the index is 0").
#[test]
fn the_tree_view_draws_at_every_tiny_size_and_back() {
    let mut view = tree_support::open(&tree_support::scenario("branched"));
    for (w, hgt) in TINY.iter().chain(TINY.iter().rev()) {
        tree_support::render(&view, *w, *hgt);
        tree_support::press(&mut view, tree_support::key(ratatui::crossterm::event::KeyCode::Up));
        tree_support::render(&view, *w, *hgt);
    }
}

/// Regression: `wrap` in `src/tui/tree/draw.rs` forces a grapheme wider than the pane onto an
/// empty line, so `used` (2) passed `cols` (1) and `take_cols(rest, cols - used)` underflowed
/// ("attempt to subtract with overflow"; release builds wrapped wrongly). Found by `hardening_fuzz`: a leaf whose type name is CJK, drawn 1 or 2 columns wide
/// with the detail pane stacked below the rows.
#[test]
fn a_wide_character_in_a_one_column_detail_pane_draws() {
    let mut b = tree_support::Build::new();
    b.user("u1", None, "hi").entry("项目 ✨", "x1", Some("u1"), serde_json::json!({}));
    let (_dir, path) = b.write();
    let view = tree_support::open(&path);
    for width in [1, 2] {
        tree_support::render(&view, width, 40);
    }
}
