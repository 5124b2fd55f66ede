// page/core.js's `later`: many deadlines on one native timer. The page's
// setTimeout, clearTimeout and clock are stand-ins here, taken by core.js as it
// loads, as it takes the browser's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let clock = 0;
let native = []; // the native timers armed: {fn, ms, cleared}
globalThis.setTimeout = (fn, ms) => {
  const t = { fn, ms, cleared: false };
  native.push(t);
  return t;
};
globalThis.clearTimeout = (t) => t && (t.cleared = true);
Object.defineProperty(globalThis, "performance", { value: { now: () => clock }, configurable: true });
globalThis.__gasoline = {};
require("../../page/core.js");
const { later, weakMap, weakSet, fill, pageUrl } = globalThis.__gasoline.core;
delete globalThis.__gasoline;

/** The native timers still armed. */
const armed = () => native.filter((t) => !t.cleared);
/** Moves the clock to `at` and fires the armed native timer if it is due by then. */
function fireAt(at) {
  clock = at;
  const [t] = armed();
  native = [];
  if (t) t.fn();
}

test("a burst of deadlines arms one native timer; an earlier one re-arms it; a cancelled one never runs", () => {
  const ran = [];
  const cancels = [];
  for (let i = 0; i < 300; i++) cancels.push(later(() => ran.push(i), 1500));
  assert.equal(armed().length, 1, "300 deadlines, one timer");
  later(() => ran.push("soon"), 100);
  assert.equal(armed().length, 1, "still one timer, now for the earlier deadline");
  assert.ok(armed()[0].ms >= 100 && armed()[0].ms <= 150, `armed for ${armed()[0].ms} ms`);
  cancels[7]();
  fireAt(150);
  assert.deepEqual(ran, ["soon"], "only what is due runs");
  assert.equal(armed().length, 1, "the next deadline is armed");
  fireAt(1600);
  assert.equal(ran.length, 300, "the 299 left and the early one");
  assert.ok(!ran.includes(7), "the cancelled one never runs");
  assert.equal(armed().length, 0, "nothing left, nothing armed");
});

test("cancelling every deadline disarms the native timer: a cancelled deadline never wakes the page", () => {
  const cancels = [later(() => assert.fail("cancelled"), 10000), later(() => assert.fail("cancelled"), 10000)];
  assert.equal(armed().length, 1);
  cancels[0]();
  assert.equal(armed().length, 1, "one deadline left: still armed");
  cancels[1]();
  assert.equal(armed().length, 0, "none left: the timer is cleared");
  const ran = [];
  later(() => ran.push("next"), 10);
  assert.equal(armed().length, 1, "a new deadline arms again");
  fireAt(clock + 100);
  assert.deepEqual(ran, ["next"]);
});

test("a callback that throws does not stop the others", () => {
  const ran = [];
  later(() => {
    throw new Error("boom");
  }, 10);
  later(() => ran.push("after"), 10);
  fireAt(clock + 100);
  assert.deepEqual(ran, ["after"]);
});

test("our maps, sets and toString keep working when the page replaces WeakMap's and WeakSet's methods", () => {
  const map = weakMap();
  const set = weakSet();
  const owner = { fetch() {} };
  fill(owner, "fetch", (original) => ({ fetch: (...a) => original(...a) }).fetch);
  const broken = () => {
    throw new Error("replaced by the page");
  };
  const methods = [[WeakMap.prototype, ["get", "set", "has", "delete"]], [WeakSet.prototype, ["add", "has", "delete"]]];
  const saved = methods.map(([proto]) => Object.getOwnPropertyDescriptors(proto));
  for (const [proto, names] of methods) for (const name of names) proto[name] = broken;
  try {
    const key = {};
    map.set(key, 1);
    set.add(key);
    assert.deepEqual([map.get(key), map.has(key), set.has(key)], [1, true, true]);
    assert.deepEqual([map.delete(key), set.delete(key), map.has(key), set.has(key)], [true, true, false, false]);
    assert.match(owner.fetch.toString(), /fetch\(\) \{\}/, "a wrapper still answers toString with its original's source");
  } finally {
    methods.forEach(([proto, names], i) => names.forEach((name) => Object.defineProperty(proto, name, saved[i][name])));
  }
});

test("pageUrl names the URL a count was noted on: the current one until the route changes, then the one it left", () => {
  globalThis.location = { href: "http://app.test/a" };
  const onA = pageUrl.now();
  assert.equal(pageUrl.at(onA), "http://app.test/a");
  globalThis.location.href = "http://app.test/b";
  pageUrl.left("http://app.test/a");
  const onB = pageUrl.now();
  assert.deepEqual([pageUrl.at(onA), pageUrl.at(onB)], ["http://app.test/a", "http://app.test/b"]);
  // What an entry built later says of where it began, if the page has left it since.
  assert.deepEqual([pageUrl.since(onA), pageUrl.since(onB)], ["http://app.test/a", undefined]);
  // Bounded: a count older than the last 256 route changes reads as the current URL.
  for (let i = 0; i < 300; i++) pageUrl.left(`http://app.test/r${i}`);
  globalThis.location.href = "http://app.test/now";
  assert.deepEqual([pageUrl.at(onA), pageUrl.at(pageUrl.now() - 1)], ["http://app.test/now", "http://app.test/r299"]);
  delete globalThis.location;
});
