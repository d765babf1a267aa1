//! Is a running pi holding this session? On Linux, pitree looks through `/proc` for pi processes
//! (a command line naming `pi` or the `pi-coding-agent` package) and takes the session files they
//! have open (`/proc/<pid>/fd`) or name after `--session`. pi opens the file only for each append,
//! so the second check is the one that usually finds it. Other readers (another pitree, an
//! editor, `grep`) do not count. Elsewhere nothing is detected.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Session files that running processes hold, with the holder's pid.
#[derive(Debug, Default, Clone)]
pub struct LiveSet {
    by_path: HashMap<PathBuf, u32>,
}

impl LiveSet {
    /// The pid of a process holding `path`, if any.
    pub fn holder(&self, path: &Path) -> Option<u32> {
        let canonical = path.canonicalize().ok()?;
        self.by_path.get(&canonical).copied()
    }

    pub fn contains(&self, path: &Path) -> bool {
        self.holder(path).is_some()
    }

    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }
}

/// Scan `/proc` once.
pub fn scan() -> LiveSet {
    scan_proc(Path::new("/proc"), std::process::id())
}

/// Scan a `/proc`-shaped folder, ignoring our own process.
pub fn scan_proc(proc_root: &Path, own_pid: u32) -> LiveSet {
    let mut set = LiveSet::default();
    let Ok(dir) = std::fs::read_dir(proc_root) else {
        return set;
    };
    for pid_dir in dir.flatten() {
        let Some(pid) = pid_dir.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if pid == own_pid {
            continue;
        }
        for file in held_files(&pid_dir.path()) {
            set.by_path.entry(file).or_insert(pid);
        }
    }
    set
}

/// The `.jsonl` files a pi process has open or names after `--session` in its command line.
fn held_files(pid_dir: &Path) -> Vec<PathBuf> {
    let Ok(cmdline) = std::fs::read(pid_dir.join("cmdline")) else {
        return Vec::new();
    };
    let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
    if !args.iter().take(3).any(|a| looks_like_pi(a)) {
        return Vec::new();
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(pid_dir.join("fd"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    if let Some(named) = session_argument(pid_dir, &args) {
        files.push(named);
    }
    files
}

/// `pi … --session <file>`: the file, resolved against the process's cwd.
fn session_argument(pid_dir: &Path, args: &[&[u8]]) -> Option<PathBuf> {
    let value = args.windows(2).find(|w| w[0] == b"--session").map(|w| w[1])?;
    let value = PathBuf::from(String::from_utf8_lossy(value).into_owned());
    let full =
        if value.is_absolute() { value } else { std::fs::read_link(pid_dir.join("cwd")).ok()?.join(value) };
    full.canonicalize().ok()
}

fn looks_like_pi(arg: &[u8]) -> bool {
    let name = arg.rsplit(|b| *b == b'/').next().unwrap_or(arg);
    name == b"pi" || name.starts_with(b"pi-coding-agent") || arg.windows(15).any(|w| w == b"pi-coding-agent")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_pi_process_by_its_session_argument_and_open_fds() {
        let root = tempfile::tempdir().unwrap();
        let session = root.path().join("s.jsonl");
        std::fs::write(&session, "{}\n").unwrap();
        let other = root.path().join("o.jsonl");
        std::fs::write(&other, "{}\n").unwrap();
        let p1 = root.path().join("proc/100");
        std::fs::create_dir_all(p1.join("fd")).unwrap();
        std::fs::write(
            p1.join("cmdline"),
            b"node\0/usr/lib/node_modules/pi-coding-agent/dist/cli.js\0--session\0s.jsonl\0",
        )
        .unwrap();
        std::os::unix::fs::symlink(root.path(), p1.join("cwd")).unwrap();
        let p2 = root.path().join("proc/200");
        std::fs::create_dir_all(p2.join("fd")).unwrap();
        std::fs::write(p2.join("cmdline"), b"pi\0").unwrap();
        std::os::unix::fs::symlink(other.canonicalize().unwrap(), p2.join("fd/3")).unwrap();
        let reader = root.path().join("proc/300");
        std::fs::create_dir_all(reader.join("fd")).unwrap();
        std::fs::write(reader.join("cmdline"), b"grep\0x\0").unwrap();
        std::os::unix::fs::symlink(session.canonicalize().unwrap(), reader.join("fd/4")).unwrap();
        let set = scan_proc(&root.path().join("proc"), 1);
        assert_eq!(set.holder(&session), Some(100));
        assert_eq!(set.holder(&other), Some(200));
        assert!(!set.contains(&root.path().join("nope.jsonl")));
    }

    #[test]
    fn ignores_non_pi_command_lines() {
        let root = tempfile::tempdir().unwrap();
        let p = root.path().join("proc/7");
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(p.join("cmdline"), b"vim\0--session\0/etc/passwd\0").unwrap();
        assert!(scan_proc(&root.path().join("proc"), 1).is_empty());
    }
}
