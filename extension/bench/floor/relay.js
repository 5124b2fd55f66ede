// The bench floor's relay (isolated world): hands the page a port, forwards what comes on it to the
// service worker as it comes, unacknowledged; page-direct: POSTs it to the bench site itself
// instead (no service worker on the way), reading the answer as an acknowledgement would.
(() => {
  const level = "FLOOR_LEVEL"; // replaced by run.mjs
  const { port1, port2 } = new MessageChannel();
  port1.onmessage =
    level === "page-direct"
      ? (m) =>
          fetch("/sink", { method: "POST", headers: { "content-type": "text/plain" }, body: JSON.stringify(m.data) })
            .then((r) => r.json())
            .catch(() => {})
      : (m) => chrome.runtime.sendMessage({ events: m.data }).catch(() => {});
  document.dispatchEvent(new MessageEvent("gasoline-floor:port", { ports: [port2] }));
})();
