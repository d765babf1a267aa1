//! Reading a session file into the manager's two views of it: the reader's lean entries (which
//! decide everything about the tree: skipped lines, duplicate ids, v1/v2 migration, cycles) and a
//! typed entry for each of them, built from the same line (migrated the same way for legacy files).

use std::path::Path;

use color_eyre::eyre::WrapErr;
use serde::Deserialize;

use super::error::{Error, Result};
use super::types::{SessionEntry, SessionHeader};
use crate::session::content::parse_json;
use crate::session::parse::{CURRENT_VERSION, Damage, FileFacts, ParseError, parse_bytes};
use crate::session::{Entry, line};
use crate::store::migrate::migrated_entry_json;

/// A session file as read.
pub(super) struct Loaded {
    /// The header, at version 3 for a legacy file (as pi shows it after migrating).
    pub header: SessionHeader,
    pub entries: Vec<SessionEntry>,
    pub lean: Vec<Entry>,
    pub damage: Vec<Damage>,
    pub facts: FileFacts,
    /// The version on disk, when it is a legacy (v1/v2) file not migrated on disk yet.
    pub legacy_version: Option<u32>,
}

/// What is at a session path.
pub(super) enum FileState {
    Missing,
    /// 0 bytes.
    Empty,
    Session(Box<Loaded>),
}

/// Read the session at `path`. A non-empty file that is not a session is an error (and is not
/// touched), as in pi 1.6.0.
pub(super) fn read_session(path: &Path) -> Result<FileState> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileState::Missing),
        Err(e) => {
            let report = color_eyre::Report::new(e).wrap_err(format!("cannot read {}", path.display()));
            return Err(Error::Storage(report));
        }
    };
    let parsed = match parse_bytes(&bytes, path.to_path_buf()) {
        Ok(p) => p,
        Err(ParseError::Empty) => return Ok(FileState::Empty),
        Err(_) => return Err(Error::NotASession(path.to_path_buf())),
    };
    if !parsed.header.id_is_string {
        return Err(Error::NotASession(path.to_path_buf()));
    }
    let version = parsed.header.version;
    let legacy_version = (version < CURRENT_VERSION).then_some(version);
    let shown_version = if legacy_version.is_some() { CURRENT_VERSION } else { version };
    let header = typed_header(&bytes, parsed.header.line, shown_version)
        .ok_or_else(|| Error::NotASession(path.to_path_buf()))?;
    let entries = parsed
        .entries
        .iter()
        .map(|lean| typed_entry(&bytes, lean, legacy_version.is_some()))
        .collect::<color_eyre::Result<Vec<_>>>()
        .wrap_err_with(|| format!("cannot read the entries of {}", path.display()))?;
    Ok(FileState::Session(Box::new(Loaded {
        header,
        entries,
        lean: parsed.entries,
        damage: parsed.damage,
        facts: parsed.facts,
        legacy_version,
    })))
}

/// The header line (1-based `line`) as a typed header at `version`: the version the file is read
/// as, whatever JSON value it has on disk (pi takes it as JavaScript's `ToNumber` does, so `"3"`
/// is 3). The header read from a file is never written back.
fn typed_header(bytes: &[u8], line: u32, version: u32) -> Option<SessionHeader> {
    let text = bytes.split(|b| *b == b'\n').nth(line as usize - 1)?;
    let mut value = parse_json(text).ok()?;
    value.as_object_mut()?.remove("version");
    let header = SessionHeader::deserialize(value).ok()?;
    Some(SessionHeader { version: Some(version), ..header })
}

/// The typed form of one lean entry, read from its bytes; a legacy entry is migrated as pi does.
fn typed_entry(bytes: &[u8], lean: &Entry, legacy: bool) -> color_eyre::Result<SessionEntry> {
    let text = &bytes[lean.span.start as usize..lean.span.end as usize];
    if !legacy && let Ok(entry) = serde_json::from_slice::<SessionEntry>(text) {
        return Ok(entry);
    }
    let mut value = parse_json(text)?;
    if legacy {
        value = migrated_entry_json(value, lean);
    }
    Ok(SessionEntry::deserialize(value)?)
}

/// The reader's lean entry for a typed entry, from the JSON line it is written as.
pub(super) fn lean_entry(line_json: &str, line_no: u32) -> Result<Entry> {
    match line::parse_line(line_json.as_bytes(), line_no, 0) {
        line::Line::Entry(e) => Ok(e),
        _ => Err(Error::InvalidEntry(format!("an entry needs a string id: {line_json}"))),
    }
}
