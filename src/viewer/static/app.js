// The viewer's page: routes on the client (/overview, /console, /network,
// /timeline), the whole state in the URL (?q=&tab=&level=&since=&sel=kind:id),
// the filter bar, the keyboard, the clear button, and the live stream.
import * as api from "./api.js";
import { consoleView } from "./console.js";
import * as detail from "./detail.js";
import { el, setText, when } from "./dom.js";
import * as filter from "./filter.js";
import { connect } from "./live.js";
import { networkView } from "./network.js";
import { Overview } from "./overview.js";
import { timelineView } from "./timeline.js";

const VIEWS = {
  overview: (ctx) => new Overview(ctx),
  console: consoleView,
  network: networkView,
  timeline: timelineView,
};

const $ = (id) => document.getElementById(id);
const main = $("main");
const pane = $("detail");
const q = $("q");
const tab = $("tab");
const level = $("level");
const since = $("since");

let view = null;
let parsed = filter.parse("");
let kindFilters = {};
let levels = [];
let lastCursors = null;
let generation = 0;
/** What the clear just done said, kept by the show() that follows it. */
let clearedNotice = "";

function readState() {
  const path = location.pathname.replace(/\/+$/, "") || "/overview";
  const name = path === "/" ? "overview" : path.slice(1);
  const p = new URLSearchParams(location.search);
  return { name, q: p.get("q") || "", tab: p.get("tab") || "", level: p.get("level") || "", since: p.get("since") || "", sel: p.get("sel") || "" };
}

function writeState(changes, push = false) {
  const s = { ...readState(), ...changes };
  const p = new URLSearchParams();
  for (const k of ["q", "tab", "level", "since", "sel"]) if (s[k]) p.set(k, s[k]);
  const url = `/${s.name}${p.toString() ? `?${p}` : ""}`;
  if (url === location.pathname + location.search) return;
  if (push) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
}

function notice(text) {
  const n = $("notice");
  setText(n, text || "");
  n.hidden = !text;
}

/** The server-side arguments of `what` from the filter bar. */
function args(what) {
  const s = readState();
  const a = {};
  if (s.tab) a.tabId = s.tab;
  if (s.since === "nav") a.since_navigation = true;
  else if (s.since) a.since = s.since;
  if (s.level && (what === "logs" || what === "extension_logs")) a.min_level = s.level;
  for (const [arg, value] of filter.serverTerms(parsed, kindFilters[what === "errors" ? "logs" : what] || [])) a[arg] = value;
  return a;
}

/** Whether a row passes what the server could not filter. */
function keep(row) {
  const skip = new Set(filter.serverTerms(parsed, kindFilters[row._kind] || []).map((t) => t[2]));
  return filter.matches(parsed, row, skip);
}

const ctx = {
  args,
  keep,
  open: (kind, row) => {
    writeState({ sel: `${kind}:${row.id}` });
    openDetail(kind, row);
  },
  selected: (kind, row) => writeState({ sel: `${kind}:${row.id}` }),
  /** Whether entries were cleared (by this page, or before it was opened: the overview's `cleared`). */
  cleared: false,
  tabs: (tabs) => fillTabs(tabs),
  /** Whether anything narrows the view: the filter box, the tab, the level or the time. */
  filtered: () => {
    const s = readState();
    return !!(s.q.trim() || s.tab || s.level || s.since);
  },
};

async function openDetail(kind, row) {
  try {
    let entry = row;
    // Read alone: a row not held (a link's), or one cut to fit the page of rows it came in.
    if (!row || row._clipped === true || (row.url === undefined && row.message === undefined && row.type === undefined)) {
      entry = (await api.row(kind, row.id)).entries[0];
    }
    await detail.show(pane, kind, entry, closeDetail);
  } catch (e) {
    notice(e.message);
  }
}

function closeDetail() {
  pane.hidden = true;
  pane.replaceChildren();
  writeState({ sel: "" });
  // The row closed is no longer selected; the list keeps the keyboard.
  if (view && view.list) view.list.deselect();
  const grid = main.querySelector("[role=grid]");
  if (grid) grid.focus();
}

/** The tab an agent tracks (`configure action=track_tab`), as the viewer was opened; observe's
 * `since_navigation` counts from its last reload when no tab is chosen. */
let trackedTab = null;

function fillTabs(tabs) {
  const current = readState().tab;
  const options = [el("option", { value: "", text: "all tabs" })];
  const seen = new Set();
  for (const t of tabs) {
    seen.add(String(t.tabId));
    options.push(el("option", { value: t.tabId, text: `${t.tabId}: ${(t.title || t.url || "").slice(0, 60)}` }));
  }
  if (current && !seen.has(current)) options.push(el("option", { value: current, text: `${current}` }));
  tab.replaceChildren(...options);
  tab.value = current;
}

/** The time select, with the link's own time as an option when it is none of the fixed ones (`since=<epoch ms>`). */
function fillSince(value) {
  for (const o of [...since.options]) if (o.dataset.link) o.remove();
  if (value && ![...since.options].some((o) => o.value === value)) {
    const text = /^\d+$/.test(value) ? `since ${when(Number(value))}` : `since ${value}`;
    since.appendChild(el("option", { value, "data-link": "1", text }));
  }
  since.value = value;
}

/** The level select, with the link's level as an option when the server has no such level (`level=fatal`): the select shows what the address says. */
function fillLevel(value) {
  for (const o of [...level.options]) if (o.dataset.link) o.remove();
  if (value && ![...level.options].some((o) => o.value === value)) level.appendChild(el("option", { value, "data-link": "1", text: `${value} (no such level)` }));
  level.value = value;
}

/** The level select: each of the server's levels and those above it, the highest alone. */
function fillLevels(names) {
  level.replaceChildren(
    el("option", { value: "", text: "all levels" }),
    ...names.map((name, i) => el("option", { value: name, text: i === names.length - 1 ? `${name} only` : `${name} and up` })),
  );
}

async function show() {
  const s = readState();
  const gen = ++generation;
  q.value = s.q;
  fillLevel(s.level);
  fillSince(s.since);
  parsed = filter.parse(s.q, { levels, kinds: Object.keys(kindFilters), view: s.name });
  notice([clearedNotice, ...parsed.errors].filter(Boolean).join("; "));
  for (const a of document.querySelectorAll("nav a")) {
    if (a.dataset.view === s.name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  level.disabled = !(s.name === "console" || s.name === "timeline");
  const make = VIEWS[s.name];
  // A reload is one tab's: with all tabs shown (and none tracked) there is no last one to count from.
  if (make && s.name !== "overview" && s.since === "nav" && !s.tab && trackedTab === null) {
    view = null;
    main.replaceChildren(el("p.empty", { text: "“Since the last reload” is counted in one tab: choose the tab beside it." }));
    return;
  }
  // A level the server does not have (`level=fatal` in a link): said in the viewer's words, not
  // in those of observe's `min_level` the page would send.
  if (make && (s.name === "console" || s.name === "timeline") && s.level && levels.length && !levels.includes(s.level)) {
    view = null;
    notice([`level: takes one of ${levels.join(", ")}, not "${s.level}"`, ...parsed.errors].join("; "));
    main.replaceChildren(el("p.empty", { text: "Choose a level beside the filter box." }));
    return;
  }
  if (!make) {
    view = null;
    main.replaceChildren(el("h1", { text: "No such view" }), el("p", { text: `There is no view at ${location.pathname}: open Overview, Console, Network or Timeline above.` }));
    return;
  }
  document.title = `Gasoline · ${s.name[0].toUpperCase()}${s.name.slice(1)}`;
  view = make(ctx);
  main.replaceChildren(view.root);
  try {
    await view.start();
  } catch (e) {
    if (gen === generation) notice(e.message);
    return;
  }
  if (gen !== generation) return;
  if (lastCursors) view.onCursors(lastCursors);
  // `sel=kind:id`; a link whose id was never filled in (an observe answer's `sel=logs:{id}`) shows the view alone.
  const sel = /^([a-z_]+):(\d+)$/.exec(s.sel);
  if (sel && view.list) {
    if (!view.list.selectKey(`${sel[1]}:${sel[2]}`, true)) {
      // Not in the window: fetch it alone.
      openDetail(sel[1], { id: Number(sel[2]) });
    }
  } else if (sel) openDetail(sel[1], { id: Number(sel[2]) });
  else if (pane.hidden === false) closeDetail();
}

// ---- the filter bar -------------------------------------------------------
let typing = null;
const typed = () => {
  clearTimeout(typing);
  typing = setTimeout(() => {
    if (q.value === readState().q) return;
    writeState({ q: q.value });
    show();
  }, 100);
};
for (const event of ["input", "search", "change"]) q.addEventListener(event, typed);
for (const [select, key] of [[tab, "tab"], [level, "level"], [since, "since"]]) {
  select.addEventListener("change", () => {
    writeState({ [key]: select.value });
    show();
  });
}

// ---- navigation without reloading ----------------------------------------
document.addEventListener("click", (e) => {
  const a = e.target.closest("a[data-view], a.brand");
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  const name = a.dataset.view || "overview";
  // What was just typed goes with the view, even within the typing pause.
  clearTimeout(typing);
  writeState({ q: q.value });
  writeState({ name, sel: "" }, true);
  pane.hidden = true;
  show();
});
addEventListener("popstate", show);

// ---- keyboard: / focuses the filter, Esc closes, arrows reach the table ----
document.addEventListener("keydown", (e) => {
  const typingInField = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement;
  if (e.key === "/" && !typingInField) {
    e.preventDefault();
    q.focus();
    q.select();
  } else if (e.key === "Escape") {
    if ($("confirm").open) return;
    if (!pane.hidden) closeDetail();
    else if (typingInField) {
      // Esc leaves the filter for the table; it does not empty the box (a search field's default).
      e.preventDefault();
      e.target.blur();
      const grid = main.querySelector("[role=grid]");
      if (grid) grid.focus();
    }
  } else if ((e.key === "ArrowDown" || e.key === "ArrowUp") && !typingInField && view && view.list && !main.contains(e.target)) {
    e.preventDefault();
    view.list.scroller.focus();
    view.list.onKey(e);
  }
});

// ---- clear, with confirmation --------------------------------------------
$("clear").addEventListener("click", () => $("confirm").showModal());
$("confirm-no").addEventListener("click", () => $("confirm").close());
$("confirm-yes").addEventListener("click", async () => {
  $("confirm").close();
  try {
    const r = await api.clearAll();
    // Said until the person moves on: the view shown again at once keeps it.
    ctx.cleared = true;
    clearedNotice = `Cleared ${Number(r.cleared).toLocaleString()} entries.`;
    const shown = show();
    clearedNotice = "";
    await shown;
  } catch (e) {
    notice(`Could not clear: ${e.message}`);
  }
});

// ---- live -------------------------------------------------------------------
connect(
  (data) => {
    lastCursors = data;
    if (view) view.onCursors(data).catch((e) => notice(e.message));
  },
  (state) => {
    const live = $("live");
    live.textContent = state === "live" ? "● live" : "reconnecting…";
    live.dataset.state = state;
  },
);

// A safety net under the stream: once a second, a view still behind the last cursors it
// heard of reads on (no request when it is not behind).
setInterval(() => {
  if (view && lastCursors) view.onCursors(lastCursors).catch((e) => notice(e.message));
}, 1000);

/** The view in force, for tests and for looking at from DevTools. */
globalThis.gasolineViewer = { view: () => view, cursors: () => lastCursors };

async function boot() {
  try {
    const o = await api.overview();
    kindFilters = Object.fromEntries(o.kinds.map((k) => [k.kind, k.filters || []]));
    levels = o.levels || [];
    fillLevels(levels);
    fillTabs(o.tabs);
    trackedTab = o.tracked_tab_id ?? null;
    ctx.cleared = o.kinds.some((k) => k.cleared > 0);
  } catch (e) {
    notice(e.message);
  }
  await show();
}
boot();
