//! The tree view's reducer against pi's tree behaviors (pi-reference §5, 90–112) and the six fold
//! scenarios of §3.5, on small sessions written to temp files. Where pitree deliberately differs
//! (§6.2: Enter on the leaf resumes, leaf moves are written, no summary prompt when nothing is left
//! behind), the test says so.

mod tree_support;

use pitree::session::Session;
use pitree::session::summary::PREAMBLE;
use pitree::store::{Action, write_action};
use pitree::tui::keymap::{Action as KeyAction, KeyChord, Keybindings, keybindings_path};
use pitree::tui::tree::{FilterMode, Report, Screen, TreeOptions, TreeOutcome, TreeView};
use ratatui::crossterm::event::KeyCode;
use serde_json::json;
use tree_support::*;

/// pi's fold test tree: user-1 → asst-1 → user-2 → asst-2, which branches into
/// user-3b → asst-3b → user-4b (older) and user-3a → asst-3a → user-4a → asst-4a (the leaf).
fn fold_tree() -> Build {
    let mut b = Build::new();
    b.user("user-1", None, "one")
        .assistant("asst-1", Some("user-1"), "reply one")
        .user("user-2", Some("asst-1"), "two")
        .assistant("asst-2", Some("user-2"), "reply two")
        .user("user-3b", Some("asst-2"), "three b")
        .assistant("asst-3b", Some("user-3b"), "reply three b")
        .user("user-4b", Some("asst-3b"), "four b")
        .user("user-3a", Some("asst-2"), "three a")
        .assistant("asst-3a", Some("user-3a"), "reply three a")
        .user("user-4a", Some("asst-3a"), "four a")
        .assistant("asst-4a", Some("user-4a"), "reply four a");
    b
}

fn sel(view: &TreeView) -> String {
    selected_id(view).unwrap()
}

fn select(view: &mut TreeView, id: &str) {
    for _ in 0..view.rows().len() {
        if sel(view) == id {
            return;
        }
        press(view, key(KeyCode::Down));
    }
    panic!("{id} is not visible");
}

// ----- the six fold scenarios (behavior 93) -------------------------------------------------------

#[test]
fn fold_1_ctrl_left_jumps_to_the_segment_start_then_folds_it() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    assert_eq!(sel(&v), "asst-4a");
    press(&mut v, ctrl_key(KeyCode::Left));
    assert_eq!(sel(&v), "user-3a");
    press(&mut v, ctrl_key(KeyCode::Left));
    assert_eq!(sel(&v), "user-3a", "folding keeps the selection");
    assert!(!row_ids(&v).contains(&"asst-3a".to_string()));
    press(&mut v, key(KeyCode::Down));
    assert_eq!(sel(&v), "user-3b", "↓ skips the folded branch");
}

#[test]
fn fold_2_ctrl_right_unfolds_then_jumps_to_the_end_of_the_branch() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    press(&mut v, ctrl_key(KeyCode::Left));
    press(&mut v, ctrl_key(KeyCode::Left));
    press(&mut v, ctrl_key(KeyCode::Right));
    assert_eq!(sel(&v), "user-3a");
    assert!(row_ids(&v).contains(&"asst-4a".to_string()), "unfolded");
    press(&mut v, ctrl_key(KeyCode::Right));
    assert_eq!(sel(&v), "asst-4a");
}

#[test]
fn fold_3_up_to_the_root_fold_it_wrap_unfold_keeps_nested_folds() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    press(&mut v, alt(KeyCode::Left));
    press(&mut v, alt(KeyCode::Left));
    press(&mut v, alt(KeyCode::Left));
    assert_eq!(sel(&v), "user-1", "from a folded segment start, Alt+← climbs to the root");
    press(&mut v, alt(KeyCode::Left));
    assert_eq!(row_ids(&v), ["user-1"], "the root is folded");
    press(&mut v, key(KeyCode::Down));
    assert_eq!(sel(&v), "user-1", "↓ wraps onto the only row");
    press(&mut v, alt(KeyCode::Right));
    assert_eq!(sel(&v), "user-1");
    press(&mut v, alt(KeyCode::Right));
    assert_eq!(sel(&v), "user-3a", "jumps to the first child of the branch point, still folded");
    assert!(!row_ids(&v).contains(&"asst-3a".to_string()));
    press(&mut v, key(KeyCode::Down));
    assert_eq!(sel(&v), "user-3b");
}

fn two_roots() -> Build {
    let mut b = Build::new();
    b.user("user-1", None, "first root")
        .assistant("asst-1", Some("user-1"), "reply")
        .user("user-2", None, "second root")
        .assistant("asst-2", Some("user-2"), "reply two");
    b
}

#[test]
fn fold_4_multiple_roots_fold_one_and_jump_down_the_other() {
    let (_d, path) = two_roots().write();
    let mut v = open(&path);
    assert_eq!(row_ids(&v), ["user-2", "asst-2", "user-1", "asst-1"], "the root holding the leaf first");
    select(&mut v, "user-1");
    press(&mut v, ctrl_key(KeyCode::Left));
    assert_eq!(row_ids(&v), ["user-2", "asst-2", "user-1"]);
    press(&mut v, key(KeyCode::Down));
    assert_eq!(sel(&v), "user-2");
    press(&mut v, ctrl_key(KeyCode::Right));
    assert_eq!(sel(&v), "asst-2");
}

#[test]
fn fold_5_a_folded_root_with_several_roots_stays_put() {
    let (_d, path) = two_roots().write();
    let mut v = open(&path);
    select(&mut v, "user-1");
    press(&mut v, ctrl_key(KeyCode::Left));
    press(&mut v, ctrl_key(KeyCode::Left));
    assert_eq!(sel(&v), "user-1");
    assert!(v.row_texts()[2].contains("⊞ "), "a folded root shows the fold marker: {:?}", v.row_texts());
}

#[test]
fn fold_6_a_folded_root_hides_descendants_through_hidden_entries() {
    let mut b = Build::new();
    b.user("u1", None, "go")
        .tool_call("a1", Some("u1"), "c1", "read", json!({"path": "x"}))
        .tool_result("r1", Some("a1"), "c1", "read", "content")
        .assistant("a2", Some("r1"), "done")
        .user("u2", None, "other root");
    let (_d, path) = b.write();
    let mut v = open(&path);
    assert_eq!(row_ids(&v), ["u2", "u1", "r1", "a2"], "the tool-call-only assistant is hidden");
    select(&mut v, "u1");
    press(&mut v, ctrl_key(KeyCode::Left));
    assert_eq!(row_ids(&v), ["u2", "u1"]);
}

fn ctrl_key(code: KeyCode) -> ratatui::crossterm::event::KeyEvent {
    ratatui::crossterm::event::KeyEvent::new(code, ratatui::crossterm::event::KeyModifiers::CONTROL)
}

// ----- selection and filters (90–92, 94–95, 99–100) ------------------------------------------------

#[test]
fn b90_a_model_change_leaf_selects_its_parent_not_a_later_sibling() {
    let mut b = Build::new();
    b.user("user-1", None, "one").assistant("asst-1", Some("user-1"), "r").user(
        "user-2",
        Some("asst-1"),
        "two",
    );
    b.entry(
        "message",
        "user-3",
        Some("user-2"),
        json!({"timestamp": "2026-03-01T01:00:00.000Z",
        "message": {"role": "user", "content": "three"}}),
    );
    b.entry("model_change", "mc", Some("user-2"), json!({"provider": "p", "modelId": "m"}));
    let (_d, path) = b.write();
    let v = open(&path);
    assert_eq!(sel(&v), "user-2");
}

#[test]
fn b91_filters_keep_the_nearest_visible_ancestor() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    select(&mut v, "asst-2");
    press(&mut v, ctrl('u'));
    assert_eq!(sel(&v), "user-2");
    press(&mut v, ctrl('d'));
    assert_eq!(sel(&v), "user-2");
}

#[test]
fn b92_an_empty_filter_keeps_the_selection_for_later() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    select(&mut v, "asst-3b");
    press(&mut v, ctrl('l'));
    assert!(v.rows().is_empty());
    assert_eq!(v.status_line(), "(0/0) [labeled]");
    assert!(render(&v, 80, 20).contains("No entries found"));
    press(&mut v, ctrl('d'));
    assert_eq!(sel(&v), "asst-3b");
}

#[test]
fn b94_a_search_edit_resets_folds() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    press(&mut v, ctrl_key(KeyCode::Left));
    press(&mut v, ctrl_key(KeyCode::Left));
    type_text(&mut v, "b");
    press(&mut v, key(KeyCode::Esc));
    assert_eq!(v.query(), "");
    assert!(row_ids(&v).contains(&"asst-3a".to_string()), "user-3a's children are visible again");
}

#[test]
fn b95_a_filter_change_resets_folds() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    press(&mut v, ctrl_key(KeyCode::Left));
    press(&mut v, ctrl_key(KeyCode::Left));
    press(&mut v, ctrl('u'));
    press(&mut v, ctrl('d'));
    assert!(row_ids(&v).contains(&"asst-3a".to_string()));
}

#[test]
fn b99_b100_filter_modes_show_what_pi_shows() {
    let mut b = Build::new();
    b.entry("model_change", "mc", None, json!({"provider": "p", "modelId": "gpt-x"}))
        .entry("thinking_level_change", "th", Some("mc"), json!({"thinkingLevel": "high"}))
        .user("u1", Some("th"), "hello")
        .tool_call("a1", Some("u1"), "c1", "bash", json!({"command": "ls"}))
        .tool_result("r1", Some("a1"), "c1", "bash", "out")
        .assistant("a2", Some("r1"), "done")
        .entry("custom", "cu", Some("a2"), json!({"customType": "ext.note"}))
        .entry("label", "lb", Some("cu"), json!({"targetId": "u1", "label": "start"}));
    let (_d, path) = b.write();
    let mut v = open(&path);
    let texts = |v: &TreeView| v.row_texts().join("\n");
    assert_eq!(row_ids(&v), ["u1", "r1", "a2"]);
    press(&mut v, ctrl('a'));
    let all = texts(&v);
    for shown in ["[model: gpt-x]", "[thinking: high]", "[custom: ext.note]", "[label: start]"] {
        assert!(all.contains(shown), "{shown} in {all}");
    }
    assert!(!row_ids(&v).contains(&"a1".to_string()), "tool-call-only assistants stay hidden in all");
    press(&mut v, ctrl('t'));
    assert_eq!(row_ids(&v), ["u1", "a2"], "no-tools");
    press(&mut v, ctrl('u'));
    assert_eq!(row_ids(&v), ["u1"], "user-only");
    press(&mut v, ctrl('o'));
    assert_eq!(v.filter().name(), "labeled-only");
    assert_eq!(row_ids(&v), ["u1"]);
    press(&mut v, ctrl('o'));
    press(&mut v, ctrl('o'));
    assert_eq!(v.filter().name(), "default", "Ctrl+O cycles back to default");
    press(
        &mut v,
        ratatui::crossterm::event::KeyEvent::new(
            KeyCode::Char('o'),
            ratatui::crossterm::event::KeyModifiers::CONTROL | ratatui::crossterm::event::KeyModifiers::SHIFT,
        ),
    );
    assert_eq!(v.filter().name(), "all", "Shift+Ctrl+O cycles backwards");
}

// ----- row texts (98, 101–103) ------------------------------------------------------------------

#[test]
fn b98_tool_call_only_assistants_hide_unless_leaf_and_errors_show() {
    let mut b = Build::new();
    b.user("u1", None, "go").message(
        "e1",
        Some("u1"),
        json!({"role": "assistant", "stopReason": "error",
        "content": [], "errorMessage": format!("overloaded {}", "x".repeat(100))}),
    );
    b.tool_call("a1", Some("e1"), "c1", "read", json!({"path": "x"}));
    let (_d, path) = b.write();
    let v = open(&path);
    assert_eq!(row_ids(&v), ["u1", "e1", "a1"], "the tool-call-only assistant is the leaf, so it shows");
    let error_row = &v.row_texts()[1];
    assert_eq!(error_row, &format!("• assistant: overloaded {}", "x".repeat(69)));
}

#[test]
fn b101_b102_compaction_and_tool_call_rows() {
    let mut b = Build::new();
    b.user("u1", None, "go")
        .tool_call(
            "a1",
            Some("u1"),
            "c1",
            "read",
            json!({"path": "/home/dev/a.ts", "offset": 10, "limit": 5}),
        )
        .tool_result("r1", Some("a1"), "c1", "read", "x")
        .tool_call("a2", Some("r1"), "c2", "bash", json!({"command": "y".repeat(60)}))
        .tool_result("r2", Some("a2"), "c2", "bash", "x")
        .entry(
            "compaction",
            "cp",
            Some("r2"),
            json!({"summary": "s", "tokensBefore": 12345, "firstKeptEntryId": "u1"}),
        );
    let (_d, path) = b.write();
    let v = open(&path);
    let texts = v.row_texts();
    assert_eq!(texts[1], "• [read: ~/a.ts:10-14]");
    assert_eq!(texts[2], format!("• [bash: {}...]", "y".repeat(50)));
    assert_eq!(texts[3], "• [compaction: 12k tokens] ← leaf");
}

#[test]
fn b103_the_path_marker_is_on_exactly_the_active_path_and_the_leaf_is_tagged() {
    let (_d, path) = fold_tree().write();
    let v = open(&path);
    let on_path = ["user-1", "asst-1", "user-2", "asst-2", "user-3a", "asst-3a", "user-4a", "asst-4a"];
    for (id, text) in row_ids(&v).iter().zip(v.row_texts()) {
        assert_eq!(text.contains("• "), on_path.contains(&id.as_str()), "{text}");
        assert!(!text.contains("← active"));
        assert_eq!(text.ends_with(" ← leaf"), id == "asst-4a", "{text}");
    }
}

// ----- Enter (104–110) ---------------------------------------------------------------------------

/// Execute a write outcome the way the app does and report it back.
fn execute(v: &mut TreeView, out: TreeOutcome) -> serde_json::Value {
    let TreeOutcome::Write(action) = out else { panic!("expected a write, got {out:?}") };
    let written = write_action(v.path(), Some(v.session()), None, &action).unwrap();
    let session = Session::open(v.path()).unwrap();
    v.apply(Report::Written(Ok(session)));
    v.load_detail();
    written.line
}

#[test]
fn b104_enter_on_the_leaf_resumes_without_writing() {
    let (_d, path) = fold_tree().write();
    let before = std::fs::read(&path).unwrap();
    let mut v = open(&path);
    assert_eq!(press(&mut v, key(KeyCode::Enter)), TreeOutcome::Resume { prompt: None });
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn b105_enter_on_a_user_message_moves_to_its_parent_and_offers_the_text() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    select(&mut v, "user-4b");
    press(&mut v, key(KeyCode::Enter));
    assert_eq!(v.screen(), Screen::MoveDialog);
    let out = press(&mut v, key(KeyCode::Enter));
    assert_eq!(out, TreeOutcome::Write(Action::MoveLeaf { target: Some("asst-3b".into()) }));
    let line = execute(&mut v, out);
    assert_eq!(line["customType"], "pitree.leaf");
    assert_eq!(line["parentId"], "asst-3b");
    assert_eq!(sel(&v), "asst-3b", "the selection follows the new leaf");
    assert!(v.row_texts().iter().any(|t| t.contains("reply three b ← leaf")));
    assert_eq!(v.screen(), Screen::PromptEditor);
    assert_eq!(v.input_text(), Some("four b"));
    type_text(&mut v, "!");
    assert_eq!(press(&mut v, key(KeyCode::Enter)), TreeOutcome::Resume { prompt: Some("four b!".into()) });
}

#[test]
fn b106_enter_on_the_root_user_message_moves_before_the_root() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    press(&mut v, key(KeyCode::Home));
    assert_eq!(sel(&v), "user-1");
    press(&mut v, key(KeyCode::Enter));
    let out = press(&mut v, key(KeyCode::Char('1')));
    assert_eq!(out, TreeOutcome::Write(Action::MoveLeaf { target: None }));
    let line = execute(&mut v, out);
    assert_eq!(line["parentId"], serde_json::Value::Null);
    assert_eq!(v.input_text(), Some("one"));
}

#[test]
fn b107_a_written_summary_is_a_branch_summary_on_the_target() {
    let mut b = fold_tree();
    b.tool_call("call", Some("asst-4a"), "c9", "edit", json!({"path": "src/x.rs"}))
        .tool_result("res", Some("call"), "c9", "edit", "ok")
        .assistant("end", Some("res"), "edited");
    let (_d, path) = b.write();
    let mut v = open(&path);
    select(&mut v, "asst-3b");
    press(&mut v, key(KeyCode::Enter));
    assert_eq!(v.move_choices().len(), 4);
    press(&mut v, key(KeyCode::Down));
    press(&mut v, key(KeyCode::Enter));
    assert_eq!(v.screen(), Screen::SummaryEditor);
    assert!(v.input_text().unwrap().starts_with(PREAMBLE));
    let out = press(&mut v, ctrl('s'));
    let TreeOutcome::Write(Action::MoveLeafWithSummary { target, modified_files, .. }) = &out else {
        panic!("{out:?}")
    };
    assert_eq!(target.as_deref(), Some("asst-3b"));
    assert_eq!(modified_files, &["src/x.rs"]);
    let line = execute(&mut v, out);
    assert_eq!(line["type"], "branch_summary");
    assert_eq!(line["parentId"], "asst-3b");
    assert_eq!(line["fromId"], "end", "pi 1.6.0: fromId is the abandoned leaf");
    assert_eq!(line["details"]["modifiedFiles"], json!(["src/x.rs"]));
    assert!(
        line["summary"].as_str().unwrap().starts_with("The user explored a different conversation branch")
    );
}

#[test]
fn b107_the_summarizer_output_is_edited_before_writing_and_a_failure_falls_back_to_the_draft() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    select(&mut v, "asst-3b");
    press(&mut v, key(KeyCode::Enter));
    let out = press(&mut v, key(KeyCode::Char('3')));
    let TreeOutcome::RunSummarizer { target } = out else { panic!("{out:?}") };
    assert!(v.busy());
    let input = v.summarizer_input(target);
    assert!(input.starts_with("<conversation>\n[User]: three a"), "{input}");
    assert!(input.contains("[Assistant]: reply four a"));
    assert!(!input.contains("reply three b"));
    assert_eq!(v.tick(), TreeOutcome::Redraw);
    v.apply(Report::Summary(Ok("## Goal\nTry A\n".into())));
    assert_eq!(v.input_text().unwrap(), format!("{PREAMBLE}## Goal\nTry A"));
    press(&mut v, key(KeyCode::Esc));
    assert_eq!(v.screen(), Screen::MoveDialog, "Esc in the editor goes back to the dialog");
    press(&mut v, key(KeyCode::Char('3')));
    v.apply(Report::Summary(Err("pi: command not found".into())));
    assert_eq!(v.screen(), Screen::SummaryEditor);
    assert!(v.status().unwrap().contains("command not found"));
    assert!(v.input_text().unwrap().starts_with(PREAMBLE), "the draft");
    let screen = render(&v, 100, 30);
    let title = screen.lines().find(|l| l.contains("Branch summary")).unwrap();
    assert!(title.contains("Summarizer failed: pi: command not found"), "said in the editor:\n{screen}");
    press(&mut v, key(KeyCode::Char('x')));
    assert!(render(&v, 100, 30).contains("Summarizer failed"), "and it stays while the draft is edited");
    press(&mut v, key(KeyCode::Esc));
    press(&mut v, key(KeyCode::Char('2')));
    assert!(!render(&v, 100, 30).contains("Summarizer failed"), "a draft asked for is just the draft");
    press(&mut v, key(KeyCode::Esc));
    press(&mut v, key(KeyCode::Char('3')));
    v.apply(Report::Summary(Err("exit status 1".into())));
    press(&mut v, key(KeyCode::Esc));
    press(&mut v, key(KeyCode::Char('3')));
    v.apply(Report::Summary(Ok("## Goal\nB".into())));
    assert!(!render(&v, 100, 30).contains("Summarizer failed"), "a later success is not called a failure");
}

/// Issue 28: a long line of the summary draft wraps in the editor, and moving the cursor along the
/// whole draft (→ from its start) scrolls the box so that the cursor stays in it, on the character
/// it is at: the rest of the line is revealed row by row. ↑ from the end reaches the start.
#[test]
fn b107_moving_along_a_long_summary_line_reveals_the_rest() {
    // 235 characters: the draft takes the first 256 of a message.
    let goal: Vec<String> = (1..=35).map(|n| format!("word{n}")).collect();
    let mut b = Build::new();
    b.user("u1", None, "start")
        .assistant("a1", Some("u1"), "ok")
        .user("u2", Some("a1"), "the other way")
        .user("u3", Some("a1"), &goal.join(" "))
        .assistant("a3", Some("u3"), "done");
    let (_d, path) = b.write();
    let mut v = open(&path);
    select(&mut v, "a1");
    press(&mut v, key(KeyCode::Enter));
    press(&mut v, key(KeyCode::Down));
    press(&mut v, key(KeyCode::Enter));
    assert_eq!(v.screen(), Screen::SummaryEditor);
    let text: Vec<char> = v.input_text().unwrap().chars().collect();
    assert!(text.iter().all(char::is_ascii), "one cell per character");
    // 40×14: the box is 36×10 at (2, 2), its text area 34×8 at (3, 3), wrapped at 33 columns.
    let (w, h) = (40, 14);
    let (screen, _) = render_with_cursor(&v, w, h);
    assert!(!screen.contains("word1 "), "the start is scrolled away:\n{screen}");
    for _ in 0..text.len() {
        press(&mut v, key(KeyCode::Up));
    }
    press(&mut v, key(KeyCode::Home));
    let mut rows_seen = std::collections::BTreeSet::new();
    for at in 0..=text.len() {
        let (screen, cursor) = render_with_cursor(&v, w, h);
        assert!((3..37).contains(&cursor.x) && (3..11).contains(&cursor.y), "{cursor:?}\n{screen}");
        let expected = match text.get(at) {
            Some(&c) if c != '\n' => c.to_string(),
            _ => " ".to_string(),
        };
        assert_eq!(cell_at(&screen, cursor), expected, "at {at}\n{screen}");
        rows_seen.insert(screen.lines().nth(usize::from(cursor.y)).unwrap().to_string());
        press(&mut v, key(KeyCode::Right));
    }
    assert!(rows_seen.iter().any(|r| r.contains("word35")), "the line's end was shown: {rows_seen:#?}");
    let text: String = text.iter().collect();
    let words: std::collections::HashSet<&str> = text.split_whitespace().collect();
    for row in &rows_seen {
        let inside = row.split('│').nth(1).unwrap_or_default();
        assert!(inside.split_whitespace().all(|w| words.contains(w)), "rows end between words: {row:?}");
    }
    assert_eq!(v.input_text().unwrap(), text, "the wrap is not saved");
}

#[test]
fn b107_esc_cancels_a_running_summarizer() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    select(&mut v, "asst-3b");
    press(&mut v, key(KeyCode::Enter));
    press(&mut v, key(KeyCode::Char('3')));
    assert_eq!(press(&mut v, key(KeyCode::Esc)), TreeOutcome::CancelSummarizer);
    assert_eq!(v.screen(), Screen::MoveDialog);
    assert_eq!(v.apply(Report::Summary(Ok("late".into()))), TreeOutcome::Ignored);
}

#[test]
fn b108_esc_in_the_dialog_keeps_selection_filter_and_folds() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    press(&mut v, ctrl('t'));
    select(&mut v, "user-3b");
    press(&mut v, ctrl_key(KeyCode::Left));
    select(&mut v, "asst-2");
    let rows = row_ids(&v);
    press(&mut v, key(KeyCode::Enter));
    assert_eq!(v.screen(), Screen::MoveDialog);
    assert_eq!(press(&mut v, key(KeyCode::Esc)), TreeOutcome::Redraw);
    assert_eq!(v.screen(), Screen::List);
    assert_eq!((sel(&v), row_ids(&v), v.filter().name()), ("asst-2".to_string(), rows, "no-tools"));
}

#[test]
fn b109_no_summary_options_when_nothing_is_left_behind() {
    let mut b = Build::new();
    b.user("u1", None, "one").assistant("a1", Some("u1"), "r1").user("u2", Some("a1"), "two");
    b.assistant("a2", Some("u2"), "r2").entry(
        "custom",
        "mark",
        Some("a1"),
        json!({"customType": "pitree.leaf", "data": {"fromId": "a2"}}),
    );
    let (_d, path) = b.write();
    let mut v = open(&path);
    assert_eq!(sel(&v), "a1", "the marker leaf is represented by its parent");
    assert!(v.row_texts()[1].ends_with("r1 ← leaf"));
    select(&mut v, "a2");
    press(&mut v, key(KeyCode::Enter));
    assert_eq!(v.move_choices(), ["No summary", "Cancel"]);
}

#[test]
fn b110_the_summarizer_gets_the_abandoned_segment_below_the_common_ancestor() {
    let mut b = Build::new();
    b.user("A", None, "a").assistant("B", Some("A"), "b").user("C", Some("B"), "c");
    b.assistant("G", Some("C"), "g").assistant("D", Some("C"), "d").user("E", Some("D"), "e");
    b.entry(
        "compaction",
        "cmp",
        Some("E"),
        json!({"summary": "compacted", "tokensBefore": 5, "firstKeptEntryId": "E"}),
    );
    b.assistant("F", Some("cmp"), "f");
    let (_d, path) = b.write();
    let mut v = open(&path);
    select(&mut v, "G");
    let target = v.selected();
    let input = v.summarizer_input(target);
    assert_eq!(
        input.split("</conversation>").next().unwrap(),
        "<conversation>\n[Assistant]: d\n\n[User]: e\n\n[User]: compacted\n\n[Assistant]: f\n"
    );
}

// ----- keys, labels, paging (96–97, 111–112) -----------------------------------------------------

#[test]
fn b96_esc_and_ctrl_c_clear_the_search_then_close() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    for cancel in [key(KeyCode::Esc), ctrl('c')] {
        type_text(&mut v, "four");
        assert_eq!(press(&mut v, cancel), TreeOutcome::Redraw);
        assert_eq!(v.query(), "");
        assert_eq!(press(&mut v, cancel), TreeOutcome::Close);
    }
}

#[test]
fn b97_capital_l_opens_the_label_editor_but_types_in_the_search_field() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    press(&mut v, shift('L'));
    assert_eq!(v.screen(), Screen::LabelInput);
    assert_eq!(v.query(), "");
    press(&mut v, key(KeyCode::Esc));
    press(&mut v, key(KeyCode::Char('/')));
    assert_eq!(v.screen(), Screen::Search);
    type_text(&mut v, "LT/");
    assert_eq!(v.query(), "LT/", "the modal search field takes every printable key (pi quirk fixed)");
    press(&mut v, key(KeyCode::Enter));
    assert_eq!(v.screen(), Screen::List);
}

#[test]
fn b111_page_keys_move_by_the_drawn_list_height() {
    let mut b = Build::new();
    let mut parent: Option<String> = None;
    for i in 0..40 {
        let id = format!("u{i:02}");
        b.user(&id, parent.as_deref(), &format!("message {i}"));
        parent = Some(id);
    }
    let (_d, path) = b.write();
    let mut v = open(&path);
    press(&mut v, key(KeyCode::Tab));
    render(&v, 80, 14);
    press(&mut v, key(KeyCode::Home));
    press(&mut v, key(KeyCode::PageDown));
    assert_eq!(sel(&v), "u10", "14 rows − title, search, status and hint lines = 10 rows");
    press(&mut v, key(KeyCode::Left));
    assert_eq!(sel(&v), "u00");
    press(&mut v, key(KeyCode::Up));
    assert_eq!(sel(&v), "u39", "↑ wraps");
}

#[test]
fn b112_label_edits_write_trimmed_labels_and_clears() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    select(&mut v, "user-3b");
    press(&mut v, shift('L'));
    type_text(&mut v, "  cp  ");
    let out = press(&mut v, key(KeyCode::Enter));
    assert_eq!(out, TreeOutcome::Write(Action::Label { target: "user-3b".into(), label: Some("cp".into()) }));
    let line = execute(&mut v, out);
    assert_eq!((line["label"].as_str(), line["parentId"].as_str()), (Some("cp"), Some("asst-4a")));
    assert_eq!(v.status(), Some("Label saved"));
    assert!(v.row_texts().iter().any(|t| t.contains("[cp] user: three b")));
    assert_eq!(sel(&v), "user-3b");
    press(&mut v, shift('L'));
    assert_eq!(v.input_text(), Some("cp"), "prefilled, cursor at the end");
    press(&mut v, key(KeyCode::Backspace));
    press(&mut v, key(KeyCode::Backspace));
    let out = press(&mut v, key(KeyCode::Enter));
    let line = execute(&mut v, out);
    assert!(line.get("label").is_none());
    assert!(v.row_texts().iter().all(|t| !t.contains("[cp]")));
}

// ----- pitree's own: live warning, copy, fork, rename, search ------------------------------------

#[test]
fn a_live_session_asks_before_any_write() {
    let (_d, path) = fold_tree().write();
    let mut options = options();
    options.live_pid = Some(4242);
    let mut v = open_with(&path, options);
    press(&mut v, shift('L'));
    type_text(&mut v, "x");
    assert_eq!(press(&mut v, key(KeyCode::Enter)), TreeOutcome::Redraw);
    assert_eq!(v.screen(), Screen::Confirm);
    assert!(render(&v, 100, 30).contains("pid 4242"));
    assert_eq!(press(&mut v, key(KeyCode::Char('n'))), TreeOutcome::Redraw);
    assert_eq!(v.status(), Some("Nothing was written"));
    press(&mut v, shift('L'));
    type_text(&mut v, "x");
    press(&mut v, key(KeyCode::Enter));
    let out = press(&mut v, key(KeyCode::Char('y')));
    assert!(matches!(out, TreeOutcome::Write(Action::Label { .. })));
}

#[test]
fn copy_fork_and_rename() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    assert_eq!(press(&mut v, ctrl('x')), TreeOutcome::Copy("reply four a".into()));
    v.apply(Report::Copied(Ok(())));
    assert_eq!(v.status(), Some("Copied selected message to clipboard"));
    press(&mut v, alt(KeyCode::Char('f')));
    assert_eq!(v.screen(), Screen::Confirm);
    let target = v.selected().unwrap();
    assert_eq!(press(&mut v, key(KeyCode::Enter)), TreeOutcome::Fork { target });
    press(&mut v, ctrl('r'));
    type_text(&mut v, "Folds");
    assert_eq!(
        press(&mut v, key(KeyCode::Enter)),
        TreeOutcome::Write(Action::Rename { name: Some("Folds".into()) })
    );
}

#[test]
fn search_covers_the_full_text_once_the_index_is_built() {
    let long = format!("{} needle-at-the-end", "filler ".repeat(2000));
    let mut b = Build::new();
    b.user("u1", None, "short").assistant("a1", Some("u1"), &long).user("u2", Some("a1"), "later");
    let (_d, path) = b.write();
    let mut v = open(&path);
    let job = v.search_job().expect("a job is offered once");
    assert!(v.search_job().is_none());
    type_text(&mut v, "needle");
    assert!(v.rows().is_empty(), "before the index, only the first 400 characters are searched");
    v.apply(Report::SearchIndex(job.run()));
    v.load_detail();
    assert_eq!(row_ids(&v), ["a1"]);
    assert!(v.status_line().starts_with("(1/1)"));
    assert_eq!(press(&mut v, ctrl('n')), TreeOutcome::Redraw);
    let screen = render(&v, 140, 30);
    assert!(screen.contains("needle-at-the-end"), "the detail pane scrolled to the hit:\n{screen}");
}

#[test]
fn search_finds_a_hit_past_the_kept_part_of_a_long_tool_output_through_a_full_text_job() {
    let log: String = (0..3000).map(|i| format!("req={i:07} ok\n")).collect();
    let mut b = Build::new();
    b.user("u1", None, "show the log")
        .tool_call("a1", Some("u1"), "c1", "bash", serde_json::json!({"command": "cat server.log"}))
        .tool_result("t1", Some("a1"), "c1", "bash", &log)
        .assistant("a2", Some("t1"), "done");
    let (_d, path) = b.write();
    let mut v = open(&path);
    let job = v.search_job().unwrap();
    v.apply(Report::SearchIndex(job.run()));
    assert!(v.full_text_job().is_none(), "no query, nothing to look for");
    type_text(&mut v, "req=0000050");
    assert_eq!(row_ids(&v), ["t1"], "inside the kept part");
    assert!(v.full_text_job().is_some_and(|job| matches!(job.run(), Report::FullTextMatches { .. })));
    press(&mut v, key(KeyCode::Backspace));
    type_text(&mut v, "0");
    assert!(v.full_text_job().is_none(), "one job at a time");
    let searched = std::sync::Arc::new(Session::open(&path).unwrap());
    v.apply(Report::FullTextMatches { query: "req=0000050".into(), entries: vec![2], session: searched });
    for _ in 0.."0000050".len() {
        press(&mut v, key(KeyCode::Backspace));
    }
    type_text(&mut v, "0002999 ok");
    assert!(v.rows().is_empty(), "the end of the log is past the kept part");
    let job = v.full_text_job().expect("a job for the query now typed");
    assert!(v.full_text_job().is_none());
    assert_eq!(v.apply(job.run()), TreeOutcome::Redraw);
    assert_eq!(row_ids(&v), ["t1"], "found in the whole text");
    assert!(v.full_text_job().is_none(), "done for this query");
    type_text(&mut v, " missing");
    let job = v.full_text_job().unwrap();
    v.apply(job.run());
    assert!(v.rows().is_empty(), "every token must be there");

    // A pass over a file that was since replaced (another first line) adds nothing.
    press(&mut v, key(KeyCode::Esc));
    type_text(&mut v, "0002999 ok");
    let (_other_dir, other) = Build::new().write();
    let mut text = std::fs::read_to_string(&other).unwrap().replacen("\"id\":\"", "\"id\":\"x", 1);
    text.push('\n');
    std::fs::write(&other, text).unwrap();
    let replaced = std::sync::Arc::new(Session::open(&other).unwrap());
    let _ = v.full_text_job();
    let stale = Report::FullTextMatches { query: "0002999 ok".into(), entries: vec![2], session: replaced };
    assert_eq!(v.apply(stale), TreeOutcome::Ignored);
    assert!(v.rows().is_empty());
    assert!(v.full_text_job().is_some(), "and the pass is asked again");
}

#[test]
fn search_tokens_and_across_label_and_text_and_highlight() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    press(&mut v, key(KeyCode::Char('/')));
    type_text(&mut v, "REPLY four");
    assert_eq!(row_ids(&v), ["asst-4a"]);
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 12)).unwrap();
    let theme = pitree::tui::theme::Theme::dark();
    terminal.draw(|f| v.draw(f, f.area(), &theme)).unwrap();
    let buffer = terminal.backend().buffer();
    let row = (0..12)
        .find(|&y| (0..80).map(|x| buffer[(x, y)].symbol()).collect::<String>().contains("reply four"))
        .unwrap();
    let line: String = (0..80).map(|x| buffer[(x, row)].symbol()).collect();
    let at = line.find("reply").unwrap();
    let col = line[..at].chars().count() as u16;
    assert_eq!(buffer[(col, row)].bg, theme.highlight.bg.unwrap(), "hits are highlighted");
}

// ----- keys from the keymap (keybindings.json) ---------------------------------------------------

/// Every key the help overlay lists for the tree view (the keymap's defaults) does the action it
/// is listed for, and none of them types into the search.
#[test]
fn every_key_the_help_lists_for_the_tree_does_its_action() {
    let (_d, path) = fold_tree().write();
    let keys = Keybindings::defaults();
    let help = pitree::tui::help::Help::new(&keys).text();
    let bindings = keys.tree.bindings();
    assert_eq!(bindings.len(), 31, "{bindings:#?}");
    for binding in bindings {
        assert!(!binding.keys.is_empty(), "{:?} has a default key", binding.action);
        let listed =
            format!("{}  {}  ({})", binding.keys.join(", "), binding.description, binding.ids.join(", "));
        assert!(help.contains(&listed), "the help lists {listed:?}");
        for text in &binding.keys {
            let event = KeyChord::parse(text).unwrap().to_event();
            let mut v = open(&path);
            select(&mut v, "asst-2");
            match binding.action {
                KeyAction::FilterDefault => drop(press(&mut v, ctrl('a'))),
                KeyAction::SearchNext | KeyAction::SearchPrev => drop(v.handle_paste("reply")),
                _ => {}
            }
            let (query, rows, selected) = (v.query().to_string(), row_ids(&v), selected_id(&v));
            let detail_shown = render(&v, 120, 32).contains(" Detail ");
            let out = press(&mut v, event);
            let what = format!("{text} ({:?})", binding.action);
            assert_eq!(v.query(), query, "{what} does not type");
            let moved = selected_id(&v) != selected || row_ids(&v) != rows;
            match binding.action {
                KeyAction::Up
                | KeyAction::Down
                | KeyAction::PageUp
                | KeyAction::PageDown
                | KeyAction::First
                | KeyAction::Last
                | KeyAction::FoldOrUp
                | KeyAction::UnfoldOrDown => assert!(moved, "{what} moves"),
                KeyAction::SearchNext | KeyAction::SearchPrev => {
                    assert_eq!(out, TreeOutcome::Redraw, "{what} goes to a hit")
                }
                KeyAction::Confirm => assert_eq!(v.screen(), Screen::MoveDialog, "{what}"),
                KeyAction::Cancel => assert_eq!(out, TreeOutcome::Close, "{what}"),
                KeyAction::Copy => assert_eq!(out, TreeOutcome::Copy("reply two".into()), "{what}"),
                KeyAction::FilterDefault => assert_eq!(v.filter(), FilterMode::Default, "{what}"),
                KeyAction::FilterNoTools => assert_eq!(v.filter(), FilterMode::NoTools, "{what}"),
                KeyAction::FilterUserOnly => assert_eq!(v.filter(), FilterMode::UserOnly, "{what}"),
                KeyAction::FilterLabeledOnly => assert_eq!(v.filter(), FilterMode::LabeledOnly, "{what}"),
                KeyAction::FilterAll => assert_eq!(v.filter(), FilterMode::All, "{what}"),
                KeyAction::FilterCycle => assert_eq!(v.filter(), FilterMode::Default.next(), "{what}"),
                KeyAction::FilterCycleBack => assert_eq!(v.filter(), FilterMode::Default.prev(), "{what}"),
                KeyAction::EditLabel => assert_eq!(v.screen(), Screen::LabelInput, "{what}"),
                KeyAction::ToggleLabelTime => assert!(v.status_line().contains("[+label time]"), "{what}"),
                KeyAction::FocusSearch => assert_eq!(v.screen(), Screen::Search, "{what}"),
                KeyAction::Fork => assert_eq!(v.screen(), Screen::Confirm, "{what}"),
                KeyAction::Rename => assert_eq!(v.screen(), Screen::RenameInput, "{what}"),
                KeyAction::ToggleDetail => {
                    assert!(detail_shown);
                    assert!(!render(&v, 120, 32).contains(" Detail "), "{what} hides the detail pane");
                }
                KeyAction::DetailUp
                | KeyAction::DetailDown
                | KeyAction::DetailPageUp
                | KeyAction::DetailPageDown => {
                    assert_eq!(out, TreeOutcome::Redraw, "{what}");
                    assert!(!moved, "{what} scrolls the detail pane only");
                }
                KeyAction::Help => assert_eq!(out, TreeOutcome::Ignored, "{what}: the app opens the help"),
                other => panic!("{other:?} is a picker action"),
            }
        }
    }
}

/// Keys an earlier keymap listed for the tree view that the tree view never had.
#[test]
fn keys_the_tree_does_not_have_do_nothing() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    for event in
        [ctrl('k'), ctrl('v'), key(KeyCode::F(2)), alt(KeyCode::PageUp), alt(KeyCode::Char('x')), ctrl('q')]
    {
        assert_eq!(press(&mut v, event), TreeOutcome::Ignored, "{event:?}");
        assert_eq!((v.query(), v.screen()), ("", Screen::List));
    }
}

#[test]
fn keybindings_json_overrides_reach_the_tree_its_hints_and_the_help() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("keybindings.json"),
        r#"{
            "app.tree.filter.userOnly": "ctrl+y",
            "pitree.tree.fork": ["ctrl+e"],
            "app.tree.editLabel": "ctrl+j",
            "tui.select.up": "ctrl+k"
        }"#,
    )
    .unwrap();
    let agent_dir = dir.path().to_path_buf();
    let file =
        keybindings_path(|name| (name == "PI_CODING_AGENT_DIR").then(|| agent_dir.clone().into()), None)
            .unwrap();
    let (keys, warnings) = Keybindings::load(&file);
    assert!(warnings.is_empty(), "{warnings:?}");

    let (_d, path) = fold_tree().write();
    let mut v = open_with(&path, TreeOptions { keys: keys.tree.clone(), ..options() });
    assert_eq!(press(&mut v, ctrl('u')), TreeOutcome::Ignored, "the default key is replaced");
    assert_eq!(v.filter(), FilterMode::Default);
    press(&mut v, ctrl('y'));
    assert_eq!(v.filter(), FilterMode::UserOnly);
    press(&mut v, ctrl('y'));
    assert_eq!(v.filter(), FilterMode::Default, "the override toggles like the default key");

    assert_eq!(press(&mut v, alt(KeyCode::Char('f'))), TreeOutcome::Ignored);
    assert_eq!(v.screen(), Screen::List);
    press(&mut v, ctrl('e'));
    assert_eq!(v.screen(), Screen::Confirm);
    let target = v.selected().unwrap();
    assert_eq!(press(&mut v, key(KeyCode::Enter)), TreeOutcome::Fork { target });

    press(&mut v, shift('L'));
    assert_eq!((v.query(), v.screen()), ("L", Screen::List), "unbound, Shift+L types again");
    press(&mut v, key(KeyCode::Esc));
    press(&mut v, ctrl('j'));
    assert_eq!(v.screen(), Screen::LabelInput);
    press(&mut v, key(KeyCode::Esc));

    let selected = sel(&v);
    press(&mut v, key(KeyCode::Up));
    assert_eq!(sel(&v), selected, "↑ is no longer bound");
    press(&mut v, ctrl('k'));
    assert_ne!(sel(&v), selected);
    v.wheel(true);
    assert_eq!(sel(&v), selected, "the wheel moves whatever keys ↑/↓ have");

    let screen = render(&v, 240, 20);
    let hints = screen.lines().rev().find(|l| !l.is_empty()).unwrap();
    assert!(hints.starts_with(" ^k/↓ move · ←/→ page"), "{hints}");
    assert!(hints.contains("^j label"), "{hints}");
    assert!(hints.contains("^e fork"), "{hints}");
    assert!(hints.contains("^d/^t/^y/^l/^a filter (^o cycle)"), "{hints}");
    assert!(!hints.contains("alt+f") && !hints.contains("shift+l"), "{hints}");

    let help = pitree::tui::help::Help::new(&keys).text();
    assert!(help.iter().any(|l| l.starts_with("ctrl+y  ") && l.ends_with("(app.tree.filter.userOnly)")));
    assert!(help.iter().any(|l| l.starts_with("ctrl+e  ") && l.ends_with("(pitree.tree.fork)")));
}

/// `pitree FILE`: the session opens first, with the picker's scan held back until it is drawn
/// (or the user goes back to the picker), and the opened file is checked for a running pi even
/// when the picker has not listed it.
#[test]
fn a_session_named_on_the_command_line_opens_before_the_picker_scans() {
    use pitree::tui::app::{self, App, AppOptions, Effect, Event};
    let (_d, path) = fold_tree().write();
    let open = |path: &std::path::Path| {
        let options = AppOptions { open: Some(path.to_path_buf()), ..AppOptions::default() };
        App::new(
            options,
            pitree::tui::theme::Theme::no_color(),
            std::sync::Arc::new(Keybindings::defaults()),
            NOW_MS,
        )
    };
    let scans = |effects: &[Effect]| effects.iter().filter(|e| matches!(e, Effect::Picker(_))).count();

    let (mut app, first) = open(&path);
    assert!(
        matches!(first.as_slice(), [Effect::OpenTree(p)] if *p == path),
        "only the session opens at first"
    );
    assert_eq!(scans(&app::update(&mut app, Event::Resize(100, 30))), 0, "held while it opens");
    let opened = app::update(
        &mut app,
        Event::TreeOpened {
            path: path.clone(),
            result: Ok(std::sync::Arc::new(Session::open(&path).unwrap())),
        },
    );
    assert!(scans(&opened) > 0, "the picker's scan starts once the tree is open");
    assert!(
        opened.iter().any(|e| matches!(e, Effect::ScanLive(paths) if paths.contains(&path))),
        "the opened file is checked for a running pi"
    );
    assert_eq!(scans(&app::update(&mut app, Event::Resize(100, 30))), 0, "the scan starts once");

    let (mut app, _) = open(&path);
    let back = app::update(&mut app, Event::Key(key(KeyCode::Esc)));
    assert!(scans(&back) > 0, "Esc while the session opens shows the picker, which then scans");
}

/// The app hands its `Keybindings::tree` to the tree view it opens: an override reaches the keys,
/// the F1 check and the mouse wheel.
#[test]
fn the_app_passes_the_users_tree_keys_to_the_view() {
    use pitree::tui::app::{self, App, AppOptions, Event, Screen as AppScreen};
    use ratatui::crossterm::event::{MouseEvent, MouseEventKind};

    let (keys, warnings) = Keybindings::from_json(
        r#"{"pitree.tree.fork": "ctrl+e", "pitree.help": "f3", "tui.select.down": "ctrl+j"}"#,
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    let (_d, path) = fold_tree().write();
    let options = AppOptions {
        picker: pitree::tui::picker::state::PickerOptions {
            all: false,
            home: Some("/home/dev".into()),
            ..Default::default()
        },
        open: Some(path.clone()),
        ..AppOptions::default()
    };
    let (mut app, _) =
        App::new(options, pitree::tui::theme::Theme::no_color(), std::sync::Arc::new(keys), NOW_MS);
    app::update(
        &mut app,
        Event::TreeOpened {
            path: path.clone(),
            result: Ok(std::sync::Arc::new(Session::open(&path).unwrap())),
        },
    );
    assert!(matches!(app.screen, AppScreen::Tree(_)));

    app::update(&mut app, Event::Key(key(KeyCode::F(1))));
    assert!(app.help.is_none(), "F1 is no longer the help key");
    app::update(&mut app, Event::Key(key(KeyCode::F(3))));
    assert!(app.help.is_some());
    app::update(&mut app, Event::Key(key(KeyCode::Esc)));
    assert!(app.help.is_none());

    let first = app.tree().unwrap().selected();
    app::update(&mut app, Event::Key(key(KeyCode::Home)));
    let top = app.tree().unwrap().selected();
    assert_ne!(first, top);
    app::update(&mut app, Event::Key(key(KeyCode::Down)));
    assert_eq!(app.tree().unwrap().selected(), top, "↓ is no longer bound");
    app::update(&mut app, Event::Key(ctrl('j')));
    let second = app.tree().unwrap().selected();
    assert_ne!(second, top);
    let wheel = |kind| {
        Event::Mouse(MouseEvent {
            kind,
            column: 5,
            row: 5,
            modifiers: ratatui::crossterm::event::KeyModifiers::NONE,
        })
    };
    app::update(&mut app, wheel(MouseEventKind::ScrollUp));
    assert_eq!(app.tree().unwrap().selected(), top, "the wheel moves whatever ↑/↓ are bound to");

    app::update(&mut app, Event::Key(alt(KeyCode::Char('f'))));
    assert_eq!(app.tree().unwrap().screen(), Screen::List);
    app::update(&mut app, Event::Key(ctrl('e')));
    assert_eq!(app.tree().unwrap().screen(), Screen::Confirm, "the configured fork key");
}

// ----- the leaf row, reloads, deep nesting --------------------------------------------------------

#[test]
fn a_hidden_session_info_leaf_is_represented_by_its_visible_parent() {
    let mut v = open(&scenario("renamed"));
    let texts = v.row_texts();
    let leaf_rows: Vec<_> = texts.iter().filter(|t| t.ends_with(" ← leaf")).collect();
    assert_eq!(leaf_rows.len(), 1, "{texts:?}");
    assert!(texts[v.rows().iter().position(|&ix| Some(ix) == v.selected()).unwrap()].ends_with(" ← leaf"));
    assert_eq!(press(&mut v, key(KeyCode::Enter)), TreeOutcome::Resume { prompt: None });
    press(&mut v, ctrl('a'));
    let texts = v.row_texts();
    assert!(texts.last().unwrap().contains("[title: empty] ← leaf"), "in all, the leaf itself: {texts:?}");
}

#[test]
fn a_file_that_grew_keeps_selection_search_and_folds_in_place() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    select(&mut v, "user-3b");
    press(&mut v, ctrl_key(KeyCode::Left));
    press(&mut v, key(KeyCode::Char('/')));
    type_text(&mut v, "three");
    let rows = row_ids(&v);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!(
        "{}\n",
        json!({"type": "message", "id": "late", "parentId": "asst-4a", "timestamp": "2026-03-02T00:00:00.000Z",
               "message": {"role": "user", "content": "three more"}})
    ));
    std::fs::write(&path, text).unwrap();
    v.apply(Report::Changed(Session::open(&path).unwrap()));
    v.load_detail();
    assert_eq!(v.query(), "three");
    assert_eq!(sel(&v), "user-3b");
    assert_eq!(rows, ["user-3a", "asst-3a", "user-3b", "asst-3b"], "typing cleared the fold, as in pi");
    assert_eq!(row_ids(&v), ["user-3a", "asst-3a", "late", "user-3b", "asst-3b"]);
    press(&mut v, key(KeyCode::Enter));
    press(&mut v, key(KeyCode::Esc));
    press(&mut v, ctrl_key(KeyCode::Left));
    let folded = row_ids(&v);
    v.apply(Report::Changed(Session::open(&path).unwrap()));
    assert_eq!(row_ids(&v), folded, "folds survive a reload");
}

#[test]
fn very_deep_nesting_is_clamped_and_panned() {
    let mut b = Build::new();
    let mut parent: Option<String> = None;
    for depth in 0..60 {
        let main = format!("m{depth:02}");
        let side = format!("s{depth:02}");
        b.user(&side, parent.as_deref(), &format!("side {depth}"));
        b.user(&main, parent.as_deref(), &format!("main line at depth {depth}"));
        parent = Some(main);
    }
    let (_d, path) = b.write();
    let v = open(&path);
    let texts = v.row_texts();
    let deepest = texts.iter().find(|t| t.contains("main line at depth 59")).unwrap();
    assert!(deepest.starts_with('«'), "{deepest}");
    let prefix_cols = pitree::display::width(deepest.split("• ").next().unwrap());
    assert!(prefix_cols <= 3 * 24 + 4, "the drawn indent is clamped: {prefix_cols} columns");
    let screen = render(&v, 60, 20);
    assert!(screen.contains("main line at depth 59"), "the selected row is panned into view:\n{screen}");
}

#[test]
fn on_a_small_screen_tab_shows_the_detail_pane_instead_of_the_list_and_esc_goes_back() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    v.load_detail();
    let list = render(&v, 80, 24);
    assert!(!list.contains("Detail"), "no room for both at 80×24:\n{list}");
    press(&mut v, key(KeyCode::Tab));
    let detail = render(&v, 80, 24);
    assert!(detail.contains("Detail") && detail.contains("path root … here"), "{detail}");
    assert!(!detail.contains("›"), "the list gives way to it:\n{detail}");
    press(&mut v, key(KeyCode::Up));
    v.load_detail();
    assert!(render(&v, 80, 24).contains("Detail"), "↑/↓ still move, and the pane follows");
    assert_eq!(press(&mut v, key(KeyCode::Esc)), TreeOutcome::Redraw, "Esc goes back to the list first");
    assert!(!render(&v, 80, 24).contains("Detail"));
    // Where both fit, Tab hides and shows the pane beside the list.
    assert!(render(&v, 120, 40).contains("Detail"));
    press(&mut v, key(KeyCode::Tab));
    assert!(!render(&v, 120, 40).contains("Detail"));
}

#[test]
fn a_click_on_a_row_selects_it_and_a_click_elsewhere_does_nothing() {
    let (_d, path) = fold_tree().write();
    let mut v = open(&path);
    let screen = render(&v, 120, 40);
    let line = screen.lines().position(|l| l.contains("user: three b")).expect("the row is drawn") as u16;
    assert_eq!(v.click(4, line), TreeOutcome::Redraw);
    assert_eq!(selected_id(&v).as_deref(), Some("user-3b"));
    render(&v, 120, 40);
    assert_eq!(v.click(100, line), TreeOutcome::Ignored, "a click in the detail pane is not a row");
    assert_eq!(v.click(4, 0), TreeOutcome::Ignored, "nor one on the title");
    assert_eq!(selected_id(&v).as_deref(), Some("user-3b"));
}
