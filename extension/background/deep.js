// Deep view of a tab: the browser's own account of its requests and its
// console messages, through chrome.debugger, for the tabs the person chose.
// Owns the debugger sessions; deep_requests.js turns their events into rows.
//
// What it takes, measured on Chromium 156:
//   - chrome.debugger.attach({tabId}, "1.3") needs no user gesture and works
//     headless; headed Chrome shows its "started debugging this browser" banner.
//   - The tab's session sees none of a worker's requests, nor an out-of-process
//     (cross-site) iframe's: Target.setAutoAttach {autoAttach, flatten,
//     waitForDebuggerOnStart} gives each its own session (`sessionId` in
//     onEvent's source), paused until Runtime.runIfWaitingForDebugger. Without
//     the pause a worker's first requests were missed (2 runs of 18); measured
//     again without any other client (Playwright holds new workers itself;
//     test/e2e/worker_race.mjs), a worker's first fetch was seen without the
//     pause in 7 runs of 8 for a blob: worker, 4 of 8 for a data: one, 6 of 8
//     for a module one (9, 9 and 10 of 10 on a busier machine: it is a race),
//     and with it in every run for each: a blob: or data: worker has no
//     script to fetch, so it runs at once. A worker started by a worker is
//     auto-attached under its parent's session (which is why each worker's
//     session auto-attaches too).
//   - A service worker paused on start answers no command before it is resumed
//     (Network.enable was never answered), so a child's commands go out
//     together, the resume last, none waiting for another's answer.
//   - The cost: the 300-fetch page ~+80% in the deep tab; other tabs +11–16%
//     while it is busy. Hence one tab at a time by choice, never by default.
//   - `debugger` ignores host permissions: this module refuses a tab outside
//     the capture scope (`inScope`) or one that must never be watched
//     (`excluded`: the extension's pages, the Gasoline server), detaches when
//     the tab's top frame goes out of the scope, and leaves the sessions of
//     frames and workers outside the scope without Network or Log (their rows
//     and messages are dropped by deep_requests.js in any case).
//   - A shared worker is no target of the tab's: the tab's session only shows
//     its script being requested (type Script, documentURL its own URL, frameId
//     the frame that started it), and auto-attach never brings it (Chromium's
//     frame auto-attacher has dedicated workers, frames and service workers
//     only; Target.getTargets / attachToTarget / setDiscoverTargets in a tab's
//     session answer "Not allowed" to an extension). chrome.debugger.getTargets
//     lists it (type "worker", no tabId) as soon as its script is requested, and
//     attach({targetId}) works, so it is attached then, under the tab whose
//     session saw that request, and its events are that tab's. Nothing can pause
//     it at its first start (the tab's Fetch domain never sees its script
//     either, so its response cannot be held): in Chromium 156 without any
//     other client, that attach came before its first fetch in 5 runs of 10
//     (9 of 10 on a busier machine; worker_race.mjs), so a request made as
//     it starts may be missed (or only its end seen: no method, no start);
//     every later one is recorded. Under Playwright, whose browser-wide
//     auto-attach holds every new worker until it resumes it, its first fetch
//     was seen whole in 9 runs of 10 and only its end in the 10th: the e2e
//     understates that race. When it ends (its last page went) and starts
//     again, Chromium keeps its target and holds it at its start while a
//     session is attached (Inspector.targetCrashed, then
//     Inspector.targetReloadedAfterCrash on it): that event, or its script
//     requested again in a deep tab, is the sign to let it run
//     (Runtime.runIfWaitingForDebugger, answered once it has started), so a
//     page that is not deep is never left with a held worker, and nothing of
//     it is missed. Its rows stay the tab's that first saw it. What its first
//     start fetched before the attach is read back from its own Resource
//     Timing buffer once its Network domain is on (`recoverShared`): rows
//     with `fromTiming: true`, each request its events did not show, once.
//   - onDetach: the person closed the banner ("canceled_by_user"), DevTools or
//     another client took the tab, or the tab closed ("target_closed").
// The chosen tab ids are kept in chrome.storage.session, so a service worker
// started again re-attaches those still open and in scope.
// Everything chrome.* is injected: the unit tests drive it with a fake debugger.
import { DeepRequests, WORKERS } from "./deep_requests.js";

export const STORAGE_KEY = "deepTabs";
// Why a tab's deep view ended without the person turning it off (tabId → why), for the popup.
export const ENDED_KEY = "deepEnded";
const PROTOCOL = "1.3";
const AUTO_ATTACH = { autoAttach: true, waitForDebuggerOnStart: true, flatten: true };
// No response bodies kept for Network.getResponseBody (never asked) and no
// request bodies in requestWillBeSent: the page's wrappers record those.
const NETWORK = { maxTotalBufferSize: 0, maxResourceBufferSize: 0, maxPostDataSize: 0 };
// A worker's own account of what it fetched so far (its Resource Timing buffer).
const RESOURCE_TIMING = `({ timeOrigin: performance.timeOrigin, entries: performance.getEntriesByType("resource").map((e) => ({
  url: e.name, initiatorType: e.initiatorType, startTime: e.startTime, responseStart: e.responseStart, responseEnd: e.responseEnd,
  responseStatus: e.responseStatus, transferSize: e.transferSize, decodedBodySize: e.decodedBodySize })) })`;
// Whether a running worker is a shared worker: getTargets lists service workers alike ("worker", no tab).
const IS_SHARED = `typeof SharedWorkerGlobalScope === "function" && self instanceof SharedWorkerGlobalScope`;
const LEFT_SCOPE = "the tab went to a site outside the capture scope";
const SCOPE_CHANGED = "the tab's site left the capture scope (turned off, or capture paused)";
const REASONS = {
  canceled_by_user: "the debugging banner was closed, or DevTools took the tab",
  target_closed: "the tab was closed",
};

export class Deep {
  /**
   * @param {object} io
   * @param {() => object|undefined} io.debugger  chrome.debugger, undefined while the permission is not granted
   * @param {{get: Function, set: Function}} io.storage  chrome.storage.session
   * @param {(url: string) => boolean} io.inScope
   * @param {(url: string) => boolean} io.excluded  never attach (the extension's pages, the server's origin)
   * @param {(row: object, tabId: number|null, where: object) => void} io.emitRow
   * @param {(entry: object, tabId: number|null, where: object) => void} io.emitLog
   * @param {(level: string, message: string) => void} io.log
   */
  constructor(io) {
    this.io = io;
    this.tabs = new Map(); // tabId → { tracker, children: Map(sessionId → {enabled, type}) }
    this.pending = new Map(); // tabId → the attach under way
    this.listeners = [];
    this.serviceWorkers = new Map(); // service worker target id → tabId whose session records it
    this.sharedWorkers = new Map(); // shared worker target id → { tabId, sessionId } (attached by target id)
    this.sharedPending = new Set(); // shared worker target ids being attached
    this.listening = false;
  }

  /** Listens (once the permission exists) and re-attaches the tabs chosen before this worker started. */
  async start() {
    this.listen();
    await this.dropOrphans();
    let stored;
    try {
      stored = await this.io.storage.get(STORAGE_KEY);
    } catch {
      return;
    }
    const ids = Array.isArray(stored && stored[STORAGE_KEY]) ? stored[STORAGE_KEY].filter(Number.isInteger) : [];
    for (const tabId of ids) {
      const r = await this.attach(tabId, { restoring: true });
      if (r.error) this.io.log("info", `deep view of tab ${tabId} not restored: ${r.error}`);
    }
    if (ids.length) await this.save();
  }

  /**
   * Sessions this extension still holds on shared workers from before this service worker
   * started (nothing records them now): let go, since one would hold the worker at its next start.
   * Detaching another client's session fails, and is left so.
   */
  async dropOrphans() {
    const dbg = this.io.debugger();
    if (!dbg || typeof dbg.getTargets !== "function") return;
    let targets;
    try {
      targets = await dbg.getTargets();
    } catch {
      return;
    }
    for (const t of targets) {
      if (t.type !== "worker" || Number.isInteger(t.tabId) || !t.attached || this.sharedWorkers.has(t.id)) continue;
      await dbg.detach({ targetId: t.id }).catch(() => {});
    }
  }

  listen() {
    const dbg = this.io.debugger();
    if (this.listening || !dbg) return;
    this.listening = true;
    dbg.onEvent.addListener((source, method, params) => this.onEvent(source, method, params));
    dbg.onDetach.addListener((source, reason) => this.onDetach(source, reason));
  }

  isDeep(tabId) {
    return this.tabs.has(tabId);
  }

  deepTabs() {
    return [...this.tabs.keys()];
  }

  /** `cb({tabId, deep, reason})` on every attach and detach. */
  onChange(cb) {
    this.listeners.push(cb);
  }

  /** Requests under way in every deep tab (request_join.js offers them to bodies). */
  *inFlight() {
    for (const t of this.tabs.values()) yield* t.tracker.inFlight();
  }

  /** Starts the deep view of a tab: `{ok: true}` or `{error}`. */
  attach(tabId, options = {}) {
    if (this.tabs.has(tabId)) return Promise.resolve({ ok: true });
    if (this.pending.has(tabId)) return this.pending.get(tabId);
    const p = this.attachNow(tabId, options).finally(() => this.pending.delete(tabId));
    this.pending.set(tabId, p);
    return p;
  }

  async attachNow(tabId, { restoring = false } = {}) {
    const dbg = this.io.debugger();
    if (!dbg) return { error: "the debugger permission is not granted" };
    this.listen();
    const target = await this.pageTarget(tabId);
    if (!target) return { error: `no tab ${tabId}` };
    if (this.io.excluded(target.url)) return { error: `${originOf(target.url)} is never watched` };
    if (!this.io.inScope(target.url)) return { error: `${originOf(target.url)} is outside the capture scope` };
    const tracker = new DeepRequests({
      tabId,
      mainFrame: target.id,
      begun: Date.now(),
      inScope: (url) => this.io.inScope(url) && !this.io.excluded(url),
      emitRow: (row, id, where) => this.io.emitRow(row, id, where),
      emitLog: (entry, id, where) => this.io.emitLog(entry, id, where),
      leftScope: () => this.end(tabId, LEFT_SCOPE),
    });
    tracker.seedFrame(target.id, undefined, target.url);
    const state = { tracker, children: new Map() };
    try {
      await this.attachDebugger(dbg, tabId);
    } catch (e) {
      return { error: `could not attach: ${e.message}` };
    }
    // Registered before the domains are enabled: their first events follow at once.
    this.tabs.set(tabId, state);
    const debuggee = { tabId };
    const results = await Promise.allSettled([
      dbg.sendCommand(debuggee, "Page.enable"),
      dbg.sendCommand(debuggee, "Network.enable", NETWORK),
      dbg.sendCommand(debuggee, "Log.enable"),
      dbg.sendCommand(debuggee, "Target.setAutoAttach", AUTO_ATTACH),
    ]);
    const failed = results.find((r) => r.status === "rejected");
    if (failed) {
      this.tabs.delete(tabId);
      await dbg.detach(debuggee).catch(() => {});
      return { error: `could not start the deep view: ${failed.reason && failed.reason.message}` };
    }
    if (this.tabs.get(tabId) !== state) return { error: "detached while starting" };
    await this.save();
    await this.remember(tabId, undefined);
    this.changed(tabId, true, restoring ? "restored after the service worker started again" : "attached");
    this.adoptShared(tabId, state, target.url);
    return { ok: true };
  }

  /** attach, and once more after letting go of a session this extension still held from an earlier worker. */
  async attachDebugger(dbg, tabId) {
    try {
      await dbg.attach({ tabId }, PROTOCOL);
    } catch (e) {
      if (!/already attached/i.test(String(e && e.message))) throw e;
      // Only this extension's own session can be detached by it; another client's stays and the retry fails.
      await dbg.detach({ tabId }).catch(() => {});
      await dbg.attach({ tabId }, PROTOCOL);
    }
  }

  async pageTarget(tabId) {
    let targets;
    try {
      targets = await this.io.debugger().getTargets();
    } catch {
      return undefined;
    }
    return targets.find((t) => t.tabId === tabId && t.type === "page");
  }

  /**
   * Ends the deep view of a tab without the person asking (it left the scope): said in the
   * extension's log and kept for the popup, in words that name no site outside the scope.
   */
  async end(tabId, why) {
    if (!this.tabs.has(tabId)) return;
    await this.detach(tabId, why);
    this.io.log("warn", `deep view of tab ${tabId} ended: ${why}`);
    await this.remember(tabId, why);
  }

  /** Why the deep view of `tabId` last ended without the person turning it off, or undefined. */
  async endedWhy(tabId) {
    const ended = await this.endedAll();
    return typeof ended[tabId] === "string" ? ended[tabId] : undefined;
  }

  async endedAll() {
    try {
      const stored = await this.io.storage.get(ENDED_KEY);
      const ended = stored && stored[ENDED_KEY];
      return ended && typeof ended === "object" ? ended : {};
    } catch {
      return {};
    }
  }

  /** Keeps (or, with no `why`, forgets) why a tab's deep view ended; chrome.storage.session outlives this worker. */
  async remember(tabId, why) {
    const ended = await this.endedAll();
    if (why === undefined && !(tabId in ended)) return;
    if (why === undefined) delete ended[tabId];
    else ended[tabId] = why;
    await Promise.resolve(this.io.storage.set({ [ENDED_KEY]: ended })).catch(() => {});
  }

  /** Ends the deep view of a tab (by the person, or because it left the scope). */
  async detach(tabId, reason = "detached") {
    if (this.pending.has(tabId)) await this.pending.get(tabId).catch(() => {});
    const state = this.tabs.get(tabId);
    if (!state) return { ok: true };
    this.forget(tabId);
    const dbg = this.io.debugger();
    if (dbg) await dbg.detach({ tabId }).catch(() => {});
    await this.save();
    this.changed(tabId, false, reason);
    return { ok: true };
  }

  /** The scope changed: a deep tab now outside it is let go. */
  async recheck() {
    for (const tabId of this.deepTabs()) {
      const target = await this.pageTarget(tabId);
      if (!target) continue; // closed: onDetach says so
      if (!this.io.inScope(target.url) || this.io.excluded(target.url)) {
        await this.end(tabId, SCOPE_CHANGED);
      }
    }
  }

  forget(tabId) {
    this.tabs.delete(tabId);
    for (const [id, owner] of this.serviceWorkers) if (owner === tabId) this.serviceWorkers.delete(id);
    for (const [targetId, shared] of this.sharedWorkers) {
      if (shared.tabId !== tabId) continue;
      this.sharedWorkers.delete(targetId);
      const dbg = this.io.debugger();
      if (dbg) dbg.detach({ targetId }).catch(() => {}); // its tab's view ended: so does its own
    }
  }

  onDetach(source, reason) {
    if (source.tabId === undefined && source.targetId !== undefined) {
      // A shared worker attached by its target id ended (or another client took it).
      const shared = this.sharedWorkers.get(source.targetId);
      if (!shared) return;
      this.sharedWorkers.delete(source.targetId);
      const state = this.tabs.get(shared.tabId);
      if (state) state.tracker.event("", "Target.detachedFromTarget", { sessionId: shared.sessionId, targetId: source.targetId });
      return;
    }
    if (!this.tabs.has(source.tabId)) return;
    this.forget(source.tabId);
    this.save();
    const why = REASONS[reason] || String(reason);
    this.io.log(reason === "target_closed" ? "info" : "warn", `deep view of tab ${source.tabId} ended: ${why}`);
    if (reason !== "target_closed") this.remember(source.tabId, why);
    this.changed(source.tabId, false, why);
  }

  onEvent(source, method, params) {
    let tabId = source.tabId;
    let sessionId = source.sessionId;
    let root = { tabId };
    if (tabId === undefined) {
      // A shared worker's own session (attached by its target id), or a session under it.
      const shared = source.targetId !== undefined ? this.sharedWorkers.get(source.targetId) : undefined;
      if (!shared) {
        // A session of an earlier service worker's, on a worker held at its start: let it run, and go.
        if (method === "Inspector.targetReloadedAfterCrash" && source.targetId !== undefined && !this.sharedPending.has(source.targetId)) {
          const dbg = this.io.debugger();
          dbg.sendCommand({ targetId: source.targetId }, "Runtime.runIfWaitingForDebugger").catch(() => {});
          dbg.detach({ targetId: source.targetId }).catch(() => {});
        }
        return;
      }
      tabId = shared.tabId;
      sessionId = sessionId || shared.sessionId;
      root = { targetId: source.targetId };
      // It ended and starts again, held for our session (whichever page, deep or not, started it).
      if (method === "Inspector.targetReloadedAfterCrash" && !source.sessionId) this.startShared(this.io.debugger(), source.targetId);
    }
    const state = this.tabs.get(tabId);
    if (!state) return;
    state.tracker.event(sessionId, method, params);
    if (method === "Target.attachedToTarget") this.child(root, tabId, state, params || {});
    else if (method === "Target.targetInfoChanged") this.childChanged(root, state, params || {});
    else if (method === "Target.detachedFromTarget") state.children.delete(params && params.sessionId);
    else if (method === "Network.requestWillBeSent") this.sharedWorkerScript(tabId, state, params || {});
    else if (method === "Page.frameNavigated" && root.tabId !== undefined && !sessionId) {
      const frame = (params && params.frame) || {};
      if (!frame.parentId && typeof frame.url === "string") this.adoptShared(tabId, state, frame.url);
    }
  }

  /**
   * Shared workers of the page's origin that are already running (another tab started them, or
   * this one before its deep view began): a page that connects to one requests no script, so no
   * request of the tab's shows it. Looked for when the deep view starts and at each page its top
   * frame loads; each is attached under the tab once it says it is a shared worker (a service
   * worker is listed alike, and is auto-attach's). What it fetched before is not read back: it
   * ran before the person asked for this view.
   */
  adoptShared(tabId, state, pageUrl) {
    const dbg = this.io.debugger();
    const origin = originOf(pageUrl);
    if (!dbg || typeof dbg.getTargets !== "function" || !origin) return;
    const taken = (id) => this.sharedWorkers.has(id) || this.elsewhere(id);
    const adopt = async () => {
      const running = (await dbg.getTargets()).filter(
        (t) => t.type === "worker" && !Number.isInteger(t.tabId) && originOf(t.url) === origin && this.io.inScope(t.url) && !this.io.excluded(t.url),
      );
      for (const t of running) {
        if (taken(t.id) || this.tabs.get(tabId) !== state) continue;
        this.sharedPending.add(t.id);
        let shared = false;
        try {
          await dbg.attach({ targetId: t.id }, PROTOCOL);
          const answer = await dbg.sendCommand({ targetId: t.id }, "Runtime.evaluate", { expression: IS_SHARED, returnByValue: true });
          shared = answer && answer.result && answer.result.value === true;
        } catch {
          shared = false; // gone meanwhile, or another client's
        } finally {
          this.sharedPending.delete(t.id);
        }
        if (!shared || this.tabs.get(tabId) !== state || this.sharedWorkers.has(t.id)) {
          await dbg.detach({ targetId: t.id }).catch(() => {});
          continue;
        }
        // Its rows are of the tab's top frame: which of the tab's frames connected to it is not shown.
        this.enlistShared(dbg, tabId, state, t.id, t.url, state.tracker.io.mainFrame);
      }
    };
    adopt().catch((e) => this.io.log("info", `the running shared workers of tab ${tabId} are not recorded: ${e && e.message}`));
  }

  /**
   * A worker's script requested in the tab (its document is its own URL): when it is a shared
   * worker (listed by getTargets as a "worker" of no tab; dedicated workers are not listed, and
   * service workers come through auto-attach), it is attached by its target id at once.
   */
  sharedWorkerScript(tabId, state, params) {
    const request = params.request || {};
    if (params.type !== "Script" || params.redirectResponse || !request.url || params.documentURL !== request.url) return;
    const url = request.url;
    if (!this.io.inScope(url) || this.io.excluded(url)) return;
    const dbg = this.io.debugger();
    if (!dbg || typeof dbg.getTargets !== "function") return;
    this.attachShared(dbg, tabId, state, url, params.frameId).catch((e) => {
      this.io.log("info", `the shared worker ${url} of tab ${tabId} is not recorded: ${e && e.message}`);
    });
  }

  /** Whether a worker target is being attached as a shared worker, or is a service worker's or a child's of a deep tab. */
  elsewhere(id) {
    return this.sharedPending.has(id) || this.serviceWorkers.has(id) || this.isChild(id);
  }

  /**
   * A shared worker attached by its target id, recorded under the tab (its rows in the frame
   * `frameId`), its domains enabled and its start let run; its session's id.
   */
  enlistShared(dbg, tabId, state, targetId, url, frameId) {
    const sessionId = `shared:${targetId}`;
    this.sharedWorkers.set(targetId, { tabId, sessionId });
    state.tracker.event("", "Target.attachedToTarget", {
      sessionId,
      targetInfo: { targetId, type: "shared_worker", url, parentFrameId: frameId },
    });
    this.startShared(dbg, targetId);
    return sessionId;
  }

  async attachShared(dbg, tabId, state, url, frameId) {
    const candidates = (await dbg.getTargets()).filter((t) => t.type === "worker" && !Number.isInteger(t.tabId) && t.url === url && !this.elsewhere(t.id));
    const target = candidates.find((t) => !this.sharedWorkers.has(t.id)) || candidates[0];
    if (!target || this.elsewhere(target.id) || this.tabs.get(tabId) !== state) return;
    const targetId = target.id;
    if (this.sharedWorkers.has(targetId)) {
      // Ours already: it ended (its last page went) and starts again under the same target, which
      // Chromium then holds at its start for the sessions still attached: ours must let it run.
      this.startShared(dbg, targetId);
      return;
    }
    this.sharedPending.add(targetId);
    try {
      await dbg.attach({ targetId }, PROTOCOL);
    } finally {
      this.sharedPending.delete(targetId);
    }
    if (this.tabs.get(tabId) !== state) {
      await dbg.detach({ targetId }).catch(() => {}); // the tab's view ended meanwhile
      return;
    }
    // Its rows are of the tab, in the frame that started it, as a dedicated worker's.
    const sessionId = this.enlistShared(dbg, tabId, state, targetId, url, frameId);
    this.recoverShared(dbg, tabId, state, targetId, sessionId);
  }

  /**
   * What a shared worker fetched before it was attached (nothing holds its first start): its own
   * Resource Timing buffer, read after its Network domain is on (commands on one target run in
   * order, so its events for what ended before arrive first); deep_requests.js rows what they missed.
   */
  recoverShared(dbg, tabId, state, targetId, sessionId) {
    dbg
      .sendCommand({ targetId }, "Runtime.evaluate", { expression: RESOURCE_TIMING, returnByValue: true })
      .then((answer) => {
        const value = answer && answer.result && answer.result.value;
        if (value && this.tabs.get(tabId) === state) state.tracker.recover(sessionId, value.timeOrigin, value.entries);
      })
      .catch(() => {}); // a worker gone meanwhile
  }

  /** A shared worker's domains, and its start resumed if it is held (a no-op otherwise). */
  startShared(dbg, targetId) {
    const commands = [...this.domains("shared_worker"), ["Runtime.runIfWaitingForDebugger"]];
    for (const [method, args] of commands) {
      dbg.sendCommand({ targetId }, method, args).catch(() => {}); // a worker gone meanwhile
    }
  }

  releaseShared(targetId) {
    const shared = this.sharedWorkers.get(targetId);
    this.sharedWorkers.delete(targetId);
    const state = shared && this.tabs.get(shared.tabId);
    if (state) state.tracker.event("", "Target.detachedFromTarget", { sessionId: shared.sessionId, targetId });
    const dbg = this.io.debugger();
    if (dbg) dbg.detach({ targetId }).catch(() => {});
  }

  /** Whether a target is a child auto-attached under any deep tab. */
  isChild(targetId) {
    for (const state of this.tabs.values()) {
      for (const child of state.children.values()) if (child.targetId === targetId) return true;
    }
    return false;
  }

  /** A worker, iframe or service worker attached under the tab: enabled if in scope, resumed in any case. */
  child(root, tabId, state, params) {
    const sessionId = params.sessionId;
    const info = params.targetInfo || {};
    if (typeof sessionId !== "string") return;
    const dbg = this.io.debugger();
    const debuggee = { ...root, sessionId };
    let enable = state.tracker.sessionInScope(sessionId) !== false;
    // A service worker serves every tab of its origin: its rows are recorded by one tab's session.
    if (info.type === "service_worker") {
      // Taken for a shared worker (its script looked like one's): auto-attach is its one session.
      if (this.sharedWorkers.has(info.targetId)) this.releaseShared(info.targetId);
      const owner = this.serviceWorkers.get(info.targetId);
      if (owner !== undefined && owner !== tabId && this.tabs.has(owner)) enable = false;
      else if (enable) this.serviceWorkers.set(info.targetId, tabId);
    }
    state.children.set(sessionId, { enabled: enable, type: info.type, targetId: info.targetId });
    const commands = enable ? this.domains(info.type) : [];
    if (params.waitingForDebugger) commands.push(["Runtime.runIfWaitingForDebugger"]);
    for (const [method, args] of commands) {
      dbg.sendCommand(debuggee, method, args).catch(() => {}); // a target gone meanwhile
    }
  }

  /** An iframe whose document was not known when it attached: enabled once it is known to be in scope. */
  childChanged(root, state, params) {
    const info = params.targetInfo || {};
    for (const [sessionId, child] of state.children) {
      if (child.targetId !== info.targetId || child.enabled || child.type !== "iframe") continue;
      if (state.tracker.sessionInScope(sessionId) !== true) continue;
      child.enabled = true;
      for (const [method, args] of this.domains(child.type)) {
        this.io.debugger().sendCommand({ ...root, sessionId }, method, args).catch(() => {});
      }
    }
  }

  domains(type) {
    const commands = [
      ["Network.enable", NETWORK],
      ["Log.enable"],
    ];
    if (type === "iframe") commands.unshift(["Page.enable"]);
    // A worker's own console and uncaught errors (no page script runs there): worker_console.js.
    // Not in a frame's session, where the page's wrappers record the console at no such cost.
    if (WORKERS.has(type)) commands.push(["Runtime.enable"]);
    if (type !== "service_worker") commands.push(["Target.setAutoAttach", AUTO_ATTACH]); // its own workers and frames
    return commands;
  }

  changed(tabId, deep, reason) {
    for (const cb of this.listeners) {
      try {
        cb({ tabId, deep, reason });
      } catch (e) {
        console.warn("gasoline: deep view listener failed", e);
      }
    }
  }

  save() {
    return Promise.resolve(this.io.storage.set({ [STORAGE_KEY]: this.deepTabs() })).catch(() => {});
  }
}

function originOf(url) {
  try {
    const o = new URL(url).origin;
    return o === "null" ? String(url).split(/[?#]/)[0] : o;
  } catch {
    return String(url);
  }
}
