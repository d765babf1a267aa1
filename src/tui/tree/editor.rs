//! A small text editor for the view's inputs (label, session name, branch summary, the prompt to
//! re-send): the cursor starts at the end (pi starts it at 0, §6.2), moves and deletes by grapheme
//! cluster, and a multi-line editor keeps newlines. Long lines wrap softly at word boundaries to
//! the box the editor was last drawn in (`layout`, a pure function of the text and a width in
//! display columns; a word wider than the box breaks at its edge): ↑/↓ move by wrapped row keeping
//! the column, Home/End and Ctrl+A/Ctrl+E go to the ends of the wrapped row, and the first visible
//! row follows the cursor. The wrap is only shown: the text keeps the user's own newlines alone.

use std::cell::Cell;
use std::ops::Range;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use unicode_segmentation::UnicodeSegmentation;

use crate::display::{sanitize, take_cols, width};

/// An edited text with a cursor (a byte offset on a grapheme boundary), and the rows of it the box
/// shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Editor {
    text: String,
    cursor: usize,
    multiline: bool,
    /// The column ↑/↓ aim for while they move through shorter rows (set by the first of them).
    goal: Option<usize>,
    /// The first wrapped row in view.
    top: usize,
    /// The text area (columns, rows) of the box the editor was last drawn in, reported by drawing
    /// as the detail pane's height is; (0, 0) before the first frame, when nothing wraps.
    area: Cell<(u16, u16)>,
}

/// What a key did to the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    Changed,
    /// The key is not an editing key.
    Unhandled,
}

/// One wrapped row: the bytes of the text it holds (a newline belongs to no row).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    bytes: Range<usize>,
    /// The line goes on in the next row (a soft wrap); false at a newline and at the text's end.
    wrapped: bool,
}

/// What the editor shows in a text area: the visible rows (sanitized, cut to the width) and the
/// cursor's cell in them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditorView {
    pub rows: Vec<String>,
    pub cursor: (u16, u16),
}

impl Editor {
    /// An editor holding `text` with the cursor at its end.
    pub fn new(text: &str, multiline: bool) -> Editor {
        let text = if multiline { text.to_string() } else { single_line(text) };
        Editor { cursor: text.len(), text, multiline, goal: None, top: 0, area: Cell::new((0, 0)) }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Take the size of the text area the editor is drawn in (columns, rows); keys wrap and scroll
    /// for it from then on.
    pub fn set_area(&self, cols: u16, rows: u16) {
        self.area.set((cols, rows));
    }

    /// The rows to draw in a text area of `cols` × `rows` and where the cursor goes. Pure: the
    /// first row is the one the last key scrolled to, moved only if the area changed size so that
    /// the cursor would be out of it.
    pub fn view(&self, cols: u16, rows: u16) -> EditorView {
        let layout = layout(&self.text, wrap_cols(cols));
        let (row, col) = locate(&self.text, &layout, self.cursor);
        let height = usize::from(rows);
        let first = first_row(self.top, row, layout.len(), height);
        let cols = usize::from(cols);
        let shown = layout[first..]
            .iter()
            .take(height)
            .map(|r| take_cols(&sanitize(&self.text[r.bytes.clone()]), cols).to_string())
            .collect();
        // Spaces past the edge of a wrapped row are not drawn; the cursor on them waits at the edge.
        let x = col.min(cols.saturating_sub(1));
        EditorView { rows: shown, cursor: (to_u16(x), to_u16(row - first)) }
    }

    /// Insert text at the cursor (a paste; newlines become spaces in a single-line editor).
    pub fn insert(&mut self, text: &str) {
        self.insert_text(text);
        self.goal = None;
        self.scroll_to_cursor();
    }

    /// [`Editor::insert`] without the scroll, for a key, after which [`Editor::handle_key`]
    /// scrolls.
    fn insert_text(&mut self, text: &str) {
        let text =
            if self.multiline { text.replace("\r\n", "\n").replace('\r', "\n") } else { single_line(text) };
        self.text.insert_str(self.cursor, &text);
        self.cursor += text.len();
    }

    /// Apply an editing key: characters, Backspace/Delete, ←/→, Home/End and Ctrl+A/Ctrl+E (start
    /// and end of the wrapped row), ↑/↓ (the wrapped row above or below), Enter (a newline,
    /// multi-line only), Ctrl+U (clear before the cursor), Ctrl+K (clear after), Ctrl+W (delete the
    /// word before).
    pub fn handle_key(&mut self, key: KeyEvent) -> Edit {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        // Start from the first row the last frame showed (the area may have changed since).
        self.scroll_to_cursor();
        match key.code {
            KeyCode::Char(c) if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) => {
                self.insert_text(c.encode_utf8(&mut [0; 4]))
            }
            KeyCode::Char('u') if ctrl => {
                self.text.drain(..self.cursor);
                self.cursor = 0;
            }
            KeyCode::Char('k') if ctrl => self.text.truncate(self.cursor),
            KeyCode::Char('w') if ctrl => {
                let start = word_start(&self.text[..self.cursor]);
                self.text.drain(start..self.cursor);
                self.cursor = start;
            }
            KeyCode::Char('a') if ctrl => self.cursor = self.row_end(false),
            KeyCode::Char('e') if ctrl => self.cursor = self.row_end(true),
            KeyCode::Enter if self.multiline => self.insert_text("\n"),
            KeyCode::Backspace => {
                let start = self.prev_boundary();
                self.text.drain(start..self.cursor);
                self.cursor = start;
            }
            KeyCode::Delete => {
                let end = self.next_boundary();
                self.text.drain(self.cursor..end);
            }
            KeyCode::Left => self.cursor = self.prev_boundary(),
            KeyCode::Right => self.cursor = self.next_boundary(),
            KeyCode::Home => self.cursor = self.row_end(false),
            KeyCode::End => self.cursor = self.row_end(true),
            KeyCode::Up => self.move_row(false),
            KeyCode::Down => self.move_row(true),
            _ => return Edit::Unhandled,
        }
        if !matches!(key.code, KeyCode::Up | KeyCode::Down) {
            self.goal = None;
        }
        self.scroll_to_cursor();
        Edit::Changed
    }

    /// The wrapped rows for the last area drawn.
    fn layout(&self) -> Vec<Row> {
        layout(&self.text, wrap_cols(self.area.get().0))
    }

    /// Scroll as little as needed for the cursor's row to be in the last area drawn.
    fn scroll_to_cursor(&mut self) {
        let layout = self.layout();
        let (row, _) = locate(&self.text, &layout, self.cursor);
        self.top = first_row(self.top, row, layout.len(), usize::from(self.area.get().1));
    }

    fn prev_boundary(&self) -> usize {
        self.text[..self.cursor].grapheme_indices(true).next_back().map_or(0, |(at, _)| at)
    }

    fn next_boundary(&self) -> usize {
        self.text[self.cursor..].graphemes(true).next().map_or(self.cursor, |g| self.cursor + g.len())
    }

    /// The start, or the end, of the cursor's wrapped row.
    fn row_end(&self, end: bool) -> usize {
        let layout = self.layout();
        let (row, _) = locate(&self.text, &layout, self.cursor);
        if end { offset_at(&self.text, &layout[row], usize::MAX) } else { layout[row].bytes.start }
    }

    /// Move to the wrapped row above or below, at the goal column (or the nearest before it).
    fn move_row(&mut self, down: bool) {
        let layout = self.layout();
        let (row, col) = locate(&self.text, &layout, self.cursor);
        let goal = *self.goal.get_or_insert(col);
        let target = if down { Some(row + 1) } else { row.checked_sub(1) };
        if let Some(target) = target.and_then(|t| layout.get(t)) {
            self.cursor = offset_at(&self.text, target, goal);
        }
    }
}

/// The wrap width for a text area `cols` wide: one column is kept for the cursor after a full
/// row. An area not drawn yet (0) does not wrap.
fn wrap_cols(cols: u16) -> usize {
    if cols == 0 { usize::MAX } else { usize::from(cols - 1).max(1) }
}

fn to_u16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// The columns `text` takes once sanitized, as drawn.
fn cells(text: &str) -> usize {
    width(&sanitize(text))
}

/// The rows `text` takes at `cols` columns: each line (between the user's newlines) is cut after
/// the last whole word that fits, the spaces after that word staying at the end of its row (they
/// may pass the edge); a word wider than a row breaks where the row is full (never inside a
/// grapheme cluster), and so does a line's leading indent followed by a long word. A grapheme
/// wider than `cols` takes a row of its own. The rows of a line are contiguous, so the text is
/// the rows joined, with a newline after each row that is not [`Row::wrapped`] but the last.
fn layout(text: &str, cols: usize) -> Vec<Row> {
    let cols = cols.max(1);
    let mut rows = Vec::new();
    let mut start = 0;
    for line in text.split('\n') {
        wrap_line(line, start, cols, &mut rows);
        start += line.len() + 1;
    }
    rows
}

/// Push the rows of one line that begins at byte `base` of the text.
fn wrap_line(line: &str, base: usize, cols: usize, rows: &mut Vec<Row>) {
    // (offset, is a space, columns) per grapheme.
    let graphemes: Vec<(usize, bool, usize)> = line
        .grapheme_indices(true)
        .map(|(at, g)| (at, g.chars().all(char::is_whitespace), cells(g)))
        .collect();
    let mut row_start = 0;
    let mut i = 0;
    let mut used = 0;
    // A word seen in this row, and the last word start after it (the best place to wrap).
    let mut seen_word = false;
    let mut wrap_at = None;
    while let Some(&(_, space, cols_of)) = graphemes.get(i) {
        if !space && i > row_start && graphemes[i - 1].1 && seen_word {
            wrap_at = Some(i);
        }
        if !space && i > row_start && used + cols_of > cols {
            let end = wrap_at.unwrap_or(i);
            rows.push(Row { bytes: base + graphemes[row_start].0..base + graphemes[end].0, wrapped: true });
            (row_start, i, used, seen_word, wrap_at) = (end, end, 0, false, None);
            continue;
        }
        seen_word |= !space;
        used += cols_of;
        i += 1;
    }
    let start = graphemes.get(row_start).map_or(line.len(), |g| g.0);
    rows.push(Row { bytes: base + start..base + line.len(), wrapped: false });
}

/// The row and column (in cells) of byte `at` of `text`: the row that holds it, and at a soft wrap
/// the row that begins there.
fn locate(text: &str, rows: &[Row], at: usize) -> (usize, usize) {
    let row = rows
        .partition_point(|r| r.bytes.end < at || (r.wrapped && r.bytes.end == at))
        .min(rows.len().saturating_sub(1));
    let start = rows.get(row).map_or(0, |r| r.bytes.start);
    (row, cells(&text[start..at]))
}

/// The byte of `row` at column `col`, or before the grapheme that covers it; past the row's end,
/// its end (or, in a wrapped row, its last grapheme: its end is where the next row starts).
fn offset_at(text: &str, row: &Row, col: usize) -> usize {
    let mut used = 0;
    let mut last = row.bytes.start;
    for (at, g) in text[row.bytes.clone()].grapheme_indices(true) {
        let cols = cells(g);
        if used + cols > col {
            return row.bytes.start + at;
        }
        used += cols;
        last = row.bytes.start + at;
    }
    if row.wrapped { last } else { row.bytes.end }
}

/// The first row to show in `height` rows so that `cursor_row` shows, moving `top` as little as
/// needed, and with no blank rows at the bottom while rows are hidden above. A height of 0 (an
/// area not drawn yet) shows everything.
fn first_row(top: usize, cursor_row: usize, rows: usize, height: usize) -> usize {
    let height = if height == 0 { usize::MAX } else { height };
    let mut top = top.min(cursor_row);
    if cursor_row - top >= height {
        top = cursor_row + 1 - height;
    }
    top.min(rows.saturating_sub(height))
}

/// Line breaks (CR, LF, CRLF) as single spaces.
fn single_line(text: &str) -> String {
    text.replace("\r\n", " ").replace(['\r', '\n'], " ")
}

/// Where the word before the end of `text` starts (trailing spaces included in the deletion).
fn word_start(text: &str) -> usize {
    let trimmed = text.trim_end();
    trimmed
        .rfind(char::is_whitespace)
        .map_or(0, |at| at + trimmed[at..].chars().next().map_or(1, char::len_utf8))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn press(e: &mut Editor, code: KeyCode, times: usize) {
        for _ in 0..times {
            e.handle_key(key(code));
        }
    }

    /// The rows of `text` at `cols` columns, as text.
    fn rows(text: &str, cols: usize) -> Vec<&str> {
        layout(text, cols).into_iter().map(|r| &text[r.bytes]).collect()
    }

    /// The text with `|` at the cursor.
    fn shown(e: &Editor) -> String {
        let mut s = e.text().to_string();
        s.insert(e.cursor, '|');
        s
    }

    /// An editor drawn once in a text area of `cols` × `height`.
    fn drawn(text: &str, cols: u16, height: u16) -> Editor {
        let e = Editor::new(text, true);
        e.set_area(cols, height);
        e
    }

    #[test]
    fn cursor_starts_at_the_end_and_typing_appends() {
        let mut e = Editor::new("Old", false);
        e.handle_key(key(KeyCode::Char('X')));
        assert_eq!(e.text(), "OldX");
    }

    #[test]
    fn backspace_and_arrows_work_per_grapheme() {
        let mut e = Editor::new("a👩\u{200D}👩\u{200D}👧e\u{301}", false);
        e.handle_key(key(KeyCode::Backspace));
        assert_eq!(e.text(), "a👩\u{200D}👩\u{200D}👧");
        e.handle_key(key(KeyCode::Left));
        e.handle_key(key(KeyCode::Char('b')));
        assert_eq!(e.text(), "ab👩\u{200D}👩\u{200D}👧");
    }

    #[test]
    fn single_line_editors_turn_pasted_newlines_into_spaces() {
        let mut e = Editor::new("x\ny", false);
        e.insert("1\r\n2");
        assert_eq!(e.text(), "x y1 2");
        assert_eq!(e.handle_key(key(KeyCode::Enter)), Edit::Unhandled);
    }

    #[test]
    fn multi_line_editors_move_between_lines() {
        let mut e = Editor::new("first line\nab", true);
        e.handle_key(key(KeyCode::Up));
        assert_eq!(shown(&e), "fi|rst line\nab");
        e.handle_key(key(KeyCode::Enter));
        assert_eq!(e.text(), "fi\nrst line\nab");
        e.handle_key(KeyEvent::new(KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!(e.text(), "rst line\nab", "Ctrl+W deletes the word before the cursor");
    }

    #[test]
    fn lines_wrap_after_the_last_word_that_fits() {
        assert_eq!(rows("the quick brown fox", 10), ["the quick ", "brown fox"]);
        assert_eq!(rows("the quick brown fox", 9), ["the quick ", "brown fox"]);
        assert_eq!(rows("the quick brown fox", 8), ["the ", "quick ", "brown ", "fox"]);
        assert_eq!(rows("a    b", 3), ["a    ", "b"], "spaces stay at the end of their row");
        assert_eq!(rows("short", 10), ["short"]);
    }

    #[test]
    fn a_word_wider_than_the_row_breaks_at_its_edge() {
        assert_eq!(rows("abcdefghijkl", 5), ["abcde", "fghij", "kl"]);
        assert_eq!(rows("ab cdefghijkl", 5), ["ab ", "cdefg", "hijkl"]);
        assert_eq!(rows("    abcdefgh", 6), ["    ab", "cdefgh"], "an indent stays on its row");
    }

    #[test]
    fn wide_characters_take_two_columns() {
        assert_eq!(rows("中文中文中文", 5), ["中文", "中文", "中文"]);
        assert_eq!(rows("ab 😀😀 cd", 6), ["ab ", "😀😀 ", "cd"]);
        assert_eq!(rows("中x", 1), ["中", "x"], "a grapheme wider than a row takes one alone");
        assert_eq!(rows("e\u{301}e\u{301}e\u{301}", 2), ["e\u{301}e\u{301}", "e\u{301}"]);
    }

    #[test]
    fn newlines_end_rows_and_belong_to_none() {
        let layout = layout("ab\n\ncd ef", 3);
        let texts: Vec<_> = layout.iter().map(|r| (r.bytes.clone(), r.wrapped)).collect();
        assert_eq!(texts, [(0..2, false), (3..3, false), (4..7, true), (7..9, false)]);
        assert_eq!(rows("", 4), [""]);
    }

    #[test]
    fn the_cursor_at_a_soft_wrap_is_at_the_start_of_the_next_row() {
        let text = "the quick brown";
        let layout = layout(text, 10);
        assert_eq!(locate(text, &layout, 10), (1, 0));
        assert_eq!(locate(text, &layout, 9), (0, 9), "on the space after `quick`");
        assert_eq!(locate(text, &layout, text.len()), (1, 5));
        assert_eq!(offset_at(text, &layout[0], 99), 9, "a wrapped row ends before its last grapheme");
        assert_eq!(offset_at(text, &layout[1], 99), text.len());
        assert_eq!(locate("中文", &layout_of("中文"), 3), (0, 2));
        assert_eq!(offset_at("中文", &layout_of("中文")[0], 3), 3, "a column inside 文 lands before it");
    }

    fn layout_of(text: &str) -> Vec<Row> {
        layout(text, 10)
    }

    #[test]
    fn up_and_down_move_by_wrapped_row_keeping_the_column() {
        // Rows at 11 columns (12 - 1 for the cursor): "one two ", "three four ", "x", "end of it".
        let mut e = drawn("one two three four x\nend of it", 12, 10);
        assert_eq!(e.view(12, 10).rows, ["one two ", "three four ", "x", "end of it"]);
        press(&mut e, KeyCode::Up, 1);
        assert_eq!(shown(&e), "one two three four x|\nend of it", "the end of a shorter row");
        press(&mut e, KeyCode::Up, 1);
        assert_eq!(shown(&e), "one two three fou|r x\nend of it", "the goal column is kept");
        press(&mut e, KeyCode::Up, 1);
        assert_eq!(shown(&e), "one two| three four x\nend of it", "a wrapped row ends before its end");
        press(&mut e, KeyCode::Up, 1);
        assert_eq!(shown(&e), "one two| three four x\nend of it", "the first row stays");
        press(&mut e, KeyCode::Down, 3);
        assert_eq!(shown(&e), "one two three four x\nend of it|");
        press(&mut e, KeyCode::Left, 1);
        press(&mut e, KeyCode::Up, 1);
        assert_eq!(shown(&e), "one two three four x|\nend of it", "another key sets a new goal");
    }

    #[test]
    fn home_and_end_go_to_the_ends_of_the_wrapped_row() {
        // Rows at 9 columns: "one two ", "three ", "four".
        let mut e = drawn("one two three four", 10, 10);
        press(&mut e, KeyCode::Home, 1);
        assert_eq!(shown(&e), "one two three |four");
        press(&mut e, KeyCode::Left, 2);
        press(&mut e, KeyCode::Home, 1);
        assert_eq!(shown(&e), "one two |three four");
        e.handle_key(KeyEvent::new(KeyCode::Char('e'), KeyModifiers::CONTROL));
        assert_eq!(shown(&e), "one two three| four", "on the space the row wraps after");
        e.handle_key(KeyEvent::new(KeyCode::Char('a'), KeyModifiers::CONTROL));
        press(&mut e, KeyCode::Up, 1);
        press(&mut e, KeyCode::End, 1);
        assert_eq!(shown(&e), "one two| three four");
    }

    #[test]
    fn an_editor_not_drawn_yet_moves_by_line() {
        let mut e = Editor::new(&format!("{}\nb", "word ".repeat(40)), true);
        press(&mut e, KeyCode::Up, 1);
        press(&mut e, KeyCode::Home, 1);
        assert_eq!(e.cursor, 0);
    }

    #[test]
    fn the_view_scrolls_to_the_cursor_row_and_no_further() {
        // 20 rows of "wordN " at 7 columns.
        let text: String = (10..30).map(|n| format!("word{n} ")).collect();
        let mut e = drawn(text.trim_end(), 8, 3);
        let view = e.view(8, 3);
        assert_eq!(view.rows, ["word27 ", "word28 ", "word29"], "the cursor starts at the end");
        assert_eq!(view.cursor, (6, 2));
        press(&mut e, KeyCode::Up, 2);
        assert_eq!(e.view(8, 3).rows[0], "word27 ", "rows in view do not scroll");
        press(&mut e, KeyCode::Up, 1);
        assert_eq!(e.view(8, 3).rows[0], "word26 ");
        assert_eq!(e.view(8, 3).cursor, (6, 0));
        press(&mut e, KeyCode::Down, 2);
        assert_eq!(e.view(8, 3).rows[0], "word26 ");
        assert_eq!(e.view(8, 3).cursor.1, 2);
        e.set_area(8, 2);
        assert_eq!(e.view(8, 2).rows, ["word27 ", "word28 "], "a smaller area keeps the cursor row");
    }

    #[test]
    fn deleting_rows_below_scrolls_hidden_rows_back_in() {
        let mut e = drawn("a\nb\nc\nd", 4, 2);
        press(&mut e, KeyCode::Up, 3);
        press(&mut e, KeyCode::Down, 1);
        assert_eq!(e.view(4, 2).rows, ["a", "b"]);
        e.handle_key(KeyEvent::new(KeyCode::Char('k'), KeyModifiers::CONTROL));
        assert_eq!(e.view(4, 2).rows, ["a", "b"]);
    }

    #[test]
    fn the_view_draws_rows_sanitized_and_cut_at_the_edge() {
        let e = drawn("tab\there and a longer word", 10, 4);
        let view = e.view(10, 4);
        assert_eq!(view.rows, ["tab here ", "and a ", "longer ", "word"]);
        let mut e = drawn("ab      ", 4, 2);
        assert_eq!(e.view(4, 2), EditorView { rows: vec!["ab  ".into()], cursor: (3, 0) });
        press(&mut e, KeyCode::Home, 1);
        assert_eq!(e.view(4, 2).cursor, (0, 0));
    }

    proptest! {
        #[test]
        fn rows_join_back_into_the_text_and_fit(text in "[ab 中😀\n]{0,40}|[a-z ]{0,80}", cols in 1usize..12) {
            let layout = layout(&text, cols);
            let mut joined = String::new();
            for (i, row) in layout.iter().enumerate() {
                joined.push_str(&text[row.bytes.clone()]);
                if !row.wrapped && i + 1 < layout.len() {
                    joined.push('\n');
                }
                let words = text[row.bytes.clone()].trim_end();
                prop_assert!(width(words) <= cols || words.graphemes(true).count() == 1, "{row:?}");
                if row.wrapped {
                    prop_assert!(!row.bytes.is_empty());
                }
            }
            prop_assert_eq!(joined, text);
        }

        #[test]
        fn every_cursor_offset_maps_to_a_row_and_column_and_back(
            text in "[ab 中😀\n]{0,40}|[a-z ]{0,80}|(e\u{301}| |x){0,30}",
            cols in 1usize..12,
        ) {
            let layout = layout(&text, cols);
            let ends = text.grapheme_indices(true).map(|(at, _)| at).chain([text.len()]);
            for at in ends {
                let (row, col) = locate(&text, &layout, at);
                prop_assert!(layout[row].bytes.contains(&at) || layout[row].bytes.end == at);
                prop_assert_eq!(offset_at(&text, &layout[row], col), at, "{:?} {} {}", layout, row, col);
            }
        }
    }
}
