//! The few JavaScript string rules pi's listing and search depend on: what `String.prototype.trim`
//! and `/\s/` count as whitespace, and whitespace collapsing.

pub use crate::session::js::{is_space, trim};

/// `s.toLowerCase().replace(/\s+/g, " ").trim()`: lower case, every whitespace run one space.
pub fn normalize_whitespace_lower(s: &str) -> String {
    collapse_whitespace(&s.to_lowercase())
}

/// `s.replace(/\s+/g, " ").trim()`.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for c in s.chars() {
        if is_space(c) {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_follows_javascript() {
        assert_eq!(trim("\u{feff} a \u{a0}\u{3000}"), "a");
        assert_eq!(trim("\u{85}a"), "\u{85}a");
        assert_eq!(trim("\r\n\t a\u{2028}"), "a");
    }

    #[test]
    fn whitespace_runs_collapse() {
        assert_eq!(normalize_whitespace_lower("  Node\n\n   CVE was\tdiscussed "), "node cve was discussed");
        assert_eq!(collapse_whitespace("   "), "");
    }
}
