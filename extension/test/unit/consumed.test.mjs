// page/consumed.js: a fetch response's body taken from the page's own read of
// it (no clone), on node's Response (the same Fetch API as the page's). The
// page must get exactly what the built-ins give; we get the text once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const limits = require("../../lib/limits.js");

// Deadlines under the test's control.
const timers = [];
const core = {
  apply: Reflect.apply,
  then: Promise.prototype.then,
  Promise,
  perfNow: () => 42,
  later: (fn, ms) => {
    const t = { fn, ms };
    timers.push(t);
    return () => timers.includes(t) && timers.splice(timers.indexOf(t), 1);
  },
  fill(owner, name, make) {
    const d = Object.getOwnPropertyDescriptor(owner, name);
    Object.defineProperty(owner, name, { ...d, value: make(d.value) });
    return d.value;
  },
  disguise: (wrapper) => wrapper,
  clean: (error) => error,
  invoke: Reflect.apply,
  weakMap: () => new WeakMap(),
};
globalThis.__gasoline = { core, limits };
require("../../page/bodies.js");
require("../../page/consumed.js");
const { consumed } = globalThis.__gasoline;
delete globalThis.__gasoline;

/** A watched response of `text`, and the reads `done` was handed. */
function watched(text, init = {}) {
  const response = new Response(text, init);
  const reads = [];
  consumed.watch(response, undefined, 7, (read) => reads.push(read)); // headers at 7
  return { response, reads };
}

const settle = () => new Promise((r) => setImmediate(r));

test("the page's json() gets the parsed body and we get its text, read once", async () => {
  const { response, reads } = watched('{"items":[1,2],"name":"é"}');
  assert.deepEqual(await response.json(), { items: [1, 2], name: "é" });
  await settle();
  assert.equal(reads.length, 1);
  assert.deepEqual(reads[0], { body: { text: '{"items":[1,2],"name":"é"}', size: 26, truncated: false }, end: 42, to: "body" });
  assert.equal(response.bodyUsed, true);
  assert.equal(timers.length, 0, "the fallback deadline is gone once the page read");
});

test("text, arrayBuffer and blob give the page the built-in's value and us the text, cut to the cap", async () => {
  const big = "x".repeat(limits.BODY_CAP + 10);
  const a = watched(big);
  assert.equal(await a.response.text(), big);
  const b = watched("bytes é");
  const buffer = await b.response.arrayBuffer();
  assert.ok(buffer instanceof ArrayBuffer);
  assert.equal(new TextDecoder().decode(buffer), "bytes é");
  const c = watched("a blob");
  const blob = await c.response.blob();
  assert.equal(await blob.text(), "a blob");
  await settle();
  await settle();
  assert.deepEqual(a.reads[0].body, { text: big.slice(0, limits.BODY_CAP), size: big.length, truncated: true });
  assert.equal(b.reads[0].body.text, "bytes é");
  assert.equal(c.reads[0].body.text, "a blob");
});

test("json() of a body that is not JSON rejects with a SyntaxError, as the built-in does; we still have the text", async () => {
  const { response, reads } = watched("<html>not json");
  const error = await response.json().then(
    () => assert.fail("parsed"),
    (e) => e,
  );
  assert.ok(error instanceof SyntaxError);
  assert.equal(error.stack, `SyntaxError: ${error.message}`, "no frame of ours in the page's stack");
  await settle();
  assert.equal(reads[0].body.text, "<html>not json");
});

test("a second read rejects as the built-in's does, and we are told once", async () => {
  const { response, reads } = watched("once");
  assert.equal(await response.text(), "once");
  await assert.rejects(response.text(), TypeError);
  await settle();
  assert.equal(reads.length, 1);
});

test("the body stream taken by the page: the page reads all of it, and we read a clone of it", async () => {
  const { response, reads } = watched("streamed body");
  const reader = response.body.getReader();
  let got = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    got += new TextDecoder().decode(value);
  }
  assert.equal(got, "streamed body");
  for (let i = 0; i < 5 && !reads.length; i++) await settle();
  assert.equal(reads.length, 1);
  assert.equal(reads[0].body.text, "streamed body");
  assert.equal(reads[0].to, "body");
});

/** A response whose body never ends (a chunk per pull), and whether its source was cancelled. */
function endless() {
  const source = { cancelled: false, pulls: 0 };
  const stream = new ReadableStream({
    pull(controller) {
      source.pulls++;
      controller.enqueue(new TextEncoder().encode("tick\n"));
      return new Promise((r) => setTimeout(r, 5));
    },
    cancel() {
      source.cancelled = true;
    },
  });
  const response = new Response(stream, { headers: { "content-type": "text/plain" } });
  const reads = [];
  consumed.watch(response, undefined, 7, (read) => reads.push(read));
  return { response, reads, source };
}

for (const [how, cancel] of [
  ["its reader's cancel()", async (body) => {
    const reader = body.getReader();
    await reader.read();
    await reader.cancel();
  }],
  ["the stream's cancel()", (body) => body.cancel()],
  ["break in for await", async (body) => {
    for await (const chunk of body) if (chunk) break;
  }],
]) {
  test(`a body stream the page cancels (${how}) is not kept coming by our read of the clone`, async () => {
    const { response, reads, source } = endless();
    await cancel(response.body);
    for (let i = 0; i < 50 && !(source.cancelled && reads.length); i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(source.cancelled, true, "the response's source was cancelled, as without us");
    assert.equal(reads.length, 1);
    assert.equal(reads[0].to, "cancelled");
    assert.equal(reads[0].body.truncated, true);
  });
}

test("a body the page has not read by the deadline is read from a clone, and the page can still read it", async () => {
  timers.length = 0;
  const { response, reads } = watched("read later");
  assert.equal(timers.length, 1);
  timers.splice(0, 1)[0].fn(); // the deadline passes
  for (let i = 0; i < 5 && !reads.length; i++) await settle();
  assert.equal(reads[0].body.text, "read later");
  // When it arrived is not ours to see: the entry ends at the headers, not at our late read.
  assert.equal(reads[0].to, "headers");
  assert.equal(reads[0].end, 7);
  assert.equal(await response.text(), "read later");
  await settle();
  assert.equal(reads.length, 1, "the page's late read is not a second body");
});

test("responses nobody watches are the built-ins' own business", async () => {
  const response = new Response('{"a":1}');
  assert.deepEqual(await response.json(), { a: 1 });
  assert.equal(new Response(null).body, null);
  assert.equal(consumed.hasBody(new Response(null)), false);
  assert.equal(consumed.hasBody(new Response("x")), true);
});
