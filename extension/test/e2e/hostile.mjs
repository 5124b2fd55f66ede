// The hostile fixture page (fixture/hostile*.js): Gasoline must stay out of
// its way and out of its reach, read no body past its cap, and store none of
// the secrets it plants. Called by run.mjs with the running browser and server.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";

import { plantedSecrets, SECRETS } from "./secrets.mjs";

const BODY_CAP = 16 * 1024;

/** The database file and its WAL as they are on disk now, as bytes in a string. */
export function storedBytes(db) {
  return ["", "-wal"].map((s) => (existsSync(db + s) ? readFileSync(db + s).toString("latin1") : "")).join("");
}

export async function hostilePage({ context, client, all, waitFor, log, origin, db }) {
  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await page.goto(`${origin}/hostile.html?code=S-page-code#access_token=S-page-fragment&state=ok`);
  await page.fill("#note", SECRETS.values.card); // a card number typed into an innocent field
  await page.press("#note", "Tab");
  await page.type("#shown", "S-shown-password");
  await page.evaluate(() => (document.querySelector("#shown").type = "text")); // the page's "show password"
  await page.type("#shown", "!");
  await page.press("#shown", "Tab");
  await page.fill("#code", "S-placeholder-passcode");
  await page.press("#code", "Tab");
  await page.waitForFunction(() => window.done.secrets && window.done.heavy, null, { timeout: 60000 });
  // The page breaks built-ins our code uses, each for a moment (fixture/hostile.js).
  await page.evaluate(() => window.breakBuiltins());
  await page.evaluate(() => window.prototypeJs());
  const report = await page.evaluate(() => window.report);

  // The private channel: nothing of Gasoline's reached the page's listeners or spies.
  assert.equal(report.messages.length, 1, `the page's message listeners saw only its own post: ${report.messages}`);
  assert.match(report.messages[0], /FORGED-BY-PAGE window/);
  assert.equal(report.windowPosts, 0, "Gasoline never calls window.postMessage");
  assert.equal(report.portPosts, 1, "the page's MessagePort spy saw only the page's own post");
  assert.equal(report.forgedPortReplies, 0, "a port offered by the page gets nothing");
  // Invisible wrappers.
  assert.deepEqual(report.native, Object.fromEntries(Object.keys(report.native).map((k) => [k, true])), "native-looking");
  assert.deepEqual(report.identity, Object.fromEntries(Object.keys(report.identity).map((k) => [k, true])), "identities");
  assert.ok(report.unhandled.includes("Failed to fetch"), `an un-awaited rejected fetch reaches unhandledrejection: ${report.unhandled}`);
  assert.deepEqual(
    pageErrors.filter((m) => !/refresh failed|rejected with|Failed to fetch/.test(m)),
    [],
    "no exception of Gasoline's reached the page",
  );
  assert.deepEqual(report.uploads, { asRequest: SECRETS.bigSize, asString: SECRETS.bigSize }, "uploads intact");
  assert.equal(report.iteratorHeaders["x-gen"], "g1", "headers given as an iterator reach the server");
  assert.deepEqual(
    report.reads,
    { fetchUrl: 1, beaconUrl: 1, method: 2, headers: 2, body: 2 },
    "a URL's toString runs once; each init getter once by the browser, once by the capture",
  );
  for (const [what, stack] of Object.entries(report.stacks)) {
    assert.match(stack, /Error/, `${what}: the page got its error`);
    assert.ok(!stack.includes("chrome-extension://"), `${what}: no frame of the extension in ${stack}`);
  }
  assert.deepEqual(Object.keys(report.stacks).sort(), ["fetch", "json", "toString"]);
  log(`hostile page: channel private, wrappers native, stream upload ${report.streamUpload}`);

  // Bodies past the cap are not read, and the entries say so.
  const bodies = await waitFor("the hostile page's requests", async () => {
    const entries = (await all(client, "network_bodies")).filter(
      (e) => e.url.includes("/upload") || e.url.includes("/big.json") || e.url.endsWith("/events") || e.url.endsWith("/ticking"),
    );
    return entries.length >= 7 && entries;
  }, 30000);
  const find = (part) => bodies.find((e) => e.url.includes(part)) || assert.fail(`no entry for ${part}`);
  const asRequest = find("as=request");
  assert.equal(asRequest.requestBodyTruncated, true);
  assert.ok(asRequest.requestBody.length <= BODY_CAP, "a Request body is read up to the cap only");
  const asString = find("as=string");
  assert.equal(asString.requestBodyTruncated, true);
  assert.equal(asString.requestBodySize, SECRETS.bigSize);
  assert.equal(asString.requestBody.length, BODY_CAP);
  const streamed = find("as=stream");
  assert.equal(streamed.requestBodyStream, true, "a streamed upload is recorded as a stream");
  assert.equal(streamed.requestBody, "[stream]");
  const ticking = find("/ticking");
  assert.equal(ticking.durationTo, "cancelled", "the page cancelled its stream, and our read of it stopped with it");
  assert.match(ticking.responseBody, /^tick 1\n/);
  const events = find("/events");
  assert.equal(events.responseBodyStream, true, "an event stream is not read");
  assert.equal(events.responseBody, "[stream]");
  const bigFetch = bodies.find((e) => e.url.endsWith("/big.json"));
  assert.equal(bigFetch.responseBodyTruncated, true);
  assert.equal(bigFetch.responseBody.length, BODY_CAP);
  const bigXhr = find("via=xhr");
  assert.equal(bigXhr.responseBodyTruncated, true);
  assert.ok(bigXhr.responseBodySize > 4 * BODY_CAP && /not read/.test(bigXhr.responseBody), JSON.stringify(bigXhr).slice(0, 300));
  log("hostile page: 50 MB uploads, a streamed upload, an event stream and large responses recorded within the cap");

  // Redaction: the user's list from the first event, look-alikes kept, names never values.
  const logs = await waitFor("the hostile page's logs", async () => {
    const entries = await all(client, "logs");
    const prototypeJs = entries.some((e) => e.message.startsWith("logged beside Prototype.js"));
    return entries.some((e) => e.source === "exception" && /refresh failed/.test(e.message)) && entries.some((e) => e.message.startsWith("usage")) && prototypeJs && entries;
  });
  const first = logs.find((e) => e.message.startsWith("first event"));
  assert.equal(first.message, 'first event {"x_custom_secret":"[redacted]"}', "the user's key applies to the page's first event");
  assert.deepEqual(first.redacted, ["url.code", "url.access_token", "message.x_custom_secret"], "names, never values");
  const usage = logs.find((e) => e.message.startsWith("usage"));
  assert.equal(usage.message, `usage {"max_tokens":5,"prompt_tokens":7,"tokenizer":"bpe","order":"${SECRETS.orderNumber}"}`);
  assert.ok(!usage.redacted.some((n) => n.startsWith("message")), "nothing of the look-alikes is redacted");
  const login = logs.find((e) => e.message.startsWith("login attempt"));
  assert.ok(login.redacted.includes("message.password") && login.redacted.includes("message:jwt"), JSON.stringify(login.redacted));
  // A page whose arrays all have a toJSON (Prototype.js): its events still reach the relay.
  assert.ok(logs.some((e) => e.message.startsWith("logged beside Prototype.js")), "a log made beside Prototype.js's Array#toJSON");
  const extensionLogs = await all(client, "extension_logs");
  assert.ok(!extensionLogs.some((e) => /FORGED/.test(e.message)), "a page cannot write extension_logs");
  assert.ok(!logs.some((e) => /FORGED/.test(e.message)), "nor slip its forgeries in as captured logs");

  // Byte for byte: no planted secret in the database file or its WAL; the look-alikes are there.
  await waitFor("the hostile page's WebSocket frames and typed card", async () => {
    const frames = await all(client, "websocket_events");
    const actions = await all(client, "actions");
    return (
      frames.some((e) => e.direction === "incoming" && /"password":"\[redacted\]"/.test(e.data)) &&
      actions.some((e) => e.type === "change" && e.selector === "#note") &&
      ["#shown", "#code"].every((field) => actions.some((e) => e.type === "change" && e.selector === field && e.value === "[redacted]"))
    );
  });
  const stored = storedBytes(db);
  const leaked = plantedSecrets().filter((s) => stored.includes(s));
  assert.deepEqual(leaked, [], "planted secrets found in the database file or its WAL");
  assert.ok(stored.includes(SECRETS.orderNumber) && stored.includes('"max_tokens":5'), "look-alikes are kept");
  log(`hostile page: ${plantedSecrets().length} planted secrets absent from the db and WAL, look-alikes kept`);
  await page.close();
}
