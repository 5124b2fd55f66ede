// webrequest.js, request_join.js and queue_store.js, fed what Chrome would give them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { RequestTracker } = require("../../background/webrequest.js");
const { RequestJoin } = require("../../background/request_join.js");
const { QueueStore } = require("../../background/queue_store.js");

function tracker() {
  const rows = [];
  const t = new RequestTracker({ idPrefix: "s1-", emit: (row, tabId) => rows.push({ row, tabId }) });
  return { t, rows };
}

const base = { tabId: 4, frameId: 0, parentFrameId: -1, initiator: "http://127.0.0.1:8001" };

test("a 302 → 302 → 200 chain is one row with its chain", () => {
  const { t, rows } = tracker();
  t.onBeforeRequest({ ...base, requestId: "7", url: "http://127.0.0.1:8001/a", method: "GET", type: "xmlhttprequest", timeStamp: 1000 });
  t.onHeadersReceived({ requestId: "7", statusCode: 302, statusLine: "HTTP/1.1 302 Found" });
  // Chrome starts the request again at each new URL, under the same id.
  t.onBeforeRedirect({ requestId: "7", statusCode: 302, statusLine: "HTTP/1.1 302 Found", redirectUrl: "http://127.0.0.1:8001/b", ip: "127.0.0.1", fromCache: false });
  t.onBeforeRequest({ ...base, requestId: "7", url: "http://127.0.0.1:8001/b", method: "GET", type: "xmlhttprequest", timeStamp: 1005 });
  t.onBeforeRedirect({ requestId: "7", statusCode: 302, statusLine: "HTTP/1.1 302 Found", redirectUrl: "http://127.0.0.1:8001/c", ip: "127.0.0.1", fromCache: false });
  t.onBeforeRequest({ ...base, requestId: "7", url: "http://127.0.0.1:8001/c", method: "GET", type: "xmlhttprequest", timeStamp: 1010 });
  t.onHeadersReceived({ requestId: "7", statusCode: 200, statusLine: "HTTP/1.1 200 OK", timeStamp: 1020 });
  t.onCompleted({ requestId: "7", statusCode: 200, statusLine: "HTTP/1.1 200 OK", ip: "127.0.0.1", fromCache: false, frameId: 0, timeStamp: 1030 });
  assert.equal(rows.length, 1);
  const { row, tabId } = rows[0];
  assert.equal(tabId, 4);
  assert.equal(row.url, "http://127.0.0.1:8001/a");
  assert.equal(row.finalUrl, "http://127.0.0.1:8001/c");
  assert.deepEqual(row.redirects.map((r) => [r.url, r.status, r.location]), [
    ["http://127.0.0.1:8001/a", 302, "http://127.0.0.1:8001/b"],
    ["http://127.0.0.1:8001/b", 302, "http://127.0.0.1:8001/c"],
  ]);
  assert.equal(row.responseStatus, 200);
  assert.equal(row.statusLine, "HTTP/1.1 200 OK");
  assert.equal(row.requestId, "s1-7");
  assert.equal(row.duration, 30);
  assert.equal(row.ts, 1000);
  assert.equal(row.error, undefined);
});

test("a failure carries Chrome's reason; a cross-origin response without ACAO is said to be CORS", () => {
  const { t, rows } = tracker();
  t.onBeforeRequest({ ...base, requestId: "1", url: "http://nowhere.invalid/x", method: "GET", type: "image", timeStamp: 1 });
  t.onErrorOccurred({ requestId: "1", error: "net::ERR_NAME_NOT_RESOLVED", timeStamp: 5, fromCache: false });
  t.onBeforeRequest({ ...base, requestId: "2", url: "http://127.0.0.1:8002/api", method: "GET", type: "xmlhttprequest", timeStamp: 1 });
  t.onHeadersReceived({ requestId: "2", statusCode: 200, statusLine: "HTTP/1.1 200 OK", responseHeaders: [{ name: "Content-Type", value: "text/plain" }] });
  t.onErrorOccurred({ requestId: "2", error: "net::ERR_FAILED", timeStamp: 9 });
  assert.equal(rows[0].row.error, "net::ERR_NAME_NOT_RESOLVED");
  assert.equal(rows[0].row.responseStatus, undefined);
  assert.match(rows[1].row.error, /^net::ERR_FAILED \(CORS: .*no Access-Control-Allow-Origin/);
  assert.equal(rows[1].row.responseStatus, 200);
});

test("a request refused because its preflight did not allow it is said to be CORS", () => {
  const { t, rows } = tracker();
  const url = "http://127.0.0.1:8002/put";
  t.onBeforeRequest({ ...base, requestId: "3", url, method: "OPTIONS", type: "xmlhttprequest", timeStamp: 1 });
  t.onHeadersReceived({ requestId: "3", statusCode: 200, statusLine: "HTTP/1.1 200 OK", responseHeaders: [] });
  t.onCompleted({ requestId: "3", statusCode: 200, timeStamp: 2 });
  t.onBeforeRequest({ ...base, requestId: "4", url, method: "PUT", type: "xmlhttprequest", timeStamp: 1 });
  t.onErrorOccurred({ requestId: "4", error: "net::ERR_FAILED", timeStamp: 3 });
  assert.equal(rows[0].row.error, undefined);
  assert.match(rows[1].row.error, /^net::ERR_FAILED \(CORS: the preflight \(OPTIONS\) response .* no Access-Control-Allow-Origin/);
  // The same failure on the page's own origin is not CORS.
  t.onBeforeRequest({ ...base, requestId: "5", url: "http://127.0.0.1:8001/x", method: "PUT", type: "xmlhttprequest", timeStamp: 1 });
  t.onErrorOccurred({ requestId: "5", error: "net::ERR_FAILED", timeStamp: 3 });
  assert.equal(rows[2].row.error, "net::ERR_FAILED");
});

test("the extension's own requests and the browser's are not recorded; a page's worker's are", () => {
  const rows = [];
  const t = new RequestTracker({
    idPrefix: "",
    emit: (row, tabId) => rows.push({ row, tabId }),
    ignore: (d) => String(d.initiator).startsWith("chrome-extension://"),
  });
  const go = (id, extra) => {
    t.onBeforeRequest({ requestId: id, url: `http://x/${id}`, method: "GET", type: "other", timeStamp: 1, frameId: -1, parentFrameId: -1, ...extra });
    t.onCompleted({ requestId: id, statusCode: 200, timeStamp: 2 });
  };
  go("ext", { tabId: -1, initiator: "chrome-extension://abc" });
  go("browser", { tabId: -1 });
  go("sw", { tabId: -1, initiator: "http://127.0.0.1:8001" });
  assert.deepEqual(rows.map((r) => [r.row.url, r.tabId]), [["http://x/sw", null]]);
});

test("a request that ends unseen (started before the service worker did) still makes its row", () => {
  const { t, rows } = tracker();
  t.onCompleted({ ...base, requestId: "9", url: "http://127.0.0.1:8001/stream", method: "GET", type: "xmlhttprequest", statusCode: 200, timeStamp: 5000 });
  t.onErrorOccurred({ tabId: -1, frameId: -1, requestId: "10", url: "http://x/", method: "GET", type: "other", error: "net::ERR_ABORTED", timeStamp: 1 });
  assert.equal(rows.length, 1, "the browser's own request is still not recorded");
  const { row } = rows[0];
  assert.equal(row.url, "http://127.0.0.1:8001/stream");
  assert.equal(row.responseStatus, 200);
  assert.equal(row.startUnknown, true);
  assert.equal(row.duration, undefined);
  assert.equal(row.ts, 5000);
});

test("the frame's URL comes from the frame's own document request", () => {
  const { t, rows } = tracker();
  t.onBeforeRequest({ ...base, requestId: "1", url: "http://127.0.0.1:8002/frame.html", method: "GET", type: "sub_frame", frameId: 9, parentFrameId: 0, timeStamp: 1 });
  t.onHeadersReceived({ requestId: "1", statusCode: 200, frameId: 9, timeStamp: 2 });
  // The frame's script fetches while its document is still arriving.
  t.onBeforeRequest({ ...base, requestId: "2", url: "http://127.0.0.1:8002/in-frame.json", method: "GET", type: "xmlhttprequest", frameId: 9, parentFrameId: 0, timeStamp: 3 });
  t.onCompleted({ requestId: "2", statusCode: 200, frameId: 9, timeStamp: 4 });
  t.onCompleted({ requestId: "1", statusCode: 200, frameId: 9, timeStamp: 5 });
  assert.equal(rows[0].row.frameUrl, "http://127.0.0.1:8002/frame.html");
  assert.equal(rows[0].row.frameId, 9);
  assert.equal(rows[0].row.parentFrameId, 0);
});

function joiner() {
  const j = { queued: [], timers: [] };
  j.join = new RequestJoin(
    { queue: (row, tabId) => j.queued.push({ row, tabId }), setTimer: (fn) => j.timers.push(fn) },
    { holdMs: 1000 },
  );
  j.expire = () => {
    const due = j.timers.splice(0);
    due.forEach((fn) => fn());
  };
  return j;
}

test("resource timing joins its row instead of making a second one, whichever comes first", () => {
  const j = joiner();
  j.join.row({ url: "http://a/x.js", method: "GET", requestId: "r1", responseStatus: 200, duration: 12 }, 1);
  j.join.timing({ url: "http://a/x.js", initiatorType: "script", transferSize: 300, duration: 10 }, 1);
  j.join.timing({ url: "http://a/y.css", initiatorType: "link", transferSize: 5 }, 1);
  j.join.row({ url: "http://a/y.css", method: "GET", requestId: "r2", responseStatus: 200 }, 1);
  j.expire();
  assert.deepEqual(
    j.queued.map((q) => [q.row.url, q.row.initiatorType, q.row.transferSize, q.row.duration]),
    [
      ["http://a/x.js", "script", 300, 12],
      ["http://a/y.css", "link", 5, undefined],
    ],
  );
});

test("a row goes as soon as its timing has joined; one without timing waits the hold", () => {
  const j = joiner();
  j.join.row({ url: "http://a/slow-timing", method: "GET", requestId: "r1", frameId: 0 }, 1);
  j.join.row({ url: "http://a/no-timing", method: "GET", requestId: "r2", frameId: 0 }, 1);
  j.join.timing({ url: "http://a/slow-timing", initiatorType: "fetch" }, 1, 0);
  assert.deepEqual(j.queued.map((q) => q.row.requestId), ["r1"], "joined: queued at once");
  j.expire();
  assert.deepEqual(j.queued.map((q) => q.row.requestId), ["r1", "r2"]);
});

test("timing the browser never showed is queued alone, marked as the page's; late timing is not a second row", () => {
  const j = joiner();
  j.join.timing({ url: "http://a/cached.png", initiatorType: "img" }, 1);
  j.join.row({ url: "http://a/z", method: "GET", requestId: "r3" }, 1);
  j.expire();
  j.join.timing({ url: "http://a/z", initiatorType: "fetch" }, 1);
  j.expire();
  assert.deepEqual(j.queued.map((q) => [q.row.url, q.row.source]), [
    ["http://a/cached.png", "page"],
    ["http://a/z", undefined],
  ]);
});

test("a body gets the request id of its row, oldest first, each row once", () => {
  const j = joiner();
  j.join.row({ url: "http://a/api", method: "POST", requestId: "r1", frameId: 0, responseStatus: 200 }, 1);
  j.join.row({ url: "http://a/api", method: "POST", requestId: "r2", frameId: 0, responseStatus: 200 }, 1);
  j.expire();
  const body = { method: "POST", url: "http://a/api", status: 200 };
  assert.equal(j.join.requestIdFor(body, 2, 0), undefined, "another tab's");
  assert.equal(j.join.requestIdFor({ ...body, method: "GET" }, 1, 0), undefined, "another method");
  assert.equal(j.join.requestIdFor(body, 1, 3), undefined, "another frame's");
  assert.equal(j.join.requestIdFor({ ...body, url: "http://a/api#top" }, 1, 0), "r1", "a fragment is never sent");
  assert.equal(j.join.requestIdFor(body, 1, 0), "r2");
  assert.equal(j.join.requestIdFor(body, 1, 0), undefined);
});

test("each frame's body joins its own frame's row of the same URL", () => {
  const j = joiner();
  j.join.row({ url: "http://a/data", method: "GET", requestId: "top", frameId: 0, responseStatus: 200 }, 1);
  j.join.row({ url: "http://a/data", method: "GET", requestId: "frame", frameId: 7, parentFrameId: 0, responseStatus: 200 }, 1);
  const body = { method: "GET", url: "http://a/data", status: 200 };
  assert.equal(j.join.requestIdFor(body, 1, 7), "frame");
  assert.equal(j.join.requestIdFor(body, 1, 0), "top");
});

test("of two identical requests in flight, a body takes the one whose outcome agrees with its own", () => {
  const j = joiner();
  // The one that started first finished last, with another status; then one failed.
  j.join.row({ url: "http://a/twin", method: "GET", requestId: "second", frameId: 0, responseStatus: 201 }, 1);
  j.join.row({ url: "http://a/twin", method: "GET", requestId: "first", frameId: 0, responseStatus: 200 }, 1);
  j.join.row({ url: "http://a/twin", method: "GET", requestId: "third", frameId: 0, error: "net::ERR_ABORTED" }, 1);
  const twin = { method: "GET", url: "http://a/twin" };
  assert.equal(j.join.requestIdFor({ ...twin, status: 200 }, 1, 0), "first");
  assert.equal(j.join.requestIdFor({ ...twin, error: "AbortError: aborted" }, 1, 0), "third");
  assert.equal(j.join.requestIdFor({ ...twin, status: 0 }, 1, 0), "second", "none agrees: the oldest left");
});

test("a body that comes before its request ends joins the request in flight, and its row is not given twice", () => {
  const open = [{ requestId: "s1", url: "http://a/stream", method: "GET", tabId: 1, frameId: 0 }];
  const queued = [];
  const join = new RequestJoin({ queue: (row) => queued.push(row), setTimer: () => {}, inFlight: () => open.values() });
  assert.equal(join.requestIdFor({ method: "GET", url: "http://a/stream", status: 200 }, 1, 0), "s1");
  assert.equal(join.requestIdFor({ method: "GET", url: "http://a/stream", status: 200 }, 1, 0), undefined, "taken");
  open.pop();
  join.row({ url: "http://a/stream", method: "GET", requestId: "s1", frameId: 0, responseStatus: 200 }, 1);
  assert.equal(join.requestIdFor({ method: "GET", url: "http://a/stream", status: 200 }, 1, 0), undefined, "its row was taken in flight");
});

test("a body whose twin finished first with another status joins its own request, still in flight", () => {
  const open = [{ requestId: "first", url: "http://a/twin", method: "GET", tabId: 1, frameId: 0, status: 200 }];
  const join = new RequestJoin({ queue: () => {}, setTimer: () => {}, inFlight: () => open.values() });
  join.row({ url: "http://a/twin", method: "GET", requestId: "second", frameId: 0, responseStatus: 201 }, 1);
  assert.equal(join.requestIdFor({ method: "GET", url: "http://a/twin", status: 200 }, 1, 0), "first");
  assert.equal(join.requestIdFor({ method: "GET", url: "http://a/twin", status: 201 }, 1, 0), "second");
});

test("an iframe's load timed by its parent joins the frame's document row, and the frame's own timing is not a second row", () => {
  const j = joiner();
  j.join.row({ url: "http://b/frame.html", method: "GET", type: "sub_frame", requestId: "f", frameId: 7, parentFrameId: 0 }, 1);
  j.join.timing({ url: "http://b/frame.html", initiatorType: "iframe", transferSize: 10 }, 1, 0);
  j.join.timing({ url: "http://b/frame.html", initiatorType: "navigation" }, 1, 7);
  j.join.timing({ url: "http://b/frame.html", initiatorType: "iframe" }, 1, 3); // another frame's iframe of the same URL
  j.expire();
  assert.deepEqual(j.queued.map((q) => [q.row.requestId, q.row.initiatorType, q.row.source]), [
    ["f", "iframe", undefined],
    [undefined, "iframe", "page"],
  ]);
});

test("URLs are compared as matchUrl makes them (redacted as the page did)", () => {
  const queued = [];
  const join = new RequestJoin({
    queue: (row) => queued.push(row),
    setTimer: () => {},
    matchUrl: (u) => u.replace(/token=[^&#]*/, "token=[redacted]").split("#")[0],
  });
  join.row({ url: "http://a/x?token=abc", method: "GET", requestId: "r", frameId: 0, responseStatus: 200 }, 1);
  assert.equal(join.requestIdFor({ method: "GET", url: "http://a/x?token=[redacted]", status: 200 }, 1, 0), "r");
});

test("the queue store folds the writes of one task into one remove and one set, in order", async () => {
  const calls = [];
  const data = new Map([["settings", { keep: true }]]);
  const area = {
    get: async () => Object.fromEntries(data),
    set: async (items) => {
      calls.push(["set", Object.keys(items)]);
      for (const [k, v] of Object.entries(items)) data.set(k, v);
    },
    remove: async (keys) => {
      calls.push(["remove", keys]);
      keys.forEach((k) => data.delete(k));
    },
  };
  const store = new QueueStore(area);
  const writes = [store.set({ "q:1": 1 }), store.set({ "q:2": 2 }), store.remove(["q:1"]), store.set({ "b:logs": 3 })];
  await Promise.all(writes);
  assert.deepEqual(calls, [
    ["remove", ["gq/q:1"]],
    ["set", ["gq/q:2", "gq/b:logs"]],
  ]);
  assert.deepEqual(await store.get(), { "q:2": 2, "b:logs": 3 }, "only the queues' own keys, without the prefix");
  assert.equal(data.get("settings").keep, true);
});

test("a lone timing waits longer for its row than a row waits for its timing", () => {
  const waits = [];
  const join = new RequestJoin({ queue() {}, setTimer: (fn, ms) => waits.push(ms) });
  join.row({ url: "http://a/x.js", method: "GET", requestId: "r1" }, 1);
  join.timing({ url: "http://a/cached.png", initiatorType: "img" }, 1);
  assert.deepEqual(waits, [3000, 8000]);
});
