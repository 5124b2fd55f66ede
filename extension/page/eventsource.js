// EventSource (server-sent events) → `websocket_events` with
// `transport: "eventsource"`: open (each reconnection too), every message
// (`eventType`, `lastEventId`, data cut to WS_DATA_CAP like a WebSocket frame),
// error (`readyState` "connecting" and `reconnecting: true` while the browser
// retries, "closed" once it gave up) and close (when the page calls close()).
// The constructor is replaced like WebSocket's (core.wrapConstructor), so
// `es.constructor === EventSource`, `instanceof`, the prototype and subclasses
// are as before. A named event (`event: update`) is dispatched only to its own
// listeners, so ours is added for a type when the page first listens for it
// (addEventListener is wrapped once the page makes its first EventSource).
// Registry: reads sources, core, outbox, serialize, limits, requests; adds sources.eventsource.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.eventsource = function install({ core, outbox, serialize, limits, requests }) {
    const { apply, fill, listen, wrapConstructor, connectionId } = core;
    const Original = globalThis.EventSource;
    if (typeof Original !== "function" || !Original.prototype) return;
    const getter = (name) => {
      const d = Object.getOwnPropertyDescriptor(Original.prototype, name);
      return d && d.get;
    };
    const urlOf = getter("url");
    const stateOf = getter("readyState");
    const READY_STATES = ["connecting", "open", "closed"];
    const CLOSED = 2;
    const MAX_TYPES = 32; // event types listened to per source, ours included
    const ID_CAP = 256;
    const watched = core.weakMap(); // source → { id, url, types, onMessage, closed }

    function record(s, event, fields) {
      const { id, url } = s;
      outbox.emit("websocket_events", () => {
        const entry = { transport: "eventsource", connectionId: id, event, url };
        for (const key of Object.keys(fields)) if (fields[key] !== undefined) entry[key] = fields[key];
        return entry;
      });
    }

    function watch(es) {
      const s = { id: connectionId(), url: apply(urlOf, es, []), types: new Set(["open", "message", "error"]), closed: false };
      // Our listeners are guarded by core.listen: nothing of ours throws at the page.
      s.onMessage = (e) => {
        const data = serialize.cut(e.data, limits.WS_DATA_CAP);
        const lastEventId = e.lastEventId ? serialize.cut(e.lastEventId, ID_CAP).text : undefined;
        record(s, "message", {
          direction: "incoming",
          eventType: e.type,
          lastEventId,
          data: data.text,
          size: data.size,
          truncated: data.truncated || undefined,
        });
      };
      watched.set(es, s);
      // Its first request as a waterfall row: 200 once open, failed if it errs before.
      const request = requests.start("GET", s.url, "eventsource");
      listen(es, "open", () => requests.end(request, { status: 200 }));
      // Cut off by the page leaving (a reload, a link), it says so, as a fetch canceled then does.
      listen(es, "error", () => requests.end(request, { failed: true, error: requests.failure("EventSource connection failed") }));
      listen(es, "open", () => record(s, "open", {}));
      listen(es, "message", s.onMessage);
      listen(es, "error", () => {
        const readyState = READY_STATES[apply(stateOf, es, [])];
        record(s, "error", { readyState, reconnecting: readyState === "connecting" });
      });
      watchTypes();
    }

    // Named events: our listener joins the page's for each type it listens to.
    let typesWatched = false;
    function watchTypes() {
      if (typesWatched) return;
      typesWatched = true;
      fill(EventTarget.prototype, "addEventListener", (original) => ({
        addEventListener(type) {
          try {
            const s = watched.get(this);
            if (s && typeof type === "string" && !s.types.has(type) && s.types.size < MAX_TYPES) {
              s.types.add(type);
              listen(this, type, s.onMessage);
            }
          } catch {
            // ignore
          }
          return apply(original, this, arguments);
        },
      }).addEventListener);
    }

    if (!wrapConstructor("EventSource", watch)) return;
    fill(Original.prototype, "close", (original) => ({
      close() {
        try {
          const s = watched.get(this);
          if (s && !s.closed && apply(stateOf, this, []) !== CLOSED) {
            s.closed = true;
            record(s, "close", { reason: "closed by the page" });
          }
        } catch {
          // ignore
        }
        return apply(original, this, arguments);
      },
    }).close);
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiZXZlbnRzb3VyY2UuanMiLCJzb3VyY2VzIjpbImdhc29saW5lLWV4dGVuc2lvbjovLy9wYWdlL2V2ZW50c291cmNlLmpzIl0sIm5hbWVzIjpbXSwibWFwcGluZ3MiOiJBQUFBIiwiaWdub3JlTGlzdCI6WzBdLCJ4X2dvb2dsZV9pZ25vcmVMaXN0IjpbMF19
