// page/app_failures.js: the failures SvelteKit answers with HTTP 200 (a form
// action's fail() or throw, a load that failed on a client-side navigation)
// and a GraphQL server's `errors` answered with 200, and what a React Router
// `.data` answer's turbo-stream body says of a loader's or action's error, and the failures of
// a tRPC batch (answered 207) or procedure, as
// the messages of error entries; every other answer is none. A GraphQL request's operation by name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
globalThis.__gasoline = {};
require("../../page/app_failures.js");
const { appFailures } = globalThis.__gasoline;
delete globalThis.__gasoline;

const ACTION = { "x-sveltekit-action": "true", accept: "application/json" };

test("only SvelteKit's data requests and enhanced form posts are looked at", () => {
  assert.equal(appFailures.watched("GET", "http://localhost:5173/broken/__data.json?x-sveltekit-invalidated=01", {}), true);
  assert.equal(appFailures.watched("POST", "http://localhost:5173/login?/signin", ACTION), true);
  assert.equal(appFailures.watched("POST", "http://localhost:5173/login", { accept: "application/json" }), false);
  assert.equal(appFailures.watched("GET", "http://localhost:5173/api/items", {}), false);
});

test("a form action's fail() and throw, answered 200, are failures; its data stays out of the message", () => {
  const failure = JSON.stringify({ type: "failure", status: 400, data: '[{"email":1,"incorrect":2},"ann@example.com",true]' });
  assert.equal(
    appFailures.describe("POST", "http://localhost:5173/login?/signin", 200, failure),
    "SvelteKit: the form action POST http://localhost:5173/login returned fail(400) (answered 200; its data is the response body)",
  );
  const thrown = JSON.stringify({ type: "error", status: 500, error: { message: "Internal Error" } });
  assert.equal(
    appFailures.describe("POST", "http://localhost:5173/login", 200, thrown),
    "SvelteKit: the form action POST http://localhost:5173/login threw (500): Internal Error (answered 200)",
  );
  for (const fine of [{ type: "success", status: 200 }, { type: "redirect", status: 303, location: "/" }]) {
    assert.equal(appFailures.describe("POST", "http://localhost:5173/login", 200, JSON.stringify(fine)), null);
  }
});

test("a load's error node in __data.json is a failure of its route", () => {
  const data = JSON.stringify({ type: "data", nodes: [{ type: "data", data: [{}] }, { type: "error", error: { message: "Internal Error" }, status: 500 }] });
  assert.equal(
    appFailures.describe("GET", "http://localhost:5173/broken/__data.json?x-sveltekit-invalidated=01", 200, data),
    "SvelteKit: the load of http://localhost:5173/broken failed (500): Internal Error (its __data.json answered 200)",
  );
  // The root route's data is /__data.json: its page is the origin and a slash.
  assert.equal(
    appFailures.describe("GET", "http://localhost:5173/__data.json", 200, data),
    "SvelteKit: the load of http://localhost:5173/ failed (500): Internal Error (its __data.json answered 200)",
  );
  const ok = JSON.stringify({ type: "data", nodes: [{ type: "data", data: [{}] }, null] });
  assert.equal(appFailures.describe("GET", "http://localhost:5173/products/__data.json", 200, ok), null);
});

test("what cannot be read, or came with an error status already, is none", () => {
  assert.equal(appFailures.describe("GET", "http://localhost:5173/x/__data.json", 200, '{"type":"data","nodes":[{"type":"err'), null);
  assert.equal(appFailures.describe("GET", "http://localhost:5173/x/__data.json", 200, undefined), null);
  assert.equal(appFailures.describe("GET", "http://localhost:5173/x/__data.json", 200, "null"), null);
  // A status >= 400 is a failed request already: its row says so.
  assert.equal(appFailures.describe("POST", "http://localhost:5173/login", 500, JSON.stringify({ type: "error", error: { message: "x" } })), null);
  // A message is bounded.
  const long = JSON.stringify({ type: "error", status: 500, error: { message: "m".repeat(5000) } });
  assert.ok(appFailures.describe("POST", "http://localhost:5173/a", 200, long).length < 450);
});

const GQL = "http://localhost:4000/graphql";
const apollo = { "content-type": "application/json", accept: "application/graphql-response+json,application/json;q=0.9" };

test("a GraphQL request is known by its path or by what it says it speaks", () => {
  assert.equal(appFailures.watched("POST", GQL, {}), true);
  assert.equal(appFailures.watched("GET", "http://localhost:4000/api/graphql/?query=%7Bme%7D", {}), true);
  // gqlgen's /query, known by the media type Apollo Client 4 and urql ask for.
  assert.equal(appFailures.watched("POST", "http://localhost:8080/query", apollo), true);
  assert.equal(appFailures.watched("POST", "http://localhost:8080/query", { "content-type": "application/graphql" }), true);
  assert.equal(appFailures.watched("POST", "http://localhost:8080/graphql-docs/intro", {}), false);
  assert.equal(appFailures.watched("POST", "http://localhost:8080/api/items", { "content-type": "application/json" }), false);
});

test("an operation is named by operationName, else by its query text; a batch by its names", () => {
  const body = (o) => JSON.stringify(o);
  assert.equal(appFailures.operationOf(GQL, body({ operationName: "OrderHistory", query: "query OrderHistory { orders { id } }" })), "OrderHistory");
  assert.equal(appFailures.operationOf(GQL, body({ query: "# list\nmutation AddToCart($id: ID!) { add(id: $id) }" })), "AddToCart");
  assert.equal(appFailures.operationOf(GQL, "query Me { me { id } }"), "Me"); // application/graphql text
  assert.equal(appFailures.operationOf(`${GQL}?operationName=Search&query=query%20Search%7Bx%7D`, undefined), "Search");
  assert.equal(appFailures.operationOf(`${GQL}?query=query%20Feed%7Bx%7D`, undefined), "Feed");
  assert.equal(appFailures.operationOf(`${GQL}?variables=%7B%7D&query=query+Feed+%7Bx%7D#top`, undefined), "Feed", "a + is a space");
  assert.equal(appFailures.operationOf(`${GQL}?query=%E0%A4%A`, undefined), undefined, "a broken escape names none");
  assert.equal(appFailures.operationOf(GQL, body({ query: "{ me { id } }" })), undefined, "an anonymous query names none");
  assert.equal(appFailures.operationOf(GQL, undefined), undefined);
  assert.equal(appFailures.operationOf(GQL, body([{ operationName: "A" }, { operationName: "B" }])), "A, B");
  const many = Array.from({ length: 7 }, (_, i) => ({ operationName: `Op${i}` }));
  assert.equal(appFailures.operationOf(GQL, body(many)), "Op0, Op1, Op2, Op3, Op4, +2");
});

test("GraphQL errors answered with 200 are failures, named by operation, with code, path and partial data", () => {
  const threw = { errors: [{ message: "Invoice service unavailable", path: ["orderHistory", 1, "invoice"] }], data: { orderHistory: [{ id: 1 }, { id: 2, invoice: null }] } };
  assert.equal(
    appFailures.describe("POST", GQL, 200, JSON.stringify(threw), "OrderHistory"),
    "GraphQL: OrderHistory failed: Invoice service unavailable (at orderHistory.1.invoice; answered 200 with partial data)",
  );
  const refused = { errors: [{ message: "quantity must be positive", extensions: { code: "BAD_USER_INPUT" } }, { message: "x" }, { message: "y" }], data: null };
  assert.equal(
    appFailures.describe("POST", GQL, 200, JSON.stringify(refused), "AddToCart"),
    "GraphQL: AddToCart failed: BAD_USER_INPUT: quantity must be positive (+2 more errors; answered 200)",
  );
  // No name: the request says which endpoint.
  assert.equal(
    appFailures.describe("POST", `${GQL}?v=1`, 200, JSON.stringify({ errors: [{ message: "no" }] })),
    `GraphQL: POST ${GQL} failed: no (answered 200)`,
  );
  // A batch: the first that failed, by its own name, and how many others did.
  const batch = [{ data: {} }, { errors: [{ message: "no" }] }, { errors: [{ message: "nor" }] }];
  assert.equal(
    appFailures.describe("POST", GQL, 200, JSON.stringify(batch), "A, B, C"),
    "GraphQL: B failed: no (answered 200) (1 more of the batch failed)",
  );
  // What succeeded, or was refused with an error status (a failed request already), is none.
  assert.equal(appFailures.describe("POST", GQL, 200, JSON.stringify({ data: { me: null } }), "Me"), null);
  assert.equal(appFailures.describe("POST", GQL, 200, JSON.stringify({ errors: [] , data: {} }), "Me"), null);
  assert.equal(appFailures.describe("POST", GQL, 400, JSON.stringify({ errors: [{ message: "Syntax Error" }] }), "Me"), null);
  // A hostile answer: a message is bounded, odd shapes are not thrown on.
  const long = { errors: [{ message: "m".repeat(5000), path: "not a list", extensions: { code: 7 } }] };
  assert.ok(appFailures.describe("POST", GQL, 200, JSON.stringify(long), "X").length < 400);
  assert.equal(appFailures.describe("POST", GQL, 200, JSON.stringify({ errors: [null] }), "X"), "GraphQL: X failed: (no message) (answered 200)");
});

// React Router 7.18's answers, as its dev server sent them (turbo-stream), for a loader that threw, a
// loader that threw a 404 response, an action that threw, and a loader whose deferred value rejected.
const RR = "http://app.localhost:5173";
const STACK = (at) => `Error: x\n    at loader (${at})\n    at callRouteHandler (file:///app/node_modules/react-router/dist/development/chunk-H4DAEOV7.mjs:509:22)`;
const BROKEN = `${JSON.stringify([{ _1: 2 }, "routes/broken", { _3: 4 }, "error", ["SanitizedError", 5, 6, 7], "Error", "inventory service unreachable (warehouse 7)", STACK("/srv/app/app/routes/broken.tsx:5:9")])}\n`;
const NOT_FOUND = `${JSON.stringify([{ _1: 2 }, "routes/items.$id", { _3: 4 }, "error", ["ErrorResponse", 5, 6, 7], "Item 99 not found", 404, "Internal Server Error"])}\n`;
const ACTION_THREW = `${JSON.stringify([{ _1: 2 }, "error", ["SanitizedError", 3, 4, 5], "TypeError", "like service timed out for item 4", STACK("file:///srv/app/app/routes/items.$id.tsx:13:9")])}\n`;
const DEFERRED =
  `${JSON.stringify([{ _1: 2 }, "routes/slow", { _3: 4 }, "data", { _5: 6, _7: 8, _9: 10 }, "title", "Recommended for you", "recommendations", ["P", 8], "reviews", ["P", 10]])}\n` +
  `E10:${JSON.stringify([["SanitizedError", 12, 13, 14], "Error", "reviews backend timed out", "Error: reviews backend timed out\n    at Timeout.eval [as _onTimeout] (/srv/app/app/routes/slow.tsx:15:70)\n    at listOnTimeout (node:internal/timers:581:17)"])}\n` +
  `P8:${JSON.stringify([[16, 17], "Desk lamp", "Monitor arm"])}\n`;

test("React Router's .data answers: a loader's or an action's error, and a deferred value that rejected", () => {
  assert.equal(appFailures.watched("GET", `${RR}/broken.data?_routes=routes%2Fbroken`, {}), true);
  assert.equal(appFailures.watched("GET", `${RR}/api/data`, {}), false);
  assert.equal(
    appFailures.describe("GET", `${RR}/broken.data`, 500, BROKEN),
    "React Router: the loader of routes/broken threw (500): inventory service unreachable (warehouse 7) (at /srv/app/app/routes/broken.tsx:5:9)",
  );
  assert.equal(appFailures.describe("GET", `${RR}/items/99.data`, 404, NOT_FOUND), "React Router: the loader of routes/items.$id answered 404: Item 99 not found");
  assert.equal(
    appFailures.describe("POST", `${RR}/items/4.data`, 500, ACTION_THREW),
    `React Router: the action of POST ${RR}/items/4 threw (500): TypeError: like service timed out for item 4 (at /srv/app/app/routes/items.$id.tsx:13:9)`,
  );
  assert.equal(
    appFailures.describe("GET", `${RR}/slow.data`, 200, DEFERRED),
    "React Router: the loader of routes/slow: its deferred reviews rejected: reviews backend timed out (at /srv/app/app/routes/slow.tsx:15:70) (the .data answered 200)",
  );
  const entry = appFailures.entry({ method: "GET", url: `${RR}/broken.data` }, 500, BROKEN, `${RR}/`);
  assert.deepEqual([entry.level, entry.source, entry.resourceUrl], ["error", "framework", `${RR}/broken.data`]);
});

test("React Router answers that report no error, or cannot be read, are none", () => {
  const fine = [
    // data, a validation answer the form shows (400, its data the errors), a redirect after a post
    [200, `${JSON.stringify([{ _1: 2 }, "routes/items.$id", { _3: 4 }, "data", { _5: 6 }, "item", { _7: 8 }, "id", 4])}\n`],
    [400, `${JSON.stringify([{ _1: 2 }, "data", { _3: 4 }, "errors", { _5: 6 }, "name", "Name is required"])}\n`],
    [202, `${JSON.stringify([{ _1: 2, _3: 4 }, "redirect", "/items/4", "status", 302])}\n`],
    // a deferred value that resolved
    [200, `${JSON.stringify([{ _1: 2 }, "routes/slow", { _3: 4 }, "data", { _5: 6 }, "recommendations", ["P", 6]])}\nP6:["Desk lamp"]\n`],
    // cut at the body's cap, not turbo-stream, crafted indexes
    [500, BROKEN.slice(0, 40)],
    [500, "<!doctype html><title>Error</title>"],
    [500, JSON.stringify([{ _1: 999 }, { _0: 0 }, ["SanitizedError", -1, 1e9, "x"]])],
    [500, JSON.stringify([[0, 0, 0, 0]])],
  ];
  for (const [status, body] of fine) assert.equal(appFailures.describe("GET", `${RR}/x.data`, status, body), null, body);
});

// tRPC 11's answers, as its node-http adapter wrote them for a Vite app (stacks shortened).
const TRPC = "http://127.0.0.1:5173/trpc";
const notFound = {
  error: {
    message: "item 99 does not exist",
    code: -32004,
    data: { code: "NOT_FOUND", httpStatus: 404, stack: "TRPCError: item 99 does not exist\n    at file:///app/server/router.ts:19:13", path: "itemById" },
  },
};
const zodMessage = JSON.stringify(
  [{ code: "too_small", minimum: 3, type: "string", inclusive: true, exact: false, message: "title must be at least 3 characters", path: ["title"] }],
  null,
  2,
);
const badRequest = { error: { message: zodMessage, code: -32600, data: { code: "BAD_REQUEST", httpStatus: 400, path: "saveNote" } } };
const greeted = { result: { data: { text: "Hello, dev", at: 1795922884377 } } };

test("a tRPC request is known by its trpc segment or its batch, and named by its procedures", () => {
  const batch = `${TRPC}/greet,greet,itemById?batch=1&input=%7B%220%22%3A%7B%22name%22%3A%22dev%22%7D%7D`;
  assert.equal(appFailures.isTrpc(batch), true);
  assert.equal(appFailures.watched("GET", batch, {}), true);
  assert.equal(appFailures.isTrpc("http://localhost:3000/api/trpc/post.byId?input=%7B%7D"), true, "Next.js's /api/trpc, no batch");
  assert.equal(appFailures.isTrpc("http://localhost:3000/rpc/post.byId%2Cuser.me?batch=1"), true, "another base, a batch");
  assert.equal(appFailures.isTrpc("http://localhost:3000/api/items?page=2"), false);
  assert.equal(appFailures.isTrpc("http://localhost:3000/api/items?batch=10"), false);
  assert.equal(appFailures.proceduresOf(batch), "greet, greet, itemById");
  assert.equal(appFailures.proceduresOf("http://localhost:3000/rpc/post.byId%2Cuser.me?batch=1"), "post.byId, user.me");
  assert.equal(appFailures.proceduresOf(`${TRPC}/a,b,c,d,e,f,g?batch=1`), "a, b, c, d, e, +2");
});

test("a tRPC batch answered 207 names the procedure that failed, its code and message", () => {
  const url = `${TRPC}/greet,greet,itemById?batch=1&input=%7B%7D`;
  assert.equal(
    appFailures.describe("GET", url, 207, JSON.stringify([greeted, greeted, notFound])),
    "tRPC: itemById failed: NOT_FOUND: item 99 does not exist (the batch of 3 answered 207)",
  );
  // A validation error's message is its issues as JSON: their words are said instead.
  assert.equal(
    appFailures.describe("POST", `${TRPC}/saveNote,saveNote?batch=1`, 207, JSON.stringify([{ result: { data: { ok: true } } }, badRequest])),
    "tRPC: saveNote failed: BAD_REQUEST: title: title must be at least 3 characters (the batch of 2 answered 207)",
  );
  // Two failures: the first, and how many more.
  assert.equal(
    appFailures.describe("GET", `${TRPC}/itemById,itemById?batch=1`, 404, JSON.stringify([notFound, notFound])),
    "tRPC: itemById failed: NOT_FOUND: item 99 does not exist (1 more of the batch failed; the batch of 2 answered 404)",
  );
  // A lone procedure, without a batch: its status says it failed, its body alone what it said.
  assert.equal(
    appFailures.describe("GET", "http://localhost:3000/api/trpc/itemById?input=%7B%7D", 404, JSON.stringify(notFound)),
    "tRPC: itemById failed: NOT_FOUND: item 99 does not exist (answered 404)",
  );
  // Under superjson the error is inside `json`; a procedure without `data.path` is named by the URL.
  const wrapped = { error: { json: { message: "no session", code: -32001, data: { code: "UNAUTHORIZED", httpStatus: 401 } } } };
  assert.equal(
    appFailures.describe("GET", `${TRPC}/greet,user.me?batch=1`, 207, JSON.stringify([{ result: { data: { json: "hi" } } }, wrapped])),
    "tRPC: user.me failed: UNAUTHORIZED: no session (the batch of 2 answered 207)",
  );
});

test("a tRPC answer cut at the cap still names its first failure; what is no tRPC answer is none", () => {
  const big = { result: { data: { rows: "x".repeat(20000) } } };
  const cut = JSON.stringify([notFound, big]).slice(0, 16384);
  assert.equal(
    appFailures.describe("GET", `${TRPC}/itemById,list?batch=1`, 207, cut),
    "tRPC: itemById failed: NOT_FOUND: item 99 does not exist (answered 207; the rest of the answer was past the capture's cap)",
  );
  // tRPC answers 200 only when every procedure succeeded: such a body is not even parsed.
  assert.equal(appFailures.describe("GET", `${TRPC}/greet?batch=1`, 200, "not json at all"), null);
  assert.equal(appFailures.describe("GET", `${TRPC}/greet?batch=1`, 207, JSON.stringify([greeted])), null);
  // Another API that happens to take batch=1: its answer is not tRPC's shape.
  assert.equal(appFailures.describe("GET", "http://localhost:3000/api/jobs?batch=1", 500, JSON.stringify({ error: "down" })), null);
  assert.equal(appFailures.describe("GET", "http://localhost:3000/api/jobs?batch=1", 500, JSON.stringify([1, 2])), null);
  assert.equal(appFailures.describe("GET", "http://localhost:3000/api/jobs?batch=1", 500, "<html>"), null);
});

test("a React Router loader's failure names the route its data was fetched for, not the page being left", () => {
  assert.equal(appFailures.routeOf("http://localhost:5173/products/999.data?_routes=routes%2Fproduct"), "http://localhost:5173/products/999");
  assert.equal(appFailures.routeOf("http://localhost:5173/_root.data"), "http://localhost:5173/");
  assert.equal(appFailures.routeOf("http://localhost:5173/search.data?q=mug&_routes=routes%2Fsearch"), "http://localhost:5173/search?q=mug");
  const got = appFailures.entry({ method: "GET", url: `${RR}/items/99.data?_routes=routes%2Fitems.%24id` }, 404, NOT_FOUND, `${RR}/items/1`);
  assert.equal(got && got.url, `${RR}/items/99`, JSON.stringify(got));
  // An action's answer: the page it was submitted from.
  const posted = appFailures.entry({ method: "POST", url: `${RR}/items/4.data` }, 500, ACTION_THREW, `${RR}/items/4?tab=likes`);
  assert.equal(posted && posted.url, `${RR}/items/4?tab=likes`, JSON.stringify(posted));
});
