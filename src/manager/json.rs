//! JSON exactly as pi writes it: `JSON.stringify` of one object, no whitespace, keys in insertion
//! order, numbers in JavaScript's `Number.prototype.toString` form (`1e-7`, `0.000015`, `1e+21`,
//! `3` rather than `3.0`), and the same string escapes. Also the serde helpers that keep typed
//! fields lossless: an optional field is either absent or has a value, never `null`.

use std::io;

use serde::{Deserialize, Deserializer, Serialize};

/// Serialize `value` the way `JSON.stringify(value)` writes it.
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
        writer.write_all(js_number(value).as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, f64::from(value))
    }
}

/// A finite number as JavaScript prints it (ECMA-262 `Number::toString`): the shortest digits
/// that round-trip, in plain notation from 1e-6 up to 1e21 and in exponent notation outside.
fn js_number(value: f64) -> String {
    if value == 0.0 {
        return "0".to_string();
    }
    let sci = format!("{:e}", value.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i32;
    let n = exponent.parse::<i32>().unwrap_or(0) + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let sign = if n > 0 { '+' } else { '-' };
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        format!("{first}{dot}{rest}e{sign}{}", (n - 1).abs())
    };
    if value < 0.0 { format!("-{body}") } else { body }
}

/// serde `deserialize_with` for an optional field: absent gives `None` (with `#[serde(default)]`),
/// a value gives `Some`, and `null` is refused (pi never writes `null` there, and reading it as
/// absent would drop it on the way back). A refused field makes the whole value fall back to its
/// verbatim `Other` form.
pub(crate) fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// serde `deserialize_with` for a field pi always writes but which may be `null` (`parentId`):
/// absent is refused, so writing the value back never adds a key.
pub(crate) fn nullable<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d)
}

/// `Serialize` and `Deserialize` for a public enum of typed variants plus an `Other` variant that
/// keeps any object verbatim. The tag (`type` or `role`) is written first, as pi writes it; an
/// object whose tag is unknown, or whose fields do not have the shapes pi writes, becomes `Other`.
macro_rules! tagged_enum {
    ($name:ident, $tag:literal, { $($variant:ident($ty:ty) = $value:literal),* $(,)? }) => {
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                #[derive(serde::Serialize)]
                #[serde(tag = $tag)]
                enum Tagged<'a> {
                    $(#[serde(rename = $value)] $variant(&'a $ty),)*
                }
                match self {
                    $($name::$variant(v) => Tagged::$variant(v).serialize(s),)*
                    $name::Other(map) => map.serialize(s),
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                #[derive(serde::Deserialize)]
                #[serde(tag = $tag)]
                enum Known {
                    $(#[serde(rename = $value)] $variant($ty),)*
                }
                // Short-lived: boxing the large variant would only add an allocation.
                #[allow(clippy::large_enum_variant)]
                #[derive(serde::Deserialize)]
                #[serde(untagged)]
                enum Wire {
                    Known(Known),
                    Other(serde_json::Map<String, serde_json::Value>),
                }
                Ok(match Wire::deserialize(d)? {
                    $(Wire::Known(Known::$variant(v)) => $name::$variant(v),)*
                    Wire::Other(map) => $name::Other(map),
                })
            }
        }
    };
}
pub(crate) use tagged_enum;

#[cfg(test)]
mod tests {
    use super::js_number;

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
        ];
        for (value, js) in cases {
            assert_eq!(js_number(value), js, "{value:e}");
        }
    }
}
