//! The index's texts file: every session's `allMessagesText`, appended by each save and read back
//! whole or later ([`TextsOnDisk`]), with its own magic and random id; the records name their
//! texts by place, length and hash ([`TextRef`]). See the module docs of [`super`] for the rules.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, WrapErr, bail, eyre};
use rayon::prelude::*;

use super::record::{PendingTexts, Record, Slot, Stored, TextRef, path_key, read_at};
use crate::catalog::cache_file::temp_name;
use crate::catalog::hash::{FastMap, hash64};
use crate::catalog::scan::ScanState;
use crate::session::content::open_regular;

/// The magic a texts file starts with, before its id.
const TEXTS_MAGIC: &[u8; 8] = b"PITREETX";

/// The texts file's magic and id.
pub(super) const TEXTS_HEADER_LEN: u64 = 16;
/// A texts file smaller than this is never compacted.
pub(super) const COMPACT_MIN: u64 = 4 << 20;
/// Texts appended with one `writev` call (Linux takes at most 1,024 buffers in one).
pub(super) const TEXTS_PER_WRITE: usize = 1024;

/// A text with more pieces than this is written again as one piece.
const MAX_PIECES: usize = 16;

/// The texts file a save appends to, with its id and length.
pub(super) struct TextsFile {
    file: File,
    pub(super) id: u64,
    pub(super) len: u64,
}

impl TextsFile {
    /// The texts file at `path` if it is one, else a new one.
    pub(super) fn open_or_create(path: &Path) -> Result<TextsFile> {
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
    pub(super) fn create(path: &Path) -> Result<TextsFile> {
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
    pub(super) fn place(
        &mut self,
        records: &[&Record],
        plans: &[Plan],
        new_texts: &[&str],
    ) -> Result<Vec<Stored>> {
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
    pub(super) fn append(&self, texts: &[&str]) -> Result<()> {
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
    pub(super) fn plan_texts(&self, r: &Record, source: Option<TextSource<'_>>) -> Result<Plan> {
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
pub(super) enum Plan {
    /// They are in the file already, there.
    Keep(Stored),
    /// Pieces already in the file, then the new text of each state (`None`: the state's
    /// `all_text`, in memory).
    Write { prefix: Vec<TextRef>, resume: Option<String>, tail: Option<String> },
}

impl Plan {
    /// The new text of the resume state and of the tail state (if the record has one).
    pub(super) fn texts<'a>(&'a self, r: &'a Record) -> [Option<&'a str>; 2] {
        let Plan::Write { resume, tail, .. } = self else { return [None, None] };
        let resume = resume.as_deref().unwrap_or(&r.resume.state.all_text);
        let tail = r.tail.as_ref().map(|t| tail.as_deref().unwrap_or(&t.all_text));
        [Some(resume), tail]
    }

    /// Whether a state's new `text` after `prefix` is written as a piece of its own.
    pub(super) fn appends(prefix: &[TextRef], text: &str) -> bool {
        prefix.is_empty() || !text.is_empty()
    }

    /// The texts this plan appends, in order.
    pub(super) fn new_texts<'a>(&'a self, r: &'a Record) -> Vec<&'a str> {
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
pub(super) fn live_texts_len(records: &[&Record]) -> u64 {
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
    pub(super) file: &'a File,
    pub(super) id: u64,
}

impl TextSource<'_> {
    /// The text made of `pieces`, read and checked.
    pub(super) fn text(&self, pieces: &[TextRef]) -> Result<String> {
        pieces.iter().map(|p| read_text(self.file, p)).collect()
    }

    /// The resume and tail texts at `stored`.
    pub(super) fn texts(&self, stored: &Stored) -> Result<[Option<String>; 2]> {
        let tail = stored.tail.as_deref().map(|t| self.text(t)).transpose()?;
        Ok([Some(self.text(&stored.resume)?), tail])
    }
}

/// The texts of `records` in `pending`; `by_path` has each record's place in the index file (a
/// record taken from [`Records`] has its own slot under its key).
pub(super) fn defer(pending: PendingTexts, records: &[Record], by_path: &FastMap<u64, usize>) -> TextsOnDisk {
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

/// The texts file next to the records file `index`.
pub fn texts_path(index: &Path) -> PathBuf {
    index.with_extension("texts")
}

/// Open the texts file at `path` if it is the one with `id` and holds at least `len` bytes.
pub(super) fn open_texts(path: &Path, id: u64, len: u64) -> Result<File> {
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
pub(super) fn texts_id(file: &File) -> Result<u64> {
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

    /// Read the texts on this thread, with the checks of [`super::Index::load`] (each piece's
    /// hash, UTF-8): one per path, its pieces joined.
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
pub(super) fn read_texts(pending: &PendingTexts) -> Result<Vec<String>> {
    pending.refs.par_iter().map(|(_, _, text)| read_text(&pending.file, text)).collect()
}

/// Add `text` (a piece) to the state `slot` of `record`.
pub(super) fn set_text(record: Option<&mut Record>, slot: Slot, text: String) -> Result<()> {
    let record = record.ok_or_else(|| eyre!("an index text has no record"))?;
    match (slot, record.tail.as_mut()) {
        (Slot::Resume, _) => record.resume.state.all_text.push_str(&text),
        (Slot::Tail, Some(tail)) => tail.all_text.push_str(&text),
        (Slot::Tail, None) => bail!("an index text has no record"),
    }
    Ok(())
}

impl PendingTexts {
    /// The texts file these texts are in, as a source for a save.
    pub(super) fn source(&self) -> TextSource<'_> {
        TextSource { file: &self.file, id: self.id }
    }
}
