// Isolated-world content script, injected at document_start right after the
// page-world scripts (manifest order) and before any page script: creates the
// private MessageChannel, hands one port to page/channel.js by a synchronous
// event on `document` (see there why no page can see or forge it), then
// forwards the page's events to the service worker and pushes the user's
// settings to the page. Only page kinds are forwarded: `extension_logs` come
// from the service worker alone.
(function () {
  "use strict";
  const PORT_EVENT = "gasoline:port";
  const PAGE_KINDS = new Set(["logs", "network_waterfall", "network_bodies", "websocket_events", "actions", "tabs", "vitals"]);
  const MAX_EVENTS = 1000; // per message from the page
  const { port1, port2 } = new MessageChannel();
  let connected = true;

  port1.onmessage = (message) => {
    const data = message.data;
    if (data && !Array.isArray(data) && typeof data === "object" && data.dropped && typeof data.dropped === "object") {
      for (const [kind, count] of Object.entries(data.dropped)) {
        if (!connected || !PAGE_KINDS.has(kind) || !Number.isInteger(count) || count <= 0) continue;
        try {
          const reason = "the page made events faster than they could be built (5,000 waiting)";
          chrome.runtime.sendMessage({ type: "dropped", kind, count, reason }).catch(() => {});
        } catch {
          connected = false;
        }
      }
      return;
    }
    const events = Array.isArray(message.data) ? message.data.slice(0, MAX_EVENTS) : [];
    const valid = events.filter(
      (e) => e && typeof e === "object" && PAGE_KINDS.has(e.kind) && e.entry && typeof e.entry === "object",
    );
    if (!connected || valid.length === 0) return;
    try {
      chrome.runtime.sendMessage({ type: "events", events: valid }).catch(() => {});
    } catch {
      // The extension was reloaded or removed: this page's bridge is dead until it reloads.
      connected = false;
    }
  };

  function pushSettings(settings) {
    const s = settings && typeof settings === "object" ? settings : {};
    port1.postMessage({
      capture: s.capture || {},
      redactHeaders: Array.isArray(s.redactHeaders) ? s.redactHeaders : [],
      redactBodyKeys: Array.isArray(s.redactBodyKeys) ? s.redactBodyKeys : [],
    });
  }

  document.dispatchEvent(new MessageEvent(PORT_EVENT, { ports: [port2] }));

  try {
    chrome.storage.local.get("settings").then(
      (stored) => pushSettings(stored.settings),
      () => pushSettings(undefined),
    );
    chrome.storage.onChanged.addListener((changes, area) => {
      if (area === "local" && changes.settings) pushSettings(changes.settings.newValue);
    });
  } catch {
    connected = false;
  }
})();
