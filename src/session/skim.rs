//! A fast pass over one long JSON line before serde reads it: it checks the insides of every string
//! (no raw control characters, only JSON's escapes) 64 bytes at a time, and copies the line with
//! very long strings left out, as its reader asks ([`Cut`]): the session reader keeps the start
//! of the strings it only reads the start of (texts, thinking, images, tool output), the listing
//! drops the values it does not read at all, or every long string of a line it only checks. serde
//! then checks the rest of the grammar on a line a fraction of the size, so a 1 MB tool output
//! costs one vector scan instead of serde's byte-by-byte walk.
//!
//! The shortened line is valid JSON exactly when the original is: only string contents that this
//! pass has checked are left out, the cut never splits an escape, a UTF-8 character or a surrogate
//! pair, and everything outside strings is kept. Anything this pass does not expect (a string left
//! open, a backslash outside a string, a bad escape) hands the original line to serde unchanged,
//! which decides. The pass works on bytes, before the line is checked as UTF-8: invalid UTF-8 in
//! what it leaves out changes nothing, as the reader decodes lines lossily (as pi does), and a cut
//! inside an invalid sequence only moves where the lossy decoding of the kept start ends.

use std::ops::{ControlFlow, Range};

use super::entry::TEXT_HEAD_CHARS;
use super::literal::unescape;

/// Lines and strings up to this many bytes are left to serde as they are.
const LONG: usize = 1024;

/// Which long strings (over [`LONG`] bytes) [`shorten`] leaves out, and how much of each it keeps.
#[derive(Clone, Copy)]
pub enum Cut<'k> {
    /// The values of these keys (values a reader never reads past their first
    /// [`TEXT_HEAD_CHARS`] characters) keep one character more than a head, so the reader still
    /// sees that they go on.
    Heads(&'k [&'k str]),
    /// The values of every key but these (written without escapes) are left out whole; keys and
    /// array elements stay.
    ValuesExcept(&'k [&'k str]),
    /// Every long string is left out whole, keys too: for a line only checked to be JSON.
    Everything,
}

impl Cut<'_> {
    /// The part to leave out of the long string from `open` (its opening quote) to `close` (its
    /// closing quote), if any.
    fn range(self, line: &[u8], open: usize, close: usize) -> Option<Range<usize>> {
        let start = open + 1;
        match self {
            Cut::Heads(keys) => key_before(line, open)
                .is_some_and(|key| is_one_of(key, keys))
                .then(|| keep_end(line, start, close)..close),
            Cut::ValuesExcept(keys) => {
                key_before(line, open).is_some_and(|key| !is_one_of(key, keys)).then_some(start..close)
            }
            Cut::Everything => Some(start..close),
        }
    }
}

fn is_one_of(key: &[u8], keys: &[&str]) -> bool {
    keys.iter().any(|k| k.as_bytes() == key)
}

/// `line` with the strings `cut` names left out as it says, written to `out`; or `line` itself
/// when there is nothing to leave out or the line is not what this pass expects.
pub fn shorten<'a>(line: &'a [u8], out: &'a mut Vec<u8>, cut: Cut<'_>) -> &'a [u8] {
    if line.len() <= LONG {
        return line;
    }
    match cuts(line, cut) {
        Some(cuts) if !cuts.is_empty() => {
            out.clear();
            out.reserve(line.len() - cuts.iter().map(|c| c.len()).sum::<usize>());
            let mut from = 0;
            for cut in cuts {
                out.extend_from_slice(&line[from..cut.start]);
                from = cut.end;
            }
            out.extend_from_slice(&line[from..]);
            out
        }
        _ => line,
    }
}

/// The byte ranges to leave out of `line`; `None` when the line is not one this pass vouches for.
fn cuts(line: &[u8], cut: Cut<'_>) -> Option<Vec<Range<usize>>> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("pclmulqdq") {
        // SAFETY: the CPU has both features.
        return unsafe { x86::cuts(line, cut) };
    }
    scan_line(line, cut, Masks::of, prefix_xor)
}

/// The end of the JSON string contents that `bytes` starts with: the position of the closing
/// quote, with every escape checked (only JSON's, `\\u` with four hex digits) and no raw control
/// character before it; `None` when the string is not valid or not closed.
pub(crate) fn string_end(bytes: &[u8]) -> Option<usize> {
    if bytes.len() < 64 {
        return string_end_bytewise(bytes);
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { x86::string_end(bytes) };
    }
    string_end_portable(bytes)
}

/// [`string_end`] with the blocks classified by the portable masks ([`Masks::of`]).
fn string_end_portable(bytes: &[u8]) -> Option<usize> {
    string_end_in_blocks(
        bytes,
        |b| Masks::of(b).into(),
        |b| {
            let m = Masks::of(b);
            (m.escapable, m.u)
        },
    )
}

/// [`string_end`] 64 bytes at a time, with the block's bytes classified by `masks`: the escaped
/// positions of a block are found at once ([`Scan::escapes`]), and the block is good up to its
/// first quote that no backslash escapes when nothing before that quote is a control character
/// or an escape JSON does not have. `escapes` classifies what may follow a backslash
/// (`(escapable, u)`), asked only of a block that has an escape.
#[inline(always)]
fn string_end_in_blocks(
    bytes: &[u8],
    masks: impl Fn(&[u8; 64]) -> StringMasks,
    escapes: impl Fn(&[u8; 64]) -> (u64, u64),
) -> Option<usize> {
    let mut scan = Scan::default();
    let found = each_block(bytes, |base, block| {
        let m = masks(block);
        let escaped = scan.escapes(m.backslash);
        let quotes = m.quote & !escaped;
        let before_quote = quotes.wrapping_sub(1) & !quotes;
        if m.control & before_quote != 0 {
            return ControlFlow::Break(None);
        }
        if escaped & before_quote != 0 {
            let (escapable, u) = escapes(block);
            if escaped & !escapable & before_quote != 0
                || check_unicode_escapes(bytes, base, escaped & u & before_quote).is_none()
            {
                return ControlFlow::Break(None);
            }
        }
        if quotes != 0 {
            return ControlFlow::Break(Some(base + quotes.trailing_zeros() as usize));
        }
        ControlFlow::Continue(())
    });
    match found {
        ControlFlow::Break(end) => end,
        ControlFlow::Continue(()) => None,
    }
}

/// `f` over the 64-byte blocks of `bytes` and their offsets (the last block padded with
/// spaces), until it breaks.
#[inline(always)]
pub(crate) fn each_block<B>(
    bytes: &[u8],
    mut f: impl FnMut(usize, &[u8; 64]) -> ControlFlow<B>,
) -> ControlFlow<B> {
    let mut tail = [b' '; 64];
    for base in (0..bytes.len()).step_by(64) {
        let block: &[u8; 64] = match bytes.get(base..base + 64) {
            Some(b) => b.try_into().expect("64 bytes"),
            None => {
                let rest = &bytes[base..];
                tail[..rest.len()].copy_from_slice(rest);
                &tail
            }
        };
        f(base, block)?;
    }
    ControlFlow::Continue(())
}

/// What [`string_end_in_blocks`] asks of every block.
struct StringMasks {
    quote: u64,
    backslash: u64,
    control: u64,
}

impl From<Masks> for StringMasks {
    fn from(m: Masks) -> StringMasks {
        StringMasks { quote: m.quote, backslash: m.backslash, control: m.control }
    }
}

/// [`string_end`] a byte at a time.
fn string_end_bytewise(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        match *bytes.get(at)? {
            b'"' => return Some(at),
            b'\\' => at += escape_len(bytes, at)?,
            0..0x20 => return None,
            _ => at += 1,
        }
    }
}

/// The length of the escape at `at` (a backslash) when it is one of JSON's.
#[inline(always)]
fn escape_len(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' => bytes.get(at + 2..at + 6)?.iter().all(u8::is_ascii_hexdigit).then_some(6),
        _ => None,
    }
}

/// [`cuts`] with the given ways of classifying a block's bytes and of marking string insides.
#[inline(always)]
fn scan_line(
    line: &[u8],
    cut: Cut<'_>,
    masks: impl Fn(&[u8; 64]) -> Masks,
    prefix_xor: impl Fn(u64) -> u64,
) -> Option<Vec<Range<usize>>> {
    let mut scan = Scan::default();
    let mut cuts = Vec::new();
    let scanned = each_block(line, |base, block| {
        match scan.block(line, base, masks(block), &prefix_xor, cut, &mut cuts) {
            Some(()) => ControlFlow::Continue(()),
            None => ControlFlow::Break(()),
        }
    });
    (scanned.is_continue() && scan.in_string == 0).then_some(cuts)
}

/// The state carried from one 64-byte block to the next.
#[derive(Default)]
pub(crate) struct Scan {
    /// The first byte of the next block follows an escaping backslash.
    escaped_next: bool,
    /// All ones when the next block starts inside a string.
    in_string: u64,
    /// Where the string open at the end of the last block starts (its opening quote).
    open: usize,
}

impl Scan {
    #[inline(always)]
    fn block(
        &mut self,
        line: &[u8],
        base: usize,
        m: Masks,
        prefix_xor: impl Fn(u64) -> u64,
        cut: Cut<'_>,
        cuts: &mut Vec<Range<usize>>,
    ) -> Option<()> {
        let open_before = self.in_string;
        let (quotes, inside) = self.strings(line, base, &m, prefix_xor)?;
        // Only a string open before this block can be long: it closes at the block's first quote.
        if open_before != 0 && quotes != 0 {
            let close = base + quotes.trailing_zeros() as usize;
            if close - self.open > LONG
                && let Some(range) = cut.range(line, self.open, close)
            {
                cuts.push(range);
            }
        }
        let opening = quotes & inside;
        if self.in_string != 0 && opening != 0 {
            self.open = base + 63 - opening.leading_zeros() as usize;
        }
        Some(())
    }

    /// The strings of the block at `base` of `line`, classified as `m`: its quotes that no
    /// backslash escapes, and the bits inside strings (each opening quote included, no closing
    /// one), with the scan moved past the block. `None` when a string holds a raw control
    /// character or an escape JSON does not have, or a backslash stands outside strings: the line
    /// is not JSON.
    #[inline(always)]
    pub(crate) fn strings(
        &mut self,
        line: &[u8],
        base: usize,
        m: &Masks,
        prefix_xor: impl Fn(u64) -> u64,
    ) -> Option<(u64, u64)> {
        let escaped = self.escapes(m.backslash);
        if escaped & !m.escapable != 0 {
            return None;
        }
        check_unicode_escapes(line, base, escaped & m.u)?;
        let quotes = m.quote & !escaped;
        let inside = prefix_xor(quotes) ^ self.in_string;
        if m.control & inside != 0 || m.backslash & !inside != 0 {
            return None;
        }
        self.in_string = ((inside as i64) >> 63) as u64;
        Some((quotes, inside))
    }

    /// Whether the scan ends inside a string (one left open).
    pub(crate) fn in_string(&self) -> bool {
        self.in_string != 0
    }

    /// The positions in this block that escaping backslashes escape. Backslashes alone (the usual
    /// `\n` or `\"`) escape the byte after them; runs of them are walked one by one.
    #[inline(always)]
    fn escapes(&mut self, backslashes: u64) -> u64 {
        let carried = u64::from(self.escaped_next);
        let escaping = backslashes & !carried;
        if escaping & escaping << 1 == 0 {
            self.escaped_next = escaping >> 63 == 1;
            return escaping << 1 | carried;
        }
        let mut escaped = carried;
        let mut b = escaping;
        self.escaped_next = false;
        while b != 0 {
            let bit = b.trailing_zeros();
            if bit == 63 {
                self.escaped_next = true;
            } else {
                escaped |= 1 << (bit + 1);
                b &= !(1 << (bit + 1));
            }
            b &= b - 1;
        }
        escaped
    }
}

/// Each `u` at the positions `escapes` (of the block at `base`) is followed by four hex digits.
fn check_unicode_escapes(line: &[u8], base: usize, mut escapes: u64) -> Option<()> {
    while escapes != 0 {
        let at = base + escapes.trailing_zeros() as usize;
        line.get(at + 1..at + 5)?.iter().all(u8::is_ascii_hexdigit).then_some(())?;
        escapes &= escapes - 1;
    }
    Some(())
}

/// The key whose value is the string opening at `open`, when it is written without escapes: read
/// backwards, only whitespace and one `:` lie between them and the key's opening quote is not
/// escaped. (In a line that is not JSON a wrong answer changes nothing: a cut only leaves out
/// string contents this pass has checked.)
fn key_before(line: &[u8], open: usize) -> Option<&[u8]> {
    let before = line[..open].trim_ascii_end().strip_suffix(b":")?.trim_ascii_end().strip_suffix(b"\"")?;
    let quote = memchr::memrchr(b'"', before)?;
    let key = &before[quote + 1..];
    (!key.contains(&b'\\') && before[..quote].last() != Some(&b'\\')).then_some(key)
}

/// The end of the first [`TEXT_HEAD_CHARS`] + 1 characters (so a reader still sees that the text
/// goes on) of the string contents from `start` to `close`, whose escapes are already checked
/// (each is read as the text heads read it, so a surrogate pair escape is one character). Bytes are stepped over one at a
/// time outside escapes, so invalid UTF-8 never makes the walk land inside an escape; it counts a
/// character at each byte that does not continue one, which is never more characters than a lossy
/// decoding finds.
pub(super) fn keep_end(line: &[u8], start: usize, close: usize) -> usize {
    let head = &line[start..close.min(start + TEXT_HEAD_CHARS + 1)];
    // `fold` rather than `all`: no early exit, so the bytes are tested a vector at a time.
    let plain = head.iter().fold(true, |ok, &b| ok & b.is_ascii() & (b != b'\\'));
    let (mut end, mut chars) = if plain {
        // ASCII without escapes, as most texts start: a character a byte.
        (start + head.len(), head.len())
    } else {
        (start, 0)
    };
    while end < close {
        let b = line[end];
        if b & 0xC0 == 0x80 {
            end += 1;
            continue;
        }
        if chars > TEXT_HEAD_CHARS {
            break;
        }
        chars += 1;
        end += if b == b'\\' { unescape(&line[end..close]).1 } else { 1 };
    }
    end
}

/// Bit `i` set from each opening quote up to (not including) its closing quote: bit `i` is the
/// XOR of bits `0..=i`.
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Bit `i` of each mask is set when byte `i` of the block is that kind of byte.
pub(crate) struct Masks {
    quote: u64,
    backslash: u64,
    control: u64,
    /// The bytes that may follow a backslash: `"\\/bfnrtu`.
    escapable: u64,
    u: u64,
}

impl Masks {
    /// With SSE2, which every x86_64 CPU has.
    #[cfg(target_arch = "x86_64")]
    fn of(block: &[u8; 64]) -> Masks {
        use std::arch::x86_64::*;
        let mut masks = Masks { quote: 0, backslash: 0, control: 0, escapable: 0, u: 0 };
        for (n, chunk) in block.chunks_exact(16).enumerate() {
            // SAFETY: SSE2 is part of x86_64; `chunk` is 16 readable bytes and the load is unaligned.
            let [q, b, c, e, u] = unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr().cast());
                let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
                let below_space = _mm_set1_epi8(0x1F);
                let escapable =
                    b"\"\\/bfnrtu".iter().fold(_mm_setzero_si128(), |m, &c| _mm_or_si128(m, eq(c)));
                [
                    eq(b'"'),
                    eq(b'\\'),
                    _mm_cmpeq_epi8(_mm_max_epu8(v, below_space), below_space),
                    escapable,
                    eq(b'u'),
                ]
                .map(|m| u64::from(_mm_movemask_epi8(m) as u16) << (16 * n))
            };
            masks.quote |= q;
            masks.backslash |= b;
            masks.control |= c;
            masks.escapable |= e;
            masks.u |= u;
        }
        masks
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn of(block: &[u8; 64]) -> Masks {
        let bits = |f: fn(u8) -> bool| block.iter().rev().fold(0u64, |m, &b| m << 1 | u64::from(f(b)));
        Masks {
            quote: bits(|b| b == b'"'),
            backslash: bits(|b| b == b'\\'),
            control: bits(|b| b < 0x20),
            escapable: bits(|b| b"\"\\/bfnrtu".contains(&b)),
            u: bits(|b| b == b'u'),
        }
    }
}

/// The scan with AVX2 (32 bytes a compare) and a carry-less multiply for the prefix XOR.
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use std::arch::x86_64::*;
    use std::ops::Range;

    use super::{Cut, Masks, StringMasks};

    #[target_feature(enable = "avx2,pclmulqdq")]
    pub(super) fn cuts(line: &[u8], cut: Cut<'_>) -> Option<Vec<Range<usize>>> {
        super::scan_line(line, cut, |block| masks(block), |x| prefix_xor(x))
    }

    #[target_feature(enable = "avx2")]
    pub(crate) fn masks(block: &[u8; 64]) -> Masks {
        // The bytes that may follow a backslash, told apart by their two nibbles: the low
        // nibble's entry and the high nibble's share a bit exactly for `"\\/bfnrtu`.
        let by_low = _mm256_setr_epi8(
            0, 0, 13, 0, 8, 8, 4, 0, 0, 0, 0, 0, 2, 0, 4, 1, 0, 0, 13, 0, 8, 8, 4, 0, 0, 0, 0, 0, 2, 0, 4, 1,
        );
        let by_high = _mm256_setr_epi8(
            0, 0, 1, 0, 0, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0,
        );
        let half = |at: usize| {
            // SAFETY: `at` is 0 or 32, so 32 bytes of the block are read (unaligned).
            let v = unsafe { _mm256_loadu_si256(block.as_ptr().add(at).cast()) };
            let nibble = _mm256_set1_epi8(0x0F);
            let low = _mm256_shuffle_epi8(by_low, _mm256_and_si256(v, nibble));
            let high = _mm256_shuffle_epi8(by_high, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
            let not_escapable = _mm256_cmpeq_epi8(_mm256_and_si256(low, high), _mm256_setzero_si256());
            let below_space = _mm256_set1_epi8(0x1F);
            let eq = |c: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8));
            [
                eq(b'"'),
                eq(b'\\'),
                _mm256_cmpeq_epi8(_mm256_max_epu8(v, below_space), below_space),
                not_escapable,
                eq(b'u'),
            ]
            .map(|m| u64::from(_mm256_movemask_epi8(m) as u32) << at)
        };
        let (low, high) = (half(0), half(32));
        Masks {
            quote: low[0] | high[0],
            backslash: low[1] | high[1],
            control: low[2] | high[2],
            escapable: !(low[3] | high[3]),
            u: low[4] | high[4],
        }
    }

    /// [`super::string_end`] with the blocks classified by AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn string_end(bytes: &[u8]) -> Option<usize> {
        super::string_end_in_blocks(
            bytes,
            |block| string_masks(block),
            |block| {
                let m = masks(block);
                (m.escapable, m.u)
            },
        )
    }

    /// Quotes, backslashes and control characters of a block: the part of [`masks`] that a
    /// string's end is looked for with.
    #[target_feature(enable = "avx2")]
    fn string_masks(block: &[u8; 64]) -> StringMasks {
        let half = |at: usize| {
            // SAFETY: `at` is 0 or 32, so 32 bytes of the block are read (unaligned).
            let v = unsafe { _mm256_loadu_si256(block.as_ptr().add(at).cast()) };
            let below_space = _mm256_set1_epi8(0x1F);
            let eq = |c: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8));
            [eq(b'"'), eq(b'\\'), _mm256_cmpeq_epi8(_mm256_max_epu8(v, below_space), below_space)]
                .map(|m| u64::from(_mm256_movemask_epi8(m) as u32) << at)
        };
        let (low, high) = (half(0), half(32));
        StringMasks { quote: low[0] | high[0], backslash: low[1] | high[1], control: low[2] | high[2] }
    }

    /// Multiplying by all ones without carries XORs every bit into all the bits above it.
    #[target_feature(enable = "pclmulqdq")]
    pub(crate) fn prefix_xor(x: u64) -> u64 {
        let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0);
        _mm_cvtsi128_si64(product) as u64
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::*;

    const HEADS: [&str; 3] = ["text", "summary", "thinking"];

    fn shortened(line: &str) -> String {
        let mut out = Vec::new();
        String::from_utf8(shorten(line.as_bytes(), &mut out, Cut::Heads(&HEADS)).to_vec()).unwrap()
    }

    fn message_line(raw_text: &str) -> String {
        format!(
            r#"{{"type":"message","id":"a1","message":{{"role":"user","content":[{{"type":"text","text":"{raw_text}"}}]}}}}"#
        )
    }

    fn kept_text(line: &str) -> String {
        let v: Value = serde_json::from_str(line).expect("the shortened line is JSON");
        v["message"]["content"][0]["text"].as_str().unwrap().to_string()
    }

    #[test]
    fn a_long_text_keeps_one_character_more_than_a_head() {
        let line = message_line(&"é\\n\\\"x".repeat(2000));
        let short = shortened(&line);
        assert!(short.len() < 1200, "{} bytes left", short.len());
        let kept = kept_text(&short);
        assert_eq!(kept.chars().count(), TEXT_HEAD_CHARS + 1);
        assert!("é\n\"x".repeat(2000).starts_with(&kept));
    }

    #[test]
    fn surrogate_pairs_and_four_byte_characters_are_never_split() {
        for piece in ["\\ud83d\\ude00", "😀", "a\\ud83d\\ude00"] {
            let short = shortened(&message_line(&piece.repeat(3000)));
            let kept = kept_text(&short);
            assert_eq!(kept.chars().count(), TEXT_HEAD_CHARS + 1, "{piece}");
            assert!(kept.chars().all(|c| c == '😀' || c == 'a'), "{piece}");
        }
    }

    #[test]
    fn keys_read_whole_and_short_strings_stay_as_they_are() {
        let long = "n".repeat(5000);
        for line in [
            format!(r#"{{"type":"session_info","id":"a","name":"{long}"}}"#),
            format!(
                r#"{{"type":"message","id":"a","message":{{"role":"bashExecution","command":"{long}"}}}}"#
            ),
            format!(
                r#"{{"type":"message","id":"a","message":{{"errorMessage":"{long}","content":"short"}}}}"#
            ),
            format!(r#"{{"type":"custom","id":"a","data":["{long}"]}}"#),
            format!(r#"{{"type":"custom","id":"a","xtext":"{long}"}}"#),
            format!(r#"{{"type":"custom","id":"a","te\"xt":"{long}"}}"#),
            message_line(&"x".repeat(900)),
        ] {
            assert_eq!(shortened(&line), line);
        }
    }

    #[test]
    fn a_line_this_pass_does_not_vouch_for_goes_to_serde_whole() {
        let long = "x".repeat(5000);
        for line in [
            message_line(&format!("{long}\u{1}{long}")),
            message_line(&format!("{long}\\x{long}")),
            message_line(&format!("{long}\\u12g4{long}")),
            message_line(&format!("{long}\\")),
            format!(r#"{{"text":"{long}"}}\"#),
            format!(r#"{{"text":"{long}"#),
        ] {
            assert!(std::ptr::eq(
                shorten(line.as_bytes(), &mut Vec::new(), Cut::Heads(&HEADS)),
                line.as_bytes()
            ));
        }
    }

    #[test]
    fn every_head_only_key_is_cut_at_any_depth() {
        let long = "y".repeat(5000);
        for key in HEADS {
            let line = format!(r#"{{"a":[{{"b":{{"{key}" :  "{long}"}}}}],"c":1}}"#);
            let short = shortened(&line);
            let v: Value = serde_json::from_str(&short).unwrap();
            assert_eq!(v["a"][0]["b"][key].as_str().unwrap().len(), TEXT_HEAD_CHARS + 1, "{key}");
            assert_eq!(v["c"], 1);
        }
    }

    #[test]
    fn only_values_of_the_keys_named_are_cut() {
        let long = "z".repeat(3000);
        let line = format!(
            r#"{{"text":"{long}","other":["{long}"],"m\u0069ne":"{long}","{long}":1,"more":"{long}"}}"#
        );
        let mut out = Vec::new();
        let v: Value =
            serde_json::from_slice(shorten(line.as_bytes(), &mut out, Cut::Heads(&["text", "more", "mine"])))
                .unwrap();
        let m = v.as_object().unwrap();
        assert_eq!(m["text"].as_str().unwrap().len(), TEXT_HEAD_CHARS + 1);
        assert_eq!(m["more"].as_str().unwrap().len(), TEXT_HEAD_CHARS + 1);
        assert_eq!(m["other"][0].as_str().unwrap().len(), 3000);
        assert_eq!(m.keys().map(String::len).max(), Some(3000));
        assert_eq!(m["mine"].as_str().unwrap().len(), 3000, "a key written with escapes is not recognised");
    }

    #[test]
    fn the_other_cuts_leave_whole_strings_out() {
        let long = "w".repeat(3000);
        let line = format!(r#"{{"keep":"{long}","drop" : "{long}","list":["{long}"],"{long}":1}}"#);
        let cut = |cut| {
            let mut out = Vec::new();
            serde_json::from_slice::<Value>(shorten(line.as_bytes(), &mut out, cut)).unwrap()
        };
        let v = cut(Cut::ValuesExcept(&["keep"]));
        assert_eq!(v["keep"].as_str().unwrap().len(), 3000);
        assert_eq!(v["drop"], "");
        assert_eq!(v["list"][0].as_str().unwrap().len(), 3000, "array elements stay");
        assert_eq!(v[&long], 1, "keys stay");
        let v = cut(Cut::Everything);
        assert_eq!(
            (&v["keep"], &v["drop"], &v["list"][0], &v[""]),
            (&"".into(), &"".into(), &"".into(), &1.into())
        );
    }

    /// Pieces of JSON string contents: plain, escaped, multi-byte, surrogate pairs.
    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "a",
            "bcd ",
            "\\n",
            "\\\"",
            "\\\\",
            "\\/",
            "\\u00e9",
            "\\ud83d\\ude00",
            "é",
            "漢",
            "😀",
            "\\t",
            "{",
            "]",
            ":",
        ])
    }

    fn contents(max: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(piece(), 0..max).prop_map(|p| p.concat())
    }

    /// Whether `short` is `long` with some head-only strings cut to their first characters.
    fn same_but_cut(long: &Value, short: &Value, key: Option<&str>) -> bool {
        match (long, short) {
            (Value::String(l), Value::String(s)) if l != s => {
                key.is_some_and(|k| HEADS.contains(&k))
                    && l.starts_with(s.as_str())
                    && s.chars().count() == TEXT_HEAD_CHARS + 1
            }
            (Value::Object(l), Value::Object(s)) => {
                l.len() == s.len()
                    && l.iter().zip(s).all(|((lk, lv), (sk, sv))| lk == sk && same_but_cut(lv, sv, Some(lk)))
            }
            (Value::Array(l), Value::Array(s)) => {
                l.len() == s.len() && l.iter().zip(s).all(|(lv, sv)| same_but_cut(lv, sv, key))
            }
            (l, s) => l == s,
        }
    }

    proptest! {
        #[test]
        fn string_end_finds_the_closing_quote_as_a_byte_walk_does(
            bytes in prop::collection::vec(prop::sample::select(b"ab\"\\\\\\\x00\x1f u0F/n\x80\xff".to_vec()), 0..300),
            plain in 0usize..150,
        ) {
            let mut line = vec![b'x'; plain];
            line.extend_from_slice(&bytes);
            let expected = string_end_bytewise(&line);
            prop_assert_eq!(string_end(&line), expected);
            prop_assert_eq!(string_end_portable(&line), expected, "SSE2 masks");
        }

        #[test]
        fn a_shortened_line_holds_the_same_json_with_texts_cut(
            text in contents(1500),
            name in contents(400),
            thinking in contents(1500),
            pad in 0usize..70,
        ) {
            let line = format!(
                r#"{{"type":"message","pad":"{}","message":{{"name":"{name}","content":[{{"type":"thinking","thinking":"{thinking}"}},{{"type":"text","text":"{text}"}}]}},"summary":"{text}"}}"#,
                "p".repeat(pad)
            );
            let long: Value = serde_json::from_str(&line).unwrap();
            let short: Value = serde_json::from_str(&shortened(&line)).unwrap();
            prop_assert!(same_but_cut(&long, &short, None), "{line}");
            prop_assert_eq!(scan_line(line.as_bytes(), Cut::Heads(&HEADS), Masks::of, prefix_xor), cuts(line.as_bytes(), Cut::Heads(&HEADS)));
        }

        #[test]
        fn a_shortened_line_is_json_exactly_when_the_line_is(
            text in contents(1500),
            at in any::<prop::sample::Index>(),
            insert in prop::sample::select(vec!["\u{1}", "\"", "\\", "\\u", "\\x", "\u{1f}", "}", ",", "\n", ""]),
            cut_off in any::<bool>(),
        ) {
            let line = message_line(&text);
            let mut at = at.index(line.len() + 1);
            while !line.is_char_boundary(at) {
                at -= 1;
            }
            let damaged = if cut_off { line[..at].to_string() } else { format!("{}{insert}{}", &line[..at], &line[at..]) };
            let ok = |s: &[u8]| serde_json::from_slice::<serde::de::IgnoredAny>(s).is_ok();
            for cut in [Cut::Heads(&HEADS), Cut::ValuesExcept(&["type"]), Cut::Everything] {
                let mut out = Vec::new();
                let short = shorten(damaged.as_bytes(), &mut out, cut);
                prop_assert_eq!(ok(damaged.as_bytes()), ok(short), "{}", damaged);
            }
        }
    }
}
