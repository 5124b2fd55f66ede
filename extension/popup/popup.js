// The popup: is the server reachable; is this page captured, with "Capture
// this site" / "Stop capturing this site"; the deep view of this tab; what this
// tab sent; pause; the sites turned on; counts since install. The tab is the
// active one, or `?tab=<id>` (how the tests open the popup as a page).
import { kinds, scope } from "../background/lib.js";
import { renderSites } from "./sites.js";

const { patternHost } = scope;
const $ = (id) => document.getElementById(id);
const ALL_KINDS = kinds.ALL;
const LABELS = kinds.LABELS;

/** A table row of `cells` (text); `kind`: the kind it counts, as `data-kind`. */
function row(cells, kind) {
  const tr = document.createElement("tr");
  if (kind) tr.dataset.kind = kind;
  for (const text of cells) {
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
    // Another program on the port may answer /health too; it would refuse every batch.
    if (!h || h.service !== "gasoline") return "answers, but is not a Gasoline server";
    return { version: h.version, db: h.db, paired: h.extension_id };
  } catch (e) {
    return `unreachable (${e.message})`;
  }
}

async function currentTabId() {
  const asked = Number(new URLSearchParams(location.search).get("tab"));
  if (Number.isInteger(asked) && asked > 0) return asked;
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  return tab ? tab.id : undefined;
}

const SCOPE_TEXT = {
  default: (host) => `✓ ${host} is captured: a local development origin.`,
  site: (host) => `✓ ${host} is captured: you turned this site on.`,
  paused: (host) => `Capture is paused: nothing from ${host} is recorded (a tab's deep view ends too).`,
  server: () => "This is Gasoline's own page: it is never captured.",
  off: (host) => (host ? `${host} is not captured.` : "Not a web page: nothing here is captured."),
  // In scope, but the page was loaded before its scripts were there: captured from its next load.
  reload: (host, why) =>
    why === "site"
      ? `${host} is captured from its next load: you turned this site on. Reload this page to start.`
      : `${host} is a local development origin, but this page was loaded before Gasoline could run in it: reload it to start capturing it.`,
};

const NO_DEBUGGER =
  "Deep view needs Chrome's debugger permission, which Chrome grants an extension only when it is installed, " +
  "never on request. This build goes without it. For deep view, load the deep build instead: run " +
  "scripts/deep-extension.sh DIR in the Gasoline repository, remove this copy of Gasoline in chrome://extensions, " +
  "then Load unpacked that folder (Chrome warns that it may read and change your data on all websites; it attaches " +
  "only to the tabs you choose here, on captured sites). A copy from another folder has another id: run " +
  "gasoline pair --reset so that the server trusts it.";

/** Whether the tab's page runs Gasoline's relay and it is capturing (content/relay.js answers the ping). */
async function pageIsLive(tab) {
  try {
    const answer = await chrome.tabs.sendMessage(tab, { type: "gasoline:ping" }, { frameId: 0 });
    return Boolean(answer && answer.live);
  } catch {
    return false; // no script of ours there
  }
}

let tabId;
let state;
/** Why the server is not storing what this extension sends (renderStatus), or null. */
let notStoring = null;
// A person's click must not be undone by a render that read the state before it: each click
// counts (`epoch`), a render read under an older count is dropped, and none starts while a
// click's work runs; the click's own render, after its work, draws the state as it now is.
let epoch = 0;
let acting = 0;

/** A listener running `action` (a click's work) as one action, then drawing the tab's state. */
function act(action) {
  return async (...args) => {
    epoch += 1;
    acting += 1;
    try {
      await action(...args);
    } finally {
      acting -= 1;
    }
    if (acting === 0) await renderTab();
  };
}

async function renderTab() {
  if (tabId === undefined) return;
  const readAt = epoch;
  const fresh = await chrome.runtime.sendMessage({ type: "tab", tabId });
  const captured = fresh.scope === "default" || fresh.scope === "site";
  // In scope, but was the page loaded before its scripts were there (a tab open before the
  // extension was installed, or while capture was paused)? Its relay answers only if it runs.
  const live = captured ? await pageIsLive(tabId) : true;
  if (readAt !== epoch || acting > 0) return; // read before a click: that click's render draws it
  state = fresh;
  const host = state.site ? patternHost(state.site) : "";
  const scopeLine = $("page-scope");
  scopeLine.textContent = live ? SCOPE_TEXT[state.scope](host) : SCOPE_TEXT.reload(host, state.scope);
  scopeLine.className = captured && live ? "ok" : "";
  if (captured && live && notStoring) {
    // Captured, but held in the extension's queue (within its bound) until the server takes it.
    scopeLine.textContent += ` Not stored yet: the server ${notStoring} (above); what this page does waits in a queue.`;
    scopeLine.className = "error";
  }
  // What the options switched off is not captured here either.
  const off = captured && live && Array.isArray(state.off) ? state.off : [];
  $("kinds-off").hidden = off.length === 0;
  $("kinds-off").textContent = off.length ? `Not captured, switched off in the options: ${off.map((k) => LABELS[k] || k).join(", ")}.` : "";
  const isSite = state.site && state.sites.includes(state.site);
  $("site-on").hidden = !(state.scope === "off" && state.site);
  $("site-off").hidden = !isSite;
  $("deep-label").hidden = !(state.scope === "default" || state.scope === "site");
  $("deep-more").hidden = $("deep-label").hidden;
  $("deep").checked = state.deep === true;
  // It ended without the person turning it off (the tab left the scope, the banner was closed).
  $("deep-ended").hidden = !(state.deep !== true && typeof state.deepEnded === "string");
  $("deep-ended").textContent = $("deep-ended").hidden
    ? ""
    : `Deep view of this tab ended: ${state.deepEnded}.${$("deep-label").hidden ? "" : " Turn it on again to go on watching it."}`;
  $("pause").textContent = state.paused ? "Resume capture" : "Pause capture";
  const counts = $("tab-counts");
  counts.replaceChildren();
  // The counts are of the last captured page of the tab: a page outside the scope sent nothing;
  // a page captured before a pause keeps what it sent.
  const counted = captured || state.scope === "paused";
  if (counted) for (const kind of ALL_KINDS) if (state.counts[kind]) counts.appendChild(row([LABELS[kind], state.counts[kind]], kind));
  if (!counts.children.length) counts.appendChild(row([counted ? "nothing yet" : "nothing: not captured", ""]));
  renderSites($("sites"), $("no-sites"), state.sites, turnSiteOff);
}

async function renderStatus() {
  const status = await chrome.runtime.sendMessage({ type: "status" });
  const server = $("server");
  const h = await health(status.serverUrl);
  if (typeof h === "string") {
    const port = new URL(status.serverUrl).port; // a server URL always names one (settings.js)
    const start = port === "7890" ? "gasoline serve" : `gasoline serve --port ${port}`;
    server.textContent = `✗ ${status.serverUrl} ${h}. Your agent starts it (gasoline mcp); or run: ${start}`;
    server.className = "error";
    notStoring = h.startsWith("unreachable") ? "is unreachable" : h;
  } else if (h.paired && h.paired !== chrome.runtime.id) {
    // The server refuses this extension's telemetry: it trusts another one. What is captured
    // meanwhile waits in the extension's queue.
    const db = h.db ? ` --db ${/^[\w@%+=:,./-]+$/.test(h.db) ? h.db : `'${String(h.db).replace(/'/g, "'\\''")}'`}` : "";
    server.textContent =
      `✗ ${status.serverUrl} is paired with another extension (${h.paired}) and refuses this one; ` +
      `what is captured waits in a queue until then. Run: gasoline pair --reset${db}, or start it with --extension-id ${chrome.runtime.id}`;
    server.className = "error";
    notStoring = "refuses this extension";
  } else {
    server.textContent = `✓ ${status.serverUrl} — gasoline ${h.version}, database ${h.db}`;
    server.className = "ok";
    notStoring = null;
  }
  const body = $("kinds");
  body.replaceChildren();
  for (const kind of ALL_KINDS) {
    const q = status.queues[kind] || { queued: 0, dropped: 0 };
    const dropped = status.dropped ? status.dropped[kind] || 0 : q.dropped; // since install, and why: extension_logs
    body.appendChild(row([LABELS[kind], status.sent[kind] || 0, q.queued, dropped], kind));
  }
  const error = $("error");
  error.hidden = !status.lastError;
  error.textContent = status.lastError ? `Last problem: ${status.lastError}` : "";
}

// Chrome's own prompt for the site: it must be asked from the click itself.
$("site-on").addEventListener(
  "click",
  act(async () => {
    const pattern = state.site;
    let granted = false;
    // Said first (not awaited: the prompt must come from the click itself), so that the worker acts
    // on Chrome's answer if the prompt closes this popup before the code below runs.
    chrome.runtime.sendMessage({ type: "intent", site: pattern }).catch(() => {});
    try {
      granted = await chrome.permissions.request({ origins: [pattern] });
    } catch (e) {
      $("page-scope").textContent = `Chrome refused: ${e.message}`;
    }
    if (granted) await chrome.runtime.sendMessage({ type: "site", pattern, on: true });
  }),
);
const turnSiteOff = act((pattern) => chrome.runtime.sendMessage({ type: "site", pattern, on: false }));
$("site-off").addEventListener("click", () => turnSiteOff(state.site));
$("pause").addEventListener(
  "click",
  act(() => chrome.runtime.sendMessage({ type: "pause", paused: !state.paused })),
);
$("deep").addEventListener(
  "change",
  act(async () => {
    const on = $("deep").checked;
    const problem = $("deep-error");
    problem.hidden = true;
    // Chrome grants the debugger only at install (it cannot be an optional permission): the
    // shipped extension goes without it, the deep build holds it (scripts/deep-extension.sh).
    if (on && !(await chrome.permissions.contains({ permissions: ["debugger"] }).catch(() => false))) {
      $("deep").checked = false;
      problem.textContent = NO_DEBUGGER;
      problem.hidden = false;
      return;
    }
    const answer = await chrome.runtime.sendMessage({ type: "deep", tabId, on });
    if (answer && answer.error) {
      problem.textContent = answer.error;
      problem.hidden = false;
    }
  }),
);
$("options").addEventListener("click", (e) => {
  e.preventDefault();
  chrome.runtime.openOptionsPage();
});

currentTabId().then((id) => {
  tabId = id;
  renderTab();
  setInterval(() => acting === 0 && renderTab(), 1000);
});
renderStatus();
setInterval(renderStatus, 1000);
