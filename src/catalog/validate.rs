//! Whether a line is one JSON value, in one vector pass, in the style of simdjson's two stages.
//!
//! - **Stage 1** classifies the line 64 bytes at a time with AVX2: the string masks of the session
//!   skim (`session::skim`: quotes, backslashes, control characters, what may follow a backslash,
//!   with the escaped positions and the inside of strings found by carry-less arithmetic; a raw
//!   control character in a string, an escape JSON does not have or a backslash outside strings
//!   ends the check there), and two table lookups for JSON's white space and its structural
//!   characters `{}[]:,`. What lies outside strings and is neither is a scalar (a number or
//!   `true`/`false`/`null`). The block's tokens are its structurals outside strings, its opening
//!   quotes and the first byte of each scalar.
//! - **Stage 2** walks the tokens as they come with a small state machine (a bit stack of open
//!   objects and arrays; what comes next: a value, a key, a colon, a comma or a close) and reads
//!   each scalar byte by byte with JSON's grammar, which must end where the scalar does.
//!
//! The result is the floor check's ([`super::lines::is_json`] through serde's `IgnoredAny`):
//! UTF-8 is not checked, as serde does not check the strings it ignores (a line is decoded lossily,
//! as pi does), and a number too large for a double is JSON (as `JSON.parse` reads it). Nesting
//! deeper than 64 and CPUs without AVX2 are left to the serde check (`None`).
//!
//! The same walk also checks a line the listing sniffed ([`is_sniffed_json`]): it counts the
//! sniffed keys as serde's check of such a line does, and leaves to it what it reads differently
//! (keys written with escapes or in other than ASCII, a `message` that is a string or a number).
//! For a sniffed user or assistant line it can also note where the values the listing reads are
//! ([`harvest`]), so that the listing takes them from the line without reading it again.
//!
//! Property tests hold both to the serde checks (mutated fixture lines, JSON-ish bytes, mutated
//! generated JSON), as does the `json_check` fuzz target. One core over the benchmark corpus
//! (1.06 GB, lines split beforehand, in memory) checked ~4.8–7.2 GB/s against ~3.3–5.0 GB/s for
//! the skim + serde check, 1.45× (1.3–1.7× as the shared machine's load varied).

use std::ops::Range;

/// Whether `text` (a line without the white space around it) is one JSON value; `None` when this
/// check cannot say and the serde check decides.
pub fn is_json(text: &[u8]) -> Option<bool> {
    check::<false, false>(text).0
}

/// The check of a line the listing sniffed (`lines::with_line`): one JSON object in which the
/// sniffed keys (`type`, `id`, `parentId`, `message` and `role` in the `message` object) occur
/// once each. `None` when this check cannot say (one of those keys or a key beside them written
/// with escapes or other than in ASCII, a `message` that is not an object or an array) and
/// serde decides.
pub fn is_sniffed_json(text: &[u8]) -> Option<bool> {
    check::<true, false>(text).0
}

/// The check of a sniffed user or assistant message line, with where the values the listing
/// reads from it are: `Some` when the line is one JSON object with its sniffed keys once each and
/// none of the keys [`Harvest`] finds written twice, else `None` (the listing's typed parse
/// decides, malformed lines included).
pub fn harvest(text: &[u8]) -> Option<Harvest> {
    let (json, walk) = check::<true, true>(text);
    (json == Some(true) && !walk.harvest.repeated).then_some(walk.harvest)
}

fn check<const SNIFF: bool, const HARVEST: bool>(text: &[u8]) -> (Option<bool>, Walk<SNIFF, HARVEST>) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("pclmulqdq") {
        // SAFETY: the CPU has both features.
        return unsafe { x86::check::<SNIFF, HARVEST>(text) };
    }
    let _ = text;
    (None, Walk::new())
}

/// Where the values the listing reads from a user or assistant line pi wrote are, as ranges of
/// the line (each value as written, white space left out).
#[derive(Default)]
pub struct Harvest {
    /// `message.content`, `message.timestamp` and `message.usage`.
    pub content: Option<Range<usize>>,
    pub timestamp: Option<Range<usize>>,
    pub usage: Option<Range<usize>>,
    /// The usage's `input`, `output`, `cacheRead`, `cacheWrite` and `cost.total`.
    pub numbers: [Option<Range<usize>>; 5],
    /// The `type` and `text` of each object in a `content` array.
    pub blocks: Vec<BlockSpans>,
    /// The key whose value comes next.
    next: Option<Slot>,
    /// Where the value being read at depth 2, 3 and 4 started, and whose it is.
    open: [Option<(Slot, usize)>; 3],
    /// The keys met (one bit a slot, and [`LINE_TIME`]) other than a block's.
    seen: u16,
    /// The array at depth 3 is `message.content`, the object at depth 3 `message.usage`, the
    /// object at depth 4 one of the content's blocks, or the usage's `cost`.
    in_content: bool,
    in_usage: bool,
    in_block: bool,
    in_cost: bool,
    /// A key read here was written twice (`JSON.parse` keeps the last one).
    repeated: bool,
}

/// The `type` and `text` of a content block.
#[derive(Default)]
pub struct BlockSpans {
    pub ty: Option<Range<usize>>,
    pub text: Option<Range<usize>>,
}

/// The bit of [`Harvest::seen`] for the line's own `timestamp`, which is only checked to be
/// written once (the listing sniffed it).
const LINE_TIME: u16 = 1 << 15;

/// Whose value a range is: the usage's numbers first, in [`Harvest::numbers`]'s order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Input,
    Output,
    CacheRead,
    CacheWrite,
    Total,
    Content,
    Timestamp,
    Usage,
    Cost,
    Type,
    Text,
}

impl Slot {
    /// The depth of the object the key is in.
    fn depth(self) -> u32 {
        match self {
            Slot::Content | Slot::Timestamp | Slot::Usage => 2,
            Slot::Input | Slot::Output | Slot::CacheRead | Slot::CacheWrite | Slot::Cost => 3,
            Slot::Total | Slot::Type | Slot::Text => 4,
        }
    }
}

impl Harvest {
    /// Whether a key at `depth` may be one this harvest reads.
    fn reads_keys_at(&self, depth: u32, in_message: bool) -> bool {
        match depth {
            1 => true,
            2 => in_message,
            3 => self.in_usage,
            4 => self.in_block || self.in_cost,
            _ => false,
        }
    }

    /// The key `key` at `depth` (in the line's `message` object when `in_message`).
    fn key(&mut self, depth: u32, in_message: bool, key: &[u8]) {
        let slot = match (depth, key) {
            (1, b"timestamp") => {
                self.repeated |= self.seen & LINE_TIME != 0;
                self.seen |= LINE_TIME;
                return;
            }
            (2, b"content") if in_message => Slot::Content,
            (2, b"timestamp") if in_message => Slot::Timestamp,
            (2, b"usage") if in_message => Slot::Usage,
            (3, b"input") if self.in_usage => Slot::Input,
            (3, b"output") if self.in_usage => Slot::Output,
            (3, b"cacheRead") if self.in_usage => Slot::CacheRead,
            (3, b"cacheWrite") if self.in_usage => Slot::CacheWrite,
            (3, b"cost") if self.in_usage => Slot::Cost,
            (4, b"total") if self.in_cost => Slot::Total,
            (4, b"type") if self.in_block => Slot::Type,
            (4, b"text") if self.in_block => Slot::Text,
            _ => return,
        };
        let block = self.blocks.last();
        let bit = 1 << slot as u16;
        self.repeated |= match slot {
            Slot::Type => block.is_some_and(|b| b.ty.is_some()),
            Slot::Text => block.is_some_and(|b| b.text.is_some()),
            _ => self.seen & bit != 0,
        };
        self.seen |= bit;
        self.next = Some(slot);
    }

    /// A value starts at `at` with `byte`, in a container at `depth`.
    fn value(&mut self, at: usize, byte: u8, depth: u32) {
        if let Some(slot) = self.next.take() {
            self.open[(slot.depth() - 2) as usize] = Some((slot, at));
            let object = byte == b'{';
            self.in_content |= slot == Slot::Content && byte == b'[';
            self.in_usage |= slot == Slot::Usage && object;
            self.in_cost |= slot == Slot::Cost && object;
        } else if byte == b'{' && depth == 3 && self.in_content {
            self.in_block = true;
            self.blocks.push(BlockSpans::default());
        }
    }

    /// A `,` or a close at `at` in a container at `depth`: the value open there ends before it.
    fn end(&mut self, line: &[u8], at: usize, depth: u32, close: bool) {
        let open = depth.checked_sub(2).and_then(|level| self.open.get_mut(level as usize));
        if let Some((slot, from)) = open.and_then(Option::take) {
            let mut to = at;
            while matches!(line[to - 1], b' ' | b'\t' | b'\n' | b'\r') {
                to -= 1;
            }
            let span = Some(from..to);
            match (slot, self.blocks.last_mut()) {
                (Slot::Content, _) => self.content = span,
                (Slot::Timestamp, _) => self.timestamp = span,
                (Slot::Usage, _) => self.usage = span,
                (Slot::Cost, _) => {}
                (Slot::Type, Some(block)) => block.ty = span,
                (Slot::Text, Some(block)) => block.text = span,
                (Slot::Type | Slot::Text, None) => {}
                (number, _) => self.numbers[number as usize] = span,
            }
        }
        match (close, depth) {
            (true, 3) => (self.in_content, self.in_usage) = (false, false),
            (true, 4) => (self.in_block, self.in_cost) = (false, false),
            _ => {}
        }
    }
}

/// What the next token may be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    /// A value: at the start, after `:` and after `,` in an array.
    Value,
    /// A value or `]`, after `[`.
    ValueOrClose,
    /// A key or `}`, after `{`.
    KeyOrClose,
    /// A key, after `,` in an object.
    Key,
    Colon,
    /// `,` or the close of the innermost container, after a value (nothing, at depth 0).
    CommaOrClose,
}

/// Stage 2: the state between tokens. Open containers are a bit stack, 1 for an object. With
/// `SNIFF`, the sniffed keys are counted as [`super::lines`] counts them; with `HARVEST` (and
/// `SNIFF`), the values a message line gives the listing are found too.
struct Walk<const SNIFF: bool, const HARVEST: bool> {
    want: Want,
    depth: u32,
    objects: u64,
    /// How often each sniffed key occurred, by `lines::sniffed_key`'s index.
    counts: [u8; 5],
    /// The next value is the line's `message`.
    message_next: bool,
    /// The object at depth 2 is the line's `message`.
    in_message: bool,
    harvest: Harvest,
}

/// `message`'s index in the counts of the sniffed keys.
const MESSAGE: usize = 3;

/// The maximal nesting this check follows; deeper lines go to serde.
const MAX_DEPTH: u32 = 64;

/// Why a walk stopped: the line is not JSON, or this check cannot say.
enum Stop {
    NotJson,
    Unsure,
}

impl<const SNIFF: bool, const HARVEST: bool> Walk<SNIFF, HARVEST> {
    fn new() -> Self {
        Walk {
            want: Want::Value,
            depth: 0,
            objects: 0,
            counts: [0; 5],
            message_next: false,
            in_message: false,
            harvest: Harvest::default(),
        }
    }

    /// Takes the token at `at` of `line`.
    #[inline(always)]
    fn token(&mut self, line: &[u8], at: usize) -> Result<(), Stop> {
        let byte = line[at];
        // A token where a value may start is one, or the walk stops at it.
        if HARVEST && matches!(self.want, Want::Value | Want::ValueOrClose) && byte != b']' {
            self.harvest.value(at, byte, self.depth);
        }
        self.want = match (self.want, byte) {
            (Want::CommaOrClose, b'}' | b']') | (Want::KeyOrClose, b'}') | (Want::ValueOrClose, b']')
                if self.depth > 0 && (self.objects & 1 == 1) == (byte == b'}') =>
            {
                if HARVEST {
                    self.harvest.end(line, at, self.depth, true);
                }
                self.objects >>= 1;
                self.depth -= 1;
                if SNIFF && self.depth == 1 {
                    self.in_message = false;
                }
                Want::CommaOrClose
            }
            (Want::Value | Want::ValueOrClose, b'{' | b'[') => {
                if self.depth == MAX_DEPTH || SNIFF && self.depth == 0 && byte == b'[' {
                    return Err(Stop::Unsure);
                }
                let object = byte == b'{';
                if SNIFF && self.message_next {
                    self.message_next = false;
                    self.in_message = object;
                }
                self.objects = self.objects << 1 | u64::from(object);
                self.depth += 1;
                if object { Want::KeyOrClose } else { Want::ValueOrClose }
            }
            (Want::Value | Want::ValueOrClose, b'}' | b']' | b':' | b',') => return Err(Stop::NotJson),
            // A top-level value or a `message` other than an object or an array.
            (Want::Value, _) if SNIFF && (self.depth == 0 || self.message_next) => return Err(Stop::Unsure),
            (Want::Value | Want::ValueOrClose, b'"') => Want::CommaOrClose,
            (Want::Value | Want::ValueOrClose, _) => {
                let end = scalar_end(line, at).ok_or(Stop::NotJson)?;
                if !line.get(end).is_none_or(|b| {
                    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' | b'[' | b']' | b'{' | b'}' | b'"')
                }) {
                    return Err(Stop::NotJson);
                }
                Want::CommaOrClose
            }
            (Want::Key | Want::KeyOrClose, b'"') => {
                if SNIFF && (self.depth == 1 || self.depth == 2 && self.in_message)
                    || HARVEST && self.harvest.reads_keys_at(self.depth, self.in_message)
                {
                    self.key(line, at)?;
                }
                Want::Colon
            }
            (Want::Colon, b':') => Want::Value,
            (Want::CommaOrClose, b',') if self.depth > 0 => {
                if HARVEST {
                    self.harvest.end(line, at, self.depth, false);
                }
                if self.objects & 1 == 1 { Want::Key } else { Want::Value }
            }
            _ => return Err(Stop::NotJson),
        };
        Ok(())
    }

    /// Counts the key whose opening quote is at `at`, an object's at depth 1 or the `message`'s.
    fn key(&mut self, line: &[u8], at: usize) -> Result<(), Stop> {
        // Keys are short: a byte loop finds the end sooner than a vector search starts.
        let rest = &line[at + 1..];
        let end = rest.iter().position(|&b| b == b'"' || b == b'\\' || !b.is_ascii()).ok_or(Stop::NotJson)?;
        let key = &rest[..end];
        if rest[end] != b'"' {
            return Err(Stop::Unsure);
        }
        if let Some(slot) = sniffed_key(self.depth as usize, key) {
            self.counts[slot] = self.counts[slot].saturating_add(1);
            self.message_next = slot == MESSAGE;
        }
        if HARVEST {
            self.harvest.key(self.depth, self.in_message, key);
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.want == Want::CommaOrClose && self.depth == 0 && (!SNIFF || self.counts.iter().all(|&n| n <= 1))
    }
}

/// The end of the number or literal that starts at `at`, as JSON's grammar reads it (no more than
/// it allows: `-01` ends after `-0`); `None` when no number or literal starts there.
#[inline(always)]
fn scalar_end(line: &[u8], at: usize) -> Option<usize> {
    let rest = &line[at..];
    for literal in [&b"true"[..], b"false", b"null"] {
        if rest.starts_with(literal) {
            return Some(at + literal.len());
        }
    }
    let digit = |i: usize| rest.get(i).is_some_and(u8::is_ascii_digit);
    let digits = |mut i: usize| {
        while digit(i) {
            i += 1;
        }
        i
    };
    let mut i = usize::from(rest[0] == b'-');
    match rest.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(i + 1),
        _ => return None,
    }
    if rest.get(i) == Some(&b'.') {
        if !digit(i + 1) {
            return None;
        }
        i = digits(i + 1);
    }
    if matches!(rest.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(rest.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digit(i) {
            return None;
        }
        i = digits(i);
    }
    Some(at + i)
}

/// Stage 1 with AVX2 and the carry-less multiply, stage 2 as each block's tokens come.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;
    use std::ops::ControlFlow;

    use super::{Stop, Walk};
    use crate::session::skim::{Scan, each_block, x86 as skim};

    #[target_feature(enable = "avx2,pclmulqdq")]
    pub(super) fn check<const SNIFF: bool, const HARVEST: bool>(
        line: &[u8],
    ) -> (Option<bool>, Walk<SNIFF, HARVEST>) {
        let mut scan = Scan::default();
        let mut walk = Walk::<SNIFF, HARVEST>::new();
        // The last byte of the block before is part of a scalar.
        let mut in_scalar = 0;
        let walked = each_block(line, |base, block| {
            let Some((quotes, inside)) =
                scan.strings(line, base, &skim::masks(block), |x| skim::prefix_xor(x))
            else {
                return ControlFlow::Break(Stop::NotJson);
            };
            let (space, structural) = classify(block);
            let strings = inside | quotes;
            let structural = structural & !strings;
            let scalar = !(strings | space | structural);
            let mut tokens = structural | (quotes & inside) | (scalar & !(scalar << 1 | in_scalar));
            in_scalar = scalar >> 63;
            while tokens != 0 {
                if let Err(stop) = walk.token(line, base + tokens.trailing_zeros() as usize) {
                    return ControlFlow::Break(stop);
                }
                tokens &= tokens - 1;
            }
            ControlFlow::Continue(())
        });
        let json = match walked {
            ControlFlow::Break(Stop::NotJson) => Some(false),
            ControlFlow::Break(Stop::Unsure) => None,
            ControlFlow::Continue(()) => Some(!scan.in_string() && walk.is_done()),
        };
        (json, walk)
    }

    /// JSON's white space and its structural characters in `block`, as simdjson finds them: a
    /// byte is looked up in a table by its low nibble, and is of that kind when it is the entry.
    /// (`[` and `]` are `{` and `}` with bit 5 clear, so bit 5 is set before comparing.)
    #[target_feature(enable = "avx2")]
    fn classify(block: &[u8; 64]) -> (u64, u64) {
        let space_table = _mm256_setr_epi8(
            32, 100, 100, 100, 17, 100, 113, 2, 100, 9, 10, 112, 100, 13, 100, 100, 32, 100, 100, 100, 17,
            100, 113, 2, 100, 9, 10, 112, 100, 13, 100, 100,
        );
        let structural_table = _mm256_setr_epi8(
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 58, 123, 44, 125, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 58, 123, 44,
            125, 0, 0,
        );
        let half = |at: usize| {
            // SAFETY: `at` is 0 or 32, so 32 bytes of the block are read (unaligned).
            let v = unsafe { _mm256_loadu_si256(block.as_ptr().add(at).cast()) };
            let space = _mm256_cmpeq_epi8(v, _mm256_shuffle_epi8(space_table, v));
            let structural = _mm256_cmpeq_epi8(
                _mm256_or_si256(v, _mm256_set1_epi8(0x20)),
                _mm256_shuffle_epi8(structural_table, v),
            );
            [space, structural].map(|m| u64::from(_mm256_movemask_epi8(m) as u32) << at)
        };
        let (low, high) = (half(0), half(32));
        (low[0] | high[0], low[1] | high[1])
    }
}

/// The sniffed keys, by their index in the counts of the sniffed-line checks (this one's and
/// `lines`' serde check).
pub(super) fn sniffed_key(depth: usize, key: &[u8]) -> Option<usize> {
    match (depth, key) {
        (1, b"type") => Some(0),
        (1, b"id") => Some(1),
        (1, b"parentId") => Some(2),
        (1, b"message") => Some(3),
        (2, b"role") => Some(4),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
