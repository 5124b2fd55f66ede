// Forms a server renders, as a Django or Rails app has them: a POST answered with
// the form again (its errors), a POST redirected to a GET, and a single-page
// app's form whose handler keeps the page. Navigation Timing has no method, so
// the page-side document row of a POST's answer says POST only because the page
// before said it submitted there. Called by run.mjs with the running browser and
// server; `formsRoute` serves the pages from run.mjs's server.
import assert from "node:assert/strict";

const page = (title, body) => `<!doctype html><meta charset="utf-8"><title>${title}</title>${body}`;
// A field named "action" hides the form's own `action` property from a script that reads form.action.
const FORM = `<form method="post" action="/form"><input name="action" value="save"><input name="email" value="ann@example.com"><button id="send">Send</button></form>`;

/** Serves the forms' routes; false for any other path. */
export function formsRoute(req, res, url) {
  const html = (status, body, extra = {}) => {
    res.writeHead(status, { "content-type": "text/html", "cache-control": "no-store", ...extra });
    res.end(body);
  };
  if (url.pathname === "/form" && req.method === "GET") {
    html(200, page("form", FORM));
  } else if (url.pathname === "/form" && req.method === "POST") {
    req.resume();
    req.on("end", () => html(200, page("form, again", `<p id="errors">This email is taken.</p>${FORM}`)));
  } else if (url.pathname === "/prg" && req.method === "GET") {
    html(200, page("prg", `<form method="post" action="/prg"><button id="send">Send</button></form>`));
  } else if (url.pathname === "/prg" && req.method === "POST") {
    req.resume();
    req.on("end", () => html(303, "", { location: "/done" }));
  } else if (url.pathname === "/done") {
    html(200, page("done", `<p id="done">Saved.</p>`));
  } else if (url.pathname === "/spa-form") {
    html(200, page("spa", `<form method="post" action="/spa-form"><button id="send">Send</button></form>
      <script>document.querySelector("form").addEventListener("submit", (e) => { e.preventDefault(); document.title = "sent"; });</script>`));
  } else if (url.pathname === "/dialog-form") {
    html(200, page("dialog", `<button id="open" onclick="document.getElementById('confirm').showModal()">Delete</button>
      <dialog id="confirm"><form method="dialog" action="/never"><button id="yes" value="yes">Yes</button></form></dialog>`));
  } else if (url.pathname === "/hx-form") {
    // An htmx form: no method or action of its own, htmx's handler sends it by XHR to hx-post.
    html(200, page("hx", `<form hx-post="/fragments/notes" hx-target="#out"><input name="title"><button id="send">Save</button></form><p id="out"></p>
      <script>document.querySelector("form").addEventListener("submit", (e) => { e.preventDefault(); document.title = "sent"; });</script>`));
  } else if (url.pathname === "/shadow-form") {
    // A web component's form, its fields in the shadow root, and a light-DOM field slotted into it.
    html(200, page("shadow", `<login-box><select id="plan" slot="extra"><option>free</option><option>pro</option></select></login-box>
      <script>customElements.define("login-box", class extends HTMLElement {
        connectedCallback() {
          const root = this.attachShadow({ mode: "open" });
          root.innerHTML = '<form method="post" action="/never"><input id="user" name="user"><input id="pw" type="password" name="pw">' +
            '<input id="agree" type="checkbox"><slot name="extra"></slot><button id="in">Sign in</button></form>';
          root.querySelector("form").addEventListener("submit", (e) => { e.preventDefault(); document.title = "signed in " + (++this.count); });
          this.count = 0;
        }
      });</script>`));
  } else if (url.pathname === "/card-form") {
    // A payment form whose fields are named only by their labels, one by aria-labelledby.
    html(200, page("card", `<form><label for="f1">Card number</label><input id="f1" name="f1" inputmode="numeric">
      <label for="f2">CVC</label><input id="f2" name="f2" inputmode="numeric">
      <span id="zip-label">Postcode</span><input id="f3" name="f3" aria-labelledby="zip-label"></form>`));
  } else {
    return false;
  }
  return true;
}

export async function formsPage({ context, client, all, waitFor, log, origin }) {
  const tab = await context.newPage();
  const documents = async (path) =>
    (await all(client, "network_waterfall")).filter((r) => r.initiatorType === "navigation" && r.url === `${origin}${path}`);
  const submits = async (path) => (await all(client, "actions")).filter((a) => a.type === "submit" && a.url === `${origin}${path}`);

  // A POST answered with the form again: the answer's document row is the POST.
  await tab.goto(`${origin}/form`);
  await waitFor("the form's first document row", async () => (await documents("/form")).length === 1);
  await Promise.all([tab.waitForNavigation(), tab.click("#send")]);
  await tab.waitForSelector("#errors");
  const rows = await waitFor("the POST's answer's row", async () => {
    const r = await documents("/form");
    return r.length === 2 && r;
  });
  assert.deepEqual(rows.map((r) => r.method ?? null), [null, "POST"], JSON.stringify(rows));
  const [submitted] = await submits("/form");
  assert.equal(submitted.action, `${origin}/form`, "the form's own action, not the field named action");
  assert.equal(submitted.method, "POST");
  assert.equal(submitted.defaultPrevented, undefined);
  log("a form POST answered with the form again: its document row says POST");

  // Post, redirect, get: the page sees the GET alone, whose row keeps no method.
  await tab.goto(`${origin}/prg`);
  await Promise.all([tab.waitForNavigation({ url: `${origin}/done` }), tab.click("#send")]);
  const done = await waitFor("the redirect's page row", async () => (await documents("/done"))[0]);
  assert.equal(done.method, undefined, JSON.stringify(done));
  // But it names the form's action it came after: the browser timed the redirect to it.
  assert.equal(done.afterFormPost, `${origin}/prg`, JSON.stringify({ done, prg: await documents("/prg"), submits: await submits("/prg") }));
  assert.equal((await submits("/prg")).length, 1);

  // A single-page app's form: its submit says the page kept it, and the page's next load is no POST.
  await tab.goto(`${origin}/spa-form`);
  await tab.click("#send");
  await tab.waitForFunction(() => document.title === "sent");
  const spa = await waitFor("the kept submit", async () => (await submits("/spa-form"))[0]);
  assert.equal(spa.defaultPrevented, true, JSON.stringify(spa));
  await tab.reload();
  const reloaded = await waitFor("the reload's row", async () => {
    const r = await documents("/spa-form");
    return r.length === 2 && r;
  });
  assert.deepEqual(reloaded.map((r) => r.method ?? null), [null, null], JSON.stringify(reloaded));
  log("a POST redirected to a GET says no POST but the form's action it came after; a form the page kept says defaultPrevented");

  // A form of method "dialog" sends nothing: its submit names the dialog it closes, and no action.
  await tab.goto(`${origin}/dialog-form`);
  await tab.click("#open");
  await tab.click("#yes");
  await tab.waitForFunction(() => document.getElementById("confirm").returnValue === "yes");
  const closing = await waitFor("the dialog form's submit", async () => (await submits("/dialog-form"))[0]);
  assert.deepEqual([closing.method, closing.dialog, closing.action], ["DIALOG", "#confirm", undefined], JSON.stringify(closing));
  log("a dialog's form: its submit names the dialog it closes and no action");

  // An htmx form: its submit names the request htmx makes, not the form's own action.
  await tab.goto(`${origin}/hx-form`);
  await tab.click("#send");
  await tab.waitForFunction(() => document.title === "sent");
  const hx = await waitFor("the htmx form's submit", async () => (await submits("/hx-form"))[0]);
  assert.deepEqual([hx.method, hx.action, hx.via, hx.defaultPrevented], ["POST", `${origin}/fragments/notes`, "htmx", true], JSON.stringify(hx));
  log("an htmx form: its submit names htmx's request (hx-post), via htmx");

  // A form in a shadow root: its submits (by the button, by Enter) and its fields' changes are
  // recorded once each, a slotted light-DOM field's too, and the password is not.
  await tab.goto(`${origin}/shadow-form`);
  await tab.locator("#user").fill("ann");
  await tab.locator("#pw").fill("hunter2-shadow");
  await tab.locator("#agree").check();
  await tab.locator("#plan").selectOption("pro");
  await tab.locator("#in").click();
  await tab.waitForFunction(() => document.title === "signed in 1");
  await tab.locator("#pw").press("Enter");
  await tab.waitForFunction(() => document.title === "signed in 2");
  const shadowActions = async () => (await all(client, "actions")).filter((a) => a.url === `${origin}/shadow-form`);
  const signedIn = await waitFor("the shadow root's two submits", async () => {
    const s = (await shadowActions()).filter((a) => a.type === "submit");
    return s.length === 2 && s;
  });
  for (const s of signedIn) {
    assert.deepEqual([s.selector, s.method, s.defaultPrevented], ["body > login-box >>> form", "POST", true], JSON.stringify(s));
  }
  const changes = (await shadowActions()).filter((a) => a.type === "change");
  const changed = (sel) => changes.filter((c) => c.selector === sel);
  assert.equal(changed("body > login-box >>> #user")[0]?.value, "ann", JSON.stringify(changes));
  assert.deepEqual(changed("body > login-box >>> #pw").map((c) => c.value), ["[redacted]"], JSON.stringify(changes));
  assert.deepEqual(changed("body > login-box >>> #agree").map((c) => c.checked), [true], JSON.stringify(changes));
  assert.deepEqual(changed("#plan").map((c) => c.value), ["pro"], JSON.stringify(changes));
  assert.ok(!JSON.stringify(await shadowActions()).includes("hunter2-shadow"));
  log("a form in a shadow root: its submits and changes are recorded once each, its password redacted");

  // A payment form named by labels alone: a card number typed in part (saved at a pause) and a
  // CVC are never read; a field labelled as anything else keeps its value.
  await tab.goto(`${origin}/card-form`);
  await tab.locator("#f1").pressSequentially("4242 4242 4242");
  await tab.locator("#f2").fill("918");
  await tab.locator("#f3").fill("SW1A 1AA");
  await tab.locator("#f1").focus(); // the postcode's change
  const cardActions = async () => (await all(client, "actions")).filter((a) => a.url === `${origin}/card-form`);
  const typed = await waitFor("the card form's fields", async () => {
    const a = await cardActions();
    const bySel = (sel) => a.filter((x) => x.selector === sel && x.value !== undefined);
    return bySel("#f1").length && bySel("#f2").length && bySel("#f3").length && a;
  });
  for (const sel of ["#f1", "#f2"]) {
    const values = typed.filter((a) => a.selector === sel && a.value !== undefined).map((a) => a.value);
    assert.ok(values.every((v) => v === "[redacted]"), `${sel}: ${JSON.stringify(values)}`);
  }
  assert.ok(typed.some((a) => a.selector === "#f3" && a.value === "SW1A 1AA"), JSON.stringify(typed));
  assert.ok(!/4242|918/.test(JSON.stringify(typed)), JSON.stringify(typed));
  log("a payment form named by labels alone: its card number and CVC are redacted, its postcode kept");
  await tab.close();
}
