//! One session entry as pitree keeps it in memory: the tree fields, the byte range of its line, and
//! the little that the views need (row text, labels, names, tool calls). The full JSON is read back
//! from the file on demand (see [`crate::session::content`]).

use std::ops::Range;

/// A short text kept in place when it fits (24 bytes: pi's entry ids and timestamps do), so the
/// 100,000 entries of a big session do not make 300,000 small allocations.
pub type Text = compact_str::CompactString;

/// The `customType` of pitree's leaf marker, the custom entry that moves the leaf (written by
/// `store::actions`, hidden by the tree's flattening).
pub const LEAF_MARKER: &str = "pitree.leaf";

/// A session entry: one JSONL line that is an object with a string `id`.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: Text,
    /// `parentId` when it is a string; `None` for `null`, a missing key or any other value.
    pub parent_id: Option<Text>,
    pub timestamp: Text,
    /// `timestamp` as milliseconds since the epoch, when it parses as ISO-8601.
    pub time_ms: Option<i64>,
    pub kind: Kind,
    /// 1-based physical line in the file.
    pub line: u32,
    /// Byte range of the line in the file, without its line terminator.
    pub span: Range<u64>,
    /// What the tree view's walks ask of every entry, read from `kind` by [`Entry::new`].
    traits: Traits,
}

/// What the tree view's walks over every entry ask (the role, pi's "empty assistant", tool
/// calls), kept in the entry itself: a walk over 100,000 entries then reads no message, each of
/// which is a separate allocation and a cache miss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Traits(u8);

impl Traits {
    const USER: u8 = 1;
    const ASSISTANT: u8 = 2;
    const TOOL_RESULT: u8 = 4;
    const EMPTY_ASSISTANT: u8 = 8;
    const TOOL_CALLS: u8 = 16;

    pub fn of(kind: &Kind) -> Traits {
        let Kind::Message(m) = kind else {
            return Traits(0);
        };
        let role = match m.role.as_str() {
            "user" => Traits::USER,
            "assistant" => Traits::ASSISTANT,
            "toolResult" => Traits::TOOL_RESULT,
            _ => 0,
        };
        let empty = role == Traits::ASSISTANT
            && matches!(m.stop_reason.as_deref(), None | Some("" | "stop" | "toolUse"))
            && m.text.is_complete()
            && m.text.head.trim().is_empty();
        let calls = role == Traits::ASSISTANT && !m.tool_calls.is_empty();
        Traits(
            role | if empty { Traits::EMPTY_ASSISTANT } else { 0 }
                | if calls { Traits::TOOL_CALLS } else { 0 },
        )
    }

    pub fn is_user(self) -> bool {
        self.0 & Traits::USER != 0
    }

    pub fn is_tool_result(self) -> bool {
        self.0 & Traits::TOOL_RESULT != 0
    }

    /// An assistant message with no text that stopped normally (or while calling a tool): pi's
    /// tree hides it in every mode unless it is the leaf.
    pub fn is_empty_assistant(self) -> bool {
        self.0 & Traits::EMPTY_ASSISTANT != 0
    }

    /// An assistant message with tool calls.
    pub fn has_tool_calls(self) -> bool {
        self.0 & Traits::TOOL_CALLS != 0
    }
}

/// What kind of entry this is, with the fields the views and the graph need.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Message(Box<Message>),
    ThinkingLevelChange {
        level: String,
    },
    ModelChange {
        provider: String,
        model_id: String,
    },
    Compaction {
        tokens_before: f64,
        first_kept_entry_id: Option<String>,
        /// v1 files point at the kept entry by index (header = 0); migration turns it into an id.
        first_kept_entry_index: Option<f64>,
        summary: TextHead,
        /// pi 1.6.0 stores a snapshot of the system prompt, which the context starts with.
        has_system_message: bool,
    },
    BranchSummary {
        from_id: Option<String>,
        summary: TextHead,
    },
    Custom {
        custom_type: String,
    },
    CustomMessage {
        custom_type: String,
        text: TextHead,
        display: bool,
    },
    Label {
        target_id: String,
        /// As written; `None` (absent or not a string) and `""` both clear the target's label.
        label: Option<String>,
    },
    SessionInfo {
        name: Option<String>,
    },
    Usage {
        kind: String,
        usage: Option<Usage>,
    },
    ContextEdit {
        target_id: String,
        drops: bool,
    },
    /// An entry type pitree does not know; kept and shown generically.
    Unknown {
        type_name: String,
    },
}

/// The start of a text, enough for a row, and whether that is all of it.
#[derive(Debug, Clone, PartialEq)]
pub struct TextHead {
    /// At most [`TEXT_HEAD_CHARS`] characters.
    pub head: String,
    /// The text ends with the head.
    pub complete: bool,
}

impl Default for TextHead {
    fn default() -> Self {
        TextHead { head: String::new(), complete: true }
    }
}

/// How many characters of a text an entry keeps in memory: more than a row shows
/// ([`super::text::ROW_TEXT_CHARS`]), for the picker's preview and the first tree search.
pub const TEXT_HEAD_CHARS: usize = 256;

impl TextHead {
    pub fn new(full: &str) -> Self {
        let mut head = HeadBuilder::default();
        head.push_str(full);
        head.finish()
    }

    pub fn is_empty(&self) -> bool {
        self.head.is_empty()
    }

    pub fn is_complete(&self) -> bool {
        self.complete
    }
}

/// Builds a [`TextHead`] from pieces of a text: keeps the first [`TEXT_HEAD_CHARS`] characters
/// and notes whether more followed, so the cost of a long text is its head only.
#[derive(Default)]
pub struct HeadBuilder {
    head: String,
    kept: usize,
    cut: bool,
}

impl HeadBuilder {
    pub fn push_str(&mut self, part: &str) {
        if self.cut || part.is_empty() {
            return;
        }
        let room = TEXT_HEAD_CHARS - self.kept;
        let end = crate::display::char_end(part, room);
        if end == part.len() {
            self.kept += part.chars().count();
        } else {
            self.kept += room;
            self.cut = true;
        }
        self.head.push_str(&part[..end]);
    }

    /// Make room for a text of `len` bytes, or for a whole head (in ASCII) of a longer one, so the
    /// head grows in one allocation instead of doubling its way there piece by piece.
    pub fn reserve(&mut self, len: usize) {
        if !self.cut {
            self.head.reserve(len.min(TEXT_HEAD_CHARS));
        }
    }

    pub fn push_char(&mut self, c: char) {
        if self.kept == TEXT_HEAD_CHARS {
            self.cut = true;
        }
        if !self.cut {
            self.head.push(c);
            self.kept += 1;
        }
    }

    /// Whether text was left out: anything pushed from now on is dropped.
    pub fn is_cut(&self) -> bool {
        self.cut
    }

    pub fn finish(mut self) -> TextHead {
        self.head.shrink_to_fit();
        TextHead { head: self.head, complete: !self.cut }
    }
}

/// A `message` entry's payload, reduced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Message {
    /// `user`, `assistant`, `toolResult`, `bashExecution`, `custom`, `system`, … (v2's `hookMessage`
    /// is migrated to `custom`).
    pub role: Text,
    /// Text blocks concatenated with no separator (a string content as is).
    pub text: TextHead,
    /// `content` is present and not `null`.
    pub has_content: bool,
    /// `message.timestamp` when it is a number (milliseconds).
    pub timestamp_ms: Option<f64>,
    pub stop_reason: Option<Text>,
    pub error_message: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub tool_call_id: Option<Text>,
    pub tool_name: Option<Text>,
    /// `bashExecution` command.
    pub command: Option<String>,
    pub custom_type: Option<String>,
    pub provider: Option<Text>,
    pub model: Option<Text>,
    pub usage: Option<Usage>,
    pub has_image: bool,
    pub has_thinking: bool,
}

/// A tool call inside an assistant message, with the arguments pi's row text uses.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: Text,
    pub name: Text,
    pub args: ToolArgs,
    /// [`ToolCall::hash_id`] of `id`, taken when the call is parsed, so that indexing the calls
    /// of a big session reads no id.
    id_hash: u64,
}

impl ToolCall {
    pub fn new(id: Text, name: Text, args: ToolArgs) -> ToolCall {
        ToolCall { id_hash: ToolCall::hash_id(&id), id, name, args }
    }

    pub fn id_hash(&self) -> u64 {
        self.id_hash
    }

    /// The hash tool calls are looked up by.
    pub fn hash_id(id: &str) -> u64 {
        use std::hash::BuildHasher;
        foldhash::fast::FixedState::default().hash_one(id)
    }
}

impl Default for ToolCall {
    fn default() -> Self {
        ToolCall::new(Text::default(), Text::default(), ToolArgs::default())
    }
}

/// The arguments of a tool call that row texts and branch-summary drafts use. pi's row text reads
/// each as `String(args.x || default)`, so a kept text is `String(value)` of a truthy value.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolArgs {
    pub path: Option<String>,
    pub file_path: Option<String>,
    /// `path` is a string (pi's file lists read no other).
    pub path_is_text: bool,
    pub offset: LineArg,
    pub limit: LineArg,
    pub command: Option<String>,
    pub pattern: Option<String>,
    /// The arguments as `JSON.stringify` writes them, cut to [`super::tool_args::JSON_HEAD_CHARS`]
    /// characters.
    pub json_head: String,
    /// The compact JSON ends with the head.
    pub json_complete: bool,
}

impl Default for ToolArgs {
    fn default() -> Self {
        ToolArgs {
            path: None,
            file_path: None,
            path_is_text: false,
            offset: LineArg::Absent,
            limit: LineArg::Absent,
            command: None,
            pattern: None,
            json_head: String::new(),
            json_complete: true,
        }
    }
}

/// A `read` call's `offset` or `limit` as pi's line range reads it (`parseLineNumber`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum LineArg {
    /// Absent or `null`.
    #[default]
    Absent,
    /// A finite number, or a string that `Number()` reads as one.
    Number(f64),
    /// Anything else, which leaves the range out.
    Invalid,
}

impl LineArg {
    /// A number: a finite one is a line number.
    pub fn of_number(n: f64) -> LineArg {
        if n.is_finite() { LineArg::Number(n) } else { LineArg::Invalid }
    }

    /// A string: `Number(text)` unless it is blank.
    pub fn of_text(text: &str) -> LineArg {
        if super::js::trim(text).is_empty() {
            LineArg::Invalid
        } else {
            LineArg::of_number(super::js::string_to_number(text))
        }
    }
}

/// Token counts and cost of one model call.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Usage {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub cost: f64,
}

impl Usage {
    pub fn add(&mut self, other: &Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.cost += other.cost;
    }

    pub fn total_tokens(&self) -> f64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

impl Entry {
    pub fn new(
        id: Text,
        parent_id: Option<Text>,
        timestamp: Text,
        time_ms: Option<i64>,
        kind: Kind,
        line: u32,
        span: Range<u64>,
    ) -> Entry {
        Entry { id, parent_id, timestamp, time_ms, traits: Traits::of(&kind), kind, line, span }
    }

    pub fn traits(&self) -> Traits {
        self.traits
    }

    /// The entry's `type` as written in the file.
    pub fn type_name(&self) -> &str {
        match &self.kind {
            Kind::Message(_) => "message",
            Kind::ThinkingLevelChange { .. } => "thinking_level_change",
            Kind::ModelChange { .. } => "model_change",
            Kind::Compaction { .. } => "compaction",
            Kind::BranchSummary { .. } => "branch_summary",
            Kind::Custom { .. } => "custom",
            Kind::CustomMessage { .. } => "custom_message",
            Kind::Label { .. } => "label",
            Kind::SessionInfo { .. } => "session_info",
            Kind::Usage { .. } => "usage",
            Kind::ContextEdit { .. } => "context_edit",
            Kind::Unknown { type_name } => type_name,
        }
    }

    pub fn message(&self) -> Option<&Message> {
        match &self.kind {
            Kind::Message(m) => Some(m),
            _ => None,
        }
    }

    pub fn role(&self) -> Option<&str> {
        self.message().map(|m| m.role.as_str())
    }

    /// Settings entries: hidden by pi's default tree filter.
    pub fn is_settings(&self) -> bool {
        matches!(
            self.kind,
            Kind::Label { .. }
                | Kind::Custom { .. }
                | Kind::ModelChange { .. }
                | Kind::ThinkingLevelChange { .. }
                | Kind::SessionInfo { .. }
        )
    }

    /// Usage of this entry, if it carries one (assistant messages and `usage` entries).
    pub fn usage(&self) -> Option<&Usage> {
        match &self.kind {
            Kind::Message(m) => m.usage.as_ref(),
            Kind::Usage { usage, .. } => usage.as_ref(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn traits(role: &str, text: &str, stop: Option<&str>, calls: usize) -> Traits {
        let message = Message {
            role: role.into(),
            text: TextHead::new(text),
            stop_reason: stop.map(Text::from),
            tool_calls: vec![ToolCall::default(); calls],
            ..Message::default()
        };
        Traits::of(&Kind::Message(Box::new(message)))
    }

    #[test]
    fn traits_read_the_role_the_empty_assistant_rule_and_tool_calls() {
        assert!(traits("user", "hi", None, 0).is_user());
        assert!(traits("toolResult", "", None, 0).is_tool_result());
        for stop in [None, Some("stop"), Some("toolUse")] {
            assert!(traits("assistant", " \n", stop, 1).is_empty_assistant(), "{stop:?}");
        }
        assert!(!traits("assistant", " \n", Some("error"), 0).is_empty_assistant());
        assert!(!traits("assistant", "done", None, 0).is_empty_assistant());
        assert!(!traits("user", "", None, 0).is_empty_assistant());
        assert!(traits("assistant", "", None, 2).has_tool_calls());
        assert!(!traits("assistant", "x", None, 0).has_tool_calls());
        assert_eq!(Traits::of(&Kind::Label { target_id: String::new(), label: None }), Traits::default());
    }

    /// A head pushed in pieces keeps the first [`TEXT_HEAD_CHARS`] characters of their
    /// concatenation, and is complete only when nothing was left out: for ASCII pieces (cut
    /// without counting) as for others.
    #[test]
    fn a_head_keeps_the_first_characters_of_its_pieces() {
        let long_ascii = "a".repeat(300);
        let cases: [&[&str]; 6] = [
            &[&long_ascii],
            &["xy", &long_ascii],
            &[&"é".repeat(300)],
            &[&"b".repeat(255), "é", "c"],
            &[&"b".repeat(256), ""],
            &[&"b".repeat(200), &"😀".repeat(100)],
        ];
        for pieces in cases {
            let mut head = HeadBuilder::default();
            pieces.iter().for_each(|p| head.push_str(p));
            let whole: String = pieces.concat();
            let expected: String = whole.chars().take(TEXT_HEAD_CHARS).collect();
            let head = head.finish();
            assert_eq!(head.head, expected, "{pieces:?}");
            assert_eq!(head.complete, whole.chars().count() <= TEXT_HEAD_CHARS, "{pieces:?}");
        }
    }
}
