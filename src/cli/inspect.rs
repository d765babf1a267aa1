//! `pitree context`: what the model would see if pi resumed at the leaf (or at a chosen entry).
//!
//! It reads the session's outline (the tree without row texts, [`crate::session::walk`]),
//! which has all the context is made of but the messages' texts, read from their lines. The
//! outline is kept in the parsed-session cache; from there the next run reads only the session's
//! skeleton (its graph, with no message bodies) and what was appended since, and then the
//! entries on the path to the leaf whole.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use color_eyre::eyre::{Result, eyre};
use serde_json::{Value, json};

use super::open::{keeping, read_or_say};
use crate::catalog::session_cache::{self, SessionCache};
use crate::display::sanitize;
use crate::session::{Ix, Session, context};

#[derive(Args, Debug)]
pub struct ContextArgs {
    /// The session file.
    pub file: PathBuf,
    /// Build the context at this entry instead of the leaf (id or unique prefix).
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
    /// Print one JSON object: {file, leafId, thinkingLevel, model, messages:[{entryId, role, text, editedBy}]}.
    #[arg(long)]
    pub json: bool,
}

pub fn context(args: &ContextArgs, cache: Option<&SessionCache>, out: &mut dyn Write) -> Result<()> {
    let read = read_or_say(&args.file, session_cache::read_skeleton(cache, &args.file))?;
    let mut session = Session::from_parsed(read.file);
    let leaf = match &args.leaf {
        Some(id) => Some(session.resolve_id(id).map_err(|e| eyre!("{e}"))?),
        None => session.graph.leaf(),
    };
    // An outline has all the context needs; a skeleton has no message bodies.
    if let Some(leaf) = leaf.filter(|_| read.skeleton) {
        session.fill(session.graph.path_to(leaf))?;
    }
    keeping(session, cache.zip(read.keep), |session| write_context(args, session, leaf, out))
}

/// What the model sees at `leaf` of `session` (read as far as the path to it), as text or JSON.
fn write_context(args: &ContextArgs, session: &Session, leaf: Option<Ix>, out: &mut dyn Write) -> Result<()> {
    let messages = session.context_messages(leaf);
    let settings = context::settings(&session.graph, session.entries(), leaf);
    let items: Vec<Value> = messages.iter().map(|m| message_json(session, m)).collect::<Result<_>>()?;
    if args.json {
        let model = settings.model.map(|(p, m)| json!({"provider": p, "modelId": m}));
        let doc = json!({
            "file": args.file, "leafId": leaf.map(|l| session.entry(l).id.clone()),
            "thinkingLevel": settings.thinking_level, "model": model, "messages": items,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        return Ok(());
    }
    for item in &items {
        let text = item["text"].as_str().unwrap_or("");
        writeln!(out, "[{}] {}", item["role"].as_str().unwrap_or(""), sanitize(text))?;
    }
    Ok(())
}

fn message_json(session: &Session, m: &context::ContextMessage) -> Result<Value> {
    Ok(json!({
        "entryId": session.entry(m.entry).id, "role": m.role, "text": session.context_text(m)?,
        "editedBy": m.replaced_by.map(|e| session.entry(e).id.clone()),
    }))
}
