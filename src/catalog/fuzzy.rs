//! pi's `fuzzyMatch` (pi-tui 1.6.0 `fuzzy.js`), exactly: a case-insensitive subsequence match over
//! UTF-16 code units, lower scores better.
//!
//! - The query fails when it is longer than the text.
//! - Greedy alignment: each query unit at its first occurrence after the previous match.
//! - Score of an alignment, per matched index `i`: a match right after the previous one adds to a
//!   run and scores `-5 × run`; otherwise the run resets and the gap costs `2 × gap`; a word
//!   boundary (`i = 0`, or the unit before is whitespace, `-`, `_`, `.`, `/` or `:`) scores `-10`;
//!   every match adds `0.1 × i`.
//! - Every contiguous occurrence of the query is scored too, and the best alignment kept; a query
//!   equal to the whole text scores a further `-100`.
//! - When the query does not match and is ASCII letters then digits (or digits then letters), the
//!   swapped form is tried, at `+5`.

use super::js::is_space;

/// A match: its score and the matched UTF-16 indexes of the best alignment.
#[derive(Debug, Clone, PartialEq)]
pub struct FuzzyMatch {
    pub score: f64,
    pub positions: Vec<usize>,
}

/// `fuzzyMatch(query, text)`; `None` when it does not match.
pub fn fuzzy_match(query: &str, text: &str) -> Option<FuzzyMatch> {
    let text = to_lower_utf16(text);
    fuzzy_match_lower(&query.to_lowercase(), &text)
}

/// [`fuzzy_match`] with the text already lowercased and in UTF-16.
pub fn fuzzy_match_lower(query_lower: &str, text_lower: &[u16]) -> Option<FuzzyMatch> {
    let q: Vec<u16> = query_lower.encode_utf16().collect();
    if let Some(m) = match_query(&q, text_lower) {
        return Some(m);
    }
    let swapped = swap_letters_digits(query_lower)?;
    let swapped: Vec<u16> = swapped.encode_utf16().collect();
    match_query(&swapped, text_lower).map(|m| FuzzyMatch { score: m.score + 5.0, ..m })
}

/// `s.toLowerCase()` as UTF-16 code units.
pub fn to_lower_utf16(s: &str) -> Vec<u16> {
    s.to_lowercase().encode_utf16().collect()
}

fn match_query(q: &[u16], t: &[u16]) -> Option<FuzzyMatch> {
    if q.is_empty() {
        return Some(FuzzyMatch { score: 0.0, positions: Vec::new() });
    }
    if q.len() > t.len() {
        return None;
    }
    let mut positions = Vec::with_capacity(q.len());
    let mut from = 0;
    for unit in q {
        let i = from + t[from..].iter().position(|u| u == unit)?;
        positions.push(i);
        from = i + 1;
    }
    let mut best = FuzzyMatch { score: score_positions(t, &positions), positions };
    let mut start = find(t, q, 0);
    while let Some(s) = start {
        let contiguous: Vec<usize> = (s..s + q.len()).collect();
        let score = score_positions(t, &contiguous);
        if score < best.score {
            best = FuzzyMatch { score, positions: contiguous };
        }
        start = find(t, q, s + 1);
    }
    if q == t {
        best.score -= 100.0;
    }
    Some(best)
}

/// The first occurrence of `q` (not empty) in `t` at or after `from`: a scan for its first unit,
/// then a comparison of the rest there.
fn find(t: &[u16], q: &[u16], from: usize) -> Option<usize> {
    let (&first, rest) = q.split_first()?;
    let last_start = t.len().checked_sub(q.len())?;
    let mut at = from;
    while at <= last_start {
        at += t[at..=last_start].iter().position(|&u| u == first)?;
        if t[at + 1..at + q.len()] == *rest {
            return Some(at);
        }
        at += 1;
    }
    None
}

fn score_positions(t: &[u16], positions: &[usize]) -> f64 {
    let mut score = 0.0;
    let mut last: Option<usize> = None;
    let mut run = 0u32;
    for &i in positions {
        // pi starts from a last match at -1, so a match at 0 continues a run too.
        if last.map_or(i == 0, |l| l + 1 == i) {
            run += 1;
            score -= f64::from(run) * 5.0;
        } else {
            run = 0;
            if let Some(l) = last {
                score += ((i - l - 1) * 2) as f64;
            }
        }
        if i == 0 || is_boundary(t[i - 1]) {
            score -= 10.0;
        }
        score += i as f64 * 0.1;
        last = Some(i);
    }
    score
}

fn is_boundary(unit: u16) -> bool {
    char::from_u32(u32::from(unit)).is_some_and(|c| is_space(c) || matches!(c, '-' | '_' | '.' | '/' | ':'))
}

/// `abc12` → `12abc`, `12abc` → `abc12`; other queries have no swapped form.
fn swap_letters_digits(q: &str) -> Option<String> {
    let split = q.find(|c: char| c.is_ascii_digit() != q.starts_with(|d: char| d.is_ascii_digit()))?;
    let (a, b) = q.split_at(split);
    let letters = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_lowercase());
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    ((letters(a) && digits(b)) || (digits(a) && letters(b))).then(|| format!("{b}{a}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(q: &str, t: &str) -> Option<f64> {
        fuzzy_match(q, t).map(|m| (m.score * 1000.0).round() / 1000.0)
    }

    #[test]
    fn scores_like_pi() {
        // The values pi-tui 1.6.0's fuzzyMatch gives. A match at 0 continues pi's run from -1:
        // -5 and a word boundary (-10) at 0, then the run: -10 -10, -15 -10; +0.1×(0+1+2).
        let close = |q, t, want: f64| {
            let got = score(q, t).unwrap();
            assert!((got - want).abs() < 1e-9, "{q:?} in {t:?}: {got}, pi {want}");
        };
        close("abc", "abcx", -39.7);
        // Exact text: the same minus 100.
        close("abc", "ABC", -139.7);
        // Gaps: a@0 (-15), c@2 gap 1 (+2) +0.2.
        close("ac", "abc", -12.8);
        close("i", "İstanbul", -15.0);
        assert_eq!(score("abcd", "abc"), None);
        assert_eq!(score("", "x"), Some(0.0));
        assert_eq!(score("zz", "abc"), None);
    }

    #[test]
    fn prefers_a_contiguous_occurrence_over_the_greedy_one() {
        let t = "openrouter openrouter/anthropic/claude-opus";
        let m = fuzzy_match("opus", t).unwrap();
        let at = t.find("opus").unwrap();
        assert_eq!(m.positions, (at..at + 4).collect::<Vec<_>>());
    }

    #[test]
    fn swaps_letters_and_digits() {
        assert_eq!(swap_letters_digits("abc12").as_deref(), Some("12abc"));
        assert_eq!(swap_letters_digits("12abc").as_deref(), Some("abc12"));
        assert_eq!(swap_letters_digits("a1b"), None);
        assert_eq!(swap_letters_digits("abc"), None);
        let direct = fuzzy_match("12abc", "x 12abc").unwrap().score;
        assert_eq!(fuzzy_match("abc12", "x 12abc").unwrap().score, direct + 5.0);
    }

    #[test]
    fn indexes_are_utf16_units() {
        let m = fuzzy_match("b", "😀b").unwrap();
        assert_eq!(m.positions, vec![2]);
    }
}
