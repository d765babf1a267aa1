//! Where pitree's own options go, and what each means for each subcommand.
//!
//! `--session-dir`, `--pi`, `--all` and `--print` are accepted before or after the subcommand, as
//! in git and cargo: `pitree --session-dir D rename FILE NAME` is
//! `pitree rename --session-dir D FILE NAME`. Given on both sides, the one after the subcommand
//! wins. Each means something to the interactive forms (the picker, `pitree FILE|ID`), and to:
//!
//! - `--session-dir DIR`, where the sessions are: `list`; `leaf`, `label` and `rename`, which
//!   migrate a legacy file only inside it; `fork` and `delete`, which refuse files outside it.
//! - `--pi CMD`, the command that resumes pi: no subcommand.
//! - `--all`, every folder's sessions: `list` (`pitree --all list` is `pitree list --all`).
//! - `--print`, print the chosen path instead of resuming pi: no subcommand.
//!
//! A subcommand's help lists only the ones it uses. The two settings, `--session-dir` and `--pi`,
//! stand for environment variables (`PI_CODING_AGENT_SESSION_DIR`, `PITREE_PI`) that every command
//! sees, and like them are accepted by every subcommand and ignored where they mean nothing, so
//! that an alias such as `alias pt='pitree --session-dir ~/work/sessions'` works with all of them.
//! The two mode flags, `--all` and `--print`, ask for something: one given to a subcommand that
//! has no such mode is a one-line usage error (exit 2) saying where it applies, as is `--demo` or a
//! session to open given with a subcommand.

use clap::error::ErrorKind;
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches};

use super::args::Cli;

/// One of the options shared by the picker and the subcommands.
struct Shared {
    /// The clap id (the field of [`super::global::Global`]).
    id: &'static str,
    /// The subcommands it changes, besides the picker.
    changes: &'static [&'static str],
    /// A mode flag (an error where it means nothing) rather than a setting (ignored there).
    mode: bool,
}

const SHARED: &[Shared] = &[
    Shared {
        id: "session_dir",
        changes: &["list", "leaf", "label", "rename", "fork", "delete"],
        mode: false,
    },
    Shared { id: "pi", changes: &[], mode: false },
    Shared { id: "all", changes: &["list"], mode: true },
    Shared { id: "print", changes: &[], mode: true },
];

/// The command line's clap definition: [`Cli`] with each shared option accepted by every
/// subcommand and shown in the help of those it changes. `pitree completions` and `pitree man`
/// are generated from it.
pub fn command() -> clap::Command {
    let top = Cli::command();
    let hidden: Vec<(&Shared, clap::Arg)> = SHARED
        .iter()
        .map(|s| {
            let arg = top.get_arguments().find(|a| a.get_id() == s.id).expect("a shared option");
            (s, arg.clone().hide(true))
        })
        .collect();
    let names: Vec<String> = top.get_subcommands().map(|s| s.get_name().to_string()).collect();
    names.iter().fold(top, |top, name| top.mut_subcommand(name, |sub| hide_unused(sub, name, &hidden)))
}

/// `sub` with a hidden copy of each shared option it does not use. The shared options are global:
/// clap gives each subcommand a copy, shown in its help, unless it has an argument of that id
/// already (as `list` has its own `--all`, and as the hidden copy is).
fn hide_unused(sub: clap::Command, name: &str, hidden: &[(&Shared, clap::Arg)]) -> clap::Command {
    hidden.iter().fold(sub, |sub, (shared, arg)| {
        let has_own = sub.get_arguments().any(|a| a.get_id() == shared.id);
        if has_own || shared.changes.contains(&name) { sub } else { sub.arg(arg.clone()) }
    })
}

/// Parse the command line, exiting with a usage error (status 2) as clap does.
pub fn parse() -> Cli {
    parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit())
}

/// Parse `args` (the program name first).
pub fn parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    let mut cmd = command();
    let matches = cmd.try_get_matches_from_mut(&args).map_err(|e| session_before_subcommand(&args, e))?;
    check(&matches)?;
    Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))
}

/// For `pitree FILE show`, clap reports that show's FILE is missing: say instead where it goes.
fn session_before_subcommand(args: &[std::ffi::OsString], error: clap::Error) -> clap::Error {
    if !error.use_stderr() {
        return error;
    }
    match command().ignore_errors(true).try_get_matches_from(args) {
        Ok(lenient) => check_target(&lenient).err().unwrap_or(error),
        Err(_) => error,
    }
}

/// Refuse a session to open given with a subcommand (clap takes `pitree FILE list` as `list`
/// with a session to open).
fn check_target(matches: &ArgMatches) -> Result<(), clap::Error> {
    match (matches.get_one::<String>("target"), matches.subcommand_name()) {
        (Some(target), Some(name)) => Err(usage(format!(
            "unexpected argument '{target}' before the subcommand {name}; its arguments go after it"
        ))),
        _ => Ok(()),
    }
}

/// Refuse a session to open given with a subcommand, and a mode flag, or `--demo`, given to a
/// subcommand that has no such mode.
fn check(matches: &ArgMatches) -> Result<(), clap::Error> {
    check_target(matches)?;
    let Some((name, sub)) = matches.subcommand() else { return Ok(()) };
    let given = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
    if given("demo") {
        return Err(usage(format!("--demo is for the picker, not {name}")));
    }
    if let Some(shared) = SHARED.iter().find(|s| s.mode && given(s.id) && !s.changes.contains(&name)) {
        let flag = format!("--{}", shared.id.replace('_', "-"));
        let applies = shared.changes.iter().fold("the picker".to_string(), |text, sub| text + " and " + sub);
        return Err(usage(format!("{flag} is for {applies}, not {name}")));
    }
    if name == "list" && matches.get_flag("all") && sub.value_source("cwd").is_some() {
        return Err(usage("the argument '--all' cannot be used with '--cwd <DIR>'".to_string()));
    }
    Ok(())
}

/// A one-line usage error.
fn usage(message: String) -> clap::Error {
    clap::Error::raw(ErrorKind::ArgumentConflict, format!("{message}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_real_options_and_subcommands() {
        let cmd = command();
        cmd.clone().debug_assert();
        for shared in SHARED {
            assert!(
                cmd.get_arguments().any(|a| a.get_id() == shared.id && a.is_global_set()),
                "{}",
                shared.id
            );
            for name in shared.changes {
                assert!(cmd.find_subcommand(name).is_some(), "{} changes {name}", shared.id);
            }
        }
    }
}
