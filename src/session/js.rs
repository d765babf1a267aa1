//! The JavaScript value rules that pi's text depends on, for the values `JSON.parse` gives:
//! `Number.prototype.toString`, `Number(text)`, `String(value)`, `JSON.stringify`, what `trim()`
//! and `\s` count as white space, and string lengths and slices counted in UTF-16 code units.

use std::borrow::Cow;
use std::io;

use serde::Serialize;
use serde_json::Value;

/// JavaScript's `WhiteSpace` and `LineTerminator` set (what `trim()` strips and `\s` matches). It
/// differs from Rust's `char::is_whitespace` in two places: U+FEFF is JS whitespace, U+0085 is not.
pub fn is_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// `String.prototype.trim()`, which pi applies to session names.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// JavaScript's falsiness, for the values `JSON.parse` can produce.
pub fn is_falsy(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

/// The keys `JSON.parse` puts first in an object, in ascending numeric order: array indices, the
/// canonical decimal integers below 2³² − 1.
pub(crate) fn is_array_index(key: &str) -> bool {
    let canonical = key == "0" || (!key.starts_with('0') && key.bytes().all(|b| b.is_ascii_digit()));
    canonical && key.parse::<u64>().is_ok_and(|n| n < u64::from(u32::MAX))
}

/// JavaScript's `Number(text)`: surrounding white space ignored, empty is 0, decimal literals with
/// an optional sign and exponent, `Infinity`, and unsigned `0x` / `0o` / `0b` integers; anything
/// else is NaN.
pub fn string_to_number(text: &str) -> f64 {
    let t = trim(text);
    if t.is_empty() {
        return 0.0;
    }
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(digits) =
            t.get(..2).filter(|p| p.eq_ignore_ascii_case(prefix)).and(t.get(2..)).filter(|d| !d.is_empty())
        {
            return digits
                .chars()
                .try_fold(0.0, |n, c| c.to_digit(radix).map(|d| n * f64::from(radix) + f64::from(d)))
                .unwrap_or(f64::NAN);
        }
    }
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned == "Infinity" {
        return if t.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY };
    }
    // Rust also reads `inf` and `NaN`, which JavaScript does not.
    let decimal =
        unsigned.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if decimal { t.parse().unwrap_or(f64::NAN) } else { f64::NAN }
}

/// A number as JavaScript prints it (ECMA-262 `Number::toString`): `3` rather than `3.0`, `1e-7`,
/// `1e+21`, `0` for `-0`, `NaN`, `Infinity`.
pub fn format_number(n: f64) -> String {
    ryu_js::Buffer::new().format(n).to_string()
}

/// [`format_number`] appended to `out`, without a `String` of its own.
pub fn push_number(out: &mut String, n: f64) {
    out.push_str(ryu_js::Buffer::new().format(n));
}

/// [`format_number`] written to `out`, without a `String` of its own.
pub fn write_number<W: ?Sized + io::Write>(out: &mut W, n: f64) -> io::Result<()> {
    out.write_all(ryu_js::Buffer::new().format(n).as_bytes())
}

/// `String(value)`: strings as they are, numbers as [`format_number`], arrays as their items
/// joined by `,` (`null` items empty), objects as `[object Object]`.
pub fn js_string(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(s) => Cow::Borrowed(s),
        Value::Number(n) => Cow::Owned(format_number(n.as_f64().unwrap_or(f64::NAN))),
        Value::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        Value::Null => Cow::Borrowed("null"),
        Value::Array(items) => Cow::Owned(
            items
                .iter()
                .map(|item| if item.is_null() { Cow::Borrowed("") } else { js_string(item) })
                .collect::<Vec<_>>()
                .join(","),
        ),
        Value::Object(_) => Cow::Borrowed("[object Object]"),
    }
}

/// Serialize `value` the way `JSON.stringify(value)` writes it: no whitespace, keys in the order
/// given, numbers as [`format_number`] writes them.
///
/// ```
/// use pitree::manager::to_json_string;
/// let v = serde_json::json!({"cost": 0.000015, "big": 1e21, "n": 3.0, "s": "tab\there"});
/// assert_eq!(
///     to_json_string(&v),
///     r#"{"cost":0.000015,"big":1e+21,"n":3,"s":"tab\there"}"#
/// );
/// ```
pub fn to_json_string<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, JsFormatter);
    value.serialize(&mut ser).expect("serializing to memory with string keys cannot fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// serde_json's compact output with JavaScript number formatting. serde_json's string escapes
/// (`\"`, `\\`, `\b\f\n\r\t`, other control characters as lowercase `\u00xx`, nothing else) are
/// already the ones `JSON.stringify` uses.
struct JsFormatter;

impl serde_json::ser::Formatter for JsFormatter {
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        write_number(writer, value)
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, f64::from(value))
    }

    /// `JSON.parse` reads every number as a double, so a large integer prints as that double does.
    fn write_u64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: u64) -> io::Result<()> {
        self.write_f64(writer, value as f64)
    }

    fn write_i64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: i64) -> io::Result<()> {
        self.write_f64(writer, value as f64)
    }
}

/// `s.length`: the length of `s` in UTF-16 code units.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// `s.slice(0, units)`. A cut through a surrogate pair leaves JavaScript half a character; here
/// it is U+FFFD, as a lone surrogate is everywhere else in pitree.
pub fn utf16_head(s: &str, units: usize) -> Cow<'_, str> {
    let mut taken = 0;
    for (at, c) in s.char_indices() {
        let width = c.len_utf16();
        if taken + width > units {
            return if taken < units {
                Cow::Owned(format!("{}\u{fffd}", &s[..at]))
            } else {
                Cow::Borrowed(&s[..at])
            };
        }
        taken += width;
    }
    Cow::Borrowed(s)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn numbers_print_like_javascript() {
        let cases = [
            (1.0, "1"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (0.000015, "0.000015"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e21, "1e+21"),
            (1.25e22, "1.25e+22"),
            (1733000000000.0, "1733000000000"),
            (0.30000000000000004, "0.30000000000000004"),
            (-0.0, "0"),
            (f64::INFINITY, "Infinity"),
        ];
        for (value, js) in cases {
            assert_eq!(format_number(value), js, "{value:e}");
        }
    }

    #[test]
    fn values_coerce_to_strings_as_javascript_does() {
        let cases = [
            (json!("a b"), "a b"),
            (json!(5), "5"),
            (json!(1.0), "1"),
            (json!(12345678901234567890u64), "12345678901234567000"),
            (json!(true), "true"),
            (json!([1, "a", null, [2, 3]]), "1,a,,2,3"),
            (json!([]), ""),
            (json!({"a": 1}), "[object Object]"),
        ];
        for (value, js) in cases {
            assert_eq!(js_string(&value), js, "{value}");
        }
    }

    #[test]
    fn stringify_prints_integers_as_doubles() {
        let v = json!({"big": 12345678901234567890u64, "neg": -3, "f": 1.0});
        assert_eq!(to_json_string(&v), r#"{"big":12345678901234567000,"neg":-3,"f":1}"#);
    }

    #[test]
    fn utf16_slices_count_surrogate_pairs_as_two() {
        assert_eq!(utf16_len("a😀é"), 4);
        assert_eq!(utf16_head("a😀é", 3), "a😀");
        assert_eq!(utf16_head("a😀é", 2), "a\u{fffd}");
        assert_eq!(utf16_head("abc", 5), "abc");
        assert_eq!(utf16_head("abc", 0), "");
    }
}
