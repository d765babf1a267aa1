//! The persistent index: for every session file scanned, its change key and the scan state at the
//! end of its last complete line, so the next listing reads only what changed.
//!
//! **Invalidation.** A record is keyed by path and carries the file's (device, inode, size, mtime
//! in ns):
//! - all four equal → the file is not read at all, unless its [`Trust`] says otherwise: a file
//!   modified less than [`RACY_NS`] before its scan could be rewritten with the same size in the
//!   same timestamp tick (file times advance in ticks) behind an equal key, so it is checked as
//!   below; a file that changed while it was scanned is scanned again from the start;
//! - same device and inode, not smaller, and the bytes before the stored offset unchanged (a hash of
//!   the first 4 KiB and of the 4 KiB before the offset) → only the bytes after the offset are read;
//!   the fingerprint is made of the very bytes the scan read (and the checked 4 KiB before where
//!   it started), so it always describes the bytes the stored state comes from;
//! - otherwise (replaced, rewritten, shrunk) → the file is scanned again from the start;
//! - a file no longer listed in a folder that was listed → its record is dropped.
//!
//! **Format** (little-endian), two files per sessions root in the cache folder: the records
//! `index-<hash of the root>.bin` and their texts `index-<hash of the root>.texts`.
//!
//! | bytes of `.bin` | content |
//! |---|---|
//! | 0..8 | magic `PITREEIX` |
//! | 8..12 | format version ([`FORMAT_VERSION`]) |
//! | 12..16 | zero |
//! | 16..56 | record count, records length, records hash, texts length, texts file id (u64 each) |
//! | 56..64 | hash of bytes 0..56 |
//! | 64.. | records |
//!
//! Records hold the path, change key, offset, fingerprints and scan states (header fields, name,
//! counts, first message, usage, branch bookkeeping), with strings length-prefixed. Every
//! `allMessagesText` sits in the texts file (magic `PITREETX` and its random id, then texts), as
//! a list of pieces (place, length, hash) in its record, joined when read. The texts file only
//! grows: a save appends the texts of the files it read and points the other records at the texts
//! they already have, so a session that grew by 1 MB costs about 1 MB, not the whole index; a
//! session continued without its text in memory gets its new text as one more piece (a text of
//! 16 pieces is written again whole); when less than half of the file is still
//! referenced, a save writes a new texts file (new id) with only the live texts. Listing
//! without a query reads only the records (a few hundred bytes per session); the picker lists
//! first and has the texts read afterwards, from the same open file ([`TextsOnDisk`]). A
//! records file with a wrong magic, another version, a bad length or hash, a record that does not
//! decode, or a texts file with another id, shorter than its records say, or with a text that
//! does not match its hash, is ignored as a whole and rebuilt.
//!
//! **Writing** is atomic: texts are appended first (what they replace stays until a compaction),
//! then the new records go to a uniquely named temp file (mode 0600) in the same folder, which is
//! renamed over the old one; a new texts file is written the same way. A writer first takes an
//! advisory lock on a sidecar `<index>.lock`; when another pitree holds it, this one skips
//! writing (the other is writing an index of the same files). Readers never lock: they see the
//! old file or the new one.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, WrapErr, bail, eyre};
use rayon::prelude::*;

use crate::session::content::open_regular;
use crate::session::entry::Usage;

use super::cache_file::{create_private_dir, os_string, temp_name};
use super::hash::{FastMap, Hasher64, hash64};
use super::locate::FileMeta;
use super::scan::{FileScan, HeaderInfo, IdSet, Resume, ScanState, WINDOW};

const MAGIC: &[u8; 8] = b"PITREEIX";
const TEXTS_MAGIC: &[u8; 8] = b"PITREETX";
/// Bumped whenever the layout or the meaning of a field changes.
pub const FORMAT_VERSION: u32 = 8;
const HEADER_LEN: usize = 64;
/// The texts file's magic and id.
const TEXTS_HEADER_LEN: u64 = 16;
/// A texts file smaller than this is never compacted.
const COMPACT_MIN: u64 = 4 << 20;
/// Texts appended with one `writev` call (Linux takes at most 1,024 buffers in one).
const TEXTS_PER_WRITE: usize = 1024;
/// The records section is read through a buffer of this size ([`read_records`]).
const READ_BLOCK: usize = 256 << 10;
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
    /// How far an equal change key proves the record right (see the module docs).
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
    texts_id: u64,
    resume: Vec<TextRef>,
    tail: Option<Vec<TextRef>>,
}

/// The text a continued record starts with, left in the texts file `texts_id`.
#[derive(Debug, Clone, PartialEq)]
pub struct Prefix {
    texts_id: u64,
    pieces: Vec<TextRef>,
}

/// A text with more pieces than this is written again as one piece.
const MAX_PIECES: usize = 16;

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

    fn code(self) -> u8 {
        match self {
            Trust::Settled => 0,
            Trust::Recent => 1,
            Trust::Changed => 2,
        }
    }

    fn from_code(code: u8) -> Option<Trust> {
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

fn read_at(file: &File, offset: u64, len: u64) -> io::Result<Vec<u8>> {
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

/// How a file's record can be used.
#[derive(Debug)]
pub enum Reuse {
    /// Nothing changed.
    Unchanged,
    /// The file grew (or was touched): continue from the record's resume point.
    Continue,
    /// Scan from the start.
    Rescan,
}

/// Decide how `record` can serve the file now described by `meta`; also returns the bytes read to
/// check the fingerprint.
pub fn classify(record: &Record, meta: &FileMeta) -> (Reuse, u64) {
    let old = &record.meta;
    if record.trust == Trust::Changed {
        return (Reuse::Rescan, 0);
    }
    if old == meta && record.trust == Trust::Settled {
        return (Reuse::Unchanged, 0);
    }
    if (old.dev, old.ino) != (meta.dev, meta.ino) || meta.len < old.len {
        return (Reuse::Rescan, 0);
    }
    match Fingerprint::of(&record.path, record.resume.offset) {
        Ok((fp, read)) if fp == record.fingerprint => (Reuse::Continue, read),
        Ok((_, read)) => (Reuse::Rescan, read),
        Err(_) => (Reuse::Rescan, 0),
    }
}

/// The index file of a sessions root inside `cache_dir`.
pub fn index_path(cache_dir: &Path, root: &Path) -> PathBuf {
    let key = hash64(root.as_os_str().as_encoded_bytes(), 0);
    cache_dir.join(format!("index-{key:016x}.bin"))
}

/// The records of an index file, with its texts loaded now or on demand.
#[derive(Debug, Default)]
pub struct Index {
    /// Keyed by the file's path.
    pub records: FastMap<OsString, Record>,
    /// The paths of the records in file order (the texts name their record by its place).
    order: Vec<OsString>,
    /// Where the texts still to load are, when they were not loaded with the records.
    pending_texts: Option<PendingTexts>,
}

#[derive(Debug)]
struct PendingTexts {
    /// The texts file, open since the records were read.
    file: File,
    id: u64,
    /// Every text of the records: whose it is, and where.
    refs: Vec<TextOf>,
}

/// A text of the texts section: the record (by its place in the file) and state it belongs to, and
/// where it is.
type TextOf = (usize, Slot, TextRef);

/// Which state of a record a text belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Resume,
    Tail,
}

/// Where one `allMessagesText` is in the texts file, and its hash.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextRef {
    offset: u64,
    len: u64,
    hash: u64,
}

impl PendingTexts {
    fn source(&self) -> TextSource<'_> {
        TextSource { file: &self.file, id: self.id }
    }
}

impl Index {
    /// Load `path`; `with_texts` also loads every `allMessagesText`. Any damage is an error (the
    /// caller starts from an empty index).
    pub fn load(path: &Path, with_texts: bool) -> Result<Index> {
        let (list, pending) = read_index(path)?;
        let order: Vec<OsString> = list.iter().map(|r| r.path.clone().into_os_string()).collect();
        let mut records = FastMap::with_capacity_and_hasher(list.len(), Default::default());
        for (record, key) in list.into_iter().zip(&order) {
            records.insert(key.clone(), record);
        }
        let mut index = Index { records, order, pending_texts: Some(pending) };
        if with_texts {
            index.load_texts()?;
        }
        Ok(index)
    }

    /// The records of `path` in file order for one listing, without the map of
    /// [`Index::load`] (see [`Records`]).
    pub(crate) fn load_records(path: &Path, with_texts: bool) -> Result<Records> {
        let (list, pending) = read_index(path)?;
        // A later record of the same path (or, as rarely as a 64-bit hash collides, of another
        // path with the same key, which is then read again) replaces an earlier one, as in the map.
        let mut by_path = FastMap::with_capacity_and_hasher(list.len(), Default::default());
        let replaced: Vec<usize> = list
            .iter()
            .enumerate()
            .filter_map(|(i, record)| by_path.insert(path_key(&record.path), i))
            .collect();
        let mut slots: Vec<Option<Record>> = list.into_iter().map(Some).collect();
        replaced.into_iter().for_each(|i| slots[i] = None);
        let mut records = Records { slots, by_path, pending_texts: Some(pending) };
        if with_texts {
            records.load_texts()?;
        }
        Ok(records)
    }

    /// Whether the texts of the records are in memory.
    pub fn has_texts(&self) -> bool {
        self.pending_texts.is_none()
    }

    /// Load the texts that [`Index::load`] left on disk.
    pub fn load_texts(&mut self) -> Result<()> {
        if let Some(pending) = self.pending_texts.take() {
            for ((place, slot, _), text) in pending.refs.iter().zip(read_texts(&pending)?) {
                let record = self.order.get(*place).and_then(|path| self.records.get_mut(path));
                set_text(record, *slot, text)?;
            }
        }
        Ok(())
    }

    /// The texts file the records were read with, while their texts are not in memory.
    pub fn text_source(&self) -> Option<TextSource<'_>> {
        self.pending_texts.as_ref().map(PendingTexts::source)
    }

    /// Write `records` to `path` atomically (see the module docs). `source` is the texts file the
    /// records were read with (their texts need not be in memory). Returns `false` when another
    /// process holds the write lock and nothing was written.
    pub fn save<'a>(
        path: &Path,
        records: impl ExactSizeIterator<Item = &'a Record>,
        source: Option<TextSource<'_>>,
    ) -> Result<bool> {
        let dir = path.parent().unwrap_or(Path::new("."));
        create_private_dir(dir)
            .wrap_err_with(|| format!("cannot create the cache folder {}", dir.display()))?;
        let lock_path = path.with_extension("lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .wrap_err_with(|| format!("cannot open {}", lock_path.display()))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => return Ok(false),
            Err(fs::TryLockError::Error(e)) => {
                return Err(e).wrap_err("cannot lock the index");
            }
        }
        let records: Vec<&Record> = records.collect();
        let mut texts = TextsFile::open_or_create(&texts_path(path))?;
        if texts.len > COMPACT_MIN && texts.len > 2 * live_texts_len(&records) {
            texts = TextsFile::create(&texts_path(path))?;
        }
        let plans: Vec<Plan> =
            records.par_iter().map(|r| texts.plan_texts(r, source)).collect::<Result<_>>()?;
        let new_texts: Vec<&str> =
            plans.iter().zip(&records).flat_map(|(plan, r)| plan.new_texts(r)).collect();
        let places = texts.place(&records, &plans, &new_texts)?;
        let tmp = temp_name(path);
        // The texts are appended while the records are written; the records take the index's
        // place only once both are done.
        let (appended, written) =
            rayon::join(|| texts.append(&new_texts), || write_private(&tmp, &records, &places, &texts));
        let written = appended.and(written).and_then(|()| {
            fs::rename(&tmp, path).wrap_err_with(|| format!("cannot replace {}", path.display()))
        });
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written.map(|()| true)
    }
}

/// The texts file a save appends to, with its id and length.
struct TextsFile {
    file: File,
    id: u64,
    len: u64,
}

impl TextsFile {
    /// The texts file at `path` if it is one, else a new one.
    fn open_or_create(path: &Path) -> Result<TextsFile> {
        let existing = OpenOptions::new().read(true).append(true).open(path).ok().and_then(|file| {
            let meta = file.metadata().ok().filter(fs::Metadata::is_file)?;
            let id = texts_id(&file).ok()?;
            Some(TextsFile { file, id, len: meta.len() })
        });
        match existing {
            Some(texts) => Ok(texts),
            None => TextsFile::create(path),
        }
    }

    /// A new, empty texts file with a new id, put in place of `path` atomically.
    fn create(path: &Path) -> Result<TextsFile> {
        let tmp = temp_name(path);
        let mut options = OpenOptions::new();
        options.read(true).append(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&tmp).wrap_err_with(|| format!("cannot create {}", tmp.display()))?;
        let id = uuid::Uuid::new_v4().as_u64_pair().0;
        let placed = file
            .write_all(&[&TEXTS_MAGIC[..], &id.to_le_bytes()].concat())
            .wrap_err_with(|| format!("cannot write {}", tmp.display()))
            .and_then(|()| {
                fs::rename(&tmp, path).wrap_err_with(|| format!("cannot replace {}", path.display()))
            });
        if let Err(e) = placed {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        Ok(TextsFile { file, id, len: TEXTS_HEADER_LEN })
    }

    /// Where each record's texts are in this file, by its plan: the places they have when they
    /// are in it, else new ones after its end, where `new_texts` (the plans' new texts, in
    /// order) are to be appended ([`TextsFile::append`]): after the pieces of the record's
    /// prefix, or, for a record read from another texts file without its texts (or with too
    /// many pieces), whole. The file's length is then where the appended texts will end.
    fn place(&mut self, records: &[&Record], plans: &[Plan], new_texts: &[&str]) -> Result<Vec<Stored>> {
        let hashes: Vec<u64> = new_texts.par_iter().map(|t| hash64(t.as_bytes(), 5)).collect();
        let mut refs = Vec::with_capacity(new_texts.len());
        let mut offset = self.len;
        for (text, hash) in new_texts.iter().zip(hashes) {
            refs.push(TextRef { offset, len: text.len() as u64, hash });
            offset += text.len() as u64;
        }
        self.len = offset;
        let mut refs = refs.into_iter();
        let mut next = || refs.next().ok_or_else(|| eyre!("an index text went missing"));
        plans
            .iter()
            .zip(records)
            .map(|(plan, r)| match plan {
                Plan::Keep(stored) => Ok(stored.clone()),
                Plan::Write { prefix, .. } => {
                    let [resume, tail] = plan.texts(r);
                    let mut pieces = |text: &str| -> Result<Vec<TextRef>> {
                        let mut all = prefix.clone();
                        if Plan::appends(prefix, text) {
                            all.push(next()?);
                        }
                        Ok(all)
                    };
                    let resume = pieces(resume.unwrap_or_default())?;
                    let tail = tail.map(&mut pieces).transpose()?;
                    Ok(Stored { texts_id: self.id, resume, tail })
                }
            })
            .collect()
    }

    /// Append `texts` to the file, many at a time in one call and without copying them first.
    fn append(&self, texts: &[&str]) -> Result<()> {
        let mut file = &self.file;
        for batch in texts.chunks(TEXTS_PER_WRITE) {
            let mut slices: Vec<io::IoSlice<'_>> =
                batch.iter().map(|t| io::IoSlice::new(t.as_bytes())).collect();
            let mut left = &mut slices[..];
            // Empty texts are dropped from the front (and, below, after what was written), so a
            // batch left with nothing to write ends the loop instead of writing zero bytes.
            io::IoSlice::advance_slices(&mut left, 0);
            while !left.is_empty() {
                match file.write_vectored(left) {
                    Ok(0) => {
                        return Err(io::Error::from(io::ErrorKind::WriteZero))
                            .wrap_err("cannot write the index texts");
                    }
                    Ok(n) => io::IoSlice::advance_slices(&mut left, n),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e).wrap_err("cannot write the index texts"),
                }
            }
        }
        Ok(())
    }

    /// How the texts of `r` get into this file.
    fn plan_texts(&self, r: &Record, source: Option<TextSource<'_>>) -> Result<Plan> {
        let id = self.id;
        let fits = |p: &[TextRef]| p.len() < MAX_PIECES;
        if let Some(st) = r.stored.as_ref().filter(|st| {
            st.texts_id == id
                && st.tail.is_some() == r.tail.is_some()
                && fits(&st.resume)
                && st.tail.as_deref().is_none_or(fits)
        }) {
            return Ok(Plan::Keep(st.clone()));
        }
        let own = TextSource { file: &self.file, id };
        let read = |texts_id: u64, pieces: &[TextRef]| -> Result<String> {
            let from = [Some(own), source].into_iter().flatten().find(|s| s.id == texts_id);
            from.ok_or_else(|| eyre!("an index text went missing"))?.text(pieces)
        };
        if let Some(prefix) = r.prefix.as_ref().filter(|p| p.texts_id == id && fits(&p.pieces)) {
            let empty = prefix.pieces.iter().all(|p| p.len == 0);
            let after = |state: &ScanState| joined_after(empty, &state.all_text);
            return Ok(Plan::Write {
                prefix: prefix.pieces.clone(),
                resume: Some(after(&r.resume.state)),
                tail: r.tail.as_deref().map(after),
            });
        }
        if let Some(prefix) = &r.prefix {
            let before = read(prefix.texts_id, &prefix.pieces)?;
            let whole =
                |state: &ScanState| format!("{before}{}", joined_after(before.is_empty(), &state.all_text));
            let (resume, tail) = (Some(whole(&r.resume.state)), r.tail.as_deref().map(whole));
            return Ok(Plan::Write { prefix: Vec::new(), resume, tail });
        }
        let (resume, tail) = match &r.stored {
            Some(st) if source.is_some() || st.texts_id == id => (
                Some(read(st.texts_id, &st.resume)?),
                st.tail.as_ref().map(|t| read(st.texts_id, t)).transpose()?,
            ),
            _ => (None, None),
        };
        Ok(Plan::Write { prefix: Vec::new(), resume, tail })
    }
}

/// How one record's texts are written ([`TextsFile::plan_texts`]).
enum Plan {
    /// They are in the file already, there.
    Keep(Stored),
    /// Pieces already in the file, then the new text of each state (`None`: the state's
    /// `all_text`, in memory).
    Write { prefix: Vec<TextRef>, resume: Option<String>, tail: Option<String> },
}

impl Plan {
    /// The new text of the resume state and of the tail state (if the record has one).
    fn texts<'a>(&'a self, r: &'a Record) -> [Option<&'a str>; 2] {
        let Plan::Write { resume, tail, .. } = self else { return [None, None] };
        let resume = resume.as_deref().unwrap_or(&r.resume.state.all_text);
        let tail = r.tail.as_ref().map(|t| tail.as_deref().unwrap_or(&t.all_text));
        [Some(resume), tail]
    }

    /// Whether a state's new `text` after `prefix` is written as a piece of its own.
    fn appends(prefix: &[TextRef], text: &str) -> bool {
        prefix.is_empty() || !text.is_empty()
    }

    /// The texts this plan appends, in order.
    fn new_texts<'a>(&'a self, r: &'a Record) -> Vec<&'a str> {
        let Plan::Write { prefix, .. } = self else { return Vec::new() };
        self.texts(r).into_iter().flatten().filter(|t| Plan::appends(prefix, t)).collect()
    }
}

/// What follows a text that is empty or not (`before_is_empty`) when `after` is joined to it as
/// the scanner joins texts: with a space between two non-empty ones.
fn joined_after(before_is_empty: bool, after: &str) -> String {
    if before_is_empty || after.is_empty() { after.to_string() } else { format!(" {after}") }
}

/// The bytes of texts the records use.
fn live_texts_len(records: &[&Record]) -> u64 {
    let pieces = |p: &[TextRef]| p.iter().map(|t| t.len).sum::<u64>();
    let len = |r: &Record| match &r.stored {
        Some(st) => pieces(&st.resume) + st.tail.as_deref().map_or(0, pieces),
        None => {
            let prefix = r.prefix.as_ref().map_or(0, |p| pieces(&p.pieces));
            prefix + (r.resume.state.all_text.len() + r.tail.as_ref().map_or(0, |t| t.all_text.len())) as u64
        }
    };
    records.iter().map(|r| len(r)).sum()
}

/// A texts file records were read with, for a save that must copy their texts.
#[derive(Clone, Copy)]
pub struct TextSource<'a> {
    file: &'a File,
    id: u64,
}

impl TextSource<'_> {
    /// The text made of `pieces`, read and checked.
    fn text(&self, pieces: &[TextRef]) -> Result<String> {
        pieces.iter().map(|p| read_text(self.file, p)).collect()
    }

    /// The resume and tail texts at `stored`.
    fn texts(&self, stored: &Stored) -> Result<[Option<String>; 2]> {
        let tail = stored.tail.as_deref().map(|t| self.text(t)).transpose()?;
        Ok([Some(self.text(&stored.resume)?), tail])
    }
}

/// The records of an index file in file order, for one listing ([`Index::load_records`]): found
/// by path, then taken out; what is left is the records of the files not listed. Reading them
/// into [`Index::load`]'s map would move every (large) record into a large table.
#[derive(Debug, Default)]
pub(crate) struct Records {
    /// `None` once taken (or replaced by a later record of the same path).
    slots: Vec<Option<Record>>,
    /// The slot of each path, by [`path_key`] (so no path is copied).
    by_path: FastMap<u64, usize>,
    pending_texts: Option<PendingTexts>,
}

impl Records {
    /// The slot of the record of `path`.
    pub(crate) fn find(&self, path: &OsStr) -> Option<usize> {
        let slot = self.by_path.get(&path_key(Path::new(path))).copied()?;
        self.slots.get(slot)?.as_ref().is_some_and(|r| r.path.as_os_str() == path).then_some(slot)
    }

    pub(crate) fn get(&self, slot: usize) -> Option<&Record> {
        self.slots.get(slot)?.as_ref()
    }

    pub(crate) fn take(&mut self, slot: usize) -> Option<Record> {
        self.slots.get_mut(slot)?.take()
    }

    /// Take the records of the slots `marked` says, in slot order. When they are all the records
    /// left (an unchanged listing), the slots' own allocation becomes the result: the records are
    /// neither copied to fresh memory nor faulted in again.
    pub(crate) fn take_marked(&mut self, marked: &[bool]) -> Vec<Record> {
        let is_marked = |i: usize| marked.get(i).copied().unwrap_or(false);
        if self.slots.iter().enumerate().all(|(i, r)| r.is_none() || is_marked(i)) {
            // `filter_map` keeps the collect in place, `flatten` would not.
            #[allow(clippy::filter_map_identity)]
            return std::mem::take(&mut self.slots).into_iter().filter_map(|r| r).collect();
        }
        (0..self.slots.len()).filter(|&i| is_marked(i)).filter_map(|i| self.slots[i].take()).collect()
    }

    /// The records not taken.
    pub(crate) fn remaining(&self) -> impl Iterator<Item = &Record> {
        self.slots.iter().flatten()
    }

    /// The records not taken, with their slots.
    pub(crate) fn remaining_slots(&self) -> impl Iterator<Item = (usize, &Record)> {
        self.slots.iter().enumerate().filter_map(|(i, r)| Some((i, r.as_ref()?)))
    }

    /// How many slots there are (taken or not).
    pub(crate) fn slot_count(&self) -> usize {
        self.slots.len()
    }

    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.by_path.clear();
    }

    pub(crate) fn has_texts(&self) -> bool {
        self.pending_texts.is_none()
    }

    /// [`Index::load_texts`].
    pub(crate) fn load_texts(&mut self) -> Result<()> {
        if let Some(pending) = self.pending_texts.take() {
            for ((place, slot, _), text) in pending.refs.iter().zip(read_texts(&pending)?) {
                set_text(self.slots.get_mut(*place).and_then(Option::as_mut), *slot, text)?;
            }
        }
        Ok(())
    }

    /// The texts of the records in `slots` only (files that continue from their record).
    pub(crate) fn load_texts_of(&mut self, slots: &[usize]) -> Result<()> {
        let Some(pending) = &self.pending_texts else { return Ok(()) };
        for &slot in slots {
            let Some(record) = self.slots.get_mut(slot).and_then(Option::as_mut) else { continue };
            let Some(stored) = &record.stored else { continue };
            let [resume, tail] = pending.source().texts(stored)?;
            record.resume.state.all_text = resume.unwrap_or_default();
            if let (Some(state), Some(text)) = (record.tail.as_mut(), tail) {
                state.all_text = text;
            }
        }
        Ok(())
    }

    /// The texts of `records` (records taken out of these) that were not loaded with them, to read
    /// later; `None` when the texts are loaded. A record's text is the one of the state its summary
    /// is made from ([`Record::state`]).
    pub(crate) fn defer_texts(&mut self, records: &[Record]) -> Option<TextsOnDisk> {
        Some(defer(self.pending_texts.take()?, records, &self.by_path))
    }

    /// The texts file the records were read with, while their texts are not in memory.
    pub(crate) fn text_source(&self) -> Option<TextSource<'_>> {
        self.pending_texts.as_ref().map(PendingTexts::source)
    }
}

/// The texts of `records` in `pending`; `by_path` has each record's place in the index file (a
/// record taken from [`Records`] has its own slot under its key).
fn defer(pending: PendingTexts, records: &[Record], by_path: &FastMap<u64, usize>) -> TextsOnDisk {
    let states: FastMap<usize, (Slot, &Path)> = records
        .iter()
        .filter_map(|r| {
            let slot = if r.tail.is_some() { Slot::Tail } else { Slot::Resume };
            Some((*by_path.get(&path_key(&r.path))?, (slot, r.path.as_path())))
        })
        .collect();
    let mut wanted = Vec::new();
    let mut paths = FastMap::default();
    for (i, (place, slot, _)) in pending.refs.iter().enumerate() {
        if let Some((wanted_slot, path)) = states.get(place)
            && wanted_slot == slot
        {
            wanted.push(i);
            paths.entry(*place).or_insert_with(|| path.as_os_str().to_os_string());
        }
    }
    TextsOnDisk { pending, wanted, paths }
}

/// The key a path is found by in [`Records`].
fn path_key(path: &Path) -> u64 {
    hash64(path.as_os_str().as_encoded_bytes(), 6)
}

/// Read and check an index file: its records in file order, and its texts file, opened.
fn read_index(path: &Path) -> Result<(Vec<Record>, PendingTexts)> {
    let mut file = open_regular(path).wrap_err("cannot open the index")?;
    let mut header = [0u8; HEADER_LEN];
    file.read_exact(&mut header).wrap_err("the index is shorter than its header")?;
    let h = parse_header(&header)?;
    let file_len = file.metadata()?.len();
    if file_len != HEADER_LEN as u64 + h.records_len {
        bail!("the index has {file_len} bytes, its header says otherwise");
    }
    let texts = open_texts(&texts_path(path), h.texts_id, h.texts_len)?;
    let (records, refs) = read_records(&mut file, &h)?;
    Ok((records, PendingTexts { file: texts, id: h.texts_id, refs }))
}

/// Read, decode and check the records section that follows the header in `file`. It is read a
/// block at a time through one buffer, decoded and hashed as it comes: read whole into memory,
/// the 4.5 MB of 5,000 sessions cost a page fault per 4 KiB, more than decoding them. The hash is
/// checked at the end, and what was decoded is dropped when it does not match.
fn read_records(file: &mut File, h: &Header) -> Result<(Vec<Record>, Vec<TextOf>)> {
    let section = usize::try_from(h.records_len)?;
    // A record takes at least 64 bytes (path length, metadata, offset, fingerprint), so a damaged
    // count cannot make this reserve more than the records section could hold.
    let capacity = usize::try_from(h.count)?.min(section / 64);
    let mut records = Vec::with_capacity(capacity);
    let mut refs = Vec::with_capacity(capacity);
    let mut hasher = Hasher64::new(3);
    let mut buf = Vec::new();
    // `buf[..done]` is decoded; `unread` bytes of the section are still in the file.
    let mut done = 0;
    let mut unread = h.records_len;
    while (records.len() as u64) < h.count {
        let mut r = Reader { b: &buf[done..], i: 0, section, short: false };
        let record = decode_record(&mut r, h, records.len(), &mut refs);
        let (used, short) = (r.i, r.short);
        match record {
            Some(record) => {
                done += used;
                records.push(record);
            }
            None if short && unread > 0 => {
                buf.drain(..done);
                done = 0;
                unread -= read_more(file, &mut buf, unread, &mut hasher)?;
            }
            None => bail!("the index records do not decode"),
        }
    }
    if done != buf.len() || unread != 0 {
        bail!("the index records do not decode");
    }
    if hasher.finish() != h.records_hash {
        bail!("the index records are damaged");
    }
    Ok((records, refs))
}

/// Append the next block of the `unread` bytes (more when `buf` already holds a block: a record
/// longer than that) to `buf`, hashing it; returns how many bytes were read.
fn read_more(file: &mut File, buf: &mut Vec<u8>, unread: u64, hasher: &mut Hasher64) -> Result<u64> {
    let want = (READ_BLOCK.max(buf.len()) as u64).min(unread);
    let before = buf.len();
    buf.reserve(usize::try_from(want)?);
    file.take(want).read_to_end(buf).wrap_err("cannot read the index")?;
    if buf.len() == before {
        bail!("the index is truncated");
    }
    hasher.update(&buf[before..]);
    Ok((buf.len() - before) as u64)
}

/// The texts file next to the records file `index`.
pub fn texts_path(index: &Path) -> PathBuf {
    index.with_extension("texts")
}

/// Open the texts file at `path` if it is the one with `id` and holds at least `len` bytes.
fn open_texts(path: &Path, id: u64, len: u64) -> Result<File> {
    let file = open_regular(path).wrap_err("cannot open the index texts")?;
    if texts_id(&file)? != id {
        bail!("the index texts are of another index");
    }
    if file.metadata()?.len() < len {
        bail!("the index texts are truncated");
    }
    Ok(file)
}

/// The id in the header of a texts file.
fn texts_id(file: &File) -> Result<u64> {
    let head = read_at(file, 0, TEXTS_HEADER_LEN).wrap_err("the index texts have no header")?;
    if &head[..8] != TEXTS_MAGIC {
        bail!("not a pitree texts file");
    }
    Ok(u64::from_le_bytes(head[8..16].try_into().unwrap()))
}

/// Some texts of an index file, to read later (a listing's records' texts). The file stays open, so a
/// newer index written meanwhile does not change them.
#[derive(Debug)]
pub struct TextsOnDisk {
    pending: PendingTexts,
    /// Indexes into `pending.refs`.
    wanted: Vec<usize>,
    /// The path of each record (by its place) whose texts are wanted.
    paths: FastMap<usize, OsString>,
}

impl TextsOnDisk {
    /// The paths whose texts these are.
    pub fn paths(&self) -> impl Iterator<Item = &OsStr> {
        let path = |i: usize| self.paths[&self.pending.refs[i].0].as_os_str();
        // The pieces of one text are next to each other: each path once.
        let mut last = None;
        self.wanted.iter().map(move |&i| path(i)).filter(move |p| last.replace(*p) != Some(*p))
    }

    /// Read the texts on this thread, with the checks of [`Index::load`] (each piece's hash,
    /// UTF-8): one per path, its pieces joined.
    pub fn read(&self) -> Result<Vec<(OsString, String)>> {
        let PendingTexts { file, refs, .. } = &self.pending;
        let mut texts: Vec<(OsString, String)> = Vec::with_capacity(self.wanted.len());
        let mut last_place = None;
        for &i in &self.wanted {
            let (place, _, piece) = &refs[i];
            let piece = read_text(file, piece)?;
            match texts.last_mut() {
                Some((_, text)) if last_place == Some(*place) => text.push_str(&piece),
                _ => texts.push((self.paths[place].clone(), piece)),
            }
            last_place = Some(*place);
        }
        Ok(texts)
    }

    /// The texts file these texts are read from, for a save that needs them.
    pub(crate) fn source(&self) -> TextSource<'_> {
        self.pending.source()
    }
}

struct Header {
    count: u64,
    records_len: u64,
    records_hash: u64,
    texts_len: u64,
    texts_id: u64,
}

fn parse_header(b: &[u8; HEADER_LEN]) -> Result<Header> {
    if &b[..8] != MAGIC {
        bail!("not a pitree index");
    }
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    let version = u32::from_le_bytes(b[8..12].try_into().unwrap());
    if version != FORMAT_VERSION {
        bail!("index format {version}, this pitree reads {FORMAT_VERSION}");
    }
    if word(56) != hash64(&b[..56], 4) {
        bail!("the index header is damaged");
    }
    Ok(Header {
        count: word(16),
        records_len: word(24),
        records_hash: word(32),
        texts_len: word(40),
        texts_id: word(48),
    })
}

/// One text, checked against its hash.
fn read_text(file: &File, text: &TextRef) -> Result<String> {
    let bytes = read_at(file, text.offset, text.len)?;
    if hash64(&bytes, 5) != text.hash {
        bail!("the index texts are damaged");
    }
    String::from_utf8(bytes).wrap_err("an index text is not UTF-8")
}

/// Read every text straight into its own string (positioned reads in parallel, no intermediate
/// buffer), in the order of `pending.refs`, checking each text's hash.
fn read_texts(pending: &PendingTexts) -> Result<Vec<String>> {
    pending.refs.par_iter().map(|(_, _, text)| read_text(&pending.file, text)).collect()
}

/// Add `text` (a piece) to the state `slot` of `record`.
fn set_text(record: Option<&mut Record>, slot: Slot, text: String) -> Result<()> {
    let record = record.ok_or_else(|| eyre!("an index text has no record"))?;
    match (slot, record.tail.as_mut()) {
        (Slot::Resume, _) => record.resume.state.all_text.push_str(&text),
        (Slot::Tail, Some(tail)) => tail.all_text.push_str(&text),
        (Slot::Tail, None) => bail!("an index text has no record"),
    }
    Ok(())
}

/// Write the records file of `records`, whose texts are at `places` in `texts`, to a new file at
/// `path` (mode 0600).
fn write_private(path: &Path, records: &[&Record], places: &[Stored], texts: &TextsFile) -> Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).wrap_err_with(|| format!("cannot create {}", path.display()))?;
    let (head, body) = encode(records, places, texts);
    file.write_all(&head)
        .and_then(|()| file.write_all(&body))
        .wrap_err_with(|| format!("cannot write {}", path.display()))
}

/// The header and the records section of the index of `records`.
fn encode(records: &[&Record], places: &[Stored], texts: &TextsFile) -> ([u8; HEADER_LEN], Vec<u8>) {
    let mut body = Writer::default();
    for (r, place) in records.iter().zip(places) {
        body.bytes(r.path.as_os_str().as_encoded_bytes());
        body.u64(r.meta.len);
        body.u64(r.meta.mtime_ns as u64);
        body.u64(r.meta.dev);
        body.u64(r.meta.ino);
        body.u64(r.resume.offset);
        body.u64(r.fingerprint.head);
        body.u64(r.fingerprint.before_offset);
        body.u8(r.trust.code());
        body.state(&r.resume.state, &place.resume);
        body.u8(u8::from(r.tail.is_some()));
        if let (Some(tail), Some(place)) = (&r.tail, &place.tail) {
            body.state(tail, place);
        }
    }
    let mut head = [0u8; HEADER_LEN];
    head[..8].copy_from_slice(MAGIC);
    head[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    let words = [records.len() as u64, body.bytes.len() as u64, hash64(&body.bytes, 3), texts.len, texts.id];
    for (i, word) in words.iter().enumerate() {
        head[16 + 8 * i..24 + 8 * i].copy_from_slice(&word.to_le_bytes());
    }
    let header_hash = hash64(&head[..56], 4);
    head[56..].copy_from_slice(&header_hash.to_le_bytes());
    (head, body.bytes)
}

/// Encodes records; a text is written as its place in the texts file and its hash.
#[derive(Default)]
struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.bytes.extend_from_slice(b);
    }
    fn opt_str(&mut self, s: Option<&str>) {
        self.u8(u8::from(s.is_some()));
        if let Some(s) = s {
            self.bytes(s.as_bytes());
        }
    }
    fn ids(&mut self, set: &IdSet) {
        self.u64(set.len() as u64);
        let mut ids: Vec<u64> = set.iter().copied().collect();
        ids.sort_unstable();
        for id in ids {
            self.u64(id);
        }
    }
    fn state(&mut self, s: &ScanState, pieces: &[TextRef]) {
        self.u8(u8::from(s.rejected));
        self.u8(u8::from(s.header.is_some()));
        if let Some(h) = &s.header {
            self.bytes(h.id.as_bytes());
            self.u8(u8::from(h.id_is_string));
            self.u32(h.version);
            self.opt_str(h.timestamp.as_deref());
            self.u8(u8::from(h.created_ms.is_some()));
            self.u64(h.created_ms.unwrap_or(0) as u64);
            self.bytes(h.cwd.as_bytes());
            self.opt_str(h.parent_session.as_deref());
        }
        self.opt_str(s.name.as_deref());
        self.u32(s.message_count);
        self.u8(u8::from(s.last_activity.is_some()));
        self.f64(s.last_activity.unwrap_or(0.0));
        self.opt_str(s.first_message.as_deref());
        for v in [s.usage.input, s.usage.output, s.usage.cache_read, s.usage.cache_write, s.usage.cost] {
            self.f64(v);
        }
        self.u32(s.v1_entries);
        self.u32(s.unreadable);
        self.ids(&s.tips);
        self.ids(&s.dangling);
        self.u32(pieces.len() as u32);
        for p in pieces {
            self.u64(p.offset);
            self.u64(p.len);
            self.u64(p.hash);
        }
    }
}

/// Decode the record at `place` of the index `h` and add its texts to `refs` (only when the whole
/// record decodes). Every length is checked, so damage, or the end of what `r` holds, gives
/// `None`, never a panic.
fn decode_record(r: &mut Reader<'_>, h: &Header, place: usize, refs: &mut Vec<TextOf>) -> Option<Record> {
    let path = PathBuf::from(os_string(r.bytes()?)?);
    let meta = FileMeta { len: r.u64()?, mtime_ns: r.u64()? as i64, dev: r.u64()?, ino: r.u64()? };
    let offset = r.u64()?;
    let fingerprint = Fingerprint { head: r.u64()?, before_offset: r.u64()? };
    let trust = Trust::from_code(r.u8()?)?;
    let (state, resume_text) = r.state(h.texts_len)?;
    let (tail, tail_text) = match r.u8()? {
        0 => (None, None),
        1 => {
            let (s, t) = r.state(h.texts_len)?;
            (Some(Box::new(s)), Some(t))
        }
        _ => return None,
    };
    refs.extend(resume_text.iter().map(|&t| (place, Slot::Resume, t)));
    refs.extend(tail_text.iter().flatten().map(|&t| (place, Slot::Tail, t)));
    let stored = Some(Stored { texts_id: h.texts_id, resume: resume_text, tail: tail_text });
    let resume = Resume { offset, state };
    Some(Record { path, meta, resume, tail, fingerprint, trust, stored, prefix: None })
}

/// Reads the values of records from `b`, a part of a records section `section` bytes long.
struct Reader<'a> {
    b: &'a [u8],
    i: usize,
    /// The length of the whole section: no count read can be more than it could hold.
    section: usize,
    /// A read went past the end of `b` (more of the section may follow).
    short: bool,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.i.checked_add(n)?;
        let Some(s) = self.b.get(self.i..end) else {
            self.short = true;
            return None;
        };
        self.i = end;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn flag(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8).map(|b| u64::from_le_bytes(b.try_into().unwrap()))
    }
    fn f64(&mut self) -> Option<f64> {
        self.u64().map(f64::from_bits)
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }
    fn string(&mut self) -> Option<String> {
        std::str::from_utf8(self.bytes()?).ok().map(str::to_string)
    }
    fn opt_string(&mut self) -> Option<Option<String>> {
        if self.flag()? { self.string().map(Some) } else { Some(None) }
    }
    fn ids(&mut self) -> Option<IdSet> {
        let n = usize::try_from(self.u64()?).ok()?;
        if n > self.section / 8 {
            return None;
        }
        (0..n).map(|_| self.u64()).collect()
    }
    fn state(&mut self, texts_len: u64) -> Option<(ScanState, Vec<TextRef>)> {
        let rejected = self.flag()?;
        let header = if self.flag()? {
            Some(HeaderInfo {
                id: self.string()?,
                id_is_string: self.flag()?,
                version: self.u32()?,
                timestamp: self.opt_string()?,
                created_ms: {
                    let some = self.flag()?;
                    let ms = self.u64()? as i64;
                    some.then_some(ms)
                },
                cwd: self.string()?,
                parent_session: self.opt_string()?,
            })
        } else {
            None
        };
        let name = self.opt_string()?;
        let message_count = self.u32()?;
        let has_activity = self.flag()?;
        let activity = self.f64()?;
        let first_message = self.opt_string()?;
        let usage = Usage {
            input: self.f64()?,
            output: self.f64()?,
            cache_read: self.f64()?,
            cache_write: self.f64()?,
            cost: self.f64()?,
        };
        let v1_entries = self.u32()?;
        let unreadable = self.u32()?;
        let tips = self.ids()?;
        let dangling = self.ids()?;
        let count = self.u32()? as usize;
        if count > self.section / 24 {
            return None;
        }
        let mut pieces = Vec::with_capacity(count);
        for _ in 0..count {
            let text = TextRef { offset: self.u64()?, len: self.u64()?, hash: self.u64()? };
            if text.offset < TEXTS_HEADER_LEN || text.offset.checked_add(text.len)? > texts_len {
                return None;
            }
            pieces.push(text);
        }
        let state = ScanState {
            header,
            rejected,
            name,
            message_count,
            last_activity: has_activity.then_some(activity),
            first_message,
            all_text: String::new(),
            usage,
            v1_entries,
            tips,
            dangling,
            unreadable,
        };
        Some((state, pieces))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &str, text: &str) -> Record {
        let mut state = ScanState {
            header: Some(HeaderInfo {
                id: "s".into(),
                id_is_string: true,
                version: 3,
                timestamp: Some("2025-01-01T00:00:00.000Z".into()),
                created_ms: Some(1_735_689_600_000),
                cwd: "/p".into(),
                parent_session: None,
            }),
            name: Some("n".into()),
            message_count: 3,
            last_activity: Some(5.0),
            first_message: Some("hi".into()),
            all_text: text.into(),
            ..ScanState::default()
        };
        state.tips.insert(42);
        Record {
            path: PathBuf::from(path),
            meta: FileMeta { len: 10, mtime_ns: -5, dev: 1, ino: 2 },
            resume: Resume { offset: 9, state: state.clone() },
            tail: Some(Box::new(ScanState { all_text: format!("{text} more"), ..state })),
            fingerprint: Fingerprint { head: 7, before_offset: 8 },
            trust: if path.starts_with("/b") { Trust::Recent } else { Trust::Settled },
            stored: None,
            prefix: None,
        }
    }

    #[test]
    fn a_record_is_checked_when_its_file_changed_just_before_its_scan_and_rescanned_when_during() {
        let now = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000);
        let old = FileMeta { len: 10, mtime_ns: 1_700_000_000_000_000_000, dev: 1, ino: 2 };
        assert_eq!(Trust::of(&old, Some(&old), now), Trust::Settled);
        assert_eq!(
            Trust::of(&old, Some(&FileMeta { len: 11, ..old }), now),
            Trust::Changed,
            "grew during the scan"
        );
        assert_eq!(Trust::of(&old, None, now), Trust::Changed, "gone after the scan");
        let recent = FileMeta { mtime_ns: 1_800_000_000_000_000_000 - RACY_NS / 2, ..old };
        assert_eq!(Trust::of(&recent, Some(&recent), now), Trust::Recent, "modified just before");
        let changed = Record { trust: Trust::Changed, ..record("/a.jsonl", "x") };
        assert!(matches!(classify(&changed, &changed.meta), (Reuse::Rescan, 0)));
        let settled = record("/a.jsonl", "x");
        assert!(matches!(classify(&settled, &settled.meta), (Reuse::Unchanged, 0)));
    }

    #[test]
    fn round_trips_with_and_without_texts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache/index.bin");
        let records = [record("/a.jsonl", "hello"), record("/b.jsonl", "wörld")];
        assert!(Index::save(&path, records.iter(), None).unwrap());
        let full = Index::load(&path, true).unwrap();
        assert_eq!(full.records.len(), 2);
        assert_eq!(unstored(&full, "/b.jsonl"), records[1]);
        let mut lazy = Index::load(&path, false).unwrap();
        assert!(!lazy.has_texts());
        assert_eq!(lazy.records[OsStr::new("/a.jsonl")].resume.state.all_text, "");
        lazy.load_texts().unwrap();
        assert_eq!(unstored(&lazy, "/a.jsonl"), records[0]);
    }

    /// More texts than one `writev` call appends, empty ones among them, each read back as it
    /// was saved, at the offsets the records were given.
    #[test]
    fn texts_of_many_writes_read_back_in_their_places() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache/index.bin");
        let text =
            |i: usize| if i.is_multiple_of(7) { String::new() } else { format!("text {i} ").repeat(i % 13) };
        let saved: Vec<Record> =
            (0..3 * TEXTS_PER_WRITE / 2).map(|i| record(&format!("/s/{i:05}.jsonl"), &text(i))).collect();
        assert!(Index::save(&path, saved.iter(), None).unwrap());
        let loaded = Index::load(&path, true).unwrap();
        for r in &saved {
            assert_eq!(unstored(&loaded, r.path.to_str().unwrap()), *r);
        }
    }

    /// A records section of several read blocks, with records across block ends and one longer
    /// than a block, reads back whole; damage anywhere in it is still refused.
    #[test]
    fn a_records_section_longer_than_a_read_block_reads_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache/index.bin");
        let mut saved: Vec<Record> = (0..3000).map(|i| record(&format!("/s/{i:05}.jsonl"), "t")).collect();
        saved[1500].resume.state.first_message = Some("long ".repeat(READ_BLOCK / 2));
        assert!(Index::save(&path, saved.iter(), None).unwrap());
        let records_len = fs::metadata(&path).unwrap().len() - HEADER_LEN as u64;
        assert!(records_len > 3 * READ_BLOCK as u64, "{records_len} bytes");
        let mut loaded = Index::load_records(&path, true).unwrap();
        for r in &saved {
            let slot = loaded.find(r.path.as_os_str()).unwrap();
            assert_eq!(&Record { stored: None, ..loaded.take(slot).unwrap() }, r);
        }
        let mut bytes = fs::read(&path).unwrap();
        for at in [HEADER_LEN + READ_BLOCK + 7, bytes.len() - 3] {
            bytes[at] ^= 0x20;
            fs::write(&path, &bytes).unwrap();
            assert!(Index::load_records(&path, false).is_err(), "flipped byte {at}");
            bytes[at] ^= 0x20;
        }
    }

    /// A listing finds each record by its path only, takes the unchanged ones (all in place, or
    /// some), and the texts it defers are those of the records it took, under their own paths.
    #[test]
    fn records_are_found_by_path_and_taken_with_their_texts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache/index.bin");
        let saved = [record("/a.jsonl", "alpha"), record("/b.jsonl", "beta"), record("/c.jsonl", "gamma")];
        assert!(Index::save(&path, saved.iter(), None).unwrap());
        let mut records = Index::load_records(&path, false).unwrap();
        assert_eq!(records.find(OsStr::new("/d.jsonl")), None);
        let slots: Vec<usize> =
            ["/c.jsonl", "/a.jsonl"].iter().map(|p| records.find(OsStr::new(p)).unwrap()).collect();
        let mut marked = vec![false; records.slot_count()];
        slots.iter().for_each(|&i| marked[i] = true);
        let taken = records.take_marked(&marked);
        let paths: Vec<&Path> = taken.iter().map(|r| r.path.as_path()).collect();
        assert_eq!(paths, [Path::new("/a.jsonl"), Path::new("/c.jsonl")], "in slot order");
        assert_eq!(records.find(OsStr::new("/a.jsonl")), None, "a taken record is not found again");
        let left: Vec<&Path> = records.remaining().map(|r| r.path.as_path()).collect();
        assert_eq!(left, [Path::new("/b.jsonl")]);
        let texts = records.defer_texts(&taken).unwrap().read().unwrap();
        let texts: Vec<(&str, &str)> = texts.iter().map(|(p, t)| (p.to_str().unwrap(), t.as_str())).collect();
        assert_eq!(texts, [("/a.jsonl", "alpha more"), ("/c.jsonl", "gamma more")], "the tails' texts");

        let mut records = Index::load_records(&path, false).unwrap();
        let all = records.take_marked(&vec![true; records.slot_count()]);
        assert_eq!(all.len(), 3);
        assert_eq!(records.remaining().count(), 0);
        assert_eq!(records.find(OsStr::new("/b.jsonl")), None);
    }

    /// The record of `path` as it was before it was saved.
    fn unstored(index: &Index, path: &str) -> Record {
        Record { stored: None, ..index.records[OsStr::new(path)].clone() }
    }

    fn texts_len(index: &Path) -> u64 {
        fs::metadata(texts_path(index)).unwrap().len()
    }

    #[test]
    fn a_save_appends_only_the_new_texts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        let big = "old text ".repeat(10_000);
        Index::save(&path, [record("/a.jsonl", "a"), record("/b.jsonl", &big)].iter(), None).unwrap();
        let before = texts_len(&path);
        let lazy = Index::load(&path, false).unwrap();
        let grown = record("/a.jsonl", "a, and more");
        let kept = &lazy.records[OsStr::new("/b.jsonl")];
        Index::save(&path, [&grown, kept].into_iter(), lazy.text_source()).unwrap();
        let appended = texts_len(&path) - before;
        assert_eq!(
            appended,
            ("a, and more".len() + "a, and more more".len()) as u64,
            "b's text is not written again"
        );
        let full = Index::load(&path, true).unwrap();
        assert_eq!(unstored(&full, "/a.jsonl"), grown);
        assert_eq!(unstored(&full, "/b.jsonl"), record("/b.jsonl", &big));
    }

    #[test]
    fn texts_no_record_uses_any_more_are_compacted_away() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        let text = |round: usize| format!("{round} ").repeat(COMPACT_MIN as usize / 4);
        let id = |path: &Path| texts_id(&File::open(texts_path(path)).unwrap()).unwrap();
        Index::save(&path, [record("/a.jsonl", &text(0))].iter(), None).unwrap();
        let first = id(&path);
        for round in 1..=3 {
            let lazy = Index::load(&path, false).unwrap();
            Index::save(&path, [record("/a.jsonl", &text(round))].iter(), lazy.text_source()).unwrap();
        }
        assert_ne!(id(&path), first, "a new texts file");
        let live = 2 * text(3).len() as u64;
        assert!(texts_len(&path) <= 2 * live + TEXTS_HEADER_LEN + 10, "four rounds: {}", texts_len(&path));
        assert_eq!(unstored(&Index::load(&path, true).unwrap(), "/a.jsonl"), record("/a.jsonl", &text(3)));
    }

    #[test]
    fn records_read_from_a_replaced_texts_file_bring_their_texts_along() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        Index::save(&path, [record("/a.jsonl", "alpha"), record("/b.jsonl", "beta")].iter(), None).unwrap();
        let lazy = Index::load(&path, false).unwrap();
        // Another pitree compacts meanwhile: the texts file is a new one.
        fs::remove_file(texts_path(&path)).unwrap();
        Index::save(&path, [record("/c.jsonl", "gamma")].iter(), None).unwrap();
        let kept: Vec<&Record> = lazy.records.values().collect();
        Index::save(&path, kept.into_iter(), lazy.text_source()).unwrap();
        let full = Index::load(&path, true).unwrap();
        assert_eq!(unstored(&full, "/a.jsonl"), record("/a.jsonl", "alpha"));
        assert_eq!(unstored(&full, "/b.jsonl"), record("/b.jsonl", "beta"));
    }

    #[test]
    fn any_damage_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.bin");
        Index::save(&path, [record("/a.jsonl", "hello")].iter(), None).unwrap();
        let good = fs::read(&path).unwrap();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x40;
            fs::write(&path, &bad).unwrap();
            assert!(Index::load(&path, true).is_err(), "flipped byte {i}");
        }
        for cut in [0, 10, HEADER_LEN, good.len() - 1] {
            fs::write(&path, &good[..cut]).unwrap();
            assert!(Index::load(&path, true).is_err(), "cut at {cut}");
        }
        fs::write(&path, &good).unwrap();
        let texts = fs::read(texts_path(&path)).unwrap();
        for i in 0..texts.len() {
            let mut bad = texts.clone();
            bad[i] ^= 0x40;
            fs::write(texts_path(&path), &bad).unwrap();
            assert!(Index::load(&path, true).is_err(), "flipped texts byte {i}");
        }
        fs::write(texts_path(&path), &texts[..texts.len() - 1]).unwrap();
        assert!(Index::load(&path, false).is_err(), "texts cut short");
        fs::remove_file(texts_path(&path)).unwrap();
        assert!(Index::load(&path, false).is_err(), "texts missing");
    }
}
