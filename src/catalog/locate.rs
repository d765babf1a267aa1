//! Where the sessions are: the sessions root as pi resolves it, the session files under it for a
//! scope, and whether a session's `cwd` is the current folder.
//!
//! Layout (pi-reference §1.1, §1.14): `<root>/--<encoded cwd>--/<ts>_<id>.jsonl`. pi's `listAll()`
//! reads only the immediate subfolders of `<agent dir>/sessions`; a root given with
//! `--session-dir` or `PI_CODING_AGENT_SESSION_DIR` may also be flat, so there the files directly
//! in the root are listed too. Only `*.jsonl` names count. Symlinked folders are followed, each
//! folder once (by device and inode), and a file reached twice is listed once. Folders and files
//! that cannot be read are reported as warnings, never as errors. pitree's own cache folder is
//! found here too.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::fs::{self, Metadata};
use std::path::{Component, Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use color_eyre::eyre::{Result, eyre};
use rayon::prelude::*;

use super::hash::{FastMap, FastSet};

/// A folder or file that could not be read; listing goes on without it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub path: PathBuf,
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// pitree's cache folder: `PITREE_CACHE_DIR`, else `<platform cache dir>/pitree` (on Linux
/// `$XDG_CACHE_HOME/pitree` or `~/.cache/pitree`).
pub fn default_cache_dir(env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    match env("PITREE_CACHE_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir)),
        None => dirs::cache_dir().map(|d| d.join("pitree")),
    }
}

/// Where the sessions root came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootSource {
    /// `--session-dir DIR`.
    Flag,
    /// `PI_CODING_AGENT_SESSION_DIR`.
    Env,
    /// `<agent dir>/sessions`, the agent dir being `PI_CODING_AGENT_DIR` or `~/.pi/agent`.
    AgentDir,
}

/// The folder that holds the sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionsRoot {
    /// Absolute (not canonicalized) path.
    pub path: PathBuf,
    pub source: RootSource,
}

impl SessionsRoot {
    pub fn new(path: impl Into<PathBuf>, source: RootSource) -> SessionsRoot {
        SessionsRoot { path: lexical_absolute(&path.into()), source }
    }

    /// Whether files directly in the root are sessions (a flat folder), as well as the files of its
    /// subfolders. pi's global listing ignores them in `<agent dir>/sessions`.
    pub fn lists_flat_files(&self) -> bool {
        self.source != RootSource::AgentDir
    }

    /// The folder pi would create for sessions started in `cwd`.
    pub fn default_dir(&self, cwd: &str) -> PathBuf {
        self.path.join(encode_cwd(cwd))
    }
}

/// The sessions root as pi resolves it: `--session-dir` > `PI_CODING_AGENT_SESSION_DIR` >
/// `<agent dir>/sessions` (agent dir = `PI_CODING_AGENT_DIR`, else `~/.pi/agent`). `~` and `~/…`
/// are expanded (with `HOME`, else the platform's home folder); empty variables count as unset.
pub fn sessions_root(flag: Option<&Path>, env: &dyn Fn(&str) -> Option<OsString>) -> Result<SessionsRoot> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    let home = || {
        set("HOME")
            .map(PathBuf::from)
            .or_else(dirs::home_dir)
            .ok_or_else(|| eyre!("cannot find the home folder: set HOME or use --session-dir"))
    };
    let expand = |p: &Path| -> Result<PathBuf> {
        let text = p.as_os_str().as_encoded_bytes();
        if text == b"~" {
            home()
        } else if let Some(rest) = text.strip_prefix(b"~/") {
            Ok(home()?.join(OsString::from(String::from_utf8_lossy(rest).into_owned())))
        } else {
            Ok(p.to_path_buf())
        }
    };
    if let Some(dir) = flag.filter(|d| !d.as_os_str().is_empty()) {
        return Ok(SessionsRoot::new(expand(dir)?, RootSource::Flag));
    }
    if let Some(dir) = set("PI_CODING_AGENT_SESSION_DIR") {
        return Ok(SessionsRoot::new(expand(Path::new(&dir))?, RootSource::Env));
    }
    let agent = match set("PI_CODING_AGENT_DIR") {
        Some(dir) => expand(Path::new(&dir))?,
        None => home()?.join(".pi").join("agent"),
    };
    Ok(SessionsRoot::new(agent.join("sessions"), RootSource::AgentDir))
}

/// pi's folder name for a cwd: one leading `/` or `\` dropped, every `/`, `\` and `:` made `-`,
/// wrapped in `--…--`.
pub fn encode_cwd(cwd: &str) -> String {
    let rest = cwd.strip_prefix('/').or_else(|| cwd.strip_prefix('\\')).unwrap_or(cwd);
    let body: String = rest.chars().map(|c| if matches!(c, '/' | '\\' | ':') { '-' } else { c }).collect();
    format!("--{body}--")
}

/// Which sessions to list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every session under the root.
    All,
    /// Sessions whose header `cwd` is this folder (compared as resolved paths). The files looked
    /// at are those of the folder's default session folder (by its plain and its canonical path)
    /// and, in a flat root, the files directly in the root.
    CurrentFolder(PathBuf),
}

/// The identity and change key of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FileMeta {
    pub len: u64,
    /// Modification time in nanoseconds since the epoch.
    pub mtime_ns: i64,
    pub dev: u64,
    pub ino: u64,
}

impl FileMeta {
    pub fn of(meta: &Metadata) -> FileMeta {
        let mtime_ns = meta.modified().map_or(0, time_ns);
        let (dev, ino) = dev_ino(meta);
        FileMeta { len: meta.len(), mtime_ns, dev, ino }
    }

    /// The modification time in whole milliseconds as pi shows it when a session has no other
    /// time: Node's `stats.mtime`, [`js_mtime_ms`] through `Math.round` (halves up).
    pub fn mtime_ms(&self) -> i64 {
        let ms = js_mtime_ms(self.mtime_ns);
        let whole = ms.floor();
        (if ms - whole >= 0.5 { whole + 1.0 } else { whole }) as i64
    }
}

/// Node's `stats.mtimeMs` of a modification time in nanoseconds since the epoch: seconds × 1000
/// plus nanoseconds / 10⁶, in doubles (so times less than ~250 ns apart can be equal, and a
/// time just under half a millisecond can round up).
pub fn js_mtime_ms(mtime_ns: i64) -> f64 {
    let (secs, nanos) = (mtime_ns.div_euclid(1_000_000_000), mtime_ns.rem_euclid(1_000_000_000));
    secs as f64 * 1e3 + nanos as f64 / 1e6
}

#[cfg(unix)]
fn dev_ino(meta: &Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn dev_ino(_: &Metadata) -> (u64, u64) {
    (0, 0)
}

/// A session file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub path: PathBuf,
    pub meta: FileMeta,
}

/// The files of a scope.
#[derive(Debug, Default)]
pub struct Listing {
    /// Newest mtime first.
    pub files: Vec<Candidate>,
    /// The folders whose files were listed (a file in one of them that is not in `files` is gone).
    pub dirs: Vec<PathBuf>,
    pub warnings: Vec<Warning>,
}

/// List the session files of `scope`. A missing root lists nothing, without a warning.
pub fn list_files(root: &SessionsRoot, scope: &Scope) -> Listing {
    let mut walk = Walk::default();
    let root_meta = match fs::metadata(&root.path) {
        Ok(m) if m.is_dir() => m,
        Ok(_) => {
            walk.warn(&root.path, "the sessions root is not a folder".into());
            return walk.listing;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return walk.listing,
        Err(e) => {
            walk.warn(&root.path, format!("cannot read the sessions root: {e}"));
            return walk.listing;
        }
    };
    walk.visited.insert(dev_ino(&root_meta));
    match scope {
        Scope::All => walk.root(root, true),
        Scope::CurrentFolder(cwd) => {
            if root.lists_flat_files() {
                walk.root(root, false);
            }
            for key in path_keys(cwd) {
                let dir = root.default_dir(&key.to_string_lossy());
                if let Ok(meta) = fs::metadata(&dir) {
                    walk.folder(dir, &meta);
                }
            }
        }
    }
    walk.read_folders();
    let mut listing = walk.listing;
    listing.files.sort_by(|a, b| {
        b.meta.mtime_ns.cmp(&a.meta.mtime_ns).then_with(|| b.path.as_os_str().cmp(a.path.as_os_str()))
    });
    listing
}

#[derive(Default)]
struct Walk {
    listing: Listing,
    visited: HashSet<(u64, u64)>,
    files_seen: HashSet<(u64, u64)>,
    /// Folders whose `.jsonl` files are still to list.
    pending: Vec<PathBuf>,
}

impl Walk {
    fn warn(&mut self, path: &Path, message: String) {
        self.listing.warnings.push(Warning { path: path.to_path_buf(), message });
    }

    /// The root's own files (in a flat root) and, with `subfolders`, its subfolders.
    fn root(&mut self, root: &SessionsRoot, subfolders: bool) {
        let flat = root.lists_flat_files();
        if flat {
            self.listing.dirs.push(root.path.clone());
        }
        let (entries, warnings) = read_dir(&root.path, |_| true);
        self.listing.warnings.extend(warnings);
        for (path, meta) in entries {
            match meta {
                Ok(m) if m.is_dir() && subfolders => self.folder(path, &m),
                Ok(m) if m.is_file() && flat && is_jsonl(&path) => self.file(path, &m),
                Ok(_) => {}
                Err(e) => self.warn(&path, format!("cannot read: {e}")),
            }
        }
    }

    /// Queue a folder, once per device and inode (a symlink loop ends here).
    fn folder(&mut self, dir: PathBuf, meta: &Metadata) {
        if meta.is_dir() && self.visited.insert(dev_ino(meta)) {
            self.listing.dirs.push(dir.clone());
            self.pending.push(dir);
        }
    }

    /// List the queued folders in parallel.
    fn read_folders(&mut self) {
        let read: Vec<_> = std::mem::take(&mut self.pending)
            .par_iter()
            .map(|dir| read_dir(dir, |name| name.as_encoded_bytes().ends_with(b".jsonl")))
            .collect();
        for (entries, warnings) in read {
            self.listing.warnings.extend(warnings);
            for (path, meta) in entries {
                match meta {
                    Ok(m) if m.is_file() => self.file(path, &m),
                    Ok(_) => {}
                    Err(e) => self.warn(&path, format!("cannot read: {e}")),
                }
            }
        }
    }

    fn file(&mut self, path: PathBuf, meta: &Metadata) {
        let fm = FileMeta::of(meta);
        if (fm.dev, fm.ino) != (0, 0) && !self.files_seen.insert((fm.dev, fm.ino)) {
            return;
        }
        self.listing.files.push(Candidate { path, meta: fm });
    }
}

type DirEntries = Vec<(PathBuf, std::io::Result<Metadata>)>;

/// The entries of `dir` whose name `wanted` accepts, with their metadata (symlinks followed); real
/// entries before symlinks, then by name, so that a file or folder reached twice keeps its own
/// path and every listing is in the same order.
fn read_dir(dir: &Path, wanted: impl Fn(&std::ffi::OsStr) -> bool) -> (DirEntries, Vec<Warning>) {
    let warn = |e: std::io::Error| Warning {
        path: dir.to_path_buf(),
        message: format!("cannot list the folder: {e}"),
    };
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => return (Vec::new(), vec![warn(e)]),
    };
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) if wanted(&entry.file_name()) => {
                let path = entry.path();
                let link = entry.file_type().is_ok_and(|t| t.is_symlink());
                let meta = if link { fs::metadata(&path) } else { entry.metadata() };
                out.push((link, path, meta));
            }
            Ok(_) => {}
            Err(e) => warnings.push(warn(e)),
        }
    }
    out.sort_by(|a, b| (a.0, a.1.as_os_str()).cmp(&(b.0, b.1.as_os_str())));
    (out.into_iter().map(|(_, path, meta)| (path, meta)).collect(), warnings)
}

fn is_jsonl(path: &Path) -> bool {
    path.as_os_str().as_encoded_bytes().ends_with(b".jsonl")
}

/// Decides whether a session's header `cwd` is the current folder: both are compared as absolute
/// paths with `.` and `..` resolved, and by their canonical path when they exist, so a symlinked
/// folder matches its target. An empty `cwd` never matches (as in pi).
#[derive(Debug)]
pub struct CwdMatcher {
    wanted: Vec<PathBuf>,
    memo: HashMap<String, bool>,
}

impl CwdMatcher {
    pub fn new(current: &Path) -> CwdMatcher {
        CwdMatcher { wanted: path_keys(current), memo: HashMap::new() }
    }

    pub fn matches(&mut self, cwd: &str) -> bool {
        if cwd.is_empty() {
            return false;
        }
        if let Some(m) = self.memo.get(cwd) {
            return *m;
        }
        let m = path_keys(Path::new(cwd)).iter().any(|k| self.wanted.contains(k));
        self.memo.insert(cwd.to_string(), m);
        m
    }
}

/// A path's absolute form and, when it exists, its canonical form.
fn path_keys(path: &Path) -> Vec<PathBuf> {
    let plain = lexical_absolute(path);
    let mut keys = vec![plain.clone()];
    if let Ok(real) = fs::canonicalize(&plain)
        && real != plain
    {
        keys.push(real);
    }
    keys
}

/// `path` made absolute against the current folder, with `.` and `..` resolved textually (like
/// Node's `path.resolve`).
pub fn lexical_absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map(|d| d.join(path)).unwrap_or_else(|_| path.to_path_buf())
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `time` in nanoseconds since the epoch (negative before it), as [`FileMeta`] keeps mtimes.
pub fn time_ns(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos().min(i64::MAX as u128) as i64,
        Err(e) => -(e.duration().as_nanos().min(i64::MAX as u128) as i64),
    }
}

/// The time [`time_ns`] gives `ns` for.
pub fn system_time(ns: i64) -> SystemTime {
    let d = std::time::Duration::from_nanos(ns.unsigned_abs());
    if ns >= 0 { UNIX_EPOCH + d } else { UNIX_EPOCH - d }
}

/// The canonical path when it resolves, else [`lexical_absolute`]: the key sessions are linked to
/// their parent by (pi 1.6.0 compares real paths).
pub fn canonical_key(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| lexical_absolute(path))
}

/// [`canonical_key`] for many paths in a few folders, with each folder resolved and listed once
/// (for a `readlink` per folder instead of one per part of every path): a file that is not a
/// symlink resolves to its folder's canonical path joined with its name, which is what resolving
/// it whole gives. Anything else (a symlink, a file not listed, a path not ending in a plain name)
/// is resolved whole.
#[derive(Default)]
pub struct RealPaths(FastMap<OsString, Option<Folder>>);

struct Folder {
    canonical: PathBuf,
    /// The names of the entries that are not symlinks.
    plain: FastSet<OsString>,
}

impl RealPaths {
    /// The folders of `paths` resolved and listed.
    pub fn of<'a>(paths: impl Iterator<Item = &'a Path>) -> RealPaths {
        let mut folders = RealPaths::default();
        folders.add(paths);
        folders
    }

    /// Resolve and list the folders of `paths` not seen yet. A file made in one after it was listed
    /// is resolved whole.
    pub fn add<'a>(&mut self, paths: impl Iterator<Item = &'a Path>) {
        let wanted: FastSet<&OsStr> = paths
            .filter_map(|p| split(p).map(|(folder, _)| folder))
            .filter(|folder| !self.0.contains_key(*folder))
            .collect();
        let wanted: Vec<&OsStr> = wanted.into_iter().collect();
        let read = |folder: &OsStr| (folder.to_owned(), Folder::read(Path::new(folder)));
        match wanted.len() {
            0 | 1 => self.0.extend(wanted.into_iter().map(read)),
            _ => self.0.extend(wanted.into_par_iter().map(read).collect::<Vec<_>>()),
        }
    }

    /// `canonical_key(path)`.
    pub fn key(&self, path: &Path) -> PathBuf {
        let by_folder = split(path).and_then(|(folder, name)| {
            let folder = self.0.get(folder)?.as_ref()?;
            folder.plain.contains(name).then(|| folder.canonical.join(name))
        });
        by_folder.unwrap_or_else(|| canonical_key(path))
    }
}

impl Folder {
    fn read(folder: &Path) -> Option<Folder> {
        let canonical = std::fs::canonicalize(folder).ok()?;
        let plain = std::fs::read_dir(folder)
            .ok()?
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| !t.is_symlink()))
            .map(|e| e.file_name())
            .collect();
        Some(Folder { canonical, plain })
    }
}

/// A path's folder and its last component, when the path is `<folder>/<name>` with a plain name
/// (not `.` or `..`, no separator after it).
#[cfg(unix)]
fn split(path: &Path) -> Option<(&OsStr, &OsStr)> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let slash = memchr::memrchr(b'/', bytes)?;
    let name = &bytes[slash + 1..];
    if name.is_empty() || name == b"." || name == b".." {
        return None;
    }
    let folder = if slash == 0 { &bytes[..1] } else { &bytes[..slash] };
    Some((OsStr::from_bytes(folder), OsStr::from_bytes(name)))
}

#[cfg(not(unix))]
fn split(_: &Path) -> Option<(&OsStr, &OsStr)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_paths_by_folder_are_the_paths_resolved_whole() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("real/sub")).unwrap();
        fs::write(root.join("real/a.jsonl"), "").unwrap();
        fs::write(root.join("real/sub/b.jsonl"), "").unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("linked")).unwrap();
        std::os::unix::fs::symlink(root.join("real/sub/b.jsonl"), root.join("real/to-b.jsonl")).unwrap();
        std::os::unix::fs::symlink(root.join("nowhere.jsonl"), root.join("real/dangling.jsonl")).unwrap();
        let paths: Vec<PathBuf> = [
            "real/a.jsonl",
            "linked/a.jsonl",
            "linked/sub/../a.jsonl",
            "linked/./sub/b.jsonl",
            "real/to-b.jsonl",
            "linked/to-b.jsonl",
            "real/dangling.jsonl",
            "real/missing.jsonl",
            "gone/missing.jsonl",
            "real/a.jsonl/",
            "real/sub/..",
            "real/./a.jsonl",
            "real/../real/a.jsonl",
            "real//a.jsonl",
            "real/a.jsonl/.",
            "linked/.",
        ]
        .iter()
        .map(|p| root.join(p))
        .chain([
            PathBuf::from("a.jsonl"),
            PathBuf::from("/"),
            PathBuf::new(),
            PathBuf::from("relative/x.jsonl"),
        ])
        .collect();
        let real = RealPaths::of(paths.iter().map(PathBuf::as_path));
        for path in &paths {
            assert_eq!(real.key(path), canonical_key(path), "{}", path.display());
        }
        assert_eq!(real.key(&root.join("linked/a.jsonl")), real.key(&root.join("real/a.jsonl")));
    }

    fn env_of(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| vars.iter().find(|(name, _)| name == k).map(|(_, v)| OsString::from(v))
    }

    #[test]
    fn the_mtime_is_rounded_to_the_millisecond_as_node_rounds_it() {
        let ms = |mtime_ns| FileMeta { len: 0, mtime_ns, dev: 0, ino: 0 }.mtime_ms();
        assert_eq!(ms(1_704_164_645_678_900_000), 1_704_164_645_679);
        assert_eq!(ms(1_704_164_645_678_500_000), 1_704_164_645_679);
        // In doubles 1704164645678.499999 is 1704164645678.5 (what Node's `stat` gives for it).
        assert_eq!(ms(1_704_164_645_678_499_999), 1_704_164_645_679);
        assert_eq!(ms(1_704_164_645_678_499_000), 1_704_164_645_678);
        assert_eq!(ms(1_000_499_999), 1_000);
        assert_eq!(ms(-500_000), 0);
        assert_eq!(ms(-500_001), -1);
    }

    #[test]
    fn root_precedence() {
        let env = env_of(&[
            ("HOME", "/h"),
            ("PI_CODING_AGENT_SESSION_DIR", "/env/s"),
            ("PI_CODING_AGENT_DIR", "/agent"),
        ]);
        let flag = sessions_root(Some(Path::new("~/flag")), &env).unwrap();
        assert_eq!(flag, SessionsRoot::new("/h/flag", RootSource::Flag));
        let from_env = sessions_root(None, &env).unwrap();
        assert_eq!(from_env, SessionsRoot::new("/env/s", RootSource::Env));
        let env =
            env_of(&[("HOME", "/h"), ("PI_CODING_AGENT_SESSION_DIR", ""), ("PI_CODING_AGENT_DIR", "~")]);
        let agent = sessions_root(None, &env).unwrap();
        assert_eq!(agent, SessionsRoot::new("/h/sessions", RootSource::AgentDir));
        let default = sessions_root(None, &env_of(&[("HOME", "/h")])).unwrap();
        assert_eq!(default.path, Path::new("/h/.pi/agent/sessions"));
        assert!(!default.lists_flat_files());
    }

    #[test]
    fn cwd_encoding() {
        assert_eq!(encode_cwd("/home/u/proj"), "--home-u-proj--");
        assert_eq!(encode_cwd("C:\\Users\\me\\p"), "--C--Users-me-p--");
        assert_eq!(encode_cwd("/home/u/my.proj"), "--home-u-my.proj--");
        assert_eq!(encode_cwd("/srv/c:odd dir"), "--srv-c-odd dir--");
        assert_eq!(encode_cwd("/a-b"), encode_cwd("/a/b"));
    }

    #[test]
    fn lexical_paths() {
        assert_eq!(lexical_absolute(Path::new("/a/./b/../c/")), Path::new("/a/c"));
    }

    #[test]
    fn cwd_matching_uses_resolved_paths() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut m = CwdMatcher::new(&link);
        assert!(m.matches(&real.to_string_lossy()));
        assert!(m.matches(&format!("{}/", link.display())));
        assert!(m.matches(&format!("{}/x/..", real.display())));
        assert!(!m.matches(""));
        assert!(!m.matches(&dir.path().to_string_lossy()));
    }
}
