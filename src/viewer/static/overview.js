// Overview: the server, the database file, every ring (kept, capacity, lost to
// eviction, cleared), the paired extension and when it last sent, the tabs.
import * as api from "./api.js";
import { bytes, el, replace, when } from "./dom.js";

/** The view that shows a kind. */
const VIEW_OF = { logs: "console", network_waterfall: "network", actions: "timeline" };

export class Overview {
  constructor(ctx) {
    this.ctx = ctx;
    this.root = el("div.view.overview");
    this.feeds = [];
    this.pending = null;
  }

  async start() {
    const o = await api.overview();
    this.ctx.tabs(o.tabs);
    const table = (caption, head, rows) =>
      el(
        "table.grid",
        {},
        el("caption", { text: caption }),
        el("thead", {}, el("tr", {}, head.map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", {}, rows),
      );
    const kinds = table(
      "Rings",
      ["kind", "kept", "capacity", "lost to eviction", "cleared", "oldest id", "newest id", "newest entry"],
      o.kinds.map((k) =>
        el(
          "tr",
          { "data-kind": k.kind },
          el("th", { scope: "row" }, VIEW_OF[k.kind] ? el("a", { href: `/${VIEW_OF[k.kind]}`, "data-view": VIEW_OF[k.kind], text: k.kind }) : k.kind),
          el("td.num", { "data-field": "count", text: k.count.toLocaleString() }),
          el("td.num", { text: k.capacity.toLocaleString() }),
          el("td.num", { "data-field": "evicted", text: k.evicted.toLocaleString() }),
          el("td.num", { text: k.cleared.toLocaleString() }),
          el("td.num", { text: k.oldest_id ?? "" }),
          el("td.num", { text: k.newest_id ?? "" }),
          el("td", { text: k.newest_ts ? when(k.newest_ts) : "" }),
        ),
      ),
    );
    const tabs = table(
      "Tabs",
      ["tab", "title", "url", "last seen"],
      o.tabs.map((t) =>
        el(
          "tr",
          {},
          el("th", { scope: "row", text: t.tabId }),
          el("td.text", { text: t.title ?? "" }),
          el("td.text.url", { text: t.url ?? "" }),
          el("td", { text: when(t.last_event_ts) }),
        ),
      ),
    );
    const facts = el(
      "dl.facts",
      {},
      el("dt", { text: "Server" }),
      el("dd", { text: `gasoline ${o.server.version} on port ${o.server.port} (pid ${o.server.pid})` }),
      el("dt", { text: "Database" }),
      el("dd", {}, el("code", { text: o.db.path }), ` ${bytes(o.db.bytes)}${o.db.wal_bytes ? ` (+ ${bytes(o.db.wal_bytes)} write-ahead log)` : ""}`),
      el("dt", { text: "Extension" }),
      el("dd", { text: o.extension.id ? `paired with ${o.extension.id}` : "none paired yet" }),
      el("dt", { text: "Last entry" }),
      el("dd", { text: when(o.extension.last_event_ts) }),
      el("dt", { text: "Tracked tab" }),
      el("dd", { text: o.tracked_tab_id ?? "none" }),
    );
    replace(this.root, el("h1", { text: "Overview" }), facts, kinds, o.tabs.length ? tabs : el("p.dim", { text: "No tabs seen yet." }));
  }

  async onCursors(data) {
    // One refresh at a time, and only when a ring moved.
    const seen = JSON.stringify(data);
    if (this.pending || seen === this.seen) return;
    this.seen = seen;
    this.pending = setTimeout(async () => {
      try {
        await this.start();
      } finally {
        this.pending = null;
      }
    }, 300);
  }
}
