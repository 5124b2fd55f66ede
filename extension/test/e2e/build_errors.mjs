// What the dev-server e2e tests of a dev server known by its HMR socket alone (rsbuild.mjs,
// parcel.mjs) share: the fixture app served from a copy, the real extension (its test build) in
// headless Chromium, the real server. A warning the component logs maps through the dev server's
// source map to its line in src/App.jsx; a syntax error saved into the file becomes an error entry
// (`source: "dev-server"`, from the dev server's message on its HMR socket) placed at the broken
// line, leading the summary; once the file is saved as it was, the summary's group of that error
// says it is fixed.
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

/**
 * Runs the scenario for one dev server:
 * - `name`: as the test says it ("rsbuild"), its fixture `fixture/<name>-app/` with `entries` copied;
 * - `bin`: its CLI under node_modules; `args(port, work)`: how it serves the app on 127.0.0.1:`port`;
 * - `source(app, file)`: a file of the app as the dev server's source map names it, and `broken(app,
 *   file)` as its build error does;
 * - `said`: how its build error's message begins.
 */
export async function buildErrorScenario({ name, entries, bin, args, source, broken, said }) {
  const fail = (message) => {
    console.error(`${name} e2e FAILED: ${message}`);
    process.exit(1);
  };
  const log = (message) => console.log(`${name} e2e: ${message}`);
  checkPrerequisites(fail);
  // The app is served from a copy, which the test edits as a developer would.
  const { work, app } = fixtureCopy(`${name}-app`, entries, bin, fail);
  const port = await freePort();
  const devPort = await freePort();
  const client = await startGasoline(port, path.join(work, "gasoline.db"));
  const origin = `http://127.0.0.1:${devPort}`;
  const server = await startDevServer(name, path.join(app, "node_modules", bin), args(devPort, work), {
    cwd: app,
    ready: async () => (await fetch(`${origin}/`).catch(() => null))?.ok === true,
    ms: 120000,
  });
  const build = testBuild(work);
  let context;
  try {
    context = await launch(path.join(work, "profile"), build, []);
    const worker = await serviceWorker(context);
    await pointAt(worker, `http://127.0.0.1:${port}`);
    const page = await context.newPage();
    const warned = lineOf(app, "src/App.jsx", "console.warn(");
    const rendered = async () =>
      (await all(client, "logs")).find((e) => e.level === "warn" && e.message.startsWith(`${name} app rendered`) && (e.original || e.sourcemap));
    await loadUntil("the component's warning captured", page, `${origin}/`, async () => Boolean(await rendered()));
    const warning = await waitFor("the warning's call site resolved", rendered, 30000);
    assert.equal(`${warning.original?.source}:${warning.original?.line}`, `${source(app, "src/App.jsx")}:${warned.line}`, JSON.stringify(warning));
    log(`the component's warning maps through the dev server's map to src/App.jsx:${warned.line}`);

    // A syntax error saved into the file: the dev server says so on its HMR socket.
    await brokenThenFixed({ client, file: path.join(app, "src/App.jsx"), before: "  const [count, setCount]", said, source: broken(app, "src/App.jsx"), log });

    assertDeclared({ logs: await all(client, "logs") });
    log("every stored field is declared");
    console.log(`${name} e2e: PASS`);
  } catch (e) {
    console.error(`${name} output:\n${server.output()}`);
    fail(e.stack || e.message);
  } finally {
    if (context) await context.close();
    await server.stop();
    await client.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * A syntax error (`  const broken = ;`) saved into `file` before the line beginning `before`: an
 * error entry from the dev server (`source: "dev-server"`) whose message begins `said`, placed at
 * `source`, the broken line and the `;`'s column, leading the summary; once the file is saved as it
 * was, the summary's group of that error says it is fixed.
 */
export async function brokenThenFixed({ client, file, before, said, source, log }) {
  const text = readFileSync(file, "utf8");
  const brokenText = text.replace(before, `  const broken = ;\n${before}`);
  const brokenLine = brokenText.split("\n").indexOf("  const broken = ;") + 1;
  let broke;
  try {
    writeFileSync(file, brokenText);
    broke = await waitFor("the build error as an error entry", async () => (await all(client, "logs")).find((e) => e.source === "dev-server"), 60000);
    assert.equal(broke.level, "error");
    assert.ok(broke.message.startsWith(said), broke.message);
    // Placed at the `;` the parser did not expect, 1-based as editors count.
    const where = [source, brokenLine, "  const broken = ;".length];
    assert.deepEqual([broke.original?.source, broke.original?.line, broke.original?.column], where, JSON.stringify(broke));
    // What an agent reads first: the summary leads with it, placed at the broken line.
    const first = (await observe(client, { what: "summary" })).errors?.groups?.[0];
    assert.ok(first?.example.startsWith(said) && first.fixed === undefined, JSON.stringify(first));
    assert.equal(first.at, where.join(":"), JSON.stringify(first));
    log(`a syntax error reads ${first.at} and leads the summary`);
  } finally {
    writeFileSync(file, text);
  }
  // Saved as it was: the build succeeds again, and the summary's group says the error is fixed.
  const fixed = await waitFor(
    "the build error's group said fixed",
    async () => ((await observe(client, { what: "summary" })).errors?.groups || []).find((g) => g.first_id === broke.id && g.fixed),
    60000,
  );
  log(`saved again as it was, the build error says: ${fixed.fixed}`);
}
