// End to end, the service worker's side: exactly-once delivery through
// everything that can interrupt it. The real extension (its test build) in
// headless Chromium, a fixture site on loopback, the real gasoline server
// behind a proxy this test controls (to hold, drop or refuse its replies),
// read back through MCP. What the rows say of each request is network.mjs's.
//
//   GASOLINE_BIN=target/debug/gasoline node extension/test/e2e/delivery.mjs
//
// The events followed through the interruptions are network_waterfall rows:
// each scenario's page fetches /n/<scenario>/<i> one after the other, and
// every row must be stored once, in order. Exits non-zero with the reason on
// the first failed check.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import {
  all,
  checkPrerequisites,
  drained,
  freePort,
  launch as launchBrowser,
  liveWorker,
  serve,
  startGasoline,
  stopGasoline,
  stopWorker,
  testBuild,
  waitFor as waitUpTo,
} from "./harness.mjs";

const N = 8; // requests per delivery scenario
checkPrerequisites(fail);

function fail(message) {
  console.error(`delivery e2e FAILED: ${message}`);
  process.exit(1);
}

function log(message) {
  console.log(`delivery e2e: ${message}`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it is truthy, at most 20 s (a restarted worker or browser takes its time). */
const waitFor = (what, check, ms = 20000) => waitUpTo(what, check, ms);


// ---- the fixture site ----------------------------------------------------------------------
const app = await serve((req, res) => {
  const url = new URL(req.url, "http://x");
  if (url.pathname === "/") {
    res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
    res.end("<!doctype html><title>delivery</title><p>fixture</p>");
  } else if (url.pathname === "/leave") {
    // What a page does in its last moment: an error logged, then away by script or by a link.
    res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
    res.end(`<!doctype html><title>leave</title><button id="go">go</button><a id="link" href="/left">link</a>
<script>
  document.getElementById("go").onclick = () => { console.error("leaving by script"); location.href = "/left"; };
  document.getElementById("link").onclick = () => {
    console.error("leaving by a link");
    // Still in flight as the page goes: an XHR the server answers late, and a keepalive fetch
    // sent in the page's own pagehide.
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/slow");
    xhr.send("waiting");
    addEventListener("pagehide", () => fetch("/n/bye", { method: "POST", keepalive: true, body: "bye" }));
    // The usual beacon: a Blob sent as the page is hidden, on its way out (a read of it cannot end).
    addEventListener("visibilitychange", () => {
      if (document.visibilityState === "hidden") navigator.sendBeacon("/n/beacon-blob", new Blob(['{"left":true}'], { type: "text/plain" }));
    });
  };
</script>`);
  } else if (url.pathname === "/form") {
    // A server-rendered page as htmx boosts it: a link's click swaps a part in by XHR and pushes
    // the URL; then its form posts, and the server shows the form again (422) for the next round.
    const i = Number(url.searchParams.get("i")) + (req.method === "POST" ? 1 : 0);
    req.resume();
    req.on("end", () => {
      res.writeHead(req.method === "POST" ? 422 : 200, { "content-type": "text/html", "cache-control": "no-store" });
      res.end(`<!doctype html><title>form ${i}</title><div id="main"><a id="part" href="/part">part</a></div>
<form method="post" action="/form?i=${i}"><input id="email" name="email"><button id="send">Send</button></form>
<script>
  document.getElementById("part").onclick = (e) => {
    e.preventDefault();
    const xhr = new XMLHttpRequest();
    xhr.open("GET", "/part?i=${i}");
    xhr.onload = () => {
      document.getElementById("main").innerHTML = xhr.responseText;
      history.pushState({}, "", "/contact?i=${i}");
      console.log("swapped ${i}");
    };
    xhr.send();
  };
</script>`);
    });
  } else if (url.pathname === "/part") {
    res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
    res.end(`<p>part ${url.searchParams.get("i")}</p>`);
  } else if (url.pathname === "/slow") {
    setTimeout(() => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("late");
    }, 10000);
  } else if (url.pathname === "/left") {
    res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
    res.end("<!doctype html><title>left</title><p>left</p>");
  } else if (url.pathname.startsWith("/n/")) {
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
    res.end('{"ok":true}');
  } else {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not here");
  }
});

// ---- the proxy in front of gasoline: pass, hold, drop the reply, or refuse ---------------
const proxy = {
  mode: "pass",
  busy: 0, // batches still to refuse with the server's 503 (mode "busy")
  refused: 0,
  posts: [], // { key, kind, status, replayed }
  held: [], // { req, body, res }
  backend: 0,
};
async function forward(req, body) {
  const r = await fetch(`http://127.0.0.1:${proxy.backend}${req.url}`, {
    method: req.method,
    headers: Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => ["content-type", "idempotency-key"].includes(k)),
    ),
    body: req.method === "POST" ? body : undefined,
  });
  const text = await r.text();
  if (req.method === "POST") {
    proxy.posts.push({
      key: req.headers["idempotency-key"],
      kind: req.url.split("/").pop(),
      status: r.status,
      replayed: r.headers.get("idempotent-replayed") === "true",
    });
  }
  return { status: r.status, headers: { "content-type": r.headers.get("content-type") || "text/plain" }, text };
}
const proxyServer = await serve((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    const body = Buffer.concat(chunks);
    const isBatch = req.method === "POST" && req.url === "/events/network_waterfall";
    try {
      if (proxy.mode === "down") return res.destroy();
      if (isBatch && proxy.mode === "hold") return proxy.held.push({ req, body, res });
      if (isBatch && proxy.mode === "busy" && proxy.busy > 0) {
        // What gasoline answers when its pending-writes budget is full: 503, Retry-After.
        proxy.busy -= 1;
        proxy.refused += 1;
        res.writeHead(503, { "content-type": "application/json", "retry-after": "1" });
        return res.end('{"error":"the store is busy writing; retry after a moment"}');
      }
      const answer = await forward(req, body);
      if (isBatch && proxy.mode === "drop-reply") {
        proxy.mode = "pass"; // once: the server stored it, the extension never hears so
        return res.destroy();
      }
      res.writeHead(answer.status, answer.headers);
      res.end(answer.text);
    } catch {
      res.destroy();
    }
  });
});
proxy.url = proxyServer.origin;

// ---- the browser ---------------------------------------------------------------------
const work = mkdtempSync(path.join(tmpdir(), "gasoline-delivery-"));
const profile = path.join(work, "profile");
const db = path.join(work, "gasoline.db");
const port = await freePort();
proxy.backend = port;
let client = await startGasoline(port, db);
let context;

// Developer mode, as a person loading the unpacked extension has it: without it
// Chromium disables an unpacked extension that reloads itself.
mkdirSync(path.join(profile, "Default"), { recursive: true });
writeFileSync(
  path.join(profile, "Default", "Preferences"),
  JSON.stringify({ extensions: { ui: { developer_mode: true } } }),
);

let build;
async function launch() {
  build = build || testBuild(work);
  context = await launchBrowser(profile, build);
  return liveWorker(context);
}

/** How many rows of `prefix` the worker has in storage, waiting to be delivered. */
function queued(w, prefix) {
  return w.evaluate(
    async (p) =>
      Object.entries(await chrome.storage.local.get(null)).filter(
        ([k, v]) => k.startsWith("gq/q:") && v.k === "network_waterfall" && JSON.parse(v.j).url.includes(p),
      ).length,
    prefix,
  );
}

/** The page fetches /n/<name>/0 .. N-1, one after the other. */
async function requests(page, name) {
  await page.evaluate(
    async ([name, n]) => {
      for (let i = 0; i < n; i++) await (await fetch(`/n/${name}/${i}`)).text();
    },
    [name, N],
  );
}

/** Every row of scenario `name` is stored once, in the order of the requests, on one tab. */
async function storedOnce(name) {
  const expected = Array.from({ length: N }, (_, i) => `${app.origin}/n/${name}/${i}`);
  const rows = await waitFor(`the ${N} rows of ${name}`, async () => {
    const got = await all(client, "network_waterfall", { url: `/n/${name}/` });
    return got.length >= N && got;
  });
  await drained(context); // a duplicate would come from the worker's queue: it is empty
  const again = await all(client, "network_waterfall", { url: `/n/${name}/` });
  assert.deepEqual(
    again.map((e) => e.url),
    expected,
    `${name}: every row once, in order`,
  );
  assert.equal(new Set(rows.map((e) => e.tabId)).size, 1, `${name}: one tab`);
  assert.ok(rows.every((e) => e.method === "GET" && e.responseStatus === 200 && e.source === "page" && e.initiatorType === "fetch"));
  return again;
}

try {
  let w = await launch();
  await w.evaluate((serverUrl) => chrome.storage.local.set({ settings: { serverUrl } }), proxy.url);
  let page = await context.newPage();
  await page.goto(`${app.origin}/`);

  // ---- the server's reply to a stored batch is lost ----
  proxy.mode = "drop-reply";
  await requests(page, "drop");
  await storedOnce("drop");
  const dropKeys = proxy.posts.filter((p) => p.kind === "network_waterfall").map((p) => p.key);
  const resent = proxy.posts.find((p) => p.replayed);
  assert.ok(resent, `the batch was sent again under its key: ${JSON.stringify(proxy.posts.slice(-4))}`);
  assert.equal(dropKeys.filter((k) => k === resent.key).length, 2);
  log("lost reply: the batch went again under its key, the server answered from memory, stored once");

  // ---- the server refuses under backpressure: 503 with Retry-After, three times ----
  proxy.mode = "busy";
  proxy.busy = 3;
  await requests(page, "busy");
  await storedOnce("busy");
  assert.equal(proxy.refused, 3, "three batches were refused before one went through");
  proxy.mode = "pass";
  log("503 under backpressure: kept, sent again after Retry-After, stored once");

  // ---- the service worker is stopped with its POST stored but unanswered ----
  proxy.mode = "hold";
  await requests(page, "stop");
  await waitFor("the rows in storage and their POST under way", async () => {
    return (await queued(w, "/n/stop/")) === N && proxy.held.some((h) => String(h.body).includes("/n/stop/"));
  });
  const heldKeys = [];
  for (const h of proxy.held.splice(0)) {
    heldKeys.push(h.req.headers["idempotency-key"]);
    await forward(h.req, h.body); // the server stores it; the reply never comes
  }
  proxy.mode = "pass";
  // The popup's counts of this tab, saved for the worker's next life.
  const saved = await waitFor("the tab's counts in session storage", async () => {
    const { tabCounts } = await w.evaluate(() => chrome.storage.session.get("tabCounts"));
    const tab = Object.entries(tabCounts || {}).find(([, t]) => (t.counts.network_waterfall || 0) >= N);
    return tab && { tabId: Number(tab[0]), rows: tab[1].counts.network_waterfall };
  });
  // An event (the page's next request) starts it again.
  w = await stopWorker(context, w, () => page.evaluate(() => fetch("/n/wake/0").then((r) => r.text())));
  await storedOnce("stop");
  const asking = await context.newPage();
  await asking.goto(new URL("/popup/popup.html", w.url()).href);
  const { counts } = await asking.evaluate((tabId) => chrome.runtime.sendMessage({ type: "tab", tabId }), saved.tabId);
  await asking.close();
  assert.ok(counts.network_waterfall >= saved.rows, `the next life still counts the tab's rows: ${JSON.stringify([saved, counts])}`);
  assert.ok(
    proxy.posts.some((p) => p.replayed && heldKeys.includes(p.key)),
    `the next life sent the stored batch again under its key and got the first answer: ${JSON.stringify([heldKeys, proxy.posts.slice(-6)])}`,
  );
  log("worker stopped mid-flight: the next one sent the sealed batch again, stored once");

  // ---- the extension is reloaded with rows waiting ----
  proxy.mode = "hold";
  await requests(page, "reload");
  await waitFor("the rows in storage", async () => (await queued(w, "/n/reload/")) === N);
  await w.evaluate(() => chrome.runtime.reload()).catch(() => {});
  await sleep(500);
  for (const h of proxy.held.splice(0)) h.res.destroy();
  proxy.mode = "pass";
  w = await liveWorker(context);
  await storedOnce("reload");
  log("extension reloaded: its queue survived and was delivered once");

  // ---- the browser restarts while the server is down ----
  // The reloaded extension's scripts are in pages loaded since (the old ones lost their worker).
  page = context.pages().find((p) => p.url().startsWith(app.origin)) || (await context.newPage());
  await page.goto(`${app.origin}/`);
  await stopGasoline(client, port);
  client = null;
  await requests(page, "restart");
  await waitFor("the rows in storage", async () => (await queued(w, "/n/restart/")) === N);
  await context.close();
  context = null;
  w = await launch(); // still down: the new worker tries, fails, keeps them
  await sleep(1000);
  assert.equal(await queued(w, "/n/restart/"), N, "the rows outlived the browser");
  client = await startGasoline(port, db);
  await storedOnce("restart");
  log("browser restarted while the server was down: delivered once when it came back");

  // ---- what a page does just before it navigates away ----
  // The page's last events cross to the relay synchronously in its pagehide (no task of the
  // unloading document runs again) and go to the worker without waiting for an answer.
  page = await context.newPage();
  for (const [button, message] of [
    ["#go", "leaving by script"],
    ["#link", "leaving by a link"],
  ]) {
    await page.goto(`${app.origin}/leave`);
    await page.click(button);
    await page.waitForURL(`${app.origin}/left`);
    await waitFor(`"${message}" and its click, made as the page left`, async () => {
      const logs = await all(client, "logs");
      const clicks = await all(client, "actions", { type: "click" });
      return logs.some((e) => e.message === message) && clicks.some((e) => e.selector === button && e.url === `${app.origin}/leave`);
    });
  }
  log("a page's last moment (an error, then away by script or by a link): its log and its click stored");
  // What was still in flight as the page left: a row and an entry each, saying they were not finished.
  const inFlight = await waitFor("the requests in flight as the page left", async () => {
    const rows = await all(client, "network_waterfall", { url: "/slow" });
    const bodies = await all(client, "network_bodies", { url: "/slow" });
    const bye = await all(client, "network_bodies", { url: "/n/bye" });
    const byeRows = await all(client, "network_waterfall", { url: "/n/bye" });
    return rows.length && bodies.length && bye.length && byeRows.length && { rows, bodies, bye, byeRows };
  });
  assert.deepEqual(
    inFlight.rows.map((r) => [r.method, r.unfinished, r.failed ?? false]),
    [["POST", true, false]],
    `the XHR's row: unfinished, not failed: ${JSON.stringify(inFlight.rows)}`,
  );
  assert.deepEqual(
    inFlight.bodies.map((b) => [b.method, b.initiator, b.requestBody, b.unfinished, b.error]),
    [["POST", "xhr", "waiting", true, undefined]],
  );
  assert.deepEqual(inFlight.bye.map((b) => [b.method, b.requestBody, b.unfinished]), [["POST", "bye", true]]);
  assert.ok(inFlight.byeRows.every((r) => r.method === "POST"), JSON.stringify(inFlight.byeRows));
  // The Blob beacon sent as the page was hidden: an entry, its body read if the read ended before
  // the document went, else described by its size and type.
  const beacon = await waitFor("the Blob beacon sent as the page was hidden", async () => (await all(client, "network_bodies", { url: "/n/beacon-blob" }))[0]);
  assert.deepEqual([beacon.method, beacon.initiator, beacon.queued], ["POST", "beacon", true], JSON.stringify(beacon));
  assert.ok(
    ['{"left":true}', "[Blob 13 bytes text/plain, not read: the page was unloaded first]"].includes(beacon.requestBody),
    JSON.stringify(beacon),
  );
  log(`what was in flight as the page left (an XHR, a keepalive fetch in pagehide): a row and an entry each, unfinished; a Blob beacon sent as it was hidden: ${beacon.requestBody}`);

  // What a page did in the moment before its form posted (a part swapped in, a field filled, the
  // submit), round after round: every event stored. The page hands its batches to the relay
  // synchronously: a batch posted on the port just before the browser committed the next document
  // (which it does ahead of posted messages) was lost with everything in it (a Flask + htmx review).
  const ROUNDS = 40;
  await page.goto(`${app.origin}/form?i=0`);
  for (let i = 0; i < ROUNDS; i++) {
    await page.click("#part");
    await page.waitForFunction((n) => document.body.textContent.includes(`part ${n}`), i);
    await page.fill("#email", `ann+${i}@example.com`);
    await Promise.all([page.waitForURL(`${app.origin}/form?i=${i}`), page.click("#send")]);
  }
  const last = ROUNDS - 1;
  const rounds = await waitFor("the last round's swap and submit", async () => {
    const swaps = (await all(client, "logs", { search: "swapped" })).map((e) => e.message);
    const submits = (await all(client, "actions", { type: "submit" })).filter((e) => /\/form\?i=/.test(e.action ?? ""));
    const done = swaps.includes(`swapped ${last}`) && submits.some((e) => e.action.endsWith(`/form?i=${last}`));
    return done && { swaps, submits };
  });
  assert.deepEqual(
    rounds.swaps,
    Array.from({ length: ROUNDS }, (_, i) => `swapped ${i}`),
    "every round's log, once, in order",
  );
  assert.equal(rounds.submits.length, ROUNDS, "every round's submit, once");
  log(`a form posted just after a part was swapped in, ${ROUNDS} rounds: every log and submit stored, once`);

  // ---- a drop reported by a page: counted in the popup, reported in extension_logs ----
  const origin = w.url().split("/").slice(0, 3).join("/");
  const popup = await context.newPage();
  await popup.goto(`${origin}/popup/popup.html`);
  // What the content script sends when the page's own buffer overflowed.
  await popup.evaluate(() =>
    chrome.runtime.sendMessage({ type: "dropped", kind: "logs", count: 7, reason: "the page's buffer was full" }),
  );
  const cell = (kind, column) =>
    popup.evaluate(
      ([kind, column]) => {
        const row = document.querySelector(`#kinds tr[data-kind="${kind}"]`);
        return row ? Number(row.cells[column].textContent) : NaN;
      },
      [kind, column],
    );
  await waitFor("the popup to count the drop", async () => (await cell("logs", 3)) === 7);
  assert.ok((await cell("network_waterfall", 1)) >= N, "the popup counts the rows sent since the restart");
  const report = await waitFor("the drop in extension_logs", async () =>
    (await all(client, "extension_logs")).find((e) => e.message.startsWith("dropped 7 logs")),
  );
  assert.equal(report.message, "dropped 7 logs events: the page's buffer was full");
  assert.equal(report.level, "warn");
  log("a page's drop: counted in the popup and reported in extension_logs");

  log("PASSED");
} catch (e) {
  fail(e.stack || String(e));
} finally {
  if (context) await context.close().catch(() => {});
  if (client) await client.close().catch(() => {});
  for (const s of [app.server, proxyServer.server]) s.close();
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
