import { test } from "node:test";
import assert from "node:assert/strict";
import { redact } from "./load.mjs";

const R = redact.REDACTED;

test("credential headers are redacted whatever their case", () => {
  const out = redact.redactHeaders({
    Authorization: "Bearer abc",
    cookie: "sid=1",
    "Set-Cookie": "sid=2",
    "Proxy-Authorization": "Basic x",
    "X-Api-Key": "k",
    "x-auth-token": "t",
    "Content-Type": "application/json",
    Accept: "*/*",
  });
  assert.deepEqual(out, {
    Authorization: R,
    cookie: R,
    "Set-Cookie": R,
    "Proxy-Authorization": R,
    "X-Api-Key": R,
    "x-auth-token": R,
    "Content-Type": "application/json",
    Accept: "*/*",
  });
});

test("the user's extra header names are redacted too", () => {
  const p = redact.policy(["X-Tenant"], []);
  assert.deepEqual(redact.redactHeaders({ "x-tenant": "acme", "x-other": "1" }, p), { "x-tenant": R, "x-other": "1" });
});

test("secret keys in JSON bodies are redacted at any depth", () => {
  const body = JSON.stringify({ user: "ann", password: "hunter2", nested: [{ accessToken: "t1", ok: 1 }] });
  assert.deepEqual(JSON.parse(redact.redactBody(body)), {
    user: "ann",
    password: R,
    nested: [{ accessToken: R, ok: 1 }],
  });
});

test("form bodies, cut JSON and free text are redacted by pattern", () => {
  assert.equal(redact.redactBody("user=ann&password=hunter2&x=1"), `user=ann&password=${R}&x=1`);
  assert.equal(redact.redactBody('{"password": "hunter2", "user": "an'), `{"password": "${R}", "user": "an`);
  assert.equal(redact.redactBody("token: abc123 rest"), `token: ${R} rest`);
});

test("the user's extra body keys are redacted", () => {
  const p = redact.policy([], ["pin_code"]);
  assert.equal(redact.redactBody('{"pinCode":"1234","a":"b"}', p), `{"pinCode":"${R}","a":"b"}`);
});

test("secret query parameters are redacted in URLs", () => {
  assert.equal(
    redact.redactUrl("https://api.example.com/v1?q=shoes&api_key=SECRET&page=2"),
    `https://api.example.com/v1?q=shoes&api_key=${encodeURIComponent(R)}&page=2`,
  );
  assert.equal(redact.redactUrl("/search?q=1"), "/search?q=1");
  assert.equal(redact.redactUrl("/login?token=x"), `/login?token=${encodeURIComponent(R)}`);
});

test("password, card and secret inputs are recognised", () => {
  const input = (attrs) => ({ type: attrs.type || "text", name: attrs.name, id: attrs.id, getAttribute: (n) => attrs[n] });
  assert.ok(redact.isSecretInput(input({ type: "password" })));
  assert.ok(redact.isSecretInput(input({ name: "card_number" })));
  assert.ok(redact.isSecretInput(input({ id: "cvv" })));
  assert.ok(redact.isSecretInput(input({ autocomplete: "cc-number" })));
  assert.ok(redact.isSecretInput(input({ name: "api_secret" })));
  assert.ok(!redact.isSecretInput(input({ name: "email" })));
  assert.ok(!redact.isSecretInput(null));
});
