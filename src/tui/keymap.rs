//! Keys to actions, one keymap per screen (the same key means different things in the picker and
//! the tree view), with pi's keybinding ids and overrides read from pi's `keybindings.json`.
//!
//! The file is pi's own: a JSON object from keybinding id to a key string or an array of key
//! strings (`"ctrl+s"`, `"shift+ctrl+o"`, `"alt+enter"`, `"pageUp"`; an empty array unbinds).
//! As in pi, a configured id replaces that id's default keys, key strings are case-insensitive,
//! and pi's legacy flat names (`selectUp`, `toggleSessionSort`, …) are migrated, with the
//! namespaced id winning when both are present. pitree's own actions use `pitree.*` ids in the
//! same file. Ids pi defines that pitree has no use for (`tui.*`, `app.*`) are skipped; unknown
//! ids, bad values and unparseable keys are skipped with a warning.
//!
//! Each screen takes its keys from here and nowhere else: the picker through
//! `tui::picker::keys`, the tree view (`tui::tree`) through [`Keymap::action_for`] on
//! `Keybindings::tree`, and the help overlay and both screens' hint lines through
//! [`Keymap::bindings`], [`Keymap::keys_for`] and [`Keymap::hint_key`].
//!
//! Printable keys type into the search, so a configured key without Ctrl or Alt that produces a
//! character is refused, except for the tree's label keys (pi's Shift+L and Shift+T) and its
//! search-field key (`/`). `?` opens the help when the query is empty: the picker checks that
//! with [`opens_help_on_empty_query`].
//!
//! Keys pitree chooses for its own actions (pi has none for them):
//! - `pitree.session.resume` Alt+Enter: resume the selected session in pi at once.
//! - `pitree.session.undoDelete` Ctrl+G or Alt+U: restore the last session moved to the trash.
//!   Ctrl+Z suspends and Ctrl+U belongs to the search input; Ctrl+G reaches every terminal,
//!   Alt+U is the mnemonic one where Option works as Meta.
//! - `pitree.select.first` / `pitree.select.last` Home / End: first and last session (the search
//!   input keeps Ctrl+A / Ctrl+E for its cursor).
//! - `pitree.help` F1, on both screens (one id: the overlay is the same everywhere).
//! - `pitree.view.toggleDetail` F2 or Ctrl+V: show or hide the picker's preview (Tab is pi's
//!   `tui.input.tab`, the scope, there).
//! - `pitree.view.detailUp` / `detailDown` Shift+↑ / Shift+↓ and `detailPageUp` /
//!   `detailPageDown` Alt+PgUp / Alt+PgDn: scroll the preview.
//!
//! The tree view's own actions have `pitree.tree.*` ids; their defaults are the keys the tree view
//! has always had. Where this table once said otherwise (fork Ctrl+K, the detail pane F2 / Ctrl+V,
//! its paging Alt+PgUp / Alt+PgDn, all under the picker's ids) the tree's keys were kept:
//! - `pitree.tree.first` / `pitree.tree.last` Home / End: first and last row.
//! - `pitree.tree.search` `/`: a modal search field in which every key types (Shift+L and Shift+T
//!   included) until Enter. Printable, so it is allowed to stay printable when configured.
//! - `pitree.tree.nextHit` / `prevHit` Ctrl+N / Ctrl+P: next and previous search hit.
//! - `pitree.tree.fork` Alt+F: fork the path to the selected entry into a new session. Ctrl+F
//!   and Ctrl+B page in pi's tree. Where Option works as Meta, macOS terminals send Alt+F for
//!   Option+→ too; the fork asks before it does anything, and `keybindings.json` can move it.
//! - `pitree.tree.rename` Ctrl+R: rename the session (as `app.session.rename` in the picker).
//! - `pitree.tree.toggleDetail` Tab: show or hide the detail pane (Tab has no other use there).
//! - `pitree.tree.detailUp` / `detailDown` Shift+↑ / Shift+↓ and `detailPageUp` /
//!   `detailPageDown` Shift+PgUp / Shift+PgDn: scroll the detail pane. Many terminals keep
//!   Shift+PgUp/PgDn for their own scrollback; `keybindings.json` can add e.g. `alt+pageUp`.
//!
//! The tree view's other keys are fixed, not actions: Backspace deletes the search's last
//! character, and the inputs and dialogs it opens (label, name, move dialog, summary and message
//! editors, questions) have their own keys, listed by the help overlay.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use serde_json::Value;

/// What a key press asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Up,
    Down,
    PageUp,
    PageDown,
    First,
    Last,
    Confirm,
    Cancel,
    Help,
    ToggleDetail,
    DetailUp,
    DetailDown,
    DetailPageUp,
    DetailPageDown,
    // The picker.
    ResumeNow,
    ToggleScope,
    ToggleSort,
    ToggleNamed,
    TogglePath,
    Rename,
    Delete,
    DeleteNoninvasive,
    UndoDelete,
    // The tree view.
    FoldOrUp,
    UnfoldOrDown,
    FilterDefault,
    FilterNoTools,
    FilterUserOnly,
    FilterLabeledOnly,
    FilterAll,
    FilterCycle,
    FilterCycleBack,
    EditLabel,
    ToggleLabelTime,
    Copy,
    Fork,
    FocusSearch,
    SearchNext,
    SearchPrev,
}

/// One action as bound right now, for the help overlay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub action: Action,
    /// The keybinding ids that feed this action (usually one).
    pub ids: Vec<&'static str>,
    /// The keys, as display strings such as `ctrl+s`; empty when unbound.
    pub keys: Vec<String>,
    pub description: &'static str,
}

/// Both screens' keymaps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keybindings {
    pub picker: Keymap,
    pub tree: Keymap,
}

/// The keys of one screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keymap {
    slots: Vec<Slot>,
}

/// One key combination: a key and its Ctrl/Alt/Shift modifiers, normalized so that an event and
/// a parsed key string compare equal (letters lowercase, an uppercase letter means Shift).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyChord {
    code: KeyCode,
    mods: KeyModifiers,
}

/// One keybinding id of one screen, with its current keys.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Slot {
    def: &'static SlotDef,
    keys: Vec<KeyChord>,
    user_set: bool,
}

/// A keybinding id's place in a screen: the action it triggers and its default keys.
#[derive(Debug, PartialEq, Eq)]
struct SlotDef {
    id: &'static str,
    action: Action,
    keys: &'static [&'static str],
    description: &'static str,
}

const fn slot(
    id: &'static str,
    action: Action,
    keys: &'static [&'static str],
    description: &'static str,
) -> SlotDef {
    SlotDef { id, action, keys, description }
}

/// pi puts Alt first on macOS, where Option+arrow is the usual chord.
const FOLD_KEYS: &[&str] =
    if cfg!(target_os = "macos") { &["alt+left", "ctrl+left"] } else { &["ctrl+left", "alt+left"] };
const UNFOLD_KEYS: &[&str] =
    if cfg!(target_os = "macos") { &["alt+right", "ctrl+right"] } else { &["ctrl+right", "alt+right"] };

/// The picker's ids in the order pi checks them; on a shared key the first one wins.
#[rustfmt::skip]
const PICKER: &[SlotDef] = &[
    slot("tui.input.tab", Action::ToggleScope, &["tab"], "Switch between this folder and all sessions"),
    slot("app.session.toggleSort", Action::ToggleSort, &["ctrl+s"], "Sort: threaded, recent, relevance"),
    slot("app.session.toggleNamedFilter", Action::ToggleNamed, &["ctrl+n"], "Show named sessions only, or all"),
    slot("app.session.togglePath", Action::TogglePath, &["ctrl+p"], "Show or hide file paths"),
    slot("app.session.delete", Action::Delete, &["ctrl+d"], "Move the session to the trash"),
    slot("app.session.rename", Action::Rename, &["ctrl+r"], "Rename the session"),
    slot("app.session.deleteNoninvasive", Action::DeleteNoninvasive, &["ctrl+backspace"], "Move the session to the trash (empty search)"),
    slot("pitree.session.undoDelete", Action::UndoDelete, &["ctrl+g", "alt+u"], "Restore the last session moved to the trash"),
    slot("tui.select.up", Action::Up, &["up"], "Move up"),
    slot("tui.select.down", Action::Down, &["down"], "Move down"),
    slot("tui.select.pageUp", Action::PageUp, &["pageUp"], "Page up"),
    slot("tui.select.pageDown", Action::PageDown, &["pageDown"], "Page down"),
    slot("pitree.select.first", Action::First, &["home"], "First session"),
    slot("pitree.select.last", Action::Last, &["end"], "Last session"),
    slot("pitree.session.resume", Action::ResumeNow, &["alt+enter"], "Resume the session in pi now"),
    slot("tui.select.confirm", Action::Confirm, &["enter"], "Open the session's tree"),
    slot("tui.select.cancel", Action::Cancel, &["escape", "ctrl+c"], "Quit"),
    slot("pitree.help", Action::Help, &["f1"], "Show all keys (also ? with an empty search)"),
    slot("pitree.view.toggleDetail", Action::ToggleDetail, &["f2", "ctrl+v"], "Show or hide the preview"),
    slot("pitree.view.detailUp", Action::DetailUp, &["shift+up"], "Scroll the preview up"),
    slot("pitree.view.detailDown", Action::DetailDown, &["shift+down"], "Scroll the preview down"),
    slot("pitree.view.detailPageUp", Action::DetailPageUp, &["alt+pageUp"], "Page the preview up"),
    slot("pitree.view.detailPageDown", Action::DetailPageDown, &["alt+pageDown"], "Page the preview down"),
];

/// The tree view's ids in the order pi checks them; on a shared key the first one wins.
#[rustfmt::skip]
const TREE: &[SlotDef] = &[
    slot("app.tree.foldOrUp", Action::FoldOrUp, FOLD_KEYS, "Fold, or jump up to the branch start"),
    slot("app.tree.unfoldOrDown", Action::UnfoldOrDown, UNFOLD_KEYS, "Unfold, or jump down to the next branch"),
    slot("tui.select.up", Action::Up, &["up"], "Move up (wraps)"),
    slot("tui.select.down", Action::Down, &["down"], "Move down (wraps)"),
    slot("tui.select.pageUp", Action::PageUp, &["pageUp"], "Page up"),
    slot("tui.editor.cursorLeft", Action::PageUp, &["left", "ctrl+b"], "Page up"),
    slot("tui.select.pageDown", Action::PageDown, &["pageDown"], "Page down"),
    slot("tui.editor.cursorRight", Action::PageDown, &["right", "ctrl+f"], "Page down"),
    slot("pitree.tree.first", Action::First, &["home"], "First row"),
    slot("pitree.tree.last", Action::Last, &["end"], "Last row"),
    slot("tui.select.confirm", Action::Confirm, &["enter"], "Move the leaf here, or resume at the leaf; leave the search field"),
    slot("tui.select.cancel", Action::Cancel, &["escape", "ctrl+c"], "Clear the search, or back to the sessions"),
    slot("app.message.copy", Action::Copy, &["ctrl+x"], "Copy the entry's text"),
    slot("app.tree.filter.default", Action::FilterDefault, &["ctrl+d"], "Filter: default"),
    slot("app.tree.filter.noTools", Action::FilterNoTools, &["ctrl+t"], "Filter: no tool results (pressed again: default)"),
    slot("app.tree.filter.userOnly", Action::FilterUserOnly, &["ctrl+u"], "Filter: user messages only (pressed again: default)"),
    slot("app.tree.filter.labeledOnly", Action::FilterLabeledOnly, &["ctrl+l"], "Filter: labeled entries only (pressed again: default)"),
    slot("app.tree.filter.all", Action::FilterAll, &["ctrl+a"], "Filter: everything (pressed again: default)"),
    slot("app.tree.filter.cycleForward", Action::FilterCycle, &["ctrl+o"], "Next filter"),
    slot("app.tree.filter.cycleBackward", Action::FilterCycleBack, &["shift+ctrl+o"], "Previous filter"),
    slot("app.tree.editLabel", Action::EditLabel, &["shift+l"], "Edit the label"),
    slot("app.tree.toggleLabelTimestamp", Action::ToggleLabelTime, &["shift+t"], "Show or hide label times"),
    slot("pitree.tree.search", Action::FocusSearch, &["/"], "Search field: every key types, enter leaves it"),
    slot("pitree.tree.nextHit", Action::SearchNext, &["ctrl+n"], "Next search hit (detail pane, then rows)"),
    slot("pitree.tree.prevHit", Action::SearchPrev, &["ctrl+p"], "Previous search hit"),
    slot("pitree.tree.fork", Action::Fork, &["alt+f"], "Fork the path to here into a new session"),
    slot("pitree.tree.rename", Action::Rename, &["ctrl+r"], "Rename the session"),
    slot("pitree.help", Action::Help, &["f1"], "Show all keys"),
    slot("pitree.tree.toggleDetail", Action::ToggleDetail, &["tab"], "Show or hide the detail pane"),
    slot("pitree.tree.detailUp", Action::DetailUp, &["shift+up"], "Scroll the detail pane up"),
    slot("pitree.tree.detailDown", Action::DetailDown, &["shift+down"], "Scroll the detail pane down"),
    slot("pitree.tree.detailPageUp", Action::DetailPageUp, &["shift+pageUp"], "Page the detail pane up"),
    slot("pitree.tree.detailPageDown", Action::DetailPageDown, &["shift+pageDown"], "Page the detail pane down"),
];

/// Ids whose keys may be printable in the tree view (pi's Shift+L and Shift+T, pitree's `/`).
const PRINTABLE_OK_IN_TREE: &[&str] =
    &["app.tree.editLabel", "app.tree.toggleLabelTimestamp", "pitree.tree.search"];

/// pi's legacy flat names and the ids they became (pi's `KEYBINDING_NAME_MIGRATIONS`).
const LEGACY_NAMES: &[(&str, &str)] = &[
    ("cursorUp", "tui.editor.cursorUp"),
    ("cursorDown", "tui.editor.cursorDown"),
    ("cursorLeft", "tui.editor.cursorLeft"),
    ("cursorRight", "tui.editor.cursorRight"),
    ("cursorWordLeft", "tui.editor.cursorWordLeft"),
    ("cursorWordRight", "tui.editor.cursorWordRight"),
    ("cursorLineStart", "tui.editor.cursorLineStart"),
    ("cursorLineEnd", "tui.editor.cursorLineEnd"),
    ("jumpForward", "tui.editor.jumpForward"),
    ("jumpBackward", "tui.editor.jumpBackward"),
    ("pageUp", "tui.editor.pageUp"),
    ("pageDown", "tui.editor.pageDown"),
    ("deleteCharBackward", "tui.editor.deleteCharBackward"),
    ("deleteCharForward", "tui.editor.deleteCharForward"),
    ("deleteWordBackward", "tui.editor.deleteWordBackward"),
    ("deleteWordForward", "tui.editor.deleteWordForward"),
    ("deleteToLineStart", "tui.editor.deleteToLineStart"),
    ("deleteToLineEnd", "tui.editor.deleteToLineEnd"),
    ("yank", "tui.editor.yank"),
    ("yankPop", "tui.editor.yankPop"),
    ("undo", "tui.editor.undo"),
    ("newLine", "tui.input.newLine"),
    ("submit", "tui.input.submit"),
    ("tab", "tui.input.tab"),
    ("copy", "tui.input.copy"),
    ("selectUp", "tui.select.up"),
    ("selectDown", "tui.select.down"),
    ("selectPageUp", "tui.select.pageUp"),
    ("selectPageDown", "tui.select.pageDown"),
    ("selectConfirm", "tui.select.confirm"),
    ("selectCancel", "tui.select.cancel"),
    ("interrupt", "app.interrupt"),
    ("clear", "app.clear"),
    ("exit", "app.exit"),
    ("suspend", "app.suspend"),
    ("cycleThinkingLevel", "app.thinking.cycle"),
    ("cycleModelForward", "app.model.cycleForward"),
    ("cycleModelBackward", "app.model.cycleBackward"),
    ("selectModel", "app.model.select"),
    ("expandTools", "app.tools.expand"),
    ("toggleThinking", "app.thinking.toggle"),
    ("toggleSessionNamedFilter", "app.session.toggleNamedFilter"),
    ("externalEditor", "app.editor.external"),
    ("followUp", "app.message.followUp"),
    ("dequeue", "app.message.dequeue"),
    ("pasteImage", "app.clipboard.pasteImage"),
    ("newSession", "app.session.new"),
    ("tree", "app.session.tree"),
    ("fork", "app.session.fork"),
    ("resume", "app.session.resume"),
    ("treeFoldOrUp", "app.tree.foldOrUp"),
    ("treeUnfoldOrDown", "app.tree.unfoldOrDown"),
    ("treeEditLabel", "app.tree.editLabel"),
    ("treeToggleLabelTimestamp", "app.tree.toggleLabelTimestamp"),
    ("toggleSessionPath", "app.session.togglePath"),
    ("toggleSessionSort", "app.session.toggleSort"),
    ("renameSession", "app.session.rename"),
    ("deleteSession", "app.session.delete"),
    ("deleteSessionNoninvasive", "app.session.deleteNoninvasive"),
];

/// Where pi keeps its keybindings: `<agent dir>/keybindings.json`, the agent dir being
/// `$PI_CODING_AGENT_DIR` (a leading `~` expanded) or `~/.pi/agent`. `var` reads the
/// environment; `None` when neither the variable nor a home directory is known.
pub fn keybindings_path(var: impl Fn(&str) -> Option<OsString>, home: Option<&Path>) -> Option<PathBuf> {
    let agent_dir = match var("PI_CODING_AGENT_DIR").filter(|dir| !dir.is_empty()) {
        Some(dir) => expand_tilde(PathBuf::from(dir), home),
        None => home?.join(".pi").join("agent"),
    };
    Some(agent_dir.join("keybindings.json"))
}

fn expand_tilde(dir: PathBuf, home: Option<&Path>) -> PathBuf {
    match (dir.strip_prefix("~"), home) {
        (Ok(rest), Some(home)) => home.join(rest),
        _ => dir,
    }
}

/// True for the plain `?` key, which opens the help overlay when the search query is empty
/// (with a query it is just typed).
pub fn opens_help_on_empty_query(key: &KeyEvent) -> bool {
    key.kind != KeyEventKind::Release
        && key.code == KeyCode::Char('?')
        && !key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

impl Default for Keybindings {
    fn default() -> Keybindings {
        Keybindings::defaults()
    }
}

impl Keybindings {
    /// pi's default keys plus pitree's own.
    pub fn defaults() -> Keybindings {
        Keybindings::with_user(&HashMap::new(), &mut Vec::new())
    }

    /// The keys with the overrides of the keybindings file at `path`. A missing file gives the
    /// defaults quietly; an unreadable or malformed one gives the defaults and one warning.
    /// The second value holds the warnings, one line each, for the caller to show.
    pub fn load(path: &Path) -> (Keybindings, Vec<String>) {
        match std::fs::read_to_string(path) {
            Ok(text) => Keybindings::from_json(&text),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => (Keybindings::defaults(), Vec::new()),
            Err(err) => (
                Keybindings::defaults(),
                vec![format!("{}: cannot read ({err}); using the default keys", path.display())],
            ),
        }
    }

    /// The keys with the overrides in `text`, the contents of a keybindings file, and the
    /// warnings about what was skipped.
    pub fn from_json(text: &str) -> (Keybindings, Vec<String>) {
        let mut warnings = Vec::new();
        let parsed = serde_json::from_str::<Value>(text.trim_start_matches('\u{FEFF}'));
        let user = match parsed {
            Ok(Value::Object(map)) => user_keys(&map, &mut warnings),
            Ok(_) => {
                warnings.push("keybindings.json: not a JSON object; using the default keys".to_owned());
                HashMap::new()
            }
            Err(err) => {
                warnings.push(format!("keybindings.json: not valid JSON ({err}); using the default keys"));
                HashMap::new()
            }
        };
        let keybindings = Keybindings::with_user(&user, &mut warnings);
        (keybindings, warnings)
    }

    fn with_user(user: &HashMap<&str, Vec<KeyChord>>, warnings: &mut Vec<String>) -> Keybindings {
        Keybindings {
            picker: Keymap::build(PICKER, "the picker", &[], user, warnings),
            tree: Keymap::build(TREE, "the tree view", PRINTABLE_OK_IN_TREE, user, warnings),
        }
    }
}

/// The configured keys per (migrated) id, with warnings for what cannot be used.
fn user_keys(
    map: &serde_json::Map<String, Value>,
    warnings: &mut Vec<String>,
) -> HashMap<&'static str, Vec<KeyChord>> {
    let mut keys = HashMap::new();
    let mut from_legacy = Vec::new();
    for (name, value) in map {
        let legacy = LEGACY_NAMES.iter().find(|(old, _)| old == name);
        let wanted = legacy.map_or(name.as_str(), |(_, new)| *new);
        let Some(id) = used_id(wanted) else {
            if !is_pi_id(wanted) {
                warnings.push(format!("keybindings.json: unknown id {name:?}; ignored"));
            }
            continue;
        };
        let Some(chords) = parse_value(name, value, warnings) else {
            continue;
        };
        if legacy.is_some() {
            from_legacy.push((id, chords));
        } else {
            keys.insert(id, chords);
        }
    }
    for (id, chords) in from_legacy {
        keys.entry(id).or_insert(chords);
    }
    keys
}

/// The id as pitree's tables spell it, when some screen reads it.
fn used_id(id: &str) -> Option<&'static str> {
    PICKER.iter().chain(TREE).map(|def| def.id).find(|known| *known == id)
}

/// An id of pi's own that pitree has no use for.
fn is_pi_id(id: &str) -> bool {
    id.starts_with("tui.") || id.starts_with("app.")
}

/// The keys of one entry: a string or an array of strings. Unparseable keys are dropped with a
/// warning; a value of another type drops the whole entry.
fn parse_value(name: &str, value: &Value, warnings: &mut Vec<String>) -> Option<Vec<KeyChord>> {
    let texts: Vec<&str> = match value {
        Value::String(text) => vec![text],
        Value::Array(items) if items.iter().all(Value::is_string) => {
            items.iter().filter_map(Value::as_str).collect()
        }
        _ => {
            warnings.push(format!(
                "keybindings.json: {name:?} must be a key string or an array of key strings; ignored"
            ));
            return None;
        }
    };
    let mut chords = Vec::new();
    for text in texts {
        match KeyChord::parse(text) {
            Ok(chord) if !chords.contains(&chord) => chords.push(chord),
            Ok(_) => {}
            Err(why) => {
                warnings.push(format!("keybindings.json: {name:?}: {text:?} is not a key ({why}); ignored"))
            }
        }
    }
    Some(chords)
}

impl Keymap {
    fn build(
        defs: &'static [SlotDef],
        screen: &str,
        printable_ok: &[&str],
        user: &HashMap<&str, Vec<KeyChord>>,
        warnings: &mut Vec<String>,
    ) -> Keymap {
        let slots = defs
            .iter()
            .map(|def| match user.get(def.id) {
                Some(chords) => {
                    let allow_printable = printable_ok.contains(&def.id);
                    let keys = chords
                        .iter()
                        .copied()
                        .filter(|chord| {
                            let keep = allow_printable || !chord.is_printable();
                            if !keep {
                                warn_once(warnings, format!(
                                    "keybindings.json: {:?}: {chord} types into the search, so it cannot be bound; ignored",
                                    def.id
                                ));
                            }
                            keep
                        })
                        .collect();
                    Slot { def, keys, user_set: true }
                }
                None => Slot {
                    def,
                    keys: def.keys.iter().map(|key| KeyChord::parse(key).expect("default key")).collect(),
                    user_set: false,
                },
            })
            .collect();
        let keymap = Keymap { slots };
        keymap.warn_conflicts(screen, warnings);
        keymap
    }

    /// Warn about keys that several actions claim where the user configured one of them.
    fn warn_conflicts(&self, screen: &str, warnings: &mut Vec<String>) {
        for (i, winner) in self.slots.iter().enumerate() {
            for chord in &winner.keys {
                for loser in &self.slots[i + 1..] {
                    let clash = loser.def.action != winner.def.action
                        && (winner.user_set || loser.user_set)
                        && loser.keys.contains(chord);
                    if clash {
                        warn_once(
                            warnings,
                            format!(
                                "keybindings.json: {chord} is bound to both {} and {} in {screen}; {} wins",
                                winner.def.id, loser.def.id, winner.def.id
                            ),
                        );
                    }
                }
            }
        }
    }

    /// The action `key` triggers on this screen, if any. Key releases trigger nothing.
    pub fn action_for(&self, key: &KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let chord = KeyChord::from_event(key)?;
        let alias = chord.legacy_alias();
        self.slots
            .iter()
            .find(|slot| slot.keys.iter().any(|k| *k == chord || Some(*k) == alias))
            .map(|slot| slot.def.action)
    }

    /// The keys bound to `action`, as display strings (`ctrl+s`), first the primary one.
    pub fn keys_for(&self, action: Action) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for slot in self.slots.iter().filter(|s| s.def.action == action) {
            for chord in &slot.keys {
                let shown = chord.to_string();
                if !keys.contains(&shown) {
                    keys.push(shown);
                }
            }
        }
        keys
    }

    /// The key a hint shows for the keybinding id `id` (pi's hints name ids): its first key, or
    /// when the user unbound it, the first key of its action under another id. `None` when the
    /// action has no key or `id` is not on this screen.
    pub fn hint_key(&self, id: &str) -> Option<String> {
        let slot = self.slots.iter().find(|s| s.def.id == id)?;
        match slot.keys.first() {
            Some(chord) => Some(chord.to_string()),
            None => self.keys_for(slot.def.action).into_iter().next(),
        }
    }

    /// Every action of this screen with its ids, keys and description, in the order pi checks
    /// them.
    pub fn bindings(&self) -> Vec<Binding> {
        let mut out: Vec<Binding> = Vec::new();
        for slot in &self.slots {
            match out.iter_mut().find(|b| b.action == slot.def.action) {
                Some(binding) => binding.ids.push(slot.def.id),
                None => out.push(Binding {
                    action: slot.def.action,
                    ids: vec![slot.def.id],
                    keys: self.keys_for(slot.def.action),
                    description: slot.def.description,
                }),
            }
        }
        out
    }
}

fn warn_once(warnings: &mut Vec<String>, warning: String) {
    if !warnings.contains(&warning) {
        warnings.push(warning);
    }
}

impl KeyChord {
    const MODS: KeyModifiers = KeyModifiers::SHIFT.union(KeyModifiers::CONTROL).union(KeyModifiers::ALT);

    /// Parse a pi key string: modifiers `ctrl`, `shift`, `alt` joined with `+` before a key name
    /// (`escape`/`esc`, `enter`/`return`, `tab`, `space`, `backspace`, `delete`, `insert`,
    /// `clear`, `home`, `end`, `pageUp`, `pageDown`, `up`, `down`, `left`, `right`, `f1`–`f12`)
    /// or a single character. Case does not matter, as in pi.
    pub fn parse(text: &str) -> Result<KeyChord, String> {
        let lower = text.trim().to_lowercase();
        let (mod_part, key) = match lower.strip_suffix("++") {
            Some(mods) => (Some(mods), "+"),
            None if lower == "+" => (None, "+"),
            None => match lower.rsplit_once('+') {
                Some((mods, key)) => (Some(mods), key),
                None => (None, lower.as_str()),
            },
        };
        let mut mods = KeyModifiers::NONE;
        for name in mod_part.into_iter().flat_map(|m| m.split('+')) {
            mods |= match name {
                "ctrl" => KeyModifiers::CONTROL,
                "shift" => KeyModifiers::SHIFT,
                "alt" => KeyModifiers::ALT,
                other => return Err(format!("unknown modifier {other:?}")),
            };
        }
        let code = key_code(key).ok_or_else(|| format!("unknown key {key:?}"))?;
        Ok(KeyChord { code, mods })
    }

    /// The chord of a terminal key event; `None` for keys pitree never binds (modifier keys,
    /// media keys, Super/Hyper/Meta chords).
    pub fn from_event(key: &KeyEvent) -> Option<KeyChord> {
        if !KeyChord::MODS.contains(key.modifiers) {
            return None;
        }
        let mut mods = key.modifiers;
        let code = match key.code {
            KeyCode::Char(c) if c.is_ascii_alphabetic() => {
                if c.is_ascii_uppercase() {
                    mods |= KeyModifiers::SHIFT;
                }
                KeyCode::Char(c.to_ascii_lowercase())
            }
            // The character itself carries Shift (`?`, `:`, `é`, `中`).
            KeyCode::Char(c) if c != ' ' => {
                mods -= KeyModifiers::SHIFT;
                KeyCode::Char(c)
            }
            KeyCode::BackTab => {
                mods |= KeyModifiers::SHIFT;
                KeyCode::Tab
            }
            code @ (KeyCode::Char(_)
            | KeyCode::Esc
            | KeyCode::Enter
            | KeyCode::Tab
            | KeyCode::Backspace
            | KeyCode::Delete
            | KeyCode::Insert
            | KeyCode::KeypadBegin
            | KeyCode::Home
            | KeyCode::End
            | KeyCode::PageUp
            | KeyCode::PageDown
            | KeyCode::Up
            | KeyCode::Down
            | KeyCode::Left
            | KeyCode::Right
            | KeyCode::F(_)) => code,
            _ => return None,
        };
        Some(KeyChord { code, mods })
    }

    /// A key event a terminal sends for this chord (a Shift+letter as the capital letter), for
    /// tests and synthetic input: [`Keymap::action_for`] gives it this chord's action.
    pub fn to_event(self) -> KeyEvent {
        let code = match self.code {
            KeyCode::Char(c) if self.mods.contains(KeyModifiers::SHIFT) => {
                KeyCode::Char(c.to_ascii_uppercase())
            }
            code => code,
        };
        KeyEvent::new(code, self.mods)
    }

    /// What a legacy terminal meant: it sends Ctrl+\ ] ^ - as bytes 0x1C–0x1F, which crossterm
    /// reports as Ctrl+4 to Ctrl+7.
    fn legacy_alias(self) -> Option<KeyChord> {
        let symbol = match self.code {
            KeyCode::Char('4') => '\\',
            KeyCode::Char('5') => ']',
            KeyCode::Char('6') => '^',
            KeyCode::Char('7') => '-',
            _ => return None,
        };
        (self.mods == KeyModifiers::CONTROL)
            .then_some(KeyChord { code: KeyCode::Char(symbol), mods: self.mods })
    }

    /// A key that, pressed without Ctrl or Alt, types a character.
    fn is_printable(self) -> bool {
        matches!(self.code, KeyCode::Char(_))
            && !self.mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
    }
}

fn key_code(name: &str) -> Option<KeyCode> {
    let code = match name {
        "escape" | "esc" => KeyCode::Esc,
        "enter" | "return" => KeyCode::Enter,
        "tab" => KeyCode::Tab,
        "space" => KeyCode::Char(' '),
        "backspace" => KeyCode::Backspace,
        "delete" => KeyCode::Delete,
        "insert" => KeyCode::Insert,
        "clear" => KeyCode::KeypadBegin,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pageup" => KeyCode::PageUp,
        "pagedown" => KeyCode::PageDown,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        _ => {
            if let Some(n) = name.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
                return (1..=12).contains(&n).then_some(KeyCode::F(n));
            }
            let mut chars = name.chars();
            let (Some(c), None) = (chars.next(), chars.next()) else {
                return None;
            };
            if c.is_control() || c.is_whitespace() {
                return None;
            }
            KeyCode::Char(c)
        }
    };
    Some(code)
}

/// The pi spelling: modifiers in the order `shift+ctrl+alt`, then the key (`pageUp`, `escape`).
impl fmt::Display for KeyChord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (flag, name) in
            [(KeyModifiers::SHIFT, "shift+"), (KeyModifiers::CONTROL, "ctrl+"), (KeyModifiers::ALT, "alt+")]
        {
            if self.mods.contains(flag) {
                f.write_str(name)?;
            }
        }
        match self.code {
            KeyCode::Esc => f.write_str("escape"),
            KeyCode::Enter => f.write_str("enter"),
            KeyCode::Tab => f.write_str("tab"),
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Backspace => f.write_str("backspace"),
            KeyCode::Delete => f.write_str("delete"),
            KeyCode::Insert => f.write_str("insert"),
            KeyCode::KeypadBegin => f.write_str("clear"),
            KeyCode::Home => f.write_str("home"),
            KeyCode::End => f.write_str("end"),
            KeyCode::PageUp => f.write_str("pageUp"),
            KeyCode::PageDown => f.write_str("pageDown"),
            KeyCode::Up => f.write_str("up"),
            KeyCode::Down => f.write_str("down"),
            KeyCode::Left => f.write_str("left"),
            KeyCode::Right => f.write_str("right"),
            KeyCode::F(n) => write!(f, "f{n}"),
            other => write!(f, "{other}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    fn ctrl(c: char) -> KeyEvent {
        key(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn plain(code: KeyCode) -> KeyEvent {
        key(code, KeyModifiers::NONE)
    }

    fn loaded(json: &str) -> (Keybindings, Vec<String>) {
        Keybindings::from_json(json)
    }

    #[test]
    fn every_default_key_parses_and_no_defaults_conflict() {
        for def in PICKER.iter().chain(TREE) {
            for key in def.keys {
                assert!(KeyChord::parse(key).is_ok(), "{} {key}", def.id);
            }
        }
        let mut warnings = Vec::new();
        let _ = Keybindings::with_user(&HashMap::new(), &mut warnings);
        for (defs, screen) in [(PICKER, "picker"), (TREE, "tree")] {
            let mut seen: HashMap<KeyChord, Action> = HashMap::new();
            for def in defs {
                for key in def.keys {
                    let chord = KeyChord::parse(key).unwrap();
                    if let Some(other) = seen.insert(chord, def.action) {
                        assert_eq!(other, def.action, "{screen}: {key} bound twice");
                    }
                }
            }
        }
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn picker_defaults_follow_pi() {
        let kb = Keybindings::defaults();
        let p = &kb.picker;
        assert_eq!(p.action_for(&plain(KeyCode::Tab)), Some(Action::ToggleScope));
        assert_eq!(p.action_for(&ctrl('s')), Some(Action::ToggleSort));
        assert_eq!(p.action_for(&ctrl('n')), Some(Action::ToggleNamed));
        assert_eq!(p.action_for(&ctrl('p')), Some(Action::TogglePath));
        assert_eq!(p.action_for(&ctrl('r')), Some(Action::Rename));
        assert_eq!(p.action_for(&ctrl('d')), Some(Action::Delete));
        assert_eq!(
            p.action_for(&key(KeyCode::Backspace, KeyModifiers::CONTROL)),
            Some(Action::DeleteNoninvasive)
        );
        assert_eq!(p.action_for(&plain(KeyCode::Up)), Some(Action::Up));
        assert_eq!(p.action_for(&plain(KeyCode::PageDown)), Some(Action::PageDown));
        assert_eq!(p.action_for(&plain(KeyCode::Home)), Some(Action::First));
        assert_eq!(p.action_for(&plain(KeyCode::End)), Some(Action::Last));
        assert_eq!(p.action_for(&plain(KeyCode::Enter)), Some(Action::Confirm));
        assert_eq!(p.action_for(&key(KeyCode::Enter, KeyModifiers::ALT)), Some(Action::ResumeNow));
        assert_eq!(p.action_for(&plain(KeyCode::Esc)), Some(Action::Cancel));
        assert_eq!(p.action_for(&ctrl('c')), Some(Action::Cancel));
        assert_eq!(p.action_for(&ctrl('g')), Some(Action::UndoDelete));
        assert_eq!(p.action_for(&key(KeyCode::Char('u'), KeyModifiers::ALT)), Some(Action::UndoDelete));
        assert_eq!(p.action_for(&plain(KeyCode::F(1))), Some(Action::Help));
        assert_eq!(p.action_for(&plain(KeyCode::F(2))), Some(Action::ToggleDetail));
        assert_eq!(p.action_for(&key(KeyCode::Down, KeyModifiers::SHIFT)), Some(Action::DetailDown));
    }

    #[test]
    fn picker_leaves_typing_and_editing_keys_to_the_search() {
        let kb = Keybindings::defaults();
        for event in [
            plain(KeyCode::Char('a')),
            key(KeyCode::Char('L'), KeyModifiers::SHIFT),
            plain(KeyCode::Char('?')),
            plain(KeyCode::Char(' ')),
            plain(KeyCode::Backspace),
            plain(KeyCode::Left),
            ctrl('a'),
            ctrl('e'),
            ctrl('u'),
            ctrl('k'),
            ctrl('w'),
            ctrl('y'),
        ] {
            assert_eq!(kb.picker.action_for(&event), None, "{event:?}");
        }
    }

    #[test]
    fn tree_defaults_follow_pi() {
        let kb = Keybindings::defaults();
        let t = &kb.tree;
        assert_eq!(t.action_for(&ctrl('d')), Some(Action::FilterDefault), "Ctrl+D differs per screen");
        assert_eq!(t.action_for(&ctrl('t')), Some(Action::FilterNoTools));
        assert_eq!(t.action_for(&ctrl('u')), Some(Action::FilterUserOnly));
        assert_eq!(t.action_for(&ctrl('l')), Some(Action::FilterLabeledOnly));
        assert_eq!(t.action_for(&ctrl('a')), Some(Action::FilterAll));
        assert_eq!(t.action_for(&ctrl('o')), Some(Action::FilterCycle));
        assert_eq!(
            t.action_for(&key(KeyCode::Char('o'), KeyModifiers::CONTROL | KeyModifiers::SHIFT)),
            Some(Action::FilterCycleBack)
        );
        assert_eq!(
            t.action_for(&key(KeyCode::Char('O'), KeyModifiers::CONTROL)),
            Some(Action::FilterCycleBack),
            "an uppercase letter carries Shift"
        );
        assert_eq!(t.action_for(&key(KeyCode::Left, KeyModifiers::CONTROL)), Some(Action::FoldOrUp));
        assert_eq!(t.action_for(&key(KeyCode::Right, KeyModifiers::ALT)), Some(Action::UnfoldOrDown));
        assert_eq!(t.action_for(&plain(KeyCode::Left)), Some(Action::PageUp));
        assert_eq!(t.action_for(&ctrl('b')), Some(Action::PageUp));
        assert_eq!(t.action_for(&plain(KeyCode::PageUp)), Some(Action::PageUp));
        assert_eq!(t.action_for(&ctrl('f')), Some(Action::PageDown));
        assert_eq!(t.action_for(&ctrl('x')), Some(Action::Copy));
        assert_eq!(t.action_for(&key(KeyCode::Char('f'), KeyModifiers::ALT)), Some(Action::Fork));
        assert_eq!(t.action_for(&ctrl('k')), None);
        assert_eq!(t.action_for(&ctrl('n')), Some(Action::SearchNext));
        assert_eq!(t.action_for(&ctrl('p')), Some(Action::SearchPrev));
        assert_eq!(t.action_for(&ctrl('r')), Some(Action::Rename));
        assert_eq!(t.action_for(&plain(KeyCode::Char('/'))), Some(Action::FocusSearch));
        assert_eq!(t.action_for(&plain(KeyCode::Tab)), Some(Action::ToggleDetail));
        assert_eq!(t.action_for(&plain(KeyCode::F(2))), None, "F2 is the picker's");
        assert_eq!(t.action_for(&plain(KeyCode::Home)), Some(Action::First));
        assert_eq!(t.action_for(&plain(KeyCode::End)), Some(Action::Last));
        assert_eq!(t.action_for(&key(KeyCode::Up, KeyModifiers::SHIFT)), Some(Action::DetailUp));
        assert_eq!(t.action_for(&key(KeyCode::PageDown, KeyModifiers::SHIFT)), Some(Action::DetailPageDown));
        assert_eq!(t.action_for(&plain(KeyCode::F(1))), Some(Action::Help));
        assert_eq!(t.action_for(&plain(KeyCode::Char('l'))), None, "lowercase types");
        assert_eq!(t.action_for(&plain(KeyCode::Char('x'))), None);
        assert_eq!(t.action_for(&plain(KeyCode::Char('?'))), None);
    }

    #[test]
    fn every_listed_key_maps_back_to_its_action() {
        let kb = Keybindings::defaults();
        for keymap in [&kb.picker, &kb.tree] {
            for binding in keymap.bindings() {
                for key in &binding.keys {
                    let event = KeyChord::parse(key).unwrap().to_event();
                    assert_eq!(keymap.action_for(&event), Some(binding.action), "{key}");
                }
            }
        }
    }

    #[test]
    fn hint_keys_name_an_id_and_fall_back_to_its_action() {
        let kb = Keybindings::defaults();
        assert_eq!(kb.tree.hint_key("tui.editor.cursorLeft").as_deref(), Some("left"));
        assert_eq!(kb.tree.hint_key("tui.select.pageUp").as_deref(), Some("pageUp"));
        assert_eq!(kb.tree.hint_key("pitree.tree.fork").as_deref(), Some("alt+f"));
        assert_eq!(kb.tree.hint_key("app.session.toggleSort"), None, "not a tree id");
        let (kb, _) = loaded(r#"{"tui.editor.cursorLeft": [], "pitree.tree.fork": []}"#);
        assert_eq!(kb.tree.hint_key("tui.editor.cursorLeft").as_deref(), Some("pageUp"));
        assert_eq!(kb.tree.hint_key("pitree.tree.fork"), None);
    }

    #[test]
    fn shift_letters_match_however_the_terminal_reports_them() {
        let kb = Keybindings::defaults();
        for event in [
            key(KeyCode::Char('L'), KeyModifiers::SHIFT),
            key(KeyCode::Char('L'), KeyModifiers::NONE),
            key(KeyCode::Char('l'), KeyModifiers::SHIFT),
        ] {
            assert_eq!(kb.tree.action_for(&event), Some(Action::EditLabel), "{event:?}");
        }
        assert_eq!(kb.tree.action_for(&plain(KeyCode::Char('T'))), Some(Action::ToggleLabelTime));
    }

    #[test]
    fn releases_and_unknown_modifiers_trigger_nothing() {
        let kb = Keybindings::defaults();
        let mut release = ctrl('s');
        release.kind = KeyEventKind::Release;
        assert_eq!(kb.picker.action_for(&release), None);
        let mut repeat = plain(KeyCode::Down);
        repeat.kind = KeyEventKind::Repeat;
        assert_eq!(kb.picker.action_for(&repeat), Some(Action::Down));
        assert_eq!(kb.picker.action_for(&key(KeyCode::Char('s'), KeyModifiers::SUPER)), None);
    }

    #[test]
    fn keys_for_lists_display_strings() {
        let kb = Keybindings::defaults();
        assert_eq!(kb.picker.keys_for(Action::ToggleSort), ["ctrl+s"]);
        assert_eq!(kb.picker.keys_for(Action::Cancel), ["escape", "ctrl+c"]);
        assert_eq!(kb.picker.keys_for(Action::ResumeNow), ["alt+enter"]);
        assert_eq!(kb.picker.keys_for(Action::DeleteNoninvasive), ["ctrl+backspace"]);
        assert_eq!(kb.tree.keys_for(Action::FilterCycleBack), ["shift+ctrl+o"]);
        assert_eq!(kb.tree.keys_for(Action::PageUp), ["pageUp", "left", "ctrl+b"]);
        assert_eq!(kb.tree.keys_for(Action::EditLabel), ["shift+l"]);
        assert!(kb.picker.keys_for(Action::FilterAll).is_empty());
    }

    #[test]
    fn bindings_cover_every_action_of_a_screen_once() {
        let kb = Keybindings::defaults();
        let tree = kb.tree.bindings();
        let page_up = tree.iter().find(|b| b.action == Action::PageUp).unwrap();
        assert_eq!(page_up.ids, ["tui.select.pageUp", "tui.editor.cursorLeft"]);
        assert_eq!(page_up.keys, ["pageUp", "left", "ctrl+b"]);
        assert_eq!(tree.iter().filter(|b| b.action == Action::PageUp).count(), 1);
        let picker = kb.picker.bindings();
        assert_eq!(picker.len(), PICKER.len());
        assert!(picker.iter().all(|b| !b.keys.is_empty() && !b.description.is_empty()));
        assert_eq!(picker[0].action, Action::ToggleScope);
    }

    #[test]
    fn overrides_replace_an_ids_defaults() {
        let (kb, warnings) = loaded(
            r#"{
                "app.session.toggleSort": "alt+s",
                "tui.select.up": ["up", "ctrl+k"],
                "app.tree.filter.userOnly": "ctrl+y",
                "pitree.tree.fork": "ctrl+e",
                "app.session.rename": []
            }"#,
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(kb.picker.action_for(&ctrl('s')), None);
        assert_eq!(
            kb.picker.action_for(&key(KeyCode::Char('s'), KeyModifiers::ALT)),
            Some(Action::ToggleSort)
        );
        assert_eq!(kb.picker.action_for(&ctrl('k')), Some(Action::Up));
        assert_eq!(kb.tree.action_for(&ctrl('k')), Some(Action::Up), "an id applies on every screen");
        assert_eq!(kb.picker.action_for(&plain(KeyCode::Up)), Some(Action::Up));
        assert_eq!(kb.tree.action_for(&ctrl('y')), Some(Action::FilterUserOnly));
        assert_eq!(kb.tree.action_for(&ctrl('u')), None);
        assert_eq!(kb.tree.action_for(&ctrl('e')), Some(Action::Fork));
        assert_eq!(kb.picker.action_for(&ctrl('r')), None, "an empty array unbinds");
        assert!(kb.picker.keys_for(Action::Rename).is_empty());
    }

    #[test]
    fn key_strings_are_case_insensitive_with_modifiers_in_any_order() {
        let (kb, warnings) =
            loaded(r#"{"app.tree.filter.cycleBackward": "Ctrl+Shift+O", "tui.select.pageDown": "PAGEDOWN"}"#);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            kb.tree.action_for(&key(KeyCode::Char('o'), KeyModifiers::CONTROL | KeyModifiers::SHIFT)),
            Some(Action::FilterCycleBack)
        );
        assert_eq!(kb.tree.keys_for(Action::FilterCycleBack), ["shift+ctrl+o"]);
        assert_eq!(kb.tree.action_for(&plain(KeyCode::PageDown)), Some(Action::PageDown));
    }

    #[test]
    fn legacy_names_are_migrated_and_lose_to_new_ids() {
        let (kb, warnings) = loaded(
            r#"{
                "toggleSessionSort": "ctrl+o",
                "selectUp": "ctrl+y",
                "tui.select.up": "ctrl+e",
                "treeEditLabel": "ctrl+j",
                "cursorUp": "up",
                "interrupt": "escape"
            }"#,
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(kb.picker.action_for(&ctrl('o')), Some(Action::ToggleSort));
        assert_eq!(kb.picker.action_for(&ctrl('e')), Some(Action::Up), "the new id wins");
        assert_eq!(kb.picker.action_for(&ctrl('y')), None);
        assert_eq!(kb.tree.keys_for(Action::EditLabel), ["ctrl+j"]);
    }

    #[test]
    fn unknown_ids_bad_values_and_bad_keys_are_warnings() {
        let (kb, warnings) = loaded(
            r#"{
                "pitree.nope": "ctrl+q",
                "bogusName": "ctrl+q",
                "app.model.select": "ctrl+l",
                "tui.editor.undo": "ctrl+-",
                "app.session.toggleSort": 42,
                "app.session.togglePath": ["ctrl+p", 3],
                "app.session.delete": ["ctrl+q", "hyper+x", "ctrl+nope"]
            }"#,
        );
        assert_eq!(warnings.len(), 6, "{warnings:#?}");
        assert!(warnings[0].contains("\"pitree.nope\""));
        assert!(warnings[1].contains("\"bogusName\""));
        assert!(warnings.iter().any(|w| w.contains("\"app.session.toggleSort\" must be")));
        assert!(warnings.iter().any(|w| w.contains("\"app.session.togglePath\" must be")));
        assert!(warnings.iter().any(|w| w.contains("\"hyper+x\"")));
        assert!(warnings.iter().any(|w| w.contains("\"ctrl+nope\"")));
        assert_eq!(kb.picker.action_for(&ctrl('s')), Some(Action::ToggleSort), "bad values keep defaults");
        assert_eq!(kb.picker.action_for(&ctrl('p')), Some(Action::TogglePath));
        assert_eq!(kb.picker.action_for(&ctrl('q')), Some(Action::Delete));
        assert_eq!(kb.picker.action_for(&ctrl('d')), None);
    }

    #[test]
    fn printable_keys_cannot_be_bound_except_the_tree_label_and_search_keys() {
        let (kb, warnings) = loaded(
            r#"{
                "tui.select.down": ["j", "down"],
                "app.session.rename": "shift+r",
                "pitree.help": "?",
                "pitree.tree.fork": ["f", "alt+f"],
                "app.tree.editLabel": "shift+e",
                "app.tree.toggleLabelTimestamp": ["T", "alt+t"],
                "pitree.tree.search": ["ctrl+s", "\\"]
            }"#,
        );
        assert_eq!(warnings.len(), 4, "{warnings:#?}");
        assert!(warnings.iter().all(|w| w.contains("types into the search")));
        assert_eq!(kb.picker.action_for(&plain(KeyCode::Char('j'))), None);
        assert_eq!(kb.tree.action_for(&plain(KeyCode::Char('j'))), None);
        assert_eq!(kb.picker.action_for(&plain(KeyCode::Down)), Some(Action::Down));
        assert_eq!(kb.tree.action_for(&plain(KeyCode::Down)), Some(Action::Down));
        assert_eq!(kb.tree.action_for(&plain(KeyCode::Char('E'))), Some(Action::EditLabel));
        assert_eq!(
            kb.tree.action_for(&plain(KeyCode::Char('t'))),
            Some(Action::ToggleLabelTime),
            "as in pi, key strings are case-insensitive: \"T\" is the t key"
        );
        assert_eq!(
            kb.tree.action_for(&key(KeyCode::Char('t'), KeyModifiers::ALT)),
            Some(Action::ToggleLabelTime)
        );
        assert_eq!(kb.tree.action_for(&plain(KeyCode::Char('f'))), None);
        assert_eq!(kb.tree.keys_for(Action::Fork), ["alt+f"]);
        assert_eq!(kb.tree.keys_for(Action::FocusSearch), ["ctrl+s", "\\"]);
        assert_eq!(kb.tree.action_for(&plain(KeyCode::Char('/'))), None, "the default is replaced");
    }

    #[test]
    fn conflicts_with_user_keys_are_reported_and_the_first_id_wins() {
        let (kb, warnings) = loaded(r#"{"tui.select.up": "ctrl+p"}"#);
        assert_eq!(kb.picker.action_for(&ctrl('p')), Some(Action::TogglePath));
        assert_eq!(kb.tree.action_for(&ctrl('p')), Some(Action::Up), "Up comes first in the tree");
        assert_eq!(warnings.len(), 2, "{warnings:#?}");
        assert!(
            warnings[0]
                .contains("ctrl+p is bound to both app.session.togglePath and tui.select.up in the picker")
        );
        assert!(warnings[1].contains("tui.select.up and pitree.tree.prevHit in the tree view"));
    }

    #[test]
    fn malformed_files_give_defaults_and_one_warning() {
        for text in ["{not json", "[1, 2]", "null", ""] {
            let (kb, warnings) = loaded(text);
            assert_eq!(kb, Keybindings::defaults(), "{text:?}");
            assert_eq!(warnings.len(), 1, "{text:?}: {warnings:?}");
            assert!(!warnings[0].contains('\n'));
        }
        let (kb, warnings) = loaded("\u{FEFF}{\"app.session.toggleSort\": \"alt+s\"}");
        assert!(warnings.is_empty(), "a BOM is allowed, as in pi");
        assert_eq!(kb.picker.keys_for(Action::ToggleSort), ["alt+s"]);
    }

    #[test]
    fn load_reads_a_file_and_tolerates_a_missing_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keybindings.json");
        let (kb, warnings) = Keybindings::load(&path);
        assert_eq!(kb, Keybindings::defaults());
        assert!(warnings.is_empty());
        let mut file = std::fs::File::create(&path).unwrap();
        write!(file, r#"{{"app.session.delete": "shift+ctrl+d"}}"#).unwrap();
        drop(file);
        let (kb, warnings) = Keybindings::load(&path);
        assert!(warnings.is_empty());
        assert_eq!(kb.picker.keys_for(Action::Delete), ["shift+ctrl+d"]);
        let (kb, warnings) = Keybindings::load(dir.path());
        assert_eq!(kb, Keybindings::defaults(), "a directory cannot be read");
        assert_eq!(warnings.len(), 1);
    }

    #[test]
    fn keybindings_path_follows_pi() {
        let home = Path::new("/home/dev");
        let none = |_: &str| None;
        assert_eq!(
            keybindings_path(none, Some(home)),
            Some(PathBuf::from("/home/dev/.pi/agent/keybindings.json"))
        );
        assert_eq!(keybindings_path(none, None), None);
        let env = |dir: &'static str| {
            move |name: &str| (name == "PI_CODING_AGENT_DIR").then(|| OsString::from(dir))
        };
        assert_eq!(
            keybindings_path(env("/tmp/agent"), None),
            Some(PathBuf::from("/tmp/agent/keybindings.json"))
        );
        assert_eq!(
            keybindings_path(env("~/agent"), Some(home)),
            Some(PathBuf::from("/home/dev/agent/keybindings.json"))
        );
        assert_eq!(
            keybindings_path(env(""), Some(home)),
            Some(PathBuf::from("/home/dev/.pi/agent/keybindings.json"))
        );
    }

    #[test]
    fn chords_parse_and_print_like_pi() {
        for (text, shown) in [
            ("ctrl+s", "ctrl+s"),
            ("shift+ctrl+o", "shift+ctrl+o"),
            ("ctrl+shift+o", "shift+ctrl+o"),
            ("alt+enter", "alt+enter"),
            ("return", "enter"),
            ("esc", "escape"),
            ("pageUp", "pageUp"),
            ("F12", "f12"),
            ("ctrl+space", "ctrl+space"),
            ("ctrl+-", "ctrl+-"),
            ("ctrl++", "ctrl++"),
            ("+", "+"),
            ("?", "?"),
            ("clear", "clear"),
        ] {
            assert_eq!(KeyChord::parse(text).unwrap().to_string(), shown, "{text}");
        }
        for bad in ["", "ctrl+", "meta+x", "f13", "ctrl+foo", "shift+ctrl"] {
            assert!(KeyChord::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn legacy_control_bytes_match_their_symbols() {
        let (kb, _) = loaded(r#"{"pitree.tree.fork": "ctrl+]", "pitree.help": "ctrl+-"}"#);
        assert_eq!(kb.tree.action_for(&ctrl('5')), Some(Action::Fork), "0x1D arrives as Ctrl+5");
        assert_eq!(kb.tree.action_for(&ctrl(']')), Some(Action::Fork));
        assert_eq!(kb.picker.action_for(&ctrl('7')), Some(Action::Help), "0x1F arrives as Ctrl+7");
    }

    #[test]
    fn back_tab_is_shift_tab() {
        let (kb, _) = loaded(r#"{"pitree.view.toggleDetail": "shift+tab"}"#);
        assert_eq!(
            kb.picker.action_for(&key(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Some(Action::ToggleDetail)
        );
        assert_eq!(kb.picker.action_for(&plain(KeyCode::Tab)), Some(Action::ToggleScope));
    }

    #[test]
    fn question_mark_is_the_empty_query_help_key() {
        assert!(opens_help_on_empty_query(&plain(KeyCode::Char('?'))));
        assert!(opens_help_on_empty_query(&key(KeyCode::Char('?'), KeyModifiers::SHIFT)));
        assert!(!opens_help_on_empty_query(&key(KeyCode::Char('?'), KeyModifiers::ALT)));
        assert!(!opens_help_on_empty_query(&plain(KeyCode::Char('/'))));
    }
}
