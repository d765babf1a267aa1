//! The arguments of a tool call as the row texts and summary drafts use them, read from the
//! call's JSON in one pass that never holds a long string whole: a `write` call can carry a
//! megabyte of file content, of which a row shows at most 64 characters of compact JSON.

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::entry::{LineArg, ToolArgs};
use super::js::{is_array_index, is_falsy, js_string, to_json_string};

mod head;
mod streamed;

use crate::display::char_end;
pub use head::JSON_HEAD_CHARS;
use head::STRING_CAP;

/// Top-level arguments read whole, whatever their length (paths, commands and patterns are shown
/// or counted in full; line numbers are read as numbers).
const WHOLE_KEYS: [&str; 6] = ["path", "file_path", "command", "pattern", "offset", "limit"];

/// The arguments of `json`, the JSON text of a call's `arguments` (one value, checked): streamed
/// (module `streamed`), or through a JSON tree when an object in them repeats a key or has a key
/// `JSON.parse` moves to the front, or a kept argument is an array or an object.
pub fn tool_args(json: &str) -> ToolArgs {
    streamed::read(json).unwrap_or_else(|| through_a_tree(json))
}

/// [`tool_args`] by way of a [`Value`] with its strings cut (what [`of_value`] then reads).
fn through_a_tree(json: &str) -> ToolArgs {
    let seed = Capped { cap: None, top: true };
    match seed.deserialize(&mut serde_json::Deserializer::from_str(json)) {
        Ok(value) => of_value(&value),
        Err(_) => ToolArgs { json_complete: false, ..ToolArgs::default() },
    }
}

/// The arguments of a call's `arguments` value.
pub fn of_value(args: &Value) -> ToolArgs {
    let json = to_json_string(args);
    let text = |key: &str| args.get(key).and_then(text_arg);
    let head_end = char_end(&json, JSON_HEAD_CHARS);
    ToolArgs {
        path: text("path"),
        file_path: text("file_path"),
        path_is_text: args.get("path").is_some_and(Value::is_string),
        offset: args.get("offset").map_or(LineArg::Absent, line_arg),
        limit: args.get("limit").map_or(LineArg::Absent, line_arg),
        command: text("command"),
        pattern: text("pattern"),
        json_complete: head_end == json.len(),
        json_head: json[..head_end].to_string(),
    }
}

/// `String(value)` when `value` is truthy (pi's rows read `String(args.x || default)`).
fn text_arg(value: &Value) -> Option<String> {
    (!is_falsy(value)).then(|| js_string(value).into_owned())
}

/// pi's `parseLineNumber`: a finite number, or a string `Number()` reads as one.
fn line_arg(value: &Value) -> LineArg {
    match value {
        Value::Null => LineArg::Absent,
        Value::Number(n) => n.as_f64().map_or(LineArg::Invalid, LineArg::of_number),
        Value::String(s) => LineArg::of_text(s),
        _ => LineArg::Invalid,
    }
}

/// `object` in the order `JSON.parse` gives its keys: array indices first, by value.
fn in_js_order(object: Map<String, Value>) -> Map<String, Value> {
    if !object.keys().any(|k| is_array_index(k)) {
        return object;
    }
    let (mut indices, rest): (Vec<_>, Vec<_>) = object.into_iter().partition(|(k, _)| is_array_index(k));
    indices.sort_by_key(|(k, _)| k.parse::<u64>().unwrap_or(u64::MAX));
    indices.into_iter().chain(rest).collect()
}

/// A JSON value with its strings cut to `cap` characters (`None`: kept whole); `top` is the
/// arguments object itself, whose [`WHOLE_KEYS`] are kept whole.
#[derive(Clone, Copy)]
struct Capped {
    cap: Option<usize>,
    top: bool,
}

impl Capped {
    const NESTED: Capped = Capped { cap: Some(STRING_CAP), top: false };
    const WHOLE: Capped = Capped { cap: None, top: false };

    /// The seed of a value inside this one: whole inside a whole argument, cut anywhere else.
    fn inner(self) -> Capped {
        if self.cap.is_none() && !self.top { Capped::WHOLE } else { Capped::NESTED }
    }

    fn cut(self, s: &str) -> Value {
        let end = self.cap.map_or(s.len(), |cap| char_end(s, cap));
        Value::String(s[..end].to_string())
    }
}

impl<'de> DeserializeSeed<'de> for Capped {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Capped {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(self.cut(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self.inner())? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let whole = self.top && WHOLE_KEYS.contains(&key.as_str());
            let seed = if whole { Capped::WHOLE } else { self.inner() };
            object.insert(key, map.next_value_seed(seed)?);
        }
        Ok(Value::Object(in_js_order(object)))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn read(json: &str) -> ToolArgs {
        serde_json::from_str::<serde_json::Value>(json).expect("the arguments are JSON");
        tool_args(json)
    }

    fn whole(json: &str) -> ToolArgs {
        of_value(&serde_json::from_str(json).unwrap())
    }

    #[test]
    fn short_arguments_read_as_the_whole_value_does() {
        for json in [
            r#"{"path": "src/main.rs", "offset": 10, "limit": 2.5}"#,
            r#"{"file_path": "/a/b", "command": "ls -la", "pattern": "fn \\w+"}"#,
            r#"{"q": [1, true, null, {"x": "y"}], "path": 3}"#,
            r#""just a string""#,
            r#"{"path": "a", "path": "b"}"#,
        ] {
            assert_eq!(read(json), whole(json), "{json}");
        }
    }

    #[test]
    fn long_strings_keep_an_exact_head_and_mark_the_json_cut() {
        let content = "line\n".repeat(10_000);
        let command = "x".repeat(5_000);
        let json =
            serde_json::json!({ "content": content, "command": command, "nested": [content] }).to_string();
        let (fast, full) = (read(&json), whole(&json));
        assert_eq!(fast, full);
        assert!(!fast.json_complete);
        assert_eq!(fast.json_head.chars().count(), JSON_HEAD_CHARS);
        assert_eq!(fast.command.as_deref(), Some(command.as_str()));
    }

    #[test]
    fn a_json_of_exactly_the_head_length_is_complete() {
        let json = format!(r#"{{"k":"{}"}}"#, "a".repeat(JSON_HEAD_CHARS - 8));
        assert_eq!(json.len(), JSON_HEAD_CHARS);
        assert!(read(&json).json_complete);
        let longer = format!(r#"{{"k":"{}"}}"#, "a".repeat(JSON_HEAD_CHARS - 7));
        assert!(!read(&longer).json_complete);
    }

    /// Random arguments as JSON text: objects with the kept keys among others, nesting, numbers
    /// written every way JSON allows, escapes and long strings.
    fn arguments() -> impl Strategy<Value = String> {
        let number = prop::sample::select(vec![
            "0",
            "-0",
            "7",
            "-12",
            "1.5",
            "1e3",
            "1E-7",
            "-2.5e+2",
            "0.1",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "123456789012345678901234567890",
        ])
        .prop_map(str::to_string);
        let piece = prop::sample::select(vec!["a", "é", "😀", "\\n", "\\\"", "\\u00e9", " ", "漢字"]);
        let string = (prop::collection::vec(piece, 0..40), 0usize..3)
            .prop_map(|(p, long)| format!("\"{}{}\"", p.concat(), "x".repeat(long * 40)));
        let key = prop::sample::select(vec![
            "path",
            "file_path",
            "command",
            "pattern",
            "offset",
            "limit",
            "k",
            "content",
        ]);
        let leaf = prop_oneof![number, string, Just("true".to_string()), Just("null".to_string())];
        leaf.prop_recursive(3, 24, 5, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec((key.clone(), inner), 0..6).prop_map(|kv| {
                    let fields: Vec<String> = kv.iter().map(|(k, v)| format!("\"{k}\" : {v}")).collect();
                    format!("{{{}}}", fields.join(" ,"))
                }),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn streamed_arguments_read_as_the_tree_reads_them(json in arguments()) {
            prop_assert_eq!(tool_args(&json), through_a_tree(&json), "{}", json);
        }
    }
}
