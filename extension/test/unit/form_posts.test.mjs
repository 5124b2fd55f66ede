// background/form_posts.js: which page-side document rows a form's POST loaded.
import { test } from "node:test";
import assert from "node:assert/strict";

import { ANSWER_WITHIN_MS, FormPosts } from "../../background/form_posts.js";

const APP = "http://127.0.0.1:8000";
const submit = (fields = {}) => ({ type: "submit", url: `${APP}/login/`, action: `${APP}/login/`, method: "POST", ...fields });
const documentRow = (url, fields = {}) => ({ source: "page", method: null, url, initiatorType: "navigation", ...fields });

function posts() {
  let clock = 1_000;
  const p = new FormPosts(() => clock);
  p.advance = (ms) => (clock += ms);
  return p;
}

test("the frame's next document at the form's action is its POST", () => {
  const p = posts();
  p.submitted(7, 0, submit());
  p.advance(300);
  const row = documentRow(`${APP}/login/#errors`);
  p.documentRow(7, 0, row);
  assert.equal(row.method, "POST");
  // Once: the next load of the same URL (a reload) is not.
  const again = documentRow(`${APP}/login/`);
  p.documentRow(7, 0, again);
  assert.equal(again.method, null);
});

test("a document a redirect led to after the POST names the form's action, and has no method", () => {
  for (const url of [`${APP}/items/2`, `${APP}/login/`]) {
    const p = posts();
    p.submitted(7, 0, submit());
    p.advance(200);
    const row = documentRow(url, { phases: { redirect: 3.5 } });
    p.documentRow(7, 0, row);
    assert.deepEqual([row.method, row.afterFormPost], [null, `${APP}/login/`], url);
  }
});

test("another URL without a redirect seen, another frame or tab, too late: no method", () => {
  const cases = [
    [documentRow(`${APP}/dashboard/`), 7, 0, 100], // post, redirect to another page (cross-origin hops are not seen)
    [documentRow(`${APP}/login/`), 7, 3, 100], // another frame
    [documentRow(`${APP}/login/`), 8, 0, 100], // another tab
    [documentRow(`${APP}/login/`), 7, 0, ANSWER_WITHIN_MS + 1], // long after
  ];
  for (const [row, tab, frame, after] of cases) {
    const p = posts();
    p.submitted(7, 0, submit());
    p.advance(after);
    p.documentRow(tab, frame, row);
    assert.equal(row.method, null, JSON.stringify({ row, tab, frame, after }));
    assert.equal(row.afterFormPost, undefined, JSON.stringify({ row, tab, frame, after }));
  }
});

test("the row of the document the form was in, sent after its submit, answers nothing and leaves it waiting", () => {
  const p = posts();
  p.submitted(7, 0, submit({ ts: 50_000 }));
  const before = documentRow(`${APP}/login/`, { ts: 48_000 }); // loaded 2 s before its submit
  p.documentRow(7, 0, before);
  assert.deepEqual([before.method, before.afterFormPost], [null, undefined]);
  const answer = documentRow(`${APP}/done/`, { ts: 50_020, phases: { redirect: 2.7 } });
  p.documentRow(7, 0, answer);
  assert.equal(answer.afterFormPost, `${APP}/login/`);
});

test("the form's own document's row is known by the document it came from, however soon the form was sent", () => {
  const p = posts();
  p.submitted(7, 0, submit({ ts: 50_000 }), "page-a");
  // Loaded 84 ms before its submit (a test's form, sent as soon as it showed): within the clock's slack.
  const own = documentRow(`${APP}/login/`, { ts: 49_916 });
  p.documentRow(7, 0, own, "page-a");
  assert.deepEqual([own.method, own.afterFormPost], [null, undefined]);
  const answer = documentRow(`${APP}/done/`, { ts: 50_020, phases: { redirect: 2.7 } });
  p.documentRow(7, 0, answer, "page-b");
  assert.equal(answer.afterFormPost, `${APP}/login/`);
});

test("a submit the page handled, into another window, or a GET form answers nothing", () => {
  for (const fields of [{ defaultPrevented: true }, { target: "_blank" }, { method: "GET" }, { action: undefined }]) {
    const p = posts();
    p.submitted(7, 0, submit(fields));
    const row = documentRow(`${APP}/login/`);
    p.documentRow(7, 0, row);
    assert.equal(row.method, null, JSON.stringify(fields));
  }
});

test("only a page's document row without a method is changed; a closed tab is forgotten", () => {
  const p = posts();
  p.submitted(7, 0, submit());
  const fetchRow = { source: "page", method: "GET", url: `${APP}/login/`, initiatorType: "fetch" };
  p.documentRow(7, 0, fetchRow);
  assert.equal(fetchRow.method, "GET");
  const browserRow = { source: "browser", method: "GET", url: `${APP}/login/`, type: "Document" };
  p.documentRow(7, 0, browserRow);
  assert.equal(browserRow.method, "GET");
  p.closed(7);
  const row = documentRow(`${APP}/login/`);
  p.documentRow(7, 0, row);
  assert.equal(row.method, null);
});
