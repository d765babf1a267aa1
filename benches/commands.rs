//! The command-line area: `pitree context BIG --json` and `pitree show BIG` (and `show --json`) on
//! the big session as whole processes, first with an empty cache folder, then again (from the
//! parsed-session cache the first run left), then after 1 MB was appended; next to pi's `open` +
//! `getTree` + `buildSessionContext` on the same file. The cost of reading the appended megabyte
//! comes from the `open-cached` worker (`tree.rs`), which parses it alone.

use std::cell::RefCell;
use std::fs;
use std::time::Duration;

use color_eyre::eyre::{Result, WrapErr, bail};

use crate::corpus::{self, Corpus, Growth};
use crate::reference::{self, PiTiming, Sandbox, Timing};
use crate::table::{Judged, Row, cell, duration, judge_pair, ratio, rss_cell, size};
use crate::{Config, References, pitree_probe};

/// How much is appended to the big session for the "after pi appended" rows.
pub const GROW_BYTES: u64 = 1_000_000;
/// `pitree context` and `pitree show` against pi (issue: ≥ 12× in the same run).
const FASTER_TARGET: f64 = 12.0;
/// A second `pitree context` against the first.
const AGAIN_TARGET: f64 = 0.25;
/// After an append, against reading the appended bytes plus the unchanged open.
pub const GROWN_TARGET: f64 = 1.3;

pub struct Commands {
    context_cold: Result<Timing>,
    context_again: Result<Timing>,
    context_grown: Result<Timing>,
    show_cold: Result<Timing>,
    show_again: Result<Timing>,
    show_json_cold: Result<Timing>,
}

pub fn measure(config: &Config, corpus: &Corpus, sandbox: &Sandbox) -> Commands {
    let big = corpus.big_session.to_string_lossy().into_owned();
    let context = pitree_probe(&["context", &big, "--json"], corpus, sandbox);
    let show = pitree_probe(&["show", &big], corpus, sandbox);
    let show_json = pitree_probe(&["show", &big, "--json"], corpus, sandbox);
    let runs = config.runs;
    eprintln!("pitree context BIG --json: empty cache, again, after 1 MB appended, {runs} runs each");
    let context_cold = reference::time_command(&context, runs, sandbox, || sandbox.reset());
    let expected = fs::read(sandbox.stdout()).wrap_err("reading the context");
    let context_again = reference::time_command(&context, runs, sandbox, || Ok(()))
        .and_then(|t| same_output(sandbox, &expected).map(|()| t));
    let context_grown = grown(corpus, |before| reference::time_command(&context, runs, sandbox, before));
    eprintln!("pitree show BIG: empty cache, again, {runs} runs each; show --json, empty cache");
    let show_cold = reference::time_command(&show, runs, sandbox, || sandbox.reset());
    let expected = fs::read(sandbox.stdout()).wrap_err("reading the rows");
    let show_again = reference::time_command(&show, runs, sandbox, || Ok(()))
        .and_then(|t| same_output(sandbox, &expected).map(|()| t));
    let show_json_cold = reference::time_command(&show_json, config.slow_runs, sandbox, || sandbox.reset());
    Commands { context_cold, context_again, context_grown, show_cold, show_again, show_json_cold }
}

/// The last run printed what `expected` holds.
fn same_output(sandbox: &Sandbox, expected: &Result<Vec<u8>>) -> Result<()> {
    let Ok(expected) = expected else { bail!("the first run's output is missing") };
    if fs::read(sandbox.stdout()).wrap_err("reading the output")? != *expected {
        bail!("printed other bytes than the run with an empty cache");
    }
    Ok(())
}

/// Runs `measure` with [`GROW_BYTES`] appended to the big session before each run (the session is
/// put back after each, so every run finds the same cache and the same 1 MB), then puts it back.
pub fn grown<T>(
    corpus: &Corpus,
    measure: impl FnOnce(&mut dyn FnMut() -> Result<()>) -> Result<T>,
) -> Result<T> {
    let pending: RefCell<Option<Growth>> = RefCell::new(None);
    let restore = || pending.borrow_mut().take().map_or(Ok(()), Growth::restore);
    let mut before = || {
        restore()?;
        let growth = corpus.begin_growth_of(corpus.big_session.clone())?;
        corpus::append_bytes(growth.path(), GROW_BYTES)?;
        *pending.borrow_mut() = Some(growth);
        Ok(())
    };
    let measured = measure(&mut before);
    restore()?;
    measured
}

// ---------------------------------------------------------------------------------------------
// Rows

fn pi_context_cell(references: &References) -> String {
    cell(&references.pi_context, |pi| {
        format!("pi open + getTree + buildSessionContext {}", duration(pi.timing.median()))
    })
}

fn faster(pitree: &Timing, pi: &PiTiming) -> Judged {
    let r = ratio(pi.timing.median(), pitree.median());
    Judged::check(format!("{r:.1}× faster"), r >= FASTER_TARGET)
}

fn timing_cell(t: &Timing) -> String {
    duration(t.median())
}

/// Met when the command's peak RSS is at most half of the file.
fn half_the_file(t: &Timing, file: u64) -> Judged {
    let r = t.peak_rss.unwrap_or(u64::MAX) as f64 / file.max(1) as f64;
    Judged::check(format!("{r:.2}× the file"), r <= 0.5)
}

pub fn rows(
    corpus: &Corpus,
    references: &References,
    c: &Commands,
    reading_1mb: &Result<Duration>,
) -> Vec<Row> {
    let file = corpus.big.bytes;
    let against_pi = |work: &str, t: &Result<Timing>| Row {
        work: work.into(),
        pitree: cell(t, timing_cell),
        pitree_rss: rss_cell(t, |t| t),
        reference: pi_context_cell(references),
        reference_rss: rss_cell(&references.pi_context, |pi| &pi.timing),
        judged: judge_pair(t, &references.pi_context, faster),
        target: format!("≥ {FASTER_TARGET}× faster than pi"),
    };
    let memory = |work: &str, t: &Result<Timing>| Row {
        work: work.into(),
        pitree: cell(t, |t| t.peak_rss.map_or_else(|| "–".into(), size)),
        pitree_rss: rss_cell(t, |t| t),
        reference: format!("the file: {}", size(file)),
        reference_rss: "–".into(),
        judged: crate::table::judge(t, |t| half_the_file(t, file)),
        target: format!("≤ half the file ({})", size(file / 2)),
    };
    vec![
        against_pi(&format!("`pitree context BIG --json`, empty cache ({})", size(file)), &c.context_cold),
        memory("`pitree context BIG --json`, empty cache, peak memory", &c.context_cold),
        Row {
            work: "`pitree context BIG --json` again (from the cache the first run left)".into(),
            pitree: cell(&c.context_again, timing_cell),
            pitree_rss: rss_cell(&c.context_again, |t| t),
            reference: cell(&c.context_cold, |t| format!("empty cache {}", duration(t.median()))),
            reference_rss: rss_cell(&c.context_cold, |t| t),
            judged: judge_pair(&c.context_again, &c.context_cold, |again, cold| {
                let r = ratio(again.median(), cold.median());
                Judged::check(format!("{r:.2}× the first"), r <= AGAIN_TARGET)
            }),
            target: format!("≤ {AGAIN_TARGET}× the first run"),
        },
        grown_row(
            &format!("`pitree context BIG --json` after pi appended {}", size(GROW_BYTES)),
            &c.context_grown.as_ref().map(Timing::median).map_err(|e| color_eyre::eyre::eyre!("{e}")),
            &c.context_again.as_ref().map(Timing::median).map_err(|e| color_eyre::eyre::eyre!("{e}")),
            reading_1mb,
        ),
        against_pi("`pitree show BIG`, empty cache", &c.show_cold),
        memory("`pitree show BIG`, empty cache, peak memory", &c.show_cold),
        against_pi("`pitree show BIG` again (from the cache)", &c.show_again),
        memory("`pitree show BIG --json`, empty cache, peak memory", &c.show_json_cold),
    ]
}

/// A read after an append against the unchanged read plus reading the appended bytes alone.
pub fn grown_row(
    work: &str,
    grown: &Result<Duration>,
    unchanged: &Result<Duration>,
    reading: &Result<Duration>,
) -> Row {
    let both = match (unchanged, reading) {
        (Ok(u), Ok(r)) => Ok((*u, *r)),
        (Err(e), _) | (_, Err(e)) => Err(color_eyre::eyre::eyre!("{e}")),
    };
    Row {
        work: work.into(),
        pitree: cell(grown, |d| duration(*d)),
        pitree_rss: "–".into(),
        reference: cell(&both, |(u, r)| {
            format!("unchanged {} + reading 1 MB alone {}", duration(*u), duration(*r))
        }),
        reference_rss: "–".into(),
        judged: judge_pair(grown, &both, |g, (u, r)| {
            let x = ratio(*g, *u + *r);
            Judged::check(format!("{x:.2}× their sum"), x <= GROWN_TARGET)
        }),
        target: format!("≤ {GROWN_TARGET}× the unchanged read + reading the appended bytes"),
    }
}
