//! The entries between turns: model and thinking-level changes, session names, labels and
//! compactions.

use super::*;

impl Generator<'_> {
    pub(crate) fn after_turn(&mut self) {
        if self.format == Format::V3 && self.named && (self.counts.names == 0 || self.rng.chance(0.02)) {
            self.session_info();
        }
        if self.format != Format::V1 && self.rng.chance(0.03) {
            self.label();
        }
        if self.rng.chance(0.012) {
            let model = self.rng.pick(MODELS);
            self.model = model;
            self.tick(1_000, 30_000);
            self.model_change(model);
        }
        if self.rng.chance(0.012) {
            self.thinking = !self.thinking;
            self.tick(1_000, 30_000);
            self.thinking_level_change();
        }
        if self.context_bytes >= COMPACT_AT && self.turns_since_compaction >= 6 {
            self.compaction();
        }
        self.turns_since_compaction += 1;
    }

    pub(crate) fn model_change(&mut self, model: &Model) {
        let id = self.head("model_change");
        self.raw(",\"provider\":\"");
        self.raw(model.provider);
        self.raw("\",\"modelId\":\"");
        self.raw(model.id);
        self.raw("\"");
        self.finish(id);
    }

    pub(crate) fn thinking_level_change(&mut self) {
        let id = self.head("thinking_level_change");
        self.raw(",\"thinkingLevel\":\"");
        let level = if self.thinking { *self.rng.pick(THINKING_LEVELS) } else { "off" };
        self.raw(level);
        self.raw("\"");
        self.finish(id);
    }

    pub(crate) fn session_info(&mut self) {
        self.tick(1_000, 60_000);
        let id = self.head("session_info");
        self.raw(",\"name\":\"");
        let name = [self.rng.pick(NAME_VERBS), self.rng.pick(WORDS), self.rng.pick(WORDS)];
        self.raw(&name.map(|w| *w).join(" "));
        if self.rng.chance(0.4) {
            self.raw(" in ");
            let path = *self.rng.pick(PATHS);
            self.raw(path);
        }
        self.raw("\"");
        self.finish(id);
        self.counts.names += 1;
    }

    pub(crate) fn label(&mut self) {
        let pool = if self.rng.chance(0.5) { &self.user_ids } else { &self.turn_ends };
        let Some(&target) = pool.get(self.rng.below(pool.len() as u64) as usize) else {
            return;
        };
        self.tick(1_000, 30_000);
        let id = self.head("label");
        self.raw(",\"targetId\":\"");
        self.hex8(target);
        self.raw("\"");
        if !self.rng.chance(0.1) {
            self.raw(",\"label\":\"");
            let label = *self.rng.pick(LABELS);
            self.raw(label);
            self.raw("\"");
        }
        self.finish(id);
        self.counts.labels += 1;
    }

    pub(crate) fn compaction(&mut self) {
        self.tick(5_000, 60_000);
        let id = self.head("compaction");
        self.raw(",\"summary\":\"## Goal\\n");
        self.words(10, 30);
        self.raw("\\n\\n## Done\\n- ");
        self.words(8, 30);
        self.raw("\\n- ");
        self.words(8, 30);
        self.raw("\\n\\n## Next\\n- ");
        self.words(5, 20);
        self.raw("\"");
        if self.format == Format::V1 {
            self.raw(",\"firstKeptEntryIndex\":");
            let back = self.rng.range(3, 10).min(self.counts.entries);
            self.num(self.counts.entries - back + 1);
        } else {
            let back = self.rng.range(1, 3).min(self.user_ids.len() as u64) as usize;
            let kept = self.user_ids[self.user_ids.len() - back];
            self.raw(",\"firstKeptEntryId\":\"");
            self.hex8(kept);
            self.raw("\"");
        }
        self.raw(",\"tokensBefore\":");
        let tokens = self.rng.range(120_000, 195_000);
        self.num(tokens);
        if self.format != Format::V1 {
            self.raw(",\"details\":{\"readFiles\":[");
            self.path_list(4);
            self.raw("],\"modifiedFiles\":[");
            self.path_list(3);
            self.raw("]}");
        }
        self.finish(id);
        self.context_bytes = 0;
        self.turns_since_compaction = 0;
        self.counts.compactions += 1;
    }
}
