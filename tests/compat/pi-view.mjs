#!/usr/bin/env node
// pi-view.mjs <file> [--cwd DIR] [--timeout MS] [--no-texts]
//
// Shows how the REAL pi 1.6.0 SessionManager sees one session file, as ONE JSON object on stdout.
// The file is copied to a temp dir first (pi may append "\n" or migrate/rewrite on open); the
// original is never touched. pi is run in a child process (cwd = --cwd, default "/") with a
// per-call timeout, because pi loops forever on parent cycles. A call that does not finish (or
// that makes V8 abort) is recorded in `hangStages` and the remaining calls are retried in a fresh
// child. Field meanings follow /work/shared/fixtures/README.md (`<name>.pi.json`).

import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const PI_VERSION = "1.6.0";
const STAGES = ["getTree", "getBranch", "buildContextEntries", "buildSessionContext"];

// ---------------------------------------------------------------------------------------------
// shared helpers

/** URL of pi's dist/core/session-manager.js (the subpath is not in the package's `exports`). */
function sessionManagerUrl() {
  const indexUrl = import.meta.resolve("@earendil-works/pi-coding-agent");
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", indexUrl)), "utf8"));
  if (pkg.version !== PI_VERSION) {
    throw new Error(`expected @earendil-works/pi-coding-agent ${PI_VERSION}, found ${pkg.version}`);
  }
  return new URL("./core/session-manager.js", indexUrl).href;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
let loneSurrogatesEscaped = false;
/** JSON.stringify that writes lone UTF-16 surrogates as the literal text `\uXXXX` (serde-safe). */
function safeStringify(value) {
  return JSON.stringify(value, (_key, v) => {
    if (typeof v === "string" && LONE_SURROGATE.test(v)) {
      LONE_SURROGATE.lastIndex = 0;
      loneSurrogatesEscaped = true;
      return v.replace(LONE_SURROGATE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    }
    return v;
  });
}

// ---------------------------------------------------------------------------------------------
// child: runs pi

async function child(copyPath, sessionDir, origPath, stages, withTexts) {
  let flagged = false;
  const emit = (obj) => {
    process.stdout.write(`${safeStringify(obj)}\n`);
    if (loneSurrogatesEscaped && !flagged) {
      flagged = true;
      process.stdout.write(`${JSON.stringify({ loneSurrogatesEscaped: true })}\n`);
    }
  };
  const { SessionManager } = await import(sessionManagerUrl());

  // Physical line of every value pi's loader keeps (same rules as loadEntriesFromFile: split on
  // "\n", skip blank lines, lines JSON.parse rejects, and falsy values).
  const parsedLines = [];
  try {
    const text = readFileSync(origPath).toString("utf8");
    const lines = text.split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i].trim()) continue;
      try {
        if (JSON.parse(lines[i])) parsedLines.push(i + 1);
      } catch {
        // malformed: skipped by pi too
      }
    }
  } catch {
    // unreadable / too large for one string: no line numbers
  }

  emit({ start: "open" });
  let sm;
  try {
    sm = SessionManager.open(copyPath, sessionDir);
  } catch (error) {
    const message = String(error?.message ?? error).split(copyPath).join("<file>");
    emit({ stage: "open", result: { loadError: message } });
    return;
  }

  // pi's fileEntries (header included) are the parsed values in order, so they map onto lines.
  const fileEntries = sm.fileEntries;
  const lineOf = new Map();
  if (Array.isArray(fileEntries) && fileEntries.length === parsedLines.length) {
    fileEntries.forEach((e, i) => lineOf.set(e, parsedLines[i]));
  }
  const nameOf = (e) => {
    if (e !== null && typeof e === "object" && typeof e.id === "string") return e.id;
    const line = lineOf.get(e);
    return `<no-id@line ${line ?? "?"}>`;
  };
  const isObj = (e) => e !== null && typeof e === "object" && !Array.isArray(e);

  const header = sm.getHeader();
  const leafId = sm.getLeafId();
  const leafEntry = typeof leafId === "string" ? sm.getEntry(leafId) : undefined;
  const byId = sm.byId;
  const entries = sm.getEntries().map((e) => {
    const out = { line: lineOf.get(e) ?? null };
    if (!isObj(e)) {
      Object.assign(out, { id: null, type: null, parentId: null, notAnObject: JSON.stringify(e), parentLine: null });
      return out;
    }
    out.id = typeof e.id === "string" ? e.id : null;
    out.type = e.type ?? null;
    out.parentId = e.parentId ?? null;
    if (!("id" in e)) out.idMissing = true;
    if (!("parentId" in e)) out.parentIdMissing = true;
    if (typeof e.timestamp === "string") out.timestamp = e.timestamp;
    for (const k of ["label", "targetId", "name", "customType", "summary", "fromId", "firstKeptEntryId"]) {
      if (e[k] !== undefined) out[k] = e[k];
    }
    if (e.type === "message" && isObj(e.message) && e.message.role !== undefined) out.role = e.message.role;
    const parent = e.parentId != null && byId instanceof Map ? byId.get(e.parentId) : undefined;
    out.parentLine = parent !== undefined ? (lineOf.get(parent) ?? null) : null;
    return out;
  });

  const mapToObj = (m) => Object.fromEntries(m instanceof Map ? [...m.entries()] : []);
  emit({
    stage: "open",
    result: {
      loadError: null,
      headerId: header?.id ?? null,
      version: header?.version ?? null,
      cwd: header?.cwd ?? null,
      parentSession: header?.parentSession ?? null,
      smCwd: sm.getCwd(),
      sessionId: sm.getSessionId(),
      entryCount: sm.getEntryCount(),
      entriesLength: entries.length,
      leafId: typeof leafId === "string" ? leafId : null,
      leafIdKind: leafId === null ? "null" : typeof leafId,
      leafParentId: isObj(leafEntry) ? (leafEntry.parentId ?? null) : null,
      leafLine: leafEntry !== undefined ? (lineOf.get(leafEntry) ?? null) : null,
      sessionName: sm.getSessionName() ?? null,
      labels: mapToObj(sm.labelsById),
      labelTimestamps: mapToObj(sm.labelTimestampsById),
      entries,
    },
  });

  for (const stage of stages) {
    emit({ start: stage });
    let result;
    if (stage === "getTree") {
      const roots = sm.getTree();
      const parentOf = {};
      const placements = new Map(); // name -> [parent names]
      const childrenOrder = {};
      const treeLabels = {};
      const treeLabelTimestamps = {};
      const seenNodes = new Set();
      const reachedEntries = new Set();
      // BFS, so that key order is root-first, level by level.
      const queue = roots.map((n) => [n, null]);
      for (let qi = 0; qi < queue.length; qi++) {
        const [node, parentName] = queue[qi];
        const name = nameOf(node.entry);
        if (!placements.has(name)) placements.set(name, []);
        placements.get(name).push(parentName);
        if (!(name in parentOf)) parentOf[name] = parentName;
        if (seenNodes.has(node)) continue;
        seenNodes.add(node);
        reachedEntries.add(node.entry);
        if (node.label !== undefined) treeLabels[name] = node.label;
        if (node.labelTimestamp !== undefined) treeLabelTimestamps[name] = node.labelTimestamp;
        if (node.children.length > 0) {
          childrenOrder[name] = node.children.map((c) => nameOf(c.entry));
          for (const c of node.children) queue.push([c, name]);
        }
      }
      const multiplyPlaced = {};
      for (const [name, parents] of placements) if (parents.length > 1) multiplyPlaced[name] = parents;
      const hidden = sm.getEntries().filter((e) => !reachedEntries.has(e));
      const reachedNames = new Set(placements.keys());
      result = {
        roots: roots.map((n) => nameOf(n.entry)),
        parentOf,
        childrenOrder,
        ...(Object.keys(multiplyPlaced).length ? { multiplyPlaced } : {}),
        unreachableIds: [...new Set(hidden.map(nameOf))].filter((n) => !reachedNames.has(n)),
        hiddenEntryLines: hidden.map((e) => lineOf.get(e) ?? null),
        treeNodeCount: seenNodes.size,
        treeLabels,
        treeLabelTimestamps,
      };
    } else if (stage === "getBranch") {
      result = { branchIds: sm.getBranch().map(nameOf) };
    } else if (stage === "buildContextEntries") {
      result = { contextEntryIds: sm.buildContextEntries().map(nameOf) };
    } else if (stage === "buildSessionContext") {
      const ctx = sm.buildSessionContext();
      const projection = sm.buildSessionProjection();
      result = {
        contextMessageRoles: ctx.messages.map((m) => m?.role ?? null),
        thinkingLevel: ctx.thinkingLevel,
        model: ctx.model,
        contextEntryMessageRoles: projection.entries.map((p) => p.messages.map((m) => m?.role ?? null)),
      };
      if (withTexts) {
        result.contextMessageTexts = ctx.messages.map((m) => {
          const c = m?.content;
          if (typeof c === "string") return c;
          if (Array.isArray(c)) {
            return c.filter((b) => b?.type === "text").map((b) => b.text).join("\n");
          }
          if (typeof m?.summary === "string") return m.summary;
          return null;
        });
      }
    }
    emit({ stage, result });
  }
}

// ---------------------------------------------------------------------------------------------
// parent: copies the file, drives children, assembles the record

function runChild(args, cwd, timeoutMs) {
  return new Promise((resolvePromise) => {
    const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const results = {};
    let current = null;
    let stageStart = Date.now();
    let buf = "";
    let stderr = "";
    let timedOut = false;
    let timer;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        proc.kill("SIGKILL");
      }, timeoutMs);
    };
    arm();
    proc.stdout.setEncoding("utf8");
    proc.stdout.on("data", (chunk) => {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf("\n")) !== -1) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line) continue;
        const msg = JSON.parse(line);
        if (msg.loneSurrogatesEscaped) {
          results.loneSurrogatesEscaped = true;
        } else if (msg.start) {
          current = msg.start;
          stageStart = Date.now();
          arm();
        } else if (msg.stage) {
          results[msg.stage] = msg.result;
          current = null;
        }
      }
    });
    proc.stderr.setEncoding("utf8");
    proc.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    proc.on("close", (status, signal) => {
      clearTimeout(timer);
      const ms = Date.now() - stageStart;
      const errLines = stderr.trim().split("\n").filter(Boolean);
      const tail = errLines.find((l) => /Fatal JavaScript/.test(l)) ??
        errLines.find((l) => /Fatal|Error|error/.test(l)) ?? errLines[errLines.length - 1];
      let failure = null;
      if (current !== null) {
        failure = {
          stage: current,
          endedBy: timedOut
            ? `killed after ${timeoutMs / 1000} s timeout`
            : `child died (status ${status}, signal ${signal})`,
          ms,
          ...(tail && !timedOut ? { stderrTail: tail } : {}),
        };
      } else if (status !== 0) {
        failure = { stage: null, endedBy: `child exited (status ${status}, signal ${signal})`, ms, stderrTail: tail };
      }
      resolvePromise({ results, failure });
    });
  });
}

async function parent(argv) {
  let file = null;
  let cwd = "/";
  let timeoutMs = 10000;
  let withTexts = true;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--cwd") cwd = argv[++i];
    else if (a === "--timeout") timeoutMs = Number(argv[++i]);
    else if (a === "--no-texts") withTexts = false;
    else if (a.startsWith("--")) throw new Error(`unknown option ${a}`);
    else if (file === null) file = a;
    else throw new Error(`unexpected argument ${a}`);
  }
  if (!file) {
    process.stderr.write("usage: pi-view.mjs <file> [--cwd DIR] [--timeout MS] [--no-texts]\n");
    process.exit(2);
  }
  const original = resolve(file);
  const originalBytes = readFileSync(original);
  const dir = mkdtempSync(join(tmpdir(), "pi-view-"));
  const copy = join(dir, basename(original));
  copyFileSync(original, copy);

  try {
    const results = {};
    const hangStages = [];
    const hangDetails = {};
    let remaining = [...STAGES];
    let fatal = null;
    while (true) {
      const args = ["--child", copy, dir, original, remaining.join(","), withTexts ? "1" : "0"];
      const { results: r, failure } = await runChild(args, resolve(cwd), timeoutMs);
      Object.assign(results, r);
      if (!failure) break;
      if (failure.stage === null || failure.stage === "open") {
        fatal = failure;
        break;
      }
      hangStages.push(failure.stage);
      const { stage, ...details } = failure;
      hangDetails[stage] = details;
      remaining = remaining.slice(remaining.indexOf(stage) + 1);
      if (remaining.length === 0) break;
    }
    if (fatal) throw new Error(`pi child failed: ${JSON.stringify(fatal)}`);

    const after = readFileSync(copy);
    let copyChange = "rewritten";
    if (after.equals(originalBytes)) copyChange = "unchanged";
    else if (
      after.length === originalBytes.length + 1 &&
      after[after.length - 1] === 0x0a &&
      after.subarray(0, originalBytes.length).equals(originalBytes)
    ) {
      copyChange = "appended-newline";
    }

    const open = results.open ?? {};
    const escaped = results.loneSurrogatesEscaped === true;
    const out = {
      pi: PI_VERSION,
      loadError: open.loadError ?? null,
      hang: hangStages.length > 0,
      ...(hangStages.length ? { hangStages, hangDetails } : {}),
      migrated: copyChange === "rewritten",
      copyChange,
      fileBytesBefore: originalBytes.length,
      fileBytesAfter: statSync(copy).size,
    };
    if (open.loadError == null) {
      const { entries, ...rest } = open;
      Object.assign(out, rest, results.getTree, results.getBranch, results.buildContextEntries);
      Object.assign(out, results.buildSessionContext);
      out.entries = entries;
    }
    if (escaped) out.loneSurrogatesEscaped = true;
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") {
  const [copyPath, sessionDir, origPath, stages, withTexts] = process.argv.slice(3);
  await child(copyPath, sessionDir, origPath, stages ? stages.split(",") : [], withTexts === "1");
} else {
  try {
    await parent(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`pi-view: ${error?.stack ?? error}\n`);
    process.exit(1);
  }
}
