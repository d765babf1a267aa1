//! Helpers for the picker tests: an [`App`] driven by events with a fixed clock, sessions made up
//! in memory or scanned from a temporary copy of the fixture agent folder, key presses, and
//! screens rendered on a `TestBackend`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pitree::catalog::{Catalog, Scope, SessionSummary, SessionsRoot, locate::RootSource};
use pitree::tui::app::{self, App, AppOptions, Effect, Event, Exit};
use pitree::tui::keymap::Keybindings;
use pitree::tui::picker::preview;
use pitree::tui::picker::source::Found;
use pitree::tui::picker::state::{Effect as PickerEffect, PickerOptions, ScanUpdate, ScopeKind};
use pitree::tui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

/// 2025-06-15T00:00:00Z: "now" in every picker test.
pub const NOW_MS: i64 = 1_749_945_600_000;

pub const MINUTE: i64 = 60_000;
pub const DAY: i64 = 86_400_000;

/// A made-up session: its file is `/s/--w--/<id>.jsonl`, its cwd `/w`.
pub fn session(id: &str, title: &str, modified_ms: i64) -> SessionSummary {
    SessionSummary {
        path: PathBuf::from(format!("/s/--w--/{id}.jsonl")),
        id: id.to_string(),
        cwd: "/w".into(),
        first_message: title.to_string(),
        all_messages_text: title.to_string(),
        modified_ms,
        mtime_ns: modified_ms * 1_000_000,
        message_count: 3,
        branches: 1,
        file_len: 100,
        ..SessionSummary::default()
    }
}

pub fn named(mut s: SessionSummary, name: &str) -> SessionSummary {
    s.name = Some(name.to_string());
    s
}

pub fn child_of(mut s: SessionSummary, parent: &SessionSummary) -> SessionSummary {
    s.parent_session_path = Some(parent.path.to_string_lossy().into_owned());
    s
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

/// The app, with every effect it asked for kept for inspection.
pub struct Harness {
    pub app: App,
    pub effects: Vec<Effect>,
}

impl Harness {
    /// A picker in the Current (or All) scope, 120×40, nothing loaded yet.
    pub fn new(all: bool) -> Harness {
        Harness::with(AppOptions {
            picker: PickerOptions { all, home: Some(PathBuf::from("/home/dev")), ..PickerOptions::default() },
            root_label: "~/.pi/agent/sessions".into(),
            ..AppOptions::default()
        })
    }

    pub fn with(options: AppOptions) -> Harness {
        Harness::with_keys(options, Keybindings::defaults())
    }

    pub fn with_keys(options: AppOptions, keys: Keybindings) -> Harness {
        let (app, effects) = App::new(options, Theme::no_color(), Arc::new(keys), NOW_MS);
        let mut h = Harness { app, effects };
        h.send(Event::Resize(120, 40));
        h
    }

    /// Apply one event (then settle, as the loop does at the end of a batch).
    pub fn send(&mut self, event: Event) {
        let mut effects = app::update(&mut self.app, event);
        effects.extend(app::settle(&mut self.app));
        self.effects.extend(effects);
    }

    pub fn press(&mut self, key: KeyEvent) {
        self.send(Event::Key(key));
    }

    pub fn code(&mut self, code: KeyCode) {
        self.press(key(code));
    }

    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.code(KeyCode::Char(c));
        }
    }

    /// The scans asked for so far, as (scope, seq).
    pub fn scans(&self) -> Vec<(ScopeKind, u64)> {
        self.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Picker(PickerEffect::Scan { scope, seq }) => Some((*scope, *seq)),
                _ => None,
            })
            .collect()
    }

    /// The picker effects asked for so far (scans left out).
    pub fn picker_effects(&self) -> Vec<PickerEffect> {
        self.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Picker(PickerEffect::Scan { .. }) => None,
                Effect::Picker(p) => Some(p.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn clear_effects(&mut self) {
        self.effects.clear();
    }

    /// Answer the latest scan of `scope` with `found`: some progress, the sessions, done.
    pub fn load(&mut self, scope: ScopeKind, sessions: Vec<SessionSummary>) {
        let seq = self.latest_seq(scope);
        self.report(scope, seq, ScanUpdate::Progress { done: 0, total: sessions.len() });
        let total = sessions.len();
        self.report(scope, seq, ScanUpdate::Found(sessions.into_iter().map(Found::new).collect()));
        self.report(scope, seq, ScanUpdate::Progress { done: total, total });
        self.report(scope, seq, ScanUpdate::Done { warnings: Vec::new() });
    }

    pub fn latest_seq(&self, scope: ScopeKind) -> u64 {
        self.scans()
            .into_iter()
            .filter(|(s, _)| *s == scope)
            .map(|(_, seq)| seq)
            .next_back()
            .unwrap_or_else(|| panic!("no scan of {scope:?} was asked for"))
    }

    pub fn report(&mut self, scope: ScopeKind, seq: u64, update: ScanUpdate) {
        self.send(Event::Scan { scope, seq, update });
    }

    /// Answer every preview request with the real preview of the file.
    pub fn answer_previews(&mut self) {
        let wanted: Vec<PathBuf> = self
            .effects
            .iter()
            .filter_map(|e| match e {
                Effect::Picker(PickerEffect::LoadPreview(p)) => Some(p.clone()),
                _ => None,
            })
            .collect();
        self.effects.retain(|e| !matches!(e, Effect::Picker(PickerEffect::LoadPreview(_))));
        for path in wanted {
            let result = preview::load(&path, None, None).map(|(p, _)| p).map_err(|e| format!("{e:#}"));
            self.send(Event::Preview { path, result });
        }
    }

    /// The titles of the shown rows, in order.
    pub fn titles(&self) -> Vec<String> {
        let p = &self.app.picker;
        p.rows().iter().map(|r| p.summary(r).title().to_string()).collect()
    }

    /// The shown rows' tree prefixes, without the root level's indent.
    pub fn prefixes(&self) -> Vec<String> {
        self.app.picker.rows().iter().map(|r| r.prefix.trim_start().to_string()).collect()
    }

    /// The title of the selected session.
    pub fn selected(&self) -> Option<String> {
        self.app.picker.selected().map(|s| s.title().to_string())
    }

    pub fn exit(&self) -> Option<&Exit> {
        self.app.exit.as_ref()
    }

    pub fn click(&mut self, column: u16, row: u16) {
        self.send(Event::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column,
            row,
            modifiers: KeyModifiers::NONE,
        }));
    }

    pub fn wheel(&mut self, down: bool, column: u16, row: u16) {
        let kind = if down { MouseEventKind::ScrollDown } else { MouseEventKind::ScrollUp };
        self.send(Event::Mouse(MouseEvent { kind, column, row, modifiers: KeyModifiers::NONE }));
    }

    /// Draw on a `width`×`height` screen.
    pub fn buffer(&mut self, width: u16, height: u16) -> Buffer {
        self.send(Event::Resize(width, height));
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal.draw(|f| app::draw(f, &self.app)).unwrap();
        terminal.backend().buffer().clone()
    }

    /// The screen as text, one line per row, trailing spaces kept.
    pub fn screen(&mut self, width: u16, height: u16) -> String {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        self.send(Event::Resize(width, height));
        terminal.draw(|f| app::draw(f, &self.app)).unwrap();
        unquote(&terminal.backend().to_string())
    }
}

/// `TestBackend`'s text without the quotes it puts around each line.
pub fn unquote(text: &str) -> String {
    text.lines()
        .map(|l| l.strip_prefix('"').and_then(|l| l.strip_suffix('"')).unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A temporary copy of `tests/fixtures/agent` with forks pointing at the copies, its sessions
/// scanned as pi lists them, and an insta filter for its path.
pub struct Fixtures {
    pub dir: tempfile::TempDir,
    pub sessions: Vec<SessionSummary>,
}

impl Fixtures {
    pub fn copy() -> Fixtures {
        let dir = tempfile::tempdir().unwrap();
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agent");
        copy_sessions(&source.join("sessions"), &dir.path().join("sessions"));
        pitree::tui::demo::relink_parents(&dir.path().join("sessions")).unwrap();
        let root = SessionsRoot::new(dir.path().join("sessions"), RootSource::AgentDir);
        let sessions = Catalog::open(root, None).scan(&Scope::All, &|_, _| {}).sessions;
        Fixtures { dir, sessions }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("sessions")
    }

    /// Sessions whose cwd is `cwd`.
    pub fn in_folder(&self, cwd: &str) -> Vec<SessionSummary> {
        self.sessions.iter().filter(|s| s.cwd == cwd).cloned().collect()
    }

    /// `text` with the temporary folder written as `[TMP]` (insta's filters are not enabled).
    pub fn redact(&self, text: &str) -> String {
        text.replace(&*self.dir.path().to_string_lossy(), "[TMP]")
    }
}

/// Copy the `.jsonl` files of a sessions folder (the `.pi.json` records stay behind).
fn copy_sessions(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_sessions(&path, &target);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}
