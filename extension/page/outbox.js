// Where events wait, get built and sent. A source records what it saw cheaply
// with `emit(kind, build)` on the page's own call; `build` runs later: events
// are gathered for GATHER_MS from the first one waiting (a burst becomes a few
// full messages to the relay, not one per event or per idle moment), then built
// in idle time (requestIdleCallback, at most IDLE_WAIT_MS late) and in slices
// of a few milliseconds, so that a burst of the page's own work (300 responses
// arriving) goes first and building never becomes a long task; and only once
// the user's settings have arrived over the channel (or after HOLD_MS without
// them), so that the user's capture switches and the redaction lists a source
// applies itself (console.table cells by column) hold from the first event of
// the page. Entries are redacted once, in the service worker, before anything
// is queued, stored or sent (background/worker.js `accept`): out of the page's
// reach, where a page that replaced the built-ins redaction uses cannot undo
// it, and without costing the page's main thread.
// Registry: reads channel, core, kinds, redact; adds outbox.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.channel || G.outbox) return;
  const { redact } = G;
  const { setTimeout, later, requestIdleCallback, now, perfNow } = G.core;
  const HOLD_MS = 1000; // longest wait for the settings
  const SLICE_MS = 6; // work per task
  const MAX_PENDING = 5000; // events of one kind waiting: a page logging in a tight loop loses its oldest logs, not its requests
  const MAX_BATCH = 500; // events per message to the relay
  const IDLE_WAIT_MS = 500; // longest wait for idle time
  const GATHER_MS = 100; // how long the first event waiting waits for others before building starts

  // Each kind's events wait in a ring of their own; a kind's errors in another (`logs!`), so that
  // a flood of a page's logs never takes the error logged before it.
  const URGENT = "!";
  const LANES = [...G.kinds.PAGE_KINDS, ...G.kinds.PAGE_KINDS.map((k) => k + URGENT)];
  const ALL_ON = Object.fromEntries(G.kinds.SWITCHABLE.map((k) => [k, true]));
  let enabled = ALL_ON;
  let off = false;
  let policy = redact.policy();
  let ready = false;
  // A lane's flood takes its own oldest places, never another's. Rings are read and written by
  // index only: a page may replace Array.prototype's methods after we start.
  const queues = Object.create(null); // lane → {items, head, size}
  for (let k = 0; k < LANES.length; k++) queues[LANES[k]] = { items: [], head: 0, size: 0 };
  let waiting = 0; // events in all the rings
  let seq = 0; // the order events came in, across kinds
  let scheduled = false;
  let building = false;
  let unloading = false; // from the page's pagehide until it is shown again (the back-forward cache)
  // From the page's beforeunload: what it logs then (a stream cut off, a component unmounted) may
  // come after the next page's navigation began, and says which document it is of (`docStart`,
  // its time origin as its navigate action dates it), for "since the last navigation" to leave out.
  let leaving = false;
  const DOC_START = Math.floor(performance.timeOrigin);
  // A page prerendered (speculation rules) runs before the person sees it, in a frame Chrome gives
  // an id of its own: its events wait until it is shown (`prerenderingchange`), then go as the
  // tab's page, with the times they happened; a prerender never shown sends nothing.
  let prerendering = globalThis.document !== undefined && document.prerendering === true;
  let dropped = {}; // kind → events lost to MAX_PENDING since the last report
  let unbuilt = {}; // kind → events whose entry threw while being built, since the last report

  G.channel.onSettings((s) => {
    if (!s || typeof s !== "object") return;
    // `off`: this frame left the scope (paused, its site turned off): record nothing more.
    off = s.off === true;
    enabled = Object.assign({}, ALL_ON, s.capture && typeof s.capture === "object" ? s.capture : {});
    const list = (v) => (Array.isArray(v) ? v.map(String) : []);
    policy = redact.policy(list(s.redactHeaders), list(s.redactBodyKeys));
    ready = true;
    schedule();
  });
  setTimeout(() => {
    ready = true;
    schedule();
  }, HOLD_MS);

  const isOn = (kind) => !off && (kind === "tabs" || enabled[kind] !== false);

  /** Queues an event of `kind`; `build` makes its entry later, off the page's call. `urgent`: an error. */
  function emit(kind, build, urgent = false) {
    if (building || !isOn(kind)) return; // building reads page objects: their getters may log
    const queue = queues[urgent ? kind + URGENT : kind];
    if (queue === undefined) return;
    const item = { kind, build, ts: now(), seq: seq++, left: leaving };
    if (queue.size === MAX_PENDING) {
      queue.items[queue.head] = item; // the oldest of this kind gives its place
      queue.head = (queue.head + 1) % MAX_PENDING;
      dropped[kind] = (dropped[kind] || 0) + 1;
    } else {
      queue.items[(queue.head + queue.size) % MAX_PENDING] = item;
      queue.size++;
      waiting++;
    }
    // After our pagehide (the page's own pagehide listeners, a beacon sent there), nothing later
    // will run: the event goes now.
    if (unloading) flushAll(true);
    else schedule();
  }

  /** The oldest event waiting, of any kind, taken out of its ring. */
  function next() {
    let from;
    for (let k = 0; k < LANES.length; k++) {
      const queue = queues[LANES[k]];
      if (queue.size > 0 && (from === undefined || queue.items[queue.head].seq < from.items[from.head].seq)) from = queue;
    }
    const item = from.items[from.head];
    from.items[from.head] = undefined;
    from.head = (from.head + 1) % MAX_PENDING;
    from.size--;
    waiting--;
    return item;
  }

  /** Building starts GATHER_MS after the first event waiting, or at the next idle moment for what a slice `left`. */
  function schedule(left) {
    if (scheduled || !ready || prerendering || waiting === 0) return;
    scheduled = true;
    if (left) whenIdle();
    else later(whenIdle, GATHER_MS);
  }

  function whenIdle() {
    if (requestIdleCallback) requestIdleCallback(slice, { timeout: IDLE_WAIT_MS });
    else setTimeout(slice, 0);
  }

  function buildOne(item) {
    if (!isOn(item.kind)) return null;
    const entry = item.build(policy); // the policy for what a source redacts itself (table cells by column)
    if (!entry || typeof entry !== "object") return null;
    if (entry.ts === undefined) entry.ts = item.ts;
    if (item.left) entry.docStart = DOC_START;
    return { kind: item.kind, entry };
  }

  /** Builds events until `deadline` (all when none), then sends them (`now`: before this returns). */
  function drain(deadline, now = false) {
    const events = [];
    building = true;
    try {
      for (let built = 0; waiting > 0 && events.length < MAX_BATCH; built++) {
        if (deadline !== undefined && built > 0 && perfNow() > deadline) break;
        const item = next();
        try {
          const event = buildOne(item);
          if (event) events[events.length] = event;
        } catch {
          // An entry that cannot be built is skipped, never thrown at the page, and counted: a page
          // that broke a built-in the capture uses loses entries, and says so in extension_logs.
          unbuilt[item.kind] = (unbuilt[item.kind] || 0) + 1;
        }
      }
    } finally {
      building = false;
    }
    if (events.length) (now ? G.channel.sendNow : G.channel.send)(events);
    if (Object.keys(dropped).length) {
      G.channel.sendDropped(dropped); // counted in the popup and reported as an extension log
      dropped = {};
    }
    if (Object.keys(unbuilt).length) {
      G.channel.sendDropped(unbuilt, true);
      unbuilt = {};
    }
  }

  function slice(idle) {
    scheduled = false;
    const left = idle && typeof idle.timeRemaining === "function" && !idle.didTimeout ? idle.timeRemaining() : SLICE_MS;
    drain(perfNow() + Math.min(SLICE_MS, left));
    schedule(true);
  }

  /**
   * Everything now: the page is being hidden, or (`now`, its pagehide) unloaded, when the events
   * must reach the relay before this returns.
   */
  function flushAll(now = false) {
    if (prerendering) return;
    for (let rounds = 0; waiting > 0 && rounds < 100; rounds++) drain(undefined, now);
  }

  // What waits goes when the page is hidden (a hidden page gets idle time late) and, before the
  // document is gone, when it is unloaded (channel.js `sendNow`). Sources that report then (vitals)
  // flush again after their report.
  const { listen } = G.core; // its listeners never throw at the page
  if (globalThis.document) {
    listen(document, "visibilitychange", () => document.visibilityState === "hidden" && flushAll(false));
    listen(globalThis, "beforeunload", () => (leaving = true));
    listen(globalThis, "pagehide", () => {
      unloading = leaving = true;
      flushAll(true);
    });
    listen(globalThis, "pageshow", () => (unloading = false));
    if (prerendering) {
      listen(document, "prerenderingchange", () => {
        prerendering = false;
        schedule();
      });
    }
  }

  G.outbox = { emit, flushAll, isOn };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoib3V0Ym94LmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9vdXRib3guanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
