// The page sources of server-sent events, beacons, CSP violations and failed
// element loads, run in node over stand-ins for the browser's classes: the
// real page/core.js wraps a stand-in EventSource and Navigator as it wraps the
// browser's, and the outbox here builds and redacts each entry at once, as
// page/outbox.js does in its slice. The browser's own classes are checked by
// the e2e run (test/e2e/sources.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const limits = require("../../lib/limits.js");
const serialize = require("../../lib/serialize.js");
const redact = require("../../lib/redact.js");
const selector = require("../../lib/selector.js");

// ---- stand-ins for the browser ------------------------------------------------
const CONNECTING = 0;
const CLOSED = 2;
class EventSource extends EventTarget {
  #url;
  #state = CONNECTING;
  constructor(url) {
    super();
    this.#url = new URL(url, "http://app.test/").href;
  }
  get url() {
    return this.#url;
  }
  get readyState() {
    return this.#state;
  }
  close() {
    this.#state = CLOSED;
  }
  fail(state) {
    this.#state = state;
    this.dispatchEvent(new Event("error"));
  }
}
Object.assign(EventSource, { CONNECTING, OPEN: 1, CLOSED });
globalThis.EventSource = EventSource;
const OriginalEventSource = EventSource;
const originalClose = EventSource.prototype.close;
const originalAddEventListener = EventTarget.prototype.addEventListener;

const beacons = [];
class Navigator {
  sendBeacon(url, data) {
    const href = new URL(url, document.baseURI).href; // throws a TypeError for a bad URL, as the browser does
    beacons.push({ href, data });
    return !(typeof data === "string" && data.length > 64 * 1024);
  }
}
const originalSendBeacon = Navigator.prototype.sendBeacon;
let visibility = "visible";
class Document {
  get visibilityState() {
    return visibility;
  }
}
globalThis.Navigator = Navigator;
globalThis.Document = Document;
globalThis.document = Object.assign(Object.create(Document.prototype), { baseURI: "http://app.test/shop/" });
globalThis.window = globalThis;
globalThis.location = { href: "http://app.test/shop/cart?session=S-page-session" };

// ---- the page world: real core and bodies, an outbox that builds at once ------------
const emitted = [];
let flushes = 0;
const outbox = {
  emit(kind, build) {
    const entry = build();
    redact.redactEntry(kind, entry);
    emitted.push({ kind, entry });
  },
  flushAll() {
    flushes++;
  },
};
globalThis.__gasoline = { limits, serialize, redact, selector, callsite: require("../../lib/callsite.js") };
require("../../page/core.js");
require("../../page/bodies.js");
globalThis.__gasoline.outbox = outbox;
require("../../page/requests.js");
for (const file of ["eventsource", "beacon", "csp", "resources"]) require(`../../page/${file}.js`);
const G = globalThis.__gasoline;
delete globalThis.__gasoline;
const context = { core: G.core, outbox, bodies: G.bodies, limits, serialize, selector, redact, requests: G.requests };
G.sources.eventsource(context);
G.sources.beacon(context);

// csp.js and resources.js only listen: their handlers are called here with the events' fields.
const handlers = {};
// A stand-in for the browser's Trusted Types factory, whose createPolicy csp.js wraps.
class TrustedTypePolicyFactory {
  createPolicy(name, options) {
    if (name === "refused") throw new TypeError("Failed to execute 'createPolicy' on 'TrustedTypePolicyFactory'");
    return { name, options };
  }
}
const nativeCreatePolicy = TrustedTypePolicyFactory.prototype.createPolicy;
globalThis.TrustedTypePolicyFactory = TrustedTypePolicyFactory;
const listening = { ...context, core: { ...G.core, listen: (target, type, fn) => (handlers[type] = fn) } };
G.sources.csp(listening);
G.sources.resources(listening);

const take = () => emitted.splice(0).map((e) => e.entry);
const nativeText = Function.prototype.toString;

// ---- EventSource -----------------------------------------------------------------
test("the EventSource wrapper is invisible: identity, statics, toString, subclasses, errors", () => {
  assert.notEqual(globalThis.EventSource, OriginalEventSource, "replaced");
  const W = globalThis.EventSource;
  const es = new W("/sse");
  assert.ok(es instanceof W && es instanceof OriginalEventSource && es instanceof EventTarget);
  assert.equal(es.constructor, W);
  assert.equal(Object.getPrototypeOf(es), W.prototype);
  assert.equal(W.prototype, OriginalEventSource.prototype);
  assert.equal(W.name, "EventSource");
  assert.equal(W.length, 1);
  assert.equal(W.CLOSED, 2);
  assert.equal(nativeText.call(W), nativeText.call(OriginalEventSource), "toString is the original's");
  assert.notEqual(W.prototype.close, originalClose, "close() is wrapped");
  assert.equal(String(W.prototype.close), nativeText.call(originalClose));
  assert.equal(nativeText.call(EventTarget.prototype.addEventListener), nativeText.call(originalAddEventListener));
  assert.throws(() => W("/sse"), TypeError, "without new: the original's TypeError");
  assert.throws(() => new W("http://[bad"), TypeError, "a bad URL: the original's error");
  class Mine extends W {}
  const mine = new Mine("/sub");
  assert.ok(mine instanceof Mine && mine.constructor === Mine);
  take();
});

test("EventSource messages, named events, errors and close() are recorded; the page's listeners still get theirs", () => {
  const W = globalThis.EventSource;
  const es = new W("/sse?access_token=S-sse-url");
  const seen = [];
  es.addEventListener("message", (e) => seen.push(["message", e.data]));
  es.addEventListener("update", (e) => seen.push(["update", e.data]));
  es.addEventListener("update", (e) => seen.push(["second update listener", e.lastEventId]));
  es.dispatchEvent(new Event("open"));
  es.dispatchEvent(new MessageEvent("message", { data: "hello", lastEventId: "1" }));
  es.dispatchEvent(new MessageEvent("update", { data: '{"password":"S-sse-pass","n":2}', lastEventId: "2" }));
  es.dispatchEvent(new MessageEvent("unheard", { data: "nobody listens" }));
  es.dispatchEvent(new MessageEvent("message", { data: "x".repeat(limits.WS_DATA_CAP + 10) }));
  es.fail(CONNECTING);
  es.close();
  es.close();
  assert.deepEqual(seen.slice(0, 3), [
    ["message", "hello"],
    ["update", '{"password":"S-sse-pass","n":2}'],
    ["second update listener", "2"],
  ]);
  const entries = take();
  const id = entries[0].connectionId;
  assert.ok(entries.every((e) => e.connectionId === id && e.transport === "eventsource"));
  assert.ok(entries.every((e) => e.url === "http://app.test/sse?access_token=[redacted]"), "absolute and redacted");
  const strip = ({ connectionId, url, transport, ...rest }) => rest;
  const { data, ...long } = strip(entries[3]);
  assert.ok(data === "x".repeat(limits.WS_DATA_CAP), "cut at the frame cap");
  assert.deepEqual(long, {
    event: "message",
    direction: "incoming",
    eventType: "message",
    size: limits.WS_DATA_CAP + 10,
    truncated: true,
    redacted: ["url.access_token"],
  });
  assert.deepEqual(
    entries.map((e) => [e.event, e.eventType, e.lastEventId, e.event === "message" ? e.data.slice(0, 40) : e.readyState]),
    [
      ["open", undefined, undefined, undefined],
      ["message", "message", "1", "hello"],
      ["message", "update", "2", '{"password":"[redacted]","n":2}'],
      ["message", "message", undefined, "x".repeat(40)],
      ["error", undefined, undefined, "connecting"],
      ["close", undefined, undefined, undefined],
    ],
  );
  assert.equal(entries[4].reconnecting, true);
  assert.equal(entries[5].reason, "closed by the page");
  assert.ok(entries[2].redacted.includes("data.password"), "the payload is redacted like a WebSocket frame");
});

test("an EventSource the browser gave up on reports readyState closed; ids are unique per connection", () => {
  const W = globalThis.EventSource;
  const a = new W("/missing");
  const b = new W("/other");
  a.fail(CLOSED);
  a.close(); // already closed: no close entry
  const entries = take();
  assert.equal(entries.length, 1);
  assert.equal(entries[0].event, "error");
  assert.equal(entries[0].readyState, "closed");
  assert.equal(entries[0].reconnecting, false);
  b.dispatchEvent(new Event("open"));
  assert.notEqual(take()[0].connectionId, entries[0].connectionId);
});

// ---- sendBeacon ---------------------------------------------------------------------
test("sendBeacon keeps its face and its return value; an invalid URL throws the browser's error, recording nothing", () => {
  const send = Navigator.prototype.sendBeacon;
  assert.notEqual(send, originalSendBeacon);
  assert.equal(nativeText.call(send), nativeText.call(originalSendBeacon));
  assert.equal(send.name, "sendBeacon");
  assert.equal(send.length, 2);
  assert.throws(() => new Navigator().sendBeacon("http://[bad", "x"), TypeError);
  assert.deepEqual(take(), []);
});

test("beacon payloads are recorded like request bodies, bounded and redacted, with the URL absolute", async () => {
  const nav = new Navigator();
  beacons.length = 0;
  assert.equal(nav.sendBeacon("collect?sig=S-beacon-sig", "password=S-beacon-pass&ok=1"), true);
  assert.equal(nav.sendBeacon("/big", "y".repeat(70 * 1024)), false);
  nav.sendBeacon("/form", new URLSearchParams({ token: "S-beacon-form", a: "1" }));
  const fd = new FormData();
  fd.append("user[password]", "S-beacon-fd");
  fd.append("name", "ann");
  nav.sendBeacon("/fd", fd);
  nav.sendBeacon("/bin", new ArrayBuffer(100));
  nav.sendBeacon("/empty");
  assert.equal(beacons.length, 6, "every beacon reached the browser");
  const sync = take();
  assert.deepEqual(
    sync.map((e) => [e.method, e.initiator, e.url, e.queued, e.requestBody && e.requestBody.slice(0, 30)]),
    [
      ["POST", "beacon", "http://app.test/shop/collect?sig=[redacted]", true, "password=[redacted]&ok=1"],
      ["POST", "beacon", "http://app.test/big", false, "y".repeat(30)],
      ["POST", "beacon", "http://app.test/form", true, "token=[redacted]&a=1"],
      ["POST", "beacon", "http://app.test/fd", true, "user%5Bpassword%5D=[redacted]&"],
      ["POST", "beacon", "http://app.test/bin", true, "[binary 100 bytes]"],
      ["POST", "beacon", "http://app.test/empty", true, undefined],
    ],
  );
  assert.equal(sync[1].requestBody.length, limits.BODY_CAP, "cut at the body cap");
  assert.equal(sync[1].requestBodyTruncated, true);
  assert.equal(sync[1].requestBodySize, 70 * 1024);
  assert.ok(sync.every((e) => typeof e.ts === "number"));

  // A Blob is sliced to the cap and read later, never on the page's call.
  const json = JSON.stringify({ access_token: "S-beacon-blob", pad: "z".repeat(2 * limits.BODY_CAP) });
  nav.sendBeacon("/blob", new Blob([json], { type: "application/json" }));
  nav.sendBeacon("/img", new Blob([new Uint8Array(5)], { type: "image/png" }));
  const now = take();
  assert.deepEqual(now.map((e) => [e.url, e.requestBody]), [["http://app.test/img", "[Blob 5 bytes image/png]"]]);
  await new Promise((r) => setTimeout(r, 20));
  const [blob] = take();
  assert.equal(blob.url, "http://app.test/blob");
  assert.equal(blob.requestBodyTruncated, true);
  assert.equal(blob.requestBodySize, json.length);
  assert.ok(blob.requestBody.startsWith('{"access_token":"[redacted]"'), blob.requestBody.slice(0, 60));
});

test("a beacon sent while the page is hidden is flushed at once", () => {
  const before = flushes;
  new Navigator().sendBeacon("/visible", "a=1");
  assert.equal(flushes, before);
  visibility = "hidden";
  new Navigator().sendBeacon("/bye", "a=1");
  visibility = "visible";
  assert.equal(flushes, before + 1);
  assert.deepEqual(take().map((e) => e.url), ["http://app.test/visible", "http://app.test/bye"]);
});

// ---- CSP violations --------------------------------------------------------------------
const POLICY = "default-src 'self'; script-src 'self' 'nonce-abc'; img-src 'none'";
const violation = (fields) => ({
  blockedURI: "",
  violatedDirective: fields.effectiveDirective,
  originalPolicy: POLICY,
  disposition: "enforce",
  sourceFile: "",
  lineNumber: 0,
  columnNumber: 0,
  sample: "",
  ...fields,
});

test("CSP violations become logs worded as Chrome's console words them", () => {
  const cases = [
    [
      { blockedURI: "inline", effectiveDirective: "script-src-elem", sourceFile: "http://app.test/shop/", lineNumber: 12, columnNumber: 5 },
      "error",
      `Refused to execute inline script because it violates the following Content Security Policy directive: "script-src 'self' 'nonce-abc'". Either the 'unsafe-inline' keyword, a hash ('sha256-...'), or a nonce ('nonce-...') is required to enable inline execution. Note also that 'script-src-elem' was not explicitly set, so 'script-src' is used as a fallback.`,
    ],
    [
      { blockedURI: "http://cdn.test/x.js", effectiveDirective: "script-src-elem" },
      "error",
      `Refused to load the script 'http://cdn.test/x.js' because it violates the following Content Security Policy directive: "script-src 'self' 'nonce-abc'". Note that 'script-src-elem' was not explicitly set, so 'script-src' is used as a fallback.`,
    ],
    [
      { blockedURI: "http://cdn.test/a.png", effectiveDirective: "img-src", disposition: "report" },
      "warn",
      `[Report Only] Refused to load the image 'http://cdn.test/a.png' because it violates the following Content Security Policy directive: "img-src 'none'".`,
    ],
    [
      { blockedURI: "http://api.test/", effectiveDirective: "connect-src" },
      "error",
      `Refused to connect to 'http://api.test/' because it violates the following Content Security Policy directive: "default-src 'self'". Note that 'connect-src' was not explicitly set, so 'default-src' is used as a fallback.`,
    ],
    [
      { blockedURI: "eval", effectiveDirective: "script-src" },
      "error",
      `Refused to evaluate a string as JavaScript because 'unsafe-eval' is not an allowed source of script in the following Content Security Policy directive: "script-src 'self' 'nonce-abc'".`,
    ],
    [
      { blockedURI: "inline", effectiveDirective: "style-src-attr" },
      "error",
      `Refused to apply inline style because it violates the following Content Security Policy directive: "default-src 'self'". Either the 'unsafe-inline' keyword, a hash ('sha256-...'), or a nonce ('nonce-...') is required to enable inline execution. Note also that 'style-src-attr' was not explicitly set, so 'default-src' is used as a fallback.`,
    ],
    [
      { blockedURI: "trusted-types-sink", effectiveDirective: "require-trusted-types-for", sample: "Element innerHTML|<i>raw</i>" },
      "error",
      "This document requires 'TrustedHTML' assignment. The action has been blocked.",
    ],
    [
      { blockedURI: "trusted-types-sink", effectiveDirective: "require-trusted-types-for", sample: "eval|1" },
      "error",
      "This document requires 'TrustedScript' assignment. The action has been blocked.",
    ],
    [
      { blockedURI: "trusted-types-sink", effectiveDirective: "require-trusted-types-for", sample: "HTMLScriptElement src|/x.js", disposition: "report" },
      "warn",
      "[Report Only] This document requires 'TrustedScriptURL' assignment.",
    ],
    [
      { blockedURI: "trusted-types-policy", effectiveDirective: "trusted-types", sample: "other", originalPolicy: "trusted-types app" },
      "error",
      `Refused to create a TrustedTypePolicy named 'other' because it violates the following Content Security Policy directive: "trusted-types app".`,
    ],
    [
      { blockedURI: "http://evil.test/post", effectiveDirective: "form-action", originalPolicy: "form-action 'self'" },
      "error",
      `Refused to send form data to 'http://evil.test/post' because it violates the following Content Security Policy directive: "form-action 'self'".`,
    ],
  ];
  for (const [fields, level, message] of cases) {
    handlers.securitypolicyviolation(violation(fields));
    const [e] = take();
    assert.equal(e.message, message);
    assert.equal(e.level, level);
    assert.equal(e.source, "csp");
    assert.equal(e.effectiveDirective, fields.effectiveDirective);
    assert.equal(e.disposition, fields.disposition || "enforce");
  }
});

test("a Trusted Types message says, as Chrome's does, why the page's 'default' policy made no value", () => {
  const factory = new TrustedTypePolicyFactory();
  const wrapped = TrustedTypePolicyFactory.prototype.createPolicy;
  assert.notEqual(wrapped, nativeCreatePolicy, "createPolicy is wrapped");
  assert.equal(Function.prototype.toString.call(wrapped), nativeText.call(nativeCreatePolicy), "its toString is the original's");
  assert.equal(wrapped.name, "createPolicy");
  assert.equal(wrapped.length, 2);
  assert.throws(() => factory.createPolicy("refused", {}), /Failed to execute 'createPolicy'/, "a refusal is the browser's own error");
  const app = factory.createPolicy("app", { createHTML: (s) => s });
  assert.equal(app.name, "app", "the policy made is the browser's");
  const sink = (sample) => ({ blockedURI: "trusted-types-sink", effectiveDirective: "require-trusted-types-for", sample });
  handlers.securitypolicyviolation(violation(sink("Element innerHTML|<i>raw</i>")));
  assert.equal(take()[0].message, "This document requires 'TrustedHTML' assignment. The action has been blocked.", "no default policy yet");
  let read = 0;
  factory.createPolicy("default", {
    createHTML: () => null,
    get createScriptURL() {
      read++;
      return (s) => s;
    },
  });
  assert.equal(read, 0, "a getter of the page's options is not called by us");
  const cases = [
    ["Element innerHTML|<i>raw</i>", "This document requires 'TrustedHTML' assignment and the 'default' policy failed to execute. The action has been blocked."],
    ["eval|1+1", "This document requires 'TrustedScript' assignment and no 'default' policy for 'TrustedScript' has been defined. The action has been blocked."],
    ["Window setTimeout|go()", "This document requires 'TrustedScript' assignment and no 'default' policy for 'TrustedScript' has been defined. The action has been blocked."],
    ["HTMLScriptElement src|/x.js", "This document requires 'TrustedScriptURL' assignment and the 'default' policy failed to execute. The action has been blocked."],
  ];
  for (const [sample, message] of cases) {
    handlers.securitypolicyviolation(violation(sink(sample)));
    assert.equal(take()[0].message, message);
  }
});

test("a CSP entry carries where and what was blocked, its URLs redacted", () => {
  handlers.securitypolicyviolation(
    violation({
      blockedURI: "http://cdn.test/x.js?token=S-csp-token#access_token=S-csp-frag",
      effectiveDirective: "script-src-elem",
      sourceFile: "http://app.test/shop/app.js",
      lineNumber: 3,
      columnNumber: 9,
    }),
  );
  const [e] = take();
  assert.equal(e.blockedURI, "http://cdn.test/x.js?token=[redacted]#access_token=[redacted]");
  assert.equal(e.location, "http://app.test/shop/app.js:3:9");
  assert.equal(e.url, "http://app.test/shop/cart?session=[redacted]");
  assert.ok(!JSON.stringify(e).includes("S-csp-"), JSON.stringify(e));
  assert.ok(e.redacted.includes("blockedURI.token") && e.redacted.includes("message.token"), JSON.stringify(e.redacted));
  handlers.securitypolicyviolation({ get blockedURI() { throw new Error("a hostile getter"); } });
  assert.deepEqual(take(), [], "an odd event is skipped, never thrown");
});

// ---- failed element loads -----------------------------------------------------------
function el(tagName, props = {}, attrs = {}) {
  return { nodeType: 1, tagName, id: "", className: "", getAttribute: (n) => (n in attrs ? attrs[n] : null), parentElement: null, children: [], ...props };
}

test("failed element loads become logs with the element's tag, selector and URL", () => {
  const body = el("BODY");
  const img = el("IMG", { id: "hero", currentSrc: "", src: "http://app.test/missing.png?token=S-img-token" });
  const script = el("SCRIPT", { src: "http://app.test/missing.js" }, { "data-testid": "loader" });
  const css = el("LINK", { rel: "stylesheet", href: "http://app.test/missing.css", parentElement: body });
  const preload = el("LINK", { rel: "preload", href: "http://app.test/font.woff2" });
  const video = el("VIDEO", { id: "clip", currentSrc: "http://app.test/v.mp4", src: "", error: { code: 4, message: "" } });
  body.children = [css];
  for (const target of [img, script, css, preload, video]) handlers.error({ target });
  handlers.error({ target: globalThis }); // an uncaught script error: errors.js's
  handlers.error({ target: el("DIV") }); // not an element that loads
  const entries = take();
  assert.deepEqual(
    entries.map((e) => [e.level, e.source, e.tag, e.selector, e.message]),
    [
      ["error", "resource", "img", "#hero", "Failed to load image: http://app.test/missing.png?token=[redacted]"],
      ["error", "resource", "script", 'script[data-testid="loader"]', "Failed to load script: http://app.test/missing.js"],
      ["error", "resource", "link", "body > link", "Failed to load stylesheet: http://app.test/missing.css"],
      ["error", "resource", "link", "link", "Failed to load link rel=preload: http://app.test/font.woff2"],
      ["error", "resource", "video", "#clip", "Failed to load video: http://app.test/v.mp4"],
    ],
  );
  assert.equal(entries[0].resourceUrl, "http://app.test/missing.png?token=[redacted]");
  assert.equal(entries[4].reason, "MEDIA_ERR_SRC_NOT_SUPPORTED");
  assert.ok(entries.every((e) => e.url === "http://app.test/shop/cart?session=[redacted]"));
});
