import { test } from "node:test";
import assert from "node:assert/strict";
import { isDevTooling, isDevToolingFrame } from "../../background/dev_tooling.js";

const row = (url) => ({ url, source: "page" });

test("the Next.js overlay's and Vite's editor requests are the dev server's, in every form of URL", () => {
  for (const url of [
    "http://localhost:3000/__nextjs_original-stack-frames",
    "http://localhost:3000/__nextjs_source-map?filename=app%2Fpage.tsx",
    "https://app.localhost/__nextjs_font/geist-latin.woff2",
    "http://127.0.0.1:3000/__nextjs_launch-editor?file=x#y",
    "http://localhost:5173/__open-in-editor?file=src/App.tsx",
    "/__nextjs_devtools_config",
  ]) {
    assert.equal(isDevTooling("network_waterfall", row(url)), true, url);
    assert.equal(isDevTooling("network_bodies", row(url)), true, url);
  }
});

test("the app's own requests stay, even where they look alike", () => {
  for (const url of [
    "http://localhost:3000/api/__nextjs_like", // the prefix deeper in the path
    "http://localhost:3000/?next=/__nextjs_original-stack-frames", // in the query
    "http://localhost:3000/page#/__nextjs_x", // in the fragment
    "http://localhost:3000/_next/static/chunks/main.js",
    "http://localhost:3000/__data.json",
    "http://localhost:5173/@vite/client",
    "",
  ]) {
    assert.equal(isDevTooling("network_waterfall", row(url)), false, url);
  }
  assert.equal(isDevTooling("network_waterfall", { url: 42 }), false);
});

const frame = (url, data, extra = {}) => ({ event: "message", direction: "outgoing", url, data, ...extra });
const LOGS = '{"event":"browser-logs","entries":[{"kind":"console","method":"log","args":[]}],"router":"app"}';

test("Next.js's copy of each console call on its HMR socket is left out", () => {
  for (const url of ["ws://localhost:3000/_next/hmr?id=4PSc45", "wss://app.localhost/_next/webpack-hmr", "ws://localhost:3000/_next/hmr"]) {
    assert.equal(isDevTooling("websocket_events", frame(url, LOGS)), true, url);
  }
  // cut at the frame cap, it still begins the same way
  assert.equal(isDevTooling("websocket_events", frame("ws://localhost:3000/_next/hmr", LOGS.slice(0, 30), { truncated: true })), true);
});

test("the rest of the HMR conversation, and the app's sockets, stay", () => {
  const hmr = "ws://localhost:3000/_next/hmr?id=1";
  assert.equal(isDevTooling("websocket_events", frame(hmr, '{"event":"client-success","clientId":1}')), false);
  assert.equal(isDevTooling("websocket_events", { ...frame(hmr, LOGS), direction: "incoming" }), false);
  assert.equal(isDevTooling("websocket_events", { event: "open", url: hmr }), false);
  // the same message on a socket of the app's own
  assert.equal(isDevTooling("websocket_events", frame("ws://localhost:3000/chat", LOGS)), false);
  assert.equal(isDevTooling("websocket_events", frame("ws://localhost:3000/api/_next/hmr", LOGS)), false);
  // other kinds never are
  assert.equal(isDevTooling("logs", { message: LOGS, url: "http://localhost:3000/__nextjs_x" }), false);
});

test("Astro's dev toolbar's talk on Vite's HMR socket is left out, both ways", () => {
  const hmr = "ws://localhost:4321/?token=abc";
  for (const direction of ["outgoing", "incoming"]) {
    const data = '{"type":"custom","event":"astro-dev-toolbar:astro:audit:toggled","data":{"state":false}}';
    assert.equal(isDevTooling("websocket_events", frame(hmr, data, { direction })), true, direction);
  }
  assert.equal(isDevTooling("websocket_events", frame(hmr, '{"type":"custom","event":"my-plugin:ready"}')), false);
  assert.equal(isDevTooling("websocket_events", frame(hmr, '{"type":"update","updates":[]}', { direction: "incoming" })), false);
});

test("dev tools' own events on Vite's HMR socket, their panel and their modules are left out", () => {
  const hmr = "ws://127.0.0.1:3000/_nuxt/?token=abc";
  for (const event of ["vite-plugin-inspect:rpc", "__devtools-kit-vite-messaging-event-key__", "nuxt:devtools:rpc"]) {
    const data = `{"type":"custom","event":"${event}","data":{}}`;
    assert.equal(isDevTooling("websocket_events", frame(hmr, data)), true, event);
  }
  for (const url of [
    "http://127.0.0.1:3000/__nuxt_devtools__/client/assets/index.js",
    "http://localhost:5173/@id/virtual:vue-devtools-path:overlay.js",
    "http://localhost:3000/_nuxt/@id/virtual:vue-inspector-path:load.js",
    "http://localhost:4321/node_modules/astro/dist/runtime/client/dev-toolbar/apps/audit/index.js?v=1a2b",
    "http://localhost:4321/@fs/home/me/site/node_modules/astro/dist/runtime/client/dev-toolbar/toolbar.js",
  ]) {
    assert.equal(isDevTooling("network_waterfall", row(url)), true, url);
  }
  assert.equal(isDevToolingFrame("http://127.0.0.1:3000/__nuxt_devtools__/client/"), true);
  assert.equal(isDevToolingFrame("http://127.0.0.1:3000/embed/"), false);
  // The app's own modules and frames stay.
  assert.equal(isDevTooling("network_waterfall", row("http://localhost:5173/src/components/Devtools.vue")), false);
  assert.equal(isDevTooling("network_waterfall", row("http://localhost:5173/@id/virtual:my-plugin")), false);
  assert.equal(isDevTooling("network_waterfall", row("http://localhost:4321/src/components/dev-toolbar/Bar.tsx")), false);
  // What the toolbar's scripts log is theirs too.
  assert.equal(isDevTooling("logs", { location: "http://localhost:4321/node_modules/astro/dist/runtime/client/dev-toolbar/toolbar.js:12:3" }), true);
});

test("Parcel's overlay's code frames, Rspack's lazy-compilation requests and Rsbuild's copy of each uncaught error are left out", () => {
  assert.equal(isDevTooling("network_waterfall", row("http://127.0.0.1:1234/__parcel_code_frame")), true);
  assert.equal(isDevTooling("network_bodies", row("http://127.0.0.1:1234/__parcel_code_frame")), true);
  assert.equal(isDevTooling("network_waterfall", row("http://127.0.0.1:1234/api/__parcel_code_frame")), false);
  assert.equal(isDevTooling("network_waterfall", row("http://127.0.0.1:3000/_rspack/lazy/trigger")), true);
  assert.equal(isDevTooling("network_waterfall", row("http://127.0.0.1:1234/__parcel_launch_editor?file=%2Fapp%2Fsrc%2FApp.tsx")), true);
  assert.equal(isDevTooling("network_bodies", row("http://127.0.0.1:3000/_rspack/lazy/trigger")), true);
  const rsbuild = "ws://127.0.0.1:3100/rsbuild-hmr?token=[redacted]";
  const echo = '{"type":"client-error","id":"mwyw9fwnv1evkptuzqk","message":"Uncaught Error: checkout rejected","name":"Error","stack":"Error: x"}';
  assert.equal(isDevTooling("websocket_events", frame(rsbuild, echo)), true);
  // The rest of its conversation stays, as does the same text on the app's own socket or Next's.
  assert.equal(isDevTooling("websocket_events", frame(rsbuild, '{"type":"hash","data":"3e1c"}', { direction: "incoming" })), false);
  assert.equal(isDevTooling("websocket_events", frame("ws://127.0.0.1:3100/chat", echo)), false);
  assert.equal(isDevTooling("websocket_events", frame("ws://localhost:3000/_next/hmr", echo)), false);
  assert.equal(isDevTooling("websocket_events", frame(rsbuild, LOGS)), false);
});

test("Storybook's manager and its channel are left out; the story's frame stays", () => {
  const channel = "ws://127.0.0.1:6006/storybook-server-channel?token=[redacted]&page=preview";
  for (const e of [
    { event: "open", url: channel },
    frame(channel, '{"key":"storybook-channel","event":{"type":"storyRenderPhaseChanged"}}', { direction: "incoming" }),
    frame(channel, '{"type":"ping"}'),
  ]) {
    assert.equal(isDevTooling("websocket_events", e), true, JSON.stringify(e));
  }
  assert.equal(isDevTooling("network_waterfall", row("ws://127.0.0.1:6006/storybook-server-channel?token=x&page=manager")), true);
  for (const url of [
    "http://127.0.0.1:6006/sb-manager/globals-runtime.js",
    "http://127.0.0.1:6006/sb-addons/storybook-core-server-presets-0/common-manager-bundle.js",
    "http://127.0.0.1:6006/sb-common-assets/fonts.css",
  ]) {
    assert.equal(isDevTooling("network_waterfall", row(url)), true, url);
  }
  const manager = { level: "warn", message: "The 'ariaLabel' prop on 'PopoverProvider' will become mandatory", location: "http://127.0.0.1:6006/sb-manager/globals-runtime.js:123:57" };
  assert.equal(isDevTooling("logs", manager), true);
  // The story's own frame, modules and logs stay.
  for (const url of [
    "http://127.0.0.1:6006/iframe.html?id=shop-checkoutbutton--broken-discount&viewMode=story",
    "http://127.0.0.1:6006/src/stories/CheckoutButton.tsx",
    "http://127.0.0.1:6006/api/sb-data",
  ]) {
    assert.equal(isDevTooling("network_waterfall", row(url)), false, url);
  }
  assert.equal(isDevTooling("logs", { level: "error", message: "x", location: "http://127.0.0.1:6006/src/stories/cartApi.ts:17:13" }), false);
  assert.equal(isDevTooling("logs", { level: "log", message: "no location" }), false);
  assert.equal(isDevTooling("websocket_events", frame("ws://127.0.0.1:6006/?token=abc", '{"type":"update","updates":[]}', { direction: "incoming" })), false);
});

test("Metro's overlay's requests and Expo's copy of each console call on Metro's HMR socket are left out", () => {
  for (const url of [
    "http://localhost:8081/symbolicate",
    "http://localhost:8081/_expo/error-overlay-meta",
    "http://localhost:8081/open-stack-frame",
  ]) {
    assert.equal(isDevTooling("network_waterfall", row(url)), true, url);
    assert.equal(isDevTooling("network_bodies", row(url)), true, url);
  }
  assert.equal(isDevTooling("network_waterfall", row("http://localhost:8081/api/symbolicate")), false);
  const hot = "ws://localhost:8081/hot?platform=web";
  const echo = '{"mode":"web","type":"log","level":"warn","data":["recommendations unavailable, showing none:","Failed to fetch"]}';
  assert.equal(isDevTooling("websocket_events", frame(hot, echo)), true);
  // Metro's own messages stay: its updates and build errors tell when the code changed.
  assert.equal(isDevTooling("websocket_events", frame(hot, '{"type":"update-start","body":{"isInitialUpdate":false}}', { direction: "incoming" })), false);
  assert.equal(isDevTooling("websocket_events", frame(hot, '{"type":"register-entrypoints","entryPoints":[]}')), false);
  assert.equal(isDevTooling("websocket_events", frame("ws://localhost:8081/chat", echo)), false);
});

test("Browsersync's client and channel are left out, with the field values its ghost mode sends", () => {
  const socket = "ws://localhost:3000/browser-sync/socket.io/?EIO=4&transport=websocket&sid=abc";
  const ghost = { url: socket, event: "message", direction: "outgoing", data: '42/browser-sync,["input:text",{"tagName":"INPUT","index":1,"value":"hunter2"}]' };
  assert.equal(isDevTooling("websocket_events", ghost), true);
  for (const url of [
    "http://localhost:3000/browser-sync/socket.io/?EIO=4&transport=polling&t=P1",
    "http://localhost:3000/browser-sync/browser-sync-client.js?v=3.0.3",
  ]) {
    assert.equal(isDevTooling("network_waterfall", row(url)), true, url);
    assert.equal(isDevTooling("network_bodies", row(url)), true, url);
  }
  assert.equal(isDevTooling("logs", { location: "http://localhost:3000/browser-sync/browser-sync-client.js?v=3.0.3:1:20" }), true);
  // The app's own socket.io stays.
  assert.equal(isDevTooling("websocket_events", { ...ghost, url: "ws://localhost:3000/socket.io/?EIO=4&transport=websocket" }), false);
  assert.equal(isDevTooling("network_waterfall", row("http://localhost:3000/api/browser-sync")), false);
});

test("django-debug-toolbar's files and panel requests are left out; the app's own static files stay", () => {
  for (const url of [
    "http://127.0.0.1:8000/static/debug_toolbar/js/toolbar.js",
    "http://127.0.0.1:8000/static/debug_toolbar/css/toolbar.css",
    "http://127.0.0.1:8000/__debug__/render_panel/?store_id=ab12&panel_id=SettingsPanel",
    "http://127.0.0.1:8000/__debug__/history_sidebar/?store_id=ab12",
  ]) {
    assert.equal(isDevTooling("network_waterfall", row(url)), true, url);
    assert.equal(isDevTooling("network_bodies", row(url)), true, url);
  }
  assert.equal(isDevTooling("logs", { location: "http://127.0.0.1:8000/static/debug_toolbar/js/toolbar.js:12:5" }), true);
  for (const url of ["http://127.0.0.1:8000/static/shop/app.js", "http://127.0.0.1:8000/api/debug/", "http://127.0.0.1:8000/static/debug_toolbar.css"]) {
    assert.equal(isDevTooling("network_waterfall", row(url)), false, url);
  }
});

test("Werkzeug's debugger's requests (its SECRET in their query) are left out; the 500 page and the app's stay", () => {
  for (const url of [
    "http://127.0.0.1:5000/boom?__debugger__=yes&cmd=resource&f=console.png&s=vgumVkhJuFXl4OcXGO60",
    "http://127.0.0.1:5000/boom?__debugger__=yes&cmd=pinauth&pin=123-456-789&s=vgumVkhJuFXl4OcXGO60",
    "http://127.0.0.1:5000/signup?__debugger__=yes&cmd=request.form&frm=140&s=vgumVkhJuFXl4OcXGO60",
  ]) {
    assert.equal(isDevTooling("network_waterfall", row(url)), true, url);
    assert.equal(isDevTooling("network_bodies", row(url)), true, url);
  }
  for (const url of ["http://127.0.0.1:5000/boom", "http://127.0.0.1:5000/search?q=__debugger__=yes"]) {
    assert.equal(isDevTooling("network_waterfall", row(url)), false, url);
  }
});

test("Sentry's reports are left out; a tunnel of the app's own and the app's API stay", () => {
  for (const url of [
    "https://o123.ingest.sentry.io/api/4504/envelope/?sentry_version=7&sentry_key=abc123&sentry_client=sentry.javascript.react%2F8.1.0",
    "http://127.0.0.1:9100/api/1/envelope/?sentry_key=public&sentry_version=7",
    "http://127.0.0.1:9100/api/1/store/?sentry_key=public",
  ]) {
    assert.equal(isDevTooling("network_waterfall", row(url)), true, url);
    assert.equal(isDevTooling("network_bodies", row(url)), true, url);
  }
  for (const url of ["http://localhost:5173/tunnel", "http://localhost:5173/api/1/envelope/", "http://localhost:5173/api/orders?sentry_key=x"]) {
    assert.equal(isDevTooling("network_waterfall", row(url)), false, url);
  }
});
