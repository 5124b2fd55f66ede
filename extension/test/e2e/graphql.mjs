// A GraphQL API as a page meets one: graphql-js executes a real schema behind
// /graphql, answered as the GraphQL over HTTP spec says (a request it cannot
// parse or validate is a 400 for a client that accepts
// application/graphql-response+json; a resolver that throws, or input it
// refuses, is a 200 with `errors` beside whatever `data` it made). The page
// calls it as Apollo Client does (fetch, a JSON body with operationName) and as
// axios does (XHR). An agent must find the failures answered with 200 among the
// errors, and tell one POST /api/graphql from the next by its operation.
// Called by run.mjs with the running browser and server; `graphqlRoute` serves
// /api/graphql and /gql from run.mjs's server.
import assert from "node:assert/strict";
import { GraphQLError, buildSchema, graphql, parse, validate } from "graphql";

import { assertOperationsNamed } from "./harness.mjs";

const schema = buildSchema(`
  type Product { id: ID! name: String! }
  type Order { id: ID! invoice: String }
  type Query { products: [Product!]! orderHistory: [Order!]! }
  type Mutation { addToCart(id: ID!, quantity: Int!): Int! }
`);

const root = {
  products: () => [{ id: "1", name: "Kettle" }],
  orderHistory: () => [
    { id: "1", invoice: () => "INV-1" },
    {
      id: "2",
      invoice: () => {
        throw new Error("Invoice service unavailable");
      },
    },
  ],
  addToCart: ({ quantity }) => {
    if (quantity < 1) throw new GraphQLError("quantity must be positive", { extensions: { code: "BAD_USER_INPUT" } });
    return quantity;
  },
};

/** Answers one GraphQL request (`{query, variables, operationName}`) as a server following GraphQL over HTTP does. */
async function answer(req, res, request) {
  const strict = /application\/graphql-response\+json/.test(req.headers.accept || "");
  const type = strict ? "application/graphql-response+json" : "application/json";
  const send = (status, body) => {
    res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
    res.end(JSON.stringify(body));
  };
  let document;
  try {
    document = parse(String(request.query || ""));
  } catch (e) {
    return send(strict ? 400 : 200, { errors: [{ message: e.message }] });
  }
  const invalid = validate(schema, document);
  if (invalid.length) return send(strict ? 400 : 200, { errors: invalid.map((e) => ({ message: e.message })) });
  const result = await graphql({ schema, source: request.query, rootValue: root, variableValues: request.variables, operationName: request.operationName });
  send(200, result);
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>graphql</title><p>GraphQL</p>`;

/** Serves /api/graphql and the page that calls it; false for any other path. */
export function graphqlRoute(req, res, url) {
  if (url.pathname === "/gql") {
    res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" });
    res.end(PAGE);
  } else if (url.pathname === "/api/graphql" && req.method === "POST") {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      let request;
      try {
        request = JSON.parse(body);
      } catch {
        request = {};
      }
      answer(req, res, request).catch(() => (res.writeHead(500), res.end()));
    });
  } else if (url.pathname === "/api/graphql" && req.method === "GET") {
    const p = url.searchParams;
    answer(req, res, { query: p.get("query"), operationName: p.get("operationName") }).catch(() => (res.writeHead(500), res.end()));
  } else {
    return false;
  }
  return true;
}

export async function graphqlPage({ context, client, all, observe, waitFor, log, origin }) {
  const tab = await context.newPage();
  await tab.goto(`${origin}/gql`);
  const tabId = await waitFor("the GraphQL page's row", async () => (await all(client, "network_waterfall")).find((r) => r.url === `${origin}/gql`)?.tabId);
  const answers = await tab.evaluate(async () => {
    // As Apollo Client 4 sends an operation.
    const apollo = (operationName, query, variables = {}) =>
      fetch("/api/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/graphql-response+json,application/json;q=0.9" },
        body: JSON.stringify({ operationName, variables, query }),
      }).then(async (r) => [r.status, await r.json()]);
    // As axios sends one: an XHR, the query's name in its text alone.
    const axios = (query, variables) =>
      new Promise((resolve) => {
        const xhr = new XMLHttpRequest();
        xhr.open("POST", "/api/graphql");
        xhr.setRequestHeader("content-type", "application/json");
        xhr.onloadend = () => resolve([xhr.status, JSON.parse(xhr.responseText)]);
        xhr.send(JSON.stringify({ query, variables }));
      });
    return [
      await apollo("ListProducts", "query ListProducts { products { id name } }"),
      await apollo("OrderHistory", "query OrderHistory { orderHistory { id invoice } }"),
      await axios("mutation AddToCart($id: ID!, $qty: Int!) { addToCart(id: $id, quantity: $qty) }", { id: "1", qty: 0 }),
      await apollo("SearchProducts", "query SearchProducts { search(term: 1) { id } }"),
    ];
  });
  // The server answered as GraphQL over HTTP says: the two failures with data are 200s.
  assert.deepEqual(
    answers.map(([status, body]) => [status, Boolean(body.errors)]),
    [
      [200, false],
      [200, true],
      [200, true],
      [400, true],
    ],
    JSON.stringify(answers),
  );

  // The failures answered with 200 are errors, each named by its operation; the 400 is a failed
  // request already, and the query that went well is nothing.
  const framework = await waitFor("GraphQL's two failures answered with 200 as errors", async () => {
    const found = (await observe(client, { what: "errors", tabId, fields: "all", limit: 100 })).entries.filter((e) => e.source === "framework");
    return found.length === 2 && found;
  });
  assert.deepEqual(
    framework.map((e) => [e.message, e.resourceUrl]),
    [
      ["GraphQL: OrderHistory failed: Invoice service unavailable (at orderHistory.1.invoice; answered 200 with partial data)", `${origin}/api/graphql`],
      ["GraphQL: AddToCart failed: BAD_USER_INPUT: quantity must be positive (at addToCart; answered 200)", `${origin}/api/graphql`],
    ],
  );

  // Each POST /api/graphql reads apart from the next in the compact entries an agent reads first;
  // the summary's errors name the failures too.
  await assertOperationsNamed(
    client,
    tabId,
    "/api/graphql",
    [
      ["ListProducts", 200],
      ["OrderHistory", 200],
      ["AddToCart", 200],
      ["SearchProducts", 400],
    ],
    "GraphQL: OrderHistory failed",
  );
  log("GraphQL: failures answered with 200 are errors, and every request names its operation");
  await tab.close();
}
