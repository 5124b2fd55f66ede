import { test } from "node:test";
import assert from "node:assert/strict";
import { selector } from "./load.mjs";

// A minimal element tree: enough of the DOM for selector building.
function el(tagName, attrs = {}, children = []) {
  const node = {
    nodeType: 1,
    tagName: tagName.toUpperCase(),
    id: attrs.id || "",
    className: attrs.class || "",
    type: attrs.type,
    value: attrs.value,
    get innerText() {
      throw new Error("innerText forces layout: never read it");
    },
    getAttribute: (n) => (n in attrs ? attrs[n] : null),
    parentElement: null,
    children,
  };
  for (const child of children) child.parentElement = node;
  children.forEach((c, i) => {
    c.previousElementSibling = children[i - 1] || null;
    c.nextElementSibling = children[i + 1] || null;
  });
  // Child nodes as the DOM links them: a text node for `text`, then the elements.
  const nodes = [...(attrs.text !== undefined ? [{ nodeType: 3, nodeValue: attrs.text }] : []), ...children];
  nodes.forEach((n, i) => (n.previousSibling = nodes[i - 1] || null));
  node.lastChild = nodes[nodes.length - 1] || null;
  return node;
}

test("an element with an id is named by it", () => {
  const button = el("button", { id: "save" });
  el("body", {}, [el("div", {}, [button])]);
  assert.equal(selector.cssSelector(button), "#save");
});

test("a prefix and a word is a chosen id; a prefix and a hash is generated", () => {
  for (const id of ["nav-settings", "btn-submit", "nav-contacts", "app-header", "err500", "http404", "nav-item99"]) {
    const link = el("a", { id });
    el("body", {}, [el("nav", {}, [link])]);
    assert.equal(selector.cssSelector(link), `#${id}`);
  }
  for (const id of ["el-8fj2k", "x-bdVaJa", "rc-1a2b3c", "item-20231", "ember512"]) {
    const link = el("a", { id });
    el("body", {}, [el("nav", { id: "top" }, [link])]);
    assert.equal(selector.cssSelector(link), "#top > a", id);
  }
});

test("test attributes win over generated ids and classes", () => {
  const button = el("button", { id: "btn-123456", class: "css-1x2y3z", "data-testid": "checkout" });
  el("body", {}, [button]);
  assert.equal(selector.cssSelector(button), 'button[data-testid="checkout"]');
});

test("without stable attributes, a short path with nth-of-type up to a named ancestor", () => {
  const second = el("li", { class: "item" });
  const list = el("ul", { id: "menu" }, [el("li", { class: "item" }), second]);
  el("body", {}, [list]);
  assert.equal(selector.cssSelector(second), "#menu > li.item:nth-of-type(2)");
});

test("visible text is trimmed and bounded, and never a typed value", () => {
  assert.equal(selector.visibleText(el("button", { text: "  Buy\n now  " })), "Buy now");
  assert.equal(selector.visibleText(el("input", { type: "submit", value: "Send" })), "Send");
  assert.equal(selector.visibleText(el("input", { type: "password", value: "hunter2" })), "");
  assert.equal(selector.visibleText(el("input", { type: "text", value: "typed", "aria-label": "Name" })), "Name");
  assert.ok(selector.visibleText(el("p", { text: "y".repeat(500) })).length <= 121);
  const card = el("div", {}, [el("h2", { text: "Title" }), el("p", { text: "Body text" }), el("script", { text: "var x" })]);
  assert.equal(selector.visibleText(card), "Title Body text", "text nodes in order, scripts skipped, no layout read");
});

test("a row of a huge list is named without walking the whole list", () => {
  const rows = Array.from({ length: 50000 }, () => el("li"));
  el("body", {}, [el("ul", { id: "rows" }, rows)]);
  assert.equal(selector.cssSelector(rows[2]), "#rows > li:nth-of-type(3)");
  assert.equal(selector.cssSelector(rows[0]), "#rows > li:nth-of-type(1)");
  let walked = 0;
  for (const r of rows) {
    const prev = r.previousElementSibling;
    Object.defineProperty(r, "previousElementSibling", { get: () => (walked++, prev) });
  }
  assert.equal(selector.cssSelector(rows[40000]), "#rows > li", "past 1,000 siblings the position is left out");
  assert.ok(walked <= 1001, `walked ${walked} siblings`);
  const only = el("span");
  el("body", {}, [el("p", { id: "solo" }, [only, el("b")])]);
  assert.equal(selector.cssSelector(only), "#solo > span", "no position when no sibling shares the tag");
});

test("an element in a shadow root is named within it, after its host's selector", () => {
  const doc = { nodeType: 9, parentNode: null };
  const link = (child, parent) => Object.assign(child, { parentNode: parent });
  // <body><open-widget id="ow">#shadow-root <div class="row"><button class="go"></div></open-widget></body>
  const button = el("button", { class: "go" });
  const row = el("div", { class: "row" }, [button]);
  const host = el("open-widget", { id: "ow" });
  const body = el("body", {}, [el("main", {}, [host])]);
  link(body, doc);
  link(host.parentElement, body);
  link(host, host.parentElement);
  const shadow = { nodeType: 11, host, parentNode: null };
  link(row, shadow);
  link(button, row);
  assert.equal(selector.cssSelector(button), "#ow >>> div.row > button.go");
  // An id inside a shadow root is unique in it only: still after its host.
  const inner = el("input", { id: "q" });
  link(inner, shadow);
  assert.equal(selector.cssSelector(inner), "#ow >>> #q");
  // A host within another's shadow root: each host, outermost first.
  const nested = el("date-picker", { "data-testid": "when" });
  link(nested, row);
  nested.parentElement = row;
  const day = el("td", { "aria-label": "May 3" });
  link(day, { nodeType: 11, host: nested, parentNode: null });
  assert.equal(selector.cssSelector(day), '#ow >>> date-picker[data-testid="when"] >>> td[aria-label="May 3"]');
});
