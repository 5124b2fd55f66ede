// The service worker: receives events from the content scripts of every tab,
// stamps them with the tab's id, redacts again with the user's lists, and
// delivers them to the gasoline server through per-kind queues.
importScripts(
  "../lib/limits.js",
  "../lib/secrets.js",
  "../lib/redact.js",
  "settings.js",
  "normalize.js",
  "delivery.js",
);

const { redact } = globalThis.__gasoline;
const { withDefaults } = globalThis.GasolineSettings;
const { normalize } = globalThis.GasolineNormalize;
const { Delivery } = globalThis.GasolineDelivery;

let settings = withDefaults(undefined);
let policy = redact.policy(settings.redactHeaders, settings.redactBodyKeys);
const ready = chrome.storage.local.get("settings").then(
  (stored) => applySettings(stored.settings),
  () => {},
);
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && changes.settings) applySettings(changes.settings.newValue);
});

function applySettings(stored) {
  settings = withDefaults(stored);
  policy = redact.policy(settings.redactHeaders, settings.redactBodyKeys);
}

// ---- delivery -----------------------------------------------------------------
const lifetime = { sent: {}, lastError: null, lastSuccess: null };

async function post(kind, entries) {
  let response;
  try {
    response = await fetch(`${settings.serverUrl}/events/${kind}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ entries }),
    });
  } catch (e) {
    lifetime.lastError = `${settings.serverUrl} unreachable: ${e.message}`;
    return { status: 0, error: e.message };
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

const delivery = new Delivery({
  post,
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (handle) => clearTimeout(handle),
  log: extensionLog,
  sent(kind, n) {
    lifetime.sent[kind] = (lifetime.sent[kind] || 0) + n;
    saveStatsSoon();
  },
});

/** The extension's own warnings and errors, stored like any other kind. */
function extensionLog(level, message) {
  (level === "error" ? console.error : level === "warn" ? console.warn : console.info)(`gasoline: ${message}`);
  const entry = normalize("extension_logs", { level, message, source: "extension" }, null);
  delivery.add("extension_logs", entry);
}

let statsTimer = null;
function saveStatsSoon() {
  if (statsTimer) return;
  statsTimer = setTimeout(() => {
    statsTimer = null;
    chrome.storage.local.set({ stats: { sent: lifetime.sent, lastSuccess: lifetime.lastSuccess } });
  }, 1000);
}
chrome.storage.local.get("stats").then((stored) => {
  const sent = (stored.stats && stored.stats.sent) || {};
  for (const [kind, n] of Object.entries(sent)) lifetime.sent[kind] = (lifetime.sent[kind] || 0) + n;
});

// An idle service worker is stopped after 30 s, and its queues with it. While
// events wait for the server, an extension API call now and then keeps it up.
setInterval(() => {
  if (Object.values(delivery.pending()).some((n) => n > 0)) chrome.runtime.getPlatformInfo(() => {});
}, 20000);

// ---- events from the pages ------------------------------------------------------
// What a content script may send: its page's kinds. `extension_logs` come only
// from this worker (extensionLog above), never from a page.
const PAGE_KINDS = new Set(["logs", "network_waterfall", "network_bodies", "websocket_events", "actions", "tabs", "vitals"]);
const ALWAYS_ON = new Set(["tabs"]);

function accept(kind, entry, tabId) {
  if (!PAGE_KINDS.has(kind)) return;
  if (!ALWAYS_ON.has(kind) && settings.capture[kind] === false) return;
  const e = normalize(kind, entry, tabId);
  if (!e) return;
  // The page redacted with the lists it had when it built the entry; apply the
  // user's current lists again (the rules are the same, so this only adds).
  redact.redactEntry(kind, e, policy);
  delivery.add(kind, e);
}

chrome.runtime.onMessage.addListener((message, sender, reply) => {
  if (!message || typeof message !== "object") return false;
  if (message.type === "events" && Array.isArray(message.events)) {
    // Only content scripts of this extension, in a tab: the tab id is Chrome's, never the page's.
    if (sender.id !== chrome.runtime.id || !sender.tab || !Number.isInteger(sender.tab.id)) return false;
    const tabId = sender.tab.id;
    ready.then(() => {
      for (const event of message.events) {
        try {
          accept(String(event.kind), event.entry, tabId);
        } catch (e) {
          console.warn("gasoline: event skipped", e);
        }
      }
    });
    return false;
  }
  if (message.type === "status") {
    ready.then(() =>
      reply({
        serverUrl: settings.serverUrl,
        queues: delivery.stats(),
        sent: lifetime.sent,
        lastError: lifetime.lastError,
        lastSuccess: lifetime.lastSuccess,
      }),
    );
    return true; // answered asynchronously
  }
  return false;
});
