//! `pitree list`: the sessions of the current folder (or `--cwd DIR`, or `--all`), filtered and
//! sorted like pi's picker, as a table or as JSON Lines.
//!
//! **Table** (default): one row per session — the title (name, else first message; control and
//! bidi characters shown as spaces; tree prefixes in threaded order), the message count, the age
//! (`now`, `5m`, `3h`, `2d`, `1w`, `4mo`, `1y`), and with `--all` the cwd (`~` for home).
//!
//! **`--json`**: JSON Lines, one object per session, in the chosen order, with pi's `SessionInfo`
//! field names and pitree's additions:
//!
//! ```json
//! {"path":"/…/x.jsonl","id":"…","cwd":"/home/u/p","name":null,"parentSessionPath":null,
//!  "created":"2025-06-01T10:00:00.000Z","modified":"2025-06-01T10:05:00.000Z","messageCount":12,
//!  "firstMessage":"…","tokens":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},
//!  "cost":0.0,"branches":1,"live":false,"unreadableLines":0,"sizeBytes":1234,"depth":0}
//! ```
//!
//! `created` is `null` when the header time is not a valid date; `depth` is the tree depth in
//! threaded order (0 otherwise).
//!
//! **Sort**: `--sort threaded|recent|relevance`. The default is `threaded` for the table (as pi's
//! picker opens) and `recent` for `--json` (pi's listing order, newest first), so scripts get a
//! flat list. As in pi, a query in threaded mode sorts by relevance.
//!
//! The listing goes through the index in `PITREE_CACHE_DIR`, else `<cache dir>/pitree`.

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, WrapErr};
use unicode_width::UnicodeWidthStr;

use super::display::{display_title, format_age, sanitize, shorten_home};
use super::search::{Row, SortMode, parse_query, search_once};
use super::{Catalog, Scope, SessionSummary, default_cache_dir, js, locate};
use crate::json_text::Object;
use crate::session::date::iso_string;

/// Longest title shown in the table, in terminal columns.
const TITLE_COLUMNS: usize = 72;

/// `pitree list` options.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ListArgs {
    /// List the sessions of every folder.
    #[arg(long)]
    pub all: bool,
    /// List the sessions started in DIR instead of the current folder.
    #[arg(long, value_name = "DIR", conflicts_with = "all")]
    pub cwd: Option<PathBuf>,
    /// Keep the sessions matching a picker query: fuzzy words, "exact phrase", re:regex.
    #[arg(long, value_name = "Q")]
    pub query: Option<String>,
    /// Order of the rows [default: threaded; recent with --json].
    #[arg(long, value_enum)]
    pub sort: Option<SortArg>,
    /// Only sessions that have a name.
    #[arg(long)]
    pub named: bool,
    /// One JSON object per line instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `--sort` values.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortArg {
    Threaded,
    Recent,
    Relevance,
}

impl From<SortArg> for SortMode {
    fn from(s: SortArg) -> SortMode {
        match s {
            SortArg::Threaded => SortMode::Threaded,
            SortArg::Recent => SortMode::Recent,
            SortArg::Relevance => SortMode::Relevance,
        }
    }
}

/// Run `pitree list`; `session_dir` is `--session-dir`, given before or after `list`. The
/// listing is not freed: the process ends with this command.
pub fn run(args: &ListArgs, session_dir: Option<&Path>, out: &mut dyn Write) -> Result<()> {
    let env = |k: &str| std::env::var_os(k);
    let root = locate::sessions_root(session_dir, &env)?;
    let scope = if args.all {
        Scope::All
    } else {
        let cwd = match &args.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().wrap_err("cannot read the current folder")?,
        };
        Scope::CurrentFolder(locate::lexical_absolute(&cwd))
    };
    let query = args.query.as_deref().unwrap_or("");
    let searching = !js::trim(query).is_empty();
    if searching {
        parse_query(query)?;
    }
    // `/proc` is looked through on a thread of its own while the files are listed and read;
    // the first session marked waits for it.
    let scanning = std::thread::spawn(crate::store::live::scan);
    let live = std::sync::LazyLock::new(move || scanning.join().unwrap_or_default());
    let catalog = Catalog::open(root, default_cache_dir(&env).as_deref())
        .with_texts(searching)
        .with_live(move |path| !live.is_empty() && live.contains(path));
    let report = catalog.scan(&scope, &|_, _| {});
    for w in &report.warnings {
        eprintln!("pitree: warning: {w}");
    }
    let sort = args.sort.map(SortMode::from).unwrap_or(if args.json {
        SortMode::Recent
    } else {
        SortMode::Threaded
    });
    let sessions = &report.sessions;
    let rows = search_once(sessions, query, sort, args.named)?;
    let written = if args.json {
        write_json(out, sessions, &rows)
    } else if rows.is_empty() {
        eprintln!("{}", empty_message(args, searching));
        Ok(())
    } else {
        write_table(out, sessions, &rows, args.all, now_ms())
    };
    // The process ends with this command: freeing thousands of summaries one string at a time
    // would only delay that.
    std::mem::forget(report);
    written
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

fn empty_message(args: &ListArgs, searching: bool) -> &'static str {
    match (searching || args.named, args.all) {
        (true, _) => "No sessions match.",
        (false, true) => "No sessions found.",
        (false, false) => "No sessions in this folder. Use --all to list every session.",
    }
}

/// One JSON object per row, written through one buffer (one row would otherwise be one syscall).
pub fn write_json(out: &mut dyn Write, sessions: &[SessionSummary], rows: &[Row]) -> Result<()> {
    let mut buf = std::io::BufWriter::with_capacity(1 << 16, out);
    for row in rows {
        write_row(&mut buf, &sessions[row.index], row.depth)
            .and_then(|()| buf.write_all(b"\n"))
            .wrap_err("cannot write the listing")?;
    }
    buf.flush().wrap_err("cannot write the listing")
}

/// The `--json` object of one session, in the documented key order. serde_json escapes a string
/// byte by byte, which was half the time of a warm `--json` listing; nearly every string of a
/// listing (paths, ids, times, most first messages) has nothing to escape, which one vectorised
/// check finds, so those are written as they are and only the others go through serde_json.
fn write_row(out: &mut impl Write, s: &SessionSummary, depth: usize) -> io::Result<()> {
    let u = &s.usage;
    let mut row = Object::compact(out)?;
    // `to_str` checks a word at a time; `to_string_lossy` walks the path in UTF-8 chunks.
    row.str("path", &s.path.to_str().map_or_else(|| s.path.to_string_lossy(), Cow::Borrowed))?;
    row.str("id", &s.id)?;
    row.str("cwd", &s.cwd)?;
    row.opt_str("name", s.name.as_deref())?;
    row.opt_str("parentSessionPath", s.parent_session_path.as_deref())?;
    row.opt_str("created", s.created_ms.and_then(iso_string).as_deref())?;
    row.opt_str("modified", iso_string(s.modified_ms).as_deref())?;
    row.value("messageCount", s.message_count)?;
    row.str("firstMessage", &s.first_message)?;
    let mut tokens = Object::compact(row.key("tokens")?)?;
    tokens.value("input", u.input as u64)?;
    tokens.value("output", u.output as u64)?;
    tokens.value("cacheRead", u.cache_read as u64)?;
    tokens.value("cacheWrite", u.cache_write as u64)?;
    tokens.value("total", u.total_tokens() as u64)?;
    tokens.close()?;
    row.value("cost", u.cost)?;
    row.value("branches", s.branches)?;
    row.value("live", s.live)?;
    row.value("unreadableLines", s.unreadable_lines)?;
    row.value("sizeBytes", s.file_len)?;
    row.value("depth", depth)?;
    row.close()
}

/// The plain table.
pub fn write_table(
    out: &mut dyn Write,
    sessions: &[SessionSummary],
    rows: &[Row],
    with_cwd: bool,
    now_ms: i64,
) -> Result<()> {
    let home = dirs::home_dir();
    let cells: Vec<[String; 4]> = rows
        .iter()
        .map(|row| {
            let s = &sessions[row.index];
            let title = truncate(&format!("{}{}", row.depth_prefix, display_title(s)), TITLE_COLUMNS);
            let cwd = sanitize(&shorten_home(&s.cwd, home.as_deref()));
            [title, s.message_count.to_string(), format_age(s.modified_ms, now_ms), cwd]
        })
        .collect();
    let header = ["SESSION", "MSGS", "AGE", "CWD"].map(String::from);
    let width =
        |col: usize| std::iter::once(&header).chain(&cells).map(|c| c[col].width()).max().unwrap_or(0);
    let widths = [width(0), width(1), width(2)];
    for cell in std::iter::once(&header).chain(&cells) {
        let mut line = format!(
            "{}  {}  {}",
            pad(&cell[0], widths[0]),
            pad_left(&cell[1], widths[1]),
            pad(&cell[2], widths[2])
        );
        if with_cwd {
            line.push_str("  ");
            line.push_str(&cell[3]);
        }
        writeln!(out, "{}", line.trim_end()).wrap_err("cannot write the listing")?;
    }
    Ok(())
}

fn pad(s: &str, width: usize) -> String {
    format!("{s}{}", " ".repeat(width.saturating_sub(s.width())))
}

fn pad_left(s: &str, width: usize) -> String {
    format!("{}{s}", " ".repeat(width.saturating_sub(s.width())))
}

/// `s` cut to `columns` terminal columns, ending in `…` when cut.
fn truncate(s: &str, columns: usize) -> String {
    if s.width() <= columns {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > columns - 1 {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_the_documented_object() {
        let s = SessionSummary {
            path: PathBuf::from("/s/a \"b\".jsonl"),
            id: "id-1".into(),
            cwd: "/p".into(),
            name: Some("tab\there".into()),
            created_ms: Some(0),
            modified_ms: 1_000,
            message_count: 2,
            first_message: "hi".into(),
            usage: crate::session::entry::Usage { input: 1.0, output: 2.0, cost: 0.5, ..Default::default() },
            branches: 1,
            file_len: 9,
            ..SessionSummary::default()
        };
        let mut out = Vec::new();
        write_row(&mut out, &s, 3).unwrap();
        let expected = serde_json::json!({
            "path": "/s/a \"b\".jsonl", "id": "id-1", "cwd": "/p", "name": "tab\there",
            "parentSessionPath": null, "created": "1970-01-01T00:00:00.000Z",
            "modified": "1970-01-01T00:00:01.000Z", "messageCount": 2, "firstMessage": "hi",
            "tokens": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "total": 3},
            "cost": 0.5, "branches": 1, "live": false, "unreadableLines": 0, "sizeBytes": 9, "depth": 3
        });
        assert_eq!(String::from_utf8(out).unwrap(), expected.to_string(), "keys in the documented order");
    }

    #[test]
    fn table_rows_are_aligned_and_safe() {
        let sessions = vec![
            SessionSummary {
                name: Some("a\u{1b}[2Jb".into()),
                message_count: 3,
                modified_ms: 0,
                cwd: "/x".into(),
                ..Default::default()
            },
            SessionSummary {
                first_message: "项目".repeat(50),
                message_count: 120,
                modified_ms: 0,
                ..Default::default()
            },
        ];
        let rows: Vec<Row> = super::super::search::filter_and_sort(&sessions, "", SortMode::Recent, false);
        let mut out = Vec::new();
        write_table(&mut out, &sessions, &rows, true, 3 * 3_600_000).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[1].starts_with("a [2Jb "));
        assert!(lines[1].ends_with("  3  3h   /x"));
        assert!(lines[2].contains('…'));
        assert!(!text.contains('\u{1b}'));
        let age_column = |l: &str| l[..l.find("3h").unwrap()].width();
        assert_eq!(age_column(lines[1]), age_column(lines[2]));
    }
}
