//! Resuming a session in pi (product.md §6): `pi --session <file>` (plus `-- <prompt>` when a
//! message is re-sent), run in the session's folder when it still exists, after the terminal has
//! been given back. The command comes from `--pi CMD` / `PITREE_PI` and is split into words
//! without a shell. `--print` prints the path instead.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use color_eyre::eyre::{Result, WrapErr, bail};

/// The default pi command.
pub const DEFAULT_PI: &str = "pi";

/// Exit status when the pi command cannot be found (as a shell reports it).
pub const NOT_FOUND: i32 = 127;

/// A session to continue in pi.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resume {
    pub session: PathBuf,
    /// The session header's `cwd`.
    pub cwd: String,
    /// A user message to send again (`pi --session <file> -- <text>`).
    pub prompt: Option<String>,
}

/// What to do once the terminal is back: hand the process over to pi, or run pi and come back
/// (needed when something must be cleaned up afterwards, such as the demo's temporary folder).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandOver {
    Replace,
    Wait,
}

/// Split a command line into words as a POSIX shell would, without running one: blanks separate
/// words, `'…'` is literal, `"…"` keeps blanks and honours `\"`, `\\`, `\$` and `` \` ``, and a
/// backslash outside quotes takes the next character literally.
pub fn split_command(line: &str) -> Result<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => bail!("unclosed ' in the pi command: {line}"),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => bail!("unclosed \" in the pi command: {line}"),
                        },
                        Some(c) => word.push(c),
                        None => bail!("unclosed \" in the pi command: {line}"),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        bail!("the pi command is empty");
    }
    Ok(words)
}

/// The full argument vector: the pi command, `--session <file>`, and `-- <prompt>`.
pub fn argv(pi: &[String], resume: &Resume) -> Vec<String> {
    let mut args = pi.to_vec();
    args.push("--session".into());
    args.push(resume.session.to_string_lossy().into_owned());
    if let Some(prompt) = &resume.prompt {
        args.push("--".into());
        args.push(prompt.clone());
    }
    args
}

/// Where pi runs: the session's folder when it exists, else `fallback` with a warning to show.
pub fn working_dir(cwd: &str, fallback: &Path) -> (PathBuf, Option<String>) {
    let wanted = Path::new(cwd);
    if !cwd.is_empty() && wanted.is_dir() {
        return (wanted.to_path_buf(), None);
    }
    let why = if cwd.is_empty() {
        "The session does not record its folder".to_string()
    } else {
        format!("The session's folder {cwd} no longer exists")
    };
    (fallback.to_path_buf(), Some(format!("{why}; resuming in {}", fallback.display())))
}

/// Run pi for `resume` and return the exit status pitree should end with.
pub fn run(pi_command: Option<&str>, resume: &Resume, hand_over: HandOver) -> Result<i32> {
    let pi = split_command(pi_command.unwrap_or(DEFAULT_PI))?;
    let args = argv(&pi, resume);
    let here = std::env::current_dir().wrap_err("cannot read the current folder")?;
    let (dir, warning) = working_dir(&resume.cwd, &here);
    if let Some(warning) = warning {
        eprintln!("pitree: {warning}");
    }
    let mut command = Command::new(&args[0]);
    command.args(&args[1..]).current_dir(&dir);
    let error = match hand_over {
        HandOver::Replace => replace_process(&mut command),
        HandOver::Wait => match command.status() {
            Ok(status) => return Ok(exit_status(status)),
            Err(e) => e,
        },
    };
    if error.kind() == std::io::ErrorKind::NotFound {
        not_found(&args[0], resume);
        return Ok(NOT_FOUND);
    }
    Err(error).wrap_err_with(|| format!("cannot run {}", args[0]))
}

/// `--print`: the chosen session's path on stdout, and nothing else.
pub fn print(resume: &Resume) -> Result<i32> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", resume.session.display()).wrap_err("cannot write to stdout")?;
    Ok(0)
}

/// pi is not installed (or not on PATH): print the path and the command that would resume it.
fn not_found(program: &str, resume: &Resume) {
    println!("{}", resume.session.display());
    eprintln!(
        "pitree: cannot find `{program}`. Resume with: pi --session {}  (or set --pi CMD / PITREE_PI)",
        shell_quote(&resume.session.to_string_lossy())
    );
}

/// Quote `text` for a POSIX shell when it needs it.
pub fn shell_quote(text: &str) -> String {
    let plain =
        !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:=@%,".contains(c));
    if plain { text.to_string() } else { format!("'{}'", text.replace('\'', r"'\''")) }
}

#[cfg(unix)]
fn replace_process(command: &mut Command) -> std::io::Error {
    use std::os::unix::process::CommandExt;
    command.exec()
}

#[cfg(not(unix))]
fn replace_process(command: &mut Command) -> std::io::Error {
    match command.status() {
        Ok(status) => std::process::exit(exit_status(status)),
        Err(e) => e,
    }
}

fn exit_status(status: std::process::ExitStatus) -> i32 {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return 128 + signal;
        }
    }
    status.code().unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_like_a_shell_without_one() {
        assert_eq!(split_command("pi").unwrap(), ["pi"]);
        assert_eq!(
            split_command("  node  '/opt/my pi/cli.js' --flag ").unwrap(),
            ["node", "/opt/my pi/cli.js", "--flag"]
        );
        assert_eq!(split_command(r#"a "b \"c\" $d" e\ f"#).unwrap(), ["a", r#"b "c" $d"#, "e f"]);
        assert_eq!(split_command("x ''").unwrap(), ["x", ""]);
        assert!(split_command("a 'b").is_err());
        assert!(split_command("   ").is_err());
        assert_eq!(split_command("echo $(rm -rf /); ls").unwrap(), ["echo", "$(rm", "-rf", "/);", "ls"]);
    }

    #[test]
    fn argv_adds_the_session_and_the_prompt_after_a_double_dash() {
        let resume = Resume { session: PathBuf::from("/s/a b.jsonl"), cwd: "/w".into(), prompt: None };
        assert_eq!(argv(&["pi".into()], &resume), ["pi", "--session", "/s/a b.jsonl"]);
        let with = Resume { prompt: Some("--help me".into()), ..resume };
        assert_eq!(
            argv(&["node".into(), "cli.js".into()], &with),
            ["node", "cli.js", "--session", "/s/a b.jsonl", "--", "--help me"]
        );
    }

    #[test]
    fn a_missing_folder_falls_back_with_a_warning() {
        let here = Path::new("/fallback");
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_str().unwrap();
        assert_eq!(working_dir(cwd, here), (dir.path().to_path_buf(), None));
        let (used, warning) = working_dir("/no/such/folder", here);
        assert_eq!(used, here);
        assert!(warning.unwrap().contains("/no/such/folder no longer exists"));
        assert!(working_dir("", here).1.unwrap().contains("does not record"));
    }

    #[test]
    fn shell_quoting_for_the_hint() {
        assert_eq!(shell_quote("/a/b.jsonl"), "/a/b.jsonl");
        assert_eq!(shell_quote("/odd dir/it's"), r"'/odd dir/it'\''s'");
    }
}
