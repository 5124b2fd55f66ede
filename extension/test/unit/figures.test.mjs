// The figures the page-world scripts compute: INP as web-vitals defines it
// (lib/inp.js), one XHR entry per send() of a reused XMLHttpRequest (page/xhr.js
// over a stand-in XHR), fetch's duration to the end of the body (page/fetch.js
// over node's own Response and streams) and vitals per soft navigation (page/vitals.js fed
// performance entries by hand).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const limits = require("../../lib/limits.js");
const inp = require("../../lib/inp.js");
const serialize = require("../../lib/serialize.js");

// ---- INP ------------------------------------------------------------------------

test("INP groups entries by interaction and takes each interaction's longest", () => {
  const m = inp.createInp();
  assert.equal(m.value(0), null, "no interaction, no INP");
  m.add({ interactionId: 7, duration: 48 }); // pointerdown
  m.add({ interactionId: 7, duration: 120 }); // click of the same tap
  m.add({ interactionId: 14, duration: 64 });
  m.add({ interactionId: 0, duration: 900 }); // a mousemove: no interaction
  assert.equal(m.size(), 2);
  assert.equal(m.value(2), 120, "below 50 interactions, the worst one");
});

test("INP ignores one highest interaction per 50", () => {
  const m = inp.createInp();
  // 120 interactions, latencies 1..120 ms (the highest are 120, 119, 118, ...).
  for (let i = 1; i <= 120; i++) m.add({ interactionId: i * 7, duration: i });
  assert.equal(m.size(), inp.MAX_KEPT, "only the 10 longest are kept");
  assert.equal(m.value(49), 120);
  assert.equal(m.value(50), 119, "50 interactions: the highest is ignored");
  assert.equal(m.value(120), 118, "120 interactions: two are ignored");
  assert.equal(m.value(10_000), 111, "never past the longest kept");
  // A new entry of a kept interaction can only lengthen it.
  m.add({ interactionId: 118 * 7, duration: 500 });
  assert.equal(m.value(0), 500);
  m.add({ interactionId: 118 * 7, duration: 10 });
  assert.equal(m.value(0), 500);
  // A short new interaction does not enter a full list.
  m.add({ interactionId: 9999, duration: 5 });
  assert.equal(m.size(), inp.MAX_KEPT);
});

test("without performance.interactionCount, interactions are counted from the span of their ids", () => {
  const c = inp.createInteractionCounter();
  assert.equal(c.count(), 0);
  c.add({ interactionId: 0 });
  c.add({ interactionId: 3521 });
  c.add({ interactionId: 3521 + 7 * 99 });
  assert.equal(c.count(), 100);
});

// ---- the page-world scripts, in node ----------------------------------------------

let clock = 0;
const timers = [];
// The waterfall's join (page/requests.js) has its own tests (page_requests.test.mjs).
const requestEnds = []; // how the waterfall heard each request end: {status} or {failed, error}
const noRequests = { start: () => ({}), end: (r, outcome) => requestEnds.push(outcome), elementFailed() {}, timing() {}, failure: (e) => String(e), leaving: () => false, epochOf: (t) => Math.round(1_700_000_000_000 + t), round: (ms) => Math.round(ms * 10) / 10 };
let timerIds = 0;
const emitted = [];
const observers = {}; // entry type → the callback vitals.js gave
const routes = [];
globalThis.__gasoline = Object.assign(globalThis.__gasoline || {}, { limits, inp });
const G = globalThis.__gasoline;
G.observePerformance = (type, callback) => (observers[type] = callback);
require("../../page/core.js");
Object.assign(G.core, {
  perfNow: () => clock,
  setTimeout: (fn, ms) => {
    const id = ++timerIds;
    timers.push({ id, fn, at: clock + ms });
    return id;
  },
  clearTimeout: (id) => {
    const i = timers.findIndex((t) => t.id === id);
    if (i >= 0) timers.splice(i, 1);
  },
});
require("../../page/bodies.js");
require("../../page/consumed.js");
require("../../page/xhr.js");
require("../../page/fetch.js");
require("../../page/vitals.js");
require("../../page/eventsource.js");
delete globalThis.__gasoline;
const outbox = { emit: (kind, build) => emitted.push({ kind, entry: build() }), flushAll() {}, isOn: () => true };

/** Runs the timers due by `ms` from now, in order. */
function advance(ms) {
  clock += ms;
  for (;;) {
    const due = timers.filter((t) => t.at <= clock).sort((a, b) => a.at - b.at)[0];
    if (!due) return;
    timers.splice(timers.indexOf(due), 1);
    due.fn();
  }
}

// An XMLHttpRequest stand-in: open → send → (later) readystatechange 2, 4, loadend.
class FakeXHR extends EventTarget {
  open(method, url) {
    this.readyState = 1; // and the last response is gone
    this.status = 0;
    this.responseText = "";
    this.sent = false;
    this.url = url;
  }
  setRequestHeader() {}
  send() {
    if (this.readyState !== 1 || this.sent) throw new Error("InvalidStateError");
    this.sent = true;
    this.pending = () => {
      this.readyState = 2;
      this.dispatchEvent(new Event("readystatechange"));
      if (this.redirectTo) this.responseURL = this.redirectTo; // where the browser's redirects ended
      this.status = 200;
      this.statusText = "OK";
      this.responseType = "";
      this.responseText = `answer of ${this.url}`;
      const progress = new Event("progress");
      progress.loaded = this.responseText.length;
      this.dispatchEvent(progress);
      this.readyState = 4;
      this.dispatchEvent(new Event("readystatechange"));
      const end = new Event("loadend");
      end.loaded = this.responseText.length;
      this.dispatchEvent(end);
    };
  }
  getAllResponseHeaders() {
    return "content-type: text/plain\r\n";
  }
}

test("a reused XMLHttpRequest gives exactly one entry per send, each with its own open's method and url", async () => {
  globalThis.XMLHttpRequest = FakeXHR;
  G.sources.xhr({ core: G.core, outbox, bodies: G.bodies, limits, requests: noRequests });
  emitted.length = 0;
  const xhr = new XMLHttpRequest();
  const sent = [
    ["GET", "/poll?n=1"],
    ["POST", "/poll?n=2"],
    ["put", "/poll?n=3"],
  ];
  for (const [method, url] of sent) {
    xhr.open(method, url);
    xhr.setRequestHeader("X-N", url);
    xhr.send("body");
    assert.throws(() => xhr.send("again"), /InvalidStateError/, "a second send without open() is refused");
    clock += 5;
    xhr.pending();
  }
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(
    emitted.map((e) => [e.entry.method, e.entry.url, e.entry.status, e.entry.responseBody]),
    sent.map(([m, u]) => [m.toUpperCase(), u, 200, `answer of ${u}`]),
  );
  assert.ok(emitted.every((e) => e.entry.duration === 5 && e.entry.headersMs === 5));
  assert.deepEqual(emitted[2].entry.requestHeaders, { "x-n": "/poll?n=3" }, "each send has its own open's headers");

  // A form POST answered by a redirect (htmx's hx-post and a 303): the body is the final URL's.
  emitted.length = 0;
  const form = new XMLHttpRequest();
  form.open("POST", "/settings");
  form.redirectTo = "http://app.test/?saved=settings";
  form.send("theme=dark");
  form.pending();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(
    emitted.map((e) => [e.entry.method, e.entry.url, e.entry.redirected, e.entry.responseUrl]),
    [["POST", "/settings", true, "http://app.test/?saved=settings"]],
  );

  // An open() during a send ends that send: one entry for it too, and the next send is its own.
  emitted.length = 0;
  xhr.open("GET", "/slow");
  xhr.send();
  xhr.open("GET", "/fast");
  xhr.send();
  xhr.pending();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(
    emitted.map((e) => [e.entry.url, e.entry.error]),
    [
      ["/slow", "aborted by open()"],
      ["/fast", undefined],
    ],
  );

  // The page's own loadend listener, added before ours, opens and sends the next
  // request: the send that finished still gets its own response.
  emitted.length = 0;
  const chained = new XMLHttpRequest();
  const urls = ["/chain?n=1", "/chain?n=2", "/chain?n=3"];
  chained.addEventListener("loadend", () => {
    if (!urls.length) return;
    chained.open("GET", urls.shift());
    chained.send();
    queueMicrotask(() => chained.pending());
  });
  chained.open("GET", urls.shift());
  chained.send();
  chained.pending();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(
    emitted.map((e) => [e.entry.url, e.entry.status, e.entry.responseBody, e.entry.error]),
    [1, 2, 3].map((n) => [`/chain?n=${n}`, 200, `answer of /chain?n=${n}`, undefined]),
  );
  // The page's own handler of the response (a slow render in `load`) is not the request's time:
  // it ends at DONE, before the load handlers run.
  emitted.length = 0;
  const slowHandler = new XMLHttpRequest();
  slowHandler.open("GET", "/then-render");
  slowHandler.send();
  const done = slowHandler.pending;
  slowHandler.pending = () => {
    slowHandler.addEventListener("readystatechange", () => slowHandler.readyState === 4 && (clock += 400));
    done();
  };
  clock += 7;
  slowHandler.pending();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(emitted.map((e) => [e.entry.url, e.entry.duration]), [["/then-render", 7]]);
  delete globalThis.XMLHttpRequest;
});

test("an XHR that ends with nothing says why: aborted by the page, timed out or a network error; bad JSON is named", async () => {
  globalThis.XMLHttpRequest = FakeXHR; // wrapped by the test before
  emitted.length = 0;
  requestEnds.length = 0;
  const ends = { abort: "aborted (XHR abort())", timeout: "timed out (XHR timeout)", error: "network error (XHR status 0)" };
  for (const how of Object.keys(ends)) {
    const xhr = new XMLHttpRequest();
    xhr.open("GET", `/${how}`);
    xhr.send();
    xhr.readyState = 4; // as the browser leaves it, status 0, and says so (no headers came)
    xhr.dispatchEvent(new Event("readystatechange"));
    xhr.dispatchEvent(new Event(how));
    const end = new Event("loadend");
    end.loaded = 0;
    xhr.dispatchEvent(end);
  }
  const xhr = new XMLHttpRequest();
  xhr.open("GET", "/bad-json");
  xhr.send();
  xhr.pending = () => {
    Object.assign(xhr, { readyState: 4, status: 200, statusText: "OK", responseType: "json", response: null });
    const end = new Event("loadend");
    end.loaded = 9; // "{not json"
    xhr.dispatchEvent(end);
  };
  xhr.pending();
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(
    emitted.map((e) => [e.entry.url, e.entry.status, e.entry.error]),
    [...Object.entries(ends).map(([how, why]) => [`/${how}`, 0, why]), ["/bad-json", 200, undefined]],
  );
  assert.equal(emitted[3].entry.responseBody, "[not valid JSON: the page's response is null]");
  // The waterfall hears the same reasons: a refused connection broke no body off (no headers came).
  assert.deepEqual(requestEnds.slice(0, 3).map((o) => o.error), Object.values(ends));
  delete globalThis.XMLHttpRequest;
});

test("an XHR response asked for as a Blob or an ArrayBuffer is read when its type is text, else named by its size", async () => {
  globalThis.XMLHttpRequest = FakeXHR; // wrapped by the test before
  emitted.length = 0;
  const json = JSON.stringify({ ok: true, items: [1, 2, 3] });
  const answers = [
    ["blob", new Blob([json], { type: "application/json" }), "application/json"],
    ["arraybuffer", new TextEncoder().encode(`é${json}`).buffer, "application/json; charset=utf-8"],
    ["blob", new Blob([new Uint8Array(10)], { type: "image/png" }), "image/png"],
    ["arraybuffer", new Uint8Array(7).buffer, "application/octet-stream"],
    ["arraybuffer", new TextEncoder().encode("x".repeat(limits.BODY_CAP + 5)).buffer, "text/plain"],
  ];
  for (const [i, [type, response, contentType]] of answers.entries()) {
    const xhr = new XMLHttpRequest();
    xhr.getResponseHeader = (name) => (name.toLowerCase() === "content-type" ? contentType : null);
    xhr.open("GET", `/${i}`);
    xhr.send();
    Object.assign(xhr, { readyState: 4, status: 200, statusText: "OK", responseType: type, response });
    const end = new Event("loadend");
    end.loaded = response.size ?? response.byteLength;
    xhr.dispatchEvent(end);
  }
  await new Promise((r) => setTimeout(r, 20)); // a Blob is read asynchronously
  const fields = (e) => [e.entry.responseBody, e.entry.responseBodySize, e.entry.responseBodyTruncated];
  const byUrl = (i) => emitted.find((e) => e.entry.url === `/${i}`);
  assert.equal(emitted.length, answers.length);
  assert.deepEqual(fields(byUrl(0)), [json, undefined, undefined]);
  assert.deepEqual(fields(byUrl(1)), [`é${json}`, undefined, undefined]);
  assert.deepEqual(fields(byUrl(2)), ["[Blob 10 bytes image/png]", 10, undefined]);
  assert.deepEqual(fields(byUrl(3)), ["[binary 7 bytes]", 7, undefined]);
  assert.deepEqual(fields(byUrl(4)), ["x".repeat(limits.BODY_CAP), limits.BODY_CAP + 5, true]);
  delete globalThis.XMLHttpRequest;
});

test("vitals: a route change reports the page left with its final values, then a fresh page", () => {
  globalThis.location = { href: "http://app.test/list" };
  globalThis.window = new EventTarget();
  globalThis.document = new EventTarget();
  let routeListener;
  G.routes = { onChange: (fn) => (routeListener = fn) };
  clock = 0;
  timers.length = 0;
  emitted.length = 0;
  G.sources.vitals({ core: G.core, outbox, requests: noRequests });
  const loaded = Math.round(performance.timeOrigin); // when the load's page began, as epoch ms
  const shift = (startTime, value) => observers["layout-shift"]([{ startTime, value, hadRecentInput: false }]);
  const event = (startTime, interactionId, duration) => observers.event([{ startTime, interactionId, duration }]);

  observers.navigation([{ responseStart: 30.000000000093132 }]); // reported to a tenth of a millisecond
  observers.paint([{ name: "first-contentful-paint", startTime: 200 }]);
  observers["largest-contentful-paint"]([{ startTime: 400 }]);
  shift(500, 0.25);
  clock = 600;
  event(590, 7, 80);
  advance(1000);
  assert.deepEqual(emitted.map((e) => e.entry), [
    { url: "http://app.test/list", lcp: 400, cls: 0.25, inp: 80, fcp: 200, ttfb: 30, navigation: "load", started: loaded },
  ]);

  // A click at 3000 whose handler navigates; the browser reports it after the route changed.
  emitted.length = 0;
  clock = 3100;
  location.href = "http://app.test/item/1";
  routeListener({ how: "pushState", from: "http://app.test/list", to: location.href });
  event(3000, 14, 300); // began on /list: it is /list's
  shift(3200, 0.05); // began on /item/1
  advance(1000);
  assert.deepEqual(
    emitted.map((e) => e.entry),
    [
      { url: "http://app.test/list", lcp: 400, cls: 0.25, inp: 300, fcp: 200, ttfb: 30, navigation: "load", started: loaded },
      { url: "http://app.test/item/1", lcp: null, cls: 0.05, inp: null, fcp: null, ttfb: null, navigation: "pushState", started: loaded + 3100 },
    ],
    "the page left first, with the click that left it; then the new page, fresh",
  );

  // A query-only change or an in-page anchor is the same page; a hash route is a new one.
  emitted.length = 0;
  routeListener({ how: "replaceState", from: location.href, to: "http://app.test/item/1?tab=2#notes" });
  event(4500, 21, 120);
  advance(1000);
  assert.deepEqual(emitted.map((e) => [e.entry.url, e.entry.cls, e.entry.inp]), [["http://app.test/item/1", 0.05, 120]]);
  emitted.length = 0;
  routeListener({ how: "hashchange", from: "http://app.test/item/1?tab=2#notes", to: "http://app.test/item/1#/settings" });
  advance(1000);
  assert.deepEqual(
    emitted.map((e) => [e.entry.url, e.entry.inp, e.entry.navigation]),
    [
      ["http://app.test/item/1", 120, "pushState"],
      ["http://app.test/item/1#/settings", null, "hashchange"],
    ],
    "the page left, then the new route with no figure yet: it is where the tab is",
  );
  delete globalThis.location;
  delete globalThis.window;
  delete globalThis.document;
});

test("fetch: duration runs to the end of the body, headersMs to the headers, and the page's body stays the page's", async () => {
  const encoder = new TextEncoder();
  /** A body of `chunks` chunks of `size` bytes, each arriving 500 ms after the one before. */
  const pulls = {};
  const slowBody = (chunks, size, name) => {
    let n = 0;
    pulls[name] = 0;
    return new ReadableStream({
      pull(controller) {
        pulls[name]++;
        clock += 500;
        controller.enqueue(encoder.encode("x".repeat(size)));
        if (++n === chunks) controller.close();
      },
    }, { highWaterMark: 0 }); // nothing arrives before it is read
  };
  const answers = {
    "/stream": () => new Response(slowBody(4, 100, "stream"), { headers: { "content-type": "text/plain" } }),
    "/endless": () => new Response(slowBody(Infinity, 1024, "endless"), { headers: { "content-type": "text/plain" } }),
    "/events": () => new Response(slowBody(Infinity, 10, "events"), { headers: { "content-type": "text/event-stream" } }),
    // No content-type at all (a bare dev server), and a binary body of unknown length.
    "/untyped": () => new Response(new TextEncoder().encode("plain answer")).clone(),
    "/picture": () => new Response(new Blob([new Uint8Array([137, 80, 78, 71])], { type: "image/png" })),
  };
  globalThis.window = {
    async fetch(url) {
      clock += 10; // the headers take 10 ms
      return answers[url]();
    },
  };
  G.sources.fetch({ core: G.core, outbox, bodies: G.bodies, limits, requests: noRequests, consumed: G.consumed });
  emitted.length = 0;
  clock = 0;
  const streamed = await window.fetch("/stream");
  assert.equal((await streamed.text()).length, 400, "the page reads its whole body");
  const entry = async (url) => {
    // A body the page leaves unread is read after consumed.js's 1 s wait, on the real clock.
    for (let i = 0; i < 600 && !emitted.some((e) => e.entry.url === url); i++) await new Promise((r) => setTimeout(r, 5));
    return emitted.find((e) => e.entry.url === url).entry;
  };
  const s = await entry("/stream");
  assert.deepEqual([s.headersMs, s.duration, s.durationTo, s.responseBody.length], [10, 2010, "body", 400]);
  assert.equal(s.ts, 1_700_000_000_000, "the entry is dated when the request started, as its waterfall row, not when its body was read");

  const endless = await window.fetch("/endless"); // never read by the page
  const e = await entry("/endless");
  assert.equal(e.durationTo, "cap", "an endless body: our read stops at the cap, and says so");
  assert.equal(e.responseBodyTruncated, true);
  assert.equal(e.responseBody.length, limits.BODY_CAP);
  const chunks = limits.BODY_CAP / 1024 + 1; // up to the chunk that passed the cap
  assert.ok(pulls.endless <= chunks + 1, `${pulls.endless} chunks pulled for a cap of ${chunks - 1}`);
  assert.equal(e.duration - e.headersMs, 500 * pulls.endless, "duration ends where our read stopped");
  assert.equal(endless.bodyUsed, false, "the page's body is untouched");
  const first = await endless.body.getReader().read();
  assert.equal(first.value.length, 1024, "and still the page's to read");

  const events = await window.fetch("/events");
  const v = await entry("/events");
  assert.deepEqual([v.durationTo, v.responseBody, v.duration === v.headersMs], ["headers", "[stream]", true], "a streaming type is not read");
  assert.equal(events.bodyUsed, false);
  assert.equal(pulls.events, 0, "nothing of it was pulled");

  const untyped = await window.fetch("/untyped");
  assert.equal(untyped.headers.get("content-type"), null);
  assert.equal(await untyped.text(), "plain answer");
  assert.equal((await entry("/untyped")).responseBody, "plain answer", "a body without a content-type is read as text");
  await window.fetch("/picture");
  assert.equal((await entry("/picture")).responseBody, "[image/png body not captured]", "a binary body of unknown length is named");
  delete globalThis.window;
});

test("an EventSource cut off as the page is left says so, as a fetch canceled then does", () => {
  class FakeEventSource extends EventTarget {
    constructor(url) {
      super();
      this.at = url;
    }
  }
  Object.defineProperty(FakeEventSource.prototype, "url", { get() { return this.at; }, configurable: true });
  Object.defineProperty(FakeEventSource.prototype, "readyState", { get: () => 0, configurable: true });
  FakeEventSource.prototype.close = function () {};
  globalThis.EventSource = FakeEventSource;
  let leaving = false;
  const ends = [];
  const requests = { ...noRequests, end: (r, outcome) => ends.push(outcome), failure: (t) => (leaving ? `canceled as the page was left: ${t}` : t) };
  G.sources.eventsource({ core: G.core, outbox, serialize, limits, requests });
  new EventSource("/sse").dispatchEvent(new Event("error"));
  leaving = true; // a reload began: the browser ends the page's streams
  new EventSource("/sse").dispatchEvent(new Event("error"));
  assert.deepEqual(ends, [
    { failed: true, error: "EventSource connection failed" },
    { failed: true, error: "canceled as the page was left: EventSource connection failed" },
  ]);
  delete globalThis.EventSource;
});
