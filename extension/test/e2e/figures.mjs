// The figures fixture page (fixture/figures*.js): the numbers Gasoline records
// must be the right ones. A streamed fetch's duration runs to the end of its
// body; a reused XMLHttpRequest gives one entry per send; a click is described
// before the page's handler replaces the button; vitals start afresh on a soft
// navigation, and the page left keeps the interaction that left it. Called by
// run.mjs with the running browser and server; one page load for every check.
import assert from "node:assert/strict";

import { settled } from "./harness.mjs";

const STREAM_MS = 1500; // the fixture server's /slow-stream body, after the page asks for it

export async function figuresPage({ context, client, all, observe, waitFor, log, origin, tabIdOf }) {
  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  const url = `${origin}/figures.html`;
  await page.goto(url);
  const [tab] = await waitFor("the figures tab's id", async () => (await tabIdOf(url)).length === 1 && tabIdOf(url));

  // ---- fetch: duration to the end of the body, headersMs to the headers ----
  assert.equal(await page.evaluate(() => window.streamFetch()), 16 * 100, "the page read the whole stream");
  // ---- XHR: one object, three sends ----
  assert.deepEqual(await page.evaluate(() => window.reuseXhr()), ["reuse 1", "reuse 2", "reuse 3"]);
  // ---- a click whose handler (the page's first) renames the button and replaces it ----
  await page.click("#swap");
  assert.equal(await page.evaluate(() => window.figures.swapped), true);

  const bodies = await waitFor("the streamed fetch and the three XHR sends", async () => {
    const entries = (await all(client, "network_bodies", { tabId: tab })).filter((e) => /\/(slow-stream|reuse)\?/.test(e.url));
    return entries.some((e) => e.url.includes("/slow-stream")) && entries.filter((e) => e.url.includes("/reuse")).length >= 3 && entries;
  });
  const stream = bodies.find((e) => e.url.includes("/slow-stream"));
  assert.equal(stream.durationTo, "body", "the whole body was read, by the page's own text()");
  assert.equal(stream.responseBody.length, 16 * 100, "and captured");
  assert.ok(stream.duration >= STREAM_MS, `duration ${stream.duration} ms covers the ${STREAM_MS} ms body`);
  assert.ok(
    stream.headersMs <= stream.duration - STREAM_MS,
    `the headers (${stream.headersMs} ms) came before the body's ${STREAM_MS} ms began (duration ${stream.duration} ms)`,
  );
  const reuse = bodies.filter((e) => e.url.includes("/reuse"));
  await settled(context, page, client); // what the page recorded is stored: a duplicate would be too
  const again = (await all(client, "network_bodies", { tabId: tab })).filter((e) => e.url.includes("/reuse"));
  assert.deepEqual(
    again.map((e) => [e.method, new URL(e.url).pathname + new URL(e.url).search, e.status, e.responseBody]),
    [
      ["GET", "/reuse?n=1", 200, "reuse 1"],
      ["POST", "/reuse?n=2", 200, "reuse 2"],
      ["GET", "/reuse?n=3", 200, "reuse 3"],
    ],
    "exactly one entry per send, each with its own method and url",
  );
  assert.equal(reuse.length, 3);
  assert.equal(again[1].requestBody, "n=2");
  log(`figures: streamed fetch ${Math.round(stream.duration)} ms (headers ${Math.round(stream.headersMs)} ms); reused XHR: 3 sends, 3 entries`);

  const click = await waitFor("the click on the replaced button", async () =>
    (await all(client, "actions", { tabId: tab })).find((e) => e.type === "click" && e.url === url),
  );
  assert.equal(click.selector, "#swap", "the button as it was clicked, not as the handler left it (#gone)");
  assert.equal(click.text, "Replace me");
  assert.equal(click.tag, "button");
  log("figures: a click described before the page's handler replaced the button");

  // ---- vitals: the load, then a soft navigation ----
  const vitalsOf = async (want) => {
    const v = (await observe(client, { what: "vitals", tabId: tab })).vitals;
    return v && want(v) && v;
  };
  await page.evaluate(() => window.shiftBig());
  await page.click("#slow"); // 300 ms of work in its handler
  const first = await waitFor("the load's vitals with its shift and its slow click", () =>
    vitalsOf((v) => v.url === url && v.cls > 0.02 && v.inp >= 250),
  );
  assert.equal(typeof first.ttfb, "number");
  assert.equal(typeof first.fcp, "number");
  assert.equal(first.extra && first.extra.navigation, "load");

  const two = `${origin}/figures/two`;
  await page.evaluate(() => {
    history.pushState({}, "", "/figures/two");
    window.shiftSmall();
  });
  const second = await waitFor("fresh vitals for the second route", () => vitalsOf((v) => v.url === two));
  assert.ok(second.cls > 0 && second.cls < 0.01, `only the second route's small shift counts: cls ${second.cls}`);
  assert.equal(second.inp, null, "no interaction yet on the second route: the first route's 300 ms click is not its INP");
  assert.deepEqual([second.lcp, second.fcp, second.ttfb], [null, null, null], "LCP, FCP and TTFB belong to the load");
  assert.equal(second.extra && second.extra.navigation, "pushState");

  // The click that leaves the second route is the second route's interaction.
  await page.click("#nav"); // 150 ms of work, then pushState to /figures/three
  // The row is the third route's by now, or soon: the second's final values are then the newest of `previous`.
  const pageOf = async (want) => {
    const v = (await observe(client, { what: "vitals", tabId: tab })).vitals;
    return v && [v, ...(v.previous || [])].find(want);
  };
  const left = await waitFor("the second route's final vitals, with the click that left it", () =>
    pageOf((v) => v.url === two && v.inp !== null),
  );
  const load = await waitFor("the load's final vitals among the tab's earlier pages", () =>
    pageOf((v) => v.url === url && v.inp !== null),
  );
  assert.ok(load.cls >= first.cls && load.inp >= first.inp, `the load's values, kept when the route changed: ${JSON.stringify(load)}`);
  assert.ok(left.inp >= 120, `the navigating click's latency: ${left.inp} ms`);
  assert.equal(left.cls, second.cls, "the same page, its final values");
  assert.deepEqual(pageErrors, [], "the page saw no errors");
  log(`figures: vitals per route (load cls ${first.cls.toFixed(3)} inp ${first.inp}; /figures/two cls ${second.cls.toFixed(4)}, inp ${left.inp} from the click that left it)`);
  await page.close();
}
