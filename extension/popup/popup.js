// The popup: is the server reachable, and how many events of each kind went
// out, wait in the queue, or were dropped.
const KINDS = ["logs", "network_waterfall", "network_bodies", "websocket_events", "actions", "extension_logs", "tabs", "vitals"];

function row(kind, sent, queued, dropped) {
  const tr = document.createElement("tr");
  for (const text of [kind, sent, queued, dropped]) {
    const td = document.createElement("td");
    td.textContent = String(text);
    tr.appendChild(td);
  }
  return tr;
}

async function health(serverUrl) {
  try {
    const response = await fetch(`${serverUrl}/health`, { cache: "no-store" });
    if (!response.ok) return `answers HTTP ${response.status}`;
    const h = await response.json();
    return { version: h.version, db: h.db, paired: h.extension_id };
  } catch (e) {
    return `unreachable (${e.message})`;
  }
}

async function render() {
  const status = await chrome.runtime.sendMessage({ type: "status" });
  const server = document.getElementById("server");
  const h = await health(status.serverUrl);
  if (typeof h === "string") {
    server.textContent = `✗ ${status.serverUrl} ${h}. Start it with: gasoline serve`;
    server.className = "error";
  } else if (h.paired && h.paired !== chrome.runtime.id) {
    // The server refuses this extension's telemetry: it trusts another one.
    server.textContent =
      `✗ ${status.serverUrl} is paired with another extension (${h.paired}) and refuses this one. ` +
      `Run: gasoline pair --reset, or start it with --extension-id ${chrome.runtime.id}`;
    server.className = "error";
  } else {
    server.textContent = `✓ ${status.serverUrl} — gasoline ${h.version}, database ${h.db}`;
    server.className = "ok";
  }
  const body = document.getElementById("kinds");
  body.replaceChildren();
  for (const kind of KINDS) {
    const q = status.queues[kind] || { queued: 0, dropped: 0 };
    const dropped = status.dropped ? status.dropped[kind] || 0 : q.dropped; // since install, and why: extension_logs
    body.appendChild(row(kind, status.sent[kind] || 0, q.queued, dropped));
  }
  const error = document.getElementById("error");
  error.hidden = !status.lastError;
  error.textContent = status.lastError ? `Last problem: ${status.lastError}` : "";
}

document.getElementById("options").addEventListener("click", (e) => {
  e.preventDefault();
  chrome.runtime.openOptionsPage();
});
render();
setInterval(render, 1000);
