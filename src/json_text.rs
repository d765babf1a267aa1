//! JSON written exactly as serde_json writes it, a member at a time: strings without its
//! byte-by-byte escape pass when there is nothing to escape (nearly every string pitree's
//! commands print, paths, ids, times and most row texts, has none, which one vectorised check
//! finds), and objects in its compact or its pretty layout.

use std::io::{self, Write};

/// `s` as a JSON string, exactly as serde_json writes it.
pub fn write_str(out: &mut impl Write, s: &str) -> io::Result<()> {
    if has_nothing_to_escape(s.as_bytes()) {
        out.write_all(b"\"")?;
        out.write_all(s.as_bytes())?;
        out.write_all(b"\"")
    } else {
        serde_json::to_writer(out, s).map_err(io::Error::from)
    }
}

/// The members of one JSON object, written as they come, laid out as serde_json lays them out:
/// compact (`{"a":1,"b":"x"}`), or as its pretty printer writes an object `depth` levels deep in a
/// document (each key on a line of its own, two spaces a level).
pub struct Object<'w, W: Write> {
    out: &'w mut W,
    /// `None` for the compact layout.
    depth: Option<usize>,
    /// No member is written yet.
    first: bool,
}

impl<'w, W: Write> Object<'w, W> {
    /// An object in the compact layout, its `{` written.
    pub fn compact(out: &'w mut W) -> io::Result<Self> {
        Object::open(out, None)
    }

    /// An object in the pretty layout, `depth` levels deep, its `{` written.
    pub fn pretty(out: &'w mut W, depth: usize) -> io::Result<Self> {
        Object::open(out, Some(depth))
    }

    fn open(out: &'w mut W, depth: Option<usize>) -> io::Result<Self> {
        out.write_all(b"{")?;
        Ok(Object { out, depth, first: true })
    }

    /// Where the next value goes: after the key of the next member (and its separator).
    pub fn key(&mut self, key: &str) -> io::Result<&mut W> {
        if !std::mem::take(&mut self.first) {
            self.out.write_all(b",")?;
        }
        if let Some(depth) = self.depth {
            self.new_line(depth + 1)?;
        }
        write_str(self.out, key)?;
        self.out.write_all(if self.depth.is_some() { b": " } else { b":" })?;
        Ok(self.out)
    }

    pub fn str(&mut self, key: &str, value: &str) -> io::Result<()> {
        write_str(self.key(key)?, value)
    }

    /// A string, or `null`.
    pub fn opt_str(&mut self, key: &str, value: Option<&str>) -> io::Result<()> {
        match value {
            Some(v) => self.str(key, v),
            None => self.value(key, ()),
        }
    }

    /// A number, `true`/`false` or (for `()`) `null`, as serde_json writes it.
    pub fn value(&mut self, key: &str, value: impl serde::Serialize) -> io::Result<()> {
        serde_json::to_writer(self.key(key)?, &value).map_err(io::Error::from)
    }

    /// The closing `}` (on a line of its own in the pretty layout, unless the object is empty).
    pub fn close(mut self) -> io::Result<()> {
        if let Some(depth) = self.depth.filter(|_| !self.first) {
            self.new_line(depth)?;
        }
        self.out.write_all(b"}")
    }

    fn new_line(&mut self, level: usize) -> io::Result<()> {
        self.out.write_all(b"\n")?;
        (0..level).try_for_each(|_| self.out.write_all(b"  "))
    }
}

/// No byte that JSON escapes (`"`, `\`, control characters): 32 bytes at a time, without a
/// branch per byte, so the check vectorises.
fn has_nothing_to_escape(bytes: &[u8]) -> bool {
    bytes.chunks(32).all(|c| c.iter().fold(true, |ok, &b| ok & (b >= 0x20) & (b != b'"') & (b != b'\\')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn written(s: &str) -> String {
        let mut out = Vec::new();
        write_str(&mut out, s).unwrap();
        String::from_utf8(out).unwrap()
    }

    proptest! {
        /// Every string is written exactly as serde_json writes it, with or without escapes.
        #[test]
        fn strings_are_written_as_serde_json_writes_them(s in "(\\PC|[\"\\\\\u{0}-\u{1f}\u{7f}\u{2028}])*") {
            prop_assert_eq!(written(&s), serde_json::to_string(&s).unwrap());
        }
    }

    /// Both layouts are serde_json's, nested objects and empty ones too.
    #[test]
    fn objects_are_laid_out_as_serde_json_lays_them_out() {
        let write = |depth: Option<usize>| {
            let mut out = Vec::new();
            let mut o = match depth {
                Some(d) => Object::pretty(&mut out, d),
                None => Object::compact(&mut out),
            }
            .unwrap();
            o.str("a \"q\"", "x\ny").unwrap();
            o.opt_str("n", None).unwrap();
            o.value("b", 1.5).unwrap();
            let mut inner = match depth {
                Some(d) => Object::pretty(o.key("o").unwrap(), d + 1),
                None => Object::compact(o.key("o").unwrap()),
            }
            .unwrap();
            inner.value("t", true).unwrap();
            inner.close().unwrap();
            let empty = match depth {
                Some(d) => Object::pretty(o.key("e").unwrap(), d + 1),
                None => Object::compact(o.key("e").unwrap()),
            };
            empty.unwrap().close().unwrap();
            o.close().unwrap();
            String::from_utf8(out).unwrap()
        };
        let value = serde_json::json!({"a \"q\"": "x\ny", "n": null, "b": 1.5, "o": {"t": true}, "e": {}});
        assert_eq!(write(None), serde_json::to_string(&value).unwrap());
        assert_eq!(write(Some(0)), serde_json::to_string_pretty(&value).unwrap());
        let nested = serde_json::to_string_pretty(&serde_json::json!([[value]])).unwrap();
        assert!(nested.contains(&write(Some(2))), "{nested}");
    }

    #[test]
    fn each_byte_json_escapes_is_found_wherever_it_is() {
        for at in [0, 1, 31, 32, 33, 63, 64, 99] {
            for b in [b'"', b'\\', 0u8, b'\n', 0x1f] {
                let mut bytes = vec![b'a'; 100];
                bytes[at] = b;
                assert!(!has_nothing_to_escape(&bytes), "byte {b:#x} at {at}");
            }
        }
        assert!(has_nothing_to_escape("plain ascii, ünïcödé, 🌳 and \u{7f}".as_bytes()));
    }
}
