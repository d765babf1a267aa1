//! Helpers shared by the integration tests: temp sessions roots made from the fixtures, running the
//! `pitree` binary with an isolated environment, and asking the real pi 1.6.0 what it sees.

#![allow(dead_code)]

pub mod fixtures;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// A temp dir holding `agent/sessions/…` (a copy of the fixtures), `home/` and `xdg/`.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["agent/sessions", "home", "xdg", "cache"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Sandbox { dir }
    }

    /// A sandbox with every fixture session copied in.
    pub fn with_fixtures() -> Sandbox {
        let s = Sandbox::new();
        copy_dir(&Path::new(FIXTURES).join("agent/sessions"), &s.sessions());
        s
    }

    pub fn sessions(&self) -> PathBuf {
        self.dir.path().join("agent/sessions")
    }

    /// Copy one fixture file (path relative to tests/fixtures) into `sessions/<dir>/`.
    pub fn add(&self, fixture: &str, dir: &str) -> PathBuf {
        let from = Path::new(FIXTURES).join(fixture);
        let to_dir = self.sessions().join(dir);
        std::fs::create_dir_all(&to_dir).unwrap();
        let to = to_dir.join(from.file_name().unwrap());
        std::fs::copy(&from, &to).unwrap();
        make_writable(&to);
        to
    }

    /// The fixture session whose file name starts with `prefix`.
    pub fn find(&self, prefix: &str) -> PathBuf {
        walk(&self.sessions())
            .into_iter()
            .find(|p| {
                p.file_name().unwrap().to_string_lossy().starts_with(prefix)
                    && p.extension().is_some_and(|e| e == "jsonl")
            })
            .unwrap_or_else(|| panic!("no session {prefix}"))
    }

    /// `pitree ARGS` with PI_CODING_AGENT_DIR, HOME, XDG_* pointing into the sandbox.
    pub fn pitree(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_pitree"));
        c.args(args)
            .env("PI_CODING_AGENT_DIR", self.dir.path().join("agent"))
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .env("HOME", self.dir.path().join("home"))
            .env("XDG_DATA_HOME", self.dir.path().join("xdg"))
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("PITREE_CACHE_DIR", self.dir.path().join("cache/pitree"))
            .env_remove("PITREE_PI");
        c
    }
}

pub fn ok(out: &Output) -> String {
    assert!(out.status.success(), "pitree failed: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let target = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &target);
        } else {
            std::fs::copy(&p, &target).unwrap();
            make_writable(&target);
        }
    }
}

fn make_writable(p: &Path) {
    let mut perms = std::fs::metadata(p).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(p, perms).unwrap();
}

pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// The real pi 1.6.0's view of a file (tests/compat/pi-view.mjs), or `None` when the compat
/// package is not installed (`npm ci --prefix tests/compat`).
pub fn pi_view(file: &Path) -> Option<Value> {
    pi_script("pi-view.mjs", &[file.to_str().unwrap()])
}

/// The one JSON object `node tests/compat/SCRIPT ARGS` prints (a script that asks the real pi
/// 1.6.0), or `None` when the compat package is not installed.
pub fn pi_script(script: &str, args: &[&str]) -> Option<Value> {
    pi_script_at_home(script, args, None)
}

/// [`pi_script`] with `HOME` set to `home` (pi shortens paths under it to `~`).
pub fn pi_script_at_home(script: &str, args: &[&str], home: Option<&Path>) -> Option<Value> {
    let compat = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat");
    if !compat.join("node_modules").exists() {
        eprintln!("note: tests/compat/node_modules is missing; skipping the check against the real pi");
        return None;
    }
    let mut node = Command::new("node");
    node.arg(compat.join(script)).args(args);
    if let Some(home) = home {
        node.env("HOME", home);
    }
    let out = node.output().expect("node");
    assert!(out.status.success(), "{script} failed: {}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// Whether CI requires the real pi (so a missing install fails instead of skipping).
pub fn pi_required() -> bool {
    std::env::var_os("CI").is_some()
}

impl Sandbox {
    /// [`Sandbox::command`] as an unprivileged user: through `setpriv` as `nobody` when the tests
    /// run as root (who ignores file permissions), else as the current user. When it switches
    /// user it opens the sandbox to that user: folders traversable, `home`, `xdg` and `cache`
    /// writable. The binary is run through a link in the sandbox, since the build folder may not
    /// be reachable by that user (a checkout in a private temp folder).
    pub fn unprivileged(&self, args: &[&str]) -> Command {
        let c = self.command(args);
        if !running_as_root() {
            return c;
        }
        open_to_others(self.dir.path());
        let bin = self.dir.path().join("pitree-bin");
        if !bin.exists() && std::fs::hard_link(c.get_program(), &bin).is_err() {
            std::fs::copy(c.get_program(), &bin).unwrap();
        }
        let mut wrapped = Command::new("setpriv");
        wrapped.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]);
        wrapped.arg(&bin).args(c.get_args());
        for (key, value) in c.get_envs() {
            match value {
                Some(v) => wrapped.env(key, v),
                None => wrapped.env_remove(key),
            };
        }
        wrapped
    }
}

/// Whether the tests run as root.
pub fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn open_to_others(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    for sub in ["home", "xdg", "cache"] {
        let p = dir.join(sub);
        if p.is_dir() {
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o777)).unwrap();
        }
    }
}

/// Run `cmd` with stdout to /dev/null; returns its wall time and peak RSS in KB (from `wait4`).
/// Fails the test if it exits unsuccessfully. `RUST_BACKTRACE` is removed: with it, every error
/// value pitree creates captures and symbolizes a backtrace, which maps the binary's debug info
/// (over 150 MB for the debug build) and would be measured instead of pitree's own memory.
pub fn peak_rss_kb(mut cmd: Command) -> (std::time::Duration, u64) {
    let start = std::time::Instant::now();
    cmd.env_remove("RUST_BACKTRACE").env_remove("RUST_LIB_BACKTRACE");
    let mut child = cmd.stdout(std::process::Stdio::null()).spawn().unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our own child; status and usage point to live locals.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    assert!(child.try_wait().is_err(), "reaped by wait4 above");
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "{cmd:?} failed: {status}");
    (start.elapsed(), usage.ru_maxrss as u64)
}
