// An offline-first page's service worker, as the page itself sees it (default
// mode, no debugger): a response the worker's own code made (a 503 it answers
// when offline) must not read as the server's. The page's Resource Timing says
// the request went through the worker's fetch handler; what answered it (its
// cache, its code, the network) only deep mode can say. Its own server on a
// loopback port of its own (in scope), so that no other page of the run is
// under this worker. Called by run.mjs with the running browser and MCP client.
import assert from "node:assert/strict";
import { serve } from "./harness.mjs";

const PAGE = `<!doctype html><meta charset="utf-8"><title>offline-first</title>
<script>
  window.ready = navigator.serviceWorker.register("/sw.js").then(() => navigator.serviceWorker.ready);
</script>`;
// Answers /api/status itself with a 503, as an app's worker does when the network is gone.
const WORKER = `self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (e) => {
  if (new URL(e.request.url).pathname === "/api/status") {
    e.respondWith(new Response('{"offline":true}', { status: 503, headers: { "content-type": "application/json" } }));
  }
});`;

function start() {
  return serve((req, res) => {
    const [type, body] = req.url === "/sw.js" ? ["text/javascript", WORKER] : req.url.startsWith("/api/") ? ["application/json", '{"ok":true}'] : ["text/html", PAGE];
    res.writeHead(200, { "content-type": type, "cache-control": "no-store" });
    res.end(body);
  });
}

export async function serviceWorkerPage({ context, client, observe, waitFor, log }) {
  const app = await start();
  try {
    const tab = await context.newPage();
    await tab.goto(`${app.origin}/`);
    await tab.evaluate(() => window.ready);
    // Controlled once the worker has claimed the page.
    await tab.waitForFunction(() => navigator.serviceWorker.controller !== null);
    const statuses = await tab.evaluate(() => Promise.all(["/api/status", "/api/items"].map((p) => fetch(p).then((r) => r.status))));
    assert.deepEqual(statuses, [503, 200]);
    // The compact entries an agent reads first (a field all entries share is said once, in `common`).
    const answer = await waitFor("the two requests' rows", async () => {
      const found = await observe(client, { what: "network_waterfall", url: `${app.origin}/api/` });
      return found.entries.length === 2 && found;
    });
    const field = (e, name) => e[name] ?? answer.common?.[name];
    const said = answer.entries.map((e) => [new URL(field(e, "url")).pathname, field(e, "status"), field(e, "fromServiceWorker")]);
    // Both went through the worker's fetch handler, the one it answered and the one it let go to
    // the server: from the page, which cannot see what answered, that is all there is to say.
    assert.deepEqual(
      said.sort(),
      [
        ["/api/items", 200, "fetch-handler"],
        ["/api/status", 503, "fetch-handler"],
      ],
      JSON.stringify(answer),
    );
    log("a request the page's service worker took says so (its 503 is no server's)");

    // The browser goes offline (the machine's network, or DevTools' Offline): said as an action, so
    // that a request failing meanwhile has its reason beside it in the error's context.
    await context.setOffline(true);
    const failed = await tab.evaluate(() => fetch("/api/items?while-offline").then((r) => `answered ${r.status}`, (e) => e.name));
    assert.equal(failed, "TypeError", "the request fails while offline");
    await tab.evaluate(() => console.error("items: could not load while offline"));
    await context.setOffline(false);
    const moves = await waitFor("the tab's offline and online actions", async () => {
      const found = await observe(client, { what: "actions", url: app.origin, fields: "all" });
      const types = found.entries.map((e) => e.type).filter((t) => t === "offline" || t === "online");
      return types.length === 2 && types;
    });
    assert.deepEqual(moves, ["offline", "online"]);
    const error = await waitFor("the page's error, with its context", async () => {
      const found = await observe(client, { what: "errors", url: app.origin, search: "while offline", context: "full" });
      return found.entries.length === 1 && found.entries[0];
    });
    assert.equal(error.context && error.context.action && error.context.action.type, "offline", JSON.stringify(error));
    log("the browser going offline and back is two actions; an error meanwhile names it as its last action");
    await tab.close();
  } finally {
    app.close();
  }
}
