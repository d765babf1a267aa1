//! A single-line text input (the search box, the rename and label fields): editing by grapheme
//! cluster with pi's editing keys, a kill buffer, undo, and horizontal scrolling that keeps the
//! cursor visible at any width, CJK and emoji included.
//!
//! Keys: ←/→ and Ctrl+B/F by grapheme; Alt+←/→, Ctrl+←/→ and Alt+B/F by word; Home/End and
//! Ctrl+A/E; Backspace (or Ctrl+H) and Delete (or Ctrl+D) by grapheme; Ctrl+W and Alt+Backspace
//! kill the word before the cursor, Alt+D and Alt+Delete the word after it; Ctrl+U kills to the
//! start, Ctrl+K to the end; Ctrl+Y yanks the last kill (consecutive kills add up); Ctrl+- (also
//! Ctrl+_ and Ctrl+/, which legacy terminals send as the same byte) undoes. Screens that bind
//! some of these keys themselves check their keymap first.

use std::cell::Cell;

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use unicode_segmentation::UnicodeSegmentation;

use crate::display::{sanitize, skip_cols, take_cols, width};

/// How many edits undo remembers.
const UNDO_LIMIT: usize = 200;

/// The text and cursor of one input field.
#[derive(Debug, Clone, Default)]
pub struct Input {
    value: String,
    /// Byte offset into `value`, always on a grapheme boundary.
    cursor: usize,
    /// The last killed text, for Ctrl+Y.
    kill: String,
    undo: Vec<(String, usize)>,
    last: LastEdit,
    /// The first visible column, remembered between frames so the text does not jump.
    scroll: Cell<usize>,
}

/// What the previous key did, to group typing into undo steps and to join consecutive kills.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum LastEdit {
    #[default]
    Other,
    Typing,
    Kill,
}

/// What an input shows in a given width: the visible text and where the cursor is in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputView {
    /// The visible part of the value, at most the width asked for.
    pub text: String,
    /// The cursor's column within `text`.
    pub cursor_col: u16,
}

impl Input {
    /// An empty input.
    pub fn new() -> Input {
        Input::default()
    }

    /// An input prefilled with `value`, the cursor at its end (pi puts it at the start).
    pub fn with_value(value: &str) -> Input {
        let mut input = Input::new();
        input.set_value(value);
        input
    }

    pub fn value(&self) -> &str {
        &self.value
    }

    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }

    /// The cursor as a byte offset into [`Input::value`].
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Replace the whole value (sanitized), put the cursor at its end and forget the undo
    /// history.
    pub fn set_value(&mut self, value: &str) {
        self.value = clean(value);
        self.cursor = self.value.len();
        self.undo.clear();
        self.last = LastEdit::Other;
        self.scroll.set(0);
    }

    /// Insert `text` at the cursor as one undoable step (a paste, or a yank). Line breaks and
    /// other control characters become spaces (`\r\n` counts as one).
    pub fn insert_str(&mut self, text: &str) {
        let text = clean(text);
        if text.is_empty() {
            return;
        }
        self.remember();
        self.value.insert_str(self.cursor, &text);
        self.cursor += text.len();
        self.last = LastEdit::Other;
    }

    /// Apply one key press. Returns whether the input used the key; keys it does not know
    /// (Enter, Esc, Tab, ↑/↓, …) are left to the caller.
    pub fn handle_key(&mut self, key: &KeyEvent) -> bool {
        if key.kind == KeyEventKind::Release {
            return false;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Char(c) if typed_char(c, key.modifiers) => self.type_char(c),
            KeyCode::Left if ctrl || alt => self.move_to(self.word_start()),
            KeyCode::Right if ctrl || alt => self.move_to(self.word_end()),
            KeyCode::Char('b') if alt => self.move_to(self.word_start()),
            KeyCode::Char('f') if alt => self.move_to(self.word_end()),
            KeyCode::Left => self.move_to(self.prev_boundary()),
            KeyCode::Right => self.move_to(self.next_boundary()),
            KeyCode::Char('b') if ctrl => self.move_to(self.prev_boundary()),
            KeyCode::Char('f') if ctrl => self.move_to(self.next_boundary()),
            KeyCode::Home => self.move_to(0),
            KeyCode::End => self.move_to(self.value.len()),
            KeyCode::Char('a') if ctrl => self.move_to(0),
            KeyCode::Char('e') if ctrl => self.move_to(self.value.len()),
            KeyCode::Backspace if alt => self.kill_range(self.word_start(), self.cursor),
            KeyCode::Delete if alt => self.kill_range(self.cursor, self.word_end()),
            KeyCode::Char('d') if alt => self.kill_range(self.cursor, self.word_end()),
            KeyCode::Backspace => self.delete_range(self.prev_boundary(), self.cursor),
            KeyCode::Char('h') if ctrl => self.delete_range(self.prev_boundary(), self.cursor),
            KeyCode::Delete => self.delete_range(self.cursor, self.next_boundary()),
            KeyCode::Char('d') if ctrl => self.delete_range(self.cursor, self.next_boundary()),
            KeyCode::Char('w') if ctrl => self.kill_range(self.word_start(), self.cursor),
            KeyCode::Char('u') if ctrl => self.kill_range(0, self.cursor),
            KeyCode::Char('k') if ctrl => self.kill_range(self.cursor, self.value.len()),
            KeyCode::Char('y') if ctrl => self.insert_str(&self.kill.clone()),
            // Ctrl+- and Ctrl+_ as kitty reports them; legacy terminals send 0x1F, which crossterm
            // reports as Ctrl+7, and which some send for Ctrl+/.
            KeyCode::Char('-' | '_' | '7' | '/') if ctrl => self.undo(),
            _ => return false,
        }
        true
    }

    /// Where the text and cursor are when `width` columns are available. The scroll moves only
    /// as far as needed to keep the cursor (and the whole grapheme under it) in view.
    pub fn view(&self, width_cols: u16) -> InputView {
        let cols = usize::from(width_cols);
        if cols == 0 {
            return InputView { text: String::new(), cursor_col: 0 };
        }
        let cursor_col = width(&self.value[..self.cursor]);
        let under_cursor = self.value[self.cursor..].graphemes(true).next().map_or(1, |g| width(g).max(1));
        // Columns the text needs, counting the cell the cursor takes after the last character.
        let needed = width(&self.value) + 1;
        let mut scroll = self.scroll.get().min(cursor_col);
        if cursor_col + under_cursor > scroll + cols {
            scroll = cursor_col + under_cursor - cols;
        }
        // No blank columns at the end while text is hidden at the start; and a grapheme wider
        // than the whole field still leaves the cursor in it.
        scroll = scroll.min(needed.saturating_sub(cols)).min(cursor_col);
        self.scroll.set(scroll);
        let text = take_cols(&skip_cols(&self.value, scroll), cols).to_owned();
        InputView { text, cursor_col: u16::try_from(cursor_col - scroll).unwrap_or(width_cols - 1) }
    }

    /// Draw the visible text into the first line of `area` in `style` (the rest of the line is
    /// filled with the style) and return where the terminal cursor belongs.
    pub fn render(&self, area: Rect, buf: &mut Buffer, style: Style) -> Position {
        if area.is_empty() {
            return area.as_position();
        }
        let line = Rect { height: 1, ..area };
        let view = self.view(line.width);
        buf.set_style(line, style);
        buf.set_stringn(line.x, line.y, &view.text, usize::from(line.width), style);
        Position::new(line.x + view.cursor_col, line.y)
    }

    fn type_char(&mut self, c: char) {
        let mut buf = [0; 4];
        let text = clean(c.encode_utf8(&mut buf));
        if text.is_empty() {
            return;
        }
        if self.last != LastEdit::Typing || c.is_whitespace() {
            self.remember();
        }
        self.value.insert_str(self.cursor, &text);
        self.cursor += text.len();
        // A combining mark joins the grapheme before it; keep the cursor on a boundary.
        self.cursor = self.next_boundary_from(self.cursor - text.len()).max(self.cursor);
        self.last = LastEdit::Typing;
    }

    fn move_to(&mut self, at: usize) {
        self.cursor = at;
        self.last = LastEdit::Other;
    }

    fn delete_range(&mut self, start: usize, end: usize) {
        if start < end {
            self.remember();
            self.value.replace_range(start..end, "");
            self.cursor = start;
        }
        self.last = LastEdit::Other;
    }

    /// Cut `start..end` into the kill buffer; right after another kill, add to it instead.
    fn kill_range(&mut self, start: usize, end: usize) {
        if start < end {
            self.remember();
            let cut: String = self.value.drain(start..end).collect();
            if self.last != LastEdit::Kill {
                self.kill.clear();
            }
            if start < self.cursor {
                self.kill.insert_str(0, &cut);
            } else {
                self.kill.push_str(&cut);
            }
            self.cursor = start;
        }
        self.last = LastEdit::Kill;
    }

    fn undo(&mut self) {
        if let Some((value, cursor)) = self.undo.pop() {
            self.value = value;
            self.cursor = cursor;
        }
        self.last = LastEdit::Other;
    }

    /// Save the current state as an undo step.
    fn remember(&mut self) {
        if self.undo.len() == UNDO_LIMIT {
            self.undo.remove(0);
        }
        self.undo.push((self.value.clone(), self.cursor));
    }

    fn prev_boundary(&self) -> usize {
        self.value[..self.cursor].grapheme_indices(true).next_back().map_or(0, |(at, _)| at)
    }

    fn next_boundary(&self) -> usize {
        self.next_boundary_from(self.cursor)
    }

    /// The end of the grapheme that contains byte `at` (or `at` at the end of the text).
    fn next_boundary_from(&self, at: usize) -> usize {
        let mut end = 0;
        for (start, grapheme) in self.value.grapheme_indices(true) {
            end = start + grapheme.len();
            if end > at {
                break;
            }
        }
        end.max(at)
    }

    /// pi's word motion backwards: skip spaces, then a run of punctuation or a run of word
    /// characters.
    fn word_start(&self) -> usize {
        let graphemes: Vec<(usize, &str)> = self.value[..self.cursor].grapheme_indices(true).collect();
        let mut i = graphemes.len();
        while i > 0 && class(graphemes[i - 1].1) == Class::Space {
            i -= 1;
        }
        if i > 0 {
            let run = class(graphemes[i - 1].1);
            while i > 0 && class(graphemes[i - 1].1) == run {
                i -= 1;
            }
        }
        graphemes.get(i).map_or(self.cursor, |&(at, _)| at)
    }

    /// pi's word motion forwards: skip spaces, then a run of punctuation or of word characters.
    fn word_end(&self) -> usize {
        let rest = &self.value[self.cursor..];
        let mut graphemes = rest.grapheme_indices(true).peekable();
        while graphemes.next_if(|(_, g)| class(g) == Class::Space).is_some() {}
        if let Some(&(_, first)) = graphemes.peek() {
            let run = class(first);
            while graphemes.next_if(|(_, g)| class(g) == run).is_some() {}
        }
        self.cursor + graphemes.peek().map_or(rest.len(), |&(at, _)| at)
    }
}

/// Characters a key types: any character without Ctrl or Alt. Ctrl+Alt with a character that is
/// not a letter is AltGr on Windows (`@`, `€`, `{`), so it types too.
fn typed_char(c: char, mods: KeyModifiers) -> bool {
    let ctrl_alt = KeyModifiers::CONTROL | KeyModifiers::ALT;
    !mods.intersects(ctrl_alt) || (mods.contains(ctrl_alt) && !c.is_ascii_alphanumeric())
}

/// Text as the input holds it: sanitized, with `\r\n` as one line break.
fn clean(text: &str) -> String {
    if text.contains("\r\n") {
        sanitize(&text.replace("\r\n", "\n")).into_owned()
    } else {
        sanitize(text).into_owned()
    }
}

/// Word classes for word motion, as in pi's editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Space,
    Punctuation,
    Word,
}

fn class(grapheme: &str) -> Class {
    match grapheme.chars().next() {
        Some(c) if c.is_whitespace() => Class::Space,
        Some(c) if c.is_ascii_punctuation() && c != '_' => Class::Punctuation,
        _ => Class::Word,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(input: &mut Input, code: KeyCode, mods: KeyModifiers) -> bool {
        input.handle_key(&KeyEvent::new(code, mods))
    }

    fn key(input: &mut Input, code: KeyCode) -> bool {
        press(input, code, KeyModifiers::NONE)
    }

    fn ctrl(input: &mut Input, c: char) -> bool {
        press(input, KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn alt(input: &mut Input, code: KeyCode) -> bool {
        press(input, code, KeyModifiers::ALT)
    }

    fn typed(text: &str) -> Input {
        let mut input = Input::new();
        for c in text.chars() {
            assert!(key(&mut input, KeyCode::Char(c)));
        }
        input
    }

    /// The value with `|` at the cursor.
    fn shown(input: &Input) -> String {
        let mut s = input.value().to_owned();
        s.insert(input.cursor(), '|');
        s
    }

    #[test]
    fn prefilled_cursor_starts_at_the_end() {
        let mut input = Input::with_value("Old");
        key(&mut input, KeyCode::Char('X'));
        assert_eq!(input.value(), "OldX", "pi would give XOld");
    }

    #[test]
    fn typing_and_moving() {
        let mut input = typed("hello");
        assert_eq!(shown(&input), "hello|");
        key(&mut input, KeyCode::Left);
        key(&mut input, KeyCode::Left);
        assert_eq!(shown(&input), "hel|lo");
        key(&mut input, KeyCode::Home);
        assert_eq!(shown(&input), "|hello");
        ctrl(&mut input, 'e');
        assert_eq!(shown(&input), "hello|");
        ctrl(&mut input, 'a');
        assert_eq!(shown(&input), "|hello");
        key(&mut input, KeyCode::End);
        ctrl(&mut input, 'b');
        ctrl(&mut input, 'f');
        key(&mut input, KeyCode::Right);
        assert_eq!(shown(&input), "hello|");
        press(&mut input, KeyCode::Char('!'), KeyModifiers::SHIFT);
        assert_eq!(input.value(), "hello!");
    }

    #[test]
    fn unknown_keys_are_not_consumed() {
        let mut input = typed("a");
        for code in [KeyCode::Enter, KeyCode::Esc, KeyCode::Tab, KeyCode::Up, KeyCode::Down, KeyCode::F(1)] {
            assert!(!key(&mut input, code), "{code:?}");
        }
        assert!(!ctrl(&mut input, 's'));
        assert!(!alt(&mut input, KeyCode::Char('x')));
        let mut release = KeyEvent::new(KeyCode::Char('b'), KeyModifiers::NONE);
        release.kind = KeyEventKind::Release;
        assert!(!input.handle_key(&release));
        assert_eq!(input.value(), "a");
    }

    #[test]
    fn backspace_and_delete_work_by_grapheme() {
        let family = "👩\u{200D}👩\u{200D}👧";
        let mut input = Input::with_value(&format!("a{family}e\u{301}🇺🇳"));
        key(&mut input, KeyCode::Backspace);
        assert_eq!(input.value(), format!("a{family}e\u{301}"));
        key(&mut input, KeyCode::Backspace);
        assert_eq!(input.value(), format!("a{family}"));
        ctrl(&mut input, 'h');
        assert_eq!(input.value(), "a");
        let mut input = Input::with_value(&format!("{family}中x"));
        key(&mut input, KeyCode::Home);
        key(&mut input, KeyCode::Delete);
        assert_eq!(shown(&input), "|中x");
        ctrl(&mut input, 'd');
        assert_eq!(shown(&input), "|x");
        key(&mut input, KeyCode::End);
        key(&mut input, KeyCode::Delete);
        assert_eq!(shown(&input), "x|");
    }

    #[test]
    fn cursor_moves_over_whole_graphemes() {
        let mut input = Input::with_value("e\u{301}🇺🇳");
        key(&mut input, KeyCode::Left);
        assert_eq!(input.cursor(), "e\u{301}".len());
        key(&mut input, KeyCode::Left);
        assert_eq!(input.cursor(), 0);
        key(&mut input, KeyCode::Left);
        assert_eq!(input.cursor(), 0);
        key(&mut input, KeyCode::Right);
        assert_eq!(input.cursor(), "e\u{301}".len());
    }

    #[test]
    fn typing_an_invisible_character_is_no_edit() {
        let mut input = typed("a");
        assert!(key(&mut input, KeyCode::Char('\u{200B}')));
        assert_eq!(shown(&input), "a|");
        ctrl(&mut input, '-');
        assert_eq!(input.value(), "");
    }

    #[test]
    fn a_typed_combining_mark_joins_the_grapheme_before_the_cursor() {
        let mut input = typed("e\u{301}");
        assert_eq!(shown(&input), "e\u{301}|");
        key(&mut input, KeyCode::Backspace);
        assert_eq!(input.value(), "");
    }

    #[test]
    fn word_motion_and_word_kills() {
        let mut input = Input::with_value("foo.bar  baz_qux");
        alt(&mut input, KeyCode::Left);
        assert_eq!(shown(&input), "foo.bar  |baz_qux", "underscore is part of a word");
        press(&mut input, KeyCode::Left, KeyModifiers::CONTROL);
        assert_eq!(shown(&input), "foo.|bar  baz_qux");
        alt(&mut input, KeyCode::Char('b'));
        assert_eq!(shown(&input), "foo|.bar  baz_qux");
        alt(&mut input, KeyCode::Right);
        assert_eq!(shown(&input), "foo.|bar  baz_qux");
        alt(&mut input, KeyCode::Char('f'));
        assert_eq!(shown(&input), "foo.bar|  baz_qux");
        alt(&mut input, KeyCode::Char('f'));
        assert_eq!(shown(&input), "foo.bar  baz_qux|");
        ctrl(&mut input, 'w');
        assert_eq!(shown(&input), "foo.bar  |");
        alt(&mut input, KeyCode::Backspace);
        assert_eq!(shown(&input), "foo.|");
        key(&mut input, KeyCode::Home);
        alt(&mut input, KeyCode::Char('d'));
        assert_eq!(shown(&input), "|.");
        alt(&mut input, KeyCode::Delete);
        assert_eq!(shown(&input), "|");
    }

    #[test]
    fn words_of_wide_characters() {
        let mut input = Input::with_value("中文 😀😀");
        ctrl(&mut input, 'w');
        assert_eq!(input.value(), "中文 ");
        ctrl(&mut input, 'w');
        assert_eq!(input.value(), "");
    }

    #[test]
    fn kills_and_yank() {
        let mut input = Input::with_value("hello world");
        for _ in 0..5 {
            key(&mut input, KeyCode::Left);
        }
        ctrl(&mut input, 'k');
        assert_eq!(shown(&input), "hello |");
        ctrl(&mut input, 'y');
        assert_eq!(shown(&input), "hello world|");
        key(&mut input, KeyCode::Home);
        alt(&mut input, KeyCode::Right);
        ctrl(&mut input, 'u');
        assert_eq!(shown(&input), "| world");
        key(&mut input, KeyCode::End);
        ctrl(&mut input, 'y');
        assert_eq!(input.value(), " worldhello");
    }

    #[test]
    fn consecutive_kills_add_up() {
        let mut input = Input::with_value("one two three");
        ctrl(&mut input, 'w');
        ctrl(&mut input, 'w');
        assert_eq!(input.value(), "one ");
        ctrl(&mut input, 'y');
        assert_eq!(input.value(), "one two three");
        key(&mut input, KeyCode::Home);
        ctrl(&mut input, 'k');
        key(&mut input, KeyCode::Char('x'));
        ctrl(&mut input, 'u');
        ctrl(&mut input, 'y');
        assert_eq!(input.value(), "x", "a kill after typing starts afresh");
    }

    #[test]
    fn undo_restores_word_sized_steps() {
        let mut input = typed("hello world");
        ctrl(&mut input, '-');
        assert_eq!(shown(&input), "hello|");
        ctrl(&mut input, '_');
        assert_eq!(shown(&input), "|");
        ctrl(&mut input, '7');
        assert_eq!(input.value(), "", "undo with nothing left does nothing");
    }

    #[test]
    fn undo_reverts_deletes_kills_and_pastes() {
        let mut input = Input::with_value("abc");
        key(&mut input, KeyCode::Backspace);
        ctrl(&mut input, 'u');
        input.insert_str("pasted");
        assert_eq!(input.value(), "pasted");
        ctrl(&mut input, '/');
        assert_eq!(input.value(), "");
        ctrl(&mut input, '-');
        assert_eq!(shown(&input), "ab|");
        ctrl(&mut input, '-');
        assert_eq!(shown(&input), "abc|");
    }

    #[test]
    fn undo_history_is_bounded() {
        let mut input = Input::new();
        for _ in 0..UNDO_LIMIT + 50 {
            key(&mut input, KeyCode::Char(' '));
        }
        assert_eq!(input.undo.len(), UNDO_LIMIT);
    }

    #[test]
    fn pastes_and_values_are_sanitized() {
        let mut input = Input::with_value("a\u{202E}b");
        assert_eq!(input.value(), "a b");
        input.insert_str("x\r\ny\nz\x1b[31m");
        assert_eq!(input.value(), "a bx y z [31m");
        let mut input = Input::new();
        input.insert_str("");
        assert!(input.is_empty());
        assert!(input.undo.is_empty(), "an empty paste is no edit");
    }

    #[test]
    fn set_value_resets_the_history() {
        let mut input = typed("abc");
        input.set_value("new");
        ctrl(&mut input, '-');
        assert_eq!(shown(&input), "new|");
    }

    #[test]
    fn altgr_characters_type() {
        let mut input = Input::new();
        press(&mut input, KeyCode::Char('@'), KeyModifiers::CONTROL | KeyModifiers::ALT);
        assert_eq!(input.value(), "@");
    }

    #[test]
    fn view_fits_short_text() {
        let input = Input::with_value("abc");
        assert_eq!(input.view(10), InputView { text: "abc".into(), cursor_col: 3 });
        assert_eq!(input.view(0), InputView { text: String::new(), cursor_col: 0 });
    }

    #[test]
    fn view_scrolls_to_keep_the_cursor_visible() {
        let mut input = Input::with_value("abcdefghij");
        let view = input.view(5);
        assert_eq!(view, InputView { text: "ghij".into(), cursor_col: 4 });
        key(&mut input, KeyCode::Left);
        assert_eq!(input.view(5).text, "ghij", "the scroll stays while the cursor is visible");
        key(&mut input, KeyCode::Home);
        assert_eq!(input.view(5), InputView { text: "abcde".into(), cursor_col: 0 });
        key(&mut input, KeyCode::Right);
        assert_eq!(input.view(5).text, "abcde");
        for _ in 0..5 {
            key(&mut input, KeyCode::Right);
        }
        assert_eq!(input.view(5), InputView { text: "cdefg".into(), cursor_col: 4 });
    }

    #[test]
    fn view_is_width_correct_for_wide_text() {
        let mut input = Input::with_value("中文字符串");
        let view = input.view(5);
        assert!(width(&view.text) <= 5);
        assert_eq!(view.cursor_col, 4);
        assert_eq!(view.text, "符串");
        key(&mut input, KeyCode::Home);
        let view = input.view(5);
        assert_eq!(view, InputView { text: "中文".into(), cursor_col: 0 });
        key(&mut input, KeyCode::Right);
        key(&mut input, KeyCode::Right);
        let view = input.view(5);
        assert_eq!(
            view,
            InputView { text: " 文字".into(), cursor_col: 3 },
            "a wide char cut by the scroll shows as a space"
        );
        key(&mut input, KeyCode::Right);
        let view = input.view(5);
        assert!(
            usize::from(view.cursor_col) + 2 <= 5,
            "the whole wide char under the cursor shows: {view:?}"
        );
        for cols in 1..12 {
            for at in 0..=5 {
                let mut input = Input::with_value("中文字符串");
                key(&mut input, KeyCode::Home);
                for _ in 0..at {
                    key(&mut input, KeyCode::Right);
                }
                let view = input.view(cols);
                assert!(width(&view.text) <= usize::from(cols));
                assert!(view.cursor_col < cols);
            }
        }
    }

    #[test]
    fn render_draws_and_places_the_cursor() {
        let input = Input::with_value("héllo 中");
        let area = Rect::new(2, 1, 12, 3);
        let mut buf = Buffer::empty(Rect::new(0, 0, 16, 4));
        let at = input.render(area, &mut buf, Style::new());
        assert_eq!(at, Position::new(2 + 8, 1));
        assert_eq!(buf[(2, 1)].symbol(), "h");
        assert_eq!(buf[(3, 1)].symbol(), "é");
        assert_eq!(buf[(8, 1)].symbol(), "中");
        assert_eq!(buf[(2, 2)].symbol(), " ", "only the first line is drawn");
        let empty = Rect::new(0, 0, 0, 0);
        assert_eq!(input.render(empty, &mut buf, Style::new()), Position::new(0, 0));
    }
}
