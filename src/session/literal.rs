//! Text heads read straight from JSON string literals. A tool output or a long answer can be
//! megabytes of escaped text; the session reader needs only its first characters and its length,
//! so the literal is taken raw (serde checks it and finds its end without copying it) and only its
//! head is unescaped here.

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::entry::HeadBuilder;

/// A string field kept as its raw JSON literal, quotes included; any other JSON value reads as
/// absent (like [`super::loose::Loose`]).
#[derive(Default)]
pub(crate) struct LooseLiteral<'a>(pub(crate) Option<&'a str>);

impl<'de: 'a, 'a> Deserialize<'de> for LooseLiteral<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&RawValue>::deserialize(d)?.get();
        Ok(LooseLiteral(raw.starts_with('"').then_some(raw)))
    }
}

/// Append the text of the JSON string literal `raw` (as serde accepted it) to `head`. A surrogate
/// escape that is not half of a pair reads as U+FFFD, as everywhere else in the session reader.
pub(crate) fn push_literal(head: &mut HeadBuilder, raw: &str) {
    push_contents(head, raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')).unwrap_or(raw));
}

/// Append the text of `contents`, the inside of a JSON string literal (or its start), to `head`.
pub(crate) fn push_contents(head: &mut HeadBuilder, contents: &str) {
    let mut rest = contents;
    head.reserve(rest.len());
    while !head.is_cut() {
        let Some(at) = memchr::memchr(b'\\', rest.as_bytes()) else {
            head.push_str(rest);
            return;
        };
        head.push_str(&rest[..at]);
        let (c, used) = unescape(&rest.as_bytes()[at..]);
        head.push_char(c);
        rest = rest.get(at + used..).unwrap_or("");
    }
}

/// The character of the escape sequence at the start of `esc` (which begins with `\`) and the
/// number of bytes it takes.
pub(super) fn unescape(esc: &[u8]) -> (char, usize) {
    let simple = match esc.get(1) {
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => return unicode_escape(esc),
        _ => return (char::REPLACEMENT_CHARACTER, esc.len().min(2)),
    };
    (simple, 2)
}

fn unicode_escape(esc: &[u8]) -> (char, usize) {
    let Some(unit) = hex4(esc, 2) else {
        return (char::REPLACEMENT_CHARACTER, 2);
    };
    if (0xD800..0xDC00).contains(&unit)
        && esc.get(6..8) == Some(b"\\u")
        && let Some(low) = hex4(esc, 8).filter(|u| (0xDC00..0xE000).contains(u))
    {
        let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
        return (char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER), 12);
    }
    (char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER), 6)
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(b.get(at..at + 4)?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::entry::{TEXT_HEAD_CHARS, TextHead};

    fn head_of(json: &str) -> TextHead {
        let mut head = HeadBuilder::default();
        push_literal(&mut head, json);
        head.finish()
    }

    #[test]
    fn every_escape_reads_as_serde_reads_it() {
        let json = r#""a\"b\\c\/d\be\ff\ng\rh\ti\u00e9j\ud83d\ude00k\u2028""#;
        let expected: String = serde_json::from_str(json).unwrap();
        assert_eq!(head_of(json), TextHead { head: expected, complete: true });
    }

    #[test]
    fn lone_surrogates_read_as_replacement_characters() {
        assert_eq!(head_of(r#""x\ud800y\udc00z\ud83d""#).head, "x\u{fffd}y\u{fffd}z\u{fffd}");
    }

    #[test]
    fn a_long_literal_keeps_its_head_and_notes_the_cut() {
        let text = "é\n\\\"\u{1F600}\u{7}x".repeat(TEXT_HEAD_CHARS);
        let json = serde_json::to_string(&text).unwrap();
        let head = head_of(&json);
        assert_eq!(head, TextHead::new(&text));
        assert!(!head.complete);
        assert_eq!(head.head.chars().count(), TEXT_HEAD_CHARS);
        assert!(text.starts_with(&head.head));
    }

    #[test]
    fn a_literal_of_exactly_the_head_length_is_complete() {
        let text = "\n".repeat(TEXT_HEAD_CHARS);
        let head = head_of(&serde_json::to_string(&text).unwrap());
        assert_eq!(head, TextHead { head: text.clone(), complete: true });
        let longer = head_of(&serde_json::to_string(&format!("{text}\t")).unwrap());
        assert_eq!(longer, TextHead { head: text, complete: false });
    }

    #[test]
    fn only_string_values_are_literals() {
        let read = |json: &str| serde_json::from_str::<LooseLiteral>(json).unwrap().0.map(str::to_string);
        assert_eq!(read(r#""hi""#).as_deref(), Some(r#""hi""#));
        assert_eq!(read("42"), None);
        assert_eq!(read("[\"a\"]"), None);
        assert_eq!(read("null"), None);
    }
}
