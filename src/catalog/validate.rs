//! Whether a line is one JSON value, in one vector pass, in the style of simdjson's two stages.
//!
//! - **Stage 1** classifies the line 64 bytes at a time with AVX2: the string masks of the session
//!   skim (`session::skim`: quotes, backslashes, control characters, what may follow a backslash,
//!   with the escaped positions and the inside of strings found by carry-less arithmetic; a raw
//!   control character in a string, an escape JSON does not have or a backslash outside strings
//!   ends the check there), and two table lookups for JSON's white space and its structural
//!   characters `{}[]:,`. What lies outside strings and is neither is a scalar (a number or
//!   `true`/`false`/`null`). The block's tokens are its structurals outside strings, its opening
//!   quotes and the first byte of each scalar.
//! - **Stage 2** walks the tokens as they come with a small state machine (a bit stack of open
//!   objects and arrays; what comes next: a value, a key, a colon, a comma or a close) and reads
//!   each scalar byte by byte with JSON's grammar, which must end where the scalar does.
//!
//! The result is the floor check's ([`super::lines::is_json`] through serde's `IgnoredAny`):
//! UTF-8 is not checked, as serde does not check the strings it ignores (a line is decoded lossily,
//! as pi does), and a number too large for a double is JSON (as `JSON.parse` reads it). Nesting
//! deeper than 64 and CPUs without AVX2 are left to the serde check (`None`).
//!
//! The same walk also checks a line the listing sniffed ([`is_sniffed_json`]): it counts the
//! sniffed keys as serde's check of such a line does, and leaves to it what it reads differently
//! (keys written with escapes or in other than ASCII, a `message` that is a string or a number).
//!
//! Property tests hold both to the serde checks (mutated fixture lines, JSON-ish bytes, mutated
//! generated JSON), as does the `json_check` fuzz target. One core over the benchmark corpus
//! (1.06 GB, lines split beforehand, in memory) checked ~4.8–7.2 GB/s against ~3.3–5.0 GB/s for
//! the skim + serde check, 1.45× (1.3–1.7× as the shared machine's load varied).

use super::lines::sniffed_key;

/// Whether `text` (a line without the white space around it) is one JSON value; `None` when this
/// check cannot say and the serde check decides.
pub fn is_json(text: &[u8]) -> Option<bool> {
    check::<false>(text)
}

/// The check of a line the listing sniffed (`lines::with_line`): one JSON object in which the
/// sniffed keys (`type`, `id`, `parentId`, `message` and `role` in the `message` object) occur
/// once each. `None` when this check cannot say (one of those keys or a key beside them written
/// with escapes or other than in ASCII, a `message` that is not an object or an array) and
/// serde decides.
pub fn is_sniffed_json(text: &[u8]) -> Option<bool> {
    check::<true>(text)
}

fn check<const SNIFF: bool>(text: &[u8]) -> Option<bool> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("pclmulqdq") {
        // SAFETY: the CPU has both features.
        return unsafe { x86::check::<SNIFF>(text) };
    }
    let _ = text;
    None
}

/// What the next token may be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    /// A value: at the start, after `:` and after `,` in an array.
    Value,
    /// A value or `]`, after `[`.
    ValueOrClose,
    /// A key or `}`, after `{`.
    KeyOrClose,
    /// A key, after `,` in an object.
    Key,
    Colon,
    /// `,` or the close of the innermost container, after a value (nothing, at depth 0).
    CommaOrClose,
}

/// Stage 2: the state between tokens. Open containers are a bit stack, 1 for an object. With
/// `SNIFF`, the sniffed keys are counted as [`super::lines`] counts them.
struct Walk<const SNIFF: bool> {
    want: Want,
    depth: u32,
    objects: u64,
    /// How often each sniffed key occurred, by `lines::sniffed_key`'s index.
    counts: [u8; 5],
    /// The next value is the line's `message`.
    message_next: bool,
    /// The object at depth 2 is the line's `message`.
    in_message: bool,
}

/// `message`'s index in the counts of the sniffed keys.
const MESSAGE: usize = 3;

/// The maximal nesting this check follows; deeper lines go to serde.
const MAX_DEPTH: u32 = 64;

/// Why a walk stopped: the line is not JSON, or this check cannot say.
enum Stop {
    NotJson,
    Unsure,
}

impl<const SNIFF: bool> Walk<SNIFF> {
    fn new() -> Self {
        Walk {
            want: Want::Value,
            depth: 0,
            objects: 0,
            counts: [0; 5],
            message_next: false,
            in_message: false,
        }
    }

    /// Takes the token at `at` of `line`.
    #[inline(always)]
    fn token(&mut self, line: &[u8], at: usize) -> Result<(), Stop> {
        let byte = line[at];
        self.want = match (self.want, byte) {
            (Want::CommaOrClose, b'}' | b']') | (Want::KeyOrClose, b'}') | (Want::ValueOrClose, b']')
                if self.depth > 0 && (self.objects & 1 == 1) == (byte == b'}') =>
            {
                self.objects >>= 1;
                self.depth -= 1;
                if SNIFF && self.depth == 1 {
                    self.in_message = false;
                }
                Want::CommaOrClose
            }
            (Want::Value | Want::ValueOrClose, b'{' | b'[') => {
                if self.depth == MAX_DEPTH || SNIFF && self.depth == 0 && byte == b'[' {
                    return Err(Stop::Unsure);
                }
                let object = byte == b'{';
                if SNIFF && self.message_next {
                    self.message_next = false;
                    self.in_message = object;
                }
                self.objects = self.objects << 1 | u64::from(object);
                self.depth += 1;
                if object { Want::KeyOrClose } else { Want::ValueOrClose }
            }
            (Want::Value | Want::ValueOrClose, b'}' | b']' | b':' | b',') => return Err(Stop::NotJson),
            // A top-level value or a `message` other than an object or an array.
            (Want::Value, _) if SNIFF && (self.depth == 0 || self.message_next) => return Err(Stop::Unsure),
            (Want::Value | Want::ValueOrClose, b'"') => Want::CommaOrClose,
            (Want::Value | Want::ValueOrClose, _) => {
                let end = scalar_end(line, at).ok_or(Stop::NotJson)?;
                if !line.get(end).is_none_or(|b| {
                    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' | b'[' | b']' | b'{' | b'}' | b'"')
                }) {
                    return Err(Stop::NotJson);
                }
                Want::CommaOrClose
            }
            (Want::Key | Want::KeyOrClose, b'"') => {
                if SNIFF && (self.depth == 1 || self.depth == 2 && self.in_message) {
                    self.key(line, at)?;
                }
                Want::Colon
            }
            (Want::Colon, b':') => Want::Value,
            (Want::CommaOrClose, b',') if self.depth > 0 => {
                if self.objects & 1 == 1 {
                    Want::Key
                } else {
                    Want::Value
                }
            }
            _ => return Err(Stop::NotJson),
        };
        Ok(())
    }

    /// Counts the key whose opening quote is at `at`, an object's at depth 1 or the `message`'s.
    fn key(&mut self, line: &[u8], at: usize) -> Result<(), Stop> {
        let rest = &line[at + 1..];
        let end = memchr::memchr2(b'"', b'\\', rest).ok_or(Stop::NotJson)?;
        let key = &rest[..end];
        if rest[end] == b'\\' || !key.is_ascii() {
            return Err(Stop::Unsure);
        }
        if let Some(slot) = sniffed_key(self.depth as usize, key) {
            self.counts[slot] = self.counts[slot].saturating_add(1);
            self.message_next = slot == MESSAGE;
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.want == Want::CommaOrClose && self.depth == 0 && (!SNIFF || self.counts.iter().all(|&n| n <= 1))
    }
}

/// The end of the number or literal that starts at `at`, as JSON's grammar reads it (no more than
/// it allows: `-01` ends after `-0`); `None` when no number or literal starts there.
#[inline(always)]
fn scalar_end(line: &[u8], at: usize) -> Option<usize> {
    let rest = &line[at..];
    for literal in [&b"true"[..], b"false", b"null"] {
        if rest.starts_with(literal) {
            return Some(at + literal.len());
        }
    }
    let digit = |i: usize| rest.get(i).is_some_and(u8::is_ascii_digit);
    let digits = |mut i: usize| {
        while digit(i) {
            i += 1;
        }
        i
    };
    let mut i = usize::from(rest[0] == b'-');
    match rest.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(i + 1),
        _ => return None,
    }
    if rest.get(i) == Some(&b'.') {
        if !digit(i + 1) {
            return None;
        }
        i = digits(i + 1);
    }
    if matches!(rest.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(rest.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digit(i) {
            return None;
        }
        i = digits(i);
    }
    Some(at + i)
}

/// Stage 1 with AVX2 and the carry-less multiply, stage 2 as each block's tokens come.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;
    use std::ops::ControlFlow;

    use super::{Stop, Walk};
    use crate::session::skim::{Scan, each_block, x86 as skim};

    #[target_feature(enable = "avx2,pclmulqdq")]
    pub(super) fn check<const SNIFF: bool>(line: &[u8]) -> Option<bool> {
        let mut scan = Scan::default();
        let mut walk = Walk::<SNIFF>::new();
        // The last byte of the block before is part of a scalar.
        let mut in_scalar = 0;
        let walked = each_block(line, |base, block| {
            let Some((quotes, inside)) =
                scan.strings(line, base, &skim::masks(block), |x| skim::prefix_xor(x))
            else {
                return ControlFlow::Break(Stop::NotJson);
            };
            let (space, structural) = classify(block);
            let strings = inside | quotes;
            let structural = structural & !strings;
            let scalar = !(strings | space | structural);
            let mut tokens = structural | (quotes & inside) | (scalar & !(scalar << 1 | in_scalar));
            in_scalar = scalar >> 63;
            while tokens != 0 {
                if let Err(stop) = walk.token(line, base + tokens.trailing_zeros() as usize) {
                    return ControlFlow::Break(stop);
                }
                tokens &= tokens - 1;
            }
            ControlFlow::Continue(())
        });
        match walked {
            ControlFlow::Break(Stop::NotJson) => return Some(false),
            ControlFlow::Break(Stop::Unsure) => return None,
            ControlFlow::Continue(()) => {}
        }
        Some(!scan.in_string() && walk.is_done())
    }

    /// JSON's white space and its structural characters in `block`, as simdjson finds them: a
    /// byte is looked up in a table by its low nibble, and is of that kind when it is the entry.
    /// (`[` and `]` are `{` and `}` with bit 5 clear, so bit 5 is set before comparing.)
    #[target_feature(enable = "avx2")]
    fn classify(block: &[u8; 64]) -> (u64, u64) {
        let space_table = _mm256_setr_epi8(
            32, 100, 100, 100, 17, 100, 113, 2, 100, 9, 10, 112, 100, 13, 100, 100, 32, 100, 100, 100, 17,
            100, 113, 2, 100, 9, 10, 112, 100, 13, 100, 100,
        );
        let structural_table = _mm256_setr_epi8(
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 58, 123, 44, 125, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 58, 123, 44,
            125, 0, 0,
        );
        let half = |at: usize| {
            // SAFETY: `at` is 0 or 32, so 32 bytes of the block are read (unaligned).
            let v = unsafe { _mm256_loadu_si256(block.as_ptr().add(at).cast()) };
            let space = _mm256_cmpeq_epi8(v, _mm256_shuffle_epi8(space_table, v));
            let structural = _mm256_cmpeq_epi8(
                _mm256_or_si256(v, _mm256_set1_epi8(0x20)),
                _mm256_shuffle_epi8(structural_table, v),
            );
            [space, structural].map(|m| u64::from(_mm256_movemask_epi8(m) as u32) << at)
        };
        let (low, high) = (half(0), half(32));
        (low[0] | high[0], low[1] | high[1])
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::OnceLock;

    use proptest::prelude::*;

    use super::*;
    use crate::catalog::lines::{is_json_by_serde, is_sniffed_json_by_serde};

    #[test]
    fn reads_json_as_serde_does() {
        let long = "x".repeat(200);
        for (text, json) in [
            ("{}", true),
            ("[]", true),
            ("[1,2.5e3,-0,null,true,false,\"a\\u00e9\"]", true),
            (r#"{"a" : [ {"b":1e400} ] ,"c":"\ud800"}"#, true),
            ("0", true),
            ("\"x\"", true),
            ("-", false),
            ("01", false),
            ("1.", false),
            ("1e", false),
            ("[1,]", false),
            ("{\"a\":1,}", false),
            ("{\"a\" 1}", false),
            ("[1 2]", false),
            ("{} {}", false),
            ("[1],[2]", false),
            ("1,2", false),
            ("nul", false),
            ("nullx", false),
            ("[tru]", false),
            ("\"a\u{1}\"", false),
            ("\"a\\x\"", false),
            ("[\"a]", false),
            ("{\"a\":1]", false),
            ("[1}", false),
            ("]", false),
            ("[1\u{c}]", false),
        ] {
            let text = text.replace("x\"", &format!("{long}\""));
            assert_eq!(is_json(text.as_bytes()), Some(json), "{text}");
        }
        assert_eq!(is_json(b"[\"\xff\"]"), Some(true));
        assert_eq!(is_json(&[b'['; 65]), None);
    }

    #[test]
    fn a_sniffed_line_is_json_with_its_sniffed_keys_once_each() {
        let line = r#"{"type":"message","id":"a","parentId":null,"message":{"role":"toolResult","content":[{"type":"text","id":"q","text":"x"}],"x":{"role":1}},"y":{"id":2}}"#;
        assert_eq!(is_sniffed_json(line.as_bytes()), Some(true));
        for (from, to, unique) in [
            (r#""y":"#, r#""id":3,"y":"#, Some(false)),
            (r#""x":"#, r#""role":"u","x":"#, Some(false)),
            (r#""y":"#, r#""message":[],"y":"#, Some(false)),
            (r#""y":"#, r#""\u0069d":3,"y":"#, None),
            (r#""x":"#, r#""é":1,"x":"#, None),
            (r#""y":{"id":2}"#, r#""y":"#, Some(false)),
        ] {
            let changed = line.replacen(from, to, 1);
            assert_eq!(is_sniffed_json(changed.as_bytes()), unique, "{changed}");
        }
        assert_eq!(is_sniffed_json(br#"{"type":"x","message":"text"}"#), None);
        assert_eq!(is_sniffed_json(br#"{"type":"x","message":[{"role":1,"role":2}]}"#), Some(true));
    }

    /// The lines of the test fixtures' sessions (up to 64 KB each): pi's shapes, long tool outputs,
    /// damaged and odd lines.
    fn fixture_lines() -> &'static [Vec<u8>] {
        static LINES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
        fn walk(dir: &Path, lines: &mut Vec<Vec<u8>>) {
            for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, lines);
                } else if path.extension().is_some_and(|e| e == "jsonl") {
                    let bytes = std::fs::read(&path).unwrap();
                    lines.extend(
                        bytes.split(|b| *b == b'\n').filter(|l| l.len() <= 1 << 16).map(<[u8]>::to_vec),
                    );
                }
            }
        }
        LINES.get_or_init(|| {
            let mut lines = Vec::new();
            walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"), &mut lines);
            lines.sort();
            lines.dedup();
            assert!(lines.len() > 100, "{} fixture lines", lines.len());
            lines
        })
    }

    /// Pieces heavy in JSON syntax, with control bytes, invalid UTF-8 and multi-byte characters.
    fn piece() -> impl Strategy<Value = &'static [u8]> {
        prop::sample::select(
            [
                "{",
                "}",
                "[",
                "]",
                ":",
                ",",
                "\"",
                "\\",
                " ",
                "u",
                "0",
                "1",
                "9",
                "e",
                "E",
                "+",
                "-",
                ".",
                "t",
                "f",
                "n",
                "r",
                "l",
                "a",
                "s",
                "true",
                "false",
                "null",
                "\\u",
                "\\ud800",
                "\\n",
                "1e400",
                "-0.5",
                "\"k\":",
                "\"id\":",
                "\"type\":\"x\",",
                "\"role\":",
                "\"message\":",
                ",\"message\":{\"role\":\"a\"}",
                "\"\\u0069d\":",
                "\"\u{e9}\":",
                "\u{0}",
                "\u{1}",
                "\u{1f}",
                "\t",
                "\n",
                "\r",
                "\u{c}",
                "\u{7f}",
                "é",
                "😀",
                "\u{a0}",
                "\u{feff}",
            ]
            .map(str::as_bytes)
            .into_iter()
            .chain([&b"\xff"[..], b"\x80", b"\xc3", b"\xed\xa0\x80"])
            .collect::<Vec<_>>(),
        )
    }

    /// One edit: insert a piece, delete a few bytes or replace one, at a place in the line.
    #[derive(Debug, Clone)]
    enum Edit {
        Insert(prop::sample::Index, &'static [u8]),
        Delete(prop::sample::Index, usize),
        Replace(prop::sample::Index, &'static [u8]),
        CutOff(prop::sample::Index),
        /// A key and value after one of the line's `{` or `,`: a sniffed key repeated, mostly.
        Member(prop::sample::Index, &'static str),
    }

    fn edit() -> impl Strategy<Value = Edit> {
        prop_oneof![
            3 => (any::<prop::sample::Index>(), piece()).prop_map(|(at, p)| Edit::Insert(at, p)),
            2 => (any::<prop::sample::Index>(), 1usize..4).prop_map(|(at, n)| Edit::Delete(at, n)),
            3 => (any::<prop::sample::Index>(), piece()).prop_map(|(at, p)| Edit::Replace(at, p)),
            1 => any::<prop::sample::Index>().prop_map(Edit::CutOff),
            2 => (
                any::<prop::sample::Index>(),
                prop::sample::select(vec![
                    r#""id":"b","#,
                    r#""type":"x","#,
                    r#""parentId":null,"#,
                    r#""message":{"role":"u"},"#,
                    r#""role":"u","#,
                    r#""\u0069d":1,"#,
                    r#""x":1,"#,
                ])
            )
                .prop_map(|(at, m)| Edit::Member(at, m)),
        ]
    }

    fn apply(line: &mut Vec<u8>, edit: &Edit) {
        let at = |i: &prop::sample::Index, len: usize| i.index(len + 1);
        match edit {
            Edit::Insert(i, p) => {
                let at = at(i, line.len());
                line.splice(at..at, p.iter().copied());
            }
            Edit::Delete(i, n) => {
                let at = at(i, line.len());
                line.drain(at..(at + n).min(line.len()));
            }
            Edit::Replace(i, p) if !line.is_empty() => {
                let at = i.index(line.len());
                line.splice(at..at + 1, p.iter().copied());
            }
            Edit::Replace(..) => {}
            Edit::CutOff(i) => line.truncate(at(i, line.len())),
            Edit::Member(i, member) => {
                let opens: Vec<usize> = (0..line.len()).filter(|&j| matches!(line[j], b'{' | b',')).collect();
                if !opens.is_empty() {
                    let at = opens[i.index(opens.len())] + 1;
                    line.splice(at..at, member.bytes());
                }
            }
        }
    }

    /// Valid JSON of any shape, with strings long enough for the skim to cut.
    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            "\\PC{0,8}".prop_map(Value::String),
            (0usize..3000, "[a-z\"\\\\/\n\u{1}é😀]{0,3}")
                .prop_map(|(n, s)| Value::String("x".repeat(n) + &s + &"y".repeat(n % 70))),
        ];
        leaf.prop_recursive(6, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec(("\\PC{0,6}", inner), 0..8)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    /// The structural check, where it decides, says what serde says, on the line as given and
    /// without its white space; and [`crate::catalog::lines::is_json`] says what serde says.
    fn agrees(line: &[u8]) -> Result<(), TestCaseError> {
        let text = crate::session::line::json_text(line);
        for bytes in [Some(line), text].into_iter().flatten() {
            if let Some(json) = is_json(bytes) {
                prop_assert_eq!(json, is_json_by_serde(bytes), "{:?}", String::from_utf8_lossy(bytes));
            }
        }
        prop_assert_eq!(crate::catalog::lines::is_json(line), text.is_some_and(is_json_by_serde));
        for bytes in [Some(line), text].into_iter().flatten() {
            if let Some(unique) = is_sniffed_json(bytes) {
                prop_assert_eq!(
                    unique,
                    is_sniffed_json_by_serde(bytes),
                    "sniffed: {:?}",
                    String::from_utf8_lossy(bytes)
                );
            }
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn mutated_pi_lines_are_json_exactly_when_serde_says(
            line in any::<prop::sample::Index>(),
            edits in prop::collection::vec(edit(), 0..6),
        ) {
            let lines = fixture_lines();
            let mut line = lines[line.index(lines.len())].clone();
            for edit in &edits {
                apply(&mut line, edit);
            }
            agrees(&line)?;
        }

        #[test]
        fn json_ish_bytes_are_json_exactly_when_serde_says(
            pieces in prop::collection::vec(piece(), 0..120),
            pad in 0usize..80,
        ) {
            let mut line = vec![b' '; pad];
            line.extend(pieces.concat());
            agrees(&line)?;
        }

        #[test]
        fn mutated_json_is_json_exactly_when_serde_says(
            value in json_value(),
            pretty in any::<bool>(),
            second in prop::option::of((prop::sample::select(vec![",", " ", ":", ""]), json_value())),
            edits in prop::collection::vec(edit(), 0..3),
        ) {
            let write = |v| if pretty { serde_json::to_vec_pretty(v) } else { serde_json::to_vec(v) }.unwrap();
            let mut line = write(&value);
            if edits.is_empty() {
                prop_assert!(crate::catalog::lines::is_json(&line));
            }
            if let Some((between, value)) = &second {
                line.extend(between.bytes().chain(write(value)));
            }
            for edit in &edits {
                apply(&mut line, edit);
            }
            agrees(&line)?;
        }
    }
}
