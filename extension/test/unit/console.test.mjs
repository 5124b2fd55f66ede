// page/console.js against a console of the test's own: what each wrapped
// method records, built as the outbox builds it (later) and redacted as it
// redacts it. The real page and DevTools-like behaviour in Chromium are
// checked end to end by test/e2e/console.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

import { limits, serialize, snapshot, format, table, callsite, redact } from "./load.mjs";

const require = createRequire(import.meta.url);
const METHODS = ["log", "info", "warn", "error", "debug", "trace", "dir", "dirxml", "table", "count", "countReset",
  "time", "timeLog", "timeEnd", "group", "groupCollapsed", "groupEnd", "assert"];

const originals = []; // what reached the console under the wrappers
const pageConsole = Object.fromEntries(METHODS.map((m) => [m, function (...args) { originals.push({ m, args, self: this }); }]));
const queued = [];
let clock = 1000;
// The real core's pageUrl (which URL a call was made on), as navigation.js moves it on.
globalThis.__gasoline = {};
require("../../page/core.js");
const { pageUrl } = globalThis.__gasoline.core;
const core = {
  pageUrl,
  apply: Reflect.apply,
  fill(owner, name, make) {
    const original = owner[name];
    owner[name] = make(original);
    return original;
  },
  Error,
  perfNow: () => clock,
};
globalThis.__gasoline = { sources: {}, format, table, callsite, snapshot };
require("../../page/console.js");
const install = globalThis.__gasoline.sources.console;
delete globalThis.__gasoline;
const nodeConsole = globalThis.console;
globalThis.console = pageConsole; // console.js wraps the global console
globalThis.location = { href: "http://app.test/page" };
try {
  install({ core, outbox: { emit: (kind, build) => queued.push({ kind, build }) }, serialize, redact, limits });
} finally {
  globalThis.console = nodeConsole;
}
const c = pageConsole;

/** The entries queued since the last call, built and redacted as the outbox does. */
function built(policy = redact.policy()) {
  return queued.splice(0).map(({ kind, build }) => {
    assert.equal(kind, "logs");
    return redact.redactEntry(kind, build(policy), policy);
  });
}

test("an object changed right after logging is recorded as it was", () => {
  const cart = { items: [{ sku: "A", qty: 1 }], total: 10, owner: { name: "ann" } };
  c.log("cart", cart);
  cart.items.push({ sku: "B", qty: 2 });
  cart.items[0].qty = 99;
  cart.total = 30;
  cart.owner.name = "bob";
  const [e] = built();
  assert.equal(e.message, 'cart {"items":[{"sku":"A","qty":1}],"total":10,"owner":{"name":"ann"}}');
  assert.equal(e.level, "log");
  assert.equal(e.source, "console");
  assert.equal(e.url, "http://app.test/page");
  assert.match(e.location, /console\.test\.mjs:\d+:\d+$/, "the caller, not the wrapper");
  assert.equal(e.method, undefined, "plain levels carry no method");
  assert.deepEqual(originals.at(-1).args, ["cart", cart], "the page's console gets the same arguments");
  assert.equal(originals.at(-1).self, c);
});

test("past the call-time budget, the rest is read when the entry is built", () => {
  const wide = { first: "as logged", rows: Array.from({ length: 60 }, (_, i) => ({ i, tags: ["a", "b"], more: { x: i } })) };
  c.log(wide);
  wide.first = "changed";
  wide.rows[59].i = "late";
  const text = built()[0].message;
  assert.match(text, /^\{"first":"as logged"/, "the first values are copied on the call");
  assert.match(text, /"i":"late"/, "values past the budget are read when built, as DevTools expands an object");
  const logged = JSON.parse(text);
  assert.equal(logged.rows.length, 60);
});

test("format specifiers and the levels", () => {
  c.error("Warning: %s%s", "Each child in a list should have a unique \"key\" prop.", "\n    in li\n    in App");
  c.warn("%cstyled %d%%", "color: red", 50.7);
  c.info("n=%i", 3);
  c.debug("%o", "s");
  const [err, warn, info, debug] = built();
  assert.equal(err.message, 'Warning: Each child in a list should have a unique "key" prop.\n    in li\n    in App');
  assert.equal(err.level, "error");
  assert.equal(warn.message, "styled 50%");
  assert.equal(warn.level, "warn");
  assert.equal(info.message, "n=3");
  assert.equal(debug.message, '"s"');
});

test("count and countReset, with DevTools' warning for an unknown label", () => {
  c.count();
  c.count("clicks");
  c.count("clicks");
  c.countReset("clicks");
  c.count("clicks");
  c.countReset("never");
  const entries = built();
  assert.deepEqual(entries.map((e) => [e.level, e.method, e.message, e.count]), [
    ["log", "count", "default: 1", 1],
    ["log", "count", "clicks: 1", 1],
    ["log", "count", "clicks: 2", 2],
    ["log", "count", "clicks: 1", 1],
    ["warn", "countReset", "Count for 'never' does not exist", undefined],
  ]);
  assert.ok(entries.every((e) => /console\.test\.mjs/.test(e.location)));
});

test("time, timeLog and timeEnd", () => {
  c.time("load");
  clock += 12.3;
  c.timeLog("load", "step", { n: 1 });
  clock += 100;
  c.timeEnd("load");
  c.timeEnd("load");
  c.time("x");
  c.time("x");
  c.timeLog("nope");
  c.timeEnd("x");
  const entries = built();
  assert.deepEqual(entries.map((e) => [e.level, e.method, e.message]), [
    ["log", "timeLog", 'load: 12.3 ms step {"n":1}'],
    ["log", "timeEnd", "load: 112.3 ms"],
    ["warn", "timeEnd", "Timer 'load' does not exist"],
    ["warn", "time", "Timer 'x' already exists"],
    ["warn", "timeLog", "Timer 'nope' does not exist"],
    ["log", "timeEnd", "x: 0 ms"],
  ]);
});

test("groups: an entry for the label, and the open groups' labels on entries inside", () => {
  c.group("Outer %s", "request");
  c.log("in outer");
  c.groupCollapsed();
  c.info("in inner");
  c.groupEnd();
  c.log("back in outer");
  c.groupEnd();
  c.groupEnd(); // one too many: nothing happens
  c.log("outside");
  const entries = built();
  assert.deepEqual(entries.map((e) => [e.method, e.message, e.group]), [
    ["group", "Outer request", undefined],
    [undefined, "in outer", ["Outer request"]],
    ["groupCollapsed", "console.group", ["Outer request"]],
    [undefined, "in inner", ["Outer request", "console.group"]],
    [undefined, "back in outer", ["Outer request"]],
    [undefined, "outside", undefined],
  ]);
});

test("groups nested without end stay bounded", () => {
  for (let i = 0; i < 100; i++) c.group(`g${i}`);
  c.log("deep");
  for (let i = 0; i < 100; i++) c.groupEnd();
  c.log("out");
  const entries = built();
  assert.equal(entries.at(-2).group.length, limits.GROUP_DEPTH);
  assert.equal(entries.at(-1).group, undefined, "every groupEnd is matched, also past the kept depth");
});

test("a long group label: whole in the group's entry, cut in `group`", () => {
  const long = "L".repeat(300);
  c.group(long);
  c.log("under a long label");
  c.groupEnd();
  const [group, inside] = built();
  assert.equal(group.message, long);
  assert.deepEqual(inside.group, [long.slice(0, limits.LABEL_CAP)]);
});

test("console.table: the rows as a Markdown table, DevTools' columns", () => {
  const people = [{ name: "ann", age: 31 }, { name: "bob|jr", city: "Oslo\nNorway" }, "just text", NaN, { name: undefined, age: NaN }];
  c.table(people);
  people[0].name = "changed";
  c.table({ a: { x: 1 }, b: { y: [1, 2] } }, ["y"]);
  c.table(new Map([["k1", { v: 1 }]]));
  c.table("not tabular");
  const [t1, t2, t3, t4] = built();
  assert.equal(t1.method, "table");
  assert.equal(t1.message, [
    "| (index) | name | age | city | Value |",
    "| --- | --- | --- | --- | --- |",
    "| 0 | ann | 31 |  |  |",
    "| 1 | bob\\|jr |  | Oslo\\nNorway |  |",
    "| 2 |  |  |  | just text |",
    "| 3 |  |  |  | NaN |",
    "| 4 | undefined | NaN |  |  |",
  ].join("\n"));
  assert.equal(t2.message, "| (index) | y |\n| --- | --- |\n| a |  |\n| b | [1,2] |");
  assert.equal(t3.message, '| (iteration index) | Key | Values |\n| --- | --- | --- |\n| 0 | k1 | {"v":1} |');
  assert.equal(t4.message, "not tabular");
  assert.equal(t4.method, "table");
});

test("console.table is bounded in rows, columns, cells and size", () => {
  c.table(Array.from({ length: 1000 }, (_, i) => ({ i })));
  const wide = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`c${i}`, "v".repeat(500)]));
  c.table([wide]);
  c.table(Array.from({ length: 1000 }, () => wide));
  const [long, one, big] = built().map((e) => e.message.split("\n"));
  assert.equal(long.length, 2 + limits.TABLE_ROWS + 1);
  assert.equal(long.at(-1), `… ${1000 - limits.TABLE_ROWS} more rows`);
  assert.equal(one[0].split(" | ").length, 1 + limits.TABLE_COLUMNS);
  assert.equal(one[2].split(" | ")[1], "v".repeat(limits.TABLE_CELL - 1) + "…");
  assert.ok(big.join("\n").length <= limits.MESSAGE_CAP, "whole rows up to the message cap");
  const rows = big.length - 3;
  assert.ok(rows > 0 && rows < limits.TABLE_ROWS);
  assert.equal(big.at(-1), `… ${1000 - rows} more rows`);
});

test("secrets in format arguments, table cells, cause messages and group labels are redacted", () => {
  const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
  c.log("login %s with %o", "ann", { password: "hunter2-in-arg" });
  c.table([{ user: "ann", password: "hunter2-in-cell", token: jwt }]);
  c.table({ apiToken: "plain-secret-row" });
  c.table([{ user: "bob", secret_word: "custom-secret" }]);
  c.error("failed", new Error("outer", { cause: new Error(`inner Bearer ${jwt}`) }));
  c.group("session token=abc123secret");
  c.log("inside");
  c.groupEnd();
  const entries = built(redact.policy([], ["secret_word"]));
  const all = JSON.stringify(entries);
  for (const s of ["hunter2-in-arg", "hunter2-in-cell", jwt, "plain-secret-row", "custom-secret", "abc123secret"]) {
    assert.ok(!all.includes(s), `${s} must not be recorded: ${all}`);
  }
  assert.deepEqual(entries[1].redacted.sort(), ["message.password", "message.token"]);
  assert.match(entries[1].message, /\| ann \| \[redacted\] \| \[redacted\] \|/);
  assert.match(entries[4].stack, /Caused by: Error: inner Bearer \[redacted\]/);
  assert.deepEqual(entries.at(-1).group, ["session token=[redacted]"]);
});

test("a logged Error's stack is the entry's stack, once: the message names it by its head lines", () => {
  const e = new TypeError("boom");
  c.error(e); // as Vue's and React's production handlers log what a component threw
  c.error("checkout failed:", new Error("outer", { cause: new RangeError("inner") }), "(retrying)");
  c.log("two", new Error("first"), new Error("second"));
  const [alone, withCause, two] = built();
  assert.equal(alone.message, "TypeError: boom");
  assert.equal(alone.stack, e.stack);
  assert.equal(withCause.message, "checkout failed: Error: outer\nCaused by: RangeError: inner (retrying)");
  assert.match(withCause.stack, /^Error: outer\n {4}at [^]*\nCaused by: RangeError: inner\n {4}at /);
  // Through a format specifier too, as React 19 logs what a component threw.
  c.error("%o\n\n%s\n\n%s\n", e, "The above error occurred in the <PriceTag> component.", "React will try to recreate this component tree");
  const [react] = built();
  assert.equal(react.message, "TypeError: boom\n\nThe above error occurred in the <PriceTag> component.\n\nReact will try to recreate this component tree\n");
  assert.equal(react.stack, e.stack);
  // Only the first Error's stack is the entry's: the second keeps its own in the message.
  assert.match(two.message, /^two Error: first Error: second\n {4}at /);
  assert.match(two.stack, /^Error: first\n {4}at /);
  // An Error without a stack string keeps what it has in the message.
  const bare = new Error("no stack");
  Object.defineProperty(bare, "stack", { value: undefined });
  c.warn(bare);
  const [nostack] = built();
  assert.equal(nostack.message, "Error: no stack");
  assert.equal(nostack.stack, undefined);
});

test("assert, trace, dir and dirxml", () => {
  c.assert(true, "never shown");
  c.assert(1 === 2, "expected %d, got %d", 1, 2);
  c.assert(false);
  c.trace("here %s", "now");
  c.dir({ a: { b: 1 } }, { depth: 0 });
  c.dirxml("x", 1);
  const [a1, a2, trace, dir, dirxml] = built();
  assert.equal(a1.message, "Assertion failed: expected 1, got 2");
  assert.equal(a1.level, "error");
  assert.equal(a1.method, "assert");
  assert.match(a1.stack, /^Assertion failed\n {4}at .*console\.test\.mjs/);
  assert.equal(a2.message, "Assertion failed");
  assert.equal(trace.message, "here now");
  assert.match(trace.stack, /^console\.trace\n {4}at .*console\.test\.mjs/);
  assert.ok(!trace.stack.includes("console.js"), "our own frame is not in the trace");
  assert.equal(dir.message, '{"a":{"b":1}}');
  assert.equal(dir.method, "dir");
  assert.equal(dirxml.message, "x 1");
  assert.equal(originals.filter((o) => o.m === "assert").length, 3, "the page's console.assert is called every time");
});

test("a getter that logs while its object is being copied is not recorded twice, nor forever", () => {
  const sneaky = {
    get value() {
      c.log("from the getter", sneaky);
      return 1;
    },
  };
  c.log("outer", sneaky);
  const entries = built();
  assert.deepEqual(entries.map((e) => e.message), ['outer {"value":1}']);
  assert.ok(originals.some((o) => o.args[0] === "from the getter"), "the page's own log still happens");
});

test("a console call never throws at the page because of capture", () => {
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  assert.doesNotThrow(() => c.log("revoked", revoked.proxy));
  assert.doesNotThrow(() => c.count({ toString() { throw new Error("bad label"); } }));
  assert.doesNotThrow(() => c.table(revoked.proxy));
  assert.match(built()[0].message, /^revoked \[unserialisable/);
});

test("a console call three library frames deep keeps the page's own frame among its callers", () => {
  // Vue's warnings: warn$1 calls the console, called by resolveAsset, resolveComponent, then the
  // component's render function: the page's code is the call site's third caller.
  function render() {
    resolveComponent();
  }
  function resolveComponent() {
    resolveAsset();
  }
  function resolveAsset() {
    warn();
  }
  function warn() {
    c.warn("[Vue warn]: Failed to resolve component: FancyWidget");
  }
  render();
  const [e] = built();
  const callers = e.callers.split("\n");
  assert.equal(callers.length, 3, e.callers);
  // render's own line: where it calls resolveComponent.
  const source = readFileSync(new URL(import.meta.url), "utf8").split("\n");
  const renderLine = source.findIndex((line) => line === "    resolveComponent();") + 1;
  assert.ok(callers[2].endsWith(`console.test.mjs:${renderLine}:5`), `${e.callers} (render is line ${renderLine})`);
});

test("a Vue ref is logged as its value, not its internals", () => {
  // What Vue 3.5's RefImpl holds: the value last, after its dependency bookkeeping.
  class RefImpl {
    constructor(value) {
      this.dep = { computed: undefined, version: 0, activeLink: undefined, subs: undefined, map: undefined, key: undefined, sc: 0 };
      this.__v_isRef = true;
      this.__v_isShallow = false;
      this._rawValue = value;
      this._value = value;
    }
    get value() {
      throw new Error("reading .value would track the read");
    }
  }
  c.log("count ref", new RefImpl(0), { total: new RefImpl({ n: 2 }) });
  const [e] = built();
  assert.equal(e.message, 'count ref {"[Ref]":0} {"total":{"[Ref]":{"n":2}}}');
});

test("a console entry names the page it was logged on: a route change before the entry is built does not move it", () => {
  globalThis.location.href = "http://app.test/cart";
  c.log("on the cart");
  c.count("cart views");
  // A router's pushState, seen by navigation.js, before the outbox builds them.
  globalThis.location.href = "http://app.test/checkout";
  pageUrl.left("http://app.test/cart");
  c.log("on the checkout");
  assert.deepEqual(built().map((e) => e.url), ["http://app.test/cart", "http://app.test/cart", "http://app.test/checkout"]);
  globalThis.location.href = "http://app.test/page";
  pageUrl.left("http://app.test/checkout");
});
