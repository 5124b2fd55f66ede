// console.log/info/warn/error/debug/trace/assert → `logs`. On the page's call
// only an Error is made (its stack, the call site, is formatted later, when
// the entry is built); arguments are serialised in the outbox's time slice.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.console = function install({ core, outbox, serialize }) {
    const { apply, fill, Error } = core;
    const SOURCE_URL = "gasoline://page/console.js"; // see the end of this file
    const LEVELS = { log: "log", info: "info", warn: "warn", error: "error", debug: "debug", trace: "debug" };

    /** "file:line:col" of the first frame outside the extension. */
    function callSite(stack) {
      if (typeof stack !== "string") return undefined;
      for (const line of stack.split("\n").slice(1)) {
        if (line.includes("chrome-extension://") || line.includes(SOURCE_URL)) continue;
        const m = line.match(/\(?((?:https?|file|blob):[^\s)]+:\d+:\d+)\)?\s*$/);
        return m ? m[1] : undefined;
      }
      return undefined;
    }

    for (const method of Object.keys(LEVELS)) {
      fill(console, method, (original) => ({
        [method]() {
          try {
            const args = arguments;
            // Only the caller's frame is needed (console.trace keeps the page's whole stack):
            // capturing 3 frames instead of the default 10 halves the cost of the Error.
            const limit = Error.stackTraceLimit;
            const shorten = method !== "trace" && typeof limit === "number" && limit > 3;
            if (shorten) Error.stackTraceLimit = 3;
            const site = new Error();
            if (shorten) Error.stackTraceLimit = limit;
            outbox.emit("logs", () => {
              const msg = serialize.formatMessage(args);
              const stack = site.stack;
              const entry = { level: LEVELS[method], message: msg.text, source: "console", url: location.href };
              const where = callSite(stack);
              if (where) entry.location = where;
              const errStack = serialize.stackOf(args);
              if (errStack) entry.stack = errStack;
              if (method === "trace") entry.stack = stack;
              if (msg.truncated) Object.assign(entry, { messageTruncated: true, messageSize: msg.size });
              return entry;
            });
          } catch {
            // never let capture break logging
          }
          return apply(original, this, arguments);
        },
      })[method]);
    }

    fill(console, "assert", (original) => ({
      assert(condition) {
        try {
          if (!condition) {
            const args = Array.prototype.slice.call(arguments, 1);
            outbox.emit("logs", () => ({
              level: "error",
              message: "Assertion failed: " + serialize.formatMessage(args).text,
              source: "console",
              url: location.href,
            }));
          }
        } catch {
          // ignore
        }
        return apply(original, this, arguments);
      },
    }).assert);
  };
})();
// Named so that console messages made through the wrappers do not come from a
// chrome-extension:// script: Chromium captures and sends a full stack trace
// with every console message whose source is an extension script, which more
// than doubled the cost of each console.log.
//# sourceURL=gasoline://page/console.js
