//! The tree view's key reducer: a pi-shaped session generated from the first half of the input,
//! keys from the second; every outcome executed against the real file as the app does (writes,
//! forks, re-reads), drawn at changing sizes, no control character reaching the screen.
#![no_main]

#[path = "../../tests/hardening_support/mod.rs"]
mod hardening_support;

use hardening_support::{Bytes, session_bytes, tree_keys};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (session, keys) = data.split_at(data.len() / 2);
    let dir = tempfile::tempdir_in(hardening_support::scratch_root()).unwrap();
    let bytes = session_bytes(&mut Bytes::new(session));
    tree_keys(&bytes, &mut Bytes::new(keys), dir.path());
});
