//! Values read out of JSON that the structural validator ([`super::validate`]) has already vouched
//! for: the members of an object, and numbers as serde_json reads them, with no grammar to check
//! again.

/// Calls `member` with the key (as written, between its quotes) and the value (as written) of each
/// member of `object`, a valid JSON object; stops at the first `None`.
pub fn members<'a>(object: &'a [u8], mut member: impl FnMut(&'a [u8], &'a [u8]) -> Option<()>) -> Option<()> {
    let mut c = Cursor { b: object, i: 0 };
    (c.next()? == b'{').then_some(())?;
    if c.peek()? == b'}' {
        return Some(());
    }
    loop {
        c.ws();
        let key = c.string()?;
        (c.next()? == b':').then_some(())?;
        c.ws();
        let value = c.value()?;
        member(key, value)?;
        match c.next()? {
            b',' => {}
            b'}' => return Some(()),
            _ => return None,
        }
    }
}

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

/// A cursor over a valid JSON value.
struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// The next byte after white space.
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    /// The next byte after white space, taken.
    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.i += 1;
        Some(byte)
    }

    /// The contents of the string at the cursor; the cursor moves past it.
    fn string(&mut self) -> Option<&'a [u8]> {
        (self.b.get(self.i) == Some(&b'"')).then_some(())?;
        let from = self.i + 1;
        let mut end = from;
        loop {
            end += memchr::memchr2(b'"', b'\\', &self.b[end..])?;
            if self.b[end] == b'"' {
                break;
            }
            end += 2;
        }
        self.i = end + 1;
        Some(&self.b[from..end])
    }

    /// The value at the cursor as written; the cursor moves past it.
    fn value(&mut self) -> Option<&'a [u8]> {
        let from = self.i;
        let mut depth = 0usize;
        loop {
            match *self.b.get(self.i)? {
                b'"' => {
                    self.string()?;
                }
                b'{' | b'[' => {
                    depth += 1;
                    self.i += 1;
                }
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    self.i += 1;
                }
                b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => break,
                _ => self.i += 1,
            }
            if depth == 0 && matches!(self.b[from], b'"' | b'{' | b'[') {
                break;
            }
        }
        Some(&self.b[from..self.i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_members(object: &str) -> Vec<(String, String)> {
        let mut found = Vec::new();
        members(object.as_bytes(), |k, v| {
            found.push((String::from_utf8_lossy(k).into(), String::from_utf8_lossy(v).into()));
            Some(())
        })
        .expect("a valid object");
        found
    }

    #[test]
    fn members_are_read_as_written() {
        let object = r#" { "a" : 1 , "b\"c":{"x":[1,{"y":"}"}]},"d":"e\\","f":[] , "g":-2.5e3,"h":null } "#;
        let expected = [
            ("a", "1"),
            (r#"b\"c"#, r#"{"x":[1,{"y":"}"}]}"#),
            ("d", r#""e\\""#),
            ("f", "[]"),
            ("g", "-2.5e3"),
            ("h", "null"),
        ];
        assert_eq!(all_members(object), expected.map(|(k, v)| (k.to_string(), v.to_string())));
        assert!(all_members("{ }").is_empty());
    }

    #[test]
    fn a_member_can_stop_the_reading() {
        let mut seen = 0;
        assert_eq!(members(br#"{"a":1,"b":2}"#, |_, _| (seen == 0).then(|| seen += 1)), None);
        assert_eq!(seen, 1);
    }

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
