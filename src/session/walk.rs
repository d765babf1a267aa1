//! Reading a `message` line (nearly every line pi writes) in one walk, read one of two ways: its
//! outline, what a big session's first frame is drawn from (its place in the tree and what the
//! tree view's filters ask of it, nothing a row shows), or whole, the same [`Entry`] that
//! [`parse_line`] makes.
//!
//! The walk checks the JSON grammar as `JSON.parse` does and takes out the fields it needs, with
//! no serde pass over the line, no copy of it and no allocation but the entry's own, and steps
//! over long strings 64 bytes at a time (`skim::string_end`). On one core over the benchmark's
//! 301 MB session held in memory, the outline takes ~150 ms and the whole read ~225 ms, against
//! ~270 ms for [`parse_line`], whose serde pass pays for every key and number of a line (and
//! which cuts a line's long texts to their heads before it). Every other line, and any
//! line the walk does not vouch for (an escape in a field it reads as plain text, a field written
//! twice, text before its block's type, invalid UTF-8 in what it reads, deep nesting; and for a
//! whole read, any top-level field but the five pi writes or a content block that is not an
//! object), is read by [`parse_line`] itself.
//!
//! The outline entry has the id, parent, timestamp, role, tool calls (ids and names, no
//! arguments), stop reason, provider and model (what `pitree context` reports of the path) and
//! whether an assistant's text is blank, and so the same [`super::entry::Traits`]; its text head
//! only stands for that. A whole read adds the text heads of every role, the tool calls'
//! arguments ([`tool_args`]), the message's time, error, command, custom type and usage, and
//! whether it has images or thinking: every field [`parse_line`] fills, each read as it reads it.

use std::borrow::Cow;

use super::entry::{Entry, HeadBuilder, Kind, Message, Text, TextHead, ToolCall, Usage};
use super::line::{HEAD_ONLY, Line, json_text, message_role, parse_line, without_file_bom};
use super::literal::push_contents;
use super::loose::RawUsage;
use super::skim;
use super::tool_args::tool_args;

/// Read one line (without its `\n`) for the outline; `line_no` is 1-based, `start` the byte
/// offset of the line.
pub fn outline_line(bytes: &[u8], line_no: u32, start: u64) -> Line {
    read_line(bytes, line_no, start, Reading::Outline)
}

/// Read one line (without its `\n`) whole: what [`parse_line`] reads, in about the outline's time
/// for a `message` line. `line_no` is 1-based, `start` the byte offset of the line.
pub fn whole_line(bytes: &[u8], line_no: u32, start: u64) -> Line {
    read_line(bytes, line_no, start, Reading::Whole)
}

/// How much of a `message` line the walk takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    Outline,
    Whole,
}

fn read_line(bytes: &[u8], line_no: u32, start: u64, reading: Reading) -> Line {
    let Some(trimmed) = json_text(without_file_bom(bytes, start)) else {
        return Line::Blank;
    };
    match walk_message_line(trimmed, reading) {
        Some(fields) => Line::Entry(entry(fields, line_no, start..start + bytes.len() as u64)),
        None => parse_line(bytes, line_no, start),
    }
}

fn entry(f: Fields<'_>, line_no: u32, span: std::ops::Range<u64>) -> Entry {
    let timestamp = Text::from(f.timestamp.unwrap_or(""));
    let time_ms = super::date::parse_ms(&timestamp);
    let message = Message {
        role: message_role(f.role.unwrap_or("")),
        text: f.text,
        has_content: f.has_content,
        timestamp_ms: f.timestamp_ms,
        stop_reason: f.stop_reason.map(Text::from),
        error_message: f.error_message.map(Cow::into_owned),
        tool_calls: f.tool_calls,
        tool_call_id: f.tool_call_id.map(Text::from),
        tool_name: f.tool_name.map(Text::from),
        command: f.command.map(Cow::into_owned),
        custom_type: f.custom_type.map(Cow::into_owned),
        provider: f.provider.map(Text::from),
        model: f.model.map(Text::from),
        usage: f.usage,
        has_image: f.has_image,
        has_thinking: f.has_thinking,
    };
    let id = Text::from(f.id);
    Entry::new(
        id,
        f.parent_id.map(Text::from),
        timestamp,
        time_ms,
        Kind::Message(Box::new(message)),
        line_no,
        span,
    )
}

/// What the walk takes from a `message` line. A field that is not a string reads as absent.
#[derive(Default)]
struct Fields<'a> {
    id: &'a str,
    parent_id: Option<&'a str>,
    timestamp: Option<&'a str>,
    role: Option<&'a str>,
    stop_reason: Option<&'a str>,
    tool_call_id: Option<&'a str>,
    tool_name: Option<&'a str>,
    provider: Option<&'a str>,
    model: Option<&'a str>,
    has_content: bool,
    /// The text blocks (or string content) read as far as a head; in an outline, an
    /// assistant's only, and only as far as its blankness shows.
    text: TextHead,
    tool_calls: Vec<ToolCall>,
    // Read whole only.
    timestamp_ms: Option<f64>,
    error_message: Option<Cow<'a, str>>,
    command: Option<Cow<'a, str>>,
    custom_type: Option<Cow<'a, str>>,
    usage: Option<Usage>,
    has_image: bool,
    has_thinking: bool,
}

/// Nesting deeper than this is left to [`parse_line`] (serde's own limit is 128).
const MAX_DEPTH: u32 = 64;

/// The fields of `line` when it is one JSON object of `type` `message` with a string `id`, and
/// the walk vouches for it; `None` hands the line to [`parse_line`].
fn walk_message_line(line: &[u8], reading: Reading) -> Option<Fields<'_>> {
    let mut w = Walk { b: line, i: 0, reading };
    let mut f = Fields::default();
    let (mut ty, mut id) = (None, None);
    let mut seen = Seen::default();
    w.object(0, |w, key| {
        match key {
            b"type" => ty = seen.first(0).and_then(|_| w.loose_str())?,
            b"id" => id = seen.first(1).and_then(|_| w.loose_str())?,
            b"parentId" => f.parent_id = seen.first(2).and_then(|_| w.loose_str())?,
            b"timestamp" => f.timestamp = seen.first(3).and_then(|_| w.loose_str())?,
            b"message" => {
                seen.first(4)?;
                w.ws();
                match w.peek()? {
                    b'n' => w.literal(b"null")?,
                    b'{' => w.message(&mut f)?,
                    _ => return None,
                }
            }
            // The full reader reads other fields of a line (a summary, a usage, …) with rules of
            // their own; pi writes none in a message line.
            _ if w.reading == Reading::Whole => return None,
            _ => w.value(1)?,
        }
        Some(())
    })?;
    (w.i == line.len() && ty == Some("message")).then_some(())?;
    f.id = id?;
    Some(f)
}

/// Which of a few keys were already met: a key written twice is left to the full reader (serde
/// refuses it and `JSON.parse` keeps the last).
#[derive(Default)]
struct Seen(u16);

impl Seen {
    /// `Some` the first time `n` is met, `None` after.
    fn first(&mut self, n: u32) -> Option<()> {
        let bit = 1 << n;
        (self.0 & bit == 0).then(|| self.0 |= bit)
    }

    fn has(&self, n: u32) -> bool {
        self.0 & 1 << n != 0
    }
}

/// A cursor over one line, checking the JSON grammar as it goes.
struct Walk<'a> {
    b: &'a [u8],
    i: usize,
    reading: Reading,
}

impl<'a> Walk<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.ws();
        (self.peek()? == byte).then(|| self.i += 1)
    }

    /// An object; `field` is called with each key and the cursor before its value, which it
    /// must read.
    fn object(&mut self, depth: u32, mut field: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.container(depth, b'{', b'}', |w| {
            w.ws();
            let key = w.string()?;
            // An escaped key may spell one the walk reads: left to the full reader.
            (!key.contains(&b'\\')).then_some(())?;
            w.eat(b':')?;
            field(w, key)
        })
    }

    /// An array; `element` is called with the cursor before each element, which it must read.
    fn array(&mut self, depth: u32, element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.container(depth, b'[', b']', element)
    }

    /// `open`, items separated by commas (each read by `item`), `close`.
    fn container(
        &mut self,
        depth: u32,
        open: u8,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        (depth < MAX_DEPTH).then_some(())?;
        self.eat(open)?;
        self.ws();
        if self.peek()? == close {
            self.i += 1;
            return Some(());
        }
        loop {
            item(self)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                c if c == close => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Any value, checked and skipped.
    fn value(&mut self, depth: u32) -> Option<()> {
        self.ws();
        match self.peek()? {
            b'{' => self.object(depth, |w, _| w.value(depth + 1)),
            b'[' => self.array(depth, |w| w.value(depth + 1)),
            b'"' => self.string().map(drop),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number(),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.b[self.i..].starts_with(word).then(|| self.i += word.len())
    }

    /// A number as JSON writes it: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number(&mut self) -> Option<()> {
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek()? {
            b'0' => self.i += 1,
            b'1'..=b'9' => self.digits()?,
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            self.digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            self.digits()?;
        }
        Some(())
    }

    /// One or more digits.
    fn digits(&mut self) -> Option<()> {
        let from = self.i;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
        (self.i > from).then_some(())
    }

    /// A string; its contents as written (escapes checked, not decoded).
    fn string(&mut self) -> Option<&'a [u8]> {
        (self.peek()? == b'"').then_some(())?;
        let from = self.i + 1;
        let end = from + skim::string_end(&self.b[from..])?;
        self.i = end + 1;
        Some(&self.b[from..end])
    }

    /// Whether the next value starts with `byte`; any other value is checked and stepped over
    /// (`depth` levels deep).
    fn next_is(&mut self, byte: u8, depth: u32) -> Option<bool> {
        self.ws();
        if self.peek()? == byte {
            return Some(true);
        }
        self.value(depth)?;
        Some(false)
    }

    /// A string field as text, `None` for any other value; a string with an escape or invalid
    /// UTF-8 stops the walk.
    fn loose_str(&mut self) -> Option<Option<&'a str>> {
        if !self.next_is(b'"', 1)? {
            return Some(None);
        }
        let contents = self.string()?;
        (!contents.contains(&b'\\')).then_some(())?;
        std::str::from_utf8(contents).ok().map(Some)
    }

    /// A string field as text with its escapes read, `None` for any other value; invalid UTF-8
    /// or an escape serde refuses (half a surrogate pair) stops the walk.
    fn loose_string(&mut self) -> Option<Option<Cow<'a, str>>> {
        if !self.next_is(b'"', 1)? {
            return Some(None);
        }
        let from = self.i;
        let contents = self.string()?;
        if !contents.contains(&b'\\') {
            return std::str::from_utf8(contents).ok().map(|s| Some(Cow::Borrowed(s)));
        }
        serde_json::from_slice::<String>(&self.b[from..self.i]).ok().map(|s| Some(Cow::Owned(s)))
    }

    /// Any value, checked and skipped, as its JSON text.
    fn raw_value(&mut self, depth: u32) -> Option<&'a [u8]> {
        self.ws();
        let from = self.i;
        self.value(depth)?;
        Some(&self.b[from..self.i])
    }

    /// A number field as serde reads it into an `f64`, `None` for any other value; a number
    /// out of the `f64` range stops the walk.
    fn loose_number(&mut self) -> Option<Option<f64>> {
        let raw = self.raw_value(4)?;
        if !matches!(raw.first(), Some(b'-' | b'0'..=b'9')) {
            return Some(None);
        }
        number(raw).map(Some)
    }

    /// The `message` object: every field the walk reads of it.
    fn message(&mut self, f: &mut Fields<'a>) -> Option<()> {
        let whole = self.reading == Reading::Whole;
        let mut seen = Seen::default();
        self.object(1, |w, key| {
            match key {
                b"role" => f.role = seen.first(0).and_then(|_| w.loose_str())?,
                // In an outline only an assistant's content decides anything; the role comes
                // before it in every line pi writes.
                b"content" if whole || seen.has(0) => {
                    seen.first(1)?;
                    w.content(f)?;
                }
                b"content" => return None,
                b"stopReason" => f.stop_reason = seen.first(2).and_then(|_| w.loose_str())?,
                b"toolCallId" => f.tool_call_id = seen.first(3).and_then(|_| w.loose_str())?,
                b"toolName" => f.tool_name = seen.first(4).and_then(|_| w.loose_str())?,
                b"provider" => f.provider = seen.first(5).and_then(|_| w.loose_str())?,
                b"model" => f.model = seen.first(6).and_then(|_| w.loose_str())?,
                b"timestamp" if whole => f.timestamp_ms = seen.first(7).and_then(|_| w.loose_number())?,
                b"errorMessage" if whole => f.error_message = seen.first(8).and_then(|_| w.loose_string())?,
                b"command" if whole => f.command = seen.first(9).and_then(|_| w.loose_string())?,
                b"customType" if whole => f.custom_type = seen.first(10).and_then(|_| w.loose_string())?,
                b"usage" if whole => f.usage = seen.first(11).and_then(|_| w.usage())?,
                _ => w.value(2)?,
            }
            Some(())
        })
    }

    /// A message's `usage` as the full reader's [`RawUsage`] reads it: an object's token counts
    /// and its cost's total, `None` for any other value.
    fn usage(&mut self) -> Option<Option<Usage>> {
        if !self.next_is(b'{', 2)? {
            return Some(None);
        }
        let [mut input, mut output, mut cache_read, mut cache_write, mut cost] = [None; 5];
        let mut seen = Seen::default();
        self.object(2, |w, key| {
            match key {
                b"input" => input = seen.first(0).and_then(|_| w.loose_number())?,
                b"output" => output = seen.first(1).and_then(|_| w.loose_number())?,
                b"cacheRead" => cache_read = seen.first(2).and_then(|_| w.loose_number())?,
                b"cacheWrite" => cache_write = seen.first(3).and_then(|_| w.loose_number())?,
                b"cost" => cost = seen.first(4).and_then(|_| w.cost_total())?,
                _ => w.value(3)?,
            }
            Some(())
        })?;
        Some(Some(RawUsage::of(input, output, cache_read, cache_write, cost).usage()))
    }

    /// The `total` of a usage's `cost` object, `None` for any other value.
    fn cost_total(&mut self) -> Option<Option<f64>> {
        if !self.next_is(b'{', 3)? {
            return Some(None);
        }
        let mut total = None;
        let mut seen = Seen::default();
        self.object(3, |w, key| {
            match key {
                b"total" => total = seen.first(0).and_then(|_| w.loose_number())?,
                _ => w.value(4)?,
            }
            Some(())
        })?;
        Some(total)
    }

    /// A message's `content`: whether there is one, and what the walk reads of it (an
    /// outline: an assistant's only).
    fn content(&mut self, f: &mut Fields<'a>) -> Option<()> {
        self.ws();
        f.has_content = self.peek()? != b'n';
        let read = self.reading == Reading::Whole || f.role == Some("assistant");
        match self.peek()? {
            b'[' if read => self.blocks(f),
            b'"' if read => {
                let mut head = HeadBuilder::default();
                self.text(&mut head)?;
                f.text = head.finish();
                Some(())
            }
            _ => self.value(2),
        }
    }

    /// A text value (a string, else nothing) pushed to `head`. An outline reads only as far as
    /// its blankness shows: its first character when that is visible ASCII, else its head.
    /// Invalid UTF-8 in what is read stops the walk.
    fn text(&mut self, head: &mut HeadBuilder) -> Option<()> {
        if !self.next_is(b'"', 4)? {
            return Some(());
        }
        let contents = self.string()?;
        match contents.first() {
            _ if head.is_cut() => {}
            Some(&b) if self.reading == Reading::Outline && b.is_ascii_graphic() && b != b'\\' => {
                head.push_char(char::from(b))
            }
            _ => push_contents(head, contents_head(contents)?),
        }
        Some(())
    }

    /// A message's content blocks: the text blocks' heads joined, the tool calls; read whole,
    /// also the calls' arguments and whether there are images or thinking. A block that is not
    /// an object is left to the full reader when read whole.
    fn blocks(&mut self, f: &mut Fields<'a>) -> Option<()> {
        let mut head = HeadBuilder::default();
        self.array(2, |w| {
            w.ws();
            if w.peek()? != b'{' {
                if w.reading == Reading::Whole {
                    return None;
                }
                return w.value(3);
            }
            let (mut ty, mut id, mut name, mut arguments) = (None, None, None, None);
            let mut seen = Seen::default();
            w.object(3, |w, key| {
                match key {
                    b"type" => ty = seen.first(0).and_then(|_| w.loose_str())?,
                    // The type comes before the text in every block pi writes.
                    b"text" if seen.has(0) => {
                        seen.first(1)?;
                        if ty == Some("text") { w.text(&mut head)? } else { w.value(4)? }
                    }
                    b"text" => return None,
                    b"id" => id = seen.first(2).and_then(|_| w.loose_str())?,
                    b"name" => name = seen.first(3).and_then(|_| w.loose_str())?,
                    b"arguments" if w.reading == Reading::Whole => {
                        seen.first(4)?;
                        arguments = Some(w.raw_value(4)?).filter(|raw| raw != b"null");
                    }
                    _ => w.value(4)?,
                }
                Some(())
            })?;
            if w.reading == Reading::Whole {
                f.has_image |= ty == Some("image");
                f.has_thinking |= ty == Some("thinking");
            }
            if ty == Some("toolCall") {
                let (id, name) = (Text::from(id.unwrap_or("")), Text::from(name.unwrap_or("")));
                let args = match arguments {
                    Some(raw) => call_arguments(raw)?,
                    None => Default::default(),
                };
                // One call at a time, as the full reader's exact-sized list holds them.
                f.tool_calls.reserve_exact(1);
                f.tool_calls.push(ToolCall::new(id, name, args));
            }
            Some(())
        })?;
        f.text = head.finish();
        Some(())
    }
}

/// The JSON number `raw` (checked) as serde reads it into an `f64`; `None` out of its range. A
/// whole number of up to 15 digits, as token counts and times are, is exact without serde.
fn number(raw: &[u8]) -> Option<f64> {
    if raw.len() <= 15 && raw.iter().all(u8::is_ascii_digit) {
        return Some(raw.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')) as f64);
    }
    serde_json::from_slice::<f64>(raw).ok()
}

/// A tool call's arguments from their JSON text `raw`, with its long texts cut to their heads
/// first as [`parse_line`] cuts them (a `write` call can carry a megabyte of file content).
/// `None` for invalid UTF-8 in what is left.
fn call_arguments(raw: &[u8]) -> Option<super::entry::ToolArgs> {
    let mut shortened = Vec::new();
    let short = skim::shorten(raw, &mut shortened, skim::Cut::Heads(&HEAD_ONLY));
    std::str::from_utf8(short).ok().map(tool_args)
}

/// The part of a JSON string's `contents` (as written, escapes checked) a text head reads, as
/// text: its first [`super::entry::TEXT_HEAD_CHARS`] + 1 characters, as far as [`parse_line`]
/// keeps a long text ([`skim::keep_end`]), so that a long text is checked as UTF-8 only as far as
/// its head. `None` for invalid UTF-8 there.
fn contents_head(contents: &[u8]) -> Option<&str> {
    std::str::from_utf8(&contents[..skim::keep_end(contents, 0, contents.len())]).ok()
}
