//! No terminal control reaches the screen: ESC, C0/C1 controls, DEL and bidi overrides in every
//! text the tree view shows (message texts, labels, the session name, tool names and paths, custom
//! types, model ids, the detail pane, inputs) are drawn as harmless characters.

mod tree_support;

use pitree::tui::theme::Theme;
use pitree::tui::tree::TreeView;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use serde_json::json;
use tree_support::*;

const HOSTILE: &str = "a\u{1b}[2J\u{1b}]52;c;cHduZWQ=\u{7}b\u{9b}31mc\u{85}d\u{7f}e\u{8}f\u{0}g\r\n\t\u{202e}h\u{2066}i\u{200f}j\u{2028}k\u{61c}l";

fn is_dangerous(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}' | '\u{2028}' | '\u{2029}')
}

fn assert_clean(view: &TreeView, w: u16, h: u16) {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| view.draw(f, f.area(), &Theme::dark())).unwrap();
    for cell in terminal.backend().buffer().content() {
        assert!(!cell.symbol().chars().any(is_dangerous), "{:?} reached the buffer", cell.symbol());
    }
}

fn hostile_session() -> Build {
    let h = HOSTILE;
    let mut b = Build::new();
    b.entry("model_change", "m1", None, json!({"provider": h, "modelId": h}))
        .entry("thinking_level_change", "t1", Some("m1"), json!({"thinkingLevel": h}))
        .user("u1", Some("t1"), h)
        .message(
            "a1",
            Some("u1"),
            json!({"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "text", "text": h}, {"type": "thinking", "thinking": h},
            {"type": "toolCall", "id": "c1", "name": h, "arguments": {"path": h, "command": h}},
            {"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": h}}]}),
        )
        .tool_result("r1", Some("a1"), "c1", h, h)
        .tool_result("r2", Some("r1"), "c2", "read", h)
        .message("b1", Some("r2"), json!({"role": "bashExecution", "command": h, "output": h, "exitCode": 1}))
        .message(
            "e1",
            Some("b1"),
            json!({"role": "assistant", "stopReason": "error", "content": [], "errorMessage": h}),
        )
        .entry("custom_message", "cm", Some("e1"), json!({"customType": h, "content": h, "display": true}))
        .entry("custom", "cu", Some("cm"), json!({"customType": h}))
        .entry("branch_summary", "bs", Some("cu"), json!({"summary": h, "fromId": h}))
        .entry(
            "compaction",
            "co",
            Some("bs"),
            json!({"summary": h, "tokensBefore": 1, "firstKeptEntryId": "u1"}),
        )
        .entry(h, "un", Some("co"), json!({}))
        .entry("label", "l1", Some("un"), json!({"targetId": "u1", "label": h}))
        .entry("session_info", "s1", Some("l1"), json!({"name": h}));
    b
}

#[test]
fn hostile_text_never_reaches_the_buffer() {
    let (_d, path) = hostile_session().write();
    let mut view = open(&path);
    press(&mut view, shift('T'));
    press(&mut view, ctrl('a'));
    let rows = view.rows().len();
    assert!(rows >= 14, "every entry is a row in the all filter: {rows}");
    for _ in 0..rows {
        assert_clean(&view, 140, 40);
        assert_clean(&view, 60, 15);
        press(&mut view, key(KeyCode::Up));
    }
    for text in view.row_texts() {
        assert!(!text.chars().any(is_dangerous), "{text:?}");
    }
}

#[test]
fn hostile_text_in_inputs_and_the_search_is_drawn_clean() {
    let (_d, path) = hostile_session().write();
    let mut view = open(&path);
    view.handle_paste(HOSTILE);
    assert_clean(&view, 120, 30);
    press(&mut view, key(KeyCode::Esc));
    press(&mut view, ctrl('a'));
    press(&mut view, key(KeyCode::Home));
    press(&mut view, key(KeyCode::Down));
    press(&mut view, key(KeyCode::Down));
    press(&mut view, shift('L'));
    assert_clean(&view, 120, 30);
    press(&mut view, key(KeyCode::Esc));
    press(&mut view, key(KeyCode::Enter));
    press(&mut view, key(KeyCode::Enter));
    assert_clean(&view, 120, 30);
}

#[test]
fn the_unicode_fixture_is_drawn_clean_in_every_pane() {
    let mut view = open(&scenario("unicode"));
    press(&mut view, ctrl('a'));
    for _ in 0..view.rows().len() {
        assert_clean(&view, 150, 45);
        press(&mut view, key(KeyCode::Up));
    }
}
