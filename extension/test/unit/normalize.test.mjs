import { test } from "node:test";
import assert from "node:assert/strict";
import { normalize, settings } from "./load.mjs";

test("entries get the tab id and an integer timestamp", () => {
  const e = normalize("logs", { level: "warn", message: "m", ts: 1700000000000.6 }, 42);
  assert.deepEqual(e, { level: "warn", message: "m", ts: 1700000000001, tabId: 42 });
  assert.equal(normalize("logs", { level: "info", message: "m" }, undefined).tabId, null);
});

test("values the server would refuse are fixed, so a batch is never refused for one entry", () => {
  const before = Date.now();
  const { ts, ...log } = normalize("logs", { level: "fatal", message: { a: 1 } }, 1);
  assert.deepEqual(log, { level: "log", message: "[object Object]", tabId: 1 });
  // A missing timestamp is the time of capture.
  assert.ok(Number.isInteger(ts) && ts >= before && ts <= Date.now(), `ts ${ts}`);
  const bodies = normalize("network_bodies", { method: "post", url: "/x", status: 200.4, duration: "slow" }, 1);
  assert.equal(bodies.method, "POST");
  assert.equal(bodies.status, 200);
  assert.equal("duration" in bodies, false);
  const ws = normalize("websocket_events", { connectionId: 7, event: "message" }, 1);
  assert.equal(ws.connectionId, "7");
  assert.equal(ws.direction, "incoming");
  assert.equal(normalize("network_waterfall", { url: "u", responseStatus: 0.5 }, 1).responseStatus, 1);
  // A row known from its timing alone has no method, not an empty one.
  assert.equal(normalize("network_waterfall", { url: "u", method: null }, 1).method, null);
  assert.equal(normalize("network_waterfall", { url: "u", method: "post" }, 1).method, "POST");
  assert.deepEqual(
    Object.values(normalize("vitals", { lcp: "x", cls: 0.1 }, 1)).slice(0, 5),
    [null, 0.1, null, null, null],
  );
});

test("unknown kinds and non-objects are refused", () => {
  assert.equal(normalize("bogus", {}, 1), null);
  assert.equal(normalize("logs", null, 1), null);
  assert.equal(normalize("logs", [1], 1), null);
});

test("settings fill defaults and check the server URL", () => {
  const s = settings.withDefaults({ serverUrl: "http://localhost:9000/", capture: { logs: false } });
  assert.equal(s.serverUrl, "http://localhost:9000");
  assert.equal(s.capture.logs, false);
  assert.equal(s.capture.actions, true);
  // The field holds the person's extra keys only; it does not start with built-in words.
  assert.deepEqual(s.redactBodyKeys, []);
  assert.equal(settings.withDefaults({ serverUrl: "javascript:alert(1)" }).serverUrl, "http://127.0.0.1:7890");
  assert.deepEqual(settings.splitList("a, b\n c,,"), ["a", "b", "c"]);
});

test("a terminal's colours are taken out of a message: Nuxt replays its server's log lines with them", () => {
  const e = normalize("logs", { level: "error", message: "\u001b[31mℹ Error: boom\u001b[39m at \u001b[1mserver/api/x.ts\u001b[22m" }, 1);
  assert.equal(e.message, "ℹ Error: boom at server/api/x.ts");
});
