//! The bench's markdown tables and the formatting of their cells.
//!
//! A [`Row`] is all text: a measurement that failed shows as `n/a: <reason>` ([`cell`], [`pair`]),
//! and a row's ratio and verdict come together in a [`Judged`] ([`judge`], [`judge_pair`]), which is
//! `n/a` when a measurement it needs is missing. Every table has the columns work, pitree (median),
//! reference (median, measured in the same run), ratio, target and met/missed; [`print_table`] adds
//! the two peak RSS columns when asked.

use std::time::Duration;

use color_eyre::eyre::{Report, Result};

use crate::reference::Timing;

/// Whether a row met its target.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Met,
    Missed,
    /// A row that informs and has no target of its own.
    NoTarget,
    /// A measurement the verdict needs is missing.
    NotMeasured,
}

impl Verdict {
    fn text(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::Missed => "**missed**",
            Verdict::NoTarget => "–",
            Verdict::NotMeasured => "n/a",
        }
    }
}

/// A row's ratio cell and its verdict.
pub struct Judged {
    pub ratio: String,
    pub verdict: Verdict,
}

impl Judged {
    /// A ratio against a target.
    pub fn check(ratio: String, met: bool) -> Judged {
        Judged { ratio, verdict: if met { Verdict::Met } else { Verdict::Missed } }
    }

    /// A ratio given for information only.
    pub fn info(ratio: String) -> Judged {
        Judged { ratio, verdict: Verdict::NoTarget }
    }

    fn not_measured(ratio: String) -> Judged {
        Judged { ratio, verdict: Verdict::NotMeasured }
    }
}

/// One line of a results table; every cell is already text.
pub struct Row {
    pub work: String,
    pub pitree: String,
    pub pitree_rss: String,
    pub reference: String,
    pub reference_rss: String,
    pub judged: Judged,
    pub target: String,
}

/// Prints `rows` under a `## title` heading, with the peak RSS columns when `rss`.
pub fn print_table(title: &str, rows: &[Row], rss: bool) {
    println!("## {title}\n");
    if rss {
        println!(
            "| Work | pitree (median) | pitree peak RSS | Reference (median, same run) | Reference peak RSS \
             | Ratio | Target | Met |"
        );
        println!("|---|---|---|---|---|---|---|---|");
    } else {
        println!("| Work | pitree (median) | Reference (median, same run) | Ratio | Target | Met |");
        println!("|---|---|---|---|---|---|");
    }
    for row in rows {
        let verdict = row.judged.verdict.text();
        if rss {
            print_cells(&[
                &row.work,
                &row.pitree,
                &row.pitree_rss,
                &row.reference,
                &row.reference_rss,
                &row.judged.ratio,
                &row.target,
                verdict,
            ]);
        } else {
            print_cells(&[&row.work, &row.pitree, &row.reference, &row.judged.ratio, &row.target, verdict]);
        }
    }
    println!();
}

pub fn print_cells(cells: &[&str]) {
    let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|").replace('\n', " ")).collect();
    println!("| {} |", cells.join(" | "));
}

// ---------------------------------------------------------------------------------------------
// Cells

/// The text of a measurement, or `n/a: <reason>`.
pub fn cell<T>(measured: &Result<T>, show: impl Fn(&T) -> String) -> String {
    match measured {
        Ok(value) => show(value),
        Err(error) => not_available(error),
    }
}

/// A cell computed from two measurements.
pub fn pair<A, B>(a: &Result<A>, b: &Result<B>, show: impl Fn(&A, &B) -> String) -> String {
    match (a, b) {
        (Ok(a), Ok(b)) => show(a, b),
        _ => "n/a: needs both measurements".into(),
    }
}

/// The ratio and verdict of one measurement.
pub fn judge<T>(measured: &Result<T>, show: impl Fn(&T) -> Judged) -> Judged {
    match measured {
        Ok(value) => show(value),
        Err(_) => Judged::not_measured("n/a".into()),
    }
}

/// The ratio and verdict of two measurements.
pub fn judge_pair<A, B>(a: &Result<A>, b: &Result<B>, show: impl Fn(&A, &B) -> Judged) -> Judged {
    match (a, b) {
        (Ok(a), Ok(b)) => show(a, b),
        _ => Judged::not_measured("n/a: needs both measurements".into()),
    }
}

pub fn not_available(error: &Report) -> String {
    let reasons: Vec<String> = error.chain().map(ToString::to_string).collect();
    format!("n/a: {}", reasons.join(": "))
}

/// The peak RSS of a command, `–` when it was not measured.
pub fn rss_cell<T>(measured: &Result<T>, timing: impl Fn(&T) -> &Timing) -> String {
    match measured {
        Ok(value) => timing(value).peak_rss.map_or_else(|| "–".into(), size),
        Err(_) => "–".into(),
    }
}

pub fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}

/// The median of some samples (zero when there are none).
pub fn median(samples: &[Duration]) -> Duration {
    quantile(samples, 0.5)
}

/// The sample at `q` (0…1) of the sorted samples.
pub fn quantile(samples: &[Duration], q: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    let at = ((sorted.len().saturating_sub(1)) as f64 * q).round() as usize;
    sorted.get(at).copied().unwrap_or_default()
}

pub fn duration(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    match ms {
        1e3.. => format!("{:.2} s", ms / 1e3),
        10.0.. => format!("{ms:.1} ms"),
        _ => format!("{ms:.2} ms"),
    }
}

pub fn size(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        1_000_000_000.. => format!("{:.2} GB", b / 1e9),
        1_000_000.. => format!("{:.1} MB", b / 1e6),
        1_000.. => format!("{:.1} KB", b / 1e3),
        _ => format!("{bytes} B"),
    }
}

pub fn thousands(n: u64) -> String {
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
