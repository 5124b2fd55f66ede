// The service worker: keeps the page-side scripts registered for the capture
// scope (local development origins, the sites the person turned on, nothing
// while paused), receives events from the content scripts of in-scope frames,
// stamps them with the tab's id, redacts them with the user's lists, and
// delivers them to the gasoline server through per-kind queues.
//
// A module worker ("type": "module" in the manifest): what each file uses is
// imported by name, so no file depends on a load order of its own.
import { redact, scope as Scope, kinds } from "./lib.js";
import { withDefaults } from "./settings.js";
import { Registrar } from "./registration.js";
import { CaptureState } from "./capture_state.js";
import { normalize } from "./normalize.js";
import { QueueStore } from "./queue_store.js";
import { PageMarks } from "./page_marks.js";
import { Delivery } from "./delivery.js";
import { Deep } from "./deep.js";
import { Network } from "./network.js";
import { SiteIntents } from "./site_intents.js";
import { isDevTooling, isDevToolingFrame } from "./dev_tooling.js";
import { FormPosts } from "./form_posts.js";

let settings = withDefaults(undefined);
let policy = redact.policy(settings.redactHeaders, settings.redactBodyKeys);
// A change heard before the first read answers is newer than what that read saw:
// the read's answer must not take it back (it did: the worker kept the default
// server URL when the settings were saved while it started).
let settingsChanged = false;
/** The capture scope: `{paused, sites}` (chrome.storage.local "scope"). */
let scope = Scope.scopeWithDefaults(undefined);
let scopeChanged = false;
const ready = chrome.storage.local.get(["settings", "scope"]).then(
  (stored) => {
    if (!settingsChanged) applySettings(stored.settings);
    if (!scopeChanged) scope = Scope.scopeWithDefaults(stored.scope);
    scopeApplied();
  },
  () => {},
);
chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== "local") return;
  if (changes.settings) {
    settingsChanged = true;
    applySettings(changes.settings.newValue);
  }
  if (changes.scope) {
    scopeChanged = true;
    scope = Scope.scopeWithDefaults(changes.scope.newValue);
  }
  if (changes.settings || changes.scope) scopeApplied();
});

function applySettings(stored) {
  settings = withDefaults(stored);
  policy = redact.policy(settings.redactHeaders, settings.redactBodyKeys);
}

// ---- delivery -----------------------------------------------------------------
const lifetime = { sent: {}, dropped: {}, lastError: null, lastSuccess: null };
const queueStore = new QueueStore(chrome.storage.local);
/**
 * How far each page's relay got: what it sends again is taken once. In session storage: it must
 * outlive the worker, not the browser (a page's life ends with it), and a write there is no disk
 * write and wakes no content script (every relay hears chrome.storage.local's changes).
 */
const pageMarks = new PageMarks(new QueueStore(chrome.storage.session));
/** Longest a POST may take before it is aborted and retried. */
const POST_TIMEOUT_MS = 15000;

async function post(kind, body, key, signal) {
  let response;
  try {
    response = await fetch(`${settings.serverUrl}/events/${kind}`, {
      method: "POST",
      cache: "no-store", // nothing of ours belongs in the HTTP cache (a POST would otherwise doom an entry there)
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
  let answer;
  if (response.ok) {
    try {
      answer = JSON.parse(await response.text());
    } catch {
      answer = undefined; // not gasoline's answer: delivery sends the batch again
    }
  }
  if (!response.ok) {
    error = await response.text().catch(() => "");
    try {
      error = JSON.parse(error).error || error;
    } catch {
      // not JSON: keep the text
    }
    lifetime.lastError = `HTTP ${response.status}: ${error || response.statusText || "no reason given"}`;
  } else {
    lifetime.lastSuccess = Date.now();
    lifetime.lastError = null; // the popup's "Last problem" is over once the server takes a batch
  }
  return { status: response.status, retryAfterMs: retryAfter > 0 ? retryAfter * 1000 : undefined, error, answer };
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
  { timeoutMs: POST_TIMEOUT_MS, logKind: "extension_logs" },
);
delivery.start();
/**
 * What the e2e reach through worker.evaluate (a module's names are not globals):
 * entries per kind not yet acknowledged, the counts, a site turned on or off as
 * the popup does, and whether the request join still holds rows of a tab.
 */
globalThis.gasolineDebug = {
  pending: () => delivery.pending(),
  lifetime: () => lifetime,
  setSite: (pattern, on) => setSite(pattern, on),
  joining: (tabId) => network.join.has(tabId),
};

/**
 * The extension's own warnings and errors, stored like any other kind; `tabId`: the tab one is
 * about, when one. `local`: said of extension_logs entries themselves (refused, dropped), so only
 * to the worker's console: queued, it would be refused and said again without end.
 */
function extensionLog(level, message, tabId = null, local = false) {
  (level === "error" ? console.error : level === "warn" ? console.warn : console.info)(`gasoline: ${message}`);
  if (local) return undefined;
  const tab = Number.isInteger(tabId) ? tabId : null;
  const entry = normalize("extension_logs", { level, message, source: "extension" }, tab);
  return delivery.add("extension_logs", entry, tab);
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
  if (alarm.name !== RETRY_ALARM) return;
  delivery.start();
  ready.then(reportCapture); // a server started since (or on a new database) learns the scope
});
chrome.alarms.create(RETRY_ALARM, { periodInMinutes: 1 });
chrome.runtime.onStartup.addListener(() => delivery.start());
chrome.runtime.onInstalled.addListener(() => delivery.start()); // also after an update or a reload

// ---- the capture scope ------------------------------------------------------------
const registrar = new Registrar(chrome.scripting);
const captureState = new CaptureState({
  post: (body) =>
    fetch(`${settings.serverUrl}/capture`, { method: "PUT", cache: "no-store", headers: { "content-type": "application/json" }, body }),
  log: extensionLog,
});

/** Whether a frame of this origin (or URL) is captured now. */
function inScope(url) {
  return Scope.inScope(url, scope, settings.serverUrl);
}

/**
 * The scope changed (or the worker started): the page scripts registered for
 * it from the next navigation, frames already open told at their next message,
 * the icon, and the server told what is captured. Resolves once Chrome holds
 * the registration.
 */
function scopeApplied() {
  const registered = register(scope).catch((e) =>
    extensionLog("error", `could not register the page scripts for ${Scope.patterns(scope).join(", ")}: ${e.message}`),
  );
  chrome.action.setBadgeText({ text: scope.paused ? "off" : "" });
  chrome.action.setBadgeBackgroundColor({ color: "#777" });
  chrome.action.setTitle({ title: scope.paused ? "Gasoline: capture paused" : "Gasoline" });
  reportCapture();
  deep.recheck(); // a deep tab now outside the scope is let go
  return registered;
}

/** Chrome's registrations made what scope `s` asks for (none while it is paused). */
function register(s) {
  return registrar.sync(s.paused ? [] : Scope.patterns(s), Scope.serverExclusions(settings.serverUrl));
}

function reportCapture() {
  captureState.report({
    origins: Scope.patterns(scope),
    paused: scope.paused,
    deep_tabs: deep.deepTabs(),
    server_origin: new URL(settings.serverUrl).origin,
  });
}

/**
 * Saves a change of the scope, `change(scope)` → the fields that change; every context hears
 * it through chrome.storage. Changes are applied one after the other, each to the scope the
 * one before left. A change that captures more (a site on, capture resumed) is registered with
 * Chrome before the worker, the popup or storage calls it on, so the next load of what the
 * popup shows on is captured; one that captures less stops at once.
 */
let scopeSaves = Promise.resolve();
function saveScope(change) {
  const run = scopeSaves.then(async () => {
    await ready;
    const next = Scope.scopeWithDefaults({ ...scope, ...change(scope) });
    scopeChanged = true;
    if (Scope.widens(scope, next)) await register(next);
    scope = next;
    await scopeApplied();
    await chrome.storage.local.set({ scope });
  });
  scopeSaves = run.catch(() => {});
  return run;
}

/** A site turned on (its permission granted, by Chrome's prompt in the popup) or off (its permission given back). */
async function setSite(pattern, on) {
  if (Scope.sitePattern(String(pattern).replace("/*", "/")) !== pattern) return { error: `not a site: ${pattern}` };
  await ready;
  if (on) {
    if (!(await chrome.permissions.contains({ origins: [pattern] }))) return { error: `Chrome has not granted ${pattern}` };
    await saveScope((now) => (now.sites.includes(pattern) ? {} : { sites: [...now.sites, pattern] }));
    return { ok: true };
  }
  await saveScope((now) => ({ sites: now.sites.filter((p) => p !== pattern) }));
  // A permission the test build holds as required cannot be removed; the scope alone decides then.
  await chrome.permissions.remove({ origins: [pattern] }).catch(() => false);
  return { ok: true };
}

// "Capture this site" acted on when Chrome grants it, if the prompt closed the popup (site_intents.js).
const intents = new SiteIntents(chrome.storage.session);
chrome.permissions.onAdded.addListener(async ({ origins }) => {
  for (const pattern of await intents.granted(origins || [])) await setSite(pattern, true);
});

// A site whose permission the person took back in chrome://extensions is off.
chrome.permissions.onRemoved.addListener(({ origins }) => {
  const gone = (origins || []).filter((p) => scope.sites.includes(p));
  if (gone.length) saveScope((now) => ({ sites: now.sites.filter((p) => !gone.includes(p)) }));
});

// ---- the deep view (chrome.debugger, the tabs the person chose) and the network kinds ----
const network = new Network({
  accept,
  isDeep: (tabId) => deep.isDeep(tabId),
  inFlight: () => deep.inFlight(),
  redactUrl: (url) => redact.redactUrl(url, policy),
  storage: chrome.storage.session,
  setTimer: (fn, ms) => setTimeout(fn, ms),
  random: () => crypto.randomUUID().replace(/-/g, ""),
});
const deep = new Deep({
  debugger: () => chrome.debugger, // an optional permission: undefined until granted
  storage: chrome.storage.session,
  inScope,
  excluded: (url) => String(url).startsWith(chrome.runtime.getURL("")) || Scope.scopeOf(url, scope, settings.serverUrl) === "server",
  emitRow: (row, tabId, where) => network.fromBrowser(row, tabId, where),
  emitLog: (entry, tabId, where) => network.fromBrowserLog(entry, tabId, where),
  log: extensionLog,
});
deep.listen(); // at the top level, as MV3 wants listeners
deep.onChange(() => ready.then(reportCapture));
ready.then(() => deep.start()); // the tabs chosen before this worker started, if still open and in scope
globalThis.gasolineDeep = deep; // the e2e's hook

// ---- what each tab's page captured (the popup's counts) -----------------------------
// Per tab, for its current page: counted again from zero when its top frame's relay is a new
// page's. In session storage, written at most every 5 s (well within the 30 s of quiet after which
// Chrome stops a worker), so that a worker stopped while idle does not forget them.
const COUNTS_KEY = "tabCounts";
const tabCounts = new Map(); // tabId → {page, counts: {kind: n}}
const countsLoaded = chrome.storage.session.get(COUNTS_KEY).then(
  (stored) => {
    for (const [tabId, v] of Object.entries((stored && stored[COUNTS_KEY]) || {})) {
      if (!tabCounts.has(Number(tabId)) && v && typeof v === "object") tabCounts.set(Number(tabId), v);
    }
  },
  () => {},
);
let countsTimer = null;
function saveCountsSoon() {
  if (countsTimer) return;
  countsTimer = setTimeout(() => {
    countsTimer = null;
    chrome.storage.session.set({ [COUNTS_KEY]: Object.fromEntries(tabCounts) }).catch(() => {});
  }, 5000);
}
function countFor(tabId, kind) {
  if (!Number.isInteger(tabId)) return;
  const tab = tabCounts.get(tabId) || { page: null, counts: {} };
  tab.counts[kind] = (tab.counts[kind] || 0) + 1;
  tabCounts.set(tabId, tab);
  saveCountsSoon();
}
/** The tab's top frame is on a new page (its relay's page id changed): its counts start again. */
function newPage(tabId, page) {
  const tab = tabCounts.get(tabId);
  if (tab && tab.page === page) return;
  tabCounts.set(tabId, { page, counts: {} });
  saveCountsSoon();
}
chrome.tabs.onRemoved.addListener((tabId) => {
  if (tabCounts.delete(tabId)) saveCountsSoon();
});

// ---- events from the pages ------------------------------------------------------
const CAPTURE_SWITCH = { tabs: null, extension_logs: null }; // always on

/**
 * Queues one entry; resolves once it is stored (in the server or in storage).
 * `from` ({page, id}): the relay's number of a page's event, which the relay
 * sends again until this resolves.
 */
function accept(kind, entry, tabId, from) {
  const switchName = kind in CAPTURE_SWITCH ? CAPTURE_SWITCH[kind] : kind;
  if (switchName && settings.capture[switchName] === false) return undefined;
  if ((kind === "tabs" || kind === "vitals") && !Number.isInteger(tabId)) return undefined;
  const e = normalize(kind, entry, tabId);
  if (!e || isDevTooling(kind, e)) return undefined;
  // The one redaction of every entry, with the user's current lists, before it is queued, stored or
  // sent: here, where the page cannot reach (a page's own scripts may replace any built-in there).
  redact.redactEntry(kind, e, policy);
  countFor(tabId, kind);
  return delivery.add(kind, e, Number.isInteger(tabId) ? tabId : null, from);
}

// The documents a form POST loaded (a page-side document row has no method of its own).
const formPosts = new FormPosts();
chrome.tabs.onRemoved.addListener((tabId) => {
  formPosts.closed(tabId);
  deep.remember(tabId, undefined); // why a closed tab's deep view ended is of no more use
});

// What a content script may send: its page's kinds. `extension_logs` come only
// from this worker (extensionLog above), never from a page.
const PAGE_KINDS = new Set(kinds.PAGE_KINDS);

/**
 * An event from a page's frame (`frame`: Chrome's frameId and URL of the sender):
 * resource timing joins its request's row, a body gets its request id. A
 * subframe's entries say which frame (frameId, frameUrl); the tab's url, title
 * and vitals are the top frame's alone.
 */
function fromPage(kind, entry, tabId, frame, from) {
  if (!PAGE_KINDS.has(kind) || !entry || typeof entry !== "object") return undefined;
  // A request's entry says where its page was when it began, if it has moved on since (a story
  // frame's replaceState to the next story while the request was under way): its frame's URL then.
  const began = (kind === "network_waterfall" || kind === "network_bodies") && typeof entry.pageUrl === "string" ? frameUrlNow(entry.pageUrl, frame.url) : frame.now;
  if (kind === "network_bodies") delete entry.pageUrl;
  if (frame.id !== 0) {
    if (kind === "tabs" || kind === "vitals" || isDevToolingFrame(frame.url)) return undefined;
    entry.frameId = frame.id;
    putUrl(entry, "frameUrl", began);
  }
  if (kind === "actions") formPosts.submitted(tabId, frame.id, entry, from && from.page);
  if (kind === "network_waterfall" || kind === "network_bodies") {
    if (typeof entry.url === "string") entry.url = absolute(entry.url, frame.now);
    if (kind === "network_waterfall") {
      formPosts.documentRow(tabId, frame.id, entry, from && from.page);
      withPageUrl(entry, frame);
    }
    if (settings.capture[kind] === false) return undefined;
    if (kind === "network_waterfall" && isFrameTiming(entry) && inScope(entry.url)) return undefined;
    // In a deep tab a page row joins the browser's row (stored later, by the join), a body gets its requestId.
    entry = network.fromPage(kind, entry, tabId, frame);
    if (entry === undefined) return undefined;
  }
  return accept(kind, entry, tabId, from);
}

/**
 * A failed request's call site (`location`) is in the code of the page that made the request: the
 * server maps it through that page's scripts, so the row names the page (`pageUrl`): the page's URL
 * at the call, where it is of the origin Chrome names for the sender (a single-page app may have
 * moved on by the time the row is sent), else as Chrome names the sender.
 */
function withPageUrl(entry, frame) {
  const said = entry.pageUrl;
  delete entry.pageUrl;
  if (typeof entry.location === "string") putUrl(entry, "pageUrl", typeof said === "string" ? frameUrlNow(said, frame.url) : frame.now);
}

/** `entry[field] = url`, redacted, what was redacted named in the entry's `redacted`. */
function putUrl(entry, field, url) {
  const found = Array.isArray(entry.redacted) ? entry.redacted : [];
  entry[field] = redact.redactUrl(url, policy, found, field);
  if (found.length) entry.redacted = found;
}

/**
 * The frame's URL as its relay read it when it sent (`href`), where it is of the origin Chrome
 * names for the sender: Chrome's `sender.url` stays the document's first URL, so a frame that
 * routes with pushState (Storybook's story frame going from one story to the next) would be named
 * by the page it has left. Chrome's URL otherwise.
 */
function frameUrlNow(href, given) {
  if (typeof href !== "string" || href === given) return given;
  try {
    const now = new URL(href);
    return now.origin !== "null" && now.origin === new URL(given).origin ? now.href : given;
  } catch {
    return given;
  }
}

/**
 * A parent's Resource Timing of a frame's document (`<iframe>`, `<frame>`): where the frame is in
 * the scope, its own document reports the same request as its row, with its status and times, so
 * the parent's would be a second row for one request. Outside the scope it is the only one.
 */
function isFrameTiming(entry) {
  return entry.source === "page" && typeof entry.url === "string" && (entry.initiatorType === "iframe" || entry.initiatorType === "frame");
}

function absolute(url, base) {
  if (url.startsWith("https://") || url.startsWith("http://")) return url; // the page made it absolute
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
    // A frame outside the scope (a site just turned off, capture paused) gives
    // nothing more: its events are dropped and its relay told to stop.
    const origin = sender.origin && sender.origin !== "null" ? `${sender.origin}/` : String(sender.url || "");
    // Answered once every event is stored (by the server, or in storage when the server is slow):
    // a page that gets no answer sends again, and what it had already got stored is skipped by
    // its mark (or, sent straight to the server, makes the same batch under the same key).
    const page = typeof message.page === "string" ? message.page : undefined;
    const url = String(sender.url || "");
    const frame = { id: Number.isInteger(sender.frameId) ? sender.frameId : 0, url, now: frameUrlNow(message.href, url) };
    Promise.all([ready, pageMarks.load(), network.ready, countsLoaded]).then(async () => {
      if (!inScope(origin)) return reply({ stored: true, stop: true });
      // A frame of a page outside the scope (a site embedding http://localhost:3000) gives nothing
      // either: Chrome's match patterns see the frame's own URL only. Chrome gives the tab's URL
      // only where the extension holds the host's permission, so no URL means outside the scope.
      const top = sender.tab.url || "";
      if (frame.id !== 0 && !(top && inScope(top))) return reply({ stored: true, stop: true });
      if (frame.id === 0 && page) newPage(tabId, page);
      network.sawFrame(tabId, frame);
      const stored = [];
      let first;
      let last;
      for (const event of message.events) {
        if (!event || typeof event !== "object") continue;
        if (Number.isFinite(event.id)) {
          first = Math.min(first ?? event.id, event.id);
          last = Math.max(last ?? event.id, event.id);
        }
        if (pageMarks.seen(page, event.id)) continue;
        try {
          stored.push(fromPage(String(event.kind), event.entry, tabId, frame, { page, id: event.id }));
        } catch (e) {
          console.warn("gasoline: event skipped", e);
        }
      }
      await Promise.all(stored);
      if (last !== undefined) await pageMarks.record(page, first, last);
      reply({ stored: true });
    });
    return true;
  }
  if (message.type === "dropped") {
    // Events a page could not hand over (its own buffer was full): counted and reported.
    const n = Number(message.count);
    const kind = String(message.kind || "events");
    if (Number.isFinite(n) && n > 0) delivery.dropped(kind, Math.round(n), String(message.reason || "dropped in the page"), sender.tab && sender.tab.id);
    return false;
  }
  // From the popup and the options page (extension pages only).
  if (sender.id !== chrome.runtime.id || !String(sender.url || "").startsWith(chrome.runtime.getURL(""))) return false;
  if (message.type === "site") {
    intents.forget(String(message.pattern));
    setSite(String(message.pattern), message.on === true).then(reply, (e) => reply({ error: e.message }));
    return true;
  }
  if (message.type === "intent") {
    // The popup is about to ask Chrome's prompt (see intents above).
    if (typeof message.site === "string" && message.site.length <= 300) intents.ask(message.site);
    return false;
  }
  if (message.type === "deep") {
    // The popup's "Deep view of this tab" (in the deep build, which holds the debugger permission).
    const tabId = Number(message.tabId);
    (message.on === true ? deep.attach(tabId) : deep.detach(tabId, "turned off")).then(
      (answer) => reply(answer),
      (e) => reply({ error: e.message }),
    );
    return true;
  }
  if (message.type === "pause") {
    saveScope(() => ({ paused: message.paused === true })).then(() => reply({ ok: true }), (e) => reply({ error: e.message }));
    return true;
  }
  if (message.type === "tab") {
    // What the popup shows of one tab: in scope or not, and what it sent.
    Promise.all([ready, countsLoaded]).then(async () => {
      const tab = await chrome.tabs.get(Number(message.tabId)).catch(() => null);
      const isDeep = deep.isDeep(Number(message.tabId));
      const url = tab ? tab.url || tab.pendingUrl || "" : "";
      reply({
        url,
        site: Scope.sitePattern(url),
        scope: Scope.scopeOf(url, scope, settings.serverUrl),
        paused: scope.paused,
        sites: scope.sites,
        counts: (tabCounts.get(Number(message.tabId)) || { counts: {} }).counts,
        deep: isDeep,
        deepEnded: isDeep ? undefined : await deep.endedWhy(Number(message.tabId)),
        off: Object.keys(settings.capture).filter((kind) => settings.capture[kind] === false),
      });
    });
    return true;
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
