// page/requests.js: the page's own waterfall, one row per request, joined from
// a wrapper's half (method, status, failure) and the Resource Timing half,
// whichever comes first; failed only when the page knows it failed.
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

const listeners = new Map(); // event type → the page's listeners of ours
let timers = [];
let clock = 0;
const rows = [];
const core = {
  apply: Reflect.apply,
  later: (fn, ms) => {
    const t = { fn, at: clock + ms };
    timers.push(t);
    return () => (timers = timers.filter((x) => x !== t));
  },
  perfNow: () => clock,
  listen: (_target, type, fn) => listeners.set(type, [...(listeners.get(type) || []), fn]),
  // The page's route changes as core.js counts them: one page here, until a test moves on.
  pageUrl: {
    now: () => route,
    at: (count) => (count === 0 ? "http://app/page" : undefined),
    since: (count) => (count === route ? undefined : count === 0 ? "http://app/page" : undefined),
  },
};
let route = 0;
const outbox = { emit: (kind, build) => rows.push({ kind, entry: build() }) };
globalThis.__gasoline = { core, outbox, callsite: require("../../lib/callsite.js") };
globalThis.addEventListener = () => {}; // a window's, which requests.js listens on through core.listen
require("../../page/requests.js");
const { requests } = globalThis.__gasoline;
delete globalThis.__gasoline;
delete globalThis.addEventListener;

/** Moves the clock by `ms`, running the timers that come due. */
function advance(ms) {
  clock += ms;
  for (;;) {
    const due = timers.filter((t) => t.at <= clock);
    if (!due.length) return;
    timers = timers.filter((t) => t.at > clock);
    due.forEach((t) => t.fn());
  }
}

function entry(url, fields = {}) {
  return {
    name: url,
    entryType: "resource",
    initiatorType: "fetch",
    startTime: 10,
    duration: 25,
    transferSize: 300,
    encodedBodySize: 100,
    decodedBodySize: 100,
    nextHopProtocol: "http/1.1",
    responseStatus: 200,
    requestStart: 12,
    responseStart: 30,
    responseEnd: 35,
    ...fields,
  };
}

beforeEach(() => {
  advance(60000); // whatever an earlier test left waiting
  rows.length = 0;
});

test("a fetch and its timing entry make one row, whichever comes first", () => {
  const a = requests.start("POST", "http://app.localhost/api/a", "fetch");
  requests.end(a, { status: 201 });
  assert.equal(rows.length, 0, "the ended request waits for its timing");
  requests.timing(entry("http://app.localhost/api/a"));
  const b = requests.start("GET", "http://app.localhost/api/b#frag", "fetch");
  requests.timing(entry("http://app.localhost/api/b"));
  requests.end(b, { status: 200 });
  advance(60000);
  assert.equal(rows.length, 2);
  const [ra, rb] = rows.map((r) => r.entry);
  assert.equal(rows[0].kind, "network_waterfall");
  assert.equal(ra.source, "page");
  assert.equal(ra.method, "POST");
  assert.equal(ra.responseStatus, 201, "the wrapper's status wins");
  assert.equal(ra.initiatorType, "fetch");
  assert.equal(ra.duration, 25);
  assert.equal(ra.transferSize, 300);
  assert.deepEqual(ra.phases, { redirect: 0, dns: 0, connect: 0, waiting: 18, download: 5 });
  assert.equal(ra.failed, undefined);
  assert.equal(rb.url, "http://app.localhost/api/b#frag");
  assert.equal(rb.method, "GET");
});

test("a fetch whose body is never read has no timing entry: its row goes alone, and a late entry is no second row", () => {
  const r = requests.start("GET", "http://app.localhost/unread", "fetch");
  advance(5);
  requests.end(r, { status: 200 });
  advance(1499);
  assert.equal(rows.length, 0);
  advance(1);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].entry.responseStatus, 200);
  assert.equal(rows[0].entry.duration, 5);
  requests.timing(entry("http://app.localhost/unread"));
  advance(60000);
  assert.equal(rows.length, 1, "one row per request");
});

test("a request sent before the page moved on names the URL it was on then; one sent and ended on one page does not", () => {
  const before = requests.start("GET", "http://app.localhost/api/stats", "fetch");
  const after = () => requests.start("GET", "http://app.localhost/api/next", "fetch");
  route = 1; // the frame went to the next story (a replaceState) while the request was under way
  const next = after();
  requests.end(before, { status: 200 });
  requests.end(next, { status: 200 });
  advance(60000);
  route = 0;
  const [a, b] = rows.map((r) => r.entry);
  assert.equal(a.pageUrl, "http://app/page");
  assert.equal(b.pageUrl, undefined);
});

test("a request the page saw fail is failed, with the page's words", () => {
  const r = requests.start("GET", "http://gone.invalid/x", "fetch");
  requests.end(r, { failed: true, error: "TypeError: Failed to fetch" });
  requests.timing(entry("http://gone.invalid/x", { responseStatus: 0, transferSize: 0, requestStart: 0 }));
  assert.equal(rows.length, 1);
  assert.equal(rows[0].entry.failed, true);
  assert.equal(rows[0].entry.error, "TypeError: Failed to fetch");
  assert.equal(rows[0].entry.responseStatus, undefined);
});

test("a failed request says where the page's code made it; one that succeeded does not", () => {
  function loadCart() {
    return requests.start("GET", "http://app.localhost/api/cart", "fetch");
  }
  const failed = loadCart();
  const refused = loadCart();
  const fine = loadCart();
  requests.end(failed, { status: 500 });
  requests.end(refused, { failed: true, error: "TypeError: Failed to fetch" });
  requests.end(fine, { status: 200 });
  requests.elementFailed("http://app.localhost/no-such-logo.png", "img");
  advance(60000);
  const [f, r, ok, img] = rows.map((row) => row.entry);
  const here = /page_requests\.test\.mjs:\d+:\d+$/;
  for (const row of [f, r]) {
    const sites = [row.location, ...row.callers.split("\n")];
    assert.ok(sites.some((s) => here.test(s)), `the test's frames among ${JSON.stringify(sites)}`);
    assert.ok(sites.length <= 9, "the call site, four callers and the first frames of four more scripts at most");
    assert.equal(row.pageUrl, "http://app/page", "the page it was made on");
  }
  assert.equal(ok.location, undefined, "a request that succeeded keeps no call site");
  assert.equal(ok.pageUrl, undefined);
  assert.equal(ok.callers, undefined);
  assert.equal(img.failed, true);
  assert.equal(img.location, undefined, "an element's failure has no code of the page's that made it");
});

test("a timing entry with a status is a row at once, method unknown", () => {
  requests.timing(entry("http://app.localhost/app.js", { initiatorType: "script" }));
  assert.equal(rows.length, 1);
  assert.equal(rows[0].entry.method, null);
  assert.equal(rows[0].entry.initiatorType, "script");
  assert.equal(rows[0].entry.responseStatus, 200);
});

test("a timing entry whose start comes after its end has no duration (a worker's script from the service worker)", () => {
  requests.timing(entry("http://app.localhost/worker.js", { initiatorType: "other", startTime: 150.8, duration: -5.7, workerStart: 140 }));
  assert.equal(rows.length, 1);
  assert.equal(rows[0].entry.duration, undefined);
  assert.equal(rows[0].entry.startTime, 150.8);
  assert.equal(rows[0].entry.fromServiceWorker, "fetch-handler");
});

test("status 0 alone is not a failure; an element's error event makes it one", () => {
  requests.timing(entry("https://cdn.example/opaque.png", { initiatorType: "img", responseStatus: 0 }));
  requests.timing(entry("http://app.localhost/missing.png", { initiatorType: "img", responseStatus: 0 }));
  assert.equal(rows.length, 0, "status 0 waits to hear how it ended");
  requests.elementFailed("http://app.localhost/missing.png", "img");
  assert.equal(rows.length, 1);
  assert.equal(rows[0].entry.failed, true);
  assert.equal(rows[0].entry.initiatorType, "img");
  advance(1000);
  assert.equal(rows.length, 2);
  assert.equal(rows[1].entry.url, "https://cdn.example/opaque.png");
  assert.equal(rows[1].entry.failed, undefined, "an opaque response is unknown, not failed");
  assert.equal(rows[1].entry.responseStatus, undefined);
});

test("an element error before its timing entry waits for it", () => {
  requests.elementFailed("http://app.localhost/broken.css", "link");
  requests.timing(entry("http://app.localhost/broken.css", { initiatorType: "link", responseStatus: 0 }));
  assert.equal(rows.length, 1);
  assert.equal(rows[0].entry.failed, true);
  assert.equal(rows[0].entry.duration, 25, "with the entry's timing");
});

test("the document's row carries its DOMContentLoaded and load times", () => {
  requests.timing(
    entry("http://app.localhost/", { entryType: "navigation", initiatorType: "navigation", domContentLoadedEventStart: 120.04, loadEventStart: 300, loadEventEnd: 301 }),
  );
  assert.equal(rows.length, 1);
  assert.equal(rows[0].entry.domContentLoaded, 120);
  assert.equal(rows[0].entry.load, 300);
  assert.equal(rows[0].entry.initiatorType, "navigation");
});

test("an about:blank or srcdoc frame's document, which no request fetched, has no row", () => {
  for (const url of ["about:blank", "about:srcdoc", "data:text/html,<p>x"]) {
    requests.timing(entry(url, { entryType: "navigation", initiatorType: "navigation", loadEventEnd: 5 }));
  }
  assert.equal(rows.length, 0);
});

test("twin requests to one URL make two rows", () => {
  const a = requests.start("GET", "http://app.localhost/twin", "fetch");
  const b = requests.start("GET", "http://app.localhost/twin", "fetch");
  requests.end(b, { status: 201 });
  requests.end(a, { status: 200 });
  requests.timing(entry("http://app.localhost/twin"));
  requests.timing(entry("http://app.localhost/twin"));
  advance(60000);
  assert.equal(rows.length, 2);
  assert.deepEqual(rows.map((r) => r.entry.responseStatus).sort(), [200, 201]);
});

test("an element whose failing status the page saw gives one row, not a second for its error event", () => {
  requests.timing(entry("http://app.localhost/gone.png", { initiatorType: "img", responseStatus: 404 }));
  requests.elementFailed("http://app.localhost/gone.png", "img");
  advance(60000);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].entry.responseStatus, 404);
});

test("a request that fails as its page is left says so in the words the server reads", () => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const bin = process.env.GASOLINE_BIN || path.resolve(here, "../../../target/debug/gasoline");
  const prefix = JSON.parse(execFileSync(bin, ["kinds"], { encoding: "utf8" })).left_page_prefix;
  assert.equal(typeof prefix, "string");
  assert.equal(requests.failure("TypeError: Failed to fetch"), "TypeError: Failed to fetch", "the page is not leaving");
  for (const fn of listeners.get("beforeunload")) fn();
  assert.equal(requests.failure("TypeError: Failed to fetch"), `${prefix}TypeError: Failed to fetch`);
  for (const fn of listeners.get("pageshow")) fn();
  assert.equal(requests.failure("TypeError: Failed to fetch"), "TypeError: Failed to fetch", "shown again: not leaving");
});

test("a request to another origin that failed with no answer says the page cannot tell CORS from the network", () => {
  globalThis.location = { origin: "http://app.localhost:5173" };
  try {
    const note =
      " (a cross-origin request: the page cannot tell a CORS refusal from a refused connection or a DNS failure; the browser's console says which, and deep mode stores it)";
    assert.equal(requests.failure("TypeError: Failed to fetch", "http://127.0.0.1:8000/items"), `TypeError: Failed to fetch${note}`);
    assert.equal(requests.failure("network error (XHR status 0)", "https://api.example.com/x"), `network error (XHR status 0)${note}`);
    // Its own origin, an abort, or no URL: as the page said it.
    assert.equal(requests.failure("TypeError: Failed to fetch", "http://app.localhost:5173/api"), "TypeError: Failed to fetch");
    assert.equal(requests.failure("AbortError: signal is aborted without reason", "http://127.0.0.1:8000/x"), "AbortError: signal is aborted without reason");
    assert.equal(requests.failure("TypeError: Failed to fetch"), "TypeError: Failed to fetch");
  } finally {
    delete globalThis.location;
  }
});

test("a worker's script is a row when its timing comes; a worker that did not start, a failed one", () => {
  // Started: its timing (Chrome's initiatorType "other") ends it, with its status.
  requests.start("GET", "http://app.localhost/src/worker.ts?worker_file&type=module", "worker");
  assert.equal(rows.length, 0);
  requests.timing(entry("http://app.localhost/src/worker.ts?worker_file&type=module", { initiatorType: "other", responseStatus: 200 }));
  assert.equal(rows.length, 1, "no event says a worker started: its timing ends it");
  const started = rows[0].entry;
  assert.deepEqual([started.method, started.initiatorType, started.responseStatus, started.failed], ["GET", "worker", 200, undefined]);
  // Not started: the browser's plain error event (workers.js) ends it failed, before its status-0 timing waited out.
  const refused = requests.start("GET", "http://app.localhost/missing-worker.js", "worker");
  requests.timing(entry("http://app.localhost/missing-worker.js", { initiatorType: "other", responseStatus: 0 }));
  assert.equal(rows.length, 1, "a status of 0 alone waits for what the worker says");
  requests.end(refused, { failed: true, error: "the worker did not start" });
  assert.equal(rows.length, 2);
  assert.deepEqual([rows[1].entry.failed, rows[1].entry.error, rows[1].entry.initiatorType], [true, "the worker did not start", "worker"]);
  // A cross-origin script's status is 0 too: with no error it ends, unknown, after a while.
  requests.start("GET", "http://cdn.localhost/w.js", "worker");
  requests.timing(entry("http://cdn.localhost/w.js", { initiatorType: "other", responseStatus: 0 }));
  advance(1000);
  assert.equal(rows.length, 3);
  assert.deepEqual([rows[2].entry.failed, rows[2].entry.responseStatus], [undefined, undefined]);
});

test("a storm of 2,000 parallel fetches is 2,000 rows, each with its status, none twice", () => {
  const storm = [];
  for (let i = 0; i < 2000; i++) storm.push(requests.start("GET", `http://app.localhost/api/item/${i}`, "fetch"));
  assert.equal(rows.length, 0, "none sent before it ends");
  storm.forEach((r, i) => {
    requests.timing(entry(`http://app.localhost/api/item/${i}`, { responseStatus: i % 400 === 250 ? 500 : 200 }));
    requests.end(r, { status: i % 400 === 250 ? 500 : 200 });
  });
  advance(60000);
  const urls = rows.map((r) => r.entry.url);
  assert.equal(rows.length, 2000);
  assert.equal(new Set(urls).size, 2000, "each request once");
  assert.ok(rows.every((r) => r.entry.method === "GET" && r.entry.responseStatus > 0 && !r.entry.unfinished));
  // The first 1,000 in flight keep their call site: a failed one among them says where it was made.
  const failed = rows.map((r) => r.entry).filter((e) => e.responseStatus === 500);
  assert.deepEqual(failed.map((e) => [e.url.split("/").pop(), typeof e.location]), [["250", "string"], ["650", "string"], ["1050", "undefined"], ["1450", "undefined"], ["1850", "undefined"]]);
});
