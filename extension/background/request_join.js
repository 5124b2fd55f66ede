// Joins what the page knows about a request to the browser's row for it.
//
// A finished request's row (from webrequest.js) is held `holdMs` before it is
// queued, so the page's resource timing of the same request (which arrives
// through the page's own batching) is merged into it rather than becoming a
// second row. Resource timing that matches no row is kept `holdMs` for a row
// still to come, then queued alone (a request the browser did not show, like
// one served from the page's memory cache), marked `source: "page"`.
// Body entries (network_bodies) get the `requestId` of their row, so an agent
// goes from a failed request to its body by id.
//
// Matching is by tab, absolute URL (and method for bodies), oldest first.
// Pure: the clock and the timers are injected.
(function (root) {
  /** Resource-timing fields merged into a row; the browser's own url, status and duration win. */
  const TIMING_SKIP = new Set(["url", "responseStatus", "duration", "ts", "tabId"]);
  /** Rows remembered after they are queued, for bodies that arrive late. */
  const RECENT = 500;

  class RequestJoin {
    /**
     * @param {object} io
     * @param {(row: object, tabId: number|null) => void} io.queue  hands a row to delivery
     * @param {(fn: () => void, ms: number) => any} io.setTimer
     */
    constructor(io, options = {}) {
      this.io = io;
      this.holdMs = options.holdMs ?? 1000;
      this.held = []; // { row, tabId, timed }
      this.timings = []; // { entry, tabId }
      this.recent = []; // { row, tabId, timed, claimed }
    }

    /** A finished request from the browser. */
    row(row, tabId) {
      const item = { row, tabId, timed: false, claimed: false };
      const i = this.timings.findIndex((t) => t.tabId === tabId && t.entry.url === row.url);
      if (i >= 0) merge(item, this.timings.splice(i, 1)[0].entry);
      this.held.push(item);
      this.io.setTimer(() => this.release(item), this.holdMs);
    }

    release(item) {
      const i = this.held.indexOf(item);
      if (i < 0) return;
      this.held.splice(i, 1);
      this.recent.push(item);
      if (this.recent.length > RECENT) this.recent.shift();
      this.io.queue(item.row, item.tabId);
    }

    /** A resource-timing entry from a page (its url made absolute). */
    timing(entry, tabId) {
      // Resource timing never describes a CORS preflight.
      const same = (h) => h.tabId === tabId && h.row.url === entry.url && h.row.method !== "OPTIONS";
      const held = this.held.find((h) => same(h) && !h.timed);
      if (held) return merge(held, entry);
      // Its row is already queued: one row per request, so the timing is not sent as a second.
      if (this.held.some(same) || this.recent.some(same)) return;
      const waiting = { entry, tabId };
      this.timings.push(waiting);
      this.io.setTimer(() => {
        const i = this.timings.indexOf(waiting);
        if (i < 0) return;
        this.timings.splice(i, 1);
        this.io.queue(Object.assign({ source: "page" }, entry), tabId);
      }, this.holdMs);
    }

    /** The request id of the row a body entry (method, absolute url) belongs to, or undefined. */
    requestIdFor(method, url, tabId) {
      const match = (h) => !h.claimed && h.tabId === tabId && h.row.method === method && h.row.url === url;
      const item = this.recent.find(match) || this.held.find(match);
      if (!item) return undefined;
      item.claimed = true;
      return item.row.requestId;
    }
  }

  function merge(item, entry) {
    item.timed = true;
    for (const [key, value] of Object.entries(entry)) {
      if (!TIMING_SKIP.has(key) && item.row[key] === undefined) item.row[key] = value;
    }
  }

  const api = { RequestJoin };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.GasolineRequestJoin = api;
})(globalThis);
