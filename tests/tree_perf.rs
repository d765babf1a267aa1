//! A generated 100,000-entry session (a main line forking every 1,000 entries, tool calls and
//! results, long texts): how long opening, a key press plus the next frame, a filter change, a fold
//! and search keystrokes take. Printed, not asserted (product.md §9 targets are benchmarks); run
//! with `cargo test --release --test tree_perf -- --nocapture` for meaningful figures.

mod tree_support;

use std::io::Write;
use std::time::{Duration, Instant};

use pitree::session::Session;
use pitree::tui::theme::Theme;
use pitree::tui::tree::{Report, TreeView};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tree_support::*;

const ENTRIES: usize = 100_000;

/// Writes entries with sequential ids and timestamps.
struct Writer {
    out: std::io::BufWriter<std::fs::File>,
    n: usize,
}

impl Writer {
    fn message(&mut self, parent: &str, body: &str) -> String {
        self.n += 1;
        let n = self.n;
        let id = format!("{n:08x}");
        let ts = format!(
            "2026-01-01T{:02}:{:02}:{:02}.{:03}Z",
            (n / 3_600_000) % 24,
            (n / 60_000) % 60,
            (n / 1000) % 60,
            n % 1000
        );
        writeln!(
            self.out,
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{body}}}"#
        )
        .unwrap();
        format!("\"{id}\"")
    }
}

/// Write the session: user → assistant tool call → tool result → assistant text, repeated; every
/// 1,000 entries the line forks and the old branch gets one more reply.
fn generate(path: &std::path::Path) {
    let mut w = Writer { out: std::io::BufWriter::new(std::fs::File::create(path).unwrap()), n: 0 };
    writeln!(
        w.out,
        r#"{{"type":"session","version":3,"id":"perf","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}}"#
    )
    .unwrap();
    let mut parent = String::from("null");
    let filler = "lorem ipsum dolor sit amet ".repeat(12);
    while w.n < ENTRIES {
        let step = w.n / 4;
        let u = w.message(&parent, &format!(r#"{{"role":"user","content":"Step {step}: {filler}"}}"#));
        let call = format!(
            r#"{{"type":"toolCall","id":"c{step}","name":"bash","arguments":{{"command":"make step-{step}"}}}}"#
        );
        let a =
            w.message(&u, &format!(r#"{{"role":"assistant","stopReason":"toolUse","content":[{call}]}}"#));
        let r = w.message(&a, &format!(r#"{{"role":"toolResult","toolCallId":"c{step}","toolName":"bash","content":[{{"type":"text","text":"ok {step}\n{filler}"}}]}}"#));
        let t = w.message(&r, &format!(r#"{{"role":"assistant","stopReason":"stop","content":[{{"type":"text","text":"Done with step {step}. {filler}"}}]}}"#));
        if w.n.is_multiple_of(1000) {
            w.message(&r, r#"{"role":"assistant","stopReason":"stop","content":[{"type":"text","text":"An abandoned answer."}]}"#);
        }
        parent = t;
    }
}

fn time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed())
}

fn per(total: Duration, n: u32) -> String {
    format!("{:.3} ms", total.as_secs_f64() * 1000.0 / n as f64)
}

#[test]
fn hundred_thousand_entries() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    generate(&path);
    let (session, parse) = time(|| Session::open(&path).unwrap());
    let entries = session.entries().len();
    let (mut view, open) = time(|| TreeView::open(session, options()));
    let mut terminal = Terminal::new(TestBackend::new(160, 50)).unwrap();
    let theme = Theme::dark();
    let mut frame = |view: &TreeView| terminal.draw(|f| view.draw(f, f.area(), &theme)).map(drop).unwrap();
    let (_, first_frame) = time(|| {
        view.load_detail();
        frame(&view)
    });
    println!("{entries} entries, {} MB", std::fs::metadata(&path).unwrap().len() / 1_000_000);
    println!("parse {parse:?} · TreeView::open (flatten) {open:?} · first frame with detail {first_frame:?}");

    let (keys, detail_keys) = (200, 20);
    let mut cycle = |view: &mut TreeView, key: KeyEvent, with_detail: bool| {
        let (_, t) = time(|| {
            for _ in 0..if with_detail { detail_keys } else { keys } {
                view.handle_key(key);
                if with_detail {
                    view.load_detail();
                }
                frame(view);
            }
        });
        t
    };
    let up = cycle(&mut view, KeyEvent::new(KeyCode::Up, KeyModifiers::NONE), false);
    let page = cycle(&mut view, KeyEvent::new(KeyCode::PageUp, KeyModifiers::NONE), false);
    let up_detail = cycle(&mut view, KeyEvent::new(KeyCode::Up, KeyModifiers::NONE), true);
    view.handle_key(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE));
    let job = view.detail_job().unwrap();
    let (_, detail_job) = time(|| job.run());
    println!(
        "key + frame: ↑ {} · PgUp {} · ↑ with the detail job run in place {} (the job alone {detail_job:?}; on a worker it leaves the key path)",
        per(up, keys),
        per(page, keys),
        per(up_detail, detail_keys)
    );

    let (_, filter) = time(|| {
        view.handle_key(ctrl('t'));
        frame(&view)
    });
    let (_, fold) = time(|| {
        view.handle_key(KeyEvent::new(KeyCode::Left, KeyModifiers::CONTROL));
        frame(&view)
    });
    let (_, first_key) = time(|| {
        view.handle_key(key(KeyCode::Char('s')));
        frame(&view)
    });
    let (_, more_keys) = time(|| {
        for c in "tep 2499".chars() {
            view.handle_key(key(KeyCode::Char(c)));
            frame(&view);
        }
    });
    println!(
        "filter change + frame {filter:?} · fold + frame {fold:?} · first search key (builds the head index) {first_key:?} · next keys {}",
        per(more_keys, 8)
    );
    let job = view.search_job().unwrap();
    let (index, build) = time(|| job.run());
    let (_, apply) = time(|| view.apply(Report::SearchIndex(index)));
    let (_, backspace) = time(|| {
        view.handle_key(key(KeyCode::Backspace));
        frame(&view)
    });
    let (_, retype) = time(|| {
        view.handle_key(key(KeyCode::Char('9')));
        frame(&view)
    });
    println!(
        "full-text index job {build:?} · apply {apply:?} · backspace (full re-match) {backspace:?} · typed key (narrowing) {retype:?}"
    );
    assert!(!view.rows().is_empty());
}
