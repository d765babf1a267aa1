//! The session model on any bytes: parse → graph → context → flatten → rows → drafts, with the
//! invariants of `tests/hardening_support` (raw bytes and, when the first byte is odd, a pi-shaped
//! session generated from the rest).
#![no_main]

#[path = "../../tests/hardening_support/mod.rs"]
mod hardening_support;

use hardening_support::{Bytes, scratch_file, session_bytes, session_model};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let file = scratch_file();
    match data.split_first() {
        Some((mode, rest)) if mode % 2 == 1 => session_model(&session_bytes(&mut Bytes::new(rest)), &file),
        _ => session_model(data, &file),
    }
});
