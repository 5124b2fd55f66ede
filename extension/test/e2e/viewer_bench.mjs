// Figures for the viewer (BENCHMARKS.md), not a test: a database holding full
// rings (1M log rows with the capacity raised, 100k requests, 10k error groups)
// opened in headless Chromium; then HTTP ingest with and without a viewer
// following live, in interleaved rounds: at full speed (the most the server
// takes), and offered at 5,000 events/s; the server's CPU time per event from
// /proc, the page's JS heap after a garbage collection.
//
//   GASOLINE_BIN=target/release/gasoline node extension/test/e2e/viewer_bench.mjs
//
// LOGS, REQUESTS, GROUPS override the sizes (defaults 1,000,000 / 100,000 / 10,000);
// ROUNDS the interleaved rounds (default 5), PASS the events of a full-speed pass
// (default 300,000), PACED_S the seconds of a paced pass (default 10).
import { execSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
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
const ROUNDS = Number(process.env.ROUNDS || 5);
const PASS = Number(process.env.PASS || 300_000);
const PACED_S = Number(process.env.PACED_S || 10);
const CLK_TCK = Number(execSync("getconf CLK_TCK").toString().trim()) || 100;
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

/**
 * Posts 100-entry batches at `rate` events/s for `seconds` (at most 4 in flight);
 * resolves to the events/s the server took and the slowest acknowledgement.
 */
async function paced(base, kind, rate, seconds, make) {
  const batch = 100;
  const batches = Math.round((rate * seconds) / batch);
  const every = (1000 * batch) / rate;
  const started = performance.now();
  const inFlight = new Set();
  let slowest = 0;
  for (let b = 0; b < batches; b++) {
    const due = started + b * every;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    while (inFlight.size >= 4) await Promise.race(inFlight);
    const entries = Array.from({ length: batch }, (_, i) => make(b * batch + i));
    const sent = performance.now();
    const p = post(base, kind, entries).then(() => {
      slowest = Math.max(slowest, performance.now() - sent);
      inFlight.delete(p);
    });
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  return { rate: (batches * batch) / ((performance.now() - started) / 1000), slowest };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs, f = (x) => Math.round(x)) => `${f(Math.min(...xs))}–${f(Math.max(...xs))}`;

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

  // Opening the error groups (10,000 of them, the 25 most frequent shown).
  const groupsOpen = [];
  for (let run = 0; run < 5; run++) {
    await page.goto(`${base}/console`);
    await page.waitForSelector(".vlayer .vrow");
    const t = performance.now();
    await page.click("details.groups summary");
    await page.waitForSelector("details.groups[open] tbody tr");
    groupsOpen.push(performance.now() - t);
  }
  say(`opening the error groups (${GROUPS} groups): ${fmt(groupsOpen)}`);

  // Live: ingest with no viewer and with one following the console, in interleaved rounds
  // (the order alternates, so a drift of the machine falls on both).
  const { pid } = (await (await fetch(`${base}/api/overview`)).json()).server;
  const cpu = () => {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) / CLK_TCK; // utime + stime, seconds
  };
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const heap = async () => {
    await cdp.send("HeapProfiler.collectGarbage");
    return (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "JSHeapUsedSize").value;
  };
  let n = 0;
  const live = (i) => ({ level: "log", message: `live ${n + i}`, source: "console", tabId: 1, ts: Date.now() });
  const open = async (mode) => {
    if (mode === "without") await page.goto("about:blank");
    else {
      await page.goto(`${base}/console`);
      await page.waitForSelector(".vlayer .vrow");
    }
  };
  // Caught up: the newest row stored is on screen (4 clients commit their batches in any
  // order, so the last message sent need not be the newest row).
  const newest = async () => (await (await fetch(`${base}/api/overview`)).json()).kinds.find((k) => k.kind === "logs").newest_id;
  const caughtUp = async () => {
    const id = await newest();
    await waitFor("the viewer to catch up", () => page.evaluate((key) => !!document.querySelector(`.vlayer .vrow[data-id="${key}"]`), `logs:${id}`), 60000).catch(async (e) => {
      const state = await page.evaluate(() => {
        const v = globalThis.gasolineViewer.view();
        const f = v.feeds[0];
        return JSON.stringify({ cursor: f.cursor, target: f.target, rows: f.rows.length, last: f.rows[f.rows.length - 1]?.id, busy: !!f.busy, again: f.again, lastAdded: v.lastAdded, deferred: !!v.deferred, follow: v.list.follow, domLast: [...document.querySelectorAll(".vlayer .vrow")].pop()?.dataset.id, stream: globalThis.gasolineViewer.cursors().cursors.logs });
      });
      throw new Error(`${e.message}: want logs:${id}; ${await page.textContent(".statusline")}; ${await page.textContent("#live")} ${await page.textContent("#notice")} ${state}`);
    });
  };
  await open("with");
  const heaps = { start: await heap(), after: [] };
  const full = { without: [], with: [] };
  const pacedRuns = { without: [], with: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? ["with", "without"] : ["without", "with"];
    for (const mode of order) {
      await open(mode);
      let c = cpu();
      const rate = await fill(base, "logs", PASS, live, 100, 4);
      const used = cpu() - c;
      n += PASS;
      full[mode].push({ rate, cpu: (used / PASS) * 1e6 });
      if (mode === "with") {
        await caughtUp();
        heaps.after.push(await heap());
      }
      c = cpu();
      const p = await paced(base, "logs", 5000, PACED_S, live);
      const pacedCpu = cpu() - c;
      n += Math.round((5000 * PACED_S) / 100) * 100;
      pacedRuns[mode].push({ ...p, cpu: (pacedCpu / (5000 * PACED_S)) * 1e6 });
      if (mode === "with") {
        await caughtUp();
        heaps.after.push(await heap());
      }
      say(`round ${round + 1} ${mode}: full speed ${Math.round(rate)} events/s, ${((used / PASS) * 1e6).toFixed(1)} µs server CPU/event; at 5,000/s: ${Math.round(p.rate)} events/s, ${((pacedCpu / (5000 * PACED_S)) * 1e6).toFixed(1)} µs/event, slowest ack ${Math.round(p.slowest)} ms`);
    }
  }
  const sum = (runs, key, f) => `median ${f(median(runs.map((r) => r[key])))} (${range(runs.map((r) => r[key]), f)})`;
  const int = (x) => Math.round(x);
  const us = (x) => x.toFixed(1);
  for (const mode of ["without", "with"]) {
    say(`full speed ${mode} a viewer: ${sum(full[mode], "rate", int)} events/s; server CPU ${sum(full[mode], "cpu", us)} µs/event`);
    say(`offered 5,000/s ${mode} a viewer: ${sum(pacedRuns[mode], "rate", int)} events/s; server CPU ${sum(pacedRuns[mode], "cpu", us)} µs/event; slowest ack ${sum(pacedRuns[mode], "slowest", int)} ms`);
  }
  const diff = (a, b) => `${(((median(b) - median(a)) / median(a)) * 100).toFixed(1)}%`;
  say(`with a viewer against without, at the medians: full-speed rate ${diff(full.without.map((r) => r.rate), full.with.map((r) => r.rate))}, server CPU/event at full speed ${diff(full.without.map((r) => r.cpu), full.with.map((r) => r.cpu))}, at 5,000/s ${diff(pacedRuns.without.map((r) => r.cpu), pacedRuns.with.map((r) => r.cpu))}`);
  // Paired within each round (the two passes a minute apart), which cancels most of the machine's drift.
  const paired = (a, b, key) => {
    const xs = a.map((r, i) => ((b[i][key] - r[key]) / r[key]) * 100);
    return `median ${median(xs).toFixed(1)}% (${range(xs, (x) => x.toFixed(1))})`;
  };
  say(`with against without, round by round: full-speed rate ${paired(full.without, full.with, "rate")}, server CPU/event at full speed ${paired(full.without, full.with, "cpu")}, at 5,000/s ${paired(pacedRuns.without, pacedRuns.with, "cpu")}`);
  const mib = (h) => `${(h / 1048576).toFixed(1)} MiB`;
  say(`the page's JS heap after a GC: ${mib(heaps.start)} at the start of following, ${heaps.after.map(mib).join(", ")} after each pass (max ${mib(Math.max(...heaps.after))}), ${mib(heaps.after[heaps.after.length - 1])} at the end, after ${n.toLocaleString()} events`);
} finally {
  await browser.close();
  await client.close();
  rmSync(work, { recursive: true, force: true });
}
