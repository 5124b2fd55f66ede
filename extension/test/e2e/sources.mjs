// Server-sent events, beacons, CSP violations and failed element loads
// (fixture/sources.*, served with a CSP header): each is stored once with its
// fields, its secrets redacted (absent from the database file), and the page
// notices nothing. Called by run.mjs with the running browser and server;
// `sourcesRoute` serves the fixture's own endpoints from run.mjs's server.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { storedBytes } from "./hostile.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const SECRETS = [
  "S13-SSE-URL-TOKEN",
  "S13-SSE-PASSWORD",
  "S13-SSE-TOKEN",
  "S13-BEACON-SIG",
  "S13-BEACON-PASS",
  "S13-BEACON-FD",
  "S13-BEACON-BLOB",
  "S13-BEACON-PARAMS",
  "S13-CSP-TOKEN",
  "S13-IMG-TOKEN",
  "S13-CSS-SIG",
];
const SSE =
  "retry: 60000\n\n" +
  "id: 1\ndata: hello\n\n" +
  'id: 2\nevent: update\ndata: {"password":"S13-SSE-PASSWORD","n":2}\n\n' +
  "id: 3\ndata: line one\ndata: token=S13-SSE-TOKEN\n\n";
const beaconsReceived = [];

/** Serves the fixture's routes; false for any other path. */
export function sourcesRoute(req, res, url) {
  if (url.pathname === "/sources.html" || url.pathname === "/sources.js") {
    const html = url.pathname.endsWith(".html");
    const headers = { "content-type": html ? "text/html" : "text/javascript", "cache-control": "no-store" };
    if (html) {
      headers["content-security-policy"] = "script-src 'self'";
      headers["content-security-policy-report-only"] = "img-src 'self'";
    }
    res.writeHead(200, headers);
    res.end(readFileSync(path.join(here, "fixture", url.pathname.slice(1))));
  } else if (url.pathname === "/sse") {
    // Three events, then the server closes the stream (the browser would reconnect in 60 s).
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    res.end(SSE);
  } else if (url.pathname === "/beacon" && req.method === "POST") {
    req.resume();
    req.on("end", () => {
      beaconsReceived.push(url.searchParams.get("kind"));
      res.writeHead(204);
      res.end();
    });
  } else {
    return false;
  }
  return true;
}

export async function sourcesPage({ context, client, all, waitFor, log, origin, db }) {
  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  const pageUrl = `${origin}/sources.html`;
  await page.goto(pageUrl);
  await page.waitForFunction(() => window.done && window.done.sse && window.done.missing, null, { timeout: 15000 });
  const report = await page.evaluate(() => window.report);
  assert.equal(await page.evaluate(() => window.inlineRan), undefined, "the page's CSP refused its inline script");
  assert.deepEqual(report.identity, Object.fromEntries(Object.keys(report.identity).map((k) => [k, true])), "identities");
  assert.deepEqual(report.sse, [
    ["onmessage", "hello", "1"],
    ["update", '{"password":"S13-SSE-PASSWORD","n":2}', "2"],
    ["onmessage", "line one\ntoken=S13-SSE-TOKEN", "3"],
  ], "the page's own EventSource listeners got every event");
  assert.equal(report.sseErrorState, 0, "the stream's end is a reconnection for the browser");
  assert.equal(report.missingState, 2);
  assert.deepEqual(report.beacons, { text: true, json: true, form: true, params: true, binary: true, tooBig: false });
  assert.deepEqual(pageErrors, [], "no exception reached the page");

  // ---- EventSource in websocket_events ----
  const streams = await waitFor("the EventSource conversations", async () => {
    const entries = (await all(client, "websocket_events")).filter((e) => e.transport === "eventsource" && e.url.startsWith(`${origin}/sse`));
    return entries.some((e) => e.event === "close" && e.url.includes("access_token")) && entries.length >= 8 && entries;
  });
  const byConnection = new Map();
  for (const e of streams) byConnection.set(e.connectionId, [...(byConnection.get(e.connectionId) || []), e]);
  const conversations = [...byConnection.values()].map((list) =>
    list.map(({ event, url, eventType, lastEventId, data, direction, readyState, reconnecting, reason, redacted }) =>
      JSON.parse(JSON.stringify({ event, url: url.slice(origin.length), eventType, lastEventId, data, direction, readyState, reconnecting, reason, redacted })),
    ),
  );
  const byFirst = (a, b) => (a[0].url + a[0].event < b[0].url + b[0].event ? -1 : 1);
  const sse = "/sse?access_token=[redacted]";
  const red = ["url.access_token"];
  assert.deepEqual(
    conversations.sort(byFirst),
    [
      [{ event: "error", url: "/sse-missing", readyState: "closed", reconnecting: false }],
      [{ event: "close", url: "/sse-missing?sub", reason: "closed by the page" }],
      [
        { event: "open", url: sse, redacted: red },
        { event: "message", url: sse, eventType: "message", lastEventId: "1", data: "hello", direction: "incoming", redacted: red },
        { event: "message", url: sse, eventType: "update", lastEventId: "2", data: '{"password":"[redacted]","n":2}', direction: "incoming", redacted: [...red, "data.password"] },
        { event: "message", url: sse, eventType: "message", lastEventId: "3", data: "line one\ntoken=[redacted]", direction: "incoming", redacted: [...red, "data.token"] },
        { event: "error", url: sse, readyState: "connecting", reconnecting: true, redacted: red },
        { event: "close", url: sse, reason: "closed by the page", redacted: red },
      ],
    ].sort(byFirst),
  );
  const sockets = (await all(client, "websocket_events")).filter((e) => e.url.endsWith("/echo"));
  assert.ok(sockets.length > 0 && sockets.every((e) => e.transport === "websocket"), "WebSocket entries say so");
  log("EventSource: open, 3 messages (a named one), error reconnecting, close; a refused one closed; page listeners intact");

  // ---- beacons in network_bodies ----
  const beacons = await waitFor("every beacon", async () => {
    const entries = (await all(client, "network_bodies")).filter((e) => e.initiator === "beacon" && e.url.includes("/beacon?kind="));
    return entries.length >= 6 && entries;
  });
  const kinds = beacons.map((e) => new URL(e.url).searchParams.get("kind"));
  assert.deepEqual(kinds.sort(), ["binary", "form", "json", "params", "text", "toobig"], "each beacon once");
  const beacon = (kind) => beacons.find((e) => e.url.includes(`kind=${kind}`));
  for (const e of beacons) {
    assert.equal(e.method, "POST");
    assert.ok(e.url.startsWith(`${origin}/beacon?kind=`), `absolute: ${e.url}`);
    assert.equal(e.queued, !e.url.includes("toobig"), `queued: ${e.url}`);
  }
  assert.equal(beacon("text").url, `${origin}/beacon?kind=text&sig=[redacted]`);
  assert.equal(beacon("text").requestBody, "password=[redacted]&ok=1");
  assert.deepEqual(JSON.parse(beacon("json").requestBody), { token: "[redacted]", n: 1 });
  assert.equal(beacon("form").requestBody, "password=[redacted]&name=ann");
  assert.equal(beacon("params").requestBody, "api_key=[redacted]&a=1");
  assert.equal(beacon("binary").requestBody, "[binary 300 bytes]");
  assert.equal(beacon("binary").requestBodySize, 300);
  assert.equal(beacon("toobig").requestBodyTruncated, true);
  assert.equal(beacon("toobig").requestBodySize, 70 * 1024);
  assert.equal(beacon("toobig").requestBody.length, 16 * 1024, "cut at the body cap");
  await waitFor("the queued beacons at the server", () => beaconsReceived.length >= 5);
  assert.deepEqual(beaconsReceived.sort(), ["binary", "form", "json", "params", "text"]);
  const joined = beacons.filter((e) => e.requestId).length;
  log(`beacons: 6 (string, JSON Blob, FormData, URLSearchParams, ArrayBuffer, too big to queue), ${joined} joined to their request row`);

  // ---- CSP violations and failed loads in logs ----
  const logs = await waitFor("the CSP violations and failed loads", async () => {
    const entries = (await all(client, "logs")).filter((e) => e.url === pageUrl && (e.source === "csp" || e.source === "resource"));
    return entries.filter((e) => e.source === "csp").length >= 3 && entries.filter((e) => e.source === "resource").length >= 4 && entries;
  });
  const csp = logs.filter((e) => e.source === "csp");
  const local = `http://localhost:${new URL(origin).port}`;
  const blockedScript = `${local}/blocked.js?token=[redacted]`;
  assert.deepEqual(
    csp.map((e) => [e.level, e.blockedURI, e.effectiveDirective, e.disposition]).sort(),
    [
      ["error", "inline", "script-src-elem", "enforce"],
      ["error", blockedScript, "script-src-elem", "enforce"],
      ["warn", "data", "img-src", "report"],
    ].sort(),
    "each violation once",
  );
  const cspBy = (blocked) => csp.find((e) => e.blockedURI === blocked);
  assert.equal(
    cspBy("inline").message,
    `Refused to execute inline script because it violates the following Content Security Policy directive: "script-src 'self'". Either the 'unsafe-inline' keyword, a hash ('sha256-...'), or a nonce ('nonce-...') is required to enable inline execution. Note also that 'script-src-elem' was not explicitly set, so 'script-src' is used as a fallback.`,
  );
  assert.equal(cspBy("inline").location, `${pageUrl}:7:9`);
  assert.equal(
    cspBy(blockedScript).message,
    `Refused to load the script '${blockedScript}' because it violates the following Content Security Policy directive: "script-src 'self'". Note that 'script-src-elem' was not explicitly set, so 'script-src' is used as a fallback.`,
  );
  assert.match(cspBy("data").message, /^\[Report Only\] Refused to load the image 'data' because it violates the following Content Security Policy directive: "img-src 'self'"\.$/);
  assert.equal(cspBy("data").violatedDirective, "img-src");

  const failed = logs.filter((e) => e.source === "resource");
  assert.deepEqual(
    failed.map((e) => [e.level, e.tag, e.selector, e.message]).sort(),
    [
      ["error", "img", "#broken-img", `Failed to load image: ${origin}/missing.png?token=[redacted]`],
      ["error", "link", "#broken-css", `Failed to load stylesheet: ${origin}/missing.css?sig=[redacted]`],
      ["error", "script", 'script[data-testid="broken-script"]', `Failed to load script: ${origin}/missing.js`],
      ["error", "script", "html > head > script:nth-of-type(2)", `Failed to load script: ${blockedScript}`],
    ].sort(),
    "each failed element once",
  );
  assert.equal(failed.find((e) => e.tag === "img").resourceUrl, `${origin}/missing.png?token=[redacted]`);
  log("logs: 3 CSP violations (inline, another origin's script, report-only image), 4 failed loads (img, link, script, refused script)");

  const stored = storedBytes(db);
  assert.deepEqual(SECRETS.filter((s) => stored.includes(s)), [], "secrets of the sources page found in the database file or its WAL");
  log(`sources page: ${SECRETS.length} planted secrets absent from the db and WAL`);
  await page.close();
}
