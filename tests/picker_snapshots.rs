//! Whole-screen snapshots of the picker on a `TestBackend`, one per state: loading, loaded, each
//! sort, searching (with the highlighted cells checked separately, since a text snapshot has no
//! styles), the named filter, the path column, rename, delete confirmation, the undo offer, empty
//! states, a 60×15 terminal, the preview pane, and the fixture session full of hostile text.
//! The sessions are a temporary copy of `tests/fixtures/agent`; the clock is fixed and the
//! temporary folder is written as `[TMP]`.

mod picker_support;

use picker_support::*;
use pitree::tui::app::Event;
use pitree::tui::picker::source::Found;
use pitree::tui::picker::state::{ScanUpdate, ScopeKind};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Modifier;

const ALPHA: &str = "/home/dev/alpha";

fn current(f: &Fixtures) -> Harness {
    let mut h = Harness::new(false);
    h.load(ScopeKind::Current, f.in_folder(ALPHA));
    h
}

fn all(f: &Fixtures) -> Harness {
    let mut h = Harness::new(true);
    h.load(ScopeKind::All, f.sessions.clone());
    h
}

fn snap(name: &str, f: &Fixtures, h: &mut Harness, width: u16, height: u16) {
    let screen = f.redact(&h.screen(width, height));
    insta::assert_snapshot!(name, screen);
}

#[test]
fn picker_loading() {
    let f = Fixtures::copy();
    let mut h = Harness::new(true);
    h.report(ScopeKind::All, 1, ScanUpdate::Progress { done: 0, total: 14 });
    let first: Vec<Found> = f.sessions[..4].iter().cloned().map(Found::new).collect();
    h.report(ScopeKind::All, 1, ScanUpdate::Found(first));
    h.report(ScopeKind::All, 1, ScanUpdate::Progress { done: 4, total: 14 });
    snap("picker_loading", &f, &mut h, 120, 24);
}

#[test]
fn picker_loading_before_any_progress() {
    let f = Fixtures::copy();
    let mut h = Harness::new(false);
    snap("picker_loading_empty", &f, &mut h, 120, 12);
}

#[test]
fn picker_loaded_current_threaded() {
    let f = Fixtures::copy();
    let mut h = current(&f);
    snap("picker_current_threaded", &f, &mut h, 120, 24);
}

#[test]
fn picker_loaded_all_with_preview() {
    let f = Fixtures::copy();
    let mut h = all(&f);
    h.answer_previews();
    snap("picker_all_preview", &f, &mut h, 140, 40);
}

#[test]
fn picker_sorts() {
    let f = Fixtures::copy();
    let mut h = all(&f);
    h.code(KeyCode::F(2));
    h.press(ctrl('s'));
    snap("picker_sort_recent", &f, &mut h, 120, 24);
    h.type_text("rate");
    h.press(ctrl('s'));
    snap("picker_sort_fuzzy_query", &f, &mut h, 120, 24);
    h.press(ctrl('s'));
    snap("picker_sort_threaded_query", &f, &mut h, 120, 24);
}

#[test]
fn picker_search_highlights_matches() {
    let f = Fixtures::copy();
    let mut h = current(&f);
    h.code(KeyCode::F(2));
    h.type_text("auth");
    snap("picker_search", &f, &mut h, 100, 16);
    let buffer = h.buffer(100, 16);
    let row = (0..16)
        .find(|&y| buffer[(2, y)].symbol() == "A" && buffer[(3, y)].symbol() == "u")
        .expect("the match row");
    for x in 2..6 {
        assert!(buffer[(x, row)].modifier.contains(Modifier::UNDERLINED), "column {x} is highlighted");
    }
    assert!(!buffer[(7, row)].modifier.contains(Modifier::UNDERLINED), "the rest is not");
}

#[test]
fn picker_named_filter_and_path_column() {
    let f = Fixtures::copy();
    let mut h = all(&f);
    h.code(KeyCode::F(2));
    h.press(ctrl('n'));
    snap("picker_named", &f, &mut h, 120, 16);
    h.press(ctrl('n'));
    h.press(ctrl('p'));
    snap("picker_path_on", &f, &mut h, 200, 24);
}

#[test]
fn picker_rename_panel() {
    let f = Fixtures::copy();
    let mut h = current(&f);
    h.code(KeyCode::F(2));
    h.type_text("Auth");
    h.press(ctrl('r'));
    h.type_text(" v2");
    snap("picker_rename", &f, &mut h, 120, 16);
}

#[test]
fn picker_delete_confirmation_and_undo_offer() {
    let f = Fixtures::copy();
    let mut h = current(&f);
    h.code(KeyCode::F(2));
    h.press(ctrl('d'));
    snap("picker_delete_confirm", &f, &mut h, 120, 16);
    h.code(KeyCode::Enter);
    let path = h.app.picker.selected().unwrap().path.clone();
    let trashed = pitree::store::trash::Trashed { original: path.clone() };
    h.send(Event::Deleted { path, result: Ok(trashed) });
    snap("picker_undo_offer", &f, &mut h, 120, 16);
}

#[test]
fn picker_empty_states() {
    let f = Fixtures::copy();
    let mut h = Harness::new(false);
    h.load(ScopeKind::Current, Vec::new());
    snap("picker_empty_current", &f, &mut h, 100, 10);
    h.press(ctrl('n'));
    snap("picker_empty_current_named", &f, &mut h, 100, 10);
    let mut h = all(&f);
    h.type_text("zzzzqqqq");
    snap("picker_empty_search", &f, &mut h, 100, 10);
}

#[test]
fn picker_narrow_terminal() {
    let f = Fixtures::copy();
    let mut h = all(&f);
    snap("picker_narrow", &f, &mut h, 60, 15);
}

#[test]
fn picker_hostile_text() {
    let f = Fixtures::copy();
    let mut h = Harness::new(true);
    h.load(ScopeKind::All, f.in_folder("/home/dev/项目 ✨"));
    h.answer_previews();
    let screen = h.screen(120, 30);
    for bad in ['\x1b', '\u{202e}', '\u{202c}', '\t', '\u{7}'] {
        assert!(!screen.contains(bad), "{bad:?} reached the screen");
    }
    snap("picker_hostile", &f, &mut h, 120, 30);
    snap("picker_hostile_narrow", &f, &mut h, 60, 15);
}

#[test]
fn picker_help_overlay() {
    let f = Fixtures::copy();
    let mut h = current(&f);
    h.press(KeyEvent::new(KeyCode::F(1), KeyModifiers::NONE));
    snap("picker_help", &f, &mut h, 120, 40);
}
