//! Snapshots of the tree view as drawn (ratatui `TestBackend`, 120×32, fixed clock, home and time
//! zone) for pi's fixture sessions in every filter mode, the detail pane on a few of them, and the
//! rows of every damaged edge file in every filter mode. Compare with `pi-screens.md`: rows such as
//! `├⊟ • [approach-a] user: Let's try A: axum middleware.` must match pi's.

mod tree_support;

use std::path::Path;

use pitree::session::Session;
use pitree::tui::tree::{FilterMode, TreeView};
use ratatui::crossterm::event::KeyCode;
use tree_support::*;

/// The view drawn in each filter mode (list only), one after the other.
fn every_filter(view: &mut TreeView) -> String {
    press(view, key(KeyCode::Tab));
    let mut out = String::new();
    for mode in FilterMode::CYCLE {
        while view.filter() != mode {
            press(view, ctrl('o'));
        }
        out.push_str(&format!("===== {} =====\n", mode.name()));
        out.push_str(&render(view, 120, 32));
    }
    out
}

fn snapshot_scenario(name: &str) {
    let mut view = open(&scenario(name));
    insta::assert_snapshot!(format!("tree_{name}"), every_filter(&mut view));
}

#[test]
fn branched() {
    snapshot_scenario("branched");
}

#[test]
fn bushy() {
    snapshot_scenario("bushy");
}

#[test]
fn deep_draws_only_the_window() {
    snapshot_scenario("deep");
}

#[test]
fn multiroot() {
    snapshot_scenario("multiroot");
}

#[test]
fn summary() {
    snapshot_scenario("summary");
}

#[test]
fn extensions() {
    snapshot_scenario("extensions");
}

#[test]
fn unicode() {
    snapshot_scenario("unicode");
}

#[test]
fn linear() {
    snapshot_scenario("linear");
}

#[test]
fn labels_with_label_times() {
    let mut view = open(&scenario("labels"));
    press(&mut view, shift('T'));
    insta::assert_snapshot!("tree_labels_times", every_filter(&mut view));
}

#[test]
fn renamed_leaf_is_the_row_standing_for_the_session_info() {
    snapshot_scenario("renamed");
}

#[test]
fn detail_pane_on_the_leaf_and_on_a_branch() {
    let mut view = open(&scenario("branched"));
    let mut out = render(&view, 140, 40);
    press(&mut view, ctrl_left());
    press(&mut view, key(KeyCode::Down));
    out.push_str(&render(&view, 140, 40));
    insta::assert_snapshot!("tree_branched_detail", out);
}

#[test]
fn detail_pane_shows_images_and_long_outputs() {
    let mut view = open(&scenario("big"));
    let mut out = String::new();
    for _ in 0..view.rows().len() {
        out.push_str(&render(&view, 120, 40));
        press(&mut view, key(KeyCode::Up));
    }
    insta::assert_snapshot!("tree_big_detail", out);
}

#[test]
fn narrow_terminal() {
    let view = open(&scenario("branched"));
    insta::assert_snapshot!("tree_branched_60x15", render(&view, 60, 15));
}

fn ctrl_left() -> ratatui::crossterm::event::KeyEvent {
    ratatui::crossterm::event::KeyEvent::new(KeyCode::Left, ratatui::crossterm::event::KeyModifiers::CONTROL)
}

/// The rows of every edge file in every filter mode (or why it does not open).
#[test]
fn damaged_edge_files_in_every_filter() {
    let dir = Path::new(FIXTURES).join("edge");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut out = String::new();
    for path in files {
        out.push_str(&format!("##### {}\n", path.file_name().unwrap().to_string_lossy()));
        let session = match Session::open(&path) {
            Ok(s) => s,
            Err(e) => {
                out.push_str(&format!("does not open: {e}\n"));
                continue;
            }
        };
        let damaged = session.file.damage.len();
        let mut view = TreeView::open(session, options());
        out.push_str(&format!("damaged lines: {damaged}\n"));
        for mode in FilterMode::CYCLE {
            while view.filter() != mode {
                view.handle_key(ctrl('o'));
            }
            out.push_str(&format!("-- {} {}\n", mode.name(), view.status_line()));
            for row in view.row_texts() {
                out.push_str(&row);
                out.push('\n');
            }
        }
    }
    insta::assert_snapshot!("tree_edge_files", out);
}

/// A session whose abandoned branch (the leaf's) asks a long question with wide characters and a
/// long word in it, and ends in a long answer: the summary draft's Goal and Conclusion are long
/// lines (each within the 256 characters of a text head the draft takes).
fn long_draft_session() -> (tempfile::TempDir, std::path::PathBuf) {
    let goal = "Rework the session reader so that long JSONL lines are read in chunks; test that it \
        agrees with the plain reader on files with 中文字符 and emoji 😀 at the chunk edges, and that \
        supercalifragilisticexpialidocious_identifier_names_that_never_end survive.";
    let conclusion = "Chunked reading works.\nThe reader keeps the offset of every entry; the property \
        test ran ten thousand random files without a mismatch, and the detail pane shows the same \
        text as before.";
    let mut b = Build::new();
    b.user("u1", None, "start")
        .assistant("a1", Some("u1"), "ok")
        .user("u2", Some("a1"), "the other way")
        .assistant("a2", Some("u2"), "done")
        .user("u3", Some("a1"), goal)
        .assistant("a3", Some("u3"), conclusion);
    b.write()
}

/// The summary editor wraps the long lines at word boundaries (a word wider than the box breaks at
/// its edge; wide characters take two columns), with the cursor on 文 or 字 in the middle of the
/// wrapped Goal line, moved there by wrapped rows from the end: at 60 columns the box is scrolled
/// to the end, at 140 everything fits.
#[test]
fn summary_editor_wraps_long_lines() {
    let (_dir, path) = long_draft_session();
    for (w, h, ups, rights) in [(60, 20, 10, 28), (140, 30, 5, 2)] {
        let mut view = open(&path);
        while selected_id(&view).as_deref() != Some("a1") {
            press(&mut view, key(KeyCode::Up));
        }
        press(&mut view, key(KeyCode::Enter));
        press(&mut view, key(KeyCode::Down));
        press(&mut view, key(KeyCode::Enter));
        render(&view, w, h);
        for _ in 0..ups {
            press(&mut view, key(KeyCode::Up));
        }
        press(&mut view, key(KeyCode::Home));
        for _ in 0..rights {
            press(&mut view, key(KeyCode::Right));
        }
        let (screen, cursor) = render_with_cursor(&view, w, h);
        let under = cell_at(&screen, cursor);
        insta::assert_snapshot!(
            format!("tree_summary_editor_{w}"),
            format!("{screen}cursor at column {}, row {}, on {under:?}\n", cursor.x, cursor.y)
        );
    }
}
