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
use std::ops::Range;
use std::path::PathBuf;

use clap::Args;
use color_eyre::eyre::Result;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};
use serde_json::{Value, json};

use super::open::{keeping, read_or_say};
use crate::catalog::session_cache::{self, Level, SessionCache};
use crate::json_text::Object;
use crate::session::Session;
use crate::session::flatten::{Filter, FilterMode, Forest, PlainRow, RowContext, Rows};
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

/// Rows are made this many at a time and written in order (a block of JSON rows is ~3 MB, of text
/// rows ~0.8 MB) ...
const ROWS_AT_ONCE: usize = 4096;

/// ... by parallel tasks, each writing this many of them to a buffer of its own.
const ROWS_PER_TASK: usize = 256;

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

    /// The rows written by `make`, each call writing a run of rows to a buffer, a block of rows at
    /// a time (the runs of a block in parallel), in order.
    fn made_rows<'s, B: Send + 's>(
        &'s self,
        make: impl Fn(Range<usize>, &RowContext<'_>) -> B + Sync + 's,
    ) -> impl Iterator<Item = B> + 's {
        (0..self.rows.len()).step_by(ROWS_AT_ONCE).flat_map(move |start| {
            let end = (start + ROWS_AT_ONCE).min(self.rows.len());
            let made: Vec<B> = (start..end)
                .into_par_iter()
                .step_by(ROWS_PER_TASK)
                .map_init(|| self.cx(), |cx, at| make(at..(at + ROWS_PER_TASK).min(end), cx))
                .collect();
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
        document(args, view, &mut out)?;
        writeln!(out)?;
    } else {
        for text in view.made_rows(|rows, cx| plain_rows(view, rows, cx)) {
            out.write_all(text.as_bytes())?;
        }
    }
    out.flush()?;
    Ok(())
}

/// `rows` as text, a line each.
fn plain_rows(view: &View<'_>, rows: Range<usize>, cx: &RowContext<'_>) -> String {
    let mut text = String::with_capacity(rows.len() * BYTES_PER_ROW);
    for r in view.rows.prefetched(rows, cx) {
        view.rows.write_plain(r, cx, &mut text);
        text.push('\n');
    }
    text
}

/// Room made for a row of text at first (the bench session's rows take ~200 bytes).
const BYTES_PER_ROW: usize = 256;

/// The JSON object of the module docs, laid out as serde_json's pretty printer lays it out and
/// written as it is made (the rows are never all in memory).
fn document(args: &ShowArgs, view: &View<'_>, out: &mut impl Write) -> Result<()> {
    let session = view.session;
    let damaged: Vec<Value> =
        session.file.damage.iter().map(|d| json!({"line": d.line, "reason": d.kind.describe()})).collect();
    let mut doc = Object::pretty(out, 0)?;
    pretty(doc.key("file")?, 1, &args.file)?;
    pretty(doc.key("sessionId")?, 1, &session.header().id)?;
    pretty(doc.key("leafId")?, 1, &session.graph.leaf().map(|l| &session.entry(l).id))?;
    pretty(doc.key("name")?, 1, &session.graph.name())?;
    doc.str("filter", args.filter.name())?;
    entries(view, doc.key("entries")?)?;
    pretty(doc.key("damagedLines")?, 1, &damaged)?;
    doc.close()?;
    Ok(())
}

/// `value` as serde_json's pretty printer writes it `depth` levels deep into a document.
fn pretty(out: &mut impl Write, depth: usize, value: &(impl Serialize + ?Sized)) -> Result<()> {
    let mut formatter = PrettyFormatter::new();
    for _ in 0..depth {
        formatter.begin_array(&mut std::io::sink())?;
    }
    value.serialize(&mut serde_json::Serializer::with_formatter(out, formatter))?;
    Ok(())
}

/// The `entries` array: the visible rows, each made when its block is written.
fn entries(view: &View<'_>, out: &mut impl Write) -> Result<()> {
    if view.rows.is_empty() {
        out.write_all(b"[]")?;
        return Ok(());
    }
    out.write_all(b"[")?;
    for json in view.made_rows(|rows, cx| rows_json(view, rows, cx)) {
        out.write_all(&json?)?;
    }
    out.write_all(b"\n  ]")?;
    Ok(())
}

/// `rows` as elements of `entries`, each after its separator.
fn rows_json(view: &View<'_>, rows: Range<usize>, cx: &RowContext<'_>) -> Result<Vec<u8>> {
    let mut json = Vec::with_capacity(rows.len() * JSON_BYTES_PER_ROW);
    let mut text = String::new();
    for r in view.rows.prefetched(rows, cx) {
        json.extend_from_slice(if r == 0 { b"\n    " } else { b",\n    " });
        text.clear();
        let plain = view.rows.write_plain(r, cx, &mut text);
        entry_json(&mut json, view, r, &text, &plain)?;
    }
    Ok(json)
}

/// Room made for a row of JSON at first (the bench session's take ~700 bytes).
const JSON_BYTES_PER_ROW: usize = 768;

/// Row `r`, written as `text` with its parts at `plain`, as the element of `entries` the module
/// docs describe: the object serde_json's pretty printer writes two levels deep.
fn entry_json(json: &mut Vec<u8>, view: &View<'_>, r: usize, text: &str, plain: &PlainRow) -> Result<()> {
    let entry = view.session.entry(view.rows.entry(r));
    let mut o = Object::pretty(json, 2)?;
    o.str("id", &entry.id)?;
    o.opt_str("parentId", entry.parent_id.as_deref())?;
    o.str("type", entry.type_name())?;
    o.opt_str("role", entry.role())?;
    o.value("line", entry.line)?;
    o.value("depth", view.rows.display_indent(r))?;
    o.str("prefix", &text[plain.prefix.clone()])?;
    o.str("text", &text[plain.text.clone()])?;
    o.opt_str("label", plain.label.clone().map(|label| &text[label]))?;
    o.value("onActivePath", plain.on_path)?;
    o.value("isLeaf", plain.is_leaf)?;
    o.str("row", text)?;
    o.close()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each element of `entries` is what serde_json's pretty printer writes for the object of
    /// the module docs two levels deep, strings to escape or not, labels or none.
    #[test]
    fn an_entry_is_written_as_serde_json_writes_it() {
        let lines = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#,
            r#"{"type":"message","id":"u\"1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"say \"hi\" in C:\\dir ✨"}}"#,
            r#"{"type":"message","id":"a1","parentId":"u\"1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"plain"}]}}"#,
            r#"{"type":"message","id":"u2","parentId":"u\"1","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"other"}}"#,
            r#"{"type":"label","id":"l1","parentId":"u2","timestamp":"2025-01-01T00:00:04.000Z","targetId":"a1","label":"a \\ label"}"#,
        ];
        let file = crate::session::parse::parse_bytes(lines.join("\n").as_bytes(), "t.jsonl".into()).unwrap();
        let session = Session::from_parsed(file);
        let view = View::of(&session, FilterMode::All);
        let cx = view.cx();
        assert_eq!(view.rows.len(), 4);
        for r in 0..view.rows.len() {
            let mut text = String::new();
            let plain = view.rows.write_plain(r, &cx, &mut text);
            let mut ours = Vec::new();
            entry_json(&mut ours, &view, r, &text, &plain).unwrap();
            let entry = session.entry(view.rows.entry(r));
            let parts = view.rows.parts(r, &cx);
            let value = json!({
                "id": entry.id, "parentId": entry.parent_id, "type": entry.type_name(),
                "role": entry.role(), "line": entry.line, "depth": view.rows.display_indent(r),
                "prefix": parts.prefix, "text": parts.text.plain(), "label": parts.label,
                "onActivePath": !parts.path_marker.is_empty(), "isLeaf": parts.is_leaf,
                "row": parts.plain(),
            });
            let mut serde = Vec::new();
            pretty(&mut serde, 2, &value).unwrap();
            assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(serde).unwrap());
        }
    }
}
