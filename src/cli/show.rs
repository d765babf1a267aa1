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
use serde_json::{Value, json};

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

pub fn run(args: &ShowArgs, out: &mut dyn Write) -> Result<()> {
    let session = super::open_session(&args.file)?;
    let home = dirs::home_dir().map(|h| h.to_string_lossy().into_owned());
    let forest = Forest::build(&session.graph);
    let calls = ToolCalls::build(session.entries(), forest.order());
    let folded = HashSet::new();
    let filter = Filter { mode: args.filter, matches: None, folded: &folded };
    let rows = Rows::build(&forest, &session, filter);
    let cx = RowContext {
        session: &session,
        forest: &forest,
        calls: &calls,
        folded: &folded,
        home: home.as_deref(),
        leaf_row: rows.leaf_row(&session),
        label_time: None,
    };
    if args.json {
        let doc = document(args, &session, &rows, &cx);
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        for r in 0..rows.len() {
            writeln!(out, "{}", rows.parts(r, &cx).plain())?;
        }
    }
    Ok(())
}

fn document(args: &ShowArgs, session: &Session, rows: &Rows, cx: &RowContext<'_>) -> Value {
    let entries: Vec<Value> = (0..rows.len())
        .map(|r| {
            let entry = session.entry(rows.entry(r));
            let parts = rows.parts(r, cx);
            json!({
                "id": entry.id, "parentId": entry.parent_id, "type": entry.type_name(),
                "role": entry.role(), "line": entry.line, "depth": rows.display_indent(r),
                "prefix": parts.prefix, "text": parts.text.plain(), "label": parts.label,
                "onActivePath": !parts.path_marker.is_empty(), "isLeaf": parts.is_leaf,
                "row": parts.plain(),
            })
        })
        .collect();
    let damaged: Vec<Value> =
        session.file.damage.iter().map(|d| json!({"line": d.line, "reason": d.kind.describe()})).collect();
    json!({
        "file": args.file, "sessionId": session.header().id,
        "leafId": session.graph.leaf().map(|l| session.entry(l).id.clone()),
        "name": session.graph.name(), "filter": args.filter.name(),
        "entries": entries, "damagedLines": damaged,
    })
}
