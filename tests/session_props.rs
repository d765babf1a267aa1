//! Property tests for the session model: random session trees (branches, labels, renames,
//! compactions) written as JSONL and parsed back keep every graph invariant; random damage to real
//! pi files never panics and always yields a well-formed tree.

use std::collections::HashMap;
use std::path::PathBuf;

use pitree::session::{Session, parse};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    User { parent: Option<usize>, ms: u32 },
    Assistant { parent: Option<usize>, ms: u32 },
    Label { target: usize, label: Option<u8> },
    Rename { name: Option<u8> },
    Compaction { kept: usize },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (proptest::option::weighted(0.9, any::<usize>()), 0u32..50).prop_map(|(parent, ms)| Op::User { parent, ms }),
        4 => (proptest::option::weighted(0.95, any::<usize>()), 0u32..50).prop_map(|(parent, ms)| Op::Assistant { parent, ms }),
        1 => (any::<usize>(), proptest::option::of(0u8..4)).prop_map(|(target, label)| Op::Label { target, label }),
        1 => proptest::option::of(0u8..3).prop_map(|name| Op::Rename { name }),
        1 => any::<usize>().prop_map(|kept| Op::Compaction { kept }),
    ]
}

/// The JSONL text, plus what the test expects: parents, labels, name.
struct Written {
    text: String,
    parents: Vec<Option<usize>>,
    labels: HashMap<String, String>,
    name: Option<String>,
}

fn write(ops: &[Op]) -> Written {
    let mut lines = vec![
        r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#
            .to_string(),
    ];
    let mut parents = Vec::new();
    let mut labels = HashMap::new();
    let mut name = None;
    for (i, op) in ops.iter().enumerate() {
        let pick = |p: &Option<usize>| p.and_then(|p| (i > 0).then(|| p % i));
        let leaf = i.checked_sub(1);
        let (parent, body) = match op {
            Op::User { parent, ms } => (
                pick(parent),
                format!(r#""message":{{"role":"user","content":"u{i} é \"q\"","timestamp":{ms}}}"#),
            ),
            Op::Assistant { parent, ms } => (
                pick(parent),
                format!(
                    r#""message":{{"role":"assistant","content":[{{"type":"text","text":"a{i}"}}],"timestamp":{ms}}}"#
                ),
            ),
            Op::Label { target, label } => {
                let t = if i > 0 { target % i } else { 0 };
                let tid = format!("{t:08x}");
                match label {
                    Some(l) => {
                        labels.insert(tid.clone(), format!("L{l}"));
                        (leaf, format!(r#""targetId":"{tid}","label":"L{l}""#))
                    }
                    None => {
                        labels.remove(&tid);
                        (leaf, format!(r#""targetId":"{tid}""#))
                    }
                }
            }
            Op::Rename { name: n } => {
                name = n.map(|n| format!("N{n}"));
                (leaf, format!(r#""name":"{}""#, n.map(|n| format!(" N{n} ")).unwrap_or_default()))
            }
            Op::Compaction { kept } => {
                let k = if i > 0 { kept % i } else { 0 };
                (leaf, format!(r#""summary":"s","firstKeptEntryId":"{k:08x}","tokensBefore":1000"#))
            }
        };
        let ty = match op {
            Op::User { .. } | Op::Assistant { .. } => "message",
            Op::Label { .. } => "label",
            Op::Rename { .. } => "session_info",
            Op::Compaction { .. } => "compaction",
        };
        let ms = match op {
            Op::User { ms, .. } | Op::Assistant { ms, .. } => *ms,
            _ => 60,
        };
        let parent_json = parent.map_or("null".to_string(), |p| format!("\"{p:08x}\""));
        lines.push(format!(
            r#"{{"type":"{ty}","id":"{i:08x}","parentId":{parent_json},"timestamp":"2025-01-01T00:00:{:02}.000Z",{body}}}"#,
            ms % 60
        ));
        parents.push(parent);
    }
    Written { text: lines.join("\n") + "\n", parents, labels, name }
}

fn check_invariants(s: &Session) {
    let g = &s.graph;
    let n = s.entries().len();
    let mut seen = vec![0u32; n];
    let mut stack: Vec<u32> = g.roots().collect();
    while let Some(i) = stack.pop() {
        seen[i as usize] += 1;
        assert!(seen[i as usize] == 1, "entry {i} reached twice");
        let children = g.children(i);
        for w in children.windows(2) {
            let (a, b) = (s.entry(w[0]).time_ms, s.entry(w[1]).time_ms);
            if let (Some(a), Some(b)) = (a, b) {
                assert!(a <= b, "children of {i} out of time order");
            }
        }
        for &c in children {
            assert_eq!(g.parent(c), Some(i));
            stack.push(c);
        }
    }
    assert!(seen.iter().all(|&c| c == 1), "every entry is in the tree exactly once");
    if let Some(leaf) = g.leaf() {
        assert_eq!(leaf as usize, n - 1);
        let path = g.path_to(leaf);
        assert!(g.parent(path[0]).is_none());
        assert_eq!(*path.last().unwrap(), leaf);
        let context = s.context_entries(Some(leaf));
        assert!(context.iter().all(|c| path.contains(c)));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_trees_parse_back_with_their_structure(ops in proptest::collection::vec(op(), 1..120)) {
        let w = write(&ops);
        let s = Session::from_parsed(parse::parse_bytes(w.text.as_bytes(), PathBuf::from("t.jsonl")).unwrap());
        prop_assert_eq!(s.entries().len(), ops.len());
        prop_assert!(s.file.damage.is_empty());
        for (i, p) in w.parents.iter().enumerate() {
            prop_assert_eq!(s.graph.parent(i as u32).map(|x| x as usize), *p);
        }
        let labels: HashMap<String, String> = s.graph.labels().iter().map(|(k, v)| (k.clone(), v.text.clone())).collect();
        prop_assert_eq!(labels, w.labels);
        prop_assert_eq!(s.graph.name().map(str::to_string), w.name);
        check_invariants(&s);
    }

    #[test]
    fn random_damage_never_panics(seed in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..4), 1..40), cut in any::<usize>()) {
        let base = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/agent/sessions/--home-dev-alpha--/2025-06-03T14-02-40-500Z_01973619-f5f4-737b-b839-e64d93b6cda6.jsonl")).unwrap();
        let mut bytes = base.clone();
        for (pos, byte, how) in seed {
            let i = pos % bytes.len().max(1);
            match how {
                0 => bytes[i] = byte,
                1 => bytes.insert(i, b'\n'),
                2 => { bytes.remove(i); }
                _ => bytes.insert(i, byte),
            }
        }
        bytes.truncate(cut % (bytes.len() + 1));
        if let Ok(parsed) = parse::parse_bytes(&bytes, PathBuf::from("d.jsonl")) {
            check_invariants(&Session::from_parsed(parsed));
        }
    }

    #[test]
    fn random_parent_links_including_cycles_always_form_a_forest(links in proptest::collection::vec(proptest::option::of(any::<usize>()), 1..80)) {
        let n = links.len();
        let mut text = String::from("{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n");
        for (i, l) in links.iter().enumerate() {
            let parent = l.map_or("null".to_string(), |p| format!("\"{:08x}\"", p % (n + 3)));
            text.push_str(&format!("{{\"type\":\"custom\",\"customType\":\"x\",\"id\":\"{i:08x}\",\"parentId\":{parent},\"timestamp\":\"2025-01-01T00:00:00.000Z\"}}\n"));
        }
        let s = Session::from_parsed(parse::parse_bytes(text.as_bytes(), PathBuf::from("c.jsonl")).unwrap());
        check_invariants(&s);
    }
}

/// JSON string contents built from plain, escaped and multi-byte pieces.
fn json_text(max: usize) -> impl Strategy<Value = String> {
    let pieces = [
        "ab",
        "c d ",
        "\\n",
        "\\\"",
        "\\\\",
        "\\u00e9",
        "\\ud83d\\ude00",
        "é",
        "漢",
        "😀",
        "\\t",
        "{\\\"k\\\":1}",
    ];
    proptest::collection::vec(proptest::sample::select(pieces.to_vec()), 0..max).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Long texts are read from a shortened copy of their line (`session::skim`); what an entry
    /// keeps of them must be what it keeps of the whole text.
    #[test]
    fn long_texts_keep_the_same_heads_and_tool_arguments(text in json_text(1200), content in json_text(1200), path in json_text(300)) {
        use pitree::session::{Kind, entry::TextHead, line::{Line, parse_line}, tool_args::of_value};
        let decoded = |raw: &str| serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap();
        let args = format!(r#"{{"path":"{path}","content":"{content}","text":"{text}"}}"#);
        let line = format!(
            r#"{{"type":"message","id":"m","parentId":null,"message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}},{{"type":"toolCall","id":"c","name":"write","arguments":{args}}}]}}}}"#
        );
        let Line::Entry(entry) = parse_line(line.as_bytes(), 1, 0) else { panic!("not an entry: {line}") };
        let Kind::Message(m) = entry.kind else { panic!("not a message") };
        prop_assert_eq!(&m.text, &TextHead::new(&decoded(&text)));
        prop_assert_eq!(&m.tool_calls[0].args, &of_value(&serde_json::from_str(&args).unwrap()));

        let compaction = format!(r#"{{"type":"compaction","id":"k","parentId":"m","summary":"{content}","tokensBefore":1}}"#);
        let Line::Entry(entry) = parse_line(compaction.as_bytes(), 2, 0) else { panic!("not an entry") };
        let Kind::Compaction { summary, .. } = entry.kind else { panic!("not a compaction") };
        prop_assert_eq!(summary, TextHead::new(&decoded(&content)));
    }

    /// Invalid UTF-8 anywhere in a long line, in the part the reader cuts out of long texts or in
    /// the part it keeps, reads as the line's lossy decoding (U+FFFD, as pi's reader decodes it).
    #[test]
    fn a_line_with_invalid_utf8_reads_as_its_lossy_decoding(text in json_text(1500), at in proptest::collection::vec(any::<proptest::sample::Index>(), 1..4)) {
        use pitree::session::line::parse_line;
        let line = format!(
            r#"{{"type":"message","id":"m","parentId":null,"message":{{"role":"user","content":[{{"type":"text","text":"{text}"}}]}}}}"#
        );
        let mut bytes = line.into_bytes();
        for i in at {
            let i = 60 + i.index(bytes.len() - 70);
            bytes.insert(i, 0xFF);
        }
        let lossy = String::from_utf8_lossy(&bytes).into_owned();
        // The lossy line is longer (U+FFFD takes 3 bytes), so only the span may differ.
        let read = |line: &[u8]| {
            let text = format!("{:?}", parse_line(line, 1, 0));
            text[..text.rfind("span:").unwrap_or(text.len())].to_string()
        };
        prop_assert_eq!(read(&bytes), read(lossy.as_bytes()));
    }
}
