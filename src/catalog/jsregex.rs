//! JavaScript regular expressions (pi compiles `re:` queries with `new RegExp(pattern, "i")`)
//! translated to the `regex` crate's syntax where the two differ:
//!
//! - `\d`, `\w`, `\b` (and their negations) are ASCII in JavaScript, Unicode in `regex`;
//! - `\s` is JavaScript's whitespace set; `.` excludes `\r`, U+2028 and U+2029 as well as `\n`;
//! - `[^]` matches anything and `[]` nothing; `\cX` is a control character; `\0` is NUL;
//! - escaped letters without a meaning (`\e`, `\q`) and braces that do not form a quantifier
//!   (`a{,3}`, a lone `}`) are literals (Annex B);
//! - inside a class, `[`, `&&`, `~~` and `--` are literal characters, as in JavaScript.
//!
//! What `regex` cannot do (look-around, backreferences) stays an error, and the query matches
//! nothing, as an invalid pattern does in pi.

use regex::{Regex, RegexBuilder};

const JS_SPACE: &str =
    r"\t\n\x0B\x0C\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
const WORD: &str = "A-Za-z0-9_";
const NOT_WORD: &str = r"\x00-/:-@\[-\^`\{-\x{10FFFF}";
const NOT_DIGIT: &str = r"\x00-/:-\x{10FFFF}";

/// Compile a JavaScript pattern with the `i` flag.
pub fn compile(pattern: &str) -> Result<Regex, String> {
    let translated = translate(pattern)?;
    RegexBuilder::new(&translated)
        .case_insensitive(true)
        .size_limit(16 << 20)
        .build()
        .map_err(|e| e.to_string().lines().last().unwrap_or("invalid regex").trim().to_string())
}

/// The `regex` crate pattern for a JavaScript pattern.
pub fn translate(pattern: &str) -> Result<String, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '\\' => i = escape(&chars, i, &mut out, false)?,
            '[' => i = class(&chars, i, &mut out)?,
            '.' => out.push_str(r"[^\n\r\x{2028}\x{2029}]"),
            '{' => match quantifier_end(&chars, i) {
                Some(end) => {
                    out.extend(&chars[i - 1..end]);
                    i = end;
                }
                None => out.push_str(r"\{"),
            },
            '}' => out.push_str(r"\}"),
            ']' => out.push_str(r"\]"),
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// The index after `{n}`, `{n,}` or `{n,m}` starting at `i` (just after the `{`).
fn quantifier_end(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    let digits = |j: &mut usize| {
        let start = *j;
        while chars.get(*j).is_some_and(char::is_ascii_digit) {
            *j += 1;
        }
        *j > start
    };
    if !digits(&mut j) {
        return None;
    }
    if chars.get(j) == Some(&',') {
        j += 1;
        digits(&mut j);
    }
    (chars.get(j) == Some(&'}')).then_some(j + 1)
}

/// Translate the escape whose character is at `i`; returns the index after it.
fn escape(chars: &[char], i: usize, out: &mut String, in_class: bool) -> Result<usize, String> {
    let Some(&c) = chars.get(i) else {
        return Err("\\ at end of pattern".to_string());
    };
    let mut next = i + 1;
    let hex = |from: usize, n: usize| -> Option<String> {
        let s: String = chars.get(from..from + n)?.iter().collect();
        s.chars().all(|c| c.is_ascii_hexdigit()).then_some(s)
    };
    match c {
        'd' if in_class => out.push_str("0-9"),
        'd' => out.push_str("[0-9]"),
        'D' if in_class => out.push_str(NOT_DIGIT),
        'D' => out.push_str("[^0-9]"),
        'w' if in_class => out.push_str(WORD),
        'w' => out.push_str(&format!("[{WORD}]")),
        'W' if in_class => out.push_str(NOT_WORD),
        'W' => out.push_str(&format!("[^{WORD}]")),
        's' if in_class => out.push_str(JS_SPACE),
        's' => out.push_str(&format!("[{JS_SPACE}]")),
        'S' if in_class => out.push_str(r"\S"),
        'S' => out.push_str(&format!("[^{JS_SPACE}]")),
        'b' if in_class => out.push_str(r"\x08"),
        'b' => out.push_str(r"(?-u:\b)"),
        'B' if !in_class => out.push_str(r"(?-u:\B)"),
        'f' | 'n' | 'r' | 't' | 'v' => {
            out.push('\\');
            out.push(c);
        }
        'c' => match chars.get(next) {
            Some(l) if l.is_ascii_alphabetic() => {
                out.push_str(&format!(r"\x{{{:02X}}}", (*l as u32) % 32));
                next += 1;
            }
            _ => out.push_str(r"\\c"),
        },
        'x' => match hex(next, 2) {
            Some(h) => {
                out.push_str(&format!(r"\x{{{h}}}"));
                next += 2;
            }
            None => out.push('x'),
        },
        'u' => match hex(next, 4) {
            Some(h) => {
                out.push_str(&format!(r"\x{{{h}}}"));
                next += 4;
            }
            None => out.push('u'),
        },
        '0' if !chars.get(next).is_some_and(char::is_ascii_digit) => out.push_str(r"\x00"),
        '1'..='9' if !in_class => return Err("backreferences are not supported".to_string()),
        'k' if chars.get(next) == Some(&'<') => {
            return Err("backreferences are not supported".to_string());
        }
        _ => out.push_str(&regex::escape(&c.to_string())),
    }
    Ok(next)
}

/// Translate the class whose body starts at `i` (just after `[`); returns the index after `]`.
fn class(chars: &[char], mut i: usize, out: &mut String) -> Result<usize, String> {
    let negated = chars.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        out.push_str(if negated { r"[\s\S]" } else { r"[^\s\S]" });
        return Ok(i + 1);
    }
    out.push('[');
    if negated {
        out.push('^');
    }
    while let Some(&c) = chars.get(i) {
        i += 1;
        match c {
            ']' => {
                out.push(']');
                return Ok(i);
            }
            '\\' => i = escape(chars, i, out, true)?,
            '[' | '&' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '-' if chars.get(i) == Some(&'-') => {
                out.push_str(r"\-");
            }
            _ => out.push(c),
        }
    }
    Err("unterminated character class".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, t: &str) -> bool {
        compile(p).unwrap().is_match(t)
    }

    #[test]
    fn word_boundaries_and_case() {
        assert!(m(r"\bbrave\b", "Brave is great"));
        assert!(!m(r"\bbrave\b", "bravery is not the same"));
        assert!(m(r"\bé", "xé"), "é is not an ASCII word character");
    }

    #[test]
    fn javascript_classes() {
        assert!(!m(r"^\d$", "٣"));
        assert!(m(r"^\s$", "\u{feff}"));
        assert!(!m(r"^\s$", "\u{85}"));
        assert!(!m(r"^.$", "\r"));
        assert!(m(r"^[^]$", "\n"));
        assert!(!m(r"[]", "anything"));
        assert!(m(r"^[\w-]+$", "a-b_c"));
        assert!(m(r"^[a&&b]+$", "&&"));
        assert!(m(r"^[\W]$", "-"));
    }

    #[test]
    fn annex_b_literals() {
        assert!(m(r"a{,3}", "a{,3}"));
        assert!(m(r"^\e\/}$", "e/}"));
        assert!(m(r"^\cA$", "\u{1}"));
        assert!(m(r"^\u0041\x42$", "ab"));
        assert!(m(r"^a{2}$", "aa"));
    }

    #[test]
    fn unsupported_syntax_is_an_error() {
        assert!(compile(r"(a)\1").is_err());
        assert!(compile(r"a(?=b)").is_err());
        assert!(compile(r"(").is_err());
        assert!(compile(r"[a").is_err());
    }
}
