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
//! Other code can include this file with `#[path = "../benches/corpus.rs"] mod corpus;` and call
//! [`ensure`], [`write_catalog`], [`write_big_session`] and [`append_bytes`].

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use color_eyre::eyre::{Result, WrapErr, bail, eyre};
use memchr::memmem;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

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

// ---------------------------------------------------------------------------------------------
// Random numbers

#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn stream(stream: u64) -> Self {
        let mut rng = Self(SEED ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        rng.next();
        rng
    }

    /// splitmix64.
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// Log-uniform in `lo..=hi`: as many payloads between 1× and 2× `lo` as between `hi / 2` and `hi`.
    fn log_range(&mut self, lo: u64, hi: u64) -> u64 {
        let (lo, hi) = ((lo as f64).ln(), (hi as f64).ln());
        (lo + self.unit() * (hi - lo)).exp() as u64
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// Standard normal (Box–Muller).
    fn normal(&mut self) -> f64 {
        let u = self.unit().max(1e-12);
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * self.unit()).cos()
    }

    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        std::array::from_fn(|_| self.next() as u8)
    }

    /// `count` distinct indices from `candidates` (partial Fisher–Yates).
    fn sample(&mut self, mut candidates: Vec<usize>, count: usize) -> Vec<usize> {
        let count = count.min(candidates.len());
        for i in 0..count {
            let j = i + self.below((candidates.len() - i) as u64) as usize;
            candidates.swap(i, j);
        }
        candidates.truncate(count);
        candidates
    }
}

/// Entry ids: 8 hex digits, unique in a session by construction (a bijection of a counter), and
/// never one of `taken` (the ids already in a file that is appended to).
struct Ids {
    salt: u32,
    next: u32,
    taken: HashSet<u32>,
}

impl Ids {
    fn next(&mut self) -> u32 {
        loop {
            let id = fmix32(self.next.wrapping_add(self.salt));
            self.next = self.next.wrapping_add(1);
            if !self.taken.contains(&id) {
                return id;
            }
        }
    }
}

/// murmur3's finalizer: a bijection on u32.
fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

// ---------------------------------------------------------------------------------------------
// Time

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`, as JavaScript's `toISOString`.
fn iso(ms: i64) -> [u8; 24] {
    let (y, m, d) = civil_from_days(ms.div_euclid(DAY_MS));
    let rem = ms.rem_euclid(DAY_MS);
    let mut out = *b"0000-00-00T00:00:00.000Z";
    put_digits(&mut out[0..4], y);
    put_digits(&mut out[5..7], m);
    put_digits(&mut out[8..10], d);
    put_digits(&mut out[11..13], rem / 3_600_000);
    put_digits(&mut out[14..16], rem / 60_000 % 60);
    put_digits(&mut out[17..19], rem / 1000 % 60);
    put_digits(&mut out[20..23], rem % 1000);
    out
}

fn put_digits(dst: &mut [u8], mut value: i64) {
    for slot in dst.iter_mut().rev() {
        *slot = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

/// Howard Hinnant's `civil_from_days`.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn parse_iso(text: &[u8]) -> Option<i64> {
    let text = std::str::from_utf8(text).ok()?;
    Some(chrono::DateTime::parse_from_rfc3339(text).ok()?.timestamp_millis())
}

fn system_time(ms: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64)
}

/// pi's file name: `<ts>_<id>.jsonl`, the ts with `:` and `.` replaced by `-`.
fn file_name(created: i64, id: &str) -> String {
    let ts: String =
        iso(created).iter().map(|&b| if b == b':' || b == b'.' { '-' } else { b as char }).collect();
    format!("{ts}_{id}.jsonl")
}

/// pi's per-cwd folder: drop one leading `/` or `\`, replace `/`, `\` and `:` with `-`, wrap in `--`.
fn encode_cwd(cwd: &str) -> String {
    let trimmed = cwd.strip_prefix('/').or_else(|| cwd.strip_prefix('\\')).unwrap_or(cwd);
    format!("--{}--", trimmed.replace(['/', '\\', ':'], "-"))
}

fn uuid_v7(ms: i64, rng: &mut Rng) -> String {
    uuid::Builder::from_unix_timestamp_millis(ms as u64, &rng.bytes()).into_uuid().to_string()
}

fn uuid_v4(rng: &mut Rng) -> String {
    uuid::Builder::from_random_bytes(rng.bytes()).into_uuid().to_string()
}

// ---------------------------------------------------------------------------------------------
// Vocabulary (all of it is JSON-safe as written: no `"`, `\` or control characters)

const CWDS: &[&str] = &[
    "/home/dev/projects/pitree",
    "/home/dev/projects/api-server",
    "/home/dev/projects/web-frontend",
    "/home/dev/work/monorepo",
    "/home/dev/projects/infra",
    "/home/dev/work/billing",
    "/home/dev/projects/data-pipeline",
    "/home/dev/oss/ratatui",
    "/home/dev/work/auth-service",
    "/home/dev/projects/mobile-app",
    "/home/dev/scratch",
    "/home/dev/work/monorepo/packages/ui",
    "/home/dev/projects/ml-experiments",
    "/home/dev/dotfiles",
    "/home/dev/work/search",
    "/home/dev/a-b",
    "/home/dev/a/b",
    "/home/dev/项目 ✨",
    "/srv/c:odd dir",
    "/home/dev/projects/docs-site",
    "/home/dev/work/notifications",
    "/home/dev/oss/serde",
    "/home/dev/oss/tokio",
    "/home/dev/projects/cli-tools",
    "/home/dev/work/monorepo/packages/core",
    "/home/dev/Документы/отчёт",
    "/srv/app",
    "/srv/deploy/staging",
    "/opt/tools/build scripts",
    "/tmp/scratch",
    "/home/dev/blog",
    "/home/dev/advent-of-code",
    "/home/dev/projects/game-engine",
    "/home/dev/oss/neovim-config",
    "/home/dev/projects/rust-book",
    "/home/dev/projects/homelab",
    "/home/dev/projects/chess-ai",
    "/home/dev/projects/compiler",
    "/home/dev/projects/photo-sorter",
    "/home/dev/projects/budget-app",
];

const WORDS: &[&str] = &[
    "the",
    "session",
    "parser",
    "index",
    "cache",
    "branch",
    "leaf",
    "label",
    "tree",
    "file",
    "error",
    "test",
    "build",
    "config",
    "request",
    "response",
    "handler",
    "module",
    "function",
    "value",
    "string",
    "buffer",
    "thread",
    "channel",
    "worker",
    "query",
    "result",
    "option",
    "widget",
    "render",
    "frame",
    "layout",
    "event",
    "input",
    "output",
    "path",
    "entry",
    "offset",
    "header",
    "token",
    "model",
    "context",
    "summary",
    "migration",
    "append",
    "write",
    "read",
    "scan",
    "list",
    "picker",
    "search",
    "filter",
    "sort",
    "cursor",
    "screen",
    "terminal",
    "keymap",
    "theme",
    "width",
    "scroll",
    "page",
    "window",
    "timeout",
    "retry",
    "signal",
    "process",
    "child",
    "pipe",
    "socket",
    "server",
    "client",
    "database",
    "schema",
    "table",
    "column",
    "row",
    "batch",
    "stream",
    "chunk",
    "line",
    "byte",
    "length",
    "limit",
    "count",
    "median",
    "benchmark",
    "latency",
    "memory",
    "heap",
    "allocation",
    "borrow",
    "lifetime",
    "trait",
    "closure",
    "iterator",
    "slice",
    "map",
    "queue",
    "lock",
    "mutex",
    "future",
    "runtime",
    "crate",
    "feature",
    "flag",
    "version",
    "release",
    "commit",
    "diff",
    "patch",
    "merge",
    "rebase",
    "deploy",
    "staging",
    "logs",
    "metrics",
    "so",
    "and",
    "but",
    "then",
    "now",
    "it",
    "is",
    "was",
    "we",
    "should",
    "can",
    "will",
    "not",
    "also",
    "first",
    "after",
    "before",
    "when",
    "because",
    "with",
    "without",
    "into",
    "from",
    "for",
    "of",
    "to",
    "in",
    "on",
    "a",
    "this",
    "that",
    "fix",
    "add",
    "remove",
    "check",
    "update",
    "naïve",
    "café",
    "über",
    "日本語",
    "测试",
    "✅",
    "→",
    "—",
];

const IDENTS: &[&str] = &[
    "parse", "entry", "index", "cache", "leaf", "label", "node", "path", "buf", "line", "offset", "reader",
    "writer", "config", "state", "app", "event", "frame", "row", "width", "ctx", "session", "header",
    "summary", "items", "result", "value", "key", "count", "total", "limit",
];

const TYPES: &[&str] = &[
    "Entry", "Session", "Index", "Summary", "Config", "State", "App", "Event", "Frame", "Row", "Error",
    "Reader", "Writer", "Header", "Leaf", "Label", "Node", "Tree", "Cache", "Query",
];

const CRATES: &[&str] = &[
    "serde",
    "serde_json",
    "ratatui",
    "crossterm",
    "rayon",
    "memchr",
    "regex",
    "clap",
    "tokio",
    "anyhow",
    "thiserror",
    "chrono",
    "uuid",
    "notify",
    "tempfile",
];

const PATHS: &[&str] = &[
    "src/main.rs",
    "src/lib.rs",
    "src/cli.rs",
    "src/config.rs",
    "src/session/parse.rs",
    "src/session/graph.rs",
    "src/catalog/scan.rs",
    "src/catalog/index.rs",
    "src/tui/app.rs",
    "src/tui/picker/draw.rs",
    "src/store/append.rs",
    "tests/cli.rs",
    "Cargo.toml",
    "README.md",
    "CHANGELOG.md",
    "web/src/routes/+page.svelte",
    "web/package.json",
    "api/handlers/users.go",
    "api/server.go",
    "scripts/deploy.sh",
    "docs/architecture.md",
    ".github/workflows/ci.yml",
    "pkg/auth/middleware.ts",
    "src/components/Button.tsx",
    "notebooks/eval.py",
    "train.py",
    "Makefile",
    "infra/main.tf",
];

/// Shell commands, already escaped for a JSON string.
const COMMANDS: &[&str] = &[
    "cargo test --quiet",
    "cargo build --release",
    "cargo clippy --all-targets -- -D warnings",
    "git status --short",
    "git diff --stat",
    "git log --oneline -20",
    r#"rg -n \"fn main\" src"#,
    "ls -la src",
    "npm run build",
    "npm test -- --watch=false",
    "pytest -x -q",
    "go test ./...",
    "make check",
    "grep -rn TODO src | head -50",
    "docker compose logs --tail=200 api",
];

const LABELS: &[&str] = &[
    "wip",
    "approach-a",
    "approach-b",
    "tests-green",
    "before-refactor",
    "checkpoint",
    "bug-repro",
    "✅ works",
    "good-state",
    "revisit",
];

const NAME_VERBS: &[&str] =
    &["Fix", "Refactor", "Investigate", "Add", "Speed up", "Document", "Port", "Debug", "Clean up", "Review"];

const THINKING_LEVELS: &[&str] = &["minimal", "low", "medium", "high"];

struct Model {
    provider: &'static str,
    id: &'static str,
    api: &'static str,
    /// USD per million tokens: input, output, cache read, cache write.
    price: [f64; 4],
    openai: bool,
}

const MODELS: &[Model] = &[
    Model {
        provider: "anthropic",
        id: "claude-sonnet-4-5",
        api: "anthropic-messages",
        price: [3.0, 15.0, 0.3, 3.75],
        openai: false,
    },
    Model {
        provider: "anthropic",
        id: "claude-opus-4-5",
        api: "anthropic-messages",
        price: [5.0, 25.0, 0.5, 6.25],
        openai: false,
    },
    Model {
        provider: "openai",
        id: "gpt-5.1-codex",
        api: "openai-responses",
        price: [1.25, 10.0, 0.125, 0.0],
        openai: true,
    },
];

/// pi 1.6.0's system message (`sections` + `toolsAdded`), around `<cwd>`.
const SYSTEM_BEFORE_CWD: &str = r#","content":"","sections":{"preamble":"You are a coding assistant running inside pi, a coding agent harness. Help users inspect files, run commands, and modify code.","tools":"- read: Read file contents\n- bash: Execute bash commands (ls, grep, find, etc.)\n- edit: Make precise file edits with exact text replacement, including multiple disjoint edits in one call\n- write: Create or overwrite files\n\nAdditional tools may be available.","rules":"- Use read to examine files instead of cat or sed.\n- Use edit for targeted changes. Batch changes to one file in a single call.\n- Use write only for new files or complete rewrites.","environment":"Current working directory: "#;
const SYSTEM_AFTER_CWD: &str = r#""},"toolsAdded":[{"name":"read","description":"Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are sent as attachments.","parameters":{"type":"object","properties":{"path":{"type":"string","description":"Path to the file to read (relative or absolute)"},"offset":{"type":"number","description":"Line number to start reading from (1-indexed)"},"limit":{"type":"number","description":"Maximum number of lines to read"}},"required":["path"]}},{"name":"bash","description":"Execute a bash command in the current working directory. Returns stdout and stderr.","parameters":{"type":"object","properties":{"command":{"type":"string","description":"Shell command to execute"},"timeout":{"type":"number","description":"Timeout in seconds (optional, no default timeout)"}},"required":["command"]}},{"name":"edit","description":"Edit a single file using exact text replacement.","parameters":{"type":"object","properties":{"path":{"type":"string","description":"Path to the file to edit (relative or absolute)"},"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["oldText","newText"]}}},"required":["path","edits"]}},{"name":"write","description":"Write content to a file. Creates the file if it doesn't exist, overwrites if it does.","parameters":{"type":"object","properties":{"path":{"type":"string","description":"Path to the file to write (relative or absolute)"},"content":{"type":"string","description":"Content to write to the file"}},"required":["path","content"]}}]"#;

// ---------------------------------------------------------------------------------------------
// Text pools: large blocks of pre-escaped tool output that payloads are sliced from

struct Pools {
    code: Pool,
    log: Pool,
    base64: Vec<u8>,
}

/// JSON-string-escaped text made of whole lines (each ends with an escaped `\n`).
struct Pool {
    text: Vec<u8>,
    starts: Vec<usize>,
}

impl Pools {
    fn new() -> Self {
        let mut rng = Rng::stream(POOL_STREAM);
        let size = 3 * MB as usize;
        let code = Pool::build(&mut rng, size, code_line);
        let log = Pool::build(&mut rng, size, log_line);
        let base64 = (0..size).map(|_| BASE64_ALPHABET[(rng.next() & 63) as usize]).collect();
        Self { code, log, base64 }
    }
}

impl Pool {
    fn build(rng: &mut Rng, size: usize, line: fn(&mut Rng, &mut Vec<u8>)) -> Self {
        let mut text = Vec::with_capacity(size + 4096);
        let mut starts = Vec::new();
        while text.len() < size {
            starts.push(text.len());
            line(rng, &mut text);
        }
        Self { text, starts }
    }

    /// At least `n` bytes (at most half the pool) of whole lines from a random place.
    fn slice(&self, rng: &mut Rng, n: usize) -> &[u8] {
        let n = n.min(self.text.len() / 2);
        let candidates = self.starts.partition_point(|&s| s + n <= self.text.len());
        let start = self.starts[rng.below(candidates as u64) as usize];
        let end_index = self.starts.partition_point(|&s| s < start + n);
        let end = self.starts.get(end_index).copied().unwrap_or(self.text.len());
        &self.text[start..end]
    }
}

fn push_all(out: &mut Vec<u8>, parts: &[&str]) {
    for part in parts {
        out.extend_from_slice(part.as_bytes());
    }
}

fn push_num(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(n.to_string().as_bytes());
}

fn code_line(rng: &mut Rng, out: &mut Vec<u8>) {
    let (a, b, t) = (*rng.pick(IDENTS), *rng.pick(IDENTS), *rng.pick(TYPES));
    match rng.below(9) {
        0 => push_all(out, &["use ", *rng.pick(CRATES), "::", t, ";"]),
        1 => push_all(out, &["pub fn ", a, "_", b, "(&self, ", b, ": &str) -> Result<", t, "> {"]),
        2 => {
            push_all(out, &["    let ", a, " = self.", b, ".get(\\\"", a, "\\\").ok_or(", t, "::Missing)?;"])
        }
        3 => {
            push_all(out, &["    if ", a, ".len() > "]);
            push_num(out, rng.range(2, 4096));
            push_all(out, &[" {\\n        return Err(", t, "::TooLarge(", a, ".len()));\\n    }"]);
        }
        4 => push_all(out, &["    // ", a, " ", *rng.pick(WORDS), " ", *rng.pick(WORDS), " ", b]),
        5 => push_all(out, &["}\\n"]),
        6 => push_all(out, &["#[derive(Debug, Clone, PartialEq)]\\npub struct ", t, " {"]),
        7 => push_all(out, &["  const ", a, " = await ", b, "(", a, ", { ", b, ": true });"]),
        _ => push_all(out, &["        ", a, ".", b, "(\\t", t, "::default())"]),
    }
    out.extend_from_slice(b"\\n");
}

fn log_line(rng: &mut Rng, out: &mut Vec<u8>) {
    let (a, b) = (*rng.pick(IDENTS), *rng.pick(IDENTS));
    match rng.below(7) {
        0 => {
            push_all(out, &["   Compiling ", *rng.pick(CRATES), " v1."]);
            push_num(out, rng.below(40));
            out.push(b'.');
            push_num(out, rng.below(300));
        }
        1 => push_all(
            out,
            &["test ", a, "::tests::", b, "_", a, " ... ", if rng.chance(0.05) { "FAILED" } else { "ok" }],
        ),
        2 => {
            push_all(out, &[*rng.pick(PATHS), ":"]);
            push_num(out, rng.range(1, 900));
            push_all(out, &[":", "5: warning: unused variable: `", a, "`"]);
        }
        3 => {
            push_all(out, &["2026-03-14T09:", if rng.chance(0.5) { "12" } else { "47" }, ":"]);
            push_num(out, rng.range(10, 59));
            push_all(out, &[".", "512Z INFO ", a, ": request path=/api/v1/", b, " status="]);
            push_num(out, *rng.pick(&[200, 200, 200, 201, 204, 404, 500]));
            out.extend_from_slice(b" took=");
            push_num(out, rng.range(1, 2500));
            out.extend_from_slice(b"ms");
        }
        4 => {
            out.extend_from_slice(b"error[E0");
            push_num(out, rng.range(100, 799));
            push_all(out, &["]: mismatched types\\n   --> ", *rng.pick(PATHS), ":"]);
            push_num(out, rng.range(1, 900));
            out.extend_from_slice(b":17");
        }
        5 => {
            push_all(out, &[*rng.pick(PATHS), ":"]);
            push_num(out, rng.range(1, 900));
            push_all(out, &[":    let ", a, " = ", b, "(\\\"", a, "\\\");"]);
        }
        _ => push_all(out, &["\\tat ", *rng.pick(TYPES), ".", a, " (", *rng.pick(PATHS), ":42:7)"]),
    }
    out.extend_from_slice(b"\\n");
}

// ---------------------------------------------------------------------------------------------
// The catalog plan: every session's shape, decided up front so that writing can run in parallel

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    V1,
    V2,
    V3,
}

#[derive(Clone, Copy, Default)]
struct Damage {
    malformed_middle: bool,
    truncated_tail: bool,
}

impl Damage {
    fn any(self) -> bool {
        self.malformed_middle || self.truncated_tail
    }
}

/// How much a session holds: `bytes`, paced over `entries` when that is given.
#[derive(Clone, Copy)]
struct Budget {
    bytes: u64,
    entries: Option<u64>,
}

struct Plan {
    seed: u64,
    format: Format,
    cwd: &'static str,
    created: i64,
    id: String,
    file: PathBuf,
    fork_of: Option<usize>,
    damage: Damage,
    named: bool,
    budget: Budget,
}

impl Plan {
    fn intact_v3(&self) -> bool {
        self.format == Format::V3 && self.fork_of.is_none() && !self.damage.any()
    }
}

fn plan_catalog(spec: &CorpusSpec, sessions_dir: &Path) -> Vec<Plan> {
    let mut rng = Rng::stream(PLAN_STREAM);
    let n = spec.sessions;
    let mut created: Vec<i64> =
        (0..n).map(|_| END_MS - SPAN_MS + rng.below((SPAN_MS - DAY_MS) as u64) as i64).collect();
    created.sort_unstable();
    let (sizes, huge) = plan_sizes(&mut rng, n, spec.bytes);
    let cwds = &CWDS[..spec.cwds.clamp(1, CWDS.len())];
    let mut plans: Vec<Plan> = (0..n)
        .map(|i| {
            let cwd = pick_cwd(&mut rng, cwds);
            let id = uuid_v7(created[i], &mut rng);
            Plan {
                seed: SESSION_STREAM + i as u64,
                format: Format::V3,
                cwd,
                created: created[i],
                file: sessions_dir.join(encode_cwd(cwd)).join(file_name(created[i], &id)),
                id,
                fork_of: None,
                damage: Damage::default(),
                named: rng.chance(0.2),
                budget: Budget { bytes: sizes[i], entries: None },
            }
        })
        .collect();
    plan_legacy(&mut rng, &mut plans, &huge);
    plan_damage(&mut rng, &mut plans, &huge);
    plan_forks(&mut rng, &mut plans, &huge);
    plans
}

/// Sizes skewed like real use: log-normal around 40 KB, plus a few 10–50 MB sessions, scaled to the total.
fn plan_sizes(rng: &mut Rng, n: usize, total: u64) -> (Vec<u64>, HashSet<usize>) {
    let mut sizes: Vec<f64> =
        (0..n).map(|_| (40_000.0 * (1.4 * rng.normal()).exp()).clamp(2_000.0, 8e6)).collect();
    let huge_count = ((n as f64 * 0.0025).round() as usize).max(1);
    let huge: HashSet<usize> = rng.sample((n / 5..n).collect(), huge_count).into_iter().collect();
    for &i in &huge {
        sizes[i] = rng.range(10 * MB, 50 * MB) as f64;
    }
    let huge_total: f64 = huge.iter().map(|&i| sizes[i]).sum();
    let huge_scale = (0.4 * total as f64 / huge_total).min(1.0);
    let rest: f64 = sizes.iter().sum::<f64>() - huge_total;
    let rest_scale = (total as f64 - huge_total * huge_scale) / rest;
    let sizes = sizes
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let scale = if huge.contains(&i) { huge_scale } else { rest_scale };
            (s * scale).max(2_000.0) as u64
        })
        .collect();
    (sizes, huge)
}

/// Zipf-like: the first cwds get most sessions.
fn pick_cwd(rng: &mut Rng, cwds: &[&'static str]) -> &'static str {
    let weights: Vec<f64> = (0..cwds.len()).map(|k| 1.0 / (k as f64 + 1.0).powf(0.9)).collect();
    let mut x = rng.unit() * weights.iter().sum::<f64>();
    for (cwd, w) in cwds.iter().zip(&weights) {
        if x < *w {
            return cwd;
        }
        x -= w;
    }
    cwds[cwds.len() - 1]
}

fn share(n: usize, rate: f64) -> usize {
    ((n as f64 * rate).round() as usize).max(1)
}

/// 1% legacy files, among the oldest 30%, half v1 (no ids) and half v2.
fn plan_legacy(rng: &mut Rng, plans: &mut [Plan], huge: &HashSet<usize>) {
    let oldest = (plans.len() * 3 / 10).max(2);
    let candidates = (0..oldest).filter(|i| !huge.contains(i)).collect();
    for (k, i) in rng.sample(candidates, share(plans.len(), 0.01)).into_iter().enumerate() {
        let plan = &mut plans[i];
        plan.format = if k % 2 == 0 { Format::V1 } else { Format::V2 };
        plan.id = uuid_v4(rng);
        plan.file = plan.file.with_file_name(file_name(plan.created, &plan.id));
        plan.named = false;
        plan.budget.bytes = plan.budget.bytes.min(2 * MB);
    }
}

/// 0.5% damaged files: a malformed middle line, a truncated last line, or both.
fn plan_damage(rng: &mut Rng, plans: &mut [Plan], huge: &HashSet<usize>) {
    let candidates =
        (0..plans.len()).filter(|i| plans[*i].format == Format::V3 && !huge.contains(i)).collect();
    for (k, i) in rng.sample(candidates, share(plans.len(), 0.005)).into_iter().enumerate() {
        plans[i].damage = Damage { malformed_middle: k % 3 != 2, truncated_tail: k % 3 != 1 };
    }
}

/// 5% forks: their first lines are copied from an earlier intact session of under 1 MB, created at
/// least two days before them, whose absolute path is their header's `parentSession`.
fn plan_forks(rng: &mut Rng, plans: &mut [Plan], huge: &HashSet<usize>) {
    let candidates =
        (plans.len() / 10..plans.len()).filter(|i| plans[*i].intact_v3() && !huge.contains(i)).collect();
    let children = rng.sample(candidates, share(plans.len(), 0.05));
    let is_child: HashSet<usize> = children.iter().copied().collect();
    let is_parent = |j: usize, p: &Plan| p.intact_v3() && p.budget.bytes < MB && !is_child.contains(&j);
    for &child in &children {
        let latest = plans[child].created - 2 * DAY_MS;
        let eligible = plans[..child].partition_point(|p| p.created <= latest);
        let parent = (0..20)
            .map(|_| rng.below(eligible.max(1) as u64) as usize)
            .find(|&j| j < eligible && is_parent(j, &plans[j]));
        plans[child].fork_of = parent;
    }
}

// ---------------------------------------------------------------------------------------------
// Writing

/// Writes the catalog into `agent_dir/sessions/` and returns what it holds.
pub fn write_catalog(agent_dir: &Path, spec: &CorpusSpec) -> Result<CorpusStats> {
    let sessions_dir = agent_dir.join("sessions");
    let plans = plan_catalog(spec, &sessions_dir);
    for plan in &plans {
        let dir = plan.file.parent().unwrap_or(&sessions_dir);
        fs::create_dir_all(dir).wrap_err_with(|| format!("creating {}", dir.display()))?;
    }
    let pools = Pools::new();
    let counts = plans
        .par_iter()
        .map_init(|| (Vec::new(), Vec::new()), |buffers, plan| write_planned(plan, &plans, &pools, buffers))
        .collect::<Result<Vec<Counts>>>()?;
    Ok(catalog_stats(&plans, &counts))
}

fn catalog_stats(plans: &[Plan], counts: &[Counts]) -> CorpusStats {
    let mut total = Counts::default();
    counts.iter().for_each(|c| total.add(c));
    let mut sizes: Vec<u64> = counts.iter().map(|c| c.bytes).collect();
    sizes.sort_unstable();
    let cwds: HashSet<&str> = plans.iter().map(|p| p.cwd).collect();
    let count = |f: &dyn Fn(&Plan) -> bool| plans.iter().filter(|p| f(p)).count() as u64;
    CorpusStats {
        files: plans.len() as u64,
        counts: total,
        cwds: cwds.len() as u64,
        forks: count(&|p| p.fork_of.is_some()),
        v1: count(&|p| p.format == Format::V1),
        v2: count(&|p| p.format == Format::V2),
        damaged: count(&|p| p.damage.any()),
        named: counts.iter().filter(|c| c.names > 0).count() as u64,
        median_file: sizes.get(sizes.len() / 2).copied().unwrap_or(0),
        largest_file: sizes.last().copied().unwrap_or(0),
        grow_target: plans.iter().rev().find(|p| p.intact_v3()).map(|p| p.file.clone()).unwrap_or_default(),
    }
}

/// Writes the big session (100,000 entries / 300 MB at scale 1, one named v3 conversation with
/// branches, labels and compactions) into the sessions folder `sessions_dir`.
pub fn write_big_session(sessions_dir: &Path, spec: &BigSpec) -> Result<(PathBuf, Counts)> {
    let mut rng = Rng::stream(BIG_STREAM);
    let created = END_MS - 45 * DAY_MS;
    let id = uuid_v7(created, &mut rng);
    let dir = sessions_dir.join(encode_cwd(BIG_CWD));
    fs::create_dir_all(&dir).wrap_err_with(|| format!("creating {}", dir.display()))?;
    let plan = Plan {
        seed: BIG_STREAM,
        format: Format::V3,
        cwd: BIG_CWD,
        created,
        file: dir.join(file_name(created, &id)),
        id,
        fork_of: None,
        damage: Damage::default(),
        named: true,
        budget: Budget { bytes: spec.bytes, entries: Some(spec.entries) },
    };
    let counts = write_planned(&plan, &[], &Pools::new(), &mut (Vec::new(), Vec::new()))?;
    Ok((plan.file, counts))
}

/// Appends about `n` bytes of whole pi turns to the v3 session at `path`, continuing from its last
/// entry with fresh unique ids and later timestamps. Returns the number of bytes appended.
pub fn append_bytes(path: &Path, n: u64) -> Result<u64> {
    let data = fs::read(path).wrap_err_with(|| format!("reading {}", path.display()))?;
    if data.last() != Some(&b'\n') {
        bail!("{} does not end with a newline", path.display());
    }
    let mut taken = HashSet::new();
    let mut last = None;
    for line in data.split(|&b| b == b'\n') {
        if let Some((id, ms)) = entry_id_and_time(line) {
            taken.insert(id);
            last = Some((id, ms));
        }
    }
    let (leaf, ms) = last.ok_or_else(|| eyre!("{} has no entries with ids", path.display()))?;
    let pools = Pools::new();
    let budget = Budget { bytes: n, entries: None };
    let seed = APPEND_STREAM ^ (data.len() as u64).rotate_left(17);
    let mut generator = Generator::new(&pools, seed, Format::V3, ms, budget, Vec::new());
    generator.ids.taken = taken;
    generator.leaf = Some(leaf);
    generator.tick(300_000, 7_200_000);
    let mut file = OpenOptions::new()
        .append(true)
        .open(path)
        .wrap_err_with(|| format!("opening {} for append", path.display()))?;
    generator.conversation(&mut file)?;
    generator.close(&mut file)?;
    Ok(generator.total())
}

/// The id and timestamp of a v2/v3 entry line (not the header), read from pi's key order.
fn entry_id_and_time(line: &[u8]) -> Option<(u32, i64)> {
    if line.starts_with(b"{\"type\":\"session\"") {
        return None;
    }
    let id = string_field(line, b"\"id\":\"")?;
    let ts = string_field(line, b"\"timestamp\":\"")?;
    if id.len() != 8 {
        return None;
    }
    let id = u32::from_str_radix(std::str::from_utf8(id).ok()?, 16).ok()?;
    Some((id, parse_iso(ts)?))
}

fn string_field<'a>(line: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let start = memmem::find(line, key)? + key.len();
    let len = memchr::memchr(b'"', &line[start..])?;
    Some(&line[start..start + len])
}

fn write_planned(
    plan: &Plan,
    plans: &[Plan],
    pools: &Pools,
    (buffer, scratch): &mut (Vec<u8>, Vec<u8>),
) -> Result<Counts> {
    let context = || format!("writing {}", plan.file.display());
    let mut file = File::create(&plan.file).wrap_err_with(context)?;
    let mut generator = Generator::for_plan(plan, pools, std::mem::take(buffer));
    let parent = plan.fork_of.map(|i| &plans[i]);
    generator.header(plan, parent.map(|p| p.file.as_path()));
    match parent {
        Some(parent) => generator.copy_prefix(parent, scratch)?,
        None => generator.preamble(plan.cwd, plan.created >= SYSTEM_MESSAGE_SINCE),
    }
    generator.conversation(&mut file).wrap_err_with(context)?;
    generator.close(&mut file).wrap_err_with(context)?;
    file.set_modified(system_time(generator.now)).wrap_err_with(context)?;
    let counts = Counts { bytes: generator.total(), ..generator.counts };
    *buffer = generator.out;
    Ok(counts)
}

// ---------------------------------------------------------------------------------------------
// The session generator: appends pi lines to `out`

struct Generator<'p> {
    pools: &'p Pools,
    rng: Rng,
    out: Vec<u8>,
    flushed: u64,
    line_start: usize,
    format: Format,
    ids: Ids,
    now: i64,
    leaf: Option<u32>,
    turn_ends: Vec<u32>,
    user_ids: Vec<u32>,
    model: &'static Model,
    thinking: bool,
    budget: Budget,
    damage: Damage,
    malformed_done: bool,
    named: bool,
    context_bytes: u64,
    image_bytes_in_line: u64,
    turns_since_compaction: u32,
    counts: Counts,
}

struct Call {
    id: String,
    tool: Tool,
    path: &'static str,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tool {
    Read,
    Bash,
    Edit,
    Write,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Read => "read",
            Tool::Bash => "bash",
            Tool::Edit => "edit",
            Tool::Write => "write",
        }
    }
}

impl<'p> Generator<'p> {
    fn new(pools: &'p Pools, seed: u64, format: Format, now: i64, budget: Budget, mut out: Vec<u8>) -> Self {
        out.clear();
        let mut rng = Rng::stream(seed);
        let ids = Ids { salt: rng.next() as u32, next: 0, taken: HashSet::new() };
        let model = rng.pick(MODELS);
        let thinking = rng.chance(0.75);
        Self {
            pools,
            rng,
            out,
            flushed: 0,
            line_start: 0,
            format,
            ids,
            now,
            leaf: None,
            turn_ends: Vec::new(),
            user_ids: Vec::new(),
            model,
            thinking,
            budget,
            damage: Damage::default(),
            malformed_done: false,
            named: false,
            context_bytes: 0,
            image_bytes_in_line: 0,
            turns_since_compaction: 0,
            counts: Counts::default(),
        }
    }

    fn for_plan(plan: &Plan, pools: &'p Pools, out: Vec<u8>) -> Self {
        let mut generator = Self::new(pools, plan.seed, plan.format, plan.created, plan.budget, out);
        generator.damage = plan.damage;
        generator.named = plan.named;
        generator
    }

    fn total(&self) -> u64 {
        self.flushed + self.out.len() as u64
    }

    fn flush(&mut self, w: &mut dyn Write) -> Result<()> {
        w.write_all(&self.out).wrap_err("writing session lines")?;
        self.flushed += self.out.len() as u64;
        self.out.clear();
        Ok(())
    }

    /// Whether `extra` more bytes stay within the budget (and, with an entry target, its pace).
    fn fits(&self, extra: u64) -> bool {
        let after = self.total() + extra;
        let pace = match self.budget.entries {
            Some(entries) => {
                self.budget.bytes as f64 * (self.counts.entries + 1) as f64 / entries as f64 + PACE_SLACK
            }
            None => f64::INFINITY,
        };
        after <= self.budget.bytes && after as f64 <= pace
    }

    fn done(&self) -> bool {
        match self.budget.entries {
            Some(entries) => self.counts.entries >= entries,
            None => self.total() >= self.budget.bytes,
        }
    }

    fn tick(&mut self, lo_ms: u64, hi_ms: u64) {
        self.now += self.rng.range(lo_ms, hi_ms) as i64;
    }

    // -- low-level writing ------------------------------------------------------------------

    fn raw(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
    }

    fn num(&mut self, n: u64) {
        push_num(&mut self.out, n);
    }

    fn hex8(&mut self, id: u32) {
        self.out.extend_from_slice(format!("{id:08x}").as_bytes());
    }

    fn quoted_id(&mut self, id: Option<u32>) {
        match id {
            Some(id) => {
                self.raw("\"");
                self.hex8(id);
                self.raw("\"");
            }
            None => self.raw("null"),
        }
    }

    fn escaped(&mut self, s: &str) {
        for c in s.chars() {
            match c {
                '"' => self.raw("\\\""),
                '\\' => self.raw("\\\\"),
                c if (c as u32) < 0x20 => self.raw(&format!("\\u{:04x}", c as u32)),
                c => self.raw(c.encode_utf8(&mut [0; 4])),
            }
        }
    }

    fn random_text(&mut self, alphabet: &[u8], n: usize) -> String {
        (0..n).map(|_| alphabet[self.rng.below(alphabet.len() as u64) as usize] as char).collect()
    }

    fn hex(&mut self, n: usize) -> String {
        self.random_text(b"0123456789abcdef", n)
    }

    fn alnum(&mut self, n: usize) -> String {
        self.random_text(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", n)
    }

    fn base64(&mut self, n: u64) {
        let pools = self.pools;
        let n = (n as usize / 4 * 4).min(pools.base64.len() / 2);
        let start = self.rng.below(((pools.base64.len() - n) / 4) as u64) as usize * 4;
        self.out.extend_from_slice(&pools.base64[start..start + n]);
    }

    fn code(&mut self, lo: u64, hi: u64) {
        let pools = self.pools;
        let n = self.rng.range(lo, hi) as usize;
        self.out.extend_from_slice(pools.code.slice(&mut self.rng, n));
    }

    fn log(&mut self, lo: u64, hi: u64) {
        let pools = self.pools;
        let n = self.rng.range(lo, hi) as usize;
        self.out.extend_from_slice(pools.log.slice(&mut self.rng, n));
    }

    /// `words` words of chat prose in sentences, with the odd `code span` and paragraph break.
    fn prose(&mut self, words: u64) {
        let mut sentence_start = true;
        for i in 0..words {
            let word = *self.rng.pick(WORDS);
            if self.rng.chance(0.05) {
                self.raw("`");
                let ident = *self.rng.pick(IDENTS);
                self.raw(ident);
                self.raw("`");
            } else if sentence_start {
                let mut chars = word.chars();
                let first = chars.next().map(|c| c.to_ascii_uppercase()).unwrap_or(' ');
                self.raw(first.encode_utf8(&mut [0; 4]));
                self.raw(chars.as_str());
            } else {
                self.raw(word);
            }
            sentence_start = i + 1 == words || self.rng.chance(0.09);
            if sentence_start {
                self.raw(".");
            }
            if i + 1 < words {
                let paragraph = sentence_start && self.rng.chance(0.08);
                self.raw(if paragraph { "\\n\\n" } else { " " });
            }
        }
    }

    fn words(&mut self, lo: u64, hi: u64) {
        let n = self.rng.range(lo, hi);
        self.prose(n);
    }

    fn block_separator(&mut self) {
        if self.out.last() != Some(&b'[') {
            self.raw(",");
        }
    }

    fn path_list(&mut self, max: u64) {
        for i in 0..self.rng.range(0, max) {
            if i > 0 {
                self.raw(",");
            }
            self.raw("\"");
            let path = *self.rng.pick(PATHS);
            self.raw(path);
            self.raw("\"");
        }
    }

    // -- entries ----------------------------------------------------------------------------

    /// Starts an entry: `{"type":…,"id":…,"parentId":…,"timestamp":…` (v1: no ids).
    fn head(&mut self, ty: &str) -> u32 {
        self.line_start = self.out.len();
        self.raw("{\"type\":\"");
        self.raw(ty);
        self.raw("\"");
        let id = self.ids.next();
        if self.format != Format::V1 {
            self.raw(",\"id\":\"");
            self.hex8(id);
            self.raw("\",\"parentId\":");
            self.quoted_id(self.leaf);
        }
        self.raw(",\"timestamp\":\"");
        let ts = iso(self.now);
        self.out.extend_from_slice(&ts);
        self.raw("\"");
        id
    }

    /// Ends an entry: it becomes the leaf, as every pi append does. Cuts it in half if it is the
    /// damaged session's malformed middle line.
    fn finish(&mut self, id: u32) {
        self.raw("}\n");
        self.leaf = Some(id);
        self.counts.entries += 1;
        let len = (self.out.len() - self.line_start) as u64;
        self.context_bytes += len.saturating_sub(self.image_bytes_in_line);
        self.image_bytes_in_line = 0;
        if self.damage.malformed_middle
            && !self.malformed_done
            && self.counts.entries >= 4
            && self.total() * 2 >= self.budget.bytes
        {
            self.out.truncate(self.line_start + (len as usize) * 3 / 5);
            self.raw("\n");
            self.malformed_done = true;
        }
    }

    fn header(&mut self, plan: &Plan, parent_session: Option<&Path>) {
        self.raw("{\"type\":\"session\"");
        match self.format {
            Format::V1 => {}
            Format::V2 => self.raw(",\"version\":2"),
            Format::V3 => self.raw(",\"version\":3"),
        }
        self.raw(",\"id\":\"");
        self.raw(&plan.id);
        self.raw("\",\"timestamp\":\"");
        let ts = iso(self.now);
        self.out.extend_from_slice(&ts);
        self.raw("\",\"cwd\":\"");
        self.escaped(plan.cwd);
        self.raw("\"");
        if self.format == Format::V1 {
            let (provider, model) = (self.model.provider, self.model.id);
            for (key, value) in [("provider", provider), ("modelId", model), ("thinkingLevel", "off")] {
                self.raw(",\"");
                self.raw(key);
                self.raw("\":\"");
                self.raw(value);
                self.raw("\"");
            }
        }
        if let Some(parent) = parent_session {
            self.raw(",\"parentSession\":\"");
            self.escaped(&parent.to_string_lossy());
            self.raw("\"");
        }
        self.raw("}\n");
    }

    /// What pi writes before the first prompt: model, thinking level and (1.6.0) the system message.
    fn preamble(&mut self, cwd: &str, system_message: bool) {
        if self.format == Format::V1 {
            return;
        }
        self.tick(1, 3);
        let model = self.model;
        self.model_change(model);
        self.tick(1, 3);
        self.thinking_level_change();
        if self.format == Format::V3 && system_message {
            self.tick(30, 60);
            let id = self.message_open("system");
            self.raw(SYSTEM_BEFORE_CWD);
            self.escaped(cwd);
            self.raw(SYSTEM_AFTER_CWD);
            self.message_close(id, self.now);
        }
    }

    /// A fork: the first lines of `parent` (regenerated byte for byte), continuing from the last of
    /// them with the parent's id sequence so that ids stay unique.
    fn copy_prefix(&mut self, parent: &Plan, scratch: &mut Vec<u8>) -> Result<()> {
        scratch.clear();
        let mut source = Generator::for_plan(parent, self.pools, Vec::new());
        source.header(parent, None);
        source.preamble(parent.cwd, parent.created >= SYSTEM_MESSAGE_SINCE);
        source.conversation(scratch)?;
        source.close(scratch)?;
        let ends: Vec<usize> = memchr::memchr_iter(b'\n', scratch).collect();
        let entries = ends.len().saturating_sub(1);
        if entries == 0 {
            bail!("fork source {} has no entries", parent.file.display());
        }
        let keep = self.rng.range((entries as u64 / 3).max(1), entries as u64) as usize;
        let (start, end) = (ends[0] + 1, ends[keep] + 1);
        let (id, ms) = entry_id_and_time(&scratch[ends[keep - 1] + 1..end])
            .ok_or_else(|| eyre!("fork source {} lacks ids", parent.file.display()))?;
        let copied = &scratch[start..end];
        self.counts.messages += memmem::find_iter(copied, b"{\"type\":\"message\"").count() as u64;
        self.out.extend_from_slice(copied);
        self.counts.entries += keep as u64;
        self.leaf = Some(id);
        self.ids = source.ids;
        self.now = self.now.max(ms + 1_000);
        Ok(())
    }

    /// Turns until the budget is used up (at least one).
    fn conversation(&mut self, w: &mut dyn Write) -> Result<()> {
        loop {
            self.turn();
            if self.out.len() >= FLUSH_AT {
                self.flush(w)?;
            }
            if self.done() {
                return Ok(());
            }
        }
    }

    /// Writes what is left, with a last line cut off mid-JSON (no `\n`) for a damaged session.
    fn close(&mut self, w: &mut dyn Write) -> Result<()> {
        if self.damage.truncated_tail {
            self.final_answer();
            let len = self.out.len() - self.line_start;
            self.out.truncate(self.line_start + len / 2);
        }
        self.flush(w)
    }

    fn turn(&mut self) {
        if self.format != Format::V1 {
            self.maybe_branch();
        }
        if self.rng.chance(0.02) {
            self.bash_execution();
        }
        self.user_turn();
        if self.format == Format::V2 && self.rng.chance(0.15) {
            self.hook_message();
        }
        let mut steps = if self.rng.chance(0.2) { 0 } else { 1 };
        while steps > 0 && steps < 12 && self.rng.chance(0.6) {
            steps += 1;
        }
        for _ in 0..steps {
            self.tool_step();
        }
        self.final_answer();
        self.turn_ends.extend(self.leaf);
        self.after_turn();
    }

    /// Like pi's `/tree`: continue from an earlier answer instead of the leaf, sometimes with a summary.
    fn maybe_branch(&mut self) {
        if self.turn_ends.len() < 2 || !self.rng.chance(0.06) {
            return;
        }
        let target = self.turn_ends[self.rng.below(self.turn_ends.len() as u64 - 1) as usize];
        let abandoned = self.leaf;
        self.leaf = Some(target);
        self.counts.branches += 1;
        if self.rng.chance(0.35) {
            self.branch_summary(abandoned);
        }
    }

    fn branch_summary(&mut self, abandoned: Option<u32>) {
        self.tick(3_000, 40_000);
        let id = self.head("branch_summary");
        self.raw(",\"fromId\":");
        match abandoned {
            Some(_) => self.quoted_id(abandoned),
            None => self.raw("\"root\""),
        }
        self.raw(",\"summary\":\"The user explored a different conversation branch before returning here.\\n\\nSummary of that exploration:\\n\\n## Goal\\n");
        self.words(8, 25);
        self.raw("\\n\\n## Progress\\n- ");
        self.words(8, 30);
        self.raw("\\n\\n## Files\\n- ");
        let path = *self.rng.pick(PATHS);
        self.raw(path);
        self.raw(" (modified)\",\"details\":{\"readFiles\":[");
        self.path_list(3);
        self.raw("],\"modifiedFiles\":[");
        self.path_list(2);
        self.raw("]}");
        self.finish(id);
        self.counts.branch_summaries += 1;
    }

    fn message_open(&mut self, role: &str) -> u32 {
        let id = self.head("message");
        self.raw(",\"message\":{\"role\":\"");
        self.raw(role);
        self.raw("\"");
        id
    }

    fn message_close(&mut self, id: u32, message_ms: i64) {
        self.raw(",\"timestamp\":");
        self.num(message_ms as u64);
        self.raw("}");
        self.finish(id);
        self.counts.messages += 1;
    }

    fn user_turn(&mut self) {
        self.tick(10_000, 900_000);
        let id = self.message_open("user");
        self.raw(",\"content\":");
        if self.rng.chance(0.2) {
            self.raw("\"");
            self.user_text();
            self.raw("\"");
        } else {
            self.raw("[{\"type\":\"text\",\"text\":\"");
            self.user_text();
            self.raw("\"}");
            if self.rng.chance(0.04) {
                self.image();
            }
            self.raw("]");
        }
        self.message_close(id, self.now);
        self.user_ids.push(id);
        self.counts.user_turns += 1;
    }

    fn user_text(&mut self) {
        if self.rng.chance(0.06) {
            self.words(8, 20);
            self.raw("\\n\\n```\\n");
            self.log(300, 6_000);
            self.raw("```");
        } else {
            self.words(6, 70);
        }
    }

    /// In 4% of user turns, a 0.1–1.5 MB base64 PNG (log-uniform), when the budget has room for it.
    fn image(&mut self) {
        let size = self.rng.log_range(100_000, 1_500_000);
        if !self.fits(size) {
            return;
        }
        self.raw(",{\"type\":\"image\",\"data\":\"");
        self.raw(PNG_PREFIX);
        self.base64(size);
        self.raw("\",\"mimeType\":\"image/png\"}");
        self.image_bytes_in_line += size;
        self.counts.images += 1;
    }

    fn bash_execution(&mut self) {
        self.tick(5_000, 120_000);
        let id = self.message_open("bashExecution");
        self.raw(",\"command\":\"");
        let command = *self.rng.pick(COMMANDS);
        self.raw(command);
        self.raw("\",\"output\":\"");
        self.log(20, 2_000);
        self.raw("\",\"exitCode\":0,\"cancelled\":false,\"truncated\":false");
        self.message_close(id, self.now);
    }

    fn hook_message(&mut self) {
        self.tick(100, 2_000);
        let id = self.message_open("hookMessage");
        self.raw(",\"customType\":\"issue-tracker\",\"content\":\"");
        self.words(5, 30);
        self.raw("\",\"display\":true,\"details\":{\"source\":\"github\"}");
        self.message_close(id, self.now);
    }

    fn new_call(&mut self) -> Call {
        let id = if self.model.openai {
            format!("call_{}|fc_{}", self.alnum(24), self.hex(40))
        } else {
            format!("toolu_01{}", self.alnum(22))
        };
        let tool = match self.rng.below(100) {
            0..40 => Tool::Read,
            40..75 => Tool::Bash,
            75..93 => Tool::Edit,
            _ => Tool::Write,
        };
        let path = *self.rng.pick(PATHS);
        Call { id, tool, path }
    }

    fn tool_step(&mut self) {
        self.tick(1_500, 45_000);
        let started = self.now - self.rng.range(300, 20_000) as i64;
        let calls: Vec<Call> =
            (0..if self.rng.chance(0.15) { 2 } else { 1 }).map(|_| self.new_call()).collect();
        let id = self.message_open("assistant");
        self.raw(",\"content\":[");
        if self.thinking && self.rng.chance(0.7) {
            self.thinking_block();
        }
        if self.rng.chance(0.35) {
            self.text_block(4, 30);
        }
        for call in &calls {
            self.tool_call_block(call);
        }
        self.raw("]");
        self.assistant_tail("toolUse");
        self.message_close(id, started);
        for call in &calls {
            self.tick(100, 20_000);
            self.tool_result(call);
        }
    }

    fn final_answer(&mut self) {
        self.tick(1_000, 60_000);
        let started = self.now - self.rng.range(300, 20_000) as i64;
        let stop = match self.rng.below(1000) {
            0..10 => "aborted",
            10..15 => "error",
            _ => "stop",
        };
        let id = self.message_open("assistant");
        self.raw(",\"content\":[");
        if stop != "error" {
            if self.thinking && self.rng.chance(0.5) {
                self.thinking_block();
            }
            self.text_block(10, 120);
        }
        self.raw("]");
        self.assistant_tail(stop);
        self.message_close(id, started);
    }

    fn thinking_block(&mut self) {
        self.block_separator();
        self.raw("{\"type\":\"thinking\",\"thinking\":\"");
        self.words(10, 90);
        self.raw("\",\"thinkingSignature\":\"");
        if self.model.openai {
            let id = self.hex(48);
            self.raw(&format!(r#"{{\"type\":\"reasoning\",\"id\":\"rs_{id}\",\"summary\":[]}}"#));
        } else {
            let n = self.rng.range(300, 800);
            self.base64(n);
        }
        self.raw("\"}");
    }

    fn text_block(&mut self, lo: u64, hi: u64) {
        self.block_separator();
        self.raw("{\"type\":\"text\",\"text\":\"");
        self.words(lo, hi);
        self.raw("\"");
        if self.model.openai {
            let signature = self.hex(48);
            self.raw(&format!(",\"textSignature\":\"msg_{signature}\""));
        }
        self.raw("}");
    }

    fn tool_call_block(&mut self, call: &Call) {
        self.block_separator();
        self.raw("{\"type\":\"toolCall\",\"id\":\"");
        self.raw(&call.id);
        self.raw("\",\"name\":\"");
        self.raw(call.tool.name());
        self.raw("\",\"arguments\":{");
        match call.tool {
            Tool::Read => {
                self.raw("\"path\":\"");
                self.raw(call.path);
                self.raw("\"");
                if self.rng.chance(0.2) {
                    self.raw(",\"offset\":");
                    let offset = self.rng.range(1, 800);
                    self.num(offset);
                    self.raw(",\"limit\":200");
                }
            }
            Tool::Bash => {
                self.raw("\"command\":\"");
                let command = *self.rng.pick(COMMANDS);
                self.raw(command);
                self.raw("\"");
                if self.rng.chance(0.3) {
                    self.raw(",\"timeout\":300");
                }
            }
            Tool::Edit => {
                self.raw("\"path\":\"");
                self.raw(call.path);
                self.raw("\",\"edits\":[{\"oldText\":\"");
                self.code(40, 600);
                self.raw("\",\"newText\":\"");
                self.code(40, 800);
                self.raw("\"}]");
            }
            Tool::Write => {
                self.raw("\"path\":\"");
                self.raw(call.path);
                self.raw("\",\"content\":\"");
                self.code(300, 12_000);
                self.raw("\"");
            }
        }
        self.raw("}}");
    }

    fn tool_result(&mut self, call: &Call) {
        let id = self.message_open("toolResult");
        self.raw(",\"toolCallId\":\"");
        self.raw(&call.id);
        self.raw("\",\"toolName\":\"");
        self.raw(call.tool.name());
        self.raw("\",\"content\":[{\"type\":\"text\",\"text\":\"");
        let mut is_error = false;
        match call.tool {
            Tool::Read => self.tool_output(false),
            Tool::Bash => {
                self.tool_output(true);
                is_error = self.rng.chance(0.06);
                if is_error {
                    self.raw("\\n\\nCommand exited with code 1");
                }
            }
            Tool::Edit => {
                self.raw("Successfully replaced 1 block(s) in ");
                self.raw(call.path);
                self.raw(".");
            }
            Tool::Write => {
                self.raw("Successfully wrote ");
                let n = self.rng.range(300, 12_000);
                self.num(n);
                self.raw(" bytes to ");
                self.raw(call.path);
            }
        }
        self.raw("\"}]");
        if call.tool == Tool::Edit {
            self.raw(",\"details\":{\"diff\":\"");
            self.code(100, 900);
            self.raw("\",\"firstChangedLine\":");
            let line = self.rng.range(1, 400);
            self.num(line);
            self.raw("}");
        }
        self.raw(if is_error { ",\"isError\":true" } else { ",\"isError\":false" });
        self.message_close(id, self.now);
        self.counts.tool_results += 1;
    }

    /// File contents or command output: mostly small; 10% are 20–300 KB (log-uniform) when the
    /// budget has room.
    fn tool_output(&mut self, log: bool) {
        let big = self.rng.log_range(20_000, 300_000);
        let (lo, hi) = if self.rng.chance(0.1) && self.fits(big) {
            self.counts.big_results += 1;
            (big, big)
        } else {
            (40, 6_000)
        };
        if log { self.log(lo, hi) } else { self.code(lo, hi) }
    }

    /// `,"api":…,"provider":…,"model":…,"responseId":…,"usage":{…},"stopReason":…`.
    fn assistant_tail(&mut self, stop: &str) {
        let model = self.model;
        self.raw(",\"api\":\"");
        self.raw(model.api);
        self.raw("\",\"provider\":\"");
        self.raw(model.provider);
        self.raw("\",\"model\":\"");
        self.raw(model.id);
        self.raw("\"");
        if stop != "error" {
            let id = if model.openai {
                format!("resp_{}", self.hex(48))
            } else {
                format!("msg_01{}", self.alnum(22))
            };
            self.raw(&format!(",\"responseId\":\"{id}\""));
        }
        self.usage(model);
        self.raw(",\"stopReason\":\"");
        self.raw(stop);
        self.raw("\"");
        if stop == "error" {
            self.raw(",\"errorMessage\":\"529 {\\\"type\\\":\\\"error\\\",\\\"error\\\":{\\\"type\\\":\\\"overloaded_error\\\",\\\"message\\\":\\\"Overloaded\\\"}}\"");
        }
    }

    fn usage(&mut self, model: &Model) {
        let cache_read = if self.rng.chance(0.1) { 0 } else { self.rng.range(1_000, 150_000) };
        let cache_write = if model.openai { 0 } else { self.rng.range(0, 9_000) };
        let tokens = [self.rng.range(8, 4_000), self.rng.range(20, 2_000), cache_read, cache_write];
        let costs: Vec<f64> =
            tokens.iter().zip(model.price).map(|(&t, price)| t as f64 * price / 1e6).collect();
        self.raw(",\"usage\":{");
        for (key, n) in ["input", "output", "cacheRead", "cacheWrite"].iter().zip(tokens) {
            self.raw("\"");
            self.raw(key);
            self.raw("\":");
            self.num(n);
            self.raw(",");
        }
        self.raw("\"totalTokens\":");
        self.num(tokens.iter().sum());
        self.raw(",\"cost\":{");
        for (key, cost) in ["input", "output", "cacheRead", "cacheWrite"].iter().zip(&costs) {
            self.raw("\"");
            self.raw(key);
            self.raw("\":");
            self.raw(&cost.to_string());
            self.raw(",");
        }
        self.raw("\"total\":");
        self.raw(&costs.iter().sum::<f64>().to_string());
        self.raw("}}");
    }

    fn after_turn(&mut self) {
        if self.format == Format::V3 && self.named && (self.counts.names == 0 || self.rng.chance(0.02)) {
            self.session_info();
        }
        if self.format != Format::V1 && self.rng.chance(0.03) {
            self.label();
        }
        if self.rng.chance(0.012) {
            let model = self.rng.pick(MODELS);
            self.model = model;
            self.tick(1_000, 30_000);
            self.model_change(model);
        }
        if self.rng.chance(0.012) {
            self.thinking = !self.thinking;
            self.tick(1_000, 30_000);
            self.thinking_level_change();
        }
        if self.context_bytes >= COMPACT_AT && self.turns_since_compaction >= 6 {
            self.compaction();
        }
        self.turns_since_compaction += 1;
    }

    fn model_change(&mut self, model: &Model) {
        let id = self.head("model_change");
        self.raw(",\"provider\":\"");
        self.raw(model.provider);
        self.raw("\",\"modelId\":\"");
        self.raw(model.id);
        self.raw("\"");
        self.finish(id);
    }

    fn thinking_level_change(&mut self) {
        let id = self.head("thinking_level_change");
        self.raw(",\"thinkingLevel\":\"");
        let level = if self.thinking { *self.rng.pick(THINKING_LEVELS) } else { "off" };
        self.raw(level);
        self.raw("\"");
        self.finish(id);
    }

    fn session_info(&mut self) {
        self.tick(1_000, 60_000);
        let id = self.head("session_info");
        self.raw(",\"name\":\"");
        let name = [self.rng.pick(NAME_VERBS), self.rng.pick(WORDS), self.rng.pick(WORDS)];
        self.raw(&name.map(|w| *w).join(" "));
        if self.rng.chance(0.4) {
            self.raw(" in ");
            let path = *self.rng.pick(PATHS);
            self.raw(path);
        }
        self.raw("\"");
        self.finish(id);
        self.counts.names += 1;
    }

    fn label(&mut self) {
        let pool = if self.rng.chance(0.5) { &self.user_ids } else { &self.turn_ends };
        let Some(&target) = pool.get(self.rng.below(pool.len() as u64) as usize) else {
            return;
        };
        self.tick(1_000, 30_000);
        let id = self.head("label");
        self.raw(",\"targetId\":\"");
        self.hex8(target);
        self.raw("\"");
        if !self.rng.chance(0.1) {
            self.raw(",\"label\":\"");
            let label = *self.rng.pick(LABELS);
            self.raw(label);
            self.raw("\"");
        }
        self.finish(id);
        self.counts.labels += 1;
    }

    fn compaction(&mut self) {
        self.tick(5_000, 60_000);
        let id = self.head("compaction");
        self.raw(",\"summary\":\"## Goal\\n");
        self.words(10, 30);
        self.raw("\\n\\n## Done\\n- ");
        self.words(8, 30);
        self.raw("\\n- ");
        self.words(8, 30);
        self.raw("\\n\\n## Next\\n- ");
        self.words(5, 20);
        self.raw("\"");
        if self.format == Format::V1 {
            self.raw(",\"firstKeptEntryIndex\":");
            let back = self.rng.range(3, 10).min(self.counts.entries);
            self.num(self.counts.entries - back + 1);
        } else {
            let back = self.rng.range(1, 3).min(self.user_ids.len() as u64) as usize;
            let kept = self.user_ids[self.user_ids.len() - back];
            self.raw(",\"firstKeptEntryId\":\"");
            self.hex8(kept);
            self.raw("\"");
        }
        self.raw(",\"tokensBefore\":");
        let tokens = self.rng.range(120_000, 195_000);
        self.num(tokens);
        if self.format != Format::V1 {
            self.raw(",\"details\":{\"readFiles\":[");
            self.path_list(4);
            self.raw("],\"modifiedFiles\":[");
            self.path_list(3);
            self.raw("]}");
        }
        self.finish(id);
        self.context_bytes = 0;
        self.turns_since_compaction = 0;
        self.counts.compactions += 1;
    }
}
