// No line lost when the server dies mid-page: the real extension (test build)
// in headless Chromium, a page on 127.0.0.1 logging numbered lines one every
// 8 ms, and `gasoline serve` killed with SIGKILL at seeded random moments and
// started again. Afterwards every line must be stored exactly once.
//
//   GASOLINE_BIN=target/debug/gasoline ROUNDS=20 SEED=1 node extension/test/e2e/soak.mjs
//
// Each round runs one scenario, in turn:
//   kill      one kill, restarted 0.5 s later (what a person saw lose ~60 lines)
//   twice     two kills ~3 s apart, each restarted 0.5 s later
//   burst     three kills in a row, restarted at once each time
//   down      the server down for 10 s
//   upload    a kill while the page uploads large bodies (network_bodies near the cap)
//   worker    the extension's service worker stopped (as Chrome stops an idle one) mid-delivery, and a kill
//   squatter  the port taken by a process that is not gasoline (it answers 200 to anything) while the server is down
// A round says what it did (its seed and kill times) so a failure can be run again alone: ROUNDS=1 SEED=<seed>.
// Prints `N passed, N failed` and exits non-zero when a round lost or doubled a line.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";

import { bin, checkPrerequisites, freePort, launch, pointAt, serviceWorker, testBuild, waitFor } from "./harness.mjs";

const ROUNDS = Number(process.env.ROUNDS || 20);
const SEED = Number(process.env.SEED || 1);
const LINES = Number(process.env.LINES || 1000);
const SCENARIOS = (process.env.SCENARIOS || "kill,twice,burst,down,upload,worker,squatter").split(",");
const log = (m) => console.log(`soak: ${m}`);
checkPrerequisites((m) => {
  console.error(`soak FAILED: ${m}`);
  process.exit(1);
});

/** mulberry32: a small seeded generator, so a round's kill times can be had again. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the page: numbered lines every 8 ms; uploads for the upload scenario ----------------
const PAGE = `<!doctype html><title>soak</title><script>
const q = new URLSearchParams(location.search);
const run = q.get("run"), lines = Number(q.get("lines")), upload = q.get("upload") === "1";
let i = 0;
const tick = setInterval(() => {
  console.log("soak " + run + " " + i);
  if (upload && i % 50 === 0) fetch("/upload?i=" + i, { method: "POST", body: "u".repeat(15000) + i });
  if (++i === lines) { clearInterval(tick); window.done = true; }
}, 8);
</script>`;
const site = http.createServer((req, res) => {
  if (req.url.startsWith("/upload")) {
    req.resume();
    req.on("end", () => res.end("ok"));
    return;
  }
  res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
  res.end(PAGE);
});
await new Promise((r) => site.listen(0, "127.0.0.1", r));
const origin = `http://127.0.0.1:${site.address().port}`;

// ---- the server, killed and started again ---------------------------------------------------
const work = mkdtempSync(path.join(tmpdir(), "gasoline-soak-"));
const db = path.join(work, "gasoline.db");
const port = await freePort();
let server = null;

async function startServer() {
  server = spawn(bin, ["serve", "--port", String(port), "--db", db], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, RUST_LOG: "error" } });
  server.stderr.on("data", () => {});
  await waitFor("gasoline serve to listen", async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok, 20000);
}

async function kill() {
  const s = server;
  server = null;
  s.kill("SIGKILL");
  await new Promise((r) => (s.exitCode !== null || s.signalCode ? r() : s.once("exit", r)));
}

/** A process that is not gasoline on the port, answering 200 with nothing to anything. */
async function squat(ms) {
  const fake = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end());
  });
  await new Promise((r) => fake.listen(port, "127.0.0.1", r));
  await sleep(ms);
  await new Promise((r) => fake.close(r));
  fake.closeAllConnections();
}

/** The lines of run `run` stored, by number (a count per line, to see doubles). */
function stored(run) {
  const out = execFileSync(bin, ["export", "--db", db, "--jsonl", "-", "logs"], { encoding: "utf8", maxBuffer: 1 << 28 });
  const counts = new Map();
  for (const line of out.split("\n")) {
    if (!line) continue;
    const m = /^soak (\S+) (\d+)$/.exec(JSON.parse(line).message || "");
    if (m && m[1] === run) counts.set(Number(m[2]), (counts.get(Number(m[2])) || 0) + 1);
  }
  return counts;
}

// ---- the browser ------------------------------------------------------------------------------
await startServer();
const build = testBuild(work);
const context = await launch(path.join(work, "profile"), build);
let worker = await serviceWorker(context);
await pointAt(worker, `http://127.0.0.1:${port}`);

/** Stops the extension's service worker as Chrome does an idle one; the next event starts it again. */
async function stopWorker() {
  const page = context.pages()[0] || (await context.newPage());
  const cdp = await context.newCDPSession(page);
  const { targetInfos } = await cdp.send("Target.getTargets");
  const target = targetInfos.find((t) => t.type === "service_worker" && t.url.startsWith("chrome-extension://"));
  if (target) await cdp.send("Target.closeTarget", { targetId: target.targetId }).catch(() => {});
  await cdp.detach().catch(() => {});
}

/** What the extension still holds: its worker's queues (0 when all is delivered). */
async function pendingInWorker() {
  worker = await serviceWorker(context);
  return worker.evaluate(() => Object.values(globalThis.gasolineDebug.pending()).reduce((a, b) => a + b, 0));
}

let passed = 0;
let failed = 0;
const totals = { lines: 0, lost: 0, doubled: 0 };
for (let round = 0; round < ROUNDS; round++) {
  const seed = SEED + round;
  const rand = random(seed);
  const scenario = SCENARIOS[round % SCENARIOS.length];
  const run = `r${seed}-${scenario}`;
  const did = [];
  const page = await context.newPage();
  await page.goto(`${origin}/?run=${run}&lines=${LINES}&upload=${scenario === "upload" ? 1 : 0}`);
  const span = LINES * 8; // how long the page logs
  const at = (from, to) => Math.round(span * (from + (to - from) * rand()));
  const t0 = Date.now();
  const until = async (ms) => sleep(Math.max(0, ms - (Date.now() - t0)));
  if (scenario === "kill" || scenario === "upload") {
    const k = at(0.1, 0.8);
    await until(k);
    await kill();
    did.push(`kill at ${k} ms`);
    await sleep(500);
    await startServer();
  } else if (scenario === "twice") {
    const k = at(0.05, 0.4);
    for (const when of [k, k + 3000]) {
      await until(when);
      await kill();
      did.push(`kill at ${when} ms`);
      await sleep(500);
      await startServer();
    }
  } else if (scenario === "burst") {
    await until(at(0.1, 0.6));
    for (let n = 0; n < 3; n++) {
      did.push(`kill at ${Date.now() - t0} ms`);
      await kill();
      await startServer();
    }
  } else if (scenario === "down") {
    await until(at(0.05, 0.3));
    did.push(`kill at ${Date.now() - t0} ms, down 10 s`);
    await kill();
    await sleep(10000);
    await startServer();
  } else if (scenario === "worker") {
    await until(at(0.1, 0.5));
    did.push(`worker stopped at ${Date.now() - t0} ms`);
    await stopWorker();
    await until(at(0.55, 0.9));
    did.push(`kill at ${Date.now() - t0} ms`);
    await kill();
    await sleep(500);
    await startServer();
  } else if (scenario === "squatter") {
    await until(at(0.1, 0.6));
    did.push(`kill at ${Date.now() - t0} ms, port squatted 2 s`);
    await kill();
    await squat(2000);
    await startServer();
  }
  await page.waitForFunction(() => window.done === true, null, { timeout: 60000 });
  // Delivered: every line stored, or nothing left anywhere in the extension to deliver.
  let counts;
  try {
    counts = await waitFor(`the ${LINES} lines of ${run}`, async () => {
      const c = stored(run);
      return c.size === LINES && c;
    }, 60000);
    // Nothing more on its way (a late double would come from the queues).
    await waitFor("the worker's queues to empty", async () => (await pendingInWorker()) === 0, 30000);
    counts = stored(run);
  } catch (e) {
    if (process.env.DEBUG) console.log(e.message, await worker.evaluate(async () => [globalThis.gasolineDebug.pending(), globalThis.gasolineDebug.lifetime(), await chrome.storage.local.get(["settings", "scope"]), await chrome.scripting.getRegisteredContentScripts()]).then(JSON.stringify), await context.pages().at(-1).evaluate(() => [location.href, typeof console.log, console.log.toString()]), execFileSync(bin, ["export", "--db", db, "--jsonl", "-"], { encoding: "utf8" }).split("\n").slice(-5));
    counts = stored(run);
  }
  await page.close();
  const lost = [];
  const doubled = [];
  for (let i = 0; i < LINES; i++) {
    const n = counts.get(i) || 0;
    if (n === 0) lost.push(i);
    if (n > 1) doubled.push(i);
  }
  totals.lines += LINES;
  totals.lost += lost.length;
  totals.doubled += doubled.length;
  const verdict = `round ${round + 1} (seed ${seed}, ${scenario}: ${did.join("; ")}): ${counts.size} of ${LINES} stored, ${lost.length} lost, ${doubled.length} doubled`;
  if (lost.length || doubled.length) {
    failed++;
    log(`FAILED ${verdict}${lost.length ? `; lost ${lost.slice(0, 20).join(",")}` : ""}${doubled.length ? `; doubled ${doubled.slice(0, 20).join(",")}` : ""}`);
  } else {
    passed++;
    log(verdict);
  }
}
log(`${ROUNDS} rounds, ${totals.lines} lines, ${totals.lost} lost, ${totals.doubled} doubled`);
console.log(`${passed} passed, ${failed} failed`);
await context.close().catch(() => {});
if (server) await kill();
site.close();
rmSync(work, { recursive: true, force: true });
assert.equal(failed, 0, "every line stored exactly once");
process.exit(0);
