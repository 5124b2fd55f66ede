// Batching and delivery, one queue per kind: flush at `batchSize` entries or
// after `flushMs`, one POST in flight per kind (so order is kept), retry with
// backoff while the server is down or busy, drop the oldest when a queue is
// full and say how many were dropped. Pure: the clock, timers and the POST are
// injected, so the unit tests drive it without a network.
(function (root) {
  const RETRYABLE = (status) => status === 0 || status === 408 || status === 429 || status >= 500;

  class Delivery {
    /**
     * @param {object} io
     * @param {(kind: string, entries: object[]) => Promise<{status: number, retryAfterMs?: number, error?: string}>} io.post
     * @param {(fn: () => void, ms: number) => any} io.setTimer
     * @param {(handle: any) => void} io.clearTimer
     * @param {(level: string, message: string) => void} io.log  the extension's own log
     * @param {(kind: string, n: number) => void} [io.sent]  called after an acknowledged POST
     */
    constructor(io, options = {}) {
      this.io = io;
      this.capacity = options.capacity || 5000;
      this.batchSize = options.batchSize || 100;
      this.flushMs = options.flushMs ?? 250;
      this.minBackoff = options.minBackoff || 250;
      this.maxBackoff = options.maxBackoff || 5000;
      this.queues = new Map();
      this.unreachable = null; // the error of the current outage, reported once
    }

    queue(kind) {
      let q = this.queues.get(kind);
      if (!q) {
        q = { items: [], inflight: 0, timer: null, backoff: 0, dropped: 0, sent: 0, limit: this.batchSize };
        this.queues.set(kind, q);
      }
      return q;
    }

    /** Queues one entry; never throws, never blocks. */
    add(kind, entry) {
      const q = this.queue(kind);
      if (q.items.length >= this.capacity) {
        // Drop the oldest entry that is not part of the POST in flight.
        const victim = q.inflight < q.items.length ? q.inflight : q.items.length - 1;
        q.items.splice(victim, 1);
        q.dropped++;
      }
      q.items.push(entry);
      if (q.inflight) return;
      if (q.items.length >= q.limit && !q.backoff) this.schedule(kind, 0);
      else if (!q.timer) this.schedule(kind, q.backoff || this.flushMs);
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
      const q = this.queue(kind);
      if (q.inflight || q.items.length === 0) return;
      const batch = q.items.slice(0, q.limit);
      q.inflight = batch.length;
      let result;
      try {
        result = await this.io.post(kind, batch);
      } catch (e) {
        result = { status: 0, error: String(e && e.message ? e.message : e) };
      }
      q.inflight = 0;
      this.settle(kind, q, batch, result);
    }

    settle(kind, q, batch, { status, retryAfterMs, error }) {
      if (status >= 200 && status < 300) {
        q.items.splice(0, batch.length);
        q.sent += batch.length;
        q.backoff = 0;
        q.limit = this.batchSize;
        if (this.io.sent) this.io.sent(kind, batch.length);
        if (this.unreachable) {
          this.unreachable = null;
          this.io.log("info", "gasoline server reachable again; delivering what was queued");
        }
        if (q.dropped) {
          this.io.log("warn", `dropped ${q.dropped} ${kind} events: the queue (${this.capacity}) was full while the server could not take them`);
          q.dropped = 0;
        }
      } else if (RETRYABLE(status)) {
        q.backoff = Math.min(Math.max(q.backoff * 2, this.minBackoff), this.maxBackoff);
        const wait = Math.max(q.backoff, Math.min(retryAfterMs || 0, 30000));
        if (!this.unreachable) {
          this.unreachable = error || `HTTP ${status}`;
          const why = status ? `answered ${status}` : `is unreachable (${error || "network error"})`;
          this.io.log("warn", `gasoline server ${why}; keeping events queued and retrying`);
        }
        this.schedule(kind, wait);
        return;
      } else if (status === 413 && batch.length > 1) {
        q.limit = Math.max(1, Math.floor(batch.length / 2)); // too big: send halves
      } else {
        // The server refused the batch as it is; resending it would fail forever.
        const bad = status === 400 && /entries\[(\d+)\]/.exec(error || "");
        const index = bad ? Number(bad[1]) : -1;
        if (index >= 0 && index < batch.length) q.items.splice(index, 1);
        else q.items.splice(0, batch.length);
        const what = index >= 0 ? "1 entry" : `${batch.length} entries`;
        this.io.log("error", `gasoline refused ${what} of ${kind} (HTTP ${status}): ${error || "no reason given"}`);
      }
      if (q.items.length) this.schedule(kind, q.items.length >= q.limit ? 0 : this.flushMs);
    }
  }

  const api = { Delivery, RETRYABLE };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.GasolineDelivery = api;
})(globalThis);
