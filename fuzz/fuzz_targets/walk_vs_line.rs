//! The session reader's walk against the serde reader it stands in for, on any bytes (and, when
//! the first byte is odd, on a pi-shaped session generated from the rest): every line read whole
//! by the walk is the serde reader's entry, field for field, and its outline has the same place
//! in the tree.
#![no_main]

#[path = "../../tests/hardening_support/mod.rs"]
mod hardening_support;

use hardening_support::{Bytes, session_bytes, walk_agrees};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode % 2 == 1 {
        walk_agrees(&session_bytes(&mut Bytes::new(rest)));
    } else {
        walk_agrees(rest);
    }
});
