//! The bytes of a cached session: its header, damage and file facts, and its entries, each value
//! written in a fixed order (little-endian numbers, a tag byte for an optional value or an entry
//! kind, strings as their length, with their text after all the values, so that the text of a
//! whole segment is checked as UTF-8 at once). Decoding checks every length and tag, so bytes
//! that are not an encoding give `None`, never a panic or a huge allocation.
//!
//! Written by hand rather than through serde: with `postcard` the 100,000 entries of the bench's
//! big session took ~85 ms to decode, more than the whole open may take (docs/performance.md).

use std::mem::MaybeUninit;
use std::ops::Range;

use crate::session::entry::{Entry, Kind, LineArg, Message, Text, TextHead, ToolArgs, ToolCall, Usage};
use crate::session::parse::{Damage, DamageKind, FileFacts, Header};

/// How many entries ahead [`Writer::entries`] asks for a message to be brought into the cache.
const PREFETCH_AHEAD: usize = 8;

/// Encodes values: their bytes, and the text of their strings apart.
#[derive(Default)]
pub struct Writer {
    bytes: Vec<u8>,
    text: String,
}

impl Writer {
    /// The encoding, into `out` (emptied first): the length of the values' bytes, those bytes,
    /// then the text. The writer is left empty with its buffers kept, so one used again touches
    /// no fresh memory once it is big enough.
    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        out.clear();
        out.reserve(8 + self.bytes.len() + self.text.len());
        out.extend_from_slice(&(self.bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.bytes);
        out.extend_from_slice(self.text.as_bytes());
        self.bytes.clear();
        self.text.clear();
    }

    fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    fn flag(&mut self, v: bool) {
        self.u8(u8::from(v));
    }
    fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u32(u32::try_from(b.len()).expect("a cached text is under 4 GiB"));
        self.bytes.extend_from_slice(b);
    }
    fn str(&mut self, s: &str) {
        self.u32(u32::try_from(s.len()).expect("a cached text is under 4 GiB"));
        self.text.push_str(s);
    }
    fn opt_str(&mut self, s: Option<&str>) {
        self.flag(s.is_some());
        if let Some(s) = s {
            self.str(s);
        }
    }
    fn opt_f64(&mut self, v: Option<f64>) {
        self.flag(v.is_some());
        self.f64(v.unwrap_or(0.0));
    }

    /// The parts of a parsed file other than its entries.
    pub fn file_parts(&mut self, header: &Header, damage: &[Damage], facts: &FileFacts, leaf: Option<u32>) {
        self.str(&header.id);
        self.flag(header.id_is_string);
        self.u32(header.version);
        self.opt_str(header.timestamp.as_deref());
        self.str(&header.cwd);
        self.opt_str(header.parent_session.as_deref());
        self.u32(header.line);
        self.u64(damage.len() as u64);
        for d in damage {
            self.u32(d.line);
            self.u8(damage_code(d.kind));
        }
        self.u64(facts.len);
        self.flag(facts.ends_with_newline);
        self.u32(facts.lines);
        self.bytes(&facts.first_line);
        self.flag(leaf.is_some());
        self.u32(leaf.unwrap_or(0));
    }

    pub fn entries(&mut self, entries: &[Entry]) {
        self.u64(entries.len() as u64);
        for (i, e) in entries.iter().enumerate() {
            // Each message is an allocation of its own, long out of the cache when it is encoded:
            // waiting for each in turn was half of the encoder's time.
            if let Some(Kind::Message(m)) = entries.get(i + PREFETCH_AHEAD).map(|e| &e.kind) {
                crate::memory::prefetch(&**m);
            }
            self.entry(e);
        }
    }

    fn entry(&mut self, e: &Entry) {
        self.str(&e.id);
        self.opt_str(e.parent_id.as_deref());
        self.str(&e.timestamp);
        self.flag(e.time_ms.is_some());
        self.u64(e.time_ms.unwrap_or(0) as u64);
        self.u32(e.line);
        self.u64(e.span.start);
        self.u64(e.span.end);
        self.kind(&e.kind);
    }

    fn kind(&mut self, kind: &Kind) {
        match kind {
            Kind::Message(m) => {
                self.u8(0);
                self.sized(|w| w.message(m));
            }
            Kind::ThinkingLevelChange { level } => {
                self.u8(1);
                self.str(level);
            }
            Kind::ModelChange { provider, model_id } => {
                self.u8(2);
                self.str(provider);
                self.str(model_id);
            }
            Kind::Compaction {
                tokens_before,
                first_kept_entry_id,
                first_kept_entry_index,
                summary,
                has_system_message,
            } => {
                self.u8(3);
                self.f64(*tokens_before);
                self.opt_str(first_kept_entry_id.as_deref());
                self.opt_f64(*first_kept_entry_index);
                self.head(summary);
                self.flag(*has_system_message);
            }
            Kind::BranchSummary { from_id, summary } => {
                self.u8(4);
                self.opt_str(from_id.as_deref());
                self.head(summary);
            }
            Kind::Custom { custom_type } => {
                self.u8(5);
                self.str(custom_type);
            }
            Kind::CustomMessage { custom_type, text, display } => {
                self.u8(6);
                self.str(custom_type);
                self.head(text);
                self.flag(*display);
            }
            Kind::Label { target_id, label } => {
                self.u8(7);
                self.str(target_id);
                self.opt_str(label.as_deref());
            }
            Kind::SessionInfo { name } => {
                self.u8(8);
                self.opt_str(name.as_deref());
            }
            Kind::Usage { kind, usage } => {
                self.u8(9);
                self.str(kind);
                self.usage(usage.as_ref());
            }
            Kind::ContextEdit { target_id, drops } => {
                self.u8(10);
                self.str(target_id);
                self.flag(*drops);
            }
            Kind::Unknown { type_name } => {
                self.u8(11);
                self.str(type_name);
            }
        }
    }

    /// What `write` writes, after its length in bytes and in text (so that a reader can step over
    /// it, [`Reader::skeleton`]).
    fn sized(&mut self, write: impl FnOnce(&mut Self)) {
        let (at, text_at) = (self.bytes.len(), self.text.len());
        self.u64(0);
        write(self);
        let len = |n: usize| u32::try_from(n).expect("a cached entry is under 4 GiB").to_le_bytes();
        let (bytes, text) = (len(self.bytes.len() - at - 8), len(self.text.len() - text_at));
        self.bytes[at..at + 4].copy_from_slice(&bytes);
        self.bytes[at + 4..at + 8].copy_from_slice(&text);
    }

    fn head(&mut self, head: &TextHead) {
        self.str(&head.head);
        self.flag(head.complete);
    }

    fn usage(&mut self, usage: Option<&Usage>) {
        self.flag(usage.is_some());
        if let Some(u) = usage {
            for v in [u.input, u.output, u.cache_read, u.cache_write, u.cost] {
                self.f64(v);
            }
        }
    }

    fn message(&mut self, m: &Message) {
        self.str(&m.role);
        self.head(&m.text);
        self.flag(m.has_content);
        self.opt_f64(m.timestamp_ms);
        self.opt_str(m.stop_reason.as_deref());
        self.opt_str(m.error_message.as_deref());
        self.u32(m.tool_calls.len() as u32);
        for call in &m.tool_calls {
            self.tool_call(call);
        }
        for s in [&m.tool_call_id, &m.tool_name] {
            self.opt_str(s.as_deref());
        }
        self.opt_str(m.command.as_deref());
        self.opt_str(m.custom_type.as_deref());
        for s in [&m.provider, &m.model] {
            self.opt_str(s.as_deref());
        }
        self.usage(m.usage.as_ref());
        self.flag(m.has_image);
        self.flag(m.has_thinking);
    }

    fn tool_call(&mut self, call: &ToolCall) {
        self.str(&call.id);
        self.str(&call.name);
        let a = &call.args;
        self.opt_str(a.path.as_deref());
        self.opt_str(a.file_path.as_deref());
        self.flag(a.path_is_text);
        self.line_arg(a.offset);
        self.line_arg(a.limit);
        self.opt_str(a.command.as_deref());
        self.opt_str(a.pattern.as_deref());
        self.str(&a.json_head);
        self.flag(a.json_complete);
    }

    fn line_arg(&mut self, arg: LineArg) {
        match arg {
            LineArg::Absent => self.u8(0),
            LineArg::Number(n) => {
                self.u8(1);
                self.f64(n);
            }
            LineArg::Invalid => self.u8(2),
        }
    }
}

fn damage_code(kind: DamageKind) -> u8 {
    match kind {
        DamageKind::Malformed => 0,
        DamageKind::NotAnObject => 1,
        DamageKind::MissingId => 2,
        DamageKind::ExtraHeader => 3,
        DamageKind::DuplicateId => 4,
    }
}

/// The parts of a parsed file other than its entries, as [`Writer::file_parts`] wrote them.
pub struct FileParts {
    pub header: Header,
    pub damage: Vec<Damage>,
    pub facts: FileFacts,
    pub leaf: Option<u32>,
}

/// Decodes what a [`Writer`] encoded, each read checked against what is left.
pub struct Reader<'a> {
    b: &'a [u8],
    text: &'a str,
    /// Step over message bodies ([`Reader::skeleton`]).
    skeleton: bool,
}

impl<'a> Reader<'a> {
    /// A reader of `encoded`; `None` when its parts' lengths do not add up or its text is not
    /// UTF-8.
    pub fn new(encoded: &'a [u8]) -> Option<Reader<'a>> {
        let (len, rest) = encoded.split_first_chunk::<8>()?;
        let (b, text) = rest.split_at_checked(usize::try_from(u64::from_le_bytes(*len)).ok()?)?;
        Some(Reader { b, text: std::str::from_utf8(text).ok()?, skeleton: false })
    }

    /// This reader, stepping over the body of every message entry: each is read as
    /// `Kind::Unknown` with an empty type name, which takes no allocation. What the session's
    /// graph is made of (ids, parents, labels, names) and every other entry are read whole.
    pub fn skeleton(self) -> Reader<'a> {
        Reader { skeleton: true, ..self }
    }

    /// Whether every byte and all the text were read.
    pub fn is_done(&self) -> bool {
        self.b.is_empty() && self.text.is_empty()
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (taken, rest) = self.b.split_at_checked(n)?;
        self.b = rest;
        Some(taken)
    }
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }
    fn u8(&mut self) -> Option<u8> {
        self.array::<1>().map(|[b]| b)
    }
    fn flag(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
    fn u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.array().map(u64::from_le_bytes)
    }
    fn f64(&mut self) -> Option<f64> {
        self.u64().map(f64::from_bits)
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn str(&mut self) -> Option<&'a str> {
        let n = self.u32()? as usize;
        self.take_text(n)
    }
    fn take_text(&mut self, n: usize) -> Option<&'a str> {
        let (taken, rest) = self.text.split_at_checked(n)?;
        self.text = rest;
        Some(taken)
    }
    fn string(&mut self) -> Option<String> {
        self.str().map(str::to_string)
    }
    fn text(&mut self) -> Option<Text> {
        self.str().map(Text::from)
    }
    fn opt<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.flag()? { read(self).map(Some) } else { Some(None) }
    }
    fn opt_f64(&mut self) -> Option<Option<f64>> {
        let some = self.flag()?;
        let v = self.f64()?;
        Some(some.then_some(v))
    }
    /// A count of items that take at least `min_len` bytes each: never more than the bytes left
    /// could hold, so a damaged count cannot ask for a huge allocation.
    fn count(&mut self, n: u64, min_len: usize) -> Option<usize> {
        let n = usize::try_from(n).ok()?;
        (n <= self.b.len() / min_len).then_some(n)
    }

    pub fn file_parts(&mut self) -> Option<FileParts> {
        let header = Header {
            id: self.string()?,
            id_is_string: self.flag()?,
            version: self.u32()?,
            timestamp: self.opt(Self::string)?,
            cwd: self.string()?,
            parent_session: self.opt(Self::string)?,
            line: self.u32()?,
        };
        let n = self.u64()?;
        let n = self.count(n, 5)?;
        let damage = (0..n)
            .map(|_| Some(Damage { line: self.u32()?, kind: damage_kind(self.u8()?)? }))
            .collect::<Option<_>>()?;
        let facts = FileFacts {
            len: self.u64()?,
            ends_with_newline: self.flag()?,
            lines: self.u32()?,
            first_line: self.bytes()?.to_vec(),
        };
        let has_leaf = self.flag()?;
        let leaf = self.u32()?;
        Some(FileParts { header, damage, facts, leaf: has_leaf.then_some(leaf) })
    }

    /// Decode entries into `places`, which must be as many as were written; returns how many
    /// places were written (all of them, unless the bytes are damaged).
    pub fn entries_into(&mut self, places: &mut [MaybeUninit<Entry>]) -> usize {
        if self.u64() != Some(places.len() as u64) {
            return 0;
        }
        for (done, place) in places.iter_mut().enumerate() {
            match self.entry() {
                Some(entry) => {
                    place.write(entry);
                }
                None => return done,
            }
        }
        places.len()
    }

    fn entry(&mut self) -> Option<Entry> {
        let id = self.text()?;
        let parent_id = self.opt(Self::text)?;
        let timestamp = self.text()?;
        let has_time = self.flag()?;
        let time_ms = self.u64()? as i64;
        let line = self.u32()?;
        let span: Range<u64> = self.u64()?..self.u64()?;
        let kind = self.kind()?;
        Some(Entry::new(id, parent_id, timestamp, has_time.then_some(time_ms), kind, line, span))
    }

    fn kind(&mut self) -> Option<Kind> {
        Some(match self.u8()? {
            0 => self.message_kind()?,
            1 => Kind::ThinkingLevelChange { level: self.string()? },
            2 => Kind::ModelChange { provider: self.string()?, model_id: self.string()? },
            3 => Kind::Compaction {
                tokens_before: self.f64()?,
                first_kept_entry_id: self.opt(Self::string)?,
                first_kept_entry_index: self.opt_f64()?,
                summary: self.head()?,
                has_system_message: self.flag()?,
            },
            4 => Kind::BranchSummary { from_id: self.opt(Self::string)?, summary: self.head()? },
            5 => Kind::Custom { custom_type: self.string()? },
            6 => {
                Kind::CustomMessage { custom_type: self.string()?, text: self.head()?, display: self.flag()? }
            }
            7 => Kind::Label { target_id: self.string()?, label: self.opt(Self::string)? },
            8 => Kind::SessionInfo { name: self.opt(Self::string)? },
            9 => Kind::Usage { kind: self.string()?, usage: self.usage()? },
            10 => Kind::ContextEdit { target_id: self.string()?, drops: self.flag()? },
            11 => Kind::Unknown { type_name: self.string()? },
            _ => return None,
        })
    }

    fn head(&mut self) -> Option<TextHead> {
        Some(TextHead { head: self.string()?, complete: self.flag()? })
    }

    fn usage(&mut self) -> Option<Option<Usage>> {
        self.opt(|r| {
            Some(Usage {
                input: r.f64()?,
                output: r.f64()?,
                cache_read: r.f64()?,
                cache_write: r.f64()?,
                cost: r.f64()?,
            })
        })
    }

    /// A message entry's kind, its body stepped over by a [`Reader::skeleton`]; a body that is
    /// not as long as it says is damage.
    fn message_kind(&mut self) -> Option<Kind> {
        let (len, text_len) = (self.u32()? as usize, self.u32()? as usize);
        if self.skeleton {
            self.take(len)?;
            self.take_text(text_len)?;
            return Some(Kind::Unknown { type_name: String::new() });
        }
        let before = (self.b.len(), self.text.len());
        let message = self.message()?;
        let read = (before.0 - self.b.len(), before.1 - self.text.len());
        (read == (len, text_len)).then(|| Kind::Message(Box::new(message)))
    }

    fn message(&mut self) -> Option<Message> {
        let role = self.text()?;
        let text = self.head()?;
        let has_content = self.flag()?;
        let timestamp_ms = self.opt_f64()?;
        let stop_reason = self.opt(Self::text)?;
        let error_message = self.opt(Self::string)?;
        let n = self.u32()?;
        let n = self.count(u64::from(n), 16)?;
        let tool_calls = (0..n).map(|_| self.tool_call()).collect::<Option<_>>()?;
        Some(Message {
            role,
            text,
            has_content,
            timestamp_ms,
            stop_reason,
            error_message,
            tool_calls,
            tool_call_id: self.opt(Self::text)?,
            tool_name: self.opt(Self::text)?,
            command: self.opt(Self::string)?,
            custom_type: self.opt(Self::string)?,
            provider: self.opt(Self::text)?,
            model: self.opt(Self::text)?,
            usage: self.usage()?,
            has_image: self.flag()?,
            has_thinking: self.flag()?,
        })
    }

    fn tool_call(&mut self) -> Option<ToolCall> {
        let id = self.text()?;
        let name = self.text()?;
        let args = ToolArgs {
            path: self.opt(Self::string)?,
            file_path: self.opt(Self::string)?,
            path_is_text: self.flag()?,
            offset: self.line_arg()?,
            limit: self.line_arg()?,
            command: self.opt(Self::string)?,
            pattern: self.opt(Self::string)?,
            json_head: self.string()?,
            json_complete: self.flag()?,
        };
        Some(ToolCall::new(id, name, args))
    }

    fn line_arg(&mut self) -> Option<LineArg> {
        match self.u8()? {
            0 => Some(LineArg::Absent),
            1 => self.f64().map(LineArg::Number),
            2 => Some(LineArg::Invalid),
            _ => None,
        }
    }
}

fn damage_kind(code: u8) -> Option<DamageKind> {
    Some(match code {
        0 => DamageKind::Malformed,
        1 => DamageKind::NotAnObject,
        2 => DamageKind::MissingId,
        3 => DamageKind::ExtraHeader,
        4 => DamageKind::DuplicateId,
        _ => return None,
    })
}
