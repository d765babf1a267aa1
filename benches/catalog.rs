//! The catalog area: `pitree list --all --json` without an index, with it, and after one session
//! grew, as subprocesses; the listing without an index at smaller sizes too ([`SIZES`] sessions,
//! hard links to every k-th file of the corpus), each next to pi's `listAll` of the same files, so
//! that the fixed costs that dominate there show; and one search keystroke over every session
//! (from the `search` worker).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use color_eyre::eyre::{Result, WrapErr, bail, eyre};

use crate::corpus::{self, Corpus};
use crate::reference::{self, PiTiming, Probe, Sandbox, Timing};
use crate::table::{Judged, Row, cell, duration, judge, judge_pair, pair, ratio, rss_cell, size, thousands};
use crate::worker::{self, Measured, SearchReport, Typing};
use crate::{Config, References, pitree_probe, pitree_probe_at};

const GROW_BYTES: u64 = 1_000_000;
/// The smaller catalogs listed beside the whole one (scaled with the corpus).
pub const SIZES: [u64; 2] = [100, 1_500];
/// Picker search, one keystroke (product spec §9).
pub const KEYSTROKE_TARGET: Duration = Duration::from_millis(50);
/// The cold listing against the floor row (issue 27: the ≤ 2× newline count of product.md §9
/// restated against what no listing equal to pi's can skip).
const FLOOR_TARGET: f64 = 1.5;

/// A timed `pitree list --json`, with the number of sessions its last run printed.
pub struct Listing {
    pub timing: Timing,
    pub listed: usize,
}

pub struct Lists {
    pub cold: Result<Listing>,
    pub warm: Result<Listing>,
    grown: Result<Grown>,
}

struct Grown {
    listing: Listing,
    /// Median bytes appended before a run.
    appended: u64,
    /// The size of pitree's index file(s) afterwards: the one other file a relist may read.
    index: Option<u64>,
}

pub fn measure_lists(config: &Config, corpus: &Corpus, sandbox: &Sandbox) -> Lists {
    let probe = pitree_probe(&["list", "--all", "--json"], corpus, sandbox);
    eprintln!("pitree list --all --json: no index, {} runs", config.runs);
    let cold = time_listing(&probe, config.runs, sandbox, || sandbox.reset());
    let warm = match &cold {
        Ok(_) => {
            eprintln!("pitree list --all --json: unchanged, {} runs", config.runs);
            time_listing(&probe, config.runs, sandbox, || Ok(()))
        }
        Err(_) => Err(eyre!("skipped: the cold run failed")),
    };
    let grown = match &warm {
        Ok(_) => {
            eprintln!("pitree list --all --json: one session grown, {} runs", config.runs);
            measure_grown(&probe, config, corpus, sandbox)
        }
        Err(_) => Err(eyre!("skipped: the unchanged run failed")),
    };
    Lists { cold, warm, grown }
}

fn measure_grown(probe: &Probe, config: &Config, corpus: &Corpus, sandbox: &Sandbox) -> Result<Grown> {
    let growth = corpus.begin_growth()?;
    let mut appended = Vec::new();
    let listing = time_listing(probe, config.runs, sandbox, || {
        appended.push(corpus::append_bytes(growth.path(), GROW_BYTES)?);
        Ok(())
    });
    growth.restore()?;
    appended.sort_unstable();
    Ok(Grown {
        listing: listing?,
        appended: appended.get(appended.len() / 2).copied().unwrap_or(0),
        index: index_size(&worker::cache_dir(sandbox)),
    })
}

/// The total size of the `index-*.bin` files in pitree's cache folder, if it can be read.
fn index_size(cache: &Path) -> Option<u64> {
    let mut total = 0;
    for entry in fs::read_dir(cache).ok()? {
        let entry = entry.ok()?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("index-") && name.ends_with(".bin") {
            total += entry.metadata().ok()?.len();
        }
    }
    Some(total)
}

/// Times a command whose stdout must be JSON Lines, one object per session (checked after the
/// last run).
fn time_listing(
    probe: &Probe,
    runs: usize,
    sandbox: &Sandbox,
    before_each: impl FnMut() -> Result<()>,
) -> Result<Listing> {
    let timing = reference::time_command(probe, runs, sandbox, before_each)?;
    let stdout = fs::read_to_string(sandbox.stdout()).wrap_err("reading the command's stdout")?;
    let mut listed = 0;
    for (n, line) in stdout.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let value: serde_json::Value =
            serde_json::from_str(line).wrap_err_with(|| format!("stdout line {} is not JSON", n + 1))?;
        if !value.is_object() {
            bail!("stdout line {} is not a JSON object", n + 1);
        }
        listed += 1;
    }
    if listed == 0 {
        bail!("printed no session on stdout");
    }
    Ok(Listing { timing, listed })
}

/// A listing of a smaller catalog and pi's `listAll` of the same files.
pub struct SizedList {
    sessions: usize,
    bytes: u64,
    pitree: Result<Listing>,
    pi: Result<PiTiming>,
}

/// The cold listing and pi's at each of [`SIZES`] (scaled like the corpus).
pub fn measure_sizes(config: &Config, corpus: &Corpus, sandbox: &Sandbox) -> Vec<SizedList> {
    SIZES
        .iter()
        .map(|&n| {
            let n = ((n as f64 * config.scale).round() as usize).max(10);
            let (agent_dir, bytes) = match subset(corpus, n) {
                Ok(made) => made,
                Err(e) => {
                    let e = format!("{e}");
                    return SizedList {
                        sessions: n,
                        bytes: 0,
                        pitree: Err(eyre!("{e}")),
                        pi: Err(eyre!("{e}")),
                    };
                }
            };
            eprintln!("pitree list --all --json and pi listAll over {n} sessions, {} runs", config.runs);
            let probe = pitree_probe_at(&["list", "--all", "--json"], &agent_dir, sandbox);
            let pitree = time_listing(&probe, config.runs, sandbox, || sandbox.reset());
            let pi = reference::pi_list_all(&agent_dir, config.slow_runs, sandbox);
            SizedList { sessions: n, bytes, pitree, pi }
        })
        .collect()
}

/// An agent dir of `n` sessions of the corpus (every k-th file, hard-linked, so their sizes spread
/// as the whole corpus's do), made once; and their bytes.
fn subset(corpus: &Corpus, n: usize) -> Result<(PathBuf, u64)> {
    let files = reference::session_files(&corpus.agent_dir)?;
    let step = (files.len() / n.max(1)).max(1);
    let chosen: Vec<&PathBuf> = files.iter().step_by(step).take(n).collect();
    let agent_dir = corpus.root.join("subsets").join(n.to_string()).join("agent");
    let sessions = agent_dir.join("sessions");
    let mut bytes = 0;
    for file in chosen {
        let folder = file
            .parent()
            .and_then(Path::file_name)
            .ok_or_else(|| eyre!("{} has no folder", file.display()))?;
        let to = sessions.join(folder).join(file.file_name().unwrap_or_default());
        if !to.exists() {
            fs::create_dir_all(sessions.join(folder)).wrap_err("creating a subset folder")?;
            fs::hard_link(file, &to).wrap_err_with(|| format!("linking {}", file.display()))?;
        }
        bytes += fs::metadata(&to)?.len();
    }
    Ok((agent_dir, bytes))
}

// ---------------------------------------------------------------------------------------------
// Rows

pub fn rows(
    corpus: &Corpus,
    references: &References,
    lists: &Lists,
    search: &Result<Measured<SearchReport>>,
) -> Vec<Row> {
    let stats = &corpus.catalog;
    let cold_work =
        format!("List {} sessions / {}, no index", thousands(stats.files), size(stats.counts.bytes));
    vec![
        Row {
            work: cold_work.clone(),
            pitree: cell(&lists.cold, listing_cell),
            pitree_rss: rss_cell(&lists.cold, |l| &l.timing),
            reference: cell(&references.newlines, |n| {
                format!("newline count {}", duration(n.timing.median()))
            }),
            reference_rss: "–".into(),
            judged: judge_pair(&lists.cold, &references.newlines, |cold, n| {
                Judged::info(format!(
                    "{:.2}× the newline count",
                    ratio(cold.timing.median(), n.timing.median())
                ))
            }),
            target: "– (product.md: ≤ 2×; restated against the floor below)".into(),
        },
        Row {
            work: "The same listing against its floor".into(),
            pitree: cell(&lists.cold, listing_cell),
            pitree_rss: rss_cell(&lists.cold, |l| &l.timing),
            reference: cell(&references.json_check, |c| format!("floor {}", duration(c.timing.median()))),
            reference_rss: "–".into(),
            judged: judge_pair(&lists.cold, &references.json_check, |cold, floor| {
                let r = ratio(cold.timing.median(), floor.timing.median());
                Judged::check(format!("{r:.2}× the floor"), r <= FLOOR_TARGET)
            }),
            target: format!("≤ {FLOOR_TARGET}× the floor (read + JSON check of every line)"),
        },
        Row {
            work: "Floor: read the same files and check every line is JSON, nothing else (in-process)".into(),
            pitree: cell(&references.json_check, |c| {
                format!(
                    "{} · {} lines, {} not JSON",
                    duration(c.timing.median()),
                    thousands(c.lines),
                    thousands(c.invalid)
                )
            }),
            pitree_rss: "–".into(),
            reference: cell(&references.newlines, |n| {
                format!("newline count {}", duration(n.timing.median()))
            }),
            reference_rss: "–".into(),
            judged: judge_pair(&references.json_check, &references.newlines, |c, n| {
                Judged::info(format!("{:.2}× the newline count", ratio(c.timing.median(), n.timing.median())))
            }),
            target: "– (the check of every line that a listing equal to pi's cannot skip)".into(),
        },
        Row {
            work: "The same listing against the floor as a process of its own (one pass: process start, fresh buffers)".into(),
            pitree: cell(&lists.cold, listing_cell),
            pitree_rss: rss_cell(&lists.cold, |l| &l.timing),
            reference: cell(&references.json_check_process, |floor| {
                format!("floor process {}", duration(floor.process.median()))
            }),
            reference_rss: rss_cell(&references.json_check_process, |floor| &floor.process),
            judged: judge_pair(&lists.cold, &references.json_check_process, |cold, floor| {
                Judged::info(format!("{:.2}× the floor process", ratio(cold.timing.median(), floor.process.median())))
            }),
            target: "– (what a listing process pays for the check alone)".into(),
        },
        Row {
            work: cold_work,
            pitree: cell(&lists.cold, listing_cell),
            pitree_rss: rss_cell(&lists.cold, |l| &l.timing),
            reference: cell(&references.pi_list_all, |pi| {
                format!("pi listAll {}", duration(pi.timing.median()))
            }),
            reference_rss: rss_cell(&references.pi_list_all, |pi| &pi.timing),
            judged: judge_pair(&lists.cold, &references.pi_list_all, |cold, pi| {
                let r = ratio(pi.timing.median(), cold.timing.median());
                Judged::check(format!("{r:.1}× faster"), r >= 10.0)
            }),
            target: "≥ 10× faster than pi's listAll".into(),
        },
        Row {
            work: "List again, nothing changed (index)".into(),
            pitree: cell(&lists.warm, listing_cell),
            pitree_rss: rss_cell(&lists.warm, |l| &l.timing),
            reference: cell(&lists.cold, |cold| format!("no index {}", duration(cold.timing.median()))),
            reference_rss: rss_cell(&lists.cold, |l| &l.timing),
            judged: judge_pair(&lists.warm, &lists.cold, |warm, cold| {
                let r = ratio(warm.timing.median(), cold.timing.median());
                Judged::check(format!("{:.1}% of no index", r * 100.0), r <= 0.05)
            }),
            target: "≤ 5% of the no-index time".into(),
        },
        grown_row(lists),
        keystroke_row(stats.files, search),
    ]
}

/// The cold listing at each smaller size against pi's `listAll` of the same files.
pub fn sized_rows(sizes: &[SizedList]) -> Vec<Row> {
    sizes
        .iter()
        .map(|s| Row {
            work: format!("List {} sessions / {}, no index", thousands(s.sessions as u64), size(s.bytes)),
            pitree: cell(&s.pitree, listing_cell),
            pitree_rss: rss_cell(&s.pitree, |l| &l.timing),
            reference: cell(&s.pi, |pi| format!("pi listAll {}", duration(pi.timing.median()))),
            reference_rss: rss_cell(&s.pi, |pi| &pi.timing),
            judged: judge_pair(&s.pitree, &s.pi, |list, pi| {
                let r = ratio(pi.timing.median(), list.timing.median());
                Judged::check(format!("{r:.1}× faster"), r >= 10.0)
            }),
            target: "≥ 10× faster than pi's listAll".into(),
        })
        .collect()
}

fn grown_row(lists: &Lists) -> Row {
    Row {
        work: format!("List after one session grew by {}", size(GROW_BYTES)),
        pitree: cell(&lists.grown, |grown| listing_cell(&grown.listing)),
        pitree_rss: rss_cell(&lists.grown, |g| &g.listing.timing),
        reference: pair(&lists.grown, &lists.warm, |grown, warm| {
            format!(
                "appended {}; unchanged relist read {}; index file {}",
                size(grown.appended),
                read_size(&warm.timing),
                grown.index.map_or_else(|| "n/a".into(), size)
            )
        }),
        reference_rss: "–".into(),
        judged: judge_pair(&lists.grown, &lists.warm, grown_ratio),
        target: "reads only the appended bytes (within 25%)".into(),
    }
}

/// Extra bytes read because of the growth, against the bytes appended (met within 25%).
fn grown_ratio(grown: &Grown, warm: &Listing) -> Judged {
    match (grown.listing.timing.read_bytes, warm.timing.read_bytes) {
        (Some(after), Some(before)) => {
            let extra = after.saturating_sub(before);
            let r = extra as f64 / grown.appended.max(1) as f64;
            Judged::check(format!("read {} more = {r:.2}× appended", size(extra)), r <= 1.25)
        }
        _ => Judged::info("n/a: /proc/<pid>/io was not readable".into()),
    }
}

fn keystroke_row(files: u64, search: &Result<Measured<SearchReport>>) -> Row {
    let typing = |m: &Measured<SearchReport>| Typing::of(&m.reports, |k| k.catalog);
    Row {
        work: format!(
            "Search, one keystroke over all {} sessions (catalog index, threaded order)",
            thousands(files)
        ),
        pitree: cell(search, |m| typing(m).cell()),
        pitree_rss: "–".into(),
        reference: "–".into(),
        reference_rss: "–".into(),
        judged: judge(search, |m| typing(m).judge(KEYSTROKE_TARGET)),
        target: format!("≤ {} per keystroke (the slowest one)", duration(KEYSTROKE_TARGET)),
    }
}

fn listing_cell(listing: &Listing) -> String {
    let timing = &listing.timing;
    let mut text = format!("{} · {} listed", duration(timing.median()), thousands(listing.listed as u64));
    if let Some(read) = timing.read_bytes {
        text += &format!(" · read {}", size(read));
    }
    text
}

fn read_size(timing: &Timing) -> String {
    timing.read_bytes.map_or_else(|| "n/a".into(), size)
}
