//! Colours and text styles for the roles pi's screens use, in a dark, a light and a no-colour
//! variant, and the choice between them from the environment (`NO_COLOR`, `PITREE_THEME`,
//! `COLORFGBG`).

use ratatui::style::{Color, Modifier, Style};

/// Which variant of the theme is in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThemeKind {
    Dark,
    Light,
    NoColor,
}

/// One style per role. Row styles are patched onto each other (e.g. `highlight` over `selected`),
/// so a role only sets what it is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub kind: ThemeKind,
    /// Titles and other emphasised headings.
    pub title: Style,
    /// The cursor `›`, `user:` labels, the search query, info messages.
    pub accent: Style,
    /// `assistant:` labels, success messages.
    pub success: Style,
    /// Named sessions, branch summaries.
    pub warning: Style,
    /// Errors, rows pending deletion.
    pub error: Style,
    /// Tool results, hint descriptions, label timestamps.
    pub muted: Style,
    /// Right-hand row details, hint keys, settings entries.
    pub dim: Style,
    /// Pane borders.
    pub border: Style,
    /// The focused pane's border, compaction rows.
    pub border_accent: Style,
    /// `[customType]:` labels of custom messages.
    pub custom_message_label: Style,
    /// The selected row (its background).
    pub selected: Style,
    /// Search matches inside row text.
    pub highlight: Style,
    /// `[label]` tags in the tree.
    pub label: Style,
    /// The marker on the leaf itself.
    pub leaf_marker: Style,
    /// The `•` marker on the path from the root to the leaf.
    pub path_marker: Style,
    /// Tree connectors `├─ └─ │`.
    pub connector: Style,
}

impl Theme {
    /// The theme the environment asks for; see [`detect_kind`].
    pub fn detect() -> Theme {
        Theme::for_kind(detect_kind(|name| std::env::var(name).ok()))
    }

    /// The theme of one kind.
    pub fn for_kind(kind: ThemeKind) -> Theme {
        match kind {
            ThemeKind::Dark => Theme::dark(),
            ThemeKind::Light => Theme::light(),
            ThemeKind::NoColor => Theme::no_color(),
        }
    }

    /// For dark backgrounds: the terminal's own ANSI colours, greys from the 256-colour ramp.
    pub fn dark() -> Theme {
        let dim = Style::new().fg(Color::Indexed(242));
        Theme {
            kind: ThemeKind::Dark,
            title: Style::new().add_modifier(Modifier::BOLD),
            accent: Style::new().fg(Color::Cyan),
            success: Style::new().fg(Color::Green),
            warning: Style::new().fg(Color::Yellow),
            error: Style::new().fg(Color::Red),
            muted: Style::new().fg(Color::Indexed(246)),
            dim,
            border: Style::new().fg(Color::Indexed(240)),
            border_accent: Style::new().fg(Color::LightCyan),
            custom_message_label: Style::new().fg(Color::Magenta),
            selected: Style::new().bg(Color::Indexed(237)),
            highlight: Style::new().fg(Color::Black).bg(Color::Yellow),
            label: Style::new().fg(Color::Yellow),
            leaf_marker: Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            path_marker: Style::new().fg(Color::Cyan),
            connector: dim,
        }
    }

    /// For light backgrounds: darker shades from the 256-colour cube, which stay readable on white.
    pub fn light() -> Theme {
        let dim = Style::new().fg(Color::Indexed(247));
        let accent = Style::new().fg(Color::Indexed(30));
        let warning = Style::new().fg(Color::Indexed(130));
        let success = Style::new().fg(Color::Indexed(28));
        Theme {
            kind: ThemeKind::Light,
            title: Style::new().add_modifier(Modifier::BOLD),
            accent,
            success,
            warning,
            error: Style::new().fg(Color::Indexed(124)),
            muted: Style::new().fg(Color::Indexed(242)),
            dim,
            border: Style::new().fg(Color::Indexed(250)),
            border_accent: Style::new().fg(Color::Indexed(31)),
            custom_message_label: Style::new().fg(Color::Indexed(97)),
            selected: Style::new().bg(Color::Indexed(254)),
            highlight: Style::new().fg(Color::Black).bg(Color::Indexed(229)).add_modifier(Modifier::BOLD),
            label: warning,
            leaf_marker: success.add_modifier(Modifier::BOLD),
            path_marker: accent,
            connector: dim,
        }
    }

    /// For `NO_COLOR`: no colours at all, only bold, reverse and underline where a role must stand
    /// out without colour.
    pub fn no_color() -> Theme {
        let plain = Style::new();
        let bold = Style::new().add_modifier(Modifier::BOLD);
        Theme {
            kind: ThemeKind::NoColor,
            title: bold,
            accent: plain,
            success: plain,
            warning: plain,
            error: bold,
            muted: plain,
            dim: plain,
            border: plain,
            border_accent: bold,
            custom_message_label: plain,
            selected: Style::new().add_modifier(Modifier::REVERSED),
            highlight: Style::new().add_modifier(Modifier::UNDERLINED),
            label: bold,
            leaf_marker: bold,
            path_marker: plain,
            connector: plain,
        }
    }
}

/// Choose the theme from environment variables read through `var`: `NO_COLOR` set and non-empty
/// gives no colour; else `PITREE_THEME=light|dark` (any case); else the background index at the
/// end of `COLORFGBG` (`7` or `9`–`15` is light, other numbers dark); else dark.
pub fn detect_kind(var: impl Fn(&str) -> Option<String>) -> ThemeKind {
    if var("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return ThemeKind::NoColor;
    }
    let asked = var("PITREE_THEME").map(|v| v.trim().to_ascii_lowercase());
    match asked.as_deref() {
        Some("light") => return ThemeKind::Light,
        Some("dark") => return ThemeKind::Dark,
        _ => {}
    }
    let background =
        var("COLORFGBG").and_then(|v| v.rsplit(';').next().and_then(|bg| bg.trim().parse::<u8>().ok()));
    match background {
        Some(7 | 9..=15) => ThemeKind::Light,
        _ => ThemeKind::Dark,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(vars: &[(&str, &str)]) -> ThemeKind {
        detect_kind(|name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned()))
    }

    #[test]
    fn default_is_dark() {
        assert_eq!(kind(&[]), ThemeKind::Dark);
    }

    #[test]
    fn no_color_wins_when_non_empty() {
        assert_eq!(kind(&[("NO_COLOR", "1"), ("PITREE_THEME", "light")]), ThemeKind::NoColor);
        assert_eq!(kind(&[("NO_COLOR", ""), ("PITREE_THEME", "light")]), ThemeKind::Light);
    }

    #[test]
    fn pitree_theme_chooses_light_or_dark() {
        assert_eq!(kind(&[("PITREE_THEME", "Light")]), ThemeKind::Light);
        assert_eq!(kind(&[("PITREE_THEME", " dark "), ("COLORFGBG", "0;15")]), ThemeKind::Dark);
        assert_eq!(kind(&[("PITREE_THEME", "solarized"), ("COLORFGBG", "0;15")]), ThemeKind::Light);
    }

    #[test]
    fn colorfgbg_background_decides() {
        assert_eq!(kind(&[("COLORFGBG", "0;15")]), ThemeKind::Light);
        assert_eq!(kind(&[("COLORFGBG", "0;7")]), ThemeKind::Light);
        assert_eq!(kind(&[("COLORFGBG", "15;0")]), ThemeKind::Dark);
        assert_eq!(kind(&[("COLORFGBG", "15;default;8")]), ThemeKind::Dark);
        assert_eq!(kind(&[("COLORFGBG", "0;default;11")]), ThemeKind::Light);
        assert_eq!(kind(&[("COLORFGBG", "default;default")]), ThemeKind::Dark);
        assert_eq!(kind(&[("COLORFGBG", "")]), ThemeKind::Dark);
    }

    #[test]
    fn for_kind_gives_that_kind() {
        for k in [ThemeKind::Dark, ThemeKind::Light, ThemeKind::NoColor] {
            assert_eq!(Theme::for_kind(k).kind, k);
        }
    }

    #[test]
    fn no_color_uses_no_colours() {
        let t = Theme::no_color();
        let all = [
            t.title,
            t.accent,
            t.success,
            t.warning,
            t.error,
            t.muted,
            t.dim,
            t.border,
            t.border_accent,
            t.custom_message_label,
            t.selected,
            t.highlight,
            t.label,
            t.leaf_marker,
            t.path_marker,
            t.connector,
        ];
        let allowed = Modifier::BOLD | Modifier::REVERSED | Modifier::UNDERLINED;
        for style in all {
            assert_eq!((style.fg, style.bg), (None, None), "{style:?}");
            assert!(allowed.contains(style.add_modifier), "{style:?}");
        }
        assert_ne!(t.selected, Style::new(), "the selection must stay visible");
        assert_ne!(t.highlight, Style::new(), "matches must stay visible");
    }

    #[test]
    fn selection_and_matches_stand_out_in_colour_themes() {
        for t in [Theme::dark(), Theme::light()] {
            assert!(t.selected.bg.is_some());
            assert!(t.highlight.bg.is_some());
            assert_ne!(t.highlight.bg, t.selected.bg);
        }
    }
}
