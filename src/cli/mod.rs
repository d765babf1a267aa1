//! The command line (product.md §7): clap definitions (parsed through [`options`], which says where
//! the shared options go), and the scriptable commands that read or change one session file. The
//! interactive forms hand over to [`crate::tui`].

mod args;
mod edit;
mod global;
mod inspect;
mod open;
pub mod options;
mod show;

use std::io::Write;

use color_eyre::eyre::{Result, WrapErr};

use crate::catalog::session_cache::SessionCache;
pub use args::{Cli, Command};
pub use global::{Global, sessions_root};

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

/// The parsed-session cache the reading commands use (`PITREE_CACHE_DIR`,
/// `PITREE_SESSION_CACHE_MB`).
fn session_cache() -> Option<SessionCache> {
    SessionCache::from_env(&|k| std::env::var_os(k))
}
