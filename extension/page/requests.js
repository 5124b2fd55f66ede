// The page's own waterfall: one `network_waterfall` row per request the page
// can see, `source: "page"`, made from two halves joined here, in the page:
// - what a wrapper saw (fetch, XHR, sendBeacon, EventSource, WebSocket) or an
//   element that fired `error`: the method, the status, whether it failed and
//   the page's own words for why (`start` / `end`);
// - the Resource Timing entry of the same URL (timing.js): start, duration,
//   sizes, protocol, phases where the page may see them (`timing`).
// Either half may come first. An ended request waits HOLD_MS for its timing
// (a fetch whose body the page never reads leaves none, and is sent alone); a
// timing entry with a status is sent at once (a script, an image, a
// stylesheet: `method` null, the page does not know it); one with status 0
// waits LONE_MS for a wrapper or an element to say how it ended, since status 0
// alone also means an opaque or cross-origin response and is not a failure.
// A row is `failed: true` only when the page knows it failed.
// Registry: reads core, outbox; adds requests.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.core || !G.outbox || G.requests) return;
  const { apply, later, perfNow, listen } = G.core;
  const { outbox } = G;
  const HOLD_MS = 1500;
  const LONE_MS = 1000;
  const MAX_OPEN = 1000; // requests followed at once; the oldest is sent as it is past this
  const RECENT = 200; // rows sent without their timing, so a late timing is not a second row
  const timeOrigin = performance.timeOrigin;
  const getEntriesByType = Performance.prototype.getEntriesByType;

  const open = []; // {key, url, method, initiator, start, ended, end, status, failed, error, timing}
  const lone = []; // {key, entry}: status-0 timings waiting for their outcome
  const sentAlone = []; // keys of rows sent before their timing came
  const sentTimed = []; // keys of rows sent from their timing alone (a 404 image's, say)

  const keyOf = (url) => String(url).split("#")[0];

  /** A request a wrapper saw start (its URL absolute); give the record to `end`. */
  function start(method, url, initiator) {
    const r = { key: keyOf(url), url: String(url), method, initiator, start: perfNow() };
    open.push(r);
    if (open.length > MAX_OPEN) send(open[0]);
    return r;
  }

  /** How it ended: `{status}`, or `{failed: true, error}` when the page saw it fail. */
  function end(r, outcome) {
    if (!r || r.ended) return;
    r.ended = true;
    r.end = perfNow();
    if (outcome) Object.assign(r, outcome);
    if (!r.timing) {
      const i = lone.findIndex((t) => t.key === r.key);
      if (i >= 0) r.timing = lone.splice(i, 1)[0].entry;
    }
    if (r.timing) send(r);
    else later(() => send(r), HOLD_MS);
  }

  /** An element (img, script, link…) that fired `error` for `url`. */
  function elementFailed(url, initiator) {
    const key = keyOf(url);
    const i = sentTimed.indexOf(key);
    if (i >= 0) {
      // Its row went already, with the status that says it failed (a 404): one row per request.
      sentTimed.splice(i, 1);
      return;
    }
    end(start(null, url, initiator), { failed: true });
  }

  /** A Resource Timing entry (resource or navigation). */
  function timing(e) {
    const key = keyOf(e.name);
    const r = open.find((x) => x.key === key && !x.timing && !x.sent);
    if (r) {
      r.timing = e;
      if (r.ended) send(r);
      return;
    }
    const i = sentAlone.indexOf(key);
    if (i >= 0) {
      sentAlone.splice(i, 1); // its request's row went without it: one row per request
      return;
    }
    if (e.entryType === "navigation") return documentRow(e);
    if (statusOf(e) > 0) {
      sentTimed.push(key);
      if (sentTimed.length > RECENT) sentTimed.shift();
      return emit(rowOf(null, e));
    }
    const waiting = { key, entry: e };
    lone.push(waiting);
    later(() => {
      const j = lone.indexOf(waiting);
      if (j < 0) return;
      lone.splice(j, 1);
      emit(rowOf(null, e));
    }, LONE_MS);
  }

  function send(r) {
    if (r.sent) return;
    r.sent = true;
    const i = open.indexOf(r);
    if (i >= 0) open.splice(i, 1);
    if (!r.timing) {
      sentAlone.push(r.key);
      if (sentAlone.length > RECENT) sentAlone.shift();
    }
    emit(rowOf(r, r.timing));
  }

  /** The document's own row, once its load has ended, with its DOMContentLoaded and load times. */
  function documentRow(e) {
    if (e.loadEventEnd > 0) return emit(rowOf(null, e));
    let done = false;
    const go = () => {
      if (done) return;
      done = true;
      let latest = e;
      try {
        latest = apply(getEntriesByType, performance, ["navigation"])[0] || e;
      } catch {
        // keep the first one
      }
      emit(rowOf(null, latest));
    };
    listen(window, "load", () => later(go, 0), { once: true });
    later(go, 30000); // a document that never finishes loading still gets its row
  }

  function emit(build) {
    outbox.emit("network_waterfall", build);
  }

  function statusOf(e) {
    return typeof e.responseStatus === "number" ? e.responseStatus : 0;
  }

  /** The row's builder (run later, in idle time): the wrapper's half `r` and the timing `e`, either may be missing. */
  function rowOf(r, e) {
    return () => {
      const row = { source: "page", method: r ? r.method : null, url: r ? r.url : e.name };
      if (e) Object.assign(row, timingFields(e));
      else {
        row.initiatorType = r.initiator;
        row.startTime = round(r.start);
        row.duration = round((r.end ?? perfNow()) - r.start);
      }
      if (r && r.initiator) row.initiatorType = r.initiator;
      const status = r && r.status > 0 ? r.status : e ? statusOf(e) : 0;
      if (status > 0) row.responseStatus = status;
      if (r && r.failed) row.failed = true;
      if (r && r.error) row.error = r.error;
      row.ts = Math.round(timeOrigin + row.startTime);
      return row;
    };
  }

  function timingFields(e) {
    const f = {
      initiatorType: e.initiatorType || e.entryType,
      startTime: round(e.startTime),
      duration: round(e.duration),
      transferSize: e.transferSize,
      encodedBodySize: e.encodedBodySize,
      decodedBodySize: e.decodedBodySize,
      nextHopProtocol: e.nextHopProtocol || undefined,
    };
    const phases = phasesOf(e);
    if (phases) f.phases = phases;
    if (e.entryType === "navigation") {
      if (e.domContentLoadedEventStart > 0) f.domContentLoaded = round(e.domContentLoadedEventStart);
      if (e.loadEventStart > 0) f.load = round(e.loadEventStart);
    }
    return f;
  }

  /**
   * Where the time went (ms), as DevTools splits it; only when the page may
   * see it (same origin, or Timing-Allow-Origin: otherwise the marks are 0).
   * `connect` includes `tls`; `waiting` is from the request sent to its first byte.
   */
  function phasesOf(e) {
    if (!(e.requestStart > 0) || !(e.responseEnd > 0)) return undefined;
    const span = (from, to) => (from > 0 && to >= from ? round(to - from) : 0);
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

  function round(ms) {
    return Math.round(ms * 10) / 10;
  }

  G.requests = { start, end, elementFailed, timing };
})();
