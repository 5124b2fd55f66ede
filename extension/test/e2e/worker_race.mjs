// Measures what deep.js's comments state about workers' first requests, in
// Chromium with no other DevTools client: Playwright's browser-wide auto-attach
// holds every new worker until it resumes it, which hides these races from the
// e2e. A small extension of its own (written to a temporary directory) does
// what deep.js does, one fresh tab per try, and posts what it saw to a local
// server:
//   - blob:, data:, module and dedicated workers auto-attached under the tab,
//     with and without waitForDebuggerOnStart: was the worker's first fetch seen?
//   - a shared worker, attached by its target id when the tab requests its
//     script (the only way: it is no target of the tab's): was its first fetch
//     seen, only its end, or neither, and then was it in the worker's own
//     Resource Timing buffer read right after its Network domain was on (what
//     deep.js's recoverShared reads back)?
// Not part of any test run; prints one line per case.
//
//   N=10 node extension/test/e2e/worker_race.mjs
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";

import { browserPath } from "./harness.mjs";

const N = Number(process.env.N || 10);
const KINDS = ["blob", "data", "module", "dedicated"];

const worker = (origin) => `fetch(${JSON.stringify(`${origin}/first.json`)}).then((r) => r.text()).then((t) => postMessage(t));`;
const shared = `const a = fetch("/first.json").then((r) => r.text()); onconnect = (e) => a.then((t) => e.ports[0].postMessage(t));`;
const page = (kind, i) => `<!doctype html><script>
const src = ${JSON.stringify(worker("ORIGIN"))}.replace("ORIGIN", location.origin);
const start = {
  blob: () => new Worker(URL.createObjectURL(new Blob([src], { type: "text/javascript" }))),
  data: () => new Worker("data:text/javascript," + encodeURIComponent(src)),
  module: () => new Worker("/worker.js?i=${i}", { type: "module" }),
  dedicated: () => new Worker("/worker.js?i=${i}"),
  shared: () => new SharedWorker("/shared.js?i=${i}").port,
}[${JSON.stringify(kind)}];
start().onmessage = () => (document.title = "done");
</script>`;

// What the extension does for one try: a tab, deep.js's commands, the page, then what it saw.
const background = (origin, cases) => `
const origin = ${JSON.stringify(origin)};
const cases = ${JSON.stringify(cases)};
const report = (r) => fetch(origin + "/report", { method: "POST", body: JSON.stringify(r) });
async function one({ kind, pause, i }) {
  const tab = await chrome.tabs.create({ url: "about:blank" });
  let seen = false;
  let ended = false;
  let timed = false;
  let done;
  const got = new Promise((r) => (done = r));
  const listener = async (s, m, p) => {
    if (s.tabId !== tab.id && !s.targetId) return;
    if (m === "Network.requestWillBeSent" && (s.sessionId || s.targetId) && p.request.url.endsWith("/first.json")) {
      seen = true;
      done();
    }
    if (m === "Network.responseReceived" && s.targetId && p.response.url.endsWith("/first.json")) ended = true;
    if (s.tabId !== tab.id) return;
    if (m === "Target.attachedToTarget") {
      const d = { tabId: tab.id, sessionId: p.sessionId };
      chrome.debugger.sendCommand(d, "Network.enable").catch(() => {});
      if (p.waitingForDebugger) chrome.debugger.sendCommand(d, "Runtime.runIfWaitingForDebugger").catch(() => {});
    }
    if (kind === "shared" && m === "Network.requestWillBeSent" && p.type === "Script" && p.documentURL === p.request.url) {
      const t = (await chrome.debugger.getTargets()).find((x) => x.type === "worker" && x.url === p.request.url);
      if (!t) return;
      await chrome.debugger.attach({ targetId: t.id }, "1.3").catch(() => {});
      chrome.debugger.sendCommand({ targetId: t.id }, "Network.enable").catch(() => {});
      const rt = await chrome.debugger
        .sendCommand({ targetId: t.id }, "Runtime.evaluate", { expression: 'performance.getEntriesByType("resource").map((e) => e.name)', returnByValue: true })
        .catch(() => null);
      timed = Boolean(rt && rt.result && Array.isArray(rt.result.value) && rt.result.value.some((n) => n.endsWith("/first.json")));
      setTimeout(done, 1500); // its end, if it was in flight
    }
  };
  chrome.debugger.onEvent.addListener(listener);
  await chrome.debugger.attach({ tabId: tab.id }, "1.3");
  await chrome.debugger.sendCommand({ tabId: tab.id }, "Network.enable");
  await chrome.debugger.sendCommand({ tabId: tab.id }, "Target.setAutoAttach", { autoAttach: true, flatten: true, waitForDebuggerOnStart: pause });
  await chrome.tabs.update(tab.id, { url: origin + "/page?k=" + kind + "&i=" + i });
  await Promise.race([got, new Promise((r) => setTimeout(r, 3000))]);
  chrome.debugger.onEvent.removeListener(listener);
  await report({ kind, pause, seen, ended, timed });
  for (const t of await chrome.debugger.getTargets()) {
    if (t.type === "worker" && !t.tabId) await chrome.debugger.detach({ targetId: t.id }).catch(() => {});
  }
  await chrome.debugger.detach({ tabId: tab.id }).catch(() => {});
  await chrome.tabs.remove(tab.id);
}
(async () => {
  for (const c of cases) await one(c);
  await report({ end: true });
})();
`;

const reports = [];
let finish;
const finished = new Promise((r) => (finish = r));
const server = http.createServer((req, res) => {
  const u = new URL(req.url, "http://x");
  const js = (body) => (res.writeHead(200, { "content-type": "text/javascript", "cache-control": "no-store" }), res.end(body));
  if (u.pathname === "/page") {
    res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
    res.end(page(u.searchParams.get("k"), u.searchParams.get("i")));
  } else if (u.pathname === "/worker.js") js(worker(`http://${req.headers.host}`));
  else if (u.pathname === "/shared.js") js(shared);
  else if (u.pathname === "/report") {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const r = JSON.parse(body);
      if (r.end) finish();
      else reports.push(r);
      res.end();
    });
  } else {
    // A data: worker's origin is opaque: its fetch is cross-origin.
    res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*", "cache-control": "no-store" });
    res.end("{}");
  }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const origin = `http://127.0.0.1:${server.address().port}`;

const cases = [];
for (const pause of [false, true]) for (const kind of KINDS) for (let i = 0; i < N; i++) cases.push({ kind, pause, i });
for (let i = 0; i < N; i++) cases.push({ kind: "shared", pause: true, i });

const work = mkdtempSync(path.join(tmpdir(), "gasoline-race-"));
const ext = path.join(work, "extension");
mkdirSync(ext);
writeFileSync(
  path.join(ext, "manifest.json"),
  JSON.stringify({ manifest_version: 3, name: "worker race", version: "1", permissions: ["debugger", "tabs"], host_permissions: ["http://127.0.0.1/*"], background: { service_worker: "background.js" } }),
);
writeFileSync(path.join(ext, "background.js"), background(origin, cases));
const browser = spawn(
  browserPath,
  ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", `--user-data-dir=${path.join(work, "profile")}`, `--load-extension=${ext}`, `--disable-extensions-except=${ext}`, "about:blank"],
  { stdio: "ignore" },
);
const timeout = setTimeout(finish, cases.length * 4000 + 30000);
await finished;
clearTimeout(timeout);
const exited = new Promise((r) => browser.once("exit", r));
browser.kill();
await exited;
server.close();
rmSync(work, { recursive: true, force: true, maxRetries: 5 });
for (const kind of [...KINDS, "shared"]) {
  for (const pause of [false, true]) {
    const r = reports.filter((x) => x.kind === kind && x.pause === pause);
    if (!r.length) continue;
    const how = kind === "shared" ? "attached by its target id at its script's request" : pause ? "auto-attached, held at its start" : "auto-attached, not held";
    console.log(`${kind} worker, ${how}: its first fetch seen in ${r.filter((x) => x.seen).length} of ${r.length}`);
    if (kind === "shared") {
      const missed = r.filter((x) => !x.seen);
      const endOnly = missed.filter((x) => x.ended).length;
      const timed = missed.filter((x) => !x.ended && x.timed).length;
      const lost = missed.filter((x) => !x.ended && !x.timed).length;
      console.log(`  of the ${missed.length} missed: its end seen in ${endOnly}, in its Resource Timing when read in ${timed}, neither in ${lost}`);
    }
  }
}
if (reports.length < cases.length) console.log(`(only ${reports.length} of ${cases.length} tries reported)`);
