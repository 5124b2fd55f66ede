// The waterfall: every request a bar on one time axis shared by all rows, its
// phases in DevTools' colours, and each page's DOMContentLoaded and load as
// vertical lines. Rows carry `ts` (epoch ms of the start), `duration`, and
// `phases` (ms) where the page could see them; a document's row carries
// `domContentLoaded` and `load` in ms after its page's time origin, which is
// `ts - startTime`.
import { ms, svg } from "./dom.js";
import { isFailed } from "./filter.js";

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

/**
 * The shared axis of `rows`, the rows drawn (those in view, and a few either side): t0 and t1
 * (epoch ms), px per ms for `width`, the page lines to draw, and `off(row)`, which says
 * "before" or "after" for a row drawn off the axis. DevTools scales its waterfall to what it
 * shows; here, what is in view: scrolling or filtering to fewer rows gives them the width.
 * A start more than a day from the median start of the rows drawn is hostile or broken (a page
 * that says it started in 1970): that row is a marker at the edge it lies beyond, and the axis
 * is the other rows'. `around` are page lines of rows not drawn, shown when within the axis.
 */
export function axis(rows, width = WIDTH, around = []) {
  const starts = rows.map((r) => num(r.ts)).filter((t) => t !== null).sort((a, b) => a - b);
  if (!starts.length) return { t0: 0, t1: 1, scale: 1, width, marks: [], off: () => null };
  const middle = starts[Math.floor(starts.length / 2)];
  const near = (t) => Math.abs(t - middle) <= LONGEST_MS;
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const r of rows) {
    const t = num(r.ts);
    if (t === null || !near(t)) continue;
    t0 = Math.min(t0, t);
    t1 = Math.max(t1, t + duration(r));
  }
  const own = pageMarks(rows).filter((m) => near(m.row.ts));
  for (const m of own) t1 = Math.max(t1, m.at);
  if (t1 <= t0) t1 = t0 + 1;
  const others = around.filter((m) => m.at >= t0 && m.at <= t1 && !own.some((o) => o.row === m.row && o.kind === m.kind));
  const off = (r) => {
    const t = num(r.ts);
    if (t === null || near(t)) return null;
    return t < middle ? "before" : "after";
  };
  return { t0, t1, scale: width / (t1 - t0), width, marks: own.concat(others), off };
}

/** A span of time as a person reads it: ms, s, min, h or days. */
export function spanText(n) {
  const a = Math.abs(n);
  if (a < 60_000) return ms(n);
  if (a < 3_600_000) return `${(n / 60_000).toFixed(1)} min`;
  if (a < LONGEST_MS) return `${(n / 3_600_000).toFixed(1)} h`;
  return `${Math.round(n / LONGEST_MS).toLocaleString()} days`;
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

/** The cell of one row: its bar (or its marker when it lies off the axis), and the page lines crossing it. */
export function bar(r, ax) {
  const side = ax.off(r);
  const g = svg("g.bar", {
    "data-id": r.id,
    "data-start": r.ts,
    "data-duration": duration(r),
    "data-failed": isFailed(r) ? "true" : null,
    "data-offaxis": side,
  });
  const name = `${r.method || ""} ${r.url || ""}`.trim();
  const x0 = ((num(r.ts) ?? ax.t0) - ax.t0) * ax.scale;
  const tip = [name, side ? `starts ${spanText(Math.abs(r.ts - (side === "before" ? ax.t0 : ax.t1)))} ${side} the axis, total ${ms(num(r.duration) ?? 0)}` : `start ${spanText(x0 / ax.scale)}, total ${ms(num(r.duration) ?? 0)}`];
  if (side) {
    // A triangle at the edge it lies beyond, pointing there.
    const points = side === "before" ? "0,12 6,7 6,17" : `${ax.width},12 ${ax.width - 6},7 ${ax.width - 6},17`;
    g.appendChild(svg("polygon.offaxis", { points, fill: COLORS.unknown }));
  } else {
    const parts = phases(r);
    for (const [phase, from, to] of parts) {
      const x = x0 + from * ax.scale;
      const w = Math.max((to - from) * ax.scale, parts.length === 1 ? 1 : 0);
      g.appendChild(svg("rect.phase", { "data-phase": phase, x: x.toFixed(2), y: 6, width: w.toFixed(2), height: 12, fill: COLORS[phase] }));
      if (phase !== "unknown") tip.push(`${phase === "stall" ? "queueing/stalled" : phase}: ${ms(to - from)}`);
    }
  }
  if (isFailed(r)) {
    const end = side ? (side === "before" ? 6 : ax.width - 14) : x0 + duration(r) * ax.scale;
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

/** The header: the time axis with ticks (labels that would overlap the one before left out), and the page lines. */
export function header(ax) {
  const H = 22;
  const span = ax.t1 - ax.t0;
  const step = tickStep(span / 4);
  const ticks = [];
  let free = 0; // where the next label may start
  for (let t = 0; t <= span; t += step) {
    const x = t * ax.scale;
    ticks.push(svg("line", { x1: x, x2: x, y1: 14, y2: H, stroke: "#888" }));
    const text = tickLabel(t, step);
    const w = text.length * 6 + 4; // 10 px digits and letters are at most about 6 px wide
    const at = Math.min(x + 2, ax.width - w);
    if (at < free) continue;
    free = at + w;
    ticks.push(svg("text", { x: at, y: 11, "font-size": 10, fill: "currentColor", text }));
  }
  return svg(
    "svg.wfaxis",
    { width: ax.width, height: H, role: "img", "aria-label": `waterfall axis, ${spanText(span)} in all` },
    svg("title", { text: `Waterfall of the rows in view: ${spanText(span)}; blue line DOMContentLoaded, red line load` }),
    ticks,
    lines(ax, H),
  );
}

/** Steps a time axis reads well in: 1-2-5 ms to seconds, then 15 s, 30 s, whole minutes and hours, days. */
const STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 10e3, 15e3, 30e3, 60e3, 120e3, 300e3, 600e3, 900e3, 1800e3, 3600e3, 7200e3, 10800e3, 21600e3, 43200e3, 86400e3];

function tickStep(x) {
  if (!(x > 0)) return 1;
  if (x < 1) {
    const p = 10 ** Math.floor(Math.log10(x));
    for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p;
  }
  const fixed = STEPS.find((s) => s >= x);
  if (fixed) return fixed;
  const days = x / 86400e3;
  const p = 10 ** Math.floor(Math.log10(days));
  for (const m of [1, 2, 5, 10]) if (m * p >= days) return m * p * 86400e3;
  return 10 * p * 86400e3;
}

/** A tick's label in the unit of its step: "250 ms", "1.5 s", "2 min", "6 h", "2 d". */
function tickLabel(t, step) {
  const [unit, name] = step < 1e3 ? [1, "ms"] : step < 60e3 ? [1e3, "s"] : step < 3600e3 ? [60e3, "min"] : step < 86400e3 ? [3600e3, "h"] : [86400e3, "d"];
  const digits = Number.isInteger(step / unit) ? 0 : step / unit >= 0.1 ? 1 : 3;
  return `${(t / unit).toFixed(digits)} ${name}`;
}
