//! One session file, read-only: its entries, their tree, and what the model sees at a leaf.
//! Nothing here knows about terminals or writes files.

pub mod content;
pub mod context;
pub mod date;
pub mod entry;
pub mod flatten;
pub mod graph;
pub mod ids;
pub mod js;
pub mod line;
mod literal;
pub(crate) mod loose;
pub mod parse;
pub(crate) mod skim;
pub mod summary;
pub mod text;
pub mod tool_args;
pub mod walk;

use std::path::Path;

pub use entry::{Entry, Kind};
pub use graph::{Graph, Ix};
pub use parse::{Damage, DamageKind, Header, ParseError, ParsedFile};

/// A parsed session with its tree.
#[derive(Debug, Clone)]
pub struct Session {
    pub file: ParsedFile,
    pub graph: Graph,
}

impl Session {
    /// Read and parse the session file at `path`.
    pub fn open(path: &Path) -> Result<Session, ParseError> {
        Ok(Session::from_parsed(parse::parse_file(path)?))
    }

    /// The outline of the session file at `path`: the whole tree, with each message read only as
    /// far as the tree view's structure and filters need (no row text). A big session's first
    /// frame is drawn from it, with the rows on screen filled in by [`Session::fill`], while the
    /// file is parsed whole for everything else.
    pub fn outline(path: &Path) -> Result<Session, ParseError> {
        Ok(Session::from_parsed(parse::outline_file(path)?))
    }

    /// Read the entries `ixs` of an outline whole from the file, as [`Session::open`] reads them.
    /// Their place in the tree does not change: an entry is replaced only by a line that reads as
    /// the same id.
    pub fn fill(&mut self, ixs: impl IntoIterator<Item = Ix>) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        let file = content::open_regular(&self.file.path)?;
        let mut bytes = Vec::new();
        for ix in ixs {
            let entry = &mut self.file.entries[ix as usize];
            bytes.resize((entry.span.end - entry.span.start) as usize, 0);
            file.read_exact_at(&mut bytes, entry.span.start)?;
            if let line::Line::Entry(full) = walk::whole_line(&bytes, entry.line, entry.span.start)
                && full.id == entry.id
            {
                *entry = full;
            }
        }
        Ok(())
    }

    /// The session as its file is now. A file that only grew (pi appended, or pitree wrote) has
    /// only its new lines read, so a 300 MB session being written to is not parsed again each
    /// time; anything else is read whole ([`parse::parse_appended`]).
    pub fn reread(&self) -> Result<Session, ParseError> {
        match parse::parse_appended(&self.file)? {
            Some(file) => Ok(Session::from_parsed(file)),
            None => Session::open(&self.file.path),
        }
    }

    pub fn from_parsed(mut file: ParsedFile) -> Session {
        let ids = std::mem::take(&mut file.ids);
        let graph = Graph::with_ids(&file.entries, ids, file.leaf);
        Session { file, graph }
    }

    pub fn entries(&self) -> &[Entry] {
        &self.file.entries
    }

    pub fn entry(&self, ix: Ix) -> &Entry {
        &self.file.entries[ix as usize]
    }

    pub fn header(&self) -> &Header {
        &self.file.header
    }

    /// Find an entry by exact id, or by a prefix that only one entry id starts with.
    pub fn resolve_id(&self, id_or_prefix: &str) -> Result<Ix, IdLookupError> {
        if let Some(ix) = self.graph.find(id_or_prefix) {
            return Ok(ix);
        }
        let mut matches = self.entries().iter().enumerate().filter(|(_, e)| e.id.starts_with(id_or_prefix));
        match (matches.next(), matches.next()) {
            (Some((ix, _)), None) if !id_or_prefix.is_empty() => Ok(ix as Ix),
            (Some(_), Some(_)) => Err(IdLookupError::Ambiguous(id_or_prefix.to_string())),
            _ => Err(IdLookupError::NotFound(id_or_prefix.to_string())),
        }
    }

    /// The entries pi would put in the model's context at `leaf`.
    pub fn context_entries(&self, leaf: Option<Ix>) -> Vec<Ix> {
        context::context_entries(&self.graph, self.entries(), leaf)
    }

    pub fn context_messages(&self, leaf: Option<Ix>) -> Vec<context::ContextMessage> {
        context::context_messages(&self.graph, self.entries(), leaf)
    }

    /// The text a context message carries: its content (or the `context_edit` replacement that
    /// stands in for it), a summary's text, or a compaction's system prompt snapshot.
    pub fn context_text(&self, m: &context::ContextMessage) -> color_eyre::Result<Option<String>> {
        let source = self.load(m.replaced_by.unwrap_or(m.entry))?;
        Ok(match (m.role.as_str(), m.replaced_by) {
            (_, Some(_)) => source
                .get("replacement")
                .and_then(|r| r.get("content"))
                .and_then(|c| content::content_text(c, "\n")),
            ("system", None) if source["type"] == "compaction" => {
                content::content_text(&source["systemMessage"]["content"], "\n")
            }
            _ => content::entry_text(&source),
        })
    }

    /// Load an entry's full JSON from the file.
    pub fn load(&self, ix: Ix) -> color_eyre::Result<serde_json::Value> {
        content::load_entry(&self.file.path, &self.entry(ix).span)
    }
}

/// An id given on the command line that does not name exactly one entry.
#[derive(Debug, Clone, PartialEq)]
pub enum IdLookupError {
    NotFound(String),
    Ambiguous(String),
}

impl std::fmt::Display for IdLookupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IdLookupError::NotFound(id) => write!(f, "no entry id starts with '{id}'"),
            IdLookupError::Ambiguous(id) => {
                write!(f, "'{id}' is the start of more than one entry id; give more characters")
            }
        }
    }
}

impl std::error::Error for IdLookupError {}
