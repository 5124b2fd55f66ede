// page/websocket.js with a fake socket: a dev server's build error on its HMR socket becomes an
// error entry that says where the build broke, whichever shape the dev server gives it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createRequire } from "node:module";

import { limits, serialize } from "./load.mjs";

const require = createRequire(import.meta.url);
globalThis.__gasoline = { sources: {} };
require("../../page/websocket.js");
const install = globalThis.__gasoline.sources.websocket;
delete globalThis.__gasoline;
Object.assign(globalThis, { location: { href: "http://app.localhost:4200/" } });

const emitted = [];
const ended = []; // the handshakes' outcomes, as requests.end was given them
const filled = {}; // WebSocket.prototype's methods as the page would call them
let watch;
let clock = 0; // performance.now() as the page's core reads it
class FakeSocket {
  get readyState() {
    return 1;
  }
}
install({
  core: {
    apply: (fn, self, args) => fn.apply(self, args),
    fill: (owner, name, make) => (filled[name] = make(() => {})),
    invoke: (fn) => fn(),
    listen: (target, type, fn) => (target.on[type] = target.on[type] || []).push(fn),
    wrapConstructor: (name, onEach) => ((watch = onEach), FakeSocket),
    connectionId: () => "ws-1",
    weakMap: () => new WeakMap(),
    weakSet: () => new WeakSet(),
    perfNow: () => clock,
  },
  outbox: { emit: (kind, build) => emitted.push([kind, build]) },
  serialize,
  limits,
  requests: { start: () => ({}), end: (request, outcome) => ended.push(outcome) },
});

/** A socket of `url` (Vite's HMR socket by default) made by the page: `receive(data)` gives every entry it made so far. */
function hmrSocket(url = "ws://app.localhost:4200/?token=x", protocol = "vite-hmr") {
  const ws = { url, protocol, on: {} };
  watch(ws);
  emitted.length = 0;
  return (data) => {
    for (const fn of ws.on.message) fn({ data });
    return emitted.filter(([kind]) => kind === "logs").map(([, build]) => build()).filter(Boolean);
  };
}

test("Angular's build error (loc and its line, no code frame) says where it broke", () => {
  const receive = hmrSocket();
  const payload = {
    type: "error",
    err: {
      message: "TS2339: Property 'logObjects' does not exist on type 'Home'.",
      stack: "",
      loc: { file: "src/app/home.ts", line: 14, column: 30, lineText: '    <button id="log" (click)="logObjects()">' },
    },
  };
  const [entry] = receive(JSON.stringify(payload));
  assert.equal(entry.source, "dev-server");
  assert.equal(
    entry.message,
    "[vite] TS2339: Property 'logObjects' does not exist on type 'Home'. (src/app/home.ts:14:31)\n14 |     <button id=\"log\" (click)=\"logObjects()\">",
  );
  // Where, as a mapped entry says it: 1-based, as editors count (Vite's loc counts columns from 0).
  assert.deepEqual(entry.original, { source: "src/app/home.ts", line: 14, column: 31 });
});

test("Vite's own build error keeps its message and code frame, the file said once", () => {
  const receive = hmrSocket();
  const err = {
    plugin: "vite:react-babel",
    id: "/app/src/App.jsx",
    message: "/app/src/App.jsx: Unexpected token (5:16)",
    frame: "  4 | \n> 5 | const broken = ;\n    |                ^",
    loc: { file: "/app/src/App.jsx", line: 5, column: 16 },
  };
  const [entry] = receive(JSON.stringify({ type: "error", err }));
  assert.equal(entry.message, `[vite] vite:react-babel: ${err.message}\n${err.frame}`);
  assert.deepEqual(entry.original, { source: "/app/src/App.jsx", line: 5, column: 17 });
});

test("Vite 8's build error (Oxc: no loc, the place framed in its message) says where it broke", () => {
  const receive = hmrSocket();
  const err = {
    message:
      "Transform failed with 1 error:\n\n[PARSE_ERROR] Unexpected token\n   ╭─[ src/cart.ts:6:18 ]\n   │\n 6 │   const broken = ;\n   │                  ┬  \n   │                  ╰── \n───╯\n",
    stack: "    at transformWithOxc (file:///app/node_modules/vite/dist/node/chunks/node.js:7673:19)",
    id: "/app/front/src/cart.ts",
    frame: "",
    plugin: "vite:oxc",
  };
  const [entry] = receive(JSON.stringify({ type: "error", err }));
  assert.deepEqual(entry.original, { source: "/app/front/src/cart.ts", line: 6, column: 18 });
  assert.ok(entry.message.startsWith("[vite] vite:oxc: Transform failed with 1 error:"), entry.message);
  assert.ok(entry.message.includes("(/app/front/src/cart.ts:6:18)"), "the file named once, as the message names it relative");
});

test("@vitejs/plugin-vue's build error (loc without its file, the file on a line of the message) says where it broke", () => {
  const receive = hmrSocket();
  const message = [
    "[vue/compiler-sfc] Unexpected token (9:15)",
    "",
    "/tmp/nuxtapp/app/pages/index.vue",
    "8  |  const result = ref('')",
    "9  |  const broken = ;",
    "   |                 ^",
  ].join("\n");
  const err = { message, stack: "    at constructor (/tmp/nuxtapp/node_modules/@babel/parser/lib/index.js:369:19)", frame: "", loc: { line: 9, column: 15, index: 200 } };
  const [entry] = receive(JSON.stringify({ type: "error", err }));
  assert.equal(entry.message, `[vite] ${message}`, "the file and the code frame said once");
  assert.deepEqual(entry.original, { source: "/tmp/nuxtapp/app/pages/index.vue", line: 9, column: 16 });
});

test("a build error that names no place has none", () => {
  const receive = hmrSocket();
  const [entry] = receive(JSON.stringify({ type: "error", err: { message: "Internal server error", loc: { line: "x" } } }));
  assert.equal(entry.original, undefined);
});

test("one build error heard again and again is one entry, until it comes back after a pause", () => {
  const receive = hmrSocket();
  const error = JSON.stringify({ type: "error", err: { message: "Transform failed with 1 error", id: "/app/src/home.tsx", loc: { file: "/app/src/home.tsx", line: 28, column: 10 } } });
  // receive() answers every entry the socket made so far.
  assert.equal(receive(error).length, 1);
  assert.equal(receive(error).length, 1, "the same text again: the broken module asked for again");
  assert.equal(receive('{"type":"ping"}').length, 1);
  clock += 3000;
  // Solid's hot update climbing the import chain: update, error, update, error.
  receive(JSON.stringify({ type: "update", updates: [] }));
  assert.equal(receive(error).length, 1, "an update between is the same failed save");
  clock += 9000;
  assert.equal(receive(error).length, 1, "within 10 s of the last time it was heard");
  clock += 10000;
  assert.equal(receive(error).length, 2, "broken the same way after a pause (fixed, then broken again): a new entry");
  const other = JSON.stringify({ type: "error", err: { message: "another", id: "/app/src/b.tsx", loc: { file: "/app/src/b.tsx", line: 1, column: 0 } } });
  assert.equal(receive(other).length, 3, "another error");
  assert.equal(receive(error).length, 4, "and the first again after it");
});

test("Astro's dev server's errors (flagged, HTML text, columns from 1) are error entries too", () => {
  clock += 60000;
  const receive = hmrSocket();
  // A page whose frontmatter threw: its 500 holds no text of it, the socket does.
  const thrown = {
    __isEnhancedAstroErrorPayload: true,
    type: "error",
    err: {
      name: "Error",
      message: "Profile not loaded for &quot;broken&quot; &lt;page&gt;, see <code>user.profile</code>",
      hint: "Read <a href=\"https://docs.astro.build/en/x\" target=\"_blank\">the docs</a>",
      stack: "Error: Profile not loaded\n    at eval (/app/src/pages/broken.astro:5:1)",
      loc: { file: "/app/src/pages/broken.astro", line: 5, column: 1 },
      frame: '  4 | if (!user.profile) {\n> 5 |   throw new Error("Profile not loaded");\n    | ^',
      highlightedCode: "<pre class=\"shiki\">…</pre>",
    },
  };
  const [entry] = receive(JSON.stringify(thrown));
  assert.equal(entry.source, "dev-server");
  assert.deepEqual(entry.original, { source: "/app/src/pages/broken.astro", line: 5, column: 1 });
  assert.equal(
    entry.message.split("\n").slice(0, 2).join("\n"),
    '[astro] Profile not loaded for "broken" <page>, see user.profile (/app/src/pages/broken.astro:5:1)\nHint: Read the docs',
  );
  assert.ok(entry.message.endsWith("| ^"), entry.message);
  // Vite's build error as Astro relays it: no loc, the place framed in the message.
  const relayed = {
    __isEnhancedAstroErrorPayload: true,
    type: "error",
    err: {
      message: "Transform failed with 1 error:\n\n[PARSE_ERROR] Unexpected token\n    ╭─[ src/components/Counter.tsx:30:18 ]",
      id: "/app/src/components/Counter.tsx",
      plugin: "vite:oxc",
      frame: "",
      loc: {},
    },
  };
  const entries = receive(JSON.stringify(relayed));
  assert.equal(entries.length, 2);
  assert.deepEqual(entries[1].original, { source: "/app/src/components/Counter.tsx", line: 30, column: 18 });
  assert.match(entries[1].message, /^\[astro\] vite:oxc: Transform failed/);
  // Other messages with flags before their type are not errors.
  assert.equal(receive(JSON.stringify({ __isEnhancedAstroErrorPayload: true, type: "update" })).length, 2);
  assert.equal(receive('{"type":"custom","event":"error"}').length, 2);
});

test("a message that holds its code frame already (Babel's) does not get it twice", () => {
  clock += 60000;
  const receive = hmrSocket();
  const frame = "  10 |   console.error(x);\n  11 |\n> 12 |   const broken = ;\n     |                  ^";
  const payload = {
    type: "error",
    err: { message: `/app/src/Noisy.tsx: Unexpected token (12:17)\n\n${frame}`, id: "/app/src/Noisy.tsx", plugin: "solid", frame: frame.replaceAll("  1", "1"), loc: { file: "/app/src/Noisy.tsx", line: 12, column: 17 } },
  };
  const [entry] = receive(JSON.stringify(payload));
  assert.equal(entry.message, `[vite] solid: /app/src/Noisy.tsx: Unexpected token (12:17)\n\n${frame}`);
  assert.deepEqual(entry.original, { source: "/app/src/Noisy.tsx", line: 12, column: 18 });
});

test("a build error's file is named as the page's modules name it, where the page loaded it", async () => {
  clock += 60000;
  // The page loaded /src/components/Noisy%20Box.tsx (a resource timing entry, as Node's fetch makes one).
  const server = createServer((_, res) => res.end("export {}"));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  await (await fetch(`http://127.0.0.1:${server.address().port}/src/components/Noisy%20Box.tsx?t=1`)).text();
  server.close();
  while (performance.getEntriesByType("resource").length === 0) await new Promise((resolve) => setImmediate(resolve));
  const receive = hmrSocket();
  const error = (file) => JSON.stringify({ type: "error", err: { message: "Unexpected token", id: file, loc: { file, line: 12, column: 17 } } });
  const [entry] = receive(error("/home/me/app/src/components/Noisy Box.tsx"));
  assert.deepEqual(entry.original, { source: "src/components/Noisy Box.tsx", line: 12, column: 18 });
  assert.match(entry.message, /\(\/home\/me\/app\/src\/components\/Noisy Box\.tsx:12:18\)$/, "the message keeps the dev server's path");
  // A module the page never loaded, or one that shares its name alone: as the dev server gave it.
  const entries = receive(error("/home/me/app/src/Other.tsx"));
  assert.equal(entries[1].original.source, "/home/me/app/src/Other.tsx");
  assert.equal(receive(error("/home/me/lib/Noisy Box.tsx"))[2].original.source, "/home/me/lib/Noisy Box.tsx");
});

// Rsbuild 2.3's message for a syntax error (Rspack's report; its HTML twin for the overlay left out).
const RSBUILD_SYNTAX = "File: ./src/components/Greeting.tsx:1:1\n  × Module build failed (from builtin:swc-loader):\n  ╰─▶   × Syntax Error: Expression expected\n          ╭─[14:17]\n       12 │     console.log('greet clicked', { name, version: 2 });\n       13 │   }\n       14 │   const broken = ;\n          ·                  ─\n       15 │   return (\n       16 │     <p id=\"greeting\" onClick={onGreetClick}>\n          ╰────\n      \nImport traces (entry → error):\n  ./src/index.tsx\n  ./src/App.tsx\n  ./src/components/Greeting.tsx ×";

test("Rsbuild's build error on its HMR socket is an error entry that says where it broke", () => {
  const receive = hmrSocket("ws://127.0.0.1:3000/rsbuild-hmr?token=x", "");
  clock += 60000;
  assert.deepEqual(receive('{"type":"hash","data":"e46627580f3cc6d4"}'), []);
  const errors = JSON.stringify({ type: "errors", data: { text: [RSBUILD_SYNTAX], html: "<a>…</a>" } });
  const [entry] = receive(errors);
  assert.deepEqual([entry.level, entry.source], ["error", "dev-server"]);
  assert.ok(entry.message.startsWith("[rsbuild] File: ./src/components/Greeting.tsx:1:1\n  × Module build failed"), entry.message);
  // The place the code frame gives, in the file the report names (not the module's 1:1); its column
  // counts from 0 (the frame's marker stands under the `;`, the 18th character of its line).
  assert.deepEqual(entry.original, { source: "src/components/Greeting.tsx", line: 14, column: 18 });
  assert.equal(receive(errors).length, 1, "sent again at once: the same error");
  assert.equal(receive('{"type":"ok"}').length, 1, "a build that succeeded is no entry");
  // Another socket's message of the same shape is not Rsbuild's.
  assert.equal(hmrSocket("ws://127.0.0.1:3000/chat", "")(errors).length, 0);
});

// Metro's (Expo SDK 58) message for a syntax error on its HMR socket, as an Expo review saw it (its
// stack and errors list shortened).
const METRO_SYNTAX = {
  type: "error",
  body: {
    type: "TransformError",
    lineNumber: 13,
    column: 17,
    filename: "components/Greeting.tsx",
    name: "SyntaxError",
    message:
      "Error: /tmp/expoapp/app/components/Greeting.tsx: Unexpected token (13:17)\n\n  11 |   }\n  12 |\n> 13 |   const broken = ;\n     |                  ^\n  14 |   return (",
    stack: "SyntaxError: /tmp/expoapp/app/components/Greeting.tsx: Unexpected token (13:17)",
    errors: [],
  },
};

test("Metro's build error on its HMR socket is an error entry that says where it broke", () => {
  const receive = hmrSocket("ws://localhost:8081/hot?platform=web&dev=true", "");
  clock += 60000;
  assert.deepEqual(receive('{"type":"update-start","body":{"isInitialUpdate":false}}'), []);
  const [entry] = receive(JSON.stringify(METRO_SYNTAX));
  assert.deepEqual([entry.level, entry.source], ["error", "dev-server"]);
  assert.ok(entry.message.startsWith("[metro] TransformError: Error: /tmp/expoapp/app/components/Greeting.tsx: Unexpected token (13:17)"), entry.message);
  // Babel's column counts from 0: the `;` is the 18th character of its line.
  assert.deepEqual(entry.original, { source: "components/Greeting.tsx", line: 13, column: 18 });
  assert.equal(receive('{"type":"update","body":{"revisionId":"a1","isInitialUpdate":false,"added":[],"modified":[],"deleted":[]}}').length, 1, "an update is no entry");
  // Metro's other errors (a revision it lost) name no file: no build error of the page's.
  assert.equal(hmrSocket("ws://localhost:8081/hot", "")('{"type":"error","body":{"type":"RevisionNotFoundError","message":"The revision `92` was not found."}}').length, 0);
  // The same message on another socket is not Metro's.
  assert.equal(hmrSocket("ws://localhost:8081/chat", "")(JSON.stringify(METRO_SYNTAX)).length, 0);
});

// Next.js 16.4's (Turbopack's) message after a broken save, as a review saw it (its code frame shortened).
const NEXT_SYNTAX = {
  type: "built",
  hash: "1",
  errors: [
    {
      message:
        "./app/components/Greeting.tsx:13:18\nError: Expression expected\n\u001b[0m \u001b[90m 13 |\u001b[39m   \u001b[36mconst\u001b[39m broken \u001b[33m=\u001b[39m \u001b[33m;\u001b[39m\u001b[0m\n\nParsing ecmascript source code failed\n\nImport trace:\n  Server Component:\n    ./app/components/Greeting.tsx\n    ./app/page.tsx\n\n",
    },
  ],
  warnings: [],
};

test("Next.js's build error on its HMR socket is an error entry that says where it broke", () => {
  const receive = hmrSocket("ws://localhost:3000/_next/hmr?id=4PSc45", "");
  clock += 60000;
  assert.deepEqual(receive('{"type":"building"}'), []);
  const [entry] = receive(JSON.stringify(NEXT_SYNTAX));
  assert.deepEqual([entry.level, entry.source], ["error", "dev-server"]);
  assert.ok(entry.message.startsWith("[next] ./app/components/Greeting.tsx:13:18\nError: Expression expected\n  13 |   const broken = ;"), entry.message);
  assert.deepEqual(entry.original, { source: "app/components/Greeting.tsx", line: 13, column: 18 });
  assert.equal(receive(JSON.stringify(NEXT_SYNTAX)).length, 1, "sent again at once: the same error");
  assert.equal(receive('{"type":"built","hash":"2","errors":[],"warnings":[]}').length, 1, "a build without errors is no entry");
  // A page that connects while the build is broken is told at once, with `sync`.
  clock += 60000;
  const sync = hmrSocket("ws://localhost:3000/_next/hmr", "");
  assert.equal(sync(JSON.stringify({ type: "sync", errors: NEXT_SYNTAX.errors, warnings: [], hash: "1" })).length, 1);
  // The same message on another socket is not Next's.
  assert.equal(hmrSocket("ws://localhost:3000/chat", "")(JSON.stringify(NEXT_SYNTAX)).length, 0);
});

// Parcel 2.16's message for a syntax error (its HTML twin for the overlay left out), as its dev server sent it.
const PARCEL_SYNTAX = {
  type: "error",
  diagnostics: {
    ansi: [
      {
        message: "@parcel/transformer-js: Expression expected",
        stack: "",
        codeframe:
          '/tmp/parcelapp/src/components/Greeting.tsx:21:18\n  20 | \n> 21 |   const broken = ;\n>    |                  ^\n  22 |   return (\n  23 |     <button id="greeting" onClick={onClick}>',
        frames: [
          {
            location: "/tmp/parcelapp/src/components/Greeting.tsx:21:18",
            code: '  20 | \n> 21 |   const broken = ;\n>    |                  ^\n  22 |   return (\n  23 |     <button id="greeting" onClick={onClick}>',
          },
        ],
        hints: [],
        documentation: "",
      },
    ],
    html: [],
  },
};

test("Parcel's build error on its HMR socket is an error entry that says where it broke", () => {
  const receive = hmrSocket("ws://127.0.0.1:1234/", "");
  clock += 60000;
  const [entry] = receive(JSON.stringify(PARCEL_SYNTAX));
  assert.deepEqual([entry.level, entry.source], ["error", "dev-server"]);
  assert.ok(entry.message.startsWith("[parcel] @parcel/transformer-js: Expression expected\n/tmp/parcelapp/src/components/Greeting.tsx:21:18\n"), entry.message);
  assert.deepEqual(entry.original, { source: "/tmp/parcelapp/src/components/Greeting.tsx", line: 21, column: 18 });
  assert.equal(receive(JSON.stringify(PARCEL_SYNTAX)).length, 1, "sent again at once: the same error");
  assert.equal(receive('{"type":"update","assets":[]}').length, 1, "a build that succeeded is no entry");
  assert.equal(receive('{"type":"error","message":"not parcel"}').length, 1, "another socket's error message is no build error");
});

// webpack-dev-server 5.2's message for a syntax error in a module no loader handles (webpack's own
// parser), as its socket sent it.
const WEBPACK_SYNTAX = {
  type: "errors",
  data: [
    {
      moduleIdentifier: "/tmp/wds/app/src/util.js",
      moduleName: "./src/util.js",
      loc: "9:17",
      message:
        "Module parse failed: Unexpected token (9:17)\nFile was parsed as module type 'javascript/auto'.\nYou may need an appropriate loader to handle this file type, currently no loaders are configured to process this file. See https://webpack.js.org/concepts#loaders\n   8 | export function explode(reason) {\n>  9 |   const broken = ;\n     |                  ^\n  10 |   const message = `boom from util: ${reason}`;",
    },
  ],
};

test("webpack-dev-server's build error on its socket is an error entry that says where it broke", () => {
  const receive = hmrSocket("ws://127.0.0.1:8080/ws", "");
  clock += 60000;
  assert.deepEqual(receive('{"type":"hash","data":"0e2a14f01ffbbd6f9c30"}'), []);
  const [entry] = receive(JSON.stringify(WEBPACK_SYNTAX));
  assert.deepEqual([entry.level, entry.source], ["error", "dev-server"]);
  assert.ok(entry.message.startsWith("[webpack] ERROR in ./src/util.js 9:17\nModule parse failed: Unexpected token (9:17)\n"), entry.message);
  // webpack's loc counts columns from 0 (the caret stands under the `;`, the 18th character of its line).
  assert.deepEqual(entry.original, { source: "src/util.js", line: 9, column: 18 });
  assert.equal(receive(JSON.stringify(WEBPACK_SYNTAX)).length, 1, "sent again at once: the same error");
  assert.equal(receive('{"type":"ok"}').length, 1, "a build that succeeded is no entry");
  // A build that succeeded with warnings (webpack 5.113's, as its socket sent it) is no build error.
  const warnings = '{"type":"warnings","data":[{"moduleIdentifier":"/tmp/wds/app/src/index.js","moduleName":"./src/index.js","loc":"3:12-19","message":"export \'nothere\' (imported as \'nothere\') was not found in \'./util.js\' (possible exports: announce, explode)"}]}';
  assert.equal(receive(warnings).length, 1);
  // Another socket's message of the same shape is not webpack-dev-server's.
  assert.equal(hmrSocket("ws://127.0.0.1:8080/chat/ws", "")(JSON.stringify(WEBPACK_SYNTAX)).length, 0);
});

test("a socket that greets as webpack-dev-server does is its socket, wherever the project put it", () => {
  clock += 60000;
  const receive = hmrSocket("ws://localhost:4200/ng-cli-ws", "");
  assert.deepEqual(receive('{"type":"hot"}'), []);
  assert.equal(receive(JSON.stringify(WEBPACK_SYNTAX)).length, 1);
  // Its greeting only counts first: an app's socket that says it later is the app's.
  const app = hmrSocket("ws://localhost:4200/feed", "");
  app('{"type":"news"}');
  app('{"type":"hot"}');
  clock += 60000;
  assert.equal(app(JSON.stringify(WEBPACK_SYNTAX)).length, 0);
});

test("webpack's errors through a loader, with colours, or as webpack 4's text say where the parser stopped", () => {
  clock += 60000;
  const receive = hmrSocket("wss://app.localhost/ws?x=1", "");
  // babel-loader's: no loc; Babel's message places it (its column from 0), its code frame coloured.
  const babel = {
    moduleIdentifier: "/app/node_modules/babel-loader/lib/index.js??ruleSet[1].rules[0]!/app/src/Widget.tsx",
    moduleName: "./node_modules/babel-loader/lib/index.js??ruleSet[1].rules[0]!./src/Widget.tsx",
    message:
      "Module build failed (from ./node_modules/babel-loader/lib/index.js):\nSyntaxError: /app/src/Widget.tsx: Unexpected token (28:17)\n\n\u001b[0m \u001b[90m 27 |\u001b[39m\n\u001b[31m\u001b[1m>\u001b[22m\u001b[39m\u001b[90m 28 |\u001b[39m   \u001b[36mconst\u001b[39m broken \u001b[33m=\u001b[39m \u001b[33m;\u001b[39m",
  };
  const [entry] = receive(JSON.stringify({ type: "errors", data: [babel] }));
  assert.deepEqual(entry.original, { source: "src/Widget.tsx", line: 28, column: 18 });
  assert.ok(entry.message.startsWith("[webpack] ERROR in ./src/Widget.tsx\nModule build failed (from ./node_modules/babel-loader/lib/index.js):\n"), entry.message);
  assert.ok(entry.message.endsWith("> 28 |   const broken = ;"), "no colour codes left");
  // webpack 4's: each error a text, the module and its place on its first line.
  const text = "./src/util.js 9:17\nModule parse failed: Unexpected token (9:17)\nYou may need an appropriate loader";
  const entries = receive(JSON.stringify({ type: "errors", data: [text, "./src/other.js\nModule not found"] }));
  assert.equal(entries[1].message, `[webpack] ERROR in ${text}\n\nERROR in ./src/other.js\nModule not found`);
  assert.deepEqual(entries[1].original, { source: "src/util.js", line: 9, column: 18 });
  // An error of no module (a plugin's) has no place.
  const plugin = receive(JSON.stringify({ type: "errors", data: [{ message: "Conflict: Multiple assets emit different content to the same filename main.js" }] }));
  assert.equal(plugin[2].message, "[webpack] ERROR\nConflict: Multiple assets emit different content to the same filename main.js");
  assert.equal(plugin[2].original, undefined);
});

test("Rspack's swc and MDX build errors, placed by swc's code frame and by the MDX compiler's message", () => {
  clock += 60000;
  const receive = hmrSocket("ws://127.0.0.1:3000/ws", "");
  // Docusaurus 3.10 (Rspack 1.7, webpack-dev-server), as its socket sent them: no loc.
  const swc = {
    moduleIdentifier: "builtin:swc-loader??ruleSet[1].rules[5].use[0]!/tmp/docuapp/src/components/PriceTable.tsx",
    moduleName: "./src/components/PriceTable.tsx",
    message: [
      "  \u00d7 Module build failed (from builtin:swc-loader):",
      "  \u251c\u2500\u25b6   \u00d7   x Expected ident",
      "  \u2502     \u2502    ,-[/tmp/docuapp/src/components/PriceTable.tsx:3:1]",
      "  \u2502     \u2502  1 | import React from 'react';",
      "  \u2502     \u2502  2 |",
      "  \u2502     \u2502  3 | type Plan = {name: string; price: number;;",
      "  \u2502     \u2502    :                                          ^",
      "  \u2502     \u2502  4 |",
      "  \u2502     \u2502    `----",
    ].join("\n"),
  };
  const [tsx] = receive(JSON.stringify({ type: "errors", data: [swc] }));
  // The caret stands under the second `;`, the 42nd character of line 3.
  assert.deepEqual(tsx.original, { source: "src/components/PriceTable.tsx", line: 3, column: 42 });
  const mdx = {
    moduleName: "./docs/widgets/pricing.mdx",
    message:
      '  \u00d7 Module build failed (from ./node_modules/@docusaurus/mdx-loader/lib/index.js):\n  \u2570\u2500\u25b6   \u00d7 Error: MDX compilation failed for file "/tmp/docuapp/docs/widgets/pricing.mdx"\n        \u2502 Details:\n        \u2502 {\n        \u2502   "column": 44,\n        \u2502   "line": 9,\n        \u2502   "name": "9:44",\n        \u2502 }',
  };
  const entries = receive(JSON.stringify({ type: "errors", data: [mdx] }));
  assert.deepEqual(entries[1].original, { source: "docs/widgets/pricing.mdx", line: 9, column: 44 });
  // A frame whose caret is not under its line: the line alone.
  const odd = { ...swc, message: swc.message.replace("    :                                          ^", "    x") };
  const more = receive(JSON.stringify({ type: "errors", data: [odd] }));
  assert.deepEqual(more[2].original, { source: "src/components/PriceTable.tsx", line: 3, column: undefined });
});

test("a socket the page closed before it opened says so, not that the connection failed", () => {
  // React's StrictMode: the effect's cleanup closes the first socket at once; the browser fires error.
  const closedEarly = { url: "ws://127.0.0.1:4001/stock", protocol: "", on: {} };
  watch(closedEarly);
  filled.close.call(closedEarly);
  for (const fn of closedEarly.on.error) fn({});
  assert.deepEqual(ended.at(-1), { failed: true, error: "closed by the page before it opened" });
  // One the server refused.
  const refused = { url: "ws://127.0.0.1:4002/stock", protocol: "", on: {} };
  watch(refused);
  for (const fn of refused.on.error) fn({});
  assert.deepEqual(ended.at(-1), { failed: true, error: "WebSocket connection failed" });
});
