//! The real event loop (`run_loop`) with the real runner and catalog scan, on a `TestBackend`:
//! keys go into the same channel as the scan's results, and the loop ends with the exit the keys
//! asked for. Also the benchmark hooks, run once on the fixture sessions so they keep working.

mod picker_support;

use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use picker_support::Fixtures;
use pitree::catalog::session_cache::{Level, SessionCache};
use pitree::catalog::{Catalog, SessionsRoot, locate::RootSource};
use pitree::tui::app::{self, App, AppOptions, Event, Exit, Runner};
use pitree::tui::keymap::Keybindings;
use pitree::tui::picker::state::PickerOptions;
use pitree::tui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[test]
fn keys_and_scan_results_share_one_channel_and_the_loop_exits_with_the_choice() {
    let f = Fixtures::copy();
    let catalog = Arc::new(Catalog::open(SessionsRoot::new(f.root(), RootSource::AgentDir), None));
    let (tx, rx) = mpsc::channel();
    let keys = tx.clone();
    let loop_thread = std::thread::spawn(move || {
        let mut runner: Runner<TestBackend> =
            Runner::new(tx, catalog, std::path::PathBuf::from("/home/dev/alpha"));
        let options = AppOptions {
            picker: PickerOptions { all: true, ..PickerOptions::default() },
            ..AppOptions::default()
        };
        let (mut app, first) =
            App::new(options, Theme::no_color(), Arc::new(Keybindings::defaults()), app::now_ms());
        let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
        let exit = app::run_loop(&mut terminal, &mut app, &rx, &mut runner, first).unwrap();
        (exit, terminal.backend().to_string())
    });
    std::thread::sleep(Duration::from_millis(800));
    for c in "Auth refactor".chars() {
        keys.send(Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))).unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    keys.send(Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT))).unwrap();
    let (exit, screen) = loop_thread.join().unwrap();
    let Exit::Resume(resume) = exit else { panic!("expected a resume, got {exit:?}") };
    assert!(resume.session.to_string_lossy().contains("01973619-f5f4"), "{resume:?}");
    assert_eq!(resume.cwd, "/home/dev/alpha");
    assert!(screen.contains("› Auth refactor: middleware vs guard"), "{screen}");
}

#[test]
fn the_benchmark_hooks_run() {
    let f = Fixtures::copy();
    let cache = tempfile::tempdir().unwrap();
    let first = pitree::tui::bench_first_frame(&f.root(), cache.path(), 120, 40).unwrap();
    let warm = pitree::tui::bench_first_frame(&f.root(), cache.path(), 120, 40).unwrap();
    let key = pitree::tui::bench_search_keystroke(&f.root(), cache.path(), "rate", 120, 40).unwrap();
    for d in [first, warm, key] {
        assert!(d < Duration::from_secs(30), "{d:?}");
    }
}

/// A session of just over [`app::OUTLINE_BYTES`] (tool results of 256 KB) in `dir`, and its entry
/// count.
fn big_session(dir: &std::path::Path) -> (std::path::PathBuf, usize) {
    let output = "x".repeat(256 * 1024);
    let mut text = format!("{HEADER}\n");
    let mut parent = "null".to_string();
    for i in 0..(app::OUTLINE_BYTES as usize / output.len() + 1) {
        text.push_str(&format!(
            r#"{{"type":"message","id":"e{i}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{{"type":"text","text":"{output}"}}]}}}}"#
        ));
        text.push('\n');
        parent = format!("\"e{i}\"");
    }
    let big = dir.join("big.jsonl");
    std::fs::write(&big, &text).unwrap();
    (big, text.lines().count() - 1)
}

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"big","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;

/// What the runner sent for one opened session: `outline <width>` for a frame drawn from the
/// outline, then `whole <entries>`.
fn opened(rx: &mpsc::Receiver<Event>) -> Vec<String> {
    let mut seen = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(120)).expect("the session is read") {
            Event::TreeOutline { frame, .. } => {
                let text: String = frame.content().iter().map(|c| c.symbol()).collect();
                assert!(text.contains("Reading the whole session…"), "{text}");
                seen.push(format!("outline {}", frame.area.width));
            }
            Event::TreeOpened { result, .. } => {
                seen.push(format!("whole {}", result.unwrap().entries().len()));
                return seen;
            }
            _ => {}
        }
    }
}

#[test]
fn opening_a_big_session_sends_its_outline_before_the_whole_session_and_a_small_one_only_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (big, entries) = big_session(dir.path());
    let small = dir.path().join("small.jsonl");
    std::fs::write(&small, format!("{HEADER}\n")).unwrap();

    let catalog = Arc::new(Catalog::open(SessionsRoot::new(dir.path(), RootSource::Flag), None));
    let (tx, rx) = mpsc::channel();
    let mut runner: Runner<TestBackend> = Runner::new(tx, catalog, dir.path().to_path_buf());
    let (app, _) = App::new(AppOptions::default(), Theme::no_color(), Arc::new(Keybindings::defaults()), 0);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    runner.run(app::Effect::OpenTree(big), &app, &mut terminal).unwrap();
    assert_eq!(
        opened(&rx),
        ["outline 80".to_string(), format!("whole {entries}")],
        "drawn at the app's size"
    );
    runner.run(app::Effect::OpenTree(small), &app, &mut terminal).unwrap();
    assert_eq!(opened(&rx), ["whole 0"]);
}

#[test]
fn a_big_session_opened_again_comes_whole_from_the_cache_with_what_was_appended() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir(&sessions).unwrap();
    let (big, entries) = big_session(&sessions);
    let cache = SessionCache::new(&dir.path().join("cache"));
    let catalog = Arc::new(
        Catalog::open(SessionsRoot::new(&sessions, RootSource::Flag), None)
            .with_session_cache(Some(cache.clone())),
    );
    let (tx, rx) = mpsc::channel();
    let mut runner: Runner<TestBackend> = Runner::new(tx, catalog, dir.path().to_path_buf());
    let (app, _) = App::new(AppOptions::default(), Theme::no_color(), Arc::new(Keybindings::defaults()), 0);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    runner.run(app::Effect::OpenTree(big.clone()), &app, &mut terminal).unwrap();
    assert_eq!(opened(&rx), ["outline 80".to_string(), format!("whole {entries}")]);
    let kept = (0..600).any(|_| {
        std::thread::sleep(Duration::from_millis(50));
        cache.get(&big, Level::Whole).is_some()
    });
    assert!(kept, "the whole parse is kept once the view has it");

    runner.run(app::Effect::OpenTree(big.clone()), &app, &mut terminal).unwrap();
    assert_eq!(opened(&rx), [format!("whole {entries}")], "no outline: the whole session at once");
    let line = r#"{"type":"message","id":"more","parentId":"e0","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"more"}}"#;
    std::io::Write::write_all(
        &mut std::fs::OpenOptions::new().append(true).open(&big).unwrap(),
        format!("{line}\n").as_bytes(),
    )
    .unwrap();
    runner.run(app::Effect::OpenTree(big), &app, &mut terminal).unwrap();
    assert_eq!(opened(&rx), [format!("whole {}", entries + 1)], "the cache and the appended line");
}
