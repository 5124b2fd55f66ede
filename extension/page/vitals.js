// LCP, CLS, INP, FCP and TTFB of the page → `vitals`, reported a second after
// the last change and when the page is hidden.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.vitals = function install({ core, outbox }) {
    const { listen, setTimeout, clearTimeout } = core;
    const observe = G.observePerformance;
    const vitals = { lcp: null, cls: null, inp: null, fcp: null, ttfb: null };
    let timer;

    function changed() {
      clearTimeout(timer);
      timer = setTimeout(report, 1000);
    }
    function report() {
      clearTimeout(timer);
      if (Object.values(vitals).every((v) => v === null)) return;
      const snapshot = Object.assign({}, vitals);
      outbox.emit("vitals", () => Object.assign({ url: location.href }, snapshot));
    }

    observe("navigation", (entries) =>
      entries.forEach((e) => {
        if (e.responseStart > 0) {
          vitals.ttfb = e.responseStart;
          changed();
        }
      }),
    );
    observe("paint", (entries) =>
      entries.forEach((e) => {
        if (e.name === "first-contentful-paint") {
          vitals.fcp = e.startTime;
          changed();
        }
      }),
    );
    observe("largest-contentful-paint", (entries) => {
      const last = entries[entries.length - 1];
      if (last) {
        vitals.lcp = last.startTime;
        changed();
      }
    });
    // CLS: the largest session window of shifts (gaps < 1 s, windows < 5 s).
    let session = 0;
    let sessionStart = 0;
    let previous = 0;
    observe("layout-shift", (entries) => {
      for (const e of entries) {
        if (e.hadRecentInput) continue;
        if (session && e.startTime - previous < 1000 && e.startTime - sessionStart < 5000) session += e.value;
        else {
          session = e.value;
          sessionStart = e.startTime;
        }
        previous = e.startTime;
        vitals.cls = Math.max(vitals.cls || 0, session);
      }
      changed();
    });
    // INP: the slowest interaction (exact below 50 interactions, close above).
    observe(
      "event",
      (entries) => {
        for (const e of entries) if (e.interactionId && e.duration > (vitals.inp || 0)) vitals.inp = e.duration;
        changed();
      },
      { durationThreshold: 16 },
    );
    const hidden = () => {
      try {
        report();
        outbox.flushAll();
      } catch {
        // ignore
      }
    };
    listen(document, "visibilitychange", () => document.visibilityState === "hidden" && hidden());
    listen(window, "pagehide", hidden);
  };
})();
