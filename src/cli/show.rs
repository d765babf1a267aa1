//! `pitree show`: a session's tree as text, row for row as the tree view draws it (without the
//! cursor), or as one JSON object for scripts.
//!
//! The JSON object:
//! ```text
//! { "file": path, "sessionId": header id, "leafId": id | null, "name": session name | null,
//!   "filter": "default" | "no-tools" | "user-only" | "labeled-only" | "all",
//!   "entries": [ { "id", "parentId" (real parent, null for a root), "type" (the entry's type),
//!                  "role" (messages only, else null), "line" (1-based line in the file),
//!                  "depth" (indent level drawn), "prefix" (tree drawing), "text" (row text),
//!                  "label" | null, "onActivePath" (on the path root → leaf), "isLeaf" (the row that
//!                  stands for the leaf), "row" (the whole row as printed) } ],
//!   "damagedLines": [ { "line", "reason" } ] }
//! ```
//! `entries` holds the visible rows of the chosen filter in display order.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use color_eyre::eyre::Result;
use rayon::prelude::*;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde_json::{Value, json};

use super::open::{keeping, read_or_say};
use crate::catalog::session_cache::{self, Level, SessionCache};
use crate::session::Session;
use crate::session::flatten::{Filter, FilterMode, Forest, RowContext, Rows};
use crate::session::text::ToolCalls;

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The session file.
    pub file: PathBuf,
    /// Which rows to show: default, no-tools, user-only, labeled-only or all (as Ctrl+D/T/U/L/A).
    #[arg(long, value_name = "MODE", default_value = "default")]
    pub filter: FilterMode,
    /// Print one JSON object: {file, sessionId, leafId, name, filter, entries:[{id, parentId, type,
    /// role, line, depth, prefix, text, label, onActivePath, isLeaf, row}], damagedLines:[{line, reason}]}.
    #[arg(long)]
    pub json: bool,
}

/// Rows are made this many at a time, in parallel, and written in order (a block of JSON rows
/// is ~2 MB; 4,096 at a time put `show --json` over half the bench session's size at its peak).
const ROWS_AT_ONCE: usize = 1024;

/// What every row is made from.
struct View<'a> {
    session: &'a Session,
    forest: Forest,
    calls: ToolCalls,
    folded: HashSet<u32>,
    rows: Rows,
    /// The row standing for the leaf ([`Rows::leaf_row`]).
    leaf_row: Option<usize>,
    home: Option<String>,
}

impl View<'_> {
    /// The rows of `session` under `filter`, nothing folded.
    fn of(session: &Session, filter: FilterMode) -> View<'_> {
        let forest = Forest::build(&session.graph);
        let calls = ToolCalls::build(session.entries(), forest.order());
        let folded = HashSet::new();
        let rows = Rows::build(&forest, session, Filter { mode: filter, matches: None, folded: &folded });
        let leaf_row = rows.leaf_row(session);
        let home = dirs::home_dir().map(|h| h.to_string_lossy().into_owned());
        View { session, forest, calls, folded, rows, leaf_row, home }
    }

    fn cx(&self) -> RowContext<'_> {
        RowContext {
            session: self.session,
            forest: &self.forest,
            calls: &self.calls,
            folded: &self.folded,
            home: self.home.as_deref(),
            leaf_row: self.leaf_row,
            label_time: None,
        }
    }

    /// Each row's output made by `make`, a block of rows at a time (the rows of a block in
    /// parallel), in order.
    fn made_rows<'s, T: Send + 's>(
        &'s self,
        make: impl Fn(usize, &RowContext<'_>) -> T + Sync + 's,
    ) -> impl Iterator<Item = T> + 's {
        (0..self.rows.len()).step_by(ROWS_AT_ONCE).flat_map(move |start| {
            let end = (start + ROWS_AT_ONCE).min(self.rows.len());
            let made: Vec<T> =
                (start..end).into_par_iter().map_init(|| self.cx(), |cx, r| make(r, cx)).collect();
            made
        })
    }
}

pub fn run(args: &ShowArgs, cache: Option<&SessionCache>, out: &mut dyn Write) -> Result<()> {
    let read = read_or_say(&args.file, session_cache::read(cache, &args.file, Level::Whole))?;
    let session = Session::from_parsed(read.file);
    keeping(session, cache.zip(read.keep), |session| {
        let view = View::of(session, args.filter);
        let written = write_rows(args, &view, out);
        // Left to the process's end with the session.
        std::mem::forget(view);
        written
    })
}

/// Every row, as text or as the JSON object of the module docs.
fn write_rows(args: &ShowArgs, view: &View<'_>, out: &mut dyn Write) -> Result<()> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    if args.json {
        let mut json = serde_json::Serializer::pretty(&mut out);
        document(args, view, &mut json)?;
        writeln!(out)?;
    } else {
        for row in view.made_rows(|r, cx| view.rows.parts(r, cx).plain()) {
            writeln!(out, "{row}")?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The JSON object of the module docs, written as it is made (the rows are never all in memory).
fn document<W: Write>(
    args: &ShowArgs,
    view: &View<'_>,
    json: &mut serde_json::Serializer<W, serde_json::ser::PrettyFormatter<'_>>,
) -> Result<()> {
    let session = view.session;
    let mut doc = json.serialize_map(None)?;
    doc.serialize_entry("file", &args.file)?;
    doc.serialize_entry("sessionId", &session.header().id)?;
    doc.serialize_entry("leafId", &session.graph.leaf().map(|l| session.entry(l).id.clone()))?;
    doc.serialize_entry("name", &session.graph.name())?;
    doc.serialize_entry("filter", args.filter.name())?;
    doc.serialize_entry("entries", &Entries(view))?;
    let damaged: Vec<Value> =
        session.file.damage.iter().map(|d| json!({"line": d.line, "reason": d.kind.describe()})).collect();
    doc.serialize_entry("damagedLines", &damaged)?;
    SerializeMap::end(doc)?;
    Ok(())
}

/// The `entries` array: the visible rows, each made when it is written.
struct Entries<'v, 'a>(&'v View<'a>);

impl serde::Serialize for Entries<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let view = self.0;
        let mut seq = serializer.serialize_seq(Some(view.rows.len()))?;
        for row in view.made_rows(|r, cx| row_json(view, r, cx)) {
            seq.serialize_element(&row)?;
        }
        seq.end()
    }
}

fn row_json(view: &View<'_>, r: usize, cx: &RowContext<'_>) -> Value {
    let entry = view.session.entry(view.rows.entry(r));
    let parts = view.rows.parts(r, cx);
    json!({
        "id": entry.id, "parentId": entry.parent_id, "type": entry.type_name(),
        "role": entry.role(), "line": entry.line, "depth": view.rows.display_indent(r),
        "prefix": parts.prefix, "text": parts.text.plain(), "label": parts.label,
        "onActivePath": !parts.path_marker.is_empty(), "isLeaf": parts.is_leaf,
        "row": parts.plain(),
    })
}
