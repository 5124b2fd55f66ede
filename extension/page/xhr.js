// XMLHttpRequest → `network_bodies`, one entry per send(), also when the page
// reuses one XHR for many requests. Wraps open/setRequestHeader/send on the
// prototype (the constructor is untouched). An XHR cannot hand over part of
// its text, so a response is read only when it is small (XHR_READ_LIMIT);
// larger ones are recorded by size.
// Registry: reads sources, core, outbox, bodies, limits, requests, appFailures, engineIo; adds sources.xhr.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.xhr = function install({ core, outbox, bodies, limits, requests, appFailures, engineIo }) {
    const { apply, fill, listen, perfNow } = core;
    const { describeBody, decodeAll, whenRead, bodyFields, parseRawHeaders, absoluteUrl, TEXTUAL, BROKE_OFF } = bodies;
    const { isErrorPage, errorPageFields, errorPageMark } = bodies;
    if (typeof XMLHttpRequest !== "function") return;
    const NETWORK_ERROR = "network error (XHR status 0)";
    const XHR_READ_LIMIT = 4 * limits.BODY_CAP; // bytes received
    const proto = XMLHttpRequest.prototype;
    // An XHR can be opened and sent again and again: `opened` holds what the last
    // open() said, `sending` the one send() in flight, which its loadend takes
    // (so every send() gives exactly one entry, with its own open's method and url).
    const opened = core.weakMap();
    const sending = core.weakMap();
    const watched = core.weakSet(); // our listeners are added once per XHR, at its first send
    const inFlight = new Set(); // XHRs with a send not yet ended, for the page's pagehide

    fill(proto, "open", (original) => ({
      open(method, url) {
        try {
          // A page that opens again from its own load/loadend/readystatechange
          // handler (added before ours) does it before our loadend listener runs:
          // the send that finished is taken here, before open() clears its response.
          // An open() during a send ends that send without a loadend: its entry says so.
          const last = sending.get(this);
          if (last) {
            sending.delete(this);
            if (this.readyState === 4) ended(this, last, last.loaded || 0);
            else ended(this, last, undefined, "aborted by open()");
          }
        } catch {
          // ignore
        }
        const result = apply(original, this, arguments);
        try {
          opened.set(this, { method: String(method).toUpperCase(), url: absoluteUrl(String(url)), headers: {} });
        } catch {
          // ignore
        }
        return result;
      },
    }).open);

    fill(proto, "setRequestHeader", (original) => ({
      setRequestHeader(name, value) {
        const result = apply(original, this, arguments);
        try {
          const o = opened.get(this);
          if (o) {
            const key = String(name).toLowerCase();
            o.headers[key] = key in o.headers ? `${o.headers[key]}, ${value}` : String(value);
          }
        } catch {
          // ignore
        }
        return result;
      },
    }).setRequestHeader);

    fill(proto, "send", (original) => ({
      send(body) {
        let send;
        const before = sending.get(this); // a send in flight, if this one is refused
        try {
          const o = opened.get(this);
          if (o) {
            send = { method: o.method, url: o.url, headers: Object.assign({}, o.headers), start: perfNow(), page: core.pageUrl.now() };
            send.body = describeBody(body, send.headers["content-type"]);
            // A GraphQL request's operation, by name, a tRPC request's procedures (app_failures.js);
            // failures their answers tell in the body alone.
            if (appFailures && appFailures.watched(o.method, o.url, send.headers)) {
              send.watched = true;
              if (appFailures.isGraphql(o.url, send.headers)) send.operation = appFailures.operationOf(o.url, send.body && send.body.text);
              else if (appFailures.isTrpc(o.url)) send.operation = appFailures.proceduresOf(o.url);
            }
            send.request = requests.start(o.method, o.url, "xmlhttprequest", send.operation);
            watch(this);
            sending.set(this, send); // before the original: a synchronous XHR ends inside it
            inFlight.add(this);
          }
        } catch {
          // ignore
        }
        try {
          return apply(original, this, arguments);
        } catch (e) {
          // Refused (not opened, sent twice): no request, and the one in flight stays.
          if (send && sending.get(this) === send) {
            if (before) sending.set(this, before);
            else {
              sending.delete(this);
              inFlight.delete(this);
            }
          }
          throw e;
        }
      },
    }).send);

    function watch(xhr) {
      if (watched.has(xhr)) return;
      watched.add(xhr);
      listen(xhr, "readystatechange", () => {
        const send = sending.get(xhr);
        if (!send) return;
        const state = xhr.readyState;
        // Headers came (HEADERS_RECEIVED or LOADING; DONE with a status when both came at once). A
        // refused connection goes from OPENED to DONE with status 0: no headers, no body broken off.
        if (send.headersAt === undefined && (state === 2 || state === 3 || (state === 4 && xhr.status > 0))) send.headersAt = perfNow();
        // DONE is the request's end: the page's own load handlers, which run after, are not its time.
        if (state === 4 && send.doneAt === undefined) send.doneAt = perfNow();
      });
      listen(xhr, "progress", (event) => {
        const send = sending.get(xhr);
        if (send) send.loaded = event.loaded; // bytes so far (the last one comes before readyState 4)
      });
      // Why a send ended with nothing: the page aborted it, it timed out, or the network failed.
      for (const [type, why] of [["abort", "aborted (XHR abort())"], ["timeout", "timed out (XHR timeout)"], ["error", NETWORK_ERROR]]) {
        listen(xhr, type, () => {
          const send = sending.get(xhr);
          if (send) send.failure = why;
        });
      }
      listen(xhr, "loadend", (event) => {
        const send = sending.get(xhr);
        // OPENED: a page handler before ours already opened (our open() took this
        // loadend's send) and maybe sent the next request, whose record this is.
        if (!send || xhr.readyState === 1) return;
        sending.delete(xhr);
        ended(xhr, send, event.loaded, send.failure);
      });
    }

    // A document being unloaded fires no loadend: the sends still in flight are entries now, with
    // what the page sent, saying they were not finished (requests.js sends their rows the same way).
    if (typeof globalThis.addEventListener === "function") {
      listen(globalThis, "pagehide", () => {
        for (const xhr of [...inFlight]) {
          inFlight.delete(xhr);
          const send = sending.get(xhr);
          if (!send) continue;
          sending.delete(xhr);
          const duration = perfNow() - send.start;
          whenRead(send.body, (requestBody) =>
            outbox.emit("network_bodies", () => ({ ...requestPart(send, requestBody, duration), unfinished: true })),
          );
        }
      });
    }

    /** What every entry of `send` holds: the request as the page sent it, and its times so far. */
    function requestPart(send, requestBody, duration) {
      return {
        ts: requests.epochOf(send.start), // when it was sent, as its waterfall row says
        method: send.method,
        url: send.url,
        initiator: "xhr",
        duration: requests.round(duration),
        headersMs: send.headersAt === undefined ? undefined : requests.round(send.headersAt - send.start),
        requestHeaders: send.headers,
        pageUrl: core.pageUrl.since(send.page), // where the page was, if it has moved on since
        ...bodyFields("request", requestBody),
        operation: send.operation,
      };
    }

    /** The entry of `send`: done with `loaded` bytes received, or cut short by `error`. */
    function ended(xhr, send, loaded, error) {
      inFlight.delete(xhr);
      const done = !error;
      const duration = (send.doneAt ?? perfNow()) - send.start;
      const response = done ? readResponse(xhr, loaded) : undefined;
      const rawHeaders = done ? xhr.getAllResponseHeaders() : "";
      const status = done ? xhr.status : 0;
      const statusText = done ? xhr.statusText : "";
      // Where the browser's redirects ended (an htmx form answered 303): the body is that URL's.
      const finalUrl = done ? xhr.responseURL : "";
      const redirected = typeof finalUrl === "string" && finalUrl !== "" && finalUrl !== send.url.split("#")[0];
      // An XHR ends with status 0 only after an error, an abort or a timeout: the page knows it failed.
      // A network error once the response had begun (its headers came) broke the body off.
      const said = error && requests.failure(error, send.url); // canceled, when the page was leaving
      const why = error === NETWORK_ERROR && send.headersAt !== undefined ? requests.failure(BROKE_OFF) : said;
      requests.end(
        send.request,
        status > 0
          ? {
              status,
              ...(redirected ? { finalUrl } : undefined),
              // An HTML error page (an htmx swap's 500): the page the person then sees.
              ...errorPageMark(status, () => xhr.getResponseHeader("content-type")),
            }
          : { failed: true, error: why || requests.failure(NETWORK_ERROR, send.url) },
      );
      const emit = (requestBody, response) =>
        outbox.emit("network_bodies", () => {
          const headers = parseRawHeaders(rawHeaders);
          return {
            ...requestPart(send, requestBody, duration),
            status,
            statusText,
            responseHeaders: headers,
            contentType: headers["content-type"],
            ...(redirected ? { redirected: true, responseUrl: finalUrl } : undefined),
            ...bodyFields("response", response),
            // A server's error page (an htmx request answered with Django's debug page): its text.
            ...errorPageFields(response, status, headers["content-type"]),
            ...(status > 0 ? undefined : { failed: true }),
            error: said,
          };
        });
      // Socket.IO's long poll (engine_io.js): its packets are its connection's messages.
      const polled = engineIo && done && status >= 200 && status < 300 && engineIo.watched(send.url);
      // A failure a framework answered with 200 (app_failures.js), with the page's URL as the answer came.
      const pageUrl = send.watched && done ? location.href : undefined;
      // A Blob response is read (sliced at the cap) after the request's Blob body, if either is one.
      whenRead(send.body, (requestBody) =>
        whenRead(response, (read) => {
          emit(requestBody, read);
          if (polled) engineIo.poll(send.method, send.url, requestBody, read);
          if (pageUrl !== undefined) outbox.emit("logs", () => appFailures.entry(send, status, read && read.text, pageUrl), true);
        }),
      );
    }

    /**
     * What the page received, as describeBody says a body: text (a JSON, XML or text
     * response, also as a Blob or an ArrayBuffer, as polyfills of fetch and download
     * helpers ask for it), `{later}` for a Blob's, or a note.
     */
    function readResponse(xhr, loaded) {
      try {
        const type = xhr.responseType;
        if (type === "blob" || type === "arraybuffer") return binaryResponse(xhr.response, type, xhr.getResponseHeader("content-type") || "");
        if (type !== "" && type !== "text" && type !== "json") return xhr.response ? { note: `[${type} response]`, size: loaded } : undefined;
        // An error page is read further, for its text (bodies.errorPageFields).
        const errorPage = xhr.status >= 400 && isErrorPage(xhr.status, xhr.getResponseHeader("content-type"));
        if (loaded > (errorPage ? limits.ERROR_PAGE_READ : XHR_READ_LIMIT)) return { note: `[${loaded} bytes not read]`, size: loaded, truncated: true };
        if (type === "json" && xhr.response === null && loaded > 0) {
          // The browser parsed the body and failed: its text is gone, and the page got null.
          return { note: "[not valid JSON: the page's response is null]", size: loaded };
        }
        const text = type === "json" ? JSON.stringify(xhr.response) : xhr.responseText;
        if (typeof text !== "string") return undefined;
        const truncated = text.length > limits.BODY_CAP;
        const read = { text: truncated ? text.slice(0, limits.BODY_CAP) : text, size: text.length, truncated };
        if (errorPage && truncated) read.html = text;
        return read;
      } catch {
        return undefined;
      }
    }

    /** A Blob or ArrayBuffer response: read up to the cap when its type is text, else a note of its size. */
    function binaryResponse(response, type, contentType) {
      if (!response) return undefined;
      if (type === "blob") return describeBody(response, contentType);
      const size = response.byteLength;
      if (!TEXTUAL.test(contentType)) return { note: `[binary ${size} bytes]`, size };
      const cut = size > limits.BODY_CAP;
      const text = decodeAll([new Uint8Array(response, 0, cut ? limits.BODY_CAP : size)], 0, cut);
      return { text, size, truncated: cut };
    }
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoieGhyLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS94aHIuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
