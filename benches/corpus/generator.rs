//! The session generator: appends pi lines to a buffer, flushed to the file as it grows. This
//! module holds its state and the primitives every line is made of (raw bytes, numbers, ids,
//! escaped and random text, slices of the pools, an entry's head and end); what it writes is in
//! [`session`] (the header and the turn loop), [`message`] (messages and tool calls) and
//! [`entries`] (the other entry types).

mod entries;
mod message;
mod session;

use super::*;

pub(crate) struct Generator<'p> {
    pub(crate) pools: &'p Pools,
    pub(crate) rng: Rng,
    pub(crate) out: Vec<u8>,
    pub(crate) flushed: u64,
    pub(crate) line_start: usize,
    pub(crate) format: Format,
    pub(crate) ids: Ids,
    pub(crate) now: i64,
    pub(crate) leaf: Option<u32>,
    pub(crate) turn_ends: Vec<u32>,
    pub(crate) user_ids: Vec<u32>,
    pub(crate) model: &'static Model,
    pub(crate) thinking: bool,
    pub(crate) budget: Budget,
    pub(crate) damage: Damage,
    pub(crate) malformed_done: bool,
    pub(crate) named: bool,
    pub(crate) context_bytes: u64,
    pub(crate) image_bytes_in_line: u64,
    pub(crate) turns_since_compaction: u32,
    pub(crate) counts: Counts,
}

pub(crate) struct Call {
    pub(crate) id: String,
    pub(crate) tool: Tool,
    pub(crate) path: &'static str,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tool {
    Read,
    Bash,
    Edit,
    Write,
}

impl Tool {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Tool::Read => "read",
            Tool::Bash => "bash",
            Tool::Edit => "edit",
            Tool::Write => "write",
        }
    }
}

impl<'p> Generator<'p> {
    pub(crate) fn new(
        pools: &'p Pools,
        seed: u64,
        format: Format,
        now: i64,
        budget: Budget,
        mut out: Vec<u8>,
    ) -> Self {
        out.clear();
        let mut rng = Rng::stream(seed);
        let ids = Ids { salt: rng.next() as u32, next: 0, taken: HashSet::new() };
        let model = rng.pick(MODELS);
        let thinking = rng.chance(0.75);
        Self {
            pools,
            rng,
            out,
            flushed: 0,
            line_start: 0,
            format,
            ids,
            now,
            leaf: None,
            turn_ends: Vec::new(),
            user_ids: Vec::new(),
            model,
            thinking,
            budget,
            damage: Damage::default(),
            malformed_done: false,
            named: false,
            context_bytes: 0,
            image_bytes_in_line: 0,
            turns_since_compaction: 0,
            counts: Counts::default(),
        }
    }

    pub(crate) fn for_plan(plan: &Plan, pools: &'p Pools, out: Vec<u8>) -> Self {
        let mut generator = Self::new(pools, plan.seed, plan.format, plan.created, plan.budget, out);
        generator.damage = plan.damage;
        generator.named = plan.named;
        generator
    }

    pub(crate) fn total(&self) -> u64 {
        self.flushed + self.out.len() as u64
    }

    pub(crate) fn flush(&mut self, w: &mut dyn Write) -> Result<()> {
        w.write_all(&self.out).wrap_err("writing session lines")?;
        self.flushed += self.out.len() as u64;
        self.out.clear();
        Ok(())
    }

    /// Whether `extra` more bytes stay within the budget (and, with an entry target, its pace).
    pub(crate) fn fits(&self, extra: u64) -> bool {
        let after = self.total() + extra;
        let pace = match self.budget.entries {
            Some(entries) => {
                self.budget.bytes as f64 * (self.counts.entries + 1) as f64 / entries as f64 + PACE_SLACK
            }
            None => f64::INFINITY,
        };
        after <= self.budget.bytes && after as f64 <= pace
    }

    pub(crate) fn done(&self) -> bool {
        match self.budget.entries {
            Some(entries) => self.counts.entries >= entries,
            None => self.total() >= self.budget.bytes,
        }
    }

    pub(crate) fn tick(&mut self, lo_ms: u64, hi_ms: u64) {
        self.now += self.rng.range(lo_ms, hi_ms) as i64;
    }

    // -- low-level writing ------------------------------------------------------------------

    pub(crate) fn raw(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
    }

    pub(crate) fn num(&mut self, n: u64) {
        push_num(&mut self.out, n);
    }

    pub(crate) fn hex8(&mut self, id: u32) {
        self.out.extend_from_slice(format!("{id:08x}").as_bytes());
    }

    pub(crate) fn quoted_id(&mut self, id: Option<u32>) {
        match id {
            Some(id) => {
                self.raw("\"");
                self.hex8(id);
                self.raw("\"");
            }
            None => self.raw("null"),
        }
    }

    pub(crate) fn escaped(&mut self, s: &str) {
        for c in s.chars() {
            match c {
                '"' => self.raw("\\\""),
                '\\' => self.raw("\\\\"),
                c if (c as u32) < 0x20 => self.raw(&format!("\\u{:04x}", c as u32)),
                c => self.raw(c.encode_utf8(&mut [0; 4])),
            }
        }
    }

    pub(crate) fn random_text(&mut self, alphabet: &[u8], n: usize) -> String {
        (0..n).map(|_| alphabet[self.rng.below(alphabet.len() as u64) as usize] as char).collect()
    }

    pub(crate) fn hex(&mut self, n: usize) -> String {
        self.random_text(b"0123456789abcdef", n)
    }

    pub(crate) fn alnum(&mut self, n: usize) -> String {
        self.random_text(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", n)
    }

    pub(crate) fn base64(&mut self, n: u64) {
        let pools = self.pools;
        let n = (n as usize / 4 * 4).min(pools.base64.len() / 2);
        let start = self.rng.below(((pools.base64.len() - n) / 4) as u64) as usize * 4;
        self.out.extend_from_slice(&pools.base64[start..start + n]);
    }

    pub(crate) fn code(&mut self, lo: u64, hi: u64) {
        let pools = self.pools;
        let n = self.rng.range(lo, hi) as usize;
        self.out.extend_from_slice(pools.code.slice(&mut self.rng, n));
    }

    pub(crate) fn log(&mut self, lo: u64, hi: u64) {
        let pools = self.pools;
        let n = self.rng.range(lo, hi) as usize;
        self.out.extend_from_slice(pools.log.slice(&mut self.rng, n));
    }

    /// `words` words of chat prose in sentences, with the odd `code span` and paragraph break.
    pub(crate) fn prose(&mut self, words: u64) {
        let mut sentence_start = true;
        for i in 0..words {
            let word = *self.rng.pick(WORDS);
            if self.rng.chance(0.05) {
                self.raw("`");
                let ident = *self.rng.pick(IDENTS);
                self.raw(ident);
                self.raw("`");
            } else if sentence_start {
                let mut chars = word.chars();
                let first = chars.next().map(|c| c.to_ascii_uppercase()).unwrap_or(' ');
                self.raw(first.encode_utf8(&mut [0; 4]));
                self.raw(chars.as_str());
            } else {
                self.raw(word);
            }
            sentence_start = i + 1 == words || self.rng.chance(0.09);
            if sentence_start {
                self.raw(".");
            }
            if i + 1 < words {
                let paragraph = sentence_start && self.rng.chance(0.08);
                self.raw(if paragraph { "\\n\\n" } else { " " });
            }
        }
    }

    pub(crate) fn words(&mut self, lo: u64, hi: u64) {
        let n = self.rng.range(lo, hi);
        self.prose(n);
    }

    pub(crate) fn block_separator(&mut self) {
        if self.out.last() != Some(&b'[') {
            self.raw(",");
        }
    }

    pub(crate) fn path_list(&mut self, max: u64) {
        for i in 0..self.rng.range(0, max) {
            if i > 0 {
                self.raw(",");
            }
            self.raw("\"");
            let path = *self.rng.pick(PATHS);
            self.raw(path);
            self.raw("\"");
        }
    }

    // -- entries ----------------------------------------------------------------------------

    /// Starts an entry: `{"type":…,"id":…,"parentId":…,"timestamp":…` (v1: no ids).
    pub(crate) fn head(&mut self, ty: &str) -> u32 {
        self.line_start = self.out.len();
        self.raw("{\"type\":\"");
        self.raw(ty);
        self.raw("\"");
        let id = self.ids.next();
        if self.format != Format::V1 {
            self.raw(",\"id\":\"");
            self.hex8(id);
            self.raw("\",\"parentId\":");
            self.quoted_id(self.leaf);
        }
        self.raw(",\"timestamp\":\"");
        let ts = iso(self.now);
        self.out.extend_from_slice(&ts);
        self.raw("\"");
        id
    }

    /// Ends an entry: it becomes the leaf, as every pi append does. Cuts it in half if it is the
    /// damaged session's malformed middle line.
    pub(crate) fn finish(&mut self, id: u32) {
        self.raw("}\n");
        self.leaf = Some(id);
        self.counts.entries += 1;
        let len = (self.out.len() - self.line_start) as u64;
        self.context_bytes += len.saturating_sub(self.image_bytes_in_line);
        self.image_bytes_in_line = 0;
        if self.damage.malformed_middle
            && !self.malformed_done
            && self.counts.entries >= 4
            && self.total() * 2 >= self.budget.bytes
        {
            self.out.truncate(self.line_start + (len as usize) * 3 / 5);
            self.raw("\n");
            self.malformed_done = true;
        }
    }
}
