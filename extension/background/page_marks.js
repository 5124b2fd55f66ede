// Which events of each page the worker already took, so that a page's relay
// (content/relay.js) may send again what it got no answer for without it being
// queued twice. The relay numbers its events within the page's life; the
// highest number stored so far is the page's mark, kept in storage (the
// worker's is chrome.storage.session), so that it outlives the worker. The mark
// is written after the entries it covers: a worker stopped between the two
// writes takes those entries again (at least once), never loses them.
//
// Bounded: the marks of the `capacity` pages heard from last.
const MARK = "m:"; // m:<page> → { s: highest id stored }

export class PageMarks {
  /** @param {{get: () => Promise<object>, set: (items: object) => Promise<void>, remove: (keys: string[]) => Promise<void>}} store */
  constructor(store, capacity = 500) {
    this.store = store;
    this.capacity = capacity;
    this.marks = new Map(); // page → highest id, least recently updated first
    this.loaded = null;
  }

  load() {
    if (!this.loaded) {
      this.loaded = this.store.get().then(
        (items) => {
          for (const [key, value] of Object.entries(items || {})) {
            if (key.startsWith(MARK) && value && Number.isFinite(value.s)) this.marks.set(key.slice(MARK.length), value.s);
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
    const mark = this.marks.get(page);
    return mark !== undefined && id <= mark;
  }

  /** Records that `page`'s events up to `id` are taken; resolves once stored. */
  record(page, id) {
    if (typeof page !== "string" || !Number.isFinite(id) || this.seen(page, id)) return Promise.resolve();
    this.marks.delete(page);
    this.marks.set(page, id);
    const forget = [];
    while (this.marks.size > this.capacity) {
      const oldest = this.marks.keys().next().value;
      this.marks.delete(oldest);
      forget.push(MARK + oldest);
    }
    const writes = [this.store.set({ [MARK + page]: { s: id } })];
    if (forget.length) writes.push(this.store.remove(forget));
    return Promise.all(writes).then(
      () => {},
      () => {},
    );
  }
}
