//! The parsed-session cache: what reading a big session gave (its outline, or the whole parse),
//! kept in pitree's cache folder beside the catalog's index, so that the next `pitree FILE`,
//! `pitree show` or `pitree context` of the same session reads only what was appended since.
//!
//! **Where.** `<cache folder>/sessions/<hash of the session's real path>.bin`, one file per
//! session file of at least `min_len` bytes (a smaller one is parsed in a few
//! milliseconds), all of them together at most `budget` bytes: after a write, the
//! least recently used files go first. Deleting any of them, or the folder, is always safe.
//!
//! **When a cache file is used** ([`SessionCache::get`]), with the same rules as the catalog's
//! index: its header and every segment must check (magic, format, hashes), name the same real
//! path, and hold at least the level asked for; then the session file is stated, and
//! - same device, inode, length and mtime, and the first 4 KiB and the 4 KiB before the end of
//!   what was read hash as they did → the cached parse is the file's;
//! - same device and inode, longer, the same two hashes → the cached parse plus the lines
//!   appended since, read by [`crate::session::parse::parse_appended`] (which also checks the
//!   first line and the newline where the read ended, and reads legacy or torn files whole);
//! - anything else (replaced, rewritten, shrunk, a hash that differs) → not used: the caller reads
//!   the file, and stores the new parse over the old one.
//!
//! A cache file is written only from a read during which the file did not change (stated before
//! and after), atomically (a temp file renamed over the old), so two pitree processes at once
//! each see a whole file, the old one or the new. A rewrite in the middle of a session that keeps
//! its size, mtime, first 4 KiB and last 4 KiB is not seen, as in the index (pi only appends).

pub mod codec;
mod file;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use file::Key;
pub use file::Level;

use super::cache_file::{create_private_dir, is_temp};
use super::hash::hash64;
use super::index::Fingerprint;
use super::locate::{FileMeta, canonical_key, default_cache_dir, system_time};
use crate::session::ids::IdIndex;
use crate::session::parse::{ParseError, ParsedFile};

/// The default of `budget`; `PITREE_SESSION_CACHE_MB` sets another (0 turns the
/// cache off).
pub const DEFAULT_BUDGET: u64 = 1 << 30;
/// The default of `min_len`.
pub const DEFAULT_MIN_LEN: u64 = 8 << 20;
/// A temp file left by a writer that stopped is removed once it is this old.
const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(3600);

/// The cache folder of parsed sessions, with its limits.
#[derive(Debug, Clone)]
pub struct SessionCache {
    dir: PathBuf,
    budget: u64,
    min_len: u64,
}

/// A session read through the cache, and how much of its file that took.
#[derive(Debug)]
pub struct Cached {
    pub file: ParsedFile,
    pub level: Level,
    /// Bytes of the session file read after the cached part (0: none).
    pub appended: u64,
    /// Message bodies were stepped over ([`SessionCache::skeleton`]): never to be kept.
    pub skeleton: bool,
}

impl SessionCache {
    /// The cache in `cache_dir/sessions`, with the default limits.
    pub fn new(cache_dir: &Path) -> SessionCache {
        SessionCache { dir: cache_dir.join("sessions"), budget: DEFAULT_BUDGET, min_len: DEFAULT_MIN_LEN }
    }

    /// The cache in pitree's cache folder ([`default_cache_dir`]), its budget from
    /// `PITREE_SESSION_CACHE_MB`; `None` when there is no cache folder or the budget is 0.
    pub fn from_env(env: &dyn Fn(&str) -> Option<OsString>) -> Option<SessionCache> {
        let cache = SessionCache::new(&default_cache_dir(env)?);
        let budget = match env("PITREE_SESSION_CACHE_MB").and_then(|v| v.to_str()?.trim().parse::<u64>().ok())
        {
            Some(mb) => mb.saturating_mul(1 << 20),
            None => DEFAULT_BUDGET,
        };
        (budget > 0).then(|| cache.with_budget(budget))
    }

    /// At most `bytes` of cache files in all.
    pub fn with_budget(self, bytes: u64) -> SessionCache {
        SessionCache { budget: bytes, ..self }
    }

    /// Only session files of at least `bytes` are cached.
    pub fn with_min_len(self, bytes: u64) -> SessionCache {
        SessionCache { min_len: bytes, ..self }
    }

    /// Whether a session file of `len` bytes is cached at all.
    pub fn takes(&self, len: u64) -> bool {
        len >= self.min_len && self.budget > 0
    }

    /// The session at `path` from its cache file, brought up to date with what was appended to
    /// it; `None` when there is no cache file of at least `level` that is right for the file as
    /// it is now (see the module docs).
    pub fn get(&self, path: &Path, level: Level) -> Option<Cached> {
        self.get_read(path, level, false)
    }

    /// [`SessionCache::get`] of any level with the body of every message entry stepped over
    /// (`Kind::Unknown` with an empty type name, see [`codec::Reader::skeleton`]): the graph of
    /// the session, for a caller that reads whole from the session file the few entries it needs
    /// ([`crate::session::Session::fill`]). Lines appended since are read whole. A cache file far
    /// behind (to be kept again) is decoded whole instead, as [`Cached::skeleton`] says. Not for
    /// a legacy file, whose entries are not its lines as they read.
    pub fn skeleton(&self, path: &Path) -> Option<Cached> {
        self.get_read(path, Level::Outline, true)
    }

    fn get_read(&self, path: &Path, level: Level, skeleton: bool) -> Option<Cached> {
        let (session_file, metadata) = crate::session::content::open_regular_with_meta(path).ok()?;
        let meta = FileMeta::of(&metadata);
        if !self.takes(meta.len) {
            return None;
        }
        let real = canonical_key(path);
        let opened = file::open(&self.file_for(&real))?;
        let key = &opened.key;
        let enough = key.level == Level::Whole || level == Level::Outline;
        let same_file = (key.meta.dev, key.meta.ino) == (meta.dev, meta.ino) && key.path == real;
        if !enough || !same_file || meta.len < key.meta.len {
            return None;
        }
        match Fingerprint::of_file(&session_file, key.meta.len) {
            Ok((fingerprint, _)) if fingerprint == key.fingerprint => {}
            _ => return None,
        }
        let appended = meta.len - key.meta.len;
        let skeleton = skeleton && !is_behind(appended, meta.len);
        let (parts, entries) = opened.read(skeleton, crate::session::parse::entries_room(appended))?;
        opened.touch();
        if parts.leaf.is_some_and(|leaf| leaf as usize >= entries.len()) {
            return None;
        }
        let unchanged = meta == key.meta;
        let ids =
            if unchanged { IdIndex::new(entries.iter().map(|e| e.id.as_str())) } else { IdIndex::default() };
        let cached = ParsedFile {
            path: path.to_path_buf(),
            header: parts.header,
            entries,
            damage: parts.damage,
            facts: parts.facts,
            leaf: parts.leaf,
            ids,
            modified: Some(system_time(key.meta.mtime_ns)),
        };
        let file =
            if unchanged { cached } else { crate::session::parse::parse_appended_to(cached).ok()?? };
        Some(Cached { file, level: key.level, appended, skeleton })
    }

    /// Keep `file`, read at `level`, as the cache file of its session when the session file is
    /// still as it was read (its length is what was read, and it has not been modified since);
    /// then drop the least recently used cache files over the budget. Returns whether it was
    /// kept. Errors are for the caller to ignore: a cache that cannot be written is no cache.
    pub fn put(&self, file: &ParsedFile, level: Level) -> std::io::Result<bool> {
        let (session_file, metadata) = crate::session::content::open_regular_with_meta(&file.path)?;
        let meta = FileMeta::of(&metadata);
        if !file.unchanged_as(&metadata) || !self.takes(meta.len) {
            return Ok(false);
        }
        let (fingerprint, _) = Fingerprint::of_file(&session_file, meta.len)?;
        let real = canonical_key(&file.path);
        let key = Key { level, meta, fingerprint, path: real.clone() };
        create_private_dir(&self.dir)?;
        let path = self.file_for(&real);
        file::write(&path, &key, file)?;
        self.evict()?;
        Ok(path.exists())
    }

    fn file_for(&self, real_path: &Path) -> PathBuf {
        let key = hash64(real_path.as_os_str().as_encoded_bytes(), 0);
        self.dir.join(format!("{key:016x}.bin"))
    }

    /// Remove the least recently used cache files until they take at most the budget (the one
    /// just written too, if it alone is over it), and temp files of writers that stopped.
    fn evict(&self) -> std::io::Result<()> {
        let now = std::time::SystemTime::now();
        let mut files = Vec::new();
        for item in fs::read_dir(&self.dir)? {
            let item = item?;
            let Ok(meta) = item.metadata() else { continue };
            let used = meta.modified().unwrap_or(now);
            if is_temp(&item.file_name()) {
                if now.duration_since(used).is_ok_and(|age| age > STALE_TEMP) {
                    let _ = fs::remove_file(item.path());
                }
            } else if meta.is_file() {
                files.push((used, meta.len(), item.path()));
            }
        }
        let mut total: u64 = files.iter().map(|f| f.1).sum();
        files.sort();
        for (_, len, path) in files {
            if total <= self.budget {
                break;
            }
            if fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
        Ok(())
    }
}

impl Cached {
    /// So much was appended since the cache file was written (over an eighth of what it holds)
    /// that it should be written again.
    pub fn is_behind(&self) -> bool {
        is_behind(self.appended, self.file.facts.len)
    }
}

/// Whether `appended` bytes of a session file of `len` are over an eighth of it.
fn is_behind(appended: u64, len: u64) -> bool {
    appended > len / 8
}

/// A session file read through the cache.
pub struct Read {
    pub file: ParsedFile,
    /// The parse is new (or its cache file is far behind): it should be kept with
    /// [`SessionCache::put`] at this level.
    pub keep: Option<Level>,
    /// Message bodies were stepped over ([`SessionCache::skeleton`]): an entry used needs
    /// [`crate::session::Session::fill`] first.
    pub skeleton: bool,
}

impl From<Cached> for Read {
    /// A read from the cache, kept again only when it is far behind the file (and whole).
    fn from(cached: Cached) -> Read {
        let keep = (!cached.skeleton && cached.is_behind()).then_some(cached.level);
        Read { keep, skeleton: cached.skeleton, file: cached.file }
    }
}

/// Read the session at `path` at `level` through `cache`: from its cache file when that is right
/// (a cached whole parse serves an outline too), else from the file ([`Level::reader`]). A cache
/// that cannot be read changes nothing but the time it takes.
pub fn read(cache: Option<&SessionCache>, path: &Path, level: Level) -> Result<Read, ParseError> {
    match cache.and_then(|c| c.get(path, level)) {
        Some(cached) => Ok(Read::from(cached)),
        None => read_fresh(cache, path, level),
    }
}

/// Read the session at `path` at `level` from the file, without asking `cache` (a caller that
/// asked it already), to be kept there when the cache takes a file of its size.
pub fn read_fresh(cache: Option<&SessionCache>, path: &Path, level: Level) -> Result<Read, ParseError> {
    let fresh = level.reader()(path)?;
    let keep = cache.is_some_and(|c| c.takes(fresh.facts.len)).then_some(level);
    Ok(Read { keep, skeleton: false, file: fresh })
}

/// Read the session at `path` for a caller that needs only its graph and then reads whole the
/// entries it uses ([`crate::session::Session::fill`]): from the cache as
/// [`SessionCache::skeleton`] reads it when that is right (kept again when it was far behind,
/// never as a skeleton), else its outline through [`read`] (which decodes a legacy file's cache
/// file whole).
pub fn read_skeleton(cache: Option<&SessionCache>, path: &Path) -> Result<Read, ParseError> {
    match cache.and_then(|c| c.skeleton(path)) {
        Some(cached) => Ok(Read::from(cached)),
        None => read(cache, path, Level::Outline),
    }
}
