#!/usr/bin/env node
// pi-bench.mjs (--open FILE | --context FILE | --list-all AGENTDIR) [--runs N]
//
// Times pi 1.6.0 for comparison with pitree. Each run is a fresh child process; the clock starts
// after pi's module is imported.
//   --open FILE          SessionManager.open(copy of FILE) + getTree()  (the copy is made once, in a
//                        temp dir, so FILE itself is never modified)
//   --context FILE       the same open + getTree(), then buildSessionContext(): what `pitree context`
//                        and `pitree show` compute
//   --list-all AGENTDIR  PI_CODING_AGENT_DIR=AGENTDIR, SessionManager.listAll()
// Prints { "medianMs": …, "runsMs": [...], "peakRssBytes": …, "baselineRssBytes": … }:
// peakRssBytes is the largest peak RSS of any run's child (process.resourceUsage().maxRSS),
// baselineRssBytes the smallest RSS of a child right after importing pi, before the timed call.

import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
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

async function child(mode, target) {
  const { SessionManager } = await import(sessionManagerUrl());
  const baselineRssBytes = process.memoryUsage().rss;
  const t0 = process.hrtime.bigint();
  let count;
  if (mode === "open" || mode === "context") {
    const sm = SessionManager.open(target, join(target, ".."));
    count = sm.getTree().length;
    if (mode === "context") count = sm.buildSessionContext().messages.length;
  } else {
    count = (await SessionManager.listAll()).length;
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(`${JSON.stringify({ ms, peakRssBytes, baselineRssBytes, count })}\n`);
}

function usage() {
  process.stderr.write("usage: pi-bench.mjs (--open FILE | --context FILE | --list-all AGENTDIR) [--runs N]\n");
  process.exit(2);
}

async function parent(argv) {
  let mode = null;
  let target = null;
  let runs = 3;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--open" || a === "--context" || a === "--list-all") {
      if (mode) usage();
      mode = a.slice(2);
      target = argv[++i];
    } else if (a === "--runs") {
      runs = Number(argv[++i]);
    } else usage();
  }
  if (!mode || !target || !Number.isInteger(runs) || runs < 1) usage();

  let dir = null;
  let childTarget = resolve(target);
  const env = { ...process.env };
  if (mode === "list-all") env.PI_CODING_AGENT_DIR = childTarget;
  try {
    if (mode !== "list-all") {
      dir = mkdtempSync(join(tmpdir(), "pi-bench-"));
      childTarget = join(dir, basename(target));
      copyFileSync(target, childTarget);
    }
    const results = [];
    for (let r = 0; r < runs; r++) {
      const res = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", mode, childTarget], {
        env,
        encoding: "utf8",
        maxBuffer: 1 << 20,
      });
      if (res.status !== 0) {
        throw new Error(`child failed (status ${res.status}, signal ${res.signal}): ${res.stderr}`);
      }
      results.push(JSON.parse(res.stdout.trim().split("\n").pop()));
    }
    const runsMs = results.map((r) => Math.round(r.ms * 1000) / 1000);
    const sorted = [...runsMs].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    const medianMs = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    process.stdout.write(
      `${JSON.stringify({
        medianMs,
        runsMs,
        peakRssBytes: Math.max(...results.map((r) => r.peakRssBytes)),
        baselineRssBytes: Math.min(...results.map((r) => r.baselineRssBytes)),
        ...{ open: { roots: results[0].count }, context: { messages: results[0].count } }[mode] ??
          { sessions: results[0].count },
      })}\n`,
    );
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") {
  await child(process.argv[3], process.argv[4]);
} else {
  try {
    await parent(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`pi-bench: ${error?.stack ?? error}\n`);
    process.exit(1);
  }
}
