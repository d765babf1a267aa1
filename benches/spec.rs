//! The benchmark command of product spec §9: `cargo bench --bench spec`.
//!
//! It generates its own deterministic corpus, measures the references in the same run, then times
//! pitree against them and prints markdown tables: the corpus, the references, and the spec rows
//! (median, ratio, target, met or missed).
//!
//! # Running
//!
//! ```text
//! cargo bench --bench spec                           # full scale: 5,000 sessions / 1 GB + a 300 MB session
//! cargo bench --bench spec -- --quick                # scale 0.05, a smoke test that takes seconds
//! PITREE_BENCH_SCALE=0.2 cargo bench --bench spec    # any scale
//! PITREE_BENCH_DIR=/fast/disk cargo bench --bench spec
//! ```
//!
//! - `PITREE_BENCH_SCALE` (default 1; `--quick` means 0.05) scales the session count, the bytes and
//!   the big session's entries together.
//! - `PITREE_BENCH_DIR` (default `target/bench-corpus`) holds one corpus per scale (`full/`,
//!   `scale-0.05/`, …): the catalog agent dir `agent/`, the big session under `big/`, the marker
//!   `corpus.json`, and `sandbox/` (HOME, XDG dirs and the last command's stdout/stderr in `out/`).
//!   A corpus whose marker matches the generator version and scale is reused, not rewritten
//!   (the full one is about 1.3 GB and takes well under a minute to write).
//! - `PITREE_BENCH_BIN` replaces the pitree binary, e.g. to time an installed release. By default it
//!   is the `pitree` that cargo builds for this bench (`CARGO_BIN_EXE_pitree`, the release profile,
//!   `target/release/pitree`), so it is always current: no separate build step is needed.
//! - The pi references need `node` and `npm ci --prefix tests/compat`; without them their cells say
//!   `n/a` and the rest still runs. Each command gets its own HOME and XDG dirs in the sandbox with
//!   `PI_CODING_AGENT_DIR` set to the corpus, so the real `~/.pi` and caches are never touched.
//!
//! # Rows
//!
//! - **List, no index**: `pitree list --all --json` with empty cache and data dirs before each run,
//!   against (a) a plain newline count of the same files (read whole, `memchr`, parallel over files;
//!   target ≤ 2×) and (b) pi 1.6.0's `SessionManager.listAll()` (target ≥ 10× faster).
//! - **List again, nothing changed**: the same command with the index the cold runs left (≤ 5% of cold).
//! - **List after one session grew by 1 MB**: before each run about 1 MB of pi turns is appended to the
//!   newest session (put back afterwards). The bytes the process read (`rchar`) minus those of an
//!   unchanged relist should be about the appended bytes.
//!
//! Every command runs 5 times (the pi references 3 times at full scale) and the median is shown,
//! with the largest peak RSS. Files are page-cached first (an untimed newline pass), so the rows
//! compare CPU work, not the disk. A command that fails, exits non-zero or prints no JSON turns its
//! row into `n/a: <reason>`. To add a row, measure into a `Result` and push a [`Row`] built with
//! [`cell`] and [`pair`].

mod corpus;
mod reference;

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use color_eyre::eyre::{Report, Result, WrapErr, bail, eyre};

use corpus::Corpus;
use reference::{Newlines, PiTiming, Probe, Sandbox, Timing};

const QUICK_SCALE: f64 = 0.05;
const GROW_BYTES: u64 = 1_000_000;
const PITREE_TIMEOUT: Duration = Duration::from_secs(600);

struct Config {
    scale: f64,
    root: PathBuf,
    /// Runs of each pitree command and of the newline count.
    runs: usize,
    /// Runs of each pi reference.
    slow_runs: usize,
}

impl Config {
    fn load() -> Result<Self> {
        let quick = env::args().skip(1).any(|arg| arg == "--quick");
        let scale = match env::var("PITREE_BENCH_SCALE").ok() {
            _ if quick => QUICK_SCALE,
            Some(value) => value
                .trim()
                .parse()
                .wrap_err_with(|| format!("PITREE_BENCH_SCALE={value:?} is not a number"))?,
            None => 1.0,
        };
        if !(scale.is_finite() && scale > 0.0) {
            bail!("PITREE_BENCH_SCALE must be a positive number, not {scale}");
        }
        let base = env::var_os("PITREE_BENCH_DIR").map(PathBuf::from).unwrap_or_else(default_corpus_dir);
        let name = if scale == 1.0 { "full".to_string() } else { format!("scale-{scale}") };
        Ok(Self { scale, root: base.join(name), runs: 5, slow_runs: if scale >= 0.5 { 3 } else { 5 } })
    }
}

fn default_corpus_dir() -> PathBuf {
    env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("bench-corpus")
}

fn main() -> Result<()> {
    if let Some(launched) = reference::run_as_launcher() {
        return launched;
    }
    color_eyre::install()?;
    let started = Instant::now();
    let config = Config::load()?;
    eprintln!("pitree spec bench: scale {}, corpus in {}", config.scale, config.root.display());
    let corpus = corpus::ensure(&config.root, config.scale)?;
    print_corpus(&config, &corpus);
    let sandbox = Sandbox::create(&corpus.root.join("sandbox"))?;
    let references = measure_references(&config, &corpus, &sandbox)?;
    let lists = measure_lists(&config, &corpus, &sandbox);
    print_references(&corpus, &references);
    print_table("Spec §9", &list_rows(&corpus, &references, &lists));
    println!(
        "\nThe last command's stdout and stderr are in {}. The bench took {}.",
        sandbox.out_dir().display(),
        duration(started.elapsed())
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Measuring

struct References {
    newlines: Result<Newlines>,
    big_newlines: Result<Newlines>,
    pi_list_all: Result<PiTiming>,
    pi_open: Result<PiTiming>,
}

fn measure_references(config: &Config, corpus: &Corpus, sandbox: &Sandbox) -> Result<References> {
    let files = reference::session_files(&corpus.agent_dir)?;
    eprintln!("newline count over {} files, {} runs", files.len(), config.runs);
    let newlines = reference::newline_count(&files, config.runs);
    let big_newlines = reference::newline_count(std::slice::from_ref(&corpus.big_session), config.runs);
    eprintln!("pi 1.6.0 listAll, {} runs", config.slow_runs);
    let pi_list_all = reference::pi_list_all(&corpus.agent_dir, config.slow_runs, sandbox);
    eprintln!("pi 1.6.0 open + getTree of the big session, {} runs", config.slow_runs);
    let pi_open = reference::pi_open(&corpus.big_session, &corpus.big_agent_dir, config.slow_runs, sandbox);
    Ok(References { newlines, big_newlines, pi_list_all, pi_open })
}

struct Lists {
    cold: Result<Timing>,
    warm: Result<Timing>,
    grown: Result<Grown>,
}

struct Grown {
    timing: Timing,
    /// Median bytes appended before a run.
    appended: u64,
}

fn measure_lists(config: &Config, corpus: &Corpus, sandbox: &Sandbox) -> Lists {
    let probe = pitree_probe(&["list", "--all", "--json"], corpus, sandbox);
    eprintln!("pitree list --all --json: no index, {} runs", config.runs);
    let cold = time_json(&probe, config.runs, sandbox, || sandbox.reset());
    let warm = match &cold {
        Ok(_) => {
            eprintln!("pitree list --all --json: unchanged, {} runs", config.runs);
            time_json(&probe, config.runs, sandbox, || Ok(()))
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
    let timing = time_json(probe, config.runs, sandbox, || {
        appended.push(corpus::append_bytes(growth.path(), GROW_BYTES)?);
        Ok(())
    });
    growth.restore()?;
    appended.sort_unstable();
    Ok(Grown { timing: timing?, appended: appended.get(appended.len() / 2).copied().unwrap_or(0) })
}

/// The pitree binary with the sandbox environment and the catalog as `PI_CODING_AGENT_DIR`.
fn pitree_probe(args: &[&str], corpus: &Corpus, sandbox: &Sandbox) -> Probe {
    let program = env::var_os("PITREE_BENCH_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_pitree").into());
    Probe {
        program,
        args: args.iter().map(OsString::from).collect(),
        env: sandbox.env(&corpus.agent_dir),
        cwd: sandbox.home(),
        timeout: PITREE_TIMEOUT,
    }
}

/// Times a command whose stdout must be one JSON document (checked after the last run).
fn time_json(
    probe: &Probe,
    runs: usize,
    sandbox: &Sandbox,
    before_each: impl FnMut() -> Result<()>,
) -> Result<Timing> {
    let timing = reference::time_command(probe, runs, sandbox, before_each)?;
    let stdout = fs::read(sandbox.stdout()).wrap_err("reading the command's stdout")?;
    if stdout.iter().all(u8::is_ascii_whitespace) {
        bail!("printed nothing on stdout (is `pitree list --json` implemented?)");
    }
    serde_json::from_slice::<serde::de::IgnoredAny>(&stdout).wrap_err("stdout is not one JSON document")?;
    Ok(timing)
}

// ---------------------------------------------------------------------------------------------
// Rows

/// One line of a results table; every cell is already text, `n/a: <reason>` when not measured.
struct Row {
    work: String,
    pitree: String,
    reference: String,
    ratio: String,
    target: String,
}

fn list_rows(corpus: &Corpus, references: &References, lists: &Lists) -> Vec<Row> {
    let stats = &corpus.catalog;
    let cold_work =
        format!("List {} sessions / {}, no index", thousands(stats.files), size(stats.counts.bytes));
    vec![
        Row {
            work: cold_work.clone(),
            pitree: cell(&lists.cold, command_cell),
            reference: cell(&references.newlines, |n| {
                format!("newline count {}", duration(n.timing.median()))
            }),
            ratio: pair(&lists.cold, &references.newlines, |cold, n| {
                let r = ratio(cold.median(), n.timing.median());
                format!("{r:.2}× {}", verdict(r <= 2.0))
            }),
            target: "≤ 2× the newline count".into(),
        },
        Row {
            work: cold_work,
            pitree: cell(&lists.cold, command_cell),
            reference: cell(&references.pi_list_all, |pi| {
                format!("pi listAll {}", duration(pi.timing.median()))
            }),
            ratio: pair(&lists.cold, &references.pi_list_all, |cold, pi| {
                let r = ratio(pi.timing.median(), cold.median());
                format!("{r:.1}× faster {}", verdict(r >= 10.0))
            }),
            target: "≥ 10× faster than pi's listAll".into(),
        },
        Row {
            work: "List again, nothing changed (index)".into(),
            pitree: cell(&lists.warm, command_cell),
            reference: cell(&lists.cold, |cold| format!("no index {}", duration(cold.median()))),
            ratio: pair(&lists.warm, &lists.cold, |warm, cold| {
                let r = ratio(warm.median(), cold.median());
                format!("{:.1}% {}", r * 100.0, verdict(r <= 0.05))
            }),
            target: "≤ 5% of the no-index time".into(),
        },
        Row {
            work: format!("List after one session grew by {}", size(GROW_BYTES)),
            pitree: cell(&lists.grown, |grown| command_cell(&grown.timing)),
            reference: pair(&lists.grown, &lists.warm, |grown, warm| {
                format!(
                    "appended {}; unchanged relist read {}",
                    size(grown.appended),
                    read_size(warm.read_bytes)
                )
            }),
            ratio: pair(&lists.grown, &lists.warm, grown_ratio),
            target: "reads only the appended bytes".into(),
        },
    ]
}

/// Extra bytes read because of the growth, against the bytes appended (met within 25%).
fn grown_ratio(grown: &Grown, warm: &Timing) -> String {
    match (grown.timing.read_bytes, warm.read_bytes) {
        (Some(after), Some(before)) => {
            let extra = after.saturating_sub(before);
            let r = extra as f64 / grown.appended.max(1) as f64;
            format!("read {} more = {r:.2}× appended {}", size(extra), verdict(r <= 1.25))
        }
        _ => "n/a: /proc/<pid>/io was not readable".into(),
    }
}

/// The text of a measurement, or `n/a: <reason>`.
fn cell<T>(measured: &Result<T>, show: impl Fn(&T) -> String) -> String {
    match measured {
        Ok(value) => show(value),
        Err(error) => not_available(error),
    }
}

/// A cell computed from two measurements.
fn pair<A, B>(a: &Result<A>, b: &Result<B>, show: impl Fn(&A, &B) -> String) -> String {
    match (a, b) {
        (Ok(a), Ok(b)) => show(a, b),
        _ => "n/a: needs both measurements".into(),
    }
}

fn not_available(error: &Report) -> String {
    let reasons: Vec<String> = error.chain().map(ToString::to_string).collect();
    format!("n/a: {}", reasons.join(": "))
}

fn command_cell(timing: &Timing) -> String {
    let mut text = duration(timing.median());
    if let Some(rss) = timing.peak_rss {
        text += &format!(" · RSS {}", size(rss));
    }
    if let Some(read) = timing.read_bytes {
        text += &format!(" · read {}", size(read));
    }
    text
}

fn verdict(met: bool) -> &'static str {
    if met { "(met)" } else { "(missed)" }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}

// ---------------------------------------------------------------------------------------------
// Printing

fn print_corpus(config: &Config, corpus: &Corpus) {
    let stats = &corpus.catalog;
    let c = &stats.counts;
    let how = if corpus.reused { "reused; it was generated in" } else { "generated in" };
    println!("## Corpus (generator v{}, scale {})\n", corpus::GENERATOR_VERSION, config.scale);
    println!("{} ({how} {})\n", corpus.root.display(), duration(corpus.generation));
    println!(
        "- catalog: {} sessions over {} cwds, {}, {} entries ({} messages); median file {}, largest {}",
        thousands(stats.files),
        stats.cwds,
        size(c.bytes),
        thousands(c.entries),
        thousands(c.messages),
        size(stats.median_file),
        size(stats.largest_file),
    );
    println!(
        "- kinds: {} forks, {} legacy v1 + {} v2, {} damaged, {} named",
        thousands(stats.forks),
        thousands(stats.v1),
        thousands(stats.v2),
        thousands(stats.damaged),
        thousands(stats.named),
    );
    print_counts("catalog", c);
    println!(
        "- big session: {}, {} entries ({} messages), {}",
        size(corpus.big.bytes),
        thousands(corpus.big.entries),
        thousands(corpus.big.messages),
        corpus.big_session.display()
    );
    print_counts("big session", &corpus.big);
    println!();
}

fn print_counts(what: &str, c: &corpus::Counts) {
    let percent = |n: u64, of: u64| 100.0 * n as f64 / of.max(1) as f64;
    println!(
        "- {what} content: {} user turns ({} with an image, {:.1}%), {} tool results ({} of 20–300 KB, {:.1}%), \
         {} branch points ({} summarized), {} labels, {} names, {} compactions",
        thousands(c.user_turns),
        thousands(c.images),
        percent(c.images, c.user_turns),
        thousands(c.tool_results),
        thousands(c.big_results),
        percent(c.big_results, c.tool_results),
        thousands(c.branches),
        thousands(c.branch_summaries),
        thousands(c.labels),
        thousands(c.names),
        thousands(c.compactions),
    );
}

fn print_references(corpus: &Corpus, references: &References) {
    println!("## References\n");
    println!("| Reference | Median | Runs | Peak RSS | Notes |");
    println!("|---|---|---|---|---|");
    for (name, newlines) in [
        ("Newline count, catalog", &references.newlines),
        ("Newline count, big session", &references.big_newlines),
    ] {
        let notes = |n: &Newlines| {
            let rate = n.bytes as f64 / n.timing.median().as_secs_f64().max(1e-9);
            format!(
                "{} file{}, {}, {} newlines, {}/s",
                thousands(n.files as u64),
                if n.files == 1 { "" } else { "s" },
                size(n.bytes),
                thousands(n.newlines),
                size(rate as u64)
            )
        };
        print_reference(name, newlines.as_ref().map(|n| &n.timing), cell(newlines, notes));
    }
    print_reference(
        "pi 1.6.0 listAll, catalog",
        references.pi_list_all.as_ref().map(|pi| &pi.timing),
        cell(&references.pi_list_all, |pi| pi_count(pi, "sessions listed")),
    );
    let half = size(corpus.big.bytes / 2);
    print_reference(
        "pi 1.6.0 open + getTree, big session",
        references.pi_open.as_ref().map(|pi| &pi.timing),
        cell(&references.pi_open, |pi| {
            format!("{}; pitree must be ≥ 10× faster in ≤ {half}", pi_count(pi, "tree roots"))
        }),
    );
    println!();
}

fn pi_count(pi: &PiTiming, what: &str) -> String {
    pi.count.map_or_else(|| "no count".into(), |n| format!("{what}: {}", thousands(n)))
}

fn print_reference(name: &str, timing: Result<&Timing, &Report>, notes: String) {
    let (median, runs, rss) = match timing {
        Ok(t) => (
            duration(t.median()),
            t.runs.iter().map(|d| duration(*d)).collect::<Vec<_>>().join(", "),
            t.peak_rss.map_or_else(|| "–".into(), size),
        ),
        Err(_) => ("n/a".into(), "–".into(), "–".into()),
    };
    print_cells(&[name, &median, &runs, &rss, &notes]);
}

fn print_table(title: &str, rows: &[Row]) {
    println!("## {title}\n");
    println!("| Work | pitree | Reference | Ratio | Target |");
    println!("|---|---|---|---|---|");
    for row in rows {
        print_cells(&[&row.work, &row.pitree, &row.reference, &row.ratio, &row.target]);
    }
}

fn print_cells(cells: &[&str]) {
    let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|").replace('\n', " ")).collect();
    println!("| {} |", cells.join(" | "));
}

fn duration(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms < 1e3 { format!("{ms:.1} ms") } else { format!("{:.2} s", ms / 1e3) }
}

fn size(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        1_000_000_000.. => format!("{:.2} GB", b / 1e9),
        1_000_000.. => format!("{:.1} MB", b / 1e6),
        1_000.. => format!("{:.1} KB", b / 1e3),
        _ => format!("{bytes} B"),
    }
}

fn read_size(bytes: Option<u64>) -> String {
    bytes.map_or_else(|| "n/a".into(), size)
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
