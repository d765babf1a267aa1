//! The help overlay (F1 anywhere, or `?` on an empty search in the picker): every key as currently
//! bound — pi's defaults, overridden by `keybindings.json` — with its keybinding ids, for the
//! picker and the tree view, from the same keymaps the screens read their keys from, plus the
//! fixed keys of the picker's search input and of the tree view's search, inputs and dialogs.
//! ↑/↓ PgUp/PgDn scroll it; any other key closes it.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::keymap::{Binding, Keybindings};
use super::theme::Theme;
use crate::display::{pad_to, truncate, width};

/// The search input's editing keys (see `tui::widgets::input`; not rebindable).
const INPUT_KEYS: [(&str, &str); 9] = [
    ("left, right, ctrl+b, ctrl+f", "move the cursor"),
    ("alt+left, alt+right, ctrl+left, ctrl+right", "move by word (outside the thread tree)"),
    ("home, ctrl+a / end, ctrl+e", "start / end of the search"),
    ("backspace, delete", "delete a character"),
    ("ctrl+w, alt+backspace", "delete the word before"),
    ("ctrl+u / ctrl+k", "delete to the start / to the end"),
    ("ctrl+y", "paste what was deleted"),
    ("ctrl+-", "undo"),
    ("ctrl+z", "suspend pitree (fg brings it back)"),
];

/// The tree view's keys that are not actions (see `tui::tree`; not rebindable).
const TREE_FIXED_KEYS: [(&str, &str); 10] = [
    ("other keys that type", "type into the search (in the search field, every key types)"),
    ("backspace", "delete the search's last character"),
    ("enter / escape, ctrl+c", "label and session name: save / cancel"),
    ("left, right / up, down", "label, name and editors: move the cursor / by wrapped row"),
    ("home, ctrl+a / end, ctrl+e", "label, name and editors: start / end of the wrapped row"),
    ("backspace, delete, ctrl+w, ctrl+u, ctrl+k", "label, name and editors: delete"),
    ("up, down, j, k, tab, 1-9 / enter / escape", "move dialog: choose / confirm / cancel"),
    ("ctrl+s / escape", "branch summary: save and move the leaf / back to the move dialog"),
    ("enter / alt+enter, ctrl+j / escape", "message to re-send: resume pi / new line / don't send"),
    ("y, enter / n, escape, ctrl+c", "questions: yes / no (escape also stops the summarizer)"),
];

/// One line of the overlay.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Heading(&'static str),
    Key { keys: String, text: String, ids: String },
}

/// The open overlay.
#[derive(Debug, Clone)]
pub struct Help {
    items: Vec<Item>,
    scroll: usize,
}

impl Help {
    /// The key list as `keys` binds it now.
    pub fn new(keys: &Keybindings) -> Help {
        let mut items = vec![Item::Heading("Sessions (the picker)")];
        items.extend(keys.picker.bindings().iter().map(binding_item));
        items.push(Item::Heading("Typing searches; the search input"));
        items.extend(INPUT_KEYS.iter().map(|(keys, text)| fixed_item(keys, text)));
        items.push(Item::Heading("Tree view"));
        items.extend(keys.tree.bindings().iter().map(binding_item));
        items.push(Item::Heading("Tree view: typing, inputs and dialogs"));
        items.extend(TREE_FIXED_KEYS.iter().map(|(keys, text)| fixed_item(keys, text)));
        Help { items, scroll: 0 }
    }

    /// A key while the overlay is open; `false` closes it.
    pub fn key(&mut self, key: KeyEvent) -> bool {
        let last = self.items.len().saturating_sub(1);
        match key.code {
            KeyCode::Up => self.scroll = self.scroll.saturating_sub(1),
            KeyCode::Down => self.scroll = (self.scroll + 1).min(last),
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(10),
            KeyCode::PageDown => self.scroll = (self.scroll + 10).min(last),
            _ => return false,
        }
        true
    }

    /// The lines as plain text.
    pub fn text(&self) -> Vec<String> {
        self.items
            .iter()
            .map(|item| match item {
                Item::Heading(h) => h.to_string(),
                Item::Key { keys, text, ids } => format!("{keys}  {text}  {ids}").trim_end().to_string(),
            })
            .collect()
    }

    /// Draw the overlay centred over `area`.
    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let w = area.width.min(100);
        let h = area.height.saturating_sub(2).max(area.height.min(5));
        let rect = Rect::new(area.x + (area.width - w) / 2, area.y + (area.height - h) / 2, w, h);
        frame.render_widget(Clear, rect);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border_accent)
            .title(Span::styled(" Keys — ↑/↓ scroll · any other key closes ", theme.title));
        let inner = block.inner(rect);
        frame.render_widget(block, rect);
        let cols = usize::from(inner.width);
        let keys_w = self
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Key { keys, .. } => Some(width(keys)),
                Item::Heading(_) => None,
            })
            .max()
            .unwrap_or(0)
            .min(cols / 3);
        let lines: Vec<Line> = self
            .items
            .iter()
            .skip(self.scroll)
            .take(usize::from(inner.height))
            .map(|item| match item {
                Item::Heading(h) => Line::styled(truncate(h, cols).into_owned(), theme.title),
                Item::Key { keys, text, ids } => {
                    let rest = cols.saturating_sub(keys_w + 4);
                    let desc = format!("{text}  {ids}");
                    Line::from(vec![
                        Span::raw("  "),
                        Span::styled(pad_to(keys, keys_w), theme.accent),
                        Span::raw("  "),
                        Span::styled(truncate(desc.trim_end(), rest).into_owned(), theme.muted),
                    ])
                }
            })
            .collect();
        frame.render_widget(Paragraph::new(lines), inner);
    }
}

fn fixed_item(keys: &str, text: &str) -> Item {
    Item::Key { keys: keys.to_string(), text: text.to_string(), ids: String::new() }
}

fn binding_item(binding: &Binding) -> Item {
    Item::Key {
        keys: if binding.keys.is_empty() { "(unbound)".into() } else { binding.keys.join(", ") },
        text: binding.description.to_string(),
        ids: format!("({})", binding.ids.join(", ")),
    }
}
