// Joins what a page knows about a request to the browser's row for it, in a
// deep tab (deep.js): the browser's rows come from the DevTools protocol, the
// page's rows (page/requests.js: its wrappers and resource timing) and bodies
// from the page. A tab that is not deep stores its page rows as they are.
//
// A finished request's row is held until the page's row of the same request
// (which arrives through the page's own batching, late when the page is busy)
// is merged into it, at most `holdMs`, rather than becoming a second row. A
// page row that matches no browser row is kept `timingHoldMs` for one still
// to come, then queued alone as it is (`source: "page"`: a request the browser
// did not show, or one that ended before the tab was attached). That wait is
// the longer one: when the worker is busy, the browser's row can come seconds
// after the page's, and a page row sent too early would make the request two
// rows; a browser row is held less, since a late page row that finds its
// browser row already queued is dropped, not sent as a second row.
// Body entries (network_bodies) get the `requestId` of their row, so an agent
// goes from a failed request to its body by id: a finished row, or a request
// still in flight (a stream whose body entry comes before its end).
//
// Matching is by tab, frame, method and URL (without its fragment, both sides
// through `matchUrl`, which redacts as the page did). Frames: the protocol
// names them by tokens, the page's entries by Chrome's integer frameId and the
// sender's URL; a row's frame (`where`, from deep_requests.js) is the page's
// frame 0 when it is the top one, else the frame Chrome's id was learned for
// (`frameOf`), else the one showing the same document URL; each match teaches
// `learn` the pair. A frame's document row also takes its parent's timing of it.
// Of two identical requests, a body takes the one whose outcome agrees with
// its own (same status, or both failed), else one still in flight whose
// status is not known yet, else the oldest; each request once.
// Pure: the clock, the timers and the requests in flight are injected.
/** Page-row fields merged into a browser row; the browser's own say on the request wins. */
const TIMING_SKIP = new Set([
  "url",
  "method",
  "responseStatus",
  "failed",
  "error",
  "duration",
  "ts",
  "tabId",
  "frameId",
  "frameUrl",
  "parentFrameId",
  "requestId",
  "source",
  "redacted",
  // The page left before it saw the end; the browser saw it (its row is made at the end).
  "unfinished",
]);
/** Rows remembered after they are queued, for bodies and page rows that arrive late. */
const RECENT = 500;
/** Requests in flight whose body came first, remembered until their row comes. */
const MAX_CLAIMED = 1000;

export class RequestJoin {
  /**
   * @param {object} io
   * @param {(row: object, tabId: number|null, where?: object) => void} io.queue  hands a row to delivery
   *   (`where` undefined for a page row queued alone)
   * @param {(fn: () => void, ms: number) => any} io.setTimer
   * @param {() => Iterable<object>} [io.inFlight]  requests started and not finished, oldest first:
   *   {requestId, tabId, method, url, status, where}
   * @param {(url: string) => string} [io.matchUrl]  a URL as both sides can compare it
   * @param {(tabId: number, token: string) => number|undefined} [io.frameOf]  Chrome's id of a protocol frame, when learned
   * @param {(tabId: number, token: string, id: number) => void} [io.learn]
   */
  constructor(io, options = {}) {
    this.io = io;
    this.holdMs = options.holdMs ?? 3000;
    this.timingHoldMs = options.timingHoldMs ?? 8000;
    this.matchUrl = io.matchUrl || ((url) => String(url).split("#")[0]);
    this.held = []; // { row, tabId, where, claimed }: rows waiting for their page row
    this.timings = []; // { entry, tabId, frame, url (its matchUrl) }
    this.recent = []; // { row, tabId, where, claimed }
    this.claimed = new Set(); // ids of requests in flight that a body already took
    this.keys = new WeakMap(); // row → its matchUrl, computed once
  }

  /**
   * Whether the join holds a browser row of this tab waiting for its page row: a tab no longer deep
   * still finishes those joins. (A page row waiting for its browser row is not one: once the tab is
   * no longer deep none will come, and every later page row of the tab would wait behind it.)
   */
  has(tabId) {
    return this.held.some((h) => h.tabId === tabId);
  }

  /** A finished request from the browser; `where` says its frame (deep_requests.js). */
  row(row, tabId, where) {
    const item = { row, tabId, where, claimed: this.claimed.delete(row.requestId) };
    const i = this.timings.findIndex((t) => t.tabId === tabId && this.fits(item, t.entry, t.frame, t.url));
    this.held.push(item);
    this.io.setTimer(() => this.release(item), this.holdMs);
    if (i >= 0 && this.merge(item, this.timings.splice(i, 1)[0])) this.release(item); // nothing more to wait for
  }

  release(item) {
    const i = this.held.indexOf(item);
    if (i < 0) return;
    this.held.splice(i, 1);
    this.recent.push(item);
    if (this.recent.length > RECENT) this.recent.shift();
    this.io.queue(item.row, item.tabId, item.where);
  }

  /** A page's row of a request (its url absolute) from the frame `frame` ({id: Chrome's frameId, url}). */
  timing(entry, tabId, frame) {
    const url = this.matchUrl(entry.url);
    if (this.joined(entry, tabId, frame, url)) return;
    const waiting = { entry, tabId, frame, url };
    this.timings.push(waiting);
    this.io.setTimer(() => {
      const i = this.timings.indexOf(waiting);
      if (i < 0) return;
      this.timings.splice(i, 1);
      this.io.queue(Object.assign({ source: "page" }, entry), tabId);
    }, this.timingHoldMs);
  }

  /**
   * A page row of a tab no longer deep (`has` still true: browser rows of it wait for their page
   * rows): true when `joined`; false when it stands alone, and now, since no browser row of the
   * tab will come to join.
   */
  settle(entry, tabId, frame) {
    return this.joined(entry, tabId, frame, this.matchUrl(entry.url));
  }

  /**
   * Whether a page row (its matchUrl `url`) is done with: merged into the held browser row it
   * describes, or the page's copy of a row already queued (one row per request). Only a row of the
   * same time: the same URL loaded again later (the next page load's scripts) is another request.
   */
  joined(entry, tabId, frame, url) {
    const same = (h) => h.tabId === tabId && this.fits(h, entry, frame, url);
    const held = this.held.find(same);
    if (held) {
      if (this.merge(held, { entry, frame })) this.release(held);
      return true;
    }
    return this.recent.some((r) => same(r) && during(r.row, entry.ts));
  }

  /** Whether a page row (of `frame`, its matchUrl `url`) describes the browser's row `item`. */
  fits(item, entry, frame, url) {
    const row = item.row;
    // Resource timing never describes a CORS preflight; a wrapper names its method.
    const method = entry.method ? String(entry.method).toUpperCase() : undefined;
    if (method ? row.method !== method : row.method === "OPTIONS") return false;
    return this.key(row) === url && this.inFrame(item, frame) !== undefined;
  }

  /**
   * The protocol frame of `item` that a page entry of `frame` belongs to (its
   * own, or its parent for a frame's document), or undefined.
   */
  inFrame(item, frame) {
    const where = item.where;
    if (!where || !frame) return where ? where.frame ?? null : null;
    if (this.sameFrame(item.tabId, where.frame, where.top, where.frameUrl, frame)) return where.frame ?? null;
    if (item.row.type === "sub_frame" && where.parentFrame !== undefined && this.sameFrame(item.tabId, where.parentFrame, where.parentTop, where.parentFrameUrl, frame)) {
      return where.parentFrame;
    }
    return undefined;
  }

  sameFrame(tabId, token, top, url, frame) {
    if (top) return frame.id === 0;
    if (frame.id === 0 || token === undefined) return false;
    const known = this.io.frameOf ? this.io.frameOf(tabId, token) : undefined;
    if (known !== undefined) return known === frame.id;
    return url !== undefined && this.matchUrl(url) === this.matchUrl(frame.url);
  }

  /** Teaches the frame mapping what a match showed. */
  taught(item, frame) {
    const token = this.inFrame(item, frame);
    if (typeof token === "string" && frame && this.io.learn) this.io.learn(item.tabId, token, frame.id);
  }

  /**
   * The request id of the row a body entry belongs to, or undefined; each row is given once.
   * @param {{method: string, url: string, status?: number, error?: string}} body  its url absolute
   * @param {{id: number, url: string}} [frame]  the frame that sent it
   */
  requestIdFor(body, tabId, frame) {
    const url = this.matchUrl(body.url);
    const fits = (item) => item.tabId === tabId && item.row.method === body.method && this.key(item.row) === url && this.inFrameOnly(item, frame);
    const candidates = [];
    for (const h of this.recent.concat(this.held)) {
      if (h.claimed || !fits(h)) continue;
      candidates.push({ item: h, id: h.row.requestId, outcome: outcome(h.row.responseStatus, h.row.error), take: () => (h.claimed = true) });
    }
    for (const r of this.io.inFlight ? this.io.inFlight() : []) {
      const item = { row: r, tabId: r.tabId, where: r.where };
      if (this.claimed.has(r.requestId) || !fits(item)) continue;
      // Its status once its headers are in; how it ends is not known yet.
      candidates.push({ item, id: r.requestId, outcome: r.status || undefined, take: () => this.claim(r.requestId) });
    }
    const mine = outcome(body.status, body.error);
    const pick =
      candidates.find((c) => c.outcome === mine) || candidates.find((c) => c.outcome === undefined) || candidates[0];
    if (!pick) return undefined;
    pick.take();
    this.taught(pick.item, frame);
    return pick.id;
  }

  /** A body is of the frame that made the request (never its parent's). */
  inFrameOnly(item, frame) {
    const where = item.where;
    if (!where || !frame) return true;
    return this.sameFrame(item.tabId, where.frame, where.top, where.frameUrl, frame);
  }

  /**
   * Merges a page row into a held browser row; true when the row has nothing
   * more to wait for. A frame's document row waits for the frame's own page
   * row after its parent's (which says only that the iframe loaded): that one
   * also tells Chrome's id of the frame, before the row leaves.
   */
  merge(item, { entry, frame }) {
    const token = this.inFrame(item, frame);
    this.taught(item, frame);
    for (const [key, value] of Object.entries(entry)) {
      if (!TIMING_SKIP.has(key) && item.row[key] === undefined) item.row[key] = value;
    }
    return !(item.row.type === "sub_frame" && item.where && token === item.where.parentFrame && token !== item.where.frame);
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

/** How far apart the page's and the browser's clocks may put the same request's start (ms). */
const CLOCKS_APART_MS = 2000;

/** Whether a page row that started at `ts` (ms since the epoch) may be the browser's `row`. */
function during(row, ts) {
  if (!Number.isFinite(ts)) return true;
  const from = Number.isFinite(row.startedAt) ? row.startedAt : -Infinity;
  const to = Number.isFinite(row.endedAt) ? row.endedAt : Number.isFinite(row.ts) ? row.ts : Infinity;
  return ts >= from - CLOCKS_APART_MS && ts <= to + CLOCKS_APART_MS;
}

/** "failed" (no status, or 0 as an XHR says it), or the status. */
function outcome(status, error) {
  return error || !status ? "failed" : status;
}
