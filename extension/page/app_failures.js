// Failures a framework tells in its answer's body alone: most with HTTP 200,
// which no status shows.
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
// - React Router (framework mode, and Remix before it) fetches a route's data on
//   a client-side navigation, and sends a form's action, as `<path>.data`
//   (`/_root.data` for the root), answered in turbo-stream. A loader or action
//   that threw comes back as 4xx or 5xx with the error in that body alone (the
//   route's ErrorBoundary shows it, nothing is logged), and a deferred value
//   (a promise `<Await>` waits on) that rejected, as a later line of a 200.
//   The error's message, status, route and (in development) the server's frame
//   that threw are read from the body.
// - tRPC (v10, v11) sends a batch of procedures as one request (`httpBatchLink`:
//   `/trpc/greet,itemById?batch=1`) and answers it with one result per
//   procedure, in order: `{"result": …}` or `{"error": {"message", "code",
//   "data": {"code": "NOT_FOUND", "httpStatus": 404, "path": "itemById"}}}`
//   (inside `json` under a transformer such as superjson). A batch that has
//   both comes back 207 Multi-Status, which no status counts as failed, and the
//   app often shows the failure quietly; a failure alone comes back with its
//   own status, its message in the body only. A tRPC request is one whose path
//   has a `trpc` segment before the procedures, or that asks for a batch
//   (`batch=1`); its rows name its procedures (`operation`), and its body is
//   parsed only when its status is not 200 (tRPC answers 200 when every
//   procedure succeeded).
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

  /** A URL without its query and fragment. */
  const withoutQuery = (url) => url.split(/[?#]/)[0];

  /** Whether a request may be one of SvelteKit's whose failures come with status 200. */
  function svelteKit(method, url, requestHeaders) {
    const path = withoutQuery(url);
    if (path.endsWith("/__data.json")) return true;
    return method === "POST" && Boolean(requestHeaders) && requestHeaders["x-sveltekit-action"] === "true";
  }

  const GRAPHQL_PATH = /\/graphql\/?$/i;
  const GRAPHQL_TYPE = /^application\/graphql\b/i;
  const GRAPHQL_ACCEPT = /application\/graphql-response\+json/i;

  /** Whether a request is a GraphQL one: by its path's last segment, or by what it says it speaks. */
  function isGraphql(url, requestHeaders) {
    if (typeof url !== "string") return false;
    if (GRAPHQL_PATH.test(withoutQuery(url))) return true;
    if (!requestHeaders) return false;
    return GRAPHQL_TYPE.test(requestHeaders["content-type"] || "") || GRAPHQL_ACCEPT.test(requestHeaders.accept || "");
  }

  /** Whether a request is a tRPC one: a `trpc` path segment before the procedures, or a batch. */
  function isTrpc(url) {
    if (typeof url !== "string" || (url.indexOf("/trpc/") < 0 && url.indexOf("batch=1") < 0)) return false;
    return withoutQuery(url).indexOf("/trpc/") >= 0 || param(url, "batch") === "1";
  }

  /** The procedures a tRPC request calls, in order: its path's last segment, split at commas. */
  function procedures(url) {
    const path = withoutQuery(url);
    let last = path.slice(path.lastIndexOf("/") + 1);
    try {
      last = decode(last);
    } catch {
      // named as sent
    }
    return last.split(",").filter(Boolean);
  }

  /** A tRPC request's procedures as its rows name them (`operation`), or undefined. */
  function proceduresOf(url) {
    const names = procedures(url);
    if (names.length === 0) return undefined;
    const more = names.length > MOST_NAMES ? `, +${names.length - MOST_NAMES}` : "";
    return names.slice(0, MOST_NAMES).join(", ") + more;
  }

  /** Whether a request is React Router's single fetch of a route's data or a form's action. */
  function reactRouter(url) {
    return withoutQuery(url).endsWith(".data");
  }

  /** Whether a request may be one whose failures only its answer's body tells. */
  function watched(method, url, requestHeaders) {
    if (typeof url !== "string") return false;
    return svelteKit(method, url, requestHeaders) || isGraphql(url, requestHeaders) || reactRouter(url) || isTrpc(url);
  }

  // turbo-stream, as React Router writes it: a JSON array of values, the first the answer; an
  // object is `{"_<key's index>": <value's index>}`, an array a list of indexes, a negative index
  // a constant, a tagged array a type (`["SanitizedError", name, message, stack]`,
  // `["ErrorResponse", data, status, statusText]`, `["E", message]`, `["P", id]`: a promise);
  // each later line settles a promise (`P<id>:` resolved, `E<id>:` rejected) with values of its
  // own, appended to the first line's.
  const MOST_NODES = 2000; // values decoded per answer, whatever it holds
  const MAX_DEPTH = 8;

  /** The values of a turbo-stream body and its promises' rejections (id → index), or null. */
  function turboStream(text) {
    const lines = text.split("\n");
    let values;
    try {
      values = parse(lines[0]);
    } catch {
      return null;
    }
    if (!isArray(values) || values.length === 0) return null;
    const rejected = new Map();
    for (let i = 1; i < lines.length && i <= 100; i++) {
      const m = /^([PE])(\d+):/.exec(lines[i]);
      if (!m) continue;
      let more;
      try {
        more = parse(lines[i].slice(m[0].length));
      } catch {
        continue; // cut at the body's cap
      }
      if (!isArray(more)) continue;
      if (m[1] === "E") rejected.set(Number(m[2]), values.length);
      for (const v of more) values.push(v);
    }
    return { values, rejected };
  }

  /** The value at `index`, decoded within `budget` (objects and arrays as they were; errors tagged). */
  function decodeAt(values, index, depth, budget) {
    if (!Number.isInteger(index) || index < 0 || index >= values.length || depth > MAX_DEPTH || budget.n-- <= 0) return undefined;
    const v = values[index];
    if (v === null || typeof v !== "object") return v;
    if (isArray(v)) {
      switch (v[0]) {
        case "SanitizedError":
          return { thrown: { name: values[v[1]], message: values[v[2]], stack: values[v[3]] } };
        case "ErrorResponse":
          return { response: { data: decodeAt(values, v[1], depth + 1, budget), status: values[v[2]], statusText: values[v[3]] } };
        case "E":
          return { thrown: { message: values[v[1]] } };
        case "P":
          return { promise: v[1] };
        default:
          return typeof v[0] === "string" ? undefined : v.slice(0, 50).map((i) => decodeAt(values, i, depth + 1, budget));
      }
    }
    const out = {};
    let n = 0;
    for (const key of Object.keys(v)) {
      if (n++ >= 50) break;
      const name = values[Number(key.slice(1))];
      if (typeof name === "string") out[name] = decodeAt(values, v[key], depth + 1, budget);
    }
    return out;
  }

  const text = (v) => (typeof v === "string" ? (v.length > MOST ? `${v.slice(0, MOST)}…` : v) : "");

  /** The first frame of a server stack outside node_modules and node's own, "path:line:col". */
  function serverFrame(stack) {
    if (typeof stack !== "string") return "";
    for (const line of stack.split("\n").slice(1, 30)) {
      const m = /^\s*at (?:.*? \()?(.*?:\d+:\d+)\)?\s*$/.exec(line);
      if (m && !/node_modules|^node:|^internal\//.test(m[1])) return m[1].replace(/^file:\/\//, "");
    }
    return "";
  }

  /** What an error value (decodeAt's) says: "answered 404: Item 99 not found", "threw: …". */
  function errorText(e, status) {
    if (!e || typeof e !== "object") return null;
    if (e.response) {
      const data = e.response.data;
      const said = typeof data === "string" ? data : data && typeof data === "object" ? text(data.message) : "";
      const code = Number.isInteger(e.response.status) ? e.response.status : status;
      return `answered ${code}${said ? `: ${text(said)}` : ""}`;
    }
    if (e.thrown) {
      const where = serverFrame(e.thrown.stack);
      const name = typeof e.thrown.name === "string" && e.thrown.name !== "Error" ? `${e.thrown.name}: ` : "";
      return `threw${status >= 400 ? ` (${status})` : ""}: ${name}${text(e.thrown.message) || "(no message)"}${where ? ` (at ${where})` : ""}`;
    }
    return null;
  }

  /** The failure a React Router `.data` answer reports: a loader's or action's error, a deferred value rejected. */
  function reactRouterFailure(method, url, status, body) {
    if (typeof body !== "string" || body[0] !== "[") return null;
    const stream = turboStream(body);
    if (!stream) return null;
    const budget = { n: MOST_NODES };
    const top = decodeAt(stream.values, 0, 0, budget);
    if (!top || typeof top !== "object") return null;
    const path = withoutQuery(url).slice(0, -".data".length);
    // An action's answer is its route's own; a loader's names each route it ran.
    const routes = "error" in top || "data" in top ? [[null, top]] : Object.entries(top);
    for (const [route, result] of routes) {
      if (!result || typeof result !== "object") continue;
      const who = route ? `the loader of ${route}` : `the ${method === "GET" ? "loader" : "action"} of ${method} ${path}`;
      const failed = errorText(result.error, status);
      if (failed) return `React Router: ${who} ${failed}`;
      // A deferred value that rejected: a promise among the data's own values.
      const data = result.data;
      if (!data || typeof data !== "object") continue;
      for (const key of Object.keys(data)) {
        const p = data[key];
        if (!p || typeof p !== "object" || !Number.isInteger(p.promise) || !stream.rejected.has(p.promise)) continue;
        const why = errorText(decodeAt(stream.values, stream.rejected.get(p.promise), 0, budget), 0);
        if (why) return `React Router: ${who}: its deferred ${key} ${why.replace(/^threw/, "rejected")} (the .data answered ${status})`;
      }
    }
    return null;
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

  /** One tRPC result's error (under a transformer's `json` too), or null. */
  function trpcError(result) {
    const error = result && typeof result === "object" ? result.error : null;
    if (!error || typeof error !== "object") return null;
    return error.json && typeof error.json === "object" ? error.json : error;
  }

  /**
   * What a validation library's issues say, where tRPC's message is them as JSON (zod's
   * `[{"code": "too_small", "message": "title must be at least 3 characters", "path": ["title"]}]`):
   * "title: title must be at least 3 characters", or "" when the message is no such list.
   */
  function issuesOf(message) {
    if (typeof message !== "string" || message.trimStart()[0] !== "[") return "";
    let issues;
    try {
      issues = parse(message);
    } catch {
      return "";
    }
    if (!isArray(issues)) return "";
    const texts = issues
      .slice(0, 3)
      .map((i) => (i && typeof i.message === "string" ? (isArray(i.path) && i.path.length ? `${i.path.slice(0, 10).join(".")}: ` : "") + i.message : ""))
      .filter(Boolean);
    if (texts.length === 0) return "";
    return text(texts.join("; ")) + (issues.length > 3 ? ` (+${issues.length - 3} more)` : "");
  }

  /** A tRPC error's code and message: "NOT_FOUND: item 99 does not exist". */
  function trpcText(error) {
    const data = error.data && typeof error.data === "object" ? error.data : {};
    const code = typeof data.code === "string" ? `${data.code.slice(0, 50)}: ` : "";
    return `${code}${issuesOf(error.message) || said(error) || "(no message)"}`;
  }

  // A tRPC answer cut at the body's cap is no JSON: its first error is read from the text.
  const TRPC_ERROR = /"error":\{(?:"json":\{)?"message":("(?:[^"\\]|\\.){0,4000}")/;
  const TRPC_CODE = /"code":"([A-Z_]{1,50})"/;
  const TRPC_PATH_OF = /"path":("(?:[^"\\]|\\.){1,200}")/;

  /**
   * The failure a tRPC answer (not 200) reports: its first failing procedure's name, code and
   * message, or null when the body is none of tRPC's.
   */
  function trpcFailure(method, url, status, body) {
    if (status === 200 || typeof body !== "string") return null;
    const names = procedures(url);
    let answer;
    try {
      answer = parse(body);
    } catch {
      return cutTrpcFailure(url, status, body, names);
    }
    const results = isArray(answer) ? answer : [answer];
    if (!results.every((r) => r && typeof r === "object" && ("result" in r || "error" in r))) return null;
    const failing = [];
    results.forEach((r, i) => {
      const error = trpcError(r);
      if (error) failing.push([i, error]);
    });
    if (failing.length === 0) return null;
    const [at, error] = failing[0];
    const path = error.data && typeof error.data.path === "string" && error.data.path ? error.data.path : names[at];
    const notes = [];
    if (failing.length > 1) notes.push(`${failing.length - 1} more of the batch failed`);
    notes.push(isArray(answer) && results.length > 1 ? `the batch of ${results.length} answered ${status}` : `answered ${status}`);
    return `tRPC: ${path ? text(path) : `${method} ${withoutQuery(url)}`} failed: ${trpcText(error)} (${notes.join("; ")})`;
  }

  /** The first error of a tRPC answer cut at the cap, read from its text, or null. */
  function cutTrpcFailure(url, status, body, names) {
    const found = TRPC_ERROR.exec(body);
    if (!found) return null;
    const after = body.slice(found.index, found.index + 8000);
    const unquote = (quoted) => {
      try {
        return parse(quoted);
      } catch {
        return "";
      }
    };
    const code = TRPC_CODE.exec(after);
    const path = TRPC_PATH_OF.exec(after);
    const name = (path && unquote(path[1])) || (names.length === 1 ? names[0] : names.join(", "));
    const message = issuesOf(unquote(found[1])) || text(unquote(found[1])) || "(no message)";
    return `tRPC: ${text(name)} failed: ${code ? `${code[1]}: ` : ""}${message} (answered ${status}; the rest of the answer was past the capture's cap)`;
  }

  /**
   * The message of the failure a watched request's answer (`status`, body `text`) reports, or null
   * when it reports none (or cannot be read: cut at the cap, not JSON). `operation`: a GraphQL
   * request's, as operationOf names it.
   */
  function describe(method, url, status, text, operation) {
    if (typeof url === "string" && reactRouter(url)) return reactRouterFailure(method, url, status, text);
    if (isTrpc(url)) {
      const failure = trpcFailure(method, url, status, text);
      if (failure) return failure;
    }
    if (status !== 200 || typeof text !== "string") return null;
    let answer;
    try {
      answer = parse(text);
    } catch {
      return null;
    }
    if (!answer || typeof answer !== "object") return null;
    const path = withoutQuery(url);
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
    // A React Router loader's data is fetched before the URL is written: its error is the route's
    // it was fetched for, not the page's the router was leaving.
    const url = request.method === "GET" && reactRouter(request.url) ? routeOf(request.url) : pageUrl;
    return message ? { level: "error", source: "framework", message, url, resourceUrl: request.url } : null;
  }

  /** The page a React Router `.data` GET fetched a route's data for: `/products/9.data?_routes=…` → `/products/9`. */
  function routeOf(dataUrl) {
    const at = dataUrl.search(/[?#]/);
    const base = at < 0 ? dataUrl : dataUrl.slice(0, at);
    const query = at < 0 || dataUrl[at] !== "?" ? "" : dataUrl.slice(at + 1).split("#")[0];
    const path = base.slice(0, -".data".length).replace(/\/_root$/, "/");
    const kept = query
      .split("&")
      .filter((pair) => pair && !pair.startsWith("_routes="))
      .join("&");
    return kept ? `${path}?${kept}` : path;
  }

  G.appFailures = { watched, describe, entry, routeOf, isGraphql, operationOf, isTrpc, proceduresOf };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiYXBwX2ZhaWx1cmVzLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9hcHBfZmFpbHVyZXMuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
