//! How the manager writes, always through [`crate::store`]: nothing until the conversation has a
//! user or assistant message (pi 1.6.0), then the whole file at once with an exclusive create (the
//! file must not exist), then one safe append per entry. A legacy (v1/v2) file is migrated on disk,
//! with a backup, before the first append to it.

use std::path::Path;

use color_eyre::eyre::{WrapErr, eyre};

use super::error::{Error, Result};
use super::json::to_json_string;
use super::state::{OnDisk, SessionManager};
use crate::session::Session;
use crate::session::parse::FileFacts;
use crate::store::WriteError;
use crate::store::append::{append_line, create_new};
use crate::store::migrate::migrate_on_disk;

impl SessionManager {
    /// Write the entry just added (its JSON is `line`), as pi's `_persist` does.
    pub(super) fn persist_last(&mut self, line: &str) -> Result<()> {
        let Some(path) = self.file.clone().filter(|_| self.persist) else {
            return Ok(());
        };
        match &self.disk {
            None if !self.has_conversation => Ok(()),
            None => self.write_new_file(&path),
            Some(_) => self.append(&path, line),
        }
    }

    /// Create `path` holding the header and every entry; refuses if the file exists.
    pub(super) fn write_new_file(&mut self, path: &Path) -> Result<()> {
        let header = to_json_string(&self.header);
        let mut text = format!("{header}\n");
        for entry in &self.entries {
            text.push_str(&to_json_string(entry));
            text.push('\n');
        }
        create_new(path, text.as_bytes()).wrap_err_with(|| format!("cannot create {}", path.display()))?;
        self.disk = Some(OnDisk {
            facts: FileFacts {
                len: text.len() as u64,
                ends_with_newline: true,
                lines: self.entries.len() as u32 + 1,
                first_line: header.into_bytes(),
            },
            legacy_version: None,
        });
        Ok(())
    }

    /// Write a fresh header into the empty file at `path` (pi does this when it opens a 0-byte
    /// file); refuses if the file is no longer empty.
    pub(super) fn write_header_into_empty_file(&mut self, path: &Path) -> Result<()> {
        let header = to_json_string(&self.header);
        append_line(path, &FileFacts::default(), header.as_bytes()).map_err(|e| write_error(path, e))?;
        self.disk = Some(OnDisk {
            facts: FileFacts {
                len: header.len() as u64 + 1,
                ends_with_newline: true,
                lines: 1,
                first_line: header.into_bytes(),
            },
            legacy_version: None,
        });
        Ok(())
    }

    fn append(&mut self, path: &Path, line: &str) -> Result<()> {
        if self.disk.as_ref().is_some_and(|d| d.legacy_version.is_some()) {
            self.migrate_file(path)?;
        }
        let disk = self.disk.as_mut().expect("append is only called for a written file");
        let start = append_line(path, &disk.facts, line.as_bytes()).map_err(|e| write_error(path, e))?;
        disk.facts.len = start + line.len() as u64 + 1;
        disk.facts.lines += 1;
        disk.facts.ends_with_newline = true;
        Ok(())
    }

    /// Migrate the legacy file on disk (backup kept as `<file>.v<N>.bak`), after checking that it
    /// is still the file that was read, and that the migration gave the entries the ids the
    /// manager already uses.
    fn migrate_file(&mut self, path: &Path) -> Result<()> {
        let read = &self.disk.as_ref().expect("a written file").facts;
        let on_disk = open_lean(path)?;
        if on_disk.file.facts != *read {
            let source =
                if on_disk.file.facts.len > read.len { WriteError::Grew } else { WriteError::Replaced };
            return Err(Error::FileChanged { path: path.to_path_buf(), source });
        }
        let root = path.parent().unwrap_or(Path::new("."));
        let backup = migrate_on_disk(&on_disk, root)?;
        let migrated = open_lean(path)?;
        let written = self.lean.len() - 1;
        let same_ids = migrated.entries().len() == written
            && migrated.entries().iter().zip(&self.lean).all(|(a, b)| a.id == b.id);
        if !same_ids {
            return Err(Error::Storage(eyre!(
                "{} was migrated (backup: {}), but its entry ids differ from the ones read; open it again",
                path.display(),
                backup.display()
            )));
        }
        self.disk = Some(OnDisk { facts: migrated.file.facts, legacy_version: None });
        self.backup = Some(backup);
        Ok(())
    }
}

fn open_lean(path: &Path) -> Result<Session> {
    Session::open(path).map_err(|e| Error::Storage(eyre!("cannot read {}: {e}", path.display())))
}

/// A refused or failed write: a changed file is [`Error::FileChanged`], the rest is storage.
fn write_error(path: &Path, e: WriteError) -> Error {
    match e {
        WriteError::Grew | WriteError::Shrank { .. } | WriteError::Replaced => {
            Error::FileChanged { path: path.to_path_buf(), source: e }
        }
        other => Error::Storage(
            color_eyre::Report::new(other).wrap_err(format!("cannot write to {}", path.display())),
        ),
    }
}
