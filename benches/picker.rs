//! The picker area: launch to the first frame that lists every session (warm index, and with no
//! index: a first launch), and one search keystroke to the frame drawn for it, through the app's
//! benchmark hooks in `pitree::tui` run by the `picker-frame` and `search` workers (see
//! `worker.rs`).

use std::path::PathBuf;
use std::time::Duration;

use color_eyre::eyre::Result;

use crate::Config;
use crate::catalog::{KEYSTROKE_TARGET, Lists};
use crate::corpus::Corpus;
use crate::reference::{self, Sandbox};
use crate::table::{Judged, Row, cell, duration, judge, judge_pair, median, ratio, rss_cell, thousands};
use crate::worker::{self, FrameReport, Measured, SearchReport, Typing};

/// Launch to the first frame that lists all sessions, warm index (issue requirement).
const FIRST_FRAME_TARGET: Duration = Duration::from_millis(100);
/// With no index, against the cold `pitree list` of the same files (pitree's own target: the
/// screen costs little beside the scan).
const COLD_FRAME_TARGET: f64 = 1.5;

/// The catalog's sessions root and the cache the workers share (the `pitree list` runs left an
/// index there; the first picker run brings it up to date).
fn root_and_cache(corpus: &Corpus, sandbox: &Sandbox) -> (PathBuf, PathBuf) {
    (corpus.agent_dir.join("sessions"), worker::cache_dir(sandbox))
}

/// The picker's launches: with the index warm, and with none.
pub struct Frames {
    pub warm: Result<Measured<FrameReport>>,
    pub cold: Result<Measured<FrameReport>>,
}

/// One untimed run to warm the index, then `config.runs` timed ones.
pub fn measure_first_frame(
    config: &Config,
    corpus: &Corpus,
    sandbox: &Sandbox,
) -> Result<Measured<FrameReport>> {
    let (root, cache) = root_and_cache(corpus, sandbox);
    let paths = [root.as_path(), cache.as_path()];
    eprintln!("picker first frame (warm index): 1 warm-up + {} runs", config.runs);
    worker::measure::<FrameReport>("picker-frame", &paths, 1, sandbox, &corpus.agent_dir)?;
    worker::measure("picker-frame", &paths, config.runs, sandbox, &corpus.agent_dir)
}

/// `config.runs` timed runs, each with an emptied index folder.
pub fn measure_cold_frame(
    config: &Config,
    corpus: &Corpus,
    sandbox: &Sandbox,
) -> Result<Measured<FrameReport>> {
    let (root, _) = root_and_cache(corpus, sandbox);
    let cache = sandbox.cache().join("pitree-cold");
    eprintln!("picker first frame (no index): {} runs", config.runs);
    let empty = || reference::empty_dir(&cache);
    worker::measure_with("picker-frame", &[&root, &cache], config.runs, sandbox, &corpus.agent_dir, empty)
}

pub fn measure_search(config: &Config, corpus: &Corpus, sandbox: &Sandbox) -> Result<Measured<SearchReport>> {
    let (root, cache) = root_and_cache(corpus, sandbox);
    eprintln!("search keystrokes (catalog and picker), {} runs", config.slow_runs);
    worker::measure("search", &[&root, &cache], config.slow_runs, sandbox, &corpus.agent_dir)
}

pub fn rows(
    corpus: &Corpus,
    lists: &Lists,
    frames: &Frames,
    search: &Result<Measured<SearchReport>>,
) -> Vec<Row> {
    let (frame, cold) = (&frames.warm, &frames.cold);
    let first_frame =
        |m: &Measured<FrameReport>| median(&m.reports.iter().map(|r| r.first_frame).collect::<Vec<_>>());
    let drawn = |m: &Measured<SearchReport>| Typing::of(&m.reports, |k| k.picker);
    let matched = |m: &Measured<SearchReport>| Typing::of(&m.reports, |k| k.catalog);
    vec![
        Row {
            work: format!(
                "Launch to the first frame listing all {} sessions (warm index, 120×40)",
                thousands(corpus.catalog.files)
            ),
            pitree: cell(frame, |m| {
                format!("{} (process wall {})", duration(first_frame(m)), duration(m.process.median()))
            }),
            pitree_rss: rss_cell(frame, |m| &m.process),
            reference: cell(&lists.warm, |warm| {
                format!("warm `pitree list` {}", duration(warm.timing.median()))
            }),
            reference_rss: rss_cell(&lists.warm, |l| &l.timing),
            judged: judge_pair(frame, &lists.warm, |m, warm| {
                let f = first_frame(m);
                let text = format!("{:.2}× the warm list", ratio(f, warm.timing.median()));
                Judged::check(text, f <= FIRST_FRAME_TARGET)
            }),
            target: format!("≤ {}", duration(FIRST_FRAME_TARGET)),
        },
        Row {
            work: format!(
                "Launch to the first frame listing all {} sessions, no index (a first launch)",
                thousands(corpus.catalog.files)
            ),
            pitree: cell(cold, |m| {
                format!("{} (process wall {})", duration(first_frame(m)), duration(m.process.median()))
            }),
            pitree_rss: rss_cell(cold, |m| &m.process),
            reference: cell(&lists.cold, |c| format!("cold `pitree list` {}", duration(c.timing.median()))),
            reference_rss: rss_cell(&lists.cold, |l| &l.timing),
            judged: judge_pair(cold, &lists.cold, |m, c| {
                let r = ratio(first_frame(m), c.timing.median());
                Judged::check(format!("{r:.2}× the cold list"), r <= COLD_FRAME_TARGET)
            }),
            target: format!("≤ {COLD_FRAME_TARGET}× the cold list (pitree's own)"),
        },
        Row {
            work: "Search, one keystroke to the frame drawn for it".into(),
            pitree: cell(search, |m| drawn(m).cell()),
            pitree_rss: "–".into(),
            reference: cell(search, |m| format!("matching alone {}", matched(m).cell())),
            reference_rss: "–".into(),
            judged: judge(search, |m| drawn(m).judge(KEYSTROKE_TARGET)),
            target: format!("≤ {} per keystroke (the slowest one)", duration(KEYSTROKE_TARGET)),
        },
    ]
}
