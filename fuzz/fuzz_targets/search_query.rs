//! The picker's query parser and matcher: the first line of the input is the query (any text,
//! `re:` patterns included), the rest makes the sessions searched.
#![no_main]

#[path = "../../tests/hardening_support/mod.rs"]
mod hardening_support;

use hardening_support::{Bytes, search, summaries};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (query, rest) = match data.iter().position(|b| *b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let query = String::from_utf8_lossy(query);
    search(&query, &summaries(&mut Bytes::new(rest)));
});
