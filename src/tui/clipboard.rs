//! Copying text to the clipboard from a terminal program: an OSC 52 sequence written to the
//! terminal (works over ssh and in tmux with `set-clipboard on`), and the platform's clipboard
//! tool when one is installed (`wl-copy` under Wayland, `xclip`/`xsel` under X11, `pbcopy` on
//! macOS), fed on a worker thread so a tool that hangs cannot freeze the screen.

use std::io::Write;
use std::process::{Command, Stdio};

/// The OSC 52 sequence that puts `text` on the system clipboard.
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

/// The clipboard tools worth trying here, as argument vectors, best first.
pub fn tools(env: &dyn Fn(&str) -> Option<String>) -> Vec<Vec<&'static str>> {
    let mut tools = Vec::new();
    if env("WAYLAND_DISPLAY").is_some_and(|v| !v.is_empty()) {
        tools.push(vec!["wl-copy"]);
    }
    if env("DISPLAY").is_some_and(|v| !v.is_empty()) {
        tools.push(vec!["xclip", "-selection", "clipboard"]);
        tools.push(vec!["xsel", "--clipboard", "--input"]);
    }
    if cfg!(target_os = "macos") {
        tools.push(vec!["pbcopy"]);
    }
    tools
}

/// Copy `text`: the OSC 52 sequence goes to `terminal` (when there is one), and the first
/// clipboard tool that starts gets the text on its stdin, in the background. Fails only when
/// neither way was available.
pub fn copy(text: &str, terminal: Option<&mut dyn Write>) -> Result<(), String> {
    let sent =
        terminal.is_some_and(|out| out.write_all(osc52(text).as_bytes()).and_then(|_| out.flush()).is_ok());
    let env = |name: &str| std::env::var(name).ok();
    let started = tools(&env).into_iter().any(|argv| feed(&argv, text));
    if sent || started {
        Ok(())
    } else {
        Err("no terminal to send the text to and no clipboard tool (wl-copy, xclip, xsel, pbcopy) found"
            .into())
    }
}

/// Start `argv` and write `text` to its stdin on a worker thread.
fn feed(argv: &[&str], text: &str) -> bool {
    let child = Command::new(argv[0])
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return false };
    let text = text.to_string();
    std::thread::spawn(move || {
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(text.as_bytes());
        }
        let _ = child.wait();
    });
    true
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64("echo pwned\n".as_bytes()), "ZWNobyBwd25lZAo=");
        assert_eq!(base64("会话".as_bytes()), "5Lya6K+d");
    }

    #[test]
    fn osc52_wraps_the_text() {
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
        let mut out = Vec::new();
        copy("hi", Some(&mut out)).unwrap();
        assert_eq!(out, b"\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn tools_depend_on_the_display() {
        let none = |_: &str| None;
        assert_eq!(tools(&none).len(), usize::from(cfg!(target_os = "macos")));
        let wayland = |k: &str| (k == "WAYLAND_DISPLAY").then(|| "wayland-0".to_string());
        assert_eq!(tools(&wayland)[0], ["wl-copy"]);
        let x11 = |k: &str| (k == "DISPLAY").then(|| ":0".to_string());
        assert_eq!(tools(&x11)[0], ["xclip", "-selection", "clipboard"]);
    }
}
