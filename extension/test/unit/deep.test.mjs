// deep_requests.js and browser_log.js, fed event sequences as Chromium 156
// sends them through chrome.debugger (recorded on the network e2e page, ids and
// times shortened).
import { test } from "node:test";
import assert from "node:assert/strict";
import { DeepRequests } from "../../background/deep_requests.js";
import { browserLog } from "../../background/browser_log.js";
import { Deep } from "../../background/deep.js";

const TOP = "E63FE65E537B7C6178B14CC4224BBECA"; // the tab target's id is its top frame's
const PAGE = "http://127.0.0.1:8001/network.html";
const CROSS = "http://127.0.0.2:8002";
const IN_SCOPE = /^https?:\/\/(localhost|[^/]*\.localhost|127\.0\.0\.1|\[::1\])(:\d+)?\//;

function tracker(more = {}) {
  const out = { rows: [], logs: [], left: [] };
  out.t = new DeepRequests({
    ...more,
    tabId: 7,
    mainFrame: TOP,
    inScope: (url) => IN_SCOPE.test(url),
    emitRow: (row, tabId, where) => out.rows.push({ row, tabId, where }),
    emitLog: (entry, tabId, where) => out.logs.push({ entry, tabId, where }),
    leftScope: (url) => out.left.push(url),
    now: () => 1_700_000_009_000,
  });
  out.t.seedFrame(TOP, undefined, PAGE);
  out.send = (session, method, params) => out.t.event(session, method, params);
  out.row = (url, method = "GET") => out.rows.find((r) => r.row.url === url && r.row.method === method);
  return out;
}

// Monotonic seconds and wall seconds of the same instant: the protocol's two clocks.
const T0 = 500;
const WALL0 = 1_700_000_000;
const at = (ms) => ({ timestamp: T0 + ms / 1000, wallTime: WALL0 + ms / 1000 });
const end = (ms) => ({ timestamp: T0 + ms / 1000 });

function willSend(id, url, { method = "GET", type = "Fetch", frameId = TOP, documentURL = PAGE, ms = 0, initiator = { type: "script" }, redirectResponse } = {}) {
  return { requestId: id, loaderId: "L", documentURL, frameId, type, initiator, request: { url, method, headers: {} }, redirectResponse, ...at(ms) };
}
function response(id, { status = 200, statusText = "OK", type = "Fetch", ms = 0, ip = "127.0.0.1", ...extra } = {}) {
  return { requestId: id, type, ...end(ms), response: { url: "", status, statusText, protocol: "http/1.1", remoteIPAddress: ip, fromDiskCache: false, fromServiceWorker: false, ...extra } };
}

test("a 302 → 302 → 200 chain is one row with its hops, times on the wall clock", () => {
  const { send, rows } = tracker();
  const url = (p) => `http://127.0.0.1:8001${p}`;
  send(undefined, "Network.requestWillBeSent", willSend("1.10", url("/net/r1"), { ms: 0 }));
  send(undefined, "Network.requestWillBeSent", willSend("1.10", url("/net/r2"), { ms: 5, redirectResponse: { status: 302, statusText: "Found", protocol: "http/1.1", remoteIPAddress: "127.0.0.1", headers: { Location: "/net/r2" } } }));
  send(undefined, "Network.requestWillBeSent", willSend("1.10", url("/net/final.json"), { ms: 9, redirectResponse: { status: 302, statusText: "Found", protocol: "http/1.1", remoteIPAddress: "127.0.0.1" } }));
  // Headers at 20 ms by the network's clock; the event itself is sent on later.
  send(undefined, "Network.responseReceived", response("1.10", { ms: 29, timing: { requestTime: T0 + 0.009, receiveHeadersEnd: 11 } }));
  send(undefined, "Network.loadingFinished", { requestId: "1.10", ...end(30), encodedDataLength: 56 });
  assert.equal(rows.length, 1);
  const { row, tabId, where } = rows[0];
  assert.equal(tabId, 7);
  assert.deepEqual(where.top, true);
  assert.deepEqual(
    row.redirects.map((h) => [h.url, h.status, h.statusLine, h.location]),
    [
      [url("/net/r1"), 302, "HTTP/1.1 302 Found", url("/net/r2")],
      [url("/net/r2"), 302, "HTTP/1.1 302 Found", url("/net/final.json")],
    ],
  );
  assert.equal(row.finalUrl, url("/net/final.json"));
  assert.deepEqual(
    [row.url, row.method, row.type, row.source, row.responseStatus, row.statusLine, row.ip, row.fromCache, row.frameUrl, row.initiator],
    [url("/net/r1"), "GET", "fetch", "browser", 200, "HTTP/1.1 200 OK", "127.0.0.1", false, PAGE, "http://127.0.0.1:8001"],
  );
  assert.equal(row.startedAt, WALL0 * 1000);
  assert.equal(Math.round(row.responseAt - row.startedAt), 20);
  assert.equal(Math.round(row.duration), 30);
  assert.equal(row.ts, WALL0 * 1000);
  assert.equal(row.requestId, "1.10");
  assert.equal(row.error, undefined);
});

test("a CORS refusal and a preflighted PUT refused by its preflight: the preflight is a row, both refusals explained", () => {
  const { send, rows, logs } = tracker();
  send(undefined, "Network.requestWillBeSent", willSend("1.12", `${CROSS}/net/nocors.json`, { ms: 0 }));
  // The preflight, announced before the PUT it precedes: its own id, no frame, its own URL as
  // documentURL (another origin's, outside the scope), the PUT as initiator.
  send(undefined, "Network.requestWillBeSent", {
    requestId: "6EC1B6F2",
    loaderId: "",
    documentURL: `${CROSS}/net/preflighted.json`,
    type: "Other",
    initiator: { type: "preflight", requestId: "1.13", url: `${CROSS}/net/preflighted.json` },
    request: { url: `${CROSS}/net/preflighted.json`, method: "OPTIONS", headers: { "Access-Control-Request-Method": "PUT" } },
    ...at(2),
  });
  send(undefined, "Network.requestWillBeSent", willSend("1.13", `${CROSS}/net/preflighted.json`, { method: "PUT", ms: 1 }));
  send(undefined, "Network.responseReceived", response("6EC1B6F2", { type: "Preflight", ms: 8, ip: "127.0.0.2" }));
  send(undefined, "Network.loadingFinished", { requestId: "6EC1B6F2", ...end(9) });
  const cspLog = (text, extra) => ({ entry: { level: "error", source: "javascript", category: "cors", text, timestamp: WALL0 * 1000 + 10, url: PAGE, ...extra } });
  send(undefined, "Log.entryAdded", cspLog("Access to fetch at 'http://127.0.0.2:8002/net/preflighted.json' from origin 'http://127.0.0.1:8001' has been blocked by CORS policy: Response to preflight request doesn't pass access control check: No 'Access-Control-Allow-Origin' header is present on the requested resource."));
  send(undefined, "Network.loadingFailed", { requestId: "1.13", ...end(10), errorText: "net::ERR_FAILED", canceled: false, type: "Fetch", corsErrorStatus: { corsError: "PreflightMissingAllowOriginHeader", failedParameter: "" } });
  send(undefined, "Log.entryAdded", { entry: { level: "error", source: "network", category: "cors", networkRequestId: "1.13", text: "Failed to load resource: net::ERR_FAILED", timestamp: WALL0 * 1000 + 11, url: `${CROSS}/net/preflighted.json` } });
  send(undefined, "Network.loadingFailed", { requestId: "1.12", ...end(12), errorText: "net::ERR_FAILED", canceled: false, type: "Fetch", corsErrorStatus: { corsError: "MissingAllowOriginHeader", failedParameter: "" } });

  const options = rows.find((r) => r.row.method === "OPTIONS").row;
  assert.deepEqual(
    [options.url, options.type, options.responseStatus, options.error, options.frameUrl, options.ip],
    [`${CROSS}/net/preflighted.json`, "fetch", 200, undefined, PAGE, "127.0.0.2"],
  );
  assert.equal(rows.find((r) => r.row.method === "OPTIONS").where.top, true, "the preflight is of the PUT's frame");
  const put = rows.find((r) => r.row.method === "PUT").row;
  assert.equal(put.error, `net::ERR_FAILED (CORS: the preflight (OPTIONS) response from ${CROSS} has no Access-Control-Allow-Origin header for http://127.0.0.1:8001)`);
  assert.equal(put.responseStatus, undefined);
  const get = rows.find((r) => r.row.url === `${CROSS}/net/nocors.json`).row;
  assert.equal(get.error, `net::ERR_FAILED (CORS: the response from ${CROSS} has no Access-Control-Allow-Origin header for http://127.0.0.1:8001)`);

  // The browser's own messages, as DevTools shows them; the one about a request is of its frame.
  assert.equal(logs.length, 2);
  assert.deepEqual(
    logs.map((l) => [l.entry.level, l.entry.source, l.entry.url, l.tabId, l.where.top]),
    [
      ["error", "browser", PAGE, 7, true],
      ["error", "browser", `${CROSS}/net/preflighted.json`, 7, true],
    ],
  );
  assert.match(logs[0].entry.message, /has been blocked by CORS policy/);
  assert.equal(logs[0].entry.url, PAGE);
  assert.equal(logs[0].entry.ts, WALL0 * 1000 + 10);
});

test("DNS failure, refused connection, abort, CSP block: Chrome's reason", () => {
  const { send, rows } = tracker();
  const fail = (id, url, failed) => {
    send(undefined, "Network.requestWillBeSent", willSend(id, url, { type: failed.type || "Fetch" }));
    send(undefined, "Network.loadingFailed", { requestId: id, ...end(3), canceled: false, type: "Fetch", ...failed });
  };
  fail("1", "http://gasoline-e2e.invalid/net/x.json", { errorText: "net::ERR_NAME_NOT_RESOLVED" });
  fail("2", "http://127.0.0.1:1/refused", { errorText: "net::ERR_CONNECTION_REFUSED" });
  fail("3", "http://127.0.0.1:8001/net/hang", { errorText: "net::ERR_ABORTED", canceled: true });
  fail("4", `${CROSS}/net/csp.png`, { errorText: "", blockedReason: "csp", type: "Image" });
  assert.deepEqual(
    rows.map((r) => [r.row.type, r.row.error, r.row.responseStatus]),
    [
      ["fetch", "net::ERR_NAME_NOT_RESOLVED", undefined],
      ["fetch", "net::ERR_CONNECTION_REFUSED", undefined],
      ["fetch", "net::ERR_ABORTED", undefined],
      ["image", "blocked:csp", undefined],
    ],
  );
});

test("cache: a disk-cache response and one served from memory say fromCache", () => {
  const { send, rows } = tracker();
  send(undefined, "Network.requestWillBeSent", willSend("1", "http://127.0.0.1:8001/a.js", { type: "Script" }));
  send(undefined, "Network.responseReceived", response("1", { type: "Script", fromDiskCache: true }));
  send(undefined, "Network.loadingFinished", { requestId: "1", ...end(2) });
  send(undefined, "Network.requestWillBeSent", willSend("2", "http://127.0.0.1:8001/b.png", { type: "Image" }));
  send(undefined, "Network.requestServedFromCache", { requestId: "2" });
  send(undefined, "Network.responseReceived", response("2", { type: "Image" }));
  send(undefined, "Network.loadingFinished", { requestId: "2", ...end(2) });
  send(undefined, "Network.requestWillBeSent", willSend("3", "http://127.0.0.1:8001/c.css", { type: "Stylesheet" }));
  send(undefined, "Network.responseReceived", response("3", { type: "Stylesheet" }));
  send(undefined, "Network.loadingFinished", { requestId: "3", ...end(2) });
  assert.deepEqual(rows.map((r) => [r.row.type, r.row.fromCache]), [["script", true], ["image", true], ["stylesheet", false]]);
});

test("a response the page's service worker gave says what answered: its cache, its own code, the network", () => {
  const { send, rows } = tracker();
  const answered = [["1", "cache-storage"], ["2", "fallback-code"], ["3", "network"], ["4", undefined]];
  for (const [id, source] of answered) {
    send(undefined, "Network.requestWillBeSent", willSend(id, `http://127.0.0.1:8001/api/${id}`));
    const sw = source ? { fromServiceWorker: true, serviceWorkerResponseSource: source } : {};
    send(undefined, "Network.responseReceived", response(id, { status: id === "2" ? 503 : 200, ...sw }));
    send(undefined, "Network.loadingFinished", { requestId: id, ...end(2) });
  }
  assert.deepEqual(
    rows.map((r) => [r.row.responseStatus, r.row.fromServiceWorker]),
    [[200, "cache-storage"], [503, "fallback-code"], [200, "network"], [200, undefined]],
  );
});

test("a dedicated worker's requests are its frame's; the page's service worker's belong to no tab", () => {
  const { send, rows } = tracker();
  const W = "B6ED3DE7"; // the worker's target id, also its script request's id
  const SW = "B97A77A8";
  // The worker's script is requested in the page's session and answered in the worker's.
  send(undefined, "Network.requestWillBeSent", willSend(W, "http://127.0.0.1:8001/network-worker.js", { type: "Script", documentURL: "http://127.0.0.1:8001/network-worker.js", initiator: { type: "other" } }));
  send(undefined, "Target.attachedToTarget", {
    sessionId: "S-W",
    targetInfo: { targetId: W, type: "worker", url: "http://127.0.0.1:8001/network-worker.js", parentFrameId: TOP, parentId: TOP },
    waitingForDebugger: true,
  });
  send("S-W", "Network.responseReceived", response(W, { type: "Script" }));
  send("S-W", "Network.loadingFinished", { requestId: W, ...end(5) });
  send("S-W", "Network.requestWillBeSent", willSend("1.27", "http://127.0.0.1:8001/net/worker.json", { frameId: undefined, documentURL: "http://127.0.0.1:8001/network-worker.js", ms: 6 }));
  send("S-W", "Network.responseReceived", response("1.27", { ms: 8 }));
  send("S-W", "Network.loadingFinished", { requestId: "1.27", ...end(9) });
  // The page's service worker is attached under the tab too.
  send(undefined, "Target.attachedToTarget", {
    sessionId: "S-SW",
    targetInfo: { targetId: SW, type: "service_worker", url: "http://127.0.0.1:8001/network-sw.js" },
    waitingForDebugger: true,
  });
  send("S-SW", "Network.requestWillBeSent", willSend(SW, "http://127.0.0.1:8001/network-sw.js", { type: "Script", frameId: undefined, documentURL: "http://127.0.0.1:8001/network-sw.js", initiator: { type: "other", url: PAGE } }));
  send("S-SW", "Network.responseReceived", response(SW, { type: "Script" }));
  send("S-SW", "Network.loadingFinished", { requestId: SW, ...end(3) });
  send("S-SW", "Network.requestWillBeSent", willSend("1.28", "http://127.0.0.1:8001/net/sw.json", { frameId: undefined, documentURL: "http://127.0.0.1:8001/network-sw.js" }));
  send("S-SW", "Network.responseReceived", response("1.28"));
  send("S-SW", "Network.loadingFinished", { requestId: "1.28", ...end(4) });

  const byUrl = Object.fromEntries(rows.map((r) => [r.row.url.replace("http://127.0.0.1:8001", ""), r]));
  for (const path of ["/network-worker.js", "/net/worker.json"]) {
    const r = byUrl[path];
    assert.equal(r.tabId, 7, path);
    assert.equal(r.where.top, true, `${path}: the frame that started the worker`);
    assert.equal(r.row.frameUrl, PAGE, path);
    assert.equal(r.row.responseStatus, 200, path);
  }
  assert.equal(byUrl["/network-worker.js"].row.type, "script");
  // The worker's own request says which worker made it; its script, which the page asked for, does not.
  assert.equal(byUrl["/net/worker.json"].row.fromWorker, "http://127.0.0.1:8001/network-worker.js");
  assert.equal(byUrl["/network-worker.js"].row.fromWorker, undefined);
  // So does the service worker's (its fetch behind a page's cached answer), not its script.
  assert.equal(byUrl["/net/sw.json"].row.fromWorker, "http://127.0.0.1:8001/network-sw.js");
  assert.equal(byUrl["/network-sw.js"].row.fromWorker, undefined);
  for (const path of ["/network-sw.js", "/net/sw.json"]) {
    const r = byUrl[path];
    assert.equal(r.tabId, null, path);
    assert.deepEqual(r.where, { serviceWorker: true }, path);
    assert.equal(r.row.frameUrl, undefined, path);
    assert.equal(r.row.initiator, "http://127.0.0.1:8001", path);
  }
});

test("a worker terminated before it read its answers: the answered request is a row, the unanswered one failed with it", () => {
  const { send, rows } = tracker();
  const W = "C7FE4E19";
  const WORKER = "http://127.0.0.1:8001/worker.js";
  send(undefined, "Target.attachedToTarget", { sessionId: "S-W", targetInfo: { targetId: W, type: "worker", url: WORKER, parentFrameId: TOP }, waitingForDebugger: true });
  send("S-W", "Network.requestWillBeSent", willSend("2.1", "http://127.0.0.1:8001/api/worker-broken", { frameId: undefined, documentURL: WORKER, ms: 10 }));
  send("S-W", "Network.responseReceived", response("2.1", { status: 503, statusText: "Service Unavailable", ms: 14 }));
  send("S-W", "Network.requestWillBeSent", willSend("2.2", "http://127.0.0.1:8001/api/slow", { frameId: undefined, documentURL: WORKER, ms: 12 }));
  // The page calls worker.terminate(): Chrome ends the session, and says nothing more of either request.
  send(undefined, "Target.detachedFromTarget", { sessionId: "S-W", targetId: W });
  const byUrl = Object.fromEntries(rows.map((r) => [r.row.url.replace("http://127.0.0.1:8001", ""), r.row]));
  assert.deepEqual(Object.keys(byUrl).sort(), ["/api/slow", "/api/worker-broken"]);
  assert.equal(byUrl["/api/worker-broken"].responseStatus, 503);
  assert.equal(byUrl["/api/worker-broken"].error, undefined, "answered: its status says what became of it");
  assert.equal(byUrl["/api/worker-broken"].fromWorker, WORKER);
  assert.equal(byUrl["/api/slow"].error, "net::ERR_ABORTED (its worker ended before the answer came)");
  assert.equal(rows.every((r) => r.tabId === 7), true);
});

test("a worker's own console and a service worker's uncaught error are logs entries, written as the page's are; Chrome's text copy of a worker's console is not", () => {
  const { send, logs } = tracker();
  const W = "http://127.0.0.1:8001/w.js";
  const SW = "http://127.0.0.1:8001/sw.js";
  send(undefined, "Target.attachedToTarget", { sessionId: "S-W", targetInfo: { targetId: "W", type: "worker", url: W, parentFrameId: TOP }, waitingForDebugger: true });
  send(undefined, "Target.attachedToTarget", { sessionId: "S-SW", targetInfo: { targetId: "SW", type: "service_worker", url: SW }, waitingForDebugger: true });
  send(undefined, "Target.attachedToTarget", { sessionId: "S-X", targetInfo: { targetId: "X", type: "worker", url: `${CROSS}/x.js`, parentFrameId: TOP }, waitingForDebugger: true });
  const frame = (url, line, col, functionName = "onmessage") => ({ callFrames: [{ functionName, scriptId: "3", url, lineNumber: line, columnNumber: col }] });
  // As Chromium 156 sends console.log("worker log %d items", 3, {a: 1, b: "x", c: [1, 2], d: {e: 1}}, [1, "two"], null, undefined, 1n).
  send("S-W", "Runtime.consoleAPICalled", {
    type: "log",
    timestamp: 1_700_000_001_234.5,
    stackTrace: frame(W, 0, 156),
    args: [
      { type: "string", value: "worker log %d items" },
      { type: "number", value: 3, description: "3" },
      { type: "object", className: "Object", description: "Object", preview: { type: "object", description: "Object", overflow: false, properties: [
        { name: "a", type: "number", value: "1" },
        { name: "b", type: "string", value: "x" },
        { name: "c", type: "object", value: "Array(2)", subtype: "array" },
        { name: "d", type: "object", value: "Object" },
      ] } },
      { type: "object", subtype: "array", className: "Array", description: "Array(2)", preview: { type: "object", subtype: "array", description: "Array(2)", overflow: false, properties: [
        { name: "0", type: "number", value: "1" },
        { name: "1", type: "string", value: "two" },
      ] } },
      { type: "object", subtype: "null", value: null },
      { type: "undefined" },
      { type: "bigint", unserializableValue: "1n", description: "1n" },
    ],
  });
  send("S-W", "Runtime.consoleAPICalled", { type: "assert", timestamp: 1_700_000_001_300, stackTrace: frame(W, 4, 2), args: [{ type: "string", value: "cart is empty" }] });
  send("S-W", "Runtime.consoleAPICalled", { type: "endGroup", timestamp: 1_700_000_001_301, args: [] });
  // Its uncaught error reaches the page's own error listener: not taken twice.
  send("S-W", "Runtime.exceptionThrown", { timestamp: 1_700_000_001_400, exceptionDetails: { text: "Uncaught", exception: { type: "object", subtype: "error", description: "Error: worker boom" } } });
  // Chrome's copy of the worker's console in the page's session: text only, console.log as "info".
  send(undefined, "Log.entryAdded", { entry: { source: "worker", level: "info", text: "worker log 3 items [object Object]", url: W, timestamp: 1_700_000_001_235 } });
  send("S-SW", "Runtime.consoleAPICalled", { type: "warning", timestamp: 1_700_000_002_000, stackTrace: frame(SW, 2, 98, ""), args: [{ type: "string", value: "network failed for /api/items" }] });
  send("S-SW", "Runtime.exceptionThrown", {
    timestamp: 1_700_000_002_100,
    exceptionDetails: {
      text: "Uncaught (in promise)",
      url: SW,
      lineNumber: 9,
      columnNumber: 40,
      stackTrace: frame(SW, 9, 40, "respond"),
      exception: { type: "object", subtype: "error", className: "TypeError", description: `TypeError: Cannot read properties of undefined (reading 'body')\n    at respond (${SW}:10:41)` },
    },
  });
  // A worker of an origin outside the scope, and the page's own session (its console is the page's wrappers').
  send("S-X", "Runtime.consoleAPICalled", { type: "log", timestamp: 1, args: [{ type: "string", value: "outside" }] });
  send(undefined, "Runtime.consoleAPICalled", { type: "log", timestamp: 1, args: [{ type: "string", value: "page" }] });

  assert.deepEqual(
    logs.map((l) => [l.tabId, l.where.serviceWorker ? "service worker" : l.where.top ? "top" : "?", l.entry]),
    [
      [7, "top", {
        level: "log",
        message: 'worker log 3 items {"a":1,"b":"x","c":Array(2),"d":{…}} [1,"two"] null undefined 1n',
        source: "console",
        url: W,
        worker: "dedicated",
        ts: 1_700_000_001_235,
        location: `${W}:1:157`,
      }],
      [7, "top", {
        level: "error",
        message: "Assertion failed: cart is empty",
        source: "console",
        url: W,
        worker: "dedicated",
        ts: 1_700_000_001_300,
        method: "assert",
        location: `${W}:5:3`,
        stack: `    at onmessage (${W}:5:3)`,
      }],
      [null, "service worker", { level: "warn", message: "network failed for /api/items", source: "console", url: SW, worker: "service", ts: 1_700_000_002_000, location: `${SW}:3:99` }],
      [null, "service worker", {
        level: "error",
        message: "Uncaught (in promise) TypeError: Cannot read properties of undefined (reading 'body')",
        source: "unhandledrejection",
        url: SW,
        worker: "service",
        ts: 1_700_000_002_100,
        location: `${SW}:10:41`,
        stack: `    at respond (${SW}:10:41)`,
      }],
    ],
  );
});

test("a frame of an origin outside the scope leaves no rows and no messages; the page's requests to that origin stay", () => {
  const { t, send, rows, logs } = tracker();
  const OOPIF = "BCDBB905";
  const SAME = "DA7A62FC";
  const SRCDOC = "F9E2F3AA";
  send(undefined, "Page.frameAttached", { frameId: SAME, parentFrameId: TOP });
  send(undefined, "Page.frameAttached", { frameId: SRCDOC, parentFrameId: TOP });
  send(undefined, "Page.frameAttached", { frameId: OOPIF, parentFrameId: TOP });
  // The cross-site frame's document is requested in the page's session, under the frame's id.
  send(undefined, "Network.requestWillBeSent", willSend("6955", `${CROSS}/network-frame.html?who=cross`, { type: "Document", frameId: OOPIF, documentURL: `${CROSS}/network-frame.html?who=cross` }));
  send(undefined, "Target.attachedToTarget", {
    sessionId: "S-F",
    targetInfo: { targetId: OOPIF, type: "iframe", url: "", parentFrameId: TOP, parentId: TOP },
    waitingForDebugger: true,
  });
  assert.equal(t.sessionInScope("S-F"), false, "the frame's own origin decides, before it commits");
  send(undefined, "Network.responseReceived", response("6955", { type: "Document" }));
  send("S-F", "Network.loadingFinished", { requestId: "6955", ...end(4) });
  send("S-F", "Network.requestWillBeSent", willSend("2.4", `${CROSS}/net/frame.json?who=cross`, { type: "XHR", frameId: OOPIF, documentURL: `${CROSS}/network-frame.html?who=cross` }));
  send("S-F", "Network.responseReceived", response("2.4", { type: "XHR" }));
  send("S-F", "Network.loadingFinished", { requestId: "2.4", ...end(6) });
  send("S-F", "Log.entryAdded", { entry: { level: "error", source: "network", text: "Failed to load resource", url: `${CROSS}/x`, timestamp: 1 } });
  // A worker that frame started is its origin's too.
  send("S-F", "Target.attachedToTarget", { sessionId: "S-FW", targetInfo: { targetId: "FW", type: "worker", url: `${CROSS}/w.js`, parentFrameId: OOPIF } });
  assert.equal(t.sessionInScope("S-FW"), false);
  // The page's own request to the other origin, a same-origin frame's, and a srcdoc frame's (its parent's origin) stay.
  send(undefined, "Network.requestWillBeSent", willSend("1.12", `${CROSS}/net/nocors.json`));
  send(undefined, "Network.responseReceived", response("1.12"));
  send(undefined, "Network.loadingFinished", { requestId: "1.12", ...end(7) });
  send(undefined, "Network.requestWillBeSent", willSend("60ED", "http://127.0.0.1:8001/network-frame.html?who=same", { type: "Document", frameId: SAME, documentURL: "http://127.0.0.1:8001/network-frame.html?who=same" }));
  send(undefined, "Network.responseReceived", response("60ED", { type: "Document" }));
  send(undefined, "Network.loadingFinished", { requestId: "60ED", ...end(8) });
  send(undefined, "Network.requestWillBeSent", willSend("1.21", "http://127.0.0.1:8001/net/srcdoc.json", { frameId: SRCDOC, documentURL: "about:srcdoc" }));
  send(undefined, "Network.responseReceived", response("1.21"));
  send(undefined, "Network.loadingFinished", { requestId: "1.21", ...end(9) });

  assert.deepEqual(
    rows.map((r) => [r.row.url, r.row.type, r.row.frameUrl, r.where.top, r.where.parentTop]),
    [
      [`${CROSS}/net/nocors.json`, "fetch", PAGE, true, false],
      ["http://127.0.0.1:8001/network-frame.html?who=same", "sub_frame", "http://127.0.0.1:8001/network-frame.html?who=same", false, true],
      ["http://127.0.0.1:8001/net/srcdoc.json", "fetch", "about:srcdoc", false, true],
    ],
  );
  assert.equal(rows[1].row.initiator, "http://127.0.0.1:8001", "a frame's document is requested by its parent");
  assert.deepEqual(logs, []);
});

test("the top frame going out of the scope is reported and leaves no row", () => {
  const { send, rows, left } = tracker();
  send(undefined, "Network.requestWillBeSent", willSend("D1", "http://127.0.0.1:8001/next.html", { type: "Document", documentURL: "http://127.0.0.1:8001/next.html" }));
  send(undefined, "Network.requestWillBeSent", willSend("D1", "https://example.com/", { type: "Document", documentURL: "https://example.com/", redirectResponse: { status: 302, protocol: "http/1.1" } }));
  send(undefined, "Network.loadingFinished", { requestId: "D1", ...end(3) });
  // Where the redirect ended: the tab commits a page outside the scope.
  send(undefined, "Page.frameNavigated", { frame: { id: TOP, url: "https://example.com/" } });
  send(undefined, "Network.requestWillBeSent", willSend("D2", "https://example.org/", { type: "Document", documentURL: "https://example.org/" }));
  // Back to a page in the back/forward cache: no request, only the commit.
  send(undefined, "Page.frameNavigated", { frame: { id: TOP, url: "https://example.net/", loaderId: "x" }, type: "BackForwardCacheRestore" });
  // A local server that is down: the error page commits, the page asked for is still in scope.
  send(undefined, "Page.frameNavigated", { frame: { id: TOP, url: "chrome-error://chromewebdata/", unreachableUrl: "http://localhost:5173/" } });
  assert.deepEqual(left, ["https://example.com/", "https://example.org/", "https://example.net/"]);
  assert.deepEqual(rows, []);
});

test("a navigation bounced through a site outside the scope and back (single sign-on) keeps the view and its chain", () => {
  const { send, rows, left } = tracker();
  const doc = (url, extra) => willSend("D9", url, { type: "Document", documentURL: url, ...extra });
  send(undefined, "Network.requestWillBeSent", doc("http://127.0.0.1:8001/go-out"));
  send(undefined, "Network.requestWillBeSent", doc("https://auth.example/bounce", { redirectResponse: { status: 302, protocol: "http/1.1" } }));
  send(undefined, "Network.requestWillBeSent", doc("http://127.0.0.1:8001/back", { redirectResponse: { status: 302, protocol: "http/1.1" } }));
  send(undefined, "Network.responseReceived", { ...response("D9", { type: "Document", ms: 4 }), response: { url: "http://127.0.0.1:8001/back", status: 200, statusText: "OK", protocol: "http/1.1" } });
  send(undefined, "Network.loadingFinished", { requestId: "D9", ...end(5) });
  send(undefined, "Page.frameNavigated", { frame: { id: TOP, url: "http://127.0.0.1:8001/back" } });
  assert.deepEqual(left, []);
  assert.equal(rows.length, 1);
  assert.deepEqual(
    rows[0].row.redirects.map((h) => [h.url, h.status, h.location]),
    [
      ["http://127.0.0.1:8001/go-out", 302, "https://auth.example/bounce"],
      ["https://auth.example/bounce", 302, "http://127.0.0.1:8001/back"],
    ],
  );
});

test("requests in flight are offered to bodies; a response to a request seen mid-way still makes a row", () => {
  const { t, send, rows } = tracker();
  send(undefined, "Network.requestWillBeSent", willSend("1.40", "http://127.0.0.1:8001/stream", { type: "Fetch" }));
  send(undefined, "Network.responseReceived", response("1.40"));
  assert.deepEqual([...t.inFlight()], [{ requestId: "1.40", tabId: 7, method: "GET", url: "http://127.0.0.1:8001/stream", status: 200, frameUrl: PAGE }]);
  // Attached while this one was already under way.
  send(undefined, "Network.responseReceived", { ...response("1.41", { type: "Script", ms: 40 }), frameId: TOP, response: { url: "http://127.0.0.1:8001/late.js", status: 200, statusText: "OK", protocol: "http/1.1" } });
  send(undefined, "Network.loadingFinished", { requestId: "1.41", ...end(50) });
  assert.deepEqual([rows[0].row.url, rows[0].row.startUnknown, rows[0].row.duration, rows[0].row.type], ["http://127.0.0.1:8001/late.js", true, undefined, "script"]);
  // data: and the like are not the network.
  send(undefined, "Network.requestWillBeSent", willSend("1.42", "data:image/png;base64,AAAA", { type: "Image" }));
  send(undefined, "Network.loadingFinished", { requestId: "1.42", ...end(51) });
  assert.equal(rows.length, 1);
});

test("a WebSocket's handshake is a row", () => {
  const { send, rows } = tracker();
  send(undefined, "Network.webSocketCreated", { requestId: "9.1", url: "ws://127.0.0.1:8001/echo", initiator: { type: "script" } });
  send(undefined, "Network.requestWillBeSent", willSend("0.0", "http://127.0.0.1:8001/ignored-for-clock"));
  send(undefined, "Network.webSocketWillSendHandshakeRequest", { requestId: "9.1", ...at(1), request: { headers: {} } });
  send(undefined, "Network.webSocketHandshakeResponseReceived", { requestId: "9.1", ...end(4), response: { status: 101, statusText: "Switching Protocols", headers: {} } });
  assert.deepEqual(
    [rows[0].row.type, rows[0].row.responseStatus, rows[0].row.statusLine, Math.round(rows[0].row.duration)],
    ["websocket", 101, "HTTP/1.1 101 Switching Protocols", 3],
  );
});

test("a browser message is attributed to a same-process frame by its document's URL", () => {
  const { send, logs } = tracker();
  send(undefined, "Page.frameAttached", { frameId: "SUB", parentFrameId: TOP });
  send(undefined, "Page.frameNavigated", { frame: { id: "SUB", parentId: TOP, url: "http://127.0.0.1:8001/sub.html" } });
  send(undefined, "Log.entryAdded", { entry: { level: "warning", source: "security", text: "Mixed content", url: "http://127.0.0.1:8001/sub.html", timestamp: 5 } });
  send(undefined, "Log.entryAdded", { entry: { level: "verbose", source: "violation", text: "[Violation] 'load' handler took 200ms", timestamp: 6 } });
  assert.deepEqual(logs.map((l) => [l.entry.level, l.where.frame, l.where.top]), [["warn", "SUB", false], ["debug", TOP, true]]);
});

test("a message logged before the deep view began, which Chrome hands over on enable, is not taken; one after it is", () => {
  const { send, logs } = tracker({ begun: 1_700_000_005_000 });
  send(undefined, "Target.attachedToTarget", { sessionId: "S-W", targetInfo: { targetId: "W", type: "worker", url: "http://127.0.0.1:8001/w.js" } });
  // Logged while the person had not asked for the view (perhaps while capture was paused).
  send(undefined, "Log.entryAdded", { entry: { level: "error", source: "network", text: "before", url: PAGE, timestamp: 1_700_000_004_999 } });
  send("S-W", "Runtime.consoleAPICalled", { type: "log", timestamp: 1_700_000_004_000, args: [{ type: "string", value: "worker before" }] });
  send(undefined, "Log.entryAdded", { entry: { level: "error", source: "network", text: "after", url: PAGE, timestamp: 1_700_000_005_000 } });
  send("S-W", "Runtime.consoleAPICalled", { type: "log", timestamp: 1_700_000_006_000, args: [{ type: "string", value: "worker after" }] });
  assert.deepEqual(logs.map((l) => l.entry.message), ["after", "worker after"]);
});

test("browserLog: levels as the logs kind has them, the line counted from 1, the stack as text, a long message cut", () => {
  const e = browserLog({
    source: "intervention",
    level: "warning",
    text: "x".repeat(20000),
    timestamp: 1700000000123.6,
    url: "http://127.0.0.1:8001/app.js",
    lineNumber: 9,
    stackTrace: { callFrames: [{ functionName: "", url: "http://127.0.0.1:8001/app.js", lineNumber: 9, columnNumber: 4 }] },
  });
  assert.deepEqual(
    [e.level, e.source, e.ts, e.location, e.stack, e.message.length, e.messageTruncated],
    ["warn", "browser", 1700000000124, "http://127.0.0.1:8001/app.js:10", "    at <anonymous> (http://127.0.0.1:8001/app.js:10:5)", 16384, true],
  );
  assert.deepEqual(
    ["verbose", "info", "warning", "error", "other"].map((level) => browserLog({ level, text: "", timestamp: 1 }).level),
    ["debug", "info", "warn", "error", "log"],
  );
});

// ---- deep.js: the debugger sessions, with a fake chrome.debugger -------------------------

function fakeDebugger(targets) {
  const d = { attached: new Set(), commands: [], events: [], detaches: [], failAttach: null };
  d.api = {
    onEvent: { addListener: (fn) => (d.emit = fn) },
    onDetach: { addListener: (fn) => (d.detachEvent = fn) },
    getTargets: async () => targets,
    // A tab by its id, a shared worker by its target id (as "target:<id>").
    attach: async ({ tabId, targetId }) => {
      const key = tabId ?? `target:${targetId}`;
      if (d.failAttach) throw new Error(d.failAttach);
      if (d.attached.has(key)) throw new Error(`Another debugger is already attached to the tab with id: ${key}.`);
      d.attached.add(key);
    },
    detach: async ({ tabId, targetId }) => {
      const key = tabId ?? `target:${targetId}`;
      if (!d.attached.delete(key)) throw new Error("Debugger is not attached");
      d.detaches.push(key);
    },
    sendCommand: async (debuggee, method, params) => {
      d.commands.push([debuggee.sessionId || debuggee.tabId || `target:${debuggee.targetId}`, method, params]);
      const answer = d.answers?.[method];
      return typeof answer === "function" ? answer(debuggee, params) : answer;
    },
  };
  return d;
}

function deepWith(targets, stored = {}) {
  const d = fakeDebugger(targets);
  const session = new Map(Object.entries(stored));
  const out = { d, rows: [], logs: [], changes: [], messages: [], session };
  out.deep = new Deep({
    debugger: () => d.api,
    storage: { get: async (k) => ({ [k]: session.get(k) }), set: async (o) => Object.entries(o).forEach(([k, v]) => session.set(k, v)) },
    inScope: (url) => IN_SCOPE.test(url),
    excluded: (url) => url.startsWith("http://127.0.0.1:7890/") || url.startsWith("chrome-extension://"),
    emitRow: (row, tabId, where) => out.rows.push({ row, tabId, where }),
    emitLog: (entry, tabId, where) => out.logs.push({ entry, tabId, where }),
    log: (level, message) => out.messages.push([level, message]),
  });
  out.deep.onChange((c) => out.changes.push(c));
  return out;
}

const page = (tabId, url, id = `T${tabId}`) => ({ id, tabId, type: "page", url, attached: false });

test("deep: attaches a tab in scope with Page, Network, Log and auto-attach; refuses one outside it or excluded", async () => {
  const { deep, d, changes, session } = deepWith([page(1, PAGE), page(2, "https://example.com/"), page(3, "http://127.0.0.1:7890/health")]);
  await deep.start();
  assert.deepEqual(await deep.attach(1), { ok: true });
  assert.deepEqual(
    d.commands.map((c) => c.slice(0, 2)),
    [[1, "Page.enable"], [1, "Network.enable"], [1, "Log.enable"], [1, "Target.setAutoAttach"]],
  );
  assert.deepEqual(d.commands[3][2], { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
  assert.match((await deep.attach(2)).error, /https:\/\/example\.com is outside the capture scope/);
  assert.match((await deep.attach(3)).error, /never watched/);
  assert.match((await deep.attach(4)).error, /no tab 4/);
  assert.deepEqual([deep.isDeep(1), deep.isDeep(2), deep.deepTabs()], [true, false, [1]]);
  assert.deepEqual(changes, [{ tabId: 1, deep: true, reason: "attached" }]);
  assert.deepEqual(session.get("deepTabs"), [1]);
});

test("deep: a worker and an in-scope iframe are enabled and resumed, an out-of-scope iframe only resumed", async () => {
  const { deep, d, rows } = deepWith([page(1, PAGE, TOP)]);
  await deep.attach(1);
  d.commands.length = 0;
  d.emit({ tabId: 1 }, "Target.attachedToTarget", { sessionId: "W", waitingForDebugger: true, targetInfo: { targetId: "w", type: "worker", url: "http://127.0.0.1:8001/w.js", parentFrameId: TOP } });
  d.emit({ tabId: 1 }, "Network.requestWillBeSent", willSend("D", `${CROSS}/f.html`, { type: "Document", frameId: "OOPIF", documentURL: `${CROSS}/f.html` }));
  d.emit({ tabId: 1 }, "Target.attachedToTarget", { sessionId: "F", waitingForDebugger: true, targetInfo: { targetId: "OOPIF", type: "iframe", url: "", parentFrameId: TOP } });
  d.emit({ tabId: 1 }, "Target.attachedToTarget", { sessionId: "G", waitingForDebugger: true, targetInfo: { targetId: "G1", type: "iframe", url: "", parentFrameId: TOP } });
  assert.deepEqual(d.commands.map((c) => c.slice(0, 2)), [
    ["W", "Network.enable"],
    ["W", "Log.enable"],
    ["W", "Runtime.enable"],
    ["W", "Target.setAutoAttach"],
    ["W", "Runtime.runIfWaitingForDebugger"],
    ["F", "Runtime.runIfWaitingForDebugger"],
    // Not known yet: enabled, its rows judged one by one.
    ["G", "Page.enable"],
    ["G", "Network.enable"],
    ["G", "Log.enable"],
    ["G", "Target.setAutoAttach"],
    ["G", "Runtime.runIfWaitingForDebugger"],
  ]);
  // The out-of-scope frame's document row is dropped; a worker's request reaches emitRow.
  d.emit({ tabId: 1, sessionId: "F" }, "Network.loadingFinished", { requestId: "D", ...end(3) });
  d.emit({ tabId: 1, sessionId: "W" }, "Network.requestWillBeSent", willSend("w1", "http://127.0.0.1:8001/x.json", { frameId: undefined, documentURL: "http://127.0.0.1:8001/w.js" }));
  d.emit({ tabId: 1, sessionId: "W" }, "Network.loadingFinished", { requestId: "w1", ...end(4) });
  assert.deepEqual(rows.map((r) => r.row.url), ["http://127.0.0.1:8001/x.json"]);
});

test("deep: one tab's session records the service worker both tabs share", async () => {
  const { deep, d } = deepWith([page(1, PAGE, "T1"), page(2, PAGE, "T2")]);
  await deep.attach(1);
  await deep.attach(2);
  d.commands.length = 0;
  const sw = { targetId: "SW", type: "service_worker", url: "http://127.0.0.1:8001/sw.js" };
  d.emit({ tabId: 1 }, "Target.attachedToTarget", { sessionId: "S1", waitingForDebugger: true, targetInfo: sw });
  d.emit({ tabId: 2 }, "Target.attachedToTarget", { sessionId: "S2", waitingForDebugger: true, targetInfo: sw });
  assert.deepEqual(d.commands.map((c) => c.slice(0, 2)), [
    ["S1", "Network.enable"],
    ["S1", "Log.enable"],
    ["S1", "Runtime.enable"],
    ["S1", "Runtime.runIfWaitingForDebugger"],
    ["S2", "Runtime.runIfWaitingForDebugger"],
  ]);
});

test("deep: the tab going out of scope detaches it; the banner closed is reported; the chosen tabs come back after a restart", async () => {
  const targets = [page(1, PAGE, TOP), page(2, PAGE, "T2"), page(3, "http://localhost:3000/", "T3")];
  const first = deepWith(targets);
  await first.deep.attach(1);
  await first.deep.attach(2);
  await first.deep.attach(3);
  first.d.emit({ tabId: 1 }, "Network.requestWillBeSent", willSend("N", "https://example.com/", { type: "Document", documentURL: "https://example.com/" }));
  while (first.messages.length === 0) await new Promise((r) => setImmediate(r));
  assert.deepEqual(first.d.detaches, [1]);
  first.d.attached.delete(2);
  first.d.detachEvent({ tabId: 2 }, "canceled_by_user");
  assert.deepEqual(first.deep.deepTabs(), [3]);
  assert.deepEqual(
    first.changes.slice(3).map((c) => [c.tabId, c.deep, c.reason]),
    [
      [1, false, "the tab went to a site outside the capture scope"],
      [2, false, "the debugging banner was closed, or DevTools took the tab"],
    ],
  );
  // Both said in the extension's log (which the server stores): the site outside the scope is not named.
  assert.deepEqual(
    first.messages.map(([, m]) => m),
    ["deep view of tab 1 ended: the tab went to a site outside the capture scope", "deep view of tab 2 ended: the debugging banner was closed, or DevTools took the tab"],
  );
  // The popup says why, until the person turns it on again; the person's own "off" is not an ending to explain.
  assert.equal(await first.deep.endedWhy(1), "the tab went to a site outside the capture scope");
  assert.equal(await first.deep.endedWhy(2), "the debugging banner was closed, or DevTools took the tab");
  await first.deep.detach(3, "turned off");
  assert.equal(await first.deep.endedWhy(3), undefined);
  await first.deep.attach(3);
  await first.deep.attach(2);
  assert.equal(await first.deep.endedWhy(2), undefined, "attached again: nothing to explain");
  assert.equal(await first.deep.endedWhy(1), "the tab went to a site outside the capture scope");
  // A new worker: tab 3 still chosen, its old session still held by this extension.
  const again = deepWith(targets, { deepTabs: [3, 9] });
  again.d.attached.add(3);
  await again.deep.start();
  assert.deepEqual(again.deep.deepTabs(), [3]);
  assert.deepEqual(again.session.get("deepTabs"), [3]);
  assert.deepEqual(again.changes, [{ tabId: 3, deep: true, reason: "restored after the service worker started again" }]);
  assert.match(again.messages[0][1], /tab 9 not restored: no tab 9/);
});

test("deep: without the debugger permission nothing attaches; a scope change lets go of a tab now outside it", async () => {
  const none = new Deep({ debugger: () => undefined, storage: { get: async () => ({}), set: async () => {} }, inScope: () => true, excluded: () => false, emitRow() {}, emitLog() {}, log() {} });
  await none.start();
  assert.match((await none.attach(1)).error, /permission/);
  let scope = true;
  const { deep, changes } = deepWith([page(1, PAGE)]);
  deep.io.inScope = (url) => scope && IN_SCOPE.test(url);
  await deep.attach(1);
  scope = false;
  await deep.recheck();
  assert.deepEqual(deep.deepTabs(), []);
  assert.match(changes[1].reason, /left the capture scope \(turned off, or capture paused\)/);
  assert.equal(await deep.endedWhy(1), changes[1].reason);
});

// ---- shared workers: no target of the tab's, attached by their target id -----------------
const SHARED_URL = "http://127.0.0.1:8001/shared.js";
const settle = () => new Promise((r) => setTimeout(r, 0));
const scriptOf = (id, url) => willSend(id, url, { type: "Script", documentURL: url, initiator: { type: "script" } });

test("deep: a shared worker whose script the tab requests is attached by its target id; its requests are the tab's, in the frame that started it", async () => {
  const shared = { id: "SHW", type: "worker", url: SHARED_URL, attached: false };
  const targets = [page(1, PAGE, TOP), { id: "OUT", type: "worker", url: "https://example.com/s.js", attached: false }];
  const { deep, d, rows } = deepWith(targets);
  await deep.attach(1);
  await settle();
  targets.push(shared); // started by the page once its view is on
  d.commands.length = 0;
  // A dedicated worker's script: not listed by getTargets (auto-attach brings it), nothing attached.
  d.emit({ tabId: 1 }, "Network.requestWillBeSent", scriptOf("DW", "http://127.0.0.1:8001/dedicated.js"));
  // A shared worker outside the scope: never attached.
  d.emit({ tabId: 1 }, "Network.requestWillBeSent", scriptOf("OW", "https://example.com/s.js"));
  // A classic script of the page (its document is the page): not a worker's.
  d.emit({ tabId: 1 }, "Network.requestWillBeSent", willSend("CS", SHARED_URL, { type: "Script" }));
  await settle();
  assert.deepEqual([...d.attached], [1]);
  d.emit({ tabId: 1 }, "Network.requestWillBeSent", scriptOf("SHW", SHARED_URL));
  await settle();
  assert.deepEqual([...d.attached], [1, "target:SHW"]);
  assert.deepEqual(d.commands.map((c) => c.slice(0, 2)), [
    ["target:SHW", "Network.enable"],
    ["target:SHW", "Log.enable"],
    ["target:SHW", "Runtime.enable"],
    ["target:SHW", "Target.setAutoAttach"],
    ["target:SHW", "Runtime.runIfWaitingForDebugger"],
    // What it fetched before the attach, from its own Resource Timing (nothing, here).
    ["target:SHW", "Runtime.evaluate"],
  ]);
  // Its script is answered in its own session, then its fetch.
  d.emit({ targetId: "SHW" }, "Network.responseReceived", response("SHW", { type: "Script", ms: 3 }));
  d.emit({ targetId: "SHW" }, "Network.loadingFinished", { requestId: "SHW", ...end(4) });
  d.emit({ targetId: "SHW" }, "Network.requestWillBeSent", willSend("s1", "http://127.0.0.1:8001/net/shared.json", { frameId: undefined, documentURL: SHARED_URL, ms: 5 }));
  d.emit({ targetId: "SHW" }, "Network.responseReceived", response("s1", { ms: 6 }));
  d.emit({ targetId: "SHW" }, "Network.loadingFinished", { requestId: "s1", ...end(7) });
  // Another target's events (not ours) are not the tab's.
  d.emit({ targetId: "OUT" }, "Network.requestWillBeSent", willSend("o1", "http://127.0.0.1:8001/net/other.json", { frameId: undefined }));
  d.emit({ targetId: "OUT" }, "Network.loadingFinished", { requestId: "o1", ...end(8) });
  assert.deepEqual(
    rows.map((r) => [r.row.url, r.row.type, r.row.responseStatus, r.tabId, r.where.frame, r.row.frameUrl]),
    [
      [SHARED_URL, "script", 200, 1, TOP, PAGE],
      ["http://127.0.0.1:8001/net/shared.json", "fetch", 200, 1, TOP, PAGE],
    ],
  );
  // The same script asked again (another page of the tab): attached once.
  d.emit({ tabId: 1 }, "Network.requestWillBeSent", scriptOf("SHW", SHARED_URL));
  await settle();
  assert.equal(d.detaches.length, 0);
  assert.deepEqual([...d.attached], [1, "target:SHW"]);
});

test("deep: what a shared worker fetched before it was attached is read back from its Resource Timing, each missed request once", async () => {
  const shared = { id: "SHW", type: "worker", url: SHARED_URL, attached: false };
  const { deep, d, rows } = deepWith([page(1, PAGE, TOP), shared]);
  const json = "http://127.0.0.1:8001/net/shared.json";
  const again = "http://127.0.0.1:8001/net/again.json";
  // Its buffer: the first start's fetch (missed), a fetch the session saw, the same URL again
  // (seen), a data: URL (no request of the network) and a URL outside nothing (in scope).
  const t0 = 1_700_000_000_000;
  d.answers = {
    "Runtime.evaluate": {
      result: {
        value: {
          timeOrigin: t0,
          entries: [
            { url: json, initiatorType: "fetch", startTime: 5, responseStart: 8, responseEnd: 9, responseStatus: 200, transferSize: 300, decodedBodySize: 20 },
            { url: again, initiatorType: "fetch", startTime: 10, responseEnd: 12, responseStatus: 200 },
            { url: json, initiatorType: "fetch", startTime: 20, responseEnd: 22, responseStatus: 200 },
            { url: "data:text/plain,x", initiatorType: "fetch", startTime: 21, responseEnd: 21 },
          ],
        },
      },
    },
  };
  await deep.attach(1);
  // The session's events come before the answer: the second json fetch and the again fetch.
  const answered = new Promise((resolve) => {
    const send = d.api.sendCommand;
    d.api.sendCommand = async (debuggee, method, params) => {
      if (method === "Runtime.evaluate") {
        for (const [id, url] of [["a1", again], ["j2", json]]) {
          d.emit({ targetId: "SHW" }, "Network.requestWillBeSent", willSend(id, url, { frameId: undefined, documentURL: SHARED_URL }));
          d.emit({ targetId: "SHW" }, "Network.loadingFinished", { requestId: id, ...end(30) });
        }
        resolve();
      }
      return send(debuggee, method, params);
    };
  });
  d.emit({ tabId: 1 }, "Network.requestWillBeSent", scriptOf("SHW", SHARED_URL));
  await answered;
  await settle();
  const timed = rows.filter((r) => r.row.fromTiming);
  assert.deepEqual(
    timed.map((r) => [r.row.url, r.row.type, r.row.method, r.row.responseStatus, r.row.startedAt, r.row.endedAt, r.tabId, r.where.frame]),
    [[json, "fetch", undefined, 200, t0 + 5, t0 + 9, 1, TOP]],
  );
  assert.equal(rows.filter((r) => r.row.url === json).length, 2, "the missed fetch and the one the session saw");
  assert.equal(rows.filter((r) => r.row.url === again).length, 1, "a fetch the session saw is not read back again");
});

test("deep: a shared worker's script whose end its late session never saw is one row once the worker says its script loaded", async () => {
  const shared = { id: "SHW", type: "worker", url: SHARED_URL, attached: false };
  const { deep, d, rows } = deepWith([page(1, PAGE, TOP), shared]);
  await deep.attach(1);
  // The tab sees the script asked for; its response and end went by before the worker's session
  // was on, which then says the script loaded.
  d.emit({ tabId: 1 }, "Network.requestWillBeSent", scriptOf("SHW", SHARED_URL));
  for (let i = 0; i < 20; i++) await settle();
  assert.deepEqual(rows.filter((r) => r.row.url === SHARED_URL), [], "still open");
  d.emit({ targetId: "SHW" }, "Inspector.workerScriptLoaded", {});
  await settle();
  const script = rows.filter((r) => r.row.url === SHARED_URL);
  assert.deepEqual(
    script.map((r) => [r.row.type, r.row.responseStatus, r.tabId]),
    [["script", undefined, 1]],
    "the script: one row, its status unknown",
  );
  // Its end reported after all (a session that did see it): no second row.
  d.emit({ targetId: "SHW" }, "Network.loadingFinished", { requestId: "SHW", ...end(40) });
  await settle();
  assert.equal(rows.filter((r) => r.row.url === SHARED_URL).length, 1);
});

test("deep: a shared worker started again under its target is let run; it goes with its tab; its end is forgotten", async () => {
  const shared = { id: "SHW", type: "worker", url: SHARED_URL, attached: false };
  const targets = [page(1, PAGE, TOP), page(2, PAGE, "T2")];
  const { deep, d, rows } = deepWith(targets);
  await deep.attach(1);
  await deep.attach(2);
  await settle();
  targets.push(shared);
  d.emit({ tabId: 1 }, "Network.requestWillBeSent", scriptOf("SHW", SHARED_URL));
  await settle();
  d.commands.length = 0;
  // Its last page went; a page starts it again: Chromium holds it at its start for our session.
  d.emit({ tabId: 2 }, "Network.requestWillBeSent", scriptOf("SHW", SHARED_URL));
  await settle();
  assert.deepEqual(d.commands.map((c) => c.slice(0, 2)), [
    ["target:SHW", "Network.enable"],
    ["target:SHW", "Log.enable"],
    ["target:SHW", "Runtime.enable"],
    ["target:SHW", "Target.setAutoAttach"],
    ["target:SHW", "Runtime.runIfWaitingForDebugger"],
  ]);
  assert.deepEqual([...d.attached], [1, 2, "target:SHW"]);
  // Still tab 1's: the tab whose session first saw it.
  d.emit({ targetId: "SHW" }, "Network.requestWillBeSent", willSend("s2", "http://127.0.0.1:8001/net/again.json", { frameId: undefined, documentURL: SHARED_URL }));
  d.emit({ targetId: "SHW" }, "Network.loadingFinished", { requestId: "s2", ...end(2) });
  // Its script, never said to have ended, ends with the first request it made.
  assert.deepEqual(rows.map((r) => [r.row.url, r.tabId]), [["http://127.0.0.1:8001/net/again.json", 1], [SHARED_URL, 1]]);
  // Started again by a page that is not deep (no script request seen): let run on Chromium's word.
  d.commands.length = 0;
  d.emit({ targetId: "SHW" }, "Inspector.targetCrashed", {});
  d.emit({ targetId: "SHW" }, "Inspector.targetReloadedAfterCrash", {});
  assert.deepEqual(d.commands.map((c) => c.slice(0, 2)).at(-1), ["target:SHW", "Runtime.runIfWaitingForDebugger"]);
  // Tab 1's deep view ends: the shared worker is let go with it.
  await deep.detach(1);
  assert.deepEqual([...d.detaches].sort(), [1, "target:SHW"]);
  assert.deepEqual([...d.attached], [2]);

  // The worker ending (Chromium detaches its session): forgotten, its events no one's.
  d.emit({ tabId: 2 }, "Network.requestWillBeSent", scriptOf("SHW", SHARED_URL));
  await settle();
  assert.deepEqual([...d.attached], [2, "target:SHW"]);
  d.attached.delete("target:SHW");
  d.detachEvent({ targetId: "SHW" }, "target_closed");
  assert.deepEqual(deep.deepTabs(), [2], "the tab's view goes on");
  d.emit({ targetId: "SHW" }, "Network.requestWillBeSent", willSend("s3", "http://127.0.0.1:8001/net/late.json", { frameId: undefined, documentURL: SHARED_URL }));
  d.emit({ targetId: "SHW" }, "Network.loadingFinished", { requestId: "s3", ...end(3) });
  // Its script asked by tab 2 ended with it (the worker went); nothing after.
  assert.deepEqual(rows.slice(2).map((r) => [r.row.url, r.tabId]), [[SHARED_URL, 2]]);
});

test("deep: a service worker taken for a shared worker is left to auto-attach", async () => {
  const sw = { id: "SW", type: "worker", url: "http://127.0.0.1:8001/sw.js", attached: false };
  const targets = [page(1, PAGE, TOP)];
  const { deep, d } = deepWith(targets);
  await deep.attach(1);
  await settle();
  targets.push(sw);
  d.emit({ tabId: 1 }, "Network.requestWillBeSent", scriptOf("SW", sw.url));
  await settle();
  assert.deepEqual([...d.attached], [1, "target:SW"]);
  d.emit({ tabId: 1 }, "Target.attachedToTarget", { sessionId: "S1", waitingForDebugger: true, targetInfo: { targetId: "SW", type: "service_worker", url: sw.url } });
  await settle();
  assert.deepEqual([...d.attached], [1]);
  assert.deepEqual(d.detaches, ["target:SW"]);
});

test("deep: a shared worker already running when the view starts, or when the tab loads a page, is attached; a service worker listed alike is not", async () => {
  const shared = { id: "SHW", type: "worker", url: SHARED_URL, attached: false };
  const sw = { id: "SW", type: "worker", url: "http://127.0.0.1:8001/sw.js", attached: false };
  const elsewhere = { id: "ELSE", type: "worker", url: "http://localhost:9000/shared.js", attached: false };
  const targets = [page(1, PAGE, TOP), shared, sw, elsewhere];
  const { deep, d, rows } = deepWith(targets);
  // Each answers what its global scope is.
  d.answers = { "Runtime.evaluate": (debuggee) => ({ result: { value: debuggee.targetId === "SHW" || debuggee.targetId === "SHW2" } }) };
  await deep.attach(1);
  await settle();
  // The shared worker of the page's origin: attached, enabled, let run; the service worker asked and let go;
  // a worker of another origin not touched.
  assert.deepEqual([...d.attached], [1, "target:SHW"]);
  assert.deepEqual(d.detaches, ["target:SW"]);
  assert.ok(!d.commands.some((c) => c[0] === "target:ELSE"));
  assert.deepEqual(
    d.commands.filter((c) => c[0] === "target:SHW").map((c) => c[1]),
    ["Runtime.evaluate", "Network.enable", "Log.enable", "Runtime.enable", "Target.setAutoAttach", "Runtime.runIfWaitingForDebugger"],
  );
  // Its requests are the tab's, of its top frame.
  d.emit({ targetId: "SHW" }, "Network.requestWillBeSent", willSend("s1", "http://127.0.0.1:8001/net/shared.json", { frameId: undefined, documentURL: SHARED_URL, ms: 5 }));
  d.emit({ targetId: "SHW" }, "Network.responseReceived", response("s1", { ms: 6 }));
  d.emit({ targetId: "SHW" }, "Network.loadingFinished", { requestId: "s1", ...end(7) });
  assert.deepEqual(rows.map((r) => [r.row.url, r.tabId, r.where.frame]), [["http://127.0.0.1:8001/net/shared.json", 1, TOP]]);
  // Another started meanwhile (by another tab): found when the tab's top frame loads a page; a
  // frame's navigation is no reason to look.
  targets.push({ id: "SHW2", type: "worker", url: "http://127.0.0.1:8001/other-shared.js", attached: false });
  d.emit({ tabId: 1 }, "Page.frameNavigated", { frame: { id: "F1", parentId: TOP, url: "http://127.0.0.1:8001/frame.html" } });
  await settle();
  assert.ok(!d.attached.has("target:SHW2"));
  d.emit({ tabId: 1 }, "Page.frameNavigated", { frame: { id: TOP, url: PAGE } });
  await settle();
  assert.deepEqual([...d.attached], [1, "target:SHW", "target:SHW2"]);
  // Both go with the tab's view.
  await deep.detach(1);
  assert.deepEqual([...d.attached], []);
});

test("deep: sessions on shared workers left by an earlier service worker are let go; one held at its start is let run", async () => {
  const mine = { id: "OLD", type: "worker", url: SHARED_URL, attached: true };
  const free = { id: "FREE", type: "worker", url: "http://127.0.0.1:8001/other.js", attached: false };
  const { deep, d } = deepWith([page(1, PAGE, TOP), mine, free]);
  d.attached.add("target:OLD");
  await deep.start();
  assert.deepEqual(d.detaches, ["target:OLD"]);
  // One this worker knows nothing of says it started again (held for that session): run, then let go.
  d.attached.add("target:GONE");
  d.emit({ targetId: "GONE" }, "Inspector.targetReloadedAfterCrash", {});
  await settle();
  assert.deepEqual(d.commands.map((c) => c.slice(0, 2)), [["target:GONE", "Runtime.runIfWaitingForDebugger"]]);
  assert.deepEqual(d.detaches, ["target:OLD", "target:GONE"]);
});

test("a worker's own script whose end is never reported ends once a request of the worker has ended, or when the worker goes", () => {
  const { send, rows, row } = tracker();
  const SW = "5A4A0633"; // the service worker's target id, also its script request's id
  const url = "http://127.0.0.1:8001/network-sw.js";
  send(undefined, "Target.attachedToTarget", { sessionId: "S-SW", waitingForDebugger: true, targetInfo: { targetId: SW, type: "service_worker", url } });
  send("S-SW", "Network.requestWillBeSent", willSend(SW, url, { type: "Script", frameId: undefined, documentURL: url, ms: 1 }));
  // Nothing more of the script: the worker runs and fetches.
  send("S-SW", "Network.requestWillBeSent", willSend("1.38", "http://127.0.0.1:8001/net/sw.json", { frameId: undefined, documentURL: url, ms: 40 }));
  assert.equal(rows.length, 0, "not before a request of the worker has ended");
  send("S-SW", "Network.responseReceived", response("1.38", { ms: 45 }));
  send("S-SW", "Network.loadingFinished", { requestId: "1.38", ...end(46) });
  const script = row(url);
  assert.ok(script, JSON.stringify(rows));
  assert.deepEqual([script.row.type, script.row.responseStatus, script.row.error, script.row.endedAt - script.row.startedAt], ["script", undefined, undefined, 39]);
  assert.equal(script.tabId, null);
  // Reported after all: nothing twice.
  send("S-SW", "Network.loadingFinished", { requestId: SW, ...end(50) });
  assert.equal(rows.length, 2);

  // A dedicated worker gone before its script said it ended, having made no request.
  const W = "B6ED3DE7";
  const wurl = "http://127.0.0.1:8001/w.js";
  send(undefined, "Network.requestWillBeSent", willSend(W, wurl, { type: "Script", documentURL: wurl, ms: 60 }));
  send(undefined, "Target.attachedToTarget", { sessionId: "S-W", waitingForDebugger: true, targetInfo: { targetId: W, type: "worker", url: wurl, parentFrameId: TOP } });
  send(undefined, "Target.detachedFromTarget", { sessionId: "S-W", targetId: W });
  assert.deepEqual([row(wurl).row.type, row(wurl).tabId, row(wurl).where.top], ["script", 7, true]);
});

test("a stream answered and then closed (an EventSource the page closed) ended, it did not fail; a request aborted before its answer failed", () => {
  const { send, row } = tracker();
  const url = (p) => `http://127.0.0.1:8001${p}`;
  send(undefined, "Network.requestWillBeSent", willSend("1.20", url("/sse/stock"), { type: "EventSource", ms: 0 }));
  send(undefined, "Network.responseReceived", response("1.20", { type: "EventSource", ms: 5, mimeType: "text/event-stream" }));
  send(undefined, "Network.loadingFailed", { requestId: "1.20", ...end(795), errorText: "net::ERR_ABORTED", canceled: true, type: "EventSource" });
  const closed = row(url("/sse/stock")).row;
  assert.deepEqual([closed.responseStatus, closed.error, closed.stream], [200, undefined, true], JSON.stringify(closed));
  // The same ending of a JSON response, and an abort before any answer: failures.
  send(undefined, "Network.requestWillBeSent", willSend("1.21", url("/api/items"), { ms: 0 }));
  send(undefined, "Network.responseReceived", response("1.21", { ms: 5, mimeType: "application/json" }));
  send(undefined, "Network.loadingFailed", { requestId: "1.21", ...end(9), errorText: "net::ERR_ABORTED", canceled: true, type: "Fetch" });
  assert.equal(row(url("/api/items")).row.error, "net::ERR_ABORTED");
  send(undefined, "Network.requestWillBeSent", willSend("1.22", url("/sse/other"), { type: "EventSource", ms: 0 }));
  send(undefined, "Network.loadingFailed", { requestId: "1.22", ...end(3), errorText: "net::ERR_ABORTED", canceled: true, type: "EventSource" });
  assert.equal(row(url("/sse/other")).row.error, "net::ERR_ABORTED");
  // A stream the server broke off is a failure too.
  send(undefined, "Network.requestWillBeSent", willSend("1.23", url("/sse/broken"), { type: "EventSource", ms: 0 }));
  send(undefined, "Network.responseReceived", response("1.23", { type: "EventSource", ms: 5, mimeType: "text/event-stream" }));
  send(undefined, "Network.loadingFailed", { requestId: "1.23", ...end(50), errorText: "net::ERR_INCOMPLETE_CHUNKED_ENCODING", canceled: false, type: "EventSource" });
  assert.equal(row(url("/sse/broken")).row.error, "net::ERR_INCOMPLETE_CHUNKED_ENCODING");
});
