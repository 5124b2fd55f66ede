// Errors as text with their `cause` chain and AggregateError members
// (lib/causes.js, through serialize.formatArg and stackOf as console.js and
// errors.js use them): kept, bounded, safe.
import { test } from "node:test";
import assert from "node:assert/strict";
import { causes, serialize, limits } from "./load.mjs";

test("a cause chain is kept, each error with its stack", () => {
  const root = new TypeError("socket closed");
  const mid = new Error("query failed", { cause: root });
  const top = new Error("could not load the cart", { cause: mid });
  const text = serialize.formatArg(top);
  const lines = text.split("\n");
  assert.equal(lines[0], "Error: could not load the cart");
  assert.match(lines[1], /^ {4}at /);
  const at = (s) => lines.indexOf(s);
  assert.ok(at("Caused by: Error: query failed") > 1, text);
  assert.ok(at("Caused by: TypeError: socket closed") > at("Caused by: Error: query failed"), text);
  assert.match(lines[at("Caused by: TypeError: socket closed") + 1], /^ {4}at .*causes\.test\.mjs/);
  assert.equal(serialize.stackOf(["failed:", top]), text, "the logged error's stack field has the chain too");
  assert.equal(
    causes.describeError(top, { stacks: false }),
    "Error: could not load the cart\nCaused by: Error: query failed\nCaused by: TypeError: socket closed",
  );
});

test("AggregateError members are kept, indented, with their own causes", () => {
  const agg = new AggregateError(
    [new Error("mirror 1 down"), new RangeError("mirror 2 slow", { cause: new Error("timeout 30s") }), "plain reason", { code: 7 }],
    "all mirrors failed",
  );
  assert.equal(
    causes.describeError(agg, { stacks: false, describe: serialize.formatArg }),
    [
      "AggregateError: all mirrors failed",
      "  [0] Error: mirror 1 down",
      "  [1] RangeError: mirror 2 slow",
      "  Caused by: Error: timeout 30s",
      "  [2] plain reason",
      '  [3] {"code":7}',
    ].join("\n"),
  );
  const full = serialize.formatArg(agg);
  assert.match(full, /^AggregateError: all mirrors failed\n {4}at /);
  assert.match(full, /\n {2}\[0\] Error: mirror 1 down\n {6}at /, "a member's stack is indented under it");
});

test("non-Error causes, empty messages and errors with getters that throw", () => {
  assert.equal(causes.describeError(new Error("", { cause: "disk full" }), { stacks: false }), "Error\nCaused by: disk full");
  assert.equal(
    causes.describeError(new Error("x", { cause: { status: 503 } }), { stacks: false, describe: serialize.formatArg }),
    'Error: x\nCaused by: {"status":503}',
  );
  const hostile = new Error("hostile");
  Object.defineProperty(hostile, "cause", { get() { throw new Error("no"); } });
  Object.defineProperty(hostile, "stack", { get() { throw new Error("no"); } });
  assert.equal(serialize.formatArg(hostile), "Error: hostile");
  assert.equal(causes.describeError(new Error("u", { cause: undefined }), { stacks: false }), "Error: u");
});

test("cycles, depth and the number of members are bounded", () => {
  const a = new Error("a");
  const b = new Error("b", { cause: a });
  a.cause = b;
  assert.equal(causes.describeError(a, { stacks: false }), "Error: a\nCaused by: Error: b\nCaused by: [Circular]");

  let deep = new Error("e0");
  for (let i = 1; i < 20; i++) deep = new Error(`e${i}`, { cause: deep });
  const chain = causes.describeError(deep, { stacks: false }).split("\n");
  assert.equal(chain.length, limits.CAUSE_DEPTH + 1);
  assert.equal(chain.at(-1), "… deeper causes not shown");

  const many = new AggregateError(Array.from({ length: 500 }, (_, i) => new Error(`m${i}`)), "many");
  const lines = causes.describeError(many, { stacks: false }).split("\n");
  assert.equal(lines.length, 1 + limits.ERROR_MEMBERS + 1);
  assert.equal(lines.at(-1), `  … ${500 - limits.ERROR_MEMBERS} more errors`);

  // Members of members of members: the errors shown in all stay bounded.
  const fan = (d) => (d === 0 ? new Error("leaf") : new AggregateError(Array.from({ length: 10 }, () => fan(d - 1)), `level ${d}`));
  const big = causes.describeError(fan(4), { stacks: false }).split("\n");
  assert.ok(big.length < 4 * limits.ERROR_MEMBERS, `${big.length} lines`);
});

test("the stack field of a logged error with causes is cut to the cap", () => {
  const e = new Error("x".repeat(limits.MESSAGE_CAP), { cause: new Error("y".repeat(limits.MESSAGE_CAP)) });
  assert.equal(serialize.stackOf([e]).length, limits.MESSAGE_CAP);
});

test("a subclass that keeps Error's name is named by its class, as DevTools names it; its stack once", () => {
  class ApiError extends Error {
    constructor(status) {
      super(`API ${status}: {"message":"invalid"}`);
    }
  }
  const e = new ApiError(422);
  // The stack as V8 wrote it when read before the class could say more (in a browser: "Error: …").
  Object.defineProperty(e, "stack", { value: `Error: ${e.message}\n    at save (http://localhost:5173/src/stores/profile.ts:22:15)` });
  assert.equal(causes.describeError(e, { stacks: false }), 'ApiError: API 422: {"message":"invalid"}');
  assert.equal(causes.describeError(e), 'ApiError: API 422: {"message":"invalid"}\n    at save (http://localhost:5173/src/stores/profile.ts:22:15)');
  // A name of its own wins; Error's own subclasses keep theirs.
  class Named extends Error {
    constructor() {
      super("x");
      this.name = "ValidationError";
    }
  }
  assert.equal(causes.describeError(new Named(), { stacks: false }), "ValidationError: x");
  assert.equal(causes.describeError(new TypeError("y"), { stacks: false }), "TypeError: y");
  assert.equal(causes.describeError(new Error("z"), { stacks: false }), "Error: z");
  // A logged one's stack field says it so too, its frames as they were.
  assert.equal(serialize.stackOf(["failed", e]), 'ApiError: API 422: {"message":"invalid"}\n    at save (http://localhost:5173/src/stores/profile.ts:22:15)');
  // A class whose name getter throws, or an odd one: Error.
  const odd = new ApiError(500);
  Object.defineProperty(odd, "constructor", { get() { throw new Error("no"); } });
  assert.equal(causes.describeError(odd, { stacks: false }).split(":")[0], "Error");
});
