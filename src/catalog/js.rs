//! The few JavaScript string rules pi's listing and search depend on: what `String.prototype.trim`
//! and `/\s/` count as whitespace, and whitespace collapsing.

/// JavaScript's `WhiteSpace` and `LineTerminator` set (what `trim()` strips and `\s` matches). It
/// differs from Rust's `char::is_whitespace` in two places: U+FEFF is JS whitespace, U+0085 is not.
pub fn is_js_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// `String.prototype.trim()`.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// `s.toLowerCase().replace(/\s+/g, " ").trim()`: lower case, every whitespace run one space.
pub fn normalize_whitespace_lower(s: &str) -> String {
    collapse_whitespace(&s.to_lowercase())
}

/// `s.replace(/\s+/g, " ").trim()`.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for c in s.chars() {
        if is_js_space(c) {
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
