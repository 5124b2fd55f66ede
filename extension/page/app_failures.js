// Failures a framework answers with HTTP 200, which no status shows: SvelteKit
// answers a form action that returned `fail(400)` or threw (`use:enhance`'s
// POST, sent with `x-sveltekit-action: true`) with `{"type": "failure" |
// "error", "status": …}`, and a load that failed on a client-side navigation
// (`/__data.json`) with an `{"type": "error"}` node, then draws its error page
// and logs nothing. fetch.js hands such a response here once its body is read
// (only those URLs and headers, so no other body is parsed), and an error
// entry (`source: "framework"`) says what failed, so that asking for errors
// finds it.
// Registry: reads nothing; adds appFailures.
(function () {
  "use strict";
  const G = globalThis.__gasoline;
  if (!G || G.appFailures) return;
  const parse = JSON.parse; // taken before any page script runs
  const isArray = Array.isArray;
  const MOST = 300; // characters of what the framework said, in the message

  /** Whether a request may be one of SvelteKit's whose failures come with status 200. */
  function watched(method, url, requestHeaders) {
    if (typeof url !== "string") return false;
    const path = url.split(/[?#]/)[0];
    if (path.endsWith("/__data.json")) return true;
    return method === "POST" && Boolean(requestHeaders) && requestHeaders["x-sveltekit-action"] === "true";
  }

  const said = (error) => {
    if (!error || typeof error !== "object") return "";
    const m = typeof error.message === "string" ? error.message : "";
    return m.length > MOST ? `${m.slice(0, MOST)}…` : m;
  };

  /**
   * The message of the failure a watched request's answer (`status`, body `text`) reports, or null
   * when it reports none (or cannot be read: cut at the cap, not JSON).
   */
  function describe(method, url, status, text) {
    if (status !== 200 || typeof text !== "string") return null;
    let answer;
    try {
      answer = parse(text);
    } catch {
      return null;
    }
    if (!answer || typeof answer !== "object") return null;
    const path = url.split(/[?#]/)[0];
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

  G.appFailures = { watched, describe };
})();
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiYXBwX2ZhaWx1cmVzLmpzIiwic291cmNlcyI6WyJnYXNvbGluZS1leHRlbnNpb246Ly8vcGFnZS9hcHBfZmFpbHVyZXMuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEiLCJpZ25vcmVMaXN0IjpbMF0sInhfZ29vZ2xlX2lnbm9yZUxpc3QiOlswXX0=
