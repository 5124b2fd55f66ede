// The console fixture page (fixture/console*.js) in the real extension:
// console output as DevTools shows it, read back through MCP observe.
// Called by run.mjs with the running browser and server.
import assert from "node:assert/strict";

import { storedBytes } from "./hostile.mjs";

const SECRETS = ["FORMAT-SECRET-1", "TABLE-SECRET-2", "CAUSE-SECRET-3"];

export async function consolePage({ context, client, all, waitFor, log, origin, db }) {
  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  const url = `${origin}/console.html`;
  await page.goto(url);
  await page.waitForFunction(() => window.done);
  assert.deepEqual(await page.evaluate(() => window.notNative), [], "wrapped console methods that do not look native");

  const logs = await waitFor("the console page's logs", async () => {
    const entries = (await all(client, "logs")).filter((e) => e.url === url);
    const ok =
      entries.some((e) => e.message === "e2e blob") &&
      entries.some((e) => e.source === "exception") &&
      entries.some((e) => e.source === "unhandledrejection") &&
      entries.some((e) => e.method === "timeEnd" && e.message.startsWith("e2e timer"));
    return ok && entries;
  });
  const one = (what, pred) => {
    const found = logs.filter(pred);
    assert.equal(found.length, 1, `one entry for ${what}: ${JSON.stringify(logs.map((e) => e.message))}`);
    return found[0];
  };
  const byMessage = (m) => one(m, (e) => e.message === m);
  const site = new RegExp(`^${origin.replace(/[.]/g, "\\.")}/console-fixture\\.js:\\d+:\\d+$`);

  // Format specifiers.
  const warning = one("the React warning", (e) => e.message.startsWith("Warning: "));
  assert.equal(
    warning.message,
    'Warning: Each child in a list should have a unique "key" prop.\n    in li (created by List)\n    in List (created by App)',
  );
  assert.equal(warning.level, "error");
  assert.match(warning.location, site);
  byMessage("e2e styled 99% done");
  const login = byMessage('e2e login ann with {"user":"ann","password":"[redacted]"}');
  assert.deepEqual(login.redacted, ["message.password"]);
  log("console: a React %s warning arrives formatted, %c styles dropped, %o arguments redacted");

  // Arguments as they were when logged.
  byMessage('e2e state {"step":"as logged","items":[1],"nested":{"ok":true}}');
  log("console: an object mutated right after console.log arrives as it was");
  byMessage('e2e cart {"total":NaN,"coupon":undefined,"cents":12n,"label":"NaN"}');
  log("console: NaN, undefined and a bigint inside a logged object arrive bare, not as strings");

  // count, time, group, table, assert.
  assert.deepEqual(
    logs.filter((e) => e.method === "count").map((e) => [e.message, e.count]),
    [["e2e clicks: 1", 1], ["e2e clicks: 2", 2]],
  );
  const reset = byMessage("Count for 'e2e never counted' does not exist");
  assert.deepEqual([reset.level, reset.method], ["warn", "countReset"]);
  const missing = byMessage("Timer 'e2e missing timer' does not exist");
  assert.deepEqual([missing.level, missing.method], ["warn", "timeEnd"]);
  const timer = one("the timer", (e) => e.method === "timeEnd" && e.level === "log");
  assert.match(timer.message, /^e2e timer: \d+(\.\d+)? ms$/);
  assert.match(timer.location, site);
  const outer = byMessage("e2e outer group");
  assert.deepEqual([outer.method, outer.group], ["group", undefined]);
  assert.deepEqual(byMessage("e2e inside").group, ["e2e outer group"]);
  const inner = byMessage("e2e inner");
  assert.deepEqual([inner.method, inner.group], ["groupCollapsed", ["e2e outer group"]]);
  assert.deepEqual(byMessage("e2e deep inside").group, ["e2e outer group", "e2e inner"]);
  assert.equal(byMessage("e2e after groups").group, undefined);
  const table = one("the table", (e) => e.method === "table");
  assert.equal(
    table.message,
    [
      "| (index) | name | role | password |",
      "| --- | --- | --- | --- |",
      "| 0 | ann | admin | [redacted] |",
      "| 1 | bob | dev |  |",
    ].join("\n"),
  );
  assert.deepEqual(table.redacted, ["message.password"]);
  const failed = byMessage("Assertion failed: e2e math is broken");
  assert.deepEqual([failed.level, failed.method], ["error", "assert"]);
  assert.match(failed.stack, /^Assertion failed\n {4}at .*console-fixture\.js:\d+:\d+/);
  assert.ok(!failed.stack.includes("gasoline://") && !failed.stack.includes("chrome-extension://"), failed.stack);
  log("console: count, countReset and timeEnd warnings, time, group paths, table, assert");

  // Call sites under the schemes bundlers use.
  assert.equal(byMessage("e2e webpack-internal").location, "webpack-internal:///./src/App.js:1:9");
  assert.match(byMessage("e2e eval").location, new RegExp(`^${site.source.slice(1, -1)} \\(eval <anonymous>:1:9\\)$`));
  assert.match(byMessage("e2e blob").location, new RegExp(`^blob:${origin.replace(/[.]/g, "\\.")}/[0-9a-f-]{36}:1:9$`));
  log("console: call sites under webpack-internal:///, eval and blob:");

  // A cause chain ending in an AggregateError, uncaught; an unhandled Promise.any.
  const exception = one("the uncaught error", (e) => e.source === "exception");
  assert.equal(
    exception.message,
    [
      "Error: e2e checkout failed",
      "Caused by: AggregateError: e2e all mirrors failed",
      "  [0] Error: e2e mirror 1 down",
      "  [1] TypeError: e2e mirror 2 token=[redacted]",
    ].join("\n"),
  );
  assert.match(exception.stack, /^Error: e2e checkout failed\n {4}at .*console-fixture\.js/);
  assert.match(exception.stack, /\nCaused by: AggregateError: e2e all mirrors failed\n {4}at .*console-fixture\.js/);
  assert.match(exception.stack, /\n {2}\[1\] TypeError: e2e mirror 2 token=\[redacted\]\n {6}at .*console-fixture\.js/);
  const any = one("the unhandled Promise.any", (e) => e.source === "unhandledrejection");
  assert.equal(
    any.message,
    "Unhandled rejection: AggregateError: All promises were rejected\n  [0] Error: e2e any 1\n  [1] RangeError: e2e any 2",
  );
  assert.deepEqual(
    pageErrors.filter((m) => !/e2e checkout failed|All promises were rejected/.test(m)),
    [],
    "the page saw no errors but its own",
  );
  log("console: an uncaught error's cause chain and AggregateError members, an unhandled Promise.any's members");

  const everything = JSON.stringify(logs);
  const stored = storedBytes(db);
  for (const s of SECRETS) {
    assert.ok(!everything.includes(s), `${s} in a logs entry`);
    assert.ok(!stored.includes(s), `${s} in the database file`);
  }
  log("console: secrets in format arguments, table cells and causes redacted");
  await page.close();
}
