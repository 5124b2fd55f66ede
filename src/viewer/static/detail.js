// The detail pane: one entry whole. Headers as a table, bodies as text (JSON
// pretty-printed, long ones shown in chunks), redirect hops, the error, a
// socket's frames, a log's stack and arguments. Everything as text.
import * as api from "./api.js";
import { bytes, clock, el, longText, ms, replace, tree, when } from "./dom.js";
import { phases, COLORS } from "./waterfall.js";

function section(title, ...body) {
  return el("section.dsec", {}, el("h3", { text: title }), ...body);
}

/**
 * A two-column table of [key, value]; a value that is a node goes in as it is, anything else as
 * text (JSON for what is not a string). Empty values are left out, unless `all` (a header's).
 */
function kv(pairs, all = false) {
  const rows = pairs.filter(([, v]) => all || (v !== undefined && v !== null && v !== ""));
  return el(
    "table.kv",
    {},
    el("tbody", {}, rows.map(([k, v]) => el("tr", {}, el("th", { scope: "row", text: String(k) }), el("td", {}, v instanceof Node ? v : longText(v, "text"))))),
  );
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Headers as stored: an object of name → value, or an array of {name, value}. Any other shape a
 * page sent is shown as far as it goes: an item that is no {name} by its index, as JSON; a value
 * that is neither, as text.
 */
function headers(h) {
  if (h === undefined || h === null) return el("p.dim", { text: "none captured" });
  if (typeof h !== "object") return el("pre.body", {}, longText(String(h), "text"));
  const pairs = Array.isArray(h) ? h.map((x, i) => (isObject(x) && x.name !== undefined ? [x.name, x.value] : [`[${i}]`, x])) : Object.entries(h);
  return kv(
    pairs.map(([k, v]) => [k, typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v)]),
    true,
  );
}

/**
 * The viewer's own keys on a row it holds: `_kind` (vlist.js, the ring a row came from) and a
 * console group's `_count` and `_lastTs` (console.js). Only these are left out of "Every stored
 * field": a page's own `_id` or `__typename`, and the server's `_clipped`, are shown.
 */
const OWN_KEYS = ["_kind", "_count", "_lastTs", "at"]; // ours, or the server's `at` (no stored field)

function stored(e) {
  const out = {};
  for (const [k, v] of Object.entries(e)) if (!OWN_KEYS.includes(k)) out[k] = v;
  return out;
}

/**
 * What says an entry is not shown whole, and how much is missing: a field cut when captured (the
 * server's --body-cap or --field-cap; `_truncated` gives each one's length as sent, in bytes), and
 * an entry cut to fit one read (`_clipped`: it was larger than observe's largest answer; its
 * longest fields end in "…", and `_omitted_fields` are left out).
 */
function clipped(e, kind) {
  if (!e) return null;
  const said = [];
  if (isObject(e._truncated)) {
    for (const [field, was] of Object.entries(e._truncated)) {
      const size = typeof was === "number" ? `; it was ${was.toLocaleString()} bytes` : "";
      said.push(`${field} was cut when captured, to the server's cap (--body-cap, --field-cap)${size}.`);
    }
  }
  if (e._clipped === true) {
    const omitted = typeof e._omitted_fields === "number" && e._omitted_fields > 0 ? `; ${e._omitted_fields} of its fields are left out` : "";
    said.push(
      `This entry is larger than the viewer reads at once (observe's largest answer, 100,000 tokens), so it was cut to fit: what is shown of it ends in "…"${omitted}. The database holds it whole: gasoline export --jsonl FILE ${kind} writes it.`,
    );
  }
  return said.length ? el("div.clipped", { role: "note" }, said.map((t) => el("p", { text: t }))) : null;
}

/** A body: JSON pretty-printed when it parses, else as captured. */
export function body(text) {
  if (text === undefined || text === null) return el("p.dim", { text: "none captured" });
  let shown = typeof text === "string" ? text : JSON.stringify(text, null, 2);
  if (typeof text === "string") {
    try {
      const t = text.trim();
      if (t.startsWith("{") || t.startsWith("[")) shown = JSON.stringify(JSON.parse(t), null, 2);
    } catch {
      // not JSON: as captured
    }
  }
  return el("pre.body", {}, longText(shown, "text"));
}

/** Renders entry `e` of `kind` into `pane`. */
export async function show(pane, kind, e, onClose) {
  const title = `${kind} #${e.id}`;
  const close = el("button.close", { type: "button", "aria-label": "Close details (Esc)", text: "×", onclick: onClose });
  const content = el("div.dcontent");
  replace(pane, el("div.dhead", {}, el("h2", { id: "detail-title", text: title }), close), content);
  pane.hidden = false;
  pane.setAttribute("aria-labelledby", "detail-title");
  const parts = [clipped(e, kind)];
  // Stored data may be of any shape: a part that cannot be shown says so, and the rest is shown.
  const part = async (name, make) => {
    try {
      parts.push(...(await make()));
    } catch (err) {
      parts.push(section(name, el("p.error", { text: `could not be shown: ${err.message}` })));
    }
  };
  if (kind === "network_waterfall") await part("Request", () => request(e));
  else if (kind === "network_bodies") await part("Captured request", () => bodies(e));
  else if (kind === "logs" || kind === "extension_logs") await part("Message", () => log(e));
  parts.push(section("Every stored field", tree(stored(e))));
  replace(content, parts);
}

function log(e) {
  const out = [
    section(
      "Message",
      el(`pre.body.lvl-${e.level}`, {}, longText(e.message || "", "text")),
      kv([
        ["level", e.level],
        ["source", e.source],
        // Deep mode: a worker's own console or uncaught error, its script in `url`.
        ["worker", e.worker],
        ["at", e.at !== e.location ? e.at : undefined],
        ["location", e.location],
        [e.worker ? "script" : "page", e.url],
        ["time", when(e.ts)],
        ["tab", e.tabId],
      ]),
    ),
  ];
  if (e.stack) out.push(section("Stack", stack(String(e.stack))));
  if (e.pageText) out.push(errorPage(e));
  if (e.original) out.push(section("In the original source (through its source map)", tree(e.original)));
  // One argument a line: `1`, `"str"` and `null` side by side would read as one ("1: str2: null").
  if (Array.isArray(e.args)) out.push(section("Arguments", el("ul.args", {}, e.args.map((a, i) => el("li", {}, tree(a, i))))));
  return out;
}

/** A stack with its cause chain ("Caused by: …", as the extension writes it) each expandable. */
function stack(text) {
  const parts = text.split(/\n(?=\s*Caused by: )/);
  const first = el("pre.body", {}, longText(parts[0], "text"));
  if (parts.length === 1) return first;
  return el(
    "div",
    {},
    first,
    parts.slice(1).map((p) => el("details.cause", { open: true }, el("summary", { text: p.trim().split("\n")[0] }), el("pre.body", {}, longText(p.replace(/^\s*[^\n]*\n?/, ""), "text")))),
  );
}

/** The text of the error page a server answered (a failed document, or a fetch's or an XHR's). */
function errorPage(e) {
  return section(`Error page's text${e.pageTextTruncated === true ? " (its start)" : ""}`, el("pre.body.page-text", {}, longText(String(e.pageText), "text")));
}

function bodies(b) {
  return [
    clipped(b, "network_bodies"),
    section("Captured request", kv([["method", b.method], ["url", b.url], ["status", b.status], ["duration", ms(b.duration)], ["error", b.error]])),
    section("Request headers", headers(b.requestHeaders)),
    section("Request body", body(b.requestBody)),
    section("Response headers", headers(b.responseHeaders)),
    section(`Response body${b.responseBodySize ? ` (${bytes(b.responseBodySize)})` : ""}`, body(b.responseBody)),
    ...(b.pageText ? [errorPage(b)] : []),
  ];
}

async function request(r) {
  const out = [];
  const failure = r.error || (r.failed ? "the request failed" : r.responseStatus >= 400 ? `HTTP ${r.responseStatus}` : "");
  if (failure) {
    // Where the page's code made it: as the agent is told (`at`), and the call site as the page saw it.
    const made = kv([
      ["made at", r.at !== r.location ? r.at : undefined],
      ["call site", r.location],
      ["called from", r.callers],
    ]);
    out.push(section("Failed", el("p.error", {}, longText(String(failure), "text")), made));
    if (r.original) out.push(section("Its call site in the original source (through its source map)", tree(r.original)));
  }
  out.push(
    section(
      "Request",
      kv([
        ["url", r.url],
        ["final url", r.finalUrl],
        ["operation", r.operation],
        ["method", r.method],
        ["status", r.responseStatus],
        ["type", r.type || r.initiatorType],
        ["protocol", r.nextHopProtocol],
        ["transferred", bytes(r.transferSize)],
        // A response a cache or a service worker answered transferred nothing: its body's size.
        ["body", bytes(r.encodedBodySize)],
        ["started", `${when(r.ts)}`],
        ["duration", ms(r.duration)],
        ["source", r.source],
        ["tab", r.tabId],
        ["DOMContentLoaded", r.domContentLoaded !== undefined ? ms(r.domContentLoaded) : undefined],
        ["load", r.load !== undefined ? ms(r.load) : undefined],
      ]),
    ),
  );
  if (r.phases) {
    out.push(
      section(
        "Timing",
        el(
          "table.kv",
          {},
          el(
            "tbody",
            {},
            phases(r).map(([name, from, to]) => {
              const swatch = el("span.swatch");
              swatch.style.background = COLORS[name];
              return el("tr", {}, el("th", { scope: "row" }, swatch, name === "stall" ? "queueing/stalled" : name), el("td", { text: `${ms(to - from)} (from ${ms(from)})` }));
            }),
          ),
        ),
      ),
    );
  }
  if (Array.isArray(r.redirects) && r.redirects.length) {
    out.push(
      section(
        `Redirects (${r.redirects.length})`,
        el(
          "ol.hops",
          {},
          r.redirects.map((h) =>
            el("li", {}, isObject(h) ? `${h.status ?? h.statusCode ?? ""} ${h.url ?? h.from ?? ""} → ${h.to ?? h.redirectUrl ?? ""}`.trim() : JSON.stringify(h)),
          ),
        ),
      ),
    );
  }
  // The bodies and headers, when a fetch/XHR of this request was captured.
  try {
    const page = await api.rows("network_bodies", { url: r.url, tabId: r.tabId, limit: 50 });
    const same = page.entries.filter((b) => b.url === r.url && (!r.method || b.method === r.method));
    const match =
      same.find((b) => r.requestId !== undefined && b.requestId === r.requestId) ||
      same.sort((a, b) => Math.abs(a.ts - r.ts) - Math.abs(b.ts - r.ts))[0];
    // A body cut to fit the page of rows it came in is read again alone, with the whole budget.
    const whole = match && match._clipped === true ? (await api.row("network_bodies", match.id)).entries[0] || match : match;
    if (whole) out.push(...bodies(whole));
    else out.push(section("Headers and bodies", el("p.dim", { text: "not captured for this request (only fetch, XHR and beacons carry them)" })));
  } catch (err) {
    out.push(section("Headers and bodies", el("p.error", { text: err.message })));
  }
  if (/^wss?:/i.test(r.url || "") || r.initiatorType === "websocket" || r.type === "websocket") out.push(await frames(r));
  return out;
}

/** How far a socket's first event may be from its row's start and still be its (a row the browser saw keeps its own clock). */
const SLACK_MS = 1000;

/**
 * The connection of a WebSocket row: its `connectionId` when the row carries one; else the socket
 * whose first event (open, or error when it never opened) has the row's URL and tab and comes
 * when the row's handshake ended: the extension ends the row and records that event at the same
 * moment (page/websocket.js), and a row starts no later than its socket's events.
 */
async function connectionOf(r) {
  if (typeof r.connectionId === "string" && r.connectionId) return r.connectionId;
  const page = await api.rows("websocket_events", { url: r.url, tabId: r.tabId, since: typeof r.ts === "number" ? Math.floor(r.ts - SLACK_MS) : undefined, limit: 500 });
  const end = (r.ts ?? 0) + (typeof r.duration === "number" && Number.isFinite(r.duration) ? r.duration : 0);
  const seen = new Set();
  let best = null;
  for (const e of page.entries) {
    if (seen.has(e.connectionId)) continue;
    seen.add(e.connectionId);
    if (e.url !== r.url || (e.event !== "open" && e.event !== "error")) continue;
    if (!best || Math.abs(e.ts - end) < Math.abs(best.ts - end)) best = e;
  }
  return best ? best.connectionId : null;
}

/** What a frame says: its data; a close's code and reason; all as text. */
function said(f) {
  if (f.event === "close") return [f.code, f.wasClean === false ? "(not clean)" : "", f.reason].filter((x) => x !== undefined && x !== null && x !== "").join(" · ");
  return String(f.data ?? f.reason ?? "");
}

/** A socket's own events: open, its messages (which carry no URL), close with its code and reason. */
async function frames(r) {
  try {
    const id = await connectionOf(r);
    if (id === null) return section("WebSocket frames", el("p.dim", { text: "none captured for this socket" }));
    const page = await api.rows("websocket_events", { connectionId: id, tabId: r.tabId, limit: 500 });
    const n = page.entries.length;
    const title = `WebSocket frames of connection ${id} (${page.total > n ? `the first ${n} of ${page.total}` : n})`;
    return section(
      title,
      el(
        "table.frames",
        {},
        el("thead", {}, el("tr", {}, ["time", "connection", "event", "direction", "data, or code and reason"].map((t) => el("th", { scope: "col", text: t })))),
        el(
          "tbody",
          {},
          page.entries.map((f) =>
            el(
              "tr",
              { "data-event": f.event },
              el("td", { text: clock(f.ts) }),
              el("td", { text: f.connectionId }),
              el("td", { text: f.event }),
              el("td", { text: f.direction || "" }),
              el("td.said", {}, longText(said(f), "text")),
            ),
          ),
        ),
      ),
    );
  } catch (err) {
    return section("WebSocket frames", el("p.error", { text: err.message }));
  }
}
