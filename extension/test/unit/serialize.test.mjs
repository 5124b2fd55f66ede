import { test } from "node:test";
import assert from "node:assert/strict";
import { serialize, limits } from "./load.mjs";

test("strings stay as they are and arguments are joined with spaces", () => {
  assert.equal(serialize.formatMessage(["a", 1, true, null, undefined]).text, "a 1 true null undefined");
});

test("-0 reads -0, as DevTools shows it, alone and inside objects", () => {
  assert.equal(serialize.formatMessage([-0, { a: -0, b: 0 }, [-0]]).text, '-0 {"a":-0,"b":0} [-0]');
});

test("values JSON cannot hold are written bare inside objects, never as strings the page did not hold", () => {
  const logged = { total: NaN, max: Infinity, min: -Infinity, missing: undefined, big: 10n, sym: Symbol("s"), text: "NaN" };
  assert.equal(
    serialize.formatArg(logged),
    '{"total":NaN,"max":Infinity,"min":-Infinity,"missing":undefined,"big":10n,"sym":Symbol(s),"text":"NaN"}',
  );
  assert.equal(serialize.formatArg([undefined, NaN, "undefined"]), '[undefined,NaN,"undefined"]');
  assert.equal(serialize.formatMessage([NaN, undefined, 10n]).text, "NaN undefined 10n", "alone, as before");
  // A page's string holding the character that marks a bare value is still a string.
  assert.equal(serialize.formatArg({ s: "\uE000NaN", n: NaN }), '{"s":"\uE000NaN","n":NaN}');
  assert.equal(serialize.formatArg({ s: "\uE000NaN" }), '{"s":"\uE000NaN"}');
  // And so with a page's toJSON on Object.prototype, when the tree is written by hand.
  Object.defineProperty(Object.prototype, "toJSON", { value: () => "POISON", configurable: true });
  try {
    assert.equal(serialize.formatArg({ n: NaN, list: [undefined] }), '{"n":NaN,"list":[undefined]}');
  } finally {
    delete Object.prototype.toJSON;
  }
});

test("circular objects are marked, not followed", () => {
  const a = { name: "a" };
  a.self = a;
  a.list = [a];
  assert.equal(serialize.formatArg(a), '{"name":"a","self":"[Circular]","list":["[Circular]"]}');
});

test("shared references are shown but the total work is bounded", () => {
  // 10 levels of 10 references to the same object: 10^10 paths if walked naively.
  let node = { leaf: true };
  for (let i = 0; i < 10; i++) node = Object.fromEntries(Array.from({ length: 10 }, (_, j) => [`k${j}`, node]));
  const started = process.hrtime.bigint();
  const text = serialize.formatArg(node);
  assert.ok(text.length < 1_000_000, `${text.length} characters`);
  assert.ok(process.hrtime.bigint() - started < 5_000_000_000n);
  assert.match(text, /\[Object\]/);
});

test("Errors carry their name, message and stack", () => {
  const e = new TypeError("boom");
  const text = serialize.formatArg(e);
  assert.match(text, /^TypeError: boom\n\s+at /);
  assert.equal(serialize.stackOf(["x", e]), e.stack);
  assert.equal(serialize.stackOf(["x"]), undefined);
  assert.match(serialize.formatArg({ err: e }), /TypeError: boom/);
});

test("DOM nodes are described by tag, id and classes", () => {
  const el = { nodeType: 1, tagName: "BUTTON", id: "go", className: " primary  big " };
  assert.equal(serialize.describeNode(el), "<button#go.primary.big>");
  assert.equal(serialize.describeNode({ nodeType: 3, textContent: "hello" }), '#text "hello"');
});

test("getters that throw, functions, symbols and bigints do not break serialisation", () => {
  const tricky = {
    get bad() {
      throw new Error("no");
    },
    fn: function named() {},
    sym: Symbol("s"),
    big: 10n,
    nan: NaN,
    date: new Date(0),
    re: /a\/b+/gi,
    sneaky: Object.assign(/x/, { toString: () => "not what it is" }),
  };
  assert.equal(
    serialize.formatArg(tricky),
    '{"bad":"[getter threw Error]","fn":"[Function named]","sym":Symbol(s),"big":10n,"nan":NaN,' +
      '"date":"1970-01-01T00:00:00.000Z","re":"/a\\\\/b+/gi","sneaky":"/x/"}',
  );
});

test("very long messages are cut and say their original size", () => {
  const long = "x".repeat(limits.MESSAGE_CAP * 3);
  const msg = serialize.formatMessage([long]);
  assert.equal(msg.text.length, limits.MESSAGE_CAP);
  assert.equal(msg.truncated, true);
  assert.equal(msg.size, limits.MESSAGE_CAP * 3);
  assert.deepEqual(serialize.cut("short", 10), { text: "short", truncated: false, size: 5 });
});

test("wide arrays and deep objects are bounded", () => {
  const wide = Array.from({ length: 1000 }, (_, i) => i);
  const shown = JSON.parse(serialize.formatArg(wide));
  assert.equal(shown.length, limits.ARG_KEYS + 1);
  assert.equal(shown.at(-1), `… ${1000 - limits.ARG_KEYS} more`);
  let deep = {};
  const root = deep;
  for (let i = 0; i < 50; i++) deep = deep.next = {};
  assert.match(serialize.formatArg(root), /\[Object\]/);
});

test("a page's toJSON on Object.prototype or Array.prototype does not rewrite what was logged", () => {
  const logged = { password: "x", n: 1, list: [1, "two", { deep: true }], nothing: null };
  const want = JSON.stringify(logged);
  for (const proto of [Object.prototype, Array.prototype]) {
    Object.defineProperty(proto, "toJSON", { value: () => "POISON", configurable: true, enumerable: false });
    try {
      assert.equal(serialize.formatArg(logged), want);
      assert.equal(serialize.formatArg([1, 2]), "[1,2]");
    } finally {
      delete proto.toJSON;
    }
  }
  assert.equal(serialize.formatArg(logged), want, "and the fast path after");
});
