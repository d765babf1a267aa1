//! The quick read of a session line that a big session's first frame is drawn from: its place in
//! the tree and what the tree view's filters ask of it, and nothing a row shows. The tree view
//! fills in the rows on screen from their lines (`TreeView::preview`) while the whole file is
//! parsed behind it.
//!
//! A `message` line (nearly every line pi writes) is walked once: the walk checks the JSON grammar
//! as `JSON.parse` does and takes out the few fields the tree needs, with no serde, no copy of the
//! line and no allocation but the entry's own, and steps over long strings 64 bytes at a time
//! (`skim::string_end`). On one core that reads the benchmark's 301 MB session in about half
//! the time [`parse_line`] takes (~280 against ~540 ms), whose serde pass pays for every key and
//! number of a line. Every other line, and any line the walk does not vouch for (an escape in a
//! field it reads, a field written twice, content before the role, text before its block's type,
//! invalid UTF-8 in what it reads, deep nesting), is read by [`parse_line`] itself. The outline
//! entry has the id, parent, timestamp, role, tool calls (ids and names, no arguments), stop
//! reason, provider and model (what `pitree context` reports of the path) and whether the text
//! is blank of the full one, and so the same [`super::entry::Traits`]; its text head only stands
//! for that.

use super::entry::{Entry, HeadBuilder, Kind, Message, Text, TextHead, ToolCall};
use super::line::{Line, json_text, message_role, parse_line, without_file_bom};
use super::literal::push_literal;
use super::skim;

/// Read one line (without its `\n`) for the outline; `line_no` is 1-based, `start` the byte
/// offset of the line.
pub fn outline_line(bytes: &[u8], line_no: u32, start: u64) -> Line {
    let Some(trimmed) = json_text(without_file_bom(bytes, start)) else {
        return Line::Blank;
    };
    match walk_message_line(trimmed) {
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
        stop_reason: f.stop_reason.map(Text::from),
        tool_calls: f.tool_calls,
        tool_call_id: f.tool_call_id.map(Text::from),
        tool_name: f.tool_name.map(Text::from),
        provider: f.provider.map(Text::from),
        model: f.model.map(Text::from),
        ..Message::default()
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

/// What the outline takes from a `message` line. A field that is not a string reads as absent.
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
    /// An assistant's text blocks (or string content), read as far as a head.
    text: TextHead,
    tool_calls: Vec<ToolCall>,
}

/// Nesting deeper than this is left to [`parse_line`] (serde's own limit is 128).
const MAX_DEPTH: u32 = 64;

/// The fields of `line` when it is one JSON object of `type` `message` with a string `id`, and
/// the walk vouches for it; `None` hands the line to [`parse_line`].
fn walk_message_line(line: &[u8]) -> Option<Fields<'_>> {
    let mut w = Walk { b: line, i: 0 };
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

    /// A string field as text, `None` for any other value; a string with an escape or invalid
    /// UTF-8 stops the walk.
    fn loose_str(&mut self) -> Option<Option<&'a str>> {
        self.ws();
        if self.peek()? != b'"' {
            self.value(1)?;
            return Some(None);
        }
        let contents = self.string()?;
        (!contents.contains(&b'\\')).then_some(())?;
        std::str::from_utf8(contents).ok().map(Some)
    }

    /// The `message` object: its role, provider and model, and an assistant's content.
    fn message(&mut self, f: &mut Fields<'a>) -> Option<()> {
        let mut seen = Seen::default();
        self.object(1, |w, key| {
            match key {
                b"role" => f.role = seen.first(0).and_then(|_| w.loose_str())?,
                // Only an assistant's content decides anything in the tree; the role comes
                // before it in every line pi writes.
                b"content" if seen.has(0) => {
                    seen.first(1)?;
                    w.ws();
                    f.has_content = w.peek()? != b'n';
                    match (f.role, w.peek()?) {
                        (Some("assistant"), b'[') => w.blocks(f)?,
                        (Some("assistant"), b'"') => {
                            let mut head = HeadBuilder::default();
                            w.text(&mut head)?;
                            f.text = head.finish();
                        }
                        _ => w.value(2)?,
                    }
                }
                b"content" => return None,
                b"stopReason" => f.stop_reason = seen.first(2).and_then(|_| w.loose_str())?,
                b"toolCallId" => f.tool_call_id = seen.first(3).and_then(|_| w.loose_str())?,
                b"toolName" => f.tool_name = seen.first(4).and_then(|_| w.loose_str())?,
                b"provider" => f.provider = seen.first(5).and_then(|_| w.loose_str())?,
                b"model" => f.model = seen.first(6).and_then(|_| w.loose_str())?,
                _ => w.value(2)?,
            }
            Some(())
        })
    }

    /// A text value (a string, else nothing) pushed to `head` as far as its blankness shows:
    /// only its first character when that is visible ASCII, else its head. Invalid UTF-8 in what
    /// is read stops the walk.
    fn text(&mut self, head: &mut HeadBuilder) -> Option<()> {
        self.ws();
        if self.peek()? != b'"' {
            return self.value(4);
        }
        let from = self.i;
        let contents = self.string()?;
        match contents.first() {
            Some(&b) if b.is_ascii_graphic() && b != b'\\' => head.push_char(char::from(b)),
            _ => push_literal(head, std::str::from_utf8(&self.b[from..self.i]).ok()?),
        }
        Some(())
    }

    /// An assistant's content blocks: the text blocks' heads joined, the tool calls' ids and names.
    fn blocks(&mut self, f: &mut Fields<'a>) -> Option<()> {
        let mut head = HeadBuilder::default();
        self.array(2, |w| {
            w.ws();
            if w.peek()? != b'{' {
                return w.value(3);
            }
            let (mut ty, mut id, mut name) = (None, None, None);
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
                    _ => w.value(4)?,
                }
                Some(())
            })?;
            if ty == Some("toolCall") {
                let (id, name) = (Text::from(id.unwrap_or("")), Text::from(name.unwrap_or("")));
                f.tool_calls.push(ToolCall::new(id, name, Default::default()));
            }
            Some(())
        })?;
        f.text = head.finish();
        Some(())
    }
}
