//! The picker's search, sorting and threading pinned to pi's behaviors (pi-reference §5, 66–74 and
//! 87–89). Where pi 1.6.0's code differs from the reference's older description (72), the 1.6.0
//! result is asserted and the difference named.

use std::path::PathBuf;

use pitree::catalog::SessionSummary;
use pitree::catalog::display::display_title;
use pitree::catalog::search::{
    Field, Query, Row, SearchIndex, SortMode, Token, filter_and_sort, parse_query,
};

fn session(id: &str, text: &str, modified: i64) -> SessionSummary {
    SessionSummary {
        path: PathBuf::from(format!("/s/{id}.jsonl")),
        id: id.to_string(),
        cwd: "/home/u/proj".to_string(),
        first_message: text.to_string(),
        all_messages_text: text.to_string(),
        modified_ms: modified,
        ..Default::default()
    }
}

fn named(id: &str, name: Option<&str>, text: &str, modified: i64) -> SessionSummary {
    SessionSummary { name: name.map(str::to_string), ..session(id, text, modified) }
}

fn child(id: &str, parent: &str, modified: i64) -> SessionSummary {
    SessionSummary { parent_session_path: Some(format!("/s/{parent}.jsonl")), ..session(id, id, modified) }
}

fn ids(sessions: &[SessionSummary], rows: &[Row]) -> Vec<String> {
    rows.iter().map(|r| sessions[r.index].id.clone()).collect()
}

fn run(sessions: &[SessionSummary], q: &str, sort: SortMode) -> Vec<String> {
    ids(sessions, &filter_and_sort(sessions, q, sort, false))
}

fn tree(sessions: &[SessionSummary]) -> Vec<String> {
    filter_and_sort(sessions, "", SortMode::Threaded, false)
        .iter()
        .map(|r| format!("{}{}", r.depth_prefix, sessions[r.index].id))
        .collect()
}

/// 66: Ctrl+S cycles Threaded → Recent → Fuzzy → Threaded.
#[test]
fn sort_modes_cycle() {
    let mut mode = SortMode::default();
    let mut labels = vec![mode.label()];
    for _ in 0..3 {
        mode = mode.next();
        labels.push(mode.label());
    }
    assert_eq!(labels, ["Threaded", "Recent", "Fuzzy", "Threaded"]);
}

/// 67: a phrase matches across collapsed whitespace.
#[test]
fn phrase_matches_with_whitespace_normalized() {
    let s = vec![session("a", "node\n\n   cve was discussed", 1), session("b", "node and cve", 2)];
    assert_eq!(run(&s, r#""node cve""#, SortMode::Recent), ["a"]);
    let rows = filter_and_sort(&s, r#""NODE   cve""#, SortMode::Recent, false);
    let hit = &rows[0].matches.fields[0];
    assert_eq!(hit.field, Field::Text);
    assert_eq!(&s[0].all_messages_text[hit.range.clone()], "node\n\n   cve");
}

/// 68: `re:` is case-insensitive with JavaScript's ASCII word boundary.
#[test]
fn regex_word_boundary() {
    let s = vec![session("a", "Brave is great", 2), session("b", "bravery is not the same", 1)];
    assert_eq!(run(&s, r"re:\bbrave\b", SortMode::Recent), ["a"]);
}

/// 69: an invalid or empty regex gives an empty list, also in threaded mode.
#[test]
fn invalid_regex_gives_nothing() {
    let s = vec![session("a", "(", 1)];
    for q in ["re:(", "re:", "re:   "] {
        for sort in [SortMode::Threaded, SortMode::Recent, SortMode::Relevance] {
            assert!(run(&s, q, sort).is_empty(), "{q} {sort:?}");
        }
        assert!(parse_query(q).is_err());
    }
    let index = SearchIndex::new(&s);
    let err = index.search(&s, "re:(", SortMode::Recent, false).unwrap_err();
    assert!(err.to_string().starts_with("invalid regex"));
}

/// 70: an unclosed quote falls back to fuzzy tokens that keep the quote.
#[test]
fn unclosed_quote_falls_back_to_fuzzy_tokens() {
    let Ok(Query::Tokens(tokens)) = parse_query(r#""foo bar"#) else { panic!() };
    assert_eq!(tokens, [Token::Fuzzy("\"foo".into()), Token::Fuzzy("bar".into())]);
    let s = vec![session("a", r#"say "foo and bar"#, 2), session("b", "foo bar", 1)];
    assert_eq!(run(&s, r#""foo bar"#, SortMode::Recent), ["a"]);
}

/// 71: Recent with a query filters and keeps the list order.
#[test]
fn recent_keeps_order() {
    let s = vec![
        session("newer", "xxxx brave", 3),
        session("older", "brave xxxx", 2),
        session("nomatch", "nothing", 1),
    ];
    assert_eq!(run(&s, "brave", SortMode::Recent), ["newer", "older"]);
    assert_eq!(run(&s, r#""brave""#, SortMode::Recent), ["newer", "older"]);
}

/// 72: relevance sorts by ascending score, ties by `modified` newest first. pi 0.58 scored a text
/// hit by its index (so "brave xxxx" came first); pi 1.6.0 scores every message hit the same
/// (tier 1), so the two tie and the newer comes first. A hit in the name beats both.
#[test]
fn relevance_orders_by_tier_then_modified() {
    let s = vec![
        session("newer", "xxxx brave", 3),
        session("older", "brave xxxx", 2),
        named("titled", Some("Brave new world"), "nothing", 1),
    ];
    assert_eq!(run(&s, "brave", SortMode::Relevance), ["titled", "newer", "older"]);
    assert_eq!(run(&s, r#""brave""#, SortMode::Relevance), ["titled", "newer", "older"]);
    let rows = filter_and_sort(&s, "brave", SortMode::Relevance, false);
    assert!(rows[0].score < 1_000_000.0 && rows[1].score == 1_000_000.0);
}

/// Fuzzy tokens match messages and ids only literally; scattered matches count in the name and
/// the cwd (pi 1.6.0), and several tokens add up.
#[test]
fn fuzzy_tiers_and_sums() {
    let s = vec![
        named("a", Some("refactor auth middleware"), "unrelated", 3),
        session("b", "r e f a c t o r scattered in text", 2),
        SessionSummary { cwd: "/work/rfctr".into(), ..session("c", "x", 1) },
    ];
    assert_eq!(run(&s, "rfctr", SortMode::Relevance), ["c", "a"]);
    let rows = filter_and_sort(&s, "rfctr auth", SortMode::Relevance, false);
    assert_eq!(ids(&s, &rows), ["a"]);
    let name_only = filter_and_sort(&s, "rfctr", SortMode::Relevance, false);
    let a = name_only.iter().find(|r| s[r.index].id == "a").unwrap();
    assert!(a.score > 1_500_000.0, "a scattered name match is in the fuzzy tier");
    assert!(
        (rows[0].score - (a.score + filter_and_sort(&s, "auth", SortMode::Relevance, false)[0].score)).abs()
            < 1e-9
    );
}

/// 73: threaded with a query is a flat list in relevance order.
#[test]
fn threaded_with_a_query_is_flat_relevance() {
    let s = vec![
        session("root", "brave root", 3),
        child("kid", "root", 2),
        named("named", Some("brave"), "x", 1),
    ];
    let rows = filter_and_sort(&s, "brave", SortMode::Threaded, false);
    assert_eq!(ids(&s, &rows), ["named", "root"]);
    assert!(rows.iter().all(|r| r.depth_prefix.is_empty() && r.depth == 0));
}

/// 74: the named filter applies first; empty and whitespace-only names do not count.
#[test]
fn named_filter() {
    let s = vec![
        named("p", Some("My Project"), "blueberry", 4),
        named("q", Some("Another Named"), "blueberry", 3),
        named("r", None, "blueberry", 2),
        named("s", Some("   "), "blueberry", 1),
    ];
    let rows = filter_and_sort(&s, "blueberry", SortMode::Relevance, true);
    assert_eq!(ids(&s, &rows), ["p", "q"]);
    assert_eq!(ids(&s, &filter_and_sort(&s, "", SortMode::Threaded, true)), ["p", "q"]);
}

/// 87: a child is indented under its parent; with two children the older-activity one is last.
#[test]
fn threaded_prefixes() {
    let s = vec![session("S", "s", 10), child("C", "S", 5)];
    assert_eq!(tree(&s), ["S", "   └─ C"]);
    let s = vec![session("S", "s", 10), child("new", "S", 8), child("old", "S", 6), child("grand", "new", 7)];
    assert_eq!(tree(&s), ["S", "   ├─ new", "   │  └─ grand", "   └─ old"]);
}

/// 88: a parent sorts by the latest activity in its subtree.
#[test]
fn subtree_activity_orders_roots() {
    let s = vec![session("R", "r", 50), session("S", "s", 40), child("C", "S", 60)];
    let s = {
        let mut s = s;
        pitree::catalog::sort_recent(&mut s, pitree::catalog::TieBreak::Mtime);
        s
    };
    assert_eq!(tree(&s), ["S", "   └─ C", "R"]);
}

/// 89: sessions whose parents point at each other (or at themselves) are roots, not dropped.
#[test]
fn parent_cycles_are_roots() {
    let s = vec![child("A", "B", 3), child("B", "A", 2), child("self", "self", 1)];
    assert_eq!(tree(&s), ["A", "B", "self"]);
}

/// Parents are matched by canonical path, so a symlinked folder still links the fork.
#[test]
fn parents_match_by_canonical_path() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::write(real.join("p.jsonl"), "").unwrap();
    std::fs::write(real.join("c.jsonl"), "").unwrap();
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let s = vec![
        SessionSummary { path: real.join("p.jsonl"), id: "P".into(), modified_ms: 2, ..Default::default() },
        SessionSummary {
            path: real.join("c.jsonl"),
            id: "C".into(),
            parent_session_path: Some(link.join("p.jsonl").display().to_string()),
            modified_ms: 1,
            ..Default::default()
        },
    ];
    assert_eq!(tree(&s), ["P", "   └─ C"]);
}

/// An empty query keeps the list order in Recent and Relevance.
#[test]
fn empty_query_keeps_order() {
    let s = vec![session("a", "x", 1), session("b", "y", 2)];
    assert_eq!(run(&s, "  ", SortMode::Relevance), ["a", "b"]);
    assert_eq!(run(&s, "", SortMode::Recent), ["a", "b"]);
}

/// Match positions: ranges in the displayed title and in the matched field.
#[test]
fn match_positions_for_highlighting() {
    let s = vec![
        named("a", Some("\u{1b}[1mAuth Refactor"), "we refactor the AUTH layer", 2),
        session("b", "Ünïcode ÄUTH here", 1),
    ];
    let rows = filter_and_sort(&s, "auth", SortMode::Recent, false);
    let title_a = display_title(&s[0]);
    assert_eq!(rows[0].matches.title.iter().map(|r| &title_a[r.clone()]).collect::<Vec<_>>(), ["Auth"]);
    assert_eq!(rows[0].matches.fields[0].field, Field::Name);
    let rows = filter_and_sort(&s, "äuth", SortMode::Recent, false);
    let hit_b = &rows[0].matches.fields[0];
    assert_eq!(hit_b.field, Field::Text);
    assert_eq!(&s[1].all_messages_text[hit_b.range.clone()], "ÄUTH");
    let fuzzy = filter_and_sort(&s, "arf", SortMode::Recent, false);
    let parts: Vec<&str> = fuzzy[0].matches.title.iter().map(|r| &title_a[r.clone()]).collect();
    assert_eq!(parts.concat().to_lowercase(), "arf");
    let re = filter_and_sort(&s, "re:auth\\s+layer", SortMode::Recent, false);
    assert_eq!(&s[0].all_messages_text[re[0].matches.fields[0].range.clone()], "AUTH layer");
}

/// pi's fuzzy score starts from a last match at -1, so a word at the start of a field is a run from
/// its first letter: "api gateway" ranks above "update docs" for `api docs` (pi 1.6.0's
/// `filterAndSortSessions` on these two sessions), in Fuzzy and in Threaded with a query.
#[test]
fn a_match_at_the_start_of_a_field_scores_as_a_run_as_in_pi() {
    let sessions = [
        named("b", Some("update docs"), "describe the api", 2),
        named("a", Some("api gateway"), "write the docs", 1),
    ];
    assert_eq!(run(&sessions, "api docs", SortMode::Relevance), ["a", "b"]);
    assert_eq!(run(&sessions, "api docs", SortMode::Threaded), ["a", "b"]);
    assert_eq!(run(&sessions, "api docs", SortMode::Recent), ["b", "a"]);
}
