#!/usr/bin/env node
// pi-write.mjs < script.json
//
// Performs a JSON "script" with pi 1.6.0's own SessionManager API, so tests can get session files
// written by pi itself. The script is either an array of ops or
//   { "clock": { "start": "<ISO>", "stepMs": 1000 }, "ops": [ ... ] }
// With `clock`, the global Date is replaced by a deterministic clock: every `new Date()` /
// `Date.now()` returns the current fake time and then advances it by stepMs (default 1000).
//
// Ops (each an object with "op"); `as` names the returned entry id as an alias, and later ops may
// use an alias wherever an id is expected (target, firstKeptEntry) or a path is expected (path,
// source: aliases of createBranchedSession / forkFrom name the new file).
//   create {cwd, sessionDir, id?}                 SessionManager.create(cwd, sessionDir, {id})
//   open {path, sessionDir?}                      SessionManager.open(path, sessionDir)
//   forkFrom {source, cwd, sessionDir?, id?, as?} SessionManager.forkFrom(...)  (as -> new file)
//   appendMessage {message, as?}
//   appendModelChange {provider, modelId, as?}
//   appendThinkingLevelChange {level, as?}
//   appendCompaction {summary, firstKeptEntry (alias, id or null), tokensBefore, details?, fromHook?, usage?, as?}
//   appendCustomEntry {customType, data?, as?}
//   appendCustomMessageEntry {customType, content, display, details?, as?}
//   appendLabelChange {target, label?, as?}
//   appendSessionInfo {name, as?}
//   appendUsage {kind, provider, model, usage, note?, as?}
//   appendContextEdit {target, replacement ({content} or null), as?}
//   branch {target}
//   resetLeaf {}
//   branchWithSummary {target (or null), summary, details?, fromHook?, usage?, as?}
//   createBranchedSession {target, as?}           (as -> the new file's path)
//   advance {ms}  /  setTime {time}               move the fake clock (needs "clock")
//
// Prints { "file": <current session file>, "ids": {alias: id}, "paths": {alias: file},
//          "files": [files created by the script, in order], "leafId": ..., "sessionId": ... }.

import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
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

/** Replaces the global Date with a deterministic clock; returns controls for it. */
function installClock(startIso, stepMs = 1000) {
  const RealDate = Date;
  let now = RealDate.parse(startIso);
  if (Number.isNaN(now)) throw new Error(`clock.start is not a valid date: ${startIso}`);
  class FakeDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) {
        super(now);
        now += stepMs;
      } else {
        super(...args);
      }
    }
    static now() {
      const t = now;
      now += stepMs;
      return t;
    }
  }
  globalThis.Date = FakeDate;
  return {
    advance(ms) {
      now += ms;
    },
    set(iso) {
      now = RealDate.parse(iso);
    },
  };
}

const input = readFileSync(0, "utf8");
const script = JSON.parse(input);
const ops = Array.isArray(script) ? script : script.ops;
if (!Array.isArray(ops)) throw new Error("script must be an array of ops or {clock?, ops}");
const clock = !Array.isArray(script) && script.clock ? installClock(script.clock.start, script.clock.stepMs) : null;

const { SessionManager } = await import(sessionManagerUrl());

const ids = {};
const paths = {};
// Files this script creates: create/createBranchedSession/forkFrom always make new files (pi may
// defer writing until the first user/assistant message); open only counts if the path was missing.
const created = new Set();
const preexisting = new Set();
const note = (file) => {
  if (typeof file === "string" && !preexisting.has(file)) created.add(file);
};
const id = (v) => (typeof v === "string" && Object.hasOwn(ids, v) ? ids[v] : v);
const path = (v) => (typeof v === "string" && Object.hasOwn(paths, v) ? paths[v] : v);
const need = (op, k) => {
  if (!(k in op)) throw new Error(`op ${op.op}: missing "${k}"`);
  return op[k];
};

let sm = null;
const requireSm = (op) => {
  if (!sm) throw new Error(`op ${op.op}: no session (use create or open first)`);
  return sm;
};

for (const [index, op] of ops.entries()) {
  try {
    let result;
    switch (op.op) {
      case "create":
        sm = SessionManager.create(need(op, "cwd"), op.sessionDir, op.id !== undefined ? { id: op.id } : undefined);
        break;
      case "open": {
        const file = path(need(op, "path"));
        if (existsSync(file) && !created.has(resolve(file))) preexisting.add(resolve(file));
        sm = SessionManager.open(file, op.sessionDir);
        break;
      }
      case "forkFrom":
        sm = SessionManager.forkFrom(
          path(need(op, "source")),
          need(op, "cwd"),
          op.sessionDir,
          op.id !== undefined ? { id: op.id } : undefined,
        );
        note(sm.getSessionFile());
        if (op.as) paths[op.as] = sm.getSessionFile();
        break;
      case "appendMessage":
        result = requireSm(op).appendMessage(need(op, "message"));
        break;
      case "appendModelChange":
        result = requireSm(op).appendModelChange(need(op, "provider"), need(op, "modelId"));
        break;
      case "appendThinkingLevelChange":
        result = requireSm(op).appendThinkingLevelChange(need(op, "level"));
        break;
      case "appendCompaction":
        result = requireSm(op).appendCompaction(
          need(op, "summary"),
          id(op.firstKeptEntry ?? null),
          need(op, "tokensBefore"),
          op.details,
          op.fromHook,
          op.usage,
        );
        break;
      case "appendCustomEntry":
        result = "data" in op ? requireSm(op).appendCustomEntry(need(op, "customType"), op.data) : requireSm(op).appendCustomEntry(need(op, "customType"));
        break;
      case "appendCustomMessageEntry":
        result = requireSm(op).appendCustomMessageEntry(
          need(op, "customType"),
          need(op, "content"),
          need(op, "display"),
          op.details,
        );
        break;
      case "appendLabelChange":
        result = requireSm(op).appendLabelChange(id(need(op, "target")), op.label);
        break;
      case "appendSessionInfo":
        result = requireSm(op).appendSessionInfo(need(op, "name"));
        break;
      case "appendUsage":
        result = requireSm(op).appendUsage(
          need(op, "kind"),
          need(op, "provider"),
          need(op, "model"),
          need(op, "usage"),
          op.note,
        ).id;
        break;
      case "appendContextEdit":
        result = requireSm(op).appendContextEdit(id(need(op, "target")), need(op, "replacement"));
        break;
      case "branch":
        requireSm(op).branch(id(need(op, "target")));
        break;
      case "resetLeaf":
        requireSm(op).resetLeaf();
        break;
      case "branchWithSummary": {
        const target = need(op, "target");
        result = requireSm(op).branchWithSummary(
          target === null ? null : id(target),
          need(op, "summary"),
          op.details,
          op.fromHook,
          op.usage,
        );
        break;
      }
      case "createBranchedSession": {
        const file = requireSm(op).createBranchedSession(id(need(op, "target")));
        note(file);
        if (op.as) paths[op.as] = file;
        break;
      }
      case "advance":
        if (!clock) throw new Error("advance needs a clock");
        clock.advance(need(op, "ms"));
        break;
      case "setTime":
        if (!clock) throw new Error("setTime needs a clock");
        clock.set(need(op, "time"));
        break;
      default:
        throw new Error(`unknown op ${JSON.stringify(op.op)}`);
    }
    if (op.as && result !== undefined) ids[op.as] = result;
    if (sm) note(sm.getSessionFile());
  } catch (error) {
    process.stderr.write(`pi-write: op #${index} (${op?.op}) failed: ${error?.stack ?? error}\n`);
    process.exit(1);
  }
}

const files = [...created].filter((file) => existsSync(file));
process.stdout.write(
  `${JSON.stringify({
    file: sm ? (sm.getSessionFile() ?? null) : null,
    ids,
    paths,
    files,
    leafId: sm ? sm.getLeafId() : null,
    sessionId: sm ? sm.getSessionId() : null,
  })}\n`,
);
