// The service worker: receives events from the content scripts of every tab,
// stamps them with the tab's id, redacts again with the user's lists, and
// delivers them to the gasoline server through per-kind queues.
importScripts(
  "../lib/limits.js",
  "../lib/secrets.js",
  "../lib/redact.js",
  "settings.js",
  "normalize.js",
  "queue_store.js",
  "page_marks.js",
  "delivery.js",
  "webrequest.js",
  "request_join.js",
);

const { redact } = globalThis.__gasoline;
const { withDefaults } = globalThis.GasolineSettings;
const { normalize } = globalThis.GasolineNormalize;
const { Delivery } = globalThis.GasolineDelivery;
const { QueueStore } = globalThis.GasolineQueueStore;
const { PageMarks } = globalThis.GasolinePageMarks;
const { RequestTracker, listen: listenWebRequest } = globalThis.GasolineWebRequest;
const { RequestJoin } = globalThis.GasolineRequestJoin;

let settings = withDefaults(undefined);
let policy = redact.policy(settings.redactHeaders, settings.redactBodyKeys);
// A change heard before the first read answers is newer than what that read saw:
// the read's answer must not take it back (it did: the worker kept the default
// server URL when the settings were saved while it started).
let settingsChanged = false;
const ready = chrome.storage.local.get("settings").then(
  (stored) => settingsChanged || applySettings(stored.settings),
  () => {},
);
chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== "local" || !changes.settings) return;
  settingsChanged = true;
  applySettings(changes.settings.newValue);
});

function applySettings(stored) {
  settings = withDefaults(stored);
  policy = redact.policy(settings.redactHeaders, settings.redactBodyKeys);
}

// ---- delivery -----------------------------------------------------------------
const lifetime = { sent: {}, dropped: {}, lastError: null, lastSuccess: null };
const queueStore = new QueueStore(chrome.storage.local);
/** How far each page's relay got: what it sends again is taken once. */
const pageMarks = new PageMarks(queueStore);
/** Longest a POST may take before it is aborted and retried. */
const POST_TIMEOUT_MS = 15000;

async function post(kind, body, key, signal) {
  let response;
  try {
    response = await fetch(`${settings.serverUrl}/events/${kind}`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body,
      signal,
    });
  } catch (e) {
    const why = signal.aborted ? `no answer within ${POST_TIMEOUT_MS / 1000} s` : e.message;
    lifetime.lastError = `${settings.serverUrl} unreachable: ${why}`;
    return { status: 0, error: why };
  }
  const retryAfter = Number(response.headers.get("retry-after"));
  let error;
  if (!response.ok) {
    error = await response.text().catch(() => "");
    try {
      error = JSON.parse(error).error || error;
    } catch {
      // not JSON: keep the text
    }
    lifetime.lastError = `HTTP ${response.status}: ${error}`;
  } else {
    lifetime.lastSuccess = Date.now();
  }
  return { status: response.status, retryAfterMs: retryAfter > 0 ? retryAfter * 1000 : undefined, error };
}

const delivery = new Delivery(
  {
    post,
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (handle) => clearTimeout(handle),
    log: extensionLog,
    storage: queueStore,
    random: () => crypto.randomUUID(),
    sent(kind, n) {
      lifetime.sent[kind] = (lifetime.sent[kind] || 0) + n;
      saveStatsSoon();
    },
    onDrop(kind, n) {
      lifetime.dropped[kind] = (lifetime.dropped[kind] || 0) + n;
      saveStatsSoon();
    },
  },
  { timeoutMs: POST_TIMEOUT_MS },
);
delivery.start();

/** The extension's own warnings and errors, stored like any other kind. */
function extensionLog(level, message) {
  (level === "error" ? console.error : level === "warn" ? console.warn : console.info)(`gasoline: ${message}`);
  const entry = normalize("extension_logs", { level, message, source: "extension" }, null);
  return delivery.add("extension_logs", entry, null);
}

let statsTimer = null;
function saveStatsSoon() {
  if (statsTimer) return;
  statsTimer = setTimeout(() => {
    statsTimer = null;
    chrome.storage.local.set({
      stats: { sent: lifetime.sent, dropped: lifetime.dropped, lastSuccess: lifetime.lastSuccess },
    });
  }, 1000);
}
chrome.storage.local.get("stats").then((stored) => {
  // Counts since the extension was installed, across the worker's lives.
  for (const field of ["sent", "dropped"]) {
    const counts = (stored.stats && stored.stats[field]) || {};
    for (const [kind, n] of Object.entries(counts)) lifetime[field][kind] = (lifetime[field][kind] || 0) + n;
  }
});

// An idle service worker is stopped after 30 s. Its queues are in storage, but
// nothing would wake it to send them: while events wait, an extension API call
// now and then keeps it up, and an alarm wakes a stopped one (also after a
// browser restart) to try again.
setInterval(() => {
  if (Object.values(delivery.pending()).some((n) => n > 0)) chrome.runtime.getPlatformInfo(() => {});
}, 20000);
const RETRY_ALARM = "gasoline-deliver";
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === RETRY_ALARM) delivery.start();
});
chrome.alarms.create(RETRY_ALARM, { periodInMinutes: 1 });
chrome.runtime.onStartup.addListener(() => delivery.start());
chrome.runtime.onInstalled.addListener(() => delivery.start()); // also after an update or a reload

// ---- every request of every tab, from the browser's side ----------------------------
// Chrome's request ids restart with the browser; this session's prefix keeps them unique.
const sessionPrefix = chrome.storage.session.get("requestPrefix").then(async (stored) => {
  if (typeof stored.requestPrefix === "string") return stored.requestPrefix;
  const prefix = `${crypto.randomUUID().slice(0, 8)}-`;
  await chrome.storage.session.set({ requestPrefix: prefix });
  return prefix;
});
const join = new RequestJoin({
  queue: (row, tabId) =>
    ready.then(async () => {
      // A row of the page's resource timing alone (source "page") has no id of the browser's.
      if (row.requestId !== undefined) row.requestId = `${await sessionPrefix}${row.requestId}`;
      scrubRequest(row);
      return accept("network_waterfall", row, tabId);
    }),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  inFlight: () => tracker.inFlight(),
  // The page redacted its URLs; the browser's are redacted the same way to compare them.
  matchUrl: (url) => redact.redactUrl(String(url), policy).split("#")[0],
});
const tracker = new RequestTracker({
  idPrefix: "",
  emit: (row, tabId) => join.row(row, tabId),
  // The extension's own requests (its POSTs to gasoline) are not the page's.
  ignore: (d) => typeof d.initiator === "string" && d.initiator.startsWith("chrome-extension://"),
});
listenWebRequest(chrome.webRequest, tracker);

/** The user's URL redaction on every URL of a request row. */
function scrubRequest(row) {
  const url = (u) => (typeof u === "string" ? redact.redactUrl(u, policy) : u);
  row.url = url(row.url);
  row.finalUrl = url(row.finalUrl);
  row.frameUrl = url(row.frameUrl);
  if (row.redirects) for (const r of row.redirects) Object.assign(r, { url: url(r.url), location: url(r.location) });
  for (const key of Object.keys(row)) if (row[key] === undefined) delete row[key];
}

// ---- events from the pages ------------------------------------------------------
const CAPTURE_SWITCH = { tabs: null, extension_logs: null }; // always on

/** Queues one entry; resolves once it is stored. */
function accept(kind, entry, tabId) {
  const switchName = kind in CAPTURE_SWITCH ? CAPTURE_SWITCH[kind] : kind;
  if (switchName && settings.capture[switchName] === false) return undefined;
  if ((kind === "tabs" || kind === "vitals") && !Number.isInteger(tabId)) return undefined;
  const e = normalize(kind, entry, tabId);
  if (!e) return undefined;
  // The page redacted with the lists it had when it built the entry; apply the
  // user's current lists again (the rules are the same, so this only adds).
  redact.redactEntry(kind, e, policy);
  return delivery.add(kind, e, Number.isInteger(tabId) ? tabId : null);
}

// What a content script may send: its page's kinds. `extension_logs` come only
// from this worker (extensionLog above), never from a page.
const PAGE_KINDS = new Set(["logs", "network_waterfall", "network_bodies", "websocket_events", "actions", "tabs", "vitals"]);

/**
 * An event from a page's frame (`frame`: Chrome's frameId and URL of the sender):
 * resource timing joins its request's row, a body gets its request id. A
 * subframe's entries say which frame (frameId, frameUrl); the tab's url, title
 * and vitals are the top frame's alone.
 */
function fromPage(kind, entry, tabId, frame, prefix) {
  if (!PAGE_KINDS.has(kind) || !entry || typeof entry !== "object") return undefined;
  if (frame.id !== 0) {
    if (kind === "tabs" || kind === "vitals") return undefined;
    entry.frameId = frame.id;
    const found = Array.isArray(entry.redacted) ? entry.redacted : [];
    entry.frameUrl = redact.redactUrl(frame.url, policy, found, "frameUrl");
    if (found.length) entry.redacted = found;
  }
  if ((kind === "network_waterfall" || kind === "network_bodies") && typeof entry.url === "string") {
    entry.url = absolute(entry.url, frame.url);
  }
  if (kind === "network_waterfall" && tabId !== null) {
    if (settings.capture.network_waterfall === false) return undefined;
    join.timing(entry, tabId, frame.id);
    return undefined;
  }
  if (kind === "network_bodies") {
    // The id is the browser's, never the page's.
    const body = { method: String(entry.method || "GET").toUpperCase(), url: entry.url, status: entry.status, error: entry.error };
    const id = join.requestIdFor(body, tabId, frame.id);
    entry.requestId = id === undefined ? undefined : `${prefix}${id}`;
  }
  return accept(kind, entry, tabId);
}

function absolute(url, base) {
  try {
    return new URL(url, base).href;
  } catch {
    return url;
  }
}

chrome.runtime.onMessage.addListener((message, sender, reply) => {
  if (!message || typeof message !== "object") return false;
  if (message.type === "events" && Array.isArray(message.events)) {
    // Only content scripts of this extension, in a tab: the tab id is Chrome's, never the page's.
    if (sender.id !== chrome.runtime.id || !sender.tab || !Number.isInteger(sender.tab.id)) return false;
    const tabId = sender.tab.id;
    // Answered once every event is in storage: a page that gets no answer sends again,
    // and what it had already got stored is skipped by its mark.
    const page = typeof message.page === "string" ? message.page : undefined;
    const frame = { id: Number.isInteger(sender.frameId) ? sender.frameId : 0, url: String(sender.url || "") };
    Promise.all([ready, pageMarks.load()]).then(async () => {
      const prefix = await sessionPrefix;
      const stored = [];
      let last;
      for (const event of message.events) {
        if (!event || typeof event !== "object") continue;
        if (Number.isFinite(event.id)) last = Math.max(last ?? event.id, event.id);
        if (pageMarks.seen(page, event.id)) continue;
        try {
          stored.push(fromPage(String(event.kind), event.entry, tabId, frame, prefix));
        } catch (e) {
          console.warn("gasoline: event skipped", e);
        }
      }
      await Promise.all(stored);
      if (last !== undefined) await pageMarks.record(page, last);
      reply({ stored: true });
    });
    return true;
  }
  if (message.type === "dropped") {
    // Events a page could not hand over (its own buffer was full): counted and reported.
    const n = Number(message.count);
    const kind = String(message.kind || "events");
    if (Number.isFinite(n) && n > 0) delivery.dropped(kind, Math.round(n), String(message.reason || "dropped in the page"));
    return false;
  }
  if (message.type === "status") {
    ready.then(() =>
      reply({
        serverUrl: settings.serverUrl,
        queues: Object.fromEntries(
          Object.entries(delivery.stats()).map(([k, q]) => [k, { ...q, dropped: lifetime.dropped[k] || 0 }]),
        ),
        dropped: lifetime.dropped,
        sent: lifetime.sent,
        lastError: lifetime.lastError,
        lastSuccess: lifetime.lastSuccess,
      }),
    );
    return true; // answered asynchronously
  }
  return false;
});
