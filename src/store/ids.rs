//! New ids and timestamps, as pi makes them: 8 lowercase hex digits for entries (unique in the
//! file), UUIDv7 for sessions, ISO-8601 UTC with milliseconds for timestamps.

use std::collections::HashSet;

/// An 8-hex-digit entry id not in `taken` (pi's `generateId`: 100 tries, then a full UUID).
pub fn entry_id(taken: &dyn Fn(&str) -> bool) -> String {
    for _ in 0..100 {
        let id = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
        if !taken(&id) {
            return id;
        }
    }
    uuid::Uuid::new_v4().to_string()
}

/// Several fresh entry ids, unique among themselves and not in `taken`.
pub fn entry_ids(n: usize, taken: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut mine = HashSet::new();
    (0..n)
        .map(|_| {
            let id = entry_id(&|id| taken(id) || mine.contains(id));
            mine.insert(id.clone());
            id
        })
        .collect()
}

/// A new session id (UUIDv7, as pi 1.6.0).
pub fn session_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// Now, as pi writes timestamps: `2025-06-03T14:02:40.500Z`.
pub fn now_timestamp() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A session file name for a header timestamp and id: `<ts with : and . as ->_<id>.jsonl`.
pub fn session_file_name(timestamp: &str, id: &str) -> String {
    format!("{}_{id}.jsonl", timestamp.replace([':', '.'], "-"))
}

/// pi's rule for custom session ids.
pub fn is_valid_session_id(id: &str) -> bool {
    let b = id.as_bytes();
    !b.is_empty()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_ids_are_8_hex_and_distinct() {
        let ids = entry_ids(100, &|_| false);
        let set: HashSet<_> = ids.iter().collect();
        assert_eq!(set.len(), 100);
        assert!(
            ids.iter()
                .all(|i| i.len() == 8 && i.bytes().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()))
        );
    }

    #[test]
    fn file_name_matches_pi() {
        assert_eq!(
            session_file_name("2024-12-03T14:00:00.000Z", "abc"),
            "2024-12-03T14-00-00-000Z_abc.jsonl"
        );
    }

    #[test]
    fn session_id_rules() {
        assert!(is_valid_session_id("a.b-c_1"));
        for bad in ["-bad", "bad-", "a b", "a/b", ""] {
            assert!(!is_valid_session_id(bad), "{bad}");
        }
        assert!(is_valid_session_id(&session_id()));
    }

    #[test]
    fn timestamps_have_millis_and_z() {
        let t = now_timestamp();
        assert_eq!(t.len(), 24, "{t}");
        assert!(t.ends_with('Z'));
    }
}
