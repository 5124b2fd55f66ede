// Uncaught errors and unhandled rejections → `logs` (source "exception" and
// "unhandledrejection"). Listens only; never handles, so the page's own
// handlers and error trackers see exactly what they would without Gasoline.
// One the page handled itself (its listener called preventDefault, as Angular's
// global error listeners do before logging it through console.error) is left
// out, as DevTools prints no "Uncaught" line for it: the page's own log is the entry.
// An Error's `cause` chain and an AggregateError's members are kept: their
// head lines in `message`, their stacks in `stack` (lib/causes.js).
// Qwik's loader catches what an event handler (`onClick$`) throws and dispatches
// it as a `qerror` event on the document, logging nothing: to the developer it
// is an uncaught error all the same (Vite's overlay shows it), and stored as one.
// A dedicated worker's uncaught error reaches the page's window after its Worker heard it:
// workers.js notes it there (`workerErrors.heard`), and its entry here says it was the worker's.
// Registry: reads sources, causes, snapshot, callsite, core, outbox, serialize, limits, consumed; adds workerErrors, sources.errors.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.sources) return;

  // The last uncaught error a dedicated worker reported at its Worker, until the window hears it.
  let heard;
  G.workerErrors = {
    heard(e) {
      heard = { message: e.message, filename: e.filename, lineno: e.lineno, colno: e.colno };
    },
  };
  /** Whether the window's error event is the one a worker reported just before; forgets it either way. */
  function fromWorker(e) {
    const w = heard;
    heard = undefined;
    return w !== undefined && w.message === e.message && w.filename === e.filename && w.lineno === e.lineno && w.colno === e.colno;
  }

  G.sources.errors = function install({ core, outbox, serialize, limits }) {
    const { listen } = core;
    const { causes, snapshot, callsite } = G; // lib/ files the sources' context does not carry
    const { cut } = serialize;

    /** {message, stack} of a thrown or rejected Error: heads of the whole chain, stacks of the whole chain. */
    function described(error) {
      return {
        message: causes.describeError(error, { stacks: false, describe: serialize.formatArg }),
        stack: causes.describeError(error, { stacks: true, describe: serialize.formatArg }),
      };
    }

    /** `entry` with its message and stack cut to MESSAGE_CAP. */
    function bounded(entry) {
      const msg = cut(entry.message, limits.MESSAGE_CAP);
      entry.message = msg.text;
      if (msg.truncated) Object.assign(entry, { messageTruncated: true, messageSize: msg.size });
      if (typeof entry.stack === "string") entry.stack = cut(entry.stack, limits.MESSAGE_CAP).text;
      return entry;
    }

    /**
     * What was thrown, copied now unless it is an Error (read when the entry is built); `unreadable`
     * says why when even asking what it is throws (a revoked Proxy, a Proxy whose traps throw).
     */
    function copied(value) {
      try {
        return { copy: value instanceof Error || value === undefined || value === null ? null : snapshot.take([value]) };
      } catch (e) {
        let why;
        try {
          why = String(e && e.message);
        } catch {
          why = "unknown";
        }
        return { copy: null, unreadable: `[unserialisable: ${why}]` };
      }
    }

    /** The page's first frame of an Error's stack ("url:line:col"), or undefined. */
    function thrownAt(error) {
      try {
        return callsite.callSites(error.stack, 1)[0];
      } catch {
        return undefined; // a stack getter that throws
      }
    }
    const thrownAtIfError = (thrown) => (thrown instanceof Error ? thrownAt(thrown) : undefined);

    /**
     * Whether an Error was thrown by a built-in (`at JSON.parse (<anonymous>)` first): the browser
     * then places the uncaught error nowhere the page wrote (a JSON.parse SyntaxError at the page's
     * URL, line 1, the column of the bad character in the JSON it read).
     */
    function thrownByBuiltIn(error) {
      try {
        const first = String(error.stack).split("\n").find((line) => line.trimStart().startsWith("at "));
        return first !== undefined && !callsite.frameLocation(first);
      } catch {
        return false; // a stack getter that throws
      }
    }
    const asIs = (text) => text;

    /**
     * Emits the error entry of `value`, thrown or rejected: copied now unless it is an Error, built
     * later, and not at all if `event` was handled (`preventDefault`) by then. `plain(value)`: the
     * message of a value that is no Error; `unreadable(why)`: of one that cannot be read;
     * `where(value)`: its location; `prefix` begins the message.
     */
    function emitThrown(value, event, { source, plain, unreadable: said = asIs, where = thrownAtIfError, prefix = "", worker }) {
      const { copy, unreadable } = copied(value);
      const url = location.href; // where the page was when it happened: the entry is built later
      outbox.emit("logs", () => {
        if (event && event.defaultPrevented) return null; // built after every listener ran: the page handled it
        const thrown = copy ? snapshot.values(copy)[0] : value;
        const entry = unreadable ? { message: said(unreadable) } : thrown instanceof Error ? described(thrown) : { message: plain(thrown) };
        entry.message = prefix + entry.message;
        const at = unreadable ? where(undefined) : where(thrown);
        // A body read as JSON that was none (an HTML page answered to an API call): which response.
        const jsonFrom = !unreadable && G.consumed ? G.consumed.jsonFrom(thrown) : undefined;
        return bounded(Object.assign(entry, { level: "error", source, url, location: at }, jsonFrom ? { jsonFrom } : undefined, worker ? { worker } : undefined));
      }, true);
    }

    // What the browser tells of an error thrown by a script of another origin that was loaded
    // without CORS (a Module Federation remote's chunks, a CDN's script): "Script error.", with no
    // error, file or line. It says why, and how to see the error, which nothing else will.
    const MUTED = "Script error.";
    const MUTED_WHY =
      " (the browser hides what a script of another origin threw, and its unhandled rejections, unless that script is loaded with the crossorigin attribute from a server answering Access-Control-Allow-Origin; for a webpack build's chunks of another origin, output.crossOriginLoading = \"anonymous\")";
    /** The browser's message of an error event that carries no error. */
    function said(message, filename) {
      const text = String(message);
      return text === MUTED && !filename ? text + MUTED_WHY : text;
    }

    listen(
      window,
      "error",
      (event) => {
        try {
          if (!(event instanceof ErrorEvent)) return; // an element that failed to load: page/resources.js
          const { error, message, filename, lineno, colno } = event;
          // A dedicated worker's (workers.js heard it first): the browser gives the page its
          // message and place, not its stack.
          const worker = fromWorker(event) ? "dedicated" : undefined;
          // A thrown non-Error (`throw {code: 1}`) is copied now, as console arguments are. A value
          // that cannot even be asked what it is (a revoked Proxy) is told by the browser's message.
          emitThrown(error, event, {
            source: "exception",
            worker,
            plain: (thrown) => (thrown === undefined || thrown === null ? said(message, filename) : `Uncaught ${serialize.formatArg(thrown)}`),
            unreadable: (why) => `${String(message)} ${why}`,
            // The browser's place, unless a built-in threw: then the page's first frame, as DevTools
            // links it (an `es.onmessage` that called JSON.parse).
            where: (thrown) =>
              (thrown instanceof Error && thrownByBuiltIn(thrown) && thrownAt(thrown)) || (filename ? `${filename}:${lineno}:${colno}` : undefined),
          });
        } catch {
          // ignore
        }
      },
      true,
    );

    listen(document, "qerror", (event) => {
      try {
        const detail = event.detail;
        // A handler's module that failed to load is logged by qwikloader itself (console.error).
        if (!detail || typeof detail !== "object" || detail.importError) return;
        emitThrown(detail.error, null, { source: "exception", plain: (thrown) => `Uncaught ${serialize.formatArg(thrown)}` });
      } catch {
        // ignore
      }
    });

    listen(window, "unhandledrejection", (event) => {
      try {
        // Where the rejected Error was made, as DevTools places an "Uncaught (in promise)".
        emitThrown(event.reason, event, { source: "unhandledrejection", plain: serialize.formatArg, prefix: "Unhandled rejection: " });
      } catch {
        // ignore
      }
    });
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiZXJyb3JzLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9lcnJvcnMuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
