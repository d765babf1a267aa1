//! The typed entries serialize byte for byte as pi writes them: every line of every session pi
//! 1.6.0 wrote (tests/fixtures/agent) is parsed into a typed value, serialized again, and compared
//! with the original bytes, and no line of them needs the verbatim `Other` fallback. Hand-made edge
//! files, whose lines pi did not write, must at least come back as the same JSON value.

use std::path::Path;

mod common;

use common::FIXTURES;
use common::fixtures::jsonl_files;
use pitree::manager::{AgentMessage, ContentBlock, SessionEntry, SessionHeader, to_json_string};
use serde_json::Value;

/// Blocks of a message that fell back to `Other`.
fn other_blocks(m: &AgentMessage) -> usize {
    let blocks: &[ContentBlock] = match m {
        AgentMessage::Assistant(a) => &a.content,
        AgentMessage::ToolResult(t) => &t.content,
        _ => &[],
    };
    blocks.iter().filter(|b| matches!(b, ContentBlock::Other(_))).count()
}

#[test]
fn every_line_pi_wrote_round_trips_byte_for_byte_through_typed_entries() {
    let files = jsonl_files(&Path::new(FIXTURES).join("agent"));
    assert_eq!(files.len(), 14);
    let mut lines = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut iter = text.lines();
        let header: SessionHeader = serde_json::from_str(iter.next().unwrap()).unwrap();
        assert_eq!(to_json_string(&header), text.lines().next().unwrap());
        for (n, line) in iter.enumerate() {
            let entry: SessionEntry = serde_json::from_str(line).unwrap();
            let where_ = format!("{}:{}", file.display(), n + 2);
            assert!(!matches!(entry, SessionEntry::Other(_)), "{where_} fell back to Other");
            if let Some(m) = entry.message() {
                assert!(!matches!(m, AgentMessage::Other(_)), "{where_} message");
                assert_eq!(other_blocks(m), 0, "{where_} blocks");
            }
            assert_eq!(to_json_string(&entry), line, "{where_}");
            lines += 1;
        }
    }
    assert!(lines > 20_000, "{lines}");
}

#[test]
fn hand_made_lines_come_back_as_the_same_json() {
    for file in jsonl_files(&Path::new(FIXTURES).join("edge")) {
        let bytes = std::fs::read(&file).unwrap();
        for line in String::from_utf8_lossy(&bytes).lines() {
            let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(line.trim()) else {
                continue;
            };
            let back: Value = if value["type"] == "session" {
                match serde_json::from_value::<SessionHeader>(value.clone()) {
                    Ok(h) => serde_json::from_str(&to_json_string(&h)).unwrap(),
                    Err(_) => continue,
                }
            } else {
                let entry: SessionEntry = serde_json::from_value(value.clone()).unwrap();
                serde_json::from_str(&to_json_string(&entry)).unwrap()
            };
            assert_eq!(back, value, "{}", file.display());
        }
    }
}

#[test]
fn unknown_fields_types_and_shapes_are_kept() {
    let line = r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"x","future":1},{"type":"audio","data":"…"}],"api":"a","provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0.000015,"output":1e-7,"cacheRead":0,"cacheWrite":0,"total":0.0000151}},"stopReason":"somethingNew","timestamp":1,"later":[1,2]},"x":true}"#;
    let entry: SessionEntry = serde_json::from_str(line).unwrap();
    let SessionEntry::Message(m) = &entry else { panic!("not a message: {entry:?}") };
    let AgentMessage::Assistant(a) = &m.message else { panic!("not an assistant message") };
    assert!(matches!(a.content[1], ContentBlock::Other(_)));
    assert_eq!(to_json_string(&entry), line);
    let nulls = r#"{"type":"label","id":"b","parentId":"a","timestamp":"t","targetId":"a","label":null}"#;
    let entry: SessionEntry = serde_json::from_str(nulls).unwrap();
    assert!(matches!(entry, SessionEntry::Other(_)));
    assert_eq!(to_json_string(&entry), nulls);
}
