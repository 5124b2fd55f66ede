// Resource Timing and the document's navigation timing, observed from
// document_start with `buffered: true` (so what loaded before the extension
// counts, and the observer is not bound by the 250-entry buffer that caps
// getEntries), each entry handed to requests.js, which joins it with what the
// wrappers know of the same request and makes the `network_waterfall` row.
// A frame's observer sees only that frame's requests: every in-scope frame
// runs its own.
// Registry: reads sources, core, requests; adds observePerformance, sources.timing.
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

  G.sources.timing = function install() {
    const { requests } = G;
    if (!requests) return;
    // A buffered observer can be handed the same entry twice (Chromium gives the
    // document's navigation entry once from the buffer and once when it completes).
    const seen = G.core.weakSet();
    let documentSeen = false;
    const record = (entries) =>
      entries.forEach((e) => {
        if (seen.has(e) || (e.entryType === "navigation" && documentSeen)) return;
        seen.add(e);
        if (e.entryType === "navigation") documentSeen = true;
        requests.timing(e);
      });
    observe("resource", record);
    observe("navigation", record);
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoidGltaW5nLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS90aW1pbmcuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
