//! Times and names: `toISOString` timestamps written and read back without a date library, the
//! files' modification times, session file names, pi's encoded cwd folders and the UUIDs of headers.

use pitree::session::date::civil_from_days;

use super::*;

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`, as JavaScript's `toISOString`.
pub(crate) fn iso(ms: i64) -> [u8; 24] {
    let (y, m, d) = civil_from_days(ms.div_euclid(DAY_MS));
    let rem = ms.rem_euclid(DAY_MS);
    let mut out = *b"0000-00-00T00:00:00.000Z";
    put_digits(&mut out[0..4], y);
    put_digits(&mut out[5..7], m);
    put_digits(&mut out[8..10], d);
    put_digits(&mut out[11..13], rem / 3_600_000);
    put_digits(&mut out[14..16], rem / 60_000 % 60);
    put_digits(&mut out[17..19], rem / 1000 % 60);
    put_digits(&mut out[20..23], rem % 1000);
    out
}

pub(crate) fn put_digits(dst: &mut [u8], mut value: i64) {
    for slot in dst.iter_mut().rev() {
        *slot = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

pub(crate) fn parse_iso(text: &[u8]) -> Option<i64> {
    let text = std::str::from_utf8(text).ok()?;
    Some(chrono::DateTime::parse_from_rfc3339(text).ok()?.timestamp_millis())
}

pub(crate) fn system_time(ms: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64)
}

/// pi's file name: `<ts>_<id>.jsonl`, the ts with `:` and `.` replaced by `-`.
pub(crate) fn file_name(created: i64, id: &str) -> String {
    let ts: String =
        iso(created).iter().map(|&b| if b == b':' || b == b'.' { '-' } else { b as char }).collect();
    format!("{ts}_{id}.jsonl")
}

/// pi's per-cwd folder: drop one leading `/` or `\`, replace `/`, `\` and `:` with `-`, wrap in `--`.
pub(crate) fn encode_cwd(cwd: &str) -> String {
    let trimmed = cwd.strip_prefix('/').or_else(|| cwd.strip_prefix('\\')).unwrap_or(cwd);
    format!("--{}--", trimmed.replace(['/', '\\', ':'], "-"))
}

pub(crate) fn uuid_v7(ms: i64, rng: &mut Rng) -> String {
    uuid::Builder::from_unix_timestamp_millis(ms as u64, &rng.bytes()).into_uuid().to_string()
}

pub(crate) fn uuid_v4(rng: &mut Rng) -> String {
    uuid::Builder::from_random_bytes(rng.bytes()).into_uuid().to_string()
}
