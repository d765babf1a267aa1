//! Text pools: large blocks of pre-escaped tool output (code and logs) that payloads are sliced
//! from, so a megabyte of output costs a copy rather than a megabyte of random draws.

use super::*;

pub(crate) struct Pools {
    pub(crate) code: Pool,
    pub(crate) log: Pool,
    pub(crate) base64: Vec<u8>,
}

/// JSON-string-escaped text made of whole lines (each ends with an escaped `\n`).
pub(crate) struct Pool {
    pub(crate) text: Vec<u8>,
    pub(crate) starts: Vec<usize>,
}

impl Pools {
    pub(crate) fn new() -> Self {
        let mut rng = Rng::stream(POOL_STREAM);
        let size = 3 * MB as usize;
        let code = Pool::build(&mut rng, size, code_line);
        let log = Pool::build(&mut rng, size, log_line);
        let base64 = (0..size).map(|_| BASE64_ALPHABET[(rng.next() & 63) as usize]).collect();
        Self { code, log, base64 }
    }
}

impl Pool {
    pub(crate) fn build(rng: &mut Rng, size: usize, line: fn(&mut Rng, &mut Vec<u8>)) -> Self {
        let mut text = Vec::with_capacity(size + 4096);
        let mut starts = Vec::new();
        while text.len() < size {
            starts.push(text.len());
            line(rng, &mut text);
        }
        Self { text, starts }
    }

    /// At least `n` bytes (at most half the pool) of whole lines from a random place.
    pub(crate) fn slice(&self, rng: &mut Rng, n: usize) -> &[u8] {
        let n = n.min(self.text.len() / 2);
        let candidates = self.starts.partition_point(|&s| s + n <= self.text.len());
        let start = self.starts[rng.below(candidates as u64) as usize];
        let end_index = self.starts.partition_point(|&s| s < start + n);
        let end = self.starts.get(end_index).copied().unwrap_or(self.text.len());
        &self.text[start..end]
    }
}

pub(crate) fn push_all(out: &mut Vec<u8>, parts: &[&str]) {
    for part in parts {
        out.extend_from_slice(part.as_bytes());
    }
}

pub(crate) fn push_num(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(n.to_string().as_bytes());
}

pub(crate) fn code_line(rng: &mut Rng, out: &mut Vec<u8>) {
    let (a, b, t) = (*rng.pick(IDENTS), *rng.pick(IDENTS), *rng.pick(TYPES));
    match rng.below(9) {
        0 => push_all(out, &["use ", *rng.pick(CRATES), "::", t, ";"]),
        1 => push_all(out, &["pub fn ", a, "_", b, "(&self, ", b, ": &str) -> Result<", t, "> {"]),
        2 => {
            push_all(out, &["    let ", a, " = self.", b, ".get(\\\"", a, "\\\").ok_or(", t, "::Missing)?;"])
        }
        3 => {
            push_all(out, &["    if ", a, ".len() > "]);
            push_num(out, rng.range(2, 4096));
            push_all(out, &[" {\\n        return Err(", t, "::TooLarge(", a, ".len()));\\n    }"]);
        }
        4 => push_all(out, &["    // ", a, " ", *rng.pick(WORDS), " ", *rng.pick(WORDS), " ", b]),
        5 => push_all(out, &["}\\n"]),
        6 => push_all(out, &["#[derive(Debug, Clone, PartialEq)]\\npub struct ", t, " {"]),
        7 => push_all(out, &["  const ", a, " = await ", b, "(", a, ", { ", b, ": true });"]),
        _ => push_all(out, &["        ", a, ".", b, "(\\t", t, "::default())"]),
    }
    out.extend_from_slice(b"\\n");
}

pub(crate) fn log_line(rng: &mut Rng, out: &mut Vec<u8>) {
    let (a, b) = (*rng.pick(IDENTS), *rng.pick(IDENTS));
    match rng.below(7) {
        0 => {
            push_all(out, &["   Compiling ", *rng.pick(CRATES), " v1."]);
            push_num(out, rng.below(40));
            out.push(b'.');
            push_num(out, rng.below(300));
        }
        1 => push_all(
            out,
            &["test ", a, "::tests::", b, "_", a, " ... ", if rng.chance(0.05) { "FAILED" } else { "ok" }],
        ),
        2 => {
            push_all(out, &[*rng.pick(PATHS), ":"]);
            push_num(out, rng.range(1, 900));
            push_all(out, &[":", "5: warning: unused variable: `", a, "`"]);
        }
        3 => {
            push_all(out, &["2026-03-14T09:", if rng.chance(0.5) { "12" } else { "47" }, ":"]);
            push_num(out, rng.range(10, 59));
            push_all(out, &[".", "512Z INFO ", a, ": request path=/api/v1/", b, " status="]);
            push_num(out, *rng.pick(&[200, 200, 200, 201, 204, 404, 500]));
            out.extend_from_slice(b" took=");
            push_num(out, rng.range(1, 2500));
            out.extend_from_slice(b"ms");
        }
        4 => {
            out.extend_from_slice(b"error[E0");
            push_num(out, rng.range(100, 799));
            push_all(out, &["]: mismatched types\\n   --> ", *rng.pick(PATHS), ":"]);
            push_num(out, rng.range(1, 900));
            out.extend_from_slice(b":17");
        }
        5 => {
            push_all(out, &[*rng.pick(PATHS), ":"]);
            push_num(out, rng.range(1, 900));
            push_all(out, &[":    let ", a, " = ", b, "(\\\"", a, "\\\");"]);
        }
        _ => push_all(out, &["\\tat ", *rng.pick(TYPES), ".", a, " (", *rng.pick(PATHS), ":42:7)"]),
    }
    out.extend_from_slice(b"\\n");
}
