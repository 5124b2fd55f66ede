// lib/scope.js: where capture runs (local development origins by default, the
// sites turned on, never the server's own origin, nothing while paused), and
// background/registration.js: what is registered for it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { wanted, same, PAGE_FILES, RELAY_FILES } from "../../background/registration.js";
import { isLoopbackUrl, listProblem, serverUrlProblem, withDefaults } from "../../background/settings.js";

const require = createRequire(import.meta.url);

const scope = require("../../lib/scope.js");

const SERVER = "http://127.0.0.1:7890";
const none = scope.scopeWithDefaults(undefined);

test("local development origins are captured by default, on any port, http and https", () => {
  for (const url of [
    "http://localhost:5173/",
    "https://localhost/app",
    "http://app.localhost:3000/x?y=1",
    "http://a.b.localhost/",
    "http://127.0.0.1:8000/",
    "https://127.0.0.1:8443/",
    "http://[::1]:4000/",
  ]) {
    assert.equal(scope.scopeOf(url, none, SERVER), "default", url);
  }
  for (const url of [
    "http://shop.example/",
    "https://mail.example.com/",
    "http://192.168.1.20:5173/",
    "http://myapp.test/",
    "http://127.0.0.2:8000/", // match patterns cannot say 127.0.0.0/8
    "http://localhost.evil.example/",
    "http://evil-localhost/",
    "file:///etc/passwd",
    "chrome://extensions/",
    "about:blank",
    "not a url",
  ]) {
    assert.equal(scope.scopeOf(url, none, SERVER), "off", url);
  }
});

test("the server's own origin is never captured, under any loopback name", () => {
  for (const url of ["http://127.0.0.1:7890/", "http://localhost:7890/viewer", "http://[::1]:7890/"]) {
    assert.equal(scope.scopeOf(url, none, SERVER), "server", url);
    assert.equal(scope.inScope(url, none, SERVER), false);
  }
  assert.equal(scope.scopeOf("http://127.0.0.1:7891/", none, SERVER), "default");
  assert.deepEqual(scope.serverExclusions(SERVER), ["http://127.0.0.1:7890/*", "http://localhost:7890/*", "http://[::1]:7890/*"]);
});

test("a site turned on is captured on every port of that scheme; pausing stops everything", () => {
  const on = scope.scopeWithDefaults({ sites: ["http://shop.example/*", "bogus", "https://x/*/y", "https://*/*", "http://*.example/*"] });
  assert.deepEqual(on.sites, ["http://shop.example/*"], "only one site's patterns are kept, never a wildcard host");
  assert.equal(scope.scopeOf("http://shop.example:8080/cart", on, SERVER), "site");
  assert.equal(scope.scopeOf("https://shop.example/", on, SERVER), "off", "https is another site");
  assert.equal(scope.scopeOf("http://sub.shop.example/", on, SERVER), "off");
  const paused = scope.scopeWithDefaults({ sites: ["http://shop.example/*"], paused: true });
  assert.equal(scope.scopeOf("http://shop.example/", paused, SERVER), "paused");
  assert.equal(scope.scopeOf("http://localhost:3000/", paused, SERVER), "paused");
  assert.equal(scope.inScope("http://localhost:3000/", paused, SERVER), false);
  assert.equal(scope.sitePattern("https://shop.example:8443/a?b#c"), "https://shop.example/*");
  assert.equal(scope.sitePattern("chrome://settings"), null);
  assert.equal(scope.patternHost("https://shop.example/*"), "shop.example");
});

test("match patterns as Chrome reads them", () => {
  assert.ok(scope.matches("*://*.localhost/*", "https://a.localhost:1/"));
  assert.ok(scope.matches("http://localhost:3000/*", "http://localhost:3000/a"));
  assert.ok(!scope.matches("http://localhost:3000/*", "http://localhost:3001/a"));
  assert.ok(scope.matches("http://localhost:80/*", "http://localhost/a"));
  assert.ok(scope.matches("http://x.test/a/*", "http://x.test/a/b?c"));
  assert.ok(!scope.matches("http://x.test/a/*", "http://x.test/b"));
  assert.ok(scope.matches("<all_urls>", "https://any.example/"));
  assert.ok(!scope.matches("garbage", "https://any.example/"));
});

test("only a loopback server URL is accepted", () => {
  for (const url of ["http://127.0.0.1:7890", "http://localhost:9000/"]) assert.ok(isLoopbackUrl(url), url);
  // What the server would refuse or may never hear: another loopback address (it is sure to listen
  // on 127.0.0.1, on [::1] only where the machine has IPv6), TLS (it speaks none), a path, credentials.
  for (const url of [
    "http://192.168.1.2:7890", "https://gasoline.example", "ftp://127.0.0.1", "http://127.0.0.1.evil.example",
    "http://127.0.0.2:7890", "http://[::1]:7890", "https://127.0.0.1:7890", "http://127.0.0.1:7890/api", "http://u:p@127.0.0.1:7890", "http://127.0.0.1:7890/?x=1",
    "http://127.0.0.1:7890?x=1", "http://127.0.0.1:7890#f", "http://127.0.0.1:0", "http://127.0.0.1", "http://localhost:80",
  ]) {
    assert.ok(!isLoopbackUrl(url), url);
    assert.equal(withDefaults({ serverUrl: url }).serverUrl, "http://127.0.0.1:7890", `${url} is ignored when stored`);
  }
});

test("the page scripts are registered in every frame at document_start, the relay after the page world", () => {
  const [page, relay] = wanted(scope.DEFAULT_PATTERNS, scope.serverExclusions(SERVER));
  assert.equal(page.world, "MAIN");
  assert.equal(relay.world, "ISOLATED");
  for (const r of [page, relay]) {
    assert.equal(r.runAt, "document_start");
    assert.equal(r.allFrames, true);
    assert.equal(r.matchOriginAsFallback, true);
    assert.deepEqual(r.excludeMatches, scope.serverExclusions(SERVER));
  }
  assert.equal(PAGE_FILES.at(-1), "page/start.js");
  assert.ok(PAGE_FILES.indexOf("page/requests.js") < PAGE_FILES.indexOf("page/fetch.js"));
  assert.ok(same({ ...page, world: "MAIN" }, page));
  assert.ok(!same({ ...page, matches: ["http://localhost/*"] }, page));
});

test("every registered file exists", () => {
  for (const file of [...PAGE_FILES, ...RELAY_FILES]) assert.ok(existsSync(new URL(`../../${file}`, import.meta.url)), file);
});

test("a change widens the scope when capture resumes or a site is added, not when one goes", () => {
  const at = (sites, paused = false) => scope.scopeWithDefaults({ sites, paused });
  assert.equal(scope.widens(at([]), at(["http://shop.example/*"])), true, "a site on");
  assert.equal(scope.widens(at([], true), at([])), true, "resumed");
  assert.equal(scope.widens(at(["http://shop.example/*"]), at([])), false, "a site off");
  assert.equal(scope.widens(at([]), at([], true)), false, "paused");
  assert.equal(scope.widens(at([], true), at(["http://shop.example/*"], true)), false, "a site on while paused captures nothing yet");
  assert.equal(scope.widens(at(["http://a.example/*"]), at(["http://a.example/*"])), false, "no change");
});

test("a refused server URL says what to type instead", () => {
  const cases = [
    ["", /Type the server's URL/],
    ["127.0.0.1:7890", /Did you mean http:\/\/127\.0\.0\.1:7890\?/],
    ["localhost:9000/", /Did you mean http:\/\/localhost:9000\?/],
    ["http://[::1]:7890", /sure to listen on 127\.0\.0\.1 .*: use http:\/\/127\.0\.0\.1:7890/],
    ["https://127.0.0.1:7890", /plain http .*http:\/\/127\.0\.0\.1:7890/],
    ["http://127.0.0.1:80", /Name the port/],
    ["http://127.0.0.1", /Name the port/],
    ["http://127.0.0.1:7890/api", /Nothing after the port: http:\/\/127\.0\.0\.1:7890/],
    ["http://u:p@127.0.0.1:7890", /No user name or password/],
    ["http://192.168.1.2:7890", /this machine only/],
    ["htp:/127.0.0.1", /start it with http:\/\//],
  ];
  for (const [typed, says] of cases) assert.match(serverUrlProblem(typed) || "", says, typed);
  assert.equal(serverUrlProblem("http://localhost:7890/"), null);
});

test("redaction lists refuse what can never match, or would match everything", () => {
  assert.equal(listProblem("headers", ["x-tenant", "X-Api-Token"]), null);
  assert.match(listProblem("headers", ["Authorization:", "Bearer"]) || "", /"Authorization:" is not a header name/);
  assert.equal(listProblem("keys", ["tenant", "customer_ref"]), null);
  for (const key of ["*", "(.*)", "user*"]) assert.match(listProblem("keys", [key]) || "", /plain words, not patterns/, key);
  assert.match(listProblem("keys", ["x"]) || "", /too short/);
});
