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
//! **Speed**: [`SearchIndex`] lower-cases every field once (the displayed title on its first
//! highlight); one keystroke matches all sessions in parallel with one prepared substring finder
//! per token. Phrases are matched across whitespace runs of the lower-case text, so no
//! whitespace-collapsed copy is built; an ASCII fuzzy token is tested as a subsequence of a field
//! before pi's fuzzy scoring runs on it.

use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use memchr::memmem::Finder;
use rayon::prelude::*;
use regex::Regex;

use super::display::{display_title, is_unsafe_char};
use super::fuzzy::fuzzy_match_lower;
use super::js;
use super::jsregex;
use super::locate::RealPaths;
use super::thread::{self, Node};
use super::{SessionSummary, SessionTexts};

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
        } else if !in_quote && js::is_space(c) {
            flush(&mut buf, &mut tokens, false);
        } else {
            buf.push(c);
        }
    }
    if in_quote {
        return trimmed
            .split(js::is_space)
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
    search_once(sessions, query, sort, named).unwrap_or_default()
}

/// [`SearchIndex::search`] for one query: the fields are lower-cased only when the query is not
/// empty (an empty query needs no index).
pub fn search_once(
    sessions: &[SessionSummary],
    query: &str,
    sort: SortMode,
    named: bool,
) -> Result<Vec<Row>, QueryError> {
    let index = match js::trim(query).is_empty() {
        true => SearchIndex { items: Vec::new(), nodes: OnceLock::new(), texts: None },
        false => SearchIndex::new(sessions),
    };
    index.search(sessions, query, sort, named)
}

/// The lower-cased fields of every session, built once for many keystrokes. It must be used with
/// the same slice it was built from.
pub struct SearchIndex {
    items: Vec<Haystack>,
    nodes: OnceLock<Vec<Node>>,
    /// Texts kept apart from the summaries (see [`SearchIndex::with_texts`]).
    texts: Option<Arc<SessionTexts>>,
}

/// One session's searched fields, lower case (as `str::to_lowercase`, see [`lowercase`]) and, where
/// pi's fuzzy match wants code units, in UTF-16.
struct Haystack {
    id: String,
    name: Option<String>,
    name16: Vec<u16>,
    text: String,
    text_ascii: bool,
    /// An ASCII needle's match in `text` is at the same bytes of the original (see [`lowercase`]).
    text_plain: bool,
    /// Where the original text is in the index's [`SessionTexts`]; `None`: in the summary.
    text_slot: Option<usize>,
    cwd: String,
    cwd16: Vec<u16>,
    /// The displayed title's forms, made on its first highlight.
    title: OnceLock<Title>,
}

/// A session's [`display_title`] as its highlights search it.
struct Title {
    text: String,
    ascii: bool,
    plain: bool,
    lower: String,
    lower16: Vec<u16>,
}

impl Title {
    fn of(s: &SessionSummary) -> Title {
        let text = title_of(s);
        let (lower, plain) = lowercase_plain(&text);
        Title { ascii: text.is_ascii(), plain, lower16: lower.encode_utf16().collect(), lower, text }
    }
}

/// [`display_title`], without its character-by-character copy when the title holds no character
/// to replace.
fn title_of(s: &SessionSummary) -> String {
    let title = s.title();
    match title.chars().any(is_unsafe_char) {
        false => js::trim(title).to_string(),
        true => display_title(s),
    }
}

impl Haystack {
    /// The fields of `s`, its text taken from `texts` (by path) when it is there, else from the
    /// summary.
    fn of(s: &SessionSummary, texts: Option<&SessionTexts>) -> Haystack {
        let slot = texts.and_then(|t| t.position(&s.path));
        let text = match (texts, slot) {
            (Some(t), Some(slot)) => t.text(slot),
            _ => s.all_messages_text.as_str(),
        };
        Haystack::new(s, text, slot)
    }

    fn new(s: &SessionSummary, text: &str, text_slot: Option<usize>) -> Haystack {
        let name = s.name.as_deref().map(lowercase);
        let cwd = lowercase(&s.cwd);
        let (lower_text, text_plain) = lowercase_plain(text);
        Haystack {
            id: lowercase(&s.id),
            name16: name.as_deref().map(|n| n.encode_utf16().collect()).unwrap_or_default(),
            name,
            text: lower_text,
            text_ascii: text.is_ascii(),
            text_plain,
            text_slot,
            cwd16: cwd.encode_utf16().collect(),
            cwd,
            title: OnceLock::new(),
        }
    }
}

/// The path of the session `s` was forked from, as its header writes it.
fn parent_path(s: &SessionSummary) -> Option<&Path> {
    s.parent_session_path.as_deref().map(Path::new)
}

impl SearchIndex {
    pub fn new(sessions: &[SessionSummary]) -> SearchIndex {
        SearchIndex::with_texts(sessions, None, true)
    }

    /// The index of `sessions`, taking the text of a session from `texts` (by path) when it is
    /// there, else from its summary: for summaries listed without their texts
    /// ([`super::DeferredTexts`]). `parallel`: on every core, else on the calling thread alone (a
    /// background build that leaves the other cores to the screen).
    pub fn with_texts(
        sessions: &[SessionSummary],
        texts: Option<Arc<SessionTexts>>,
        parallel: bool,
    ) -> SearchIndex {
        let build = |s: &SessionSummary| Haystack::of(s, texts.as_deref());
        let items = if parallel {
            sessions.par_iter().map(build).collect()
        } else {
            sessions.iter().map(build).collect()
        };
        SearchIndex { items, nodes: OnceLock::new(), texts }
    }

    /// This index for `sessions`, a new order of the list it was built from with sessions added
    /// and left out: `sessions[j]` was at `was[j]` in that list, or is new there (`None`) and has
    /// its fields lower-cased now. Only the new sessions cost anything, so a list that grows while
    /// a query is typed is not indexed again as each file comes in.
    pub fn rearranged(self, sessions: &[SessionSummary], was: &[Option<usize>]) -> SearchIndex {
        let mut old: Vec<Option<Haystack>> = self.items.into_iter().map(Some).collect();
        let mut items: Vec<Option<Haystack>> =
            was.iter().map(|was| was.and_then(|i| old.get_mut(i)?.take())).collect();
        let new: Vec<usize> = (0..items.len()).filter(|&j| items[j].is_none()).collect();
        let built: Vec<Haystack> =
            new.par_iter().map(|&j| Haystack::of(&sessions[j], self.texts.as_deref())).collect();
        for (j, haystack) in new.into_iter().zip(built) {
            items[j] = Some(haystack);
        }
        let items = items.into_iter().map(|h| h.expect("every session kept or built")).collect();
        SearchIndex { items, nodes: OnceLock::new(), texts: self.texts }
    }

    /// The text searched for session `i` (`s`), as written.
    fn original_text<'a>(&'a self, i: usize, s: &'a SessionSummary) -> &'a str {
        match (&self.texts, self.items[i].text_slot) {
            (Some(texts), Some(slot)) => texts.text(slot),
            _ => &s.all_messages_text,
        }
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
        self.search_with(sessions, query, sort, named, true).map(|(rows, _)| rows)
    }

    /// [`SearchIndex::search`] without the match positions (every row's `matches` is empty), for a
    /// list that highlights only the rows it shows: with the prepared query to find a row's title
    /// matches by ([`SearchIndex::title_hits`]); `None` for an empty query.
    pub fn search_unmarked(
        &self,
        sessions: &[SessionSummary],
        query: &str,
        sort: SortMode,
        named: bool,
    ) -> Result<(Vec<Row>, Option<PreparedQuery>), QueryError> {
        self.search_with(sessions, query, sort, named, false)
    }

    /// Where `query` occurs in the displayed title of session `index` (of `sessions`, the slice the
    /// index was built from): what [`Matches::title`] holds for its row.
    pub fn title_hits(
        &self,
        sessions: &[SessionSummary],
        index: usize,
        query: &PreparedQuery,
    ) -> Vec<Range<usize>> {
        match (self.items.get(index), sessions.get(index)) {
            (Some(item), Some(s)) => item.title_hits(s, &query.0),
            _ => Vec::new(),
        }
    }

    fn search_with(
        &self,
        sessions: &[SessionSummary],
        query: &str,
        sort: SortMode,
        named: bool,
        marks: bool,
    ) -> Result<(Vec<Row>, Option<PreparedQuery>), QueryError> {
        let subset: Vec<usize> = (0..sessions.len())
            .filter(|&i| !named || sessions[i].name.as_deref().is_some_and(|n| !js::trim(n).is_empty()))
            .collect();
        if js::trim(query).is_empty() {
            let rows = match sort {
                SortMode::Threaded => self.tree(sessions, &subset),
                _ => subset.into_iter().map(flat_row).collect(),
            };
            return Ok((rows, None));
        }
        let prepared = PreparedQuery::new(query)?;
        let q = &prepared.0;
        let mut rows: Vec<Row> = subset
            .par_iter()
            .filter_map(|&i| {
                let (s, item) = (&sessions[i], &self.items[i]);
                let (score, fields) = item.matches(s, self.original_text(i, s), q, marks)?;
                let title = if marks { item.title_hits(s, q) } else { Vec::new() };
                Some(Row { matches: Matches { title, fields }, score, ..flat_row(i) })
            })
            .collect();
        if sort != SortMode::Recent {
            rows.sort_by(|a, b| {
                a.score
                    .total_cmp(&b.score)
                    .then(sessions[b.index].modified_ms.cmp(&sessions[a.index].modified_ms))
            });
        }
        Ok((rows, Some(prepared)))
    }

    fn tree(&self, sessions: &[SessionSummary], subset: &[usize]) -> Vec<Row> {
        let nodes = self.nodes.get_or_init(|| {
            let real = RealPaths::of(
                sessions.iter().flat_map(|s| [Some(s.path.as_path()), parent_path(s)]).flatten(),
            );
            sessions
                .par_iter()
                .map(|s| Node {
                    key: real.key(&s.path),
                    parent_key: parent_path(s).map(|p| real.key(p)),
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

/// A query parsed once and ready to run, for [`SearchIndex::title_hits`].
pub struct PreparedQuery(Prepared);

impl PreparedQuery {
    /// Parse `query` (see [`parse_query`]).
    pub fn new(query: &str) -> Result<PreparedQuery, QueryError> {
        Ok(PreparedQuery(Prepared::new(&parse_query(query)?)))
    }
}

impl std::fmt::Debug for PreparedQuery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PreparedQuery")
    }
}

/// A query ready to run: lower-cased tokens with their substring finders.
enum Prepared {
    Tokens(Vec<PreparedToken>),
    Regex(Regex),
}

struct PreparedToken {
    /// Lower case (fuzzy; also what pi's fuzzy match compares) or normalized (phrase).
    needle: String,
    finder: Finder<'static>,
    phrase: bool,
    /// A phrase's words after the first (its single spaces split it), matched across whitespace
    /// runs by [`PreparedToken::find_phrase`]; the first word is `first`.
    rest_words: Vec<String>,
    first: Finder<'static>,
    /// A fuzzy needle whose subsequence test can go byte by byte over the lower-case UTF-8 text (an
    /// ASCII needle with no letters-digits swapped form).
    subsequence_prefilter: bool,
    needle_ascii: bool,
    /// Finds the token in an original (not lower-cased, not normalized) field, for its position.
    locator: Option<Regex>,
}

impl PreparedToken {
    fn new(needle: String, phrase: bool) -> PreparedToken {
        let words: Vec<String> = needle.split(' ').map(regex::escape).collect();
        let pattern = words.join(r"[\s\x{FEFF}]+");
        let mut split = needle.split(' ');
        let first = split.next().unwrap_or_default();
        let rest_words: Vec<String> = if phrase { split.map(str::to_string).collect() } else { Vec::new() };
        let alnum = needle.bytes().all(|b| b.is_ascii_alphanumeric());
        let swappable = alnum
            && needle.bytes().any(|b| b.is_ascii_digit())
            && needle.bytes().any(|b| !b.is_ascii_digit());
        PreparedToken {
            finder: Finder::new(needle.as_bytes()).into_owned(),
            first: Finder::new(if phrase { first } else { &needle }).into_owned(),
            rest_words,
            subsequence_prefilter: needle.is_ascii() && !swappable,
            needle_ascii: needle.is_ascii(),
            locator: regex::RegexBuilder::new(&pattern).case_insensitive(true).build().ok(),
            needle,
            phrase,
        }
    }

    /// The hit for a match at byte `at()` of the searched (lower-cased, for phrases also
    /// normalized) form of `original`. Literals in an ASCII original map one to one (`ascii`; also
    /// an ASCII needle in a plain original, see [`lowercase_plain`]); otherwise the locator finds
    /// the first occurrence in the original, falling back to walking the text.
    fn hit(&self, field: Field, original: &str, ascii: bool, at: impl FnOnce() -> usize) -> FieldHit {
        let len = self.needle.len();
        let range = if ascii && !self.phrase {
            let at = at();
            at..at + len
        } else {
            self.locator
                .as_ref()
                .and_then(|re| re.find(original))
                .map(|m| m.range())
                .unwrap_or_else(|| map_range(original, at(), len, self.phrase))
        };
        FieldHit { field, range }
    }

    /// Where this phrase first occurs in `js::collapse_whitespace(lower)`, found without building
    /// that string: the byte in `lower` where the occurrence starts (see [`normalized_offset`]). The
    /// words must follow each other across one whitespace run each; the first may end a word of
    /// `lower` and the last may begin one, as in a substring search of the collapsed text.
    fn find_phrase(&self, lower: &str) -> Option<usize> {
        if self.rest_words.is_empty() {
            return self.finder.find(lower.as_bytes());
        }
        let bytes = lower.as_bytes();
        let first_len = self.first.needle().len();
        let mut from = 0;
        while let Some(found) = self.first.find(&bytes[from..]) {
            let start = from + found;
            if self.rest_follows(lower, start + first_len) {
                return Some(start);
            }
            from = start + 1;
        }
        None
    }

    /// Whether the words after the first follow at byte `at` of `lower`, each after a whitespace
    /// run.
    fn rest_follows(&self, lower: &str, mut at: usize) -> bool {
        for word in &self.rest_words {
            let rest = &lower[at..];
            let run = rest.char_indices().find(|&(_, c)| !js::is_space(c)).map_or(rest.len(), |(i, _)| i);
            if run == 0 || !rest[run..].starts_with(word.as_str()) {
                return false;
            }
            at += run + word.len();
        }
        true
    }

    /// Whether a literal match of this token in a field maps one to one onto the original field
    /// (see [`PreparedToken::hit`]).
    fn maps_plainly(&self, ascii: bool, plain: bool) -> bool {
        ascii || (self.needle_ascii && plain)
    }

    /// Whether pi's fuzzy match of this token can succeed on a field whose lower case is `lower`
    /// (`false` only when it cannot).
    fn may_fuzzy_match(&self, lower: &str) -> bool {
        !self.subsequence_prefilter || is_subsequence(self.needle.as_bytes(), lower.as_bytes())
    }
}

/// Whether `needle` is a subsequence of `hay`. For an ASCII needle over UTF-8 text this is the same
/// test over UTF-16 code units (an ASCII byte only equals an ASCII character).
fn is_subsequence(needle: &[u8], hay: &[u8]) -> bool {
    let mut at = 0;
    for &b in needle {
        match memchr::memchr(b, &hay[at..]) {
            Some(i) => at += i + 1,
            None => return false,
        }
    }
    true
}

/// The byte offset in `js::collapse_whitespace(s)` of the character at byte `at` of `s` (a
/// character that is not whitespace).
fn normalized_offset(s: &str, at: usize) -> usize {
    let mut offset = 0;
    let mut pending_space = false;
    for c in s[..at].chars() {
        if js::is_space(c) {
            pending_space = offset > 0;
        } else {
            offset += usize::from(pending_space) + c.len_utf8();
            pending_space = false;
        }
    }
    offset + usize::from(pending_space)
}

/// `s.to_lowercase()`.
fn lowercase(s: &str) -> String {
    lowercase_plain(s).0
}

/// `s.to_lowercase()`, faster on mostly-ASCII text: ASCII runs are lower-cased in bulk, every
/// other character as `to_lowercase` does it. A text with a capital sigma (whose lower case depends
/// on the characters around it) goes through `to_lowercase` itself.
///
/// Also whether `s` is *plain*: every character's lower case has its length in bytes, and none is
/// `ſ` (U+017F). In a plain text a case-insensitive match of an ASCII literal (the locator regex)
/// is exactly where the literal occurs in the lower case, at the same bytes: the characters
/// case-equivalent to ASCII letters are ASCII letters, `K` (U+212A, whose lower case is shorter)
/// and `ſ`; and a lower case that holds ASCII comes from ASCII, `K` or `İ` (longer lower case).
fn lowercase_plain(s: &str) -> (String, bool) {
    if s.is_ascii() {
        return (s.to_ascii_lowercase(), true);
    }
    let same_len = |c: char| c != 'ſ' && c.to_lowercase().map(char::len_utf8).sum::<usize>() == c.len_utf8();
    if s.contains('Σ') {
        return (s.to_lowercase(), s.chars().all(same_len));
    }
    let mut out = String::with_capacity(s.len());
    let mut plain = true;
    let mut rest = s;
    while !rest.is_empty() {
        let ascii = ascii_prefix_len(rest.as_bytes());
        let start = out.len();
        out.push_str(&rest[..ascii]);
        out[start..].make_ascii_lowercase();
        rest = &rest[ascii..];
        let mut other = 0;
        for c in rest.chars().take_while(|c| !c.is_ascii()) {
            let before = out.len();
            out.extend(c.to_lowercase());
            plain &= c != 'ſ' && out.len() - before == c.len_utf8();
            other += c.len_utf8();
        }
        rest = &rest[other..];
    }
    (out, plain)
}

/// How many bytes at the start of `b` are ASCII.
fn ascii_prefix_len(b: &[u8]) -> usize {
    let mut i = 0;
    while let Some(word) = b.get(i..i + 8) {
        if u64::from_le_bytes(word.try_into().unwrap_or_default()) & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        i += 8;
    }
    i + b[i..].iter().take_while(|c| c.is_ascii()).count()
}

impl Prepared {
    fn new(query: &Query) -> Prepared {
        match query {
            Query::Regex(r) => Prepared::Regex(r.clone()),
            Query::Tokens(tokens) => Prepared::Tokens(
                tokens
                    .iter()
                    .filter_map(|t| {
                        let (needle, phrase) = match t {
                            Token::Fuzzy(v) => (v.to_lowercase(), false),
                            Token::Phrase(v) => (js::normalize_whitespace_lower(v), true),
                        };
                        (!needle.is_empty()).then(|| PreparedToken::new(needle, phrase))
                    })
                    .collect(),
            ),
        }
    }
}

impl Haystack {
    /// pi's `matchSession` (`text`: the session's text as written): the total score and, with
    /// `marks`, the hits; or `None`.
    fn matches(
        &self,
        s: &SessionSummary,
        text: &str,
        q: &Prepared,
        marks: bool,
    ) -> Option<(f64, Vec<FieldHit>)> {
        match q {
            Prepared::Regex(re) => {
                let (field, hit) = self.match_regex(s, text, re, marks)?;
                Some((tier_of(field), hit.into_iter().collect()))
            }
            Prepared::Tokens(tokens) => {
                let mut total = 0.0;
                let mut hits = Vec::with_capacity(if marks { tokens.len() } else { 0 });
                for t in tokens {
                    let (score, found) = if t.phrase {
                        self.match_phrase(s, text, t, marks)?
                    } else {
                        self.match_fuzzy(s, text, t, marks)?
                    };
                    total += score;
                    hits.extend(found);
                }
                Some((total, hits))
            }
        }
    }

    /// The first field `re` matches in, with the match when `marks`.
    fn match_regex(
        &self,
        s: &SessionSummary,
        text: &str,
        re: &Regex,
        marks: bool,
    ) -> Option<(Field, Option<FieldHit>)> {
        let hit = |field: Field, text: &str| match marks {
            true => re.find(text).map(|m| (field, Some(FieldHit { field, range: m.range() }))),
            false => re.is_match(text).then_some((field, None)),
        };
        s.name
            .as_deref()
            .filter(|n| !n.is_empty())
            .and_then(|n| hit(Field::Name, n))
            .or_else(|| hit(Field::Id, &s.id))
            .or_else(|| hit(Field::Text, text))
            .or_else(|| hit(Field::Cwd, &s.cwd))
    }

    /// pi's `matchLiteralToken` (with the needle already lower case).
    fn match_literal(
        &self,
        s: &SessionSummary,
        text: &str,
        t: &PreparedToken,
        marks: bool,
    ) -> Option<(f64, Vec<FieldHit>)> {
        if let Some(name) = &self.name
            && let Some(at) = t.finder.find(name.as_bytes())
        {
            let score = fuzzy_match_lower(&t.needle, &self.name16).map_or(0.0, |m| m.score);
            let original = s.name.as_deref().unwrap_or("");
            let hits = marks.then(|| t.hit(Field::Name, original, original.is_ascii(), || at));
            return Some((TIER_NAME + score, hits.into_iter().collect()));
        }
        let fields = [
            (Field::Id, &self.id, s.id.as_str(), s.id.is_ascii()),
            (Field::Text, &self.text, text, t.maps_plainly(self.text_ascii, self.text_plain)),
            (Field::Cwd, &self.cwd, s.cwd.as_str(), s.cwd.is_ascii()),
        ];
        fields.into_iter().find_map(|(field, lower, original, ascii)| {
            let at = t.finder.find(lower.as_bytes())?;
            let hits = marks.then(|| t.hit(field, original, ascii, || at));
            Some((TIER_TEXT, hits.into_iter().collect()))
        })
    }

    /// pi's `matchFuzzyToken`.
    fn match_fuzzy(
        &self,
        s: &SessionSummary,
        text: &str,
        t: &PreparedToken,
        marks: bool,
    ) -> Option<(f64, Vec<FieldHit>)> {
        if let Some(found) = self.match_literal(s, text, t, marks) {
            return Some(found);
        }
        let mut best: Option<(f64, Field, Vec<usize>)> = None;
        let name = self.name.as_deref().unwrap_or("");
        for (field, lower, text16) in
            [(Field::Name, name, &self.name16), (Field::Cwd, &self.cwd, &self.cwd16)]
        {
            if t.may_fuzzy_match(lower)
                && let Some(m) = fuzzy_match_lower(&t.needle, text16)
                && best.as_ref().is_none_or(|(b, _, _)| m.score < *b)
            {
                best = Some((m.score, field, m.positions));
            }
        }
        let (score, field, positions) = best?;
        if !marks {
            return Some((TIER_FUZZY + score, Vec::new()));
        }
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

    /// pi's `matchPhraseToken` (over the whitespace-collapsed fields, see
    /// [`PreparedToken::find_phrase`]).
    fn match_phrase(
        &self,
        s: &SessionSummary,
        text: &str,
        t: &PreparedToken,
        marks: bool,
    ) -> Option<(f64, Vec<FieldHit>)> {
        let hit = |field: Field, original: &str, lower: &str, at: usize| match marks {
            true => vec![t.hit(field, original, false, || normalized_offset(lower, at))],
            false => Vec::new(),
        };
        if let Some(name) = &self.name
            && let Some(at) = t.find_phrase(name)
        {
            let name16: Vec<u16> = js::collapse_whitespace(name).encode_utf16().collect();
            let score = fuzzy_match_lower(&t.needle, &name16).map_or(0.0, |m| m.score);
            return Some((TIER_NAME + score, hit(Field::Name, s.name.as_deref().unwrap_or(""), name, at)));
        }
        if let Some(at) = t.finder.find(self.id.as_bytes()) {
            // The id is searched as it is (not collapsed), so its offset needs no mapping.
            let hits = marks.then(|| t.hit(Field::Id, &s.id, false, || at));
            return Some((TIER_TEXT, hits.into_iter().collect()));
        }
        if let Some(at) = t.find_phrase(&self.text) {
            return Some((TIER_TEXT, hit(Field::Text, text, &self.text, at)));
        }
        let at = t.find_phrase(&self.cwd)?;
        Some((TIER_TEXT, hit(Field::Cwd, &s.cwd, &self.cwd, at)))
    }

    /// Where each token (or the regex) occurs in the row's displayed title (`s`: this session).
    fn title_hits(&self, s: &SessionSummary, q: &Prepared) -> Vec<Range<usize>> {
        let forms = self.title.get_or_init(|| Title::of(s));
        let title = forms.text.as_str();
        let mut ranges: Vec<Range<usize>> = Vec::new();
        match q {
            Prepared::Regex(re) => ranges.extend(re.find_iter(title).map(|m| m.range())),
            Prepared::Tokens(tokens) => {
                let lower = forms.lower.as_str();
                for t in tokens {
                    if t.phrase {
                        if let Some(at) = t.find_phrase(lower) {
                            ranges.push(
                                t.hit(Field::Name, title, false, || normalized_offset(lower, at)).range,
                            );
                        }
                    } else if let Some(at) = t.finder.find(lower.as_bytes()) {
                        let plainly = t.maps_plainly(forms.ascii, forms.plain);
                        ranges.push(t.hit(Field::Name, title, plainly, || at).range);
                    } else if t.may_fuzzy_match(lower)
                        && let Some(m) = fuzzy_match_lower(&t.needle, &forms.lower16)
                    {
                        ranges.extend(positions_to_ranges(title, &m.positions));
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
        if collapse && js::is_space(c) {
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
    let mut ranges: Vec<Range<usize>> = Vec::new();
    let mut add = |(s, e): (usize, usize)| match ranges.last_mut() {
        Some(last) if last.end >= s => last.end = last.end.max(e),
        _ => ranges.push(s..e),
    };
    if original.is_ascii() {
        // One byte, one character, one lower-case code unit.
        positions.iter().filter(|&&p| p < original.len()).for_each(|&p| add((p, p + 1)));
        return ranges;
    }
    if positions.is_sorted() {
        // One walk up to the last position, counting the lower case's code units.
        let mut wanted = positions.iter().copied().peekable();
        let mut unit = 0;
        for (b, c) in original.char_indices() {
            if wanted.peek().is_none() {
                break;
            }
            unit += match c.is_ascii() {
                true => 1,
                false => c.to_lowercase().map(char::len_utf16).sum(),
            };
            while wanted.next_if(|&p| p < unit).is_some() {
                add((b, b + c.len_utf8()));
            }
        }
        return ranges;
    }
    let mut unit_to_byte = Vec::new();
    for (b, c) in original.char_indices() {
        for l in c.to_lowercase() {
            for _ in 0..l.len_utf16() {
                unit_to_byte.push((b, b + c.len_utf8()));
            }
        }
    }
    for &p in positions {
        if let Some(&range) = unit_to_byte.get(p) {
            add(range);
        }
    }
    ranges
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
        let t = PreparedToken::new("x ω".into(), true);
        assert_eq!(&s[t.hit(Field::Text, s, false, || at).range], "X  Ω");
        assert_eq!(positions_to_ranges("aXbc", &[1, 2, 3]), vec![1..4]);
    }

    /// The characters the properties below build texts from: ASCII, whitespace JavaScript counts
    /// (and U+0085, which it does not), letters whose lower case is longer or context-dependent.
    const ALPHABET: &[char] = &[
        'a', 'b', 'A', 'B', ' ', ' ', '\t', '\n', '\u{a0}', '\u{3000}', '\u{feff}', '\u{85}', 'é', 'É', 'Σ',
        'σ', 'İ', 'ß', 'ẞ', '😀', 'K', '\u{212a}',
    ];

    fn text_of(picks: &[usize]) -> String {
        picks.iter().map(|&i| ALPHABET[i % ALPHABET.len()]).collect()
    }

    /// The former per-character walk over the whole string.
    fn positions_to_ranges_reference(original: &str, positions: &[usize]) -> Vec<Range<usize>> {
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

    /// What [`lowercase_plain`] relies on, over every character: the only non-ASCII characters a
    /// case-insensitive regex matches for an ASCII letter are `K` (U+212A) and `ſ`, and the only
    /// non-ASCII characters whose lower case holds ASCII are `K` and `İ` (both change length).
    #[test]
    fn ascii_case_equivalents_are_known() {
        let letter = Regex::new("(?i)^[a-z]$").unwrap();
        let mut buf = [0u8; 4];
        for c in (0x80..=0x10ffff).filter_map(char::from_u32) {
            let s = c.encode_utf8(&mut buf);
            assert_eq!(letter.is_match(s), matches!(c, '\u{212a}' | 'ſ'), "{c:?}");
            let ascii_lower = c.to_lowercase().any(|l| l.is_ascii());
            assert_eq!(ascii_lower, matches!(c, '\u{212a}' | '\u{130}'), "{c:?}");
        }
        assert!(!lowercase_plain("Ab\u{212a}").1);
        assert!(!lowercase_plain("Abſ").1);
        assert!(lowercase_plain("Ab — é 😀").1);
    }

    #[test]
    fn plain_text_hits_are_where_the_locator_finds_them() {
        let s = vec![SessionSummary {
            id: "x".into(),
            all_messages_text: "ÉÉ — the Render TIMEOUT 😀, render timeout".into(),
            first_message: "ÉÉ — the Render TIMEOUT".into(),
            ..SessionSummary::default()
        }];
        let rows = SearchIndex::new(&s).filter_and_sort(&s, "timeout render", SortMode::Recent, false);
        let text = &s[0].all_messages_text;
        let fields: Vec<&str> = rows[0].matches.fields.iter().map(|h| &text[h.range.clone()]).collect();
        assert_eq!(fields, ["TIMEOUT", "Render"]);
        let title = display_title(&s[0]);
        let title_hits: Vec<&str> = rows[0].matches.title.iter().map(|r| &title[r.clone()]).collect();
        assert_eq!(title_hits, ["Render", "TIMEOUT"]);
    }

    #[test]
    fn titles_are_the_displayed_titles() {
        let titles = [
            "  plain title ",
            "tab\there",
            "del\u{7f}",
            "é — “quotes” 😀",
            "c1 \u{85} and \u{9f}",
            "bidi \u{202e}x\u{2066}y\u{200f}z\u{61c}",
            "near misses \u{2067}\u{202f}\u{2010}\u{a0}\u{61b}",
            "\u{feff} bom trimmed \u{3000}",
        ];
        for t in titles {
            let s = SessionSummary { first_message: t.into(), ..SessionSummary::default() };
            assert_eq!(title_of(&s), display_title(&s), "{t:?}");
        }
        let mut buf = [0u8; 4];
        for c in (0..0x3000u32).filter_map(char::from_u32) {
            let s = SessionSummary {
                first_message: format!("a{}b", c.encode_utf8(&mut buf)),
                ..SessionSummary::default()
            };
            assert_eq!(title_of(&s), display_title(&s), "{c:?}");
        }
    }

    #[test]
    fn lowercase_is_to_lowercase() {
        for s in ["", "ABC def", "ÀÉ Straße İX  Ωmega ΣΑΣ", "AΣ b", "x😀Y", "\u{212a}elvin", "ẞ"]
        {
            assert_eq!(lowercase(s), s.to_lowercase(), "{s:?}");
        }
    }

    fn summary(n: usize, words: &[&str]) -> SessionSummary {
        SessionSummary {
            path: format!("/s/{n}.jsonl").into(),
            id: format!("id-{n}"),
            cwd: format!("/home/{}", words[n % words.len()]),
            first_message: words[(n * 7) % words.len()].into(),
            all_messages_text: format!("{} {}", words[(n * 3) % words.len()], words[(n * 5) % words.len()]),
            modified_ms: (n as i64 * 37) % 101,
            ..SessionSummary::default()
        }
    }

    proptest::proptest! {
        #[test]
        fn a_rearranged_index_searches_as_one_built_anew(
            before in proptest::collection::vec(0usize..60, 0..30),
            keep in proptest::collection::vec(proptest::bool::ANY, 30),
            added in proptest::collection::vec(60usize..90, 0..20),
            query in proptest::sample::select(vec!["alp", "beta gam", "\"delta e\"", "re:^ga", "home"]),
        ) {
            let words = ["alpha", "beta", "gamma", "delta epsilon", "Ωmega", "gap"];
            let mut old: Vec<SessionSummary> = before.iter().map(|&n| summary(n, &words)).collect();
            old.dedup_by(|a, b| a.path == b.path);
            let index = SearchIndex::new(&old);
            let mut now: Vec<(SessionSummary, Option<usize>)> = old
                .iter()
                .enumerate()
                .filter(|(i, _)| keep[*i % keep.len()])
                .map(|(i, s)| (s.clone(), Some(i)))
                .chain(added.iter().map(|&n| (summary(n, &words), None)))
                .collect();
            now.sort_by_key(|(s, _)| (s.modified_ms, s.path.clone()));
            let (sessions, was): (Vec<SessionSummary>, Vec<Option<usize>>) = now.into_iter().unzip();
            let rearranged = index.rearranged(&sessions, &was);
            for sort in [SortMode::Threaded, SortMode::Recent, SortMode::Relevance] {
                proptest::prop_assert_eq!(
                    rearranged.search(&sessions, query, sort, false).ok(),
                    SearchIndex::new(&sessions).search(&sessions, query, sort, false).ok()
                );
            }
        }

        #[test]
        fn lowercase_matches_std(picks in proptest::collection::vec(0usize..64, 0..40)) {
            let s = text_of(&picks);
            proptest::prop_assert_eq!(lowercase(&s), s.to_lowercase());
        }

        #[test]
        fn phrases_match_as_in_the_collapsed_text(
            text in proptest::collection::vec(0usize..64, 0..40),
            phrase in proptest::collection::vec(0usize..64, 1..8),
        ) {
            let original = text_of(&text);
            let lower = lowercase(&original);
            // Half of the phrases are cut from the text itself, so they mostly match.
            let chars: Vec<char> = original.chars().collect();
            let cut: String = match phrase[0] % 2 {
                0 if !chars.is_empty() => {
                    let from = phrase[1 % phrase.len()] % chars.len();
                    chars[from..].iter().take(phrase.len() * 2).collect()
                }
                _ => text_of(&phrase),
            };
            let needle = js::normalize_whitespace_lower(&cut);
            if needle.is_empty() {
                return Ok(());
            }
            let t = PreparedToken::new(needle.clone(), true);
            let collapsed = js::collapse_whitespace(&lower);
            let expected = collapsed.find(&needle);
            let found = t.find_phrase(&lower).map(|at| normalized_offset(&lower, at));
            proptest::prop_assert_eq!(found, expected, "{:?} in {:?}", needle, lower);
        }

        #[test]
        fn ranges_of_positions_are_unchanged(
            text in proptest::collection::vec(0usize..64, 0..30),
            positions in proptest::collection::vec(0usize..40, 0..6),
        ) {
            let s = text_of(&text);
            let mut positions = positions;
            positions.sort_unstable();
            positions.dedup();
            proptest::prop_assert_eq!(positions_to_ranges(&s, &positions), positions_to_ranges_reference(&s, &positions));
            let ascii: String = s.chars().filter(char::is_ascii).collect();
            proptest::prop_assert_eq!(
                positions_to_ranges(&ascii, &positions),
                positions_to_ranges_reference(&ascii, &positions)
            );
        }
    }
}
