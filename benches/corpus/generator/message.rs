//! Messages: user turns (text, images, bash executions, v2 hook messages), the assistant's steps
//! (thinking, text, tool calls) with their tool results and outputs, and usage with cost.

use super::*;

impl Generator<'_> {
    pub(crate) fn message_open(&mut self, role: &str) -> u32 {
        let id = self.head("message");
        self.raw(",\"message\":{\"role\":\"");
        self.raw(role);
        self.raw("\"");
        id
    }

    pub(crate) fn message_close(&mut self, id: u32, message_ms: i64) {
        self.raw(",\"timestamp\":");
        self.num(message_ms as u64);
        self.raw("}");
        self.finish(id);
        self.counts.messages += 1;
    }

    pub(crate) fn user_turn(&mut self) {
        self.tick(10_000, 900_000);
        let id = self.message_open("user");
        self.raw(",\"content\":");
        if self.rng.chance(0.2) {
            self.raw("\"");
            self.user_text();
            self.raw("\"");
        } else {
            self.raw("[{\"type\":\"text\",\"text\":\"");
            self.user_text();
            self.raw("\"}");
            if self.rng.chance(0.04) {
                self.image();
            }
            self.raw("]");
        }
        self.message_close(id, self.now);
        self.user_ids.push(id);
        self.counts.user_turns += 1;
    }

    pub(crate) fn user_text(&mut self) {
        if self.rng.chance(0.06) {
            self.words(8, 20);
            self.raw("\\n\\n```\\n");
            self.log(300, 6_000);
            self.raw("```");
        } else {
            self.words(6, 70);
        }
    }

    /// In 4% of user turns, a 0.1–1.5 MB base64 PNG (log-uniform), when the budget has room for it.
    pub(crate) fn image(&mut self) {
        let size = self.rng.log_range(100_000, 1_500_000);
        if !self.fits(size) {
            return;
        }
        self.raw(",{\"type\":\"image\",\"data\":\"");
        self.raw(PNG_PREFIX);
        self.base64(size);
        self.raw("\",\"mimeType\":\"image/png\"}");
        self.image_bytes_in_line += size;
        self.counts.images += 1;
    }

    pub(crate) fn bash_execution(&mut self) {
        self.tick(5_000, 120_000);
        let id = self.message_open("bashExecution");
        self.raw(",\"command\":\"");
        let command = *self.rng.pick(COMMANDS);
        self.raw(command);
        self.raw("\",\"output\":\"");
        self.log(20, 2_000);
        self.raw("\",\"exitCode\":0,\"cancelled\":false,\"truncated\":false");
        self.message_close(id, self.now);
    }

    pub(crate) fn hook_message(&mut self) {
        self.tick(100, 2_000);
        let id = self.message_open("hookMessage");
        self.raw(",\"customType\":\"issue-tracker\",\"content\":\"");
        self.words(5, 30);
        self.raw("\",\"display\":true,\"details\":{\"source\":\"github\"}");
        self.message_close(id, self.now);
    }

    pub(crate) fn new_call(&mut self) -> Call {
        let id = if self.model.openai {
            format!("call_{}|fc_{}", self.alnum(24), self.hex(40))
        } else {
            format!("toolu_01{}", self.alnum(22))
        };
        let tool = match self.rng.below(100) {
            0..40 => Tool::Read,
            40..75 => Tool::Bash,
            75..93 => Tool::Edit,
            _ => Tool::Write,
        };
        let path = *self.rng.pick(PATHS);
        Call { id, tool, path }
    }

    pub(crate) fn tool_step(&mut self) {
        self.tick(1_500, 45_000);
        let started = self.now - self.rng.range(300, 20_000) as i64;
        let calls: Vec<Call> =
            (0..if self.rng.chance(0.15) { 2 } else { 1 }).map(|_| self.new_call()).collect();
        let id = self.message_open("assistant");
        self.raw(",\"content\":[");
        if self.thinking && self.rng.chance(0.7) {
            self.thinking_block();
        }
        if self.rng.chance(0.35) {
            self.text_block(4, 30);
        }
        for call in &calls {
            self.tool_call_block(call);
        }
        self.raw("]");
        self.assistant_tail("toolUse");
        self.message_close(id, started);
        for call in &calls {
            self.tick(100, 20_000);
            self.tool_result(call);
        }
    }

    pub(crate) fn final_answer(&mut self) {
        self.tick(1_000, 60_000);
        let started = self.now - self.rng.range(300, 20_000) as i64;
        let stop = match self.rng.below(1000) {
            0..10 => "aborted",
            10..15 => "error",
            _ => "stop",
        };
        let id = self.message_open("assistant");
        self.raw(",\"content\":[");
        if stop != "error" {
            if self.thinking && self.rng.chance(0.5) {
                self.thinking_block();
            }
            self.text_block(10, 120);
        }
        self.raw("]");
        self.assistant_tail(stop);
        self.message_close(id, started);
    }

    pub(crate) fn thinking_block(&mut self) {
        self.block_separator();
        self.raw("{\"type\":\"thinking\",\"thinking\":\"");
        self.words(10, 90);
        self.raw("\",\"thinkingSignature\":\"");
        if self.model.openai {
            let id = self.hex(48);
            self.raw(&format!(r#"{{\"type\":\"reasoning\",\"id\":\"rs_{id}\",\"summary\":[]}}"#));
        } else {
            let n = self.rng.range(300, 800);
            self.base64(n);
        }
        self.raw("\"}");
    }

    pub(crate) fn text_block(&mut self, lo: u64, hi: u64) {
        self.block_separator();
        self.raw("{\"type\":\"text\",\"text\":\"");
        self.words(lo, hi);
        self.raw("\"");
        if self.model.openai {
            let signature = self.hex(48);
            self.raw(&format!(",\"textSignature\":\"msg_{signature}\""));
        }
        self.raw("}");
    }

    pub(crate) fn tool_call_block(&mut self, call: &Call) {
        self.block_separator();
        self.raw("{\"type\":\"toolCall\",\"id\":\"");
        self.raw(&call.id);
        self.raw("\",\"name\":\"");
        self.raw(call.tool.name());
        self.raw("\",\"arguments\":{");
        match call.tool {
            Tool::Read => {
                self.raw("\"path\":\"");
                self.raw(call.path);
                self.raw("\"");
                if self.rng.chance(0.2) {
                    self.raw(",\"offset\":");
                    let offset = self.rng.range(1, 800);
                    self.num(offset);
                    self.raw(",\"limit\":200");
                }
            }
            Tool::Bash => {
                self.raw("\"command\":\"");
                let command = *self.rng.pick(COMMANDS);
                self.raw(command);
                self.raw("\"");
                if self.rng.chance(0.3) {
                    self.raw(",\"timeout\":300");
                }
            }
            Tool::Edit => {
                self.raw("\"path\":\"");
                self.raw(call.path);
                self.raw("\",\"edits\":[{\"oldText\":\"");
                self.code(40, 600);
                self.raw("\",\"newText\":\"");
                self.code(40, 800);
                self.raw("\"}]");
            }
            Tool::Write => {
                self.raw("\"path\":\"");
                self.raw(call.path);
                self.raw("\",\"content\":\"");
                self.code(300, 12_000);
                self.raw("\"");
            }
        }
        self.raw("}}");
    }

    pub(crate) fn tool_result(&mut self, call: &Call) {
        let id = self.message_open("toolResult");
        self.raw(",\"toolCallId\":\"");
        self.raw(&call.id);
        self.raw("\",\"toolName\":\"");
        self.raw(call.tool.name());
        self.raw("\",\"content\":[{\"type\":\"text\",\"text\":\"");
        let mut is_error = false;
        match call.tool {
            Tool::Read => self.tool_output(false),
            Tool::Bash => {
                self.tool_output(true);
                is_error = self.rng.chance(0.06);
                if is_error {
                    self.raw("\\n\\nCommand exited with code 1");
                }
            }
            Tool::Edit => {
                self.raw("Successfully replaced 1 block(s) in ");
                self.raw(call.path);
                self.raw(".");
            }
            Tool::Write => {
                self.raw("Successfully wrote ");
                let n = self.rng.range(300, 12_000);
                self.num(n);
                self.raw(" bytes to ");
                self.raw(call.path);
            }
        }
        self.raw("\"}]");
        if call.tool == Tool::Edit {
            self.raw(",\"details\":{\"diff\":\"");
            self.code(100, 900);
            self.raw("\",\"firstChangedLine\":");
            let line = self.rng.range(1, 400);
            self.num(line);
            self.raw("}");
        }
        self.raw(if is_error { ",\"isError\":true" } else { ",\"isError\":false" });
        self.message_close(id, self.now);
        self.counts.tool_results += 1;
    }

    /// File contents or command output: mostly small; 10% are 20–300 KB (log-uniform) when the
    /// budget has room.
    pub(crate) fn tool_output(&mut self, log: bool) {
        let big = self.rng.log_range(20_000, 300_000);
        let (lo, hi) = if self.rng.chance(0.1) && self.fits(big) {
            self.counts.big_results += 1;
            (big, big)
        } else {
            (40, 6_000)
        };
        if log { self.log(lo, hi) } else { self.code(lo, hi) }
    }

    /// `,"api":…,"provider":…,"model":…,"responseId":…,"usage":{…},"stopReason":…`.
    pub(crate) fn assistant_tail(&mut self, stop: &str) {
        let model = self.model;
        self.raw(",\"api\":\"");
        self.raw(model.api);
        self.raw("\",\"provider\":\"");
        self.raw(model.provider);
        self.raw("\",\"model\":\"");
        self.raw(model.id);
        self.raw("\"");
        if stop != "error" {
            let id = if model.openai {
                format!("resp_{}", self.hex(48))
            } else {
                format!("msg_01{}", self.alnum(22))
            };
            self.raw(&format!(",\"responseId\":\"{id}\""));
        }
        self.usage(model);
        self.raw(",\"stopReason\":\"");
        self.raw(stop);
        self.raw("\"");
        if stop == "error" {
            self.raw(",\"errorMessage\":\"529 {\\\"type\\\":\\\"error\\\",\\\"error\\\":{\\\"type\\\":\\\"overloaded_error\\\",\\\"message\\\":\\\"Overloaded\\\"}}\"");
        }
    }

    pub(crate) fn usage(&mut self, model: &Model) {
        let cache_read = if self.rng.chance(0.1) { 0 } else { self.rng.range(1_000, 150_000) };
        let cache_write = if model.openai { 0 } else { self.rng.range(0, 9_000) };
        let tokens = [self.rng.range(8, 4_000), self.rng.range(20, 2_000), cache_read, cache_write];
        let costs: Vec<f64> =
            tokens.iter().zip(model.price).map(|(&t, price)| t as f64 * price / 1e6).collect();
        self.raw(",\"usage\":{");
        for (key, n) in ["input", "output", "cacheRead", "cacheWrite"].iter().zip(tokens) {
            self.raw("\"");
            self.raw(key);
            self.raw("\":");
            self.num(n);
            self.raw(",");
        }
        self.raw("\"totalTokens\":");
        self.num(tokens.iter().sum());
        self.raw(",\"cost\":{");
        for (key, cost) in ["input", "output", "cacheRead", "cacheWrite"].iter().zip(&costs) {
            self.raw("\"");
            self.raw(key);
            self.raw("\":");
            self.raw(&cost.to_string());
            self.raw(",");
        }
        self.raw("\"total\":");
        self.raw(&costs.iter().sum::<f64>().to_string());
        self.raw("}}");
    }
}
