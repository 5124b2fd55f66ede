// Last of the page-world files: installs every source of page/ and takes the
// shared namespace back off the page's global, before any page script runs.
// Registry: reads outbox, core, bodies, limits, serialize, selector, redact, requests, consumed, pageText, appFailures, rpc, engineIo, sources; adds started.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  try {
    delete globalThis.__gasoline;
  } catch {
    // non-configurable in some odd environment: harmless
  }
  if (!G || !G.outbox || G.started) return;
  G.started = true;
  const context = {
    core: G.core,
    outbox: G.outbox,
    bodies: G.bodies,
    limits: G.limits,
    serialize: G.serialize,
    selector: G.selector,
    redact: G.redact,
    requests: G.requests,
    consumed: G.consumed,
    pageText: G.pageText,
    appFailures: G.appFailures,
    rpc: G.rpc,
    engineIo: G.engineIo,
  };
  for (const name of ["console", "errors", "fetch", "xhr", "websocket", "eventsource", "workers", "beacon", "csp", "resources", "actions", "navigation", "connectivity", "timing", "vitals"]) {
    try {
      G.sources[name](context);
    } catch {
      // one source failing must not stop the others
    }
  }
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoic3RhcnQuanMiLCJzb3VyY2VzIjpbImdhc29saW5lLWV4dGVuc2lvbjovLy9wYWdlL3N0YXJ0LmpzIl0sIm5hbWVzIjpbXSwibWFwcGluZ3MiOiJBQUFBIiwiaWdub3JlTGlzdCI6WzBdLCJ4X2dvb2dsZV9pZ25vcmVMaXN0IjpbMF19
