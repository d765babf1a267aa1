//! pitree's JavaScript dates (`session::date`) against node's own `Date`: `new Date(text).getTime()`
//! for every shape of the ECMAScript date-time format and the edges V8 adds to it, `TimeClip` of
//! numbers, and `toISOString()`. Both read the same time zone (this process's `TZ`). Skipped, with
//! a note, when node is missing.

use std::process::Command;

use pitree::session::date::{iso_string, parse_ms, time_clip};
use serde_json::{Value, json};

/// Texts both read the same way.
const SHARED: &[&str] = &[
    "2025-07-01T12:00:00.000Z",
    "2025-07-01T12:00:00Z",
    "2025-07-01T12:00Z",
    "2025-07-01T12Z",
    "2025-07-01",
    "2025-07",
    "2025",
    "2025T12:00Z",
    "+002025-07-01T12:00:00.000Z",
    "-000001-01-01T00:00:00Z",
    "-000000-01-01T00:00:00Z",
    "-271821-04-20T00:00:00.000Z",
    "-271821-04-19T23:59:59.999Z",
    "+275760-09-13T00:00:00.000Z",
    "+275760-09-13T00:00:00.001Z",
    "0000-01-01T00:00:00Z",
    "2024-02-29",
    "2025-02-29",
    "2025-02-30T00:00:00Z",
    "2025-02-31",
    "2025-02-32T00:00:00Z",
    "2025-04-31T00:00:00Z",
    "2025-13-01T00:00:00Z",
    "2025-00-10T00:00:00Z",
    "2025-07-00T00:00:00Z",
    "2025-07-01T24:00:00Z",
    "2025-07-01T24:00:01Z",
    "2025-07-01T23:60:00Z",
    "2016-12-31T23:59:60Z",
    "2025-07-01T23:59:60.5Z",
    "2025-07-01T12:00:00.1Z",
    "2025-07-01T12:00:00.12Z",
    "2025-07-01T12:00:00.123456Z",
    "2025-07-01T12:00:00.1239Z",
    "2025-07-01T12:00:00.Z",
    "2025-07-01T12:00:00,5Z",
    "2025-07-01T12:00:00+02:00",
    "2025-07-01T12:00:00+0200",
    "2025-07-01T12:00:00+02",
    "2025-07-01T12:00:00-23:59",
    "2025-07-01T12:00:00+24:00",
    "2025-07-01T12:00:00+02:00:00",
    "2025-07-01T12:00:00.000-00:00",
    "2025-07-01T12:00:00.000ZZ",
    "2025-07-01T12:00:00",
    "2025-07-01T12:00",
    "2025-01-15T03:30:00.250",
    "2025-07-01t12:00:00z",
    "2025-07-01 12:00:00Z",
    "2025-07-01 12:00:00.5+0530",
    "2025-07-01Z",
    "2025-07-01T1:00:00Z",
    "2025-07-01T12:0:00Z",
    " 2025-07-01T12:00:00Z",
    "2025-07-01T12:00:00Z ",
    "20250701T120000Z",
    "2025-07-01T",
    "",
];

/// Texts only V8's fallback parser reads (pitree: no time, as docs/pi-compat.md says).
const V8_FALLBACK: &[&str] = &["2025/07/01", "2025-7-1", "Tue, 01 Jul 2025 12:00:00 GMT", "July 1, 2025"];

const NUMBERS: &[f64] = &[0.0, 1.5, -0.5, -1.0, 1_751_371_200_123.7, 8.64e15, 8.64e15 + 1.0, -8.64e15, 1e300];

fn node(script: &str, input: &Value) -> Option<Value> {
    let out = Command::new("node").arg("-e").arg(script).arg(input.to_string()).output();
    match out {
        Ok(out) if out.status.success() => Some(serde_json::from_slice(&out.stdout).unwrap()),
        Ok(out) => panic!("node failed: {}", String::from_utf8_lossy(&out.stderr)),
        Err(_) => {
            eprintln!("note: node is missing; skipping the check against JavaScript's Date");
            None
        }
    }
}

#[test]
fn texts_read_as_javascripts_date_reads_them() {
    let script = "const t = JSON.parse(process.argv[1]).map(s => new Date(s).getTime()); \
                  console.log(JSON.stringify(t.map(n => Number.isNaN(n) ? null : n)))";
    let Some(js) = node(script, &json!(SHARED)) else { return };
    for (text, js) in SHARED.iter().zip(js.as_array().unwrap()) {
        assert_eq!(parse_ms(text), js.as_i64(), "new Date({text:?})");
    }
    let Some(js) = node(script, &json!(V8_FALLBACK)) else { return };
    for (text, js) in V8_FALLBACK.iter().zip(js.as_array().unwrap()) {
        assert!(js.is_i64(), "{text:?} is read by V8");
        assert_eq!(parse_ms(text), None, "{text:?}");
    }
}

#[test]
fn numbers_clip_and_print_as_javascripts_date_does() {
    let script = "const n = JSON.parse(process.argv[1]).map(x => new Date(x)); \
                  console.log(JSON.stringify(n.map(d => Number.isNaN(d.getTime()) ? null : [d.getTime(), d.toISOString()])))";
    let Some(js) = node(script, &json!(NUMBERS)) else { return };
    for (n, js) in NUMBERS.iter().zip(js.as_array().unwrap()) {
        let ours = time_clip(*n).map(|ms| json!([ms, iso_string(ms).unwrap()]));
        assert_eq!(ours.unwrap_or(Value::Null), *js, "new Date({n})");
    }
    let times = [253_402_300_800_000_i64, -62_198_755_200_000, -1, 951_782_400_000, -8_640_000_000_000_000];
    let script =
        "console.log(JSON.stringify(JSON.parse(process.argv[1]).map(t => new Date(t).toISOString())))";
    let Some(js) = node(script, &json!(times)) else { return };
    for (ms, js) in times.iter().zip(js.as_array().unwrap()) {
        assert_eq!(iso_string(*ms).as_deref(), js.as_str(), "toISOString of {ms}");
    }
}
