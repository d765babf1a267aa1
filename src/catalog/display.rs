//! How a session is shown in a list: its title made safe for a terminal, its age as pi writes it,
//! times as ISO-8601, paths with `~`.

use std::path::Path;

use super::SessionSummary;
use super::js;

/// Characters that would act on the terminal or reorder or break text: C0/C1 controls, DEL, the
/// bidi embedding, override, isolate and mark characters, and the line and paragraph separators.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200e}'
                | '\u{200f}'
                | '\u{061c}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// Every unsafe character replaced by a space (one character for one, so character positions are
/// kept).
pub fn sanitize(s: &str) -> String {
    s.chars().map(|c| if is_unsafe_char(c) { ' ' } else { c }).collect()
}

/// The text of a picker row: the name if set, else the first message; sanitized, then trimmed
/// (pi replaces `\x00-\x1f\x7f` and trims; pitree also replaces C1 and bidi controls).
pub fn display_title(s: &SessionSummary) -> String {
    js::trim(&sanitize(s.title())).to_string()
}

/// pi's `formatSessionDate`: `now`, `5m`, `3h`, `2d`, `1w`, `4mo`, `1y`.
pub fn format_age(modified_ms: i64, now_ms: i64) -> String {
    let diff = now_ms - modified_ms;
    let mins = diff.div_euclid(60_000);
    let hours = diff.div_euclid(3_600_000);
    let days = diff.div_euclid(86_400_000);
    match () {
        _ if mins < 1 => "now".to_string(),
        _ if mins < 60 => format!("{mins}m"),
        _ if hours < 24 => format!("{hours}h"),
        _ if days < 7 => format!("{days}d"),
        _ if days < 30 => format!("{}w", days / 7),
        _ if days < 365 => format!("{}mo", days / 30),
        _ => format!("{}y", days / 365),
    }
}

/// `path` with a leading `home` written as `~`.
pub fn shorten_home(path: &str, home: Option<&Path>) -> String {
    let Some(home) = home.and_then(Path::to_str).filter(|h| !h.is_empty() && *h != "/") else {
        return path.to_string();
    };
    match path.strip_prefix(home) {
        Some("") => "~".to_string(),
        Some(rest) if rest.starts_with('/') => format!("~{rest}"),
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_like_pi() {
        let now = 1_000_000_000_000;
        let ago = |ms: i64| format_age(now - ms, now);
        assert_eq!(ago(30_000), "now");
        assert_eq!(ago(90_000), "1m");
        assert_eq!(ago(3 * 3_600_000), "3h");
        assert_eq!(ago(10 * 86_400_000), "1w");
        assert_eq!(ago(45 * 86_400_000), "1mo");
        assert_eq!(ago(400 * 86_400_000), "1y");
        assert_eq!(ago(-5_000), "now");
    }

    #[test]
    fn titles_are_safe() {
        let s = SessionSummary {
            name: Some("\u{1b}[31mred\u{1b}[0m\n\u{202e}x\u{85}".into()),
            ..Default::default()
        };
        assert_eq!(display_title(&s), "[31mred [0m  x");
        let s = SessionSummary { first_message: " a\tb ".into(), ..Default::default() };
        assert_eq!(display_title(&s), "a b");
    }

    #[test]
    fn iso_and_home() {
        assert_eq!(crate::session::date::iso_string(0).unwrap(), "1970-01-01T00:00:00.000Z");
        assert_eq!(shorten_home("/home/u/p", Some(Path::new("/home/u"))), "~/p");
        assert_eq!(shorten_home("/home/user2", Some(Path::new("/home/u"))), "/home/user2");
    }
}
