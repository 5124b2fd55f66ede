// Joins what a page knows about a request to the browser's row for it.
//
// A finished request's row (from webrequest.js) is held until the page's
// resource timing of the same request (which arrives through the page's own
// batching, late when the page is busy) is merged into it, at most `holdMs`,
// rather than becoming a second row. Resource timing that matches no row is
// kept `timingHoldMs` for a row still to come, then queued alone (a request
// the browser did not show, like one served from the page's memory cache or
// its service worker), marked `source: "page"`. That wait is the longer one:
// when the worker is busy, the browser's row of a request can come seconds
// after the page's timing of it, and a lone timing sent too early would make
// the request two rows; a row is held less, since a late timing that finds
// its row already queued is dropped, not sent as a second row.
// Body entries (network_bodies) get the `requestId` of their row, so an agent
// goes from a failed request to its body by id: a finished row, or a request
// still in flight (a stream whose body entry comes before its end).
//
// Matching is by tab, frame, method (for bodies) and URL (without its
// fragment, both sides through `matchUrl`, which redacts as the page did).
// Of two identical requests, a body takes the one whose outcome agrees with
// its own (same status, or both failed), else one still in flight whose
// status is not known yet, else the oldest; each request once.
// Pure: the clock, the timers and the requests in flight are injected.
(function (root) {
  /** Resource-timing fields merged into a row; the browser's own url, status and duration win. */
  const TIMING_SKIP = new Set(["url", "responseStatus", "duration", "ts", "tabId", "frameId", "frameUrl", "redacted"]);
  /** Rows remembered after they are queued, for bodies that arrive late. */
  const RECENT = 500;
  /** Requests in flight whose body came first, remembered until their row comes. */
  const MAX_CLAIMED = 1000;

  class RequestJoin {
    /**
     * @param {object} io
     * @param {(row: object, tabId: number|null) => void} io.queue  hands a row to delivery
     * @param {(fn: () => void, ms: number) => any} io.setTimer
     * @param {() => Iterable<object>} [io.inFlight]  requests started and not finished, oldest
     *   first, shaped like rows ({requestId, tabId, frameId, method, url, status})
     * @param {(url: string) => string} [io.matchUrl]  a URL as both sides can compare it
     */
    constructor(io, options = {}) {
      this.io = io;
      this.holdMs = options.holdMs ?? 3000;
      this.timingHoldMs = options.timingHoldMs ?? 8000;
      this.matchUrl = io.matchUrl || ((url) => String(url).split("#")[0]);
      this.held = []; // { row, tabId, claimed }: rows waiting for their timing
      this.timings = []; // { entry, tabId, frameId, url (its matchUrl) }
      this.recent = []; // { row, tabId, claimed }
      this.claimed = new Set(); // ids of requests in flight that a body already took
      this.keys = new WeakMap(); // row → its matchUrl, computed once
    }

    /** A finished request from the browser. */
    row(row, tabId) {
      const item = { row, tabId, claimed: this.claimed.delete(row.requestId) };
      const i = this.timings.findIndex((t) => t.tabId === tabId && inFrame(row, t.frameId) && this.key(row) === t.url);
      this.held.push(item);
      if (i >= 0) {
        merge(item, this.timings.splice(i, 1)[0].entry);
        this.release(item); // nothing more to wait for
      } else this.io.setTimer(() => this.release(item), this.holdMs);
    }

    release(item) {
      const i = this.held.indexOf(item);
      if (i < 0) return;
      this.held.splice(i, 1);
      this.recent.push(item);
      if (this.recent.length > RECENT) this.recent.shift();
      this.io.queue(item.row, item.tabId);
    }

    /** A resource-timing entry from a page's frame (`frameId` as Chrome numbers it, its url made absolute). */
    timing(entry, tabId, frameId) {
      const url = this.matchUrl(entry.url);
      // Resource timing never describes a CORS preflight.
      const same = (h) => h.tabId === tabId && h.row.method !== "OPTIONS" && inFrame(h.row, frameId) && this.key(h.row) === url;
      const held = this.held.find(same);
      if (held) {
        merge(held, entry);
        return this.release(held);
      }
      // Its row is already queued: one row per request, so the timing is not sent as a second.
      if (this.recent.some(same)) return;
      const waiting = { entry, tabId, frameId, url };
      this.timings.push(waiting);
      this.io.setTimer(() => {
        const i = this.timings.indexOf(waiting);
        if (i < 0) return;
        this.timings.splice(i, 1);
        this.io.queue(Object.assign({ source: "page" }, entry), tabId);
      }, this.timingHoldMs);
    }

    /**
     * The request id of the row a body entry belongs to, or undefined; each row is given once.
     * @param {{method: string, url: string, status?: number, error?: string}} body  its url absolute
     */
    requestIdFor(body, tabId, frameId) {
      const url = this.matchUrl(body.url);
      const fits = (row, t) =>
        t === tabId && row.method === body.method && (frameId === undefined || row.frameId === frameId) && this.key(row) === url;
      const candidates = [];
      for (const h of this.recent.concat(this.held)) {
        if (h.claimed || !fits(h.row, h.tabId)) continue;
        candidates.push({ id: h.row.requestId, outcome: outcome(h.row.responseStatus, h.row.error), take: () => (h.claimed = true) });
      }
      for (const r of this.io.inFlight ? this.io.inFlight() : []) {
        if (this.claimed.has(r.requestId) || !fits(r, r.tabId)) continue;
        // Its status once its headers are in; how it ends is not known yet.
        candidates.push({ id: r.requestId, outcome: r.status || undefined, take: () => this.claim(r.requestId) });
      }
      const mine = outcome(body.status, body.error);
      const pick =
        candidates.find((c) => c.outcome === mine) || candidates.find((c) => c.outcome === undefined) || candidates[0];
      if (!pick) return undefined;
      pick.take();
      return pick.id;
    }

    claim(requestId) {
      this.claimed.add(requestId);
      if (this.claimed.size > MAX_CLAIMED) this.claimed.delete(this.claimed.values().next().value);
    }

    key(row) {
      let key = this.keys.get(row);
      if (key === undefined) this.keys.set(row, (key = this.matchUrl(row.url)));
      return key;
    }
  }

  /**
   * Whether a row is of the frame a page entry came from: its own, or the
   * frame's parent's for a frame's document (the parent's resource timing
   * describes the iframe's load).
   */
  function inFrame(row, frameId) {
    return frameId === undefined || row.frameId === frameId || (row.type === "sub_frame" && row.parentFrameId === frameId);
  }

  /** "failed" (no status, or 0 as an XHR says it), or the status. */
  function outcome(status, error) {
    return error || !status ? "failed" : status;
  }

  function merge(item, entry) {
    for (const [key, value] of Object.entries(entry)) {
      if (!TIMING_SKIP.has(key) && item.row[key] === undefined) item.row[key] = value;
    }
  }

  const api = { RequestJoin };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.GasolineRequestJoin = api;
})(globalThis);
