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

use std::io::Write;
use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, WrapErr};
use unicode_width::UnicodeWidthStr;

use super::display::{display_title, format_age, iso_ms, sanitize, shorten_home};
use super::search::{Row, SortMode, parse_query, search_once};
use super::{Catalog, Scope, SessionSummary, default_cache_dir, js, locate};

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

/// Run `pitree list`; `session_dir` is the top-level `--session-dir`.
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
    let live = crate::store::live::scan();
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
    if args.json {
        write_json(out, sessions, &rows)
    } else if rows.is_empty() {
        eprintln!("{}", empty_message(args, searching));
        Ok(())
    } else {
        write_table(out, sessions, &rows, args.all, now_ms())
    }
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
        serde_json::to_writer(&mut buf, &JsonRow::of(&sessions[row.index], row.depth))?;
        buf.write_all(b"\n").wrap_err("cannot write the listing")?;
    }
    buf.flush().wrap_err("cannot write the listing")
}

/// The `--json` object of one session, in the documented key order.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonRow<'a> {
    path: std::borrow::Cow<'a, str>,
    id: &'a str,
    cwd: &'a str,
    name: Option<&'a str>,
    parent_session_path: Option<&'a str>,
    created: Option<String>,
    modified: Option<String>,
    message_count: u32,
    first_message: &'a str,
    tokens: Tokens,
    cost: f64,
    branches: u32,
    live: bool,
    unreadable_lines: u32,
    size_bytes: u64,
    depth: usize,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Tokens {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    total: u64,
}

impl<'a> JsonRow<'a> {
    fn of(s: &'a SessionSummary, depth: usize) -> JsonRow<'a> {
        let u = &s.usage;
        JsonRow {
            path: s.path.to_string_lossy(),
            id: &s.id,
            cwd: &s.cwd,
            name: s.name.as_deref(),
            parent_session_path: s.parent_session_path.as_deref(),
            created: s.created_ms.and_then(iso_ms),
            modified: iso_ms(s.modified_ms),
            message_count: s.message_count,
            first_message: &s.first_message,
            tokens: Tokens {
                input: u.input as u64,
                output: u.output as u64,
                cache_read: u.cache_read as u64,
                cache_write: u.cache_write as u64,
                total: u.total_tokens() as u64,
            },
            cost: u.cost,
            branches: s.branches,
            live: s.live,
            unreadable_lines: s.unreadable_lines,
            size_bytes: s.file_len,
            depth,
        }
    }
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
