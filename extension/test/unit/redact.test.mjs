import { test } from "node:test";
import assert from "node:assert/strict";
import { redact } from "./load.mjs";

const R = redact.REDACTED;
const p = redact.policy();

test("a credential header that holds none is kept as sent: it hides no secret and is often the bug", () => {
  const found = [];
  const kept = { Authorization: "Bearer undefined", "X-Api-Key": "null", "x-auth-token": "", "Proxy-Authorization": "Basic [object Object]", cookie: "NaN" };
  assert.deepEqual(redact.redactHeaders(kept, p, found, "requestHeaders"), kept);
  assert.deepEqual(found, []);
  // A word that is not one of those is a credential.
  for (const value of ["Bearer undefinedx", "Bearer abc", "undefined123", "Bearer", "token null extra"]) {
    assert.equal(redact.redactHeaders({ Authorization: value }, p).Authorization, R, value);
  }
});

test("credential headers are redacted whatever their case, and secret values in other headers", () => {
  const found = [];
  const out = redact.redactHeaders(
    {
      Authorization: "Bearer abc",
      cookie: "sid=1",
      "Set-Cookie": "sid=2",
      "Proxy-Authorization": "Basic x",
      "X-Api-Key": "k",
      "x-auth-token": "t",
      "X-Amz-Security-Token": "t",
      "x-debug": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
      "Content-Type": "application/json",
      Accept: "*/*",
    },
    p,
    found,
    "requestHeaders",
  );
  assert.deepEqual(out, {
    Authorization: R,
    cookie: R,
    "Set-Cookie": R,
    "Proxy-Authorization": R,
    "X-Api-Key": R,
    "x-auth-token": R,
    "X-Amz-Security-Token": R,
    "x-debug": R,
    "Content-Type": "application/json",
    Accept: "*/*",
  });
  assert.ok(found.includes("requestHeaders.Authorization") && found.includes("requestHeaders.x-debug:jwt"));
});

test("the user's extra header names and keys are redacted too", () => {
  const mine = redact.policy(["X-Tenant"], ["pin_code", "tenant"]);
  assert.deepEqual(redact.redactHeaders({ "x-tenant": "acme", "x-other": "1" }, mine), { "x-tenant": R, "x-other": "1" });
  assert.equal(redact.redactBody('{"pinCode":"1234","a":"b"}', mine), `{"pinCode":"${R}","a":"b"}`);
  assert.equal(redact.redactText("x_tenant_id=acme", mine), `x_tenant_id=${R}`);
});

test("secret keys: Sentry's defaults, the issue's list, bracketed and percent-encoded forms", () => {
  const secret = [
    "password", "secret", "passwd", "api_key", "apikey", "auth", "credentials", "mysql_pwd", "privatekey",
    "private_key", "token", "bearer", "session", "sid", "pwd", "pass", "cookie", "jwt", "otp", "pin", "ssn",
    "authorization", "client_secret", "refresh_token", "cvc", "cvv", "card_number", "cardNumber", "sig",
    "signature", "X-Amz-Signature", "X-Amz-Credential", "accessToken", "csrfmiddlewaretoken", "user[password]",
    "user%5Bpassword%5D", "session_id", "x-auth-token", "newPassword",
    // Django's names for the X-CSRFToken header and its cookie, as a debug page's META lists them.
    "HTTP_X_CSRFTOKEN", "CSRF_COOKIE", "csrf", "x_xsrftoken", "user_newpassword",
  ];
  for (const key of secret) assert.ok(redact.isSecretKey(key, p), key);
  for (const key of ["code", "key"]) {
    assert.ok(redact.isSecretKey(key, p, true), `${key} in a query or form`);
    assert.ok(!redact.isSecretKey(key, p, false), `${key} in JSON is an error code or a React key`);
  }
  const kept = [
    "max_tokens", "prompt_tokens", "tokens_used", "tokenizer", "maxTokens", "author", "passenger", "spinner",
    "keyboard", "password_length", "token_count", "session_timeout", "state", "name", "description", "id",
    "CSRF_COOKIE_NAME", "CSRF_HEADER_NAME", "http_x_requested_with", "page_tokens",
    "tokenListObserver", "authController", "sessionManager", "passwordHandler",
  ];
  for (const key of kept) assert.ok(!redact.isSecretKey(key, p, true), key);
});

test("JSON bodies: secret keys at any depth, JSON inside strings, GraphQL variables and inline arguments", () => {
  const found = [];
  const body = JSON.stringify({
    user: "ann",
    password: "hunter2",
    max_tokens: 5,
    nested: [{ accessToken: "t1", ok: 1, flag: true }],
    payload: JSON.stringify({ client_secret: "cs", n: 2 }),
    query: 'mutation { login(password: "gql-pw", pin: 1234, user: "a") }',
    variables: { input: { refresh_token: "rt", otp: 123456 } },
  });
  const out = JSON.parse(redact.redactBody(body, p, found, "requestBody", "application/json"));
  assert.deepEqual(out, {
    user: "ann",
    password: R,
    max_tokens: 5,
    nested: [{ accessToken: R, ok: 1, flag: true }],
    payload: JSON.stringify({ client_secret: R, n: 2 }),
    query: `mutation { login(password: "${R}", pin: ${R}, user: "a") }`,
    variables: { input: { refresh_token: R, otp: R } },
  });
  assert.deepEqual(found.sort(), [
    "requestBody.accessToken", "requestBody.client_secret", "requestBody.otp", "requestBody.password",
    "requestBody.pin", "requestBody.refresh_token",
  ]);
});

test("GraphQL variables' definitions and references name no secret; their values are redacted in variables", () => {
  const found = [];
  const body = JSON.stringify({
    operationName: "Login",
    query: "mutation Login($email: String!, $password: String!, $pin: Int) { login(email: $email, password: $password, pin: $pin) { token } }",
    variables: { email: "ann@example.com", password: "hunter2", pin: 1234 },
  });
  const out = JSON.parse(redact.redactBody(body, p, found, "requestBody", "application/json"));
  assert.equal(out.query, "mutation Login($email: String!, $password: String!, $pin: Int) { login(email: $email, password: $password, pin: $pin) { token } }");
  assert.deepEqual(out.variables, { email: "ann@example.com", password: R, pin: R });
  assert.deepEqual(found.sort(), ["requestBody.password", "requestBody.pin"]);
  // An inline value is still a value, and a quoted one that starts with $ is no variable.
  assert.equal(redact.redactText('login(password: "$ecret1")', p, []), `login(password: "${R}")`);
  assert.equal(redact.redactText("login(password: $ecret-1)", p, []), `login(password: ${R})`);
  assert.equal(redact.redactText("password=$ecret1", p, []), `password=${R}`, "a form's value");
});

test("CORS headers are never secret headers; a value rule still applies to them", () => {
  const found = [];
  const out = redact.redactHeaders(
    { "access-control-allow-credentials": "true", "access-control-allow-headers": "Authorization, X-CSRF-Token", "x-csrf-token": "abc", "access-control-expose-headers": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig" },
    p,
    found,
  );
  assert.deepEqual(out, { "access-control-allow-credentials": "true", "access-control-allow-headers": "Authorization, X-CSRF-Token", "x-csrf-token": R, "access-control-expose-headers": R });
});

test("a JSON body with nothing secret is kept as it came; one with a secret is redacted even when the names found are full", () => {
  const spaced = '{ "user": "ann",\n  "items": [1, 2, {"b": 1, "a": "{ \\"x\\": 1 }"}] }';
  const found = [];
  assert.equal(redact.redactBody(spaced, p, found, "responseBody", "application/json"), spaced, "same bytes: spacing, order, JSON in strings");
  assert.deepEqual(found, []);
  // The list of names found holds at most 32: a secret after that is still replaced.
  const full = Array.from({ length: 32 }, (_, i) => `other.${i}`);
  const out = redact.redactBody('{"user": "ann", "password": "hunter2"}', p, full, "responseBody", "application/json");
  assert.deepEqual(JSON.parse(out), { user: "ann", password: R });
  assert.equal(full.length, 32);
});

test("form-encoded, multipart, cut JSON and free text", () => {
  assert.equal(redact.redactBody("user=ann&password=hunter2&x=1"), `user=ann&password=${R}&x=1`);
  assert.equal(
    redact.redactBody("user%5Bpassword%5D=a&user[password]=b&user[name]=c&code=d"),
    `user%5Bpassword%5D=${R}&user[password]=${R}&user[name]=c&code=${R}`,
  );
  const multipart =
    '--XX\r\nContent-Disposition: form-data; name="password"\r\n\r\nmp-secret\r\n' +
    '--XX\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--XX--';
  const clean = redact.redactBody(multipart, p, [], "b", "multipart/form-data; boundary=XX");
  assert.ok(!clean.includes("mp-secret") && clean.includes("hello") && clean.includes(R));
  assert.equal(redact.redactBody('{"password": "hunter2", "user": "an'), `{"password": "${R}", "user": "an`);
  assert.equal(redact.redactText('{\\"password\\":\\"esc\\"}'), `{\\"password\\":\\"${R}\\"}`);
  assert.equal(redact.redactText("token: abc123 rest, max_tokens: 5"), `token: ${R} rest, max_tokens: 5`);
});

test("values that are secrets under any key", () => {
  const planted = {
    jwt: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV",
    bearer: "Bearer abcdefgh12345678",
    aws: "AKIAIOSFODNN7EXAMPLE",
    stripe: "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    stripeRestricted: "rk_live_4eC39HqLyjWDarjtT1zdp7dc",
    github: "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    githubPat: "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    slack: "xoxb-1234567890-abcdefghij",
    google: "AIzaSyA-1234567890abcdefghijklmnopqrstu",
    pem: "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----",
    card: "4111 1111 1111 1111",
    cardDashes: "5555-5555-5555-4444",
  };
  for (const [rule, secret] of Object.entries(planted)) {
    const found = [];
    const out = redact.redactText(`innocent note: ${secret} end`, p, found, "message");
    const core = secret.replace(/^Bearer /, "");
    assert.ok(!out.includes(core), `${rule}: ${out}`);
    assert.equal(found.length, 1, `${rule} named once: ${found}`);
  }
  const kept = "order 4111111111111112 at 1700000000000, version 1.2.3, phone 0123456789";
  assert.equal(redact.redactText(kept), kept, "Luhn failures and timestamps are kept");
  assert.equal(redact.redactBody('{"n":4111111111111111,"m":4111111111111112}'), `{"n":"${R}","m":4111111111111112}`);
});

test("URLs of any scheme: userinfo, query, fragment; host and path kept", () => {
  const found = [];
  assert.equal(
    redact.redactUrl("https://ann:pw@api.example.com/v1?q=shoes&api_key=S&page=2#access_token=T&state=s", p, found),
    `https://${R}@api.example.com/v1?q=shoes&api_key=${R}&page=2#access_token=${R}&state=s`,
  );
  assert.deepEqual(found, ["url.userinfo", "url.api_key", "url.access_token"]);
  assert.equal(redact.redactUrl("wss://rt.example.com/socket?token=x"), `wss://rt.example.com/socket?token=${R}`);
  assert.equal(redact.redactUrl("/cb?code=abc&key=AIzaSyA-1234567890abcdefghijklmnopqrstu"), `/cb?code=${R}&key=${R}`);
  assert.equal(redact.redactUrl("/app#/callback?code=abc&next=/x"), `/app#/callback?code=${R}&next=/x`);
  assert.equal(redact.redactUrl("/search?q=1&max_tokens=5"), "/search?q=1&max_tokens=5");
  assert.equal(redact.redactUrl("/s3?X-Amz-Credential=A%2F1&X-Amz-Signature=ff"), `/s3?X-Amz-Credential=${R}&X-Amz-Signature=${R}`);
});

test("entries of every kind are redacted field by field and say what was redacted", () => {
  const log = redact.redactEntry("logs", {
    message: 'login {"password":"pw1","max_tokens":5}',
    stack: "Error: bad token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc\n    at https://x.test/app.js?sig=abc:1:2",
    url: "https://x.test/#access_token=t",
  });
  assert.equal(log.message, `login {"password":"${R}","max_tokens":5}`);
  assert.ok(!log.stack.includes("eyJ") && !log.stack.includes("sig=abc"));
  assert.deepEqual(log.redacted, ["url.access_token", "message.password", "stack:jwt", "stack.sig"]);
  const ws = redact.redactEntry("websocket_events", { data: '{"type":"auth","token":"w1"}', url: "ws://h/s?sid=1" });
  assert.equal(ws.data, `{"type":"auth","token":"${R}"}`);
  assert.equal(ws.url, `ws://h/s?sid=${R}`);
  const body = redact.redactEntry("network_bodies", {
    url: "/login",
    requestHeaders: { "content-type": "application/x-www-form-urlencoded", authorization: "Basic YWxhZGRpbjpvcGVu" },
    requestBody: "user=a&pwd=b",
  });
  assert.equal(body.requestBody, `user=a&pwd=${R}`);
  assert.deepEqual(body.redacted, ["requestHeaders.authorization", "requestBody.pwd"]);
  const plain = redact.redactEntry("logs", { message: "nothing to hide" });
  assert.equal(plain.redacted, undefined, "no redacted field when nothing was");
});

test("password, card and secret inputs are recognised", () => {
  const input = (attrs) => ({ type: attrs.type || "text", name: attrs.name, id: attrs.id, getAttribute: (n) => attrs[n] });
  assert.ok(redact.isSecretInput(input({ type: "password" })));
  assert.ok(redact.isSecretInput(input({ name: "card_number" })));
  assert.ok(redact.isSecretInput(input({ id: "cvv" })));
  assert.ok(redact.isSecretInput(input({ autocomplete: "cc-number" })));
  assert.ok(redact.isSecretInput(input({ autocomplete: "one-time-code" })));
  assert.ok(redact.isSecretInput(input({ name: "api_secret" })));
  assert.ok(!redact.isSecretInput(input({ name: "email" })));
  assert.ok(!redact.isSecretInput(null));
});

test("a secret the cap cut through is not stored in part; a long blob and a second pass are left alone", () => {
  const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
  const cutAt = 30; // inside the JWT's payload: the pattern no longer matches what is left
  const body = `{"note":"ok","session":{"id":1},"bearer_for_later":"x","data":"${jwt}"}`.slice(0, 60 + cutAt);
  const entry = { method: "POST", url: "http://a/x", requestBody: body, requestBodyTruncated: true };
  redact.redactEntry("network_bodies", entry);
  assert.ok(!entry.requestBody.includes(jwt.slice(0, 12)), entry.requestBody);
  assert.ok(entry.requestBody.endsWith('"data":"'), entry.requestBody);
  assert.ok(entry.redacted.includes("requestBody:cut"));
  const again = structuredClone(entry);
  redact.redactEntry("network_bodies", again);
  assert.equal(again.requestBody, entry.requestBody, "a second pass (the service worker's) takes nothing more");
  const uncut = { method: "GET", url: "http://a/x", responseBody: "plain words ending here" };
  redact.redactEntry("network_bodies", uncut);
  assert.equal(uncut.responseBody, "plain words ending here", "only a cut text loses its last token");
  const blob = { event: "message", connectionId: "c", direction: "incoming", data: "A".repeat(5000), truncated: true };
  redact.redactEntry("websocket_events", blob);
  assert.equal(blob.data.length, 5000, "a run longer than any secret is a blob, kept");
  const log = { level: "log", message: `token sk_live_${"a".repeat(10)}`, messageTruncated: true };
  redact.redactEntry("logs", log);
  assert.equal(log.message, "token ");
});

test("API keys named with a prefix, and the keys of AI and developer services, are secrets", () => {
  for (const key of ["OPENAI_API_KEY", "openai_api_key", "googleApiKey", "sendgridApiKey", "ANTHROPIC_API_KEY", "mapboxAccessKey", "client-secret"]) {
    assert.ok(redact.isSecretKey(key, p), key);
  }
  for (const key of ["publicKey", "primaryKey", "api_key_length", "keyboard", "monkey"]) assert.ok(!redact.isSecretKey(key, p), key);
  const found = [];
  const text = [
    "init client with OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    "anthropic sk-ant-api03-abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789",
    "hf hf_abcdefghijklmnopqrstuvwxyzABCDEF npm npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "gitlab glpat-abcdefghijklmnopqrst google ya29.a0AfH6SMBabcdefghijklmnop",
  ].join("\n");
  assert.equal(
    redact.redactText(text, p, found, "message"),
    `init client with OPENAI_API_KEY=${R}\nanthropic ${R}\nhf ${R} npm ${R}\ngitlab ${R} google ${R}`,
  );
  assert.ok(found.includes("message:sk") && found.includes("message:huggingface"), found.join());
  // Under any key in JSON, `key` included.
  assert.equal(redact.redactBody('{"key":"sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD","ok":"task-list-item-container-wrapper"}'), `{"key":"${R}","ok":"task-list-item-container-wrapper"}`);
});

test("a credential header written as text loses its whole value, scheme and all", () => {
  assert.equal(redact.redactText("Authorization: Token 9944b09199c62bcf\nnext line"), `Authorization: ${R}\nnext line`);
  assert.equal(redact.redactText('curl -H "Authorization: Digest username=\\"a\\", response=\\"x\\"" http://x'), `curl -H "Authorization: ${R}" http://x`);
  assert.equal(redact.redactText("Cookie: theme=dark; PHPSESSID=q3k9; other=1"), `Cookie: ${R}`);
  // document.cookie logged as it is: the session cookies of PHP, GitHub, Laravel, WordPress, Express.
  assert.equal(
    redact.redactText("theme=dark; PHPSESSID=q3k9; _gh_sess=z; remember_web_59ba36=a; wordpress_logged_in_ab=c; connect.sid=s%3A"),
    `theme=dark; PHPSESSID=${R}; _gh_sess=${R}; remember_web_59ba36=${R}; wordpress_logged_in_ab=${R}; connect.sid=${R}`,
  );
});

test("in text: a secret key's list or object goes whole, and a quoted key may have spaces", () => {
  assert.equal(redact.redactText('credentials: ["bob","hunter2"], user: 1'), `credentials: ${R}, user: 1`);
  assert.equal(redact.redactText('auth = {user: "a", pass: "b"} rest'), `auth = ${R} rest`);
  assert.equal(redact.redactText('{"Secret Key": "k123", "Display Name": "ann"}'), `{"Secret Key": "${R}", "Display Name": "ann"}`);
});

test("code is left as code: a function or a comparison is no value, and React's $RefreshSig$ is no signature", () => {
  // Vite serves its index.html (with React's refresh preamble) for an unknown path.
  const preamble = "window.$RefreshReg$ = () => {};\nwindow.$RefreshSig$ = () => (type) => type;";
  assert.equal(redact.redactBody(preamble, p), preamble);
  // Parcel's hot update of a component (React Refresh's wrapper), as its HMR socket sends it.
  const wrapper = "var prevRefreshReg = globalThis.$RefreshReg$;\nvar prevRefreshSig = globalThis.$RefreshSig$;\nglobalThis.$RefreshSig$ = prevRefreshSig;";
  assert.equal(redact.redactText(wrapper), wrapper);
  assert.equal(redact.redactText("if (password === input) token = (a, b) => a"), "if (password === input) token = (a, b) => a");
  // A value after a secret key still goes, and a signed URL's sig too.
  assert.equal(redact.redactText("password = hunter2;"), `password = ${R};`);
  assert.equal(redact.redactText('{"sig": "abc123"}'), `{"sig": "${R}"}`);
  assert.equal(redact.redactUrl("https://x.test/blob?sv=1&sig=abc123", p), `https://x.test/blob?sv=1&sig=${R}`);
});

test("HTML: a secret input's value and a CSRF meta tag's content", () => {
  const html = '<form><input type="hidden" name="csrf_token" value="abc123"><input name="password" value=hunter2><input type="password" value="pw"><input name=q value="hi"><meta name="csrf-token" content="xyz"></form>';
  assert.equal(
    redact.redactBody(html, p, [], "responseBody", "text/html"),
    `<form><input type="hidden" name="csrf_token" value="${R}"><input name="password" value=${R}><input type="password" value="${R}"><input name=q value="hi"><meta name="csrf-token" content="${R}"></form>`,
  );
});

test("URLs: a path parameter and a token segment of a path or a hash route", () => {
  assert.equal(redact.redactUrl("https://x.test/app;jsessionid=ABC123/page?x=1"), `https://x.test/app;jsessionid=${R}/page?x=1`);
  assert.equal(redact.redactUrl("https://x.test/#/auth/token=abc?next=/"), `https://x.test/#/auth/token=${R}?next=/`);
  assert.equal(redact.redactUrl("https://x.test/a/b=c/d"), "https://x.test/a/b=c/d");
});

test("inputs named as one-time, recovery and verification codes, PINs, keys and seed phrases are secret", () => {
  const input = (name) => ({ type: "text", name, getAttribute: () => null });
  for (const name of ["pwd", "pin_code", "mfa_code", "verification_code", "sms_code", "recovery_code", "backup_code", "private_key", "seed_phrase", "OPENAI_API_KEY"]) {
    assert.ok(redact.isSecretInput(input(name)), name);
  }
  for (const name of ["spinner", "promo", "email", "username", "search"]) assert.ok(!redact.isSecretInput(input(name)), name);
});

test("an input named only by its label, aria-labelledby or title is judged by that text", () => {
  // A payment form's fields: `<label for="f2">CVC</label><input id="f2" name="f2" inputmode="numeric">`.
  const labelled = (texts, attrs = {}, ids = {}) => ({
    type: "text",
    name: "f2",
    id: "f2",
    labels: texts.map((textContent) => ({ textContent })),
    getAttribute: (n) => attrs[n] ?? null,
    getRootNode: () => ({ getElementById: (id) => (id in ids ? { textContent: ids[id] } : null) }),
  });
  for (const text of ["CVC", "Card number", "  Security code\n", "PIN", "Password (8 characters or more)"]) {
    assert.ok(redact.isSecretInput(labelled([text])), text);
  }
  assert.ok(redact.isSecretInput(labelled([], { "aria-labelledby": "l1 l2" }, { l2: "Card number" })));
  assert.ok(redact.isSecretInput(labelled([], { title: "Your CVV" })));
  for (const text of ["Full name", "Email", "Quantity", "City"]) {
    assert.ok(!redact.isSecretInput(labelled([text])), text);
  }
  assert.ok(!redact.isSecretInput(labelled([], { "aria-labelledby": "missing" })));
  // Only a label's first words are read.
  assert.ok(!redact.isSecretInput(labelled([`${"Delivery note ".repeat(8)} password`])));
});

test("YAML: a secret key's value on the lines after it goes whole, nothing else", () => {
  const yaml = ["db:", "  password:", "    hunter2", "  host: db.local", "api_key: |", "  line-one", "  line-two", "", "name: app"].join("\n");
  assert.equal(redact.redactText(yaml), ["db:", `  password: ${R}`, "  host: db.local", `api_key: ${R}`, "", "name: app"].join("\n"));
  assert.equal(redact.redactText("- token: >-  # folded\r\n    abc\r\n- ok: 1"), `- token: ${R}\r\n- ok: 1`);
  // A key that does not start its line is not YAML: a stack under an error message stays.
  const stack = "Error: bad token:\n    at f (app.js:1:2)";
  assert.equal(redact.redactText(stack), stack);
  // An empty value (the next line no deeper) takes nothing.
  assert.equal(redact.redactText("token:\nname: x"), "token:\nname: x");
});

test("a source file named for a secret keeps its line and column in stacks, locations and build errors", () => {
  const names = ["auth.ts", "useAuth.ts", "session.ts", "password-reset.ts", "token-list.ts", "SecretBox.tsx", "api-key-form.vue", "csrf.js"];
  for (const name of names) {
    const stack = `Error: boom\n    at readSession (http://127.0.0.1:5173/src/lib/${name}:3:11)\n    at http://127.0.0.1:5173/src/lib/${name}?t=17:40:2`;
    assert.equal(redact.redactText(stack), stack, name);
    const build = `/tmp/app/src/lib/${name}:4:15: ERROR: Unexpected ";"`;
    assert.equal(redact.redactText(build), build, name);
    const log = redact.redactEntry("errors", { message: "boom", stack, location: `http://127.0.0.1:5173/src/${name}:10:52` });
    assert.equal(log.location, `http://127.0.0.1:5173/src/${name}:10:52`, name);
    assert.equal(log.redacted, undefined, name);
  }
  // What only looks like one is still a pair: a value after a space, a single number, a dotted key.
  assert.equal(redact.redactText("session.ts: 3:11"), `session.ts: ${R}`);
  assert.equal(redact.redactText("secret.key:12345"), `secret.key:${R}`);
  assert.equal(redact.redactText('{"password":"1:2"}'), `{"password":"${R}"}`);
  assert.equal(redact.redactText("token=12:34"), `token=${R}`);
});

test("a line of code that calls for its secret keeps the call: a build error's code frame is the file as written", () => {
  for (const line of [
    "7  |  const password = ref('')",
    "const token = useCookie('auth')",
    "  password: computed(() => form.pw),",
    "const secret = await vault.read('db')",
    "  this.apiKey = new Key(config)",
    '    password = request.POST["password"]',
    'if request.method == "POST":\npassword = request.POST["password"]\nsecret_key = settings.SECRET_KEY.lower()',
    "  token = os.environ['API_TOKEN']",
  ]) {
    assert.equal(redact.redactText(line), line);
  }
  // A value is still one, bare or quoted.
  assert.equal(redact.redactText("password: hunter2"), `password: ${R}`);
  assert.equal(redact.redactText("const token = 'abc(def'"), `const token = '${R}'`);
  // An environment's working directories are paths; a password by any other name is not.
  assert.equal(redact.redactText("PWD: '/home/ann/shop'\nOLDPWD: '/home/ann'"), "PWD: '/home/ann/shop'\nOLDPWD: '/home/ann'");
  assert.equal(redact.redactText("pwd: 'hunter2'"), `pwd: '${R}'`);
});

test("Basic credentials shorter than 8 characters go when they decode to user:password", () => {
  const found = [];
  assert.equal(redact.redactText("Basic YTpi", undefined, found, "message"), "Basic [redacted]");
  assert.deepEqual(found, ["message:basic"]);
  assert.equal(redact.redactText("curl -H 'x: Basic YTpiYw=='"), "curl -H 'x: Basic [redacted]'");
  for (const prose of ["Basic info", "Basic setup done", "BASIC mode"]) assert.equal(redact.redactText(prose), prose);
  assert.equal(redact.redactText("Basic dXNlcjpwYXNz"), "Basic [redacted]", "8 or more, as before");
});

test("JSON inside a string inside a string (a persisted store logged whole) loses its secret values", () => {
  const persisted = JSON.stringify({ prefs: JSON.stringify({ accessToken: "S-deep", theme: "dark" }) });
  const text = `Storage {persist:root: ${JSON.stringify(persisted)}, length: 1}`;
  const out = redact.redactText(text);
  assert.ok(!out.includes("S-deep"), out);
  assert.ok(out.includes('theme\\\\\\":\\\\\\"dark'), "the rest is kept");
  // A secret key whose value is itself escaped JSON goes whole, up to its own closing quote.
  const auth = JSON.stringify(JSON.stringify({ auth: JSON.stringify({ token: "S-inner" }), user: "bob" }));
  assert.equal(redact.redactText(`x = ${auth}`), 'x = "{\\"auth\\":\\"[redacted]\\",\\"user\\":\\"bob\\"}"');
});

test("service keys: Azure's, Honeycomb's and key-like body fields; a Slack webhook's path", () => {
  const headers = redact.redactHeaders(
    { "ocp-apim-subscription-key": "a", "x-functions-key": "b", "x-honeycomb-team": "c", "idempotency-key": "kept" },
    p,
  );
  assert.deepEqual(headers, { "ocp-apim-subscription-key": R, "x-functions-key": R, "x-honeycomb-team": R, "idempotency-key": "kept" });
  const fields = ["subscriptionKey", "passcode", "encryption_key", "signing_key", "pw", "mfaCode", "recovery_codes"];
  const body = JSON.parse(redact.redactBody(JSON.stringify({ ...Object.fromEntries(fields.map((k) => [k, "s"])), sort_key: "kept", pwd_length: 8 })));
  assert.deepEqual(body, { ...Object.fromEntries(fields.map((k) => [k, R])), sort_key: "kept", pwd_length: 8 });
  assert.equal(
    redact.redactText("posting to https://hooks.slack.com/services/T0001/B0002/abcdefghijklmnopqrstuvwx now"),
    "posting to https://hooks.slack.com/services/[redacted] now",
  );
});

test("an input named only by its placeholder or label is secret when that name says so", () => {
  const input = (attrs) => ({ type: "text", getAttribute: (n) => attrs[n] ?? null });
  assert.ok(redact.isSecretInput(input({ placeholder: "Password" })));
  assert.ok(redact.isSecretInput(input({ "aria-label": "Passcode" })));
  assert.ok(!redact.isSecretInput(input({ placeholder: "Your name" })));
});

test("a pair whose first item names the second: a logged Map, a header list, {name, value} rows", () => {
  const cases = [
    ['{"[Map]":[["password","ZQXmap1"],["apiKey","ZQXmap2"],["user","bob"]]}', `{"[Map]":[["password","${R}"],["apiKey","${R}"],["user","bob"]]}`],
    ['headers [["X-Api-Key","k123"],["Authorization","Token abc"],["Accept","*/*"]]', `headers [["X-Api-Key","${R}"],["Authorization","${R}"],["Accept","*/*"]]`],
    ['[{"name":"api_token","value":"v1"},{"name":"user","value":"bob"}]', `[{"name":"api_token","value":"${R}"},{"name":"user","value":"bob"}]`],
    ["x {key: 'password', value: 'v2'}", `x {key: 'password', value: '${R}'}`],
    ['{"cvv2":"123","apiKeys":["a","b"]}', `{"cvv2":"${R}","apiKeys":${R}}`],
  ];
  for (const [message, want] of cases) assert.equal(redact.redactEntry("logs", { message }).message, want, message);
  // The same shapes as JSON values (a body).
  const body = redact.redactJson({ pairs: [["session_id", "s1"], ["page", 2]], rows: [{ key: "client_secret", value: "c1" }, { key: "page", value: 3 }] }, p);
  assert.deepEqual(body, { pairs: [["session_id", R], ["page", 2]], rows: [{ key: "client_secret", value: R }, { key: "page", value: 3 }] });
  // Pairs that name nothing secret are kept as they are.
  const plain = '[["id",1],["name","Ada"]] {"name":"theme","value":"dark"}';
  assert.equal(redact.redactEntry("logs", { message: plain }).message, plain);
});

test("a list whose first item names a secret is no pair: a Django settings dump keeps its apps and middleware", () => {
  const found = [];
  const text =
    "INSTALLED_APPS = ['django.contrib.auth', 'django.contrib.contenttypes', 'django.contrib.sessions']\n" +
    "MIDDLEWARE = ['django.contrib.sessions.middleware.SessionMiddleware', 'django.middleware.common.CommonMiddleware', 'x']";
  assert.equal(redact.redactText(text, p, found, "responseBody"), text);
  assert.deepEqual(found, []);
  // A pair still is: its second item is its last.
  assert.equal(redact.redactText("[ 'token' , 'abc' ]", p, [], "t"), `[ 'token' , '${R}' ]`);
});

test("a setting that describes a secret is kept: its age, name, engine, model", () => {
  const found = [];
  const text = [
    "SESSION_COOKIE_AGE = 1209600",
    "CSRF_COOKIE_NAME = 'csrftoken'",
    "SESSION_ENGINE = 'django.contrib.sessions.backends.db'",
    "AUTH_USER_MODEL = 'auth.User'",
    "PASSWORD_HASHERS = ['django.contrib.auth.hashers.PBKDF2PasswordHasher']",
    // What a CSRF refusal is debugged with, as Django's debug page lists its settings.
    "CSRF_TRUSTED_ORIGINS: ['http://localhost:5173']",
    "CSRF_USE_SESSIONS: False",
    "CSRF_FAILURE_VIEW: 'django.views.csrf.csrf_failure'",
    "SESSION_SERIALIZER: 'django.contrib.sessions.serializers.JSONSerializer'",
    "SESSION_CACHE_ALIAS: 'default'",
    "SESSION_SAVE_EVERY_REQUEST: False",
    "SESSION_EXPIRE_AT_BROWSER_CLOSE: False",
  ].join("\n");
  assert.equal(redact.redactText(text, p, found, "responseBody"), text);
  assert.deepEqual(found, []);
  // What holds one is still redacted.
  assert.equal(redact.redactText("SECRET_KEY = 'django-insecure-x'\nSESSION_COOKIE = 'abc'", p, [], "b"), `SECRET_KEY = '${R}'\nSESSION_COOKIE = '${R}'`);
  // A debug page's META, as a failed page's text holds it (name: value, a row to a line).
  assert.equal(
    redact.redactText("HTTP_X_CSRFTOKEN: Zq9xK2mLp0\nHTTP_ACCEPT: */*", p, [], "pageText"),
    `HTTP_X_CSRFTOKEN: ${R}\nHTTP_ACCEPT: */*`,
  );
});

test("`key=` is a form field's only where a form's fields are: a component trace keeps its keys", () => {
  const trace = "[Vue warn]: Missing required prop\n  at <Greeting key=4 >\n  at <App>";
  assert.equal(redact.redactText(trace, p, [], "message"), trace);
  // In a query or a form body it is the field a key (Google's `?key=`) travels in.
  assert.equal(redact.redactText("GET /maps?key=abc123&q=x", p, [], "m"), `GET /maps?key=${R}&q=x`);
  assert.equal(redact.redactText("key=abc123&q=x", p, [], "m"), `key=${R}&q=x`);
});

test("an action's selector keeps its pseudo-classes: it names markup, no key and value", () => {
  const click = redact.redactEntry("actions", { type: "click", selector: "body > div.pin-prompt:nth-of-type(2) > div.inner > form", text: "password: hunter2" });
  assert.equal(click.selector, "body > div.pin-prompt:nth-of-type(2) > div.inner > form");
  assert.equal(click.text, `password: ${R}`);
  const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc";
  assert.ok(!redact.redactEntry("actions", { type: "click", selector: `#t-${jwt}` }).selector.includes("eyJ"));
});
