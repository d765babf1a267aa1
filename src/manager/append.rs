//! Appending entries, as pi's `append*` methods do: each new entry gets a fresh 8-hex id, the
//! current leaf as its parent and the current time, becomes the leaf, and is written (see
//! [`super::persist`]). If the write fails, the entry is taken back out, so memory never holds an
//! entry the file lacks.

use serde_json::{Map, Value};

use super::error::{Error, Result};
use super::json::to_json_string;
use super::load::lean_entry;
use super::message::{AgentMessage, ContentBlock, MessageContent, Usage};
use super::state::SessionManager;
use super::types::*;
use crate::session::Kind;
use crate::store::actions::normalize_name;
use crate::store::ids;

/// The tree fields of a new entry.
pub(super) struct Base {
    pub id: String,
    pub parent_id: Option<String>,
    pub timestamp: String,
}

impl SessionManager {
    pub(super) fn base(&self) -> Base {
        Base {
            id: ids::entry_id(&|id| self.by_id.contains_key(id)),
            parent_id: self.leaf.map(|i| self.lean[i].id.to_string()),
            timestamp: ids::now_timestamp(),
        }
    }

    /// pi's `_appendEntry`: add, make it the leaf, write; undo if the write fails.
    pub(super) fn append_entry(&mut self, entry: SessionEntry) -> Result<String> {
        let line = to_json_string(&entry);
        let lean = lean_entry(&line, self.lean.len() as u32 + 2)?;
        let id = lean.id.to_string();
        let previous_leaf = self.leaf;
        self.push(entry, lean);
        if let Err(e) = self.persist_last(&line) {
            self.pop(previous_leaf);
            return Err(e);
        }
        Ok(id)
    }

    /// Append a conversation message. (pi keeps branch and compaction summaries out of message
    /// entries: use [`branch_with_summary`](Self::branch_with_summary) and
    /// [`append_compaction`](Self::append_compaction) for those.)
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// let id = sm.append_message(AgentMessage::user("hi"))?;
    /// assert_eq!(id.len(), 8);
    /// assert_eq!(sm.leaf_id(), Some(id.as_str()));
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn append_message(&mut self, message: impl Into<AgentMessage>) -> Result<String> {
        let b = self.base();
        self.append_entry(SessionEntry::Message(MessageEntry {
            id: b.id,
            parent_id: b.parent_id,
            timestamp: b.timestamp,
            message: message.into(),
            extra: Map::new(),
        }))
    }

    /// Append a thinking level change (`off`, `minimal`, `low`, `medium`, `high`, …).
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_thinking_level_change("high")?;
    /// assert_eq!(sm.build_session_context().thinking_level, "high");
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn append_thinking_level_change(&mut self, thinking_level: &str) -> Result<String> {
        let b = self.base();
        self.append_entry(SessionEntry::ThinkingLevelChange(ThinkingLevelChangeEntry {
            id: b.id,
            parent_id: b.parent_id,
            timestamp: b.timestamp,
            thinking_level: thinking_level.to_string(),
            extra: Map::new(),
        }))
    }

    /// Append a model change.
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_model_change("openai", "gpt-5.1-codex")?;
    /// assert_eq!(sm.build_session_context().model.unwrap().model_id, "gpt-5.1-codex");
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn append_model_change(&mut self, provider: &str, model_id: &str) -> Result<String> {
        let b = self.base();
        self.append_entry(SessionEntry::ModelChange(ModelChangeEntry {
            id: b.id,
            parent_id: b.parent_id,
            timestamp: b.timestamp,
            provider: provider.to_string(),
            model_id: model_id.to_string(),
            extra: Map::new(),
        }))
    }

    /// Append a compaction: `summary` stands for the conversation before `first_kept_entry_id`
    /// (`None`: the compaction itself, i.e. nothing is kept). As pi 1.6.0 does, the entry carries
    /// a snapshot of the current system prompt and tools (`systemMessage`) when the context has
    /// any system message.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_message(AgentMessage::user("one"))?;
    /// let kept = sm.append_message(AgentMessage::user("two"))?;
    /// sm.append_compaction("we talked", Some(&kept), 1234, None, None, None)?;
    /// let roles: Vec<_> = sm.build_session_context().messages.iter().map(|m| m.role().to_string()).collect();
    /// assert_eq!(roles, ["compactionSummary", "user"]);
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn append_compaction(
        &mut self,
        summary: &str,
        first_kept_entry_id: Option<&str>,
        tokens_before: u64,
        details: Option<Value>,
        from_hook: Option<bool>,
        usage: Option<Usage>,
    ) -> Result<String> {
        let b = self.base();
        let system_message = self.current_system_message().map(|mut m| {
            m.timestamp = crate::session::date::parse_ms(&b.timestamp).unwrap_or(0);
            m
        });
        self.append_entry(SessionEntry::Compaction(Box::new(CompactionEntry {
            first_kept_entry_id: first_kept_entry_id.unwrap_or(&b.id).to_string(),
            id: b.id,
            parent_id: b.parent_id,
            timestamp: b.timestamp,
            summary: summary.to_string(),
            tokens_before,
            details,
            usage,
            from_hook,
            system_message,
            extra: Map::new(),
        })))
    }

    /// Append extension state (`custom`; never part of the model's context).
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_custom_entry("my-ext.state", Some(serde_json::json!({"n": 1})))?;
    /// assert!(sm.build_session_context().messages.is_empty());
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn append_custom_entry(&mut self, custom_type: &str, data: Option<Value>) -> Result<String> {
        let b = self.base();
        self.append_entry(SessionEntry::Custom(CustomEntry {
            custom_type: custom_type.to_string(),
            data,
            id: b.id,
            parent_id: b.parent_id,
            timestamp: b.timestamp,
            extra: Map::new(),
        }))
    }

    /// Name the session (pi 1.6.0: runs of CR/LF become one space, then the name is trimmed; an
    /// empty name clears it).
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_session_info("  two\r\nlines  ")?;
    /// assert_eq!(sm.session_name(), Some("two lines"));
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn append_session_info(&mut self, name: &str) -> Result<String> {
        let b = self.base();
        self.append_entry(SessionEntry::SessionInfo(SessionInfoEntry {
            id: b.id,
            parent_id: b.parent_id,
            timestamp: b.timestamp,
            name: Some(normalize_name(name)),
            extra: Map::new(),
        }))
    }

    /// Append a message an extension puts into the model's context (`display`: whether pi shows
    /// it in its UI).
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_custom_message_entry("my-ext.note", "remember X", true, None)?;
    /// assert_eq!(sm.build_session_context().messages[0].role(), "custom");
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn append_custom_message_entry(
        &mut self,
        custom_type: &str,
        content: impl Into<MessageContent>,
        display: bool,
        details: Option<Value>,
    ) -> Result<String> {
        let b = self.base();
        self.append_entry(SessionEntry::CustomMessage(CustomMessageEntry {
            custom_type: custom_type.to_string(),
            content: content.into(),
            display,
            details,
            id: b.id,
            parent_id: b.parent_id,
            timestamp: b.timestamp,
            extra: Map::new(),
        }))
    }

    /// Set (`Some`, non-empty) or clear (`None` or `""`) the label of `target_id`. Like every
    /// append, the label entry becomes the leaf.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, Error, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// let u = sm.append_message(AgentMessage::user("hi"))?;
    /// sm.append_label_change(&u, Some("start"))?;
    /// assert_eq!(sm.label(&u), Some("start"));
    /// sm.append_label_change(&u, None)?;
    /// assert_eq!(sm.label(&u), None);
    /// let err = sm.append_label_change("non-existent", Some("x")).unwrap_err();
    /// assert_eq!(err.to_string(), "Entry non-existent not found");
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn append_label_change(&mut self, target_id: &str, label: Option<&str>) -> Result<String> {
        self.index_of(target_id)?;
        let b = self.base();
        self.append_entry(SessionEntry::Label(LabelEntry {
            id: b.id,
            parent_id: b.parent_id,
            timestamp: b.timestamp,
            target_id: target_id.to_string(),
            label: label.map(str::to_string),
            extra: Map::new(),
        }))
    }

    /// Record the usage of a model call outside the conversation (pi 1.6.0), e.g. cache warming;
    /// an empty `note` is left out.
    ///
    /// ```
    /// use pitree::manager::{NewSessionOptions, SessionManager, Usage};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// sm.append_usage("cache_warm", "anthropic", "claude-sonnet-4-5", Usage::default(), Some("warm-up"))?;
    /// assert_eq!(sm.leaf_entry().unwrap().entry_type(), "usage");
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn append_usage(
        &mut self,
        kind: &str,
        provider: &str,
        model: &str,
        usage: Usage,
        note: Option<&str>,
    ) -> Result<String> {
        let b = self.base();
        self.append_entry(SessionEntry::Usage(Box::new(UsageEntry {
            id: b.id,
            parent_id: b.parent_id,
            timestamp: b.timestamp,
            kind: kind.to_string(),
            provider: provider.to_string(),
            model: model.to_string(),
            usage,
            note: note.filter(|n| !n.is_empty()).map(str::to_string),
            extra: Map::new(),
        })))
    }

    /// Replace (`Some`) or drop (`None`) the content an earlier entry on the current branch gives
    /// the model (pi 1.6.0). The target must be a user, assistant or tool result message, or a
    /// custom message; a text replacement for an assistant or tool result becomes one text block.
    ///
    /// ```
    /// use pitree::manager::{AgentMessage, NewSessionOptions, SessionManager};
    /// let mut sm = SessionManager::in_memory("/p", NewSessionOptions::default(), Vec::new())?;
    /// let u = sm.append_message(AgentMessage::user("a long prompt"))?;
    /// sm.append_context_edit(&u, Some("short".into()))?;
    /// assert_eq!(sm.build_session_context().messages[0].text().as_deref(), Some("short"));
    /// # Ok::<(), pitree::manager::Error>(())
    /// ```
    pub fn append_context_edit(
        &mut self,
        target_id: &str,
        replacement: Option<MessageContent>,
    ) -> Result<String> {
        let ix = self.index_of(target_id)?;
        if !self.leaf.is_some_and(|leaf| self.graph().is_ancestor(ix as u32, leaf as u32)) {
            return Err(Error::NotOnActiveBranch(target_id.to_string()));
        }
        let role = match &self.lean[ix].kind {
            Kind::CustomMessage { .. } => "custom",
            Kind::Message(m) if matches!(m.role.as_str(), "user" | "assistant" | "toolResult") => {
                m.role.as_str()
            }
            _ => return Err(Error::NotEditable(target_id.to_string())),
        };
        let replacement = replacement.map(|content| match (role, content) {
            ("assistant" | "toolResult", MessageContent::Text(text)) => {
                MessageContent::Blocks(vec![ContentBlock::text(text)])
            }
            (_, content) => content,
        });
        let b = self.base();
        self.append_entry(SessionEntry::ContextEdit(ContextEditEntry {
            id: b.id,
            parent_id: b.parent_id,
            timestamp: b.timestamp,
            target_id: target_id.to_string(),
            replacement: replacement.map(|content| Replacement { content, extra: Map::new() }),
            extra: Map::new(),
        }))
    }
}
