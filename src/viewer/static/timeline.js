// Timeline: one tab's actions, navigations, errors and requests interleaved
// in time, so "what did the user do just before this error" is one look.
import { el, line, ms, timeCell } from "./dom.js";
import { isFailed } from "./filter.js";
import { Feed } from "./live.js";
import { TableView } from "./vlist.js";

function label(r) {
  switch (r._kind) {
    case "actions":
      return r.type === "navigate" ? "navigation" : "action";
    case "logs":
      return r.level === "error" ? "error" : "warning";
    default:
      return r.initiatorType === "navigation" ? "navigation" : "request";
  }
}

function what(r) {
  switch (r._kind) {
    case "actions":
      if (r.type === "navigate") return `${r.how || "navigate"} → ${r.url || ""}`;
      return `${r.type} ${r.selector || ""} ${r.text ? `"${r.text}"` : ""} ${r.value !== undefined ? `= ${r.value}` : r.key ? `key ${r.key}` : ""}`;
    case "logs":
      return r.message;
    default: {
      // As the Network view shows it: no method made up for a request that has none (an image, a socket).
      const status = r.error || (r.responseStatus ? String(r.responseStatus) : r.failed ? "failed" : "");
      return [r.method, r.url, status, ms(r.duration)].filter((x) => x !== undefined && x !== null && x !== "").join(" ");
    }
  }
}

/** Whether a level chosen in the filter bar asks for problems only (warnings or errors). */
const problemsOnly = (level) => level === "warn" || level === "error";

export function timelineView(ctx) {
  const warn = { ...ctx.args("logs") };
  // At warn or error chosen, the timeline holds problems alone: failed requests, no actions or
  // navigations (they have no level) and no request that went well.
  const problems = problemsOnly(warn.min_level);
  if (!warn.level && !warn.min_level) warn.min_level = "warn";
  const feeds = problems
    ? [new Feed("logs", warn), new Feed("network_waterfall", ctx.args("network_waterfall"))]
    : [new Feed("actions", ctx.args("actions")), new Feed("logs", warn), new Feed("network_waterfall", ctx.args("network_waterfall"))];
  return new TableView(ctx, {
    label: "Timeline",
    feeds,
    // Of the requests the page holds, the failed ones (observe has no argument for it).
    keep: problems ? (r) => r._kind !== "network_waterfall" || isFailed(r) : undefined,
    emptyText: "Nothing on the timeline matches.",
    // A failed request marked as the Network view marks it.
    rowClass: (r) => `tl-${label(r)}${r._kind === "network_waterfall" && isFailed(r) ? " failed" : ""}`,
    columns: [
      { title: "time", width: "8.5em", cell: (r) => timeCell(r.ts) },
      { title: "what", width: "7em", cell: (r) => el(`span.badge.tl-${label(r)}`, { text: label(r) }) },
      { title: "detail", width: "minmax(10em, 1fr)", cls: "text", cell: (r) => el("span.text", { text: line(what(r), 500) }) },
      { title: "tab", width: "3.5em", cls: "num", cell: (r) => String(r.tabId ?? "") },
    ],
  });
}
