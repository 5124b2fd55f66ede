// A deep tab's requests as the browser saw them: the DevTools protocol's
// Network events (through chrome.debugger, see deep.js) → one network_waterfall
// row per request, `source: "browser"`, with the fields the webRequest rows had:
// method, absolute url, type (webRequest's names), frame, status and status
// line, fromCache, server IP, start/response/end times, the redirect chain,
// Chrome's reason for a failure with CORS refusals explained; and the
// browser's own console messages (Log domain, browser_log.js) as logs entries.
//
// One tracker per deep tab, fed every event of the tab's session and of the
// sessions auto-attached under it (workers, out-of-process iframes, the page's
// service worker). What the protocol gives, measured on Chromium 156:
//   - Request ids are unique across a tab's sessions and one request can span
//     two: a dedicated worker's script is requested in the page's session (its
//     frameId the frame that started it, documentURL the worker's URL) and
//     answered in the worker's session. So requests are keyed by id alone.
//   - A redirect is another requestWillBeSent under the same id, carrying the
//     hop's response in `redirectResponse`.
//   - A CORS preflight is a request of its own: requestWillBeSent with method
//     OPTIONS, type "Other", initiator {type: "preflight", requestId: the
//     request it precedes}, no frameId, documentURL its own URL (so its frame
//     is the one of the request it precedes, which is announced after it);
//     responseReceived says "Preflight".
//   - A CORS refusal is loadingFailed {errorText: "net::ERR_FAILED",
//     corsErrorStatus: {corsError, failedParameter}} with no responseReceived;
//     a refused preflight's request the same with "Preflight…" errors.
//   - DNS failure / refused connection / abort: loadingFailed errorText
//     net::ERR_NAME_NOT_RESOLVED / net::ERR_CONNECTION_REFUSED /
//     net::ERR_ABORTED (canceled: true). A CSP refusal: blockedReason "csp"
//     and an empty errorText.
//   - A request the page's service worker answers is seen with
//     response.fromServiceWorker (webRequest never saw those), and what
//     answered in serviceWorkerResponseSource: "cache-storage", "http-cache",
//     "fallback-code" (the worker's own code made the response) or "network".
//   - Times: requestWillBeSent has wallTime (s since the epoch) and timestamp
//     (s, a monotonic clock shared by every session); later events only the
//     monotonic one, so wall = timestamp + (wallTime − timestamp) of a start.
//   - A worker's own script may finish without its response being reported to
//     the worker's session (the service worker's: 1 run in 3, only
//     requestWillBeSent and loadingFinished): its row then has no status. Its
//     end may not be reported either (the service worker's: 1 run in 12, only
//     requestWillBeSent): its request id is the worker's target id, and a
//     worker runs only once its script is loaded, so the script still open
//     when a request the worker made has ended (or when the worker goes) is
//     ended then, at the start of the worker's first request, status unknown.
//   - An out-of-process iframe's document is requested in its parent's session
//     under the iframe's frameId (= its target id); its target attaches later
//     with an empty url.
//
// Scope: the debugger sees every origin, so every row and message is dropped
// unless the document it belongs to (the frame's, a worker's own URL) is in the
// capture scope; a frame of another origin follows its own origin's scope, an
// about:srcdoc/about:blank frame or a data: worker its parent's. The top frame
// going to a document outside the scope is reported (`leftScope`) at its request
// (or commit, for a page restored from the back/forward cache).
// Pure: fed event objects; the unit tests drive it with recorded sequences.
import { browserLog } from "./browser_log.js";
import { limits } from "./lib.js";
import { consoleEntry, exceptionEntry } from "./worker_console.js";

/** Rows longer than this many redirects keep the first ones. */
const MAX_REDIRECTS = 20;
/** Requests followed at once; the oldest is given up past this (a leak guard). */
const MAX_OPEN = 5000;
/** Frames remembered per tab. */
const MAX_FRAMES = 2000;
/** Finished requests remembered for the Log entries that name them (they come just after). */
const RECENT = 300;

/**
 * The protocol's resource types as the rows' `type`s: the words the page's own rows use for the
 * same request (`fetch`, `xmlhttprequest`, `eventsource`), the rest as webRequest named them.
 */
const TYPES = {
  Stylesheet: "stylesheet",
  Image: "image",
  Media: "media",
  Font: "font",
  Script: "script",
  XHR: "xmlhttprequest",
  Fetch: "fetch",
  EventSource: "eventsource",
  WebSocket: "websocket",
  Ping: "ping",
  CSPViolationReport: "csp_report",
};
/** Resource Timing's initiator types as the rows' `type`s. */
const TIMING_TYPES = { fetch: "fetch", xmlhttprequest: "xmlhttprequest", script: "script", beacon: "ping", other: "other" };
const PROTOCOLS = { "http/0.9": "HTTP/0.9", "http/1.0": "HTTP/1.0", "http/1.1": "HTTP/1.1", h2: "HTTP/2", h3: "HTTP/3" };
const NETWORK_URL = /^(https?|wss?):/i;
/** The protocol's target types of workers (deep.js enables their Runtime too). */
export const WORKERS = new Set(["worker", "shared_worker", "service_worker"]);

export class DeepRequests {
  /**
   * @param {object} io
   * @param {number} io.tabId
   * @param {string} [io.mainFrame]  the protocol's id of the tab's top frame (the tab target's id)
   * @param {(url: string|undefined) => boolean} io.inScope
   * @param {(row: object, tabId: number|null, where: object) => void} io.emitRow
   * @param {(entry: object, tabId: number|null, where: object) => void} io.emitLog
   * @param {(url: string) => void} [io.leftScope]  the top frame is going out of the scope
   * @param {() => number} [io.now]
   * @param {number} [io.begun]  when the deep view began (ms since the epoch): a message logged
   *   before it, which Chrome hands over when Log or Runtime is enabled, is not taken (it was logged
   *   while the person had not asked for this view, perhaps while capture was paused)
   */
  constructor(io) {
    this.io = io;
    this.now = io.now || Date.now;
    this.begun = Number.isFinite(io.begun) ? io.begun : -Infinity;
    this.open = new Map(); // request id → record
    this.recent = new Map(); // request id → finished record, for Log entries
    this.frames = new Map(); // frame id → { parent, url }
    this.sessions = new Map(); // child session id → { type, url, targetId, frame }
    this.offset = undefined; // wall ms − monotonic ms
  }

  /** One event: `sessionId` undefined or "" for the tab's own session. */
  event(sessionId, method, params) {
    const handle = HANDLERS[method];
    if (handle) handle.call(this, sessionId || "", params || {});
  }

  /** What is known before any event: a frame and its document (the tab's page when attached). */
  seedFrame(id, parent, url) {
    if (typeof id === "string" && id) this.setFrame(id, { parent, url });
  }

  /**
   * Whether a child session's document is in the scope: true, false, or
   * undefined while its URL is not known yet (an iframe attaches before it commits).
   */
  sessionInScope(sessionId) {
    const s = this.sessions.get(sessionId);
    if (!s) return undefined;
    if (s.type === "iframe") {
      // Its own document decides (another site's, or it would not be a target of its own):
      // committed, or still being requested in its parent's session.
      let url = this.frameUrl(s.frame) || s.url;
      for (const r of this.open.values()) if (r.type === "sub_frame" && r.frame === s.frame) url = r.current;
      return url ? this.inScope(this.scopeUrl(url)) : undefined;
    }
    const scope = this.scopeUrl(s.url, s.frame);
    return scope === undefined ? undefined : this.io.inScope(scope);
  }

  /** Requests started and not finished, oldest first, shaped for request_join.js. */
  *inFlight() {
    for (const r of this.open.values()) {
      if (r.preflight || r.method === undefined) continue;
      yield { requestId: r.id, tabId: r.serviceWorker ? null : this.io.tabId, method: r.method, url: r.url, status: r.status, frameUrl: this.rowFrameUrl(r) };
    }
  }

  // ---- frames and sessions ------------------------------------------------------
  setFrame(id, info) {
    const old = this.frames.get(id);
    this.frames.delete(id); // the newest last, so the oldest is the one given up
    this.frames.set(id, { parent: info.parent ?? (old && old.parent), url: info.url || (old && old.url) });
    if (this.frames.size > MAX_FRAMES) this.frames.delete(this.frames.keys().next().value);
  }

  frameUrl(id) {
    const f = id && this.frames.get(id);
    return f ? f.url : undefined;
  }

  /** The frame a session's events without a frame of their own belong to. */
  sessionFrame(sessionId) {
    if (!sessionId) return this.io.mainFrame;
    const s = this.sessions.get(sessionId);
    return s ? s.frame : undefined;
  }

  /**
   * The URL whose origin decides whether a document is in the scope: its own
   * when it is a network URL (a blob: URL's inner one), else its frame's, else
   * the nearest ancestor frame's (about:srcdoc, about:blank, a data: worker).
   */
  scopeUrl(url, frame) {
    const chain = [url];
    for (let f = frame, i = 0; f && i < 32; f = this.frames.get(f) && this.frames.get(f).parent, i++) {
      chain.push(this.frameUrl(f));
    }
    for (const u of chain) {
      if (typeof u !== "string") continue;
      if (NETWORK_URL.test(u)) return u;
      if (/^blob:/i.test(u)) return u.slice(5);
    }
    return undefined;
  }

  inScope(url) {
    return url !== undefined && this.io.inScope(url);
  }

  isTop(frame) {
    return frame !== undefined && frame === this.io.mainFrame;
  }

  wall(timestamp) {
    return Number.isFinite(timestamp) && this.offset !== undefined ? timestamp * 1000 + this.offset : this.now();
  }

  // ---- requests ------------------------------------------------------------------
  request(s, p) {
    const req = p.request || {};
    const url = req.url;
    if (Number.isFinite(p.wallTime) && Number.isFinite(p.timestamp)) this.offset = p.wallTime * 1000 - p.timestamp * 1000;
    const known = this.open.get(p.requestId);
    if (known) {
      if (p.redirectResponse) this.redirect(known, p.redirectResponse, url);
      return;
    }
    // data:, blob:, chrome-extension: … are not the network (webRequest never showed them).
    if (typeof url !== "string" || !NETWORK_URL.test(url)) return;
    const session = s ? this.sessions.get(s) : undefined;
    const worker = session && WORKERS.has(session.type) ? session : undefined;
    let frame = p.frameId || undefined;
    let docUrl = p.documentURL;
    let type = TYPES[p.type] || "other";
    const initiator = p.initiator || {};
    const preflight = initiator.type === "preflight";
    if (preflight) {
      // The frame and document are those of the request it precedes, which may be announced
      // after it (measured: the preflight's requestWillBeSent came first); known at its end.
      docUrl = undefined;
      type = "other";
    }
    if (!frame) frame = this.sessionFrame(s);
    if (p.type === "Document") {
      docUrl = url;
      type = this.isTop(frame) ? "main_frame" : "sub_frame";
      if (type === "main_frame" && !this.inScope(url)) return this.left(url);
    } else if (frame && p.frameId && docUrl && !this.frameUrl(frame)) {
      this.setFrame(frame, { url: docUrl });
    }
    if (worker && !docUrl) docUrl = worker.url;
    if (worker && worker.targetId !== p.requestId) {
      // The worker runs: its own script was loaded by now.
      const script = this.open.get(worker.targetId);
      if (script && script.loadedBy === undefined) script.loadedBy = p.timestamp;
    }
    if (this.open.size >= MAX_OPEN) this.open.delete(this.open.keys().next().value);
    this.open.set(p.requestId, {
      id: p.requestId,
      session: s,
      url,
      current: url,
      method: req.method,
      type,
      frame,
      docUrl,
      preflight,
      preflightOf: preflight ? initiator.requestId : undefined,
      serviceWorker: worker !== undefined && worker.type === "service_worker",
      // A worker's own request (not its script, which its page asked for): the worker's URL, as a
      // dedicated or shared worker's row would otherwise read as a request of the frame that
      // started it, and a service worker's (its fetch to the network behind a page's cached
      // answer) as a request of no one's.
      fromWorker: worker !== undefined && worker.targetId !== p.requestId ? worker.url : undefined,
      startedAt: Number.isFinite(p.wallTime) ? p.wallTime * 1000 : this.wall(p.timestamp),
      redirects: [],
    });
  }

  /** A preflight takes the frame, document and type of the request it precedes, once known. */
  precede(r, mainId) {
    const main = this.open.get(mainId) || this.recent.get(mainId);
    if (!main) return false;
    r.frame = main.frame;
    r.docUrl = main.docUrl;
    r.type = main.type;
    return true;
  }

  /** Its request never announced: the preflight is of its session's frame (never its own URL's origin). */
  precedeUnknown(r) {
    r.docUrl = this.frameUrl(r.frame);
  }

  redirect(r, response, next) {
    if (r.redirects.length < MAX_REDIRECTS) {
      r.redirects.push({
        url: r.current,
        status: response.status,
        statusLine: statusLine(response),
        location: next,
        ip: response.remoteIPAddress || undefined,
        fromCache: fromCache(response) || undefined,
      });
    }
    r.current = next;
    // A hop through a site outside the scope (a single sign-on's bounce back to the app) is not
    // where the tab went: the view ends if the tab commits a page outside the scope
    // (Page.frameNavigated), and a chain that ends there leaves no row (`finish`: its document's
    // URL decides).
    if (r.type === "main_frame" || r.type === "sub_frame") r.docUrl = next;
  }

  response(s, p) {
    const response = p.response || {};
    const r = this.open.get(p.requestId) || this.unseen(s, p);
    if (!r) return;
    r.status = response.status;
    r.statusLine = statusLine(response);
    r.ip = response.remoteIPAddress || undefined;
    r.fromCache = r.fromCache || fromCache(response);
    if (response.fromServiceWorker) r.fromServiceWorker = response.serviceWorkerResponseSource || "fetch-handler";
    // When its headers arrived by the network's clock (the event's own timestamp is when it was
    // sent on, which measured later than the request's end at times).
    const t = response.timing;
    r.responseAt = this.wall(t && Number.isFinite(t.requestTime) && t.receiveHeadersEnd >= 0 ? t.requestTime + t.receiveHeadersEnd / 1000 : p.timestamp);
    if (p.type === "Preflight") r.preflight = true;
    if (limits.STREAMING_TYPES.test(response.mimeType || "")) r.stream = true;
  }

  /**
   * A response to a request this tracker did not see start: it began before
   * the tab was attached (or before the service worker started again). Its
   * response says what it was; its start, method and redirects are lost.
   */
  unseen(s, p) {
    const response = p.response || {};
    if (typeof response.url !== "string" || !NETWORK_URL.test(response.url)) return undefined;
    const session = s ? this.sessions.get(s) : undefined;
    const frame = p.frameId || this.sessionFrame(s);
    const r = {
      id: p.requestId,
      session: s,
      url: response.url,
      current: response.url,
      type: p.type === "Document" ? (this.isTop(frame) ? "main_frame" : "sub_frame") : TYPES[p.type] || "other",
      frame,
      docUrl: p.type === "Document" ? response.url : this.frameUrl(frame) || (session && session.url),
      serviceWorker: session !== undefined && session.type === "service_worker",
      redirects: [],
    };
    this.open.set(p.requestId, r);
    return r;
  }

  finish(p, error) {
    const r = this.open.get(p.requestId);
    if (!r) return;
    this.open.delete(p.requestId);
    if (r.preflightOf !== undefined && !this.precede(r, r.preflightOf)) this.precedeUnknown(r);
    this.recent.set(r.id, r);
    if (this.recent.size > RECENT) this.recent.delete(this.recent.keys().next().value);
    r.scope = this.scopeUrl(r.docUrl, r.frame);
    // Another origin's frame or worker outside the scope leaves no row.
    if (!this.inScope(r.scope)) return;
    const endedAt = Math.max(this.wall(p.timestamp), r.responseAt ?? -Infinity);
    const page = origin(r.scope);
    const row = {
      url: r.url,
      method: r.method,
      type: r.type,
      requestId: r.id,
      source: "browser",
      frameUrl: r.serviceWorker ? undefined : this.rowFrameUrl(r),
      initiator: this.initiatorOf(r, page),
      responseStatus: r.status || undefined,
      statusLine: r.statusLine,
      fromCache: r.fromCache || false,
      fromServiceWorker: r.fromServiceWorker,
      fromWorker: r.fromWorker,
      ip: r.ip,
      startedAt: r.startedAt,
      responseAt: r.responseAt,
      endedAt,
      duration: r.startedAt === undefined ? undefined : endedAt - r.startedAt,
      ts: Math.round(r.startedAt ?? endedAt),
      startUnknown: r.startedAt === undefined || undefined,
      stream: r.stream,
    };
    if (r.redirects.length) {
      row.redirects = r.redirects;
      row.finalUrl = r.current;
    }
    if (error) row.error = error(r, page);
    for (const key of Object.keys(row)) if (row[key] === undefined) delete row[key];
    if (r.type === "sub_frame" && !error) this.setFrame(r.frame, { url: r.current });
    this.io.emitRow(row, r.serviceWorker ? null : this.io.tabId, this.where(r.serviceWorker ? undefined : r.frame, r.serviceWorker));
  }

  /**
   * Requests a worker made before its session saw them, read from its own Resource Timing
   * buffer once its Network domain was on (a shared worker, which nothing can hold at its
   * first start): `entries` oldest first, times relative to `timeOrigin` (ms since the epoch).
   * Each URL's newest entries are those the session's events already showed, one for each;
   * the older rest become rows with `fromTiming: true` (the method is unknown there).
   */
  recover(s, timeOrigin, entries) {
    const session = this.sessions.get(s);
    if (!session || !Array.isArray(entries) || !Number.isFinite(timeOrigin)) return;
    const seen = new Map();
    for (const r of [...this.open.values(), ...this.recent.values()]) {
      if (r.session === s) seen.set(r.url, (seen.get(r.url) || 0) + 1);
    }
    const missed = [];
    for (const e of [...entries].reverse()) {
      if (!e || typeof e.url !== "string" || !NETWORK_URL.test(e.url)) continue;
      const shown = seen.get(e.url) || 0;
      if (shown > 0) seen.set(e.url, shown - 1);
      else missed.unshift(e);
    }
    const scope = this.scopeUrl(session.url, session.frame);
    if (!this.inScope(scope)) return;
    const page = origin(scope);
    for (const e of missed) {
      const at = (ms) => (Number.isFinite(ms) && ms > 0 ? timeOrigin + ms : undefined);
      const startedAt = at(e.startTime) ?? timeOrigin;
      const endedAt = at(e.responseEnd) ?? startedAt;
      const r = { url: e.url, docUrl: session.url, frame: session.frame };
      const row = {
        url: e.url,
        type: TIMING_TYPES[e.initiatorType] || "other",
        source: "browser",
        fromTiming: true,
        frameUrl: this.rowFrameUrl(r),
        initiator: this.initiatorOf(r, page),
        responseStatus: e.responseStatus || undefined,
        fromCache: e.transferSize === 0 && e.decodedBodySize > 0,
        startedAt,
        responseAt: at(e.responseStart),
        endedAt,
        duration: endedAt - startedAt,
        ts: Math.round(startedAt),
      };
      for (const key of Object.keys(row)) if (row[key] === undefined) delete row[key];
      this.io.emitRow(row, this.io.tabId, this.where(session.frame));
    }
  }

  /** A frame's document row names its own document; any other its frame's. */
  rowFrameUrl(r) {
    if (r.type === "main_frame" || r.type === "sub_frame") return r.current;
    return this.frameUrl(r.frame) || r.docUrl;
  }

  initiatorOf(r, page) {
    if (r.type === "main_frame") return undefined;
    if (r.type === "sub_frame") {
      const parent = this.frames.get(r.frame);
      return origin(this.scopeUrl(undefined, parent && parent.parent));
    }
    return page;
  }

  /** Which frame a row or message is of, for the caller to turn into Chrome's frame ids. */
  where(frame, serviceWorker) {
    if (serviceWorker || frame === undefined) return { serviceWorker: !!serviceWorker };
    const f = this.frames.get(frame);
    const parent = f && f.parent;
    return {
      frame,
      frameUrl: this.frameUrl(frame),
      top: this.isTop(frame),
      parentFrame: parent,
      parentFrameUrl: this.frameUrl(parent),
      parentTop: this.isTop(parent),
    };
  }

  left(url) {
    if (this.io.leftScope) this.io.leftScope(url);
  }

  /**
   * A worker's own script never said it ended, yet the worker made a request that has ended
   * (or the worker is gone, `gone`): ended, as a load, when the worker's first request began.
   */
  scriptLoaded(sessionId, gone) {
    const session = sessionId ? this.sessions.get(sessionId) : undefined;
    if (!session || !WORKERS.has(session.type) || session.targetId === undefined) return;
    const script = this.open.get(session.targetId);
    if (!script || script.url !== session.url || (script.loadedBy === undefined && !gone)) return;
    this.finish({ requestId: script.id, timestamp: script.loadedBy }, null);
  }

  /**
   * A child session ended (a worker the page terminated, a frame removed): its requests still
   * open will be told of no more. One answered ends now, as its row (a worker that read a 503's
   * status and was terminated before reading its body); one not answered failed with it.
   */
  sessionEnded(sessionId) {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    const what = WORKERS.has(session.type) ? "its worker" : "its frame";
    for (const r of [...this.open.values()]) {
      if (r.session !== sessionId) continue;
      this.finish({ requestId: r.id }, r.status >= 100 ? null : () => `net::ERR_ABORTED (${what} ended before the answer came)`);
    }
  }

  // ---- WebSockets: a row for the handshake, as webRequest made one ------------------------
  socket(s, p) {
    if (typeof p.url !== "string" || !NETWORK_URL.test(p.url)) return;
    const frame = this.sessionFrame(s);
    const session = s ? this.sessions.get(s) : undefined;
    this.open.set(p.requestId, {
      id: p.requestId,
      url: p.url,
      current: p.url,
      method: "GET",
      type: "websocket",
      frame,
      docUrl: this.frameUrl(frame) || (session && session.url),
      serviceWorker: session !== undefined && session.type === "service_worker",
      startedAt: this.now(),
      redirects: [],
    });
  }

  // ---- the browser's console messages ---------------------------------------------------
  log(s, p) {
    const e = p.entry;
    if (!e || typeof e !== "object" || this.before(e.timestamp)) return;
    const session = s ? this.sessions.get(s) : undefined;
    const r = e.networkRequestId !== undefined ? this.open.get(e.networkRequestId) || this.recent.get(e.networkRequestId) : undefined;
    let frame;
    let scope;
    let serviceWorker;
    if (r) {
      frame = r.frame;
      scope = r.scope || this.scopeUrl(r.docUrl, r.frame);
      serviceWorker = r.serviceWorker;
    } else {
      frame = this.sessionFrame(s);
      serviceWorker = session !== undefined && session.type === "service_worker";
      // A message about a document names it: a same-process subframe's is its own.
      const named = typeof e.url === "string" && !(session && WORKERS.has(session.type)) ? this.frameOfUrl(e.url) : undefined;
      if (named) frame = named;
      const docUrl = session && WORKERS.has(session.type) ? session.url : this.frameUrl(frame) || (session && session.url);
      scope = this.scopeUrl(docUrl, frame);
    }
    if (!this.inScope(scope)) return;
    const entry = browserLog(e, this.now);
    this.io.emitLog(entry, serviceWorker ? null : this.io.tabId, this.where(serviceWorker ? undefined : frame, serviceWorker));
  }

  /** Whether a message's time (ms since the epoch) is before the deep view began. */
  before(timestamp) {
    return typeof timestamp === "number" && timestamp < this.begun;
  }

  /**
   * A worker's own console call or uncaught error (Runtime, enabled in worker sessions only):
   * a logs entry of the tab, in the frame that started the worker; a service worker's of no tab,
   * as its rows. A dedicated worker's uncaught error is not taken here: it reaches the page's
   * global scope too (HTML's worker error reporting), where the page's errors.js records it.
   */
  workerLog(s, p, build) {
    const session = s ? this.sessions.get(s) : undefined;
    if (!session || !WORKERS.has(session.type) || this.before(p.timestamp)) return;
    if (build === exceptionEntry && session.type === "worker") return;
    if (!this.inScope(this.scopeUrl(session.url, session.frame))) return;
    const entry = build(p, session, this.now);
    if (!entry) return;
    const serviceWorker = session.type === "service_worker";
    this.io.emitLog(entry, serviceWorker ? null : this.io.tabId, this.where(serviceWorker ? undefined : session.frame, serviceWorker));
  }

  frameOfUrl(url) {
    const bare = url.split("#")[0];
    let found;
    for (const [id, f] of this.frames) {
      if (f.url !== bare) continue;
      if (found !== undefined) return undefined; // two frames show it: the session's own frame then
      found = id;
    }
    return found;
  }

  // ---- targets: workers, out-of-process iframes, the page's service worker -----------------
  attached(s, p) {
    const info = p.targetInfo || {};
    if (typeof p.sessionId !== "string") return;
    const frame = info.type === "iframe" ? info.targetId : info.parentFrameId || (WORKERS.has(info.type) ? undefined : this.sessionFrame(s));
    this.sessions.set(p.sessionId, { type: info.type, url: info.url || undefined, targetId: info.targetId, frame });
    if (info.type === "iframe") this.setFrame(info.targetId, { parent: info.parentFrameId, url: info.url || undefined });
  }

  changed(s, p) {
    const info = p.targetInfo || {};
    for (const session of this.sessions.values()) {
      if (session.targetId === info.targetId && info.url) session.url = info.url;
    }
    if (info.type === "iframe" && info.url && this.frames.has(info.targetId)) this.setFrame(info.targetId, { url: info.url });
  }
}

const HANDLERS = {
  "Network.requestWillBeSent": DeepRequests.prototype.request,
  "Network.responseReceived": DeepRequests.prototype.response,
  "Inspector.workerScriptLoaded"(s) {
    // The worker's script has loaded: if its request is still open, its end will not be reported
    // (a shared worker whose session was enabled after its script came, 1 run in about 20).
    this.scriptLoaded(s, true);
  },
  "Network.requestServedFromCache"(s, p) {
    const r = this.open.get(p.requestId);
    if (r) r.fromCache = true;
  },
  "Network.loadingFinished"(s, p) {
    this.finish(p, null);
    this.scriptLoaded(s, false);
  },
  "Network.loadingFailed"(s, p) {
    const r = this.open.get(p.requestId);
    // A stream answered and then closed, by the page (an EventSource's close()) or by the worker
    // that relayed it: it ended, it did not fail.
    const closed =
      r && r.stream && r.status >= 100 && !p.corsErrorStatus && !p.blockedReason && (p.canceled || CLOSED_STREAM.test(p.errorText || ""));
    this.finish(p, closed ? null : (r, page) => failure(p, r, page));
    this.scriptLoaded(s, false);
  },
  "Network.webSocketCreated": DeepRequests.prototype.socket,
  "Network.webSocketWillSendHandshakeRequest"(s, p) {
    const r = this.open.get(p.requestId);
    if (r && Number.isFinite(p.wallTime)) r.startedAt = p.wallTime * 1000;
  },
  "Network.webSocketHandshakeResponseReceived"(s, p) {
    const r = this.open.get(p.requestId);
    if (!r) return;
    const response = p.response || {};
    r.status = response.status;
    r.statusLine = response.status ? `HTTP/1.1 ${response.status}${response.statusText ? ` ${response.statusText}` : ""}` : undefined;
    r.responseAt = this.wall(p.timestamp);
    this.finish(p, null); // the socket's life is websocket_events'
  },
  "Network.webSocketClosed"(s, p) {
    // Closed before its handshake was answered.
    if (this.open.has(p.requestId)) this.finish(p, () => "net::ERR_CONNECTION_FAILED (WebSocket handshake)");
  },
  "Log.entryAdded"(s, p) {
    // A dedicated worker's console, as text, in its page's session: its own session says it whole.
    if (p.entry && p.entry.source === "worker") return;
    this.log(s, p);
  },
  "Runtime.consoleAPICalled"(s, p) {
    this.workerLog(s, p, consoleEntry);
  },
  "Runtime.exceptionThrown"(s, p) {
    this.workerLog(s, p, exceptionEntry);
  },
  "Page.frameAttached"(s, p) {
    if (p.frameId) this.setFrame(p.frameId, { parent: p.parentFrameId });
  },
  "Page.frameNavigated"(s, p) {
    const f = p.frame || {};
    if (!f.id) return;
    // A failed load commits chrome-error://chromewebdata/ with unreachableUrl the page asked for
    // (a local server restarting must not end the deep view).
    const url = f.unreachableUrl || f.url;
    this.setFrame(f.id, { parent: f.parentId, url });
    // A page restored from the back/forward cache commits without a request.
    if (this.isTop(f.id) && !this.inScope(url)) this.left(url);
  },
  "Page.navigatedWithinDocument"(s, p) {
    if (p.frameId && typeof p.url === "string") this.setFrame(p.frameId, { url: p.url.split("#")[0] });
  },
  "Page.frameDetached"(s, p) {
    // "swap": the frame went to another process and lives on there.
    if (p.frameId && p.reason !== "swap") this.frames.delete(p.frameId);
  },
  "Target.attachedToTarget": DeepRequests.prototype.attached,
  "Target.targetInfoChanged": DeepRequests.prototype.changed,
  "Target.detachedFromTarget"(s, p) {
    this.scriptLoaded(p.sessionId, true);
    this.sessionEnded(p.sessionId);
    this.sessions.delete(p.sessionId);
  },
};

// How Chrome says a stream (limits.STREAMING_TYPES) was closed after its answer.
const CLOSED_STREAM = /^net::ERR_(ABORTED|FAILED)$/;

/** "HTTP/1.1 200 OK", as webRequest's statusLine read (HTTP/2 has no reason phrase). */
export function statusLine(response) {
  if (!response || !response.status) return undefined;
  const protocol = PROTOCOLS[String(response.protocol || "").toLowerCase()];
  if (!protocol) return undefined;
  return `${protocol} ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
}

function fromCache(response) {
  return !!(response.fromDiskCache || response.fromPrefetchCache || response.fromEarlyHints);
}

function origin(url) {
  try {
    const o = new URL(url).origin;
    return o === "null" ? undefined : o;
  } catch {
    return undefined;
  }
}

/** Chrome's reason, with what it means where Chrome says only net::ERR_FAILED or nothing. */
export function failure(p, r, page) {
  let error = p.errorText || (p.canceled ? "net::ERR_ABORTED" : "");
  if (p.corsErrorStatus) return `${error || "net::ERR_FAILED"} (CORS: ${cors(p.corsErrorStatus, r, page)})`;
  if (p.blockedReason) return error ? `${error} (blocked:${p.blockedReason})` : `blocked:${p.blockedReason}`;
  return error || "net::ERR_FAILED";
}

/** A CORS refusal in words (the protocol's CorsError names what failed). */
function cors(status, r, page) {
  const what = String(status.corsError || "");
  const param = status.failedParameter || "";
  const target = origin(r.current) || r.current;
  const pre = what.startsWith("Preflight");
  const response = pre ? `the preflight (OPTIONS) response from ${target}` : `the response from ${target}`;
  const forPage = page ? ` for ${page}` : "";
  switch (what.replace(/^Preflight/, "")) {
    case "MissingAllowOriginHeader":
      return `${response} has no Access-Control-Allow-Origin header${forPage}`;
    case "AllowOriginMismatch":
      return `${response} allows '${param}', not ${page || "this origin"}`;
    case "MultipleAllowOriginValues":
      return `${response} has more than one Access-Control-Allow-Origin value ('${param}')`;
    case "InvalidAllowOriginValue":
      return `${response} has an invalid Access-Control-Allow-Origin value ('${param}')`;
    case "WildcardOriginNotAllowed":
      return `${response} allows '*', which a request with credentials may not use`;
    case "InvalidAllowCredentials":
      return `${response} has Access-Control-Allow-Credentials '${param}', not 'true'`;
    case "InvalidStatus":
      return `${response} has status ${param || "other than 2xx"}`;
    case "DisallowedRedirect":
      return `the preflight (OPTIONS) request to ${target} was redirected`;
    default:
      break;
  }
  if (what === "MethodDisallowedByPreflightResponse") return `the preflight (OPTIONS) response from ${target} does not allow the method ${param}`;
  if (what === "HeaderDisallowedByPreflightResponse") return `the preflight (OPTIONS) response from ${target} does not allow the header ${param}`;
  if (what === "DisallowedByMode") return `the request's mode forbids a cross-origin request to ${target}`;
  if (what === "CorsDisabledScheme") return `${r.current}'s scheme does not support CORS`;
  return param ? `${what} '${param}'` : what || "refused";
}
