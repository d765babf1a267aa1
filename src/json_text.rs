//! JSON strings written exactly as serde_json writes them, without its byte-by-byte escape pass
//! when there is nothing to escape: nearly every string pitree's commands print (paths, ids,
//! times, most row texts) has none, which one vectorised check finds.

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
