// Isolated-world content script: the bridge between the page-world capture
// (page/capture.js, which cannot reach extension APIs) and the service worker.
// Forwards captured events, and pushes the user's capture settings and
// redaction lists into the page.
(function () {
  "use strict";
  const PAGE = "gasoline-page";
  const CONFIG = "gasoline-config";
  let connected = true;

  window.addEventListener("message", (event) => {
    const data = event.data;
    if (!connected || event.source !== window || !data || data.__gasoline !== PAGE || !Array.isArray(data.events)) {
      return;
    }
    try {
      chrome.runtime.sendMessage({ type: "events", events: data.events }).catch(() => {});
    } catch {
      // The extension was reloaded or removed: this page's bridge is dead until it reloads.
      connected = false;
    }
  });

  function pushConfig(settings) {
    if (!settings) return;
    window.postMessage(
      {
        __gasoline: CONFIG,
        capture: settings.capture,
        redactHeaders: settings.redactHeaders,
        redactBodyKeys: settings.redactBodyKeys,
      },
      "*",
    );
  }

  try {
    chrome.storage.local.get("settings").then((stored) => pushConfig(stored.settings), () => {});
    chrome.storage.onChanged.addListener((changes, area) => {
      if (area === "local" && changes.settings) pushConfig(changes.settings.newValue);
    });
  } catch {
    connected = false;
  }
})();
