// The bench floor's service worker: each relay message's events POSTed to the gasoline server, one
// POST per kind, tagged with the tab; nothing queued, stored or retried.
let server = null;
const settings = () =>
  server ? Promise.resolve(server) : chrome.storage.local.get("settings").then((s) => (server = s.settings && s.settings.serverUrl));
chrome.storage.onChanged.addListener(() => (server = null));
chrome.runtime.onMessage.addListener((message, sender) => {
  if (!Array.isArray(message.events)) return false;
  const byKind = {};
  for (const { kind, entry } of message.events) (byKind[kind] ||= []).push({ ...entry, tabId: sender.tab.id, ts: Date.now() });
  settings().then((url) => {
    for (const [kind, entries] of Object.entries(byKind)) {
      fetch(`${url}/events/${kind}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ entries }) }).catch(() => {});
    }
  });
  return false;
});
