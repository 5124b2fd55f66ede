// Every request of a tab, recorded once, with its frame, its failure reason or
// its redirect chain, and every body joined to its request row by id. The
// fixture (fixture/network*.{html,js}) is served on two loopback origins of
// its own (127.0.0.1 and 127.0.0.2, so the second frame is cross-site, in a
// process of its own); its requests to `.invalid` go nowhere. Called by run.mjs
// with the running browser and server.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const FILES = {
  "/network.html": "text/html",
  "/network.js": "text/javascript",
  "/network-frame.html": "text/html",
  "/network-frame.js": "text/javascript",
  "/network-worker.js": "text/javascript",
  "/network-sw.js": "text/javascript",
};
const INVALID_HOST = "gasoline-e2e.invalid";

/** One origin of the fixture: the same routes on each. */
function serve(host) {
  let twins = 0;
  let hanging = false; // /net/hang has arrived
  const waitingForHang = [];
  const json = (res, body, status = 200) => {
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    const p = url.pathname;
    if (FILES[p]) {
      res.writeHead(200, { "content-type": FILES[p], "cache-control": "no-store" });
      res.end(readFileSync(path.join(here, "fixture", p.slice(1))));
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
    } else if (p.startsWith("/net/") && p.endsWith(".json")) {
      json(res, { path: p, who: url.searchParams.get("who") || undefined, host });
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    }
  });
  return new Promise((resolve, reject) => {
    server.on("error", (e) => reject(new Error(`the network fixture cannot listen on ${host} (loopback 127.0.0.0/8 expected): ${e.message}`)));
    server.listen(0, host, () => resolve({ server, origin: `http://${host}:${server.address().port}` }));
  });
}

export async function networkPage({ context, client, all, observe, waitFor, log }) {
  const top = await serve("127.0.0.1");
  const cross = await serve("127.0.0.2");
  const invalid = `http://${INVALID_HOST}`;
  const ours = (url) => [top.origin, cross.origin, invalid].some((o) => typeof url === "string" && url.startsWith(`${o}/`));
  try {
    const page = await context.newPage();
    const pageErrors = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    const pageUrl = `${top.origin}/network.html?cross=${encodeURIComponent(cross.origin)}&invalid=${INVALID_HOST}`;
    await page.goto(pageUrl);
    const done = await page.waitForFunction(() => window.done, null, { timeout: 30000 }).then((h) => h.jsonValue());
    assert.deepEqual(pageErrors, [], "the page saw no errors");
    // What the page itself saw: each request did what the check below expects of its row.
    assert.match(done["invalid host"], /failed: TypeError/);
    assert.match(done.cors, /failed: TypeError/);
    assert.equal(done.aborted, "failed: AbortError");
    assert.equal(done.sseMessage, "hello");
    assert.equal(done.beacon, true);
    assert.match(done.worker, /worker\.json/);
    assert.equal(done["service worker"], "ready");
    assert.equal(done["answered by the service worker"], '{"from":"service worker"}');

    const t = (p) => `${top.origin}${p}`;
    const c = (p) => `${cross.origin}${p}`;
    const expected = [
      pageUrl,
      t("/network.js"),
      t("/net/missing.png"),
      t("/net/top.json"),
      t("/net/xhr.json"),
      t("/net/r1"),
      `${invalid}/net/x.json`,
      c("/net/nocors.json"),
      c("/net/preflighted.json"),
      t("/net/hang"),
      t("/net/hang-arrived"),
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
      c("/network-frame.html?who=cross"),
      c("/network-frame.js"),
      c("/net/frame.json?who=cross"),
      t("/net/srcdoc.json"),
      t("/net/answered-by-sw.json"),
    ];
    const withBody = [
      t("/net/top.json"),
      t("/net/xhr.json"),
      t("/net/r1"),
      `${invalid}/net/x.json`,
      c("/net/nocors.json"),
      c("/net/preflighted.json"),
      t("/net/hang"),
      t("/net/hang-arrived"),
      t("/net/twin"),
      t("/net/frame.json?who=same"),
      c("/net/frame.json?who=cross"),
      t("/net/srcdoc.json"),
      t("/net/beacon"), // its payload, from page/beacon.js
    ];
    const read = async () => ({
      rows: (await all(client, "network_waterfall")).filter((e) => ours(e.url)),
      bodies: (await all(client, "network_bodies")).filter((e) => ours(e.url)),
    });
    await waitFor(
      "a row for every request of the network page and a body for every fetch and XHR",
      async () => {
        const { rows, bodies } = await read();
        // Every unmet condition, named: the message of the last try is the one a timeout shows.
        const count = (list, url) => list.filter((x) => x.url === url).length;
        const missing = [
          ...expected.filter((u) => !rows.some((r) => r.url === u)).map((u) => `row ${u}`),
          ...withBody.filter((u) => !bodies.some((b) => b.url === u && b.requestId)).map((u) => `joined body ${u}`),
          ...(count(rows, t("/net/twin")) === 2 ? [] : [`2 twin rows (${count(rows, t("/net/twin"))})`]),
          ...(count(rows, c("/net/preflighted.json")) === 2 ? [] : [`the preflight's row and its request's (${count(rows, c("/net/preflighted.json"))})`]),
          ...(count(bodies, t("/net/answered-by-sw.json")) > 0 ? [] : ["the body the service worker answered"]),
          ...(count(bodies, t("/net/twin")) === 2 ? [] : [`2 twin bodies (${count(bodies, t("/net/twin"))})`]),
        ];
        if (missing.length) throw new Error(`missing: ${missing.join(", ")}`);
        return true;
      },
      30000,
    );
    // Longer than request_join.js holds a row (3 s) or a lone timing entry (8 s): anything sent twice is in by now.
    await new Promise((r) => setTimeout(r, 8500));
    const { rows, bodies } = await read();

    // Each request once (two identical GETs are two; a preflighted PUT comes with its OPTIONS):
    // no second row from the page's resource timing.
    const counts = {};
    for (const r of rows) counts[r.url] = (counts[r.url] || 0) + 1;
    const twice = [t("/net/twin"), c("/net/preflighted.json")];
    assert.deepEqual(
      counts,
      Object.fromEntries(expected.map((u) => [u, twice.includes(u) ? 2 : 1])),
      "each request is one row",
    );
    const row = (url) => rows.find((r) => r.url === url);
    // What the service worker answered never reached the browser's network: the page's timing alone says it.
    const bySw = row(t("/net/answered-by-sw.json"));
    assert.deepEqual([bySw.source, bySw.requestId, bySw.initiatorType], ["page", undefined, "fetch"], JSON.stringify(bySw));
    const browserRows = rows.filter((r) => r !== bySw);
    assert.ok(browserRows.every((r) => /^[0-9a-f]{8}-\d+$/.test(r.requestId)), "every browser row has its session's id");
    assert.equal(new Set(browserRows.map((r) => r.requestId)).size, browserRows.length, "request ids are unique");
    const tabId = row(pageUrl).tabId;
    assert.ok(Number.isInteger(tabId));

    // Frames: the top one is 0, each iframe its own, with its document's URL.
    const same = row(t("/network-frame.html?who=same"));
    const crossFrame = row(c("/network-frame.html?who=cross"));
    // A srcdoc frame makes no request of its own: its id is the one its fetch's row names.
    const frameOf = { top: 0, same: same.frameId, cross: crossFrame.frameId, srcdoc: row(t("/net/srcdoc.json")).frameId };
    assert.equal(new Set(Object.values(frameOf)).size, 4, `four frames: ${JSON.stringify(frameOf)}`);
    assert.ok(frameOf.same > 0 && frameOf.cross > 0 && frameOf.srcdoc > 0, JSON.stringify(frameOf));
    const urlOf = { top: pageUrl, same: same.url, cross: crossFrame.url, srcdoc: "about:srcdoc" };
    const want = {
      [pageUrl]: { type: "main_frame", frame: "top", status: 200 },
      [t("/network.js")]: { type: "script", frame: "top", status: 200 },
      [t("/net/missing.png")]: { type: "image", frame: "top", status: 404 },
      [t("/net/top.json")]: { type: "xmlhttprequest", frame: "top", status: 200 },
      [t("/net/xhr.json")]: { type: "xmlhttprequest", frame: "top", status: 200 },
      [t("/net/r1")]: { type: "xmlhttprequest", frame: "top", status: 200 },
      [`${invalid}/net/x.json`]: { type: "xmlhttprequest", frame: "top", error: /^net::ERR_NAME_NOT_RESOLVED$/ },
      [c("/net/nocors.json")]: { type: "xmlhttprequest", frame: "top", error: /^net::ERR_FAILED \(CORS: the response from .* has no Access-Control-Allow-Origin header/ },
      [t("/net/hang")]: { type: "xmlhttprequest", frame: "top", error: /^net::ERR_ABORTED$/ },
      [t("/net/hang-arrived")]: { type: "xmlhttprequest", frame: "top", status: 200 },
      [t("/net/beacon")]: { type: "ping", frame: "top", status: 204, method: "POST" },
      [t("/net/sse")]: { type: "xmlhttprequest", frame: "top", status: 200 }, // Chrome types EventSource so
      [t("/network-worker.js")]: { type: "script", frame: "top", status: 200 },
      [t("/net/worker.json")]: { type: "xmlhttprequest", frame: "top", status: 200 }, // the worker's, in its page's frame
      [t("/network-sw.js")]: { type: "script", serviceWorker: true, status: 200 },
      [t("/net/sw.json")]: { type: "xmlhttprequest", serviceWorker: true, status: 200 },
      [same.url]: { type: "sub_frame", frame: "same", parent: "top", status: 200 },
      [t("/network-frame.js")]: { type: "script", frame: "same", parent: "top", status: 200 },
      [t("/net/frame.json?who=same")]: { type: "xmlhttprequest", frame: "same", parent: "top", status: 200 },
      [crossFrame.url]: { type: "sub_frame", frame: "cross", parent: "top", status: 200 },
      [c("/network-frame.js")]: { type: "script", frame: "cross", parent: "top", status: 200 },
      [c("/net/frame.json?who=cross")]: { type: "xmlhttprequest", frame: "cross", parent: "top", status: 200 },
      // No document request of its own, so the browser's side knows no URL for the frame.
      [t("/net/srcdoc.json")]: { type: "xmlhttprequest", frame: "srcdoc", parent: "top", status: 200, noFrameUrl: true },
    };
    for (const [url, w] of Object.entries(want)) {
      const r = row(url);
      const what = `${url}: ${JSON.stringify(r)}`;
      assert.equal(r.type, w.type, what);
      assert.equal(r.method, w.method || "GET", what);
      if (w.serviceWorker) {
        // The page's service worker belongs to no tab and no frame; its initiator says whose it is.
        assert.equal(r.tabId, null, what);
        assert.equal(r.frameId, -1, what);
        assert.equal(r.initiator, top.origin, what);
      } else {
        assert.equal(r.tabId, tabId, what);
        assert.equal(r.frameId, frameOf[w.frame], what);
        assert.equal(r.parentFrameId, w.parent ? frameOf[w.parent] : -1, what);
        assert.equal(r.frameUrl, w.noFrameUrl ? undefined : urlOf[w.frame], what);
      }
      if (w.error) {
        assert.match(r.error, w.error, what);
      } else {
        assert.equal(r.error, undefined, what);
        assert.equal(r.responseStatus, w.status, what);
        assert.match(r.statusLine, new RegExp(`^HTTP/1\\.1 ${w.status} `), what);
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
    // The page's resource timing joined the browser's rows, in the frame that made each request.
    assert.equal(row(t("/net/top.json")).initiatorType, "fetch");
    assert.equal(row(t("/net/frame.json?who=same")).initiatorType, "fetch");
    assert.equal(row(c("/net/frame.json?who=cross")).initiatorType, "xmlhttprequest");
    assert.equal(row(t("/net/srcdoc.json")).initiatorType, "fetch");
    assert.equal(row(t("/net/missing.png")).initiatorType, "img");
    // Where the time went, from the page's timing (same origin: exposed); a cross-origin one without
    // Timing-Allow-Origin does not show its phases.
    const phases = row(t("/net/top.json")).phases;
    assert.deepEqual(Object.keys(phases).sort(), ["connect", "dns", "download", "redirect", "waiting"], JSON.stringify(phases));
    assert.ok(Object.values(phases).every((v) => typeof v === "number" && v >= 0), JSON.stringify(phases));
    assert.ok(row(t("/net/r1")).phases.redirect > 0, "the chain's redirect time");
    const refused = row(c("/net/nocors.json"));
    assert.deepEqual([refused.initiatorType, refused.phases], ["fetch", undefined], "a cross-origin request's phases are not the page's to see");
    log(`network page: ${rows.length} rows, each request once, with its frame, type, reason or chain`);

    // Every body joins its row by requestId: same URL, method, frame, and the outcome it saw;
    // the service worker's answer has no row of the browser's to join.
    const swBody = bodies.find((b) => b.url === t("/net/answered-by-sw.json"));
    assert.deepEqual([swBody.requestId, swBody.responseBody], [undefined, '{"from":"service worker"}']);
    bodies.splice(bodies.indexOf(swBody), 1);
    assert.equal(bodies.length, withBody.length + 1, `one body per fetch, XHR and beacon: ${bodies.map((b) => b.url)}`);
    assert.equal(new Set(bodies.map((b) => b.requestId)).size, bodies.length, "each row has one body");
    const frameOfBody = {
      [t("/net/frame.json?who=same")]: "same",
      [c("/net/frame.json?who=cross")]: "cross",
      [t("/net/srcdoc.json")]: "srcdoc", // its relative URL made absolute against its parent's
    };
    for (const b of bodies) {
      const r = rows.find((x) => x.requestId === b.requestId);
      const what = `${b.url}: ${JSON.stringify({ ...b, requestHeaders: undefined, responseHeaders: undefined })} → ${JSON.stringify(r)}`;
      assert.ok(r, `no row has the body's requestId: ${what}`);
      assert.equal(r.url, b.url, what);
      assert.equal(r.method, b.method, what);
      assert.equal(b.tabId, tabId, what);
      const frame = frameOfBody[b.url] || "top";
      assert.equal(b.frameId, frame === "top" ? undefined : frameOf[frame], `only a subframe's entries name their frame: ${what}`);
      assert.equal(b.frameUrl, frame === "top" ? undefined : urlOf[frame], what);
      if (b.error) assert.ok(r.error, what);
      else if (b.initiator === "beacon") assert.equal(b.queued, true, what); // the page never sees a beacon's answer
      else assert.equal(b.status, r.responseStatus, what);
    }
    const body = (url) => bodies.find((b) => b.url === url);
    assert.deepEqual(JSON.parse(body(t("/net/r1")).responseBody), { path: "/net/final.json", host: "127.0.0.1" });
    assert.match(body(t("/net/hang")).error, /AbortError/);
    assert.equal(JSON.parse(body(c("/net/frame.json?who=cross")).responseBody).who, "cross");
    // The two identical GETs: the first to reach the server was answered last, with 200.
    const twins = bodies.filter((b) => b.url === t("/net/twin")).map((b) => [JSON.parse(b.responseBody).twin, b.status]);
    assert.deepEqual(twins.sort(), [
      [1, 200],
      [2, 201],
    ]);
    log("network page: every body (top frame, same- and cross-site iframe, srcdoc frame, failed, aborted, redirected, twins) joins its row");

    // A frame's logs name the frame; the tab's URL stays the top frame's.
    const logs = await waitFor("the frames' logs", async () => {
      const entries = (await all(client, "logs", { tabId })).filter((e) => e.message.startsWith("network frame"));
      return entries.length === 2 && entries;
    });
    for (const who of ["same", "cross"]) {
      const e = logs.find((x) => x.message === `network frame ${who}`);
      assert.equal(e.frameId, frameOf[who], JSON.stringify(e));
      assert.equal(e.frameUrl, urlOf[who], JSON.stringify(e));
    }
    const tabs = await observe(client, { what: "tabs" });
    const mine = (tabs.tabs || tabs.entries || []).find((x) => x.tabId === tabId);
    assert.equal(mine && mine.url, pageUrl, `the tab is its top frame: ${JSON.stringify(mine)}`);
    log("network page: frames' logs carry frameId and frameUrl; the tab's url is the top frame's");
    await page.close();
  } finally {
    for (const s of [top, cross]) {
      s.server.closeAllConnections();
      s.server.close();
    }
  }
}
