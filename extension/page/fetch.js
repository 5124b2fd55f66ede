// fetch → `network_bodies`. The page gets a promise of its own that settles
// with the original's outcome, so our observation of the original never marks
// the page's promise handled: an un-awaited fetch that rejects still fires
// `unhandledrejection`. The response body is taken from the page's own read of
// it (consumed.js), or read from a clone, up to the cap, when the page takes
// the stream or does not read it: `duration` runs to the end of that read
// (which `durationTo` names), `headersMs` to the response's headers. A Connect or gRPC-web
// call's end is read from a clone of its framed answer for a failure no status shows (rpc.js).
// Registry: reads sources, core, outbox, bodies, limits, requests, consumed, appFailures, rpc, engineIo; adds sources.fetch.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.fetch = function install({ core, outbox, bodies, limits, requests, consumed, appFailures, rpc, engineIo }) {
    const { apply, clean, fill, invoke, perfNow, Promise, then } = core;
    const { describeBody, readCapped, whenRead, bodyFields, headersToObject, absoluteUrl, TEXTUAL, STREAMING, BROKE_OFF } = bodies;
    const { isErrorPage, errorPageFields, errorPageMark } = bodies;
    if (typeof window.fetch !== "function") return;

    /**
     * What the call says. `input` is a Request or the URL as text (the wrapper turned it into text
     * once); each member of the page's `init` is read once here, once by the browser, as the page
     * may have getters there.
     */
    function describeRequest(input, init) {
      const isRequest = input instanceof Request;
      const given = init ? { method: init.method, headers: init.headers, body: init.body } : {};
      const headers = headersToObject(given.headers || (isRequest && input.headers));
      const info = {
        start: perfNow(),
        page: core.pageUrl.now(),
        method: String(given.method || (isRequest && input.method) || "GET").toUpperCase(),
        url: isRequest ? input.url : absoluteUrl(input),
        headers,
      };
      if (given.body !== undefined && given.body !== null) {
        info.body = describeBody(given.body, headers["content-type"]);
      } else if (isRequest && input.body && !input.bodyUsed) {
        // Our own copy, taken before the page's request is sent (sending consumes it);
        // read up to the cap, then cancelled.
        info.body = { later: readCapped(input.clone().body) };
      }
      // A GraphQL request's operation, by name (app_failures.js), from the body the page gave as
      // text; a tRPC request's procedures, from its URL.
      if (appFailures && appFailures.isGraphql(info.url, headers)) {
        info.graphql = true;
        info.operation = appFailures.operationOf(info.url, info.body && info.body.text);
      } else if (appFailures && appFailures.isTrpc(info.url)) {
        info.operation = appFailures.proceduresOf(info.url);
      } else if (rpc && rpc.isCall(headers)) {
        // A Connect or gRPC-web call: its method, from its URL.
        info.operation = rpc.methodOf(info.url);
        info.rpc = info.operation !== undefined;
      }
      return info;
    }

    /**
     * Reads the response body as the page reads it (consumed.js; from a clone where that
     * cannot be) and calls `done({body, end, to})`:
     * the body as read, when it ended, and `to` one of "body" (the whole body
     * arrived), "cap" (our read stopped at the cap), "timeout", "error" (the
     * body failed mid-way) or "headers" (a body we do not read: streaming,
     * binary, opaque; `done` is then called at once). Callbacks, not promise
     * chains: one reaction per chunk of the body, none more.
     */
    function readResponse(response, type, size, headersAt, done) {
      const now = (body, to) => done({ body, end: headersAt, to });
      if (!consumed) return now(undefined, "headers"); // no Response to read from in this world
      if (!consumed.hasBody(response)) return now(undefined, "body");
      if (response.type === "opaque") return now(undefined, "headers");
      if (STREAMING.test(type)) return now({ note: "[stream]", stream: true, size }, "headers");
      // A body without a content-type (a bare dev server's) is read as text, as the page most likely
      // reads it; a binary one is named, with its size when known.
      if (type && !TEXTUAL.test(type)) {
        return now({ note: size ? `[${type} ${size} bytes not captured]` : `[${type} body not captured]`, size }, "headers");
      }
      // The page's own read of the body is ours too, timed as it ends (consumed.js): no clone,
      // no second read; a clone's read, up to the cap, where the page takes the stream or reads late.
      consumed.watch(response, size, headersAt, done, isErrorPage(response.status, type));
    }

    function observe(info, response) {
      const headersAt = perfNow();
      if (!outbox.isOn("network_bodies")) {
        // Bodies are switched off: no clone is read, the row ends at the headers.
        requests.end(info.request, { status: response.status, ...redirect(response), ...errorPageMark(response.status, () => response.headers.get("content-type")) });
        return;
      }
      // Only what decides whether to clone is read now; the rest when the entry is built.
      const type = response.headers.get("content-type") || "";
      const length = response.headers.get("content-length");
      const size = length !== null && Number.isFinite(Number(length)) ? Number(length) : undefined;
      const emit = (requestBody, { body, end, to }) =>
        outbox.emit("network_bodies", () => ({
          ...entryOf(info, requestBody, end - info.start),
          headersMs: requests.round(headersAt - info.start),
          durationTo: to,
          ...(to === "error" ? { failed: true, error: BROKE_OFF } : undefined),
          status: response.status,
          statusText: response.statusText,
          responseHeaders: headersToObject(response.headers),
          contentType: type || undefined,
          // Where the page's redirects ended: the body is that URL's.
          ...(response.redirected ? { redirected: true, responseUrl: response.url } : undefined),
          ...bodyFields("response", body),
          // A server's error page: its text, as a failed page's (page_text.js).
          ...errorPageFields(body, response.status, type),
        }));
      if (info.rpc) rpcAnswer(info, response, type);
      readResponse(response, type, size, headersAt, (read) => {
        try {
          // The waterfall row ends where our read of the body ended (its timing entry comes then too);
          // a body that broke off mid-way is a failed request, whatever its status said.
          const outcome = {
            status: response.status,
            ...redirect(response),
            ...errorPageMark(response.status, () => type),
            ...(read.to === "error" ? { failed: true, error: BROKE_OFF } : undefined),
          };
          requests.end(info.request, outcome);
          // Socket.IO's long poll (engine_io.js): its packets are its connection's messages.
          const polled = engineIo && response.ok && engineIo.watched(info.url);
          whenRead(info.body, (requestBody) => {
            emit(requestBody, read);
            if (polled) engineIo.poll(info.method, info.url, requestBody, read.body);
          });
          if (appFailures && appFailures.watched(info.method, info.url, info.headers)) failedWith200(info, response.status, read.body);
        } catch {
          // never an error the page could hear of
        }
      });
    }

    /** Where the browser's redirects ended (a Turbo form's POST answered 303), for the row: `finalUrl`. */
    function redirect(response) {
      return response.redirected ? { finalUrl: response.url } : undefined;
    }

    /**
     * A Connect or gRPC-web call's failure that no status shows (rpc.js): in a trailers-only
     * answer's headers, else at the end of its framed body, read from a clone taken before the
     * page reads the answer.
     */
    function rpcAnswer(info, response, type) {
      const said = (failure) => {
        if (!failure) return;
        const url = location.href; // the page's when the answer came
        outbox.emit("logs", () => ({ level: "error", source: "framework", message: failure, url, resourceUrl: info.url }), true);
      };
      const headers = response.headers;
      const inHeaders = rpc.headersFailure(info.operation, (name) => headers.get(name));
      if (inHeaders || response.status !== 200 || !rpc.isFramed(type)) return said(inHeaders);
      if (response.body && !response.bodyUsed) rpc.readEnd(response.clone().body, info.operation, said);
    }

    /** A failure the framework answered with 200 (app_failures.js), as an error entry. */
    function failedWith200(info, status, body) {
      const url = location.href; // the page's when the answer came
      outbox.emit("logs", () => appFailures.entry(info, status, body && body.text, url), true);
    }

    function failed(info, error) {
      const duration = perfNow() - info.start;
      const why = requests.failure(error, info.url);
      requests.end(info.request, { failed: true, error: why });
      whenRead(info.body, (requestBody) =>
        outbox.emit("network_bodies", () => ({ ...entryOf(info, requestBody, duration), durationTo: "error", failed: true, error: why })),
      );
    }

    function entryOf(info, requestBody, duration) {
      return {
        ts: requests.epochOf(info.start), // when it started, as its waterfall row says, not when its body was read
        method: info.method,
        url: info.url,
        initiator: "fetch",
        duration: requests.round(duration),
        requestHeaders: info.headers,
        pageUrl: core.pageUrl.since(info.page), // where the page was, if it has moved on since
        ...bodyFields("request", requestBody),
        // A Request's body, read later: its operation named from it then.
        operation: info.operation || (info.graphql && requestBody ? appFailures.operationOf(info.url, requestBody.text) : undefined),
      };
    }

    fill(window, "fetch", (original) => ({
      fetch(input, init) {
        let info;
        let args = arguments;
        try {
          // A URL object (or anything with a toString) becomes text once, here, and the browser is
          // given that text: the page's toString runs once, as without us.
          if (!(input instanceof Request) && typeof input !== "string") {
            const text = `${input}`; // ToString, as the browser converts it (a Symbol throws)
            args = arguments.length > 1 ? [text, init] : [text];
            input = text;
          }
          info = describeRequest(input, init);
          info.request = requests.start(info.method, info.url, "fetch", info.operation);
          // Started as the document unloads (a keepalive fetch in the page's pagehide): no answer
          // will reach this document, so its entry goes now, with what the page sent.
          if (requests.leaving()) {
            whenRead(info.body, (requestBody) =>
              outbox.emit("network_bodies", () => ({ ...entryOf(info, requestBody, 0), unfinished: true })),
            );
            info = undefined;
          }
        } catch {
          info = undefined;
        }
        const result = invoke(original, this, args); // its own error (a bad URL, a bad init) without our frame
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
                reject(clean(error));
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
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiZmV0Y2guanMiLCJzb3VyY2VzIjpbImdhc29saW5lLWV4dGVuc2lvbjovLy9wYWdlL2ZldGNoLmpzIl0sIm5hbWVzIjpbXSwibWFwcGluZ3MiOiJBQUFBIiwiaWdub3JlTGlzdCI6WzBdLCJ4X2dvb2dsZV9pZ25vcmVMaXN0IjpbMF19
