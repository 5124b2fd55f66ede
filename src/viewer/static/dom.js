// Building the page: elements with their text set through textContent only.
// Captured data is hostile (it comes from any page the user opened): nothing
// here ever parses a string as HTML, and no captured value becomes a link.

const SVG = "http://www.w3.org/2000/svg";

/**
 * el("div.a.b", {attrs}, ...children): children are nodes or text (strings and
 * numbers become text nodes). Attributes go through setAttribute, except
 * `on*` functions (listeners) and `text` (textContent).
 */
export function el(spec, attrs = {}, ...children) {
  return build(document.createElement(tagOf(spec)), spec, attrs, children);
}

/** The same, in the SVG namespace. */
export function svg(spec, attrs = {}, ...children) {
  return build(document.createElementNS(SVG, tagOf(spec)), spec, attrs, children);
}

function tagOf(spec) {
  return spec.split(".")[0] || "div";
}

function build(node, spec, attrs, children) {
  const classes = spec.split(".").slice(1);
  if (classes.length) node.setAttribute("class", classes.join(" "));
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") node.textContent = String(v);
    else if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "class") node.setAttribute("class", [node.getAttribute("class"), v].filter(Boolean).join(" "));
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    node.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces the children of `node`. */
export function replace(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** Text shortened to `n` characters for a cell, saying how much was left. */
export function cut(text, n = 400) {
  const s = text === undefined || text === null ? "" : String(text);
  return s.length > n ? `${s.slice(0, n)}… (+${s.length - n} chars)` : s;
}

/** A time of day with milliseconds, local time. */
export function clock(ts) {
  if (typeof ts !== "number") return "";
  const d = new Date(ts);
  const p = (n, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** A date and time, local. */
export function when(ts) {
  if (typeof ts !== "number") return "never";
  return `${new Date(ts).toLocaleDateString()} ${clock(ts)}`;
}

export function bytes(n) {
  if (typeof n !== "number" || !Number.isFinite(n) || n <= 0) return "";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function ms(n) {
  if (typeof n !== "number" || !Number.isFinite(n)) return "";
  return n < 1000 ? `${Math.round(n * 10) / 10} ms` : `${(n / 1000).toFixed(2)} s`;
}

/**
 * A JSON value as an expandable tree (<details> per object or array), every
 * key and value as text. Long strings are cut, with a button for the rest.
 */
export function tree(value, name, depth = 0) {
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value).filter(([k]) => !k.startsWith("_"));
    const open = depth < 1;
    const label = Array.isArray(value) ? `Array(${entries.length})` : `{${entries.length}}`;
    return el(
      "details.tree",
      { open },
      el("summary", {}, name !== undefined ? el("span.key", { text: `${name}: ` }) : null, el("span.dim", { text: label })),
      el("ul", {}, entries.map(([k, v]) => el("li", {}, tree(v, k, depth + 1)))),
    );
  }
  const cls = value === null ? "null" : typeof value;
  return el(
    "span.leaf",
    {},
    name !== undefined ? el("span.key", { text: `${name}: ` }) : null,
    typeof value === "string" ? longText(value, `v-${cls}`) : el(`span.v-${cls}`, { text: JSON.stringify(value) }),
  );
}

/** A string shown in chunks of 64 KB: a 1 MB line does not freeze the page. */
export function longText(text, cls = "", tag = "span") {
  const CHUNK = 64 * 1024;
  const node = el(`${tag}.${cls || "text"}`.replace(/\.$/, ""), { text: text.slice(0, CHUNK) });
  if (text.length <= CHUNK) return node;
  let shown = CHUNK;
  const more = el("button.more", {
    type: "button",
    text: `show more (${text.length - shown} more characters)`,
    onclick: () => {
      node.appendChild(document.createTextNode(text.slice(shown, shown + CHUNK)));
      shown += CHUNK;
      if (shown >= text.length) more.remove();
      else more.textContent = `show more (${text.length - shown} more characters)`;
    },
  });
  return el("span.long", {}, node, more);
}
