//! A small text editor for the view's inputs (label, session name, branch summary, the prompt to
//! re-send): the cursor starts at the end (pi starts it at 0, §6.2), moves and deletes by grapheme
//! cluster, and a multi-line editor keeps newlines.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use unicode_segmentation::UnicodeSegmentation;

/// An edited text with a cursor (a byte offset on a grapheme boundary).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Editor {
    text: String,
    cursor: usize,
    multiline: bool,
}

/// What a key did to the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    Changed,
    /// The key is not an editing key.
    Unhandled,
}

impl Editor {
    /// An editor holding `text` with the cursor at its end.
    pub fn new(text: &str, multiline: bool) -> Editor {
        let text = if multiline { text.to_string() } else { single_line(text) };
        Editor { cursor: text.len(), text, multiline }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor as (line, column in bytes of that line).
    pub fn cursor_line_col(&self) -> (usize, usize) {
        let before = &self.text[..self.cursor];
        let line = before.matches('\n').count();
        let col = before.rfind('\n').map_or(self.cursor, |nl| self.cursor - nl - 1);
        (line, col)
    }

    /// Insert text at the cursor (a paste; newlines become spaces in a single-line editor).
    pub fn insert(&mut self, text: &str) {
        let text =
            if self.multiline { text.replace("\r\n", "\n").replace('\r', "\n") } else { single_line(text) };
        self.text.insert_str(self.cursor, &text);
        self.cursor += text.len();
    }

    /// Apply an editing key: characters, Backspace/Delete, ←/→, Home/End, ↑/↓ (multi-line), Enter
    /// (a newline, multi-line only), Ctrl+U (clear before the cursor), Ctrl+K (clear after),
    /// Ctrl+W (delete the word before), Ctrl+A/Ctrl+E (line start/end).
    pub fn handle_key(&mut self, key: KeyEvent) -> Edit {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char(c) if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) => {
                self.insert(c.encode_utf8(&mut [0; 4]))
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
            KeyCode::Char('a') if ctrl => self.cursor = self.line_start(),
            KeyCode::Char('e') if ctrl => self.cursor = self.line_end(),
            KeyCode::Enter if self.multiline => self.insert("\n"),
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
            KeyCode::Home => self.cursor = self.line_start(),
            KeyCode::End => self.cursor = self.line_end(),
            KeyCode::Up if self.multiline => self.move_line(false),
            KeyCode::Down if self.multiline => self.move_line(true),
            _ => return Edit::Unhandled,
        }
        Edit::Changed
    }

    fn prev_boundary(&self) -> usize {
        self.text[..self.cursor].grapheme_indices(true).next_back().map_or(0, |(at, _)| at)
    }

    fn next_boundary(&self) -> usize {
        self.text[self.cursor..].graphemes(true).next().map_or(self.cursor, |g| self.cursor + g.len())
    }

    fn line_start(&self) -> usize {
        self.text[..self.cursor].rfind('\n').map_or(0, |nl| nl + 1)
    }

    fn line_end(&self) -> usize {
        self.text[self.cursor..].find('\n').map_or(self.text.len(), |nl| self.cursor + nl)
    }

    /// Move to the previous or next line, at the same grapheme count from the line start.
    fn move_line(&mut self, down: bool) {
        let start = self.line_start();
        let column = self.text[start..self.cursor].graphemes(true).count();
        let target_start = if down {
            match self.text[self.cursor..].find('\n') {
                Some(nl) => self.cursor + nl + 1,
                None => return,
            }
        } else {
            if start == 0 {
                return;
            }
            self.text[..start - 1].rfind('\n').map_or(0, |nl| nl + 1)
        };
        let line_end = self.text[target_start..].find('\n').map_or(self.text.len(), |nl| target_start + nl);
        let line = &self.text[target_start..line_end];
        let offset = line.grapheme_indices(true).nth(column).map_or(line.len(), |(at, _)| at);
        self.cursor = target_start + offset;
    }
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
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
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
        assert_eq!(e.cursor_line_col(), (0, 2));
        e.handle_key(key(KeyCode::Enter));
        assert_eq!(e.text(), "fi\nrst line\nab");
        e.handle_key(KeyEvent::new(KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!(e.text(), "rst line\nab", "Ctrl+W deletes the word before the cursor");
    }
}
