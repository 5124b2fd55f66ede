// The kinds of event, named once for the whole extension. EVENT_KINDS are the
// server's rings (src/kind.rs `KINDS`, in its order: a unit test compares them
// with `gasoline kinds`); tabs and vitals are the server's per-tab state. Loaded
// in the page world (as __gasoline.kinds, removed from the page's global with
// the rest by page/start.js), the relay, the service worker and the popup.
// Registry: reads nothing; adds kinds.
(function (root) {
  const EVENT_KINDS = Object.freeze(["logs", "network_waterfall", "network_bodies", "websocket_events", "actions", "extension_logs"]);
  const STATE_KINDS = Object.freeze(["tabs", "vitals"]);
  /** What a page may send: every kind but the extension's own logs, which come from its worker alone. */
  const PAGE_KINDS = Object.freeze([...EVENT_KINDS.filter((k) => k !== "extension_logs"), ...STATE_KINDS]);
  /** What the person can switch off in the options (a tab's url and title always go with its events). */
  const SWITCHABLE = Object.freeze(PAGE_KINDS.filter((k) => k !== "tabs"));
  /** What the popup and the options call each kind, for a person (agents and the server use the names). */
  const LABELS = Object.freeze({
    logs: "Console and errors",
    network_waterfall: "Requests",
    network_bodies: "Request and response bodies",
    websocket_events: "WebSocket and EventSource messages",
    actions: "Clicks, typing and navigation",
    extension_logs: "Gasoline's own log",
    tabs: "Tab address and title",
    vitals: "Web vitals (LCP, CLS, INP)",
  });
  const kinds = { EVENT_KINDS, STATE_KINDS, PAGE_KINDS, SWITCHABLE, LABELS, ALL: Object.freeze([...EVENT_KINDS, ...STATE_KINDS]) };
  if (typeof module === "object" && module.exports) module.exports = kinds;
  root.__gasoline = Object.assign(root.__gasoline || {}, { kinds });
})(globalThis);
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoia2luZHMuanMiLCJzb3VyY2VzIjpbImdhc29saW5lLWV4dGVuc2lvbjovLy9saWIva2luZHMuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
