// The page-world parts that do not need a browser: body descriptions, capped
// stream reading and the outbox (held until the settings arrive, the user's
// lists handed to the sources, sliced). They are classic scripts sharing a namespace on
// the global, set up here as lib/ and page/core.js would in the page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const limits = require("../../lib/limits.js");
const serialize = require("../../lib/serialize.js");
const redact = require("../../lib/redact.js");

// Timers and the clock under the test's control.
const timers = [];
let clock = 0;
const core = {
  setTimeout: (fn, ms) => timers.push({ fn, ms }) && timers.length,
  later: (fn, ms) => {
    const t = { fn, ms };
    timers.push(t);
    return () => timers.includes(t) && timers.splice(timers.indexOf(t), 1);
  },
  clearTimeout: () => {},
  now: () => 1000,
  perfNow: () => clock,
  Promise,
  apply: Reflect.apply,
  then: Promise.prototype.then,
};
function runTimers(maxMs = Infinity) {
  for (let guard = 0; guard < 1000; guard++) {
    const i = timers.findIndex((t) => t.ms <= maxMs);
    if (i < 0) return;
    timers.splice(i, 1)[0].fn();
  }
}

const sent = [];
const droppedReports = [];
let settingsListener = null;
globalThis.__gasoline = {
  kinds: require("../../lib/kinds.js"),
  limits,
  serialize,
  redact,
  core,
  channel: {
    send: (events) => sent.push(...events),
    sendDropped: (counts, unbuilt) => droppedReports.push(unbuilt ? { ...counts, unbuilt } : { ...counts }),
    onSettings: (fn) => (settingsListener = fn),
  },
};
require("../../page/bodies.js");
require("../../page/outbox.js");
const { bodies, outbox } = globalThis.__gasoline;
delete globalThis.__gasoline;

test("request bodies are described without reading past the cap", async () => {
  const big = "x".repeat(5 * limits.BODY_CAP);
  assert.deepEqual(bodies.describeBody(big), { text: big.slice(0, limits.BODY_CAP), size: big.length, truncated: true });
  const form = new URLSearchParams(Array.from({ length: 5000 }, (_, i) => [`k${i}`, "v".repeat(20)]));
  const f = bodies.describeBody(form);
  assert.equal(f.truncated, true);
  assert.equal(f.text.length, limits.BODY_CAP);
  // The bytes a URLSearchParams body sends, as the page's server receives them.
  const params = new URLSearchParams({ q: "hello world", n: "5", odd: "a*b-c.d_e!'()~é" });
  assert.deepEqual(bodies.describeBody(params), { text: params.toString(), truncated: false });
  assert.equal(bodies.describeBody(params).text, "q=hello+world&n=5&odd=a*b-c.d_e%21%27%28%29%7E%C3%A9");
  assert.deepEqual(bodies.describeBody(new Uint8Array(10)), { note: "[binary 10 bytes]", size: 10 });
  assert.deepEqual(bodies.describeBody(new ReadableStream()), { note: "[stream]", stream: true });
  const blob = bodies.describeBody(new Blob([big], { type: "text/plain" }));
  assert.deepEqual(await blob.later, { text: big.slice(0, limits.BODY_CAP), size: big.length, truncated: true });
  assert.deepEqual(bodies.describeBody(new Blob([new Uint8Array(3)], { type: "image/png" })), { note: "[Blob 3 bytes image/png]", size: 3 });
});

test("a stream is read up to the cap, then cancelled", async () => {
  let pulls = 0;
  let cancelled = false;
  const endless = new ReadableStream({
    pull(controller) {
      pulls++;
      controller.enqueue(new TextEncoder().encode("y".repeat(1024)));
    },
    cancel() {
      cancelled = true;
    },
  });
  const read = await bodies.readCapped(endless, undefined);
  assert.equal(read.text.length, limits.BODY_CAP);
  assert.equal(read.truncated, true);
  assert.ok(pulls <= limits.BODY_CAP / 1024 + 3, `pulled ${pulls} chunks of 1 KiB for a 16 KiB cap`);
  assert.ok(cancelled, "the rest is never read");
  const split = new ReadableStream({
    start(controller) {
      for (const bytes of [[0x68], [0xc3], [0xa9]]) controller.enqueue(new Uint8Array(bytes)); // "hé", é across two chunks
      controller.close();
    },
  });
  assert.deepEqual(await bodies.readCapped(split), { text: "hé", size: 3, truncated: false, ended: "body" });
  const small = await bodies.readCapped(new Blob(["hello"]).stream());
  assert.deepEqual(small, { text: "hello", size: 5, truncated: false, ended: "body" });
  assert.equal(read.ended, "cap");
  assert.deepEqual(bodies.bodyFields("request", { note: "[stream]", stream: true }), { requestBody: "[stream]", requestBodyStream: true });
  // A response body not taken, of no known size (a chunked gRPC-web answer): its size is unknown,
  // not the note's length.
  assert.deepEqual(bodies.bodyFields("response", { note: "[application/grpc-web+proto body not captured]" }), {
    responseBody: "[application/grpc-web+proto body not captured]",
    responseBodySize: null,
  });
  assert.deepEqual(bodies.bodyFields("response", { note: "[application/proto 28 bytes not captured]", size: 28 }).responseBodySize, 28);
});

test("a stream that stops sending is given up after the read timeout, with what came", async () => {
  let cancelled = false;
  const stalled = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("partial"));
      controller.enqueue(new Uint8Array([0xc3])); // the first byte of "é": the rest never comes
    },
    cancel() {
      cancelled = true;
    },
  });
  timers.length = 0;
  const reading = bodies.readCapped(stalled, 100);
  await new Promise((r) => setImmediate(r)); // the first chunk is read; the next read waits
  const timer = timers.find((t) => t.ms === 10000);
  assert.ok(timer, "one deadline for the whole read");
  timer.fn();
  assert.deepEqual(await reading, { text: "partial", size: 100, truncated: true, ended: "timeout" }, "a character cut short is left out");
  assert.ok(cancelled, "the stream is cancelled");
  timers.length = 0;
});

test("a read the page's own replacements break ends as failed, with no error or rejection the page could hear of", async () => {
  const unhandled = [];
  const listener = (reason) => unhandled.push(reason);
  process.on("unhandledRejection", listener);
  const stream = (text) =>
    new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });
  const decode = TextDecoder.prototype.decode;
  TextDecoder.prototype.decode = () => {
    throw new Error("a page's TextDecoder");
  };
  try {
    await assert.rejects(bodies.readCapped(stream("decoded by a broken decoder")), /body read failed/);
  } finally {
    TextDecoder.prototype.decode = decode;
  }
  const Reader = new ReadableStream().getReader().constructor;
  const read = Reader.prototype.read;
  Reader.prototype.read = function () {
    throw new Error("a page's reader");
  };
  try {
    await assert.rejects(bodies.readCapped(stream("never read")), /body read failed/);
  } finally {
    Reader.prototype.read = read;
  }
  const answers = [];
  bodies.readStream(stream("ok"), undefined, (r) => {
    answers.push(r);
    throw new Error("the caller's own failure");
  });
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(answers, [{ text: "ok", size: 2, truncated: false, ended: "body" }], "answered once");
  await new Promise((r) => setTimeout(r, 10));
  process.off("unhandledRejection", listener);
  assert.deepEqual(unhandled, []);
  timers.length = 0;
});

test("request headers are read from Headers, pairs and records, never from an iterator the page's request still needs", () => {
  assert.deepEqual(bodies.headersToObject(new Headers({ "X-A": "1" })), { "x-a": "1" });
  assert.deepEqual(bodies.headersToObject([["X-B", 2]]), { "x-b": "2" });
  assert.deepEqual(bodies.headersToObject({ "X-C": "3" }), { "x-c": "3" });
  function* generated() {
    yield ["x-gen", "g1"];
  }
  for (const make of [generated, () => new Headers({ "x-it": "1" }).entries(), () => new Map([["x-map", "1"]]).entries()]) {
    const given = make();
    assert.deepEqual(bodies.headersToObject(given), {}, "not read");
    assert.equal([...given].length, 1, "still whole for the page's request");
  }
});

test("the outbox holds events until the settings arrive, builds them with the user's lists, and leaves redaction to the worker", () => {
  const raw = 'first {"tenant_code":"T-1","password":"p"}';
  outbox.emit("logs", (policy) => ({ message: raw, tenantCodeIsSecret: redact.isSecretKey("tenant_code", policy) }));
  runTimers(0);
  assert.equal(sent.length, 0, "nothing is built before the settings arrive");
  settingsListener({ redactBodyKeys: ["tenant_code"], capture: { actions: false } });
  outbox.emit("actions", () => ({ type: "click" })); // switched off by the user
  runTimers(0);
  assert.equal(sent.length, 0, "events are gathered for a while before they are built");
  runTimers(100);
  assert.equal(sent.length, 1);
  // The source saw the user's list (what console.table's cells are redacted by); the entry goes to
  // the worker as it was built, and the worker redacts it (e2e: hostile.mjs finds this very
  // message redacted by the user's key in the database, run.mjs no planted secret in the file).
  assert.deepEqual(sent[0].entry, { message: raw, tenantCodeIsSecret: true, ts: 1000 });
});

test("the outbox builds in slices, never throws, and drops what a build logs", () => {
  sent.length = 0;
  for (let i = 0; i < 10; i++) {
    outbox.emit("logs", () => {
      clock += 4; // each build takes 4 ms
      outbox.emit("logs", () => ({ message: "logged by a getter while building" }));
      if (i === 3) throw new Error("a getter threw");
      return { message: `event ${i}` };
    });
  }
  // Gathered first: one timer for the whole burst, then idle-time slices.
  assert.deepEqual(
    timers.map((t) => t.ms),
    [100],
  );
  timers.pop().fn();
  let slices = 0;
  while (timers.some((t) => t.ms === 0)) {
    const before = sent.length;
    const i = timers.findIndex((t) => t.ms === 0);
    timers.splice(i, 1)[0].fn();
    slices++;
    assert.ok(sent.length - before <= 2, "at most ~6 ms of building per task");
  }
  assert.ok(slices >= 5);
  assert.deepEqual(
    sent.map((e) => e.entry.message),
    [0, 1, 2, 4, 5, 6, 7, 8, 9].map((i) => `event ${i}`),
  );
});

test("events beyond the outbox's bound drop the oldest, and the drops are counted for the worker", () => {
  sent.length = 0;
  for (let i = 0; i < 5003; i++) outbox.emit("logs", () => ({ message: `flood ${i}` }));
  outbox.flushAll();
  assert.equal(sent.length, 5000);
  assert.equal(sent[0].entry.message, "flood 3", "the oldest went");
  // The entry of the earlier test whose build threw was reported as not built; these as lost to the bound.
  assert.deepEqual(droppedReports, [{ logs: 1, unbuilt: true }, { logs: 3 }]);
  timers.length = 0;
});

test("one kind's flood takes its own oldest places, never another kind's, and events go out in the order they came", () => {
  sent.length = 0;
  droppedReports.length = 0;
  outbox.emit("network_waterfall", () => ({ url: "/first" }));
  outbox.emit("logs", () => ({ level: "error", message: "the error before the flood" }), true);
  for (let i = 0; i < 12000; i++) {
    outbox.emit("logs", () => ({ message: `flood ${i}` }));
    if (i === 6000) outbox.emit("network_bodies", () => ({ url: "/first", body: "{}" }));
  }
  outbox.emit("network_waterfall", () => ({ url: "/last" }));
  outbox.flushAll();
  const kinds = (kind) => sent.filter((e) => e.kind === kind);
  assert.deepEqual(
    kinds("network_waterfall").map((e) => e.entry.url),
    ["/first", "/last"],
    "the requests outlive the log flood",
  );
  assert.equal(kinds("network_bodies").length, 1);
  const logs = kinds("logs").map((e) => e.entry.message);
  assert.equal(logs.length, 5001, "a kind keeps its newest 5,000, and its errors apart");
  assert.equal(logs[0], "the error before the flood");
  assert.equal(logs[1], "flood 7000");
  assert.equal(logs[5000], "flood 11999");
  assert.deepEqual(droppedReports, [{ logs: 7000 }], "only the flooding kind lost events, and the loss is counted");
  // Arrival order across kinds: the first request; the body, which came after log 6000, so before
  // the logs that are left; those logs; the last request.
  assert.deepEqual(
    sent.slice(0, 4).map((e) => e.entry.level ?? e.kind),
    ["network_waterfall", "error", "network_bodies", "logs"],
  );
  assert.equal(sent.at(-1).entry.url, "/last");
  timers.length = 0;
});
