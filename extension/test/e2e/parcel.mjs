// A dev server the extension knows by its HMR socket alone: Parcel serving the fixture app
// (fixture/parcel-app/) on 127.0.0.1, the real extension (its test build) in headless Chromium, the
// real server. A warning the component logs maps through Parcel's source map to its line in
// src/App.jsx; a syntax error saved into the file becomes an error entry (`source: "dev-server"`,
// from Parcel's `{"type":"error","diagnostics":…}` message) placed at the broken line, and once the
// file is saved as it was, the summary's group of that error says it is fixed (Parcel's runtime
// logs "[parcel] ✨ Error resolved").
//
//   GASOLINE_BIN=target/debug/gasoline node extension/test/e2e/parcel.mjs
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

function fail(message) {
  console.error(`parcel e2e FAILED: ${message}`);
  process.exit(1);
}
const log = (message) => console.log(`parcel e2e: ${message}`);
checkPrerequisites(fail);

// The app is served from a copy, which the test edits as a developer would.
const { work, app } = fixtureCopy("parcel-app", ["package.json", "src"], "parcel/lib/bin.js", fail);
const db = path.join(work, "gasoline.db");
const port = await freePort();
const parcelPort = await freePort();
const client = await startGasoline(port, db);
const origin = `http://127.0.0.1:${parcelPort}`;
const server = await startDevServer(
  "parcel",
  path.join(app, "node_modules/parcel/lib/bin.js"),
  ["serve", "src/index.html", "--host", "127.0.0.1", "--port", String(parcelPort), "--no-autoinstall", "--cache-dir", path.join(work, "parcel-cache"), "--dist-dir", path.join(work, "dist")],
  { cwd: app, ready: async () => (await fetch(`${origin}/`).catch(() => null))?.ok === true, ms: 120000 },
);
const build = testBuild(work);
let context;

try {
  context = await launch(path.join(work, "profile"), build, []);
  const worker = await serviceWorker(context);
  await pointAt(worker, `http://127.0.0.1:${port}`);
  const page = await context.newPage();
  const warned = lineOf(app, "src/App.jsx", "console.warn(");
  const rendered = async () => (await all(client, "logs")).find((e) => e.level === "warn" && e.message.startsWith("parcel app rendered") && (e.original || e.sourcemap));
  await loadUntil("the component's warning captured", page, `${origin}/`, async () => Boolean(await rendered()));
  const warning = await waitFor("the warning's call site resolved", rendered, 30000);
  assert.ok(warning.original?.source?.endsWith("src/App.jsx"), JSON.stringify(warning));
  assert.equal(warning.original.line, warned.line, JSON.stringify(warning));
  log(`the component's warning maps through Parcel's map to ${warning.original.source}:${warned.line}`);

  // A syntax error saved into the file: Parcel says so on its HMR socket.
  const appFile = path.join(app, "src/App.jsx");
  const source = readFileSync(appFile, "utf8");
  const brokenSource = source.replace("  const [count, setCount]", "  const broken = ;\n  const [count, setCount]");
  const brokenLine = brokenSource.split("\n").indexOf("  const broken = ;") + 1;
  let broke;
  try {
    writeFileSync(appFile, brokenSource);
    broke = await waitFor("the build error as an error entry", async () => (await all(client, "logs")).find((e) => e.source === "dev-server"), 60000);
    assert.equal(broke.level, "error");
    assert.match(broke.message, /^\[parcel\] @parcel\/transformer-js: /, broke.message);
    assert.deepEqual([broke.original?.source, broke.original?.line], [path.join(app, "src/App.jsx"), brokenLine], JSON.stringify(broke));
    // What an agent reads first: the summary leads with it, placed at the broken line.
    const summary = await observe(client, { what: "summary" });
    const first = summary.errors?.groups?.[0];
    assert.ok(first?.example.startsWith("[parcel]") && first.fixed === undefined, JSON.stringify(summary.errors));
    assert.ok((first.at || "").endsWith(`src/App.jsx:${brokenLine}:18`), JSON.stringify(first));
    log(`a syntax error reads ${first.at} and leads the summary`);
  } finally {
    writeFileSync(appFile, source);
  }
  // Saved as it was: the build succeeds again, and the summary's group says the error is fixed.
  const fixed = await waitFor(
    "the build error's group said fixed",
    async () => ((await observe(client, { what: "summary" })).errors?.groups || []).find((g) => g.first_id === broke.id && g.fixed),
    60000,
  );
  log(`saved again as it was, the build error says: ${fixed.fixed}`);

  assertDeclared({ logs: await all(client, "logs") });
  log("every stored field is declared");
  console.log("parcel e2e: PASS");
} catch (e) {
  console.error(`parcel output:\n${server.output()}`);
  fail(e.stack || e.message);
} finally {
  if (context) await context.close();
  await server.stop();
  await client.close();
  rmSync(work, { recursive: true, force: true });
}
