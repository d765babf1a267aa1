//! What the catalog's two caches (the index and the parsed-session cache) share about their
//! files: a folder only the user can read, temp files whose names no other writer uses (a
//! cache file is written to one and renamed over the old), and paths kept as their bytes.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Create `dir` and its parents, readable by the user alone.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// A temp file name beside `path` that no other process or thread uses:
/// `<name>.<pid>.<nanos>.<thread>.tmp`.
pub fn temp_name(path: &Path) -> PathBuf {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let unique = format!(
        "{}.{}.{nanos}.{:?}.tmp",
        path.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id(),
        std::thread::current().id()
    );
    path.with_file_name(unique.replace(['(', ')'], ""))
}

/// Whether `name` is one of [`temp_name`]'s.
pub fn is_temp(name: &OsStr) -> bool {
    name.as_encoded_bytes().ends_with(b".tmp")
}

/// A path kept as its bytes; `None` where the platform's paths are not bytes and these are not UTF-8.
#[cfg(unix)]
pub fn os_string(b: &[u8]) -> Option<OsString> {
    use std::os::unix::ffi::OsStrExt;
    Some(OsStr::from_bytes(b).to_os_string())
}

/// A path kept as its bytes; `None` where the platform's paths are not bytes and these are not UTF-8.
#[cfg(not(unix))]
pub fn os_string(b: &[u8]) -> Option<OsString> {
    std::str::from_utf8(b).ok().map(Into::into)
}
