// What a developer sees in Chrome's own DevTools beside Gasoline: the console's
// link for a message the page logged names the page's line (app.js:2), not the
// wrapper of ours that called the built-in console (page/console.js), and an
// error's stack trace leads with the page's frames. Our page-world files put
// themselves on DevTools' ignore list (test/unit/ignore_list.mjs); this runs the
// real DevTools front end that Chromium bundles, connected to a page of the
// shipped extension's default scope (127.0.0.1), and reads its console.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { chromium } from "playwright-core";

import { browserPath, checkPrerequisites, extensionDir, extensionScripts, freePort, serve, waitFor } from "./harness.mjs";

function fail(message) {
  console.error(`devtools e2e FAILED: ${message}`);
  process.exit(1);
}
const log = (message) => console.log(`devtools e2e: ${message}`);
checkPrerequisites(fail);

const APP = `function go() {
  console.log("hello from app");
}
function boom() {
  console.error(new Error("app error"));
}
function lost() {
  fetch("http://127.0.0.1:9/nothing-listens-here");
}
window.go = go;
window.boom = boom;
window.lost = lost;
console.log("app started");
`;
const app = await serve((req, res) => {
  if (req.url === "/app.js") {
    res.writeHead(200, { "content-type": "text/javascript" });
    res.end(APP);
  } else {
    res.writeHead(200, { "content-type": "text/html" });
    res.end('<!doctype html><title>devtools fixture</title><script src="/app.js"></script><p>app</p>');
  }
});
const page = `${app.origin}/`;
const work = mkdtempSync(path.join(tmpdir(), "gasoline-devtools-"));
const debugPort = await freePort();
let context;
try {
  context = await chromium.launchPersistentContext(path.join(work, "profile"), {
    executablePath: browserPath,
    headless: true,
    args: [
      `--disable-extensions-except=${extensionDir}`,
      `--load-extension=${extensionDir}`,
      `--remote-debugging-port=${debugPort}`,
      "--remote-allow-origins=devtools://devtools", // the front end's own origin
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
    ],
  });
  // The app, loaded until Gasoline's scripts run in it (the first load may come before they are registered).
  const app = await context.newPage();
  await waitFor(
    "Gasoline's scripts in the page",
    async () => {
      await app.goto(page);
      return (await extensionScripts(app)).some((u) => u.endsWith("/page/console.js"));
    },
    30000,
  );
  const targets = await (await fetch(`http://127.0.0.1:${debugPort}/json`)).json();
  const target = targets.find((t) => t.type === "page" && t.url === page);
  assert.ok(target, JSON.stringify(targets));
  const devtools = await context.newPage();
  await devtools.goto(`devtools://devtools/bundled/devtools_app.html?ws=127.0.0.1:${debugPort}/devtools/page/${target.id}&panel=console`);
  const messages = devtools.locator(".console-message-wrapper");
  // DevTools shows a message only once connected: log until one appears.
  await waitFor("DevTools connected to the page", async () => {
    await app.evaluate(() => console.log("connected?"));
    return (await messages.count()) > 0;
  });
  // Then the developer reloads the app with DevTools open: its console is cleared, and the new
  // page's scripts (ours first, at document_start) are parsed with their source maps.
  await app.reload();
  await waitFor("the reloaded page's startup log", async () => (await messages.allInnerTexts()).some((t) => t.includes("app started")));
  await app.evaluate(() => window.go());
  await app.evaluate(() => window.boom());
  await app.evaluate(() => window.lost());
  const shown = await waitFor("the page's log, its error and its failed fetch", async () => {
    const all = await messages.allInnerTexts();
    const find = (text) => all.find((t) => t.includes(text));
    return (
      find("hello from app") &&
      find("app error") &&
      find("Failed to fetch") && { started: find("app started"), log: find("hello from app"), error: find("app error"), fetch: find("Failed to fetch") }
    );
  });
  // Each text: a repeat count if DevTools folded the same message, the source link, the message.
  const source = (text) => text.replace(/^\d+\n/, "").split(" ", 1)[0];
  assert.deepEqual([source(shown.started), source(shown.log), source(shown.error)], ["app.js:13", "app.js:2", "app.js:5"], JSON.stringify(shown));
  assert.doesNotMatch(shown.error, /console\.js|chrome-extension:/, `no frame of ours shown: ${JSON.stringify(shown.error)}`);
  // A fetch the page leaves unhandled: "Uncaught (in promise) TypeError: Failed to fetch", its stack
  // led by the page's call. (Its link names our fetch.js: DevTools places an exception at its
  // error's first frame, ignore list or not, and the native fetch was called by our wrapper.)
  assert.match(shown.fetch, /Failed to fetch\s+at lost \(app\.js:8:3\)/, JSON.stringify(shown.fetch));
  assert.doesNotMatch(shown.fetch.replace(/^\S+/, ""), /chrome-extension:|fetch\.js/, `no frame of ours in its stack: ${JSON.stringify(shown.fetch)}`);
  log("DevTools names the page's line as a console message's source, and shows no frame of ours");
  log("PASSED");
} catch (e) {
  fail(e.stack || e.message);
} finally {
  if (context) await context.close();
  app.server.close();
  rmSync(work, { recursive: true, force: true });
}
