//! The structural JSON check (`catalog::validate`) against the serde check it stands in for, on
//! any bytes: wherever the structural check decides, it decides as serde does, and the floor
//! check (`catalog::lines::is_json`) says what serde says of the line without its white space;
//! likewise the check of a sniffed line (JSON, its sniffed keys once each).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pitree::catalog::{lines, validate};
use pitree::session::line::json_text;

fuzz_target!(|data: &[u8]| {
    if let Some(json) = validate::is_json(data) {
        assert_eq!(json, lines::is_json_by_serde(data), "{:?}", String::from_utf8_lossy(data));
    }
    assert_eq!(lines::is_json(data), json_text(data).is_some_and(lines::is_json_by_serde));
    if let Some(unique) = validate::is_sniffed_json(data) {
        assert_eq!(unique, lines::is_sniffed_json_by_serde(data), "{:?}", String::from_utf8_lossy(data));
    }
});
