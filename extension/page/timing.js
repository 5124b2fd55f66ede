// Resource timing and the document's navigation timing → `network_waterfall`,
// buffered so that what loaded before the extension counts.
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
      return entry;
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
