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
//     the pause a worker's first requests were missed (2 runs of 18).
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
//   - onDetach: the person closed the banner ("canceled_by_user"), DevTools or
//     another client took the tab, or the tab closed ("target_closed").
// The chosen tab ids are kept in chrome.storage.session, so a service worker
// started again re-attaches those still open and in scope.
// Everything chrome.* is injected: the unit tests drive it with a fake debugger.
(function (root) {
  const { DeepRequests } =
    typeof module === "object" && module.exports ? require("./deep_requests.js") : root.GasolineDeepRequests;

  const STORAGE_KEY = "deepTabs";
  const PROTOCOL = "1.3";
  const AUTO_ATTACH = { autoAttach: true, waitForDebuggerOnStart: true, flatten: true };
  // No response bodies kept for Network.getResponseBody (never asked) and no
  // request bodies in requestWillBeSent: the page's wrappers record those.
  const NETWORK = { maxTotalBufferSize: 0, maxResourceBufferSize: 0, maxPostDataSize: 0 };
  const REASONS = {
    canceled_by_user: "the debugging banner was closed, or DevTools took the tab",
    target_closed: "the tab was closed",
  };

  class Deep {
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
      this.listening = false;
    }

    /** Listens (once the permission exists) and re-attaches the tabs chosen before this worker started. */
    async start() {
      this.listen();
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
        inScope: (url) => this.io.inScope(url) && !this.io.excluded(url),
        emitRow: (row, id, where) => this.io.emitRow(row, id, where),
        emitLog: (entry, id, where) => this.io.emitLog(entry, id, where),
        leftScope: (url) => this.detach(tabId, `the tab went to ${originOf(url)}, outside the capture scope`),
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
      this.changed(tabId, true, restoring ? "restored after the service worker started again" : "attached");
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
          await this.detach(tabId, `${originOf(target.url)} is no longer in the capture scope`);
        }
      }
    }

    forget(tabId) {
      this.tabs.delete(tabId);
      for (const [id, owner] of this.serviceWorkers) if (owner === tabId) this.serviceWorkers.delete(id);
    }

    onDetach(source, reason) {
      if (!this.tabs.has(source.tabId)) return;
      this.forget(source.tabId);
      this.save();
      const why = REASONS[reason] || String(reason);
      this.io.log(reason === "target_closed" ? "info" : "warn", `deep view of tab ${source.tabId} ended: ${why}`);
      this.changed(source.tabId, false, why);
    }

    onEvent(source, method, params) {
      const state = this.tabs.get(source.tabId);
      if (!state) return;
      state.tracker.event(source.sessionId, method, params);
      if (method === "Target.attachedToTarget") this.child(source, state, params || {});
      else if (method === "Target.targetInfoChanged") this.childChanged(source, state, params || {});
      else if (method === "Target.detachedFromTarget") state.children.delete(params && params.sessionId);
    }

    /** A worker, iframe or service worker attached under the tab: enabled if in scope, resumed in any case. */
    child(source, state, params) {
      const sessionId = params.sessionId;
      const info = params.targetInfo || {};
      if (typeof sessionId !== "string") return;
      const dbg = this.io.debugger();
      const debuggee = { tabId: source.tabId, sessionId };
      let enable = state.tracker.sessionInScope(sessionId) !== false;
      // A service worker serves every tab of its origin: its rows are recorded by one tab's session.
      if (info.type === "service_worker") {
        const owner = this.serviceWorkers.get(info.targetId);
        if (owner !== undefined && owner !== source.tabId && this.tabs.has(owner)) enable = false;
        else if (enable) this.serviceWorkers.set(info.targetId, source.tabId);
      }
      state.children.set(sessionId, { enabled: enable, type: info.type, targetId: info.targetId });
      const commands = enable ? this.domains(info.type) : [];
      if (params.waitingForDebugger) commands.push(["Runtime.runIfWaitingForDebugger"]);
      for (const [method, args] of commands) {
        dbg.sendCommand(debuggee, method, args).catch(() => {}); // a target gone meanwhile
      }
    }

    /** An iframe whose document was not known when it attached: enabled once it is known to be in scope. */
    childChanged(source, state, params) {
      const info = params.targetInfo || {};
      for (const [sessionId, child] of state.children) {
        if (child.targetId !== info.targetId || child.enabled || child.type !== "iframe") continue;
        if (state.tracker.sessionInScope(sessionId) !== true) continue;
        child.enabled = true;
        for (const [method, args] of this.domains(child.type)) {
          this.io.debugger().sendCommand({ tabId: source.tabId, sessionId }, method, args).catch(() => {});
        }
      }
    }

    domains(type) {
      const commands = [
        ["Network.enable", NETWORK],
        ["Log.enable"],
      ];
      if (type === "iframe") commands.unshift(["Page.enable"]);
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

  const api = { Deep, STORAGE_KEY };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.GasolineDeep = api;
})(globalThis);
