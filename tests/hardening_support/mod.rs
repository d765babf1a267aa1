//! The invariants behind the hardening fuzz targets (`fuzz/fuzz_targets/*.rs`) and their bounded
//! proptest versions (`tests/hardening_fuzz.rs`). Both include this file, so an input the fuzzer
//! finds reproduces under `cargo test` once it is added as a regression case.
//!
//! - [`session_model`]: parse → graph → context → flatten → rows → drafts on any bytes.
//! - [`scan_agrees`]: the catalog's fast scanner classifies every line as the session reader does,
//!   and its summary agrees with the full parse (and with itself when continued).
//! - [`walk_agrees`]: a line read whole by the session reader's walk is the serde reader's entry,
//!   and its outline has the same id, parent, role and tool calls.
//! - [`search`]: the picker's query parser and matcher on any query and sessions.
//! - [`tree_keys`]: the tree view driven by any key sequence, every outcome executed against the
//!   real file as the app does, drawn at any size, no control character reaching the screen.
//! - [`session_bytes`]: a pi-shaped session (branches, labels, compactions, damage, hostile
//!   text) built from any bytes, for the targets that need a mostly valid file.

#![allow(dead_code)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use pitree::catalog::lines::{Id, Parsed, with_line};
use pitree::catalog::locate::FileMeta;
use pitree::catalog::scan::{Resume, Scanner};
use pitree::catalog::search::{self, SearchIndex, SortMode};
use pitree::catalog::{SessionSummary, display, summary_of};
use pitree::session::flatten::{Filter, FilterMode, FoldStep, Forest, RowContext, Rows};
use pitree::session::line::{Line, parse_line};
use pitree::session::parse::{DamageKind, ParseError, parse_bytes};
use pitree::session::text::{ToolCalls, head_text, search_words};
use pitree::session::walk::{outline_line, whole_line};
use pitree::session::{Entry, Ix, Session, summary};
use pitree::store;
use pitree::tui::theme::Theme;
use pitree::tui::tree::{Report, TreeOptions, TreeOutcome, TreeView};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};

/// Bytes handed out one at a time; zeros once they run out.
pub struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data, at: 0 }
    }

    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (usize::from(self.byte()) << 8 | usize::from(self.byte())) % n }
    }

    /// True about once in `n` calls.
    pub fn one_in(&mut self, n: u8) -> bool {
        self.byte().is_multiple_of(n)
    }

    pub fn is_empty(&self) -> bool {
        self.at >= self.data.len()
    }

    /// The bytes not handed out yet.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.at.min(self.data.len())..]
    }
}

/// A folder for the fuzz targets' files, one per process (in `/dev/shm` when there is one: the
/// targets rewrite their file on every run). libFuzzer exits without destructors, so it is left
/// behind: `rm -r /dev/shm/pitree-fuzz-*` after a campaign.
pub fn scratch_root() -> &'static Path {
    static ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        let base = Path::new("/dev/shm");
        let base = if base.is_dir() { base.to_path_buf() } else { std::env::temp_dir() };
        let dir = base.join(format!("pitree-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

/// The session file the single-file targets write.
pub fn scratch_file() -> PathBuf {
    scratch_root().join("session.jsonl")
}

/// Whether drawing `c` could change the terminal's state or the text's direction.
pub fn is_dangerous(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}' | '\u{2028}' | '\u{2029}')
}

// ----- the session model ---------------------------------------------------------------------

/// Parse `bytes` (written to `file` first, so entries can be read back from their byte ranges) and
/// walk everything the views compute from it, checking the model's invariants.
pub fn session_model(bytes: &[u8], file: &Path) {
    std::fs::write(file, bytes).unwrap();
    let parsed = match parse_bytes(bytes, file.to_path_buf()) {
        Ok(p) => p,
        Err(ParseError::Empty) => return assert!(bytes.is_empty()),
        Err(ParseError::NotASession { .. }) => return,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(parsed.facts.len, bytes.len() as u64);
    assert!(parsed.damage.windows(2).all(|w| w[0].line <= w[1].line));
    assert!(parsed.damage.iter().all(|d| d.line <= parsed.facts.lines));
    for e in &parsed.entries {
        assert!(e.span.end <= bytes.len() as u64 && e.span.start <= e.span.end);
    }
    let session = Session::from_parsed(parsed);
    check_graph(&session);
    check_context(&session);
    check_rows(&session);
    check_drafts(&session);
}

/// Reading only what was appended agrees with reading the whole file: `bytes` up to a cut (most
/// often just after a newline, where pi's appends end) is read first, then the file grows to
/// `bytes` and is read again both ways.
pub fn reread_agrees(bytes: &[u8], file: &Path, cut: usize) {
    use std::io::Write;
    let ends: Vec<usize> = memchr::memchr_iter(b'\n', bytes).map(|i| i + 1).collect();
    let cut = match cut.is_multiple_of(4) || ends.is_empty() {
        true => (cut / 4) % (bytes.len() + 1),
        false => ends[(cut / 4) % ends.len()],
    };
    std::fs::write(file, &bytes[..cut]).unwrap();
    let Ok(before) = Session::open(file) else { return };
    std::fs::OpenOptions::new().append(true).open(file).unwrap().write_all(&bytes[cut..]).unwrap();
    match (before.reread(), Session::open(file)) {
        (Ok(again), Ok(whole)) => {
            assert_eq!(again.file.header, whole.file.header);
            assert_eq!(again.file.entries, whole.file.entries);
            assert_eq!(again.file.damage, whole.file.damage);
            assert_eq!(again.file.facts, whole.file.facts);
            assert_eq!(again.graph.leaf(), whole.graph.leaf());
            assert_eq!(again.graph.roots().collect::<Vec<_>>(), whole.graph.roots().collect::<Vec<_>>());
            assert_eq!(again.graph.labels(), whole.graph.labels());
            assert_eq!(again.graph.name(), whole.graph.name());
        }
        (Err(again), Err(whole)) => assert_eq!(again.to_string(), whole.to_string()),
        (again, whole) => panic!("reread {:?}, whole {:?}", again.err(), whole.err()),
    }
}

fn check_graph(s: &Session) {
    let g = &s.graph;
    let n = s.entries().len();
    let ids: HashSet<&str> = s.entries().iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids.len(), n, "entry ids are unique");
    let mut seen = vec![false; n];
    let mut stack: Vec<Ix> = g.roots().collect();
    for &r in &stack {
        assert_eq!(g.parent(r), None);
    }
    while let Some(ix) = stack.pop() {
        assert!(!seen[ix as usize], "entry {ix} reached twice");
        seen[ix as usize] = true;
        for &c in g.children(ix) {
            assert_eq!(g.parent(c), Some(ix));
            stack.push(c);
        }
    }
    assert!(seen.iter().all(|&v| v), "every entry hangs under a root");
    let last = n.checked_sub(1).map(|i| i as Ix);
    if g.leaf() != last {
        // pi's leaf is the last line's id: here a later line repeating the leaf's id.
        let after_last = s.entries().last().map_or(0, |e| e.line);
        assert!(
            s.file.damage.iter().any(|d| d.kind == DamageKind::DuplicateId && d.line > after_last),
            "the leaf {:?} is not the last entry {last:?}, and no later line repeats an id",
            g.leaf()
        );
    }
    for ix in sample(n) {
        let path = g.path_to(ix);
        assert_eq!(path.last(), Some(&ix));
        assert_eq!(g.parent(path[0]), None);
        assert!(path.windows(2).all(|w| g.parent(w[1]) == Some(w[0])));
        assert_eq!(s.resolve_id(&s.entry(ix).id), Ok(ix));
        let other = (ix as usize * 7 + 3) % n;
        if let Some(a) = g.common_ancestor(ix, other as Ix) {
            assert!(g.is_ancestor(a, ix) && g.is_ancestor(a, other as Ix));
        }
    }
}

/// Up to 64 entry indices spread over `0..n`.
fn sample(n: usize) -> impl Iterator<Item = Ix> {
    let step = n.div_ceil(64).max(1);
    (0..n).step_by(step).map(|i| i as Ix)
}

fn check_context(s: &Session) {
    let leaf = s.graph.leaf();
    let on_path: HashSet<Ix> = leaf.map(|l| s.graph.path_to(l)).unwrap_or_default().into_iter().collect();
    let entries = s.context_entries(leaf);
    assert!(entries.iter().all(|ix| on_path.contains(ix)), "context comes from the path");
    for m in s.context_messages(leaf) {
        assert!(on_path.contains(&m.entry));
        s.context_text(&m).expect("a parsed entry reads back from its span");
    }
    pitree::session::context::settings(&s.graph, s.entries(), leaf);
    pitree::session::flatten::effective_leaf(s);
}

fn check_rows(s: &Session) {
    let forest = Forest::build(&s.graph);
    let mut order = forest.order().to_vec();
    order.sort_unstable();
    assert!(order.iter().enumerate().all(|(i, &ix)| i as Ix == ix), "the order is a permutation");
    let calls = ToolCalls::build(s.entries(), forest.order());
    let none = HashSet::new();
    let folded: HashSet<Ix> = forest.order().iter().copied().step_by(3).collect();
    let matches: Vec<bool> = (0..s.entries().len()).map(|i| i % 2 == 0).collect();
    for mode in FilterMode::CYCLE {
        for (folds, m) in [(&none, None), (&folded, Some(matches.as_slice()))] {
            let rows = Rows::build(&forest, s, Filter { mode, matches: m, folded: folds });
            check_row_structure(s, &forest, &rows, &calls, folds);
        }
    }
    for e in s.entries() {
        search_words(e);
        head_text(e);
    }
}

fn check_row_structure(s: &Session, forest: &Forest, rows: &Rows, calls: &ToolCalls, folded: &HashSet<Ix>) {
    let leaf_row = rows.leaf_row(s);
    let cx =
        RowContext { session: s, forest, calls, folded, home: Some("/home/dev"), leaf_row, label_time: None };
    for r in 0..rows.len() {
        assert!(rows.parent(r).is_none_or(|p| p < r));
        assert_eq!(rows.row_of(rows.entry(r)), Some(r));
        let text = rows.parts(r, &cx).plain();
        assert!(!text.chars().any(is_dangerous), "row text {text:?}");
        for step in [rows.fold_or_up(r, folded), rows.unfold_or_down(r, folded)] {
            if let FoldStep::Select(to) = step {
                assert!(to < rows.len());
            }
        }
    }
    if let Some(sel) = rows.select(&s.graph, s.graph.leaf()) {
        assert!(sel < rows.len());
    }
}

fn check_drafts(s: &Session) {
    let Some(leaf) = s.graph.leaf() else { return };
    for target in sample(s.entries().len()).take(4) {
        let abandoned = summary::abandoned_entries(s, Some(leaf), Some(target));
        for &a in &abandoned {
            assert!(s.graph.is_ancestor(a, leaf) && !s.graph.is_ancestor(a, target));
        }
        summary::draft(s, &abandoned);
    }
}

// ----- the fast scanner against the full parse ---------------------------------------------------

/// How one line reads: the comparable part of both readers' answers.
#[derive(Debug, Clone, PartialEq)]
pub enum LineClass {
    Blank,
    Malformed,
    NotAnObject,
    Object { ty: String, id: Option<String>, parent: Option<String> },
}

/// The reader's reading of `line` as a line after the first (a BOM is only left out at the start
/// of a file).
pub fn full_class(line: &[u8]) -> LineClass {
    match parse_line(line, 2, 1) {
        Line::Blank => LineClass::Blank,
        Line::Malformed => LineClass::Malformed,
        Line::NotAnObject | Line::Falsy => LineClass::NotAnObject,
        Line::Header(h) => {
            LineClass::Object { ty: "session".into(), id: h.id.filter(|_| h.id_is_string), parent: None }
        }
        Line::NoId(e) => LineClass::Object {
            ty: e.type_name().into(),
            id: None,
            parent: e.parent_id.as_deref().map(str::to_string),
        },
        Line::Entry(e) => LineClass::Object {
            ty: e.type_name().into(),
            id: Some(e.id.to_string()),
            parent: e.parent_id.as_deref().map(str::to_string),
        },
    }
}

pub fn fast_class(line: &[u8]) -> LineClass {
    with_line(line, |p| match p {
        Parsed::Blank => LineClass::Blank,
        Parsed::Malformed => LineClass::Malformed,
        Parsed::NotAnObject { .. } => LineClass::NotAnObject,
        Parsed::Object(o) => {
            let ty = o.ty.as_deref().unwrap_or("").to_string();
            let id = match &o.id {
                Id::Str(s) => Some(s.to_string()),
                _ => None,
            };
            let parent = o.parent_id.as_deref().filter(|_| ty != "session").map(str::to_string);
            LineClass::Object { ty, id, parent }
        }
    })
}

/// Every line of `bytes` reads the same through the walk (`session::walk::whole_line`) as through
/// the serde reader it stands in for (`session::line::parse_line`), field for field; and the
/// outline of a line the walk reads as an entry has that entry's place in the tree.
pub fn walk_agrees(bytes: &[u8]) {
    let mut start = 0;
    for (n, line) in bytes.split(|b| *b == b'\n').enumerate() {
        let number = n as u32 + 1;
        let walked = whole_line(line, number, start);
        let full = parse_line(line, number, start);
        assert_eq!(format!("{walked:?}"), format!("{full:?}"), "line {:?}", String::from_utf8_lossy(line));
        if let (Line::Entry(whole), Line::Entry(outline)) = (walked, outline_line(line, number, start)) {
            let place = |e: &Entry| (e.id.clone(), e.parent_id.clone(), e.role().map(str::to_string));
            assert_eq!(place(&outline), place(&whole), "line {:?}", String::from_utf8_lossy(line));
        }
        start += line.len() as u64 + 1;
    }
}

/// Every line reads the same in both readers; the scanner lists the file exactly when the reader
/// opens it, with the same header, unreadable-line count and branch count; a scan continued from
/// any line boundary ends where one pass does. `cut` picks the boundary.
pub fn scan_agrees(bytes: &[u8], file: &Path, cut: usize) {
    for line in bytes.split(|b| *b == b'\n') {
        assert_eq!(full_class(line), fast_class(line), "line {:?}", String::from_utf8_lossy(line));
    }
    write_fixed(file, bytes);
    let one_pass = scan_summary(file, Resume::default()).0;
    match parse_bytes(bytes, file.to_path_buf()) {
        Err(_) => assert!(one_pass.is_none(), "the reader refuses a file the listing shows"),
        Ok(p) => {
            let s = one_pass.as_ref().expect("the listing drops a file the reader opens");
            assert_eq!((&s.id, &s.cwd), (&p.header.id, &p.header.cwd));
            assert_eq!(s.parent_session_path, p.header.parent_session);
            assert_eq!(s.unreadable_lines as usize, p.damage.len(), "{:?}", p.damage);
            if p.header.version >= 2 {
                assert_eq!(s.branches as usize, tips(&p.entries));
            }
            let repeats = p.damage.iter().any(|d| d.kind == DamageKind::DuplicateId);
            if !repeats {
                assert_eq!(continued(bytes, file, cut).as_ref(), Some(s), "a continued scan differs");
            }
        }
    }
}

/// Entries no other entry names as its parent.
fn tips(entries: &[pitree::session::Entry]) -> usize {
    let parents: HashSet<&str> =
        entries.iter().filter_map(|e| e.parent_id.as_deref().filter(|p| *p != e.id)).collect();
    entries.iter().filter(|e| !parents.contains(e.id.as_str())).count()
}

/// Scan the first part of the file up to a line boundary, then the whole file from there.
fn continued(bytes: &[u8], file: &Path, cut: usize) -> Option<SessionSummary> {
    let boundaries: Vec<usize> = std::iter::once(0)
        .chain(bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1))
        .collect();
    let at = boundaries[cut % boundaries.len()];
    write_fixed(file, &bytes[..at]);
    let (_, resume) = scan_summary(file, Resume::default());
    assert_eq!(resume.offset as usize, at);
    write_fixed(file, bytes);
    scan_summary(file, resume).0
}

/// Write `bytes` with the same mtime every time (summaries fall back to it).
fn write_fixed(file: &Path, bytes: &[u8]) {
    std::fs::write(file, bytes).unwrap();
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_750_000_000);
    std::fs::File::options().write(true).open(file).unwrap().set_modified(t).unwrap();
}

fn scan_summary(file: &Path, from: Resume) -> (Option<SessionSummary>, Resume) {
    let scan = Scanner::new().scan_from(file, from).unwrap();
    let meta = FileMeta::of(&std::fs::metadata(file).unwrap());
    let summary = scan.state().is_session().then(|| summary_of(file, &meta, scan.state()));
    (summary, scan.resume)
}

// ----- search --------------------------------------------------------------------------------

/// Sessions for the search target: fields cut from `b`'s bytes as text.
pub fn summaries(b: &mut Bytes<'_>) -> Vec<SessionSummary> {
    let count = 1 + b.below(12);
    (0..count)
        .map(|i| SessionSummary {
            path: PathBuf::from(format!("/s/--w--/{i}.jsonl")),
            id: text(b),
            cwd: text(b),
            name: (!b.one_in(3)).then(|| text(b)),
            parent_session_path: b.one_in(4).then(|| format!("/s/--w--/{}.jsonl", b.below(count))),
            first_message: text(b),
            all_messages_text: text(b),
            modified_ms: i64::from(b.byte()) * 1000,
            ..SessionSummary::default()
        })
        .collect()
}

/// Every sort mode, named or not: rows are valid, distinct sessions, hit ranges lie on character
/// boundaries of the field they name, title ranges are sorted and disjoint, relevance is sorted.
pub fn search(query: &str, sessions: &[SessionSummary]) {
    let _ = search::parse_query(query);
    let index = SearchIndex::new(sessions);
    for sort in [SortMode::Threaded, SortMode::Recent, SortMode::Relevance] {
        for named in [false, true] {
            let Ok(rows) = index.search(sessions, query, sort, named) else { continue };
            let mut seen = HashSet::new();
            for row in &rows {
                assert!(seen.insert(row.index), "session {} listed twice", row.index);
                check_hits(&sessions[row.index], &row.matches);
            }
            if sort == SortMode::Relevance {
                assert!(rows.windows(2).all(|w| w[0].score <= w[1].score));
            }
            assert_eq!(rows, search::filter_and_sort(sessions, query, sort, named));
        }
    }
}

fn check_hits(s: &SessionSummary, m: &search::Matches) {
    use pitree::catalog::search::Field;
    for hit in &m.fields {
        let field = match hit.field {
            Field::Id => s.id.as_str(),
            Field::Name => s.name.as_deref().unwrap_or(""),
            Field::Text => s.all_messages_text.as_str(),
            Field::Cwd => s.cwd.as_str(),
        };
        assert!(field.get(hit.range.clone()).is_some(), "{hit:?} in {field:?}");
    }
    let title = display::display_title(s);
    assert!(m.title.windows(2).all(|w| w[0].end < w[1].start), "{:?}", m.title);
    for r in &m.title {
        assert!(title.get(r.clone()).is_some(), "{r:?} in {title:?}");
    }
}

// ----- generated sessions --------------------------------------------------------------------

/// Texts the generator picks from: plain, wide, combining, hostile, shell-looking, empty, long.
const TEXTS: &[&str] = &[
    "hello",
    "fix the build",
    "项目 ✨ 👩‍👩‍👧 é",
    "\u{1b}[2J\u{1b}]52;c;cHduZWQ=\u{7}x",
    "\u{9b}31m\u{85}\u{202e}evil\u{2066}",
    "$(touch /tmp/pitree-pwned); rm -rf ~",
    "",
    "  ",
    "line\nbreak\r\ntab\t",
    "\u{feff}",
    "a\u{0301}\u{0301}\u{0301}",
    "\u{d7ff}\u{e000}\u{10ffff}",
];

fn text(b: &mut Bytes<'_>) -> String {
    let mut out = String::new();
    for _ in 0..b.below(4) {
        match b.byte() % 8 {
            0 => out.push_str(&"long text ".repeat(1 + b.below(200))),
            1 => out.push(char::from_u32(u32::from(b.byte()) | u32::from(b.byte()) << 8).unwrap_or('?')),
            _ => out.push_str(TEXTS[b.below(TEXTS.len())]),
        }
    }
    out
}

/// A session file built from `b`: a header (sometimes legacy), then entries of every kind whose
/// parents are mostly the previous entry, sometimes an older one, a missing one, themselves or a
/// later one (cycles), with damaged lines mixed in.
pub fn session_bytes(b: &mut Bytes<'_>) -> Vec<u8> {
    let version = [3, 3, 3, 2, 1][b.below(5)];
    let mut lines = vec![
        json!({"type": "session", "version": version, "id": "fuzz-session",
        "timestamp": "2026-03-01T00:00:00.000Z", "cwd": text(b)})
        .to_string(),
    ];
    let count = b.below(40);
    let ids: Vec<String> =
        (0..count).map(|i| format!("{:08x}", i * 2654435761u64 as usize % 0xffff_ffff)).collect();
    for i in 0..count {
        lines.push(entry_line(b, &ids, i, version));
    }
    let mut out = lines.join("\n").into_bytes();
    if !b.one_in(4) {
        out.push(b'\n');
    }
    out
}

fn entry_line(b: &mut Bytes<'_>, ids: &[String], i: usize, version: u32) -> String {
    let parent = match b.byte() % 10 {
        0 => Value::Null,
        1 => json!(ids[b.below(ids.len())]),
        2 => json!("deadbeef"),
        3 => json!(ids[i]),
        _ if i > 0 => json!(ids[i - 1]),
        _ => Value::Null,
    };
    let second = if b.one_in(8) { b.below(60) } else { i };
    let mut e = json!({"type": "message", "id": ids[i], "parentId": parent,
        "timestamp": format!("2026-03-01T00:{:02}:{:02}.000Z", second / 60, second % 60)});
    if version < 2 {
        e.as_object_mut().unwrap().retain(|k, _| k != "id" && k != "parentId");
    }
    let target = json!(ids[b.below(ids.len())]);
    let fields = match b.byte() % 18 {
        0 => {
            return ["", "{\"type\":\"message\",\"id\":", "null", "42", "[]", "\u{feff}{}"][b.below(6)]
                .to_string();
        }
        1 => json!({"message": {"role": "user", "content": text(b), "timestamp": 1}}),
        2 => {
            json!({"message": {"role": "user", "content": [{"type": "text", "text": text(b)}, {"type": "image", "data": "QUJD", "mimeType": "image/png"}]}})
        }
        3 => {
            json!({"message": {"role": "assistant", "stopReason": "stop", "provider": text(b), "model": text(b),
            "content": [{"type": "thinking", "thinking": text(b)}, {"type": "text", "text": text(b)}],
            "usage": {"input": 1, "output": 2, "totalTokens": 3, "cost": {"total": 0.5}}}})
        }
        4 => {
            json!({"message": {"role": "assistant", "stopReason": "toolUse", "content": [{"type": "toolCall",
            "id": format!("c{}", b.below(4)), "name": pick(b, &["read", "edit", "write", "bash", "grep"]),
            "arguments": {"path": text(b), "command": text(b), "pattern": text(b)}}]}})
        }
        5 => {
            json!({"message": {"role": "toolResult", "toolCallId": format!("c{}", b.below(4)), "toolName": text(b),
            "content": [{"type": "text", "text": text(b)}], "isError": b.one_in(2)}})
        }
        6 => {
            json!({"message": {"role": "bashExecution", "command": text(b), "output": text(b), "exitCode": 1}})
        }
        7 => {
            json!({"type": "label", "targetId": target, "label": if b.one_in(3) { Value::Null } else { json!(text(b)) }})
        }
        8 => json!({"type": "session_info", "name": text(b)}),
        9 => json!({"type": "compaction", "summary": text(b), "tokensBefore": 10, "firstKeptEntryId": target,
            "firstKeptEntryIndex": b.below(5)}),
        10 => json!({"type": "branch_summary", "summary": text(b), "fromId": target}),
        11 => {
            json!({"type": "custom", "customType": pick(b, &["pitree.leaf", "ext"]), "data": {"fromId": target}})
        }
        12 => {
            json!({"type": "custom_message", "customType": text(b), "content": text(b), "display": b.one_in(2)})
        }
        13 => json!({"type": "model_change", "provider": text(b), "modelId": text(b)}),
        14 => json!({"type": "thinking_level_change", "thinkingLevel": text(b)}),
        15 => json!({"type": "context_edit", "targetId": target, "replacement": {"content": text(b)}}),
        16 => json!({"type": text(b), "x": text(b)}),
        _ => json!({"type": "usage", "usage": {"input": b.byte(), "output": 1}}),
    };
    for (k, v) in fields.as_object().unwrap() {
        e[k] = v.clone();
    }
    e.to_string()
}

fn pick<'t>(b: &mut Bytes<'_>, from: &[&'t str]) -> &'t str {
    from[b.below(from.len())]
}

// ----- the tree view -------------------------------------------------------------------------

/// The keys the fuzzer presses: every binding of the tree view and its dialogs and editors.
pub fn key(b: &mut Bytes<'_>) -> KeyEvent {
    use KeyCode::*;
    const NONE: KeyModifiers = KeyModifiers::NONE;
    let ctrl = KeyModifiers::CONTROL;
    let alt = KeyModifiers::ALT;
    let shift = KeyModifiers::SHIFT;
    let codes = [
        Up,
        Down,
        Left,
        Right,
        PageUp,
        PageDown,
        Home,
        End,
        Enter,
        Esc,
        Tab,
        BackTab,
        Backspace,
        Delete,
        F(1),
    ];
    let chars = ['a', 'L', 'T', '/', '?', ' ', 'y', 'n', 'q', 'é', '\u{1b}', '\u{202e}'];
    let ctrl_chars =
        ['d', 't', 'u', 'l', 'a', 'o', 'x', 'n', 'p', 'r', 's', 'j', 'b', 'f', 'c', 'e', 'k', 'w'];
    match b.byte() % 6 {
        0 | 1 => KeyEvent::new(codes[b.below(codes.len())], [NONE, ctrl, alt, shift][b.below(4)]),
        2 | 3 => KeyEvent::new(Char(chars[b.below(chars.len())]), if b.one_in(4) { shift } else { NONE }),
        4 => KeyEvent::new(Char(ctrl_chars[b.below(ctrl_chars.len())]), ctrl),
        _ => KeyEvent::new(Char(['f', 'u', 'o'][b.below(3)]), [alt, ctrl | shift][b.below(2)]),
    }
}

/// Open the session in `dir` in the tree view, press the keys `b` gives, execute every outcome as
/// the app does (writes, forks and re-reads against the real file; the summarizer answers or
/// fails), and draw at changing sizes down to 1×1.
pub fn tree_keys(bytes: &[u8], b: &mut Bytes<'_>, dir: &Path) {
    let file = dir.join("session.jsonl");
    std::fs::write(&file, bytes).unwrap();
    let Ok(session) = Session::open(&file) else { return };
    let options =
        TreeOptions { now_ms: 1_774_720_800_000, home: Some("/home/dev".into()), ..TreeOptions::default() };
    let mut view = TreeView::open(session, options);
    for step in 0..b.below(120) {
        let outcome = view.handle_key(key(b));
        if !execute(&mut view, outcome, dir, b) {
            break;
        }
        view.load_detail();
        if step % 8 == 0
            && let Some(job) = view.search_job()
        {
            view.apply(Report::SearchIndex(job.run()));
        }
        check_view(&view, b);
    }
}

/// Do what the app would do for `outcome`; `false` when the view is left.
fn execute(view: &mut TreeView, outcome: TreeOutcome, dir: &Path, b: &mut Bytes<'_>) -> bool {
    let report = match outcome {
        TreeOutcome::Close | TreeOutcome::Resume { .. } => return false,
        TreeOutcome::Ignored | TreeOutcome::Redraw | TreeOutcome::CancelSummarizer => return true,
        TreeOutcome::Write(action) => {
            let result = store::write_action(view.path(), Some(view.session()), Some(dir), &action)
                .and_then(|_| Session::open(view.path()).map_err(|e| color_eyre::eyre::eyre!("{e}")));
            Report::Written(result.map_err(|e| format!("{e:#}")))
        }
        TreeOutcome::Fork { target } => {
            let forked = store::actions::fork(view.session(), target, dir).map_err(|e| format!("{e:#}"));
            if let Ok(path) = &forked {
                Session::open(path).expect("a fork reads back");
                std::fs::remove_file(path).unwrap();
            }
            Report::Forked(forked)
        }
        TreeOutcome::Copy(_) => Report::Copied(Ok(())),
        TreeOutcome::RunSummarizer { target } => {
            let input = view.summarizer_input(target);
            Report::Summary(if b.one_in(2) { Ok(input) } else { Err("the summarizer failed".into()) })
        }
    };
    let after = view.apply(report);
    !matches!(after, TreeOutcome::Close | TreeOutcome::Resume { .. })
}

/// The sizes the tree view is drawn at (heights 1–4 once made `pan` index an empty window). Widths 1
/// and 2 at heights from 29 are left out while a wide character panics the detail pane's `wrap`
/// there (`hardening_faults::a_wide_character_in_a_one_column_detail_pane_draws`, ignored).
pub const TREE_SIZES: [(u16, u16); 10] =
    [(1, 1), (2, 2), (10, 3), (80, 4), (1, 40), (2, 40), (3, 40), (60, 15), (120, 40), (200, 60)];

fn check_view(view: &TreeView, b: &mut Bytes<'_>) {
    assert_eq!(view.selected().is_some(), !view.rows().is_empty());
    if let Some(sel) = view.selected() {
        assert!(view.rows().contains(&sel));
    }
    let (w, h) = TREE_SIZES[b.below(TREE_SIZES.len())];
    draw_clean(|f| view.draw(f, f.area(), &Theme::dark()), w, h);
}

/// Draw with `draw` on a `w`×`h` test terminal and check that no cell holds a control character.
pub fn draw_clean(draw: impl FnOnce(&mut ratatui::Frame), w: u16, h: u16) {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(draw).unwrap();
    for cell in terminal.backend().buffer().content() {
        assert!(!cell.symbol().chars().any(is_dangerous), "{:?} reached the screen", cell.symbol());
    }
}
