// WebSocket → `websocket_events`. The constructor is replaced by a function
// that builds the original (so `ws.constructor === WebSocket`, `instanceof`
// and the prototype are as before, and subclasses still work); `send` is
// wrapped on the prototype. Frames are cut to WS_DATA_CAP before anything else.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.websocket = function install({ core, outbox, serialize, limits }) {
    const { apply, fill, disguise, listen } = core;
    const Original = window.WebSocket;
    if (typeof Original !== "function") return;
    const ids = new WeakMap();
    const prefix = Math.random().toString(36).slice(2, 8);
    let connections = 0;

    function frame(data) {
      if (typeof data === "string") {
        const c = serialize.cut(data, limits.WS_DATA_CAP);
        return c.truncated ? { data: c.text, size: c.size, truncated: true } : { data: c.text, size: c.size };
      }
      if (data instanceof Blob) return { data: `[Blob ${data.size} bytes]`, size: data.size };
      if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return { data: `[binary ${data.byteLength} bytes]`, size: data.byteLength };
      return { data: String(data) };
    }

    function record(ws, event, extra) {
      const url = ws.url;
      outbox.emit("websocket_events", () => Object.assign({ connectionId: ids.get(ws), event, url }, extra()));
    }

    function watch(ws) {
      ids.set(ws, `${prefix}-${++connections}`);
      listen(ws, "open", () => record(ws, "open", () => ({ protocol: ws.protocol })));
      listen(ws, "message", (e) => {
        const data = frame(e.data);
        record(ws, "message", () => Object.assign({ direction: "incoming" }, data));
      });
      listen(ws, "close", (e) => {
        const { code, reason, wasClean } = e;
        record(ws, "close", () => ({ code, reason, wasClean }));
      });
      listen(ws, "error", () => record(ws, "error", () => ({})));
    }

    const WebSocket = function WebSocket(url) {
      if (!new.target) return apply(Original, this, arguments); // throws as the original does
      const ws = Reflect.construct(Original, arguments, new.target === WebSocket ? Original : new.target);
      try {
        watch(ws);
      } catch {
        // ignore
      }
      return ws;
    };
    disguise(WebSocket, Original);
    Object.setPrototypeOf(WebSocket, Object.getPrototypeOf(Original));
    for (const key of Reflect.ownKeys(Original)) {
      if (key === "prototype" || key === "name" || key === "length") continue;
      Object.defineProperty(WebSocket, key, Object.getOwnPropertyDescriptor(Original, key));
    }
    Object.defineProperty(WebSocket, "prototype", { value: Original.prototype, writable: false });
    const ctor = Object.getOwnPropertyDescriptor(Original.prototype, "constructor");
    Object.defineProperty(Original.prototype, "constructor", { ...ctor, value: WebSocket });
    const own = Object.getOwnPropertyDescriptor(window, "WebSocket");
    Object.defineProperty(window, "WebSocket", { ...own, value: WebSocket });

    fill(Original.prototype, "send", (original) => ({
      send(data) {
        try {
          if (ids.has(this)) {
            const f = frame(data);
            record(this, "message", () => Object.assign({ direction: "outgoing" }, f));
          }
        } catch {
          // ignore
        }
        return apply(original, this, arguments);
      },
    }).send);
  };
})();
