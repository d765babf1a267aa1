//! The picker's search, sort modes and named filter, as pi 1.6.0 has them
//! (`session-selector-search.js`, `session-selector.js`; pi-reference §2.4–2.6).
//!
//! **Query language** (on the trimmed query):
//! - `re:<pattern>`: a JavaScript regular expression, case-insensitive (see [`super::jsregex`]); an
//!   empty or invalid pattern is an error and the result is empty.
//! - Otherwise tokens: whitespace separates fuzzy tokens, `"…"` makes a phrase; an unclosed quote
//!   falls back to whitespace-split fuzzy tokens (the `"` stays in them). All tokens must match;
//!   their scores add up; no token matches everything.
//!
//! **Matching** (pi 1.6.0 matches each field on its own, in tiers: a hit in the name beats a hit in
//! the id, messages or cwd, which beats a scattered match):
//! - fuzzy token: if it occurs literally (case-insensitive) in the name → `0 + fuzzy score in the
//!   name`; else in the id, the user/assistant text or the cwd → `1 000 000`; else pi's fuzzy
//!   subsequence match ([`super::fuzzy`]) over the name or the cwd (the better one) →
//!   `2 000 000 + its score`; else no match;
//! - phrase: the same literal tiers over whitespace-collapsed lower-case text;
//! - regex: a match in the name → `0`, in the id, text or cwd → `1 000 000`.
//!
//! pi-reference §2.6 describes pi 0.58's older rules (one haystack `"<id> <name> <text> <cwd>"`,
//! fuzzy over all of it, phrase and regex scored by index); pi 1.6.0 changed them and pitree
//! follows 1.6.0.
//!
//! **Sort modes**: the named-only filter (`name.trim()` non-empty) applies first. Threaded with an
//! empty query is the thread tree ([`super::thread`]); every other case is flat: an empty query
//! keeps the list order, Recent keeps it too and only filters, Relevance and Threaded-with-a-query
//! sort by score ascending, ties by `modified` newest first.
//!
//! **Speed**: [`SearchIndex`] lower-cases every field once; one keystroke matches all sessions in
//! parallel with one prepared substring finder per token.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::OnceLock;

use memchr::memmem::Finder;
use rayon::prelude::*;
use regex::Regex;

use super::SessionSummary;
use super::display::display_title;
use super::fuzzy::{fuzzy_match, fuzzy_match_lower, to_lower_utf16};
use super::js;
use super::jsregex;
use super::locate::canonical_key;
use super::thread::{self, Node};

const TIER_NAME: f64 = 0.0;
const TIER_TEXT: f64 = 1_000_000.0;
const TIER_FUZZY: f64 = 2_000_000.0;

/// The picker's sort modes, in Ctrl+S order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortMode {
    #[default]
    Threaded,
    Recent,
    Relevance,
}

impl SortMode {
    /// The next mode (threaded → recent → relevance → threaded).
    pub fn next(self) -> SortMode {
        match self {
            SortMode::Threaded => SortMode::Recent,
            SortMode::Recent => SortMode::Relevance,
            SortMode::Relevance => SortMode::Threaded,
        }
    }

    /// The header label pi shows (relevance is shown as "Fuzzy").
    pub fn label(self) -> &'static str {
        match self {
            SortMode::Threaded => "Threaded",
            SortMode::Recent => "Recent",
            SortMode::Relevance => "Fuzzy",
        }
    }
}

/// A parsed query.
#[derive(Debug, Clone)]
pub enum Query {
    Tokens(Vec<Token>),
    Regex(Regex),
}

/// One token of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    Fuzzy(String),
    Phrase(String),
}

/// Why a query cannot be used (pi shows an empty list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError(pub String);

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid regex: {}", self.0)
    }
}

impl std::error::Error for QueryError {}

/// pi's `parseSearchQuery`.
pub fn parse_query(query: &str) -> Result<Query, QueryError> {
    let trimmed = js::trim(query);
    if let Some(pattern) = trimmed.strip_prefix("re:") {
        let pattern = js::trim(pattern);
        if pattern.is_empty() {
            return Err(QueryError("Empty regex".to_string()));
        }
        return jsregex::compile(pattern).map(Query::Regex).map_err(QueryError);
    }
    Ok(Query::Tokens(tokens(trimmed)))
}

fn tokens(trimmed: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut buf = String::new();
    let mut in_quote = false;
    let flush = |buf: &mut String, tokens: &mut Vec<Token>, phrase: bool| {
        let v = js::trim(buf).to_string();
        buf.clear();
        if !v.is_empty() {
            tokens.push(if phrase { Token::Phrase(v) } else { Token::Fuzzy(v) });
        }
    };
    for c in trimmed.chars() {
        if c == '"' {
            flush(&mut buf, &mut tokens, in_quote);
            in_quote = !in_quote;
        } else if !in_quote && js::is_js_space(c) {
            flush(&mut buf, &mut tokens, false);
        } else {
            buf.push(c);
        }
    }
    if in_quote {
        return trimmed
            .split(js::is_js_space)
            .filter(|t| !t.is_empty())
            .map(|t| Token::Fuzzy(t.to_string()))
            .collect();
    }
    flush(&mut buf, &mut tokens, false);
    tokens
}

/// A field of a session that a query matched in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Id,
    Name,
    Text,
    Cwd,
}

/// A match in a field: a byte range of the summary's field (`id`, `name`, `all_messages_text`,
/// `cwd`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldHit {
    pub field: Field,
    pub range: Range<usize>,
}

/// Where a row's query matched, for highlighting.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Matches {
    /// Byte ranges into [`display_title`] of the session, sorted, not overlapping.
    pub title: Vec<Range<usize>>,
    /// For each token (or the regex), where it matched.
    pub fields: Vec<FieldHit>,
}

/// One row of the filtered, sorted list.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Index into the session list.
    pub index: usize,
    /// pi's score (lower is better); 0 without a query.
    pub score: f64,
    /// Depth in the threaded tree (0 in flat lists).
    pub depth: usize,
    /// The tree prefix (`   ├─ `…); empty in flat lists.
    pub depth_prefix: String,
    pub matches: Matches,
}

/// Filter and sort `sessions` (given in pi's listing order). An invalid query gives no rows; use
/// [`SearchIndex::search`] to get the error.
pub fn filter_and_sort(sessions: &[SessionSummary], query: &str, sort: SortMode, named: bool) -> Vec<Row> {
    SearchIndex::new(sessions).filter_and_sort(sessions, query, sort, named)
}

/// The lower-cased fields of every session, built once for many keystrokes. It must be used with
/// the same slice it was built from.
pub struct SearchIndex {
    items: Vec<Haystack>,
    nodes: OnceLock<Vec<Node>>,
}

struct Haystack {
    id: String,
    name: Option<String>,
    name16: Vec<u16>,
    text: String,
    text_ascii: bool,
    cwd: String,
    cwd16: Vec<u16>,
    norm: OnceLock<Normalized>,
}

/// Whitespace-collapsed lower-case fields, for phrases (built on the first phrase).
struct Normalized {
    name: String,
    text: String,
    cwd: String,
}

impl SearchIndex {
    pub fn new(sessions: &[SessionSummary]) -> SearchIndex {
        let items = sessions
            .par_iter()
            .map(|s| {
                let name = s.name.as_deref().map(str::to_lowercase);
                Haystack {
                    id: s.id.to_lowercase(),
                    name16: name.as_deref().map(|n| n.encode_utf16().collect()).unwrap_or_default(),
                    name,
                    text: s.all_messages_text.to_lowercase(),
                    text_ascii: s.all_messages_text.is_ascii(),
                    cwd16: to_lower_utf16(&s.cwd),
                    cwd: s.cwd.to_lowercase(),
                    norm: OnceLock::new(),
                }
            })
            .collect();
        SearchIndex { items, nodes: OnceLock::new() }
    }

    /// [`SearchIndex::search`], with an invalid query giving no rows (as in pi).
    pub fn filter_and_sort(
        &self,
        sessions: &[SessionSummary],
        query: &str,
        sort: SortMode,
        named: bool,
    ) -> Vec<Row> {
        self.search(sessions, query, sort, named).unwrap_or_default()
    }

    /// pi's `filterSessions`: the named filter, then the tree, a flat filtered list, or a list
    /// sorted by relevance.
    pub fn search(
        &self,
        sessions: &[SessionSummary],
        query: &str,
        sort: SortMode,
        named: bool,
    ) -> Result<Vec<Row>, QueryError> {
        let subset: Vec<usize> = (0..sessions.len())
            .filter(|&i| !named || sessions[i].name.as_deref().is_some_and(|n| !js::trim(n).is_empty()))
            .collect();
        if js::trim(query).is_empty() {
            return Ok(match sort {
                SortMode::Threaded => self.tree(sessions, &subset),
                _ => subset.into_iter().map(flat_row).collect(),
            });
        }
        let query = parse_query(query)?;
        let prepared = Prepared::new(&query);
        let mut rows: Vec<Row> = subset
            .par_iter()
            .filter_map(|&i| {
                let (score, fields) = self.items[i].matches(&sessions[i], &prepared)?;
                Some(Row {
                    matches: Matches { title: title_hits(&sessions[i], &prepared), fields },
                    score,
                    ..flat_row(i)
                })
            })
            .collect();
        if sort != SortMode::Recent {
            rows.sort_by(|a, b| {
                a.score
                    .total_cmp(&b.score)
                    .then(sessions[b.index].modified_ms.cmp(&sessions[a.index].modified_ms))
            });
        }
        Ok(rows)
    }

    fn tree(&self, sessions: &[SessionSummary], subset: &[usize]) -> Vec<Row> {
        let nodes = self.nodes.get_or_init(|| {
            sessions
                .par_iter()
                .map(|s| Node {
                    key: canonical_key(&s.path),
                    parent_key: s.parent_session_path.as_deref().map(|p| canonical_key(&PathBuf::from(p))),
                    modified_ms: s.modified_ms,
                })
                .collect()
        });
        thread::threaded(nodes, subset)
            .into_iter()
            .map(|r| Row {
                index: r.index,
                score: 0.0,
                depth: r.depth,
                depth_prefix: r.prefix,
                matches: Matches::default(),
            })
            .collect()
    }
}

fn flat_row(index: usize) -> Row {
    Row { index, score: 0.0, depth: 0, depth_prefix: String::new(), matches: Matches::default() }
}

/// A query ready to run: lower-cased tokens with their substring finders.
enum Prepared {
    Tokens(Vec<PreparedToken>),
    Regex(Regex),
}

struct PreparedToken {
    /// The token as typed (fuzzy matching lower-cases it itself).
    raw: String,
    /// Lower case (fuzzy) or normalized (phrase).
    needle: String,
    finder: Finder<'static>,
    phrase: bool,
    /// Finds the token in an original (not lower-cased, not normalized) field, for its position.
    locator: Option<Regex>,
}

impl PreparedToken {
    fn new(raw: String, needle: String, phrase: bool) -> PreparedToken {
        let words: Vec<String> = needle.split(' ').map(regex::escape).collect();
        let pattern = words.join(r"[\s\x{FEFF}]+");
        PreparedToken {
            finder: Finder::new(needle.as_bytes()).into_owned(),
            locator: regex::RegexBuilder::new(&pattern).case_insensitive(true).build().ok(),
            raw,
            needle,
            phrase,
        }
    }

    /// The hit for a match at byte `at` of the searched (lower-cased, for phrases also
    /// normalized) form of `original`. ASCII literals map one to one; otherwise the locator finds
    /// the first occurrence in the original, falling back to walking the text.
    fn hit(&self, field: Field, original: &str, ascii: bool, at: usize) -> FieldHit {
        let len = self.needle.len();
        let range = if ascii && !self.phrase {
            at..at + len
        } else {
            self.locator
                .as_ref()
                .and_then(|re| re.find(original))
                .map(|m| m.range())
                .unwrap_or_else(|| map_range(original, at, len, self.phrase))
        };
        FieldHit { field, range }
    }
}

impl Prepared {
    fn new(query: &Query) -> Prepared {
        match query {
            Query::Regex(r) => Prepared::Regex(r.clone()),
            Query::Tokens(tokens) => Prepared::Tokens(
                tokens
                    .iter()
                    .filter_map(|t| {
                        let (raw, needle, phrase) = match t {
                            Token::Fuzzy(v) => (v.clone(), v.to_lowercase(), false),
                            Token::Phrase(v) => (v.clone(), js::normalize_whitespace_lower(v), true),
                        };
                        (!needle.is_empty()).then(|| PreparedToken::new(raw, needle, phrase))
                    })
                    .collect(),
            ),
        }
    }
}

impl Haystack {
    /// pi's `matchSession`: the total score and the hits, or `None`.
    fn matches(&self, s: &SessionSummary, q: &Prepared) -> Option<(f64, Vec<FieldHit>)> {
        match q {
            Prepared::Regex(re) => self.match_regex(s, re).map(|hit| (tier_of(hit.field), vec![hit])),
            Prepared::Tokens(tokens) => {
                let mut total = 0.0;
                let mut hits = Vec::with_capacity(tokens.len());
                for t in tokens {
                    let (score, found) =
                        if t.phrase { self.match_phrase(s, t)? } else { self.match_fuzzy(s, t)? };
                    total += score;
                    hits.extend(found);
                }
                Some((total, hits))
            }
        }
    }

    fn match_regex(&self, s: &SessionSummary, re: &Regex) -> Option<FieldHit> {
        let hit = |field: Field, text: &str| re.find(text).map(|m| FieldHit { field, range: m.range() });
        s.name
            .as_deref()
            .filter(|n| !n.is_empty())
            .and_then(|n| hit(Field::Name, n))
            .or_else(|| hit(Field::Id, &s.id))
            .or_else(|| hit(Field::Text, &s.all_messages_text))
            .or_else(|| hit(Field::Cwd, &s.cwd))
    }

    /// pi's `matchLiteralToken` (with the needle already lower case).
    fn match_literal(&self, s: &SessionSummary, t: &PreparedToken) -> Option<(f64, Vec<FieldHit>)> {
        if let Some(name) = &self.name
            && let Some(at) = t.finder.find(name.as_bytes())
        {
            let score = fuzzy_match_lower(&t.needle, &self.name16).map_or(0.0, |m| m.score);
            let original = s.name.as_deref().unwrap_or("");
            let hit = t.hit(Field::Name, original, original.is_ascii(), at);
            return Some((TIER_NAME + score, vec![hit]));
        }
        let fields = [
            (Field::Id, &self.id, s.id.as_str(), s.id.is_ascii()),
            (Field::Text, &self.text, s.all_messages_text.as_str(), self.text_ascii),
            (Field::Cwd, &self.cwd, s.cwd.as_str(), s.cwd.is_ascii()),
        ];
        fields.into_iter().find_map(|(field, lower, original, ascii)| {
            t.finder.find(lower.as_bytes()).map(|at| (TIER_TEXT, vec![t.hit(field, original, ascii, at)]))
        })
    }

    /// pi's `matchFuzzyToken`.
    fn match_fuzzy(&self, s: &SessionSummary, t: &PreparedToken) -> Option<(f64, Vec<FieldHit>)> {
        if let Some(found) = self.match_literal(s, t) {
            return Some(found);
        }
        let mut best: Option<(f64, Field, Vec<usize>)> = None;
        for (field, text16) in [(Field::Name, &self.name16), (Field::Cwd, &self.cwd16)] {
            if let Some(m) = fuzzy_match_lower(&t.raw.to_lowercase(), text16)
                && best.as_ref().is_none_or(|(b, _, _)| m.score < *b)
            {
                best = Some((m.score, field, m.positions));
            }
        }
        let (score, field, positions) = best?;
        let original = match field {
            Field::Name => s.name.as_deref().unwrap_or(""),
            _ => s.cwd.as_str(),
        };
        let hits = positions_to_ranges(original, &positions)
            .into_iter()
            .map(|range| FieldHit { field, range })
            .collect();
        Some((TIER_FUZZY + score, hits))
    }

    /// pi's `matchPhraseToken`.
    fn match_phrase(&self, s: &SessionSummary, t: &PreparedToken) -> Option<(f64, Vec<FieldHit>)> {
        let norm = self.norm.get_or_init(|| Normalized {
            name: js::collapse_whitespace(self.name.as_deref().unwrap_or("")),
            text: js::collapse_whitespace(&self.text),
            cwd: js::collapse_whitespace(&self.cwd),
        });
        if let Some(at) = t.finder.find(norm.name.as_bytes()) {
            let name16: Vec<u16> = norm.name.encode_utf16().collect();
            let score = fuzzy_match_lower(&t.needle, &name16).map_or(0.0, |m| m.score);
            let hit = t.hit(Field::Name, s.name.as_deref().unwrap_or(""), false, at);
            return Some((TIER_NAME + score, vec![hit]));
        }
        if let Some(at) = t.finder.find(self.id.as_bytes()) {
            let hit = t.hit(Field::Id, &s.id, false, at);
            return Some((TIER_TEXT, vec![hit]));
        }
        if let Some(at) = t.finder.find(norm.text.as_bytes()) {
            return Some((TIER_TEXT, vec![t.hit(Field::Text, &s.all_messages_text, false, at)]));
        }
        let at = t.finder.find(norm.cwd.as_bytes())?;
        Some((TIER_TEXT, vec![t.hit(Field::Cwd, &s.cwd, false, at)]))
    }
}

fn tier_of(field: Field) -> f64 {
    if field == Field::Name { TIER_NAME } else { TIER_TEXT }
}

/// Walk `original` char by char, lower-casing (and with `collapse`, collapsing whitespace) as the
/// searched text was, until the transformed bytes `at..at+len` are covered.
fn map_range(original: &str, at: usize, len: usize, collapse: bool) -> Range<usize> {
    let end = at + len;
    let mut produced = 0usize;
    let mut start_byte = None;
    let mut pending_space = false;
    let mut started = false;
    let mut buf = String::new();
    for (b, c) in original.char_indices() {
        if collapse && js::is_js_space(c) {
            pending_space = started;
            continue;
        }
        if pending_space {
            produced += 1;
            pending_space = false;
        }
        buf.clear();
        buf.extend(c.to_lowercase());
        started = true;
        let next = produced + buf.len();
        if start_byte.is_none() && next > at {
            start_byte = Some(b);
        }
        produced = next;
        if produced >= end {
            return start_byte.unwrap_or(b)..b + c.len_utf8();
        }
    }
    start_byte.unwrap_or(original.len())..original.len()
}

/// UTF-16 positions in `original.to_lowercase()` as byte ranges of `original` (adjacent ones
/// merged).
fn positions_to_ranges(original: &str, positions: &[usize]) -> Vec<Range<usize>> {
    let mut unit_to_byte = Vec::new();
    for (b, c) in original.char_indices() {
        for l in c.to_lowercase() {
            for _ in 0..l.len_utf16() {
                unit_to_byte.push((b, b + c.len_utf8()));
            }
        }
    }
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for &p in positions {
        let Some(&(s, e)) = unit_to_byte.get(p) else { continue };
        match ranges.last_mut() {
            Some(last) if last.end >= s => last.end = last.end.max(e),
            _ => ranges.push(s..e),
        }
    }
    ranges
}

/// Where each token (or the regex) occurs in the row's displayed title.
fn title_hits(s: &SessionSummary, q: &Prepared) -> Vec<Range<usize>> {
    let title = display_title(s);
    let mut ranges: Vec<Range<usize>> = Vec::new();
    match q {
        Prepared::Regex(re) => ranges.extend(re.find_iter(&title).map(|m| m.range())),
        Prepared::Tokens(tokens) => {
            let lower = title.to_lowercase();
            for t in tokens {
                if t.phrase {
                    let norm = js::collapse_whitespace(&lower);
                    if let Some(at) = t.finder.find(norm.as_bytes()) {
                        ranges.push(t.hit(Field::Name, &title, false, at).range);
                    }
                } else if let Some(at) = t.finder.find(lower.as_bytes()) {
                    ranges.push(t.hit(Field::Name, &title, title.is_ascii(), at).range);
                } else if let Some(m) = fuzzy_match(&t.raw, &title) {
                    ranges.extend(positions_to_ranges(&title, &m.positions));
                }
            }
        }
    }
    ranges.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if last.end >= r.start => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tokens_phrases_and_fallback() {
        let Ok(Query::Tokens(t)) = parse_query(r#"foo "node  cve" bar"#) else { panic!() };
        assert_eq!(
            t,
            [Token::Fuzzy("foo".into()), Token::Phrase("node  cve".into()), Token::Fuzzy("bar".into())]
        );
        let Ok(Query::Tokens(t)) = parse_query(r#""foo bar"#) else { panic!() };
        assert_eq!(t, [Token::Fuzzy("\"foo".into()), Token::Fuzzy("bar".into())]);
        assert!(parse_query("re:").is_err());
        assert!(parse_query("re:(").is_err());
        assert!(matches!(parse_query("  re: a+ "), Ok(Query::Regex(_))));
    }

    #[test]
    fn maps_lowercase_and_normalized_offsets_back() {
        let s = "Straße İX  Ωmega";
        let lower = s.to_lowercase();
        let at = lower.find("ωmega").unwrap();
        assert_eq!(&s[map_range(s, at, "ωmega".len(), false)], "Ωmega");
        let norm = js::normalize_whitespace_lower(s);
        let at = norm.find("x ω").unwrap();
        assert_eq!(&s[map_range(s, at, "x ω".len(), true)], "X  Ω");
        let t = PreparedToken::new("x  ω".into(), "x ω".into(), true);
        assert_eq!(&s[t.hit(Field::Text, s, false, at).range], "X  Ω");
        assert_eq!(positions_to_ranges("aXbc", &[1, 2, 3]), vec![1..4]);
    }
}
