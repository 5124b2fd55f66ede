// The viewer (http://127.0.0.1:PORT/) in headless Chromium, fed stored data of the shapes a
// page may send that viewer.mjs's fixture does not: times at the ends of what ingest takes,
// multi-line messages, the page's own keys that start with "_", structures of the wrong shape,
// values longer than a line or than one read, requests spread over a long time, a flood while
// the person reads older rows, failed requests on the timeline, and a clear. Each check says
// what a person would see; every check runs, and the run fails when any did.
//
//   GASOLINE_BIN=target/debug/gasoline node extension/test/e2e/viewer_shapes.mjs
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { chromium } from "playwright-core";

import { browserPath, checkPrerequisites, extensionDir, freePort, startGasoline, waitFor } from "./harness.mjs";

checkPrerequisites((m) => {
  console.error(`viewer shapes e2e FAILED: ${m}`);
  process.exit(1);
});
const log = (m) => console.log(`viewer shapes e2e: ${m}`);
// Screenshots for people to look at, beside viewer.mjs's.
const shots = path.resolve(extensionDir, "../target/viewer");
mkdirSync(shots, { recursive: true });
const shot = (page, name) => page.screenshot({ path: path.join(shots, `shapes-${name}.png`) });

async function ingest(base, kind, entries) {
  const r = await fetch(`${base}/events/${kind}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ entries }) });
  assert.equal(r.status, 200, `ingest ${kind}: ${await r.text()}`);
}

const SITE = "http://localhost:3000";
const MAX_TS = 9007199254740991; // 2^53 - 1: the largest time ingest takes
const REACT_KEY = 'Warning: Each child in a list should have a unique "key" prop.\n\nCheck the render method of `List`.\n    in li (at List.jsx:12)\n    in ul (at List.jsx:10)\n    in List';

const work = mkdtempSync(path.join(tmpdir(), "gasoline-viewer-shapes-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const client = await startGasoline(port, path.join(work, "gasoline.db"));
const browser = await chromium.launch({ executablePath: browserPath, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
const failures = [];
const errors = [];

/** A fresh page at `url` (of this server), its errors collected. */
async function open(url) {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on("pageerror", (e) => errors.push(`${url}: ${e.message}`));
  await page.goto(`${base}${url}`);
  return page;
}

/** Runs one check; a failure is recorded and the next check runs. */
async function check(name, body) {
  let page;
  try {
    await body((p) => (page = p));
    log(`ok: ${name}`);
  } catch (e) {
    failures.push(name);
    console.error(`viewer shapes e2e: FAILED: ${name}: ${e.stack || e.message}`);
  } finally {
    if (page) await page.close().catch(() => {});
  }
}

/** The texts of one column's cells (by class) of the rows shown. */
const cells = (page, sel) => page.$$eval(`.vlayer .vrow ${sel}`, (ns) => ns.map((n) => n.textContent));

try {
  const T = Date.now() - 60_000;
  // Times at the ends of what ingest takes, beside ordinary rows (tab 21).
  await ingest(base, "logs", [
    { level: "error", message: "before the far times", tabId: 21, ts: T },
    { level: "error", message: "far future time", tabId: 21, ts: MAX_TS },
    { level: "error", message: "far past time", tabId: 21, ts: -MAX_TS },
    { level: "error", message: "just before 1970", tabId: 21, ts: -5000 },
    { level: "error", message: "after the far times", tabId: 21, ts: T + 1 },
  ]);
  // A multi-line warning and the row under it (tab 22).
  await ingest(base, "logs", [
    { level: "warn", message: REACT_KEY, tabId: 22, ts: T },
    { level: "warn", message: "the row under it", tabId: 22, ts: T + 1 },
  ]);
  // The page's own data with keys that start with "_" (tab 23).
  await ingest(base, "logs", [{ level: "log", message: "graphql data", args: [{ _id: "abc", __typename: "User", _links: { self: "/u/1" }, name: "Ada" }], tabId: 23, ts: T }]);
  // Structures of the wrong shape (tab 24).
  await ingest(base, "network_waterfall", [
    { url: `${SITE}/weird`, method: "GET", initiatorType: "fetch", responseStatus: 200, duration: 5, redirects: [null, 5, "x", { status: 301, url: `${SITE}/a`, to: `${SITE}/weird` }], tabId: 24, ts: T },
  ]);
  await ingest(base, "network_bodies", [
    { url: `${SITE}/weird`, method: "GET", status: 200, requestHeaders: [null, { name: "a" }, { name: "b", value: "v" }, 7], responseHeaders: "not headers", responseBody: "hello body", tabId: 24, ts: T },
  ]);
  // Long unbroken values (tab 25).
  const longUrl = `${SITE}/long?${"q".repeat(12000)}`;
  await ingest(base, "network_waterfall", [{ url: longUrl, method: "GET", initiatorType: "fetch", responseStatus: 200, duration: 5, tabId: 25, ts: T }]);
  await ingest(base, "network_bodies", [{ url: longUrl, method: "GET", status: 200, requestHeaders: { "x-long": "A".repeat(5000) }, responseBody: "ok", tabId: 25, ts: T }]);
  // Bodies cut when captured (over the 64 KiB body cap), and together larger than one read of the
  // viewer (100,000 tokens: a symbol costs a token a byte) (tab 30).
  const stars = "★".repeat(30000);
  await ingest(base, "network_waterfall", [{ url: `${SITE}/api/stars`, method: "POST", initiatorType: "fetch", responseStatus: 200, duration: 80, tabId: 30, ts: T }]);
  await ingest(base, "network_bodies", [{ url: `${SITE}/api/stars`, method: "POST", status: 200, requestBody: stars, responseBody: stars, tabId: 30, ts: T }]);
  // A page load and its requests, and one request that says it started in 1970 (tab 26).
  await ingest(base, "network_waterfall", [
    { url: `${SITE}/`, method: "GET", initiatorType: "navigation", startTime: 0, duration: 120, domContentLoaded: 150, load: 300, responseStatus: 200, tabId: 26, ts: T },
    { url: `${SITE}/data.json`, method: "GET", initiatorType: "fetch", duration: 40, responseStatus: 200, tabId: 26, ts: T + 190 },
    { url: `${SITE}/app.js`, method: "GET", initiatorType: "script", duration: 60, responseStatus: 200, tabId: 26, ts: T + 130 },
    { url: `${SITE}/ancient`, method: "GET", initiatorType: "fetch", duration: 10, responseStatus: 200, tabId: 26, ts: 0 },
  ]);
  // Requests over seven minutes (tab 27).
  await ingest(
    base,
    "network_waterfall",
    Array.from({ length: 8 }, (_, i) => ({ url: `${SITE}/poll/${i}`, method: "GET", initiatorType: "fetch", duration: 30, responseStatus: 200, tabId: 27, ts: T - 420_000 + i * 60_000 })),
  );
  // Durations a page reported negative or absurdly long (tab 32).
  await ingest(base, "network_waterfall", [
    { url: `${SITE}/negative`, method: "GET", initiatorType: "fetch", duration: -5000, responseStatus: 200, tabId: 32, ts: T },
    { url: `${SITE}/endless`, method: "GET", initiatorType: "fetch", duration: 1e32, responseStatus: 200, tabId: 32, ts: T + 1 },
  ]);
  // Requests that failed, and ones with no method, on the timeline (tab 29).
  await ingest(base, "network_waterfall", [
    { url: `${SITE}/ok`, method: "GET", initiatorType: "fetch", duration: 5, responseStatus: 200, tabId: 29, ts: T },
    { url: `${SITE}/missing`, method: "GET", initiatorType: "fetch", duration: 5, responseStatus: 404, tabId: 29, ts: T + 1 },
    { url: `${SITE}/broken`, method: "POST", initiatorType: "fetch", duration: 5, responseStatus: 500, tabId: 29, ts: T + 2 },
    { url: `${SITE}/refused`, method: "GET", initiatorType: "fetch", duration: 5, failed: true, error: "TypeError: Failed to fetch", tabId: 29, ts: T + 3 },
    { url: `${SITE}/logo.png`, initiatorType: "img", duration: 5, responseStatus: 200, tabId: 29, ts: T + 4 },
  ]);
  log("capture stored");

  await check("1. a stored time no date can hold leaves the console and the timeline showing every row", async (keep) => {
    for (const view of ["console", "timeline"]) {
      const page = keep(await open(`/${view}?tab=21`));
      await waitFor(`the ${view}'s rows`, async () => (await cells(page, ".text")).some((t) => t.includes("after the far times"))).catch(async (e) => {
        throw new Error(`${e.message}: ${view} shows ${JSON.stringify(await page.textContent("main"))}`);
      });
      const texts = await cells(page, ".text");
      for (const m of ["before the far times", "far future time", "far past time", "just before 1970"]) assert.ok(texts.some((t) => t.includes(m)), `${view}: the row "${m}" among ${JSON.stringify(texts)}`);
      // Each time cell says something, and one that is no date says so rather than a clock time.
      const times = await page.$$eval(".vlayer .vrow", (rows) => rows.map((r) => [r.textContent, r.querySelector("time")?.textContent ?? ""]));
      for (const [row, time] of times) {
        assert.ok(time.length > 0 && time.length <= 14, `${view}: a short time for ${JSON.stringify(row.slice(0, 60))}: ${JSON.stringify(time)}`);
        if (/far (future|past)/.test(row)) assert.equal(time, "invalid time", `${view}: ${row}`);
      }
      await page.close();
    }
  });

  await check("2. a multi-line message is one line in the list, over its own row only, whole in the detail", async (keep) => {
    for (const view of ["console", "timeline"]) {
      const page = keep(await open(`/${view}?tab=22`));
      await waitFor("the two rows", async () => (await page.$$(".vlayer .vrow")).length === 2);
      const message = view === "console" ? ".msg .text" : ".vcell.text > .text";
      const [first, second] = await page.$$eval(
        ".vlayer .vrow",
        (rows, sel) =>
          rows.map((r) => {
            const t = r.querySelector(sel);
            return { id: r.dataset.id, text: t.textContent, row: r.getBoundingClientRect().toJSON(), cell: t.getBoundingClientRect().toJSON() };
          }),
        message,
      );
      assert.ok(!first.text.includes("\n") && first.text.includes("⏎"), `${view}: one line, its breaks marked: ${JSON.stringify(first.text.slice(0, 120))}`);
      assert.ok(first.cell.bottom <= first.row.bottom + 0.5, `${view}: the text stays in its row: ${JSON.stringify([first.cell, first.row])}`);
      // A click on the row under it reaches that row.
      const x = second.cell.left + 20;
      const y = second.row.top + second.row.height / 2;
      await page.mouse.click(x, y);
      await waitFor("the row under it selected", async () => (await page.getAttribute(".vlayer .vrow[aria-selected=true]", "data-id")) === second.id);
      // The first row's detail shows the message whole.
      await page.click(`.vlayer .vrow[data-id="${first.id}"]`);
      await waitFor("the whole message", async () => (await page.$$eval("#detail pre.body", (ps) => ps.map((p) => p.textContent))).includes(REACT_KEY));
      await shot(page, `multiline-${view}`);
      await page.close();
    }
  });

  await check("3. the page's own keys that start with _ are shown in the detail's trees", async (keep) => {
    const page = keep(await open("/console?tab=23"));
    await page.click(".vlayer .vrow");
    await page.waitForSelector("#detail ul.args");
    const args = await page.textContent("#detail ul.args");
    for (const k of ["_id: ", "__typename: ", "_links: ", "name: "]) assert.ok(args.includes(k), `the key ${k} among the arguments: ${args}`);
    assert.ok(args.includes("{4}"), `four keys counted: ${args}`);
    // The viewer's own bookkeeping is not the entry's.
    const stored = await page.textContent("#detail section:last-of-type");
    assert.ok(!/\b_kind: /.test(stored), `the viewer's _kind is not a stored field: ${stored}`);
  });

  await check("4. structures of the wrong shape are shown as far as they go, never blanking the pane", async (keep) => {
    const page = keep(await open("/network?tab=24"));
    await page.click(".vlayer .vrow");
    await waitFor("the headers and the body", async () => (await page.$$eval("#detail pre.body", (ps) => ps.map((p) => p.textContent))).includes("hello body")).catch(async (e) => {
      throw new Error(`${e.message}: the pane says ${JSON.stringify((await page.textContent("#detail")).slice(0, 600))}`);
    });
    const hops = await page.$$eval("#detail ol.hops li", (ns) => ns.map((n) => n.textContent));
    assert.equal(hops.length, 4, `every hop: ${JSON.stringify(hops)}`);
    assert.ok(hops.some((h) => h.startsWith("301 ")), `the hop with a status: ${JSON.stringify(hops)}`);
    const rows = await page.$$eval("#detail table.kv tr", (ns) => ns.map((n) => [n.cells[0]?.textContent, n.cells[1]?.textContent]));
    assert.ok(rows.some(([k, v]) => k === "b" && v === "v"), `the well-formed header: ${JSON.stringify(rows)}`);
    assert.ok(rows.some(([k]) => k === "a"), `the header with no value: ${JSON.stringify(rows)}`);
  });

  await check("5. the waterfall: one request that says it started in 1970 squeezes no other bar; ticks are readable", async (keep) => {
    const page = keep(await open("/network?tab=26"));
    await waitFor("four rows", async () => (await page.$$(".vlayer .vrow g.bar")).length === 4);
    const bars = await page.$$eval(".vlayer .vrow", (rows) =>
      rows.map((r) => ({
        name: r.querySelector(".text").textContent,
        width: [...r.querySelectorAll("g.bar rect")].reduce((w, n) => w + Number(n.getAttribute("width")), 0),
        off: r.querySelector("g.bar")?.dataset.offaxis ?? null,
        tip: r.querySelector("g.bar title")?.textContent ?? "",
      })),
    );
    const data = bars.find((b) => b.name === "data.json");
    assert.ok(data.width > 20, `the 40 ms request of a 300 ms page is a bar: ${JSON.stringify(bars)}`);
    assert.ok(bars.find((b) => b.name === "ancient").off === "before", `the 1970 request is off the axis: ${JSON.stringify(bars)}`);
    assert.match(data.tip, /start 190 ms/, "the tooltip says when it started on the axis");
    const dcl = Number(await page.getAttribute(".wfaxis line.mark.dcl", "x1"));
    const load = Number(await page.getAttribute(".wfaxis line.mark.load", "x1"));
    assert.ok(dcl > 100 && load > dcl, `the page's lines at their times: ${dcl}, ${load}`);
    await shot(page, "waterfall-1970");
    await page.close();
    // Seven minutes of requests: the labels of the ticks do not overlap, and are in minutes.
    const seven = keep(await open("/network?tab=27"));
    await waitFor("eight rows", async () => (await seven.$$(".vlayer .vrow g.bar")).length === 8);
    const labels = await seven.$$eval(".wfaxis text", (ns) => ns.map((n) => ({ text: n.textContent, box: n.getBoundingClientRect().toJSON() })));
    assert.ok(labels.length >= 2, `ticks: ${JSON.stringify(labels)}`);
    for (let i = 1; i < labels.length; i++) assert.ok(labels[i].box.left >= labels[i - 1].box.right, `labels apart: ${JSON.stringify(labels.map((l) => [l.text, l.box.left, l.box.right]))}`);
    assert.ok(labels.some((l) => /min$/.test(l.text)), `ticks in minutes: ${labels.map((l) => l.text)}`);
    await shot(seven, "waterfall-minutes");
  });

  await check("9d. the narrow time column says a duration is absurd rather than cutting its number", async (keep) => {
    const page = keep(await open("/network?tab=32"));
    await waitFor("two rows", async () => (await page.$$(".vlayer .vrow")).length === 2);
    const times = await page.$$eval(".vlayer .vrow", (rows) =>
      rows.map((r) => {
        const c = r.querySelectorAll(".vcell")[5];
        return [r.querySelector(".text").textContent, c.textContent, c.scrollWidth <= c.clientWidth];
      }),
    );
    assert.deepEqual(times, [["negative", "invalid", true], ["endless", "> 1 day", true]]);
  });

  await check("7. long unbroken values wrap in the detail pane", async (keep) => {
    const page = keep(await open("/network?tab=25"));
    await page.click(".vlayer .vrow");
    await waitFor("the long header", async () => (await page.$$eval("#detail table.kv th", (ns) => ns.map((n) => n.textContent))).includes("x-long"));
    const size = await page.$eval("#detail", (d) => ({ scroll: d.scrollWidth, client: d.clientWidth }));
    await shot(page, "long-values");
    assert.ok(size.scroll <= size.client + 1, `the pane as wide as it is: ${JSON.stringify(size)}`);
  });

  await check("8. a value cut to fit one read is said to be cut", async (keep) => {
    const page = keep(await open("/network?tab=30"));
    await page.click(".vlayer .vrow");
    await waitFor("the body", async () => (await page.$$("#detail pre.body")).length > 0);
    await waitFor("the notice of the cut", async () => /cut/i.test((await page.textContent("#detail .clipped").catch(() => "")) || "")).catch(async (e) => {
      throw new Error(`${e.message}: ${JSON.stringify((await page.textContent("#detail")).slice(0, 400))}`);
    });
    const said = await page.textContent("#detail .clipped");
    assert.match(said, /gasoline export --jsonl/);
    assert.match(said, /responseBody was cut when captured.*it was 90,000 bytes/, "the cut at capture and how long it was");
    await shot(page, "cut");
  });

  await check("9a. the timeline marks failed requests and leaves a missing method blank", async (keep) => {
    const page = keep(await open("/timeline?tab=29"));
    await waitFor("five requests", async () => (await page.$$(".vlayer .vrow")).length === 5);
    const rows = await page.$$eval(".vlayer .vrow", (ns) => ns.map((n) => [n.querySelector(".vcell .text").textContent, n.classList.contains("failed")]));
    for (const [text, failed] of rows) assert.equal(failed, /missing|broken|refused/.test(text), `marked failed or not: ${text}`);
    const img = rows.find(([t]) => t.includes("logo.png"))[0];
    assert.ok(!img.startsWith("GET"), `no method made up: ${img}`);
  });

  await check("6. a flood while the person reads older rows leaves those rows in view; the button's count is true", async (keep) => {
    await ingest(base, "logs", Array.from({ length: 300 }, (_, i) => ({ level: "log", message: `held ${i}`, tabId: 28, ts: Date.now() })));
    const page = keep(await open("/console?tab=28"));
    await waitFor("300 rows", async () => Number(await page.getAttribute(".statusline", "data-count")) === 300);
    // The page has followed to the bottom (its own scroll there handled), then the person scrolls up:
    // on a loaded machine a scroll up made before the page's own scroll to the bottom was handled
    // is no scroll up for the list, and the flood is followed.
    await waitFor("the list at its bottom", async () => page.$eval(".vscroll", (s) => s.scrollTop > 0 && s.scrollTop + s.clientHeight >= s.scrollHeight - 30));
    await page.$eval(".vscroll", (s) => (s.scrollTop = 0));
    await page.dispatchEvent(".vscroll", "scroll");
    await waitFor("the list no longer following", async () => page.evaluate(() => globalThis.gasolineViewer.view().list.follow === false));
    await page.click(".vlayer .vrow");
    const selected = await page.getAttribute(".vlayer .vrow[aria-selected=true]", "data-id");
    for (let b = 0; b < 5; b++) await ingest(base, "logs", Array.from({ length: 1000 }, (_, i) => ({ level: "log", message: `flood ${b * 1000 + i}`, tabId: 28, ts: Date.now() })));
    await page.waitForSelector(".newmarker:not([hidden])");
    await page.waitForTimeout(1500); // the page reads what it reads; the rows in view must stay
    const texts = await cells(page, ".msg .text");
    const state = await page.evaluate(() => {
      const v = globalThis.gasolineViewer.view();
      return { follow: v.list.follow, feeds: v.feeds.map((f) => ({ hold: f.hold, rows: f.rows.length, unread: f.unread, dropped: f.dropped, cursor: f.cursor, target: f.target })) };
    });
    assert.ok(texts.includes("held 0"), `the rows in view stay: ${texts.slice(0, 3)} ${JSON.stringify(state)}`);
    assert.equal(await page.getAttribute(".vlayer .vrow[aria-selected=true]", "data-id"), selected, "the selected row stays selected");
    const said = await page.textContent(".newmarker");
    const held = Number(await page.getAttribute(".statusline", "data-count"));
    const m = /^(up to )?([\d,]+) new/.exec(said);
    assert.ok(m, `the button says how many: ${said}`);
    assert.ok(m[1] || Number(m[2].replace(/,/g, "")) <= held, `a count that is not "up to" counts rows held: ${said}, ${held} held`);
    await shot(page, "flood-held");
    await page.click(".newmarker");
    await waitFor("the newest row after the button", async () => (await cells(page, ".msg .text")).includes("flood 4999"));
  });

  await check("9c. after Clear the notice stays and the empty views say they were cleared", async (keep) => {
    const page = keep(await open("/console"));
    await page.waitForSelector(".vlayer .vrow");
    await page.click("#clear");
    await page.click("#confirm-yes");
    await page.waitForSelector("#notice:not([hidden])");
    await page.waitForTimeout(1500);
    assert.match(await page.textContent("#notice"), /^Cleared [\d,]+ entries/, "the notice stays");
    await waitFor("the empty console", async () => /cleared/i.test(await page.textContent(".vlist .empty")));
    assert.doesNotMatch(await page.textContent(".vlist .empty"), /open your app/, "not a setup problem");
  });

  assert.deepEqual(errors, [], "the viewer threw no error");
} catch (e) {
  failures.push(e.message);
  console.error(e.stack || e.message);
} finally {
  await browser.close().catch(() => {});
  await client.close().catch(() => {});
  rmSync(work, { recursive: true, force: true });
}
if (failures.length) {
  console.error(`viewer shapes e2e FAILED: ${failures.length} check(s): ${failures.join(" | ")}`);
  process.exit(1);
}
log("passed");
