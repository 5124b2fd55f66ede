// A worker's own console calls and uncaught errors, in deep mode: what the
// DevTools protocol's Runtime domain reports in a worker's session
// (`Runtime.consoleAPICalled`, `Runtime.exceptionThrown`). No page script runs
// in a worker, so without this a service worker's console is never seen, and a
// dedicated worker's reaches the tab's Log domain only as text, `console.log`
// as level "info", an object as "[object Object]" (measured on Chromium 156:
// source "worker" entries of the page's session; deep_requests.js drops those).
// Arguments come as the protocol's RemoteObjects: a primitive's value, an
// object's one-level preview (its nested objects by name, as DevTools' console
// line shows them), written by lib/format.js as the page's console entries are.
// Pure: one event in, one `logs` entry out (or nothing).
import { format, serialize, limits } from "./lib.js";

/** Console call types to the logs kind's levels (the page's console.js uses the same). */
const LEVELS = {
  log: "log",
  info: "info",
  warning: "warn",
  error: "error",
  debug: "debug",
  dir: "log",
  dirxml: "log",
  table: "log",
  trace: "debug",
  assert: "error",
  count: "log",
  timeEnd: "log",
  startGroup: "log",
  startGroupCollapsed: "log",
};
/** The console method, where it is not the level's own (as the page's entries say `method`). */
const METHODS = { dir: "dir", dirxml: "dirxml", table: "table", trace: "trace", assert: "assert", count: "count", timeEnd: "timeEnd", startGroup: "group", startGroupCollapsed: "groupCollapsed" };
/** The protocol's target types, as a logs entry's `worker` says them. */
export const WORKER_KINDS = { worker: "dedicated", shared_worker: "shared", service_worker: "service" };
const STACK_FRAMES = 10;
const { Plain, Bare, primitive, cut } = serialize;

/**
 * @param {object} p  Runtime.consoleAPICalled's params: {type, args, timestamp, stackTrace?}
 * @param {{type: string, url?: string}} worker  the session's target
 * @returns {object|undefined} a logs entry, or undefined for a call that prints nothing (groupEnd, clear, profile)
 */
export function consoleEntry(p, worker, now = Date.now) {
  const level = LEVELS[p.type];
  if (level === undefined) return undefined;
  const args = Array.isArray(p.args) ? p.args.map(valueOf) : [];
  let made = format.formatMessage(args);
  if (p.type === "assert") made = cut(made.text ? `Assertion failed: ${made.text}` : "Assertion failed", limits.MESSAGE_CAP);
  const entry = base(level, made, worker, p.timestamp, now);
  entry.source = "console";
  if (METHODS[p.type]) entry.method = METHODS[p.type];
  const frames = callFrames(p.stackTrace);
  if (frames.length) entry.location = at(frames[0]);
  if ((p.type === "trace" || p.type === "assert") && frames.length) entry.stack = stackText(frames);
  return entry;
}

/**
 * @param {object} p  Runtime.exceptionThrown's params: {timestamp, exceptionDetails: {text, url, lineNumber, columnNumber, stackTrace?, exception?}}
 * @param {{type: string, url?: string}} worker
 * @returns {object} a logs entry: "Uncaught Error: …", source "exception" ("unhandledrejection" for a promise's)
 */
export function exceptionEntry(p, worker, now = Date.now) {
  const d = p.exceptionDetails || {};
  const text = typeof d.text === "string" && d.text ? d.text : "Uncaught";
  const ex = d.exception || {};
  const description = typeof ex.description === "string" ? ex.description : ex.value !== undefined ? String(ex.value) : "";
  // An Error's description is its head line and its stack; a thrown primitive's, its value.
  const [head] = description.split("\n    at ");
  const message = head ? `${text} ${head}` : text;
  const entry = base("error", cut(message, limits.MESSAGE_CAP), worker, p.timestamp, now);
  entry.source = /\(in promise\)/.test(text) ? "unhandledrejection" : "exception";
  const frames = callFrames(d.stackTrace);
  if (frames.length) {
    entry.location = at(frames[0]);
    entry.stack = stackText(frames);
  } else if (typeof d.url === "string" && d.url && Number.isInteger(d.lineNumber)) {
    entry.location = `${d.url}:${d.lineNumber + 1}:${(d.columnNumber || 0) + 1}`;
  }
  return entry;
}

function base(level, made, worker, timestamp, now) {
  const entry = {
    level,
    message: made.text,
    url: typeof worker.url === "string" && worker.url ? worker.url : undefined,
    worker: WORKER_KINDS[worker.type],
    ts: Number.isFinite(timestamp) ? Math.round(timestamp) : now(),
  };
  if (made.truncated) Object.assign(entry, { messageTruncated: true, messageSize: made.size });
  if (entry.url === undefined) delete entry.url;
  return entry;
}

function callFrames(stackTrace) {
  return stackTrace && Array.isArray(stackTrace.callFrames) ? stackTrace.callFrames.slice(0, STACK_FRAMES) : [];
}

/** "url:line:col", counted from 1 as the page's call sites are (the protocol counts from 0). */
function at(f) {
  return `${f.url}:${(f.lineNumber || 0) + 1}:${(f.columnNumber || 0) + 1}`;
}

function stackText(frames) {
  return frames.map((f) => `    at ${f.functionName || "<anonymous>"} (${at(f)})`).join("\n");
}

/** A RemoteObject as the value lib/format.js writes: primitives as they are, objects from their preview. */
export function valueOf(r) {
  if (!r || typeof r !== "object") return undefined;
  switch (r.type) {
    case "string":
    case "boolean":
      return r.value;
    case "number":
      return "unserializableValue" in r ? Number(r.unserializableValue) : r.value;
    case "undefined":
      return undefined;
    case "object":
      if (r.subtype === "null") return null;
      if (r.subtype === "error" || r.subtype === "regexp" || r.subtype === "date" || r.subtype === "node") return String(r.description || "");
      return r.preview ? fromPreview(r.preview) : bare(r.description || "Object");
    default:
      // bigint ("1n"), symbol, function: as the protocol writes them.
      return bare(r.unserializableValue || r.description || r.type);
  }
}

/** Text written as it is where the serializer writes a logged value (not quoted as a string). */
function bare(text) {
  return new Plain(new Bare(String(text)));
}

/** An ObjectPreview (one level, its properties' values as text) as a Plain the serializer writes as it is. */
function fromPreview(preview) {
  const props = Array.isArray(preview.properties) ? preview.properties : [];
  const array = preview.subtype === "array" || preview.subtype === "typedarray";
  const out = array ? [] : {};
  for (const prop of props) {
    const value = previewValue(prop);
    if (array && /^\d+$/.test(prop.name)) out.push(value);
    else if (!array) out[prop.name] = value;
  }
  if (Array.isArray(preview.entries) && preview.entries.length) {
    // A Map's or Set's entries: DevTools shows them as `{key => value}`.
    out[array ? out.length : "[[Entries]]"] = preview.entries.map((e) => (e.key ? `${previewText(e.key)} => ${previewText(e.value)}` : previewText(e.value)));
  }
  if (preview.overflow) {
    if (array) out.push(new Bare("…"));
    else out["…"] = new Bare("…");
  }
  const name = typeof preview.description === "string" && !array && preview.description !== "Object" ? preview.description : undefined;
  return new Plain(out, name);
}

/** A preview property's value: the primitive it holds, or a nested object by name (`Array(2)`, `{…}`). */
function previewValue(prop) {
  switch (prop.type) {
    case "string":
      return prop.value;
    case "number":
      return primitive(Number(prop.value));
    case "boolean":
      return prop.value === "true";
    case "undefined":
      return primitive(undefined);
    case "object":
      if (prop.subtype === "null") return null;
      return new Bare(prop.value === "Object" ? "{…}" : String(prop.value ?? "{…}"));
    default:
      return new Bare(String(prop.value ?? prop.type));
  }
}

function previewText(p) {
  if (!p) return "";
  return typeof p.description === "string" ? p.description : String(p.type);
}
