//! The options shared by the picker and every command ([`Global`]), accepted before or after the
//! subcommand (see [`super::options`]), and the sessions root they name.

use std::path::PathBuf;

use clap::Args;
use color_eyre::eyre::Result;

/// Options shared by the picker and the commands, accepted before or after the subcommand; what
/// each means where is in [`super::options`].
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

/// The sessions root for `global`.
pub fn sessions_root(global: &Global) -> Result<PathBuf> {
    let root =
        crate::catalog::locate::sessions_root(global.session_dir.as_deref(), &|k| std::env::var_os(k))?;
    Ok(root.path)
}
