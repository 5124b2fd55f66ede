// Batching and exactly-once delivery, one queue per kind.
//
// An entry counts as taken (`add` resolves) once it is durable: in the server,
// or in storage, so that the queues survive the service worker being stopped,
// the extension reloading and the browser restarting. An entry of our own
// (the extension's logs, the browser's rows) is written to storage at once. An
// entry a page's relay holds until it is taken (`from`: the page and the
// event's number) is first sent straight to the server, and written to storage
// only if the server has not taken it within `spillMs` (down, slow, busy):
// storage costs the browser more than the POST, and most entries never need it.
//
// A batch is sealed before it is sent, and until the server acknowledges it the
// same entries go again under the same `Idempotency-Key`, so a batch whose
// reply was lost is answered by the server with its first answer and stored
// once. A batch of stored entries has its key stored with them before it
// leaves. A batch of a relay's entries (never mixed with others) is keyed by
// the page, the kind and its first event's number, so when the worker is
// stopped before it answered the relay, the relay's message sent again makes
// the same batch under the same key in the next worker, and the server stores
// it once. One POST in flight per kind keeps each kind in order; a
// POST that hangs is aborted after `timeoutMs` and retried. Only gasoline's own
// answer acknowledges a batch: a 2xx whose body does not say it accepted the
// batch's entries (another program on the port, a proxy's page) is retried.
//
// Bounded: at most `capacity` entries per kind and `maxBytes` in all. When a
// bound is reached, the tab with the most queued entries loses its oldest (never
// one of a sealed batch), so one noisy tab evicts only its own events. Every
// drop (queue bound, refused entry, or one reported by a page) is counted, shown
// in the popup (`stats`) and reported once through `io.log` (an extension_logs
// entry).
//
// Pure: the clock, timers, storage and the POST are injected.
// A 403 is the server refusing this extension (it is paired with another, or another program holds
// the port): the person is told how to re-pair, and nothing made meanwhile is lost.
export const RETRYABLE = (status) => status === 0 || status === 403 || status === 408 || status === 429 || status >= 500;
// q:<seq> → { k: kind, t: tab, j: the entry's JSON }. The JSON text is what is
// stored and sent: storage does not keep an object's key order, and a batch
// sent again must be the same bytes under the same key.
const RECORD = "q:";
const SEALED = "b:"; // b:<kind> → { key, seqs }

export class Delivery {
  /**
   * @param {object} io
   * @param {(kind: string, body: string, key: string, signal: AbortSignal) =>
   *   Promise<{status: number, retryAfterMs?: number, error?: string, answer?: object}>} io.post
   *   `answer`: the reply's JSON body (gasoline's is `{accepted: n, ...}`)
   * @param {(fn: () => void, ms: number) => any} io.setTimer
   * @param {(handle: any) => void} io.clearTimer
   * @param {(level: string, message: string, tab?: number|null, local?: boolean) => void} io.log  the extension's
   *   own log; `local`: about the log's own entries (`options.logKind`), so not to be queued as one
   * @param {{get: () => Promise<object>, set: (items: object) => Promise<void>,
   *   remove: (keys: string[]) => Promise<void>}} io.storage  all keys it is given are its own
   * @param {(kind: string, n: number) => void} [io.sent]  called after an acknowledged POST
   * @param {(kind: string, n: number) => void} [io.onDrop]  called when entries are dropped
   * @param {() => string} [io.random]  a fresh random id (one per worker life)
   */
  constructor(io, options = {}) {
    this.io = io;
    this.capacity = options.capacity || 5000;
    this.maxBytes = options.maxBytes || 8 * 1024 * 1024;
    // Entries and bytes per POST: each POST costs the worker, the browser's network service and the
    // server about the same whatever it holds, so a busy page's events go in few of them.
    this.batchSize = options.batchSize || 500;
    this.batchBytes = options.batchBytes || 1024 * 1024;
    this.flushMs = options.flushMs ?? 250;
    this.minBackoff = options.minBackoff || 250;
    this.maxBackoff = options.maxBackoff || 5000;
    this.timeoutMs = options.timeoutMs || 15000;
    this.logKind = options.logKind; // the kind io.log queues its entries as
    this.spillMs = options.spillMs ?? 1000; // how long a relay's entry may wait for the server before storage
    this.now = io.now || Date.now;
    this.spillTimer = null;
    this.queues = new Map();
    this.bytes = 0;
    this.seq = 0;
    this.instance = null;
    this.drops = new Map(); // "kind\treason" → count not yet reported
    this.dropReportTimer = null;
    this.unreachable = null; // the error of the current outage, reported once
    this.writes = Promise.resolve(); // the latest storage write
    this.loaded = null;
  }

  /** Loads what a previous worker left; entries added meanwhile wait for it. */
  start() {
    if (!this.loaded) this.loaded = this.load();
    return this.loaded;
  }

  async load() {
    let stored = {};
    try {
      stored = (await this.io.storage.get()) || {};
    } catch (e) {
      this.io.log("error", `could not read the queued events: ${message(e)}; starting with empty queues`);
    }
    // Keys are made of this life's id and a sequence number: a key never comes back,
    // even when the sequence starts again. Sealed batches keep the key they were given.
    this.instance = randomId(this.io);
    const records = [];
    for (const [key, value] of Object.entries(stored)) {
      if (!key.startsWith(RECORD) || !value || typeof value.k !== "string") continue;
      if (typeof value.j !== "string") continue;
      records.push({ seq: Number(key.slice(RECORD.length)), kind: value.k, tab: value.t ?? null, json: value.j, stored: true });
    }
    records.sort((a, b) => a.seq - b.seq);
    for (const r of records) {
      r.size = r.json.length + OVERHEAD;
      this.queue(r.kind).items.push(r);
      this.bytes += r.size;
      this.seq = Math.max(this.seq, r.seq);
    }
    for (const [key, value] of Object.entries(stored)) {
      if (!key.startsWith(SEALED) || !value || typeof value.key !== "string" || !Array.isArray(value.seqs)) continue;
      const q = this.queue(key.slice(SEALED.length));
      const head = q.items.slice(0, value.seqs.length).map((r) => r.seq);
      if (value.seqs.length && head.length === value.seqs.length && head.every((s, i) => s === value.seqs[i])) {
        q.sealed = { key: value.key, n: value.seqs.length, stored: true };
      } else {
        this.persist({}, [key]); // its entries are gone: the batch was acknowledged
      }
    }
    for (const [kind, q] of this.queues) if (q.items.length) this.schedule(kind, 0);
  }

  queue(kind) {
    let q = this.queues.get(kind);
    if (!q) {
      q = { items: [], sealed: null, inflight: false, timer: null, backoff: 0, sent: 0, dropped: 0, limit: this.batchSize };
      this.queues.set(kind, q);
    }
    return q;
  }

  /**
   * Queues one entry of `tab` (null when it belongs to no tab). Resolves once
   * the entry is stored, in the server or in storage (or dropped); never
   * rejects. `from` ({page, id}): a page's relay holds the entry until then
   * and sends it again under that number otherwise, so it may wait for the
   * server before storage.
   */
  async add(kind, entry, tab = null, from = null) {
    await this.start();
    const q = this.queue(kind);
    let json;
    try {
      json = JSON.stringify(entry);
    } catch {
      json = undefined;
    }
    if (typeof json !== "string") {
      this.dropped(kind, 1, "not serialisable");
      return;
    }
    // The page's id goes into the batch key, which the server takes as visible ASCII of ≤ 200 characters.
    const held = Boolean(from && typeof from.page === "string" && PAGE_ID.test(from.page) && Number.isInteger(from.id));
    const record = { seq: ++this.seq, kind, tab: tab ?? null, json, size: json.length + OVERHEAD, stored: !held };
    const removed = [];
    while (q.items.length >= this.capacity || (this.bytes + record.size > this.maxBytes && this.bytes > 0)) {
      const victim = this.victim(q.items.length >= this.capacity ? kind : null, record.tab);
      if (!victim) break;
      if (victim.stored) removed.push(RECORD + victim.seq);
    }
    if (q.items.length >= this.capacity || this.bytes + record.size > this.maxBytes) {
      this.dropped(kind, 1, "queue full");
      if (removed.length) await this.persist({}, removed);
      return;
    }
    q.items.push(record);
    this.bytes += record.size;
    let written;
    if (held) {
      record.from = { page: from.page, id: from.id };
      record.at = this.now();
      written = new Promise((resolve) => (record.done = resolve));
      if (removed.length) this.persist({}, removed);
      if (!this.spillTimer) this.spillTimer = this.io.setTimer(() => this.spill(), this.spillMs);
    } else {
      written = this.persist({ [RECORD + record.seq]: { k: kind, t: record.tab, j: json } }, removed);
    }
    if (!q.inflight) {
      if (q.items.length - sealedCount(q) >= q.limit && !q.backoff) this.schedule(kind, 0);
      else if (!q.timer) this.schedule(kind, q.backoff || this.flushMs);
    }
    await written;
  }

  /**
   * Removes the oldest entry, not in a sealed batch, of the tab with the most
   * entries queued (in `kind`'s queue, or the most bytes in all queues when
   * `kind` is null); the adding tab loses first on a tie. Returns it, or null
   * when none can go.
   */
  victim(kind, addingTab) {
    const counts = new Map();
    const queues = kind ? [[kind, this.queue(kind)]] : [...this.queues];
    for (const [, q] of queues) {
      for (const r of q.items.slice(sealedCount(q))) counts.set(r.tab, (counts.get(r.tab) || 0) + (kind ? 1 : r.size));
    }
    if (counts.size === 0) return null;
    let tab = addingTab;
    let most = counts.get(addingTab) || 0;
    for (const [t, n] of counts) if (n > most) [tab, most] = [t, n];
    if (!counts.has(tab)) return null;
    let oldest = null;
    for (const [k, q] of queues) {
      for (let i = sealedCount(q); i < q.items.length; i++) {
        const r = q.items[i];
        if (r.tab === tab) {
          if (!oldest || r.seq < oldest.r.seq) oldest = { k, q, i, r };
          break;
        }
      }
    }
    oldest.q.items.splice(oldest.i, 1);
    this.bytes -= oldest.r.size;
    this.dropped(oldest.k, 1, "queue full");
    if (oldest.r.done) oldest.r.done(); // counted as dropped: its relay need not send it again
    return oldest.r;
  }

  /** Counts `n` entries of `kind` lost for `reason` (`tab`: the tab they came from, when one did), and reports them soon. */
  dropped(kind, n, reason, tab = null) {
    if (!(n > 0)) return;
    this.queue(kind).dropped += n;
    if (this.io.onDrop) this.io.onDrop(kind, n);
    const key = `${kind}\t${reason}\t${Number.isInteger(tab) ? tab : ""}`;
    this.drops.set(key, (this.drops.get(key) || 0) + n);
    if (!this.dropReportTimer) {
      this.dropReportTimer = this.io.setTimer(() => {
        this.dropReportTimer = null;
        this.reportDrops();
      }, 1000);
    }
  }

  reportDrops() {
    const drops = [...this.drops];
    this.drops.clear();
    for (const [key, n] of drops) {
      const [kind, reason, tab] = key.split("\t");
      this.io.log("warn", `dropped ${n} ${kind} event${n === 1 ? "" : "s"}: ${reason}`, tab === "" ? null : Number(tab), kind === this.logKind);
    }
  }

  /** Stores `items` and forgets `removed` (storage keeps the order of its writes). */
  persist(items, removed) {
    const ops = [];
    if (removed.length) ops.push(this.io.storage.remove(removed));
    if (Object.keys(items).length) ops.push(this.io.storage.set(items));
    this.writes = Promise.all(ops).then(
      () => {},
      (e) => this.io.log("error", `could not store queued events: ${message(e)}`),
    );
    return this.writes;
  }

  /** Resolves when everything asked of storage so far is done. */
  flushed() {
    return this.writes;
  }

  /**
   * Writes to storage the relay's entries that waited `spillMs` for the server
   * (and, whole, a sealed batch with any of them, with its key), then lets
   * their relays go; runs again for the next ones due.
   */
  spill() {
    this.spillTimer = null;
    const now = this.now();
    const items = {};
    const spilled = [];
    let oldest = Infinity;
    const keep = (r, kind) => {
      items[RECORD + r.seq] = { k: kind, t: r.tab, j: r.json };
      r.stored = true;
      spilled.push(r);
    };
    for (const [kind, q] of this.queues) {
      const sealed = q.sealed && !q.sealed.stored ? q.items.slice(0, q.sealed.n) : [];
      if (sealed.some((r) => now - r.at >= this.spillMs)) {
        for (const r of sealed) keep(r, kind);
        items[SEALED + kind] = { key: q.sealed.key, seqs: sealed.map((r) => r.seq) };
        q.sealed.stored = true;
      }
      for (const r of q.items) {
        if (r.stored) continue;
        if (now - r.at >= this.spillMs) keep(r, kind);
        else oldest = Math.min(oldest, r.at);
      }
    }
    if (oldest !== Infinity) this.spillTimer = this.io.setTimer(() => this.spill(), oldest + this.spillMs - now);
    if (spilled.length) this.persist(items, []).then(() => spilled.forEach((r) => r.done()));
  }

  schedule(kind, ms) {
    const q = this.queue(kind);
    if (q.timer) this.io.clearTimer(q.timer);
    q.timer = this.io.setTimer(() => {
      q.timer = null;
      this.flush(kind);
    }, ms);
  }

  /** Entries waiting, per kind. */
  pending() {
    return Object.fromEntries([...this.queues].map(([k, q]) => [k, q.items.length]));
  }

  stats() {
    return Object.fromEntries(
      [...this.queues].map(([k, q]) => [k, { queued: q.items.length, sent: q.sent, dropped: q.dropped }]),
    );
  }

  async flush(kind) {
    await this.start();
    const q = this.queue(kind);
    if (q.inflight || q.items.length === 0) return;
    q.inflight = true;
    if (!q.sealed) {
      const batch = nextBatch(q, this.batchBytes);
      const first = batch[0];
      if (first.stored) {
        const key = `${this.instance}-${kind}-${first.seq}-${batch.length}`;
        q.sealed = { key, n: batch.length, stored: true };
        // The key is stored with its entries before the batch leaves.
        await this.persist({ [SEALED + kind]: { key, seqs: batch.map((r) => r.seq) } }, []);
      } else {
        // What the relay's message sent again would make again: the same entries under the same key.
        q.sealed = { key: `${first.from.page}-${kind}-${first.from.id}-${batch.length}`, n: batch.length, stored: false, page: true };
      }
    }
    const { key, n } = q.sealed;
    const batch = q.items.slice(0, n);
    const abort = new AbortController();
    let timer;
    const timeout = new Promise((resolve) => {
      timer = this.io.setTimer(() => {
        abort.abort();
        resolve({ status: 0, error: `no answer within ${this.timeoutMs / 1000} s` });
      }, this.timeoutMs);
    });
    let result;
    try {
      result = await Promise.race([
        this.io.post(kind, `{"entries":[${batch.map((r) => r.json).join(",")}]}`, key, abort.signal),
        timeout,
      ]);
    } catch (e) {
      result = { status: 0, error: message(e) };
    }
    this.io.clearTimer(timer);
    await this.settle(kind, q, batch, result || { status: 0 });
    q.inflight = false;
    if (q.items.length && !q.timer) this.schedule(kind, q.items.length >= q.limit ? 0 : this.flushMs);
  }

  async settle(kind, q, batch, { status, retryAfterMs, error, answer }) {
    if (status === 409 && q.sealed && q.sealed.page) {
      // The server holds a batch of these very events under this key, made before the worker
      // was stopped, with bytes of then (the user's redaction lists may have changed since).
      status = 200;
      answer = { accepted: batch.length };
    }
    if (status >= 200 && status < 300 && !(answer && answer.accepted === batch.length)) {
      // Not gasoline's acknowledgement of these entries: nothing says they are stored.
      error = `HTTP ${status} with ${answer === undefined ? "no JSON" : JSON.stringify(answer).slice(0, 80)}: not gasoline's answer`;
      status = 0;
    }
    if (status >= 200 && status < 300) {
      await this.remove(kind, q, batch);
      q.sent += batch.length;
      q.backoff = 0;
      q.limit = this.batchSize;
      if (this.io.sent) this.io.sent(kind, batch.length);
      if (this.unreachable) {
        this.unreachable = null;
        this.io.log("info", "gasoline server reachable again; delivering what was queued");
      }
    } else if (RETRYABLE(status)) {
      q.backoff = Math.min(Math.max(q.backoff * 2, this.minBackoff), this.maxBackoff);
      const wait = Math.max(q.backoff, Math.min(retryAfterMs || 0, 30000));
      if (!this.unreachable) {
        this.unreachable = error || `HTTP ${status}`;
        const why = status ? `answered ${status}` : `is unreachable (${error || "network error"})`;
        this.io.log("warn", `gasoline server ${why}; keeping events queued and retrying`);
      }
      this.schedule(kind, wait); // the same batch, under the same key
    } else if (status === 413 && batch.length > 1) {
      // Nothing was stored: send halves, each under a key of its own.
      q.limit = Math.max(1, Math.floor(batch.length / 2));
      await this.remove(kind, q, []);
    } else {
      // The server refused the batch as it is; resending it would fail forever.
      const bad = status === 400 && /entries\[(\d+)\]/.exec(error || "");
      const index = bad ? Number(bad[1]) : -1;
      const refused = index >= 0 && index < batch.length ? [batch[index]] : batch;
      await this.remove(kind, q, refused);
      const what = refused.length === 1 ? "1 entry" : `${refused.length} entries`;
      // Said of the log's own entries, the saying would be refused in turn, and said again, for ever.
      this.io.log("error", `gasoline refused ${what} of ${kind} (HTTP ${status}): ${error || "no reason given"}`, null, kind === this.logKind);
      this.dropped(kind, refused.length, `refused by the server (HTTP ${status})`);
    }
  }

  /** Forgets `records` of `kind` and the sealed batch, in one storage write (none when nothing was stored). */
  async remove(kind, q, records) {
    const gone = new Set(records.map((r) => r.seq));
    q.items = q.items.filter((r) => !gone.has(r.seq));
    for (const r of records) this.bytes -= r.size;
    const keys = records.filter((r) => r.stored).map((r) => RECORD + r.seq);
    if (q.sealed && q.sealed.stored) keys.push(SEALED + kind);
    q.sealed = null;
    for (const r of records) if (r.done && !r.stored) r.done(); // taken by the server (or refused): the relay may forget it
    if (keys.length) await this.persist({}, keys);
  }
}

/** A relay's page id (content/relay.js: four hex words joined by dashes), as a batch key may hold it. */
const PAGE_ID = /^[0-9A-Za-z-]{1,64}$/;

/** Bytes a stored entry costs beyond its JSON (key, kind, tab). */
const OVERHEAD = 32;

/**
 * The next batch from the head of `q`: up to `q.limit` entries and about
 * `maxBytes` (at least one entry), that are all in storage, or all held by one
 * page's relay and not in storage.
 */
function nextBatch(q, maxBytes) {
  const head = q.items[0];
  const same = head.stored ? (r) => r.stored : (r) => !r.stored && r.from.page === head.from.page;
  let n = 1;
  let bytes = head.size;
  while (n < q.limit && n < q.items.length && same(q.items[n]) && bytes + q.items[n].size <= maxBytes) bytes += q.items[n++].size;
  return q.items.slice(0, n);
}

function sealedCount(q) {
  return q.sealed ? q.sealed.n : 0;
}

function message(e) {
  return String(e && e.message ? e.message : e);
}

function randomId(io) {
  if (io.random) return io.random();
  return Array.from({ length: 3 }, () => Math.floor(Math.random() * 2 ** 32).toString(36)).join("");
}
