// Figures for the viewer (BENCHMARKS.md), not a test: a database holding full
// rings (1M log rows with the capacity raised, 100k requests, 10k error groups)
// opened in headless Chromium; then HTTP ingest with and without a viewer
// following live.
//
//   GASOLINE_BIN=target/release/gasoline node extension/test/e2e/viewer_bench.mjs
//
// LOGS, REQUESTS, GROUPS override the sizes (defaults 1,000,000 / 100,000 / 10,000).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { chromium } from "playwright-core";

import { browserPath, checkPrerequisites, freePort, startGasoline, waitFor } from "./harness.mjs";

checkPrerequisites((m) => {
  console.error(m);
  process.exit(1);
});
const LOGS = Number(process.env.LOGS || 1_000_000);
const REQUESTS = Number(process.env.REQUESTS || 100_000);
const GROUPS = Number(process.env.GROUPS || 10_000);
const say = (m) => console.log(`viewer bench: ${m}`);

/** A word per group that the fingerprint keeps apart (letters g-z: no hex, no digits). */
function word(i) {
  let s = "";
  do {
    s += String.fromCharCode(103 + (i % 20));
    i = Math.floor(i / 20);
  } while (i > 0);
  return s;
}

async function post(base, kind, entries) {
  const r = await fetch(`${base}/events/${kind}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ entries }) });
  if (r.status !== 200) throw new Error(`${kind}: ${r.status} ${await r.text()}`);
}

/** Posts `n` entries made by `make(i)` in batches, `clients` at a time; resolves to events/s. */
async function fill(base, kind, n, make, batch = 2000, clients = 4) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < n) {
        const from = next;
        next += batch;
        const entries = [];
        for (let i = from; i < Math.min(n, from + batch); i++) entries.push(make(i));
        await post(base, kind, entries);
      }
    }),
  );
  return n / ((performance.now() - started) / 1000);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const work = mkdtempSync(path.join(tmpdir(), "gasoline-viewer-bench-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const client = await startGasoline(port, path.join(work, "gasoline.db"));
const browser = await chromium.launch({ executablePath: browserPath, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
try {
  await client.callTool({ name: "configure", arguments: { action: "capacity", what: "logs", capacity: LOGS } });
  await client.callTool({ name: "configure", arguments: { action: "capacity", what: "network_waterfall", capacity: REQUESTS } });
  const T = Date.now() - 3_600_000;
  const logRate = await fill(base, "logs", LOGS, (i) =>
    i % Math.max(1, Math.floor(LOGS / GROUPS)) === 0
      ? { level: "error", message: `failure ${word(i / Math.max(1, Math.floor(LOGS / GROUPS)))} in handler`, source: "exception", stack: `Error: failure\n    at handler (app.js:${i % 900}:7)`, tabId: 1 + (i % 10), ts: T + Math.floor(i / 300) }
      : { level: ["log", "info", "debug", "warn"][i % 4], message: `event ${i} of the flood`, source: "console", tabId: 1 + (i % 10), ts: T + Math.floor(i / 300) },
  );
  const netRate = await fill(base, "network_waterfall", REQUESTS, (i) => ({
    source: "page", url: `http://app.test/api/item-${i}?page=${i % 50}`, method: i % 7 ? "GET" : "POST", initiatorType: "fetch",
    startTime: i * 3, duration: 20 + (i % 200), responseStatus: i % 53 ? 200 : 500, transferSize: 500 + (i % 5000),
    phases: { dns: 0, connect: 0, waiting: 10 + (i % 100), download: 5 }, tabId: 1 + (i % 10), ts: T + i * 3,
  }));
  say(`filled: ${LOGS} logs (${Math.round(logRate)}/s), ${REQUESTS} requests (${Math.round(netRate)}/s), ${GROUPS} error groups`);

  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const firstPaint = [];
  const viewSwitch = [];
  const textFilter = [];
  for (let run = 0; run < 5; run++) {
    // First useful paint: the overview, then the console's newest rows.
    let t = performance.now();
    await page.goto(`${base}/overview`);
    await page.waitForSelector("tr[data-kind=logs]");
    const overview = performance.now() - t;
    t = performance.now();
    await page.goto(`${base}/console`);
    await page.waitForSelector(".vlayer .vrow");
    firstPaint.push([overview, performance.now() - t]);
    // Moving between views.
    for (const view of ["network", "timeline", "console"]) {
      t = performance.now();
      await page.click(`nav a[data-view=${view}]`);
      await page.waitForFunction((v) => location.pathname === `/${v}` && document.querySelector(".vlayer .vrow"), view);
      viewSwitch.push(performance.now() - t);
    }
    // Filtering 100k requests by text: from the keystroke to the table showing the matches.
    await page.click("nav a[data-view=network]");
    await page.waitForSelector(".vlayer .vrow g.bar");
    const needle = `item-${4000 + run}?`;
    t = performance.now();
    await page.fill("#q", needle);
    await page.waitForFunction((n) => {
      const rows = [...document.querySelectorAll(".vlayer .vrow")];
      return rows.length > 0 && rows.every((r) => r.textContent.includes(n.replace("?", "")));
    }, needle);
    textFilter.push(performance.now() - t);
    await page.fill("#q", "");
  }
  const fmt = (xs) => `median ${Math.round(median(xs))} ms (${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))})`;
  say(`first useful paint: overview ${fmt(firstPaint.map((x) => x[0]))}; console's newest rows ${fmt(firstPaint.map((x) => x[1]))}`);
  say(`moving between views: ${fmt(viewSwitch)}`);
  say(`text filter over ${REQUESTS} requests (includes the 100 ms typing pause): ${fmt(textFilter)}`);

  // Live: ingest throughput with no viewer and with one following the console, interleaved.
  await page.goto(`${base}/console`);
  await page.waitForSelector(".vlayer .vrow");
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const heap = async () => (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "JSHeapUsedSize").value;
  const rates = { without: [], with: [] };
  const heaps = [await heap()];
  let n = 0;
  const live = (i) => ({ level: "log", message: `live ${n + i}`, source: "console", tabId: 1, ts: Date.now() });
  for (let pass = 0; pass < 3; pass++) {
    for (const mode of ["without", "with"]) {
      if (mode === "without") await page.goto("about:blank");
      else {
        await page.goto(`${base}/console`);
        await page.waitForSelector(".vlayer .vrow");
      }
      rates[mode].push(await fill(base, "logs", 200_000, live, 100, 4));
      n += 200_000;
      if (mode === "with") {
        await waitFor("the viewer to catch up", () => page.evaluate((last) => [...document.querySelectorAll(".vlayer .vrow .text")].some((x) => x.textContent === last), `live ${n - 1}`), 60000).catch(async (e) => {
          const rows = await page.$$eval(".vlayer .vrow .msg .text", (xs) => xs.map((x) => x.textContent).slice(-3));
          throw new Error(`${e.message}: ${await page.textContent(".statusline")} ${JSON.stringify(rows)} want live ${n - 1}; ${await page.textContent("#live")} ${await page.textContent("#notice")} ${await page.evaluate(() => {
            const v = globalThis.gasolineViewer.view();
            const f = v.feeds[0];
            return JSON.stringify({ cursor: f.cursor, target: f.target, rows: f.rows.length, last: f.rows[f.rows.length - 1]?.id, busy: !!f.busy, again: f.again, follow: v.list.follow, listRows: v.list.rows.length, stream: globalThis.gasolineViewer.cursors().cursors.logs });
          })}`);
        });
        heaps.push(await heap());
      }
    }
  }
  say(`HTTP ingest, batches of 100, 4 clients: without a viewer ${Math.round(median(rates.without))} events/s (${rates.without.map(Math.round).join(", ")}); with a viewer following ${Math.round(median(rates.with))} events/s (${rates.with.map(Math.round).join(", ")})`);
  say(`the page's JS heap: ${heaps.map((h) => `${(h / 1048576).toFixed(1)} MiB`).join(" → ")}`);
} finally {
  await browser.close();
  await client.close();
  rmSync(work, { recursive: true, force: true });
}
