// Sizes that keep one captured event small. Loaded first in the page world;
// also `require`d by the unit tests, hence the export guard at the bottom of
// every lib/ file.
(function (root) {
  const limits = {
    BODY_CAP: 16 * 1024, // request and response bodies, each
    WS_DATA_CAP: 4 * 1024, // one WebSocket message
    MESSAGE_CAP: 16 * 1024, // one console message, all arguments together
    ARG_DEPTH: 5, // nesting shown of a logged object
    ARG_KEYS: 100, // keys or items shown per object or array
    ARG_NODES: 2000, // objects visited per logged argument
    VALUE_CAP: 1024, // an input's value
    TEXT_CAP: 120, // visible text of a clicked element
  };
  if (typeof module === "object" && module.exports) module.exports = limits;
  else root.__gasoline = Object.assign(root.__gasoline || {}, { limits });
})(globalThis);
