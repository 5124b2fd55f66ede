// LCP, CLS, INP, FCP and TTFB → `vitals`, per page: the document's load, then
// each soft navigation (a route change seen by navigation.js) starts a fresh
// page with no LCP, CLS or INP. Every performance entry counts for the page
// during which it began (its startTime), so the click that navigated counts
// for the page it was made on even though the browser reports it after the
// route changed. A page is reported a second after its last change, once more
// when it is left (its final values, under its own URL) and when the tab is
// hidden; a route's page is reported even with no figure yet, since it is where
// the tab is. FCP and TTFB belong to the load only. Each report says when its page
// began (`started`), so a reload of the same URL is a new page to the server.
// Registry: reads sources, observePerformance, inp, routes, core, outbox, requests; adds sources.vitals.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.vitals = function install({ core, outbox, requests }) {
    const { listen, setTimeout, clearTimeout, perfNow } = core;
    const observe = G.observePerformance;
    const { createInp, createInteractionCounter, DURATION_THRESHOLD } = G.inp;
    const REPORT_AFTER_MS = 1000; // quiet time before a report; also how long a left page takes late entries
    const timeOrigin = performance.timeOrigin;

    // The browser's interaction count when it has one, else web-vitals' estimate from the ids.
    const counter = createInteractionCounter();
    const countGetter = (() => {
      try {
        const d = Object.getOwnPropertyDescriptor(Performance.prototype, "interactionCount");
        return d && typeof d.get === "function" ? d.get : null;
      } catch {
        return null;
      }
    })();
    const interactionCount = () => {
      const n = countGetter ? core.apply(countGetter, performance, []) : undefined;
      return typeof n === "number" ? n : counter.count();
    };

    function newPage(url, how, start) {
      return {
        url,
        how,
        start, // performance time the page began
        countBase: interactionCount(), // interactions before it
        countEnd: null, // interactions when it was left
        lcp: null,
        fcp: null,
        ttfb: null,
        cls: null,
        session: 0, // CLS: the current session window
        sessionStart: 0,
        previous: 0,
        inp: createInp(),
        timer: undefined,
      };
    }
    let page = newPage(location.href, "load", 0);
    let left = null; // the page just left, still taking entries that began on it

    /** The page during which something that began at `startTime` happened. */
    function pageAt(startTime) {
      if (startTime >= page.start) return page;
      if (left && startTime >= left.start) return left;
      return null; // before a page already reported as left
    }

    function snapshot(p) {
      const count = (p.countEnd === null ? interactionCount() : p.countEnd) - p.countBase;
      // `started` (epoch ms) tells the server a page from the same URL's next load or route.
      const started = Math.round(timeOrigin + p.start);
      // Durations to a tenth of a millisecond, as the waterfall's (a timing entry's doubles carry noise digits).
      const ms = (v) => (typeof v === "number" ? requests.round(v) : v);
      return { url: p.url, lcp: ms(p.lcp), cls: p.cls, inp: ms(p.inp.value(count)), fcp: ms(p.fcp), ttfb: ms(p.ttfb), navigation: p.how, started };
    }

    function report(p) {
      clearTimeout(p.timer);
      p.timer = undefined;
      const values = snapshot(p);
      // A load says nothing until its first figure (its TTFB comes at once); a route is reported
      // with none, since it is the page the tab is now on (an htmx or Turbo visit rarely has any).
      if (p.how === "load" && ["lcp", "cls", "inp", "fcp", "ttfb"].every((k) => values[k] === null)) return;
      outbox.emit("vitals", () => values);
    }

    /** Reports the left page first: the server keeps the latest URL's row, so order matters. */
    function reportLeft() {
      if (!left) return;
      const p = left;
      left = null;
      report(p);
    }

    function changed(p) {
      if (p !== page) return; // a left page is reported on its own timer
      clearTimeout(p.timer);
      p.timer = setTimeout(() => {
        reportLeft();
        report(page);
      }, REPORT_AFTER_MS);
    }

    // A new route starts a new page; a query-only change or an in-page anchor does not.
    function routeOf(url) {
      try {
        const u = new URL(url);
        const hashRoute = /^#!?\//.test(u.hash) ? u.hash.replace(/\?.*$/, "") : "";
        return u.origin + u.pathname + hashRoute;
      } catch {
        return String(url);
      }
    }
    if (G.routes) {
      G.routes.onChange(({ how, from, to }) => {
        if (routeOf(from) === routeOf(to)) return;
        reportLeft(); // two route changes within a second: the first page is final now
        clearTimeout(page.timer);
        page.timer = undefined;
        const leaving = page;
        leaving.countEnd = interactionCount();
        left = leaving;
        page = newPage(to, how, perfNow());
        changed(page); // reported after a quiet second, after the page left, whatever it measured
        setTimeout(() => left === leaving && reportLeft(), REPORT_AFTER_MS);
      });
    }

    observe("navigation", (entries) =>
      entries.forEach((e) => {
        const p = pageAt(0);
        if (p && p.how === "load" && e.responseStart > 0) {
          p.ttfb = e.responseStart;
          changed(p);
        }
      }),
    );
    observe("paint", (entries) =>
      entries.forEach((e) => {
        const p = pageAt(0);
        if (p && p.how === "load" && e.name === "first-contentful-paint") {
          p.fcp = e.startTime;
          changed(p);
        }
      }),
    );
    observe("largest-contentful-paint", (entries) =>
      entries.forEach((e) => {
        const p = pageAt(e.startTime);
        if (p) {
          p.lcp = e.startTime - p.start; // the latest candidate is the largest; from the page's start
          changed(p);
        }
      }),
    );
    // CLS: the largest session window of shifts (gaps < 1 s, windows < 5 s).
    observe("layout-shift", (entries) =>
      entries.forEach((e) => {
        const p = pageAt(e.startTime);
        if (!p || e.hadRecentInput) return;
        if (p.session && e.startTime - p.previous < 1000 && e.startTime - p.sessionStart < 5000) p.session += e.value;
        else {
          p.session = e.value;
          p.sessionStart = e.startTime;
        }
        p.previous = e.startTime;
        p.cls = Math.max(p.cls || 0, p.session);
        changed(p);
      }),
    );
    // INP: interactions from Event Timing (lib/inp.js); first-input comes whatever its duration.
    const interaction = (entries) =>
      entries.forEach((e) => {
        counter.add(e);
        const p = pageAt(e.startTime);
        if (!p || !e.interactionId) return;
        p.inp.add(e);
        changed(p);
      });
    observe("event", interaction, { durationThreshold: DURATION_THRESHOLD });
    observe("first-input", interaction);

    const hidden = (unloading) => {
      try {
        reportLeft();
        report(page);
        outbox.flushAll(unloading);
      } catch {
        // ignore
      }
    };
    listen(document, "visibilitychange", () => document.visibilityState === "hidden" && hidden(false));
    listen(window, "pagehide", () => hidden(true));
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoidml0YWxzLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS92aXRhbHMuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
