// Call sites (lib/callsite.js): the page's first frame, whatever the URL
// scheme its bundler or server uses, with our own and other extensions'
// frames and native frames passed over.
import { test } from "node:test";
import assert from "node:assert/strict";
import { callsite } from "./load.mjs";

const ours = "    at console.log (gasoline://page/console.js:171:26)";
const site = (...frames) => callsite.callSite(["Error", ours, ...frames].join("\n"));

test("every URL scheme a bundler or server uses", () => {
  const cases = [
    ["    at App (webpack-internal:///./src/App.js:12:11)", "webpack-internal:///./src/App.js:12:11"],
    ["    at eval (webpack:///./src/index.js?:5:9)", "webpack:///./src/index.js?:5:9"],
    ["    at main (http://localhost:5173/@fs/home/ann/proj/src/main.ts?v=4f1a2b3c:10:5)", "http://localhost:5173/@fs/home/ann/proj/src/main.ts?v=4f1a2b3c:10:5"],
    ["    at http://localhost:5173/src/App.tsx?t=1700000000000:3:4", "http://localhost:5173/src/App.tsx?t=1700000000000:3:4"],
    ["    at https://cdn.example.com/app.min.js:1:20345", "https://cdn.example.com/app.min.js:1:20345"],
    ["    at blob:http://127.0.0.1:8080/6c1e2d3a-1111-2222-3333-444455556666:3:9", "blob:http://127.0.0.1:8080/6c1e2d3a-1111-2222-3333-444455556666:3:9"],
    ["    at run (file:///home/ann/site/app.js:7:3)", "file:///home/ann/site/app.js:7:3"],
    ["    at data:text/javascript,console.log('from%20data'):1:9", "data:text/javascript,console.log('from%20data'):1:9"],
    ["    at f (data:text/javascript,function f(){console.log(1)};f():1:20)", "data:text/javascript,function f(){console.log(1)};f():1:20"],
    ["    at <anonymous>:1:5", "<anonymous>:1:5"],
    ["    at eval (generated-by-sourceURL.js:4:1)", "generated-by-sourceURL.js:4:1"],
    ["    at async load (http://x.test/a.js:4:2)", "http://x.test/a.js:4:2"],
    ["    at new Widget (http://x.test/w(1).js:8:2)", "http://x.test/w(1).js:8:2"],
    ["    at Object.<anonymous> (http://x.test/a.js:9:9)", "http://x.test/a.js:9:9"],
  ];
  for (const [frame, want] of cases) assert.equal(site(frame), want, frame);
});

test("eval'd code is located where eval was called, with its position inside", () => {
  // Called from a script with no URL (Playwright's evaluate, a DevTools snippet): <anonymous>.
  assert.equal(site("    at eval (eval at evaluate (:370:30), <anonymous>:1:16)"), "<anonymous>:370:30 (eval <anonymous>:1:16)");
  assert.equal(site("    at run (:12:5)"), "<anonymous>:12:5");
  assert.equal(site("    at eval (eval at load (http://127.0.0.1/app.js:3:5), <anonymous>:1:9)"), "http://127.0.0.1/app.js:3:5 (eval <anonymous>:1:9)");
  assert.equal(site("    at Object.eval [as fn] (eval at create (http://x.test/a.js:1:1), <anonymous>:3:1)"), "http://x.test/a.js:1:1 (eval <anonymous>:3:1)");
  assert.equal(
    site("    at eval (eval at f (eval at g (http://x.test/a.js:1:1), <anonymous>:2:3), <anonymous>:1:1)"),
    "http://x.test/a.js:1:1 (eval <anonymous>:1:1)",
    "eval inside eval: the outermost real file",
  );
  // A real V8 stack of eval'd code.
  const stack = eval("new Error().stack"); // eslint-disable-line no-eval
  assert.match(callsite.callSite(stack), /^file:\/\/\/.*callsite\.test\.mjs:\d+:\d+ \(eval <anonymous>:1:1\)$/);
});

test("frames of extensions and native frames are passed over", () => {
  assert.equal(
    site("    at overrideMethod (chrome-extension://fmkadmapgofadopljbjfkapdkoienihi/build/installHook.js:1:143823)", "    at warn (http://localhost:3000/static/js/bundle.js:100:7)"),
    "http://localhost:3000/static/js/bundle.js:100:7",
  );
  assert.equal(site("    at Array.forEach (<anonymous>)", "    at http://x.test/a.js:2:3"), "http://x.test/a.js:2:3");
  assert.equal(site("    at async Promise.all (index 0)", "    at http://x.test/b.js:1:1"), "http://x.test/b.js:1:1");
  // An anonymous async function resumed after an await: its URL, not "async http://…".
  assert.equal(site("    at async http://x.test/d.js:57:4"), "http://x.test/d.js:57:4");
  assert.equal(site("    at eval (eval at inject (chrome-extension://abc/x.js:1:1), <anonymous>:1:1)", "    at http://x.test/c.js:5:5"), "http://x.test/c.js:5:5");
  assert.equal(site("    at chrome-extension://abc/content.js:1:1"), undefined, "nothing of the page's");
  assert.equal(callsite.callSite(undefined), undefined);
  assert.equal(callsite.callSite([{ getFileName() {} }]), undefined, "a stack a page's prepareStackTrace made");
});

test("a long data: URL is cut in the middle and keeps its position", () => {
  const url = `data:text/javascript,${"x".repeat(1000)}`;
  const where = site(`    at ${url}:1:30`);
  assert.ok(where.length <= 300, `${where.length} characters`);
  assert.ok(where.startsWith("data:text/javascript,xxx") && where.endsWith("…:1:30"), where);
});

test("a long module name is kept whole, a longer one cut to what the server resolves", () => {
  const pnpm = `webpack-internal:///(app-pages-browser)/./node_modules/.pnpm/${"next@16.4.6_react-dom@19.1.0_react@19.1.0__react@19.1.0/".repeat(6)}node_modules/next/dist/client/index.js`;
  assert.ok(pnpm.length > 300);
  assert.equal(site(`    at f (${pnpm}:7:11)`), `${pnpm}:7:11`);
  const huge = `http://localhost:3000/${"a".repeat(5000)}.js`;
  const where = site(`    at f (${huge}:1:2)`);
  assert.equal(where.length, 2048);
  assert.ok(where.endsWith("…:1:2"), where.slice(-20));
});

test("the call site's callers, in order, extensions and native frames passed over", () => {
  const stack = [
    "Error",
    ours,
    "    at console.warn (http://localhost:3000/node_modules/logger/index.js:12:5)",
    "    at Array.forEach (<anonymous>)",
    "    at announce (webpack-internal:///./src/util.js:4:11)",
    "    at overrideMethod (chrome-extension://abc/hook.js:1:1)",
    "    at eval (webpack-internal:///./src/index.js:5:3)",
    "    at run (http://localhost:3000/main.js:9:9)",
  ].join("\n");
  assert.deepEqual(callsite.callSites(stack, 3), [
    "http://localhost:3000/node_modules/logger/index.js:12:5",
    "webpack-internal:///./src/util.js:4:11",
    "webpack-internal:///./src/index.js:5:3",
  ]);
  assert.deepEqual(callsite.callSites(stack, 1), [callsite.callSite(stack)]);
  assert.deepEqual(callsite.callSites(undefined, 3), []);
});

test("a call site far below a framework's frames is reached: the first frame of each further script", () => {
  // zone.js and Angular's HttpClient between XMLHttpRequest.send and the page's own method.
  const zone = "http://localhost:4200/@fs/app/.angular/cache/vite/deps/zone__js.js?v=1";
  const core = "http://localhost:4200/@fs/app/.angular/cache/vite/deps/chunk-ANGULAR.js?v=1";
  const stack = [
    "Error",
    ours,
    ...Array.from({ length: 30 }, (_, i) => `    at ZoneDelegate.invoke (${zone}:${100 + i}:5)`),
    ...Array.from({ length: 30 }, (_, i) => `    at Observable._subscribe (${core}:${500 + i}:9)`),
    "    at _Dashboard.loadOrders (http://localhost:4200/main.js:105:12)",
    "    at _Dashboard.onClick (http://localhost:4200/main.js:140:3)",
    `    at ZoneDelegate.invokeTask (${zone}:999:1)`,
  ].join("\n");
  assert.deepEqual(callsite.reaching(stack, 2, 4), [
    `${zone}:100:5`,
    `${zone}:101:5`,
    `${zone}:102:5`,
    `${core}:500:9`,
    "http://localhost:4200/main.js:105:12",
  ]);
  assert.deepEqual(callsite.reaching(stack, 2, 1), [`${zone}:100:5`, `${zone}:101:5`, `${zone}:102:5`, `${core}:500:9`], "up to `further` scripts");
  // A shallow stack: the frames as they come.
  const shallow = ["Error", ours, "    at x (http://a/p.js:3:1)", "    at y (http://a/p.js:9:2)"].join("\n");
  assert.deepEqual(callsite.reaching(shallow, 4, 4), ["http://a/p.js:3:1", "http://a/p.js:9:2"]);
  assert.deepEqual(callsite.reaching(undefined, 4, 4), []);
});
