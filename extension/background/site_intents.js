// "Capture this site" asked from the popup, waiting for Chrome's answer. Chrome's permission
// prompt may close the popup that asked (it takes the focus), and with it the code that would act
// on the answer: the popup says first which site it is about to ask for, and the worker acts when
// Chrome grants it (permissions.onAdded). Kept in session storage: the person may read the prompt
// longer than an idle worker lives. An intent is good for two minutes.
const KEY = "siteIntents";
export const INTENT_MS = 120000;
const MAX = 20;

export class SiteIntents {
  /** @param {chrome.storage.StorageArea} storage  session storage */
  constructor(storage, now = () => Date.now()) {
    this.storage = storage;
    this.now = now;
  }

  async read() {
    const got = await this.storage.get(KEY).catch(() => ({}));
    const all = got && got[KEY] && typeof got[KEY] === "object" ? got[KEY] : {};
    const fresh = {};
    for (const [pattern, at] of Object.entries(all)) if (Number.isFinite(at) && this.now() - at < INTENT_MS) fresh[pattern] = at;
    return fresh;
  }

  write(intents) {
    return this.storage.set({ [KEY]: intents }).catch(() => {});
  }

  /** The popup is about to ask Chrome for `pattern`. */
  async ask(pattern) {
    const intents = await this.read();
    intents[pattern] = this.now();
    const newest = Object.entries(intents).sort((a, b) => b[1] - a[1]).slice(0, MAX);
    await this.write(Object.fromEntries(newest));
  }

  /** Chrome granted `patterns`: those asked for within two minutes, each taken once. */
  async granted(patterns) {
    const intents = await this.read();
    const asked = patterns.filter((p) => Object.hasOwn(intents, p));
    if (asked.length) {
      for (const p of asked) delete intents[p];
      await this.write(intents);
    }
    return asked;
  }

  /** The site was turned on or off by the popup itself: nothing left to act on. */
  async forget(pattern) {
    const intents = await this.read();
    if (!Object.hasOwn(intents, pattern)) return;
    delete intents[pattern];
    await this.write(intents);
  }
}
