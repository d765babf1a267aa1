//! Running the external branch summarizer (default `pi -p --no-session`): its words split without
//! a shell, the abandoned path on its stdin, its stdout as the summary. It runs on a worker; the
//! tree view shows a spinner and Esc kills it. A missing command or a failure is a one-line
//! message, never a hang.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

/// The summarizer used when none is configured, and how it is derived from `--pi CMD`.
pub fn default_command(pi: Option<&str>) -> String {
    format!("{} -p --no-session", pi.unwrap_or(super::resume::DEFAULT_PI))
}

/// A summarizer run; cancel it with [`Running::cancel`].
pub struct Running {
    child: Arc<Mutex<Option<Child>>>,
}

impl Running {
    /// Kill the process; its result is not reported.
    pub fn cancel(&self) {
        if let Some(mut child) = self.child.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Start `command` with `input` on stdin; `done` gets its stdout (trimmed), or why it failed.
/// `done` is not called after [`Running::cancel`].
pub fn start(
    command: &str,
    input: String,
    done: impl FnOnce(Result<String, String>) + Send + 'static,
) -> Result<Running, String> {
    let argv = super::resume::split_command(command).map_err(|e| format!("{e:#}"))?;
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("the summarizer `{}` was not found", argv[0]),
            _ => format!("cannot run the summarizer `{}`: {e}", argv[0]),
        })?;
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let shared = Arc::new(Mutex::new(Some(child)));
    let running = Running { child: Arc::clone(&shared) };
    std::thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(input.as_bytes());
        }
    });
    let program = argv[0].clone();
    std::thread::spawn(move || {
        let err = std::thread::spawn(move || read_all(stderr));
        let out = read_all(stdout);
        let err = err.join().unwrap_or_default();
        let Some(mut child) = shared.lock().unwrap_or_else(|e| e.into_inner()).take() else {
            return;
        };
        let result = match child.wait() {
            Ok(status) if status.success() => match out.trim() {
                "" => Err(format!("the summarizer `{program}` printed nothing")),
                text => Ok(text.to_string()),
            },
            Ok(status) => {
                let why = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
                Err(format!(
                    "the summarizer `{program}` failed ({status}){}",
                    if why.is_empty() { String::new() } else { format!(": {why}") }
                ))
            }
            Err(e) => Err(format!("the summarizer `{program}` failed: {e}")),
        };
        done(result);
    });
    Ok(running)
}

fn read_all(pipe: Option<impl Read>) -> String {
    let mut bytes = Vec::new();
    if let Some(mut pipe) = pipe {
        let _ = pipe.read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    fn run(command: &str, input: &str) -> Result<String, String> {
        let (tx, rx) = mpsc::channel();
        start(command, input.to_string(), move |r| tx.send(r).unwrap())?;
        rx.recv_timeout(Duration::from_secs(10)).unwrap()
    }

    #[test]
    fn stdin_in_stdout_out() {
        assert_eq!(run("cat", "  the summary \n").unwrap(), "the summary");
    }

    #[test]
    fn failures_are_one_line_messages() {
        assert!(run("no-such-summarizer-xyz", "").unwrap_err().contains("was not found"));
        let failed = run("sh -c 'echo bad >&2; exit 3'", "").unwrap_err();
        assert!(failed.contains("failed") && failed.contains("bad"), "{failed}");
        assert!(run("true", "").unwrap_err().contains("printed nothing"));
    }

    #[test]
    fn a_cancelled_run_reports_nothing() {
        let (tx, rx) = mpsc::channel();
        let running = start("sleep 30", String::new(), move |r| tx.send(r).unwrap()).unwrap();
        running.cancel();
        assert!(rx.recv_timeout(Duration::from_millis(500)).is_err());
    }

    #[test]
    fn the_default_follows_the_pi_command() {
        assert_eq!(default_command(None), "pi -p --no-session");
        assert_eq!(default_command(Some("node cli.js")), "node cli.js -p --no-session");
    }
}
