//! The commands that change one session: `leaf`, `label`, `rename`, `fork`, `delete`. Each goes
//! through [`crate::store`], refuses a session a running pi holds unless `--force`, and prints one
//! line saying what it wrote.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use color_eyre::eyre::{Result, WrapErr, bail, eyre};

use super::global::{Global, sessions_root};
use super::open::open_session;
use crate::session::{Ix, Session, summary};
use crate::store::{self, Action};

#[derive(Args, Debug)]
pub struct LeafArgs {
    /// The session file.
    pub file: PathBuf,
    /// The entry pi should continue from (id or unique prefix), or `root` for an empty conversation.
    pub id: String,
    /// Write a branch summary with this text instead of a plain marker.
    #[arg(long, conflicts_with_all = ["summary_file", "draft"])]
    pub summary: Option<String>,
    /// Write a branch summary read from this file (`-` for stdin).
    #[arg(long, value_name = "F", conflicts_with = "draft")]
    pub summary_file: Option<PathBuf>,
    /// Write a branch summary drafted by pitree from the abandoned path.
    #[arg(long)]
    pub draft: bool,
    /// Write even if a running pi has the session open.
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct LabelArgs {
    /// The session file.
    pub file: PathBuf,
    /// The entry to label (id or unique prefix).
    pub id: String,
    /// The label; leave out to clear it.
    pub text: Option<String>,
    /// Write even if a running pi has the session open.
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct RenameArgs {
    /// The session file.
    pub file: PathBuf,
    /// The new name; leave out to clear it.
    pub name: Option<String>,
    /// Write even if a running pi has the session open.
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct ForkArgs {
    /// The session file.
    pub file: PathBuf,
    /// The last entry of the path to copy (id or unique prefix).
    pub id: String,
}

#[derive(Args, Debug)]
pub struct DeleteArgs {
    /// The session file.
    pub file: PathBuf,
    /// Do not ask for confirmation.
    #[arg(long, short)]
    pub yes: bool,
    /// Delete even if a running pi has the session open (its next append would start the file
    /// again without a header, which pi then cannot open).
    #[arg(long)]
    pub force: bool,
}

pub fn leaf(args: &LeafArgs, global: &Global, out: &mut dyn Write) -> Result<()> {
    let session = writable(&args.file, args.force)?;
    let target = match args.id.as_str() {
        "root" => None,
        id => Some(resolve(&session, id)?),
    };
    let target_id = target.map(|t| session.entry(t).id.to_string());
    let action = match (summary_text(args)?, args.draft) {
        (None, false) => Action::MoveLeaf { target: target_id.clone() },
        (text, _) => {
            let abandoned = summary::abandoned_entries(&session, session.graph.leaf(), target);
            let draft = summary::draft(&session, &abandoned);
            Action::MoveLeafWithSummary {
                target: target_id.clone(),
                summary: text.unwrap_or(draft.text),
                read_files: draft.read_files,
                modified_files: draft.modified_files,
            }
        }
    };
    let written = write(&args.file, &session, global, &action)?;
    let to = target_id.as_deref().unwrap_or("root");
    writeln!(out, "leaf moved to {to} ({} {})", written.line["type"].as_str().unwrap_or(""), written.id)?;
    Ok(())
}

fn summary_text(args: &LeafArgs) -> Result<Option<String>> {
    if let Some(s) = &args.summary {
        return Ok(Some(s.clone()));
    }
    let Some(path) = &args.summary_file else {
        return Ok(None);
    };
    let text = if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).wrap_err("cannot read the summary from stdin")?
    } else {
        std::fs::read_to_string(path).wrap_err_with(|| format!("cannot read {}", path.display()))?
    };
    Ok(Some(text))
}

pub fn label(args: &LabelArgs, global: &Global, out: &mut dyn Write) -> Result<()> {
    let session = writable(&args.file, args.force)?;
    let target = session.entry(resolve(&session, &args.id)?).id.to_string();
    let label = args.text.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(str::to_string);
    let action = Action::Label { target: target.clone(), label: label.clone() };
    let written = write(&args.file, &session, global, &action)?;
    match label {
        Some(l) => writeln!(out, "labeled {target} \"{l}\" (label {})", written.id)?,
        None => writeln!(out, "cleared the label of {target} (label {})", written.id)?,
    }
    Ok(())
}

pub fn rename(args: &RenameArgs, global: &Global, out: &mut dyn Write) -> Result<()> {
    let session = writable(&args.file, args.force)?;
    let action = Action::Rename { name: args.name.clone() };
    let written = write(&args.file, &session, global, &action)?;
    match written.line["name"].as_str().filter(|n| !n.is_empty()) {
        Some(name) => writeln!(out, "renamed to \"{name}\" (session_info {})", written.id)?,
        None => writeln!(out, "cleared the name (session_info {})", written.id)?,
    }
    Ok(())
}

pub fn fork(args: &ForkArgs, global: &Global, out: &mut dyn Write) -> Result<()> {
    let session = open_session(&args.file)?;
    let target = resolve(&session, &args.id)?;
    let path = store::actions::fork(&session, target, &sessions_root(global)?)?;
    writeln!(out, "{}", path.display())?;
    Ok(())
}

pub fn delete(args: &DeleteArgs, global: &Global, out: &mut dyn Write) -> Result<()> {
    not_live(&args.file, args.force, "its next message would start the file again without a header")?;
    if !args.yes && !confirm(&format!("Move {} to the trash? [y/N] ", args.file.display()))? {
        bail!("not deleted (answer y, or pass --yes)");
    }
    let trashed = store::trash::delete(&args.file, &sessions_root(global)?)?;
    writeln!(out, "moved {} to the trash", trashed.original.display())?;
    Ok(())
}

fn confirm(question: &str) -> Result<bool> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        bail!("refusing to delete without confirmation: stdin is not a terminal (pass --yes)");
    }
    eprint!("{question}");
    let mut answer = String::new();
    stdin.lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim().to_lowercase().as_str(), "y" | "yes"))
}

fn resolve(session: &Session, id: &str) -> Result<Ix> {
    session.resolve_id(id).map_err(|e| eyre!("{e}"))
}

/// Open a session for writing: refuse one a running pi holds, unless forced.
fn writable(path: &Path, force: bool) -> Result<Session> {
    let session = open_session(path)?;
    not_live(path, force, "it keeps its own position and will not see this change")?;
    Ok(session)
}

/// Refuse, saying `why` it matters, when a running pi holds `path` and the user did not force.
fn not_live(path: &Path, force: bool, why: &str) -> Result<()> {
    match store::live::scan().holder(path).filter(|_| !force) {
        Some(pid) => {
            bail!(
                "a running pi (pid {pid}) has {} open; {why}. Quit it first, or pass --force",
                path.display()
            )
        }
        None => Ok(()),
    }
}

fn write(path: &Path, session: &Session, global: &Global, action: &Action) -> Result<store::Written> {
    store::write_action(path, Some(session), Some(&sessions_root(global)?), action)
}
