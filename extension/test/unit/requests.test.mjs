// request_join.js (a deep tab's browser rows joined with the page's rows and
// bodies), deep_frames.js, network.js and queue_store.js, fed what the worker
// and deep_requests.js would give them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RequestJoin } from "../../background/request_join.js";
import { DeepFrames } from "../../background/deep_frames.js";
import { Network } from "../../background/network.js";
import { QueueStore } from "../../background/queue_store.js";

// Where deep_requests.js says a row is: the top frame, or a subframe by its protocol token and document URL.
const TOP = { frame: "TOP", frameUrl: "http://a/", top: true, parentTop: false };
const sub = (token, url, parent = TOP) => ({ frame: token, frameUrl: url, top: false, parentFrame: parent.frame, parentFrameUrl: parent.frameUrl, parentTop: parent.top });
const F0 = { id: 0, url: "http://a/" };

function joiner(io = {}) {
  const j = { queued: [], timers: [], frames: new DeepFrames() };
  j.join = new RequestJoin(
    {
      queue: (row, tabId, where) => j.queued.push({ row, tabId, where }),
      setTimer: (fn) => j.timers.push(fn),
      frameOf: (tabId, token) => j.frames.idOf(tabId, token, false),
      learn: (tabId, token, id) => j.frames.learn(tabId, token, id),
      ...io,
    },
    { holdMs: 1000 },
  );
  j.expire = () => {
    const due = j.timers.splice(0);
    due.forEach((fn) => fn());
  };
  return j;
}

test("the page's row joins the browser's row instead of making a second one, whichever comes first", () => {
  const j = joiner();
  j.join.row({ url: "http://a/x.js", method: "GET", requestId: "r1", responseStatus: 200, duration: 12, source: "browser" }, 1, TOP);
  j.join.timing({ url: "http://a/x.js", method: null, source: "page", initiatorType: "script", transferSize: 300, duration: 10 }, 1, F0);
  j.join.timing({ url: "http://a/y.css", source: "page", initiatorType: "link", transferSize: 5 }, 1, F0);
  j.join.row({ url: "http://a/y.css", method: "GET", requestId: "r2", responseStatus: 200, source: "browser" }, 1, TOP);
  j.expire();
  assert.deepEqual(
    j.queued.map((q) => [q.row.url, q.row.initiatorType, q.row.transferSize, q.row.duration, q.row.source]),
    [
      ["http://a/x.js", "script", 300, 12, "browser"],
      ["http://a/y.css", "link", 5, undefined, "browser"],
    ],
  );
});

test("the browser's say on a request wins over the page's: status, failure, method", () => {
  const j = joiner();
  j.join.row({ url: "http://b/nocors", method: "GET", requestId: "r1", error: "net::ERR_FAILED (CORS: …)", source: "browser" }, 1, TOP);
  j.join.timing({ url: "http://b/nocors", method: "GET", source: "page", failed: true, error: "TypeError: Failed to fetch", initiatorType: "fetch", responseStatus: 0 }, 1, F0);
  assert.deepEqual(
    [j.queued[0].row.error, j.queued[0].row.failed, j.queued[0].row.initiatorType, j.queued[0].row.source],
    ["net::ERR_FAILED (CORS: …)", undefined, "fetch", "browser"],
  );
});

test("a page row sent as its page left (unfinished) joins the browser's row of the request's end without saying unfinished", () => {
  const j = joiner();
  j.join.timing({ url: "http://a/api/orders", method: "GET", source: "page", initiatorType: "fetch", unfinished: true }, 1, F0);
  j.join.row({ url: "http://a/api/orders", method: "GET", requestId: "r1", responseStatus: 500, source: "browser" }, 1, TOP);
  assert.deepEqual([j.queued[0].row.responseStatus, j.queued[0].row.initiatorType, j.queued[0].row.unfinished], [500, "fetch", undefined]);
});

test("a page row of the same URL loaded again later is its own request, not the queued row's; a page row waiting keeps no tab in the join", () => {
  const j = joiner();
  const T = 1_700_000_000_000;
  j.join.row({ url: "http://a/src/main.js", method: "GET", requestId: "r1", responseStatus: 200, source: "browser", startedAt: T, endedAt: T + 20, ts: T }, 1, TOP);
  j.expire(); // queued without its page row
  // The page's row of that request, come late: not a second row.
  j.join.timing({ url: "http://a/src/main.js", source: "page", initiatorType: "script", ts: T + 3 }, 1, F0);
  // The next load's (the deep view has ended since): a request of its own.
  j.join.timing({ url: "http://a/src/main.js", source: "page", initiatorType: "script", ts: T + 60_000 }, 1, F0);
  assert.equal(j.join.has(1), false, "only browser rows waiting for their page rows keep a tab joining");
  j.expire();
  assert.deepEqual(j.queued.map((q) => [q.row.source, q.row.ts]), [["browser", T], ["page", T + 60_000]]);
});

test("a row goes as soon as its page row has joined; one without waits the hold", () => {
  const j = joiner();
  j.join.row({ url: "http://a/slow-timing", method: "GET", requestId: "r1" }, 1, TOP);
  j.join.row({ url: "http://a/no-timing", method: "GET", requestId: "r2" }, 1, TOP);
  j.join.timing({ url: "http://a/slow-timing", initiatorType: "fetch" }, 1, F0);
  assert.deepEqual(j.queued.map((q) => q.row.requestId), ["r1"], "joined: queued at once");
  j.expire();
  assert.deepEqual(j.queued.map((q) => q.row.requestId), ["r1", "r2"]);
});

test("a page row the browser never showed is queued alone as it is; a late one is not a second row", () => {
  const j = joiner();
  j.join.timing({ url: "http://a/cached.png", initiatorType: "img", source: "page" }, 1, F0);
  j.join.row({ url: "http://a/z", method: "GET", requestId: "r3" }, 1, TOP);
  j.expire();
  j.join.timing({ url: "http://a/z", initiatorType: "fetch" }, 1, F0);
  j.expire();
  assert.deepEqual(j.queued.map((q) => [q.row.url, q.row.source, q.where]), [
    ["http://a/cached.png", "page", undefined],
    ["http://a/z", undefined, TOP],
  ]);
});

test("a preflight takes no page row; a page row naming its method joins only that method's row", () => {
  const j = joiner();
  j.join.row({ url: "http://b/put", method: "OPTIONS", requestId: "pre" }, 1, TOP);
  j.join.row({ url: "http://b/put", method: "PUT", requestId: "put" }, 1, TOP);
  j.join.timing({ url: "http://b/put", method: "PUT", initiatorType: "fetch" }, 1, F0);
  assert.deepEqual(j.queued.map((q) => [q.row.requestId, q.row.initiatorType]), [["put", "fetch"]]);
});

test("a body gets the request id of its row, oldest first, each row once", () => {
  const j = joiner();
  j.join.row({ url: "http://a/api", method: "POST", requestId: "r1", responseStatus: 200 }, 1, TOP);
  j.join.row({ url: "http://a/api", method: "POST", requestId: "r2", responseStatus: 200 }, 1, TOP);
  j.expire();
  const body = { method: "POST", url: "http://a/api", status: 200 };
  assert.equal(j.join.requestIdFor(body, 2, F0), undefined, "another tab's");
  assert.equal(j.join.requestIdFor({ ...body, method: "GET" }, 1, F0), undefined, "another method");
  assert.equal(j.join.requestIdFor(body, 1, { id: 3, url: "http://a/frame.html" }), undefined, "another frame's");
  assert.equal(j.join.requestIdFor({ ...body, url: "http://a/api#top" }, 1, F0), "r1", "a fragment is never sent");
  assert.equal(j.join.requestIdFor(body, 1, F0), "r2");
  assert.equal(j.join.requestIdFor(body, 1, F0), undefined);
});

test("each frame's body joins its own frame's row of the same URL: by document URL, then by what was learned", () => {
  const j = joiner();
  const frame = sub("F7", "http://a/frame.html");
  j.join.row({ url: "http://a/data", method: "GET", requestId: "top", responseStatus: 200 }, 1, TOP);
  j.join.row({ url: "http://a/data", method: "GET", requestId: "frame", responseStatus: 200 }, 1, frame);
  const body = { method: "GET", url: "http://a/data", status: 200 };
  assert.equal(j.join.requestIdFor(body, 1, { id: 7, url: "http://a/frame.html" }), "frame");
  assert.equal(j.join.requestIdFor(body, 1, F0), "top");
  assert.equal(j.frames.idOf(1, "F7", false), 7, "the match taught the frame's id");
  // Once learned, the id decides even when the frame's URL has changed (a pushState).
  j.join.row({ url: "http://a/data", method: "GET", requestId: "later", responseStatus: 200 }, 1, sub("F7", "http://a/frame.html#/route"));
  assert.equal(j.join.requestIdFor(body, 1, { id: 8, url: "http://a/frame.html" }), undefined, "not frame 8's");
  assert.equal(j.join.requestIdFor(body, 1, { id: 7, url: "http://a/other" }), "later");
});

test("of two identical requests, a body takes the one whose outcome agrees with its own", () => {
  const j = joiner();
  // The one that started first finished last, with another status; then one failed.
  j.join.row({ url: "http://a/twin", method: "GET", requestId: "second", responseStatus: 201 }, 1, TOP);
  j.join.row({ url: "http://a/twin", method: "GET", requestId: "first", responseStatus: 200 }, 1, TOP);
  j.join.row({ url: "http://a/twin", method: "GET", requestId: "third", error: "net::ERR_ABORTED" }, 1, TOP);
  const twin = { method: "GET", url: "http://a/twin" };
  assert.equal(j.join.requestIdFor({ ...twin, status: 200 }, 1, F0), "first");
  assert.equal(j.join.requestIdFor({ ...twin, error: "AbortError: aborted" }, 1, F0), "third");
  assert.equal(j.join.requestIdFor({ ...twin, status: 0 }, 1, F0), "second", "none agrees: the oldest left");
});

test("a body that comes before its request ends joins the request in flight, and its row is not given twice", () => {
  const open = [{ requestId: "s1", url: "http://a/stream", method: "GET", tabId: 1, where: TOP }];
  const j = joiner({ inFlight: () => open.values() });
  assert.equal(j.join.requestIdFor({ method: "GET", url: "http://a/stream", status: 200 }, 1, F0), "s1");
  assert.equal(j.join.requestIdFor({ method: "GET", url: "http://a/stream", status: 200 }, 1, F0), undefined, "taken");
  open.pop();
  j.join.row({ url: "http://a/stream", method: "GET", requestId: "s1", responseStatus: 200 }, 1, TOP);
  assert.equal(j.join.requestIdFor({ method: "GET", url: "http://a/stream", status: 200 }, 1, F0), undefined, "its row was taken in flight");
});

test("a body whose twin finished first with another status joins its own request, still in flight", () => {
  const open = [{ requestId: "first", url: "http://a/twin", method: "GET", tabId: 1, where: TOP, status: 200 }];
  const j = joiner({ inFlight: () => open.values() });
  j.join.row({ url: "http://a/twin", method: "GET", requestId: "second", responseStatus: 201 }, 1, TOP);
  assert.equal(j.join.requestIdFor({ method: "GET", url: "http://a/twin", status: 200 }, 1, F0), "first");
  assert.equal(j.join.requestIdFor({ method: "GET", url: "http://a/twin", status: 201 }, 1, F0), "second");
});

test("an iframe's load timed by its parent joins the frame's document row, and the frame's own timing is not a second row", () => {
  const j = joiner();
  const frame = sub("F7", "http://b/frame.html");
  j.join.row({ url: "http://b/frame.html", method: "GET", type: "sub_frame", requestId: "f" }, 1, frame);
  j.join.timing({ url: "http://b/frame.html", initiatorType: "iframe", transferSize: 10 }, 1, F0);
  assert.deepEqual(j.queued, [], "held for the frame's own page row");
  j.join.timing({ url: "http://b/frame.html", initiatorType: "navigation", domContentLoaded: 5 }, 1, { id: 7, url: "http://b/frame.html" });
  assert.deepEqual([j.queued[0].row.domContentLoaded, j.frames.idOf(1, "F7", false)], [5, 7], "which taught the frame's id");
  j.join.timing({ url: "http://b/frame.html", initiatorType: "iframe" }, 1, { id: 3, url: "http://c/other.html" }); // another frame's iframe of the same URL
  j.expire();
  assert.deepEqual(j.queued.map((q) => [q.row.requestId, q.row.initiatorType, q.row.source]), [
    ["f", "iframe", undefined],
    [undefined, "iframe", "page"],
  ]);
});

test("URLs are compared as matchUrl makes them (redacted as the page did)", () => {
  const j = joiner({ matchUrl: (u) => u.replace(/token=[^&#]*/, "token=[redacted]").split("#")[0] });
  j.join.row({ url: "http://a/x?token=abc", method: "GET", requestId: "r", responseStatus: 200 }, 1, TOP);
  assert.equal(j.join.requestIdFor({ method: "GET", url: "http://a/x?token=[redacted]", status: 200 }, 1, F0), "r");
});

test("deep_frames: the top frame is 0, the service worker -1, a subframe by what was learned, else by a URL one frame shows", () => {
  const f = new DeepFrames();
  assert.deepEqual(f.resolve(1, TOP), { frameId: 0, parentFrameId: -1 });
  assert.deepEqual(f.resolve(1, { serviceWorker: true }), { frameId: -1, parentFrameId: -1 });
  const frame = sub("F7", "http://a/frame.html");
  assert.deepEqual(f.resolve(1, frame), { frameId: undefined, parentFrameId: 0 });
  f.saw(1, { id: 7, url: "http://a/frame.html" });
  assert.deepEqual(f.resolve(1, frame), { frameId: 7, parentFrameId: 0 });
  f.saw(1, { id: 9, url: "http://a/frame.html" }); // two frames show it: the URL says nothing
  assert.equal(f.resolve(1, frame).frameId, undefined);
  f.learn(1, "F7", 7);
  assert.equal(f.resolve(1, frame).frameId, 7);
  assert.equal(f.resolve(2, frame).frameId, undefined, "another tab's");
  // A frame inside the frame: its parent is found the same way.
  assert.deepEqual(f.resolve(1, sub("F8", "about:srcdoc", frame)), { frameId: undefined, parentFrameId: 7 });
});

function network({ deep = [7] } = {}) {
  const n = { stored: [], timers: [], open: [] };
  const session = new Map();
  n.net = new Network(
    {
      accept: (kind, entry, tabId) => n.stored.push({ kind, entry, tabId }),
      isDeep: (tabId) => deep.includes(tabId),
      inFlight: () => n.open.values(),
      redactUrl: (url) => url.replace(/token=[^&#]*/, "token=[redacted]"),
      storage: { get: async (k) => ({ [k]: session.get(k) }), set: async (o) => Object.entries(o).forEach(([k, v]) => session.set(k, v)) },
      setTimer: (fn) => n.timers.push(fn),
      random: () => "0123abcd-ffff",
    },
    { holdMs: 1000 },
  );
  n.expire = () => n.timers.splice(0).forEach((fn) => fn());
  return n;
}

test("network: a tab that is not deep stores the page's rows and bodies as they are", async () => {
  const n = network();
  await n.net.ready;
  const row = { source: "page", url: "http://a/x", method: "GET", responseStatus: 200 };
  assert.equal(n.net.fromPage("network_waterfall", row, 3, F0), row);
  const body = { url: "http://a/x", method: "GET", status: 200, requestId: "forged" };
  assert.equal(n.net.fromPage("network_bodies", body, 3, F0), body);
  assert.equal(body.requestId, "forged", "untouched: normalize and the server decide");
  assert.deepEqual(n.stored, []);
});

test("network: in a deep tab the page's row joins the browser's, which leaves with the session's prefix, frame ids and redacted URLs", async () => {
  const n = network();
  await n.net.ready;
  const frame = sub("F7", "http://a/frame.html?token=s3cret");
  n.net.sawFrame(7, { id: 4, url: "http://a/frame.html?token=s3cret" });
  n.net.fromBrowser({ url: "http://a/r1?token=abc", method: "GET", requestId: "1.10", source: "browser", frameUrl: "http://a/frame.html?token=s3cret", finalUrl: "http://a/final?token=x", redirects: [{ url: "http://a/r1?token=abc", location: "http://a/final?token=x", status: 302 }] }, 7, frame);
  assert.equal(n.net.fromPage("network_waterfall", { source: "page", url: "http://a/r1?token=[redacted]", initiatorType: "fetch" }, 7, { id: 4, url: "http://a/frame.html?token=s3cret" }), undefined, "held for the join");
  assert.equal(n.stored.length, 1);
  const { kind, entry, tabId } = n.stored[0];
  assert.deepEqual(
    [kind, tabId, entry.requestId, entry.frameId, entry.parentFrameId, entry.url, entry.finalUrl, entry.frameUrl, entry.redirects[0].location, entry.initiatorType, entry.source],
    ["network_waterfall", 7, "0123abcd-1.10", 4, 0, "http://a/r1?token=[redacted]", "http://a/final?token=[redacted]", "http://a/frame.html?token=[redacted]", "http://a/final?token=[redacted]", "fetch", "browser"],
  );
  const body = n.net.fromPage("network_bodies", { url: "http://a/r1?token=[redacted]", method: "get", status: 200 }, 7, { id: 4, url: "http://a/frame.html?token=s3cret" });
  assert.equal(body.requestId, "0123abcd-1.10");
});

test("network: a tab whose deep view ended joins its last browser rows, and stores every other page row at once", async () => {
  const deep = [7];
  const n = network({ deep });
  await n.net.ready;
  const T = 1_700_000_000_000;
  // The browser's row of the last request before the view ended, waiting for its page row.
  n.net.fromBrowser({ url: "http://a/api/orders", method: "GET", requestId: "1.20", source: "browser", responseStatus: 500, startedAt: T, endedAt: T + 30, ts: T }, 7, TOP);
  n.net.fromBrowser({ url: "http://a/api/slow", method: "GET", requestId: "1.21", source: "browser", responseStatus: 200, startedAt: T, endedAt: T + 900, ts: T }, 7, TOP);
  deep.length = 0; // the view ends
  assert.equal(n.net.fromPage("network_waterfall", { source: "page", url: "http://a/api/orders", method: "GET", initiatorType: "fetch", ts: T + 2 }, 7, F0), undefined, "joined");
  assert.deepEqual(n.stored.map((s) => [s.entry.url, s.entry.source, s.entry.initiatorType]), [["http://a/api/orders", "browser", "fetch"]]);
  // The next load's rows: stored now, not held for a browser row that will not come.
  const next = { source: "page", url: "http://a/src/main.js", initiatorType: "script", ts: T + 5_000 };
  assert.equal(n.net.fromPage("network_waterfall", next, 7, F0), next);
  const again = { source: "page", url: "http://a/api/orders", method: "GET", initiatorType: "fetch", ts: T + 6_000 };
  assert.equal(n.net.fromPage("network_waterfall", again, 7, F0), again, "the same URL later is a request of its own");
  assert.equal(n.net.join.has(7), true, "the slow request's browser row still waits for its page row");
  assert.equal(n.stored.length, 1, "nothing else held or stored twice");
});

test("network: a browser row read back from a worker's Resource Timing has no id, and its frame ids like any other", async () => {
  const n = network();
  await n.net.ready;
  n.net.fromBrowser({ url: "http://a/shared.json?token=abc", type: "xmlhttprequest", source: "browser", fromTiming: true, responseStatus: 200 }, 7, TOP);
  n.expire();
  assert.equal(n.stored.length, 1);
  const { entry } = n.stored[0];
  assert.deepEqual(
    [entry.requestId, entry.frameId, entry.parentFrameId, entry.url, entry.fromTiming, "requestId" in entry],
    [undefined, 0, -1, "http://a/shared.json?token=[redacted]", true, false],
  );
});

test("network: the browser's console messages are stored as logs, a subframe's naming it", async () => {
  const n = network();
  await n.net.ready;
  n.net.fromBrowserLog({ level: "error", message: "Failed to load resource", source: "browser" }, 7, TOP);
  n.net.sawFrame(7, { id: 4, url: "http://a/frame.html" });
  n.net.fromBrowserLog({ level: "warn", message: "x", source: "browser" }, 7, sub("F7", "http://a/frame.html"));
  n.net.fromBrowserLog({ level: "info", message: "y", source: "browser" }, null, { serviceWorker: true });
  assert.deepEqual(
    n.stored.map((s) => [s.kind, s.tabId, s.entry.requestId, s.entry.frameId, s.entry.frameUrl]),
    [
      ["logs", 7, undefined, undefined, undefined],
      ["logs", 7, undefined, 4, "http://a/frame.html"],
      ["logs", null, undefined, undefined, undefined],
    ],
  );
});

test("network: the prefix is kept for the browser session", async () => {
  const n = network();
  const first = await n.net.ready;
  assert.equal(first, "0123abcd-");
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
