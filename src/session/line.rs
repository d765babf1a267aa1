//! Parsing one JSONL line into an [`Entry`] or a header, without building a JSON tree: a borrowed
//! serde struct takes only the fields pitree needs, and every field is "loose" (a value of the wrong
//! JSON type reads as absent instead of failing the line, as JavaScript would treat it).

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::entry::{Entry, HeadBuilder, Kind, Message, Text, TextHead, ToolCall};
pub use super::js::{format_number, is_falsy};
use super::literal::{LooseLiteral, push_literal};
use super::loose::{JsNumber, Loose, LooseNum, LooseVisitor, Obj, RawUsage, Scalar, loose_bool};
use super::skim;
use super::tool_args::tool_args;

/// What one physical line turned out to be. Entries are held inline: a line is moved once, from
/// the parsing thread into the file's entries, and a box would be one more allocation per entry,
/// freed on another thread than the one that made it.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Line {
    Blank,
    /// Not JSON at all (or cut off).
    Malformed,
    /// JSON, but not an object (`42`, `"x"`, `[]`, `true`).
    NotAnObject,
    /// A falsy JSON value (`null`, `false`, `0`, `""`), which pi skips like a blank line, even
    /// before the header.
    Falsy,
    /// An object with `type: "session"`.
    Header(Box<HeaderLine>),
    /// An object without a string `id`: junk in a v3 file, an ordinary entry in a v1 file (which
    /// has no ids until it is migrated). The entry's `id` is empty.
    NoId(Entry),
    Entry(Entry),
}

/// The fields of a header line.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderLine {
    /// The header `id`: a string, or the JSON text of another value (a number, say).
    pub id: Option<String>,
    pub id_is_string: bool,
    pub version: Option<f64>,
    pub timestamp: Option<String>,
    pub cwd: Option<String>,
    pub parent_session: Option<String>,
}

/// Parse one line (without its `\n`). `line_no` is 1-based, `start` the byte offset of the line.
pub fn parse_line(bytes: &[u8], line_no: u32, start: u64) -> Line {
    let Some(trimmed) = json_text(without_file_bom(bytes, start)) else {
        return Line::Blank;
    };
    let span = start..start + bytes.len() as u64;
    let mut shortened = Vec::new();
    let short = skim::shorten(trimmed, &mut shortened, skim::Cut::Heads(&HEAD_ONLY));
    if let Ok(raw) = serde_json::from_str::<RawLine>(&lossy(short)) {
        return build(raw, line_no, span);
    }
    parse_unusual(&lossy(trimmed), line_no, span)
}

/// The strings an entry keeps at most [`super::entry::TEXT_HEAD_CHARS`] characters of (message,
/// block and custom-message texts, summaries, tool-call arguments other than paths and commands)
/// or does not read at all (thinking, signatures, base64 images, command output).
pub(super) const HEAD_ONLY: [&str; 8] =
    ["text", "content", "summary", "thinking", "data", "output", "thinkingSignature", "textSignature"];

/// The line as text: `from_utf8` checks ASCII a word at a time, and the lossy decoder (U+FFFD for
/// each invalid sequence, as pi's reader does) only runs on invalid input.
pub fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    std::str::from_utf8(bytes).map_or_else(|_| String::from_utf8_lossy(bytes), Cow::Borrowed)
}

/// A line as `JSON.parse` reads it, without the JSON white space around it (space, tab, CR, LF);
/// `None` when it is blank to JavaScript's `trim()` (which pi skips), as a line of form feeds,
/// no-break spaces or BOMs is. Other white space around a value makes the line malformed, as
/// it does in pi.
pub fn json_text(bytes: &[u8]) -> Option<&[u8]> {
    let json = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let start = bytes.iter().position(|b| !json(b))?;
    let end = bytes.iter().rposition(|b| !json(b))? + 1;
    let text = &bytes[start..end];
    let blank = text[0] != b'{' && lossy(text).chars().all(super::js::is_space);
    (!blank).then_some(text)
}

/// The first line of a file without a leading BOM, which pitree ignores (pi's own listing
/// drops such a file, its reader does not); `start` is the line's offset in the file.
pub fn without_file_bom(line: &[u8], start: u64) -> &[u8] {
    if start == 0 { line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line) } else { line }
}

/// The slow path for a line the fast struct rejected: lone surrogate escapes (which JSON.parse
/// accepts) become U+FFFD, fields of an unexpected shape are dropped, and what still fails is
/// classified as a non-object value or as malformed.
fn parse_unusual(text: &str, line_no: u32, span: std::ops::Range<u64>) -> Line {
    let mut value = match value_as_javascript_reads_it(text) {
        Ok(serde_json::Value::Object(map)) => serde_json::Value::Object(map),
        Ok(v) if is_falsy(&v) => return Line::Falsy,
        Ok(_) => return Line::NotAnObject,
        Err(_) => return Line::Malformed,
    };
    drop_misshapen_fields(&mut value);
    let normalized = value.to_string();
    match serde_json::from_str::<RawLine>(&normalized) {
        Ok(raw) => build(raw, line_no, span),
        Err(_) => Line::Malformed,
    }
}

/// `text` as a JSON value, read where serde and `JSON.parse` differ the way `JSON.parse` keeps the
/// line: a lone surrogate escape as U+FFFD (as pitree shows it), a number too large for a double
/// (Infinity to JavaScript, which JSON cannot hold) as the largest double of that sign. serde
/// rejects such a number, so the line is read again with those numbers written so.
pub fn value_as_javascript_reads_it(text: &str) -> serde_json::Result<serde_json::Value> {
    let repaired;
    let text = if has_lone_surrogate_escape(text.as_bytes()) {
        repaired = replace_lone_surrogates(text);
        repaired.as_str()
    } else {
        text
    };
    match serde_json::from_str(text) {
        Err(e) if is_number_out_of_range(&e) => serde_json::from_str(&clamp_huge_numbers(text)),
        other => other,
    }
}

/// serde's error for a number too large for a double.
pub fn is_number_out_of_range(e: &serde_json::Error) -> bool {
    e.to_string().starts_with("number out of range")
}

/// `text` with each number outside strings that overflows a double written as `±1.7976931348623157e308`.
fn clamp_huge_numbers(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut copied, mut in_string) = (0, 0, false);
    while i < b.len() {
        match b[i] {
            b'\\' if in_string => i += 2,
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'-' | b'0'..=b'9' if !in_string => {
                let end =
                    b[i..].iter().position(|c| !matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'));
                let end = end.map_or(b.len(), |n| i + n);
                if text[i..end].parse::<f64>().is_ok_and(f64::is_infinite) {
                    out.push_str(&text[copied..i]);
                    out.push_str(if b[i] == b'-' {
                        "-1.7976931348623157e308"
                    } else {
                        "1.7976931348623157e308"
                    });
                    copied = end;
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// Remove the fields whose JSON type the fast struct cannot take (e.g. `message: "text"`), the way a
/// JavaScript reader would simply find nothing useful in them.
fn drop_misshapen_fields(v: &mut serde_json::Value) {
    use serde_json::Value;
    fn keep_object(map: &mut serde_json::Map<String, Value>, key: &str) {
        if map.get(key).is_some_and(|v| !v.is_object()) {
            map.remove(key);
        }
    }
    fn clean_blocks(map: &mut serde_json::Map<String, Value>) {
        if let Some(Value::Array(blocks)) = map.get_mut("content") {
            blocks.retain(Value::is_object);
        }
    }
    fn clean_usage(map: &mut serde_json::Map<String, Value>) {
        keep_object(map, "usage");
        if let Some(Value::Object(usage)) = map.get_mut("usage") {
            keep_object(usage, "cost");
        }
    }
    let Value::Object(map) = v else { return };
    keep_object(map, "message");
    clean_blocks(map);
    clean_usage(map);
    if let Some(Value::Object(message)) = map.get_mut("message") {
        clean_blocks(message);
        clean_usage(message);
    }
}

/// Whether the text holds a `\uD800`–`\uDFFF` escape (cheap pre-check before a repair).
pub fn has_lone_surrogate_escape(b: &[u8]) -> bool {
    memchr::memmem::find_iter(b, b"\\u").any(|i| {
        b.get(i + 2).is_some_and(|c| *c == b'd' || *c == b'D')
            && b.get(i + 3).is_some_and(|c| matches!(c, b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'))
    })
}

/// Replace every surrogate escape that is not part of a valid pair with `\uFFFD`.
fn replace_lone_surrogates(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut last = 0;
    while i + 6 <= b.len() {
        if b[i] == b'\\' && b[i + 1] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == b'\\' && b[i + 1] == b'u' {
            if let Some(unit) = hex4(&b[i + 2..i + 6]) {
                let is_high = (0xD800..0xDC00).contains(&unit);
                let is_low = (0xDC00..0xE000).contains(&unit);
                let paired = is_high
                    && b.get(i + 6..i + 12).is_some_and(|next| {
                        next[0] == b'\\'
                            && next[1] == b'u'
                            && hex4(&next[2..6]).is_some_and(|u| (0xDC00..0xE000).contains(&u))
                    });
                if paired {
                    i += 12;
                    continue;
                }
                if is_high || is_low {
                    out.push_str(&text[last..i]);
                    out.push_str("\\uFFFD");
                    i += 6;
                    last = i;
                    continue;
                }
            }
            i += 6;
            continue;
        }
        i += 1;
    }
    out.push_str(&text[last..]);
    out
}

fn hex4(b: &[u8]) -> Option<u32> {
    std::str::from_utf8(b).ok().and_then(|s| u32::from_str_radix(s, 16).ok())
}

fn build(raw: RawLine<'_>, line_no: u32, span: std::ops::Range<u64>) -> Line {
    let ty = raw.ty.0.as_deref().unwrap_or("");
    if ty == "session" {
        return Line::Header(Box::new(header(&raw)));
    }
    let id = raw.id.as_str().map(Text::from);
    let timestamp = Text::from(raw.timestamp.0.as_deref().unwrap_or(""));
    let time_ms = super::date::parse_ms(&timestamp);
    let kind = kind(ty, &raw);
    let parent_id = raw.parent_id.0.as_deref().map(Text::from);
    let entry =
        Entry::new(id.clone().unwrap_or_default(), parent_id, timestamp, time_ms, kind, line_no, span);
    match id {
        Some(_) => Line::Entry(entry),
        None => Line::NoId(entry),
    }
}

fn header(raw: &RawLine<'_>) -> HeaderLine {
    HeaderLine {
        id: raw.id.text(),
        id_is_string: raw.id.as_str().is_some(),
        version: raw.version.0,
        timestamp: raw.timestamp.0.as_deref().map(str::to_string),
        cwd: raw.cwd.0.as_deref().map(str::to_string),
        parent_session: raw.parent_session.0.as_deref().map(str::to_string),
    }
}

fn literal_head(v: &LooseLiteral<'_>) -> TextHead {
    let mut head = HeadBuilder::default();
    if let Some(raw) = v.0 {
        push_literal(&mut head, raw);
    }
    head.finish()
}

fn s<T: for<'t> From<&'t str>>(v: &Loose<'_>) -> T {
    T::from(v.0.as_deref().unwrap_or(""))
}

fn opt<T: for<'t> From<&'t str>>(v: &Loose<'_>) -> Option<T> {
    v.0.as_deref().map(T::from)
}

fn kind(ty: &str, raw: &RawLine<'_>) -> Kind {
    match ty {
        "message" => Kind::Message(Box::new(message(raw.message.as_ref()))),
        "thinking_level_change" => Kind::ThinkingLevelChange { level: s(&raw.thinking_level) },
        "model_change" => Kind::ModelChange { provider: s(&raw.provider), model_id: s(&raw.model_id) },
        "compaction" => Kind::Compaction {
            tokens_before: raw.tokens_before.0.unwrap_or(0.0),
            first_kept_entry_id: opt(&raw.first_kept_entry_id),
            first_kept_entry_index: raw.first_kept_entry_index.0,
            has_system_message: raw.system_message.is_some_and(|m| m.get() != "null"),
            summary: literal_head(&raw.summary),
        },
        "branch_summary" => {
            Kind::BranchSummary { from_id: opt(&raw.from_id), summary: literal_head(&raw.summary) }
        }
        "custom" => Kind::Custom { custom_type: s(&raw.custom_type) },
        "custom_message" => Kind::CustomMessage {
            custom_type: s(&raw.custom_type),
            text: raw.content.as_ref().map(Content::text_head).unwrap_or_default(),
            display: raw.display.unwrap_or(false),
        },
        "label" => Kind::Label { target_id: s(&raw.target_id), label: opt(&raw.label) },
        "session_info" => Kind::SessionInfo { name: opt(&raw.name) },
        "usage" => Kind::Usage { kind: s(&raw.usage_kind), usage: raw.usage.0.as_ref().map(RawUsage::usage) },
        "context_edit" => Kind::ContextEdit {
            target_id: s(&raw.target_id),
            drops: raw.replacement.as_ref().is_none_or(|r| r.get() == "null"),
        },
        other => Kind::Unknown { type_name: other.to_string() },
    }
}

fn message(raw: Option<&RawMessage<'_>>) -> Message {
    let Some(m) = raw else {
        return Message::default();
    };
    let role = message_role(m.role.0.as_deref().unwrap_or(""));
    let content = m.content.as_ref();
    Message {
        text: content.map(Content::text_head).unwrap_or_default(),
        has_content: content.is_some_and(|c| !matches!(c, Content::Null)),
        timestamp_ms: m.timestamp.0,
        stop_reason: opt(&m.stop_reason),
        error_message: opt(&m.error_message),
        tool_calls: content.map(Content::tool_calls).unwrap_or_default(),
        tool_call_id: opt(&m.tool_call_id),
        tool_name: opt(&m.tool_name),
        command: opt(&m.command),
        custom_type: opt(&m.custom_type),
        provider: opt(&m.provider),
        model: opt(&m.model),
        usage: m.usage.0.as_ref().map(RawUsage::usage),
        has_image: content.is_some_and(|c| c.has_block("image")),
        has_thinking: content.is_some_and(|c| c.has_block("thinking")),
        role,
    }
}

/// A message's role as pitree keeps it: v2's `hookMessage` is migrated to `custom`, as pi does.
pub(super) fn message_role(role: &str) -> Text {
    Text::from(if role == "hookMessage" { "custom" } else { role })
}

/// The fields of a line that pitree reads. Unknown fields are skipped by serde.
#[derive(Deserialize)]
struct RawLine<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
    #[serde(default, borrow)]
    id: IdValue<'a>,
    #[serde(rename = "parentId", default, borrow)]
    parent_id: Loose<'a>,
    #[serde(default, borrow)]
    timestamp: Loose<'a>,
    #[serde(default, borrow)]
    message: Option<RawMessage<'a>>,
    #[serde(rename = "thinkingLevel", default, borrow)]
    thinking_level: Loose<'a>,
    #[serde(default, borrow)]
    provider: Loose<'a>,
    #[serde(rename = "modelId", default, borrow)]
    model_id: Loose<'a>,
    #[serde(default, borrow)]
    summary: LooseLiteral<'a>,
    #[serde(rename = "firstKeptEntryId", default, borrow)]
    first_kept_entry_id: Loose<'a>,
    #[serde(rename = "firstKeptEntryIndex", default)]
    first_kept_entry_index: LooseNum,
    #[serde(rename = "tokensBefore", default)]
    tokens_before: LooseNum,
    #[serde(rename = "fromId", default, borrow)]
    from_id: Loose<'a>,
    #[serde(rename = "customType", default, borrow)]
    custom_type: Loose<'a>,
    #[serde(default, borrow)]
    content: Option<Content<'a>>,
    #[serde(default, deserialize_with = "loose_bool")]
    display: Option<bool>,
    #[serde(rename = "targetId", default, borrow)]
    target_id: Loose<'a>,
    #[serde(default, borrow)]
    label: Loose<'a>,
    #[serde(default, borrow)]
    name: Loose<'a>,
    #[serde(rename = "kind", default, borrow)]
    usage_kind: Loose<'a>,
    #[serde(default)]
    usage: Obj<RawUsage>,
    #[serde(default, borrow)]
    replacement: Option<&'a RawValue>,
    #[serde(rename = "systemMessage", default, borrow)]
    system_message: Option<&'a RawValue>,
    #[serde(default)]
    version: JsNumber,
    #[serde(default, borrow)]
    cwd: Loose<'a>,
    #[serde(rename = "parentSession", default, borrow)]
    parent_session: Loose<'a>,
}

#[derive(Deserialize)]
struct RawMessage<'a> {
    #[serde(default, borrow)]
    role: Loose<'a>,
    #[serde(default, borrow)]
    content: Option<Content<'a>>,
    #[serde(default)]
    timestamp: LooseNum,
    #[serde(rename = "stopReason", default, borrow)]
    stop_reason: Loose<'a>,
    #[serde(rename = "errorMessage", default, borrow)]
    error_message: Loose<'a>,
    #[serde(rename = "toolCallId", default, borrow)]
    tool_call_id: Loose<'a>,
    #[serde(rename = "toolName", default, borrow)]
    tool_name: Loose<'a>,
    #[serde(default, borrow)]
    command: Loose<'a>,
    #[serde(rename = "customType", default, borrow)]
    custom_type: Loose<'a>,
    #[serde(default, borrow)]
    provider: Loose<'a>,
    #[serde(default, borrow)]
    model: Loose<'a>,
    #[serde(default)]
    usage: Obj<RawUsage>,
}

/// Message content: a string, an array of blocks, `null`, or anything else.
enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
    Null,
    Other,
}

impl Content<'_> {
    /// The head of the text blocks concatenated with no separator (a string content as is).
    fn text_head(&self) -> TextHead {
        match self {
            Content::Text(t) => TextHead::new(t),
            Content::Blocks(blocks) => {
                let mut head = HeadBuilder::default();
                let texts = blocks.iter().filter(|b| b.ty.0.as_deref() == Some("text"));
                for text in texts.filter_map(|b| b.text.0) {
                    push_literal(&mut head, text);
                }
                head.finish()
            }
            Content::Null | Content::Other => TextHead::default(),
        }
    }

    fn has_block(&self, ty: &str) -> bool {
        matches!(self, Content::Blocks(b) if b.iter().any(|b| b.ty.0.as_deref() == Some(ty)))
    }

    fn tool_calls(&self) -> Vec<ToolCall> {
        let Content::Blocks(blocks) = self else {
            return Vec::new();
        };
        blocks
            .iter()
            .filter(|b| b.ty.0.as_deref() == Some("toolCall"))
            .map(|b| {
                ToolCall::new(
                    s(&b.id),
                    s(&b.name),
                    b.arguments.map(|a| tool_args(a.get())).unwrap_or_default(),
                )
            })
            .collect()
    }
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
    #[serde(default, borrow)]
    text: LooseLiteral<'a>,
    #[serde(default, borrow)]
    id: Loose<'a>,
    #[serde(default, borrow)]
    name: Loose<'a>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("message content")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_string())))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Content::Null)
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(Content::Null)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element::<Block>()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// The header/entry `id`: kept as text whatever its type, so a numeric header id can be shown.
#[derive(Default)]
struct IdValue<'a>(Option<Scalar<'a>>);

impl IdValue<'_> {
    fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Some(Scalar::Str(s)) => Some(s),
            _ => None,
        }
    }

    fn text(&self) -> Option<String> {
        match &self.0 {
            Some(Scalar::Str(s)) => Some(s.to_string()),
            Some(Scalar::Num(n)) => Some(format_number(*n)),
            Some(Scalar::Bool(b)) => Some(b.to_string()),
            _ => None,
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for IdValue<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor::new()).map(|v| IdValue(Some(v)))
    }
}
