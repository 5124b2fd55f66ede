// The network page alone (network.mjs), RUNS times in a row (default 10), each
// in a fresh browser, profile and database: for chasing a row that is missed
// once in several runs. Not part of run.mjs.
//
//   GASOLINE_BIN=target/debug/gasoline RUNS=10 node extension/test/e2e/network_only.mjs
//
// Each run records what chrome.debugger told the extension about targets and
// about the requests of the fixture's workers (a second listener beside
// deep.js's, and every command deep.js sent with its answer); a failed run
// prints that trace, so a missed row shows whether its request was ever seen,
// in which session, and whether its session was enabled and resumed.
// TRACE=1 prints it after every run. Exits non-zero if any run failed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { all, checkPrerequisites, freePort, launch, observe, serviceWorker, startGasoline, stopGasoline, testBuild, waitFor } from "./harness.mjs";
import { networkPage } from "./network.mjs";

const RUNS = Number(process.env.RUNS || 10);
const TRACED = /worker|blob:|data:|module|network-sw/; // the URLs whose requests the trace follows

checkPrerequisites((m) => {
  console.error(`network_only: ${m}`);
  process.exit(1);
});

/** Installs the trace in the extension's service worker. */
function startTrace(worker) {
  return worker.evaluate((pattern) => {
    const traced = new RegExp(pattern);
    const trace = (self.gasolineTrace = []);
    const ids = new Set();
    const t0 = Date.now();
    const push = (...x) => trace.length < 5000 && trace.push([Date.now() - t0, ...x]);
    chrome.debugger.onEvent.addListener((src, method, p = {}) => {
      const s = src.sessionId || (src.targetId ? `target ${src.targetId}` : "tab");
      if (method.startsWith("Target.")) {
        const i = p.targetInfo || {};
        push(s, method, p.sessionId || "", i.type || "", i.url || "", i.targetId || p.targetId || "", i.parentFrameId || "", p.waitingForDebugger ?? "");
      } else if (method === "Network.requestWillBeSent") {
        const u = (p.request && p.request.url) || "";
        if (traced.test(u) || traced.test(p.documentURL || "")) {
          ids.add(p.requestId);
          push(s, method, p.requestId, u, p.type, p.frameId || "", p.documentURL || "");
        }
      } else if (method.startsWith("Network.") && ids.has(p.requestId)) {
        push(s, method, p.requestId, p.errorText || (p.response && p.response.status) || "");
      } else if (src.targetId && !method.startsWith("Network.")) {
        push(s, method, JSON.stringify(p).slice(0, 200)); // a target attached by its id (a shared worker)
      }
    });
    chrome.debugger.onDetach.addListener((src, reason) => push(src.sessionId || src.targetId || "tab", "onDetach", reason));
    const send = chrome.debugger.sendCommand.bind(chrome.debugger);
    chrome.debugger.sendCommand = (target, method, params) => {
      const s = target.sessionId || (target.targetId ? `target ${target.targetId}` : "tab");
      const at = Date.now() - t0;
      return send(target, method, params).then(
        (r) => (push(s, `→ ${method}`, "ok", `sent at ${at}`), r),
        (e) => (push(s, `→ ${method}`, `failed: ${e && e.message}`, `sent at ${at}`), Promise.reject(e)),
      );
    };
    return true;
  }, TRACED.source);
}

async function oneRun(n) {
  const work = mkdtempSync(path.join(tmpdir(), "gasoline-net-"));
  const db = path.join(work, "gasoline.db");
  const port = await freePort();
  let client;
  let context;
  let worker;
  const lines = [];
  const log = (m) => lines.push(`e2e: ${m}`);
  const started = Date.now();
  try {
    client = await startGasoline(port, db);
    context = await launch(path.join(work, "profile"), testBuild(work));
    worker = await serviceWorker(context);
    await worker.evaluate((serverUrl) => chrome.storage.local.set({ settings: { serverUrl } }), `http://127.0.0.1:${port}`);
    await startTrace(worker);
    await networkPage({ context, client, all, observe, waitFor, log });
    if (process.env.TRACE) await printTrace(worker);
    console.log(`run ${n}: passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    return true;
  } catch (e) {
    console.log(`run ${n}: FAILED in ${((Date.now() - started) / 1000).toFixed(0)} s\n${lines.join("\n")}\n${e.stack || e}`);
    if (worker) await printTrace(worker).catch((x) => console.log(`(no trace: ${x.message})`));
    return false;
  } finally {
    if (context) await context.close().catch(() => {});
    if (client) await stopGasoline(client, port).catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}

async function printTrace(worker) {
  const trace = await worker.evaluate(() => self.gasolineTrace || []);
  console.log(`trace (${trace.length} lines):\n${trace.map((x) => x.join(" | ")).join("\n")}`);
}

let passed = 0;
for (let i = 1; i <= RUNS; i++) if (await oneRun(i)) passed++;
console.log(`network page: ${passed} of ${RUNS} runs passed`);
process.exit(passed === RUNS ? 0 : 1);
