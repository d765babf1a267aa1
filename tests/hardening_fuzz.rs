//! Bounded, stable versions of the cargo-fuzz targets in `fuzz/`, run by `cargo test`: the same
//! invariants (`tests/hardening_support`) on proptest inputs — arbitrary bytes, mutations of every
//! real fixture (bytes changed, lines cut, repeated, swapped, run together), and generated
//! pi-shaped sessions — for the session model, the catalog's fast scanner against the full parse,
//! and the picker's search; random key sequences into the tree view and random events into the
//! picker, drawn at every size down to 1×1; a file read again after it grew, from where the first
//! read stopped, against reading it whole. Every crash or divergence the fuzzers found is a
//! regression case at the end.

mod hardening_support;
mod picker_support;

use std::path::Path;

use hardening_support::{Bytes, draw_clean, fast_class, full_class};
use pitree::session::Session;
use pitree::tui::app::{self, Effect, Event};
use proptest::prelude::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

/// Every fixture session under 1 MB (the 20 MB line has its own tests), as bytes.
fn fixtures() -> &'static [Vec<u8>] {
    static FILES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let mut files: Vec<_> = common_walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .filter(|p| std::fs::metadata(p).unwrap().len() < 1 << 20)
            .collect();
        files.sort();
        files.iter().map(|p| std::fs::read(p).unwrap()).collect()
    })
}

fn common_walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() { out.extend(common_walk(&p)) } else { out.push(p) }
    }
    out
}

/// One change to a file's lines.
#[derive(Debug, Clone)]
enum Mutation {
    SetByte { line: usize, at: usize, byte: u8 },
    InsertByte { line: usize, at: usize, byte: u8 },
    Cut { line: usize, at: usize },
    Repeat { line: usize, from: usize },
    Swap { line: usize, with: usize },
    Join { line: usize },
    Remove { line: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let n = any::<usize>;
    prop_oneof![
        (n(), n(), any::<u8>()).prop_map(|(line, at, byte)| Mutation::SetByte { line, at, byte }),
        (n(), n(), prop::sample::select(b"{}[]\",:\\\n0-e \x00\xff\xef".to_vec()))
            .prop_map(|(line, at, byte)| Mutation::InsertByte { line, at, byte }),
        (n(), n()).prop_map(|(line, at)| Mutation::Cut { line, at }),
        (n(), n()).prop_map(|(line, from)| Mutation::Repeat { line, from }),
        (n(), n()).prop_map(|(line, with)| Mutation::Swap { line, with }),
        n().prop_map(|line| Mutation::Join { line }),
        n().prop_map(|line| Mutation::Remove { line }),
    ]
}

/// A fixture (picked by `pick`) with `mutations` applied to its lines.
fn mutated(pick: usize, mutations: &[Mutation]) -> Vec<u8> {
    let files = fixtures();
    let mut lines: Vec<Vec<u8>> =
        files[pick % files.len()].split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
    for m in mutations {
        let n = lines.len();
        match *m {
            Mutation::SetByte { line, at, byte } => {
                let l = &mut lines[line % n];
                if !l.is_empty() {
                    let i = at % l.len();
                    l[i] = byte;
                }
            }
            Mutation::InsertByte { line, at, byte } => {
                let l = &mut lines[line % n];
                l.insert(at % (l.len() + 1), byte);
            }
            Mutation::Cut { line, at } => {
                let l = &mut lines[line % n];
                l.truncate(at % (l.len() + 1));
            }
            Mutation::Repeat { line, from } => {
                let copy = lines[from % n].clone();
                lines.insert(line % (n + 1), copy);
            }
            Mutation::Swap { line, with } => lines.swap(line % n, with % n),
            Mutation::Join { line } if n > 1 => {
                let next = lines.remove((line % (n - 1)) + 1);
                lines[line % (n - 1)].extend(next);
            }
            Mutation::Remove { line } if n > 1 => {
                lines.remove(line % n);
            }
            _ => {}
        }
    }
    lines.join(&b'\n')
}

fn scratch() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.jsonl");
    (dir, file)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_session_model_survives_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..3000)) {
        let (_dir, file) = scratch();
        hardening_support::session_model(&bytes, &file);
    }

    #[test]
    fn the_session_model_survives_mutated_fixtures(pick in any::<usize>(), ms in prop::collection::vec(mutation(), 0..8)) {
        let (_dir, file) = scratch();
        hardening_support::session_model(&mutated(pick, &ms), &file);
    }

    #[test]
    fn the_session_model_survives_generated_sessions(seed in prop::collection::vec(any::<u8>(), 0..1500)) {
        let (_dir, file) = scratch();
        hardening_support::session_model(&hardening_support::session_bytes(&mut Bytes::new(&seed)), &file);
    }

    #[test]
    fn reading_what_was_appended_agrees_with_reading_all_on_mutated_fixtures(pick in any::<usize>(), ms in prop::collection::vec(mutation(), 0..8), cut in any::<usize>()) {
        let (_dir, file) = scratch();
        hardening_support::reread_agrees(&mutated(pick, &ms), &file, cut);
    }

    #[test]
    fn reading_what_was_appended_agrees_with_reading_all_on_generated_sessions(seed in prop::collection::vec(any::<u8>(), 0..1500), cut in any::<usize>()) {
        let (_dir, file) = scratch();
        hardening_support::reread_agrees(&hardening_support::session_bytes(&mut Bytes::new(&seed)), &file, cut);
    }

    #[test]
    fn the_fast_scanner_agrees_with_the_reader_on_mutated_fixtures(pick in any::<usize>(), ms in prop::collection::vec(mutation(), 0..8), cut in any::<usize>()) {
        let (_dir, file) = scratch();
        hardening_support::scan_agrees(&mutated(pick, &ms), &file, cut);
    }

    #[test]
    fn the_fast_scanner_agrees_with_the_reader_on_generated_sessions(seed in prop::collection::vec(any::<u8>(), 0..1500), cut in any::<usize>()) {
        let (_dir, file) = scratch();
        hardening_support::scan_agrees(&hardening_support::session_bytes(&mut Bytes::new(&seed)), &file, cut);
    }

    #[test]
    fn the_fast_scanner_agrees_with_the_reader_on_arbitrary_lines(line in prop::collection::vec(any::<u8>(), 0..400)) {
        prop_assert_eq!(full_class(&line), fast_class(&line));
    }

    #[test]
    fn the_walk_reads_lines_as_the_serde_reader_on_mutated_fixtures(pick in any::<usize>(), ms in prop::collection::vec(mutation(), 0..8)) {
        hardening_support::walk_agrees(&mutated(pick, &ms));
    }

    #[test]
    fn the_walk_reads_lines_as_the_serde_reader_on_generated_sessions(seed in prop::collection::vec(any::<u8>(), 0..1500)) {
        hardening_support::walk_agrees(&hardening_support::session_bytes(&mut Bytes::new(&seed)));
    }

    #[test]
    fn the_walk_reads_lines_as_the_serde_reader_on_arbitrary_lines(line in prop::collection::vec(any::<u8>(), 0..400)) {
        hardening_support::walk_agrees(&line);
    }

    #[test]
    fn search_survives_any_query(query in r#"(re:)?[a-zA-Z0-9 "\\()\[\]{}.*+?|^$\-:é项✨\u{feff}\u{85}]{0,24}"#, seed in prop::collection::vec(any::<u8>(), 0..600)) {
        let sessions = hardening_support::summaries(&mut Bytes::new(&seed));
        hardening_support::search(&query, &sessions);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_tree_view_survives_random_keys_on_generated_sessions(seed in prop::collection::vec(any::<u8>(), 0..1200), keys in prop::collection::vec(any::<u8>(), 0..400)) {
        let dir = tempfile::tempdir().unwrap();
        let bytes = hardening_support::session_bytes(&mut Bytes::new(&seed));
        hardening_support::tree_keys(&bytes, &mut Bytes::new(&keys), dir.path());
    }

    #[test]
    fn the_tree_view_survives_random_keys_on_mutated_fixtures(pick in any::<usize>(), ms in prop::collection::vec(mutation(), 0..4), keys in prop::collection::vec(any::<u8>(), 0..400)) {
        let dir = tempfile::tempdir().unwrap();
        hardening_support::tree_keys(&mutated(pick, &ms), &mut Bytes::new(&keys), dir.path());
    }

    #[test]
    fn the_picker_survives_random_events(events in prop::collection::vec(any::<u8>(), 0..600), all in any::<bool>()) {
        picker_events(&mut Bytes::new(&events), all);
    }
}

/// The picker on the real fixture sessions, fed keys, resizes (down to 1×1), clicks, wheel turns,
/// pastes and clock ticks; a session it opens is read and handed to it as the app does. Every
/// frame is drawn and checked for control characters.
fn picker_events(b: &mut Bytes<'_>, all: bool) {
    let fixtures = picker_support::Fixtures::copy();
    let mut h = picker_support::Harness::new(all);
    let scope = if all {
        pitree::tui::picker::state::ScopeKind::All
    } else {
        pitree::tui::picker::state::ScopeKind::Current
    };
    h.load(scope, fixtures.sessions.clone());
    let (mut w, mut hgt) = (120u16, 40u16);
    while !b.is_empty() && h.exit().is_none() {
        match b.byte() % 10 {
            0 => {
                (w, hgt) = [(1, 1), (2, 2), (10, 3), (60, 15), (80, 24), (200, 50)][b.below(6)];
                h.send(Event::Resize(w, hgt));
            }
            1 => h.send(Event::Paste(["\u{1b}[2Jx", "re:(", "\"a b", "项目"][b.below(4)].to_string())),
            2 => h.send(Event::Mouse(mouse(b, w, hgt))),
            3 => h.send(Event::Clock(picker_support::NOW_MS + i64::from(b.byte()) * 60_000)),
            _ => h.press(picker_key(b)),
        }
        open_requested_trees(&mut h);
        if b.one_in(4) {
            h.answer_previews();
        }
        draw_clean(|f| app::draw(f, &h.app), w, hgt);
    }
}

fn picker_key(b: &mut Bytes<'_>) -> KeyEvent {
    use KeyCode::*;
    let codes =
        [Up, Down, PageUp, PageDown, Home, End, Enter, Esc, Tab, BackTab, Backspace, Left, Right, F(1)];
    let mods = [KeyModifiers::NONE, KeyModifiers::CONTROL, KeyModifiers::ALT, KeyModifiers::SHIFT];
    match b.byte() % 3 {
        0 => KeyEvent::new(codes[b.below(codes.len())], mods[b.below(4)]),
        1 => KeyEvent::new(Char(['s', 'n', 'p', 'r', 'd', 'u', 'c'][b.below(7)]), mods[1 + b.below(2)]),
        _ => KeyEvent::new(
            Char(['a', 'e', '"', ' ', '?', 'y', 'n', 'r', ':', '项'][b.below(10)]),
            KeyModifiers::NONE,
        ),
    }
}

fn mouse(b: &mut Bytes<'_>, w: u16, h: u16) -> MouseEvent {
    let kind =
        [MouseEventKind::Down(MouseButton::Left), MouseEventKind::ScrollDown, MouseEventKind::ScrollUp]
            [b.below(3)];
    let (column, row) = (b.below(usize::from(w) + 2) as u16, b.below(usize::from(h) + 2) as u16);
    MouseEvent { kind, column, row, modifiers: KeyModifiers::NONE }
}

/// Answer `OpenTree` and `ReopenTree` effects with the file read, as the runner does.
fn open_requested_trees(h: &mut picker_support::Harness) {
    let wanted: Vec<_> = h
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::OpenTree(p) => Some((p.clone(), Session::open(p))),
            Effect::ReopenTree(old) => Some((old.file.path.clone(), old.reread())),
            _ => None,
        })
        .collect();
    h.effects.retain(|e| !matches!(e, Effect::OpenTree(_) | Effect::ReopenTree(_)));
    for (path, result) in wanted {
        h.send(Event::TreeOpened {
            path,
            result: result.map(std::sync::Arc::new).map_err(|e| e.to_string()),
        });
    }
}

// ----- regression cases: what the fuzzers found --------------------------------------------------

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#;
const USER: &str = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#;

/// A falsy JSON line before the header (`null`, `false`, `0`, `""`) is skipped by pi's reader and
/// by its listing; pitree's reader refused the whole file as "not a session".
#[test]
fn a_falsy_line_before_the_header_is_skipped_like_pi_does() {
    for falsy in ["null", "false", "0", "-0.0", "\"\""] {
        let bytes = format!("{falsy}\n{HEADER}\n{USER}\n");
        let parsed = pitree::session::parse::parse_bytes(bytes.as_bytes(), "x.jsonl".into())
            .unwrap_or_else(|e| panic!("{falsy}: {e}"));
        assert_eq!(parsed.entries.len(), 1);
        assert_eq!(parsed.damage.len(), 1, "the line is counted as unreadable");
        let (_dir, file) = scratch();
        hardening_support::scan_agrees(bytes.as_bytes(), &file, 1);
    }
    let truthy = format!("42\n{HEADER}\n{USER}\n");
    assert!(pitree::session::parse::parse_bytes(truthy.as_bytes(), "x.jsonl".into()).is_err());
}

/// The fast scanner's sniff tier read the first of repeated `id`/`parentId`/`type` keys and the
/// first `role`; `JSON.parse` (pi) and pitree's reader keep the last.
#[test]
fn repeated_keys_read_the_same_in_the_listing_and_the_reader() {
    let cases = [
        r#"{"type":"label","id":"a","parentId":null,"id":"b"}"#,
        r#"{"type":"label","id":"a","parentId":null,"parentId":"z"}"#,
        r#"{"type":"label","id":"a","parentId":null,"type":"message"}"#,
        r#"{"type":"label","id":"a","parentId":null,"id":5}"#,
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"toolResult","role":"user","content":"hi"}}"#,
    ];
    for line in cases {
        assert_eq!(full_class(line.as_bytes()), fast_class(line.as_bytes()), "{line}");
    }
    let role = cases[4];
    let (_dir, file) = scratch();
    std::fs::write(&file, format!("{HEADER}\n{role}\n")).unwrap();
    let scan = pitree::catalog::scan::Scanner::new().scan_file(&file).unwrap();
    assert_eq!(scan.state().first_message.as_deref(), Some("hi"), "pi lists the user text");
}

/// pi trims a session name with JavaScript's `trim()`: U+FEFF is whitespace, U+0085 is not. The
/// tree view and `pitree show` used Rust's `trim()` and disagreed with pi and the listing.
#[test]
fn session_names_are_trimmed_as_pi_trims_them() {
    for (name, expected) in
        [("\u{feff}", None), ("\u{85}x", Some("\u{85}x")), (" \u{feff}n\u{3000}", Some("n"))]
    {
        let info = serde_json::json!({"type": "session_info", "id": "b", "parentId": "a",
            "timestamp": "2025-01-01T00:00:02.000Z", "name": name});
        let bytes = format!("{HEADER}\n{USER}\n{info}\n");
        let parsed = pitree::session::parse::parse_bytes(bytes.as_bytes(), "x.jsonl".into()).unwrap();
        assert_eq!(Session::from_parsed(parsed).graph.name(), expected, "{name:?}");
    }
}
