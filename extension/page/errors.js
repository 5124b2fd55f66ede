// Uncaught errors and unhandled rejections → `logs` (source "exception" and
// "unhandledrejection"). Listens only; never handles, so the page's own
// handlers and error trackers see exactly what they would without Gasoline.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.errors = function install({ core, outbox, serialize }) {
    const { listen } = core;
    listen(
      window,
      "error",
      (event) => {
        try {
          if (!(event instanceof ErrorEvent)) return; // an element that failed to load: page/resources.js
          const { error, message, filename, lineno, colno } = event;
          outbox.emit("logs", () => ({
            level: "error",
            message: error instanceof Error ? `${error.name}: ${error.message}` : String(message),
            source: "exception",
            url: location.href,
            location: filename ? `${filename}:${lineno}:${colno}` : undefined,
            stack: error && typeof error.stack === "string" ? error.stack : undefined,
          }));
        } catch {
          // ignore
        }
      },
      true,
    );
    listen(window, "unhandledrejection", (event) => {
      try {
        const reason = event.reason;
        outbox.emit("logs", () => ({
          level: "error",
          message: "Unhandled rejection: " + serialize.formatArg(reason),
          source: "unhandledrejection",
          url: location.href,
          stack: reason instanceof Error && typeof reason.stack === "string" ? reason.stack : undefined,
        }));
      } catch {
        // ignore
      }
    });
  };
})();
