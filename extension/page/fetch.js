// fetch → `network_bodies`. The page gets a promise of its own that settles
// with the original's outcome, so our observation of the original never marks
// the page's promise handled: an un-awaited fetch that rejects still fires
// `unhandledrejection`. The response body is read from a clone, up to the cap.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.fetch = function install({ core, outbox, bodies, limits }) {
    const { apply, fill, perfNow, Promise, then, requestIdleCallback, setTimeout } = core;
    const idle = () =>
      new Promise((resolve) => (requestIdleCallback ? requestIdleCallback(resolve, { timeout: 500 }) : setTimeout(resolve, 0)));
    const { describeBody, readCapped, bodyFields, headersToObject, absoluteUrl, TEXTUAL, STREAMING } = bodies;
    if (typeof window.fetch !== "function") return;

    function describeRequest(input, init) {
      const isRequest = input instanceof Request;
      const headers = headersToObject((init && init.headers) || (isRequest && input.headers));
      const info = {
        start: perfNow(),
        method: String((init && init.method) || (isRequest && input.method) || "GET").toUpperCase(),
        url: isRequest ? input.url : absoluteUrl(String(input)),
        headers,
      };
      if (init && init.body !== undefined && init.body !== null) {
        info.body = describeBody(init.body, headers["content-type"]);
      } else if (isRequest && input.body && !input.bodyUsed) {
        // Our own copy, taken before the page's request is sent (sending consumes it);
        // read up to the cap, then cancelled.
        info.body = { later: readCapped(input.clone().body) };
      }
      return info;
    }

    function observe(info, response) {
      const duration = perfNow() - info.start;
      // Only what decides whether to clone is read now; the rest when the entry is built.
      const type = response.headers.get("content-type") || "";
      const length = response.headers.get("content-length");
      const size = length !== null && Number.isFinite(Number(length)) ? Number(length) : undefined;
      let body;
      if (!response.body || response.type === "opaque") body = undefined;
      else if (STREAMING.test(type)) body = { note: "[stream]", stream: true, size };
      else if (!TEXTUAL.test(type)) body = size ? { note: `[${type || "binary"} ${size} bytes not captured]`, size } : undefined;
      else if (size !== undefined && size <= limits.BODY_CAP) {
        // Small and of known size: the clone's whole text is within the cap, and holding it
        // unread costs at most the cap, so it is read when the page is idle.
        const clone = response.clone();
        body = { later: idle().then(() => clone.text()).then((text) => ({ text, size: text.length, truncated: false })) };
      } else body = { later: readCapped(response.clone().body, size) };
      settle([info.body, body]).then(([requestBody, responseBody]) =>
        outbox.emit("network_bodies", () => ({
          ...entryOf(info, requestBody, duration),
          status: response.status,
          statusText: response.statusText,
          responseHeaders: headersToObject(response.headers),
          contentType: type || undefined,
          ...bodyFields("response", responseBody),
        })),
      );
    }

    function failed(info, error) {
      const duration = perfNow() - info.start;
      settle([info.body]).then(([requestBody]) =>
        outbox.emit("network_bodies", () => ({ ...entryOf(info, requestBody, duration), error: String(error) })),
      );
    }

    function entryOf(info, requestBody, duration) {
      return {
        method: info.method,
        url: info.url,
        initiator: "fetch",
        duration,
        requestHeaders: info.headers,
        ...bodyFields("request", requestBody),
      };
    }

    /** The bodies once read (a read that fails counts as none). */
    function settle(list) {
      return Promise.all(list.map((b) => (b && b.later ? b.later.catch(() => undefined) : b)));
    }

    fill(window, "fetch", (original) => ({
      fetch(input, init) {
        let info;
        try {
          info = describeRequest(input, init);
        } catch {
          info = undefined;
        }
        const result = apply(original, this, arguments);
        if (!info) return result;
        try {
          return new Promise((resolve, reject) => {
            apply(then, result, [
              (response) => {
                try {
                  observe(info, response); // clones before the page can read the body
                } catch {
                  // ignore
                }
                resolve(response);
              },
              (error) => {
                try {
                  failed(info, error);
                } catch {
                  // ignore
                }
                reject(error);
              },
            ]);
          });
        } catch {
          return result;
        }
      },
    }).fetch);
  };
})();
