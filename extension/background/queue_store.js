// A slice of a chrome.storage area (the delivery queues' of chrome.storage.local,
// the page marks' of chrome.storage.session): keys under their own prefix
// (beside the settings, stats and other keys), and the writes of one task folded
// into one `remove` and one `set`, so a page message of fifty events costs one
// storage write, not fifty. Writes happen one after the other, in the order
// asked; each call resolves once its write is done.
export const PREFIX = "gq/";

export class QueueStore {
  /** @param {chrome.storage.StorageArea} area */
  constructor(area) {
    this.area = area;
    this.toSet = new Map();
    this.toRemove = new Set();
    this.next = null; // the write that calls now join
    this.last = Promise.resolve(); // the write under way
  }

  /** Every item of the queues, keys without the prefix. */
  async get() {
    const all = (await this.area.get(null)) || {};
    const mine = {};
    for (const [key, value] of Object.entries(all)) if (key.startsWith(PREFIX)) mine[key.slice(PREFIX.length)] = value;
    return mine;
  }

  set(items) {
    for (const [key, value] of Object.entries(items)) {
      this.toRemove.delete(key);
      this.toSet.set(key, value);
    }
    return this.write();
  }

  remove(keys) {
    for (const key of keys) {
      this.toSet.delete(key);
      this.toRemove.add(key);
    }
    return this.write();
  }

  /** Joins the write not yet started, or starts one after the one under way. */
  write() {
    if (!this.next) {
      this.next = this.last.then(async () => {
        this.next = null;
        const removed = [...this.toRemove].map((k) => PREFIX + k);
        const set = Object.fromEntries([...this.toSet].map(([k, v]) => [PREFIX + k, v]));
        this.toRemove.clear();
        this.toSet.clear();
        if (removed.length) await this.area.remove(removed);
        if (Object.keys(set).length) await this.area.set(set);
      });
      this.last = this.next.catch(() => {});
    }
    return this.next;
  }
}
