#!/usr/bin/env node
// pi-tree.mjs <file> [filter]
//
// The rows of the REAL pi 1.6.0 /tree navigator (its TreeSelectorComponent) for one session file,
// as ONE JSON object on stdout: {leaf, rows: [{id, row}]}, in pi's display order, with the
// terminal colours taken out. `filter` is pi's filter mode (default, no-tools, user-only,
// labeled-only, all; default "all"). The file is copied to a temp dir first, as pi may append to
// or migrate a file it opens. A row whose text pi fails to build reads "<pi failed>".

import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

const PI_VERSION = "1.6.0";

/** URL of a file in pi's dist/ (the subpaths are not in the package's `exports`). */
function distUrl(path) {
  const indexUrl = import.meta.resolve("@earendil-works/pi-coding-agent");
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", indexUrl)), "utf8"));
  if (pkg.version !== PI_VERSION) {
    throw new Error(`expected @earendil-works/pi-coding-agent ${PI_VERSION}, found ${pkg.version}`);
  }
  return new URL(`./${path}`, indexUrl).href;
}

const [file, filter = "all"] = process.argv.slice(2);
if (!file) {
  process.stderr.write("usage: pi-tree.mjs <file> [filter]\n");
  process.exit(2);
}

const { SessionManager } = await import(distUrl("core/session-manager.js"));
const theme = await import(distUrl("modes/interactive/theme/theme.js"));
theme.initTheme("dark", false);
const { TreeSelectorComponent } = await import(distUrl("modes/interactive/components/tree-selector.js"));

const dir = mkdtempSync(join(tmpdir(), "pi-tree-"));
try {
  const copy = join(dir, basename(file));
  copyFileSync(file, copy);
  const sm = SessionManager.open(copy, dir);
  const leaf = sm.getLeafId();
  const noop = () => {};
  const selector = new TreeSelectorComponent(sm.getTree(), leaf, 100000, noop, noop, noop, undefined, filter);
  const list = selector.treeList;
  const rowText = list.getEntryDisplayText.bind(list);
  list.getEntryDisplayText = (node, selected) => {
    try {
      return rowText(node, selected);
    } catch {
      return "<pi failed>";
    }
  };
  const plain = (s) => s.replace(/\x1b\[[0-9;]*m/g, "").replace(/^(› | {2})/, "");
  const lines = list.render(100000);
  const rows = list.filteredNodes.map((n, i) => ({ id: n.node.entry.id ?? null, row: plain(lines[i]) }));
  process.stdout.write(JSON.stringify({ leaf, rows }) + "\n");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
