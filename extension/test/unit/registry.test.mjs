// The page world's files share one namespace, globalThis.__gasoline, in the
// order registration.js declares (PAGE_FILES, RELAY_FILES); the service worker
// loads the lib/ files it needs through background/lib.js. Each classic file
// says in its "Registry:" line what it reads there and what it adds. These
// tests hold those lines to the code and the orders to the lines: a file
// reads only what a file before it added.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PAGE_FILES, RELAY_FILES } from "../../background/registration.js";

const root = new URL("../../", import.meta.url);
const source = (file) => readFileSync(new URL(file, root), "utf8");

/** What a file's "Registry:" line declares: {reads, adds}, as sorted lists. */
function declared(file) {
  const m = source(file).match(/^\/\/ Registry: reads ([^;.]+)(?:; adds ([^.]+(?:\.\w+)*))?\.$/m);
  assert.ok(m, `${file} has no "// Registry: reads …; adds …." line`);
  const list = (s) => (!s || s === "nothing" ? [] : s.split(", ").sort());
  return { reads: list(m[1]), adds: list(m[2]) };
}

/** What the code reads and adds: lib/ and content/ through `__gasoline.x`, page/ through `G`. */
function used(file) {
  const text = source(file);
  const reads = new Set();
  const adds = new Set();
  if (!file.startsWith("page/")) {
    for (const m of text.matchAll(/__gasoline\.(\w+)/g)) reads.add(m[1]);
    const a = text.match(/Object\.assign\(root\.__gasoline \|\| \{\}, \{ (\w+) \}\)/);
    if (a) adds.add(a[1]);
  } else {
    // G.x (read), G.x = (added), G.x.y = (x read, x.y added).
    for (const m of text.matchAll(/\bG\.(\w+)(?:\.(\w+))?( =(?!=))?/g)) {
      if (m[2] && m[3]) {
        reads.add(m[1]);
        adds.add(`${m[1]}.${m[2]}`);
      } else if (m[3]) adds.add(m[1]);
      else reads.add(m[1]);
    }
    // const { a, b } = G; and what a source takes from start.js's context, which is G's.
    for (const m of text.matchAll(/const \{([^}]*)\} = G;|G\.sources\.\w+ = function install\(\{([^}]*)\}\)/g)) {
      for (const n of (m[1] || m[2]).split(",")) reads.add(n.trim());
    }
  }
  for (const a of adds) reads.delete(a);
  return { reads: [...reads].sort(), adds: [...adds].sort() };
}

/** Every file's reads added by a file before it; returns everything added. */
function checkOrder(files, what) {
  const added = new Set();
  for (const file of files) {
    const { reads, adds } = declared(file);
    for (const r of reads) assert.ok(added.has(r), `${what}: ${file} reads ${r}, which no file before it adds`);
    for (const a of adds) added.add(a);
  }
  return added;
}

test("each page-world and relay file's Registry line says what its code reads and adds", () => {
  for (const file of [...PAGE_FILES, ...RELAY_FILES]) assert.deepEqual(declared(file), used(file), file);
});

test("in PAGE_FILES and RELAY_FILES, every file comes after the files it reads", () => {
  checkOrder(PAGE_FILES, "PAGE_FILES");
  checkOrder(RELAY_FILES, "RELAY_FILES");
});

test("start.js installs every source the page files add, and only those", () => {
  const added = [...checkOrder(PAGE_FILES, "PAGE_FILES")].filter((a) => a.startsWith("sources.")).sort();
  const started = source("page/start.js").match(/for \(const name of \[([^\]]+)\]\)/);
  assert.ok(started, "start.js's list of sources");
  const names = started[1].split(",").map((s) => `sources.${JSON.parse(s.trim())}`).sort();
  assert.deepEqual(names, added);
});

test("start.js hands each source everything its install takes", () => {
  const context = source("page/start.js").match(/const context = \{([^}]+)\};/);
  assert.ok(context, "start.js's context");
  const given = new Set([...context[1].matchAll(/(\w+): G\.(\w+)/g)].map((m) => (assert.equal(m[1], m[2]), m[1])));
  for (const file of PAGE_FILES) {
    const install = source(file).match(/G\.sources\.\w+ = function install\(\{([^}]*)\}\)/);
    if (!install) continue;
    for (const n of install[1].split(",").map((s) => s.trim())) assert.ok(given.has(n), `${file} takes ${n}, which start.js does not give`);
  }
});

test("background/lib.js imports the lib files in an order that works, and exports what they add", () => {
  const text = source("background/lib.js");
  const files = [...text.matchAll(/^import "\.\.\/(lib\/\w+\.js)";$/gm)].map((m) => m[1]);
  assert.ok(files.length > 0);
  const added = checkOrder(files, "background/lib.js");
  const exported = text.match(/export const \{([^}]+)\} = globalThis\.__gasoline;/);
  assert.ok(exported, "background/lib.js exports from globalThis.__gasoline");
  assert.deepEqual(exported[1].split(",").map((s) => s.trim()).sort(), [...added].sort());
});

test("the lib files load in node through background/lib.js as in the worker", async () => {
  const lib = await import("../../background/lib.js");
  for (const name of ["limits", "kinds", "secrets", "redact", "scope"]) assert.equal(typeof lib[name], "object", name);
  assert.equal(typeof lib.redact.redactEntry, "function");
});

test("every page-world file ends with its inline source map that puts it on DevTools' ignore list", async () => {
  const { ignoreListLine } = await import("./ignore_list.mjs");
  for (const file of PAGE_FILES) {
    const last = source(file).trimEnd().split("\n").pop();
    assert.equal(last, ignoreListLine(file), `${file}: its last line must be the one ignore_list.mjs makes for it`);
    const map = JSON.parse(Buffer.from(last.split("base64,")[1], "base64").toString());
    assert.deepEqual([map.sources.length, map.ignoreList, map.x_google_ignoreList], [1, [0], [0]], file);
  }
});
