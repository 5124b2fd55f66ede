// Source-mapped frames from a real webpack dev server whose every module runs
// through eval (devtool "eval-source-map", Next.js's webpack dev default): the
// fixture app (fixture/webpack-app/) served by webpack-dev-server on 127.0.0.1,
// the real extension (its test build) in headless Chromium, the real server.
// Chrome names such frames by the module's sourceURL
// (webpack-internal:///./src/util.js:L:C), which no URL serves: the server finds
// the module's inline map in the bundle that holds it. An uncaught error thrown
// in src/util.js maps to the line of the throw, with the caller's frame in
// src/index.js; a console.warn there, made through a library that wraps the
// console (ignore-listed), reads as its own line in src/util.js; after an edit
// of the served copy, the reloaded page's error reads as the edited line; a
// syntax error saved into it becomes an error entry from webpack-dev-server's
// socket (`source: "dev-server"`) placed at the broken line and column, leading
// the summary, which says it is fixed once the file is saved back.
//
//   GASOLINE_BIN=target/debug/gasoline node extension/test/e2e/webpack.mjs
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

import {
  all,
  assertDeclared,
  checkPrerequisites,
  fixtureCopy,
  freePort,
  launch,
  lineOf,
  loadUntil,
  observe,
  pointAt,
  serviceWorker,
  startDevServer,
  startGasoline,
  testBuild,
  waitFor,
} from "./harness.mjs";
import { brokenThenFixed } from "./build_errors.mjs";

function fail(message) {
  console.error(`webpack e2e FAILED: ${message}`);
  process.exit(1);
}
const log = (message) => console.log(`webpack e2e: ${message}`);
checkPrerequisites(fail);

/** webpack-dev-server on 127.0.0.1:`port`, its bundle built and served. */
function startWebpack(port) {
  return startDevServer("webpack-dev-server", cli, ["serve", "--host", "127.0.0.1", "--port", String(port)], {
    cwd: app,
    ready: async () => {
      const r = await fetch(`http://127.0.0.1:${port}/main.js`).catch(() => null);
      return r && r.ok && (await r.text()).includes("sourceURL=webpack-internal:///./src/util.js");
    },
    ms: 120000,
  });
}

// The app is served from a copy, which the test edits as a developer would.
const { work, app } = fixtureCopy("webpack-app", ["package.json", "webpack.config.js", "public", "src"], "webpack-cli/bin/cli.js", fail);
const cli = path.join(app, "node_modules/webpack-cli/bin/cli.js");
const db = path.join(work, "gasoline.db");
const port = await freePort();
const webpackPort = await freePort();
const client = await startGasoline(port, db);
const server = await startWebpack(webpackPort);
const build = testBuild(work);
let context;

try {
  context = await launch(path.join(work, "profile"), build, []);
  const worker = await serviceWorker(context);
  await pointAt(worker, `http://127.0.0.1:${port}`);
  const origin = `http://127.0.0.1:${webpackPort}`;

  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await loadUntil("the page's exception captured", page, `${origin}/?boom`, async () =>
    (await all(client, "logs")).some((e) => e.source === "exception" && e.message.includes("boom from util")),
  );
  assert.ok(pageErrors.some((m) => m.includes("boom from util")), `the page threw: ${pageErrors}`);

  const thrown = lineOf(app, "src/util.js", "throw new Error(message)");
  const warned = lineOf(app, "src/util.js", "console.warn(");
  const called = lineOf(app, "src/index.js", 'explode("the page asked for it")');

  const exception = await waitFor("the exception's frames resolved", async () => {
    const logs = await all(client, "logs");
    return logs.find((e) => e.source === "exception" && e.message.includes("boom from util") && e.frames);
  }, 30000); // the scripts' rows may come late on a busy machine: the resolver tries for up to 14 s
  const [top, caller] = exception.frames;
  assert.ok(top.at.startsWith("webpack-internal:///./src/util.js:"), `the raw top frame is the eval'd module's: ${JSON.stringify(top)}`);
  assert.ok(top.original, `the top frame is mapped: ${JSON.stringify(exception.frames, null, 1)}`);
  assert.equal(`${top.original.source}:${top.original.line}`, `src/util.js:${thrown.line}`);
  assert.equal(top.fn, "explode");
  const around = top.original.context;
  assert.equal(around.lines[thrown.line - around.start], thrown.text, `the line's source text: ${JSON.stringify(around)}`);
  assert.ok(caller && caller.original, `the caller's frame is mapped too: ${JSON.stringify(exception.frames, null, 1)}`);
  assert.equal(`${caller.original.source}:${caller.original.line}`, `src/index.js:${called.line}`);
  log(`the exception's top frame reads src/util.js:${thrown.line} ("${thrown.text.trim()}"), its caller src/index.js:${called.line}`);

  // The app's console.warn goes through a library's wrapper (src/vendor/breadcrumbs.js, marked as
  // library code in the maps' ignoreList, as an error tracker's would be): that wrapper is the call
  // site, and the page's own line is the first of its callers.
  const wrapped = lineOf(app, "src/vendor/breadcrumbs.js", "original.apply(console, args)");
  const warning = await waitFor("the console.warn's call site and callers resolved", async () => {
    const logs = await all(client, "logs");
    return logs.find((e) => e.level === "warn" && e.message.startsWith("util announces") && (e.original || e.sourcemap) && e.frames);
  }, 30000);
  assert.ok(warning.location.startsWith("webpack-internal:///./src/vendor/breadcrumbs.js:"), warning.location);
  assert.equal(`${warning.original.source}:${warning.original.line}`, `src/vendor/breadcrumbs.js:${wrapped.line}`);
  assert.equal(warning.original.ignored, true, `the wrapper is library code: ${JSON.stringify(warning.original)}`);
  assert.ok(warning.callers.startsWith("webpack-internal:///./src/util.js:"), warning.callers);
  const first = warning.frames[0].original;
  assert.equal(`${first.source}:${first.line}`, `src/util.js:${warned.line}`, JSON.stringify(warning.frames));
  // webpack maps a module without a loader statement by statement, not token by token: the line
  // is exact; a line mapped by one segment from its start to the original line's start tells no
  // column, and none is given.
  assert.ok(first.column === undefined || (first.column >= 1 && first.column <= warned.text.length), JSON.stringify(first));
  const where = `src/util.js:${warned.line}${first.column === undefined ? "" : `:${first.column}`}`;
  // What an agent reads by default: the compact entry's `at` is the page's own line.
  const compact = await observe(client, { what: "logs", level: "warn" });
  const entry = compact.entries.find((e) => e.id === warning.id);
  assert.ok(entry, JSON.stringify(compact));
  assert.equal(entry.at ?? compact.common?.at, where, JSON.stringify(compact));
  log(`the console.warn through a library's wrapper reads ${where} (the wrapper's frame flagged as library code)`);

  // An edit: three lines added above the throw. The dev server rebuilds and the page reloads; the
  // reloaded page's error, at its new position in the eval'd module, maps to the edited line.
  const utilPath = path.join(app, "src/util.js");
  writeFileSync(utilPath, `// edited\n// once\n// more\n${readFileSync(utilPath, "utf8")}`);
  const edited = lineOf(app, "src/util.js", "throw new Error(message)");
  assert.equal(edited.line, thrown.line + 3);
  const after = await waitFor("the edited page's exception resolved", async () => {
    await page.goto(`${origin}/?boom`);
    await page.waitForFunction(() => document.readyState === "complete");
    const logs = await all(client, "logs");
    return logs.find((e) => e.source === "exception" && e.frames?.[0]?.original?.line === edited.line);
  }, 60000);
  assert.equal(after.frames[0].original.source, "src/util.js");
  assert.equal(after.frames[0].original.context.lines[edited.line - after.frames[0].original.context.start], edited.text);
  log(`after an edit the reloaded page's error reads src/util.js:${edited.line}`);

  // A syntax error saved into the file: webpack-dev-server says so on its socket (`/ws`), and its
  // client prevents the reload, so the page runs the old code.
  await brokenThenFixed({ client, file: utilPath, before: "  const message =", said: "[webpack] ERROR in ./src/util.js", source: "src/util.js", log });

  assertDeclared({ logs: await all(client, "logs") });
  log("every stored field is declared");
  console.log("webpack e2e: PASS");
} catch (e) {
  console.error(`webpack-dev-server output:\n${server.output()}`);
  fail(e.stack || e.message);
} finally {
  if (context) await context.close();
  await server.stop();
  await client.close();
  rmSync(work, { recursive: true, force: true });
}
