//! The clap definitions of the command line: [`Cli`], the program with its shared options and
//! interactive forms, and [`Command`], its subcommands (each one's arguments live with the module
//! that runs it). Parse them with [`super::options::parse`].

use clap::{Parser, Subcommand};

use super::global::Global;
use super::{edit, inspect, show};

/// Find, inspect, branch and resume pi sessions. Parse it with [`super::options::parse`], which places the
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
