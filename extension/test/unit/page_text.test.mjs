// page/page_text.js's reading of a response's HTML (ofHtml): by a tokenizer of its own, not
// DOMParser, whose parseFromString with a string is a violation on a page that enforces Trusted
// Types. The e2e run checks it against the same page's text as the browser's DOM gives it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
globalThis.__gasoline = { core: { apply: Reflect.apply, weakMap: () => new WeakMap(), Promise, then: Promise.prototype.then } };
require("../../page/page_text.js");
globalThis.__gasoline.limits = require("../../lib/limits.js");
require("../../page/bodies.js");
const { pageText, bodies } = globalThis.__gasoline;
delete globalThis.__gasoline;

// The e2e fixture's debug page (test/e2e/run.mjs, /server-error?styled): styles past the body cap,
// a script, Werkzeug's frame (inline elements in a line, a source line in a <pre>), Django's table.
const STYLE = ".rule-x { color: red }\n".repeat(1000);
const PAGE =
  `<!doctype html><title>Server Error</title><style>${STYLE}</style><h1>Server Error (500)</h1>` +
  "<pre>Error: loader exploded\n    at loader (/app/routes/orders.tsx:5:9)</pre><script>var hidden = 'not text'</script>" +
  '<h4>File <cite class="filename">"/app/app.py"</cite>,\n      line <em class="line">82</em>,\n      in <code>show_item</code></h4>' +
  '<div class="source"><pre class="line current"><span class="ws">    </span>total = item["price"] <span>*</span> qty</pre></div>' +
  "<table><tr><th>Variable</th><th>Value</th></tr><tr><td>CSRF_COOKIE</td><td class=code><pre>'SERVER-PAGE-CSRF-77'</pre></td></tr>" +
  "<tr><td>CONTENT_TYPE</td><td><pre>'text/plain'</pre></td></tr>" +
  "<tr><td>HTTP_X_CSRFTOKEN</td><td><pre>'SERVER-PAGE-CSRF-78'</pre></td></tr></table>";

test("an error page's HTML as its text: a block a line, inline text in it, a <pre> as written, a table row a line", () => {
  assert.deepEqual(pageText.ofHtml(PAGE, 4096), {
    text:
      "Server Error (500)\nError: loader exploded\n    at loader (/app/routes/orders.tsx:5:9)\n" +
      'File "/app/app.py", line 82, in show_item\ntotal = item["price"] * qty\n' +
      "Variable: Value\nCSRF_COOKIE: 'SERVER-PAGE-CSRF-77'\nCONTENT_TYPE: 'text/plain'\nHTTP_X_CSRFTOKEN: 'SERVER-PAGE-CSRF-78'",
    truncated: false,
  });
});

test("what the parser implies and skips: unclosed cells and items, comments, raw text, references, a head", () => {
  const html =
    "<html><head><meta charset=utf-8><title>t</title><script>if (a < b) document.write('<p>no</p>')</script></head>" +
    "<body><!-- a <p>comment</p> --><p>one &amp; two &lt;3&gt; &#x41;&#66; &nbsp;x &unknown; 5 < 6" +
    "<p>next<ul><li>a<li>b</ul><table><tr><td>k<td>v<tr><td>k2<td>v2</table>" +
    '<a href="x>y" title=\'z>w\'>link</a><textarea>kept <b>as</b> text</textarea><template><p>inert</p></template><img src=x alt=y>end</body></html>';
  assert.equal(pageText.ofHtml(html, 4096).text, "one & two <3> AB x &unknown; 5 < 6\nnext\na\nb\nk: v\nk2: v2\nlink\nkept <b>as</b> text\nend");
});

test("a large page is read to the cap only", () => {
  const big = `<pre>${"line of a stack\n".repeat(100_000)}</pre>`;
  const read = pageText.ofHtml(big, 1000);
  assert.equal(read.text.length, 1000);
  assert.equal(read.truncated, true);
});

test("a Server Components page's error is read from its Flight data", () => {
  // Next.js 16's dev 500 of a Server Component that threw, as its inline scripts pushed it.
  const error = {
    digest: "3642739818",
    name: "Error",
    message: "inventory service unreachable while rendering sku A-1",
    stack: [
      ["loadInventory", "/tmp/nextapp/.next/dev/server/chunks/ssr/[root-of-the-server]__0hu6m4gkgqocq._.js", 43, 15, 0, 0, false],
      ["ServerErrorPage", "/tmp/nextapp/.next/dev/server/chunks/ssr/[root-of-the-server]__0hu6m4gkgqocq._.js", 48, 25, 0, 0, false],
    ],
    env: "Prerender",
  };
  const chunks = [[0], [1, '52:C\n56:D"$8b"\n'], [1, `56:E${JSON.stringify(error)}\n73:D"$8c"\n`]];
  assert.equal(
    pageText.flightError(chunks),
    "The server's error (React Server Components' data of the page):\n" +
      "Error: inventory service unreachable while rendering sku A-1\n" +
      "    at loadInventory (/tmp/nextapp/.next/dev/server/chunks/ssr/[root-of-the-server]__0hu6m4gkgqocq._.js:43:15)\n" +
      "    at ServerErrorPage (/tmp/nextapp/.next/dev/server/chunks/ssr/[root-of-the-server]__0hu6m4gkgqocq._.js:48:25)",
  );
  assert.equal(pageText.flightError([[1, '0:{"a":"$@1"}\n']]), "", "no error row");
  assert.equal(pageText.flightError([[1, "5:E{not json}\n"]]), "");
  assert.equal(pageText.flightError(undefined), "");
});


test("a <br> ends a line: Express's error page, a <pre> of lines indented with &nbsp;", () => {
  const html =
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Error</title></head><body>' +
    "<pre>ReferenceError: /app/views/broken.ejs:5<br> &nbsp; &nbsp;3| &lt;body&gt;<br> &gt;&gt; 5| &lt;p&gt;&lt;%= user.name %&gt;&lt;/p&gt;<br><br>" +
    "user is not defined<br> &nbsp; &nbsp;at eval (/app/views/broken.ejs:12:7)</pre></body></html>";
  assert.equal(
    pageText.ofHtml(html, 4096).text,
    "ReferenceError: /app/views/broken.ejs:5\n    3| <body>\n >> 5| <p><%= user.name %></p>\nuser is not defined\n    at eval (/app/views/broken.ejs:12:7)",
  );
  // Outside a <pre>, spaces collapse as ever; a <br> still ends the line.
  assert.equal(pageText.ofHtml("<p>Not found<br>  try   /home</p>", 4096).text, "Not found\ntry /home");
});

test("an error answer that is a fragment keeps its markup beside its text; a page's is its text alone", () => {
  const fragment = '<div id="note-error" class="field-error">Title is required.</div>';
  assert.deepEqual(bodies.errorPageFields({ text: fragment, size: fragment.length }, 422, "text/html; charset=utf-8"), {
    pageText: "Title is required.",
  });
  const page = `<!doctype html><title>Error</title><pre>ReferenceError: x is not defined</pre>`;
  const fields = bodies.errorPageFields({ text: page, size: page.length }, 500, "text/html");
  assert.equal(fields.responseBody, "[an HTML error page: its text is pageText]");
  assert.equal(fields.pageText, "ReferenceError: x is not defined");
  // A table parts a name from its value: its text only, whatever its size.
  const table = "<table><tr><td>token</td><td>abc</td></tr></table>";
  assert.equal(bodies.errorPageFields({ text: table }, 500, "text/html").responseBody, "[an HTML error page: its text is pageText]");
});

test("a Nuxt page's payload gives the server's error: its status, message and first frames", () => {
  // As `nuxi dev` answered a page whose setup threw (Nuxt 4.4, devalue's flat array).
  const payload = JSON.stringify([
    ["ShallowReactive", 1],
    { error: 2, data: 9, serverRendered: 10, path: 4 },
    ["null", "error", 3, "url", 4, "statusCode", 5, "statusMessage", 6, "message", 7, "stack", 8],
    "true",
    "/broken-ssr",
    500,
    "Server Error",
    "Cannot read properties of undefined (reading 'innerWidth')",
    "Cannot read properties of undefined (reading 'innerWidth')\nat setup (/app/pages/broken-ssr.vue:11:28)\nat _sfc_main.setup (/app/pages/broken-ssr.vue:29:23)\n" +
      "at a (/app/node_modules/a.js:1:1)\nat b (/app/node_modules/b.js:1:1)\nat c (/app/node_modules/c.js:1:1)\nat d (/app/node_modules/d.js:1:1)\nat e (/app/node_modules/e.js:1:1)",
    ["ShallowReactive", 10],
    true,
  ]);
  assert.equal(
    pageText.nuxtError(payload),
    "The server's error (Nuxt's data of the page):\n500 Cannot read properties of undefined (reading 'innerWidth')\n" +
      "    at setup (/app/pages/broken-ssr.vue:11:28)\n    at _sfc_main.setup (/app/pages/broken-ssr.vue:29:23)\n" +
      "    at a (/app/node_modules/a.js:1:1)\n    at b (/app/node_modules/b.js:1:1)\n    at c (/app/node_modules/c.js:1:1)\n    at d (/app/node_modules/d.js:1:1)",
  );
  // A page with no error, or no payload we read: nothing.
  assert.equal(pageText.nuxtError(JSON.stringify([["ShallowReactive", 1], { data: 2 }, {}])), "");
  assert.equal(pageText.nuxtError('[{"error":1},null]'), "");
  assert.equal(pageText.nuxtError("not json"), "");
  assert.equal(pageText.nuxtError(undefined), "");
});
