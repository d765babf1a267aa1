//! pi's session entries, typed: the header line and the eleven entry types pi 1.6.0 writes, each
//! with its fields in the order pi writes them, optional fields omitted when absent, and unknown
//! fields kept in `extra`. An entry of an unknown type, or whose fields do not have the shapes pi
//! writes (a `null` where pi writes a value, a missing `parentId`…), is kept verbatim as
//! [`SessionEntry::Other`], so nothing read from a file is ever lost or changed on the way back.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::json::{nullable, present, tagged_enum};
use super::message::{AgentMessage, MessageContent, SystemMessage, Usage, system_message_field};

/// The first line of a session file.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionHeader {
    /// `3` for files pi writes today; absent in v1 files.
    pub version: Option<u32>,
    /// The session id (UUIDv7 for new sessions, or a custom id).
    pub id: String,
    pub timestamp: String,
    /// The working directory the session belongs to.
    pub cwd: String,
    /// The absolute path of the session this one was forked from.
    pub parent_session: Option<String>,
    pub extra: Map<String, Value>,
}

/// The header's fields in pi's order; `type` is written first by the tagged wrapper.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeaderFields {
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    version: Option<u32>,
    id: String,
    /// A header read from a file is never written back, so a missing value may read as empty.
    #[serde(default)]
    timestamp: String,
    #[serde(default)]
    cwd: String,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    parent_session: Option<String>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum HeaderLine {
    Session(HeaderFields),
}

impl SessionHeader {
    /// A v3 header, as pi's `newSession` makes it.
    ///
    /// ```
    /// use pitree::manager::{SessionHeader, to_json_string};
    /// let h = SessionHeader::new("abc", "2025-01-01T00:00:00.000Z", "/p", None);
    /// assert_eq!(
    ///     to_json_string(&h),
    ///     r#"{"type":"session","version":3,"id":"abc","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#
    /// );
    /// ```
    pub fn new(id: &str, timestamp: &str, cwd: &str, parent_session: Option<String>) -> Self {
        SessionHeader {
            version: Some(3),
            id: id.to_string(),
            timestamp: timestamp.to_string(),
            cwd: cwd.to_string(),
            parent_session,
            extra: Map::new(),
        }
    }
}

impl Serialize for SessionHeader {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        HeaderLine::Session(HeaderFields {
            version: self.version,
            id: self.id.clone(),
            timestamp: self.timestamp.clone(),
            cwd: self.cwd.clone(),
            parent_session: self.parent_session.clone(),
            extra: self.extra.clone(),
        })
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for SessionHeader {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let HeaderLine::Session(h) = HeaderLine::deserialize(d)?;
        Ok(SessionHeader {
            version: h.version,
            id: h.id,
            timestamp: h.timestamp,
            cwd: h.cwd,
            parent_session: h.parent_session,
            extra: h.extra,
        })
    }
}

/// One session entry (every line after the header).
#[derive(Debug, Clone, PartialEq)]
pub enum SessionEntry {
    Message(MessageEntry),
    ThinkingLevelChange(ThinkingLevelChangeEntry),
    ModelChange(ModelChangeEntry),
    Compaction(Box<CompactionEntry>),
    BranchSummary(Box<BranchSummaryEntry>),
    Custom(CustomEntry),
    CustomMessage(CustomMessageEntry),
    Label(LabelEntry),
    SessionInfo(SessionInfoEntry),
    Usage(Box<UsageEntry>),
    ContextEdit(ContextEditEntry),
    /// An entry of a type pitree does not know, or of an unexpected shape, verbatim. Entries held
    /// by a [`crate::manager::SessionManager`] always have a string `id`.
    Other(Map<String, Value>),
}

tagged_enum!(SessionEntry, "type", {
    Message(MessageEntry) = "message",
    ThinkingLevelChange(ThinkingLevelChangeEntry) = "thinking_level_change",
    ModelChange(ModelChangeEntry) = "model_change",
    Compaction(Box<CompactionEntry>) = "compaction",
    BranchSummary(Box<BranchSummaryEntry>) = "branch_summary",
    Custom(CustomEntry) = "custom",
    CustomMessage(CustomMessageEntry) = "custom_message",
    Label(LabelEntry) = "label",
    SessionInfo(SessionInfoEntry) = "session_info",
    Usage(Box<UsageEntry>) = "usage",
    ContextEdit(ContextEditEntry) = "context_edit",
});

/// The tree fields every typed entry has.
macro_rules! base_fields {
    ($($variant:ident),*) => {
        impl SessionEntry {
            /// The entry's id.
            ///
            /// ```
            /// use pitree::manager::SessionEntry;
            /// let e: SessionEntry = serde_json::from_str(
            ///     r#"{"type":"future","id":"abcd1234","parentId":null,"timestamp":"t"}"#,
            /// ).unwrap();
            /// assert_eq!(e.id(), "abcd1234");
            /// ```
            pub fn id(&self) -> &str {
                match self {
                    $(SessionEntry::$variant(e) => &e.id,)*
                    SessionEntry::Other(map) => map.get("id").and_then(Value::as_str).unwrap_or(""),
                }
            }

            /// The parent's id; `None` for a root.
            ///
            /// ```
            /// use pitree::manager::SessionEntry;
            /// let e: SessionEntry = serde_json::from_str(
            ///     r#"{"type":"label","id":"b","parentId":"a","timestamp":"t","targetId":"a"}"#,
            /// ).unwrap();
            /// assert_eq!(e.parent_id(), Some("a"));
            /// ```
            pub fn parent_id(&self) -> Option<&str> {
                match self {
                    $(SessionEntry::$variant(e) => e.parent_id.as_deref(),)*
                    SessionEntry::Other(map) => map.get("parentId").and_then(Value::as_str),
                }
            }

            /// The ISO-8601 timestamp; empty for an `Other` entry without one.
            ///
            /// ```
            /// use pitree::manager::SessionEntry;
            /// let e: SessionEntry = serde_json::from_str(
            ///     r#"{"type":"session_info","id":"b","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","name":"x"}"#,
            /// ).unwrap();
            /// assert_eq!(e.timestamp(), "2025-01-01T00:00:00.000Z");
            /// ```
            pub fn timestamp(&self) -> &str {
                match self {
                    $(SessionEntry::$variant(e) => &e.timestamp,)*
                    SessionEntry::Other(map) => map.get("timestamp").and_then(Value::as_str).unwrap_or(""),
                }
            }

            /// Point the entry at another parent (used when a path is re-chained).
            pub(crate) fn set_parent_id(&mut self, parent: Option<String>) {
                match self {
                    $(SessionEntry::$variant(e) => e.parent_id = parent,)*
                    SessionEntry::Other(map) => {
                        map.insert("parentId".to_string(), parent.map_or(Value::Null, Value::from));
                    }
                }
            }
        }
    };
}

base_fields!(
    Message,
    ThinkingLevelChange,
    ModelChange,
    Compaction,
    BranchSummary,
    Custom,
    CustomMessage,
    Label,
    SessionInfo,
    Usage,
    ContextEdit
);

impl SessionEntry {
    /// The entry's `type` as written.
    ///
    /// ```
    /// use pitree::manager::SessionEntry;
    /// let e: SessionEntry = serde_json::from_str(
    ///     r#"{"type":"model_change","id":"b","parentId":null,"timestamp":"t","provider":"p","modelId":"m"}"#,
    /// ).unwrap();
    /// assert_eq!(e.entry_type(), "model_change");
    /// ```
    pub fn entry_type(&self) -> &str {
        match self {
            SessionEntry::Message(_) => "message",
            SessionEntry::ThinkingLevelChange(_) => "thinking_level_change",
            SessionEntry::ModelChange(_) => "model_change",
            SessionEntry::Compaction(_) => "compaction",
            SessionEntry::BranchSummary(_) => "branch_summary",
            SessionEntry::Custom(_) => "custom",
            SessionEntry::CustomMessage(_) => "custom_message",
            SessionEntry::Label(_) => "label",
            SessionEntry::SessionInfo(_) => "session_info",
            SessionEntry::Usage(_) => "usage",
            SessionEntry::ContextEdit(_) => "context_edit",
            SessionEntry::Other(map) => map.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The message of a `message` entry.
    ///
    /// ```
    /// use pitree::manager::SessionEntry;
    /// let e: SessionEntry = serde_json::from_str(
    ///     r#"{"type":"message","id":"b","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi","timestamp":1}}"#,
    /// ).unwrap();
    /// assert_eq!(e.message().unwrap().role(), "user");
    /// ```
    pub fn message(&self) -> Option<&AgentMessage> {
        match self {
            SessionEntry::Message(e) => Some(&e.message),
            _ => None,
        }
    }
}

/// A conversation message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageEntry {
    pub id: String,
    #[serde(deserialize_with = "nullable")]
    pub parent_id: Option<String>,
    pub timestamp: String,
    pub message: AgentMessage,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingLevelChangeEntry {
    pub id: String,
    #[serde(deserialize_with = "nullable")]
    pub parent_id: Option<String>,
    pub timestamp: String,
    pub thinking_level: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelChangeEntry {
    pub id: String,
    #[serde(deserialize_with = "nullable")]
    pub parent_id: Option<String>,
    pub timestamp: String,
    pub provider: String,
    pub model_id: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Usage of a model call that is not part of the conversation (pi 1.6.0), e.g. cache warming.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageEntry {
    pub id: String,
    #[serde(deserialize_with = "nullable")]
    pub parent_id: Option<String>,
    pub timestamp: String,
    pub kind: String,
    pub provider: String,
    pub model: String,
    pub usage: Usage,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub note: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A summary that replaces the conversation before `first_kept_entry_id` in the model's context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionEntry {
    pub id: String,
    #[serde(deserialize_with = "nullable")]
    pub parent_id: Option<String>,
    pub timestamp: String,
    pub summary: String,
    pub first_kept_entry_id: String,
    pub tokens_before: u64,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub details: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub from_hook: Option<bool>,
    /// The system prompt and tools at the compaction point, which the compacted context starts with.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "system_message_field")]
    pub system_message: Option<SystemMessage>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A summary of an abandoned branch, at the point the conversation came back to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchSummaryEntry {
    pub id: String,
    #[serde(deserialize_with = "nullable")]
    pub parent_id: Option<String>,
    pub timestamp: String,
    /// The leaf that was abandoned (pi 1.6.0), or `"root"`.
    pub from_id: String,
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub details: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub from_hook: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Extension state; never part of the model's context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomEntry {
    pub custom_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub data: Option<Value>,
    pub id: String,
    #[serde(deserialize_with = "nullable")]
    pub parent_id: Option<String>,
    pub timestamp: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A message an extension puts into the model's context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomMessageEntry {
    pub custom_type: String,
    pub content: MessageContent,
    pub display: bool,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub details: Option<Value>,
    pub id: String,
    #[serde(deserialize_with = "nullable")]
    pub parent_id: Option<String>,
    pub timestamp: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Sets (`label` present and non-empty) or clears the label of `target_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelEntry {
    pub id: String,
    #[serde(deserialize_with = "nullable")]
    pub parent_id: Option<String>,
    pub timestamp: String,
    pub target_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub label: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Names (or, with an empty name, un-names) the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfoEntry {
    pub id: String,
    #[serde(deserialize_with = "nullable")]
    pub parent_id: Option<String>,
    pub timestamp: String,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub name: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Replaces (or, with `replacement: null`, drops) an earlier entry's content in the model's
/// context on this branch (pi 1.6.0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextEditEntry {
    pub id: String,
    #[serde(deserialize_with = "nullable")]
    pub parent_id: Option<String>,
    pub timestamp: String,
    pub target_id: String,
    #[serde(deserialize_with = "nullable")]
    pub replacement: Option<Replacement>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The content a `context_edit` puts in place of its target's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replacement {
    pub content: MessageContent,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
