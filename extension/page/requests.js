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
// A request a wrapper saw start keeps an Error taken at the call (its stack
// is not read then); a failed row (the page saw it fail, or a status >= 400)
// says where the page's code made it (`location`, `callers`, as a console
// call's) and on which page (`pageUrl`, the page's URL at the call: the row is
// sent later, when a single-page app may have moved on), which the server maps
// back to the original source.
// Registry: reads core, outbox, callsite; adds requests.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.core || !G.outbox || !G.callsite || G.requests) return;
  const { apply, later, perfNow, listen, pageUrl } = G.core;
  const { outbox, callsite } = G;
  const HOLD_MS = 1500;
  // A request's call site is kept with its callers, as a console call's: a library that made the
  // request for the page (a fetch client, an SDK) is the call site, the page's own code a caller,
  // maybe far down (callsite.reaching): its next CALLERS frames, then the first frame of each
  // further script, up to SCRIPTS. V8 takes a stack's frames up to the limit, so a page's shallow
  // stack costs no more for it; zone.js and Angular's HttpClient put 60 frames over the page's own.
  const CALLERS = 4;
  const SCRIPTS = 4;
  const SITE_FRAMES = 100;
  const LONE_MS = 1000;
  // Requests followed at once; the oldest is sent as it is past this, `unfinished`. A storm of
  // 2,000 parallel fetches stays under it: each record is small once past MAX_SITES.
  const MAX_OPEN = 10000;
  // Requests in flight that keep their call site (an Error, its frames held by V8); one started
  // while more are in flight has none (a failed one then names no line of the page's code).
  const MAX_SITES = 1000;
  const RECENT = 200; // rows sent without their timing, so a late timing is not a second row
  const timeOrigin = performance.timeOrigin;
  /** The epoch ms of a `performance.now()` time: when a request started, as its entries say. */
  const epochOf = (t) => Math.round(timeOrigin + t);
  const getEntriesByType = Performance.prototype.getEntriesByType;

  // Requests followed, oldest first: {key, url, method, initiator, start, ended, end, status, failed, error, timing}.
  const open = new Set();
  // The same still without their timing, by key, oldest first: a timing entry finds its request at once.
  const untimed = new Map();
  const lone = new Map(); // key → status-0 timing entries waiting for their outcome, oldest first
  const sentAlone = []; // keys of rows sent before their timing came
  const sentTimed = []; // keys of rows sent from their timing alone (a 404 image's, say)

  const keyOf = (url) => {
    const s = String(url);
    const hash = s.indexOf("#");
    return hash < 0 ? s : s.slice(0, hash);
  };

  /**
   * An Error taken now, its stack read only if the request fails: V8 keeps the frames and writes
   * the text when asked. Only the frames a call site needs are taken, which cuts its cost.
   */
  function siteNow() {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = SITE_FRAMES;
    const site = new Error();
    Error.stackTraceLimit = limit;
    return site;
  }

  /**
   * A request a wrapper saw start (its URL absolute); give the record to `end`. A wrapper's
   * request (a method known) keeps its call site; an element's has none of the page's code.
   */
  function start(method, url, initiator, operation) {
    const r = { key: keyOf(url), url: String(url), method, initiator, start: perfNow() };
    if (operation) r.operation = operation; // a GraphQL request's (app_failures.js)
    // The call site, and the page it was made on (core.pageUrl's count, its URL read when the row is
    // built): a row waits for its timing and its end, and a single-page app (Turbo, htmx) may have
    // moved on by then.
    if (method !== null) {
      if (open.size < MAX_SITES) r.site = siteNow();
      r.page = pageUrl.now();
    }
    open.add(r);
    listOf(untimed, r.key).push(r);
    if (leaving) send(r);
    else if (open.size > MAX_OPEN) send(open.values().next().value);
    return r;
  }

  // A document being unloaded runs no more tasks: no response, timing or deadline of ours will
  // come. So in its pagehide every request still followed goes as it stands (one not ended says
  // so: `unfinished`), and one the page starts from then on (a keepalive fetch, in its own
  // pagehide) goes at once. Shown again from the back-forward cache, the page is followed as before.
  let leaving = false;
  if (typeof globalThis.addEventListener === "function") {
    listen(globalThis, "pagehide", () => {
      leaving = true;
      for (const r of [...open]) send(r);
    });
    listen(globalThis, "pageshow", () => (leaving = false));
  }

  // When the page last began to leave (its beforeunload: a reload, a link, a dev server's full
  // reload). The browser cancels the requests still in flight as the next page comes, and the page
  // hears the same "TypeError: Failed to fetch" as from a refused connection: a failure after it
  // says it was canceled so. (A leave called off, at a dialog or by a download, is rare; the window
  // is bounded for it, and a page shown again from the back-forward cache starts afresh.)
  const LEAVE_MS = 10000;
  let leftAt;
  if (typeof globalThis.addEventListener === "function") {
    listen(globalThis, "beforeunload", () => (leftAt = perfNow()));
    listen(globalThis, "pageshow", () => (leftAt = undefined));
  }

  /**
   * The error text of a request to `url` the page saw fail now: said to be canceled when the page was
   * leaving (the server's `kind::LEFT_PAGE_PREFIX` reads that beginning; `gasoline kinds` gives
   * it, and test/unit/page_requests.test.mjs holds this to it).
   */
  function failure(error, url) {
    let text = String(error);
    if (url !== undefined && NETWORK_FAILURE.test(text) && crossOrigin(url)) text += CROSS_ORIGIN_NOTE;
    return leaving || (leftAt !== undefined && perfNow() - leftAt < LEAVE_MS) ? `canceled as the page was left: ${text}` : text;
  }

  // A request to another origin that failed with no answer the page may read: the browser tells the
  // page nothing more of a CORS refusal than of a refused connection or a DNS failure (its console
  // says which, and deep mode stores that).
  const NETWORK_FAILURE = /^(?:TypeError: Failed to fetch|network error \(XHR status 0\))$/;
  const CROSS_ORIGIN_NOTE =
    " (a cross-origin request: the page cannot tell a CORS refusal from a refused connection or a DNS failure; the browser's console says which, and deep mode stores it)";
  function crossOrigin(url) {
    const origin = location.origin;
    return typeof url === "string" && /^https?:/i.test(url) && url !== origin && !url.startsWith(`${origin}/`);
  }

  function listOf(map, key) {
    let list = map.get(key);
    if (!list) map.set(key, (list = []));
    return list;
  }

  /** Takes `item` (the oldest under `key` when none is named) out of `map`'s list for `key`. */
  function take(map, key, item) {
    const list = map.get(key);
    if (!list) return undefined;
    const i = item === undefined ? 0 : list.indexOf(item);
    if (i < 0) return undefined;
    const [taken] = list.splice(i, 1);
    if (list.length === 0) map.delete(key);
    return taken;
  }

  /** How it ended: `{status}`, or `{failed: true, error}` when the page saw it fail. */
  function end(r, outcome) {
    if (!r || r.ended) return;
    r.ended = true;
    r.end = perfNow();
    if (outcome) Object.assign(r, outcome);
    if (!r.timing) {
      const e = take(lone, r.key);
      if (e) {
        r.timing = e;
        take(untimed, r.key, r);
      }
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
    const r = take(untimed, key);
    if (r) {
      r.timing = e;
      if (r.ended) send(r);
      else if (r.initiator === "worker") workerTimed(r, e);
      return;
    }
    const i = sentAlone.indexOf(key);
    if (i >= 0) {
      sentAlone.splice(i, 1); // its request's row went without it: one row per request
      return;
    }
    // An about:blank or srcdoc frame (or a data: one) has a navigation entry, but no request was made.
    if (e.entryType === "navigation") return /^https?:/i.test(e.name) ? documentRow(e) : undefined;
    if (statusOf(e) > 0) {
      sentTimed.push(key);
      if (sentTimed.length > RECENT) sentTimed.shift();
      return emit(rowOf(null, e));
    }
    listOf(lone, key).push(e);
    later(() => {
      if (take(lone, key, e)) emit(rowOf(null, e));
    }, LONE_MS);
  }

  /**
   * A worker's script was fetched (workers.js): no event says it started, so it ends with its
   * status; without one (cross-origin), once no `error` said within LONE_MS that it did not.
   */
  function workerTimed(r, e) {
    if (statusOf(e) > 0) end(r, { status: statusOf(e) });
    else later(() => end(r), LONE_MS);
  }

  function send(r) {
    if (r.sent) return;
    r.sent = true;
    open.delete(r);
    if (!r.timing) {
      take(untimed, r.key, r);
      sentAlone.push(r.key);
      if (sentAlone.length > RECENT) sentAlone.shift();
    }
    emit(rowOf(r, r.timing));
  }

  /** The document's navigation entry as the browser has it now (its type, status, times), or undefined. */
  function navigationEntry() {
    try {
      return apply(getEntriesByType, performance, ["navigation"])[0];
    } catch {
      return undefined;
    }
  }

  /** The document's own row, once its load has ended, with its DOMContentLoaded and load times. */
  function documentRow(e) {
    if (e.loadEventEnd > 0) return emit(rowOf(null, e));
    let done = false;
    const go = () => {
      if (done) return;
      done = true;
      emit(rowOf(null, navigationEntry() || e)); // its load times are there now
    };
    listen(window, "load", () => later(go, 0), { once: true });
    // A document left before its load ended (a service worker's claim-then-reload, a redirect in
    // script) gets its row as it goes, without its load times.
    listen(globalThis, "pagehide", go, { once: true });
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
      if (r && r.connectionId) row.connectionId = r.connectionId;
      if (r && r.operation) row.operation = r.operation;
      if (r && r.finalUrl) row.finalUrl = r.finalUrl; // where the browser's redirects ended
      if (r && r.errorPage) row.errorPage = true; // an HTML error page a fetch or an XHR got
      const status = r && r.status > 0 ? r.status : e ? statusOf(e) : 0;
      if (status > 0) row.responseStatus = status;
      if (r && r.failed) row.failed = true;
      if (r && r.error) row.error = r.error;
      if (r && r.site && (r.failed || status >= 400)) Object.assign(row, siteFields(r.site), { pageUrl: pageUrl.at(r.page) });
      else if (r && pageUrl.since(r.page)) row.pageUrl = pageUrl.since(r.page); // the page has moved on since it began
      if (r && !r.ended) row.unfinished = true; // the page left, or followed too many, before its end
      row.ts = epochOf(row.startTime);
      return row;
    };
  }

  /** `location` and `callers` of a failed request's call site: the page's frames, ours passed over. */
  function siteFields(site) {
    let stack;
    try {
      stack = site.stack;
    } catch {
      return {}; // a page's Error.prepareStackTrace that throws
    }
    const [where, ...callers] = callsite.reaching(stack, CALLERS, SCRIPTS);
    const fields = {};
    if (where) fields.location = where;
    if (callers.length) fields.callers = callers.join("\n");
    return fields;
  }

  function timingFields(e) {
    const f = {
      initiatorType: e.initiatorType || e.entryType,
      startTime: round(e.startTime),
      // Chromium gives a worker's script served by the page's service worker a start after its end
      // (-5 to -7 ms measured): no duration is better than one that cannot be.
      duration: e.duration >= 0 ? round(e.duration) : undefined,
      transferSize: e.transferSize,
      encodedBodySize: e.encodedBodySize,
      decodedBodySize: e.decodedBodySize,
      nextHopProtocol: e.nextHopProtocol || undefined,
    };
    const phases = phasesOf(e);
    if (phases) f.phases = phases;
    // The page's service worker took it in its fetch handler: what answered (its cache, its own
    // code, the network) the page cannot see; deep mode says.
    if (e.workerStart > 0) f.fromServiceWorker = "fetch-handler";
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

  /** A time in ms to a tenth, as Resource Timing's own are shown (not 926.0999999940396). */
  function round(ms) {
    return Math.round(ms * 10) / 10;
  }

  G.requests = { start, end, elementFailed, timing, failure, leaving: () => leaving, epochOf, navigationEntry, round };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoicmVxdWVzdHMuanMiLCJzb3VyY2VzIjpbImdhc29saW5lLWV4dGVuc2lvbjovLy9wYWdlL3JlcXVlc3RzLmpzIl0sIm5hbWVzIjpbXSwibWFwcGluZ3MiOiJBQUFBIiwiaWdub3JlTGlzdCI6WzBdLCJ4X2dvb2dsZV9pZ25vcmVMaXN0IjpbMF19
