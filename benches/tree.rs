//! The session core and tree view areas, both from the `open-tree` worker (see `worker.rs`) on the
//! big session: parse + graph, launch to the first drawn frame, their peak memory, and key presses
//! to the next frame, next to pi's `open` + `getTree` on the same file.

use std::time::Duration;

use color_eyre::eyre::{Result, bail, eyre};

use crate::corpus::Corpus;
use crate::reference::{PiTiming, Sandbox};
use crate::table::{
    Judged, Row, cell, duration, judge, judge_pair, median, quantile, ratio, size, thousands,
};
use crate::worker::{self, CachedReport, Measured, TreeReport};
use crate::{Config, References};

/// Tree view, one key press to the next frame (product spec §9).
const KEY_TARGET: Duration = Duration::from_millis(2);
/// A session opened again, from the parsed-session cache, to the frame that answers keys.
const CACHED_TARGET: Duration = Duration::from_millis(60);

type Tree = Result<Measured<TreeReport>>;

pub fn measure(config: &Config, corpus: &Corpus, sandbox: &Sandbox) -> Tree {
    eprintln!("tree view of the big session (open-tree worker), {} runs", config.runs);
    worker::measure("open-tree", &[&corpus.big_session], config.runs, sandbox, &corpus.big_agent_dir)
}

/// Opening the big session again, from the parsed-session cache: unchanged, and after 1 MB was
/// appended.
pub struct CachedOpens {
    unchanged: Result<Measured<CachedReport>>,
    grown: Result<Measured<CachedReport>>,
}

/// Launch to the frame with keys answered, median over runs.
fn cached_frame(m: &Measured<CachedReport>) -> Duration {
    over_runs(m, |r| r.frame)
}

impl CachedOpens {
    /// What reading the appended megabyte alone takes (median over the grown runs).
    pub fn reading_appended(&self) -> Result<Duration> {
        match &self.grown {
            Ok(m) => Ok(over_runs(m, |r| r.appended_parse)),
            Err(e) => Err(eyre!("{e}")),
        }
    }
}

pub fn measure_cached(config: &Config, corpus: &Corpus, sandbox: &Sandbox) -> CachedOpens {
    eprintln!(
        "tree view of the big session from the cache (open-cached worker), {} runs, then grown",
        config.runs
    );
    let open = |before: &mut dyn FnMut() -> Result<()>| -> Result<Measured<CachedReport>> {
        let measured: Measured<CachedReport> = worker::measure_with(
            "open-cached",
            &[&corpus.big_session],
            config.runs,
            sandbox,
            &corpus.big_agent_dir,
            before,
        )?;
        if measured.reports.iter().any(|r| !r.cached) {
            bail!("a run did not find the session in the cache");
        }
        Ok(measured)
    };
    let warmed = sandbox.reset().and_then(|()| {
        worker::measure::<CachedReport>(
            "open-cached",
            &[&corpus.big_session],
            1,
            sandbox,
            &corpus.big_agent_dir,
        )
    });
    if let Err(e) = warmed {
        let e = format!("{e}");
        return CachedOpens { unchanged: Err(eyre!("{e}")), grown: Err(eyre!("{e}")) };
    }
    let unchanged = open(&mut || Ok(()));
    let grown = crate::commands::grown(corpus, open);
    CachedOpens { unchanged, grown }
}

pub fn cached_rows(cached: &CachedOpens) -> Vec<Row> {
    let frame = |m: &Result<Measured<CachedReport>>| match m {
        Ok(m) => Ok(cached_frame(m)),
        Err(e) => Err(eyre!("{e}")),
    };
    vec![
        Row {
            work:
                "Open the big session again (from the cache): launch to the first frame, every key answered"
                    .into(),
            pitree: cell(&cached.unchanged, |m| {
                format!(
                    "{} (the cache read {})",
                    duration(cached_frame(m)),
                    duration(over_runs(m, |r| r.read))
                )
            }),
            pitree_rss: cell(&cached.unchanged, |m| size(peak(m, |r| r.rss))),
            reference: "–".into(),
            reference_rss: "–".into(),
            judged: judge(&cached.unchanged, |m| {
                let d = cached_frame(m);
                Judged::check(format!("{:.2}× the target", ratio(d, CACHED_TARGET)), d <= CACHED_TARGET)
            }),
            target: format!("≤ {}", duration(CACHED_TARGET)),
        },
        crate::commands::grown_row(
            &format!("The same after pi appended {}", size(crate::commands::GROW_BYTES)),
            &frame(&cached.grown),
            &frame(&cached.unchanged),
            &cached.reading_appended(),
        ),
    ]
}

/// The median over runs of one time of the report.
fn over_runs<R>(m: &Measured<R>, which: impl Fn(&R) -> Duration) -> Duration {
    median(&m.reports.iter().map(which).collect::<Vec<_>>())
}

/// The largest over runs of one RSS mark of the report.
fn peak<R>(m: &Measured<R>, which: impl Fn(&R) -> u64) -> u64 {
    m.reports.iter().map(which).max().unwrap_or(0)
}

fn parse_graph(m: &Measured<TreeReport>) -> Duration {
    over_runs(m, |r| r.parse + r.graph)
}

fn pi_rss(pi: &Result<PiTiming>) -> String {
    cell(pi, |pi| pi.timing.peak_rss.map_or_else(|| "–".into(), size))
}

/// The reference cell of pi's open + getTree.
fn pi_open_cell(references: &References) -> String {
    cell(&references.pi_open, |pi| format!("pi open + getTree {}", duration(pi.timing.median())))
}

/// How many times faster than pi, for information.
fn times_faster(pitree: Duration, pi: &PiTiming) -> Judged {
    Judged::info(format!("{:.1}× faster", ratio(pi.timing.median(), pitree)))
}

fn faster(pitree: Duration, pi: &PiTiming) -> Judged {
    let r = ratio(pi.timing.median(), pitree);
    Judged::check(format!("{r:.1}× faster"), r >= 10.0)
}

/// Met when `rss` is at most half of `file` bytes.
fn half_the_file(rss: u64, file: u64) -> Judged {
    let r = rss as f64 / file.max(1) as f64;
    Judged::check(format!("{r:.2}× the file"), r <= 0.5)
}

fn big_work(corpus: &Corpus, what: &str) -> String {
    format!("{what} ({} entries / {})", thousands(corpus.big.entries), size(corpus.big.bytes))
}

pub fn session_rows(corpus: &Corpus, references: &References, tree: &Tree) -> Vec<Row> {
    let file = corpus.big.bytes;
    let rss_opened = |m: &Measured<TreeReport>| size(peak(m, |r| r.rss_opened));
    vec![
        Row {
            work: big_work(corpus, "Parse + graph of the big session"),
            pitree: cell(tree, |m| {
                format!(
                    "{} (parse {} + graph {})",
                    duration(parse_graph(m)),
                    duration(over_runs(m, |r| r.parse)),
                    duration(over_runs(m, |r| r.graph))
                )
            }),
            pitree_rss: cell(tree, rss_opened),
            reference: pi_open_cell(references),
            reference_rss: pi_rss(&references.pi_open),
            judged: judge_pair(tree, &references.pi_open, |m, pi| faster(parse_graph(m), pi)),
            target: "≥ 10× faster than pi's open + getTree".into(),
        },
        Row {
            work: "Outline of the big session (what the first frame is drawn from)".into(),
            pitree: cell(tree, |m| duration(over_runs(m, |r| r.outlined))),
            pitree_rss: "–".into(),
            reference: pi_open_cell(references),
            reference_rss: "–".into(),
            judged: judge_pair(tree, &references.pi_open, |m, pi| {
                times_faster(over_runs(m, |r| r.outlined), pi)
            }),
            target: "–".into(),
        },
        Row {
            work: "Parse + graph, peak memory".into(),
            pitree: cell(tree, rss_opened),
            pitree_rss: cell(tree, rss_opened),
            reference: format!("the file: {}", size(file)),
            reference_rss: pi_rss(&references.pi_open),
            judged: judge(tree, |m| half_the_file(peak(m, |r| r.rss_opened), file)),
            target: format!("≤ half the file ({})", size(file / 2)),
        },
        Row {
            work: "Parse + graph against reading the file".into(),
            pitree: cell(tree, |m| duration(parse_graph(m))),
            pitree_rss: "–".into(),
            reference: cell(&references.big_newlines, |n| {
                format!("newline count {}", duration(n.timing.median()))
            }),
            reference_rss: "–".into(),
            judged: judge_pair(tree, &references.big_newlines, |m, n| {
                Judged::info(format!("{:.1}× the newline count", ratio(parse_graph(m), n.timing.median())))
            }),
            target: "–".into(),
        },
    ]
}

pub fn view_rows(corpus: &Corpus, references: &References, tree: &Tree) -> Vec<Row> {
    let file = corpus.big.bytes;
    let first_frame = |m: &Measured<TreeReport>| over_runs(m, |r| r.first_frame);
    let rss_frame = |m: &Measured<TreeReport>| peak(m, |r| r.rss_first_frame);
    let mut rows = vec![
        Row {
            work: big_work(corpus, "Launch to the first drawn frame, 120×40"),
            pitree: cell(tree, |m| duration(first_frame(m))),
            pitree_rss: cell(tree, |m| size(rss_frame(m))),
            reference: pi_open_cell(references),
            reference_rss: pi_rss(&references.pi_open),
            judged: judge_pair(tree, &references.pi_open, |m, pi| faster(first_frame(m), pi)),
            target: "≥ 10× faster than pi's open + getTree".into(),
        },
        Row {
            work: "Launch to the first frame of the whole session (every key answered)".into(),
            pitree: cell(tree, |m| duration(over_runs(m, |r| r.whole_frame))),
            pitree_rss: cell(tree, |m| size(peak(m, |r| r.rss_opened))),
            reference: pi_open_cell(references),
            reference_rss: pi_rss(&references.pi_open),
            judged: judge_pair(tree, &references.pi_open, |m, pi| {
                times_faster(over_runs(m, |r| r.whole_frame), pi)
            }),
            target: "–".into(),
        },
        Row {
            work: "First drawn frame, peak memory".into(),
            pitree: cell(tree, |m| size(rss_frame(m))),
            pitree_rss: cell(tree, |m| size(rss_frame(m))),
            reference: format!("the file: {}", size(file)),
            reference_rss: pi_rss(&references.pi_open),
            judged: judge(tree, |m| half_the_file(rss_frame(m), file)),
            target: format!("≤ half the file ({})", size(file / 2)),
        },
        info_row(
            "Launch to the frame with the detail pane filled",
            cell(tree, |m| duration(over_runs(m, |r| r.detail_frame))),
            "–".into(),
        ),
        Row {
            work: "Launch to the full-text search index (built on a thread from the first frame)".into(),
            pitree: cell(tree, |m| duration(over_runs(m, |r| r.search_ready))),
            pitree_rss: cell(tree, |m| size(peak(m, |r| r.rss_search))),
            reference: format!("the file: {}", size(file)),
            reference_rss: "–".into(),
            judged: judge(tree, |m| {
                let r = peak(m, |r| r.rss_search) as f64 / file.max(1) as f64;
                Judged::info(format!("peak {r:.2}× the file"))
            }),
            target: "–".into(),
        },
    ];
    rows.extend(key_rows(tree));
    rows.push(info_row(
        "Search: the pass over the whole text of the long entries (after typing \"render\"), to its frame",
        cell(tree, |m| {
            let long = m.reports.first().map_or(0, |r| r.long_entries);
            format!(
                "{} ({} entries read again)",
                duration(over_runs(m, |r| r.full_text)),
                thousands(long as u64)
            )
        }),
        "–".into(),
    ));
    rows
}

fn key_rows(tree: &Tree) -> Vec<Row> {
    let key = |work: &str, which: fn(&TreeReport) -> &Vec<Duration>| Row {
        work: work.into(),
        pitree: cell(tree, |m| samples_cell(&samples(m, which))),
        pitree_rss: "–".into(),
        reference: "–".into(),
        reference_rss: "–".into(),
        judged: judge(tree, |m| {
            let d = median(&samples(m, which));
            Judged::check(format!("{:.2}× the target", ratio(d, KEY_TARGET)), d <= KEY_TARGET)
        }),
        target: format!("≤ {} (median)", duration(KEY_TARGET)),
    };
    let other = |work: &str, which: fn(&TreeReport) -> &Vec<Duration>| Row {
        judged: judge(tree, |m| {
            Judged::info(format!(
                "{:.1}× the key-press target",
                ratio(median(&samples(m, which)), KEY_TARGET)
            ))
        }),
        target: "none set (a key press: ≤ 2 ms)".into(),
        ..key(work, which)
    };
    vec![
        key("Key press ↓ to the next frame", |r| &r.down),
        key("Key press PgDn to the next frame", |r| &r.page),
        info_row(
            "Key press ↓ to the frame with the detail pane filled",
            cell(tree, |m| samples_cell(&samples(m, |r| &r.down_detail))),
            "–".into(),
        ),
        other("Filter change (Ctrl+O, each filter of the cycle) to the next frame", |r| &r.filter),
        other("Search keystroke (full-text index, typing \"render\") to the next frame", |r| &r.search),
    ]
}

fn info_row(work: &str, pitree: String, reference: String) -> Row {
    Row {
        work: work.into(),
        pitree,
        pitree_rss: "–".into(),
        reference,
        reference_rss: "–".into(),
        judged: Judged::info("–".into()),
        target: "–".into(),
    }
}

/// Every sample of every run.
fn samples(m: &Measured<TreeReport>, which: fn(&TreeReport) -> &Vec<Duration>) -> Vec<Duration> {
    m.reports.iter().flat_map(|r| which(r).iter().copied()).collect()
}

fn samples_cell(samples: &[Duration]) -> String {
    format!(
        "{} (p90 {}, max {}, n = {})",
        duration(median(samples)),
        duration(quantile(samples, 0.9)),
        duration(quantile(samples, 1.0)),
        samples.len()
    )
}
