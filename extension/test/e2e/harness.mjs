// What the end-to-end scripts share: the gasoline binary through MCP over
// stdio, polling for a condition, a free port, the test build of the extension
// and Chromium with it loaded.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const extensionDir = path.resolve(here, "../..");
export const bin = process.env.GASOLINE_BIN || path.resolve(extensionDir, "../target/debug/gasoline");
export const browserPath = process.env.CHROMIUM || "/usr/bin/chromium";

/** The origins the test build holds as granted (Chrome's prompt cannot be answered headless). */
export const TEST_SITES = ["http://shop.example/*", "http://127.0.0.2/*"];

export function checkPrerequisites(fail) {
  for (const [what, file, fix] of [
    ["gasoline binary", bin, "build it with `cargo build` or set GASOLINE_BIN"],
    ["Chromium", browserPath, "install Debian's chromium: scripts/setup.sh"],
  ]) {
    if (!existsSync(file)) fail(`${what} not found at ${file}: ${fix}`);
  }
}

/**
 * The deep build of the extension (scripts/deep-extension.sh: the shipped
 * extension plus the `debugger` permission, which Chrome grants only at
 * install), whose manifest also holds the test sites as required host
 * permissions, so that "Capture this site" resolves without Chrome's prompt,
 * which headless Chromium never answers. Everything else is the shipped
 * extension: the scope still starts with local origins only, and a test site
 * is captured only once turned on through the popup.
 */
export function testBuild(work) {
  const dir = path.join(work, "extension");
  execFileSync(path.resolve(extensionDir, "../scripts/deep-extension.sh"), [dir], { stdio: "ignore" });
  const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
  manifest.host_permissions = [...manifest.host_permissions, ...TEST_SITES];
  writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest, null, 2));
  return dir;
}

/**
 * Chromium with the extension at `dir` loaded (and the extensions at `others` beside it), on the
 * profile `profile`; `hosts` maps names to 127.0.0.1.
 */
export function launch(profile, dir, hosts = ["shop.example"], others = []) {
  const dirs = [dir, ...others].join(",");
  return chromium.launchPersistentContext(profile, {
    executablePath: browserPath,
    headless: true, // Playwright passes --headless (the new headless mode, which runs extensions)
    // Dev servers on https serve self-signed certificates (vite.mjs), as a developer clicks through.
    ignoreHTTPSErrors: true,
    args: [
      `--disable-extensions-except=${dirs}`,
      `--load-extension=${dirs}`,
      `--host-resolver-rules=${hosts.map((h) => `MAP ${h} 127.0.0.1`).join(", ")}`,
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}

/** The extension's service worker in `context`. */
export async function serviceWorker(context) {
  const ours = (w) => w.url().endsWith("/background/worker.js");
  return context.serviceWorkers().find(ours) || (await context.waitForEvent("serviceworker", { predicate: ours, timeout: 15000 }));
}

/** Points the extension of `worker` at the gasoline server at `serverUrl`, as its options page would. */
export function pointAt(worker, serverUrl) {
  return worker.evaluate((url) => chrome.storage.local.set({ settings: { serverUrl: url } }), serverUrl);
}

/**
 * Loads `url` in `page` until `captured()` finds what its load left in the capture (within `ms`).
 * The scope's scripts are registered for the loads that begin after Chrome holds them, so a page
 * opened right after the extension starts may go uncaptured once: a developer reloads.
 */
export function loadUntil(what, page, url, captured, ms = 60000) {
  return waitFor(what, async () => {
    await page.goto(url);
    await page.waitForFunction(() => document.readyState === "complete");
    return captured();
  }, ms);
}

/** Polls `check` until it returns a truthy value; fails with `what` after `ms`. */
export async function waitFor(what, check, ms = 15000) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
      last = undefined; // a timeout then says nothing stale about an earlier try
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ""}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/**
 * An HTTP server of a fixture's own on a loopback port chosen by the system: resolves with
 * `{server, origin, close}` once it listens (on 127.0.0.1 unless `host` names another loopback
 * address). `setup(server)` runs before it listens (a WebSocket or socket.io server attached to it).
 */
export function serve(handler, { host = "127.0.0.1", setup } = {}) {
  const server = http.createServer(handler);
  if (setup) setup(server);
  return new Promise((resolve, reject) => {
    server.on("error", (e) => reject(new Error(`a fixture cannot listen on ${host}: ${e.message}`)));
    server.listen(0, host, () =>
      resolve({ server, origin: `http://${host}:${server.address().port}`, close: () => new Promise((done) => server.close(() => done())) }),
    );
  });
}

/**
 * A gate in front of the gasoline server on `port`, for the extension to be pointed at: it
 * forwards every request (with the Host the server expects) until `hold()`, then keeps what
 * comes, answering nothing, until `release()` forwards it in order. `held()` is the bodies held.
 * What the server does with an entry that reaches it late (a file saved meanwhile) is then tested
 * without racing the extension.
 */
export async function gate(port) {
  let holding = false;
  const waiting = []; // {req, body, res}
  const forward = ({ req, body, res }) => {
    const out = http.request(
      { host: "127.0.0.1", port, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${port}` } },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    out.end(body);
  };
  const { origin, close } = await serve((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const request = { req, body: Buffer.concat(chunks), res };
      if (holding) waiting.push(request);
      else forward(request);
    });
  });
  return {
    origin,
    close,
    hold: () => (holding = true),
    held: () => waiting.map((r) => r.body.toString()),
    release() {
      holding = false;
      for (const request of waiting.splice(0)) forward(request);
    },
  };
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * A dev server (a Node.js script and its arguments, run in `cwd` with `env` added), once
 * `ready()` says it serves (within `ms`): `output()` is what it printed, `stop()` ends it.
 */
export async function startDevServer(name, script, args, { cwd, env = {}, ready, ms = 60000 }) {
  const child = spawn(process.execPath, [script, ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", ...env },
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise((resolve) => child.on("exit", resolve));
  // A failed check exits the test at once (its `finally` never runs): the server goes with it.
  const orphan = () => child.kill("SIGKILL");
  process.on("exit", orphan);
  exited.then(() => process.off("exit", orphan));
  await waitFor(`${name} to serve`, async () => {
    if (child.exitCode !== null) throw new Error(`${name} exited: ${output}`);
    return ready(output);
  }, ms);
  return {
    output: () => output,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The 1-based line of `needle` in the file `dir`/`file`, and that line's text. */
/**
 * A fixture app (fixture/`name`/) to serve and edit as a developer would: its `entries` copied into
 * a new work folder, its installed packages linked; `fail` is called when they are not installed
 * (`bin`, a path under its node_modules, missing). Returns `{work, app}`.
 */
export function fixtureCopy(name, entries, bin, fail) {
  const fixture = path.join(extensionDir, "test/e2e/fixture", name);
  if (!existsSync(path.join(fixture, "node_modules", bin))) {
    fail(`${fixture}/node_modules is missing: run scripts/setup.sh (npm ci in ${path.relative(process.cwd(), fixture)})`);
  }
  const work = mkdtempSync(path.join(tmpdir(), `gasoline-${name}-`));
  const app = path.join(work, "app");
  for (const entry of entries) cpSync(path.join(fixture, entry), path.join(app, entry), { recursive: true });
  symlinkSync(path.join(fixture, "node_modules"), path.join(app, "node_modules"), "dir");
  return { work, app };
}

/**
 * Requests to `url` in `tabId` name what they ran (a GraphQL operation, tRPC procedures) in the
 * compact entries an agent reads first: their rows' and body entries' `[operation, status]` are
 * `expected`, and the summary's errors hold a group whose example begins with `failure`.
 */
export async function assertOperationsNamed(client, tabId, url, expected, failure) {
  // An entry's fields with what the page's entries share (`common`: two calls alike share both).
  const read = async (what) => {
    const answer = await observe(client, { what, tabId, url });
    return answer.entries.map((e) => ({ ...answer.common, ...e }));
  };
  const rows = await waitFor(`the ${expected.length} rows of ${url}`, async () => {
    const r = await read("network_waterfall");
    return r.length === expected.length && r;
  });
  const operations = (entries) => entries.map((e) => [e.operation, e.status]);
  assert.deepEqual(operations(rows), expected, JSON.stringify(rows));
  const bodies = await read("network_bodies");
  assert.deepEqual(operations(bodies), expected, JSON.stringify(bodies));
  const summary = await observe(client, { what: "summary", tabId });
  const examples = (summary.errors?.groups || []).map((g) => g.example);
  assert.ok(examples.some((m) => m.startsWith(failure)), JSON.stringify(summary.errors));
}

export function lineOf(dir, file, needle) {
  const lines = readFileSync(path.join(dir, file), "utf8").split("\n");
  const i = lines.findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `${needle} in ${file}`);
  return { line: i + 1, text: lines[i] };
}

/** `gasoline mcp` on `port` and `db`, with an MCP client over its stdio. */
export async function startGasoline(port, db, extra = []) {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--port", String(port), "--db", db, ...extra],
    env: { ...process.env, RUST_LOG: "warn" },
    stderr: "inherit",
  });
  const client = new Client({ name: "gasoline-e2e", version: "1.0.0" });
  await client.connect(transport);
  const health = await waitFor("gasoline to listen", async () => {
    const r = await fetch(`http://127.0.0.1:${port}/health`);
    return r.ok && (await r.json());
  });
  assert.equal(health.db, db, "the server writes the test's database");
  return client;
}

export async function stopGasoline(client, port) {
  await client.close();
  await waitFor("the old server to let go of its port", async () => {
    try {
      await fetch(`http://127.0.0.1:${port}/health`);
      return false;
    } catch {
      return true;
    }
  });
}

export async function observe(client, args) {
  const result = await client.callTool({ name: "observe", arguments: args });
  const text = result.content.map((c) => c.text).join("");
  if (result.isError) throw new Error(`observe ${JSON.stringify(args)}: ${text}`);
  return JSON.parse(text);
}

/** Every entry of a kind (following the cursor, so it is never cut by the budget). */
export async function all(client, what, extra = {}) {
  const entries = [];
  let cursor = 0;
  for (;;) {
    const page = await observe(client, {
      what,
      after_cursor: cursor,
      limit: 500,
      fields: "all",
      max_chars: 500_000,
      max_tokens: 100_000,
      ...extra,
    });
    entries.push(...page.entries);
    if (!page.has_more) return entries;
    cursor = page.cursor;
  }
}

/** The URLs of every script of our extension that ran in `page`'s main frame (page world or isolated). */
export async function extensionScripts(page, { parsed } = {}) {
  const cdp = await page.context().newCDPSession(page);
  const urls = [];
  cdp.on("Debugger.scriptParsed", (e) => {
    if (!e.url.startsWith("chrome-extension://") && !e.url.startsWith("gasoline://")) return;
    urls.push(e.url);
    if (parsed) parsed.push(e);
  });
  await cdp.send("Debugger.enable"); // reports every script already parsed
  await cdp.send("Debugger.disable");
  await cdp.detach();
  return urls;
}

/**
 * Every field of every stored entry is one the server's kind.rs declares
 * (`gasoline kinds`): what the extension emits and what the server describes
 * to agents (`fields`, the schema) cannot drift apart unnoticed. `entries` maps
 * a kind to the entries read back with `fields: "all"`.
 */
export function assertDeclared(entries) {
  const { kinds } = JSON.parse(execFileSync(bin, ["kinds"], { encoding: "utf8" }));
  const undeclared = [];
  for (const [kind, list] of Object.entries(entries)) {
    const declared = kinds.find((k) => k.name === kind);
    assert.ok(declared, `kind ${kind} is not declared by the server`);
    const fields = new Set(declared.fields);
    for (const e of list) for (const key of Object.keys(e)) if (!fields.has(key)) undeclared.push(`${kind}.${key}`);
  }
  assert.deepEqual([...new Set(undeclared)].sort(), [], "fields the extension sends that src/kind.rs does not declare");
}

/** Resolves once the extension's service worker holds nothing undelivered (its queues are empty). */
export async function drained(context, what = "the extension's queues to empty") {
  await waitFor(what, async () => {
    const w = await serviceWorker(context);
    const pending = await w.evaluate(() => globalThis.gasolineDebug.pending());
    return Object.values(pending).every((n) => n === 0);
  }, 30000);
}

let sentinels = 0;
/**
 * Resolves once everything `page` recorded before this call is stored: a
 * sentinel line logged now has arrived (the page's outbox, its relay and the
 * worker's intake keep their order) and the worker's queues are empty. After
 * it, an entry that is not stored was never sent, and no duplicate is on its way.
 */
export async function settled(context, page, client) {
  const text = `gasoline e2e sentinel ${++sentinels} ${Date.now()}`;
  await page.evaluate((t) => console.log(t), text);
  await waitFor(`the sentinel "${text}"`, async () => (await all(client, "logs")).some((e) => e.message === text));
  await drained(context);
}

/** The extension's service worker in `context` as it is now (a stopped one is started again by events). */
export async function liveWorker(context) {
  return waitFor(
    "the extension's service worker",
    async () => {
      for (const w of context.serviceWorkers().reverse()) {
        if (!w.url().startsWith("chrome-extension://")) continue;
        try {
          if ((await w.evaluate(() => typeof chrome.runtime.id)) === "string") return w;
        } catch {
          // a stopped one
        }
      }
      return null;
    },
    20000,
  );
}

/**
 * Stops the extension's service worker `w` as Chrome does when it is idle (the DevTools protocol
 * closes its target), and returns the next life of it, started by `wake` (none without one). A mark
 * left in the old life's memory tells the two apart.
 */
export async function stopWorker(context, w, wake) {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  await w.evaluate(() => {
    globalThis.__gasolineTestMark = true;
  });
  const page = context.pages()[0] || (await context.newPage());
  const cdp = await context.newCDPSession(page);
  const marked = (x) =>
    Promise.race([x.evaluate(() => globalThis.__gasolineTestMark === true), sleep(2000).then(() => null)]).catch(
      () => null,
    );
  await waitFor(
    "the worker to stop",
    async () => {
      const { targetInfos } = await cdp.send("Target.getTargets");
      const target = targetInfos.find((t) => t.type === "service_worker" && t.url.startsWith("chrome-extension://"));
      if (!target) return true;
      if ((await marked(w)) !== true) return true;
      await cdp.send("Target.closeTarget", { targetId: target.targetId }).catch(() => {});
      await sleep(300);
      return false;
    },
    20000,
  );
  await cdp.detach().catch(() => {});
  if (!wake) return null;
  await wake();
  return waitFor(
    "the worker's next life",
    async () => {
      const next = await liveWorker(context);
      return (await marked(next)) === false && next;
    },
    20000,
  );
}
