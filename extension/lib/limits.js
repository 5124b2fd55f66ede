// Sizes that keep one captured event small, and the content types of a response that streams.
// Loaded first in the page world.
//
// Every lib/ file is a classic script, since the page world cannot load
// modules: it adds its API to globalThis.__gasoline (its "Registry:" line says
// what it reads there and what it adds; background/lib.js hands them to the
// extension's modules by name) and, under node's `require`, to module.exports
// for the unit tests.
// Registry: reads nothing; adds limits.
(function (root) {
  const limits = {
    BODY_CAP: 16 * 1024, // request and response bodies, each
    ERROR_PAGE_READ: 1024 * 1024, // the HTML of a response with an error status, read for its text
    WS_DATA_CAP: 4 * 1024, // one WebSocket message
    MESSAGE_CAP: 16 * 1024, // one console message, all arguments together
    ARG_DEPTH: 5, // nesting shown of a logged object
    ARG_KEYS: 100, // keys or items shown per object or array
    ARG_NODES: 2000, // objects visited per logged argument
    SNAPSHOT_VALUES: 200, // values of a console call's arguments copied on the call (the rest when built)
    CAUSE_DEPTH: 5, // errors shown along a cause chain / AggregateError nesting
    ERROR_MEMBERS: 10, // members of an AggregateError shown
    TABLE_ROWS: 50, // rows of a console.table shown
    TABLE_COLUMNS: 20, // columns of a console.table shown
    TABLE_CELL: 80, // characters of one table cell
    TABLE_VALUES: 1000, // values of a console.table's data copied on the call
    GROUP_DEPTH: 16, // open console.group labels kept
    LABEL_CAP: 100, // characters of a count, timer or group label
    LABELS: 1000, // count and timer labels remembered per page
    VALUE_CAP: 1024, // an input's value
    TEXT_CAP: 120, // visible text of a clicked element
    // A response that streams until it is closed (server-sent events, ndjson, a Connect server
    // stream): never read to its end from the page, and its close, in deep mode, no failure. A
    // Connect stream's end is still read for its error (page/rpc.js).
    STREAMING_TYPES: /event-stream|ndjson|jsonl|stream\+json|x-mixed-replace|connect\+/i,
  };
  if (typeof module === "object" && module.exports) module.exports = limits;
  root.__gasoline = Object.assign(root.__gasoline || {}, { limits });
})(globalThis);
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoibGltaXRzLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vbGliL2xpbWl0cy5qcyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiQUFBQSIsImlnbm9yZUxpc3QiOlswXSwieF9nb29nbGVfaWdub3JlTGlzdCI6WzBdfQ==
