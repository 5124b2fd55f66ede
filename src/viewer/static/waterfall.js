// The waterfall: every request a bar on one time axis shared by all rows, its
// phases in DevTools' colours, and each page's DOMContentLoaded and load as
// vertical lines. Rows carry `ts` (epoch ms of the start), `duration`, and
// `phases` (ms) where the page could see them; a document's row carries
// `domContentLoaded` and `load` in ms after its page's time origin, which is
// `ts - startTime`.
import { ms, svg } from "./dom.js";

export const COLORS = {
  stall: "#9E9E9E",
  dns: "#009688",
  connect: "#FF9800",
  tls: "#9C27B0",
  waiting: "#00C853",
  download: "#03A9F4",
  unknown: "#607D8B",
  dcl: "#1A73E8",
  load: "#D93025",
};

export const WIDTH = 300;
const ROW = 24;

function num(v) {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

// Longest time a row may span on the picture: a duration (or a page line) a page reported past a
// day, or negative, is hostile or broken, and drawn as unknown rather than squeezing every other
// bar of the shared axis to nothing. The row's own figures still show it as stored.
const LONGEST_MS = 86_400_000;

/** `v` in ms when it is a sane span (0 to a day), else null. */
function span(v) {
  const n = num(v);
  return n !== null && n >= 0 && n <= LONGEST_MS ? n : null;
}

/** A row's duration as drawn: 0 when unknown or absurd. */
function duration(r) {
  return span(r.duration) ?? 0;
}

/** A page's (its top frame's document row's) DOMContentLoaded and load as epoch ms; an iframe's are not the page's. */
export function pageMarks(rows) {
  const marks = [];
  for (const r of rows) {
    if (r.initiatorType !== "navigation" || (r.frameId ?? 0) !== 0 || num(r.ts) === null) continue;
    const origin = r.ts - (span(r.startTime) ?? 0);
    if (span(r.domContentLoaded) !== null) marks.push({ kind: "dcl", at: origin + r.domContentLoaded, row: r });
    if (span(r.load) !== null) marks.push({ kind: "load", at: origin + r.load, row: r });
  }
  return marks;
}

/** The shared axis of `rows`: t0 and t1 (epoch ms) and px per ms for `width`. */
export function axis(rows, width = WIDTH) {
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const r of rows) {
    if (num(r.ts) === null) continue;
    t0 = Math.min(t0, r.ts);
    t1 = Math.max(t1, r.ts + duration(r));
  }
  for (const m of pageMarks(rows)) t1 = Math.max(t1, m.at);
  if (!Number.isFinite(t0)) return { t0: 0, t1: 1, scale: 1, width, marks: [] };
  if (t1 <= t0) t1 = t0 + 1;
  return { t0, t1, scale: width / (t1 - t0), width, marks: pageMarks(rows) };
}

/**
 * The phases of a request in order, as [name, from, to] in ms after its start:
 * what the known phases do not cover at the start is queueing/stalled (grey).
 */
export function phases(r) {
  const d = duration(r);
  const p = r.phases;
  if (!p || typeof p !== "object") return [["unknown", 0, d]];
  const v = (k) => Math.min(d, span(p[k]) ?? 0);
  const tls = v("tls");
  const order = [
    ["download", v("download")],
    ["waiting", v("waiting")],
    ["tls", tls],
    ["connect", Math.max(0, v("connect") - tls)],
    ["dns", v("dns")],
  ];
  const out = [];
  let end = d;
  for (const [name, len] of order) {
    if (len <= 0) continue;
    const from = Math.max(0, end - len);
    out.unshift([name, from, end]);
    end = from;
  }
  if (end > 0) out.unshift(["stall", 0, end]);
  if (!out.length) out.push(["unknown", 0, d]);
  return out;
}

/** A failed request, as observe defines it: an error, `failed: true`, or a status of 400 or more. */
export function failed(r) {
  return !!(r.error || r.failed === true || (num(r.responseStatus) ?? 0) >= 400);
}

/** The cell of one row: its bar, and the page lines crossing it. */
export function bar(r, ax) {
  const x0 = ((num(r.ts) ?? ax.t0) - ax.t0) * ax.scale;
  const parts = phases(r);
  const g = svg("g.bar", {
    "data-id": r.id,
    "data-start": r.ts,
    "data-duration": duration(r),
    "data-failed": failed(r) ? "true" : null,
  });
  const tip = [`${r.method || ""} ${r.url || ""}`.trim(), `start ${ms(0)}, total ${ms(num(r.duration) ?? 0)}`];
  for (const [name, from, to] of parts) {
    const x = x0 + from * ax.scale;
    const w = Math.max((to - from) * ax.scale, parts.length === 1 ? 1 : 0);
    g.appendChild(
      svg("rect.phase", { "data-phase": name, x: x.toFixed(2), y: 6, width: w.toFixed(2), height: 12, fill: COLORS[name] }),
    );
    if (name !== "unknown") tip.push(`${name === "stall" ? "queueing/stalled" : name}: ${ms(to - from)}`);
  }
  if (failed(r)) {
    const end = x0 + duration(r) * ax.scale;
    g.appendChild(svg("line.failmark", { x1: end + 2, x2: end + 8, y1: 6, y2: 18, stroke: "#D32F2F", "stroke-width": 2 }));
    g.appendChild(svg("line.failmark", { x1: end + 8, x2: end + 2, y1: 6, y2: 18, stroke: "#D32F2F", "stroke-width": 2 }));
    tip.push(`failed: ${r.error || (r.responseStatus ? `status ${r.responseStatus}` : "yes")}`);
  }
  g.appendChild(svg("title", { text: tip.join("\n") }));
  return svg(
    "svg.wf",
    { width: ax.width, height: ROW, viewBox: `0 0 ${ax.width} ${ROW}`, role: "img", "aria-label": tip.slice(0, 2).join(", ") },
    lines(ax, ROW),
    g,
  );
}

function lines(ax, height) {
  return ax.marks.map((m) => {
    const x = ((m.at - ax.t0) * ax.scale).toFixed(2);
    return svg(`line.mark.${m.kind}`, { x1: x, x2: x, y1: 0, y2: height, stroke: COLORS[m.kind], "stroke-width": 1, "data-at": m.at });
  });
}

/** The header: the time axis with ticks, and the page lines labelled. */
export function header(ax) {
  const H = 22;
  const span = ax.t1 - ax.t0;
  const step = niceStep(span / 4);
  const ticks = [];
  for (let t = 0; t <= span; t += step) {
    const x = t * ax.scale;
    ticks.push(svg("line", { x1: x, x2: x, y1: 14, y2: H, stroke: "#888" }));
    ticks.push(svg("text", { x: Math.min(x + 2, ax.width - 40), y: 11, "font-size": 10, fill: "currentColor", text: ms(t) }));
  }
  return svg(
    "svg.wfaxis",
    { width: ax.width, height: H, role: "img", "aria-label": `waterfall axis, ${ms(span)} in all` },
    svg("title", { text: `Waterfall: ${ms(span)}; blue line DOMContentLoaded, red line load` }),
    ticks,
    lines(ax, H),
  );
}

function niceStep(x) {
  if (!(x > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p;
  return 10 * p;
}
