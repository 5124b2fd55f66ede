// Failures a framework answers with HTTP 200, which no status shows.
// - SvelteKit answers a form action that returned `fail(400)` or threw
//   (`use:enhance`'s POST, sent with `x-sveltekit-action: true`) with
//   `{"type": "failure" | "error", "status": …}`, and a load that failed on a
//   client-side navigation (`/__data.json`) with an `{"type": "error"}` node,
//   then draws its error page and logs nothing.
// - A GraphQL server answers a resolver that threw, or input it refused, with
//   200 and an `errors` list beside whatever `data` it could make (the GraphQL
//   over HTTP spec); Apollo Client with `errorPolicy: "all"` renders the partial
//   data and logs nothing. A GraphQL request is one to a path whose last segment
//   is `graphql`, or one that says it speaks GraphQL (a `content-type` of
//   `application/graphql`, an `accept` of `application/graphql-response+json`).
//   Its operation's name (the body's `operationName`, else the name its query
//   text gives) goes on its rows (`operation`), so that one POST /graphql reads
//   apart from the next.
// fetch.js hands such a response here once its body is read (only those URLs
// and headers, so no other body is parsed), and an error entry (`source:
// "framework"`) says what failed, so that asking for errors finds it.
// Registry: reads nothing; adds appFailures.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || G.appFailures) return;
  const parse = JSON.parse; // taken before any page script runs
  const isArray = Array.isArray;
  const MOST = 300; // characters of what the framework said, in the message

  /** Whether a request may be one of SvelteKit's whose failures come with status 200. */
  function svelteKit(method, url, requestHeaders) {
    const path = url.split(/[?#]/)[0];
    if (path.endsWith("/__data.json")) return true;
    return method === "POST" && Boolean(requestHeaders) && requestHeaders["x-sveltekit-action"] === "true";
  }

  const GRAPHQL_PATH = /\/graphql\/?$/i;
  const GRAPHQL_TYPE = /^application\/graphql\b/i;
  const GRAPHQL_ACCEPT = /application\/graphql-response\+json/i;

  /** Whether a request is a GraphQL one: by its path's last segment, or by what it says it speaks. */
  function isGraphql(url, requestHeaders) {
    if (typeof url !== "string") return false;
    if (GRAPHQL_PATH.test(url.split(/[?#]/)[0])) return true;
    if (!requestHeaders) return false;
    return GRAPHQL_TYPE.test(requestHeaders["content-type"] || "") || GRAPHQL_ACCEPT.test(requestHeaders.accept || "");
  }

  /** Whether a request may be one whose failures a framework answers with status 200. */
  function watched(method, url, requestHeaders) {
    if (typeof url !== "string") return false;
    return svelteKit(method, url, requestHeaders) || isGraphql(url, requestHeaders);
  }

  // `query Name`, `mutation Name(…)`, `subscription Name`: the first operation a query text names.
  const NAMED = /\b(query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/;
  const MOST_NAMES = 5; // a batch's operations named, at most

  const decode = decodeURIComponent; // taken before any page script runs, as URL is not used

  /** The value of a URL's query parameter `name` (the first), decoded, or null. */
  function param(url, name) {
    const query = url.split("#")[0].split("?").slice(1).join("?");
    for (const pair of query.split("&")) {
      const at = pair.indexOf("=");
      if (at < 0 || pair.slice(0, at) !== name) continue;
      try {
        return decode(pair.slice(at + 1).replace(/\+/g, " "));
      } catch {
        return null;
      }
    }
    return null;
  }

  /** The name of one operation (`{operationName, query}`), or "". */
  function nameOf(op) {
    if (!op || typeof op !== "object") return "";
    if (typeof op.operationName === "string" && op.operationName) return op.operationName.slice(0, 100);
    const m = typeof op.query === "string" ? NAMED.exec(op.query.slice(0, 2000)) : null;
    return m ? m[2] : "";
  }

  /**
   * The operation a GraphQL request runs, by name (a batch's names joined with ", "), from its
   * body's text or, for a GET, its URL's `operationName` or `query`; undefined when it names none.
   */
  function operationOf(url, bodyText) {
    let op;
    if (typeof bodyText === "string" && bodyText) {
      try {
        op = parse(bodyText);
      } catch {
        // a query sent as application/graphql text
        op = { query: bodyText };
      }
    } else if (typeof url === "string" && url.includes("?")) {
      op = { operationName: param(url, "operationName"), query: param(url, "query") };
    }
    const names = (isArray(op) ? op.slice(0, MOST_NAMES) : [op]).map(nameOf).filter(Boolean);
    const more = isArray(op) && op.length > MOST_NAMES ? `, +${op.length - MOST_NAMES}` : "";
    return names.length ? names.join(", ") + more : undefined;
  }

  /** What one GraphQL result's `errors` say: the first's message, code and path, and how many there are. */
  function graphqlErrors(result) {
    if (!result || typeof result !== "object" || !isArray(result.errors) || result.errors.length === 0) return null;
    const first = result.errors[0] || {};
    const code = first.extensions && typeof first.extensions.code === "string" ? `${first.extensions.code}: ` : "";
    const notes = [];
    if (isArray(first.path)) notes.push(`at ${first.path.slice(0, 10).join(".")}`);
    if (result.errors.length > 1) notes.push(`+${result.errors.length - 1} more ${result.errors.length > 2 ? "errors" : "error"}`);
    notes.push(result.data && typeof result.data === "object" ? "answered 200 with partial data" : "answered 200");
    return `${code}${said(first) || "(no message)"} (${notes.join("; ")})`;
  }

  const said = (error) => {
    if (!error || typeof error !== "object") return "";
    const m = typeof error.message === "string" ? error.message : "";
    return m.length > MOST ? `${m.slice(0, MOST)}…` : m;
  };

  /**
   * The message of the failure a watched request's answer (`status`, body `text`) reports, or null
   * when it reports none (or cannot be read: cut at the cap, not JSON). `operation`: a GraphQL
   * request's, as operationOf names it.
   */
  function describe(method, url, status, text, operation) {
    if (status !== 200 || typeof text !== "string") return null;
    let answer;
    try {
      answer = parse(text);
    } catch {
      return null;
    }
    if (!answer || typeof answer !== "object") return null;
    const path = url.split(/[?#]/)[0];
    if (isArray(answer) || isArray(answer.errors)) {
      // GraphQL's: one result, or a batch's list of them (SvelteKit's answers are neither).
      const results = isArray(answer) ? answer : [answer];
      const failing = results.map(graphqlErrors);
      const at = failing.findIndex(Boolean);
      if (at < 0) return null;
      const names = typeof operation === "string" ? operation.split(", ") : [];
      const name = isArray(answer) ? names[at] : operation;
      const others = failing.filter(Boolean).length - 1;
      const batch = others > 0 ? ` (${others} more of the batch failed)` : "";
      return `GraphQL: ${name ? `${name} ` : `${method} ${path} `}failed: ${failing[at]}${batch}`;
    }
    if (path.endsWith("/__data.json")) {
      const route = path.slice(0, -"/__data.json".length);
      const page = /^[a-z][\w+.-]*:\/\/[^/]*$/i.test(route) ? `${route}/` : route; // the root route is its origin and a slash
      const nodes = isArray(answer.nodes) ? answer.nodes : [];
      const failed = answer.type === "error" ? answer : nodes.find((n) => n && n.type === "error");
      if (!failed) return null;
      const code = Number.isInteger(failed.status) ? ` (${failed.status})` : "";
      const what = said(failed.error);
      return `SvelteKit: the load of ${page} failed${code}${what ? `: ${what}` : ""} (its __data.json answered 200)`;
    }
    if (answer.type !== "failure" && answer.type !== "error") return null;
    const code = Number.isInteger(answer.status) ? ` ${answer.status}` : "";
    if (answer.type === "error") {
      const what = said(answer.error);
      return `SvelteKit: the form action ${method} ${path} threw${code ? ` (${code.trim()})` : ""}${what ? `: ${what}` : ""} (answered 200)`;
    }
    // Its data (often the form's own fields back) stays in the body's entry, not in a message.
    return `SvelteKit: the form action ${method} ${path} returned fail(${code.trim() || "?"}) (answered 200; its data is the response body)`;
  }

  /**
   * The error entry of a watched request (`{method, url, operation}`) whose answer reports a
   * failure (describe), or null; `pageUrl` the page's when the answer came.
   */
  function entry(request, status, text, pageUrl) {
    const message = describe(request.method, request.url, status, text, request.operation);
    return message ? { level: "error", source: "framework", message, url: pageUrl, resourceUrl: request.url } : null;
  }

  G.appFailures = { watched, describe, entry, isGraphql, operationOf };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiYXBwX2ZhaWx1cmVzLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9hcHBfZmFpbHVyZXMuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
