//! What the model sees at the leaf, as pi 1.6.0's `buildContextEntries` and
//! `buildSessionContext` compute it. Which entries and which messages is decided by the reader
//! ([`crate::session::context`]: compaction, kept range, branch summaries, context edits); this
//! module turns them into typed messages the way pi projects each entry.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::message::{AgentMessage, MessageContent, SystemMessage};
use super::state::SessionManager;
use super::types::SessionEntry;
use crate::session::context;

/// The model's context at the leaf.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionContext {
    /// The messages, in order: a compaction's system prompt snapshot and summary first when there
    /// is a compaction on the path, branch summaries as `branchSummary` messages, custom messages
    /// as `custom` ones, context edits applied.
    pub messages: Vec<AgentMessage>,
    /// The last thinking level on the path; `off` without one.
    pub thinking_level: String,
    /// The last model named on the path (by a model change or an assistant message).
    pub model: Option<ModelRef>,
}

/// A provider and model id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    pub provider: String,
    pub model_id: String,
}

impl SessionManager {
    /// The entries of the model's context at the leaf (pi's `buildContextEntries`): the path
    /// root → leaf, or, with a compaction on it, the latest compaction, the kept entries from its
    /// `firstKeptEntryId`, and everything after it. Non-message entries stay in, for display.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_message(AgentMessage::user("hi"))?;
    /// sm.append_custom_entry("ext", None)?;
    /// assert_eq!(sm.build_context_entries().len(), 2);
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn build_context_entries(&self) -> Vec<&SessionEntry> {
        context::context_entries(self.graph(), &self.lean, self.leaf_ix())
            .into_iter()
            .map(|ix| &self.entries[ix as usize])
            .collect()
    }

    /// The model's context at the leaf (pi's `buildSessionContext`).
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_model_change("anthropic", "claude-sonnet-4-5")?;
    /// sm.append_message(AgentMessage::user("hi"))?;
    /// let ctx = sm.build_session_context();
    /// assert_eq!(ctx.messages.len(), 1);
    /// assert_eq!(ctx.thinking_level, "off");
    /// assert_eq!(ctx.model.unwrap().provider, "anthropic");
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn build_session_context(&self) -> SessionContext {
        let leaf = self.leaf_ix();
        let messages = context::context_messages(self.graph(), &self.lean, leaf)
            .into_iter()
            .map(|m| {
                let message = self.project(m.entry as usize, &m.role);
                match m.replaced_by {
                    Some(edit) => apply_edit(message, &self.entries[edit as usize]),
                    None => message,
                }
            })
            .collect();
        let settings = context::settings(self.graph(), &self.lean, leaf);
        SessionContext {
            messages,
            thinking_level: settings.thinking_level,
            model: settings.model.map(|(provider, model_id)| ModelRef { provider, model_id }),
        }
    }

    /// The leaf as the reader's index.
    pub(super) fn leaf_ix(&self) -> Option<u32> {
        self.leaf.map(|i| i as u32)
    }

    /// The message entry `ix` contributes in the `role` slot (pi's `sessionEntryToContextMessages`).
    fn project(&self, ix: usize, role: &str) -> AgentMessage {
        if let SessionEntry::Message(e) = &self.entries[ix]
            && !matches!(e.message, AgentMessage::Other(_))
        {
            return e.message.clone();
        }
        let entry = serde_json::to_value(&self.entries[ix]).unwrap_or(Value::Null);
        let timestamp = self.lean[ix].time_ms.map_or(Value::Null, Value::from);
        let value = match (entry["type"].as_str(), role) {
            (Some("message"), _) => with_content_defaults(entry["message"].clone()),
            (Some("custom_message"), _) => {
                let mut m = projected("custom", &entry, &["customType", "content", "display", "details"]);
                if m.get("content").is_none_or(Value::is_null) {
                    m.insert("content".to_string(), json!([]));
                }
                m.insert("timestamp".to_string(), timestamp);
                Value::Object(m)
            }
            (Some("branch_summary"), _) => {
                let mut m = projected("branchSummary", &entry, &["summary", "fromId"]);
                m.insert("timestamp".to_string(), timestamp);
                Value::Object(m)
            }
            (Some("compaction"), "system") => entry["systemMessage"].clone(),
            (Some("compaction"), _) => {
                let mut m = projected("compactionSummary", &entry, &["summary", "tokensBefore"]);
                m.insert("timestamp".to_string(), timestamp);
                Value::Object(m)
            }
            _ => Value::Null,
        };
        to_message(value)
    }

    /// pi's `getCurrentSystemMessage` over the current context: every system message replayed
    /// into one (instructions appended, sections patched by name, tools added and removed).
    /// Context edits never change system messages, so only those are projected.
    pub(super) fn current_system_message(&self) -> Option<SystemMessage> {
        let mut content = Vec::new();
        let mut sections = Map::new();
        let mut tools: indexmap::IndexMap<String, Value> = indexmap::IndexMap::new();
        let mut timestamp = None;
        let tool_name = |t: &Value| t.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        let system_messages = context::context_messages(self.graph(), &self.lean, self.leaf_ix())
            .into_iter()
            .filter(|m| m.role == "system")
            .map(|m| self.project(m.entry as usize, &m.role));
        for message in system_messages {
            let AgentMessage::System(m) = message else { continue };
            timestamp.get_or_insert(m.timestamp);
            let text = m.content.text("\n");
            if !text.is_empty() {
                content.push(text);
            }
            for (name, value) in m.sections.unwrap_or_default() {
                if value.is_null() {
                    sections.shift_remove(&name);
                } else {
                    sections.insert(name, value);
                }
            }
            for tool in m.tools_removed.unwrap_or_default() {
                tools.shift_remove(&tool_name(&tool));
            }
            for tool in m.tools_added.unwrap_or_default() {
                tools.insert(tool_name(&tool), tool);
            }
        }
        if timestamp.is_none() && tools.is_empty() {
            return None;
        }
        Some(SystemMessage {
            content: MessageContent::Text(content.join("\n\n")),
            sections: (!sections.is_empty()).then_some(sections),
            tools_added: (!tools.is_empty()).then(|| tools.into_values().collect()),
            tools_removed: None,
            timestamp: timestamp.unwrap_or(0),
            extra: Map::new(),
        })
    }
}

/// A message read leniently: a shape pitree does not type stays verbatim.
fn to_message(value: Value) -> AgentMessage {
    match value {
        Value::Object(map) => {
            AgentMessage::deserialize(Value::Object(map.clone())).unwrap_or(AgentMessage::Other(map))
        }
        _ => AgentMessage::Other(Map::new()),
    }
}

/// pi 1.6.0 gives user, assistant and tool result messages without content an empty content
/// list, and system messages an empty string.
fn with_content_defaults(mut message: Value) -> Value {
    let default = match message["role"].as_str() {
        Some("user" | "assistant" | "toolResult") => json!([]),
        Some("system") => json!(""),
        _ => return message,
    };
    if let Value::Object(map) = &mut message
        && map.get("content").is_none_or(Value::is_null)
    {
        map.insert("content".to_string(), default);
    }
    message
}

/// A projected message: `role`, then the entry's `keys` that it has (a missing one stays
/// missing, as `undefined` does in pi).
fn projected(role: &str, entry: &Value, keys: &[&str]) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("role".to_string(), json!(role));
    for key in keys {
        if let Some(v) = entry.get(*key) {
            m.insert(key.to_string(), v.clone());
        }
    }
    m
}

/// pi's `projectContextEntry`: a user, assistant, tool result or custom message gets the edit's
/// replacement content (text as one text block for assistant and tool result messages).
fn apply_edit(message: AgentMessage, edit: &SessionEntry) -> AgentMessage {
    let role = message.role().to_string();
    if !matches!(role.as_str(), "user" | "assistant" | "toolResult" | "custom") {
        return message;
    }
    let edit = serde_json::to_value(edit).unwrap_or(Value::Null);
    let content = match (&edit["replacement"]["content"], role.as_str()) {
        (Value::String(text), "assistant" | "toolResult") => json!([{"type": "text", "text": text}]),
        (content, _) => content.clone(),
    };
    let mut value = serde_json::to_value(&message).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        if content.is_null() {
            map.shift_remove("content");
        } else {
            map.insert("content".to_string(), content);
        }
    }
    to_message(value)
}
