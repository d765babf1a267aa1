//! The structural validator held to the serde checks it stands in for: known lines, and property
//! tests over mutated pi lines, JSON-ish bytes and mutated generated JSON.

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

#[test]
fn the_harvest_reads_pi_lines_as_the_typed_parse_does() {
    let mut harvested = 0;
    for line in fixture_lines() {
        if let Some((through_harvest, typed)) = crate::catalog::lines::harvest_and_typed(line) {
            assert_eq!(through_harvest, typed, "{}", String::from_utf8_lossy(line));
            harvested += 1;
        }
    }
    assert!(harvested > 500, "the harvest read {harvested} fixture lines");
}

#[test]
fn the_harvest_leaves_to_the_typed_parse_what_it_reads_its_own_way() {
    let line = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"toolCall","text":"no"}],"usage":{"input":1,"cost":{"total":0.5}},"timestamp":5}}"#;
    assert!(harvest(line.as_bytes()).is_some());
    for (from, to) in [
        (r#""usage":"#, r#""content":"x","usage":"#),
        (r#""usage":"#, r#""timestamp":1,"usage":"#),
        (r#""timestamp":5"#, r#""timestamp":5,"usage":{}"#),
        (r#":5}}"#, r#":5},"timestamp":"2026-01-01T00:00:00.000Z"}"#),
        (r#""text":"hi""#, r#""text":"hi","text":"ho""#),
        (r#""type":"text","#, r#""type":"text","type":"x","#),
        (r#""input":1"#, r#""input":1,"input":2"#),
        (r#""total":0.5"#, r#""total":0.5,"total":1"#),
        (r#""cost":"#, r#""cost":1,"cost":"#),
        (r#""text":"hi""#, r#""te\u0078t":"hi""#),
        (r#""timestamp":5"#, r#""time\u0073tamp":5"#),
    ] {
        let changed = line.replacen(from, to, 1);
        assert!(harvest(changed.as_bytes()).is_none(), "{changed}");
    }
    for (from, to) in [
        (r#""cost":{"total":0.5}"#, r#""x":{"input":1,"input":2}"#),
        (r#""hi""#, r#""h\u00e9\n""#),
        (r#""text":"hi""#, r#""text":null"#),
        (r#"[{"type":"text","text":"hi"},"#, r#"[1,"s",[{"type":"text","text":"x"}],"#),
    ] {
        let changed = line.replacen(from, to, 1);
        let (through_harvest, typed) =
            crate::catalog::lines::harvest_and_typed(changed.as_bytes()).expect("the harvest reads it");
        assert_eq!(through_harvest, typed, "{changed}");
    }
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
                lines.extend(bytes.split(|b| *b == b'\n').filter(|l| l.len() <= 1 << 16).map(<[u8]>::to_vec));
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
                r#""content":"c","#,
                r#""content":null,"#,
                r#""content":[{"type":"text","text":"d"}],"#,
                r#""timestamp":-0,"#,
                r#""timestamp":"t","#,
                r#""usage":{"input":2,"cost":{"total":1e400}},"#,
                r#""input":"3","#,
                r#""output":1.5e2,"#,
                r#""cost":{"total":-0},"#,
                r#""total":4,"#,
                r#""type":"text","#,
                r#""text":"e","#,
                r#""text":null,"#,
                r#""text":7,"#,
                r#""te\u0078t":"f","#,
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
    if let Some((harvested, typed)) = crate::catalog::lines::harvest_and_typed(line) {
        prop_assert_eq!(harvested, typed, "harvested: {:?}", String::from_utf8_lossy(line));
    }
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
