// navigator.sendBeacon → `network_bodies` (`initiator: "beacon"`, method
// POST, the absolute URL, `queued`: what sendBeacon returned, i.e. whether the
// browser took it). The payload is described like a fetch body (bodies.js):
// a string or form cut at the cap while it is walked, a Blob sliced before it
// is read (later, never synchronously; by its size and type when the document
// unloads before the read ends), binary data by size. A beacon sent
// while the page is hidden (the usual moment: visibilitychange) is flushed at
// once rather than in idle time, which a hidden page gets late; one sent while
// the document unloads (pagehide of a navigation) goes before this returns
// (outbox.js).
// Registry: reads sources, core, outbox, bodies, requests; adds sources.beacon.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.beacon = function install({ core, outbox, bodies, requests }) {
    const { apply, fill, now } = core;
    const { describeBody, whenRead, bodyFields } = bodies;
    const proto = typeof Navigator === "function" ? Navigator.prototype : null;
    if (!proto || typeof proto.sendBeacon !== "function") return;
    const URL_ = URL;
    const hrefOf = Object.getOwnPropertyDescriptor(URL_.prototype, "href").get;
    const visibilityOf = Object.getOwnPropertyDescriptor(Document.prototype, "visibilityState").get;

    /** What the call says, before the browser takes it (`text`: the URL as text); throws if the URL is invalid. */
    function describe(text, data, hasData) {
      return {
        ts: now(),
        url: apply(hrefOf, new URL_(text, document.baseURI), []),
        body: hasData ? describeBody(data, undefined) : undefined,
      };
    }

    // Blob beacons whose read has not ended: a document being unloaded never ends it (the usual
    // beacon, sent on visibilitychange as the page goes away), so in its pagehide each is an entry
    // as it stands, its body described by its size and type, not lost.
    const reading = new Set();
    if (typeof globalThis.addEventListener === "function") {
      core.listen(globalThis, "pagehide", () => {
        for (const pending of [...reading]) pending.unread();
      });
    }

    function record(info, queued) {
      let emitted = false;
      const emit = (requestBody) => {
        if (emitted) return;
        emitted = true;
        outbox.emit("network_bodies", () => ({
          ts: info.ts,
          method: "POST",
          url: info.url,
          initiator: "beacon",
          queued,
          ...bodyFields("request", requestBody),
        }));
      };
      const readLater = Boolean(info.body && info.body.later);
      if (readLater && requests.leaving()) {
        // Sent after the page's pagehide (Chromium fires visibilitychange after it as a document
        // unloads): no read can end now.
        emit({ note: info.body.unread, size: info.body.size });
      } else if (readLater) {
        const pending = { unread: () => emit({ note: info.body.unread, size: info.body.size }) };
        reading.add(pending);
        whenRead(info.body, (body) => {
          reading.delete(pending);
          emit(body);
        });
      } else whenRead(info.body, emit);
      // Emitted now, while the page is hidden: flushed at once (a Blob read later is not here yet).
      if (!readLater && apply(visibilityOf, document, []) === "hidden") outbox.flushAll();
    }

    fill(proto, "sendBeacon", (original) => ({
      sendBeacon(url, data) {
        let info;
        let args = arguments;
        try {
          // The URL becomes text once, here (ToString, as the browser converts it), and the browser
          // is given that text: the page's toString runs once, as without us.
          if (typeof url !== "string") {
            const text = `${url}`;
            args = arguments.length > 1 ? [text, data] : [text];
            url = text;
          }
          info = describe(url, data, arguments.length > 1);
        } catch {
          info = undefined;
        }
        const queued = apply(original, this, args);
        try {
          if (info) {
            record(info, queued === true);
            // The browser sends it later; the page never learns the answer, so no status.
            requests.end(requests.start("POST", info.url, "beacon"), queued === true ? {} : { failed: true, error: "sendBeacon refused it" });
          }
        } catch {
          // ignore
        }
        return queued;
      },
    }).sendBeacon);
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiYmVhY29uLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9iZWFjb24uanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
