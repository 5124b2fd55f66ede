// page/app_failures.js: the failures SvelteKit answers with HTTP 200 (a form
// action's fail() or throw, a load that failed on a client-side navigation),
// as the messages of error entries; every other answer is none.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
globalThis.__gasoline = {};
require("../../page/app_failures.js");
const { appFailures } = globalThis.__gasoline;
delete globalThis.__gasoline;

const ACTION = { "x-sveltekit-action": "true", accept: "application/json" };

test("only SvelteKit's data requests and enhanced form posts are looked at", () => {
  assert.equal(appFailures.watched("GET", "http://localhost:5173/broken/__data.json?x-sveltekit-invalidated=01", {}), true);
  assert.equal(appFailures.watched("POST", "http://localhost:5173/login?/signin", ACTION), true);
  assert.equal(appFailures.watched("POST", "http://localhost:5173/login", { accept: "application/json" }), false);
  assert.equal(appFailures.watched("GET", "http://localhost:5173/api/items", {}), false);
});

test("a form action's fail() and throw, answered 200, are failures; its data stays out of the message", () => {
  const failure = JSON.stringify({ type: "failure", status: 400, data: '[{"email":1,"incorrect":2},"ann@example.com",true]' });
  assert.equal(
    appFailures.describe("POST", "http://localhost:5173/login?/signin", 200, failure),
    "SvelteKit: the form action POST http://localhost:5173/login returned fail(400) (answered 200; its data is the response body)",
  );
  const thrown = JSON.stringify({ type: "error", status: 500, error: { message: "Internal Error" } });
  assert.equal(
    appFailures.describe("POST", "http://localhost:5173/login", 200, thrown),
    "SvelteKit: the form action POST http://localhost:5173/login threw (500): Internal Error (answered 200)",
  );
  for (const fine of [{ type: "success", status: 200 }, { type: "redirect", status: 303, location: "/" }]) {
    assert.equal(appFailures.describe("POST", "http://localhost:5173/login", 200, JSON.stringify(fine)), null);
  }
});

test("a load's error node in __data.json is a failure of its route", () => {
  const data = JSON.stringify({ type: "data", nodes: [{ type: "data", data: [{}] }, { type: "error", error: { message: "Internal Error" }, status: 500 }] });
  assert.equal(
    appFailures.describe("GET", "http://localhost:5173/broken/__data.json?x-sveltekit-invalidated=01", 200, data),
    "SvelteKit: the load of http://localhost:5173/broken failed (500): Internal Error (its __data.json answered 200)",
  );
  // The root route's data is /__data.json: its page is the origin and a slash.
  assert.equal(
    appFailures.describe("GET", "http://localhost:5173/__data.json", 200, data),
    "SvelteKit: the load of http://localhost:5173/ failed (500): Internal Error (its __data.json answered 200)",
  );
  const ok = JSON.stringify({ type: "data", nodes: [{ type: "data", data: [{}] }, null] });
  assert.equal(appFailures.describe("GET", "http://localhost:5173/products/__data.json", 200, ok), null);
});

test("what cannot be read, or came with an error status already, is none", () => {
  assert.equal(appFailures.describe("GET", "http://localhost:5173/x/__data.json", 200, '{"type":"data","nodes":[{"type":"err'), null);
  assert.equal(appFailures.describe("GET", "http://localhost:5173/x/__data.json", 200, undefined), null);
  assert.equal(appFailures.describe("GET", "http://localhost:5173/x/__data.json", 200, "null"), null);
  // A status >= 400 is a failed request already: its row says so.
  assert.equal(appFailures.describe("POST", "http://localhost:5173/login", 500, JSON.stringify({ type: "error", error: { message: "x" } })), null);
  // A message is bounded.
  const long = JSON.stringify({ type: "error", status: 500, error: { message: "m".repeat(5000) } });
  assert.ok(appFailures.describe("POST", "http://localhost:5173/a", 200, long).length < 450);
});
