// content/relay.js and background/page_marks.js together: the relay holds a
// page's events until the service worker says they are stored and sends them
// again otherwise; the worker's marks make what it had already taken count
// once. Runs the real relay script with a real MessageChannel (node's) and a
// worker that stores through PageMarks as background/worker.js does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";
import { PageMarks } from "../../background/page_marks.js";

const source = readFileSync(new URL("../../content/relay.js", import.meta.url), "utf8");
const scopeSource = readFileSync(new URL("../../lib/scope.js", import.meta.url), "utf8");

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
  const w = { stored: [], calls: 0, sent: [], dropped: [], marks: new PageMarks(store) };
  w.onMessage = async (message) => {
    if (message.type === "dropped") {
      w.dropped.push(message);
      return undefined;
    }
    const what = script[w.calls++] || "ok";
    w.sent.push(message.events.map((e) => e.id));
    if (what === "stopped") throw new Error("A listener indicated an asynchronous response by returning true, but the message channel closed before a response was received");
    await w.marks.load();
    const ids = message.events.map((e) => e.id);
    for (const e of message.events) {
      if (!w.marks.seen(message.page, e.id)) w.stored.push(e.entry.message);
    }
    await w.marks.record(message.page, Math.min(...ids), Math.max(...ids));
    if (what === "lost-reply") throw new Error("The message port closed before a response was received.");
    return { stored: true };
  };
  return w;
}

/** An element in no document, as far as the relay uses one: events and attributes. */
class Detached extends EventTarget {
  attributes = new Map();
  setAttribute(name, value) {
    this.attributes.set(name, String(value));
  }
  getAttribute(name) {
    return this.attributes.get(name) ?? null;
  }
  removeAttribute(name) {
    this.attributes.delete(name);
  }
}

/** What the relay's handshake event for its bridge is, as far as it uses one. */
class FocusEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    this.relatedTarget = init.relatedTarget ?? null;
  }
}

/**
 * Loads relay.js in a context of its own; returns the page's end of the channel, with
 * `sendNow(events)`: what page/channel.js does in the page's pagehide (the bridge, synchronously).
 */
function relay(w, storage = { local: { get: async () => ({}) }, onChanged: { addListener() {} } }, origin = "http://127.0.0.1:8000", ancestors = [], href = `${origin}/`) {
  let pagePort;
  let bridge;
  let listener;
  const context = vm.createContext({
    // A frame's ancestors' origins, the top page's last (Chrome's location.ancestorOrigins).
    location: { ancestorOrigins: ancestors, href },
    MessageChannel,
    MessageEvent,
    FocusEvent,
    setTimeout,
    clearTimeout,
    origin,
    URL,
    // What a page on plain http:// (not a secure context) has: no randomUUID, no subtle.
    crypto: { getRandomValues: (a) => crypto.getRandomValues(a) },
    document: {
      createElement: () => new Detached(),
      dispatchEvent: (event) => (event instanceof FocusEvent ? (bridge = event.relatedTarget) : (pagePort = event.ports[0])),
    },
    chrome: {
      runtime: {
        id: "gasoline",
        sendMessage: (message) => w.onMessage(structuredClone(message)),
        onMessage: { addListener: (f) => (listener = f) },
      },
      storage,
    },
  });
  vm.runInContext(scopeSource, context);
  vm.runInContext(source, context);
  // What the popup asks the page's relay.
  pagePort.ping = () => new Promise((resolve) => listener({ type: "gasoline:ping" }, { id: "gasoline" }, resolve));
  pagePort.sendNow = (events) => {
    bridge.setAttribute("data-events", JSON.stringify(events));
    bridge.dispatchEvent(new Event("gasoline:flush"));
  };
  pagePort.settings = [];
  pagePort.onmessage = (m) => pagePort.settings.push(m.data); // settings from the relay
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

test("events the worker got no answer for are sent again, as the same message, and stored once, in order", async (t) => {
  const store = memoryStore();
  const w = worker(store, ["lost-reply", "stopped", "ok", "lost-reply", "ok"]);
  const port = relay(w);
  t.after(() => port.close());
  port.postMessage(logs(0, 5));
  await until("the first batch stored", () => w.stored.length >= 5 && w.calls >= 3);
  port.postMessage(logs(5, 8));
  port.postMessage(logs(8, 12));
  await until("every event stored", () => w.stored.length >= 12 && w.calls >= 6);
  await new Promise((r) => setTimeout(r, 600)); // nothing more goes
  assert.deepEqual(w.stored, Array.from({ length: 12 }, (_, i) => `m${i}`));
  // A message goes again as it was, without what came meanwhile (the worker's batch keys rest on it);
  // what came meanwhile follows it; answered messages are not sent again.
  const ids = (from, to) => Array.from({ length: to - from }, (_, i) => from + i + 1);
  assert.deepEqual(w.sent, [ids(0, 5), ids(0, 5), ids(0, 5), ids(5, 8), ids(5, 8), ids(8, 12)]);
  port.close();
});

test("the page's last events (its pagehide) go at once, beside the message in flight, each stored once", async (t) => {
  const store = memoryStore();
  const w = worker(store, []);
  const original = w.onMessage;
  let open;
  const gate = new Promise((resolve) => (open = resolve));
  const sent = []; // the ids of each message, as the relay sends it
  // The first message is stored at once but answered only at the end (a slow server); the others
  // are answered as they are stored.
  w.onMessage = (message) => {
    sent.push(message.events.map((e) => e.id));
    const answer = original(message);
    return sent.length === 1 ? gate.then(() => answer) : answer;
  };
  const port = relay(w);
  t.after(() => port.close());
  port.postMessage(logs(0, 3));
  await until("the first message sent", () => sent.length === 1);
  port.postMessage(logs(3, 5)); // reaches the relay and waits behind the message in flight
  await new Promise((r) => setTimeout(r, 50));
  port.sendNow(logs(5, 7)); // the page's pagehide: no task of this document will run again
  assert.deepEqual(sent, [[1, 2, 3], [4, 5, 6, 7]], "sent before sendNow returned, without what is in flight");
  open();
  await until("every event stored", () => w.stored.length >= 7);
  await new Promise((r) => setTimeout(r, 600)); // nothing is sent again
  assert.deepEqual(sent, [[1, 2, 3], [4, 5, 6, 7]]);
  assert.deepEqual(w.stored.sort(), Array.from({ length: 7 }, (_, i) => `m${i}`));
});

test("a message in flight when the page left for the back-forward cache is stored when sent again, though its last events were stored first", async (t) => {
  const store = memoryStore();
  // In the order the worker handles them: the page's last events, the first message, it again.
  const w = worker(store, ["ok", "stopped", "ok"]);
  const original = w.onMessage;
  let open;
  const gate = new Promise((resolve) => (open = resolve));
  const sent = [];
  // The first message reaches a worker that is stopped before it stores anything, and the page
  // hears of it only later; the page's last events, sent in its pagehide meanwhile, are stored.
  w.onMessage = (message) => {
    sent.push(message.events.map((e) => e.id));
    return sent.length === 1 ? gate.then(() => original(message)) : original(message);
  };
  const port = relay(w);
  t.after(() => port.close());
  port.postMessage(logs(0, 3));
  await until("the first message sent", () => sent.length === 1);
  port.sendNow(logs(3, 5)); // pagehide: into the back-forward cache
  await until("the last events stored", () => w.stored.length === 2);
  open(); // shown again: the first message failed, and goes again
  await until("the first message sent again", () => sent.length >= 3);
  await until("every event stored", () => w.stored.length >= 5);
  assert.deepEqual(sent.slice(0, 3), [[1, 2, 3], [4, 5], [1, 2, 3]]);
  assert.deepEqual(w.stored, ["m3", "m4", "m0", "m1", "m2"]);
});

test("a page's marks are runs: what lies between two stored messages is not taken; bounded runs join their oldest", async () => {
  const store = memoryStore();
  const marks = new PageMarks(store);
  await marks.load();
  await marks.record("p", 4, 5);
  await marks.record("p", 9, 9);
  assert.deepEqual([1, 3, 4, 5, 6, 8, 9, 10].map((id) => marks.seen("p", id)), [false, false, true, true, false, false, true, false]);
  await marks.record("p", 1, 3);
  await marks.record("p", 6, 8);
  assert.deepEqual(store.map.get("m:p"), { r: [[1, 9]] }, "touching runs are one");
  for (let i = 0; i < 20; i++) await marks.record("q", 10 * i, 10 * i + 1);
  const runs = store.map.get("m:q").r;
  assert.equal(runs.length, 16);
  assert.deepEqual(runs[0], [0, 41], "the oldest runs joined");
  assert.deepEqual(runs.at(-1), [190, 191]);
  // What a worker of the version before stored (one highest number) still counts.
  const old = memoryStore();
  old.map.set("m:p", { s: 7 });
  old.map.set("m:bad", { r: [["x", 2], [5, 1]] });
  const again = new PageMarks(old);
  await again.load();
  assert.deepEqual([marks.seen("p", 7), again.seen("p", 1), again.seen("p", 7), again.seen("p", 8), again.seen("bad", 2)], [true, true, true, false, false]);
});

test("a log flood while the worker is slow costs logs, never the page's requests", async (t) => {
  const store = memoryStore();
  const w = worker(store, []);
  const original = w.onMessage;
  let open;
  const gate = new Promise((resolve) => (open = resolve));
  w.onMessage = async (message) => (message.type === "dropped" ? original(message) : gate.then(() => original(message)));
  const port = relay(w);
  t.after(() => port.close());
  const request = (url) => ({ kind: "network_waterfall", entry: { message: url, url } });
  port.postMessage([request("/first")]); // in flight, unanswered, while the flood comes
  port.postMessage([{ kind: "logs", entry: { level: "error", message: "the error before" } }]);
  for (let i = 0; i < 6; i++) port.postMessage([...logs(i * 1000, i * 1000 + 999), ...(i === 2 ? [request("/middle")] : [])]);
  port.postMessage([request("/last")]);
  await new Promise((r) => setTimeout(r, 50)); // the page's messages reach the relay
  open();
  await until("everything still held stored", () => w.stored.includes("/last"));
  assert.deepEqual(
    w.stored.filter((m) => m.startsWith("/")),
    ["/first", "/middle", "/last"],
    "every request kept, in order",
  );
  assert.ok(w.stored.includes("the error before"), "the error logged before the flood is kept");
  const kept = w.stored.filter((m) => m.startsWith("m"));
  assert.equal(kept.length, 4996, "the relay held 5,000: three requests, the error and the newest logs");
  assert.equal(kept.at(-1), "m5998");
  await until("the loss reported", () => w.dropped.length > 0);
  assert.deepEqual(
    w.dropped.map((d) => [d.kind, d.count]),
    [["logs", 6 * 999 - 4996]],
  );
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
  await marks.record("a", 1, 5);
  await marks.record("b", 1, 1);
  await marks.record("a", 6, 6);
  await marks.record("c", 1, 1);
  assert.equal(marks.seen("b", 1), false, "b was forgotten");
  assert.equal(marks.seen("a", 6), true);
  assert.equal(marks.seen("a", 7), false);
  assert.deepEqual([...store.map.keys()].sort(), ["m:a", "m:c"]);
  assert.equal(marks.seen(undefined, 1), false, "events without a page are never skipped");
});

test("settings saved while the relay starts are not taken back by its first read's older answer", async (t) => {
  const answers = [];
  let onChanged;
  const storage = {
    local: { get: () => new Promise((resolve) => answers.push(resolve)) },
    onChanged: { addListener: (fn) => (onChanged = fn) },
  };
  const port = relay(worker(memoryStore(), []), storage);
  t.after(() => port.close());
  const seen = [];
  port.onmessage = (m) => seen.push(m.data.redactBodyKeys);
  onChanged({ settings: { newValue: { redactBodyKeys: ["new"] } } }, "local");
  answers[1]({ settings: { redactBodyKeys: ["new"] } }); // the read after the change
  answers[0]({ settings: { redactBodyKeys: ["old"] } }); // the first read, answering late
  await until("the page got its settings", () => seen.length >= 1);
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(seen, [["new"]]);
});

/** chrome.storage with `scope` stored, whose changes the test makes. */
function scopeStorage(scope) {
  const listeners = [];
  let items = { scope };
  return {
    local: { get: async () => ({ ...items }) },
    onChanged: { addListener: (fn) => listeners.push(fn) },
    change(next) {
      items = { ...items, scope: next };
      listeners.forEach((fn) => fn({ scope: { newValue: next } }, "local"));
    },
  };
}

test("a site outside the scope sends nothing and its page is told to record nothing", async (t) => {
  const w = worker(memoryStore(), []);
  const port = relay(w, scopeStorage(undefined), "http://shop.example");
  t.after(() => port.close());
  await until("the settings reach the page", () => port.settings.length > 0);
  assert.equal(port.settings.at(-1).off, true);
  port.postMessage(logs(0, 3));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(w.calls, 0);
});

test("a site turned on is captured on plain http; pausing stops it at once, resuming starts again", async (t) => {
  const w = worker(memoryStore(), []);
  const storage = scopeStorage({ sites: ["http://shop.example/*"] });
  const port = relay(w, storage, "http://shop.example");
  t.after(() => port.close());
  await until("the settings reach the page", () => port.settings.length > 0);
  assert.notEqual(port.settings.at(-1).off, true);
  port.postMessage(logs(0, 2));
  await until("stored", () => w.stored.length === 2);
  storage.change({ sites: ["http://shop.example/*"], paused: true });
  await until("the page is told to stop", () => port.settings.at(-1).off === true);
  port.postMessage(logs(2, 4));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(w.stored.length, 2, "nothing while paused");
  storage.change({ sites: ["http://shop.example/*"], paused: false });
  await until("the page is told to record again", () => port.settings.at(-1).off !== true);
  port.postMessage(logs(4, 5));
  await until("stored after resuming", () => w.stored.length === 3);
  assert.deepEqual(w.stored, ["m0", "m1", "m4"]);
});

test("the worker's stop answer ends capture in that frame", async (t) => {
  const w = worker(memoryStore(), []);
  const answer = w.onMessage;
  w.onMessage = async (m) => ({ ...(await answer(m)), stop: true });
  const port = relay(w);
  t.after(() => port.close());
  port.postMessage(logs(0, 1));
  await until("the page is told to stop", () => port.settings.some((s) => s.off === true));
  port.postMessage(logs(1, 2));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(w.calls, 1);
});

test("a frame inside a page outside the scope sends nothing, though its own origin is local", async (t) => {
  const w = worker(memoryStore(), []);
  const framed = relay(w, undefined, "http://localhost:3000", ["https://news.example"]);
  const local = relay(w, undefined, "http://localhost:3000", ["http://127.0.0.1:8000"]);
  t.after(() => [framed, local].forEach((p) => p.close()));
  framed.postMessage([{ kind: "logs", entry: { level: "log", message: "framed" } }]);
  local.postMessage([{ kind: "logs", entry: { level: "log", message: "local" } }]);
  await until("the local page's frame delivered", () => w.stored.includes("local"));
  await until("the framed page was told capture is off", () => framed.settings.some((s) => s.off === true));
  assert.deepEqual(w.stored, ["local"]);
  assert.equal((await framed.ping()).live, false);
  assert.equal((await local.ping()).live, true);
});

test("a sandboxed frame (an opaque origin) is judged by its URL: a local page's is captured, a srcdoc or data: one is not", async (t) => {
  const w = worker(memoryStore(), []);
  const ancestors = ["http://127.0.0.1:8000"];
  const sandboxed = relay(w, undefined, "null", ancestors, "http://127.0.0.1:8000/preview.html");
  const srcdoc = relay(w, undefined, "null", ancestors, "about:srcdoc");
  const data = relay(w, undefined, "null", ancestors, "data:text/html,<p>x");
  const outside = relay(w, undefined, "null", ancestors, "https://widget.example/embed");
  const all = [sandboxed, srcdoc, data, outside];
  t.after(() => all.forEach((p) => p.close()));
  all.forEach((p, i) => p.postMessage([{ kind: "logs", entry: { level: "log", message: `frame ${i}` } }]));
  await until("the sandboxed local frame delivered", () => w.stored.includes("frame 0"));
  await until("the others told capture is off", () => all.slice(1).every((p) => p.settings.some((s) => s.off === true)));
  assert.deepEqual(w.stored, ["frame 0"]);
});
