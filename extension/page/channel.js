// The private channel to content/relay.js. The relay (isolated world, injected
// right after the page-world scripts, still before any page script) creates a
// MessageChannel and hands one port over by dispatching a synthetic
// MessageEvent on `document`, synchronously: at that moment no page script has
// run, so no page listener can exist to see or forge it, and the only listener
// is this one, which takes the first port and removes itself. From then on
// events and settings travel on the port: nothing goes through `window`, so a
// page's `message` listeners never see Gasoline traffic, and postMessage on the
// port is the original, called through a reference taken before the page ran.
//
// A port delivers in a task, and a document being unloaded (pagehide of a
// navigation) runs no more tasks: a batch posted just before the browser
// commits the next document (it does that ahead of posted messages) never
// reaches the relay, with what the page did in its last moments (the click on
// a link, the form's submit). So the relay also hands over, the same way, an
// element of its own that is in no document (`bridge`): every batch is written
// on it and an event dispatched at it, which runs the relay's listener at
// once, synchronously, before `send` returns; `sendNow` (the page's own
// pagehide) also tells the relay to send everything at once. No page script
// can reach that element or see that event. The port carries the settings to
// the page, and batches only before the bridge is there.
// Registry: reads core; adds channel.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || !G.core || G.channel) return;
  const { apply, listen, unlisten } = G.core;
  const PORT_EVENT = "gasoline:port";
  const BRIDGE_EVENT = "gasoline:bridge";
  const FLUSH_EVENT = "gasoline:flush";
  const SEND_EVENT = "gasoline:send";
  const BRIDGE_ATTRIBUTE = "data-events";
  const postMessage = MessagePort.prototype.postMessage;
  const relatedTargetOf = Object.getOwnPropertyDescriptor(FocusEvent.prototype, "relatedTarget").get;
  const setAttribute = Element.prototype.setAttribute;
  const dispatchEvent = EventTarget.prototype.dispatchEvent;
  const NativeEvent = Event;
  const portsOf = Object.getOwnPropertyDescriptor(MessageEvent.prototype, "ports").get;
  const dataOf = Object.getOwnPropertyDescriptor(MessageEvent.prototype, "data").get;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const MAX_WAITING = 100; // batches held while the relay is not there yet

  let port = null;
  let bridge = null;
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

  function onBridge(event) {
    try {
      const target = apply(relatedTargetOf, event, []);
      if (bridge || !target) return;
      event.stopImmediatePropagation();
      unlisten(document, BRIDGE_EVENT, onBridge, true);
      bridge = target;
    } catch {
      // never disturb the page
    }
  }
  listen(document, BRIDGE_EVENT, onBridge, true);

  const hasOwn = Object.prototype.hasOwnProperty;
  const ObjectProto = Object.prototype;
  const ArrayProto = Array.prototype;

  /**
   * Hands `events` to the relay through the bridge, before this returns; false where it could not.
   * Not where the page gave every object or array a `toJSON` (Prototype.js's Array#toJSON), which
   * JSON.stringify would call: the port's structured clone calls none.
   */
  function handOver(events, type) {
    if (!bridge || apply(hasOwn, ObjectProto, ["toJSON"]) || apply(hasOwn, ArrayProto, ["toJSON"])) return false;
    try {
      apply(setAttribute, bridge, [BRIDGE_ATTRIBUTE, stringify(events)]);
      apply(dispatchEvent, bridge, [new NativeEvent(type)]);
      return true;
    } catch {
      return false; // a value JSON cannot write (a BigInt): the port's structured clone takes it
    }
  }

  /** Hands a batch to the relay and has it sent at once: the document is being unloaded. */
  function sendNow(events) {
    if (!handOver(events, FLUSH_EVENT)) post(events);
  }

  /** Hands a batch of `{kind, entry}` to the relay. */
  function send(events) {
    if (!handOver(events, SEND_EVENT)) post(events);
  }

  /** Posts a batch on the port: before the bridge is there, or what the bridge could not take. */
  function post(events) {
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
    sendNow,
    sendDropped,
    onSettings(fn) {
      onSettings = fn;
    },
  };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiY2hhbm5lbC5qcyIsInNvdXJjZXMiOlsiZ2Fzb2xpbmUtZXh0ZW5zaW9uOi8vL3BhZ2UvY2hhbm5lbC5qcyJdLCJuYW1lcyI6W10sIm1hcHBpbmdzIjoiQUFBQSIsImlnbm9yZUxpc3QiOlswXSwieF9nb29nbGVfaWdub3JlTGlzdCI6WzBdfQ==
