//! Numbers read out of JSON that the structural validator ([`super::validate`]) has already
//! vouched for, as serde_json reads them, with no grammar to check again.

/// A value (as written in valid JSON) read as serde_json reads a number into a double:
/// `Some(Some(n))` for a number (an integer through `u64` or `i64` when it fits, `-0` through
/// neither as serde makes it −0.0, anything else correctly rounded), `Some(None)` for any other
/// value, and `None` for a number too large for a double, which serde refuses.
pub fn number(value: &[u8]) -> Option<Option<f64>> {
    let Ok(text) = std::str::from_utf8(value) else { return Some(None) };
    let integer = !value.iter().any(|b| matches!(b, b'.' | b'e' | b'E'));
    let n = match (integer, value.first()) {
        (true, Some(b'-')) if text != "-0" => text.parse::<i64>().map(|n| n as f64).or_else(|_| text.parse()),
        (true, Some(b'0'..=b'9')) => text.parse::<u64>().map(|n| n as f64).or_else(|_| text.parse()),
        (_, Some(b'-' | b'0'..=b'9')) => text.parse::<f64>(),
        _ => return Some(None),
    };
    n.ok().filter(|n| n.is_finite()).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_serde_reads_them() {
        for text in [
            "0",
            "-0",
            "12",
            "-12",
            "1.5",
            "-0.0",
            "1e3",
            "-2.5E-3",
            "0.1",
            "9007199254740993",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "2.2250738585072011e-308",
        ] {
            let serde: f64 = serde_json::from_str(text).expect("a number serde reads");
            assert_eq!(number(text.as_bytes()).flatten().map(f64::to_bits), Some(serde.to_bits()), "{text}");
        }
        for text in ["\"1\"", "true", "null", "[1]", "{}"] {
            assert_eq!(number(text.as_bytes()), Some(None), "{text}");
        }
        for text in ["1e400", "-1e400"] {
            assert!(serde_json::from_str::<f64>(text).is_err());
            assert_eq!(number(text.as_bytes()), None, "{text}");
        }
    }
}
