// page/engine_io.js: Socket.IO's long polls as its connection's messages, one a packet, as a
// WebSocket carries them; a connection is its engine.io session, opened by the handshake's answer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

import { limits, serialize } from "./load.mjs";

const require = createRequire(import.meta.url);
const emitted = [];
let ids = 0;
globalThis.__gasoline = {
  core: { connectionId: () => `c-${++ids}` },
  outbox: { emit: (kind, build) => emitted.push([kind, build()]) },
  serialize,
  limits,
};
require("../../page/engine_io.js");
const { engineIo } = globalThis.__gasoline;
delete globalThis.__gasoline;

const BASE = "http://localhost:3000/socket.io/?EIO=4&transport=polling";
const take = () => emitted.splice(0).map(([kind, e]) => (assert.equal(kind, "websocket_events"), e));
const text = (t, truncated) => ({ text: t, truncated });

test("only engine.io's long polls are looked at", () => {
  assert.equal(engineIo.watched(`${BASE}&t=PkX9a`), true);
  assert.equal(engineIo.watched("http://localhost:3000/socket.io/?EIO=3&transport=polling&sid=abc"), true);
  assert.equal(engineIo.watched("http://localhost:3000/socket.io/?EIO=4&transport=websocket&sid=abc"), false);
  assert.equal(engineIo.watched("http://localhost:3000/api/items?transport=polling"), false, "no EIO: not engine.io's");
  assert.equal(engineIo.watched(undefined), false);
});

test("a payload's packets: EIO=4's separated by U+001E, EIO=3's each <length>:<packet>", () => {
  assert.deepEqual(engineIo.packetsOf('40{"sid":"x"}\u001e42["welcome",{"n":1}]', 4), ['40{"sid":"x"}', '42["welcome",{"n":1}]']);
  assert.deepEqual(engineIo.packetsOf('2:4015:42["a",{"b":1}]', 3), ["40", '42["a",{"b":1}]']);
  assert.deepEqual(engineIo.packetsOf("not a v3 payload", 3), ["not a v3 payload"], "unreadable: the whole text, as one");
  assert.deepEqual(engineIo.packetsOf("", 4), []);
  assert.equal(engineIo.packetsOf("6\u001e".repeat(2000), 4).length, 500, "bounded");
});

test("the handshake opens the session; its polls both ways are its messages", () => {
  engineIo.poll("GET", `${BASE}&t=1`, undefined, text('0{"sid":"s1","upgrades":["websocket"],"pingInterval":25000}'));
  engineIo.poll("POST", `${BASE}&t=2&sid=s1`, text('40{"token":"anon"}'), text("ok"));
  engineIo.poll("GET", `${BASE}&t=3&sid=s1`, undefined, text('40{"sid":"n1"}\u001e42["welcome",{"n":1}]'));
  const events = take();
  assert.deepEqual(
    events.map((e) => [e.transport, e.connectionId, e.event, e.direction ?? null, e.data ?? null]),
    [
      ["polling", "c-1", "open", null, null],
      ["polling", "c-1", "message", "incoming", '0{"sid":"s1","upgrades":["websocket"],"pingInterval":25000}'],
      ["polling", "c-1", "message", "outgoing", '40{"token":"anon"}'],
      ["polling", "c-1", "message", "incoming", '40{"sid":"n1"}'],
      ["polling", "c-1", "message", "incoming", '42["welcome",{"n":1}]'],
    ],
  );
  assert.ok(events.every((e) => e.url.startsWith(BASE)));
  // Another session is another connection.
  engineIo.poll("GET", `${BASE}&t=4&sid=s2`, undefined, text("2"));
  assert.deepEqual(take().map((e) => [e.connectionId, e.data]), [["c-2", "2"]]);
});

test("what is not a session's poll records nothing; a body cut short says so on its last packet", () => {
  engineIo.poll("GET", `${BASE}&t=5`, undefined, text("not an open packet")); // no sid, no open packet
  engineIo.poll("POST", `${BASE}&t=6`, text('42["x"]'), text("ok")); // a POST names its session
  engineIo.poll("GET", `${BASE}&t=7&sid=s1`, undefined, undefined); // a body not read
  assert.deepEqual(take(), []);
  engineIo.poll("GET", `${BASE}&t=8&sid=s1`, undefined, text('42["a"]\u001e42["b", "cut sho', true));
  assert.deepEqual(take().map((e) => [e.data, e.truncated ?? false]), [['42["a"]', false], ['42["b", "cut sho', true]]);
});

test("the WebSocket a session upgrades to is that session's connection", () => {
  engineIo.poll("GET", `${BASE}&t=9`, undefined, text('0{"sid":"up1","upgrades":["websocket"]}'));
  const [open] = take();
  assert.equal(engineIo.sessionOf("ws://localhost:3000/socket.io/?EIO=4&transport=websocket&sid=up1"), open.connectionId);
  // Opened before the handshake's poll was read: the poll then takes the socket's id.
  const early = engineIo.sessionOf("ws://localhost:3000/socket.io/?EIO=4&transport=websocket&sid=up2");
  engineIo.poll("GET", `${BASE}&t=10`, undefined, text('0{"sid":"up2","upgrades":["websocket"]}'));
  assert.equal(take()[0].connectionId, early);
  assert.equal(engineIo.sessionOf("ws://localhost:3000/socket.io/?EIO=4&transport=websocket"), undefined, "a socket from the start");
  assert.equal(engineIo.sessionOf("ws://localhost:3000/hmr?sid=up1"), undefined, "not engine.io's");
});
