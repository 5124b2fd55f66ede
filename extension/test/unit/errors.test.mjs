// page/errors.js with the test's own window: uncaught errors and unhandled
// rejections keep their cause chain and AggregateError members (heads in
// `message`, stacks in `stack`), built later as the outbox builds them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

import { limits, serialize, snapshot, causes, redact, callsite } from "./load.mjs";

const require = createRequire(import.meta.url);
const listeners = {};
const queued = [];
class ErrorEvent {
  constructor(init) {
    Object.assign(this, init);
  }
}
globalThis.__gasoline = { sources: {}, causes, snapshot, callsite };
require("../../page/errors.js");
const install = globalThis.__gasoline.sources.errors;
delete globalThis.__gasoline;
Object.assign(globalThis, { window: {}, document: {}, ErrorEvent, location: { href: "http://app.test/" } });
install({
  core: { listen: (target, type, fn) => (listeners[type] = fn) },
  outbox: { emit: (kind, build) => queued.push(build) },
  serialize,
  limits,
});
const built = () =>
  queued
    .splice(0)
    .map((build) => build())
    .filter((entry) => entry !== null)
    .map((entry) => redact.redactEntry("logs", entry));

test("an error or a rejection the page's own listener took charge of (preventDefault) is left to the page's log", () => {
  const event = new ErrorEvent({ error: new Error("handled"), message: "Uncaught Error: handled", filename: "http://app.test/a.js", lineno: 1, colno: 1 });
  listeners.error(event);
  const rejection = { reason: new Error("handled too") };
  listeners.unhandledrejection(rejection);
  // The page's listeners run after ours (Angular's global error listeners, say): entries are built later.
  event.defaultPrevented = true;
  rejection.defaultPrevented = true;
  assert.deepEqual(built(), []);
  listeners.unhandledrejection({ reason: new Error("not handled"), defaultPrevented: false });
  assert.deepEqual(built().map((e) => e.message), ["Unhandled rejection: Error: not handled"]);
});

test("an uncaught error keeps its cause chain", () => {
  const error = new Error("checkout failed", { cause: new TypeError("price is undefined", { cause: "stale cart" }) });
  listeners.error(new ErrorEvent({ error, message: "Uncaught Error: checkout failed", filename: "http://app.test/app.js", lineno: 3, colno: 9 }));
  const [e] = built();
  assert.equal(e.source, "exception");
  assert.equal(e.level, "error");
  assert.equal(e.message, "Error: checkout failed\nCaused by: TypeError: price is undefined\nCaused by: stale cart");
  assert.equal(e.location, "http://app.test/app.js:3:9");
  assert.match(e.stack, /^Error: checkout failed\n {4}at [^]*\nCaused by: TypeError: price is undefined\n {4}at [^]*\nCaused by: stale cart$/);
});

test("an error a built-in threw (JSON.parse) is placed at the page's frame that called it, not inside the JSON", () => {
  const error = new SyntaxError(`Unexpected token 'o', "not json" is not valid JSON`);
  error.stack = `${error.message}\n    at JSON.parse (<anonymous>)\n    at es.onmessage (http://localhost:5173/static/src/main.ts:34:23)`;
  // The browser places it at the page's URL, line 1, the column of the bad character.
  listeners.error(new ErrorEvent({ error, message: `Uncaught ${error.message}`, filename: "http://app.test/", lineno: 1, colno: 2 }));
  const [e] = built();
  assert.equal(e.location, "http://localhost:5173/static/src/main.ts:34:23");
});

test("an unhandled AggregateError keeps its members", () => {
  const reason = new AggregateError([new Error("mirror 1 down"), new Error("mirror 2 token=abc123secret")], "all mirrors failed");
  listeners.unhandledrejection({ reason });
  const [e] = built();
  assert.equal(e.source, "unhandledrejection");
  assert.equal(e.message, "Unhandled rejection: AggregateError: all mirrors failed\n  [0] Error: mirror 1 down\n  [1] Error: mirror 2 token=[redacted]");
  assert.match(e.stack, /\n {2}\[1\] Error: mirror 2 token=\[redacted\]\n {6}at /);
  assert.ok(!JSON.stringify(e).includes("abc123secret"));
});

test("an unhandled rejection of an Error is placed where the Error was made; of a non-Error, nowhere", () => {
  const reason = new Error("load failed");
  reason.stack = "Error: load failed\n    at load (http://app.test/src/api.js:24:11)\n    at http://app.test/src/main.js:3:1";
  listeners.unhandledrejection({ reason });
  listeners.unhandledrejection({ reason: "plain" });
  const noStack = new Error("no stack");
  Object.defineProperty(noStack, "stack", { get() { throw new Error("hostile"); } });
  listeners.unhandledrejection({ reason: noStack });
  assert.deepEqual(built().map((e) => e.location), ["http://app.test/src/api.js:24:11", undefined, undefined]);
});

test("a rejected or thrown non-Error is recorded as it was then", () => {
  const reason = { code: 503, retry: true };
  listeners.unhandledrejection({ reason });
  reason.code = 0;
  const thrown = { kind: "validation" };
  listeners.error(new ErrorEvent({ error: thrown, message: "Uncaught [object Object]" }));
  thrown.kind = "changed";
  listeners.error(new ErrorEvent({ error: null, message: "Script error." }));
  const [rejection, exception, opaque] = built();
  assert.equal(rejection.message, 'Unhandled rejection: {"code":503,"retry":true}');
  assert.equal(rejection.stack, undefined);
  assert.equal(exception.message, 'Uncaught {"kind":"validation"}');
  // The browser hid it (a script of another origin loaded without CORS): the entry says why and
  // how to see it.
  assert.ok(opaque.message.startsWith("Script error. (the browser hides what a script of another origin threw"), opaque.message);
  assert.match(opaque.message, /crossorigin/);
});

test("a Script error. the page itself names a file for is left as it was", () => {
  listeners.error(new ErrorEvent({ error: null, message: "Script error.", filename: "http://app.test/app.js", lineno: 3, colno: 1 }));
  assert.equal(built()[0].message, "Script error.");
});

test("a very long error is cut and says so", () => {
  listeners.error(new ErrorEvent({ error: new Error("z".repeat(3 * limits.MESSAGE_CAP)), message: "" }));
  const [e] = built();
  assert.equal(e.message.length, limits.MESSAGE_CAP);
  assert.equal(e.messageTruncated, true);
  assert.ok(e.stack.length <= limits.MESSAGE_CAP);
});

test("a thrown or rejected value that cannot be read (a revoked Proxy) is still recorded, saying so", () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  const trapping = new Proxy({}, { getPrototypeOf: () => { throw new Error("trap says no"); } });
  listeners.error(new ErrorEvent({ error: proxy, message: "Uncaught #<Object>" }));
  listeners.unhandledrejection({ reason: trapping });
  const [exception, rejection] = built();
  assert.equal(exception.source, "exception");
  assert.match(exception.message, /^Uncaught #<Object> \[unserialisable: .*revoked/);
  assert.equal(rejection.source, "unhandledrejection");
  assert.equal(rejection.message, "Unhandled rejection: [unserialisable: trap says no]");
});

test("an error Qwik's loader caught from an event handler (qerror) is stored as uncaught, at its throw; an import error is left to qwikloader's own log", () => {
  const error = new TypeError("qwik onClick$ boom");
  listeners.qerror({ detail: { error, element: {} } });
  listeners.qerror({ detail: { importError: "async", error: new Error("module failed") } });
  listeners.qerror({ detail: null });
  const entries = built();
  assert.equal(entries.length, 1);
  assert.equal(entries[0].source, "exception");
  assert.equal(entries[0].message, "TypeError: qwik onClick$ boom");
  assert.match(entries[0].location, /errors\.test\.mjs:\d+:\d+$/);
});

test("an error is dated to the page it was thrown on: a route change before the entry is built does not move it", () => {
  location.href = "http://app.test/cart";
  listeners.error(new ErrorEvent({ error: new Error("on the cart"), message: "Uncaught Error: on the cart", filename: "http://app.test/a.js", lineno: 1, colno: 1 }));
  listeners.unhandledrejection({ reason: new Error("also on the cart"), defaultPrevented: false });
  location.href = "http://app.test/checkout"; // the router moved on before the outbox built them
  assert.deepEqual(built().map((e) => e.url), ["http://app.test/cart", "http://app.test/cart"]);
  location.href = "http://app.test/";
});
