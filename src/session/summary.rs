//! Branch summaries without a model: which entries a leaf move abandons (pi's
//! `collectEntriesForBranchSummary`), and a draft summary built from them in pi's layout — the
//! user's prompts in order, the files read and modified, and the last assistant conclusion.

use std::collections::BTreeSet;

use super::Session;
use super::entry::Kind;
use super::graph::Ix;

/// The first line of every branch summary pi writes.
pub const PREAMBLE: &str = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n";

/// The entries between the old leaf and the common ancestor with `target` (the ancestor excluded),
/// oldest first. Empty when there is no old leaf or the target lies below it.
pub fn abandoned_entries(session: &Session, old_leaf: Option<Ix>, target: Option<Ix>) -> Vec<Ix> {
    let Some(old) = old_leaf else {
        return Vec::new();
    };
    let ancestor = target.and_then(|t| session.graph.common_ancestor(old, t));
    let mut out = Vec::new();
    let mut cur = Some(old);
    while let Some(i) = cur {
        if Some(i) == ancestor {
            break;
        }
        out.push(i);
        cur = session.graph.parent(i);
    }
    out.reverse();
    out
}

/// A summary to show the user for editing, and the file lists for `details`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Draft {
    pub text: String,
    pub read_files: Vec<String>,
    pub modified_files: Vec<String>,
}

/// Build a draft summary of `entries` (as returned by [`abandoned_entries`]).
pub fn draft(session: &Session, entries: &[Ix]) -> Draft {
    let (read_files, modified_files) = file_operations(session, entries);
    let prompts: Vec<String> = entries
        .iter()
        .filter_map(|&i| session.entry(i).message().filter(|m| m.role == "user"))
        .map(|m| one_line(&m.text.head))
        .filter(|t| !t.is_empty())
        .collect();
    let conclusion = entries
        .iter()
        .rev()
        .filter_map(|&i| session.entry(i).message().filter(|m| m.role == "assistant"))
        .map(|m| m.text.head.trim().to_string())
        .find(|t| !t.is_empty());
    let mut body = String::new();
    if prompts.is_empty() && conclusion.is_none() {
        body.push_str("No content to summarize");
    }
    if let Some(goal) = prompts.first() {
        body.push_str(&format!("## Goal\n{goal}\n"));
    }
    if prompts.len() > 1 {
        body.push_str("\n## Progress\n");
        for p in &prompts {
            body.push_str(&format!("- {p}\n"));
        }
    }
    if let Some(c) = conclusion {
        body.push_str(&format!("\n## Conclusion\n{c}\n"));
    }
    let mut text = format!("{PREAMBLE}{}", body.trim_end());
    push_file_list(&mut text, "read-files", &read_files);
    push_file_list(&mut text, "modified-files", &modified_files);
    Draft { text, read_files, modified_files }
}

/// Read and modified files from `read`/`edit`/`write` tool calls; read excludes modified; sorted.
fn file_operations(session: &Session, entries: &[Ix]) -> (Vec<String>, Vec<String>) {
    let mut read = BTreeSet::new();
    let mut modified = BTreeSet::new();
    for &i in entries {
        let Kind::Message(m) = &session.entry(i).kind else { continue };
        for call in &m.tool_calls {
            // pi's file lists take `path` when it is a non-empty string, never `file_path`.
            let Some(path) = call.args.path.clone().filter(|_| call.args.path_is_text) else { continue };
            match call.name.as_str() {
                "read" => {
                    read.insert(path);
                }
                "edit" | "write" => {
                    modified.insert(path);
                }
                _ => {}
            }
        }
    }
    let read = read.difference(&modified).cloned().collect();
    (read, modified.into_iter().collect())
}

fn push_file_list(text: &mut String, tag: &str, files: &[String]) {
    if !files.is_empty() {
        text.push_str(&format!("\n\n<{tag}>\n{}\n</{tag}>", files.join("\n")));
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::session::parse::parse_bytes;

    #[test]
    fn file_lists_take_string_paths_only_as_pi_does() {
        let header =
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-07-01T12:00:00.000Z","cwd":"/p"}"#;
        let calls = [
            r#"{"name":"read","arguments":{"path":"a.rs"}}"#,
            r#"{"name":"read","arguments":{"file_path":"b.rs"}}"#,
            r#"{"name":"edit","arguments":{"path":7}}"#,
            r#"{"name":"write","arguments":{"path":"c.rs"}}"#,
        ];
        let mut text = format!("{header}\n");
        let mut parent = "null".to_string();
        for (i, call) in calls.iter().enumerate() {
            let call = call.replacen('{', &format!(r#"{{"type":"toolCall","id":"c{i}","#), 1);
            text.push_str(&format!(
                r#"{{"type":"message","id":"a{i}","parentId":{parent},"timestamp":"2025-07-01T12:00:0{i}.000Z","message":{{"role":"assistant","content":[{call}]}}}}"#
            ));
            text.push('\n');
            parent = format!(r#""a{i}""#);
        }
        let session = Session::from_parsed(parse_bytes(text.as_bytes(), PathBuf::from("s.jsonl")).unwrap());
        let entries: Vec<Ix> = session.graph.path_to(session.graph.leaf().unwrap());
        assert_eq!(file_operations(&session, &entries), (vec!["a.rs".to_string()], vec!["c.rs".to_string()]));
    }
}
