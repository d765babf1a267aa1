//! Appending one line to a session file safely, even while pi appends to it too: the file must
//! still be the one that was read (not shorter, same first line), a missing final `\n` is put in
//! front of the new line, the whole line goes out in one `write`, then `fsync`.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::session::parse::FileFacts;

/// Why a write did not happen. The file is unchanged in every case except `ShortWrite`, where a
/// partial line may remain (the next write repairs it as a torn tail).
#[derive(Debug)]
pub enum WriteError {
    /// The file grew since it was read (pi appended); re-read and try again.
    Grew,
    /// The file is shorter than when it was read: something rewrote it.
    Shrank { was: u64, now: u64 },
    /// The first line differs from what was read: the file was replaced.
    Replaced,
    /// The operating system refused (read-only file, permission, full disk…).
    Io(std::io::Error),
    /// Fewer bytes were written than the line has.
    ShortWrite { wrote: usize, wanted: usize },
    /// A rule of the persistence layer forbids this write.
    Refused(String),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Grew => f.write_str("the file grew while it was being read; try again"),
            WriteError::Shrank { was, now } => write!(
                f,
                "the file is shorter than when it was read ({was} → {now} bytes): something rewrote it, so nothing was written"
            ),
            WriteError::Replaced => f.write_str(
                "the file's first line changed since it was read: it was replaced, so nothing was written",
            ),
            WriteError::Io(e) => write!(f, "{e}"),
            WriteError::ShortWrite { wrote, wanted } => write!(
                f,
                "only {wrote} of {wanted} bytes were written (disk full?); the partial line is repaired on the next write"
            ),
            WriteError::Refused(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for WriteError {}

impl From<std::io::Error> for WriteError {
    fn from(e: std::io::Error) -> Self {
        WriteError::Io(e)
    }
}

/// Append `line` (one JSON object, without `\n`) to `path`, which must still be exactly as
/// described by `read` (same length and first line). Returns the byte offset the line starts at.
pub fn append_line(path: &Path, read: &FileFacts, line: &[u8]) -> Result<u64, WriteError> {
    let file = OpenOptions::new().read(true).append(true).open(path)?;
    let len = file.metadata()?.len();
    check_unchanged(&file, read, len)?;
    let torn_tail = len > 0 && !ends_with_newline(&file, len)?;
    let buf = framed(line, torn_tail);
    let wrote = (&file).write(&buf)?;
    if wrote != buf.len() {
        return Err(WriteError::ShortWrite { wrote, wanted: buf.len() });
    }
    file.sync_data()?;
    Ok(len + u64::from(torn_tail))
}

fn check_unchanged(file: &File, read: &FileFacts, len: u64) -> Result<(), WriteError> {
    if len < read.len {
        return Err(WriteError::Shrank { was: read.len, now: len });
    }
    let mut first = vec![0; read.first_line.len()];
    file.read_exact_at(&mut first, 0)?;
    if first != read.first_line {
        return Err(WriteError::Replaced);
    }
    if len > read.len {
        return Err(WriteError::Grew);
    }
    Ok(())
}

fn ends_with_newline(file: &File, len: u64) -> std::io::Result<bool> {
    let mut last = [0u8; 1];
    file.read_exact_at(&mut last, len - 1)?;
    Ok(last[0] == b'\n')
}

/// The bytes to write: `\n` first when the file has a torn tail, then the line and its `\n`.
fn framed(line: &[u8], torn_tail: bool) -> Vec<u8> {
    let mut buf = Vec::with_capacity(line.len() + 2);
    if torn_tail {
        buf.push(b'\n');
    }
    buf.extend_from_slice(line);
    buf.push(b'\n');
    buf
}

/// Write a new file that must not exist yet, all at once: the bytes go to a hidden temp file in the
/// same folder (fsync), which is then hard-linked to `path` — failing with `AlreadyExists` rather
/// than replacing anything — and removed; then the folder is fsynced. A crash leaves either no
/// file or the complete one (plus, at worst, a hidden `.<name>.<pid>.<n>.part` the listing ignores).
pub fn create_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temp = temp_path(path);
    let written = write_synced(&temp, bytes).and_then(|()| std::fs::hard_link(&temp, path));
    let removed = std::fs::remove_file(&temp);
    written?;
    removed?;
    sync_dir(path)
}

fn temp_path(path: &Path) -> std::path::PathBuf {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.{n}.part", std::process::id()))
}

fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// `fsync` the folder holding `path`, so a new name survives a crash.
pub fn sync_dir(path: &Path) -> std::io::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => File::open(dir)?.sync_all(),
        _ => File::open(".")?.sync_all(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(bytes: &[u8]) -> FileFacts {
        let first_line = bytes.split(|b| *b == b'\n').next().unwrap_or(&[]).to_vec();
        FileFacts { len: bytes.len() as u64, ends_with_newline: bytes.ends_with(b"\n"), lines: 0, first_line }
    }

    #[test]
    fn create_new_never_replaces_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        create_new(&p, b"a\n").unwrap();
        let err = create_new(&p, b"b\n").unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&p).unwrap(), b"a\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn appends_and_repairs_a_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        std::fs::write(&p, b"{\"type\":\"session\"}\n{\"a\":1}").unwrap();
        let f = facts(&std::fs::read(&p).unwrap());
        append_line(&p, &f, b"{\"b\":2}").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"{\"type\":\"session\"}\n{\"a\":1}\n{\"b\":2}\n");
    }

    #[test]
    fn refuses_grown_shrunk_and_replaced_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        std::fs::write(&p, b"{\"type\":\"session\"}\n{\"a\":1}\n").unwrap();
        let f = facts(&std::fs::read(&p).unwrap());
        std::fs::write(&p, b"{\"type\":\"session\"}\n{\"a\":1}\n{\"c\":3}\n").unwrap();
        assert!(matches!(append_line(&p, &f, b"{}"), Err(WriteError::Grew)));
        std::fs::write(&p, b"{\"type\":\"session\"}\n").unwrap();
        assert!(matches!(append_line(&p, &f, b"{}"), Err(WriteError::Shrank { .. })));
        std::fs::write(&p, b"{\"type\":\"sessioN\"}\n{\"a\":1}\n").unwrap();
        assert!(matches!(append_line(&p, &f, b"{}"), Err(WriteError::Replaced)));
        assert_eq!(std::fs::read(&p).unwrap(), b"{\"type\":\"sessioN\"}\n{\"a\":1}\n");
    }
}
