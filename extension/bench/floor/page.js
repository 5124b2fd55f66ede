// The least a page-side capture can do, for the bench's FLOOR=page-* (run.mjs): in the
// page's world at document_start, each fetch's response read from a clone, each
// Resource Timing entry kept, and (page-deliver) both sent to the isolated-world
// relay every 250 ms. No redaction, no joining, no ordering, no acknowledgement:
// what any design that sees the page's requests and bodies from the page must pay.
(() => {
  const level = "FLOOR_LEVEL"; // replaced by run.mjs: page-inject, page-observe or page-deliver
  if (level === "page-inject") return;
  const out = [];
  const original = window.fetch;
  window.fetch = function fetch(input, init) {
    const start = performance.now();
    const result = original.apply(this, arguments);
    result.then(
      (response) =>
        response
          .clone()
          .text()
          .then((body) => {
            const entry = { method: "GET", url: response.url, status: response.status, duration: performance.now() - start };
            out.push({ kind: "network_bodies", entry: { ...entry, responseBody: body.slice(0, 16384) } });
          }),
      () => {},
    );
    return result;
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const entry = { url: e.name, startTime: e.startTime, duration: e.duration, transferSize: e.transferSize, responseStatus: e.responseStatus };
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
