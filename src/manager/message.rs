//! pi's messages and content blocks, typed: what a `message` entry holds (user, assistant, tool
//! result, bash execution, custom, system) and what context building produces (branch and
//! compaction summaries). Field order is pi's, optional fields are omitted when absent, and every
//! field pi adds later lands in `extra`, so a message read from a file is written back unchanged.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::json::{nullable, present, tagged_enum};

/// Milliseconds since the epoch, as pi stamps messages (`Date.now()`).
///
/// ```
/// assert!(pitree::manager::now_ms() > 1_700_000_000_000);
/// ```
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A message's content: a plain string, or content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MessageContent {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

impl MessageContent {
    /// The text: a string as is, or the text blocks joined with `sep` (pi joins with `"\n"` for
    /// the model's context and with `" "` for listings).
    ///
    /// ```
    /// use pitree::manager::{ContentBlock, MessageContent};
    /// let c = MessageContent::Blocks(vec![ContentBlock::text("a"), ContentBlock::text("b")]);
    /// assert_eq!(c.text("\n"), "a\nb");
    /// ```
    pub fn text(&self, sep: &str) -> String {
        match self {
            MessageContent::Text(t) => t.clone(),
            MessageContent::Blocks(blocks) => blocks_text(blocks, sep),
        }
    }
}

impl From<&str> for MessageContent {
    fn from(text: &str) -> Self {
        MessageContent::Text(text.to_string())
    }
}

impl From<String> for MessageContent {
    fn from(text: String) -> Self {
        MessageContent::Text(text)
    }
}

impl From<Vec<ContentBlock>> for MessageContent {
    fn from(blocks: Vec<ContentBlock>) -> Self {
        MessageContent::Blocks(blocks)
    }
}

/// The text blocks of `blocks`, joined with `sep` (other blocks are skipped).
///
/// ```
/// use pitree::manager::{ContentBlock, blocks_text};
/// assert_eq!(blocks_text(&[ContentBlock::text("a"), ContentBlock::text("b")], " "), "a b");
/// ```
pub fn blocks_text(blocks: &[ContentBlock], sep: &str) -> String {
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    texts.join(sep)
}

/// One block of message content (`type` = `text`, `thinking`, `image`, `toolCall`, or anything
/// else, kept in `Other`).
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    Text(TextContent),
    Thinking(ThinkingContent),
    Image(ImageContent),
    ToolCall(ToolCall),
    /// A block of a type pitree does not know, or of an unexpected shape, verbatim.
    Other(Map<String, Value>),
}

tagged_enum!(ContentBlock, "type", {
    Text(TextContent) = "text",
    Thinking(ThinkingContent) = "thinking",
    Image(ImageContent) = "image",
    ToolCall(ToolCall) = "toolCall",
});

impl ContentBlock {
    /// A text block.
    ///
    /// ```
    /// use pitree::manager::{ContentBlock, to_json_string};
    /// assert_eq!(to_json_string(&ContentBlock::text("hi")), r#"{"type":"text","text":"hi"}"#);
    /// ```
    pub fn text(text: impl Into<String>) -> ContentBlock {
        ContentBlock::Text(TextContent { text: text.into(), text_signature: None, extra: Map::new() })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub text_signature: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingContent {
    pub thinking: String,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub thinking_signature: Option<String>,
    /// The thinking was redacted by the provider; the payload is in `thinking_signature`.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub redacted: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64 image data.
    pub data: String,
    pub mime_type: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub thought_signature: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub arguments_error: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Token counts and cost of one model call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    #[serde(
        rename = "cacheWrite1h",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub cache_write_1h: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub reasoning: Option<u64>,
    pub total_tokens: u64,
    pub cost: Cost,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The cost of one model call, in dollars.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total: f64,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub total_from_provider: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why an assistant turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    Stop,
    Length,
    ToolUse,
    Error,
    Aborted,
    Pending,
    Deferred,
    /// A reason pitree does not know, as written.
    #[serde(untagged)]
    Other(String),
}

/// A message as pi stores it in a `message` entry, or as context building projects an entry.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentMessage {
    User(UserMessage),
    Assistant(Box<AssistantMessage>),
    ToolResult(Box<ToolResultMessage>),
    BashExecution(BashExecutionMessage),
    Custom(CustomMessage),
    System(Box<SystemMessage>),
    /// Only produced by context building (from a `branch_summary` entry).
    BranchSummary(BranchSummaryMessage),
    /// Only produced by context building (from a `compaction` entry).
    CompactionSummary(CompactionSummaryMessage),
    /// A message of a role pitree does not know, or of an unexpected shape, verbatim.
    Other(Map<String, Value>),
}

tagged_enum!(AgentMessage, "role", {
    User(UserMessage) = "user",
    Assistant(Box<AssistantMessage>) = "assistant",
    ToolResult(Box<ToolResultMessage>) = "toolResult",
    BashExecution(BashExecutionMessage) = "bashExecution",
    Custom(CustomMessage) = "custom",
    System(Box<SystemMessage>) = "system",
    BranchSummary(BranchSummaryMessage) = "branchSummary",
    CompactionSummary(CompactionSummaryMessage) = "compactionSummary",
});

impl AgentMessage {
    /// A user message with text content, stamped now.
    ///
    /// ```
    /// use pitree::manager::AgentMessage;
    /// let m = AgentMessage::user("hello");
    /// assert_eq!(m.role(), "user");
    /// assert_eq!(m.text().as_deref(), Some("hello"));
    /// ```
    pub fn user(text: impl Into<String>) -> AgentMessage {
        AgentMessage::User(UserMessage {
            content: MessageContent::Text(text.into()),
            timestamp: now_ms(),
            extra: Map::new(),
        })
    }

    /// An assistant message with one text block, stamped now, `stopReason` `stop`, zero usage.
    ///
    /// ```
    /// use pitree::manager::AgentMessage;
    /// let m = AgentMessage::assistant("anthropic-messages", "anthropic", "claude-sonnet-4-5", "hi");
    /// assert_eq!(m.role(), "assistant");
    /// ```
    pub fn assistant(
        api: impl Into<String>,
        provider: impl Into<String>,
        model: impl Into<String>,
        text: impl Into<String>,
    ) -> AgentMessage {
        AgentMessage::Assistant(Box::new(AssistantMessage {
            content: vec![ContentBlock::text(text)],
            api: api.into(),
            provider: provider.into(),
            model: model.into(),
            response_model: None,
            response_id: None,
            provider_thinking_level: None,
            thinking_level: None,
            diagnostics: None,
            usage: Usage::default(),
            stop_reason: StopReason::Stop,
            deferred: None,
            error_message: None,
            raw_stop_reason: None,
            end_turn: None,
            timestamp: now_ms(),
            duration_ms: None,
            extra: Map::new(),
        }))
    }

    /// The `role` as written (`user`, `assistant`, `toolResult`, …).
    ///
    /// ```
    /// use pitree::manager::AgentMessage;
    /// let m: AgentMessage = serde_json::from_str(r#"{"role":"developer","content":"x"}"#).unwrap();
    /// assert_eq!(m.role(), "developer");
    /// ```
    pub fn role(&self) -> &str {
        match self {
            AgentMessage::User(_) => "user",
            AgentMessage::Assistant(_) => "assistant",
            AgentMessage::ToolResult(_) => "toolResult",
            AgentMessage::BashExecution(_) => "bashExecution",
            AgentMessage::Custom(_) => "custom",
            AgentMessage::System(_) => "system",
            AgentMessage::BranchSummary(_) => "branchSummary",
            AgentMessage::CompactionSummary(_) => "compactionSummary",
            AgentMessage::Other(map) => map.get("role").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// The text the message carries, as pi's context shows it: content text blocks joined with
    /// `"\n"`, or a summary's `summary`; `None` for messages without text content.
    ///
    /// ```
    /// use pitree::manager::AgentMessage;
    /// assert_eq!(AgentMessage::user("x").text().as_deref(), Some("x"));
    /// ```
    pub fn text(&self) -> Option<String> {
        match self {
            AgentMessage::User(m) => Some(m.content.text("\n")),
            AgentMessage::Assistant(m) => Some(blocks_text(&m.content, "\n")),
            AgentMessage::ToolResult(m) => Some(blocks_text(&m.content, "\n")),
            AgentMessage::Custom(m) => Some(m.content.text("\n")),
            AgentMessage::System(m) => Some(m.content.text("\n")),
            AgentMessage::BranchSummary(m) => Some(m.summary.clone()),
            AgentMessage::CompactionSummary(m) => Some(m.summary.clone()),
            AgentMessage::BashExecution(_) | AgentMessage::Other(_) => None,
        }
    }
}

impl From<UserMessage> for AgentMessage {
    fn from(m: UserMessage) -> Self {
        AgentMessage::User(m)
    }
}

impl From<AssistantMessage> for AgentMessage {
    fn from(m: AssistantMessage) -> Self {
        AgentMessage::Assistant(Box::new(m))
    }
}

impl From<ToolResultMessage> for AgentMessage {
    fn from(m: ToolResultMessage) -> Self {
        AgentMessage::ToolResult(Box::new(m))
    }
}

impl From<BashExecutionMessage> for AgentMessage {
    fn from(m: BashExecutionMessage) -> Self {
        AgentMessage::BashExecution(m)
    }
}

impl From<CustomMessage> for AgentMessage {
    fn from(m: CustomMessage) -> Self {
        AgentMessage::Custom(m)
    }
}

impl From<SystemMessage> for AgentMessage {
    fn from(m: SystemMessage) -> Self {
        AgentMessage::System(Box::new(m))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    pub content: MessageContent,
    /// Milliseconds since the epoch.
    pub timestamp: i64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    pub content: Vec<ContentBlock>,
    pub api: String,
    pub provider: String,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub response_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub response_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub provider_thinking_level: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub thinking_level: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub diagnostics: Option<Vec<Value>>,
    pub usage: Usage,
    pub stop_reason: StopReason,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub deferred: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub error_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub raw_stop_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub end_turn: Option<bool>,
    /// Milliseconds since the epoch when the request started.
    pub timestamp: i64,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub duration_ms: Option<f64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    pub tool_call_id: String,
    pub tool_name: String,
    pub content: Vec<ContentBlock>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub details: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub nested_calls: Option<Value>,
    pub is_error: bool,
    pub timestamp: i64,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub duration_ms: Option<f64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A shell command the user ran with `!` (or `!!`, then `exclude_from_context`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BashExecutionMessage {
    pub command: String,
    pub output: String,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub exit_code: Option<i64>,
    pub cancelled: bool,
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub full_output_path: Option<String>,
    pub timestamp: i64,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub exclude_from_context: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A message an extension injected (also what a `custom_message` entry becomes in context).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomMessage {
    pub custom_type: String,
    pub content: MessageContent,
    pub display: bool,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub details: Option<Value>,
    pub timestamp: i64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// System instructions and tools at a point of the transcript (pi 1.6.0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemMessage {
    pub content: MessageContent,
    /// Named prompt sections; `null` removes one.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub sections: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub tools_added: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub tools_removed: Option<Vec<Value>>,
    pub timestamp: i64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchSummaryMessage {
    pub summary: String,
    #[serde(deserialize_with = "nullable")]
    pub from_id: Option<String>,
    pub timestamp: i64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionSummaryMessage {
    pub summary: String,
    pub tokens_before: u64,
    pub timestamp: i64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// serde `with` for a compaction's `systemMessage`: written with `"role":"system"` first, read
/// only when it is a system message (anything else makes the entry fall back to `Other`).
pub(crate) mod system_message_field {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{AgentMessage, SystemMessage};

    pub fn serialize<S: Serializer>(m: &Option<SystemMessage>, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(tag = "role", rename_all = "camelCase")]
        enum Tagged<'a> {
            System(&'a SystemMessage),
        }
        match m {
            Some(m) => Tagged::System(m).serialize(s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SystemMessage>, D::Error> {
        match AgentMessage::deserialize(d)? {
            AgentMessage::System(m) => Ok(Some(*m)),
            _ => Err(serde::de::Error::custom("systemMessage is not a system message")),
        }
    }
}
