import { test } from "node:test";
import assert from "node:assert/strict";
import { SiteIntents, INTENT_MS } from "../../background/site_intents.js";
import { memoryStorage } from "./storage.mjs";

test("a site asked for is acted on once when Chrome grants it, by a later life of the worker too", async () => {
  const storage = memoryStorage();
  let now = 1000;
  await new SiteIntents(storage, () => now).ask("http://shop.example/*");
  // The worker stopped while the prompt was open: its next life reads the intent from storage.
  const next = new SiteIntents(storage, () => now);
  assert.deepEqual(await next.granted(["http://other.example/*"]), [], "a site nobody asked for here");
  assert.deepEqual(await next.granted(["http://shop.example/*", "http://other.example/*"]), ["http://shop.example/*"]);
  assert.deepEqual(await next.granted(["http://shop.example/*"]), [], "taken once");
});

test("an intent older than two minutes, or one the popup acted on itself, is not acted on", async () => {
  const storage = memoryStorage();
  let now = 0;
  const intents = new SiteIntents(storage, () => now);
  await intents.ask("http://a.example/*");
  await intents.ask("http://b.example/*");
  await intents.forget("http://b.example/*");
  now = INTENT_MS;
  assert.deepEqual(await intents.granted(["http://a.example/*", "http://b.example/*"]), []);
});

test("at most 20 intents are kept, the newest", async () => {
  const storage = memoryStorage();
  let now = 0;
  const intents = new SiteIntents(storage, () => now);
  for (let i = 0; i < 25; i++) {
    now = i;
    await intents.ask(`http://s${i}.example/*`);
  }
  assert.equal(Object.keys(storage.map.get("siteIntents")).length, 20);
  assert.deepEqual(await intents.granted(["http://s0.example/*", "http://s24.example/*"]), ["http://s24.example/*"]);
});
