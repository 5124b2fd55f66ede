// The dev server's own traffic, which is not the app's: left out of every kind,
// from the page and from the browser's deep view alike, so that an agent reading
// the waterfall or a socket sees what the app did, not what its tools did.
// - Next.js: its error overlay and dev tools ask the dev server for stack frames,
//   source maps, fonts, the editor, their config and its status under paths that
//   begin with `/__nextjs_` (a prefix Next reserves for itself); Vite's overlay
//   opens the editor through `/__open-in-editor`.
// - Parcel's error overlay asks its dev server for each error's code frame
//   (`POST /__parcel_code_frame`) and to open the editor (`/__parcel_launch_editor`); Rspack's lazy compilation (Rsbuild's default
//   for dynamic imports) asks its dev server to build a chunk
//   (`POST /_rspack/lazy/trigger`).
// - Metro (Expo's and React Native for web's dev server): its error overlay asks it to map each
//   error's stack (`POST /symbolicate`, large answers with code frames), for its overlay's
//   settings (`/_expo/error-overlay-meta`) and to open the editor (`/open-stack-frame`); Expo's
//   client sends every console call of the page again on Metro's HMR socket (`/hot`, outgoing
//   `{"mode":"web","type":"log",…}`), which Gasoline has as `logs`.
// - Storybook's manager (the UI around the story's frame): its own scripts
//   (`/sb-manager/`, `/sb-addons/`, `/sb-common-assets/`) and what they log, and
//   the channel it and the story's frame keep with its dev server
//   (`/storybook-server-channel`, most of a session's socket messages). The
//   story's frame (`iframe.html`) is the app's, and stays.
// - Next.js (15.4 and later) sends every console call of the page a second time,
//   to print it in the dev server's terminal, as a `browser-logs` message on its
//   HMR socket (`/_next/hmr`, `/_next/webpack-hmr`): Gasoline has those calls as
//   `logs` already, and each would come back as a copy in `websocket_events`.
//   Rsbuild (2 and later) does the same with every uncaught error and rejection,
//   a `client-error` message on `/rsbuild-hmr`.
// - Dev tools that talk to their dev server on Vite's HMR socket as `custom`
//   events: Astro's dev toolbar (`astro-dev-toolbar:…`, most of a page load's
//   socket messages), vite-plugin-inspect (`vite-plugin-inspect:rpc`), Vue's
//   Vite devtools (`__devtools-kit…`), Nuxt DevTools (`nuxt:devtools:…`).
// - Nuxt DevTools' own panel (`/__nuxt_devtools__/`, an iframe of the page: its
//   requests and everything its frame logs) and the modules that put Vue's
//   devtools and inspector into a Vite page (`@id/virtual:vue-devtools-path:…`,
//   `@id/virtual:vue-inspector-path:…`).
// - Astro's dev toolbar's own modules (`…/astro/dist/runtime/client/dev-toolbar/…`,
//   about forty a page load) and what they log. Its audit fetches the page's
//   images again by their own URLs: those rows cannot be told from the app's.
// - Browsersync (a reloader put in front of a server-rendered app): its client script
//   (`/browser-sync/browser-sync-client.js`) and its socket.io channel
//   (`/browser-sync/socket.io/`, a poll or a socket), on which its "ghost mode" sends the
//   value of each field the user types in, a password's too, and each click and scroll, to
//   mirror them in the other browsers. A reload it orders is the page's `reload` navigation.
// - django-debug-toolbar: its static files (`/static/debug_toolbar/…`, six a page) and what they
//   log, and its panel's requests (`/__debug__/render_panel/`, `/__debug__/history_sidebar/`…),
//   whose answers are the toolbar's own HTML.
// - Werkzeug's interactive debugger (Flask's `--debug`) on its 500 pages: the requests its page
//   makes (`?__debugger__=yes&cmd=…&s=<its SECRET>`: its icons, the PIN prompt, each console
//   command and its answer, which prints whatever the developer evaluates, a form's password
//   too). Its SECRET with the PIN runs code on the developer's machine. The 500 page itself stays.
// - An error tracker's reports: Sentry's SDK sends what it captured (the page's errors, its console
//   lines as breadcrumbs, its requests as spans) to `/api/<project>/envelope/?sentry_key=…`, most
//   of a session's stored bodies and copies of what Gasoline has already. (A `tunnel` of the
//   app's own is the app's request, and is kept.)
// The rest of the HMR conversation (building, built, updates) stays: it tells
// when the code under the page changed.

const TOOLING_PATHS = [
  "/__nextjs_",
  "/symbolicate",
  "/_expo/error-overlay-meta",
  "/open-stack-frame",
  "/__open-in-editor",
  "/__nuxt_devtools__/",
  "/__parcel_code_frame",
  "/__parcel_launch_editor",
  "/_rspack/lazy/",
  "/storybook-server-channel",
  "/sb-manager/",
  "/sb-addons/",
  "/sb-common-assets/",
  "/browser-sync/",
  "/__debug__/",
];
const TOOLING_MODULES = [
  "/@id/virtual:vue-devtools-path:",
  "/@id/virtual:vue-inspector-path:",
  "/astro/dist/runtime/client/dev-toolbar/",
  "/debug_toolbar/",
]; // under any base
/** The HMR sockets on which a dev client echoes what Gasoline has as `logs`, and how the echo begins. */
const ECHOES = [
  { paths: ["/_next/hmr", "/_next/webpack-hmr"], echo: /^\s*\{\s*"event"\s*:\s*"browser-logs"/ },
  { paths: ["/rsbuild-hmr"], echo: /^\s*\{\s*"type"\s*:\s*"client-error"/ },
  { paths: ["/hot"], echo: /^\s*\{\s*(?:"mode"\s*:\s*"web"\s*,\s*)?"type"\s*:\s*"log"\s*,/ },
];
const CUSTOM_EVENT = '{"type":"custom","event":"';
const TOOL_EVENTS = ["astro-dev-toolbar:", "vite-plugin-inspect:", "__devtools-kit", "nuxt:devtools:"];

/** Text every URL above holds (a path, a module, a query's mark): most URLs hold none of it. */
const HINTS = [...TOOLING_PATHS, ...TOOLING_MODULES, "__debugger__=", "sentry_key="];

/** A report Sentry's SDK sends: its envelope (or older store) endpoint, its key in the query. */
const SENTRY_REPORT = /\/api\/\d+\/(?:envelope|store)\/?\?(?:[^#]*&)?sentry_key=/;

/** A request of Werkzeug's debugger: `__debugger__=yes` in its query. */
const WERKZEUG_DEBUGGER = /[?&]__debugger__=yes(?:&|#|$)/;

/** The path of an absolute or root-relative `url`; "" when it has none. */
function pathOf(url) {
  if (typeof url !== "string") return "";
  const scheme = url.indexOf("://");
  const start = scheme < 0 ? 0 : url.indexOf("/", scheme + 3);
  if (start < 0) return "";
  const end = url.slice(start).search(/[?#]/);
  return end < 0 ? url.slice(start) : url.slice(start, start + end);
}

/** Whether `url` is one of the dev tools' own (above). */
function isToolingUrl(url) {
  // Checked as text first: most URLs hold none of them, and this runs for every request.
  if (typeof url !== "string" || !HINTS.some((hint) => url.includes(hint))) return false;
  if (WERKZEUG_DEBUGGER.test(url) || SENTRY_REPORT.test(url)) return true;
  const path = pathOf(url);
  return TOOLING_PATHS.some((prefix) => path.startsWith(prefix)) || TOOLING_MODULES.some((part) => path.includes(part));
}

/** Whether `entry` of `kind` is the dev server's own traffic (above), to be left out. */
export function isDevTooling(kind, entry) {
  if (kind === "network_waterfall" || kind === "network_bodies") return isToolingUrl(entry.url);
  if (kind === "logs") return isToolingUrl(entry.location); // logged by a dev tool's own script
  if (kind === "websocket_events") {
    if (isToolingUrl(entry.url)) return true; // a dev tool's own socket, every event of it
    if (entry.event !== "message" || typeof entry.data !== "string") return false;
    if (entry.data.startsWith(CUSTOM_EVENT)) {
      const event = entry.data.slice(CUSTOM_EVENT.length);
      if (TOOL_EVENTS.some((name) => event.startsWith(name))) return true;
    }
    if (entry.direction !== "outgoing") return false;
    const path = pathOf(entry.url);
    return ECHOES.some(({ paths, echo }) => paths.includes(path) && echo.test(entry.data));
  }
  return false;
}

/** Whether a frame at `url` is a dev tool's own panel (Nuxt DevTools'): nothing of it is the app's. */
export function isDevToolingFrame(url) {
  return isToolingUrl(url);
}
