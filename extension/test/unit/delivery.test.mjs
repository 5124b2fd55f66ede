import { test } from "node:test";
import assert from "node:assert/strict";
import { Delivery } from "./load.mjs";
import { memoryStorage } from "./storage.mjs";


/**
 * A virtual clock, a storage and a scripted server that, like gasoline,
 * remembers the keys of the batches it stored and answers one sent again
 * without storing it twice.
 */
function harness(options = {}, answer = () => ({ status: 200 }), shared = {}) {
  const h = {
    now: 0,
    timers: [],
    posts: [],
    logs: [],
    delivered: shared.delivered || {},
    keys: shared.keys || new Map(),
    storage: shared.storage || memoryStorage(),
    lives: 0,
    bodies: new Map(), // key → the body first sent under it
    conflicts: [],
    answer,
  };
  h.make = () =>
    new Delivery(
      {
        post: async (kind, body, key, signal) => {
          const { entries } = JSON.parse(body);
          if (h.bodies.has(key) && h.bodies.get(key) !== body) {
            // As gasoline does: a key is for one body only.
            h.conflicts.push(key);
            return { status: 409, error: "this Idempotency-Key was used for another batch" };
          }
          h.bodies.set(key, body);
          const result = await h.answer(kind, entries, h, signal);
          h.posts.push({ kind, n: entries.length, at: h.now, status: result.status, key, entries });
          if ((result.status >= 200 && result.status < 300 && !result.notGasoline) || result.storedButLost) {
            if (!h.keys.has(key)) {
              h.keys.set(key, entries.length);
              (h.delivered[kind] ||= []).push(...entries.map((e) => e.n));
            }
          }
          if (result.storedButLost) return { status: 0, error: "connection reset" };
          // gasoline's acknowledgement says how many entries it accepted (a replay: its first answer).
          if (result.status >= 200 && result.status < 300 && !("answer" in result)) return { ...result, answer: { accepted: h.keys.get(key) } };
          return result;
        },
        setTimer: (fn, ms) => {
          const t = { at: h.now + ms, fn };
          h.timers.push(t);
          return t;
        },
        clearTimer: (t) => (h.timers = h.timers.filter((x) => x !== t)),
        log: (level, message, tabId = null, local = false) => h.logs.push({ level, message, tabId, local }),
        storage: h.storage,
        random: () => `life${++h.lives}`,
        now: () => h.now,
      },
      // Batches of 100 keep these tests' numbers small; the defaults have a test of their own.
      { batchSize: 100, ...options },
    );
  h.delivery = h.make();
  h.settle = async () => {
    for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
  };
  /** Advances the clock by `ms`, running due timers and the promises they start. */
  h.advance = async (ms) => {
    const end = h.now + ms;
    await h.settle();
    for (;;) {
      h.timers.sort((a, b) => a.at - b.at);
      const next = h.timers[0];
      if (!next || next.at > end) break;
      h.timers.shift();
      h.now = next.at;
      next.fn();
      await h.settle();
    }
    h.now = end;
  };
  /** The worker is stopped: its memory and timers are gone, storage stays. */
  h.restart = async () => {
    h.timers = [];
    h.delivery = h.make();
    await h.delivery.start();
  };
  h.add = (kind, from, count, tab = 1) => {
    for (let i = from; i < from + count; i++) h.delivery.add(kind, { n: i, level: "log", message: `m${i}` }, tab);
  };
  /** Entries a page's relay holds (`page`, numbered `from`…): each add's promise, to see when it resolves. */
  h.relay = (kind, from, count, page = "page1", tab = 1) =>
    range(from, count).map((i) => h.delivery.add(kind, { n: i, level: "log", message: `m${i}` }, tab, { page, id: i }));
  return h;
}

const range = (from, count) => Array.from({ length: count }, (_, i) => from + i);
const stored = (h) => [...h.storage.map.keys()].filter((k) => k.startsWith("q:")).length;

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
  assert.equal(stored(h), 0, "acknowledged entries leave storage");
});

test("by default a batch holds up to 500 entries and about 1 MiB", async () => {
  const h = harness({ batchSize: undefined });
  h.add("logs", 0, 1200);
  await h.advance(0);
  assert.deepEqual(h.posts.map((p) => p.n), [500, 500]);
  await h.advance(250);
  assert.deepEqual(h.posts.map((p) => p.n), [500, 500, 200]);
  // Entries of 5 KiB: about 200 of them make a MiB.
  const big = harness({ batchSize: undefined });
  for (let i = 0; i < 450; i++) big.delivery.add("logs", { n: i, level: "log", message: "x".repeat(5 * 1024) }, 1);
  await big.advance(1000);
  const sizes = big.posts.map((p) => p.n);
  assert.equal(sizes.reduce((a, b) => a + b, 0), 450);
  assert.ok(sizes.length === 3 && sizes[0] > 150 && sizes[0] <= 204, `batches of at most 1 MiB: ${sizes}`);
  assert.deepEqual(big.delivered.logs, range(0, 450));
});

test("kinds are batched separately", async () => {
  const h = harness();
  h.add("logs", 0, 3);
  h.add("actions", 0, 2);
  await h.advance(250);
  assert.deepEqual(h.posts.map((p) => [p.kind, p.n]).sort(), [["actions", 2], ["logs", 3]]);
});

test("add resolves once the entry is in storage", async () => {
  const h = harness();
  await h.delivery.add("logs", { n: 0 }, 1);
  assert.deepEqual([...h.storage.map.values()].filter((v) => v.k), [{ j: '{"n":0}', k: "logs", t: 1 }]);
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

test("a batch is retried under the same key, with the same entries", async () => {
  let fails = 3;
  const h = harness({}, () => (fails-- > 0 ? { status: 503 } : { status: 200 }));
  h.add("logs", 0, 5);
  await h.advance(250);
  h.add("logs", 5, 5); // arrives while the first batch waits for its retry
  await h.advance(10_000);
  const first = h.posts.filter((p) => p.key === h.posts[0].key);
  assert.equal(first.length, 4, "three refusals and the success, one key");
  assert.ok(first.every((p) => p.n === 5), "the sealed batch does not grow");
  assert.equal(new Set(h.posts.map((p) => p.key)).size, 2, "the later entries go under a key of their own");
  assert.deepEqual(h.delivered.logs, range(0, 10));
});

test("a reply lost after the server stored the batch: sent again under its key, stored once", async () => {
  let lose = 2;
  const h = harness({}, () => (lose-- > 0 ? { status: 200, storedButLost: true } : { status: 200 }));
  h.add("logs", 0, 7);
  await h.advance(5000);
  assert.equal(h.posts.length, 3);
  assert.equal(new Set(h.posts.map((p) => p.key)).size, 1);
  assert.deepEqual(h.delivered.logs, range(0, 7), "stored exactly once");
  assert.equal(stored(h), 0);
});

test("a POST that hangs is aborted after the timeout and sent again under the same key", async () => {
  let hang = true;
  const signals = [];
  const h = harness({ timeoutMs: 15_000 }, (kind, entries, h, signal) => {
    signals.push(signal);
    if (!hang) return { status: 200 };
    return new Promise((resolve) => signal.addEventListener("abort", () => resolve({ status: 0, error: "aborted" })));
  });
  h.add("logs", 0, 3);
  await h.advance(250 + 14_999);
  assert.equal(signals.length, 1);
  assert.equal(signals[0].aborted, false);
  hang = false;
  await h.advance(1);
  assert.equal(signals[0].aborted, true, "the hung POST is aborted");
  await h.advance(1000);
  assert.equal(signals.length, 2, "and retried");
  assert.equal(new Set(h.posts.map((p) => p.key)).size, 1);
  assert.deepEqual(h.delivered.logs, [0, 1, 2]);
});

test("queues survive a stopped worker: a new one delivers them in order, the sealed batch under its key", async () => {
  const h = harness({}, () => ({ status: 0, error: "Failed to fetch" }));
  h.add("logs", 0, 150);
  h.add("actions", 0, 3, 2);
  await h.advance(300);
  const sealedKey = h.posts.find((p) => p.kind === "logs").key;
  assert.equal(stored(h), 153);
  h.answer = () => ({ status: 200 });
  await h.restart();
  h.add("logs", 150, 5);
  await h.advance(5000);
  assert.deepEqual(h.delivered.logs, range(0, 155));
  assert.deepEqual(h.delivered.actions, range(0, 3));
  const logsAfter = h.posts.filter((p) => p.kind === "logs" && p.status === 200);
  assert.equal(logsAfter[0].key, sealedKey, "the batch sealed before the stop keeps its key");
  assert.equal(logsAfter[0].n, 100);
  assert.equal(stored(h), 0);
  assert.deepEqual(h.conflicts, [], "the batch sent again is the same bytes");
});

test("a worker stopped while its POST was stored but unanswered: the next one resends, the server stores it once", async () => {
  let stall = true;
  const h = harness({}, (kind, entries, h) => {
    if (!stall) return { status: 200 };
    // The server stores the batch, then the worker is stopped before the answer comes.
    h.keys.set(h.pendingKey, entries.length);
    (h.delivered[kind] ||= []).push(...entries.map((e) => e.n));
    return new Promise(() => {});
  });
  const original = h.delivery.io.post;
  h.delivery.io.post = (kind, body, key, signal) => {
    h.pendingKey = key;
    return original(kind, body, key, signal);
  };
  h.add("logs", 0, 4);
  await h.advance(300);
  assert.deepEqual(h.delivered.logs, range(0, 4));
  stall = false;
  await h.restart();
  await h.advance(1000);
  assert.deepEqual(h.delivered.logs, range(0, 4), "not stored twice");
  assert.deepEqual(h.conflicts, [], "the batch sent again is the same bytes");
  assert.equal(stored(h), 0);
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

test("a full queue: the tab with the most queued loses its oldest, the other tabs lose nothing", async () => {
  let up = false;
  const h = harness({ capacity: 50 }, () => (up ? { status: 200 } : { status: 0 }));
  h.add("logs", 1000, 10, 2); // a quiet tab, its events the oldest
  h.add("logs", 2000, 5, null); // the extension's own, no tab
  h.add("logs", 0, 200, 1); // then a noisy tab floods
  await h.advance(1000);
  up = true;
  await h.advance(10_000);
  const got = h.delivered.logs;
  assert.equal(got.length, 50);
  assert.deepEqual(got.filter((n) => n >= 1000 && n < 2000), range(1000, 10), "the quiet tab keeps all");
  assert.deepEqual(got.filter((n) => n >= 2000), range(2000, 5));
  const noisy = got.filter((n) => n < 1000);
  assert.deepEqual(noisy, range(165, 35), "the noisy tab keeps its newest, in order");
  assert.equal(h.delivery.stats().logs.dropped, 165);
  const report = h.logs.find((l) => l.message.includes("dropped"));
  assert.equal(report.message, "dropped 165 logs events: queue full");
  assert.equal(report.level, "warn");
});

test("the byte bound covers all queues and also evicts from the biggest tab", async () => {
  const h = harness({ maxBytes: 4000 }, () => ({ status: 0 }));
  const big = "x".repeat(300);
  for (let i = 0; i < 30; i++) h.delivery.add("network_bodies", { n: i, big }, 7);
  await h.advance(0);
  for (let i = 0; i < 3; i++) h.delivery.add("logs", { n: i }, 8);
  await h.advance(100);
  assert.ok(h.delivery.bytes <= 4000, `${h.delivery.bytes} bytes queued`);
  assert.equal(h.delivery.pending().logs, 3, "the small tab keeps its entries");
  assert.ok(h.delivery.stats().network_bodies.dropped > 0);
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

test("a server paired with another extension keeps the events queued until it is re-paired", async () => {
  // The person follows the popup's advice (gasoline pair --reset) some time later: nothing made
  // meanwhile is lost, and saying so once does not loop through the log's own refused entries.
  let paired = false;
  const h = harness({ logKind: "extension_logs" }, () =>
    paired ? { status: 200 } : { status: 403, error: "gasoline is paired with extension aaaa…; not this one" },
  );
  h.add("extension_logs", 0, 2);
  h.add("logs", 0, 3);
  await h.advance(20_000);
  assert.deepEqual(h.delivered, {}, "nothing stored while refused");
  assert.equal(h.delivery.stats().logs.dropped, 0, "nothing dropped");
  const said = h.logs.filter((l) => l.message.includes("403"));
  assert.equal(said.length, 1, `said once: ${JSON.stringify(h.logs)}`);
  paired = true;
  await h.advance(120_000);
  assert.deepEqual(h.delivered.logs, [0, 1, 2]);
  assert.deepEqual(h.delivered.extension_logs.slice(0, 2), [0, 1]);
});

test("a refused entry is dropped alone, counted and reported; the rest goes through", async () => {
  const h = harness({}, (kind, entries) =>
    entries.some((e) => e.n === 3)
      ? { status: 400, error: `entries[${entries.findIndex((e) => e.n === 3)}].level: must be one of …` }
      : { status: 200 },
  );
  h.add("logs", 0, 6);
  await h.advance(3000);
  assert.deepEqual(h.delivered.logs, [0, 1, 2, 4, 5]);
  assert.ok(h.logs.some((l) => l.level === "error" && l.message.includes("refused 1 entry of logs")));
  assert.equal(h.delivery.stats().logs.dropped, 1);
  assert.ok(h.logs.some((l) => l.message === "dropped 1 logs event: refused by the server (HTTP 400)"));
  assert.notEqual(h.posts[0].key, h.posts[1].key, "what is left goes under a new key");
});

test("drops reported from elsewhere (the page's own cap) are counted and reported once", async () => {
  const h = harness();
  h.delivery.dropped("logs", 120, "the page's buffer (5000) was full");
  h.delivery.dropped("logs", 30, "the page's buffer (5000) was full");
  await h.advance(2000);
  assert.equal(h.delivery.stats().logs.dropped, 150);
  assert.deepEqual(
    h.logs.filter((l) => l.message.includes("dropped")).map((l) => l.message),
    ["dropped 150 logs events: the page's buffer (5000) was full"],
  );
});

test("a page's drops are reported with its tab, each tab on its own line", async () => {
  const h = harness();
  h.delivery.dropped("logs", 120, "the page's buffer (5000) was full", 7);
  h.delivery.dropped("logs", 30, "the page's buffer (5000) was full", 8);
  h.delivery.dropped("logs", 5, "the page's buffer (5000) was full", 7);
  await h.advance(2000);
  const lines = h.logs.filter((l) => l.message.includes("dropped")).map((l) => [l.tabId, l.message]);
  assert.deepEqual(lines.sort(), [
    [7, "dropped 125 logs events: the page's buffer (5000) was full"],
    [8, "dropped 30 logs events: the page's buffer (5000) was full"],
  ]);
});

test("too large a batch is split, each half under its own key", async () => {
  const h = harness({}, (kind, entries) => (entries.length > 25 ? { status: 413 } : { status: 200 }));
  h.add("logs", 0, 100);
  await h.advance(3000);
  assert.deepEqual(h.delivered.logs, range(0, 100));
  assert.ok(h.posts.filter((p) => p.status === 200).every((p) => p.n <= 25));
  const ok = h.posts.filter((p) => p.status === 200);
  assert.equal(new Set(ok.map((p) => p.key)).size, ok.length);
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

test("keys never repeat, also after a restart", async () => {
  const h = harness();
  h.add("logs", 0, 3);
  await h.advance(300);
  await h.restart();
  h.add("logs", 3, 3);
  await h.advance(300);
  const keys = h.posts.map((p) => p.key);
  assert.equal(keys.length, 2);
  assert.notEqual(keys[0], keys[1]);
  assert.deepEqual(keys, ["life1-logs-1-3", "life2-logs-1-3"]);
});

test("a 2xx that is not gasoline's acknowledgement (another program on the port) acknowledges nothing", async () => {
  let squatter = true;
  const h = harness({}, () => (squatter ? { status: 200, answer: undefined, notGasoline: true } : { status: 200 }));
  h.add("logs", 0, 3);
  await h.advance(2000);
  assert.ok(h.posts.length >= 2, "sent again while the answers are not gasoline's");
  assert.deepEqual(h.delivery.pending(), { logs: 3 }, "still queued");
  assert.ok(h.logs.some((l) => /not gasoline's answer/.test(l.message)), JSON.stringify(h.logs));
  squatter = false;
  await h.advance(10000);
  assert.deepEqual(h.delivery.pending(), { logs: 0 });
  assert.deepEqual(h.delivered.logs, [0, 1, 2], "stored once, by gasoline");
  assert.equal(new Set(h.posts.map((p) => p.key)).size, 1, "always the same batch under its key");
});

// ---- a page's relay holds its entries until they are taken: the server first, storage if it is slow ----

/** Whether each promise has resolved (after the microtasks run). */
async function resolved(promises) {
  const done = promises.map(() => false);
  promises.forEach((p, i) => p.then(() => (done[i] = true)));
  await new Promise((r) => setImmediate(r));
  return done;
}

test("a relay's entries the server takes at once never touch storage, and are taken once it has them", async () => {
  const writes = [];
  const h = harness();
  const set = h.storage.set;
  h.storage.set = (items) => (writes.push(...Object.keys(items)), set(items));
  const taken = h.relay("logs", 0, 150);
  await h.advance(0);
  assert.deepEqual(h.posts.map((p) => p.n), [100]);
  assert.deepEqual(await resolved(taken), [...Array(100).fill(true), ...Array(50).fill(false)], "the first batch's, once the server answered");
  await h.advance(250);
  assert.ok((await resolved(taken)).every(Boolean));
  assert.deepEqual(h.delivered.logs, range(0, 150));
  assert.deepEqual(writes, [], "nothing written to storage");
  assert.equal(h.posts[0].key, "page1-logs-0-100", "keyed by the page and its events' numbers");
});

test("while the server does not answer, a relay's entries go to storage after spillMs, their batch's key with them", async () => {
  const h = harness({ spillMs: 1000 }, () => ({ status: 0, error: "Failed to fetch" }));
  const taken = h.relay("logs", 0, 30);
  await h.advance(999);
  assert.equal(stored(h), 0);
  assert.ok((await resolved(taken)).every((d) => !d), "not taken yet: the relay keeps them");
  await h.advance(1);
  assert.equal(stored(h), 30);
  assert.ok((await resolved(taken)).every(Boolean), "taken once in storage");
  const sealed = h.storage.map.get("b:logs");
  assert.equal(sealed.key, h.posts[0].key, "the batch under way is stored with its key");
  // The worker is stopped; the next one sends the stored batch under the same key.
  h.answer = () => ({ status: 200 });
  await h.restart();
  await h.advance(5000);
  assert.deepEqual(h.delivered.logs, range(0, 30));
  assert.equal(h.posts.at(-1).key, sealed.key);
  assert.equal(stored(h), 0);
});

test("a worker stopped before it answered the relay: the relay's message sent again is the same batch under the same key, stored once", async () => {
  let stall = true;
  const h = harness({}, (kind, entries, h, signal) => {
    if (!stall) return { status: 200 };
    // The server stores the batch, then the worker is stopped before the answer comes.
    h.keys.set(h.pendingKey, entries.length);
    (h.delivered[kind] ||= []).push(...entries.map((e) => e.n));
    return new Promise(() => {});
  });
  const post = (h) => {
    const original = h.delivery.io.post;
    h.delivery.io.post = (kind, body, key, signal) => ((h.pendingKey = key), original(kind, body, key, signal));
  };
  post(h);
  h.relay("logs", 0, 120);
  await h.advance(300);
  assert.deepEqual(h.delivered.logs, range(0, 100), "the server has the first batch, unanswered");
  stall = false;
  await h.restart(); // nothing in storage: the relay got no answer and sends its message again
  assert.equal(stored(h), 0);
  const taken = h.relay("logs", 0, 120);
  await h.advance(1000);
  assert.ok((await resolved(taken)).every(Boolean));
  assert.deepEqual(h.delivered.logs, range(0, 120), "not stored twice");
  assert.ok(h.posts.some((p) => p.key === "page1-logs-0-100" && p.status === 200), "the same key again");
  assert.deepEqual(h.conflicts, []);
});

test("an entry whose page id could not go into a batch key is stored at once, as the extension's own", async () => {
  const h = harness({}, () => ({ status: 0, error: "Failed to fetch" }));
  await h.delivery.add("logs", { n: 0 }, 1, { page: "a page id with spaces", id: 1 });
  await h.delivery.add("logs", { n: 1 }, 1, { page: "x".repeat(65), id: 2 });
  assert.equal(stored(h), 2, "stored before add resolved");
});

test("a batch holds only stored entries, or only one page's held ones", async () => {
  const h = harness();
  h.add("logs", 0, 2); // the extension's own: stored at once
  h.relay("logs", 2, 3, "pageA");
  h.relay("logs", 5, 2, "pageB");
  h.add("logs", 7, 1);
  await h.advance(2000);
  assert.deepEqual(h.posts.map((p) => p.entries.map((e) => e.n)), [[0, 1], [2, 3, 4], [5, 6], [7]]);
  assert.deepEqual(h.posts.map((p) => p.key.split("-")[0]), ["life1", "pageA", "pageB", "life1"]);
  assert.deepEqual(h.delivered.logs, range(0, 8));
  assert.equal(stored(h), 0);
});

test("a held batch whose key the server already holds for other bytes (lists changed between two workers) counts as taken", async () => {
  const h = harness();
  h.bodies.set("page1-logs-0-2", '{"entries":[{"n":0,"redacted":"then"},{"n":1}]}');
  h.keys.set("page1-logs-0-2", 2);
  h.delivered.logs = [0, 1];
  const taken = h.relay("logs", 0, 2);
  await h.advance(250);
  assert.ok((await resolved(taken)).every(Boolean));
  assert.deepEqual(h.delivered.logs, [0, 1], "not stored again");
  assert.deepEqual(h.delivery.pending(), { logs: 0 });
  assert.equal(h.logs.filter((l) => l.level === "error").length, 0, "not reported as refused");
});
