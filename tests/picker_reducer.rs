//! The picker's reducer against pi's picker behaviors (pi-reference §5, 62–89), with the quirks of
//! §6.2 replaced (selection starts on the most recent session and follows it by id; the rename
//! cursor starts at the end), and against pitree's additions: streaming rows, quiet refreshes,
//! the preview cache, folds, undo, the live-session warnings, help, mouse, resume and exits.
//! Everything runs on events with a fixed clock; no file is read unless a test says so.

mod picker_support;

use std::path::PathBuf;

use picker_support::*;
use pitree::catalog::search::SearchIndex;
use pitree::store::trash::Trashed;
use pitree::tui::app::{AppOptions, Effect, Event, Exit, Screen};
use pitree::tui::event::Signal;
use pitree::tui::keymap::Keybindings;
use pitree::tui::picker::source::{BuiltIndex, Found, SortMode};
use pitree::tui::picker::state::{Effect as PickerEffect, Load, Mode, ScanUpdate, ScopeKind};
use pitree::tui::resume::Resume;
use pitree::tui::theme::Theme;
use pitree::tui::tree::{TreeOptions, TreeView};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

fn three() -> Vec<pitree::catalog::SessionSummary> {
    vec![
        session("a", "alpha newest", NOW_MS - MINUTE * 2),
        session("b", "bravo middle", NOW_MS - DAY),
        session("c", "charlie oldest", NOW_MS - DAY * 10),
    ]
}

fn loaded(sessions: Vec<pitree::catalog::SessionSummary>) -> Harness {
    let mut h = Harness::new(false);
    h.load(ScopeKind::Current, sessions);
    h
}

fn header(h: &mut Harness) -> String {
    h.screen(120, 40).lines().next().unwrap().to_string()
}

// ---------------------------------------------------------------------------------------------
// 62–66: scopes, loading, sorts

#[test]
fn b62_opens_in_the_current_folder_threaded_all_names_and_starts_loading() {
    let mut h = Harness::new(false);
    assert_eq!(h.scans(), [(ScopeKind::Current, 1)], "the current load starts right away");
    let top = header(&mut h);
    assert!(top.starts_with("Resume Session (Current Folder)"), "{top}");
    assert!(top.contains("Sort: Threaded") && top.contains("Name: All"), "{top}");
    assert!(top.contains("Loading ..."), "before the first progress report: {top}");
    h.report(ScopeKind::Current, 1, ScanUpdate::Progress { done: 3, total: 9 });
    assert!(header(&mut h).contains("○ Current Folder | Loading 3/9"));
}

#[test]
fn b63_tab_tab_while_all_loads_stays_current_and_loads_all_once() {
    let mut h = loaded(three());
    h.code(KeyCode::Tab);
    h.code(KeyCode::Tab);
    let seq = h.latest_seq(ScopeKind::All);
    h.load(ScopeKind::All, three());
    let top = header(&mut h);
    assert!(top.starts_with("Resume Session (Current Folder)"), "{top}");
    assert!(top.contains("◉ Current Folder | ○ All"), "{top}");
    assert_eq!(h.scans().iter().filter(|(s, _)| *s == ScopeKind::All).count(), 1);
    assert_eq!(seq, 1);
    h.code(KeyCode::Tab);
    assert!(header(&mut h).contains("○ Current Folder | ◉ All"), "the All list was cached");
    assert_eq!(h.scans().iter().filter(|(s, _)| *s == ScopeKind::All).count(), 1, "no reload from cache");
}

#[test]
fn b64_three_tabs_while_all_loads_start_one_all_load() {
    let mut h = loaded(three());
    for _ in 0..3 {
        h.code(KeyCode::Tab);
    }
    assert_eq!(h.scans().iter().filter(|(s, _)| *s == ScopeKind::All).count(), 1);
    assert_eq!(h.app.picker.scope, ScopeKind::All);
}

#[test]
fn b65_both_scopes_empty_closes_the_picker() {
    let mut h = loaded(Vec::new());
    assert!(h.exit().is_none(), "an empty current folder alone keeps the picker open");
    h.code(KeyCode::Tab);
    h.load(ScopeKind::All, Vec::new());
    assert_eq!(h.exit(), Some(&Exit::Empty));
}

#[test]
fn b66_ctrl_s_cycles_recent_fuzzy_threaded() {
    let mut h = loaded(three());
    for want in ["Sort: Recent", "Sort: Fuzzy", "Sort: Threaded"] {
        h.press(ctrl('s'));
        assert!(header(&mut h).contains(want), "{want}");
    }
}

// ---------------------------------------------------------------------------------------------
// 67–74: search, sorts with a query, named filter

#[test]
fn b67_a_quoted_phrase_matches_across_collapsed_whitespace() {
    let mut s = session("x", "topic", NOW_MS - DAY);
    s.all_messages_text = "node\n\n   cve was discussed".into();
    let mut h = loaded(vec![s, session("y", "other", NOW_MS - DAY)]);
    h.type_text("\"node cve\"");
    assert_eq!(h.titles(), ["topic"]);
}

#[test]
fn b68_regex_with_word_boundaries() {
    let mut h = loaded(vec![
        session("x", "Brave is great", NOW_MS - DAY),
        session("y", "bravery is not the same", NOW_MS - DAY * 2),
    ]);
    h.type_text("re:\\bbrave\\b");
    assert_eq!(h.titles(), ["Brave is great"]);
}

#[test]
fn b69_a_bad_regex_empties_the_list_and_says_why() {
    for query in ["re:(", "re:"] {
        let mut h = loaded(three());
        h.type_text(query);
        assert!(h.titles().is_empty(), "{query}");
        assert!(h.app.picker.query_error.is_some(), "{query}");
        let screen = h.screen(120, 40);
        assert!(screen.contains("Invalid search"), "{query}: {screen}");
    }
}

#[test]
fn b70_an_unclosed_quote_falls_back_to_fuzzy_tokens() {
    let mut h = loaded(vec![
        session("x", "say \"foo and bar", NOW_MS - DAY),
        session("y", "foo and bar without quote", NOW_MS - DAY * 2),
    ]);
    h.type_text("\"foo bar");
    assert_eq!(h.titles(), ["say \"foo and bar"], "the quote stays in the token");
}

#[test]
fn b71_recent_with_a_query_keeps_the_list_order() {
    let mut h = loaded(vec![
        session("n", "newer brave", NOW_MS - DAY),
        session("o", "brave older", NOW_MS - DAY * 2),
        session("x", "nomatch", NOW_MS - DAY * 3),
    ]);
    h.press(ctrl('s'));
    h.type_text("brave");
    assert_eq!(h.titles(), ["newer brave", "brave older"]);
}

#[test]
fn b72_fuzzy_sorts_by_score_then_newest_first() {
    // pi 1.6.0 ranks a hit in the name above a hit in the messages; equal scores go newest first.
    let mut h = loaded(vec![
        session("n", "xxxx brave", NOW_MS - DAY),
        named(session("o", "whatever", NOW_MS - DAY * 2), "brave xxxx"),
        session("p", "brave too", NOW_MS - DAY * 3),
    ]);
    h.press(ctrl('s'));
    h.press(ctrl('s'));
    h.type_text("brave");
    assert_eq!(h.titles(), ["brave xxxx", "xxxx brave", "brave too"]);
}

#[test]
fn b73_threaded_with_a_query_is_flat() {
    let parent = session("p", "parent topic", NOW_MS - DAY * 2);
    let child = child_of(session("c", "child topic", NOW_MS - DAY), &parent);
    let mut h = loaded(vec![parent, child]);
    assert_eq!(h.prefixes(), ["", "└─ "]);
    h.type_text("topic");
    assert_eq!(h.prefixes(), ["", ""], "no tree prefixes while searching");
    assert_eq!(h.titles().len(), 2);
}

#[test]
fn b74_named_filter_keeps_only_real_names() {
    let mut h = loaded(vec![
        named(session("a", "x", NOW_MS - DAY), "My Project"),
        named(session("b", "y", NOW_MS - DAY * 2), "Another Named"),
        session("c", "blueberry", NOW_MS - DAY * 3),
        named(session("d", "blueberry too", NOW_MS - DAY * 4), "   "),
    ]);
    h.press(ctrl('n'));
    assert_eq!(h.titles(), ["My Project", "Another Named"]);
    assert!(header(&mut h).contains("Name: Named"));
    h.type_text("blueberry");
    assert!(h.titles().is_empty());
    let screen = h.screen(120, 40);
    assert!(screen.contains("No sessions match this search"), "{screen}");
}

// ---------------------------------------------------------------------------------------------
// 75–80: delete

fn ctrl_backspace() -> KeyEvent {
    KeyEvent::new(KeyCode::Backspace, KeyModifiers::CONTROL)
}

#[test]
fn b75_ctrl_backspace_with_a_query_edits_the_query() {
    let mut h = loaded(three());
    h.type_text("a");
    h.press(ctrl_backspace());
    assert!(matches!(h.app.picker.mode, Mode::Browse), "no confirmation");
    assert_ne!(h.app.picker.query.value(), "a", "the key went to the input");
}

#[test]
fn b76_ctrl_d_with_a_query_asks_to_delete_the_selected_session() {
    let mut h = loaded(three());
    h.type_text("a");
    let selected = h.app.picker.selected().unwrap().path.clone();
    h.press(ctrl('d'));
    assert!(matches!(&h.app.picker.mode, Mode::ConfirmDelete { path, .. } if *path == selected));
    let screen = h.screen(120, 40);
    assert!(screen.contains("Delete session? [Enter] confirm · [Esc/Ctrl+C] cancel"), "{screen}");
}

#[test]
fn b77_ctrl_backspace_then_enter_deletes_and_clears_the_confirmation() {
    let mut h = loaded(three());
    h.press(ctrl_backspace());
    assert!(matches!(h.app.picker.mode, Mode::ConfirmDelete { .. }));
    h.code(KeyCode::Enter);
    assert!(matches!(h.app.picker.mode, Mode::Browse));
    assert_eq!(
        h.picker_effects().last(),
        Some(&PickerEffect::Delete { path: PathBuf::from("/s/--w--/a.jsonl") }),
        "the most recent session (selected at start)"
    );
}

#[test]
fn a_session_pi_writes_to_does_not_take_the_selection_before_the_user_moves() {
    let mut h = loaded(three());
    assert_eq!(h.selected().as_deref(), Some("alpha newest"));
    let mut grown = three();
    grown[1].modified_ms = NOW_MS;
    grown[1].file_len += 100;
    h.send(Event::FilesChanged(vec![grown[1].path.clone()]));
    h.load(ScopeKind::Current, grown);
    assert_eq!(h.titles()[0], "bravo middle", "bravo is now the most recent");
    assert_eq!(h.selected().as_deref(), Some("alpha newest"), "the selection stayed");
    h.type_text("bravo");
    assert_eq!(h.selected().as_deref(), Some("bravo middle"), "a search still selects its best match");
}

#[test]
fn b78_there_is_no_current_session_in_pitree_so_any_session_can_be_deleted() {
    let mut h = loaded(three());
    h.code(KeyCode::Down);
    h.press(ctrl('d'));
    assert!(matches!(h.app.picker.mode, Mode::ConfirmDelete { .. }));
}

#[test]
fn b79_while_confirming_other_keys_are_ignored_and_esc_or_ctrl_c_cancel() {
    let mut h = loaded(three());
    h.press(ctrl('d'));
    h.code(KeyCode::Char('x'));
    h.code(KeyCode::Down);
    h.press(ctrl('s'));
    assert!(matches!(h.app.picker.mode, Mode::ConfirmDelete { .. }));
    assert_eq!(h.app.picker.query.value(), "");
    assert_eq!(h.app.picker.sort, SortMode::Threaded);
    assert_eq!(h.selected().as_deref(), Some("alpha newest"));
    h.code(KeyCode::Esc);
    assert!(matches!(h.app.picker.mode, Mode::Browse));
    assert!(h.exit().is_none(), "Esc cancelled the confirmation, it did not quit");
    h.press(ctrl('d'));
    h.press(ctrl('c'));
    assert!(matches!(h.app.picker.mode, Mode::Browse));
    assert!(!h.picker_effects().iter().any(|e| matches!(e, PickerEffect::Delete { .. })));
}

#[test]
fn b80_a_trashed_session_leaves_the_list_with_a_status_and_an_undo_offer() {
    let mut h = loaded(three());
    h.press(ctrl('d'));
    h.code(KeyCode::Enter);
    let path = PathBuf::from("/s/--w--/a.jsonl");
    let trashed = Trashed { original: path.clone() };
    h.send(Event::Deleted { path, result: Ok(trashed.clone()) });
    assert_eq!(h.titles(), ["bravo middle", "charlie oldest"]);
    assert_eq!(h.selected().as_deref(), Some("bravo middle"), "the next row takes the place");
    let screen = h.screen(120, 40);
    if pitree::store::trash::CAN_UNDO {
        assert!(screen.contains("Session moved to trash · ctrl+g to undo"), "{screen}");
        h.send(Event::Clock(NOW_MS + 5_000));
        let later = h.screen(120, 40);
        assert!(!later.contains("Session moved to trash"), "the status went away");
        assert!(later.contains("ctrl+g undo delete"), "the offer stays in the hints: {later}");
        h.press(alt(KeyCode::Char('u')));
        assert_eq!(h.picker_effects().last(), Some(&PickerEffect::Undo(trashed.clone())));
        h.send(Event::Restored { trashed, result: Ok(()) });
        assert!(h.screen(120, 40).contains("Session restored from the trash"));
        assert!(h.scans().len() > 1, "the list is scanned again to bring it back");
    }
}

#[test]
fn a_failed_delete_says_why_and_keeps_the_session() {
    let mut h = loaded(three());
    h.press(ctrl('d'));
    h.code(KeyCode::Enter);
    h.send(Event::Deleted {
        path: PathBuf::from("/s/--w--/a.jsonl"),
        result: Err("permission denied".into()),
    });
    assert_eq!(h.titles().len(), 3);
    assert!(h.screen(120, 40).contains("Failed to delete: permission denied"));
}

// ---------------------------------------------------------------------------------------------
// 81–83: rename

#[test]
fn b81_the_hints_offer_rename() {
    let mut h = loaded(three());
    let screen = h.screen(120, 40);
    assert!(screen.contains("ctrl+r rename"), "{screen}");
}

#[test]
fn b82_rename_starts_with_the_cursor_at_the_end() {
    let mut h = loaded(vec![named(session("a", "x", NOW_MS - DAY), "Old")]);
    h.press(ctrl('r'));
    assert!(matches!(h.app.picker.mode, Mode::Rename { .. }));
    h.code(KeyCode::Char('X'));
    h.code(KeyCode::Enter);
    assert_eq!(
        h.picker_effects().last(),
        Some(&PickerEffect::Rename { path: PathBuf::from("/s/--w--/a.jsonl"), name: "OldX".into() }),
        "pi gives XOld (cursor at 0); pitree puts the cursor at the end"
    );
    assert!(matches!(h.app.picker.mode, Mode::Browse));
    h.send(Event::Renamed { result: Ok(()) });
    assert!(h.screen(120, 40).contains("Session renamed"));
}

#[test]
fn b83_a_blank_name_writes_nothing_and_keeps_the_panel() {
    let mut h = loaded(three());
    h.press(ctrl('r'));
    h.type_text("   ");
    h.code(KeyCode::Enter);
    assert!(matches!(h.app.picker.mode, Mode::Rename { .. }));
    assert!(!h.picker_effects().iter().any(|e| matches!(e, PickerEffect::Rename { .. })));
    h.code(KeyCode::Esc);
    assert!(matches!(h.app.picker.mode, Mode::Browse));
}

#[test]
fn rename_is_ignored_while_the_scope_loads() {
    let mut h = Harness::new(false);
    h.report(ScopeKind::Current, 1, ScanUpdate::Found(three().into_iter().map(Found::new).collect()));
    h.press(ctrl('r'));
    assert!(matches!(h.app.picker.mode, Mode::Browse));
}

/// While a scope loads, its sessions come without their message texts: a search that matches
/// none of them yet says so, and not that nothing matches.
#[test]
fn a_search_with_no_match_while_loading_says_the_messages_come_later() {
    let mut h = Harness::new(false);
    h.report(ScopeKind::Current, 1, ScanUpdate::Found(three().into_iter().map(Found::new).collect()));
    h.type_text("zzzz");
    assert!(h.titles().is_empty());
    let screen = h.screen(120, 40);
    assert!(
        screen.contains("No sessions match yet: the messages are searched once loading ends"),
        "{screen}"
    );
    h.report(ScopeKind::Current, 1, ScanUpdate::Done { warnings: Vec::new() });
    assert!(h.screen(120, 40).contains("No sessions match this search"));
}

#[test]
fn renaming_a_session_pi_is_running_warns_first() {
    let mut h = loaded(three());
    let live = [(PathBuf::from("/s/--w--/a.jsonl"), 4242)].into_iter().collect();
    h.send(Event::Live(live));
    h.press(ctrl('r'));
    assert!(matches!(h.app.picker.mode, Mode::LiveRenameWarning { pid: 4242, .. }));
    assert!(h.screen(120, 40).contains("pi (pid 4242) is running this session"));
    h.code(KeyCode::Enter);
    assert!(matches!(h.app.picker.mode, Mode::Rename { .. }));
}

#[test]
fn deleting_a_session_pi_is_running_says_so() {
    let mut h = loaded(three());
    h.send(Event::Live([(PathBuf::from("/s/--w--/a.jsonl"), 7)].into_iter().collect()));
    h.press(ctrl('d'));
    let screen = h.screen(120, 40);
    assert!(screen.contains("Delete session? pi (pid 7) is running it."));
    let row = screen.lines().find(|l| l.contains("alpha newest")).unwrap();
    assert!(row.contains("● 3 2m"), "the running-pi marker: {row}");
    assert!(screen.contains("● 1 open in pi"), "and the footer counts it");
}

// ---------------------------------------------------------------------------------------------
// 84–89: rows, paging, threads

#[test]
fn b84_control_bytes_in_titles_show_as_spaces() {
    let mut h = loaded(vec![session("a", "red \x1b[31mtext\nnext\u{7}", NOW_MS - DAY)]);
    let screen = h.screen(120, 40);
    assert!(screen.contains("red  [31mtext next"), "{screen}");
    assert!(!screen.contains('\x1b') && !screen.contains('\u{7}'));
}

#[test]
fn b85_ages_as_pi_writes_them() {
    let ages = [
        (90_000, "1m"),
        (3 * 3_600_000, "3h"),
        (10 * DAY, "1w"),
        (45 * DAY, "1mo"),
        (400 * DAY, "1y"),
        (20_000, "now"),
    ];
    for (ago, shown) in ages {
        let mut h = loaded(vec![session("a", "x", NOW_MS - ago)]);
        let screen = h.screen(120, 40);
        let row = screen.lines().find(|l| l.starts_with("› x")).unwrap();
        assert!(row.contains(&format!(" 3 {shown}┌")), "{ago}: {row}");
    }
}

#[test]
fn b86_clamped_moves_paging_and_the_position_indicator() {
    let sessions = (0..25)
        .map(|i| session(&format!("s{i:02}"), &format!("session {i:02}"), NOW_MS - DAY * (i + 1)))
        .collect();
    let mut h = loaded(sessions);
    h.send(Event::Resize(120, 16));
    assert_eq!(h.app.picker.page, 10, "a 16-line screen shows 10 rows");
    assert_eq!(h.app.picker.selected_index(), 0);
    h.code(KeyCode::Up);
    assert_eq!(h.app.picker.selected_index(), 0, "no wrap");
    h.code(KeyCode::PageDown);
    assert_eq!(h.app.picker.selected_index(), 10);
    assert!(h.screen(120, 16).contains("(11/25)"));
    h.press(key(KeyCode::End));
    assert_eq!(h.app.picker.selected_index(), 24);
    h.code(KeyCode::Down);
    assert_eq!(h.app.picker.selected_index(), 24);
}

#[test]
fn b87_forks_hang_under_their_parent() {
    let s = session("s", "root", NOW_MS - DAY * 3);
    let newer = child_of(session("c1", "newer child", NOW_MS - DAY), &s);
    let older = child_of(session("c2", "older child", NOW_MS - DAY * 2), &s);
    let mut h = loaded(vec![s, newer, older]);
    assert_eq!(h.titles(), ["root", "newer child", "older child"]);
    assert_eq!(h.prefixes(), ["", "├─ ", "└─ "]);
    let screen = h.screen(120, 40);
    assert!(screen.contains("├─ newer child") && screen.contains("└─ older child"), "{screen}");
}

#[test]
fn b88_subtree_activity_orders_roots() {
    let s = session("s", "old parent", NOW_MS - DAY * 5);
    let c = child_of(session("c", "fresh child", NOW_MS - DAY), &s);
    let r = session("r", "middle root", NOW_MS - DAY * 2);
    let h = loaded(vec![s, c, r]);
    assert_eq!(h.titles(), ["old parent", "fresh child", "middle root"]);
}

#[test]
fn b89_parent_cycles_show_as_roots() {
    let mut a = session("a", "cycle a", NOW_MS - DAY);
    let mut b = session("b", "cycle b", NOW_MS - DAY * 2);
    a.parent_session_path = Some(b.path.to_string_lossy().into_owned());
    b.parent_session_path = Some(a.path.to_string_lossy().into_owned());
    let h = loaded(vec![a, b]);
    assert_eq!(h.titles(), ["cycle a", "cycle b"], "pi drops them; pitree keeps both");
}

// ---------------------------------------------------------------------------------------------
// §6.2: the selection

#[test]
fn the_selection_starts_on_the_most_recent_session_even_deep_in_a_thread() {
    let root = session("r", "old root", NOW_MS - DAY * 4);
    let other = session("o", "other root", NOW_MS - DAY * 3);
    let fork = child_of(session("f", "newest fork", NOW_MS - MINUTE), &root);
    let h = loaded(vec![root, other, fork]);
    assert_eq!(h.titles(), ["old root", "newest fork", "other root"]);
    assert_eq!(h.selected().as_deref(), Some("newest fork"));
}

#[test]
fn the_selection_follows_the_session_while_rows_stream_in() {
    let mut h = Harness::new(false);
    let found = |s| ScanUpdate::Found(vec![Found::new(s)]);
    h.report(ScopeKind::Current, 1, found(session("b", "bravo", NOW_MS - DAY)));
    assert_eq!(h.titles(), ["bravo"], "rows show before the scan ends");
    h.report(ScopeKind::Current, 1, found(session("a", "alpha", NOW_MS - MINUTE)));
    assert_eq!(h.selected().as_deref(), Some("alpha"), "still on the newest until the user moves");
    h.code(KeyCode::Down);
    assert_eq!(h.selected().as_deref(), Some("bravo"));
    h.report(ScopeKind::Current, 1, found(session("z", "zulu newest", NOW_MS)));
    assert_eq!(h.titles(), ["zulu newest", "alpha", "bravo"]);
    assert_eq!(h.selected().as_deref(), Some("bravo"), "kept by session, not by index");
}

#[test]
fn the_selection_is_kept_by_session_across_search_sort_and_named_filter() {
    let mut h = loaded(vec![
        session("a", "apple pie", NOW_MS - MINUTE),
        named(session("b", "x", NOW_MS - DAY), "banana apple"),
        session("c", "cherry apple", NOW_MS - DAY * 2),
    ]);
    h.code(KeyCode::Down);
    h.code(KeyCode::Down);
    assert_eq!(h.selected().as_deref(), Some("cherry apple"));
    h.type_text("apple");
    assert_eq!(h.selected().as_deref(), Some("cherry apple"), "pi would keep index 2");
    h.press(ctrl('s'));
    assert_eq!(h.selected().as_deref(), Some("cherry apple"));
    h.press(ctrl('n'));
    assert_eq!(h.selected().as_deref(), Some("banana apple"), "gone: the row now in its place");
}

#[test]
fn before_the_user_moves_a_search_selects_the_best_match() {
    let mut h = loaded(vec![session("a", "zebra", NOW_MS - MINUTE), session("b", "quartz", NOW_MS - DAY)]);
    h.type_text("quartz");
    assert_eq!(h.selected().as_deref(), Some("quartz"));
}

#[test]
fn events_of_an_old_scan_are_dropped() {
    let mut h = loaded(three());
    h.send(Event::FilesChanged(vec![PathBuf::from("/s/--w--/a.jsonl")]));
    let seq = h.latest_seq(ScopeKind::Current);
    assert_eq!(seq, 2);
    h.report(ScopeKind::Current, 1, ScanUpdate::Found(vec![Found::new(session("old", "stale", NOW_MS))]));
    assert!(!h.titles().contains(&"stale".to_string()));
}

#[test]
fn a_refresh_keeps_the_list_until_it_is_done_then_swaps_it_keeping_query_and_selection() {
    let mut h = loaded(three());
    h.type_text("o");
    h.code(KeyCode::Down);
    let before = h.selected();
    let shown = h.titles().len();
    h.send(Event::FilesChanged(vec![PathBuf::from("/s/--w--/n.jsonl")]));
    let seq = h.latest_seq(ScopeKind::Current);
    let mut grown = three();
    grown.push(session("n", "new one", NOW_MS));
    h.report(ScopeKind::Current, seq, ScanUpdate::Found(grown.into_iter().map(Found::new).collect()));
    assert_eq!(h.titles().len(), shown, "nothing changes until the refresh is done");
    assert!(header(&mut h).contains("◉ Current Folder"), "no Loading flicker");
    h.report(ScopeKind::Current, seq, ScanUpdate::Done { warnings: Vec::new() });
    assert!(h.titles().contains(&"new one".to_string()));
    assert_eq!(h.app.picker.query.value(), "o");
    assert_eq!(h.selected(), before);
}

// ---------------------------------------------------------------------------------------------
// pitree's additions

#[test]
fn enter_opens_the_tree_and_alt_enter_resumes_in_the_sessions_folder() {
    let mut h = loaded(three());
    h.code(KeyCode::Enter);
    assert!(matches!(&h.app.screen, Screen::Opening(p) if p.ends_with("a.jsonl")));
    assert!(h.effects.iter().any(|e| matches!(e, Effect::OpenTree(p) if p.ends_with("a.jsonl"))));
    h.code(KeyCode::Esc);
    assert!(matches!(h.app.screen, Screen::Picker), "Esc while opening goes back");
    h.press(alt(KeyCode::Enter));
    assert_eq!(
        h.exit(),
        Some(&Exit::Resume(Resume {
            session: PathBuf::from("/s/--w--/a.jsonl"),
            cwd: "/w".into(),
            prompt: None
        }))
    );
}

#[test]
fn esc_and_ctrl_c_quit_and_signals_end_the_app() {
    let mut h = loaded(three());
    h.code(KeyCode::Esc);
    assert_eq!(h.exit(), Some(&Exit::Quit));
    let mut h = loaded(three());
    h.press(ctrl('c'));
    assert_eq!(h.exit(), Some(&Exit::Quit));
    let mut h = loaded(three());
    h.send(Event::Signal(Signal::Terminate));
    assert_eq!(h.exit(), Some(&Exit::Signal(Signal::Terminate)));
}

#[test]
fn ctrl_z_asks_to_suspend() {
    let mut h = loaded(three());
    h.press(ctrl('z'));
    assert!(matches!(h.effects.last(), Some(Effect::Suspend)));
}

#[test]
fn previews_are_asked_for_once_and_cached_per_file_version() {
    let mut h = loaded(three());
    let asks =
        |h: &Harness| h.picker_effects().iter().filter(|e| matches!(e, PickerEffect::LoadPreview(_))).count();
    assert_eq!(asks(&h), 1, "the selected session's preview");
    let preview = previewed(pitree::tui::picker::preview::Preview {
        path: PathBuf::from("/s/--w--/a.jsonl"),
        file_len: 100,
        ..Default::default()
    });
    h.send(Event::Preview { path: preview.preview.path.clone(), result: Ok(preview) });
    h.code(KeyCode::Down);
    assert_eq!(asks(&h), 2);
    h.code(KeyCode::Up);
    assert_eq!(asks(&h), 2, "cached");
    let mut grown = three();
    grown[0].file_len = 200;
    h.send(Event::FilesChanged(vec![]));
    let seq = h.latest_seq(ScopeKind::Current);
    h.report(ScopeKind::Current, seq, ScanUpdate::Found(grown.into_iter().map(Found::new).collect()));
    h.report(ScopeKind::Current, seq, ScanUpdate::Done { warnings: Vec::new() });
    assert_eq!(asks(&h), 3, "the file grew: a new preview");
}

#[test]
fn folding_a_thread_hides_its_forks() {
    let s = session("s", "root", NOW_MS - DAY * 3);
    let c1 = child_of(session("c1", "fork one", NOW_MS - DAY), &s);
    let c2 = child_of(session("c2", "fork two", NOW_MS - DAY * 2), &s);
    let mut h = loaded(vec![s, c1, c2, session("x", "other", NOW_MS - DAY * 9)]);
    h.press(ctrl('s'));
    h.press(ctrl('s'));
    h.press(ctrl('s'));
    h.press(key(KeyCode::Home));
    assert_eq!(h.selected().as_deref(), Some("root"));
    h.press(alt(KeyCode::Left));
    assert_eq!(h.titles(), ["root", "other"]);
    assert!(h.screen(120, 40).contains("root [+2]"));
    h.press(alt(KeyCode::Right));
    assert_eq!(h.titles().len(), 4);
    h.press(alt(KeyCode::Right));
    assert_eq!(h.selected().as_deref(), Some("fork one"), "unfolded: go to the first fork");
    h.press(alt(KeyCode::Left));
    assert_eq!(h.selected().as_deref(), Some("root"), "a fork without forks: up to its parent");
}

#[test]
fn help_opens_with_f1_or_question_mark_on_an_empty_search() {
    let mut h = loaded(three());
    h.code(KeyCode::F(1));
    assert!(h.app.help.is_some());
    let screen = h.screen(120, 40);
    assert!(screen.contains("app.session.toggleSort") && screen.contains("ctrl+s"), "{screen}");
    h.code(KeyCode::Esc);
    assert!(h.app.help.is_none());
    assert!(h.exit().is_none(), "Esc closed the help only");
    h.code(KeyCode::Char('?'));
    assert!(h.app.help.is_some());
    h.code(KeyCode::Esc);
    h.type_text("x?");
    assert!(h.app.help.is_none());
    assert_eq!(h.app.picker.query.value(), "x?", "? types when the search is not empty");
}

#[test]
fn status_messages_expire_with_the_clock() {
    let mut h = loaded(three());
    h.send(Event::Renamed { result: Err("disk full".into()) });
    assert!(h.screen(120, 40).contains("Failed to rename: disk full"));
    h.send(Event::Clock(NOW_MS + 3_500));
    assert!(h.screen(120, 40).contains("disk full"), "an error stays 10 s");
    h.send(Event::Clock(NOW_MS + 10_500));
    assert!(!h.screen(120, 40).contains("disk full"));
    h.send(Event::Renamed { result: Ok(()) });
    assert!(h.screen(120, 40).contains("Session renamed"));
    h.send(Event::Clock(NOW_MS + 14_000));
    assert!(!h.screen(120, 40).contains("Session renamed"), "other messages 3 s");
}

#[test]
fn scan_warnings_are_shown() {
    let mut h = Harness::new(false);
    h.report(
        ScopeKind::Current,
        1,
        ScanUpdate::Done { warnings: vec!["/s/x: cannot read".into(), "b".into()] },
    );
    assert!(h.screen(120, 40).contains("/s/x: cannot read (and 1 more)"));
}

#[test]
fn mouse_click_selects_double_click_opens_wheel_moves() {
    let mut h = loaded(three());
    h.screen(120, 40);
    h.click(10, 6);
    assert_eq!(h.selected().as_deref(), Some("bravo middle"), "row 6 is the second row");
    h.click(10, 6);
    assert!(matches!(h.app.screen, Screen::Opening(_)), "a double click opens");
    h.code(KeyCode::Esc);
    h.send(Event::Clock(NOW_MS + 10_000));
    h.click(10, 7);
    h.send(Event::Clock(NOW_MS + 11_000));
    h.click(10, 7);
    assert!(matches!(h.app.screen, Screen::Picker), "too slow for a double click");
    h.wheel(false, 10, 10);
    assert_eq!(h.selected().as_deref(), Some("bravo middle"));
}

#[test]
fn paste_goes_into_the_search_without_control_characters() {
    let mut h = loaded(three());
    h.send(Event::Paste("bra\nvo".into()));
    assert_eq!(h.app.picker.query.value(), "bra vo");
}

#[test]
fn the_all_scope_shows_cwds_and_the_path_toggle_shows_files() {
    let mut h = Harness::new(true);
    assert_eq!(h.scans(), [(ScopeKind::All, 1)]);
    let mut s = session("a", "in home", NOW_MS - DAY);
    s.cwd = "/home/dev/proj".into();
    h.load(ScopeKind::All, vec![s]);
    assert!(h.screen(120, 40).contains("~/proj 3 1d"));
    h.press(ctrl('p'));
    let screen = h.screen(120, 40);
    assert!(screen.contains("/s/--w--/a.jsonl ~/proj 3 1d"), "{screen}");
    assert!(screen.contains("path (on)"));
}

#[test]
fn loading_state_is_tracked_per_scope() {
    let h = Harness::new(false);
    assert!(matches!(h.app.picker.list(ScopeKind::Current).load, Load::Loading { progress: None }));
    assert_eq!(h.app.picker.list(ScopeKind::All).load, Load::NotStarted);
}

#[test]
fn the_search_index_is_built_on_a_worker_and_refused_when_stale() {
    let mut h = loaded(three());
    let built: Vec<(ScopeKind, u64, std::sync::Arc<Vec<pitree::catalog::SessionSummary>>)> = h
        .picker_effects()
        .into_iter()
        .filter_map(|e| match e {
            PickerEffect::BuildIndex { scope, version, sessions } => Some((scope, version, sessions)),
            _ => None,
        })
        .collect();
    assert_eq!(built.len(), 1, "one index for the loaded scope");
    let (scope, version, sessions) = built[0].clone();
    assert_eq!(sessions.len(), 3);
    let index = || BuiltIndex(std::sync::Arc::new(SearchIndex::new(&sessions)));
    h.send(Event::SearchIndex { scope, version: version + 1, index: index() });
    assert!(!h.app.picker.list(scope).sessions.has_index(), "an index of another list version is refused");
    h.send(Event::SearchIndex { scope, version, index: index() });
    assert!(h.app.picker.list(scope).sessions.has_index());
    h.type_text("bravo");
    assert_eq!(h.titles(), ["bravo middle"]);
}

/// The picker after Enter on the "Auth refactor" session: the fixtures (kept while the test runs),
/// the app, and the path it is opening.
fn opening_auth_refactor() -> (Fixtures, Harness, PathBuf) {
    let f = Fixtures::copy();
    let mut h = Harness::new(false);
    h.load(ScopeKind::Current, f.in_folder("/home/dev/alpha"));
    h.type_text("Auth refactor");
    h.code(KeyCode::Enter);
    let Screen::Opening(path) = &h.app.screen else { panic!("not opening") };
    let path = path.clone();
    (f, h, path)
}

#[test]
fn the_tree_view_opens_from_enter_and_esc_comes_back_to_the_same_view() {
    let (_f, mut h, path) = opening_auth_refactor();
    let session = pitree::session::Session::open(&path).unwrap();
    h.send(Event::TreeOpened { path: path.clone(), result: Ok(std::sync::Arc::new(session)) });
    assert!(matches!(h.app.screen, Screen::Tree(_)));
    assert!(
        h.effects.iter().any(|e| matches!(e, Effect::TreeSearch(_))),
        "the full-text index is built on a worker"
    );
    assert!(h.screen(120, 40).contains("Session Tree"));
    h.code(KeyCode::Esc);
    assert!(matches!(h.app.screen, Screen::Picker));
    h.clear_effects();
    h.code(KeyCode::Enter);
    assert!(matches!(h.app.screen, Screen::Tree(_)), "the same unchanged session reopens at once");
    assert!(!h.effects.iter().any(|e| matches!(e, Effect::OpenTree(_))));
}

#[test]
fn a_big_sessions_outline_is_shown_until_the_whole_session_arrives_and_answers_no_key_but_esc() {
    let (_f, mut h, path) = opening_auth_refactor();
    let outline = || {
        let view = TreeView::open(pitree::session::Session::outline(&path).unwrap(), TreeOptions::default());
        view.preview(Rect::new(0, 0, 120, 40), &Theme::no_color()).unwrap()
    };
    assert!(h.screen(120, 40).contains("Opening"), "nothing read yet: the picker says it is opening");

    h.send(Event::TreeOutline { path: path.clone(), frame: outline() });
    let shown = h.screen(120, 40);
    assert!(shown.contains("Session Tree") && shown.contains("Reading the whole session…"), "{shown}");
    h.code(KeyCode::Down);
    h.type_text("x");
    assert!(matches!(h.app.screen, Screen::Opening(_)), "keys wait for the whole session");
    assert_eq!(h.screen(120, 40), shown, "and change nothing on screen");
    assert!(h.screen(100, 30).contains("Opening"), "a resized screen shows the picker until then");

    h.send(Event::TreeOpened {
        path: path.clone(),
        result: Ok(std::sync::Arc::new(pitree::session::Session::open(&path).unwrap())),
    });
    assert!(matches!(h.app.screen, Screen::Tree(_)));
    let whole = h.screen(120, 40);
    assert!(whole.contains("Session Tree") && !whole.contains("Reading the whole session"), "{whole}");

    // Esc while the outline is shown goes back to the picker; a late outline is not shown.
    h.code(KeyCode::Esc);
    h.clear_effects();
    h.type_text("x");
    h.app.screen = Screen::Opening(path.clone());
    h.send(Event::TreeOutline { path: path.clone(), frame: outline() });
    h.code(KeyCode::Esc);
    assert!(matches!(h.app.screen, Screen::Picker));
    h.send(Event::TreeOutline { path: path.clone(), frame: outline() });
    assert!(!h.screen(120, 40).contains("Session Tree"), "an outline that comes after Esc is dropped");
}

#[test]
fn a_session_that_grew_since_its_view_was_closed_reopens_reading_only_what_was_appended() {
    let f = Fixtures::copy();
    let mut h = Harness::new(false);
    let sessions = f.in_folder("/home/dev/alpha");
    h.load(ScopeKind::Current, sessions.clone());
    h.type_text("Auth refactor");
    h.code(KeyCode::Enter);
    let Screen::Opening(path) = &h.app.screen else { panic!("not opening") };
    let path = path.clone();
    h.send(Event::TreeOpened {
        path: path.clone(),
        result: Ok(std::sync::Arc::new(pitree::session::Session::open(&path).unwrap())),
    });
    let before = h.app.tree().unwrap().session().clone();
    h.code(KeyCode::Esc);

    // pi appends a label to the leaf; the picker's next scan lists the longer file.
    let leaf = before.entry(before.graph.leaf().unwrap()).id.to_string();
    let line = format!(
        r#"{{"type":"label","id":"0a0b0c0d","parentId":"{leaf}","timestamp":"2026-01-01T00:00:00.000Z","targetId":"{leaf}","label":"grown"}}"#
    );
    std::fs::write(&path, [std::fs::read(&path).unwrap(), format!("{line}\n").into_bytes()].concat())
        .unwrap();
    h.load(ScopeKind::Current, relisted(sessions, &path));
    h.clear_effects();
    h.code(KeyCode::Enter);
    assert!(matches!(h.app.screen, Screen::Opening(_)), "a grown file is not shown as it was");
    assert!(!h.effects.iter().any(|e| matches!(e, Effect::OpenTree(_))));
    let old = reopened(&h).expect("the closed view's session is read from where it stopped");
    assert_eq!(old.file.facts, before.file.facts);
    h.send(Event::TreeOpened {
        path: path.clone(),
        result: old.reread().map(std::sync::Arc::new).map_err(|e| e.to_string()),
    });
    let view = h.app.tree().expect("the tree view");
    assert_eq!(view.session().entries().len(), before.entries().len() + 1);
    assert_eq!(view.session().graph.label_of(&leaf).map(|l| l.text.as_str()), Some("grown"));
}

#[test]
fn on_a_small_screen_f2_shows_the_preview_instead_of_the_list_and_esc_goes_back() {
    let f = Fixtures::copy();
    let mut h = Harness::new(false);
    h.load(ScopeKind::Current, f.in_folder("/home/dev/alpha"));
    h.answer_previews();
    let title = h.selected().unwrap();
    let list = h.screen(80, 24);
    assert!(!list.contains("Active branch"), "no room for the preview at 80×24:\n{list}");
    h.code(KeyCode::F(2));
    let preview = h.screen(80, 24);
    assert!(preview.contains("Active branch"), "{preview}");
    assert_eq!(
        preview.matches(&title[..20.min(title.len())]).count(),
        1,
        "only the preview's title:\n{preview}"
    );
    h.code(KeyCode::Down);
    h.answer_previews();
    assert!(h.screen(80, 24).contains("Active branch"), "↑/↓ still move, and the preview follows");
    h.code(KeyCode::Esc);
    assert!(h.exit().is_none(), "Esc goes back to the list first");
    assert!(!h.screen(80, 24).contains("Active branch"));
    h.code(KeyCode::Esc);
    assert!(h.exit().is_some());
}

/// `sessions` with the one at `path` listed at the length its file has now (the next scan).
fn relisted(
    sessions: Vec<pitree::catalog::SessionSummary>,
    path: &std::path::Path,
) -> Vec<pitree::catalog::SessionSummary> {
    let len = std::fs::metadata(path).unwrap().len();
    sessions
        .into_iter()
        .map(|mut s| {
            if s.path == path {
                s.file_len = len;
            }
            s
        })
        .collect()
}

/// The session a [`Effect::ReopenTree`] asks to bring up to date.
fn reopened(h: &Harness) -> Option<std::sync::Arc<pitree::session::Session>> {
    h.effects.iter().find_map(|e| match e {
        Effect::ReopenTree(old) => Some(std::sync::Arc::clone(old)),
        _ => None,
    })
}

/// A preview as the worker sends it, with a session of just a header for its path.
fn previewed(preview: pitree::tui::picker::preview::Preview) -> pitree::tui::picker::preview::Previewed {
    let header =
        br#"{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;
    let parsed = pitree::session::parse::parse_bytes(header, preview.path.clone()).unwrap();
    pitree::tui::picker::preview::Previewed {
        preview: std::sync::Arc::new(preview),
        session: std::sync::Arc::new(pitree::session::Session::from_parsed(parsed)),
    }
}

#[test]
fn enter_on_a_previewed_session_opens_its_tree_from_the_preview_without_reading_the_file() {
    let f = Fixtures::copy();
    let mut h = Harness::new(false);
    h.load(ScopeKind::Current, f.in_folder("/home/dev/alpha"));
    h.type_text("Auth refactor");
    h.answer_previews();
    h.clear_effects();
    h.code(KeyCode::Enter);
    let view = h.app.tree().expect("the tree view is shown at once");
    assert!(view.session().entries().len() > 1);
    assert!(!h.effects.iter().any(|e| matches!(e, Effect::OpenTree(_) | Effect::ReopenTree(_))));
    assert!(
        h.effects.iter().any(|e| matches!(e, Effect::ReloadTree(s) if s.file.path == view.path())),
        "a worker checks that the file did not change since the preview read it"
    );
    assert!(h.screen(120, 40).contains("Session Tree"));
}

#[test]
fn a_session_that_grew_since_its_preview_opens_reading_only_what_was_appended() {
    let f = Fixtures::copy();
    let mut h = Harness::new(false);
    let sessions = f.in_folder("/home/dev/alpha");
    h.load(ScopeKind::Current, sessions.clone());
    h.type_text("Auth refactor");
    h.answer_previews();
    let path = h.app.picker.selected().unwrap().path.clone();
    let before = pitree::session::Session::open(&path).unwrap();

    let mut out = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    std::io::Write::write_all(&mut out, b"{\"type\":\"session_info\",\"id\":\"0a0b0c0d\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"name\":\"grown\"}\n").unwrap();
    h.load(ScopeKind::Current, relisted(sessions, &path));
    h.clear_effects();
    h.code(KeyCode::Enter);
    assert!(matches!(h.app.screen, Screen::Opening(_)), "a grown file is not shown as the preview read it");
    assert!(!h.effects.iter().any(|e| matches!(e, Effect::OpenTree(_))));
    let old = reopened(&h).expect("the preview's session is read from where it stopped");
    assert_eq!(old.file.facts, before.file.facts);
}

#[test]
fn esc_from_a_session_opened_on_the_command_line_shows_it_selected_in_the_picker() {
    let f = Fixtures::copy();
    let sessions = f.in_folder("/home/dev/alpha");
    let oldest = sessions.iter().min_by_key(|s| s.modified_ms).unwrap().clone();
    let mut h = Harness::with(AppOptions {
        picker: pitree::tui::picker::state::PickerOptions {
            all: false,
            home: Some(PathBuf::from("/home/dev")),
            ..Default::default()
        },
        open: Some(oldest.path.clone()),
        ..AppOptions::default()
    });
    h.send(Event::TreeOpened {
        path: oldest.path.clone(),
        result: Ok(std::sync::Arc::new(pitree::session::Session::open(&oldest.path).unwrap())),
    });
    h.load(ScopeKind::Current, sessions);
    assert!(matches!(h.app.screen, Screen::Tree(_)));
    h.code(KeyCode::Esc);
    assert!(matches!(h.app.screen, Screen::Picker));
    assert_eq!(h.app.picker.selected().map(|s| &s.path), Some(&oldest.path), "not the most recent one");
}

#[test]
fn with_paths_shown_a_long_path_loses_its_start_so_count_and_age_stay_on_screen() {
    let f = Fixtures::copy();
    let mut h = Harness::new(true);
    h.load(ScopeKind::All, f.sessions.clone());
    h.code(KeyCode::F(2));
    h.press(ctrl('p'));
    let screen = h.screen(120, 40);
    let selected = h.app.picker.selected().unwrap().clone();
    let row = screen.lines().find(|l| l.starts_with("› ")).unwrap();
    let name = selected.path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(row.contains(&format!("{name} ")), "the file name (with the session id) is kept: {row}");
    assert!(row.contains('…'), "the path's start gave way: {row}");
    let age = pitree::display::format_age(selected.modified_ms, NOW_MS);
    assert!(row.trim_end().ends_with(&format!("{} {age}", selected.message_count)), "{row}");
}

#[test]
fn a_long_error_takes_two_lines_and_stays_long_enough_to_read() {
    let mut h = loaded(three());
    h.code(KeyCode::Enter);
    let error = "not a pi session file: line 1 is text, not a session header (is this the right file?)";
    h.send(Event::TreeOpened { path: PathBuf::from("/s/--w--/a.jsonl"), result: Err(error.into()) });
    let screen = h.screen(80, 24);
    let lines: Vec<&str> = screen.lines().collect();
    let shown = format!("{} {}", lines[1].trim_end(), lines[2].trim_end());
    assert_eq!(shown, format!("Cannot open /s/--w--/a.jsonl: {error}"), "{screen}");
    h.send(Event::Clock(NOW_MS + 5_000));
    assert!(h.screen(80, 24).contains("Cannot open"), "still there after 5 s");
    h.send(Event::Clock(NOW_MS + 11_000));
    assert!(!h.screen(80, 24).contains("Cannot open"), "gone after 10 s");
}

#[test]
fn a_session_that_cannot_be_read_says_so_and_stays_in_the_picker() {
    let mut h = loaded(three());
    h.code(KeyCode::Enter);
    h.send(Event::TreeOpened {
        path: PathBuf::from("/s/--w--/a.jsonl"),
        result: Err("not a pi session".into()),
    });
    assert!(matches!(h.app.screen, Screen::Picker));
    assert!(h.screen(120, 40).contains("not a pi session"));
}

#[test]
fn keybindings_json_rebinds_picker_keys_and_the_help_shows_them() {
    let (keys, warnings) = Keybindings::from_json(
        r#"{"app.session.toggleSort": "ctrl+o", "pitree.session.undoDelete": "alt+z"}"#,
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    let options =
        AppOptions { picker: pitree::tui::picker::state::PickerOptions::default(), ..AppOptions::default() };
    let mut h = Harness::with_keys(options, keys);
    h.load(ScopeKind::Current, three());
    h.press(ctrl('o'));
    assert_eq!(h.app.picker.sort, SortMode::Recent);
    h.press(ctrl('s'));
    assert_eq!(h.app.picker.sort, SortMode::Recent, "the default key is replaced");
    assert!(h.screen(120, 40).contains("ctrl+o sort"));
    let help = pitree::tui::help::Help::new(&h.app.keys).text();
    assert!(help.iter().any(|l| l.starts_with("ctrl+o") && l.contains("app.session.toggleSort")), "{help:?}");
    assert!(help.iter().any(|l| l.starts_with("alt+z") && l.contains("pitree.session.undoDelete")));
}

#[test]
fn start_up_warnings_are_shown() {
    let options = AppOptions { warnings: vec!["keybindings.json: bad".into()], ..AppOptions::default() };
    let mut h = Harness::with(options);
    assert!(h.screen(120, 40).contains("keybindings.json: bad"));
}
