// XMLHttpRequest → `network_bodies`. Wraps open/setRequestHeader/send on the
// prototype (the constructor is untouched). An XHR cannot hand over part of
// its text, so a response is read only when it is small (XHR_READ_LIMIT);
// larger ones are recorded by size.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.xhr = function install({ core, outbox, bodies, limits }) {
    const { apply, fill, listen, perfNow } = core;
    const { describeBody, bodyFields, parseRawHeaders, absoluteUrl } = bodies;
    if (typeof XMLHttpRequest !== "function") return;
    const XHR_READ_LIMIT = 4 * limits.BODY_CAP; // bytes received
    const proto = XMLHttpRequest.prototype;
    const state = new WeakMap();

    fill(proto, "open", (original) => ({
      open(method, url) {
        try {
          state.set(this, { method: String(method).toUpperCase(), url: absoluteUrl(String(url)), headers: {} });
        } catch {
          // ignore
        }
        return apply(original, this, arguments);
      },
    }).open);

    fill(proto, "setRequestHeader", (original) => ({
      setRequestHeader(name, value) {
        try {
          const s = state.get(this);
          if (s) s.headers[String(name).toLowerCase()] = String(value);
        } catch {
          // ignore
        }
        return apply(original, this, arguments);
      },
    }).setRequestHeader);

    fill(proto, "send", (original) => ({
      send(body) {
        try {
          const s = state.get(this);
          if (s) {
            s.start = perfNow();
            s.body = describeBody(body, s.headers["content-type"]);
            const xhr = this;
            listen(xhr, "loadend", (event) => {
              const duration = perfNow() - s.start;
              const loaded = event.loaded;
              const response = readResponse(xhr, loaded);
              const rawHeaders = xhr.getAllResponseHeaders();
              const status = xhr.status;
              const statusText = xhr.statusText;
              const later = s.body && s.body.later ? s.body.later.catch(() => undefined) : undefined;
              const emit = (requestBody) =>
                outbox.emit("network_bodies", () => {
                  const headers = parseRawHeaders(rawHeaders);
                  return {
                    method: s.method,
                    url: s.url,
                    initiator: "xhr",
                    status,
                    statusText,
                    duration,
                    requestHeaders: s.headers,
                    responseHeaders: headers,
                    contentType: headers["content-type"],
                    ...bodyFields("request", requestBody),
                    ...bodyFields("response", response),
                  };
                });
              if (later) later.then(emit);
              else emit(s.body);
            });
          }
        } catch {
          // ignore
        }
        return apply(original, this, arguments);
      },
    }).send);

    function readResponse(xhr, loaded) {
      try {
        const type = xhr.responseType;
        if (type !== "" && type !== "text" && type !== "json") return xhr.response ? { note: `[${type} response]`, size: loaded } : undefined;
        if (loaded > XHR_READ_LIMIT) return { note: `[${loaded} bytes not read]`, size: loaded, truncated: true };
        const text = type === "json" ? JSON.stringify(xhr.response) : xhr.responseText;
        if (typeof text !== "string") return undefined;
        return { text: text.slice(0, limits.BODY_CAP), size: text.length, truncated: text.length > limits.BODY_CAP };
      } catch {
        return undefined;
      }
    }
  };
})();
