//! Local times at daylight-saving changes read as node's `Date` reads them (ECMA-262's `UTC(t)`):
//! a time that occurs twice is the earlier instant, a time the clock skips keeps the offset from
//! before the change. For each zone, `pitree list --json` runs with that `TZ` on sessions whose
//! header times are such local times, and each `created` is compared with node's `Date` in the
//! same zone. Skipped, with a note, when node or the system's zone data is missing.

mod common;

use std::path::Path;
use std::process::Command;

use common::{Sandbox, ok};
use serde_json::Value;

const CASES: &[(&str, &[&str])] = &[
    (
        "Europe/London",
        &["2025-10-26T01:30:00", "2025-03-30T01:30:00", "2025-03-30T00:59:59.999", "2025-07-01T12:00"],
    ),
    (
        "America/New_York",
        &["2025-11-02T01:30:00", "2025-03-09T02:30:00", "1883-11-18T12:00:00", "2025-01-15T03:30:00.250"],
    ),
    (
        "Australia/Lord_Howe",
        &["2025-04-06T01:45:00", "2025-10-05T02:15:00", "2025-10-05T02:30:00", "2025-12-01T00:00:00"],
    ),
];

#[test]
fn local_times_at_clock_changes_read_as_javascripts_date_reads_them() {
    for (zone, texts) in CASES {
        if !Path::new("/usr/share/zoneinfo").join(zone).exists() {
            eprintln!("note: no zone data for {zone}; skipping it");
            continue;
        }
        let Some(js) = node_dates(zone, texts) else { return };
        let sandbox = Sandbox::new();
        let dir = sandbox.sessions().join("--home-u--");
        std::fs::create_dir_all(&dir).unwrap();
        for (i, text) in texts.iter().enumerate() {
            let header = format!(
                r#"{{"type":"session","version":3,"id":"s{i}","timestamp":"{text}","cwd":"/home/u"}}"#
            );
            std::fs::write(dir.join(format!("s{i}.jsonl")), header + "\n").unwrap();
        }
        let listed = ok(&sandbox.command(&["list", "--all", "--json"]).env("TZ", zone).output().unwrap());
        let rows: Vec<Value> = listed.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(rows.len(), texts.len(), "every session is listed in {zone}");
        for row in rows {
            let i: usize = row["id"].as_str().unwrap()[1..].parse().unwrap();
            assert_eq!(row["created"].as_str(), Some(js[i].as_str()), "new Date({:?}) in {zone}", texts[i]);
        }
    }
}

/// `new Date(text).toISOString()` of each text in node, in `zone`; `None` without node.
fn node_dates(zone: &str, texts: &[&str]) -> Option<Vec<String>> {
    let script = "for (const s of process.argv.slice(1)) console.log(new Date(s).toISOString())";
    let Ok(out) = Command::new("node").env("TZ", zone).arg("-e").arg(script).args(texts).output() else {
        eprintln!("note: node is missing; skipping the check against JavaScript's Date");
        return None;
    };
    assert!(out.status.success(), "node failed: {}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect())
}
