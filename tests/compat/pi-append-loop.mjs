#!/usr/bin/env node
// pi-append-loop.mjs FILE N [--bytes B] [--every-ms MS]
//
// Opens FILE with pi 1.6.0's own SessionManager.open and appends N messages (user and assistant in
// turn, each with about B bytes of text, default 200) through appendMessage, as fast as it can, or
// one every MS milliseconds. pi does not re-read the file, so every message continues pi's own
// leaf whatever other writers append meanwhile, exactly as a running pi does.
//
// Prints {"appended": N, "ids": [...], "ms": elapsed} when done.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const PI_VERSION = "1.6.0";

function sessionManagerUrl() {
  const indexUrl = import.meta.resolve("@earendil-works/pi-coding-agent");
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", indexUrl)), "utf8"));
  if (pkg.version !== PI_VERSION) {
    throw new Error(`expected @earendil-works/pi-coding-agent ${PI_VERSION}, found ${pkg.version}`);
  }
  return new URL("./core/session-manager.js", indexUrl).href;
}

function parseArgs(argv) {
  const [file, count, ...rest] = argv;
  if (!file || !(Number(count) >= 0)) {
    throw new Error("usage: pi-append-loop.mjs FILE N [--bytes B] [--every-ms MS]");
  }
  const options = { file, count: Number(count), bytes: 200, everyMs: 0 };
  for (let i = 0; i < rest.length; i += 2) {
    if (rest[i] === "--bytes") options.bytes = Number(rest[i + 1]);
    else if (rest[i] === "--every-ms") options.everyMs = Number(rest[i + 1]);
    else throw new Error(`unknown option ${rest[i]}`);
  }
  return options;
}

function message(i, bytes) {
  const text = `pi message ${i} ` + "p".repeat(Math.max(0, bytes - 16));
  if (i % 2 === 0) {
    return { role: "user", content: [{ type: "text", text }], timestamp: Date.now() };
  }
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: Date.now(),
  };
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

const options = parseArgs(process.argv.slice(2));
const { SessionManager } = await import(sessionManagerUrl());
const sm = SessionManager.open(options.file);
const ids = [];
const start = Date.now();
for (let i = 0; i < options.count; i++) {
  ids.push(sm.appendMessage(message(i, options.bytes)));
  if (options.everyMs > 0) await sleep(options.everyMs);
}
process.stdout.write(JSON.stringify({ appended: ids.length, ids, ms: Date.now() - start }) + "\n");
