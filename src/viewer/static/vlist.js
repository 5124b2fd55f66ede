// A table that renders only the rows in view (a ring may hold a million), as
// an ARIA grid: arrows move the selection, Enter opens it. It follows new rows
// while scrolled to the bottom; scrolled up, it counts them in an "N new" marker.
// The grid is the element that scrolls, and the one stop a keyboard makes
// besides the buttons of the columns it can be sorted by: its header row
// sticks to its top. A click on such a column's title sorts by it, ascending,
// then descending, then back to the order the rows came in.
import { el, replace } from "./dom.js";

export class VList {
  /**
   * columns: [{ title, width (CSS grid track), cell(row) → node|string, cls, sort(row) → number|string }]
   * (a column with `sort` can be sorted by). onOpen(row), onSelect(row): selection callbacks.
   * key(row): a row's identity. onSort(): the order was changed (`order(rows)` gives it).
   */
  constructor({ label, columns, rowHeight = 24, onOpen, onSelect, onSort, onWindow, onBottom, key = (r) => r.id, rowClass = () => "" }) {
    this.columns = columns;
    this.onBottom = onBottom;
    // Rows the page did not read (they would not fit in its window): at most this many ids.
    this.unread = 0;
    this.onWindow = onWindow;
    this.rowHeight = rowHeight;
    this.onOpen = onOpen;
    this.onSelect = onSelect;
    this.key = key;
    this.rowClass = rowClass;
    this.rows = [];
    this.selected = -1;
    this.follow = true;
    this.unseen = 0;
    const template = columns.map((c) => c.width || "1fr").join(" ");
    this.template = template;
    this.sorting = null; // {column, descending}, or null: the order the rows came in
    this.onSort = onSort;
    this.heads = columns.map((c, i) =>
      el(
        "div.vcell",
        { role: "columnheader", class: c.cls },
        c.sort ? el("button.sorthead", { type: "button", title: `Sort by ${c.title}`, onclick: () => this.sortBy(i) }, c.title) : c.title,
      ),
    );
    this.header = el("div.vrow.vhead", { role: "row", "aria-rowindex": 1 }, this.heads);
    this.header.style.gridTemplateColumns = template;
    this.head = el("div.vheadgroup", { role: "rowgroup" }, this.header);
    this.layer = el("div.vlayer", { role: "rowgroup" });
    this.sizer = el("div.vsizer", { role: "presentation" }, this.layer);
    this.scroller = el(
      "div.vscroll",
      { role: "grid", "aria-label": label, "aria-rowcount": 1, tabindex: 0, "aria-multiselectable": "false" },
      this.head,
      this.sizer,
    );
    this.marker = el("button.newmarker", {
      type: "button",
      hidden: true,
      onclick: () => {
        this.toBottom();
        if (this.onBottom) this.onBottom();
      },
    });
    this.empty = el("div.empty", { role: "status" });
    this.root = el("div.vlist", {}, this.scroller, this.marker, this.empty);
    this.scroller.addEventListener("scroll", () => this.onScroll());
    this.scroller.addEventListener("keydown", (e) => this.onKey(e));
    new ResizeObserver(() => this.render()).observe(this.scroller);
  }

  /** Sorts by column `i`: ascending, descending, then the order the rows came in. */
  sortBy(i) {
    const s = this.sorting;
    this.sorting = !s || s.column !== i ? { column: i, descending: false } : s.descending ? null : { column: i, descending: true };
    this.heads.forEach((h, j) => {
      if (this.sorting && this.sorting.column === j) h.setAttribute("aria-sort", this.sorting.descending ? "descending" : "ascending");
      else h.removeAttribute("aria-sort");
    });
    // Sorted, new rows land anywhere: the view stays where it is. Back in arrival order, it follows again.
    this.follow = !this.sorting;
    this.unseen = 0;
    if (this.onSort) this.onSort();
    if (!this.sorting) return;
    // The selected row stays in view; with none, the first of the new order is shown.
    if (this.selected >= 0) this.select(this.selected);
    else {
      this.scroller.scrollTop = 0;
      this.render();
    }
  }

  /** `rows` in the order chosen: a sorted copy, equal keys in the order they came in. */
  order(rows) {
    if (!this.sorting) return rows;
    const { column, descending } = this.sorting;
    const keyOf = this.columns[column].sort;
    const keyed = rows.map((row, i) => [keyOf(row), i, row]);
    keyed.sort(([a, i], [b, j]) => {
      const c = typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b));
      return (descending ? -c : c) || i - j;
    });
    return keyed.map(([, , row]) => row);
  }

  /**
   * Replaces the rows; `added` of them are new at the end (live), which the view
   * follows when scrolled to the bottom and otherwise counts in the "N new" marker.
   */
  setRows(rows, emptyText = "No entries.", added = 0) {
    const key = this.selected >= 0 && this.rows[this.selected] ? this.key(this.rows[this.selected]) : undefined;
    this.rows = rows;
    this.selected = key === undefined ? -1 : rows.findIndex((r) => this.key(r) === key);
    if (!this.follow && !this.sorting) this.unseen += added;
    this.setEmpty(rows.length ? "" : emptyText);
    if (this.follow) this.toBottom();
    else this.render();
  }

  /** What the table says when it has no row ("" when it has rows). */
  setEmpty(text) {
    this.empty.textContent = this.rows.length ? "" : text;
    this.empty.hidden = this.rows.length > 0;
  }

  /** Replaces the rows after `n` older ones were put in front: the rows in view stay put. */
  prepend(rows, n) {
    if (this.sorting) return this.setRows(rows); // sorted, they went where their keys put them
    this.rows = rows;
    if (this.selected >= 0) this.selected += n;
    this.follow = false;
    this.scroller.scrollTop += n * this.rowHeight;
    this.render();
  }

  toBottom() {
    this.follow = true;
    this.unseen = 0;
    this.render();
    this.scroller.scrollTop = this.scroller.scrollHeight;
    this.lastTop = this.scroller.scrollTop;
    this.render();
  }

  /**
   * Following stops only when the person scrolls up, and resumes at the bottom:
   * a scroll event that arrives after more rows were appended (the page moved
   * to the old bottom) does not count as leaving it.
   */
  onScroll() {
    const s = this.scroller;
    const atBottom = s.scrollTop + s.clientHeight >= s.scrollHeight - this.rowHeight;
    if (atBottom) {
      this.follow = true;
      this.unseen = 0;
    } else if (s.scrollTop < (this.lastTop ?? 0) - 1) this.follow = false;
    if (this.sorting) this.follow = false;
    this.lastTop = s.scrollTop;
    this.render();
  }

  /** The height the rows are seen in: the scroller's, less its sticky header. */
  room() {
    return this.scroller.clientHeight - this.head.offsetHeight;
  }

  select(i, open = false) {
    if (!this.rows.length) return;
    this.selected = Math.max(0, Math.min(this.rows.length - 1, i));
    const top = this.selected * this.rowHeight;
    const s = this.scroller;
    if (top < s.scrollTop) s.scrollTop = top;
    else if (top + this.rowHeight > s.scrollTop + this.room()) s.scrollTop = top + this.rowHeight - this.room();
    this.render();
    const row = this.rows[this.selected];
    if (this.onSelect) this.onSelect(row);
    if (open && this.onOpen) this.onOpen(row);
  }

  /** Clears the selection (Esc closed the row's detail); arrows go on from the row that was selected. */
  deselect() {
    if (this.selected < 0) return;
    this.was = this.key(this.rows[this.selected]);
    this.selected = -1;
    this.render();
  }

  selectKey(key, open = false) {
    const i = this.rows.findIndex((r) => this.key(r) === key);
    if (i >= 0) this.select(i, open);
    return i >= 0;
  }

  onKey(e) {
    const page = Math.max(1, Math.floor(this.room() / this.rowHeight) - 1);
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in moves) {
      e.preventDefault();
      const from = this.selected >= 0 ? this.selected : this.rows.findIndex((r) => this.key(r) === this.was);
      this.select(from < 0 ? this.rows.length - 1 : from + moves[e.key]);
      this.follow = this.selected === this.rows.length - 1;
    } else if (e.key === "Home") {
      e.preventDefault();
      this.select(0);
    } else if (e.key === "End") {
      e.preventDefault();
      this.select(this.rows.length - 1);
    } else if (e.key === "Enter" && this.selected >= 0) {
      e.preventDefault();
      this.select(this.selected, true);
    }
  }

  render() {
    const h = this.rowHeight;
    const n = this.rows.length;
    this.sizer.style.height = `${n * h}px`;
    this.scroller.setAttribute("aria-rowcount", String(n + 1));
    const s = this.scroller;
    const first = Math.max(0, Math.floor(s.scrollTop / h) - 5);
    const last = Math.min(n, Math.ceil((s.scrollTop + (s.clientHeight || 600)) / h) + 5);
    this.layer.style.transform = `translateY(${first * h}px)`;
    if (this.onWindow) this.onWindow(this.rows.slice(first, last));
    const nodes = [];
    for (let i = first; i < last; i++) nodes.push(this.rowNode(i));
    replace(this.layer, nodes);
    // What is new: counted when read; "up to" when some were not read (a filter may match fewer).
    this.marker.hidden = this.follow || (this.unseen === 0 && this.unread === 0);
    this.marker.textContent = this.unread ? `up to ${(this.unseen + this.unread).toLocaleString()} new ↓` : `${this.unseen.toLocaleString()} new ↓`;
    if (this.selected >= 0) this.scroller.setAttribute("aria-activedescendant", `vrow-${this.selected}`);
    else this.scroller.removeAttribute("aria-activedescendant");
  }

  rowNode(i) {
    const row = this.rows[i];
    const node = el(
      "div.vrow",
      {
        role: "row",
        id: `vrow-${i}`,
        "aria-rowindex": i + 2,
        "aria-selected": i === this.selected ? "true" : "false",
        "data-id": this.key(row),
        class: this.rowClass(row),
        onclick: () => {
          this.scroller.focus({ preventScroll: true });
          this.select(i, true);
        },
      },
      this.columns.map((c) => el("div.vcell", { role: "gridcell", class: c.cls }, c.cell(row))),
    );
    node.style.gridTemplateColumns = this.template;
    node.style.height = `${h(this)}px`;
    return node;
  }
}

function h(list) {
  return list.rowHeight;
}

/** A read that brought this many rows means a flood: the next one waits for FLOOD_EVERY ms. */
const FLOOD = 500;
const FLOOD_EVERY = 1000;

/**
 * A view made of feeds (one per `what`) shown in one VList: the rows of every
 * feed merged by time, filtered by the filter box, optionally regrouped
 * (`display`), narrowed by a view of its own (`keep`), refreshed from the event stream's cursors.
 */
export class TableView {
  constructor(ctx, { label, feeds, columns, display = (rows) => rows, keep = () => true, rowClass, onWindow, emptyText = "No entries match.", before = [], noun = "entries" }) {
    this.ctx = ctx;
    this.feeds = feeds;
    this.display = display;
    this.keep = keep;
    this.emptyText = emptyText;
    this.counts = {};
    this.allCounts = null;
    this.list = new VList({
      label,
      columns,
      rowClass,
      onWindow,
      onBottom: () => this.toNewest(),
      onSort: () => this.render(0),
      key: (r) => `${r._kind}:${r.id}`,
      onOpen: (r) => ctx.open(r._kind, r),
      onSelect: (r) => ctx.selected(r._kind, r),
    });
    this.noun = noun;
    this.count = el("span", { "data-count": 0 });
    this.olderButton = el("button.older", { type: "button", hidden: true, text: "Load older", onclick: () => this.loadOlder() });
    this.status = el("div.statusline", { "data-count": 0 }, this.count, this.olderButton);
    this.root = el("div.view", {}, before, this.list.root, this.status);
    this.shown = 0;
    this.lastRead = 0;
    this.lastAdded = 0;
    this.deferred = null;
  }

  async start() {
    await Promise.all(this.feeds.map((f) => f.poll()));
    this.render(0);
  }

  /** The event stream moved: fetch what is new for the kinds shown. */
  async onCursors(data) {
    let reset = false;
    for (const f of this.feeds) {
      const kind = f.kind;
      const count = data.counts[kind];
      if (this.counts[kind] !== undefined && count < this.counts[kind] && data.cursors[kind] <= (f.cursor ?? 0)) reset = true;
      this.counts[kind] = count;
    }
    this.allCounts = data.counts;
    if (!this.list.rows.length) this.list.setEmpty(this.emptyNow());
    if (reset) {
      // Cleared: start again from what is kept.
      for (const f of this.feeds) {
        f.rows = [];
        f.cursor = null;
      }
      await this.start();
      return;
    }
    const moved = this.feeds.filter((f) => f.cursor === null || data.cursors[f.kind] > f.cursor);
    if (!moved.length) return;
    // Scrolled up (or sorted), the rows in view stay: what would not fit waits (live.js: `hold`).
    for (const f of this.feeds) f.hold = !this.list.follow || !!this.list.sorting;
    // Following a flood, one read a second: a person cannot read faster, and every read
    // costs the server a query over the newest rows and the page a render. A trickle is
    // read at once.
    const wait = this.lastAdded >= FLOOD ? this.lastRead + FLOOD_EVERY - performance.now() : 0;
    if (wait > 0) {
      this.latest = data;
      if (!this.deferred)
        this.deferred = setTimeout(() => {
          this.deferred = null;
          // A view left meanwhile reads nothing more.
          if (this.root.isConnected) this.onCursors(this.latest).catch((e) => console.warn(e));
        }, wait);
      return;
    }
    this.lastRead = performance.now();
    const added = (await Promise.all(moved.map((f) => f.poll(data.cursors[f.kind])))).flat();
    this.lastAdded = added.length;
    const unread = this.feeds.reduce((n, f) => n + f.unread, 0);
    if (added.length || unread !== this.list.unread) {
      this.list.unread = unread;
      this.render(added.length);
    }
  }

  /** The "new" button: what waited is read (the newest, as when following) and shown. */
  async toNewest() {
    for (const f of this.feeds) f.hold = false;
    const waited = this.feeds.filter((f) => f.unread > 0);
    if (!waited.length) return;
    const added = (await Promise.all(waited.map((f) => f.poll()))).flat();
    this.list.unread = this.feeds.reduce((n, f) => n + f.unread, 0);
    this.render(added.length);
  }

  /** Prepends older rows of every feed, keeping the rows in view where they are. */
  async loadOlder() {
    this.olderButton.disabled = true;
    try {
      const before = this.display(this.rows()).length;
      await Promise.all(this.feeds.map((f) => f.loadOlder()));
      const rows = this.list.order(this.display(this.rows()));
      this.shown = rows.length;
      this.list.prepend(rows, rows.length - before);
      this.render(0);
    } finally {
      this.olderButton.disabled = false;
    }
  }

  rows() {
    const all = [];
    for (const f of this.feeds) for (const r of f.rows) all.push(Object.assign(r, { _kind: f.kind }));
    if (this.feeds.length > 1) all.sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0) || a.id - b.id);
    return all.filter((r) => this.ctx.keep(r) && this.keep(r));
  }

  render(added) {
    const raw = this.rows();
    const dropped = this.feeds.reduce((n, f) => n + f.dropped, 0);
    const older = this.feeds.some((f) => f.older);
    this.status.dataset.count = raw.length;
    this.count.textContent = `${raw.length.toLocaleString()} ${this.noun}${older ? " (the newest; older ones are kept in the database)" : ""}${dropped ? `, ${dropped.toLocaleString()} dropped from this page's window` : ""}`;
    this.olderButton.hidden = !older;
    const rows = this.list.order(this.display(raw));
    const grew = Math.max(0, rows.length - this.shown);
    this.shown = rows.length;
    this.list.setRows(rows, this.emptyNow(), added ? Math.min(grew, added) : 0);
  }

  /**
   * What an empty table says: with no filter set and none of the view's kinds kept, that nothing
   * was captured yet (and how to capture, when the whole store is empty), not that nothing matches.
   */
  emptyNow() {
    const counts = this.allCounts;
    if (!counts || this.ctx.filtered() || this.feeds.some((f) => (counts[f.kind] ?? 0) > 0)) return this.emptyText;
    // After a clear, an empty store is what the person asked for, not a setup problem.
    if (this.ctx.cleared) return `Cleared: no ${this.noun} captured since.`;
    if (Object.values(counts).every((n) => !n))
      return "Nothing captured yet: open your app on localhost in Chrome with the Gasoline extension installed, and what it logs and requests appears here as it happens.";
    return `No ${this.noun} captured yet.`;
  }
}
