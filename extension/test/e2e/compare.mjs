// Marks and `observe what=compare` in real Chromium with the real extension:
// a page throws error A; the agent marks "before-fix"; the page is "fixed" (the
// server now serves a script that no longer throws A but throws B) and reloads.
// compare across the mark, and across the tab's last two page loads, says A gone
// and B new, with ids that drill down to the entries.
//
//   node extension/test/e2e/compare.mjs     (GASOLINE_BIN, CHROMIUM as for run.mjs)
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import {
  checkPrerequisites,
  freePort,
  launch,
  observe,
  serve,
  serviceWorker,
  startGasoline,
  stopGasoline,
  testBuild,
  waitFor,
} from "./harness.mjs";

const log = (m) => console.log(`compare e2e: ${m}`);
checkPrerequisites((m) => {
  console.error(m);
  process.exit(1);
});

// A: "TypeError: Cannot read properties of undefined (reading 'total')"; B: "ReferenceError: discount is not defined".
let version = "A";

// The app: its script, as the dev server serves it after each edit.
const scripts = {
  A: `console.warn("cart: legacy pricing in use");
      window.addEventListener("load", () => { window.done = true; const cart = {}; cart.items.total; });`,
  B: `window.addEventListener("load", () => { window.done = true; discount * 2; });`,
};
const app = await serve((req, res) => {
  const headers = { "cache-control": "no-store" };
  if (req.url.startsWith("/missing.js")) {
    res.writeHead(404, headers);
    res.end();
  } else if (req.url.startsWith("/app.js")) {
    res.writeHead(200, { ...headers, "content-type": "text/javascript" });
    res.end(scripts[version]);
  } else {
    res.writeHead(200, { ...headers, "content-type": "text/html" });
    // Version B's head also asks for a script that is not there: a request of the page's first moments.
    const missing = version === "B" ? `<script src="/missing.js"></script>` : "";
    res.end(`<!doctype html><meta charset="utf-8"><title>cart</title>${missing}<h1>Cart</h1><script src="/app.js?v=${version}"></script>`);
  }
});
const url = `${app.origin}/cart`;

const work = mkdtempSync(path.join(tmpdir(), "gasoline-compare-"));
const port = await freePort();
const client = await startGasoline(port, path.join(work, "gasoline.db"));
let context;

async function configure(args) {
  const result = await client.callTool({ name: "configure", arguments: args });
  const text = result.content.map((c) => c.text).join("");
  if (result.isError) throw new Error(`configure ${JSON.stringify(args)}: ${text}`);
  return JSON.parse(text);
}

async function errorsOf(tabId) {
  const answer = await observe(client, { what: "errors", tabId, offset: -50 });
  return answer.entries.map((e) => e.message ?? answer.common?.message);
}

try {
  context = await launch(path.join(work, "profile"), testBuild(work));
  const worker = await serviceWorker(context);
  await worker.evaluate((serverUrl) => chrome.storage.local.set({ settings: { serverUrl } }), `http://127.0.0.1:${port}`);
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.done);
  const tabId = await waitFor("the tab's id", async () => {
    const ids = await worker.evaluate(async (u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id), url);
    return ids.length === 1 && ids[0];
  });
  await waitFor("error A stored", async () => (await errorsOf(tabId)).some((m) => m?.includes("reading 'total'")), 20000);
  log(`error A stored (tab ${tabId})`);

  const mark = await configure({ action: "mark", name: "before-fix" });
  assert.equal(mark.mark, "before-fix");

  // The fix: the next load runs version B.
  version = "B";
  await page.reload();
  await page.waitForFunction(() => window.done);
  await waitFor("error B stored", async () => (await errorsOf(tabId)).some((m) => m?.includes("discount is not defined")), 20000);
  log("error B stored after the reload");

  // "Since the last load" begins where the reload's navigation began: its document's own row and
  // the script its head failed to load (both before any script of the page ran) are in it.
  const sinceLoad = await waitFor("the reload's first requests since its navigation", async () => {
    const rows = (await observe(client, { what: "network_waterfall", since_navigation: true, tabId, fields: "all" })).entries;
    return rows.some((r) => r.url.endsWith("/missing.js")) && rows;
  });
  assert.ok(sinceLoad.some((r) => r.url === url), `the document's own row: ${JSON.stringify(sinceLoad.map((r) => r.url))}`);
  assert.ok(!sinceLoad.some((r) => r.url.endsWith("/app.js?v=A")), "nothing of the load before");
  log("since_navigation: the reload's document and its failed head script");

  const check = (c, how) => {
    const gone = c.errors.gone.items.map((g) => g.fingerprint);
    const added = c.errors.new.items.map((g) => g.fingerprint);
    assert.ok(gone.some((f) => f.includes("reading 'total'")), `${how}: A gone: ${JSON.stringify(c.errors)}`);
    assert.ok(added.some((f) => f.includes("discount is not defined")), `${how}: B new: ${JSON.stringify(c.errors)}`);
    assert.ok(!added.some((f) => f.includes("reading 'total'")), `${how}: A is not new`);
    assert.ok(!gone.some((f) => f.includes("discount")), `${how}: B is not gone`);
    assert.ok(c.warnings.gone.items.some((g) => g.fingerprint.includes("legacy pricing")), `${how}: the warning is gone`);
    const failing = c.requests.newly_failing.items.map((r) => r.pattern);
    assert.ok(failing.some((p) => p.includes("/missing.js")), `${how}: the head's missing script newly fails: ${JSON.stringify(c.requests)}`);
  };
  const acrossMark = await waitFor("compare across the mark", async () => {
    const c = await observe(client, { what: "compare", mark: "before-fix", tabId });
    return c.errors.new.count > 0 && c;
  });
  check(acrossMark, "across the mark");
  log("compare mark=before-fix: A gone, B new, the warning gone");

  const acrossLoads = await waitFor("compare across the last two loads", async () => {
    try {
      const c = await observe(client, { what: "compare", tabId });
      return c.errors.new.count > 0 && c;
    } catch {
      return false; // the reload's navigation entry may still be on its way
    }
  });
  check(acrossLoads, "across the last two loads");
  assert.equal(acrossLoads.after.from.url, url);
  assert.deepEqual([acrossLoads.before.from.how, acrossLoads.after.from.how], ["load", "reload"], "a reload says so");
  log(`compare without a mark: from ${acrossLoads.before.from.how} to ${acrossLoads.after.from.how}, A gone, B new`);
  // The reload is of the same URL: each load is a page of its own, with vitals of its own.
  const vitals = await waitFor("the vitals of both loads", async () => {
    const v = (await observe(client, { what: "compare", tabId })).vitals;
    return v?.before && typeof v.before.ttfb === "number" && typeof v.after?.ttfb === "number" && v;
  });
  assert.deepEqual([vitals.before.url, vitals.after.url], [url, url], JSON.stringify(vitals));
  const [first] = (await observe(client, { what: "vitals", tabId })).vitals.previous;
  assert.equal(first.ttfb, vitals.before.ttfb, "the page before is the first load's");
  log("compare without a mark: the vitals of the load before and of the reload");

  const bId = acrossMark.errors.new.items.find((g) => g.fingerprint.includes("discount")).last_id;
  const b = await observe(client, { what: "errors", id: bId });
  assert.ok(b.entries[0].message.includes("discount is not defined"), JSON.stringify(b.entries[0]));
  const since = await observe(client, { what: "errors", since_mark: "before-fix", tabId });
  assert.ok(since.entries.every((e) => !(e.message ?? "").includes("reading 'total'")), "since the mark: no A");
  log("ids drill down; since_mark reads only what followed");
  log("ok");
} finally {
  await context?.close();
  await stopGasoline(client, port);
  app.server.close();
  rmSync(work, { recursive: true, force: true });
}
