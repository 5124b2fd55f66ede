// Socket.IO, the most used WebSocket library, as a page meets it: a real
// socket.io server (its own port, on loopback, in scope) serving its own
// client. A connection opens with HTTP long polls and upgrades to a WebSocket
// (or stays on polls: `transports: ["polling"]`); its handshake and the
// server's first events travel in polls. An agent asking for websocket_events
// must find the whole conversation on either transport, one message a packet.
// Called by run.mjs with the running browser and MCP client.
import assert from "node:assert/strict";

import { Server } from "socket.io";
import { serve } from "./harness.mjs";

const PAGE = `<!doctype html><meta charset="utf-8"><title>chat</title><script src="/socket.io/socket.io.js"></script>
<script>
  // Connects, takes the welcome, sends a chat message (once on a WebSocket, with \`upgraded\`) and
  // waits for its ack; resolves with what it saw.
  window.converse = (transports, upgraded) =>
    new Promise((resolve) => {
      const socket = io({ transports, forceNew: true });
      const chat = (w) => socket.emit("chat", { text: "hi" }, (ack) => { socket.close(); resolve([w, ack]); });
      socket.on("welcome", (w) => {
        const engine = socket.io.engine;
        if (!upgraded || engine.transport.name === "websocket") chat(w);
        else engine.once("upgrade", () => chat(w));
      });
    });
</script>`;

/** A socket.io server on a loopback port of its own; resolves with its origin and a close(). */
async function start() {
  let io;
  const { origin } = await serve(
    (req, res) => {
      res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
      res.end(PAGE);
    },
    {
      setup(server) {
        io = new Server(server);
        io.on("connection", (socket) => {
          socket.emit("welcome", { room: "lobby" });
          socket.on("chat", (message, ack) => ack({ ok: true, echoed: message.text }));
        });
      },
    },
  );
  return { origin, close: () => io.close() };
}

export async function socketIoPage({ context, client, all, waitFor, log }) {
  const chat = await start();
  try {
    const tab = await context.newPage();
    await tab.goto(`${chat.origin}/`);
    // Its polls' URLs are http://, its socket's ws://: both under /socket.io/ on the chat's port.
    const port = new URL(chat.origin).port;
    const events = () => all(client, "websocket_events", { url: `127.0.0.1:${port}/socket.io/` });
    // Engine.io's pings and pongs ("2", "3") and no-ops ("6") come and go with timing: left out here.
    const talk = (entries) => entries.filter((e) => e.event !== "message" || !/^[236]$/.test(e.data));
    const shape = (e) => [e.transport, e.event, e.direction ?? null, e.data ?? null];

    // Polls alone: the whole conversation is the session's messages, one a packet.
    assert.deepEqual(await tab.evaluate(() => window.converse(["polling"])), [{ room: "lobby" }, { ok: true, echoed: "hi" }]);
    const polled = await waitFor("the polling session's conversation", async () => {
      const found = talk(await events()).filter((e) => e.transport === "polling");
      return found.some((e) => e.data === "1") && found;
    });
    assert.equal(new Set(polled.map((e) => e.connectionId)).size, 1, "one session, one connection");
    assert.equal(polled[0].event, "open");
    // Each way in its order (a POST's answer and a poll's may end in either order).
    const way = (direction) => polled.filter((e) => e.direction === direction).map((e) => e.data);
    const handshake = way("incoming")[0];
    assert.match(handshake, /^0\{"sid":"\[redacted\]","upgrades":\["websocket"\],"pingInterval":\d+/, "the handshake's open packet, its session id redacted");
    assert.deepEqual(way("incoming").slice(1), ['40{"sid":"[redacted]"}', '42["welcome",{"room":"lobby"}]', '430[{"ok":true,"echoed":"hi"}]']);
    assert.deepEqual(way("outgoing"), ["40", '420["chat",{"text":"hi"}]', "41", "1"]);
    log("Socket.IO over long polls: its packets are the session's messages, both ways");

    // The default: polls, then the upgrade to a WebSocket. Each packet is recorded once, on the
    // transport that carried it; the welcome is there whichever did.
    const before = (await events()).length;
    assert.deepEqual(await tab.evaluate(() => window.converse(undefined, true)), [{ room: "lobby" }, { ok: true, echoed: "hi" }]);
    const upgraded = await waitFor("the upgraded session's conversation", async () => {
      const found = talk((await events()).slice(before));
      return found.some((e) => e.data === '430[{"ok":true,"echoed":"hi"}]') && found;
    });
    const data = upgraded.filter((e) => e.event === "message").map((e) => e.data);
    assert.equal(data.filter((d) => d === '42["welcome",{"room":"lobby"}]').length, 1, JSON.stringify(upgraded.map(shape)));
    assert.ok(upgraded.some((e) => e.transport === "polling" && e.event === "open"), "the session opened on a poll");
    assert.equal(new Set(upgraded.map((e) => e.connectionId)).size, 1, "its polls and its socket: one connection");
    const socket = upgraded.filter((e) => e.transport === "websocket").map((e) => e.data ?? e.event);
    // The upgrade's probe, then the chat on the socket.
    assert.deepEqual(socket.slice(0, 4), ["open", "2probe", "3probe", "5"], JSON.stringify(upgraded.map(shape)));
    assert.ok(socket.includes('420["chat",{"text":"hi"}]') && socket.includes('430[{"ok":true,"echoed":"hi"}]'), JSON.stringify(socket));
    log("Socket.IO upgraded to a WebSocket: the polls' packets and the socket's frames, each once");
    await tab.close();
  } finally {
    chat.close();
  }
}

