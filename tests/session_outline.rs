//! The outline of a session (what a big session's first frame is drawn from) against the full
//! read: the same tree, damage and traits on every fixture, on hand-made lines that test each way
//! the outline's walk can refuse or misread a line, and on random damage to real pi lines; its
//! entries read whole ([`Session::fill`]) are the full read's; and the frame drawn from it
//! ([`TreeView::preview`]) is the whole session's first frame.

use std::path::{Path, PathBuf};

use pitree::session::entry::Entry;
use pitree::session::line::{Line, parse_line};
use pitree::session::parse::{ParsedFile, outline_file, parse_file};
use pitree::session::walk::{outline_line, whole_line};
use pitree::session::{Ix, Session, context};
use pitree::tui::theme::Theme;
use pitree::tui::tree::{TreeOptions, TreeView};
use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

/// What the outline must agree on with the full read for one entry.
fn shape(e: &Entry) -> String {
    let m = e.message();
    format!(
        "{} {:?} {} {:?} {} {:?} {:?} {} {:?} {:?} {:?} {:?} {:?} {:?}",
        e.id,
        e.parent_id,
        e.timestamp,
        e.time_ms,
        e.line,
        e.span,
        e.traits(),
        e.type_name(),
        m.map(|m| &m.role),
        m.map(|m| &m.stop_reason),
        m.map(|m| (&m.tool_call_id, &m.tool_name, m.has_content)),
        // What `pitree context` reports of the path without reading its entries whole.
        m.map(|m| (&m.provider, &m.model)),
        // Only an assistant's content decides anything in the tree: whether it is empty, the
        // calls tool results look up.
        m.filter(|m| m.role == "assistant").map(|m| m
            .tool_calls
            .iter()
            .map(|c| (c.id.to_string(), c.name.to_string()))
            .collect::<Vec<_>>()),
        m.filter(|m| m.role == "assistant").map(|m| m.text.head.trim().is_empty() && m.text.complete),
    )
}

fn assert_same_tree(outline: &ParsedFile, full: &ParsedFile, what: &str) {
    assert_eq!(outline.header, full.header, "{what}: header");
    assert_eq!(outline.damage, full.damage, "{what}: damage");
    assert_eq!(outline.leaf, full.leaf, "{what}: leaf");
    assert_eq!(outline.facts, full.facts, "{what}: facts");
    let shapes = |f: &ParsedFile| f.entries.iter().map(shape).collect::<Vec<_>>();
    assert_eq!(shapes(outline), shapes(full), "{what}: entries");
}

fn fixture_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 30, "the fixtures are there");
    files
}

#[test]
fn the_outline_of_every_fixture_is_the_full_read_of_its_tree() {
    for file in fixture_files() {
        match (outline_file(&file), parse_file(&file)) {
            (Ok(outline), Ok(full)) => assert_same_tree(&outline, &full, &file.display().to_string()),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            (a, b) => panic!("{}: outline {:?}, full {:?}", file.display(), a.is_ok(), b.is_ok()),
        }
    }
}

/// Every line of every fixture: the walk's whole read is the full reader's entry.
#[test]
fn every_fixture_line_read_whole_by_the_walk_is_the_full_readers() {
    let mut messages = 0;
    for file in fixture_files() {
        let bytes = std::fs::read(&file).unwrap();
        let mut start = 0;
        for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
            let (walked, full) =
                (whole_line(line, n as u32 + 1, start), parse_line(line, n as u32 + 1, start));
            assert_eq!(format!("{walked:?}"), format!("{full:?}"), "{}:{}", file.display(), n + 1);
            messages += usize::from(matches!(&walked, Line::Entry(e) if e.message().is_some()));
            start += line.len() as u64 + 1;
        }
    }
    assert!(messages > 1000, "{messages} message lines");
}

/// What a line read as, for comparing the two readers.
fn classify(line: Line) -> String {
    match line {
        Line::Entry(e) => format!("entry {}", shape(&e)),
        Line::NoId(e) => format!("no id {}", shape(&e)),
        Line::Header(_) => "header".into(),
        other => format!("{other:?}"),
    }
}

/// One line read three ways: its outline agrees with the full reader on the tree, and the walk's
/// whole read is the full reader's entry, field for field.
fn same_line(line: &str) {
    let bytes = line.as_bytes();
    assert_eq!(classify(outline_line(bytes, 2, 100)), classify(parse_line(bytes, 2, 100)), "{line}");
    assert_same_whole(bytes);
}

fn assert_same_whole(bytes: &[u8]) {
    let what = String::from_utf8_lossy(bytes);
    assert_eq!(
        format!("{:?}", whole_line(bytes, 2, 100)),
        format!("{:?}", parse_line(bytes, 2, 100)),
        "{what}"
    );
}

const HEAD: &str = r#"{"type":"message","id":"a1","parentId":"p0","timestamp":"2026-01-01T00:00:00.000Z""#;

#[test]
fn lines_the_walk_reads_or_hands_on_read_as_the_full_reader_reads_them() {
    let long = "x".repeat(3000);
    let blank_long = " ".repeat(3000);
    let lines = [
        // Messages of each role, as pi writes them.
        format!(r#"{HEAD},"message":{{"role":"user","content":[{{"type":"text","text":"hi"}}]}}}}"#),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"thinking","thinking":"{long}"}},{{"type":"toolCall","id":"call_1","name":"read","arguments":{{"path":"/a"}}}}],"usage":{{"input":1,"cost":{{"total":0.10607924999999999}}}},"stopReason":"toolUse","timestamp":1771114541811}}}}"#
        ),
        format!(
            r#"{HEAD},"message":{{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{{"type":"text","text":"{long}"}}],"isError":false}}}}"#
        ),
        // The provider and model `pitree context` reports: as pi writes them, escaped, not a
        // string, written twice.
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[],"api":"x","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop"}}}}"#
        ),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[],"provider":"an\u0074hropic","model":"m\"1"}}}}"#
        ),
        format!(r#"{HEAD},"message":{{"role":"assistant","content":[],"provider":7,"model":null}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"assistant","content":[],"provider":"a","provider":"b"}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"assistant","content":[],"model":"a","model":"b"}}}}"#),
        // What makes an answer empty or not: blank, long, starting blank, escaped, string content.
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","text":"  "}}],"stopReason":"stop"}}}}"#
        ),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","text":"{blank_long}"}}],"stopReason":"stop"}}}}"#
        ),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","text":"{blank_long}x"}}],"stopReason":"stop"}}}}"#
        ),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","text":"\n\n{long}"}}]}}}}"#
        ),
        format!(r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","text":"\u00a0"}}]}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"assistant","content":"  ","stopReason":"stop"}}}}"#),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","text":"{}"}},{{"type":"text","text":" "}}]}}}}"#,
            " ".repeat(256)
        ),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","text":"{}"}},{{"type":"text","text":"x"}}]}}}}"#,
            " ".repeat(250)
        ),
        format!(r#"{HEAD},"message":{{"role":"assistant","content":[{{"text":"x","type":"text"}}]}}}}"#),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","type":"image","text":"x"}}]}}}}"#
        ),
        format!(r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","text":"\u0041"}}]}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","text":"\t"}}]}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","text":"é"}}]}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"assistant","content":null,"stopReason":"aborted"}}}}"#),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","text":7}},42,null]}}}}"#
        ),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"toolCall","id":7,"name":null}}]}}}}"#
        ),
        format!(r#"{HEAD},"message":{{"role":"hookMessage","content":"x"}}}}"#),
        format!(r#"{HEAD},"message":null}}"#),
        format!(r#"{HEAD},"message":"text"}}"#),
        format!(r#"{HEAD},"message":[1,2]}}"#),
        format!(r#"{HEAD}}}"#),
        // Lines the walk hands to the full reader.
        format!(r#"{HEAD},"message":{{"content":[{{"type":"text","text":""}}],"role":"assistant"}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"user","role":"assistant"}}}}"#),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c1","name":"read"}}],"content":[]}}}}"#
        ),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c1","id":"c2"}}]}}}}"#
        ),
        format!(r#"{HEAD},"id":"a2","message":{{"role":"user"}}}}"#),
        r#"{"type":"message","id":"a\u0031","parentId":"p0","message":{"role":"user"}}"#.to_string(),
        r#"{"type":"message","\u0069d":"a1","id":"a2","message":{"role":"user"}}"#.to_string(),
        r#"{"type":"message","id":"a1","message":{"role":"user","content":"\ud800"}}"#.to_string(),
        r#"{"type":"message","id":"a1","message":{"role":"user","n":1e400}}"#.to_string(),
        format!(
            r#"{{"type":"message","id":"a1","message":{{"role":"user","deep":{}1{}}}}}"#,
            "[".repeat(100),
            "]".repeat(100)
        ),
        format!(
            r#"{{"type":"message","id":"a1","message":{{"role":"user","deep":{}1{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        ),
        // Malformed: cut off, bad numbers and literals, raw control characters, trailing junk.
        format!(r#"{HEAD},"message":{{"role":"user","content":[{{"type":"text","text":"cut"#),
        format!(r#"{HEAD},"message":{{"role":"user"}}"#),
        format!(r#"{HEAD},"message":{{"role":"user","n":01}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"user","n":1.}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"user","n":-}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"user","n":.5}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"user","n":1e}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"user","ok":-0.5e+3,"t":true,"f":false,"x":nul}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"user","t":tru}}}}"#),
        format!("{HEAD},\"message\":{{\"role\":\"user\",\"content\":\"a\tb\"}}}}"),
        format!("{HEAD},\"message\":{{\"role\":\"user\",\"content\":\"{long}\u{1}\"}}}}"),
        format!(r#"{HEAD},"message":{{"role":"user","content":"\x"}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"user","content":"\u12"}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"user"}}}} x"#),
        format!(r#"{HEAD},"message":{{"role":"user",}}}}"#),
        format!(r#"{HEAD},"message":{{"role" "user"}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"user","a":[1,]}}}}"#),
        format!(r#"{HEAD},"message":{{"role":"user"}},}}"#),
        // Not messages, or not entries.
        r#"{"type":"label","id":"l1","parentId":"a1","targetId":"a1","label":"x"}"#.to_string(),
        r#"{"type":"message","id":7,"message":{"role":"user"}}"#.to_string(),
        r#"{"type":"message","message":{"role":"user"}}"#.to_string(),
        r#"{"type":"session","version":3,"id":"s"}"#.to_string(),
        "null".to_string(),
        "[1]".to_string(),
        "  ".to_string(),
        " {\"type\":\"message\",\"id\":\"a1\"} ".to_string(),
    ];
    for line in &lines {
        same_line(line);
    }
    let mut invalid_utf8 = format!(r#"{HEAD},"message":{{"role":"user","content":"x"#).into_bytes();
    invalid_utf8.extend_from_slice(b"\xff\"}}");
    let is_entry = |l: Line| matches!(l, Line::Entry(_));
    assert_eq!(is_entry(outline_line(&invalid_utf8, 2, 100)), is_entry(parse_line(&invalid_utf8, 2, 100)));
    assert_same_whole(&invalid_utf8);
}

/// A few lines as pi writes them, to damage.
fn pi_lines() -> Vec<String> {
    let long = "lorem ipsum ".repeat(120);
    vec![
        format!(
            r#"{HEAD},"message":{{"role":"user","content":[{{"type":"text","text":"fix the \"parser\"\n"}}],"timestamp":1}}}}"#
        ),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","text":"{long}"}},{{"type":"toolCall","id":"toolu_01","name":"bash","arguments":{{"command":"ls -la"}}}}],"usage":{{"input":10,"output":2.5e-3}},"stopReason":"toolUse"}}}}"#
        ),
        format!(
            r#"{HEAD},"message":{{"role":"toolResult","toolCallId":"toolu_01","toolName":"bash","content":[{{"type":"text","text":"{long}"}}],"details":{{"exit":0}},"isError":false}}}}"#
        ),
        format!(
            r#"{HEAD},"message":{{"role":"assistant","content":[{{"type":"text","text":" "}}],"stopReason":"stop"}}}}"#
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Any byte of a pi line replaced, removed or doubled: the outline reads it as the full reader
    /// does (or hands it on).
    #[test]
    fn a_damaged_pi_line_reads_as_the_full_reader_reads_it(which in 0usize..4, at in any::<prop::sample::Index>(), byte in prop::sample::select(b"{}[]\":,\\ 0-.eEtnu\x01\xc3x".to_vec()), how in 0u8..3) {
        let mut line = pi_lines()[which].clone().into_bytes();
        let at = at.index(line.len());
        match how {
            0 => line[at] = byte,
            1 => { line.remove(at); }
            _ => line.insert(at, line[at]),
        }
        prop_assert_eq!(classify(outline_line(&line, 2, 100)), classify(parse_line(&line, 2, 100)));
        prop_assert_eq!(format!("{:?}", whole_line(&line, 2, 100)), format!("{:?}", parse_line(&line, 2, 100)));
    }
}

#[test]
fn an_outline_filled_whole_is_the_full_read() {
    for file in fixture_files() {
        let (Ok(mut outline), Ok(full)) = (Session::outline(&file), Session::open(&file)) else { continue };
        let all: Vec<Ix> = (0..outline.entries().len() as Ix).collect();
        outline.fill(all).unwrap();
        assert_eq!(outline.entries(), full.entries(), "{}", file.display());
    }
}

/// `pitree context` reads no entry whole from an outline: its messages, thinking level and model
/// at the leaf and at up to 64 entries spread over every fixture are the full read's.
#[test]
fn the_context_of_an_outline_is_the_full_reads() {
    let mut models = 0;
    for file in fixture_files() {
        let (Ok(outline), Ok(full)) = (Session::outline(&file), Session::open(&file)) else { continue };
        let n = full.entries().len();
        let spread = (0..n as Ix).step_by(n.div_ceil(64).max(1)).map(Some);
        for leaf in spread.chain([full.graph.leaf(), None]) {
            let what = format!("{} at {leaf:?}", file.display());
            assert_eq!(outline.context_messages(leaf), full.context_messages(leaf), "{what}");
            let settings = context::settings(&full.graph, full.entries(), leaf);
            assert_eq!(context::settings(&outline.graph, outline.entries(), leaf), settings, "{what}");
            models += usize::from(settings.model.is_some());
        }
    }
    assert!(models > 100, "{models} contexts with a model");
}

/// A session of `n` turns (user, assistant calling a tool, its result, an answer), forking
/// every 40 entries, written to `dir`.
fn generated(dir: &Path, n: usize) -> PathBuf {
    let mut lines = vec![
        r#"{"type":"session","version":3,"id":"gen","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#
            .to_string(),
    ];
    let mut parent = "null".to_string();
    let mut fork = "null".to_string();
    for i in 0..n {
        let id = format!("e{i:05}");
        let body = match i % 4 {
            0 => format!(r#"{{"role":"user","content":[{{"type":"text","text":"question {i}"}}]}}"#),
            1 => format!(
                r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"c{i}","name":"read","arguments":{{"path":"/w/f{i}.rs","offset":3}}}}],"stopReason":"toolUse"}}"#
            ),
            2 => format!(
                r#"{{"role":"toolResult","toolCallId":"c{}","toolName":"read","content":[{{"type":"text","text":"{}"}}]}}"#,
                i - 1,
                "line ".repeat(400)
            ),
            _ => format!(
                r#"{{"role":"assistant","content":[{{"type":"text","text":"answer {i}"}}],"stopReason":"stop"}}"#
            ),
        };
        let from = if i % 40 == 0 && i > 0 { fork.clone() } else { parent.clone() };
        lines.push(format!(
            r#"{{"type":"message","id":"{id}","parentId":{from},"timestamp":"2026-01-01T00:00:{:02}.000Z","message":{body}}}"#,
            i % 60
        ));
        if i % 40 == 20 {
            fork = format!("\"{id}\"");
        }
        parent = format!("\"{id}\"");
    }
    let path = dir.join("gen.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn full_frame(session: Session, options: TreeOptions, area: Rect) -> Vec<String> {
    let view = TreeView::open(session, options);
    let mut terminal = Terminal::new(TestBackend::new(area.width, area.height)).unwrap();
    terminal.draw(|f| view.draw(f, f.area(), &Theme::dark())).unwrap();
    lines(terminal.backend().buffer())
}

fn lines(buffer: &ratatui::buffer::Buffer) -> Vec<String> {
    let area = buffer.area;
    (0..area.height).map(|y| (0..area.width).map(|x| buffer[(x, y)].symbol()).collect::<String>()).collect()
}

#[test]
fn the_frame_drawn_from_an_outline_is_the_whole_sessions_first_frame() {
    let dir = tempfile::tempdir().unwrap();
    let file = generated(dir.path(), 600);
    let full = Session::open(&file).unwrap();
    let early = full.entries()[45].id.to_string();
    for (area, select) in [
        (Rect::new(0, 0, 120, 40), None),
        (Rect::new(0, 0, 80, 15), None),
        (Rect::new(0, 0, 100, 30), Some(early)),
    ] {
        let options = || TreeOptions { select: select.clone(), ..TreeOptions::default() };
        let outline = Session::outline(&file).unwrap();
        let preview = lines(&TreeView::open(outline, options()).preview(area, &Theme::dark()).unwrap());
        let whole = full_frame(full.clone(), options(), area);
        let status = preview.iter().position(|l| l.contains("Reading the whole session…"));
        let status =
            status.unwrap_or_else(|| panic!("the preview says the rest is coming:\n{}", preview.join("\n")));
        for (y, (a, b)) in preview.iter().zip(&whole).enumerate() {
            if y != status {
                assert_eq!(
                    a,
                    b,
                    "line {y} at {area:?}\npreview:\n{}\nwhole:\n{}",
                    preview.join("\n"),
                    whole.join("\n")
                );
            }
        }
        assert!(whole.iter().any(|l| l.contains("[read: /w/f")), "tool results show their calls");
    }
}
