//! The view's small dialogs: the move dialog Enter opens on an entry other than the leaf ("No
//! summary / Write a summary / Summarize with the command / Cancel", the summary options left out
//! when the move abandons nothing), and a yes/no confirmation (a write to a live session, a fork).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::protocol::TreeOutcome;
use crate::session::Ix;

/// What a leaf move will do, decided when Enter is pressed.
#[derive(Debug, Clone, PartialEq)]
pub struct MovePlan {
    /// The selected entry.
    pub target: Ix,
    /// Where the leaf goes: the target, or its parent for a user message (`None`: before the root).
    pub new_leaf: Option<Ix>,
    /// The user message to re-send after the move.
    pub prompt: Option<String>,
    /// The entries the move leaves behind (what a summary would cover).
    pub abandoned: Vec<Ix>,
}

/// One choice of the move dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveChoice {
    NoSummary,
    Draft,
    Summarizer,
    Cancel,
}

/// The move dialog.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveDialog {
    pub plan: MovePlan,
    pub choices: Vec<MoveChoice>,
    pub cursor: usize,
}

/// What a key did in a dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialogKey<T> {
    Stay,
    Chosen(T),
}

impl MoveDialog {
    pub fn new(plan: MovePlan) -> MoveDialog {
        let choices = if plan.abandoned.is_empty() {
            vec![MoveChoice::NoSummary, MoveChoice::Cancel]
        } else {
            vec![MoveChoice::NoSummary, MoveChoice::Draft, MoveChoice::Summarizer, MoveChoice::Cancel]
        };
        MoveDialog { plan, choices, cursor: 0 }
    }

    /// ↑/↓ (or k/j) move, Enter chooses, a digit chooses directly, Esc/Ctrl+C cancel.
    pub fn handle_key(&mut self, key: KeyEvent) -> DialogKey<MoveChoice> {
        let n = self.choices.len();
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.cursor = (self.cursor + n - 1) % n,
            KeyCode::Down | KeyCode::Char('j') | KeyCode::Tab => self.cursor = (self.cursor + 1) % n,
            KeyCode::Enter => return DialogKey::Chosen(self.choices[self.cursor]),
            KeyCode::Esc => return DialogKey::Chosen(MoveChoice::Cancel),
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return DialogKey::Chosen(MoveChoice::Cancel);
            }
            KeyCode::Char(c @ '1'..='9') => {
                if let Some(&choice) = self.choices.get(c as usize - '1' as usize) {
                    return DialogKey::Chosen(choice);
                }
            }
            _ => {}
        }
        DialogKey::Stay
    }

    /// The title line.
    pub fn title(&self) -> String {
        let n = self.plan.abandoned.len();
        match (n, self.plan.prompt.is_some()) {
            (0, false) => "Move the leaf here? Nothing is left behind.".to_string(),
            (0, true) => "Move the leaf before this message and re-send it?".to_string(),
            (n, _) => format!("Move the leaf here? {n} entries are left behind. Summarize them?"),
        }
    }
}

impl MoveChoice {
    /// The choice's text; `summarizer` is the command shown.
    pub fn text(self, summarizer: &str) -> String {
        match self {
            MoveChoice::NoSummary => "No summary".to_string(),
            MoveChoice::Draft => "Write a summary (starts from a draft you can edit)".to_string(),
            MoveChoice::Summarizer => format!("Summarize with `{summarizer}`"),
            MoveChoice::Cancel => "Cancel".to_string(),
        }
    }
}

/// A yes/no question; `then` is what a yes does.
#[derive(Debug, Clone, PartialEq)]
pub struct Confirm {
    pub lines: Vec<String>,
    pub then: Box<TreeOutcome>,
}

impl Confirm {
    /// y or Enter: yes; n, Esc or Ctrl+C: no.
    pub fn handle_key(&self, key: KeyEvent) -> DialogKey<bool> {
        match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter => DialogKey::Chosen(true),
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => DialogKey::Chosen(false),
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => DialogKey::Chosen(false),
            _ => DialogKey::Stay,
        }
    }
}
