//! Reference measurements for the spec table, and the timing tools that the pitree rows share.
//!
//! - [`newline_count`]: the "plain newline count" of product spec §9. Every file is read whole into a
//!   reused per-thread buffer and its `\n`s are counted with `memchr`, in parallel over files with
//!   rayon, exactly as a parallel scanner that parses nothing would. One untimed pass first pulls the
//!   files into the page cache, so this and every later measurement read from memory.
//! - [`json_check`]: the floor under a cold listing, the same reading with every line checked to be
//!   JSON as the listing checks it (`JSON.parse` validity, which pi's `messageCount` depends on).
//!   [`floor_pass`] is one such pass, which the `floor-pass` worker makes as a process of its own
//!   (`worker.rs`), paying what any listing process pays and the warm in-process passes do not:
//!   process start, the thread pool's start and first touches of fresh buffers.
//! - [`pi_list_all`], [`pi_open`] and [`pi_context`]: pi 1.6.0's own `SessionManager.listAll()`,
//!   `open()` + `getTree()`, and that + `buildSessionContext()`, through `tests/compat/pi-bench.mjs` (needs `node` and `npm ci --prefix tests/compat`).
//! - [`time_command`]: runs a command N times in a [`Sandbox`] and returns the median wall time, the
//!   command's peak RSS (`wait4`'s `ru_maxrss`) and the bytes it read (`rchar` in `/proc/<pid>/io`,
//!   read while the exited command is still a zombie). The command is started by a small launcher
//!   (this binary re-executed, see [`run_as_launcher`]) so that its RSS is not inflated by the bench's.

use std::env;
use std::ffi::OsString;
use std::fs::{self, File};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use color_eyre::eyre::{Result, WrapErr, bail, eyre};
use pitree::catalog::lines::is_json;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How long pi may take for all runs of one reference before it is killed.
const PI_TIMEOUT: Duration = Duration::from_secs(2 * 3600);

/// Wall times of repeated runs, with what was measured about memory and reads.
#[derive(Clone, Debug, Default)]
pub struct Timing {
    pub runs: Vec<Duration>,
    /// The largest peak RSS of any run, in bytes.
    pub peak_rss: Option<u64>,
    /// The median over runs of the bytes the process read.
    pub read_bytes: Option<u64>,
}

impl Timing {
    pub fn median(&self) -> Duration {
        let mut runs = self.runs.clone();
        runs.sort();
        runs.get(runs.len() / 2).copied().unwrap_or_default()
    }
}

/// The newline-count reference over a set of files.
pub struct Newlines {
    pub timing: Timing,
    pub files: usize,
    pub newlines: u64,
    pub bytes: u64,
}

/// The session files pi's `listAll` reads: `<agent_dir>/sessions/*/*.jsonl`.
pub fn session_files(agent_dir: &Path) -> Result<Vec<PathBuf>> {
    let sessions = agent_dir.join("sessions");
    let context = || format!("listing {}", sessions.display());
    let mut files = Vec::new();
    for dir in fs::read_dir(&sessions).wrap_err_with(context)? {
        let dir = dir.wrap_err_with(context)?;
        if !dir.file_type().wrap_err_with(context)?.is_dir() {
            continue;
        }
        for file in fs::read_dir(dir.path()).wrap_err_with(context)? {
            let path = file.wrap_err_with(context)?.path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Median of `runs` timed newline counts over `files`, after one untimed warm-up pass.
pub fn newline_count(files: &[PathBuf], runs: usize) -> Result<Newlines> {
    let (timing, (newlines, bytes)) = timed_passes(runs, || count_all(files))?;
    Ok(Newlines { timing, files: files.len(), newlines, bytes })
}

/// `pass` once untimed, then `runs` times timed; the timings and the last pass's result.
fn timed_passes<T>(runs: usize, mut pass: impl FnMut() -> Result<T>) -> Result<(Timing, T)> {
    let mut result = pass()?;
    let mut timing = Timing::default();
    for _ in 0..runs.max(1) {
        let started = Instant::now();
        result = pass()?;
        timing.runs.push(started.elapsed());
    }
    Ok((timing, result))
}

fn count_all(files: &[PathBuf]) -> Result<(u64, u64)> {
    files
        .par_iter()
        .map_init(Vec::new, |buffer, path| count_file(path, buffer))
        .try_reduce(|| (0, 0), |a, b| Ok((a.0 + b.0, a.1 + b.1)))
}

fn count_file(path: &Path, buffer: &mut Vec<u8>) -> Result<(u64, u64)> {
    read_whole(path, buffer)?;
    let newlines = memchr::memchr_iter(b'\n', buffer).count() as u64;
    Ok((newlines, buffer.len() as u64))
}

/// `path`'s bytes into `buffer`, which is reused from file to file.
fn read_whole(path: &Path, buffer: &mut Vec<u8>) -> Result<()> {
    buffer.clear();
    File::open(path)
        .and_then(|mut file| file.read_to_end(buffer))
        .wrap_err_with(|| format!("reading {}", path.display()))?;
    Ok(())
}

/// The floor under a cold listing: every file read as [`newline_count`] reads it, and every line
/// checked to be JSON as the listing checks it (`pitree::catalog::lines::is_json`), with nothing
/// read from it, no summary and no index.
pub struct JsonCheck {
    pub timing: Timing,
    pub lines: u64,
    /// Lines that are not JSON (blank ones included).
    pub invalid: u64,
}

/// Median of `runs` timed [`JsonCheck`] passes over `files`, after one untimed warm-up pass.
pub fn json_check(files: &[PathBuf], runs: usize) -> Result<JsonCheck> {
    let (timing, (lines, invalid)) = timed_passes(runs, || check_all(files))?;
    Ok(JsonCheck { timing, lines, invalid })
}

fn check_all(files: &[PathBuf]) -> Result<(u64, u64)> {
    files
        .par_iter()
        .map_init(Vec::new, |buffer, path| {
            read_whole(path, buffer)?;
            let (mut lines, mut invalid, mut start) = (0, 0, 0);
            for end in memchr::memchr_iter(b'\n', buffer).chain([buffer.len()]) {
                let line = &buffer[start..end];
                start = end + 1;
                if !line.is_empty() {
                    lines += 1;
                    invalid += u64::from(!is_json(line));
                }
            }
            Ok((lines, invalid))
        })
        .try_reduce(|| (0, 0), |a, b| Ok((a.0 + b.0, a.1 + b.1)))
}

/// One untimed pass of [`json_check`]'s work over the sessions of `agent_dir`: the lines and the
/// lines that are not JSON.
pub fn floor_pass(agent_dir: &Path) -> Result<(u64, u64)> {
    check_all(&session_files(agent_dir)?)
}

// ---------------------------------------------------------------------------------------------
// Sandbox and subprocess timing

/// Throwaway HOME and XDG dirs for the commands under test, so that nothing reads or writes the
/// user's real `~/.pi` or caches. `out/` keeps the last command's stdout and stderr.
pub struct Sandbox {
    root: PathBuf,
}

const SANDBOX_STATE: [&str; 5] = ["home", "cache", "data", "config", "state"];

/// Make `dir` an empty folder, whatever was there.
pub fn empty_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        fs::remove_dir_all(dir).wrap_err_with(|| format!("emptying {}", dir.display()))?;
    }
    fs::create_dir_all(dir).wrap_err_with(|| format!("creating {}", dir.display()))
}

impl Sandbox {
    /// Creates (or empties) the sandbox at `root`.
    pub fn create(root: &Path) -> Result<Self> {
        empty_dir(root)?;
        empty_dir(&root.join("out"))?;
        let sandbox = Self { root: root.to_path_buf() };
        sandbox.reset()?;
        Ok(sandbox)
    }

    /// Empties HOME and the XDG dirs: the next command starts with no cache and no index.
    pub fn reset(&self) -> Result<()> {
        SANDBOX_STATE.iter().try_for_each(|name| empty_dir(&self.root.join(name)))
    }

    pub fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    /// `XDG_CACHE_HOME` of the commands.
    pub fn cache(&self) -> PathBuf {
        self.root.join("cache")
    }

    pub fn out_dir(&self) -> PathBuf {
        self.root.join("out")
    }

    pub fn stdout(&self) -> PathBuf {
        self.out_dir().join("stdout")
    }

    fn stderr(&self) -> PathBuf {
        self.out_dir().join("stderr")
    }

    /// `PI_CODING_AGENT_DIR`, `HOME` and `XDG_{CACHE,DATA,CONFIG,STATE}_HOME` for a command.
    pub fn env(&self, agent_dir: &Path) -> Vec<(OsString, OsString)> {
        let var = |key: &str, dir: &str| (OsString::from(key), self.root.join(dir).into_os_string());
        vec![
            (OsString::from("PI_CODING_AGENT_DIR"), agent_dir.as_os_str().to_owned()),
            var("HOME", "home"),
            var("XDG_CACHE_HOME", "cache"),
            var("XDG_DATA_HOME", "data"),
            var("XDG_CONFIG_HOME", "config"),
            var("XDG_STATE_HOME", "state"),
        ]
    }
}

/// A command to time. `PI_CODING_AGENT_SESSION_DIR` is always removed from its environment.
pub struct Probe {
    pub program: OsString,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
    pub cwd: PathBuf,
    pub timeout: Duration,
}

impl Probe {
    fn describe(&self) -> String {
        let mut words = vec![self.program.to_string_lossy().into_owned()];
        words.extend(self.args.iter().map(|a| a.to_string_lossy().into_owned()));
        words.join(" ")
    }
}

struct Run {
    wall: Duration,
    peak_rss: u64,
    read_bytes: Option<u64>,
}

/// Set (to the report file) when the bench binary is started as the launcher of a timed command.
const LAUNCHER_REPORT: &str = "PITREE_BENCH_LAUNCHER_REPORT";

/// What the launcher measured about the command it ran.
#[derive(Serialize, Deserialize)]
struct LaunchReport {
    status: i32,
    wall_ns: u64,
    peak_rss: u64,
    read_bytes: Option<u64>,
}

/// Runs `probe` `runs` times, calling `before_each` (untimed) before every run. Fails on the first
/// run that fails, exits non-zero or outlives its timeout.
pub fn time_command(
    probe: &Probe,
    runs: usize,
    sandbox: &Sandbox,
    mut before_each: impl FnMut() -> Result<()>,
) -> Result<Timing> {
    let mut timing = Timing::default();
    let mut reads = Vec::new();
    let mut peak = 0;
    for _ in 0..runs.max(1) {
        before_each()?;
        let run = run_once(probe, sandbox)?;
        timing.runs.push(run.wall);
        peak = peak.max(run.peak_rss);
        reads.extend(run.read_bytes);
    }
    reads.sort_unstable();
    timing.peak_rss = Some(peak);
    timing.read_bytes = reads.get(reads.len() / 2).copied();
    Ok(timing)
}

/// Runs the command through the launcher (this bench binary, re-executed).
///
/// Why a launcher: Linux carries the RSS high-water mark of the process that calls `exec` into the
/// new program's `ru_maxrss`, and std spawns with vfork semantics, so a child spawned directly by the
/// bench would be charged with the bench's own peak (hundreds of MB after generating the corpus).
/// The launcher is a few MB, so that is all its child inherits. It also times the command without
/// its own start-up and reads the command's `/proc/<pid>/io`. Both run in a new process group,
/// which the watchdog kills on timeout.
fn run_once(probe: &Probe, sandbox: &Sandbox) -> Result<Run> {
    let report_path = sandbox.out_dir().join("launch.json");
    if report_path.exists() {
        fs::remove_file(&report_path).wrap_err("removing the old launch report")?;
    }
    let stdout = File::create(sandbox.stdout()).wrap_err("creating the stdout file")?;
    let stderr = File::create(sandbox.stderr()).wrap_err("creating the stderr file")?;
    let mut command = Command::new(env::current_exe().wrap_err("finding the bench binary")?);
    command
        .arg(&probe.program)
        .args(&probe.args)
        .envs(probe.env.iter().map(|(k, v)| (k, v)))
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env(LAUNCHER_REPORT, &report_path)
        .current_dir(&probe.cwd)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0);
    let child = command.spawn().wrap_err_with(|| format!("starting `{}`", probe.describe()))?;
    let pid = child.id() as libc::pid_t;
    drop(child); // Waited for with waitid/wait4 below; dropping std's handle does not kill it.
    let watchdog = Watchdog::start(pid, probe.timeout);
    let exited = wait_exited(pid);
    let killed = watchdog.stop();
    exited?;
    let (launcher_status, _) = reap(pid)?;
    if killed {
        bail!("`{}` timed out after {:?}", probe.describe(), probe.timeout);
    }
    let report: LaunchReport = fs::read(&report_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or_else(|| {
            eyre!(
                "`{}` did not start ({}): {}",
                probe.describe(),
                describe_status(launcher_status),
                stderr_tail(sandbox)
            )
        })?;
    if !libc::WIFEXITED(report.status) || libc::WEXITSTATUS(report.status) != 0 {
        bail!("`{}` failed ({}): {}", probe.describe(), describe_status(report.status), stderr_tail(sandbox));
    }
    Ok(Run {
        wall: Duration::from_nanos(report.wall_ns),
        peak_rss: report.peak_rss,
        read_bytes: report.read_bytes,
    })
}

/// When this process is the launcher started by [`time_command`], runs the command given in its
/// arguments, writes the [`LaunchReport`] and returns `Some`; otherwise returns `None` at once.
pub fn run_as_launcher() -> Option<Result<()>> {
    let report = env::var_os(LAUNCHER_REPORT)?;
    Some(launch(Path::new(&report)))
}

fn launch(report: &Path) -> Result<()> {
    let mut args = env::args_os().skip(1);
    let program = args.next().ok_or_else(|| eyre!("the launcher got no command"))?;
    let started = Instant::now();
    let child = Command::new(&program)
        .args(args)
        .env_remove(LAUNCHER_REPORT)
        .spawn()
        .wrap_err_with(|| format!("starting {}", program.to_string_lossy()))?;
    let pid = child.id() as libc::pid_t;
    drop(child); // Waited for below.
    wait_exited(pid)?;
    let wall_ns = started.elapsed().as_nanos() as u64;
    let read_bytes = proc_rchar(pid);
    let (status, peak_rss) = reap(pid)?;
    let json = serde_json::to_vec(&LaunchReport { status, wall_ns, peak_rss, read_bytes })
        .wrap_err("serializing the launch report")?;
    fs::write(report, json).wrap_err_with(|| format!("writing {}", report.display()))
}

/// Kills the launcher's process group if it is still running after the timeout.
struct Watchdog {
    done: mpsc::Sender<()>,
    thread: thread::JoinHandle<bool>,
}

impl Watchdog {
    fn start(pid: libc::pid_t, timeout: Duration) -> Self {
        let (done, finished) = mpsc::channel::<()>();
        let thread = thread::spawn(move || {
            let timed_out = finished.recv_timeout(timeout) == Err(mpsc::RecvTimeoutError::Timeout);
            if timed_out {
                // SAFETY: plain syscall. The launcher leads its own process group and is not reaped
                // before `stop` returns, so the group id still names it and its command.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
            }
            timed_out
        });
        Self { done, thread }
    }

    /// Returns whether the child was killed.
    fn stop(self) -> bool {
        // The receiver is gone only if the watchdog already fired, which `join` reports.
        self.done.send(()).ok();
        self.thread.join().unwrap_or(true)
    }
}

/// Waits until the child has exited without reaping it, so that `/proc/<pid>` is still readable.
fn wait_exited(pid: libc::pid_t) -> Result<()> {
    loop {
        // SAFETY: `info` is a plain C struct that waitid fills in.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: valid pointer to `info`; waiting on our own child.
        let rc =
            unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if rc == 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error).wrap_err("waiting for the child");
        }
    }
}

/// Reaps the exited child: its wait status and peak RSS in bytes.
fn reap(pid: libc::pid_t) -> Result<(i32, u64)> {
    let mut status = 0;
    // SAFETY: `usage` is a plain C struct that wait4 fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers; the child has exited, so this does not block.
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if rc != pid {
        return Err(std::io::Error::last_os_error()).wrap_err("reaping the child");
    }
    // ru_maxrss is in KiB on Linux.
    Ok((status, usage.ru_maxrss.max(0) as u64 * 1024))
}

/// `rchar` of `/proc/<pid>/io`: bytes read through read(2) and friends, page cache included.
fn proc_rchar(pid: libc::pid_t) -> Option<u64> {
    let io = fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    io.lines().find_map(|line| line.strip_prefix("rchar: ")).and_then(|n| n.trim().parse().ok())
}

fn describe_status(status: i32) -> String {
    if libc::WIFSIGNALED(status) {
        format!("killed by signal {}", libc::WTERMSIG(status))
    } else {
        format!("exit status {}", libc::WEXITSTATUS(status))
    }
}

fn stderr_tail(sandbox: &Sandbox) -> String {
    let text = fs::read_to_string(sandbox.stderr()).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(3)..].join(" / ");
    if tail.is_empty() { "no stderr".into() } else { tail }
}

// ---------------------------------------------------------------------------------------------
// pi 1.6.0 through tests/compat/pi-bench.mjs

/// What `pi-bench.mjs` prints.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PiReport {
    runs_ms: Vec<f64>,
    peak_rss_bytes: u64,
    sessions: Option<u64>,
    roots: Option<u64>,
    messages: Option<u64>,
}

/// A pi measurement, with the count pi reported (sessions listed, or tree roots).
pub struct PiTiming {
    pub timing: Timing,
    pub count: Option<u64>,
}

/// pi's `SessionManager.listAll()` over the agent dir, `runs` times.
pub fn pi_list_all(agent_dir: &Path, runs: usize, sandbox: &Sandbox) -> Result<PiTiming> {
    pi_bench("--list-all", agent_dir, agent_dir, runs, sandbox)
}

/// pi's `SessionManager.open(file)` + `getTree()`, `runs` times.
pub fn pi_open(file: &Path, agent_dir: &Path, runs: usize, sandbox: &Sandbox) -> Result<PiTiming> {
    pi_bench("--open", file, agent_dir, runs, sandbox)
}

/// pi's `SessionManager.open(file)` + `getTree()` + `buildSessionContext()`, `runs` times: what
/// `pitree context` and `pitree show` compute.
pub fn pi_context(file: &Path, agent_dir: &Path, runs: usize, sandbox: &Sandbox) -> Result<PiTiming> {
    pi_bench("--context", file, agent_dir, runs, sandbox)
}

fn pi_bench(flag: &str, target: &Path, agent_dir: &Path, runs: usize, sandbox: &Sandbox) -> Result<PiTiming> {
    let compat = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("compat");
    let script = compat.join("pi-bench.mjs");
    if !compat.join("node_modules").is_dir() || !on_path("node") {
        bail!("node/pi not installed: npm ci --prefix tests/compat");
    }
    if !script.is_file() {
        bail!("{} is missing", script.display());
    }
    let probe = Probe {
        program: "node".into(),
        args: vec![
            script.into_os_string(),
            flag.into(),
            target.as_os_str().to_owned(),
            "--runs".into(),
            runs.to_string().into(),
        ],
        env: sandbox.env(agent_dir),
        cwd: compat,
        timeout: PI_TIMEOUT,
    };
    run_once(&probe, sandbox)?;
    let stdout = fs::read_to_string(sandbox.stdout()).wrap_err("reading pi-bench's output")?;
    let last = stdout.lines().rfind(|l| !l.trim().is_empty()).unwrap_or_default();
    let report: PiReport =
        serde_json::from_str(last).wrap_err_with(|| format!("pi-bench printed no report: {last:?}"))?;
    let runs = report.runs_ms.iter().map(|ms| Duration::from_secs_f64(ms / 1e3)).collect();
    Ok(PiTiming {
        timing: Timing { runs, peak_rss: Some(report.peak_rss_bytes), read_bytes: None },
        count: report.sessions.or(report.roots).or(report.messages),
    })
}

fn on_path(program: &str) -> bool {
    env::var_os("PATH").is_some_and(|path| env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}
