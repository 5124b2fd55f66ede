// The filter box, as DevTools reads it: words match text (all must), and the
// property filters status-code:, method:, domain:, url:, larger-than:, level:,
// and is:failed (observe's `failed`: the one definition of a failed request),
// with a leading "-" negating any of them. Terms the server can apply (observe's
// `search` where the server offers it, its `url` filter for url:) are sent to it;
// the rest are applied to the rows the page holds.

const PROPS = ["status-code", "method", "domain", "url", "larger-than", "is", "level", "kind", "tab"];

/**
 * What the rows of each view have (the properties a term may name there), what a person calls
 * them, and the kinds a view shows: a term on a property its rows lack (`level:` among requests)
 * can match no row.
 */
const VIEWS = {
  console: { noun: "console messages", props: ["level", "url", "domain", "tab", "kind"], kinds: ["logs"] },
  network: { noun: "requests", props: ["status-code", "method", "domain", "url", "larger-than", "is", "tab", "kind"], kinds: ["network_waterfall"] },
  timeline: { noun: "timeline rows", props: PROPS, kinds: ["actions", "logs", "network_waterfall"] },
};
const FIELD = { "status-code": "status", method: "method", domain: "domain", url: "URL", "larger-than": "size", is: "outcome", level: "level", tab: "tab", kind: "kind" };

/**
 * The filter box's text as terms, and what in it cannot match anything: a value of the wrong form,
 * a level or kind the server does not know (`known`: {levels, kinds}, from the overview), or a
 * property the rows of the view (`known.view`) do not have.
 */
export function parse(text, known = {}) {
  const terms = [];
  const errors = [];
  for (const raw of (text || "").match(/(?:[^\s"]+|"[^"]*")+/g) || []) {
    let t = raw;
    const neg = t.startsWith("-") && t.length > 1;
    if (neg) t = t.slice(1);
    const m = /^([a-z-]+):(.*)$/.exec(t);
    if (m && PROPS.includes(m[1])) {
      const value = m[2].replace(/^"|"$/g, "");
      const wrong = refused(m[1], value, known) || (!neg && absent(m[1], value, known.view));
      if (wrong) errors.push(wrong);
      terms.push({ prop: m[1], value, neg });
    } else {
      const raw = t.replace(/^"|"$/g, "");
      terms.push({ word: raw.toLowerCase(), raw, neg });
    }
  }
  return { terms, errors };
}

/** Why `prop:value` can match nothing, or null. */
function refused(prop, value, known) {
  const among = (list) => `one of ${list.join(", ")}`;
  switch (prop) {
    case "larger-than":
      return sizeOf(value) === null ? `larger-than: takes a size such as 10k or 2M, not "${value}"` : null;
    case "status-code":
      // DevTools' filter: one status, exactly; no class (4xx) and no comparison (>=400).
      return /^\d{1,3}$/.test(value)
        ? null
        : `status-code: takes one status code such as 404 or 500, not "${value}" (no ranges: sort by the status column to see failures together)`;
    case "tab":
      return /^\d+$/.test(value) ? null : `tab: takes a tab's number, not "${value}"`;
    case "is":
      return value === "failed" ? null : `is: takes failed (an error, or a status of 400 or more), not "${value}"`;
    case "level":
      return known.levels && !known.levels.includes(value) ? `level: takes ${among(known.levels)}, not "${value}"` : null;
    case "kind":
      return known.kinds && !known.kinds.includes(value) ? `kind: takes ${among(known.kinds)}, not "${value}"` : null;
    default:
      return null;
  }
}

/** Why `prop:value` matches none of the rows of `view` (they lack the property), or null. */
function absent(prop, value, view) {
  const v = VIEWS[view];
  if (!v) return null;
  const here = v.props.filter((p) => p !== "kind").map((p) => `${p}:`);
  if (!v.props.includes(prop)) return `${prop}: ${v.noun} have no ${FIELD[prop]}, so "${prop}:${value}" matches none of them; here use ${here.join(", ")}`;
  if (prop === "kind" && !v.kinds.includes(value)) return `kind: ${v.noun} are of ${v.kinds.join(", ")}, not "${value}"`;
  return null;
}

/** A size as DevTools' larger-than: reads it: k and M are 1000 and 1,000,000 bytes, as sizes are shown. */
function sizeOf(v) {
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)[bB]?$/.exec(v);
  if (!m) return null;
  const n = Number(m[1]);
  return m[2] === "" ? n : /k/i.test(m[2]) ? n * 1000 : n * 1000 * 1000;
}

function hostOf(url) {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}

/** The size DevTools' larger-than: compares: bytes transferred, else the body's size. */
export function sizeOfRow(row) {
  for (const k of ["transferSize", "encodedBodySize", "responseBodySize", "size"]) {
    if (typeof row[k] === "number" && row[k] > 0) return row[k];
  }
  if (typeof row.responseBody === "string") return row.responseBody.length;
  return 0;
}

function statusOf(row) {
  return row.responseStatus ?? row.status;
}

/**
 * A request failed: the browser or the page reported an error, or its status is 400 or more (the
 * server's one definition, src/query/outcome.rs); a status of 0 or none without an error is unknown.
 */
export function isFailed(row) {
  const status = statusOf(row);
  return Boolean(row.error || row.failed === true || (typeof status === "number" && Number.isFinite(status) && status >= 400));
}

/** The text a word is looked for in. */
function haystack(row) {
  const parts = [row.message, row.url, row.operation, row.method, row.type, row.selector, row.text, row.value, row.error, row.source, row.connectionId, row.data, row.event];
  return parts.filter((p) => typeof p === "string").join("\n").toLowerCase();
}

function test(term, row) {
  if (term.word !== undefined) return haystack(row).includes(term.word);
  const v = term.value;
  switch (term.prop) {
    case "status-code":
      return String(statusOf(row) ?? "") === v;
    case "method":
      return (row.method || "").toUpperCase() === v.toUpperCase();
    case "domain": {
      const host = hostOf(row.url || "");
      if (v.startsWith("*.")) return host.endsWith(v.slice(1)) || host === v.slice(2);
      return host === v;
    }
    case "url":
      // observe's url filter: a substring, case as written.
      return (row.url || "").includes(v);
    case "larger-than":
      return sizeOfRow(row) > (sizeOf(v) ?? Infinity);
    case "level":
      return (row.level || "") === v;
    case "kind":
      return (row._kind || "") === v;
    case "tab":
      return String(row.tabId ?? "") === v;
    case "is":
      return v === "failed" && isFailed(row);
    default:
      return true;
  }
}

/** Whether `row` passes every term. `skip` holds terms already applied by the server. */
export function matches(parsed, row, skip = new Set()) {
  for (const t of parsed.terms) {
    if (skip.has(t)) continue;
    if (test(t, row) === t.neg) return false;
  }
  return true;
}

/**
 * The terms the server filters by for a kind with these observe filters, as
 * [argument, value, term]: the first positive url: as `url`, and the longest
 * positive plain word as `search` (which looks through all of a row's text), or
 * as `url` where there is no search and no url: term. The other terms stay with the page.
 */
export function serverTerms(parsed, filters) {
  const out = [];
  const url = parsed.terms.find((t) => t.prop === "url" && !t.neg && t.value);
  if (url && filters.includes("url")) out.push(["url", url.value, url]);
  const notUrl = parsed.terms.find((t) => t.prop === "url" && t.neg && t.value);
  if (notUrl && filters.includes("url_not")) out.push(["url_not", notUrl.value, notUrl]);
  const failedOnly = parsed.terms.find((t) => t.prop === "is" && t.value === "failed");
  if (failedOnly && filters.includes("failed")) out.push(["failed", failedOnly.neg ? "false" : "true", failedOnly]);
  const words = parsed.terms.filter((t) => t.word !== undefined && !t.neg && t.raw);
  const arg = filters.includes("search") ? "search" : filters.includes("url") && !out.length ? "url" : null;
  if (words.length && arg) {
    const word = words.reduce((a, b) => (b.raw.length > a.raw.length ? b : a));
    out.push([arg, word.raw, word]);
  }
  return out;
}
