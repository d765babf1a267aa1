//! One line of a session file, read only as far as the listing needs it.
//!
//! Three tiers (crates.md §5):
//! - **Sniff.** A line that starts the way pi writes it (`{"type":"…","id":"…","parentId":…`, and
//!   for messages `,"timestamp":"…","message":{"role":"…"`) and whose rest the listing does not need
//!   (tool results, bash executions, labels, model changes…) is only checked to be complete JSON
//!   with its sniffed keys once each, by the structural validator ([`super::validate`]: one vector
//!   pass over the line, its tokens walked by a small state machine). What that leaves open goes
//!   to the serde check it stands in for: the session reader's skim (`session::skim`) checks the
//!   insides of every string 64 bytes at a time and leaves every string over 1 KB out of a copy,
//!   and serde (`IgnoredAny`, no allocation) checks the grammar of what is left, a few hundred
//!   bytes of a 5 MB tool output.
//! - **Harvest.** A user or assistant message that starts the way pi writes it goes through the
//!   same validator, whose walk also notes where the values the listing reads are
//!   ([`validate::harvest`]: the content, its blocks' types and texts, `message.timestamp` and the
//!   usage's numbers). The texts are decoded from there and the numbers read as serde reads them
//!   ([`super::valid_json`]), with nothing else of the line read again. A line the harvest does
//!   not vouch for (a key it reads written twice or with an escape, a text that is neither a string
//!   nor `null`, invalid UTF-8 or a lone surrogate escape in a text, a number too large for a
//!   double) takes the typed parse; property tests hold the two to the same result.
//! - **Typed parse.** Everything else (the header, `session_info`, `usage`, and any line in another
//!   key order or with escapes in those first fields) goes through a borrowed serde struct whose
//!   fields are all "loose": a value of an unexpected JSON type reads as absent, as JavaScript
//!   would simply find nothing useful in it. Message content keeps only the text blocks' texts.
//!   Before serde reads a long line, the skim leaves out the long values of every key the listing
//!   does not read (thinking, signatures, base64 images, tool-call arguments), so serde never
//!   walks them.
//! - A line the typed parse rejects with a plain grammar error (valid UTF-8, no surrogate escape)
//!   is malformed at once; only the others take the slow path (lossy UTF-8, surrogate repair,
//!   duplicate keys resolved as `JSON.parse` does, non-object values told apart).
//!
//! Either way the whole line is validated as JSON: what the skim leaves out it has checked, and
//! the copy is JSON exactly when the line is.
//!
//! Every tier accepts what pitree's session reader accepts: JSON white space around the value (CR
//! before the `\n` included), invalid UTF-8 (decoded lossily) and lone UTF-16 surrogate escapes
//! (read as U+FFFD); a BOM at the start of the file is left out by the scan before.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::valid_json;
use super::validate::{self, BlockSpans};
use crate::session::date;
use crate::session::entry::Usage;
use crate::session::js::js_string;
use crate::session::line::{
    format_number, has_lone_surrogate_escape, is_falsy, is_number_out_of_range, json_text, lossy,
    value_as_javascript_reads_it,
};
use crate::session::loose::{JsNumber, Loose, LooseNum, Obj, RawUsage, ReadSeq, ScalarVisitor};
use crate::session::skim::{self, Cut};

/// What one line turned out to be.
pub enum Parsed<'a> {
    Blank,
    /// Not JSON (or cut off).
    Malformed,
    /// JSON that is not an object. pi skips the falsy ones (`null`, `false`, `0`, `""`).
    NotAnObject {
        falsy: bool,
    },
    /// A JSON object.
    Object(Object<'a>),
}

/// The fields of an object line the listing uses.
pub struct Object<'a> {
    pub ty: Option<Cow<'a, str>>,
    pub id: Id<'a>,
    pub parent_id: Option<Cow<'a, str>>,
    /// Absent when the line was only sniffed (nothing else in it matters to the listing).
    pub fields: Option<Box<Fields<'a>>>,
}

/// An `id` value: pi lists a header whose id is a number, so other values are kept as text.
pub enum Id<'a> {
    Missing,
    Str(Cow<'a, str>),
    Other(String),
}

impl Id<'_> {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Id::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Parse `line` (without its `\n`) and hand the result to `f`; the result borrows from the line or
/// from a repaired copy that lives only during the call.
pub fn with_line<R>(line: &[u8], f: impl FnOnce(Parsed<'_>) -> R) -> R {
    let Some(line) = json_text(line) else {
        return f(Parsed::Blank);
    };
    match sniff(line) {
        Some(Sniffed::Skipped(object))
            if validate::is_sniffed_json(line).unwrap_or_else(|| is_sniffed_json_by_serde(line)) =>
        {
            return f(Parsed::Object(object));
        }
        Some(Sniffed::Message(head)) => {
            if let Some(fields) = harvested_fields(line, head) {
                return f(Parsed::Object(fields.into_object()));
            }
        }
        _ => {}
    }
    typed(line, f)
}

/// The typed parse of `line` (without the white space around it): serde over what the skim
/// leaves of it, then the slow path for what serde refuses.
fn typed<R>(line: &[u8], f: impl FnOnce(Parsed<'_>) -> R) -> R {
    let mut short = Vec::new();
    let line = skim::shorten(line, &mut short, Cut::ValuesExcept(&READ_KEYS));
    match from_json::<Fields>(line) {
        Ok(fields) => f(Parsed::Object(fields.into_object())),
        Err(e) if is_plain_syntax_error(&e, line) => f(Parsed::Malformed),
        Err(_) => slow_path(line, f),
    }
}

/// For the validator's property tests: when the harvest reads `line` (a sniffed user or
/// assistant line it vouches for), what the listing takes from it through the harvest and
/// through the typed parse alone, written out.
#[cfg(test)]
pub(crate) fn harvest_and_typed(line: &[u8]) -> Option<(String, String)> {
    let text = json_text(line)?;
    let Some(Sniffed::Message(head)) = sniff(text) else { return None };
    let harvested = Parsed::Object(harvested_fields(text, head)?.into_object());
    Some((listing_view(harvested), typed(text, listing_view)))
}

/// What the listing reads from a parsed line, written out (for tests).
#[cfg(test)]
fn listing_view(parsed: Parsed<'_>) -> String {
    let Parsed::Object(object) = parsed else { return "not an object".into() };
    let fields = object.fields.as_deref();
    let message = fields
        .and_then(Fields::message)
        .map(|m| (m.role(), m.has_content(), m.text(), m.timestamp_ms().map(f64::to_bits), m.usage()));
    format!(
        "{:?} {:?} {:?} {:?} {:?}",
        object.ty,
        object.id.as_str(),
        object.parent_id,
        fields.map(Fields::time_ms),
        message
    )
}

/// Whether `line` (without its `\n`) is one JSON value, checked the way [`with_line`] checks a
/// line it reads nothing from: the skim over every string, then serde over what the skim leaves.
/// This is the floor under the listing's cost, which the benchmark measures beside a newline
/// count; a blank line is not JSON.
///
/// The structural validator ([`validate::is_json`]) decides in one vector pass; what it leaves
/// open (nesting deeper than 64, a CPU without AVX2) goes to [`is_json_by_serde`], to which a
/// property test holds it.
pub fn is_json(line: &[u8]) -> bool {
    json_text(line).is_some_and(|text| validate::is_json(text).unwrap_or_else(|| is_json_by_serde(text)))
}

/// [`is_json`]'s serde check of a line without the white space around it.
pub fn is_json_by_serde(text: &[u8]) -> bool {
    let mut short = Vec::new();
    from_json::<IgnoredAny>(skim::shorten(text, &mut short, Cut::Everything)).is_ok()
}

/// The keys whose string values [`Fields`] reads, at any depth; long values of other keys are
/// left out before serde reads a line.
const READ_KEYS: [&str; 10] =
    ["type", "id", "parentId", "timestamp", "role", "content", "text", "name", "cwd", "parentSession"];

/// A grammar error in a line that no repair changes (valid UTF-8, no surrogate escape, no number
/// too large for a double): the line is malformed whatever the slow path would try.
fn is_plain_syntax_error(e: &serde_json::Error, line: &[u8]) -> bool {
    use serde_json::error::Category;
    matches!(e.classify(), Category::Syntax | Category::Eof)
        && !is_number_out_of_range(e)
        && !has_lone_surrogate_escape(line)
        && std::str::from_utf8(line).is_ok()
}

/// The line the typed struct rejected: lossy UTF-8, lone surrogates as U+FFFD, duplicate keys
/// resolved the way `JSON.parse` does (the last wins), then classified.
fn slow_path<R>(line: &[u8], f: impl FnOnce(Parsed<'_>) -> R) -> R {
    let normalized = match value_as_javascript_reads_it(&lossy(line)) {
        Ok(value @ serde_json::Value::Object(_)) => value.to_string(),
        Ok(value) => return f(Parsed::NotAnObject { falsy: is_falsy(&value) }),
        Err(_) => return f(Parsed::Malformed),
    };
    match serde_json::from_str::<Fields>(&normalized) {
        Ok(fields) => f(Parsed::Object(fields.into_object())),
        Err(_) => f(Parsed::Malformed),
    }
}

fn needs_fields(ty: &str, role: Option<&str>) -> bool {
    match ty {
        "session" | "session_info" | "usage" => true,
        "message" => matches!(role, Some("user" | "assistant")),
        _ => false,
    }
}

/// What the sniff made of a line written in pi's key order.
enum Sniffed<'a> {
    /// A line whose rest the listing does not need.
    Skipped(Object<'a>),
    /// A user or assistant message, whose fields the validator finds ([`validate::harvest`]).
    Message(MessageHead<'a>),
}

/// The sniffed start of a user or assistant message line.
struct MessageHead<'a> {
    id: &'a str,
    parent: Option<&'a str>,
    timestamp: &'a str,
    role: &'a str,
}

/// Read the first fields of a line written in pi's key order; `None` when the line has another
/// shape or is one of the other lines whose content is needed.
fn sniff(line: &[u8]) -> Option<Sniffed<'_>> {
    let mut c = Cursor { b: line, i: 0 };
    c.expect(br#"{"type":""#)?;
    let ty = c.plain_str()?;
    c.expect(br#","id":""#)?;
    let id = c.plain_str()?;
    c.expect(br#","parentId":"#)?;
    let parent = if c.expect(b"null").is_some() {
        None
    } else {
        c.expect(b"\"")?;
        Some(c.plain_str()?)
    };
    let (timestamp, role) = if ty == "message" {
        c.expect(br#","timestamp":""#)?;
        let timestamp = c.plain_str()?;
        c.expect(br#","message":{"role":""#)?;
        (timestamp, Some(c.plain_str()?))
    } else {
        ("", None)
    };
    if let Some(role @ ("user" | "assistant")) = role {
        return Some(Sniffed::Message(MessageHead { id, parent, timestamp, role }));
    }
    if needs_fields(ty, role) {
        return None;
    }
    Some(Sniffed::Skipped(Object {
        ty: Some(Cow::Borrowed(ty)),
        id: Id::Str(Cow::Borrowed(id)),
        parent_id: parent.map(Cow::Borrowed),
        fields: None,
    }))
}

/// The typed view of a sniffed user or assistant line, made from the values the validator found
/// in it ([`validate::harvest`]) as the typed parse makes it. `None` leaves the line to that
/// parse: a value it reads in its own way (a block `type` with an escape, a text that is neither a
/// string nor `null`, a text with invalid UTF-8 or a lone surrogate escape, a number too large
/// for a double).
fn harvested_fields<'a>(line: &'a [u8], head: MessageHead<'a>) -> Option<Fields<'a>> {
    let found = validate::harvest(line)?;
    let value = |span: &std::ops::Range<usize>| &line[span.clone()];
    let content = match found.content.as_ref().map(value) {
        None => None,
        Some(v) => match v[0] {
            b'"' => Some(Content::Text(json_string(v)?)),
            b'[' => Some(Content::Blocks(block_texts(line, &found.blocks)?)),
            b'n' => None,
            _ => Some(Content::Other),
        },
    };
    let message = RawMessage {
        role: Loose(Some(Cow::Borrowed(head.role))),
        content,
        timestamp: LooseNum(loose_number(line, &found.timestamp)?),
        usage: match found.usage.as_ref().map(value) {
            Some([b'{', ..]) => {
                let mut numbers = [None; 5];
                for (number, span) in numbers.iter_mut().zip(&found.numbers) {
                    *number = loose_number(line, span)?;
                }
                let [input, output, cache_read, cache_write, cost] = numbers;
                Obj(Some(RawUsage::of(input, output, cache_read, cache_write, cost)))
            }
            _ => Obj(None),
        },
    };
    Some(Fields {
        ty: Loose(Some(Cow::Borrowed("message"))),
        id: IdField(Id::Str(Cow::Borrowed(head.id))),
        parent_id: Loose(head.parent.map(Cow::Borrowed)),
        timestamp: Time::Str(Cow::Borrowed(head.timestamp)),
        message: Obj(Some(message)),
        ..Fields::default()
    })
}

/// A number field at `span` of `line` as `LooseNum` reads it (absent or not a number: `None`);
/// the outer `None` for a number too large for a double, which the typed parse reads its own way.
fn loose_number(line: &[u8], span: &Option<std::ops::Range<usize>>) -> Option<Option<f64>> {
    span.as_ref().map_or(Some(None), |s| valid_json::number(&line[s.clone()]))
}

/// The texts of the `text` blocks among `blocks` (a missing or `null` text is empty).
fn block_texts<'a>(line: &'a [u8], blocks: &[BlockSpans]) -> Option<Vec<Cow<'a, str>>> {
    let mut texts = Vec::new();
    for block in blocks {
        let Some(ty) = block.ty.as_ref().map(|s| &line[s.clone()]) else { continue };
        if ty.first() == Some(&b'"') && memchr::memchr(b'\\', ty).is_some() {
            return None;
        }
        if ty != br#""text""# {
            continue;
        }
        texts.push(match block.text.as_ref().map(|s| &line[s.clone()]) {
            None | Some(b"null") => Cow::Borrowed(""),
            Some(v) if v[0] == b'"' => json_string(v)?,
            Some(_) => return None,
        });
    }
    Some(texts)
}

/// A JSON string of a valid line (quotes included), decoded; `None` for invalid UTF-8 or a lone
/// surrogate escape, which the typed parse reads lossily.
fn json_string(quoted: &[u8]) -> Option<Cow<'_, str>> {
    let contents = &quoted[1..quoted.len() - 1];
    if memchr::memchr(b'\\', contents).is_some() {
        serde_json::from_slice::<String>(quoted).ok().map(Cow::Owned)
    } else {
        simdutf8::basic::from_utf8(contents).ok().map(Cow::Borrowed)
    }
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    fn expect(&mut self, lit: &[u8]) -> Option<()> {
        self.b[self.i..].starts_with(lit).then(|| self.i += lit.len())
    }

    /// The rest of a string without escapes or control characters, up to its closing quote.
    fn plain_str(&mut self) -> Option<&'a str> {
        let rest = &self.b[self.i..];
        let end = memchr::memchr2(b'"', b'\\', rest)?;
        let s = &rest[..end];
        if rest[end] != b'"' || s.iter().any(|b| *b < 0x20) {
            return None;
        }
        self.i += end + 1;
        std::str::from_utf8(s).ok()
    }
}

/// The serde check of a sniffed line (`is_complete_json` after the skim), which the structural
/// validator ([`validate::is_sniffed_json`]) stands in for.
pub fn is_sniffed_json_by_serde(line: &[u8]) -> bool {
    let mut short = Vec::new();
    is_complete_json(skim::shorten(line, &mut short, Cut::Everything))
}

/// Whether a sniffed line (shortened by the skim) is one complete JSON value in which the
/// sniffed keys (`type`, `id`, `parentId`, `message`, and `role` one level down) occur once each:
/// `JSON.parse` keeps the last of repeated keys, the sniff read the first, so a line that repeats
/// one takes the typed parse.
fn is_complete_json(line: &[u8]) -> bool {
    from_json::<SniffCheck>(line).is_ok_and(|c| c.0)
}

/// serde over a line: through `from_str` after one UTF-8 check of the whole line when it is
/// valid (serde then checks no string on its own, which cost as much as the rest of the reading),
/// else through `from_slice`, which lets invalid UTF-8 through in the values it ignores.
fn from_json<'a, T: Deserialize<'a>>(line: &'a [u8]) -> serde_json::Result<T> {
    match std::str::from_utf8(line) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(line),
    }
}

/// Serde's check of a sniffed line: valid JSON, and whether the sniffed keys are unique.
struct SniffCheck(bool);

impl<'de> Deserialize<'de> for SniffCheck {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(KeyCounter { depth: 1 }).map(|counts| SniffCheck(counts.iter().all(|&n| n <= 1)))
    }
}

/// Counts the sniffed keys of an object at `depth` (1: the line, 2: its `message`).
struct KeyCounter {
    depth: usize,
}

impl<'de> Visitor<'de> for KeyCounter {
    type Value = [u8; 5];

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut counts = [0u8; 5];
        while let Some(Key(key)) = map.next_key::<Key>()? {
            let slot = key.and_then(|k| validate::sniffed_key(self.depth, k.as_bytes()));
            if let Some(k) = slot {
                counts[k] = counts[k].saturating_add(1);
            }
            if slot == Some(3) {
                let inner: MaybeCounts = map.next_value_seed(KeyCounter { depth: 2 })?;
                counts[4] = counts[4].saturating_add(inner.0[4]);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(counts)
    }
}

/// A `message` value: its key counts when it is an object, none otherwise.
struct MaybeCounts([u8; 5]);

impl<'de> serde::de::DeserializeSeed<'de> for KeyCounter {
    type Value = MaybeCounts;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<MaybeCounts, D::Error> {
        d.deserialize_any(AnyValue(self)).map(MaybeCounts)
    }
}

/// Any JSON value: an object is counted, everything else is skipped.
struct AnyValue(KeyCounter);

impl<'de> Visitor<'de> for AnyValue {
    type Value = [u8; 5];

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.visit_map(map)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok([0; 5])
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok([0; 5])
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok([0; 5])
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok([0; 5])
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok([0; 5])
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok([0; 5])
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok([0; 5])
    }
}

/// An object key, if it is one of the sniffed names (no allocation: serde_json hands over the
/// unescaped text).
struct Key(Option<&'static str>);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E>(self, v: &str) -> Result<Key, E> {
                Ok(Key(["type", "id", "parentId", "message", "role"].into_iter().find(|k| *k == v)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// The typed view of a line: header fields, entry base fields, and what the listing reads from
/// messages, `session_info` and `usage` entries.
#[derive(Deserialize, Default)]
pub struct Fields<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
    #[serde(default, borrow)]
    id: IdField<'a>,
    #[serde(rename = "parentId", default, borrow)]
    parent_id: Loose<'a>,
    #[serde(default, borrow)]
    timestamp: Time<'a>,
    #[serde(default, borrow)]
    message: Obj<RawMessage<'a>>,
    #[serde(default, borrow)]
    name: Loose<'a>,
    #[serde(default)]
    usage: Obj<RawUsage>,
    #[serde(default)]
    version: JsNumber,
    #[serde(default, borrow)]
    cwd: Loose<'a>,
    #[serde(rename = "parentSession", default, borrow)]
    parent_session: Loose<'a>,
}

impl<'a> Fields<'a> {
    fn into_object(mut self) -> Object<'a> {
        Object {
            ty: self.ty.0.take(),
            id: std::mem::replace(&mut self.id.0, Id::Missing),
            parent_id: self.parent_id.0.take(),
            fields: Some(Box::new(self)),
        }
    }

    /// The `timestamp` as milliseconds (`new Date(timestamp).getTime()`), when valid.
    pub fn time_ms(&self) -> Option<i64> {
        match &self.timestamp {
            Time::Str(s) => date::parse_ms(s),
            Time::Num(n) => date::time_clip(*n),
            Time::None => None,
        }
    }

    /// The `timestamp` when it is a string (a header's `created`).
    pub fn timestamp_str(&self) -> Option<&str> {
        match &self.timestamp {
            Time::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn message(&self) -> Option<&RawMessage<'a>> {
        self.message.0.as_ref()
    }

    pub fn name(&self) -> Option<&str> {
        self.name.0.as_deref()
    }

    pub fn usage(&self) -> Option<Usage> {
        self.usage.0.as_ref().map(RawUsage::usage)
    }

    pub fn version(&self) -> Option<f64> {
        self.version.0
    }

    pub fn cwd(&self) -> Option<&str> {
        self.cwd.0.as_deref()
    }

    pub fn parent_session(&self) -> Option<&str> {
        self.parent_session.0.as_deref()
    }
}

/// A `message` payload, reduced to what the listing reads.
#[derive(Deserialize)]
pub struct RawMessage<'a> {
    #[serde(default, borrow)]
    role: Loose<'a>,
    #[serde(default, borrow)]
    content: Option<Content<'a>>,
    #[serde(default)]
    timestamp: LooseNum,
    #[serde(default)]
    usage: Obj<RawUsage>,
}

impl RawMessage<'_> {
    pub fn role(&self) -> Option<&str> {
        self.role.0.as_deref()
    }

    /// `content` is present (and not `null`).
    pub fn has_content(&self) -> bool {
        self.content.is_some()
    }

    /// pi's `extractTextContent`: a string as is, the text blocks joined with a space.
    pub fn text(&self) -> Cow<'_, str> {
        match &self.content {
            Some(Content::Text(t)) => Cow::Borrowed(t),
            Some(Content::Blocks(texts)) if texts.len() == 1 => Cow::Borrowed(&texts[0]),
            Some(Content::Blocks(texts)) => Cow::Owned(texts.join(" ")),
            Some(Content::Other) | None => Cow::Borrowed(""),
        }
    }

    /// `message.timestamp` when it is a number.
    pub fn timestamp_ms(&self) -> Option<f64> {
        self.timestamp.0
    }

    pub fn usage(&self) -> Option<Usage> {
        self.usage.0.as_ref().map(RawUsage::usage)
    }
}

/// Message content: a string, or the texts of its `text` blocks (a block's `text` as
/// `Array.prototype.join` writes it); any other value has no text.
enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Cow<'a, str>>),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match scalar(d)? {
            Scalar::Str(s) => Ok(Content::Text(s)),
            Scalar::Seq(TextBlocks(texts)) => Ok(Content::Blocks(texts)),
            _ => Ok(Content::Other),
        }
    }
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", default, borrow)]
    ty: Loose<'a>,
    #[serde(default, borrow)]
    text: JoinedText<'a>,
}

/// A value as `Array.prototype.join` writes it: `null` (and a missing value) as nothing, a string
/// as it is, anything else as `String(value)` (`5`, `true`, `1,,b`, `[object Object]`).
#[derive(Default)]
struct JoinedText<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for JoinedText<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::session::loose::Scalar as S;
        Ok(JoinedText(match d.deserialize_any(ScalarVisitor::<ArrayText>::new())? {
            S::Str(s) => s,
            S::Num(n) => Cow::Owned(format_number(n)),
            S::Bool(b) => Cow::Borrowed(if b { "true" } else { "false" }),
            S::Seq(ArrayText(text)) => Cow::Owned(text),
            S::Null => Cow::Borrowed(""),
            S::Other => Cow::Borrowed("[object Object]"),
        }))
    }
}

/// An array as `String(array)` writes it (`1,,b`).
struct ArrayText(String);

impl<'de> ReadSeq<'de> for ArrayText {
    fn read<A: SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
        let value = serde_json::Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
        Ok(ArrayText(js_string(&value).into_owned()))
    }
}

/// A timestamp as `new Date(x)` reads it: a string is parsed, `null` and booleans are the numbers
/// JavaScript makes of them (0, 0 and 1); arrays and objects read as no time.
#[derive(Default)]
enum Time<'a> {
    Str(Cow<'a, str>),
    Num(f64),
    #[default]
    None,
}

/// As `new Date(value)` reads it: a number (`true` 1, `null` 0), or text; an array becomes the text
/// `Array.prototype.join` writes (`["2025-07-01"]` is that date), an object `[object Object]`.
impl<'de: 'a, 'a> Deserialize<'de> for Time<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::session::loose::Scalar as S;
        Ok(match d.deserialize_any(ScalarVisitor::<ArrayText>::new())? {
            S::Str(s) => Time::Str(s),
            S::Num(n) => Time::Num(n),
            S::Bool(b) => Time::Num(f64::from(u8::from(b))),
            S::Null => Time::Num(0.0),
            S::Seq(ArrayText(text)) => Time::Str(Cow::Owned(text)),
            S::Other => Time::None,
        })
    }
}

struct IdField<'a>(Id<'a>);

impl Default for IdField<'_> {
    fn default() -> Self {
        IdField(Id::Missing)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for IdField<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(IdField(match scalar(d)? {
            Scalar::Str(s) => Id::Str(s),
            Scalar::Num(n) => Id::Other(format_number(n)),
            Scalar::Bool(b) => Id::Other(b.to_string()),
            Scalar::Seq(_) | Scalar::Null | Scalar::Other => Id::Missing,
        }))
    }
}

/// An array read as message blocks: the texts of their `text` blocks.
struct TextBlocks<'a>(Vec<Cow<'a, str>>);

impl<'de> ReadSeq<'de> for TextBlocks<'de> {
    fn read<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut texts = Vec::new();
        while let Some(block) = seq.next_element::<Obj<Block>>()? {
            if let Some(block) = block.0.filter(|b| b.ty.0.as_deref() == Some("text")) {
                texts.push(block.text.0);
            }
        }
        Ok(TextBlocks(texts))
    }
}

/// Any JSON value, with arrays read as message blocks.
type Scalar<'a> = crate::session::loose::Scalar<'a, TextBlocks<'a>>;

fn scalar<'de, D: Deserializer<'de>>(d: D) -> Result<Scalar<'de>, D::Error> {
    d.deserialize_any(ScalarVisitor::<TextBlocks<'de>>::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(line: &str) -> String {
        with_line(line.as_bytes(), |p| match p {
            Parsed::Blank => "blank".into(),
            Parsed::Malformed => "malformed".into(),
            Parsed::NotAnObject { falsy } => format!("value falsy={falsy}"),
            Parsed::Object(o) => format!(
                "{} id={} sniffed={}",
                o.ty.as_deref().unwrap_or("-"),
                o.id.as_str().unwrap_or("-"),
                o.fields.is_none()
            ),
        })
    }

    /// The check alone accepts exactly the lines the listing does not count as malformed, long
    /// strings (which the skim leaves out of serde's sight) included.
    #[test]
    fn is_json_checks_the_whole_line() {
        let long = "x".repeat(5000);
        let good = format!(r#"{{"type":"message","id":"a","message":{{"content":"{long}\n\u00e9"}}}}"#);
        assert!(is_json(good.as_bytes()));
        assert!(is_json(b" [1, 2.5e3, null] \r"));
        for bad in [
            good.replace("xxxx\\n", "xxxx\n"),
            good.replace("xxxx\\n", "xxxx\\q"),
            good.replace("\"a\"", "\"a\" \"b\""),
            good[..good.len() - 1].to_string(),
            "   ".to_string(),
        ] {
            assert!(!is_json(bad.as_bytes()), "{bad:.80}");
            assert_eq!(kind(&bad) == "malformed", !bad.trim().is_empty(), "{bad:.80}");
        }
    }

    #[test]
    fn pi_shaped_tool_results_are_only_sniffed() {
        let line = r#"{"type":"message","id":"a1","parentId":"a0","timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"toolResult","content":[{"type":"text","text":"x"}]}}"#;
        assert_eq!(kind(line), "message id=a1 sniffed=true");
        let user = line.replace("toolResult", "user");
        assert_eq!(kind(&user), "message id=a1 sniffed=false");
    }

    #[test]
    fn classifies_damage() {
        assert_eq!(kind("  \r"), "blank");
        assert_eq!(kind(r#"{"type":"label","id":"a","parentId":null,"#), "malformed");
        assert_eq!(kind("null"), "value falsy=true");
        assert_eq!(kind("42"), "value falsy=false");
        // A BOM is only ignored at the start of a file (by the scan); white space JSON does not
        // allow around a value makes the line malformed, as in pi; a line JavaScript's trim()
        // empties is blank.
        assert_eq!(kind("\u{feff}{\"type\":\"session\",\"id\":7}"), "malformed");
        assert_eq!(kind("\u{c}{\"type\":\"session\",\"id\":7}"), "malformed");
        assert_eq!(kind(" \t{\"type\":\"session\",\"id\":7}\r "), "session id=- sniffed=false");
        assert_eq!(kind("\u{feff}\u{c}\u{a0}\u{3000} \u{b}"), "blank");
    }

    #[test]
    fn two_lines_run_together_are_malformed() {
        let a = r#"{"type":"label","id":"a","parentId":null,"targetId":"x"}"#;
        assert_eq!(kind(&format!("{a}{a}")), "malformed");
        let big = format!(
            r#"{{"type":"message","id":"b","parentId":null,"timestamp":"t","message":{{"role":"toolResult","content":[{{"type":"text","text":"{}"}}]}}}}"#,
            "x\\n".repeat(64 * 1024)
        );
        assert!(kind(&big).ends_with("sniffed=true"));
        assert_eq!(kind(&format!("{big}{a}")), "malformed");
        assert_eq!(kind(&big[..big.len() - 3]), "malformed");
    }

    /// A long line is validated whole, as `JSON.parse` validates it: damage inside a long tool
    /// output (a raw control byte, a bad escape, a stray quote) makes the line unreadable.
    #[test]
    fn damage_inside_a_long_value_is_malformed() {
        let line = |output: &str| {
            format!(
                r#"{{"type":"message","id":"b","parentId":null,"timestamp":"t","message":{{"role":"toolResult","content":[{{"type":"text","text":"{output}"}}]}}}}"#
            )
        };
        let long = "x".repeat(50_000);
        assert_eq!(kind(&line(&long)), "message id=b sniffed=true");
        for damage in ["\u{1}", "\\x", "\\u12g4", "\""] {
            assert_eq!(kind(&line(&format!("{long}{damage}{long}"))), "malformed", "{damage:?}");
        }
        let allowed = line(&format!("{long}\u{7f}\\\\{long}"));
        assert_eq!(kind(&allowed), "message id=b sniffed=true");
    }

    #[test]
    fn long_values_the_listing_does_not_read_are_left_out_and_texts_kept_whole() {
        let text = format!(r#"see \"data\": {}"#, "q".repeat(3000));
        let line = format!(
            r#"{{"type":"message","id":"u","parentId":null,"timestamp":"t","message":{{"role":"user","content":[{{"type":"text","text":"{text}"}},{{"type":"image","data" : "{}","mimeType":"image/png"}},{{"type":"thinking","thinking":"{}"}}],"timestamp":3}}}}"#,
            "QUJD".repeat(64 * 1024),
            "t".repeat(5000),
        );
        let mut out = Vec::new();
        let short = skim::shorten(line.as_bytes(), &mut out, Cut::ValuesExcept(&READ_KEYS));
        assert!(short.len() < 3500, "{}", String::from_utf8_lossy(short));
        with_line(line.as_bytes(), |p| {
            let Parsed::Object(o) = p else { panic!() };
            let m = o.fields.as_ref().unwrap().message().unwrap();
            assert_eq!(m.text(), format!("see \"data\": {}", "q".repeat(3000)));
        });
        assert_eq!(kind(&line[..line.len() - 2]), "malformed");
    }

    #[test]
    fn message_text_joins_text_blocks_with_a_space() {
        let line = r#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"AAAA"},{"type":"text","text":"b\u00e9"},{"type":"text"},null,7],"timestamp":5}}"#;
        with_line(line.as_bytes(), |p| {
            let Parsed::Object(o) = p else { panic!() };
            let m = o.fields.as_ref().unwrap().message().unwrap();
            assert_eq!(m.text(), "a bé ");
            assert_eq!(m.timestamp_ms(), Some(5.0));
        });
    }

    #[test]
    fn a_text_that_is_not_a_string_joins_as_javascript_writes_it() {
        let line = r#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":5},{"type":"text","text":[1,null,"b",2.50,[true]]},{"type":"text","text":{"k":[1]}},{"type":"text","text":false},{"type":"text","text":null},{"type":"text","text":1e21}]}}"#;
        with_line(line.as_bytes(), |p| {
            let Parsed::Object(o) = p else { panic!() };
            let m = o.fields.as_ref().unwrap().message().unwrap();
            assert_eq!(m.text(), "5 1,,b,2.5,true [object Object] false  1e+21");
        });
    }

    #[test]
    fn invalid_utf8_and_lone_surrogates_are_repaired() {
        let mut line = br#"{"type":"session_info","id":"a","name":"x"#.to_vec();
        line.extend_from_slice(b"\xff\"}");
        with_line(&line, |p| {
            let Parsed::Object(o) = p else { panic!() };
            assert_eq!(o.fields.unwrap().name(), Some("x\u{fffd}"));
        });
        let line = br#"{"type":"session_info","id":"a","name":"\ud83d!"}"#;
        with_line(line, |p| {
            let Parsed::Object(o) = p else { panic!() };
            assert_eq!(o.fields.unwrap().name(), Some("\u{fffd}!"));
        });
    }

    #[test]
    fn repeated_sniffed_keys_are_read_as_json_parse_reads_them() {
        assert_eq!(kind(r#"{"type":"label","id":"a","parentId":null,"id":"b"}"#), "label id=b sniffed=false");
        assert_eq!(kind(r#"{"type":"label","id":"a","parentId":null,"type":"x"}"#), "x id=a sniffed=false");
        let role = r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"toolResult","role":"user","content":"hi"}}"#;
        assert_eq!(kind(role), "message id=a sniffed=false");
        let nested = r#"{"type":"label","id":"a","parentId":null,"x":{"id":"b","type":"c"}}"#;
        assert_eq!(kind(nested), "label id=a sniffed=true");
        let big = format!(
            r#"{{"type":"message","id":"b","parentId":null,"timestamp":"t","message":{{"role":"toolResult","content":[{{"type":"text","id":"q","text":"{}"}}]}}}}"#,
            "x".repeat(64 * 1024)
        );
        assert_eq!(kind(&big), "message id=b sniffed=true");
        let repeated = big.replacen(r#","parentId":null"#, r#","parentId":null,"\u0069d":"c""#, 1);
        assert_eq!(kind(&repeated), "message id=c sniffed=false");
    }

    #[test]
    fn numbers_too_large_for_a_double_keep_the_line_as_json_parse_does() {
        use crate::session::{
            Kind,
            line::{Line, parse_line},
        };
        let tool = r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"custom","content":"x","timestamp":174938e8279040}}"#;
        let user = tool.replace("custom", "user").replace("174938e8279040", "-1e999");
        for line in [tool, user.as_str()] {
            assert_eq!(
                kind(line),
                "message id=a sniffed=".to_string() + if line == tool { "true" } else { "false" }
            );
            let Line::Entry(entry) = parse_line(line.as_bytes(), 1, 0) else {
                panic!("not an entry: {line}")
            };
            let Kind::Message(m) = entry.kind else { panic!("not a message") };
            assert_eq!(m.timestamp_ms.map(f64::abs), Some(f64::MAX), "{line}");
        }
        let in_a_string = r#"{"type":"session_info","id":"a","name":"1e999","x":1e999}"#;
        with_line(in_a_string.as_bytes(), |p| {
            let Parsed::Object(o) = p else { panic!() };
            assert_eq!(o.fields.unwrap().name(), Some("1e999"));
        });
        assert_eq!(kind(r#"{"type":"label","id":"a","parentId":null,"x":1e999"#), "malformed");
    }

    #[test]
    fn duplicate_keys_take_the_last_value_like_json_parse() {
        let line = br#"{"type":"session_info","id":"a","name":"first","name":"second"}"#;
        with_line(line, |p| {
            let Parsed::Object(o) = p else { panic!() };
            assert_eq!(o.fields.unwrap().name(), Some("second"));
        });
    }
}
