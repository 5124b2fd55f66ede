// Runs in the page's own JavaScript world at document_start, before any page
// script. Wraps console, fetch, XMLHttpRequest and WebSocket, watches errors,
// user actions, navigation, resource timing and vitals, and hands events to
// content/relay.js through window.postMessage.
//
// Rules that keep the page from noticing: every wrapper calls the original
// first or last exactly as the page asked and returns what it returned; all our
// own work is inside try/catch; the costly part (serialising arguments,
// reading bodies, redaction) runs later, off the call that produced the event.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  // The helpers were put on the page's global by lib/; take them back off it.
  try {
    delete globalThis.__gasoline;
  } catch {
    // non-configurable in some odd environment: harmless
  }
  if (!G || window.__gasolineCapturing) return;
  Object.defineProperty(window, "__gasolineCapturing", { value: true });

  const { limits, serialize, redact, selector } = G;
  const setTimeout_ = window.setTimeout.bind(window);
  const clearTimeout_ = window.clearTimeout.bind(window);
  const now = () => Date.now();
  const PAGE = "gasoline-page";
  const CONFIG = "gasoline-config";

  // ---- settings pushed by the relay (defaults until they arrive) ----------
  let enabled = {
    logs: true,
    network_waterfall: true,
    network_bodies: true,
    websocket_events: true,
    actions: true,
    vitals: true,
  };
  let policy = redact.policy();
  window.addEventListener("message", (event) => {
    try {
      const data = event.data;
      if (event.source !== window || !data || data.__gasoline !== CONFIG) return;
      if (data.capture) enabled = Object.assign({}, enabled, data.capture);
      policy = redact.policy(data.redactHeaders || [], data.redactBodyKeys || []);
    } catch {
      // ignore malformed config
    }
  });

  // ---- outbox: events are built later, in one task, and posted together ----
  const MAX_PENDING = 5000;
  let pending = [];
  let scheduled = false;

  /** Queues an event of `kind`; `build` makes its entry later, off the hot path. */
  function emit(kind, build) {
    if (kind !== "tabs" && enabled[kind] === false) return;
    if (pending.length >= MAX_PENDING) pending.shift(); // a page logging in a tight loop
    pending.push({ kind, build, ts: now() });
    if (!scheduled) {
      scheduled = true;
      setTimeout_(flush, 0);
    }
  }

  function flush() {
    scheduled = false;
    const batch = pending;
    pending = [];
    const events = [];
    for (const item of batch) {
      try {
        const entry = item.build();
        if (!entry) continue;
        if (entry.ts === undefined) entry.ts = item.ts;
        events.push({ kind: item.kind, entry });
      } catch {
        // an entry that cannot be built is skipped, never thrown at the page
      }
    }
    if (events.length === 0) return;
    try {
      window.postMessage({ __gasoline: PAGE, events }, "*");
    } catch {
      // structured clone refused something: send what is plain
      try {
        window.postMessage({ __gasoline: PAGE, events: JSON.parse(JSON.stringify(events)) }, "*");
      } catch {
        // give up on this batch rather than disturb the page
      }
    }
  }

  const pageUrl = () => redact.redactUrl(location.href, policy);

  // ---- console, errors, rejections ----------------------------------------
  const LEVELS = { log: "log", info: "info", warn: "warn", error: "error", debug: "debug", trace: "debug" };

  /** "file:line:col" of the code that called console, from a captured stack. */
  function callSite(stack) {
    if (typeof stack !== "string") return undefined;
    const lines = stack.split("\n").slice(1);
    const outside = lines.find((l) => !l.includes("page/capture.js") && !l.includes("chrome-extension://"));
    const m = outside && outside.match(/\(?((?:https?|file|blob):[^\s)]+:\d+:\d+)\)?\s*$/);
    return m ? m[1] : undefined;
  }

  function wrapConsole(method) {
    const original = console[method];
    if (typeof original !== "function") return;
    const level = LEVELS[method];
    console[method] = function (...args) {
      let stack;
      try {
        stack = new Error().stack; // the call site is only knowable now; parsing waits
        emit("logs", () => {
          const msg = serialize.formatMessage(args);
          const entry = { level, message: msg.text, source: "console", url: pageUrl() };
          const where = callSite(stack);
          if (where) entry.location = where;
          const errStack = serialize.stackOf(args);
          if (errStack) entry.stack = errStack;
          if (method === "trace") entry.stack = stack;
          if (msg.truncated) Object.assign(entry, { messageTruncated: true, messageSize: msg.size });
          return entry;
        });
      } catch {
        // never let capture break logging
      }
      return original.apply(this, args);
    };
  }
  Object.keys(LEVELS).forEach(wrapConsole);
  const originalAssert = console.assert;
  if (typeof originalAssert === "function") {
    console.assert = function (condition, ...args) {
      try {
        if (!condition) {
          emit("logs", () => ({
            level: "error",
            message: "Assertion failed: " + serialize.formatMessage(args).text,
            source: "console",
            url: pageUrl(),
          }));
        }
      } catch {
        // ignore
      }
      return originalAssert.call(this, condition, ...args);
    };
  }

  window.addEventListener(
    "error",
    (event) => {
      try {
        if (!(event instanceof ErrorEvent)) return; // resource errors show in the waterfall
        const error = event.error;
        emit("logs", () => ({
          level: "error",
          message: error instanceof Error ? `${error.name}: ${error.message}` : String(event.message),
          source: "exception",
          url: pageUrl(),
          location: event.filename ? `${event.filename}:${event.lineno}:${event.colno}` : undefined,
          stack: error && typeof error.stack === "string" ? error.stack : undefined,
        }));
      } catch {
        // ignore
      }
    },
    true,
  );

  window.addEventListener("unhandledrejection", (event) => {
    try {
      const reason = event.reason;
      emit("logs", () => ({
        level: "error",
        message: "Unhandled rejection: " + serialize.formatArg(reason),
        source: "unhandledrejection",
        url: pageUrl(),
        stack: reason instanceof Error && typeof reason.stack === "string" ? reason.stack : undefined,
      }));
    } catch {
      // ignore
    }
  });

  // ---- request and response bodies ----------------------------------------
  const TEXTUAL = /^text\/|json|xml|javascript|x-www-form-urlencoded|graphql|csv|yaml/i;

  /** Header names in lower case, as the Headers API and HTTP/2 give them. */
  function headersToObject(headers) {
    const out = {};
    try {
      if (!headers) return out;
      if (typeof headers.forEach === "function" && !Array.isArray(headers)) {
        headers.forEach((value, name) => (out[name.toLowerCase()] = value));
      } else if (Array.isArray(headers)) {
        for (const [name, value] of headers) out[String(name).toLowerCase()] = String(value);
      } else {
        for (const name of Object.keys(headers)) out[name.toLowerCase()] = String(headers[name]);
      }
    } catch {
      // unreadable headers: report none
    }
    return out;
  }

  function parseRawHeaders(raw) {
    const out = {};
    for (const line of String(raw || "").split(/\r?\n/)) {
      const i = line.indexOf(":");
      if (i > 0) out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    return out;
  }

  /** What a request body says, as text where it is text. */
  function bodyText(body) {
    if (body === undefined || body === null) return undefined;
    if (typeof body === "string") return body;
    if (typeof URLSearchParams !== "undefined" && body instanceof URLSearchParams) return body.toString();
    if (typeof FormData !== "undefined" && body instanceof FormData) {
      const parts = new URLSearchParams();
      for (const [k, v] of body.entries()) parts.append(k, typeof v === "string" ? v : `[File ${v.name} ${v.size} bytes]`);
      return parts.toString();
    }
    if (typeof Blob !== "undefined" && body instanceof Blob) return `[Blob ${body.size} bytes ${body.type}]`;
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return `[binary ${body.byteLength} bytes]`;
    return `[${Object.prototype.toString.call(body).slice(8, -1)}]`;
  }

  /** Redacts, then cuts, a body: fields for the entry under `prefix`. */
  function bodyFields(prefix, text, size) {
    if (text === undefined) return {};
    const clean = redact.redactBody(text, policy);
    const c = serialize.cut(clean, limits.BODY_CAP);
    const fields = { [`${prefix}Body`]: c.text };
    const total = size !== undefined ? size : c.size;
    if (c.truncated || total > c.text.length) {
      fields[`${prefix}BodyTruncated`] = true;
      fields[`${prefix}BodySize`] = total;
    }
    return fields;
  }

  /** Reads at most BODY_CAP characters of a cloned response, never waiting forever. */
  async function readCapped(response, contentLength) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let bytes = 0;
    let complete = false;
    const giveUp = new Promise((resolve) => setTimeout_(() => resolve({ timeout: true }), 10000));
    try {
      for (;;) {
        const step = await Promise.race([reader.read(), giveUp]);
        if (step.timeout) break;
        if (step.done) {
          complete = true;
          text += decoder.decode();
          break;
        }
        bytes += step.value.byteLength;
        text += decoder.decode(step.value, { stream: true });
        if (text.length > limits.BODY_CAP) break;
      }
    } finally {
      if (!complete) reader.cancel().catch(() => {});
    }
    const size = complete ? bytes : Math.max(contentLength || 0, bytes);
    return { text, size, complete };
  }

  function wrapFetch() {
    const originalFetch = window.fetch;
    if (typeof originalFetch !== "function") return;
    window.fetch = function (input, init) {
      let info;
      try {
        const isRequest = typeof Request !== "undefined" && input instanceof Request;
        info = {
          start: performance.now(),
          method: String((init && init.method) || (isRequest && input.method) || "GET").toUpperCase(),
          url: String(isRequest ? input.url : input),
          headers: headersToObject((init && init.headers) || (isRequest && input.headers)),
          body: init && init.body,
        };
        if (info.body === undefined && isRequest && input.body) {
          // Read a copy before the page's request is sent (sending consumes it).
          info.bodyPromise = input.clone().text().catch(() => undefined);
        }
      } catch {
        info = undefined;
      }
      const result = originalFetch.apply(this, arguments);
      if (info) {
        result.then(
          (response) => {
            try {
              observeFetchResponse(info, response);
            } catch {
              // ignore
            }
          },
          (error) => emit("network_bodies", () => fetchEntry(info, undefined, { error: String(error) })),
        );
      }
      return result;
    };
  }

  function observeFetchResponse(info, response) {
    const duration = performance.now() - info.start;
    const headers = headersToObject(response.headers);
    const type = headers["content-type"] || "";
    const length = Number(headers["content-length"]) || undefined;
    const readable = response.body && response.type !== "opaque" && TEXTUAL.test(type);
    const bodyPromise = readable
      ? readCapped(response.clone(), length).catch(() => undefined)
      : Promise.resolve(undefined);
    Promise.all([bodyPromise, info.bodyPromise]).then(([body, requestBody]) => {
      if (requestBody !== undefined) info.body = requestBody;
      emit("network_bodies", () =>
        fetchEntry(info, response, {
          duration,
          headers,
          body,
          note: !readable && length ? `[${type || "binary"} ${length} bytes not captured]` : undefined,
        }),
      );
    });
  }

  function fetchEntry(info, response, extra) {
    const entry = {
      method: info.method,
      url: redact.redactUrl(info.url, policy),
      initiator: "fetch",
      duration: extra.duration !== undefined ? extra.duration : performance.now() - info.start,
      requestHeaders: redact.redactHeaders(info.headers, policy),
      ...bodyFields("request", bodyText(info.body)),
    };
    if (response) {
      entry.status = response.status;
      entry.statusText = response.statusText;
      entry.responseHeaders = redact.redactHeaders(extra.headers, policy);
      entry.contentType = extra.headers["content-type"];
      if (extra.body) {
        Object.assign(entry, bodyFields("response", extra.body.text, extra.body.size));
        if (!extra.body.complete && !entry.responseBodyTruncated) entry.responseBodyTruncated = true;
      } else if (extra.note) {
        entry.responseBody = extra.note;
      }
    }
    if (extra.error) entry.error = extra.error;
    return entry;
  }

  function wrapXhr() {
    if (typeof XMLHttpRequest !== "function") return;
    const proto = XMLHttpRequest.prototype;
    const { open, send, setRequestHeader } = proto;
    const state = new WeakMap();
    proto.open = function (method, url) {
      try {
        state.set(this, { method: String(method).toUpperCase(), url: String(url), headers: {} });
      } catch {
        // ignore
      }
      return open.apply(this, arguments);
    };
    proto.setRequestHeader = function (name, value) {
      try {
        const s = state.get(this);
        if (s) s.headers[String(name).toLowerCase()] = String(value);
      } catch {
        // ignore
      }
      return setRequestHeader.apply(this, arguments);
    };
    proto.send = function (body) {
      try {
        const s = state.get(this);
        if (s) {
          s.start = performance.now();
          s.body = body;
          const xhr = this;
          xhr.addEventListener("loadend", () => {
            const duration = performance.now() - s.start;
            emit("network_bodies", () => xhrEntry(xhr, s, duration));
          });
        }
      } catch {
        // ignore
      }
      return send.apply(this, arguments);
    };
  }

  function xhrEntry(xhr, s, duration) {
    const headers = parseRawHeaders(xhr.getAllResponseHeaders());
    let response;
    const type = xhr.responseType;
    if (type === "" || type === "text") response = xhr.responseText;
    else if (type === "json") response = JSON.stringify(xhr.response);
    else if (xhr.response) response = `[${type} response]`;
    return {
      method: s.method,
      url: redact.redactUrl(s.url, policy),
      initiator: "xhr",
      status: xhr.status,
      statusText: xhr.statusText,
      duration,
      requestHeaders: redact.redactHeaders(s.headers, policy),
      responseHeaders: redact.redactHeaders(headers, policy),
      contentType: headers["content-type"],
      ...bodyFields("request", bodyText(s.body)),
      ...bodyFields("response", response),
    };
  }

  // ---- WebSocket ------------------------------------------------------------
  let connections = 0;
  const connectionPrefix = Math.random().toString(36).slice(2, 8);

  function wsData(data) {
    if (typeof data === "string") {
      const c = serialize.cut(data, limits.WS_DATA_CAP);
      return c.truncated ? { data: c.text, size: c.size, truncated: true } : { data: c.text, size: c.size };
    }
    if (typeof Blob !== "undefined" && data instanceof Blob) return { data: `[Blob ${data.size} bytes]`, size: data.size };
    if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
      return { data: `[binary ${data.byteLength} bytes]`, size: data.byteLength };
    }
    return { data: String(data) };
  }

  function wrapWebSocket() {
    const Original = window.WebSocket;
    if (typeof Original !== "function") return;
    const ids = new WeakMap();
    const wsEvent = (ws, event, extra) =>
      emit("websocket_events", () =>
        Object.assign({ connectionId: ids.get(ws), event, url: redact.redactUrl(ws.url, policy) }, extra()),
      );
    window.WebSocket = new Proxy(Original, {
      construct(target, args, newTarget) {
        const ws = Reflect.construct(target, args, newTarget);
        try {
          ids.set(ws, `${connectionPrefix}-${++connections}`);
          ws.addEventListener("open", () => wsEvent(ws, "open", () => ({ protocol: ws.protocol })));
          ws.addEventListener("message", (e) =>
            wsEvent(ws, "message", () => Object.assign({ direction: "incoming" }, wsData(e.data))),
          );
          ws.addEventListener("close", (e) =>
            wsEvent(ws, "close", () => ({ code: e.code, reason: e.reason, wasClean: e.wasClean })),
          );
          ws.addEventListener("error", () => wsEvent(ws, "error", () => ({})));
        } catch {
          // ignore
        }
        return ws;
      },
    });
    const originalSend = Original.prototype.send;
    Original.prototype.send = function (data) {
      try {
        if (ids.has(this)) wsEvent(this, "message", () => Object.assign({ direction: "outgoing" }, wsData(data)));
      } catch {
        // ignore
      }
      return originalSend.apply(this, arguments);
    };
  }

  // ---- user actions and navigation -------------------------------------------
  function target(event) {
    const t = event.composedPath ? event.composedPath()[0] : event.target;
    return t && t.nodeType === 1 ? t : event.target;
  }

  function fieldValue(el) {
    if (redact.isSecretInput(el)) return { value: redact.REDACTED, redacted: true };
    if (el.type === "checkbox" || el.type === "radio") return { checked: !!el.checked };
    const c = serialize.cut(el.value === undefined ? "" : el.value, limits.VALUE_CAP);
    return c.truncated ? { value: c.text, valueTruncated: true } : { value: c.text };
  }

  function action(type, el, extra) {
    emit("actions", () =>
      Object.assign(
        { type, selector: selector.cssSelector(el), tag: el && el.tagName ? el.tagName.toLowerCase() : undefined, url: pageUrl() },
        extra ? extra() : {},
      ),
    );
  }

  function watchActions() {
    const opts = { capture: true, passive: true };
    window.addEventListener(
      "click",
      (e) => {
        try {
          const el = target(e);
          action("click", el, () => ({ text: selector.visibleText(el), x: e.clientX, y: e.clientY }));
        } catch {
          // ignore
        }
      },
      opts,
    );
    // Typing is recorded once the user pauses, not per keystroke.
    const typing = new WeakMap();
    window.addEventListener(
      "input",
      (e) => {
        try {
          const el = target(e);
          clearTimeout_(typing.get(el));
          typing.set(
            el,
            setTimeout_(() => action("input", el, () => ({ inputType: el.type, ...fieldValue(el) })), 400),
          );
        } catch {
          // ignore
        }
      },
      opts,
    );
    window.addEventListener(
      "change",
      (e) => {
        try {
          const el = target(e);
          action("change", el, () => ({ inputType: el.type, ...fieldValue(el) }));
        } catch {
          // ignore
        }
      },
      opts,
    );
    window.addEventListener(
      "submit",
      (e) => {
        try {
          const form = target(e);
          action("submit", form, () => ({
            action: redact.redactUrl(form.action || location.href, policy),
            method: String(form.method || "get").toUpperCase(),
          }));
        } catch {
          // ignore
        }
      },
      opts,
    );
    window.addEventListener(
      "keydown",
      (e) => {
        try {
          if (e.key === "Enter" || e.key === "Escape" || e.key === "Tab") {
            action("keydown", target(e), () => ({ key: e.key }));
          }
        } catch {
          // ignore
        }
      },
      opts,
    );
  }

  let lastUrl = location.href;
  function navigated(how) {
    const from = lastUrl;
    lastUrl = location.href;
    emit("actions", () => ({ type: "navigate", how, url: pageUrl(), from: redact.redactUrl(from, policy) }));
    reportTab();
  }

  function watchNavigation() {
    for (const name of ["pushState", "replaceState"]) {
      const original = history[name];
      if (typeof original !== "function") continue;
      history[name] = function () {
        const result = original.apply(this, arguments);
        try {
          navigated(name);
        } catch {
          // ignore
        }
        return result;
      };
    }
    window.addEventListener("popstate", () => navigated("popstate"));
    window.addEventListener("hashchange", () => navigated("hashchange"));
  }

  function reportTab() {
    emit("tabs", () => ({ url: pageUrl(), title: document.title || "" }));
  }

  // ---- resource timing and vitals --------------------------------------------
  function observe(type, callback, extra) {
    try {
      const po = new PerformanceObserver((list) => {
        try {
          callback(list.getEntries());
        } catch {
          // ignore
        }
      });
      po.observe(Object.assign({ type, buffered: true }, extra));
    } catch {
      // type not supported by this browser
    }
  }

  function timingEntry(e) {
    const entry = {
      url: redact.redactUrl(e.name, policy),
      initiatorType: e.initiatorType || e.entryType,
      startTime: e.startTime,
      duration: e.duration,
      transferSize: e.transferSize,
      encodedBodySize: e.encodedBodySize,
      decodedBodySize: e.decodedBodySize,
      nextHopProtocol: e.nextHopProtocol || undefined,
    };
    if (typeof e.responseStatus === "number" && e.responseStatus > 0) entry.responseStatus = e.responseStatus;
    return entry;
  }

  const vitals = { lcp: null, cls: null, inp: null, fcp: null, ttfb: null };
  let vitalsTimer;
  function vitalsChanged() {
    clearTimeout_(vitalsTimer);
    vitalsTimer = setTimeout_(reportVitals, 1000);
  }
  function reportVitals() {
    clearTimeout_(vitalsTimer);
    if (Object.values(vitals).every((v) => v === null)) return;
    emit("vitals", () => Object.assign({ url: pageUrl() }, vitals));
  }

  function watchPerformance() {
    observe("resource", (entries) => entries.forEach((e) => emit("network_waterfall", () => timingEntry(e))));
    observe("navigation", (entries) =>
      entries.forEach((e) => {
        emit("network_waterfall", () => timingEntry(e));
        if (e.responseStart > 0) {
          vitals.ttfb = e.responseStart;
          vitalsChanged();
        }
      }),
    );
    observe("paint", (entries) =>
      entries.forEach((e) => {
        if (e.name === "first-contentful-paint") {
          vitals.fcp = e.startTime;
          vitalsChanged();
        }
      }),
    );
    observe("largest-contentful-paint", (entries) => {
      const last = entries[entries.length - 1];
      if (last) {
        vitals.lcp = last.startTime;
        vitalsChanged();
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
      vitalsChanged();
    });
    // INP: the slowest interaction (exact below 50 interactions, close above).
    observe(
      "event",
      (entries) => {
        for (const e of entries) {
          if (e.interactionId && e.duration > (vitals.inp || 0)) vitals.inp = e.duration;
        }
        vitalsChanged();
      },
      { durationThreshold: 16 },
    );
    addEventListener("visibilitychange", () => document.visibilityState === "hidden" && (reportVitals(), flush()));
    addEventListener("pagehide", () => (reportVitals(), flush()));
  }

  // ---- start ---------------------------------------------------------------------
  for (const install of [wrapFetch, wrapXhr, wrapWebSocket, watchActions, watchNavigation, watchPerformance]) {
    try {
      install();
    } catch {
      // one capture failing must not stop the others
    }
  }
  emit("actions", () => ({ type: "navigate", how: "load", url: pageUrl() }));
  reportTab();
  document.addEventListener("DOMContentLoaded", reportTab);
  window.addEventListener("load", reportTab);
})();
