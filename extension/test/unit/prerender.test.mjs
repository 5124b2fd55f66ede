// A page prerendered by speculation rules runs before the person sees it: page/outbox.js holds
// its events until Chrome shows it (`prerenderingchange`), then sends them as the tab's page; a
// prerender never shown sends nothing, even in its pagehide. (Chromium cancels prerendering under
// a DevTools client such as Playwright's, so the e2e run cannot load one.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const timers = [];
const listeners = [];
const core = {
  setTimeout: (fn, ms) => timers.push({ fn, ms }),
  later: (fn, ms) => (timers.push({ fn, ms }), () => {}),
  now: () => 1000,
  perfNow: () => 0,
  listen: (target, type, fn) => listeners.push({ target, type, fn }),
};
const runTimers = () => {
  while (timers.length) timers.shift().fn();
};
const fire = (type) => listeners.filter((l) => l.type === type).forEach((l) => l.fn({}));

function loadOutbox(document) {
  const sent = [];
  let settings;
  globalThis.document = document;
  globalThis.__gasoline = {
    kinds: require("../../lib/kinds.js"),
    redact: require("../../lib/redact.js"),
    core,
    channel: {
      send: (events) => sent.push(...events),
      sendNow: (events) => sent.push(...events),
      sendDropped: () => {},
      onSettings: (fn) => (settings = fn),
    },
  };
  delete require.cache[require.resolve("../../page/outbox.js")];
  require("../../page/outbox.js");
  const { outbox } = globalThis.__gasoline;
  delete globalThis.__gasoline;
  delete globalThis.document;
  settings({});
  return { outbox, sent };
}

test("a prerendered page's events wait until it is shown, then go with the times they happened", () => {
  const { outbox, sent } = loadOutbox({ prerendering: true, visibilityState: "hidden" });
  outbox.emit("actions", () => ({ type: "navigate", how: "load", ts: 5 }));
  outbox.emit("logs", () => ({ level: "log", message: "prerendered" }));
  runTimers();
  outbox.flushAll(); // hidden, as a prerendered page is
  assert.deepEqual(sent, [], "nothing while it is prerendered");
  fire("prerenderingchange");
  runTimers();
  assert.deepEqual(
    sent.map((e) => [e.kind, e.entry.type || e.entry.message, e.entry.ts]),
    [
      ["actions", "navigate", 5],
      ["logs", "prerendered", 1000],
    ],
  );
});

test("a prerender never shown sends nothing, even as it is discarded", () => {
  listeners.length = 0;
  const { outbox, sent } = loadOutbox({ prerendering: true, visibilityState: "hidden" });
  outbox.emit("logs", () => ({ level: "log", message: "never shown" }));
  fire("pagehide");
  runTimers();
  assert.deepEqual(sent, []);
});

test("a page loaded as usual is not held", () => {
  listeners.length = 0;
  const { outbox, sent } = loadOutbox({ prerendering: false, visibilityState: "visible" });
  outbox.emit("logs", () => ({ level: "log", message: "shown" }));
  runTimers();
  assert.equal(sent.length, 1);
});
