// The user's settings (options page) with their defaults. Shared by the
// service worker, the options page and the popup.
import { kinds } from "./lib.js";

/** What the person can switch off, each on by default. */
export const KINDS = kinds.SWITCHABLE;
export const DEFAULTS = Object.freeze({
  serverUrl: "http://127.0.0.1:7890",
  capture: Object.freeze(Object.fromEntries(KINDS.map((k) => [k, true]))),
  redactHeaders: Object.freeze([]),
  // The person's extra keys only: the built-in ones (lib/secrets.js) always apply, so showing them
  // here would suggest that deleting them turns them off.
  redactBodyKeys: Object.freeze([]),
});

/** Stored settings completed with defaults; tolerant of anything stored. */
export function withDefaults(stored) {
  const s = stored && typeof stored === "object" ? stored : {};
  const list = (v, d) => (Array.isArray(v) ? v.map(String).filter(Boolean) : [...d]);
  return {
    serverUrl: serverUrlOf(s.serverUrl) || DEFAULTS.serverUrl,
    capture: Object.fromEntries(KINDS.map((k) => [k, !(s.capture && s.capture[k] === false)])),
    redactHeaders: list(s.redactHeaders, DEFAULTS.redactHeaders),
    redactBodyKeys: list(s.redactBodyKeys, DEFAULTS.redactBodyKeys),
  };
}

/**
 * The server URL `text` names, as stored ("http://127.0.0.1:7890/" → "http://127.0.0.1:7890"),
 * or null when it is not one `gasoline serve` answers (isLoopbackUrl, asked of `text` as it is).
 */
export function serverUrlOf(text) {
  return isLoopbackUrl(text) ? normalizeUrl(text) : null;
}

/** "http://127.0.0.1:7890/" → "http://127.0.0.1:7890"; null when not an http(s) URL. */
function normalizeUrl(url) {
  try {
    const u = new URL(String(url).trim());
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    return u.origin + u.pathname.replace(/\/+$/, "");
  } catch {
    return null;
  }
}

const EXAMPLE_URL = "http://127.0.0.1:7890";

/** `text` as a URL, or null. */
function parsed(text) {
  try {
    return new URL(String(text).trim());
  } catch {
    return null;
  }
}

/**
 * Why the URL `u` is not an address `gasoline serve` answers, or null when it is one: plain http
 * on 127.0.0.1 or localhost (it is sure to listen on 127.0.0.1; on [::1] only where the machine has
 * IPv6, so not [::1]; and it speaks no TLS),
 * with a port of its own (1–65535) and no credentials, path, query or fragment.
 */
function urlProblem(u) {
  if (u.hostname === "[::1]") {
    return `gasoline serve is sure to listen on 127.0.0.1 (on [::1] only where this machine has IPv6): use http://127.0.0.1${u.port ? `:${u.port}` : ":7890"}.`;
  }
  if (u.hostname !== "127.0.0.1" && u.hostname !== "localhost") {
    return `Captured pages go to this machine only: the URL is http://127.0.0.1 or http://localhost with a port, e.g. ${EXAMPLE_URL}.`;
  }
  if (u.protocol === "https:") return `gasoline serve speaks plain http on this machine: use http://${u.host}.`;
  if (u.protocol !== "http:") return `Use http://, e.g. ${EXAMPLE_URL}.`;
  if (u.username || u.password) return "No user name or password in the URL: gasoline serve asks for none.";
  // None given (80 is dropped as the default) or none at all.
  if (u.port === "" || u.port === "0") {
    return `Name the port gasoline serve listens on (7890 unless you chose another), e.g. ${EXAMPLE_URL}; port 80 cannot be told from none.`;
  }
  if (u.search || u.hash || u.pathname.replace(/\/+$/, "") !== "") return `Nothing after the port: http://${u.host}.`;
  return null;
}

/**
 * Whether `url` is an address `gasoline serve` answers ([urlProblem]). Asked of what the person
 * typed, before it is normalised. Captured pages go nowhere else, so any other server URL is
 * refused by the options page and ignored if stored.
 */
export function isLoopbackUrl(url) {
  const u = parsed(url);
  return u !== null && urlProblem(u) === null;
}

/**
 * Why `text` is not a server URL, said so the person can mend it; null when it is one. A missing
 * `http://` is the likeliest slip: it is suggested, not assumed.
 */
export function serverUrlProblem(text) {
  const typed = String(text || "").trim();
  const u = parsed(typed);
  if (u !== null && urlProblem(u) === null) return null;
  if (typed === "") return `Type the server's URL, e.g. ${EXAMPLE_URL} (where gasoline serve listens).`;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(typed)) {
    const suggested = `http://${typed}`;
    return isLoopbackUrl(suggested) ? `Did you mean ${normalizeUrl(suggested)}? The URL starts with http://.` : `Not a URL: start it with http://, e.g. ${EXAMPLE_URL}.`;
  }
  return u === null ? `Not a URL: e.g. ${EXAMPLE_URL}.` : urlProblem(u);
}

/** An HTTP header's name (RFC 9110's token): anything else in the list can match no header. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Why a redaction list's entries cannot be used as typed, or null: a header name that is no
 * header's (`Authorization:`), a key with a wildcard or pattern (`*`, `(.*)`: entries are plain
 * words, not patterns), a one-letter key (it would redact every key holding that word).
 */
export function listProblem(what, entries) {
  for (const entry of entries) {
    if (what === "headers" && !HEADER_NAME.test(entry)) {
      return `"${entry}" is not a header name (letters, digits and - only, no colon); nothing was saved.`;
    }
    if (what === "keys" && /[*?()[\]{}^$|\\]/.test(entry)) {
      return `"${entry}": keys are plain words, not patterns (no * or regular expressions); nothing was saved.`;
    }
    if (what === "keys" && entry.length < 2) return `"${entry}" is too short: a one-letter key would redact every key holding that letter as a word; nothing was saved.`;
  }
  return null;
}

/** "a, b\nc" → ["a", "b", "c"] */
export function splitList(text) {
  return String(text || "")
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}
