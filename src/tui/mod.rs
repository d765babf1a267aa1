//! The full-screen app: the resume picker, the tree view of one session, resuming in pi, and the
//! demo. [`run`] is what `pitree`, `pitree FILE|ID` and `pitree --demo` call; it sets the
//! terminal up, runs [`app::run_loop`], puts the terminal back on every path out, and then
//! resumes pi (or prints the chosen path).

pub mod app;
pub mod clipboard;
pub mod demo;
pub mod event;
pub mod help;
pub mod keymap;
pub mod picker;
pub mod resume;
pub mod summarizer;
pub mod terminal;
pub mod theme;
pub mod tree;
pub mod widgets;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use color_eyre::eyre::{Result, WrapErr, bail, eyre};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::catalog::locate::{self, RootSource, SessionsRoot};
use crate::catalog::session_cache::SessionCache;
use crate::catalog::{Catalog, Scope, TieBreak, default_cache_dir};
use app::{App, AppOptions, Event, Exit, Runner};
use catalog_glue::resolve_target;
use keymap::Keybindings;
use picker::state::{Load, PickerOptions, ScopeKind};

/// The interactive forms of the command line (product.md §7).
#[derive(Debug, Clone, Default)]
pub struct TuiOptions {
    /// `--all`: start in the All scope.
    pub all: bool,
    /// `--session-dir DIR`.
    pub session_dir: Option<PathBuf>,
    /// `--print`: print the chosen session's path instead of resuming pi.
    pub print: bool,
    /// `--pi CMD` / `PITREE_PI`.
    pub pi_command: Option<String>,
    /// `pitree FILE|ID`: open that session's tree view.
    pub open_target: Option<String>,
    /// `--demo`.
    pub demo: bool,
}

/// Run the full-screen app; returns the exit status (pi's, when pi was resumed).
pub fn run(options: TuiOptions) -> Result<i32> {
    let demo = options.demo.then(demo::Demo::prepare).transpose()?;
    let env = |k: &str| std::env::var_os(k);
    let (root, cache) = match &demo {
        Some(d) => (SessionsRoot::new(d.sessions_root(), RootSource::AgentDir), Some(d.cache_dir())),
        None => (locate::sessions_root(options.session_dir.as_deref(), &env)?, default_cache_dir(&env)),
    };
    let cwd = std::env::current_dir().wrap_err("cannot read the current folder")?;
    let sessions = match &demo {
        Some(d) => Some(SessionCache::new(&d.cache_dir())),
        None => SessionCache::from_env(&env),
    };
    let catalog = Arc::new(Catalog::open(root, cache.as_deref()).with_session_cache(sessions));
    let open = match &options.open_target {
        Some(target) => Some(resolve_target(target, &catalog, &cwd)?),
        None => None,
    };
    let app_options = AppOptions {
        picker: PickerOptions {
            all: options.all || demo.is_some(),
            home: dirs::home_dir(),
            all_ties: TieBreak::of(catalog.root(), &Scope::All),
        },
        open,
        summarizer: Some(summarizer::default_command(options.pi_command.as_deref())),
        root_label: crate::display::abbreviate_home(&catalog.root().path, dirs::home_dir().as_deref()),
        print: options.print,
        warnings: Vec::new(),
    };
    let (keys, key_warnings) =
        match keymap::keybindings_path(|k| std::env::var_os(k), dirs::home_dir().as_deref()) {
            Some(path) => Keybindings::load(&path),
            None => (Keybindings::defaults(), Vec::new()),
        };
    let app_options = AppOptions { warnings: key_warnings, ..app_options };
    let exit = run_terminal(app_options, catalog, &cwd, Arc::new(keys))?;
    let hand_over = if demo.is_some() { resume::HandOver::Wait } else { resume::HandOver::Replace };
    let status = finish(exit, &options, hand_over);
    drop(demo);
    status
}

/// The terminal part: set up, loop, and restore on every way out (errors included).
fn run_terminal(
    options: AppOptions,
    catalog: Arc<Catalog>,
    cwd: &Path,
    keys: Arc<Keybindings>,
) -> Result<Exit> {
    let mut terminal = terminal::init().wrap_err("cannot start the full-screen terminal")?;
    let result = (|| {
        let (tx, rx) = mpsc::channel();
        event::spawn_signals(tx.clone())?;
        event::watch_hangup(tx.clone())?;
        let _watcher = event::watch_in_background(catalog.root().path.clone(), tx.clone());
        let input = event::Input::spawn(tx.clone());
        let size = terminal.size()?;
        let _ = tx.send(Event::Resize(size.width, size.height));
        let osc = Box::new(terminal::Tty::open()?);
        let mut runner =
            Runner::new(tx, catalog, cwd.to_path_buf()).with_terminal(input, terminal::suspend, osc);
        let (mut app, first) = App::new(options, theme::Theme::detect(), keys, app::now_ms());
        let exit = app::run_loop(&mut terminal, &mut app, &rx, &mut runner, first);
        runner.pause_input();
        exit
    })();
    let restored = terminal::restore(&mut terminal).wrap_err("cannot restore the terminal");
    let exit = result?;
    if !matches!(exit, Exit::Signal(event::Signal::Hangup)) {
        restored?;
    }
    Ok(exit)
}

/// After the terminal is back: resume pi, print the path, or say why nothing happened.
fn finish(exit: Exit, options: &TuiOptions, hand_over: resume::HandOver) -> Result<i32> {
    match exit {
        Exit::Quit => Ok(if options.print { 1 } else { 0 }),
        Exit::Empty => {
            eprintln!("No session selected: there are no sessions yet. Start pi to create one.");
            Ok(0)
        }
        Exit::Signal(signal) => Ok(signal.exit_status()),
        Exit::Resume(r) if options.print => resume::print(&r),
        Exit::Resume(r) => resume::run(options.pi_command.as_deref(), &r, hand_over),
    }
}

/// Benchmark hook: the time from launch to the first frame that lists every session of the All
/// scope, with `cache` holding a warm index (run it once before measuring), drawn on a
/// `width`×`height` `TestBackend`. Runs the real loop, scan worker and reducer.
pub fn bench_first_frame(root: &Path, cache: &Path, width: u16, height: u16) -> Result<Duration> {
    let start = Instant::now();
    let mut bench = Bench::new(root, cache, width, height)?;
    bench.until_loaded()?;
    Ok(start.elapsed())
}

/// Benchmark hook: with the All scope loaded from `root` (warm index in `cache`) and its search
/// index built, the time from one key press (the last character of `query`, the others typed
/// before) to the frame drawn for it: the reducer (catalog search, rows, selection) plus drawing.
pub fn bench_search_keystroke(
    root: &Path,
    cache: &Path,
    query: &str,
    width: u16,
    height: u16,
) -> Result<Duration> {
    let mut bench = Bench::new(root, cache, width, height)?;
    bench.until_loaded()?;
    bench.until_indexed()?;
    let mut chars: Vec<char> = query.chars().collect();
    let last = chars.pop().ok_or_else(|| eyre!("the query is empty"))?;
    for c in chars {
        bench.key(c);
    }
    bench.draw()?;
    let start = Instant::now();
    bench.key(last);
    bench.draw()?;
    Ok(start.elapsed())
}

/// The app on a `TestBackend` with a real scan, for the benchmark hooks.
struct Bench {
    terminal: Terminal<TestBackend>,
    app: App,
    rx: mpsc::Receiver<Event>,
    runner: Runner<TestBackend>,
}

impl Bench {
    fn new(root: &Path, cache: &Path, width: u16, height: u16) -> Result<Bench> {
        let catalog = Arc::new(Catalog::open(SessionsRoot::new(root, RootSource::Flag), Some(cache)));
        let (tx, rx) = mpsc::channel();
        let mut runner = Runner::new(tx, catalog, PathBuf::new());
        let options = AppOptions {
            picker: PickerOptions { all: true, ..PickerOptions::default() },
            ..AppOptions::default()
        };
        let (mut app, first) =
            App::new(options, theme::Theme::no_color(), Arc::new(Keybindings::defaults()), app::now_ms());
        let mut terminal = Terminal::new(TestBackend::new(width, height))?;
        app::update(&mut app, Event::Resize(width, height));
        for effect in first {
            runner.run(effect, &app, &mut terminal)?;
        }
        Ok(Bench { terminal, app, rx, runner })
    }

    /// Run the loop (without previews and live checks) until the All scope is listed, drawn. Each
    /// batch of events that changed the screen is drawn, as the app's loop draws it.
    fn until_loaded(&mut self) -> Result<()> {
        self.until(|app| app.picker.list(ScopeKind::All).load == Load::Loaded)?;
        self.draw()
    }

    /// Until the All scope's search index, built on a worker after the listing, has arrived.
    fn until_indexed(&mut self) -> Result<()> {
        self.until(|app| app.picker.list(ScopeKind::All).sessions.has_index())
    }

    fn until(&mut self, done: impl Fn(&App) -> bool) -> Result<()> {
        while !done(&self.app) {
            let first = self.rx.recv_timeout(Duration::from_secs(600)).wrap_err("the scan did not finish")?;
            let batch: Vec<Event> = std::iter::once(first).chain(self.rx.try_iter()).collect();
            let mut effects = Vec::new();
            for event in batch {
                effects.extend(app::update(&mut self.app, event));
            }
            effects.extend(app::settle(&mut self.app));
            for effect in effects {
                let skipped = matches!(
                    effect,
                    app::Effect::Picker(picker::state::Effect::LoadPreview(_)) | app::Effect::ScanLive(_)
                );
                if !skipped {
                    self.runner.run(effect, &self.app, &mut self.terminal)?;
                }
            }
            if self.app.dirty && !done(&self.app) {
                self.terminal.draw(|f| app::draw(f, &self.app))?;
                self.app.dirty = false;
            }
        }
        Ok(())
    }

    fn key(&mut self, c: char) {
        app::update(&mut self.app, Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)));
    }

    fn draw(&mut self) -> Result<()> {
        self.terminal.draw(|f| app::draw(f, &self.app))?;
        if self.app.exit.is_some() {
            bail!("the app exited during the benchmark");
        }
        Ok(())
    }
}

/// Finding a session for `pitree FILE|ID`.
mod catalog_glue {
    use super::*;

    /// A path to an existing file, or a session id (exact, else a unique prefix) looked up in the
    /// current folder's sessions first, then in all of them, as `pi --session` does.
    /// Something that exists but is not a file (a folder, a FIFO) is named as such, after the id
    /// lookup when it could also be an id.
    pub fn resolve_target(target: &str, catalog: &Catalog, cwd: &Path) -> Result<PathBuf> {
        let path = Path::new(target);
        let meta = std::fs::metadata(path).ok();
        if meta.as_ref().is_some_and(|m| m.is_file()) {
            return Ok(locate::lexical_absolute(path));
        }
        let not_a_file = meta.map(|m| not_a_session_file(target, &m));
        if target.contains(['/', '\\']) || target.ends_with(".jsonl") {
            bail!(not_a_file.unwrap_or_else(|| format!("{target}: no such session file")));
        }
        let scopes = [crate::catalog::Scope::CurrentFolder(cwd.to_path_buf()), crate::catalog::Scope::All];
        for scope in scopes {
            let sessions = catalog.scan(&scope, &|_, _| {}).sessions;
            if let Some(s) = sessions.iter().find(|s| s.id == target) {
                return Ok(s.path.clone());
            }
            let matches: Vec<_> = sessions.iter().filter(|s| s.id.starts_with(target)).collect();
            match matches.as_slice() {
                [] => continue,
                [one] => return Ok(one.path.clone()),
                many => bail!("'{target}' is the start of {} session ids; give more characters", many.len()),
            }
        }
        bail!(not_a_file.unwrap_or_else(|| format!("No session found matching '{target}'")))
    }

    fn not_a_session_file(target: &str, meta: &std::fs::Metadata) -> String {
        if meta.is_dir() {
            format!(
                "{target} is a folder, not a session file (`pitree --session-dir {target}` lists the sessions in it)"
            )
        } else {
            format!("{target} is not a regular file, so it is not a session file")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(id: &str, minute: u32, deep: &str) -> String {
        let header = format!(
            r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/p"}}"#
        );
        let message = |n: u32, role: &str, text: &str| {
            let parent = if n == 0 { "null".to_string() } else { format!("\"{id}-{}\"", n - 1) };
            format!(
                r#"{{"type":"message","id":"{id}-{n}","parentId":{parent},"timestamp":"2025-06-01T10:{minute:02}:0{n}.000Z","message":{{"role":"{role}","content":[{{"type":"text","text":"{text}"}}]}}}}"#
            )
        };
        [header, message(0, "user", &format!("hello from {id}")), message(1, "assistant", deep)]
            .iter()
            .map(|l| format!("{l}\n"))
            .collect()
    }

    fn titles(bench: &Bench) -> Vec<String> {
        let p = &bench.app.picker;
        p.rows().iter().map(|r| p.summary(r).title().to_string()).collect()
    }

    /// A start lists the sessions without their texts, a first one (no index, every file read)
    /// as well as a warm one (the texts left in the index); a search typed before the search
    /// index arrives still finds words only the texts hold, and so does one after.
    #[test]
    fn a_start_searches_the_texts_handed_over_apart() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("sessions");
        let cache = tmp.path().join("cache");
        std::fs::create_dir_all(root.join("--p--")).unwrap();
        for (id, minute, deep) in [("a", 1, "nothing here"), ("b", 2, "a zebrafish swims by"), ("c", 3, "no")]
        {
            let path = root.join(format!("--p--/{id}.jsonl"));
            std::fs::write(&path, session(id, minute, deep)).unwrap();
            // Written a while ago: a file modified in the last second is re-checked, not trusted.
            let long_ago =
                std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000 + u64::from(minute));
            std::fs::File::options().write(true).open(&path).unwrap().set_modified(long_ago).unwrap();
        }
        for (first, before_index) in [(true, true), (true, false), (false, true), (false, false)] {
            if first {
                let _ = std::fs::remove_dir_all(&cache);
            }
            let mut start = Bench::new(&root, &cache, 80, 20).unwrap();
            start.until_loaded().unwrap();
            let list = &start.app.picker.list(ScopeKind::All).sessions;
            assert!(list.texts().is_some(), "the texts come apart (first start: {first})");
            assert!(list.sessions().iter().all(|s| s.all_messages_text.is_empty()));
            if !before_index {
                start.until_indexed().unwrap();
            }
            for c in "zebrafish".chars() {
                start.key(c);
            }
            start.draw().unwrap();
            assert_eq!(
                titles(&start),
                ["hello from b"],
                "first start: {first}, before the index: {before_index}"
            );
            start.until_indexed().unwrap();
            start.key(' ');
            start.key('s');
            assert_eq!(titles(&start), ["hello from b"]);
        }
    }
}
