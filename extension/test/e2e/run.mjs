// End to end: the real extension in headless Chromium, on a local fixture page,
// feeding the real gasoline server, read back through MCP `observe` with the
// official TypeScript MCP SDK over stdio. Exits non-zero with the reason on the
// first failed check.
//
//   GASOLINE_BIN=target/debug/gasoline node extension/test/e2e/run.mjs
//
// CHROMIUM overrides the browser (default /usr/bin/chromium).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { WebSocketServer } from "ws";

import { consolePage } from "./console.mjs";
import { figuresPage } from "./figures.mjs";
import { formsPage, formsRoute } from "./forms.mjs";
import { graphqlPage, graphqlRoute } from "./graphql.mjs";
import { trpcPage, trpcRoute } from "./trpc.mjs";
import { connectPage, connectRoute } from "./connect_rpc.mjs";
import { serviceWorkerPage } from "./service_worker.mjs";
import { socketIoPage } from "./socketio.mjs";
import { routedFramePage, routedFrameRoute } from "./routed_frame.mjs";
import {
  all,
  assertDeclared,
  checkPrerequisites,
  freePort,
  launch,
  observe,
  serve,
  serviceWorker,
  settled,
  startGasoline,
  stopGasoline,
  testBuild,
  waitFor,
} from "./harness.mjs";
import { hostilePage } from "./hostile.mjs";
import { networkPage } from "./network.mjs";
import { plantedSecrets, SECRETS } from "./secrets.mjs";
import { sourcesPage, sourcesRoute } from "./sources.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE_SECRETS = ["AUTH-SECRET-123", "FORM-SECRET-456", "hunter2-PASSWORD", "RESPONSE-SECRET-789", "SERVER-PAGE-CSRF-77", "SERVER-PAGE-CSRF-78"];

function fail(message) {
  console.error(`e2e FAILED: ${message}`);
  process.exit(1);
}
checkPrerequisites(fail);

function log(message) {
  console.log(`e2e: ${message}`);
}

// ---- the fixture site: page, JSON, form endpoint, WebSocket echo --------------
async function startFixture() {
  const files = {
    "/": ["index.html", "text/html"],
    "/app.js": ["app.js", "text/javascript"],
    "/hostile.html": ["hostile.html", "text/html"],
    "/hostile-first.js": ["hostile-first.js", "text/javascript"],
    "/hostile.js": ["hostile.js", "text/javascript"],
    "/console.html": ["console.html", "text/html"],
    "/console-fixture.js": ["console-fixture.js", "text/javascript"],
    "/figures.html": ["figures.html", "text/html"],
    "/figures.js": ["figures.js", "text/javascript"],
  };
  const streams = new Map(); // /slow-stream id → starts its body (figures.mjs)
  const bigJson = JSON.stringify({ items: Array.from({ length: 20000 }, (_, i) => ({ id: i, name: `item ${i}` })) });
  let wss;
  const app = await serve((req, res) => {
    const url = new URL(req.url, "http://x");
    if (files[url.pathname]) {
      const [name, type] = files[url.pathname];
      res.writeHead(200, { "content-type": type, "cache-control": "no-store" });
      res.end(readFileSync(path.join(here, "fixture", name)));
    } else if (url.pathname === "/data.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ items: [1, 2, 3], secretToken: "RESPONSE-SECRET-789" }));
    } else if (url.pathname === "/secrets.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(`window.SECRETS = ${JSON.stringify(SECRETS)};`);
    } else if (url.pathname === "/secret.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ access_token: "S-resp-access_token", ok: true }));
    } else if (url.pathname === "/big.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(bigJson);
    } else if (url.pathname === "/upload") {
      let received = 0;
      req.on("data", (chunk) => (received += chunk.length));
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ received }));
      });
    } else if (url.pathname === "/events") {
      // An event stream that goes on for 10 s unless the page stops reading.
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
      let n = 0;
      const tick = setInterval(() => (++n > 100 ? (clearInterval(tick), res.end()) : res.write(`data: tick ${n}\n\n`)), 100);
      res.on("close", () => clearInterval(tick));
    } else if (url.pathname === "/ticking") {
      // Plain text, a line every 100 ms for 30 s unless the reader goes (hostile.js cancels it).
      res.writeHead(200, { "content-type": "text/plain", "cache-control": "no-store" });
      let n = 0;
      const tick = setInterval(() => (++n > 300 ? (clearInterval(tick), res.end()) : res.write(`tick ${n}\n`)), 100);
      res.on("close", () => clearInterval(tick));
    } else if (url.pathname === "/echo-headers") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(req.headers));
    } else if (url.pathname === "/slow-stream") {
      // Headers and 100 characters now; 15 × 100 more over 1.5 s once /release-stream is asked.
      res.writeHead(200, { "content-type": "text/plain", "cache-control": "no-store" });
      res.write("s".repeat(100));
      streams.set(url.searchParams.get("id"), () => {
        for (let i = 1; i <= 15; i++) setTimeout(() => (res.write("s".repeat(100)), i === 15 && res.end()), i * 100);
      });
    } else if (url.pathname === "/release-stream") {
      const start = streams.get(url.searchParams.get("id"));
      streams.delete(url.searchParams.get("id"));
      if (start) start();
      res.writeHead(start ? 204 : 404);
      res.end();
    } else if (url.pathname === "/reuse") {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(`reuse ${url.searchParams.get("n")}`);
      });
    } else if (url.pathname === "/trusted-types") {
      // A page that enforces Trusted Types: a string given to an HTML sink (DOMParser's
      // parseFromString among them) is a violation, reported and blocked. ?default: the page
      // makes a 'default' policy that turns every HTML string down and has no script callback.
      const withDefault = url.searchParams.has("default");
      res.writeHead(200, {
        "content-type": "text/html",
        "content-security-policy": `require-trusted-types-for 'script'; trusted-types app-policy${withDefault ? " default" : ""}`,
      });
      res.end(
        "<!doctype html><title>trusted types</title><script>window.violations = [];" +
          "document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.effectiveDirective + ' ' + e.sample));" +
          (withDefault ? "trustedTypes.createPolicy('default', { createHTML: () => null });" : "") +
          "</script><p>tt</p>",
      );
    } else if (url.pathname === "/worker-error") {
      // A dedicated worker that throws, uncaught, after it started; and the page's own error after.
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<!doctype html><title>worker</title><script>new Worker("/worker-error.js"); setTimeout(() => { throw new Error("page boom"); }, 300);</script>`);
    } else if (url.pathname === "/worker-error.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(`setTimeout(() => {\n  throw new Error("worker boom");\n}, 50);\n`);
    } else if (url.pathname === "/nuxt-error") {
      // Nuxt's dev 500: the page shows the status and message, its payload holds the server's stack.
      const payload = JSON.stringify([
        ["ShallowReactive", 1],
        { error: 2 },
        ["null", "statusCode", 3, "message", 4, "stack", 5],
        500,
        "boom in setup",
        "boom in setup\nat setup (/app/pages/broken-ssr.vue:11:28)\nat renderComponentVNode (/app/node_modules/@vue/server-renderer/dist/server-renderer.cjs.js:423:15)",
      ]);
      res.writeHead(500, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><title>Server Error</title><div><h1>500</h1><p>boom in setup</p></div><script type="application/json" id="__NUXT_DATA__" data-ssr="true">${payload}</script>`);
    } else if (url.pathname === "/server-error") {
      res.writeHead(500, { "content-type": "text/html; charset=utf-8" });
      // ?styled: as a framework's debug page, styles first, past the body cap.
      const style = url.searchParams.has("styled") ? `.rule-x { color: red }\n`.repeat(1000) : "h1 { color: red }";
      res.end(
        `<!doctype html><title>Server Error</title><style>${style}</style><h1>Server Error (500)</h1>` +
          "<pre>Error: loader exploded\n    at loader (/app/routes/orders.tsx:5:9)</pre><script>var hidden = 'not text'</script>" +
          // A frame as Werkzeug's debugger shows one: inline elements in a line, a source line in a <pre>.
          '<h4>File <cite class="filename">"/app/app.py"</cite>,\n      line <em class="line">82</em>,\n      in <code>show_item</code></h4>' +
          '<div class="source"><pre class="line current"><span class="ws">    </span>total = item["price"] <span>*</span> qty</pre></div>' +
          // Express's error page: a <pre> of lines ended by <br>, indented with &nbsp;.
          "<pre>ReferenceError: views/broken.ejs:5<br> &nbsp; &nbsp;4| &lt;h1&gt;Hi&lt;/h1&gt;<br> &gt;&gt; 5| &lt;p&gt;&lt;%= user.name %&gt;&lt;/p&gt;<br><br>user is not defined</pre>" +
          // A debug page's table of a request's values, as Django shows them: the name, then the value.
          "<table><tr><th>Variable</th><th>Value</th></tr><tr><td>CSRF_COOKIE</td><td class=code><pre>'SERVER-PAGE-CSRF-77'</pre></td></tr>" +
          "<tr><td>CONTENT_TYPE</td><td><pre>'text/plain'</pre></td></tr>" +
          "<tr><td>HTTP_X_CSRFTOKEN</td><td><pre>'SERVER-PAGE-CSRF-78'</pre></td></tr></table>",
      );
    } else if (url.pathname === "/sk/broken/__data.json") {
      // SvelteKit's answer to a client-side navigation whose server load threw: 200, an error node.
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "data", nodes: [{ type: "data", data: [{}] }, { type: "error", error: { message: "Internal Error" }, status: 500 }] }));
    } else if (url.pathname === "/sk/login" && req.method === "POST") {
      // SvelteKit's answer to a `use:enhance` form post whose action returned fail(400).
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "failure", status: 400, data: '[{"incorrect":1},true]' }));
      });
    } else if (url.pathname === "/rr/broken.data" || url.pathname === "/rr/slow.data") {
      // React Router 7's single fetch, as its dev server answers a client-side navigation in
      // turbo-stream: a loader that threw (500), and a deferred value that rejected (200).
      const stack = (at) => `Error: x\n    at loader (${at})\n    at callRouteHandler (file:///srv/app/node_modules/react-router/dist/development/chunk.mjs:509:22)`;
      const broken = [{ _1: 2 }, "routes/broken", { _3: 4 }, "error", ["SanitizedError", 5, 6, 7], "Error", "inventory service unreachable", stack("/srv/app/app/routes/broken.tsx:5:9")];
      const slow = [{ _1: 2 }, "routes/slow", { _3: 4 }, "data", { _5: 6 }, "reviews", ["P", 6]];
      const rejected = [["SanitizedError", 8, 9, 10], "Error", "reviews backend timed out", stack("/srv/app/app/routes/slow.tsx:15:70")];
      const isBroken = url.pathname === "/rr/broken.data";
      res.writeHead(isBroken ? 500 : 200, { "content-type": "text/x-script" });
      res.end(isBroken ? `${JSON.stringify(broken)}\n` : `${JSON.stringify(slow)}\nE6:${JSON.stringify(rejected)}\n`);
    } else if (url.pathname === "/left-early") {
      // A document whose load never ends (its image is held) that leaves for another after 100 ms.
      res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
      res.end('<!doctype html><title>left early</title><img src="/hold"><script>setTimeout(() => location.assign("/done"), 100)</script>');
    } else if (url.pathname === "/hold") {
      // Headers only after 20 s: a request still in flight when its page reloads.
      const answer = setTimeout(() => (res.writeHead(204), res.end()), 20000);
      answer.unref();
      res.on("close", () => clearTimeout(answer));
    } else if (url.pathname.startsWith("/__nextjs_")) {
      // What a Next.js dev server answers its error overlay (stack frames, fonts).
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("[]");
      });
    } else if ((url.pathname === "/submit" || url.pathname === "/graphql") && req.method === "POST") {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"ok":true}');
      });
    } else if (sourcesRoute(req, res, url)) {
      // EventSource, beacon and CSP fixture (sources.mjs)
    } else if (formsRoute(req, res, url)) {
      // forms a server renders, and a single-page app's (forms.mjs)
    } else if (graphqlRoute(req, res, url)) {
      // a GraphQL API executed by graphql-js, and the page that calls it (graphql.mjs)
    } else if (trpcRoute(req, res, url)) {
      // a tRPC API served by @trpc/server's own handler, and the page that calls it (trpc.mjs)
    } else if (connectRoute(req, res, url)) {
      // a Connect-RPC service served by connect-node, and the page that calls it (connect_rpc.mjs)
    } else if (routedFrameRoute(req, res, url)) {
      // a frame that routes with pushState (routed_frame.mjs)
    } else {
      res.writeHead(404);
      res.end();
    }
  }, {
    setup(server) {
      // Every socket echoes: /echo is the app's, /_next/hmr plays a Next.js dev server's HMR socket.
      wss = new WebSocketServer({ server });
      wss.on("connection", (ws, req) => {
        if (req.url.startsWith("/echo")) ws.on("message", (data, binary) => ws.send(data, { binary }));
        // A server that ends a socket with its closing handshake, and one that drops it.
        else if (req.url.startsWith("/kick")) ws.close(4001, "kicked");
        else if (req.url.startsWith("/drop")) ws.terminate();
      });
    },
  });
  return { server: app.server, wss, origin: app.origin };
}

// ---- the run ----------------------------------------------------------------------------
const work = mkdtempSync(path.join(tmpdir(), "gasoline-e2e-"));
const db = path.join(work, "gasoline.db");
const fixture = await startFixture();
const port = await freePort();
let client = await startGasoline(port, db);
let context;

try {
  context = await launch(path.join(work, "profile"), testBuild(work));
  const worker = await serviceWorker(context);
  await worker.evaluate(
    (serverUrl) =>
      chrome.storage.local.set({ settings: { serverUrl, redactBodyKeys: ["password", "token", "secret", "x_custom_secret"] } }),
    `http://127.0.0.1:${port}`,
  );
  const tabIdOf = (url) =>
    worker.evaluate(async (u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id), url);

  // ---- tab one: every kind of event ----
  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  const url = `${fixture.origin}/`;
  await page.goto(url);
  const [tabA] = await waitFor("the fixture tab's id", async () => (await tabIdOf(url)).length === 1 && tabIdOf(url));
  log(`fixture tab id ${tabA}`);
  for (const id of ["levels", "throw", "reject", "fetch", "post", "xhr", "socket", "go"]) await page.click(`#${id}`);
  await page.fill("#name", "Ann");
  await page.fill("#password", "hunter2-PASSWORD");
  await page.press("#password", "Enter");
  await page.waitForFunction(() =>
    ["levels", "throw", "reject", "fetch", "post", "xhr", "socket"].every((k) => window.done[k]),
  );
  assert.deepEqual(
    pageErrors.filter((m) => !/fixture (boom|rejection)/.test(m)),
    [],
    "the page saw no errors but its own",
  );

  const logs = await waitFor("logs at every level, the exception and the rejection", async () => {
    const entries = await all(client, "logs");
    const want = ["fixture log", "fixture info", "fixture warn", "fixture error", "fixture debug"];
    const ok =
      want.every((m) => entries.some((e) => e.message.startsWith(m))) &&
      entries.some((e) => e.source === "exception" && e.message === "Error: fixture boom") &&
      entries.some((e) => e.message === "Error: fixture qwik handler boom") &&
      entries.some((e) => e.source === "unhandledrejection") &&
      entries.filter((e) => e.source === "console" && /^ERROR .*handled by the page/.test(e.message)).length === 2;
    return ok && entries;
  });
  // An error the page's own listener took charge of (preventDefault, then its own console.error) is
  // its log alone, as DevTools shows it: no uncaught exception or rejection beside it.
  assert.deepEqual(
    logs.filter((e) => e.source !== "console" && /handled by the page/.test(e.message)).map((e) => e.message),
    [],
    "a handled error is not an uncaught one too",
  );
  const byMessage = (m) => logs.find((e) => e.message.startsWith(m));
  for (const [message, level] of [
    ["fixture log", "log"],
    ["fixture info", "info"],
    ["fixture warn", "warn"],
    ["fixture error", "error"],
    ["fixture debug", "debug"],
  ]) {
    const e = byMessage(message);
    assert.equal(e.level, level, message);
    assert.equal(e.tabId, tabA, `${message} carries the real tab id`);
    assert.match(e.location, /app\.js:\d+:\d+$/, `${message} says where it was logged`);
  }
  assert.match(byMessage("fixture log").message, /\{"n":1\}/);
  assert.match(byMessage("fixture error").stack, /Error: logged error/);
  assert.match(byMessage("fixture circular").message, /"self":"\[Circular\]".*<body>/);
  const qwik = logs.find((e) => e.message === "Error: fixture qwik handler boom");
  assert.equal(qwik.source, "exception", "an error Qwik's loader caught (qerror) is uncaught to the developer");
  assert.match(qwik.location, /app\.js:\d+:\d+$/);
  const exception = logs.find((e) => e.source === "exception" && e.message === "Error: fixture boom");
  assert.equal(exception.level, "error");
  assert.match(exception.message, /fixture boom/);
  assert.match(exception.stack, /app\.js/);
  const rejection = logs.find((e) => e.source === "unhandledrejection");
  assert.match(rejection.message, /fixture rejection/);
  assert.match(rejection.stack, /Error: fixture rejection/);
  const errors = await observe(client, { what: "errors", fields: "all" });
  assert.ok(errors.entries.some((e) => e.source === "exception") && errors.entries.every((e) => e.level === "error"));
  log(`logs: ${logs.length} entries, every level, exception and rejection`);

  const bodies = await waitFor("both requests with bodies", async () => {
    const entries = await all(client, "network_bodies");
    const urls = entries.map((e) => e.url);
    const wanted = ["/data.json", "/data.json?unread=1", "/data.json?stream=1", "/submit", "/submit?via=xhr"];
    return wanted.every((u) => urls.some((x) => x.endsWith(u))) && entries;
  });
  // The page read /data.json itself (json()); the extension took the body from that read. It
  // never read ?unread=1: the extension read that one from a clone once it was clear it would not;
  // it read ?stream=1 through its own reader: the extension cloned it as the page took the stream.
  // An unread body's entry ends at its headers: when its body came is not the page's to see.
  for (const [how, to] of [["unread", "headers"], ["stream", "body"]]) {
    const entry = bodies.find((e) => e.url.endsWith(`/data.json?${how}=1`));
    assert.deepEqual(JSON.parse(entry.responseBody), { items: [1, 2, 3], secretToken: "[redacted]" }, how);
    assert.equal(entry.durationTo, to, how);
    if (to === "headers") assert.equal(entry.duration, entry.headersMs, how);
  }
  const get = bodies.find((e) => e.url.endsWith("/data.json"));
  assert.equal(get.method, "GET");
  assert.equal(get.status, 200);
  assert.equal(get.tabId, tabA);
  assert.equal(get.requestHeaders.authorization, "[redacted]", "Authorization is redacted");
  assert.equal(get.requestHeaders.accept, "application/json");
  assert.equal(get.responseHeaders["content-type"], "application/json");
  assert.deepEqual(JSON.parse(get.responseBody), { items: [1, 2, 3], secretToken: "[redacted]" });
  assert.equal(typeof get.duration, "number");
  const post = bodies.find((e) => e.url.endsWith("/submit"));
  assert.equal(post.method, "POST");
  assert.equal(post.requestBody, "user=ann&password=[redacted]");
  assert.equal(post.responseBody, '{"ok":true}');
  const xhr = bodies.find((e) => e.url.endsWith("/submit?via=xhr"));
  assert.equal(xhr.initiator, "xhr");
  assert.equal(xhr.status, 200);
  assert.equal(xhr.requestHeaders["x-api-key"], "[redacted]");
  assert.deepEqual(JSON.parse(xhr.requestBody), { user: "ann", password: "[redacted]" });
  assert.equal(xhr.responseBody, '{"ok":true}');
  log("network_bodies: fetch GET and POST, XHR POST, with headers and bodies, secrets redacted");

  const waterfall = await waitFor("resource timing of the page's loads", async () => {
    const entries = await all(client, "network_waterfall");
    // The browser's row of each, with the page's resource timing joined in.
    const timed = (path) => entries.some((e) => e.url.endsWith(path) && e.initiatorType);
    return timed("/data.json") && timed("/app.js") && entries;
  });
  const json = waterfall.find((e) => e.url.endsWith("/data.json"));
  assert.equal(json.initiatorType, "fetch");
  assert.equal(json.tabId, tabA);
  assert.equal(json.responseStatus, 200);
  for (const field of ["startTime", "duration", "transferSize", "encodedBodySize", "decodedBodySize"]) {
    assert.equal(typeof json[field], "number", field);
  }
  assert.equal(waterfall.find((e) => e.url.endsWith("/app.js")).initiatorType, "script");
  log(`network_waterfall: ${waterfall.length} resources`);

  const sockets = await waitFor("the WebSocket conversation", async () => {
    const entries = await all(client, "websocket_events");
    return entries.some((e) => e.event === "close") && entries;
  });
  const events = sockets.map((e) => [e.event, e.direction ?? null, e.data ?? null]);
  assert.deepEqual(events, [
    ["open", null, null],
    ["message", "outgoing", "ping-1"],
    ["message", "incoming", "ping-1"],
    ["message", "outgoing", "ping-2"],
    ["message", "incoming", "ping-2"],
    ["close", null, null],
  ]);
  assert.equal(new Set(sockets.map((e) => e.connectionId)).size, 1, "one connection id");
  assert.equal(sockets.at(-1).code, 1000);
  assert.equal(sockets.at(-1).reason, "fixture done");
  assert.ok(sockets.every((e) => e.tabId === tabA && e.url.endsWith("/echo")));
  log("websocket_events: open, 4 messages both ways, close");

  // Who ended a socket, in the compact entries an agent reads: the page's close(), the server's
  // closing handshake, or neither (the connection dropped).
  await page.evaluate(() =>
    Promise.all(["/kick", "/drop"].map((p) => new Promise((resolve) => (new WebSocket(`ws://${location.host}${p}`).onclose = resolve)))),
  );
  const closes = async (url) => (await observe(client, { what: "websocket_events", url, tabId: tabA })).entries.filter((e) => e.event === "close");
  const ended = await waitFor("the kicked and dropped sockets' closes", async () => {
    const [kicked, dropped] = [await closes("/kick"), await closes("/drop")];
    return kicked.length === 1 && dropped.length === 1 && [kicked[0], dropped[0]];
  });
  const closing = (e) => [e.code, e.reason ?? null, e.closedBy];
  assert.deepEqual(ended.map(closing), [[4001, "kicked", "server"], [1006, null, "network"]], JSON.stringify(ended));
  assert.deepEqual((await closes("/echo")).map(closing), [[1000, "fixture done", "page"]]);
  log("a socket's close says who ended it: the page, the server or the network");

  // The dev server's own traffic beside the app (a Next.js dev client's overlay request and its copy
  // of a console call on the HMR socket) is left out; the rest of that socket's talk and the app's
  // request after it are kept.
  await page.click("#devtools");
  await page.waitForFunction(() => window.done.devtools);
  const hmr = await waitFor("the HMR socket's close and the request after the overlay's", async () => {
    const frames = (await all(client, "websocket_events")).filter((e) => e.url.includes("/_next/hmr"));
    const rows = await all(client, "network_waterfall");
    const after = (e) => e.url.endsWith("/data.json?after-devtools=1");
    return frames.some((e) => e.event === "close") && rows.some(after) && (await all(client, "network_bodies")).some(after) && frames;
  });
  assert.deepEqual(
    hmr.map((e) => [e.event, e.direction ?? null, e.data ?? null]),
    [
      ["open", null, null],
      ["message", "outgoing", '{"event":"client-success","clientId":1}'],
      ["close", null, null],
    ],
  );
  for (const kind of ["network_waterfall", "network_bodies"]) {
    const tooling = (await all(client, kind)).filter((e) => e.url.includes("/__nextjs_"));
    assert.deepEqual(tooling, [], `no ${kind} of the dev server's own`);
  }
  log("the dev server's own requests and its copy of the console left out");

  const actions = await waitFor("the clicks, typing and Enter", async () => {
    const entries = await all(client, "actions");
    return (
      entries.some((e) => e.type === "keydown") &&
      entries.filter((e) => e.type === "input" || e.type === "change").length >= 2 &&
      entries
    );
  });
  const click = actions.find((e) => e.type === "click" && e.selector === "#go");
  assert.ok(click, `a click on #go among ${JSON.stringify(actions.map((a) => [a.type, a.selector]))}`);
  assert.equal(click.text, "Go");
  assert.equal(click.tabId, tabA);
  assert.equal(click.synthetic, undefined, "the user's click is no script's");
  // A click the page's script makes (element.click()) says so.
  await page.evaluate(() => document.querySelector("#go").click());
  const scripted = await waitFor("the scripted click", async () =>
    (await all(client, "actions", { type: "click" })).find((e) => e.selector === "#go" && e.synthetic === true),
  );
  assert.equal(scripted.text, "Go");
  const typed = actions.filter((e) => (e.type === "input" || e.type === "change") && e.selector === "#name");
  assert.ok(typed.length && typed.every((e) => e.value === "Ann"), "the name is recorded");
  const secret = actions.filter((e) => (e.type === "input" || e.type === "change") && e.selector === "#password");
  assert.ok(secret.length && secret.every((e) => e.value === "[redacted]"), "the password is not");
  assert.ok(actions.some((e) => e.type === "keydown" && e.key === "Enter" && e.selector === "#password"));
  // Enter pressed before the typing's pause: the typing still comes first, the order it happened in
  // (the name's typing ended when the password's began).
  const order = actions.filter((e) => ["#name", "#password"].includes(e.selector) && ["input", "keydown"].includes(e.type)).map((e) => `${e.type} ${e.selector}`);
  assert.deepEqual(order, ["input #name", "input #password", "keydown #password"]);
  assert.ok(actions.some((e) => e.type === "navigate" && e.how === "load" && e.url === url));
  log(`actions: ${actions.length}, password redacted`);
  // Typing is one entry at its pause, dated at its first keystroke: what each keystroke set off
  // (a search per keystroke) comes after it, as it did.
  const beforeTyping = await page.evaluate(() => Date.now());
  await page.type("#name", "Bob", { delay: 200 });
  const afterTyping = await page.evaluate(() => Date.now());
  const typedNow = await page.inputValue("#name");
  const burst = await waitFor(`the typing's entry (${typedNow})`, async () =>
    (await all(client, "actions", { type: "input" })).find((e) => e.selector === "#name" && e.value === typedNow && e.ts >= beforeTyping),
  );
  assert.ok(burst.ts >= beforeTyping && burst.ts < afterTyping - 300, `dated at the first keystroke: ${burst.ts} in [${beforeTyping}, ${afterTyping}]`);
  log("typing is dated at its first keystroke");

  // Navigation inside the page and the tab info that follows it.
  await page.evaluate(() => {
    history.replaceState({ scrollY: 0 }, ""); // a router keeping its state: the URL stays
    history.pushState({}, "", "/step-2");
    document.title = "Fixture step 2";
    history.pushState({}, "", "/step-3");
  });
  await waitFor("pushState navigation and the tab's new title", async () => {
    const nav = (await all(client, "actions")).filter((e) => e.type === "navigate" && e.how === "pushState");
    const tabs = await observe(client, { what: "tabs" });
    const mine = (tabs.tabs || tabs.entries || []).find((t) => t.tabId === tabA);
    return nav.length === 2 && mine && mine.url.endsWith("/step-3") && mine.title === "Fixture step 2";
  });
  const stateWrites = (await all(client, "actions")).filter((e) => e.type === "navigate" && e.how === "replaceState");
  assert.deepEqual(stateWrites, [], "a replaceState that keeps the URL is no navigation");
  // A fragment link: the browser fires popstate and hashchange for it, one navigation all the same.
  await page.evaluate(() => {
    const a = document.createElement("a");
    a.href = "#notes";
    document.body.append(a);
    a.click();
    a.remove();
  });
  await waitFor("the fragment link's navigation", async () => {
    const nav = (await all(client, "actions")).filter((e) => e.type === "navigate" && e.url.endsWith("/step-3#notes"));
    return nav.length > 0 && nav;
  });
  await settled(context, page, client);
  const fragment = (await all(client, "actions")).filter((e) => e.type === "navigate" && e.url.endsWith("/step-3#notes"));
  assert.deepEqual(fragment.map((e) => [e.how, e.from.endsWith("/step-3")]), [["hashchange", true]], "one hashchange for one fragment link");
  // Setting location.hash, then going back across it: each one navigation, named for the fragment.
  await page.evaluate(() => {
    location.hash = "more";
  });
  await waitFor("location.hash's navigation", async () =>
    (await all(client, "actions")).some((e) => e.type === "navigate" && e.url.endsWith("/step-3#more")),
  );
  await page.evaluate(() => history.back());
  await waitFor("the way back to #notes", async () =>
    (await all(client, "actions")).some((e) => e.type === "navigate" && e.url.endsWith("/step-3#notes") && e.from.endsWith("#more")),
  );
  await settled(context, page, client);
  const hashes = (await all(client, "actions")).filter((e) => e.type === "navigate" && /#(more|notes)$/.test(e.url));
  assert.deepEqual(
    hashes.map((e) => [e.how, e.url.split("#")[1], e.from.split("#")[1]]),
    [["hashchange", "notes", undefined], ["hashchange", "more", "notes"], ["hashchange", "notes", "more"]],
    "location.hash and a step back across it are one hashchange each",
  );
  // The tab is on the last route (a page of its own, though it has no figure yet); the load's
  // TTFB and FCP are its page before, among `previous`.
  const vitals = await waitFor("vitals of the tab", async () => {
    const v = (await observe(client, { what: "vitals", tabId: tabA })).vitals;
    const load = v && (v.previous || []).find((p) => typeof p.ttfb === "number" && typeof p.fcp === "number");
    return v && v.url.includes("/step-3") && v.extra && v.extra.navigation !== "load" && v.ttfb === null && load;
  });
  log(`tabs and vitals: the route's page now, the load's before it: ttfb ${vitals.ttfb.toFixed(1)} ms, fcp ${vitals.fcp.toFixed(1)} ms`);

  // ---- tab two: its own tab id ----
  const second = await context.newPage();
  const url2 = `${fixture.origin}/?second`;
  await second.goto(url2);
  await second.evaluate(() => console.log("hello from the second tab"));
  const [tabB] = await waitFor("the second tab's id", async () => (await tabIdOf(url2)).length === 1 && tabIdOf(url2));
  const fromB = await waitFor("the second tab's log", async () => {
    const page = await observe(client, { what: "logs", tabId: tabB, fields: "all" });
    return page.entries.find((e) => e.message === "hello from the second tab");
  });
  assert.notEqual(tabA, tabB, "two tabs, two tab ids");
  assert.equal(fromB.tabId, tabB);
  const onlyA = await observe(client, { what: "logs", tabId: tabA, limit: 0, fields: "all" });
  assert.ok(onlyA.entries.every((e) => e.tabId === tabA) && onlyA.total_entries_all_tabs > onlyA.total);
  log(`two tabs: ${tabA} and ${tabB}`);

  // Requests still in flight when their page reloads are canceled by the browser, and the page hears
  // "Failed to fetch" as from a refused connection: their entries say they were canceled so. A refused
  // connection, before, says only what the page heard.
  await second.evaluate(() => fetch("http://127.0.0.1:9/refused").catch(() => {}));
  await waitFor("the refused request's entry", async () =>
    (await all(client, "network_bodies")).some((e) => e.url === "http://127.0.0.1:9/refused"),
  );
  await second.evaluate(() => {
    fetch("/hold?via=fetch").catch(() => {});
    const xhr = new XMLHttpRequest();
    xhr.open("GET", "/hold?via=xhr");
    xhr.send();
  });
  await second.reload();
  const held = await waitFor("the canceled requests' entries", async () => {
    const entries = (await all(client, "network_bodies")).filter((e) => e.url.includes("/hold?via="));
    return entries.length === 2 && entries;
  });
  // The fetch's promise is rejected as the reload begins; the XHR hears nothing before the page
  // goes, and is sent as it stood then: unfinished.
  const canceled = (e) => /^canceled as the page was left: TypeError: Failed to fetch$/.test(e.error ?? "");
  const [viaFetch, viaXhr] = ["fetch", "xhr"].map((via) => held.find((e) => e.url.endsWith(`/hold?via=${via}`)));
  assert.ok(canceled(viaFetch), JSON.stringify(viaFetch));
  assert.ok(viaXhr.unfinished === true && viaXhr.error === undefined, JSON.stringify(viaXhr));
  assert.ok(held.every((e) => e.tabId === tabB));
  const refused = (await all(client, "network_bodies")).find((e) => e.url === "http://127.0.0.1:9/refused");
  // Another origin (a port where nothing listens): the page cannot tell why, and says so.
  assert.equal(
    refused.error,
    "TypeError: Failed to fetch (a cross-origin request: the page cannot tell a CORS refusal from a refused connection or a DNS failure; the browser's console says which, and deep mode stores it)",
  );
  const row = await waitFor("the canceled fetch's row", async () =>
    (await all(client, "network_waterfall")).find((e) => e.url.endsWith("/hold?via=fetch")),
  );
  assert.ok(row.failed && canceled(row), JSON.stringify(row));
  log("a fetch canceled by a reload says so; a refused one does not");

  // The browser's back button is a page load of its own kind.
  await second.goto(`${fixture.origin}/?third`);
  await second.goBack();
  const back = await waitFor("the step back", async () =>
    (await all(client, "actions")).find((e) => e.type === "navigate" && e.tabId === tabB && e.how === "back_forward"),
  );
  assert.equal(back.url, url2);
  const sinceBack = await observe(client, { what: "actions", since_navigation: true, tabId: tabB, fields: "all" });
  assert.equal(sinceBack.navigation?.how ?? sinceBack.entries[0]?.how, "back_forward", JSON.stringify(sinceBack));
  log("a step back is recorded as back_forward, and is where since_navigation starts");

  // A page the server answered with an error status (a framework's 500 page) is an error of its own.
  await second.goto(`${fixture.origin}/server-error`);
  const failedPage = await waitFor("the 500 page's error", async () =>
    (await observe(client, { what: "errors", tabId: tabB, since_navigation: true, fields: "all" })).entries.find((e) => e.source === "resource"),
  );
  assert.equal(failedPage.message, `The page answered 500: ${fixture.origin}/server-error (Server Error)`);
  assert.equal(failedPage.tag, "document");
  // With what the server said: the error page's text, scripts and styles left out, a table row a
  // line, and a secret in it redacted.
  assert.equal(
    failedPage.pageText,
    "Server Error (500)\nError: loader exploded\n    at loader (/app/routes/orders.tsx:5:9)\n" +
      'File "/app/app.py", line 82, in show_item\ntotal = item["price"] * qty\n' +
      "ReferenceError: views/broken.ejs:5\n    4| <h1>Hi</h1>\n >> 5| <p><%= user.name %></p>\nuser is not defined\n" +
      "Variable: Value\nCSRF_COOKIE: '[redacted]'\nCONTENT_TYPE: 'text/plain'\nHTTP_X_CSRFTOKEN: '[redacted]'",
  );
  log("a page answered 500 is an error, with its page's text");

  // Nuxt's 500 page: what it shows, then the server's error its payload holds.
  await second.goto(`${fixture.origin}/nuxt-error`);
  const nuxtPage = await waitFor("the Nuxt 500 page's error", async () =>
    (await observe(client, { what: "errors", tabId: tabB, since_navigation: true, fields: "all" })).entries.find(
      (e) => e.source === "resource" && e.url === `${fixture.origin}/nuxt-error`,
    ),
  );
  assert.equal(
    nuxtPage.pageText,
    "500\nboom in setup\nThe server's error (Nuxt's data of the page):\n500 boom in setup\n    at setup (/app/pages/broken-ssr.vue:11:28)\n" +
      "    at renderComponentVNode (/app/node_modules/@vue/server-renderer/dist/server-renderer.cjs.js:423:15)",
  );
  log("a Nuxt page answered 500: its text, then the server's error from its payload");

  // A dedicated worker's uncaught error says it was the worker's, at its place in the worker's script.
  await second.goto(`${fixture.origin}/worker-error`);
  const [workerBoom, pageBoom] = await waitFor("the worker's and the page's errors", async () => {
    const errors = (await observe(client, { what: "errors", tabId: tabB, url: "/worker-error", fields: "all" })).entries;
    const worker = errors.find((e) => e.message.includes("worker boom"));
    const page = errors.find((e) => e.message.includes("page boom"));
    return worker && page && [worker, page];
  });
  assert.deepEqual([workerBoom.worker, workerBoom.location], ["dedicated", `${fixture.origin}/worker-error.js:2:9`], JSON.stringify(workerBoom));
  assert.equal(pageBoom.worker, undefined, JSON.stringify(pageBoom));
  log("a dedicated worker's uncaught error says worker: dedicated, at its line in the worker's script");

  // The same error page as a fetch's or an XHR's answer (an htmx request's): its text, from its
  // whole HTML past the styles, in place of the HTML.
  await second.evaluate(async () => {
    await fetch("/server-error?styled&via=fetch").then((r) => r.text());
    await new Promise((done) => {
      const xhr = new XMLHttpRequest();
      xhr.open("GET", "/server-error?styled&via=xhr");
      xhr.onloadend = done;
      xhr.send();
    });
  });
  for (const via of ["fetch", "xhr"]) {
    const answered = await waitFor(`the ${via}'s error page`, async () =>
      (await all(client, "network_bodies", { tabId: tabB })).find((e) => e.url.endsWith(`/server-error?styled&via=${via}`)),
    );
    assert.equal(answered.pageText, failedPage.pageText, via);
    assert.equal(answered.pageTextTruncated, undefined, via);
    assert.equal(answered.responseBody, "[an HTML error page: its text is pageText]", via);
    assert.ok(answered.responseBodySize > 16 * 1024 && answered.responseBodyTruncated === undefined, JSON.stringify(answered));
    assert.equal(answered.status, 500);
    // Its row says it got an error page: the summary lists it with the documents.
    const row = await waitFor(`the ${via}'s row`, async () =>
      (await all(client, "network_waterfall", { tabId: tabB })).find((e) => e.url.endsWith(`/server-error?styled&via=${via}`)),
    );
    assert.deepEqual([row.responseStatus, row.errorPage], [500, true], JSON.stringify(row));
  }
  // Where an agent looks for it: the failed requests, in compact entries.
  const listed = await observe(client, { what: "network_bodies", failed: true, url: "styled&via=xhr", tabId: tabB });
  assert.deepEqual(
    listed.entries.map((e) => [e.status, e.pageText]),
    [[500, failedPage.pageText]],
    JSON.stringify(listed),
  );
  log("an error page answered to fetch and XHR: its text, the HTML left out (its secrets: the file check below)");

  // On a page that enforces Trusted Types, reading an error page's text causes no violation: the
  // page's listeners and report endpoint hear of nothing of ours.
  await second.goto(`${fixture.origin}/trusted-types`);
  await second.evaluate(() => fetch("/server-error?styled&via=trusted-types").then((r) => r.text()));
  const underTrustedTypes = await waitFor("the error page's text on the Trusted Types page", async () =>
    (await all(client, "network_bodies", { tabId: tabB })).find((e) => e.url.endsWith("/server-error?styled&via=trusted-types")),
  );
  assert.equal(underTrustedTypes.pageText, failedPage.pageText);
  assert.deepEqual(await second.evaluate(() => window.violations), [], "no Trusted Types violation of ours");
  log("on a page that enforces Trusted Types: the error page's text, and no violation of ours");

  // With the page's own 'default' policy, a violation is stored in Chrome's console words, which
  // say why that policy made no value.
  const chromeSaid = [];
  const hear = (m) => m.text().startsWith("This document requires") && chromeSaid.push(m.text());
  second.on("console", hear);
  await second.goto(`${fixture.origin}/trusted-types?default`);
  await second.evaluate(() => {
    for (const sink of [() => (document.body.innerHTML = "<i>raw</i>"), () => setTimeout("window.ran = true")]) {
      try {
        sink();
      } catch {
        // blocked, as the page expects
      }
    }
  });
  const trustedTypesSaid = await waitFor("the Trusted Types violations", async () => {
    const stored = (await all(client, "logs", { tabId: tabB })).filter((e) => e.source === "csp" && e.url.endsWith("/trusted-types?default"));
    return stored.length === 2 && chromeSaid.length === 2 && stored.map((e) => e.message);
  });
  second.off("console", hear);
  assert.deepEqual(trustedTypesSaid, chromeSaid);
  assert.ok(trustedTypesSaid[0].includes("the 'default' policy failed to execute"), trustedTypesSaid[0]);
  log("a Trusted Types violation with the page's default policy: Chrome's words, its reason included");

  // Failures SvelteKit answers with 200 (no status shows them): error entries of their own.
  await second.evaluate(async () => {
    await fetch("/sk/broken/__data.json?x-sveltekit-invalidated=01").then((r) => r.json());
    await fetch("/sk/login?/signin", { method: "POST", headers: { "x-sveltekit-action": "true" }, body: new URLSearchParams({ email: "a@b.c" }) }).then((r) => r.json());
  });
  const framework = await waitFor("SvelteKit's two failures as errors", async () => {
    const found = (await observe(client, { what: "errors", tabId: tabB, fields: "all", limit: 100 })).entries.filter((e) => e.source === "framework");
    return found.length === 2 && found;
  });
  assert.deepEqual(
    framework.map((e) => e.message),
    [
      `SvelteKit: the load of ${fixture.origin}/sk/broken failed (500): Internal Error (its __data.json answered 200)`,
      `SvelteKit: the form action POST ${fixture.origin}/sk/login returned fail(400) (answered 200; its data is the response body)`,
    ],
  );
  assert.ok(framework.every((e) => e.level === "error" && e.resourceUrl.startsWith(`${fixture.origin}/sk/`)), JSON.stringify(framework));
  log("SvelteKit's failures answered with 200 are errors");

  // React Router's loader that threw, and its deferred value that rejected: told only in the body.
  await second.evaluate(async () => {
    await fetch("/rr/broken.data?_routes=routes%2Fbroken").then((r) => r.text());
    await fetch("/rr/slow.data").then((r) => r.text());
  });
  const routerFailures = await waitFor("React Router's two failures as errors", async () => {
    const found = (await observe(client, { what: "errors", tabId: tabB, fields: "all", limit: 100 })).entries.filter((e) => e.message.startsWith("React Router"));
    return found.length === 2 && found;
  });
  assert.deepEqual(
    routerFailures.map((e) => [e.source, e.message, e.resourceUrl.replace(fixture.origin, "")]),
    [
      ["framework", "React Router: the loader of routes/broken threw (500): inventory service unreachable (at /srv/app/app/routes/broken.tsx:5:9)", "/rr/broken.data?_routes=routes%2Fbroken"],
      ["framework", "React Router: the loader of routes/slow: its deferred reviews rejected: reviews backend timed out (at /srv/app/app/routes/slow.tsx:15:70) (the .data answered 200)", "/rr/slow.data"],
    ],
  );
  log("React Router's loader error and rejected deferred value, told in their .data bodies, are errors");

  // ---- a hostile page: private channel, native-looking wrappers, bounded reads, every secret ----
  await hostilePage({ context, client, all, waitFor, log, origin: fixture.origin, db });

  // ---- every request of a tab: frames, workers, failures, redirects; bodies joined by id ----
  await networkPage({ context, client, all, observe, waitFor, log });

  // ---- the figures page: fetch and XHR durations, per-send entries, click targets, vitals per route ----
  await figuresPage({ context, client, all, observe, waitFor, log, origin: fixture.origin, tabIdOf });

  // ---- EventSource, sendBeacon, CSP violations and failed element loads ----
  await sourcesPage({ context, client, all, waitFor, log, origin: fixture.origin, db });

  // ---- forms: a POST's answer, post-redirect-get, a form the page keeps ----
  await formsPage({ context, client, all, waitFor, log, origin: fixture.origin });

  // ---- a document left before its load ended still has its row ----
  {
    const early = await context.newPage();
    await Promise.all([early.waitForURL(`${fixture.origin}/done`), early.goto(`${fixture.origin}/left-early`, { waitUntil: "commit" })]);
    const row = await waitFor("the left document's row", async () =>
      (await all(client, "network_waterfall")).find((r) => r.url === `${fixture.origin}/left-early` && r.initiatorType === "navigation"),
    );
    assert.equal(row.responseStatus, 200, JSON.stringify(row));
    assert.equal(row.load, undefined, "its load never ended");
    await early.close();
    log("a document left before its load ended still has its row");
  }

  // ---- GraphQL: failures answered with 200, each request's operation ----
  await graphqlPage({ context, client, all, observe, waitFor, log, origin: fixture.origin });

  // ---- tRPC: a batch's failures answered 207, each request's procedures ----
  await trpcPage({ context, client, all, observe, waitFor, log, origin: fixture.origin });

  // ---- Connect-RPC: gRPC-web and a Connect stream failing under 200, each call's method ----
  await connectPage({ context, client, all, observe, waitFor, log, origin: fixture.origin });

  // ---- Socket.IO: its long polls' packets and its socket's frames, one conversation ----
  await socketIoPage({ context, client, all, waitFor, log });

  // ---- a service worker's own answer, as the page sees it ----
  await serviceWorkerPage({ context, client, observe, waitFor, log });

  // ---- a frame that routes with pushState, as Storybook's story frame ----
  await routedFramePage({ context, client, all, waitFor, log, origin: fixture.origin });

  // ---- console output as DevTools shows it: formats, call-time arguments, table/count/time/group, causes ----
  await consolePage({ context, client, all, waitFor, log, origin: fixture.origin, db });

  // ---- the server restarts while the page keeps logging ----
  await stopGasoline(client, port);
  const N = 40;
  await page.evaluate((n) => {
    for (let i = 0; i < n; i++) console.log(`during restart ${i}`);
  }, N);
  await new Promise((r) => setTimeout(r, 1500)); // the worker tries, fails, backs off
  client = await startGasoline(port, db);
  await page.evaluate(() => console.log("after restart"));
  const restartLogs = await waitFor(`all ${N} events logged while the server was down`, async () => {
    const entries = (await all(client, "logs", { tabId: tabA })).filter((e) => e.message.startsWith("during restart"));
    return entries.length >= N && entries;
  });
  assert.deepEqual(
    restartLogs.map((e) => e.message),
    Array.from({ length: N }, (_, i) => `during restart ${i}`),
    "every event once, in order",
  );
  const extLogs = await waitFor("the extension's own report of the outage", async () => {
    const entries = await all(client, "extension_logs");
    return entries.some((e) => /reachable again/.test(e.message)) && entries;
  });
  assert.ok(extLogs.some((e) => e.level === "warn" && /unreachable/.test(e.message)), JSON.stringify(extLogs));
  log(`restart: ${N} events queued while down, all delivered once`);

  // ---- the popup and the options page ----
  const extensionOrigin = worker.url().split("/").slice(0, 3).join("/"); // chrome-extension://<id>
  const popup = await context.newPage();
  await popup.goto(`${extensionOrigin}/popup/popup.html`);
  await popup.waitForFunction(
    (port) => document.getElementById("server").textContent.startsWith(`✓ http://127.0.0.1:${port}`),
    port,
  );
  const sentLogs = await popup.evaluate(() =>
    Number(document.querySelector('#kinds tr[data-kind="logs"]').cells[1].textContent),
  );
  assert.ok(sentLogs >= N, `the popup counts sent logs (${sentLogs})`);
  const options = await context.newPage();
  await options.goto(`${extensionOrigin}/options/options.html`);
  await options.waitForFunction(() => document.getElementById("serverUrl").value !== "");
  assert.equal(await options.inputValue("#serverUrl"), `http://127.0.0.1:${port}`);
  await options.uncheck("#capture-websocket_events");
  await options.fill("#redactHeaders", "x-tenant");
  await options.click("button[type=submit]");
  await options.waitForFunction(() => document.getElementById("saved").textContent === "Saved.");
  const saved = await worker.evaluate(async () => (await chrome.storage.local.get("settings")).settings);
  assert.equal(saved.capture.websocket_events, false);
  assert.deepEqual(saved.redactHeaders, ["x-tenant"]);
  // The kind switched off is captured no more: the page's next conversation leaves no event,
  // while its logs still come; every queue empty means nothing accepted is still on its way.
  const socketsBefore = (await all(client, "websocket_events")).length;
  await page.evaluate(() => (window.done.socket = false));
  await page.click("#socket");
  await page.waitForFunction(() => window.done.socket);
  await page.evaluate(() => console.log("after websocket_events off"));
  await waitFor("the log after the switch", async () => (await all(client, "logs")).some((e) => e.message === "after websocket_events off"));
  await waitFor("every queue empty", async () => {
    const status = await options.evaluate(() => chrome.runtime.sendMessage({ type: "status" }));
    return Object.values(status.queues).every((q) => q.queued === 0);
  });
  assert.equal((await all(client, "websocket_events")).length, socketsBefore, "no WebSocket event once the kind is off");
  // A URL the server would not be (credentials, a query) is refused as typed, and nothing is saved.
  await options.fill("#serverUrl", `http://user:secret@127.0.0.1:${port}/?q=1`);
  await options.fill("#redactHeaders", "x-other");
  await options.click("button[type=submit]");
  await options.waitForFunction(() => document.getElementById("saved").className === "error");
  assert.match(await options.textContent("#saved"), /Nothing was saved/);
  assert.equal(await options.getAttribute("#serverUrl", "aria-invalid"), "true");
  // The likeliest slip, no http://, is answered with what to type (not the browser's bare "enter a
  // URL"); a header name with a colon can match no header and is refused too.
  await options.fill("#serverUrl", `127.0.0.1:${port}`);
  await options.click("button[type=submit]");
  await options.waitForFunction(() => document.getElementById("saved").className === "error");
  assert.match(await options.textContent("#saved"), new RegExp(`Did you mean http://127\\.0\\.0\\.1:${port}\\?.*Nothing was saved`));
  await options.fill("#serverUrl", `http://127.0.0.1:${port}`);
  await options.fill("#redactHeaders", "x-other, Authorization: Bearer");
  await options.click("button[type=submit]");
  await options.waitForFunction(() => document.getElementById("saved").className === "error");
  assert.match(await options.textContent("#saved"), /"Authorization:" is not a header name.*nothing was saved/);
  assert.equal(await options.getAttribute("#redactHeaders", "aria-invalid"), "true");
  const kept = await worker.evaluate(async () => (await chrome.storage.local.get("settings")).settings);
  assert.deepEqual([kept.serverUrl, kept.redactHeaders], [`http://127.0.0.1:${port}`, ["x-tenant"]]);
  log("popup shows the server and the counts; options save, and refuse a URL with credentials");
  const paired = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
  assert.equal(`chrome-extension://${paired.extension_id}`, extensionOrigin, "the first extension to connect is paired");

  // ---- nothing sent twice, no secret stored anywhere ----
  const everything = [];
  const byKind = {};
  for (const what of ["logs", "network_waterfall", "network_bodies", "websocket_events", "actions", "extension_logs"]) {
    byKind[what] = await all(client, what);
    everything.push(...byKind[what]);
  }
  assertDeclared(byKind);
  const fixtureLogs = everything.filter((e) => typeof e.message === "string" && e.message.startsWith("fixture "));
  assert.equal(new Set(fixtureLogs.map((e) => e.message)).size, fixtureLogs.length, "no log delivered twice");
  await stopGasoline(client, port);
  client = null;
  const stored = ["", "-wal"].map((s) => (existsSync(db + s) ? readFileSync(db + s).toString("latin1") : "")).join("");
  for (const s of [...FIXTURE_SECRETS, ...plantedSecrets()]) assert.ok(!stored.includes(s), `secret ${s} must not be in the database file`);
  log(`${everything.length} events checked; no secret in the database file`);

  // ---- a gasoline paired with another extension refuses this one, and the popup says so ----
  const other = ["--extension-id", "ppppoooonnnnmmmmllllkkkkjjjjiiii"];
  client = await startGasoline(port, path.join(work, "other.db"), other);
  await popup.reload();
  await popup.waitForFunction(() =>
    /paired with another extension .*gasoline pair --reset --db \S*other\.db/.test(document.getElementById("server").textContent),
  );
  // The page's own popup says that what it captures is not stored yet; what it logs meanwhile
  // waits, and arrives once the person has re-paired as told.
  const pagePopup = await context.newPage();
  await pagePopup.goto(`${extensionOrigin}/popup/popup.html?tab=${tabA}`);
  await pagePopup.waitForFunction(() => /Not stored yet: the server refuses this extension/.test(document.getElementById("page-scope").textContent));
  await page.evaluate(() => console.log("logged while refused"));
  await new Promise((r) => setTimeout(r, 1500)); // refused at least once
  await stopGasoline(client, port);
  execFileSync(process.env.GASOLINE_BIN, ["pair", "--reset", "--db", path.join(work, "other.db")]);
  client = await startGasoline(port, path.join(work, "other.db"));
  await waitFor("what was logged while refused, after re-pairing", async () =>
    (await all(client, "logs", { tabId: tabA })).some((e) => e.message === "logged while refused"),
  30000);
  await pagePopup.waitForFunction(() => !/Not stored yet/.test(document.getElementById("page-scope").textContent));
  await pagePopup.close();
  await stopGasoline(client, port);
  client = null;
  log("a gasoline paired with another extension: the popup says so and how to re-pair; nothing logged meanwhile is lost");
  log("PASSED");
} catch (e) {
  fail(e.stack || String(e));
} finally {
  if (context) await context.close().catch(() => {});
  if (client) await client.close().catch(() => {});
  fixture.wss.close();
  fixture.server.close();
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
