// Socket.IO's polling transport → `websocket_events` (`transport: "polling"`).
// Socket.IO (engine.io underneath) opens every connection with HTTP long polls
// before it upgrades to a WebSocket, and stays on them where a WebSocket
// cannot pass (a proxy, `transports: ["polling"]`): the handshake, the
// server's first events and every event of a polling-only connection travel
// in the bodies of GETs (the server's packets) and POSTs (the page's). As a
// WebSocket carries one engine.io packet a frame (`42["chat",{…}]`, `2` a
// ping), each packet of a poll becomes one message of its connection, so that
// a Socket.IO conversation reads the same on either transport. A connection is
// its engine.io session (`sid`): its first poll, the handshake, answers the
// open packet that names it (`0{"sid":…}`), and is its `open` event; the
// WebSocket it upgrades to (`transport=websocket&sid=…`) is the same
// connection (websocket.js asks `sessionOf`). Only URLs
// with `EIO=` and `transport=polling` are looked at; fetch.js and xhr.js hand
// such a request here once its body is read. Payloads: EIO=4's packets are
// separated by U+001E; EIO=3's are each `<length>:<packet>`.
// Registry: reads core, outbox, serialize, limits; adds engineIo.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.core || !G.outbox || G.engineIo) return;
  const { connectionId } = G.core;
  const { outbox, serialize, limits } = G;
  const parse = JSON.parse; // taken before any page script runs
  const POLLING = /[?&]transport=polling(?:&|#|$)/;
  const VERSION = /[?&]EIO=(\d+)/;
  const SID = /[?&]sid=([^&#]+)/;
  const SEPARATOR = "\u001e";
  const MOST_PACKETS = 500; // a poll's packets recorded, at most
  const MOST_SESSIONS = 64; // sessions remembered, the oldest forgotten first
  const sessions = new Map(); // engine.io sid → our connectionId

  /** Whether `url` is one of engine.io's long polls. */
  function watched(url) {
    return typeof url === "string" && POLLING.test(url) && VERSION.test(url);
  }

  /** The packets of a polling payload of engine.io protocol `version`. */
  function packetsOf(text, version) {
    if (typeof text !== "string" || text === "") return [];
    if (version >= 4) return text.split(SEPARATOR).slice(0, MOST_PACKETS);
    // EIO=3: `<length>:<packet>` after one another (the length in characters).
    const packets = [];
    for (let at = 0; at < text.length && packets.length < MOST_PACKETS; ) {
      const colon = text.indexOf(":", at);
      const length = colon > at ? Number(text.slice(at, colon)) : NaN;
      if (!Number.isInteger(length) || length < 0) return [text];
      packets.push(text.slice(colon + 1, colon + 1 + length));
      at = colon + 1 + length;
    }
    return packets;
  }

  /** The session an open packet (`0{"sid":"…",…}`) names, or "". */
  function opened(packet) {
    if (packet[0] !== "0") return "";
    try {
      const open = parse(packet.slice(1));
      return open && typeof open.sid === "string" ? open.sid : "";
    } catch {
      return "";
    }
  }

  function idOf(sid) {
    let id = sessions.get(sid);
    if (!id) {
      if (sessions.size >= MOST_SESSIONS) sessions.delete(sessions.keys().next().value);
      id = connectionId();
      sessions.set(sid, id);
    }
    return id;
  }

  function emit(entry) {
    outbox.emit("websocket_events", () => entry);
  }

  function message(id, url, direction, packet, cut) {
    const c = serialize.cut(packet, limits.WS_DATA_CAP);
    const entry = { transport: "polling", connectionId: id, event: "message", url, direction, data: c.text, size: c.size };
    if (c.truncated || cut) entry.truncated = true;
    emit(entry);
  }

  /** Each packet of a payload as a message; the last cut short where the body read was (`cut`). */
  function messages(id, url, direction, packets, cut) {
    packets.forEach((packet, i) => message(id, url, direction, packet, cut && i === packets.length - 1));
  }

  /**
   * One poll of engine.io's, ended: a GET's answer (`response`) holds the server's packets, a
   * POST's body (`request`) the page's; each `{text, truncated}` as the body was read. The
   * handshake's answer opens its session.
   */
  function poll(method, url, request, response) {
    const version = Number(VERSION.exec(url)[1]);
    const sid = SID.exec(url);
    if (method === "POST") {
      if (!sid || !request) return;
      messages(idOf(sid[1]), url, "outgoing", packetsOf(request.text, version), request.truncated);
      return;
    }
    if (!response) return;
    const packets = packetsOf(response.text, version);
    let id = sid ? idOf(sid[1]) : "";
    if (!id) {
      const named = packets.length ? opened(packets[0]) : "";
      if (!named) return;
      id = idOf(named);
      emit({ transport: "polling", connectionId: id, event: "open", url });
    }
    messages(id, url, "incoming", packets, response.truncated);
  }

  const UPGRADE = /[?&]transport=websocket(?:&|#|$)/;

  /**
   * The connectionId of the session a WebSocket upgrades (its URL: `EIO=`, `transport=websocket`,
   * the session's `sid`), so that a Socket.IO conversation is one connection on either transport;
   * undefined for any other socket.
   */
  function sessionOf(url) {
    if (typeof url !== "string" || !UPGRADE.test(url) || !VERSION.test(url)) return undefined;
    const sid = SID.exec(url);
    // The page may open it before our read of the handshake's answer ends (its own load handler
    // runs first): the session's id is made here then, and its polls take it.
    return sid ? idOf(sid[1]) : undefined;
  }

  G.engineIo = { watched, poll, packetsOf, sessionOf };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiZW5naW5lX2lvLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9lbmdpbmVfaW8uanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
