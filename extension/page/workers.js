// Workers the page starts: the request for a dedicated worker's script as a
// waterfall row (`initiatorType: "worker"`), joined with its Resource Timing as
// a fetch's is, and failed when the worker could not start (the browser fires a
// plain `error` event at the Worker: its script could not be loaded, or a module
// worker's could not be run). A shared worker's script is fetched by the shared
// worker itself, which the page's timing does not show: it has a row only when
// it did not start. A worker's own requests run in its own global, where nothing
// of ours is: only deep mode sees them, and the summary says so of a page that
// started workers (these rows are how it knows). A blob: or data: worker fetched
// nothing: no row. The constructors are replaced as WebSocket's are
// (core.wrapConstructor). A dedicated worker's uncaught error, which the browser reports at the
// Worker and then at the page's window, is noted for errors.js to say whose it was.
// Registry: reads sources, core, bodies, requests, workerErrors; adds sources.workers.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  G.sources.workers = function install({ core, bodies, requests }) {
    const { listen, later, wrapConstructor } = core;
    const NativeErrorEvent = globalThis.ErrorEvent;
    const NETWORK = /^https?:/i;
    const NOT_STARTED = "the worker did not start: its script could not be loaded or run";
    // Longest a dedicated worker's row waits for its timing or its error: then it goes as it is.
    const WAIT_MS = 10000;

    /** Whether an `error` event at a worker says it did not start (an ErrorEvent is an uncaught error of one running: errors.js). */
    const notStarted = (e) => !(typeof NativeErrorEvent === "function" && e instanceof NativeErrorEvent);

    function scriptOf(args) {
      const url = bodies.absoluteUrl(String(args[0]));
      return typeof url === "string" && NETWORK.test(url) ? url : undefined;
    }

    function dedicated(worker, args) {
      const url = scriptOf(args);
      if (!url) return;
      const request = requests.start("GET", url, "worker");
      listen(worker, "error", (e) => {
        if (notStarted(e)) requests.end(request, { failed: true, error: requests.failure(NOT_STARTED) });
        // An uncaught error of the worker, which the browser reports next at the page's window,
        // where errors.js takes it: noted, so that its entry says it was the worker's.
        else if (G.workerErrors) G.workerErrors.heard(e);
      });
      later(() => requests.end(request), WAIT_MS);
    }

    function shared(worker, args) {
      const url = scriptOf(args);
      if (!url) return;
      listen(worker, "error", (e) => {
        if (notStarted(e)) requests.end(requests.start("GET", url, "worker"), { failed: true, error: requests.failure(NOT_STARTED) });
      });
    }

    wrapConstructor("Worker", dedicated);
    wrapConstructor("SharedWorker", shared);
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoid29ya2Vycy5qcyIsInNvdXJjZXMiOlsiZ2Fzb2xpbmUtZXh0ZW5zaW9uOi8vL3BhZ2Uvd29ya2Vycy5qcyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiQUFBQSIsImlnbm9yZUxpc3QiOlswXSwieF9nb29nbGVfaWdub3JlTGlzdCI6WzBdfQ==
