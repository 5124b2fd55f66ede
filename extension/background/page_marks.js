// Which events of each page the worker already took, so that a page's relay
// (content/relay.js) may send again what it got no answer for without it being
// queued twice. The relay numbers its events within the page's life, from 1;
// each message it sends holds a run of them (numbers between that the relay
// gave up never come). A page's marks are the runs of numbers stored so far,
// kept in storage (the worker's is chrome.storage.session), so that they
// outlive the worker. They are runs, not one highest number: a page leaving
// for the back-forward cache sends its last events beside the message in
// flight, and shown again it sends that message again; if the worker stopped
// before storing it, a highest number would count it as taken, and lose it.
// A page's marks are written after the entries they cover: a worker stopped
// between the two writes takes those entries again (at least once), never
// loses them.
//
// Bounded: the marks of the `capacity` pages heard from last, and `RUNS` runs
// a page (past that, its two oldest runs are joined: the numbers between them
// are taken for events the relay gave up).
const MARK = "m:"; // m:<page> → { r: [[first, last], ...] } ascending, apart; { s: last } before runs
const RUNS = 16;

export class PageMarks {
  /** @param {{get: () => Promise<object>, set: (items: object) => Promise<void>, remove: (keys: string[]) => Promise<void>}} store */
  constructor(store, capacity = 500) {
    this.store = store;
    this.capacity = capacity;
    this.marks = new Map(); // page → its runs, least recently updated page first
    this.loaded = null;
  }

  load() {
    if (!this.loaded) {
      this.loaded = this.store.get().then(
        (items) => {
          for (const [key, value] of Object.entries(items || {})) {
            if (!key.startsWith(MARK) || !value) continue;
            const runs = Number.isFinite(value.s) ? [[0, value.s]] : validRuns(value.r);
            if (runs.length) this.marks.set(key.slice(MARK.length), runs);
          }
        },
        () => {},
      );
    }
    return this.loaded;
  }

  /** Whether event `id` of `page` was taken before. Events without a page or an id never were. */
  seen(page, id) {
    if (typeof page !== "string" || !Number.isFinite(id)) return false;
    const runs = this.marks.get(page);
    return runs !== undefined && runs.some(([first, last]) => id >= first && id <= last);
  }

  /** Records that `page`'s events `first` to `last` (one message of its relay) are taken; resolves once stored. */
  record(page, first, last) {
    if (typeof page !== "string" || !Number.isFinite(first) || !Number.isFinite(last) || first > last) return Promise.resolve();
    const had = this.marks.get(page) || [];
    // A message sent again whose events were all taken before: nothing to write.
    if (had.some(([a, b]) => a <= first && last <= b)) return Promise.resolve();
    const runs = join(had, first, last);
    this.marks.delete(page);
    this.marks.set(page, runs);
    const forget = [];
    while (this.marks.size > this.capacity) {
      const oldest = this.marks.keys().next().value;
      this.marks.delete(oldest);
      forget.push(MARK + oldest);
    }
    const writes = [this.store.set({ [MARK + page]: { r: runs } })];
    if (forget.length) writes.push(this.store.remove(forget));
    return Promise.all(writes).then(
      () => {},
      () => {},
    );
  }
}

/** `runs` with [first, last] added: ascending, overlapping or touching runs made one, at most RUNS. */
function join(runs, first, last) {
  const all = [...runs, [first, last]].sort((a, b) => a[0] - b[0]);
  const out = [];
  for (const [a, b] of all) {
    const prev = out[out.length - 1];
    if (prev && a <= prev[1] + 1) prev[1] = Math.max(prev[1], b);
    else out.push([a, b]);
  }
  while (out.length > RUNS) out.splice(0, 2, [out[0][0], out[1][1]]);
  return out;
}

/** Stored runs as `join` makes them, anything else left out. */
function validRuns(value) {
  if (!Array.isArray(value)) return [];
  return value
    .filter((r) => Array.isArray(r) && Number.isFinite(r[0]) && Number.isFinite(r[1]) && r[0] <= r[1])
    .reduce((runs, [a, b]) => join(runs, a, b), []);
}
