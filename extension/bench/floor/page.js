// The least a page-side capture can do, for the bench's FLOOR=page-* (run.mjs): in the
// page's world at document_start, each fetch's response read from a clone, each
// Resource Timing entry kept, and (page-deliver) both sent to the isolated-world
// relay every 250 ms. No redaction, no joining, no ordering, no acknowledgement:
// what any design that sees the page's requests and bodies from the page must pay.
// page-full sends what page-deliver does with every field Gasoline's entries carry
// (headers, phases, sizes, timings), built on the spot.
(() => {
  const level = "FLOOR_LEVEL"; // replaced by run.mjs: page-inject, page-observe, page-deliver or page-full
  if (level === "page-inject") return;
  const out = [];
  // page-full: the same fields as Gasoline's entries (headers, phases, sizes), built at once.
  const full = level === "page-full" || level === "page-direct";
  const headers = (h) => {
    const out = {};
    h.forEach((value, name) => (out[name] = value));
    return out;
  };
  const round = (ms) => Math.round(ms * 10) / 10;
  const original = window.fetch;
  window.fetch = function fetch(input, init) {
    const start = performance.now();
    const url = full ? new URL(String(input), document.baseURI).href : String(input);
    const result = original.apply(this, arguments);
    result.then(
      (response) => {
        const headersAt = performance.now();
        return response
          .clone()
          .text()
          .then((body) => {
            const end = performance.now();
            const entry = { method: "GET", url: response.url, status: response.status, duration: end - start };
            if (full) {
              Object.assign(entry, {
                url,
                initiator: "fetch",
                requestHeaders: {},
                headersMs: headersAt - start,
                durationTo: "body",
                statusText: response.statusText,
                responseHeaders: headers(response.headers),
                contentType: response.headers.get("content-type") || undefined,
                ts: Date.now(),
              });
            }
            out.push({ kind: "network_bodies", entry: { ...entry, responseBody: body.slice(0, 16384) } });
          });
      },
      () => {},
    );
    return result;
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const entry = { url: e.name, startTime: e.startTime, duration: e.duration, transferSize: e.transferSize, responseStatus: e.responseStatus };
      if (full) {
        const span = (from, to) => (from > 0 && to >= from ? round(to - from) : 0);
        Object.assign(entry, {
          source: "page",
          method: "GET",
          initiatorType: e.initiatorType,
          startTime: round(e.startTime),
          duration: round(e.duration),
          encodedBodySize: e.encodedBodySize,
          decodedBodySize: e.decodedBodySize,
          nextHopProtocol: e.nextHopProtocol || undefined,
          phases: {
            redirect: span(e.redirectStart, e.redirectEnd),
            dns: span(e.domainLookupStart, e.domainLookupEnd),
            connect: span(e.connectStart, e.connectEnd),
            waiting: span(e.requestStart, e.responseStart),
            download: span(e.responseStart, e.responseEnd),
          },
          ts: Math.round(performance.timeOrigin + e.startTime),
        });
      }
      out.push({ kind: "network_waterfall", entry });
    }
  }).observe({ type: "resource", buffered: true });
  if (level === "page-observe") return;
  let port = null;
  document.addEventListener("gasoline-floor:port", (e) => (port = e.ports[0]), { once: true });
  setInterval(() => {
    if (port && out.length) port.postMessage(out.splice(0));
  }, 250);
})();
