// content/relay.js and background/page_marks.js together: the relay holds a
// page's events until the service worker says they are stored and sends them
// again otherwise; the worker's marks make what it had already taken count
// once. Runs the real relay script with a real MessageChannel (node's) and a
// worker that stores through PageMarks as background/worker.js does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import vm from "node:vm";

const require = createRequire(import.meta.url);
const { PageMarks } = require("../../background/page_marks.js");
const source = readFileSync(new URL("../../content/relay.js", import.meta.url), "utf8");

function memoryStore() {
  const map = new Map();
  return {
    map,
    get: async () => Object.fromEntries(map),
    set: async (items) => Object.entries(items).forEach(([k, v]) => map.set(k, structuredClone(v))),
    remove: async (keys) => keys.forEach((k) => map.delete(k)),
  };
}

/**
 * A worker that takes the relay's messages as worker.js does. `script` says,
 * call by call, what goes wrong: "lost-reply" (stored, answer lost), "stopped"
 * (stopped before storing), "ok".
 */
function worker(store, script) {
  const w = { stored: [], calls: 0, dropped: [], marks: new PageMarks(store) };
  w.onMessage = async (message) => {
    if (message.type === "dropped") {
      w.dropped.push(message);
      return undefined;
    }
    const what = script[w.calls++] || "ok";
    if (what === "stopped") throw new Error("A listener indicated an asynchronous response by returning true, but the message channel closed before a response was received");
    await w.marks.load();
    let last;
    for (const e of message.events) {
      last = Math.max(last ?? e.id, e.id);
      if (!w.marks.seen(message.page, e.id)) w.stored.push(e.entry.message);
    }
    await w.marks.record(message.page, last);
    if (what === "lost-reply") throw new Error("The message port closed before a response was received.");
    return { stored: true };
  };
  return w;
}

/** Loads relay.js in a context of its own; returns the page's end of the channel. */
function relay(w, storage = { local: { get: async () => ({}) }, onChanged: { addListener() {} } }) {
  let pagePort;
  const context = vm.createContext({
    MessageChannel,
    MessageEvent,
    setTimeout,
    clearTimeout,
    crypto,
    document: { dispatchEvent: (event) => (pagePort = event.ports[0]) },
    chrome: {
      runtime: { sendMessage: (message) => w.onMessage(structuredClone(message)) },
      storage,
    },
  });
  vm.runInContext(source, context);
  pagePort.onmessage = () => {}; // settings from the relay
  return pagePort;
}

const logs = (from, to) =>
  Array.from({ length: to - from }, (_, i) => ({ kind: "logs", entry: { level: "log", message: `m${from + i}` } }));

async function until(what, check, ms = 10000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("events the worker got no answer for are sent again and stored once, in order", async (t) => {
  const store = memoryStore();
  const w = worker(store, ["lost-reply", "stopped", "ok", "lost-reply", "ok"]);
  const port = relay(w);
  t.after(() => port.close());
  port.postMessage(logs(0, 5));
  await until("the first batch stored", () => w.stored.length >= 5 && w.calls >= 3);
  port.postMessage(logs(5, 8));
  port.postMessage(logs(8, 12));
  await until("every event stored", () => w.stored.length >= 12 && w.calls >= 5);
  await new Promise((r) => setTimeout(r, 600)); // nothing more goes
  assert.deepEqual(w.stored, Array.from({ length: 12 }, (_, i) => `m${i}`));
  assert.equal(w.calls, 5, "answered messages are not sent again");
  port.close();
});

test("a new worker knows the marks its predecessor stored", async (t) => {
  const store = memoryStore();
  const first = worker(store, ["lost-reply"]);
  const ids = [];
  const original = first.onMessage;
  let second;
  first.onMessage = async (message) => {
    ids.push(message.page);
    if (first.calls >= 1) return second.onMessage(message); // the worker was replaced
    return original(message);
  };
  second = worker(store, ["ok"]);
  const port = relay(first);
  t.after(() => port.close());
  port.postMessage(logs(0, 3));
  await until("a second message", () => second.calls >= 1);
  assert.deepEqual(first.stored, ["m0", "m1", "m2"]);
  assert.deepEqual(second.stored, [], "the new worker skipped what the old one stored");
  assert.equal(ids[0], ids[1], "the same page id both times");
  port.close();
});

test("marks are bounded and forget the pages heard from least recently", async () => {
  const store = memoryStore();
  const marks = new PageMarks(store, 2);
  await marks.load();
  await marks.record("a", 5);
  await marks.record("b", 1);
  await marks.record("a", 6);
  await marks.record("c", 1);
  assert.equal(marks.seen("b", 1), false, "b was forgotten");
  assert.equal(marks.seen("a", 6), true);
  assert.equal(marks.seen("a", 7), false);
  assert.deepEqual([...store.map.keys()].sort(), ["m:a", "m:c"]);
  assert.equal(marks.seen(undefined, 1), false, "events without a page are never skipped");
});

test("settings saved while the relay starts are not taken back by its first read's older answer", async (t) => {
  let answer;
  let onChanged;
  const storage = {
    local: { get: () => new Promise((resolve) => (answer = resolve)) },
    onChanged: { addListener: (fn) => (onChanged = fn) },
  };
  const port = relay(worker(memoryStore(), []), storage);
  t.after(() => port.close());
  const seen = [];
  port.onmessage = (m) => seen.push(m.data.redactBodyKeys);
  onChanged({ settings: { newValue: { redactBodyKeys: ["new"] } } }, "local");
  answer({ settings: { redactBodyKeys: ["old"] } });
  await until("the page got its settings", () => seen.length >= 1);
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(seen, [["new"]]);
});
