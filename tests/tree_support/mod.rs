//! Helpers for the tree view tests: fixture sessions by scenario name, views opened with a fixed
//! clock, home and time zone, key presses, and rendering to text.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use pitree::session::Session;
use pitree::tui::theme::Theme;
use pitree::tui::tree::{TreeOptions, TreeOutcome, TreeView};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Position;
use unicode_segmentation::UnicodeSegmentation;

pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// 2026-03-28T18:00:00Z: "now" for every view in the tests.
pub const NOW_MS: i64 = 1_774_720_800_000;

/// The file of a fixture scenario named in `tests/fixtures/manifest.json` (`branched`, `deep`, …).
pub fn scenario(name: &str) -> PathBuf {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(Path::new(FIXTURES).join("manifest.json")).unwrap())
            .unwrap();
    let file = manifest["sessions"][name]["file"].as_str().unwrap_or_else(|| panic!("no scenario {name}"));
    Path::new(FIXTURES).join(file)
}

/// An entry id named in the manifest for a scenario (`u2a`, `leaf`, …).
pub fn scenario_id(name: &str, id: &str) -> String {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(Path::new(FIXTURES).join("manifest.json")).unwrap())
            .unwrap();
    manifest["sessions"][name]["ids"][id].as_str().unwrap().to_string()
}

pub fn options() -> TreeOptions {
    TreeOptions {
        now_ms: NOW_MS,
        home: Some("/home/dev".into()),
        time_zone: chrono::FixedOffset::east_opt(0),
        ..TreeOptions::default()
    }
}

pub fn open(path: &Path) -> TreeView {
    open_with(path, options())
}

pub fn open_with(path: &Path, options: TreeOptions) -> TreeView {
    let session = Session::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut view = TreeView::open(session, options);
    view.load_detail();
    view
}

pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

pub fn alt(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::ALT)
}

pub fn shift(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::SHIFT)
}

/// Press a key, then load the detail the view asks for, as the app loop does.
pub fn press(view: &mut TreeView, key: KeyEvent) -> TreeOutcome {
    let out = view.handle_key(key);
    view.load_detail();
    out
}

pub fn type_text(view: &mut TreeView, text: &str) {
    for c in text.chars() {
        press(view, key(KeyCode::Char(c)));
    }
}

/// The screen as text, `w`×`h`.
pub fn render(view: &TreeView, w: u16, h: u16) -> String {
    render_with_cursor(view, w, h).0
}

/// The screen as text, `w`×`h`, and where the terminal cursor was put (the last one placed).
pub fn render_with_cursor(view: &TreeView, w: u16, h: u16) -> (String, Position) {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| view.draw(f, f.area(), &Theme::no_color())).unwrap();
    let cursor = terminal.get_cursor_position().unwrap();
    let buffer = terminal.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..h {
        let mut line = String::new();
        let mut x = 0;
        while x < w {
            let symbol = buffer[(x, y)].symbol();
            line.push_str(symbol);
            x += pitree::display::width(symbol).max(1) as u16;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    (out, cursor)
}

/// The grapheme drawn at `at` on a screen rendered as text.
pub fn cell_at(screen: &str, at: Position) -> String {
    let line = screen.lines().nth(usize::from(at.y)).unwrap_or("");
    let mut x = 0;
    for g in line.graphemes(true) {
        if x == usize::from(at.x) {
            return g.to_string();
        }
        x += pitree::display::width(g).max(1);
    }
    " ".to_string()
}

/// The id of the selected entry.
pub fn selected_id(view: &TreeView) -> Option<String> {
    view.selected().map(|ix| view.session().entry(ix).id.to_string())
}

/// A session file written entry by entry, with timestamps one second apart in call order.
pub struct Build {
    lines: Vec<serde_json::Value>,
    second: i64,
}

impl Build {
    pub fn new() -> Build {
        let header = serde_json::json!({"type": "session", "version": 3, "id": "test-session",
            "timestamp": "2026-03-01T00:00:00.000Z", "cwd": "/home/dev/alpha"});
        Build { lines: vec![header], second: 0 }
    }

    fn stamp(&mut self) -> String {
        self.second += 1;
        let t = chrono::DateTime::from_timestamp(1_772_323_200 + self.second, 0).unwrap();
        t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
    }

    /// Add an entry: `fields` are merged over `{type, id, parentId, timestamp}`.
    pub fn entry(
        &mut self,
        ty: &str,
        id: &str,
        parent: Option<&str>,
        fields: serde_json::Value,
    ) -> &mut Build {
        let mut e = serde_json::json!({"type": ty, "id": id, "parentId": parent, "timestamp": self.stamp()});
        for (k, v) in fields.as_object().unwrap() {
            e[k] = v.clone();
        }
        self.lines.push(e);
        self
    }

    pub fn message(&mut self, id: &str, parent: Option<&str>, message: serde_json::Value) -> &mut Build {
        self.entry("message", id, parent, serde_json::json!({ "message": message }))
    }

    pub fn user(&mut self, id: &str, parent: Option<&str>, text: &str) -> &mut Build {
        self.message(id, parent, serde_json::json!({"role": "user", "content": text}))
    }

    pub fn assistant(&mut self, id: &str, parent: Option<&str>, text: &str) -> &mut Build {
        self.message(
            id,
            parent,
            serde_json::json!({"role": "assistant", "stopReason": "stop",
            "content": [{"type": "text", "text": text}]}),
        )
    }

    /// An assistant that only calls a tool (pi hides it unless it is the leaf).
    pub fn tool_call(
        &mut self,
        id: &str,
        parent: Option<&str>,
        call_id: &str,
        name: &str,
        args: serde_json::Value,
    ) -> &mut Build {
        self.message(
            id,
            parent,
            serde_json::json!({"role": "assistant", "stopReason": "toolUse",
            "content": [{"type": "toolCall", "id": call_id, "name": name, "arguments": args}]}),
        )
    }

    pub fn tool_result(
        &mut self,
        id: &str,
        parent: Option<&str>,
        call_id: &str,
        name: &str,
        text: &str,
    ) -> &mut Build {
        self.message(
            id,
            parent,
            serde_json::json!({"role": "toolResult", "toolCallId": call_id,
            "toolName": name, "content": [{"type": "text", "text": text}]}),
        )
    }

    /// Write the file into a new temp dir.
    pub fn write(&self) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        let text: String = self.lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }
}

/// The ids of the visible rows, in order.
pub fn row_ids(view: &TreeView) -> Vec<String> {
    view.rows().iter().map(|&ix| view.session().entry(ix).id.to_string()).collect()
}
