//! Many sessions: where they are, what each one is, how to find one.
//!
//! - [`locate`]: the sessions root (`--session-dir` > `PI_CODING_AGENT_SESSION_DIR` >
//!   `<agent dir>/sessions`), the files of a [`Scope`], the current-folder test.
//! - [`scan`]: one file's summary with pi 1.6.0's listing rules, streamed, resumable.
//! - [`index`]: the persistent index that makes an unchanged listing read no session file.
//! - [`search`]: pi's picker query language, ranking, sort modes and threaded tree.
//! - [`list_cmd`]: `pitree list`.
//!
//! [`Catalog`] ties them together:
//!
//! ```no_run
//! use pitree::catalog::{Catalog, Scope, locate, search};
//! let root = locate::sessions_root(None, &|k| std::env::var_os(k))?;
//! let catalog = Catalog::open(root, pitree::catalog::default_cache_dir(&|k| std::env::var_os(k)).as_deref());
//! let report = catalog.scan(&Scope::All, &|done, total| eprintln!("{done}/{total}"));
//! let rows = search::filter_and_sort(&report.sessions, "re:\\bauth\\b", search::SortMode::Relevance, false);
//! # Ok::<(), color_eyre::Report>(())
//! ```

pub mod cache_file;
pub mod display;
pub mod fuzzy;
pub mod hash;
pub mod index;
pub mod js;
pub mod jsregex;
pub mod lines;
pub mod list_cmd;
pub mod locate;
pub mod scan;
pub mod search;
pub mod session_cache;
pub mod summary;
pub mod thread;
pub mod valid_json;
pub mod validate;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

pub use locate::{Scope, SessionsRoot, Warning, default_cache_dir};
pub use summary::SessionSummary;

use hash::{FastMap, FastSet};
use index::{Fingerprint, Index, Prefix, Record, Records, Reuse, TextSource, TextsOnDisk};
use locate::{Candidate, CwdMatcher, FileMeta};
use scan::{Resume, ScanState, Scanner};

/// Session texts (`allMessagesText`) kept apart from their summaries, by session path: what a scan
/// that deferred them loads later ([`DeferredTexts::load`]), for
/// [`search::SearchIndex::with_texts`].
#[derive(Debug, Default)]
pub struct SessionTexts {
    texts: Vec<String>,
    by_path: FastMap<OsString, usize>,
}

impl SessionTexts {
    /// The text of the session at `path`, if this holds it.
    pub fn get(&self, path: &Path) -> Option<&str> {
        self.position(path).map(|i| self.text(i))
    }

    pub fn len(&self) -> usize {
        self.texts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Where the text of `path` is, for [`SessionTexts::text`].
    pub(crate) fn position(&self, path: &Path) -> Option<usize> {
        self.by_path.get(path.as_os_str()).copied()
    }

    pub(crate) fn text(&self, position: usize) -> &str {
        &self.texts[position]
    }

    fn insert(&mut self, path: OsString, text: String) {
        match self.by_path.get(&path) {
            Some(&i) => self.texts[i] = text,
            None => {
                self.by_path.insert(path, self.texts.len());
                self.texts.push(text);
            }
        }
    }
}

impl Extend<(OsString, String)> for SessionTexts {
    /// Add texts by path, a later one for a path replacing the earlier.
    fn extend<I: IntoIterator<Item = (OsString, String)>>(&mut self, texts: I) {
        texts.into_iter().for_each(|(path, text)| self.insert(path, text));
    }
}

impl FromIterator<(OsString, String)> for SessionTexts {
    fn from_iter<I: IntoIterator<Item = (OsString, String)>>(texts: I) -> SessionTexts {
        let mut all = SessionTexts::default();
        all.extend(texts);
        all
    }
}

/// The threads background scans run on: a pool of their own, as many as rayon's global one, so
/// that parallel work of the screen's (a search index built on a keystroke, the thread keys of
/// what a scan found) does not queue in the global pool behind the scan's files, which would
/// keep it waiting until the whole scan is done. `None` if its threads cannot be started.
fn background_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .thread_name(|i| format!("pitree-scan-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// The texts of the sessions a background scan sent without them
/// ([`Catalog::scan_in_background_deferring_texts`]): the index's texts section, read on first use,
/// and the texts of the files the scan read, taken over from it.
pub struct DeferredTexts {
    /// Until the first load: the index's texts still on disk, and the texts of the files the scan
    /// read (never the same sessions: the index answers only for the files not read).
    pending: Mutex<Option<(Option<TextsOnDisk>, SessionTexts)>>,
    loaded: OnceLock<Arc<SessionTexts>>,
}

impl std::fmt::Debug for DeferredTexts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeferredTexts").field("loaded", &self.loaded.get().is_some()).finish()
    }
}

impl DeferredTexts {
    fn new(on_disk: Option<TextsOnDisk>, read: SessionTexts) -> DeferredTexts {
        DeferredTexts { pending: Mutex::new(Some((on_disk, read))), loaded: OnceLock::new() }
    }

    /// The texts, read on the calling thread the first time (a caller that comes while another one
    /// reads them waits for it and gets the same). When the index's texts turn out damaged, each
    /// session file is read again for its text instead.
    pub fn load(&self) -> Arc<SessionTexts> {
        let load = || {
            let pending = self.pending.lock().unwrap_or_else(|e| e.into_inner()).take();
            let (on_disk, mut texts) = pending.unwrap_or_default();
            if let Some(on_disk) = on_disk {
                texts.extend(read_or_rescan(&on_disk));
            }
            Arc::new(texts)
        };
        Arc::clone(self.loaded.get_or_init(load))
    }
}

/// The texts `on_disk` holds, each with its path; those of the session files themselves when the
/// texts file turns out damaged.
fn read_or_rescan(on_disk: &TextsOnDisk) -> Vec<(OsString, String)> {
    match on_disk.read() {
        Ok(read) => read,
        Err(_) => {
            let mut scanner = Scanner::new();
            let mut text = |path: &OsStr| {
                scanner
                    .scan_from(Path::new(path), Resume::default())
                    .map(|scan| scan.tail.unwrap_or(scan.resume.state).all_text)
                    .unwrap_or_default()
            };
            on_disk.paths().map(|path| (path.to_os_string(), text(path))).collect()
        }
    }
}

/// What a scan did (for tests, benchmarks and `--verbose` output).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Session files considered.
    pub files: usize,
    /// Files the index answered without reading them.
    pub unchanged: usize,
    /// Grown files read from their stored offset.
    pub continued: usize,
    /// Files read from the start (new, replaced, shrunk, or no index).
    pub rescanned: usize,
    /// Bytes read from session files by the scanner.
    pub bytes_read: u64,
    /// Bytes read to fingerprint files (grown-file checks and new resume points).
    pub check_bytes: u64,
    /// An index was found and used.
    pub index_loaded: bool,
    /// Why an existing index was not used.
    pub index_error: Option<String>,
    /// A new index was written.
    pub index_written: bool,
}

/// What a background scan reports, in this order: any number of `Progress` and `Found`, then one
/// `Done`.
#[derive(Debug, Clone)]
pub enum ScanEvent {
    /// `done` of `total` files are summarized.
    Progress {
        done: usize,
        total: usize,
    },
    /// Sessions found since the last event (unsorted; see [`sort_recent`]).
    Found(Vec<SessionSummary>),
    Done {
        warnings: Vec<Warning>,
        stats: ScanStats,
    },
}

/// The result of [`Catalog::scan`].
#[derive(Debug, Clone, Default)]
pub struct ScanReport {
    /// Sorted as pi lists them (see [`sort_recent`]).
    pub sessions: Vec<SessionSummary>,
    pub warnings: Vec<Warning>,
    pub stats: ScanStats,
}

/// Tells whether a running pi holds a session file (see `crate::store::live`).
pub type LiveCheck = dyn Fn(&Path) -> bool + Send + Sync;

/// The sessions under one root, listed through a persistent index.
pub struct Catalog {
    root: SessionsRoot,
    index_file: Option<PathBuf>,
    live: Option<Arc<LiveCheck>>,
    texts: bool,
    sessions: Option<session_cache::SessionCache>,
}

impl Catalog {
    /// A catalog of `root` whose index lives in `cache_dir` (`None`: no index, every scan reads
    /// every file).
    pub fn open(root: SessionsRoot, cache_dir: Option<&Path>) -> Catalog {
        let index_file = cache_dir.map(|d| index::index_path(d, &root.path));
        Catalog { root, index_file, live: None, texts: true, sessions: None }
    }

    /// Read big sessions through this parsed-session cache ([`session_cache`]).
    pub fn with_session_cache(mut self, cache: Option<session_cache::SessionCache>) -> Catalog {
        self.sessions = cache;
        self
    }

    /// The parsed-session cache, if any.
    pub fn session_cache(&self) -> Option<&session_cache::SessionCache> {
        self.sessions.as_ref()
    }

    /// Mark sessions a running pi holds (`SessionSummary::live`).
    pub fn with_live(mut self, check: impl Fn(&Path) -> bool + Send + Sync + 'static) -> Catalog {
        self.live = Some(Arc::new(check));
        self
    }

    /// Whether summaries must carry `all_messages_text` (needed for search; default yes). Without
    /// it the index's text section is not read when nothing changed, and `all_messages_text` may be
    /// empty.
    pub fn with_texts(mut self, texts: bool) -> Catalog {
        self.texts = texts;
        self
    }

    pub fn root(&self) -> &SessionsRoot {
        &self.root
    }

    /// The index file, if the catalog has one.
    pub fn index_file(&self) -> Option<&Path> {
        self.index_file.as_deref()
    }

    /// List the sessions of `scope`, calling `on_progress(done, total)` as files are summarized.
    pub fn scan(&self, scope: &Scope, on_progress: &(dyn Fn(usize, usize) + Sync)) -> ScanReport {
        self.run(scope, &Progress(on_progress)).0
    }

    /// Scan on a new thread, sending [`ScanEvent`]s: first the sessions the index answers, then
    /// each file as it is read, then `Done`. Dropping the receiver stops the scan early.
    pub fn scan_in_background(
        self: &Arc<Self>,
        scope: Scope,
        tx: Sender<ScanEvent>,
    ) -> std::thread::JoinHandle<()> {
        let catalog = Arc::clone(self);
        std::thread::spawn(move || {
            catalog.background(&scope, tx, false);
        })
    }

    /// [`Catalog::scan_in_background`] that sends every session without its text (an empty
    /// `all_messages_text`): the thread's result (there once `Done` is sent) holds the texts, those
    /// of the files read taken over from the scan and those the index answers read from its texts
    /// file when first asked for. A cold scan so copies no text, and a warm one reads none before
    /// its first frame. `None` when there is no text to give (or the catalog does not want texts).
    pub fn scan_in_background_deferring_texts(
        self: &Arc<Self>,
        scope: Scope,
        tx: Sender<ScanEvent>,
    ) -> std::thread::JoinHandle<Option<Arc<DeferredTexts>>> {
        let catalog = Arc::clone(self);
        std::thread::spawn(move || catalog.background(&scope, tx, catalog.texts))
    }

    fn background(
        &self,
        scope: &Scope,
        tx: Sender<ScanEvent>,
        defer_texts: bool,
    ) -> Option<Arc<DeferredTexts>> {
        let sink = Channel::new(tx, defer_texts);
        let run = || self.run(scope, &sink);
        let (report, deferred) = match background_pool() {
            Some(pool) => pool.install(run),
            None => run(),
        };
        sink.finish(report.warnings, report.stats);
        deferred.map(Arc::new)
    }

    /// The scan. A sink that takes the sessions as they are found gets them all that way, and the
    /// report then lists none.
    fn run(&self, scope: &Scope, sink: &dyn Sink) -> (ScanReport, Option<DeferredTexts>) {
        // Listing the files and reading the index do not depend on each other. The index is
        // decoded on this thread (its many small allocations grow a worker's heap page by page).
        let mut stats = ScanStats::default();
        let (listing, mut index) = std::thread::scope(|s| {
            let listing = s.spawn(|| locate::list_files(&self.root, scope));
            let index = self.load_index(&mut stats, self.texts && !sink.defers_texts());
            (listing.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)), index)
        });
        stats.files = listing.files.len();
        let mut warnings = listing.warnings;
        let plan = plan(&listing.files, &mut index, scope, &listing.dirs, self.texts, &mut stats);
        let filter = ScopeFilter::new(scope);
        let total = listing.files.len();
        let mut records: Vec<Record> = plan.unchanged;
        let unchanged = records.len();
        // The texts of the records the index answers, left in its texts file for the sink.
        let mut on_disk = None;
        if sink.wants_found() {
            on_disk = index.defer_texts(&records);
            if plan.changed {
                // The records are written to the index again below.
                sink.found(self.summaries(records.iter(), &filter, true));
            } else {
                // Nothing to read, nothing to write: the summaries take the records' strings.
                sink.found(self.take_summaries(std::mem::take(&mut records), &filter));
            }
        }
        sink.progress(unchanged, total);
        let (scanned, scan_warnings) =
            self.scan_files(plan.to_scan, unchanged, total, &filter, sink, &mut stats);
        warnings.extend(scan_warnings);
        let scanned_from = records.len();
        records.extend(scanned);
        if plan.changed {
            let source = on_disk.as_ref().map(TextsOnDisk::source).or_else(|| index.text_source());
            self.save_index(&index, scope, &listing.dirs, &records, source, &mut stats, &mut warnings);
        }
        // The files read were sent without their texts to a sink that defers them: their texts
        // go with the index's, moved out of the records that no longer need them.
        let read: SessionTexts = match self.texts && sink.defers_texts() {
            true => records[scanned_from..]
                .iter_mut()
                .filter_map(|r| {
                    let state = r.tail.as_deref_mut().unwrap_or(&mut r.resume.state);
                    filter
                        .keeps(state)
                        .then(|| (r.path.as_os_str().to_owned(), std::mem::take(&mut state.all_text)))
                })
                .collect(),
            false => SessionTexts::default(),
        };
        let on_disk = on_disk.filter(|_| self.texts);
        let deferred = (on_disk.is_some() || !read.is_empty()).then(|| DeferredTexts::new(on_disk, read));
        let sessions = if sink.wants_found() {
            Vec::new()
        } else {
            let mut sessions = self.take_summaries(records, &filter);
            sort_recent(&mut sessions, TieBreak::of(&self.root, scope));
            sessions
        };
        (ScanReport { sessions, warnings, stats }, deferred)
    }

    fn load_index(&self, stats: &mut ScanStats, texts: bool) -> Records {
        let Some(path) = &self.index_file else {
            return Records::default();
        };
        if !path.exists() {
            return Records::default();
        }
        match Index::load_records(path, texts) {
            Ok(records) => {
                stats.index_loaded = true;
                records
            }
            Err(e) => {
                stats.index_error = Some(format!("{e:#}"));
                Records::default()
            }
        }
    }

    /// Read the files that need it, in parallel, newest first.
    fn scan_files(
        &self,
        work: Vec<ScanJob>,
        done_before: usize,
        total: usize,
        filter: &ScopeFilter,
        sink: &dyn Sink,
        stats: &mut ScanStats,
    ) -> (Vec<Record>, Vec<Warning>) {
        // Counted and reported under one lock, so the reports arrive in order and the last one
        // says all files are done (two threads could otherwise send 4 of 4 before 3 of 4).
        let done = Mutex::new(done_before);
        let results: Vec<Result<(Record, u64, u64), Warning>> = work
            .into_par_iter()
            .map_init(Scanner::new, |scanner, (cand, resume, prefix)| {
                if sink.cancelled() {
                    return Err(Warning { path: cand.path, message: "scan cancelled".into() });
                }
                if cand.meta.len >= LONG_FILE {
                    sink.flush();
                }
                let result = scan_one(scanner, cand, resume, prefix);
                if let (Ok((record, _, _)), true) = (&result, sink.wants_found()) {
                    // A sink that defers texts gets them after the scan, moved (see `run`).
                    sink.found(self.summaries(std::iter::once(record), filter, !sink.defers_texts()));
                }
                let mut count = done.lock().unwrap_or_else(|e| e.into_inner());
                *count += 1;
                sink.progress(*count, total);
                drop(count);
                result
            })
            .collect();
        let mut records = Vec::new();
        let mut warnings = Vec::new();
        for r in results {
            match r {
                Ok((record, read, checked)) => {
                    stats.bytes_read += read;
                    stats.check_bytes += checked;
                    records.push(record);
                }
                Err(w) => warnings.push(w),
            }
        }
        (records, warnings)
    }

    #[allow(clippy::too_many_arguments)]
    fn save_index(
        &self,
        index: &Records,
        scope: &Scope,
        dirs: &[PathBuf],
        records: &[Record],
        source: Option<TextSource<'_>>,
        stats: &mut ScanStats,
        warnings: &mut Vec<Warning>,
    ) {
        let Some(path) = &self.index_file else {
            return;
        };
        let listed: FastSet<&OsStr> = records.iter().map(|r| r.path.as_os_str()).collect();
        let kept: Vec<&Record> = index
            .remaining()
            .filter(|r| !listed.contains(r.path.as_os_str()) && !is_gone(r, scope, dirs))
            .collect();
        let all: Vec<&Record> = records.iter().chain(kept).collect();
        match Index::save(path, all.into_iter(), source) {
            Ok(written) => stats.index_written = written,
            Err(e) => warnings
                .push(Warning { path: path.clone(), message: format!("cannot write the index: {e:#}") }),
        }
    }

    /// The summaries of `records` that `filter` keeps, each with its search text when `with_text`.
    fn summaries<'a>(
        &self,
        records: impl Iterator<Item = &'a Record>,
        filter: &ScopeFilter,
        with_text: bool,
    ) -> Vec<SessionSummary> {
        records
            .filter(|r| filter.keeps(r.state()))
            .map(|r| match with_text {
                true => summary_of(&r.path, &r.meta, r.state()),
                false => into_summary(r.path.clone(), &r.meta, r.state().without_text()),
            })
            .map(|s| self.mark_live(s))
            .collect()
    }

    /// [`Catalog::summaries`] that moves the texts out of the records instead of copying them. The
    /// summaries are collected into the records' own allocation (a `Vec` collected from its own
    /// `into_iter` reuses it), so no fresh memory is touched for them.
    fn take_summaries(&self, records: Vec<Record>, filter: &ScopeFilter) -> Vec<SessionSummary> {
        records
            .into_iter()
            .filter(|r| filter.keeps(r.state()))
            .map(|r| self.mark_live(into_summary(r.path, &r.meta, r.tail.map_or(r.resume.state, |t| *t))))
            .collect()
    }

    fn mark_live(&self, mut s: SessionSummary) -> SessionSummary {
        s.live = self.live.as_ref().is_some_and(|live| live(&s.path));
        s
    }
}

/// A file to read: from the start, or from its record (state and fingerprint), with where that
/// record's text is when it is not in its state.
type ScanJob = (Candidate, Option<(Resume, Fingerprint)>, Option<Prefix>);

/// Which files the index answers, and which must be read (from the start or from an offset).
struct Plan {
    unchanged: Vec<Record>,
    to_scan: Vec<ScanJob>,
    /// The index must be rewritten (a file was read, or a file is gone).
    changed: bool,
}

/// A record whose file was not listed although its folder was (or every folder was).
fn is_gone(record: &Record, scope: &Scope, dirs: &[PathBuf]) -> bool {
    *scope == Scope::All || record.path.parent().is_some_and(|p| dirs.iter().any(|d| d == p))
}

/// Match the listed files against the index. The records used are taken out of `index`; what stays
/// there is the records of files not listed this time. A grown file continues from its record:
/// when `texts` are wanted, with that record's text read first (if the texts are damaged, the
/// whole index is dropped); otherwise its text stays in the index, as the prefix of the next.
fn plan(
    files: &[Candidate],
    index: &mut Records,
    scope: &Scope,
    dirs: &[PathBuf],
    texts: bool,
    stats: &mut ScanStats,
) -> Plan {
    let slots: Vec<Option<usize>> = files.iter().map(|cand| index.find(cand.path.as_os_str())).collect();
    let mut decisions: Vec<Reuse> = slots
        .iter()
        .zip(files)
        .map(|(slot, cand)| match slot.and_then(|i| index.get(i)) {
            Some(record) => {
                let (reuse, checked) = index::classify(record, &cand.meta);
                stats.check_bytes += checked;
                reuse
            }
            None => Reuse::Rescan,
        })
        .collect();
    // A record is listed exactly when a listed file found its slot (a path has one live slot).
    let mut listed = vec![false; index.slot_count()];
    slots.iter().flatten().for_each(|&i| listed[i] = true);
    let gone = index.remaining_slots().any(|(i, r)| !listed[i] && is_gone(r, scope, dirs));
    let changed = gone || decisions.iter().any(|d| !matches!(d, Reuse::Unchanged));
    let continued: Vec<usize> = slots
        .iter()
        .zip(&decisions)
        .filter_map(|(slot, d)| slot.filter(|_| matches!(d, Reuse::Continue)))
        .collect();
    if texts
        && !continued.is_empty()
        && !index.has_texts()
        && let Err(e) = index.load_texts_of(&continued)
    {
        stats.index_error = Some(format!("{e:#}"));
        index.clear();
        decisions.iter_mut().for_each(|d| *d = Reuse::Rescan);
    }
    let unchanged = decisions.iter().filter(|d| matches!(d, Reuse::Unchanged)).count();
    let mut to_scan = Vec::with_capacity(files.len() - unchanged);
    let mut kept = vec![false; index.slot_count()];
    for ((cand, reuse), slot) in files.iter().zip(decisions).zip(slots) {
        let continued = match (reuse, slot) {
            (Reuse::Unchanged, Some(i)) if index.get(i).is_some() => {
                stats.unchanged += 1;
                kept[i] = true;
                continue;
            }
            (Reuse::Continue, Some(i)) => index.take(i),
            _ => None,
        };
        match continued {
            Some(r) => {
                stats.continued += 1;
                // Texts are in memory exactly when they are wanted.
                let prefix = if texts { None } else { r.text_prefix() };
                to_scan.push((cand.clone(), Some((r.resume, r.fingerprint)), prefix));
            }
            None => {
                stats.rescanned += 1;
                to_scan.push((cand.clone(), None, None));
            }
        }
    }
    Plan { unchanged: index.take_marked(&kept), to_scan, changed }
}

/// Scan one file, from the start or from its record; returns its new record, the bytes scanned
/// and the bytes read to check it. The fingerprint is taken from the bytes the scan read (and the
/// checked bytes before its offset), so it always describes the bytes the state was made from.
fn scan_one(
    scanner: &mut Scanner,
    cand: Candidate,
    from: Option<(Resume, Fingerprint)>,
    prefix: Option<Prefix>,
) -> Result<(Record, u64, u64), Warning> {
    let warn = |e: std::io::Error| Warning { path: cand.path.clone(), message: format!("cannot read: {e}") };
    let mut file = crate::session::content::open_regular(&cand.path).map_err(warn)?;
    let (from, history, old_head, prefix) = match from {
        Some((resume, old)) => match index::history(&file, resume.offset, &old).map_err(warn)? {
            Some(history) => (resume, history, Some(old.head), prefix),
            None => (Resume::default(), Vec::new(), None, None),
        },
        None => (Resume::default(), Vec::new(), None, None),
    };
    let checked = history.len() as u64;
    let start = from.offset;
    let scan = scanner.scan_open(&mut file, from, history.clone()).map_err(warn)?;
    let fingerprint = Fingerprint::of_scan(start, &history, old_head, &scan);
    let after = std::fs::metadata(&cand.path).ok().map(|m| FileMeta::of(&m));
    let trust = index::Trust::of(&cand.meta, after.as_ref(), std::time::SystemTime::now());
    let read = scan.bytes_read;
    let record = Record {
        path: cand.path,
        meta: cand.meta,
        resume: scan.resume,
        tail: scan.tail.map(Box::new),
        fingerprint,
        trust,
        stored: None,
        prefix,
    };
    Ok((record, read, checked))
}

/// The summary of a scanned file.
pub fn summary_of(path: &Path, meta: &FileMeta, state: &ScanState) -> SessionSummary {
    into_summary(path.to_path_buf(), meta, state.clone())
}

fn into_summary(path: PathBuf, meta: &FileMeta, state: ScanState) -> SessionSummary {
    let modified_ms = state.modified_ms().unwrap_or_else(|| meta.mtime_ms());
    let created_ms = state.created_ms();
    let branches = state.branches();
    let header = state.header.unwrap_or_default();
    SessionSummary {
        path,
        id: header.id,
        cwd: header.cwd,
        name: state.name,
        parent_session_path: header.parent_session,
        created: header.timestamp,
        created_ms,
        modified_ms,
        message_count: state.message_count,
        first_message: state.first_message.unwrap_or_else(|| "(no messages)".to_string()),
        all_messages_text: state.all_text,
        usage: state.usage,
        branches,
        unreadable_lines: state.unreadable,
        live: false,
        file_len: meta.len,
        mtime_ns: meta.mtime_ns,
    }
}

/// How pi orders sessions of the same `modified` time; its two listings differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TieBreak {
    /// One folder (`SessionManager.list`, and `listAll` of a `--session-dir` folder): pi reads the
    /// files by name, descending, and its sort by `modified` is stable.
    Name,
    /// Every folder of `<agent dir>/sessions` (`listAll`): pi reads the files by `mtimeMs` (a
    /// double, to about 250 ns), newest first, then by file name, descending.
    #[default]
    Mtime,
}

impl TieBreak {
    /// The tie-break of pi's listing of `scope` under `root`.
    pub fn of(root: &SessionsRoot, scope: &Scope) -> TieBreak {
        match scope {
            Scope::All if !root.lists_flat_files() => TieBreak::Mtime,
            _ => TieBreak::Name,
        }
    }

    /// pi's listing order: `modified` newest first, then this tie-break; then (pitree's: pi keeps
    /// the order it read them in) by file name and by path descending, so the order does not depend
    /// on whether the index answered. pi compares names with `localeCompare`; pitree by bytes.
    pub fn cmp(self, a: &SessionSummary, b: &SessionSummary) -> std::cmp::Ordering {
        let by_mtime = || match self {
            TieBreak::Mtime => locate::js_mtime_ms(b.mtime_ns).total_cmp(&locate::js_mtime_ms(a.mtime_ns)),
            TieBreak::Name => std::cmp::Ordering::Equal,
        };
        b.modified_ms
            .cmp(&a.modified_ms)
            .then_with(by_mtime)
            .then_with(|| b.path.file_name().cmp(&a.path.file_name()))
            .then_with(|| b.path.cmp(&a.path))
    }
}

/// Sort `sessions` in pi's listing order (see [`TieBreak::cmp`]).
pub fn sort_recent(sessions: &mut [SessionSummary], ties: TieBreak) {
    // Sort positions rather than the (large) summaries, then move each summary into place once.
    let mut order: Vec<usize> = (0..sessions.len()).collect();
    order.sort_by(|&a, &b| ties.cmp(&sessions[a], &sessions[b]));
    for start in 0..order.len() {
        // `order[i]` is where the item that belongs at `i` is; follow the cycle through `start`.
        let mut at = start;
        while order[at] != start {
            let from = order[at];
            sessions.swap(at, from);
            order[at] = at;
            at = from;
        }
        order[at] = at;
    }
}

/// The header-`cwd` test of the current-folder scope.
struct ScopeFilter(Option<Mutex<CwdMatcher>>);

impl ScopeFilter {
    fn new(scope: &Scope) -> ScopeFilter {
        ScopeFilter(match scope {
            Scope::All => None,
            Scope::CurrentFolder(cwd) => Some(Mutex::new(CwdMatcher::new(cwd))),
        })
    }

    /// Whether `state` is of a session the scope lists.
    fn keeps(&self, state: &ScanState) -> bool {
        if !state.is_session() {
            return false;
        }
        let Some(matcher) = &self.0 else { return true };
        let cwd = state.header.as_ref().map_or("", |h| h.cwd.as_str());
        matcher.lock().unwrap_or_else(|e| e.into_inner()).matches(cwd)
    }
}

/// Where scan events go.
trait Sink: Sync {
    fn progress(&self, done: usize, total: usize);
    fn wants_found(&self) -> bool;
    /// The sessions the index answers may come without their texts.
    fn defers_texts(&self) -> bool {
        false
    }
    fn found(&self, sessions: Vec<SessionSummary>);
    /// Send now whatever waits to be sent: this thread will be busy for a while.
    fn flush(&self) {}
    fn cancelled(&self) -> bool;
}

struct Progress<'a>(&'a (dyn Fn(usize, usize) + Sync));

impl Sink for Progress<'_> {
    fn progress(&self, done: usize, total: usize) {
        (self.0)(done, total);
    }
    fn wants_found(&self) -> bool {
        false
    }
    fn found(&self, _: Vec<SessionSummary>) {}
    fn cancelled(&self) -> bool {
        false
    }
}

/// The sink of a background scan: its events sent on a channel, the files' sessions and progress
/// gathered for [`BATCH`] between sends (the first ones go at once), so that a cold scan of
/// thousands of files wakes the receiver a few dozen times, not twice a file. What was gathered
/// goes out with the next file done after the batch is due, before a long file is read, and all
/// of it before `Done`.
struct Channel {
    out: Mutex<Outbox>,
    closed: AtomicBool,
    defer_texts: bool,
    /// [`BATCH`], but in tests.
    batch: std::time::Duration,
}

/// How long a background scan gathers what it finds before sending it.
const BATCH: std::time::Duration = std::time::Duration::from_millis(8);

/// A file at least this long takes a scan thread a millisecond or more: what it has gathered is
/// sent before it starts, so that sessions found just before are not held back while it reads.
const LONG_FILE: u64 = 1 << 20;

/// What a background scan found since its last send.
struct Outbox {
    tx: Sender<ScanEvent>,
    found: Vec<SessionSummary>,
    progress: Option<(usize, usize)>,
    /// When the last send was; `None` before the first.
    sent: Option<std::time::Instant>,
}

impl Channel {
    fn new(tx: Sender<ScanEvent>, defer_texts: bool) -> Channel {
        let out = Outbox { tx, found: Vec::new(), progress: None, sent: None };
        Channel { out: Mutex::new(out), closed: AtomicBool::new(false), defer_texts, batch: BATCH }
    }

    /// Add to what is to be sent with `add`, and send it all when the batch is due.
    fn gather(&self, add: impl FnOnce(&mut Outbox)) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        add(&mut out);
        if out.sent.is_none_or(|at| at.elapsed() >= self.batch) {
            self.send(&mut out);
        }
    }

    /// Send what was gathered: the sessions found, then the progress.
    fn send(&self, out: &mut Outbox) {
        out.sent = Some(std::time::Instant::now());
        let found = (!out.found.is_empty()).then(|| ScanEvent::Found(std::mem::take(&mut out.found)));
        let progress = out.progress.take().map(|(done, total)| ScanEvent::Progress { done, total });
        for event in found.into_iter().chain(progress) {
            if out.tx.send(event).is_err() {
                self.closed.store(true, Ordering::Relaxed);
            }
        }
    }

    /// Send what is left, then the end of the scan.
    fn finish(&self, warnings: Vec<Warning>, stats: ScanStats) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        self.send(&mut out);
        let _ = out.tx.send(ScanEvent::Done { warnings, stats });
    }
}

impl Sink for Channel {
    fn progress(&self, done: usize, total: usize) {
        self.gather(|out| out.progress = Some((done, total)));
    }
    fn wants_found(&self) -> bool {
        true
    }
    fn defers_texts(&self) -> bool {
        self.defer_texts
    }
    fn found(&self, sessions: Vec<SessionSummary>) {
        if !sessions.is_empty() {
            self.gather(|out| out.found.extend(sessions));
        }
    }
    fn flush(&self) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        if !out.found.is_empty() || out.progress.is_some() {
            self.send(&mut out);
        }
    }
    fn cancelled(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shuffled_sessions() -> Vec<SessionSummary> {
        (0..200u32)
            .map(|i| SessionSummary {
                path: PathBuf::from(format!("/s/{}.jsonl", (i * 7) % 13)),
                id: i.to_string(),
                modified_ms: i64::from((i * 31) % 17),
                mtime_ns: i64::from((i * 11) % 3),
                ..SessionSummary::default()
            })
            .collect()
    }

    /// What a background scan finds within a batch waits for the batch to be due, unless the
    /// scan is about to read a long file; what is left goes out before the end.
    #[test]
    fn a_background_scans_sink_holds_a_batch_until_due_or_flushed() {
        let (tx, rx) = std::sync::mpsc::channel();
        // A batch longer than any test takes, so that nothing here depends on the time.
        let sink = Channel { batch: std::time::Duration::from_secs(3600), ..Channel::new(tx, true) };
        let one = |n: u32| vec![SessionSummary { id: n.to_string(), ..SessionSummary::default() }];
        sink.found(one(1));
        assert!(matches!(rx.try_recv(), Ok(ScanEvent::Found(s)) if s.len() == 1), "the first goes at once");
        sink.found(one(2));
        sink.progress(2, 9);
        assert!(rx.try_recv().is_err(), "held within the batch");
        sink.flush();
        assert!(matches!(rx.try_recv(), Ok(ScanEvent::Found(s)) if s[0].id == "2"));
        assert!(matches!(rx.try_recv(), Ok(ScanEvent::Progress { done: 2, total: 9 })));
        sink.flush();
        assert!(rx.try_recv().is_err(), "nothing to send");
        sink.found(one(3));
        sink.finish(Vec::new(), ScanStats::default());
        let rest: Vec<ScanEvent> = rx.try_iter().collect();
        assert!(matches!(&rest[..], [ScanEvent::Found(s), ScanEvent::Done { .. }] if s[0].id == "3"));
    }

    #[test]
    fn the_global_listing_breaks_ties_by_mtime_then_file_name() {
        let mut expected = shuffled_sessions();
        expected.sort_by(|a, b| {
            b.modified_ms
                .cmp(&a.modified_ms)
                .then(b.mtime_ns.cmp(&a.mtime_ns))
                .then_with(|| b.path.file_name().cmp(&a.path.file_name()))
        });
        let mut sorted = shuffled_sessions();
        sort_recent(&mut sorted, TieBreak::Mtime);
        assert_eq!(sorted, expected);
    }

    #[test]
    fn a_folder_listing_breaks_ties_by_file_name_whatever_the_mtimes() {
        let mut expected = shuffled_sessions();
        expected.sort_by(|a, b| {
            b.modified_ms.cmp(&a.modified_ms).then_with(|| b.path.file_name().cmp(&a.path.file_name()))
        });
        let mut sorted = shuffled_sessions();
        sort_recent(&mut sorted, TieBreak::Name);
        assert_eq!(sorted, expected);
    }

    #[test]
    fn mtimes_apart_by_less_than_a_millisecond_are_not_a_tie() {
        let at = |name: &str, mtime_ns| SessionSummary {
            path: PathBuf::from(format!("/s/{name}.jsonl")),
            mtime_ns,
            ..SessionSummary::default()
        };
        let mut sessions = vec![at("b", 1_000_000_100), at("a", 1_000_000_200)];
        sort_recent(&mut sessions, TieBreak::Mtime);
        assert_eq!(sessions[0].path, Path::new("/s/a.jsonl"));
    }

    #[test]
    fn mtimes_that_node_reads_as_the_same_double_are_a_tie() {
        let at = |name: &str, mtime_ns| SessionSummary {
            path: PathBuf::from(format!("/s/{name}.jsonl")),
            mtime_ns,
            ..SessionSummary::default()
        };
        let t = 1_751_371_200_000_000_000;
        let mut sessions = vec![at("a", t + 2), at("b", t + 1)];
        sort_recent(&mut sessions, TieBreak::Mtime);
        assert_eq!(sessions[0].path, Path::new("/s/b.jsonl"), "equal mtimeMs, so by name descending");
    }

    #[test]
    fn the_tie_break_follows_pis_listing_of_the_scope() {
        let agent = SessionsRoot::new("/agent/sessions", locate::RootSource::AgentDir);
        let flag = SessionsRoot::new("/elsewhere", locate::RootSource::Flag);
        let here = Scope::CurrentFolder(PathBuf::from("/p"));
        assert_eq!(TieBreak::of(&agent, &Scope::All), TieBreak::Mtime);
        assert_eq!(TieBreak::of(&agent, &here), TieBreak::Name);
        assert_eq!(TieBreak::of(&flag, &Scope::All), TieBreak::Name);
        assert_eq!(TieBreak::of(&flag, &here), TieBreak::Name);
    }

    #[test]
    fn sessions_tied_up_to_their_file_name_are_ordered_by_path_whatever_the_input_order() {
        let at = |dir: &str| SessionSummary {
            path: PathBuf::from(format!("/{dir}/same.jsonl")),
            modified_ms: 5,
            mtime_ns: 5,
            ..SessionSummary::default()
        };
        for mut sessions in [vec![at("a"), at("c"), at("b")], vec![at("c"), at("b"), at("a")]] {
            sort_recent(&mut sessions, TieBreak::Mtime);
            let dirs: Vec<&Path> = sessions.iter().map(|s| s.path.parent().unwrap()).collect();
            assert_eq!(dirs, [Path::new("/c"), Path::new("/b"), Path::new("/a")]);
        }
    }
}
