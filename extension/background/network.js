// The network kinds between the pages, the deep view and delivery. The worker
// hands every page `network_waterfall` / `network_bodies` entry to `fromPage`
// and stores what it gives back; deep.js hands the browser's rows and console
// messages to `fromBrowser` / `fromBrowserLog`, which store them themselves.
//
// - A tab that is not deep: the page's rows and bodies are stored as they are
//   (`source: "page"`, no requestId: nothing of the browser's to join).
// - A deep tab: the page's rows join the browser's row of the same request
//   (request_join.js), bodies get its `requestId`; what is held comes out
//   through `accept` later.
// Browser rows get this browser session's prefix on their ids (the protocol's
// ids restart with the browser), Chrome's frame ids (deep_frames.js) and the
// user's URL redaction on every URL they carry.
import { RequestJoin } from "./request_join.js";
import { DeepFrames } from "./deep_frames.js";

const PREFIX_KEY = "requestPrefix";

export class Network {
  /**
   * @param {object} io
   * @param {(kind: string, entry: object, tabId: number|null) => any} io.accept  normalises, redacts, queues
   * @param {(tabId: number) => boolean} io.isDeep
   * @param {() => Iterable<object>} io.inFlight  the deep tabs' requests under way (deep.js)
   * @param {(url: string) => string} io.redactUrl  with the user's current lists
   * @param {{get: Function, set: Function}} io.storage  chrome.storage.session
   * @param {(fn: () => void, ms: number) => any} io.setTimer
   * @param {() => string} io.random  a random hex string
   */
  constructor(io, options = {}) {
    this.io = io;
    this.prefix = undefined;
    // The page redacted its URLs; the browser's are redacted the same way to compare them.
    const matchUrl = (url) => io.redactUrl(String(url)).split("#")[0];
    this.frames = new DeepFrames(matchUrl);
    this.join = new RequestJoin(
      {
        queue: (row, tabId, where) => this.queue(row, tabId, where),
        setTimer: io.setTimer,
        inFlight: () => io.inFlight(),
        matchUrl,
        frameOf: (tabId, token) => this.frames.idOf(tabId, token, false),
        learn: (tabId, token, id) => this.frames.learn(tabId, token, id),
      },
      options,
    );
    this.ready = this.loadPrefix();
  }

  /** This browser session's prefix for request ids (chrome.storage.session outlives the worker, not the browser). */
  async loadPrefix() {
    try {
      const stored = await this.io.storage.get(PREFIX_KEY);
      if (typeof stored[PREFIX_KEY] === "string") return (this.prefix = stored[PREFIX_KEY]);
    } catch {
      // no storage: a prefix for this worker's life
    }
    const prefix = `${this.io.random().slice(0, 8)}-`;
    this.prefix = prefix;
    await Promise.resolve(this.io.storage.set({ [PREFIX_KEY]: prefix })).catch(() => {});
    return prefix;
  }

  /** Every page message's frame: which URL Chrome's frame id shows (for deep rows' frame ids). */
  sawFrame(tabId, frame) {
    this.frames.saw(tabId, frame);
  }

  /**
   * A page's network_waterfall or network_bodies entry (its url absolute, its
   * frame fields set) from Chrome's frame `frame` ({id, url}): the entry to
   * store now, or undefined when the join holds it.
   */
  fromPage(kind, entry, tabId, frame) {
    if (!Number.isInteger(tabId)) return entry;
    const deep = this.io.isDeep(tabId);
    // A tab no longer deep whose last browser rows wait for their page rows.
    const joining = !deep && this.join.has(tabId);
    if (kind === "network_waterfall") {
      if (deep) {
        this.join.timing(entry, tabId, frame);
        return undefined;
      }
      // Joined to a browser row still waiting for it, else stored now.
      return joining && this.join.settle(entry, tabId, frame) ? undefined : entry;
    }
    if (kind === "network_bodies" && (deep || joining)) {
      // The id is the browser's, never the page's.
      const failed = entry.error || (entry.failed === true ? "failed" : undefined);
      const body = { method: String(entry.method || "GET").toUpperCase(), url: entry.url, status: entry.status, error: failed };
      const id = this.join.requestIdFor(body, tabId, frame);
      if (id === undefined) delete entry.requestId;
      else entry.requestId = `${this.prefix}${id}`;
    }
    return entry;
  }

  /** A finished request of a deep tab (deep.js's emitRow). */
  fromBrowser(row, tabId, where) {
    this.join.row(row, tabId, where);
  }

  /** A browser console message of a deep tab (deep.js's emitLog): stored like a page's, its frame named if a subframe's. */
  fromBrowserLog(entry, tabId, where) {
    const { frameId } = this.frames.resolve(tabId, where);
    if (where && !where.top && !where.serviceWorker) {
      if (frameId !== undefined && frameId !== -1) entry.frameId = frameId;
      if (where.frameUrl) entry.frameUrl = this.io.redactUrl(where.frameUrl);
    }
    return this.io.accept("logs", entry, tabId);
  }

  /**
   * A row leaves the join: a browser row (`where` given) gets its id's prefix, Chrome's frame ids
   * and the user's URL redaction. A shared worker's request read back from its Resource Timing
   * (`fromTiming`) is a browser row the protocol never named: it has no id to prefix.
   */
  queue(row, tabId, where) {
    if (where !== undefined) {
      // A copy: the join keeps the row, with the protocol's id, for bodies still to come.
      row = { ...row };
      if (row.requestId !== undefined) row.requestId = `${this.prefix}${row.requestId}`;
      if (row.redirects) row.redirects = row.redirects.map((r) => ({ ...r }));
      const { frameId, parentFrameId } = this.frames.resolve(tabId, where);
      row.frameId = frameId;
      row.parentFrameId = parentFrameId;
      this.scrub(row);
    }
    return this.io.accept("network_waterfall", row, tabId);
  }

  /** The user's URL redaction on every URL of a browser row, its redirect hops' too (accept redacts an entry's own fields). */
  scrub(row) {
    const url = (u) => (typeof u === "string" ? this.io.redactUrl(u) : u);
    row.url = url(row.url);
    row.finalUrl = url(row.finalUrl);
    row.frameUrl = url(row.frameUrl);
    if (row.redirects) for (const r of row.redirects) Object.assign(r, { url: url(r.url), location: url(r.location) });
    for (const key of Object.keys(row)) if (row[key] === undefined) delete row[key];
  }
}
