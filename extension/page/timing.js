// Resource timing and the document's navigation timing → `network_waterfall`,
// buffered so that what loaded before the extension counts, with the phases
// of each request where the page may see them (merged into the browser's row
// of the same request by background/request_join.js).
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  /** A PerformanceObserver of `type` that never throws at the page. */
  function observe(type, callback, extra) {
    try {
      const po = new PerformanceObserver((list) => {
        try {
          callback(list.getEntries());
        } catch {
          // ignore
        }
      });
      po.observe(Object.assign({ type, buffered: true }, extra));
    } catch {
      // type not supported by this browser
    }
  }
  G.observePerformance = observe;

  G.sources.timing = function install({ outbox }) {
    function entryOf(e) {
      const entry = {
        url: e.name,
        initiatorType: e.initiatorType || e.entryType,
        startTime: e.startTime,
        duration: e.duration,
        transferSize: e.transferSize,
        encodedBodySize: e.encodedBodySize,
        decodedBodySize: e.decodedBodySize,
        nextHopProtocol: e.nextHopProtocol || undefined,
      };
      if (typeof e.responseStatus === "number" && e.responseStatus > 0) entry.responseStatus = e.responseStatus;
      const phases = phasesOf(e);
      if (phases) entry.phases = phases;
      return entry;
    }

    /**
     * Where the time went (ms), as DevTools splits it; only when the page may
     * see it (same origin, or Timing-Allow-Origin: otherwise the marks are 0).
     * `connect` includes `tls`; `waiting` is from the request sent to its first byte.
     */
    function phasesOf(e) {
      if (!(e.requestStart > 0) || !(e.responseEnd > 0)) return undefined;
      const span = (from, to) => (from > 0 && to >= from ? Math.round((to - from) * 10) / 10 : 0);
      const phases = {
        redirect: span(e.redirectStart, e.redirectEnd),
        dns: span(e.domainLookupStart, e.domainLookupEnd),
        connect: span(e.connectStart, e.connectEnd),
        waiting: span(e.requestStart, e.responseStart),
        download: span(e.responseStart, e.responseEnd),
      };
      if (e.secureConnectionStart > 0) phases.tls = span(e.secureConnectionStart, e.connectEnd);
      if (e.workerStart > 0) phases.serviceWorker = span(e.workerStart, e.fetchStart);
      return phases;
    }
    // A buffered observer can be handed the same entry twice (Chromium gives the
    // document's navigation entry once from the buffer and once when it completes).
    const seen = new WeakSet();
    let documentSeen = false;
    const record = (entries) =>
      entries.forEach((e) => {
        if (seen.has(e) || (e.entryType === "navigation" && documentSeen)) return;
        seen.add(e);
        if (e.entryType === "navigation") documentSeen = true;
        outbox.emit("network_waterfall", () => entryOf(e));
      });
    observe("resource", record);
    observe("navigation", record);
  };
})();
