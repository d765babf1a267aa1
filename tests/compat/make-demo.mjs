#!/usr/bin/env node
// make-demo.mjs [--staging AGENTDIR]
//
// Writes the demo sessions for `pitree --demo` with pi 1.6.0's OWN SessionManager, into
// assets/demo/sessions/--<encoded cwd>--/<ts>_<id>.jsonl (the folder is deleted and regenerated).
//
// pi writes absolute `parentSession` paths, so the sessions are first written into a staging agent
// dir that looks like a real user's (default /home/demo/.pi/agent, matching the demo cwds
// /home/demo/*), then copied into assets/demo/sessions and the staging dir is removed again. The
// fork's `parentSession` therefore reads /home/demo/.pi/agent/sessions/--home-demo-webshop--/....
//
// Deterministic apart from pi's random ids: the global Date is replaced by a clock that this
// script moves explicitly (every `new Date()` / `Date.now()` returns the current fake time and
// then advances it by 1 ms), and all text, token counts, signatures and tool-call ids come from a
// seeded PRNG. Session ids (UUIDv7) and entry ids (8 hex digits) still come from pi's generator.

import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const PI_VERSION = "1.6.0";
const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = resolve(HERE, "../../assets/demo/sessions");

// ---------------------------------------------------------------------------------------------
// clock (installed before pi is imported)

const RealDate = Date;
let NOW = RealDate.parse("2025-06-16T08:00:00.000Z");
class FakeDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) {
      super(NOW);
      NOW += 1;
    } else {
      super(...args);
    }
  }
  static now() {
    return NOW++;
  }
}
globalThis.Date = FakeDate;
const clock = {
  set(iso) {
    NOW = RealDate.parse(iso);
  },
  advance(ms) {
    NOW += Math.round(ms);
  },
  peek() {
    return NOW;
  },
};

function sessionManagerUrl() {
  const indexUrl = import.meta.resolve("@earendil-works/pi-coding-agent");
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", indexUrl)), "utf8"));
  if (pkg.version !== PI_VERSION) {
    throw new Error(`expected @earendil-works/pi-coding-agent ${PI_VERSION}, found ${pkg.version}`);
  }
  return new URL("./core/session-manager.js", indexUrl).href;
}
const { SessionManager } = await import(sessionManagerUrl());

// ---------------------------------------------------------------------------------------------
// seeded randomness

let seed = 0x5eed1234;
function rand() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const between = (lo, hi) => lo + (hi - lo) * rand();
const int = (lo, hi) => Math.floor(between(lo, hi + 1));
const pick = (arr) => arr[Math.floor(rand() * arr.length)];
const B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const B64 = `${B62}+/`;
const HEX = "0123456789abcdef";
const randStr = (alphabet, n) => Array.from({ length: n }, () => pick(alphabet)).join("");

// ---------------------------------------------------------------------------------------------
// models, pricing (USD per million tokens) and token accounting

const MODELS = {
  "anthropic/claude-sonnet-4-5": { api: "anthropic-messages", input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "anthropic/claude-haiku-4-5": { api: "anthropic-messages", input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  "openai/gpt-5.1-codex": { api: "openai-responses", input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
  "openai/gpt-5.1": { api: "openai-responses", input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
};
const tokensOf = (s) => Math.ceil(String(s ?? "").length / 3.7);
const BASE_CONTEXT = 9800;

const TOOL_DEFS = [
  {
    name: "read",
    description:
      "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are sent as attachments.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "Path to the file to read (relative or absolute)" },
        offset: { type: "number", description: "Line number to start reading from (1-indexed)" },
        limit: { type: "number", description: "Maximum number of lines to read" },
      },
      required: ["path"],
    },
  },
  {
    name: "bash",
    description: "Execute a bash command in the current working directory. Returns stdout and stderr.",
    parameters: {
      type: "object",
      properties: {
        command: { type: "string", description: "Shell command to execute" },
        timeout: { type: "number", description: "Timeout in seconds (optional, no default timeout)" },
      },
      required: ["command"],
    },
  },
  {
    name: "edit",
    description: "Edit a single file using exact text replacement.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "Path to the file to edit (relative or absolute)" },
        edits: {
          type: "array",
          items: {
            type: "object",
            properties: { oldText: { type: "string" }, newText: { type: "string" } },
            required: ["oldText", "newText"],
          },
        },
      },
      required: ["path", "edits"],
    },
  },
  {
    name: "write",
    description: "Write content to a file. Creates the file if it doesn't exist, overwrites if it does.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "Path to the file to write (relative or absolute)" },
        content: { type: "string", description: "Content to write to the file" },
      },
      required: ["path", "content"],
    },
  },
];

function systemMessage(cwd) {
  return {
    role: "system",
    content: "",
    sections: {
      preamble:
        "You are a coding assistant running inside pi, a coding agent harness. Help users inspect files, run commands, and modify code.",
      tools:
        "- read: Read file contents\n- bash: Execute bash commands (ls, grep, find, etc.)\n- edit: Make precise file edits with exact text replacement, including multiple disjoint edits in one call\n- write: Create or overwrite files\n\nAdditional tools may be available.",
      rules:
        "- Use read to examine files instead of cat or sed.\n- Use edit for targeted changes. Batch changes to one file in a single call.\n- Use write only for new files or complete rewrites.",
      environment: `Current working directory: ${cwd}`,
    },
    toolsAdded: TOOL_DEFS,
    timestamp: clock.peek(),
  };
}

// ---------------------------------------------------------------------------------------------
// a session writer on top of pi's SessionManager

const encodeCwd = (cwd) => `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;

class Demo {
  constructor(stageSessions, { cwd, start, model, thinking }) {
    clock.set(start);
    clock.advance(-1); // pi's uuidv7 reads the clock once before stamping the header
    this.cwd = cwd;
    this.sm = SessionManager.create(cwd, join(stageSessions, encodeCwd(cwd)));
    this.ctxAt = new Map(); // entry id -> estimated context tokens on the path up to it
    this.ctx = 0;
    this.cached = 0;
    this.setModel(model);
    this.thinkingLevel(thinking);
    clock.advance(int(40, 60));
    // system prompt + tool schemas + project context files, as a real pi request carries them
    this._track(this.sm.appendMessage(systemMessage(cwd)), BASE_CONTEXT);
  }

  _track(id, addTokens = 0) {
    this.ctx += addTokens;
    this.ctxAt.set(id, this.ctx);
    return id;
  }

  setModel(model) {
    const [provider, ...rest] = model.split("/");
    this.model = model;
    this.provider = provider;
    this.modelId = rest.join("/");
    this.pricing = MODELS[model];
    this.cached = 0;
    return this._track(this.sm.appendModelChange(provider, this.modelId));
  }

  thinkingLevel(level) {
    this.thinking = level;
    return this._track(this.sm.appendThinkingLevelChange(level));
  }

  /** A user prompt; `after` is the typing/reading time in ms. */
  user(text, { after = between(25000, 150000) } = {}) {
    clock.advance(after);
    const id = this.sm.appendMessage({ role: "user", content: [{ type: "text", text }], timestamp: clock.peek() });
    return this._track(id, tokensOf(text) + 4);
  }

  _usage(outputTokens) {
    const p = this.pricing;
    const prompt = this.ctx;
    let input;
    let cacheRead;
    let cacheWrite;
    if (p.cacheWrite > 0) {
      cacheRead = Math.min(this.cached, prompt);
      const fresh = Math.max(prompt - cacheRead, 1);
      cacheWrite = Math.round(fresh * between(0.82, 0.97));
      input = Math.max(fresh - cacheWrite, int(3, 12));
    } else {
      cacheRead = Math.floor(Math.min(this.cached, prompt) / 1024) * 1024;
      input = Math.max(prompt - cacheRead, int(40, 300));
      cacheWrite = 0;
    }
    const output = outputTokens;
    const cost = {
      input: (input * p.input) / 1e6,
      output: (output * p.output) / 1e6,
      cacheRead: (cacheRead * p.cacheRead) / 1e6,
      cacheWrite: (cacheWrite * p.cacheWrite) / 1e6,
    };
    cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
    this.cached = prompt + output;
    return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
  }

  _toolCallId() {
    return this.provider === "openai"
      ? `call_${randStr(B62, 24)}|fc_${randStr(HEX, 40)}`
      : `toolu_01${randStr(B62, 22)}`;
  }

  _thinkingBlock(text) {
    if (this.provider === "openai") {
      return {
        type: "thinking",
        thinking: text,
        thinkingSignature: JSON.stringify({
          type: "reasoning",
          id: `rs_${randStr(HEX, 48)}`,
          summary: [{ type: "summary_text", text }],
        }),
      };
    }
    return { type: "thinking", thinking: text, thinkingSignature: randStr(B64, int(180, 320)) };
  }

  _textBlock(text) {
    return this.provider === "openai"
      ? { type: "text", text, textSignature: `msg_${randStr(HEX, 48)}` }
      : { type: "text", text };
  }

  /**
   * One assistant message. `think` (skipped when thinking is off), `say`, and `calls`
   * ([{name, args, out, error?, exit?, ms?, details?}]) whose results are appended after it.
   * Returns {id, results: [ids]}.
   */
  assistant({ think, say, calls = [], stopReason, errorMessage, extraOutput = 0 }) {
    const content = [];
    let outTokens = extraOutput;
    if (think && this.thinking !== "off") {
      content.push(this._thinkingBlock(think));
      outTokens += tokensOf(think) * (this.thinking === "high" ? 3 : 2);
    }
    if (say) {
      content.push(this._textBlock(say));
      outTokens += tokensOf(say);
    }
    const toolCalls = calls.map((c) => ({ type: "toolCall", id: this._toolCallId(), name: c.name, arguments: c.args }));
    content.push(...toolCalls);
    for (const c of calls) outTokens += tokensOf(JSON.stringify(c.args)) + 12;
    outTokens = Math.round(outTokens * between(1.05, 1.3)) + int(8, 40);

    clock.advance(between(250, 700));
    const startedAt = clock.peek();
    const aborted = stopReason === "aborted" || stopReason === "error";
    const usage = stopReason === "error" ? this._zeroUsage() : this._usage(aborted ? Math.round(outTokens / 3) : outTokens);
    clock.advance(stopReason === "error" ? between(800, 2500) : between(1500, 4000) + (usage.output / between(40, 80)) * 1000);
    const message = {
      role: "assistant",
      content,
      api: this.pricing.api,
      provider: this.provider,
      model: this.modelId,
      ...(stopReason === "error"
        ? {}
        : { responseId: this.provider === "openai" ? `resp_${randStr(HEX, 48)}` : `msg_01${randStr(B62, 22)}` }),
      usage,
      stopReason: stopReason ?? (calls.length ? "toolUse" : "stop"),
      ...(errorMessage ? { errorMessage } : {}),
      timestamp: startedAt,
    };
    const id = this._track(this.sm.appendMessage(message), usage.output);
    const results = [];
    calls.forEach((c, i) => {
      results.push(this.toolResult(toolCalls[i], c));
    });
    return { id, results, last: results.length ? results[results.length - 1] : id };
  }

  _zeroUsage() {
    return {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    };
  }

  toolResult(call, c) {
    let text = c.out ?? "";
    let isError = Boolean(c.error);
    let details = c.details;
    const a = call.arguments;
    if (call.name === "write" && c.out === undefined) {
      text = `Successfully wrote ${Buffer.byteLength(a.content, "utf8")} bytes to ${a.path}`;
    } else if (call.name === "edit" && c.out === undefined) {
      text = `Successfully replaced ${a.edits.length} block(s) in ${a.path}.`;
      if (details === undefined && c.line !== undefined) details = editDetails(c.line, a.edits);
    } else if (call.name === "bash" && c.exit) {
      text = `${text}\n\nCommand exited with code ${c.exit}`;
      isError = true;
    }
    const ms = c.ms ?? (call.name === "bash" ? between(150, 1800) : between(8, 60));
    clock.advance(ms);
    const id = this.sm.appendMessage({
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text }],
      ...(details !== undefined ? { details } : {}),
      isError,
      timestamp: clock.peek(),
    });
    // real tool output is longer than the excerpts shown here
    return this._track(id, tokensOf(text) * 2 + 10);
  }

  /** `!command` run by the user in pi's editor (role bashExecution). */
  bashExecution(command, output, { exitCode = 0, after = between(5000, 20000) } = {}) {
    clock.advance(after);
    const id = this.sm.appendMessage({
      role: "bashExecution",
      command,
      output,
      exitCode,
      cancelled: false,
      truncated: false,
      timestamp: clock.peek(),
    });
    return this._track(id, tokensOf(command + output));
  }

  label(target, label, { after = between(3000, 15000) } = {}) {
    clock.advance(after);
    return this._track(this.sm.appendLabelChange(target, label));
  }

  name(name, { after = between(2000, 9000) } = {}) {
    clock.advance(after);
    return this._track(this.sm.appendSessionInfo(name));
  }

  branch(target, { after = between(4000, 20000) } = {}) {
    clock.advance(after);
    this.sm.branch(target);
    this.ctx = this.ctxAt.get(target) ?? this.ctx;
    this.cached = Math.min(this.cached, this.ctx);
  }

  branchWithSummary(target, summary, details, { after = between(15000, 40000) } = {}) {
    clock.advance(after);
    const usage = this._summaryUsage(this.ctx, summary);
    this.ctx = this.ctxAt.get(target) ?? this.ctx;
    this.cached = Math.min(this.cached, this.ctx);
    return this._track(this.sm.branchWithSummary(target, summary, details, false, usage), tokensOf(summary) + 20);
  }

  compaction(summary, firstKeptEntryId, details, { after = between(20000, 45000) } = {}) {
    clock.advance(after);
    const tokensBefore = this.ctx;
    const usage = this._summaryUsage(tokensBefore, summary);
    const id = this.sm.appendCompaction(summary, firstKeptEntryId, tokensBefore, details, false, usage);
    // after compaction: system prompt + summary + the kept tail
    let kept = 0;
    const path = this.sm.getBranch();
    const from = path.findIndex((e) => e.id === firstKeptEntryId);
    if (from >= 0) {
      kept = this.ctx - (this.ctxAt.get(path[from - 1]?.id) ?? 0);
    }
    this.ctx = BASE_CONTEXT + tokensOf(summary) + kept;
    this.cached = 0;
    this.ctxAt.set(id, this.ctx);
    return id;
  }

  _summaryUsage(promptTokens, summary) {
    const p = this.pricing;
    const input = promptTokens + 900;
    const output = tokensOf(summary) + int(40, 200);
    const cost = { input: (input * p.input) / 1e6, output: (output * p.output) / 1e6, cacheRead: 0, cacheWrite: 0 };
    cost.total = cost.input + cost.output;
    return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost };
  }

  fork(target, { after = between(20000, 60000) } = {}) {
    clock.advance(after);
    const file = this.sm.createBranchedSession(target);
    return file;
  }

  get file() {
    return this.sm.getSessionFile();
  }

  get leaf() {
    return this.sm.getLeafId();
  }
}

/** pi's edit `details`: a small line-numbered diff and the first changed line. */
function editDetails(line, edits) {
  const out = [];
  let n = line;
  for (const e of edits) {
    const oldLines = e.oldText.split("\n");
    const newLines = e.newText.split("\n");
    let common = 0;
    while (common < oldLines.length && common < newLines.length && oldLines[common] === newLines[common]) common++;
    for (let i = 0; i < common; i++) out.push(`  ${n + i} ${oldLines[i]}`);
    for (let i = common; i < oldLines.length; i++) out.push(`- ${n + i} ${oldLines[i]}`);
    for (let i = common; i < newLines.length; i++) out.push(`+ ${n + i} ${newLines[i]}`);
    n += newLines.length + 3;
  }
  return { diff: out.join("\n"), firstChangedLine: line };
}


// ---------------------------------------------------------------------------------------------
// content helpers

const L = (...lines) => lines.join("\n");
const read = (path, out, extra = {}) => ({ name: "read", args: { path, ...extra }, out });
const bash = (command, out, opts = {}) => ({ name: "bash", args: { command }, out, ...opts });
const write = (path, content) => ({ name: "write", args: { path, content } });
const edit = (path, line, ...pairs) => ({
  name: "edit",
  args: { path, edits: pairs.map(([oldText, newText]) => ({ oldText, newText })) },
  line,
});

// ---------------------------------------------------------------------------------------------
// /home/demo/webshop

const WEBSHOP = "/home/demo/webshop";

const TOTAL_TS = L(
  'import type { CartLine } from "./types";',
  "",
  "export interface CartTotals {",
  "  subtotal: number;",
  "  tax: number;",
  "  total: number;",
  "}",
  "",
  "export function computeTotals(lines: CartLine[], taxRate: number): CartTotals {",
  "  const subtotal = lines.reduce((sum, l) => sum + l.unitPrice * l.quantity, 0);",
  "  const tax = subtotal * taxRate;",
  "  return {",
  "    subtotal: Math.round(subtotal * 100) / 100,",
  "    tax: Math.round(tax * 100) / 100,",
  "    total: Math.round((subtotal + tax) * 100) / 100,",
  "  };",
  "}",
  "",
);

const TYPES_TS = L(
  "export interface CartLine {",
  "  sku: string;",
  "  name: string;",
  "  /** Price per unit in dollars. Weighted items are priced per 100 g. */",
  "  unitPrice: number;",
  "  /** Units, or multiples of 100 g for weighted items (may be fractional). */",
  "  quantity: number;",
  "}",
  "",
);

function webshopCartRounding(stage) {
  const s = new Demo(stage, {
    cwd: WEBSHOP,
    start: "2025-06-16T08:41:12.000Z",
    model: "anthropic/claude-sonnet-4-5",
    thinking: "medium",
  });
  s.user(
    L(
      "Support ticket #4182: a customer's order confirmation says Subtotal $28.47, Tax $2.36, Total $30.82.",
      "28.47 + 2.36 is 30.83. The cart is 1 × house blend (250 g at $4.99/100 g), 1 × oat milk $3.49, 2 × croissant $6.25.",
      "Can you find out where the cent goes and fix it?",
    ),
    { after: 21000 },
  );
  s.assistant({
    think:
      "Totals are computed somewhere in src/cart. A one-cent mismatch between the displayed parts and the total usually means the total is rounded from unrounded parts. Let me find the code.",
    say: "Let me find where the totals are computed.",
    calls: [bash("rg -n \"computeTotals\" src", L(
      "src/cart/total.ts:9:export function computeTotals(lines: CartLine[], taxRate: number): CartTotals {",
      "src/checkout/confirm.ts:4:import { computeTotals } from \"../cart/total\";",
      "src/checkout/confirm.ts:31:  const totals = computeTotals(cart.lines, region.taxRate);",
      "src/routes/cart.ts:12:  const totals = computeTotals(cart.lines, req.region.taxRate);",
      "",
    ), { ms: 140 })],
  });
  s.assistant({ calls: [read("src/cart/total.ts", TOTAL_TS), read("src/cart/types.ts", TYPES_TS)] });
  const cause = s.assistant({
    think:
      "subtotal = 12.475 + 3.49 + 12.5 = 28.465 in floats (actually 28.464999999999996). Math.round(2846.4999999) = 2846 -> 28.46? Hmm, the ticket shows 28.47, so the float must land just above. Either way: tax is computed from the unrounded subtotal, and total is rounded from unrounded subtotal + tax, so each displayed number is rounded independently and they need not add up. The fix is to do everything in integer cents: round each line to cents, sum, compute tax from the rounded subtotal, and total = subtotal + tax.",
    say: L(
      "Found it. `computeTotals` rounds the three numbers **independently**:",
      "",
      "- `subtotal` is summed in floating point from fractional line amounts (250 g × $4.99/100 g = $12.475),",
      "- `tax` is computed from that *unrounded* subtotal,",
      "- `total` is rounded from the *unrounded* `subtotal + tax`.",
      "",
      "So the displayed subtotal and tax are each rounded, but the total is not their sum. With this cart the half cent on the coffee line and the tax's fraction push the total down by one cent.",
      "",
      "Fix: work in integer cents. Round each line to cents, sum the lines, compute tax from the rounded subtotal, and define `total = subtotal + tax`. I'll add a regression test with the exact cart from the ticket first.",
    ),
    calls: [
      bash("ls src/cart && sed -n '1,40p' src/cart/total.test.ts", L(
        "index.ts",
        "total.test.ts",
        "total.ts",
        "types.ts",
        "import { describe, expect, it } from \"vitest\";",
        "import { computeTotals } from \"./total\";",
        "",
        "describe(\"computeTotals\", () => {",
        "  it(\"adds tax\", () => {",
        "    const t = computeTotals([{ sku: \"A\", name: \"A\", unitPrice: 10, quantity: 2 }], 0.1);",
        "    expect(t).toEqual({ subtotal: 20, tax: 2, total: 22 });",
        "  });",
        "});",
        "",
      )),
    ],
  });
  s.assistant({
    calls: [
      edit(
        "src/cart/total.test.ts",
        9,
        [
          "    expect(t).toEqual({ subtotal: 20, tax: 2, total: 22 });\n  });\n});",
          L(
            "    expect(t).toEqual({ subtotal: 20, tax: 2, total: 22 });",
            "  });",
            "",
            "  it(\"total is always subtotal + tax (ticket #4182)\", () => {",
            "    const t = computeTotals(",
            "      [",
            "        { sku: \"COF-HB\", name: \"House blend\", unitPrice: 4.99, quantity: 2.5 },",
            "        { sku: \"OAT-1L\", name: \"Oat milk\", unitPrice: 3.49, quantity: 1 },",
            "        { sku: \"CRS\", name: \"Croissant\", unitPrice: 6.25, quantity: 2 },",
            "      ],",
            "      0.0829,",
            "    );",
            "    expect(t.total).toBe(Math.round((t.subtotal + t.tax) * 100) / 100);",
            "    expect(t).toEqual({ subtotal: 28.47, tax: 2.36, total: 30.83 });",
            "  });",
            "});",
          ),
        ],
      ),
    ],
  });
  s.assistant({
    calls: [
      bash("npx vitest run src/cart", L(
        "",
        " RUN  v1.6.0 /home/demo/webshop",
        "",
        " ❯ src/cart/total.test.ts (2 tests | 1 failed) 6ms",
        "   ✓ computeTotals > adds tax",
        "   × computeTotals > total is always subtotal + tax (ticket #4182)",
        "     → expected 30.82 to be 30.83 // Object.is equality",
        "",
        "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯",
        "",
        " FAIL  src/cart/total.test.ts > computeTotals > total is always subtotal + tax (ticket #4182)",
        "AssertionError: expected 30.82 to be 30.83 // Object.is equality",
        "",
        "- Expected",
        "+ Received",
        "",
        "- 30.83",
        "+ 30.82",
        "",
        " ❯ src/cart/total.test.ts:20:21",
        "",
        " Test Files  1 failed (1)",
        "      Tests  1 failed | 1 passed (2)",
        "   Duration  412ms",
      ), { exit: 1, ms: 2300 }),
    ],
  });
  s.assistant({
    say: "The regression test reproduces the ticket. Now the fix, in integer cents:",
    calls: [
      write(
        "src/cart/total.ts",
        L(
          'import type { CartLine } from "./types";',
          "",
          "export interface CartTotals {",
          "  subtotal: number;",
          "  tax: number;",
          "  total: number;",
          "}",
          "",
          "/** Dollars to integer cents, rounding half away from zero. */",
          "const toCents = (dollars: number): number => Math.round(dollars * 100 + Number.EPSILON * 100);",
          "",
          "/**",
          " * Totals as shown to the customer. Every line is rounded to cents first and the",
          " * total is defined as subtotal + tax, so the printed numbers always add up.",
          " */",
          "export function computeTotals(lines: CartLine[], taxRate: number): CartTotals {",
          "  const subtotalCents = lines.reduce((sum, l) => sum + toCents(l.unitPrice * l.quantity), 0);",
          "  const taxCents = Math.round(subtotalCents * taxRate);",
          "  return {",
          "    subtotal: subtotalCents / 100,",
          "    tax: taxCents / 100,",
          "    total: (subtotalCents + taxCents) / 100,",
          "  };",
          "}",
          "",
        ),
      ),
    ],
  });
  const green = s.assistant({
    calls: [
      bash("npx vitest run src/cart src/checkout", L(
        "",
        " RUN  v1.6.0 /home/demo/webshop",
        "",
        " ✓ src/cart/total.test.ts (2 tests) 4ms",
        " ✓ src/checkout/confirm.test.ts (7 tests) 31ms",
        "",
        " Test Files  2 passed (2)",
        "      Tests  9 passed (9)",
        "   Duration  655ms",
      ), { ms: 2600 }),
    ],
  });
  s.assistant({
    say: L(
      "Fixed. `computeTotals` now works in integer cents:",
      "",
      "1. each line is rounded to cents (`toCents`),",
      "2. tax is computed from the rounded subtotal,",
      "3. `total = subtotal + tax`, so the confirmation always adds up.",
      "",
      "The ticket's cart now gives Subtotal $28.47, Tax $2.36, Total $30.83. I added that cart as a regression test in `src/cart/total.test.ts`; the cart and checkout suites pass (9 tests).",
    ),
  });
  s.label(cause.id, "root-cause");
  s.label(green.last, "fix-verified");
  s.name("Cart total off by one cent");
  s.user("Do we store totals anywhere that would still have the old values?");
  s.assistant({
    think: "Orders table probably stores totals at checkout time. Check the migrations.",
    calls: [bash("rg -n \"total\" db/migrations | head -20", L(
      "db/migrations/0004_orders.sql:9:  subtotal_cents integer NOT NULL,",
      "db/migrations/0004_orders.sql:10:  tax_cents integer NOT NULL,",
      "db/migrations/0004_orders.sql:11:  total_cents integer NOT NULL,",
      "",
    ))],
  });
  s.assistant({
    say: L(
      "Orders already store `subtotal_cents`, `tax_cents` and `total_cents` as integers, written from `computeTotals` at checkout. Orders placed before this fix may have `total_cents <> subtotal_cents + tax_cents`. To find them:",
      "",
      "```sql",
      "SELECT id, subtotal_cents, tax_cents, total_cents",
      "FROM orders",
      "WHERE total_cents <> subtotal_cents + tax_cents;",
      "```",
      "",
      "The customer was charged `total_cents`, so I would not rewrite those rows; support can refund the cent where it went the wrong way.",
    ),
  });
  return s;
}

const SERVER_TS = L(
  'import express from "express";',
  'import { pinoHttp } from "pino-http";',
  'import { router } from "./routes";',
  'import { errorHandler } from "./middleware/errors";',
  'import { logger } from "./logger";',
  "",
  "export function createServer() {",
  "  const app = express();",
  "  app.use(pinoHttp({ logger }));",
  "  app.use(express.json({ limit: \"1mb\" }));",
  "  app.use(\"/api\", router);",
  "  app.use(errorHandler);",
  "  return app;",
  "}",
  "",
);

function webshopStripe(stage) {
  const s = new Demo(stage, {
    cwd: WEBSHOP,
    start: "2025-06-18T13:05:40.000Z",
    model: "anthropic/claude-sonnet-4-5",
    thinking: "medium",
  });
  s.user(
    "We need to handle Stripe webhooks for payment_intent.succeeded and charge.refunded so orders get marked paid/refunded. Where should this live in our app?",
    { after: 18000 },
  );
  s.assistant({
    think: "Look at the server setup and the routes first; webhook signature verification needs the raw body, which conflicts with a global express.json().",
    calls: [
      read("src/server.ts", SERVER_TS),
      bash("ls src/routes src/jobs 2>&1; rg -n \"stripe\" package.json src | head", L(
        "src/routes:",
        "cart.ts",
        "checkout.ts",
        "index.ts",
        "products.ts",
        "ls: cannot access 'src/jobs': No such file or directory",
        "package.json:31:    \"stripe\": \"^15.8.0\",",
        "src/checkout/confirm.ts:2:import Stripe from \"stripe\";",
        "src/checkout/confirm.ts:9:const stripe = new Stripe(env.STRIPE_SECRET_KEY);",
        "",
      )),
    ],
  });
  const bp1 = s.assistant({
    say: L(
      "Two things matter for webhooks:",
      "",
      "1. **Signature verification needs the raw body.** `express.json()` is mounted globally in `src/server.ts`, so by the time a route runs the body is already parsed and `stripe.webhooks.constructEvent` will reject it.",
      "2. **Stripe retries** on any non-2xx or a timeout (> 10 s), so the handler should be idempotent and fast.",
      "",
      "Options:",
      "",
      "- **A. Synchronous router**: `src/routes/webhooks.ts` with `express.raw({ type: \"application/json\" })`, mounted *before* `express.json()`; update the order in the same request.",
      "- **B. Verify and enqueue**: same raw-body route, but it only verifies, stores the event in a `webhook_events` table (unique on the Stripe event id) and returns 200; a worker applies it to the order.",
      "",
      "A is less code. B survives slow DB moments and gives idempotency for free via the unique key.",
    ),
  });
  s.name("Stripe webhooks");

  // --- branch A: synchronous router
  const u2a = s.user("Let's try A first, keep it simple.");
  s.assistant({
    calls: [
      write(
        "src/routes/webhooks.ts",
        L(
          'import express, { Router } from "express";',
          'import Stripe from "stripe";',
          'import { env } from "../env";',
          'import { markOrderPaid, markOrderRefunded } from "../orders/status";',
          "",
          "const stripe = new Stripe(env.STRIPE_SECRET_KEY);",
          "export const webhooks = Router();",
          "",
          'webhooks.post("/stripe", express.raw({ type: "application/json" }), async (req, res) => {',
          '  const signature = req.header("stripe-signature") ?? "";',
          "  let event: Stripe.Event;",
          "  try {",
          "    event = stripe.webhooks.constructEvent(req.body, signature, env.STRIPE_WEBHOOK_SECRET);",
          "  } catch (err) {",
          "    req.log.warn({ err }, \"stripe signature rejected\");",
          "    return res.status(400).send(\"bad signature\");",
          "  }",
          "  switch (event.type) {",
          '    case "payment_intent.succeeded":',
          "      await markOrderPaid(event.data.object.metadata.orderId, event.data.object.id);",
          "      break;",
          '    case "charge.refunded":',
          "      await markOrderRefunded(event.data.object.metadata.orderId, event.data.object.amount_refunded);",
          "      break;",
          "  }",
          "  res.json({ received: true });",
          "});",
          "",
        ),
      ),
    ],
  });
  s.assistant({
    calls: [
      edit("src/server.ts", 9,
        ["  app.use(pinoHttp({ logger }));\n  app.use(express.json({ limit: \"1mb\" }));",
          "  app.use(pinoHttp({ logger }));\n  // Stripe needs the raw body: mount before the JSON parser.\n  app.use(\"/webhooks\", webhooks);\n  app.use(express.json({ limit: \"1mb\" }));"],
      ),
    ],
  });
  s.assistant({
    calls: [
      bash("npx vitest run src/routes", L(
        "",
        " RUN  v1.6.0 /home/demo/webshop",
        "",
        " ❯ src/routes/webhooks.test.ts (3 tests | 1 failed) 48ms",
        "   ✓ webhooks > rejects a bad signature",
        "   ✓ webhooks > marks an order paid",
        "   × webhooks > is idempotent when Stripe retries",
        "     → expected \"markOrderPaid\" to be called 1 times, but got 2 times",
        "",
        " Test Files  1 failed | 3 passed (4)",
        "      Tests  1 failed | 18 passed (19)",
      ), { exit: 1, ms: 3100 }),
    ],
  });
  s.assistant({
    think: "Retries call markOrderPaid twice. I could make markOrderPaid idempotent, but that is exactly what option B gives structurally.",
    say: L(
      "The route works, but the retry test shows the weak spot of A: a retried event marks the order paid twice (and would send the confirmation e-mail twice). To fix it within A, `markOrderPaid` would need its own check-and-set on the order status, plus the same for refunds.",
      "",
      "That's doable, but it is the idempotency that B gets from a unique key on the event id. Want me to add the guard here, or switch to B?",
    ),
  });

  // --- back to the branch point with a summary of A: branch B
  s.branchWithSummary(
    bp1.id,
    L(
      "The user explored a different conversation branch before returning here.",
      "Summary of that exploration:",
      "",
      "## Goal",
      "Handle Stripe webhooks (payment_intent.succeeded, charge.refunded) with a synchronous Express router (option A).",
      "",
      "## Constraints & Preferences",
      "- Keep it simple; signature verification needs the raw body.",
      "",
      "## Progress",
      "### Done",
      "- [x] Wrote `src/routes/webhooks.ts` with `express.raw()` and `stripe.webhooks.constructEvent`.",
      "- [x] Mounted `/webhooks` before `express.json()` in `src/server.ts`.",
      "",
      "### In Progress",
      "- [ ] Idempotency: `webhooks > is idempotent when Stripe retries` fails (`markOrderPaid` called 2 times).",
      "",
      "### Blocked",
      "- (none)",
      "",
      "## Key Decisions",
      "- **Raw body route before the JSON parser**: required for signature verification.",
      "",
      "## Next Steps",
      "1. Either add a check-and-set guard to `markOrderPaid`/`markOrderRefunded`, or switch to the verify-and-enqueue design.",
      "",
      "<read-files>",
      "src/server.ts",
      "</read-files>",
      "",
      "<modified-files>",
      "src/routes/webhooks.ts",
      "src/server.ts",
      "</modified-files>",
    ),
    { readFiles: ["src/server.ts"], modifiedFiles: ["src/routes/webhooks.ts", "src/server.ts"] },
  );
  const u2b = s.user("Let's do B instead: verify, store the event, process it in a worker.");
  s.assistant({
    think: "Migration for webhook_events with a unique stripe_event_id, the route inserts with ON CONFLICT DO NOTHING, and a worker polls unprocessed rows with SKIP LOCKED.",
    say: "I'll start with the table. The unique key on `stripe_event_id` is what makes retries harmless.",
    calls: [
      bash("ls db/migrations | tail -3", "0007_product_images.sql\n0008_discount_codes.sql\n0009_order_notes.sql\n"),
    ],
  });
  s.assistant({
    calls: [
      write(
        "db/migrations/0010_webhook_events.sql",
        L(
          "CREATE TABLE webhook_events (",
          "  id             bigserial PRIMARY KEY,",
          "  stripe_event_id text NOT NULL UNIQUE,",
          "  type           text NOT NULL,",
          "  payload        jsonb NOT NULL,",
          "  received_at    timestamptz NOT NULL DEFAULT now(),",
          "  processed_at   timestamptz,",
          "  attempts       integer NOT NULL DEFAULT 0,",
          "  last_error     text",
          ");",
          "",
          "CREATE INDEX webhook_events_pending ON webhook_events (received_at) WHERE processed_at IS NULL;",
          "",
        ),
      ),
      write(
        "src/routes/webhooks.ts",
        L(
          'import express, { Router } from "express";',
          'import Stripe from "stripe";',
          'import { db } from "../db";',
          'import { env } from "../env";',
          "",
          "const stripe = new Stripe(env.STRIPE_SECRET_KEY);",
          "export const webhooks = Router();",
          "",
          "/** Verify, store, acknowledge. The worker in src/jobs/webhooks.ts applies the event. */",
          'webhooks.post("/stripe", express.raw({ type: "application/json" }), async (req, res) => {',
          "  let event: Stripe.Event;",
          "  try {",
          '    event = stripe.webhooks.constructEvent(req.body, req.header("stripe-signature") ?? "", env.STRIPE_WEBHOOK_SECRET);',
          "  } catch (err) {",
          "    req.log.warn({ err }, \"stripe signature rejected\");",
          "    return res.status(400).send(\"bad signature\");",
          "  }",
          "  await db",
          '    .insertInto("webhook_events")',
          "    .values({ stripe_event_id: event.id, type: event.type, payload: JSON.stringify(event) })",
          '    .onConflict((oc) => oc.column("stripe_event_id").doNothing())',
          "    .execute();",
          "  res.json({ received: true });",
          "});",
          "",
        ),
      ),
    ],
  });
  s.assistant({
    calls: [
      write(
        "src/jobs/webhooks.ts",
        L(
          'import { sql } from "kysely";',
          'import { db } from "../db";',
          'import { logger } from "../logger";',
          'import { markOrderPaid, markOrderRefunded } from "../orders/status";',
          "",
          "const BATCH = 20;",
          "",
          "/** Apply pending Stripe events. Safe to run in several processes (SKIP LOCKED). */",
          "export async function processWebhookEvents(): Promise<number> {",
          "  return db.transaction().execute(async (trx) => {",
          "    const events = await trx",
          '      .selectFrom("webhook_events")',
          '      .selectAll()',
          '      .where("processed_at", "is", null)',
          '      .where("attempts", "<", 8)',
          '      .orderBy("received_at")',
          "      .limit(BATCH)",
          "      .forUpdate()",
          "      .skipLocked()",
          "      .execute();",
          "    for (const e of events) {",
          "      try {",
          "        const obj = (e.payload as any).data.object;",
          '        if (e.type === "payment_intent.succeeded") await markOrderPaid(obj.metadata.orderId, obj.id, trx);',
          '        if (e.type === "charge.refunded") await markOrderRefunded(obj.metadata.orderId, obj.amount_refunded, trx);',
          '        await trx.updateTable("webhook_events").set({ processed_at: sql`now()` }).where("id", "=", e.id).execute();',
          "      } catch (err) {",
          '        logger.error({ err, event: e.stripe_event_id }, "webhook event failed");',
          "        await trx",
          '          .updateTable("webhook_events")',
          '          .set({ attempts: sql`attempts + 1`, last_error: String(err) })',
          '          .where("id", "=", e.id)',
          "          .execute();",
          "      }",
          "    }",
          "    return events.length;",
          "  });",
          "}",
          "",
        ),
      ),
    ],
  });
  s.assistant({
    calls: [
      bash("npm run db:migrate && npx vitest run src/routes src/jobs", L(
        "",
        "> webshop@0.14.2 db:migrate",
        "> kysely migrate:latest",
        "",
        "Migration \"0010_webhook_events\" was executed successfully",
        "",
        " RUN  v1.6.0 /home/demo/webshop",
        "",
        " ✓ src/routes/webhooks.test.ts (3 tests) 52ms",
        " ✓ src/jobs/webhooks.test.ts (4 tests) 118ms",
        " ✓ src/routes/cart.test.ts (6 tests) 40ms",
        " ✓ src/routes/checkout.test.ts (9 tests) 77ms",
        "",
        " Test Files  4 passed (4)",
        "      Tests  22 passed (22)",
        "   Duration  1.84s",
      ), { ms: 6200 }),
    ],
  });
  const bDone = s.assistant({
    say: L(
      "Option B is in and green (22 tests):",
      "",
      "- `db/migrations/0010_webhook_events.sql`: events table, unique on `stripe_event_id`, partial index on pending rows.",
      "- `src/routes/webhooks.ts`: verifies the signature on the raw body, inserts with `ON CONFLICT DO NOTHING`, answers 200 right away.",
      "- `src/jobs/webhooks.ts`: `processWebhookEvents()` applies up to 20 pending events per run with `FOR UPDATE SKIP LOCKED`, records `attempts`/`last_error`, gives up after 8 attempts.",
      "",
      "The retry test passes now: the second delivery is a no-op insert. Still missing: mounting the route before `express.json()` and scheduling the worker.",
    ),
  });
  s.label(u2a, "approach-a", { after: 6000 });
  s.label(bDone.id, "chosen");

  // --- a third, short branch off bp1: local testing
  s.branch(bp1.id, { after: 30000 });
  s.user("Side question: how do I test webhooks locally without deploying?");
  s.assistant({
    say: L(
      "Use the Stripe CLI to forward events to your dev server:",
      "",
      "```sh",
      "stripe login",
      "stripe listen --forward-to localhost:3000/webhooks/stripe",
      "# prints: Ready! Your webhook signing secret is whsec_... (put it in .env as STRIPE_WEBHOOK_SECRET)",
      "stripe trigger payment_intent.succeeded",
      "```",
      "",
      "`stripe listen` signs every forwarded event with that temporary secret, so the real verification code path runs. `stripe trigger` creates test-mode objects, so the `metadata.orderId` will be missing unless you pass `--add payment_intent:metadata.orderId=...`.",
    ),
  });

  // --- back on branch B: mount, schedule, commit
  s.branch(bDone.id, { after: 45000 });
  s.user("Back to B. Mount the route, run the worker every 5 seconds from the existing scheduler, then commit.");
  s.assistant({
    calls: [
      edit("src/server.ts", 9,
        ["  app.use(pinoHttp({ logger }));\n  app.use(express.json({ limit: \"1mb\" }));",
          "  app.use(pinoHttp({ logger }));\n  // Stripe needs the raw body: mount before the JSON parser.\n  app.use(\"/webhooks\", webhooks);\n  app.use(express.json({ limit: \"1mb\" }));"],
        ["import { router } from \"./routes\";", "import { router } from \"./routes\";\nimport { webhooks } from \"./routes/webhooks\";"],
      ),
      read("src/scheduler.ts", L(
        'import { logger } from "./logger";',
        'import { expireCarts } from "./jobs/carts";',
        "",
        "const every = (ms: number, name: string, job: () => Promise<unknown>) =>",
        "  setInterval(() => job().catch((err) => logger.error({ err, job: name }, \"job failed\")), ms).unref();",
        "",
        "export function startScheduler() {",
        '  every(60_000, "expireCarts", expireCarts);',
        "}",
        "",
      )),
    ],
  });
  s.assistant({
    calls: [
      edit("src/scheduler.ts", 2,
        ['import { expireCarts } from "./jobs/carts";', 'import { expireCarts } from "./jobs/carts";\nimport { processWebhookEvents } from "./jobs/webhooks";'],
        ['  every(60_000, "expireCarts", expireCarts);', '  every(60_000, "expireCarts", expireCarts);\n  every(5_000, "processWebhookEvents", processWebhookEvents);'],
      ),
    ],
  });
  s.assistant({
    calls: [
      bash("npm test --silent && git add -A && git commit -qm \"payments: verify-and-enqueue Stripe webhooks\" && git log --oneline -1", L(
        "",
        " Test Files  19 passed (19)",
        "      Tests  141 passed (141)",
        "   Duration  6.02s",
        "",
        "9c41e7a payments: verify-and-enqueue Stripe webhooks",
        "",
      ), { ms: 9800 }),
    ],
  });
  const shipped = s.assistant({
    say: "Committed as `9c41e7a payments: verify-and-enqueue Stripe webhooks`. The route is mounted at `/webhooks/stripe` before the JSON parser, and the scheduler runs `processWebhookEvents` every 5 s. All 141 tests pass.",
  });
  return { s, shipped };
}

function webshopWebhookTests(w2) {
  // `createBranchedSession` from the commit: a new file with only the root→commit path and
  // `parentSession` pointing at the Stripe session. pi continues in the new file.
  const s = w2.s;
  s.fork(w2.shipped.id, { after: 3 * 3600 * 1000 });
  s.name("Stripe webhooks: worker tests", { after: 1500 });
  s.user(
    "Forked from the webhook session. The worker has no tests for the failure path. Add tests for: retry counting, giving up after 8 attempts, and two workers not processing the same event.",
    { after: 25000 },
  );
  s.assistant({
    think: "Need to look at the existing worker test file and the test DB helpers.",
    calls: [
      read("src/jobs/webhooks.test.ts", L(
        'import { beforeEach, describe, expect, it } from "vitest";',
        'import { db } from "../db";',
        'import { resetDb, insertOrder } from "../../test/db";',
        'import { processWebhookEvents } from "./webhooks";',
        "",
        "describe(\"processWebhookEvents\", () => {",
        "  beforeEach(resetDb);",
        "",
        "  it(\"marks the order paid\", async () => {",
        "    const order = await insertOrder({ status: \"pending\" });",
        "    await insertEvent(\"evt_1\", \"payment_intent.succeeded\", order.id);",
        "    expect(await processWebhookEvents()).toBe(1);",
        "    expect((await getOrder(order.id)).status).toBe(\"paid\");",
        "  });",
        "});",
        "",
      )),
      bash("sed -n '1,30p' test/db.ts", L(
        'import { sql } from "kysely";',
        'import { db } from "../src/db";',
        "",
        "export async function resetDb() {",
        "  await sql`TRUNCATE orders, order_lines, webhook_events RESTART IDENTITY CASCADE`.execute(db);",
        "}",
        "",
        "export async function insertOrder(values: Partial<OrderRow> = {}) {",
        "  return db.insertInto(\"orders\").values({ status: \"pending\", total_cents: 1000, ...values }).returningAll().executeTakeFirstOrThrow();",
        "}",
        "",
      )),
    ],
  });
  s.assistant({
    calls: [
      edit("src/jobs/webhooks.test.ts", 14,
        ["    expect((await getOrder(order.id)).status).toBe(\"paid\");\n  });\n});",
          L(
            "    expect((await getOrder(order.id)).status).toBe(\"paid\");",
            "  });",
            "",
            "  it(\"counts attempts and keeps the error\", async () => {",
            "    await insertEvent(\"evt_2\", \"payment_intent.succeeded\", \"ord_missing\");",
            "    await processWebhookEvents();",
            "    await processWebhookEvents();",
            "    const row = await getEvent(\"evt_2\");",
            "    expect(row.attempts).toBe(2);",
            "    expect(row.last_error).toMatch(/order ord_missing not found/);",
            "    expect(row.processed_at).toBeNull();",
            "  });",
            "",
            "  it(\"gives up after 8 attempts\", async () => {",
            "    await insertEvent(\"evt_3\", \"payment_intent.succeeded\", \"ord_missing\", { attempts: 8 });",
            "    expect(await processWebhookEvents()).toBe(0);",
            "  });",
            "",
            "  it(\"two workers never take the same event\", async () => {",
            "    const order = await insertOrder({ status: \"pending\" });",
            "    await insertEvent(\"evt_4\", \"payment_intent.succeeded\", order.id);",
            "    const [a, b] = await Promise.all([processWebhookEvents(), processWebhookEvents()]);",
            "    expect(a + b).toBe(1);",
            "  });",
            "});",
          )],
      ),
    ],
  });
  s.assistant({
    calls: [
      bash("npx vitest run src/jobs/webhooks.test.ts", L(
        "",
        " RUN  v1.6.0 /home/demo/webshop",
        "",
        " ❯ src/jobs/webhooks.test.ts (4 tests | 3 failed) 97ms",
        "   ✓ processWebhookEvents > marks the order paid",
        "   × processWebhookEvents > counts attempts and keeps the error",
        "     → insertEvent is not defined",
        "   × processWebhookEvents > gives up after 8 attempts",
        "     → insertEvent is not defined",
        "   × processWebhookEvents > two workers never take the same event",
        "     → insertEvent is not defined",
        "",
        " Test Files  1 failed (1)",
        "      Tests  3 failed | 1 passed (4)",
      ), { exit: 1, ms: 2900 }),
    ],
  });
  s.assistant({
    say: "The helpers `insertEvent`, `getEvent` and `getOrder` don't exist yet (the first test only passed because vitest hoisted a stale mock). Adding them to `test/db.ts`:",
    calls: [
      edit("test/db.ts", 11,
        ["  return db.insertInto(\"orders\").values({ status: \"pending\", total_cents: 1000, ...values }).returningAll().executeTakeFirstOrThrow();\n}",
          L(
            "  return db.insertInto(\"orders\").values({ status: \"pending\", total_cents: 1000, ...values }).returningAll().executeTakeFirstOrThrow();",
            "}",
            "",
            "export async function insertEvent(id: string, type: string, orderId: string, extra: { attempts?: number } = {}) {",
            "  const payload = { id, type, data: { object: { id: `pi_${id}`, metadata: { orderId }, amount_refunded: 0 } } };",
            "  await db.insertInto(\"webhook_events\").values({ stripe_event_id: id, type, payload: JSON.stringify(payload), ...extra }).execute();",
            "}",
            "",
            "export const getEvent = (id: string) =>",
            "  db.selectFrom(\"webhook_events\").selectAll().where(\"stripe_event_id\", \"=\", id).executeTakeFirstOrThrow();",
            "",
            "export const getOrder = (id: string) => db.selectFrom(\"orders\").selectAll().where(\"id\", \"=\", id).executeTakeFirstOrThrow();",
          )],
      ),
      edit("src/jobs/webhooks.test.ts", 3,
        ['import { resetDb, insertOrder } from "../../test/db";', 'import { getEvent, getOrder, insertEvent, insertOrder, resetDb } from "../../test/db";'],
      ),
    ],
  });
  const pass = s.assistant({
    calls: [
      bash("npx vitest run src/jobs/webhooks.test.ts", L(
        "",
        " RUN  v1.6.0 /home/demo/webshop",
        "",
        " ✓ src/jobs/webhooks.test.ts (4 tests) 142ms",
        "",
        " Test Files  1 passed (1)",
        "      Tests  4 passed (4)",
        "   Duration  903ms",
      ), { ms: 2700 }),
    ],
  });
  s.assistant({
    say: L(
      "All four worker tests pass:",
      "",
      "- **retry counting**: a missing order increments `attempts` and stores `last_error`, and the event stays pending;",
      "- **give up**: events with 8 attempts are no longer selected;",
      "- **concurrency**: two concurrent `processWebhookEvents()` calls process the event exactly once, thanks to `SKIP LOCKED`.",
      "",
      "New helpers `insertEvent`, `getEvent` and `getOrder` are in `test/db.ts`.",
    ),
  });
  s.label(pass.last, "worker-tests-green");
  return s;
}

function webshopSlowBuild(stage) {
  const s = new Demo(stage, {
    cwd: WEBSHOP,
    start: "2025-06-20T16:22:03.000Z",
    model: "openai/gpt-5.1-codex",
    thinking: "high",
  });
  s.user("`npm run build` takes almost 3 minutes on CI now, it used to be ~40 s. What happened?", { after: 14000 });
  s.assistant({
    think: "Check the build script, then time the parts. tsc vs vite.",
    calls: [
      bash("jq .scripts package.json", L(
        "{",
        "  \"dev\": \"tsx watch src/main.ts\",",
        "  \"build\": \"npm run build:server && npm run build:web\",",
        "  \"build:server\": \"tsc -p tsconfig.build.json\",",
        "  \"build:web\": \"vite build web\",",
        "  \"test\": \"vitest run\",",
        "  \"db:migrate\": \"kysely migrate:latest\"",
        "}",
      )),
    ],
  });
  s.assistant({
    calls: [
      bash("time npx tsc -p tsconfig.build.json --extendedDiagnostics | grep -E 'Files|Lines|Check time|Total time'", L(
        "Files:                        4127",
        "Lines of TypeScript:        318554",
        "Check time:                 71.42s",
        "Total time:                 79.88s",
        "",
        "real\t1m20.771s",
        "user\t1m49.215s",
        "sys\t0m3.870s",
      ), { ms: 81000 }),
    ],
  });
  s.assistant({
    think: "4127 files for a server build is a lot. Something pulls web/ or node_modules type sources into the program. Check which files are included.",
    calls: [
      bash("npx tsc -p tsconfig.build.json --listFilesOnly | sed 's|/home/demo/webshop/||' | cut -d/ -f1-2 | sort | uniq -c | sort -rn | head -8", L(
        "   2614 node_modules/@aws-sdk",
        "    611 node_modules/@types",
        "    402 web/src",
        "    231 src/routes",
        "    118 node_modules/stripe",
        "     64 src/jobs",
        "     41 src/cart",
        "     22 node_modules/kysely",
      ), { ms: 9000 }),
    ],
  });
  s.assistant({
    calls: [
      read("tsconfig.build.json", L(
        "{",
        "  \"extends\": \"./tsconfig.json\",",
        "  \"compilerOptions\": {",
        "    \"outDir\": \"dist\",",
        "    \"noEmit\": false",
        "  },",
        "  \"include\": [\"src\", \"web/src/shared\"]",
        "}",
        "",
      )),
      bash("git log -S'@aws-sdk' --oneline -- package.json src | head -3; rg -n \"from \\\"@aws-sdk\" src | head", L(
        "b7e20d1 images: upload product photos to S3",
        "src/images/upload.ts:1:import * as AWS from \"@aws-sdk/client-s3\";",
        "src/images/upload.ts:2:import { getSignedUrl } from \"@aws-sdk/s3-request-presigner\";",
        "",
      )),
    ],
  });
  s.assistant({
    say: L(
      "Two causes:",
      "",
      "1. **`import * as AWS from \"@aws-sdk/client-s3\"`** in `src/images/upload.ts` (commit `b7e20d1`) makes tsc type-check 2 614 files of the AWS SDK: about 60 % of the check time.",
      "2. **`web/src/shared` in `include`** pulls 402 web files, including React components, into the server build.",
      "",
      "Fixes, in order of payoff:",
      "",
      "- import only what you use (`import { S3Client, PutObjectCommand } from \"@aws-sdk/client-s3\"`) and set `\"skipLibCheck\": true`;",
      "- move the shared types to `packages/shared` or include only `web/src/shared/types.ts`.",
    ),
  });
  s.user("Do both. And switch to claude for the rest, I want to compare.");
  s.setModel("anthropic/claude-sonnet-4-5");
  s.thinkingLevel("low");
  s.assistant({
    think: "Edit the import and the tsconfig.",
    calls: [
      edit("src/images/upload.ts", 1,
        ['import * as AWS from "@aws-sdk/client-s3";', 'import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";'],
        ["const s3 = new AWS.S3Client({ region: env.AWS_REGION });", "const s3 = new S3Client({ region: env.AWS_REGION });"],
        ["  await s3.send(new AWS.PutObjectCommand({", "  await s3.send(new PutObjectCommand({"],
      ),
      edit("tsconfig.build.json", 3,
        ["  \"compilerOptions\": {\n    \"outDir\": \"dist\",\n    \"noEmit\": false\n  },\n  \"include\": [\"src\", \"web/src/shared\"]",
          "  \"compilerOptions\": {\n    \"outDir\": \"dist\",\n    \"noEmit\": false,\n    \"skipLibCheck\": true\n  },\n  \"include\": [\"src\", \"web/src/shared/types.ts\"]"],
      ),
    ],
  });
  s.assistant({
    calls: [
      bash("time npm run build --silent 2>&1 | tail -4", L(
        "vite v5.2.11 building for production...",
        "✓ 1184 modules transformed.",
        "dist/web/assets/index-3f9c2a1b.js   412.77 kB │ gzip: 131.20 kB",
        "✓ built in 14.31s",
        "",
        "real\t0m33.508s",
        "user\t0m51.902s",
        "sys\t0m2.716s",
      ), { ms: 33500 }),
    ],
  });
  s.assistant({
    say: "The full build is down to **33.5 s** (from ~2 min 50 s on CI): `tsc` now checks 1 209 files in about 17 s, and `vite build` takes 14 s. `skipLibCheck` only skips checking `.d.ts` files, so your own code is checked as strictly as before.",
  });
  return s;
}

// ---------------------------------------------------------------------------------------------
// /home/demo/rust-cli  (a log slicing tool called logslice)

const RUSTCLI = "/home/demo/rust-cli";

const CARGO_TOML = L(
  "[package]",
  'name = "logslice"',
  'version = "0.3.1"',
  'edition = "2021"',
  'description = "Cut log files down to the lines you care about"',
  'license = "MIT"',
  "",
  "[dependencies]",
  'anyhow = "1.0"',
  'clap = { version = "4.5", features = ["derive"] }',
  'memchr = "2.7"',
  'regex = "1.10"',
  "",
  "[dev-dependencies]",
  'assert_cmd = "2.0"',
  'predicates = "3.1"',
  "",
);

const CLI_RS = L(
  "use std::path::PathBuf;",
  "",
  "use clap::Parser;",
  "",
  "/// Cut log files down to the lines you care about.",
  "#[derive(Parser, Debug)]",
  "#[command(version, about)]",
  "pub struct Args {",
  "    /// Log files to read (`-` for stdin)",
  "    #[arg(required = true)]",
  "    pub files: Vec<PathBuf>,",
  "",
  "    /// Only keep lines at or above this level (trace, debug, info, warn, error)",
  "    #[arg(short, long)]",
  "    pub level: Option<String>,",
  "",
  "    /// Only keep lines matching this regex",
  "    #[arg(short = 'e', long)]",
  "    pub grep: Option<String>,",
  "}",
  "",
);

const FILTER_RS = L(
  "use regex::Regex;",
  "",
  "use crate::parse::{Level, LogLine};",
  "",
  "pub struct Filter {",
  "    pub min_level: Option<Level>,",
  "    pub pattern: Option<Regex>,",
  "}",
  "",
  "impl Filter {",
  "    pub fn keep(&self, line: &LogLine<'_>) -> bool {",
  "        if let (Some(min), Some(level)) = (self.min_level, line.level) {",
  "            if level < min {",
  "                return false;",
  "            }",
  "        }",
  "        if let Some(re) = &self.pattern {",
  "            if !re.is_match(line.raw) {",
  "                return false;",
  "            }",
  "        }",
  "        true",
  "    }",
  "}",
  "",
);

function rustTimeFilters(stage) {
  const s = new Demo(stage, {
    cwd: RUSTCLI,
    start: "2025-06-23T09:02:11.000Z",
    model: "anthropic/claude-sonnet-4-5",
    thinking: "medium",
  });

  // 1. plan
  s.user(
    "I want `logslice --since 10:00 --until 10:30 app.log` to only print lines in that time range. Have a look at the code and propose a plan before changing anything.",
    { after: 23000 },
  );
  s.assistant({
    think: "Read the manifest, the CLI definition and the filter, and check how lines are parsed.",
    calls: [read("Cargo.toml", CARGO_TOML), read("src/cli.rs", CLI_RS), read("src/filter.rs", FILTER_RS)],
  });
  s.assistant({
    calls: [
      bash("rg -n \"pub (fn|struct|enum)\" src/parse.rs && cargo test 2>&1 | tail -4", L(
        "src/parse.rs:6:pub enum Level {",
        "src/parse.rs:15:pub struct LogLine<'a> {",
        "src/parse.rs:22:pub fn parse_line(raw: &str) -> LogLine<'_> {",
        "",
        "test result: ok. 11 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
        "",
        "test result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.21s",
      ), { ms: 14000 }),
      read("src/parse.rs", L(
        "use std::str::FromStr;",
        "",
        "/// Log levels, ordered from least to most severe.",
        "#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]",
        "pub enum Level {",
        "    Trace,",
        "    Debug,",
        "    Info,",
        "    Warn,",
        "    Error,",
        "}",
        "",
        "/// One physical line of a log file.",
        "pub struct LogLine<'a> {",
        "    pub raw: &'a str,",
        "    /// The leading RFC 3339 timestamp, as written",
        "    pub timestamp: Option<&'a str>,",
        "    pub level: Option<Level>,",
        "}",
        "",
        "pub fn parse_line(raw: &str) -> LogLine<'_> {",
        "    let mut fields = raw.splitn(3, ' ');",
        "    let timestamp = fields.next().filter(|t| t.len() >= 20 && t.as_bytes()[4] == b'-');",
        "    let level = fields.next().and_then(|l| Level::from_str(l.trim()).ok());",
        "    LogLine { raw, timestamp, level }",
        "}",
        "",
      )),
    ],
  });
  const plan = s.assistant({
    say: L(
      "Plan:",
      "",
      "1. **Time arguments**: add `--since`/`--until` to `Args`, parsed by a new `src/time.rs` that accepts `HH:MM[:SS]` (today), full RFC 3339, and relative times like `-15m` or `-2h`. Use `chrono` for the date math.",
      "2. **Parse the timestamp**: `LogLine::timestamp` is only the raw `&str` today; parse it lazily into a `DateTime<Utc>` only when a time filter is active, so the plain `--level` path stays fast.",
      "3. **Filter**: `Filter` gets `since`/`until` (half-open range `[since, until)`).",
      "4. **Lines without a timestamp** (stack traces, wrapped messages): decide whether they follow the previous line. I'd say yes.",
      "5. Tests for each step, then a benchmark on a large file.",
      "",
      "The existing suite is green (11 unit + 4 CLI tests), so we have a baseline.",
    ),
  });
  s.label(plan.id, "plan");
  s.name("logslice: --since/--until time filters");

  // 2. time arguments
  s.user("Sounds good. Do step 1.");
  s.assistant({
    calls: [bash("cargo add chrono --no-default-features --features clock,std", L(
      "    Updating crates.io index",
      "      Adding chrono v0.4.38 to dependencies",
      "             Features:",
      "             + clock",
      "             + std",
      "             - alloc",
      "             - serde",
      "             - unstable-locales",
      "             - wasmbind",
      "    Updating crates.io index",
      "     Locking 3 packages to latest compatible versions",
      "      Adding iana-time-zone v0.1.60",
      "      Adding num-traits v0.2.19",
    ), { ms: 2400 })],
  });
  const TIME_RS = L(
    "//! Parsing of `--since` / `--until` values.",
    "",
    "use anyhow::{bail, Context, Result};",
    "use chrono::{DateTime, Duration, Local, NaiveTime, TimeZone, Utc};",
    "",
    "/// Parse a time argument relative to `now`.",
    "///",
    "/// Accepted forms: `10:30`, `10:30:15` (today, local time), RFC 3339",
    "/// (`2025-06-23T10:30:00Z`), and relative offsets such as `-15m`, `-2h`, `-1d`.",
    "pub fn parse_time_arg(s: &str, now: DateTime<Local>) -> Result<DateTime<Utc>> {",
    "    let s = s.trim();",
    "    if let Some(rel) = s.strip_prefix('-') {",
    "        return Ok((now - parse_duration(rel)?).with_timezone(&Utc));",
    "    }",
    "    if let Ok(t) = DateTime::parse_from_rfc3339(s) {",
    "        return Ok(t.with_timezone(&Utc));",
    "    }",
    "    let time = NaiveTime::parse_from_str(s, \"%H:%M:%S\")",
    "        .or_else(|_| NaiveTime::parse_from_str(s, \"%H:%M\"))",
    "        .with_context(|| format!(\"invalid time {s:?}: expected HH:MM, RFC 3339 or -15m\"))?;",
    "    let local = Local",
    "        .from_local_datetime(&now.date_naive().and_time(time))",
    "        .single()",
    "        .context(\"ambiguous local time (DST change)\")?;",
    "    Ok(local.with_timezone(&Utc))",
    "}",
    "",
    "fn parse_duration(s: &str) -> Result<Duration> {",
    "    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));",
    "    let n: i64 = num.parse().with_context(|| format!(\"invalid duration {s:?}\"))?;",
    "    Ok(match unit {",
    "        \"s\" => Duration::seconds(n),",
    "        \"m\" => Duration::minutes(n),",
    "        \"h\" => Duration::hours(n),",
    "        \"d\" => Duration::days(n),",
    "        _ => bail!(\"invalid duration unit in {s:?}: use s, m, h or d\"),",
    "    })",
    "}",
    "",
  );
  s.assistant({
    calls: [
      write("src/time.rs", TIME_RS),
      edit("src/cli.rs", 18,
        ["    #[arg(short = 'e', long)]\n    pub grep: Option<String>,\n}",
          L(
            "    #[arg(short = 'e', long)]",
            "    pub grep: Option<String>,",
            "",
            "    /// Only keep lines at or after this time (10:30, RFC 3339, or -15m)",
            "    #[arg(long)]",
            "    pub since: Option<String>,",
            "",
            "    /// Only keep lines before this time",
            "    #[arg(long)]",
            "    pub until: Option<String>,",
            "}",
          )],
      ),
      edit("src/main.rs", 1, ["mod cli;\nmod filter;\nmod parse;", "mod cli;\nmod filter;\nmod parse;\nmod time;"]),
    ],
  });
  s.assistant({
    calls: [bash("cargo build 2>&1 | tail -20", L(
      "   Compiling num-traits v0.2.19",
      "   Compiling iana-time-zone v0.1.60",
      "   Compiling chrono v0.4.38",
      "   Compiling logslice v0.3.1 (/home/demo/rust-cli)",
      "warning: function `parse_time_arg` is never used",
      "  --> src/time.rs:10:8",
      "   |",
      "10 | pub fn parse_time_arg(s: &str, now: DateTime<Local>) -> Result<DateTime<Utc>> {",
      "   |        ^^^^^^^^^^^^^^",
      "   |",
      "   = note: `#[warn(dead_code)]` on by default",
      "",
      "error[E0599]: no method named `with_context` found for enum `Result` in the current scope",
      "  --> src/time.rs:20:10",
      "   |",
      "20 |         .with_context(|| format!(\"invalid time {s:?}: expected HH:MM, RFC 3339 or -15m\"))?;",
      "   |          ^^^^^^^^^^^^ method not found in `Result<NaiveTime, ParseError>`",
      "   |",
      "   = help: items from traits can only be used if the trait is in scope",
      "",
      "error: could not compile `logslice` (bin \"logslice\") due to 1 previous error; 1 warning emitted",
    ), { exit: 101, ms: 9800 })],
  });
  s.assistant({
    think: "Context is imported... wait, it's imported from anyhow. The issue: the `or_else` chain returns Result<NaiveTime, ParseError>; Context is implemented for Result<T, E: std::error::Error + Send + Sync>. ParseError implements Error. Hmm, unless the anyhow import line is wrong — `use anyhow::{bail, Context, Result};` is right. Oh: chrono was added with --no-default-features, and without `std` ParseError doesn't implement std::error::Error. I did pass std... let me check Cargo.toml.",
    calls: [bash("grep chrono Cargo.toml", "chrono = { version = \"0.4.38\", default-features = false, features = [\"clock\"] }\n")],
  });
  s.assistant({
    say: "`cargo add` dropped the `std` feature (it's implied by `clock` in the docs but not in the manifest), so `chrono::ParseError` doesn't implement `std::error::Error` and anyhow's `Context` doesn't apply. Adding it explicitly:",
    calls: [
      edit("Cargo.toml", 10, ['chrono = { version = "0.4.38", default-features = false, features = ["clock"] }', 'chrono = { version = "0.4.38", default-features = false, features = ["clock", "std"] }']),
    ],
  });
  s.assistant({
    calls: [bash("cargo build 2>&1 | tail -3", L(
      "   Compiling chrono v0.4.38",
      "   Compiling logslice v0.3.1 (/home/demo/rust-cli)",
      "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 4.61s",
    ), { ms: 4900 })],
  });
  s.assistant({
    say: "Step 1 builds: `src/time.rs` has `parse_time_arg` (clock times, RFC 3339, `-15m`-style offsets) and `Args` has `--since`/`--until`. They are not wired into the filter yet, hence the dead-code warning.",
  });

  // 3. unit tests for the parser
  s.user("Add unit tests for the time parser first, including the relative forms and bad input.");
  s.assistant({
    calls: [
      edit("src/time.rs", 39,
        ["        _ => bail!(\"invalid duration unit in {s:?}: use s, m, h or d\"),\n    })\n}",
          L(
            "        _ => bail!(\"invalid duration unit in {s:?}: use s, m, h or d\"),",
            "    })",
            "}",
            "",
            "#[cfg(test)]",
            "mod tests {",
            "    use super::*;",
            "",
            "    fn now() -> DateTime<Local> {",
            "        Local.with_ymd_and_hms(2025, 6, 23, 12, 0, 0).unwrap()",
            "    }",
            "",
            "    #[test]",
            "    fn clock_time_is_today() {",
            "        let t = parse_time_arg(\"10:30\", now()).unwrap();",
            "        assert_eq!(t.with_timezone(&Local).format(\"%F %T\").to_string(), \"2025-06-23 10:30:00\");",
            "    }",
            "",
            "    #[test]",
            "    fn rfc3339() {",
            "        let t = parse_time_arg(\"2025-06-23T08:15:00Z\", now()).unwrap();",
            "        assert_eq!(t.to_rfc3339(), \"2025-06-23T08:15:00+00:00\");",
            "    }",
            "",
            "    #[test]",
            "    fn relative() {",
            "        assert_eq!(parse_time_arg(\"-15m\", now()).unwrap(), (now() - Duration::minutes(15)).with_timezone(&Utc));",
            "        assert_eq!(parse_time_arg(\"-2h\", now()).unwrap(), (now() - Duration::hours(2)).with_timezone(&Utc));",
            "        assert_eq!(parse_time_arg(\"-1h30m\", now()).unwrap(), (now() - Duration::minutes(90)).with_timezone(&Utc));",
            "    }",
            "",
            "    #[test]",
            "    fn rejects_garbage() {",
            "        assert!(parse_time_arg(\"25:00\", now()).is_err());",
            "        assert!(parse_time_arg(\"-15x\", now()).is_err());",
            "        assert!(parse_time_arg(\"yesterday\", now()).is_err());",
            "    }",
            "}",
          )],
      ),
    ],
  });
  s.assistant({
    calls: [bash("cargo test time:: 2>&1 | tail -18", L(
      "running 4 tests",
      "test time::tests::clock_time_is_today ... ok",
      "test time::tests::rejects_garbage ... ok",
      "test time::tests::rfc3339 ... ok",
      "test time::tests::relative ... FAILED",
      "",
      "failures:",
      "",
      "---- time::tests::relative stdout ----",
      "thread 'time::tests::relative' panicked at src/time.rs:69:44:",
      "called `Result::unwrap()` on an `Err` value: invalid duration unit in \"1h30m\": use s, m, h or d",
      "",
      "failures:",
      "    time::tests::relative",
      "",
      "test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 11 filtered out; finished in 0.00s",
    ), { exit: 101, ms: 6100 })],
  });
  s.assistant({
    think: "I wrote a test for compound durations that the parser doesn't support. Supporting `1h30m` is nicer than dropping the test: loop over number+unit pairs.",
    say: "Compound offsets like `-1h30m` aren't supported yet; that's worth having. Making `parse_duration` accept a sequence of `<number><unit>` parts:",
    calls: [
      edit("src/time.rs", 29,
        [L(
          "fn parse_duration(s: &str) -> Result<Duration> {",
          "    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));",
          "    let n: i64 = num.parse().with_context(|| format!(\"invalid duration {s:?}\"))?;",
          "    Ok(match unit {",
          "        \"s\" => Duration::seconds(n),",
          "        \"m\" => Duration::minutes(n),",
          "        \"h\" => Duration::hours(n),",
          "        \"d\" => Duration::days(n),",
          "        _ => bail!(\"invalid duration unit in {s:?}: use s, m, h or d\"),",
          "    })",
          "}",
        ), L(
          "fn parse_duration(s: &str) -> Result<Duration> {",
          "    let mut total = Duration::zero();",
          "    let mut rest = s;",
          "    if rest.is_empty() {",
          "        bail!(\"empty duration\");",
          "    }",
          "    while !rest.is_empty() {",
          "        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());",
          "        let n: i64 = rest[..digits].parse().with_context(|| format!(\"invalid duration {s:?}\"))?;",
          "        let unit = rest[digits..].chars().next().with_context(|| format!(\"missing unit in {s:?}\"))?;",
          "        total = total",
          "            + match unit {",
          "                's' => Duration::seconds(n),",
          "                'm' => Duration::minutes(n),",
          "                'h' => Duration::hours(n),",
          "                'd' => Duration::days(n),",
          "                _ => bail!(\"invalid duration unit in {s:?}: use s, m, h or d\"),",
          "            };",
          "        rest = &rest[digits + 1..];",
          "    }",
          "    Ok(total)",
          "}",
        )],
      ),
    ],
  });
  s.assistant({
    calls: [bash("cargo test time:: 2>&1 | tail -8", L(
      "running 4 tests",
      "test time::tests::clock_time_is_today ... ok",
      "test time::tests::rejects_garbage ... ok",
      "test time::tests::relative ... ok",
      "test time::tests::rfc3339 ... ok",
      "",
      "test result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 11 filtered out; finished in 0.00s",
    ), { ms: 5200 })],
  });
  s.assistant({ say: "All 4 parser tests pass, and `-1h30m` style offsets now work too." });

  // 4. wire into the filter
  s.user("Now wire it into the filter, with an integration test.");
  s.assistant({
    think: "Filter gets since/until: Option<DateTime<Utc>>. Parse the line timestamp only when one is set. main.rs builds the Filter.",
    calls: [
      edit("src/filter.rs", 1,
        ["use regex::Regex;\n\nuse crate::parse::{Level, LogLine};", "use chrono::{DateTime, Utc};\nuse regex::Regex;\n\nuse crate::parse::{Level, LogLine};"],
        ["    pub pattern: Option<Regex>,\n}", "    pub pattern: Option<Regex>,\n    /// Half-open time range `[since, until)`\n    pub since: Option<DateTime<Utc>>,\n    pub until: Option<DateTime<Utc>>,\n}"],
        ["        true\n    }\n}", L(
          "        if self.since.is_some() || self.until.is_some() {",
          "            let Some(t) = line.timestamp.and_then(|t| DateTime::parse_from_rfc3339(t).ok()) else {",
          "                return false;",
          "            };",
          "            let t = t.with_timezone(&Utc);",
          "            if self.since.is_some_and(|s| t < s) || self.until.is_some_and(|u| t >= u) {",
          "                return false;",
          "            }",
          "        }",
          "        true",
          "    }",
          "}",
        )],
      ),
      read("src/main.rs", L(
        "mod cli;",
        "mod filter;",
        "mod parse;",
        "mod time;",
        "",
        "use std::io::{self, BufRead, BufWriter, Write};",
        "",
        "use anyhow::Result;",
        "use clap::Parser;",
        "",
        "fn main() -> Result<()> {",
        "    let args = cli::Args::parse();",
        "    let filter = filter::Filter {",
        "        min_level: args.level.as_deref().map(str::parse).transpose()?,",
        "        pattern: args.grep.as_deref().map(regex::Regex::new).transpose()?,",
        "    };",
        "    let stdout = io::stdout();",
        "    let mut out = BufWriter::new(stdout.lock());",
        "    for path in &args.files {",
        "        for line in open(path)?.lines() {",
        "            let line = line?;",
        "            if filter.keep(&parse::parse_line(&line)) {",
        "                writeln!(out, \"{line}\")?;",
        "            }",
        "        }",
        "    }",
        "    Ok(())",
        "}",
        "",
      )),
    ],
  });
  s.assistant({
    calls: [
      edit("src/main.rs", 13,
        ["        pattern: args.grep.as_deref().map(regex::Regex::new).transpose()?,\n    };",
          "        pattern: args.grep.as_deref().map(regex::Regex::new).transpose()?,\n        since: args.since.as_deref().map(|s| time::parse_time_arg(s, chrono::Local::now())).transpose()?,\n        until: args.until.as_deref().map(|s| time::parse_time_arg(s, chrono::Local::now())).transpose()?,\n    };"],
      ),
      edit("tests/cli.rs", 40,
        ["}\n", L(
          "}",
          "",
          "#[test]",
          "fn since_until_keeps_the_range() {",
          "    Command::cargo_bin(\"logslice\")",
          "        .unwrap()",
          "        .args([\"--since\", \"2025-06-23T10:00:00Z\", \"--until\", \"2025-06-23T10:01:00Z\", \"tests/data/small.log\"])",
          "        .assert()",
          "        .success()",
          "        .stdout(predicates::str::contains(\"10:00:59.998Z INFO  request done\"))",
          "        .stdout(predicates::str::contains(\"09:59:59\").not())",
          "        .stdout(predicates::str::contains(\"10:01:00.000Z\").not());",
          "}",
          "",
        )],
      ),
    ],
  });
  s.assistant({
    calls: [bash("cargo test 2>&1 | grep -E '^test |test result'", L(
      "test parse::tests::level_order ... ok",
      "test parse::tests::parses_level ... ok",
      "test parse::tests::timestamp_needs_date ... ok",
      "test time::tests::clock_time_is_today ... ok",
      "test time::tests::rejects_garbage ... ok",
      "test time::tests::relative ... ok",
      "test time::tests::rfc3339 ... ok",
      "test result: ok. 15 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
      "test grep_filters ... ok",
      "test level_filters ... ok",
      "test multiple_files ... ok",
      "test since_until_keeps_the_range ... ok",
      "test stdin_dash ... ok",
      "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.34s",
    ), { ms: 11000 })],
  });
  s.assistant({ say: "Wired in: `Filter` has a half-open `[since, until)` range and parses a line's timestamp only when a time filter is set. The new CLI test `since_until_keeps_the_range` passes along with the other 19 tests." });

  // 5. try it for real
  s.user("Try it on logs/sample.log from 10:00 to 10:02.");
  s.assistant({
    calls: [bash("cargo run -q -- --since 2025-06-23T10:00:00Z --until 2025-06-23T10:02:00Z logs/sample.log | head -12", L(
      "2025-06-23T10:00:00.412Z INFO  http: GET /api/orders 200 12ms",
      "2025-06-23T10:00:01.038Z INFO  http: GET /api/products?page=2 200 31ms",
      "2025-06-23T10:00:03.771Z WARN  db: slow query (812ms): SELECT * FROM orders WHERE customer_id = $1",
      "2025-06-23T10:00:07.102Z ERROR worker: job 88123 failed: connection reset by peer",
      "2025-06-23T10:00:07.640Z INFO  worker: retrying job 88123 (attempt 2/5)",
      "2025-06-23T10:00:12.950Z INFO  http: POST /api/checkout 201 88ms",
      "2025-06-23T10:00:15.004Z ERROR http: GET /api/orders/991 500 4ms",
      "2025-06-23T10:00:15.310Z INFO  http: GET /healthz 200 0ms",
      "2025-06-23T10:00:31.228Z INFO  http: GET /api/orders 200 9ms",
      "2025-06-23T10:00:44.871Z DEBUG cache: evicted 212 entries",
      "2025-06-23T10:01:02.117Z INFO  http: GET /api/products 200 22ms",
      "2025-06-23T10:01:20.693Z WARN  http: client closed connection early",
    ), { ms: 900 })],
  });
  s.assistant({ say: "Works on the sample: 12 of the 47 lines in that window shown above, with nothing outside 10:00–10:02." });
  s.user("The 500 at 10:00:15 had a stack trace in the file, it's gone in the output. Lines without a timestamp should stay with the line before them.", { after: 52000 });
  s.assistant({
    think: "Continuation lines: a line with no timestamp inherits the keep/drop decision of the previous timestamped line. That needs state in the loop, so Filter::keep can't stay a pure per-line function. Add a small stateful wrapper.",
    calls: [bash("sed -n '/10:00:15.004/,/10:00:15.310/p' logs/sample.log", L(
      "2025-06-23T10:00:15.004Z ERROR http: GET /api/orders/991 500 4ms",
      "Error: order 991 not found",
      "    at OrderRepo.get (/srv/app/src/orders/repo.ts:44:11)",
      "    at async handler (/srv/app/src/routes/orders.ts:19:17)",
      "2025-06-23T10:00:15.310Z INFO  http: GET /healthz 200 0ms",
    ))],
  });
  s.assistant({
    calls: [
      edit("src/filter.rs", 26,
        ["        true\n    }\n}", L(
          "        true",
          "    }",
          "}",
          "",
          "/// Applies a [`Filter`] line by line. Lines without a timestamp (stack traces,",
          "/// wrapped messages) share the decision of the last line that had one.",
          "pub struct Slicer {",
          "    filter: Filter,",
          "    keep_continuation: bool,",
          "}",
          "",
          "impl Slicer {",
          "    pub fn new(filter: Filter) -> Self {",
          "        Self { filter, keep_continuation: false }",
          "    }",
          "",
          "    pub fn keep(&mut self, line: &LogLine<'_>) -> bool {",
          "        if line.timestamp.is_none() {",
          "            return self.keep_continuation;",
          "        }",
          "        let keep = self.filter.keep(line);",
          "        self.keep_continuation = keep;",
          "        keep",
          "    }",
          "}",
        )],
      ),
      edit("src/main.rs", 13,
        ["    let filter = filter::Filter {", "    let mut slicer = filter::Slicer::new(filter::Filter {"],
        ["    };\n    let stdout", "    });\n    let stdout"],
        ["            if filter.keep(&parse::parse_line(&line)) {", "            if slicer.keep(&parse::parse_line(&line)) {"],
      ),
    ],
  });
  s.assistant({
    calls: [bash("cargo test 2>&1 | grep -E 'test result|FAILED|panicked'", L(
      "test result: ok. 15 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
      "test level_filters ... FAILED",
      "thread 'level_filters' panicked at tests/cli.rs:21:10:",
      "Unexpected stdout, failed var.contains(\"Caused by\") == false",
      "test result: FAILED. 4 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.31s",
    ), { exit: 101, ms: 10500 })],
  });
  s.assistant({
    think: "level_filters: `--level error` used to drop the continuation lines of a WARN line? The test asserts that 'Caused by' (continuation of a dropped WARN line) is not printed. With the new logic it inherits the WARN decision (drop) ... but the failure says contains Caused by == false, i.e. it is now printed. Because the first line of the file has no timestamp? No — keep_continuation starts false. Let me look at the test data.",
    calls: [bash("grep -n -B2 'Caused by' tests/data/small.log", L(
      "6-2025-06-23T09:59:58.120Z ERROR db: pool exhausted",
      "7-java.sql.SQLTransientConnectionException: timeout after 30000ms",
      "8:Caused by: java.net.SocketTimeoutException: connect timed out",
    ))],
  });
  s.assistant({
    say: "The old test was asserting the *old* behaviour: `--level error` printed the ERROR line but dropped its `Caused by:` continuation. With continuation lines following their parent, the trace is now printed, which is what you asked for, so the test expectation is wrong, not the code. Updating it:",
    calls: [
      edit("tests/cli.rs", 18,
        ["        .stdout(predicates::str::contains(\"Caused by\").not());", "        // continuation lines follow the ERROR line they belong to\n        .stdout(predicates::str::contains(\"Caused by: java.net.SocketTimeoutException\"));"],
      ),
    ],
  });
  const contGreen = s.assistant({
    calls: [bash("cargo test 2>&1 | grep 'test result'; cargo run -q -- --since 2025-06-23T10:00:15Z --until 2025-06-23T10:00:16Z logs/sample.log", L(
      "test result: ok. 15 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
      "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.33s",
      "2025-06-23T10:00:15.004Z ERROR http: GET /api/orders/991 500 4ms",
      "Error: order 991 not found",
      "    at OrderRepo.get (/srv/app/src/orders/repo.ts:44:11)",
      "    at async handler (/srv/app/src/routes/orders.ts:19:17)",
      "2025-06-23T10:00:15.310Z INFO  http: GET /healthz 200 0ms",
    ), { ms: 11800 })],
  });
  s.label(contGreen.last, "continuation-lines");
  s.assistant({
    say: "Stack traces now stay with their line: a new `Slicer` in `src/filter.rs` remembers the decision for the last timestamped line and applies it to the lines without a timestamp. The 500 at 10:00:15 is printed with its three trace lines. I also fixed the `level_filters` test, which had asserted the old behaviour.",
  });

  // 6. clap and hyphen values (with an aborted answer)
  const u6 = s.user("`cargo run -- --since -15m logs/sample.log` says error: unexpected argument '-1' found.", { after: 64000 });
  s.assistant({
    think: "clap treats -15m as a short flag cluster. allow_hyphen_values on since/until, or allow_negative_numbers (doesn't apply, 15m isn't a number).",
    say: "clap sees `-15m` as a bundle of short flags. The fix is `allow_hyphen_values = true` on both args, so",
    stopReason: "aborted",
  });
  s.user("sorry, hit Esc by accident. go on", { after: 9000 });
  s.assistant({
    calls: [
      edit("src/cli.rs", 22,
        ["    /// Only keep lines at or after this time (10:30, RFC 3339, or -15m)\n    #[arg(long)]", "    /// Only keep lines at or after this time (10:30, RFC 3339, or -15m)\n    #[arg(long, allow_hyphen_values = true)]"],
        ["    /// Only keep lines before this time\n    #[arg(long)]", "    /// Only keep lines before this time\n    #[arg(long, allow_hyphen_values = true)]"],
      ),
    ],
  });
  s.assistant({
    calls: [bash("cargo run -q -- --since -15m --level warn logs/live.log | tail -3; echo exit=$?", L(
      "2025-06-23T09:41:07.338Z WARN  http: client closed connection early",
      "2025-06-23T09:44:51.902Z ERROR worker: job 90417 failed: deadline exceeded",
      "2025-06-23T09:49:30.015Z WARN  db: slow query (1204ms): UPDATE carts SET expires_at = $1",
      "exit=0",
    ), { ms: 1100 })],
  });
  s.assistant({ say: "Fixed with `allow_hyphen_values = true` on `--since` and `--until`; `--since -15m` works now (shown with `--level warn` on the live log)." });

  // compaction: pi summarises everything before the hyphen fix
  s.compaction(
    L(
      "## Goal",
      "Add `--since`/`--until` time-range filtering to logslice (`/home/demo/rust-cli`).",
      "",
      "## Constraints & Preferences",
      "- Plan first, then small steps with tests.",
      "- Lines without a timestamp (stack traces) must stay with the line before them.",
      "",
      "## Progress",
      "### Done",
      "- [x] `src/time.rs`: `parse_time_arg` accepts `HH:MM[:SS]` (today, local), RFC 3339, and relative offsets incl. compound ones (`-1h30m`); 4 unit tests.",
      "- [x] `chrono` added with features `clock`, `std` (std was missing at first: E0599 on `with_context`).",
      "- [x] `Filter` has a half-open `[since, until)` range; timestamps are parsed only when a time filter is set.",
      "- [x] `Slicer` in `src/filter.rs` keeps continuation lines with their parent; `tests/cli.rs::level_filters` updated to expect `Caused by:`.",
      "- [x] `allow_hyphen_values = true` on `--since`/`--until` so `-15m` is not parsed as flags.",
      "",
      "### In Progress",
      "- [ ] (none)",
      "",
      "### Blocked",
      "- (none)",
      "",
      "## Key Decisions",
      "- **Half-open range**: `--until 10:30` excludes 10:30:00.000 so adjacent slices don't overlap.",
      "- **Lazy timestamp parsing**: keeps the `--level`-only path as fast as before.",
      "",
      "## Next Steps",
      "1. Time zones (`--tz`).",
      "2. Benchmark on a large file.",
      "3. clippy, README, CHANGELOG, commit.",
      "",
      "## Critical Context",
      "- Tests: 15 unit + 5 CLI, all passing. Sample data in `logs/sample.log`, `tests/data/small.log`.",
      "",
      "<read-files>",
      "Cargo.toml",
      "src/cli.rs",
      "src/filter.rs",
      "src/main.rs",
      "src/parse.rs",
      "</read-files>",
      "",
      "<modified-files>",
      "Cargo.toml",
      "src/cli.rs",
      "src/filter.rs",
      "src/main.rs",
      "src/time.rs",
      "tests/cli.rs",
      "</modified-files>",
    ),
    u6,
    {
      readFiles: ["Cargo.toml", "src/cli.rs", "src/filter.rs", "src/main.rs", "src/parse.rs"],
      modifiedFiles: ["Cargo.toml", "src/cli.rs", "src/filter.rs", "src/main.rs", "src/time.rs", "tests/cli.rs"],
    },
    { after: 2500 },
  );

  // 7. time zones
  s.user("Our servers log in UTC but I think in local time. Add --tz (default: local), so `--since 10:00 --tz Europe/Berlin` means 10:00 Berlin time.", { after: 38000 });
  s.assistant({
    think: "Need chrono-tz for IANA names. parse_time_arg gets a generic Tz. Keep `local` as the default.",
    calls: [bash("cargo add chrono-tz@0.9", L(
      "    Updating crates.io index",
      "      Adding chrono-tz v0.9.0 to dependencies",
      "             Features:",
      "             + std",
      "             - case-insensitive",
      "             - serde",
      "    Updating crates.io index",
      "     Locking 5 packages to latest compatible versions",
      "      Adding chrono-tz v0.9.0",
      "      Adding chrono-tz-build v0.3.0",
      "      Adding parse-zoneinfo v0.3.1",
      "      Adding phf v0.11.2",
      "      Adding phf_codegen v0.11.2",
    ), { ms: 2900 })],
  });
  s.assistant({
    calls: [
      edit("src/time.rs", 3,
        ["use chrono::{DateTime, Duration, Local, NaiveTime, TimeZone, Utc};", "use chrono::{DateTime, Duration, Local, NaiveTime, TimeZone, Utc};\nuse chrono_tz::Tz;\n\n/// The zone clock times are read in: the machine's local zone, or an IANA zone.\n#[derive(Debug, Clone, Copy)]\npub enum Zone {\n    Local,\n    Named(Tz),\n}\n\nimpl std::str::FromStr for Zone {\n    type Err = anyhow::Error;\n    fn from_str(s: &str) -> Result<Self> {\n        if s.eq_ignore_ascii_case(\"local\") {\n            return Ok(Zone::Local);\n        }\n        s.parse::<Tz>().map(Zone::Named).map_err(|e| anyhow::anyhow!(\"unknown time zone {s:?}: {e}\"))\n    }\n}"],
        ["pub fn parse_time_arg(s: &str, now: DateTime<Local>) -> Result<DateTime<Utc>> {", "pub fn parse_time_arg(s: &str, now: DateTime<Utc>, zone: Zone) -> Result<DateTime<Utc>> {"],
        ["    let local = Local\n        .from_local_datetime(&now.date_naive().and_time(time))\n        .single()\n        .context(\"ambiguous local time (DST change)\")?;\n    Ok(local.with_timezone(&Utc))", "    let resolved = match zone {\n        Zone::Local => at_time(&Local, now, time),\n        Zone::Named(tz) => at_time(&tz, now, time),\n    };\n    resolved.context(\"ambiguous or skipped local time (DST change)\")"],
      ),
      edit("src/time.rs", 48,
        ["fn parse_duration(s: &str) -> Result<Duration> {", "fn at_time<Z: TimeZone>(zone: &Z, now: DateTime<Utc>, time: NaiveTime) -> Option<DateTime<Utc>> {\n    let today = now.with_timezone(zone).date_naive();\n    zone.from_local_datetime(&today.and_time(time)).single().map(|t| t.with_timezone(&Utc))\n}\n\nfn parse_duration(s: &str) -> Result<Duration> {"],
      ),
      edit("src/cli.rs", 30,
        ["    pub until: Option<String>,\n}", "    pub until: Option<String>,\n\n    /// Time zone for clock times in --since/--until: `local` or an IANA name\n    #[arg(long, default_value = \"local\")]\n    pub tz: crate::time::Zone,\n}"],
      ),
    ],
  });
  s.assistant({
    calls: [bash("cargo test 2>&1 | grep -E 'error|warning: unused|test result' | head", L(
      "error[E0308]: mismatched types",
      "  --> src/main.rs:16:69",
      "error[E0061]: this function takes 3 arguments but 2 arguments were supplied",
      "  --> src/main.rs:16:52",
      "error[E0061]: this function takes 3 arguments but 2 arguments were supplied",
      "  --> src/main.rs:17:52",
      "error: could not compile `logslice` (bin \"logslice\") due to 3 previous errors",
    ), { exit: 101, ms: 16000 })],
  });
  s.assistant({
    say: "Expected: `main.rs` and the tests still use the old signature. Updating the callers and the test helper:",
    calls: [
      edit("src/main.rs", 16,
        ["        since: args.since.as_deref().map(|s| time::parse_time_arg(s, chrono::Local::now())).transpose()?,\n        until: args.until.as_deref().map(|s| time::parse_time_arg(s, chrono::Local::now())).transpose()?,",
          "        since: args.since.as_deref().map(|s| time::parse_time_arg(s, now, args.tz)).transpose()?,\n        until: args.until.as_deref().map(|s| time::parse_time_arg(s, now, args.tz)).transpose()?,"],
        ["    let args = cli::Args::parse();", "    let args = cli::Args::parse();\n    let now = chrono::Utc::now();"],
      ),
      edit("src/time.rs", 74,
        ["    fn now() -> DateTime<Local> {\n        Local.with_ymd_and_hms(2025, 6, 23, 12, 0, 0).unwrap()\n    }", "    fn now() -> DateTime<Utc> {\n        Utc.with_ymd_and_hms(2025, 6, 23, 12, 0, 0).unwrap()\n    }\n\n    fn berlin() -> Zone {\n        \"Europe/Berlin\".parse().unwrap()\n    }\n\n    #[test]\n    fn named_zone() {\n        let t = parse_time_arg(\"10:00\", now(), berlin()).unwrap();\n        assert_eq!(t.to_rfc3339(), \"2025-06-23T08:00:00+00:00\");\n    }\n\n    #[test]\n    fn skipped_dst_hour_is_an_error() {\n        let march = Utc.with_ymd_and_hms(2025, 3, 30, 12, 0, 0).unwrap();\n        assert!(parse_time_arg(\"02:30\", march, berlin()).is_err());\n    }"],
      ),
      bash("sed -i 's/parse_time_arg(\\(\"[^\"]*\"\\), now())/parse_time_arg(\\1, now(), Zone::Local)/' src/time.rs && grep -c 'Zone::Local)' src/time.rs", "6\n"),
    ],
  });
  s.assistant({
    calls: [bash("TZ=America/New_York cargo test 2>&1 | grep -E 'test result|FAILED'", L(
      "test result: ok. 17 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
      "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.35s",
    ), { ms: 17500 })],
  });
  s.assistant({
    say: L(
      "`--tz` is in:",
      "",
      "- `--tz local` (default) or any IANA name, e.g. `--tz Europe/Berlin`; unknown names give `unknown time zone \"Europe/Berln\"`.",
      "- Clock times are resolved on *today in that zone*; a time skipped by a DST change (02:30 on 2025-03-30 in Berlin) is an error instead of a silent shift.",
      "- RFC 3339 and relative times ignore `--tz`, since they are already absolute.",
      "",
      "Tests pass with `TZ=America/New_York` too (17 unit + 5 CLI), so they don't depend on the machine's zone.",
    ),
  });

  // 8. performance
  s.user("Performance: on a 2 GB log with --since it takes ~40 s, plain --level takes 6 s. Can you profile it?", { after: 140000 });
  s.assistant({
    calls: [bash("cargo build --release -q && ls -lh /data/logs/api-2025-06-22.log && hyperfine -w1 -r3 'target/release/logslice --level warn /data/logs/api-2025-06-22.log > /dev/null' 'target/release/logslice --since 2025-06-22T10:00:00Z --until 2025-06-22T11:00:00Z /data/logs/api-2025-06-22.log > /dev/null'", L(
      "-rw-r--r-- 1 demo demo 2.1G Jun 22 23:59 /data/logs/api-2025-06-22.log",
      "Benchmark 1: target/release/logslice --level warn /data/logs/api-2025-06-22.log > /dev/null",
      "  Time (mean ± σ):      6.112 s ±  0.084 s    [User: 5.401 s, System: 0.702 s]",
      "  Range (min … max):    6.031 s …  6.199 s    3 runs",
      "",
      "Benchmark 2: target/release/logslice --since 2025-06-22T10:00:00Z --until 2025-06-22T11:00:00Z /data/logs/api-2025-06-22.log > /dev/null",
      "  Time (mean ± σ):     39.482 s ±  0.511 s    [User: 38.702 s, System: 0.770 s]",
      "  Range (min … max):   38.921 s … 39.921 s    3 runs",
      "",
      "Summary",
      "  target/release/logslice --level warn /data/logs/api-2025-06-22.log > /dev/null ran",
      "    6.46 ± 0.13 times faster than target/release/logslice --since 2025-06-22T10:00:00Z --until 2025-06-22T11:00:00Z /data/logs/api-2025-06-22.log > /dev/null",
    ), { ms: 187000 })],
  });
  s.assistant({
    calls: [bash("perf record -g -o /tmp/perf.data target/release/logslice --since 2025-06-22T10:00:00Z --until 2025-06-22T11:00:00Z /data/logs/api-2025-06-22.log > /dev/null 2>&1; perf report -i /tmp/perf.data --no-children --percent-limit 4 --stdio 2>/dev/null | grep -E '^ +[0-9]'", L(
      "    41.27%  logslice  logslice  [.] chrono::format::parse::parse_internal",
      "    17.90%  logslice  logslice  [.] chrono::format::parsed::Parsed::to_datetime",
      "    11.02%  logslice  libc.so.6 [.] __memmove_avx_unaligned_erms",
      "     8.64%  logslice  logslice  [.] <std::io::Lines<B> as Iterator>::next",
      "     5.31%  logslice  logslice  [.] logslice::parse::parse_line",
      "     4.12%  logslice  logslice  [.] alloc::raw_vec::RawVec<T,A>::reserve::do_reserve_and_handle",
    ), { ms: 52000 })],
  });
  s.assistant({
    think: "59% is chrono's generic RFC 3339 parser. The timestamps all have the fixed layout YYYY-MM-DDTHH:MM:SS.mmmZ, and since they're all UTC with the same layout, lexicographic comparison of the string equals time comparison. So: format since/until once in the same layout and compare strings. Fall back to chrono for other layouts. Also io::Lines allocates a String per line (memmove + reserve ~15%): reuse a buffer with read_line.",
    say: L(
      "The profile is clear: **59 %** of the time is chrono's generic RFC 3339 parser (`parse_internal` + `to_datetime`), and another **~15 %** is `io::Lines` allocating a new `String` per line.",
      "",
      "Our logs use one fixed layout (`2025-06-22T10:00:00.123Z`, always UTC, fixed width), and for that layout string order equals time order. So I'll:",
      "",
      "1. format `since`/`until` once in that layout and compare the raw timestamp bytes, falling back to chrono only for other layouts;",
      "2. reuse one line buffer (`read_line`) instead of `lines()`.",
    ),
    calls: [
      edit("src/filter.rs", 18,
        ["        if self.since.is_some() || self.until.is_some() {\n            let Some(t) = line.timestamp.and_then(|t| DateTime::parse_from_rfc3339(t).ok()) else {\n                return false;\n            };\n            let t = t.with_timezone(&Utc);\n            if self.since.is_some_and(|s| t < s) || self.until.is_some_and(|u| t >= u) {\n                return false;\n            }\n        }",
          "        if self.since.is_some() || self.until.is_some() {\n            let Some(ts) = line.timestamp else { return false };\n            if is_fixed_utc(ts) {\n                // Fast path: same fixed-width UTC layout, so byte order is time order.\n                if self.since_key.as_deref().is_some_and(|s| ts < s) || self.until_key.as_deref().is_some_and(|u| ts >= u) {\n                    return false;\n                }\n            } else {\n                let Ok(t) = DateTime::parse_from_rfc3339(ts) else { return false };\n                let t = t.with_timezone(&Utc);\n                if self.since.is_some_and(|s| t < s) || self.until.is_some_and(|u| t >= u) {\n                    return false;\n                }\n            }\n        }"],
        ["    pub until: Option<DateTime<Utc>>,\n}", "    pub until: Option<DateTime<Utc>>,\n    since_key: Option<String>,\n    until_key: Option<String>,\n}\n\n/// `YYYY-MM-DDTHH:MM:SS.mmmZ`\nfn is_fixed_utc(ts: &str) -> bool {\n    let b = ts.as_bytes();\n    b.len() == 24 && b[10] == b'T' && b[19] == b'.' && b[23] == b'Z'\n}\n\nfn key(t: DateTime<Utc>) -> String {\n    t.format(\"%Y-%m-%dT%H:%M:%S%.3fZ\").to_string()\n}"],
      ),
      edit("src/main.rs", 20,
        ["        for line in open(path)?.lines() {\n            let line = line?;\n            if slicer.keep(&parse::parse_line(&line)) {\n                writeln!(out, \"{line}\")?;\n            }\n        }",
          "        let mut reader = open(path)?;\n        let mut line = String::with_capacity(4096);\n        while { line.clear(); reader.read_line(&mut line)? } > 0 {\n            let text = line.trim_end_matches(['\\n', '\\r']);\n            if slicer.keep(&parse::parse_line(text)) {\n                writeln!(out, \"{text}\")?;\n            }\n        }"],
      ),
    ],
  });
  s.assistant({
    calls: [bash("cargo test -q 2>&1 | grep 'test result' && cargo build --release -q && hyperfine -w1 -r3 'target/release/logslice --since 2025-06-22T10:00:00Z --until 2025-06-22T11:00:00Z /data/logs/api-2025-06-22.log > /dev/null'", L(
      "test result: ok. 17 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
      "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.36s",
      "Benchmark 1: target/release/logslice --since 2025-06-22T10:00:00Z --until 2025-06-22T11:00:00Z /data/logs/api-2025-06-22.log > /dev/null",
      "  Time (mean ± σ):      4.874 s ±  0.061 s    [User: 4.190 s, System: 0.681 s]",
      "  Range (min … max):    4.809 s …  4.931 s    3 runs",
    ), { ms: 41000 })],
  });
  const fast = s.assistant({
    say: "`--since/--until` on the 2.1 GB file: **39.5 s → 4.9 s** (8×), now even faster than the old `--level` run, because the buffer reuse helps every mode. Lines in other timestamp layouts still go through chrono, so correctness doesn't depend on the fast path; all 22 tests pass.",
  });
  s.label(fast.id, "perf-8x");
  s.user("Nice. Add a test that the fast path and the chrono path agree, e.g. with a +02:00 timestamp.");
  s.assistant({
    calls: [
      edit("src/filter.rs", 70,
        ["}\n", "}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::parse::parse_line;\n\n    fn range(since: &str, until: &str) -> Filter {\n        Filter::new(None, None, Some(since.parse().unwrap()), Some(until.parse().unwrap()))\n    }\n\n    #[test]\n    fn fast_and_slow_paths_agree() {\n        let f = range(\"2025-06-22T10:00:00Z\", \"2025-06-22T11:00:00Z\");\n        for (line, expected) in [\n            (\"2025-06-22T10:30:00.000Z INFO  a\", true),\n            (\"2025-06-22T12:30:00+02:00 INFO  b\", true),\n            (\"2025-06-22T11:00:00.000Z INFO  c\", false),\n            (\"2025-06-22T13:00:00+02:00 INFO  d\", false),\n            (\"2025-06-22T09:59:59.999Z INFO  e\", false),\n        ] {\n            assert_eq!(f.keep(&parse_line(line)), expected, \"{line}\");\n        }\n    }\n}\n"],
      ),
    ],
  });
  s.assistant({
    calls: [bash("cargo test -q filter:: 2>&1 | tail -3", L(
      "running 1 test",
      "test filter::tests::fast_and_slow_paths_agree ... ok",
      "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 17 filtered out; finished in 0.00s",
    ), { ms: 6400 })],
  });
  s.assistant({ say: "Added `filter::tests::fast_and_slow_paths_agree`: UTC lines take the byte-compare path, `+02:00` lines take chrono, and both sides of the range boundaries agree." });

  // 9. clippy
  s.user("Run clippy with pedantic and fix what makes sense.");
  s.assistant({
    calls: [bash("cargo clippy -q -- -W clippy::pedantic 2>&1 | grep -E '^(warning|error)' | sort | uniq -c", L(
      "      2 warning: casting `usize` to `i64` may wrap around the value",
      "      1 warning: docs for function returning `Result` missing `# Errors` section",
      "      3 warning: item in documentation is missing backticks",
      "      1 warning: this argument is passed by value, but not consumed in the function body",
      "      1 warning: unnecessary boolean `not` operation",
    ), { ms: 8800 })],
  });
  s.assistant({
    think: "Fix backticks, # Errors section, needless pass by value, the boolean not. The usize→i64 cast: digits index, fine but use try_from.",
    calls: [
      edit("src/time.rs", 24,
        ["/// Parse a time argument relative to `now`.\n///", "/// Parse a time argument relative to `now`.\n///\n/// # Errors\n///\n/// Returns an error for unknown formats, bad duration units, and clock times\n/// that do not exist in `zone` (skipped by a DST change).\n///"],
        ["/// Accepted forms: `10:30`, `10:30:15` (today, local time), RFC 3339", "/// Accepted forms: `10:30`, `10:30:15` (today in `zone`), RFC 3339"],
      ),
      edit("src/filter.rs", 41,
        ["    pub fn new(filter: Filter) -> Self {", "    #[must_use]\n    pub fn new(filter: Filter) -> Self {"],
        ["            if !(level >= min) {", "            if level < min {"],
      ),
      edit("src/parse.rs", 13, ["/// The leading RFC 3339 timestamp, as written", "/// The leading RFC 3339 timestamp, as written (see [`crate::time`])"]),
    ],
  });
  s.assistant({
    calls: [bash("cargo clippy -q -- -W clippy::pedantic 2>&1 | grep -cE '^(warning|error)'; cargo test -q 2>&1 | grep 'test result'", L(
      "0",
      "test result: ok. 18 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
      "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.34s",
    ), { ms: 14000 })],
  });
  s.assistant({ say: "clippy pedantic is clean (8 warnings fixed: missing `# Errors` docs, backticks, a `must_use`, an inverted comparison, and the casts). Tests still pass." });

  // 10. docs
  s.user("Update README and CHANGELOG.");
  s.assistant({
    calls: [read("README.md", L(
      "# logslice",
      "",
      "Cut log files down to the lines you care about.",
      "",
      "```sh",
      "logslice --level warn app.log",
      "logslice -e 'order [0-9]+' app.log other.log",
      "cat app.log | logslice --level error -",
      "```",
      "",
      "## Install",
      "",
      "```sh",
      "cargo install --path .",
      "```",
      "",
    ))],
  });
  s.assistant({
    calls: [
      edit("README.md", 8,
        ["cat app.log | logslice --level error -\n```", "cat app.log | logslice --level error -\n```\n\n## Time ranges\n\n```sh\nlogslice --since 10:00 --until 10:30 app.log              # today, local time\nlogslice --since 10:00 --tz Europe/Berlin app.log         # today, Berlin time\nlogslice --since -15m app.log                             # the last 15 minutes\nlogslice --since 2025-06-22T10:00:00Z --until -1h30m app.log\n```\n\nThe range is half-open: `--until 10:30` stops *before* 10:30:00. Lines without a\ntimestamp (stack traces, wrapped messages) are kept or dropped together with the\nline before them."],
      ),
      write("CHANGELOG.md", L(
        "# Changelog",
        "",
        "## Unreleased",
        "",
        "### Added",
        "- `--since` / `--until` time ranges: clock times, RFC 3339, and relative offsets (`-15m`, `-1h30m`).",
        "- `--tz` for clock times (default `local`, or an IANA zone such as `Europe/Berlin`).",
        "",
        "### Changed",
        "- Lines without a timestamp now follow the line before them in every filter.",
        "- About 8× faster on fixed-layout UTC timestamps, and less allocation per line.",
        "",
        "## 0.3.1 - 2025-05-30",
        "",
        "### Fixed",
        "- `-` reads stdin again.",
        "",
      )),
    ],
  });
  s.assistant({ say: "README has a new *Time ranges* section with examples and the half-open rule; `CHANGELOG.md` has an *Unreleased* entry for the new options, the continuation-line change and the speed-up." });

  // 11. commit
  s.user("Commit it as two commits: the feature, then the perf work.");
  s.assistant({
    calls: [bash("git status --short", L(
      " M Cargo.lock",
      " M Cargo.toml",
      " M README.md",
      " M src/cli.rs",
      " M src/filter.rs",
      " M src/main.rs",
      " M src/parse.rs",
      " M tests/cli.rs",
      "?? CHANGELOG.md",
      "?? src/time.rs",
    ))],
  });
  s.assistant({
    think: "The perf changes are in filter.rs (fast path + test) and main.rs (read_line). Splitting hunks non-interactively: stash the perf hunks is awkward; easier: commit everything except the perf hunks by temporarily reverting them? Simplest reliable way: git add everything, then git reset -p is interactive... Use `git apply --cached` with a filtered diff. I'll build the feature commit from a patch without the fast path.",
    calls: [bash("git diff src/filter.rs src/main.rs > /tmp/all.patch && filterdiff --hunks=1-3 -i '*/filter.rs' /tmp/all.patch > /tmp/feature.patch && filterdiff --hunks=1-2 -i '*/main.rs' /tmp/all.patch >> /tmp/feature.patch && git add Cargo.toml Cargo.lock README.md CHANGELOG.md src/cli.rs src/parse.rs src/time.rs tests/cli.rs && git apply --cached /tmp/feature.patch && git commit -qm \"Add --since/--until/--tz time ranges\" && git add -A && git commit -qm \"Speed up time filtering 8x with a fixed-layout fast path\" && git log --oneline -3", L(
      "e51d0f4 Speed up time filtering 8x with a fixed-layout fast path",
      "3b9a77c Add --since/--until/--tz time ranges",
      "a04c2e9 Release 0.3.1",
    ), { ms: 1900 })],
  });
  s.assistant({
    calls: [bash("git stash -q && git checkout -q HEAD~1 && cargo test -q 2>&1 | grep 'test result'; git checkout -q - && git stash pop -q; echo back on $(git rev-parse --short HEAD)", L(
      "test result: ok. 17 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
      "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.36s",
      "back on e51d0f4",
    ), { ms: 21000 })],
  });
  s.assistant({
    say: L(
      "Two commits:",
      "",
      "- `3b9a77c Add --since/--until/--tz time ranges`: the options, `src/time.rs`, continuation lines, docs;",
      "- `e51d0f4 Speed up time filtering 8x with a fixed-layout fast path`: the byte-compare fast path, buffer reuse and its test.",
      "",
      "I checked out the first commit on its own and its tests pass (17 + 5), so it bisects cleanly.",
    ),
  });

  // 12. release
  s.user("Let's release 0.4.0: bump the version, date the changelog, tag it. Don't push.", { after: 95000 });
  s.assistant({
    calls: [
      edit("Cargo.toml", 3, ['version = "0.3.1"', 'version = "0.4.0"']),
      edit("CHANGELOG.md", 3, ["## Unreleased", "## 0.4.0 - 2025-06-23"]),
    ],
  });
  s.assistant({
    calls: [bash("cargo build -q && cargo test -q 2>&1 | grep 'test result' && ./target/debug/logslice --version", L(
      "test result: ok. 18 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
      "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.35s",
      "logslice 0.4.0",
    ), { ms: 19000 })],
  });
  s.assistant({
    calls: [bash("git commit -qam \"Release 0.4.0\" && git tag -a v0.4.0 -m \"logslice 0.4.0\" && git log --oneline --decorate -3", L(
      "9f03b6d (HEAD -> main, tag: v0.4.0) Release 0.4.0",
      "e51d0f4 Speed up time filtering 8x with a fixed-layout fast path",
      "3b9a77c Add --since/--until/--tz time ranges",
    ))],
  });
  s.assistant({
    calls: [bash("cargo package --list --allow-dirty | head -20 && cargo publish --dry-run -q 2>&1 | tail -2", L(
      ".cargo_vcs_info.json",
      "CHANGELOG.md",
      "Cargo.lock",
      "Cargo.toml",
      "Cargo.toml.orig",
      "LICENSE",
      "README.md",
      "src/cli.rs",
      "src/filter.rs",
      "src/main.rs",
      "src/parse.rs",
      "src/time.rs",
      "tests/cli.rs",
      "tests/data/small.log",
      "warning: aborting upload due to dry run",
    ), { ms: 24000 })],
  });
  const tagged = s.assistant({
    say: "Tagged `v0.4.0` on `9f03b6d Release 0.4.0` (version bumped in `Cargo.toml`, changelog dated 2025-06-23). `cargo publish --dry-run` packages cleanly: 14 files and no stray logs. Nothing is pushed; when you're ready: `git push origin main v0.4.0 && cargo publish`.",
  });
  s.label(tagged.id, "v0.4.0");
  s.user("Write me a short release note for the GitHub release page.");
  s.assistant({
    say: L(
      "**logslice 0.4.0**: time ranges",
      "",
      "```sh",
      "logslice --since 10:00 --until 10:30 app.log",
      "logslice --since -15m --level warn app.log",
      "logslice --since 09:00 --tz Europe/Berlin app.log",
      "```",
      "",
      "- **New:** `--since` / `--until` accept clock times, RFC 3339 timestamps and relative offsets (`-15m`, `-1h30m`). The range is half-open.",
      "- **New:** `--tz` picks the zone for clock times (default: local).",
      "- **Changed:** stack traces and other lines without a timestamp now stay with the line before them, in every filter.",
      "- **Faster:** time filtering on a 2.1 GB log went from 39.5 s to 4.9 s, and every mode allocates less per line.",
    ),
  });
  return s;
}

function rustParserRefactor(stage) {
  const s = new Demo(stage, {
    cwd: RUSTCLI,
    start: "2025-06-25T14:30:00.000Z",
    model: "anthropic/claude-sonnet-4-5",
    thinking: "high",
  });
  s.user(
    "parse_line only understands our own log layout. I want to support logfmt and JSON lines too. Should we rewrite the parser with nom, or keep it hand-written? Compare before doing anything.",
    { after: 31000 },
  );
  s.assistant({
    think: "Look at parse.rs size and how hot it is; then compare nom vs hand-written in terms of speed, error messages, dependency weight and maintainability.",
    calls: [
      bash("wc -l src/parse.rs && cargo tree -e normal --depth 1 | tail -n +2", L(
        "58 src/parse.rs",
        "├── anyhow v1.0.86",
        "├── chrono v0.4.38",
        "├── chrono-tz v0.9.0",
        "├── clap v4.5.7",
        "├── memchr v2.7.4",
        "└── regex v1.10.5",
      )),
    ],
  });
  const bp = s.assistant({
    say: L(
      "Comparison for three formats (ours, logfmt, JSON lines):",
      "",
      "| | nom | hand-written |",
      "|---|---|---|",
      "| speed | good, zero-copy | best, we already use `memchr` |",
      "| error messages | need `nom-supreme`/`VerboseError` to be useful | whatever we write |",
      "| new deps | `nom` (small, no deps) | none |",
      "| JSON lines | still want `serde_json` for the object | same |",
      "| readability | combinators read like a grammar | a small state machine per format |",
      "",
      "For *line-level* formats that are mostly \"split on the first few spaces\", nom's advantage is small. Its real win would be logfmt's quoting rules (`msg=\"a \\\"b\\\" c\"`).",
      "",
      "My suggestion: hand-written for our layout and JSON detection, and either nom or a ~40-line hand-written lexer for logfmt. I can prototype either.",
    ),
  });
  s.name("Parser: nom vs hand-written");

  // branch 1: nom prototype
  const uNom = s.user("Prototype logfmt with nom so I can see it.");
  s.assistant({
    calls: [
      bash("cargo add nom@7", "    Updating crates.io index\n      Adding nom v7.1.3 to dependencies\n             Features:\n             + alloc\n             + std\n"),
      write("src/formats/logfmt.rs", L(
        "//! logfmt: `key=value key2=\"quoted value\"` pairs.",
        "",
        "use nom::{",
        "    branch::alt,",
        "    bytes::complete::{escaped, is_not, take_while1},",
        "    character::complete::{char, one_of, space0},",
        "    combinator::{map, opt},",
        "    multi::many0,",
        "    sequence::{delimited, preceded, separated_pair, terminated},",
        "    IResult,",
        "};",
        "",
        "fn key(i: &str) -> IResult<&str, &str> {",
        "    take_while1(|c: char| c.is_alphanumeric() || c == '_' || c == '.' || c == '-')(i)",
        "}",
        "",
        "fn quoted(i: &str) -> IResult<&str, &str> {",
        "    delimited(char('\"'), escaped(is_not(\"\\\\\\\"\"), '\\\\', one_of(\"\\\"\\\\nt\")), char('\"'))(i)",
        "}",
        "",
        "fn value(i: &str) -> IResult<&str, &str> {",
        "    alt((quoted, is_not(\" \\t\")))(i)",
        "}",
        "",
        "fn pair(i: &str) -> IResult<&str, (&str, Option<&str>)> {",
        "    terminated(separated_pair(key, char('='), opt(value)).or(map(key, |k| (k, None))), space0)(i)",
        "}",
        "",
        "pub fn pairs(i: &str) -> IResult<&str, Vec<(&str, Option<&str>)>> {",
        "    preceded(space0, many0(pair))(i)",
        "}",
        "",
      )),
    ],
  });
  s.assistant({
    calls: [bash("cargo test -q formats 2>&1 | tail -12", L(
      "error[E0599]: no method named `or` found for opaque type `impl FnMut(&str) -> Result<(&str, (&str, Option<&str>)), nom::Err<nom::error::Error<&str>>>` in the current scope",
      "  --> src/formats/logfmt.rs:26:71",
      "   |",
      "26 |     terminated(separated_pair(key, char('='), opt(value)).or(map(key, |k| (k, None))), space0)(i)",
      "   |                                                           ^^ method not found",
      "   |",
      "   = help: items from traits can only be used if the trait is in scope",
      "help: trait `Parser` which provides `or` is implemented but not in scope; perhaps you want to import it",
      "   |",
      "3  + use nom::Parser;",
      "",
      "error: could not compile `logslice` (lib test) due to 1 previous error",
    ), { exit: 101, ms: 7300 })],
  });
  s.assistant({
    calls: [
      edit("src/formats/logfmt.rs", 10, ["    IResult,\n};", "    IResult, Parser,\n};"]),
      bash("cargo test -q formats 2>&1 | tail -3", "running 6 tests\n......\ntest result: ok. 6 passed; 0 failed; 0 ignored; 0 measured; 23 filtered out; finished in 0.00s\n", { ms: 6900 }),
    ],
  });
  const nomBench = s.assistant({
    calls: [bash("cargo bench -q --bench formats -- logfmt 2>&1 | grep -A1 'time:'", L(
      "logfmt/nom/1k_lines     time:   [412.08 µs 413.71 µs 415.52 µs]",
      "                        thrpt:  [226.50 MiB/s 227.49 MiB/s 228.39 MiB/s]",
    ), { ms: 38000 })],
  });
  s.assistant({
    say: "The nom prototype works (6 tests) and parses ~227 MiB/s. It reads nicely as a grammar, but note the first compile error: nom 7's `Parser` trait has to be in scope for `.or()`, which is typical of the papercuts. Want the hand-written version to compare?",
  });
  s.label(uNom, "nom-prototype");
  s.label(nomBench.last, "nom-bench");

  // branch 2: hand-written
  s.branch(bp.id, { after: 60000 });
  s.user("Yes, now the hand-written lexer for logfmt, same tests.");
  s.assistant({
    think: "A byte-level state machine: key until '=', then value: quoted with escapes or until space. Return slices; unescape lazily (Cow) only if a backslash occurred.",
    calls: [
      write("src/formats/logfmt.rs", L(
        "//! logfmt: `key=value key2=\"quoted value\"` pairs, parsed without allocation",
        "//! unless a quoted value contains escapes.",
        "",
        "use std::borrow::Cow;",
        "",
        "pub struct Pairs<'a> {",
        "    rest: &'a str,",
        "}",
        "",
        "pub fn pairs(line: &str) -> Pairs<'_> {",
        "    Pairs { rest: line }",
        "}",
        "",
        "impl<'a> Iterator for Pairs<'a> {",
        "    type Item = (&'a str, Option<Cow<'a, str>>);",
        "",
        "    fn next(&mut self) -> Option<Self::Item> {",
        "        let s = self.rest.trim_start_matches([' ', '\\t']);",
        "        if s.is_empty() {",
        "            return None;",
        "        }",
        "        let key_end = s.find(['=', ' ', '\\t']).unwrap_or(s.len());",
        "        let key = &s[..key_end];",
        "        if !s[key_end..].starts_with('=') {",
        "            self.rest = &s[key_end..];",
        "            return Some((key, None));",
        "        }",
        "        let v = &s[key_end + 1..];",
        "        if let Some(q) = v.strip_prefix('\"') {",
        "            let (value, used) = quoted(q);",
        "            self.rest = &q[used..];",
        "            return Some((key, Some(value)));",
        "        }",
        "        let end = v.find([' ', '\\t']).unwrap_or(v.len());",
        "        self.rest = &v[end..];",
        "        Some((key, Some(Cow::Borrowed(&v[..end]))))",
        "    }",
        "}",
        "",
        "/// The value of a quoted string (after the opening quote) and the bytes used.",
        "fn quoted(s: &str) -> (Cow<'_, str>, usize) {",
        "    let bytes = s.as_bytes();",
        "    let mut i = 0;",
        "    let mut escaped = false;",
        "    while i < bytes.len() {",
        "        match bytes[i] {",
        "            b'\\\\' => {",
        "                escaped = true;",
        "                i += 2;",
        "            }",
        "            b'\"' => break,",
        "            _ => i += 1,",
        "        }",
        "    }",
        "    let raw = &s[..i.min(s.len())];",
        "    let used = (i + 1).min(s.len());",
        "    if !escaped {",
        "        return (Cow::Borrowed(raw), used);",
        "    }",
        "    (Cow::Owned(raw.replace(\"\\\\\\\"\", \"\\\"\").replace(\"\\\\n\", \"\\n\").replace(\"\\\\\\\\\", \"\\\\\")), used)",
        "}",
        "",
      )),
    ],
  });
  const failing = s.assistant({
    calls: [bash("cargo test -q formats 2>&1 | tail -14", L(
      "running 6 tests",
      "....F.",
      "failures:",
      "",
      "---- formats::logfmt::tests::trailing_backslash stdout ----",
      "thread 'formats::logfmt::tests::trailing_backslash' panicked at src/formats/logfmt.rs:55:19:",
      "byte index 9 is out of bounds of `msg=\"oops\\`",
      "",
      "failures:",
      "    formats::logfmt::tests::trailing_backslash",
      "",
      "test result: FAILED. 5 passed; 1 failed; 0 ignored; 0 measured; 23 filtered out; finished in 0.00s",
    ), { exit: 101, ms: 6500 })],
  });
  s.assistant({
    think: "i += 2 on a trailing backslash jumps past the end; raw = &s[..i.min(len)] is fine but the panic is at line 55... `&s[..i.min(s.len())]` shouldn't panic. Oh, i.min(s.len()) fine; it's `&q[used..]` in next(): used = (i+1).min(len) fine too. Line 55 is `let raw`. If i lands in the middle of a multi-byte char? No, ascii here. Hmm: byte index 9 out of bounds of a string of length 9... `&s[..i.min(s.len())]` with i=10 → min 9 → fine. Unless the compiled code is the earlier version. Whatever: clamp i after the loop and make the escape step not overrun.",
    say: "A trailing backslash (`msg=\"oops\\`) makes the escape step jump past the end of the line. I'll clamp the index in the loop instead of afterwards.",
    calls: [
      edit("src/formats/logfmt.rs", 47,
        ["            b'\\\\' => {\n                escaped = true;\n                i += 2;\n            }", "            b'\\\\' => {\n                escaped = true;\n                i = (i + 2).min(bytes.len());\n            }"],
      ),
    ],
  });
  s.assistant({
    calls: [bash("cargo test -q formats 2>&1 | tail -2 && cargo bench -q --bench formats -- logfmt 2>&1 | grep -A1 'time:'", L(
      "......",
      "test result: ok. 6 passed; 0 failed; 0 ignored; 0 measured; 23 filtered out; finished in 0.00s",
      "logfmt/handwritten/1k_lines",
      "                        time:   [171.92 µs 172.60 µs 173.41 µs]",
      "                        thrpt:  [542.05 MiB/s 544.59 MiB/s 546.74 MiB/s]",
    ), { ms: 41000 })],
  });
  const winner = s.assistant({
    say: L(
      "Hand-written: same 6 tests pass, **545 MiB/s vs 227 MiB/s** for nom (2.4×), no new dependency, and values are borrowed unless they contain escapes.",
      "",
      "It is ~60 lines instead of ~30, and the trailing-backslash bug shows the kind of edge case nom would have handled for us. With the tests in place I'd still take the hand-written one.",
    ),
  });
  s.label(winner.id, "winner");

  // branch 2b: the user re-asks at bp2 with a different instruction
  s.branch(failing.last, { after: 25000 });
  s.user("Before you fix it: could we just reject lines with a trailing backslash instead?");
  s.assistant({
    think: "Rejecting would drop real log lines (a Windows path at the end of a message ends in a backslash). Better to keep the line and treat the backslash literally.",
    say: "We could, but a trailing backslash is legitimate in practice, e.g. `path=\"C:\\temp\\\"` from Windows services, and rejecting would silently drop those lines from the output. I'd rather clamp the index so the line is kept and the lone backslash is read as a literal character, which is what `logfmt` implementations in Go (`go-logfmt`) do too.",
  });

  // branch 3: pest
  s.branch(bp.id, { after: 40000 });
  s.user("What about pest instead of nom?");
  s.assistant({
    say: "pest would give us a `.pest` grammar file and good error messages, but it builds a parse tree of `Pair`s for every line. That costs allocations on the hot path (we parse every line of multi-GB files), and it pulls in `pest_derive` with proc-macros, which slows compile times. For line formats this simple I would not use it; it shines for nested languages such as config files or query syntax.",
  });

  // back to the winner
  s.branch(winner.id, { after: 50000 });
  s.user("Go with hand-written. Remove nom from Cargo.toml if it's still there and commit.");
  s.assistant({
    calls: [bash("grep -n nom Cargo.toml; cargo test -q 2>&1 | grep 'test result' && git add -A && git commit -qm \"Add hand-written logfmt lexer\" && git log --oneline -1", L(
      "test result: ok. 24 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
      "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.37s",
      "7d2c9e0 Add hand-written logfmt lexer",
    ), { ms: 15000 })],
  });
  s.assistant({ say: "nom was only added on the prototype branch, so `Cargo.toml` is clean. Committed as `7d2c9e0 Add hand-written logfmt lexer`; all 29 tests pass." });
  return s;
}

function rustClippy(stage) {
  const s = new Demo(stage, {
    cwd: RUSTCLI,
    start: "2025-06-26T17:45:19.000Z",
    model: "anthropic/claude-haiku-4-5",
    thinking: "off",
  });
  s.user("CI fails on clippy after the toolchain bump to 1.79. Fix it.", { after: 9000 });
  s.assistant({
    calls: [bash("cargo clippy --all-targets -- -D warnings 2>&1 | grep -A6 '^error'", L(
      "error: this `map_or` can be simplified",
      "  --> src/filter.rs:58:16",
      "   |",
      "58 |             if self.since.map_or(false, |s| t < s) {",
      "   |                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ help: use is_some_and instead: `self.since.is_some_and(|s| t < s)`",
      "   |",
      "   = note: `-D clippy::unnecessary-map-or` implied by `-D warnings`",
      "--",
      "error: the borrowed expression implements the required traits",
      "  --> tests/cli.rs:33:15",
      "   |",
      "33 |         .args(&[\"--level\", \"warn\", \"tests/data/small.log\"])",
      "   |               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ help: change this to: `[\"--level\", \"warn\", \"tests/data/small.log\"]`",
      "   |",
      "   = note: `-D clippy::needless-borrows-for-generic-args` implied by `-D warnings`",
    ), { exit: 101, ms: 12000 })],
  });
  s.assistant({
    say: "Two lints. Fixing both:",
    calls: [
      edit("src/filter.rs", 58, ["            if self.since.map_or(false, |s| t < s) {", "            if self.since.is_some_and(|s| t < s) {"]),
      edit("tests/cli.rs", 33, ["        .args(&[\"--level\", \"warn\", \"tests/data/small.log\"])", "        .args([\"--level\", \"warn\", \"tests/data/small.log\"])"]),
    ],
  });
  s.assistant({
    calls: [bash("cargo clippy --all-targets -- -D warnings 2>&1 | tail -1", "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 3.92s\n", { ms: 4100 })],
  });
  s.assistant({ say: "clippy passes with `-D warnings` again: `map_or(false, …)` became `is_some_and(…)` in `src/filter.rs`, and a needless `&` went from `tests/cli.rs`." });
  s.user("thanks. also pin the toolchain so this doesn't surprise us again");
  s.assistant({
    calls: [write("rust-toolchain.toml", L("[toolchain]", "channel = \"1.79.0\"", "components = [\"clippy\", \"rustfmt\"]", ""))],
  });
  s.assistant({ say: "Added `rust-toolchain.toml` pinning 1.79.0 with clippy and rustfmt. CI (and everyone's local cargo) will use exactly that version until you bump it on purpose." });
  return s;
}

// ---------------------------------------------------------------------------------------------
// /home/demo/notes  (a markdown notes repo)

const NOTES = "/home/demo/notes";

function notesDigest(stage) {
  const s = new Demo(stage, {
    cwd: NOTES,
    start: "2025-06-17T07:55:00.000Z",
    model: "anthropic/claude-haiku-4-5",
    thinking: "off",
  });
  s.user("Make a weekly digest for W25 from my meeting notes in meetings/2025-06-*. Decisions and action items only, grouped by project.", { after: 16000 });
  s.assistant({
    calls: [bash("ls meetings/ | grep 2025-06-1", L(
      "2025-06-10-webshop-standup.md",
      "2025-06-11-design-review.md",
      "2025-06-12-webshop-standup.md",
      "2025-06-13-1on1-maria.md",
      "2025-06-16-planning.md",
    ))],
  });
  s.assistant({
    calls: [
      read("meetings/2025-06-11-design-review.md", L(
        "# Design review: checkout v2",
        "",
        "Present: Maria, Jonas, me",
        "",
        "- Jonas showed the new address form. Autocomplete via the Places API is too expensive at our volume.",
        "- **Decision:** use our own postcode lookup table, fall back to free text.",
        "- Payment step: Stripe Elements stays, but we drop PayPal for now (3% of orders, lots of support tickets).",
        "- **Decision:** PayPal removed in v2, revisit in Q4.",
        "",
        "## Actions",
        "- [ ] Jonas: postcode table import script (by 2025-06-18)",
        "- [ ] me: tell support about PayPal removal",
        "- [x] Maria: update Figma",
        "",
      )),
      read("meetings/2025-06-16-planning.md", L(
        "# Planning W25",
        "",
        "## Webshop",
        "- Stripe webhooks (me), cart rounding bug #4182 (me, urgent)",
        "- Jonas: postcode import",
        "",
        "## logslice",
        "- time filters, aim for 0.4 release end of month",
        "- **Decision:** no Windows binaries in 0.4",
        "",
        "## Actions",
        "- [ ] me: webhook design by Wed",
        "- [ ] Maria: load test checkout staging (k6) before Friday",
        "",
      )),
      bash("grep -hE '^\\- \\[[ x]\\]|Decision' meetings/2025-06-1[023]*.md", L(
        "- **Decision:** standup moves to 9:30 from next week",
        "- [ ] me: bump node to 20.14 on CI",
        "- [x] Jonas: fix flaky checkout e2e test",
        "- **Decision:** feature freeze for checkout v2 on 2025-06-27",
        "- [ ] me: ask Maria about conference budget",
        "- [ ] Maria: send offsite dates",
      )),
    ],
  });
  s.assistant({
    calls: [write("digests/2025-W25.md", L(
      "# Weekly digest: 2025-W25",
      "",
      "## Webshop / checkout v2",
      "",
      "**Decisions**",
      "- Own postcode lookup table instead of the Places API; free text as fallback (design review, 06-11).",
      "- PayPal is removed in checkout v2; revisit in Q4 (design review, 06-11).",
      "- Feature freeze for checkout v2 on **2025-06-27** (standup, 06-12).",
      "- Standup moves to 9:30 (standup, 06-10).",
      "",
      "**Open actions**",
      "- [ ] Jonas: postcode table import script, due 06-18",
      "- [ ] me: tell support about the PayPal removal",
      "- [ ] me: webhook design by Wednesday",
      "- [ ] me: bump Node to 20.14 on CI",
      "- [ ] Maria: k6 load test of checkout staging before Friday",
      "",
      "**Done**",
      "- [x] Maria: Figma updated",
      "- [x] Jonas: flaky checkout e2e test fixed",
      "",
      "## logslice",
      "",
      "**Decisions**",
      "- No Windows binaries in 0.4 (planning, 06-16).",
      "",
      "**Open actions**",
      "- [ ] time filters for the 0.4 release, end of June",
      "",
      "## Personal",
      "",
      "- [ ] ask Maria about the conference budget",
      "- [ ] Maria: send offsite dates",
      "",
    ))],
  });
  s.assistant({ say: "Wrote `digests/2025-W25.md`: 5 decisions and 10 action items (2 done) from the five meetings, grouped into Webshop, logslice and Personal. Each decision names the meeting it came from." });
  s.name("Weekly digest W25");
  s.user("Move the personal items out, they shouldn't be in a file I share.");
  s.assistant({
    calls: [
      edit("digests/2025-W25.md", 29, ["\n## Personal\n\n- [ ] ask Maria about the conference budget\n- [ ] Maria: send offsite dates\n", ""]),
      bash("printf '%s\\n' '- [ ] ask Maria about the conference budget' '- [ ] Maria: send offsite dates' >> private/todo.md && tail -3 private/todo.md", L(
        "- [ ] renew passport",
        "- [ ] ask Maria about the conference budget",
        "- [ ] Maria: send offsite dates",
      )),
    ],
  });
  s.assistant({ say: "Removed the Personal section from the digest and appended both items to `private/todo.md` instead." });
  return s;
}

function notesLinkChecker(stage) {
  const s = new Demo(stage, {
    cwd: NOTES,
    start: "2025-06-24T19:10:44.000Z",
    model: "openai/gpt-5.1-codex",
    thinking: "medium",
  });
  s.user("Write a script that finds broken links in my notes: relative links to missing files and missing #anchors. Python, no dependencies.", { after: 22000 });
  s.assistant({
    think: "Markdown links [text](target). Relative paths resolved from the file's dir, anchors as GitHub-style slugs of headings. Skip http(s) and mailto.",
    calls: [bash("find . -name '*.md' | wc -l; python3 --version; ls scripts 2>/dev/null", "412\nPython 3.12.3\nnew-note.sh\n")],
  });
  s.assistant({
    calls: [write("scripts/check_links.py", L(
      "#!/usr/bin/env python3",
      "\"\"\"Report broken relative links and anchors in the markdown notes.\"\"\"",
      "",
      "import re",
      "import sys",
      "from pathlib import Path",
      "",
      "LINK = re.compile(r\"(?<!!)\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\\\"[^\\\"]*\\\")?\\)\")",
      "HEADING = re.compile(r\"^#{1,6}\\s+(.*?)\\s*#*\\s*$\", re.M)",
      "FENCE = re.compile(r\"^```.*?^```\", re.M | re.S)",
      "",
      "",
      "def slug(heading: str) -> str:",
      "    s = re.sub(r\"[^\\w\\- ]\", \"\", heading.strip().lower())",
      "    return s.replace(\" \", \"-\")",
      "",
      "",
      "def anchors(path: Path, cache: dict) -> set:",
      "    if path not in cache:",
      "        text = FENCE.sub(\"\", path.read_text(encoding=\"utf-8\"))",
      "        cache[path] = {slug(h) for h in HEADING.findall(text)}",
      "    return cache[path]",
      "",
      "",
      "def main(root: Path) -> int:",
      "    cache: dict = {}",
      "    broken = 0",
      "    for md in sorted(root.rglob(\"*.md\")):",
      "        text = FENCE.sub(\"\", md.read_text(encoding=\"utf-8\"))",
      "        for lineno, line in enumerate(text.splitlines(), 1):",
      "            for target in LINK.findall(line):",
      "                if re.match(r\"^[a-z]+:\", target):",
      "                    continue",
      "                file_part, _, anchor = target.partition(\"#\")",
      "                dest = (md.parent / file_part).resolve() if file_part else md",
      "                if not dest.exists():",
      "                    print(f\"{md.relative_to(root)}:{lineno}: missing file {file_part}\")",
      "                    broken += 1",
      "                elif anchor and dest.suffix == \".md\" and anchor not in anchors(dest, cache):",
      "                    print(f\"{md.relative_to(root)}:{lineno}: missing anchor #{anchor} in {dest.relative_to(root)}\")",
      "                    broken += 1",
      "    print(f\"{broken} broken link(s)\", file=sys.stderr)",
      "    return 1 if broken else 0",
      "",
      "",
      "if __name__ == \"__main__\":",
      "    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else \".\").resolve()))",
      "",
    ))],
  });
  const run1 = s.assistant({
    calls: [bash("python3 scripts/check_links.py", L(
      "digests/2025-W24.md:12: missing file ../meetings/2025-06-05-planing.md",
      "projects/logslice.md:8: missing anchor #time-filters in projects/logslice.md",
      "projects/webshop.md:31: missing file ../adr/0007-payments.md",
      "reading/rust.md:4: missing anchor #async-book in reading/rust.md",
      "reading/rust.md:19: missing anchor #the-rustonomicon in reading/rust.md",
      "4 broken link(s)",
    ), { exit: 1, ms: 700 })],
  });
  s.assistant({
    think: "It printed 5 lines but counted 4? No: count says 4 but 5 printed — oh the summary line is stderr; 5 broken printed... Let me check reading/rust.md anchors; 'the-rustonomicon' might be a false positive due to emoji or punctuation in headings.",
    calls: [bash("grep -n '^#' reading/rust.md", L(
      "1:# Rust reading list",
      "3:## Async Book 📘",
      "17:## The Rustonomicon (unsafe)",
    ))],
  });
  s.assistant({
    say: L(
      "Two of these are false positives from my slug function:",
      "",
      "- `## Async Book 📘`: GitHub's slug is `async-book-` (the emoji is removed but the space before it stays), so the link `#async-book` is actually broken on GitHub too, but for a different reason than my script thinks.",
      "- `## The Rustonomicon (unsafe)`: GitHub gives `the-rustonomicon-unsafe`; the link `#the-rustonomicon` is really broken.",
      "",
      "So the script is right about all five links, but it undercounts: it printed 5 and reported 4. The counter misses the case where the anchor check runs on the *same* file. Fixing the count and matching GitHub's slug rules exactly (keep `-` and `_`, drop other punctuation and emoji, spaces to `-`).",
    ),
    calls: [
      edit("scripts/check_links.py", 13,
        ["def slug(heading: str) -> str:\n    s = re.sub(r\"[^\\w\\- ]\", \"\", heading.strip().lower())\n    return s.replace(\" \", \"-\")", "def slug(heading: str) -> str:\n    \"\"\"GitHub's anchor for a heading.\"\"\"\n    s = re.sub(r\"[^\\w\\- ]\", \"\", heading.strip().lower(), flags=re.UNICODE)\n    return s.replace(\" \", \"-\")"],
      ),
    ],
  });
  s.user("wait, what's wrong with the counter? looks fine to me", { after: 41000 });
  s.assistant({
    think: "Re-read: broken += 1 in both branches. 5 lines printed ... I counted wrong: the output has 5 lines plus '4 broken link(s)'. Let me just rerun and count with wc.",
    calls: [bash("python3 scripts/check_links.py 2>/dev/null | wc -l; python3 scripts/check_links.py 2>&1 >/dev/null", "5\n5 broken link(s)\n", { exit: 1, ms: 800 })],
  });
  s.assistant({
    say: "You're right, and I was wrong: the counter is fine. The run above reports **5 broken link(s)** for 5 lines; the `4` came from the earlier run, before I had rewritten `reading/rust.md`'s link list in my head. Sorry for the noise. The slug change is still correct (it now keeps Unicode word characters like `ü`, as GitHub does).",
  });
  s.label(run1.last, "first-run");
  s.user("ok. fix the 5 links, and add it to the pre-commit hook");
  s.assistant({
    calls: [
      edit("digests/2025-W24.md", 12, ["../meetings/2025-06-05-planing.md", "../meetings/2025-06-05-planning.md"]),
      edit("projects/logslice.md", 8, ["(#time-filters)", "(#time-ranges)"]),
      edit("projects/webshop.md", 31, ["../adr/0007-payments.md", "../adr/0007-stripe-payments.md"]),
      edit("reading/rust.md", 4, ["(#async-book)", "(#async-book-)"], ["(#the-rustonomicon)", "(#the-rustonomicon-unsafe)"]),
      write(".git/hooks/pre-commit", L("#!/bin/sh", "exec python3 scripts/check_links.py", "")),
      bash("chmod +x .git/hooks/pre-commit && python3 scripts/check_links.py", "0 broken link(s)\n", { ms: 650 }),
    ],
  });
  const clean = s.assistant({ say: "All 5 links fixed (one typo, one renamed ADR, three anchors) and `check_links.py` is the pre-commit hook now, so a commit with a broken link is refused. The full check of 412 notes takes ~0.6 s." });
  s.label(clean.id, "done");
  s.bashExecution("git commit -am 'notes: fix links, add link checker hook'", "0 broken link(s)\n[main 4e1b2c0] notes: fix links, add link checker hook\n 6 files changed, 61 insertions(+), 5 deletions(-)\n create mode 100755 scripts/check_links.py\n");
  return s;
}

function notesQuestion(stage) {
  const s = new Demo(stage, {
    cwd: NOTES,
    start: "2025-06-27T12:00:31.000Z",
    model: "openai/gpt-5.1",
    thinking: "low",
  });
  s.user("quick one: for this notes repo, should I rebase or merge when I pull on my laptop after editing on my phone?", { after: 11000 });
  s.assistant({
    think: "Single user, two devices, linear history preferred. Rebase with autostash.",
    say: L(
      "**Rebase.** It's just you on two devices, so nobody else has your local commits and a linear history is easier to read.",
      "",
      "```sh",
      "git config --global pull.rebase true",
      "git config --global rebase.autoStash true",
      "```",
      "",
      "With that, a plain `git pull` replays your laptop commits on top of the phone's. Conflicts are rare for notes, and when they happen they're resolved per commit.",
      "",
      "Merge is the better choice only when a branch is shared and others have already pulled your commits.",
    ),
  });
  s.user("and if I get a conflict in the middle of a rebase and want out?");
  s.assistant({
    say: L(
      "`git rebase --abort` puts everything back exactly as it was before the pull (your local commits included). If you have already resolved some commits and only want to skip the current one: `git rebase --skip`, which drops *that* commit's changes, so use it carefully.",
    ),
  });
  return s;
}

// ---------------------------------------------------------------------------------------------
// main

function parseArgs(argv) {
  let staging = "/home/demo/.pi/agent";
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--staging") staging = argv[++i];
    else {
      process.stderr.write("usage: make-demo.mjs [--staging AGENTDIR]\n");
      process.exit(2);
    }
  }
  return { staging: resolve(staging) };
}

const { staging } = parseArgs(process.argv.slice(2));
const stageSessions = join(staging, "sessions");
if (existsSync(stageSessions) && readdirSync(stageSessions).length > 0) {
  throw new Error(`${stageSessions} is not empty; pass --staging with an unused directory`);
}
const createdTop = mkdirSync(stageSessions, { recursive: true }); // first dir created, or undefined

try {
  // chronological order: pi's UUIDv7 generator is monotonic within one process
  webshopCartRounding(stageSessions);
  notesDigest(stageSessions);
  webshopWebhookTests(webshopStripe(stageSessions));
  webshopSlowBuild(stageSessions);
  rustTimeFilters(stageSessions);
  notesLinkChecker(stageSessions);
  rustParserRefactor(stageSessions);
  rustClippy(stageSessions);
  notesQuestion(stageSessions);

  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(dirname(OUT), { recursive: true });
  cpSync(stageSessions, OUT, { recursive: true });

  // mtime = newest entry timestamp (git does not keep it, but a fresh checkout of the demo is
  // copied by pitree anyway)
  let total = 0;
  const rows = [];
  for (const dir of readdirSync(OUT).sort()) {
    for (const f of readdirSync(join(OUT, dir)).sort()) {
      const p = join(OUT, dir, f);
      const lines = readFileSync(p, "utf8").trim().split("\n");
      const last = JSON.parse(lines[lines.length - 1]);
      const t = new RealDate(last.timestamp ?? JSON.parse(lines[0]).timestamp);
      utimesSync(p, t, t);
      const size = statSync(p).size;
      total += size;
      rows.push(`${String(lines.length - 1).padStart(4)} entries  ${String(size).padStart(7)} B  ${dir}/${f}`);
    }
  }
  process.stdout.write(`${rows.join("\n")}\n${rows.length} sessions, ${total} bytes in ${OUT}\n`);
} finally {
  rmSync(stageSessions, { recursive: true, force: true });
  if (createdTop) rmSync(createdTop, { recursive: true, force: true });
}
