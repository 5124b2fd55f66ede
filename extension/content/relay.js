// Isolated-world content script, injected at document_start right after the
// page-world scripts (registration.js order) and before any page script: creates the
// private MessageChannel, hands one port to page/channel.js by a synchronous
// event on `document` (see there why no page can see or forge it), then
// forwards the page's events to the service worker and pushes the user's
// settings to the page. Only page kinds are forwarded: `extension_logs` come
// from the service worker alone.
//
// Delivery to the worker is acknowledged: the worker answers `{stored: true}`
// once the events are durable, in the server or (when the server is slow) in
// its persisted queues. Until then they stay here and the same message goes
// again (after the worker was stopped mid-message, or did not answer in time),
// one message in flight at a time, each event numbered within this page's life
// (`page`, `id`), so a worker that stored them but whose answer was lost skips
// them, and one that had sent them to the server sends the same batches under
// the same keys. Events that arrive meanwhile join the next message.
//
// A document being unloaded runs no more tasks: neither the port's messages
// nor a reply. So the page also hands its last events over synchronously, in
// its pagehide, through `bridge` (page/channel.js), and what waits here then
// goes to the worker at once, without waiting for answers; the worker stores
// it whether or not the page is still there to hear back.
//
// Capture stops here at once when the person pauses it or turns this frame's
// site off (the worker drops anything that still comes): the page is told
// every capture switch is off, and what waits is given up. Nothing on this
// path needs a secure context (a site on plain http:// is captured like any
// other once it is turned on): no crypto.randomUUID, no crypto.subtle.
// Registry: reads scope.
(function () {
  "use strict";
  const PORT_EVENT = "gasoline:port";
  const BRIDGE_EVENT = "gasoline:bridge";
  const FLUSH_EVENT = "gasoline:flush";
  const SEND_EVENT = "gasoline:send";
  const BRIDGE_ATTRIBUTE = "data-events";
  // Which kinds a page may send is the worker's to check (it drops any other);
  // here a kind is a short name. (Chrome injects a file once per frame, so the
  // relay cannot load lib/kinds.js: the page world already did.)
  const isKind = (k) => typeof k === "string" && /^[a-z_]{1,40}$/.test(k);
  const MAX_EVENTS = 1000; // per message from the page, and per message to the worker
  const MAX_WAITING = 5000; // events held here while the worker does not answer
  const REPLY_TIMEOUT_MS = 20000;
  const MAX_BACKOFF_MS = 10000;
  const page = pageId();
  const { scopeWithDefaults, inScope } = globalThis.__gasoline.scope;
  // This frame's origin (an about:blank or srcdoc frame has its creator's). A sandboxed frame's
  // is opaque ("null"): judged by its URL's, when that is a web page's (the service worker does
  // the same with the sender's URL).
  const here = frameOrigin();
  // null until storage answers (events are held meanwhile), then whether this
  // frame is in scope and capture not paused (events are dropped while not).
  let active = null;
  const { port1, port2 } = new MessageChannel();
  let connected = true;
  let nextId = 0;
  const waiting = []; // {id, kind, entry}, oldest first
  const waitingBy = Object.create(null); // kind → how many of `waiting` are of it
  let inflight = false;
  // The message last sent without an answer: sent again as it was (not with what came since), so
  // that a worker stopped meanwhile makes of it the same batches under the same keys (delivery.js).
  let unanswered = null;
  let backoff = 0;
  let lost = {}; // kind → events this relay had to give up, not yet reported

  port1.onmessage = (message) => {
    const data = message.data;
    if (data && !Array.isArray(data) && typeof data === "object" && data.dropped && typeof data.dropped === "object") {
      // The reason is the relay's own words: the page only says which of two it was.
      const reason =
        data.why === "unbuilt"
          ? "their entries could not be built in the page (a value that threw when read, or a built-in the capture uses that the page replaced)"
          : "the page made events faster than they could be built (5,000 of that kind waiting)";
      for (const [kind, count] of Object.entries(data.dropped)) {
        if (!isKind(kind) || !Number.isInteger(count) || count <= 0) continue;
        report(kind, count, reason);
      }
      return;
    }
    if (active === false) return;
    take(data);
    pump();
  };

  /** Queues the valid events of a batch from the page. */
  function take(data) {
    const events = Array.isArray(data) ? data.slice(0, MAX_EVENTS) : [];
    for (const e of events) {
      if (!e || typeof e !== "object" || !isKind(e.kind) || !e.entry || typeof e.entry !== "object") continue;
      if (waiting.length >= MAX_WAITING) giveUpOne();
      waiting.push({ id: ++nextId, kind: e.kind, entry: e.entry });
      waitingBy[e.kind] = (waitingBy[e.kind] || 0) + 1;
    }
  }

  // The page's batches, handed over synchronously (page/channel.js): a port's message posted just
  // before the next document commits is never delivered. The last ones, in the page's pagehide:
  // everything waiting goes now, since no answer, timer or port message will run in this document again.
  const bridge = document.createElement("span");
  const fromBridge = (then) => () => {
    try {
      const text = bridge.getAttribute(BRIDGE_ATTRIBUTE);
      bridge.removeAttribute(BRIDGE_ATTRIBUTE);
      if (active === false) return;
      if (text) take(JSON.parse(text));
      then();
    } catch {
      // a batch that does not parse is lost, as a page closed meanwhile loses its last events
    }
  };
  bridge.addEventListener(SEND_EVENT, fromBridge(() => pump()));
  bridge.addEventListener(FLUSH_EVENT, fromBridge(() => sendAllNow()));

  /**
   * Sends every waiting event not in the message in flight (the worker has that one) without
   * waiting for an answer, and lets them go: a page kept in the back-forward cache and shown
   * again does not send them twice. A message that went unanswered and waits to go again (the
   * worker stopped mid-message) goes too. Each keeps its number, so the worker stores each once.
   */
  function sendAllNow() {
    if (!connected || !active) return;
    const sent = inflight && unanswered ? unanswered[unanswered.length - 1].id : 0;
    const rest = waiting.filter((e) => e.id > sent);
    for (let i = 0; i < rest.length; i += MAX_EVENTS) {
      try {
        chrome.runtime.sendMessage({ type: "events", page, href: location.href, events: rest.slice(i, i + MAX_EVENTS) }).catch(() => {});
      } catch {
        return;
      }
    }
    for (const e of rest) waitingBy[e.kind]--;
    waiting.length = waiting.length - rest.length; // `rest` is the tail of `waiting` (ids only grow)
  }

  /**
   * Full: the kind with the most events waiting gives up its oldest one that is
   * not in the message in flight, so that one kind's flood (a page logging in a
   * loop while the worker is slow) costs that kind, not the page's requests.
   */
  function giveUpOne() {
    let most;
    for (const kind in waitingBy) if (most === undefined || waitingBy[kind] > waitingBy[most]) most = kind;
    const sent = unanswered ? unanswered[unanswered.length - 1].id : 0;
    // Its oldest that is not an error (a log flood keeps the error logged before it), else its oldest.
    const candidate = (e, spareErrors) => e.id > sent && e.kind === most && !(spareErrors && e.entry.level === "error");
    let i = 0;
    while (i < waiting.length && !candidate(waiting[i], true)) i++;
    if (i === waiting.length) for (i = 0; i < waiting.length && !candidate(waiting[i], false); ) i++;
    if (i === waiting.length) i = 0; // every one of that kind is in flight: the oldest of all goes
    const gone = waiting.splice(i, 1)[0];
    waitingBy[gone.kind]--;
    lost[gone.kind] = (lost[gone.kind] || 0) + 1;
  }

  /** Sends the oldest waiting events, once the previous message is answered. */
  function pump() {
    if (!connected || !active || inflight || waiting.length === 0) return;
    inflight = true;
    if (!unanswered || unanswered[0] !== waiting[0]) unanswered = waiting.slice(0, MAX_EVENTS);
    const batch = unanswered;
    let settled = false;
    let reply;
    const finish = (stored) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      inflight = false;
      if (reply && reply.stop) stop();
      if (stored) {
        // Only what was sent goes: the queue may have lost its oldest meanwhile (MAX_WAITING).
        const last = batch[batch.length - 1].id;
        while (waiting.length && waiting[0].id <= last) waitingBy[waiting.shift().kind]--;
        unanswered = null;
        backoff = 0;
        reportLost();
        pump();
      } else if (connected) {
        backoff = Math.min(Math.max(backoff * 2, 250), MAX_BACKOFF_MS);
        setTimeout(pump, backoff);
      }
    };
    const timer = setTimeout(() => finish(false), REPLY_TIMEOUT_MS);
    try {
      chrome.runtime.sendMessage({ type: "events", page, href: location.href, events: batch }).then(
        (answer) => {
          reply = answer;
          finish(Boolean(answer && answer.stored === true));
        },
        (e) => {
          if (invalidated(e)) connected = false;
          finish(false);
        },
      );
    } catch (e) {
      if (invalidated(e)) connected = false;
      finish(false);
    }
  }

  /** The extension was reloaded or removed: this page's bridge is dead until it reloads. */
  function invalidated(e) {
    return /context invalidated/i.test(String(e && e.message));
  }

  function reportLost() {
    const counts = lost;
    lost = {};
    for (const [kind, count] of Object.entries(counts)) {
      report(kind, count, `the service worker did not take them in time (${MAX_WAITING} waiting in the page)`);
    }
  }

  function report(kind, count, reason) {
    if (!connected) return;
    try {
      chrome.runtime.sendMessage({ type: "dropped", kind, count, reason }).catch(() => {});
    } catch {
      connected = false;
    }
  }

  function frameOrigin() {
    if (globalThis.origin !== "null") return `${globalThis.origin}/`;
    try {
      const url = new URL(globalThis.location.href);
      return url.protocol === "http:" || url.protocol === "https:" ? `${url.origin}/` : "null/";
    } catch {
      return "null/";
    }
  }

  /** A random id for this page's life, from getRandomValues (which, unlike randomUUID, non-secure contexts have). */
  function pageId() {
    const words = crypto.getRandomValues(new Uint32Array(4));
    return Array.from(words, (w) => w.toString(16).padStart(8, "0")).join("-");
  }

  /** Capture off in this frame: the page records nothing more, and what waits is dropped. */
  function stop() {
    active = false;
    waiting.length = 0;
    for (const kind in waitingBy) waitingBy[kind] = 0;
    port1.postMessage({ off: true });
  }


  // The origins of the pages around this frame, its parent's first, the top page's last (Chrome's
  // location.ancestorOrigins; "null" where a page hides its origin from its frames).
  const around = Array.from((globalThis.location && globalThis.location.ancestorOrigins) || [], (o) => `${o}/`);

  /**
   * Whether every page around this frame is in scope: a frame of a local origin that a site outside
   * the scope embeds (directly, or inside a captured page's frame of that site) is that site's to
   * show and gives nothing. A hidden top is left to the worker, which knows the tab's URL; a hidden
   * origin between is taken as outside.
   */
  const aroundInScope = (s, server) =>
    around.every((origin, i) => (origin === "null/" ? i === around.length - 1 : inScope(origin, s, server)));

  /** Applies the stored settings and scope: capture on (with the user's switches) or off here. */
  function apply(settings, scope) {
    const serverUrl = settings && typeof settings === "object" ? settings.serverUrl : undefined;
    const s = scopeWithDefaults(scope);
    const server = serverUrl || "http://127.0.0.1:7890";
    // This frame's origin, and those of the pages around it: a frame in a page outside the scope (a
    // site that embeds http://localhost:3000) gives nothing either.
    const on = inScope(here, s, server) && aroundInScope(s, server);
    if (!on) return stop();
    active = true;
    pushSettings(settings);
    pump();
  }

  function pushSettings(settings) {
    const s = settings && typeof settings === "object" ? settings : {};
    port1.postMessage({
      capture: s.capture || {},
      redactHeaders: Array.isArray(s.redactHeaders) ? s.redactHeaders : [],
      redactBodyKeys: Array.isArray(s.redactBodyKeys) ? s.redactBodyKeys : [],
    });
  }

  document.dispatchEvent(new MessageEvent(PORT_EVENT, { ports: [port2] }));
  document.dispatchEvent(new FocusEvent(BRIDGE_EVENT, { relatedTarget: bridge }));

  // The popup asks whether this page runs Gasoline (one loaded before it was installed does not).
  try {
    chrome.runtime.onMessage.addListener((message, sender, reply) => {
      if (!message || message.type !== "gasoline:ping" || sender.id !== chrome.runtime.id) return false;
      reply({ live: active !== false });
      return false;
    });
  } catch {
    // no listener, no answer: the popup says to reload the page
  }

  try {
    // Every change reads both again; only the newest read applies (reads answer in order).
    let reads = 0;
    const load = () => {
      const n = ++reads;
      chrome.storage.local.get(["settings", "scope"]).then(
        (stored) => n === reads && apply(stored.settings, stored.scope),
        () => n === reads && apply(undefined, undefined),
      );
    };
    load();
    chrome.storage.onChanged.addListener((changes, area) => {
      if (area === "local" && (changes.settings || changes.scope)) load();
    });
  } catch {
    connected = false;
  }
})();
