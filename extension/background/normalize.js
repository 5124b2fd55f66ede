// Makes every entry acceptable to the server before it is queued, so that one
// odd event can never get a whole batch refused: required fields present and
// of the right type, enumerations within their values. Mirrors the kinds in
// the server's src/kind.rs.
const LEVELS = ["debug", "log", "info", "warn", "error"];
const WS_EVENTS = ["open", "message", "close", "error"];
const DIRECTIONS = ["incoming", "outgoing"];

const text = (v, fallback = "") => (typeof v === "string" ? v : v === undefined || v === null ? fallback : String(v));
const int = (v) => (typeof v === "number" && Number.isFinite(v) ? Math.round(v) : undefined);
const num = (v) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const oneOf = (v, allowed, fallback) => (allowed.includes(v) ? v : fallback);
// The SGR sequences a terminal colours text with (`ESC[31m`, `ESC[0m`).
const ANSI_COLOURS = /\u001b\[[0-9;]*m/g;

const FIX = {
  logs(e) {
    e.level = oneOf(e.level, LEVELS, "log");
    e.message = text(e.message);
    // A terminal's colours (Nuxt replays its server's log lines in the page with them): text only.
    if (e.message.includes("\u001b[")) e.message = e.message.replace(ANSI_COLOURS, "");
  },
  extension_logs(e) {
    FIX.logs(e);
  },
  network_waterfall(e) {
    e.url = text(e.url);
    e.responseStatus = int(e.responseStatus);
    e.duration = num(e.duration);
    if (e.initiatorType !== undefined) e.initiatorType = text(e.initiatorType);
    // No method (null) where the page knows only the timing: not an empty one.
    if (e.method !== undefined && e.method !== null) e.method = text(e.method).toUpperCase();
    if (e.error !== undefined) e.error = text(e.error);
  },
  network_bodies(e) {
    e.method = text(e.method, "GET").toUpperCase();
    e.url = text(e.url);
    e.status = int(e.status);
    e.duration = num(e.duration);
  },
  websocket_events(e) {
    e.connectionId = text(e.connectionId, "unknown");
    e.event = oneOf(e.event, WS_EVENTS, "error");
    if (e.event === "message") e.direction = oneOf(e.direction, DIRECTIONS, "incoming");
    else if (e.direction !== undefined) e.direction = oneOf(e.direction, DIRECTIONS, undefined);
    if (e.url !== undefined) e.url = text(e.url);
  },
  actions(e) {
    e.type = text(e.type, "unknown");
    if (e.selector !== undefined) e.selector = text(e.selector);
    if (e.url !== undefined) e.url = text(e.url);
  },
  tabs(e) {
    e.url = text(e.url);
    e.title = text(e.title);
  },
  vitals(e) {
    for (const k of ["lcp", "cls", "inp", "fcp", "ttfb"]) e[k] = num(e[k]) === undefined ? null : e[k];
    e.url = text(e.url);
    e.started = int(e.started);
  },
};

/** A fixed copy of `entry` for `kind` with `tabId` set; null for an unknown kind. */
export function normalize(kind, entry, tabId) {
  const fix = FIX[kind];
  if (!fix || !entry || typeof entry !== "object" || Array.isArray(entry)) return null;
  const e = Object.assign({}, entry);
  fix(e);
  e.tabId = Number.isInteger(tabId) ? tabId : null;
  e.ts = int(e.ts) !== undefined ? int(e.ts) : Date.now();
  for (const key of Object.keys(e)) if (e[key] === undefined) delete e[key];
  return e;
}

export const KINDS = Object.keys(FIX);
