//! The arguments of a tool call read in one pass that writes their compact JSON as it goes and
//! stops writing a little past the head, so a call costs a few allocations instead of a JSON
//! tree. What the pass does not handle ends it, and the caller then builds the tree: a repeated
//! key (which `JSON.parse` resolves by keeping the last value in the place of the first), a key
//! `JSON.parse` moves to the front (an array index), and a kept argument that is an array or an
//! object (whose `String()` joins its items).

use std::borrow::Cow;

use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};

use super::head::{JSON_HEAD_CHARS, STRING_CAP};
use crate::display::char_end;
use crate::session::entry::{LineArg, ToolArgs};
use crate::session::js::{format_number, is_array_index, write_number};

/// Bytes of compact JSON after which more than [`JSON_HEAD_CHARS`] characters are certainly
/// written (a character takes at most 4 bytes).
const ENOUGH_BYTES: usize = (JSON_HEAD_CHARS + 1) * 4;

/// The arguments in `json`, or `None` when the pass cannot read them (see the module's doc).
pub(super) fn read(json: &str) -> Option<ToolArgs> {
    let mut state = State { json: Vec::with_capacity(ENOUGH_BYTES + 64), ..State::default() };
    let seed = Streamed { state: &mut state, field: None, top: true };
    seed.deserialize(&mut serde_json::Deserializer::from_str(json)).ok()?;
    Some(state.finish())
}

/// A top-level argument that [`ToolArgs`] keeps.
#[derive(Clone, Copy)]
enum Field {
    Path,
    FilePath,
    Command,
    Pattern,
    Offset,
    Limit,
}

impl Field {
    fn of(key: &str) -> Option<Field> {
        Some(match key {
            "path" => Field::Path,
            "file_path" => Field::FilePath,
            "command" => Field::Command,
            "pattern" => Field::Pattern,
            "offset" => Field::Offset,
            "limit" => Field::Limit,
            _ => return None,
        })
    }
}

#[derive(Default)]
struct State<'de> {
    /// The compact JSON so far, up to a little past the head.
    json: Vec<u8>,
    /// The keys of the objects now open, outermost first.
    keys: Vec<Cow<'de, str>>,
    path: Option<String>,
    file_path: Option<String>,
    path_is_text: bool,
    command: Option<String>,
    pattern: Option<String>,
    offset: LineArg,
    limit: LineArg,
}

impl State<'_> {
    fn write(&mut self, piece: &[u8]) {
        if self.json.len() <= ENOUGH_BYTES {
            self.json.extend_from_slice(piece);
        }
    }

    /// A string as JSON, cut to [`STRING_CAP`] characters: what follows them lies past the head.
    fn write_str(&mut self, s: &str) {
        if self.json.len() <= ENOUGH_BYTES {
            serde_json::to_writer(&mut self.json, &s[..char_end(s, STRING_CAP)]).expect("writing to memory");
        }
    }

    /// A number as `JSON.stringify` writes it.
    fn write_number(&mut self, n: f64, field: Option<Field>) {
        if self.json.len() <= ENOUGH_BYTES {
            write_number(&mut self.json, n).expect("writing to memory");
        }
        if let Some(field) = field {
            self.set(field, || (n != 0.0).then(|| format_number(n)), || LineArg::of_number(n));
        }
    }

    /// A kept argument read from a scalar: a text argument gets `text()` (`String()` of a truthy
    /// value), a line number `line()`.
    fn set(&mut self, field: Field, text: impl FnOnce() -> Option<String>, line: impl FnOnce() -> LineArg) {
        match field {
            Field::Path => self.path = text(),
            Field::FilePath => self.file_path = text(),
            Field::Command => self.command = text(),
            Field::Pattern => self.pattern = text(),
            Field::Offset => self.offset = line(),
            Field::Limit => self.limit = line(),
        }
    }

    fn finish(self) -> ToolArgs {
        let mut json = String::from_utf8(self.json).expect("serde_json writes UTF-8");
        let head_end = char_end(&json, JSON_HEAD_CHARS);
        let json_complete = head_end == json.len();
        json.truncate(head_end);
        json.shrink_to_fit();
        ToolArgs {
            path: self.path,
            file_path: self.file_path,
            path_is_text: self.path_is_text,
            offset: self.offset,
            limit: self.limit,
            command: self.command,
            pattern: self.pattern,
            json_head: json,
            json_complete,
        }
    }
}

/// One JSON value; `field` is the top-level argument it is the value of, `top` whether it is the
/// arguments themselves.
struct Streamed<'s, 'de> {
    state: &'s mut State<'de>,
    field: Option<Field>,
    top: bool,
}

impl<'de> DeserializeSeed<'de> for Streamed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Streamed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.state.write(if v { b"true" } else { b"false" });
        if let Some(f) = self.field {
            self.state.set(f, || v.then(|| "true".to_string()), || LineArg::Invalid);
        }
        Ok(())
    }
    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.state.write_number(v as f64, self.field);
        Ok(())
    }
    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.state.write_number(v as f64, self.field);
        Ok(())
    }
    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        self.state.write_number(v, self.field);
        Ok(())
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.state.write_str(v);
        if let Some(f) = self.field {
            self.state.path_is_text |= matches!(f, Field::Path);
            self.state.set(f, || (!v.is_empty()).then(|| v.to_string()), || LineArg::of_text(v));
        }
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.state.write(b"null");
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.field.is_some() {
            return Err(A::Error::custom("a kept argument that is an array"));
        }
        self.state.write(b"[");
        let mut first = true;
        loop {
            let comma = !std::mem::take(&mut first);
            let seed = Element { state: &mut *self.state, comma };
            if seq.next_element_seed(seed)?.is_none() {
                break;
            }
        }
        self.state.write(b"]");
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if self.field.is_some() {
            return Err(A::Error::custom("a kept argument that is an object"));
        }
        self.state.write(b"{");
        let start = self.state.keys.len();
        while let Some(key) = map.next_key_seed(Key)? {
            if self.state.keys[start..].contains(&key) {
                return Err(A::Error::custom("a repeated key"));
            }
            if is_array_index(&key) {
                return Err(A::Error::custom("a key JSON.parse moves to the front"));
            }
            if self.state.keys.len() > start {
                self.state.write(b",");
            }
            self.state.write_str(&key);
            self.state.write(b":");
            let field = if self.top { Field::of(&key) } else { None };
            self.state.keys.push(key);
            map.next_value_seed(Streamed { state: &mut *self.state, field, top: false })?;
        }
        self.state.keys.truncate(start);
        self.state.write(b"}");
        Ok(())
    }
}

/// An array element, after a comma unless it is the first.
struct Element<'s, 'de> {
    state: &'s mut State<'de>,
    comma: bool,
}

impl<'de> DeserializeSeed<'de> for Element<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.comma {
            self.state.write(b",");
        }
        Streamed { state: self.state, field: None, top: false }.deserialize(d)
    }
}

/// An object key, borrowed from the JSON unless it has escapes.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object key")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_string()))
    }
}
