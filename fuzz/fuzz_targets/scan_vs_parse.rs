//! The catalog's fast scanner against the full session parse on any bytes (and, when the first
//! byte is odd, on a pi-shaped session generated from the rest): every line classified alike, the
//! same header, unreadable-line and branch counts, and a continued scan equal to one pass.
#![no_main]

#[path = "../../tests/hardening_support/mod.rs"]
mod hardening_support;

use hardening_support::{Bytes, scan_agrees, scratch_file, session_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let file = scratch_file();
    let Some((&mode, rest)) = data.split_first() else { return };
    let cut = usize::from(mode >> 1);
    if mode % 2 == 1 {
        scan_agrees(&session_bytes(&mut Bytes::new(rest)), &file, cut);
    } else {
        scan_agrees(rest, &file, cut);
    }
});
