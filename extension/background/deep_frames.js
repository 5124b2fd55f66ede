// Chrome's frame ids for a deep tab's rows and messages. The DevTools protocol
// names frames by tokens ("E63FE65E…", the top frame's being the tab target's
// id); the page side's entries carry Chrome's integer frameId (0 for the top
// frame), set by the worker from each message's sender. Nothing maps one to the
// other, so this learns it:
//   - exactly, when a page entry of frame N (its resource timing, a body) joins
//     a browser row of protocol frame F (request_join.js calls `learn`);
//   - else by the frame's document URL: the page's messages say which URL
//     frame N shows (`saw`), the protocol which URL frame F shows; used only
//     while one frame of the tab shows that URL.
// The top frame is always 0 (its parent -1), the page's service worker -1.
// Pure and bounded.
const MAX_TABS = 100;
const MAX_FRAMES = 500; // per tab, each map

export class DeepFrames {
  constructor(matchUrl = (url) => String(url).split("#")[0]) {
    this.matchUrl = matchUrl;
    this.tabs = new Map(); // tabId → { learned: Map(token → id), byUrl: Map(url → id, or null when two frames show it) }
  }

  tab(tabId) {
    let t = this.tabs.get(tabId);
    if (!t) {
      t = { learned: new Map(), byUrl: new Map(), urlOf: new Map() };
      this.tabs.set(tabId, t);
      if (this.tabs.size > MAX_TABS) this.tabs.delete(this.tabs.keys().next().value);
    }
    return t;
  }

  /** A page message came from Chrome's frame `frame.id` showing `frame.url`. */
  saw(tabId, frame) {
    if (!Number.isInteger(tabId) || !frame || !Number.isInteger(frame.id) || frame.id === 0 || !frame.url) return;
    const t = this.tab(tabId);
    const url = this.matchUrl(frame.url);
    const before = t.urlOf.get(frame.id);
    if (before === url) return;
    // The frame navigated: its old URL is no longer its.
    if (before !== undefined && t.byUrl.get(before) === frame.id) t.byUrl.delete(before);
    t.urlOf.set(frame.id, url);
    bound(t.urlOf);
    const other = t.byUrl.get(url);
    t.byUrl.set(url, other === undefined || other === frame.id ? frame.id : null);
    bound(t.byUrl);
  }

  /** A page entry of Chrome's frame `id` joined a row of the protocol's frame `token`. */
  learn(tabId, token, id) {
    if (typeof token !== "string" || !Number.isInteger(id)) return;
    const t = this.tab(tabId);
    t.learned.set(token, id);
    bound(t.learned);
  }

  /** Chrome's id of a protocol frame, or undefined. */
  idOf(tabId, token, top, url) {
    if (top) return 0;
    if (token === undefined) return undefined;
    const t = this.tabs.get(tabId);
    if (!t) return undefined;
    const known = t.learned.get(token);
    if (known !== undefined) return known;
    const byUrl = url === undefined ? undefined : t.byUrl.get(this.matchUrl(url));
    return byUrl === null ? undefined : byUrl;
  }

  /** `frameId` and `parentFrameId` of a row or message whose frame deep_requests.js described as `where`. */
  resolve(tabId, where) {
    if (!where || where.serviceWorker || where.frame === undefined) return { frameId: -1, parentFrameId: -1 };
    return {
      frameId: this.idOf(tabId, where.frame, where.top, where.frameUrl),
      parentFrameId: where.top || where.parentFrame === undefined ? -1 : this.idOf(tabId, where.parentFrame, where.parentTop, where.parentFrameUrl),
    };
  }
}

function bound(map) {
  if (map.size > MAX_FRAMES) map.delete(map.keys().next().value);
}
