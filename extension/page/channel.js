// The private channel to content/relay.js. The relay (isolated world, injected
// right after the page-world scripts, still before any page script) creates a
// MessageChannel and hands one port over by dispatching a synthetic
// MessageEvent on `document`, synchronously: at that moment no page script has
// run, so no page listener can exist to see or forge it, and the only listener
// is this one, which takes the first port and removes itself. From then on
// events and settings travel on the port: nothing goes through `window`, so a
// page's `message` listeners never see Gasoline traffic, and postMessage on the
// port is the original, called through a reference taken before the page ran.
// Registry: reads core; adds channel.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.core || G.channel) return;
  const { apply, listen, unlisten } = G.core;
  const PORT_EVENT = "gasoline:port";
  const postMessage = MessagePort.prototype.postMessage;
  const portsOf = Object.getOwnPropertyDescriptor(MessageEvent.prototype, "ports").get;
  const dataOf = Object.getOwnPropertyDescriptor(MessageEvent.prototype, "data").get;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const MAX_WAITING = 100; // batches held while the relay is not there yet

  let port = null;
  let onSettings = () => {};
  const waiting = [];

  function onPort(event) {
    try {
      const ports = apply(portsOf, event, []);
      if (port || !ports || !ports[0]) return;
      event.stopImmediatePropagation();
      unlisten(document, PORT_EVENT, onPort, true);
      port = ports[0];
      port.onmessage = (message) => {
        try {
          onSettings(apply(dataOf, message, []));
        } catch {
          // malformed settings: keep the defaults
        }
      };
      for (const events of waiting.splice(0)) send(events);
    } catch {
      // never disturb the page
    }
  }
  listen(document, PORT_EVENT, onPort, true);

  /** Posts a batch of `{kind, entry}` to the relay. */
  function send(events) {
    if (!port) {
      if (waiting.length < MAX_WAITING) waiting.push(events);
      return;
    }
    try {
      apply(postMessage, port, [events]);
    } catch {
      try {
        apply(postMessage, port, [parse(stringify(events))]); // something the structured clone refused
      } catch {
        // give this batch up rather than disturb the page
      }
    }
  }

  /** Counts of events lost in the page (kind → n), for the worker to report; `unbuilt`: lost because building them threw. */
  function sendDropped(counts, unbuilt = false) {
    if (!port) return;
    try {
      apply(postMessage, port, [{ dropped: counts, why: unbuilt ? "unbuilt" : "full" }]);
    } catch {
      // ignore
    }
  }

  G.channel = {
    send,
    sendDropped,
    onSettings(fn) {
      onSettings = fn;
    },
  };
})();
