// Capture only where the person points: the real extension (its test build,
// which holds shop.example as granted because headless Chromium cannot answer
// Chrome's prompt) in headless Chromium, the real server, one fixture server
// reached as 127.0.0.1, app.localhost and shop.example (host mapping).
// - shop.example, a plain-http site outside the scope: no script of ours in it,
//   no entry of any kind, not even its tab's title;
// - turned on from the popup ("Capture this site"), its next load is captured
//   whole, although http://shop.example is not a secure context;
// - after a browser restart it is still captured;
// - turned off from the popup: the open page sends nothing more;
// - pause in the popup: nothing is captured until resumed;
// - the Gasoline server's own origin is never captured;
// - the server knows the capture in force, and observe says how to turn a site on;
// - the shipped extension (no debugger: Chrome grants it only at install) says in its popup how
//   to get the deep build.
//
//   GASOLINE_BIN=target/debug/gasoline node extension/test/e2e/scope.mjs
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import {
  all,
  checkPrerequisites,
  extensionDir,
  extensionScripts,
  freePort,
  launch,
  liveWorker,
  observe,
  pointAt,
  serve,
  serviceWorker,
  startGasoline,
  stopWorker,
  testBuild,
  waitFor,
} from "./harness.mjs";

function fail(message) {
  console.error(`scope e2e FAILED: ${message}`);
  process.exit(1);
}
const log = (message) => console.log(`scope e2e: ${message}`);
checkPrerequisites(fail);

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Scope fixture</title>
<link rel="icon" href="data:,"><script src="/scope.js"></script></head><body><h1>scope</h1></body></html>`;
const SCRIPT = `
window.fetchLooksNative = fetch.toString().includes("[native code]");
const marker = new URLSearchParams(location.search).get("m") || "none";
console.log("scope page " + location.hostname + " " + marker);
fetch("/scope.json?m=" + marker).then((r) => r.json()).then((j) => { window.fetched = j; });
window.say = (text) => console.log(text);
// ?nest=<url>: this page embeds that page in a frame of its own.
const nest = new URLSearchParams(location.search).get("nest");
if (nest) addEventListener("DOMContentLoaded", () => document.body.appendChild(Object.assign(document.createElement("iframe"), { src: nest })));
`;

async function startFixture() {
  const app = await serve((req, res) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/scope.html") {
      res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
      res.end(PAGE);
    } else if (url.pathname === "/scope.js") {
      res.writeHead(200, { "content-type": "text/javascript", "cache-control": "no-store" });
      res.end(SCRIPT);
    } else if (url.pathname === "/scope.json") {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify({ ok: true, host: req.headers.host }));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  return { server: app.server, port: new URL(app.origin).port };
}

const work = mkdtempSync(path.join(tmpdir(), "gasoline-scope-"));
const db = path.join(work, "gasoline.db");
const profile = path.join(work, "profile");
const fixture = await startFixture();
const port = await freePort();
const serverUrl = `http://127.0.0.1:${port}`;
const client = await startGasoline(port, db);
const build = testBuild(work);
let context;

/** Every entry of every kind whose text mentions `needle`. */
async function mentioning(needle) {
  const found = [];
  for (const what of ["logs", "network_waterfall", "network_bodies", "websocket_events", "actions"]) {
    for (const e of await all(client, what)) if (JSON.stringify(e).includes(needle)) found.push({ what, e });
  }
  const tabs = await observe(client, { what: "tabs" });
  for (const t of tabs.tabs || tabs.entries || []) if (JSON.stringify(t).includes(needle)) found.push({ what: "tabs", e: t });
  return found;
}

async function open(url) {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.fetched);
  return page;
}

async function start() {
  context = await launch(profile, build, ["shop.example"]);
  const worker = await serviceWorker(context);
  await pointAt(worker, serverUrl);
  return worker;
}

/** The popup as a page, about the tab of `page`. */
async function popupFor(worker, page) {
  const url = page.url();
  const tabId = await waitFor("the tab's id", async () => {
    const ids = await worker.evaluate(async (u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id), url);
    return ids.length === 1 && ids[0];
  });
  const popup = await context.newPage();
  const origin = worker.url().split("/").slice(0, 3).join("/");
  await popup.goto(`${origin}/popup/popup.html?tab=${tabId}`);
  await popup.waitForFunction(() => document.getElementById("page-scope").textContent !== "…");
  return { popup, tabId };
}

/** Logs `barrier` in an in-scope page and waits for it: what was sent before it from any page has been handled. */
async function barrier(local, text) {
  await local.evaluate((t) => window.say(t), text);
  await waitFor(`the barrier "${text}"`, async () => (await mentioning(text)).length > 0);
}

try {
  let worker = await start();
  const shop = `http://shop.example:${fixture.port}/scope.html`;
  const local = `http://127.0.0.1:${fixture.port}/scope.html`;
  const sub = `http://app.localhost:${fixture.port}/scope.html`;

  // ---- local development origins: captured by default ----
  const localPage = await open(`${local}?m=local-1`);
  const subPage = await open(`${sub}?m=sub-1`);
  await waitFor("both local pages' logs, requests and tabs", async () => {
    const a = await mentioning("local-1");
    const b = await mentioning("sub-1");
    const kinds = (f) => new Set(f.map((x) => x.what));
    return ["logs", "network_waterfall", "network_bodies"].every((k) => kinds(a).has(k) && kinds(b).has(k));
  });
  const parsed = [];
  assert.ok((await extensionScripts(localPage, { parsed })).some((u) => u.endsWith("/page/core.js")), "the page world runs our scripts");
  // Each of them on DevTools' ignore list by its inline source map, so that DevTools shows the
  // page's line as a console message's source, not our wrapper's.
  const pageWorld = parsed.filter((e) => e.executionContextAuxData && e.executionContextAuxData.isDefault);
  assert.ok(pageWorld.length >= 30, `the page world's scripts: ${pageWorld.map((e) => e.url)}`);
  for (const e of pageWorld) {
    const map = JSON.parse(Buffer.from(String(e.sourceMapURL).split("base64,")[1] || "", "base64").toString() || "null");
    assert.deepEqual(map && [map.ignoreList, map.x_google_ignoreList], [[0], [0]], `${e.url}: ${e.sourceMapURL}`);
  }
  // A sandboxed frame of a local page (an opaque origin) is judged by its URL: captured.
  await localPage.evaluate((src) => {
    const frame = document.createElement("iframe");
    frame.sandbox = "allow-scripts";
    frame.src = src;
    document.body.appendChild(frame);
  }, `${local}?m=sandboxed-1`);
  const sandboxed = await waitFor("the sandboxed frame's log", async () => (await mentioning("sandboxed-1")).find((x) => x.what === "logs"));
  assert.ok(sandboxed.e.frameId > 0 && sandboxed.e.message === "scope page 127.0.0.1 sandboxed-1", JSON.stringify(sandboxed.e));
  const row = (await all(client, "network_waterfall")).find((e) => e.url.endsWith("/scope.json?m=local-1"));
  assert.equal(row.source, "page");
  assert.equal(row.method, "GET");
  assert.equal(row.responseStatus, 200);
  log("127.0.0.1 and app.localhost are captured by default, rows from the page");

  // ---- a site outside the scope: nothing of ours, nothing stored ----
  const shopPage = await open(`${shop}?m=shop-off-1`);
  assert.deepEqual(await extensionScripts(shopPage), [], "no script of ours in shop.example");
  assert.equal(await shopPage.evaluate(() => window.fetchLooksNative), true);
  await shopPage.evaluate(() => window.say("shop-off-2"));
  await barrier(localPage, "barrier-1");
  assert.deepEqual(await mentioning("shop.example"), [], "no row of any kind mentions shop.example");
  let { popup, tabId: shopTab } = await popupFor(worker, shopPage);
  assert.equal(await popup.textContent("#page-scope"), "shop.example is not captured.");
  assert.equal(await popup.isVisible("#site-on"), true);
  // The agent asking about it is told how to turn it on.
  const empty = await observe(client, { what: "network_waterfall", url: "shop.example" });
  assert.equal(empty.entries.length, 0);
  assert.match(empty.hint || "", /shop\.example is not captured: open the Gasoline popup on it and choose Capture this site/);
  assert.ok(empty.capture && empty.capture.origins.includes("*://localhost/*") && empty.capture.paused === false, JSON.stringify(empty.capture));
  log("shop.example: no script, no entry, no tab row; the popup offers to capture it; observe says how");

  // A local page embeds shop.example, which embeds a local page: that page is shop.example's to
  // show, so it gives nothing, though its own origin is in scope.
  await localPage.evaluate((src) => document.body.appendChild(Object.assign(document.createElement("iframe"), { src })), `${shop}?m=shop-frame&nest=${encodeURIComponent(`${sub}?m=nested-1`)}`);
  const nested = await waitFor("the nested local frame", async () => localPage.frames().find((f) => f.url().endsWith("?m=nested-1")));
  await nested.waitForFunction(() => window.fetched);
  await barrier(localPage, "barrier-nested");
  const leaked = (await mentioning("nested-1")).filter((x) => !(x.what === "network_waterfall" && x.e.url.includes("shop-frame")));
  assert.deepEqual(leaked, [], "only the local page's own timing of the shop.example frame it embeds");
  log("a local frame inside shop.example inside a local page: nothing of it");

  // ---- turned on from the popup: captured from its next load, on plain http ----
  // Chrome's registration made slow, as on a busy machine: the popup must not say the site is on
  // before Chrome holds the scripts, or the load made when it says so would go uncaptured.
  await worker.evaluate(() => {
    for (const method of ["registerContentScripts", "updateContentScripts"]) {
      const original = chrome.scripting[method].bind(chrome.scripting);
      chrome.scripting[method] = async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        return original(...args);
      };
    }
  });
  await popup.click("#site-on");
  // The open page was loaded before its scripts were registered: the popup says to reload it.
  await popup.waitForFunction(() => {
    const text = document.getElementById("page-scope").textContent;
    return text.includes("you turned this site on") && text.includes("Reload this page to start");
  });
  assert.deepEqual(await popup.$$eval("#sites input", (els) => els.map((e) => e.dataset.site)), ["http://shop.example/*"]);
  await shopPage.goto(`${shop}?m=shop-on-1`);
  await shopPage.waitForFunction(() => window.fetched);
  assert.equal(await shopPage.evaluate(() => window.isSecureContext), false, "http://shop.example is not a secure context");
  await waitFor("shop.example captured: log, request row, body, tab title", async () => {
    const found = await mentioning("shop-on-1");
    const kinds = new Set(found.map((x) => x.what));
    const tabs = await observe(client, { what: "tabs" });
    const tab = (tabs.tabs || tabs.entries || []).find((t) => t.tabId === shopTab);
    return ["logs", "network_waterfall", "network_bodies"].every((k) => kinds.has(k)) && tab && tab.title === "Scope fixture";
  });
  await waitFor("the popup counts this tab's logs", async () => Number((await popup.textContent("#tab-counts")).match(/Console and errors\s*(\d+)/)?.[1]) >= 1);
  // The popup asks again every second: the site's off switch keeps the keyboard's focus meanwhile.
  await popup.evaluate(() => {
    window.renders = 0;
    new MutationObserver(() => window.renders++).observe(document.getElementById("tab-counts"), { childList: true });
  });
  await popup.focus("#sites input");
  await popup.waitForFunction(() => window.renders >= 3);
  assert.equal(await popup.evaluate(() => document.activeElement && document.activeElement.dataset.site), "http://shop.example/*", "focus kept on the switch");
  const stated = await observe(client, { what: "logs", limit: 1 });
  assert.ok(stated.capture.origins.includes("http://shop.example/*"), "the server knows the site is on");
  log("Capture this site: the next load of shop.example is captured, on a non-secure origin");

  // ---- a browser restart keeps the site on ----
  await context.close();
  worker = await start();
  const again = await open(`${shop}?m=shop-restart`);
  await waitFor("shop.example captured after the restart", async () => (await mentioning("shop-restart")).some((x) => x.what === "logs"));
  const localAgain = await open(`${local}?m=local-2`);
  log("after a browser restart the site is still captured");

  // ---- turned off from the popup: nothing more from the open page ----
  ({ popup } = await popupFor(worker, again));
  // Loaded with its scripts there: the relay answers the popup, which says it is captured.
  await popup.waitForFunction(() => document.getElementById("page-scope").textContent === "✓ shop.example is captured: you turned this site on.");
  assert.equal(await popup.isHidden("#kinds-off"), true, "every kind on: nothing said");
  // A kind switched off in the options is named beside "captured".
  const settingsNow = await worker.evaluate(async () => (await chrome.storage.local.get("settings")).settings || {});
  const switchOff = (off) => worker.evaluate(async ([s, off]) => chrome.storage.local.set({ settings: { ...s, capture: { ...s.capture, ...off } } }), [settingsNow, off]);
  await switchOff({ websocket_events: false, network_bodies: false });
  await popup.waitForFunction(() => document.getElementById("kinds-off").textContent === "Not captured, switched off in the options: Request and response bodies, WebSocket and EventSource messages.");
  await switchOff({});
  await popup.waitForSelector("#kinds-off", { state: "hidden" });
  await popup.click("#site-off");
  await popup.waitForFunction(() => document.getElementById("page-scope").textContent === "shop.example is not captured.");
  assert.match(await popup.textContent("#tab-counts"), /nothing: not captured/, "no counts of an earlier page shown for a page outside the scope");
  await again.evaluate(() => window.say("shop-after-off"));
  await again.evaluate(() => fetch("/scope.json?m=shop-after-off-fetch"));
  await barrier(localAgain, "barrier-2");
  assert.deepEqual(await mentioning("shop-after-off"), [], "nothing from the open page after the site is turned off");
  assert.equal((await observe(client, { what: "logs", limit: 1 })).capture.origins.includes("http://shop.example/*"), false);
  log("Stop capturing this site: the open page sends nothing more");

  // ---- turned on again, then off from the options page's list ----
  await popup.click("#site-on");
  await popup.waitForFunction(() => document.getElementById("page-scope").textContent.includes("you turned this site on"));
  const origin = worker.url().split("/").slice(0, 3).join("/");
  const optionsPage = await context.newPage();
  await optionsPage.goto(`${origin}/options/options.html`);
  const listed = '#sites input[data-site="http://shop.example/*"]';
  await optionsPage.waitForSelector(listed);
  // A click, not Playwright's uncheck: the switch's own list is drawn again without it once the
  // site is off, and uncheck, finding its element gone before it read it unchecked, waits for one.
  await optionsPage.click(listed);
  await optionsPage.waitForSelector("#no-sites", { state: "visible" });
  await popup.waitForFunction(() => document.getElementById("page-scope").textContent === "shop.example is not captured.");
  await waitFor("the server to know the site is off", async () => !(await observe(client, { what: "logs", limit: 1 })).capture.origins.includes("http://shop.example/*"));
  await optionsPage.close();
  log("the options page's list turns a site off");

  // ---- a page's long host name wraps in the popup instead of widening it ----
  const longHost = await open(`http://${"a".repeat(60)}.${"b".repeat(60)}.app.localhost:${fixture.port}/scope.html?m=long-host`);
  const { popup: longPopup } = await popupFor(worker, longHost);
  await longPopup.waitForFunction(() => document.getElementById("page-scope").textContent.includes("a".repeat(60)));
  const overflow = await longPopup.$eval("#page-scope", (p) => p.scrollWidth - p.clientWidth);
  assert.equal(overflow, 0, "the scope line holds its host within the popup's width");
  await longPopup.close();
  await longHost.close();
  log("a long host name wraps within the popup");

  // ---- pause ----
  ({ popup } = await popupFor(worker, localAgain));
  await popup.click("#pause");
  await popup.waitForFunction(() => document.getElementById("page-scope").textContent.startsWith("Capture is paused"));
  assert.equal(await worker.evaluate(() => chrome.action.getBadgeText({})), "off", "the icon shows the pause");
  await localAgain.evaluate(() => window.say("while-paused"));
  const pausedPage = await context.newPage();
  await pausedPage.goto(`${local}?m=paused-load`);
  await pausedPage.waitForFunction(() => window.fetched);
  assert.deepEqual(await extensionScripts(pausedPage), [], "a page loaded while paused gets no script");
  assert.equal((await observe(client, { what: "logs", limit: 1 })).capture.paused, true);
  await popup.click("#pause");
  await popup.waitForFunction(() => document.getElementById("page-scope").textContent.includes("is captured"));
  await barrier(localAgain, "after-resume");
  assert.deepEqual(await mentioning("while-paused"), [], "nothing logged while paused");
  assert.deepEqual(await mentioning("paused-load"), [], "nothing of a page loaded while paused");
  log("pause: nothing captured until resumed");

  // ---- the deep view, turned on and off from the popup ----
  const { popup: deepPopup, tabId: deepTabId } = await popupFor(worker, localAgain);
  // The popup draws the tab's state every second. A draw that read the state before the click
  // must not undo the click when its answer comes: hold the answer of one such draw until the
  // click's work is done, then let it through.
  await deepPopup.evaluate(() => {
    const ask = chrome.runtime.sendMessage.bind(chrome.runtime);
    const ping = chrome.tabs.sendMessage.bind(chrome.tabs);
    window.held = [];
    window.hold = true;
    chrome.runtime.sendMessage = (message) =>
      message.type === "tab" && window.hold
        ? new Promise((answer) => ask(message).then((state) => window.held.push(() => answer(state))))
        : ask(message);
    // The held draw goes on, in the same task, to ask the page whether it is live: the first such
    // question after the release is that draw's, and its end is the draw's end.
    chrome.tabs.sendMessage = (...args) => {
      const asked = ping(...args);
      if (window.released && !window.heldDrawn) {
        // What the switch shows once that draw is done, before any later draw can change it.
        window.heldDrawn = asked.finally(() => setTimeout(() => (window.afterHeldDraw = document.getElementById("deep").checked)));
      }
      return asked;
    };
  });
  await deepPopup.waitForFunction(() => window.held.length === 1); // a draw has read the state: not deep
  await deepPopup.evaluate(() => (window.hold = false));
  await deepPopup.check("#deep");
  await waitFor("the tab to be deep", () => worker.evaluate((id) => globalThis.gasolineDeep.isDeep(id), deepTabId));
  await deepPopup.evaluate(() => {
    window.released = true;
    window.held.shift()();
  });
  await deepPopup.waitForFunction(() => window.afterHeldDraw !== undefined);
  assert.equal(await deepPopup.evaluate(() => window.afterHeldDraw), true, "a draw read before the click leaves the switch as clicked");
  await waitFor("the server to know the deep tab", async () => (await observe(client, { what: "logs", limit: 1 })).capture.deep_tabs.includes(deepTabId));
  await localAgain.evaluate(() => fetch("/scope.json?m=deep-fetch").then((r) => r.text()));
  await waitFor("the browser's row of the deep tab's request", async () =>
    (await all(client, "network_waterfall", { tabId: deepTabId })).some((e) => e.url.endsWith("m=deep-fetch") && e.source === "browser"),
  );
  await deepPopup.uncheck("#deep");
  await waitFor("the tab no longer deep", async () => !(await worker.evaluate((id) => globalThis.gasolineDeep.isDeep(id), deepTabId)));
  await waitFor("the server to know", async () => (await observe(client, { what: "logs", limit: 1 })).capture.deep_tabs.length === 0);
  log("deep view from the popup: the browser's rows while on, the server told; off again");

  // ---- the deep view ends by itself when its tab leaves the scope, and says why ----
  await deepPopup.check("#deep");
  await waitFor("the tab to be deep again", () => worker.evaluate((id) => globalThis.gasolineDeep.isDeep(id), deepTabId));
  await localAgain.goto(`${shop}?m=deep-leaves`);
  await waitFor("the deep view to end", async () => !(await worker.evaluate((id) => globalThis.gasolineDeep.isDeep(id), deepTabId)));
  const ended = await waitFor("the extension's log of its end", async () =>
    (await all(client, "extension_logs")).find((e) => /^deep view of tab \d+ ended/.test(e.message)),
  );
  assert.equal(ended.message, `deep view of tab ${deepTabId} ended: the tab went to a site outside the capture scope`, "why, without the site");
  await localAgain.goto(`${local}?m=deep-back`);
  await localAgain.waitForFunction(() => window.fetched);
  const { popup: backPopup } = await popupFor(worker, localAgain);
  await backPopup.waitForFunction(() => !document.getElementById("deep-ended").hidden);
  assert.equal(
    await backPopup.textContent("#deep-ended"),
    "Deep view of this tab ended: the tab went to a site outside the capture scope. Turn it on again to go on watching it.",
  );
  assert.equal(await backPopup.isChecked("#deep"), false);
  await backPopup.close();
  log("deep view: leaving the scope ends it, said in the extension's log and in the popup back on the page");

  // ---- what a page logs as it is left is its own, not the next page's ----
  await localAgain.evaluate(() => addEventListener("pagehide", () => console.log("said as the page was left")));
  await localAgain.reload();
  await localAgain.waitForFunction(() => window.fetched);
  const leftLog = await waitFor("the log of the page left", async () =>
    (await all(client, "logs", { tabId: deepTabId })).find((e) => e.message === "said as the page was left"),
  );
  const reloaded = await waitFor("the reload's navigation", async () => {
    const answer = await observe(client, { what: "logs", tabId: deepTabId, since_navigation: true, limit: 500 });
    return answer.navigation.how === "reload" && answer;
  });
  assert.ok(leftLog.docStart < reloaded.navigation.ts && leftLog.ts >= reloaded.navigation.ts, `dated after the reload began, of the document before: ${JSON.stringify(leftLog)} ${JSON.stringify(reloaded.navigation)}`);
  assert.ok(!reloaded.entries.some((e) => e.id === leftLog.id), "not among the reloaded page's entries");
  log("a page's last words (logged in its pagehide) are its own, not the reloaded page's");

  // ---- the server's own origin ----
  const own = await context.newPage();
  await own.goto(`${serverUrl}/health`);
  assert.deepEqual(await extensionScripts(own), [], "no script of ours on the server's own origin");
  await barrier(localAgain, "barrier-3");
  assert.deepEqual(await mentioning(`${serverUrl}/health`), [], "the server's own pages leave no row");
  log("the server's own origin is never captured");

  // ---- "Capture this site" when Chrome's prompt closes the popup, and the worker stops meanwhile ----
  await context.close();
  context = await launch(path.join(work, "profile-prompt"), build, ["shop.example"]);
  let asked = await serviceWorker(context);
  await pointAt(asked, serverUrl);
  const extensionId = asked.url().split("/")[2];
  const extensionsPage = await context.newPage();
  await extensionsPage.goto("chrome://extensions");
  const developer = (fn, ...args) =>
    extensionsPage.evaluate(
      ([fn, args]) =>
        new Promise((resolve, reject) =>
          chrome.developerPrivate[fn](...args, () => (chrome.runtime.lastError ? reject(new Error(chrome.runtime.lastError.message)) : resolve())),
        ),
      [fn, args],
    );
  // As if installed without the test sites: every site withheld ("on click"), the local origin given back.
  await developer("updateExtensionConfiguration", { extensionId, hostAccess: "ON_CLICK" });
  await developer("addHostPermission", extensionId, "http://127.0.0.1/*");
  assert.equal(await asked.evaluate(() => chrome.permissions.contains({ origins: ["http://shop.example/*"] })), false);
  const promptPage = await open(`${shop}?m=prompt-before`);
  // The popup's first step on "Capture this site", as its click sends it. (Under "on click" the popup
  // cannot read the tab's URL without the person's click on the icon, which a test cannot give.)
  const asking = await context.newPage();
  await asking.goto(`chrome-extension://${extensionId}/popup/popup.html`);
  await asking.evaluate(() => chrome.runtime.sendMessage({ type: "intent", site: "http://shop.example/*" }));
  await waitFor("the popup's intent in session storage", async () => {
    const { siteIntents } = await asked.evaluate(() => chrome.storage.session.get("siteIntents"));
    return siteIntents && siteIntents["http://shop.example/*"];
  });
  await asking.close(); // the prompt took the focus: the popup closed, and its code with it
  const sitesOn = async () => (await asked.evaluate(() => chrome.storage.local.get("scope"))).scope?.sites || [];
  assert.deepEqual(await sitesOn(), [], "not on before Chrome grants it");
  await stopWorker(context, asked, null); // stopped as idle while the person reads the prompt
  await developer("addHostPermission", extensionId, "http://shop.example/*"); // the person answers Allow: this starts it again
  asked = await liveWorker(context);
  await waitFor("the worker to turn the site on when Chrome grants it", async () => (await sitesOn()).includes("http://shop.example/*"));
  await promptPage.goto(`${shop}?m=prompt-granted`);
  await promptPage.waitForFunction(() => window.fetched);
  await waitFor("shop.example captured after the grant", async () => (await mentioning("prompt-granted")).some((x) => x.what === "logs"));
  assert.deepEqual(await mentioning("prompt-before"), [], "nothing of the load before the grant");
  log("Capture this site: acted on when Chrome grants it, though the prompt closed the popup and the worker stopped");

  // ---- the shipped extension, which Chrome gives no debugger: the popup says how to get deep mode ----
  await context.close();
  const shipped = path.join(work, "shipped");
  cpSync(extensionDir, shipped, { recursive: true, filter: (src) => !/[/\\](node_modules|test|bench)$/.test(src) });
  context = await launch(path.join(work, "profile-shipped"), shipped, []);
  const shippedWorker = await serviceWorker(context);
  assert.equal(await shippedWorker.evaluate(() => chrome.permissions.contains({ permissions: ["debugger"] })), false);
  const plainLocal = await context.newPage();
  await plainLocal.goto(`${local}?m=shipped`);
  const { popup: shippedPopup } = await popupFor(shippedWorker, plainLocal);
  await shippedPopup.click("#deep"); // the popup unticks it at once
  await shippedPopup.waitForFunction(() => !document.getElementById("deep-error").hidden);
  assert.match(await shippedPopup.textContent("#deep-error"), /only when it is installed.*scripts\/deep-extension\.sh/s);
  assert.equal(await shippedPopup.isChecked("#deep"), false);
  log("the shipped extension holds no debugger; its popup says how to get the deep build");
  log("PASSED");
} catch (e) {
  fail(e.stack || String(e));
} finally {
  if (context) await context.close().catch(() => {});
  await client.close().catch(() => {});
  fixture.server.close();
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
