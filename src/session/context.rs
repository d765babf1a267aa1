//! What the model sees when pi resumes at a leaf (pi-reference §1.13 and §7): the path root → leaf;
//! with a compaction on it, the latest compaction first, then the kept entries from its
//! `firstKeptEntryId` (system-prompt messages there are left out: the compaction carries its own
//! snapshot), then everything after it; branch summaries with text become messages;
//! `context_edit` entries replace or drop their target (the latest edit per target wins).

use std::collections::HashMap;

use super::entry::{Entry, Kind};
use super::graph::{Graph, Ix};

/// The entries pi's `buildContextEntries` returns for `leaf`, in order.
pub fn context_entries(graph: &Graph, entries: &[Entry], leaf: Option<Ix>) -> Vec<Ix> {
    let Some(leaf) = leaf else {
        return Vec::new();
    };
    let path = graph.path_to(leaf);
    let last_compaction =
        path.iter().rposition(|&i| matches!(entries[i as usize].kind, Kind::Compaction { .. }));
    let Some(c) = last_compaction else {
        return path;
    };
    let mut out = vec![path[c]];
    if let Kind::Compaction { first_kept_entry_id: Some(kept), .. } = &entries[path[c] as usize].kind
        && let Some(k) = path[..c].iter().position(|&i| entries[i as usize].id == *kept)
    {
        let kept = path[k..c].iter().filter(|&&i| entries[i as usize].role() != Some("system"));
        out.extend(kept);
    }
    out.extend_from_slice(&path[c + 1..]);
    out
}

/// One message of the model's context.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextMessage {
    /// The entry the message comes from.
    pub entry: Ix,
    /// `system`, `user`, `assistant`, `toolResult`, `bashExecution`, `custom`, `branchSummary` or
    /// `compactionSummary`.
    pub role: String,
    /// The `context_edit` entry whose replacement stands in for the entry's own content.
    pub replaced_by: Option<Ix>,
}

/// The messages pi's `buildSessionContext` produces for `leaf`, with context edits applied.
pub fn context_messages(graph: &Graph, entries: &[Entry], leaf: Option<Ix>) -> Vec<ContextMessage> {
    let selected = context_entries(graph, entries, leaf);
    let edits = latest_edits(graph, entries, leaf);
    let mut out = Vec::new();
    for (position, &ix) in selected.iter().enumerate() {
        let entry = &entries[ix as usize];
        let edit = edits.get(entry.id.as_str()).copied();
        if edit.is_some_and(|e| context_edit_drops(&entries[e as usize])) {
            continue;
        }
        for role in entry_roles(entry, position == 0) {
            let replaced_by = edit.filter(|_| EDITABLE_ROLES.contains(&role));
            out.push(ContextMessage { entry: ix, role: role.to_string(), replaced_by });
        }
    }
    out
}

/// The roles whose content a `context_edit` replaces; pi keeps the others (a bash execution, a
/// compaction or branch summary, a system snapshot) as they are, though an edit that omits its
/// target drops them too.
const EDITABLE_ROLES: [&str; 4] = ["user", "assistant", "toolResult", "custom"];

/// The roles of the messages one context entry contributes. Only the first entry of a compacted
/// context (the latest compaction) emits a summary; older compactions in the kept range emit none.
fn entry_roles(entry: &Entry, first: bool) -> Vec<&str> {
    match &entry.kind {
        Kind::Message(m) => vec![m.role.as_str()],
        Kind::CustomMessage { .. } => vec!["custom"],
        Kind::BranchSummary { summary, .. } if !summary.is_empty() => vec!["branchSummary"],
        Kind::Compaction { has_system_message, .. } if first => {
            if *has_system_message {
                vec!["system", "compactionSummary"]
            } else {
                vec!["compactionSummary"]
            }
        }
        _ => Vec::new(),
    }
}

fn context_edit_drops(edit: &Entry) -> bool {
    matches!(edit.kind, Kind::ContextEdit { drops: true, .. })
}

/// For each edited target id on the path, the latest `context_edit` entry.
fn latest_edits<'a>(graph: &Graph, entries: &'a [Entry], leaf: Option<Ix>) -> HashMap<&'a str, Ix> {
    let mut edits = HashMap::new();
    if let Some(leaf) = leaf {
        for ix in graph.path_to(leaf) {
            if let Kind::ContextEdit { target_id, .. } = &entries[ix as usize].kind {
                edits.insert(target_id.as_str(), ix);
            }
        }
    }
    edits
}

/// The model settings on the path to `leaf`: the last thinking level (default `off`) and the last
/// model named by a `model_change` or an assistant message.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub thinking_level: String,
    pub model: Option<(String, String)>,
}

pub fn settings(graph: &Graph, entries: &[Entry], leaf: Option<Ix>) -> Settings {
    let mut s = Settings { thinking_level: "off".to_string(), model: None };
    let Some(leaf) = leaf else {
        return s;
    };
    for ix in graph.path_to(leaf) {
        match &entries[ix as usize].kind {
            Kind::ThinkingLevelChange { level } => s.thinking_level = level.clone(),
            Kind::ModelChange { provider, model_id } => s.model = Some((provider.clone(), model_id.clone())),
            Kind::Message(m) if m.role == "assistant" => {
                if let (Some(p), Some(model)) = (&m.provider, &m.model) {
                    s.model = Some((p.to_string(), model.to_string()));
                }
            }
            _ => {}
        }
    }
    s
}
