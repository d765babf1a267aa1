//! Deterministic generator of the benchmark corpus (product spec §9).
//!
//! Everything comes from seeded splitmix64 streams (no clock, no `rand`), so one generator version at
//! one scale always writes byte-identical files. Lines have pi 1.6.0's shapes and key order, as in
//! `shared/fixtures/agent/sessions`: the header, `model_change`, `thinking_level_change`, pi's system
//! message, then turns of user → assistant (thinking with signature, text, `toolCall`s) → `toolResult`s,
//! with usage and cost, branches, branch summaries, labels, names, compactions, base64 images and large
//! tool outputs. About 1% of the catalog is legacy (v1 without ids, v2 with `hookMessage`), 0.5% is
//! damaged (a malformed middle line, a truncated last line without `\n`) and 5% are forks whose header
//! `parentSession` is another session's absolute path and whose first lines are copied from it.
//!
//! Session sizes come first (log-normal around 40 KB, plus a few of 10–50 MB, adding up to the
//! spec's total); a session writes turns until its size is reached. Images (4% of user turns) and
//! large tool outputs (10% of results) are only written where the session's budget still has room
//! for them, so small sessions are text only and the corpus-wide rates come out lower than the
//! nominal ones (the stats say by how much): at the nominal rates alone a turn averages ~60 KB,
//! more than 1 GB / 5,000 sessions allows for realistic turn counts. The big session is paced
//! (bytes per entry) so that 100,000 entries come to 300 MB.
//!
//! Layout under the corpus root ([`ensure`]):
//! - `agent/sessions/--<encoded cwd>--/<ts>_<uuid>.jsonl`: the catalog, an agent dir for `PI_CODING_AGENT_DIR`;
//! - `big/sessions/--home-dev-work-monorepo--/<ts>_<uuid>.jsonl`: the one big session;
//! - `corpus.json`: the marker (generator version, specs, and the stats printed when it is reused).
//!
//! Other code can include this module with `#[path = "../benches/corpus/mod.rs"] mod corpus;`
//! (its files beside it come with it) and call [`ensure`], [`write_catalog`], [`write_big_session`]
//! and [`append_bytes`]. The modules follow what they generate: [`rng`] and [`time`] the numbers,
//! ids, timestamps and names; [`vocab`] and [`pools`] the text; [`plan`] every session's shape;
//! [`generator`] the lines of a session; [`write`] the files.

mod generator;
mod plan;
mod pools;
mod rng;
mod time;
mod vocab;
mod write;

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use color_eyre::eyre::{Result, WrapErr, bail, eyre};
use memchr::memmem;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use generator::*;
use plan::*;
use pools::*;
use rng::*;
use time::*;
use vocab::*;
use write::*;
pub use write::{append_bytes, write_big_session, write_catalog};

/// Bump whenever the output changes: a corpus written by another version is regenerated.
pub const GENERATOR_VERSION: u32 = 2;

const SEED: u64 = 0x7069_7472_6565_2026;
/// The corpus's fixed "now", 2026-04-01T00:00:00Z; sessions spread over the two years before it.
const END_MS: i64 = 1_775_001_600_000;
const DAY_MS: i64 = 86_400_000;
const SPAN_MS: i64 = 730 * DAY_MS;
/// Sessions created after this carry pi 1.6.0's system-prompt message.
const SYSTEM_MESSAGE_SINCE: i64 = END_MS - 300 * DAY_MS;
const MB: u64 = 1_000_000;
/// The generator's buffer is written out whenever it holds more than this.
const FLUSH_AT: usize = 8 << 20;
/// Context bytes (images excluded) after which pi would compact.
const COMPACT_AT: u64 = 800_000;
/// How far ahead of its byte pace a session with an entry target may run.
const PACE_SLACK: f64 = 2e6;
const MARKER: &str = "corpus.json";
const GROWTH_PENDING: &str = "growth-pending.json";
const BIG_CWD: &str = "/home/dev/work/monorepo";
const PNG_PREFIX: &str = "iVBORw0KGgoAAAANSUhEUgAA";
const BASE64_ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Streams of the PRNG, one per purpose, so that changing one part leaves the others alone.
const PLAN_STREAM: u64 = 1;
const POOL_STREAM: u64 = 2;
const BIG_STREAM: u64 = 3;
const APPEND_STREAM: u64 = 4;
const SESSION_STREAM: u64 = 1 << 32;

/// How big the catalog is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CorpusSpec {
    pub sessions: usize,
    pub bytes: u64,
    pub cwds: usize,
}

impl CorpusSpec {
    /// 5,000 sessions / 1 GB over 40 cwds at scale 1.
    pub fn at_scale(scale: f64) -> Self {
        Self {
            sessions: ((5000.0 * scale).round() as usize).max(20),
            bytes: ((1e9 * scale) as u64).max(2 * MB),
            cwds: CWDS.len(),
        }
    }
}

/// How big the one big session is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BigSpec {
    pub entries: u64,
    pub bytes: u64,
}

impl BigSpec {
    /// 100,000 entries / 300 MB at scale 1.
    pub fn at_scale(scale: f64) -> Self {
        Self { entries: ((100_000.0 * scale) as u64).max(1_000), bytes: ((3e8 * scale) as u64).max(3 * MB) }
    }
}

/// What one or more session files contain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    pub bytes: u64,
    /// Lines after the header (the damaged ones included).
    pub entries: u64,
    pub messages: u64,
    pub user_turns: u64,
    pub images: u64,
    pub tool_results: u64,
    /// Tool results of 20–300 KB.
    pub big_results: u64,
    /// Turns that continue from an earlier entry instead of the leaf.
    pub branches: u64,
    pub branch_summaries: u64,
    pub labels: u64,
    pub names: u64,
    pub compactions: u64,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.bytes += other.bytes;
        self.entries += other.entries;
        self.messages += other.messages;
        self.user_turns += other.user_turns;
        self.images += other.images;
        self.tool_results += other.tool_results;
        self.big_results += other.big_results;
        self.branches += other.branches;
        self.branch_summaries += other.branch_summaries;
        self.labels += other.labels;
        self.names += other.names;
        self.compactions += other.compactions;
    }
}

/// What the catalog contains.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CorpusStats {
    pub files: u64,
    pub counts: Counts,
    pub cwds: u64,
    pub forks: u64,
    pub v1: u64,
    pub v2: u64,
    pub damaged: u64,
    pub named: u64,
    pub median_file: u64,
    pub largest_file: u64,
    /// The newest intact v3 session: the one a user would continue, used for the "grew by 1 MB" row.
    pub grow_target: PathBuf,
}

/// A generated corpus on disk.
#[derive(Clone, Debug)]
pub struct Corpus {
    pub root: PathBuf,
    /// The catalog's agent dir (holds `sessions/`).
    pub agent_dir: PathBuf,
    /// The big session's agent dir (holds `sessions/`).
    pub big_agent_dir: PathBuf,
    pub big_session: PathBuf,
    pub catalog: CorpusStats,
    pub big: Counts,
    /// How long generating took (now, or when it was generated, if `reused`).
    pub generation: Duration,
    pub reused: bool,
}

#[derive(Serialize, Deserialize)]
struct Marker {
    generator: u32,
    catalog_spec: CorpusSpec,
    big_spec: BigSpec,
    catalog: CorpusStats,
    big: Counts,
    big_session: PathBuf,
    seconds: f64,
}

/// Returns the corpus for `scale` under `root`, generating it unless a marker of this generator
/// version and spec is already there. Undoes a growth left over by an interrupted run first.
pub fn ensure(root: &Path, scale: f64) -> Result<Corpus> {
    fs::create_dir_all(root).wrap_err_with(|| format!("creating {}", root.display()))?;
    let root = root.canonicalize().wrap_err_with(|| format!("resolving {}", root.display()))?;
    Growth::restore_pending(&root)?;
    let catalog_spec = CorpusSpec::at_scale(scale);
    let big_spec = BigSpec::at_scale(scale);
    if let Some(marker) = read_marker(&root)
        && marker.generator == GENERATOR_VERSION
        && marker.catalog_spec == catalog_spec
        && marker.big_spec == big_spec
    {
        return Ok(corpus_from(&root, marker, true));
    }
    let started = Instant::now();
    for dir in ["agent", "big"] {
        remove_dir_if_exists(&root.join(dir))?;
    }
    let catalog = write_catalog(&root.join("agent"), &catalog_spec)?;
    let (big_session, big) = write_big_session(&root.join("big").join("sessions"), &big_spec)?;
    let marker = Marker {
        generator: GENERATOR_VERSION,
        catalog_spec,
        big_spec,
        catalog,
        big,
        big_session,
        seconds: started.elapsed().as_secs_f64(),
    };
    let json = serde_json::to_vec_pretty(&marker).wrap_err("serializing the corpus marker")?;
    fs::write(root.join(MARKER), json).wrap_err("writing the corpus marker")?;
    Ok(corpus_from(&root, marker, false))
}

fn read_marker(root: &Path) -> Option<Marker> {
    let bytes = fs::read(root.join(MARKER)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn corpus_from(root: &Path, marker: Marker, reused: bool) -> Corpus {
    Corpus {
        root: root.to_path_buf(),
        agent_dir: root.join("agent"),
        big_agent_dir: root.join("big"),
        big_session: marker.big_session,
        catalog: marker.catalog,
        big: marker.big,
        generation: Duration::from_secs_f64(marker.seconds),
        reused,
    }
}

fn remove_dir_if_exists(dir: &Path) -> Result<()> {
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).wrap_err_with(|| format!("removing {}", dir.display()))
        }
        _ => Ok(()),
    }
}

impl Corpus {
    /// Records the grow target's length and mtime (on disk too, in case the run is interrupted) so
    /// that [`Growth::restore`] can put the corpus back after [`append_bytes`].
    pub fn begin_growth(&self) -> Result<Growth> {
        self.begin_growth_of(self.catalog.grow_target.clone())
    }

    /// [`Corpus::begin_growth`] of another session of the corpus (the big one).
    pub fn begin_growth_of(&self, path: PathBuf) -> Result<Growth> {
        let meta = fs::metadata(&path).wrap_err_with(|| format!("reading {}", path.display()))?;
        let growth = Growth {
            marker: self.root.join(GROWTH_PENDING),
            len: meta.len(),
            mtime: meta.modified().wrap_err("reading the grow target's mtime")?,
            path,
        };
        let json = serde_json::to_vec(&growth).wrap_err("serializing the growth record")?;
        fs::write(&growth.marker, json).wrap_err("writing the growth record")?;
        Ok(growth)
    }
}

/// A session that is being grown for a measurement, and how to put it back.
#[derive(Serialize, Deserialize)]
pub struct Growth {
    path: PathBuf,
    marker: PathBuf,
    len: u64,
    mtime: SystemTime,
}

impl Growth {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Truncates the session back to its length and mtime from before the growth.
    pub fn restore(self) -> Result<()> {
        let file = OpenOptions::new()
            .write(true)
            .open(&self.path)
            .wrap_err_with(|| format!("opening {}", self.path.display()))?;
        file.set_len(self.len).wrap_err("truncating the grown session")?;
        file.set_modified(self.mtime).wrap_err("restoring the grown session's mtime")?;
        fs::remove_file(&self.marker).wrap_err("removing the growth record")
    }

    fn restore_pending(root: &Path) -> Result<()> {
        let Ok(bytes) = fs::read(root.join(GROWTH_PENDING)) else {
            return Ok(());
        };
        let growth: Growth = serde_json::from_slice(&bytes).wrap_err("reading the pending growth record")?;
        growth.restore()
    }
}
