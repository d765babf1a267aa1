//! The picker's keys: the keymap (pi's defaults, `keybindings.json`, pitree's `pitree.*` ids)
//! says which action a key is, in pi's order (Tab, sort, named, path, delete, rename,
//! delete-noninvasive, navigation, confirm, cancel); this module turns that into the picker's
//! [`Command`] for its current mode. Anything else edits the focused input. While the thread tree
//! is shown (Threaded, empty search) the tree view's fold keys (`app.tree.foldOrUp` /
//! `unfoldOrDown`, Ctrl/Alt+←/→) fold threads; otherwise they move the search cursor by word.

use ratatui::crossterm::event::KeyEvent;

use super::source::SortMode;
use super::state::{Command, Mode, Picker};
use crate::tui::keymap::{Action, Keybindings, Keymap, opens_help_on_empty_query};

/// The command for a key press in the picker's current mode.
pub fn command_for(keys: &Keybindings, picker: &Picker, key: KeyEvent) -> Command {
    let action = keys.picker.action_for(&key);
    if !matches!(picker.mode, Mode::Browse) {
        return match action {
            Some(Action::Confirm) => Command::Confirm,
            Some(Action::Cancel) => Command::Cancel,
            _ => Command::Edit(key),
        };
    }
    if let Some(command) = action.and_then(|a| browse_command(a, key)) {
        return command;
    }
    let threads_shown = picker.sort == SortMode::Threaded && picker.query.value().trim().is_empty();
    match keys.tree.action_for(&key) {
        Some(Action::FoldOrUp) if threads_shown => Command::FoldOrUp,
        Some(Action::UnfoldOrDown) if threads_shown => Command::UnfoldOrDown,
        _ if opens_help_on_empty_query(&key) => Command::HelpOrType(key),
        _ => Command::Edit(key),
    }
}

fn browse_command(action: Action, key: KeyEvent) -> Option<Command> {
    Some(match action {
        Action::ToggleScope => Command::ToggleScope,
        Action::ToggleSort => Command::ToggleSort,
        Action::ToggleNamed => Command::ToggleNamed,
        Action::TogglePath => Command::TogglePath,
        Action::Delete => Command::Delete,
        Action::DeleteNoninvasive => Command::DeleteNoninvasive(key),
        Action::Rename => Command::Rename,
        Action::UndoDelete => Command::Undo,
        Action::Up => Command::Up,
        Action::Down => Command::Down,
        Action::PageUp => Command::PageUp,
        Action::PageDown => Command::PageDown,
        Action::First => Command::First,
        Action::Last => Command::Last,
        Action::ResumeNow => Command::Resume,
        Action::Confirm => Command::Confirm,
        Action::Cancel => Command::Cancel,
        Action::Help => Command::Help,
        Action::ToggleDetail => Command::TogglePreview,
        Action::DetailUp => Command::PreviewUp,
        Action::DetailDown => Command::PreviewDown,
        Action::DetailPageUp => Command::PreviewPageUp,
        Action::DetailPageDown => Command::PreviewPageDown,
        _ => return None,
    })
}

/// The first key bound to `action` as the hints show it (`ctrl+s`), or `(unbound)`.
pub fn label(keymap: &Keymap, action: Action) -> String {
    keymap.keys_for(action).into_iter().next().unwrap_or_else(|| "(unbound)".into())
}

/// One key hint: the key and what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub key: String,
    pub text: String,
}

fn hint(keymap: &Keymap, action: Action, text: &str) -> Hint {
    Hint { key: label(keymap, action), text: text.to_string() }
}

fn plain(text: &str) -> Hint {
    Hint { key: String::new(), text: text.to_string() }
}

/// pi's first hint line, with Enter, Alt+Enter and help added.
pub fn hints_first(keymap: &Keymap, print: bool) -> Vec<Hint> {
    vec![
        hint(keymap, Action::ToggleScope, "scope"),
        hint(keymap, Action::Confirm, "tree"),
        hint(keymap, Action::ResumeNow, if print { "print path" } else { "resume" }),
        plain("re:<pattern> regex"),
        plain("\"phrase\" exact"),
        hint(keymap, Action::Help, "help"),
    ]
}

/// pi's second hint line (rename included: pitree's picker can rename), with undo when offered.
pub fn hints_second(keymap: &Keymap, picker: &Picker) -> Vec<Hint> {
    let path = if picker.show_path { "path (on)" } else { "path (off)" };
    let mut hints = vec![
        hint(keymap, Action::ToggleSort, "sort"),
        hint(keymap, Action::ToggleNamed, "named"),
        hint(keymap, Action::Delete, "delete"),
        hint(keymap, Action::TogglePath, path),
        hint(keymap, Action::Rename, "rename"),
    ];
    if picker.undo.is_some() {
        hints.push(hint(keymap, Action::UndoDelete, "undo delete"));
    }
    hints
}
