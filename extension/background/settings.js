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

/**
 * Whether `url` is an address `gasoline serve` answers: plain http on
 * 127.0.0.1 or localhost (it listens on 127.0.0.1 alone, so not [::1], and
 * speaks no TLS), with a port of its own (1–65535) and no credentials, path,
 * query or fragment. Asked of what the person typed, before it is normalised.
 * Captured pages go nowhere else, so any other server URL is refused by the
 * options page and ignored if stored.
 */
export function isLoopbackUrl(url) {
  try {
    const u = new URL(String(url).trim());
    if (u.protocol !== "http:" || u.username || u.password || u.search || u.hash) return false;
    if (u.pathname.replace(/\/+$/, "") !== "") return false;
    if (u.port === "" || u.port === "0") return false; // none given (80 is dropped as the default) or none at all
    return u.hostname === "127.0.0.1" || u.hostname === "localhost";
  } catch {
    return false;
  }
}

/** "a, b\nc" → ["a", "b", "c"] */
export function splitList(text) {
  return String(text || "")
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}
