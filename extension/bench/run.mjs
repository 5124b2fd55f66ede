// Gasoline's cost to a page, measured in headless Chromium with the real
// extension delivering to the real server, against the same browser without
// the extension. Pages are opened through the DevTools protocol *without
// attaching to them* (an attached debugger makes every console call cost
// hundreds of µs and would drown the figure); each page runs its scenario by
// itself and reports to this script's server. Runs are interleaved (without,
// with; then with, without; ...) so that the machine's drift moves both alike;
// each figure is the median of the per-round differences. Timings are
// printed, never asserted.
//
//   GASOLINE_BIN=target/release/gasoline node extension/bench/run.mjs   (ROUNDS=15, CHROMIUM optional)
//
// Reports: added synchronous cost per console.log (µs), the 300-fetch page's
// slowdown (%) in wall time and in the CPU time of the whole browser process
// tree (browser, renderers, the extension's worker: utime+stime from /proc,
// from opening the page to its report, which comes 1.5 s after its work, once
// the extension's deferred work is done), and long tasks (> 50 ms) added per
// page. A scenario ending in `@out` runs on http://shop.example (mapped to
// loopback), a site outside the capture scope; the others on 127.0.0.1, a local
// development origin. `@deep` runs in a tab the extension watches through
// chrome.debugger (the deep view; the bench's copy holds the debugger
// permission, which the shipped extension asks for when deep mode is turned
// on); `@beside` on the site outside the scope, in another tab while one idle
// tab is deep (what deep mode costs the rest of the browser). FLOOR=... measures an extension with only Chrome's
// webRequest listeners instead (Chrome's own cost), FLOOR=page-* the least a capture from the page can
// do (bench/floor/), PROFILE=fetch prints where
// the page's and the worker's time goes (V8's profiler), TRACE=fetch where each process's time goes
// (Chrome's own trace, by where each task was posted from). `idle` loads the page and does nothing: what the
// extension costs a page load itself, apart from what the page then does.
// BASELINE=<extension dir or floor:<FLOOR spec>>,... runs other builds of the extension (or
// floors) in browsers of their own, in the same interleaved rounds (each with its own server), and
// reports this build against each too: a change's effect with the machine's drift taken out.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

import WebSocket from "ws";

const here = path.dirname(fileURLToPath(import.meta.url));
const extensionDir = process.env.EXTENSION || path.resolve(here, ".."); // another build to compare
const repo = path.resolve(extensionDir, "..");
const bin =
  process.env.GASOLINE_BIN ||
  [path.join(repo, "target/release/gasoline"), path.join(repo, "target/debug/gasoline")].find((f) => existsSync(f));
const browserPath = process.env.CHROMIUM || "/usr/bin/chromium";
const ROUNDS = Number(process.env.ROUNDS || 15);
if (!bin || !existsSync(bin)) throw new Error("no gasoline binary: cargo build --release, or set GASOLINE_BIN");

// Whatever happens (a page that never reports, Ctrl-C), the browsers and the server go with us.
const children = [];
process.on("exit", () => children.forEach((c) => c.kill("SIGKILL")));
process.on("SIGINT", () => process.exit(130));

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

// ---- the bench site: the page, a small JSON for the fetches, and /result ----------
const item = JSON.stringify({ id: 1, name: "item", tags: ["a", "b", "c"], price: 9.99, text: "x".repeat(800) });
const waiting = new Map(); // page id → resolve
const site = http.createServer((req, res) => {
  if (req.url.startsWith("/item.json")) {
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
    res.end(item);
  } else if (req.url === "/sink") {
    // FLOOR=page-direct: the relay's events, POSTed by the relay itself (parsed, as a server would)
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ accepted: JSON.parse(body).length }));
    });
  } else if (req.url === "/result") {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const result = JSON.parse(body);
      waiting.get(result.id)?.(result);
      res.end();
    });
  } else {
    res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
    res.end(readFileSync(path.join(here, "page.html")));
  }
});
await new Promise((r) => site.listen(0, "127.0.0.1", r));
const originOf = (scenario) => `http://${/@(out|beside)$/.test(scenario) ? "shop.example" : "127.0.0.1"}:${site.address().port}`;

// ---- the real server (one per extension build: a server pairs with the first extension it hears) ----
const work = mkdtempSync(path.join(tmpdir(), "gasoline-bench-"));
async function startServer(name) {
  const port = await freePort();
  const server = spawn(bin, ["serve", "--port", String(port), "--db", path.join(work, `${name}.db`)], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, RUST_LOG: "warn" },
  });
  children.push(server);
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
    } catch {
      if (i > 100) throw new Error("gasoline did not start");
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { port, server };
}
const { port, server } = await startServer("bench");

// ---- two browsers, driven over the DevTools protocol at the browser level only ---------
async function browser(name, extra) {
  const proc = spawn(
    browserPath,
    [
      "--headless",
      "--remote-debugging-port=0",
      `--user-data-dir=${path.join(work, name)}`,
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--host-resolver-rules=MAP shop.example 127.0.0.1",
      ...(process.env.BROWSER_FLAGS || "").split(" ").filter(Boolean), // e.g. --js-flags=--no-turbo-inlining, to profile
      ...extra,
      "about:blank",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  children.push(proc);
  const url = await new Promise((resolve, reject) => {
    let err = "";
    proc.stderr.on("data", (d) => {
      err += d;
      const m = err.match(/DevTools listening on (ws:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    proc.on("exit", () => reject(new Error(`${browserPath} exited: ${err}`)));
  });
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((r) => ws.on("open", r));
  let next = 0;
  const calls = new Map();
  ws.on("message", (data) => {
    const msg = JSON.parse(data);
    if (msg.id && calls.has(msg.id)) {
      calls.get(msg.id)(msg);
      calls.delete(msg.id);
    }
  });
  const send = (method, params = {}, sessionId) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      calls.set(id, (msg) => (msg.error ? reject(new Error(`${method}: ${msg.error.message}`)) : resolve(msg.result)));
      ws.send(JSON.stringify({ id, method, params, sessionId }));
    });
  return { name, proc, ws, send };
}

/**
 * FLOOR=<listeners>: instead of Gasoline, an extension that does nothing but hold Chrome's
 * webRequest listeners, empty (a comma list of onBeforeRequest, onHeadersReceived,
 * onBeforeRedirect, onCompleted, onErrorOccurred, each optionally with `+extra` for
 * ["responseHeaders", "extraHeaders"]; `none` for none). It has Gasoline's permissions, so it
 * measures what Chrome itself charges a page for them, whatever an extension's code does.
 * `bare`: no listeners and no webRequest permission either.
 */
function writeFloor(spec, dir) {
  if (spec.startsWith("page-")) return writePageFloor(spec, dir);
  const listeners = spec === "none" || spec === "bare" ? [] : spec.split(",");
  const lines = listeners.map((l) => {
    const [event, extra] = l.split("+");
    const info = extra ? `, ["responseHeaders", "extraHeaders"]` : "";
    return `chrome.webRequest.${event}.addListener(() => {}, { urls: ["<all_urls>"] }${info});`;
  });
  mkdirSync(path.join(dir, "background"), { recursive: true });
  writeFileSync(path.join(dir, "background/worker.js"), `${lines.join("\n")}\n`);
  const { permissions, host_permissions } = JSON.parse(readFileSync(path.join(extensionDir, "manifest.json"), "utf8"));
  const allowed = spec === "bare" ? permissions.filter((p) => p !== "webRequest") : permissions;
  const manifest = { manifest_version: 3, name: `floor ${spec}`, version: "1", permissions: allowed, host_permissions };
  writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ ...manifest, background: { service_worker: "background/worker.js" } }));
}

/**
 * FLOOR=page-inject|page-observe|page-deliver|page-full|page-direct: instead of Gasoline, the least
 * a capture from the page can do (bench/floor/): its two scripts injected and nothing more; also
 * every fetch's body read from a clone and every Resource Timing entry kept; also all of it sent
 * through the relay and the service worker to the server; the same with every field Gasoline's
 * entries carry; the same POSTed by the relay itself to this bench's site, with no service worker on
 * the way (what delivery straight from the page's isolated world would cost). What any page-side
 * design pays, whatever its code.
 */
function writePageFloor(spec, dir) {
  const specs = ["page-inject", "page-observe", "page-deliver", "page-full", "page-direct"];
  if (!specs.includes(spec)) throw new Error(`FLOOR=${spec}: ${specs.join(", ")}`);
  mkdirSync(path.join(dir, "background"), { recursive: true });
  const floor = path.join(here, "floor");
  writeFileSync(path.join(dir, "page.js"), readFileSync(path.join(floor, "page.js"), "utf8").replace("FLOOR_LEVEL", spec));
  writeFileSync(path.join(dir, "relay.js"), readFileSync(path.join(floor, "relay.js"), "utf8").replace("FLOOR_LEVEL", spec));
  cpSync(path.join(floor, "worker.js"), path.join(dir, "background/worker.js"));
  const matches = ["http://127.0.0.1/*"];
  const manifest = {
    manifest_version: 3,
    name: `floor ${spec}`,
    version: "1",
    permissions: ["storage"],
    host_permissions: matches,
    background: { service_worker: "background/worker.js" },
    content_scripts: [
      { matches, js: ["page.js"], run_at: "document_start", world: "MAIN" },
      { matches, js: ["relay.js"], run_at: "document_start" },
    ],
  };
  writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest));
}

const plain = await browser("plain", ["--disable-extensions"]);

/**
 * A browser with the extension build in `dir`, as it is except that it stays out of about:blank
 * frames (as it did before it ran in every frame), so that consoleAB's frame keeps a bare console
 * to compare with. Pages without frames (every other scenario) run exactly the extension's code
 * either way. `floor`: a FLOOR spec to run instead of the build in `dir` (FLOOR itself for this
 * build; null: none).
 */
async function extensionBrowser(name, dir, floor = process.env.FLOOR) {
  const loaded = path.join(work, `extension-${name}`);
  if (floor) writeFloor(floor, loaded);
  else {
    cpSync(dir, loaded, { recursive: true, filter: (src) => !/[\\/](node_modules|test|bench)$/.test(src) });
    const registration = path.join(loaded, "background/registration.js");
    const source = readFileSync(registration, "utf8");
    const patched = source.replaceAll("matchOriginAsFallback: true", "matchOriginAsFallback: false").replaceAll("matchOriginAsFallback === true", "matchOriginAsFallback === false");
    if (patched === source) throw new Error("registration.js no longer says matchOriginAsFallback: the bench cannot keep about:blank frames bare");
    writeFileSync(registration, patched);
    // The deep view's permission, which Chrome grants only at install, as the deep build holds it.
    const manifestFile = path.join(loaded, "manifest.json");
    const m = JSON.parse(readFileSync(manifestFile, "utf8"));
    if (!m.permissions.includes("debugger")) m.permissions = ["debugger", ...m.permissions];
    writeFileSync(manifestFile, JSON.stringify(m, null, 2));
  }
  return browser(name, [`--disable-extensions-except=${loaded}`, `--load-extension=${loaded}`]);
}
const withExt = await extensionBrowser("ext", extensionDir);
// BASELINE=<extension dir or floor:<FLOOR spec>>,...: other builds, measured in the same interleaved
// rounds, each against its own server.
const bases = [];
for (const [i, spec] of (process.env.BASELINE || "").split(",").filter(Boolean).entries()) {
  const name = `base${i + 1}`;
  const b = spec.startsWith("floor:") ? await extensionBrowser(name, null, spec.slice(6)) : await extensionBrowser(name, path.resolve(spec), null);
  console.log(`${name}: ${spec}`);
  bases.push(b);
}

/** Evaluates `expression` (awaited) in the extension's service worker of `b`; pages stay unattached. */
async function inWorker(b, expression) {
  for (let i = 0; ; i++) {
    const { targetInfos } = await b.send("Target.getTargets");
    const sw = targetInfos.find((t) => t.type === "service_worker" && t.url.endsWith("background/worker.js"));
    if (sw) {
      const { sessionId } = await b.send("Target.attachToTarget", { targetId: sw.targetId, flatten: true });
      try {
        await b.send("Runtime.enable", {}, sessionId);
        for (let tries = 0; ; tries++) {
          const r = await b.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, sessionId);
          if (!r.exceptionDetails) return r.result.value;
          if (tries > 50) throw new Error(`${expression}: ${JSON.stringify(r.exceptionDetails)}`);
          await new Promise((res) => setTimeout(res, 100)); // the worker's context is not there yet
        }
      } finally {
        await b.send("Target.detachFromTarget", { sessionId }).catch(() => {});
      }
    }
    if (i > 100) throw new Error("the extension's service worker did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** CAPTURE_OFF=network_bodies,...: kinds switched off in the options, to see what each costs. */
function captureOff() {
  const off = (process.env.CAPTURE_OFF || "").split(",").filter(Boolean);
  return Object.fromEntries(off.map((k) => [k, false]));
}

/** Points the extension of `b` at the server on `port`. */
async function pointAt(b, port) {
  const serverSet = await inWorker(
    b,
    `chrome.storage.local.set({ settings: { serverUrl: "http://127.0.0.1:${port}", capture: ${JSON.stringify(captureOff())} } })
      .then(() => chrome.storage.local.get("settings")).then((s) => s.settings.serverUrl)`,
  );
  if (serverSet !== `http://127.0.0.1:${port}`) throw new Error(`could not set the server URL: ${serverSet}`);
}
await pointAt(withExt, port);
const baseServers = [];
for (const b of bases) {
  baseServers.push(await startServer(b.name));
  await pointAt(b, baseServers.at(-1).port);
}
const extensions = [withExt, ...bases];

/** A tab of the extension's browser `b` at the bench site, watched deep (attached before its scenario runs). */
async function deepTab(b) {
  const url = `${originOf("")}/?scenario=none`;
  const answer = await inWorker(
    b,
    `(async () => {
      const tab = await chrome.tabs.create({ url: ${JSON.stringify(url)}, active: false });
      for (let i = 0; i < 100 && (await chrome.tabs.get(tab.id)).status !== "complete"; i++) await new Promise((r) => setTimeout(r, 50));
      return { tabId: tab.id, ...(await globalThis.gasolineDeep.attach(tab.id)) };
    })()`,
  );
  if (!answer || answer.error || !answer.ok) throw new Error(`could not watch a tab deep: ${JSON.stringify(answer)}`);
  return answer.tabId;
}

let pages = 0;
/**
 * CPU ticks (utime + stime, 1/100 s) of `pid` and every process below it, from /proc: pid →
 * {ticks, role}, the role from the command line (browser, renderer, extension, gpu-process, utility…).
 */
function treeTicks(pid) {
  const stats = new Map(); // pid → [ppid, ticks]
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      stats.set(Number(name), [Number(f[1]), Number(f[11]) + Number(f[12])]);
    } catch {
      // gone meanwhile
    }
  }
  const tree = new Map();
  for (const [p, [, ticks]] of stats) {
    for (let q = p; q > 1; q = stats.get(q)?.[0]) {
      if (q === pid) {
        tree.set(p, { ticks, role: roleOf(p) });
        break;
      }
      if (!stats.has(q)) break;
    }
  }
  return tree;
}

const roles = new Map(); // pid → role (a process keeps its command line)
function roleOf(pid) {
  if (!roles.has(pid)) {
    let cmd = "";
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      // gone meanwhile
    }
    const type = /--type=([\w-]+)/.exec(cmd);
    roles.set(pid, !type ? "browser" : type[1] === "renderer" && cmd.includes("--extension-process") ? "extension" : type[1]);
  }
  return roles.get(pid);
}

/**
 * The ticks spent between two treeTicks snapshots, in all and by role. Only processes alive at the
 * end count: a process that exits in the window (the previous page's renderer, closed just before)
 * would otherwise take its whole life's ticks off this page's figure.
 */
function spent(before, after) {
  const by = {};
  let total = 0;
  for (const [p, { ticks, role }] of after) {
    const d = ticks - (before.get(p)?.ticks ?? 0);
    by[role] = (by[role] || 0) + d;
    total += d;
  }
  return { total, by };
}

/**
 * Opens the bench page for `scenario` in `b` and waits for its report; its wall time and the
 * browser tree's CPU ticks. `@deep` in the extension's browser: the page loads in a deep tab.
 */
async function measure(b, scenario) {
  if (extensions.includes(b) && scenario.endsWith("@deep")) {
    const tabId = await deepTab(b);
    const { url, report } = nextPage(b, scenario);
    const before = treeTicks(b.proc.pid);
    await inWorker(b, `chrome.tabs.update(${tabId}, { url: ${JSON.stringify(url)} }).then(() => true)`);
    const r = await report;
    const { total: cpu, by } = spent(before, treeTicks(b.proc.pid));
    await inWorker(b, `globalThis.gasolineDeep.detach(${tabId}, "bench").then(() => chrome.tabs.remove(${tabId})).then(() => true)`);
    return { ms: r.ms, longTasks: r.longTasks.length, cpu, by };
  }
  const { url, report } = nextPage(b, scenario);
  const before = treeTicks(b.proc.pid);
  const { targetId } = await b.send("Target.createTarget", { url });
  const r = await report;
  const { total: cpu, by } = spent(before, treeTicks(b.proc.pid));
  await b.send("Target.closeTarget", { targetId });
  return { ms: r.ms, longTasks: r.longTasks.length, cpu, by };
}

/** A new page of `b` for `scenario`: its URL, and its report (rejected after 60 s without one). */
function nextPage(b, scenario) {
  const id = `${b.name}-${++pages}`;
  const report = new Promise((resolve, reject) => {
    waiting.set(id, resolve);
    setTimeout(() => reject(new Error(`page ${id} (${scenario}) did not report within 60 s`)), 60000).unref();
  }).finally(() => waiting.delete(id));
  return { id, url: `${originOf(scenario)}/?scenario=${scenario.split("@")[0]}&id=${id}`, report };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x, d = 1) => x.toFixed(d);
const range = (xs) => `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`;

const SCENARIOS = (process.env.SCENARIOS || "consoleAB,console,consolePlain,console@out,fetch,fetch@out,fetch@deep,fetch@beside").split(",");
if (SCENARIOS.includes("consoleAB")) {
  // Within one page of the extension's browser: wrapped console vs the bare console of a frame.
  const perCall = [];
  for (let round = 0; round < ROUNDS; round++) {
    const { ms } = await measure(withExt, "consoleAB");
    for (let k = 0; k < ms.wrapped.length; k++) perCall.push(ms.wrapped[k] - ms.unwrapped[k]);
  }
  console.log(`\nconsole, same page, wrapped vs a frame's bare console (${perCall.length} pairs of 1,000 calls)`);
  console.log(`  added per console.log: median ${fmt(median(perCall), 2)} µs (pairs ${range(perCall)})`);
}
for (const scenario of SCENARIOS.filter((s) => s !== "consoleAB")) {
  // @beside: one idle tab stays deep in each extension's browser the whole time.
  const beside = scenario.endsWith("@beside") ? await Promise.all(extensions.map(deepTab)) : null;
  const browsers = [plain, ...extensions];
  for (const b of browsers) await measure(b, scenario); // warm-up, not counted
  const rows = [];
  for (let round = 0; round < ROUNDS; round++) {
    const r = {};
    // Each browser goes first as often as the others.
    for (let k = 0; k < browsers.length; k++) {
      const b = browsers[(round + k) % browsers.length];
      r[b.name] = await measure(b, scenario);
    }
    rows.push(r);
  }
  console.log(`\n${scenario} (${ROUNDS} interleaved rounds)`);
  const plainMs = rows.map((r) => r.plain.ms);
  console.log(`  without: median ${fmt(median(plainMs), 2)} ms (${range(plainMs)}), CPU ${median(rows.map((r) => r.plain.cpu))} ticks`);
  for (const { name } of extensions) report(scenario, rows, name, "plain");
  for (const { name } of bases) report(scenario, rows, "ext", name);
  if (beside !== null) {
    for (const [i, b] of extensions.entries()) {
      await inWorker(b, `globalThis.gasolineDeep.detach(${beside[i]}, "bench").then(() => chrome.tabs.remove(${beside[i]})).then(() => true)`);
    }
  }
}

/** What the browser `name` added to `than`'s pages of `scenario`, round by round. */
function report(scenario, rows, name, than) {
  const ms = rows.map((r) => r[name].ms);
  const diff = rows.map((r) => r[name].ms - r[than].ms);
  const added = rows.map((r) => r[name].longTasks - r[than].longTasks);
  const cpuPct = rows.map((r) => ((r[name].cpu - r[than].cpu) / r[than].cpu) * 100);
  console.log(`  ${name} against ${than}:`);
  console.log(`    ${name}: median ${fmt(median(ms), 2)} ms (${range(ms)})`);
  console.log(
    `    CPU of the browser tree per page: ${than} median ${median(rows.map((r) => r[than].cpu))} ticks, ${name} ${median(rows.map((r) => r[name].cpu))}; ` +
      `more by median ${fmt(median(cpuPct))}% (rounds ${range(cpuPct)})`,
  );
  const roleNames = [...new Set(rows.flatMap((r) => [...Object.keys(r[than].by), ...Object.keys(r[name].by)]))].sort();
  const byRole = roleNames.map((role) => {
    const d = rows.map((r) => (r[name].by[role] || 0) - (r[than].by[role] || 0));
    return `${role} ${median(d) >= 0 ? "+" : ""}${median(d)} (${range(d)})`;
  });
  console.log(`    CPU ticks added, by process (median, rounds): ${byRole.join(", ")}`);
  if (scenario.startsWith("console")) {
    const perCall = diff.map((d) => (d * 1000) / 3000);
    console.log(`    added per console.log: median ${fmt(median(perCall), 2)} µs (rounds ${range(perCall)}; target ≤ 10 µs)`);
  } else if (scenario.split("@")[0] !== "idle") {
    const pct = diff.map((d, i) => (d / rows[i][than].ms) * 100);
    console.log(`    slower by: median ${fmt(median(pct))}% (rounds ${range(pct)}; target ≤ 10%)`);
  }
  console.log(
    `    long tasks per page: ${than} [${rows.map((r) => r[than].longTasks)}], ${name} [${rows.map((r) => r[name].longTasks)}]; ` +
      `added: median ${median(added)}, total ${added.reduce((a, b) => a + b, 0)} (target 0)`,
  );
}

// PROFILE=fetch: one more page of that scenario in each browser, with the V8 sampling profiler on
// in the page (and in the extension's service worker); prints where each spent its time (self time
// by function, top 25). The page is attached to the profiler, so its timings are not the bench's.
if (process.env.PROFILE) for (const b of [plain, ...extensions]) await profile(b, process.env.PROFILE);

/** Self time per function (file:line name) of a V8 CPU profile, largest first. */
function selfTimes(prof, top = 25) {
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const totals = new Map();
  const dt = prof.timeDeltas;
  for (let i = 0; i < prof.samples.length; i++) {
    const f = byId.get(prof.samples[i]).callFrame;
    const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`;
    totals.set(key, (totals.get(key) || 0) + (dt[i] || 0));
  }
  const all = [...totals.values()].reduce((a, b) => a + b, 0);
  const rows = [...totals].sort((a, b) => b[1] - a[1]).slice(0, top);
  // The same self time summed by file (the page's own script, each of ours, the browser's "(program)"…).
  const byFile = new Map();
  for (const [k, us] of totals) {
    const file = k.slice(k.indexOf(" ") + 1).replace(/:\d+$/, "").replace(/\?.*/, "") || "(native)";
    byFile.set(file, (byFile.get(file) || 0) + us);
  }
  const files = [...byFile].filter(([f]) => f !== ":0").sort((a, b) => b[1] - a[1]).slice(0, 12);
  return [
    `  total ${fmt(all / 1000)} ms`,
    ...rows.map(([k, us]) => `  ${fmt(us / 1000, 1).padStart(8)} ms  ${k}`),
    `  by file: ${files.map(([f, us]) => `${f} ${fmt(us / 1000)} ms`).join(", ")}`,
  ].join("\n");
}

async function profile(b, scenario) {
  const { targetInfos } = await b.send("Target.getTargets");
  const sw = targetInfos.find((t) => t.type === "service_worker" && t.url.endsWith("background/worker.js"));
  const sessions = [];
  if (sw) sessions.push(["service worker", (await b.send("Target.attachToTarget", { targetId: sw.targetId, flatten: true })).sessionId]);
  const { url, report } = nextPage(b, scenario);
  const { targetId } = await b.send("Target.createTarget", { url: "about:blank" });
  sessions.unshift(["page", (await b.send("Target.attachToTarget", { targetId, flatten: true })).sessionId]);
  for (const [, s] of sessions) {
    await b.send("Profiler.enable", {}, s);
    await b.send("Profiler.setSamplingInterval", { interval: 100 }, s);
    await b.send("Profiler.start", {}, s);
  }
  await b.send("Page.navigate", { url }, sessions[0][1]);
  const r = await report;
  for (const [name, s] of sessions) {
    const { profile: prof } = await b.send("Profiler.stop", {}, s);
    console.log(`\nprofile of the ${name} in ${b.name} (${scenario}, measured ${fmt(r.ms)} ms while profiled):\n${selfTimes(prof)}`);
  }
  for (const [, s] of sessions.slice(1)) await b.send("Target.detachFromTarget", { sessionId: s });
  await b.send("Target.closeTarget", { targetId });
}

// TRACE=fetch: one more page of that scenario in each browser (pages unattached), with Chrome's own
// tracing on for the whole browser; prints, per process role, the main threads' tasks summed by
// where they were posted from (Chrome's `toplevel` category: the code that asked for the work).
// Native work the V8 profile shows only as "(program)" gets a name here; Chrome names each process
// (the extension's service worker runs in the "Extension Renderer").
if (process.env.TRACE) {
  const traced = {};
  for (const b of [plain, ...extensions]) traced[b.name] = await trace(b, process.env.TRACE);
  const roles = new Set(Object.values(traced).flatMap((t) => Object.keys(t)));
  for (const role of roles) {
    console.log(`\ntrace, ${role} processes: task time (ms) by where it was posted from, per browser`);
    const names = new Set(Object.values(traced).flatMap((t) => Object.keys(t[role] || {})));
    const rows = [...names].map((n) => [n, Object.keys(traced).map((b) => (traced[b][role] || {})[n] || 0)]);
    rows.sort((x, y) => Math.max(...y[1]) - Math.max(...x[1]));
    console.log(`  ${Object.keys(traced).map((b) => b.padStart(8)).join("")}  posted from`);
    for (const [n, ms] of rows.slice(0, 25)) console.log(`  ${ms.map((x) => fmt(x / 1000).padStart(8)).join("")}  ${n}`);
  }
}

/** role → (task origin → µs) for one traced page of `scenario` in `b`. */
async function trace(b, scenario) {
  const events = [];
  let complete;
  const completed = new Promise((r) => (complete = r));
  const listener = (data) => {
    const msg = JSON.parse(data);
    if (msg.method === "Tracing.dataCollected") events.push(...msg.params.value);
    else if (msg.method === "Tracing.tracingComplete") complete();
  };
  b.ws.on("message", listener);
  // TRACE_CATEGORIES adds categories (e.g. mojom,ipc,v8); TRACE_DUMP=<dir> writes each browser's events there.
  const extra = (process.env.TRACE_CATEGORIES || "").split(",").filter(Boolean);
  await b.send("Tracing.start", { traceConfig: { includedCategories: ["toplevel", "__metadata", ...extra] }, transferMode: "ReportEvents" });
  await measure(b, scenario);
  await b.send("Tracing.end");
  await completed;
  b.ws.off("message", listener);
  if (process.env.TRACE_DUMP) writeFileSync(path.join(process.env.TRACE_DUMP, `${b.name}.json`), JSON.stringify(events));
  const roleOfPid = new Map();
  const threadName = new Map();
  for (const e of events) {
    if (e.ph !== "M") continue;
    if (e.name === "process_name") roleOfPid.set(e.pid, e.args.name);
    if (e.name === "thread_name") threadName.set(`${e.pid}:${e.tid}`, e.args.name);
  }
  const out = {};
  for (const e of events) {
    if (e.ph !== "X" || !e.dur || e.cat !== "toplevel") continue;
    const role = roleOfPid.get(e.pid) || "?";
    const thread = threadName.get(`${e.pid}:${e.tid}`) || "?";
    const from = e.args && (e.args.src_func || e.args.src_file) ? `${e.args.src_file || ""} ${e.args.src_func || ""}`.trim() : e.name;
    const key = `[${thread}] ${from}`;
    out[role] ??= {};
    out[role][key] = (out[role][key] || 0) + e.dur;
  }
  return out;
}

// What reached the server, once its counts stop moving (the last page's events are still on their
// way when it reports): events a page made but the server never got were not paid for by the figures.
const stored = async (at = port) => {
  const health = await fetch(`http://127.0.0.1:${at}/health`).then((r) => r.json());
  return Object.fromEntries(Object.entries(health.kinds || {}).map(([k, v]) => [k, v.count]));
};
let counts = await stored();
for (let still = 0, tries = 0; still < 4 && tries < 60; tries++) {
  await new Promise((r) => setTimeout(r, 500));
  const now = await stored();
  still = JSON.stringify(now) === JSON.stringify(counts) ? still + 1 : 0;
  counts = now;
}
const fetchPages = SCENARIOS.filter((s) => s.split("@")[0] === "fetch" && !s.endsWith("@out") && !s.endsWith("@beside")).length * (ROUNDS + 1);
console.log(`\nstored by the server during the run: ${JSON.stringify(counts)} (in-scope fetch pages with the extension: ${fetchPages}, 300 requests each)`);
for (const [i, b] of bases.entries()) console.log(`stored by ${b.name}'s server: ${JSON.stringify(await stored(baseServers[i].port))}`);
// WORKER_REPORT=<expression>: evaluated in each extension's service worker at the end, printed
// (a variant that times its own parts into a global can report them so).
if (process.env.WORKER_REPORT) for (const b of extensions) console.log(`worker report of ${b.name}: ${JSON.stringify(await inWorker(b, process.env.WORKER_REPORT))}`);
for (const { server: s } of baseServers) s.kill("SIGTERM");
for (const b of [plain, ...extensions]) {
  b.ws.close();
  b.proc.kill("SIGTERM");
}
server.kill("SIGTERM");
site.close();
await new Promise((r) => setTimeout(r, 500));
rmSync(work, { recursive: true, force: true });
