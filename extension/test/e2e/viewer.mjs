// The viewer (http://127.0.0.1:PORT/) in real Chromium with the real extension
// loaded: what the extension captures of a local page, plus a fixture capture
// posted in the extension's wire format (what it sends for a page with console
// errors, fetches that fail, a redirect, a WebSocket, actions, and hostile
// strings), whose times the waterfall must place exactly. Each view must show the
// rows the database holds (compared with observe), the waterfall's bars must sit
// where their times say, hostile text must stay text, the page must follow
// live rows and a server restart, other origins must get nothing, and axe-core
// must find no serious or critical violation. Screenshots of every view go to
// target/viewer/ for people to look at.
//
//   GASOLINE_BIN=target/debug/gasoline node extension/test/e2e/viewer.mjs
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";

import { all, checkPrerequisites, extensionDir, freePort, launch, observe, serviceWorker, startGasoline, stopGasoline, testBuild, waitFor } from "./harness.mjs";

function fail(message) {
  console.error(`viewer e2e FAILED: ${message}`);
  process.exit(1);
}
checkPrerequisites(fail);
const log = (m) => console.log(`viewer e2e: ${m}`);
const shots = path.resolve(extensionDir, "../target/viewer");
mkdirSync(shots, { recursive: true });

// ---- hostile strings a page may log ------------------------------------------------
const HOSTILE = [
  `<img src=x onerror="window.top.__pwned='img'">`,
  `</script><script>window.top.__pwned='script'</script>`,
  `javascript:window.top.__pwned='link'`,
  `\u202Eevil RTL override\u202C and zero\u200Bwidth\u200D joiners`,
  `isAdmin\u2067\u2066 ) { // \u2069\u2069 and a mark\u200F, an embedding\u202B\u202C, a word joiner\u2060 and a BOM\uFEFF`,
  `pay\u00ADpal soft hyphen, hangul\u3164filler and a tag\u{E0020}character; a flag stays: 🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}`,
];
// Invisible characters (bidi controls, zero-width), each shown as a marked ⟨U+XXXX⟩ token, but a
// zero-width joiner or non-joiner between two non-ASCII characters (👩‍👩‍👧, Persian, Hindi), which
// stays as it is: the CLI's rule (docs/cli.md).
// Also the soft hyphen, fillers, separators and tags (src/printable.rs), but a flag's tags after 🏴.
const INVISIBLE =
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF0-\uFFF8\u{1D173}-\u{1D17A}\u{E0000}-\u{E007F}\u{E01F0}-\u{E0FFF}]/gu;
const FLAG = /\u{1F3F4}[\u{E0020}-\u{E007F}]+/gu;
const inFlag = (text, i) => [...text.matchAll(FLAG)].some((m) => i > m.index && i < m.index + m[0].length);
const joins = (text, i) =>
  (/[\u200C\u200D]/.test(text[i]) && i > 0 && text.charCodeAt(i - 1) > 0x7f && text.charCodeAt(i + 1) > 0x7f) || inFlag(text, i);
const visible = (text) => text.replace(INVISIBLE, (c, i) => (joins(text, i) ? c : `⟨U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`));
// An emoji family and a Persian word are written with joiners; the joiner after an ASCII letter is shown.
const JOINED = "family 👩\u200D👩\u200D👧, dev 👩\u200D💻, می\u200Cخواهم, and a\u200Db";
// A WebSocket URL two connections used, one after the other (a reconnect).
const LIVE = (site) => `ws://${new URL(site).host}/live`;
// A URL that reads as a picture but is a program (Trojan Source in a URL), a tab title and an action's value.
// An error page's text, as the extension stores it: markup in it is text the server wrote.
const ERROR_PAGE_TEXT = 'IntegrityError at /api/save\nNOT NULL constraint failed: orders.total\n<img src=x onerror="window.pwnedByPage=1">';
const HOSTILE_URL = (site) => `${site}/download/\u202Egnp.exe`;
const HOSTILE_TITLE = "Viewer\u200B fixture \u2067(reversed)\u2069";
const HOSTILE_VALUE = "\u202Enimda";
// A tab title of 2,000 wide letters: the filter bar's tab select must not grow past its bar.
const LONG_TITLE = "W".repeat(2000);

// ---- the fixture capture -------------------------------------------------------------
// What the extension sends for a page with console errors, a document load, a
// JSON fetch with its bodies, a 404, a redirect, a refused connection, a
// WebSocket and a click: the wire format of POST /events/{kind}.
function capture(site, T) {
  const tabId = 7;
  const at = (ms) => Math.round(T + ms);
  const doc = {
    source: "page", url: `${site}/`, method: "GET", initiatorType: "navigation", startTime: 0, duration: 180.4,
    phases: { redirect: 0, dns: 3.2, connect: 12.1, tls: 4, waiting: 60.5, download: 20.3 },
    domContentLoaded: 150.2, load: 210.7, responseStatus: 200, transferSize: 1500, nextHopProtocol: "http/1.1",
  };
  const req = (startTime, fields) => ({ source: "page", startTime, ts: at(startTime), ...fields });
  return {
    tabs: [{ tabId, url: `${site}/`, title: HOSTILE_TITLE }],
    logs: [
      { level: "log", message: 'fixture starts {"n":1}', source: "console", location: `${site}/:3:9`, original: { source: "src/main.ts", line: 2, column: 5 } },
      { level: "info", message: "fixture info", source: "console" },
      { level: "warn", message: "fixture warning", source: "console" },
      { level: "error", message: "fixture error Error: fixture boom", source: "console", stack: `Error: fixture boom\n    at ${site}/:6:30\n  Caused by: TypeError: inner cause\n      at ${site}/:5:11` },
      ...HOSTILE.map((message) => ({ level: "error", message, source: "console" })),
      { level: "log", message: "x".repeat(1024 * 1024), source: "console" },
      ...[0, 1, 2].map(() => ({ level: "log", message: "repeated message", source: "console" })),
      { level: "error", message: "Uncaught TypeError: cannot read x", source: "exception", url: `javascript:alert(1)` },
      { level: "log", message: JOINED, source: "console" },
      { level: "log", message: "fixture arguments 1 str null", args: [1, "str", null], source: "console" },
      { level: "error", message: `The frame answered 500: ${site}/report (IntegrityError at /report)`, source: "resource", tag: "document", resourceUrl: `${site}/report`, pageText: ERROR_PAGE_TEXT },
    ].map((e, i) => ({ ...e, tabId, ts: at(5 + i), url: e.url ?? `${site}/` })),
    network_waterfall: [
      { ...doc, ts: at(0) },
      req(190, { url: `${site}/data.json`, method: "GET", initiatorType: "fetch", duration: 40, responseStatus: 200, transferSize: 340, phases: { dns: 0, connect: 0, waiting: 30, download: 5 } }),
      req(240, { url: `${site}/missing`, method: "GET", initiatorType: "fetch", duration: 15, responseStatus: 404 }),
      req(260, { url: `${site}/redirect`, method: "GET", initiatorType: "fetch", duration: 50, responseStatus: 200, finalUrl: `${site}/data.json?via=redirect`, redirects: [{ url: `${site}/redirect`, status: 302, to: `${site}/data.json?via=redirect` }] }),
      req(320, { url: "http://127.0.0.1:9/refused", method: "GET", initiatorType: "fetch", duration: 2.5, failed: true, error: "TypeError: Failed to fetch", location: `${site}/src/cart.js:12:5`, callers: `${site}/src/main.js:3:1` }),
      req(330, { url: `ws://${new URL(site).host}/echo`, initiatorType: "websocket", duration: 12 }),
      // A script of 26,900 bytes: "26.9 kB", as DevTools writes it.
      req(170, { url: `${site}/bundle.js`, method: null, initiatorType: "script", duration: 8, responseStatus: 200, transferSize: 26900, encodedBodySize: 26600 }),
      // Two connections to one URL; each row ends as its socket opens (page/websocket.js).
      req(600, { url: LIVE(site), initiatorType: "websocket", duration: 8, responseStatus: 101 }),
      req(700, { url: LIVE(site), initiatorType: "websocket", duration: 6, responseStatus: 101 }),
      req(400, { url: `${site}/api/save`, method: "POST", initiatorType: "fetch", duration: 90, responseStatus: 500 }),
      req(450, { url: HOSTILE_URL(site), method: "GET", initiatorType: "fetch", duration: 20, responseStatus: 200 }),
      // An iframe's document: its DOMContentLoaded and load are the frame's, not lines of the page.
      req(460, { url: `${site}/frame.html`, method: "GET", initiatorType: "navigation", duration: 20, responseStatus: 200, domContentLoaded: 470, load: 2000, frameId: 3, frameUrl: `${site}/frame.html` }),
    ].map((e) => ({ ...e, tabId })),
    network_bodies: [
      { method: "GET", url: `${site}/data.json`, status: 200, duration: 40, requestHeaders: { accept: "application/json" }, responseHeaders: { "content-type": "application/json" }, responseBody: '{"items":[1,2,3],"nested":{"ok":true}}', ts: at(190) },
      // A server's debug page answered to the POST: its text, which holds markup the page wrote.
      { method: "POST", url: `${site}/api/save`, status: 500, duration: 90, responseHeaders: { "content-type": "text/html" }, responseBody: "[an HTML error page: its text is pageText]", responseBodySize: 90000, pageText: ERROR_PAGE_TEXT, ts: at(400) },
    ].map((e) => ({ ...e, tabId })),
    websocket_events: [
      { connectionId: "ws-1", event: "open", url: `ws://${new URL(site).host}/echo`, ts: at(335) },
      { connectionId: "ws-1", event: "message", direction: "outgoing", data: "hello socket", ts: at(336) },
      { connectionId: "ws-1", event: "message", direction: "incoming", data: "hello socket", ts: at(338) },
      { connectionId: "ws-1", event: "close", code: 1000, ts: at(340) },
      // Two sockets of one URL, their frames interleaved; messages carry no URL (as page/websocket.js sends them).
      { connectionId: "live-1", event: "open", url: LIVE(site), ts: at(608) },
      { connectionId: "live-1", event: "message", direction: "outgoing", data: "first hello", ts: at(610) },
      { connectionId: "live-2", event: "open", url: LIVE(site), ts: at(706) },
      { connectionId: "live-1", event: "message", direction: "incoming", data: "first reply", ts: at(720) },
      { connectionId: "live-2", event: "message", direction: "incoming", data: "second says", ts: at(730) },
      { connectionId: "live-1", event: "close", code: 1000, reason: "done", wasClean: true, url: LIVE(site), ts: at(740) },
      { connectionId: "live-2", event: "close", code: 1006, reason: `<b id="pwned">gone</b>`, wasClean: false, url: LIVE(site), ts: at(800) },
    ].map((e) => ({ ...e, tabId })),
    actions: [
      { type: "navigate", how: "load", url: `${site}/`, ts: at(0) },
      { type: "click", selector: "button#again", text: "Log again", url: `${site}/`, ts: at(500) },
      { type: "input", selector: "input#user", value: HOSTILE_VALUE, url: `${site}/`, ts: at(520) },
    ].map((e) => ({ ...e, tabId })),
  };
}

/** POSTs entries as the extension does (no web Origin). */
async function ingest(base, kind, entries) {
  const r = await fetch(`${base}/events/${kind}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ entries }) });
  assert.equal(r.status, 200, `ingest ${kind}: ${await r.text()}`);
}

let liveN = 0;
/** One new log row, as a page would log it now. */
function liveRow(base) {
  return ingest(base, "logs", [{ level: "log", message: `live row ${++liveN}`, source: "console", tabId: 7, ts: Date.now() }]);
}

// ---- another origin: a plain page that tries to read and clear ------------------------
function startFixture() {
  const server = http.createServer((req, res) => {
    if (req.url === "/real.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"real":true}');
      return;
    }
    res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
    if (req.url === "/real") {
      // A local page the real extension captures: a log line and a fetch.
      res.end(`<!doctype html><title>real page</title><h1>real page</h1><script>
        addEventListener("load", () => setTimeout(() => {
          console.log("real page says hello");
          fetch("/real.json").then((r) => r.json());
        }, 0));
      </script>`);
      return;
    }
    res.end("<!doctype html><title>another site</title><h1>another site</h1>");
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` })));
}

// ---- helpers --------------------------------------------------------------------------
/** The observe total of `what`. */
async function total(client, what, extra = {}) {
  return (await observe(client, { what, limit: 1, ...extra })).total;
}

/** A host header the server must refuse (DNS rebinding). */
function getWithHost(port, host, pathName) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: pathName, headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Empties the filter box as a person does: select all, delete. */
async function clearFilter(page) {
  await page.click("#q");
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Backspace");
}

/** Every text node and attribute of the page that holds an invisible character as it is (none may, but a joiner between two non-ASCII characters). */
async function rawInvisibles(page) {
  return page.evaluate((source) => {
    const re = new RegExp(source, "gu");
    const flag = /\u{1F3F4}[\u{E0020}-\u{E007F}]+/gu;
    const inFlag = (t, i) => [...t.matchAll(flag)].some((m) => i > m.index && i < m.index + m[0].length);
    const joins = (t, i) => (/[\u200C\u200D]/.test(t[i]) && i > 0 && t.charCodeAt(i - 1) > 0x7f && t.charCodeAt(i + 1) > 0x7f) || inFlag(t, i);
    const raw = (t) => [...t.matchAll(re)].some((m) => !joins(t, m.index));
    const bad = [];
    const walk = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
    for (let n = walk.currentNode; n; n = walk.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE && raw(n.data)) bad.push(`text in <${n.parentNode.localName}>: ${JSON.stringify(n.data.slice(0, 80))}`);
      if (n.nodeType === Node.ELEMENT_NODE) for (const a of n.attributes) if (raw(a.value)) bad.push(`${a.name}= of <${n.localName}>: ${JSON.stringify(a.value.slice(0, 80))}`);
    }
    return bad;
  }, INVISIBLE.source);
}

/** A size as DevTools writes it: kB and MB of 1000. */
function devtoolsSize(n) {
  if (n < 1000) return `${n} B`;
  const unit = (v, name) => (v < 99.95 ? `${v.toFixed(1)} ${name}` : `${Math.round(v)} ${name}`);
  return n < 999_500 ? unit(n / 1000, "kB") : unit(n / 1e6, "MB");
}

/** The page shows no invisible character as it is, and shows `tokens` of them as marked tokens. */
async function invisiblesShown(page, where, tokens) {
  assert.deepEqual(await rawInvisibles(page), [], `${where}: an invisible character shown as it is`);
  const marks = await page.$$eval(".invisible", (ns) => ns.map((n) => n.textContent));
  for (const t of tokens) assert.ok(marks.includes(t), `${where}: the token ${t} among ${JSON.stringify([...new Set(marks)])}`);
}

async function axe(page, view) {
  await page.evaluate(readFileSync(path.join(extensionDir, "node_modules/axe-core/axe.min.js"), "utf8"));
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`),
    [],
    `axe-core on ${view}`,
  );
}

// ---- the run ---------------------------------------------------------------------------
const work = mkdtempSync(path.join(tmpdir(), "gasoline-viewer-"));
const db = path.join(work, "gasoline.db");
const fixture = await startFixture();
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
let client = await startGasoline(port, db);
let context;
try {
  for (const [kind, entries] of Object.entries(capture(fixture.origin, Date.now() - 60_000))) await ingest(base, kind, entries);
  await ingest(base, "tabs", [{ tabId: 8, url: `${fixture.origin}/long`, title: LONG_TITLE }]);
  log("capture stored");
  // The real extension in the same browser: it captures a local page, and never the viewer.
  // Beside it, another extension that holds every host, as password managers and ad blockers do.
  const another = path.join(work, "another-extension");
  mkdirSync(another);
  writeFileSync(path.join(another, "bg.js"), "// nothing: the test reads from here\n");
  writeFileSync(
    path.join(another, "manifest.json"),
    JSON.stringify({ manifest_version: 3, name: "Another extension", version: "1.0", host_permissions: ["<all_urls>"], background: { service_worker: "bg.js" } }),
  );
  context = await launch(path.join(work, "profile"), testBuild(work), undefined, [another]);
  const worker = await serviceWorker(context);
  await worker.evaluate((serverUrl) => chrome.storage.local.set({ settings: { serverUrl } }), base);
  const site = await context.newPage();
  const siteErrors = [];
  site.on("pageerror", (e) => siteErrors.push(e.message));
  const captured = async () => {
    const logs = await observe(client, { what: "logs", limit: 100, fields: "all" });
    const requests = await observe(client, { what: "network_waterfall", limit: 100, fields: "all" });
    return (
      logs &&
      requests.entries.some((e) => e.url.endsWith("/real.json")) &&
      requests.entries.some((e) => e.url.endsWith("/real") && typeof e.load === "number")
    );
  };
  // The page scripts are registered once the settings are read: a load that came first is loaded again.
  for (let attempt = 1; ; attempt++) {
    await site.goto(`${fixture.origin}/real`);
    try {
      await waitFor("the extension to capture a local page", captured, 8000);
      break;
    } catch (e) {
      if (attempt === 3) {
        const logs = await observe(client, { what: "logs", limit: 100, fields: "all" });
        const requests = await observe(client, { what: "network_waterfall", limit: 100, fields: "all" });
        const ext = await observe(client, { what: "extension_logs", limit: 20, fields: "all" });
        const pending = await worker.evaluate(() => globalThis.gasolineDebug && globalThis.gasolineDebug.pending());
        throw new Error(`${e.message}: ext ${JSON.stringify(ext.entries.map((x) => x.message))} pending ${JSON.stringify(pending)} page errors ${JSON.stringify(siteErrors)} ${JSON.stringify(logs.entries.filter((x) => x.tabId !== 7).map((x) => x.message))} ${JSON.stringify(requests.entries.filter((x) => x.tabId !== 7).map((x) => [x.url, x.load]))}`);
      }
    }
  }
  log("the real extension captured a local page");

  // ---- the viewer ----
  const viewer = await context.newPage();
  await viewer.setViewportSize({ width: 1440, height: 900 });
  const pageErrors = [];
  viewer.on("pageerror", (e) => pageErrors.push(e.message));
  viewer.on("console", (m) => m.type() === "error" && pageErrors.push(`console: ${m.text()}`));
  viewer.on("dialog", (d) => {
    pageErrors.push(`a dialog opened: ${d.message()}`);
    d.dismiss();
  });
  await viewer.addInitScript(() => {
    window.__violations = [];
    document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });

  // Overview: every ring's count is observe's total.
  await viewer.goto(`${base}/`);
  await viewer.waitForSelector("table.grid tr[data-kind=logs]");
  for (const kind of ["logs", "network_waterfall", "websocket_events", "actions"]) {
    const shown = await viewer.textContent(`tr[data-kind=${kind}] td[data-field=count]`);
    assert.equal(Number(shown.replace(/\D/g, "")), await total(client, kind), `overview count of ${kind}`);
  }
  await invisiblesShown(viewer, "the overview (a tab's title)", ["⟨U+200B⟩", "⟨U+2067⟩", "⟨U+2069⟩"]);
  // The database's size in DevTools' units (kB of 1000), as the overview said it when last read.
  // A checkpoint moves the file's and the log's sizes without moving a ring, so the page (which
  // reads again when a ring moves) is read afresh for each try.
  await waitFor("the database's size in kB of 1000", async () => {
    await viewer.reload();
    await viewer.waitForSelector("dl.facts dd");
    const o = await (await fetch(`${base}/api/overview`)).json();
    const said = await viewer.$$eval("dl.facts dd", (ns) => ns[1]?.textContent ?? "");
    return said.endsWith(` ${devtoolsSize(o.db.bytes)}${o.db.wal_bytes ? ` (+ ${devtoolsSize(o.db.wal_bytes)} write-ahead log)` : ""}`);
  });
  // The long title's tab: the select stays within the filter bar, in a wide window and a narrow one.
  await viewer.waitForSelector("#tab option[value='8']", { state: "attached" });
  for (const width of [1440, 700]) {
    await viewer.setViewportSize({ width, height: 900 });
    const fit = await viewer.evaluate(() => {
      const bar = document.querySelector(".filters");
      const select = document.querySelector("#tab").getBoundingClientRect();
      return { width: select.width, right: select.right, barRight: bar.getBoundingClientRect().right, barOverflow: bar.scrollWidth - bar.clientWidth };
    });
    assert.ok(fit.right <= fit.barRight && fit.barOverflow <= 0 && fit.width <= width / 2, `the tab select fits its bar at ${width} px: ${JSON.stringify(fit)}`);
  }
  await viewer.setViewportSize({ width: 1440, height: 900 });
  await viewer.screenshot({ path: path.join(shots, "overview.png") });
  await axe(viewer, "overview");
  log("overview matches observe");

  // Console: the messages the database holds, hostile ones as text.
  await viewer.click("nav a[data-view=console]");
  await viewer.waitForURL(/\/console/);
  await viewer.waitForSelector(".vlayer .vrow");
  const logTotal = await total(client, "logs");
  await waitFor("the console's count", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === logTotal);
  // The error groups of the summary, each opening its first occurrence.
  const groups = await observe(client, { what: "errors", group: true, max_chars: 100000, max_tokens: 20000 });
  await viewer.click("details.groups summary");
  await waitFor("the error groups", async () => (await viewer.$$("details.groups tbody tr")).length === Math.min(25, groups.total_groups));
  await viewer.click("details.groups tbody tr button.linkish");
  await viewer.waitForSelector("#detail:not([hidden]) pre.body");
  await viewer.keyboard.press("Escape");
  await viewer.waitForSelector("#detail", { state: "hidden" });
  // A page the server answered with its debug page: the page's text, as text.
  await viewer.fill("#q", "The frame answered");
  await waitFor("the failed frame alone", async () => (await viewer.$$(".vlayer .vrow")).length === 1);
  await viewer.click(".vlayer .vrow");
  await viewer.waitForSelector("#detail pre.page-text");
  assert.equal(await viewer.textContent("#detail pre.page-text"), ERROR_PAGE_TEXT);
  assert.equal(await viewer.evaluate(() => window.pwnedByPage === undefined && !document.querySelector("#detail img")), true, "the page's markup stays text");
  await viewer.keyboard.press("Escape");
  await viewer.waitForSelector("#detail", { state: "hidden" });
  // A call site a source map resolved reads as its original line, as the agent's `at` says it.
  await viewer.fill("#q", "fixture starts");
  await waitFor("the logged row alone", async () => (await viewer.$$eval(".vlayer .vrow", (ns) => ns.map((n) => n.textContent))).join("").includes("fixture starts") && (await viewer.$$(".vlayer .vrow")).length === 1);
  assert.equal(await viewer.textContent(".vlayer .vrow .vcell.dim .text"), "src/main.ts:2:5");
  // A stack's cause chain, expandable.
  await viewer.fill("#q", "fixture boom");
  await waitFor("the error with a cause", async () => {
    const texts = await viewer.$$eval(".vlayer .vrow .msg .text", (ns) => ns.map((n) => n.textContent));
    return texts.length === 1 && texts[0].includes("fixture boom");
  });
  await viewer.click(".vlayer .vrow");
  assert.equal((await viewer.textContent("#detail details.cause summary", { timeout: 5000 })).trim(), "Caused by: TypeError: inner cause");
  const opened = await viewer.textContent("#detail h2");
  await viewer.keyboard.press("Escape");
  // Esc closes the detail and the selection with it: the row looks like the others again, and
  // the list keeps the keyboard (arrows go on from that row).
  await viewer.waitForSelector("#detail", { state: "hidden" });
  assert.deepEqual(
    await viewer.$$eval(".vlayer .vrow", (ns) => ns.filter((n) => n.getAttribute("aria-selected") !== "false" || getComputedStyle(n).backgroundColor === "rgb(210, 227, 252)").map((n) => n.dataset.id)),
    [],
    "no row looks selected after Esc",
  );
  assert.doesNotMatch(viewer.url(), /sel=/, "no selection in the URL");
  assert.equal(await viewer.evaluate(() => document.activeElement.getAttribute("role")), "grid", "the list keeps the focus");
  await viewer.keyboard.press("ArrowUp");
  await viewer.keyboard.press("ArrowDown");
  await viewer.keyboard.press("Enter");
  await waitFor("the same row opened again from the keyboard", async () => (await viewer.$eval("#detail", (d) => (d.hidden ? "" : d.querySelector("h2")?.textContent))) === opened);
  await viewer.keyboard.press("Escape");
  // The repeated message is one row with a count of 3.
  await viewer.fill("#q", "repeated");
  await waitFor("the filter", async () => {
    const texts = await viewer.$$eval(".vlayer .vrow .msg .text", (ns) => ns.map((n) => n.textContent));
    return texts.length === 1 && texts[0] === "repeated message";
  });
  assert.equal(await viewer.textContent(".vlayer .vrow .repeat"), "3");
  assert.match(viewer.url(), /q=repeated/, "the filter is in the URL");
  // Hostile strings: each shown as the very text (invisible characters as visible tokens),
  // nothing of theirs in the DOM or run.
  for (const h of HOSTILE) {
    await viewer.fill("#q", `"${h.slice(0, 12)}"`);
    await waitFor(`the row of ${JSON.stringify(h.slice(0, 20))}`, async () => {
      const texts = await viewer.$$eval(".vlayer .vrow .msg .text", (ns) => ns.map((n) => n.textContent));
      return texts.includes(visible(h));
    });
    await viewer.click(".vlayer .vrow");
    await viewer.waitForSelector("#detail:not([hidden]) pre.body");
    assert.equal(await viewer.textContent("#detail pre.body"), visible(h), "the detail shows the message as text");
    await invisiblesShown(viewer, `the console and detail of ${JSON.stringify(h.slice(0, 20))}`, visible(h).match(/⟨U\+[0-9A-F]{4,5}⟩/g) || []);
    await viewer.keyboard.press("Escape");
    await viewer.waitForSelector("#detail", { state: "hidden" });
  }
  // A token is text in a span of its own, its name in the tooltip: never markup.
  assert.deepEqual(
    await viewer.evaluate(() => [...new Set([...document.querySelectorAll(".invisible")].map((n) => `${n.children.length}`))]),
    ["0"],
  );
  assert.equal(await viewer.$$eval("img, iframe, object, embed, a[href^='javascript']", (n) => n.length), 0, "no element of theirs");
  assert.equal(await viewer.evaluate(() => window.__pwned), undefined, "no script of theirs ran");
  // An emoji sequence and a Persian word keep their joiners (👩‍👩‍👧 is one picture, as in DevTools);
  // the joiner after an ASCII letter is a token, as the CLI prints it.
  await viewer.fill("#q", "family");
  await waitFor("the row with joiners", async () => {
    const texts = await viewer.$$eval(".vlayer .vrow .msg .text", (ns) => ns.map((n) => n.textContent));
    return texts.length === 1 && texts[0].startsWith("family");
  });
  assert.equal(await viewer.textContent(".vlayer .vrow .msg .text"), "family 👩\u200D👩\u200D👧, dev 👩\u200D💻, می\u200Cخواهم, and a⟨U+200D⟩b");
  assert.equal(visible(JOINED), "family 👩\u200D👩\u200D👧, dev 👩\u200D💻, می\u200Cخواهم, and a⟨U+200D⟩b");
  await invisiblesShown(viewer, "the joiners' row", ["⟨U+200D⟩"]);
  // A console call's arguments, one a line: `1`, `"str"` and `null` do not run together ("1: str2: null").
  await viewer.fill("#q", "fixture arguments");
  await waitFor("the row with arguments", async () => {
    const texts = await viewer.$$eval(".vlayer .vrow .msg .text", (ns) => ns.map((n) => n.textContent));
    return texts.length === 1 && texts[0] === "fixture arguments 1 str null";
  });
  await viewer.click(".vlayer .vrow");
  await viewer.waitForSelector("#detail:not([hidden]) ul.args");
  const args = await viewer.$$eval("#detail ul.args > li", (ns) => ns.map((n) => [n.textContent, Math.round(n.getBoundingClientRect().top)]));
  assert.deepEqual(args.map(([t]) => t), ["0: 1", "1: str", "2: null"]);
  assert.equal(new Set(args.map(([, top]) => top)).size, 3, `each argument on its own line: ${JSON.stringify(args)}`);
  await viewer.keyboard.press("Escape");
  await viewer.waitForSelector("#detail", { state: "hidden" });
  // The 1 MB line (cut by ingest to --field-cap, as stored): a row, and the detail shows all that is stored.
  const stored = (await all(client, "logs")).find((e) => e.message.startsWith("xxxxxxxxxx"));
  await viewer.fill("#q", "xxxxxxxxxx");
  await waitFor("the long line's row alone", async () => {
    const texts = await viewer.$$eval(".vlayer .vrow .msg .text", (ns) => ns.map((n) => n.textContent));
    return texts.length === 1 && texts[0].startsWith("xxxxxxxxxx");
  });
  await viewer.keyboard.press("Escape"); // leaves the filter box for the table
  await viewer.keyboard.press("ArrowDown");
  await viewer.keyboard.press("Enter");
  await viewer.waitForSelector("#detail:not([hidden]) pre.body");
  assert.equal((await viewer.textContent("#detail pre.body")).length, stored.message.length, "the whole stored line");
  assert.match(viewer.url(), /sel=logs%3A\d+|sel=logs:\d+/, "the selection is in the URL");
  // A link opens the same view, filter and row.
  const link = viewer.url();
  const again = await context.newPage();
  await again.goto(link);
  await again.waitForSelector("#detail:not([hidden]) pre.body");
  assert.equal(await again.inputValue("#q"), "xxxxxxxxxx", `the filter of ${link}, now ${again.url()}`);
  assert.equal((await again.textContent("#detail h2")).trim(), `logs #${stored.id}`);
  await again.close();
  await viewer.keyboard.press("Escape");
  await clearFilter(viewer);
  await waitFor("the whole console again", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === logTotal).catch(async (e) => {
    throw new Error(`${e.message}: ${await viewer.textContent(".statusline")} vs ${logTotal}, url ${viewer.url()}, q=${JSON.stringify(await viewer.inputValue("#q"))}, notice ${await viewer.textContent("#notice")}`);
  });
  await viewer.screenshot({ path: path.join(shots, "console.png") });
  await axe(viewer, "console");
  log("console matches observe; hostile strings stay text");

  // Live: a row logged now appears without a reload.
  await liveRow(base);
  await viewer.waitForFunction(() => [...document.querySelectorAll(".vlayer .vrow .msg .text")].some((n) => n.textContent === "live row 1"));
  log("a new row appeared live");
  // Scrolled up, the view stops following and counts what came.
  await ingest(base, "logs", Array.from({ length: 80 }, (_, i) => ({ level: "log", message: `bulk ${i}`, tabId: 7, ts: Date.now() })));
  await waitFor("80 more rows", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === (await total(client, "logs")));
  await viewer.$eval(".vscroll", (s) => (s.scrollTop = 0));
  await viewer.dispatchEvent(".vscroll", "scroll");
  await liveRow(base);
  await viewer.waitForSelector(".newmarker:not([hidden])");
  assert.match(await viewer.textContent(".newmarker"), /^1 new/);
  await viewer.click(".newmarker");
  await viewer.waitForFunction(() => [...document.querySelectorAll(".vlayer .vrow .msg .text")].some((n) => n.textContent === "live row 2"));
  log("scrolled up: paused with an 'N new' marker");

  // Network: the table and the waterfall.
  await viewer.click("nav a[data-view=network]");
  await viewer.waitForSelector(".vlayer .vrow g.bar");
  const requests = await all(client, "network_waterfall");
  assert.equal(requests.filter((r) => r.url.startsWith(base)).length, 0, "the viewer's own requests are never captured");
  await waitFor("every request", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === requests.length);
  assert.ok(requests.some((r) => r.url === `${fixture.origin}/real.json`), "what the real extension captured is there");
  const width = Number(await viewer.getAttribute(".vlayer .vrow svg.wf", "width"));
  const t0 = Math.min(...requests.map((r) => r.ts));
  let t1 = Math.max(...requests.map((r) => r.ts + (r.duration ?? 0)));
  const doc = requests.find((r) => r.initiatorType === "navigation");
  const originTs = doc.ts - doc.startTime;
  for (const at of [doc.domContentLoaded, doc.load]) t1 = Math.max(t1, originTs + at);
  const scale = width / (t1 - t0);
  for (const r of requests) {
    const rects = await viewer.$$eval(`g.bar[data-id="${r.id}"] rect`, (ns) =>
      ns.map((n) => ({ x: Number(n.getAttribute("x")), w: Number(n.getAttribute("width")), fill: n.getAttribute("fill"), phase: n.dataset.phase })),
    );
    assert.ok(rects.length > 0, `a bar for request ${r.id} ${r.url}`);
    const x = rects[0].x;
    const end = rects[rects.length - 1].x + rects[rects.length - 1].w;
    assert.ok(Math.abs(x - (r.ts - t0) * scale) <= 1, `request ${r.id} starts at its time: ${x} vs ${(r.ts - t0) * scale}`);
    const want = Math.max((r.duration ?? 0) * scale, rects.length === 1 ? 1 : 0);
    assert.ok(Math.abs(end - x - want) <= 1, `request ${r.id} is as long as its duration: ${end - x} vs ${want}`);
    const colours = { stall: "#9E9E9E", dns: "#009688", connect: "#FF9800", tls: "#9C27B0", waiting: "#00C853", download: "#03A9F4", unknown: "#607D8B" };
    for (const rect of rects) assert.equal(rect.fill, colours[rect.phase], `${rect.phase} in DevTools' colour`);
    if (r.phases && r.duration > 0) {
      const waiting = rects.find((q) => q.phase === "waiting");
      if (r.phases.waiting > 0) assert.ok(waiting && Math.abs(waiting.w - r.phases.waiting * scale) <= 1, `request ${r.id}'s waiting phase`);
    } else assert.equal(rects.length, 1, `request ${r.id}: one bar when phases are unknown`);
    const failed = !!(r.error || r.failed || r.responseStatus >= 400);
    assert.equal(await viewer.$eval(`g.bar[data-id="${r.id}"]`, (g) => g.dataset.failed === "true"), failed, `request ${r.id} marked failed: ${failed}`);
  }
  const frameDoc = requests.find((r) => r.frameId === 3);
  const lineTimes = await viewer.$$eval(".wfaxis line.mark", (ns) => ns.map((n) => Number(n.dataset.at)));
  const frameOrigin = frameDoc.ts - frameDoc.startTime;
  for (const at of [frameDoc.domContentLoaded, frameDoc.load]) {
    assert.ok(!lineTimes.includes(frameOrigin + at), `no line at the iframe's own ${at} ms: ${lineTimes}`);
  }
  for (const [cls, at] of [["dcl", doc.domContentLoaded], ["load", doc.load]]) {
    const x = Number(await viewer.getAttribute(`.wfaxis line.mark.${cls}`, "x1"));
    assert.ok(Math.abs(x - (originTs + at - t0) * scale) <= 1, `the ${cls} line at its time`);
  }
  // The fixture's tab alone, for the picture: its requests on their own axis.
  await viewer.selectOption("#tab", "7");
  await waitFor("tab 7's requests", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === requests.filter((r) => r.tabId === 7).length);
  assert.match(viewer.url(), /tab=7/);
  // One absurd row from a page (a duration of 1e308) does not squeeze every other bar to nothing.
  const data7 = requests.find((r) => r.url.endsWith("/data.json"));
  const barWidth = () =>
    viewer.$$eval(`g.bar[data-id="${data7.id}"] rect`, (ns) => ns.reduce((w, n) => w + Number(n.getAttribute("width")), 0));
  const before7 = await barWidth();
  const shown7 = Number(await viewer.getAttribute(".statusline", "data-count"));
  const absurd = { url: `${fixture.origin}/absurd.js`, initiatorType: "script", responseStatus: 200, duration: 1e308, startTime: 1e308, ts: data7.ts, tabId: 7 };
  await ingest(base, "network_waterfall", [absurd]);
  requests.push(absurd); // what the filters below count
  await waitFor("the absurd row", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === shown7 + 1);
  const after7 = await barWidth();
  assert.ok(before7 > 2 && Math.abs(after7 - before7) <= 1, `a bar keeps its width beside an absurd row: ${before7} then ${after7}`);
  // A name is shown percent-decoded, as DevTools shows it.
  const encoded = { url: `${fixture.origin}/files/caf%C3%A9%20menu.json?q=%E2%9C%93`, initiatorType: "fetch", responseStatus: 200, duration: 5, ts: data7.ts, tabId: 7 };
  await ingest(base, "network_waterfall", [encoded]);
  requests.push(encoded);
  const encodedId = (await all(client, "network_waterfall", { url: "/files/caf" }))[0].id;
  const nameCell = `.vlayer .vrow[data-id="network_waterfall:${encodedId}"] span.text`;
  await waitFor("the encoded URL's row", async () => (await viewer.$(nameCell)) !== null);
  assert.equal(await viewer.textContent(nameCell), "café menu.json?q=✓");
  // A GraphQL request is shown by its operation too: one POST /graphql apart from the next.
  const operation = { url: `${fixture.origin}/graphql`, method: "POST", initiatorType: "fetch", operation: "OrderHistory", responseStatus: 200, duration: 5, ts: data7.ts, tabId: 7 };
  await ingest(base, "network_waterfall", [operation]);
  requests.push(operation);
  const operationId = (await all(client, "network_waterfall", { url: "/graphql" }))[0].id;
  const operationCell = `.vlayer .vrow[data-id="network_waterfall:${operationId}"] span.text`;
  await waitFor("the GraphQL row", async () => (await viewer.$(operationCell)) !== null);
  assert.equal(await viewer.textContent(operationCell), "graphql · OrderHistory");
  await axe(viewer, "network");
  // The detail pane: the JSON body pretty-printed, the failure's reason.
  const data = requests.find((r) => r.url.endsWith("/data.json"));
  await viewer.click(`.vlayer .vrow[data-id="network_waterfall:${data.id}"]`);
  await viewer.waitForFunction(() => [...document.querySelectorAll("#detail pre.body")].some((p) => p.textContent.includes('\n  "items": [')));
  await viewer.screenshot({ path: path.join(shots, "network-detail.png") });
  await axe(viewer, "network detail");
  await viewer.selectOption("#tab", "");
  const refused = requests.find((r) => r.url.includes("/refused"));
  await viewer.click(`.vlayer .vrow[data-id="network_waterfall:${refused.id}"]`);
  await viewer.waitForSelector("#detail .error");
  // Where the page's code made the failed request.
  const made = await viewer.$$eval("#detail table.kv tr", (rows) => rows.map((r) => r.textContent));
  assert.ok(made.includes(`call site${refused.location}`) && refused.location.endsWith("/src/cart.js:12:5"), JSON.stringify(made));
  assert.ok(made.includes(`called from${refused.callers}`), JSON.stringify(made));
  await viewer.keyboard.press("Escape");
  // A request a server answered with its debug page: the page's text, as text.
  const save = requests.find((r) => r.url.endsWith("/api/save"));
  await viewer.click(`.vlayer .vrow[data-id="network_waterfall:${save.id}"]`);
  await viewer.waitForSelector("#detail pre.page-text");
  assert.equal(await viewer.textContent("#detail pre.page-text"), ERROR_PAGE_TEXT);
  assert.equal(await viewer.evaluate(() => window.pwnedByPage === undefined && !document.querySelector("#detail img")), true, "the page's markup stays text");
  await viewer.keyboard.press("Escape");
  // Sizes in DevTools' units: 26,900 bytes are "26.9 kB" in the table and the detail.
  const bundle = requests.find((r) => r.url.endsWith("/bundle.js"));
  const bundleRow = `.vlayer .vrow[data-id="network_waterfall:${bundle.id}"]`;
  assert.ok((await viewer.$$eval(`${bundleRow} .vcell`, (ns) => ns.map((n) => n.textContent))).includes("26.9 kB"), "the size column says 26.9 kB");
  await viewer.click(bundleRow);
  const detailSizes = await waitFor("the detail's size", async () => {
    const rows = await viewer.$$eval("#detail table.kv tr", (ns) => ns.map((n) => [n.cells[0]?.textContent, n.cells[1]?.textContent]));
    return rows.some(([k, v]) => k === "transferred" && v === "26.9 kB") && rows;
  });
  // Beside what was transferred, the body's own size (all a service worker's or a cache's answer has).
  assert.ok(detailSizes.some(([k, v]) => k === "body" && v === "26.6 kB"), JSON.stringify(detailSizes));
  await viewer.keyboard.press("Escape");
  // A socket's detail lists that socket's own frames: its messages (which carry no URL) and its
  // close with code and reason (as text), none of another connection to the same URL.
  const frameRows = () => viewer.$$eval("#detail table.frames tbody tr", (ns) => ns.map((n) => [...n.cells].map((c) => c.textContent)));
  const sockets = [
    [requests.find((r) => r.url.endsWith("/echo")), "ws-1", ["", "hello socket", "hello socket", "1000"]],
    ...requests
      .filter((r) => r.url === LIVE(fixture.origin))
      .sort((a, b) => a.ts - b.ts)
      .map((r, i) => [r, `live-${i + 1}`, i === 0 ? ["", "first hello", "first reply", "1000 · done"] : ["", "second says", `1006 · (not clean) · <b id="pwned">gone</b>`]]),
  ];
  assert.equal(sockets.length, 3);
  for (const [row, id, said] of sockets) {
    await viewer.click(`.vlayer .vrow[data-id="network_waterfall:${row.id}"]`);
    await waitFor(`the frames of ${id}`, async () => (await frameRows()).length === said.length && (await viewer.textContent("#detail")).includes(`connection ${id} (`)).catch(async (e) => {
      throw new Error(`${e.message}: ${JSON.stringify(await frameRows())}`);
    });
    const shownFrames = await frameRows();
    assert.deepEqual(shownFrames.map((f) => f[1]), [id, ...said.slice(1).map(() => id)], `${id}'s own frames: ${JSON.stringify(shownFrames)}`);
    assert.deepEqual(shownFrames.map((f) => f.at(-1)), said, `${id}'s data, code and reason`);
    await viewer.keyboard.press("Escape");
  }
  assert.equal(await viewer.$$eval("#pwned, #detail b", (n) => n.length), 0, "a close reason is text");
  // The Trojan Source URL: its override shown as a token in the row's tooltip, the bar's and the detail.
  const trojan = requests.find((r) => r.url === HOSTILE_URL(fixture.origin));
  assert.equal(
    await viewer.getAttribute(`.vlayer .vrow[data-id="network_waterfall:${trojan.id}"] span.text[title]`, "title"),
    visible(trojan.url),
  );
  await viewer.click(`.vlayer .vrow[data-id="network_waterfall:${trojan.id}"]`);
  await waitFor("the URL in the detail", async () => (await viewer.$$eval("#detail table.kv td", (ns) => ns.map((n) => n.textContent))).includes(visible(trojan.url)));
  await invisiblesShown(viewer, "the network view and the request's detail", ["⟨U+202E⟩"]);
  assert.equal(await viewer.$eval("#tab option[value='7']", (o) => o.textContent), `7: ${visible(HOSTILE_TITLE)}`, "the tab's title as an option");
  await viewer.keyboard.press("Escape");
  // DevTools' property filters.
  await viewer.fill("#q", "status-code:404");
  await waitFor("status-code:404", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === requests.filter((r) => r.responseStatus === 404).length);
  await viewer.fill("#q", "-status-code:404");
  await waitFor("-status-code:404", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === requests.filter((r) => r.responseStatus !== 404).length);
  // A path left out (observe's url_not, asked of the server).
  const somePath = requests.map((r) => new URL(r.url).pathname).find((p) => p.length > 3);
  const withoutIt = requests.filter((r) => !r.url.includes(somePath)).length;
  assert.ok(withoutIt > 0 && withoutIt < requests.length, `${somePath} is some of the requests`);
  await viewer.fill("#q", `-url:${somePath}`);
  await waitFor(`-url:${somePath}`, async () => Number(await viewer.getAttribute(".statusline", "data-count")) === withoutIt);
  // The requests that failed, as observe's failed=true says them (asked of the server), and the others.
  const failedIds = (await all(client, "network_waterfall", { failed: true })).map((r) => r.id);
  assert.ok(failedIds.length > 0 && failedIds.length < requests.length, `some failed, not all: ${failedIds.length} of ${requests.length}`);
  await viewer.fill("#q", "is:failed");
  await waitFor("is:failed", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === failedIds.length);
  const shownFailed = await viewer.$$eval(".vlayer .vrow", (ns) => ns.map((n) => Number(n.dataset.id.split(":")[1])));
  assert.ok(shownFailed.length > 0 && shownFailed.every((id) => failedIds.includes(id)), `the rows shown are failed ones, as observe names them: ${shownFailed}`);
  await viewer.fill("#q", "-is:failed");
  await waitFor("-is:failed", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === requests.length - failedIds.length);
  await clearFilter(viewer);
  // A term that can match nothing is named, not left to show an empty table; the levels are the server's.
  const complaint = async (q, words) => {
    await viewer.fill("#q", q);
    await waitFor(`the complaint about ${q}`, async () => (await viewer.textContent("#notice")) === words && !(await viewer.isHidden("#notice")));
  };
  const oneStatus = (v) => `status-code: takes one status code such as 404 or 500, not "${v}" (no ranges: sort by the status column to see failures together)`;
  await complaint("status-code:abc", oneStatus("abc"));
  await complaint("status-code:4xx", oneStatus("4xx"));
  await complaint("status-code:>=400", oneStatus(">=400"));
  // A property requests do not have: it matches no request, so it is named too.
  await complaint("level:error", 'level: requests have no level, so "level:error" matches none of them; here use status-code:, method:, domain:, url:, larger-than:, is:, tab:');
  await complaint("is:slow", 'is: takes failed (an error, or a status of 400 or more), not "slow"');
  await complaint("level:fatal", 'level: takes one of debug, log, info, warn, error, not "fatal"');
  await complaint("kind:actions", 'kind: requests are of network_waterfall, not "actions"');
  await complaint("kind:log", `kind: takes one of ${(await viewer.evaluate(() => fetch("/api/overview").then((r) => r.json()))).kinds.map((k) => k.kind).join(", ")}, not "log"`);
  await clearFilter(viewer);
  await waitFor("no complaint once the filter is empty", () => viewer.isHidden("#notice"));
  assert.deepEqual(
    await viewer.$$eval("#level option", (ns) => ns.map((o) => [o.value, o.textContent])),
    [["", "all levels"], ["debug", "debug and up"], ["log", "log and up"], ["info", "info and up"], ["warn", "warn and up"], ["error", "error only"]],
    "the level select, made of the server's levels",
  );
  // Sorted by a column: ascending, descending, then back to the order the requests came in.
  const waterfall = await all(client, "network_waterfall");
  const shownIds = () => viewer.$$eval(".vlayer .vrow", (ns) => ns.map((n) => n.dataset.id));
  // The table's own order, which equal keys keep: by start time.
  const byStart = waterfall.slice().sort((a, b) => a.ts - b.ts || a.id - b.id);
  assert.deepEqual(
    (await shownIds()).slice(0, 5),
    byStart.slice(0, 5).map((r) => `network_waterfall:${r.id}`),
    "the requests by start time, the document first",
  );
  const byDuration = (descending) =>
    byStart
      .map((r, i) => [typeof r.duration === "number" ? r.duration : -1, i, r.id])
      .sort(([a, i], [b, j]) => (descending ? b - a : a - b) || i - j)
      .map(([, , id]) => `network_waterfall:${id}`);
  const timeHead = viewer.locator(".vhead [role=columnheader]", { hasText: "time" });
  const sortedAs = async (want, label) => {
    await waitFor(label, async () => {
      const ids = await shownIds();
      return ids.length > 0 && ids.every((id, i) => id === want[i]);
    });
  };
  await timeHead.locator("button").click();
  assert.equal(await timeHead.getAttribute("aria-sort"), "ascending");
  await sortedAs(byDuration(false), "the requests by time, shortest first");
  await timeHead.locator("button").click();
  assert.equal(await timeHead.getAttribute("aria-sort"), "descending");
  await sortedAs(byDuration(true), "the requests by time, longest first (the absurd row on top)");
  assert.equal((await shownIds())[0], `network_waterfall:${waterfall.find((r) => r.duration === 1e308).id}`);
  // Sorted, a request that comes in goes where its key puts it, and the view stays at the top.
  await ingest(base, "network_waterfall", [{ url: `${fixture.origin}/late.json`, initiatorType: "fetch", responseStatus: 200, duration: 1e300, ts: Date.now(), tabId: 7 }]);
  await waitFor("the late request, second by time", async () => {
    const ids = await shownIds();
    return ids.length > 1 && (await viewer.textContent(`.vlayer .vrow[data-id="${ids[1]}"] span.text`)) === "late.json";
  });
  assert.equal(await viewer.$eval(".vscroll", (s) => s.scrollTop), 0, "the sorted view stays at its top");
  await timeHead.locator("button").click();
  assert.equal(await timeHead.getAttribute("aria-sort"), null);
  const newest = Math.max(...(await all(client, "network_waterfall")).map((r) => r.id));
  await waitFor("start time again, following the newest", async () => (await shownIds()).at(-1) === `network_waterfall:${newest}`);
  log("network: bars at their times in DevTools' colours, page lines, detail, filters, sorting");

  // An observe answer's link (gasoline mcp over stdio, owning the port): with an entry's id
  // filled in it opens that view, filter and row; as given, the view and filter alone.
  const answer = await observe(client, { what: "network_waterfall", tabId: 7, url: "/data.json" });
  assert.equal(answer.viewer, `${base}/network?q=url:/data.json&tab=7&sel=network_waterfall:{id}`, JSON.stringify(answer));
  const target = answer.entries[0].id;
  const linked = await context.newPage();
  await linked.setViewportSize({ width: 1440, height: 900 });
  await linked.goto(answer.viewer.replace("{id}", target));
  await linked.waitForSelector("#detail:not([hidden]) h2");
  assert.equal((await linked.textContent("#detail h2")).trim(), `network_waterfall #${target}`, "the entry's detail");
  assert.equal(await linked.getAttribute(`.vlayer .vrow[data-id="network_waterfall:${target}"]`, "aria-selected"), "true", "the entry's row selected");
  assert.equal(await linked.inputValue("#q"), "url:/data.json");
  assert.equal(await linked.inputValue("#tab"), "7");
  await waitFor("the rows the answer counts", async () => Number(await linked.getAttribute(".statusline", "data-count")) === answer.total);
  const errorsAnswer = await observe(client, { what: "errors", tabId: 7, since: Date.now() - 3_600_000 });
  assert.match(errorsAnswer.viewer, new RegExp(`^${base}/console\\?tab=7&level=error&since=\\d+&sel=logs:\\{id\\}$`));
  await linked.goto(errorsAnswer.viewer);
  await linked.waitForSelector(".vlayer .vrow");
  assert.equal(await linked.inputValue("#level"), "error");
  assert.match(await linked.$eval("#since", (s) => s.selectedOptions[0].textContent), /^since /, "the answer's time in the time select");
  await waitFor("the errors the answer counts", async () => Number(await linked.getAttribute(".statusline", "data-count")) === errorsAnswer.total);
  assert.ok(await linked.isHidden("#detail"), "no entry chosen: no detail");
  assert.ok(await linked.isHidden("#notice"), `no complaint about the {id} left in: ${await linked.textContent("#notice")}`);
  await linked.close();
  log("an observe answer's link opens its view, filter and row");

  // A link with a value /api refuses (400: a tab that is no number, and markup at that) is the
  // person's mistake: asked once, the server's message shown at once and as text, never again
  // asked while the page stays (the stream's events and the once-a-second check come meanwhile).
  // A server that fails (503) is asked again, and the page shows the rows once it answers.
  const asked = [];
  const wrong = await context.newPage();
  wrong.on("request", (r) => new URL(r.url()).pathname.startsWith("/api/rows/") && asked.push(r.url()));
  const markup = `<img src=x onerror="window.top.__pwned='notice'">`;
  await wrong.goto(`${base}/console?tab=${encodeURIComponent(markup)}`);
  await wrong.waitForSelector("#notice:not([hidden])", { timeout: 3000 }); // at once, not after retries
  assert.match(await wrong.textContent("#notice"), /^tabId .*<img src=x onerror=/, "the server's message, as text");
  assert.equal(await wrong.$$eval("#notice *, img", (ns) => ns.length), 0, "no markup of the link's");
  await wrong.waitForTimeout(3500);
  assert.equal(asked.length, 1, `a refused read is asked once: ${asked.join(" ")}`);
  assert.equal(await wrong.evaluate(() => window.__pwned), undefined);
  let failures = 0;
  await wrong.route("**/api/rows/**", (route) =>
    failures++ < 2 ? route.fulfill({ status: 503, contentType: "application/json", body: '{"error":"busy"}' }) : route.continue(),
  );
  await wrong.goto(`${base}/console?tab=7`);
  await waitFor("the rows after two failed reads", async () => Number(await wrong.getAttribute(".statusline", "data-count")) === (await total(client, "logs", { tabId: 7 })));
  assert.ok(failures > 2, `the failed reads were asked again (${failures} reads)`);
  await wrong.close();
  log("a refused link asked once and its message shown; a failing server asked again");

  // Timeline.
  await viewer.click("nav a[data-view=timeline]");
  await viewer.waitForSelector(".vlayer .vrow .badge.tl-action");
  await viewer.waitForSelector(".vlayer .vrow .badge.tl-error");
  await waitFor("the action's value", async () =>
    (await viewer.$$eval(".vlayer .vrow .text", (ns) => ns.map((n) => n.textContent))).some((t) => t.includes(`= ${visible(HOSTILE_VALUE)}`)),
  );
  await invisiblesShown(viewer, "the timeline", ["⟨U+202E⟩"]);
  await viewer.screenshot({ path: path.join(shots, "timeline.png") });
  await axe(viewer, "timeline");
  log("timeline");

  // The timeline at level error: errors and failed requests, no action, navigation or request that went well.
  const problems = await context.newPage();
  await problems.goto(`${base}/timeline?level=error`);
  const held = await observe(client, { what: "network_waterfall", limit: 1000, fields: "all", max_chars: 500000, max_tokens: 100000 });
  assert.equal(held.entries.length, held.total, "every request read");
  const failedRequests = held.entries.filter((r) => r.error || r.failed === true || (r.responseStatus ?? 0) >= 400).length;
  const expected = (await total(client, "logs", { min_level: "error" })) + failedRequests;
  assert.ok(expected > 0, "the capture holds errors or failed requests");
  await waitFor("the problems on the timeline", async () => Number(await problems.getAttribute(".statusline", "data-count")) === expected).catch(async (e) => {
    const shown = await problems.$$eval(".vlayer .vrow .text", (ns) => ns.map((n) => n.textContent));
    throw new Error(`${e.message}: ${await problems.getAttribute(".statusline", "data-count")} shown, ${expected} expected: ${shown.join(" | ")}`);
  });
  const badges = await problems.$$eval(".vlayer .vrow .badge", (ns) => ns.map((n) => n.textContent));
  assert.ok(badges.every((b) => b === "error" || b === "request"), `only errors and failed requests: ${badges.join(" ")}`);
  // "Since the last reload" with all tabs and none tracked: said for a person, with nothing read.
  await problems.goto(`${base}/console?since=nav`);
  await problems.waitForSelector("main p.empty");
  assert.match(await problems.textContent("main"), /counted in one tab: choose the tab/);
  assert.ok(await problems.isHidden("#notice"), "no agent's message");
  // A level the server does not have, in a link: said in the viewer's words (`level`, not observe's
  // `min_level`), and the level select shows it rather than going blank.
  await problems.goto(`${base}/console?level=fatal`);
  await problems.waitForSelector("#notice:not([hidden])");
  assert.equal(await problems.textContent("#notice"), 'level: takes one of debug, log, info, warn, error, not "fatal"');
  assert.equal(await problems.$eval("#level", (s) => s.selectedOptions[0]?.textContent ?? ""), "fatal (no such level)");
  await problems.close();
  log("the timeline's level filter; since the last reload without a tab");

  // A server restart: the page reconnects and shows what came meanwhile, once.
  await viewer.click("nav a[data-view=console]");
  await viewer.waitForSelector(".vlayer .vrow");
  // The page may not reconnect before the row is stored: its stream is held off until then.
  await viewer.route("**/api/events", (route) => route.abort());
  await stopGasoline(client, port);
  await viewer.waitForSelector("#live[data-state=reconnecting]");
  client = await startGasoline(port, db);
  await liveRow(base); // "live row 3", stored while the page is away
  await viewer.unroute("**/api/events");
  await viewer.waitForFunction(() => [...document.querySelectorAll(".vlayer .vrow .msg .text")].some((n) => n.textContent === "live row 3"), null, { timeout: 20000 });
  await waitFor("the console's count after the restart", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === (await total(client, "logs")));
  const ids = await viewer.$$eval(".vlayer .vrow", (rows) => rows.map((r) => r.dataset.id));
  assert.equal(new Set(ids).size, ids.length, "no row shown twice");
  log("reconnected after a restart: the rows that came meanwhile, once");

  // Another origin's page can neither read nor clear.
  const before = await total(client, "logs");
  const attempt = await site.evaluate(async (b) => {
    const out = {};
    try {
      await (await fetch(`${b}/api/rows/logs`)).json();
      out.read = "read";
    } catch (e) {
      out.read = `refused: ${e.message}`;
    }
    try {
      await fetch(`${b}/api/clear`, { method: "POST", mode: "no-cors", body: '{"what":"all"}', headers: { "content-type": "text/plain" } });
    } catch {}
    const form = document.createElement("form");
    form.method = "POST";
    form.action = `${b}/api/clear`;
    form.target = "sink";
    const sink = document.createElement("iframe");
    sink.name = "sink";
    document.body.append(sink, form);
    form.submit();
    await new Promise((r) => setTimeout(r, 500));
    return out;
  }, base);
  assert.match(attempt.read, /^refused/, "another origin cannot read /api/*");
  // Another extension with host permissions fetches without an Origin, which pairing never sees.
  const theirs = (w) => w.url().endsWith("/bg.js");
  const other = context.serviceWorkers().find(theirs) || (await context.waitForEvent("serviceworker", { predicate: theirs, timeout: 15000 }));
  const read = await other.evaluate(async (b) => {
    const out = {};
    for (const p of ["/api/rows/logs", "/api/overview", "/api/rows/network_bodies"]) {
      const r = await fetch(b + p);
      out[p] = [r.status, (await r.text()).slice(0, 200)];
    }
    return out;
  }, base);
  for (const [p, [status, text]] of Object.entries(read)) {
    assert.equal(status, 403, `another extension cannot read ${p}: ${text}`);
    assert.match(text, /answers only the viewer's own pages/);
  }
  assert.equal(await total(client, "logs"), before, "another origin cannot clear");
  assert.equal(await getWithHost(port, `evil.test:${port}`, "/api/overview"), 403, "a wrong Host");
  assert.equal(await getWithHost(port, `evil.test:${port}`, "/"), 403, "a wrong Host");
  log("other origins refused, wrong Host refused");

  // A ring larger than the page's first read: the newest rows first, older ones on demand. Each
  // row carries an ordinary stack, so that the first read of 1,000 rows is cut by its size: the
  // newest rows must come all the same.
  const frames = Array.from({ length: 8 }, (_, k) => `    at render${k} (http://localhost:3000/src/components/some/deep/File${k}.tsx:10:5)`).join("\n");
  const history = (i) => ({ level: "error", message: `history ${i}`, stack: `Error: history ${i}\n${frames}`, tabId: 7, ts: Date.now() });
  await ingest(base, "logs", Array.from({ length: 1500 }, (_, i) => history(i)));
  await viewer.reload();
  await waitFor("the newest 1,000 rows", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === 1000);
  await waitFor("the newest row shown", async () =>
    (await viewer.$$eval(".vlayer .vrow .msg .text", (ns) => ns.map((n) => n.textContent))).includes("history 1499"),
  );
  // A long list scrolls, and what scrolls is the grid a keyboard reaches (axe's
  // scrollable-region-focusable): Home and End move the selection and scroll it into view.
  const scroller = () => viewer.$eval(".vscroll", (s) => ({ top: s.scrollTop, height: s.scrollHeight, client: s.clientHeight }));
  assert.ok((await scroller()).height > 10 * (await scroller()).client, "the list scrolls");
  await axe(viewer, "a long console");
  const scrollable = await viewer.evaluate(() => window.axe.run(document, { runOnly: ["scrollable-region-focusable"] }));
  assert.deepEqual(scrollable.violations.map((v) => v.nodes.map((n) => n.target.join(" "))), [], "axe: scrollable-region-focusable");
  assert.ok(scrollable.passes.length > 0, "axe looked at the scroller");
  await viewer.click("#q");
  await viewer.keyboard.press("Escape"); // to the table
  await viewer.keyboard.press("Home");
  const selectedRow = () => viewer.evaluate(() => document.querySelector(".vlayer .vrow[aria-selected='true']")?.getAttribute("aria-rowindex"));
  await waitFor("Home: the first row, scrolled to", async () => (await scroller()).top === 0 && (await selectedRow()) === "2");
  await viewer.keyboard.press("End");
  await waitFor("End: the last row, scrolled to", async () => {
    const s = await scroller();
    return s.top + s.client >= s.height - 1 && (await selectedRow()) === "1001";
  });
  // The selected row in view, below the header that sticks to the top, on the way up too.
  const inView = () =>
    viewer.evaluate(() => {
      const row = document.querySelector(".vlayer .vrow[aria-selected='true']")?.getBoundingClientRect();
      const head = document.querySelector(".vheadgroup").getBoundingClientRect();
      const s = document.querySelector(".vscroll");
      return !!row && row.top >= head.bottom - 0.5 && row.bottom <= s.getBoundingClientRect().top + s.clientHeight + 0.5;
    });
  assert.ok(await inView(), "End: the last row in view");
  for (const key of ["PageUp", "PageUp", "PageUp", "ArrowUp"]) {
    await viewer.keyboard.press(key);
    assert.ok(await inView(), `${key}: the selected row in view`);
  }
  assert.equal(await viewer.evaluate(() => document.activeElement.getAttribute("role")), "grid");
  await viewer.click("button.older");
  await waitFor("every row after loading older ones", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === (await total(client, "logs")));
  assert.ok(await viewer.isHidden("button.older"), "nothing older to load");
  log("older rows load on demand");

  // Clear, with confirmation.
  await viewer.click("#clear");
  await viewer.waitForSelector("#confirm[open]");
  await axe(viewer, "the clear dialog");
  const kept = await total(client, "logs");
  await viewer.click("#confirm-no");
  assert.equal(await total(client, "logs"), kept, "cancel clears nothing");
  await viewer.click("#clear");
  await viewer.click("#confirm-yes");
  await waitFor("cleared", async () => (await total(client, "logs")) === 0 && (await total(client, "network_waterfall")) === 0);
  await waitFor("the console empty", async () => Number(await viewer.getAttribute(".statusline", "data-count")) === 0);
  log("clear asks first, then clears");

  // A database nothing was captured in: the views say so, and how to capture, not that nothing
  // matches a filter no one set; with a filter set, that nothing matches it.
  const emptyPort = await freePort();
  const emptyClient = await startGasoline(emptyPort, path.join(work, "empty.db"));
  try {
    const fresh = await context.newPage();
    for (const [view, filtered] of [["console", "No console messages match."], ["network", "No requests match."], ["timeline", "Nothing on the timeline matches."]]) {
      await fresh.goto(`http://127.0.0.1:${emptyPort}/${view}`);
      const said = () => fresh.textContent(".vlist .empty");
      await waitFor(`the empty ${view} saying nothing was captured`, async () => /^Nothing captured yet: open your app on localhost in Chrome with the Gasoline extension installed/.test(await said())).catch(async (e) => {
        throw new Error(`${e.message}: ${await said()}`);
      });
      await fresh.fill("#q", "boom");
      await waitFor(`the empty ${view} with a filter`, async () => (await said()) === filtered);
    }
    await fresh.close();
  } finally {
    await emptyClient.close();
  }
  log("an empty database: nothing captured yet, and how");

  assert.deepEqual(await viewer.evaluate(() => window.__violations), [], "no CSP violation");
  assert.deepEqual(pageErrors.filter((e) => !/Failed to load resource|ERR_CONNECTION_REFUSED|EventSource/.test(e)), [], "the viewer logged no error");
  log(`passed; screenshots in ${shots}`);
} catch (e) {
  fail(e.stack || e.message);
} finally {
  if (context) await context.close().catch(() => {});
  await client.close().catch(() => {});
  fixture.server.close();
  rmSync(work, { recursive: true, force: true });
}
