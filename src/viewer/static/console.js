// Console: logs and errors as DevTools shows them: level colours, repeated
// messages grouped with a count, the call site; a click opens the stack,
// arguments and cause. Above, the error groups of the summary, read only while
// they are open: grouping reads every error the ring holds, which following a
// fast stream must not pay for once a second.
import * as api from "./api.js";
import { cut, el, line, replace, timeCell, when } from "./dom.js";
import { Feed } from "./live.js";
import { TableView } from "./vlist.js";

function sameMessage(a, b) {
  return a.level === b.level && a.message === b.message && a.source === b.source && a.location === b.location && a.tabId === b.tabId;
}

/** Consecutive identical messages become one row with a count. */
function group(rows) {
  const out = [];
  for (const r of rows) {
    const last = out[out.length - 1];
    if (last && sameMessage(last, r)) {
      last._count += 1;
      last._lastTs = r.ts;
    } else {
      out.push(Object.assign(Object.create(null), r, { _count: 1, _lastTs: r.ts }));
    }
  }
  return out;
}

export function consoleView(ctx) {
  const groups = el("details.groups", {}, el("summary", { text: "Error groups" }), el("div.groupbody", { text: "loading…" }));
  let spent = 0;
  const view = new TableView(ctx, {
    label: "Console messages",
    noun: "messages",
    feeds: [new Feed("logs", ctx.args("logs"))],
    display: group,
    emptyText: "No console messages match.",
    rowClass: (r) => `lvl-${r.level}`,
    before: [groups],
    columns: [
      { title: "time", width: "8.5em", cell: (r) => timeCell(r.ts) },
      { title: "level", width: "4.5em", cell: (r) => el(`span.level.lvl-${r.level}`, { text: r.level }) },
      {
        title: "message",
        width: "minmax(10em, 1fr)",
        cls: "msg",
        cell: (r) => [r._count > 1 ? el("span.repeat", { "data-count": r._count, text: `${r._count}` }) : null, el("span.text", { text: line(r.message, 500) })],
      },
      // Where it happened as the agent is told: the original location where a source map gave one.
      { title: "source", width: "14em", cls: "dim", cell: (r) => el("span.text", { text: line(r.at || r.location || r.source || "", 120) }) },
      { title: "tab", width: "3.5em", cls: "num", cell: (r) => String(r.tabId ?? "") },
    ],
  });
  const loadGroups = async () => {
    if (!groups.open) return;
    const started = performance.now();
    try {
      const a = ctx.args("errors");
      const g = await api.rows("errors", { tabId: a.tabId, since: a.since, since_navigation: a.since_navigation, group: true });
      const all = g.groups || [];
      // The 25 most frequent, with when each was first and last seen.
      const top = [...all].sort((x, y) => y.count - x.count).slice(0, 25);
      const ids = [...new Set(top.flatMap((x) => [x.first_id, x.last_id]))].slice(0, 50);
      const seen = new Map();
      if (ids.length) {
        const rows = await api.rows("logs", { ids: ids.join(","), fields: "ts" });
        for (const e of rows.entries) seen.set(e.id, e.ts);
      }
      const total = g.total_groups ?? all.length;
      groups.firstElementChild.textContent = `Error groups (${total.toLocaleString()}${g.occurrences ? `, ${g.occurrences.toLocaleString()} errors` : ""})`;
      const at = (id) =>
        el("button.linkish", { type: "button", text: seen.has(id) ? when(seen.get(id)) : `#${id}`, onclick: () => ctx.open("logs", { id }) });
      replace(
        groups.lastElementChild,
        top.length
          ? el(
              "table.grid",
              {},
              el("caption", { text: total > top.length ? `The ${top.length} most frequent of ${total.toLocaleString()}` : "By count" }),
              el("thead", {}, el("tr", {}, ["count", "message", "first seen", "last seen"].map((h) => el("th", { scope: "col", text: h })))),
              el(
                "tbody",
                {},
                top.map((x) =>
                  el(
                    "tr",
                    {},
                    el("td.num", { text: x.count.toLocaleString() }),
                    el("td.text", { text: cut(typeof x.example === "string" ? x.example : x.fingerprint, 300) }),
                    el("td", {}, at(x.first_id)),
                    el("td", {}, at(x.last_id)),
                  ),
                ),
              ),
            )
          : el("p.dim", { text: "No errors." }),
      );
    } catch (e) {
      replace(groups.lastElementChild, el("p.error", { text: e.message }));
    }
    spent = performance.now() - started;
  };
  groups.addEventListener("toggle", () => groups.open && loadGroups());
  const onCursors = view.onCursors.bind(view);
  let groupTimer = null;
  view.onCursors = async (data) => {
    await onCursors(data);
    // While open and the logs move: again after a second, or ten times what the last read took.
    if (groups.open && !groupTimer)
      groupTimer = setTimeout(() => {
        groupTimer = null;
        loadGroups();
      }, Math.max(1000, 10 * spent));
  };
  return view;
}
