//! An entry's full JSON, read back from its byte range in the file when a view needs it (detail
//! pane, context texts, copy), so large sessions are not held in memory twice.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;

use color_eyre::eyre::{Result, WrapErr};
use serde_json::Value;

use super::line::{lossy, value_as_javascript_reads_it};

/// Open `path` for reading only if it is a regular file. A FIFO, a device or a folder in a
/// session's place would otherwise block the reader forever or read endlessly; the file is opened
/// without blocking (which changes nothing for a regular file) and checked before any read.
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    open_regular_with_meta(path).map(|(file, _)| file)
}

/// [`open_regular`], with the metadata the check took.
pub fn open_regular_with_meta(path: &Path) -> std::io::Result<(File, std::fs::Metadata)> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"));
    }
    Ok((file, meta))
}

/// Read the bytes of `span` from `path`.
pub fn read_span(path: &Path, span: &Range<u64>) -> Result<Vec<u8>> {
    let mut file = open_regular(path).wrap_err_with(|| format!("cannot open {}", path.display()))?;
    file.seek(SeekFrom::Start(span.start))?;
    let mut buf = vec![0; (span.end - span.start) as usize];
    file.read_exact(&mut buf)
        .wrap_err_with(|| format!("cannot read bytes {}..{} of {}", span.start, span.end, path.display()))?;
    Ok(buf)
}

/// Parse one line's bytes as JSON the way pitree's reader does (lossy UTF-8, BOM and lone
/// surrogates tolerated, a number too large for a double read as the largest double).
pub fn parse_json(bytes: &[u8]) -> Result<Value> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = lossy(bytes);
    let text = text.trim();
    value_as_javascript_reads_it(text).wrap_err("entry JSON is malformed")
}

/// The full JSON of the entry at `span`.
pub fn load_entry(path: &Path, span: &Range<u64>) -> Result<Value> {
    parse_json(&read_span(path, span)?)
}

/// Text of a message's `content`: a string as is, or the text blocks joined with `sep`.
pub fn content_text(content: &Value, sep: &str) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => Some(
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(sep),
        ),
        _ => None,
    }
}

/// The text a context message carries, as pi's projection has it: a message's or custom message's
/// content (text blocks joined with `\n`), a summary's `summary`.
pub fn entry_text(entry: &Value) -> Option<String> {
    match entry.get("type").and_then(Value::as_str) {
        Some("message") => {
            entry.get("message").and_then(|m| m.get("content")).and_then(|c| content_text(c, "\n"))
        }
        Some("custom_message") => entry.get("content").and_then(|c| content_text(c, "\n")),
        Some("compaction") | Some("branch_summary") => {
            entry.get("summary").and_then(Value::as_str).map(str::to_string)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry the session reader keeps reads back whole too: a number too large for a double
    /// (the reader keeps the line, as JSON.parse does), also next to a lone surrogate.
    #[test]
    fn entries_read_back_as_the_session_reader_reads_them() {
        let huge =
            br#"{"type":"message","id":"a","message":{"role":"user","content":"hi","timestamp":17e999}}"#;
        assert_eq!(parse_json(huge).unwrap()["message"]["timestamp"], f64::MAX);
        let both =
            br#"{"type":"message","id":"a","message":{"role":"user","content":"\ud800","timestamp":-1e999}}"#;
        let v = parse_json(both).unwrap();
        assert_eq!(
            (v["message"]["content"].as_str(), v["message"]["timestamp"].as_f64()),
            (Some("\u{fffd}"), Some(f64::MIN))
        );
        assert!(parse_json(br#"{"type":"message","id":"a","x":1e999"#).is_err());
    }
}
