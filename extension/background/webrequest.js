// Every request of every tab, as the browser saw it (chrome.webRequest,
// non-blocking listeners): documents, frames, workers, the page's service
// worker, beacons, EventSource, preflights, images, scripts. Follows each
// request from its start through its redirects to its end or its failure and
// makes one network_waterfall row of it: method, absolute url, type, frame,
// status and status line, fromCache, server IP, start and end times, the
// redirect chain, and Chrome's reason for a failure (net::ERR_...), with CORS
// refusals said as such.
//
// `RequestTracker` is pure (fed the listeners' details), so the unit tests
// drive it; `listen` attaches it to chrome.webRequest.
(function (root) {
  /** Rows longer than this many redirects keep the first ones. */
  const MAX_REDIRECTS = 20;
  /** Requests followed at once; the oldest is given up past this (a leak guard). */
  const MAX_OPEN = 5000;

  class RequestTracker {
    /**
     * @param {object} io
     * @param {(row: object, tabId: number|null) => void} io.emit  a finished request's row
     * @param {string} io.idPrefix  makes Chrome's request ids unique across browser sessions
     * @param {(details: object) => boolean} [io.ignore]  requests not to record
     */
    constructor(io) {
      this.io = io;
      this.open = new Map();
      this.frames = new Map(); // "tab:frame" → the frame's document URL
      this.preflights = new Map(); // "tab:url" → what the latest OPTIONS response allowed
    }

    /** Whose request this is: a tab's, a page's worker (no tab, a web initiator), or nobody's we record. */
    wanted(d) {
      if (this.io.ignore && this.io.ignore(d)) return false;
      if (d.tabId >= 0) return true;
      return typeof d.initiator === "string" && /^https?:/.test(d.initiator);
    }

    onBeforeRequest(d) {
      // After a redirect Chrome starts the same request again at the new URL.
      const redirected = this.open.get(d.requestId);
      if (redirected && redirected.current === d.url) return;
      if (!this.wanted(d)) return;
      if (this.open.size >= MAX_OPEN) this.open.delete(this.open.keys().next().value);
      this.open.set(d.requestId, this.record(d, d.timeStamp));
    }

    record(d, startedAt) {
      return {
        requestId: `${this.io.idPrefix}${d.requestId}`,
        url: d.url,
        current: d.url,
        method: d.method,
        type: d.type,
        tabId: d.tabId >= 0 ? d.tabId : null,
        frameId: d.frameId,
        parentFrameId: d.parentFrameId,
        initiator: d.initiator,
        startedAt,
        redirects: [],
      };
    }

    /**
     * A request that ends without this tracker having seen it start: it began
     * before this service worker was started again (Chrome stops an idle one),
     * like a long stream. Its end says what it was; its start and redirects are lost.
     */
    unseen(d) {
      if (typeof d.url !== "string" || typeof d.method !== "string" || !this.wanted(d)) return undefined;
      return this.record(d, undefined);
    }

    /** The response's headers (also of each redirect): its status, and when the response began. */
    onHeadersReceived(d) {
      const r = this.open.get(d.requestId);
      if (!r) return;
      r.status = d.statusCode;
      r.statusLine = d.statusLine;
      r.allowOrigin = header(d.responseHeaders, "access-control-allow-origin");
      r.responseAt = d.timeStamp;
      // A frame's document has arrived: its requests from now on are of this URL.
      const redirect = d.statusCode >= 300 && d.statusCode < 400 && header(d.responseHeaders, "location") !== undefined;
      if (!redirect && (r.type === "main_frame" || r.type === "sub_frame")) this.frameLoaded(r, d.frameId);
    }

    onBeforeRedirect(d) {
      const r = this.open.get(d.requestId);
      if (!r) return;
      if (r.redirects.length < MAX_REDIRECTS) {
        r.redirects.push({
          url: r.current,
          status: d.statusCode,
          statusLine: d.statusLine,
          location: d.redirectUrl,
          ip: d.ip,
          fromCache: d.fromCache,
        });
      }
      r.current = d.redirectUrl;
      r.status = undefined;
      r.statusLine = undefined;
      r.allowOrigin = undefined;
      r.responseAt = undefined;
    }

    frameLoaded(r, frameId) {
      if (r.tabId === null) return;
      const key = `${r.tabId}:${frameId}`;
      this.frames.delete(key); // the newest last, so the oldest is the one given up
      this.frames.set(key, r.current);
      if (this.frames.size > MAX_OPEN) this.frames.delete(this.frames.keys().next().value);
    }

    /** Requests started and not yet finished, oldest first (for request_join.js). */
    inFlight() {
      return this.open.values();
    }

    onCompleted(d) {
      this.finish(d, null);
    }

    onErrorOccurred(d) {
      this.finish(d, d.error || "net::ERR_FAILED");
    }

    finish(d, error) {
      let r = this.open.get(d.requestId);
      if (r) this.open.delete(d.requestId);
      else r = this.unseen(d);
      if (!r) return;
      const status = d.statusCode || r.status;
      if (r.method === "OPTIONS") {
        // Perhaps a CORS preflight: what it allowed explains a refusal of the request after it.
        this.preflights.set(`${r.tabId}:${r.current}`, { allowOrigin: r.allowOrigin, status });
        if (this.preflights.size > 100) this.preflights.delete(this.preflights.keys().next().value);
      }
      if (!error && (r.type === "main_frame" || r.type === "sub_frame")) this.frameLoaded(r, d.frameId);
      const row = {
        url: r.url,
        method: r.method,
        type: r.type,
        requestId: r.requestId,
        frameId: r.frameId,
        parentFrameId: r.parentFrameId,
        frameUrl: r.tabId === null ? undefined : this.frames.get(`${r.tabId}:${r.frameId}`),
        initiator: r.initiator,
        responseStatus: status || undefined,
        statusLine: d.statusLine || r.statusLine || undefined,
        fromCache: d.fromCache,
        ip: d.ip,
        startedAt: r.startedAt,
        responseAt: r.responseAt,
        endedAt: d.timeStamp,
        duration: r.startedAt === undefined ? undefined : d.timeStamp - r.startedAt,
        ts: Math.round(r.startedAt ?? d.timeStamp),
        startUnknown: r.startedAt === undefined || undefined,
      };
      if (r.redirects.length) {
        row.redirects = r.redirects;
        row.finalUrl = r.current;
      }
      if (error) row.error = explain(error, r, status, this.preflights.get(`${r.tabId}:${r.current}`));
      for (const key of Object.keys(row)) if (row[key] === undefined) delete row[key];
      this.io.emit(row, r.tabId);
    }
  }

  /**
   * Chrome's reason, with what it means where Chrome says only net::ERR_FAILED:
   * a cross-origin response (or its preflight's) without an
   * Access-Control-Allow-Origin that lets the page read it is a CORS refusal.
   */
  function explain(error, r, status, preflight) {
    if (error !== "net::ERR_FAILED" || !r.initiator) return error;
    let origin;
    try {
      origin = new URL(r.current).origin;
    } catch {
      return error;
    }
    if (origin === r.initiator) return error;
    let allowOrigin = r.allowOrigin;
    let what = "the response";
    if (!status) {
      if (!preflight || !preflight.status) return error;
      allowOrigin = preflight.allowOrigin;
      what = "the preflight (OPTIONS) response";
    }
    if (allowOrigin === undefined) {
      return `${error} (CORS: ${what} from ${origin} has no Access-Control-Allow-Origin header for ${r.initiator})`;
    }
    if (allowOrigin !== "*" && allowOrigin !== r.initiator) {
      return `${error} (CORS: ${what} from ${origin} allows '${allowOrigin}', not ${r.initiator})`;
    }
    return `${error} (CORS)`;
  }

  function header(headers, name) {
    if (!Array.isArray(headers)) return undefined;
    const h = headers.find((x) => x && typeof x.name === "string" && x.name.toLowerCase() === name);
    return h ? h.value : undefined;
  }

  /**
   * Attaches `tracker` to chrome.webRequest for every URL, without blocking
   * anything, with as few events per request as the row needs: its start, its
   * headers, its redirects, its end or failure (onResponseStarted would add
   * nothing the headers do not say, at the cost of one more event per request).
   *
   * `extraHeaders` on the headers listener: CORS preflights are shown only to
   * a listener that asks for it, and the response's Access-Control-Allow-Origin
   * tells a CORS refusal apart. It has a price: Chrome then routes every
   * request's headers through the browser process (BENCHMARKS.md). Chrome
   * reports a preflight through the headers route of the request it precedes,
   * so asking for `extraHeaders` only for some types (tried: "other") shows no
   * preflight at all (test/e2e/network.mjs checks the preflight's row).
   */
  function listen(webRequest, tracker) {
    const filter = { urls: ["<all_urls>"] };
    webRequest.onBeforeRequest.addListener((d) => tracker.onBeforeRequest(d), filter);
    webRequest.onHeadersReceived.addListener((d) => tracker.onHeadersReceived(d), filter, ["responseHeaders", "extraHeaders"]);
    webRequest.onBeforeRedirect.addListener((d) => tracker.onBeforeRedirect(d), filter);
    webRequest.onCompleted.addListener((d) => tracker.onCompleted(d), filter);
    webRequest.onErrorOccurred.addListener((d) => tracker.onErrorOccurred(d), filter);
  }

  const api = { RequestTracker, listen, explain };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.GasolineWebRequest = api;
})(globalThis);
