// The bench floor's relay (isolated world): hands the page a port, forwards what comes on it to the
// service worker as it comes, unacknowledged.
(() => {
  const { port1, port2 } = new MessageChannel();
  port1.onmessage = (m) => chrome.runtime.sendMessage({ events: m.data }).catch(() => {});
  document.dispatchEvent(new MessageEvent("gasoline-floor:port", { ports: [port2] }));
})();
