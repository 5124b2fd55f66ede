// Source-mapped frames from a real Vite dev server: the fixture app
// (fixture/vite-app/, create-vite's React template with React as plain
// dependencies) served by Vite on 127.0.0.1 (a local development origin, so in
// the default scope), the real extension (its test build) in headless
// Chromium, the real server. A component throws while rendering: the stored
// exception's top frame reads src/App.jsx at the line of the throw, with that
// line in its context; the console.warn's call site maps to its line; React's
// own frames (Vite's pre-bundled deps, in the map's x_google_ignoreList) are
// flagged as library code; the compact answer leads with src/App.jsx. A page a
// backend serves on another port (Laravel's, Rails', Django's) loading its
// module from Vite on localhost, under a base (/static/, as django-vite sets
// it): that module's frames map too, to the source's path without the base. Then the
// same app from Vite on https with a self-signed certificate (made here with
// openssl, as Vite's basic-ssl plugin makes one): its frames map too.
//
//   GASOLINE_BIN=target/debug/gasoline node extension/test/e2e/vite.mjs
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import {
  all,
  assertDeclared,
  checkPrerequisites,
  freePort,
  gate,
  launch,
  lineOf,
  loadUntil,
  observe,
  pointAt,
  serviceWorker,
  settled,
  startDevServer,
  startGasoline,
  testBuild,
  waitFor,
} from "./harness.mjs";

function fail(message) {
  console.error(`vite e2e FAILED: ${message}`);
  process.exit(1);
}
const log = (message) => console.log(`vite e2e: ${message}`);
checkPrerequisites(fail);

const app = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixture/vite-app");
const viteBin = path.join(app, "node_modules/vite/bin/vite.js");
if (!existsSync(viteBin)) fail(`${viteBin} is missing: run scripts/setup.sh (npm ci in ${path.relative(process.cwd(), app)})`);

/** The 1-based line of `needle` in the app's src/App.jsx, and that line's text. */
const appLine = (needle) => lineOf(app, "src/App.jsx", needle);

/** A self-signed certificate for 127.0.0.1 in `dir`: the key's and the certificate's paths. */
function selfSigned(dir) {
  const key = path.join(dir, "key.pem");
  const cert = path.join(dir, "cert.pem");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
  return { key, cert };
}

/**
 * Vite's dev server on 127.0.0.1:`port`, ready; over https with `tls` ({key, cert} paths); under
 * `base` (a path such as "/static/", as django-vite sets it) if given.
 */
function startVite(port, tls, base = "/") {
  const args = ["--host", "127.0.0.1", "--port", String(port), "--strictPort", "--clearScreen", "false", "--base", base];
  return startDevServer("Vite", viteBin, args, {
    cwd: app,
    env: tls ? { VITE_HTTPS_KEY: tls.key, VITE_HTTPS_CERT: tls.cert } : {},
    ready: async (output) => (tls ? output.includes(`https://127.0.0.1:${port}`) : (await fetch(`http://127.0.0.1:${port}${base}src/App.jsx`)).ok),
  });
}

const work = mkdtempSync(path.join(tmpdir(), "gasoline-vite-"));
const db = path.join(work, "gasoline.db");
const port = await freePort();
const vitePort = await freePort();
const client = await startGasoline(port, db);
// The extension sends through a gate that can hold its batches (the section on a file saved again).
const gasoline = await gate(port);
const vite = await startVite(vitePort);
const build = testBuild(work);
let context;
let secure;
let based;
let backend;

try {
  context = await launch(path.join(work, "profile"), build, []);
  const worker = await serviceWorker(context);
  await pointAt(worker, gasoline.origin);
  const origin = `http://127.0.0.1:${vitePort}`;

  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await loadUntil("the page's console captured", page, `${origin}/?boom`, async () =>
    (await all(client, "logs")).some((e) => e.source === "exception" && e.message.includes("boom from App")),
  );
  assert.ok(pageErrors.some((m) => m.includes("boom from App")), `the page threw: ${pageErrors}`);

  const thrown = appLine('throw new Error("boom from App")');
  const warned = appLine("console.warn(");
  const exception = await waitFor("the exception's frames resolved", async () => {
    const logs = await all(client, "logs");
    return logs.find((e) => e.source === "exception" && e.message.includes("boom from App") && e.frames);
  });
  const top = exception.frames[0];
  assert.ok(top.at.startsWith(`${origin}/src/App.jsx`), `the raw top frame is Vite's module: ${JSON.stringify(top)}`);
  assert.ok(top.original, `the top frame is mapped: ${JSON.stringify(exception.frames, null, 1)}`);
  assert.equal(`${top.original.source}:${top.original.line}`, `src/App.jsx:${thrown.line}`);
  assert.equal(top.fn, "App");
  const context3 = top.original.context;
  assert.equal(context3.lines[thrown.line - context3.start], thrown.text, `the line's source text in the context: ${JSON.stringify(context3)}`);
  assert.ok(context3.lines.length === 3, JSON.stringify(context3));
  const library = exception.frames.filter((f) => f.original && f.original.ignored);
  assert.ok(library.length > 0, `React's frames are flagged as library code: ${JSON.stringify(exception.frames.map((f) => f.original?.source))}`);
  assert.ok(library.every((f) => f.original.source.startsWith("node_modules/")), JSON.stringify(library.map((f) => f.original.source)));
  log(`the exception's top frame reads src/App.jsx:${thrown.line} ("${thrown.text.trim()}"), ${library.length} React frames flagged as library code`);

  const warning = await waitFor("the console.warn's call site resolved", async () => {
    const logs = await all(client, "logs");
    return logs.find((e) => e.level === "warn" && e.message.startsWith("App rendered with count") && (e.original || e.sourcemap));
  });
  assert.equal(warning.sourcemap, undefined, `mapped: ${JSON.stringify(warning)}`);
  assert.equal(`${warning.original.source}:${warning.original.line}`, `src/App.jsx:${warned.line}`);
  // V8 places a method call at its property name: the column of `warn`.
  assert.equal(warning.original.column, warned.text.indexOf("warn(") + 1);
  log(`the console.warn's call site reads src/App.jsx:${warned.line}:${warning.original.column}`);

  // A request that failed says which line of the page's code made it, in the original source.
  const fetched = appLine('await fetch("/api/cart")');
  const cart = await waitFor("the failed request's call site resolved", async () => {
    const rows = await all(client, "network_waterfall");
    return rows.find((r) => r.url === `${origin}/api/cart` && (r.original || r.sourcemap));
  });
  assert.equal(cart.responseStatus, 500, JSON.stringify(cart));
  assert.equal(cart.pageUrl, `${origin}/?boom`, "the row names the page whose code made it");
  assert.ok(cart.location.startsWith(`${origin}/src/App.jsx`), `the raw call site is Vite's module: ${cart.location}`);
  assert.equal(cart.sourcemap, undefined, `mapped: ${JSON.stringify(cart)}`);
  const madeAt = `src/App.jsx:${fetched.line}:${fetched.text.indexOf("fetch(") + 1}`;
  assert.equal(`${cart.original.source}:${cart.original.line}:${cart.original.column}`, madeAt);
  const rows = await observe(client, { what: "network_waterfall", status_min: 500 });
  const compactRow = rows.entries.find((e) => e.id === cart.id);
  assert.equal(compactRow?.at ?? rows.common?.at, madeAt, JSON.stringify(rows));
  assert.equal(compactRow.location, undefined, "the raw call site is left out where `at` says it");
  const summary = await observe(client, { what: "summary" });
  const failedItem = summary.network_waterfall?.failed?.find((f) => f.url === `${origin}/api/cart`);
  assert.equal(failedItem?.at, madeAt, JSON.stringify(summary.network_waterfall));
  log(`the failed GET /api/cart (500) reads at ${madeAt}, in its row, its compact row and the summary`);

  // The compact answer (what an agent reads by default) leads with the agent's file.
  const errors = await observe(client, { what: "errors" });
  const compact = errors.entries.find((e) => e.id === exception.id);
  assert.ok(compact, JSON.stringify(errors));
  // A value every entry shares is said once, in `common`.
  const field = (name) => compact[name] ?? errors.common?.[name];
  if (compact.at !== undefined) {
    assert.equal(Object.keys(compact).filter((k) => !["id", "t", "tabId"].includes(k))[0], "at", JSON.stringify(compact));
  }
  assert.equal(field("at"), `src/App.jsx:${thrown.line}:${top.original.column}`, JSON.stringify(errors));
  assert.ok(field("frames").startsWith(`App src/App.jsx:${thrown.line}`), field("frames"));
  log(`the compact error leads with at: ${field("at")}`);

  // A file that no longer compiles: Vite's overlay covers the page and nothing is logged by the
  // page; its dev server's message on the HMR socket becomes an error entry.
  const appFile = path.join(app, "src/App.jsx");
  const source = readFileSync(appFile, "utf8");
  try {
    writeFileSync(appFile, `${source}\nconst broken = ;\n`);
    const compileError = await waitFor("the build error as an error entry", async () =>
      (await all(client, "logs")).find((e) => e.source === "dev-server"),
    );
    assert.equal(compileError.level, "error");
    assert.match(compileError.message, /^\[vite\] .*App\.jsx/s, compileError.message);
    // Asked by its id: the view of errors holds it (a page of errors, each with a long React stack,
    // may be cut by the answer's budget before it).
    const broke = await observe(client, { what: "errors", id: compileError.id });
    assert.ok(broke.entries.some((e) => e.id === compileError.id), `what=errors finds it: ${JSON.stringify(broke).slice(0, 1000)}`);
    // Where it broke, as `at` says where an error happened: the file and line of the dev server's loc.
    const brokenLine = `${source}\nconst broken = ;\n`.split("\n").indexOf("const broken = ;") + 1;
    // Named as the page's modules and source maps name it, not by the dev server's absolute path.
    assert.equal(compileError.original?.source, "src/App.jsx", JSON.stringify(compileError));
    assert.equal(compileError.original.line, brokenLine);
    const listed = await observe(client, { what: "errors", after_cursor: compileError.id - 1, limit: 1 });
    const brokeAt = listed.entries[0]?.at ?? listed.common?.at;
    assert.match(brokeAt || "", new RegExp(`src/App\\.jsx:${brokenLine}:\\d+$`), JSON.stringify(listed).slice(0, 1000));
    log(`a build error reads: ${compileError.message.split("\n")[0]}`);
  } finally {
    writeFileSync(appFile, source);
  }
  // Saved as it was: the page says so (Vite reloads it and no build error comes, or a hot update
  // applies), and the summary's group of that build error says it is fixed.
  const fixed = await waitFor(
    "the build error's group said fixed",
    async () => ((await observe(client, { what: "summary" })).errors?.groups || []).find((g) => g.example.startsWith("[vite]") && g.fixed),
    30000,
  );
  log(`the build error, fixed, says so in the summary: ${fixed.fixed}`);

  // A line logged just before its file is saved again reaches the server after Vite serves the
  // new version under the same URL: it is mapped with the map of the version the page ran, not
  // the new one's (statements put above it move its code down: the new map would name one of
  // them), and says its file was edited since. Its batch is held at the gate until then.
  const hmr = [];
  page.on("websocket", (ws) => ws.on("framereceived", (f) => hmr.push(String(f.payload))));
  const loaded = (await all(client, "logs")).at(-1)?.id ?? 0;
  // The resolved warnings of a render with `count`, logged after the entry `after` (none: undefined).
  const rendered = (count, after = loaded) => async () => {
    const found = (await all(client, "logs")).filter((e) => e.id > after && e.message === `App rendered with count ${count}` && (e.original || e.sourcemap));
    return found.length ? found : undefined;
  };
  // Loaded until it stays (Vite may still reload the page it had for the restored file), and all
  // its load sent: the gate then holds only what comes after.
  await loadUntil("the page at /", page, `${origin}/`, async () => new URL(page.url()).search === "" && (await page.locator("button").count()) === 1);
  await settled(context, page, client);
  const first = (await waitFor("the first render's warning resolved", rendered(0))).at(-1);
  assert.equal(first.original?.line, warned.line, JSON.stringify(first));
  const moved = 3; // statements put above the component
  try {
    gasoline.hold();
    await page.click("button");
    await waitFor("the click's warning held at the gate", async () => gasoline.held().some((b) => b.includes("App rendered with count 1")));
    const reloads = hmr.filter((f) => f.includes('"full-reload"')).length;
    writeFileSync(appFile, `${'console.debug("moved down");\n'.repeat(moved)}${source}`);
    await waitFor("Vite's reload for the edit", async () => hmr.filter((f) => f.includes('"full-reload"')).length > reloads);
    await page.waitForFunction(() => document.readyState === "complete");
    gasoline.release();
    const [clicked] = await waitFor("the click's warning resolved", rendered(1));
    assert.equal(clicked.sourcemap, undefined, `mapped: ${JSON.stringify(clicked)}`);
    assert.equal(`${clicked.original.source}:${clicked.original.line}`, `src/App.jsx:${warned.line}`, JSON.stringify(clicked));
    const { start, lines } = clicked.original.context;
    assert.equal(lines[warned.line - start], warned.text, "its context is the line that ran");
    assert.equal(clicked.original.edited, true, JSON.stringify(clicked.original));
    // What an agent reads by default says so beside the place.
    const listed = await observe(client, { what: "logs", after_cursor: clicked.id - 1, limit: 1 });
    assert.equal(listed.entries[0]?.at ?? listed.common?.at, `src/App.jsx:${warned.line}:${clicked.original.column} (edited since)`, JSON.stringify(listed));
    const [reloaded] = await waitFor("the reloaded page's warning resolved", rendered(0, clicked.id));
    assert.equal(reloaded.original?.line, warned.line + moved, JSON.stringify(reloaded));
    assert.equal(reloaded.original.edited, undefined, "the reloaded page runs the file as it is");
    log(`a line logged before its file was saved again reads src/App.jsx:${warned.line}, the reloaded page's ${warned.line + moved}`);
  } finally {
    gasoline.release();
    writeFileSync(appFile, source);
  }

  // A backend's page (its own server, another port) loading its module from Vite, named
  // localhost while the page is on 127.0.0.1: both local, both in the default scope. Vite serves
  // under a base, /static/, as django-vite has it: the source is named without it.
  const backendPort = await freePort();
  const basedPort = await freePort();
  based = await startVite(basedPort, null, "/static/");
  const moduleUrl = `http://localhost:${basedPort}/static/src/backend.jsx`;
  backend = createServer((_, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(
      `<!doctype html><title>backend</title><p>rendered by the backend</p>` +
        `<script type="module" src="http://localhost:${basedPort}/static/@vite/client"></script><script type="module" src="${moduleUrl}"></script>`,
    );
  });
  await new Promise((resolve) => backend.listen(backendPort, "127.0.0.1", resolve));
  await loadUntil("the backend page's exception captured", page, `http://127.0.0.1:${backendPort}/`, async () =>
    (await all(client, "logs")).some((e) => e.source === "exception" && e.message.includes("boom from the backend's page")),
  );
  const backendThrow = lineOf(app, "src/backend.jsx", "throw new Error(");
  const backendException = await waitFor("the backend page's exception resolved", async () => {
    const logs = await all(client, "logs");
    return logs.find((e) => e.message.includes("boom from the backend's page") && (e.frames?.[0]?.original || e.frames?.[0]?.sourcemap));
  });
  const backendTop = backendException.frames[0];
  assert.ok(backendTop.at.startsWith(moduleUrl), JSON.stringify(backendTop));
  assert.equal(backendTop.sourcemap, undefined, `Vite's module beside the page is mapped: ${JSON.stringify(backendTop)}`);
  assert.equal(`${backendTop.original.source}:${backendTop.original.line}`, `src/backend.jsx:${backendThrow.line}`);
  log(`a backend's page on another port: its Vite module's frame reads src/backend.jsx:${backendThrow.line}`);
  // Its module no longer compiles: Vite says so on its HMR socket to the backend's page.
  const backendFile = path.join(app, "src/backend.jsx");
  const backendSource = readFileSync(backendFile, "utf8");
  try {
    writeFileSync(backendFile, `${backendSource}\nconst broken = ;\n`);
    const backendBroke = await waitFor("the backend page's build error", async () =>
      (await all(client, "logs")).find((e) => e.source === "dev-server" && e.message.includes("backend.jsx")),
    );
    assert.equal(backendBroke.url, `http://127.0.0.1:${backendPort}/`, JSON.stringify(backendBroke));
    assert.equal(backendBroke.original?.source, "src/backend.jsx", JSON.stringify(backendBroke));
    log(`its build error reaches the backend's page: ${backendBroke.message.split("\n")[0]}`);
  } finally {
    writeFileSync(backendFile, backendSource);
  }

  // The same app over https, with a certificate no authority signed.
  const tls = selfSigned(work);
  const httpsPort = await freePort();
  secure = await startVite(httpsPort, tls);
  const secureOrigin = `https://127.0.0.1:${httpsPort}`;
  await loadUntil("the https page's exception captured", page, `${secureOrigin}/?boom`, async () =>
    (await all(client, "logs")).some((e) => e.source === "exception" && e.frames?.[0]?.at?.startsWith(secureOrigin)),
  );
  const secureException = await waitFor("the https exception's frames resolved", async () => {
    const logs = await all(client, "logs");
    return logs.find((e) => e.source === "exception" && e.frames?.[0]?.at?.startsWith(secureOrigin) && (e.frames[0].original || e.frames[0].sourcemap));
  });
  const secureTop = secureException.frames[0];
  assert.equal(secureTop.sourcemap, undefined, `the https frame is mapped: ${JSON.stringify(secureTop)}`);
  assert.equal(`${secureTop.original.source}:${secureTop.original.line}`, `src/App.jsx:${thrown.line}`);
  log(`over https with a self-signed certificate the top frame reads src/App.jsx:${thrown.line} too`);

  assertDeclared({ logs: await all(client, "logs") });
  log("every stored field is declared");
  console.log("vite e2e: PASS");
} catch (e) {
  console.error(`vite output:\n${vite.output()}`);
  fail(e.stack || e.message);
} finally {
  if (context) await context.close();
  for (const server of [vite, secure, based].filter(Boolean)) await server.stop();
  if (backend) await new Promise((resolve) => backend.close(resolve));
  await client.close();
  await gasoline.close();
  rmSync(work, { recursive: true, force: true });
}
