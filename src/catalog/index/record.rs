//! What the index keeps of one session file ([`Record`]): its change key, where its scan stopped
//! and the scan state there, how far an equal key proves it right ([`Trust`]), the hashes that
//! tell a grown file from a rewritten one ([`Fingerprint`]), and where its texts are in the texts
//! file ([`TextRef`]).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use crate::catalog::hash::hash64;
use crate::catalog::locate::FileMeta;
use crate::catalog::scan::{FileScan, Resume, ScanState, WINDOW};
use crate::session::content::open_regular;

/// Bytes hashed at the start of a file and before the stored offset.
const FINGERPRINT_WINDOW: u64 = WINDOW as u64;

/// What the index knows about one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub path: PathBuf,
    pub meta: FileMeta,
    /// Where the scan stopped (after the last complete line) and its state there.
    pub resume: Resume,
    /// The state including an unterminated last line, if there was one (rare: boxed, so that the
    /// thousands of records a listing moves stay small).
    pub tail: Option<Box<ScanState>>,
    pub fingerprint: Fingerprint,
    /// How far an equal change key proves the record right (see the index's module docs).
    pub trust: Trust,
    /// Where this record's texts are in a texts file, when it was read from an index.
    pub stored: Option<Stored>,
    /// For a file continued from its record without that record's text in memory: where the
    /// text before the resume offset is. The states' `all_text` then holds only what follows.
    pub prefix: Option<Prefix>,
}

/// The places of a record's texts in the texts file `texts_id`; a text is the concatenation of
/// its pieces (a session continued from its record adds one).
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    pub(super) texts_id: u64,
    pub(super) resume: Vec<TextRef>,
    pub(super) tail: Option<Vec<TextRef>>,
}

/// The text a continued record starts with, left in the texts file `texts_id`.
#[derive(Debug, Clone, PartialEq)]
pub struct Prefix {
    pub(super) texts_id: u64,
    pub(super) pieces: Vec<TextRef>,
}

/// What an equal change key says about a record's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// The file is unchanged.
    Settled,
    /// The file had been modified just before its scan: a same-size rewrite in the same
    /// timestamp tick would keep the key, so the fingerprint is checked.
    Recent,
    /// The file changed while it was scanned: it is scanned again.
    Changed,
}

impl Trust {
    /// The trust in the record of a file stated `before` its scan and `after` it, at `now`.
    pub fn of(before: &FileMeta, after: Option<&FileMeta>, now: std::time::SystemTime) -> Trust {
        let now_ns = now.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i64);
        if after != Some(before) {
            Trust::Changed
        } else if before.mtime_ns > now_ns.saturating_sub(RACY_NS) {
            Trust::Recent
        } else {
            Trust::Settled
        }
    }

    pub(super) fn code(self) -> u8 {
        match self {
            Trust::Settled => 0,
            Trust::Recent => 1,
            Trust::Changed => 2,
        }
    }

    pub(super) fn from_code(code: u8) -> Option<Trust> {
        [Trust::Settled, Trust::Recent, Trust::Changed].into_iter().find(|t| t.code() == code)
    }
}

/// How recently before its scan a file must have been modified to be [`Trust::Recent`]: above
/// the timestamp tick of the file systems sessions live on (the kernel's clock tick, at most
/// 10 ms, on ext4, xfs, btrfs and tmpfs), yet short enough that a live session refreshed after
/// pi's write is read from its offset.
pub const RACY_NS: i64 = 100_000_000;

impl Record {
    /// The state the summary is made from.
    pub fn state(&self) -> &ScanState {
        self.tail.as_deref().unwrap_or(&self.resume.state)
    }

    /// Where the resume text of this record is, for continuing it without reading it.
    pub fn text_prefix(&self) -> Option<Prefix> {
        self.stored.as_ref().map(|st| Prefix { texts_id: st.texts_id, pieces: st.resume.clone() })
    }
}

/// Hashes of the first bytes of a file and of the bytes just before an offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fingerprint {
    pub head: u64,
    pub before_offset: u64,
}

impl Fingerprint {
    /// Read the two windows of `path` for `offset`; returns the fingerprint and the bytes read.
    pub fn of(path: &Path, offset: u64) -> io::Result<(Fingerprint, u64)> {
        Fingerprint::of_file(&open_regular(path)?, offset)
    }

    /// [`Fingerprint::of`] a file already open.
    pub fn of_file(file: &File, offset: u64) -> io::Result<(Fingerprint, u64)> {
        let head_len = offset.min(FINGERPRINT_WINDOW);
        let head = read_at(file, 0, head_len)?;
        let tail_start = offset - offset.min(FINGERPRINT_WINDOW);
        let tail = read_at(file, tail_start, offset - tail_start)?;
        let fp = Fingerprint { head: hash64(&head, 1), before_offset: hash64(&tail, 2) };
        Ok((fp, (head.len() + tail.len()) as u64))
    }

    /// The fingerprint of the bytes a scan from `start` read: `history` is the bytes before
    /// `start` it was handed (all of them when `start` is within the head window), `old_head` the
    /// head hash of the record it continued.
    pub fn of_scan(start: u64, history: &[u8], old_head: Option<u64>, scan: &FileScan) -> Fingerprint {
        let head = match old_head {
            Some(head) if start >= FINGERPRINT_WINDOW => head,
            _ => {
                let mut bytes = history.to_vec();
                bytes.extend_from_slice(&scan.head);
                bytes.truncate(usize::try_from(scan.resume.offset.min(FINGERPRINT_WINDOW)).unwrap_or(0));
                hash64(&bytes, 1)
            }
        };
        Fingerprint { head, before_offset: hash64(&scan.before, 2) }
    }
}

/// The bytes before `offset` that a scan continued from a record with fingerprint `old` starts
/// with, if they are still the ones `old` was taken of; `None`: scan from the start.
pub fn history(file: &File, offset: u64, old: &Fingerprint) -> io::Result<Option<Vec<u8>>> {
    let len = offset.min(FINGERPRINT_WINDOW);
    let bytes = match read_at(file, offset - len, len) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    };
    let head_ok = offset >= FINGERPRINT_WINDOW || hash64(&bytes, 1) == old.head;
    Ok((head_ok && hash64(&bytes, 2) == old.before_offset).then_some(bytes))
}

pub(super) fn read_at(file: &File, offset: u64, len: u64) -> io::Result<Vec<u8>> {
    let mut buf = vec![0; len as usize];
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut buf, offset)?;
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(&mut buf)?;
    }
    Ok(buf)
}

#[derive(Debug)]
pub(super) struct PendingTexts {
    /// The texts file, open since the records were read.
    pub(super) file: File,
    pub(super) id: u64,
    /// Every text of the records: whose it is, and where.
    pub(super) refs: Vec<TextOf>,
}

/// A text of the texts section: the record (by its place in the file) and state it belongs to, and
/// where it is.
pub(super) type TextOf = (usize, Slot, TextRef);

/// Which state of a record a text belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    Resume,
    Tail,
}

/// Where one `allMessagesText` is in the texts file, and its hash.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextRef {
    pub(super) offset: u64,
    pub(super) len: u64,
    pub(super) hash: u64,
}

/// The key a path is found by in [`Records`].
pub(super) fn path_key(path: &Path) -> u64 {
    hash64(path.as_os_str().as_encoded_bytes(), 6)
}
