#!/usr/bin/env node
// pi-list.mjs (--agent-dir DIR [--cwd CWD] | --dir DIR) [--relative]
//
// Prints pi 1.6.0's session listing as a JSON array, in pi's order (modified, newest first), with
// pi's SessionInfo field names: path, id, cwd, name (or null), parentSessionPath (or null),
// created, modified (ISO-8601 strings, null if pi's Date is invalid), messageCount, firstMessage,
// allMessagesText.
//
//   --agent-dir DIR  sets PI_CODING_AGENT_DIR=DIR before pi is imported and calls
//                    SessionManager.listAll()  (reads DIR/sessions/*/*.jsonl)
//   --cwd CWD        with --agent-dir: SessionManager.list(CWD) instead (the sessions of one
//                    folder, as /resume opens)
//   --dir DIR        calls SessionManager.listAll(DIR)  (one flat folder)
//   --relative       makes `path`, and `parentSessionPath` when it points inside, relative to DIR
//                    (the style of /work/shared/fixtures/*/listing.pi.json)

import { readFileSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
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

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** JSON.stringify that writes lone UTF-16 surrogates as the literal text `\uXXXX` (serde-safe). */
function safeStringify(value) {
  return JSON.stringify(value, (_key, v) =>
    typeof v === "string"
      ? v.replace(LONE_SURROGATE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
      : v,
  );
}

function usage() {
  process.stderr.write("usage: pi-list.mjs (--agent-dir DIR [--cwd CWD] | --dir DIR) [--relative]\n");
  process.exit(2);
}

let agentDir = null;
let dir = null;
let cwd = null;
let rel = false;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--agent-dir") agentDir = argv[++i];
  else if (a === "--dir") dir = argv[++i];
  else if (a === "--cwd") cwd = argv[++i];
  else if (a === "--relative") rel = true;
  else usage();
}
if ((agentDir === null) === (dir === null) || agentDir === "" || dir === "") usage();
if (cwd !== null && (agentDir === null || cwd === "")) usage();

let root;
if (agentDir !== null) {
  root = resolve(agentDir);
  process.env.PI_CODING_AGENT_DIR = root; // must happen before pi's modules are loaded
} else {
  root = resolve(dir);
}

const { SessionManager } = await import(sessionManagerUrl());
const infos =
  cwd !== null
    ? await SessionManager.list(cwd)
    : agentDir !== null
      ? await SessionManager.listAll()
      : await SessionManager.listAll(root);

const iso = (d) => (d instanceof Date && !Number.isNaN(d.getTime()) ? d.toISOString() : null);
const inside = (p) => {
  if (typeof p !== "string") return p;
  const r = relative(root, p);
  return r && !r.startsWith("..") && !isAbsolute(r) ? r : p;
};

const rows = infos.map((s) => ({
  path: rel ? inside(s.path) : s.path,
  id: s.id,
  cwd: s.cwd,
  name: s.name ?? null,
  parentSessionPath: s.parentSessionPath === undefined ? null : rel ? inside(s.parentSessionPath) : s.parentSessionPath,
  created: iso(s.created),
  modified: iso(s.modified),
  messageCount: s.messageCount,
  firstMessage: s.firstMessage,
  allMessagesText: s.allMessagesText,
}));
process.stdout.write(`${safeStringify(rows)}\n`);
