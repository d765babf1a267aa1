//! The command line (product.md §7): clap definitions (parsed through [`options`], which says where
//! the shared options go), and the scriptable commands that read or change one session file. The
//! interactive forms hand over to [`crate::tui`].

mod edit;
mod inspect;
pub mod options;
mod show;

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use color_eyre::eyre::{Result, WrapErr};

use crate::catalog::session_cache::SessionCache;

/// Find, inspect, branch and resume pi sessions. Parse it with [`options::parse`], which places the
/// shared options and refuses the ones a subcommand has no use for (`Cli::parse` does neither).
#[derive(Parser, Debug)]
#[command(name = "pitree", version, about, long_about = None)]
#[command(override_usage = "pitree [OPTIONS] [FILE|ID]\n       pitree [OPTIONS] <COMMAND>")]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    /// Open this session's tree view: a session file, or a session id (a unique prefix is enough).
    #[arg(value_name = "FILE|ID")]
    pub target: Option<String>,
    /// Open the picker on the bundled demo sessions, copied to a temporary folder.
    #[arg(long)]
    pub demo: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Options shared by the picker and the commands, accepted before or after the subcommand; what
/// each means where is in [`options`].
#[derive(Args, Debug, Clone, Default)]
pub struct Global {
    /// Start the picker in the All scope instead of the current folder (with list: list every folder).
    #[arg(long, global = true)]
    pub all: bool,
    /// The sessions root (default: $PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR/sessions,
    /// else ~/.pi/agent/sessions).
    #[arg(long, value_name = "DIR", global = true)]
    pub session_dir: Option<PathBuf>,
    /// Print the chosen session's path instead of resuming pi: pi --session "$(pitree --print)".
    #[arg(long, global = true)]
    pub print: bool,
    /// The command that resumes pi (default: pi; also $PITREE_PI).
    #[arg(long, value_name = "CMD", env = "PITREE_PI", global = true)]
    pub pi: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List sessions.
    List(crate::catalog::list_cmd::ListArgs),
    /// Print a session's tree as the tree view draws it, or as JSON.
    Show(show::ShowArgs),
    /// Print what the model sees at the leaf (or at --leaf ID).
    Context(inspect::ContextArgs),
    /// Move the leaf (where pi continues) to an entry, optionally with a branch summary.
    Leaf(edit::LeafArgs),
    /// Set a label on an entry; without TEXT, clear it.
    Label(edit::LabelArgs),
    /// Rename the session; without NAME, clear the name.
    Rename(edit::RenameArgs),
    /// Copy the path root…ID into a new session file; prints its path.
    Fork(edit::ForkArgs),
    /// Move a session file to the trash.
    Delete(edit::DeleteArgs),
    /// Print a shell completion script.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff).
    Man,
}

/// Run a non-interactive command. Returns the process exit status.
pub fn run_command(command: Command, global: &Global) -> Result<i32> {
    let out = &mut std::io::stdout().lock();
    match command {
        Command::List(args) => crate::catalog::list_cmd::run(&args, global.session_dir.as_deref(), out)?,
        Command::Show(args) => show::run(&args, session_cache().as_ref(), out)?,
        Command::Context(args) => inspect::context(&args, session_cache().as_ref(), out)?,
        Command::Leaf(args) => edit::leaf(&args, global, out)?,
        Command::Label(args) => edit::label(&args, global, out)?,
        Command::Rename(args) => edit::rename(&args, global, out)?,
        Command::Fork(args) => edit::fork(&args, global, out)?,
        Command::Delete(args) => edit::delete(&args, global, out)?,
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut options::command(), "pitree", &mut script);
            out.write_all(&script)?;
        }
        Command::Man => {
            clap_mangen::Man::new(options::command()).render(out).wrap_err("cannot write the man page")?
        }
    }
    Ok(0)
}

/// Open the picker, one session's tree view, or the demo.
pub fn run_interactive(cli: &Cli) -> Result<i32> {
    crate::tui::run(crate::tui::TuiOptions {
        all: cli.global.all,
        session_dir: cli.global.session_dir.clone(),
        print: cli.global.print,
        // An empty `--pi` / `PITREE_PI` (as in `PITREE_PI= pitree`) means the default, not no command.
        pi_command: cli.global.pi.clone().filter(|c| !c.trim().is_empty()),
        open_target: cli.target.clone(),
        demo: cli.demo,
    })
}

/// The sessions root for `global`.
pub fn sessions_root(global: &Global) -> Result<PathBuf> {
    let root =
        crate::catalog::locate::sessions_root(global.session_dir.as_deref(), &|k| std::env::var_os(k))?;
    Ok(root.path)
}

/// The parsed-session cache the reading commands use (`PITREE_CACHE_DIR`,
/// `PITREE_SESSION_CACHE_MB`).
fn session_cache() -> Option<SessionCache> {
    SessionCache::from_env(&|k| std::env::var_os(k))
}

/// A session read for a command (through the parsed-session cache), with a one-line error.
fn read_or_say<T>(path: &Path, read: Result<T, crate::session::parse::ParseError>) -> Result<T> {
    read.map_err(|e| color_eyre::eyre::eyre!("{e}"))
        .wrap_err_with(|| format!("cannot read {}", path.display()))
}

/// Open a session file for a command, with a one-line error.
fn open_session(path: &Path) -> Result<crate::session::Session> {
    crate::session::Session::open(path)
        .map_err(|e| color_eyre::eyre::eyre!("{e}"))
        .wrap_err_with(|| format!("cannot read {}", path.display()))
}
