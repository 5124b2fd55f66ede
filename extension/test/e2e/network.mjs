// The deep view of a tab (background/deep.js, chrome.debugger): every request
// of the tab as the browser saw it, recorded once (`source: "browser"`), with
// its frame, its failure reason or its redirect chain, every body joined to its
// request row by id, and the browser's own console messages (a CORS refusal, a
// CSP refusal, a failed image) as `source: "browser"` logs. A second tab on the
// same page, not deep, gets the page's own rows only (`source: "page"`).
// The fixture (fixture/network*.{html,js}) is served on two loopback origins of
// its own (127.0.0.1 and 127.0.0.2, so the second frame is cross-site, in a
// process of its own); 127.0.0.2 is outside the default capture scope, so its
// frame leaves no rows until the test turns that site on; requests to
// `.invalid` go nowhere. Called by run.mjs with the running browser and server;
// the deep view is turned on through the worker's `self.gasolineDeep`.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { serve, serviceWorker, settled } from "./harness.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const FILES = {
  "/network.html": "text/html",
  "/network.js": "text/javascript",
  "/network-client.js": "text/javascript",
  "/network-frame.html": "text/html",
  "/network-frame.js": "text/javascript",
  "/network-worker.js": "text/javascript",
  "/network-sw.js": "text/javascript",
  "/network-shared-worker.js": "text/javascript",
  "/network-module-worker.js": "text/javascript",
  "/network-module-dep.js": "text/javascript",
  "/network-outer-worker.js": "text/javascript",
  "/network-nested-worker.js": "text/javascript",
  "/adopt.html": "text/html",
  "/adopted-shared-worker.js": "text/javascript",
};
const INVALID_HOST = "gasoline-e2e.invalid";

/** One origin of the fixture: the same routes on each. */
function fixtureOrigin(host) {
  let twins = 0;
  let hanging = false; // /net/hang has arrived
  const waitingForHang = [];
  const json = (res, body, status = 200, headers = {}) => {
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
    res.end(JSON.stringify(body));
  };
  return serve((req, res) => {
    const url = new URL(req.url, "http://x");
    const p = url.pathname;
    if (FILES[p]) {
      // The top page refuses other origins' images: the browser says so in its console.
      const csp = p === "/network.html" ? { "content-security-policy": "img-src 'self'" } : {};
      res.writeHead(200, { "content-type": FILES[p], "cache-control": "no-store", ...csp });
      res.end(readFileSync(path.join(here, "fixture", p.slice(1))));
    } else if (p.startsWith("/net/adopted-")) {
      json(res, { adopted: p });
    } else if (p === "/net/r1") {
      res.writeHead(302, { location: "/net/r2" });
      res.end();
    } else if (p === "/net/r2") {
      res.writeHead(302, { location: "/net/final.json" });
      res.end();
    } else if (p === "/net/hang") {
      // Never answered: the page aborts it once it is here (so the browser has surely seen it start).
      hanging = true;
      waitingForHang.splice(0).forEach((r) => json(r, { hanging }));
      req.on("close", () => res.destroy());
    } else if (p === "/net/worker-unavailable") {
      // A 503's headers and the start of its body, the rest never sent: the worker that asked is
      // terminated before its body ends.
      res.writeHead(503, { "content-type": "application/json", "content-length": "1000", "cache-control": "no-store" });
      res.write('{"error":');
      req.on("close", () => res.destroy());
    } else if (p === "/net/partial") {
      // The headers and a little of the body, then the connection is cut: the body breaks off.
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"partial":');
      setTimeout(() => res.destroy(), 50);
    } else if (p === "/net/hang-arrived") {
      if (hanging) json(res, { hanging });
      else waitingForHang.push(res);
    } else if (p === "/net/twin") {
      const n = ++twins;
      // The first to arrive is answered last, and with another status.
      setTimeout(() => json(res, { twin: n }, n === 1 ? 200 : 201), n === 1 ? 400 : 0);
    } else if (p === "/net/beacon") {
      req.resume();
      req.on("end", () => {
        res.writeHead(204);
        res.end();
      });
    } else if (p === "/net/sse") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
      res.end("data: hello\n\n");
    } else if (p === "/net/nocors.json") {
      json(res, { cors: "none" }); // no Access-Control-Allow-Origin: a cross-origin page may not read it
    } else if (p === "/net/data-worker.json") {
      // A data: worker's origin is opaque ("null"): without this its fetch is refused by CORS (measured).
      json(res, { path: p, host }, 200, { "access-control-allow-origin": "*" });
    } else if (p.startsWith("/net/") && p.endsWith(".json")) {
      json(res, { path: p, who: url.searchParams.get("who") || undefined, host });
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    }
  }, { host });
}

export async function networkPage({ context, client, all, observe, waitFor, log }) {
  const top = await fixtureOrigin("127.0.0.1");
  const cross = await fixtureOrigin("127.0.0.2");
  const invalid = `http://${INVALID_HOST}`;
  const ours = (url) => [top.origin, cross.origin, invalid].some((o) => typeof url === "string" && url.startsWith(`${o}/`));
  const worker = await serviceWorker(context);
  const tabIdOf = (url) =>
    waitFor(`the tab of ${url}`, async () => {
      const ids = await worker.evaluate(async (u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id), url);
      return ids.length === 1 && ids[0];
    });
  const deep = (tabId, on) => worker.evaluate(([id, yes]) => (yes ? self.gasolineDeep.attach(id) : self.gasolineDeep.detach(id)), [tabId, on]);
  const pages = [];
  try {
    const t = (p) => `${top.origin}${p}`;
    const c = (p) => `${cross.origin}${p}`;
    const pageUrl = `${top.origin}/network.html?cross=${encodeURIComponent(cross.origin)}&invalid=${INVALID_HOST}`;

    // ---- the deep view: only a tab in scope ----
    const outside = await context.newPage();
    pages.push(outside);
    await outside.goto(c("/net/outside.json"));
    const refused = await deep(await tabIdOf(c("/net/outside.json")), true);
    assert.match(refused.error || "", /127\.0\.0\.2:\d+ is outside the capture scope/, JSON.stringify(refused));
    await outside.close();

    const page = await context.newPage();
    pages.push(page);
    const pageErrors = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(t("/net/start.json"));
    const tabId = await tabIdOf(t("/net/start.json"));
    assert.deepEqual(await deep(tabId, true), { ok: true }, "the deep view of a tab in scope");
    assert.deepEqual(await worker.evaluate(() => self.gasolineDeep.deepTabs()), [tabId]);
    await page.goto(pageUrl);
    const done = await page.waitForFunction(() => window.done, null, { timeout: 30000 }).then((h) => h.jsonValue());
    assert.deepEqual(pageErrors, [], "the page saw no errors");
    // What the page itself saw: each request did what the check below expects of its row.
    assert.match(done["invalid host"], /failed: TypeError/);
    assert.match(done.cors, /failed: TypeError/);
    assert.equal(done.aborted, "failed: AbortError");
    assert.match(done.partial, /failed: TypeError/, "the page's read of a body that broke off rejects");
    assert.equal(done.sseMessage, "hello");
    assert.equal(done.beacon, true);
    assert.match(done.worker, /worker\.json/);
    assert.equal(done["service worker"], "ready");
    assert.equal(done["terminated worker"], 503);
    for (const [name, path] of [
      ["blob worker", "/net/blob-worker.json"],
      ["data worker", "/net/data-worker.json"],
      ["shared worker", "/net/shared-worker.json"],
      ["module worker", "/net/module-worker.json"],
      ["nested worker", "/net/nested-worker.json"],
    ]) {
      assert.equal(JSON.parse(done[name]).path, path, `the ${name}'s fetch was answered: ${done[name]}`);
    }
    assert.equal(done["answered by the service worker"], '{"from":"service worker"}');
    assert.equal(done["csp refused image"], "refused");

    // The cross-site frame (127.0.0.2, outside the scope) leaves no row of its own: its document,
    // script and XHR are dropped. Its parent's resource timing of the iframe is the parent's.
    // Workers of every other kind (each request of theirs once, the browser's, of this tab): their
    // scripts when they have a URL of the network, and the fetch each makes.
    const workers = [
      t("/net/blob-worker.json"),
      t("/net/data-worker.json"),
      t("/network-module-worker.js"),
      t("/network-module-dep.js"),
      t("/net/module-worker.json"),
      t("/network-outer-worker.js"),
      t("/network-nested-worker.js"),
      t("/net/nested-worker.json"),
      t("/net/worker-unavailable"),
    ];
    // A shared worker is no target of the tab's: deep.js attaches it by its target id when the tab
    // asks for its script, and nothing holds it at its first start for that, so its first requests
    // race the attach; what its events missed is read back from its own Resource Timing buffer
    // (`fromTiming`, no method). Each is exactly one row, the browser's, of this tab.
    const shared = [t("/network-shared-worker.js"), t("/net/shared-worker.json")];
    const outOfScope = [c("/network-frame.html?who=cross"), c("/network-frame.js"), c("/net/frame.json?who=cross")];
    const expected = [
      pageUrl,
      t("/network.js"),
      t("/network-client.js"),
      t("/net/missing.png"),
      t("/net/top.json"),
      t("/net/xhr.json"),
      t("/net/gone"),
      t("/net/deep-gone"),
      t("/net/r1"),
      `${invalid}/net/x.json`,
      c("/net/nocors.json"),
      c("/net/preflighted.json"),
      c("/net/csp-refused.png"),
      t("/net/hang"),
      t("/net/hang-arrived"),
      t("/net/partial"),
      t("/net/twin"),
      t("/net/beacon"),
      t("/net/sse"),
      t("/network-worker.js"),
      t("/net/worker.json"),
      t("/network-sw.js"),
      t("/net/sw.json"),
      t("/network-frame.html?who=same"),
      t("/network-frame.js"),
      t("/net/frame.json?who=same"),
      t("/net/srcdoc.json"),
      t("/net/answered-by-sw.json"),
      ...workers,
    ];
    const withBody = [
      t("/net/top.json"),
      t("/net/xhr.json"),
      t("/net/gone"),
      t("/net/deep-gone"),
      t("/net/r1"),
      `${invalid}/net/x.json`,
      c("/net/nocors.json"),
      c("/net/preflighted.json"),
      t("/net/hang"),
      t("/net/hang-arrived"),
      t("/net/partial"),
      t("/net/twin"),
      t("/net/frame.json?who=same"),
      t("/net/srcdoc.json"),
      t("/net/beacon"), // its payload, from page/beacon.js
      t("/net/answered-by-sw.json"), // the browser sees what the service worker answered
    ];
    // The deep tab's rows and the page's service worker's (no tab), not those of the page the tab
    // showed first (its favicon may be asked for once the tab is deep).
    const mine = (e) => (e.tabId === tabId || e.tabId === null) && ours(e.url) && ![t("/net/start.json"), t("/favicon.ico")].includes(e.url);
    const read = async () => ({
      rows: (await all(client, "network_waterfall")).filter(mine),
      bodies: (await all(client, "network_bodies")).filter(mine),
    });
    await waitFor(
      "a row for every request of the deep tab and a body for every fetch and XHR",
      async () => {
        const { rows, bodies } = await read();
        // Every unmet condition, named: the message of the last try is the one a timeout shows.
        const count = (list, url) => list.filter((x) => x.url === url).length;
        const missing = [
          ...expected.filter((u) => !rows.some((r) => r.url === u && r.source === "browser")).map((u) => `browser row ${u}`),
          ...withBody.filter((u) => !bodies.some((b) => b.url === u && b.requestId)).map((u) => `joined body ${u}`),
          ...(count(rows, t("/net/twin")) === 2 ? [] : [`2 twin rows (${count(rows, t("/net/twin"))})`]),
          ...(count(rows, c("/net/preflighted.json")) === 2 ? [] : [`the preflight's row and its request's (${count(rows, c("/net/preflighted.json"))})`]),
          ...(count(bodies, t("/net/twin")) === 2 ? [] : [`2 twin bodies (${count(bodies, t("/net/twin"))})`]),
        ];
        if (missing.length) throw new Error(`missing: ${missing.join(", ")}`);
        return true;
      },
      30000,
    );
    // Longer than request_join.js holds a row (3 s) or a lone page row (8 s): anything sent twice is in by now.
    await new Promise((r) => setTimeout(r, 8500));
    const { rows, bodies } = await read();

    // Each request once (two identical GETs are two; a preflighted PUT comes with its OPTIONS):
    // no second row from the page's own view of it.
    const counts = {};
    for (const r of rows) counts[r.url] = (counts[r.url] || 0) + 1;
    const frameByParent = rows.filter((r) => r.url === c("/network-frame.html?who=cross"));
    assert.ok(
      frameByParent.length <= 1 && frameByParent.every((r) => r.source === "page" && r.frameId === undefined && r.requestId === undefined),
      `the cross-site frame's document only as its parent page timed it: ${JSON.stringify(frameByParent)}`,
    );
    delete counts[c("/network-frame.html?who=cross")];
    for (const u of shared) {
      assert.equal(counts[u], 1, `the shared worker's ${u}: one row`);
      delete counts[u];
    }
    const twice = [t("/net/twin"), c("/net/preflighted.json")];
    assert.deepEqual(counts, Object.fromEntries(expected.map((u) => [u, twice.includes(u) ? 2 : 1])), "each request is one row");
    for (const u of outOfScope.slice(1)) assert.ok(!rows.some((r) => r.url === u), `no row of the frame outside the scope: ${u}`);
    const browserRows = rows.filter((r) => r.url !== c("/network-frame.html?who=cross"));
    assert.ok(browserRows.every((r) => r.source === "browser"), "every request is the browser's row");
    // A shared worker's request read back from its Resource Timing was never named by the browser:
    // it has no id (and only a shared worker's rows may be read back).
    const readBack = browserRows.filter((r) => r.fromTiming === true);
    assert.ok(readBack.every((r) => shared.includes(r.url) && r.requestId === undefined), `rows read back: ${JSON.stringify(readBack)}`);
    const named = browserRows.filter((r) => r.fromTiming !== true);
    assert.ok(named.every((r) => /^[0-9a-f]{8}-[0-9A-F.]+$/.test(r.requestId)), `every browser row has its session's id: ${named.map((r) => `${r.url} ${r.requestId}`)}`);
    assert.equal(new Set(named.map((r) => r.requestId)).size, named.length, "request ids are unique");
    const row = (url) => rows.find((r) => r.url === url);

    // Frames: the top one is 0, the same-origin iframe its own (as its logs say), the srcdoc
    // frame its own (as its body says), each with its document's URL.
    const frameLogs = await waitFor("the same-origin frame's log", async () => {
      const entries = (await all(client, "logs", { tabId })).filter((e) => e.message.startsWith("network frame"));
      return entries.some((e) => e.message === "network frame same") && entries;
    });
    const sameLog = frameLogs.find((e) => e.message === "network frame same");
    const srcdocBody = bodies.find((b) => b.url === t("/net/srcdoc.json"));
    const same = row(t("/network-frame.html?who=same"));
    // The page's call site of a failed request joins the browser's row of it.
    assert.match(row(t("/net/gone")).location || "", /\/network\.js:\d+:\d+$/, JSON.stringify(row(t("/net/gone"))));
    const frameOf = { top: 0, same: sameLog.frameId, srcdoc: srcdocBody.frameId };
    assert.equal(new Set(Object.values(frameOf)).size, 3, `three frames: ${JSON.stringify(frameOf)}`);
    assert.ok(frameOf.same > 0 && frameOf.srcdoc > 0, JSON.stringify(frameOf));
    const urlOf = { top: pageUrl, same: same.url, srcdoc: "about:srcdoc" };
    const want = {
      [pageUrl]: { type: "main_frame", frame: "top", status: 200 },
      [t("/network.js")]: { type: "script", frame: "top", status: 200 },
      [t("/network-client.js")]: { type: "script", frame: "top", status: 200 },
      [t("/net/missing.png")]: { type: "image", frame: "top", status: 404 },
      [t("/net/top.json")]: { type: "fetch", frame: "top", status: 200 },
      [t("/net/xhr.json")]: { type: "xmlhttprequest", frame: "top", status: 200 },
      [t("/net/gone")]: { type: "xmlhttprequest", frame: "top", status: 404 },
      [t("/net/deep-gone")]: { type: "xmlhttprequest", frame: "top", status: 404 },
      [t("/net/r1")]: { type: "fetch", frame: "top", status: 200 },
      [`${invalid}/net/x.json`]: { type: "fetch", frame: "top", error: /^net::ERR_NAME_NOT_RESOLVED$/ },
      [c("/net/nocors.json")]: { type: "fetch", frame: "top", error: /^net::ERR_FAILED \(CORS: the response from .* has no Access-Control-Allow-Origin header/ },
      [c("/net/csp-refused.png")]: { type: "image", frame: "top", error: /^blocked:csp$/ },
      [t("/net/hang")]: { type: "fetch", frame: "top", error: /^net::ERR_ABORTED$/ },
      [t("/net/hang-arrived")]: { type: "fetch", frame: "top", status: 200 },
      [t("/net/beacon")]: { type: "ping", frame: "top", status: 204, method: "POST" },
      [t("/net/sse")]: { type: "eventsource", frame: "top", status: 200 },
      // A worker's own script: Chromium 156 does not always report its response to the worker's
      // session (1 run in 3 for the service worker's: requestWillBeSent and loadingFinished only),
      // so its status may be unknown; never another one.
      [t("/network-worker.js")]: { type: "script", frame: "top", status: 200, statusMayLack: true },
      [t("/net/worker.json")]: { type: "fetch", frame: "top", status: 200 }, // the worker's, in its page's frame
      // Workers of every other kind: each request of the tab, in the frame that started the worker.
      // A blob: or data: worker's own script is no request of the network (no row).
      [t("/net/blob-worker.json")]: { type: "fetch", frame: "top", status: 200 },
      [t("/net/data-worker.json")]: { type: "fetch", frame: "top", status: 200 },
      [t("/network-module-worker.js")]: { type: "script", frame: "top", status: 200, statusMayLack: true },
      [t("/network-module-dep.js")]: { type: "script", frame: "top", status: 200 },
      [t("/net/module-worker.json")]: { type: "fetch", frame: "top", status: 200 },
      // The shared worker's (its fetch may be read back from its Resource Timing: see `shared`).
      [t("/network-shared-worker.js")]: { type: "script", frame: "top", status: 200, statusMayLack: true },
      [t("/net/shared-worker.json")]: { type: "fetch", frame: "top", status: 200, startMayLack: true },
      [t("/network-outer-worker.js")]: { type: "script", frame: "top", status: 200, statusMayLack: true },
      [t("/network-nested-worker.js")]: { type: "script", frame: "top", status: 200, statusMayLack: true },
      [t("/net/nested-worker.json")]: { type: "fetch", frame: "top", status: 200 },
      [t("/network-sw.js")]: { type: "script", serviceWorker: true, status: 200, statusMayLack: true },
      [t("/net/sw.json")]: { type: "fetch", serviceWorker: true, status: 200 },
      [same.url]: { type: "sub_frame", frame: "same", parent: "top", status: 200 },
      [t("/network-frame.js")]: { type: "script", frame: "same", parent: "top", status: 200 },
      [t("/net/frame.json?who=same")]: { type: "fetch", frame: "same", parent: "top", status: 200 },
      [t("/net/srcdoc.json")]: { type: "fetch", frame: "srcdoc", parent: "top", status: 200 },
      // Answered by the page's service worker: no server, no status text.
      [t("/net/answered-by-sw.json")]: { type: "fetch", frame: "top", status: 200, noStatusText: true },
    };
    for (const [url, w] of Object.entries(want)) {
      const r = row(url);
      const what = `${url}: ${JSON.stringify(r)}`;
      assert.ok(r, what);
      // Started before its session was attached (a shared worker's first request can be): its end
      // is the browser's, its start, method and type may be unknown.
      const late = w.startMayLack && r.startUnknown === true;
      // Read back from the shared worker's Resource Timing: its method is not known there.
      const timed = w.startMayLack && r.fromTiming === true;
      if (late) assert.ok([w.type, "other"].includes(r.type) && [undefined, w.method || "GET"].includes(r.method), what);
      else if (timed) assert.ok(r.type === w.type && r.method === undefined, what);
      else {
        assert.equal(r.type, w.type, what);
        assert.equal(r.method, w.method || "GET", what);
      }
      if (w.serviceWorker) {
        // The page's service worker belongs to no tab and no frame; its initiator says whose it is.
        assert.equal(r.tabId, null, what);
        assert.equal(r.frameId, -1, what);
        assert.equal(r.initiator, top.origin, what);
      } else {
        assert.equal(r.tabId, tabId, what);
        assert.equal(r.frameId, frameOf[w.frame], what);
        assert.equal(r.parentFrameId, w.parent ? frameOf[w.parent] : -1, what);
        assert.equal(r.frameUrl, urlOf[w.frame], what);
      }
      if (w.error) {
        assert.match(r.error, w.error, what);
      } else if (timed) {
        // Resource Timing gives the status, never the status line.
        assert.deepEqual([r.error, r.responseStatus, r.statusLine], [undefined, w.status, undefined], what);
      } else if (w.statusMayLack && r.responseStatus === undefined) {
        assert.deepEqual([r.error, r.statusLine], [undefined, undefined], what);
      } else {
        assert.equal(r.error, undefined, what);
        assert.equal(r.responseStatus, w.status, what);
        assert.match(r.statusLine, new RegExp(`^HTTP/1\\.1 ${w.status}${w.noStatusText ? "$" : " "}`), what);
      }
      assert.equal(r.redirects === undefined, url !== t("/net/r1"), `only the chain has redirects: ${what}`);
    }
    // The preflight is a row of its own, and the refusal of the PUT after it says why.
    const preflighted = rows.filter((r) => r.url === c("/net/preflighted.json"));
    const put = preflighted.find((r) => r.method === "PUT");
    const options = preflighted.find((r) => r.method === "OPTIONS");
    assert.ok(put && options, JSON.stringify(preflighted));
    assert.match(put.error, /^net::ERR_FAILED \(CORS: the preflight \(OPTIONS\) response from .* has no Access-Control-Allow-Origin header/);
    assert.deepEqual([options.responseStatus, options.error, options.frameId, options.tabId], [200, undefined, 0, tabId]);
    const chain = row(t("/net/r1"));
    assert.deepEqual(
      chain.redirects.map((h) => [h.url, h.status, h.location]),
      [
        [t("/net/r1"), 302, t("/net/r2")],
        [t("/net/r2"), 302, t("/net/final.json")],
      ],
    );
    assert.equal(chain.finalUrl, t("/net/final.json"));
    // The page's own rows joined the browser's, in the frame that made each request.
    assert.equal(row(t("/net/top.json")).initiatorType, "fetch");
    assert.equal(row(t("/net/frame.json?who=same")).initiatorType, "fetch");
    assert.equal(row(t("/net/srcdoc.json")).initiatorType, "fetch");
    assert.equal(row(t("/net/missing.png")).initiatorType, "img");
    // What answered a request the page's service worker took: this one its own code made (no server).
    assert.equal(row(t("/net/answered-by-sw.json")).fromServiceWorker, "fallback-code");
    // A worker's own request names the worker that made it (its frame is the page's that started it).
    assert.equal(row(t("/net/module-worker.json")).fromWorker, t("/network-module-worker.js"));
    assert.equal(row(t("/net/top.json")).fromWorker, undefined);
    // A worker terminated before its answer's body ended: the answer it read is its row.
    assert.deepEqual([row(t("/net/worker-unavailable")).responseStatus, row(t("/net/worker-unavailable")).source], [503, "browser"]);
    // Where the time went, from the page's timing (same origin: exposed); a cross-origin one without
    // Timing-Allow-Origin does not show its phases.
    const phases = row(t("/net/top.json")).phases;
    assert.deepEqual(Object.keys(phases).sort(), ["connect", "dns", "download", "redirect", "waiting"], JSON.stringify(phases));
    assert.ok(Object.values(phases).every((v) => typeof v === "number" && v >= 0), JSON.stringify(phases));
    assert.ok(row(t("/net/r1")).phases.redirect > 0, "the chain's redirect time");
    const refusedRow = row(c("/net/nocors.json"));
    assert.deepEqual([refusedRow.initiatorType, refusedRow.phases], ["fetch", undefined], "a cross-origin request's phases are not the page's to see");
    log(`network page, deep: ${rows.length} rows, each request once, the browser's, with its frame, type, reason or chain; the frame outside the scope left none`);

    // Every body joins its row by requestId: same URL, method, frame, and the outcome it saw.
    assert.equal(bodies.length, withBody.length + 1, `one body per fetch, XHR and beacon: ${bodies.map((b) => b.url)}`);
    assert.equal(new Set(bodies.map((b) => b.requestId)).size, bodies.length, "each row has one body");
    const frameOfBody = { [t("/net/frame.json?who=same")]: "same", [t("/net/srcdoc.json")]: "srcdoc" };
    for (const b of bodies) {
      const r = rows.find((x) => x.requestId === b.requestId);
      const what = `${b.url}: ${JSON.stringify({ ...b, requestHeaders: undefined, responseHeaders: undefined })} → ${JSON.stringify(r)}`;
      assert.ok(r, `no row has the body's requestId: ${what}`);
      assert.equal(r.url, b.url, what);
      assert.equal(r.method, b.method, what);
      assert.equal(b.tabId, tabId, what);
      const frame = frameOfBody[b.url] || "top";
      assert.equal(b.frameId, frame === "top" ? undefined : frameOf[frame], `only a subframe's entries name their frame: ${what}`);
      assert.equal(r.frameId, frameOf[frame], what);
      if (b.error) assert.ok(r.error && b.failed === true, what);
      else if (b.initiator === "beacon") assert.equal(b.queued, true, what); // the page never sees a beacon's answer
      else assert.equal(b.status, r.responseStatus, what);
    }
    const body = (url) => bodies.find((b) => b.url === url);
    assert.deepEqual(JSON.parse(body(t("/net/r1")).responseBody), { path: "/net/final.json", host: "127.0.0.1" });
    assert.match(body(t("/net/hang")).error, /AbortError/);
    assert.equal(body(t("/net/answered-by-sw.json")).responseBody, '{"from":"service worker"}');
    // The two identical GETs: the first to reach the server was answered last, with 200.
    const twins = bodies.filter((b) => b.url === t("/net/twin")).map((b) => [JSON.parse(b.responseBody).twin, b.status]);
    assert.deepEqual(twins.sort(), [
      [1, 200],
      [2, 201],
    ]);
    log("network page, deep: every body (top frame, same-origin iframe, srcdoc frame, failed, aborted, redirected, twins, the service worker's answer) joins its row");

    // The browser's own console messages, as DevTools shows them.
    const browserLogs = await waitFor("the browser's messages: a CORS refusal, a CSP refusal, a failed image", async () => {
      const entries = (await all(client, "logs", { tabId })).filter((e) => e.source === "browser");
      const found = {
        cors: entries.find((e) => /nocors\.json' from origin '.*' has been blocked by CORS policy: No 'Access-Control-Allow-Origin' header/.test(e.message)),
        csp: entries.find((e) => /csp-refused\.png' violates the following Content Security Policy directive: "img-src 'self'"/.test(e.message)),
        image: entries.find((e) => e.message === "Failed to load resource: the server responded with a status of 404 (Not Found)" && e.url === t("/net/missing.png")),
      };
      const missing = Object.keys(found).filter((k) => !found[k]);
      if (missing.length) throw new Error(`missing ${missing.join(", ")} among ${JSON.stringify(entries.map((e) => e.message))}`);
      return { found, entries };
    });
    for (const e of Object.values(browserLogs.found)) {
      assert.equal(e.level, "error", JSON.stringify(e));
      assert.equal(e.tabId, tabId, JSON.stringify(e));
      assert.equal(e.frameId, undefined, `the top frame's: ${JSON.stringify(e)}`);
    }
    assert.ok(!browserLogs.entries.some((e) => e.message.includes("network-frame.html?who=cross")), "nothing of the frame outside the scope");
    // A frame's logs name the frame; the frame outside the scope logged nothing (no page scripts there).
    assert.equal(sameLog.frameUrl, urlOf.same, JSON.stringify(sameLog));
    assert.ok(!frameLogs.some((e) => e.message === "network frame cross"), "the cross-site frame outside the scope is not captured");
    const tabs = await observe(client, { what: "tabs" });
    const tabRow = (tabs.tabs || tabs.entries || []).find((x) => x.tabId === tabId);
    assert.equal(tabRow && tabRow.url, pageUrl, `the tab is its top frame: ${JSON.stringify(tabRow)}`);
    log(`network page, deep: the browser's messages (${browserLogs.entries.length}: CORS, CSP, failed image) as source "browser" logs; frames' logs name their frame`);

    // A worker's own console (no page script runs there), and a service worker's uncaught error,
    // which no page hears of: from the workers' own sessions, each once, written as the page's.
    const workerLogs = await waitFor("the workers' own console lines and the service worker's uncaught error", async () => {
      const entries = (await all(client, "logs")).filter((e) => ours(e.url) && /network (service )?worker:/.test(e.message));
      const found = {
        dedicated: entries.find((e) => e.message === 'network worker: fetching /net/worker.json {"attempt":1}'),
        service: entries.find((e) => e.message === 'network service worker: installing {"version":1}'),
        thrown: entries.find((e) => e.message === "Uncaught Error: network service worker: thrown after activate"),
      };
      const missing = Object.keys(found).filter((k) => !found[k]);
      if (missing.length) throw new Error(`missing ${missing.join(", ")} among ${JSON.stringify(entries.map((e) => e.message))}`);
      return { found, entries };
    });
    const { dedicated, service, thrown } = workerLogs.found;
    assert.deepEqual(
      [dedicated.level, dedicated.source, dedicated.worker, dedicated.tabId, dedicated.url],
      ["log", "console", "dedicated", tabId, t("/network-worker.js")],
      JSON.stringify(dedicated),
    );
    assert.match(dedicated.location, new RegExp(`^${t("/network-worker.js")}:2:\\d+$`), JSON.stringify(dedicated));
    assert.deepEqual([service.level, service.source, service.worker, service.tabId ?? null], ["warn", "console", "service", null], JSON.stringify(service));
    assert.deepEqual([thrown.level, thrown.source, thrown.worker, thrown.tabId ?? null], ["error", "exception", "service", null], JSON.stringify(thrown));
    assert.match(thrown.stack, /network-sw\.js:\d+:\d+/, JSON.stringify(thrown));
    // Chrome's text-only copy of the dedicated worker's line (console.log as "info") is not stored beside it.
    assert.equal(workerLogs.entries.length, 3, JSON.stringify(workerLogs.entries));
    log("network page, deep: a dedicated worker's console line (its level, its object), the service worker's console and uncaught error (no tab), each once");

    // ---- a second tab on the same page, not deep: the page's own rows, nothing of the browser's ----
    const second = await context.newPage();
    pages.push(second);
    const secondUrl = `${pageUrl}&tab=second`;
    await second.goto(secondUrl);
    await second.waitForFunction(() => window.done, null, { timeout: 30000 });
    const secondTab = await tabIdOf(secondUrl);
    assert.notEqual(secondTab, tabId);
    assert.equal(await worker.evaluate((id) => self.gasolineDeep.isDeep(id), secondTab), false);
    const pageOnly = [t("/net/top.json"), t("/net/xhr.json"), t("/net/r1"), t("/net/missing.png"), t("/net/frame.json?who=same"), t("/net/srcdoc.json")];
    await waitFor(
      "the second tab's page rows",
      async () => {
        const rows2 = (await all(client, "network_waterfall", { tabId: secondTab })).filter((e) => ours(e.url));
        const missing = pageOnly.filter((u) => !rows2.some((r) => r.url === u));
        if (missing.length) throw new Error(`missing ${missing.join(", ")}`);
        return true;
      },
      20000,
    );
    await settled(context, second, client); // what the page recorded is stored: a browser row would be too
    const rows2 = (await all(client, "network_waterfall", { tabId: secondTab })).filter((e) => ours(e.url));
    // Each request the page can see is one row of its own.
    const count = (u) => rows2.filter((r) => r.url === u).length;
    // The same-origin frame's document too: its own row, not the parent's timing of it besides.
    for (const u of [t("/net/top.json"), t("/net/xhr.json"), t("/net/r1"), t("/net/missing.png"), `${invalid}/net/x.json`, c("/net/nocors.json"), t("/net/hang"), t("/net/beacon"), t("/net/sse"), t("/network-frame.html?who=same")]) {
      assert.equal(count(u), 1, `one page row for ${u}: ${JSON.stringify(rows2.filter((r) => r.url === u))}`);
    }
    assert.equal(count(t("/net/twin")), 2, "twin requests are two rows");
    // The failures the page can see are failed rows; a request that succeeded is not.
    const row2 = (u) => rows2.find((r) => r.url === u);
    for (const u of [`${invalid}/net/x.json`, c("/net/nocors.json"), t("/net/hang"), t("/net/partial")]) {
      assert.equal(row2(u).failed, true, `${u} failed, as the page saw: ${JSON.stringify(row2(u))}`);
    }
    // A body that broke off mid-way: the row and the body entry say so, whatever the status said.
    assert.match(row2(t("/net/partial")).error, /broke off/, JSON.stringify(row2(t("/net/partial"))));
    const image = row2(t("/net/missing.png"));
    assert.ok(image.failed === true || image.responseStatus === 404, `the broken image failed: ${JSON.stringify(image)}`);
    for (const u of [t("/net/top.json"), t("/net/xhr.json")]) {
      assert.deepEqual([row2(u).failed, row2(u).responseStatus, row2(u).method], [undefined, 200, "GET"], u);
      assert.deepEqual([row2(u).location, row2(u).callers, row2(u).pageUrl], [undefined, undefined, undefined], `no call site kept for ${u}`);
    }
    // A failed request says where the page's code made it: the call, then its callers, and its page.
    const fixtureText = readFileSync(path.join(here, "fixture", "network.js"), "utf8").split("\n");
    const fixtureLine = (needle) => fixtureText.findIndex((l) => l.includes(needle)) + 1;
    const at = (needle) => new RegExp(`^${t("/network.js").replace(/[.]/g, "\\.")}:${fixtureLine(needle)}:\\d+$`);
    const gone = row2(t("/net/gone"));
    assert.equal(gone.responseStatus, 404, JSON.stringify(gone));
    assert.match(gone.location, at("x.send()"), JSON.stringify(gone));
    // Its callers: the Promise executor around it, then the line that asked for it.
    assert.ok(gone.callers.split("\n").some((c) => at('xhr("/net/gone")').test(c)), JSON.stringify(gone));
    assert.equal(gone.pageUrl, secondUrl, "the page whose code made it");
    assert.match(row2(`${invalid}/net/x.json`).location, at("invalid host"), JSON.stringify(row2(`${invalid}/net/x.json`)));
    // Made through a library 40 frames deep: the page's line that called it is still among its callers.
    const deepRow = row2(t("/net/deep-gone"));
    assert.ok(deepRow.location.startsWith(t("/network-client.js:")), JSON.stringify(deepRow));
    assert.ok(deepRow.callers.split("\n").some((c) => at('deepClient("/net/deep-gone")').test(c)), JSON.stringify(deepRow));
    // A script known from its timing alone: no method (the page does not know it), not an empty one.
    assert.equal(row2(t("/network.js")).method ?? null, null, JSON.stringify(row2(t("/network.js"))));
    // The cross-site frame is outside the scope: nothing of its own (its script, its fetch) is a row.
    assert.deepEqual(rows2.filter((r) => r.url === c("/net/frame.json?who=cross") || r.url === c("/network-frame.js")).map((r) => r.url), [], "nothing from the frame outside the scope");
    assert.deepEqual(rows2.filter((r) => r.source !== "page").map((r) => [r.url, r.source]), [], "only the page's rows in a tab that is not deep");
    assert.ok(rows2.every((r) => r.requestId === undefined && r.statusLine === undefined), "nothing of the browser's");
    const logs2 = await all(client, "logs", { tabId: secondTab });
    assert.deepEqual(logs2.filter((e) => e.source === "browser").map((e) => e.message), [], "no browser messages in a tab that is not deep");
    const bodies2 = (await all(client, "network_bodies", { tabId: secondTab })).filter((e) => ours(e.url));
    assert.ok(bodies2.length > 0 && bodies2.every((b) => b.requestId === undefined), "bodies without a browser row to join");
    // The page's redirected fetch: its body entry says where the redirects ended.
    const partial = bodies2.find((b) => b.url === t("/net/partial"));
    assert.deepEqual([partial.status, partial.durationTo, partial.failed], [200, "error", true], JSON.stringify(partial));
    assert.match(partial.error, /broke off/, JSON.stringify(partial));
    const redirected = bodies2.find((b) => b.url === t("/net/r1"));
    assert.deepEqual([redirected.redirected, redirected.responseUrl], [true, t("/net/final.json")], JSON.stringify(redirected));
    assert.equal(bodies2.find((b) => b.url === t("/net/top.json")).redirected, undefined, "only a redirected one says so");
    // Its page row too, and the compact entries an agent reads say it: not a request answered 200 where it was sent.
    const redirectedRow = rows2.find((r) => r.url === t("/net/r1"));
    assert.equal(redirectedRow.finalUrl, t("/net/final.json"), JSON.stringify(redirectedRow));
    assert.equal(rows2.find((r) => r.url === t("/net/top.json")).finalUrl, undefined, "only a redirected one says so");
    const compactBody = (await observe(client, { what: "network_bodies", tabId: secondTab, url: "/net/r1" })).entries[0];
    assert.equal(compactBody.finalUrl, t("/net/final.json"), JSON.stringify(compactBody));
    // The workers it started are rows of their scripts (what they fetch is not the page's to see),
    // and its summary says that deep mode sees what a worker fetches.
    const workerRow = rows2.find((r) => r.url === t("/network-worker.js"));
    assert.deepEqual([workerRow?.initiatorType, workerRow?.responseStatus, workerRow?.source], ["worker", 200, "page"], JSON.stringify(workerRow));
    assert.equal(rows2.some((r) => r.url === t("/net/worker.json")), false, "a worker's own fetch is not the page's to see");
    const secondSummary = await observe(client, { what: "summary", tabId: secondTab });
    assert.match(secondSummary.hint, /the page started a worker \(.*\): what a worker fetches is seen only in deep mode/, secondSummary.hint);
    // A worker whose script is missing: a failed row, made where the page's code started it.
    await second.evaluate(
      () =>
        new Promise((done) => {
          const w = new Worker("/net/no-such-worker.js");
          w.onerror = () => done();
        }),
    );
    const missingWorker = await waitFor("the row of the worker that did not start", async () =>
      (await all(client, "network_waterfall", { tabId: secondTab })).find((r) => r.url === t("/net/no-such-worker.js")),
    );
    // (Chrome gives a worker script it could not load no timing entry: its 404 is not the page's to see.)
    assert.deepEqual(
      [missingWorker.initiatorType, missingWorker.failed, missingWorker.error],
      ["worker", true, "the worker did not start: its script could not be loaded or run"],
      JSON.stringify(missingWorker),
    );
    assert.ok(missingWorker.location, `where the page started it: ${JSON.stringify(missingWorker)}`);
    // A page that moves on (pushState) right after its request failed, before the row is sent: the
    // row names the page the request was made on (a Turbo visit two pages later named the wrong one).
    await second.evaluate(
      () =>
        new Promise((done) => {
          const x = new XMLHttpRequest();
          x.open("GET", "/net/gone?then-moved");
          x.onloadend = () => {
            history.pushState({}, "", "/moved-on");
            done();
          };
          x.send();
        }),
    );
    const moved = await waitFor("the row of the request failed before the page moved on", async () =>
      (await all(client, "network_waterfall", { tabId: secondTab, url: "then-moved" }))[0],
    );
    assert.deepEqual([moved.responseStatus, moved.pageUrl], [404, secondUrl], JSON.stringify(moved));
    // A body the page reads from a clone (Turbo reads a visit's HTML so): the page's read of the
    // clone is ours, its entry ends when that read did, not a second later at a read of our own.
    await second.evaluate(() => fetch("/net/top.json?cloned").then((r) => r.clone().text()));
    const cloned = await waitFor("the body read from the page's clone", async () =>
      (await all(client, "network_bodies", { tabId: secondTab, url: "?cloned" }))[0],
    );
    assert.equal(cloned.durationTo, "body", JSON.stringify(cloned));
    assert.ok(cloned.responseBody.length > 0, JSON.stringify(cloned));
    // An HTML page answered to a call that reads JSON: the unhandled SyntaxError names the response,
    // which its context lists (its own stack has no frame of the page's to place it by).
    await second.evaluate(() => {
      fetch("/network.html?as-json").then((r) => r.json());
    });
    const notJson = await waitFor("the SyntaxError of a body that was no JSON", async () =>
      (await all(client, "errors", { tabId: secondTab, search: "Unexpected token" }))[0],
    );
    assert.equal(notJson.jsonFrom, t("/network.html?as-json"), JSON.stringify(notJson));
    const withContext = await observe(client, { what: "errors", tabId: secondTab, id: notJson.id, context: "full" });
    assert.equal(withContext.entries[0].context.response.url, t("/network.html?as-json"), JSON.stringify(withContext));
    // The same SyntaxError caught and logged, as a data library's error callback logs it: named too.
    await second.evaluate(() =>
      fetch("/network.html?as-json&caught")
        .then((r) => r.json())
        .catch((e) => console.error("Query ['settings'] failed:", e)),
    );
    const logged = await waitFor("the logged SyntaxError", async () =>
      (await all(client, "errors", { tabId: secondTab, search: "Query ['settings'] failed" }))[0],
    );
    assert.equal(logged.jsonFrom, t("/network.html?as-json&caught"), JSON.stringify(logged));
    const loggedContext = await observe(client, { what: "errors", tabId: secondTab, id: logged.id, context: "full" });
    assert.equal(loggedContext.entries[0].context.response.url, t("/network.html?as-json&caught"), JSON.stringify(loggedContext));
    log(`network page, second tab not deep: ${rows2.length} rows, all the page's own, no browser messages`);
    await second.close();

    // ---- the cross-site frame's site turned on: its frame is captured, its rows the browser's ----
    const setSite = (on) => worker.evaluate(([p, yes]) => globalThis.gasolineDebug.setSite(p, yes), ["http://127.0.0.2/*", on]);
    const turnedOn = await setSite(true);
    assert.deepEqual(turnedOn, { ok: true });
    const since = (await all(client, "network_waterfall")).length;
    await page.reload();
    await page.waitForFunction(() => window.done, null, { timeout: 30000 });
    // Every worker kind again, and the shared worker started again (its only page went with the
    // reload), now held at its start for our session: each request exactly one row, the tab's.
    const again = [...workers, ...shared];
    const workerRows = await waitFor(
      "each worker's requests again after the reload",
      async () => {
        const newRows = (await all(client, "network_waterfall")).slice(since).filter((e) => again.includes(e.url));
        const missing = again.filter((u) => !newRows.some((r) => r.url === u));
        if (missing.length) throw new Error(`missing ${missing.join(", ")}`);
        return newRows;
      },
      30000,
    );
    // A second row of one, were there one, would be held by the join (request_join.js) or queued for
    // delivery: once neither holds anything of this tab's, it would be stored.
    await waitFor("the join and the queue to hold nothing of the tab", () =>
      worker.evaluate((id) => !gasolineDebug.joining(id) && !(gasolineDebug.pending().network_waterfall > 0), tabId),
    );
    const afterReload = (await all(client, "network_waterfall")).slice(since).filter((e) => again.includes(e.url));
    for (const u of again) {
      const mine = afterReload.filter((r) => r.url === u);
      const what = `${u} after the reload: ${JSON.stringify(mine)}`;
      assert.equal(mine.length, 1, what);
      assert.deepEqual([mine[0].source, mine[0].tabId, mine[0].method, mine[0].startUnknown, mine[0].frameId], ["browser", tabId, "GET", undefined, 0], what);
      assert.equal(mine[0].type, u.endsWith(".js") ? "script" : "fetch", what);
    }
    log(`network page, deep, reloaded: ${workerRows.length} rows of blob:, data:, module, nested and shared workers (the shared one started again), each once, the tab's`);
    const inScope = await waitFor(
      "the cross-site frame's rows, body and log once its site is on",
      async () => {
        const newRows = (await all(client, "network_waterfall")).slice(since).filter((e) => e.tabId === tabId);
        const r = (u) => newRows.find((x) => x.url === u && x.source === "browser");
        const b = (await all(client, "network_bodies", { tabId })).find((x) => x.url === c("/net/frame.json?who=cross") && x.requestId === (r(c("/net/frame.json?who=cross")) || {}).requestId);
        const l = (await all(client, "logs", { tabId })).find((e) => e.message === "network frame cross");
        const missing = [...outOfScope.filter((u) => !r(u)), ...(b ? [] : ["its body joined"]), ...(l ? [] : ["its log"])];
        if (missing.length) throw new Error(`missing ${missing.join(", ")}`);
        return { rows: outOfScope.map(r), log: l };
      },
      30000,
    );
    const [doc, script, xhr] = inScope.rows;
    assert.deepEqual([doc.type, doc.parentFrameId, doc.frameUrl, doc.responseStatus], ["sub_frame", 0, c("/network-frame.html?who=cross"), 200], JSON.stringify(doc));
    assert.ok(doc.frameId > 0 && doc.frameId === inScope.log.frameId, `the frame's id, as its log says: ${JSON.stringify([doc, inScope.log])}`);
    for (const r of [script, xhr]) assert.deepEqual([r.frameId, r.parentFrameId, r.frameUrl], [doc.frameId, 0, doc.frameUrl], JSON.stringify(r));
    assert.equal(xhr.initiatorType, "xmlhttprequest");
    log("network page, deep: the cross-site frame, its site turned on, gives its own rows (out-of-process iframe session), body and log");
    assert.deepEqual(await setSite(false), { ok: true });

    assert.deepEqual(await deep(tabId, false), { ok: true });
    assert.deepEqual(await worker.evaluate(() => self.gasolineDeep.deepTabs()), []);
    await page.close();

    // ---- a shared worker another tab started before the deep view began ----
    // A page connecting to it requests no script: the deep view finds it running, by its origin.
    const starter = await context.newPage();
    pages.push(starter);
    await starter.goto(t("/adopt.html"));
    await starter.waitForFunction(() => window.answer === "connected");
    const adopter = await context.newPage();
    pages.push(adopter);
    await adopter.goto(t("/net/start.json?adopt"));
    const adoptTab = await tabIdOf(t("/net/start.json?adopt"));
    assert.deepEqual(await deep(adoptTab, true), { ok: true });
    await adopter.goto(t("/adopt.html?deep"));
    await adopter.waitForFunction(() => window.answer === "connected");
    await adopter.evaluate(() => window.ask("deep"));
    await adopter.waitForFunction(() => String(window.answer).includes("adopted-deep"));
    const adopted = await waitFor("the running shared worker's request and log, the deep tab's", async () => {
      const row = (await all(client, "network_waterfall", { tabId: adoptTab })).find((r) => r.url === t("/net/adopted-deep.json") && r.source === "browser");
      const line = (await all(client, "logs", { tabId: adoptTab })).find((e) => e.message === "adopted shared worker asked deep");
      return row && line && { row, line };
    });
    assert.deepEqual([adopted.row.responseStatus, adopted.line.worker], [200, "shared"], JSON.stringify(adopted));
    log("network page, deep: a shared worker another tab started before the view began is found running; its request and log are the deep tab's");
    assert.deepEqual(await deep(adoptTab, false), { ok: true });
  } finally {
    for (const p of pages) await p.close().catch(() => {});
    for (const s of [top, cross]) {
      s.server.closeAllConnections();
      s.server.close();
    }
  }
}
