//! The worker modes of the bench binary: measurements that run inside pitree's library, each in a
//! fresh process of its own, so that its peak RSS (`ru_maxrss`) and its start belong to that work
//! only. The bench re-executes itself as `spec --worker <mode> ARGS…` through
//! [`reference::time_command`] (and so through its launcher); the worker prints one JSON report on
//! stdout, which [`measure`] reads back after each run.
//!
//! Modes:
//! - `open-tree FILE`: what `pitree FILE` does with a big session, on a 120×40 `TestBackend`:
//!   [`Session::outline`] and the first frame drawn from it ([`TreeView::preview`]); then the whole
//!   file parsed (parse, then graph, timed apart), the view of the whole session, the full-text
//!   search job started on a thread as the app starts it, and its first draw. Then, as a user
//!   would see them:
//!   the detail pane filled (its job run, applied, drawn), the search index arriving, and key presses
//!   to the next frame: ↓, PgDn, each filter of the Ctrl+O cycle, and each character of a search
//!   typed with the full index. After every timed key the detail job of the new selection is run
//!   untimed (the app runs it on a worker), so the next key starts from a settled screen. Timed from
//!   the worker's `main`, with the RSS high-water mark after each phase.
//! - `open-cached FILE`: what `pitree FILE` does with a session the parsed-session cache holds
//!   (`pitree::catalog::session_cache`, in the sandbox's cache folder): the cache file read, with
//!   what was appended since, the view of the whole session and its first frame, which answers
//!   every key; then, untimed, the appended bytes alone parsed as a session (what reading them
//!   costs). A run that finds no cache file parses the file and fills the cache instead (the
//!   bench's untimed warm-up).
//! - `picker-frame ROOT CACHE`: [`pitree::tui::bench_first_frame`]: launch to the first frame that
//!   lists every session of ROOT, with the index in CACHE (warm it with one untimed run; an empty
//!   CACHE times the first launch, which scans every file).
//! - `search ROOT CACHE`: every prefix of [`QUERIES`] as one keystroke, over all sessions of ROOT:
//!   the catalog's [`SearchIndex::filter_and_sort`] (threaded order, as the picker opens) on the
//!   sessions listed once, and [`pitree::tui::bench_search_keystroke`] (key press to the frame drawn
//!   for it, in the real app loop; each call loads the app anew).

use std::env;
use std::ffi::OsString;
use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use color_eyre::eyre::{Result, WrapErr, bail, eyre};
use pitree::catalog::locate::{RootSource, SessionsRoot};
use pitree::catalog::search::{SearchIndex, SortMode};
use pitree::catalog::session_cache::{Level, SessionCache};
use pitree::catalog::{Catalog, Scope};
use pitree::session::Session;
use pitree::session::parse::parse_file;
use pitree::tui::theme::Theme;
use pitree::tui::tree::{FilterMode, Report, TreeOptions, TreeView};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::reference::{self, Probe, Sandbox, Timing};
use crate::table::{Judged, duration, median, ratio};

/// The terminal every worker draws on.
const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;
/// Timed ↓ and PgDn presses per `open-tree` run.
const DOWN_PRESSES: usize = 50;
const PAGE_PRESSES: usize = 20;
/// What `open-tree` types into the tree's search, one timed keystroke per character.
const TREE_QUERY: &str = "render";
/// What `search` types into the picker, one timed keystroke per prefix: words of the corpus, then
/// a fuzzy match of a cwd (`api-server`).
pub const QUERIES: [&str; 2] = ["render timeout", "apisrv"];
const WORKER_TIMEOUT: Duration = Duration::from_secs(1800);

// ---------------------------------------------------------------------------------------------
// Reports

/// What `open-tree` prints. Times marked "since launch" count from the worker's `main`.
#[derive(Serialize, serde::Deserialize)]
pub struct TreeReport {
    pub entries: usize,
    /// The outline read, its graph built ([`Session::outline`]).
    pub outlined: Duration,
    /// The whole parse and its graph, after the outline's frame.
    pub parse: Duration,
    pub graph: Duration,
    /// Since launch: the whole session is parsed and its graph built.
    pub opened: Duration,
    /// Since launch: the first frame, from the outline, is drawn.
    pub first_frame: Duration,
    /// Since launch: the first frame of the whole session (which answers every key) is drawn.
    pub whole_frame: Duration,
    /// Since launch: the frame with the detail pane filled is drawn.
    pub detail_frame: Duration,
    /// Since launch: the full-text search index has been built (on its thread).
    pub search_ready: Duration,
    /// After typing the query: the pass over the whole text of the long entries, to its frame.
    pub full_text: Duration,
    /// Entries the search index holds cut (the ones that pass reads again).
    pub long_entries: usize,
    /// RSS high-water marks: after opening, at the first frame, after the search index arrived.
    pub rss_opened: u64,
    pub rss_first_frame: u64,
    pub rss_search: u64,
    pub down: Vec<Duration>,
    pub page: Vec<Duration>,
    /// ↓ pressed, then the detail job of the new selection run, applied and drawn.
    pub down_detail: Vec<Duration>,
    /// One per filter of [`FilterMode::CYCLE`] after the first (and back to it).
    pub filter: Vec<Duration>,
    /// One per character of [`TREE_QUERY`].
    pub search: Vec<Duration>,
}

/// What `open-cached` prints. Times marked "since launch" count from the worker's `main`.
#[derive(Serialize, serde::Deserialize)]
pub struct CachedReport {
    /// The session came from the cache (else it was parsed and the cache filled).
    pub cached: bool,
    /// Since launch: the whole session's first frame, from the cache, is drawn.
    pub frame: Duration,
    /// The read through the cache alone.
    pub read: Duration,
    /// Bytes of the session file read after the cached part.
    pub appended: u64,
    /// The appended bytes alone (after the header) parsed as a session.
    pub appended_parse: Duration,
    /// RSS high-water mark at the frame.
    pub rss: u64,
}

/// What `picker-frame` prints.
#[derive(Serialize, serde::Deserialize)]
pub struct FrameReport {
    pub first_frame: Duration,
}

/// What `search` prints: one keystroke per prefix of [`QUERIES`], in order.
#[derive(Serialize, serde::Deserialize)]
pub struct SearchReport {
    pub sessions: usize,
    pub keystrokes: Vec<Keystroke>,
}

#[derive(Serialize, serde::Deserialize)]
pub struct Keystroke {
    /// The query after the keystroke.
    pub query: String,
    pub catalog: Duration,
    pub picker: Duration,
}

// ---------------------------------------------------------------------------------------------
// The bench's side

/// A worker's runs: the process as the launcher saw it, and each run's report.
pub struct Measured<R> {
    pub process: Timing,
    pub reports: Vec<R>,
}

/// Runs `spec --worker <mode> <paths…>` `runs` times in the sandbox, reading each run's report.
pub fn measure<R: DeserializeOwned>(
    mode: &str,
    paths: &[&Path],
    runs: usize,
    sandbox: &Sandbox,
    agent_dir: &Path,
) -> Result<Measured<R>> {
    measure_with(mode, paths, runs, sandbox, agent_dir, || Ok(()))
}

/// [`measure`], calling `before_each` before each run (untimed).
pub fn measure_with<R: DeserializeOwned>(
    mode: &str,
    paths: &[&Path],
    runs: usize,
    sandbox: &Sandbox,
    agent_dir: &Path,
    mut before_each: impl FnMut() -> Result<()>,
) -> Result<Measured<R>> {
    let probe = worker_probe(mode, paths, sandbox, agent_dir)?;
    let mut process = Timing::default();
    let mut reports = Vec::new();
    for _ in 0..runs.max(1) {
        let run = reference::time_command(&probe, 1, sandbox, &mut before_each)?;
        let stdout = fs::read(sandbox.stdout()).wrap_err("reading the worker's stdout")?;
        reports.push(serde_json::from_slice(&stdout).wrap_err("the worker printed no report")?);
        process.runs.extend(run.runs);
        process.peak_rss = process.peak_rss.max(run.peak_rss);
    }
    Ok(Measured { process, reports })
}

fn worker_probe(mode: &str, paths: &[&Path], sandbox: &Sandbox, agent_dir: &Path) -> Result<Probe> {
    let mut args = vec![OsString::from("--worker"), OsString::from(mode)];
    args.extend(paths.iter().map(|p| p.as_os_str().to_owned()));
    Ok(Probe {
        program: env::current_exe().wrap_err("finding the bench binary")?.into_os_string(),
        args,
        env: sandbox.env(agent_dir),
        cwd: sandbox.home(),
        timeout: WORKER_TIMEOUT,
    })
}

// ---------------------------------------------------------------------------------------------
// The worker's side

/// When this process was started as `spec --worker …`, runs that mode, prints its report and
/// returns `Some`; otherwise returns `None` at once. `launched` is the time `main` started.
pub fn run_as_worker(launched: Instant) -> Option<Result<()>> {
    let args: Vec<OsString> = env::args_os().skip(1).collect();
    (args.first()? == "--worker").then(|| run_mode(&args[1..], launched))
}

fn run_mode(args: &[OsString], launched: Instant) -> Result<()> {
    let text: Vec<&str> = args
        .iter()
        .map(|a| a.to_str().ok_or_else(|| eyre!("non-UTF-8 argument {a:?}")))
        .collect::<Result<_>>()?;
    let json = match text.as_slice() {
        ["open-tree", file] => serde_json::to_string(&open_tree(Path::new(file), launched)?),
        ["open-cached", file] => serde_json::to_string(&open_cached(Path::new(file), launched)?),
        ["picker-frame", root, cache] => {
            let first_frame =
                pitree::tui::bench_first_frame(Path::new(root), Path::new(cache), WIDTH, HEIGHT)?;
            serde_json::to_string(&FrameReport { first_frame })
        }
        ["search", root, cache] => serde_json::to_string(&search(Path::new(root), Path::new(cache))?),
        ["floor-pass", agent_dir] => serde_json::to_string(&reference::floor_pass(Path::new(agent_dir))?),
        _ => bail!("unknown worker mode {text:?}"),
    };
    println!("{}", json.wrap_err("serializing the report")?);
    Ok(())
}

/// The tree view on a test terminal.
struct Screen {
    view: TreeView,
    terminal: Terminal<TestBackend>,
    theme: Theme,
}

impl Screen {
    fn draw(&mut self) -> Result<()> {
        let Self { view, terminal, theme } = self;
        terminal.draw(|frame| view.draw(frame, frame.area(), theme)).wrap_err("drawing the tree view")?;
        Ok(())
    }

    /// One key press to the frame drawn for it.
    fn press(&mut self, code: KeyCode, modifiers: KeyModifiers) -> Result<Duration> {
        let started = Instant::now();
        black_box(self.view.handle_key(KeyEvent::new(code, modifiers)));
        self.draw()?;
        Ok(started.elapsed())
    }

    /// The detail job of the selection, run, applied and drawn (the app runs it on a worker).
    fn settle_detail(&mut self) -> Result<()> {
        self.view.load_detail();
        self.draw()
    }

    /// `count` presses of one key, each timed to its frame and followed by an untimed settle.
    fn presses(&mut self, code: KeyCode, count: usize) -> Result<Vec<Duration>> {
        let mut times = Vec::with_capacity(count);
        for _ in 0..count {
            times.push(self.press(code, KeyModifiers::NONE)?);
            self.settle_detail()?;
        }
        Ok(times)
    }
}

/// As the app opens a big session: its outline read and its first frame drawn from it (the rows
/// on screen read whole), then the whole file parsed, then the view of the whole session, which
/// answers keys.
fn open_tree(file: &Path, launched: Instant) -> Result<TreeReport> {
    let started = Instant::now();
    let outline = Session::outline(file)
        .map_err(|e| eyre!("{e}"))
        .wrap_err_with(|| format!("outlining {}", file.display()))?;
    let outlined = started.elapsed();
    let theme = Theme::dark();
    let frame = TreeView::open(outline, TreeOptions::default())
        .preview(Rect::new(0, 0, WIDTH, HEIGHT), &theme)
        .wrap_err("drawing the outline")?;
    let (first_frame, rss_first_frame) = (launched.elapsed(), self_peak_rss());
    black_box(frame);
    pitree::memory::release_freed();
    let started = Instant::now();
    let parsed =
        parse_file(file).map_err(|e| eyre!("{e}")).wrap_err_with(|| format!("parsing {}", file.display()))?;
    let parse = started.elapsed();
    let session = Session::from_parsed(parsed);
    let graph = started.elapsed() - parse;
    let (opened, rss_opened) = (launched.elapsed(), self_peak_rss());
    let entries = session.entries().len();
    let view = TreeView::open(session, TreeOptions::default());
    let terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).wrap_err("creating the test terminal")?;
    let mut screen = Screen { view, terminal, theme };
    let job = screen.view.search_job().ok_or_else(|| eyre!("the tree view handed out no search job"))?;
    let search = thread::spawn(move || (job.run(), launched.elapsed()));
    screen.draw()?;
    let whole_frame = launched.elapsed();
    screen.settle_detail()?;
    let detail_frame = launched.elapsed();
    let (index, search_ready) = search.join().map_err(|_| eyre!("the search job panicked"))?;
    screen.view.apply(Report::SearchIndex(index));
    screen.draw()?;
    let rss_search = self_peak_rss();
    let keys = time_tree_keys(&mut screen)?;
    Ok(TreeReport {
        entries,
        outlined,
        parse,
        graph,
        opened,
        first_frame,
        whole_frame,
        detail_frame,
        search_ready,
        rss_opened,
        rss_first_frame,
        rss_search,
        down: keys.down,
        page: keys.page,
        down_detail: keys.down_detail,
        filter: keys.filter,
        search: keys.search,
        full_text: keys.full_text,
        long_entries: keys.long_entries,
    })
}

/// As the app opens a session the parsed-session cache holds: the cache file and what was
/// appended since, then the view of the whole session and its first frame.
fn open_cached(file: &Path, launched: Instant) -> Result<CachedReport> {
    let cache = SessionCache::from_env(&|k| env::var_os(k)).ok_or_else(|| eyre!("no cache folder"))?;
    let started = Instant::now();
    let Some(cached) = cache.get(file, Level::Whole) else {
        let parsed = parse_file(file)
            .map_err(|e| eyre!("{e}"))
            .wrap_err_with(|| format!("parsing {}", file.display()))?;
        cache.put(&parsed, Level::Whole).wrap_err("filling the cache")?;
        let (frame, read) = (launched.elapsed(), started.elapsed());
        return Ok(CachedReport {
            cached: false,
            frame,
            read,
            appended: 0,
            appended_parse: Duration::ZERO,
            rss: 0,
        });
    };
    let read = started.elapsed();
    let appended = cached.appended;
    let theme = Theme::dark();
    let view = TreeView::open(Session::from_parsed(cached.file), TreeOptions::default());
    let terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).wrap_err("creating the test terminal")?;
    let mut screen = Screen { view, terminal, theme };
    screen.draw()?;
    let (frame, rss) = (launched.elapsed(), self_peak_rss());
    let appended_parse = parse_appended_alone(file, appended)?;
    black_box(screen);
    Ok(CachedReport { cached: true, frame, read, appended, appended_parse, rss })
}

/// The time to parse the last `appended` bytes of `file` as a session of their own (its header
/// line, then them): what reading what was appended costs.
fn parse_appended_alone(file: &Path, appended: u64) -> Result<Duration> {
    if appended == 0 {
        return Ok(Duration::ZERO);
    }
    use std::io::{BufRead, Read, Seek, SeekFrom};
    let reading = || format!("reading {}", file.display());
    let mut reader = std::io::BufReader::new(fs::File::open(file).wrap_err_with(reading)?);
    let mut alone = Vec::new();
    let header_len = reader.read_until(b'\n', &mut alone).wrap_err_with(reading)? as u64;
    let len = reader.get_ref().metadata().wrap_err_with(reading)?.len();
    reader.seek(SeekFrom::Start(len - appended.min(len - header_len))).wrap_err_with(reading)?;
    reader.read_to_end(&mut alone).wrap_err_with(reading)?;
    let started = Instant::now();
    black_box(pitree::session::parse::parse_bytes(&alone, file.to_path_buf()).map_err(|e| eyre!("{e}"))?);
    Ok(started.elapsed())
}

struct TreeKeys {
    down: Vec<Duration>,
    page: Vec<Duration>,
    down_detail: Vec<Duration>,
    filter: Vec<Duration>,
    search: Vec<Duration>,
    full_text: Duration,
    long_entries: usize,
}

fn time_tree_keys(screen: &mut Screen) -> Result<TreeKeys> {
    screen.press(KeyCode::Home, KeyModifiers::NONE)?;
    screen.settle_detail()?;
    let down = screen.presses(KeyCode::Down, DOWN_PRESSES)?;
    let page = screen.presses(KeyCode::PageDown, PAGE_PRESSES)?;
    let down_detail = (0..DOWN_PRESSES).map(|_| time_down_with_detail(screen)).collect::<Result<_>>()?;
    let filter = time_filter_cycle(screen)?;
    let mut search = Vec::new();
    for c in TREE_QUERY.chars() {
        search.push(screen.press(KeyCode::Char(c), KeyModifiers::NONE)?);
        screen.settle_detail()?;
    }
    let started = Instant::now();
    let job = screen.view.full_text_job().ok_or_else(|| eyre!("no full-text pass for the typed query"))?;
    let long_entries = job.entries();
    screen.view.apply(job.run());
    screen.draw()?;
    let full_text = started.elapsed();
    Ok(TreeKeys { down, page, down_detail, filter, search, full_text, long_entries })
}

fn time_down_with_detail(screen: &mut Screen) -> Result<Duration> {
    let started = Instant::now();
    black_box(screen.view.handle_key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE)));
    screen.settle_detail()?;
    Ok(started.elapsed())
}

/// Ctrl+O through every filter and back to the first one.
fn time_filter_cycle(screen: &mut Screen) -> Result<Vec<Duration>> {
    let first = screen.view.filter();
    let mut times = Vec::new();
    for _ in FilterMode::CYCLE {
        times.push(screen.press(KeyCode::Char('o'), KeyModifiers::CONTROL)?);
        screen.settle_detail()?;
    }
    if screen.view.filter() != first {
        bail!("Ctrl+O did not cycle the filters back to {first:?}");
    }
    Ok(times)
}

fn search(root: &Path, cache: &Path) -> Result<SearchReport> {
    let catalog = Catalog::open(SessionsRoot::new(root, RootSource::Flag), Some(cache));
    let sessions = catalog.scan(&Scope::All, &|_, _| {}).sessions;
    let index = SearchIndex::new(&sessions);
    let mut keystrokes = Vec::new();
    for query in prefixes() {
        let started = Instant::now();
        black_box(index.filter_and_sort(&sessions, &query, SortMode::Threaded, false));
        let catalog = started.elapsed();
        let picker = pitree::tui::bench_search_keystroke(root, cache, &query, WIDTH, HEIGHT)
            .wrap_err_with(|| format!("typing {query:?} in the picker"))?;
        keystrokes.push(Keystroke { query, catalog, picker });
    }
    Ok(SearchReport { sessions: sessions.len(), keystrokes })
}

/// Every prefix of [`QUERIES`] that ends in a character other than a space.
fn prefixes() -> impl Iterator<Item = String> {
    QUERIES.into_iter().flat_map(|query| {
        query
            .char_indices()
            .map(move |(at, c)| query[..at + c.len_utf8()].to_string())
            .filter(|q| !q.ends_with(' '))
    })
}

/// This process's RSS high-water mark so far, in bytes.
fn self_peak_rss() -> u64 {
    // SAFETY: `usage` is a plain C struct that getrusage fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointer; RUSAGE_SELF always exists.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    usage.ru_maxrss.max(0) as u64 * 1024
}

/// The cache folder the workers give the catalog: pitree's own under the sandbox's XDG cache.
pub fn cache_dir(sandbox: &Sandbox) -> PathBuf {
    sandbox.cache().join("pitree")
}

/// One kind of keystroke time of the `search` runs: per query, the median over the runs.
pub struct Typing {
    per_query: Vec<(String, Duration)>,
    runs: usize,
}

impl Typing {
    pub fn of(reports: &[SearchReport], which: impl Fn(&Keystroke) -> Duration) -> Typing {
        let queries = reports.first().map_or(0, |r| r.keystrokes.len());
        let per_query = (0..queries)
            .map(|i| {
                let samples: Vec<Duration> =
                    reports.iter().filter_map(|r| r.keystrokes.get(i)).map(&which).collect();
                (reports[0].keystrokes[i].query.clone(), median(&samples))
            })
            .collect();
        Typing { per_query, runs: reports.len() }
    }

    pub fn median(&self) -> Duration {
        median(&self.per_query.iter().map(|(_, d)| *d).collect::<Vec<_>>())
    }

    /// The slowest keystroke and the query it gave.
    pub fn slowest(&self) -> Option<(&str, Duration)> {
        self.per_query.iter().max_by_key(|(_, d)| *d).map(|(q, d)| (q.as_str(), *d))
    }

    pub fn cell(&self) -> String {
        let slowest = self
            .slowest()
            .map_or_else(String::new, |(query, d)| format!(" · slowest {} ({query:?})", duration(d)));
        format!(
            "{}{slowest} · {} keystrokes × {} runs",
            duration(self.median()),
            self.per_query.len(),
            self.runs
        )
    }

    /// Met when the slowest keystroke is within `target`.
    pub fn judge(&self, target: Duration) -> Judged {
        let slowest = self.slowest().map_or(Duration::ZERO, |(_, d)| d);
        Judged::check(format!("slowest = {:.2}× the target", ratio(slowest, target)), slowest <= target)
    }
}
