import { test } from "node:test";
import assert from "node:assert/strict";
import { Delivery } from "./load.mjs";

/** A virtual clock and a scripted server: what was POSTed, and how it answered. */
function harness(options = {}, answer = () => ({ status: 200 })) {
  const h = { now: 0, timers: [], posts: [], logs: [], delivered: {}, answer };
  h.delivery = new Delivery(
    {
      post: async (kind, entries) => {
        const result = h.answer(kind, entries, h);
        h.posts.push({ kind, n: entries.length, at: h.now, status: result.status });
        if (result.status >= 200 && result.status < 300) {
          (h.delivered[kind] ||= []).push(...entries.map((e) => e.n));
        }
        return result;
      },
      setTimer: (fn, ms) => {
        const t = { at: h.now + ms, fn };
        h.timers.push(t);
        return t;
      },
      clearTimer: (t) => (h.timers = h.timers.filter((x) => x !== t)),
      log: (level, message) => h.logs.push({ level, message }),
    },
    options,
  );
  /** Advances the clock by `ms`, running due timers and the promises they start. */
  h.advance = async (ms) => {
    const end = h.now + ms;
    for (;;) {
      h.timers.sort((a, b) => a.at - b.at);
      const next = h.timers[0];
      if (!next || next.at > end) break;
      h.timers.shift();
      h.now = next.at;
      next.fn();
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    }
    h.now = end;
  };
  h.add = (kind, from, count) => {
    for (let i = from; i < from + count; i++) h.delivery.add(kind, { n: i });
  };
  return h;
}

const range = (from, count) => Array.from({ length: count }, (_, i) => from + i);

test("a full batch goes at once, a partial one after 250 ms", async () => {
  const h = harness();
  h.add("logs", 0, 250);
  await h.advance(0);
  assert.deepEqual(h.posts.map((p) => p.n), [100, 100]);
  await h.advance(249);
  assert.equal(h.posts.length, 2);
  await h.advance(1);
  assert.deepEqual(h.posts.map((p) => p.n), [100, 100, 50]);
  assert.deepEqual(h.delivered.logs, range(0, 250));
});

test("kinds are batched separately", async () => {
  const h = harness();
  h.add("logs", 0, 3);
  h.add("actions", 0, 2);
  await h.advance(250);
  assert.deepEqual(h.posts.map((p) => [p.kind, p.n]).sort(), [["actions", 2], ["logs", 3]]);
});

test("while the server is down, events wait and are all delivered once, in order, when it is back", async () => {
  let up = false;
  const h = harness({}, () => (up ? { status: 200 } : { status: 0, error: "Failed to fetch" }));
  h.add("logs", 0, 150);
  await h.advance(10_000);
  const failed = h.posts.length;
  assert.ok(failed >= 3, `retried ${failed} times`);
  const gaps = h.posts.slice(1).map((p, i) => p.at - h.posts[i].at);
  assert.ok(gaps.every((g, i) => i === 0 || g >= gaps[i - 1]), `backoff grows: ${gaps}`);
  assert.ok(Math.max(...gaps) <= 5000, "backoff is capped");
  h.add("logs", 150, 10);
  up = true;
  await h.advance(10_000);
  assert.deepEqual(h.delivered.logs, range(0, 160));
  assert.deepEqual(h.delivery.pending(), { logs: 0 });
  const messages = h.logs.map((l) => l.message);
  assert.equal(messages.filter((m) => m.includes("unreachable")).length, 1, "one warning per outage");
  assert.ok(messages.some((m) => m.includes("reachable again")));
});

test("503 with Retry-After is honoured", async () => {
  let busy = true;
  const h = harness({}, () => (busy ? { status: 503, retryAfterMs: 3000 } : { status: 200 }));
  h.add("logs", 0, 1);
  await h.advance(250);
  assert.equal(h.posts.length, 1);
  busy = false;
  await h.advance(2999);
  assert.equal(h.posts.length, 1, "waits for Retry-After");
  await h.advance(1);
  assert.deepEqual(h.delivered.logs, [0]);
});

test("a full queue drops the oldest and reports how many", async () => {
  let up = false;
  const h = harness({ capacity: 50 }, () => (up ? { status: 200 } : { status: 0 }));
  h.add("logs", 0, 80);
  await h.advance(1000);
  up = true;
  await h.advance(10_000);
  assert.deepEqual(h.delivered.logs, range(30, 50));
  const report = h.logs.find((l) => l.message.includes("dropped"));
  assert.match(report.message, /dropped 30 logs events/);
  assert.equal(report.level, "warn");
});

test("an acknowledged batch is never sent again", async () => {
  const h = harness();
  h.add("logs", 0, 100);
  await h.advance(0);
  h.add("logs", 100, 5);
  await h.advance(1000);
  assert.deepEqual(h.delivered.logs, range(0, 105));
  assert.equal(h.posts.reduce((s, p) => s + p.n, 0), 105);
});

test("a refused entry is dropped alone and reported; the rest goes through", async () => {
  const h = harness({}, (kind, entries) =>
    entries.some((e) => e.n === 3)
      ? { status: 400, error: `entries[${entries.findIndex((e) => e.n === 3)}].level: must be one of …` }
      : { status: 200 },
  );
  h.add("logs", 0, 6);
  await h.advance(1000);
  assert.deepEqual(h.delivered.logs, [0, 1, 2, 4, 5]);
  assert.ok(h.logs.some((l) => l.level === "error" && l.message.includes("refused 1 entry of logs")));
});

test("too large a batch is split", async () => {
  const h = harness({}, (kind, entries) => (entries.length > 25 ? { status: 413 } : { status: 200 }));
  h.add("logs", 0, 100);
  await h.advance(1000);
  assert.deepEqual(h.delivered.logs, range(0, 100));
  assert.ok(h.posts.filter((p) => p.status === 200).every((p) => p.n <= 25));
});

test("a POST that throws counts as the server being down", async () => {
  let calls = 0;
  const h = harness({}, () => {
    if (calls++ === 0) throw new Error("network");
    return { status: 200 };
  });
  h.add("logs", 0, 2);
  await h.advance(2000);
  assert.deepEqual(h.delivered.logs, [0, 1]);
});
