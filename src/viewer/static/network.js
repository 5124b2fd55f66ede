// Network: the table DevTools shows (name, method, status, type, size, time)
// and the waterfall column, one bar per request on the axis all rows share.
import { bytes, cut, el, line, ms } from "./dom.js";
import { isFailed, sizeOfRow } from "./filter.js";
import { Feed } from "./live.js";
import { TableView } from "./vlist.js";
import { axis, bar, header, pageMarks, WIDTH } from "./waterfall.js";

/** Percent-decoded, as DevTools shows a name (`%20` a space, `%E2%9C%93` ✓); as it was when not decodable. */
function decoded(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The name column: the URL's last path segment (or its host) and its query, decoded. */
function nameOf(url) {
  try {
    const u = new URL(url);
    const last = u.pathname.split("/").filter(Boolean).pop();
    return decoded((last || u.host) + u.search);
  } catch {
    return url || "";
  }
}

const typeOf = (r) => r.type || r.initiatorType || "";

/** The name a row is shown by: its URL's, and a GraphQL request's operation after it (each POST /graphql apart). */
const shownName = (r) => (typeof r.operation === "string" && r.operation ? `${nameOf(r.url)} · ${r.operation}` : nameOf(r.url));

/**
 * The time column: a request's duration in its narrow cell; one a page reported negative or
 * longer than a day (which the waterfall draws as unknown) says so, the stored number in its
 * tooltip, rather than "-5000 …" or "1e+29 …".
 */
function took(d) {
  if (typeof d !== "number") return "";
  if (Number.isFinite(d) && d >= 0 && d <= 86_400_000) return ms(d);
  return el("span", { title: `stored duration: ${d} ms`, text: d < 0 ? "invalid" : "> 1 day" });
}

export function networkView(ctx) {
  let ax = axis([]);
  let marks = [];
  const axisCell = el("div.wfhead");
  const view = new TableView(ctx, {
    label: "Network requests",
    noun: "requests",
    feeds: [new Feed("network_waterfall", ctx.args("network_waterfall"))],
    emptyText: "No requests match.",
    rowClass: (r) => (isFailed(r) ? "failed" : ""),
    // By start time, as a waterfall reads (a request's row arrives when it ends, a document's
    // after its load: later than rows of requests that started after it).
    display: (rows) => {
      marks = pageMarks(rows);
      return rows.slice().sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0) || a.id - b.id);
    },
    // The waterfall's axis is that of the rows drawn, so that what is in view is readable
    // whatever the rows held span (waterfall.js: `axis`).
    onWindow: (rows) => {
      ax = axis(rows, WIDTH, marks);
      axisCell.replaceChildren(header(ax));
    },
    // `sort`: what a column is sorted by (a request with no status or time sorts below every other).
    columns: [
      { title: "name", width: "minmax(12em, 1fr)", cls: "text", sort: shownName, cell: (r) => el("span.text", { title: cut(r.url, 2000), text: line(shownName(r), 200) }) },
      { title: "method", width: "5.5em", sort: (r) => r.method || "", cell: (r) => r.method || "" },
      { title: "status", width: "4.5em", cls: "num", sort: (r) => r.responseStatus ?? -1, cell: (r) => (isFailed(r) && !r.responseStatus ? "(failed)" : String(r.responseStatus ?? "")) },
      { title: "type", width: "6.5em", sort: typeOf, cell: typeOf },
      { title: "size", width: "5.5em", cls: "num", sort: sizeOfRow, cell: (r) => bytes(sizeOfRow(r)) },
      { title: "time", width: "5.5em", cls: "num", sort: (r) => (typeof r.duration === "number" ? r.duration : -1), cell: (r) => took(r.duration) },
      { title: axisCell, width: `${WIDTH + 12}px`, cls: "wfcell", cell: (r) => bar(r, ax) },
    ],
  });
  return view;
}
