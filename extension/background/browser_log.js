// The browser's own console messages about a page, as DevTools shows them:
// what Chrome itself reports through the DevTools protocol's Log domain
// (`Log.entryAdded`), not what the page's script logs. CORS and CSP refusals,
// resources that failed to load, mixed content, interventions, deprecations.
// Measured on Chromium 156 (the deep e2e page):
//   - a CORS refusal is two entries: the explanation ("Access to fetch at … has
//     been blocked by CORS policy: …", source "javascript", category "cors",
//     url the page's) and "Failed to load resource: net::ERR_FAILED" (source
//     "network", with the request's networkRequestId and its url);
//   - a CSP refusal: "Loading the image '…' violates the following Content
//     Security Policy directive: …" (source "security", url the page's);
//   - a 404 image: "Failed to load resource: the server responded with a status
//     of 404 (Not Found)" (source "network", networkRequestId, the image's url).
// `timestamp` is in ms since the epoch (unlike the Network domain's).
// Pure: one Log entry in, one `logs` entry out.
/** DevTools' levels to the logs kind's. */
export const LEVELS = { verbose: "debug", info: "info", warning: "warn", error: "error" };
/** As a console message is cut in the page (lib/limits.js MESSAGE_CAP). */
const MESSAGE_CAP = 16 * 1024;
/** Stack frames kept (a violation or intervention may carry the page's stack). */
const STACK_FRAMES = 10;

/**
 * @param {object} entry  Log.LogEntry: {source, level, text, category?, timestamp, url?, lineNumber?, stackTrace?, networkRequestId?}
 * @returns {object} a logs entry of the fields the server declares for logs (src/kind.rs): level,
 *   message, source "browser", url, location ("url:line" when Chrome names a line), stack, ts.
 *   Chrome's own source ("network", "security", "violation"…) and category ("cors") are in the
 *   words of the message already, as DevTools shows it.
 */
export function browserLog(entry, now = Date.now) {
  const text = typeof entry.text === "string" ? entry.text : String(entry.text ?? "");
  const out = {
    level: LEVELS[entry.level] || "log",
    message: text.length > MESSAGE_CAP ? text.slice(0, MESSAGE_CAP) : text,
    source: "browser",
    url: typeof entry.url === "string" && entry.url !== "" ? entry.url : undefined,
    ts: Number.isFinite(entry.timestamp) ? Math.round(entry.timestamp) : now(),
  };
  if (text.length > MESSAGE_CAP) out.messageTruncated = true;
  // 0-based in the protocol; the page's call sites count from 1, as people do.
  if (Number.isInteger(entry.lineNumber) && out.url) out.location = `${out.url}:${entry.lineNumber + 1}`;
  const frames = entry.stackTrace && Array.isArray(entry.stackTrace.callFrames) ? entry.stackTrace.callFrames : [];
  if (frames.length) {
    out.stack = frames
      .slice(0, STACK_FRAMES)
      .map((f) => `    at ${f.functionName || "<anonymous>"} (${f.url}:${f.lineNumber + 1}:${f.columnNumber + 1})`)
      .join("\n");
  }
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out;
}
